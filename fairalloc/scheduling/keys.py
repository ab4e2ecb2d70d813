r"""The keys of the task schedulers: what each mechanism minimises when it picks the next user.

A task scheduler serves, among the users with pending tasks, the one with the smallest *key*; equal
keys go to the user whose oldest pending task has waited longest, then to the lower index
(``ties="wait"``; ``"index"``: the index only). Each key is a function of one user's state, written
here once as a plain loop from the formulas of :mod:`fairalloc.shares` and
:mod:`fairalloc.commitments`, compiled for the decision core (:mod:`fairalloc.scheduling.core`).
Notation: :math:`u_{ir}` the raw resources user *i*'s running tasks hold, :math:`T_r` the cluster
totals, :math:`o_{ir} = u_{ir}/T_r`, :math:`w_i` the weight, :math:`d_i` the demand of *i*'s oldest
pending task.

==========  ============================================================  =======  ==================
name        key of user *i*                                               moves    source
==========  ============================================================  =======  ==================
``drf``     :math:`\max_r o_{ir} / w_i`                                   no       DRF [1]_ Section 4
``sdrf``    level :math:`(\max_r o_{ir} + \max_r c_{ir}(t)) / w_i`, or    yes      SDRF [2]_ Eq. 5,
            printed :math:`\max_r (o_{ir} + c_{ir}(t)) / w_i`                      Algorithm 1
``tsf``     :math:`\sum_{\text{running}} 1/h(d) / w_i`                    no       TSF [3]_
``cdrf``    :math:`\max_r (u_{ir} + d_{ir}) / T_r / w_i`                  no       CDRF [4]_
==========  ============================================================  =======  ==================

The production fair-share rules of container clusters (``kueue``, ``kueue-afs``, ``yarn``, ``mesos``,
``volcano``, ``volcano-drf``, ``volcano-hdrf``; the end of this module) are keys of the same kind, read
from the queue above the user
(:mod:`fairalloc.scheduling.queues`, :mod:`fairalloc.scheduling.production`).

*Constant keys* change only when the user's own state does (a start, a finish, a new head task):
the core keeps them in an indexed heap. *SDRF's key moves with time*: the commitments decay by Eq. 6,
:math:`c_{ir}(t) = \bar o_{ir} + (c_{ir}(t_0) - \bar o_{ir}) e^{-(t - t_0)/\tau}` with the excess
:math:`\bar o_i = \max(o_i - f_i, 0)` constant between two changes of the user's allocation, so the key
is a maximum of lines :math:`a_r + b_r e^{-(t - t_0)/\tau}` (:func:`trajectory_row`), which the live
tree (:mod:`fairalloc.kinetic.tree_core`) keeps in order exactly.

The table :data:`KEYS` names each key, says whether it moves with time, and which blocking rule the
mechanism uses by default. A new mechanism is one key function here, one branch in
:func:`fairalloc.scheduling.core.key_value` / ``key_lines`` and one row of the table.

References
----------
.. [1] A. Ghodsi et al., "Dominant Resource Fairness: Fair Allocation of Multiple Resource Types",
   NSDI 2011.
.. [2] H. Sadok, M. Campista, L. Costa, "O Passado Também Importa: Um Mecanismo de Alocação Justa de
   Múltiplos Tipos de Recursos ao Longo do Tempo", SBRC 2018, Eq. 5-6, Algorithm 1.
.. [3] W. Wang, B. Li, B. Liang, J. Li, "Multi-resource fair sharing for datacenter jobs with
   placement constraints", SC 2016.
.. [4] D. Parkes, A. Procaccia, N. Shah, "Beyond Dominant Resource Fairness: Extensions, Limitations,
   and Indivisibilities", ACM TEAC 3(1), 2015.
"""

from __future__ import annotations

from typing import NamedTuple

from .. import shares
from .._jit import jit

__all__ = ["KEYS", "Key", "DRF", "SDRF", "TSF", "CDRF", "drf_key", "tsf_key", "cdrf_key", "trajectory_row"]

#: Key ids (the core's dispatch).
DRF, SDRF, TSF, CDRF = 0, 1, 2, 3


class Key(NamedTuple):
    """One row of :data:`KEYS`.

    Attributes
    ----------
    id : int
        The core's id of the key.
    moves : bool
        Whether the key moves with time (then the live tree orders the users; else an indexed heap).
    blocking : str
        The mechanism's default blocking rule (``"stop"``: end the pass at the first task that fits
        nowhere; ``"skip"``: set that user aside until the pass ends).
    """

    id: int
    moves: bool
    blocking: str


#: Mechanism name -> :class:`Key`.
KEYS = {"drf": Key(DRF, False, "stop"), "sdrf": Key(SDRF, True, "stop"),
        "tsf": Key(TSF, False, "skip"), "cdrf": Key(CDRF, False, "skip")}

_dominant = jit(shares.dominant_share_row)


@jit(_nrt=False)
def drf_key(usage, totals, w):
    """DRF's key :math:`\\max_r u_r / T_r / w` (the dominant share, :func:`fairalloc.shares.dominant_share_row`).

    Written as SDRF's level with no commitment, :math:`(\\max_r o_r + 0) / w`: the same float (the
    ``+ 0.0`` turns a -0.0 into 0.0).

    Examples
    --------
    The DRF paper's user A holding 3 tasks <1 CPU, 4 GB> of <9, 18>: max(3/9, 12/18) = 2/3:

    >>> import numpy as np
    >>> round(float(drf_key.py_func(np.array([3.0, 12.0]), np.array([9.0, 18.0]), 1.0)), 4)
    0.6667
    """
    return (_dominant(usage, totals) + 0.0) / w


@jit(_nrt=False)
def tsf_key(held_h, held_n, n_held, w):
    """TSF's key :math:`\\sum_j n_j / (h_j w)` over the distinct monopoly counts :math:`h_j` of the
    user's running tasks (:math:`n_j` tasks each; :func:`fairalloc.shares.task_shares`, summed in the
    order the counts were first held).

    Examples
    --------
    Two tasks with h = 4 and one with h = 8, weight 1: 2/4 + 1/8:

    >>> import numpy as np
    >>> float(tsf_key.py_func(np.array([4.0, 8.0]), np.array([2, 1]), 2, 1.0))
    0.625
    """
    acc = 0.0
    for j in range(n_held):
        acc += held_n[j] / (held_h[j] * w)
    return acc


@jit(_nrt=False)
def cdrf_key(usage, demand, totals, w):
    """CDRF's key :math:`\\max_r (u_r + d_r) / T_r / w` (:func:`fairalloc.shares.dominant_shares_after`).

    Examples
    --------
    The DRF paper's user B holding <6, 2> with its next task <3, 1> on <9, 18>: (6 + 3)/9 = 1:

    >>> import numpy as np
    >>> float(cdrf_key.py_func(np.array([6.0, 2.0]), np.array([3.0, 1.0]), np.array([9.0, 18.0]), 1.0))
    1.0
    """
    best = (usage[0] + demand[0]) / totals[0]
    for r in range(1, totals.shape[0]):
        x = (usage[r] + demand[r]) / totals[r]
        if x > best:
            best = x
    return best / w


def trajectory_row(o, excess_, c0, w, level, a, b) -> None:
    r"""User i's SDRF priority as lines for the live tree: intercepts into ``a``, slopes into ``b``.

    With Eq. 6, :math:`c_{ir}(t) = \bar o_{ir} + (c_{ir}(t_0) - \bar o_{ir}) e^{-(t - t_0)/\tau}`; the
    level reading (Eq. 5) is :math:`(\max_r o_{ir} + \max_r c_{ir}) / w_i`, i.e. lines
    :math:`a_r = (\max o_i + \bar o_{ir}) / w_i`, :math:`b_r = (c_{ir}(t_0) - \bar o_{ir}) / w_i`; the
    printed reading :math:`\max_r (o_{ir} + c_{ir}) / w_i` has :math:`a_r = (o_{ir} + \bar o_{ir}) / w_i`.

    Examples
    --------
    >>> a, b = [0.0, 0.0], [0.0, 0.0]
    >>> trajectory_row([0.5, 0.25], [0.0, 0.0], [0.1, 0.3], 1.0, True, a, b); a, b
    ([0.5, 0.5], [0.1, 0.3])
    """
    if level:
        dom = o[0]                             # max(o): the first of equal maxima
        for r in range(1, len(o)):
            if o[r] > dom:
                dom = o[r]
        for r in range(len(o)):
            a[r] = (dom + excess_[r]) / w
    else:
        for r in range(len(o)):
            a[r] = (o[r] + excess_[r]) / w
    for r in range(len(o)):
        b[r] = (c0[r] - excess_[r]) / w


_trajectory = jit(trajectory_row)


# ---- production fair-share keys (issue 28): a user takes its queue's key --------------------------------------
# The queue tree and its usage are a QueueState (fairalloc.scheduling.queues); each key below calls the rule of
# fairalloc.fairshare, which stays the one definition. A rule that compares a tier first and then a value is
# one float: the tier most keys sit in keeps the value itself (so ties and near-ties are the value's), the
# tiers before it map the value into [-2, -1) and [-1, 0) by v / (1 + v), the tier after it into [1e200, 2e200).
KUEUE, YARN, MESOS, VOLCANO = 4, 5, 6, 7
KEYS["kueue"] = Key(KUEUE, False, "skip")
KEYS["yarn"] = Key(YARN, False, "skip")
KEYS["mesos"] = Key(MESOS, False, "skip")
KEYS["volcano"] = Key(VOLCANO, False, "skip")
VOLCANO_DRF, VOLCANO_HDRF, KUEUE_AFS = 8, 9, 10
KEYS["volcano-drf"] = Key(VOLCANO_DRF, False, "skip")
KEYS["volcano-hdrf"] = Key(VOLCANO_HDRF, False, "skip")
KEYS["kueue-afs"] = Key(KUEUE_AFS, False, "skip")
#: The keys that read a QueueState (ids at least this).
QUEUE_KEYS = KUEUE
#: Where the tier after the main one starts (above any share a weight >= 1e-9 gives).
LAST_TIER = 1e200
__all__ += ["KUEUE", "YARN", "MESOS", "VOLCANO", "VOLCANO_DRF", "VOLCANO_HDRF", "KUEUE_AFS", "QUEUE_KEYS", "kueue_key",
            "yarn_key", "mesos_key", "volcano_key", "ranked_key", "kueue_afs_key", "queue_key", "squash"]

import math  # noqa: E402

from ..fairshare.kueue import _key_with as _kueue_key_with  # noqa: E402  (fairshare never imports scheduling)
from ..fairshare.kueue import afs_usage as _afs_usage  # noqa: E402
from ..fairshare.mesos import node_share as _mesos_share  # noqa: E402
from ..fairshare.volcano import _dominant_share as _volcano_share  # noqa: E402
from ..fairshare.yarn import _compared_ratios_into as _yarn_ratios  # noqa: E402
from ..fairshare.yarn import _dominant as _yarn_dominant  # noqa: E402


@jit(_nrt=False)
def squash(value):
    r""":math:`v / (1 + v)` for :math:`v \ge 0` (1 for ``inf``): an increasing map of [0, inf] into [0, 1].

    Examples
    --------
    >>> squash.py_func(0.0), squash.py_func(1.0), squash.py_func(float("inf"))
    (0.0, 0.5, 1.0)
    """
    if value == math.inf:
        return 1.0
    return value / (1.0 + value)


@jit(_nrt=False)
def kueue_key(qs, u, d):
    r"""Kueue's admission order (``entryComparer.less``) for user (LocalQueue) u with head request d.

    With the request added at u's LocalQueue (:func:`fairalloc.fairshare.kueue._key_with`), u's ClusterQueue
    has (borrowing on the request's resources, :func:`~fairalloc.fairshare.kueue.drs_key`'s tier, value):
    not borrowing first (:math:`-2 + v/(1+v)`, or :math:`-1 + v/(1+v)` in the weight-0 tier), then the
    borrowing ones by :math:`v = DRS/w` (per mille of the lendable capacity), weight-0 borrowers last
    by their unweighted share (:math:`10^{200}(1 + v/(1+v))`). Priority is not modelled; the core's tie
    (the oldest pending submission) is Kueue's next criterion, the queue timestamp.
    """
    bor, tier, value = _kueue_key_with(qs.queue[u], qs.node[u], d, qs.parent, qs.quota, qs.limit, qs.usage,
                                       qs.lam, qs.group_of, qs.w, qs.work, qs.save)
    if not bor:
        return (-2.0 if tier == 0 else -1.0) + squash(value)
    if tier == 0:
        return value
    return LAST_TIER * (1.0 + squash(value))


@jit(_nrt=False)
def yarn_key(qs, u, totals):
    r"""YARN's DRF comparator (``DominantResourceFairnessComparatorN``) on u's leaf queue, as one float.

    Needy queues (dominant usage below the min share) first, by usage/min share of the dominant resource
    (:math:`-1 + v/(1+v)`); then the others by their dominant share over the weight
    (:func:`fairalloc.fairshare.yarn._compared_ratios_into`'s first ratio: equal first ratios tie here,
    where YARN compares the next ratio); a queue of weight 0 after every weighted queue, by its
    dominant share (FairScheduler.md on weight 0, YARN-6754; :math:`10^{200}(1 + v/(1+v))`).
    """
    q = qs.queue[u]
    if qs.w[q] == 0.0:
        dm = _yarn_dominant(qs.usage[q], totals)
        return LAST_TIER * (1.0 + squash(qs.usage[q, dm] / totals[dm]))
    needy = _yarn_ratios(qs.usage[q], qs.quota[q], qs.w[q], totals, qs.iwork, qs.work)
    if needy:
        return -1.0 + squash(qs.work[0])
    return qs.work[0]


@jit(_nrt=False)
def mesos_key(qs, u, totals):
    r"""Mesos' DRF sorter share of u's role: :math:`\max_r A_r/T_r / w` (:func:`fairalloc.fairshare.mesos.node_share`;
    the allocation-count tie-break is not modelled: equal shares go to the core's tie)."""
    return _mesos_share(qs.queue[u], qs.usage, totals, qs.excluded, qs.w)


@jit(_nrt=False)
def volcano_key(qs, u):
    r"""Volcano's proportion plugin (``QueueOrderFn``) on u's queue: its share :math:`\max_r a_r/d_r` of its
    deserved resources at the last session (:func:`fairalloc.fairshare.volcano.queue_shares_into` of one queue; queue
    priorities are not modelled)."""
    q = qs.queue[u]
    return _volcano_share(qs.usage[q], qs.deserved[qs.qpos[q]], qs.eps[0])


@jit(_nrt=False)
def ranked_key(qs, u, totals):
    r"""Volcano with the DRF plugin (``volcano-drf``, ``volcano-hdrf``): :math:`2\rho_q + s_u`, with
    :math:`\rho_q` the dense rank of u's queue in the queue order (proportion's ``QueueOrderFn``, or HDRF's
    ``compareQueues``; :func:`fairalloc.scheduling.queues.rank_queues`, recomputed at each change) and
    :math:`s_u = \max_r a_{ur}/T_r \in [0, 1]` the job's DRF share (``JobOrderFn``): queues first, then
    jobs by share inside a queue, as one float (ranks are integers, so no share crosses a rank).

    Examples
    --------
    Rank 1 and a job holding 3 of 9 CPUs and 2 of 18 GB: 2 + 1/3:

    >>> import numpy as np
    >>> from fairalloc.scheduling.queues import empty_queues
    >>> qs = empty_queues(2); qs.usage[0] = [3.0, 2.0]; qs.rank[0] = 1.0
    >>> round(float(ranked_key.py_func(qs, 0, np.array([9.0, 18.0]))), 4)
    2.3333
    """
    v = qs.node[u]
    return 2.0 * qs.rank[qs.qpos[qs.home[u]]] + _volcano_share(qs.usage[v], totals, qs.eps[0])


@jit(_nrt=False)
def kueue_afs_key(qs, u, d):
    r"""Kueue with Admission Fair Sharing: the ClusterQueue's head is its pending LocalQueue of lowest AFS
    usage (:func:`fairalloc.fairshare.kueue.afs_usage`; ties: pending longest, then index; kept in
    ``qs.head`` by :func:`fairalloc.scheduling.queues.afs_heads`); the head takes :func:`kueue_key` (the
    cohort's tournament), every other pending LocalQueue comes after every head, by its AFS usage
    (:math:`10^{200}(2 + a/(1+a))`)."""
    q = qs.queue[u]
    if qs.head[q] == u:
        return kueue_key(qs, u, d)
    v = qs.node[u]
    a = _afs_usage(qs.afs_c[v], qs.afs_zero, qs.w[v], qs.omega)
    return LAST_TIER * (2.0 + squash(a))


@jit(_nrt=False)
def queue_key(kind, qs, u, d, totals):
    """The key of user u (head request d) for a queue key ``kind`` (:data:`KUEUE`, :data:`YARN`, :data:`MESOS`,
    :data:`VOLCANO`, :data:`VOLCANO_DRF`, :data:`VOLCANO_HDRF`, :data:`KUEUE_AFS`)."""
    if qs is None:                             # (a state without queues: never called)
        return math.nan
    if kind == KUEUE:
        return kueue_key(qs, u, d)
    if kind == VOLCANO_DRF or kind == VOLCANO_HDRF:
        return ranked_key(qs, u, totals)
    if kind == KUEUE_AFS:
        return kueue_afs_key(qs, u, d)
    if kind == YARN:
        return yarn_key(qs, u, totals)
    if kind == VOLCANO:
        return volcano_key(qs, u)
    return mesos_key(qs, u, totals)
