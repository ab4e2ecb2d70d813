"""EASY backfilling (``fairalloc.sim.policies.easy``) against a plain EASY written here.

``reference_easy`` below is the obviously correct, quadratic version of the rule in the module
docstring of :mod:`fairalloc.sim.policies.easy`: at every instant it sorts the waiting jobs, starts
them in order, finds the head's shadow time by trying every candidate instant and counts every
running job expected to end by then. The event engine (policy objects) and the EASY kernel must
give its start times and reservations exactly, with ties, with and without walltime enforcement,
for FCFS and for a priority order (SJF). ``OldEasy`` is a copy of the engine's EASY before the
fix of issue 15 item 1 (its shadow scan stopped at the first job that made the head fit): on
inputs where no two running jobs can be expected to end at the same instant, the fix changes
nothing, and the test checks that too.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import fairalloc as fa
from fairalloc.sim import FCFS, SJF, Policy
from fairalloc.sim.kernels import rigid_run as easy_run
from fairalloc.sim.policies.easy import EasyCore
from fairalloc.sim import simulate
from fairalloc.workloads import Workload


# ---- the plain reference -----------------------------------------------------------------------
def reference_easy(wl, cap, *, enforce=False, order="fcfs"):
    """Start times (NaN: rejected) and reservations of ORDER + EASY, written as plainly as we can."""
    n = len(wl)
    submit = wl.submit.tolist()
    run = wl.run_time.tolist()
    req = wl.requested_time.tolist()
    procs = wl.processors.tolist()
    est = [run[j] if math.isnan(req[j]) else req[j] for j in range(n)]
    dur = [req[j] if enforce and not math.isnan(req[j]) and run[j] > req[j] else run[j]
           for j in range(n)]
    ok = [1 <= procs[j] <= cap and not math.isnan(run[j]) for j in range(n)]
    arrivals = sorted((submit[j], j) for j in range(n) if ok[j])   # by submit time, then row
    rank = {j: k for k, (_, j) in enumerate(arrivals)}
    start = [math.nan] * n
    reservations = {}
    running = {}        # job -> (expected end, actual end)
    waiting = []
    free = cap
    a = 0
    while a < len(arrivals) or running:
        times = [end for _, end in running.values()]
        if a < len(arrivals):
            times.append(arrivals[a][0])
        now = min(times)
        for j in [j for j, (_, end) in running.items() if end == now]:     # ends first
            free += procs[j]
            del running[j]
        while a < len(arrivals) and arrivals[a][0] == now:
            waiting.append(arrivals[a][1])
            a += 1
        if order == "fcfs":
            queue = sorted(waiting, key=lambda j: rank[j])
        else:                                                                # SJF
            queue = sorted(waiting, key=lambda j: (est[j], rank[j]))

        def begin(j):
            nonlocal free
            free -= procs[j]
            start[j] = now
            running[j] = (now + est[j], now + dur[j])
            waiting.remove(j)

        k = 0
        while k < len(queue) and procs[queue[k]] <= free:                    # strict order
            begin(queue[k])
            k += 1
        if k == len(queue) or free == 0:
            continue
        head = queue[k]
        need = procs[head]
        # shadow: the first candidate instant at which the head fits; extra: what it leaves
        candidates = sorted({now} | {max(e, now) for e, _ in running.values()})
        shadow, extra = math.inf, None
        for t in candidates:
            avail = free + sum(procs[j] for j, (e, _) in running.items() if max(e, now) <= t)
            if avail >= need:
                shadow, extra = t, avail - need
                break
        reservations.setdefault(head, shadow)
        for j in queue[k + 1:]:
            if procs[j] <= free and (now + est[j] <= shadow or procs[j] <= extra):
                if not now + est[j] <= shadow:
                    extra -= procs[j]
                begin(j)
    return np.array(start), reservations


# ---- a copy of the engine's FCFS + EASY before the fix (issue 15 item 1) -------------------------
class OldEasy(Policy):
    """The engine's FCFS + EASY as it was: shadow scan stopped at the first job that fits."""

    name = "old-easy"

    def reset(self, sim):
        super().reset(sim)
        wl = sim.workload
        self.procs = wl.processors.tolist()
        self.estimate = np.where(np.isnan(wl.requested_time), wl.run_time,
                                 wl.requested_time).tolist()
        self.queue = []
        self.reservations = {}

    def on_submit(self, job, now):
        self.queue.append(job)

    def schedule(self, now):
        free = self.sim.state.free
        started = []
        pos = 0
        for j in self.queue:
            if self.procs[j] > free:
                break
            free -= self.procs[j]
            started.append(j)
            pos += 1
        if pos < len(self.queue) and free > 0:
            started += self._easy(now, self.queue, pos, free, started)
        gone = set(started)
        self.queue = [j for j in self.queue if j not in gone]
        return [(j, 1, 0) for j in started]

    def _easy(self, now, order, pos, free, just_started):
        procs, est = self.procs, self.estimate
        head = order[pos]
        need = procs[head]
        ends = [(max(rec[4], now), rec[0]) for rec in self.sim.running.values()]
        ends += [(now + est[j], j) for j in just_started]
        ends.sort()
        avail = free
        shadow = math.inf
        for t_end, j in ends:
            avail += procs[j]
            if avail >= need:
                shadow = t_end
                break
        extra = avail - need
        self.reservations.setdefault(head, shadow)
        out = []
        for j in order[pos + 1:]:
            p = procs[j]
            if p > free:
                continue
            if now + est[j] <= shadow:
                free -= p
                out.append(j)
            elif p <= extra:
                free -= p
                extra -= p
                out.append(j)
            if free == 0:
                break
        return out


def kernel(wl, cap, *, enforce=False, scan):
    """``rigid_run`` (the compiled loop with EASY) on the admissible jobs in arrival order (as ``simulate`` calls it)."""
    run, req, procs = wl.run_time, wl.requested_time, wl.processors
    ok = (procs >= 1) & (procs <= cap) & ~np.isnan(run)
    est = np.where(np.isnan(req), run, req)
    dur = np.where(enforce & ~np.isnan(req) & (run > req), req, run)
    idx = np.flatnonzero(ok)
    order = idx[np.argsort(wl.submit[idx], kind="stable")]
    s, r = easy_run(wl.submit[order], procs[order], dur[order], est[order], cap, scan=scan)
    start = np.full(len(wl), np.nan)
    start[order] = s
    return start, {int(order[k]): float(r[k]) for k in np.flatnonzero(~np.isnan(r))}


def check_all(wl, cap, *, enforce=False):
    """Engine (policy object), kernel and the reference agree exactly; returns the start times.

    The kernel runs three times: as ``simulate`` calls it, with every pass using the index of
    waiting jobs (``scan=0``) and with none using it (every pass scans the queue).
    """
    want, want_res = reference_easy(wl, cap, enforce=enforce)
    for scan in (0, 10**9):
        start, res = kernel(wl, cap, enforce=enforce, scan=scan)
        np.testing.assert_array_equal(start, want)
        assert res == want_res
    pol = FCFS(backfill=True)
    a = simulate(wl, cap, policy=pol, engine="events", enforce_walltime=enforce)
    np.testing.assert_array_equal(a.jobs["start"].to_numpy(), want)
    assert pol.reservations == want_res
    pol = FCFS(backfill=True)
    b = simulate(wl, cap, policy=pol, engine="kernel", enforce_walltime=enforce)
    np.testing.assert_array_equal(b.jobs["start"].to_numpy(), want)
    assert pol.reservations == want_res
    pol = SJF(backfill=True)
    c = simulate(wl, cap, policy=pol, enforce_walltime=enforce)
    want_sjf, want_sjf_res = reference_easy(wl, cap, enforce=enforce, order="sjf")
    np.testing.assert_array_equal(c.jobs["start"].to_numpy(), want_sjf)
    assert pol.reservations == want_sjf_res
    return want


def wl_of(submit, run, procs, req=None):
    return Workload(submit=submit, run_time=run, requested_time=run if req is None else req,
                    processors=procs)


# ---- hand-made ties --------------------------------------------------------------------------------
def test_jobs_tied_at_the_shadow_all_count_as_extra():
    # 4 procs. At 0: A (1p, 10 s), B (1p, 10 s), C (1p, 100 s) start: 1 free.
    # t=1: H (2p, 5 s) is blocked. Expected ends: A 10, B 10, C 100. 1 + A's 1 = 2 >= 2: shadow 10;
    # B also ends at 10, so the processors free at 10 are 1 + 1 + 1 = 3 and extra = 3 - 2 = 1.
    # J (1p, 50 s) arrives at 1 behind H: 1 + 50 > 10, but 1 <= extra: backfilled at 1 (H still
    # gets A's and B's processors at 10). The old scan stopped at A (extra 0): J waited until 10,
    # when A and B end (1 + 2 = 3 free: H takes 2, J the third).
    wl = wl_of([0, 0, 0, 1, 1], [10, 10, 100, 5, 50], [1, 1, 1, 2, 1])
    assert check_all(wl, 4).tolist() == [0, 0, 0, 10, 1]
    old = OldEasy()
    assert simulate(wl, 4, policy=old).jobs["start"].tolist() == [0, 0, 0, 10, 10]
    assert old.reservations == {3: 10.0}


def test_tie_at_the_shadow_with_walltime_enforced():
    # The same with A and B running past their 10 s request (20 s) and killed at 10: identical
    # schedule with enforcement. Without it, A and B still run at 10: H waits for 20 with J
    # (started at 1 on the extra processor) still running: C (100), J (51) -> H at 20.
    wl = wl_of([0, 0, 0, 1, 1], [20, 20, 100, 5, 50], [1, 1, 1, 2, 1],
               req=[10, 10, 100, 5, 50])
    assert check_all(wl, 4, enforce=True).tolist() == [0, 0, 0, 10, 1]
    assert check_all(wl, 4).tolist() == [0, 0, 0, 20, 1]


@pytest.mark.parametrize("swap", [False, True])
def test_late_jobs_all_count_at_now_in_any_row_order(swap):
    # 5 procs, at 0: A (1p) and B (2p) request 5 s but run 20 s; C (1p) runs 30 s: 1 free.
    # t=1: D (2p, 10 s) blocked: A and B both expected at 5: shadow 5, extra 1 + 1 + 2 - 2 = 2;
    # E (1p, 3 s): 1 + 3 <= 5 -> backfilled at 1, ends 4 (1 free again).
    # t=6: F (1p, 100 s) arrives; A and B are past their request: both count as ending now (6):
    # 1 + 1 + 2 = 4 >= 2, shadow 6, extra 2 -> F starts at 6 on a processor D will not need,
    # whatever the rows of A and B (the old scan added them in row order and stopped at the first
    # that made D fit: with A first, extra 0 and F waited).
    rows = [1, 0] if swap else [0, 1]
    submit = [0, 0, 0, 1, 1, 6]
    run = [20, 20, 30, 10, 3, 100]
    req = [5, 5, 30, 10, 3, 100]
    procs = [1, 2, 1, 2, 1, 1]
    perm = rows + [2, 3, 4, 5]
    wl = wl_of([submit[k] for k in perm], [run[k] for k in perm], [procs[k] for k in perm],
               req=[req[k] for k in perm])
    start = dict(zip(perm, check_all(wl, 5).tolist()))
    assert start[4] == 1 and start[5] == 6
    # t=20: A and B end: 0 + 1 + 2 = 3 free >= 2 -> D starts at 20
    assert start[3] == 20


def test_core_step_by_step():
    # EasyCore as the engine drives it: 4 procs; J0 (3p, 10 s) starts at 0; J1 (3p) blocked at 2,
    # shadow 10, extra 4 - 3 = 1 -> J2 (1p, 20 s) backfills on it (hand computation).
    core = EasyCore([3, 3, 1], [10.0, 5.0, 20.0], 4, 3)
    core.push(0)
    assert core.step(0.0, 4) == ([0], 1)
    core.push(1)
    core.push(2)
    assert core.step(2.0, 1) == ([2], 0)
    assert core.reservations == {1: 10.0}
    core.finished(0)
    assert core.step(10.0, 3) == ([1], 0)


# ---- hypothesis: small workloads full of ties ----------------------------------------------------
CAP = 8


@st.composite
def tied_workloads(draw, max_jobs=25):
    """Times from a few small integers: equal submits, ends and requests are common."""
    n = draw(st.integers(0, max_jobs))
    gaps = draw(st.lists(st.sampled_from([0, 0, 0, 1, 2, 5]), min_size=n, max_size=n))
    submit = np.cumsum(gaps).astype(float)
    run = draw(st.lists(st.sampled_from([0, 2, 5, 10, 10, 20]), min_size=n, max_size=n))
    req = draw(st.lists(st.one_of(st.sampled_from([5, 10, 10, 20, 30]), st.just(float("nan"))),
                        min_size=n, max_size=n))
    procs = draw(st.lists(st.sampled_from([1, 1, 2, 3, 4, CAP // 2, CAP]), min_size=n, max_size=n))
    perm = np.asarray(draw(st.permutations(range(n))), dtype=int)   # rows in any order
    return Workload(submit=submit[perm], run_time=np.asarray(run, float)[perm],
                    requested_time=np.asarray(req, float)[perm], processors=np.asarray(procs)[perm])


@given(wl=tied_workloads(), enforce=st.booleans())
def test_engine_and_kernel_equal_the_plain_reference(wl, enforce):
    check_all(wl, CAP, enforce=enforce)


@st.composite
def untied_workloads(draw, max_jobs=25):
    """Continuous times: no two running jobs are expected to end at the same instant, and none
    runs past its request (so none is 'expected to end now' with another)."""
    n = draw(st.integers(1, max_jobs))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    submit = np.cumsum(rng.exponential(3.0, n))
    run = rng.uniform(0.5, 20.0, n)
    req = run * rng.uniform(1.0, 3.0, n)
    procs = rng.integers(1, CAP + 1, n)
    return Workload(submit=submit, run_time=run, requested_time=req, processors=procs)


@given(wl=untied_workloads())
def test_without_ties_the_fix_changes_nothing(wl):
    old = OldEasy()
    a = simulate(wl, CAP, policy=old)
    new = FCFS(backfill=True)
    b = simulate(wl, CAP, policy=new, engine="events")
    np.testing.assert_array_equal(a.jobs["start"].to_numpy(), b.jobs["start"].to_numpy())
    assert old.reservations == new.reservations
    np.testing.assert_array_equal(simulate(wl, CAP, policy="easy").jobs["start"].to_numpy(),
                                  b.jobs["start"].to_numpy())


# ---- a Lublin workload, ties from whole-second and whole-minute times ------------------------------
@pytest.mark.parametrize("enforce", [False, True])
def test_lublin_with_inexact_requests_equals_the_reference(enforce):
    wl = fa.workloads.lublin(600, nodes=32, rng=3, estimate=2.0)
    wl = wl.replace(submit=np.floor(wl.submit * 0.3))
    rng = np.random.default_rng(3)
    wl = wl.replace(requested_time=np.ceil(wl.run_time * rng.uniform(0.3, 2.0, len(wl)) / 60) * 60)
    start = check_all(wl, 32, enforce=enforce)
    assert (start > wl.submit).mean() > 0.2        # a queue forms: EASY has work to do


@pytest.mark.parametrize("load", [1.0, 3.0])
def test_lublin_overload_equals_the_reference(load):
    # offered load raised by compressing submit times: at 3 the queue grows to hundreds of jobs
    wl = fa.workloads.lublin(500, nodes=16, rng=5)
    wl = wl.replace(submit=np.floor(wl.submit / load))
    want = check_all(wl, 16)
    waiting = [((wl.submit <= x) & (want > x)).sum() for x in wl.submit]
    assert max(waiting) > (100 if load > 1 else 0)


def test_plain_python_path_gives_the_compiled_schedule():
    # the same source run by the interpreter (what runs without numba): NUMBA_DISABLE_JIT=1
    import json
    import os
    import subprocess
    import sys

    code = ("import json, numpy as np, fairalloc as fa\n"
            "from fairalloc.sim.kernels import rigid_run as easy_run\n"
            "wl = fa.workloads.lublin(300, nodes=16, rng=7)\n"
            "s, r = easy_run(np.floor(wl.submit / 3), np.array(wl.processors), np.array(wl.run_time),"
            " np.array(wl.run_time), 16,"
            " scan=0)\n"
            "print(json.dumps([s.tolist(), [None if x != x else x for x in r.tolist()]]))\n")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout
    start, resv = json.loads(out)
    wl = fa.workloads.lublin(300, nodes=16, rng=7)
    # writable copies, as simulate passes them: the workload's arrays are read-only, and numba types a
    # read-only array apart, so passing them compiled the whole rigid-job loop a second time for this test
    # alone (most of its time); what it specifies is the interpreter against the compiler
    s, r = easy_run(np.floor(wl.submit / 3), np.array(wl.processors), np.array(wl.run_time), np.array(wl.run_time),
                    16, scan=0)
    assert start == s.tolist()
    assert resv == [None if x != x else x for x in r.tolist()]
