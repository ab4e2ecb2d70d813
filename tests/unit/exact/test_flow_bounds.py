"""Max-flow bounds of the leximin driver (issue 14): ``placement.tv_flow_check`` and ``solve_leximin(flow=)``.

Soundness of the check is tested against brute-force enumeration of every feasible schedule
(``_exact_bruteforce.feasible_tv_totals``, written from the definitions) and on hand cases; the
driver's use of it by the leximin vector with the flow on and off (both proven) and, through the
brute-force property tests (flow on by default), against enumeration.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.exact.placement import tv_flow_check
from fairalloc.exact.random_instances import random_task_instance, random_time_varying_instance

from _exact_bruteforce import feasible_tv_totals, tiny_tv_instance

INSTALLED = [s for s in ("highs", "cpsat", "cbc") if s in fa.available_solvers("milp")]


def flow_bounds(on: bool) -> dict:
    """The level driver with its max-flow check on or off (``leximin_options`` of the formulations)."""
    return {"driver": "levels", "flow_bounds": on}


def test_tv_flow_check_never_rejects_a_reachable_vector():
    # every required vector in the box [0, submitted]: a "False" (proven impossible) must have no
    # enumerated schedule starting at least that many tasks of every user; 40 seeded tiny instances
    # (every required count is at most what was submitted, so none is rejected for that alone)
    rejected = 0
    for seed in range(40):
        tv = tiny_tv_instance(seed, max_users=3, max_servers=2, max_slots=3)
        reach = np.array(sorted(feasible_tv_totals(tv)))
        sub = tv.arrivals.sum(axis=1)
        for req in itertools.product(*[range(int(s) + 1) for s in sub]):
            if tv_flow_check(tv, list(req)):
                continue
            assert not (reach >= np.array(req)).all(axis=1).any(), (seed, req)
            rejected += 1
    assert rejected > 0                       # the flow itself rejects some of these vectors


def test_tv_flow_check_hall_condition_on_placement():
    # two servers <4, 4>; users 0 and 1 may use server 0 only, tasks <2, 2> of one slot, 4 tasks
    # each submitted in slot 0, one slot: server 0 holds 2 such tasks, so 2 + 1 cannot start
    # (need 6 cores on a 4-core server), 1 + 1 can; user 2 on server 1 is independent (by hand)
    tv = fa.TimeVaryingInstance([[4, 4], [4, 4]], [[2, 2], [2, 2], [2, 2]], arrivals=[[4], [4], [4]],
                                durations=[1, 1, 1], placement=[[1, 0], [1, 0], [0, 1]])
    assert tv_flow_check(tv, [1, 1, 2])
    assert not tv_flow_check(tv, [2, 1, 0])
    assert not tv_flow_check(tv, [0, 0, 3])


def test_tv_flow_check_arrival_timing():
    # one server <2, 2>, tasks <2, 2> (one at a time), 2 slots; user 0 submits 2 tasks in the last
    # slot only: they can start only in slot 1, one of them (by hand). Submitted in slot 0, both
    # can start (one per slot)
    late = fa.TimeVaryingInstance([[2, 2]], [[2, 2]], arrivals=[[0, 2]], durations=[1])
    early = fa.TimeVaryingInstance([[2, 2]], [[2, 2]], arrivals=[[2, 0]], durations=[1])
    assert tv_flow_check(late, [1]) and not tv_flow_check(late, [2])
    assert tv_flow_check(early, [2])


def test_tv_flow_check_bad_shape_names_the_argument():
    tv = fa.TimeVaryingInstance([[2, 2]], [[2, 2]], arrivals=[[2, 0]], durations=[1])
    with pytest.raises(ValueError, match="required"):
        tv_flow_check(tv, [1, 1])


def _vector(r):
    return np.sort(r.shares if r.shares is not None else r.dominant_shares)


def _all(r, key):
    return sum(int(c.get(key, 0) or 0) for c in (r.stats.get("components") or [r.stats]))


@pytest.mark.parametrize("solver", [s for s in INSTALLED if s != "cbc"])
def test_flow_keeps_the_leximin_vector_on_seeded_instances(solver):
    # 10 seeded task instances x 2 mechanisms and 4 TV-TSF instances: the same proven leximin vector
    # with the max-flow check on and off (LP bounds on in both)
    cases, checks = 0, 0
    insts = [("tasks", random_task_instance(int(2 + s % 4), int(1 + s % 3), rng=s, max_tasks=12)) for s in range(10)]
    insts += [("tv", random_time_varying_instance(int(3 + s % 3), 3, 4, rng=s)) for s in range(4)]
    for kind, inst in insts:
        for mech in (("drf", "tsf") if kind == "tasks" else ("tvtsf",)):
            res = {}
            for on in (True, False):
                opts = flow_bounds(on)
                res[on] = (fa.exact.tasks_leximin(inst, mechanism=mech, solver=solver, leximin_options=opts)
                           if kind == "tasks" else fa.exact.tvtsf_milp(inst, solver=solver, leximin_options=opts))
            assert res[True].status is res[False].status is fa.Status.OPTIMAL
            np.testing.assert_allclose(_vector(res[True]), _vector(res[False]), atol=1e-9)
            assert _all(res[False], "flow_checks") == 0
            checks += _all(res[True], "flow_checks")
            cases += 1
    assert cases == 10 * 2 + 4 and checks > 0
