"""One front door per mechanism: fa.drf / sdrf / tsf / cdrf / tvtsf on each instance type and method.

Expected numbers are worked by hand in the comments (or taken from the paper named there); where a
method is a heuristic with several valid answers, the test checks the front door returns what the
implementation it documents returns, plus the facts that hold for every valid answer.
"""

import importlib
import re

import numpy as np
import pytest

import fairalloc as fa
from fairalloc import scheduling
from fairalloc.errors import InvalidInstanceError

tvtsf_module = importlib.import_module("fairalloc.mechanisms.tvtsf")   # the package re-exports the function


def drf_paper_tasks():
    # DRF paper (Ghodsi et al. 2011), Section 4: 9 CPUs, 18 GB; A = <1, 4>, B = <3, 1>. A gets 3 tasks,
    # B 2 (CPU 3 + 6 = 9 full, memory 12 + 2 = 14), both dominant shares 2/3.
    return fa.TaskInstance([[9, 18]], [[1, 4], [3, 1]], tasks=[100, 100])


def sdrf_tasks():
    # One pool <10, 10>, unit tasks <1, 1> (dominant share 0.1 each), user 0 committed 0.25 of
    # resource 1. Levels: user 0 0.25 + 0.1 k, user 1 0.1 k' (never equal: they differ by 0.05 mod
    # 0.1, so no tie-break is involved). 10 tasks fit. Leximin: k = 4 gives (0.65, 0.6), k = 3 gives
    # (0.55, 0.7): k = 4, k' = 6. Algorithm 1 by hand: user 1 x3 (0.3 > 0.25), then alternately
    # user 0, user 1 ... ending at (4, 6) as well.
    return fa.TaskInstance([[10, 10]], [[1, 1], [1, 1]], tasks=[10, 10], commitments=[[0, 0.25], [0, 0]])


def tsf_tasks():
    # Servers of 4 and 2 cores; user 0 only on server 0, user 1 on both; 1-core tasks; h = 6 each.
    # Divisible and integer TSF: 3 and 3 tasks (task shares 1/2 each; x0 + x1 <= 6, x0 <= 4).
    return fa.TaskInstance([[4], [2]], [[1], [1]], tasks=[10, 10], placement=[[1, 0], [1, 1]])


def cdrf_tasks():
    # One server <10, 10>; user 0's tasks <4, 1> (mu = 0.4), user 1's <1, 1> (mu = 0.1). CDRF values
    # (x + 1) mu: x0 = 0 -> min(0.4, (10 + 1) 0.1) = 0.4; x0 = 1 -> CPU leaves 6 for user 1:
    # min(0.8, 0.7) = 0.7; x0 = 2 -> 2 left: min(1.2, 0.3). Leximin: (1, 6). The greedy (sequential
    # min-max) reaches (1, 6) too (fairalloc.scheduling.cdrf docstring, worked by hand).
    return fa.TaskInstance([[10, 10]], [[4, 1], [1, 1]], tasks=[5, 10])


def tv_instance():
    # One server of 2 cores; user 0 submits two 1-core tasks in slot 0, user 1 one in slot 0 and one
    # in slot 1; tasks last one slot. 4 tasks, 2 cores x 2 slots: all start; h = 2 per slot, so the
    # cumulative task shares after 2 slots are 2 / 4 = 0.5 each, whatever the order.
    return fa.TimeVaryingInstance([[2]], [[1], [1]], arrivals=[[2, 0], [1, 1]], durations=[1, 1])


# ---- each front door on each instance type and method -------------------------------------------

@pytest.mark.parametrize("method", ["waterfill", "lp"])
def test_drf_on_instance(method):
    inst = fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[100, 100], capacities=[9, 18])
    r = fa.drf(inst, method=method)
    assert r.method == method and r.tasks is None
    np.testing.assert_allclose(r.allocation / [[1, 4], [3, 1]], [[3, 3], [2, 2]], atol=1e-6)


@pytest.mark.parametrize("method", [None, "milp", "greedy"])
def test_drf_on_task_instance(method):
    r = fa.drf(drf_paper_tasks(), method=method)
    assert r.method == (method or "milp")
    assert r.tasks.dtype == np.int64 and r.tasks.tolist() == [[3], [2]]
    np.testing.assert_allclose(r.dominant_shares, [2 / 3, 2 / 3])
    if r.method == "milp":
        assert r.status is fa.Status.OPTIMAL
    else:
        assert r.status is fa.Status.FEASIBLE                # a heuristic is never called optimal


def test_drf_front_door_returns_what_the_implementations_return():
    ti = drf_paper_tasks()
    assert fa.drf(ti, method="greedy", blocking="skip").tasks.tolist() == \
        scheduling.drf_greedy(ti, blocking="skip").tasks.tolist()
    # the backend named is the backend used, for every MILP backend this machine has (CBC is not bundled by
    # PuLP 4 on Python 3.12+; HiGHS and CP-SAT are core dependencies)
    for solver in fa.available_solvers("milp"):
        assert fa.drf(ti, method="milp", solver=solver).solver == solver


@pytest.mark.parametrize("method", ["waterfill", "lp"])
def test_sdrf_on_instance(method):
    # Two identical users on one resource, commitments 0.2 and 0: 0.2 + s1 = s2, s1 + s2 = 1.
    r = fa.sdrf(fa.Instance([[1.0], [1.0]]), [[0.2], [0.0]], method=method)
    np.testing.assert_allclose(r.allocation.ravel(), [0.4, 0.6], atol=1e-6)


@pytest.mark.parametrize("method", [None, "milp", "greedy"])
def test_sdrf_on_task_instance(method):
    r = fa.sdrf(sdrf_tasks(), method=method)
    assert r.tasks.dtype == np.int64 and r.tasks.ravel().tolist() == [4, 6]
    np.testing.assert_allclose(r.levels, [0.65, 0.6])


@pytest.mark.parametrize("method,dtype", [(None, np.float64), ("lp", np.float64), ("milp", np.int64)])
def test_tsf_methods(method, dtype):
    r = fa.tsf(tsf_tasks(), method=method)
    assert r.tasks.dtype == dtype
    np.testing.assert_allclose(r.tasks.sum(axis=1), [3, 3], atol=1e-6)
    np.testing.assert_allclose(r.shares, [0.5, 0.5], atol=1e-6)


def test_tsf_greedy():
    ti = tsf_tasks()
    r = fa.tsf(ti, method="greedy")
    # user 1 may use every core and wants more than there are: the skip rule fills all 6 cores
    assert r.tasks.dtype == np.int64 and r.tasks.sum() == 6 and r.tasks[0, 1] == 0
    assert r.tasks.tolist() == scheduling.tsf_greedy(ti).tasks.tolist()


@pytest.mark.parametrize("method", [None, "milp", "greedy"])
def test_cdrf_methods(method):
    r = fa.cdrf(cdrf_tasks(), method=method)
    assert r.mechanism == "cdrf" and r.tasks.dtype == np.int64
    assert r.tasks.ravel().tolist() == [1, 6]


@pytest.mark.parametrize("method", [None, "milp", "milp-online", "greedy"])
def test_tvtsf_methods(method):
    r = fa.tvtsf(tv_instance(), method=method)
    assert r.tasks.dtype == np.int64 and r.tasks.shape == (2, 1, 2)
    assert r.tasks.sum(axis=(1, 2)).tolist() == [2, 2]
    np.testing.assert_allclose(r.shares, [0.5, 0.5])


def test_results_carry_fa_status():
    for r in (fa.drf(fa.Instance([[1, 2], [2, 1]])), fa.tsf(tsf_tasks(), method="greedy"),
              fa.tvtsf(tv_instance(), method="greedy")):
        assert isinstance(r.status, fa.Status)


# ---- keyword validation at the entry -----------------------------------------------------------

def test_unknown_keyword_names_keyword_method_and_accepted():
    inst = fa.Instance([[1, 2], [2, 1]])
    with pytest.raises(TypeError, match=r"drf\(method='lp'\) on an Instance got unexpected keyword "
                                        r"argument 'time_limit'; accepted keywords: solver, options"):
        fa.drf(inst, method="lp", time_limit=3)


def test_tvtsf_greedy_rejects_solver_by_name():
    # the case: it used to fail with "tvtsf_greedy() got an unexpected keyword argument"
    with pytest.raises(TypeError, match=r"tvtsf\(method='greedy'\) on a TimeVaryingInstance got "
                                        r"unexpected keyword argument 'solver'; accepted keywords: server"):
        fa.tvtsf(tv_instance(), method="greedy", solver="highs")


@pytest.mark.parametrize("call", [
    lambda ti: fa.drf(ti, method="greedy", solver="highs"),
    lambda ti: fa.sdrf(ti, method="greedy", time_limit=1),
    lambda ti: fa.tsf(ti, method="lp", time_limit=1),
    lambda ti: fa.cdrf(ti, method="greedy", mip_gap=0.1),
])
def test_each_front_door_checks_keywords(call):
    with pytest.raises(TypeError, match=r"\(method='(greedy|lp)'\) on a TaskInstance got unexpected keyword"
                                        r" argument '\w+'; accepted keywords: "):
        call(drf_paper_tasks())


def test_keyword_the_front_door_sets_itself():
    with pytest.raises(TypeError, match="'mechanism'.*mechanism is set by drf itself"):
        fa.drf(drf_paper_tasks(), method="milp", mechanism="tsf")


def test_keywords_checked_before_any_work():
    calls = []

    def fake(tv, *, seed=0):
        calls.append(seed)
        return fa.AllocationResult(status=fa.Status.FEASIBLE, mechanism="tvtsf", method="fake")

    tvtsf_module.register_method("fake-kw-test", fake)
    try:
        with pytest.raises(TypeError, match="'rng'; accepted keywords: seed"):
            fa.tvtsf(tv_instance(), method="fake-kw-test", rng=3)
        assert calls == []
        assert fa.tvtsf(tv_instance(), method="fake-kw-test", seed=4).method == "fake" and calls == [4]
    finally:
        del tvtsf_module.METHODS["fake-kw-test"]


@pytest.mark.parametrize("where,call", [
    ("drf(method='lp')", lambda o: fa.drf(fa.Instance([[1, 2], [2, 1]]), method="lp", solver="highs", options=o)),
    ("sdrf(method='lp')", lambda o: fa.sdrf(fa.Instance([[1, 2], [2, 1]]), [[0.1, 0], [0, 0]], method="lp",
                                            options=o)),
    ("max_min(method='lp')", lambda o: fa.max_min(fa.Instance([[1], [2]]), method="lp", solver="highs", options=o)),
    ("ceei", lambda o: fa.ceei(fa.Instance([[1, 2], [2, 1]]), options=o)),
    ("tsf(method='lp')", lambda o: fa.tsf(tsf_tasks(), solver="highs", options=o)),
])
def test_option_rejected_by_the_backend_is_named(where, call):
    # the case: it surfaced as a bare ValueError from cvxpy's HiGHS interface (Clarabel: TypeError);
    # plain LPs now go to HiGHS through highspy (fairalloc.exact.backends.solve_lp), which raises too
    with pytest.raises(InvalidInstanceError, match=re.escape(where) + r": the backend rejected "
                                                   r"options=\{'no_such_option': 1\}") as info:
        call({"no_such_option": 1})
    assert info.value.argument == "options" and info.value.__cause__ is not None


def test_method_of_another_instance_type_is_explained():
    with pytest.raises(InvalidInstanceError, match=r"method='waterfill' is not one of 'milp', 'greedy' "
                                                   r"\(the methods on a TaskInstance\); method='waterfill' "
                                                   r"is for an Instance"):
        fa.drf(drf_paper_tasks(), method="waterfill")


def test_wrong_instance_types():
    with pytest.raises(TypeError, match="tsf: instance must be a fairalloc.TaskInstance, got Instance"):
        fa.tsf(fa.Instance([[1, 2], [2, 1]]))
    with pytest.raises(TypeError, match="fairalloc.Instance or fairalloc.TaskInstance, got TimeVaryingInstance"):
        fa.drf(tv_instance())
    with pytest.raises(TypeError, match="a TaskInstance carries its own"):
        fa.sdrf(sdrf_tasks(), commitments=[[0, 0], [0, 0]])
