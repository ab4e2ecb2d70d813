r"""The live tree's state in arrays and its operations as compiled functions.

:class:`~fairalloc.kinetic.LiveTree` wraps these functions (keys mapped to element indices), and the
task schedulers' compiled decision core (:mod:`fairalloc.scheduling.core`) calls them directly: one
tree. They are plain loops compiled with numba at first use (:mod:`fairalloc._jit`); under
``NUMBA_DISABLE_JIT=1`` the same source runs as Python.

Trajectories in :math:`u = e^{-t/\tau}`
-----------------------------------------
An element's priority is :math:`p(t) = \max_k (a_k + b_k e^{-(t - t_0)/\tau})` with one :math:`\tau`
for all elements. With :math:`u = e^{-t/\tau}` each line is affine in *u*,
:math:`a_k + (b_k e^{t_0/\tau})\, u`, so *p* is the upper envelope of lines: convex and piecewise
linear in *u*, and *u* falls from :math:`e^{-t_0/\tau}` towards 0 as time goes on. No factor
:math:`e^{+t/\tau}` is ever formed: from a reference time *s* (the start of a stretch, the element's
:math:`t_0` or now) every line is written :math:`a_k + B_k v` with :math:`v = e^{-(t - s)/\tau} \in
(0, 1]` and :math:`B_k = b_k e^{-(s - t_0)/\tau}`, a rescaling by a factor at most 1 (terms can only
underflow, never overflow).

*Envelope* (:func:`envelope`). At :math:`v = 1` the largest line leads (ties: the smaller slope, the
larger for :math:`v < 1`). As *v* decreases, line *k* overtakes the current line *c* iff it has a
smaller slope and a larger intercept; they meet where :math:`a_c + B_c v = a_k + B_k v`,

.. math:: v_k = \frac{a_k - a_c}{B_c - B_k} \in (0, 1), \qquad t_k = s - \tau \ln v_k,

and the next piece is the line with the largest :math:`v_k` (the first met). Pieces are stored as
(start time, intercept, slope coefficient at :math:`t_0`).

*Crossing of two elements* (:func:`fail_time`). On a stretch from *s* where x's and y's envelopes are
single lines, :math:`g(v) = p_y - p_x = (a_y - a_x) + (B_y - B_x) v`. x must stop preceding y when
*g* becomes negative: if :math:`g(1) > 0` and the slope :math:`B_y - B_x > 0`, *g* falls as *v* falls
and vanishes at

.. math:: v^* = \frac{a_x - a_y}{B_y - B_x}, \qquad t^* = s - \tau \ln v^*,

a crossing inside the stretch when :math:`t^*` is before its end; otherwise the next stretch (the next
piece of either envelope) is examined, up to :math:`t = \infty` (never). Equal priorities are ordered
by the right limit: the element whose priority will be smaller just after *t* (the larger slope term,
decreasing faster) first, then the tie value, then the key (:func:`cmp`). Two priorities that
approach each other and would cross within the time resolution at *s* (:math:`s - \tau\ln v^*`
rounds to *s*) count as equal, and after a swap the new pair trusts the direction of the crossing,
so no crossing is processed twice. Same intercepts with both slope terms underflowed are compared by
the exact ratio :math:`(b_p/b_q)\,e^{(t_{0p} - t_{0q})/\tau}` in the log domain (:func:`cmp`).

Complexity
----------
n elements, K lines per trajectory (h pieces per envelope, h <= K), d swap events due:

=====================================  ===================================================
:func:`envelope`                        O(K h) (O(K) for K <= 2)
:func:`cmp`, :func:`state`              O(log h) (a bisection over the pieces, cached per time)
:func:`fail_time`                       O(h_x + h_y)
:func:`insert`, :func:`update`          O(log n) comparisons + O(load) block shift + O(1) certificates
:func:`remove`                          O(load) + O(1) certificates
:func:`first`                           O(1)
:func:`advance`                         O(1) with no event due, else O(d (h + log n))
=====================================  ===================================================

The state
---------
:class:`TreeState` (arrays only, so that compiled and Python callers share it):

* ``F`` (cap + 1, 7) floats per element: reference time ``t0``, ``tie``, the cached state (time ``ct``,
  intercept ``ca``, slope term ``cs``), the certificate time ``cert`` and the cached piece's slope
  coefficient ``cb`` (``cs = cb * exp(-(ct - t0) / tau)``). Row ``cap`` is the probe
  (:func:`leads_with`, :func:`lead_or_update`).
* ``I`` (cap + 1, 5) ints per element: the key's order value ``kord`` (the key itself for int keys),
  its block, its token, its number of envelope pieces and of trajectory lines.
* ``P`` (cap + 1, 5, L): per element the envelope (piece start times, intercepts, slopes) and the
  trajectory's lines (intercepts, slopes) as given.
* ``B`` (blocks, 2 * load + 2): the items of each block; ``BO`` (4, blocks): the block ids in order, the
  position of each block id in that order, each block's length, and a stack of unused block ids.
* ``H`` (heap cap, 4): the event heap (time, sequence number, token, element), ordered by (time,
  sequence number); an entry is stale when its token is not the element's.
* ``meta`` int64: counts (elements, blocks, heap size, sequence, swaps, certificates, load, unused
  block ids) and a version of the order (bumped by every insertion, removal and swap: a reader may
  keep a copy of the order while it is unchanged); ``fm`` floats: now, tau, whether tau is finite.

Element indices are reused after removal; a reused index keeps its token counter, so the entries of
the removed element stay stale.

References
----------
.. [1] H. Sadok, M. Campista, L. Costa, "O Passado Também Importa: Um Mecanismo de Alocação Justa de
   Múltiplos Tipos de Recursos ao Longo do Tempo", SBRC 2018, Section 6.3 (the live tree).
.. [2] J. Basch, L. Guibas, J. Hershberger, "Data structures for mobile data", J. Algorithms 31(1),
   1999 (kinetic data structures: certificates and their failure times).

Examples
--------
Element 0 constant at 0.5, element 1 decaying from 1.0 with :math:`\tau = 1`: they cross where
:math:`e^{-t} = 0.5`, at :math:`t = \ln 2`; advancing to 1 processes that one swap.

>>> import numpy as np
>>> ts = new_state(1.0, 0.0, 4, 4, 1)
>>> insert(ts, 0, np.array([[0.5], [0.0]]), 0.0, 0.0, 0)
>>> insert(ts, 1, np.array([[0.0], [1.0]]), 0.0, 0.0, 1)
>>> int(first(ts)), round(float(next_event_time(ts)), 6)
(0, 0.693147)
>>> int(advance(ts, 1.0)), int(first(ts)), int(size(ts)), int(swaps(ts))
(1, 1, 2, 1)
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .._jit import jit

__all__ = ["TreeState", "new_state", "grow_state", "insert", "update", "remove", "set_trajectory",
           "leads_with", "lead_or_update", "advance", "process", "first", "first_unflagged", "order",
           "size", "swaps", "contains", "priority", "compare", "next_event_time", "pair_fail_time",
           "envelope", "state", "states", "cmp", "fail_time"]

_INF = math.inf
#: Relative agreement of two slope terms (same intercept) below which two lines are one function
#: written from different reference times (their values differ by rounding only).
_SAME = 1e-12
#: The smallest normal float: a slope term below it has underflowed to 0 or lost its relative
#: precision (``b * exp(-(t - t0) / tau)`` about 708 to 745 tau after t0); two such terms are
#: compared by their exact ratio (:func:`_slope_cmp`).
_TINY = 2.2250738585072014e-308

# F columns
_T0, _TIE, _CT, _CA, _CS, _CERT, _CB = 0, 1, 2, 3, 4, 5, 6
# I columns
_KORD, _BLK, _TOKEN, _NP, _NL = 0, 1, 2, 3, 4
# P planes
_PS, _PA, _PB, _RA, _RB = 0, 1, 2, 3, 4
# BO rows
_ORDER, _POS, _LEN, _FREE = 0, 1, 2, 3
# meta
_N, _NB, _HS, _SEQ, _SWAPS, _CERTS, _LOAD, _NFREE, _VER = 0, 1, 2, 3, 4, 5, 6, 7, 8
# fm
_NOW, _TAU, _KIN = 0, 1, 2


class TreeState(NamedTuple):
    """The live tree's arrays (module docstring, *The state*)."""

    F: np.ndarray      #: (cap + 1, 7) floats per element
    I: np.ndarray      #: (cap + 1, 5) ints per element
    P: np.ndarray      #: (cap + 1, 5, lines): envelope pieces and lines
    B: np.ndarray      #: (blocks, 2 * load + 2): the items of each block
    BO: np.ndarray     #: (4, blocks): block order, positions, lengths, unused ids
    H: np.ndarray      #: (heap cap, 4): the event heap
    meta: np.ndarray   #: int64 counters
    fm: np.ndarray     #: now, tau, whether tau is finite


def new_state(tau: float | None, time: float, load: int, cap: int, lines: int) -> TreeState:
    """Empty state for ``cap`` elements with at most ``lines`` lines each (``tau=None``: constant
    priorities), at time ``time``, blocks of at most ``2 * load`` elements."""
    width = 2 * load + 2
    nb = cap + 2
    F = np.zeros((cap + 1, 7))
    F[:, _CT] = np.nan
    F[:, _CERT] = _INF
    I = np.zeros((cap + 1, 5), np.int64)
    I[:, _BLK] = -1
    P = np.zeros((cap + 1, 5, lines))
    B = np.zeros((nb, width), np.int64)
    BO = np.zeros((4, nb), np.int64)
    BO[_FREE] = np.arange(nb - 1, -1, -1)
    H = np.zeros((8 * cap + 80, 4))
    meta = np.zeros(9, np.int64)
    meta[_LOAD] = load
    meta[_NFREE] = nb
    fm = np.array([time, 1.0 if tau is None else tau, 0.0 if tau is None else 1.0])
    return TreeState(F, I, P, B, BO, H, meta, fm)


def grow_state(ts: TreeState, cap: int, lines: int) -> TreeState:
    """A copy of ``ts`` with room for ``cap`` elements and ``lines`` lines (not smaller than now)."""
    F, I, P, B, BO, H, meta, fm = ts
    old = F.shape[0] - 1
    cap = max(cap, old)
    lines = max(lines, P.shape[2])
    new = new_state(None, 0.0, int(meta[_LOAD]), cap, lines)
    F2, I2, P2, B2, BO2, H2, meta2, fm2 = new
    F2[:old] = F[:old]
    I2[:old] = I[:old]
    P2[:old, :, :P.shape[2]] = P[:old]
    nb_old = B.shape[0]
    B2[:nb_old] = B
    BO2[:3, :nb_old] = BO[:3]
    # unused block ids: the old stack, then the new ids below it (used last)
    nfree = int(meta[_NFREE])
    extra = np.arange(B2.shape[0] - 1, nb_old - 1, -1)
    BO2[_FREE, :len(extra)] = extra
    BO2[_FREE, len(extra):len(extra) + nfree] = BO[_FREE, :nfree]
    H2[:H.shape[0]] = H
    meta2[:] = meta
    meta2[_NFREE] = nfree + len(extra)
    fm2[:] = fm
    return TreeState(F2, I2, P2, B2, BO2, H2, meta2, fm2)


# ---- ranks, comparison, trajectories -----------------------------------------------------------------
@jit(_nrt=False)
def _rank_cmp(tp, kp, tq, kq):
    """Order of the ranks (tie, key) of p and q: -1, 1 or 0 (the same element)."""
    if tp < tq:
        return -1
    if tq < tp:
        return 1
    if kp < kq:
        return -1
    if kq < kp:
        return 1
    return 0


@jit(_nrt=False)
def _slope_cmp(bp, t0p, bq, t0q, tau):
    r"""Order of two slope terms :math:`b_p e^{-(s - t_{0p})/\tau}` and :math:`b_q e^{-(s - t_{0q})/\tau}`
    (-1: p's smaller, 1: larger, 0: equal to ``_SAME``), at any s: with one tau their ratio
    :math:`(b_p / b_q) e^{(t_{0p} - t_{0q})/\tau}` does not depend on s. By sign, then by the
    logarithm of the ratio, so it holds where both terms have underflowed."""
    gp = 1 if bp > 0.0 else (-1 if bp < 0.0 else 0)
    gq = 1 if bq > 0.0 else (-1 if bq < 0.0 else 0)
    if gp != gq:
        return -1 if gp < gq else 1
    if gp == 0:
        return 0
    dl = (math.log(abs(bp)) - math.log(abs(bq))) + (t0p - t0q) / tau     # ln |s_p / s_q|
    if abs(dl) <= _SAME:
        return 0
    return gp if dl > 0.0 else -gp


@jit(_nrt=False)
def cmp(ap, sp, bp, t0p, tp, kp, aq, sq, bq, t0q, tq, kq, s, tau, kin):
    """Order of p and q at time s (-1: p first, 1: q first, 0: same rank); p(s) = ap + sp.

    ``sp = bp * exp(-(s - t0p) / tau)``: the slope term, its piece's coefficient and the element's
    reference time (the same for q); ``tp, kp`` and ``tq, kq`` are the elements' ranks (tie, key
    order); ``kin``: tau is finite.

    The priorities are compared through their difference ``d = (ap - aq) + (sp - sq)``, not as two
    rounded sums, so the sign of a decaying term still counts after it has become negligible
    against the intercepts. When the two approach each other and would cross within the time
    resolution at s (``s - tau * log(v*)`` rounds to s), they count as equal: the trend decides, as it
    does for the certificates. Then the larger slope term (decreasing faster) first, then the rank.
    Two lines with the same intercept whose slope terms agree to ``_SAME`` (relative) are the same
    function (one tau: equal at one time, equal at all times), written from different reference
    times; they are equal, and the rank decides. With the same intercept and both slope terms below
    the normal range (underflowed after about 745 tau idle, or subnormal), the terms are compared by
    their exact ratio (:func:`_slope_cmp`): a user whose commitment decays from 0.3 for 1000 tau is
    still after a user at 0.
    """
    ds = sp - sq
    if ap == aq:
        if kin and abs(sp) < _TINY and abs(sq) < _TINY:
            c = _slope_cmp(bp, t0p, bq, t0q, tau)
            return c if c != 0 else _rank_cmp(tp, kp, tq, kq)
        if abs(ds) <= _SAME * max(abs(sp), abs(sq)):
            return _rank_cmp(tp, kp, tq, kq)
    d = (ap - aq) + ds
    if d != 0.0 and ds != 0.0 and kin and (d > 0.0) == (ds > 0.0):
        vstar = (aq - ap) / ds
        if vstar > 0.0 and s - tau * math.log(vstar) <= s:
            d = 0.0
    if d != 0.0:
        return -1 if d < 0.0 else 1
    if ds != 0.0:
        return -1 if ds > 0.0 else 1
    return _rank_cmp(tp, kp, tq, kq)


@jit(_nrt=False)
def _bisect_right(a, n, x):
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) // 2
        if x < a[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


@jit
def envelope(P, I, e, t0, tau, kin):
    """Upper envelope of e's lines (``P[e, _RA/_RB, :I[e, _NL]]``) for t >= t0, as pieces
    (start time, intercept, slope) in ``P[e, _PS/_PA/_PB]`` and their number in ``I[e, _NP]``."""
    n = I[e, _NL]
    a = P[e, _RA]
    b = P[e, _RB]
    ps = P[e, _PS]
    pa = P[e, _PA]
    pb = P[e, _PB]
    if n == 1:
        la = np.empty(1)
        lb = np.empty(1)
        la[0] = a[0]
        lb[0] = b[0]
        m = 1
    elif n == 2:                               # sorted(set(...)) of two lines, without the calls
        a1, b1, a2, b2 = a[0], b[0], a[1], b[1]
        if a1 == a2 and b1 == b2:
            la = np.empty(1)
            lb = np.empty(1)
            la[0] = a1
            lb[0] = b1
            m = 1
        else:                                  # distinct lines never have equal keys
            la = np.empty(2)
            lb = np.empty(2)
            k1, k2 = -(a1 + b1), -(a2 + b2)
            if k1 < k2 or (k1 == k2 and b1 < b2):
                la[0], lb[0], la[1], lb[1] = a1, b1, a2, b2
            else:
                la[0], lb[0], la[1], lb[1] = a2, b2, a1, b1
            m = 2
    else:                                      # distinct lines by value at v = 1, largest first;
        la = np.empty(n)                       # ties: smaller slope first (larger for v < 1)
        lb = np.empty(n)
        m = 0
        for k in range(n):
            dup = False
            for j in range(m):
                if la[j] == a[k] and lb[j] == b[k]:
                    dup = True
                    break
            if dup:
                continue
            ka, kb = -(a[k] + b[k]), b[k]      # stable insertion by (-(a + b), b)
            j = m
            while j > 0 and (ka < -(la[j - 1] + lb[j - 1])
                             or (ka == -(la[j - 1] + lb[j - 1]) and kb < lb[j - 1])):
                la[j] = la[j - 1]
                lb[j] = lb[j - 1]
                j -= 1
            la[j] = a[k]
            lb[j] = kb
            m += 1
    if not kin:
        ps[0] = t0
        pa[0] = la[0] + lb[0]
        pb[0] = 0.0
        I[e, _NP] = 1
        return
    if m == 1:
        ps[0] = t0
        pa[0] = la[0]
        pb[0] = lb[0]
        I[e, _NP] = 1
        return
    if m == 2:                                 # the general loop below, unrolled (two resources)
        a1, b1, a2, b2 = la[0], lb[0], la[1], lb[1]
        if b2 < b1 and a2 > a1:
            vk = (a2 - a1) / (b1 - b2)
            st = t0 - tau * math.log(vk) if vk < 1.0 else t0
            if st <= t0:
                ps[0], pa[0], pb[0] = t0, a2, b2
                I[e, _NP] = 1
            else:
                ps[0], pa[0], pb[0] = t0, a1, b1
                ps[1], pa[1], pb[1] = st, a2, b2
                I[e, _NP] = 2
        else:
            ps[0], pa[0], pb[0] = t0, a1, b1
            I[e, _NP] = 1
        return
    ca, cb = la[0], lb[0]                      # max at v = 1; ties: smaller slope wins for v < 1
    v = 1.0
    ps[0], pa[0], pb[0] = t0, ca, cb
    k = 1
    while True:
        best_v = 0.0
        found = False
        ba, bb = 0.0, 0.0
        for j in range(m):
            ak, bk = la[j], lb[j]
            if bk < cb and ak > ca:            # overtakes the current line as v decreases
                vk = (ak - ca) / (cb - bk)
                if vk > best_v or (vk == best_v and found and bk < bb):
                    best_v, ba, bb = vk, ak, bk
                    found = True
        if not found:
            break
        v_next = min(best_v, v)
        ca, cb = ba, bb
        if v_next >= v:                        # rounding: the new line already leads at the last start
            pa[k - 1], pb[k - 1] = ba, bb
        else:
            ps[k] = t0 - tau * math.log(v_next)
            pa[k], pb[k] = ba, bb
            k += 1
            if ps[k - 1] <= ps[k - 2]:
                k -= 1
                pa[k - 1], pb[k - 1] = ba, bb
        v = v_next
    I[e, _NP] = k


@jit(_nrt=False)
def state(F, I, P, e, t, tau, kin):
    """(intercept a, slope term beta(t)) of e's line active just after t (cached, with the piece's slope
    coefficient in ``F[e, _CB]``); p(t) = a + beta."""
    if F[e, _CT] == t:
        return F[e, _CA], F[e, _CS]
    npc = I[e, _NP]
    j = 0 if npc == 1 else _bisect_right(P[e, _PS], npc, t) - 1
    a = P[e, _PA, j]
    b = P[e, _PB, j]
    if not kin or b == 0.0:
        s = b
    else:
        s = b * math.exp(-(t - F[e, _T0]) / tau)
    F[e, _CT] = t
    F[e, _CA] = a
    F[e, _CS] = s
    F[e, _CB] = b
    return a, s


@jit(_nrt=False)
def states(F, I, P, idx, t, tau, kin, out):
    """:func:`state` of the elements ``idx`` at t into ``out`` rows (intercept, slope term, the piece's
    slope coefficient): one call for a whole re-sort (:class:`~fairalloc.kinetic.ResortQueue`)."""
    for j in range(idx.shape[0]):
        a, s = state(F, I, P, idx[j], t, tau, kin)
        out[j, 0] = a
        out[j, 1] = s
        out[j, 2] = F[idx[j], _CB]


@jit(_nrt=False)
def fail_time(F, I, P, tau, kin, x, y, s, after_swap):
    """Earliest time >= s after which x must no longer precede y (``inf``: never).

    ``after_swap``: x and y have just been swapped at s because they cross there; trust the
    direction of the crossing, not the sign of the rounding noise in their difference at s.
    """
    nsx = I[x, _NP]
    nsy = I[y, _NP]
    sx = P[x, _PS]
    sy = P[y, _PS]
    ix = 0 if nsx == 1 else _bisect_right(sx, nsx, s) - 1
    iy = 0 if nsy == 1 else _bisect_right(sy, nsy, s) - 1
    rank_gt = _rank_cmp(F[x, _TIE], I[x, _KORD], F[y, _TIE], I[y, _KORD]) > 0
    first = True
    while True:
        nx = sx[ix + 1] if ix + 1 < nsx else _INF
        ny = sy[iy + 1] if iy + 1 < nsy else _INF
        end = nx if nx < ny else ny
        # (intercept, slope term at s) of each piece: state's cached values when they are of time s
        # (the same piece and the same product; a zero slope term's sign does not matter below)
        if F[x, _CT] == s:
            ax, bxs, bx = F[x, _CA], F[x, _CS], F[x, _CB]
        else:
            ax, bx = P[x, _PA, ix], P[x, _PB, ix]
            bxs = bx if not kin else (bx * math.exp(-(s - F[x, _T0]) / tau) if bx != 0.0 else 0.0)
        if F[y, _CT] == s:
            ay, bys, by = F[y, _CA], F[y, _CS], F[y, _CB]
        else:
            ay, by = P[y, _PA, iy], P[y, _PB, iy]
            bys = by if not kin else (by * math.exp(-(s - F[y, _T0]) / tau) if by != 0.0 else 0.0)
        slope = bys - bxs                      # g(v) = (ay - ax) + slope * v, v = 1 at s
        # same intercept, both slope terms underflowed (see cmp): their exact ratio, constant here
        tiny = ay == ax and kin and abs(bxs) < _TINY and abs(bys) < _TINY
        c = _slope_cmp(bx, F[x, _T0], by, F[y, _T0], tau) if tiny else 0
        if c > 0:
            return s
        if tiny or (ay == ax and abs(slope) <= _SAME * max(abs(bxs), abs(bys))):
            if c == 0 and rank_gt:             # the same function on this piece (see cmp): by rank
                return s
            if end == _INF:
                return _INF
            s = end
            if nx == end:
                ix += 1
            if ny == end:
                iy += 1
            first = False
            continue
        g0 = (ay - ax) + slope
        if first and after_swap and g0 <= 0.0:
            g0 = 0.0                           # the crossing just processed: equal
        elif g0 != 0.0 and slope != 0.0 and kin and (g0 > 0.0) == (slope > 0.0):
            vstar = (ax - ay) / slope          # approaching: equal if they cross within rounding
            if vstar > 0.0 and s - tau * math.log(vstar) <= s:
                g0 = 0.0
        first = False
        if g0 < 0.0:
            return s
        if g0 == 0.0:
            if slope > 0 or (slope == 0 and rank_gt):
                return s
        elif slope > 0 and kin:
            vstar = (ax - ay) / slope
            if vstar > 0.0:
                t_root = s - tau * math.log(vstar)
                # a root at the piece's end (to rounding) is where y's envelope turns: the next
                # piece decides whether they cross there or only touch
                if end == _INF or t_root < end - 1e-12 * (abs(end) + tau):
                    return t_root if t_root > s else s
        if end == _INF:
            return _INF
        s = end
        if nx == end:
            ix += 1
        if ny == end:
            iy += 1


@jit(_nrt=False)
def _cmp_at(ts, p, q, t):
    """:func:`cmp` of elements p and q at t (their cached states)."""
    F, I, P, B, BO, H, meta, fm = ts
    tau = fm[_TAU]
    kin = fm[_KIN] != 0.0
    ap, sp = state(F, I, P, p, t, tau, kin)
    aq, sq = state(F, I, P, q, t, tau, kin)
    return cmp(ap, sp, F[p, _CB], F[p, _T0], F[p, _TIE], I[p, _KORD],
               aq, sq, F[q, _CB], F[q, _T0], F[q, _TIE], I[q, _KORD], t, tau, kin)


# ---- the order: blocks ------------------------------------------------------------------------------
@jit(_nrt=False)
def _index(B, BO, e, b):
    """Position of e in block b (a scan, as ``list.index``)."""
    for i in range(BO[_LEN, b]):
        if B[b, i] == e:
            return i
    return -1


@jit(_nrt=False)
def _next(ts, e):
    F, I, P, B, BO, H, meta, fm = ts
    b = I[e, _BLK]
    i = _index(B, BO, e, b)
    if i + 1 < BO[_LEN, b]:
        return B[b, i + 1]
    j = BO[_POS, b] + 1
    return B[BO[_ORDER, j], 0] if j < meta[_NB] else -1


@jit(_nrt=False)
def _prev(ts, e):
    F, I, P, B, BO, H, meta, fm = ts
    b = I[e, _BLK]
    i = _index(B, BO, e, b)
    if i > 0:
        return B[b, i - 1]
    j = BO[_POS, b]
    if j > 0:
        pb = BO[_ORDER, j - 1]
        return B[pb, BO[_LEN, pb] - 1]
    return -1


@jit(_nrt=False)
def _around(B, BO, meta, b, i):
    """(previous, next) of the element at position i of block b in the order (-1: none)."""
    n = BO[_LEN, b]
    j = BO[_POS, b]
    if i > 0:
        p = B[b, i - 1]
    elif j > 0:
        pb = BO[_ORDER, j - 1]
        p = B[pb, BO[_LEN, pb] - 1]
    else:
        p = -1
    if i + 1 < n:
        q = B[b, i + 1]
    else:
        q = B[BO[_ORDER, j + 1], 0] if j + 1 < meta[_NB] else -1
    return p, q


@jit(_nrt=False)
def first(ts):
    """The first element (-1: empty)."""
    F, I, P, B, BO, H, meta, fm = ts
    if meta[_NB] == 0:
        return -1
    return B[BO[_ORDER, 0], 0]


@jit(_nrt=False)
def _new_block(BO, meta):
    meta[_NFREE] -= 1
    return BO[_FREE, meta[_NFREE]]


@jit(_nrt=False)
def _insert_block(BO, meta, j, b):
    """Block id b at position j of the order."""
    nb = meta[_NB]
    for k in range(nb, j, -1):
        BO[_ORDER, k] = BO[_ORDER, k - 1]
        BO[_POS, BO[_ORDER, k]] = k
    BO[_ORDER, j] = b
    BO[_POS, b] = j
    meta[_NB] = nb + 1


@jit(_nrt=False)
def _delete_block(BO, meta, j):
    b = BO[_ORDER, j]
    nb = meta[_NB] - 1
    for k in range(j, nb):
        BO[_ORDER, k] = BO[_ORDER, k + 1]
        BO[_POS, BO[_ORDER, k]] = k
    meta[_NB] = nb
    BO[_FREE, meta[_NFREE]] = b
    meta[_NFREE] += 1


@jit(_nrt=False)
def _place(ts, e):
    """Insert e at its position at now and refresh the certificates around it."""
    F, I, P, B, BO, H, meta, fm = ts
    t = fm[_NOW]
    meta[_VER] += 1
    if meta[_NB] == 0:
        b = _new_block(BO, meta)
        B[b, 0] = e
        BO[_LEN, b] = 1
        _insert_block(BO, meta, np.int64(0), b)
        I[e, _BLK] = b
        _cert(ts, e, np.bool_(False))
        return
    # binary searches by cmp(x, e) < 0: over the blocks' first elements, then in the block
    lo, hi = 0, meta[_NB]
    while lo < hi:
        mid = (lo + hi) // 2
        x = B[BO[_ORDER, mid], 0]
        if _cmp_at(ts, x, e, t) < 0:
            lo = mid + 1
        else:
            hi = mid
    blk = BO[_ORDER, max(lo - 1, 0)]
    n = BO[_LEN, blk]
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) // 2
        x = B[blk, mid]
        if _cmp_at(ts, x, e, t) < 0:
            lo = mid + 1
        else:
            hi = mid
    for k in range(n, lo, -1):
        B[blk, k] = B[blk, k - 1]
    B[blk, lo] = e
    n += 1
    BO[_LEN, blk] = n
    I[e, _BLK] = blk
    # e's neighbours in the order, read here where its index is known (a split below moves
    # elements between blocks but not in the order)
    p, q = _around(B, BO, meta, blk, lo)
    j = BO[_POS, blk]
    if n > 2 * meta[_LOAD]:
        half = n // 2
        nbk = _new_block(BO, meta)
        for k in range(half, n):
            x = B[blk, k]
            B[nbk, k - half] = x
            I[x, _BLK] = nbk
        BO[_LEN, nbk] = n - half
        BO[_LEN, blk] = half
        _insert_block(BO, meta, j + 1, nbk)
    if p >= 0:
        _cert_next(ts, p, e)
    _cert_next(ts, e, q)


@jit(_nrt=False)
def _unplace(ts, e):
    F, I, P, B, BO, H, meta, fm = ts
    meta[_VER] += 1
    b = I[e, _BLK]
    n = BO[_LEN, b]
    i = _index(B, BO, e, b)
    j = BO[_POS, b]
    p, q = _around(B, BO, meta, b, i)          # q: p's next once e is gone
    for k in range(i, n - 1):
        B[b, k] = B[b, k + 1]
    BO[_LEN, b] = n - 1
    I[e, _BLK] = -1
    I[e, _TOKEN] += 1                          # its own certificate is void
    if n == 1:
        _delete_block(BO, meta, j)
    if p >= 0:
        _cert_next(ts, p, q)


@jit(_nrt=False)
def _swap(ts, x, y):
    """Swap neighbours x, y (y right after x)."""
    F, I, P, B, BO, H, meta, fm = ts
    meta[_VER] += 1
    bx = I[x, _BLK]
    i = _index(B, BO, x, bx)
    if i + 1 < BO[_LEN, bx]:
        B[bx, i] = y
        B[bx, i + 1] = x
    else:
        by = BO[_ORDER, BO[_POS, bx] + 1]
        B[bx, i] = y
        B[by, 0] = x
        I[x, _BLK] = by
        I[y, _BLK] = bx


# ---- certificates and events ------------------------------------------------------------------------
@jit(_nrt=False)
def _before(H, i, j):
    return H[i, 0] < H[j, 0] or (H[i, 0] == H[j, 0] and H[i, 1] < H[j, 1])


@jit(_nrt=False)
def _hswap(H, i, j):
    for c in range(4):
        H[i, c], H[j, c] = H[j, c], H[i, c]


@jit(_nrt=False)
def _sift_up(H, k):
    while k > 0:
        parent = (k - 1) >> 1
        if not _before(H, k, parent):
            break
        _hswap(H, k, parent)
        k = parent


@jit(_nrt=False)
def _sift_down(H, k, n):
    while True:
        c = 2 * k + 1
        if c >= n:
            break
        if c + 1 < n and _before(H, c + 1, c):
            c += 1
        if not _before(H, c, k):
            break
        _hswap(H, k, c)
        k = c


@jit(_nrt=False)
def _hpop(H, meta):
    n = meta[_HS] - 1
    meta[_HS] = n
    if n > 0:
        _hswap(H, np.int64(0), n)
        _sift_down(H, np.int64(0), n)


@jit(_nrt=False)
def _cert(ts, x, after_swap):
    """(Re)compute the certificate of the pair (x, next(x)) from now and queue it."""
    F, I, P, B, BO, H, meta, fm = ts
    I[x, _TOKEN] += 1
    if fm[_KIN] == 0.0:                        # constant priorities in order never swap
        F[x, _CERT] = _INF
        return
    _cert_to(ts, x, _next(ts, x), after_swap)


@jit(_nrt=False)
def _cert_next(ts, x, y):
    """:func:`_cert` with y = next(x) known (no search for x's position)."""
    F, I, P, B, BO, H, meta, fm = ts
    I[x, _TOKEN] += 1
    if fm[_KIN] == 0.0:
        F[x, _CERT] = _INF
        return
    _cert_to(ts, x, y, np.bool_(False))


@jit(_nrt=False)
def _cert_to(ts, x, y, after_swap):
    """:func:`_cert` with y = next(x) known and x's token already bumped."""
    F, I, P, B, BO, H, meta, fm = ts
    if y < 0:
        F[x, _CERT] = _INF
        return
    meta[_CERTS] += 1
    t = fail_time(F, I, P, fm[_TAU], fm[_KIN] != 0.0, x, y, fm[_NOW], after_swap)
    F[x, _CERT] = t
    if t < _INF:
        meta[_SEQ] += 1
        k = meta[_HS]
        H[k, 0] = t
        H[k, 1] = meta[_SEQ]
        H[k, 2] = I[x, _TOKEN]
        H[k, 3] = x
        meta[_HS] = k + 1
        _sift_up(H, k)
        if meta[_HS] > 8 * meta[_N] + 64:     # drop the stale entries (the pop order is unchanged),
            # in place in H, so that a running process() also sees the entries pushed after this
            m = np.int64(0)
            for k in range(meta[_HS]):
                if H[k, 2] == I[int(H[k, 3]), _TOKEN]:
                    for c in range(4):
                        H[m, c] = H[k, c]
                    m += 1
            meta[_HS] = m
            for k in range(m // 2 - 1, -1, -1):
                _sift_down(H, k, m)


@jit(_nrt=False)
def process(ts, t):
    """Process the swap events due at or before t, in (time, sequence) order."""
    F, I, P, B, BO, H, meta, fm = ts
    guard = False
    guard_time = 0.0
    guard_count = 0
    while meta[_HS] > 0 and H[0, 0] <= t:
        when = H[0, 0]
        token = H[0, 2]
        x = int(H[0, 3])
        _hpop(H, meta)
        if token != I[x, _TOKEN]:
            continue                           # stale certificate
        if guard and when == guard_time:
            guard_count += 1
            if guard_count > meta[_N] ** 2 + 64:
                raise RuntimeError("LiveTree: swap events do not terminate; this is a bug, please "
                                   "report it with the trajectories")
        else:
            guard = True
            guard_time = when
            guard_count = 0
        if when > fm[_NOW]:
            fm[_NOW] = when
        y = _next(ts, x)
        p = _prev(ts, x)
        _swap(ts, x, y)
        meta[_SWAPS] += 1
        if p >= 0:
            _cert(ts, p, np.bool_(False))
        _cert(ts, y, np.bool_(True))
        _cert(ts, x, np.bool_(False))


@jit(_nrt=False)
def _process_due(ts):
    F, I, P, B, BO, H, meta, fm = ts
    if meta[_HS] > 0 and H[0, 0] <= fm[_NOW]:     # else process does nothing
        process(ts, fm[_NOW])


# ---- the operations LiveTree calls ------------------------------------------------------------------
@jit(_nrt=False)
def set_trajectory(ts, e, ab, t0, tie, kord):
    """Element e's lines (``ab`` rows: intercepts, slopes), reference time, tie and key order."""
    F, I, P, B, BO, H, meta, fm = ts
    n = ab.shape[1]
    for k in range(n):
        P[e, _RA, k] = ab[0, k]
        P[e, _RB, k] = ab[1, k]
    I[e, _NL] = n
    I[e, _KORD] = kord
    F[e, _T0] = t0
    F[e, _TIE] = tie
    F[e, _CT] = np.nan
    envelope(P, I, e, t0, fm[_TAU], fm[_KIN] != 0.0)


@jit(_nrt=False)
def insert(ts, e, ab, t0, tie, kord):
    """Add element e (absent) with this trajectory."""
    F, I, P, B, BO, H, meta, fm = ts
    set_trajectory(ts, e, ab, t0, tie, kord)
    meta[_N] += 1
    _place(ts, e)
    _process_due(ts)


@jit(_nrt=False)
def _reposition(ts, e, in_place):
    """Restore the order after e's trajectory changed (in place when it still fits there)."""
    F, I, P, B, BO, H, meta, fm = ts
    b = I[e, _BLK]
    p, q = _around(B, BO, meta, b, _index(B, BO, e, b))
    t = fm[_NOW]
    fits = in_place
    if fits and (p >= 0 or q >= 0):
        if p >= 0:
            fits = _cmp_at(ts, p, e, t) < 0
        if fits and q >= 0:
            fits = _cmp_at(ts, e, q, t) < 0
    if fits:
        if fm[_KIN] == 0.0:                    # constant priorities in order: no certificate to renew
            I[e, _TOKEN] += 1
        else:
            if p >= 0:
                I[p, _TOKEN] += 1
                _cert_to(ts, p, e, np.bool_(False))
            I[e, _TOKEN] += 1
            _cert_to(ts, e, q, np.bool_(False))
    else:
        _unplace(ts, e)
        _place(ts, e)
    _process_due(ts)


@jit(_nrt=False)
def update(ts, e, ab, t0, tie, kord, in_place):
    """Replace e's trajectory and restore the order."""
    set_trajectory(ts, e, ab, t0, tie, kord)
    _reposition(ts, e, in_place)


@jit(_nrt=False)
def remove(ts, e):
    """Remove element e (present)."""
    F, I, P, B, BO, H, meta, fm = ts
    meta[_N] -= 1
    _unplace(ts, e)
    _process_due(ts)


@jit(_nrt=False)
def _other(ts, e):
    """The first element other than e (-1: none)."""
    f = first(ts)
    return _next(ts, f) if f == e else f


@jit(_nrt=False)
def leads_with(ts, e, probe, ab, t0, tie):
    """Whether e (present) would come first now with this trajectory; nothing changes."""
    F, I, P, B, BO, H, meta, fm = ts
    set_trajectory(ts, probe, ab, t0, tie, I[e, _KORD])
    other = _other(ts, e)
    return other < 0 or _cmp_at(ts, probe, other, fm[_NOW]) < 0


@jit(_nrt=False)
def lead_or_update(ts, e, probe, ab, t0, tie, in_place):
    """:func:`leads_with`, then :func:`update` if it is False, with the envelope built once: the
    probe's trajectory and envelope move to the element."""
    F, I, P, B, BO, H, meta, fm = ts
    set_trajectory(ts, probe, ab, t0, tie, I[e, _KORD])
    other = _other(ts, e)
    if other < 0:
        return True
    if _cmp_at(ts, probe, other, fm[_NOW]) < 0:
        return True
    F[e, _T0] = F[probe, _T0]
    F[e, _TIE] = F[probe, _TIE]
    F[e, _CT] = np.nan
    I[e, _NP] = I[probe, _NP]
    I[e, _NL] = I[probe, _NL]
    for c in range(5):
        for k in range(max(I[e, _NL], I[e, _NP])):
            P[e, c, k] = P[probe, c, k]
    _reposition(ts, e, in_place)
    return False


@jit(_nrt=False)
def advance(ts, t):
    """Move the current time to t (>= now), processing the swap events due; return their number."""
    F, I, P, B, BO, H, meta, fm = ts
    before = meta[_SWAPS]
    process(ts, t)
    fm[_NOW] = t
    return meta[_SWAPS] - before


@jit(_nrt=False)
def priority(ts, e, t):
    """p(t) of element e (t >= its reference time)."""
    F, I, P, B, BO, H, meta, fm = ts
    a, s = state(F, I, P, e, t, fm[_TAU], fm[_KIN] != 0.0)
    return a + s


@jit(_nrt=False)
def next_event_time(ts):
    """Time of the next pending swap event (``inf``: none); drops stale entries on top."""
    F, I, P, B, BO, H, meta, fm = ts
    while meta[_HS] > 0 and H[0, 2] != I[int(H[0, 3]), _TOKEN]:
        _hpop(H, meta)
    return H[0, 0] if meta[_HS] > 0 else _INF


@jit(_nrt=False)
def order(ts, out):
    """The elements in order into ``out``; return their number."""
    F, I, P, B, BO, H, meta, fm = ts
    m = 0
    for j in range(meta[_NB]):
        b = BO[_ORDER, j]
        for i in range(BO[_LEN, b]):
            out[m] = B[b, i]
            m += 1
    return m


# ---- reads for the schedulers' core -------------------------------------------------------------
@jit(_nrt=False)
def size(ts):
    """Number of elements."""
    return ts.meta[_N]


@jit(_nrt=False)
def swaps(ts):
    """Swap events processed since the state was made."""
    return ts.meta[_SWAPS]


@jit(_nrt=False)
def contains(ts, e):
    """Whether element e is in the order."""
    return ts.I[e, _BLK] >= 0


@jit(_nrt=False)
def first_unflagged(ts, flagged):
    """The first element in order whose ``flagged[e]`` is False (-1: none)."""
    F, I, P, B, BO, H, meta, fm = ts
    for j in range(meta[_NB]):
        b = BO[_ORDER, j]
        for i in range(BO[_LEN, b]):
            e = B[b, i]
            if not flagged[e]:
                return e
    return -1


@jit(_nrt=False)
def compare(ts, p, q, t):
    """:func:`cmp` of elements p and q at time t (-1: p first, 1: q first, 0: the same element); their
    trajectories need only be set (:func:`set_trajectory`), not placed in the order."""
    return _cmp_at(ts, p, q, t)


@jit(_nrt=False)
def pair_fail_time(ts, x, y):
    """:func:`fail_time` of x before y from now: the earliest time >= now after which x must no longer
    precede y (``inf``: never); trajectories set, not necessarily placed."""
    return fail_time(ts.F, ts.I, ts.P, ts.fm[_TAU], ts.fm[_KIN] != 0.0, x, y, ts.fm[_NOW], np.bool_(False))
