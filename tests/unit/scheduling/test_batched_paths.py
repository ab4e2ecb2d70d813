"""Issue 11's batched scheduler paths give the state and schedule of the one-by-one paths.

* ``TaskScheduler.finish_all`` (the simulator's call for the tasks of one launch): for SDRF and DRF a
  user whose tasks end together is updated once; TSF (whose update depends on the task) goes task
  by task. Checked against :meth:`finish` called per task, on seeded random runs.
* ``FreeCapacity.find_take``: the server :meth:`find_list` chooses, with :meth:`take` applied.
* ``TaskScheduler.finish_all`` brings each user's commitments to now once, in the order of its first
  task ended (Eq. 6 by hand).
"""

from __future__ import annotations

import numpy as np
import pytest

from fairalloc.scheduling import DRFScheduler, SDRFScheduler, TSFScheduler
from fairalloc.scheduling.servers import FreeCapacity


def _make(kind, cluster, n):
    if kind == "sdrf":
        return SDRFScheduler(cluster, n_users=n, delta=0.9)
    if kind == "sdrf-printed":
        return SDRFScheduler(cluster, n_users=n, tau=3.0, priority="printed")
    if kind == "drf":
        return DRFScheduler(cluster, n_users=n)
    return TSFScheduler(cluster, n_users=n)


def _state(s):
    out = {"usage": s.usage.tolist(), "n_running": s.n_running.tolist(), "free": s.free.tolist(),
           "order": s.order(), "swaps": s.swaps, "decisions": s.decisions,
           "next_change": s.next_change}
    if isinstance(s, SDRFScheduler):
        out["commitments"] = s.commitments().tolist()
    return out


@pytest.mark.parametrize("kind", ["sdrf", "sdrf-printed", "drf", "tsf"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_finish_all_is_finish_task_by_task(kind, seed):
    rng = np.random.default_rng(seed)
    cluster = [[10.0, 12.0]] if seed != 2 else [[6.0, 6.0], [5.0, 7.0]]
    n = 5
    one, batch = _make(kind, cluster, n), _make(kind, cluster, n)
    running: list[int] = []
    t = 0.0
    for _ in range(40):
        t += float(rng.exponential(0.7))
        for s in (one, batch):
            s.advance(t)
        # several tasks end at t, often several of one user (a launch of many tasks)
        if running:
            k = int(rng.integers(0, min(len(running), 6) + 1))
            ending = [running.pop(int(rng.integers(len(running)))) for _ in range(k)]
            for task in ending:
                one.finish(task)
            batch.finish_all(ending)
        for _ in range(int(rng.integers(0, 3))):
            u = int(rng.integers(n))
            d = rng.choice([0.5, 1.0, 2.0], size=2)
            c = int(rng.integers(1, 4))
            assert one.submit(u, d, c) == batch.submit(u, d, c)
        a, b = one.schedule(), batch.schedule()
        assert a == b
        running += [st.task for st in a]
        assert _state(one) == _state(batch)


def test_finish_all_updates_a_user_once_and_in_first_end_order():
    # SDRF, tau = 1, a pool of 4 x <1, 1> tasks: users 0 (task ids 0-2) and 1 (ids 3-5) alternate
    # (equal levels, equal waits: index order), 0, 3, 1, 4 start. At t = 1, tasks 3, 0, 1 end.
    for structure in ("live_tree", "resort", "heap"):
        s = SDRFScheduler([[4.0, 4.0]], n_users=2, tau=1.0, structure=structure)
        s.submit(0, [1.0, 1.0], 3)
        s.submit(1, [1.0, 1.0], 3)
        assert [st.task for st in s.schedule()] == [0, 3, 1, 4]
        s.advance(1.0)
        s.finish_all([3, 0, 1])
        # each user held 2 of 4 units (0.5 of each resource) over [0, 1]: at its fair share 1/2,
        # excess 0 (Eq. 6: the commitment stays 0); user 0 now runs nothing, user 1 one task
        assert s.commitments().tolist() == [[0.0, 0.0], [0.0, 0.0]]
        assert s.usage.tolist() == [[0.0, 0.0], [1.0, 1.0]]
        assert [st.task for st in s.schedule()] == [2, 5], structure   # levels 0 and 0.25: user 0 first


@pytest.mark.parametrize("cluster", [[[5.0, 3.0]], [[2.0, 2.0], [5.0, 1.0], [4.0, 4.0]]])
@pytest.mark.parametrize("rule", ["first_fit", "best_fit"])
def test_find_take_is_find_then_take(cluster, rule):
    rng = np.random.default_rng(3)
    cap = np.array(cluster)
    eligible = np.ones((2, len(cap)), bool)
    a, b = FreeCapacity(cap, eligible, rule), FreeCapacity(cap, eligible, rule)
    seen = set()
    for _ in range(60):
        d = rng.choice([0.5, 1.0, 1.5], size=2)
        m = a.find_list(0, d, d.tolist())
        if m >= 0:
            a.take(m, d.tolist() if a.one_pool else d)
        assert b.find_take(0, d, d.tolist()) == m
        assert b.free.tolist() == a.free.tolist()
        seen.add(m >= 0)
    assert seen == {True, False}                  # both branches ran
