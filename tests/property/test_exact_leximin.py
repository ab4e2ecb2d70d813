"""Property tests: the exact programs against brute-force enumeration on random tiny instances.

Instances are built constructively (every task fits on server 0, which everybody may use), so no
example is filtered away. The oracle enumerates every integer allocation with exact rationals.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from hypothesis import given, strategies as st

import fairalloc as fa
from fairalloc.result import Status

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "unit" / "exact"))
from _exact_bruteforce import (best_leximin, feasible_task_totals, feasible_tv_totals,  # noqa: E402
                               task_values, tv_values)

#: every installed MILP backend (CBC is absent with PuLP 4; see tests/unit/exact/_solvers.py)
SOLVERS = [s for s in ("highs", "cpsat", "cbc") if s in fa.available_solvers("milp")]


@st.composite
def tiny_task_instances(draw):
    n = draw(st.integers(2, 3))
    m = draw(st.integers(1, 2))
    caps = np.array(draw(st.lists(st.lists(st.integers(2, 6), min_size=2, max_size=2), min_size=m, max_size=m)),
                    dtype=float)
    d = np.array(draw(st.lists(st.lists(st.integers(1, 3), min_size=2, max_size=2), min_size=n, max_size=n)),
                 dtype=float)
    d = np.minimum(d, caps[0])
    extra = draw(st.lists(st.lists(st.booleans(), min_size=m, max_size=m), min_size=n, max_size=n))
    p = np.array(extra, dtype=bool)
    p[:, 0] = True
    tasks = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    w = draw(st.one_of(st.none(), st.lists(st.sampled_from([1.0, 2.0, 3.0]), min_size=n, max_size=n)))
    return fa.TaskInstance(caps, d, tasks, placement=p, weights=w)


@st.composite
def tiny_tv_instances(draw):
    n = draw(st.integers(2, 3))
    m = draw(st.integers(1, 2))
    t = draw(st.integers(1, 3))
    caps = np.array(draw(st.lists(st.lists(st.integers(2, 5), min_size=2, max_size=2), min_size=m, max_size=m)),
                    dtype=float)
    d = np.minimum(np.array(draw(st.lists(st.lists(st.integers(1, 3), min_size=2, max_size=2), min_size=n,
                                          max_size=n)), dtype=float), caps[0])
    arr = draw(st.lists(st.lists(st.integers(0, 2), min_size=t, max_size=t), min_size=n, max_size=n))
    dur = draw(st.lists(st.integers(1, 2), min_size=n, max_size=n))
    p = np.array(draw(st.lists(st.lists(st.booleans(), min_size=m, max_size=m), min_size=n, max_size=n)))
    p[:, 0] = True
    return fa.TimeVaryingInstance(caps, d, arr, dur, placement=p)


@given(tiny_task_instances(), st.sampled_from(["drf", "sdrf", "tsf", "cdrf"]), st.sampled_from(SOLVERS))
def test_task_leximin_matches_enumeration(ti, mechanism, solver):
    r = fa.exact.tasks_leximin(ti, mechanism=mechanism, solver=solver)
    assert r.status is Status.OPTIMAL, r.message
    f = task_values(ti, mechanism)
    got = tuple(sorted(f(tuple(int(v) for v in r.tasks.sum(axis=1)))))
    assert got == best_leximin(f(x) for x in feasible_task_totals(ti))


@given(tiny_tv_instances(), st.sampled_from(SOLVERS))
def test_tvtsf_leximin_matches_enumeration(tv, solver):
    r = fa.exact.tvtsf_milp(tv, solver=solver)
    assert r.status is Status.OPTIMAL, r.message
    f = tv_values(tv)
    got = tuple(sorted(f(tuple(int(v) for v in r.tasks.sum(axis=(1, 2))))))
    assert got == best_leximin(f(x) for x in feasible_tv_totals(tv))
