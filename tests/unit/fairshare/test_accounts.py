"""The account tree: shares down the tree, Slurm's FairShare=parent, files, bad input.

Expected normalised shares come from Slurm's classic fair-share page
(https://slurm.schedmd.com/classic_fair_share.html, "Example", read at SchedMD/slurm 284c3b95f0) and from
the NormShares column of Slurm's regression test testsuite/expect/test24.4 (same commit); the rest
are hand computations written next to each assertion.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from fairalloc.accounts import AccountTree, read_accounts
from fairalloc.errors import FairallocWarning, InvalidInstanceError

CLASSIC_PAGE = [
    {"account": "A", "shares": 40}, {"account": "B", "parent": "A", "shares": 30},
    {"account": "C", "parent": "A", "shares": 10},
    {"account": "D", "shares": 60}, {"account": "E", "parent": "D", "shares": 25},
    {"account": "F", "parent": "D", "shares": 35},
    {"user": "u1", "account": "B"}, {"user": "u2", "account": "C"}, {"user": "u3", "account": "C"},
    {"user": "u4", "account": "E"}, {"user": "u5", "account": "F"},
]


def test_classic_page_normalized_shares():
    t = AccountTree(CLASSIC_PAGE)
    s = dict(zip(t.names, t.normalized_shares))
    # the page: "Account A has .4 normalized shares, B has .3"; users 0.3, 0.05, 0.05, 0.25, 0.35
    assert s["A"] == pytest.approx(0.4) and s["B"] == pytest.approx(0.3)
    assert [s[u] for u in ("u1", "u2", "u3", "u4", "u5")] == pytest.approx([0.3, 0.05, 0.05, 0.25, 0.35])
    # the page: "if user 2 had been allocated 4 shares instead of 1, user 2 would have had .08"
    recs = [dict(r, shares=4) if r.get("user") == "u2" else r for r in CLASSIC_PAGE]
    t4 = AccountTree(recs)
    assert t4.normalized_shares[t4.node("u2")] == pytest.approx(0.08)


def test_level_and_sibling_shares():
    t = AccountTree(CLASSIC_PAGE)
    lv = dict(zip(t.names, t.level_shares))
    sib = dict(zip(t.names, t.sibling_shares))
    assert lv["A"] == lv["D"] == 100 and lv["B"] == lv["C"] == 40 and lv["E"] == 60
    assert lv["u2"] == 2 and sib["u2"] == 0.5 and sib["E"] == pytest.approx(25 / 60)


def test_structure_arrays():
    t = AccountTree(CLASSIC_PAGE)
    assert t.names[0] == "root" and t.parent[0] == -1
    assert t.n_users == 5 and t.user_names == ("u1", "u2", "u3", "u4", "u5")
    # pre-order: every node after its fair-share parent
    pos = {v: k for k, v in enumerate(t.preorder)}
    assert sorted(pos) == list(range(t.n_nodes))
    assert all(pos[t.fs_parent[v]] < pos[v] for v in range(1, t.n_nodes))
    # CSR children in record order: root's are A, D; C's are u2, u3
    kids = lambda v: [t.names[c] for c in t.fs_children[t.fs_child_ptr[v]:t.fs_child_ptr[v + 1]]]
    assert kids(0) == ["A", "D"] and kids(t.node("C")) == ["u2", "u3"]
    assert t.node_user[t.user_nodes].tolist() == list(range(5))


def test_fairshare_parent_reparents_like_slurm():
    # test24.4's aD subtree: aDA has FairShare=parent; uDA1 and uD1 too. Slurm attaches every one of them
    # to aD (the first ancestor without 'parent'), and aD's level shares are 30 + 50 + 40 + 50 = 170
    # (uDA2, uDA3, uD2, uD3; 'parent' nodes count 0): NormShares 30/170 = 0.176471 for uDA2.
    t = AccountTree([{"account": "aD", "shares": 50}, {"account": "aDA", "parent": "aD", "shares": "parent"},
                     {"user": "uDA1", "account": "aDA", "shares": "parent"},
                     {"user": "uDA2", "account": "aDA", "shares": 30},
                     {"user": "uDA3", "account": "aDA", "shares": 50},
                     {"user": "uD1", "account": "aD", "shares": "parent"},
                     {"user": "uD2", "account": "aD", "shares": 40}, {"user": "uD3", "account": "aD", "shares": 50}])
    aD = t.node("aD")
    assert all(t.fs_parent[t.node(n)] == aD for n in ("aDA", "uDA1", "uDA2", "uDA3", "uD1", "uD2", "uD3"))
    assert t.parent[t.node("uDA2")] == t.node("aDA")
    assert t.level_shares[t.node("uDA2")] == 170
    assert t.sibling_shares[t.node("uDA2")] == pytest.approx(30 / 170)
    # a 'parent' user takes its fair-share parent's shares: aD = 50 / 50 (aD alone under root) = 1
    assert t.sibling_shares[t.node("uD1")] == 1.0 and t.normalized_shares[t.node("uD1")] == 1.0


def test_flat_tree_and_user_index():
    t = AccountTree.flat([10, 11, 12])
    assert t.names == ("root", "10", "11", "12")
    assert t.normalized_shares[t.user_nodes] == pytest.approx([1 / 3] * 3)
    assert t.user_index([12, 10, 10]).tolist() == [2, 0, 0]
    with pytest.raises(InvalidInstanceError, match=r"users\[1\]=99 has no association"):
        t.user_index([10, 99])


def test_subtree_sum():
    t = AccountTree(CLASSIC_PAGE)
    node = dict(zip(t.names, t.subtree_sum([0.2, 0.25, 0.0, 0.25, 0.0])))
    # the page: "account A's actual usage is the sum of its children": 0.2 + 0.25 = 0.45; D: 0.25
    assert node["A"] == pytest.approx(0.45) and node["D"] == pytest.approx(0.25) and node["root"] == pytest.approx(0.7)


@pytest.mark.parametrize("records, kwargs, message", [
    ([{"user": "u", "account": "nope"}], {}, r"user 'u' is in unknown account 'nope'"),
    ([{"account": "A", "parent": "nope"}], {}, r"account 'A' has unknown parent account 'nope'"),
    ([{"account": "A"}, {"user": "u", "account": "A"}, {"user": "u"}], {},
     r"user 'u' is in two accounts: 'A' and 'root'"),
    ([{"account": "A"}, {"account": "A"}], {}, r"account 'A' is defined twice"),
    ([{"account": "A", "parent": "B"}, {"account": "B", "parent": "A"}], {}, r"form a cycle: A -> B -> A"),
    ([{"user": "u", "shares": 0}], {}, r"shares=0 of user 'u' must be > 0 or 'parent'.*zero_shares='allow'"),
    ([{"user": "u", "shares": -2}], {}, r"shares=-2 of user 'u' must be > 0"),
    ([{"user": "u", "shares": -2}], {"zero_shares": "allow"}, r"shares=-2 of user 'u' must be > 0"),
    ([{"user": "u", "shares": "lots"}], {}, r"shares='lots' of user 'u' is not a number"),
    ([{"user": "u", "shares": True}], {}, r"shares=True of user 'u' is a boolean"),
    ([{"user": "u", "shares": float("nan")}], {}, r"must be finite"),
    ([{"user": "u", "colour": "red"}], {}, r"unknown field 'colour' of user 'u'"),
    ([{"account": "A", "prio_factor": 2}], {}, r"field 'prio_factor' belongs to users"),
    ([{"name": "A"}], {}, r"names neither a user nor an account"),
    ([{"account": "root", "parent": "A"}], {}, r"the root account has no parent"),
])
def test_bad_records(records, kwargs, message):
    with pytest.raises(InvalidInstanceError, match=message):
        AccountTree(records, **kwargs)


def test_zero_shares_allowed_on_request():
    # Slurm's test24.1 has an account G and its user with 0 shares: normalised share 0
    t = AccountTree([{"account": "G", "shares": 0}, {"user": "u6", "account": "G", "shares": 0},
                     {"user": "x"}], zero_shares="allow")
    assert t.normalized_shares[t.node("u6")] == 0.0 and t.level_shares[t.node("u6")] == 0.0
    assert t.normalized_shares[t.node("x")] == 1.0          # root's level: 0 + 1


@pytest.mark.parametrize("records, resources, message", [
    ([{"account": "g", "quota": -1}], None, r"quota=-1.0 of account 'g' must be >= 0"),
    ([{"account": "g", "quota_dynamic": 1.5}], None, r"quota_dynamic=1.5 .* must be in \[0, 1\]"),
    ([{"account": "g", "quota": 2, "quota_dynamic": 0.5}], None, r"cannot be given together with quota"),
    ([{"user": "u", "prio_factor": 0.5}], None, r"prio_factor=0.5 of user 'u' must be >= 1"),
    ([{"account": "q", "weight": -1}], None, r"weight=-1.0 .* must be >= 0"),
    ([{"account": "q", "hdrf_weight": 0}], None, r"hdrf_weight=0.0 .* must be > 0"),
    ([{"account": "q", "nominal_quota": {"cpu": -4}}], ["cpu"], r"nominal_quota\[cpu\]=-4.0 .* must be >= 0"),
    ([{"account": "q", "nominal_quota": {"gpu": 1}}], ["cpu"], r"names unknown resource\(s\) \['gpu'\]"),
    ([{"account": "q", "nominal_quota": 4}], ["cpu"], r"must map resource names to numbers"),
    ([{"account": "q", "borrowing_limit": {"cpu": 2}}], ["cpu"], r"borrowing_limit=.* needs a cohort"),
    ([{"account": "cohort"}, {"account": "q", "parent": "cohort", "nominal_quota": {"cpu": 2},
                               "lending_limit": {"cpu": 3}}], ["cpu"],
     r"lending_limit\[cpu\]=3.0 .* must be at most nominal_quota\[cpu\]=2.0"),
    ([{"account": "q", "min_share": {"cpu": 4}, "max_share": {"cpu": 2}}], ["cpu"],
     r"max_share\[cpu\]=2.0 .* must be >= min_share=4.0"),
    ([{"account": "q", "accept_surplus": "yes"}], None, r"accept_surplus='yes' .* must be true or false"),
])
def test_bad_node_fields(records, resources, message):
    with pytest.raises(InvalidInstanceError, match=message):
        AccountTree(records, resources=resources)


def test_node_fields_stored():
    t = AccountTree([{"account": "cohort"}, {"account": "q", "parent": "cohort", "nominal_quota": {"cpu": 8},
                                              "borrowing_limit": {"cpu": 2}, "weight": 0},
                     {"user": "u", "account": "q", "prio_factor": 2000}], resources=["cpu", "mem"])
    q = t.node("q")
    assert t.attribute("nominal_quota")[q].tolist()[0] == 8.0 and math.isnan(t.attribute("nominal_quota")[q][1])
    assert t.attribute("weight")[q] == 0.0                    # 0 is allowed (YARN-6754's meaning)
    assert t.attribute("prio_factor")[t.node("u")] == 2000.0
    with pytest.raises(InvalidInstanceError, match="unknown node field"):
        t.attribute("colour")
    with pytest.raises(ValueError):                           # read-only
        t.raw_shares[1] = 5


def test_read_yaml_with_lines(tmp_path):
    p = tmp_path / "acc.yaml"
    p.write_text("accounts:\n  - {name: A, shares: 40}\n  - {name: B, parent: A, shares: 30}\n"
                 "users:\n  - {name: u1, account: B}\n  - {name: u2, account: B, shares: 1e3}\n")
    t = read_accounts(p)
    assert t.names == ("root", "A", "B", "u1", "u2")
    assert t.raw_shares[t.node("u2")] == 1000.0                # YAML 1.2's 1e3 (YAML 1.1 reads a string)
    p.write_text("accounts:\n  - {name: A, shares: 40}\nusers:\n  - {name: u1, account: A}\n"
                 "  - {name: u1, account: Z}\n")
    with pytest.raises(InvalidInstanceError, match=r"acc.yaml:5: user 'u1' is in two accounts: 'A' \(line 4\)"):
        read_accounts(p)
    p.write_text("accounts:\n  - {name: A, shares: 0}\n")
    with pytest.raises(InvalidInstanceError, match=r"acc.yaml:2: shares=0 of account 'A'"):
        read_accounts(p)
    p.write_text("accounts:\n  - {name: A, shares: 1, shares: 2}\n")
    with pytest.raises(InvalidInstanceError, match=r"acc.yaml:2: not valid YAML: duplicate key 'shares'"):
        read_accounts(p)
    p.write_text("acounts: []\n")
    with pytest.raises(InvalidInstanceError, match=r"unknown key\(s\) \['acounts'\]"):
        read_accounts(p)


def test_read_sacctmgr_output(tmp_path):
    # `sacctmgr show assoc format=Cluster,Account,ParentName,User,Share -P` style, the classic page's tree
    p = tmp_path / "assoc.txt"
    p.write_text("Cluster|Account|Par Name|User|Share\n"
                 "c|root|||1\nc|A|root||40\nc|B|A||30\nc|C|A||10\nc|D|root||60\nc|E|D||25\nc|F|D||35\n"
                 "c|B||u1|1\nc|C||u2|1\nc|C||u3|1\nc|E||u4|1\nc|F||u5|parent\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t = read_accounts(p)
    assert any(issubclass(w.category, FairallocWarning) and "Cluster" in str(w.message) for w in caught)
    assert t.normalized_shares[t.node("u2")] == pytest.approx(0.05)
    assert t.use_parent[t.node("u5")] and t.normalized_shares[t.node("u5")] == pytest.approx(0.35)
    p.write_text("Account|User|Share\nA||40\n")
    with pytest.raises(InvalidInstanceError, match=r"assoc.txt:2: account 'A' needs its parent"):
        read_accounts(p)
    p.write_text("Account,ParentName,User,Share,Colour\nA,root,,40,red\n")
    with pytest.raises(InvalidInstanceError, match=r"assoc.txt:1: unknown column 'Colour'"):
        read_accounts(p)
    p.write_text("Account,ParentName,User,Share,quota,nominal_quota:cpu\nA,root,,40,20,8\nA,,u,1,,\n")
    t = read_accounts(p)
    assert t.resources == ("cpu",) and t.attribute("quota")[t.node("A")] == 20.0
    p.write_text("Account,ParentName,User,Share\nA,root,,40\nA,,u,1\nB,root,,1\nB,,u,1\n")
    with pytest.raises(InvalidInstanceError, match=r"assoc.txt:5: user 'u' is in two accounts"):
        read_accounts(p)


def test_read_missing_and_unknown_type(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_accounts(tmp_path / "none.yaml")
    p = tmp_path / "acc.json"
    p.write_text("{}")
    with pytest.raises(InvalidInstanceError, match="unknown file type"):
        read_accounts(p)
