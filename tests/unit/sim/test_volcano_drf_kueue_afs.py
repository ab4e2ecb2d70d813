"""Volcano's DRF plugin and hierarchical DRF, and Kueue's Admission Fair Sharing, as simulator policies.

Where the expected numbers come from:

* Volcano's own unit test ``pkg/scheduler/plugins/drf/hdrf_test.go`` (``TestHDRF``, volcano-sh/volcano at
  ``012c2a2606``): its two cases, "rescaling test" and "blocking nodes test", list each job's allocation
  after one allocate action with every pod pending; here the same jobs are submitted at 0 with a long run
  time and the allocation at 0 is compared;
* hand computations, written out in each test (weighted HDRF on one resource; jobs by share inside a
  queue; AFS's decay :math:`c \\leftarrow u + (c - u)\\,2^{-\\Delta/h}` and entry penalty
  :math:`(1 - 2^{-\\text{interval}/h})\\,d`, KEP 4136 and ``admission_fair_sharing.go``);
* a reduction stated by the HDRF design (``docs/design/hdrf.md``: "HDRF ... reduces to DRF" on a flat tree):
  with one job per queue directly under the root and equal weights, a queue's share is its job's dominant
  share and the queue order is DRF's, except that a *saturated* job goes last; a job with pending tasks of
  one demand is saturated only when a resource it holds is used up, and then its next task fits nowhere
  on a pool. So the schedule is ``policy="drf"``'s with ``blocking="skip"`` (DRF's key
  :func:`fairalloc.scheduling.keys.drf_key`, an independent rule).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from test_production_policies import _raises  # the argument-naming check of the first container policies

import fairalloc as fa
from fairalloc.accounts import AccountTree
from fairalloc.errors import FairallocWarning, InvalidInstanceError
from fairalloc.scheduling.production import QueueScheduler
from fairalloc.workloads import Workload


def _at_zero(r, n):
    lf = r.launches
    got = lf[lf["start"] == 0].groupby("job")["tasks"].sum()
    return [int(got.get(j, 0)) for j in range(n)]


def _users_in_order(r, wl):
    lf = r.launches
    return [int(wl.user[j]) for j, k in zip(lf["job"].tolist(), lf["tasks"].tolist()) for _ in range(k)]


# ---- Volcano's own test cases (hdrf_test.go) ------------------------------------------------------------
def test_hdrf_rescaling_test_of_volcano():
    # hdrf_test.go "rescaling test": node <10 CPU, 10G>; root/sci (weights 100/50) pg1 10 x <1, 1G>;
    # root/eng/dev and root/eng/prod (100/50/50) pg21 10 x <1, 0>, pg22 10 x <0, 1G>.
    # Expected: pg1 <5, 5G>, pg21 <5, 0>, pg22 <0, 5G>.
    t = AccountTree([{"account": "sci", "hdrf_weight": 50}, {"account": "eng", "hdrf_weight": 50},
                     {"account": "dev", "parent": "eng", "hdrf_weight": 50},
                     {"account": "prod", "parent": "eng", "hdrf_weight": 50},
                     {"user": "0", "account": "sci"}, {"user": "1", "account": "dev"}, {"user": "2", "account": "prod"}],
                    resources=["cpu", "mem"])
    wl = Workload(submit=[0, 0, 0], run_time=[100, 100, 100], tasks=[10, 10, 10], user=[0, 1, 2],
                  resources=[[1, 1], [1, 0], [0, 1]])
    r = fa.simulate(wl, [10.0, 10.0], policy="volcano-hdrf", accounts=t)
    assert _at_zero(r, 3) == [5, 5, 5]


def test_hdrf_blocking_nodes_test_of_volcano():
    # hdrf_test.go "blocking nodes test": node <30, 30G>; root/pg1, root/pg2 30 x <1, 0>, root/pg3/pg31 30 x <1, 0>,
    # root/pg3/pg32 30 x <0, 1G>, root/pg4 30 x <0, 1G> (weights 100/25, 100/25/50).
    # Expected: pg1, pg2, pg31 10 CPUs each; pg32 and pg4 15G each.
    t = AccountTree([{"account": "pg1", "hdrf_weight": 25}, {"account": "pg2", "hdrf_weight": 25},
                     {"account": "pg3", "hdrf_weight": 25}, {"account": "pg31", "parent": "pg3", "hdrf_weight": 50},
                     {"account": "pg32", "parent": "pg3", "hdrf_weight": 50}, {"account": "pg4", "hdrf_weight": 25}]
                    + [{"user": str(i), "account": a} for i, a in enumerate(["pg1", "pg2", "pg31", "pg32", "pg4"])],
                    resources=["cpu", "mem"])
    wl = Workload(submit=[0] * 5, run_time=[100] * 5, tasks=[30] * 5, user=[0, 1, 2, 3, 4],
                  resources=[[1, 0], [1, 0], [1, 0], [0, 1], [0, 1]])
    r = fa.simulate(wl, [30.0, 30.0], policy="volcano-hdrf", accounts=t)
    assert _at_zero(r, 5) == [10, 10, 10, 15, 15]


# ---- hand computations ----------------------------------------------------------------------------------
def test_hdrf_weights_by_hand():
    # One resource, 9 units; queue a (hdrf_weight 2) and b (1), one job each wanting 9 tasks of 1.
    # compareQueues takes the lower share/weight: a/2 vs b/1 equalised with a + b = 9: a = 6, b = 3.
    t = AccountTree([{"account": "a", "hdrf_weight": 2}, {"account": "b", "hdrf_weight": 1},
                     {"user": "0", "account": "a"}, {"user": "1", "account": "b"}], resources=["cpu"])
    wl = Workload(submit=[0, 0], run_time=[10, 10], tasks=[9, 9], user=[0, 1], resources=[[1.0], [1.0]])
    r = fa.simulate(wl, [9.0], policy="volcano-hdrf", accounts=t)
    assert _at_zero(r, 2) == [6, 3]


def test_hdrf_nested_weights_by_hand():
    # Pool of P = 10 units, every task 1 unit: top queues x and y (weight 1), x holding job a, y with
    # children y1 (weight 1, job b) and y2 (weight 2, job c). Inside y, compareQueues equalises b/1 = c/2:
    # c = 2b. y's share is the dominant share of its children *rescaled* to the smaller child share
    # (updateHierarchicalShare), min(b, c)/P each, i.e. 2b/P, not (b + c)/P; level 1 equalises x with
    # it: a = 2b. With a + b + c = P: b = P/5 = 2, a = c = 4 (the subtree holds 6 of 10 under equal
    # weights, because its share counts its unequal children at the smaller one's level).
    t = AccountTree([{"account": "x"}, {"account": "y"}, {"account": "y1", "parent": "y"},
                     {"account": "y2", "parent": "y", "hdrf_weight": 2},
                     {"user": "0", "account": "x"}, {"user": "1", "account": "y1"}, {"user": "2", "account": "y2"}],
                    resources=["cpu"])
    wl = Workload(submit=[0, 0, 0], run_time=[10] * 3, tasks=[10] * 3, user=[0, 1, 2], resources=[[1.0]] * 3)
    r = fa.simulate(wl, [10.0], policy="volcano-hdrf", accounts=t)
    assert _at_zero(r, 3) == [4, 2, 4]


def test_volcano_drf_orders_jobs_by_share_inside_a_queue():
    # One queue, pool of 4, two jobs of four 1-unit tasks submitted at 0. Proportion alone (``volcano``)
    # serves the queue's jobs in submission order (ties: the lower index): job 0 takes all 4. The DRF
    # plugin's JobOrderFn takes the job of lower share: 0, 1, 0, 1.
    t = AccountTree([{"account": "q"}, {"user": "0", "account": "q"}, {"user": "1", "account": "q"}], resources=["cpu"])
    wl = Workload(submit=[0, 0], run_time=[10, 10], tasks=[4, 4], user=[0, 1], resources=[[1.0], [1.0]])
    assert _users_in_order(fa.simulate(wl, [4.0], policy="volcano", accounts=t), wl)[:4] == [0, 0, 0, 0]
    assert _users_in_order(fa.simulate(wl, [4.0], policy="volcano-drf", accounts=t), wl)[:4] == [0, 1, 0, 1]


def test_volcano_drf_keeps_the_queue_order_and_the_deserved_cap():
    # Two queues a (weight 3) and b (weight 1) on 8 units, a with two jobs, b with one, all wanting 8 tasks
    # of 1: deserved a = 6, b = 2 (proportion: 8 * 3/4 and 8 * 1/4); inside a the two jobs alternate: 3, 3.
    t = AccountTree([{"account": "a", "weight": 3}, {"account": "b", "weight": 1}, {"user": "0", "account": "a"},
                     {"user": "1", "account": "a"}, {"user": "2", "account": "b"}], resources=["cpu"])
    wl = Workload(submit=[0, 0, 0], run_time=[10] * 3, tasks=[8] * 3, user=[0, 1, 2], resources=[[1.0]] * 3)
    r = fa.simulate(wl, [8.0], policy="volcano-drf", accounts=t)
    assert _at_zero(r, 3) == [3, 3, 2]


# ---- reduction: flat HDRF, one job per queue, equal weights == DRF (skip) -------------------------------
@pytest.mark.parametrize("seed", range(4))
def test_flat_hdrf_is_drf(seed):
    rng = np.random.default_rng(seed)
    n_users, n_jobs = 5, 30
    demand = rng.integers(1, 5, (n_users, 2)) / 4.0              # one demand per user
    user = rng.integers(0, n_users, n_jobs)
    wl = Workload(submit=np.sort(rng.integers(0, 20, n_jobs)).astype(float),
                  run_time=rng.integers(1, 8, n_jobs).astype(float), tasks=rng.integers(1, 6, n_jobs), user=user,
                  resources=demand[user])
    a = fa.simulate(wl, [3.0, 3.0], policy="volcano-hdrf")
    b = fa.simulate(wl, [3.0, 3.0], policy="drf", blocking="skip")
    cols = ["job", "tasks", "start"]
    assert a.launches[cols].values.tolist() == b.launches[cols].values.tolist()


# ---- Kueue Admission Fair Sharing ---------------------------------------------------------------------
def _one_cq(n=2, k=1):
    res = ["cpu", "mem"][:k]
    return AccountTree([{"account": "cq"}] + [{"user": str(i), "account": "cq"} for i in range(n)], resources=res)


def test_afs_a_local_queue_that_used_more_waits():
    # One ClusterQueue, 1 CPU. LocalQueue 0 runs a 1-CPU task over [0, 900); at 1000 both LocalQueues submit
    # one. Without AFS the ClusterQueue's order is FIFO (equal times: the lower index): LocalQueue 0 first.
    # With h = 600 s, sampling every 300 s: on admission at 0, c0 = alpha_e * 1 = 1 - 2^(-1/2); the samples
    # up to 900 see 1 CPU in use: c0 = 1 + (c0 - 1) 2^(-900/600) = 1 - 2^(-1/2) 2^(-3/2) = 3/4 > c1 = 0,
    # so LocalQueue 1 goes first at 1000.
    wl = Workload(submit=[0, 1000, 1000], run_time=[900, 50, 50], tasks=[1, 1, 1], user=[0, 0, 1],
                  resources=[[1.0]] * 3)
    plain = fa.simulate(wl, [1.0], policy="kueue", accounts=_one_cq())
    afs = fa.simulate(wl, [1.0], policy="kueue", accounts=_one_cq(), half_life=600.0)
    assert plain.launches[["job", "start"]].values.tolist() == [[0, 0], [1, 1000], [2, 1050]]
    assert afs.launches[["job", "start"]].values.tolist() == [[0, 0], [2, 1000], [1, 1050]]


def test_afs_consumed_by_hand():
    # The same history on the scheduler itself: LocalQueue 0's admission at 0 gives c0 = alpha_e
    # = 1 - 2^(-1/2) (decay over 0 s, plus the entry penalty); its task ends at 900; the pass at 900 takes
    # the samples at 300, 600, 900, which saw 1 CPU in use: c0 = 1 + (c0 - 1) 2^(-900/600) = 3/4.
    s = QueueScheduler([[1.0]], policy="kueue", accounts=_one_cq(), half_life=600.0)
    (task,) = s.submit(0, [1.0], 1)
    assert len(s.schedule()) == 1
    qs = s._core.st.qs
    assert qs.afs_c[qs.node[0], 0] == pytest.approx(1 - 2 ** -0.5, abs=1e-12)
    s.advance(900.0)
    s.finish(task)
    s.schedule()
    assert qs.afs_c[qs.node[0], 0] == pytest.approx(0.75, abs=1e-12)
    assert qs.afs_c[qs.node[1], 0] == 0.0


def test_afs_entry_penalty_alternates():
    # Two LocalQueues submit four 1-CPU tasks at 0 on 4 CPUs. Plain Kueue: FIFO inside the ClusterQueue,
    # LocalQueue 0 (lower index, same time) takes all 4. AFS: each admission adds alpha_e > 0 to its
    # LocalQueue's usage, so the other one (usage 0, or equal and pending as long) goes next: 0, 1, 0, 1.
    wl = Workload(submit=[0, 0], run_time=[10, 10], tasks=[4, 4], user=[0, 1], resources=[[1.0], [1.0]])
    assert _users_in_order(fa.simulate(wl, [4.0], policy="kueue", accounts=_one_cq()), wl)[:4] == [0, 0, 0, 0]
    afs = fa.simulate(wl, [4.0], policy="kueue", accounts=_one_cq(), half_life=3600.0)
    assert _users_in_order(afs, wl)[:4] == [0, 1, 0, 1]


@pytest.mark.parametrize("weights, first", [(None, 1), ({"mem": 0.0}, 0), ({"cpu": 0.0}, 1)])
def test_afs_resource_weights(weights, first):
    # Pool <1, 1>. Over [0, 900): LocalQueue 0 ran <0, 1> (memory), LocalQueue 1 <0.5, 0> (CPU); by the
    # decay above each consumed resource ends at 3/4 of what was held: c0 = <0, 3/4>, c1 = <3/8, 0>.
    # At 1000 both submit <1, 1>. Usage sum_r w_r c_r: equal weights 3/4 vs 3/8 -> 1 first; memory weight 0:
    # 0 vs 3/8 -> 0 first; CPU weight 0: 3/4 vs 0 -> 1 first.
    wl = Workload(submit=[0, 0, 1000, 1000], run_time=[900, 900, 10, 10], tasks=[1, 1, 1, 1], user=[0, 1, 0, 1],
                  resources=[[0.0, 1.0], [0.5, 0.0], [1.0, 1.0], [1.0, 1.0]])
    r = fa.simulate(wl, [1.0, 1.0], policy="kueue", accounts=_one_cq(k=2), half_life=600.0, resource_weights=weights)
    lf = r.launches
    assert int(wl.user[lf[lf["start"] == 1000]["job"].iloc[0]]) == first


# ---- bad input ----------------------------------------------------------------------------------------
def test_bad_input():
    wl = Workload(submit=[0], run_time=[1], tasks=[1], user=[0], resources=[[1.0]])

    def sim(**kw):
        return fa.simulate(wl, [1.0], **kw)
    assert "kueue#11134" in _raises("half_life", lambda: sim(policy="kueue", half_life=0))
    assert "-1" in _raises("half_life", lambda: sim(policy="kueue", half_life=-1))
    _raises("half_life", lambda: sim(policy="kueue", half_life=math.nan))
    _raises("half_life", lambda: sim(policy="kueue", half_life="1h"))
    assert "needs half_life" in _raises("sampling_interval", lambda: sim(policy="kueue", sampling_interval=60))
    _raises("sampling_interval", lambda: sim(policy="kueue", half_life=60, sampling_interval=0))
    assert "Kueue's" in _raises("half_life", lambda: sim(policy="yarn", half_life=60))
    assert "'gpu'" in _raises("resource_weights", lambda: sim(policy="kueue", accounts=_one_cq(1), half_life=60,
                                                              resource_weights={"gpu": 1}))
    _raises("resource_weights", lambda: sim(policy="kueue", accounts=_one_cq(1), half_life=60,
                                            resource_weights={"cpu": -1}))
    assert "volcano-hdrf" in _raises("policy", lambda: sim(policy="volcano-hdrf2"))
    _raises("eps", lambda: sim(policy="kueue", eps=0.1))
    with pytest.raises(InvalidInstanceError, match="hdrf_weight=0.0 of account 'a' must be > 0"):
        AccountTree([{"account": "a", "hdrf_weight": 0}, {"user": "0", "account": "a"}], resources=["cpu"])
    with pytest.raises(InvalidInstanceError, match="weights"):
        sim(policy="volcano-hdrf", weights=[-1.0])
    nested = AccountTree([{"account": "a"}, {"account": "b", "parent": "a"}, {"user": "0", "account": "b"}],
                         resources=["cpu"])
    _raises("accounts", lambda: sim(policy="volcano-drf", accounts=nested))


def test_hdrf_weight_below_one_warns_and_is_one():
    # drf.go buildHierarchy: "if fweight < 1 { fweight = 1 }": weights 0.5 and 1 act as 1 and 1.
    t = AccountTree([{"account": "a", "hdrf_weight": 0.5}, {"account": "b"}, {"user": "0", "account": "a"},
                     {"user": "1", "account": "b"}], resources=["cpu"])
    wl = Workload(submit=[0, 0], run_time=[10, 10], tasks=[4, 4], user=[0, 1], resources=[[1.0], [1.0]])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = fa.simulate(wl, [4.0], policy="volcano-hdrf", accounts=t)
    assert any(issubclass(x.category, FairallocWarning) and "hdrf_weight" in str(x.message) for x in w)
    assert _at_zero(r, 2) == [2, 2]


@pytest.mark.parametrize("seed", range(3))
def test_afs_changes_nothing_with_one_local_queue_per_cluster_queue(seed):
    # AFS orders LocalQueues *inside* a ClusterQueue (KEP 4136): with one LocalQueue per ClusterQueue (the
    # default tree) each is its ClusterQueue's head and takes Kueue's key, so the schedule is plain Kueue's.
    rng = np.random.default_rng(seed)
    n_jobs = 30
    wl = Workload(submit=np.sort(rng.integers(0, 20, n_jobs)).astype(float),
                  run_time=rng.integers(1, 8, n_jobs).astype(float), tasks=rng.integers(1, 6, n_jobs),
                  user=rng.integers(0, 5, n_jobs), resources=rng.integers(1, 5, (n_jobs, 2)) / 4.0)
    cols = ["job", "tasks", "start"]

    def run(**kw):
        return fa.simulate(wl, [3.0, 3.0], policy="kueue", **kw).launches[cols].values.tolist()
    assert run(half_life=600.0) == run()
