"""Axiom predicates on hand-made pooled allocations with known answers (every number worked by hand)."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fairalloc as fa
from fairalloc.errors import InvalidInstanceError
from proofs_check import axioms
from proofs_check import strategies as S

PREDICATES = {
    "si": axioms.has_sharing_incentive,
    "ef": axioms.is_envy_free,
    "po-strong": lambda i, a, **k: axioms.is_pareto_efficient(i, a, variant="strong", **k),
    "po-weak": lambda i, a, **k: axioms.is_pareto_efficient(i, a, variant="weak", **k),
    "po-lp": lambda i, a, **k: axioms.is_pareto_efficient(i, a, method="lp", **k),
    "bottleneck": axioms.is_bottleneck,
    "non-wasteful": axioms.is_non_wasteful,
}


@pytest.fixture
def drf_paper():
    """DRF paper (Ghodsi et al. 2011, Section 4): 9 CPU, 18 GB; A = <1, 4>, B = <3, 1> per task.

    DRF gives A 3 tasks = <3, 12> and B 2 tasks = <6, 2>: CPU 9 (full), memory 14.
    """
    inst = fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[100, 100], capacities=[9, 18])
    return inst, np.array([[3.0, 12.0], [6.0, 2.0]])


@pytest.mark.parametrize("name", sorted(PREDICATES))
@pytest.mark.parametrize("exact", [False, True])
def test_silent_on_drf_paper_example(drf_paper, name, exact):
    inst, alloc = drf_paper
    if name == "po-lp" and exact:
        pytest.skip("the LP works in floats")
    v = PREDICATES[name](inst, alloc, exact=exact)
    assert v.holds is True, v.detail
    assert v.witness is None


def test_drf_result_is_silent_too(drf_paper):
    inst, _ = drf_paper
    r = fa.drf(inst)
    for name, pred in PREDICATES.items():
        assert pred(inst, r).holds is True, name


def test_envious_pair_exact():
    # one resource, both want everything; user 0 holds 1/3, user 1 holds 2/3: u_0(A_1) = 2/3 > 1/3
    inst = fa.Instance([[1.0], [1.0]])
    v = axioms.is_envy_free(inst, [["1/3"], ["2/3"]], exact=True)
    assert v.holds is False
    w = v.witness
    assert (w["envious"], w["envied"]) == (0, 1)
    assert w["u_own"] == "1/3" and w["u_other"] == "2/3" and w["excess"] == "1/3"
    json.dumps(w)                                           # JSON-serialisable
    # and the envy is not an SI problem for user 1, but user 0 is below 1/2
    si = axioms.has_sharing_incentive(inst, [["1/3"], ["2/3"]], exact=True)
    assert si.holds is False and si.witness["user"] == 0 and si.witness["reference"] == "1/2"


def test_envy_with_different_vectors():
    # demands A = <1, 1>, B = <1, 0> (unit capacities); A holds <0.25, 0.25>, B holds <0.5, 0>.
    # u_A(A_B) = min over A's needed resources: r1 gives 0/1 = 0 -> A does not envy B.
    # u_B(A_A) = 0.25 (B needs only r0) < u_B(A_B) = 0.5 -> nobody envies.
    inst = fa.Instance([[1.0, 1.0], [1.0, 0.0]])
    assert axioms.is_envy_free(inst, [[0.25, 0.25], [0.5, 0.0]]).holds is True
    # B holds <0.2, 0> and A <0.5, 0.5>: u_B(A_A) = 0.5 > 0.2 -> B envies A by 0.3
    v = axioms.is_envy_free(inst, [[0.5, 0.5], [0.2, 0.0]])
    assert v.holds is False and (v.witness["envious"], v.witness["envied"]) == (1, 0)
    assert v.margin == pytest.approx(-0.3)


def test_weighted_envy_and_sharing_incentive():
    # weights 1 and 3, one resource, both want everything; A gets 1/4, B 3/4 (weighted fair split).
    inst = fa.Instance([[1.0], [1.0]], weights=[1, 3])
    alloc = [["1/4"], ["3/4"]]
    assert axioms.has_sharing_incentive(inst, alloc, variant="weighted", exact=True).holds is True
    assert axioms.is_envy_free(inst, alloc, variant="weighted", exact=True).holds is True
    # plain: A gets 1/4 < 1/2 and envies B (3/4 > 1/4)
    assert axioms.has_sharing_incentive(inst, alloc, exact=True).holds is False
    assert axioms.is_envy_free(inst, alloc, exact=True).holds is False
    # weighted EF for A: u_A(A_B) * w_A / w_B = 3/4 * 1/3 = 1/4 <= 1/4: boundary, holds exactly


def test_commitment_adjusted_sharing_incentive():
    # commitments 0.2 and 0 on one resource: sum_j max(0, L0 - c_j) = 1 gives L0 = 0.6, entitlements
    # 0.4 and 0.6 (axioms.md); SDRF's own doc example gives exactly <0.4>, <0.6>.
    inst = fa.Instance([[1.0], [1.0]])
    c = [["1/5"], [0]]
    v = axioms.has_sharing_incentive(inst, [["2/5"], ["3/5"]], variant="commitment", commitments=c, exact=True)
    assert v.holds is True, v.detail
    v = axioms.has_sharing_incentive(inst, [["7/20"], ["13/20"]], variant="commitment", commitments=c, exact=True)
    assert v.holds is False and v.witness["user"] == 0 and v.witness["reference"] == "2/5"
    # the plain variant fails for the SDRF allocation (0.4 < 0.5): SDRF is not SI by design
    assert axioms.has_sharing_incentive(inst, fa.sdrf(inst, commitments=[[0.2], [0.0]])).holds is False


def test_commitment_adjusted_envy():
    # user 0 (commitment 0.2) holds 0.4, user 1 (commitment 0) holds 0.6: plain envy 0.6 > 0.4, but
    # c_1 + D_0 u_0(A_1) = 0 + 1 * 0.6 = 0.6 <= c_0 + s_0 = 0.2 + 0.4: adjusted EF holds (equality).
    inst = fa.Instance([[1.0], [1.0]])
    c = [["1/5"], [0]]
    assert axioms.is_envy_free(inst, [["2/5"], ["3/5"]], exact=True).holds is False
    assert axioms.is_envy_free(inst, [["2/5"], ["3/5"]], variant="commitment", commitments=c, exact=True).holds
    # 0.3 / 0.7: 0 + 0.7 > 0.2 + 0.3 = 0.5 -> violated by 1/5
    v = axioms.is_envy_free(inst, [["3/10"], ["7/10"]], variant="commitment", commitments=c, exact=True)
    assert v.holds is False and v.witness["excess"] == "1/5"
    with pytest.raises(ValueError, match="commitments"):
        axioms.is_envy_free(inst, [[0.4], [0.6]], variant="commitment")


def test_pareto_dominated_allocation():
    # one resource, two users wanting 0.5 each, given 0.25 each: user 0 can take 0.5 more (the slack)
    inst = fa.Instance([[0.5], [0.5]])
    for method in ("certificate", "lp"):
        v = axioms.is_pareto_efficient(inst, [[0.25], [0.25]], method=method)
        assert v.holds is False, method
        y = np.asarray(v.witness["improved_utilities"], float)
        assert np.all(y >= 0.5 - 1e-12) and y.sum() > 1.0 + 0.5 - 1e-9
    w = axioms.is_pareto_efficient(inst, [[0.25], [0.25]], variant="weak")
    assert w.holds is False and w.witness["gain"] == pytest.approx(0.5)


def test_strong_but_not_weak_violation():
    # A = <1, 0> (wants 2x capacity), C = <0, 2>: A holds all of r0 (saturated, A blocked),
    # C holds <0, 0.5> with r1 half empty: C alone can gain 0.25 of its demand -> strong PO fails;
    # weak PO holds: A cannot gain, so no allocation improves *every* unsatisfied user.
    inst = fa.Instance([[2.0, 0.0], [0.0, 2.0]])
    alloc = [[1.0, 0.0], [0.0, 0.5]]
    v = axioms.is_pareto_efficient(inst, alloc)
    assert v.holds is False and v.witness["improved_users"] == [1]
    assert v.witness["gain"] == pytest.approx(0.25)
    assert axioms.is_pareto_efficient(inst, alloc, variant="weak").holds is True
    assert axioms.is_pareto_efficient(inst, alloc, variant="weak", method="lp").holds is True
    assert axioms.is_bottleneck(inst, alloc).holds is False


def test_wasteful_allocation():
    # user 0 needs only r0 but holds 0.3 of r1; r0 is full and both need it: bottleneck holds,
    # non-wastefulness fails (the bundle is not proportional to the demand)
    inst = fa.Instance([[1.0, 0.0], [1.0, 1.0]])
    alloc = [[0.5, 0.3], [0.5, 0.5]]
    assert axioms.is_bottleneck(inst, alloc).holds is True
    v = axioms.is_non_wasteful(inst, alloc)
    assert v.holds is False and (v.witness["user"], v.witness["resource"]) == (0, 1)
    assert v.witness["reason"] == "bundle not proportional to the demand"


def test_bottleneck_violation():
    # both need both resources, each holds 0.2 of each: nothing saturated
    inst = fa.Instance([[1.0, 1.0], [1.0, 1.0]])
    v = axioms.is_bottleneck(inst, [[0.2, 0.2], [0.2, 0.2]])
    assert v.holds is False and v.witness["violators"] == [0, 1]
    assert axioms.is_non_wasteful(inst, [[0.2, 0.2], [0.2, 0.2]]).holds is False


def test_satisfied_user_envies_nobody_even_weighted():
    # user 0 (weight 2) wants 0.3 and has it; user 1 (weight 1) holds 0.7. u_0(A_1) = 1 (capped), and
    # 1 * 2/1 > 1 would be "weighted envy" if satisfied users could envy: they cannot.
    inst = fa.Instance([[0.3], [1.0]], weights=[2, 1])
    assert axioms.is_envy_free(inst, [[0.3], [0.7]], variant="weighted").holds is True


@pytest.mark.parametrize("alloc, match", [
    ([[0.5, 0.5]], "shape"),
    ([[0.6, 0.0], [0.6, 0.0]], "capacity"),
    ([[-0.1, 0.0], [0.5, 0.5]], ">= 0"),
    ([[np.nan, 0.0], [0.5, 0.5]], "finite"),
])
def test_invalid_allocations_raise(alloc, match):
    inst = fa.Instance([[1.0, 1.0], [1.0, 1.0]])
    for pred in PREDICATES.values():
        with pytest.raises(InvalidInstanceError, match=match) as exc:
            pred(inst, alloc)
        assert exc.value.argument == "allocation"


def test_over_capacity_names_index_and_value():
    inst = fa.Instance([[1.0, 1.0], [1.0, 1.0]], capacities=[2, 1])
    with pytest.raises(InvalidInstanceError) as exc:
        axioms.is_envy_free(inst, [[1.0, 0.7], [1.0, 0.5]])
    assert exc.value.index == (1,) and exc.value.value == pytest.approx(1.2)


def test_exact_mode_is_strict_and_float_mode_tolerant():
    # 1/3 + 2/3 in floats: 0.333..33 + 0.666..67; a hair of "envy" below atol is not reported
    inst = fa.Instance([[1.0], [1.0]])
    assert axioms.is_envy_free(inst, [[0.5 - 1e-12], [0.5]]).holds is True           # default atol 1e-9
    assert axioms.is_envy_free(inst, [[0.5 - 1e-12], [0.5]], atol=0.0).holds is False
    assert axioms.is_envy_free(inst, [["1/2"], ["1/2"]], exact=True).holds is True
    assert axioms.is_envy_free(inst, [[0.5 - 1e-12], [0.5]], exact=True).holds is False
    # 1/3 in floats is below 1/3: exactly, user 0 is short of the fair share 1/2 ... and of 1/3 + 1/3
    v = axioms.has_sharing_incentive(fa.Instance([[1.0]] * 3), [[1 / 3]] * 3, exact=True)
    assert v.holds is False and Fraction(v.witness["shortfall"]) < Fraction(1, 10**15)


def test_variant_names_are_checked():
    inst = fa.Instance([[1.0], [1.0]])
    with pytest.raises(InvalidInstanceError, match="variant"):
        axioms.is_envy_free(inst, [[0.5], [0.5]], variant="fancy")


def test_instance_type_is_checked():
    with pytest.raises(TypeError):
        axioms.is_envy_free([[1.0]], [[0.5]])


def test_verdict_is_truthy_only_when_it_holds():
    inst = fa.Instance([[1.0], [1.0]])
    assert bool(axioms.is_envy_free(inst, [[0.5], [0.5]]))
    assert not bool(axioms.is_envy_free(inst, [[0.2], [0.8]]))
    assert "VIOLATED" in repr(axioms.is_envy_free(inst, [[0.2], [0.8]]))


@settings(max_examples=60)
@given(data=st.data())
def test_pareto_certificate_agrees_with_the_lp(data):
    """The exact certificate (bottleneck of minimal bundles) and axioms.md's LP give the same verdicts."""
    inst = data.draw(S.pooled_instances(n_agents=(1, 4), n_resources=(1, 3)))
    alloc = data.draw(S.pooled_allocations(inst, waste=data.draw(st.booleans()), saturate=data.draw(st.booleans())))
    for variant in ("strong", "weak"):
        cert = axioms.is_pareto_efficient(inst, alloc, variant=variant)
        lp = axioms.is_pareto_efficient(inst, alloc, variant=variant, method="lp", atol=1e-7)
        if cert.holds is False and -cert.margin < 1e-6:
            continue                                        # within the LP solver's tolerance
        assert cert.holds == lp.holds, (variant, cert.detail, lp.detail)
