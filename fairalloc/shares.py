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
    "tasks_that_fit_one",
    "monopoly_tasks",
    "task_shares",
    "cumulative_task_shares",
    "dominant_share_of_tasks",
    "asset_shares",
    "commitment_entitlements",
    "next_task_dominant_shares",
    "dominant_shares_after",
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

    >>> normalized_demands([[1, 4], [3, 1]], [9, 18]).round(4).tolist()
    [[0.1111, 0.2222], [0.3333, 0.0556]]
    """
    return _num(demands) / _num(capacities)


def dominant_resource(normalized) -> np.ndarray:
    """Index of each user's dominant resource (argmax along the last axis; ties: lowest index).

    >>> dominant_resource(normalized_demands([[1, 4], [3, 1]], [9, 18])).tolist()
    [1, 0]
    """
    return np.argmax(np.asarray(normalized, dtype=float), axis=-1)  # first maximum on ties


def dominant_shares(allocation, capacities=None, weights=None) -> np.ndarray:
    r"""Dominant share :math:`\max_r o_{ir} / C_r` of each row (allocations or demands); weighted:
    :math:`\max_r o_{ir} / (C_r w_i)`.

    With ``capacities=None`` the input is taken as already normalised. ``weights`` (n,) divide (the
    weighted dominant share that weighted DRF equalises; Ghodsi et al. 2011 Section 4.1, Parkes et
    al. 2015). Object arrays of ``Fraction`` are computed exactly.

    >>> dominant_shares([[3, 12], [6, 2]], [9, 18]).round(4).tolist()   # DRF paper: 3 and 2 tasks
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

    ``dominant`` may pass the already computed :func:`dominant_shares` of ``normalized``.

    >>> demand_vectors([[0.5, 0.25], [0.1, 0.4]]).tolist()
    [[1.0, 0.5], [0.25, 1.0]]
    """
    a = np.asarray(normalized, dtype=float)
    mu = lastmax(a) if dominant is None else np.asarray(dominant, dtype=float)
    return a / mu[..., None]


def dominant_commitment(commitments) -> np.ndarray:
    r"""Dominant commitment :math:`\tilde c_i = \max_r c_{ir}` (SDRF Section 4.4).

    >>> dominant_commitment([[0.1, 0.3], [0.0, 0.0]]).tolist()
    [0.3, 0.0]
    """
    return lastmax(_num(commitments))


def fair_shares(weights) -> np.ndarray:
    r"""Each user's fair share of every resource: :math:`w_i / \sum_j w_j` (1/n with equal weights).

    >>> fair_shares([1, 1, 2]).tolist()
    [0.25, 0.25, 0.5]
    """
    w = _num(weights)
    return w / w.sum()


def leontief_utility(bundle, demand, cap=1.0) -> np.ndarray:
    r"""Leontief utility :math:`\min\{\mathrm{cap},\ \min_{r: d_r>0} A_r / d_r\}` (SDRF Eq. 1 with cap 1).

    ``bundle`` and ``demand`` broadcast along leading axes; the last axis is the resource. With
    ``demand`` the user's *total* demand and ``cap=1`` this is SDRF Eq. 1 (fraction of the demand
    served). With ``demand`` a *per-task* vector and ``cap`` the task count (or ``np.inf``), it is the
    number of tasks the bundle runs (``axioms.md``, divisible utility). Resources the user does not
    need (``d_r = 0``) are ignored. Envy uses it with another user's bundle: ``u_i(A_j)``.

    >>> leontief_utility([3, 12], [1, 4], cap=np.inf).item()     # DRF paper, user A: 3 tasks
    3.0
    >>> leontief_utility([[0.2, 0.5]], [[0.4, 0.0]]).tolist()      # needs only resource 0
    [0.5]

    Exact rationals (object arrays of ``Fraction``) stay exact:

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

    ``dominant_share`` is :math:`s_i` (normalised), ``commitments`` the (n, m) commitments as fractions
    of capacity (or the (n,) dominant commitments). With unit weights this is the water height of
    user *i*'s tank in Eq. 5: its commitment base plus the dominant share it holds.

    >>> sdrf_levels([0.4, 0.6], [[0.2], [0.0]]).tolist()
    [0.6000000000000001, 0.6]
    """
    c = np.asarray(commitments, dtype=float)
    ct = dominant_commitment(c) if c.ndim == 2 else c
    lev = ct + np.asarray(dominant_share, dtype=float)
    return lev if weights is None else lev / np.asarray(weights, dtype=float)


def sdrf_printed_priorities(allocation, commitments, weights=None) -> np.ndarray:
    r"""SDRF Algorithm 1's priority as printed: :math:`\max_r (o_{ir} + c_{ir}) / w_i`.

    ``allocation`` (n, m) normalised (fractions of capacity), ``commitments`` (n, m). It differs from
    :func:`sdrf_levels` (:math:`\max_r o_{ir} + \max_r c_{ir}`, Eq. 5's order) when the resource that
    dominates the allocation is not the one that dominates the commitment (``papers/sdrf.md``, errata);
    the weight divides, as in :func:`sdrf_levels`.

    >>> sdrf_printed_priorities([[0.4, 0.1]], [[0.0, 0.2]]).tolist()     # level would be 0.4 + 0.2
    [0.4]
    """
    p = lastmax(np.asarray(allocation, dtype=float) + np.asarray(commitments, dtype=float))
    return p if weights is None else p / np.asarray(weights, dtype=float)


def normalized_capacities(server_capacities) -> np.ndarray:
    r"""Per-server capacities as fractions of the cluster total, :math:`C_{mr} / \sum_{m'} C_{m'r}` (TV-TSF Eq. 1).

    >>> normalized_capacities([[2, 8], [6, 8]]).tolist()
    [[0.25, 0.5], [0.75, 0.5]]
    """
    c = np.asarray(server_capacities, dtype=float)
    return c / c.sum(axis=0)


def tasks_that_fit(capacity, task_demand, *, eps: float = FLOOR_EPS) -> np.ndarray:
    r"""How many whole tasks of ``task_demand`` fit in ``capacity``: :math:`\lfloor\min_{r:d_r>0} C_r/d_r\rfloor`.

    Broadcasts along leading axes (last axis = resource). A ratio within a relative ``eps`` below an
    integer counts as that integer (``0.3 / 0.1`` is 2.9999999999999996 in floating point but 3 tasks
    fit). Negative remaining capacity gives 0. A demand with no positive entry fits infinitely often.

    >>> tasks_that_fit([0.3, 1.0], [0.1, 0.2]).item()
    3.0
    >>> tasks_that_fit([[9, 18]], [[1, 4], [3, 1]]).tolist()          # DRF paper: A alone, B alone
    [4.0, 3.0]
    """
    ratio = leontief_utility(np.maximum(np.asarray(capacity, dtype=float), 0.0), task_demand, cap=np.inf)
    with np.errstate(invalid="ignore"):
        return np.where(np.isfinite(ratio), np.floor(ratio * (1.0 + eps) + eps), ratio)


def task_fits(capacity, task_demand, *, eps: float = FLOOR_EPS) -> bool:
    r"""Whether one task fits in one capacity vector: ``tasks_that_fit(capacity, task_demand) >= 1``.

    The same arithmetic as :func:`tasks_that_fit` entry by entry (:math:`\max(C_r, 0)/d_r`, then
    ``* (1 + eps) + eps``, floored), without NumPy's overhead on a short vector: greedy schedulers ask
    this once per decision. ``capacity`` and ``task_demand`` are 1-D sequences of equal length.

    >>> task_fits([0.3, 1.0], [0.1, 0.2]), task_fits([0.25, 1.0], [0.1, 0.2]), task_fits([0.0, 1.0], [0.0, 2.0])
    (True, True, False)
    """
    for c, d in zip(capacity, task_demand):
        if d > 0 and math.floor((max(c, 0.0) / d) * (1.0 + eps) + eps) < 1:
            return False
    return True


def tasks_that_fit_one(capacity, task_demand, *, eps: float = FLOOR_EPS) -> float:
    r""":func:`tasks_that_fit` for one capacity vector and one task, without NumPy (a float; ``inf``
    when the task needs nothing).

    The same arithmetic entry by entry (:math:`\max(C_r, 0)/d_r`, then ``* (1 + eps) + eps``,
    floored, minimum over :math:`d_r > 0`; flooring commutes with the minimum because both maps are
    monotone). The simulator's cluster state checks every launch with it.

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
    ``papers/tvtsf.md``). ``task_demands`` is (N, K) or (N, T, K); the result is (N,) or (N, T).

    >>> monopoly_tasks([[1, 4], [3, 1]], [[9, 18]]).tolist()
    [4.0, 3.0]
    >>> monopoly_tasks([[2, 1]], [[4, 4], [3, 8]]).tolist()           # 2 + 1
    [3.0]
    """
    d = np.asarray(task_demands, dtype=float)
    c = np.asarray(server_capacities, dtype=float)
    per_server = tasks_that_fit(c, d[..., None, :])      # (..., M)
    return per_server.sum(axis=-1)


def task_shares(tasks, monopoly, weights=None) -> np.ndarray:
    r"""Task share :math:`x_i / (w_i h_i)` (TSF; weighted by dividing by :math:`w_i`).

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

    ``tasks`` (N, T) are the tasks allocated (started) in each slot, ``monopoly`` (N, T) the
    :math:`h_i(t)`, ``weights`` (N,) or (N, T). Returns (N, T); column ``t`` is the share after slot ``t``.

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
    r"""Dominant share of :math:`x_i` tasks on a pool of ``totals``: :math:`x_i \max_r d_{ir} / C_r`
    (divided by :math:`w_i` when ``weights`` are given: the weighted dominant share).

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

    >>> asset_shares(normalized_demands([[1, 4], [3, 1]], [9, 18])).round(4).tolist()   # 1/9+4/18, 3/9+1/18
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

    ``commitments`` is (n, m) (fractions of capacity) or the (n,) dominant commitments. Object arrays
    of ``Fraction`` are computed exactly.

    >>> commitment_entitlements([[0.2], [0.0]]).round(9).tolist()      # L0 = 0.6: 0.4 and 0.6
    [0.4, 0.6]
    >>> commitment_entitlements([[0.9], [0.0], [0.0]]).round(9).tolist()   # L0 = 0.5, user 0 is above it
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

    The CDRF key of the greedy schedulers, whose users hold tasks of different sizes: ``usage``
    (..., m) the resources a user holds and ``demand`` (..., m) its next task's (raw units),
    ``totals`` (m,) the cluster totals. With :math:`x_i` identical tasks held it is
    :func:`next_task_dominant_shares` (equal up to rounding).

    >>> dominant_shares_after([[3, 12], [6, 2]], [[1, 4], [3, 1]], [9, 18]).round(4).tolist()
    [0.8889, 1.0]
    >>> dominant_shares_after([0.0, 0.0], [4, 1], [10, 10], weights=2.0).item()   # one user: 0.4 / 2
    0.2
    """
    s = dominant_shares(normalized_demands(np.add(_num(usage), _num(demand)), totals))
    return s if weights is None else s / _num(weights)


def commitment_envy_gap(share_own, value_of_other, commitment_own, commitment_other, weight_own=1,
                        weight_other=1):
    r"""Commitment-adjusted envy of user *i* toward user *j* (``axioms.md``, SDRF notes):

    .. math:: g_{ij} = \frac{\tilde c_j + \mu_i u_i(A_j)}{w_j} - \frac{\tilde c_i + s_i}{w_i}

    the SDRF level (:func:`sdrf_levels`) *j* would have holding, in *i*'s dominant-share units, what
    *i* values in *j*'s bundle, minus *i*'s own level. *i* envies *j* once the commitments are
    accounted for when :math:`g_{ij} > 0`.

    Parameters
    ----------
    share_own : :math:`s_i`, user *i*'s dominant share (pooled; on servers :math:`\mu_i X_i`).
    value_of_other : :math:`\mu_i u_i(A_j)`, *i*'s dominant share of the demand times its Leontief
        utility of *j*'s bundle (pooled: :math:`D_i u_i(A_j)`; on servers :math:`\mu_i` times the
        tasks *i* could run in *j*'s bundle).
    commitment_own, commitment_other : :math:`\tilde c_i`, :math:`\tilde c_j` dominant commitments
        (:func:`dominant_commitment`).
    weight_own, weight_other : :math:`w_i`, :math:`w_j` (default 1).

    Scalars or broadcastable arrays; ``Fraction`` inputs give an exact ``Fraction``.

    >>> from fractions import Fraction as F
    >>> commitment_envy_gap(F(1, 2), F(3, 5), F(1, 5), F(0))      # (0 + 3/5) - (1/5 + 1/2)
    Fraction(-1, 10)
    >>> round(commitment_envy_gap(0.5, 0.6, 0.0, 0.3, 1, 2), 9)      # (0.3 + 0.6)/2 - 0.5
    -0.05
    """
    return (commitment_other + value_of_other) / weight_other - (commitment_own + share_own) / weight_own
