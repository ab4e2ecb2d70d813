"""The formulas of fairalloc.shares against hand-computed values (sources in each test)."""

from __future__ import annotations

import numpy as np
import pytest

from fairalloc import shares


def test_drf_paper_normalised_and_dominant():
    # Ghodsi et al. 2011: <1 CPU, 4 GB> of <9, 18>: 1/9 and 2/9 -> memory dominant; <3, 1>: 1/3, 1/18.
    a = shares.normalized_demands([[1, 4], [3, 1]], [9, 18])
    np.testing.assert_allclose(a, [[1 / 9, 2 / 9], [1 / 3, 1 / 18]])
    assert shares.dominant_resource(a).tolist() == [1, 0]
    np.testing.assert_allclose(shares.dominant_shares(a), [2 / 9, 1 / 3])
    np.testing.assert_allclose(shares.demand_vectors(a), [[0.5, 1.0], [1.0, 1 / 6]])


def test_dominant_resource_ties_pick_lowest_index():
    assert shares.dominant_resource([[0.5, 0.5, 0.1]]).tolist() == [0]


def test_leontief_utility_eq1():
    # SDRF Eq. 1: min(min_r o_r / theta_r, 1); resources with zero demand are ignored.
    assert shares.leontief_utility([0.2, 0.3], [0.4, 0.3]).item() == 0.5
    assert shares.leontief_utility([1.0, 1.0], [0.4, 0.3]).item() == 1.0
    assert shares.leontief_utility([0.2, 5.0], [0.4, 0.0]).item() == 0.5
    assert shares.leontief_utility([0.0, 5.0], [0.4, 0.0]).item() == 0.0
    # per-task form: tasks a bundle runs (DRF paper: <3, 12> runs 3 tasks of <1, 4>)
    assert shares.leontief_utility([3, 12], [1, 4], cap=np.inf).item() == 3.0


def test_envy_uses_the_same_formula():
    # u_A(A_B) with the DRF paper's allocation: B's bundle <6, 2> runs 0.5 of A's tasks <1, 4>.
    assert shares.leontief_utility([6, 2], [1, 4], cap=np.inf).item() == 0.5


def test_commitment_and_levels():
    c = np.array([[0.1, 0.3], [0.0, 0.05]])
    np.testing.assert_allclose(shares.dominant_commitment(c), [0.3, 0.05])
    np.testing.assert_allclose(shares.sdrf_levels([0.2, 0.4], c), [0.5, 0.45])
    np.testing.assert_allclose(shares.sdrf_levels([0.2, 0.4], c, weights=[2, 1]), [0.25, 0.45])
    np.testing.assert_allclose(shares.fair_shares([1, 1, 2]), [0.25, 0.25, 0.5])


def test_tasks_that_fit_is_robust_to_rounding():
    # 0.3 / 0.1 = 2.9999999999999996 in binary floating point, yet three tasks of 0.1 fit in 0.3.
    assert shares.tasks_that_fit([0.3], [0.1]).item() == 3
    assert shares.tasks_that_fit([0.29], [0.1]).item() == 2
    assert shares.tasks_that_fit([-0.1, 1.0], [0.1, 0.1]).item() == 0
    assert np.isinf(shares.tasks_that_fit([1.0], [0.0]).item())


def test_monopoly_counts_ignore_placement_tvtsf_eq4():
    # TV-TSF Eq. 4: h_i = sum_m floor(min_r C_mr / d_ir). Task <2, 1> on servers <4, 4> and <3, 8>:
    # floor(min(2, 4)) + floor(min(1.5, 8)) = 2 + 1 = 3.
    assert shares.monopoly_tasks([[2, 1]], [[4, 4], [3, 8]]).tolist() == [3.0]
    h = shares.monopoly_tasks([[[2, 1], [1, 1]]], [[4, 4], [3, 8]])       # (N, T, K) -> (N, T)
    assert h.tolist() == [[3.0, 7.0]]


def test_task_shares_and_cumulative_eq3():
    np.testing.assert_allclose(shares.task_shares([3, 2], [4, 3], weights=[1, 2]), [0.75, 1 / 3])
    # TV-TSF Eq. 3 by hand: x = (1, 2, 0), h = (4, 4, 2), w = 1 -> 1/4, 3/8, 3/10.
    np.testing.assert_allclose(shares.cumulative_task_shares([[1, 2, 0]], [[4, 4, 2]]), [[0.25, 0.375, 0.3]])
    np.testing.assert_allclose(shares.cumulative_task_shares([[1, 2, 0]], [[4, 4, 2]], weights=[2]),
                               [[0.125, 0.1875, 0.15]])


def test_dominant_share_of_tasks():
    np.testing.assert_allclose(shares.dominant_share_of_tasks([3, 2], [[1, 4], [3, 1]], [9, 18]), [2 / 3, 2 / 3])


def test_formulas_do_not_modify_their_inputs():
    a = np.array([[1.0, 4.0], [3.0, 1.0]])
    keep = a.copy()
    shares.normalized_demands(a, [9, 18])
    shares.demand_vectors(a)
    shares.leontief_utility(a, a)
    shares.tasks_that_fit(a, a)
    np.testing.assert_array_equal(a, keep)


# ---- one definition each (issue 15 item 7), against hand computations ------------------------------

def test_weighted_dominant_shares_by_hand():
    from fractions import Fraction as F

    # DRF paper allocation (3 tasks of <1, 4>, 2 of <3, 1> on <9, 18>): dominant shares 12/18 and 6/9,
    # both 2/3; weights 1 and 2 divide them: 2/3 and 1/3.
    np.testing.assert_allclose(shares.dominant_shares([[3, 12], [6, 2]], [9, 18], weights=[1, 2]), [2 / 3, 1 / 3])
    np.testing.assert_allclose(shares.dominant_share_of_tasks([3, 2], [[1, 4], [3, 1]], [9, 18], [1, 2]),
                               [2 / 3, 1 / 3])
    # exact on Fraction arrays (what proofs_check.replay uses)
    a = np.array([[F(3), F(12)], [F(6), F(2)]], dtype=object)
    c = np.array([F(9), F(18)], dtype=object)
    got = shares.dominant_shares(a, c, weights=np.array([F(1), F(2)], dtype=object))
    assert got.tolist() == [F(2, 3), F(1, 3)]


def test_commitment_envy_gap_by_hand():
    from fractions import Fraction as F

    # i holds dominant share 1/2 with commitment 1/5; j's bundle is worth 4/5 of i's demand, whose
    # dominant share is 3/4 -> 3/5; j has no commitment. g = (0 + 3/5) - (1/5 + 1/2) = -1/10: no envy.
    assert shares.commitment_envy_gap(F(1, 2), F(3, 4) * F(4, 5), F(1, 5), F(0)) == F(-1, 10)
    # weights 1 and 2, j committed 3/10, i uncommitted: (3/10 + 3/5) / 2 - 1/2 = -1/20
    assert shares.commitment_envy_gap(F(1, 2), F(3, 5), F(0), F(3, 10), F(1), F(2)) == F(-1, 20)
    # i committed 3/10 and holds 1/5, j's bundle worth 3/5 to i: 3/5 - 1/2 = 1/10 > 0, i envies j
    assert shares.commitment_envy_gap(0.2, 0.6, 0.3, 0.0) == pytest.approx(0.1)
    # arrays broadcast
    np.testing.assert_allclose(shares.commitment_envy_gap(np.array([0.2, 0.5]), 0.6, 0.3, 0.0), [0.1, -0.2])
