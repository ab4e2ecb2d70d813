"""The server rules (:mod:`fairalloc.scheduling.servers`): the compiled rule against the definitions.

The reference is computed here with NumPy from the public definitions, on the free capacity at the
moment of the call: the fit test :func:`fairalloc.shares.task_fits_rows` over every server; first
fit the lowest fitting index; best fit the smallest :math:`\\sum_r (F_{mr} - d_r)/C_r`; TV-TSF
Algorithm 4 the smallest :math:`H = \\lVert d/d_k - F_m/F_{mk} \\rVert_1` in units of the totals
(ties: the lowest index). Sequences of takes, releases and finds are drawn by hypothesis (bounded by
the ``ci`` profile), with demands on a 0.1 grid so that ratios land next to whole numbers (0.3 / 0.1 =
2.9999999999999996: the fit test's slack decides), 1 to 9 resources (NumPy's sums go pairwise from 8
terms) and 2 to 12 servers.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, strategies as st

from fairalloc import shares
from fairalloc.scheduling.servers import FreeCapacity, row_sum


def _reference(fc: FreeCapacity, user: int, d: np.ndarray, rule: str) -> tuple[np.ndarray, int]:
    free = np.array(fc.free)
    ok = shares.task_fits_rows(free, d) & fc.placement[user]
    idx = np.flatnonzero(ok)
    if not idx.size:
        return ok, -1
    if rule == "first_fit":
        return ok, int(idx[0])
    tot = fc.totals
    if rule == "best_fit":
        score = ((free[idx] - d) / tot).sum(axis=1)
    else:
        dn, fn = d / tot, free[idx] / tot
        k = int(np.argmax(dn > 0))
        score = np.abs(dn / dn[k] - fn / fn[:, k:k + 1]).sum(axis=1)
    return ok, int(idx[np.argmin(score)])


@st.composite
def _runs(draw):
    k = draw(st.integers(1, 9))
    m = draw(st.integers(2, 12))
    grid = st.integers(1, 40).map(lambda v: v / 10)
    cap = np.array(draw(st.lists(st.lists(grid, min_size=k, max_size=k), min_size=m, max_size=m)))
    n = draw(st.integers(1, 3))
    place = np.array(draw(st.lists(st.lists(st.booleans(), min_size=m, max_size=m), min_size=n, max_size=n)))
    demands = [np.array(draw(st.lists(st.integers(0, 8).map(lambda v: v / 10), min_size=k, max_size=k)))
               for _ in range(draw(st.integers(1, 4)))]
    demands = [d if (d > 0).any() else d + 0.1 for d in demands]
    ops = draw(st.lists(st.tuples(st.integers(0, 9), st.integers(0, n - 1), st.integers(0, len(demands) - 1)),
                        min_size=1, max_size=60))
    return cap, place, demands, ops, draw(st.sampled_from(["tvtsf", "first_fit", "best_fit"]))


@given(_runs())
def test_the_rule_chosen_is_the_definitions(run):
    cap, place, demands, ops, rule = run
    fc = FreeCapacity(cap, place, rule)
    taken: list[tuple[int, np.ndarray]] = []
    for op, user, j in ops:
        d = demands[j]
        if op == 0 and taken:                          # a task ends
            m, dd = taken.pop(0)
            fc.release(m, dd)
            continue
        ok, m_ref = _reference(fc, user, d, rule)
        assert fc.fits(user, d).tolist() == ok.tolist()
        m = fc.find(user, d)
        assert m == m_ref
        if m >= 0 and op < 7:                          # most found tasks start
            fc.take(m, d)
            taken.append((m, d))


@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=300))
def test_row_sum_is_numpys_sum(values):
    x = np.array(values)
    assert row_sum.py_func(x) == x.sum() and row_sum(x) == x.sum()


def test_shape_match_picks_the_server_of_the_tasks_shape():
    # Algorithm 4 on <1, 2>: server 0 has the task's shape (H = 0), the others <4, 2> do not
    cap = np.array([[2.0, 4.0]] + [[4.0, 2.0]] * 11)
    fc = FreeCapacity(cap, np.ones((1, 12), bool), "tvtsf")
    d = np.array([1.0, 2.0])
    assert fc.find(0, d) == 0 and fc.mismatch(d, np.array([0]))[0] == 0.0
    for m in range(12):
        fc.take(m, np.array([0.5, 0.5]))
    assert fc.find(0, d) == _reference(fc, 0, d, "tvtsf")[1]
