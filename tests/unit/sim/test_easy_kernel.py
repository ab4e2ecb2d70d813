"""The EASY kernel (``fairalloc.sim.kernels.rigid_run``) against the event engine's EASY.

Both call the one EASY decision core (:mod:`fairalloc.sim.policies.easy`, checked against a plain
reference EASY in ``tests/unit/scheduling/test_easy.py``); what differs is the event loop around
it (the engine's generic loop and policy calls, the kernel's compiled loop) and how ``simulate``
prepares the jobs (rejections, walltimes, unsorted rows). The kernel must reproduce the engine's
start times, kills and reservations exactly. The small cases also check hand-computed start
times, written out next to each.
"""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import fairalloc as fa
from fairalloc.errors import InvalidInstanceError
from fairalloc.sim import FCFS
from fairalloc.sim import simulate
from fairalloc.workloads import Workload


def both(wl, cap, *, enforce=False):
    """Run events and kernel with policy objects; check identity; return the kernel's result."""
    pa, pb = FCFS(backfill=True), FCFS(backfill=True)
    a = simulate(wl, cap, policy=pa, engine="events", enforce_walltime=enforce)
    b = simulate(wl, cap, policy=pb, engine="kernel", enforce_walltime=enforce)
    assert b.stats["engine"] == "kernel" and a.stats.get("engine") != "kernel"
    np.testing.assert_array_equal(a.jobs["start"].to_numpy(), b.jobs["start"].to_numpy())
    np.testing.assert_array_equal(a.jobs["end"].to_numpy(), b.jobs["end"].to_numpy())
    np.testing.assert_array_equal(a.jobs["killed"].to_numpy(), b.jobs["killed"].to_numpy())
    assert pa.reservations == pb.reservations
    # by name, engine="auto" takes the kernel and gives the same schedule
    c = simulate(wl, cap, policy="easy", enforce_walltime=enforce)
    assert c.stats["engine"] == "kernel"
    np.testing.assert_array_equal(c.jobs["start"].to_numpy(), b.jobs["start"].to_numpy())
    return b


def wl_of(submit, run, procs, req=None):
    return Workload(submit=submit, run_time=run, requested_time=run if req is None else req,
                    processors=procs)


# ---- hand-made cases -----------------------------------------------------------------------------
def test_same_submit_time_strict_then_backfill():
    # 4 procs, all submitted at 0. t=0: J0 (2p) and J1 (2p) start, 0 free: no EASY pass.
    # t=5: J1 ends, 2 free; J2 (4p) blocked: shadow = J0's end 10 (2 + 2 = 4), extra 0.
    # J3 (1p, 4 s): 5 + 4 = 9 <= 10 -> backfilled at 5.  t=10: J2 starts.
    r = both(wl_of([0, 0, 0, 0], [10, 5, 3, 4], [2, 2, 4, 1]), 4)
    assert r.jobs["start"].tolist() == [0, 0, 10, 5]


@pytest.mark.parametrize("run2, start2", [(8, 1), (9, 1), (10, 15)])
def test_backfill_candidate_ending_exactly_at_the_shadow(run2, start2):
    # 4 procs. J0: 3p 0..10. t=1: J1 (4p) blocked, shadow 10, extra 0. J2 (1p) backfills iff
    # 1 + run2 <= 10 (the comparison is inclusive): run2 = 8, 9 (ends exactly at 10) -> start 1;
    # run2 = 10 (would end at 11) -> it waits, J1 runs 10..15, J2 starts at 15.
    r = both(wl_of([0, 1, 1], [10, 5, run2], [3, 4, 1]), 4)
    assert r.jobs["start"].tolist() == [0, 10, start2]


def test_job_ends_when_others_arrive():
    # 4 procs. J0 (4p) 0..10. At t=10 the completion is handled before the arrivals: J1 (2p, 5 s)
    # starts at 10, J2 (4p) is blocked: shadow = J1's end 15 (2 + 2 = 4), extra 0. J3 (2p, 5 s):
    # 10 + 5 = 15 <= 15 -> backfilled at 10. t=15: J1 and J3 end, J2 starts; J4 (1p) arrives at 15
    # and waits behind J2 (no processor free): starts when J2 ends at 15 + 7 = 22.
    r = both(wl_of([0, 10, 10, 10, 15], [10, 5, 7, 5, 1], [4, 2, 4, 2, 1]), 4)
    assert r.jobs["start"].tolist() == [0, 10, 15, 10, 22]


def test_run_time_beyond_request_with_and_without_walltime():
    # 4 procs. J0: 3p, requests 10 s, runs 20 s. t=1: J1 (4p) blocked, shadow 10, extra 0.
    # t=12: J2 (1p, 3 s) arrives; J0 is past its request, so it counts as ending now: shadow 12,
    # extra 0, and 12 + 3 > 12 -> no backfill. Without enforcement J0 ends at 20: J1 20..25, J2 25.
    # With enforcement J0 is killed at 10: J1 10..15, J2 (arrived 12) starts at 15.
    wl = wl_of([0, 1, 12], [20, 5, 3], [3, 4, 1], req=[10, 5, 3])
    r = both(wl, 4)
    assert r.jobs["start"].tolist() == [0, 20, 25] and not r.jobs["killed"].any()
    r = both(wl, 4, enforce=True)
    assert r.jobs["start"].tolist() == [0, 10, 15]
    assert r.jobs["killed"].tolist() == [True, False, False]


def test_unknown_requested_time_uses_run_time_and_zero_run_time():
    # requested NaN -> reservations use the run time; a 0 s job ends the instant it starts.
    wl = Workload(submit=[0, 0, 1, 1, 2], run_time=[10, 0, 5, 9, 3],
                  requested_time=[np.nan, 0, 5, np.nan, np.nan], processors=[3, 1, 4, 1, 1])
    both(wl, 4)
    both(wl, 4, enforce=True)


def test_unsorted_rows_and_rejected_jobs():
    # rows out of submit order; a job wider than the machine and one without run time are rejected
    wl = Workload(submit=[5, 0, 3, 0, 1, 2], run_time=[4, 10, 2, np.nan, 6, 3],
                  requested_time=[4, 10, 2, 1, 6, 3], processors=[2, 3, 9, 1, 4, 1])
    r = both(wl, 4)
    assert len(r.rejected) == 2


# ---- hypothesis: random small rigid workloads ----------------------------------------------------
CAP = 8


@st.composite
def rigid_workloads(draw, max_jobs=30):
    n = draw(st.integers(0, max_jobs))
    gaps = draw(st.lists(st.sampled_from([0, 0, 1, 2, 5, 10]), min_size=n, max_size=n))
    submit = np.cumsum(gaps).astype(float)
    run = draw(st.lists(st.integers(0, 30), min_size=n, max_size=n))
    req = draw(st.lists(st.one_of(st.integers(0, 40), st.just(float("nan"))), min_size=n,
                        max_size=n))
    procs = draw(st.lists(st.integers(1, CAP), min_size=n, max_size=n))
    perm = draw(st.permutations(range(n)))          # rows need not be in submit order
    p = np.asarray(perm, dtype=int)
    return Workload(submit=submit[p], run_time=np.asarray(run, float)[p],
                    requested_time=np.asarray(req, float)[p], processors=np.asarray(procs)[p])


@given(wl=rigid_workloads(), enforce=st.booleans())
def test_kernel_equals_event_engine_on_random_workloads(wl, enforce):
    both(wl, CAP, enforce=enforce)


# ---- Lublin workloads ----------------------------------------------------------------------------
@pytest.mark.parametrize("seed, load, inexact", [(0, 1.0, False), (1, 0.3, True), (2, 0.15, True)])
@pytest.mark.parametrize("enforce", [False, True])
def test_kernel_equals_event_engine_on_lublin(seed, load, inexact, enforce):
    # `load` < 1 compresses submit times (longer queues, more backfilling); `inexact` requests
    # 0.3..2x the run time (whole seconds), so some jobs overrun their request (killed if enforced)
    wl = fa.workloads.lublin(2500, nodes=64, rng=seed, estimate=2.0)
    wl = wl.replace(submit=np.floor(wl.submit * load))
    if inexact:
        rng = np.random.default_rng(seed)
        wl = wl.replace(requested_time=np.ceil(wl.run_time * rng.uniform(0.3, 2.0, len(wl))))
    r = both(wl, 64, enforce=enforce)
    assert r.jobs["killed"].any() == (enforce and inexact)
    assert (r.jobs["start"] > r.jobs["submit"]).mean() > 0.1     # jobs do wait: EASY has work


# ---- options the kernel does not handle ----------------------------------------------------------
def test_kernel_refuses_what_it_does_not_support_and_auto_falls_back():
    wl = wl_of([0, 1, 2], [10, 5, 3], [3, 4, 1])
    with pytest.raises(InvalidInstanceError, match="progress"):
        simulate(wl, 4, policy="easy", engine="kernel", progress=True)
    r = simulate(wl, 4, policy="easy", progress=True)
    assert r.stats.get("engine") != "kernel" and r.jobs["start"].tolist() == [0, 10, 2]
    with pytest.raises(InvalidInstanceError, match="engine"):
        simulate(wl, 4, policy="sjf+easy", engine="kernel")
    assert simulate(wl, 4, policy="sjf+easy").stats.get("engine") != "kernel"
