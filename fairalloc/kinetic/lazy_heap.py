r"""A binary heap with lazy recomputation: the usual shortcut for time-varying priorities, and why it is not exact.

Each element sits in a heap under the priority it had when it was last (re)computed. :meth:`LazyHeap.min`
recomputes the priority of the top at the current time; if it grew past the stored one, the top is
pushed back under its fresh priority and the next one is examined, until the top's stored priority is
current. That is exact when priorities can only *grow* with time (the stored values are lower bounds
of the true ones, so the first top whose stored value is current is the true minimum). SDRF's
priorities also *shrink*: the commitment of a user who holds less than its fair share decays
(Eq. 6), so its priority falls while it sits deep in the heap under a stale, larger value, and it is
served later than it should be. The structure is kept as the baseline of the scheduler benchmark
(``benchmarks/bench_sched.py`` reports how often its schedule differs from the live tree's); do not use
it where the exact order matters.

Same interface as :class:`~fairalloc.kinetic.LiveTree` and the same comparison and tie rule for the
elements it compares. Iteration (used by ``blocking="skip"``) is a full sort at the current time (exact).
``next_event_time`` and ``next_min_change`` are ``inf``: the heap does not know when the order
changes, so a simulator using it never reschedules between events (a blocked SDRF scheduler on it
misses the changes of its first user that the live tree's wake-ups catch).
"""

from __future__ import annotations

import functools
import heapq
from typing import Any, Hashable, Iterator

from . import tree_core as core
from .live_tree import _INF, _Kinetic

__all__ = ["LazyHeap"]


class LazyHeap(_Kinetic):
    """Heap keyed by the priority at the last recomputation (module docstring: inexact for SDRF).

    Parameters
    ----------
    tau : float or None
        The time constant shared by all trajectories, as :class:`~fairalloc.kinetic.LiveTree`
        (None: constant priorities).
    time : float, default 0.0
        The initial current time.

    Attributes
    ----------
    recomputations : int
        Priorities recomputed by :meth:`min` so far.
    swaps, certificates : int
        Always 0 (no order is tracked between queries).

    Raises
    ------
    KeyError
        :meth:`insert` of a key already present; :meth:`update` or :meth:`remove` of an absent one.

    Examples
    --------
    The live tree's example (module docstring of :mod:`fairalloc.kinetic.live_tree`): ``1`` decays
    from 1.0 and overtakes ``0`` (constant 0.5) at :math:`t = \\ln 2`. The heap still returns ``0``
    at t = 1 because ``1`` sits under its stale key 1.0, which is the inexactness the module
    docstring describes:

    >>> h = LazyHeap(tau=1.0)
    >>> h.insert(0, [0.5]); h.insert(1, [0.0], [1.0])      # 1 decays from 1.0 below 0.5 at t = ln 2
    >>> h.min(); _ = h.advance(1.0); h.min()                 # stale key 1.0: still behind 0
    0
    0
    >>> list(h)                                              # a full sort at t = 1 is exact
    [1, 0]
    """

    swaps = 0
    certificates = 0

    def __init__(self, tau: float | None = None, *, time: float = 0.0) -> None:
        super().__init__(tau, time=time)
        self._heap: list[tuple[float, tuple, int, int]] = []
        self._token: dict[int, int] = {}             # element index -> token (never reset)
        self.recomputations = 0

    def _value(self, e: int) -> tuple[float, float]:
        fm = self._fm
        return core.state(self._ts[0], self._ts[1], self._ts[2], e, fm[0], fm[1], fm[2] != 0.0)

    def _push(self, e: int) -> None:
        a, s = self._value(e)
        token = self._token.get(e, 0) + 1
        self._token[e] = token
        rank = (float(self._ts[0][e, core._TIE]), self._keys[e])
        heapq.heappush(self._heap, (a + s, rank, token, e))       # ties: by (tie, key), as the tree

    def insert(self, key: Hashable, intercepts: Any, slopes: Any = None, *, t0: float | None = None,
               tie: float = 0.0) -> None:
        if key in self._index:
            raise KeyError(f"key {key!r} is already in the heap; use update()")
        ab, t0, tie = self._checked(intercepts, slopes, t0, tie)
        e, kord = self._add(key)
        core.set_trajectory(self._ts, e, ab, t0, tie, kord)
        self._push(e)

    def update(self, key: Hashable, intercepts: Any, slopes: Any = None, *, t0: float | None = None,
               tie: float = 0.0) -> None:
        e = self._index[key]
        ab, t0, tie = self._checked(intercepts, slopes, t0, tie)
        core.set_trajectory(self._ts, e, ab, t0, tie, self._kord(e))
        self._push(e)

    def insert_trusted(self, key: Hashable, intercepts: Any, slopes: Any, t0: float, tie: float = 0.0) -> None:
        ab = self._lines(intercepts, slopes)
        e, kord = self._add(key)
        core.set_trajectory(self._ts, e, ab, t0, tie, kord)
        self._push(e)

    def update_trusted(self, key: Hashable, intercepts: Any, slopes: Any, t0: float, tie: float = 0.0) -> None:
        e = self._index[key]
        core.set_trajectory(self._ts, e, self._lines(intercepts, slopes), t0, tie, self._kord(e))
        self._push(e)

    def leads_with(self, key: Hashable, intercepts: Any, slopes: Any, t0: float, tie: float = 0.0) -> bool:
        """Always False: the baseline takes no shortcut (the caller updates, then asks ``min``)."""
        return False

    def remove(self, key: Hashable) -> None:
        e = self._drop(key)
        self._token[e] = self._token.get(e, 0) + 1

    def discard(self, key: Hashable) -> None:
        if key in self._index:
            self.remove(key)

    def advance(self, t: float) -> int:
        self._now = self._check_time(t)
        return 0

    def min(self) -> Hashable:
        heap, token = self._heap, self._token
        while heap:
            stored, _, tok, e = heap[0]
            if tok != token[e]:
                heapq.heappop(heap)                    # removed or updated since
                continue
            a, s = self._value(e)
            if a + s > stored:                         # grew since it was stored: push back, look again
                self.recomputations += 1
                heapq.heappop(heap)
                self._push(e)
                continue
            if len(heap) > 4 * len(self._index) + 64:
                self._heap = heap = [x for x in heap if x[2] == token[x[3]]]
                heapq.heapify(heap)
            return self._keys[e]
        raise KeyError("min() of an empty LazyHeap")

    def _sorted(self) -> list[Hashable]:
        fm = self._fm
        now, tau, kin = fm[0], fm[1], fm[2] != 0.0
        F, I = self._ts[0], self._ts[1]
        keys = [(self._value(e) + (F[e, core._CB], F[e, core._T0], F[e, core._TIE], I[e, core._KORD]), e)
                for e in self._index.values()]             # (_value caches the piece's coefficient)
        cmp = functools.cmp_to_key(lambda p, q: core.cmp(*p[0], *q[0], now, tau, kin))
        return [self._keys[e] for _, e in sorted(keys, key=cmp)]

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self._sorted())

    def first(self, n: int) -> list[Hashable]:
        return self._sorted()[:n]

    @property
    def next_event_time(self) -> float:
        """Always ``inf``: the heap does not track when its order changes."""
        return _INF

    @property
    def next_min_change(self) -> float:
        """Always ``inf`` (see :attr:`next_event_time`)."""
        return _INF
