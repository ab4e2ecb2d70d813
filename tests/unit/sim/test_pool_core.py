"""Issue 11: DRF on one pool runs on one compiled core (fairalloc.scheduling.pool_core).

Three ways to the same schedule, compared exactly (every launch, every job's start and end, the
counts):

* ``fa.simulate(..., policy="drf")`` on a pool: the compiled whole-run loop (``pool_run``);
* ``engine="events"``: the event engine driving :class:`DRFScheduler`, whose methods call the same
  compiled functions one at a time;
* the generic Python path that DRF ran on before (``TaskScheduler.schedule`` with the
  :class:`~fairalloc.kinetic.LiveTree`, SDRF's machinery with zero commitments): a
  :class:`DRFScheduler` whose core is switched off (``_core = None`` right after construction), or
  ``structure="resort"``.

And the compiled functions against themselves as plain Python (``NUMBA_DISABLE_JIT=1``, the readable
reference), in a subprocess on the same inputs. Expected values that are not such comparisons come from
the DRF paper, Section 4 (hand computation in the test).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import fairalloc as fa
from fairalloc.errors import InvalidInstanceError
from fairalloc.scheduling import DRFScheduler
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


class _GenericDRF(TaskPolicy):
    """DRF through the generic Python path with the live tree (the core switched off)."""

    def reset(self, sim):
        super().reset(sim)
        self.scheduler._core = None


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("tied", [False, True])
@pytest.mark.parametrize("ties", ["wait", "index"])
@pytest.mark.parametrize("blocking", ["stop", "skip"])
def test_kernel_events_and_generic_path_agree(seed, tied, ties, blocking):
    wl = fa.workloads.google_like(627, 2000, rng=seed)
    if tied:
        wl = _tied(wl)
    pool = ResourcePool.from_workload(wl, 0.5)
    fast = fa.simulate(wl, pool, policy="drf", ties=ties, blocking=blocking)
    events = fa.simulate(wl, pool, policy="drf", ties=ties, blocking=blocking, engine="events")
    generic = fa.simulate(wl, pool, policy=_GenericDRF("drf", ties=ties, blocking=blocking))
    assert fast.stats["engine"] == "kernel" and "engine" not in events.stats
    assert fast.jobs["end"].notna().all()                 # every admitted job runs to its end
    _same(fast, events)
    _same(fast, generic)


def test_weights_walltime_and_rejected_rows():
    wl = fa.workloads.google_like(40, 2000, rng=5)
    pool = ResourcePool.from_workload(wl, 0.5)
    n = len(wl)
    rng = np.random.default_rng(0)
    req = np.where(rng.random(n) < 0.3, wl.run_time * 0.5, np.nan)   # 30% killed at half their run
    res = np.asarray(wl.resources, dtype=float).copy()
    res[3] = pool.totals * 2.0                                       # fits nowhere: rejected
    wl = wl.replace(requested_time=req, resources=res)
    w = rng.uniform(0.5, 3.0, 40)
    fast = fa.simulate(wl, pool, policy="drf", weights=w, enforce_walltime=True)
    generic = fa.simulate(wl, pool, policy=_GenericDRF("drf", weights=w), enforce_walltime=True)
    assert fast.stats["engine"] == "kernel"
    assert 3 in fast.rejected["row"].tolist() and fast.launches["killed"].any()
    _same(fast, generic)


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


def test_kernel_only_where_it_applies():
    wl = fa.workloads.google_like(20, 300, rng=1)
    pool = ResourcePool.from_workload(wl, 0.5)
    with pytest.raises(InvalidInstanceError, match="engine='kernel'.*'drf' and 'sdrf' with the live tree"):
        fa.simulate(wl, pool, policy="tsf", engine="kernel")
    with pytest.raises(InvalidInstanceError, match="engine='kernel'"):
        fa.simulate(wl, pool, policy="drf", structure="resort", engine="kernel")
    # a policy object is run by the event engine (its scheduler can be inspected afterwards), and
    # its scheduler runs on the core
    pol = TaskPolicy("drf")
    r = fa.simulate(wl, pool, policy=pol)
    assert "engine" not in r.stats and pol.scheduler.decisions == r.stats["decisions"]
    assert pol.scheduler._core is not None
    # two servers: first fit runs on the core, best fit on the generic path
    cl = fa.Cluster(np.vstack([pool.totals / 2, pool.totals / 2]))
    assert fa.simulate(wl, cl, policy="drf").stats["engine"] == "kernel"
    pol = TaskPolicy("drf", server="best_fit")
    assert "engine" not in fa.simulate(wl, cl, policy=pol).stats and pol.scheduler._core is None
    with pytest.raises(InvalidInstanceError, match="engine='kernel'"):
        fa.simulate(wl, cl, policy="drf", server="best_fit", engine="kernel")


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("with_placement", [False, True])
@pytest.mark.parametrize("blocking", ["stop", "skip"])
def test_servers_first_fit_kernel_events_and_generic_path_agree(seed, with_placement, blocking):
    wl = fa.workloads.google_like(80, 2000, rng=seed)
    tot = ResourcePool.from_workload(wl, 0.5).totals
    rng = np.random.default_rng(seed)
    caps = np.vstack([tot * f for f in rng.dirichlet(np.ones(4))]) + wl.resources.max(axis=0)
    placement = None
    if with_placement:
        placement = rng.random((80, 4)) < 0.6
        placement[np.arange(80), rng.integers(0, 4, 80)] = True     # every user has a server
    cl = fa.Cluster(caps)
    fast = fa.simulate(wl, cl, placement=placement, policy="drf", blocking=blocking)
    events = fa.simulate(wl, cl, placement=placement, policy="drf", blocking=blocking, engine="events")
    generic = fa.simulate(wl, cl, placement=placement, policy=_GenericDRF("drf", blocking=blocking))
    assert fast.stats["engine"] == "kernel"
    assert len(set(fast.launches["server"].tolist())) > 1           # several servers used
    _same(fast, events)
    _same(fast, generic)


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


# ---- the scheduler API, driven by random operations: core against the generic path ------------------
def _drive(s, ops):
    """Apply ops to scheduler s; return everything observable after each step."""
    log = []
    running: list[int] = []
    t = 0.0
    for op in ops:
        kind = op[0]
        if kind == "submit":
            _, u, d, c = op
            log.append(list(s.submit(u, d, c)))
        elif kind == "finish" and running:
            _, frac = op
            k = max(1, int(len(running) * frac))
            ending, running[:] = running[:k], running[k:]
            s.finish_all(ending)
        elif kind == "advance":
            t += op[1]
            s.advance(t)
        elif kind == "schedule":
            starts = s.schedule(max_starts=op[1])
            running += [x.task for x in starts]
            log.append([tuple(x) for x in starts])
            log.append(s.blocked_by)
        log.append((s.usage.tolist(), s.free.tolist(), s.n_running.tolist(), s.n_pending.tolist(),
                    s.order(), s.decisions, s.swaps, s.next_min_change))
    log.append(s.priorities().tolist())
    return log


_op = st.one_of(
    st.tuples(st.just("submit"), st.integers(0, 4),
              st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0, 1.5, 1 / 3]), min_size=2, max_size=2)
              .filter(lambda d: any(x > 0 for x in d)), st.integers(1, 4)),
    st.tuples(st.just("finish"), st.sampled_from([0.1, 0.5, 1.0])),
    st.tuples(st.just("advance"), st.sampled_from([0.0, 0.5, 1.0])),
    st.tuples(st.just("schedule"), st.sampled_from([None, None, 1, 3])),
)


@settings(max_examples=40)
@example(ops=[("submit", 1, [1.0, 1.0], 1), ("advance", 1.0), ("submit", 0, [1.0, 1.0], 1),
              ("submit", 2, [0.5, 0.5], 1), ("schedule", 1), ("schedule", None)],
         ties="wait", blocking="stop", weights=None, cluster=[[4.0, 3.0]])  # shares 0: user 1 waited longer
@given(ops=st.lists(_op, min_size=1, max_size=40), ties=st.sampled_from(["wait", "index"]),
       blocking=st.sampled_from(["stop", "skip"]),
       weights=st.sampled_from([None, [1.0, 2.0, 0.5, 1.0, 3.0]]),
       cluster=st.sampled_from([[[4.0, 3.0]], [[2.0, 1.5], [1.5, 2.0], [2.0, 2.0]]]))
def test_scheduler_api_core_equals_generic_path(ops, ties, blocking, weights, cluster):
    kw = dict(n_users=None if weights else 5, weights=weights, ties=ties, blocking=blocking)
    core = DRFScheduler(cluster, **kw)
    generic = DRFScheduler(cluster, **kw)
    generic._core = None
    assert core._core is not None
    assert _drive(core, ops) == _drive(generic, ops)


# ---- compiled against plain Python (NUMBA_DISABLE_JIT=1) on the same inputs ------------------------
_CHILD = """
import hashlib, json, sys, numpy as np, fairalloc as fa
from fairalloc.scheduling import DRFScheduler
from fairalloc.sim import ResourcePool
out = []
for seed in (3, 4):
    for tied in (False, True):
        wl = fa.workloads.google_like(60, 600, rng=seed)
        if tied:
            res = np.asarray(wl.resources, dtype=float)
            grid = res.max(axis=0) / 8.0
            wl = wl.replace(submit=np.floor(wl.submit), resources=np.maximum(np.round(res / grid), 1.0) * grid)
        for blocking in ("stop", "skip"):
            r = fa.simulate(wl, ResourcePool.from_workload(wl, 0.5), policy="drf", blocking=blocking)
            h = hashlib.sha256()
            for key in ("job", "tasks", "start", "end"):
                h.update(np.ascontiguousarray(r.launches[key].to_numpy()).tobytes())
            out.append([h.hexdigest(), r.stats["engine"], r.stats["decisions"], r.stats["events"]])
rng = np.random.default_rng(7)                          # the scheduler API, random operations
s = DRFScheduler([[4.0, 3.0]], n_users=6, blocking="skip")
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
out.append([s.usage.tolist(), s.free.tolist(), s.order(), s.decisions])
print(json.dumps(out))
"""


def test_plain_python_reference_gives_the_compiled_results():
    """Under NUMBA_DISABLE_JIT=1 pool_core runs as plain Python (the readable reference)."""
    out = {}
    for jit in ("0", "1"):
        env = {**os.environ, "NUMBA_DISABLE_JIT": jit}
        p = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, env=env,
                           check=True)
        out[jit] = json.loads(p.stdout.strip().splitlines()[-1])
    assert out["0"] == out["1"]
    assert all(row[1] == "kernel" for row in out["0"][:-1])
