"""proofs_check speaks fairalloc's one status vocabulary (issue 15 item 4): an undecided verdict says
why with a fa.Status, and the programs behind the checks carry the backend's (HiGHS's) status."""

import numpy as np
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


def test_programs_carry_the_backends_status():
    # the programs go through fairalloc's one LP/MILP route (HiGHS): its status, never a violation.
    # x0 + x1 <= 1 with both >= 1 (by hand: infeasible), as an LP and as a MILP
    for integrality in (None, [1, 1]):
        out = _programs._lp([1.0, 1.0], [[1.0, 1.0]], [1.0], [(1, None), (1, None)], integrality=integrality)
        assert out.status is fa.Status.INFEASIBLE and not out.ok
        assert out.message.startswith("milp: " if integrality else "lp: ")
    # unbounded: minimise -x with x >= 0 and nothing above
    out = _programs._lp([-1.0], np.zeros((0, 1)), [], [(0, None)])
    assert out.status is fa.Status.UNBOUNDED


def test_programs_report_fa_status():
    # one resource, two users with utilities 1/2 and 1/4 of demands 1/2 and 1: usage 1/4 + 1/4 = 1/2,
    # so the strong Pareto LP raises the sum to 1 + 1/2 (user 0 to 1, then user 1 to 1/2): proven optimal.
    out = _programs.dominating_pooled([[0.5], [1.0]], [0.5, 0.25])
    assert out.status is fa.Status.OPTIMAL and out.value == pytest.approx(1.5)
