r"""YARN's Fair Scheduler with the DRF policy: fair shares, the DRF comparator, starvation and preemption.

Sources (apache/hadoop trunk, ``hadoop-yarn-project/hadoop-yarn/hadoop-yarn-server/
hadoop-yarn-server-resourcemanager/src/main/java/org/apache/hadoop/yarn/server/resourcemanager/scheduler/
fair/``, read through the code index at the commits named): ``policies/ComputeFairShares.java``
(``3c22fd7d02``: ``computeSharesInternal``, ``handleFixedFairShares``, ``getFairShareIfFixed``,
``computeShare``), ``policies/DominantResourceFairnessPolicy.java`` with the fix of YARN-11482 (PR #5607,
2023: the two-resource comparator read the first queue's usage for the second's neediness),
``FSAppAttempt.java`` (``fairShareStarvation``, ``isUsageBelowShare``, ``canContainerBePreempted``),
``FSLeafQueue.java`` (``minShareStarvation``), ``FSQueue.java`` (``getMaxShare``), ``FairScheduler.java``
(``shouldAttemptPreemption``), ``hadoop-yarn-common/.../DominantResourceCalculator.java`` (``compare``),
and ``hadoop-yarn-site/src/site/markdown/FairScheduler.md``.

**The tree.** Queues are the *accounts* of an :class:`~fairalloc.accounts.AccountTree` and the
applications (or users) the *users*: ``weight`` (default 1), ``min_share`` (``minResources``, default 0),
``max_share`` (``maxResources``, default unbounded; YARN raises it to the min share, here a smaller one is
refused), ``fair_share_preemption_threshold`` / ``_timeout`` and ``min_share_preemption_timeout``
(inherited from the parent when unset). Amounts are whole numbers (YARN counts MB and vcores in
``long``).

**Fair shares** (``ComputeFairShares``), for each resource type separately, among the children of a
queue, of the parent's fair share :math:`T` (the cluster at the root). A child is *fixed* when its max
share is 0 (share 0), when it is inactive and the share is instantaneous (0; a queue is active when it
has runnable applications), or when its weight is 0 (its min share, or 0). The others get

.. math:: s_i(R) = \lfloor \min(\max(w_i R,\ m_i),\ M_i) \rfloor

with :math:`R` found by doubling from 1 until :math:`\sum_i s_i(R) \ge \min(T - \text{fixed},
\sum_i M_i)` and then 25 bisection steps, the shares taken at the *upper* end. *As the code runs*: the
upper end over-allocates by the truncation, so fair shares can add up to more than :math:`T` (three equal
queues on 10 vcores get 4 each; tests). The steady fair share is the same with every queue active.

**DRF comparator** (``DominantResourceFairnessComparator``, lower first). A schedulable is *needy* when
its usage of its dominant resource (largest usage/cluster ratio) is below its min share of that
resource. Needy before not needy; two not needy compare the vectors of usage/cluster/weight sorted by
usage/cluster descending, lexicographically; two needy compare usage/min-share in the same order; then
the earlier start time, then the name. A difference that is NaN counts as equal (Java
``(int) Math.signum(NaN)`` is 0).

**Weight 0** (YARN-6754, FairScheduler.md: "A queue with weight 0 should receive resources after all
non-zero weight queues have received resources. If all weights are equal to 0, a queue with less resource
usage should receive resources."). Its fair share is its min share. *As the code runs*, under DRF: a
queue of weight 0 with no usage has NaN ratios (0/0), which compare equal to anything, so it is ordered by
start time and name against every queue; one with usage has infinite ratios and goes after all weighted
queues, and two such queues tie on the ratios (inf - inf is NaN) and are ordered by name, not by usage.
Tests show both departures from the page.

**Preemption** (off unless ``yarn.scheduler.fair.preemption``; attempted only when the utilization
exceeds ``preemption.cluster-utilization-threshold``, default 0.8, where *as the code runs* the
utilization is the larger of the memory and vcore ratios only, while the page says "among all
resources"). An application is fair-share starved when its usage is below
:math:`\min(\theta F, D)` (threshold :math:`\theta`, default 0.5, fair share :math:`F`, demand :math:`D`)
by the DRF calculator's single-type comparison (dominant shares), and it has been so for the
``fairSharePreemptionTimeout`` (default never): then its starvation is :math:`\max(0, \min(\theta F, D) -
U)`. A queue is min-share starved by :math:`\min_{DRF}(m, D) - U` after ``minSharePreemptionTimeout``. A
container may be preempted from an application only if its usage without the container is not below its
fair share (:func:`can_preempt`).

**Relation to DRF and SDRF.** At equal weights and no min shares the comparator is DRF's (lower dominant
share first, ties by the next resource): progressive filling of small containers is DRF's water-filling
(tests check it against :func:`fairalloc.drf`); the fair shares are a weighted max-min division of each
resource separately (checked against :func:`fairalloc.max_min`). There is no memory of past usage: YARN's
fair scheduler is SDRF with :math:`\delta = 0`; the min shares shift the origin as Kueue's nominal quotas
do.

Examples
--------
Three queues of weights 1, 2, 1 (the last with ``maxResources`` 10) on 100 vcores: 30, 60, 10 (with
:math:`R = 30`):

>>> from fairalloc.accounts import AccountTree
>>> t = AccountTree([{"account": "a"}, {"account": "b", "weight": 2}, {"account": "c", "max_share": {"vcores": 10}}],
...                 resources=["vcores"])
>>> YarnQueues(t).fair_shares([100], steady=True)[[1, 2, 3], 0].tolist()
[30.0, 60.0, 10.0]
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ..accounts import AccountTree
from ..errors import InvalidInstanceError
from ..validation import require_integral
from ._checks import no_parent_shares, node_scalar, node_vector, user_matrix
from ._jit import callee

__all__ = [
    "YarnQueues",
    "ITERATIONS",
    "DEFAULT_FAIR_SHARE_THRESHOLD",
    "DEFAULT_UTILIZATION_THRESHOLD",
    "compute_shares_into",
    "drf_compare",
    "drf_key_into",
    "drc_compare",
    "usage_below_share",
    "fairshare_starvation_into",
    "minshare_starvation_into",
    "can_preempt",
    "starvation_goal_into",
    "fits_in_max_share",
    "should_attempt_preemption",
]

#: ``COMPUTE_FAIR_SHARES_ITERATIONS``.
ITERATIONS = 25
#: ``fairSharePreemptionThreshold`` default.
DEFAULT_FAIR_SHARE_THRESHOLD = 0.5
#: ``yarn.scheduler.fair.preemption.cluster-utilization-threshold`` default.
DEFAULT_UTILIZATION_THRESHOLD = 0.8


@callee
def _share(w: float, ratio: float, lo: float, hi: float) -> float:
    """``computeShare``: w R raised to the min share, cut at the max share, truncated as Java's ``(long)``."""
    s = w * ratio
    if s < lo:
        s = lo
    if s > hi:
        s = hi
    if s < math.inf:
        return math.floor(s)
    return s


@callee
def _used(ratio: float, weight, lo, hi, free) -> float:
    tot = 0.0
    for i in range(len(weight)):
        if free[i]:
            tot += _share(weight[i], ratio, lo[i], hi[i])
    return tot


@callee
def compute_shares_into(weight, min_share, max_share, active, total: float, steady: bool, out, free) -> None:
    r"""One resource type's fair shares of ``total`` among siblings, as ``ComputeFairShares`` does.

    Parameters
    ----------
    weight, min_share, max_share : ndarray of float, shape (k,)
        The siblings' weights, min and max shares (whole numbers; ``inf`` = unbounded).
    active : ndarray of bool, shape (k,)
        Instantaneous shares: whether each sibling is active (ignored when ``steady``).
    total : float
        The parent's fair share of this resource.
    steady : bool
        Steady fair shares (every sibling counts) instead of instantaneous ones.
    out : ndarray of float, shape (k,)
        Receives the shares.
    free : ndarray of bool, shape (k,)
        Work space (which siblings are not fixed).

    Examples
    --------
    Three equal queues on 10: the doubling reaches R = 4 (12 >= 10) and every bisection midpoint below 4
    gives 9 < 10, so the shares are taken at R = 4: 4, 4, 4, 12 in all:

    >>> out = np.empty(3)
    >>> compute_shares_into(np.ones(3), np.zeros(3), np.full(3, np.inf), np.ones(3, bool), 10.0, True, out,
    ...                     np.empty(3, bool))
    >>> out.tolist()
    [4.0, 4.0, 4.0]
    """
    k = len(weight)
    taken = 0.0
    n_free = 0
    for i in range(k):
        free[i] = False
        if max_share[i] <= 0.0:
            out[i] = 0.0
        elif not steady and not active[i]:
            out[i] = 0.0
        elif weight[i] <= 0.0:
            out[i] = min_share[i] if min_share[i] > 0.0 else 0.0
        else:
            free[i] = True
            n_free += 1
            continue
        taken += out[i]
    if n_free == 0:
        return
    total_max = 0.0
    for i in range(k):
        if free[i]:
            total_max += max_share[i]
    target = total - taken
    if target < 0.0:
        target = 0.0
    if total_max < target:
        target = total_max
    r_max = 1.0
    while _used(r_max, weight, min_share, max_share, free) < target and r_max < math.inf:
        r_max *= 2.0
    left = 0.0
    right = r_max
    for _ in range(ITERATIONS):
        mid = (left + right) / 2.0
        planned = _used(mid, weight, min_share, max_share, free)
        if planned == target:
            right = mid
            break
        elif planned < target:
            left = mid
        else:
            right = mid
    for i in range(k):
        if free[i]:
            out[i] = _share(weight[i], right, min_share[i], max_share[i])


@callee
def _jsign(x: float) -> int:
    """Java's ``(int) Math.signum(x)``: -1, 0, 1, and 0 for NaN."""
    if x > 0.0:
        return 1
    if x < 0.0:
        return -1
    return 0


@callee
def _dominant(usage, cluster) -> int:
    """Index of the largest usage/cluster ratio, the first on ties (``calculateClusterAndFairRatios``)."""
    best = 0
    for r in range(1, len(cluster)):
        if usage[r] / cluster[r] > usage[best] / cluster[best]:
            best = r
    return best


@callee
def _order_by_usage_ratio(usage, cluster, order) -> None:
    """Resource indices by usage/cluster descending, stable (``sortRatios``: ``Arrays.sort`` on objects)."""
    m = len(cluster)
    for r in range(m):
        order[r] = r
    for i in range(1, m):
        j = i
        while j > 0 and usage[order[j]] / cluster[order[j]] > usage[order[j - 1]] / cluster[order[j - 1]]:
            t = order[j]
            order[j] = order[j - 1]
            order[j - 1] = t
            j -= 1


def drf_compare(usage1, min1, weight1: float, start1: float, rank1: int, usage2, min2, weight2: float,
                start2: float, rank2: int, cluster, o1, o2) -> int:
    r"""The Fair Scheduler's DRF comparator: -1 when schedulable 1 goes first (``DominantResourceFairnessComparatorN``).

    Parameters
    ----------
    usage1, min1, usage2, min2 : ndarray of float, shape (m,)
        Resource usage and min share of each schedulable.
    weight1, weight2 : float
    start1, start2 : float
        Start times (0 for queues).
    rank1, rank2 : int
        Position of the name in name order (the last tie-break).
    cluster : ndarray of float, shape (m,)
        Cluster capacity (all > 0).
    o1, o2 : ndarray of int64, shape (m,)
        Work space.

    Returns
    -------
    int
        -1, 0 or 1.

    Examples
    --------
    Usage <10 GB, 5 vcores> vs <40 GB, 1 vcore> on <100, 10>: dominant shares 0.5 vs 0.4: the second first.

    >>> c = np.array([100.0, 10.0]); z = np.zeros(2); w = np.empty(2, np.int64)
    >>> drf_compare(np.array([10.0, 5.0]), z, 1.0, 0.0, 0, np.array([40.0, 1.0]), z, 1.0, 0.0, 1, c, w, w.copy())
    1
    """
    m = len(cluster)
    x = np.empty(m)
    y = np.empty(m)
    needy1 = _compared_ratios_into(usage1, min1, weight1, cluster, o1, x)
    needy2 = _compared_ratios_into(usage2, min2, weight2, cluster, o2, y)
    res = 0
    if needy1 and not needy2:
        res = -1
    elif needy2 and not needy1:
        res = 1
    else:
        for r in range(m):
            res = _jsign(float(x[r]) - float(y[r]))       # Python floats: inf - inf is NaN without a warning
            if res != 0:
                break
    if res == 0:
        res = _jsign(start1 - start2)
    if res == 0:
        res = -1 if rank1 < rank2 else (1 if rank1 > rank2 else 0)
    return res


@callee
def _java_div(x: float, y: float) -> float:
    """``x / y`` as Java's floating point does it: a zero divisor gives inf, or NaN for 0/0."""
    if y == 0.0:
        if x == 0.0:
            return math.nan
        return math.inf
    return x / y


@callee
def _compared_ratios_into(usage, min_share, weight: float, cluster, order, out) -> bool:
    """The ratios the comparator compares, in its order (usage/cluster descending); returns neediness.

    Needy (usage of the dominant resource below its min share): usage/min share; else usage/cluster/weight.
    """
    d = _dominant(usage, cluster)
    needy = usage[d] < min_share[d]
    _order_by_usage_ratio(usage, cluster, order)
    for r in range(len(cluster)):
        a = order[r]
        if needy:
            out[r] = _java_div(usage[a], min_share[a])
        else:
            out[r] = _java_div(usage[a] / cluster[a], weight)
    return needy


def drf_key_into(usage, min_share, weight: float, cluster, out) -> None:
    r"""A sort key (lower first) equal to :func:`drf_compare`'s order when weights and min shares are > 0.

    ``out[0]`` is 0 when needy, 1 when not; ``out[1:]`` the ratios the comparator compares, in its order
    (usage/min share when needy, usage/cluster/weight when not). Without the start-time and name
    tie-breaks, which the caller appends. With a weight of 0 or a min share of 0 on a resource where the
    usage is 0, the comparator meets NaN (equal to anything) and no key reproduces it: use
    :func:`drf_compare` there.

    Parameters
    ----------
    usage, min_share : ndarray of float, shape (m,)
    weight : float
    cluster : ndarray of float, shape (m,)
    out : ndarray of float, shape (m + 1,)

    Examples
    --------
    >>> out = np.empty(3)
    >>> drf_key_into(np.array([10.0, 5.0]), np.zeros(2), 2.0, np.array([100.0, 10.0]), out); out.tolist()
    [1.0, 0.25, 0.05]
    """
    order = np.empty(len(cluster), dtype=np.int64)
    needy = _compared_ratios_into(usage, min_share, weight, cluster, order, out[1:])
    out[0] = 0.0 if needy else 1.0


@callee
def fits_in_max_share(v: int, request, parent, usage, max_share) -> bool:
    """``FSQueue.fitsInMaxShare``: the queue's usage plus ``request`` fits in its max share, and so at every
    ancestor (the root, ``parent`` -1, included).

    Parameters
    ----------
    v : int
        The leaf queue.
    request : ndarray of float, shape (m,)
    parent : ndarray of int64
    usage, max_share : ndarray of float, shape (n_nodes, m)
        Each queue's usage (its subtree's) and max share (``inf`` unset).

    Examples
    --------
    Queue 1 (max 10) using 9 cannot take 2 more; 1 more fits:

    >>> p, u, mx = np.array([-1, 0]), np.array([[9.0], [9.0]]), np.array([[np.inf], [10.0]])
    >>> fits_in_max_share(1, np.array([2.0]), p, u, mx), fits_in_max_share(1, np.array([1.0]), p, u, mx)
    (False, True)
    """
    node = v
    while node >= 0:
        for r in range(len(request)):
            if usage[node, r] + request[r] > max_share[node, r]:
                return False
        node = parent[node]
    return True


@callee
def drc_compare(a, b, cluster, single_type: bool) -> int:
    """``DominantResourceCalculator.compare``: dominant shares only (``single_type``), else the share vectors
    sorted descending, lexicographically.

    Parameters
    ----------
    a, b : ndarray of float, shape (m,)
        Two resource vectors.
    cluster : ndarray of float, shape (m,)
    single_type : bool

    Returns
    -------
    int
        -1, 0 or 1.

    Examples
    --------
    <2, 1> vs <1, 2> on <10, 10>: equal as single type (both 0.2); equal as vectors too (0.2, 0.1 each):

    >>> c = np.array([10.0, 10.0])
    >>> drc_compare(np.array([2.0, 1.0]), np.array([1.0, 2.0]), c, True), drc_compare(np.array([3.0, 1.0]), np.array([1.0, 2.0]), c, False)
    (0, 1)
    """
    m = len(cluster)
    if single_type:
        return _drc_single(a, b, cluster)
    same = True
    for r in range(m):
        if a[r] != b[r]:
            same = False
            break
    if same:
        return 0
    sa = np.empty(m)
    sb = np.empty(m)
    for r in range(m):
        sa[r] = a[r] / cluster[r]
        sb[r] = b[r] / cluster[r]
    sa.sort()
    sb.sort()
    for r in range(m - 1, -1, -1):
        d = sa[r] - sb[r]
        if d != 0.0:
            return _jsign(d)
    return 0


@callee
def _drc_single(a, b, cluster) -> int:
    """:func:`drc_compare` with ``single_type``: 0 when the vectors are equal, else the sign of the difference of
    their dominant shares (allocation-free: compiled callers without reference counting call it)."""
    m = len(cluster)
    same = True
    for r in range(m):
        if a[r] != b[r]:
            same = False
            break
    if same:
        return 0
    ma = 0.0
    mb = 0.0
    for r in range(m):
        x = a[r] / cluster[r]
        y = b[r] / cluster[r]
        if x > ma:
            ma = x
        if y > mb:
            mb = y
    return _jsign(ma - mb)


@callee
def usage_below_share(usage, share, cluster) -> bool:
    """``FSAppAttempt.isUsageBelowShare`` under DRF: the dominant share of ``usage`` is below that of ``share``.

    Parameters
    ----------
    usage, share, cluster : ndarray of float, shape (m,)

    Returns
    -------
    bool

    Examples
    --------
    >>> usage_below_share(np.array([2.0, 1.0]), np.array([1.0, 3.0]), np.array([10.0, 10.0]))
    True
    """
    return _drc_single(usage, share, cluster) < 0


@callee
def starvation_goal_into(fair_share, demand, threshold: float, out) -> None:
    r"""The share an application is held to (``FSAppAttempt.fairShareStarvation``): :math:`G_r = \min(\lfloor \theta
    F_r\rfloor, D_r)` (the threshold times the fair share, truncated as Java's ``Resources.multiply`` of whole
    amounts, capped by the demand).

    Parameters
    ----------
    fair_share, demand : ndarray of float, shape (m,)
        The application's instantaneous fair share :math:`F` and its demand :math:`D` per resource.
    threshold : float
        ``fairSharePreemptionThreshold`` :math:`\theta`.
    out : ndarray of float, shape (m,)
        Receives :math:`G`.

    Examples
    --------
    >>> out = np.empty(2); starvation_goal_into(np.array([8.0, 5.0]), np.array([6.0, 1.0]), 0.5, out); out.tolist()
    [4.0, 1.0]
    """
    for r in range(len(out)):
        g = math.floor(fair_share[r] * threshold)
        out[r] = g if g < demand[r] else demand[r]


def fairshare_starvation_into(usage, fair_share, demand, threshold: float, cluster, now: float,
                              last_time_at_fair_share: float, timeout: float, out) -> float:
    r"""``FSAppAttempt.fairShareStarvation``: an application's fair-share starvation; returns the updated timer.

    :math:`G = \min(\lfloor\theta F\rfloor, D)` componentwise; starved when the usage is below :math:`G`
    (:func:`usage_below_share`); a non-starved application resets its timer to ``now``; the starvation is
    :math:`\max(0, G - U)` once starved for at least ``timeout`` seconds, else 0.

    Parameters
    ----------
    usage, fair_share, demand : ndarray of float, shape (m,)
    threshold : float
        ``fairSharePreemptionThreshold`` of its queue.
    cluster : ndarray of float, shape (m,)
    now, last_time_at_fair_share, timeout : float
        Seconds.
    out : ndarray of float, shape (m,)
        Receives the starvation.

    Returns
    -------
    float
        The new ``lastTimeAtFairShare``.

    Examples
    --------
    Fair share <8, 4>, threshold 0.5, demand <6, 6>: G = <4, 2>; usage <1, 1> is below; starved since t=0,
    timeout 10: nothing at t=5, <3, 1> at t=10:

    >>> out = np.empty(2); c = np.array([16.0, 8.0]); f = np.array([8.0, 4.0]); d = np.array([6.0, 6.0])
    >>> fairshare_starvation_into(np.ones(2), f, d, 0.5, c, 5.0, 0.0, 10.0, out), out.tolist()
    (0.0, [0.0, 0.0])
    >>> fairshare_starvation_into(np.ones(2), f, d, 0.5, c, 10.0, 0.0, 10.0, out), out.tolist()
    (0.0, [3.0, 1.0])
    """
    m = len(cluster)
    goal = np.empty(m)
    starvation_goal_into(fair_share, demand, threshold, goal)
    starved = usage_below_share(usage, goal, cluster)
    last = last_time_at_fair_share
    if not starved:
        last = now
    for r in range(m):
        out[r] = 0.0
    if starved and not (now - last < timeout):
        for r in range(m):
            x = goal[r] - usage[r]
            out[r] = x if x > 0.0 else 0.0
    return last


def minshare_starvation_into(usage, min_share, demand, cluster, now: float, last_time_at_min_share: float,
                             timeout: float, out) -> float:
    r"""``FSLeafQueue.minShareStarvation``: a queue's min-share starvation; returns the updated timer.

    The desired share is the smaller of the min share and the demand by the DRF calculator
    (:func:`drc_compare`, whole vectors); the queue is starved when the desired share minus the usage has
    any non-zero component (*as the code runs*, a queue above its min share everywhere counts as starved for
    the timer, though its starvation is 0 once ``updateStarvedApps`` takes the non-negative part, which
    ``out`` holds).

    Parameters
    ----------
    usage, min_share, demand, cluster : ndarray of float, shape (m,)
    now, last_time_at_min_share, timeout : float
    out : ndarray of float, shape (m,)
        Receives :math:`\max(0, \text{desired} - U)` once the timeout has passed, else 0.

    Returns
    -------
    float
        The new ``lastTimeAtMinShare``.

    Examples
    --------
    Min share <4, 4>, demand <10, 10>, usage <1, 4>, starved since t=0 with timeout 5, at t=7: <3, 0>:

    >>> out = np.empty(2)
    >>> minshare_starvation_into(np.array([1.0, 4.0]), np.full(2, 4.0), np.full(2, 10.0), np.full(2, 20.0), 7.0,
    ...                          0.0, 5.0, out), out.tolist()
    (0.0, [3.0, 0.0])
    """
    m = len(cluster)
    desired = min_share if drc_compare(min_share, demand, cluster, False) <= 0 else demand
    starved = False
    for r in range(m):
        if desired[r] - usage[r] != 0.0:
            starved = True
    last = last_time_at_min_share
    if not starved:
        last = now
    for r in range(m):
        out[r] = 0.0
    if not (now - last < timeout):
        for r in range(m):
            x = desired[r] - usage[r]
            out[r] = x if x > 0.0 else 0.0
    return last


@callee
def can_preempt(usage_after, fair_share, cluster) -> bool:
    """``FSAppAttempt.canContainerBePreempted``: the application stays at or above its fair share without the container.

    Parameters
    ----------
    usage_after : ndarray of float, shape (m,)
        The application's usage without the container (and those already chosen).
    fair_share, cluster : ndarray of float, shape (m,)

    Returns
    -------
    bool

    Examples
    --------
    >>> c = np.array([10.0, 10.0])
    >>> can_preempt(np.array([4.0, 1.0]), np.array([3.0, 3.0]), c), can_preempt(np.array([2.0, 1.0]), np.array([3.0, 3.0]), c)
    (True, False)
    """
    return not usage_below_share(usage_after, fair_share, cluster)


def should_attempt_preemption(allocated, cluster, threshold: float = DEFAULT_UTILIZATION_THRESHOLD,
                              columns: tuple = (0, 1)) -> bool:
    """``FairScheduler.shouldAttemptPreemption`` (with preemption on): ``threshold`` < the largest utilization of ``columns``.

    The code reads memory and vcores only (YARN's resources 0 and 1, the default ``columns``); the page
    says "among all resources" (pass ``columns=range(m)`` for that reading). The ratios are ``float``.

    Parameters
    ----------
    allocated, cluster : array_like (m,)
    threshold : float, optional
        ``preemption.cluster-utilization-threshold`` (default 0.8).
    columns : tuple of int, optional
        The columns read (default memory and vcores, 0 and 1).

    Returns
    -------
    bool

    Examples
    --------
    GPUs full but memory and vcores at half: no preemption as the code runs; yes by the page:

    >>> a, c = np.array([50.0, 5.0, 8.0]), np.array([100.0, 10.0, 8.0])
    >>> should_attempt_preemption(a, c), should_attempt_preemption(a, c, columns=(0, 1, 2))
    (False, True)
    """
    u = max(float(np.float32(allocated[r]) / np.float32(cluster[r])) for r in columns)
    return bool(np.float32(threshold) < u)


class YarnQueues:
    r"""The Fair Scheduler's queue tree over an :class:`~fairalloc.accounts.AccountTree`.

    Parameters
    ----------
    tree : AccountTree
        Accounts are queues, users are applications (module docstring).
    resources : sequence of str, optional
        Column names (default the tree's, else ``memory-mb``, ``vcores``, ...; needs ``n_columns``).
    n_columns : int, optional
        Number of columns when the tree names no resources (default 2).

    Raises
    ------
    InvalidInstanceError
        ``FairShare=parent`` shares, min or max shares that are not whole numbers.

    Attributes
    ----------
    weight : ndarray (n_nodes,)
    min_share, max_share : ndarray (n_nodes, n_columns)
        0 and ``inf`` where unset.
    threshold, fair_share_timeout, min_share_timeout : ndarray (n_nodes,)
        The preemption settings after inheritance (defaults 0.5, ``inf``, ``inf``).

    Examples
    --------
    Queue ``a`` below its min share goes first although it uses more (FairScheduler.md, minResources):

    >>> from fairalloc.accounts import AccountTree
    >>> t = AccountTree([{"account": "a", "min_share": {"memory-mb": 60, "vcores": 6}}, {"account": "b"}],
    ...                 resources=["memory-mb", "vcores"])
    >>> y = YarnQueues(t)
    >>> use = np.array([[0, 0], [40, 4], [10, 1]])
    >>> [t.names[v] for v in y.order([1, 2], use, [100, 10])]
    ['a', 'b']
    """

    def __init__(self, tree: AccountTree, *, resources: Sequence[str] | None = None,
                 n_columns: int | None = None) -> None:
        no_parent_shares(tree, "YARN")
        if resources is None:
            resources = list(tree.resources) or ["memory-mb", "vcores"][: n_columns or 2] + [
                f"r{k}" for k in range(2, n_columns or 2)]
        self.tree = tree
        self.resources = tuple(str(r) for r in resources)
        m = len(self.resources)
        self.weight = node_scalar(tree, "weight", 1.0)
        self.min_share = node_vector(tree, "min_share", 0.0, m)
        self.max_share = node_vector(tree, "max_share", math.inf, m)
        for name, arr in (("min_share", self.min_share), ("max_share", self.max_share)):
            fin = np.where(np.isfinite(arr), arr, 0.0)
            require_integral(name, fin)
        self.threshold = self._inherit("fair_share_preemption_threshold", DEFAULT_FAIR_SHARE_THRESHOLD)
        self.fair_share_timeout = self._inherit("fair_share_preemption_timeout", math.inf)
        self.min_share_timeout = self._inherit("min_share_preemption_timeout", math.inf)

    def _inherit(self, field: str, default: float) -> np.ndarray:
        """Per node, its own value or its nearest ancestor's ("If not set, the queue will inherit the value from its parent")."""
        a = np.array(self.tree.attribute(field), dtype=float)
        if np.isnan(a[0]):
            a[0] = default
        for v in self.tree.preorder[1:]:
            if np.isnan(a[v]):
                a[v] = a[self.tree.parent[v]]
        return a

    @property
    def n_columns(self) -> int:
        return len(self.resources)

    def fair_shares(self, total: Any, *, active: Any = None, steady: bool = False,
                    allow_overcommit: bool = False, units: int | None = None) -> np.ndarray:
        """Every node's fair share, top-down from the root's ``total`` (``recomputeShares``), shape (n_nodes, n_columns).

        Parameters
        ----------
        total : array_like (n_columns,)
            The cluster (whole numbers).
        active : array_like of bool (n_users,), optional
            Applications with demand (instantaneous shares); an account is active when a user below it
            is. Default: all.
        steady : bool, optional
            Steady fair shares (``computeSteadyShares``: every node counts, active or not).
        allow_overcommit : bool, optional
            Accept min shares of the root's children adding up to more than ``total`` (YARN then hands
            out more than the cluster); default False: refused.
        units : int, optional
            Count each resource in whole units of ``total / units`` (a cluster whose amounts are not whole
            numbers, as the simulator's pools: YARN truncates to whole MB and vcores, this to whole units):
            the total becomes ``units``, the min and max shares ``floor(share * units / total)``, and the
            shares are returned in these units. Default: the amounts as given (whole numbers).

        Raises
        ------
        InvalidInstanceError
            A total that is not a whole number, a wrong ``active`` shape, min shares larger than the cluster.

        Examples
        --------
        See the module docstring.
        """
        t = self.tree
        m = self.n_columns
        tot = user_matrix("total", np.asarray(total, dtype=float).reshape(1, -1), 1, m, rows="rows")[0]
        if units is not None:
            lo, hi = self.scaled_shares(tot, units)
            view = object.__new__(YarnQueues)
            view.__dict__.update(self.__dict__, min_share=lo, max_share=hi)
            return view.fair_shares(np.full(m, float(units)), active=active, steady=steady,
                                    allow_overcommit=allow_overcommit)
        require_integral("total", tot)
        act_u = np.ones(t.n_users, dtype=bool) if active is None else np.asarray(active, dtype=bool)
        if act_u.shape != (t.n_users,):
            raise InvalidInstanceError(f"active must have shape ({t.n_users},), got {act_u.shape}", argument="active",
                                       value=act_u.shape)
        act = t.subtree_sum(act_u.astype(float)) > 0
        top = t.fs_children[t.fs_child_ptr[0]:t.fs_child_ptr[1]]
        over = np.flatnonzero(self.min_share[top].sum(axis=0) > tot)
        if over.size and not allow_overcommit:
            r = int(over[0])
            big = int(top[np.argmax(self.min_share[top, r])])
            raise InvalidInstanceError(
                f"min shares of {self.resources[r]!r} under root add up to {float(self.min_share[top, r].sum())!r}, more "
                f"than the cluster's {float(tot[r])!r} (largest: {t.names[big]!r} with {float(self.min_share[big, r])!r}); "
                "pass allow_overcommit=True to keep them", argument="min_share", index=(big, r),
                value=float(self.min_share[top, r].sum()))
        out = np.zeros((t.n_nodes, m))
        out[0] = tot
        ptr, ch = t.fs_child_ptr, t.fs_children
        for v in t.preorder:
            kids = ch[ptr[v]:ptr[v + 1]]
            if len(kids) == 0:
                continue
            free = np.empty(len(kids), dtype=bool)
            col = np.empty(len(kids))
            for r in range(m):
                compute_shares_into(self.weight[kids], self.min_share[kids, r], self.max_share[kids, r], act[kids],
                                    out[v, r], steady, col, free)
                out[kids, r] = col
        return out

    def scaled_shares(self, total: Any, units: int) -> tuple[np.ndarray, np.ndarray]:
        """The min and max shares counted in whole units of ``total / units`` per resource (:meth:`fair_shares`'
        ``units``): ``floor(share * units / total)``, ``inf`` kept."""
        scale = float(units) / np.asarray(total, dtype=float)
        with np.errstate(invalid="ignore"):
            lo = np.floor(self.min_share * scale)
            hi = np.where(np.isfinite(self.max_share), np.floor(self.max_share * scale), np.inf)
        return lo, hi

    def preemption_settings(self, threshold: float | None = None,
                            timeout: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Each node's ``fairSharePreemptionThreshold`` and ``fairSharePreemptionTimeout`` (seconds), inherited
        from the parent when unset, with ``threshold`` and ``timeout`` in place of the root's defaults when the
        root sets none (the allocation file's ``defaultFairSharePreemptionThreshold`` and
        ``defaultFairSharePreemptionTimeout``; YARN's defaults 0.5 and never)."""
        th = self._inherit("fair_share_preemption_threshold",
                           DEFAULT_FAIR_SHARE_THRESHOLD if threshold is None else float(threshold))
        to = self._inherit("fair_share_preemption_timeout", math.inf if timeout is None else float(timeout))
        return th, to

    def compare(self, i: int, j: int, usage: Any, cluster: Any, *, start: Any = None) -> int:
        """:func:`drf_compare` of nodes ``i`` and ``j`` at ``usage`` (n_nodes, n_columns); names give the last tie-break."""
        u = np.asarray(usage, dtype=float)
        c = np.asarray(cluster, dtype=float)
        st = np.zeros(self.tree.n_nodes) if start is None else np.asarray(start, dtype=float)
        rank = {v: k for k, v in enumerate(sorted(range(self.tree.n_nodes), key=lambda v: self.tree.names[v]))}
        w = np.empty(self.n_columns, np.int64)
        return drf_compare(u[i], self.min_share[i], float(self.weight[i]), float(st[i]), rank[i], u[j],
                           self.min_share[j], float(self.weight[j]), float(st[j]), rank[j], c, w, w.copy())

    def order(self, nodes: Sequence[int], usage: Any, cluster: Any, *, start: Any = None) -> list[int]:
        """``nodes`` sorted by the DRF comparator (the order siblings are offered a container)."""
        from functools import cmp_to_key

        return sorted(nodes, key=cmp_to_key(lambda a, b: self.compare(a, b, usage, cluster, start=start)))

    def __repr__(self) -> str:
        return f"YarnQueues({len(self.tree.account_names) - 1} queues, {self.tree.n_users} apps, resources={list(self.resources)})"

