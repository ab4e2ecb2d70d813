"""Invariants of the Kueue, YARN, Mesos and Volcano definitions on random small inputs (hypothesis, ci profile).

Each expected relation is derived in the comment above its assertion from the definitions (module
docstrings), not taken from the code.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, strategies as st

from fairalloc.accounts import AccountTree
from fairalloc.fairshare import kueue as kq, mesos, volcano as vo, yarn


@st.composite
def kueue_trees(draw):
    """Cohorts (under root or an earlier cohort) and ClusterQueues with integer quotas and limits, one LQ each."""
    n_co = draw(st.integers(1, 3))
    recs = []
    for c in range(n_co):
        parent = draw(st.sampled_from(["root"] + [f"co{k}" for k in range(c)]))
        r = {"account": f"co{c}", "parent": parent, "nominal_quota": {"cpu": draw(st.integers(0, 6))}}
        if parent != "root" and draw(st.booleans()):
            r["lending_limit"] = {"cpu": draw(st.integers(0, r["nominal_quota"]["cpu"]))}
        recs.append(r)
    n_q = draw(st.integers(1, 4))
    for q in range(n_q):
        parent = draw(st.sampled_from([f"co{k}" for k in range(n_co)]))
        nom = draw(st.integers(0, 6))
        r = {"account": f"q{q}", "parent": parent, "nominal_quota": {"cpu": nom},
             "weight": draw(st.sampled_from([0.0, 0.5, 1.0, 2.0]))}
        if draw(st.booleans()):
            r["lending_limit"] = {"cpu": draw(st.integers(0, nom))}
        if draw(st.booleans()):
            r["borrowing_limit"] = {"cpu": draw(st.integers(0, 6))}
        recs.append(r)
    recs += [{"user": f"l{q}", "account": f"q{q}"} for q in range(n_q)]
    return kq.KueueQueues(AccountTree(recs, resources=["cpu"])), n_q


@given(kueue_trees(), st.data())
def test_kueue_available_potential_and_monotone_shares(kt, data):
    k, n_q = kt
    t = k.tree
    zero = k.usage(np.zeros((n_q, 1)))
    cqs = [t.node(f"q{q}") for q in range(n_q)]
    # with no usage, available = LQ + min(SQ - LQ + B, A_parent) and PA = min(LQ + PA_parent, SQ + B) agree by
    # induction from the top (A_top = SQ_top = PA_top)
    for q in cqs:
        assert k.available(zero, q)[0] == kq.potential_available(q, 0, k.parent, k.subtree_quota, k.lending, k.borrowing)
    # admitting only what fits: available never goes negative; admitting never lowers the DRS of the ClusterQueue
    # or of any ancestor (T_r = sum max(0, U - SQ) is non-decreasing in U and the lendable capacity is fixed)
    u = zero.copy()
    lq_usage = np.zeros((n_q, 1))
    for _ in range(data.draw(st.integers(1, 8))):
        i = data.draw(st.integers(0, n_q - 1))
        x = float(data.draw(st.integers(1, 3)))
        q = cqs[i]
        if not k.fits(u, q, np.array([x])):
            continue
        before, _ = k.shares(u)
        k.add(u, t.user_nodes[i], [x])
        lq_usage[i, 0] += x
        after, _ = k.shares(u)
        v = q
        while v > 0:
            assert after[v] >= before[v]
            v = int(t.parent[v])
        for qq in cqs:
            assert k.available(u, qq)[0] >= 0
        np.testing.assert_array_equal(u, k.usage(lq_usage))


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 20), st.integers(0, 60), st.booleans()), min_size=1,
                max_size=6), st.integers(0, 200))
def test_yarn_fair_shares_bounds(queues, total):
    w = np.array([q[0] for q in queues], float)
    lo = np.array([q[1] for q in queues], float)
    hi = np.array([max(q[1], q[2]) for q in queues], float)
    act = np.array([q[3] for q in queues])
    out, free = np.empty(len(w)), np.empty(len(w), bool)
    yarn.compute_shares_into(w, lo, hi, act, float(total), False, out, free)
    # every share is within [0, max share]; an inactive or zero-max queue gets 0; weight 0 gets its min share
    assert np.all((out >= 0) & (out <= hi))
    assert np.all(out[~act] == 0)
    fixed_w0 = act & (w == 0) & (hi > 0)
    np.testing.assert_array_equal(out[fixed_w0], lo[fixed_w0])
    # the weighted queues are served at the upper end of the search: they take at least what is left
    # (total minus the fixed shares, at most their max shares), truncation included (module docstring)
    f = act & (w > 0) & (hi > 0)
    if f.any():
        target = min(max(total - out[~f].sum(), 0), hi[f].sum())
        assert out[f].sum() >= target
        assert np.all(out[f] >= lo[f])


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), st.booleans()), min_size=1, max_size=6),
       st.integers(0, 3))
def test_mesos_sort_is_a_permutation_of_active_clients(clients, n_accounts):
    recs = [{"account": f"a{k}"} for k in range(n_accounts)]
    recs += [{"user": f"u{i}", "account": f"a{i % n_accounts}" if n_accounts else "root"} for i in range(len(clients))]
    t = AccountTree(recs)
    s = mesos.MesosSorter(t, [10.0, 10.0])
    alloc = [[c[0], c[1]] for c in clients]
    active = [c[2] for c in clients]
    got = s.sort(alloc, active=active)
    assert sorted(got) == [i for i in range(len(clients)) if active[i]]
    # under one role, the clients come in non-decreasing share
    sh = s.shares(alloc)[t.user_nodes]
    by_parent = {}
    for i in got:
        by_parent.setdefault(int(t.parent[t.user_nodes[i]]), []).append(sh[i])
    for seq in by_parent.values():
        assert all(a <= b for a, b in zip(seq, seq[1:]))


@given(st.lists(st.tuples(st.integers(1, 4), st.integers(0, 30), st.integers(0, 10)), min_size=1, max_size=5),
       st.integers(1, 100))
def test_volcano_deserved_bounds(queues, total):
    recs = [{"account": f"q{i}", "weight": w, "guarantee": {"cpu": g}} for i, (w, _, g) in enumerate(queues)]
    recs += [{"user": f"u{i}", "account": f"q{i}"} for i in range(len(queues))]
    t = AccountTree(recs, resources=["cpu"])
    q = vo.VolcanoQueues(t, [float(total)], allow_overcommit=True, eps=1e-9)
    req = np.array([[float(r)] for _, r, _ in queues])
    d = q.deserved(req)[:, 0]
    g = q.guarantee[:, 0]
    # deserved is raised to the guarantee and otherwise capped by the request and the real capability
    assert np.all(d >= g)
    assert np.all(d <= np.maximum(np.minimum(req[:, 0], q.real_capability[:, 0]), g) + 1e-9)
    # what comes out of the remaining never exceeds the total; only guarantees can push the sum above it
    assert d.sum() <= total + g.sum() + 1e-9


@given(st.integers(1, 4), st.lists(st.integers(0, 9), min_size=2, max_size=2))
def test_hdrf_chain_passes_the_job_share_up(depth, alloc):
    # one child per node: M is the child's own share, so the rescaling factor is 1 and every ancestor has the
    # job's dominant share (a saturated child is not rescaled either)
    recs = [{"account": "n0"}] + [{"account": f"n{k}", "parent": f"n{k - 1}"} for k in range(1, depth)]
    recs.append({"user": "job", "account": f"n{depth - 1}"})
    t = AccountTree(recs, resources=["cpu", "gpu"])
    h = vo.VolcanoHDRF(t, [10.0, 10.0])
    s = h.update([alloc], [[10.0, 10.0]])
    job = t.user_nodes[0]
    for k in range(depth):
        assert s.share[t.node(f"n{k}")] == s.share[job] == max(alloc) / 10
