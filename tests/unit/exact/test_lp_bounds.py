"""LP-relaxation bounds of the leximin driver (``fairalloc.exact.lp_bounds``) and the MILPs they skip.

Soundness is checked three ways: the bounds against hand-computed LP optima; the leximin vector with
the bounds on against the same driver with them off (seeded random instances, a fixed case count);
and, through ``tests/property/test_exact_leximin.py`` (bounds on by default), against brute-force
enumeration on tiny instances.
"""

from __future__ import annotations

import numpy as np
import pulp
import pytest

import fairalloc as fa
from fairalloc.exact.lp_bounds import LP_SLACK, lp_max, lp_max_totals
from fairalloc.exact.milp import add_var
from fairalloc.exact.program import from_pulp, terms_of
from fairalloc.exact.random_instances import random_task_instance, random_time_varying_instance
from fairalloc.experiments.compare import random_instances

INSTALLED = [s for s in ("highs", "cpsat", "cbc") if s in fa.available_solvers("milp")]


def lp_bounds(on: bool) -> dict:
    """The level driver with its LP bounds on or off (``leximin_options`` of the formulations)."""
    return {"driver": "levels", "lp_bounds": on}


def _two_users():
    # 2x + 2y <= 5, x, y integer in [0, 3]: by hand, the LP maxima are x = 2.5 and y = 2.5, the integer
    # maxima 2; the LP maximum of x + y is 2.5
    p = pulp.LpProblem("two", pulp.LpMaximize)
    x = add_var(p, "x", 0, 3, integer=True)
    y = add_var(p, "y", 0, 3, integer=True)
    p += 2 * x + 2 * y <= 5, "cap"
    p += x + y
    prog = from_pulp(p, also=[x + 0, y + 0])
    return prog, [terms_of(x + 0, prog.index), terms_of(y + 0, prog.index)]


def test_lp_max_totals_rounds_the_lp_maximum_down():
    prog, tot = _two_users()
    assert lp_max_totals(prog, tot).tolist() == [2, 2]          # floor(2.5), by hand


def test_lp_max_is_the_relaxed_optimum_plus_the_slack():
    prog, _ = _two_users()
    assert lp_max(prog) == pytest.approx(2.5 + LP_SLACK, abs=1e-6)          # x + y <= 5/2, by hand


def test_lp_max_totals_without_time_gives_no_bound():
    prog, tot = _two_users()
    assert (lp_max_totals(prog, tot, time_limit=0.0) == np.iinfo(np.int64).max).all()


def _vector(r):
    return np.sort(r.shares if r.shares is not None else r.dominant_shares)


def _all_components(r, key):
    comps = r.stats.get("components") or [r.stats]
    return sum(int(c.get(key, 0) or 0) for c in comps)


@pytest.mark.parametrize("solver", [s for s in INSTALLED if s != "cbc"])   # CBC: ~2x slower, same driver
def test_bounds_keep_the_leximin_vector_on_seeded_instances(solver):
    # 12 seeded task instances x 4 mechanisms and 4 TV-TSF instances: the leximin vector with the LP
    # bounds equals the one without (both proven); the bounds never add a MILP and do skip some
    cases, milps_on, milps_off, skipped = 0, 0, 0, 0
    insts = [("tasks", random_task_instance(int(2 + s % 4), int(1 + s % 3), rng=s, max_tasks=12))
             for s in range(12)]
    insts += [("tv", random_time_varying_instance(int(3 + s % 3), 3, 4, rng=s)) for s in range(4)]
    for kind, inst in insts:
        for mech in (("drf", "sdrf", "tsf", "cdrf") if kind == "tasks" else ("tvtsf",)):
            res = {}
            for on in (True, False):
                if kind == "tasks":
                    res[on] = fa.exact.tasks_leximin(inst, mechanism=mech, solver=solver, leximin_options=lp_bounds(on))
                else:
                    res[on] = fa.exact.tvtsf_milp(inst, solver=solver, leximin_options=lp_bounds(on))
            assert res[True].status is res[False].status is fa.Status.OPTIMAL, (res[True].message,
                                                                                   res[False].message)
            np.testing.assert_allclose(_vector(res[True]), _vector(res[False]), atol=1e-9)
            milps_on += res[True].stats["n_solves"]
            milps_off += res[False].stats["n_solves"]
            skipped += _all_components(res[True], "levels_skipped") + _all_components(res[True], "lp_users_dropped")
            cases += 1
    assert cases == 12 * 4 + 4
    assert milps_on < milps_off and skipped > 0, (milps_on, milps_off, skipped)


def test_bounds_skip_a_milp_on_compare_random_tasks_34():
    # fairalloc compare's random-tasks-34, TSF: without the bounds 5 MILPs (level, count, level, count,
    # level); with them the last count MILP's question is answered by the LP maxima (one user cannot
    # exceed the level), same leximin vector as CBC/CP-SAT's (tests/unit/exact/test_highs_retry.py).
    # Every level by the level MILP (level_by_count="never"), the sequence these counts were read
    # from: by default the tie level is found by counting, one MILP fewer with or without the bounds
    if "highs" not in INSTALLED:
        pytest.skip("HiGHS not installed")
    never = {"level_by_count": "never"}
    ti = dict(random_instances(40, 12, rng=0))["random-tasks-34"]
    off = fa.exact.tasks_leximin(ti, mechanism="tsf", solver="highs", leximin_options={**lp_bounds(False), **never})
    on = fa.exact.tasks_leximin(ti, mechanism="tsf", solver="highs", leximin_options={**lp_bounds(True), **never})
    assert on.status is off.status is fa.Status.OPTIMAL
    np.testing.assert_allclose(_vector(on), _vector(off), atol=1e-12)
    assert on.stats["n_solves"] < off.stats["n_solves"]
