r"""The placement graph: users and servers as a bipartite graph (networkx), components and flow bounds.

An edge joins user *i* and server *m* when *i* may run there (``placement[i, m]``) and one of its
tasks fits on *m* alone (in some slot, for time-varying instances). Users in different connected
components never compete for a server, so every exact mechanism here (leximin and max-min alike)
can be solved per component and merged: the leximin order is *separable* (adding the same values to
two vectors does not change which sorted vector is larger), so the merged per-component optima are
optimal for the whole instance.

The graph also gives cheap necessary conditions through max-flow. For a vector of required task
counts :math:`n_i` and each resource *r*, route :math:`n_i d_{ir}` units from a source to user *i*,
at most :math:`\min(n_i, f_{im}) d_{ir}` from user *i* to each eligible server *m* (:math:`f_{im}` =
tasks of *i* that fit on *m* alone), and at most :math:`C_{mr}` from server *m* to the sink. Any
integer (or fractional) placement of the required tasks is such a flow, so a max-flow below
:math:`\sum_i n_i d_{ir}` proves infeasibility, and the minimum cut names a set of users whose
eligible servers do not hold enough of resource *r* (Hall's condition). Binary search on a level
gives an upper bound on the max-min value (:func:`maxmin_flow_bound`).

References
----------
.. [1] W. Wang, B. Li, B. Liang, J. Li, "Multi-resource fair sharing for datacenter jobs with
   placement constraints", SC 2016 (TSF; placement as a bipartite graph).
.. [2] L. R. Ford, D. R. Fulkerson, "Maximal flow through a network", Canad. J. Math. 8, 1956.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import shares
from ..model import TaskInstance, TimeVaryingInstance

__all__ = ["edges", "placement_graph", "placement_components", "FlowVerdict", "flow_check",
           "maxmin_flow_bound", "tv_flow_check"]


def edges(instance: TaskInstance | TimeVaryingInstance) -> np.ndarray:
    """Where each user may run a task: eligible (``placement``) and one task fits on the server alone.

    Parameters
    ----------
    instance : TaskInstance or TimeVaryingInstance
        For a time-varying instance a task must fit in some slot.

    Returns
    -------
    ndarray of bool, shape (n_agents, n_servers)

    Examples
    --------
    Servers <4, 4> and <8, 2>; user 0's task <1, 1> fits on both, user 1's <5, 1> only on the second
    (5 > 4 cores on the first):

    >>> from fairalloc.model import TaskInstance
    >>> ti = TaskInstance([[4, 4], [8, 2]], [[1, 1], [5, 1]], [2, 2])
    >>> edges(ti).tolist()
    [[True, True], [False, True]]
    """
    caps = instance.cluster.capacities
    if isinstance(instance, TimeVaryingInstance):
        fit = shares.tasks_that_fit(caps, instance.task_demands[:, :, None, :]) >= 1      # (N, T, M)
        fit = fit.any(axis=1)
    else:
        fit = shares.tasks_that_fit(caps, instance.task_demands[:, None, :]) >= 1         # (N, M)
    return fit & instance.placement


def placement_graph(instance: TaskInstance | TimeVaryingInstance):
    """The bipartite user-server graph: nodes ``("u", i)`` and ``("s", m)``, edges where :func:`edges` holds.

    Parameters
    ----------
    instance : TaskInstance or TimeVaryingInstance

    Returns
    -------
    networkx.Graph
        Every user and server is a node, also those without edges.

    See Also
    --------
    placement_components : its connected components.

    Examples
    --------
    Two users, each allowed on one server:

    >>> from fairalloc.model import TaskInstance
    >>> ti = TaskInstance([[4, 4], [4, 4]], [[1, 1], [1, 1]], [2, 2], placement=[[1, 0], [0, 1]])
    >>> g = placement_graph(ti)
    >>> sorted(g.edges())
    [(('u', 0), ('s', 0)), (('u', 1), ('s', 1))]
    """
    import networkx as nx

    e = edges(instance)
    g = nx.Graph()
    g.add_nodes_from((("u", i) for i in range(e.shape[0])), bipartite=0)
    g.add_nodes_from((("s", m) for m in range(e.shape[1])), bipartite=1)
    g.add_edges_from((("u", int(i)), ("s", int(m))) for i, m in zip(*np.nonzero(e)))
    return g


def placement_components(instance: TaskInstance | TimeVaryingInstance) -> list[tuple[np.ndarray, np.ndarray]]:
    """Connected components of the placement graph as ``(users, servers)`` index arrays.

    Ordered by their smallest user. Servers no user can use are left out; every user is in exactly one
    component (validation guarantees it has an eligible server where its task fits). The exact
    programs solve each component apart (``decompose=True``).

    Parameters
    ----------
    instance : TaskInstance or TimeVaryingInstance

    Returns
    -------
    list of (ndarray, ndarray)
        User indices and server indices of each component.

    Examples
    --------
    Users 0 and 2 share server 0, user 1 is alone on server 1, nobody may use server 2:

    >>> from fairalloc.model import TaskInstance
    >>> ti = TaskInstance([[4, 4]] * 3, [[1, 1]] * 3, [2, 2, 2], placement=[[1, 0, 0], [0, 1, 0], [1, 0, 0]])
    >>> [(u.tolist(), s.tolist()) for u, s in placement_components(ti)]
    [([0, 2], [0]), ([1], [1])]
    """
    import networkx as nx

    g = placement_graph(instance)
    comps = []
    for comp in nx.connected_components(g):
        users = np.array(sorted(k for t, k in comp if t == "u"), dtype=np.int64)
        servers = np.array(sorted(k for t, k in comp if t == "s"), dtype=np.int64)
        if users.size:
            comps.append((users, servers))
    comps.sort(key=lambda c: int(c[0][0]))
    return comps


@dataclass(frozen=True)
class FlowVerdict:
    """Outcome of :func:`flow_check`.

    ``feasible`` False means *proved infeasible*; True means only that the flow condition holds (the
    integer packing may still fail). On failure ``resource``, ``users``, ``servers``, ``need`` and
    ``have`` describe a violated Hall condition: those users need ``need`` of the resource but their
    eligible servers hold only ``have``.

    Attributes
    ----------
    feasible : bool
        False: proved infeasible; True: the necessary condition holds.
    resource : int or None
        The resource whose flow fails.
    users, servers : tuple of int
        The users of the violated condition and the servers they may use.
    need, have : float
        What those users need of ``resource`` and what those servers hold.
    message : str
        The verdict in words (property).

    Examples
    --------
    See :func:`flow_check`.
    """

    feasible: bool
    resource: int | None = None
    users: tuple[int, ...] = ()
    servers: tuple[int, ...] = ()
    need: float = 0.0
    have: float = 0.0

    @property
    def message(self) -> str:
        if self.feasible:
            return "the max-flow condition holds for every resource"
        return (f"users {list(self.users)} need {self.need:.6g} of resource {self.resource} in total, but "
                f"the servers they may use {list(self.servers)} hold only {self.have:.6g}")


def flow_check(instance: TaskInstance, required: Any, *, tol: float = 1e-9) -> FlowVerdict:
    """Necessary condition for placing ``required[i]`` tasks of every user: one max-flow per resource.

    For each resource, a flow from users (supply ``required[i]`` times the task's demand) through
    eligible edges to servers (capacity) must carry everything; otherwise a min cut names users whose
    eligible servers cannot hold their need (Hall's condition). Passing does not prove an integer
    packing exists.

    Parameters
    ----------
    instance : TaskInstance
        The instance.
    required : array_like, shape (n_agents,)
        Tasks each user must place.
    tol : float, optional
        Absolute slack on the flow value (default 1e-9).

    Returns
    -------
    FlowVerdict

    Examples
    --------
    Both users may use only server 0 (4 cores); 2 + 1 tasks of 2 cores need 6:

    >>> from fairalloc.model import TaskInstance
    >>> ti = TaskInstance([[4, 4], [4, 4]], [[2, 1], [2, 1]], [5, 5], placement=[[1, 0], [1, 0]])
    >>> v = flow_check(ti, [2, 1])
    >>> v.feasible, v.message
    (False, 'users [0, 1] need 6 of resource 0 in total, but the servers they may use [0] hold only 4')
    >>> flow_check(ti, [1, 1]).feasible                 # 4 cores needed, 4 held
    True
    """
    req = np.asarray(required, dtype=float)
    d = instance.task_demands
    caps = instance.cluster.capacities
    fit = instance.fits                                    # (N, M), 0 where not eligible
    n, m = fit.shape
    for r in range(caps.shape[1]):
        need_i = req * d[:, r]
        total = float(need_i.sum())
        if total <= tol:
            continue
        heads, tails, cap = [], [], []                     # nodes: 0 source, 1 sink, 2 + i users, 2 + n + k servers
        for i in range(n):
            if need_i[i] > 0:
                heads.append(0), tails.append(2 + i), cap.append(float(need_i[i]))
                for k in np.flatnonzero(fit[i] > 0):
                    heads.append(2 + i), tails.append(2 + n + int(k)), cap.append(float(min(req[i], fit[i, k]) * d[i, r]))
        for k in range(m):
            heads.append(2 + n + k), tails.append(1), cap.append(float(caps[k, r]))
        ok, side = _carries(2 + n + m, heads, tails, cap, total, rel=tol / max(1.0, total), cut=True)
        if not ok:
            users = tuple(int(v - 2) for v in side if 2 <= v < 2 + n)
            servers = tuple(sorted(int(k) for k in set(np.flatnonzero(fit[list(users)].sum(axis=0) > 0))))
            need = float(need_i[list(users)].sum())
            have = float(caps[list(servers), r].sum()) if servers else 0.0
            return FlowVerdict(False, r, users, servers, need, have)
    return FlowVerdict(True)


def _carries(n_nodes: int, heads: list, tails: list, cap: list, need: float, *, rel: float = 1e-9,
             cut: bool = False) -> tuple[bool, list]:
    r"""Whether the max-flow from node 0 to node 1 carries ``need`` (``scipy.sparse.csgraph.maximum_flow``).

    ``maximum_flow`` needs integer capacities: each is multiplied by a scale *S* and rounded **up**, so
    the rounded network carries at least *S* times any flow of the true one, and "does not carry" is
    answered only when its max-flow is below :math:`S \cdot` ``need`` :math:`(1 - rel)`: then the true
    max-flow is below ``need`` too. With ``cut``, a failure also returns the nodes on the source side
    of a minimum cut (reachable from the source in the residual network), sorted.
    """
    import scipy.sparse as sp
    from scipy.sparse.csgraph import breadth_first_order, maximum_flow

    cap_a = np.asarray(cap, dtype=float)
    pos = cap_a[cap_a > 0]
    if pos.size == 0:
        return need <= 0, [0]
    scale = min(1e6 / float(pos.min()), (2.0 ** 31 - 2) / (float(cap_a.sum()) + 1.0))
    icap = np.ceil(cap_a * scale).astype(np.int64)
    g = sp.csr_array((icap.astype(np.int32), (np.asarray(heads), np.asarray(tails))), shape=(n_nodes, n_nodes))
    res = maximum_flow(g, 0, 1)
    if res.flow_value >= need * scale * (1 - rel):
        return True, []
    if not cut:
        return False, []
    resid = sp.csr_array(g.astype(np.int64) - res.flow.astype(np.int64))
    resid.data = (resid.data > 0).astype(np.int8)
    resid.eliminate_zeros()
    side = breadth_first_order(resid, 0, directed=True, return_predecessors=False)
    return False, sorted(int(v) for v in side)


def maxmin_flow_bound(instance: TaskInstance, valuation: Any) -> float:
    r"""Upper bound on the max-min value of ``valuation`` (a :class:`~fairalloc.exact.leximin.Valuation`).

    The largest achievable level :math:`\ell` such that the task counts :math:`L_i(\ell)` every user
    needs to reach it pass :func:`flow_check`; binary search over the achievable values of all users
    (capped by ``valuation.upper``). Exact optimum <= this bound.

    Parameters
    ----------
    instance : TaskInstance
        The instance.
    valuation : Valuation
        The users' affine values (:func:`fairalloc.exact.tasks.task_valuation`).

    Returns
    -------
    float
        The bound, in the valuation's units.

    Examples
    --------
    One server <4, 4>, two users with tasks <1, 1> and value = tasks: 4 tasks fit, so at most 2 each:

    >>> from fairalloc.model import TaskInstance
    >>> from fairalloc.exact.leximin import Valuation
    >>> ti = TaskInstance([[4, 4]], [[1, 1], [1, 1]], [9, 9])
    >>> maxmin_flow_bound(ti, Valuation([1, 1], [0, 0], [0, 0], [9, 9]))
    2.0
    """
    val = valuation
    up, lo_x = val.upper, val.lower
    top = float(val.value(up).min())
    cand = np.unique(np.concatenate([val.slope[i] * np.arange(lo_x[i], up[i] + 1) + val.offset[i]
                                     for i in range(val.n)]))
    cand = cand[cand <= top * (1 + 1e-12) + 1e-12]
    if cand.size == 0:
        return top

    def need(level: float) -> np.ndarray:
        x = np.ceil((level - val.offset) / val.slope - 1e-9)
        return np.clip(x, lo_x, up).astype(np.int64)

    lo, hi = 0, cand.size - 1
    best = float(cand[0])
    while lo <= hi:
        mid = (lo + hi) // 2
        if flow_check(instance, need(float(cand[mid]))).feasible:
            best = float(cand[mid])
            lo = mid + 1
        else:
            hi = mid - 1
    return best


def tv_flow_check(tv: TimeVaryingInstance, required: Any) -> bool:
    r"""Necessary condition for starting ``required[i]`` tasks of every user of a time-varying instance.

    One max-flow per resource *r* (``scipy.sparse.csgraph.maximum_flow``), in units of *r*, with
    :math:`w_{ir} = \min_t d_{ir}(t)` the least a task of user *i* ever needs:

    * source -> user *i*: :math:`n_i w_{ir}` (:math:`n_i` = ``required[i]``);
    * user *i* -> (*i*, *t*): :math:`B_i(t)\, w_{ir}`, the tasks submitted in slot *t*;
    * (*i*, *t*) -> (*i*, *t* + 1): unbounded (a pending task may start later, never earlier);
    * (*i*, *t*) -> (*m*, *t*): unbounded where *i* may run on *m* and a task of slot *t* fits there;
    * (*m*, *t*) -> sink: :math:`C_{mr}`.

    **Soundness.** Take any schedule that starts at least :math:`n_i` tasks of every user (integer or
    fractional) and satisfies capacity (10b) and "started <= submitted" at every slot. Dropping starts
    keeps both, so keep exactly :math:`n_i`. Assign each kept start to a submission slot no later than
    it, earliest submission first (possible because by every slot the starts so far never exceed the
    submissions so far). Route :math:`w_{ir}` per start: user -> its submission slot -> along the chain
    to its start slot *t* -> its server (*m*, *t*). Every capacity holds: the (*m*, *t*) node receives
    :math:`\sum_i w_{ir} x_{imt} \le \sum_i d_{ir}(t) x_{imt} \le C_{mr}`, the resources held by the
    tasks *started* in slot *t* alone (tasks still running from earlier slots only add to the left
    side of (10b)). So the flow carries :math:`\sum_i n_i w_{ir}`; a max-flow below that for some
    resource proves that no schedule starts the ``required`` tasks. (It charges a task only at its
    start slot, so it is a weak relaxation of the LP relaxation of Eq. 10: any LP-feasible point gives
    such a flow by the same routing, fractionally. The integer ``required`` counts are its strength.)

    **Float safety.** ``maximum_flow`` needs integer capacities: they are scaled and rounded up
    (``_carries``), so a "False" always means that the true max-flow is below the need.

    Parameters
    ----------
    tv : TimeVaryingInstance
        The instance.
    required : array_like of int, shape (n_agents,)
        Tasks each user must start over the horizon (0 for users that need nothing).

    Returns
    -------
    bool
        False: proven impossible; True: the necessary condition holds (a schedule may still not exist).

    Examples
    --------
    One server <4, 4>; user 0 submits 2 tasks <2, 2> in slot 0 and nothing after, one slot long, over
    2 slots. Starts charge only their slot, so 2 per slot pass (4 over the horizon: the two submitted
    tasks fit in slot 0); 3 tasks were never submitted:

    >>> import fairalloc as fa
    >>> tv = fa.TimeVaryingInstance([[4, 4]], [[2, 2]], arrivals=[[2, 0]], durations=[1])
    >>> tv_flow_check(tv, [2]), tv_flow_check(tv, [3])
    (True, False)
    """
    req = np.asarray(required, dtype=float)
    n, T, m = tv.n_agents, tv.n_slots, tv.n_servers
    if req.shape != (n,):
        raise ValueError(f"required must have shape ({n},), got {req.shape}")
    if (req <= 0).all():
        return True
    if (req > tv.arrivals.sum(axis=1)).any():
        return False                                     # more than was ever submitted
    caps = tv.cluster.capacities
    fit = shares.tasks_that_fit(caps, tv.task_demands[:, :, None, :]) >= 1          # (N, T, M)
    fit &= tv.placement[:, None, :]
    users = np.flatnonzero(req > 0)
    # node numbering: 0 source, 1 sink, users, (user, slot), (server, slot)
    u_node = {int(i): 2 + k for k, i in enumerate(users)}
    us_node = {}
    nxt = 2 + users.size
    for i in users:
        for t in range(T):
            us_node[(int(i), t)] = nxt
            nxt += 1
    ms_base = nxt
    n_nodes = ms_base + m * T
    for r in range(caps.shape[1]):
        w = tv.task_demands[:, :, r].min(axis=1)                                     # (N,)
        need = float((req[users] * w[users]).sum())
        if need <= 0:
            continue
        heads, tails, cap = [], [], []

        def edge(a: int, b: int, c: float) -> None:
            heads.append(a)
            tails.append(b)
            cap.append(c)

        big = need                                       # no edge ever needs to carry more than all of it
        for i in users:
            i = int(i)
            if w[i] <= 0:
                continue
            edge(0, u_node[i], req[i] * w[i])
            for t in range(T):
                if tv.arrivals[i, t] > 0:
                    edge(u_node[i], us_node[(i, t)], tv.arrivals[i, t] * w[i])
                if t + 1 < T:
                    edge(us_node[(i, t)], us_node[(i, t + 1)], big)
                for k in np.flatnonzero(fit[i, t]):
                    edge(us_node[(i, t)], ms_base + int(k) * T + t, big)
        for k in range(m):
            for t in range(T):
                edge(ms_base + k * T + t, 1, float(caps[k, r]))
        if not _carries(n_nodes, heads, tails, cap, need)[0]:
            return False
    return True
