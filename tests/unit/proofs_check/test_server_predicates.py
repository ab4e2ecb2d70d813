"""Predicates on task allocations on servers (integer and divisible), with hand-made answers."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fairalloc as fa
from fairalloc.errors import InvalidInstanceError
from proofs_check import axioms
from proofs_check.strategies import integer_allocations, task_instances


def one_server(cap, demands, tasks):
    return fa.TaskInstance([cap], demands, tasks)


def test_ef1_variants_are_not_equivalent():
    # one server <11>; i's task needs 3, j's task needs 1. i runs 1 task, j runs 8.
    # u_i(A_j) = floor(8/3) = 2 <= x_i + 1 = 2: EF1-gain holds.
    # removing one of j's tasks leaves 7: floor(7/3) = 2 > x_i = 1: EF1-remove fails.
    ti = one_server([11], [[3], [1]], [5, 8])
    x = [[1], [8]]
    assert axioms.is_ef1(ti, x, variant="gain").holds is True
    v = axioms.is_ef1(ti, x, variant="remove")
    assert v.holds is False and (v.witness["envious"], v.witness["envied"]) == (0, 1)
    assert v.witness["u_other_after_best_removal"] == 2
    # the other way round: j's one task is big (4 units), i's tasks need 1: u_i(A_j) = 4 > 1 + 1 (gain
    # fails) but removing j's only task leaves nothing (remove holds).
    ti2 = one_server([5], [[1], [4]], [5, 1])
    x2 = [[1], [1]]
    assert axioms.is_ef1(ti2, x2, variant="remove").holds is True
    g = axioms.is_ef1(ti2, x2, variant="gain")
    assert g.holds is False and g.witness["u_other"] == 4


def test_integer_envy_and_sharing_incentive_on_one_server():
    # server <4, 4>; both users' tasks are <1, 1>, 4 tasks wanted each. 1 vs 3 tasks: user 0 envies
    # (3 > 1) and gets less than its fair half (2 tasks fit in <2, 2>).
    ti = one_server([4, 4], [[1, 1], [1, 1]], [4, 4])
    v = axioms.is_envy_free(ti, [[1], [3]])
    assert v.holds is False and v.witness["u_other"] == 3
    si = axioms.has_sharing_incentive(ti, [[1], [3]])
    assert si.holds is False and si.witness["reference"] == 2
    assert axioms.has_sharing_incentive(ti, [[2], [2]]).holds is True
    assert axioms.is_envy_free(ti, [[2], [2]]).holds is True


def test_envy_counts_only_eligible_servers():
    # two servers <2> each; user 0 may use only server 0, user 1 both. User 0 runs nothing, user 1
    # runs 2 tasks on server 0: user 0 envies (2 tasks of its own fit in that bundle). On server 1,
    # the same 2 tasks are invisible to user 0: no envy. So the placement decides.
    cl = fa.Cluster([[2], [2]])
    ti = fa.TaskInstance(cl, [[1], [1]], [1, 2], placement=[[1, 0], [1, 1]])
    given_p = axioms.is_envy_free(ti, [[0, 0], [2, 0]])
    assert given_p.holds is False
    assert axioms.is_envy_free(ti, [[0, 0], [0, 2]]).holds is True
    anyp = axioms.is_envy_free(ti, [[0, 0], [2, 0]], placement="any")
    assert anyp.holds is True
    assert np.allclose(anyp.stats["placement"], [[0, 0], [0, 2]])
    # if user 0 may use both servers, every placement of user 1's 2 tasks is visible: no EF placement
    ti2 = fa.TaskInstance(cl, [[1], [1]], [1, 2])
    v = axioms.is_envy_free(ti2, [[0, 0], [2, 0]], placement="any")
    assert v.holds is False and v.witness["placement_mode"] == "any"


def test_non_wasteful_integer():
    # server <5>; tasks of size 2 (user 0) and 1 (user 1); user 0 runs 1 task, user 1 runs 2, both want
    # more: leftover 1 -> user 1's next task fits (wasteful); user 0's does not.
    ti = one_server([5], [[2], [1]], [3, 3])
    v = axioms.is_non_wasteful(ti, [[1], [2]])
    assert v.holds is False and v.witness["user"] == 1 and v.witness["leftover"] == [1.0]
    assert axioms.is_non_wasteful(ti, [[1], [3]]).holds is True
    assert axioms.is_bottleneck(ti, [[1], [3]]).holds is True


def test_pareto_integer_and_divisible():
    # server <5>; sizes 2 and 1, 3 tasks wanted each. [1, 3] uses 5: nothing fits more.
    ti = one_server([5], [[2], [1]], [3, 3])
    assert axioms.is_pareto_efficient(ti, [[1], [3]]).holds is True
    v = axioms.is_pareto_efficient(ti, [[1], [2]])        # user 1 can take the free unit
    assert v.holds is False and v.witness["improved_totals"] == [1.0, 3.0]
    # divisible: [1, 2.5] leaves 0.5 units: user 1 can run 0.5 more tasks
    vd = axioms.is_pareto_efficient(ti, [[1], [2.5]], divisible=True)
    assert vd.holds is False and vd.margin == pytest.approx(-0.5)
    assert axioms.is_pareto_efficient(ti, [[1.5], [2.0]], divisible=True).holds is True
    # weak: [2, 1] uses 5; user 0 is blocked (no room), so no allocation improves both users... but
    # moving: 0 tasks of user 0 cannot drop (nobody may lose). Weak PO holds; strong too.
    assert axioms.is_pareto_efficient(ti, [[2], [1]], variant="weak").holds is True


def _brute_force_dominated(ti, x) -> bool:
    """Enumerate every integer allocation (tiny instances) and look for a Pareto improvement."""
    n, M = ti.n_agents, ti.n_servers
    X = np.asarray(x).sum(axis=1)
    ranges = [range(int(ti.tasks[i]) + 1) if ti.placement[i, l] else range(1) for i in range(n) for l in range(M)]
    caps = ti.cluster.capacities
    for combo in itertools.product(*ranges):
        y = np.array(combo, float).reshape(n, M)
        Y = y.sum(axis=1)
        if np.any(Y > ti.tasks) or np.any(Y < X):
            continue
        if np.any(y.T @ ti.task_demands > caps + 1e-9):
            continue
        if Y.sum() > X.sum():
            return True
    return False


@settings(max_examples=40)
@given(data=st.data())
def test_integer_pareto_milp_agrees_with_enumeration(data):
    ti = data.draw(task_instances(n_agents=(1, 2), n_servers=(1, 2), n_resources=(1, 2), max_tasks=3))
    x = data.draw(integer_allocations(ti))
    v = axioms.is_pareto_efficient(ti, x)
    assert v.holds is not None
    assert (v.holds is False) == _brute_force_dominated(ti, x)


@settings(max_examples=30)
@given(data=st.data())
def test_ef_any_placement_agrees_with_enumerated_placements(data):
    ti = data.draw(task_instances(n_agents=(2, 2), n_servers=(2, 2), n_resources=(1, 2), max_tasks=2))
    x = data.draw(integer_allocations(ti))
    X = x.sum(axis=1)
    n, M = x.shape
    # enumerate every integer placement of the totals X that respects placement and capacities
    exists = False
    per_user = []
    for i in range(n):
        opts = [p for p in itertools.product(*(range(int(X[i]) + 1) if ti.placement[i, l] else range(1)
                                               for l in range(M))) if sum(p) == X[i]]
        per_user.append(opts)
    for combo in itertools.product(*per_user):
        y = np.array(combo, float)
        if np.any(y.T @ ti.task_demands > ti.cluster.capacities + 1e-9):
            continue
        if axioms.is_envy_free(ti, y).holds:
            exists = True
            break
    v = axioms.is_envy_free(ti, x, placement="any")
    assert v.holds is exists


@pytest.mark.parametrize("tasks, match", [
    ([[1, 0]], "shape"),
    ([[1.5], [1]], "whole number"),
    ([[3], [3]], "capacity"),
    ([[-1], [1]], ">= 0"),
    ([[5], [0]], "submitted"),
])
def test_invalid_task_allocations_raise(tasks, match):
    ti = one_server([5], [[1], [1]], [4, 4])
    with pytest.raises(InvalidInstanceError, match=match) as exc:
        axioms.is_envy_free(ti, tasks)
    assert exc.value.argument == "allocation"


def test_placement_violation_raises():
    ti = fa.TaskInstance([[2], [2]], [[1], [1]], [2, 2], placement=[[1, 0], [1, 1]])
    with pytest.raises(InvalidInstanceError, match="placement"):
        axioms.has_sharing_incentive(ti, [[0, 1], [1, 0]])


def test_servers_sharing_incentive_sums_over_eligible_servers():
    # servers <2> and <4>; user 0 eligible on both, user 1 on server 1 only; size-1 tasks, 6 wanted.
    # fair bundles: c_l / 2 -> user 0: 1 + 2 = 3 tasks; user 1: 2 tasks (server 1 only).
    ti = fa.TaskInstance([[2], [4]], [[1], [1]], [6, 6], placement=[[1, 1], [0, 1]])
    assert axioms.has_sharing_incentive(ti, [[2, 1], [0, 3]]).holds is True
    v = axioms.has_sharing_incentive(ti, [[2, 0], [0, 4]])
    assert v.holds is False and v.witness["user"] == 0 and v.witness["reference"] == 3


def test_weighted_and_commitment_variants_on_servers():
    # one server <4>, unit tasks; weights 1 and 3: weighted fair split 1 and 3 tasks
    ti = fa.TaskInstance([[4]], [[1], [1]], [4, 4], weights=[1, 3])
    assert axioms.has_sharing_incentive(ti, [[1], [3]], variant="weighted").holds is True
    assert axioms.has_sharing_incentive(ti, [[1], [3]]).holds is False
    assert axioms.is_envy_free(ti, [[1], [3]], variant="weighted").holds is True
    # commitments 0.5 and 0: L0 = 0.75, entitlements 0.25 and 0.75 of the resource -> 1 and 3 tasks
    tc = fa.TaskInstance([[4]], [[1], [1]], [4, 4], commitments=[[0.5], [0.0]])
    assert axioms.has_sharing_incentive(tc, [[1], [3]], variant="commitment").holds is True
    assert axioms.has_sharing_incentive(tc, [[0], [4]], variant="commitment").holds is False


def test_ef1_needs_integer_task_instance():
    with pytest.raises(TypeError):
        axioms.is_ef1(fa.Instance([[1.0]]), [[1.0]])
    ti = one_server([4], [[1], [1]], [2, 2])
    with pytest.raises(ValueError, match="commitments"):
        axioms.has_sharing_incentive(ti, [[1], [1]], commitments=[[0.0], [0.0]])


def test_server_witnesses_replay():
    from proofs_check.replay import replay

    ti = one_server([11], [[3], [1]], [5, 8])
    cases = [
        axioms.is_ef1(ti, [[1], [8]], variant="remove"),
        axioms.is_ef1(one_server([5], [[1], [4]], [5, 1]), [[1], [1]], variant="gain"),
        axioms.is_envy_free(one_server([4, 4], [[1, 1], [1, 1]], [4, 4]), [[1], [3]]),
        axioms.has_sharing_incentive(one_server([4, 4], [[1, 1], [1, 1]], [4, 4]), [[1], [3]]),
        axioms.is_non_wasteful(one_server([5], [[2], [1]], [3, 3]), [[1], [2]]),
        axioms.is_pareto_efficient(one_server([5], [[2], [1]], [3, 3]), [[1], [2]]),
        axioms.is_pareto_efficient(one_server([5], [[2], [1]], [3, 3]), [[1], [2.5]], divisible=True),
    ]
    for v in cases:
        assert v.holds is False
        r = replay(v.to_dict())
        assert r.confirmed, (v.axiom, v.variant, r.detail)
    w = dict(cases[0].witness)
    w["tasks"] = [[2], [6]]                                  # tampered: 6 tasks -> removal leaves 5 -> 1 <= 2
    assert not replay(w).confirmed
