"""Pieces of the leximin engine: the level resolution, time budgets, and the empty fallback."""

from __future__ import annotations

import time

import numpy as np
import pytest

from fairalloc.exact.components import component_budget, empty_fallback
from fairalloc.exact.leximin import LeximinOutcome, Valuation, value_resolution
from fairalloc.result import Status


def test_resolution_of_task_shares_is_one_over_h_i_h_j():
    # values x/3 (x <= 3) and y/4 (y <= 4): {0, 1/4, 1/3, 1/2, 2/3, 3/4, 1}; the closest distinct
    # pair is 1/3 - 1/4 = 1/12 (= 1/(h_i h_j), as the module docstring derives)
    delta, eta = value_resolution(Valuation([1 / 3, 1 / 4], [0, 0], [0, 0], [3, 4]))
    assert delta == pytest.approx(1 / 12)
    assert eta < 1e-12


def test_resolution_ignores_float_noise_between_equal_values():
    # 3 * (4/18) and 2 * (3/9) are both 2/3 but differ in the last bit: not a "difference"
    v = Valuation([4 / 18, 3 / 9], [0, 0], [0, 0], [3, 2])
    delta, _ = value_resolution(v)
    assert delta == pytest.approx(1 / 9)      # 2/9 - 1/9 (user 0's own step) is the smallest gap


def test_component_budget_shares_what_is_left_by_size(monkeypatch):
    # the clock is fixed (issue 15 item 3: no verdict depends on the machine's speed): 1 s of a 10 s
    # limit used, 9 s left
    monkeypatch.setattr(time, "perf_counter", lambda: 101.0)
    t0 = 100.0
    assert component_budget(None, t0, [1, 1], 0) is None
    assert component_budget(10.0, t0, [1, 3], 0) == 9.0 / 4      # a quarter of what is left
    assert component_budget(10.0, t0, [1, 3], 1) == 9.0          # the last component gets all of it
    assert component_budget(0.5, t0, [1, 3], 1) == 1e-3          # nothing left: a token millisecond


def test_empty_fallback_only_when_nothing_was_found_and_zero_is_feasible():
    val = Valuation([1.0], [0.0], [0], [3])
    out = LeximinOutcome(Status.NOT_SOLVED, "time limit", None, None)
    got = empty_fallback(out, val)
    assert got.status is Status.FEASIBLE and got.solution == {} and "no tasks" in got.message
    reserved = Valuation([1.0], [0.0], [1], [3])
    assert empty_fallback(LeximinOutcome(Status.NOT_SOLVED, "t", None, None), reserved).status is Status.NOT_SOLVED
    err = LeximinOutcome(Status.ERROR, "boom", None, None)
    assert empty_fallback(err, val).status is Status.ERROR


def test_integer_scale_is_the_lcm_of_the_denominators():
    # TSF-like values x/3 and y/4 + 1/6: denominators 3, 4, 6 -> S = 12 (hand computation), and every
    # scaled value 4x, 3y + 2 is an integer
    from fairalloc.exact.leximin import integer_scale

    assert integer_scale(Valuation([1 / 3, 1 / 4], [0, 1 / 6], [0, 0], [3, 4])) == 12
    assert integer_scale(Valuation([0.5, 0.25], [0, 0], [0, 0], [9, 9])) == 4
    # a slope that is no fraction with a denominator up to 1e6 cannot be scaled exactly: None
    assert integer_scale(Valuation([2 ** 0.5, 1.0], [0, 0], [0, 0], [3, 3])) is None


@pytest.mark.parametrize("driver, kind", [("levels", "level"), ("positions", "position")])
def test_the_first_leximin_level_is_the_maxmin_program(tmp_path, driver, kind):
    # issue 14: the first level of the leximin sequence is the plain max-min MILP (same rows, same
    # objective), so it cannot cost more than objective="maxmin"; under both drivers
    import fairalloc as fa

    from fairalloc.exact.random_instances import random_time_varying_instance

    tv = random_time_varying_instance(4, 3, 5, rng=2)
    opts = {"driver": driver}
    fa.exact.tvtsf_milp(tv, objective="maxmin", solver="highs", export_dir=tmp_path / "mm", decompose=False,
                        leximin_options=opts)
    fa.exact.tvtsf_milp(tv, objective="leximin", solver="highs", export_dir=tmp_path / "lx", decompose=False,
                        leximin_options=opts)
    mm = (tmp_path / "mm" / f"round00-{kind}.lp").read_text()
    lx = (tmp_path / "lx" / f"round00-{kind}.lp").read_text()
    assert mm == lx
    assert len(list((tmp_path / "lx").iterdir())) > 1          # and the leximin goes on from there


def test_rounds_are_rebuilt_not_edited():
    # the model handed to the engine is read, never changed: solving twice gives the same rounds
    import pulp

    from fairalloc.exact.milp import add_var
    from fairalloc.exact.leximin import solve_leximin
    from fairalloc.exact.solvers import get_backend
    from fairalloc.exact.program import pulp_constraints

    p = pulp.LpProblem("two", pulp.LpMaximize)
    x = add_var(p, "x", 0, 3, integer=True)
    y = add_var(p, "y", 0, 3, integer=True)
    p += x + y <= 4, "cap"
    before = len(pulp_constraints(p))
    outs = [solve_leximin(p, [x + 0, y + 0], Valuation([1.0, 1.0], [0, 0], [0, 0], [3, 3]),
                          objective="leximin", backend=get_backend("highs", "milp")) for _ in range(2)]
    assert len(pulp_constraints(p)) == before
    assert [o.leximin for o in outs] == [[(2.0, 2)], [(2.0, 2)]]          # 2 + 2 = 4: both at 2
