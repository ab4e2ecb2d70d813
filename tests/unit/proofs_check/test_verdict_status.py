"""proofs_check speaks fairalloc's one status vocabulary (issue 15 item 4): an undecided verdict says
why with a fa.Status, and the programs behind the checks map scipy's codes onto it."""

from types import SimpleNamespace

import pytest

import fairalloc as fa
from proofs_check import _programs, axioms
from proofs_check.verdict import Verdict


def test_decided_verdicts_carry_no_status_undecided_ones_do():
    assert Verdict(True).status is None and Verdict(False, {"x": 1}).status is None
    assert Verdict(None).status is fa.Status.ERROR                     # undecided, reason not given
    v = Verdict(None, None, "MILP not solved", status="not_solved")
    assert v.status is fa.Status.NOT_SOLVED and v.to_dict()["status"] == "not_solved"
    assert "undecided (not_solved)" in repr(v)
    with pytest.raises(ValueError, match="decided verdict"):
        Verdict(True, status=fa.Status.OPTIMAL)


def test_failed_mechanism_gives_its_status_to_the_verdict():
    def infeasible(instance, *args, **kwargs):
        return fa.AllocationResult(status=fa.Status.INFEASIBLE, mechanism="fake", method="x", message="no")

    inst = fa.Instance([[1, 2], [2, 1]])
    v = axioms.find_profitable_misreport(infeasible, inst, user=0)
    assert v.holds is None and v.status is fa.Status.INFEASIBLE
    v = axioms.is_population_monotone(infeasible, inst)
    assert v.holds is None and v.status is fa.Status.INFEASIBLE


@pytest.mark.parametrize("code,x,status", [
    (1, None, fa.Status.NOT_SOLVED),       # scipy: iteration or time limit, no solution
    (1, [0.0], fa.Status.FEASIBLE),        # limit with an incumbent: feasible, optimality not proven
    (2, None, fa.Status.INFEASIBLE),
    (3, None, fa.Status.UNBOUNDED),
    (4, None, fa.Status.ERROR),
])
def test_scipy_codes_map_to_fa_status(code, x, status):
    # codes as documented by scipy.optimize.linprog / milp (0 optimal, 1 limit, 2 infeasible, 3 unbounded, 4 other)
    out = _programs._not_optimal(SimpleNamespace(status=code, x=x, message="m"), "milp")
    assert out.status is status and not out.ok and out.message == f"milp status {code}: m"


def test_programs_report_fa_status():
    # one resource, two users with utilities 1/2 and 1/4 of demands 1/2 and 1: usage 1/4 + 1/4 = 1/2,
    # so the strong Pareto LP raises the sum to 1 + 1/2 (user 0 to 1, then user 1 to 1/2): proven optimal.
    out = _programs.dominating_pooled([[0.5], [1.0]], [0.5, 0.25])
    assert out.status is fa.Status.OPTIMAL and out.value == pytest.approx(1.5)
