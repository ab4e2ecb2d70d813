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
satisfaction levels :math:`e_i = b_i + \mu_i / w_i`. The engine sorts the 2n breakpoints once and
searches them for the first level at which some needed resource reaches 1, with a safeguarded Newton
iteration: from the bracket's left end it follows each resource's tangent (exact value and right
derivative) to 1; if no breakpoint lies before that point, *U* is linear there and the point is the
exact crossing; otherwise it probes the breakpoint the tangent lands in, and bisects after an
overshoot. Every evaluation of :math:`U` or its slope is a sum of non-negative terms (never a running
sum that adds and later subtracts slopes), so there is no cancellation whatever the magnitudes, and
the result is exact up to rounding. Cost per round: :math:`O(km)` per evaluation for the *k* users
still growing, a handful of evaluations in practice and :math:`O(\log k)` at worst, after an
:math:`O(k \log k)` sort;
there are at most :math:`\min(n, m + 1)` rounds, since every saturated resource freezes all its
remaining users. ``benchmarks/bench_waterfill.py`` measures the whole call against one ``argsort``
of the 2n keys. (A sweep with cumulative slope sums, :math:`O(nm)` after the sort, was measured
slower in NumPy and can cancel catastrophically when a large slope is added and later removed.)

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
    """Exact usage at level x: base + sum over growing users of v_i clip(w_i (x - b_i), 0, mu_i).

    A sum of non-negative terms. ``w=None`` means unit rates; the arrays hold the growing users only
    (users frozen in earlier rounds are in ``base``); ``buf`` is scratch.
    """
    s = np.subtract(x, b, out=buf)
    if w is not None:
        np.multiply(s, w, out=s)
    np.maximum(s, 0.0, out=s)
    np.minimum(s, mu, out=s)
    return base + s @ v


def _slope(x: float, v: np.ndarray, b: np.ndarray, e: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """Right derivative of U at x: sum of w_i v_i over growing users filling just above x (b_i <= x < e_i)."""
    filling = ((b <= x) & (e > x)).astype(float)
    if w is not None:
        filling *= w
    return filling @ v


def _first_crossing(xs, lo, base, v, mu, b, w, e, cols, full, buf):
    """Smallest level x >= xs[lo] at which a needed resource's usage reaches 1, and those resources.

    ``xs`` are the sorted breakpoints (a superset of the growing users' starts and ends: extra points
    where no slope changes are harmless), ``max U(xs[lo])[cols] <= 1``, ``cols`` the resources growing
    users need, ``full`` the usage once they are all satisfied (some needed entry exceeds 1).
    Returns ``(x, saturated)`` with ``saturated`` a boolean mask over all resources.

    Safeguarded Newton search over the sorted breakpoints: from the left end ``lo`` of the bracket,
    follow each resource's tangent (exact value and right derivative, both sums of non-negative
    terms) to where it reaches 1. If no breakpoint lies before that point, U is linear there and the
    point is the exact crossing. Otherwise probe the breakpoint it falls in; after a probe that
    overshoots (U > 1 there), the next probe bisects the bracket, so the number of evaluations is
    O(log k) in the worst case and a handful in practice.
    """
    m = base.size
    hi = xs.size - 1                                     # invariant: max U(xs[lo]) <= 1 < max U(xs[hi])
    lo_u = _usage(xs[lo], base, v, mu, b, w, buf)
    hi_u = full
    if lo_u[cols].max() > 1.0:                           # rounding left a needed resource at capacity
        hi, hi_u = lo, lo_u
    newton = True
    while hi - lo > 1:
        j = -1
        if newton:
            x_lo = xs[lo]
            slope = _slope(x_lo, v, b, e, w)[cols]
            with np.errstate(divide="ignore", invalid="ignore"):
                cand_c = np.where(slope > 0, x_lo + (1.0 - lo_u[cols]) / slope, np.inf)
            cand = float(cand_c.min())
            nxt = int(np.searchsorted(xs, x_lo, side="right"))        # first breakpoint > x_lo
            if nxt >= xs.size or cand <= xs[nxt]:                       # U linear on [x_lo, cand]
                sat = np.zeros(m, dtype=bool)
                sat[cols] = cand_c <= cand + _SAT_RTOL * max(1.0, abs(cand))
                return cand, sat
            j = int(np.searchsorted(xs, cand, side="right")) - 1        # segment the tangent lands in
            if not lo < j < hi:
                j = -1
        if j < 0:
            j = (lo + hi) // 2
        u = _usage(xs[j], base, v, mu, b, w, buf)
        if u[cols].max() > 1.0:
            hi, hi_u, newton = j, u, False
        else:
            lo, lo_u, newton = j, u, True
    x_lo, x_hi = xs[lo], xs[hi]
    # U is linear on [x_lo, x_hi]: interpolate each resource's crossing from the exact end values
    lo_c, hi_c = lo_u[cols], hi_u[cols]
    rise = hi_c - lo_c
    crosses = hi_c > 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        frac = np.where(crosses & (rise > 0), (1.0 - lo_c) / rise, 0.0)
    x_c = np.where(crosses, x_lo + np.clip(frac, 0.0, 1.0) * (x_hi - x_lo), np.inf)
    x_star = float(x_c.min())
    sat = np.zeros(m, dtype=bool)
    sat[cols] = x_c <= x_star + _SAT_RTOL * max(1.0, abs(x_star))
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
    Inputs are trusted (the public mechanisms validate them). After a round that freezes some users
    only, the next round works on the users still growing: frozen users' usage moves to a constant,
    the remaining breakpoints (and the level reached, where the search restarts) are sorted again.
    With zero demands a round typically keeps a small fraction of the users, so later rounds cost
    little next to the first.

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
    unit = bool(np.all(w == 1.0))

    s = np.zeros(n)
    freeze = np.full(n, np.nan)
    ids = np.arange(n)                                       # users still growing (global indices)
    base = np.zeros(m)
    first_level: float | None = None
    rounds = 0
    saturated: list[int] = []
    xs: np.ndarray | None = None
    lo = 0
    while True:
        rounds += 1
        demand = mu @ v                                       # (m,) what the growing users want
        cols = np.flatnonzero(demand > 0)                     # resources someone still needs
        full = base + demand
        if np.all(full[cols] <= 1.0 + _SAT_RTOL):             # everybody left can be satisfied
            s[ids], freeze[ids] = mu, e
            if first_level is None:
                first_level = float(e.max())
            break
        if xs is None:
            xs = np.sort(np.concatenate([b, e]))
        x_star, sat = _first_crossing(xs, lo, base, v, mu, b, None if unit else w, e, cols, full,
                                      np.empty(ids.size))
        if first_level is None:
            first_level = x_star
        saturated.extend(int(r) for r in np.flatnonzero(sat))
        sa = np.minimum(np.maximum(w * (x_star - b), 0.0), mu)
        done = (lastmax(v[:, sat]) > 0) | (e <= x_star)     # blocked by a full resource, or satisfied
        fl = np.minimum(e, x_star)
        if done.all():                                        # the usual case: everybody stops here
            s[ids], freeze[ids] = sa, fl
            break
        gone = np.flatnonzero(done)                          # (take: much faster than boolean masks)
        s[ids.take(gone)], freeze[ids.take(gone)] = sa.take(gone), fl.take(gone)
        base = base + np.where(done, sa, 0.0) @ v
        # later rounds work on the users still growing only: their breakpoints are sorted again
        # (with the level reached, where the next search starts), frozen users' usage is in base
        keep = np.flatnonzero(~done)
        ids, v, mu, b, w, e = (a.take(keep, axis=0) for a in (ids, v, mu, b, w, e))
        xs = np.sort(np.concatenate([b, e, [x_star]]))
        lo = int(np.searchsorted(xs, x_star, side="left"))
    return WaterfillSolution(shares=s, level=float(first_level if first_level is not None else 0.0),
                             freeze_levels=freeze, rounds=rounds, saturated=tuple(saturated))
