r"""Delivered against entitled share per user and per account over time windows, Jain's index, the
promised-vs-delivered gap: computed from a :class:`~fairalloc.sim.SimulationResult`'s public tables
(``jobs``, ``launches``, ``capacity``, ``resource_names``) and an :class:`~fairalloc.accounts.AccountTree`.

Definitions (windows :math:`w = [a_w, b_w)` of length :math:`L_w`; times in the trace's unit):

* **Resource-time** :math:`R_{ir}(w)`: the amount of resource :math:`r` user :math:`i`'s jobs held in
  :math:`w`, :math:`\sum_j q_{jr}\,|[s_j, e_j) \cap w|` over its jobs (rigid jobs: processors; task
  workloads: every launch, its tasks times the per-task demand).
* **Charge** of user :math:`i` in :math:`w`, a fraction of the cluster over the window: with
  ``charge="dominant"`` (default) the dominant share of its resource-time,
  :math:`c_i(w) = \max_r R_{ir}(w) / (C_r L_w)` (:func:`fairalloc.shares.dominant_shares`, DRF's
  dominant share; Slurm's ``PriorityFlags=MAX_TRES`` charges the same way); with ``charge=NAME`` the
  share of that one resource. On a single resource (processors) both are the share of the
  capacity-time the user held.
* **Node usage**: an account's charge is the sum of its users' (Slurm adds a job's usage to its user
  association and every ancestor: :meth:`AccountTree.subtree_sum <fairalloc.accounts.AccountTree.subtree_sum>`).
* **Delivered share** ``delivered_capacity`` :math:`= c_v(w)`: the fraction of the whole cluster the node
  received in the window (flux-sched #282's "percentage of the cluster provided"); ``delivered``
  :math:`= c_v(w) / c_{root}(w)`: its fraction of what was delivered in the window (sums to 1 over the
  users, and over any cut of the tree; NaN in a window where nothing ran).
* **Entitled share** ``entitled``: the node's normalised share, the product of
  :math:`S^{raw}/S^{siblings}` down the tree (:attr:`AccountTree.normalized_shares
  <fairalloc.accounts.AccountTree.normalized_shares>`, Slurm's classic definition). Fixed over time.
* **Active**: a user is active in :math:`w` when one of its admitted jobs was in the system during it
  (submitted before :math:`b_w` and not finished by :math:`a_w`: pending or running); an account when
  one of its users is. ``entitled_active``: the same normalised shares with the raw shares of the
  inactive nodes set to 0 (an idle node's share goes to its active siblings, level by level; computed by
  :class:`~fairalloc.accounts.AccountTree` itself, ``zero_shares="allow"``); 0 for inactive nodes.
* **Jain's index** of a level in a window (R. Jain, D. Chiu, W. Hawe, "A quantitative measure of
  fairness and discrimination for resource allocation in shared computer systems", DEC-TR-301, 1984,
  Eq. 1): :math:`J(x) = (\sum_i x_i)^2 / (n \sum_i x_i^2)` over the :math:`n` active entities, with
  :math:`x_i` = ``delivered`` / ``entitled_active`` (1 when every entity got exactly its entitlement among
  the active ones; :math:`1/n` when one got everything). NaN when no active entity received anything.
* **Promised-vs-delivered gap** (flux-sched issue #282, S. Herbein, 2017: "a simple sum of squared
  residuals ... comparing the percentage of the cluster provided to each user against the promised
  percentage of the cluster"): per window,

  - ``gap`` :math:`= \sum_{i\ \mathrm{active}} (\mathrm{delivered}_i - \mathrm{entitled\_active}_i)^2`,
    the residuals of the share of what was delivered against the share promised among the entities
    that wanted service (what a policy controls);
  - ``gap_flux`` :math:`= \sum_{i} (\mathrm{delivered\_capacity}_i - \mathrm{entitled}_i)^2` over every
    entity of the level, the issue's literal form (idle capacity and idle users count against it).

  The summary is the mean over the windows in which anything ran.

Levels: ``user`` (every user of the tree) and ``account`` (every account but the root in the window
table; Jain's index and the gaps over the *top-level* accounts, the root's children, which partition
the cluster). A flat tree has no accounts: the account figures are NaN.

Examples
--------
Three users, FCFS on 4 processors, each job 2 processors (the hand computation of
``tests/unit/experiments/test_share_metrics.py``): ``1`` and ``2`` run at 0, ``3`` waits for ``2``:

>>> import fairalloc as fa
>>> from fairalloc.accounts import AccountTree
>>> wl = fa.workloads.Workload(submit=[0, 0, 0], run_time=[10, 5, 10], processors=[2, 2, 2], user=[1, 2, 3])
>>> r = fa.simulate(wl, 4, policy="fcfs")
>>> t = share_windows(r, AccountTree.flat([1, 2, 3]), windows=3)
>>> t[t.level == "user"].pivot(index="entity", columns="window", values="delivered").values.tolist()
[[0.5, 0.5, 0.0], [0.5, 0.0, 0.0], [0.0, 0.5, 1.0]]
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..accounts import AccountTree
from ..errors import InvalidInstanceError
from ..shares import dominant_shares

__all__ = ["window_edges", "resource_time", "share_windows", "share_summary", "entity_table", "jain_index",
           "active_shares", "tree_records"]


def jain_index(x: Any) -> float:
    r"""Jain's fairness index :math:`(\sum x_i)^2 / (n \sum x_i^2)` (Jain, Chiu, Hawe 1984, Eq. 1).

    Parameters
    ----------
    x : array_like, shape (n,)
        Non-negative allocations (here: delivered / entitled share of each active entity).

    Returns
    -------
    float
        In :math:`[1/n, 1]`; NaN for an empty vector or one of zeros.

    Examples
    --------
    >>> jain_index([1, 1, 1]), round(jain_index([1, 2, 3]), 6), jain_index([1, 0, 0, 0])
    (1.0, 0.857143, 0.25)
    """
    v = np.asarray(x, dtype=float)
    if v.ndim != 1:
        raise InvalidInstanceError(f"x must be one-dimensional, got shape {v.shape}", argument="x", value=v.shape)
    if np.any(v < 0) or not np.all(np.isfinite(v)):
        k = int(np.flatnonzero((v < 0) | ~np.isfinite(v))[0])
        raise InvalidInstanceError(f"x[{k}]={float(v[k])!r} must be finite and >= 0", argument="x", index=(k,),
                                   value=float(v[k]))
    sq = float((v * v).sum())
    if v.size == 0 or sq == 0.0:
        return float("nan")
    return float(v.sum() ** 2 / (v.size * sq))


def window_edges(result: Any, *, windows: int | None = 12, window: float | None = None) -> np.ndarray:
    """Window boundaries over the run: from the first submit to the last end of a finished job.

    Parameters
    ----------
    result : SimulationResult
    windows : int, default 12
        Number of equal windows (ignored when ``window`` is given).
    window : float, optional
        Window length in the trace's time unit (seconds); the last window may be shorter.

    Returns
    -------
    ndarray, shape (W + 1,)

    Examples
    --------
    >>> import fairalloc as fa
    >>> r = fa.simulate(fa.workloads.Workload(submit=[0, 0], run_time=[10, 5], processors=[2, 2]), 2)
    >>> window_edges(r, windows=3).tolist(), window_edges(r, window=4).tolist()
    ([0.0, 5.0, 10.0, 15.0], [0.0, 4.0, 8.0, 12.0, 15.0])
    """
    j = result.jobs
    fin = j[j["finished"].to_numpy()]
    if not len(fin):
        raise InvalidInstanceError("the simulation finished no job: there is no window to measure",
                                   argument="result", value=len(j))
    lo, hi = float(j["submit"].min()), float(fin["end"].max())
    if not hi > lo:
        hi = lo + 1.0
    if window is not None:
        w = float(window)
        if not (np.isfinite(w) and w > 0):
            raise InvalidInstanceError(f"window={window!r} must be a positive length of time",
                                       argument="window", value=window)
        edges = np.arange(lo, hi, w)
        return np.append(edges, hi)
    if isinstance(windows, bool) or not isinstance(windows, (int, np.integer)) or windows < 1:
        raise InvalidInstanceError(f"windows={windows!r} must be a positive int", argument="windows", value=windows)
    return np.linspace(lo, hi, int(windows) + 1)


def _user_index(tree: AccountTree, users: np.ndarray) -> np.ndarray:
    """Tree user number of each entry of ``users`` (a result's user column); a user the tree lacks is
    named in the error."""
    uniq, inv = np.unique(users, return_inverse=True)
    if not len(uniq):
        return np.zeros(0, dtype=np.int64)
    names = set(tree.user_names)
    missing = [u for u in uniq.tolist() if str(u) not in names]
    if missing:
        raise InvalidInstanceError(f"user {missing[0]!r} of the simulation has no association in the account tree "
                                   f"({len(missing)} users without one, of {len(uniq)}); add it to an account",
                                   argument="accounts", value=missing[0])
    return tree.user_index(uniq.tolist())[inv]


def _intervals(result: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(user, start, end, amounts (n, K)) of every busy interval of the run."""
    jobs = result.jobs
    lf = result.launches
    if lf is None:
        amt = jobs["processors"].to_numpy(float)[:, None]
        return (jobs["user"].to_numpy(), jobs["start"].to_numpy(float), jobs["end"].to_numpy(float), amt)
    user_of_row = pd.Series(jobs["user"].to_numpy(), index=jobs["row"].to_numpy())
    users = user_of_row.loc[lf["job"].to_numpy()].to_numpy()
    if all(f"amount:{n}" in lf for n in result.resource_names):
        amt = np.column_stack([lf[f"amount:{n}"].to_numpy(float) for n in result.resource_names])
    else:
        amt = lf["amount"].to_numpy(float)[:, None]
    return users, lf["start"].to_numpy(float), lf["end"].to_numpy(float), amt


def resource_time(result: Any, tree: AccountTree, edges: Any) -> np.ndarray:
    """:math:`R_{ir}(w)`: resource-time of each tree user in each window, shape (n_users, W, K).

    Parameters
    ----------
    result : SimulationResult
    tree : AccountTree
        Its users are matched with the result's by ``str`` (a workload's integer ids work).
    edges : array_like, shape (W + 1,)

    Returns
    -------
    ndarray, shape (n_users, W, K)
        Users in the tree's order; ``K`` the run's resources (1 for rigid jobs: processors).

    Raises
    ------
    InvalidInstanceError
        A user of the result that the tree does not have (naming it).

    Examples
    --------
    Two jobs of 2 processors, [0, 10) and [0, 5), in two windows of 5 s:

    >>> import fairalloc as fa
    >>> r = fa.simulate(fa.workloads.Workload(submit=[0, 0], run_time=[10, 5], processors=[2, 2],
    ...                                       user=[7, 8]), 4)
    >>> resource_time(r, AccountTree.flat([7, 8]), [0, 5, 10])[:, :, 0].tolist()
    [[10.0, 10.0], [10.0, 0.0]]
    """
    users, s, e, amt = _intervals(result)
    ok = ~(np.isnan(s) | np.isnan(e))
    users, s, e, amt = users[ok], s[ok], e[ok], amt[ok]
    idx = _user_index(tree, users)
    edges = np.asarray(edges, dtype=float)
    out = np.zeros((tree.n_users, len(edges) - 1, amt.shape[1]))
    for w in range(len(edges) - 1):
        ov = np.clip(np.minimum(e, edges[w + 1]) - np.maximum(s, edges[w]), 0.0, None)
        for k in range(amt.shape[1]):
            out[:, w, k] = np.bincount(idx, weights=ov * amt[:, k], minlength=tree.n_users)
    return out


def _active_users(result: Any, tree: AccountTree, edges: np.ndarray) -> np.ndarray:
    """(n_users, W) bool: some admitted job of the user pending or running in the window."""
    j = result.jobs
    sub = j["submit"].to_numpy(float)
    end = j["end"].to_numpy(float)
    end = np.where(np.isnan(end), np.inf, end)
    idx = _user_index(tree, j["user"].to_numpy())
    out = np.zeros((tree.n_users, len(edges) - 1), dtype=bool)
    for w in range(len(edges) - 1):
        hit = (sub < edges[w + 1]) & (end > edges[w])
        out[np.unique(idx[hit]), w] = True
    return out


def tree_records(tree: AccountTree, keep: Any = None) -> list[dict[str, Any]]:
    """The tree's associations as :class:`~fairalloc.accounts.AccountTree` records (accounts first, in
    node order), with the raw shares of the nodes not in ``keep`` set to 0.

    Parameters
    ----------
    tree : AccountTree
    keep : array_like of bool, shape (n_nodes,), optional
        Default: every node keeps its shares (``AccountTree(tree_records(t))`` is ``t`` again).

    Returns
    -------
    list of dict
        ``{"account", "parent", "shares"}`` and ``{"user", "account", "shares"}`` records (``shares``
        a float, or ``"parent"``).

    Examples
    --------
    >>> t = AccountTree([{"account": "A", "shares": 2}, {"user": "x", "account": "A"}, {"user": "y"}])
    >>> tree_records(t)
    [{'account': 'A', 'shares': 2.0, 'parent': 'root'}, {'user': 'x', 'shares': 1.0, 'account': 'A'}, {'user': 'y', 'shares': 1.0, 'account': 'root'}]
    >>> AccountTree(tree_records(t)).normalized_shares.tolist() == t.normalized_shares.tolist()
    True
    """
    names, parent, raw, usep, is_user = (tree.names, tree.parent, tree.raw_shares, tree.use_parent, tree.is_user)
    keep = np.ones(tree.n_nodes, dtype=bool) if keep is None else np.asarray(keep, dtype=bool)
    recs: list[dict[str, Any]] = []
    for v in range(1, tree.n_nodes):
        shares: Any = ("parent" if usep[v] else float(raw[v])) if keep[v] else 0.0
        rec = {"user" if is_user[v] else "account": names[v], "shares": shares}
        rec["account" if is_user[v] else "parent"] = names[parent[v]]
        recs.append(rec)
    return recs


def active_shares(tree: AccountTree, active_nodes: Any) -> np.ndarray:
    """Normalised shares with the inactive nodes' raw shares set to 0 (``entitled_active``), per node.

    Parameters
    ----------
    tree : AccountTree
    active_nodes : array_like of bool, shape (n_nodes,)
        The root counts as active.

    Returns
    -------
    ndarray, shape (n_nodes,)
        The :attr:`~fairalloc.accounts.AccountTree.normalized_shares` of the tree whose inactive nodes
        hold 0 shares (Slurm's meaning of 0 shares: nothing; siblings that all have 0 get 0).

    Examples
    --------
    Accounts A (2 shares: users x, y) and B (1 share: user z); y idle: x takes A's whole 2/3:

    >>> t = AccountTree([{"account": "A", "shares": 2}, {"account": "B"}, {"user": "x", "account": "A"},
    ...                  {"user": "y", "account": "A"}, {"user": "z", "account": "B"}])
    >>> [round(v, 4) for v in active_shares(t, [True, True, True, True, False, True]).tolist()]
    [1.0, 0.6667, 0.3333, 0.6667, 0.0, 0.3333]
    """
    keep = np.asarray(active_nodes, dtype=bool).copy()
    keep[0] = True
    if keep.all():
        return np.asarray(tree.normalized_shares, dtype=float)
    t = AccountTree(tree_records(tree, keep), zero_shares="allow", source=f"{tree!r} (active nodes)")
    order = [t.node(n, user=bool(u)) for n, u in zip(tree.names[1:], tree.is_user[1:])]
    out = np.zeros(tree.n_nodes)
    out[0] = 1.0
    out[1:] = t.normalized_shares[order]
    return np.where(keep, out, 0.0)


def _charge_index(result: Any, charge: str) -> int | None:
    if charge == "dominant":
        return None
    names = list(result.resource_names)
    if charge not in names:
        raise InvalidInstanceError(f"charge={charge!r} is neither 'dominant' nor a resource of the run "
                                   f"({', '.join(names)})", argument="charge", value=charge)
    return names.index(charge)


def share_windows(result: Any, tree: AccountTree, *, windows: int | None = 12, window: float | None = None,
                  charge: str = "dominant") -> pd.DataFrame:
    """Delivered and entitled shares of every user and account in every window (module docstring).

    Parameters
    ----------
    result : SimulationResult
    tree : AccountTree
        Every user of the result must be in it (matched by ``str``).
    windows, window
        As :func:`window_edges`.
    charge : {"dominant"} or str
        ``"dominant"`` (default) or the name of one resource of the run.

    Returns
    -------
    pandas.DataFrame
        One row per (level, entity, window): ``level`` (``"user"``/``"account"``), ``entity`` (name),
        ``account`` (top-level account of the entity; the user itself under a flat tree), ``window``,
        ``start``, ``end``, ``entitled``, ``entitled_active``, ``delivered``, ``delivered_capacity``,
        ``active``, ``usage`` (the charge in capacity-time: ``delivered_capacity`` x window length).
        ``attrs["top_accounts"]`` names the root's child accounts (the account level of
        :func:`share_summary`).

    Raises
    ------
    InvalidInstanceError
        A user missing from the tree, an unknown ``charge``, bad ``windows``/``window``, a run that
        finished no job.

    Examples
    --------
    Users 7 and 8 share one account, user 9 has its own of the same shares; 9 is idle:

    >>> import fairalloc as fa
    >>> tree = AccountTree([{"account": "A"}, {"account": "B"}, {"user": "7", "account": "A"},
    ...                     {"user": "8", "account": "A"}, {"user": "9", "account": "B"}])
    >>> r = fa.simulate(fa.workloads.Workload(submit=[0, 0], run_time=[10, 10], processors=[1, 3],
    ...                                       user=[7, 8]), 4)
    >>> t = share_windows(r, tree, windows=1)
    >>> t[["entity", "entitled", "entitled_active", "delivered"]].values.tolist()
    [['A', 0.5, 1.0, 1.0], ['B', 0.5, 0.0, 0.0], ['7', 0.25, 0.5, 0.25], ['8', 0.25, 0.5, 0.75], ['9', 0.5, 0.0, 0.0]]
    """
    edges = window_edges(result, windows=windows, window=window)
    k = _charge_index(result, charge)
    R = resource_time(result, tree, edges)                               # (n_users, W, K)
    W = len(edges) - 1
    lengths = np.diff(edges)
    cap = np.asarray(result.capacity, dtype=float)
    act_u = _active_users(result, tree, edges)
    top = _top_accounts(tree)
    is_user = np.asarray(tree.is_user)
    rows = []
    for w in range(W):
        per = R[:, w, :] / lengths[w]                                    # mean amount held over the window
        c_user = dominant_shares(per, cap) if k is None else per[:, k] / cap[k]
        c_node = tree.subtree_sum(c_user)
        act_node = tree.subtree_sum(act_u[:, w].astype(float)) > 0
        ent_act = active_shares(tree, act_node)
        total = c_node[0]
        delivered = c_node / total if total > 0 else np.full(tree.n_nodes, np.nan)
        rows.append(pd.DataFrame({
            "level": np.where(is_user[1:], "user", "account"), "entity": list(tree.names[1:]),
            "account": [tree.names[a] for a in top[1:]], "window": w, "start": edges[w], "end": edges[w + 1],
            "entitled": tree.normalized_shares[1:], "entitled_active": ent_act[1:],
            "delivered": delivered[1:], "delivered_capacity": c_node[1:], "active": act_node[1:],
            "usage": c_node[1:] * lengths[w]}))
    out = pd.concat(rows, ignore_index=True)
    out.attrs["top_accounts"] = [tree.names[v] for v in range(1, tree.n_nodes)
                                 if tree.parent[v] == 0 and not is_user[v]]
    return out


def _top_accounts(tree: AccountTree) -> np.ndarray:
    """Per node, its ancestor directly under the root (itself for a root child; 0 for the root)."""
    parent = np.asarray(tree.parent)
    out = np.zeros(tree.n_nodes, dtype=np.int64)
    for v in range(1, tree.n_nodes):
        a = v
        while parent[a] != 0:
            a = parent[a]
        out[v] = a
    return out


def _level_rows(table: pd.DataFrame, level: str) -> pd.DataFrame:
    if level == "user":
        return table[table["level"] == "user"]
    tops = set(table.attrs.get("top_accounts", []))
    return table[(table["level"] == "account") & table["entity"].isin(tops)]


def share_summary(table: pd.DataFrame) -> dict[str, float]:
    """Jain's index and the gaps per level, means over the windows in which anything ran.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`share_windows`' output (its ``attrs["top_accounts"]`` names the account level).

    Returns
    -------
    dict
        ``jain_user``, ``gap_user``, ``gap_flux_user``, ``jain_account``, ``gap_account``,
        ``gap_flux_account``, ``windows`` (windows in which anything ran).

    Examples
    --------
    The :func:`share_windows` example: users 7 and 8 active with entitlements 1/2 among the active,
    delivered 1/4 and 3/4: Jain :math:`(1/2 + 3/2)^2 / (2 (1/4 + 9/4)) = 0.8`, gap
    :math:`2 (1/4)^2 = 0.125`:

    >>> import fairalloc as fa
    >>> tree = AccountTree([{"account": "A"}, {"account": "B"}, {"user": "7", "account": "A"},
    ...                     {"user": "8", "account": "A"}, {"user": "9", "account": "B"}])
    >>> r = fa.simulate(fa.workloads.Workload(submit=[0, 0], run_time=[10, 10], processors=[1, 3],
    ...                                       user=[7, 8]), 4)
    >>> s = share_summary(share_windows(r, tree, windows=1))
    >>> round(s["jain_user"], 6), round(s["gap_user"], 6), s["jain_account"]
    (0.8, 0.125, 1.0)
    """
    out: dict[str, float] = {}
    ran = table.groupby("window")["delivered"].apply(lambda s: bool(s.notna().any()))
    ran_windows = set(ran[ran].index)
    for level in ("user", "account"):
        part = _level_rows(table, level)
        jains, gaps, flux = [], [], []
        for w, g in part.groupby("window"):
            if w not in ran_windows:
                continue
            a = g[g["active"].to_numpy() & (g["entitled_active"].to_numpy() > 0)]
            if len(a):
                x = a["delivered"].to_numpy() / a["entitled_active"].to_numpy()
                jains.append(jain_index(x))
                gaps.append(float(((a["delivered"] - a["entitled_active"]) ** 2).sum()))
            flux.append(float(((g["delivered_capacity"] - g["entitled"]) ** 2).sum()))
        jj = [v for v in jains if np.isfinite(v)]
        out[f"jain_{level}"] = float(np.mean(jj)) if jj else float("nan")
        out[f"gap_{level}"] = float(np.mean(gaps)) if gaps else float("nan")
        out[f"gap_flux_{level}"] = float(np.mean(flux)) if flux else float("nan")
    out["windows"] = float(len(ran_windows))
    return out


def entity_table(result: Any, tree: AccountTree, table: pd.DataFrame) -> pd.DataFrame:
    """Per user and per account: jobs, waits, bounded slowdown, shares over the whole run.

    Parameters
    ----------
    result : SimulationResult
    tree : AccountTree
    table : pandas.DataFrame
        :func:`share_windows` of the same result and tree.

    Returns
    -------
    pandas.DataFrame
        One row per node but the root: ``level``, ``entity``, ``account``, ``jobs``, ``finished``,
        ``mean_wait``, ``median_wait``, ``p95_wait``, ``max_wait``, ``mean_bsld`` (a job counts for its
        user and every account above it), ``entitled``, ``delivered`` (its usage over the whole run / all
        usage), ``mean_delivered`` and ``mean_entitled_active`` (means over the windows in which it was
        active), ``active_windows``.

    Examples
    --------
    >>> import fairalloc as fa
    >>> r = fa.simulate(fa.workloads.Workload(submit=[0, 0], run_time=[10, 10], processors=[3, 3],
    ...                                       user=[7, 8]), 4)
    >>> tree = AccountTree.flat([7, 8])
    >>> entity_table(r, tree, share_windows(r, tree, windows=2))[["entity", "mean_wait", "delivered"]].values.tolist()
    [['7', 0.0, 0.5], ['8', 10.0, 0.5]]
    """
    j = result.jobs
    uidx = _user_index(tree, j["user"].to_numpy())
    # jobs of each node: a job counts for its user and every ancestor
    parent = np.asarray(tree.parent)
    node_rows: dict[int, list[int]] = {}
    user_nodes = np.asarray(tree.user_nodes)
    for row, u in enumerate(uidx):
        a = int(user_nodes[u])
        while a > 0:
            node_rows.setdefault(a, []).append(row)
            a = int(parent[a])
    wait = j["wait"].to_numpy(float)
    bsld = j["bsld"].to_numpy(float)
    fin = j["finished"].to_numpy()
    usage = table.groupby("entity", sort=False)["usage"].sum()
    per_level_total = table[table["level"] == "user"]["usage"].sum()
    act = table[table["active"]]
    means = act.groupby("entity", sort=False)[["delivered", "entitled_active"]].mean()
    nact = act.groupby("entity", sort=False).size()
    first = table[table["window"] == table["window"].min()].set_index("entity")
    rows = []
    for v in range(1, tree.n_nodes):
        name = tree.names[v]
        rr = np.array(node_rows.get(v, []), dtype=np.int64)
        f = rr[fin[rr]] if rr.size else rr
        w = wait[f]
        rows.append({
            "level": "user" if tree.is_user[v] else "account", "entity": name, "account": first.loc[name, "account"],
            "jobs": int(rr.size), "finished": int(f.size),
            "mean_wait": float(w.mean()) if w.size else np.nan,
            "median_wait": float(np.median(w)) if w.size else np.nan,
            "p95_wait": float(np.percentile(w, 95)) if w.size else np.nan,
            "max_wait": float(w.max()) if w.size else np.nan,
            "mean_bsld": float(bsld[f].mean()) if f.size else np.nan,
            "entitled": float(tree.normalized_shares[v]),
            "delivered": float(usage.get(name, 0.0) / per_level_total) if per_level_total > 0 else np.nan,
            "mean_delivered": float(means["delivered"].get(name, np.nan)) if name in means.index else np.nan,
            "mean_entitled_active": float(means["entitled_active"].get(name, np.nan)) if name in means.index else np.nan,
            "active_windows": int(nact.get(name, 0))})
    return pd.DataFrame(rows)
