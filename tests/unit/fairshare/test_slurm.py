"""Slurm's multifactor priority against Slurm's own documents and regression tests, and hand computations.

Sources (SchedMD/slurm at 284c3b95f08a2dc2478499837b03355e1b9c5c75, 2026-08-20):

* classic page: doc/html/classic_fair_share.shtml (https://slurm.schedmd.com/classic_fair_share.html),
  section "Example": effective usages and fair-share factors printed there;
* test24.1: testsuite/expect/test24.1 and test24.1.prog.c (classic, the page's example plus an account G
  with 0 shares); expected sshare lines transcribed below;
* test24.4: testsuite/expect/test24.4 and test24.4.prog.c (Fair Tree: shares, usage, ties,
  FairShare=parent); all 35 expected `sshare -l` lines transcribed below;
* fair_tree page: doc/html/fair_tree.shtml, "Overview for End Users" (UserA/UserB ranking);
* priority_multifactor page and priority_multifactor.c for the decay and the job priority.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairalloc import commitments
from fairalloc.accounts import AccountTree
from fairalloc.errors import InvalidInstanceError
from fairalloc.fairshare import slurm

P = "parent"

# test24.4.prog.c: (account record) or (user record), in the program's order; usage on users only
# (accounts' usage is the sum of their users', as the expected RawUsage column shows).
T244_RECORDS = [
    {"account": "aA", "shares": 40}, {"account": "aAA", "parent": "aA", "shares": 30},
    {"user": "uAA1", "account": "aAA", "shares": 1},
    {"account": "aAB", "parent": "aA", "shares": 10},
    {"user": "uAB1", "account": "aAB", "shares": 1}, {"user": "uAB2", "account": "aAB", "shares": 1},
    {"account": "aB", "shares": 60}, {"account": "aBA", "parent": "aB", "shares": 25},
    {"user": "uBA1", "account": "aBA", "shares": 1},
    {"account": "aBB", "parent": "aB", "shares": 35}, {"user": "uBB1", "account": "aBB", "shares": 1},
    {"account": "aC", "shares": 0}, {"user": "uC1", "account": "aC", "shares": 0},
    {"account": "aD", "shares": 50}, {"account": "aDA", "parent": "aD", "shares": P},
    {"user": "uDA1", "account": "aDA", "shares": P}, {"user": "uDA2", "account": "aDA", "shares": 30},
    {"user": "uDA3", "account": "aDA", "shares": 50},
    {"user": "uD1", "account": "aD", "shares": P}, {"user": "uD2", "account": "aD", "shares": 40},
    {"user": "uD3", "account": "aD", "shares": 50},
    {"account": "aE", "shares": 10}, {"user": "aE1", "account": "aE", "shares": 10},
    {"user": "aE2", "account": "aE", "shares": 10},
    {"user": "u1", "account": "root", "shares": 10},
    {"account": "aF", "shares": 20}, {"user": "uF1", "account": "aF", "shares": 10},
    {"user": "uF2", "account": "aF", "shares": 20},
    {"account": "aG", "shares": 8}, {"user": "uG1", "account": "aG", "shares": 10},
    {"account": "aGA", "parent": "aG", "shares": 10},
    {"user": "uGA1", "account": "aGA", "shares": 20}, {"user": "uGA2", "account": "aGA", "shares": 20},
    {"user": "u2", "account": "root", "shares": 10},
]
T244_USAGE = {"uAA1": 20, "uAB1": 25, "uAB2": 0, "uBA1": 25, "uBB1": 0, "uC1": 30, "uDA1": 10, "uDA2": 10,
              "uDA3": 25, "uD1": 20, "uD2": 20, "uD3": 25, "aE1": 0, "aE2": 0, "u1": 0, "uF1": 0, "uF2": 0,
              "uG1": 10, "uGA1": 4, "uGA2": 6, "u2": 10}
# test24.4's expected lines: Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|LevelFS
T244_EXPECTED = """
root|u1|10|0.048077|0|0.000000|0.000000|1.000000|inf
root|u2|10|0.048077|10|0.041667|0.041667|0.666667|1.153846
aA||40|0.192308|45|0.187500|0.187500||1.025641
aAA||30|0.750000|20|0.083333|0.444444||1.687500
aAA|uAA1|1|1.000000|20|0.083333|1.000000|0.619048|1.000000
aAB||10|0.250000|25|0.104167|0.555556||0.450000
aAB|uAB1|1|0.500000|25|0.104167|1.000000|0.523810|0.500000
aAB|uAB2|1|0.500000|0|0.000000|0.000000|0.571429|inf
aB||60|0.288462|25|0.104167|0.104167||2.769231
aBA||25|0.416667|25|0.104167|1.000000||0.416667
aBA|uBA1|1|1.000000|25|0.104167|1.000000|0.714286|1.000000
aBB||35|0.583333|0|0.000000|0.000000||inf
aBB|uBB1|1|1.000000|0|0.000000|0.000000|0.761905|inf
aC||0|0.000000|30|0.125000|0.125000||0.000000
aC|uC1|0|0.000000|30|0.125000|1.000000|0.047619|0.000000
aD||50|0.240385|110|0.458333|0.458333||0.524476
aD|uD1|parent|0.240385|20|0.083333|0.181818|0.476190|
aD|uD2|40|0.235294|20|0.083333|0.181818|0.238095|1.294118
aD|uD3|50|0.294118|25|0.104167|0.227273|0.333333|1.294118
aDA||parent|0.240385|45|0.187500|0.409091||
aDA|uDA1|parent|0.240385|10|0.041667|0.090909|0.476190|
aDA|uDA2|30|0.176471|10|0.041667|0.090909|0.380952|1.941176
aDA|uDA3|50|0.294118|25|0.104167|0.227273|0.333333|1.294118
aE||10|0.048077|0|0.000000|0.000000||inf
aE|aE1|10|0.500000|0|0.000000|0.000000|1.000000|inf
aE|aE2|10|0.500000|0|0.000000|0.000000|1.000000|inf
aF||20|0.096154|0|0.000000|0.000000||inf
aF|uF1|10|0.333333|0|0.000000|0.000000|1.000000|inf
aF|uF2|20|0.666667|0|0.000000|0.000000|1.000000|inf
aG||8|0.038462|20|0.083333|0.083333||0.461538
aG|uG1|10|0.500000|10|0.041667|0.500000|0.190476|1.000000
aGA||10|0.500000|10|0.041667|0.500000||1.000000
aGA|uGA1|20|0.500000|4|0.016667|0.400000|0.190476|1.250000
aGA|uGA2|20|0.500000|6|0.025000|0.600000|0.095238|0.833333
"""


def _t244():
    tree = AccountTree(T244_RECORDS, zero_shares="allow", source="test24.4.prog.c")
    usage = [T244_USAGE[u] for u in tree.user_names]
    return tree, slurm.sshare(tree, usage, fairshare="fair_tree")


def test_fair_tree_matches_slurm_test24_4():
    tree, table = _t244()
    assert tree.n_users == 21                                        # g_user_assoc_count: 21 users
    rows = {(r.account, r.user): r for r in table.itertuples()}
    assert table.raw_usage.iloc[0] == 240                            # "root|||0.000000|240||1.000000"
    lines = [ln.split("|") for ln in T244_EXPECTED.strip().splitlines()]
    assert len(lines) == 34                                          # + the root line = 35 matches
    for acct, user, raw, norm, raw_use, norm_use, eff, fs, lf in lines:
        r = rows[(acct, user)]
        where = f"{acct}|{user}"
        assert (P if math.isnan(r.raw_shares) else f"{r.raw_shares:g}") == raw, where
        assert f"{r.norm_shares:.6f}" == norm, where
        assert f"{r.raw_usage:g}" == raw_use, where
        assert f"{r.norm_usage:.6f}" == norm_use, where
        assert f"{r.effective_usage:.6f}" == eff, where
        assert ("" if math.isnan(r.fairshare) else f"{r.fairshare:.6f}") == fs, where
        shown = "" if math.isnan(r.level_fs) else ("inf" if math.isinf(r.level_fs) else f"{r.level_fs:.6f}")
        assert shown == lf, where


def test_fair_tree_ties_of_test24_4():
    # the test's own notes: aE, aF and their users and u1 must have fair share 1.0 ("tie handling");
    # uGA1 and uG1 equal, uGA2 not; uD2 and uD3 do NOT have the same level_fs (22/17 computed two ways)
    tree, table = _t244()
    fs = dict(zip(table.user, table.fairshare))
    assert all(fs[u] == 1.0 for u in ("u1", "aE1", "aE2", "uF1", "uF2"))
    assert fs["uGA1"] == fs["uG1"] != fs["uGA2"]
    lf = dict(zip(table.user, table.level_fs))
    assert lf["uD3"] != lf["uD2"] and lf["uD3"] == lf["uDA3"]


def test_classic_matches_slurm_page_example():
    # the page gives normalised usages (users 1, 2, 4: 0.2, 0.25, 0.25; accounts A 0.45, D 0.25): put them
    # in directly with a root usage of 1
    t = AccountTree([
        {"account": "A", "shares": 40}, {"account": "B", "parent": "A", "shares": 30},
        {"account": "C", "parent": "A", "shares": 10}, {"account": "D", "shares": 60},
        {"account": "E", "parent": "D", "shares": 25}, {"account": "F", "parent": "D", "shares": 35},
        {"user": "u1", "account": "B"}, {"user": "u2", "account": "C"}, {"user": "u3", "account": "C"},
        {"user": "u4", "account": "E"}, {"user": "u5", "account": "F"}])
    node_usage = np.zeros(t.n_nodes)
    for name, u in {"root": 1.0, "A": 0.45, "B": 0.2, "C": 0.25, "D": 0.25, "E": 0.25, "F": 0.0,
                    "u1": 0.2, "u2": 0.25, "u3": 0.0, "u4": 0.25, "u5": 0.0}.items():
        node_usage[t.node(name)] = u
    ef, f = np.empty(t.n_nodes), np.empty(t.n_nodes)
    slurm.classic_fairshare_into(t.fs_parent, t.use_parent, t.raw_shares, t.level_shares, t.normalized_shares,
                                 t.preorder, node_usage, 1.0, ef, f)
    e = dict(zip(t.names, ef))
    # "Account A's effective usage is therefore equal to .45.  Account D's effective usage is equal to .25."
    assert e["A"] == pytest.approx(0.45) and e["D"] == pytest.approx(0.25)
    # "Account B effective usage: 0.2 + ((0.45 - 0.2) * 30 / 40) = 0.3875", C 0.3, E 0.25, F 0.1458
    assert [e[a] for a in "BCEF"] == pytest.approx([0.3875, 0.3, 0.25, 0.1458], abs=5e-5)
    # users: 0.3875, 0.275, 0.15, 0.25, 0.1458
    assert [e[u] for u in ("u1", "u2", "u3", "u4", "u5")] == pytest.approx([0.3875, 0.275, 0.15, 0.25, 0.1458],
                                                                            abs=5e-5)
    # "User 1 fair-share factor: 2**(-.3875 / .3) = 0.408479" ... 0.022097, 0.125000, 0.500000, 0.749154
    fs = [f[t.node(u)] for u in ("u1", "u2", "u3", "u4", "u5")]
    assert fs == pytest.approx([0.408479, 0.022097, 0.125000, 0.500000, 0.749154], abs=5e-7)


def test_classic_matches_slurm_test24_1():
    # test24.1.prog.c: the page's tree plus AccountG (0 shares) with User6 (0 shares, usage 30); raw usages
    # 20, 25, 0, 25, 0, 30. Expected: "AccountB|User1|1|0.300000|20|0.200000|0.387500|0.408479|" ...
    t = AccountTree([
        {"account": "AccountA", "shares": 40}, {"account": "AccountB", "parent": "AccountA", "shares": 30},
        {"user": "User1", "account": "AccountB"}, {"account": "AccountC", "parent": "AccountA", "shares": 10},
        {"user": "User2", "account": "AccountC"}, {"user": "User3", "account": "AccountC"},
        {"account": "AccountD", "shares": 60}, {"account": "AccountE", "parent": "AccountD", "shares": 25},
        {"user": "User4", "account": "AccountE"}, {"account": "AccountF", "parent": "AccountD", "shares": 35},
        {"user": "User5", "account": "AccountF"}, {"account": "AccountG", "shares": 0},
        {"user": "User6", "account": "AccountG", "shares": 0}], zero_shares="allow")
    table = slurm.sshare(t, [20, 25, 0, 25, 0, 30], fairshare="classic")
    rows = {r.user: r for r in table.itertuples() if r.user}
    expected = """AccountB|User1|1|0.300000|20|0.200000|0.387500|0.408479
AccountC|User2|1|0.050000|25|0.250000|0.275000|0.022097
AccountC|User3|1|0.050000|0|0.000000|0.150000|0.125000
AccountE|User4|1|0.250000|25|0.250000|0.250000|0.500000
AccountF|User5|1|0.350000|0|0.000000|0.145833|0.749154"""
    for line in expected.splitlines():
        acct, user, raw, norm, raw_use, norm_use, eff, fs = line.split("|")
        r = rows[user]
        got = [r.account, f"{r.raw_shares:g}", f"{r.norm_shares:.6f}", f"{r.raw_usage:g}", f"{r.norm_usage:.6f}",
               f"{r.effective_usage:.6f}", f"{r.fairshare:.6f}"]
        assert got == [acct, raw, norm, raw_use, norm_use, eff, fs], line
    assert rows["User6"].account == "AccountG" and rows["User6"].raw_shares == 0      # "AccountG|User6|0|"
    assert rows["User6"].fairshare == 0.0                                             # S = 0 -> factor 0


@pytest.mark.parametrize("acct12_use, acct16_use", [(30.0, 10.0), (10.0, 30.0)])
def test_fair_tree_page_user_a_user_b(acct12_use, acct16_use):
    # fair_tree page: root => Acct1 => Acct12 => UserA, root => Acct1 => Acct16 => UserB. "If UserB has a
    # higher FairShare value than UserA, Acct16 has a higher Level FS value than Acct12."
    t = AccountTree([{"account": "Acct1"}, {"account": "Acct12", "parent": "Acct1"},
                     {"account": "Acct16", "parent": "Acct1"}, {"user": "UserA", "account": "Acct12"},
                     {"user": "UserB", "account": "Acct16"}, {"user": "other"}])
    table = slurm.sshare(t, [acct12_use, acct16_use, 5.0])
    lf = dict(zip(table.account + "/" + table.user, table.level_fs))
    fs = dict(zip(table.user, table.fairshare))
    assert (fs["UserB"] > fs["UserA"]) == (lf["Acct16/"] > lf["Acct12/"])


def test_fair_tree_tied_accounts_are_not_merged():
    # Accounts X and Y tie at root (shares 1 each, usage 10 each: LF = 0.5/0.5 = 1). In X: x1 used 9, x2 1
    # (LF (1/2)/(9/10) = 0.556 and 5); in Y: y1 used 5, y2 5 (LF 1, 1). As fair_tree.c runs (no merge): X
    # is first (record order), x2 rank 4, x1 3, then Y tied with X: y1 tied with x1 -> 3, y2 tied -> 3.
    # The page's rule (merge X's and Y's children, then sort: x2 5, y1 1, y2 1, x1 0.556) would give
    # x2 4, y1 3, y2 3, x1 1: x1 below Y's users.
    t = AccountTree([{"account": "X"}, {"account": "Y"}, {"user": "x1", "account": "X"},
                     {"user": "x2", "account": "X"}, {"user": "y1", "account": "Y"}, {"user": "y2", "account": "Y"}])
    f = slurm.fairshare_factors(t, [9.0, 1.0, 5.0, 5.0])
    assert (f * 4).round(9).tolist() == [3.0, 4.0, 3.0, 3.0]


def test_flat_three_users_by_hand():
    # equal shares 1/3, usages 6, 3, 1 (of 10). Classic: U_E = U_N (children of root), F = 2^(-U/(1/3))
    t = AccountTree.flat(["a", "b", "c"])
    f = slurm.fairshare_factors(t, [6.0, 3.0, 1.0], fairshare="classic")
    assert f == pytest.approx([2 ** -1.8, 2 ** -0.9, 2 ** -0.3])
    # dampening 2 halves the exponent
    f2 = slurm.fairshare_factors(t, [6.0, 3.0, 1.0], fairshare="classic", dampening=2)
    assert f2 == pytest.approx([2 ** -0.9, 2 ** -0.45, 2 ** -0.15])
    # Fair Tree: LF = (1/3)/0.6, (1/3)/0.3, (1/3)/0.1: ranks 1, 2, 3 of 3
    assert slurm.fairshare_factors(t, [6.0, 3.0, 1.0]) == pytest.approx([1 / 3, 2 / 3, 1.0])
    # no usage at all: everyone inf and tied -> 1.0; classic: U_N = 0 -> 2^0 = 1
    assert slurm.fairshare_factors(t, [0.0, 0.0, 0.0]).tolist() == [1.0, 1.0, 1.0]
    assert slurm.fairshare_factors(t, [0.0, 0.0, 0.0], fairshare="classic").tolist() == [1.0, 1.0, 1.0]


def test_decay_rules():
    hl = 7 * 86400.0
    f_slurm = slurm.decay_per_second(hl)
    f_exact = slurm.decay_per_second(hl, "exact")
    assert f_slurm == 1 - 0.693 / hl                           # _init_decay_vars
    assert f_exact ** hl == pytest.approx(0.5, abs=1e-9)
    # the code's factor halves in hl * ln 2 / 0.693 (1.000212 hl): (1 - 0.693/hl)^hl = e^(-0.693...) = 0.50007
    assert f_slurm ** hl == pytest.approx(math.exp(-0.693), rel=1e-6)
    assert slurm.decay_per_second(math.inf) == 1.0
    # a pass of dt seconds: f^dt, floored at DBL_MIN; no pass for dt <= 0
    assert slurm.period_decay(0.5, 3.0) == 0.125 and slurm.period_decay(0.5, -1.0) == 1.0
    assert slurm.period_decay(0.5, 1e5) == 2.2250738585072014e-308
    with pytest.raises(InvalidInstanceError, match="half_life=0 must be > 0"):
        slurm.decay_per_second(0)
    with pytest.raises(InvalidInstanceError, match="no per-second factor"):
        slurm.decay_per_second(hl, "continuous")


def test_three_user_schedule_by_hand():
    # flat tree, 3 users, CPU billing; half-life 100 s, exact decay (f^100 = 1/2), passes every 100 s.
    # A runs 2 CPUs on [0, 300], B 1 CPU on [100, 200], C nothing. By hand (_apply_decay then _apply_new_usage):
    # t=100: U = 0 * 1/2; A += 100 * 1/2 * 2 = 100            -> (100, 0, 0)
    # t=200: U *= 1/2 -> A 50; A += 100; B += 100 * 1/2 * 1 = 50 -> (150, 50, 0)
    # t=300: U *= 1/2 -> (75, 25, 0); A += 100                -> (175, 25, 0)
    f = slurm.decay_per_second(100.0, "exact")
    u = np.zeros(3)
    jobs = [(0, 0.0, 300.0, 2.0), (1, 100.0, 200.0, 1.0)]         # user, start, end, billing
    last = 0.0
    for t in (100.0, 200.0, 300.0):
        slurm.decay_usage_into(u, slurm.period_decay(f, t - last))
        for user, start, end, b in jobs:
            if start < t and end >= t:
                u[user] += slurm.usage_charge(b, t - max(last, start), f)
        last = t
    assert u == pytest.approx([175.0, 25.0, 0.0])
    t3 = AccountTree.flat(["A", "B", "C"])
    # classic: U_N = 0.875, 0.125, 0 -> F = 2^(-3 U_N)
    assert slurm.fairshare_factors(t3, u, fairshare="classic") == pytest.approx([2 ** -2.625, 2 ** -0.375, 1.0])
    # Fair Tree: C (no usage) first, then B, then A
    assert slurm.fairshare_factors(t3, u) == pytest.approx([1 / 3, 2 / 3, 1.0])


def test_continuous_usage_is_sdrf_eq6():
    # decay="continuous": U/tau follows SDRF's Eq. 6 with the billing rate as the "excess". A user billed
    # 4 CPUs from U = 0 for one half-life: U = b tau (1 - 1/2) = 2 tau (hand); with commitments' function:
    hl = 3600.0
    tau = commitments.tau_from_half_life(hl)
    c = np.zeros(1)
    commitments.decay_row_into(c, np.array([4.0]), hl, tau, c)
    assert c[0] * tau == pytest.approx(4.0 * tau * 0.5)
    # and the integral of the exact per-second decay over the same hour: b * int_0^hl 2^(-s/hl) ds
    assert 4.0 * hl / math.log(2) * 0.5 == pytest.approx(c[0] * tau)


@pytest.mark.parametrize("decay, dt", [("slurm", 300.0), ("exact", 300.0), ("slurm", 60.0)])
def test_slurm_usage_is_an_sdrf_commitment_on_the_whole_use(decay, dt):
    # the relation stated in the module docstring: a pass with a constant rate b is U' = f^dt (U + dt b), so
    # c = (1 - f^dt) U / (dt f^dt) obeys SDRF's Eq. 3 with delta = f^dt and the excess replaced by b. SDRF's Eq. 6
    # (commitments.decay_row_into) with tau = -1/ln f over dt is that Eq. 3 step; the rates change between passes.
    f = slurm.decay_per_second(3600.0, decay)
    k = (1 - f ** dt) / (dt * f ** dt)
    tau = -1.0 / math.log(f)
    u = np.zeros(1)
    c = np.zeros(1)
    for b in (4.0, 4.0, 0.0, 2.5, 7.0, 0.0, 0.0, 1.0):
        slurm.decay_usage_into(u, slurm.period_decay(f, dt))
        u[0] += slurm.usage_charge(b, dt, f)
        commitments.decay_row_into(c, np.array([b]), dt, tau, c)
        assert k * u[0] == pytest.approx(c[0], rel=1e-9)


def test_config_checks():
    with pytest.raises(InvalidInstanceError, match="half_life=0 must be > 0.*math.inf"):
        slurm.SlurmPriority(half_life=0)
    with pytest.raises(InvalidInstanceError, match=r"half_life=-5"):
        slurm.SlurmPriority(half_life=-5)
    with pytest.raises(InvalidInstanceError, match="calc_period=0"):
        slurm.SlurmPriority(calc_period=0)
    with pytest.raises(InvalidInstanceError, match="decay='fast'"):
        slurm.SlurmPriority(decay="fast")
    with pytest.raises(InvalidInstanceError, match="weight_age=-1"):
        slurm.SlurmPriority(weight_age=-1)
    with pytest.raises(InvalidInstanceError, match="priority weights sum to 0 .*weight_qos=0.*fair share off"):
        slurm.SlurmPriority(weight_age=0, weight_fairshare=0, weight_job_size=0, weight_partition=0)
    with pytest.raises(InvalidInstanceError, match="dampening=0.5 must be >= 1"):
        slurm.SlurmPriority(dampening=0.5)
    with pytest.raises(InvalidInstanceError, match="usage_reset='hourly'"):
        slurm.SlurmPriority(usage_reset="hourly")
    with pytest.raises(InvalidInstanceError, match="continuous' needs a finite half_life"):
        slurm.SlurmPriority(half_life=math.inf, decay="continuous")
    cfg = slurm.SlurmPriority(half_life=math.inf, usage_reset="MONTHLY")
    assert cfg.per_second == 1.0 and cfg.usage_reset == "monthly"


def test_sshare_bad_usage():
    t = AccountTree.flat(["a", "b"])
    with pytest.raises(InvalidInstanceError, match=r"user_usage\[1\]=-1.0 \(user 'b'\)"):
        slurm.sshare(t, [1.0, -1.0])
    with pytest.raises(InvalidInstanceError, match=r"shape \(2,\)"):
        slurm.fairshare_factors(t, [1.0])
    with pytest.raises(InvalidInstanceError, match="fairshare='tree'"):
        slurm.fairshare_factors(t, [1.0, 1.0], fairshare="tree")


def test_age_size_priority_by_hand():
    assert slurm.age_factor(0.0, 100.0) == 0.0 and slurm.age_factor(25.0, 100.0) == 0.25
    assert slurm.age_factor(500.0, 100.0) == 1.0
    # favour large: (nodes/N + cpus/C)/2 = (1/4 + 8/64)/2 = 0.1875; favour small: (3/4 + 56/64)/2 = 0.8125
    assert slurm.job_size_factor(8, 1, 64, 4) == 0.1875
    assert slurm.job_size_factor(8, 1, 64, 4, favor_small=True) == 0.8125
    # SMALL_RELATIVE_TO_TIME: max(1 * 64/4, 8) / 60 min / 64 = 16 / 3840
    assert slurm.job_size_factor(8, 1, 64, 4, relative_to_time=True, time_limit_minutes=60) == 16 / 3840
    # the page's example weights: fair share dominant 5000, size and age 1000 each -> at most 7000
    assert slurm.job_priority(1, 1, 1, 0, 0, 1000, 5000, 1000, 0, 0) == 7000
    # below 1 -> 1 (0 is reserved for held jobs); fractions truncated
    assert slurm.job_priority(0, 0, 0, 0, 0, 1000, 5000, 1000, 0, 0) == 1
    assert slurm.job_priority(0.5, 0.1234, 0, 0, 0, 1000, 10000, 0, 0, 0) == 1734.0
    assert slurm.job_priority(0.5, 0.1234, 0, 0, 0, 1000, 10000, 0, 0, 0, integer=False) == pytest.approx(1734.0)
    assert slurm.job_priority(0.5, 0.12345, 0, 0, 0, 1000, 10000, 0, 0, 0, nice=100) == 1634.0


def test_usage_reset_calendar():
    day = 86400.0
    # from 1970-01-01 00:00 UTC (Thursday): daily 1 day; weekly -> Sunday 1970-01-04 (3 days)
    assert slurm.next_usage_reset("daily", 0.0) == day
    assert slurm.next_usage_reset("weekly", 0.0) == 3 * day
    # a reset on a Sunday waits a full week (7 - tm_wday with tm_wday = 0)
    assert slurm.next_usage_reset("weekly", 3 * day) == 10 * day
    assert slurm.next_usage_reset("monthly", 40 * day) == 59 * day             # 1970-03-01
    assert slurm.next_usage_reset("quarterly", 100 * day) == 181 * day          # 1970-07-01
    assert slurm.next_usage_reset("yearly", 100 * day) == 365 * day
    assert slurm.next_usage_reset("none", 0.0) == math.inf
    # a trace starting 2000-01-01 00:00 UTC (Saturday, unix 946684800): next Sunday is 1 day later
    assert slurm.next_usage_reset("weekly", 0.0, epoch=946684800.0) == day


def test_fair_tree_with_a_kept_sibling_order_equals_a_fresh_call():
    # fair_tree_into's `order` (each node's children in the last call's order, kept between calls, as the
    # simulator does at each pass) only changes where the insertion sort starts: the siblings' key (LF
    # descending, users before accounts, record order) is a total order, so every call must give the factors
    # and the sibling order of a fresh call. 60 random usage vectors in sequence on test24.4's tree (ties,
    # zero shares, FairShare=parent) and a two-level tree, usages drawn from few values so that LF ties are
    # frequent; the sorted segments are also checked against Python's sorted() with that key.
    rng = np.random.default_rng(7)
    trees = [AccountTree(T244_RECORDS, zero_shares="allow"),
             AccountTree([{"account": "A", "shares": 3}, {"account": "B"}]
                         + [{"user": f"u{k}", "account": "AB"[k % 2], "shares": 1 + k % 2} for k in range(9)])]
    for t in trees:
        n = t.n_nodes
        kept = t.fs_children.copy()
        for _ in range(60):
            usage = rng.choice([0.0, 1.0, 2.0, 5.0], size=t.n_users)
            node_usage, lf = np.empty(n), np.empty(n)
            from fairalloc.accounts import subtree_sum_into
            subtree_sum_into(t.parent, t.user_nodes, usage, node_usage)
            slurm.level_fairshare_into(t.fs_parent, t.is_user, t.use_parent, t.sibling_shares, node_usage, lf)
            warm, fresh = np.zeros(n), np.zeros(n)
            slurm.fair_tree_into(t.fs_child_ptr, t.fs_children, t.is_user, lf, t.n_users, warm,
                                 np.empty(n, np.int64), np.empty(n, np.bool_), kept)
            slurm.fair_tree_into(t.fs_child_ptr, t.fs_children, t.is_user, lf, t.n_users, fresh,
                                 np.empty(n, np.int64), np.empty(n, np.bool_))
            assert warm[t.user_nodes].tolist() == fresh[t.user_nodes].tolist()
            assert warm[t.user_nodes].tolist() == slurm.fairshare_factors(t, usage).tolist()
            for v in range(n):
                kids = t.fs_children[t.fs_child_ptr[v]:t.fs_child_ptr[v + 1]].tolist()
                want = sorted(kids, key=lambda c: (-lf[c], not t.is_user[c], c))
                assert kept[t.fs_child_ptr[v]:t.fs_child_ptr[v + 1]].tolist() == want
