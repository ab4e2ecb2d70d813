"""Predicates on start schedules of time-varying instances (TV-TSF), with hand-made answers.

Every expected number below is worked out by hand in the comment above it (one server, unit tasks,
so "units" and "tasks" coincide unless said otherwise).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings

import fairalloc as fa
from fairalloc.errors import InvalidInstanceError
from proofs_check import _programs, axioms
from proofs_check._timevarying import TVData, alone_on_share
from proofs_check.strategies import time_varying_instances

ALL = (axioms.has_sharing_incentive, axioms.is_envy_free, axioms.is_ef1, axioms.is_pareto_efficient,
       axioms.is_non_wasteful, axioms.is_bottleneck)


def sched(*rows):
    """(N, 1, T) schedule on one server from per-user start lists."""
    return np.array(rows, float)[:, None, :]


def test_idle_slot_is_fine_over_the_horizon_but_not_per_slot():
    # one server <2>, one user submits 2 unit tasks in slot 0 (1 slot each), horizon 2 slots.
    # starts [1, 1]: over the horizon both tasks start (X = K = 2): every cumulative axiom holds.
    # slot 0 alone: 2 units free, 2 pending, 1 started -> the second fits (wasteful, not PO: 2 > 1),
    # and the user's fair share of the free capacity (n = 1: all of it) is 2 tasks > 1.
    tv = fa.TimeVaryingInstance([[2]], [[1]], arrivals=[[2, 0]], durations=[1])
    x = sched([1, 1])
    for f in ALL:
        assert f(tv, x, scope="cumulative").holds is True, f.__name__
    for f in (axioms.has_sharing_incentive, axioms.is_pareto_efficient, axioms.is_non_wasteful, axioms.is_bottleneck):
        v = f(tv, x, scope="per-slot")
        assert v.holds is False and v.witness["slot"] == 0, f.__name__
    v = axioms.is_pareto_efficient(tv, x, scope="per-slot")
    assert v.witness["improved_totals"] == [2.0] and v.witness["slot_pending"] == [2.0]
    # starting both in slot 0 is fine in every reading
    for f in ALL:
        for scope in ("cumulative", "per-slot"):
            assert f(tv, sched([2, 0]), scope=scope).holds is True, (f.__name__, scope)


def test_long_tasks_envy_and_sharing_incentive_over_the_horizon():
    # one server <2>; users 0 and 1 each submit 2 unit tasks in slot 0, tasks last 2 slots, horizon 2.
    # user 0 starts both in slot 0: the server is full in slots 0 and 1, user 1 starts nothing.
    # EF: user 1 in user 0's place starts 2 tasks (2 units in slot 0, 2 pending) > 0.
    # EF1-remove: without one of them, 1 > 0 still; EF1-gain: 2 > 0 + 1.
    # SI (Eq. 5): alone on half the server (1 unit) user 1 starts 1 task in slot 0 (busy in slot 1): 0 < 1.
    # PO: nothing more can start (the server is full while the horizon lasts) and user 0 cannot lose.
    tv = fa.TimeVaryingInstance([[2]], [[1], [1]], arrivals=[[2, 0], [2, 0]], durations=[2, 2])
    x = sched([2, 0], [0, 0])
    v = axioms.is_envy_free(tv, x)
    assert v.holds is False and (v.witness["envious"], v.witness["envied"], v.witness["u_other"]) == (1, 0, 2.0)
    assert axioms.is_ef1(tv, x, variant="remove").witness["u_other_after_best_removal"] == 1.0
    assert axioms.is_ef1(tv, x, variant="gain").holds is False
    si = axioms.has_sharing_incentive(tv, x)
    assert si.holds is False and si.witness["reference"] == 1.0 and si.witness["reference_per_slot"] == [1.0, 0.0]
    assert axioms.is_pareto_efficient(tv, x).holds is True
    assert axioms.is_pareto_efficient(tv, x, variant="weak").holds is True
    assert axioms.is_non_wasteful(tv, x).holds is True
    # one task each in slot 0 is envy-free and gives each user its share
    y = sched([1, 0], [1, 0])
    for f in (axioms.has_sharing_incentive, axioms.is_envy_free, axioms.is_ef1):
        assert f(tv, y).holds is True


def test_wasteful_schedule_and_its_pareto_improvement():
    # one server <2>, one unit task submitted in slot 0, nothing started over 2 slots: the task fits in
    # slot 0 (and slot 1): wasteful over the horizon; starting it is a Pareto improvement (0 -> 1).
    tv = fa.TimeVaryingInstance([[2]], [[1]], arrivals=[[1, 0]], durations=[1])
    x = sched([0, 0])
    nw = axioms.is_non_wasteful(tv, x)
    assert nw.holds is False and (nw.witness["user"], nw.witness["slot"], nw.witness["server"]) == (0, 0, 0)
    po = axioms.is_pareto_efficient(tv, x)
    assert po.holds is False and po.witness["improved_totals"] == [1.0]


def test_room_must_last_the_whole_run():
    # one server <2>; user 0 runs unit 2-slot tasks (2 submitted in slot 0, one started); user 1's unit
    # task (1 slot) arrives in slot 1 and starts there, so slot 1 is full. User 0's second task fits
    # in slot 0 (1 unit free) but would overflow slot 1 (3 units), and slot 1 has no room: not
    # wasteful over the horizon; but per slot, slot 0 leaves a unit it fits in.
    tv = fa.TimeVaryingInstance([[2]], [[1], [1]], arrivals=[[2, 0], [0, 1]], durations=[2, 1])
    x = sched([1, 0], [0, 1])
    with pytest.raises(InvalidInstanceError):              # starting it in slot 0 too would overflow slot 1
        axioms.is_non_wasteful(tv, sched([2, 0], [0, 1]))
    assert axioms.is_non_wasteful(tv, x).holds is True
    assert axioms.is_bottleneck(tv, x, scope="per-slot").holds is False


def test_bundles_before_ones_tasks_exist_are_worth_nothing():
    # one server <2>; user 0 submits one unit task in slot 1; user 1 two unit 2-slot tasks in slot 0,
    # started in slot 0 (the server is full in slots 0 and 1). User 0 starts nothing. In user 1's
    # place user 0 would have user 1's slot-0 bundles, when it has no task yet, and nothing in slot 1:
    # 0 tasks. No envy (TV-TSF Eq. 2 caps x_i(t) by what is submitted).
    tv = fa.TimeVaryingInstance([[2]], [[1], [1]], arrivals=[[0, 1], [2, 0]], durations=[1, 2])
    x = sched([0, 0], [2, 0])
    assert TVData(tv, x).value(0, 1) == 0.0
    assert axioms.is_envy_free(tv, x).holds is True
    assert axioms.is_ef1(tv, x, variant="gain").holds is True


def test_demands_that_change_between_slots():
    # one server <4>; user 0's tasks need 4 units in slot 0 and 1 unit in slot 1 (e = 1). User 1 (1 unit
    # tasks, e = 1) starts 4 tasks in slot 1, user 0 one task in slot 0. In user 1's place user 0 would
    # run nothing in slot 0 and, in slot 1, min(pending 2, 4 units / 1) = 2 > 1: envy; removing one of
    # user 1's tasks leaves 3 units -> still 2 > 1: EF1-remove fails too.
    tv = fa.TimeVaryingInstance([[4]], [[[4], [1]], [[1], [1]]], arrivals=[[2, 0], [0, 4]], durations=[1, 1])
    x = sched([1, 0], [0, 4])
    assert axioms.is_envy_free(tv, x).witness["u_other"] == 2.0
    v = axioms.is_ef1(tv, x, variant="remove")
    assert v.holds is False and v.witness["u_other_after_best_removal"] == 2.0


def test_alone_on_share_counts_running_tasks():
    # server <4, 4>; half = <2, 2>. Tasks <1, 1> lasting 2 slots; 3 submitted in slot 0, 2 in slot 1.
    # slot 0: 2 start; slot 1: both still run: none; slot 2: 2 start (3 pending); slot 3: none; total 4.
    tv = fa.TimeVaryingInstance([[4, 4]], [[1, 1], [1, 1]], arrivals=[[3, 2, 0, 0], [0, 0, 0, 0]], durations=[2, 1])
    assert alone_on_share(tv, 0, 0.5).tolist() == [2.0, 0.0, 2.0, 0.0]


@pytest.mark.parametrize("bad, match", [
    (np.zeros((2, 1)), "shape"),
    (np.full((2, 1, 2), 0.5), "whole number"),
    (np.array([[[2, 0]], [[0, 0]]], float), "submitted"),
    (np.array([[[1, 0]], [[2, 0]]], float), "capacity"),
])
def test_bad_schedules_are_invalid_not_unfair(bad, match):
    # one server <2>; user 0 submits 1 task in slot 0, user 1 2 tasks in slot 0; unit tasks, 1 slot.
    tv = fa.TimeVaryingInstance([[2]], [[1], [1]], arrivals=[[1, 0], [2, 0]], durations=[1, 1])
    with pytest.raises(InvalidInstanceError, match=match) as exc:
        axioms.is_envy_free(tv, bad)
    assert exc.value.argument == "allocation"


def test_placement_and_options_are_checked():
    tv = fa.TimeVaryingInstance([[2], [2]], [[1]], arrivals=[[1]], durations=[1], placement=[[1, 0]])
    with pytest.raises(InvalidInstanceError, match="placement"):
        axioms.is_envy_free(tv, np.array([[[0], [1]]], float))
    with pytest.raises(InvalidInstanceError, match="scope"):
        axioms.is_envy_free(tv, np.array([[[1], [0]]], float), scope="daily")
    with pytest.raises(ValueError, match="time-varying"):
        axioms.is_envy_free(tv, np.array([[[1], [0]]], float), divisible=True)


def _best_total(tv, lower):
    """Brute force: the largest total of any feasible schedule giving every user >= lower."""
    n, M, T = tv.n_agents, tv.n_servers, tv.n_slots
    best = None
    ranges = [range(int(tv.arrivals[i].sum()) + 1) for i in range(n) for _ in range(M) for _ in range(T)]
    for combo in itertools.product(*ranges):
        x = np.array(combo, float).reshape(n, M, T)
        try:
            TVData(tv, x)
        except InvalidInstanceError:
            continue
        tot = x.sum(axis=(1, 2))
        if np.all(tot >= lower) and (best is None or tot.sum() > best):
            best = tot.sum()
    return best


@settings(max_examples=15, deadline=None)
@given(time_varying_instances(n_agents=(1, 2), n_servers=(1, 1), n_resources=(1, 2), n_slots=(1, 2),
                              max_arrivals=2, max_duration=2))
def test_dominating_schedule_agrees_with_enumeration(tv):
    lower = np.zeros(tv.n_agents)
    out = _programs.dominating_schedule(tv.task_demands, tv.cluster.capacities, tv.placement, tv.arrivals,
                                        tv.durations, lower)
    assert out.ok
    assert out.value == pytest.approx(_best_total(tv, lower))
    TVData(tv, np.round(out.x))                                 # the MILP's schedule is feasible
