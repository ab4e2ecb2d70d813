"""Simulator invariants on random rigid-job workloads (hypothesis)."""

import numpy as np
from hypothesis import given, strategies as st

from fairalloc.sim import BUC, FCFS, ema_update
from fairalloc.sim import simulate
from fairalloc.workloads import Workload

CAP = 8
POLICIES = ["fcfs", "easy", "sjf", "wfp3", "unicef", "f1", "f2", "buc", "wfp3+easy", "buc+easy",
            "f1+easy"]


@st.composite
def workloads(draw, max_jobs=25):
    n = draw(st.integers(0, max_jobs))
    submit = np.cumsum(draw(st.lists(st.integers(0, 20), min_size=n, max_size=n)))
    run = draw(st.lists(st.integers(0, 60), min_size=n, max_size=n))
    req = draw(st.lists(st.integers(1, 80), min_size=n, max_size=n))
    procs = draw(st.lists(st.integers(1, CAP), min_size=n, max_size=n))
    user = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    return Workload(submit=submit, run_time=run, requested_time=req, processors=procs, user=user)


def check_invariants(wl, r):
    j = r.jobs
    assert len(j) == len(wl) and j["finished"].all()               # every job starts and ends once
    assert (j["start"] >= j["submit"]).all()                        # never before submission
    dur = np.where(j["killed"], j["requested_time"], wl.run_time)
    assert np.allclose(j["end"] - j["start"], dur)
    busy = ((j["end"] - j["start"]) * j["processors"]).sum()        # work conserved
    assert np.isclose(busy, (dur * wl.processors).sum())
    u = r.utilization()
    assert (u["in_use"] <= CAP + 1e-9).all() and (u["in_use"] >= -1e-9).all()


@given(workloads(), st.sampled_from(POLICIES), st.booleans())
def test_invariants_every_policy(wl, policy, enforce):
    r = simulate(wl, CAP, policy=policy, enforce_walltime=enforce)
    check_invariants(wl, r)


@given(workloads(), st.booleans())
def test_fcfs_starts_in_submission_order_and_kernel_equals_events(wl, enforce):
    a = simulate(wl, CAP, policy="fcfs", engine="events", enforce_walltime=enforce)
    b = simulate(wl, CAP, policy="fcfs", engine="kernel", enforce_walltime=enforce)
    assert np.array_equal(a.jobs["start"], b.jobs["start"])
    order = np.lexsort((np.arange(len(wl)), wl.submit))
    assert np.all(np.diff(a.jobs["start"].to_numpy()[order]) >= 0)


@given(workloads())
def test_easy_never_delays_the_head_reservation(wl):
    # exact estimates and no overrun: requested time = run time (>= 1 s)
    wl = wl.replace(run_time=np.maximum(wl.run_time, 1), requested_time=np.maximum(wl.run_time, 1))
    pol = FCFS(backfill=True)
    r = simulate(wl, CAP, policy=pol)
    start = r.jobs["start"].to_numpy()
    for head, shadow in pol.reservations.items():
        assert start[head] <= shadow + 1e-9
    fc = simulate(wl, CAP, policy="fcfs").jobs["start"].to_numpy()
    # the first job to wait under FCFS never waits longer under EASY (it is the first head)
    waited = np.flatnonzero(fc > wl.submit)
    if waited.size:
        assert start[waited[0]] <= fc[waited[0]]


@given(workloads(), st.booleans())
def test_buc_equals_fcfs_when_all_users_are_equally_precise(wl, backfill):
    # every job: walltime 100 s, run time 60 s -> P = 0.6 for every job. Under the moving average
    # every S_u stays at 100 * 0.6 = 60 = its initial value; under the paper's rule (P >= 0.5 is
    # precise: S <- S + 0.1 P (100 - S)) a score starting at 100 stays at 100. Equal scores and
    # equal walltimes -> S_f = const + T_e = FCFS order (BUC Section 4: "influência nula").
    n = len(wl)
    wl = wl.replace(run_time=np.full(n, 60.0), requested_time=np.full(n, 100.0))
    b = simulate(wl, CAP, policy=FCFS(backfill=backfill))
    for pol in (BUC(backfill=backfill, update=ema_update(0.1)), BUC(backfill=backfill, initial_score=100.0)):
        a = simulate(wl, CAP, policy=pol)
        assert np.array_equal(a.jobs["start"], b.jobs["start"])
