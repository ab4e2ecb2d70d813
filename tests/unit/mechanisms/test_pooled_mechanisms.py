"""max_min / drf / sdrf: results, agreement of methods on hand cases, bad input, result type."""

from __future__ import annotations

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.errors import FairallocWarning, InvalidInstanceError, SolverUnavailableError


def test_max_min_rejects_several_resources():
    with pytest.raises(InvalidInstanceError, match="max_min needs exactly one resource, got n_resources=2"):
        fa.max_min(fa.Instance([[1, 1], [2, 2]]))


def test_unknown_method_and_solver():
    inst = fa.Instance([[1, 2], [2, 1]])
    with pytest.raises(InvalidInstanceError, match=r"method='simplex' is not one of 'waterfill', 'lp'"):
        fa.drf(inst, method="simplex")
    with pytest.raises(SolverUnavailableError, match=r"unknown solver 'nosuch'; possible options are: highs"):
        fa.drf(inst, method="lp", solver="nosuch")
    with pytest.raises(SolverUnavailableError, match="cannot solve LP problems"):
        fa.drf(inst, method="lp", solver="cbc")
    # plain LPs have one route, HiGHS (fairalloc.exact.solvers): a conic backend is named as such
    with pytest.raises(SolverUnavailableError, match=r"'clarabel' cannot solve LP problems \(it handles: conic\)"):
        fa.drf(inst, method="lp", solver="clarabel")
    with pytest.raises(SolverUnavailableError, match="not installed: pip install gurobipy"):
        fa.drf(fa.TaskInstance([[9, 18]], [[1, 4], [3, 1]], tasks=[10, 10]), method="milp", solver="gurobi")


def test_solver_with_waterfill_warns():
    with pytest.warns(FairallocWarning, match="ignored by method='waterfill'"):
        fa.drf(fa.Instance([[1, 2], [2, 1]]), solver="highs")


def test_instance_type_is_checked():
    with pytest.raises(TypeError, match="must be a fairalloc.Instance"):
        fa.drf([[1, 2], [2, 1]])


def test_bad_commitments_named():
    inst = fa.Instance([[1, 2], [2, 1]])
    with pytest.raises(InvalidInstanceError, match=r"commitments\[0, 1\]=-0.5 must be >= 0"):
        fa.sdrf(inst, commitments=[[0, -0.5], [0, 0]])
    with pytest.raises(InvalidInstanceError, match=r"commitments\[1, 0\]=nan must be finite"):
        fa.sdrf(inst, commitments=[[0, 0], [np.nan, 0]])


def test_result_fields_and_readonly():
    inst = fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[100, 100], capacities=[9, 18])
    r = fa.drf(inst)
    assert r.success and r.status == "optimal" and r.mechanism == "drf" and r.method == "waterfill"
    assert r.solver is None and r.stats["rounds"] == 1
    with pytest.raises(ValueError):
        r.allocation[0, 0] = 1.0
    np.testing.assert_allclose(r.utilities, [0.03, 2 / 100])       # 3 of 100 tasks, 2 of 100
    assert r.raise_for_status() is r
    d = r.to_dict()
    assert d["status"] == "optimal" and len(d["allocation"]) == 2
    frame = r.to_frame(agent_names=["A", "B"], resource_names=["cpu", "mem"])
    assert list(frame.index) == ["A", "B"] and "alloc[cpu]" in frame


def test_raise_for_status():
    r = fa.AllocationResult(status=fa.Status.INFEASIBLE, mechanism="x", method="y", message="no room")
    assert not r.success
    with pytest.raises(fa.InfeasibleError, match="no room"):
        r.raise_for_status()
    with pytest.raises(fa.SolverError):
        fa.AllocationResult(status="error", mechanism="x", method="y").raise_for_status()


def test_satisfied_users_leave_room_for_others():
    # Hand computation: capacity 1; demands 0.1, 0.2, 0.9 -> 0.1, 0.2, 0.7.
    r = fa.drf(fa.Instance([[0.1], [0.2], [0.9]]))
    np.testing.assert_allclose(r.allocation.ravel(), [0.1, 0.2, 0.7])


def test_everybody_fits():
    # Total demand below capacity: everyone gets its demand; level = last satisfaction level.
    r = fa.sdrf(fa.Instance([[0.1, 0.2], [0.3, 0.1]]), commitments=[[0.05, 0], [0, 0]])
    np.testing.assert_allclose(r.allocation, [[0.1, 0.2], [0.3, 0.1]])
    np.testing.assert_allclose(r.utilities, [1, 1])
    assert r.level == pytest.approx(0.3)           # user 1: 0 + 0.3; user 0: 0.05 + 0.2 = 0.25


def test_huge_commitment_gets_nothing_when_full():
    # Hand computation: user 0's commitment 0.9 exceeds the level 0.5 that the other two reach.
    r = fa.sdrf(fa.Instance([[1.0], [1.0], [1.0]]), commitments=[[0.9], [0.0], [0.0]])
    np.testing.assert_allclose(r.allocation.ravel(), [0.0, 0.5, 0.5])
    assert r.levels[0] == pytest.approx(0.9)


def test_sdrf_uses_dominant_commitment_max_over_resources():
    # Two identical users <1, 1>; commitments (0.0, 0.2) and (0.1, 0.0): dominant 0.2 and 0.1.
    # Levels equalise: 0.2 + s0 = 0.1 + s1, s0 + s1 = 1 -> s0 = 0.45, s1 = 0.55 (hand).
    r = fa.sdrf(fa.Instance([[1.0, 1.0], [1.0, 1.0]]), commitments=[[0.0, 0.2], [0.1, 0.0]])
    np.testing.assert_allclose(r.dominant_shares, [0.45, 0.55])


def test_weighted_sdrf_divides_the_level():
    # Documented choice: level (c + s) / w. Weights (2, 1), commitments (0.2, 0): (0.2 + s0)/2 = s1,
    # s0 + s1 = 1 -> s0 = 0.6, s1 = 0.4 (hand).
    r = fa.sdrf(fa.Instance([[1.0], [1.0]], weights=[2, 1]), commitments=[[0.2], [0.0]])
    np.testing.assert_allclose(r.allocation.ravel(), [0.6, 0.4])


def test_inputs_are_not_modified():
    d = np.array([[1.0, 2.0], [2.0, 1.0]])
    c = np.array([[0.1, 0.0], [0.0, 0.0]])
    inst = fa.Instance(d)
    fa.sdrf(inst, c)
    fa.sdrf(inst, c, method="lp")
    np.testing.assert_array_equal(c, [[0.1, 0.0], [0.0, 0.0]])


@pytest.mark.parametrize("solver", [s for s in ("highs", "clarabel", "scipy") if s in fa.available_solvers("lp")])
def test_lp_backends_agree(solver):
    rng = np.random.default_rng(11)
    d = rng.uniform(0, 1, size=(12, 3))
    d[rng.uniform(size=d.shape) < 0.3] = 0.0
    d[d.sum(axis=1) == 0, 0] = 0.5
    c = rng.uniform(0, 0.05, size=(12, 3))
    inst = fa.Instance(d, capacities=[2, 3, 1])
    a = fa.sdrf(inst, c)
    b = fa.sdrf(inst, c, method="lp", solver=solver)
    assert b.solver == solver and b.stats["n_solves"] >= 1
    np.testing.assert_allclose(b.allocation, a.allocation, rtol=1e-6, atol=1e-7)
