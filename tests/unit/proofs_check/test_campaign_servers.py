"""Campaigns on task instances (servers) and time-varying instances: the phase-B rows of the table.

The rows point at fairalloc's mechanisms (greedy schedulers, exact MILPs, divisible TSF); these tests
check the plumbing (which callable, which domain, which reading of each claim) on a few cases. The
F and T cells themselves are searched in ``tests/property``.
"""

from __future__ import annotations

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.scheduling import cdrf_greedy, drf_greedy
from proofs_check import claims
from proofs_check.campaign import run_cell
from proofs_check.cases import Case
from proofs_check.checks import check_case
from proofs_check.claims import MECHANISMS, claim_domain, claims_for, scope_of


def _claim(key, axiom, variant):
    return [c for c in claims_for(key, axiom) if c.variant == variant][0]


def test_rows_name_fairalloc_mechanisms():
    ti = fa.TaskInstance([[9, 18]], [[1, 4], [3, 1]], tasks=[10, 10])
    stop = MECHANISMS["drf_indivisible_stop"].resolve()(ti)
    assert np.array_equal(stop.tasks, drf_greedy(ti, blocking="stop").tasks)
    assert MECHANISMS["drf_indivisible_skip"].kwargs == {"blocking": "skip"}
    assert np.array_equal(MECHANISMS["sequential_minmax"].resolve()(ti).tasks, cdrf_greedy(ti).tasks)
    assert MECHANISMS["tsf"].divisible and not MECHANISMS["tsf_integer"].divisible
    assert MECHANISMS["tsf_integer"].resolve()(ti).method == "milp"
    tv = fa.TimeVaryingInstance([[2]], [[1], [1]], arrivals=[[2, 0], [1, 1]], durations=[1, 1])
    assert MECHANISMS["tvtsf_milp"].resolve()(tv).method == "milp-online" or \
        MECHANISMS["tvtsf_milp"].kwargs["method"] == "milp-online"
    assert MECHANISMS["tvtsf_offline"].kwargs["method"] == "milp"
    assert MECHANISMS["tvtsf_greedy"].resolve()(tv).method == "greedy"
    # DRFH, dynamic DRF and bottleneck max fairness stay unimplemented, with their reason
    for key in ("drfh", "dynamic_drf", "bottleneck_max"):
        assert not MECHANISMS[key].implemented and "not implemented" in MECHANISMS[key].why_not


def test_claim_domains_and_scopes():
    assert claim_domain(_claim("tsf", "ef", "no-constraints")).placement is False
    assert claim_domain(_claim("tsf", "ef", "with-constraints")).placement is True
    assert claim_domain(_claim("tvtsf_milp", "ef1", "cumulative-constrained-remove")).placement is True
    assert scope_of("per-slot-gain") == "per-slot" and scope_of("cumulative-remove") == "cumulative"
    assert claim_domain(_claim("tvtsf_greedy", "po", "cumulative")).setting == "time-varying"


def test_check_case_reads_each_time_varying_claim_in_its_scope():
    # one server <2>, one user, 2 unit tasks in slot 0 over 2 slots: the offline program may start
    # them in either slot; starting one per slot is per-slot wasteful but fine over the horizon.
    tv = fa.TimeVaryingInstance([[2]], [[1]], arrivals=[[2, 0]], durations=[1])
    case = Case(tv)
    for key, axiom, variant in [("tvtsf_greedy", "bottleneck", "per-slot"), ("tvtsf_greedy", "bottleneck", "cumulative"),
                                ("tvtsf_milp", "po", "per-slot"), ("tvtsf_offline", "po", "cumulative")]:
        v = check_case(_claim(key, axiom, variant), case)
        assert v.holds is True and v.variant == variant, (key, variant, v)


def test_repeated_game_is_skipped_on_servers_only():
    rep = run_cell(_claim("tsf", "sp-repeated", "repeated"), examples=3)
    assert rep.status == "skipped" and "no repeated game on servers" in rep.reason
    rep = run_cell(_claim("tvtsf_greedy", "sp-repeated", "repeated"), examples=3, budget=5)
    assert rep.status in ("violation found", "none found") and rep.examples >= 1


@pytest.mark.parametrize("key", ["drfh", "dynamic_drf"])
def test_unimplemented_rows_are_skipped_with_reason(key):
    rep = run_cell(claims_for(key)[0], examples=3)
    assert rep.status == "skipped" and "not implemented" in rep.reason


def test_findings_are_t_cells_of_implemented_rows():
    for key, why in claims.FINDINGS.items():
        mech, axiom, variant = key.split("/")
        c = _claim(mech, axiom, variant)
        assert c.expected == "T" and MECHANISMS[mech].implemented and why
