"""HiGHS's first level with the level as an integer (the level driver's ``integer_first_level``, off by default):
the same leximin and max-min as enumeration, on the TV-TSF brute-force instances."""

from __future__ import annotations

import pytest

import fairalloc as fa
from fairalloc.result import Status

from _exact_bruteforce import best_leximin, best_maxmin, feasible_tv_totals, tiny_tv_instance, tv_values


@pytest.mark.parametrize("seed", range(8))
def test_integer_first_level_equals_brute_force(seed):
    tv = tiny_tv_instance(seed, identical=seed % 3 == 0)
    feasible = feasible_tv_totals(tv)
    f = tv_values(tv)
    movable = [i for i in range(tv.n_agents) if tv.arrivals[i].sum() > 0]
    opts = {"driver": "levels", "integer_first_level": True}
    r = fa.exact.tvtsf_milp(tv, objective="leximin", solver="highs", leximin_options=opts)
    m = fa.exact.tvtsf_milp(tv, objective="maxmin", solver="highs", leximin_options=opts)
    assert r.status is Status.OPTIMAL and m.status is Status.OPTIMAL
    assert tuple(sorted(f(tuple(r.tasks.sum(axis=(1, 2)))))) == best_leximin(f(x) for x in feasible)
    assert min(f(tuple(m.tasks.sum(axis=(1, 2))))[i] for i in movable) == best_maxmin(
        [f(x) for x in feasible], movable)
    # the integer form was used (an integer scale exists for these rational shares)
    scales = [c.get("first_level_integer_scale") for c in m.stats.get("components", [])]
    assert scales and all(isinstance(s, int) and s >= 1 for s in scales)
