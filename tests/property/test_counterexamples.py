"""Every F cell of axioms.md on the implemented mechanisms: the search finds a violation.

Budget per cell: at most ``EXAMPLES`` cases drawn by hypothesis (seed 0) and ``SECONDS`` seconds
(the search stops there and the test fails). The witness is then shrunk and must be small (<= 3 users,
<= 2 resources, <= 3 periods) and re-verify independently (:func:`proofs_check.replay.replay`: the
mechanism re-run, the utilities recomputed in exact rational arithmetic).
"""

from __future__ import annotations

import pytest

from proofs_check.campaign import run_cell
from proofs_check.claims import implemented_claims
from proofs_check.replay import replay

EXAMPLES = 500
SECONDS = 90.0
F_CLAIMS = [c for c in implemented_claims() if c.expected == "F"]


@pytest.mark.parametrize("claim", F_CLAIMS, ids=lambda c: c.key)
def test_search_finds_small_replayable_counterexample(claim):
    rep = run_cell(claim, examples=EXAMPLES, seconds=SECONDS, seed=0)
    assert rep.status == "agrees", f"{claim.key}: no violation in {rep.examples} examples ({rep.reason})"
    assert rep.examples <= EXAMPLES
    w = rep.verdict.witness
    size = rep.verdict.witness["case"]
    if "game" in size:
        g = size["game"]
        n, m, t = len(g["tasks"][0]), len(g["capacities"]), len(g["tasks"])
    else:
        n, m, t = len(size["instance"]["demands"]), len(size["instance"]["capacities"]), 1
    assert n <= 3 and m <= 2 and t <= 3, f"witness too large: {n} users, {m} resources, {t} periods"
    r = replay(w)
    assert r.confirmed, f"{claim.key}: witness does not replay: {r.detail}"


def test_f_cells_cover_the_divisible_foils():
    keys = {c.key for c in F_CLAIMS}
    assert {"sdrf/sp-repeated/repeated", "ceei/sp-stage/stage", "asset/si/plain", "drf/rm/plain",
            "drf_lex/pm/plain", "sdrf/pm/plain"} <= keys
