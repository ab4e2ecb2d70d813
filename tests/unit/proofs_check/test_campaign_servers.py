"""Campaigns on task instances (servers): phase B only has to name the mechanism of a row.

The rows of the indivisible DRF variants are not registered yet (phase B); here they are pointed at
the greedy schedulers of ``fairalloc.scheduling`` for the duration of a test, to show that cases,
checks, shrinking and replay work for the servers setting.
"""

from __future__ import annotations

import pytest

from proofs_check import claims
from proofs_check.campaign import run_cell
from proofs_check.claims import Domain, MechanismInfo, claims_for
from proofs_check.replay import replay

DOMAIN = Domain(setting="servers", n_agents=(2, 3), n_resources=(1, 2), n_servers=(1, 2))


@pytest.fixture
def register(monkeypatch):
    def _register(key, target, **kwargs):
        old = claims.MECHANISMS[key]
        monkeypatch.setitem(claims.MECHANISMS, key, MechanismInfo(key, old.label, target, DOMAIN, old.source,
                                                                  kwargs=kwargs, dynamics=None))
    return _register


@pytest.mark.parametrize("key, kwargs, axiom, variant", [
    ("drf_indivisible_stop", {"blocking": "stop"}, "bottleneck", "non-wasteful"),   # F: stops at a misfit
    ("drf_indivisible_stop", {"blocking": "stop"}, "ef1", "gain"),                  # F
    ("drf_indivisible_skip", {"blocking": "skip"}, "si", "plain"),                  # F
])
def test_f_cells_on_servers_found_shrunk_and_replayed(register, key, kwargs, axiom, variant):
    register(key, "fairalloc.scheduling.drf_greedy", **kwargs)
    claim = [c for c in claims_for(key, axiom) if c.variant == variant][0]
    assert claim.expected == "F"
    rep = run_cell(claim, examples=200, seconds=60, seed=0)
    assert rep.status == "agrees", rep.reason
    inst = rep.verdict.witness["case"]["instance"]
    assert len(inst["tasks"]) <= 3 and len(inst["cluster"]["capacities"]) <= 2
    assert replay(rep.verdict.witness).confirmed


def test_t_cell_on_servers_holds(register):
    # skip users whose next task does not fit: never wasteful (axioms.md: T)
    register("drf_indivisible_skip", "fairalloc.scheduling.drf_greedy", blocking="skip")
    claim = [c for c in claims_for("drf_indivisible_skip", "bottleneck") if c.variant == "non-wasteful"][0]
    rep = run_cell(claim, examples=60, seconds=60, seed=0)
    assert claim.expected == "T" and rep.status == "agrees" and rep.examples == 60


def test_rows_are_skipped_until_registered():
    rep = run_cell(claims_for("drf_indivisible_stop", "ef")[0], examples=5)
    assert rep.status == "skipped" and "phase B" in rep.reason
