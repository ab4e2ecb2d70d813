"""DRF / SDRF task filling (SDRF Algorithm 1): hand-computed cases, readings, incremental invariants."""

from __future__ import annotations

import numpy as np
import pytest

import fairalloc as fa
from fairalloc import commitments as fc
from fairalloc import shares
from fairalloc.scheduling import DRFScheduler, SDRFScheduler, drf_greedy, sdrf_greedy

STRUCTURES = ["live_tree", "resort"]


@pytest.mark.parametrize("structure", STRUCTURES)
def test_drf_paper_example(structure):
    # Ghodsi et al., NSDI 2011, Section 4: <9 CPU, 18 GB>; A: <1, 4>, B: <3, 1> -> A 3 tasks, B 2,
    # both at dominant share 2/3. By hand, ties to the lower index: A(0 vs 0) B(2/9 vs 0) A(2/9 vs 1/3)
    # B(4/9 vs 1/3) A(4/9 vs 2/3); then A (2/3 = 2/3) needs 1 CPU of the 0 left: stop.
    ti = fa.TaskInstance(fa.clusters.drf_example(), [[1, 4], [3, 1]], tasks=[100, 100])
    r = drf_greedy(ti, structure=structure)
    assert r.tasks.ravel().tolist() == [3, 2]
    assert r.details["order"].tolist() == [0, 1, 0, 1, 0]
    np.testing.assert_allclose(r.dominant_shares, [2 / 3, 2 / 3])
    assert r.allocation.tolist() == [[3, 12], [6, 2]]
    assert r.status == fa.Status.FEASIBLE and r.method == "greedy" and r.mechanism == "drf"
    assert r.stats["blocked_by"] == 0 and r.stats["decisions"] == 5
    assert sdrf_greedy(ti, structure=structure).tasks.ravel().tolist() == [3, 2]   # c = 0: SDRF is DRF


def _readings_instance():
    # Pool <10, 10>. User 0: tasks <2, 1>, commitments (0, 0.35); user 1: tasks <1, 1>, none.
    return fa.TaskInstance([[10, 10]], [[2, 1], [1, 1]], tasks=[10, 10], commitments=[[0, 0.35], [0, 0]])


@pytest.mark.parametrize("structure", STRUCTURES)
def test_sdrf_readings_pick_different_users(structure):
    # By hand, with k0, k1 tasks held:
    #   level   L0 = 0.2 k0 + 0.35,            L1 = 0.1 k1
    #   printed P0 = max(0.2 k0, 0.1 k0 + 0.35), P1 = 0.1 k1
    # level:   (0,0..3) -> 1 x4; (0,4) .35<.4 -> 0; (1,4) .55>.4 -> 1; (1,5) .55>.5 -> 1;
    #          (1,6) .55<.6 -> 0; (2,6) CPU 10 full, user 1 next (.6 < .75) does not fit: stop.
    #   printed: (0,0..3) -> 1 x4; (0,4) -> 0; (1,4) P0 = .45 > .4 -> 1; (1,5) P0 = .45 < .5 -> 0
    #          (the readings differ here); (2,5) P0 = .55 > .5 -> 1; (2,6) P0 = .55 < .6 -> 0: CPU 12 > 10, stop.
    ti = _readings_instance()
    lev = sdrf_greedy(ti, priority="level", structure=structure)
    pri = sdrf_greedy(ti, priority="printed", structure=structure)
    assert lev.details["order"].tolist() == [1, 1, 1, 1, 0, 1, 1, 0]
    assert pri.details["order"].tolist() == [1, 1, 1, 1, 0, 1, 0, 1]
    assert lev.stats["blocked_by"] == 1 and pri.stats["blocked_by"] == 0
    assert lev.tasks.ravel().tolist() == pri.tasks.ravel().tolist() == [2, 6]
    np.testing.assert_allclose(lev.levels, [0.4 + 0.35, 0.6])          # level reading: Eq. 5 levels
    np.testing.assert_allclose(pri.shares, [max(0.4, 0.2 + 0.35), 0.6])  # printed priorities at the end


def test_two_resource_filling_by_hand():
    # One server <4, 4>: user 0's tasks <3, 1>, user 1's <1, 1>. By hand (DRF): tie -> 0 (share 3/4);
    # user 1 (0 < 3/4) -> CPU 4 full; user 1 (1/4 < 3/4) does not fit: [1, 1] (stop or skip alike).
    ti = fa.TaskInstance([[4, 4]], [[3, 1], [1, 1]], tasks=[5, 5])
    assert drf_greedy(ti, blocking="stop").tasks.ravel().tolist() == [1, 1]
    assert drf_greedy(ti, blocking="skip").tasks.ravel().tolist() == [1, 1]
    # user 0 <0, 1> (memory only, 1/4 per task), user 1 <2, 1> (1/2 per task). By hand: tie -> 0 (1/4);
    # 1 (0 < 1/4; CPU 2, mem 2); 0 (1/4 < 1/2; mem 3); tie 2/4 -> 0 (mem 4, full); 1 (1/2 < 3/4) needs
    # memory: stop at [3, 1].
    ti = fa.TaskInstance([[4, 4]], [[0, 1], [2, 1]], tasks=[5, 5])
    r = drf_greedy(ti)
    assert r.tasks.ravel().tolist() == [3, 1] and r.stats["blocked_by"] == 1
    np.testing.assert_allclose(r.dominant_shares, [0.75, 0.5])


def test_skip_continues_past_a_blocked_user():
    # Servers <2, 2> and <4, 4> (totals <6, 6>); user 0 (tasks <2, 2>) may use only server 0, user 1
    # (<1, 1>) both. DRF by hand, first fit: tie -> user 0 on s0 (share 1/3, s0 full); user 1 (0) on
    # s0? no room -> s1 (1/6); user 1 (1/6 < 1/3) on s1 (2/6); tie 1/3 -> user 0: no room on s0.
    # stop: [1, 2]. skip: user 0 is set aside and user 1 fills s1 (4 tasks): [1, 4].
    ti = fa.TaskInstance([[2, 2], [4, 4]], [[2, 2], [1, 1]], tasks=[5, 5], placement=[[1, 0], [1, 1]])
    assert drf_greedy(ti, blocking="stop").tasks.tolist() == [[1, 0], [0, 2]]
    assert drf_greedy(ti, blocking="skip").tasks.tolist() == [[1, 0], [0, 4]]


def test_server_rules():
    # Servers <2, 8> and <8, 2>; one user with tasks <1, 1>, 2 tasks. first fit: both on server 0.
    # best fit: after one task, leftovers (normalised by totals <10, 10>) are (1+7)/10 on s0 and
    # (7+1)/10 on s1: tie, lowest index; then s0 <1, 7> leaves 0.6, s1 <8, 2> leaves 0.7 -> s0 again.
    ti = fa.TaskInstance([[2, 8], [8, 2]], [[1, 1]], tasks=[3])
    assert drf_greedy(ti, server="first_fit").tasks.tolist() == [[2, 1]]
    assert drf_greedy(ti, server="best_fit").tasks.tolist() == [[2, 1]]
    # a callable: always the last eligible server
    last = lambda free, demand, ok: int(np.flatnonzero(ok)[-1])
    assert drf_greedy(ti, server=last).tasks.tolist() == [[1, 2]]
    with pytest.raises(fa.InvalidInstanceError, match="server='worst'"):
        drf_greedy(ti, server="worst")


def test_continuous_commitments_match_eq3_step():
    # Two users, one resource; user 0 holds 0.75 from t=0 to t=1, user 1 holds 0.25. With delta = 0.5
    # and dt = 1, Eq. 6 over one unit equals one Eq. 3 step: c0 = (1 - 0.5) * (0.75 - 0.5) = 0.125,
    # c1 = 0 (0.25 is not above the fair share 1/2) (commitments docstring, by hand).
    s = SDRFScheduler([[1.0]], n_users=2, delta=0.5)
    s.submit(0, [0.75])
    s.submit(1, [0.25])
    assert [st.user for st in s.schedule()] == [0, 1]
    s.advance(1.0)
    np.testing.assert_allclose(s.commitments().ravel(), [0.125, 0.0])
    np.testing.assert_allclose(s.commitments(), fc.step(np.zeros((2, 1)), [[0.75], [0.25]], delta=0.5))
    s.finish(0)
    s.advance(2.0)
    # no excess any more: c decays by delta: 0.0625
    np.testing.assert_allclose(s.commitments().ravel(), [0.0625, 0.0])


def _random_run(structure, seed, priority="level", n_users=7, n_events=300, delta=0.9):
    """Drive an SDRF scheduler with a seeded random workload; return starts and checked invariants."""
    rng = np.random.default_rng(seed)
    cluster = fa.Cluster([[1.0, 1.0], [0.5, 1.0]])
    placement = rng.random((n_users, 2)) < 0.8
    placement[:, 0] |= ~placement.any(axis=1)
    s = SDRFScheduler(cluster, weights=rng.choice([1.0, 2.0], n_users), delta=delta, priority=priority,
                      placement=placement, structure=structure, blocking="skip",
                      commitments=rng.uniform(0, 0.3, (n_users, 2)))
    running, log, t, demand = [], [], 0.0, {}
    for _ in range(n_events):
        t += float(rng.exponential(0.7))
        s.advance(t)
        if running and rng.random() < 0.45:
            s.finish(running.pop(int(rng.integers(len(running)))))
        else:
            u = int(rng.integers(n_users))
            d = np.round(rng.uniform(0.02, 0.3, 2), 2)
            for task in s.submit(u, d, count=int(rng.integers(1, 4))):
                demand[task] = d
        started = s.schedule()
        running += [st.task for st in started]
        log += [(st.task, st.user, st.server, st.time) for st in started]
        yield s, log, {task: demand[task] for task in running}


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("priority", ["level", "printed"])
def test_live_tree_and_resort_schedule_identically(seed, priority):
    runs = [list(_random_run(st, seed, priority))[-1][1] for st in STRUCTURES]
    assert len(runs[0]) > 50
    assert runs[0] == runs[1]


@pytest.mark.parametrize("priority", ["level", "printed"])
def test_incremental_invariants(priority):
    """Capacity never exceeded, placement respected, commitments never negative, and the live tree's
    priorities equal the formulas of shares.py / commitments.py at every step."""
    swaps = 0
    for s, log, running in _random_run("live_tree", 7, priority):
        where = {task: (user, server) for task, user, server, _ in log}
        used = np.zeros_like(s.cluster.capacities)
        for task, d in running.items():
            user, server = where[task]
            assert s.placement[user, server]
            used[server] += d
        assert (used <= s.cluster.capacities + 1e-9).all()                 # capacity never exceeded
        np.testing.assert_allclose(s.cluster.capacities - s.free, used, atol=1e-9)
        assert (s.commitments() >= 0).all()
        pr = s.priorities()
        for u in s.order():
            assert s.queue_priority(u) == pytest.approx(pr[u], rel=1e-9, abs=1e-12)
        order = s.order()
        vals = [pr[u] for u in order]
        assert all(a <= b + 1e-9 for a, b in zip(vals, vals[1:]))
        swaps = s.swaps
    assert swaps > 0


def test_skip_leaves_nothing_that_fits():
    # After a skip round, no user with pending tasks has a head task that fits on an eligible server.
    rng = np.random.default_rng(3)
    for _ in range(20):
        n = 4
        ti = fa.TaskInstance([[6, 6], [4, 8]], rng.integers(1, 4, (n, 2)), tasks=rng.integers(1, 6, n),
                             placement=np.array([[1, 0], [0, 1], [1, 1], [1, 1]], dtype=bool))
        for fn in (drf_greedy, sdrf_greedy):
            r = fn(ti, blocking="skip")
            used = np.einsum("im,ik->mk", r.tasks, ti.task_demands)
            free = ti.cluster.capacities - used
            assert (free >= -1e-9).all()
            left = ti.tasks - r.tasks.sum(axis=1)
            for i in np.flatnonzero(left):
                fits = shares.tasks_that_fit(free, ti.task_demands[i]) >= 1
                assert not (fits & ti.placement[i]).any()


def test_bad_input():
    with pytest.raises(fa.InvalidInstanceError, match=r"delta=1\.0 must be in \(0, 1\)") as e:
        SDRFScheduler([[1, 1]], n_users=2, delta=1.0)
    assert e.value.argument == "delta" and e.value.value == 1.0
    with pytest.raises(fa.InvalidInstanceError, match=r"delta=0 must be in \(0, 1\)"):
        SDRFScheduler([[1, 1]], n_users=2, delta=0)
    with pytest.raises(fa.InvalidInstanceError, match="tau=-1.0"):
        SDRFScheduler([[1, 1]], n_users=2, tau=-1.0)
    with pytest.raises(fa.InvalidInstanceError, match="no eligible server"):
        DRFScheduler([[1, 1], [1, 1]], n_users=2, placement=[[1, 0], [0, 0]])
    s = DRFScheduler([[1, 1], [2, 1]], n_users=2, placement=[[1, 0], [1, 1]])
    with pytest.raises(fa.InvalidInstanceError, match=r"demand=\[1\.5, 1\.0\] of user 0 fits on none of its eligible servers \[0\]") as e:
        s.submit(0, [1.5, 1.0])
    assert e.value.argument == "demand" and e.value.index == (0,)
    s.submit(1, [1.5, 1.0])                                 # fits on server 1
    with pytest.raises(fa.InvalidInstanceError, match=r"demand\[1\]=-1\.0 must be >= 0"):
        s.submit(1, [1.0, -1.0])
    with pytest.raises(fa.InvalidInstanceError, match="all zero"):
        s.submit(1, [0.0, 0.0])
    with pytest.raises(fa.InvalidInstanceError, match="user=5"):
        s.submit(5, [0.1, 0.1])
    with pytest.raises(fa.InvalidInstanceError, match="count=0"):
        s.submit(1, [0.1, 0.1], count=0)
    with pytest.raises(fa.InvalidInstanceError, match="task=99 is not running"):
        s.finish(99)
    s.advance(3.0)
    with pytest.raises(fa.InvalidInstanceError, match=r"t=2\.0 must be finite and >= the current time"):
        s.advance(2.0)
    # a task bigger than every server, on a one-shot instance: the model refuses it, naming the value
    with pytest.raises(fa.InvalidInstanceError, match=r"task_demands\[0\]=\[3\.0, 1\.0\] fits on no server"):
        fa.TaskInstance([[2, 2]], [[3, 1]], tasks=[1])
    with pytest.raises(TypeError, match="TaskInstance"):
        drf_greedy(fa.Instance([[1, 1]]))
    with pytest.raises(fa.InvalidInstanceError, match="priority='eq5'"):
        sdrf_greedy(_readings_instance(), priority="eq5")
    with pytest.raises(fa.InvalidInstanceError, match="blocking='wait'"):
        sdrf_greedy(_readings_instance(), blocking="wait")


def test_one_shot_does_not_mutate_the_instance():
    ti = _readings_instance()
    before = ti.to_dict()
    sdrf_greedy(ti)
    assert ti.to_dict() == before


@pytest.mark.parametrize("structure", STRUCTURES)
def test_next_change_wakes_a_blocked_scheduler(structure):
    # One resource, capacity 1, three users (fair share 1/3), tau = 1. User 2 runs 0.5 and user 0 runs
    # 0.2 (below its fair share: no excess, level 0.2). User 0 then wants 0.6 (only 0.3 is free) and user 1,
    # with commitment 0.5 decaying as 0.5 e^{-t}, wants 0.3. Levels: user 0 at 0.2, user 1 at 0.5 e^{-t}:
    # user 0 is first and blocked (stop) until 0.5 e^{-t} = 0.2, t = ln 2.5 (by hand); then user 1 is
    # first and its task fits.
    s = SDRFScheduler([[1.0]], n_users=3, tau=1.0, commitments=[[0.0], [0.5], [0.0]], structure=structure)
    s.submit(2, [0.5])
    s.submit(0, [0.2])
    assert sorted(st.user for st in s.schedule()) == [0, 2]
    s.submit(0, [0.6])
    s.submit(1, [0.3])
    assert s.schedule() == [] and s.blocked_by == 0
    assert s.next_change == pytest.approx(np.log(2.5), rel=1e-12)
    s.advance(1.0)
    assert [st.user for st in s.schedule()] == [1]


@pytest.mark.parametrize("structure", STRUCTURES)
def test_commitments_at_a_finish_instant_hold_the_excess_held_before(structure):
    # Issue 16 (why SDRF at delta = 1-10^-1 is not DRF in the Fig. 4 reproduction), by hand. One pool of
    # 1 unit, 2 users (fair share 1/2), unit tasks. t = 0: user 0 submits 2 tasks and starts one (its
    # excess max(1 - 1/2, 0) = 1/2); t = 1: user 1 submits 1 task (blocked: the pool is full).
    # t = 10: user 0's task ends. DRF: both users at share 0, user 0's oldest pending task (t = 0) has
    # waited longer than user 1's (t = 1) -> user 0. SDRF with tau = 1 ms (delta ~ 0): Eq. 6 keeps the
    # commitment continuous in time, so at t = 10 it still equals the excess held on (0, 10]:
    # c = 1/2 + (0 - 1/2) e^{-10 / 0.001} = 1/2, user 0's level 0 + 1/2 > user 1's 0 -> user 1.
    # A millisecond later the commitment is gone (e^{-1} of it after 1 ms, 0 after a second).
    def run(s):
        s.submit(0, [1.0], 2)
        first = s.schedule()
        s.advance(1.0)
        s.submit(1, [1.0], 1)
        assert s.schedule() == [] and s.blocked_by == 1
        s.advance(10.0)
        s.finish(first[0].task)
        return [st.user for st in s.schedule()]

    assert run(DRFScheduler([[1.0]], n_users=2, structure=structure)) == [0]
    sd = SDRFScheduler([[1.0]], n_users=2, tau=1e-3, structure=structure)
    assert run(sd) == [1]
    np.testing.assert_allclose(sd.commitments()[0], [0.5])         # at t = 10, the instant of the finish
    sd.advance(11.0)
    assert sd.commitments()[0, 0] == 0.0                             # 0.5 e^{-1000}: underflows to 0
