"""Simulated task schedules checked by the reference validator (``tests/reference``), decision by decision.

The validator replays each schedule from the workload and the launches alone and recomputes every
key from :mod:`fairalloc.shares` / :mod:`fairalloc.commitments` (see its docstring for the rules it
checks): capacity, placement and the server rule, the lowest key, stop vs skip, FIFO within a user,
no task before submission. Workloads are small and seeded; demands are multiples of 1/4 on integer
capacities (dyadic), so keys are exact and the tie rule is checked too. The last tests corrupt a
correct schedule to show the validator fails on each kind of violation.
"""

from __future__ import annotations

import numpy as np
import pytest
from reference import ReferenceScheduler, ScheduleViolation, validate_task_schedule

import fairalloc as fa
from fairalloc.scheduling.keys import KEYS
from fairalloc.workloads import Workload


def _workload(seed, n_jobs=40, n_users=5, k=2, times="int"):
    rng = np.random.default_rng(seed)
    submit = np.sort(rng.integers(0, 30, n_jobs)).astype(float)
    if times != "int":
        submit = np.sort(rng.uniform(0, 30, n_jobs)).round(3)
    run = rng.integers(1, 8, n_jobs).astype(float) if times == "int" else rng.uniform(0.5, 8, n_jobs).round(3)
    res = rng.integers(0, 9, (n_jobs, k)) / 4.0
    res[res.sum(axis=1) == 0, 0] = 0.25
    return Workload(submit=submit, run_time=run, tasks=rng.integers(1, 6, n_jobs),
                    user=rng.integers(0, n_users, n_jobs), resources=res)


def _cluster(seed, m, k=2):
    rng = np.random.default_rng(100 + seed)
    return fa.Cluster(rng.integers(3, 9, (m, k)).astype(float))


def _placement(seed, n_users, m):
    rng = np.random.default_rng(200 + seed)
    p = rng.random((n_users, m)) < 0.6
    p[np.arange(n_users), rng.integers(0, m, n_users)] = True
    return p


CASES = [
    ("drf", {}), ("drf", {"blocking": "skip"}), ("drf", {"ties": "index"}),
    ("drf", {"weights": [1.0, 2.0, 0.5, 1.0, 4.0]}),
    ("sdrf", {"delta": 0.9}), ("sdrf", {"delta": 0.5, "priority": "printed"}),
    ("sdrf", {"delta": 0.99, "blocking": "skip"}), ("sdrf", {"delta": 0.9, "ties": "index"}),
    ("sdrf", {"delta": 0.9, "weights": [1.0, 2.0, 0.5, 1.0, 4.0],
              "commitments": [[0.25, 0.0], [0.0, 0.5], [0.0, 0.0], [0.125, 0.125], [0.0, 0.0]]}),
    ("sdrf", {"commitments": [[0.25, 0.0], [0.0, 0.5], [0.0, 0.0], [0.125, 0.125], [0.0, 0.0]]}),
    ("sdrf", {"delta": 0.9, "wakeups": False}),
    ("tsf", {}), ("tsf", {"blocking": "stop"}), ("tsf", {"weights": [1.0, 2.0, 0.5, 1.0, 4.0]}),
    ("cdrf", {}), ("cdrf", {"blocking": "stop", "ties": "index"}),
]
_VALIDATOR_KW = ("blocking", "weights", "commitments", "delta", "priority", "ties", "server")


def _check(wl, cluster, placement, name, opts, **sim):
    r = fa.simulate(wl, cluster, policy=name, placement=placement, **opts, **sim)
    kw = {key: v for key, v in opts.items() if key in _VALIDATOR_KW}
    n = validate_task_schedule(wl, cluster, r, mechanism=name, placement=placement, **kw)
    assert n == int(r.launches["tasks"].sum()) == int(wl.tasks.sum())
    return r


@pytest.mark.parametrize("engine", ["kernel", "events"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0] + "".join(f"-{k}" for k in c[1]))
def test_pool_schedules_follow_the_rule(case, engine):
    name, opts = case
    for seed in range(3):
        wl = _workload(seed, times="int" if seed < 2 else "float")
        _check(wl, _cluster(seed, 1), None, name, opts, engine=engine)


@pytest.mark.parametrize("server", ["first_fit", "best_fit", "tvtsf"])
@pytest.mark.parametrize("case", CASES[::2], ids=lambda c: c[0] + "".join(f"-{k}" for k in c[1]))
def test_server_schedules_follow_the_rule(case, server):
    name, opts = case
    for seed in range(2):
        wl = _workload(seed)
        _check(wl, _cluster(seed, 3), _placement(seed, 5, 3), name, {**opts, "server": server})


def test_google_like_schedules_follow_the_rule():
    """A workload of the benchmarks' kind (non-dyadic demands: keys to rounding, ties unchecked)."""
    wl = fa.workloads.google_like(30, 400, rng=2)
    pool = fa.sim.ResourcePool.from_workload(wl, 0.5)
    cluster = fa.Cluster(pool.cluster.capacities)
    for name, opts in [("drf", {}), ("sdrf", {"delta": 0.999}), ("sdrf", {"delta": 0.9, "priority": "printed"}),
                       ("tsf", {}), ("cdrf", {})]:
        r = fa.simulate(wl, pool, policy=name, **opts)
        kw = {key: v for key, v in opts.items() if key in _VALIDATOR_KW}
        assert validate_task_schedule(wl, cluster, r, mechanism=name, check_ties=False, **kw) == r.launches["tasks"].sum() > 200


def test_reference_scheduler_schedules_follow_the_rule():
    """A callable server rule runs the Python reference; its schedules follow the rule too."""
    wl = _workload(4)
    cluster = _cluster(4, 3)
    placement = _placement(4, 5, 3)

    def first_fit(free, d, ok):
        return int(np.flatnonzero(ok)[0])

    for name, opts in CASES[::3]:
        r = fa.simulate(wl, cluster, policy=name, placement=placement, server=first_fit, **opts)
        kw = {key: v for key, v in opts.items() if key in _VALIDATOR_KW}
        validate_task_schedule(wl, cluster, r, mechanism=name, placement=placement, **kw)


# --- the validator fails on each kind of violation ---------------------------------------------------------


def _swap_users(r, wl):
    """The launches with the jobs of two launches at one instant exchanged (two users served in the
    other order)."""
    lf = r.launches.copy()
    users = wl.user[lf["job"].to_numpy()]
    for t, part in lf.groupby("start"):
        idx = part.index.to_numpy()
        for a in range(len(idx)):
            for b in range(a + 1, len(idx)):
                ia, ib = idx[a], idx[b]
                if users[ia] != users[ib] and lf.at[ia, "server"] == lf.at[ib, "server"]:
                    row_a, row_b = lf.loc[ia].copy(), lf.loc[ib].copy()
                    lf.loc[ia], lf.loc[ib] = row_b, row_a
                    return lf
    raise AssertionError("no instant with two users")


class _Result:
    def __init__(self, r, launches):
        self.jobs, self.launches = r.jobs, launches


@pytest.mark.parametrize("name,opts", [("drf", {}), ("sdrf", {"delta": 0.9}), ("cdrf", {})])
def test_validator_rejects_another_order(name, opts):
    wl, cluster = _workload(1), _cluster(1, 1)
    r = fa.simulate(wl, cluster, policy=name, **opts)
    with pytest.raises(ScheduleViolation):
        validate_task_schedule(wl, cluster, _Result(r, _swap_users(r, wl)), mechanism=name,
                               **{k: v for k, v in opts.items() if k in _VALIDATOR_KW})


def test_validator_rejects_early_start_capacity_and_stop():
    wl, cluster = _workload(1), _cluster(1, 1)
    r = fa.simulate(wl, cluster, policy="drf")
    lf = r.launches
    late = lf.index[lf["start"] > wl.submit[lf["job"].to_numpy()]][0]
    early = lf.copy()
    early.loc[late, "start"] = wl.submit[lf.at[late, "job"]] - 0.5
    early.loc[late, "end"] = early.loc[late, "start"] + wl.run_time[lf.at[late, "job"]]
    early = early.sort_values("start", kind="stable")
    with pytest.raises(ScheduleViolation):
        validate_task_schedule(wl, cluster, _Result(r, early), mechanism="drf")
    # a schedule of another blocking rule: DRF with "skip" checked as "stop" and vice versa
    skip = fa.simulate(wl, cluster, policy="drf", blocking="skip")
    assert not skip.launches.equals(lf)
    with pytest.raises(ScheduleViolation):
        validate_task_schedule(wl, cluster, skip, mechanism="drf", blocking="stop")
    with pytest.raises(ScheduleViolation):
        validate_task_schedule(wl, cluster, r, mechanism="drf", blocking="skip")
    # a pool half the size: the same launches exceed capacity
    with pytest.raises(ScheduleViolation):
        validate_task_schedule(wl, fa.Cluster(cluster.capacities / 2), r, mechanism="drf")


def test_validator_rejects_other_keys_and_ties():
    wl, cluster = _workload(0), _cluster(0, 1)
    checked = {}
    for name in ("drf", "tsf", "cdrf"):
        r = fa.simulate(wl, cluster, policy=name)
        for other in ("drf", "tsf", "cdrf"):
            try:
                validate_task_schedule(wl, cluster, r, mechanism=other, blocking=KEYS[name].blocking)
                checked[name, other] = True
            except ScheduleViolation:
                checked[name, other] = False
    assert all(checked[n, n] for n in ("drf", "tsf", "cdrf"))
    assert not any(v for (a, b), v in checked.items() if a != b)
    r = fa.simulate(wl, cluster, policy="drf", ties="index")
    with pytest.raises(ScheduleViolation):
        validate_task_schedule(wl, cluster, r, mechanism="drf", ties="wait")


def test_reference_is_the_rule_on_the_drf_paper_example():
    """DRF paper, Section 4: A <1 CPU, 4 GB> and B <3, 1> on <9, 18> alternate A, B, A, B, A."""
    ref = ReferenceScheduler(np.array([[9.0, 18.0]]), np.array([9.0, 18.0]), np.ones((2, 1), bool), np.ones(2),
                             mechanism="drf", server="first_fit", blocking="stop", ties="wait")
    ref.submit(0, np.array([1.0, 4.0]), 10)
    ref.submit(1, np.array([3.0, 1.0]), 10)
    assert ref.schedule(None)[:, 0].tolist() == [0, 1, 0, 1, 0]


def test_lazy_heap_schedules_follow_the_rule_when_keys_barely_move():
    """SDRF with ``structure="heap"`` keeps keys as last computed (exact only for keys that never
    decrease); with delta = 1 - 1e-9 per time unit the commitments move by less than 1e-7 over the
    run, so its schedule follows the rule to that tolerance. Enough decisions for the heap's array to
    fill and be compacted."""
    wl = _workload(5, n_jobs=120)
    cluster = _cluster(5, 1)
    r = fa.simulate(wl, cluster, policy="sdrf", delta=1 - 1e-9, structure="heap")
    assert r.stats["decisions"] > 4 * 5 + 128
    validate_task_schedule(wl, cluster, r, mechanism="sdrf", delta=1 - 1e-9, atol=1e-6)


@pytest.mark.parametrize("case", [("drf", {}), ("tsf", {}), ("cdrf", {}), ("sdrf", {"delta": 0.9})],
                         ids=lambda c: c[0])
def test_resort_structure_schedules_follow_the_rule(case):
    """``structure="resort"``: every decision takes the minimum over all users (constant keys as one
    line each, SDRF's as its lines)."""
    name, opts = case
    for seed in range(2):
        wl = _workload(seed)
        _check(wl, _cluster(seed, 2), _placement(seed, 5, 2), name, {**opts, "structure": "resort"})


@pytest.mark.parametrize("priority", ["level", "printed"])
def test_three_resources_sdrf_schedules_follow_the_rule(priority):
    """Three resources: SDRF's key is a maximum of three lines (envelopes of several pieces)."""
    for seed, delta in ((0, 0.9), (1, 0.5), (2, 0.99)):
        wl = _workload(seed, k=3)
        _check(wl, _cluster(seed, 1, k=3), None, "sdrf", {"delta": delta, "priority": priority})
