"""Asset fairness and CEEI (the foils of the axiom checkers): hand-computed examples and cross-checks."""

from __future__ import annotations

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.errors import SolverUnavailableError


@pytest.fixture
def drf_paper():
    """Ghodsi et al. 2011: 9 CPUs, 18 GB; tasks A = <1, 4>, B = <3, 1>; unbounded task counts."""
    return fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[100, 100], capacities=[9, 18])


def test_asset_fairness_drf_paper_example(drf_paper):
    # asset share per task: A 1/9 + 4/18 = 1/3, B 3/9 + 1/18 = 7/18. Equal asset shares:
    # x_A / 3 = 7 x_B / 18. CPU: x_A + 3 x_B = 9 -> x_B = 54/25, x_A = 63/25; memory 4*2.52 + 2.16 = 12.24 < 18.
    r = fa.asset_fairness(drf_paper)
    assert r.status is fa.Status.OPTIMAL
    tasks = r.allocation / np.array([[1, 4], [3, 1]])
    assert tasks[:, 0] == pytest.approx([63 / 25, 54 / 25])
    assert tasks[:, 1] == pytest.approx(tasks[:, 0])
    assert r.shares == pytest.approx([63 / 25 / 3, 54 / 25 * 7 / 18])          # equal: 0.84
    assert r.shares[0] == pytest.approx(r.shares[1])


def test_asset_fairness_violates_sharing_incentive_by_hand():
    # unit capacities; A = <1, 0.1> (wants 2x), B = <1, 1> (wants 2x). Asset per unit: A 1.1, B 2.
    # Equal asset shares a: r0: a/1.1 + a/2 = 1 -> a = 2.2/3.1; B gets a/2 = 0.3548 of each resource,
    # fraction of B's demand = 0.3548/2 = 0.1774 < u_B(C/2) = 0.25.
    inst = fa.Instance([[2.0, 0.2], [2.0, 2.0]])
    r = fa.asset_fairness(inst)
    a = 2.2 / 3.1
    assert r.allocation[1] == pytest.approx([a / 2, a / 2])
    assert r.utilities[1] == pytest.approx(a / 4) and a / 4 < 0.25


@pytest.mark.parametrize("demands, weights", [
    ([[1, 0, 2], [0, 1, 1], [3, 1, 0]], None),
    ([[0.2, 0.1], [1, 1], [0.5, 2]], [1, 2, 3]),
    ([[0.1, 0.05], [0.3, 0.9]], None),                   # first user satisfiable (caps)
])
def test_asset_fairness_waterfill_agrees_with_lp(demands, weights):
    inst = fa.Instance(demands, weights=weights)
    a = fa.asset_fairness(inst)
    b = fa.asset_fairness(inst, method="lp")
    assert b.success
    assert a.allocation == pytest.approx(b.allocation, abs=1e-6)


def test_ceei_drf_paper_example_and_prices(drf_paper):
    # hand computation in the docstring of fa.ceei: x_A = 45/11, x_B = 18/11 tasks; prices per unit
    # 1/5 (CPU) and 1/90 (GB), i.e. 9/5 and 1/5 for the whole capacities; each user spends 1.
    r = fa.ceei(drf_paper)
    assert r.success
    tasks = r.allocation[:, 0] / np.array([1, 3])
    assert tasks == pytest.approx([45 / 11, 18 / 11], abs=1e-9)
    assert r.details["prices"] == pytest.approx([9 / 5, 1 / 5], abs=1e-9)
    a = fa.shares.normalized_demands(drf_paper.demands, drf_paper.capacities)
    spend = r.utilities * (a @ r.details["prices"])
    assert spend == pytest.approx([1.0, 1.0], abs=1e-9)


def test_ceei_caps_and_kkt():
    # one resource; A wants 0.3, B wants 1: A is satisfied (spends 0.3 * p < 1), B gets the rest 0.7.
    r = fa.ceei(fa.Instance([[0.3], [1.0]]))
    assert r.allocation.ravel() == pytest.approx([0.3, 0.7])
    p = r.details["prices"][0]
    assert p == pytest.approx(1 / 0.7)                   # B spends its budget: 0.7 * p = 1
    assert 0.3 * p < 1


def test_ceei_identical_users_are_treated_equally():
    r = fa.ceei(fa.Instance([[2, 2], [2, 2], [2, 2]]))
    assert r.utilities == pytest.approx([1 / 6] * 3, abs=1e-12)
    assert r.details["polished"]


def test_ceei_rejects_non_conic_solvers():
    with pytest.raises(SolverUnavailableError, match="exponential cone"):
        fa.ceei(fa.Instance([[1.0]]), solver="scipy")


def test_foils_are_exported_and_checked():
    assert "asset_fairness" in fa.__all__ and "ceei" in fa.__all__
    with pytest.raises(TypeError):
        fa.ceei([[1.0]])
    with pytest.raises(TypeError):
        fa.asset_fairness([[1.0]])
