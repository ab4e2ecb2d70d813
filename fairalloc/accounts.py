r"""The account/queue tree: accounts with shares, users as leaves (Slurm associations, HTCondor groups).

One tree serves every production fair-share policy: Slurm's classic fair share and Fair Tree
(:mod:`fairalloc.fairshare.slurm`), HTCondor's accounting groups (:mod:`fairalloc.fairshare.htcondor`),
and the queue hierarchies of Kueue, YARN and Volcano (issue 28; their per-node fields are declared,
validated and stored here, and not used yet).

Structure (Slurm's association tree, ``sacctmgr show assoc format=Account,ParentName,User,Share``):

* node 0 is the account ``root``; every other account has a parent account; every user is a leaf
  under exactly one account (a user in two accounts is refused);
* every node but the root has *raw shares* :math:`S^{raw} > 0`, or ``"parent"`` (Slurm's
  ``FairShare=parent``: the node takes the shares and usage of its first ancestor whose shares are not
  ``parent``, and the children of a ``parent`` account are ranked among that ancestor's children, see
  :attr:`AccountTree.fs_parent`);
* the **level shares** of a node are the raw shares of its siblings, itself included (Slurm
  ``assoc_mgr.c`` ``_get_children_level_shares``; siblings with ``parent`` shares count 0);
* the **normalised shares** are the product down the tree (Slurm, classic fair share document,
  "Normalized Shares"; ``_normalize_assoc_shares_traditional``):

  .. math:: S = \frac{S^{raw}_{user}}{S_{siblings}}\cdot\frac{S^{raw}_{account}}{S_{sibling\text{-}accounts}}
            \cdot\frac{S^{raw}_{parent}}{S_{parent\text{-}siblings}}\cdots

  and the **sibling shares** (Fair Tree's :math:`S`) are the first factor only,
  :math:`S^{raw}_{self}/S^{raw}_{self+siblings}` (``_normalize_assoc_shares_fair_tree``).

A flat tree (every user directly under ``root`` with one share) is the default for a workload:
:meth:`AccountTree.flat`.

Per-node fields for other systems (all optional; ``NaN``/``-1`` when unset; checked at construction,
units are those of the cluster's resources):

===================================  =========  ============  ==============================================================
field                                on         shape         meaning (system) and check
===================================  =========  ============  ==============================================================
``quota``                            account    scalar        static group quota in slot weight (HTCondor
                                                              ``GROUP_QUOTA_<group>``), ``>= 0``
``quota_dynamic``                    account    scalar        dynamic group quota, a fraction of the parent's quota
                                                              (HTCondor ``GROUP_QUOTA_DYNAMIC_<group>``), in ``[0, 1]``; not
                                                              together with ``quota``
``accept_surplus``                   account    bool          may exceed its quota with others' unused quota (HTCondor
                                                              ``GROUP_ACCEPT_SURPLUS_<group>``); unset = the policy's
                                                              default
``prio_factor``                      user       scalar        priority factor (HTCondor ``condor_userprio -setfactor``),
                                                              ``>= 1``; unset = the policy's ``DEFAULT_PRIO_FACTOR``
``nominal_quota``                    account    per resource  guaranteed quota (Kueue ClusterQueue ``nominalQuota``),
                                                              ``>= 0``
``borrowing_limit``                  account    per resource  most it may borrow from its cohort (Kueue), ``>= 0``; needs a
                                                              cohort: the parent must not be ``root``
``lending_limit``                    account    per resource  most of its nominal quota it lends (Kueue), ``>= 0`` and at
                                                              most ``nominal_quota``; needs a cohort
``weight``                           both       scalar        fair-sharing weight (Kueue ``fairSharing.weight``, YARN queue
                                                              ``weight``), ``>= 0``; 0 is allowed and means what each system
                                                              documents (YARN-6754: no fair share, only idle resources)
``min_share``                        account    per resource  YARN ``minResources``, ``>= 0``
``max_share``                        account    per resource  YARN ``maxResources``, ``>= min_share``
``hdrf_weight``                      both       scalar        Volcano hierarchical DRF weight, ``> 0`` (Volcano uses 1 for a
                                                              weight below 1: :mod:`fairalloc.fairshare.volcano`)
``fair_share_preemption_threshold``  account    scalar        YARN ``fairSharePreemptionThreshold``, in ``[0, 1]``; unset =
                                                              inherited from the parent queue
``fair_share_preemption_timeout``    account    scalar        YARN ``fairSharePreemptionTimeout`` (seconds), ``>= 0``; unset
                                                              = inherited
``min_share_preemption_timeout``     account    scalar        YARN ``minSharePreemptionTimeout`` (seconds), ``>= 0``; unset
                                                              = inherited
``capability``                       both       per resource  Volcano queue ``capability`` (most it may use), ``>= 0``
``guarantee``                        both       per resource  Volcano queue ``guarantee`` (reserved), ``>= 0`` and at most
                                                              ``capability``
===================================  =========  ============  ==============================================================

Per-resource fields need the tree's ``resources`` (names), e.g. ``nominal_quota: {cpu: 64, mem: 256}``.

Bad input is refused with an :class:`~fairalloc.errors.InvalidInstanceError` naming the source and
line (files), the field and the value: an unknown account, a user in two accounts, a duplicate
account, a cycle of parents, shares that are not a positive number or ``parent`` (zero shares only
with ``zero_shares="allow"``, Slurm's meaning: no share at all, lowest priority), an unknown field.

Examples
--------
Slurm's classic fair-share document's tree (accounts A=40 with B=30, C=10; D=60 with E=25, F=35):

>>> tree = AccountTree([
...     {"account": "A", "shares": 40}, {"account": "B", "parent": "A", "shares": 30},
...     {"account": "C", "parent": "A", "shares": 10},
...     {"account": "D", "shares": 60}, {"account": "E", "parent": "D", "shares": 25},
...     {"account": "F", "parent": "D", "shares": 35},
...     {"user": "u1", "account": "B"}, {"user": "u2", "account": "C"}, {"user": "u3", "account": "C"},
...     {"user": "u4", "account": "E"}, {"user": "u5", "account": "F"}])
>>> tree.user_names
('u1', 'u2', 'u3', 'u4', 'u5')
>>> [round(float(s), 4) for s in tree.normalized_shares[tree.user_nodes]]   # the document's 0.3, 0.05, ...
[0.3, 0.05, 0.05, 0.25, 0.35]
"""

from __future__ import annotations

import csv
import math
import warnings
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from .errors import FairallocWarning, InvalidInstanceError
from .validation import frozen

__all__ = ["AccountTree", "read_accounts", "subtree_sum_into", "NODE_ATTRIBUTES", "ROOT"]

#: Name of the root account (node 0).
ROOT = "root"

#: Per-node fields beyond shares: name -> (applies to "account" | "user" | "both", "scalar" |
#: "bool" | "per_resource", system it comes from). Checks are in the module docstring's table.
NODE_ATTRIBUTES: dict[str, tuple[str, str, str]] = {
    "quota": ("account", "scalar", "HTCondor GROUP_QUOTA_<group>"),
    "quota_dynamic": ("account", "scalar", "HTCondor GROUP_QUOTA_DYNAMIC_<group>"),
    "accept_surplus": ("account", "bool", "HTCondor GROUP_ACCEPT_SURPLUS_<group>"),
    "prio_factor": ("user", "scalar", "HTCondor priority factor (condor_userprio -setfactor)"),
    "nominal_quota": ("account", "per_resource", "Kueue nominalQuota"),
    "borrowing_limit": ("account", "per_resource", "Kueue borrowingLimit"),
    "lending_limit": ("account", "per_resource", "Kueue lendingLimit"),
    "weight": ("both", "scalar", "Kueue fairSharing.weight / YARN weight"),
    "min_share": ("account", "per_resource", "YARN minResources"),
    "max_share": ("account", "per_resource", "YARN maxResources"),
    "hdrf_weight": ("both", "scalar", "Volcano HDRF weight"),
    "fair_share_preemption_threshold": ("account", "scalar", "YARN fairSharePreemptionThreshold"),
    "fair_share_preemption_timeout": ("account", "scalar", "YARN fairSharePreemptionTimeout"),
    "min_share_preemption_timeout": ("account", "scalar", "YARN minSharePreemptionTimeout"),
    "capability": ("both", "per_resource", "Volcano queue capability"),
    "guarantee": ("both", "per_resource", "Volcano queue guarantee"),
}

_ACCOUNT_KEYS = {"account", "parent", "shares", "line"}
_USER_KEYS = {"user", "account", "shares", "line"}


def _where(source: str, line: int | None) -> str:
    return f"{source}:{line}" if line is not None else source


def _number(value: Any, field: str, where: str, who: str) -> float:
    """A finite float from a number or a numeric string (YAML 1.1 reads ``1e3`` as a string)."""
    if isinstance(value, (bool, np.bool_)):
        raise InvalidInstanceError(f"{where}: {field}={value!r} of {who} is a boolean; a number belongs here",
                                   argument=field, value=value)
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise InvalidInstanceError(f"{where}: {field}={value!r} of {who} is not a number",
                                       argument=field, value=value) from None
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InvalidInstanceError(f"{where}: {field}={value!r} of {who} is not a number",
                                   argument=field, value=value) from None
    if not math.isfinite(v):
        raise InvalidInstanceError(f"{where}: {field}={value!r} of {who} must be finite",
                                   argument=field, value=value)
    return v


def _boolean(value: Any, field: str, where: str, who: str) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise InvalidInstanceError(f"{where}: {field}={value!r} of {who} must be true or false",
                               argument=field, value=value)


class AccountTree:
    r"""An account tree with shares per node and users as leaves (see the module docstring).

    Parameters
    ----------
    records : iterable of mapping
        One mapping per association, in any order:

        * an account: ``{"account": name, "parent": name (default "root"), "shares": s (default 1)}``;
        * a user: ``{"user": name, "account": name (default "root"), "shares": s (default 1)}``;

        ``shares`` is a number ``> 0`` or the string ``"parent"`` (Slurm ``FairShare=parent``). A
        record for the account ``root`` may carry root's fields (its shares are ignored). Any field of
        :data:`NODE_ATTRIBUTES` may be given; ``line`` (an int) is used in error messages. Users and
        accounts are separate name spaces (a user may share an account's name). Children keep the
        order of the records (it breaks ties in Fair Tree).
    resources : sequence of str, optional
        Resource names, needed only by per-resource fields (``nominal_quota: {cpu: 4}``).
    zero_shares : {"error", "allow"}, optional
        ``"error"`` (default) refuses raw shares of 0; ``"allow"`` accepts them with Slurm's meaning
        (normalised share 0: classic factor 0, Fair Tree level 0, ranked last; siblings that all have 0
        shares all get 0).
    source : str, optional
        Name used in error messages (a file name; default ``"<records>"``).

    Attributes
    ----------
    names : tuple of str
        Node names, node 0 is ``root``; accounts first in record order, then users in record order.
    is_user : ndarray of bool, shape (n_nodes,)
    parent : ndarray of int64, shape (n_nodes,)
        Direct parent (-1 for the root).
    fs_parent : ndarray of int64, shape (n_nodes,)
        Fair-share parent: the first ancestor whose shares are not ``parent`` (Slurm
        ``fs_assoc_ptr``); the direct parent when no ``parent`` shares are involved.
    use_parent : ndarray of bool, shape (n_nodes,)
        Shares given as ``parent``.
    raw_shares : ndarray of float, shape (n_nodes,)
        Raw shares (1 for the root; 0 where ``use_parent``).
    level_shares : ndarray of float, shape (n_nodes,)
        Sum of the raw shares of the node's fair-share siblings, itself included (0 for the root).
    normalized_shares : ndarray of float, shape (n_nodes,)
        Slurm's classic normalised shares (product down the tree; a ``parent`` node has its
        fair-share parent's); 1 for the root.
    sibling_shares : ndarray of float, shape (n_nodes,)
        Fair Tree's :math:`S = S^{raw}/S^{level}` (a ``parent`` node has its fair-share parent's); 0 for
        the root.
    preorder : ndarray of int64
        Nodes in depth-first pre-order over the fair-share children (parents before children), root first.
    fs_child_ptr, fs_children : ndarray of int64
        Fair-share children of node ``v``: ``fs_children[fs_child_ptr[v]:fs_child_ptr[v + 1]]``, in
        record order (CSR).
    user_nodes : ndarray of int64, shape (n_users,)
        Node of each user (users numbered in record order).
    node_user : ndarray of int64, shape (n_nodes,)
        User number of each node (-1 for accounts).
    user_names, account_names : tuple of str
    resources : tuple of str
    n_nodes, n_users : int

    Raises
    ------
    InvalidInstanceError
        See the module docstring's list; the message names the source and line, the field and value.

    See Also
    --------
    read_accounts : the same from a YAML or CSV file.

    Examples
    --------
    Two accounts of 2 and 1 shares, one user each, and a third user in ``phys`` with ``parent``
    shares (Slurm ``FairShare=parent``: ``bob`` takes the normalised shares of ``phys``):

    >>> tree = AccountTree([{"account": "phys", "shares": 2}, {"account": "chem"},
    ...                     {"user": "ann", "account": "phys"}, {"user": "carl", "account": "chem"},
    ...                     {"user": "bob", "account": "phys", "shares": "parent"}])
    >>> tree.names
    ('root', 'phys', 'chem', 'ann', 'carl', 'bob')
    >>> tree.normalized_shares.round(4).tolist()
    [1.0, 0.6667, 0.3333, 0.6667, 0.3333, 0.6667]
    >>> [tree.names[v] for v in tree.fs_parent[1:]]
    ['root', 'root', 'phys', 'chem', 'phys']
    >>> AccountTree([{"user": "ann", "account": "phys"}])
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: <records>: user 'ann' is in unknown account 'phys'; accounts: ['root']
    """

    def __init__(self, records: Iterable[Mapping[str, Any]], *, resources: Sequence[str] | None = None,
                 zero_shares: str = "error", source: str = "<records>") -> None:
        if zero_shares not in ("error", "allow"):
            raise InvalidInstanceError(f"zero_shares={zero_shares!r} must be 'error' or 'allow'",
                                       argument="zero_shares", value=zero_shares)
        self._resources = tuple(str(r) for r in (resources or ()))
        if len(set(self._resources)) != len(self._resources):
            raise InvalidInstanceError(f"{source}: resources {list(self._resources)} has a duplicate name",
                                       argument="resources", value=list(self._resources))
        self._source = source
        accounts: dict[str, dict[str, Any]] = {ROOT: {"parent": None, "shares": 1.0, "use_parent": False,
                                                      "line": None, "attrs": {}}}
        users: dict[str, dict[str, Any]] = {}
        for k, rec in enumerate(records):
            if not isinstance(rec, Mapping):
                raise InvalidInstanceError(f"{source}: record {k} must be a mapping, got {type(rec).__name__}",
                                           argument="records", index=(k,), value=rec)
            line = rec.get("line")
            where = _where(source, line)
            if "user" not in rec and "account" not in rec:
                raise InvalidInstanceError(f"{where}: record {k} names neither a user nor an account: {dict(rec)}",
                                           argument="records", index=(k,), value=dict(rec))
            if "user" in rec:
                self._add_user(rec, users, where, zero_shares)
            else:
                self._add_account(rec, accounts, where, zero_shares)
        self._build(accounts, users)

    # ---- parsing one record -------------------------------------------------------------------
    def _shares(self, rec: Mapping[str, Any], where: str, who: str, zero_shares: str) -> tuple[float, bool]:
        s = rec.get("shares", 1)
        if isinstance(s, str) and s.strip().lower() == "parent":
            return 0.0, True
        v = _number(s, "shares", where, who)
        if v < 0 or (v == 0 and zero_shares == "error"):
            hint = ("; shares of 0 (Slurm: no share, lowest priority) need zero_shares='allow'"
                    if v == 0 else "")
            raise InvalidInstanceError(f"{where}: shares={s!r} of {who} must be > 0 or 'parent'{hint}",
                                       argument="shares", value=s)
        return v, False

    def _attrs(self, rec: Mapping[str, Any], kind: str, where: str, who: str) -> dict[str, Any]:
        base = _USER_KEYS if kind == "user" else _ACCOUNT_KEYS
        out: dict[str, Any] = {}
        for key, value in rec.items():
            if key in base:
                continue
            spec = NODE_ATTRIBUTES.get(key)
            if spec is None:
                allowed = sorted(base - {"line"} | {k for k, s in NODE_ATTRIBUTES.items() if s[0] in (kind, "both")})
                raise InvalidInstanceError(f"{where}: unknown field {key!r} of {who}; allowed: {allowed}",
                                           argument=key, value=value)
            applies, shape, _ = spec
            if applies not in (kind, "both"):
                raise InvalidInstanceError(f"{where}: field {key!r} belongs to {applies}s, not to {who}",
                                           argument=key, value=value)
            if value is None:
                continue
            if shape == "bool":
                out[key] = _boolean(value, key, where, who)
            elif shape == "scalar":
                out[key] = _number(value, key, where, who)
            else:
                if not isinstance(value, Mapping):
                    raise InvalidInstanceError(f"{where}: {key} of {who} must map resource names to numbers, "
                                               f"e.g. {{cpu: 4}}; got {value!r}", argument=key, value=value)
                unknown = [r for r in value if str(r) not in self._resources]
                if unknown:
                    raise InvalidInstanceError(f"{where}: {key} of {who} names unknown resource(s) {unknown}; "
                                               f"resources: {list(self._resources)}", argument=key, value=unknown)
                out[key] = {str(r): _number(v, f"{key}[{r}]", where, who) for r, v in value.items()}
        return out

    def _add_account(self, rec, accounts, where, zero_shares) -> None:
        name = str(rec["account"])
        who = f"account {name!r}"
        if name in accounts and not (name == ROOT and not accounts[ROOT].get("given")):
            first = accounts[name]["line"]
            at = f" (first at line {first})" if first is not None else ""
            raise InvalidInstanceError(f"{where}: account {name!r} is defined twice{at}",
                                       argument="account", value=name)
        attrs = self._attrs(rec, "account", where, who)
        if name == ROOT:
            if rec.get("parent") not in (None, ""):
                raise InvalidInstanceError(f"{where}: the root account has no parent, got parent={rec['parent']!r}",
                                           argument="parent", value=rec["parent"])
            accounts[ROOT].update(line=rec.get("line"), attrs=attrs, given=True)
            return
        shares, use_parent = self._shares(rec, where, who, zero_shares)
        parent = rec.get("parent")
        parent = ROOT if parent in (None, "") else str(parent)
        accounts[name] = {"parent": parent, "shares": shares, "use_parent": use_parent,
                          "line": rec.get("line"), "attrs": attrs, "where": where}

    def _add_user(self, rec, users, where, zero_shares) -> None:
        name = str(rec["user"])
        who = f"user {name!r}"
        account = rec.get("account")
        account = ROOT if account in (None, "") else str(account)
        if name in users:
            first = users[name]
            at = f" (line {first['line']})" if first["line"] is not None else ""
            raise InvalidInstanceError(f"{where}: user {name!r} is in two accounts: {first['account']!r}{at} and "
                                       f"{account!r}; a user belongs to one account", argument="user", value=name)
        shares, use_parent = self._shares(rec, where, who, zero_shares)
        users[name] = {"account": account, "shares": shares, "use_parent": use_parent, "line": rec.get("line"),
                       "attrs": self._attrs(rec, "user", where, who), "where": where}

    # ---- building the arrays -----------------------------------------------------------------
    def _build(self, accounts: dict[str, dict[str, Any]], users: dict[str, dict[str, Any]]) -> None:
        src = self._source
        acc_names = list(accounts)
        acc_index = {a: i for i, a in enumerate(acc_names)}
        for a in acc_names[1:]:
            p = accounts[a]["parent"]
            if p not in acc_index:
                raise InvalidInstanceError(f"{accounts[a]['where']}: account {a!r} has unknown parent account {p!r}; "
                                           f"accounts: {sorted(acc_names)}", argument="parent", value=p)
        for u, rec in users.items():
            if rec["account"] not in acc_index:
                raise InvalidInstanceError(f"{rec['where']}: user {u!r} is in unknown account {rec['account']!r}; "
                                           f"accounts: {sorted(acc_names)}", argument="account", value=rec["account"])
        # cycles: every account must reach root by its parents
        for a in acc_names[1:]:
            seen = [a]
            p = accounts[a]["parent"]
            while p != ROOT:
                if p in seen:
                    cyc = seen[seen.index(p):] + [p]
                    raise InvalidInstanceError(f"{accounts[a]['where']}: the parents of account {a!r} form a cycle: "
                                               + " -> ".join(cyc), argument="parent", value=cyc)
                seen.append(p)
                p = accounts[p]["parent"]
        user_names = list(users)
        n_acc, n_users = len(acc_names), len(user_names)
        n = n_acc + n_users
        names = tuple(acc_names + user_names)
        parent = np.full(n, -1, dtype=np.int64)
        raw = np.zeros(n)
        use_parent = np.zeros(n, dtype=bool)
        is_user = np.zeros(n, dtype=bool)
        is_user[n_acc:] = True
        raw[0] = 1.0
        for i, a in enumerate(acc_names[1:], start=1):
            parent[i] = acc_index[accounts[a]["parent"]]
            raw[i] = accounts[a]["shares"]
            use_parent[i] = accounts[a]["use_parent"]
        for j, u in enumerate(user_names):
            parent[n_acc + j] = acc_index[users[u]["account"]]
            raw[n_acc + j] = users[u]["shares"]
            use_parent[n_acc + j] = users[u]["use_parent"]
        # fair-share parent: first ancestor whose shares are not "parent" (Slurm _find_assoc_parent)
        fs_parent = np.full(n, -1, dtype=np.int64)
        for v in range(1, n):
            p = parent[v]
            while p > 0 and use_parent[p]:
                p = parent[p]
            fs_parent[v] = p
        # fair-share children in record order (CSR)
        counts = np.bincount(fs_parent[1:], minlength=n)
        ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts, out=ptr[1:])
        fill = ptr[:-1].copy()
        children = np.zeros(max(n - 1, 0), dtype=np.int64)
        for v in range(1, n):
            p = fs_parent[v]
            children[fill[p]] = v
            fill[p] += 1
        # level shares: siblings' raw shares (parent-shares siblings count 0)
        level = np.zeros(n)
        for p in range(n):
            kids = children[ptr[p]:ptr[p + 1]]
            level[kids] = raw[kids].sum()
        # pre-order over the fair-share children (parents first)
        order = []
        stack = [0]
        while stack:
            v = stack.pop()
            order.append(v)
            stack.extend(children[ptr[v]:ptr[v + 1]][::-1].tolist())
        preorder = np.array(order, dtype=np.int64)
        # Fair Tree's sibling shares and classic normalised shares
        own = np.zeros(n)                              # raw / level, 0 when the level is 0
        for v in range(1, n):
            own[v] = raw[v] / level[v] if level[v] > 0 else 0.0
        sib = np.zeros(n)
        for v in range(1, n):
            sib[v] = own[fs_parent[v]] if use_parent[v] else own[v]
        norm = np.ones(n)
        for v in preorder[1:]:
            if use_parent[v]:
                norm[v] = norm[fs_parent[v]]
            else:
                # product over the direct-parent chain, skipping "parent" ancestors
                s, a = 1.0, v
                while a > 0:
                    if not use_parent[a]:
                        s *= own[a]
                    a = parent[a]
                norm[v] = s
        node_user = np.full(n, -1, dtype=np.int64)
        node_user[n_acc:] = np.arange(n_users)
        self._names = names
        self._n_accounts = n_acc
        self._is_user = frozen(is_user)
        self._parent = frozen(parent)
        self._fs_parent = frozen(fs_parent)
        self._use_parent = frozen(use_parent)
        self._raw = frozen(raw)
        self._level = frozen(level)
        self._sib = frozen(sib)
        self._norm = frozen(norm)
        self._preorder = frozen(preorder)
        self._ptr = frozen(ptr)
        self._children = frozen(children)
        self._user_nodes = frozen(np.arange(n_acc, n, dtype=np.int64))
        self._node_user = frozen(node_user)
        self._lines = tuple([accounts[a].get("line") for a in acc_names] + [users[u]["line"] for u in user_names])
        self._attributes = self._attribute_arrays([accounts[a]["attrs"] for a in acc_names]
                                                  + [users[u]["attrs"] for u in user_names])
        self._check_attributes(src)

    def _attribute_arrays(self, per_node: list[dict[str, Any]]) -> dict[str, np.ndarray]:
        n, r = len(per_node), len(self._resources)
        out: dict[str, np.ndarray] = {}
        for key, (_, shape, _) in NODE_ATTRIBUTES.items():
            if shape == "bool":
                arr = np.full(n, -1, dtype=np.int8)
                for v, attrs in enumerate(per_node):
                    if key in attrs:
                        arr[v] = int(attrs[key])
            elif shape == "scalar":
                arr = np.full(n, np.nan)
                for v, attrs in enumerate(per_node):
                    if key in attrs:
                        arr[v] = attrs[key]
            else:
                arr = np.full((n, r), np.nan)
                col = {name: k for k, name in enumerate(self._resources)}
                for v, attrs in enumerate(per_node):
                    for res, val in attrs.get(key, {}).items():
                        arr[v, col[res]] = val
            out[key] = frozen(arr)
        return out

    def _check_attributes(self, src: str) -> None:
        at = self._attributes

        def fail(v: int, field: str, value: Any, what: str) -> None:
            who = f"{'user' if self._is_user[v] else 'account'} {self._names[v]!r}"
            raise InvalidInstanceError(f"{_where(src, self._lines[v])}: {field}={value!r} of {who} {what}",
                                       argument=field, index=(v,), value=value)

        def per_res(v: int, field: str, k: int) -> str:
            return f"{field}[{self._resources[k]}]"

        for v in range(self.n_nodes):
            q, qd = at["quota"][v], at["quota_dynamic"][v]
            if not np.isnan(q) and q < 0:
                fail(v, "quota", float(q), "must be >= 0")
            if not np.isnan(qd) and not 0 <= qd <= 1:
                fail(v, "quota_dynamic", float(qd), "must be in [0, 1] (a fraction of the parent's quota)")
            if not np.isnan(q) and not np.isnan(qd):
                fail(v, "quota_dynamic", float(qd), f"cannot be given together with quota={float(q)!r}")
            pf = at["prio_factor"][v]
            if not np.isnan(pf) and pf < 1:
                fail(v, "prio_factor", float(pf), "must be >= 1 (HTCondor's smallest priority factor)")
            w = at["weight"][v]
            if not np.isnan(w) and w < 0:
                fail(v, "weight", float(w), "must be >= 0")
            hw = at["hdrf_weight"][v]
            if not np.isnan(hw) and hw <= 0:
                fail(v, "hdrf_weight", float(hw), "must be > 0")
            th = at["fair_share_preemption_threshold"][v]
            if not np.isnan(th) and not 0 <= th <= 1:
                fail(v, "fair_share_preemption_threshold", float(th), "must be in [0, 1] (a fraction of the fair share)")
            for field in ("fair_share_preemption_timeout", "min_share_preemption_timeout"):
                x = at[field][v]
                if not np.isnan(x) and x < 0:
                    fail(v, field, float(x), "must be >= 0 (seconds)")
            for field in ("nominal_quota", "borrowing_limit", "lending_limit", "min_share", "max_share", "capability",
                          "guarantee"):
                row = at[field][v]
                for k in range(row.shape[0]):
                    if not np.isnan(row[k]) and row[k] < 0:
                        fail(v, per_res(v, field, k), float(row[k]), "must be >= 0")
            for field in ("borrowing_limit", "lending_limit"):
                if np.any(~np.isnan(at[field][v])) and self._parent[v] == 0:
                    fail(v, field, {self._resources[k]: float(x) for k, x in enumerate(at[field][v]) if not np.isnan(x)},
                         "needs a cohort: a queue directly under root has none (put it under a cohort account)")
            lend, nom = at["lending_limit"][v], at["nominal_quota"][v]
            for k in range(lend.shape[0]):
                if not np.isnan(lend[k]) and (np.isnan(nom[k]) or lend[k] > nom[k]):
                    fail(v, per_res(v, "lending_limit", k), float(lend[k]),
                         f"must be at most nominal_quota[{self._resources[k]}]="
                         f"{None if np.isnan(nom[k]) else float(nom[k])!r}")
            for low, high in (("min_share", "max_share"), ("guarantee", "capability")):
                lo, hi = at[low][v], at[high][v]
                for k in range(lo.shape[0]):
                    if not np.isnan(lo[k]) and not np.isnan(hi[k]) and hi[k] < lo[k]:
                        fail(v, per_res(v, high, k), float(hi[k]), f"must be >= {low}={float(lo[k])!r}")

    # ---- constructors ------------------------------------------------------------------------
    @classmethod
    def flat(cls, users: Sequence[Any], shares: Sequence[float] | None = None, **kwargs: Any) -> "AccountTree":
        """A flat tree: every user directly under ``root`` (one share each unless ``shares`` is given).

        Parameters
        ----------
        users : sequence
            User names (converted with ``str``; a workload's integer user ids work).
        shares : sequence of float, optional
            Raw shares of each user (default 1 each).
        **kwargs
            Passed to :class:`AccountTree` (``zero_shares``, ``resources``).

        Returns
        -------
        AccountTree

        Examples
        --------
        >>> t = AccountTree.flat([3, 7], shares=[1, 3])
        >>> t.user_names, t.normalized_shares[t.user_nodes].tolist()
        (('3', '7'), [0.25, 0.75])
        """
        users = list(users)
        if shares is not None and len(shares) != len(users):
            raise InvalidInstanceError(f"shares has {len(shares)} entries for {len(users)} users",
                                       argument="shares", value=len(shares))
        recs = [{"user": str(u), **({} if shares is None else {"shares": shares[k]})} for k, u in enumerate(users)]
        return cls(recs, **kwargs)

    # ---- views -------------------------------------------------------------------------------
    @property
    def names(self) -> tuple[str, ...]:
        return self._names

    @property
    def n_nodes(self) -> int:
        return len(self._names)

    @property
    def n_users(self) -> int:
        return len(self._names) - self._n_accounts

    @property
    def user_names(self) -> tuple[str, ...]:
        return self._names[self._n_accounts:]

    @property
    def account_names(self) -> tuple[str, ...]:
        return self._names[:self._n_accounts]

    @property
    def resources(self) -> tuple[str, ...]:
        return self._resources

    @property
    def is_user(self) -> np.ndarray:
        return self._is_user

    @property
    def parent(self) -> np.ndarray:
        return self._parent

    @property
    def fs_parent(self) -> np.ndarray:
        return self._fs_parent

    @property
    def use_parent(self) -> np.ndarray:
        return self._use_parent

    @property
    def raw_shares(self) -> np.ndarray:
        return self._raw

    @property
    def level_shares(self) -> np.ndarray:
        return self._level

    @property
    def normalized_shares(self) -> np.ndarray:
        return self._norm

    @property
    def sibling_shares(self) -> np.ndarray:
        return self._sib

    @property
    def preorder(self) -> np.ndarray:
        return self._preorder

    @property
    def fs_child_ptr(self) -> np.ndarray:
        return self._ptr

    @property
    def fs_children(self) -> np.ndarray:
        return self._children

    @property
    def user_nodes(self) -> np.ndarray:
        return self._user_nodes

    @property
    def node_user(self) -> np.ndarray:
        return self._node_user

    def where(self, v: int) -> str:
        """``source:line`` of node ``v``'s record (just the source when it has no line), for error messages.

        Parameters
        ----------
        v : int
            A node index.

        Returns
        -------
        str

        Examples
        --------
        >>> AccountTree([{"account": "A", "line": 7}], source="acct.yaml").where(1)
        'acct.yaml:7'
        """
        return _where(self._source, self._lines[v])

    def node(self, name: str, *, user: bool | None = None) -> int:
        """Index of the node called ``name`` (accounts first unless ``user=True``).

        Parameters
        ----------
        name : str
            An account or user name.
        user : bool, optional
            ``True``: look among users only; ``False``: accounts only; ``None`` (default): accounts,
            then users.

        Returns
        -------
        int

        Raises
        ------
        InvalidInstanceError
            No such node (the message lists a few names).

        Examples
        --------
        >>> t = AccountTree([{"account": "A"}, {"user": "u", "account": "A"}])
        >>> t.node("A"), t.node("u")
        (1, 2)
        """
        if user is not True:
            for v in range(self._n_accounts):
                if self._names[v] == name:
                    return v
        if user is not False:
            for v in range(self._n_accounts, self.n_nodes):
                if self._names[v] == name:
                    return v
        kind = "user" if user else "account" if user is False else "account or user"
        raise InvalidInstanceError(f"unknown {kind} {name!r}; known: {list(self._names[:8])}"
                                   f"{' ...' if self.n_nodes > 8 else ''}", argument="name", value=name)

    def user_index(self, users: Sequence[Any]) -> np.ndarray:
        """User number of each entry of ``users`` (names, or a workload's integer ids, matched by ``str``).

        Parameters
        ----------
        users : sequence
            One user per job (or any list of users).

        Returns
        -------
        ndarray of int64
            Positions in :attr:`user_names`.

        Raises
        ------
        InvalidInstanceError
            A user the tree does not have (the message names the first one, its position and how many).

        Examples
        --------
        >>> AccountTree.flat([3, 7]).user_index([7, 7, 3]).tolist()
        [1, 1, 0]
        """
        lookup = {name: k for k, name in enumerate(self.user_names)}
        out = np.empty(len(users), dtype=np.int64)
        missing = []
        for k, u in enumerate(users):
            j = lookup.get(str(u), -1)
            if j < 0:
                missing.append((k, u))
            out[k] = j
        if missing:
            k, u = missing[0]
            raise InvalidInstanceError(f"users[{k}]={u!r} has no association in the account tree "
                                       f"({len(missing)} entries without one); add it to an account",
                                       argument="users", index=(k,), value=u)
        return out

    def attribute(self, name: str) -> np.ndarray:
        """The per-node array of a field of :data:`NODE_ATTRIBUTES` (``NaN``, or -1 for booleans, = unset).

        Parameters
        ----------
        name : str
            A key of :data:`NODE_ATTRIBUTES`.

        Returns
        -------
        ndarray
            Shape (n_nodes,) or (n_nodes, len(resources)); read-only.

        Examples
        --------
        >>> t = AccountTree([{"account": "phys", "quota": 20, "accept_surplus": True}])
        >>> t.attribute("quota").tolist(), t.attribute("accept_surplus").tolist()
        ([nan, 20.0], [-1, 1])
        """
        if name not in self._attributes:
            raise InvalidInstanceError(f"unknown node field {name!r}; fields: {sorted(self._attributes)}",
                                       argument="name", value=name)
        return self._attributes[name]

    def subtree_sum(self, user_values: np.ndarray) -> np.ndarray:
        """Per node, the sum of ``user_values`` over the users below it (its own value for a user).

        Slurm adds a job's usage to its user association and every ancestor (``parent_assoc_ptr``), so an
        account's raw usage is this sum over its direct-parent subtree.

        Parameters
        ----------
        user_values : array_like, shape (n_users,)

        Returns
        -------
        ndarray, shape (n_nodes,)

        Examples
        --------
        >>> t = AccountTree([{"account": "A"}, {"user": "x", "account": "A"}, {"user": "y"}])
        >>> t.subtree_sum([2.0, 5.0]).tolist()                    # root, A, x, y
        [7.0, 2.0, 2.0, 5.0]
        """
        vals = np.asarray(user_values, dtype=float)
        if vals.shape != (self.n_users,):
            raise InvalidInstanceError(f"user_values must have shape ({self.n_users},), got {vals.shape}",
                                       argument="user_values", value=vals.shape)
        out = np.empty(self.n_nodes)
        subtree_sum_into(self._parent, self._user_nodes, vals, out)
        return out

    def __repr__(self) -> str:
        return (f"AccountTree({self._n_accounts} accounts, {self.n_users} users"
                f"{', resources=' + str(list(self._resources)) if self._resources else ''}, source={self._source!r})")


def subtree_sum_into(parent, user_nodes, user_values, out) -> None:
    """:meth:`AccountTree.subtree_sum` written into ``out`` (a plain loop that numba compiles).

    Parameters
    ----------
    parent : ndarray of int64, shape (n_nodes,)
        :attr:`AccountTree.parent`.
    user_nodes : ndarray of int64, shape (n_users,)
        :attr:`AccountTree.user_nodes`.
    user_values : ndarray of float, shape (n_users,)
    out : ndarray of float, shape (n_nodes,)
        Overwritten with the per-node sums.

    Examples
    --------
    >>> t = AccountTree([{"account": "A"}, {"user": "x", "account": "A"}, {"user": "y"}])
    >>> out = np.empty(4); subtree_sum_into(t.parent, t.user_nodes, np.array([2.0, 5.0]), out); out.tolist()
    [7.0, 2.0, 2.0, 5.0]
    """
    for v in range(len(out)):
        out[v] = 0.0
    for k in range(len(user_nodes)):
        x = user_values[k]
        a = user_nodes[k]
        while a >= 0:
            out[a] += x
            a = parent[a]


# ---- files -------------------------------------------------------------------------------------
_CSV_ALIASES = {"account": "account", "parent": "parent", "parentname": "parent", "par name": "parent",
                "user": "user", "shares": "shares", "share": "shares", "rawshares": "shares", "fairshare": "shares"}
#: sacctmgr columns that say nothing about shares or the tree: read and ignored (one warning).
_SACCTMGR_IGNORED = {"cluster", "partition", "priority", "grpjobs", "grpjobsaccrue", "grptres", "grpsubmit",
                     "grpwall", "grptresmins", "grptresrunmins", "maxjobs", "maxjobsaccrue", "maxtres",
                     "maxtrespernode", "maxsubmit", "maxwall", "maxtresmins", "maxtresrunmins", "qos",
                     "def qos", "defqos", "id", "lft", "rgt", "parentid", "parent id", "grpcpus", "grpnodes",
                     "maxcpus", "maxnodes", "maxcpumins", "grpcpumins", "grpcpurunmins", "comment", "lineage",
                     "flags"}


def _yaml_records(path: Path, text: str) -> tuple[list[dict[str, Any]], list[str] | None]:
    """Records (with ``line``) and resources of an accounts YAML file.

    The data from fairalloc's one strict YAML reader (:func:`fairalloc.io.parse_yaml`: YAML 1.2
    numbers, duplicate keys refused with their line, aliases bounded), the line of each list item from
    :func:`yaml.compose` of the same text (nodes only: no value is read from it).
    """
    import yaml

    from .io import parse_yaml

    data = parse_yaml(text, str(path))
    root = yaml.compose(text)
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise InvalidInstanceError(f"{path}: the top level must be a mapping with 'accounts' and/or 'users', "
                                   f"got {type(data).__name__}", argument="path", value=str(path))
    unknown = set(data) - {"accounts", "users", "resources", "root"}
    if unknown:
        raise InvalidInstanceError(f"{path}: unknown key(s) {sorted(unknown)}; allowed: "
                                   "['accounts', 'resources', 'root', 'users']", argument=sorted(unknown)[0],
                                   value=sorted(unknown))
    lines: dict[str, list[int]] = {}
    for key_node, value_node in root.value if isinstance(root, yaml.MappingNode) else []:
        if isinstance(value_node, yaml.SequenceNode):
            lines[key_node.value] = [item.start_mark.line + 1 for item in value_node.value]
    recs: list[dict[str, Any]] = []
    for section, name_key in (("accounts", "account"), ("users", "user")):
        items = data.get(section) or []
        if not isinstance(items, list):
            raise InvalidInstanceError(f"{path}: '{section}' must be a list of records", argument=section,
                                       value=items)
        for i, item in enumerate(items):
            line = lines.get(section, [None] * len(items))[i]
            if not isinstance(item, Mapping):
                raise InvalidInstanceError(f"{path}:{line}: {section}[{i}] must be a mapping, got {item!r}",
                                           argument=section, index=(i,), value=item)
            rec = dict(item)
            if "name" not in rec:
                raise InvalidInstanceError(f"{path}:{line}: {section}[{i}] needs a 'name'", argument="name",
                                           index=(i,), value=dict(item))
            if name_key in rec:
                raise InvalidInstanceError(f"{path}:{line}: {section}[{i}] has '{name_key}'; write its name as "
                                           "'name'" + (" and its account as 'account'" if section == "users" else ""),
                                           argument=name_key, index=(i,), value=rec[name_key])
            rec[name_key] = rec.pop("name")
            rec["line"] = line
            recs.append(rec)
    if data.get("root") is not None:
        if not isinstance(data["root"], Mapping):
            raise InvalidInstanceError(f"{path}: 'root' must be a mapping of the root account's fields",
                                       argument="root", value=data["root"])
        recs.insert(0, {"account": ROOT, **data["root"]})
    resources = data.get("resources")
    if resources is not None and (not isinstance(resources, list) or not all(isinstance(r, str) for r in resources)):
        raise InvalidInstanceError(f"{path}: 'resources' must be a list of names, got {resources!r}",
                                   argument="resources", value=resources)
    return recs, resources


def _csv_records(path: Path, text: str) -> tuple[list[dict[str, Any]], list[str]]:
    rows = [(k, r) for k, r in enumerate(text.splitlines(), start=1) if r.strip() and not r.lstrip().startswith("#")]
    if not rows:
        raise InvalidInstanceError(f"{path}: no header row", argument="path", value=str(path))
    delim = "|" if "|" in rows[0][1] else ","
    parsed = [(k, next(csv.reader([r], delimiter=delim))) for k, r in rows]
    header_line, header = parsed[0]
    if header and header[-1] == "":
        header = header[:-1]                           # `sacctmgr -p` ends each line with '|'
    cols: dict[str, int] = {}
    ignored, resources = [], []
    attr_cols: dict[int, tuple[str, str | None]] = {}
    for j, h in enumerate(header):
        key = h.strip().lower()
        if key in _CSV_ALIASES:
            name = _CSV_ALIASES[key]
            if name in cols:
                raise InvalidInstanceError(f"{path}:{header_line}: two columns give {name!r}: "
                                           f"{header[cols[name]]!r} and {h!r}", argument=name, value=h)
            cols[name] = j
        elif key.split(":", 1)[0] in NODE_ATTRIBUTES:
            field, _, res = h.strip().partition(":")
            if NODE_ATTRIBUTES[field.lower()][1] == "per_resource":
                if not res:
                    raise InvalidInstanceError(f"{path}:{header_line}: column {h!r} needs a resource, "
                                               f"e.g. '{field}:cpu'", argument=field, value=h)
                if res not in resources:
                    resources.append(res)
            attr_cols[j] = (field.lower(), res or None)
        elif key in _SACCTMGR_IGNORED:
            ignored.append(h)
        else:
            raise InvalidInstanceError(f"{path}:{header_line}: unknown column {h!r}; columns: Account, ParentName, "
                                       f"User, Share, and the node fields {sorted(NODE_ATTRIBUTES)}",
                                       argument=h, value=h)
    for need in ("account", "user", "shares"):
        if need not in cols:
            raise InvalidInstanceError(f"{path}:{header_line}: the header {header} has no {need!r} column "
                                       "(sacctmgr show assoc format=Account,ParentName,User,Share -P)",
                                       argument=need, value=header)
    if ignored:
        warnings.warn(f"{path}: columns {ignored} say nothing about shares and are ignored", FairallocWarning,
                      stacklevel=3)
    recs: list[dict[str, Any]] = []
    for line, row in parsed[1:]:
        if len(row) == len(header) + 1 and row[-1] == "":
            row = row[:-1]
        if len(row) != len(header):
            raise InvalidInstanceError(f"{path}:{line}: {len(row)} fields, the header has {len(header)}",
                                       argument="path", value=row)
        acc = row[cols["account"]].strip()
        user = row[cols["user"]].strip()
        shares = row[cols["shares"]].strip()
        rec: dict[str, Any] = {"line": line}
        if shares:
            rec["shares"] = shares
        if user:
            rec.update(user=user, account=acc)
        else:
            if not acc:
                raise InvalidInstanceError(f"{path}:{line}: a row needs an account", argument="account", value=row)
            rec["account"] = acc
            if "parent" in cols:
                rec["parent"] = row[cols["parent"]].strip()
            elif acc != ROOT:
                raise InvalidInstanceError(f"{path}:{line}: account {acc!r} needs its parent: add a ParentName column",
                                           argument="parent", value=acc)
        for j, (field, res) in attr_cols.items():
            cell = row[j].strip()
            if not cell:
                continue
            if res is None:
                rec[field] = cell
            else:
                rec.setdefault(field, {})[res] = cell
        if acc == ROOT and not user:
            rec.pop("shares", None)                    # root's share is not used
            rec.pop("parent", None)
        recs.append(rec)
    return recs, resources


def read_accounts(path: str | Path, *, zero_shares: str = "error") -> AccountTree:
    """Read an account tree from a YAML or CSV file (``sacctmgr`` association output works as CSV).

    *YAML*::

        resources: [cpu, mem]                  # optional: names for per-resource fields
        accounts:
          - {name: A, shares: 40}              # parent defaults to root, shares to 1
          - {name: B, parent: A, shares: 30}
        users:
          - {name: alice, account: B}          # shares default to 1; "parent" = FairShare=parent

    *CSV* (``,`` or ``|`` separated; the output of ``sacctmgr show assoc
    format=Account,ParentName,User,Share -P``): a row without a user is an account (its ``ParentName``
    is its parent; the ``root`` row may be left out), a row with a user is that user's association.
    Columns named after :data:`NODE_ATTRIBUTES` give those fields (``nominal_quota:cpu`` for a
    per-resource one); other sacctmgr columns (Cluster, QOS, Grp*/Max* limits) are ignored with a
    warning; any other column is refused.

    Parameters
    ----------
    path : str or pathlib.Path
        ``.yaml``/``.yml``, or ``.csv``/``.txt``/``.psv``.
    zero_shares : {"error", "allow"}, optional
        As :class:`AccountTree`.

    Returns
    -------
    AccountTree
        With the file name as its source.

    Raises
    ------
    FileNotFoundError
        No such file.
    InvalidInstanceError
        Not valid YAML/CSV, an unknown key or column, or anything :class:`AccountTree` refuses; the
        message gives the file and line.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = pathlib.Path(d) / "assoc.txt"
    ...     _ = p.write_text("Account|Par Name|User|Share\\nroot|||1\\nA|root||40\\nA||u1|1\\nD|root||60\\n"
    ...                      "D||u2|1\\n")
    ...     t = read_accounts(p)
    >>> t.names, t.normalized_shares.tolist()
    (('root', 'A', 'D', 'u1', 'u2'), [1.0, 0.4, 0.6, 0.4, 0.6])
    """
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"accounts file not found: {p}")
    from .io import _read_text                       # UTF-8 check, as every instance file

    text = _read_text(p)
    suffix = p.suffix.lower()
    if suffix in (".yaml", ".yml"):
        recs, resources = _yaml_records(p, text)
    elif suffix in (".csv", ".txt", ".psv"):
        recs, resources = _csv_records(p, text)
    else:
        raise InvalidInstanceError(f"{p}: unknown file type {suffix!r}; use .yaml, .yml, .csv, .txt or .psv",
                                   argument="path", value=str(p))
    return AccountTree(recs, resources=resources, zero_shares=zero_shares, source=str(p))
