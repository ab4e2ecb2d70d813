"""Event engine: hand-computed schedules, the task-based policy interface, bad input."""

from collections import deque

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.errors import InvalidInstanceError
from fairalloc.model import Cluster
from fairalloc.sim import Policy
from fairalloc.sim import ResourcePool, Servers, Simulation, SimulationError, simulate
from fairalloc.sim.launches import Launches
from fairalloc.workloads import Workload

# Five jobs on 4 processors (submit, run, processors); requested = run (exact estimates).
SUBMIT = [0, 1, 2, 3, 4]
RUN = [10, 5, 3, 4, 2]
PROCS = [2, 3, 1, 2, 4]


def five_jobs(**kw):
    return Workload(submit=SUBMIT, run_time=RUN, requested_time=RUN, processors=PROCS, **kw)


@pytest.mark.parametrize("engine", ["events", "kernel"])
def test_fcfs_hand_computed(engine):
    # J0 starts at 0 (2 free). J1 needs 3: waits for J0's end at 10. J2 (1 proc) may not overtake
    # J1: starts with it at 10 (1 free). J3 needs 2: J2 ends 13 (1 free), J1 ends 15 (4 free) -> 15.
    # J4 needs 4: J3 ends at 19 -> 19.
    r = simulate(five_jobs(), 4, policy="fcfs", engine=engine)
    assert r.jobs["start"].tolist() == [0, 10, 10, 15, 19]
    assert r.jobs["end"].tolist() == [10, 15, 13, 19, 21]
    assert r.makespan == 21


def test_easy_hand_computed():
    # t=1: J1 (3 procs) blocked, reservation at J0's end 10, 1 extra processor then.
    # t=2: J2 (1 proc, 3 s) ends at 5 <= 10: backfilled at 2.   t=5: J3 (2 procs, 4 s) ends 9 <= 10:
    # backfilled at 5.   t=10: J1 starts as reserved; J4 (4 procs) waits for J1's end at 15.
    r = simulate(five_jobs(), 4, policy="easy")
    assert r.jobs["start"].tolist() == [0, 10, 2, 5, 15]
    assert r.policy == "fcfs+easy"


def test_easy_backfills_on_extra_processors_without_delaying_head():
    # 4 procs. J0: 3 procs 0..10. J1 (head at t=1): 4 procs, reserved at 10, extra = 0.
    # J2 at t=2: 1 proc, 20 s: would end at 22 > 10 and extra = 0 -> must NOT backfill.
    wl = Workload(submit=[0, 1, 2], run_time=[10, 5, 20], requested_time=[10, 5, 20],
                  processors=[3, 4, 1])
    r = simulate(wl, 4, policy="easy")
    assert r.jobs["start"].tolist() == [0, 10, 15]
    # Same with J1 needing 3: extra = 1 at t=10, so J2 (1 proc) backfills at 2 and J1 starts at 10.
    wl = wl.replace(processors=[3, 3, 1])
    r = simulate(wl, 4, policy="easy")
    assert r.jobs["start"].tolist() == [0, 10, 2]


def test_walltime_enforced_or_not_said_in_output():
    wl = Workload(submit=[0, 0], run_time=[100, 10], requested_time=[50, 20], processors=[4, 4])
    kill = simulate(wl, 4, policy="fcfs", enforce_walltime=True)
    assert kill.enforce_walltime and kill.jobs["killed"].tolist() == [True, False]
    assert kill.jobs["end"].tolist() == [50, 60]          # killed at its 50 s walltime
    assert "killed at walltime" in repr(kill) and kill.summary()["enforce_walltime"] is True
    full = simulate(wl, 4, policy="fcfs")
    assert full.jobs["end"].tolist() == [100, 110]
    assert "run to completion" in repr(full)


def test_metrics_hand_computed():
    r = simulate(five_jobs(), 4, policy="fcfs")
    # waits 0, 9, 8, 12, 15; runs 10, 5, 3, 4, 2 -> bsld max((w+r)/max(r,10), 1):
    # 1, (9+5)/10=1.4, (8+3)/10=1.1, (12+4)/10=1.6, (15+2)/10=1.7
    assert r.jobs["wait"].tolist() == [0, 9, 8, 12, 15]
    assert r.jobs["bsld"].round(12).tolist() == [1.0, 1.4, 1.1, 1.6, 1.7]
    assert r.avebsld == pytest.approx((1 + 1.4 + 1.1 + 1.6 + 1.7) / 5)
    # busy processor-seconds 2*10+3*5+1*3+2*4+4*2 = 54 over 4 processors x 21 s
    assert r.mean_utilization() == pytest.approx(54 / 84)
    u = r.users()
    assert u["jobs"].sum() == 5


def test_empty_workload_gives_empty_result(tmp_path):
    wl = Workload(submit=[], run_time=[], processors=[])
    for pol in ["fcfs", "easy", "wfp3", "buc"]:
        r = simulate(wl, 4, policy=pol)
        assert len(r) == 0 and r.makespan == 0.0 and np.isnan(r.avebsld)
    r.to_parquet(tmp_path / "empty")


def test_job_wider_than_machine_rejected_and_counted_never_hangs():
    wl = Workload(submit=[0, 1, 2], run_time=[5, 5, np.nan], processors=[2, 9, 1])
    for engine in ["events", "auto"]:
        r = simulate(wl, 4, policy="fcfs", engine=engine)
        assert r.rejected["row"].tolist() == [1, 2]
        assert "wider than the machine (9 > 4" in r.rejected["reason"][0]
        assert r.rejected["reason"][1] == "run time unknown"
        assert r.summary()["rejected"] == 2 and r.summary()["finished"] == 1


def test_negative_times_rejected_by_the_workload():
    with pytest.raises(InvalidInstanceError, match=r"run_time\[1\]=-3.0 must be >= 0") as e:
        Workload(submit=[0, 1], run_time=[1, -3])
    assert e.value.argument == "run_time" and e.value.index == (1,) and e.value.value == -3.0
    with pytest.raises(InvalidInstanceError, match=r"processors\[0\]=0"):
        Workload(submit=[0], run_time=[1], processors=[0])


def test_bad_policy_and_capacity():
    with pytest.raises(InvalidInstanceError, match="policy='nope'"):
        simulate(five_jobs(), 4, policy="nope")
    with pytest.raises(InvalidInstanceError, match="capacity is required"):
        simulate(five_jobs(), policy="fcfs")
    with pytest.raises(InvalidInstanceError, match="capacity=0"):
        simulate(five_jobs(), 0)


class Greedy(Policy):
    """A broken policy: starts everything at once."""

    name = "greedy"

    def reset(self, sim):
        super().reset(sim)
        self.q = []

    def on_submit(self, job, now):
        self.q.append(job)

    def schedule(self, now):
        out, self.q = [(j, 1, 0) for j in self.q], []
        return out


def test_overcommitting_policy_is_an_error_not_a_silent_overrun():
    with pytest.raises(SimulationError, match="needs 3 processors"):
        simulate(five_jobs(), 4, policy=Greedy())


# ---- the task interface: a FIFO of tasks on a pool with a resource vector ----------------------
class TaskFIFO(Policy):
    """Start as many tasks of the head job as fit (on the first allowed server with room); the
    next job waits until the head has launched all its tasks."""

    name = "task-fifo"

    def reset(self, sim):
        super().reset(sim)
        self.q = deque()
        self.left = {}

    def on_submit(self, job, now):
        self.q.append(job)
        self.left[job] = int(self.sim.workload.tasks[job])

    def schedule(self, now):
        st = self.sim.state
        free = st.free.copy()  # account for our own launches in this call
        out = []
        while self.q:
            j = self.q[0]
            d = st.demand[j]
            for s in range(st.n_servers):
                if not st.allowed(j, s):
                    continue
                k = min(self.left[j], int(fa.shares.tasks_that_fit(free[s], d)))
                if k:
                    out.append((j, k, s))
                    free[s] -= k * d
                    self.left[j] -= k
            if self.left[j]:
                break
            self.q.popleft()
        return out


def test_task_fifo_on_a_pool_hand_computed():
    # pool (4 cpu, 8 mem). A: 3 tasks of (1, 2) for 10 s at t=0. B: 2 tasks of (2, 1) for 5 s at t=0.
    # C: 1 task of (1, 1) for 1 s at t=1.  t=0: A's 3 tasks fit (free (1, 2)); B's first task needs
    # 2 cpu: blocked.  t=10: A ends, B's 2 tasks start (free (0, 6)); C needs 1 cpu: waits.
    # t=15: B ends; C starts, ends 16.
    wl = Workload(submit=[0, 0, 1], run_time=[10, 5, 1], tasks=[3, 2, 1],
                  resources=[[1, 2], [2, 1], [1, 1]], resource_names=["cpu", "mem"], user=[0, 1, 2])
    r = simulate(wl, [4.0, 8.0], policy=TaskFIFO())
    assert r.jobs["start"].tolist() == [0, 10, 15]
    assert r.jobs["end"].tolist() == [10, 15, 16]
    assert r.launches[["job", "tasks", "server", "start"]].values.tolist() == [
        [0, 3, 0, 0], [1, 2, 0, 10], [2, 1, 0, 15]]
    # every resource (issue 15 item 5; it was the first only): cpu in use 3 (0..10), 4 (10..15),
    # 1 (15..16) of 4; mem 6, 2, 1 of 8
    u = r.utilization()
    assert u["time"].tolist() == [0, 10, 15, 16]
    assert u["cpu"].tolist() == [3 / 4, 1.0, 1 / 4, 0.0] and u["mem"].tolist() == [6 / 8, 2 / 8, 1 / 8, 0.0]


def test_task_fifo_on_servers_with_placement_partial_launches():
    # Two servers (2 cpu, 4 mem) and (4, 4). User 0 may only use server 0. Job 0 (user 0): 3 tasks of
    # (1, 1) for 5 s: 2 fit on server 0 at t=0, the third waits for them and runs 5..10.
    cl = Cluster([[2, 4], [4, 4]])
    wl = Workload(submit=[0], run_time=[5], tasks=[3], resources=[[1, 1]], user=[0])
    r = simulate(wl, cl, policy=TaskFIFO(), placement=[[True, False]])
    assert r.launches[["tasks", "server", "start", "end"]].values.tolist() == [[2, 0, 0, 5], [1, 0, 5, 10]]
    assert r.jobs["start"].tolist() == [0] and r.jobs["end"].tolist() == [10]
    # a job that fits no server its placement allows is rejected, not left waiting forever
    wl2 = Workload(submit=[0], run_time=[5], tasks=[1], resources=[[3, 1]], user=[0])
    r2 = simulate(wl2, cl, policy=TaskFIFO(), placement=[[True, False]])
    assert r2.rejected["reason"].tolist() == ["fits no server its placement allows"]


class Slotted(TaskFIFO):
    """Starts tasks only at multiples of `slot`; asks for a wake-up at the next boundary."""

    name = "slotted"
    slot = 10.0

    def schedule(self, now):
        if now % self.slot:
            return []
        return super().schedule(now)

    def next_wakeup(self, now):
        return (now // self.slot + 1) * self.slot if self.q else None


def test_slotted_policy_uses_reschedule_points():
    # Arrival at t=3 in a 10-s slot: nothing starts until the boundary t=10, which no job event
    # marks: only the wake-up makes the engine call schedule then.
    wl = Workload(submit=[3, 12], run_time=[4, 4], resources=[[1.0], [1.0]])
    r = simulate(wl, [1.0], policy=Slotted())
    assert r.jobs["start"].tolist() == [10, 20]


def test_same_workload_same_schedule():
    wl = fa.workloads.lublin(300, nodes=64, rng=5)
    a = simulate(wl, 64, policy="wfp3+easy")
    b = simulate(wl, 64, policy="wfp3+easy")
    assert a.jobs.equals(b.jobs)


# ---- launches as arrays (fairalloc.sim.launches.Launches) -------------------------------------
class BatchFIFO(TaskFIFO):
    """TaskFIFO returning its launches as arrays, tagged 100, 101, ...; records every end it is told of."""

    name = "batch-fifo"

    def reset(self, sim):
        super().reset(sim)
        self.ends = []
        self.tag = 100

    def schedule(self, now):
        out = super().schedule(now)
        if not out:
            return []
        j, k, s = zip(*out)
        b = Launches.of(j, k, s, range(self.tag, self.tag + len(out)))
        self.tag += len(out)
        return b

    def on_finish_many(self, launches, now, killed):
        self.ends.append((now, launches.tag.tolist(), killed.tolist(), self.sim.state.usage().tolist()))


def test_launch_arrays_hand_computed():
    # test_task_fifo_on_a_pool_hand_computed's workload: the same schedule and log through arrays;
    # the ends come back with their tags: A's launch (tag 100) at 10, B's (101) at 15, C's (102) at 16,
    # each with its resources already free (nothing else runs at those instants before the decision)
    wl = Workload(submit=[0, 0, 1], run_time=[10, 5, 1], tasks=[3, 2, 1],
                  resources=[[1, 2], [2, 1], [1, 1]], resource_names=["cpu", "mem"], user=[0, 1, 2])
    pol = BatchFIFO()
    r = simulate(wl, [4.0, 8.0], policy=pol)
    assert r.jobs["start"].tolist() == [0, 10, 15] and r.jobs["end"].tolist() == [10, 15, 16]
    assert r.launches[["job", "tasks", "server", "start"]].values.tolist() == [
        [0, 3, 0, 0], [1, 2, 0, 10], [2, 1, 0, 15]]
    assert pol.ends == [(10.0, [100], [False], [0.0, 0.0]), (15.0, [101], [False], [0.0, 0.0]),
                        (16.0, [102], [False], [0.0, 0.0])]


def test_launch_arrays_end_together_in_launch_order_and_in_their_place():
    # Pool of 10 cpu, tasks of 1 cpu. t=0: a tuple launch of job 0 (ends 10). t=5: one batch of jobs
    # 1 (run 5), 2 (run 1), 3 (run 5): 2 ends alone at 6; 1 and 3 end at 10, after job 0's launch
    # (an earlier launch), together and in their launch order 1, 3.
    class Mixed(Policy):
        def reset(self, sim):
            super().reset(sim)
            self.seen = []

        def schedule(self, now):
            if now == 0:
                return [(0, 1, 0)]
            if now == 5:
                return Launches.of([1, 2, 3], [1, 1, 1], [0, 0, 0], [11, 12, 13])
            return []

        def on_finish(self, job, tasks, server, now, killed):
            self.seen.append((now, "one", job))

        def on_finish_many(self, launches, now, killed):
            self.seen.append((now, "many", launches.job.tolist(), launches.tag.tolist()))

    wl = Workload(submit=[0, 5, 5, 5], run_time=[10, 5, 1, 5], tasks=[1, 1, 1, 1], resources=[[1.0]] * 4)
    pol = Mixed()
    r = simulate(wl, [10.0], policy=pol)
    assert pol.seen == [(6.0, "many", [2], [12]), (10.0, "one", 0), (10.0, "many", [1, 3], [11, 13])]
    assert r.jobs["end"].tolist() == [10, 10, 6, 10]
    assert r.launches["job"].tolist() == [0, 1, 2, 3]


def test_launch_arrays_refused_like_one_launch_at_a_time():
    # 4 cpu; job 0 has 3 tasks of 1 cpu, job 1 one task of 2 cpu. The batch (0, 2), (1, 1), (0, 1):
    # the second launch needs 2 cpu with 2 free: fits; the third needs 1 with 0 free: allocate's refusal
    wl = Workload(submit=[0, 0], run_time=[1, 1], tasks=[3, 1], resources=[[1.0], [2.0]], user=[0, 1])

    class Over(Policy):
        def __init__(self, batch):
            self.batch = batch

        def schedule(self, now):
            return self.batch if now == 0 else []

    with pytest.raises(SimulationError, match=r"1 task\(s\) of job 0 need \[1.0\] on server 0; free \[0.0\]"):
        simulate(wl, [4.0], policy=Over(Launches.of([0, 1, 0], [2, 1, 1], [0, 0, 0])))
    # more tasks than wait: job 0 has 3, the batch asks 2 + 2 (the second launch is refused, as a tuple)
    with pytest.raises(SimulationError, match=r"launched 2 task\(s\) of job 0 with 1 waiting"):
        simulate(wl, [9.0], policy=Over(Launches.of([0, 0], [2, 2], [0, 0])))
    with pytest.raises(SimulationError, match=r"launched 0 task\(s\) of job 1 with 1 waiting"):
        simulate(wl, [9.0], policy=Over(Launches.of([0, 1], [1, 0], [0, 0])))
    # placement: user 1 may not use server 1
    cl = Cluster([[4.0], [4.0]])
    with pytest.raises(SimulationError, match="job 1 .user 1. may not run on server 1"):
        simulate(wl, cl, placement=[[True, True], [True, False]],
                 policy=Over(Launches.of([0, 1], [1, 1], [1, 1])))


def test_allocate_many_leaves_the_bits_of_one_launch_at_a_time():
    # the documented claim (fairalloc.sim.launches): the same subtractions in the same order; demands
    # that are not binary fractions (0.1, 0.7, 1/3) make a different order or a summed count differ
    rng = np.random.default_rng(7)
    cl = Cluster(rng.uniform(2, 4, size=(3, 2)))
    n = 40
    wl = Workload(submit=np.zeros(n), run_time=np.ones(n), tasks=np.full(n, 3),
                  resources=rng.choice([0.1, 0.7, 1 / 3, 0.3], size=(n, 2)), user=np.arange(n) % 4)
    one, many = Servers(cl), Servers(cl)
    one.bind(wl)
    many.bind(wl)
    job = rng.integers(0, n, 60)
    k = rng.integers(1, 3, 60)
    srv = rng.integers(0, 3, 60)
    take = [a for a in range(60) if one.fits(int(job[a]), int(k[a]), int(srv[a]))
            and (one.allocate(int(job[a]), int(k[a]), int(srv[a])) or True)]
    assert 10 < len(take) < 60
    many.allocate_many(Launches.of(job[take], k[take], srv[take]))
    assert many.free.tobytes() == one.free.tobytes()
    for a in take[::-1]:
        one.release(int(job[a]), int(k[a]), int(srv[a]))
    many.release_many(Launches.of(job[take][::-1], k[take][::-1], srv[take][::-1]))
    assert many.free.tobytes() == one.free.tobytes()
