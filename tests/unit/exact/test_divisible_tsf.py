"""Divisible TSF (fairalloc.exact.tsf_lp): the array entry point ``divisible_tsf`` used by the static
TSF slot baseline, against hand computations, and the two LP routes (fairalloc's HiGHS route through
highspy; scipy.optimize.linprog directly, kept for the static TSF baseline)."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import fairalloc as fa
from fairalloc.errors import InvalidInstanceError
from fairalloc.exact.tsf_lp import divisible_tsf
from fairalloc.result import Status


def test_divisible_tsf_by_hand():
    # Server 0 <4,4>, server 1 <2,2>; A = <1,1> on both, B = <2,1> on server 0 only; h (full
    # capacities, placement ignored) A: 4 + 2 = 6, B: 2 + 1 = 3. Equal shares t: X_A = 6t, X_B = 3t,
    # X_A1 <= 2 (server 1's CPU) so X_A0 >= 6t - 2 and server 0's CPU X_A0 + 2 X_B <= 4 gives
    # 12t - 2 <= 4, t = 1/2: X_A = 3 (1 on s0, 2 on s1), X_B = 1.5 on s0. Nobody can rise.
    for solver in ("scipy", "highs"):
        r = divisible_tsf([[4, 4], [2, 2]], [[1, 1], [2, 1]], [10, 10], [6, 3], [[1, 1], [1, 0]], solver=solver)
        assert r.status is Status.OPTIMAL and r.solver == solver
        np.testing.assert_allclose(r.tasks, [[1, 2], [1.5, 0]], atol=1e-7)
        np.testing.assert_allclose(r.levels, [0.5, 0.5], atol=1e-9)


def test_divisible_tsf_second_level_on_free_capacity_by_hand():
    # A slot's free capacity <3, 3> on one server (the cluster's full server is <4, 4>: h from it,
    # A = <1,1> h = 4, B = <1,1> h = 4 but B asks for 1 task only). t: X_A = X_B = 4t, X_B <= 1 ->
    # B frozen at 1/4 when X_A = X_B = 1 (2 of 3 units used); A rises to X_A = 2 (share 1/2).
    r = divisible_tsf([[3, 3]], [[1, 1], [1, 1]], [5, 1], [4, 4], [[1], [1]], solver="scipy")
    np.testing.assert_allclose(r.tasks.ravel(), [2, 1], atol=1e-7)
    np.testing.assert_allclose(r.levels, [0.5, 0.25], atol=1e-9)
    assert r.first_level == pytest.approx(0.25)


def test_nothing_to_divide():
    # no eligible server with room (server 0 has no memory left), or nothing pending: all zero, no LP
    r = divisible_tsf([[2, 0]], [[1, 1]], [3], [2], [[1]], solver="scipy")
    assert r.status is Status.OPTIMAL and r.n_solves == 0 and not r.tasks.any()


@pytest.mark.parametrize("seed", range(3))
def test_linprog_route_equals_highs_route(seed):
    # the same algorithm through the two LP routes: fa.tsf(method="lp") with the default backend
    # (HiGHS through highspy, fairalloc.exact.backends.solve_lp) and solver="scipy"
    # (scipy.optimize.linprog directly) give equal task totals
    # X_i (the leximin of the task shares is unique in X / h; x_im need not be).
    rng = np.random.default_rng(seed)
    caps = rng.integers(2, 9, (3, 2)).astype(float)
    d = rng.integers(1, 4, (4, 2)).astype(float)
    pl = rng.random((4, 3)) < 0.7
    pl[:, 0] = True
    k = rng.integers(1, 6, 4)
    ti = fa.TaskInstance(fa.Cluster(caps), d, tasks=k, placement=pl)
    ref = fa.tsf(ti, method="lp")
    lin = fa.tsf(ti, method="lp", solver="scipy")
    assert ref.status is Status.OPTIMAL and lin.status is Status.OPTIMAL
    assert lin.solver == "scipy"
    np.testing.assert_allclose(np.asarray(lin.tasks).sum(axis=1), np.asarray(ref.tasks).sum(axis=1), atol=1e-6)


def test_highs_limit_is_a_status_not_a_crash():
    # the HiGHS route: no simplex iteration allowed, the first LP is not solved: a status, no allocation
    ti = fa.TaskInstance([[9, 18]], [[1, 4], [3, 1]], tasks=[100, 100])
    r = fa.tsf(ti, method="lp", options={"simplex_iteration_limit": 0})
    assert r.status is Status.NOT_SOLVED and r.tasks is None


def test_linprog_limit_is_a_status_not_a_crash():
    # one simplex iteration is not enough for the first LP: NOT_SOLVED on the result, no allocation
    ti = fa.TaskInstance([[9, 18]], [[1, 4], [3, 1]], tasks=[100, 100])
    r = fa.tsf(ti, method="lp", solver="scipy", options={"maxiter": 0})
    assert r.status is Status.NOT_SOLVED and "linprog" in r.message


def test_unknown_linprog_option_names_options():
    ti = fa.TaskInstance([[9, 18]], [[1, 4], [3, 1]], tasks=[100, 100])
    with pytest.raises(InvalidInstanceError, match="options"):
        fa.tsf(ti, method="lp", solver="scipy", options={"no_such_option": 1})


def test_bad_arrays_name_the_argument():
    with pytest.raises(InvalidInstanceError, match="monopoly"):
        divisible_tsf([[4, 4]], [[1, 1]], [1], [0], [[1]], solver="scipy")
    with pytest.raises(InvalidInstanceError, match="eligible"):
        divisible_tsf([[4, 4]], [[1, 1]], [1], [4], [[1, 1]], solver="scipy")


def _skip(on):
    """The shortcuts on (the defaults) or off: every free user asked by LP 2, its rises bounded by 1."""
    import contextlib
    import importlib
    from unittest import mock

    mod = importlib.import_module("fairalloc.exact.tsf_lp")
    stack = contextlib.ExitStack()
    stack.enter_context(mock.patch.object(mod, "_SKIP_DECIDED", on))
    stack.enter_context(mock.patch.object(mod, "_RISE_CAP", mod._RISE_CAP if on else None))
    return stack


def test_lp2_left_out_where_decided_by_hand():
    # The second-level case above: round 1 freezes B at its ceiling K_B / h_B = 1/4 = t (LP 2 is not
    # asked about B); round 2 has A alone, whose level LP 1 has just maximised (no LP 2). Asking LP 2
    # about everyone: LP 1, LP 2 (A rises), LP 2 (B does not), LP 1, LP 2 (A does not) = 5 LPs.
    args = ([[3, 3]], [[1, 1], [1, 1]], [5, 1], [4, 4], [[1], [1]])
    with _skip(False):
        full = divisible_tsf(*args, solver="scipy")
    with _skip(True):
        short = divisible_tsf(*args, solver="scipy")
    assert full.n_solves == 5 and short.n_solves <= 3
    assert short.tasks.tolist() == full.tasks.tolist() and short.levels.tolist() == full.levels.tolist()
    assert short.status is full.status is Status.OPTIMAL


def test_lp2_left_out_where_lp1_duals_decide_by_hand():
    # The docstring example: one server <4, 4>, A = <1, 1> (h 4) and B = <2, 1> (h 2), 10 tasks each.
    # LP 1: max t, t <= X_A / 4, t <= X_B / 2, X_A + 2 X_B <= 4 (CPU): t* = 1/2 at X = (2, 1). Its dual:
    # y_A / 4 = mu, y_B / 2 = 2 mu (the CPU row's multiplier mu), y_A + y_B = 1: y = (1/2, 1/2), both
    # positive, so neither can rise (complementary slackness) and no LP 2 is needed; A is not at its
    # ceiling 10/4 and LP 1's point puts neither above t*, so only the duals decide it.
    import importlib
    from unittest import mock

    args = ([[4, 4]], [[1, 1], [2, 1]], [10, 10], [4, 2], [[1], [1]])
    mod = importlib.import_module("fairalloc.exact.tsf_lp")
    with mock.patch.object(mod, "_DUAL_STUCK", False):
        without = divisible_tsf(*args, solver="scipy")
    with mock.patch.object(mod, "_DUAL_STUCK", True):
        dual = divisible_tsf(*args, solver="scipy")
    assert without.n_solves == 2 and dual.n_solves == 1
    assert dual.tasks.round(9).tolist() == [[2.0], [1.0]] and dual.levels.round(9).tolist() == [0.5, 0.5]
    assert dual.tasks.tolist() == without.tasks.tolist() and dual.levels.tolist() == without.levels.tolist()


def _random_slot(seed):
    """A random slot: 3 servers, 2 resources, 3-7 users (some asking for few tasks, so that ceilings
    bind), every user allowed on server 0, which fits every task: (free, demands, pending, h, placement)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 8))
    caps = rng.integers(2, 12, (3, 2)).astype(float)
    d = rng.integers(1, 5, (n, 2)) / 2.0
    pl = rng.random((n, 3)) < 0.6
    pl[:, 0] = True
    caps[0] = np.maximum(caps[0], d.max(axis=0))
    k = rng.integers(1, 8, n).astype(float)
    h = np.array([fa.shares.monopoly_tasks(di, caps) for di in d])
    free = caps * rng.uniform(0.3, 1.0, (3, 1))
    return free, d, k, h, pl


@settings(max_examples=25)
@given(st.integers(0, 2**32 - 1))
def test_lp2_shortcuts_give_the_allocation_of_asking_every_user(seed):
    # Random slots (3 servers, 2 resources, 3-7 users, some asking for few tasks so that ceilings
    # bind): the same x, levels and status bit for bit, in no more LPs (_skip(False) also turns off
    # the shortcut by LP 1's duals and LP 2's small rise bound: every free user is asked, its rise
    # bounded by 1 as in the plain progressive filling).
    free, d, k, h, pl = _random_slot(seed)
    with _skip(False):
        full = divisible_tsf(free, d, k, h, pl, solver="scipy")
    with _skip(True):
        short = divisible_tsf(free, d, k, h, pl, solver="scipy")
    assert short.tasks.tolist() == full.tasks.tolist() and short.levels.tolist() == full.levels.tolist()
    assert short.status is full.status and short.first_level == full.first_level
    assert short.n_solves <= full.n_solves


@settings(max_examples=25)
@given(st.integers(0, 2**32 - 1))
def test_frozen_users_cannot_rise_by_an_independent_lp(seed):
    # Leximin's defining property, checked by one dense LP per user written here from the definition
    # (scipy.optimize.linprog over x_im >= 0, eligible pairs only): with every user kept at or above
    # its frozen level, no user's task share exceeds its own level (a user frozen in round k could
    # not rise while the earlier ones kept theirs and the others stayed at >= its level, a superset
    # of these constraints), and the allocation returned keeps everyone at its level. LP 2 (which
    # decides who is frozen) runs on its warm model across rounds and freezes in these slots.
    from scipy.optimize import linprog

    free, d, k, h, pl = _random_slot(seed)
    n = d.shape[0]
    r = divisible_tsf(free, d, k, h, pl, solver="scipy")
    assert r.status is Status.OPTIMAL
    share = r.tasks.sum(axis=1) / h
    assert (share >= r.levels * (1 - 1e-7) - 1e-9).all()
    # variables x_im (row-major); rows: capacity (m, r), demand X_i <= K_i, levels -s_j <= -L_j
    m = free.shape[0]
    cap_rows = np.zeros((m * 2, n * m))
    for i in range(n):
        for s in range(m):
            cap_rows[s * 2:(s + 1) * 2, i * m + s] = d[i]
    dem_rows = np.kron(np.eye(n), np.ones(m))
    lvl_rows = -dem_rows / h[:, None]
    A = np.vstack([cap_rows, dem_rows, lvl_rows])
    b = np.concatenate([free.ravel(), k, -r.levels * (1 - 1e-9)])
    bounds = [(0, None if pl[i, s] else 0) for i in range(n) for s in range(m)]
    for i in range(n):
        c = np.zeros(n * m)
        c[i * m:(i + 1) * m] = -1.0 / h[i]
        best = linprog(c, A_ub=A, b_ub=b, bounds=bounds, method="highs")
        assert best.status == 0
        assert -best.fun <= r.levels[i] + 1e-6 * max(1.0, r.levels[i])
