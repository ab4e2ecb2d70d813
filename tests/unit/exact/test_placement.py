"""The placement graph: components, max-flow checks and bounds, and aggregation of identical servers."""

from __future__ import annotations

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.exact.leximin import Valuation
from fairalloc.exact.placement import flow_check, maxmin_flow_bound, placement_components, placement_graph
from fairalloc.result import Status

from _exact_bruteforce import best_maxmin, feasible_task_totals, task_values, tiny_task_instance


def test_graph_has_an_edge_only_where_allowed_and_the_task_fits():
    # user 0's task (3, 1) fits on server 0 (4, 4) but not on server 1 (2, 8); user 1 is not allowed on 0
    ti = fa.TaskInstance([[4, 4], [2, 8]], [[3, 1], [1, 1]], [1, 1], placement=[[1, 1], [0, 1]])
    assert sorted(placement_graph(ti).edges()) == [(("u", 0), ("s", 0)), (("u", 1), ("s", 1))]
    comps = placement_components(ti)
    assert [(u.tolist(), s.tolist()) for u, s in comps] == [([0], [0]), ([1], [1])]


def test_time_varying_edges_use_any_slot():
    # the task fits on server 1 only in slot 1 (demand (1, 1) there, (3, 1) in slot 0)
    tv = fa.TimeVaryingInstance([[4, 4], [2, 8]], [[[3, 1], [1, 1]]], [[1, 1]], [1])
    assert [s.tolist() for _, s in placement_components(tv)] == [[0, 1]]


def test_flow_check_passes_when_the_requirement_fits():
    ti = fa.TaskInstance([[4, 4], [4, 4]], [[2, 1], [2, 1]], [5, 5], placement=[[1, 0], [1, 1]])
    # user 0 needs 2 tasks (4 cores) on server 0, user 1 needs 2 (4 cores) on server 1: fine
    assert flow_check(ti, [2, 2]).feasible
    # 3 + 2 tasks need 10 cores; the cluster has 8
    v = flow_check(ti, [3, 2])
    assert not v.feasible and v.resource == 0


@pytest.mark.parametrize("seed", range(6))
def test_maxmin_flow_bound_is_valid_against_brute_force(seed):
    ti = tiny_task_instance(500 + seed)
    feasible = feasible_task_totals(ti)
    f = task_values(ti, "drf")
    movable = list(range(ti.n_agents))
    exact = best_maxmin([f(x) for x in feasible], movable)
    from fairalloc.exact.tasks import task_valuation

    bound = maxmin_flow_bound(ti, task_valuation(ti, "drf"))
    assert bound >= float(exact) - 1e-12


def test_one_shot_aggregation_of_identical_servers():
    # three identical (4, 4) servers; both users have the same task (2, 2): the servers are aggregated
    # into 3 x 2 = 6 task slots; the leximin is 3 + 3 tasks, placed 2 per server
    ti = fa.TaskInstance([[4, 4]] * 3, [[2, 2], [2, 2]], [9, 9])
    r = fa.exact.tasks_leximin(ti, mechanism="drf", solver="highs")
    assert r.stats["aggregated_servers"] == 3
    assert r.tasks.sum(axis=1).tolist() == [3, 3]
    assert (r.tasks.sum(axis=0) == 2).all()
    off = fa.exact.tasks_leximin(ti, mechanism="drf", solver="highs", aggregate=False)
    assert off.stats["aggregated_servers"] == 0 and off.tasks.sum(axis=1).tolist() == [3, 3]


def test_time_varying_aggregation_places_intervals_on_servers():
    # two identical 2-core servers, 1-core tasks of every user: aggregated to 4 task slots per slot.
    # The schedule handed back must respect each server's own 2 cores in every slot (interval colouring).
    tv = fa.TimeVaryingInstance([[2, 2], [2, 2]], [[1, 1], [1, 1], [1, 1]],
                                arrivals=[[3, 1, 0], [1, 2, 1], [2, 0, 2]], durations=[2, 1, 3])
    r = fa.tvtsf(tv, method="milp", solver="highs")
    assert r.stats["aggregated_servers"] == 2
    assert (r.details["usage"] <= 2 + 1e-9).all()
    ref = fa.tvtsf(tv, method="milp", solver="highs", aggregate=False)
    np.testing.assert_allclose(np.sort(r.shares), np.sort(ref.shares))


def test_aggregation_is_not_used_when_demands_differ():
    ti = fa.TaskInstance([[4, 4]] * 2, [[2, 2], [1, 3]], [9, 9])
    r = fa.exact.tasks_leximin(ti, mechanism="drf", solver="highs")
    assert r.stats["aggregated_servers"] == 0 and r.status is Status.OPTIMAL


def test_valuation_rejects_nonpositive_slopes():
    with pytest.raises(ValueError):
        Valuation([0.0], [0.0], [0], [1])
