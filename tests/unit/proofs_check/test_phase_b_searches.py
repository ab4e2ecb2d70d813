"""Lie searches on task and time-varying instances, the findings against T cells, and their replays.

Every expected number is a hand computation written out next to it.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fairalloc as fa
from fairalloc.scheduling import drf_greedy
from proofs_check import axioms, claims
from proofs_check._replay_tv import no_envy_free_placement
from proofs_check._tv_lies import tv_lies, true_tv_payoff
from proofs_check.misreports import find_profitable_misreport
from proofs_check.replay import replay
from proofs_check.strategies import task_instances
from proofs_check.variants import tsf_unfloored, unfloored_monopoly

STOP = claims.MECHANISMS["drf_indivisible_stop"].resolve()


def test_bundling_beats_drf_task_filling():
    # one server <4>, unit tasks; user 0 wants 3, user 1 wants 2. DRF filling: shares tie at 0 -> user 0,
    # then user 1, tie at 1/4 -> user 0, then user 1: 2 tasks each (either user order gives 2 and 2).
    # User 0 reports one task of 3 units instead: it goes first (share 0 = user 1's, lower index; or
    # after user 1's first task in the reversed order) and gets 3 units = 3 true tasks; user 1 the last unit.
    ti = fa.TaskInstance([[4]], [[1], [1]], tasks=[3, 2])
    assert drf_greedy(ti).tasks.ravel().tolist() == [2, 2]
    for fn in (STOP, claims.MECHANISMS["drf_indivisible_skip"].resolve()):
        v = find_profitable_misreport(fn, ti, user=0, families=("bundle",), rng=0)
        assert v.holds is False and v.witness["family"] == "bundle"
        assert v.witness["report"] == {"family": "bundle", "task_demands": [3.0], "tasks": 1}
        assert v.witness["gains_per_order"] == [1.0, 1.0] and v.witness["robustness"] == "pointwise"
        assert replay(json.loads(json.dumps(v.witness))).confirmed
    # the uniform reading (worst lie order vs best truthful order) agrees here: 3 vs 2 in both orders
    u = find_profitable_misreport(STOP, ti, user=0, families=("bundle",), rng=0, robustness="uniform")
    assert u.holds is False and u.witness["gain"] == 1.0


@pytest.mark.parametrize("method", ["greedy", "milp-online", "milp"])
def test_bundling_beats_tvtsf(method):
    # one server <4>, one slot, unit 1-slot tasks; user 0 submits 3, user 1 submits 2; h = 4 for both.
    # Truthfully: greedy alternates (ties to the lower index) and both programs equalise: 2 and 2.
    # User 0 reports one task of 3 units (h' = floor(4/3) = 1): greedy serves it first (share 0,
    # lower index; or second in the reversed order, still at share 0) and user 1 gets the last unit;
    # the programs choose between (1 bundle, 1 task) with shares (1, 1/4) and (0, 2) with (0, 1/2):
    # leximin takes the first. The bundle runs 3 of user 0's true tasks: 3 > 2.
    tv = fa.TimeVaryingInstance([[4]], [[1], [1]], arrivals=[[3], [2]], durations=[1, 1])
    fn = lambda inst: fa.tvtsf(inst, method=method, solver="highs") if method != "greedy" else fa.tvtsf(inst, method=method)  # noqa: E731
    assert fn(tv).tasks.sum(axis=(1, 2)).tolist() == [2, 2]
    v = find_profitable_misreport(fn, tv, user=0, families=("bundle",), rng=0)
    assert v.holds is False and v.witness["report"]["task_demands"] == [[3.0]]
    assert v.witness["report"]["arrivals"] == [1.0]
    assert v.witness["truthful_utility"] == 2.0 and v.witness["misreport_utility"] == 3.0
    w = dict(v.witness)
    w["mechanism"] = "tvtsf_greedy" if method == "greedy" else ("tvtsf_milp" if method == "milp-online" else "tvtsf_offline")
    assert replay(w).confirmed


def test_true_payoff_of_a_time_varying_report():
    # one server <6>; the user's true tasks need 2 units; it submits 1 task in slot 0 and 2 in slot 1.
    # It received one 6-unit bundle in slot 0 (3 tasks fit, only 1 exists yet: 1 runs) and one in
    # slot 1 (2 pending): 1 + 2 = 3; discounted by 1/2 per slot: 1 + 2/2 = 2.
    tv = fa.TimeVaryingInstance([[6]], [[2]], arrivals=[[1, 2]], durations=[1])
    starts = np.array([[1, 1]], float)
    assert true_tv_payoff(tv, 0, [[6], [6]], starts) == 3.0
    assert true_tv_payoff(tv, 0, [[6], [6]], starts, gamma=0.5) == 2.0


def test_slot_by_slot_lies_move_submissions():
    tv = fa.TimeVaryingInstance([[4]], [[1]], arrivals=[[2, 0, 1]], durations=[1])
    lies = list(tv_lies(tv, 0, ("hold", "idle"), np.random.default_rng(0)))
    arr = [lie["arrivals"].tolist() for lie in lies]
    assert [0.0, 2.0, 1.0] in arr            # idle in slot 0: its 2 tasks come one slot later
    assert [1.0, 1.0, 1.0] in arr            # hold back half of slot 0's tasks
    assert [2.0, 0.0, 0.0] in arr            # idle in the last slot: its task never comes
    assert all(lie["arrivals"].sum() <= 3 for lie in lies)


# -- findings (T cells of axioms.md that the checkers refute), each with its hand computation ------------
def test_finding_tsf_floors_break_sharing_incentive():
    # one server <4>; tasks of 3 and 4 units, one wanted each. Floored monopoly counts: h = 1 and 1,
    # so TSF equalises task counts: 3x + 4x = 4, x = 4/7. Half the server holds 2/3 of user 0's task.
    ti = fa.TaskInstance([[4]], [[3], [4]], tasks=[1, 1])
    r = fa.tsf(ti, solver="highs")
    assert r.tasks.ravel() == pytest.approx([4 / 7, 4 / 7], abs=1e-7)
    v = axioms.has_sharing_incentive(ti, r, divisible=True, atol=1e-6)
    assert v.holds is False and v.witness["reference"] == pytest.approx(2 / 3)
    assert replay(v.witness).confirmed
    # with unfloored counts (4/3 and 1): x0 / (4/3) = x1 and 3 x0 + 4 x1 = 4 -> x0 = 2/3, x1 = 1/2: SI holds
    assert tsf_unfloored(ti).tasks.ravel() == pytest.approx([2 / 3, 1 / 2], abs=1e-7)
    assert axioms.has_sharing_incentive(ti, tsf_unfloored(ti), divisible=True, atol=1e-6).holds is True


def test_finding_tsf_floors_break_envy_freeness_without_constraints():
    # one server <3>; tasks of 3 and 2 units: h = 1 and 1 (floors), x = 3/5 each. User 1 values user 0's
    # 9/5 units at 9/10 of its own tasks > 3/5. Unfloored (h = 1 and 3/2): x0 = 1/2, x1 = 3/4: no envy.
    ti = fa.TaskInstance([[3]], [[3], [2]], tasks=[1, 1])
    v = axioms.is_envy_free(ti, fa.tsf(ti, solver="highs"), divisible=True, placement="any", atol=1e-6)
    assert v.holds is False and v.witness["u_other"] == pytest.approx(0.9)
    assert replay(v.witness).confirmed                     # one LP: no placement of these totals is envy-free
    assert axioms.is_envy_free(ti, tsf_unfloored(ti), divisible=True, atol=1e-6).holds is True


def test_finding_tsf_floors_break_strategy_proofness():
    # one server <100>; user 0's tasks 34 units (h = floor(100/34) = 2), user 1's 10 (h = 10), many wanted.
    # Truth: x0/2 = x1/10 and 34 x0 + 10 x1 = 100 -> x0 = 100/84 = 1.1905. Reporting 33 units (h = 3):
    # x0'/3 = x1/10, 33 x0' + (100/3) x0' = 100 -> x0' = 300/199 = 1.5075 bundles of 33 units, i.e.
    # 1.5075 * 33/34 = 1.4632 true tasks.
    ti = fa.TaskInstance([[100]], [[34], [10]], tasks=[10, 10])
    v = find_profitable_misreport(fa.tsf, ti, user=0, candidates=[{"task_demands": [33.0], "tasks": 10}],
                                  budget=1, divisible=True)
    assert v.holds is False
    assert v.witness["truthful_utility"] == pytest.approx(100 / 84, abs=1e-6)
    assert v.witness["misreport_utility"] == pytest.approx(300 / 199 * 33 / 34, abs=1e-6)
    assert unfloored_monopoly(ti).tolist() == pytest.approx([100 / 34, 10])
    assert find_profitable_misreport(tsf_unfloored, ti, user=0, candidates=[{"task_demands": [33.0], "tasks": 10}],
                                     budget=1, divisible=True, atol=1e-6).holds is True


def test_finding_tsf_monopoly_ignores_placement():
    # servers <1, 1> and <1, 2>; user 0's tasks <1, 2> may run on both, user 1's <1, 0> on the second only.
    # Unfloored h (placement ignored): user 0: min(1, 1/2) + min(1, 2/2) = 3/2; user 1: 1 + 1 = 2.
    # TSF: user 0 fills server 0's second resource (1/2 task) and a tasks on server 1, user 1 gets 1 - a:
    # (a + 1/2) / (3/2) = (1 - a) / 2 -> a = 1/7, user 0 runs 9/14 task. Half of each server holds
    # 1/4 + 1/2 = 3/4 of user 0's tasks.
    ti = fa.TaskInstance([[1, 1], [1, 2]], [[1, 2], [1, 0]], tasks=[1, 1], placement=[[1, 1], [0, 1]])
    r = tsf_unfloored(ti)
    assert r.tasks.sum(axis=1) == pytest.approx([9 / 14, 6 / 7], abs=1e-7)
    v = axioms.has_sharing_incentive(ti, r, divisible=True, atol=1e-6)
    assert v.holds is False and v.witness["reference"] == pytest.approx(0.75)


@settings(max_examples=30, deadline=None)
@given(task_instances(n_agents=(2, 3), n_servers=(1, 2), n_resources=(1, 2), max_tasks=3), st.data())
def test_envy_free_placement_milp_agrees_with_enumeration(ti, data):
    from proofs_check.strategies import integer_allocations

    x = data.draw(integer_allocations(ti))
    v = axioms.is_envy_free(ti, x, placement="any")
    X = x.sum(axis=1)
    enum = no_envy_free_placement(ti.task_demands, ti.placement, ti.tasks, ti.cluster.capacities, ti.weights, X,
                                  divisible=False)
    assert v.holds is not None
    assert (v.holds is False) == enum.confirmed, (v.detail, enum.detail)


# -- replay of time-varying witnesses, and tampering ------------------------------------------------------
def _tv_long_tasks():
    # the instance of test_long_tasks_envy_and_sharing_incentive_over_the_horizon (hand computation there)
    tv = fa.TimeVaryingInstance([[2]], [[1], [1]], arrivals=[[2, 0], [2, 0]], durations=[2, 2])
    return tv, np.array([[[2, 0]], [[0, 0]]], float)


def test_time_varying_witnesses_replay_and_tampering_is_caught():
    tv, x = _tv_long_tasks()
    for v in (axioms.is_envy_free(tv, x), axioms.is_ef1(tv, x, variant="remove"), axioms.is_ef1(tv, x, variant="gain"),
              axioms.has_sharing_incentive(tv, x), axioms.has_sharing_incentive(tv, x, scope="per-slot")):
        assert v.holds is False
        w = json.loads(json.dumps(v.witness))
        assert replay(w).confirmed, (v, replay(w).detail)
        w["schedule"] = [[[1, 0]], [[1, 0]]]                # one task each: no violation left
        if w.get("scope") == "per-slot":
            w["tasks"] = [[1], [1]]
        assert not replay(w).confirmed, v
    # a Pareto witness carries its improvement; an infeasible "improvement" is rejected
    tv1 = fa.TimeVaryingInstance([[2]], [[1]], arrivals=[[1, 0]], durations=[1])
    po = axioms.is_pareto_efficient(tv1, np.zeros((1, 1, 2)))
    w = json.loads(json.dumps(po.witness))
    assert replay(w).confirmed
    w["improved_schedule"] = [[[1, 1]]]                      # 2 starts for 1 submitted task
    assert not replay(w).confirmed and "feasible=False" in replay(w).detail
    nw = axioms.is_non_wasteful(tv1, np.zeros((1, 1, 2)))
    assert replay(nw.witness).confirmed
    ps = axioms.is_pareto_efficient(fa.TimeVaryingInstance([[2]], [[1]], arrivals=[[2, 0]], durations=[1]),
                                    np.array([[[1, 1]]], float), scope="per-slot")
    assert ps.holds is False and replay(ps.witness).confirmed


def test_monotonicity_of_a_time_varying_mechanism_replays():
    from proofs_check.campaign import run_cell

    c = [c for c in claims.claims_for("tvtsf_greedy", "rm")][0]
    rep = run_cell(c, examples=150, seconds=900, seed=0)        # 150 cases decide; 900 s is a safety cap
    assert not rep.reason.startswith("time budget"), f"safety cap reached, the budget was time: {rep.reason}"
    assert c.expected == "?" and rep.status == "violation found"
    w = json.loads(json.dumps(rep.verdict.witness))
    assert w["setting"] == "time-varying" and replay(w).confirmed
    w["loser"] = (w["loser"] + 1) % len(w["utilities_before"])
    assert not replay(w).confirmed


def test_commitment_variants_on_servers_replay():
    # one server <4, 4>, unit tasks <1, 1> (dominant share 1/4 each), 4 wanted each; user 1's dominant
    # commitment 0.3. Entitlements: L0 + (L0 - 0.3) = 1 -> L0 = 0.65: user 1 is owed min(4/4, 0.35).
    # Allocation 3 / 1: user 1 holds 1/4 < 0.35 (SI fails by 0.1); commitment-adjusted envy of user 1
    # toward user 0: (0 + 3/4) - (0.3 + 1/4) = 0.2 > 0.
    ti = fa.TaskInstance([[4, 4]], [[1, 1], [1, 1]], tasks=[4, 4], commitments=[[0.0, 0.0], [0.3, 0.3]])
    si = axioms.has_sharing_incentive(ti, [[3], [1]], variant="commitment")
    ef = axioms.is_envy_free(ti, [[3], [1]], variant="commitment")
    rs, re_ = replay(si.witness), replay(ef.witness)
    assert rs.confirmed and float(rs.numbers["reference"]) == pytest.approx(0.35)
    assert re_.confirmed and float(re_.numbers["gap"]) == pytest.approx(0.2)
    w = json.loads(json.dumps(ef.witness))
    w["tasks"] = [[2], [2]]                                 # 2 / 2: (0 + 2/4) - (0.3 + 2/4) < 0, no envy left
    assert not replay(w).confirmed
