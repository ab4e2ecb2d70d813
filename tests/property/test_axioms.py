"""Every T cell of axioms.md on the implemented divisible mechanisms holds on random instances.

One hypothesis property test per claim (rows of :mod:`proofs_check.claims` x the claim's domain
strategy, ``ci`` profile: bounded and derandomised). A failure here is either a checker bug or a
finding against axioms.md: report it with the printed witness, do not weaken the checker.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proofs_check.campaign import cell_strategy
from proofs_check.checks import check_case
from proofs_check.claims import Domain, implemented_claims, mechanism
from proofs_check.strategies import cases

T_CLAIMS = [c for c in implemented_claims() if c.expected == "T"]
#: searches are the expensive cells; fewer lies per user keep the suite within its time budget
BUDGET = {"sp-stage": 40, "sp-repeated": 40}


def _run(claim, case):
    v = check_case(claim, case, seed=0, budget=BUDGET.get(claim.axiom))
    assert v.holds is True, f"{claim.key} expected T: {v.detail}\nwitness: {v.to_json()}"


@pytest.mark.parametrize("claim", [c for c in T_CLAIMS if not c.axiom.startswith("sp-")], ids=lambda c: c.key)
@given(data=st.data())
def test_theorem_holds(claim, data):
    _run(claim, data.draw(cell_strategy(claim)))


@pytest.mark.parametrize("claim", [c for c in T_CLAIMS if c.axiom.startswith("sp-")], ids=lambda c: c.key)
@given(data=st.data())
def test_no_profitable_lie(claim, data):
    _run(claim, data.draw(cell_strategy(claim)))


@pytest.mark.parametrize("claim", [c for c in T_CLAIMS if c.mechanism in ("drf", "drf_lex", "sdrf")
                                   and c.axiom in ("si", "ef", "po", "bottleneck")], ids=lambda c: c.key)
@settings(max_examples=25)
@given(data=st.data())
def test_theorem_holds_at_extreme_magnitudes(claim, data):
    """Capacities and demands of each resource scaled by 10^-6 .. 10^6: the same instance in other units."""
    info = mechanism(claim.mechanism)
    _run(claim, data.draw(cases(info.domain, moderate=False)))


def test_there_are_t_cells_for_every_implemented_mechanism():
    mechs = {c.mechanism for c in T_CLAIMS}
    assert mechs == {"max_min", "weighted_max_min", "stateful_max_min", "sdrf", "drf", "drf_lex",
                     "weighted_drf", "asset", "ceei"}
    assert isinstance(mechanism("drf").domain, Domain)
