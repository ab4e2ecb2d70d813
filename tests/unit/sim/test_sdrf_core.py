"""Issue 11: SDRF runs on one compiled core (fairalloc.scheduling.sdrf_core) over the live tree's
arrays (fairalloc.kinetic.tree_core).

Three ways to the same schedule, compared exactly (every launch, every job's start and end, the
decision, swap and wake-up counts):

* ``fa.simulate(..., policy="sdrf")`` on a pool: the compiled whole-run loop (``sdrf_run``);
* ``engine="events"``: the event engine driving :class:`SDRFScheduler`, whose methods call the same
  compiled functions one at a time;
* the generic Python path (``TaskScheduler.schedule`` with :class:`~fairalloc.kinetic.LiveTree`):
  an :class:`SDRFScheduler` whose core is switched off (``_core = None`` right after construction).

And the compiled functions against themselves as plain Python (``NUMBA_DISABLE_JIT=1``, the readable
reference), in a subprocess on the same inputs. Expected values that are not such comparisons are hand
computations given in the tests.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fairalloc as fa
from fairalloc.errors import InvalidInstanceError
from fairalloc.scheduling import SDRFScheduler
from fairalloc.scheduling.sdrf_core import SDRFCore
from fairalloc.sim import ResourcePool, TaskPolicy
from test_pool_core import _drive as _drive_api  # the same comparisons as DRF's core (tests/unit/sim)
from test_pool_core import _same, _tied


class _GenericSDRF(TaskPolicy):
    """SDRF through the generic Python path with the live tree (the core switched off)."""

    def reset(self, sim):
        super().reset(sim)
        self.scheduler._core = None


_CONFIGS = [{"delta": 0.9}, {"delta": 1 - 1e-6}, {"delta": 1 - 1e-4, "priority": "printed"}]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("tied", [False, True])
@pytest.mark.parametrize("ties", ["wait", "index"])
@pytest.mark.parametrize("blocking", ["stop", "skip"])
@pytest.mark.parametrize("kw", _CONFIGS, ids=["d0.9", "d1-1e-6", "printed"])
def test_kernel_events_and_generic_path_agree(seed, tied, ties, blocking, kw):
    wl = fa.workloads.google_like(627, 2000, rng=seed)
    if tied:
        wl = _tied(wl)
    pool = ResourcePool.from_workload(wl, 0.5)
    fast = fa.simulate(wl, pool, policy="sdrf", ties=ties, blocking=blocking, **kw)
    events = fa.simulate(wl, pool, policy="sdrf", ties=ties, blocking=blocking, engine="events", **kw)
    generic = fa.simulate(wl, pool, policy=_GenericSDRF("sdrf", ties=ties, blocking=blocking, **kw))
    assert fast.stats["engine"] == "kernel" and "engine" not in events.stats
    _same(fast, events)
    _same(fast, generic)


def test_swaps_and_wakeups_happen_and_agree():
    """A contended 60-user run at delta = 0.9 (tau = 9.5 s): the tree swaps and the policy is woken
    (both counts > 0, so the comparison covers the event order and the wake-ups)."""
    wl = fa.workloads.google_like(60, 5000, rng=0)
    pool = ResourcePool.from_workload(wl, 0.5)
    fast = fa.simulate(wl, pool, policy="sdrf", delta=0.9)
    generic = fa.simulate(wl, pool, policy=_GenericSDRF("sdrf", delta=0.9))
    assert fast.stats["swaps"] > 100 and fast.stats["wakeups"] > 10
    _same(fast, generic)


def test_weights_commitments_walltime_and_servers():
    wl = fa.workloads.google_like(40, 2000, rng=5)
    pool = ResourcePool.from_workload(wl, 0.5)
    n = len(wl)
    rng = np.random.default_rng(0)
    req = np.where(rng.random(n) < 0.3, wl.run_time * 0.5, np.nan)   # 30% killed at half their run
    wl = wl.replace(requested_time=req)
    w = rng.uniform(0.5, 3.0, 40)
    c = rng.uniform(0.0, 0.2, (40, wl.resources.shape[1]))
    kw = dict(weights=w, commitments=c, delta=0.99)
    fast = fa.simulate(wl, pool, policy="sdrf", enforce_walltime=True, **kw)
    generic = fa.simulate(wl, pool, policy=_GenericSDRF("sdrf", **kw), enforce_walltime=True)
    assert fast.stats["engine"] == "kernel" and fast.launches["killed"].any()
    _same(fast, generic)
    caps = np.vstack([pool.totals * f for f in (0.3, 0.3, 0.4)]) + wl.resources.max(axis=0)
    cl = fa.Cluster(caps)
    fast = fa.simulate(wl, cl, policy="sdrf", delta=0.99)
    generic = fa.simulate(wl, cl, policy=_GenericSDRF("sdrf", delta=0.99))
    assert fast.stats["engine"] == "kernel" and len(set(fast.launches["server"].tolist())) > 1
    _same(fast, generic)


def test_hand_example_constant_commitments():
    # 10 units of each resource, unit tasks; user 0 committed 0.3 of resource 1 (held constant, no
    # tau). Levels (dominant share + dominant commitment): user 0 0.3 + 0.1 k0, user 1 0.1 k1. Hand
    # computation: user 1 goes first while strictly lower (0, 0.1, 0.2), at 0.3 = 0.3 the tie (both
    # waiting since 0) goes to the lower index, then they alternate: 1, 1, 1, 0, 1, 0, 1, 0, 1, 0;
    # the pool is then full (4 + 6 = 10 tasks) and user 1 (level 0.6 < 0.7) is blocked.
    s = SDRFScheduler([[10, 10]], n_users=2, commitments=[[0, 0.3], [0, 0]])
    assert isinstance(s._core, SDRFCore)
    s.submit(0, [1, 1], 10)
    s.submit(1, [1, 1], 10)
    assert [x.user for x in s.schedule()] == [1, 1, 1, 0, 1, 0, 1, 0, 1, 0]
    assert s.blocked_by == 1 and s.free.tolist() == [[0.0, 0.0]]


def test_hand_example_decay():
    # Eq. 6 with nothing running (excess 0): c(t) = c(0) e^{-t/tau}; tau = 1, t = 1: 0.3 / e
    s = SDRFScheduler([[10, 10]], n_users=2, commitments=[[0, 0.3], [0, 0]], tau=1.0)
    assert isinstance(s._core, SDRFCore)
    s.advance(1.0)
    assert s.commitments()[0, 1] == pytest.approx(0.3 / math.e, rel=1e-15)
    # user 0 (level 0.3/e = 0.110) and user 1 (0): user 1 first until its level passes 0.110
    s.submit(0, [1, 1], 1)
    s.submit(1, [1, 1], 2)
    assert [x.user for x in s.schedule()] == [1, 1, 0]       # 0 < 0.110, 0.1 < 0.110, then 0.2 > 0.110


def test_kernel_only_where_it_applies():
    wl = fa.workloads.google_like(20, 300, rng=1)
    pool = ResourcePool.from_workload(wl, 0.5)
    assert fa.simulate(wl, pool, policy="sdrf", delta=0.9, engine="kernel").stats["engine"] == "kernel"
    with pytest.raises(InvalidInstanceError, match="engine='kernel'"):
        fa.simulate(wl, pool, policy="sdrf", delta=0.9, structure="resort", engine="kernel")
    with pytest.raises(InvalidInstanceError, match="engine='kernel'"):
        fa.simulate(wl, pool, policy="sdrf", delta=0.9, wake_on="any", engine="kernel")
    pol = TaskPolicy("sdrf", delta=0.9)
    r = fa.simulate(wl, pool, policy=pol)
    assert "engine" not in r.stats and isinstance(pol.scheduler._core, SDRFCore)
    cl = fa.Cluster(np.vstack([pool.totals / 2, pool.totals / 2]))
    pol = TaskPolicy("sdrf", delta=0.9, server="best_fit")
    assert "engine" not in fa.simulate(wl, cl, policy=pol).stats and pol.scheduler._core is None


# ---- the scheduler API, driven by random operations: core against the generic path ------------------
def _drive(s, ops):
    """test_pool_core's driver (everything observable after each step), then the commitments."""
    return _drive_api(s, ops) + [s.commitments().tolist(), s.next_change]


_op = st.one_of(
    st.tuples(st.just("submit"), st.integers(0, 4),
              st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0, 1.5, 1 / 3]), min_size=2, max_size=2)
              .filter(lambda d: any(x > 0 for x in d)), st.integers(1, 4)),
    st.tuples(st.just("finish"), st.sampled_from([0.1, 0.5, 1.0])),
    st.tuples(st.just("advance"), st.sampled_from([0.0, 0.25, 1.0, 3.0])),
    st.tuples(st.just("schedule"), st.sampled_from([None, None, 1, 3])),
)


@settings(max_examples=60)
@given(ops=st.lists(_op, min_size=1, max_size=40), ties=st.sampled_from(["wait", "index"]),
       blocking=st.sampled_from(["stop", "skip"]), tau=st.sampled_from([None, 0.5, 2.0]),
       priority=st.sampled_from(["level", "printed"]),
       commitments=st.sampled_from([None, [[0.0, 0.3], [0.1, 0.0], [0.0, 0.0], [0.2, 0.2], [0.0, 0.05]]]),
       cluster=st.sampled_from([[[4.0, 3.0]], [[2.0, 1.5], [1.5, 2.0], [2.0, 2.0]]]))
def test_scheduler_api_core_equals_generic_path(ops, ties, blocking, tau, priority, commitments, cluster):
    kw = dict(n_users=5, ties=ties, blocking=blocking, tau=tau, priority=priority, commitments=commitments)
    core = SDRFScheduler(cluster, **kw)
    generic = SDRFScheduler(cluster, **kw)
    generic._core = None
    assert isinstance(core._core, SDRFCore)
    assert _drive(core, ops) == _drive(generic, ops)


# ---- compiled against plain Python (NUMBA_DISABLE_JIT=1) on the same inputs ------------------------
_CHILD = """
import hashlib, json, numpy as np, fairalloc as fa
from fairalloc.scheduling import SDRFScheduler
from fairalloc.sim import ResourcePool
out = []
for seed in (3, 4):
    for tied in (False, True):
        wl = fa.workloads.google_like(60, 1500, rng=seed)
        if tied:
            res = np.asarray(wl.resources, dtype=float)
            grid = res.max(axis=0) / 8.0
            wl = wl.replace(submit=np.floor(wl.submit), resources=np.maximum(np.round(res / grid), 1.0) * grid)
        for kw in ({"delta": 0.9}, {"delta": 1 - 1e-4, "priority": "printed", "blocking": "skip"}):
            r = fa.simulate(wl, ResourcePool.from_workload(wl, 0.5), policy="sdrf", **kw)
            h = hashlib.sha256()
            for key in ("job", "tasks", "start", "end"):
                h.update(np.ascontiguousarray(r.launches[key].to_numpy()).tobytes())
            out.append([h.hexdigest(), r.stats["engine"], r.stats["decisions"], r.stats["events"],
                        r.stats["swaps"], r.stats["wakeups"]])
rng = np.random.default_rng(7)                          # the scheduler API, random operations
s = SDRFScheduler([[4.0, 3.0]], n_users=6, tau=1.5)
running = []
for step in range(400):
    x = rng.random()
    if x < 0.4:
        s.submit(int(rng.integers(6)), rng.choice([0.25, 0.5, 1.0, 1 / 3], size=2), int(rng.integers(1, 4)))
    elif x < 0.7 and running:
        k = int(rng.integers(1, len(running) + 1))
        s.finish_all(running[:k]); running = running[k:]
    else:
        s.advance(s.now + float(rng.random()))
        running += [st.task for st in s.schedule()]
out.append([s.usage.tolist(), s.free.tolist(), s.order(), s.decisions, s.swaps, s.priorities().tolist()])
print(json.dumps(out))
"""


def test_plain_python_reference_gives_the_compiled_results():
    """Under NUMBA_DISABLE_JIT=1 sdrf_core and tree_core run as plain Python (the readable reference)."""
    out = {}
    for jit in ("0", "1"):
        env = {**os.environ, "NUMBA_DISABLE_JIT": jit}
        p = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, env=env,
                           check=True)
        out[jit] = json.loads(p.stdout.strip().splitlines()[-1])
    assert out["0"] == out["1"]
    assert all(row[1] == "kernel" for row in out["0"][:-1])
    assert any(row[4] > 0 for row in out["0"][:-1])           # the tree swapped
