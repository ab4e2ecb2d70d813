"""The formulas this area added to shares.py / commitments.py agree with the ones they specialise."""

from __future__ import annotations

import hypothesis.strategies as st
import numpy as np
from hypothesis import given

from fairalloc import commitments as fc
from fairalloc import shares

VALUES = st.sampled_from([0.0, 0.1, 0.2, 0.3, 1 / 3, 0.5, 0.7, 1.0, 2.0, -0.1, 0.30000000000000004])


@given(st.lists(st.tuples(VALUES, VALUES), min_size=1, max_size=4))
def test_task_fits_is_tasks_that_fit_at_least_one(pairs):
    cap = [c for c, _ in pairs]
    d = [abs(x) for _, x in pairs]
    if not any(v > 0 for v in d):
        d[0] = 0.1
    assert shares.task_fits(cap, d) == bool(shares.tasks_that_fit(cap, d) >= 1)


def test_task_fits_rounding_cases():
    # 0.3 / 0.1 = 2.9999999999999996 in floating point, but three tasks of 0.1 fit in 0.3 (and one does)
    assert shares.task_fits([0.1], [0.1]) and shares.task_fits([0.3 - 0.2], [0.1])
    assert not shares.task_fits([0.09], [0.1])


def test_printed_priority_and_levels_by_hand():
    # o = (0.4, 0.1), c = (0, 0.35): level = 0.4 + 0.35 = 0.75; printed = max(0.4, 0.45) = 0.45
    np.testing.assert_allclose(shares.sdrf_levels([0.4], [[0.0, 0.35]]), [0.75])
    np.testing.assert_allclose(shares.sdrf_printed_priorities([[0.4, 0.1]], [[0.0, 0.35]]), [0.45])
    np.testing.assert_allclose(shares.sdrf_printed_priorities([[0.4, 0.1]], [[0.0, 0.35]], weights=[2.0]),
                               [0.225])


def test_excess_over_and_decay_unchecked_match_their_checked_versions():
    rng = np.random.default_rng(0)
    o = rng.uniform(0, 1, (5, 3))
    np.testing.assert_array_equal(fc.excess(o), fc.excess_over(o, 1 / 5))
    c0, ex = rng.uniform(0, 1, (5, 3)), rng.uniform(0, 1, (5, 3))
    for dt in (0.0, 1e-9, 0.7, 1e6):
        np.testing.assert_array_equal(fc.decay(c0, ex, dt, 3.0), fc.decay_unchecked(c0, ex, dt, 3.0))


@given(st.lists(st.tuples(VALUES, VALUES), min_size=1, max_size=4))
def test_tasks_that_fit_one_is_tasks_that_fit(pairs):
    cap = [c for c, _ in pairs]
    d = [abs(x) for _, x in pairs]
    want = shares.tasks_that_fit(cap, d).item()
    assert shares.tasks_that_fit_one(cap, d) == want          # inf when the task needs nothing


@given(st.lists(st.tuples(VALUES, VALUES, VALUES), min_size=1, max_size=4),
       st.sampled_from([0.0, 1e-9, 0.5, 3.0, 1e7]), st.sampled_from([1e-3, 1.0, 1e6]), VALUES)
def test_row_versions_are_bitwise_the_array_versions(rows, dt, tau, fair):
    # the schedulers' inner loop uses decay_row / excess_row on Python lists; they must give the
    # very same floats as decay_unchecked / excess_over (no tolerance: schedules depend on ties)
    c0 = [abs(a) for a, _, _ in rows]
    ex = [abs(b) for _, b, _ in rows]
    o = [c for _, _, c in rows]
    assert fc.decay_row(c0, ex, dt, tau) == fc.decay_unchecked(np.array(c0), np.array(ex), dt, tau).tolist()
    assert fc.excess_row(o, fair) == fc.excess_over(np.array(o), fair).tolist()


@given(st.lists(st.lists(st.tuples(VALUES, VALUES), min_size=3, max_size=3), min_size=1, max_size=5))
def test_task_fits_rows_is_tasks_that_fit_at_least_one_row_by_row(rows):
    # rows of 3 (capacity, demand) pairs; the demand is the first row's (one task over every server)
    cap = np.array([[c for c, _ in r] for r in rows])
    d = np.array([abs(x) for _, x in rows[0]])
    if not (d > 0).any():
        d[0] = 0.1
    expected = shares.tasks_that_fit(cap, d) >= 1
    np.testing.assert_array_equal(shares.task_fits_rows(cap, d), expected)


def test_task_fits_rows_rounding_cases():
    # 0.3 - 0.2 = 0.09999999999999998 holds one task of 0.1 (within the slack); 0.09 does not
    cap = np.array([[0.3 - 0.2, 1.0], [0.09, 1.0], [-0.1, 5.0]])
    assert shares.task_fits_rows(cap, np.array([0.1, 0.0])).tolist() == [True, False, False]


@given(st.lists(st.tuples(VALUES, VALUES), min_size=1, max_size=4), st.sampled_from([0.5, 1.0, 3.0]))
def test_dominant_share_after_one_is_dominant_shares_after_bitwise(pairs, w):
    usage = [abs(u) for u, _ in pairs]
    d = [abs(x) for _, x in pairs]
    totals = [1.0 + k for k in range(len(pairs))]
    # the same IEEE operations entry by entry: equal, not merely close
    assert shares.dominant_share_after_one(usage, d, totals, w) == \
        float(shares.dominant_shares_after(np.array(usage), np.array(d), np.array(totals), w))
