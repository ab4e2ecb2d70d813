"""Chvatal-Gomory rows of the TV-TSF program (``tvtsf_milp(cuts=True)``): valid, and exact on the whole program.

A valid inequality must never cut off an integer point: each row of ``rounded_rows`` is checked
against every integer point of its capacity row (enumeration), and the program with the rows is
checked against the brute-force leximin and max-min on tiny instances, on every backend.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.exact.program import from_pulp
from fairalloc.exact.tvtsf import _build_tv, rounded_rows
from fairalloc.result import Status

from _exact_bruteforce import best_leximin, best_maxmin, feasible_tv_totals, tiny_tv_instance, tv_values
from _solvers import MILP_SOLVERS


def test_hand_case_small_server():
    # an 8-CPU server, tasks of 5, 7, 6 and 4 CPUs (issue 14's dense seed 0, servers 2-6): any two of
    # the 5/6/7-CPU tasks need >= 11 > 8, so at most one of them (q = 5: floor(4/5) = 0 for the 4s);
    # every task needs >= 4 CPUs, so two at most (q = 4); q = 6 and q = 7 give rows with one term
    # (7 // 6 = 1 and 6 // 6 = 1, 5 // 6 = 0: "one of the 6s and 7s" is [0, 1, 1, 0] <= 1, kept)
    rows = {(tuple(a.tolist()), b) for a, b in rounded_rows([5, 7, 6, 4], 8)}
    assert rows == {((1, 1, 1, 1), 2), ((1, 1, 1, 0), 1), ((0, 1, 1, 0), 1)}


def test_nothing_rounded_gives_no_row():
    # 2 and 4 on a capacity of 8: divided by 2 nothing is rounded (the row itself); divided by 4 the
    # 2 rounds to 0, leaving one term
    assert rounded_rows([2, 4], 8) == []
    # a demand larger than the capacity is no divisor (q = 9 > 8 gives nothing); q = 3: 8 / 3 rounds
    assert [(a.tolist(), b) for a, b in rounded_rows([3, 9], 8)] == [([1, 3], 2)]


@pytest.mark.parametrize("seed", range(60))
def test_rows_hold_at_every_integer_point(seed):
    g = np.random.default_rng(seed)
    j = int(g.integers(2, 5))
    # integer and half-integer demands, as the instances have (raw units)
    c = g.integers(1, 13, size=j) / (2.0 if seed % 2 else 1.0)
    cap = float(g.integers(int(c.min()) + 1, 25))
    rows = rounded_rows(c, cap)
    tops = [int(np.floor(cap / cj + 1e-9)) for cj in c]
    points = [n for n in itertools.product(*[range(t + 1) for t in tops]) if np.dot(c, n) <= cap + 1e-9]
    for a, b in rows:
        assert a.dtype.kind == "i" and (a >= 0).all()
        worst = max(int(np.dot(a, n)) for n in points)
        assert worst <= b, (c.tolist(), cap, a.tolist(), b)


def test_rows_cut_off_a_fractional_point():
    # tasks of 7 and 7.5 CPUs on an 8-CPU server: the LP point (0.55, 0.55) uses 7.975 <= 8 CPUs;
    # q = 7 gives n_0 + n_1 <= 1 (7.5 // 7 = 1, 8 // 7 = 1), which 0.55 + 0.55 = 1.1 violates
    (a, b), = rounded_rows([7, 7.5], 8)
    x = np.array([0.55, 0.55])
    assert np.dot([7, 7.5], x) <= 8 and np.dot(a, x) > b


@pytest.mark.parametrize("solver", MILP_SOLVERS)
@pytest.mark.parametrize("seed", range(8))
def test_program_with_rows_equals_brute_force(seed, solver):
    tv = tiny_tv_instance(200 + seed, max_users=3, max_servers=2, max_slots=3)
    feasible = feasible_tv_totals(tv)
    f = tv_values(tv)
    r = fa.exact.tvtsf_milp(tv, objective="leximin", solver=solver, cuts=True)
    assert r.status is Status.OPTIMAL
    assert tuple(sorted(f(tuple(r.tasks.sum(axis=(1, 2)))))) == best_leximin(f(x) for x in feasible)
    movable = [i for i in range(tv.n_agents) if tv.arrivals[i].sum() > 0]
    r = fa.exact.tvtsf_milp(tv, objective="maxmin", solver=solver, cuts=True)
    assert r.status is Status.OPTIMAL
    assert min(f(tuple(r.tasks.sum(axis=(1, 2))))[i] for i in movable) == best_maxmin(
        [f(x) for x in feasible], movable)


def test_the_brute_force_instances_have_rows():
    # the equality test above is only worth something if rows are added on some of its instances
    added = 0
    for seed in range(8):
        tv = tiny_tv_instance(200 + seed, max_users=3, max_servers=2, max_slots=3)
        b = _build_tv(tv, np.arange(tv.n_agents), np.arange(tv.n_servers), symmetry=False, aggregate=False,
                      cuts=True)
        added += sum(1 for name in from_pulp(b.problem).row_names if "cg_" in name)
    assert added > 0
