r"""The one exact water-filling engine behind max-min, weighted and stateful max-min, DRF and SDRF.

Problem (normalised units, every resource capacity 1). User *i* has a direction
:math:`v_i \in \mathbb{R}^m_{\ge 0}` (resources per unit of its share), a cap :math:`\mu_i > 0`, a start
:math:`b_i` and a rate :math:`w_i > 0`. At water level *x* it holds

.. math:: s_i(x) = \min\{\mu_i,\ \max\{0,\ w_i (x - b_i)\}\},\qquad o_{ir} = s_i\, v_{ir}.

This is SDRF Eq. 5 with :math:`v_i = \tilde\theta_i` (dominant entry 1), :math:`\mu_i` the dominant share
of the demand, :math:`b_i = \tilde c_i / w_i` and rate :math:`w_i`; with one resource it is Eq. 4
(stateful max-min); with :math:`b = 0` it is (weighted) DRF / max-min.

**Lexicographic progressive filling.** Raise *x* until some resource saturates; freeze every still
growing user that *needs* a saturated resource (:math:`v_{ir} > 0`) at its current share; users
whose cap is reached are satisfied; the others keep filling. Repeat until nobody grows. With strictly
positive demands the first saturation freezes everybody, so the result is exactly Eq. 5's optimum;
with zero demands the rounds continue on the resources that still have room.

**Breakpoint search.** In a round, the usage :math:`U_r(x) = \text{frozen}_r + \sum_i v_{ir} s_i(x)`
is piecewise linear and non-decreasing in *x*, with breakpoints at the starts :math:`b_i` and the
satisfaction levels :math:`e_i = b_i + \mu_i / w_i`. The engine sorts the 2k breakpoints once and
binary-searches them for the first one at which :math:`\max_r U_r > 1`, evaluating :math:`U(x)`
directly as a sum of non-negative terms (no running sums that add and then subtract slopes, so no
cancellation whatever the magnitudes). On the segment found every :math:`U_r` is linear, so each
resource's crossing is interpolated exactly from its values at the two ends; the smallest is the
round's level. Cost per round: one sort, :math:`O(k\log k)`, plus :math:`\lceil\log_2 2k\rceil + 2`
evaluations of :math:`O(km)` each; there are at most :math:`\min(n, m + 1)` rounds, since every
saturated resource freezes all its remaining users. (A sweep with cumulative slope sums is
:math:`O(km)` after the sort but slower in NumPy, whose strided gathers and cumulative sums over
(2k, m) cost more than ~20 contiguous matrix-vector products, and it can cancel catastrophically.
``benchmarks/bench_waterfill.py`` measures the engine against one ``argsort`` of the 2k keys.)

Ties: users with equal levels are treated symmetrically (no tie-breaking is needed: the allocation
of a divisible water-filling is unique).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._numeric import lastmax

__all__ = ["WaterfillSolution", "waterfill"]

#: Relative slack when deciding that a resource is full or that everybody fits.
_SAT_RTOL = 1e-12


@dataclass(frozen=True)
class WaterfillSolution:
    """Output of :func:`waterfill`.

    shares : (n,) amount :math:`s_i` per user (dominant share for DRF/SDRF).
    level : the first round's level (Eq. 4/5's optimum x), or the last satisfaction level if no
        resource saturates.
    freeze_levels : (n,) level at which each user stopped growing (its satisfaction level if it was
        satisfied).
    rounds : number of freezing rounds.
    saturated : resources that became full, in the order they did.
    """

    shares: np.ndarray
    level: float
    freeze_levels: np.ndarray
    rounds: int
    saturated: tuple[int, ...] = field(default_factory=tuple)


def _usage(x: float, base: np.ndarray, v: np.ndarray, mu: np.ndarray, b: np.ndarray,
           w: np.ndarray | None, buf: np.ndarray) -> np.ndarray:
    """Exact usage at level x: base + sum_i v_i * clip(w_i (x - b_i), 0, mu_i) (non-negative terms).

    ``w=None`` means unit rates; ``buf`` is scratch space of b's shape.
    """
    s = np.subtract(x, b, out=buf)
    if w is not None:
        np.multiply(s, w, out=s)
    np.maximum(s, 0.0, out=s)
    np.minimum(s, mu, out=s)
    return base + s @ v


def _first_crossing(base, v, mu, b, w, e, full):
    """Smallest level x at which some resource's usage reaches 1, and the resources full there.

    ``full`` is the usage once every user is satisfied (some entry exceeds 1). Returns
    (x, saturated_mask).
    """
    xs = np.sort(np.concatenate([b, e]))
    buf = np.empty_like(b)
    if np.all(w == 1.0):
        w = None
    lo, hi = 0, xs.size - 1                 # invariant: max U(xs[lo]) <= 1 < max U(xs[hi])
    lo_u = base.copy()                      # U(min b) = base: nobody has started yet
    hi_u = np.asarray(full, dtype=float)    # U(max e) = base + sum mu v: everybody satisfied
    if lo_u.max() > 1.0:                    # rounding left a needed resource at capacity already
        hi, hi_u = lo, lo_u
    while hi - lo > 1:
        mid = (lo + hi) // 2
        mid_u = _usage(xs[mid], base, v, mu, b, w, buf)
        if mid_u.max() > 1.0:
            hi, hi_u = mid, mid_u
        else:
            lo, lo_u = mid, mid_u
    x_lo, x_hi = xs[lo], xs[hi]
    # U is linear on [x_lo, x_hi]: interpolate each resource's crossing from the exact end values
    rise = hi_u - lo_u
    crosses = hi_u > 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        frac = np.where(crosses & (rise > 0), (1.0 - lo_u) / rise, 0.0)
    x_r = np.where(crosses, x_lo + np.clip(frac, 0.0, 1.0) * (x_hi - x_lo), np.inf)
    x_star = float(x_r.min())
    sat = x_r <= x_star + _SAT_RTOL * max(1.0, abs(x_star))
    return x_star, sat


def waterfill(directions, caps, starts=None, rates=None) -> WaterfillSolution:
    r"""Lexicographic progressive filling with per-user starts and rates (see the module docstring).

    Parameters
    ----------
    directions : ndarray (n, m)
        :math:`v_{ir} \ge 0`, normalised resource use per unit of share; every row has a positive entry.
    caps : ndarray (n,)
        :math:`\mu_i > 0`, the most share user *i* can use.
    starts : ndarray (n,), optional
        :math:`b_i`, the level at which user *i* starts receiving (default 0).
    rates : ndarray (n,), optional
        :math:`w_i > 0`, share per unit of level (default 1).

    Returns
    -------
    WaterfillSolution

    Notes
    -----
    Inputs are trusted (the public mechanisms validate them). Complexity
    :math:`O(\text{rounds}\cdot(n\log n + nm))` with at most :math:`\min(n, m+1)` rounds.

    Examples
    --------
    Single-resource max-min, capacity 10, demands 2, 2.6, 4, 5 (in tenths):

    >>> sol = waterfill(np.ones((4, 1)), np.array([0.2, 0.26, 0.4, 0.5]))
    >>> (sol.shares * 10).round(6).tolist()
    [2.0, 2.6, 2.7, 2.7]
    """
    v = np.asarray(directions, dtype=float)
    mu = np.asarray(caps, dtype=float)
    n, m = v.shape
    b = np.zeros(n) if starts is None else np.asarray(starts, dtype=float)
    w = np.ones(n) if rates is None else np.asarray(rates, dtype=float)
    e = b + mu / w

    s = np.zeros(n)
    freeze = np.full(n, np.nan)
    active = np.arange(n)
    base = np.zeros(m)
    first_level: float | None = None
    rounds = 0
    saturated: list[int] = []
    while active.size:
        rounds += 1
        sel = slice(None) if active.size == n else active      # first round: no gathers
        if active.size == n:
            va, mua, ba, wa, ea = v, mu, b, w, e
        else:
            va, mua, ba, wa, ea = v[active], mu[active], b[active], w[active], e[active]
        demand = mua @ va                                     # (m,) what the growing users want
        cols = np.flatnonzero(demand > 0)                     # resources someone still needs
        full = base[cols] + demand[cols]
        if np.all(full <= 1.0 + _SAT_RTOL):                   # everybody left can be satisfied
            s[sel], freeze[sel] = mua, ea
            if first_level is None:
                first_level = float(ea.max())
            break
        vc = va if cols.size == m else va[:, cols]
        x_star, sat_cols = _first_crossing(base[cols], vc, mua, ba, wa, ea, full)
        if first_level is None:
            first_level = x_star
        sat = cols[sat_cols]
        saturated.extend(int(r) for r in sat)
        sa = np.minimum(np.maximum(wa * (x_star - ba), 0.0), mua)
        done = (lastmax(va[:, sat]) > 0) | (ea <= x_star)   # blocked by a full resource, or satisfied
        fl = np.minimum(ea, x_star)
        if done.all():                                        # the usual case: no gathers needed
            s[sel], freeze[sel] = sa, fl
            break
        idx = active[done]
        s[idx], freeze[idx] = sa[done], fl[done]
        base = base + sa[done] @ va[done]
        active = active[~done]
    return WaterfillSolution(shares=s, level=float(first_level if first_level is not None else 0.0),
                             freeze_levels=freeze, rounds=rounds, saturated=tuple(saturated))
