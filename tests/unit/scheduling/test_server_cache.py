"""FreeCapacity keeps each demand's fit test and Algorithm 4's H between calls (issue 16): the kept
values equal a fresh computation exactly, and so does every server chosen.

The reference is computed here from the public definitions, on the free capacity at the moment of
the call: :func:`fairalloc.shares.task_fits_rows` over every server, :meth:`FreeCapacity.mismatch`
over the servers where the task fits and the user may run, the smallest H (lowest index on ties),
first fit the lowest fitting index. Sequences of takes, releases and finds are drawn by hypothesis
(bounded by the ``ci`` profile), with demands on a 0.1 grid so that ratios land next to whole
numbers (0.3 / 0.1 = 2.9999999999999996: the fit test's slack decides) and with 1 to 6 resources
and 2 to 12 servers, so both recomputations run: on floats (a few changed servers, at most 4
resources) and on arrays.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, strategies as st

from fairalloc import shares
from fairalloc.scheduling.servers import FreeCapacity


def _reference(fc: FreeCapacity, user: int, d: np.ndarray, rule: str) -> tuple[np.ndarray, int, np.ndarray]:
    ok = shares.task_fits_rows(np.array(fc.free), d) & fc.placement[user]
    idx = np.flatnonzero(ok)
    if not idx.size:
        return ok, -1, np.array([])
    h = fc.mismatch(d, idx)
    return ok, int(idx[np.argmin(h)]) if rule == "tvtsf" else int(idx[0]), h


@st.composite
def _runs(draw):
    k = draw(st.integers(1, 6))
    m = draw(st.integers(2, 12))             # one server is one pool: a path without NumPy, not kept
    grid = st.integers(1, 40).map(lambda v: v / 10)
    cap = np.array(draw(st.lists(st.lists(grid, min_size=k, max_size=k), min_size=m, max_size=m)))
    n = draw(st.integers(1, 3))
    place = np.array(draw(st.lists(st.lists(st.booleans(), min_size=m, max_size=m), min_size=n, max_size=n)))
    demands = [np.array(draw(st.lists(st.integers(0, 8).map(lambda v: v / 10), min_size=k, max_size=k)))
               for _ in range(draw(st.integers(1, 4)))]
    demands = [d if (d > 0).any() else d + 0.1 for d in demands]
    ops = draw(st.lists(st.tuples(st.integers(0, 9), st.integers(0, n - 1), st.integers(0, len(demands) - 1)),
                        min_size=1, max_size=60))
    return cap, place, demands, ops, draw(st.sampled_from(["tvtsf", "first_fit"]))


@given(_runs())
def test_kept_fit_and_mismatch_equal_a_fresh_computation(run):
    cap, place, demands, ops, rule = run
    fc = FreeCapacity(cap, place, rule)
    taken: list[tuple[int, np.ndarray]] = []
    for op, user, j in ops:
        d = demands[j]
        if op == 0 and taken:                          # a task ends
            m, dd = taken.pop(0)
            fc.release(m, dd)
            continue
        ok, m_ref, h_ref = _reference(fc, user, d, rule)
        assert fc.fits(user, d).tolist() == ok.tolist()
        if rule == "tvtsf" and m_ref >= 0:
            kept_ok, kept_h = fc._kept(d)
            assert (kept_ok & place[user]).tolist() == ok.tolist()
            assert kept_h[np.flatnonzero(ok)].tolist() == h_ref.tolist()      # bitwise: == on floats
        m = fc.find(user, d)
        assert m == m_ref
        if m >= 0 and op < 7:                          # most found tasks start
            fc.take(m, d)
            taken.append((m, d))


def test_many_changed_servers_use_the_array_path_and_agree():
    # 12 servers all changed since the demand was last asked (more than the float path's 8): the
    # array recomputation; Algorithm 4 on <1, 2>: server 0 has the task's shape, so H = 0 there
    cap = np.array([[2.0, 4.0]] + [[4.0, 2.0]] * 11)
    fc = FreeCapacity(cap, np.ones((1, 12), bool), "tvtsf")
    d = np.array([1.0, 2.0])
    assert fc.find(0, d) == 0
    for m in range(12):
        fc.take(m, np.array([0.5, 0.5]))
    ok, m_ref, h_ref = _reference(fc, 0, d, "tvtsf")
    assert fc.find(0, d) == m_ref
    assert fc._kept(d)[1][np.flatnonzero(ok)].tolist() == h_ref.tolist()
