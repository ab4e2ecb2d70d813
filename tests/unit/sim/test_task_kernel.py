"""The task schedulers on the simulator's compiled loop (:mod:`fairalloc.sim.kernels`) and on the event engine.

Two loops drive the one decision core (:mod:`fairalloc.scheduling.core`): ``fa.simulate(..., policy=name)``
runs the compiled loop, ``engine="events"`` (or a policy object) the readable event engine through
:class:`~fairalloc.sim.TaskPolicy` and the scheduler's facade. Their schedules are compared exactly
(every launch, every job's start and end, the counts): a bug in either loop's order of events, in
the wake-ups or in the facade's bookkeeping shows. Whether the schedules follow the rule is the
reference validators' part (``tests/reference``, run on every simulation of the tests); expected
values here come from the DRF paper (Section 4) and hand computations in the tests.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.errors import InvalidInstanceError
from fairalloc.scheduling import DRFScheduler, SDRFScheduler
from fairalloc.sim import ResourcePool, TaskPolicy
from fairalloc.workloads import Workload


def _tied(wl):
    """Whole seconds and a coarse demand grid: many equal priorities (benchmarks/check_schedules.py)."""
    res = np.asarray(wl.resources, dtype=float)
    grid = res.max(axis=0) / 8.0
    res = np.maximum(np.round(res / grid), 1.0) * grid
    return wl.replace(submit=np.floor(wl.submit), run_time=np.maximum(np.ceil(wl.run_time), 1.0),
                      resources=res)


def _same(a, b):
    for key in ("job", "tasks", "server", "start", "end", "killed"):
        np.testing.assert_array_equal(a.launches[key].to_numpy(), b.launches[key].to_numpy(), err_msg=key)
    for key in ("start", "end"):
        np.testing.assert_array_equal(a.jobs[key].to_numpy(), b.jobs[key].to_numpy(), err_msg=key)
    assert a.rejected.equals(b.rejected)
    sa = {k: v for k, v in a.stats.items() if k != "engine"}
    sb = {k: v for k, v in b.stats.items() if k != "engine"}
    assert sa == sb


_POLICIES = [("drf", {}), ("sdrf", {"delta": 0.9}), ("sdrf", {"delta": 1 - 1e-6}),
             ("sdrf", {"delta": 1 - 1e-4, "priority": "printed"}), ("tsf", {}), ("cdrf", {})]


@pytest.mark.parametrize("tied", [False, True])
@pytest.mark.parametrize("ties", ["wait", "index"])
@pytest.mark.parametrize("blocking", ["stop", "skip"])
@pytest.mark.parametrize("policy", _POLICIES, ids=lambda p: p[0] + "".join(f"-{v}" for v in p[1].values()))
def test_compiled_loop_and_event_engine_agree_on_a_pool(policy, blocking, ties, tied):
    wl = fa.workloads.google_like(200, 1500, rng=1)
    if tied:
        wl = _tied(wl)
    pool = ResourcePool.from_workload(wl, 0.5)
    name, kw = policy
    fast = fa.simulate(wl, pool, policy=name, ties=ties, blocking=blocking, **kw)
    events = fa.simulate(wl, pool, policy=name, ties=ties, blocking=blocking, engine="events", **kw)
    assert fast.stats["engine"] == "kernel" and "engine" not in events.stats
    assert fast.jobs["end"].notna().all()                 # every admitted job runs to its end
    _same(fast, events)


@pytest.mark.parametrize("server", ["first_fit", "best_fit", "tvtsf"])
@pytest.mark.parametrize("structure", ["live_tree", "resort", "heap"])
@pytest.mark.parametrize("policy", _POLICIES[:2] + _POLICIES[4:], ids=lambda p: p[0])
def test_compiled_loop_and_event_engine_agree_on_servers(policy, structure, server):
    wl = fa.workloads.google_like(60, 1500, rng=2)
    tot = ResourcePool.from_workload(wl, 0.5).totals
    rng = np.random.default_rng(0)
    caps = np.vstack([tot * f for f in rng.dirichlet(np.ones(4))]) + wl.resources.max(axis=0)
    placement = rng.random((60, 4)) < 0.6
    placement[np.arange(60), rng.integers(0, 4, 60)] = True     # every user has a server
    name, kw = policy
    cl = fa.Cluster(caps)
    fast = fa.simulate(wl, cl, placement=placement, policy=name, server=server, structure=structure, **kw)
    events = fa.simulate(wl, cl, placement=placement, policy=name, server=server, structure=structure,
                         engine="events", **kw)
    assert fast.stats["engine"] == "kernel"
    assert len(set(fast.launches["server"].tolist())) > 1           # several servers used
    _same(fast, events)


def test_swaps_and_wakeups_happen_and_agree():
    """A contended 60-user run at delta = 0.9 (tau = 9.5 s): the tree swaps and the policy is woken
    (both counts > 0, so the comparison covers the event order and the wake-ups)."""
    wl = fa.workloads.google_like(60, 5000, rng=0)
    pool = ResourcePool.from_workload(wl, 0.5)
    for kw in ({}, {"wake_on": "any"}, {"wakeups": False}, {"structure": "resort"}):
        fast = fa.simulate(wl, pool, policy="sdrf", delta=0.9, **kw)
        events = fa.simulate(wl, pool, policy=TaskPolicy("sdrf", delta=0.9, **kw))
        assert fast.stats["engine"] == "kernel"
        if "wakeups" not in kw:
            assert fast.stats["swaps"] > 100 or kw.get("structure") == "resort"
            assert fast.stats["wakeups"] > 10
        _same(fast, events)


def test_weights_commitments_walltime_and_rejected_rows():
    wl = fa.workloads.google_like(40, 2000, rng=5)
    pool = ResourcePool.from_workload(wl, 0.5)
    n = len(wl)
    rng = np.random.default_rng(0)
    req = np.where(rng.random(n) < 0.3, wl.run_time * 0.5, np.nan)   # 30% killed at half their run
    res = np.asarray(wl.resources, dtype=float).copy()
    res[3] = pool.totals * 2.0                                       # fits nowhere: rejected
    wl = wl.replace(requested_time=req, resources=res)
    w = rng.uniform(0.5, 3.0, 40)
    c = rng.uniform(0.0, 0.2, (40, wl.resources.shape[1]))
    for name, kw in (("drf", {}), ("sdrf", {"commitments": c, "delta": 0.99}), ("tsf", {}), ("cdrf", {})):
        fast = fa.simulate(wl, pool, policy=name, weights=w, enforce_walltime=True, **kw)
        events = fa.simulate(wl, pool, policy=TaskPolicy(name, weights=w, **kw), enforce_walltime=True)
        assert fast.stats["engine"] == "kernel"
        assert 3 in fast.rejected["row"].tolist() and fast.launches["killed"].any()
        _same(fast, events)


def test_drf_paper_example():
    # DRF paper, Section 4: 9 CPUs, 18 GB; A's tasks <1 CPU, 4 GB>, B's <3 CPUs, 1 GB>. Progressive
    # filling by dominant share: A (4/18), B (3/9), A (8/18), B (6/9), A (12/18 = 2/3); A and B are
    # then both at 2/3, A first (same wait, lower index), and A's fourth task needs 1 CPU of the 0
    # left (9 - 3 - 6): the round stops on A (hand computation).
    wl = Workload(submit=[0.0, 0.0], run_time=[10.0, 10.0], tasks=[10, 10], user=[0, 1],
                  resources=[[1.0, 4.0], [3.0, 1.0]])
    r = fa.simulate(wl, [9.0, 18.0], policy="drf", engine="kernel")
    first = r.launches[r.launches["start"] == 0.0]
    assert first["job"].tolist() == [0, 1, 0, 1, 0]
    assert r.stats["decisions"] == 20 and r.stats["engine"] == "kernel"
    s = DRFScheduler([[9, 18]], n_users=2)
    s.submit(0, [1, 4], 10)
    s.submit(1, [3, 1], 10)
    assert [st.user for st in s.schedule()] == [0, 1, 0, 1, 0]
    assert s.blocked_by == 0 and s.usage.tolist() == [[3.0, 12.0], [6.0, 2.0]]
    assert s.free.tolist() == [[0.0, 4.0]]


def test_hand_example_constant_commitments():
    # 10 units of each resource, unit tasks; user 0 committed 0.3 of resource 1 (held constant, no
    # tau). Levels (dominant share + dominant commitment): user 0 0.3 + 0.1 k0, user 1 0.1 k1. Hand
    # computation: user 1 goes first while strictly lower (0, 0.1, 0.2), at 0.3 = 0.3 the tie (both
    # waiting since 0) goes to the lower index, then they alternate: 1, 1, 1, 0, 1, 0, 1, 0, 1, 0;
    # the pool is then full (4 + 6 = 10 tasks) and user 1 (level 0.6 < 0.7) is blocked.
    s = SDRFScheduler([[10, 10]], n_users=2, commitments=[[0, 0.3], [0, 0]])
    s.submit(0, [1, 1], 10)
    s.submit(1, [1, 1], 10)
    assert [x.user for x in s.schedule()] == [1, 1, 1, 0, 1, 0, 1, 0, 1, 0]
    assert s.blocked_by == 1 and s.free.tolist() == [[0.0, 0.0]]


def test_hand_example_decay():
    # Eq. 6 with nothing running (excess 0): c(t) = c(0) e^{-t/tau}; tau = 1, t = 1: 0.3 / e
    s = SDRFScheduler([[10, 10]], n_users=2, commitments=[[0, 0.3], [0, 0]], tau=1.0)
    s.advance(1.0)
    assert s.commitments()[0, 1] == pytest.approx(0.3 / math.e, rel=1e-15)
    # user 0 (level 0.3/e = 0.110) and user 1 (0): user 1 first until its level passes 0.110
    s.submit(0, [1, 1], 1)
    s.submit(1, [1, 1], 2)
    assert [x.user for x in s.schedule()] == [1, 1, 0]       # 0 < 0.110, 0.1 < 0.110, then 0.2 > 0.110


def test_compiled_loop_only_where_it_applies():
    wl = fa.workloads.google_like(20, 300, rng=1)
    pool = ResourcePool.from_workload(wl, 0.5)
    for name in ("drf", "sdrf", "tsf", "cdrf"):
        assert fa.simulate(wl, pool, policy=name, engine="kernel").stats["engine"] == "kernel"
    with pytest.raises(InvalidInstanceError, match="engine='kernel'.*built-in server rule"):
        fa.simulate(wl, pool, policy="drf", server=lambda free, d, ok: int(np.flatnonzero(ok)[0]),
                    engine="kernel")
    with pytest.raises(InvalidInstanceError, match="engine='kernel'"):
        fa.simulate(wl, pool, policy="drf", progress=True, engine="kernel")
    # a policy object is run by the event engine (its scheduler can be inspected afterwards)
    pol = TaskPolicy("drf")
    r = fa.simulate(wl, pool, policy=pol)
    assert "engine" not in r.stats and pol.scheduler.decisions == r.stats["decisions"]


def test_bad_task_is_refused_naming_it():
    s = DRFScheduler([[4.0, 4.0]], n_users=2)
    s.submit(0, [1.0, 1.0], 2)
    started = s.schedule(max_starts=1)
    assert [st.task for st in started] == [0]
    for bad in (1, 7, -1):                                # pending, unknown, negative
        with pytest.raises(InvalidInstanceError, match=rf"task={bad} is not running"):
            s.finish(bad)
    s.finish(0)
    with pytest.raises(InvalidInstanceError, match=r"task=0 is not running"):
        s.finish_all([0])                                 # already ended
    with pytest.raises(InvalidInstanceError, match=r"t=-1.0 must be finite and >= the current time"):
        s.advance(-1.0)


# ---- compiled against plain Python (NUMBA_DISABLE_JIT=1) on the same inputs ------------------------
_CHILD = """
import hashlib, json, numpy as np, fairalloc as fa
from fairalloc.sim import ResourcePool
out = []
wl = fa.workloads.google_like(40, 600, rng=3)
for name, kw in (("drf", {}), ("sdrf", {"delta": 0.9}), ("sdrf", {"delta": 0.99, "priority": "printed",
                 "blocking": "skip", "structure": "heap"}), ("tsf", {"structure": "resort"}), ("cdrf", {})):
    r = fa.simulate(wl, ResourcePool.from_workload(wl, 0.5), policy=name, **kw)
    h = hashlib.sha256()
    for key in ("job", "tasks", "start", "end"):
        h.update(np.ascontiguousarray(r.launches[key].to_numpy()).tobytes())
    out.append([h.hexdigest(), r.stats["engine"], r.stats["decisions"], r.stats["swaps"], r.stats["wakeups"]])
lub = fa.workloads.lublin(300, nodes=64, rng=1)
for name in ("fcfs", "easy"):
    out.append(fa.simulate(lub, 64, policy=name).jobs["start"].tolist())
print(json.dumps(out))
"""


def test_plain_python_gives_the_compiled_results():
    """Under NUMBA_DISABLE_JIT=1 the compiled functions run as plain Python (the same source)."""
    out = {}
    for jit in ("0", "1"):
        env = {**os.environ, "NUMBA_DISABLE_JIT": jit}
        p = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, env=env,
                           check=True)
        out[jit] = json.loads(p.stdout.strip().splitlines()[-1])
    assert out["0"] == out["1"]
    assert all(row[1] == "kernel" for row in out["0"][:5])
    assert out["0"][1][3] > 0                                  # the tree swapped
