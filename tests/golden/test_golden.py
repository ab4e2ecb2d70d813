"""Paper and hand-computed examples, each solved by every method and every installed LP backend.

Cases live in ``cases/*.json`` with their source (paper section or a written-out hand computation).
The expected numbers were computed by hand, never by fairalloc.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import fairalloc as fa

CASES = sorted((Path(__file__).parent / "cases").glob("*.json"))
LP_SOLVERS = [s for s in ("highs", "clarabel") if s in fa.available_solvers("lp")]
METHODS = [("waterfill", None)] + [("lp", s) for s in LP_SOLVERS]


def _load(path: Path) -> dict:
    case = json.loads(path.read_text())
    assert case["source"], f"{path.name} must cite its source"
    return case


@pytest.mark.parametrize("method,solver", METHODS, ids=lambda v: str(v))
@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_golden(path, method, solver):
    case = _load(path)
    inst = fa.Instance.from_dict(case["instance"])
    mech = getattr(fa, case["mechanism"])
    kw = {"method": method}
    if solver:
        kw["solver"] = solver
    if "commitments" in case:
        r = mech(inst, case["commitments"], **kw)
    else:
        r = mech(inst, **kw)
    assert r.status is fa.Status.OPTIMAL, r
    exp = case["expected"]
    tol = dict(rtol=1e-7, atol=1e-9) if method == "waterfill" else dict(rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(r.allocation, exp["allocation"], **tol)
    if "dominant_shares" in exp:
        np.testing.assert_allclose(r.dominant_shares, exp["dominant_shares"], **tol)
    if "level" in exp:
        np.testing.assert_allclose(r.level, exp["level"], **tol)


def test_stateful_maxmin_guarantee_of_the_paper():
    """SDRF Section 4.3: fair share 3 CPUs, commitment 1 CPU -> entitled to at least 2 CPUs,
    whatever the other users' commitments and demands (checked over a grid of them)."""
    rng = np.random.default_rng(7)
    for _ in range(200):
        others = rng.uniform(0, 0.3, size=3)
        demands = np.concatenate([[12.0], rng.uniform(0.5, 12, size=3)])
        r = fa.max_min(fa.Instance(demands, capacities=12), commitments=np.concatenate([[1 / 12], others]))
        assert r.allocation[0, 0] >= 2.0 - 1e-9
