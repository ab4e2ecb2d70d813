"""The max-min of the dense 10 x 10 x 20 TV-TSF instance of seed 0 reaches 76/1240 (issue 30).

``dense_time_varying_instance(10, 10, 20, rng=0)`` had a max-min of Eq. 10 that no solver decided
between 17/280 and 76/1240. ``tests/data/tvtsf_dense_seed0_maxmin.json`` holds a schedule in which
every user's cumulative task share (Eq. 3 after the last slot) is at least 76/1240; it was found by a
solver (``benchmarks/bench_packing.py --model milp``, see ``benchmarks/RESULTS.md``), and this test
re-checks it from the instance alone, without a solver and without fairalloc's schedule code:

* Eq. 10b: in every slot, the tasks still running on a server (started within the last e_i slots)
  fit its capacity in every resource;
* placement (the errata's x_im(t) = 0 where p_im = 0);
* submissions (errata): tasks of a user started by slot t never exceed those submitted by t;
* Eq. 3 with Eq. 4: s_i(T) = X_i / sum_t h_i(t), weights 1, h_i = sum_m min_r floor(C_mr / d_ir)
  over every server (Eq. 4 ignores placement), demands constant in time; exact fractions.

Together with "every user >= 77/1240 is infeasible" (proven by CP-SAT, ``bench_packing.py --model
milp --solver cpsat --threshold 77/1240 --plain``: the next achievable share of users 6 and 7 above
76/1240 needs 77 and 39 tasks), the max-min is 76/1240. That half is a solver proof, not re-checked
here.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

DATA = Path(__file__).resolve().parents[2] / "data" / "tvtsf_dense_seed0_maxmin.json"


@pytest.fixture(scope="module")
def doc():
    return json.loads(DATA.read_text())


def _starts(doc) -> np.ndarray:
    n, m, T = np.array(doc["arrivals"]).shape[0], len(doc["capacities"]), np.array(doc["arrivals"]).shape[1]
    s = np.zeros((n, m, T), dtype=np.int64)
    for i, k, t, c in doc["starts"]:
        assert c > 0
        s[i, k, t] += c
    return s


def test_the_stored_instance_is_seed_0(doc):
    from fairalloc.exact.random_instances import dense_time_varying_instance

    tv = dense_time_varying_instance(10, 10, 20, rng=0)
    assert np.array_equal(tv.cluster.capacities, np.array(doc["capacities"]))
    assert np.array_equal(tv.arrivals, np.array(doc["arrivals"]))
    assert np.array_equal(tv.durations, np.array(doc["durations"]))
    assert np.array_equal(tv.placement, np.array(doc["placement"], dtype=bool))
    d = np.array(doc["task_demands"])
    assert np.array_equal(tv.task_demands, np.broadcast_to(d[:, None, :], tv.task_demands.shape))
    assert np.array_equal(tv.weights, np.ones_like(tv.weights))


def test_capacity_placement_and_submissions(doc):
    caps = np.array(doc["capacities"])
    d = np.array(doc["task_demands"])
    e = np.array(doc["durations"])
    arrivals = np.array(doc["arrivals"])
    place = np.array(doc["placement"], dtype=bool)
    s = _starts(doc)
    n, m, T = s.shape
    for k in range(m):
        for t in range(T):
            running = [(i, tau) for i in range(n) for tau in range(max(0, t - e[i] + 1), t + 1)]
            use = sum(s[i, k, tau] * d[i] for i, tau in running)
            assert np.all(use <= caps[k]), (k, t, use, caps[k])                        # Eq. 10b
    for i, k, t, c in doc["starts"]:
        assert place[i, k], (i, k)                                                     # placement
    for i in range(n):
        for t in range(T):
            assert s[i, :, :t + 1].sum() <= arrivals[i, :t + 1].sum(), (i, t)           # submissions


def test_every_share_at_least_76_over_1240(doc):
    caps = np.array(doc["capacities"], dtype=np.int64)
    d = np.array(doc["task_demands"], dtype=np.int64)
    T = np.array(doc["arrivals"]).shape[1]
    h = [sum(min(int(c[r]) // int(d[i, r]) for r in range(len(c))) for c in caps) for i in range(len(d))]
    assert h == [19, 14, 7, 19, 14, 19, 62, 31, 14, 19]                 # Eq. 4 by hand for users 0 and 6:
    # user 0 <5, 5>: 2 x 4 + 5 x 1 + 3 x 2 = 19; user 6 <1, 8>: 2 x 12 + 5 x 4 + 3 x 6 = 62
    X = _starts(doc).sum(axis=(1, 2))
    share = [Fraction(int(X[i]), T * h[i]) for i in range(len(h))]
    assert min(share) == Fraction(76, 1240)
    assert [i for i in range(len(h)) if share[i] == Fraction(76, 1240)] == [6, 7]


def test_fairalloc_reads_the_schedule_the_same_way(doc):
    """fairalloc's schedule_details and Eq. 3 shares on this schedule against the checks above."""
    from fairalloc.exact.random_instances import dense_time_varying_instance
    from fairalloc.exact.tvtsf import schedule_details

    tv = dense_time_varying_instance(10, 10, 20, rng=0)
    s = _starts(doc)
    det = schedule_details(tv, s)
    assert np.all(det["usage"] <= tv.cluster.capacities[:, :, None])
    assert np.all(det["pending"] >= 0)
    X = s.sum(axis=(1, 2))
    h = np.array([19, 14, 7, 19, 14, 19, 62, 31, 14, 19])
    np.testing.assert_allclose(det["cumulative_shares"][:, -1], X / (20 * h), rtol=1e-12)
    assert det["cumulative_shares"][:, -1].min() == pytest.approx(76 / 1240, rel=1e-12)
