r"""The live tree: a kinetic sorted structure for priorities that move predictably with time.

Every element carries a *trajectory*, a maximum of functions affine in :math:`u = e^{-t/\tau}`
(one :math:`\tau` shared by all elements):

.. math:: p(t) = \max_k \bigl(a_k + b_k\, e^{-(t - t_0)/\tau}\bigr),

a convex piecewise-linear function of :math:`u`. SDRF's priorities have this form: with Eq. 6 every
commitment is :math:`c_{ir}(t) = \bar o_{ir} + (c_{ir}(t_0) - \bar o_{ir})\,e^{-(t-t_0)/\tau}` while the
user's allocation does not change, and both priority readings (dominant share plus dominant
commitment, or :math:`\max_r (o_{ir} + c_{ir})`) are a maximum over resources of such terms. With
``tau=None`` every trajectory is constant (:math:`u \equiv 1`): DRF, TSF.

The structure keeps the elements in the order of the key

.. math:: \bigl(p(t),\ -\beta(t),\ \mathrm{tie},\ \mathrm{key}\bigr), \qquad
          \beta(t) = b_{k^*} e^{-(t-t_0)/\tau},

where :math:`k^*` is the line active just after *t*: equal priorities are ordered by which one will be
smaller *just after* t (the one decreasing faster first, :math:`dp/dt = -\beta/\tau`), then by the
element's *tie* value (a float given with its trajectory, smaller first, default 0.0), then by its key
(which must therefore be orderable, e.g. an int). This "right-limit" order is a total order,
deterministic, and it is the order that holds on an interval :math:`[t, t+\epsilon)`. The task
schedulers pass as tie the submission time of the user's oldest pending task, so that among equal
priorities the user who has waited longest comes first, then the lowest index
(:mod:`fairalloc.scheduling`; ``ties="index"`` passes 0.0 for everybody, leaving the key alone).

Like the paper's structure (SDRF Section 6.3) it keeps, for every pair of neighbours, the time at
which they will swap (a *certificate*), in an event queue; :meth:`LiveTree.advance` pops only the
events due, swaps those neighbours and computes the certificates of the new neighbours. With no event
due an advance costs O(1); a query of the minimum is O(1).

Implementation notes
--------------------
* Order: a list of blocks (each a Python list of at most ``2 * load`` elements; the design of
  ``sortedcontainers``). Locating an element is a C-level scan of its block; inserting costs
  O(log n) priority evaluations plus a block insert. Events: a binary heap with lazy invalidation
  (each element owns the certificate of the pair it starts, stamped with a token).
* Crossing times are exact: on a stretch where both envelopes are single lines, the difference of two
  trajectories is :math:`A + Bv` in :math:`v = e^{-(t-s)/\tau}` measured from the start *s* of the
  stretch, so the root is :math:`v^* = -A/B` and :math:`t^* = s - \tau\ln v^*`.
* Numerics for large :math:`t/\tau`: no factor :math:`e^{+t/\tau}` is ever formed. Every element keeps
  its own reference time :math:`t_0 \le` now and every coefficient is rescaled by
  :math:`e^{-(s - t_0)/\tau} \le 1` before use, so terms can only underflow to 0 (their true size
  relative to the intercepts) and never overflow, for any horizon.
* Floating point: two priorities are compared through their difference
  :math:`(a_p - a_q) + (\beta_p - \beta_q)`, so a decaying term keeps its sign after it has become
  negligible against the intercepts. Two elements that approach each other and would cross within
  the time resolution at *t* (the computed crossing time rounds to *t*) count as equal, so the
  trend decides; the certificates use the same rule, and after a swap the new pair trusts the
  direction of the crossing rather than the sign of rounding noise, so no crossing is processed twice.
  Priorities that differ by rounding only (about 1e-15 relative) may therefore appear in either
  order.

References
----------
.. [1] H. Sadok, M. Campista, L. Costa, "O Passado Também Importa: Um Mecanismo de Alocação Justa de
   Múltiplos Tipos de Recursos ao Longo do Tempo", SBRC 2018, Section 6.3 (the live tree).
.. [2] J. Basch, L. Guibas, J. Hershberger, "Data structures for mobile data", J. Algorithms 31(1),
   1999 (kinetic data structures).

Examples
--------
Two elements: ``"a"`` constant at 0.5, ``"b"`` decaying from 1.0 towards 0 with tau = 1. They swap
when :math:`e^{-t} = 0.5`, i.e. at :math:`t = \ln 2`:

>>> tree = LiveTree(tau=1.0)
>>> tree.insert(0, [0.5])
>>> tree.insert(1, [0.0], [1.0])
>>> list(tree), round(tree.next_event_time, 6)
([0, 1], 0.693147)
>>> tree.advance(1.0)
1
>>> list(tree), tree.min(), tree.swaps
([1, 0], 1, 1)
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_right
from typing import Any, Hashable, Iterator, Sequence

__all__ = ["LiveTree"]

_INF = math.inf
#: Relative agreement of two slope terms (same intercept) below which two lines are one function
#: written from different reference times (their values differ by rounding only).
_SAME = 1e-12


def _cmp(ap: float, sp: float, kp: Any, aq: float, sq: float, kq: Any, s: float,
         tau: float | None) -> int:
    """Order of p and q at time s (-1: p first, 1: q first, 0: same rank); p(s) = ap + sp.

    ``kp``, ``kq`` are the elements' ranks ``(tie, key)`` (see the module docstring).

    The priorities are compared through their difference ``d = (ap - aq) + (sp - sq)``, not as two
    rounded sums, so the sign of a decaying term still counts after it has become negligible
    against the intercepts. When the two approach each other and would cross within the time
    resolution at s (``s - tau * log(v*)`` rounds to s), they count as equal: the trend decides, as it
    does for the certificates. Then the larger slope term (decreasing faster) first, then the rank.
    Two lines with the same intercept whose slope terms agree to ``_SAME`` (relative) are the same
    function (one tau: equal at one time, equal at all times), written from different reference
    times; they are equal, and the rank decides.
    """
    ds = sp - sq
    if ap == aq and abs(ds) <= _SAME * max(abs(sp), abs(sq)):
        return -1 if kp < kq else (1 if kq < kp else 0)
    d = (ap - aq) + ds
    if d != 0.0 and ds != 0.0 and tau is not None and (d > 0.0) == (ds > 0.0):
        vstar = (aq - ap) / ds
        if vstar > 0.0 and s - tau * math.log(vstar) <= s:
            d = 0.0
    if d != 0.0:
        return -1 if d < 0.0 else 1
    if ds != 0.0:
        return -1 if ds > 0.0 else 1
    return -1 if kp < kq else (1 if kq < kp else 0)


class _Elem:
    """One element: its key, rank (tie, key), trajectory (lines, reference time), envelope, position,
    certificate."""

    __slots__ = ("key", "rank", "a", "b", "t0", "starts", "lines", "blk", "token", "ct", "ca", "cs", "cert")

    def __init__(self, key: Hashable) -> None:
        self.key = key
        self.rank = (0.0, key)
        self.blk: _Block | None = None
        self.token = 0
        self.cert = math.inf        # time of the certificate of (self, next), inf: none
        self.ct = math.nan          # time of the cached (intercept, slope term)
        self.ca = 0.0
        self.cs = 0.0


class _Block:
    __slots__ = ("items", "idx")

    def __init__(self, items: list, idx: int) -> None:
        self.items = items
        self.idx = idx


def _as_floats(name: str, values: Any, length: int | None = None) -> tuple[float, ...]:
    if isinstance(values, (int, float)):
        values = [values]
    try:
        out = tuple(float(v) for v in values)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name}={values!r} must be a sequence of numbers: {exc}") from None
    if not out:
        raise ValueError(f"{name} must have at least one entry")
    if length is not None and len(out) != length:
        if len(out) == 1:
            return out * length
        raise ValueError(f"{name} has {len(out)} entries, expected {length} (one per intercept)")
    for k, v in enumerate(out):
        if not math.isfinite(v):
            raise ValueError(f"{name}[{k}]={v!r} must be finite")
    return out


def _line_key(ab: tuple[float, float]) -> tuple[float, float]:
    """Lines by value at v = 1, largest first; ties: smaller slope first (larger for v < 1)."""
    return (-(ab[0] + ab[1]), ab[1])


def _fail_time(tau: float | None, x: _Elem, y: _Elem, s: float, after_swap: bool = False) -> float:
    """Earliest time >= s after which x must no longer precede y (``inf``: never).

    ``after_swap``: x and y have just been swapped at s because they cross there; trust the
    direction of the crossing, not the sign of the rounding noise in their difference at s.
    """
    sx, lx = x.starts, x.lines
    sy, ly = y.starts, y.lines
    ix = 0 if len(sx) == 1 else bisect_right(sx, s) - 1
    iy = 0 if len(sy) == 1 else bisect_right(sy, s) - 1
    first = True
    while True:
        nx = sx[ix + 1] if ix + 1 < len(sx) else _INF
        ny = sy[iy + 1] if iy + 1 < len(sy) else _INF
        end = nx if nx < ny else ny
        # (intercept, slope term at s) of each piece: _state's cached values when they are of time s
        # (the same piece and the same product; a zero slope term's sign does not matter below)
        if x.ct == s:
            ax, bxs = x.ca, x.cs
        else:
            ax, bx = lx[ix]
            bxs = bx if tau is None else (bx * math.exp(-(s - x.t0) / tau) if bx else 0.0)
        if y.ct == s:
            ay, bys = y.ca, y.cs
        else:
            ay, by = ly[iy]
            bys = by if tau is None else (by * math.exp(-(s - y.t0) / tau) if by else 0.0)
        slope = bys - bxs                   # g(v) = (ay - ax) + slope * v, v = 1 at s
        if ay == ax and abs(slope) <= _SAME * max(abs(bxs), abs(bys)):
            if x.rank > y.rank:             # the same function on this piece (see _cmp): by rank
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
            g0 = 0.0                        # the crossing just processed: equal, see docstring
        elif g0 != 0.0 and slope != 0.0 and tau is not None and (g0 > 0.0) == (slope > 0.0):
            vstar = (ax - ay) / slope       # approaching: equal if they cross within rounding
            if vstar > 0.0 and s - tau * math.log(vstar) <= s:
                g0 = 0.0
        first = False
        if g0 < 0.0:
            return s
        if g0 == 0.0:
            if slope > 0 or (slope == 0 and x.rank > y.rank):
                return s
        elif slope > 0 and tau is not None:
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


class _Kinetic:
    """Shared part of :class:`LiveTree` and :class:`ResortQueue`: trajectories and their evaluation."""

    def __init__(self, tau: float | None = None, *, time: float = 0.0) -> None:
        if tau is not None:
            tau = float(tau)
            if not (tau > 0):
                raise ValueError(f"tau={tau!r} must be > 0 (or None for constant priorities)")
            if math.isinf(tau):
                tau = None
        time = float(time)
        if not math.isfinite(time):
            raise ValueError(f"time={time!r} must be finite")
        self._tau = tau
        self._now = time
        self._elems: dict[Hashable, _Elem] = {}

    # --- public read-only state ----------------------------------------------------------------
    @property
    def tau(self) -> float | None:
        """The common time constant (None: constant priorities)."""
        return self._tau

    @property
    def now(self) -> float:
        """Current time: the order reflects the priorities at this time."""
        return self._now

    def __len__(self) -> int:
        return len(self._elems)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._elems

    def priority(self, key: Hashable, t: float | None = None) -> float:
        r""":math:`p(t)` of element ``key`` (default: at :attr:`now`; ``t`` must be >= its reference time)."""
        e = self._elems[key]
        t = self._now if t is None else float(t)
        if t < e.t0:
            raise ValueError(f"t={t!r} is before the trajectory's reference time {e.t0!r}")
        a, s = self._state(e, t)
        return a + s

    # --- trajectories ------------------------------------------------------------------------------
    def _set_trajectory(self, e: _Elem, intercepts: Any, slopes: Any, t0: float | None,
                        tie: Any = 0.0) -> None:
        a = _as_floats("intercepts", intercepts)
        b = _as_floats("slopes", 0.0 if slopes is None else slopes, len(a))
        t0 = self._now if t0 is None else float(t0)
        if not math.isfinite(t0) or t0 > self._now:
            raise ValueError(f"t0={t0!r} must be finite and <= now ({self._now!r})")
        try:
            tie = float(tie)
        except (TypeError, ValueError):
            raise ValueError(f"tie={tie!r} must be a number") from None
        if math.isnan(tie):
            raise ValueError("tie=nan must be a number (not NaN)")
        e.a, e.b, e.t0 = a, b, t0
        e.rank = (tie, e.key)
        e.ct = math.nan
        self._envelope(e)

    def _set_trusted(self, e: _Elem, a: Sequence[float], b: Sequence[float], t0: float,
                     tie: float = 0.0) -> None:
        """:meth:`_set_trajectory` without checks (see :meth:`LiveTree.update_trusted`)."""
        e.a, e.b, e.t0 = a, b, t0
        e.rank = (tie, e.key)
        e.ct = math.nan
        self._envelope(e)

    def _envelope(self, e: _Elem) -> None:
        """Upper envelope of the lines for t >= t0, as pieces (start time, intercept, slope)."""
        tau = self._tau
        a, b = e.a, e.b
        if len(a) == 1:
            lines = [(a[0], b[0])]
        elif len(a) == 2:                      # sorted(set(...)) of two lines, without the calls
            a1, b1, a2, b2 = a[0], b[0], a[1], b[1]
            if a1 == a2 and b1 == b2:
                lines = [(a1, b1)]
            else:                              # distinct lines never have equal keys; _line_key inlined
                k1, k2 = -(a1 + b1), -(a2 + b2)
                lines = [(a1, b1), (a2, b2)] if k1 < k2 or (k1 == k2 and b1 < b2) else [(a2, b2), (a1, b1)]
        else:
            lines = sorted(set(zip(a, b)), key=_line_key)
        if tau is None:
            ca, cb = lines[0]
            e.starts, e.lines = [e.t0], [(ca + cb, 0.0)]
            return
        if len(lines) == 1:
            e.starts, e.lines = [e.t0], lines
            return
        if len(lines) == 2:                    # the general loop below, unrolled (two resources)
            (a1, b1), (a2, b2) = lines
            if b2 < b1 and a2 > a1:
                vk = (a2 - a1) / (b1 - b2)
                st = e.t0 - tau * math.log(vk) if vk < 1.0 else e.t0
                if st <= e.t0:
                    e.starts, e.lines = [e.t0], [(a2, b2)]
                else:
                    e.starts, e.lines = [e.t0, st], lines
            else:
                e.starts, e.lines = [e.t0], [(a1, b1)]
            return
        ca, cb = lines[0]                      # max at v = 1; ties: smaller slope wins for v < 1
        v = 1.0
        starts, out = [e.t0], [(ca, cb)]
        while True:
            best_v, best = 0.0, None
            for ak, bk in lines:
                if bk < cb and ak > ca:        # overtakes the current line as v decreases
                    vk = (ak - ca) / (cb - bk)
                    if vk > best_v or (vk == best_v and best is not None and bk < best[1]):
                        best_v, best = vk, (ak, bk)
            if best is None:
                break
            v_next = min(best_v, v)
            ca, cb = best
            if v_next >= v:                    # rounding: the new line already leads at the last start
                out[-1] = best
            else:
                starts.append(e.t0 - tau * math.log(v_next))
                out.append(best)
                if starts[-1] <= starts[-2]:
                    starts.pop()
                    out.pop()
                    out[-1] = best
            v = v_next
        e.starts, e.lines = starts, out

    def _state(self, e: _Elem, t: float) -> tuple[float, float]:
        """(intercept a, slope term beta(t)) of the line active just after t (cached); p(t) = a + beta."""
        if e.ct == t:
            return e.ca, e.cs
        starts = e.starts
        j = 0 if len(starts) == 1 else bisect_right(starts, t) - 1
        a, b = e.lines[j]
        if self._tau is None or b == 0.0:
            s = b
        else:
            s = b * math.exp(-(t - e.t0) / self._tau)
        e.ct, e.ca, e.cs = t, a, s
        return a, s

    def lead_or_update(self, key: Hashable, intercepts: Sequence[float], slopes: Sequence[float],
                       t0: float, tie: float = 0.0) -> bool:
        """True if ``key`` would come first now with this trajectory (nothing changes, as
        :meth:`leads_with`); otherwise give it this trajectory (as :meth:`update_trusted`), return False.

        The scheduler's step for a user whose task just ended (``TaskScheduler._lead``); a structure
        may do it with less work than the two calls (the live tree builds the envelope once).
        """
        if self.leads_with(key, intercepts, slopes, t0, tie):
            return True
        self.update_trusted(key, intercepts, slopes, t0, tie)
        return False

    def _check_time(self, t: float) -> float:
        t = float(t)
        if not math.isfinite(t):
            raise ValueError(f"t={t!r} must be finite")
        if t < self._now:
            raise ValueError(f"cannot advance to t={t!r}: before the current time {self._now!r}")
        return t


class LiveTree(_Kinetic):
    r"""Kinetic sorted structure of elements with priorities :math:`\max_k(a_k + b_k e^{-(t-t_0)/\tau})`.

    Parameters
    ----------
    tau : float or None
        The time constant shared by all trajectories (SDRF: :math:`\tau = -\Delta t/\ln\delta`). None
        (or ``inf``) makes every priority constant: the structure is then a plain ordered set.
    time : float, default 0.0
        The initial current time.
    load : int, default 64
        Block size of the order (performance only).

    Notes
    -----
    Operations (n elements, K lines per trajectory, d swap events due):

    ========================  ===========================================
    ``insert``/``update``      O(log n) priority evaluations + O(K) certificates
    ``remove``                 O(K) certificates
    ``min``                    O(1)
    ``advance(t)``             O(1) if no event is due, else O((d + 1) K log n)
    iteration                  O(n)
    ========================  ===========================================

    Ties are deterministic (module docstring): by priority, then by which element is smaller just
    after now, then by the ``tie`` value given with the trajectory (smaller first; default 0.0 for
    every element), then by key. :attr:`swaps` counts the swap events processed (the figure of SDRF
    Fig. 6); mutations are not swaps.

    Examples
    --------
    >>> tree = LiveTree(tau=None)               # constant priorities: an ordered set with ties by key
    >>> for k, p in [(3, 0.2), (1, 0.5), (2, 0.2)]:
    ...     tree.insert(k, [p])
    >>> list(tree), tree.min()
    ([2, 3, 1], 2)
    >>> tree.update(2, [0.9]); list(tree)
    [3, 1, 2]
    >>> tree.update(2, [0.2], tie=-1.0); list(tree)  # equal priorities: smaller tie first, then key
    [2, 3, 1]
    """

    #: Keep an updated element in place when it still lies between its neighbours (False: always
    #: remove and re-insert, as before; the scheduler benchmark measures both).
    in_place_updates = True

    def __init__(self, tau: float | None = None, *, time: float = 0.0, load: int = 64) -> None:
        super().__init__(tau, time=time)
        self._load = max(4, int(load))
        self._blocks: list[_Block] = []
        self._heap: list[tuple[float, int, int, _Elem]] = []
        self._seq = 0
        self._swaps = 0
        self._certs = 0

    # --- read-only -----------------------------------------------------------------------------
    @property
    def swaps(self) -> int:
        """Number of swap events processed since construction.

        A swap event is two neighbours exchanging places when the tree is advanced past their crossing
        time (SDRF Section 6.3, "eventos de troca de posição", the count of its Fig. 6); inserting,
        updating or removing an element is not one. In SDRF runs most events at small tau come right
        after a task ends: its user's level starts above its new value by the excess held just before
        (Eq. 6 keeps commitments continuous) and crosses the users in between within tau, so the count
        per task does not fall as tau -> 0 (issue 16, ``benchmarks/bench_sdrf_gaps.py events`` and
        ``extremes``: 2.76 per task at tau = 9.5 s and 2.94 at 9.5 us with 63 users; 17.8 at 9.5 s and
        19.3 at 1 ms with 627 users and 10^6 tasks).
        """
        return self._swaps

    @property
    def certificates(self) -> int:
        """Number of certificates (pair swap times) computed since construction."""
        return self._certs

    @property
    def next_event_time(self) -> float:
        """Time of the next pending swap event (``inf`` if none)."""
        heap = self._heap
        while heap and heap[0][2] != heap[0][3].token:
            heapq.heappop(heap)
        return heap[0][0] if heap else _INF

    @property
    def next_min_change(self) -> float:
        """When the first element will next be overtaken (``inf``: never, or at most one element).

        This is the certificate of the first pair; other swaps do not change :meth:`min`. A scheduler
        blocked on the first element needs to look again only then (or at its next mutation).
        """
        return self._blocks[0].items[0].cert if self._blocks else _INF

    def __iter__(self) -> Iterator[Hashable]:
        """Keys in order at :attr:`now`."""
        for b in self._blocks:
            for e in b.items:
                yield e.key

    def min(self) -> Hashable:
        """Key of the first element (lowest priority now). Raises ``KeyError`` when empty."""
        if not self._blocks:
            raise KeyError("min() of an empty LiveTree")
        return self._blocks[0].items[0].key

    def first(self, n: int) -> list[Hashable]:
        """Keys of the first ``n`` elements in order."""
        out: list[Hashable] = []
        for b in self._blocks:
            for e in b.items:
                if len(out) >= n:
                    return out
                out.append(e.key)
        return out

    # --- mutations ------------------------------------------------------------------------------
    def insert(self, key: Hashable, intercepts: Any, slopes: Any = None, *, t0: float | None = None,
               tie: float = 0.0) -> None:
        r"""Add element ``key`` with priority :math:`\max_k(a_k + b_k e^{-(t - t_0)/\tau})`.

        ``intercepts`` :math:`a` and ``slopes`` :math:`b` are sequences of equal length (a scalar slope
        applies to every line; default 0); ``t0`` (default :attr:`now`) must not be in the future;
        ``tie`` (a number, smaller first) orders equal priorities before the key.
        """
        if key in self._elems:
            raise KeyError(f"key {key!r} is already in the tree; use update()")
        e = _Elem(key)
        self._set_trajectory(e, intercepts, slopes, t0, tie)
        self._elems[key] = e
        self._place(e)
        self._process(self._now)

    def update(self, key: Hashable, intercepts: Any, slopes: Any = None, *, t0: float | None = None,
               tie: float = 0.0) -> None:
        """Replace the trajectory (and tie value) of ``key`` (same arguments as :meth:`insert`).

        When the element still lies between its neighbours it keeps its place (two comparisons and
        two certificates instead of a removal and a binary-search insertion).
        """
        e = self._elems[key]
        self._set_trajectory(e, intercepts, slopes, t0, tie)
        self._reposition(e)

    def _reposition(self, e: _Elem) -> None:
        """Restore the order after e's trajectory changed (in place when it still fits there)."""
        b = e.blk
        items = b.items
        i = items.index(e)
        p = items[i - 1] if i > 0 else (self._blocks[b.idx - 1].items[-1] if b.idx > 0 else None)
        if i + 1 < len(items):
            q = items[i + 1]
        else:
            q = self._blocks[b.idx + 1].items[0] if b.idx + 1 < len(self._blocks) else None
        t, tau = self._now, self._tau
        # _precedes(p, e) and _precedes(e, q), inlined (the hot path of every scheduler decision):
        # the same _state values (cached) and the same _cmp
        fits = self.in_place_updates
        if fits and (p is not None or q is not None):
            ea, es = (e.ca, e.cs) if e.ct == t else self._state(e, t)
            if p is not None:
                pa, ps = (p.ca, p.cs) if p.ct == t else self._state(p, t)
                fits = _cmp(pa, ps, p.rank, ea, es, e.rank, t, tau) < 0
            if fits and q is not None:
                qa, qs = (q.ca, q.cs) if q.ct == t else self._state(q, t)
                fits = _cmp(ea, es, e.rank, qa, qs, q.rank, t, tau) < 0
        if fits:
            if tau is None:                     # constant priorities in order: no certificate to renew
                e.token += 1
            else:
                if p is not None:
                    p.token += 1
                    self._cert_to(p, e)
                e.token += 1
                self._cert_to(e, q)
        else:
            self._unplace(e)
            self._place(e)
        heap = self._heap
        if heap and heap[0][0] <= t:            # _process(now) has events due (else it does nothing)
            self._process(t)

    def insert_trusted(self, key: Hashable, intercepts: Sequence[float], slopes: Sequence[float],
                       t0: float, tie: float = 0.0) -> None:
        """:meth:`insert` without argument checks, for callers whose trajectories are valid by
        construction (the schedulers): ``intercepts`` and ``slopes`` sequences of finite floats of equal
        length, ``t0 <= now``, ``tie`` a float (not NaN), ``key`` absent."""
        e = _Elem(key)
        self._set_trusted(e, intercepts, slopes, t0, tie)
        self._elems[key] = e
        self._place(e)
        if self._heap and self._heap[0][0] <= self._now:   # else _process does nothing
            self._process(self._now)

    def update_trusted(self, key: Hashable, intercepts: Sequence[float], slopes: Sequence[float],
                       t0: float, tie: float = 0.0) -> None:
        """:meth:`update` without argument checks (see :meth:`insert_trusted`)."""
        e = self._elems[key]
        self._set_trusted(e, intercepts, slopes, t0, tie)
        self._reposition(e)

    def leads_with(self, key: Hashable, intercepts: Sequence[float], slopes: Sequence[float],
                   t0: float, tie: float = 0.0) -> bool:
        """Whether ``key`` (present) would come first now if its trajectory (and tie) were this one.

        Nothing changes: a caller about to serve the first element can serve ``key`` without moving
        it twice (a scheduler's user whose task just ended). Arguments as :meth:`update_trusted`.
        """
        probe = _Elem(key)
        self._set_trusted(probe, intercepts, slopes, t0, tie)
        first = self._blocks[0].items[0]
        other = self._next(first) if first is self._elems[key] else first
        return other is None or self._precedes(probe, other)

    def lead_or_update(self, key: Hashable, intercepts: Sequence[float], slopes: Sequence[float],
                       t0: float, tie: float = 0.0) -> bool:
        """:meth:`leads_with`, then :meth:`update_trusted` if it is False, with the envelope built once:
        the probe's trajectory and envelope (the same function of the same arguments) move to the element."""
        probe = _Elem(key)
        self._set_trusted(probe, intercepts, slopes, t0, tie)
        e = self._elems[key]
        first = self._blocks[0].items[0]
        other = self._next(first) if first is e else first
        if other is None:
            return True
        t = self._now
        pa, ps = self._state(probe, t)
        oa, os_ = (other.ca, other.cs) if other.ct == t else self._state(other, t)
        if _cmp(pa, ps, probe.rank, oa, os_, other.rank, t, self._tau) < 0:
            return True
        e.a, e.b, e.t0, e.rank = probe.a, probe.b, probe.t0, probe.rank
        e.starts, e.lines = probe.starts, probe.lines
        e.ct = math.nan
        self._reposition(e)
        return False

    def remove(self, key: Hashable) -> None:
        """Remove ``key`` (``KeyError`` if absent)."""
        e = self._elems.pop(key)
        self._unplace(e)
        if self._heap and self._heap[0][0] <= self._now:   # else _process does nothing
            self._process(self._now)

    def discard(self, key: Hashable) -> None:
        """Remove ``key`` if present."""
        if key in self._elems:
            self.remove(key)

    def advance(self, t: float) -> int:
        """Move the current time to ``t`` (>= now), processing the swap events due; return their number."""
        t = self._check_time(t)
        before = self._swaps
        self._process(t)
        self._now = t
        return self._swaps - before

    # --- order internals ------------------------------------------------------------------------
    def _precedes(self, p: _Elem, q: _Elem) -> bool:
        t = self._now
        if p.ct == t:                           # _state's cache, inlined (the hot path of _place)
            ap, sp = p.ca, p.cs
        else:
            ap, sp = self._state(p, t)
        if q.ct == t:
            aq, sq = q.ca, q.cs
        else:
            aq, sq = self._state(q, t)
        return _cmp(ap, sp, p.rank, aq, sq, q.rank, t, self._tau) < 0

    def _pos(self, e: _Elem) -> tuple[_Block, int]:
        b = e.blk
        return b, b.items.index(e)

    def _next(self, e: _Elem) -> _Elem | None:
        b, i = self._pos(e)
        if i + 1 < len(b.items):
            return b.items[i + 1]
        j = b.idx + 1
        return self._blocks[j].items[0] if j < len(self._blocks) else None

    def _prev(self, e: _Elem) -> _Elem | None:
        b, i = self._pos(e)
        if i > 0:
            return b.items[i - 1]
        return self._blocks[b.idx - 1].items[-1] if b.idx > 0 else None

    def _renumber(self, start: int) -> None:
        blocks = self._blocks
        for j in range(start, len(blocks)):
            blocks[j].idx = j

    def _place(self, e: _Elem) -> None:
        """Insert e at its position at now and refresh the certificates around it."""
        blocks = self._blocks
        if not blocks:
            blk = _Block([e], 0)
            blocks.append(blk)
            e.blk = blk
            self._cert(e)
            return
        # binary searches by _precedes(x, e), with e's state at now computed once and _cmp called
        # directly (the hot path of every update that moves an element)
        t, tau, state = self._now, self._tau, self._state
        ea, es = state(e, t)
        ek = e.rank
        lo, hi = 0, len(blocks)
        while lo < hi:
            mid = (lo + hi) // 2
            x = blocks[mid].items[0]
            xa, xs = (x.ca, x.cs) if x.ct == t else state(x, t)
            if _cmp(xa, xs, x.rank, ea, es, ek, t, tau) < 0:
                lo = mid + 1
            else:
                hi = mid
        blk = blocks[max(lo - 1, 0)]
        items = blk.items
        lo, hi = 0, len(items)
        while lo < hi:
            mid = (lo + hi) // 2
            x = items[mid]
            xa, xs = (x.ca, x.cs) if x.ct == t else state(x, t)
            if _cmp(xa, xs, x.rank, ea, es, ek, t, tau) < 0:
                lo = mid + 1
            else:
                hi = mid
        items.insert(lo, e)
        e.blk = blk
        # e's neighbours in the order, read here where its index is known (a split below moves
        # elements between blocks but not in the order)
        p = items[lo - 1] if lo > 0 else (blocks[blk.idx - 1].items[-1] if blk.idx > 0 else None)
        if lo + 1 < len(items):
            q = items[lo + 1]
        else:
            q = blocks[blk.idx + 1].items[0] if blk.idx + 1 < len(blocks) else None
        if len(items) > 2 * self._load:
            half = len(items) // 2
            nb = _Block(items[half:], blk.idx + 1)
            del items[half:]
            for x in nb.items:
                x.blk = nb
            blocks.insert(blk.idx + 1, nb)
            self._renumber(blk.idx + 1)
        if p is not None:
            self._cert_next(p, e)
        self._cert_next(e, q)

    def _unplace(self, e: _Elem) -> None:
        b = e.blk
        items = b.items
        i = items.index(e)
        blocks = self._blocks
        p = items[i - 1] if i > 0 else (blocks[b.idx - 1].items[-1] if b.idx > 0 else None)
        if p is not None:                       # p's next once e is gone
            if i + 1 < len(items):
                q = items[i + 1]
            else:
                q = blocks[b.idx + 1].items[0] if b.idx + 1 < len(blocks) else None
        del items[i]
        e.blk = None
        e.token += 1                            # its own certificate is void
        if not items:
            del blocks[b.idx]
            self._renumber(b.idx)
        if p is not None:
            self._cert_next(p, q)

    def _swap(self, x: _Elem, y: _Elem) -> None:
        """Swap neighbours x, y (y right after x)."""
        bx, i = self._pos(x)
        if i + 1 < len(bx.items):
            bx.items[i], bx.items[i + 1] = y, x
        else:
            by = self._blocks[bx.idx + 1]
            bx.items[i], by.items[0] = y, x
            x.blk, y.blk = by, bx

    # --- certificates and events ----------------------------------------------------------------
    def _cert(self, x: _Elem, after_swap: bool = False) -> None:
        """(Re)compute the certificate of the pair (x, next(x)) from now and queue it."""
        x.token += 1
        if self._tau is None:                   # constant priorities in order never swap
            x.cert = _INF
            return
        y = self._next(x)
        self._cert_to(x, y, after_swap)

    def _cert_next(self, x: _Elem, y: _Elem | None) -> None:
        """:meth:`_cert` with y = next(x) known (no search for x's position)."""
        x.token += 1
        if self._tau is None:
            x.cert = _INF
            return
        self._cert_to(x, y)

    def _cert_to(self, x: _Elem, y: _Elem | None, after_swap: bool = False) -> None:
        """:meth:`_cert` with y = next(x) known and x's token already bumped."""
        if y is None:
            x.cert = _INF
            return
        self._certs += 1
        t = _fail_time(self._tau, x, y, self._now, after_swap)
        x.cert = t
        if t < _INF:
            self._seq += 1
            heapq.heappush(self._heap, (t, self._seq, x.token, x))
            if len(self._heap) > 8 * len(self._elems) + 64:
                self._heap = [ev for ev in self._heap if ev[2] == ev[3].token]
                heapq.heapify(self._heap)

    def _process(self, t: float) -> None:
        heap = self._heap
        guard_time, guard_count = None, 0
        while heap and heap[0][0] <= t:
            when, _, token, x = heapq.heappop(heap)
            if token != x.token:
                continue                        # stale certificate
            if when == guard_time:
                guard_count += 1
                if guard_count > len(self._elems) ** 2 + 64:
                    raise RuntimeError(f"LiveTree: swap events do not terminate at t={when!r}; "
                                       "this is a bug, please report it with the trajectories")
            else:
                guard_time, guard_count = when, 0
            if when > self._now:
                self._now = when
            y = self._next(x)
            p = self._prev(x)
            self._swap(x, y)
            self._swaps += 1
            if p is not None:
                self._cert(p)
            self._cert(y, after_swap=True)
            self._cert(x)
