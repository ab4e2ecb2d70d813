"""Delivered against entitled shares, Jain's index and the promised-vs-delivered gap, against hand computations.

The schedule (FCFS, 4 processors, three 2-processor jobs submitted at 0; rows in order u1 (10 s),
u2 (5 s), u3 (10 s)): u1 and u2 start at 0, u3 waits for u2 and runs 5..15. Tree: account A (2
shares) with users 1 and 2, account B (1 share) with user 3: entitled shares A 2/3, B 1/3, users
1/3 each (2/3 x 1/2, 2/3 x 1/2, 1/3 x 1). Three windows of 5 s over [0, 15] (capacity-time 20 each):

========  =====================  ======================  ======================
window    [0, 5)                 [5, 10)                 [10, 15)
========  =====================  ======================  ======================
held      u1 10, u2 10, u3 0     u1 10, u2 0, u3 10      u3 10
delivered u1 .5, u2 .5, u3 0     u1 .5, u2 0, u3 .5      u3 1 (of capacity .5)
active    1, 2, 3 (3 pending)    1, 3 (2 ended at 5)     3
ent. act. 1/3 each               u1 2/3, u3 1/3          u3 1
========  =====================  ======================  ======================

Jain (users), x = delivered / entitled_active: [1.5, 1.5, 0] -> 9 / 13.5 = 2/3; [.75, 1.5] ->
2.25^2 / (2 x 2.8125) = 0.9; [1] -> 1: mean 0.85556 (= (2/3 + 0.9 + 1) / 3).
Gap (users, active): 2 (1/6)^2 + (1/3)^2 = 1/6; (1/6)^2 + (1/6)^2 = 1/18; 0: mean 2/27.
Flux gap (users, of capacity, all users): 1/6; (1/6)^2 + (1/3)^2 + (1/6)^2 = 1/6;
(1/3)^2 + (1/3)^2 + (1/6)^2 = 1/4: mean 7/36.
Accounts (A, B): delivered [1, 0], [.5, .5], [-, 1]; entitled_active [2/3, 1/3], [2/3, 1/3], [0, 1]:
Jain [1.5, 0] -> 0.5, [.75, 1.5] -> 0.9, [1] -> 1: mean 0.8.
"""

from __future__ import annotations

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.accounts import AccountTree
from fairalloc.errors import InvalidInstanceError
from fairalloc.experiments.share_metrics import (active_shares, entity_table, jain_index, share_summary,
                                                 share_windows)


@pytest.fixture(scope="module")
def hand():
    wl = fa.workloads.Workload(submit=[0, 0, 0], run_time=[10, 5, 10], processors=[2, 2, 2], user=[1, 2, 3])
    r = fa.simulate(wl, 4, policy="fcfs")
    tree = AccountTree([{"account": "A", "shares": 2}, {"account": "B", "shares": 1},
                        {"user": "1", "account": "A"}, {"user": "2", "account": "A"}, {"user": "3", "account": "B"}])
    return r, tree, share_windows(r, tree, windows=3)


def _grid(table, level, column):
    part = table[table["level"] == level]
    return part.pivot(index="entity", columns="window", values=column)


def test_schedule_is_the_hand_one(hand):
    r, _, _ = hand
    assert r.jobs["start"].tolist() == [0.0, 0.0, 5.0]
    assert r.jobs["end"].tolist() == [10.0, 5.0, 15.0]


def test_delivered_entitled_and_active_per_window(hand):
    _, _, t = hand
    assert _grid(t, "user", "start").iloc[0].tolist() == [0.0, 5.0, 10.0]
    np.testing.assert_allclose(_grid(t, "user", "delivered").loc[["1", "2", "3"]].values,
                               [[.5, .5, 0], [.5, 0, 0], [0, .5, 1]])
    np.testing.assert_allclose(_grid(t, "user", "delivered_capacity").loc[["1", "2", "3"]].values,
                               [[.5, .5, 0], [.5, 0, 0], [0, .5, .5]])
    np.testing.assert_allclose(_grid(t, "user", "entitled").values, 1 / 3)
    assert _grid(t, "user", "active").loc[["1", "2", "3"]].values.tolist() == [[True, True, False],
                                                                              [True, False, False],
                                                                              [True, True, True]]
    np.testing.assert_allclose(_grid(t, "user", "entitled_active").loc[["1", "2", "3"]].values,
                               [[1 / 3, 2 / 3, 0], [1 / 3, 0, 0], [1 / 3, 1 / 3, 1]])
    np.testing.assert_allclose(_grid(t, "account", "delivered").loc[["A", "B"]].values, [[1, .5, 0], [0, .5, 1]])
    np.testing.assert_allclose(_grid(t, "account", "entitled").loc[["A", "B"]].values[:, 0], [2 / 3, 1 / 3])
    np.testing.assert_allclose(_grid(t, "account", "entitled_active").loc[["A", "B"]].values,
                               [[2 / 3, 2 / 3, 0], [1 / 3, 1 / 3, 1]])
    # usage in processor-seconds as fractions of the cluster: u1 held 2 of 4 processors for 10 s
    assert t[(t.entity == "1")]["usage"].sum() == pytest.approx(5.0)


def test_summary_jain_and_gaps(hand):
    _, _, t = hand
    s = share_summary(t)
    assert s["jain_user"] == pytest.approx((2 / 3 + 0.9 + 1) / 3)
    assert s["gap_user"] == pytest.approx(2 / 27)
    assert s["gap_flux_user"] == pytest.approx(7 / 36)
    assert s["jain_account"] == pytest.approx(0.8)
    assert s["windows"] == 3


def test_entity_table(hand):
    r, tree, t = hand
    e = entity_table(r, tree, t).set_index("entity")
    assert e.loc["3", "mean_wait"] == 5.0 and e.loc["B", "mean_wait"] == 5.0
    assert e.loc["A", "jobs"] == 2 and e.loc["A", "mean_wait"] == 0.0
    # whole-run shares of the 15 processor-seconds-of-cluster: u1 5, u2 2.5, u3 5 (of 12.5 in total)
    assert e.loc["1", "delivered"] == pytest.approx(5 / 12.5)
    assert e.loc["A", "delivered"] == pytest.approx(7.5 / 12.5)
    assert e.loc["3", "account"] == "B"


def test_jain_formula_on_hand_values():
    # (sum x)^2 / (n sum x^2): [2, 4] -> 36 / (2 * 20) = 0.9; [3, 0, 0] -> 9 / 27 = 1/3
    assert jain_index([2, 4]) == pytest.approx(0.9)
    assert jain_index([3, 0, 0]) == pytest.approx(1 / 3)
    assert jain_index([5, 5, 5, 5]) == 1.0
    assert np.isnan(jain_index([0, 0]))
    with pytest.raises(InvalidInstanceError, match=r"x\[1\]=-1.0"):
        jain_index([1, -1])


def test_active_shares_in_a_deeper_tree():
    # root: A (3) [A1 (1): u, A2 (1): v], B (1): w. A2 idle: A1 takes A's 3/4, u all of it.
    t = AccountTree([{"account": "A", "shares": 3}, {"account": "B"}, {"account": "A1", "parent": "A"},
                     {"account": "A2", "parent": "A"}, {"user": "u", "account": "A1"},
                     {"user": "v", "account": "A2"}, {"user": "w", "account": "B"}])
    active = np.array([n != "A2" and n != "v" for n in t.names])
    got = dict(zip(t.names, active_shares(t, active)))
    assert got["u"] == pytest.approx(0.75) and got["A1"] == pytest.approx(0.75)
    assert got["v"] == 0 and got["A2"] == 0 and got["w"] == pytest.approx(0.25)


def test_task_result_charges_the_dominant_share():
    # one pool <4 cpu, 8 mem>: user 0 holds <2, 2> for 10 s, user 1 <1, 6> for 10 s, both from 0.
    # Dominant shares of the window [0, 10): user 0 max(2/4, 2/8) = 0.5, user 1 max(1/4, 6/8) = 0.75.
    wl = fa.workloads.Workload(submit=[0, 0], run_time=[10, 10], user=[0, 1], resources=[[2, 2], [1, 6]],
                               resource_names=("cpu", "memory"), resource_units=(None, None))
    r = fa.simulate(wl, [4.0, 8.0], policy="drf")
    assert r.jobs["start"].tolist() == [0.0, 0.0]
    t = share_windows(r, AccountTree.flat([0, 1]), windows=1)
    np.testing.assert_allclose(t["delivered_capacity"], [0.5, 0.75])
    np.testing.assert_allclose(t["delivered"], [0.5 / 1.25, 0.75 / 1.25])
    t_cpu = share_windows(r, AccountTree.flat([0, 1]), windows=1, charge="cpu")
    np.testing.assert_allclose(t_cpu["delivered_capacity"], [0.5, 0.25])
    with pytest.raises(InvalidInstanceError, match="charge='gpu'"):
        share_windows(r, AccountTree.flat([0, 1]), windows=1, charge="gpu")


def test_a_user_missing_from_the_tree_is_named(hand):
    r, _, _ = hand
    with pytest.raises(InvalidInstanceError, match=r"user 3 of the simulation has no association"):
        share_windows(r, AccountTree.flat([1, 2]), windows=3)
