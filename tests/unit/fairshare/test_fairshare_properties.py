"""Invariants of the fair-share definitions on random small trees (hypothesis, bounded by the ci profile).

Each expected relation is derived in the comment above its assertion, not taken from the code.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import assume, given, strategies as st

from fairalloc.accounts import AccountTree
from fairalloc.fairshare import Billing, htcondor as hc, slurm


@st.composite
def trees(draw, *, max_accounts=4, max_users=6):
    """A random account tree (accounts under root or an earlier account) and integer usages per user."""
    n_acc = draw(st.integers(0, max_accounts))
    recs = []
    for a in range(n_acc):
        parent = draw(st.sampled_from(["root"] + [f"a{k}" for k in range(a)]))
        recs.append({"account": f"a{a}", "parent": parent, "shares": draw(st.integers(1, 5))})
    n_users = draw(st.integers(1, max_users))
    for u in range(n_users):
        acct = draw(st.sampled_from(["root"] + [f"a{k}" for k in range(n_acc)]))
        recs.append({"user": f"u{u}", "account": acct, "shares": draw(st.integers(1, 5))})
    usage = draw(st.lists(st.integers(0, 20), min_size=n_users, max_size=n_users))
    return AccountTree(recs), np.array(usage, dtype=float)


@given(trees(), st.sampled_from(["fair_tree", "classic"]))
def test_factors_in_unit_interval(tu, algo):
    tree, usage = tu
    f = slurm.fairshare_factors(tree, usage, fairshare=algo)
    assert np.all((f >= 0) & (f <= 1))
    if algo == "fair_tree":
        # ranks k / N with k in 1..N: the best user has 1
        assert f.max() == 1.0 and np.all(f >= 1 / tree.n_users - 1e-15)


@given(trees(), st.data(), st.sampled_from(["fair_tree", "classic"]))
def test_more_usage_never_raises_own_factor(tu, data, algo):
    # classic: every normalised usage on the user's path is (u + x)/(u + y) with x <= y, non-decreasing in u, and
    # U_E mixes them with non-negative weights, so U_E does not fall and 2^(-U_E/S) does not rise. Fair Tree: the
    # user's and its ancestors' U = (u + x)/(u + y) rise, their siblings' U fall: its order at every level can only
    # get worse, so its rank does not improve.
    tree, usage = tu
    k = data.draw(st.integers(0, tree.n_users - 1))
    more = usage.copy()
    more[k] += data.draw(st.integers(1, 20))
    before = slurm.fairshare_factors(tree, usage, fairshare=algo)[k]
    after = slurm.fairshare_factors(tree, more, fairshare=algo)[k]
    assert after <= before + 1e-12


@given(st.lists(st.integers(0, 30), min_size=1, max_size=8))
def test_flat_equal_shares_by_hand(usage):
    u = np.array(usage, dtype=float)
    n = len(u)
    tree = AccountTree.flat(range(n))
    # classic, flat: U_E = U_N = u_i / sum(u) (0 when nothing is used), S = 1/n: F = 2^(-n U_N)
    un = u / u.sum() if u.sum() > 0 else np.zeros(n)
    np.testing.assert_allclose(slurm.fairshare_factors(tree, u, fairshare="classic"), 2.0 ** (-n * un), rtol=1e-12)
    # Fair Tree, flat: LF = (1/n)/U_N orders users by usage ascending; equal usage ties and shares the rank of the
    # first of its group, n - #(users with strictly less usage); F = rank / n
    expected = np.array([(n - np.sum(u < ui)) / n for ui in u])
    np.testing.assert_array_equal(slurm.fairshare_factors(tree, u), expected)


@given(trees(max_accounts=4, max_users=6))
def test_fair_tree_account_order_is_inherited(tu):
    # fair_tree page: "if accounts A and B are siblings and A has a higher fairshare factor than B, all children
    # of A will have higher fairshare factors than all children of B" (no FairShare=parent here)
    tree, usage = tu
    table = slurm.sshare(tree, usage)
    lf = dict(zip(table.node, table.level_fs))
    f = np.full(tree.n_nodes, np.nan)
    f[tree.user_nodes] = slurm.fairshare_factors(tree, usage)

    def users_below(v):
        out, stack = [], [v]
        while stack:
            x = stack.pop()
            kids = tree.fs_children[tree.fs_child_ptr[x]:tree.fs_child_ptr[x + 1]].tolist()
            out += [c for c in kids if tree.is_user[c]]
            stack += [c for c in kids if not tree.is_user[c]]
        return out

    accounts = [v for v in range(1, tree.n_nodes) if not tree.is_user[v]]
    for a in accounts:
        for b in accounts:
            if tree.fs_parent[a] == tree.fs_parent[b] and lf[a] > lf[b]:
                ua, ub = users_below(a), users_below(b)
                if ua and ub:
                    assert min(f[ua]) > max(f[ub])


@given(st.lists(st.floats(0.5, 1e4), min_size=1, max_size=6), st.lists(st.floats(0, 1e4), min_size=6, max_size=6),
       st.floats(1.0, 1e6))
def test_rup_between_old_and_usage(rup, rho, dt):
    # beta * old + (1 - beta) * rho is a convex combination; both are >= 0.5 or floored there
    r = np.array(rup)
    x = np.array(rho[:len(rup)])
    new = hc.update_rup(r, x, dt)
    lo = np.maximum(0.5, np.minimum(r, x))
    hi = np.maximum(0.5, np.maximum(r, x))
    assert np.all(new >= lo * (1 - 1e-12)) and np.all(new <= hi * (1 + 1e-12))


@given(st.lists(st.floats(0.5, 1e7), min_size=1, max_size=8), st.data())
def test_pie_shares_and_negotiation(eup, data):
    e = np.array(eup)
    n = len(e)
    active = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    sh = np.empty(n)
    hc.submitter_shares_into(e, active, sh)
    if active.any():
        assert math.isclose(sh.sum(), 1.0, rel_tol=1e-12) and np.all(sh[~active] == 0)
    # a negotiation never hands out more than the free cores, matches each job at most once, and adds to each
    # submitter exactly the sizes of its matched jobs
    sizes = [data.draw(st.lists(st.integers(1, 4), max_size=6)) for _ in range(n)]
    ptr = np.zeros(n + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([len(s) for s in sizes])
    size = np.array([c for s in sizes for c in s], dtype=float)
    usage0 = np.array(data.draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)), dtype=float)
    free = float(data.draw(st.integers(0, 12)))
    use = usage0.copy()
    matched = np.zeros(len(size), np.bool_)
    left = hc.negotiate_into(e, use, ptr, size, free, free + usage0.sum(), math.inf, 0.0, 1.0, matched,
                             np.empty(n), np.empty(n), np.empty(n, np.int64))
    assert 0 <= left <= free
    assert math.isclose(free - left, size[matched].sum())
    for i in range(n):
        assert math.isclose(use[i] - usage0[i], size[ptr[i]:ptr[i + 1]][matched[ptr[i]:ptr[i + 1]]].sum())


@given(st.lists(st.lists(st.integers(0, 64), min_size=3, max_size=3), min_size=1, max_size=5),
       st.lists(st.floats(0, 4), min_size=3, max_size=3))
def test_max_tres_at_most_sum(jobs, weights):
    assume(sum(weights) > 0)                     # weights summing to 0 are refused (test_billing's bad-input table)
    names = ["cpu", "mem", "gpu"]
    w = dict(zip(names, weights))
    s = Billing(w).rates(jobs, names)
    m = Billing(w, rule="max_tres").rates(jobs, names)
    assert np.all(m <= s + 1e-12) and np.all(m >= s / 3 - 1e-12)


@given(st.lists(st.integers(0, 40), min_size=3, max_size=3), st.booleans())
def test_group_allocations_bounded(requested, oversub):
    t = AccountTree([{"account": "a", "quota": 10, "accept_surplus": True}, {"account": "b", "quota": 5},
                     {"account": "c", "parent": "a", "quota": 4, "accept_surplus": True},
                     {"user": "ua", "account": "a"}, {"user": "ub", "account": "b"}, {"user": "uc", "account": "c"}])
    req = np.array(requested, dtype=float)
    alloc, quota, left = hc.group_allocations(t, 20.0, req, oversubscription=oversub)
    # nobody gets more than it asked for; without oversubscription the pool is not exceeded
    own = {t.node("a"): req[0], t.node("b"): req[1], t.node("c"): req[2], 0: 0.0}
    assert all(alloc[v] <= own[v] + 1e-9 for v in own)
    if not oversub:
        assert alloc.sum() <= 20.0 + 1e-9 and left >= -1e-9
