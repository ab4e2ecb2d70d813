"""Pieces of the leximin engine: the level resolution, time budgets, and the empty fallback."""

from __future__ import annotations

import time

import numpy as np
import pytest

from fairalloc.exact.leximin import (LeximinOutcome, Valuation, component_budget, empty_fallback,
                                     value_resolution)
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
