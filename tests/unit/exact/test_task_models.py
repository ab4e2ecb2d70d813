"""Cluster / TaskInstance / TimeVaryingInstance validation and the task-share formulas.

Every expected number is computed by hand in the comment next to it.
"""

from __future__ import annotations

import numpy as np
import pytest

import fairalloc as fa
from fairalloc import shares
from fairalloc.errors import InvalidInstanceError, SolverUnavailableError


# ---- formulas ----------------------------------------------------------------------------------------

def test_monopoly_count_sums_per_server_floors_and_ignores_placement():
    # server 0 (4, 4): task (2, 1) -> min(4/2, 4/1) = 2; server 1 (3, 8): min(3/2, 8/1) = 1.5 -> 1
    ti = fa.TaskInstance([[4, 4], [3, 8]], [[2, 1]], [5], placement=[[1, 0]])
    assert ti.monopoly.tolist() == [3.0]           # placement ignored: 2 + 1 (TV-TSF Eq. 4)
    assert ti.fits.tolist() == [[2.0, 0.0]]        # fits honours placement


def test_monopoly_count_of_drf_example():
    # DRF paper: 9 CPU / 18 GB; A = <1, 4>: min(9, 4.5) -> 4;  B = <3, 1>: min(3, 18) -> 3
    ti = fa.TaskInstance([[9, 18]], [[1, 4], [3, 1]], [10, 10])
    assert ti.monopoly.tolist() == [4.0, 3.0]


def test_tasks_that_fit_counts_exact_ratios_despite_float_error():
    # 0.3 / 0.1 = 2.9999999999999996 in binary floating point, but 3 tasks of 0.1 fit in 0.3
    assert shares.tasks_that_fit([0.3], [0.1]).item() == 3.0
    # a resource the task does not need does not limit it: (1, 0) on (2, 0.5) -> 2
    assert shares.tasks_that_fit([2.0, 0.5], [1.0, 0.0]).item() == 2.0


def test_task_share_and_weights_divide():
    # x = (3, 2), h = (4, 3), w = (1, 2): 3 / 4 = 0.75; 2 / (2 * 3) = 1/3
    np.testing.assert_allclose(shares.task_shares([3, 2], [4, 3], [1, 2]), [0.75, 1 / 3])


def test_cumulative_task_share_eq3_with_time_varying_weights():
    # x(t) = (1, 1, 0), h = 2, w(t) = (1, 2, 1): denominators 2, 2 + 4 = 6, 6 + 2 = 8;
    # numerators 1, 2, 2  ->  1/2, 2/6, 2/8
    got = shares.cumulative_task_shares([[1, 1, 0]], [[2, 2, 2]], [[1, 2, 1]])
    np.testing.assert_allclose(got, [[0.5, 1 / 3, 0.25]])


def test_dominant_share_of_tasks_and_sdrf_level():
    # DRF example: A 3 tasks of <1, 4> on <9, 18>: max(3/9, 12/18) = 2/3; B 2 of <3, 1>: max(6/9, 2/18) = 2/3
    dom = shares.dominant_share_of_tasks([3, 2], [[1, 4], [3, 1]], [9, 18])
    np.testing.assert_allclose(dom, [2 / 3, 2 / 3])
    # SDRF level (Eq. 5): commitment max(0.1, 0.2) = 0.2 added, then divided by weight 2 -> (0.2 + 2/3) / 2
    np.testing.assert_allclose(shares.sdrf_levels(dom, [[0.1, 0.2], [0, 0]], [2, 1]), [(0.2 + 2 / 3) / 2, 2 / 3])


def test_next_task_dominant_share_is_the_cdrf_key():
    # (x + 1) * mu / w: A (3 + 1) * 4/18 = 8/9; B (2 + 1) * 3/9 / 2 = 1/2
    got = shares.next_task_dominant_shares([3, 2], [[1, 4], [3, 1]], [9, 18], [1, 2])
    np.testing.assert_allclose(got, [8 / 9, 0.5])


def test_time_varying_monopoly_per_slot():
    # demands (1, 2) then (2, 2) on two (4, 4) servers: min(4, 2) * 2 = 4, then min(2, 2) * 2 = 4;
    # third slot (4, 1): min(1, 4) * 2 = 2
    tv = fa.TimeVaryingInstance([[4, 4], [4, 4]], [[[1, 2], [2, 2], [4, 1]]], [[1, 1, 1]], [1])
    assert tv.monopoly.tolist() == [[4.0, 4.0, 2.0]]


# ---- bad input ----------------------------------------------------------------------------------------

def test_task_that_fits_on_no_server_names_the_user():
    with pytest.raises(InvalidInstanceError, match="user 1") as e:
        fa.TaskInstance([[4, 4], [2, 8]], [[1, 1], [5, 1]], [3, 3])
    assert e.value.argument == "task_demands" and e.value.index == (1,)


def test_task_that_fits_only_where_not_allowed():
    with pytest.raises(InvalidInstanceError, match="eligible") as e:
        fa.TaskInstance([[4, 4], [8, 8]], [[6, 1]], [1], placement=[[1, 0]])
    assert e.value.index == (0,)


def test_placement_row_all_zero():
    with pytest.raises(InvalidInstanceError, match="no eligible server") as e:
        fa.TaskInstance([[4, 4]], [[1, 1], [1, 1]], [1, 1], placement=[[1], [0]])
    assert (e.value.argument, e.value.index) == ("placement", (1,))


def test_placement_must_be_zero_one():
    with pytest.raises(InvalidInstanceError, match="0/1") as e:
        fa.TaskInstance([[4, 4]], [[1, 1]], [1], placement=[[2]])
    assert e.value.index == (0, 0)


def test_negative_arrivals():
    with pytest.raises(InvalidInstanceError, match=r"arrivals\[0, 1\]=-1") as e:
        fa.TimeVaryingInstance([[4, 4]], [[1, 1]], [[1, -1]], [1])
    assert e.value.argument == "arrivals" and e.value.index == (0, 1)


def test_fractional_arrivals():
    with pytest.raises(InvalidInstanceError, match="whole number"):
        fa.TimeVaryingInstance([[4, 4]], [[1, 1]], [[1.5, 0]], [1])


@pytest.mark.parametrize("bad", [0, -2])
def test_durations_below_one(bad):
    with pytest.raises(InvalidInstanceError, match=r"durations\[1\]") as e:
        fa.TimeVaryingInstance([[4, 4]], [[1, 1], [1, 1]], [[1, 0], [1, 1]], [2, bad])
    assert e.value.argument == "durations" and e.value.index == (1,) and e.value.value == bad


def test_time_varying_demand_that_fits_nowhere_in_one_slot():
    with pytest.raises(InvalidInstanceError, match="fits on no server") as e:
        fa.TimeVaryingInstance([[4, 4]], [[[1, 1], [9, 1]]], [[1, 1]], [1])
    assert e.value.index == (0, 1)           # user 0, slot 1


@pytest.mark.parametrize("kwargs, argument", [
    (dict(tasks=[1, 2, 3]), "tasks"),
    (dict(placement=[[1, 1]]), "placement"),
    (dict(weights=[1.0]), "weights"),
    (dict(commitments=[[0.1, 0.1, 0.1], [0, 0, 0]]), "commitments"),
])
def test_task_instance_mismatched_shapes(kwargs, argument):
    base = dict(cluster=[[4, 4]], task_demands=[[1, 1], [1, 1]], tasks=[1, 1])
    base.update(kwargs)
    with pytest.raises(InvalidInstanceError) as e:
        fa.TaskInstance(**base)
    assert e.value.argument == argument


@pytest.mark.parametrize("kwargs, argument", [
    (dict(task_demands=[[[1, 1]] * 3]), "task_demands"),       # 3 slots of demand, 2 of arrivals
    (dict(durations=[1, 1]), "durations"),
    (dict(weights=[[1, 1, 1]]), "weights"),
    (dict(task_demands=[[1, 1, 1]]), "task_demands"),          # 3 resources on a 2-resource cluster
])
def test_time_varying_mismatched_shapes(kwargs, argument):
    base = dict(cluster=[[4, 4]], task_demands=[[1, 1]], arrivals=[[1, 1]], durations=[1])
    base.update(kwargs)
    with pytest.raises(InvalidInstanceError) as e:
        fa.TimeVaryingInstance(**base)
    assert e.value.argument == argument


def test_unknown_and_missing_solvers_say_what_to_do():
    ti = fa.TaskInstance([[4, 4]], [[1, 1]], [1])
    with pytest.raises(SolverUnavailableError, match="possible options are: .*highs.*cbc"):
        fa.exact.tasks_leximin(ti, solver="nosuchsolver")
    with pytest.raises(SolverUnavailableError, match="pip install gurobipy"):
        fa.exact.tasks_leximin(ti, solver="gurobi")
    with pytest.raises(SolverUnavailableError, match="cannot solve MILP"):
        fa.exact.tasks_leximin(ti, solver="clarabel")


def test_unknown_mechanism_and_objective():
    ti = fa.TaskInstance([[4, 4]], [[1, 1]], [1])
    with pytest.raises(InvalidInstanceError, match="'drf', 'sdrf', 'tsf', 'cdrf'"):
        fa.exact.tasks_leximin(ti, mechanism="bogus")
    with pytest.raises(InvalidInstanceError, match="leximin"):
        fa.exact.tasks_leximin(ti, objective="minmax")


def test_from_dict_round_trip_and_unknown_fields():
    tv = fa.TimeVaryingInstance([[4, 4], [2, 8]], [[1, 2]], [[2, 0, 1]], [2], placement=[[1, 1]])
    assert fa.TimeVaryingInstance.from_dict(tv.to_dict()) == tv
    ti = fa.TaskInstance([[4, 4]], [[1, 1]], [2], commitments=[[0.1, 0]])
    assert fa.TaskInstance.from_dict(ti.to_dict()) == ti
    with pytest.raises(InvalidInstanceError, match="unknown TaskInstance field") as e:
        fa.TaskInstance.from_dict({**ti.to_dict(), "taks": [1]})
    assert e.value.argument == "taks"
    with pytest.raises(InvalidInstanceError, match="needs a 'cluster'"):
        fa.TimeVaryingInstance.from_dict({"task_demands": [[1]], "arrivals": [[1]], "durations": [1]})


def test_instances_are_immutable_and_inputs_untouched():
    d = np.array([[1.0, 1.0]])
    ti = fa.TaskInstance([[4, 4]], d, [2])
    d[0, 0] = 99
    assert ti.task_demands[0, 0] == 1.0
    with pytest.raises(AttributeError):
        ti.tasks = [3]
    with pytest.raises(ValueError):
        ti.task_demands[0, 0] = 5
