"""Exact leximin over indivisible tasks on servers (``fa.exact.tasks_leximin``) and divisible TSF.

Expected values come from hand computations written next to them, or from brute-force enumeration
with exact rationals (``_exact_bruteforce``), never from the code under test.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pulp
import pytest

import fairalloc as fa
from fairalloc.result import Status

from _exact_bruteforce import (best_leximin, best_maxmin, feasible_task_totals, task_values,
                               tiny_task_instance)

from _solvers import MILP_SOLVERS, cbc_or_skip  # noqa: E402
MECHANISMS = ["drf", "sdrf", "tsf", "cdrf"]


def totals(r):
    return tuple(int(v) for v in r.tasks.sum(axis=1))


def assert_feasible(ti, tasks):
    """Integer, placement respected, per-server capacities and wants respected."""
    assert tasks.dtype.kind == "i" and (tasks >= 0).all()
    assert (tasks[~ti.placement] == 0).all()
    use = np.einsum("im,ir->mr", tasks, ti.task_demands)
    assert (use <= ti.cluster.capacities + 1e-9).all()
    assert (tasks.sum(axis=1) <= ti.tasks).all()


# ---- goldens -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("solver", MILP_SOLVERS)
def test_drf_paper_example_as_integer_tasks(solver):
    # Ghodsi et al. 2011, Section 4: 9 CPU, 18 GB; A = <1 CPU, 4 GB>, B = <3 CPU, 1 GB>.
    # Dominant shares 2x_A/9 (memory) and x_B/3 (CPU). (3, 2) uses 9 CPU, 14 GB and gives (2/3, 2/3);
    # raising either user breaks a capacity ((4, 2): 10 CPU; (3, 3): 12 CPU), and every other point
    # has a smaller minimum, so the leximin is (3, 2).
    ti = fa.TaskInstance([[9, 18]], [[1, 4], [3, 1]], tasks=[100, 100])
    r = fa.exact.tasks_leximin(ti, mechanism="drf", solver=solver)
    assert r.status is Status.OPTIMAL
    assert r.tasks.tolist() == [[3], [2]]
    np.testing.assert_allclose(r.dominant_shares, [2 / 3, 2 / 3])
    np.testing.assert_allclose(r.allocation, [[3, 12], [6, 2]])
    np.testing.assert_allclose(r.details["leximin"], [[2 / 3, 2]])


@pytest.mark.parametrize("solver", MILP_SOLVERS)
def test_weights_divide(solver):
    # Same cluster, weight 3 for A: values 2x_A/27 and x_B/3. (4, 1) [7 CPU, 17 GB] gives
    # (8/27, 1/3), min 8/27 = 0.296; (3, 2) gives (6/27, 2/3), min 0.222; so A gets 4 tasks.
    ti = fa.TaskInstance([[9, 18]], [[1, 4], [3, 1]], tasks=[100, 100], weights=[3, 1])
    r = fa.exact.tasks_leximin(ti, mechanism="drf", solver=solver)
    assert r.tasks.ravel().tolist() == [4, 1]
    np.testing.assert_allclose(r.shares, [8 / 27, 1 / 3])


def test_sdrf_commitments_shift_levels():
    # SDRF levels c_i + dominant share: c_B = 0.5. (3, 2): (2/3, 0.5 + 2/3), min 2/3;
    # (4, 1): (8/9, 0.5 + 1/3 = 5/6), min 5/6 -> better; (4, 2) breaks CPU (10 > 9). So (4, 1).
    ti = fa.TaskInstance([[9, 18]], [[1, 4], [3, 1]], tasks=[100, 100], commitments=[[0, 0], [0.5, 0.2]])
    r = fa.exact.tasks_leximin(ti, mechanism="sdrf", solver="highs")
    assert r.tasks.ravel().tolist() == [4, 1]
    np.testing.assert_allclose(r.shares, [8 / 9, 5 / 6])
    np.testing.assert_allclose(r.levels, [8 / 9, 5 / 6])


def test_cdrf_key_favours_small_tasks():
    # One resource, capacity 10; A tasks of 3 (mu = 0.3), B tasks of 1 (mu = 0.1).
    # DRF (x mu): (2, 4) -> (0.6, 0.4); (1, 7) -> (0.3, 0.7); (3, 1) -> (0.9, 0.1): leximin (2, 4).
    # CDRF ((x + 1) mu): (2, 4) -> (0.9, 0.5); (1, 7) -> (0.6, 0.8); (0, 10) -> (0.3, 1.1): (1, 7).
    ti = fa.TaskInstance([[10]], [[3], [1]], tasks=[50, 50])
    assert totals(fa.exact.tasks_leximin(ti, mechanism="drf", solver="highs")) == (2, 4)
    r = fa.exact.tasks_leximin(ti, mechanism="cdrf", solver="highs")
    assert totals(r) == (1, 7)
    np.testing.assert_allclose(r.shares, [0.6, 0.8])


def test_tsf_with_placement():
    # Servers of 4 and 2 cores, 1-core tasks; user 0 only on server 0, user 1 on both; h = 6 each.
    # Task shares x/6: user 0 can reach at most 4; (3, 3) (user 1: 1 on server 0, 2 on server 1)
    # gives (1/2, 1/2) and any other point has a smaller minimum.
    ti = fa.TaskInstance([[4], [2]], [[1], [1]], tasks=[10, 10], placement=[[1, 0], [1, 1]])
    r = fa.exact.tasks_leximin(ti, mechanism="tsf", solver="highs")
    assert totals(r) == (3, 3) and r.tasks[1].tolist() == [1, 2]
    np.testing.assert_allclose(r.shares, [0.5, 0.5])


def test_divisible_tsf_lp_matches_hand_computation():
    # Same instance, divisible: user 0 on server 0 only. Equal task shares t: x0 = x1 = 6t,
    # x0 <= 4, x0 + x1 <= 6 -> t = 1/2; then nobody can rise (6 cores full). Fractional tasks allowed.
    ti = fa.TaskInstance([[4], [2]], [[1], [1]], tasks=[10, 10], placement=[[1, 0], [1, 1]])
    r = fa.tsf(ti, method="lp")
    assert r.status is Status.OPTIMAL
    np.testing.assert_allclose(r.shares, [0.5, 0.5], atol=1e-7)
    np.testing.assert_allclose(r.tasks[0, 1], 0.0, atol=1e-9)


def test_divisible_tsf_second_level():
    # User 1 wants only 1 task: it stops at share 1/6; user 0 then fills the remaining 5 cores
    # (x0 <= 4 on server 0; user 0 is not allowed on server 1): x0 = 4, share 4/6.
    ti = fa.TaskInstance([[4], [2]], [[1], [1]], tasks=[10, 1], placement=[[1, 0], [1, 1]])
    r = fa.tsf(ti, method="lp")
    np.testing.assert_allclose(r.tasks.sum(axis=1), [4, 1], atol=1e-7)
    np.testing.assert_allclose(r.shares, [4 / 6, 1 / 6], atol=1e-7)


def test_divisible_tsf_on_the_drf_example():
    # h = (4, 3) (see test_task_models). Equal task shares t: x_A = 4t, x_B = 3t. CPU: 4t + 9t <= 9
    # -> t <= 9/13; memory: 16t + 3t <= 18 -> t <= 18/19. So t = 9/13: x = (36/13, 27/13), and then
    # CPU is full, which both users need: nobody rises.
    ti = fa.TaskInstance([[9, 18]], [[1, 4], [3, 1]], tasks=[100, 100])
    r = fa.tsf(ti, method="lp")
    np.testing.assert_allclose(r.tasks.ravel(), [36 / 13, 27 / 13], rtol=1e-7)
    np.testing.assert_allclose(r.shares, [9 / 13, 9 / 13], rtol=1e-7)


def test_integer_tsf_via_the_mechanism_entry_point():
    ti = fa.TaskInstance([[4], [2]], [[1], [1]], tasks=[10, 10], placement=[[1, 0], [1, 1]])
    r = fa.tsf(ti, method="milp", solver=cbc_or_skip())
    assert totals(r) == (3, 3) and r.method == "milp"


# ---- brute force -----------------------------------------------------------------------------------

BRUTE_SEEDS = list(range(10))


@pytest.mark.parametrize("solver", MILP_SOLVERS)
@pytest.mark.parametrize("seed", BRUTE_SEEDS)
def test_leximin_equals_brute_force(seed, solver):
    ti = tiny_task_instance(seed, identical=seed % 3 == 0, weights=seed % 4 == 1, commitments=seed % 5 == 2)
    feasible = feasible_task_totals(ti)
    for mech in MECHANISMS:
        f = task_values(ti, mech)
        r = fa.exact.tasks_leximin(ti, mechanism=mech, solver=solver)
        assert r.status is Status.OPTIMAL, r.message
        assert_feasible(ti, r.tasks)
        assert tuple(sorted(f(totals(r)))) == best_leximin(f(x) for x in feasible), (mech, r.message)


@pytest.mark.parametrize("solver", MILP_SOLVERS)
@pytest.mark.parametrize("seed", BRUTE_SEEDS[:6])
def test_maxmin_equals_brute_force(seed, solver):
    ti = tiny_task_instance(100 + seed)
    feasible = feasible_task_totals(ti)
    movable = [i for i in range(ti.n_agents) if ti.tasks[i] > 0]
    for mech in MECHANISMS:
        f = task_values(ti, mech)
        r = fa.exact.tasks_leximin(ti, mechanism=mech, objective="maxmin", solver=solver)
        assert r.status is Status.OPTIMAL
        got = min(f(totals(r))[i] for i in movable)
        assert got == best_maxmin([f(x) for x in feasible], movable)
        assert r.objective == pytest.approx(float(got))


@pytest.mark.parametrize("seed", range(4))
def test_formulation_options_do_not_change_the_optimum(seed):
    # decomposition, symmetry breaking, aggregation and warm starts are exact: same leximin vector
    ti = tiny_task_instance(200 + seed, identical=True, max_users=3, max_servers=2)
    f = task_values(ti, "tsf")
    ref = None
    for kw in [dict(), dict(symmetry=False, aggregate=False, decompose=False, warm_start=False)]:
        r = fa.exact.tasks_leximin(ti, mechanism="tsf", solver="highs", **kw)
        vec = tuple(sorted(f(totals(r))))
        ref = vec if ref is None else ref
        assert vec == ref


def test_identical_users_with_one_spare_task_are_tied_not_fixed():
    # Three identical users, one server with room for 4 tasks of (1, 1) (capacity (4, 4)), 3 wanted
    # each: the leximin vector is (1, 1, 2) in tasks: one user, any of them, gets the spare task.
    # Fixing "the user forced to the first level" would be wrong here (none is forced alone).
    ti = fa.TaskInstance([[4, 4]], [[1, 1]] * 3, [3, 3, 3])
    for solver in fa.available_solvers("milp"):
        r = fa.exact.tasks_leximin(ti, mechanism="drf", solver=solver)
        assert sorted(totals(r)) == [1, 1, 2]
        np.testing.assert_allclose(r.details["leximin"], [[1 / 4, 2], [2 / 4, 1]])


def test_brute_force_pareto_efficiency_of_leximin():
    # no feasible vector of totals gives everyone at least as many tasks and someone more
    for seed in range(6):
        ti = tiny_task_instance(300 + seed)
        feasible = feasible_task_totals(ti)
        for mech in MECHANISMS:
            x = totals(fa.exact.tasks_leximin(ti, mechanism=mech, solver="highs"))
            dominating = [y for y in feasible if all(a >= b for a, b in zip(y, x)) and y != x]
            assert not dominating, (seed, mech, x, dominating)


@pytest.mark.parametrize("seed", range(3))
def test_pareto_efficiency_by_an_extra_milp(seed):
    # medium instance: maximise the total tasks subject to every user keeping at least its leximin
    # tasks; an optimum above the leximin total would be a Pareto improvement
    from fairalloc.exact.random_instances import random_task_instance

    ti = random_task_instance(6, 4, rng=seed, max_tasks=15)
    for mech in ("drf", "tsf"):
        r = fa.exact.tasks_leximin(ti, mechanism=mech, solver="highs")
        x = r.tasks.sum(axis=1)
        model = fa.exact.tasks_model(ti, mechanism=mech)
        prob = model.problem
        for i, e in enumerate(model.variables["totals"]):
            prob += e >= int(x[i]), f"keep_{i}"
        prob.setObjective(pulp.lpSum(model.variables["totals"]))
        out = model.solve("highs")
        assert out.status is Status.OPTIMAL
        assert out.objective == pytest.approx(float(x.sum()))


# ---- reductions ------------------------------------------------------------------------------------

def _integral_one_server(seed):
    """One server, no placement constraints, huge task counts, and h_i * mu_i = 1 for every user
    (the dominant demand divides the dominant capacity), so TSF task shares equal DRF dominant shares."""
    g = np.random.default_rng(seed)
    caps = np.array([24.0, 48.0])
    n = int(g.integers(2, 5))
    dom_div = g.choice([1, 2, 3, 4, 6, 8, 12], size=n)               # divisors of 24
    d = np.zeros((n, 2))
    for i in range(n):
        k = dom_div[i]                                               # dominant share k/24
        if g.random() < 0.5:
            d[i] = [k, g.integers(1, 2 * k + 1)]                     # CPU dominant: mem/48 <= k/24
        else:
            d[i] = [g.integers(1, k + 1), 2 * k]                     # memory dominant: 2k/48 = k/24
    return fa.TaskInstance([caps], d, tasks=np.full(n, 10_000))


@pytest.mark.parametrize("seed", range(5))
def test_one_server_tsf_and_drf_order_users_the_same_way(seed):
    ti = _integral_one_server(seed)
    mu = fa.shares.dominant_shares(ti.task_demands, ti.cluster.totals)
    np.testing.assert_allclose(ti.monopoly * mu, 1.0)                # the construction's premise
    rt = fa.exact.tasks_leximin(ti, mechanism="tsf", solver="highs")
    rd = fa.exact.tasks_leximin(ti, mechanism="drf", solver="highs")
    np.testing.assert_allclose(rt.details["leximin"], rd.details["leximin"])
    # within each solution, users ranked by task share and by dominant share agree
    for r in (rt, rd):
        ts = r.tasks.sum(axis=1) / ti.monopoly
        assert np.argsort(ts, kind="stable").tolist() == np.argsort(r.dominant_shares, kind="stable").tolist()


@pytest.mark.parametrize("seed", range(5))
def test_one_server_integer_drf_is_within_one_task_of_divisible_drf(seed):
    # Divisible DRF (core water-filling) reaches level s with unbounded users. Flooring its allocation
    # is integer-feasible, so the integer max-min is >= s - max_i mu_i; integer points are divisible
    # points, so it is <= s.
    ti = _integral_one_server(seed)
    inst = fa.Instance.from_tasks(ti.task_demands, ti.tasks, capacities=ti.cluster.totals)
    s = fa.drf(inst).dominant_shares.min()
    mu = fa.shares.dominant_shares(ti.task_demands, ti.cluster.totals)
    r = fa.exact.tasks_leximin(ti, mechanism="drf", objective="maxmin", solver="highs")
    assert s - mu.max() - 1e-12 <= r.objective <= s + 1e-12


# ---- statuses and bad outcomes --------------------------------------------------------------------

@pytest.mark.parametrize("solver", MILP_SOLVERS)
def test_infeasible_reservations_with_a_max_flow_explanation(solver):
    # users 0 and 1 may only use server 0 (4 cores); reserving 2 + 1 tasks of 2 cores needs 6 cores
    ti = fa.TaskInstance([[4, 4], [4, 4]], [[2, 1], [2, 1], [1, 1]], [5, 5, 5],
                         placement=[[1, 0], [1, 0], [1, 1]])
    r = fa.exact.tasks_leximin(ti, min_tasks=[2, 1, 0], solver=solver)
    assert r.status is Status.INFEASIBLE and not r.success and r.tasks is None
    assert "users [0, 1] need 6 of resource 0" in r.message and "hold only 4" in r.message
    with pytest.raises(fa.InfeasibleError):
        r.raise_for_status()


def test_infeasible_packing_that_the_flow_bound_cannot_see():
    # two (3, 3) servers hold one (2, 2) task each; 3 tasks reserved: the flow (fractional) condition
    # holds (6 <= 6 per resource), the integer packing does not
    ti = fa.TaskInstance([[3, 3], [3, 3]], [[2, 2], [2, 2]], [3, 3])
    r = fa.exact.tasks_leximin(ti, min_tasks=[2, 1], solver="highs")
    assert r.status is Status.INFEASIBLE
    assert "max-flow condition holds" in r.message


def test_feasible_reservations_are_honoured():
    ti = fa.TaskInstance([[9, 18]], [[1, 4], [3, 1]], tasks=[100, 100])
    r = fa.exact.tasks_leximin(ti, min_tasks=[0, 3], solver="highs")
    # B reserved 3 tasks (9 CPU): A cannot run at all (each task needs 1 CPU)
    assert totals(r) == (0, 3)


def test_flow_bound_is_an_upper_bound_on_the_maxmin():
    for seed in range(4):
        ti = tiny_task_instance(400 + seed)
        r = fa.exact.tasks_leximin(ti, mechanism="tsf", objective="maxmin", solver="highs")
        assert r.stats["flow_bound"] >= r.objective - 1e-12


def test_components_are_solved_separately_and_merged():
    # two disconnected halves: users {0, 2} on server 0, user {1} on server 1
    ti = fa.TaskInstance([[4, 4], [4, 4]], [[1, 1], [2, 2], [1, 1]], [9, 9, 9],
                         placement=[[1, 0], [0, 1], [1, 0]])
    r = fa.exact.tasks_leximin(ti, mechanism="tsf", solver="highs")
    assert r.stats["n_components"] == 2
    # server 0: users 0 and 2 split 4 tasks 2-2 (h = 8 each, share 2/8); server 1: user 1 runs 2 (h = 4)
    assert totals(r) == (2, 2, 2)
    np.testing.assert_allclose(r.shares, [2 / 8, 2 / 4, 2 / 8])


def test_result_fields_and_export(tmp_path):
    ti = fa.TaskInstance([[9, 18]], [[1, 4], [3, 1]], tasks=[100, 100])
    r = fa.exact.tasks_leximin(ti, solver="highs", export_dir=tmp_path)
    assert sorted(p.suffix for p in tmp_path.iterdir()) == [".lp"] * r.stats["n_solves"]
    assert r.mechanism == "drf" and r.method == "milp" and r.solver == "highs"
    assert r.utilities.tolist() == [3.0, 2.0]
    np.testing.assert_allclose(r.details["usage"], [[9, 14]])
    df = r.to_frame()
    assert df["tasks"].tolist() == [3, 2]
