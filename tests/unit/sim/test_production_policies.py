"""Kueue, YARN and Mesos as simulator policies (keys on the decision core, queues from an account tree).

Where the expected numbers come from:

* hand computations, written out in each test (the DRF paper's example; quota, borrowing-limit, max-share
  and min-share cases on a pool of 4);
* reductions stated by the systems' documents: with one queue per user and no quotas YARN's DRF
  comparator and Mesos' sorter are DRF (FairScheduler.md, DRFSorter), so their schedules equal
  ``policy="drf"``'s; Kueue's share is taken *with the workload added* (KEP 1714, ``computeDRS``), which is
  CDRF's key, so its schedule equals ``policy="cdrf"``'s, and DRF's when every task has one demand;
* the reference validator (``tests/reference``) on every schedule, with keys and quotas recomputed from
  the :mod:`fairalloc.fairshare` classes on the whole usage at each decision (not the core's incremental
  usage).
"""

from __future__ import annotations

import numpy as np
import pytest
from reference import validate_task_schedule

import fairalloc as fa
from fairalloc.accounts import AccountTree
from fairalloc.errors import InvalidInstanceError
from fairalloc.fairshare import kueue as kq
from fairalloc.fairshare.mesos import MesosSorter
from fairalloc.fairshare.yarn import YarnQueues, drf_key_into, fits_in_max_share
from fairalloc.workloads import Workload


def _workload(seed, n_jobs=40, n_users=6, k=2, same_demand=False):
    rng = np.random.default_rng(seed)
    submit = np.sort(rng.integers(0, 30, n_jobs)).astype(float)
    run = rng.integers(1, 8, n_jobs).astype(float)
    res = rng.integers(0, 9, (n_jobs, k)) / 4.0
    res[res.sum(axis=1) == 0, 0] = 0.25
    if same_demand:
        res[:] = [0.5, 0.25][:k]
    return Workload(submit=submit, run_time=run, tasks=rng.integers(1, 6, n_jobs),
                    user=rng.integers(0, n_users, n_jobs), resources=res)


def _starts(r):
    lf = r.launches
    return list(zip(lf["job"].tolist(), lf["tasks"].tolist(), lf["server"].tolist(), lf["start"].tolist()))


def _users_in_order(r, wl):
    return [int(wl.user[j]) for j, k, _, _ in _starts(r) for _ in range(k)]


# ---- hand computations ---------------------------------------------------------------------------------
def test_drf_paper_example():
    # DRF paper, Section 4: <9 CPU, 18 GB>, A's tasks <1, 4>, B's <3, 1>, both submitted at 0.
    wl = Workload(submit=[0, 0], run_time=[10, 10], tasks=[10, 10], user=[0, 1], resources=[[1, 4], [3, 1]])
    for p in ("yarn", "mesos"):            # DRF: A, B, A, B, A (A at 2/3 and B at 2/3 tie: A by index), then full
        r = fa.simulate(wl, [9.0, 18.0], policy=p, blocking="stop")
        assert _users_in_order(r, wl)[:5] == [0, 1, 0, 1, 0]
    # Kueue, share with the task added (per mille of 9 CPU / 18 GB): A 1st: max(1/9, 4/18) = 222 vs B 333 -> A;
    # A 2nd: 444 vs B 333 -> B; then A 444 vs B 667 -> A (A holds <2, 8>); A 3rd: max(3/9, 12/18) = 667 vs
    # B's 2nd: max(6/9, 2/18) = 667: a tie, both submitted at 0 -> A (index); then A 4th 889 vs B 667 -> B
    # (<6, 2> on the remaining <3, 5>: fits); now <9, 14> used, A's <1, 4> needs a CPU: nothing more.
    r = fa.simulate(wl, [9.0, 18.0], policy="kueue")
    assert _users_in_order(r, wl)[:5] == [0, 1, 0, 0, 1]
    assert int(r.launches[r.launches["start"] == 0]["tasks"].sum()) == 5


def _one_cpu_tasks(n0=4, n1=1):
    return Workload(submit=[0, 0], run_time=[10, 10], tasks=[n0, n1], user=[0, 1], resources=[[1.0], [1.0]])


def _job0_starts(r):
    return sorted(s for j, k, _, s in _starts(r) for _ in range(k) if j == 0)


def test_kueue_borrowing_limit_by_hand():
    # Pool of 4 CPUs; ClusterQueues a and b with nominal 2 each in cohort c (subtree quota 4). User 0 (in a)
    # has 4 one-CPU tasks, user 1 (in b) one, all at 0. a's 1st and 2nd stay within its quota (not borrowing:
    # first tier; tie with b by index), a's 3rd would borrow, so b's goes first; then a's 3rd: available =
    # max(0, 0 - 2) + min(2 - 0 - 2 + B, 4 - 3). With borrowingLimit B = 0: 0, so a waits until 10; without a
    # limit: 1, so it starts at 0 and a's 4th waits (the pool is full).
    recs = [{"account": "c"}, {"account": "a", "parent": "c", "nominal_quota": {"cpu": 2}},
            {"account": "b", "parent": "c", "nominal_quota": {"cpu": 2}},
            {"user": "0", "account": "a"}, {"user": "1", "account": "b"}]
    limited = [dict(r) for r in recs]
    limited[1]["borrowing_limit"] = {"cpu": 0}
    wl = _one_cpu_tasks()
    r = fa.simulate(wl, [4.0], policy="kueue", accounts=AccountTree(limited, resources=["cpu"]))
    assert _job0_starts(r) == [0.0, 0.0, 10.0, 10.0]
    assert _users_in_order(r, wl)[:3] == [0, 0, 1]
    r = fa.simulate(wl, [4.0], policy="kueue", accounts=AccountTree(recs, resources=["cpu"]))
    assert _job0_starts(r) == [0.0, 0.0, 0.0, 10.0]


def test_yarn_max_share_by_hand():
    # Queue a with maxResources 2 of a pool of 4: user 0 (in a) runs 2 of its 4 tasks at 0 (usage + 1 <= 2),
    # the other 2 at 10 although 2 CPUs stay idle (fitsInMaxShare).
    t = AccountTree([{"account": "a", "max_share": {"cpu": 2}}, {"account": "b"},
                     {"user": "0", "account": "a"}, {"user": "1", "account": "b"}], resources=["cpu"])
    r = fa.simulate(_one_cpu_tasks(4, 0 + 1), [4.0], policy="yarn", accounts=t)
    assert _job0_starts(r) == [0.0, 0.0, 10.0, 10.0]


def test_yarn_min_share_needy_first_by_hand():
    # Pool of 4; user 0 in b, user 1 in a with minResources 3; 4 tasks each at 0. a is needy (usage below its
    # min share on its dominant resource) until it holds 3: a, a, a; then a at 3/4 vs b at 0: b. DRF (no min
    # share): both at 0, user 0 first by index, then they alternate: 2 and 2.
    wl = Workload(submit=[0, 0], run_time=[10, 10], tasks=[4, 4], user=[0, 1], resources=[[1.0], [1.0]])
    t = AccountTree([{"account": "b"}, {"account": "a", "min_share": {"cpu": 3}},
                     {"user": "0", "account": "b"}, {"user": "1", "account": "a"}], resources=["cpu"])
    assert _users_in_order(fa.simulate(wl, [4.0], policy="yarn", accounts=t), wl)[:4] == [1, 1, 1, 0]
    assert _users_in_order(fa.simulate(wl, [4.0], policy="yarn"), wl)[:4] == [0, 1, 0, 1]


def test_fifo_within_a_queue():
    # Users 0 and 1 in one Mesos role, 2 in another; the role's users are served oldest task first.
    t = AccountTree([{"account": "a"}, {"account": "b"}, {"user": "0", "account": "a"},
                     {"user": "1", "account": "a"}, {"user": "2", "account": "b"}])
    wl = Workload(submit=[1, 0, 0], run_time=[10, 10, 10], tasks=[2, 2, 2], user=[0, 1, 2], resources=[[1.0]] * 3)
    # role a (user 1's job at 0 is its oldest) and role b tie at 0: user 1 (submitted at 0, lower index than 2);
    # then b (a holds 1/4), then a again (user 1, its oldest), b, and user 0 (in a, at 1) waits for a free CPU.
    r = fa.simulate(wl, [4.0], policy="mesos", accounts=t)
    assert _users_in_order(r, wl) == [1, 2, 1, 2, 0, 0]


def test_volcano_proportion_by_hand():
    # Volcano's proportion plugin (fairshare.volcano's finding: not Pareto efficient). Capacity <16, 16>; user 0
    # wants 64 tasks <1/4, 1/16> (request <16, 4>), user 1 64 tasks <1/16, 1/4> (<4, 16>), one queue each.
    # Deserved: round 1 gives each half, capped by the request: <8, 4> and <4, 8>; the remaining <4, 4> is
    # halved between the queues at every round and each takes only the resource it still wants, so the
    # rounds tend to <12, 4> and <4, 12>. 48 tasks of 1/4 CPU reach 12: 48 each start at 0 (<15, 15> in use)
    # and the other 16 each wait although <1, 1> is idle, until tasks end.
    wl = Workload(submit=[0, 0], run_time=[10, 10], tasks=[64, 64], user=[0, 1],
                  resources=[[0.25, 0.0625], [0.0625, 0.25]])
    r = fa.simulate(wl, [16.0, 16.0], policy="volcano")
    at0 = r.launches[r.launches["start"] == 0.0]
    assert at0.groupby("job")["tasks"].sum().tolist() == [48, 48]
    d = fa.simulate(wl, [16.0, 16.0], policy="drf", blocking="skip")
    assert int(d.launches[d.launches["start"] == 0.0]["tasks"].sum()) > 96          # DRF leaves no such gap
    # one resource, weights 1 and 3, requests 2 and 10 of 8: deserved 2 and 6 (round 1: 8/4 = 2 for the
    # first, met; 6 for the second), so 2 and 6 tasks start at 0
    wl = Workload(submit=[0, 0], run_time=[10, 10], tasks=[2, 10], user=[0, 1], resources=[[1.0], [1.0]])
    r = fa.simulate(wl, [8.0], policy="volcano", weights=[1.0, 3.0])
    assert r.launches[r.launches["start"] == 0.0].groupby("job")["tasks"].sum().tolist() == [2, 6]


# ---- reductions to DRF and CDRF ---------------------------------------------------------------------------
@pytest.mark.parametrize("policy", ["yarn", "mesos"])
@pytest.mark.parametrize("blocking", ["skip", "stop"])
def test_one_queue_per_user_is_drf(policy, blocking):
    for seed in range(4):
        wl = _workload(seed)
        cl = fa.Cluster(np.array([[4.0, 6.0], [5.0, 3.0]]))
        w = [1.0, 2.0, 0.5, 1.0, 4.0, 1.0] if seed % 2 else None
        a = fa.simulate(wl, cl, policy=policy, blocking=blocking, weights=w)
        b = fa.simulate(wl, cl, policy="drf", blocking=blocking, weights=w)
        assert _starts(a) == _starts(b)


def test_one_queue_per_user_google_like_is_drf():
    wl = fa.workloads.google_like(30, 3000, horizon=3600.0, rng=3)
    pool = fa.sim.ResourcePool.from_workload(wl, 0.3)
    base = _starts(fa.simulate(wl, pool, policy="drf", blocking="skip"))
    for p in ("yarn", "mesos"):
        assert _starts(fa.simulate(wl, pool, policy=p)) == base
    assert (_starts(fa.simulate(wl, pool, policy="kueue"))
            == _starts(fa.simulate(wl, pool, policy="cdrf", blocking="skip")))


def test_kueue_one_queue_per_user_is_cdrf_and_drf_on_equal_demands():
    for seed in range(4):
        cl = fa.Cluster(np.array([[4.0, 6.0], [5.0, 3.0]]))
        wl = _workload(seed)
        assert _starts(fa.simulate(wl, cl, policy="kueue")) == _starts(fa.simulate(wl, cl, policy="cdrf"))
        wl = _workload(seed, same_demand=True)
        assert (_starts(fa.simulate(wl, cl, policy="kueue"))
                == _starts(fa.simulate(wl, cl, policy="drf", blocking="skip")))


# ---- every decision validated ------------------------------------------------------------------------------
def _node_usage(tree, usage):
    """(n_nodes, K) usage below every node, from the users' (n_users, K) in user-id order."""
    idx = tree.user_index([str(u) for u in range(usage.shape[0])])
    own = np.zeros((tree.n_users, usage.shape[1]))
    own[idx] = usage
    return np.stack([tree.subtree_sum(own[:, r]) for r in range(usage.shape[1])], axis=1)


def _reference(policy, sched, totals):
    """(key, admits) callables for the validator, from the fairshare classes on the whole usage."""
    tree = sched.tree
    n = sched.n_users
    lq = np.asarray(tree.user_nodes)[tree.user_index([str(u) for u in range(n)])]
    q = np.asarray(tree.parent)[lq]
    if policy == "kueue":
        k = kq.KueueQueues(tree, capacity=totals)

        def usage_of(usage):
            own = np.zeros((tree.n_users, usage.shape[1]))
            own[tree.user_index([str(u) for u in range(n)])] = usage
            return k.usage(own)

        def key(u, usage, d):
            U = usage_of(usage)
            k.add(U, lq[u], d)
            ratio, _ = k.shares(U)
            bor = kq.is_borrowing_on(q[u], d, k.parent, k.subtree_quota, U)
            tier, value = kq.drs_key(float(ratio[q[u]]), float(k.weight[q[u]]))
            return 1e7 * bor + 1e6 * tier + value

        return key, lambda u, usage, d: k.fits(usage_of(usage), q[u], d)
    if policy == "yarn":
        y = YarnQueues(tree, resources=tree.resources)
        out = np.empty(len(totals) + 1)

        def key(u, usage, d):
            drf_key_into(_node_usage(tree, usage)[q[u]], y.min_share[q[u]], float(y.weight[q[u]]), totals, out)
            return 1e6 * out[0] + out[1]

        return key, lambda u, usage, d: fits_in_max_share(q[u], d, np.asarray(tree.parent), _node_usage(tree, usage),
                                                          y.max_share)
    s = MesosSorter(tree, totals, resources=tree.resources)

    def mesos_key(u, usage, d):
        own = np.zeros((tree.n_users, usage.shape[1]))
        own[tree.user_index([str(v) for v in range(n)])] = usage
        return float(s.shares(own)[q[u]])

    return mesos_key, None


TREES = {
    "kueue": [{"account": "c1"}, {"account": "c2"},
              {"account": "x", "parent": "c1", "nominal_quota": {"r0": 3, "r1": 4}, "borrowing_limit": {"r0": 2}},
              {"account": "y", "parent": "c1", "nominal_quota": {"r0": 2, "r1": 2}, "weight": 2},
              {"account": "z", "parent": "c2", "nominal_quota": {"r0": 4, "r1": 3}, "lending_limit": {"r0": 3}},
              {"account": "v", "parent": "c2"}],
    "yarn": [{"account": "x", "min_share": {"r0": 2, "r1": 2}}, {"account": "y", "weight": 2},
             {"account": "z", "max_share": {"r0": 4, "r1": 5}}, {"account": "v", "weight": 0.5}],
    "mesos": [{"account": "x"}, {"account": "y", "weight": 2}, {"account": "z", "weight": 0.5}, {"account": "v"}],
}


@pytest.mark.parametrize("policy", ["kueue", "yarn", "mesos"])
def test_schedules_follow_the_rule(policy):
    accounts = ["x", "y", "z", "v", "x", "y"]
    tree = AccountTree(TREES[policy] + [{"user": str(u), "account": a} for u, a in enumerate(accounts)],
                       resources=["r0", "r1"])
    cl = fa.Cluster(np.array([[4.0, 6.0], [5.0, 3.0]]))
    for seed in range(4):
        wl = _workload(seed, n_jobs=50)
        p = fa.sim.make_policy(policy, accounts=tree)
        r = fa.simulate(wl, cl, policy=p)
        key, admits = _reference(policy, p.scheduler, cl.totals)
        n = validate_task_schedule(wl, cl, r, mechanism=policy, key=key, admits=admits)
        assert n == int(wl.tasks.sum())
        assert _starts(r) != _starts(fa.simulate(wl, cl, policy=policy))     # the queues change the schedule


def test_validator_catches_a_quota_violation():
    # The limited tree of test_kueue_borrowing_limit_by_hand, checked against the unlimited schedule.
    recs = [{"account": "c"},
            {"account": "a", "parent": "c", "nominal_quota": {"cpu": 2}, "borrowing_limit": {"cpu": 0}},
            {"account": "b", "parent": "c", "nominal_quota": {"cpu": 2}},
            {"user": "0", "account": "a"}, {"user": "1", "account": "b"}]
    free = [dict(x) for x in recs]
    del free[1]["borrowing_limit"]
    wl = _one_cpu_tasks()
    p = fa.sim.make_policy("kueue", accounts=AccountTree(recs, resources=["cpu"]))
    fa.simulate(wl, [4.0], policy=p)
    key, admits = _reference("kueue", p.scheduler, np.array([4.0]))
    r = fa.simulate(wl, [4.0], policy="kueue", accounts=AccountTree(free, resources=["cpu"]))
    with pytest.raises(AssertionError, match="refuses"):
        validate_task_schedule(wl, fa.Cluster([[4.0]]), r, mechanism="kueue", key=key, admits=admits)


# ---- bad input ------------------------------------------------------------------------------------------------
def _raises(argument, fn):
    with pytest.raises(InvalidInstanceError) as e:
        fn()
    assert e.value.argument == argument, (e.value.argument, str(e.value))
    return str(e.value)


def test_bad_input():
    wl = _one_cpu_tasks()
    sim = lambda **kw: fa.simulate(wl, [4.0], **kw)
    assert "Admission Fair Sharing" in _raises("half_life", lambda: sim(policy="kueue", half_life=0))
    _raises("preemption", lambda: sim(policy="yarn", preemption="LessThanInitialShare"))   # kueue only (test_preemption.py)
    _raises("excluded", lambda: sim(policy="yarn", excluded=["gpu"]))
    _raises("eps", lambda: sim(policy="kueue", eps=0.1))
    _raises("eps", lambda: sim(policy="volcano", eps=0.0))
    _raises("weights", lambda: sim(policy="kueue", weights=[1.0, -1.0]))
    _raises("weight", lambda: sim(policy="mesos", weights=[1.0, 0.0]))          # Mesos: weights must be positive
    big = AccountTree([{"account": "c"}, {"account": "a", "parent": "c", "nominal_quota": {"cpu": 8}},
                       {"user": "0", "account": "a"}, {"user": "1", "account": "a"}], resources=["cpu"])
    assert "more than the cluster" in _raises("nominal_quota", lambda: sim(policy="kueue", accounts=big))
    with pytest.raises(InvalidInstanceError, match="cohort"):                   # the tree refuses it itself
        AccountTree([{"account": "a", "borrowing_limit": {"cpu": 1}}], resources=["cpu"])
    nested = AccountTree([{"account": "a"}, {"account": "b", "parent": "a"}, {"user": "0", "account": "b"},
                          {"user": "1", "account": "b"}])
    assert "flatten" in _raises("accounts", lambda: sim(policy="yarn", accounts=nested))
    deep = AccountTree([{"account": "c"}, {"account": "d", "parent": "c"}, {"account": "a", "parent": "d",
                        "nominal_quota": {"cpu": 1}}, {"user": "0", "account": "a"}, {"user": "1", "account": "a"}],
                       resources=["cpu"])
    assert "cohort" in _raises("accounts", lambda: sim(policy="kueue", accounts=deep))
    loose = AccountTree([{"account": "c"}, {"account": "a", "parent": "c", "nominal_quota": {"cpu": 1}},
                         {"user": "0", "account": "a"}, {"user": "1"}], resources=["cpu"])
    assert "directly under root" in _raises("accounts", lambda: sim(policy="kueue", accounts=loose))
    missing = AccountTree([{"account": "a"}, {"user": "0", "account": "a"}])
    assert "not in the account tree" in _raises("accounts", lambda: sim(policy="mesos", accounts=missing))
    _raises("policy", lambda: fa.sim.policies.ContainerPolicy("slurm"))


def test_weight_zero_meanings():
    # YARN: a queue of weight 0 is served after every weighted queue (FairScheduler.md, YARN-6754).
    wl = Workload(submit=[0, 0], run_time=[10, 10], tasks=[4, 4], user=[0, 1], resources=[[1.0], [1.0]])
    assert _users_in_order(fa.simulate(wl, [4.0], policy="yarn", weights=[0.0, 1.0]), wl)[:4] == [1, 1, 1, 1]
    # Kueue: a borrowing ClusterQueue of weight 0 compares above every other (KEP 1714): the same.
    assert _users_in_order(fa.simulate(wl, [4.0], policy="kueue", weights=[0.0, 1.0]), wl)[:4] == [1, 1, 1, 1]
