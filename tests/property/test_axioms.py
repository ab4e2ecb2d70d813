"""Every T cell of axioms.md on the implemented mechanisms holds on random instances.

One hypothesis property test per claim (rows of :mod:`proofs_check.claims` x the claim's domain
strategy, ``ci`` profile: bounded and derandomised). A failure here is either a checker bug or a
finding against axioms.md: report it with the printed witness, do not weaken the checker.

T cells that the campaigns refute are listed in :data:`proofs_check.claims.FINDINGS` (with their
explanation); they are not asserted here (that would assert something false) but reproduced as
findings in ``tests/property/test_counterexamples.py`` and by hand in
``tests/unit/proofs_check/test_phase_b_searches.py``.

Cost: the rows whose mechanism solves LPs or MILPs (divisible and integer TSF, the TV-TSF programs)
take 10-50 ms per run; their property tests draw fewer cases in the default run
(:data:`EXACT_EXAMPLES`, lies :data:`EXACT_BUDGET`) and the full ``ci`` count under ``--runslow``.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proofs_check.campaign import cell_strategy, skip_reason
from proofs_check.checks import check_case
from proofs_check.claims import FINDINGS, Domain, implemented_claims, mechanism
from proofs_check.strategies import cases

T_CLAIMS = [c for c in implemented_claims() if c.expected == "T" and c.key not in FINDINGS and not skip_reason(c)]
#: searches are the expensive cells; fewer lies per user keep the suite within its time budget
BUDGET = {"sp-stage": 40, "sp-repeated": 40}
#: rows whose mechanism is an LP or MILP
EXACT = {"tsf", "tsf_unfloored", "tsf_integer", "tvtsf_milp", "tvtsf_offline"}
EXACT_EXAMPLES = 15
EXACT_LIE_EXAMPLES = 4
EXACT_BUDGET = 8
#: pooled forms of the production policies (fairalloc.fairshare.pooled): their lie searches run fewer
#: cases in the default run (most of these rows are weighted DRF, whose own rows run the full count;
#: the full count under ``--runslow``)
PRODUCTION = {"slurm_classic", "slurm_fair_tree", "slurm_max_tres", "htcondor", "kueue_drs", "yarn_drf", "mesos_drf",
              "volcano_proportion", "volcano_drf", "volcano_hdrf", "kueue_afs"}
PRODUCTION_LIE_EXAMPLES = 6
PRODUCTION_BUDGET = 20


def _run(claim, case, budget=None):
    v = check_case(claim, case, seed=0, budget=budget or BUDGET.get(claim.axiom))
    assert v.holds is True, f"{claim.key} expected T: {v.detail}\nwitness: {v.to_json()}"


def _ids(c):
    return c.key


CHEAP = [c for c in T_CLAIMS if c.mechanism not in EXACT]
COSTLY = [c for c in T_CLAIMS if c.mechanism in EXACT]


@pytest.mark.parametrize("claim", [c for c in CHEAP if not c.axiom.startswith("sp-")], ids=_ids)
@given(data=st.data())
def test_theorem_holds(claim, data):
    _run(claim, data.draw(cell_strategy(claim)))


@pytest.mark.parametrize("claim", [c for c in CHEAP if c.axiom.startswith("sp-") and c.mechanism not in PRODUCTION],
                         ids=_ids)
@given(data=st.data())
def test_no_profitable_lie(claim, data):
    _run(claim, data.draw(cell_strategy(claim)))


@pytest.mark.parametrize("claim", [c for c in CHEAP if c.axiom.startswith("sp-") and c.mechanism in PRODUCTION],
                         ids=_ids)
@settings(max_examples=PRODUCTION_LIE_EXAMPLES)
@given(data=st.data())
def test_no_profitable_lie_production_policies(claim, data):
    _run(claim, data.draw(cell_strategy(claim)), budget=PRODUCTION_BUDGET)


@pytest.mark.slow
@pytest.mark.parametrize("claim", [c for c in CHEAP if c.axiom.startswith("sp-") and c.mechanism in PRODUCTION],
                         ids=_ids)
@given(data=st.data())
def test_no_profitable_lie_production_policies_full_profile(claim, data):
    _run(claim, data.draw(cell_strategy(claim)))


@pytest.mark.parametrize("claim", [c for c in COSTLY if not c.axiom.startswith("sp-")], ids=_ids)
@settings(max_examples=EXACT_EXAMPLES)
@given(data=st.data())
def test_theorem_holds_exact_programs(claim, data):
    _run(claim, data.draw(cell_strategy(claim)))


@pytest.mark.parametrize("claim", [c for c in COSTLY if c.axiom.startswith("sp-")], ids=_ids)
@settings(max_examples=EXACT_LIE_EXAMPLES)
@given(data=st.data())
def test_no_profitable_lie_exact_programs(claim, data):
    _run(claim, data.draw(cell_strategy(claim)), budget=EXACT_BUDGET)


@pytest.mark.slow
@pytest.mark.parametrize("claim", COSTLY, ids=_ids)
@given(data=st.data())
def test_exact_programs_full_profile(claim, data):
    _run(claim, data.draw(cell_strategy(claim)))


@pytest.mark.parametrize("claim", [c for c in T_CLAIMS if c.mechanism in ("drf", "drf_lex", "sdrf")
                                   and c.axiom in ("si", "ef", "po", "bottleneck")], ids=_ids)
@settings(max_examples=25)
@given(data=st.data())
def test_theorem_holds_at_extreme_magnitudes(claim, data):
    """Capacities and demands of each resource scaled by 10^-6 .. 10^6: the same instance in other units."""
    info = mechanism(claim.mechanism)
    _run(claim, data.draw(cases(info.domain, moderate=False)))


def test_there_are_t_cells_for_every_implemented_mechanism():
    mechs = {c.mechanism for c in T_CLAIMS}
    assert mechs == {"max_min", "weighted_max_min", "stateful_max_min", "sdrf", "drf", "drf_lex",
                     "weighted_drf", "asset", "ceei", "drf_indivisible_skip", "sequential_minmax", "tsf",
                     "tsf_unfloored", "tsf_integer", "tvtsf_milp", "tvtsf_greedy", "tvtsf_offline"} | (
        PRODUCTION - {"volcano_proportion"})  # no axiom holds for it: PO and no-waste F, the rest F or open
    assert isinstance(mechanism("drf").domain, Domain)
    # the phase-B T cells: non-wastefulness of the skipping greedies, TV-TSF per slot and over the horizon
    keys = {c.key for c in T_CLAIMS}
    assert {"drf_indivisible_skip/bottleneck/non-wasteful", "sequential_minmax/bottleneck/bottleneck",
            "tvtsf_milp/po/per-slot", "tvtsf_greedy/bottleneck/per-slot", "tvtsf_offline/po/cumulative",
            "tsf/po/strong", "tsf_unfloored/ef/with-constraints"} <= keys
