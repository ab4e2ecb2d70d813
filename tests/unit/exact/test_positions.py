"""The value-aware position driver (``fairalloc.exact.positions``, issue 30).

Specified four ways: each exact deduction and the combinatorial bound on hand-built states (no
solver: the expected bounds and fixed users are worked out in the comments); the count and query
rounds on a hand instance; the leximin vector against brute-force enumeration (``_exact_bruteforce``,
exact rationals from the definitions, not our MILP), with the default time slice and with a
one-microsecond slice that sends every position through the value search and the count fallback;
and against today's level driver on seeded programs, with every OPTIMAL TV-TSF schedule re-checked
by ``schedule_details`` (capacities, pending tasks, shares).
"""

from __future__ import annotations

import time
from collections import Counter

import numpy as np
import pulp
import pytest

import fairalloc as fa
from fairalloc.errors import InvalidInstanceError
from fairalloc.exact.leximin import Valuation, check_leximin_options, solve_leximin
from fairalloc.exact.milp import add_var
from fairalloc.exact.positions import PositionDriver
from fairalloc.exact.program import from_pulp, terms_of
from fairalloc.exact.rounds import Rounds
from fairalloc.exact.solvers import get_backend
from fairalloc.result import Status

from _exact_bruteforce import (best_leximin, best_maxmin, feasible_task_totals, feasible_tv_totals, task_values,  # noqa: E402
                               tiny_task_instance, tiny_tv_instance, tv_values)


def driver(slopes, upper, *, cap=None, lower=None):
    """A driver over users with values V_i = slopes[i] * X_i (integers, scale 1), 0 <= X_i <= upper[i],
    on the program sum X <= cap (no cap: every X_i free)."""
    n = len(slopes)
    p = pulp.LpProblem("hand", pulp.LpMaximize)
    xs = [add_var(p, f"x{i}", 0, upper[i], integer=True) for i in range(n)]
    if cap is not None:
        p += pulp.lpSum(xs) <= cap, "cap"
    prog = from_pulp(p, also=[x + 0 for x in xs])
    tot = [terms_of(x + 0, prog.index) for x in xs]
    r = Rounds(prog, tot, backend=get_backend("highs", "milp"), started=time.perf_counter(), time_limit=None,
               threads=1, msg=False, options=None, mip_gap=None, warm_start=True, export_dir=None, label="")
    val = Valuation(np.asarray(slopes, float), np.zeros(n), np.zeros(n, int) if lower is None else lower, upper)
    return PositionDriver(r, val, 1, objective="leximin", time_slice=None)


def tv_equals_brute_force(tv, opts):
    """Solve ``tv`` with these driver options; the proven leximin vector must be the enumerated one."""
    f = tv_values(tv)
    r = fa.exact.tvtsf_milp(tv, solver="highs", leximin_options=opts)
    assert r.status is Status.OPTIMAL, r.message
    assert tuple(sorted(f(tuple(r.tasks.sum(axis=(1, 2)))))) == best_leximin(f(x) for x in feasible_tv_totals(tv))
    return r


def task_equals_brute_force(ti, mech, opts):
    """Solve ``ti`` under ``mech`` with these driver options; the proven leximin vector must be the
    enumerated one."""
    f = task_values(ti, mech)
    r = fa.exact.tasks_leximin(ti, mechanism=mech, solver="highs", leximin_options=opts)
    assert r.status is Status.OPTIMAL, r.message
    assert tuple(sorted(f(tuple(r.tasks.sum(axis=1))))) == best_leximin(f(x) for x in feasible_task_totals(ti))
    return r


def state(d, open_values, floor, lo=None, hi=None):
    d.open = Counter(open_values)
    d.floor = floor
    for i, v in (lo or {}).items():
        d.lo[i] = v
    for i, v in (hi or {}).items():
        d.hi[i] = v


def test_rule_2_exactly_as_many_takers_as_copies_are_fixed():
    # V = (2X, 4X, 5X), open {8, 8}, floor 8: 8 is achievable by user 0 (X=4) and user 1 (X=2), not by
    # user 2 (8/5): two takers for two copies, both fixed. User 2 is then unmatched: V_2 >= 8, X_2 >= 2
    d = driver([2, 4, 5], [9, 9, 9])
    state(d, [8, 8], 8)
    d.deduce()
    assert d.free == [False, False, True] and (d.lo[0], d.hi[0], d.lo[1], d.hi[1]) == (4, 4, 2, 2)
    assert not d.open and d.lo[2] == 2 and d.stats["fixed_by_count"] == 2


def test_rule_3_a_user_below_the_floor_takes_its_one_open_value():
    # V = X for three users; user 0's cap is 3, below the floor 5, so it must take an open value; of
    # {3, 5} it can take only 3 (5 > its cap): fixed at 3. 5 is left to users 1 and 2 (two takers, one
    # copy: nothing fixed); both get X >= 5 (rule 4: the smallest value they could take is 5)
    d = driver([1, 1, 1], [3, 9, 9])
    state(d, [3, 5], 5)
    d.deduce()
    assert d.free == [False, True, True] and d.lo[0] == d.hi[0] == 3 and d.stats["fixed_by_cap"] == 1
    assert dict(d.open) == {5: 1} and d.lo[1:] == [5, 5]


def test_rule_3_as_many_able_users_as_open_values_must_all_take_one():
    # V = (X, X, 2X), open {4, 6}, floor 6; user 2 has X >= 4 (V >= 8), so it can take neither: users
    # 0 and 1 are the only two able and both must take an open value: bounds [4, 6] (the smallest and
    # largest value each can take), neither fixed (two values each)
    d = driver([1, 1, 2], [9, 9, 9])
    state(d, [4, 6], 6, lo={2: 4})
    d.deduce()
    assert d.free == [True, True, True]
    assert (d.lo[0], d.hi[0], d.lo[1], d.hi[1], d.lo[2]) == (4, 6, 4, 6, 4)


def test_rule_4_lower_bounds_from_the_smallest_value_a_user_could_take():
    # V = (2X, 3X, 3X), open {6}, floor 6: everyone can take 6 (X = 3, 2, 2); three takers for one
    # copy, nothing fixed; each gets the count of 6 as its lower bound
    d = driver([2, 3, 3], [9, 9, 9])
    state(d, [6], 6)
    d.deduce()
    assert d.free == [True] * 3 and d.lo == [3, 2, 2] and d.hi == [9, 9, 9]


def test_combinatorial_bound_is_the_largest_cap_whose_lower_caps_can_be_matched():
    # V = X, caps 2, 4, 7, open {2}, floor 2. c = 7: users 0 and 1 (caps below 7) would both need the
    # single open value: no. c = 4: user 0 alone takes 2 (its cap): yes. So the next entry is <= 4
    d = driver([1, 1, 1], [2, 4, 7])
    state(d, [2], 2)
    assert d.upper_bound() == 4


def test_count_and_query_rounds_by_hand():
    # three users, V = X, X_i <= 3, X_0 + X_1 + X_2 <= 4. State after the first entry: open {1}, floor 1,
    # kept solution (1, 1, 2). Query "the two unmatched users >= 2": 1 + 2 + 2 = 5 > 4, infeasible.
    # Count: one user at 1, the others >= 1, total <= 4: at most one above 1 (1 + 1 + 2), so K = 1 and
    # 3 - 1 - 1 = 1 more entry equals 1 (the leximin vector is (1, 1, 2))
    d = driver([1, 1, 1], [3, 3, 3], cap=4)
    state(d, [1], 1)
    prog, _ = d.program("position", level=1, zub=3)
    d.r.keep(np.array([1.0, 1.0, 2.0] + [0.0] * (prog.n_cols - 3))[:d.r.base.n_cols])
    assert d.query(2, None) is False
    assert d.count() == 1 and sorted(d.r.totals.tolist()) == [1, 1, 2]     # the count's solution is kept
    assert d.query(1, None) is True


def test_lp_bounds_prove_a_position_by_hand():
    # the instance above, state open {1}, floor 1, kept (1, 1, 2): incumbent N = 1 (the second smallest),
    # combinatorial bound 3. The position LP with big-M K - 1: z <= X_i + (K - 1) u_i, sum u = 1,
    # sum X <= 4, so 3 z <= 4 + (K - 1). K = 3: z <= 2 (reached at X_i = 4/3, u_i = 1/3), so K = 2
    # (achievable); K = 2: z <= 5/3, and no achievable value lies in (1, 5/3]: K = 1 = the incumbent,
    # the position (1) is proven by two LPs and no MILP
    d = driver([1, 1, 1], [3, 3, 3], cap=4)
    state(d, [1], 1)
    prog, _ = d.program("position", level=1, zub=3)
    d.r.keep(np.array([1.0, 1.0, 2.0] + [0.0] * (prog.n_cols - 3))[:d.r.base.n_cols])
    assert d.upper_bound() == 3
    assert d.tighten(1, 3) == 1
    assert (d.stats["lp_rounds"], d.stats["bigm_tightened"]) == (2, 2)
    assert d.solve_position() == [1] and d.stats["positions_by_lp"] == 1 and not d.r.rounds


@pytest.mark.parametrize("after_stall", ["unsliced", "double"])
def test_after_a_stalled_search_the_position_is_solved_again_unsliced_or_with_twice_the_slice(after_stall):
    # the hand instance at its second position (open {1}, floor 1, kept (1, 1, 2), slice 1 s). The first
    # position MILP is made to look stopped by its slice (its answer turned FEASIBLE without a bound) and
    # the search is scripted to leave values open ("again"): the second MILP must get no slice
    # ("unsliced") or 2 s of CPU (wall_for(2.0); "double"), and then proves the position (1)
    from dataclasses import replace

    d = driver([1, 1, 1], [3, 3, 3], cap=4)
    d.time_slice, d.lp_bounds, d.after_stall = 1.0, False, after_stall
    state(d, [1], 1)
    d.found = [1]
    prog, _ = d.program("position", level=1, zub=3)
    d.r.keep(np.array([1.0, 1.0, 2.0] + [0.0] * (prog.n_cols - 3))[:d.r.base.n_cols])
    slices, solve = [], d.r.solve

    def scripted(kind, prog, **kw):
        slices.append(kw.get("time_slice"))
        out, x = solve(kind, prog, **kw)
        return (replace(out, status=Status.FEASIBLE, stats={}), x) if len(slices) == 1 else (out, x)

    d.r.solve = scripted
    d.search = lambda inc, zub, slice_: ("again", (inc, zub))
    assert d.solve_position() == [1]
    assert slices[0] == d.r.wall_for(1.0) and len(slices) == 2
    assert slices[1] is None if after_stall == "unsliced" else slices[1] == d.r.wall_for(2.0)


def test_a_query_left_open_is_asked_of_the_second_backend():
    # the hand instance (open {1}, floor 1, kept (1, 1, 2)); HiGHS is made to leave every query open
    # (NOT_SOLVED, scripted), so CP-SAT (query_solver) answers: "both unmatched users >= 2" needs
    # 1 + 2 + 2 = 5 > 4 tasks, infeasible; ">= 1" is feasible (by hand, as above)
    from dataclasses import replace

    d = driver([1, 1, 1], [3, 3, 3], cap=4)
    d.query_backend = get_backend("cpsat", "milp")
    state(d, [1], 1)
    prog, _ = d.program("position", level=1, zub=3)
    d.r.keep(np.array([1.0, 1.0, 2.0] + [0.0] * (prog.n_cols - 3))[:d.r.base.n_cols])
    solve = d.r.solve

    def highs_stalls(kind, prog, **kw):
        out, x = solve(kind, prog, **kw)
        if kw.get("backend") is None:
            return replace(out, status=Status.NOT_SOLVED), None
        return out, x

    d.r.solve = highs_stalls
    assert d.query(2, None) is False and d.query(1, None) is True
    assert d.stats["queries_cpsat"] == 2
    assert [r.get("backend") for r in d.r.rounds] == [None, "cpsat", None, "cpsat"]


def test_sliced_first_position_and_second_backend_equal_brute_force():
    # first_slice and query_solver="cpsat" with one-microsecond slices: every position, the max-min
    # one too, goes through the value search, its queries to both backends (which answers depends on
    # the machine; the vector may not)
    opts = {"time_slice": 1e-6, "first_slice": 1e-6, "query_solver": "cpsat"}
    for seed in range(3):
        tv_equals_brute_force(tiny_tv_instance(620 + seed, identical=seed % 2 == 0), opts)


def test_search_after_a_stalled_query_keeps_the_values_above_it_open():
    # the value search with scripted answers (no solver): two users, V = X, the next entry's true value
    # is 14 (a query "both >= c" is feasible exactly for c <= 14). The first query (c = 10, the median of
    # 1..20) stalls; the search goes on below it; c = 5 is feasible with a solution whose entry is 12,
    # above the stalled value: the values above 12 were never refuted, so the search must go on up to
    # 20 (16 no, 14 yes, 15 no) and end at 14, not at 12
    d = driver([1, 1], [20, 20])
    asked = []

    def query(c, time_slice):
        asked.append(c)
        if len(asked) == 1:
            return None                                   # stalled
        if c > 14:
            return False
        d.r.totals = np.array([max(c, 12), 20])           # a feasible solution: its entry max(c, 12)
        return True

    d.query = query
    d.count_fallback = False
    assert d.search(0, 20, 1.0) == ("done", [14])
    assert asked == [10, 5, 16, 14, 15]


def _scripted_queries(d, truth, refute_answers):
    """Script ``d.query``: the sequence's backend answers by ``truth`` (c -> True/False/None), the
    refutation backend by ``refute_answers`` (c -> False or None); records (kind, c)."""
    asked = []

    def query(c, time_slice, *, backend=None, kind="query"):
        asked.append((kind, c, time_slice))
        ans = refute_answers(c) if kind == "refute" else truth(c)
        if ans:
            d.r.totals = np.array([c, 20])          # a feasible solution: its entry is c
        return ans

    d.query = query
    d.count_fallback = False
    d.refute_backend, d.refute_slice = object(), 0.5     # any backend: the answers are scripted
    return asked


def test_refutation_from_the_top_lowers_the_bound_and_asks_the_stalled_value_first():
    # two users, V = X <= 20, incumbent 0. The refutation backend proves "both >= c" infeasible for
    # c >= 17 and stalls at 16: the bound falls 20 -> 19 -> 18 -> 17 -> 16 exactly (each value refuted is
    # the top of what is left), 16 is asked next of the sequence's backend, which stalls too: the search
    # ends "again" with the bound 16 (not lower: a time limit decides nothing) and z capped at 16
    d = driver([1, 1], [20, 20])
    asked = _scripted_queries(d, truth=lambda c: None, refute_answers=lambda c: False if c >= 17 else None)
    assert d.search(0, 20, 1.0) == ("again", (0, 16))
    assert asked == [("refute", c, 0.5) for c in (20, 19, 18, 17, 16)] + [("query", 16, 1.0)]
    assert d.zcap == 16 and d.stats["refuted"] == 4 and d.stats["top_stalled"] == 1
    # the next search (after the position MILP, with twice the slice): 16 is not offered to the
    # refutation backend a second time, only asked again of the sequence's backend
    asked.clear()
    assert d.search(0, 16, 2.0) == ("again", (0, 16)) and asked == [("query", 16, 2.0)]


def test_a_stalled_refutation_decides_nothing():
    # truth: "both >= c" feasible exactly for c <= 14; the refutation backend stalls on every value. A
    # stall lowers nothing (no z cap, nothing counted refuted): each top is asked of the sequence's
    # backend, whose "no" (20 .. 15) lowers the bound one value and whose "yes" at 14 proves the position
    d = driver([1, 1], [20, 20])
    asked = _scripted_queries(d, truth=lambda c: c <= 14, refute_answers=lambda c: None)
    assert d.search(0, 20, 1.0) == ("done", [14])
    assert d.stats["refuted"] == 0 and d.stats["refutations"] == 7
    assert [(k, c) for k, c, _ in asked] == [(k, c) for c in range(20, 13, -1) for k in ("refute", "query")]
    # without a refutation backend: the bisection alone (10 yes, 15 no, 12 yes, 13 yes, 14 yes)
    d = driver([1, 1], [20, 20])
    asked = _scripted_queries(d, truth=lambda c: c <= 14, refute_answers=lambda c: None)
    d.refute_backend = None
    assert d.search(0, 20, 1.0) == ("done", [14])
    assert [(k, c) for k, c, _ in asked] == [("query", c) for c in (10, 15, 12, 13, 14)] and d.zcap is None


def test_a_refutation_that_finds_the_top_proves_the_position():
    # truth: feasible for c <= 14; the refutation backend refutes 20..15 and then *finds* 14 (a
    # solution with both users >= 14): 14 is the top of what is left, so the position is 14, no query
    d = driver([1, 1], [20, 20])
    asked = _scripted_queries(d, truth=lambda c: c <= 14, refute_answers=lambda c: False if c >= 15 else True)
    assert d.search(0, 20, 1.0) == ("done", [14])
    assert [k for k, *_ in asked] == ["refute"] * 7


@pytest.mark.parametrize("backend", ["cpsat", "highs"])
def test_refutations_prove_a_position_by_hand(backend):
    # three users, V = X <= 3, X_0 + X_1 + X_2 <= 4, state open {1}, floor 1, kept (1, 1, 2): the
    # incumbent N = 1, the values left (1, 3] = {2, 3}. "The two unmatched users >= 3" needs 1 + 3 + 3 = 7
    # > 4 tasks and ">= 2" needs 5 > 4: both refuted (by hand), the bound falls 3 -> 2 -> 1 = N, and the
    # position (1) is proven by two refutations and no query
    d = driver([1, 1, 1], [3, 3, 3], cap=4)
    d.refute_backend, d.refute_slice = get_backend(backend, "milp"), None     # no slice: no verdict by speed
    state(d, [1], 1)
    prog, _ = d.program("position", level=1, zub=3)
    d.r.keep(np.array([1.0, 1.0, 2.0] + [0.0] * (prog.n_cols - 3))[:d.r.base.n_cols])
    assert d.search(1, 3, None) == ("done", [1])
    assert [r["kind"] for r in d.r.rounds] == ["refute", "refute"]
    assert [r["status"] for r in d.r.rounds] == ["infeasible", "infeasible"]
    assert d.zcap == 1 and d.stats["queries"] == 0


@pytest.mark.parametrize("refute_solver", ["cpsat", "highs", None])
def test_refutations_equal_brute_force(refute_solver):
    # one-microsecond slices everywhere (the max-min position too): every position goes through the
    # value search, its refutations (which answer in time depends on the machine; the vector may not)
    opts = {"time_slice": 1e-6, "first_slice": 1e-6, "refute_solver": refute_solver, "refute_slice": 1e-6}
    for seed in range(3):
        tv_equals_brute_force(tiny_tv_instance(640 + seed, identical=seed % 2 == 0), opts)
    opts["refute_slice"] = 5.0           # refutations that finish (a safety cap, not a verdict)
    for seed in range(3):
        ti = tiny_task_instance(540 + seed, identical=seed % 2 == 0)
        f = task_values(ti, "tsf")
        task_equals_brute_force(ti, "tsf", opts)
        m = fa.exact.tasks_leximin(ti, mechanism="tsf", objective="maxmin", solver="highs", leximin_options=opts)
        assert m.status is Status.OPTIMAL
        assert min(f(tuple(m.tasks.sum(axis=1)))) == best_maxmin([f(x) for x in feasible_task_totals(ti)],
                                                                 list(range(ti.n_agents)))


def test_the_driver_runs_end_to_end_on_the_hand_instance():
    d = driver([1, 1, 1], [3, 3, 3], cap=4)
    out = d.run()
    assert out.status is Status.OPTIMAL and out.leximin == [(1.0, 2), (2.0, 1)]
    assert sorted(out.totals.tolist()) == [1, 1, 2]


@pytest.mark.parametrize("time_slice", [2.0, 1e-6])
def test_positions_equal_brute_force(time_slice):
    # 8 tiny task instances x TSF, DRF, SDRF (with commitments) and CDRF, 6 tiny TV-TSF instances: the
    # proven leximin vector equals the enumerated optimum. A one-microsecond slice stops every
    # position MILP at once: the entries then come from the value search, the doubled slices and the
    # count fallback (which paths ran depends on the machine; the vector may not)
    opts = {"driver": "positions", "time_slice": time_slice}
    by_lp = 0                 # positions proven by the LP bounds alone (default lp_bounds=True)
    for seed in range(8):
        ti = tiny_task_instance(500 + seed, identical=seed % 2 == 0, commitments=seed % 3 == 0)
        feasible = feasible_task_totals(ti)
        for mech in ("tsf", "drf", "sdrf", "cdrf"):
            f = task_values(ti, mech)
            r = fa.exact.tasks_leximin(ti, mechanism=mech, solver="highs", leximin_options=opts)
            assert r.status is Status.OPTIMAL, r.message
            by_lp += sum(c.get("positions_by_lp", 0) for c in r.stats.get("components", []))
            got = tuple(sorted(f(tuple(r.tasks.sum(axis=1)))))
            assert got == best_leximin(f(x) for x in feasible), (seed, mech)
    for seed in range(6):
        r = tv_equals_brute_force(tiny_tv_instance(600 + seed, identical=seed % 2 == 0), opts)
        by_lp += sum(c.get("positions_by_lp", 0) for c in r.stats.get("components", []))
    assert by_lp > 0          # the LP-bound path ran and its vectors are the enumerated ones


def test_cpsat_and_maxmin_equal_brute_force():
    for seed in range(4):
        tv = tiny_tv_instance(700 + seed, identical=seed % 2 == 0)
        f = tv_values(tv)
        feasible = feasible_tv_totals(tv)
        r = fa.exact.tvtsf_milp(tv, solver="cpsat")
        assert r.status is Status.OPTIMAL and r.stats["components"][0]["driver"] == "positions"
        assert tuple(sorted(f(tuple(r.tasks.sum(axis=(1, 2)))))) == best_leximin(f(x) for x in feasible)
        movable = [i for i in range(tv.n_agents) if tv.arrivals[i].sum() > 0]
        m = fa.exact.tvtsf_milp(tv, objective="maxmin", solver="highs")
        assert m.status is Status.OPTIMAL
        if movable:
            assert min(f(tuple(m.tasks.sum(axis=(1, 2))))[i] for i in movable) == best_maxmin(
                [f(x) for x in feasible], movable)


def _schedule_is_feasible(tv, r):
    """Independent re-check of a TV-TSF schedule from its per-slot figures (schedule_details)."""
    det = fa.exact.schedule_details(tv, r.tasks)
    caps = tv.cluster.capacities
    assert (det["usage"] <= caps[:, :, None] * (1 + 1e-9) + 1e-9).all()
    assert (det["pending"] >= 0).all()
    assert (r.tasks[~tv.placement.astype(bool)[:, :, None].repeat(tv.n_slots, axis=2)] == 0).all()
    np.testing.assert_allclose(det["cumulative_shares"][:, -1], r.shares, atol=1e-12)


def _dense_with_twin(seed):
    """A small dense TV-TSF instance whose user 0 is duplicated (same demands, arrivals, duration,
    placement): ties the driver must settle."""
    from fairalloc.exact.random_instances import dense_time_varying_instance

    tv = dense_time_varying_instance(4, 3, 5, rng=seed, tasks_per_slot=(2, 4))
    dup = lambda a: np.concatenate([a, a[:1]], axis=0)          # noqa: E731
    return fa.TimeVaryingInstance(tv.cluster, dup(tv.task_demands), dup(tv.arrivals), dup(tv.durations),
                                  placement=dup(tv.placement))


def test_positions_equal_the_level_driver_on_seeded_and_tie_forced_programs():
    # today's driver as the reference it replaces (a change detector beside the brute-force tests):
    # compare's first random task instances under every mechanism, and dense TV-TSF instances with a
    # duplicated user; every OPTIMAL schedule re-checked
    from fairalloc.experiments.compare import random_instances

    insts = random_instances(8, 0, rng=0)
    cases = 0
    for name, ti in insts:
        for mech in ("drf", "sdrf", "tsf", "cdrf"):
            a = fa.exact.tasks_leximin(ti, mechanism=mech, solver="highs", leximin_options={"driver": "levels"})
            b = fa.exact.tasks_leximin(ti, mechanism=mech, solver="highs")
            assert a.status is b.status is Status.OPTIMAL
            np.testing.assert_allclose(np.sort(a.shares), np.sort(b.shares), atol=1e-12)
            cases += 1
    for seed in range(4):
        tv = _dense_with_twin(seed)
        a = fa.exact.tvtsf_milp(tv, solver="highs", leximin_options={"driver": "levels"})
        b = fa.exact.tvtsf_milp(tv, solver="highs")
        assert a.status is b.status is Status.OPTIMAL
        np.testing.assert_allclose(np.sort(a.shares), np.sort(b.shares), atol=1e-12)
        np.testing.assert_allclose(a.details["leximin"], b.details["leximin"], atol=1e-12)
        _schedule_is_feasible(tv, a)
        _schedule_is_feasible(tv, b)
        cases += 1
    assert cases == 8 * 4 + 4


def test_a_time_limit_gives_a_feasible_unproven_result():
    # a limit too short for the dense 10 x 10 x 20 instance: never OPTIMAL, the schedule still valid
    from fairalloc.exact.random_instances import dense_time_varying_instance

    tv = dense_time_varying_instance(10, 10, 20, rng=1)
    r = fa.exact.tvtsf_milp(tv, solver="highs", time_limit=3.0)
    assert r.status is not Status.OPTIMAL
    if r.tasks is not None:
        _schedule_is_feasible(tv, r)


def test_driver_options_are_checked_and_named():
    with pytest.raises(InvalidInstanceError, match=r"leximin_options\['driver'\]='fast' must be one of"):
        check_leximin_options({"driver": "fast"})
    with pytest.raises(InvalidInstanceError, match=r"leximin_options\['nope'\] is not an option"):
        fa.exact.tvtsf_milp(tiny_tv_instance(1), leximin_options={"nope": 1})
    with pytest.raises(InvalidInstanceError, match=r"time_slice'\]=0 must be a positive number"):
        check_leximin_options({"time_slice": 0})
    with pytest.raises(InvalidInstanceError, match=r"lp_bounds'\]='yes' must be True or False"):
        check_leximin_options({"lp_bounds": "yes"})
    with pytest.raises(InvalidInstanceError, match=r"after_stall'\]='twice' must be one of 'unsliced', 'double'"):
        check_leximin_options({"after_stall": "twice"})
    with pytest.raises(InvalidInstanceError, match=r"query_solver'\]='gurobi' must be one of None, 'highs'"):
        check_leximin_options({"query_solver": "gurobi"})
    with pytest.raises(InvalidInstanceError, match=r"first_slice'\]=-1 must be a positive number"):
        check_leximin_options({"first_slice": -1})
    with pytest.raises(InvalidInstanceError, match=r"split_matchings'\]=-1 must be a nonnegative integer"):
        check_leximin_options({"split_matchings": -1})
    with pytest.raises(InvalidInstanceError, match=r"split_matchings'\]=True must be a nonnegative integer"):
        check_leximin_options({"split_matchings": True})


def test_values_that_do_not_scale_to_integers_run_the_level_driver():
    p = pulp.LpProblem("irr", pulp.LpMaximize)
    x0 = add_var(p, "x0", 0, 3, integer=True)
    x1 = add_var(p, "x1", 0, 3, integer=True)
    p += x0 + x1 <= 4, "cap"
    out = solve_leximin(p, [x0 + 0, x1 + 0], Valuation([2 ** 0.5, 1.0], [0, 0], [0, 0], [3, 3]),
                        objective="leximin", backend=get_backend("highs", "milp"))
    assert out.status is Status.OPTIMAL and out.stats["driver"] == "levels" and "integer" in out.stats["driver_note"]


@pytest.mark.parametrize("free_disposal", [False, True])
def test_exact_counts_and_free_disposal_equal_brute_force(free_disposal):
    # free_disposal=False asks fixed and matched users for their exact counts even where the formulation
    # could take "at least" (TV-TSF and the task models have free disposal); one-microsecond slices send
    # every position through the value search, the refutations and the count fallback
    opts = {"time_slice": 1e-6, "first_slice": 1e-6, "refute_slice": 1e-6, "free_disposal": free_disposal}
    for seed in range(4):
        tv = tiny_tv_instance(660 + seed, identical=seed % 2 == 0)
        _schedule_is_feasible(tv, tv_equals_brute_force(tv, opts))
    for seed in range(3):
        task_equals_brute_force(tiny_task_instance(560 + seed, identical=seed % 2 == 0), "drf", opts)


def test_without_free_disposal_a_fixed_user_is_held_at_its_count():
    # the hand program (3 users, X_i <= 3, X_0 + X_1 + X_2 <= 4); user 0 fixed at 1 task: with free
    # disposal its row is X_0 >= 1 (no upper side), with exact counts 1 <= X_0 <= 1
    for disposable, hi in ((True, None), (False, 1.0)):
        d = driver([1, 1, 1], [3, 3, 3], cap=4)
        d.disposable = disposable
        d.open, d.floor = Counter({1: 1}), 1
        d.fix(0, 1)
        prog, _ = d.program("query", level=1)
        j = prog.row_names.index("pfix_0")
        assert prog.row_lo[j] == 1.0
        assert (not np.isfinite(prog.row_hi[j])) if hi is None else prog.row_hi[j] == hi
    # and through solve_leximin: the option turns the formulation's free disposal off
    p = pulp.LpProblem("hand", pulp.LpMaximize)
    xs = [add_var(p, f"x{i}", 0, 3, integer=True) for i in range(3)]
    p += pulp.lpSum(xs) <= 4, "cap"
    val = Valuation([1.0] * 3, [0.0] * 3, [0] * 3, [3] * 3)
    for fd in (True, False):
        out = solve_leximin(p, [x + 0 for x in xs], val, objective="leximin", backend=get_backend("highs", "milp"),
                            disposable=True, free_disposal=fd)
        assert out.status is Status.OPTIMAL and out.leximin == [(1.0, 2), (2.0, 1)]
        assert out.stats["free_disposal"] == int(fd)
    with pytest.raises(InvalidInstanceError, match=r"free_disposal'\]='no' must be True or False"):
        check_leximin_options({"free_disposal": "no"})


def test_a_solve_stopped_at_the_old_incumbents_gap_is_solved_again_not_searched():
    # two users, V = X <= 20, X_0 + X_1 <= 30: the max-min (first position) is 15. The first solve starts
    # from incumbent 0 and is told to stop within 0.5 of it; it is scripted to come back OPTIMAL with a
    # better incumbent (12, 18), entry 12, and its bound at 14: values 13 and 14 are left in (12, 14], so
    # nothing is proven, but it did not stall either. The driver must solve the position again (gap from
    # 12) rather than search, and that solve proves 15
    from dataclasses import replace

    d = driver([1, 1], [20, 20], cap=30)
    d.lp_bounds = False
    calls, solve = [], d.r.solve

    def scripted(kind, prog, **kw):
        calls.append((kind, kw.get("proven")))
        out, x = solve(kind, prog, **kw)
        if len(calls) == 1:
            x = np.zeros(prog.n_cols)
            x[d.r.base.index["x0"]], x[d.r.base.index["x1"]] = 12, 18
            return replace(out, status=Status.OPTIMAL, objective=12.0, stats={**out.stats, "bound": 14.0}), x
        return out, x

    d.r.solve = scripted
    d.search = lambda *a: pytest.fail("a stop at the gap asked for is not a stall: no value search")
    assert d.solve_position() == [15]
    assert [k for k, _ in calls] == ["position", "position"] and d.stats["resolved_at_gap"] == 1
    assert calls[0][1] == 0.5 and calls[1][1] == 0.5      # 13 - 12 - 1/2: the gap of the new incumbent


def hand_threshold(cap, upper):
    """The threshold backend of the hand program sum X <= cap, 0 <= X_i <= upper[i], by hand: bounds
    lower <= X <= hi are met exactly when lower <= min(hi, upper) and sum(lower) <= cap (then X = lower)."""
    asked = []

    def oracle(lower, hi, cpu_limit, time_limit=None):
        asked.append((tuple(int(v) for v in lower), tuple(int(v) for v in hi)))
        if (np.asarray(lower) > np.minimum(hi, upper)).any() or sum(lower) > cap:
            return False, None
        return True, {f"x{i}": float(v) for i, v in enumerate(lower)}
    return oracle, asked


def test_threshold_backend_asks_one_question_per_matching_by_hand():
    # the state of test_count_and_query_rounds_by_hand: open {1}, floor 1, sum X <= 4, X_i <= 3. Query
    # "the two unmatched users >= 2": any of the three users can take the open 1, so three threshold
    # questions (1, 2, 2), (2, 1, 2), (2, 2, 1), each of sum 5 > 4: refuted without a MILP. At 1 the first
    # matching (1, 1, 1) is feasible and its solution is kept
    d = driver([1, 1, 1], [3, 3, 3], cap=4)
    d.threshold, asked = hand_threshold(4, [3, 3, 3])
    state(d, [1], 1)
    assert d.query(2, None) is False
    assert sorted(lo for lo, _ in asked) == [(1, 2, 2), (2, 1, 2), (2, 2, 1)]
    assert [rd["backend"] for rd in d.r.rounds] == ["threshold"] and d.r.rounds[0]["status"] == "infeasible"
    asked.clear()
    assert d.query(1, None) is True and d.r.totals.tolist() == [1, 1, 1]
    assert len(asked) == 1 and d.stats["threshold_found"] == 1
    # more matchings than max_matchings: not asked, the MILP backend answers (the same "no")
    d.max_matchings = 2
    asked.clear()
    assert d.query(2, None) is False and asked == [] and d.stats["threshold_skipped"] == 1
    assert d.r.rounds[-1].get("backend") is None


def test_threshold_backend_undecided_falls_back_to_the_milp():
    d = driver([1, 1, 1], [3, 3, 3], cap=4)
    d.threshold = lambda lower, hi, cpu_limit, time_limit=None: (None, None)
    state(d, [1], 1)
    assert d.query(2, None) is False                    # HiGHS proves it after the backend's "don't know"
    assert [rd.get("backend") for rd in d.r.rounds] == ["threshold", None]
    assert d.r.rounds[0]["status"] == "not_solved"


def test_threshold_backend_equals_brute_force():
    # tiny TV-TSF instances with the pattern backend (threshold_solver="patterns") and a one-microsecond
    # slice, so that values are searched by refutations and queries; the refutations get 60 CPU seconds,
    # which the backend (asked first) needs milliseconds of here: the proven vector is the enumerated one
    opts = {"driver": "positions", "time_slice": 1e-6, "refute_slice": 60.0, "threshold_solver": "patterns",
            "lp_bounds": False}
    decided = Counter()
    for seed in (0, 1, 2, 3, 21, 23, 25, 27):
        r = tv_equals_brute_force(tiny_tv_instance(600 + seed, max_slots=4, identical=seed % 2 == 0), opts)
        for c in r.stats["components"]:
            decided.update({k: c.get(k, 0) for k in ("threshold_found", "threshold_refuted")})
    assert decided["threshold_found"] > 0 and decided["threshold_refuted"] > 0     # both answers were used


def test_by_matching_equals_brute_force():
    # a one-microsecond slice stops every position MILP at once; with open values the position is then
    # solved as one program per matching (``split_matchings``, module docstring "By matching"), slices
    # doubling for the matchings left open: the proven vector is the enumerated one
    opts = {"driver": "positions", "time_slice": 1e-6, "split_matchings": 64, "lp_bounds": False}
    split = 0
    for seed in range(4):
        ti = tiny_task_instance(500 + seed, identical=seed % 2 == 0, commitments=seed % 3 == 0)
        for mech in ("tsf", "drf"):
            r = task_equals_brute_force(ti, mech, opts)
            split += sum(c.get("split_positions", 0) for c in r.stats.get("components", []))
    for seed in (0, 2, 4, 6):
        r = tv_equals_brute_force(tiny_tv_instance(600 + seed, identical=True), opts)
        split += sum(c.get("split_positions", 0) for c in r.stats.get("components", []))
    assert split > 0          # the by-matching path ran


def test_a_matching_inside_a_set_proven_empty_is_skipped_by_hand():
    # V = X for three users. Proven before: no allocation with X_0 = 2 and every other user >= 5
    # (module docstring, "By matching"). A later matching's set lies inside it when user 0 is still at
    # 2, a user fixed since has a value >= 5 and the unmatched users must exceed the incumbent 4 (so
    # >= 5); not when the fixed user is at 4, user 0 at 3, or the incumbent is 3 (unmatched >= 4 only)
    d = driver([1, 1, 1], [9, 9, 9])
    d.no_schedule = [({0: 2}, 5)]
    d.floor = 4

    def empty(x0, x1, inc):
        d.lo[:], d.hi[:], d.free[:] = [x0, x1, 0], [x0, x1, 9], [False, False, True]
        return d._known_empty(inc)

    assert empty(2, 6, 4) and empty(2, 5, 4)
    assert not empty(2, 4, 4) and not empty(3, 6, 4) and not empty(2, 6, 3)


def test_a_pair_only_empty_sets_use_is_ruled_out_and_rule_2_fixes_by_hand():
    # V = X for three users, open {2}, floor 3, user 2 at X >= 3 (cannot take 2). Proven before: no
    # allocation with X_0 = 2 and every other user >= 3. The matching {0: 2} lies inside that set (its
    # unmatched users 1 and 2 are >= the floor 3), so user 0 cannot take 2; user 1 is then the only
    # taker of one copy and rule 2 fixes it at 2
    d = driver([1, 1, 1], [9, 9, 9])
    state(d, [2], 3, lo={2: 3})
    d.no_schedule = [({0: 2}, 3)]
    d.deduce()
    assert (0, 2) in d.dead and d.stats["pairs_ruled_out"] == 1
    assert d.free == [True, False, True] and d.lo[1] == d.hi[1] == 2 and not d.open
