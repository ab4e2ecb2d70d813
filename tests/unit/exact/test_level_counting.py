"""Leximin levels found by counting (the level driver's ``level_by_count`` option, issue 14) against
brute-force enumeration (``_exact_bruteforce``, exact rationals from the definitions), on every MILP
backend and in every mode: "ties" (the default), "always" and "never" (the level MILP everywhere)."""

from __future__ import annotations

import pytest

import fairalloc as fa
from fairalloc.result import Status

from _exact_bruteforce import (best_leximin, feasible_task_totals, feasible_tv_totals, task_values,  # noqa: E402
                               tiny_task_instance, tiny_tv_instance, tv_values)
from _solvers import MILP_SOLVERS  # noqa: E402


def level_by_count(mode: str) -> dict:
    """The level driver with ``level_by_count=mode`` (``leximin_options`` of the formulations)."""
    return {"driver": "levels", "level_by_count": mode}


def _count(r, key):
    return sum(int(c.get(key, 0) or 0) for c in (r.stats.get("components") or [r.stats]))


@pytest.mark.parametrize("solver", MILP_SOLVERS)
@pytest.mark.parametrize("mode", ["ties", "always"])
def test_levels_by_counting_equal_brute_force(mode, solver):
    # 10 tiny task instances x TSF and DRF, 6 tiny TV-TSF instances: the proven leximin vector equals
    # the enumerated optimum, and counting was used somewhere (else the test would test nothing)
    used = 0
    opts = level_by_count(mode)
    for seed in range(10):
        ti = tiny_task_instance(300 + seed, identical=seed % 3 == 0)
        feasible = feasible_task_totals(ti)
        for mech in ("tsf", "drf"):
            f = task_values(ti, mech)
            r = fa.exact.tasks_leximin(ti, mechanism=mech, solver=solver, leximin_options=opts)
            assert r.status is Status.OPTIMAL, r.message
            assert tuple(sorted(f(tuple(r.tasks.sum(axis=1))))) == best_leximin(f(x) for x in feasible), (seed, mech)
            used += _count(r, "levels_by_count")
    for seed in range(6):
        tv = tiny_tv_instance(400 + seed, identical=seed % 2 == 0)
        f = tv_values(tv)
        r = fa.exact.tvtsf_milp(tv, solver=solver, leximin_options=opts)
        assert r.status is Status.OPTIMAL, r.message
        assert tuple(sorted(f(tuple(r.tasks.sum(axis=(1, 2)))))) == best_leximin(f(x) for x in feasible_tv_totals(tv))
        used += _count(r, "levels_by_count")
    assert used > 0


def test_a_tie_level_is_found_by_counting_not_by_the_big_m_level_milp():
    # three identical users on one server <4, 4>, tasks <1, 1>, 2 wanted each, weights 1: TSF values
    # X_i / 4 (h_i = 4). 4 tasks fit: every user gets 1 (level 1/4), then only one more task fits: one
    # user at 2/4, two stay at 1/4 (by hand). The second level is a tie level (all three can rise
    # alone, only one together): "never" builds its big-M level program (tie_levels 1), "ties" counts
    ti = fa.TaskInstance([[4, 4]], [[1, 1]] * 3, [2, 2, 2])
    res = {}
    for mode in ("never", "ties"):
        res[mode] = fa.exact.tasks_leximin(ti, mechanism="tsf", solver="highs", leximin_options=level_by_count(mode))
    for r in res.values():
        assert r.status is Status.OPTIMAL
        assert sorted(r.tasks.sum(axis=1).tolist()) == [1, 1, 2]
        assert r.details["leximin"].tolist() == [[0.25, 2], [0.5, 1]]
    assert _count(res["never"], "levels_by_count") == 0 and _count(res["never"], "tie_levels") == 1
    assert _count(res["ties"], "levels_by_count") == 1 and _count(res["ties"], "tie_levels") == 0
