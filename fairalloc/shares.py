r"""THE formulas: shares, dominant resources, commitments' dominant entry, utilities, task shares.

Every other module (water-filling, LPs, MILPs, greedy schedulers, simulators, axiom checkers) calls
these functions; no formula below is written a second time anywhere in fairalloc.

Notation (SDRF paper [1]_ Section 3-4, TV-TSF paper [2]_ Section 1):

* ``demands[i, r]`` = :math:`\theta_{ir}`, user *i*'s total demand of resource *r* in capacity units;
  ``capacities[r]`` = :math:`C_r`. The normalised demand is :math:`a_{ir} = \theta_{ir} / C_r`.
* dominant share :math:`\mu_i = \max_r a_{ir}`; dominant resource :math:`\tilde r_i = \arg\max_r a_{ir}`
  (ties: lowest index); normalised demand vector :math:`\tilde\theta_{ir} = a_{ir} / \mu_i` (dominant entry 1).
* dominant commitment :math:`\tilde c_i = \max_r c_{ir}` (commitments as fractions of capacity).
* Leontief utility (SDRF Eq. 1): :math:`u_i(o_i) = \min\{\min_{r:\theta_{ir}>0} o_{ir}/\theta_{ir},\ 1\}`.
* SDRF level (Eq. 5): :math:`(\tilde c_i + s_i) / w_i` with :math:`s_i` the dominant share held.
* Servers: ``server_capacities[m, r]`` = :math:`C_{mr}`; per-task demand :math:`d_{ir}`. Tasks that fit
  on a capacity vector: :math:`\lfloor \min_{r: d_{ir}>0} C_r / d_{ir} \rfloor`. Monopoly count
  (TV-TSF Eq. 4, TSF): :math:`h_i = \sum_m \lfloor\min_r C_{mr}/d_{ir}\rfloor`; task share
  :math:`x_i / (w_i h_i)`; cumulative task share (TV-TSF Eq. 3)
  :math:`s_i(T) = \sum_{t\le T} x_i(t) / \sum_{t\le T} w_i(t) h_i(t)`.

All functions take plain arrays (they are used on misreported and perturbed inputs too) and never
modify them. Units: a ratio of two quantities in the same units is unit-free, so raw (cores, GB) or
normalised inputs give the same shares as long as demands and capacities agree.

References
----------
.. [1] H. Sadok, M. Campista, L. Costa, "O Passado Também Importa: Um Mecanismo de Alocação Justa de
   Múltiplos Tipos de Recursos ao Longo do Tempo", SBRC 2018.
.. [2] Li Jie, Wang Jianzhou, "A fair multi-resource allocation mechanism for time-varying discrete
   jobs with placement constraints", Chinese Journal on Internet of Things, 2024.
.. [3] A. Ghodsi et al., "Dominant Resource Fairness: Fair Allocation of Multiple Resource Types",
   NSDI 2011.
"""

from __future__ import annotations

import math

import numpy as np

from ._numeric import lastmax, lastmin
from .tolerance import FLOOR_EPS

__all__ = [
    "normalized_demands",
    "dominant_resource",
    "dominant_shares",
    "demand_vectors",
    "dominant_commitment",
    "fair_shares",
    "leontief_utility",
    "sdrf_levels",
    "sdrf_printed_priorities",
    "normalized_capacities",
    "tasks_that_fit",
    "task_fits",
    "task_fits_row",
    "dominant_share_row",
    "task_fits_rows",
    "tasks_that_fit_one",
    "monopoly_tasks",
    "task_shares",
    "cumulative_task_shares",
    "dominant_share_of_tasks",
    "asset_shares",
    "commitment_entitlements",
    "next_task_dominant_shares",
    "dominant_shares_after",
    "dominant_share_after_one",
    "commitment_envy_gap",
]


def _num(x) -> np.ndarray:
    """``x`` as a float array, or unchanged if it is an object array of exact rationals.

    Object arrays (``fractions.Fraction`` entries) let the axiom checkers evaluate these same formulas
    in exact arithmetic on small instances; every other input is converted to float as before.
    """
    a = np.asarray(x)
    return a if a.dtype == object else np.asarray(a, dtype=float)


def normalized_demands(demands, capacities) -> np.ndarray:
    r"""Demands as fractions of capacity, :math:`a_{ir} = \theta_{ir} / C_r`.

    The one place fairalloc divides a demand by a capacity.

    Parameters
    ----------
    demands : array_like, shape (..., m)
        :math:`\theta_{ir}`: demands (or allocations) in capacity units, last axis the resource.
    capacities : array_like, shape (m,)
        :math:`C_r`, in the same units as ``demands``; entries must be nonzero (no check here: a zero
        capacity gives ``inf`` or ``nan``, validate with :class:`fairalloc.Instance` first).

    Returns
    -------
    ndarray, shape (..., m)
        :math:`a_{ir}`, floats (an object array stays exact when both inputs hold ``Fraction``).

    See Also
    --------
    dominant_shares : the largest entry of each row.

    Examples
    --------
    The DRF paper's example (Ghodsi et al. [3]_ Section 4): 9 CPUs and 18 GB, user A's task needs
    <1 CPU, 4 GB>, user B's <3 CPU, 1 GB>; so A's row is 1/9, 4/18 and B's 3/9, 1/18:

    >>> normalized_demands([[1, 4], [3, 1]], [9, 18]).round(4).tolist()
    [[0.1111, 0.2222], [0.3333, 0.0556]]
    """
    return _num(demands) / _num(capacities)


def dominant_resource(normalized) -> np.ndarray:
    r"""Index of each user's dominant resource :math:`\tilde r_i = \arg\max_r a_{ir}` (ties: lowest index).

    Parameters
    ----------
    normalized : array_like, shape (..., m)
        Normalised demands or allocations :math:`a_{ir}` (:func:`normalized_demands`).

    Returns
    -------
    ndarray of int, shape (...)
        The argmax along the last axis; on ties the first (lowest) index.

    Examples
    --------
    In the DRF paper's example, A (4/18 > 1/9) is memory-dominant and B (3/9 > 1/18) CPU-dominant:

    >>> dominant_resource(normalized_demands([[1, 4], [3, 1]], [9, 18])).tolist()
    [1, 0]
    >>> dominant_resource([[0.5, 0.5]]).tolist()        # a tie goes to the lower index
    [0]
    """
    return np.argmax(np.asarray(normalized, dtype=float), axis=-1)  # first maximum on ties


def dominant_shares(allocation, capacities=None, weights=None) -> np.ndarray:
    r"""Dominant share :math:`\mu_i = \max_r o_{ir} / C_r` of each row; weighted: :math:`\max_r o_{ir} / (C_r w_i)`.

    The weighted dominant share is the quantity weighted DRF equalises (Ghodsi et al. [3]_ Section 4.1,
    Parkes et al. 2015).

    Parameters
    ----------
    allocation : array_like, shape (..., m)
        Allocations or demands, one row per user, last axis the resource.
    capacities : array_like, shape (m,), optional
        :math:`C_r`. ``None`` (default) takes ``allocation`` as already normalised (fractions of capacity).
    weights : array_like, shape (n,), optional
        :math:`w_i > 0`; they divide the share. ``None`` (default) is unit weights.

    Returns
    -------
    ndarray, shape (...)
        One dominant share per row; object arrays of ``Fraction`` are computed exactly.

    See Also
    --------
    dominant_resource, normalized_demands, dominant_share_of_tasks

    Examples
    --------
    DRF's allocation in the DRF paper (Section 4): A runs 3 tasks (<3 CPU, 12 GB>, share 12/18 = 2/3)
    and B 2 tasks (<6 CPU, 2 GB>, share 6/9 = 2/3); weight 2 halves B's:

    >>> dominant_shares([[3, 12], [6, 2]], [9, 18]).round(4).tolist()
    [0.6667, 0.6667]
    >>> dominant_shares([[3, 12], [6, 2]], [9, 18], weights=[1, 2]).round(4).tolist()
    [0.6667, 0.3333]
    """
    a = _num(allocation)
    if capacities is not None:
        a = normalized_demands(a, capacities)
    s = lastmax(a)
    return s if weights is None else s / _num(weights)


def demand_vectors(normalized, dominant=None) -> np.ndarray:
    r"""Normalised demand vectors :math:`\tilde\theta_{ir} = a_{ir} / \max_r a_{ir}` (dominant entry 1).

    Parameters
    ----------
    normalized : array_like, shape (..., m)
        Normalised demands :math:`a_{ir}`; each row needs a positive entry (a zero row divides by 0).
    dominant : array_like, shape (...), optional
        The already computed :func:`dominant_shares` of ``normalized``; computed when ``None``.

    Returns
    -------
    ndarray, shape (..., m)
        Each row divided by its largest entry.

    Examples
    --------
    Row 0: 0.5 and 0.25 divided by 0.5; row 1: 0.1 and 0.4 divided by 0.4:

    >>> demand_vectors([[0.5, 0.25], [0.1, 0.4]]).tolist()
    [[1.0, 0.5], [0.25, 1.0]]
    """
    a = np.asarray(normalized, dtype=float)
    mu = lastmax(a) if dominant is None else np.asarray(dominant, dtype=float)
    return a / mu[..., None]


def dominant_commitment(commitments) -> np.ndarray:
    r"""Dominant commitment :math:`\tilde c_i = \max_r c_{ir}` (SDRF Section 4.4).

    Parameters
    ----------
    commitments : array_like, shape (n, m)
        :math:`c_{ir}`, commitments as fractions of capacity (:mod:`fairalloc.commitments`).

    Returns
    -------
    ndarray, shape (n,)
        The largest commitment of each user (exact for ``Fraction`` object arrays).

    See Also
    --------
    sdrf_levels, commitment_entitlements

    Examples
    --------
    >>> dominant_commitment([[0.1, 0.3], [0.0, 0.0]]).tolist()      # max(0.1, 0.3), max(0, 0)
    [0.3, 0.0]
    """
    return lastmax(_num(commitments))


def fair_shares(weights) -> np.ndarray:
    r"""Each user's fair share of every resource: :math:`w_i / \sum_j w_j` (1/n with equal weights).

    Parameters
    ----------
    weights : array_like, shape (n,)
        :math:`w_i > 0` (not checked here).

    Returns
    -------
    ndarray, shape (n,)
        The shares; they sum to 1.

    Examples
    --------
    Weights 1, 1, 2 sum to 4:

    >>> fair_shares([1, 1, 2]).tolist()
    [0.25, 0.25, 0.5]
    """
    w = _num(weights)
    return w / w.sum()


def leontief_utility(bundle, demand, cap=1.0) -> np.ndarray:
    r"""Leontief utility :math:`\min\{\mathrm{cap},\ \min_{r: d_r>0} A_r / d_r\}` (SDRF Eq. 1 with cap 1).

    With ``demand`` the user's *total* demand and ``cap=1`` this is SDRF Eq. 1 (fraction of the demand
    served). With ``demand`` a *per-task* vector and ``cap`` the task count (or ``np.inf``), it is the
    number of tasks the bundle runs (``axioms.md``, divisible utility). Resources the user does not
    need (``d_r = 0``) are ignored. Envy uses it with another user's bundle: ``u_i(A_j)``.

    Parameters
    ----------
    bundle : array_like, shape (..., m)
        :math:`A_r`, the resources held; broadcast against ``demand`` along leading axes.
    demand : array_like, shape (..., m)
        :math:`d_r \ge 0`, total or per-task demand in the same units as ``bundle``.
    cap : float, optional
        Upper bound on the utility (default 1, SDRF Eq. 1); ``np.inf`` for a task count.

    Returns
    -------
    ndarray, shape (...)
        The utility of each bundle; ``cap`` when the demand has no positive entry. Object arrays of
        ``Fraction`` stay exact.

    See Also
    --------
    tasks_that_fit : the same ratio, floored to whole tasks.

    Examples
    --------
    DRF paper, user A (task <1, 4>) holding <3, 12> runs min(3/1, 12/4) = 3 tasks; a user needing only
    resource 0 gets 0.2 / 0.4 = 0.5 of its demand:

    >>> leontief_utility([3, 12], [1, 4], cap=np.inf).item()
    3.0
    >>> leontief_utility([[0.2, 0.5]], [[0.4, 0.0]]).tolist()
    [0.5]

    Exact rationals (object arrays of ``Fraction``) stay exact: min((1/3)/1, (1/2)/1) = 1/3.

    >>> from fractions import Fraction as F
    >>> leontief_utility(np.array([F(1, 3), F(1, 2)], dtype=object), np.array([F(1), F(1)], dtype=object)).item()
    Fraction(1, 3)
    """
    a = _num(bundle)
    d = _num(demand)
    a, d = np.broadcast_arrays(a, d)
    if a.dtype == object or d.dtype == object:         # exact arithmetic: no inf/nan tricks
        need = d > 0
        ratio = np.where(need, a / np.where(need, d, 1), np.inf)
        return np.asarray(np.minimum(lastmin(ratio), cap), dtype=object)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = a / d                                   # x/0 = inf for x > 0; 0/0 = nan
    ratio[d <= 0] = np.inf                              # resources the user does not need
    return np.minimum(lastmin(ratio), cap)


def sdrf_levels(dominant_share, commitments, weights=None) -> np.ndarray:
    r"""SDRF level of each user, :math:`(\tilde c_i + s_i) / w_i` (SDRF Eq. 5; weights divide).

    With unit weights this is the water height of user *i*'s tank in Eq. 5: its commitment base plus
    the dominant share it holds.

    Parameters
    ----------
    dominant_share : array_like, shape (n,)
        :math:`s_i`, the dominant share held (normalised).
    commitments : array_like, shape (n, m) or (n,)
        Commitments as fractions of capacity, or the dominant commitments :math:`\tilde c_i`.
    weights : array_like, shape (n,), optional
        :math:`w_i > 0`; ``None`` (default) is unit weights.

    Returns
    -------
    ndarray, shape (n,)
        The levels; SDRF serves the lowest level first.

    See Also
    --------
    sdrf_printed_priorities : Algorithm 1's priority as printed in the paper.

    Examples
    --------
    User 0 holds 0.4 on a commitment of 0.2, user 1 holds 0.6 on none: both reach 0.6 (user 0's in
    floating point as 0.2 + 0.4):

    >>> sdrf_levels([0.4, 0.6], [[0.2], [0.0]]).tolist()
    [0.6000000000000001, 0.6]
    """
    c = np.asarray(commitments, dtype=float)
    ct = dominant_commitment(c) if c.ndim == 2 else c
    lev = ct + np.asarray(dominant_share, dtype=float)
    return lev if weights is None else lev / np.asarray(weights, dtype=float)


def sdrf_printed_priorities(allocation, commitments, weights=None) -> np.ndarray:
    r"""SDRF Algorithm 1's priority as printed: :math:`\max_r (o_{ir} + c_{ir}) / w_i`.

    It differs from :func:`sdrf_levels` (:math:`\max_r o_{ir} + \max_r c_{ir}`, Eq. 5's order) when the
    resource that dominates the allocation is not the one that dominates the commitment
    (``papers/sdrf.md``, errata); the weight divides, as in :func:`sdrf_levels`.

    Parameters
    ----------
    allocation : array_like, shape (n, m)
        :math:`o_{ir}`, normalised (fractions of capacity).
    commitments : array_like, shape (n, m)
        :math:`c_{ir}`, fractions of capacity.
    weights : array_like, shape (n,), optional
        :math:`w_i > 0`; ``None`` (default) is unit weights.

    Returns
    -------
    ndarray, shape (n,)
        The printed priorities.

    Examples
    --------
    Allocation <0.4, 0.1> and commitment <0, 0.2>: max(0.4 + 0, 0.1 + 0.2) = 0.4, where the level of
    Eq. 5 would be 0.4 + 0.2:

    >>> sdrf_printed_priorities([[0.4, 0.1]], [[0.0, 0.2]]).tolist()
    [0.4]
    """
    p = lastmax(np.asarray(allocation, dtype=float) + np.asarray(commitments, dtype=float))
    return p if weights is None else p / np.asarray(weights, dtype=float)


def normalized_capacities(server_capacities) -> np.ndarray:
    r"""Per-server capacities as fractions of the cluster total, :math:`C_{mr} / \sum_{m'} C_{m'r}` (TV-TSF Eq. 1).

    Parameters
    ----------
    server_capacities : array_like, shape (M, m)
        :math:`C_{mr}`, one row per server; every column needs a positive total.

    Returns
    -------
    ndarray, shape (M, m)
        Each column sums to 1.

    Examples
    --------
    Resource 0 totals 2 + 6 = 8 and resource 1 totals 8 + 8 = 16:

    >>> normalized_capacities([[2, 8], [6, 8]]).tolist()
    [[0.25, 0.5], [0.75, 0.5]]
    """
    c = np.asarray(server_capacities, dtype=float)
    return c / c.sum(axis=0)


def tasks_that_fit(capacity, task_demand, *, eps: float = FLOOR_EPS) -> np.ndarray:
    r"""How many whole tasks of ``task_demand`` fit in ``capacity``: :math:`\lfloor\min_{r:d_r>0} C_r/d_r\rfloor`.

    A ratio within a relative ``eps`` below an integer counts as that integer (``0.3 / 0.1`` is
    2.9999999999999996 in floating point but 3 tasks fit). Negative remaining capacity gives 0. A demand
    with no positive entry fits infinitely often.

    Parameters
    ----------
    capacity : array_like, shape (..., m)
        :math:`C_r`, free capacity; broadcast against ``task_demand`` along leading axes.
    task_demand : array_like, shape (..., m)
        :math:`d_r \ge 0`, one task's demand, same units.
    eps : float, optional
        Relative and absolute rounding slack (default :data:`fairalloc.tolerance.FLOOR_EPS`).

    Returns
    -------
    ndarray of float, shape (...)
        Whole task counts, ``inf`` where the task needs nothing.

    See Also
    --------
    task_fits, tasks_that_fit_one : the same arithmetic for one vector, without NumPy.
    monopoly_tasks : the count summed over servers.

    Examples
    --------
    min(0.3/0.1, 1.0/0.2) = min(3, 5) = 3; in the DRF paper's 9 CPU / 18 GB cluster, A alone fits
    min(9/1, 18/4) = 4.5, so 4 tasks, and B alone min(9/3, 18/1) = 3:

    >>> tasks_that_fit([0.3, 1.0], [0.1, 0.2]).item()
    3.0
    >>> tasks_that_fit([[9, 18]], [[1, 4], [3, 1]]).tolist()
    [4.0, 3.0]
    """
    ratio = leontief_utility(np.maximum(np.asarray(capacity, dtype=float), 0.0), task_demand, cap=np.inf)
    with np.errstate(invalid="ignore"):
        return np.where(np.isfinite(ratio), np.floor(ratio * (1.0 + eps) + eps), ratio)


def task_fits(capacity, task_demand, *, eps: float = FLOOR_EPS) -> bool:
    r"""Whether one task fits in one capacity vector: ``tasks_that_fit(capacity, task_demand) >= 1``.

    The same arithmetic as :func:`tasks_that_fit` entry by entry (:math:`\max(C_r, 0)/d_r`, then
    ``* (1 + eps) + eps``, floored), without NumPy's overhead on a short vector: greedy schedulers ask
    this once per decision.

    Parameters
    ----------
    capacity : sequence of float, length m
        Free capacity :math:`C_r`.
    task_demand : sequence of float, length m
        One task's demand :math:`d_r \ge 0`.
    eps : float, optional
        Rounding slack (default :data:`fairalloc.tolerance.FLOOR_EPS`).

    Returns
    -------
    bool
        ``True`` when at least one whole task fits.

    Examples
    --------
    3 tasks fit in <0.3, 1.0>, 2 in <0.25, 1.0> (0.25/0.1 = 2.5), none when resource 1 has 1.0 of 2.0:

    >>> task_fits([0.3, 1.0], [0.1, 0.2]), task_fits([0.25, 1.0], [0.1, 0.2]), task_fits([0.0, 1.0], [0.0, 2.0])
    (True, True, False)
    """
    return task_fits_row(capacity, task_demand, eps)


def task_fits_row(capacity, task_demand, eps):
    r""":func:`task_fits` with ``eps`` positional, as a plain loop that numba compiles as it is.

    The task schedulers' compiled core (:mod:`fairalloc.scheduling.core`) calls this very function;
    :func:`task_fits` calls it too. :math:`\lfloor y \rfloor < 1` exactly when :math:`y < 1`, so the
    floor of :func:`tasks_that_fit` is not taken (a compiled floor converts to a fixed-width integer).

    Parameters
    ----------
    capacity : sequence of float, length m
        Free capacity :math:`C_r` (a list or a 1-d array).
    task_demand : sequence of float, length m
        One task's demand :math:`d_r \ge 0`.
    eps : float
        Rounding slack (:data:`fairalloc.tolerance.FLOOR_EPS` in the schedulers).

    Returns
    -------
    bool
        ``True`` when at least one whole task fits.

    Examples
    --------
    As :func:`task_fits`: 0.3 / 0.1 is 2.9999999999999996, within the slack of 3; a resource the task
    needs with nothing free does not fit:

    >>> task_fits_row([0.3, 1.0], [0.1, 0.2], FLOOR_EPS), task_fits_row([0.0, 1.0], [0.0, 2.0], FLOOR_EPS)
    (True, False)
    """
    for r in range(len(task_demand)):
        d = task_demand[r]
        if d > 0 and (max(capacity[r], 0.0) / d) * (1.0 + eps) + eps < 1.0:
            return False
    return True


def dominant_share_row(usage, totals):
    r"""One user's dominant share :math:`\max_r u_r / T_r` from its raw usage and the totals.

    :func:`dominant_shares` of :func:`normalized_demands` for one row (DRF, Ghodsi et al. [3]_
    Section 4), as a plain loop that numba compiles as it is (:mod:`fairalloc.scheduling.keys`):
    the same IEEE operations as the schedulers' Python path (one division per resource, then the first
    largest, as Python's ``max``).

    Parameters
    ----------
    usage : sequence of float, length m
        :math:`u_r`, the resources the user holds (raw units).
    totals : sequence of float, length m
        :math:`T_r`, the cluster totals (nonzero).

    Returns
    -------
    float

    Examples
    --------
    The DRF paper's user A with one task <1 CPU, 4 GB> of <9, 18>: max(1/9, 4/18) = 2/9:

    >>> round(dominant_share_row([1.0, 4.0], [9.0, 18.0]), 4)
    0.2222
    """
    best = usage[0] / totals[0]
    for r in range(1, len(totals)):
        x = usage[r] / totals[r]
        if x > best:
            best = x
    return best


def task_fits_rows(capacities: np.ndarray, task_demand: np.ndarray, *, eps: float = FLOOR_EPS) -> np.ndarray:
    r"""Per row of ``capacities``, whether one task fits: ``tasks_that_fit(capacities, task_demand) >= 1``.

    The same arithmetic as :func:`tasks_that_fit` entry by entry (:math:`\max(C_{mr}, 0)/d_r`, then
    ``* (1 + eps) + eps``; :math:`\lfloor x \rfloor \ge 1` exactly when :math:`x \ge 1`, and the
    minimum over resources commutes with these monotone maps), on float arrays only and without
    broadcasting or validation: a slotted scheduler asks it once per task over every server.

    Parameters
    ----------
    capacities : ndarray of float, shape (M, K)
        Free capacity :math:`C_{mr}` of each server.
    task_demand : ndarray of float, shape (K,)
        One task's demand :math:`d_r \ge 0`.
    eps : float, optional
        Rounding slack (default :data:`fairalloc.tolerance.FLOOR_EPS`).

    Returns
    -------
    ndarray of bool, shape (M,)

    Examples
    --------
    As :func:`task_fits`, row by row: <0.3, 1.0> fits <0.1, 0.2> (0.3 / 0.1 is 2.9999999999999996,
    within the slack of 3), <0.05, 1.0> does not, and a resource the task does not need is ignored:

    >>> task_fits_rows(np.array([[0.3, 1.0], [0.05, 1.0]]), np.array([0.1, 0.2])).tolist()
    [True, False]
    >>> task_fits_rows(np.array([[0.0, 1.0]]), np.array([0.0, 2.0])).tolist()
    [False]
    """
    pos = task_demand > 0
    if pos.all():
        ratio = np.maximum(capacities, 0.0) / task_demand
    else:
        ratio = np.maximum(capacities[:, pos], 0.0) / task_demand[pos]
    return (ratio * (1.0 + eps) + eps >= 1.0).all(axis=1)


def tasks_that_fit_one(capacity, task_demand, *, eps: float = FLOOR_EPS) -> float:
    r""":func:`tasks_that_fit` for one capacity vector and one task, without NumPy.

    The same arithmetic entry by entry (:math:`\max(C_r, 0)/d_r`, then ``* (1 + eps) + eps``,
    floored, minimum over :math:`d_r > 0`; flooring commutes with the minimum because both maps are
    monotone). The simulator's cluster state checks every launch with it.

    Parameters
    ----------
    capacity : sequence of float, length m
        Free capacity :math:`C_r`.
    task_demand : sequence of float, length m
        One task's demand :math:`d_r \ge 0`.
    eps : float, optional
        Rounding slack (default :data:`fairalloc.tolerance.FLOOR_EPS`).

    Returns
    -------
    int or float
        The whole task count (an ``int``), or ``math.inf`` when the task needs nothing.

    Examples
    --------
    min(3, 5) = 3 tasks; the DRF paper's user A alone: floor(min(9/1, 18/4)) = 4; no demand: inf.

    >>> tasks_that_fit_one([0.3, 1.0], [0.1, 0.2]), tasks_that_fit_one([9, 18], [1, 4]), tasks_that_fit_one([1], [0])
    (3, 4, inf)
    """
    best = math.inf
    for c, d in zip(capacity, task_demand):
        if d > 0:
            k = math.floor((max(c, 0.0) / d) * (1.0 + eps) + eps)
            if k < best:
                best = k
    return best


def monopoly_tasks(task_demands, server_capacities) -> np.ndarray:
    r"""TSF / TV-TSF monopoly count :math:`h_i = \sum_m \lfloor \min_r C_{mr} / d_{ir} \rfloor` (TV-TSF Eq. 4).

    Tasks user *i* could run alone on the whole cluster, server by server, **ignoring placement**
    (the paper's definition, with "C_mr(t)" read as the full capacity, see the errata in
    ``papers/tvtsf.md``).

    Parameters
    ----------
    task_demands : array_like, shape (N, K) or (N, T, K)
        :math:`d_{ir}` per task (per slot for the 3-D form).
    server_capacities : array_like, shape (M, K)
        :math:`C_{mr}`, same units.

    Returns
    -------
    ndarray of float, shape (N,) or (N, T)
        :math:`h_i` (or :math:`h_i(t)`).

    See Also
    --------
    tasks_that_fit, task_shares

    Examples
    --------
    One server of <9, 18> (DRF paper): A fits 4, B 3. Task <2, 1> on servers <4, 4> and <3, 8>:
    min(4/2, 4/1) = 2 plus floor(min(3/2, 8/1)) = 1, so 3.

    >>> monopoly_tasks([[1, 4], [3, 1]], [[9, 18]]).tolist()
    [4.0, 3.0]
    >>> monopoly_tasks([[2, 1]], [[4, 4], [3, 8]]).tolist()
    [3.0]
    """
    d = np.asarray(task_demands, dtype=float)
    c = np.asarray(server_capacities, dtype=float)
    per_server = tasks_that_fit(c, d[..., None, :])      # (..., M)
    return per_server.sum(axis=-1)


def task_shares(tasks, monopoly, weights=None) -> np.ndarray:
    """Task share :math:`x_i / (w_i h_i)` (TSF; weighted by dividing by :math:`w_i`).

    Parameters
    ----------
    tasks : array_like, shape (n,)
        :math:`x_i`, tasks allocated.
    monopoly : array_like, shape (n,)
        :math:`h_i > 0`, the monopoly counts (:func:`monopoly_tasks`).
    weights : array_like, shape (n,), optional
        :math:`w_i > 0`; ``None`` (default) is unit weights.

    Returns
    -------
    ndarray, shape (n,)
        The task shares.

    See Also
    --------
    cumulative_task_shares : TV-TSF's running version (Eq. 3).

    Examples
    --------
    DRF paper's allocation (3 and 2 tasks) against monopoly counts 4 and 3: 3/4 and 2/3.

    >>> task_shares([3, 2], [4, 3]).round(4).tolist()
    [0.75, 0.6667]
    """
    x = np.asarray(tasks, dtype=float)
    h = np.asarray(monopoly, dtype=float)
    if weights is not None:
        h = h * np.asarray(weights, dtype=float)
    return x / h


def cumulative_task_shares(tasks, monopoly, weights=None) -> np.ndarray:
    r"""TV-TSF Eq. 3 for every prefix: :math:`s_i(t) = \sum_{\tau\le t} x_i(\tau) / \sum_{\tau\le t} w_i(\tau) h_i(\tau)`.

    Parameters
    ----------
    tasks : array_like, shape (N, T)
        :math:`x_i(t)`, tasks allocated (started) in each slot.
    monopoly : array_like, shape (N, T)
        :math:`h_i(t) > 0`.
    weights : array_like, shape (N,) or (N, T), optional
        :math:`w_i` or :math:`w_i(t)`; ``None`` (default) is unit weights.

    Returns
    -------
    ndarray, shape (N, T)
        Column ``t`` is the share after slot ``t``.

    Examples
    --------
    One task in each of the first two slots, none in the third, :math:`h = 2`: 1/2, 2/4, 2/6.

    >>> cumulative_task_shares([[1, 1, 0]], [[2, 2, 2]]).tolist()
    [[0.5, 0.5, 0.3333333333333333]]
    """
    x = np.asarray(tasks, dtype=float)
    h = np.asarray(monopoly, dtype=float)
    if weights is not None:
        w = np.asarray(weights, dtype=float)
        h = h * (w[:, None] if w.ndim == 1 else w)
    return np.cumsum(x, axis=-1) / np.cumsum(h, axis=-1)


def dominant_share_of_tasks(tasks, task_demands, totals, weights=None) -> np.ndarray:
    r"""Dominant share of :math:`x_i` tasks on a pool of ``totals``: :math:`x_i \max_r d_{ir} / C_r`.

    Divided by :math:`w_i` when ``weights`` are given (the weighted dominant share).

    Parameters
    ----------
    tasks : array_like, shape (n,)
        :math:`x_i`, task counts.
    task_demands : array_like, shape (n, m)
        :math:`d_{ir}`, one task's demand per user.
    totals : array_like, shape (m,)
        :math:`C_r`, the pool's capacity, same units.
    weights : array_like, shape (n,), optional
        :math:`w_i > 0`; ``None`` (default) is unit weights.

    Returns
    -------
    ndarray, shape (n,)

    Examples
    --------
    DRF paper: 3 tasks of A (share 4/18 each) and 2 of B (3/9 each) both give 2/3; weight 2 halves A's:

    >>> dominant_share_of_tasks([3, 2], [[1, 4], [3, 1]], [9, 18]).round(4).tolist()
    [0.6667, 0.6667]
    >>> dominant_share_of_tasks([3, 2], [[1, 4], [3, 1]], [9, 18], weights=[2, 1]).round(4).tolist()
    [0.3333, 0.6667]
    """
    return np.asarray(tasks, dtype=float) * dominant_shares(task_demands, totals, weights)


def asset_shares(normalized) -> np.ndarray:
    r"""Asset share :math:`\sum_r a_{ir}`: the sum of a bundle's shares of every resource.

    The quantity asset fairness equalises (Ghodsi et al. [3]_ Section 4.1): with normalised demands
    :math:`a_{ir}` it is the asset share of the full demand; with a normalised allocation, of the bundle.

    Parameters
    ----------
    normalized : array_like, shape (..., m)
        Normalised demands or allocations (:func:`normalized_demands`).

    Returns
    -------
    ndarray, shape (...)
        The row sums (exact for ``Fraction`` object arrays).

    Examples
    --------
    DRF paper: A's task 1/9 + 4/18 = 1/3, B's 3/9 + 1/18 = 7/18:

    >>> asset_shares(normalized_demands([[1, 4], [3, 1]], [9, 18])).round(4).tolist()
    [0.3333, 0.3889]
    """
    a = _num(normalized)
    return a.sum(axis=-1)


def commitment_entitlements(commitments, weights=None) -> np.ndarray:
    r"""Dominant share an SDRF user is guaranteed given the commitments: :math:`\max(0, w_i L_0 - \tilde c_i)`.

    :math:`L_0` is the water level at which the entitlements exhaust one unit of a resource,
    :math:`\sum_j \max(0, w_j L_0 - \tilde c_j) = 1` (``axioms.md``, commitment-adjusted sharing
    incentive; with unit weights :math:`\max(0, L_0 - \tilde c_i)`). With zero commitments this is the
    fair share :math:`w_i/\sum_j w_j`. SDRF (Eq. 5) gives every user at least
    :math:`\min(D_i, \max(0, w_i L_0 - \tilde c_i))`, :math:`D_i` the dominant share of its demand.

    Parameters
    ----------
    commitments : array_like, shape (n, m) or (n,)
        Commitments as fractions of capacity, or the dominant commitments :math:`\tilde c_i`. Object
        arrays of ``Fraction`` are computed exactly.
    weights : array_like, shape (n,), optional
        :math:`w_i > 0`; ``None`` (default) is unit weights.

    Returns
    -------
    ndarray, shape (n,)
        The entitlements; they sum to 1.

    Examples
    --------
    Commitments 0.2 and 0: :math:`(L_0 - 0.2) + L_0 = 1` gives :math:`L_0 = 0.6`, so 0.4 and 0.6. With
    0.9, 0, 0 the level 0.5 (two users at 0.5 sum to 1) is below 0.9, so user 0 gets nothing:

    >>> commitment_entitlements([[0.2], [0.0]]).round(9).tolist()
    [0.4, 0.6]
    >>> commitment_entitlements([[0.9], [0.0], [0.0]]).round(9).tolist()
    [0.0, 0.5, 0.5]
    """
    c = _num(commitments)
    ct = dominant_commitment(c) if c.ndim == 2 else c
    w = np.ones(ct.shape[0], dtype=ct.dtype) if weights is None else _num(weights)
    starts = ct / w                                  # level at which each user starts receiving
    order = np.argsort(starts.astype(float), kind="stable")
    w_sum = 0
    c_sum = 0
    level = None
    for k, j in enumerate(order):
        w_sum = w_sum + w[j]
        c_sum = c_sum + ct[j]
        cand = (1 + c_sum) / w_sum                   # level if exactly the first k+1 users receive
        nxt = starts[order[k + 1]] if k + 1 < len(order) else None
        if nxt is None or cand <= nxt:
            level = cand
            break
    g = w * level - ct
    return np.where(g > 0, g, np.zeros_like(g))


def next_task_dominant_shares(tasks, task_demands, totals, weights=None) -> np.ndarray:
    r"""Dominant share after one more task, :math:`(x_i + 1)\max_r d_{ir}/C_r / w_i` (the CDRF key).

    The quantity Parkes, Procaccia and Shah's *SequentialMinMax* (the indivisible DRF that the TV-TSF
    paper calls CDRF) minimises at every step: the next task goes to the user whose dominant share
    *after* receiving it is smallest. fairalloc's exact CDRF maximises this key lexicographically
    (:func:`fairalloc.exact.tasks_leximin` with ``mechanism="cdrf"``). Weights divide.

    Parameters
    ----------
    tasks : array_like, shape (n,)
        :math:`x_i`, tasks held.
    task_demands : array_like, shape (n, m)
        :math:`d_{ir}`, one task's demand per user.
    totals : array_like, shape (m,)
        :math:`C_r`, same units.
    weights : array_like, shape (n,), optional
        :math:`w_i > 0`; ``None`` (default) is unit weights.

    Returns
    -------
    ndarray, shape (n,)

    See Also
    --------
    dominant_shares_after : the same key for tasks of different sizes.

    Examples
    --------
    DRF paper after 3 tasks of A and 2 of B: 4 x 4/18 = 0.8889 and 3 x 3/9 = 1:

    >>> next_task_dominant_shares([3, 2], [[1, 4], [3, 1]], [9, 18]).round(4).tolist()
    [0.8889, 1.0]

    References
    ----------
    .. [1] D. Parkes, A. Procaccia, N. Shah, "Beyond Dominant Resource Fairness: Extensions,
       Limitations, and Indivisibilities", ACM TEAC 3(1), 2015, Section 6.
    """
    key = (np.asarray(tasks, dtype=float) + 1.0) * dominant_shares(task_demands, totals)
    return key if weights is None else key / np.asarray(weights, dtype=float)


def dominant_shares_after(usage, demand, totals, weights=None) -> np.ndarray:
    r"""Weighted dominant share after one more task of any size, :math:`\max_r (o_{ir} + d_{ir})/C_r / w_i`.

    The CDRF key of the greedy schedulers, whose users hold tasks of different sizes. With :math:`x_i`
    identical tasks held it is :func:`next_task_dominant_shares` (equal up to rounding).

    Parameters
    ----------
    usage : array_like, shape (..., m)
        :math:`o_{ir}`, the resources a user holds (raw units).
    demand : array_like, shape (..., m)
        :math:`d_{ir}`, its next task's demand (raw units).
    totals : array_like, shape (m,)
        :math:`C_r`, the cluster totals.
    weights : scalar or array_like, optional
        :math:`w_i > 0`; ``None`` (default) is unit weights.

    Returns
    -------
    ndarray, shape (...)

    See Also
    --------
    next_task_dominant_shares

    Examples
    --------
    The DRF paper's users holding <3, 12> and <6, 2>: (12 + 4)/18 = 0.8889 and (6 + 3)/9 = 1, as in
    :func:`next_task_dominant_shares`; a lone task <4, 1> on <10, 10> with weight 2: 0.4 / 2.

    >>> dominant_shares_after([[3, 12], [6, 2]], [[1, 4], [3, 1]], [9, 18]).round(4).tolist()
    [0.8889, 1.0]
    >>> dominant_shares_after([0.0, 0.0], [4, 1], [10, 10], weights=2.0).item()
    0.2
    """
    s = dominant_shares(normalized_demands(np.add(_num(usage), _num(demand)), totals))
    return s if weights is None else s / _num(weights)


def dominant_share_after_one(usage, demand, totals, weight: float = 1.0) -> float:
    r""":func:`dominant_shares_after` for one user, without NumPy: :math:`\max_r (o_r + d_r)/C_r / w`.

    The same arithmetic entry by entry (:math:`o_r + d_r`, divided by :math:`C_r`, the largest,
    divided by :math:`w`), on sequences of floats: a greedy CDRF asks it once per task.

    Parameters
    ----------
    usage, demand, totals : sequence of float, length m
        :math:`o_r` (held), :math:`d_r` (the next task), :math:`C_r` (cluster totals), raw units.
    weight : float, default 1
        :math:`w > 0`.

    Returns
    -------
    float

    Examples
    --------
    The DRF paper's user B holding <6, 2> with task <3, 1> in <9, 18>: (6 + 3)/9 = 1; weight 2: 0.5.

    >>> dominant_share_after_one([6.0, 2.0], [3.0, 1.0], [9.0, 18.0])
    1.0
    >>> dominant_share_after_one([6, 2], [3, 1], [9, 18], 2.0)
    0.5
    """
    return max((o + d) / c for o, d, c in zip(usage, demand, totals)) / weight


def commitment_envy_gap(share_own, value_of_other, commitment_own, commitment_other, weight_own=1,
                        weight_other=1):
    r"""Commitment-adjusted envy of user *i* toward user *j* (``axioms.md``, SDRF notes):

    .. math:: g_{ij} = \frac{\tilde c_j + \mu_i u_i(A_j)}{w_j} - \frac{\tilde c_i + s_i}{w_i}

    the SDRF level (:func:`sdrf_levels`) *j* would have holding, in *i*'s dominant-share units, what
    *i* values in *j*'s bundle, minus *i*'s own level. *i* envies *j* once the commitments are
    accounted for when :math:`g_{ij} > 0`.

    Parameters
    ----------
    share_own : scalar or array_like
        :math:`s_i`, user *i*'s dominant share (pooled; on servers :math:`\mu_i X_i`).
    value_of_other : scalar or array_like
        :math:`\mu_i u_i(A_j)`, *i*'s dominant share of the demand times its Leontief utility of
        *j*'s bundle (pooled: :math:`D_i u_i(A_j)`; on servers :math:`\mu_i` times the tasks *i*
        could run in *j*'s bundle).
    commitment_own, commitment_other : scalar or array_like
        :math:`\tilde c_i`, :math:`\tilde c_j`, dominant commitments (:func:`dominant_commitment`).
    weight_own, weight_other : scalar or array_like, optional
        :math:`w_i`, :math:`w_j` (default 1).

    Returns
    -------
    scalar or ndarray
        :math:`g_{ij}` (inputs broadcast); ``Fraction`` inputs give an exact ``Fraction``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> commitment_envy_gap(F(1, 2), F(3, 5), F(1, 5), F(0))      # (0 + 3/5) - (1/5 + 1/2)
    Fraction(-1, 10)
    >>> round(commitment_envy_gap(0.5, 0.6, 0.0, 0.3, 1, 2), 9)      # (0.3 + 0.6)/2 - 0.5
    -0.05
    """
    return (commitment_other + value_of_other) / weight_other - (commitment_own + share_own) / weight_own
