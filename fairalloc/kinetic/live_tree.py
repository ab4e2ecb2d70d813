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
* One implementation: the state lives in arrays and every operation is a compiled function of
  :mod:`fairalloc.kinetic.tree_core` (numba; plain Python under ``NUMBA_DISABLE_JIT=1``, the
  readable reference); :class:`LiveTree` maps keys to element indices and calls them, and the
  schedulers' compiled core calls the same functions. The baselines (:class:`~fairalloc.kinetic.ResortQueue`,
  :class:`~fairalloc.kinetic.LazyHeap`) keep their trajectories in the same arrays and compare with
  the same functions.
* Order: a list of blocks (each of at most ``2 * load`` elements; the design of ``sortedcontainers``).
  Locating an element is a scan of its block; inserting costs O(log n) priority evaluations (a
  binary search over the blocks' first elements, then in the block) plus a block insert. Events: a
  binary heap ordered by (time, sequence number) with lazy invalidation (each element owns the
  certificate of the pair it starts, stamped with a token).
* Keys: an int key is its own order value; other keys (e.g. strings) are ranked among the keys
  present (recomputed when such a key is added), which orders them as the keys themselves.
* Crossing times are exact: on a stretch where both envelopes are single lines, the difference of two
  trajectories is :math:`A + Bv` in :math:`v = e^{-(t-s)/\tau}` measured from the start *s* of the
  stretch, so the root is :math:`v^* = -A/B` and :math:`t^* = s - \tau\ln v^*`.
* Numerics for large :math:`t/\tau`: no factor :math:`e^{+t/\tau}` is ever formed. Every element keeps
  its own reference time :math:`t_0 \le` now and every coefficient is rescaled by
  :math:`e^{-(s - t_0)/\tau} \le 1` before use, so terms can only underflow to 0 (their true size
  relative to the intercepts) and never overflow, for any horizon. Where two elements have the same
  intercept and both terms have underflowed (about 745 tau after their reference times; SDRF: two
  idle users, one with an old commitment), the terms are compared by their exact ratio
  :math:`(b_p/b_q)\,e^{(t_{0p} - t_{0q})/\tau}` in the log domain, which does not depend on *t*: a
  commitment decayed far below the smallest double still orders its user after a user at 0.
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

import math
from typing import Any, Hashable, Iterator, Sequence

import numpy as np

from . import tree_core as core

__all__ = ["LiveTree"]

_INF = math.inf
_INT64 = 2 ** 63


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


class _Kinetic:
    """Shared part of :class:`LiveTree` and the baselines: keys mapped to element indices, the
    trajectories in :mod:`~fairalloc.kinetic.tree_core`'s arrays, their evaluation."""

    def __init__(self, tau: float | None = None, *, time: float = 0.0, load: int = 64) -> None:
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
        self._load = max(4, int(load))
        cap = 16
        self._ts = core.new_state(tau, time, self._load, cap, 2)
        self._fm = self._ts.fm
        self._index: dict[Hashable, int] = {}          # key -> element index
        self._keys: list[Hashable] = [None] * cap      # element index -> key
        self._free = list(range(cap - 1, -1, -1))
        self._int_keys = True

    # --- public read-only state ----------------------------------------------------------------
    @property
    def tau(self) -> float | None:
        """The common time constant (None: constant priorities)."""
        return self._tau

    @property
    def now(self) -> float:
        """Current time: the order reflects the priorities at this time."""
        return float(self._fm[0])

    @property
    def _now(self) -> float:
        return float(self._fm[0])

    @_now.setter
    def _now(self, t: float) -> None:
        self._fm[0] = t

    def __len__(self) -> int:
        return len(self._index)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._index

    def priority(self, key: Hashable, t: float | None = None) -> float:
        r""":math:`p(t)` of element ``key`` (default: at :attr:`now`; ``t`` must be >= its reference time)."""
        e = self._index[key]
        t = self._now if t is None else float(t)
        t0 = float(self._ts[0][e, core._T0])
        if t < t0:
            raise ValueError(f"t={t!r} is before the trajectory's reference time {t0!r}")
        return float(core.priority(self._ts, e, t))

    def trajectory(self, key: Hashable) -> tuple[tuple[float, ...], tuple[float, ...], float, float]:
        """(intercepts, slopes, t0, tie) of ``key`` as given (the lines, not their envelope)."""
        e = self._index[key]
        F, I, P = self._ts[0], self._ts[1], self._ts[2]
        n = int(I[e, core._NL])
        return (tuple(P[e, core._RA, :n].tolist()), tuple(P[e, core._RB, :n].tolist()),
                float(F[e, core._T0]), float(F[e, core._TIE]))

    def envelope(self, key: Hashable) -> tuple[list[float], list[tuple[float, float]]]:
        """The upper envelope of ``key``'s lines: piece start times and (intercept, slope) per piece."""
        e = self._index[key]
        I, P = self._ts[1], self._ts[2]
        n = int(I[e, core._NP])
        return (P[e, core._PS, :n].tolist(),
                list(zip(P[e, core._PA, :n].tolist(), P[e, core._PB, :n].tolist())))

    # --- keys and trajectories ---------------------------------------------------------------------
    def _checked(self, intercepts: Any, slopes: Any, t0: float | None, tie: Any) -> tuple:
        a = _as_floats("intercepts", intercepts)
        b = _as_floats("slopes", 0.0 if slopes is None else slopes, len(a))
        now = self._now
        t0 = now if t0 is None else float(t0)
        if not math.isfinite(t0) or t0 > now:
            raise ValueError(f"t0={t0!r} must be finite and <= now ({now!r})")
        try:
            tie = float(tie)
        except (TypeError, ValueError):
            raise ValueError(f"tie={tie!r} must be a number") from None
        if math.isnan(tie):
            raise ValueError("tie=nan must be a number (not NaN)")
        return self._lines(a, b), t0, tie

    def _lines(self, a: Sequence[float], b: Sequence[float]) -> np.ndarray:
        ab = np.array((a, b), dtype=np.float64)
        if ab.shape[1] > self._ts[2].shape[2]:
            self._ts = core.grow_state(self._ts, len(self._keys), ab.shape[1])
            self._fm = self._ts.fm
        return ab

    def _add(self, key: Hashable) -> tuple[int, int]:
        """A new element index for ``key`` (absent) and the key's order value."""
        if not self._free:
            cap = len(self._keys)
            self._ts = core.grow_state(self._ts, 2 * cap, self._ts[2].shape[2])
            self._fm = self._ts.fm
            self._keys.extend([None] * cap)
            self._free = list(range(2 * cap - 1, cap - 1, -1))
        e = self._free.pop()
        if self._int_keys and isinstance(key, (int, np.integer)) and -_INT64 <= key < _INT64:
            kord = int(key)
        else:                                  # rank among the keys present (their own order)
            self._int_keys = False
            ranked = sorted(list(self._index) + [key])
            pos = {k: r for r, k in enumerate(ranked)}
            I = self._ts[1]
            for k, j in self._index.items():
                I[j, core._KORD] = pos[k]
            kord = pos[key]
        self._index[key] = e
        self._keys[e] = key
        return e, kord

    def _drop(self, key: Hashable) -> int:
        e = self._index.pop(key)
        self._keys[e] = None
        self._free.append(e)
        return e

    def _kord(self, e: int) -> int:
        return int(self._ts[1][e, core._KORD])

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
        super().__init__(tau, time=time, load=load)
        self._out = np.zeros(16, np.int64)
        self._iter_ver = -1                     # the order's version of _iter_keys
        self._iter_keys: list[Hashable] = []

    # --- read-only -----------------------------------------------------------------------------
    @property
    def swaps(self) -> int:
        """Number of swap events processed since construction.

        A swap event is two neighbours exchanging places when the tree is advanced past their crossing
        time (SDRF Section 6.3, "eventos de troca de posição", the count of its Fig. 6); inserting,
        updating or removing an element is not one.
        """
        return int(self._ts[6][core._SWAPS])

    @property
    def certificates(self) -> int:
        """Number of certificates (pair swap times) computed since construction."""
        return int(self._ts[6][core._CERTS])

    @property
    def next_event_time(self) -> float:
        """Time of the next pending swap event (``inf`` if none)."""
        return float(core.next_event_time(self._ts))

    @property
    def next_min_change(self) -> float:
        """The earliest time the first element can change without a mutation (``inf``: no swap is
        pending): the next swap event anywhere, :attr:`next_event_time`.

        The first element changes only when the first pair swaps, but the second element can
        change before that (a swap of the second pair), and the third before that, and so on: an
        element far back can pass every element ahead of it between two mutations, through events
        each of which needs the certificates that only the previous ones create. So no fixed set
        of certificates near the front bounds the change (the first pair's certificate alone misses
        such changes); the next event does. A caller blocked on the first element advances to this
        time, reads :meth:`min` and asks again.
        """
        return float(core.next_event_time(self._ts))

    def _order(self) -> np.ndarray:
        n = len(self._index)
        if self._out.shape[0] < n:
            self._out = np.zeros(2 * n, np.int64)
        m = core.order(self._ts, self._out)
        return self._out[:m]

    def __iter__(self) -> Iterator[Hashable]:
        """Keys in order at :attr:`now` (a copy kept while the order's version is unchanged: a
        scheduler that sets users aside reads the order again after each one)."""
        ver = int(self._ts[6][core._VER])
        if ver != self._iter_ver:
            keys = self._keys
            self._iter_keys = [keys[e] for e in self._order().tolist()]
            self._iter_ver = ver
        return iter(self._iter_keys)

    def min(self) -> Hashable:
        """Key of the first element (lowest priority now). Raises ``KeyError`` when empty."""
        F, I, P, B, BO, H, meta, fm = self._ts
        if meta[core._NB] == 0:
            raise KeyError("min() of an empty LiveTree")
        return self._keys[B[BO[0, 0], 0]]

    def first(self, n: int) -> list[Hashable]:
        """Keys of the first ``n`` elements in order."""
        keys = self._keys
        return [keys[e] for e in self._order()[:max(n, 0)].tolist()]

    # --- mutations ------------------------------------------------------------------------------
    def insert(self, key: Hashable, intercepts: Any, slopes: Any = None, *, t0: float | None = None,
               tie: float = 0.0) -> None:
        r"""Add element ``key`` with priority :math:`\max_k(a_k + b_k e^{-(t - t_0)/\tau})`.

        ``intercepts`` :math:`a` and ``slopes`` :math:`b` are sequences of equal length (a scalar slope
        applies to every line; default 0); ``t0`` (default :attr:`now`) must not be in the future;
        ``tie`` (a number, smaller first) orders equal priorities before the key.
        """
        if key in self._index:
            raise KeyError(f"key {key!r} is already in the tree; use update()")
        ab, t0, tie = self._checked(intercepts, slopes, t0, tie)
        e, kord = self._add(key)
        core.insert(self._ts, e, ab, t0, tie, kord)

    def update(self, key: Hashable, intercepts: Any, slopes: Any = None, *, t0: float | None = None,
               tie: float = 0.0) -> None:
        """Replace the trajectory (and tie value) of ``key`` (same arguments as :meth:`insert`).

        When the element still lies between its neighbours it keeps its place (two comparisons and
        two certificates instead of a removal and a binary-search insertion).
        """
        e = self._index[key]
        ab, t0, tie = self._checked(intercepts, slopes, t0, tie)
        core.update(self._ts, e, ab, t0, tie, self._kord(e), self.in_place_updates)

    def insert_trusted(self, key: Hashable, intercepts: Sequence[float], slopes: Sequence[float],
                       t0: float, tie: float = 0.0) -> None:
        """:meth:`insert` without argument checks, for callers whose trajectories are valid by
        construction (the schedulers): ``intercepts`` and ``slopes`` sequences of finite floats of equal
        length, ``t0 <= now``, ``tie`` a float (not NaN), ``key`` absent."""
        ab = self._lines(intercepts, slopes)
        e, kord = self._add(key)
        core.insert(self._ts, e, ab, t0, tie, kord)

    def update_trusted(self, key: Hashable, intercepts: Sequence[float], slopes: Sequence[float],
                       t0: float, tie: float = 0.0) -> None:
        """:meth:`update` without argument checks (see :meth:`insert_trusted`)."""
        e = self._index[key]
        core.update(self._ts, e, self._lines(intercepts, slopes), t0, tie, self._kord(e),
                    self.in_place_updates)

    def leads_with(self, key: Hashable, intercepts: Sequence[float], slopes: Sequence[float],
                   t0: float, tie: float = 0.0) -> bool:
        """Whether ``key`` (present) would come first now if its trajectory (and tie) were this one.

        Nothing changes: a caller about to serve the first element can serve ``key`` without moving
        it twice (a scheduler's user whose task just ended). Arguments as :meth:`update_trusted`.
        """
        e = self._index[key]
        ab = self._lines(intercepts, slopes)
        return bool(core.leads_with(self._ts, e, len(self._keys), ab, t0, tie))

    def lead_or_update(self, key: Hashable, intercepts: Sequence[float], slopes: Sequence[float],
                       t0: float, tie: float = 0.0) -> bool:
        """True if ``key`` would come first now with this trajectory (nothing changes, as
        :meth:`leads_with`); otherwise give it this trajectory (as :meth:`update_trusted`), return False.

        The scheduler's step for a user whose task just ended (``TaskScheduler._lead``); the envelope
        is built once (the probe's moves to the element).
        """
        e = self._index[key]
        ab = self._lines(intercepts, slopes)
        return bool(core.lead_or_update(self._ts, e, len(self._keys), ab, t0, tie, self.in_place_updates))

    def remove(self, key: Hashable) -> None:
        """Remove ``key`` (``KeyError`` if absent)."""
        e = self._drop(key)
        core.remove(self._ts, e)

    def discard(self, key: Hashable) -> None:
        """Remove ``key`` if present."""
        if key in self._index:
            self.remove(key)

    def advance(self, t: float) -> int:
        """Move the current time to ``t`` (>= now), processing the swap events due; return their number."""
        t = self._check_time(t)
        return int(core.advance(self._ts, t))
