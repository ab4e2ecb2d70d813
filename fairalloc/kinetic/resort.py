"""The brute-force counterpart of the live tree: re-sort every element on every query.

Same interface and the same order (comparison and tie rule) as :class:`~fairalloc.kinetic.LiveTree`;
nothing is kept between queries. It is the baseline the SDRF paper compares its live tree with
(re-sorting all users at every scheduling decision) and a test oracle for the tree's event logic.
"""

from __future__ import annotations

import functools
from typing import Any, Hashable, Iterator

from .live_tree import _INF, _Elem, _Kinetic, _cmp, _fail_time

__all__ = ["ResortQueue"]


class ResortQueue(_Kinetic):
    """Same interface as :class:`LiveTree`, but re-sorts every element on each query.

    The brute-force baseline of the live tree (the SDRF paper re-sorting all users at every decision)
    and an oracle for tests: the order is a full sort at :attr:`now` with the same comparison and
    same tie rule. ``swaps`` stays 0 (nothing is tracked between queries).

    Parameters
    ----------
    tau : float or None
        The time constant shared by all trajectories, as :class:`~fairalloc.kinetic.LiveTree`
        (None: constant priorities).
    time : float, default 0.0
        The initial current time.

    Raises
    ------
    KeyError
        :meth:`insert` of a key already present, :meth:`min` of an empty queue, :meth:`update` or
        :meth:`remove` of an absent key.

    Examples
    --------
    The live tree's example: ``1`` decays from 1.0 below ``0`` (constant 0.5) at
    :math:`t = \\ln 2 < 1`, so a full sort at t = 1 puts it first:

    >>> q = ResortQueue(tau=1.0)
    >>> q.insert(0, [0.5]); q.insert(1, [0.0], [1.0])
    >>> list(q); _ = q.advance(1.0); list(q)
    [0, 1]
    [1, 0]
    """

    #: Always 0: nothing is tracked between queries.
    swaps = 0
    certificates = 0

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self._sorted())

    def _key(self, e: _Elem) -> tuple:
        """(intercept, slope term, rank) at now: the arguments of ``_cmp`` for e."""
        return self._state(e, self._now) + (e.rank,)

    def _sorted(self) -> list[Hashable]:
        now, tau = self._now, self._tau
        cmp = functools.cmp_to_key(lambda p, q: _cmp(*p, *q, now, tau))
        return [k[2][1] for k in sorted((self._key(e) for e in self._elems.values()), key=cmp)]

    def min(self) -> Hashable:
        if not self._elems:
            raise KeyError("min() of an empty ResortQueue")
        best = None
        for e in self._elems.values():
            k = self._key(e)
            if best is None or _cmp(*k, *best, self._now, self._tau) < 0:
                best = k
        return best[2][1]

    def first(self, n: int) -> list[Hashable]:
        return self._sorted()[:n]

    @property
    def next_event_time(self) -> float:
        """Time of the next change of order, found by brute force over the sorted neighbours."""
        now, tau = self._now, self._tau
        cmp = functools.cmp_to_key(lambda p, q: _cmp(*self._key(p), *self._key(q), now, tau))
        order = sorted(self._elems.values(), key=cmp)
        return min((_fail_time(tau, x, y, now) for x, y in zip(order, order[1:])), default=_INF)

    @property
    def next_min_change(self) -> float:
        """When the first element is next overtaken, by brute force (a full sort, then its certificate)."""
        if len(self._elems) < 2:
            return _INF
        now, tau = self._now, self._tau
        cmp = functools.cmp_to_key(lambda p, q: _cmp(*self._key(p), *self._key(q), now, tau))
        order = sorted(self._elems.values(), key=cmp)
        return _fail_time(tau, order[0], order[1], now)

    def insert(self, key: Hashable, intercepts: Any, slopes: Any = None, *, t0: float | None = None,
               tie: float = 0.0) -> None:
        if key in self._elems:
            raise KeyError(f"key {key!r} is already in the queue; use update()")
        e = _Elem(key)
        self._set_trajectory(e, intercepts, slopes, t0, tie)
        self._elems[key] = e

    def update(self, key: Hashable, intercepts: Any, slopes: Any = None, *, t0: float | None = None,
               tie: float = 0.0) -> None:
        self._set_trajectory(self._elems[key], intercepts, slopes, t0, tie)

    def insert_trusted(self, key: Hashable, intercepts: Any, slopes: Any, t0: float, tie: float = 0.0) -> None:
        e = _Elem(key)
        self._set_trusted(e, intercepts, slopes, t0, tie)
        self._elems[key] = e

    def update_trusted(self, key: Hashable, intercepts: Any, slopes: Any, t0: float, tie: float = 0.0) -> None:
        self._set_trusted(self._elems[key], intercepts, slopes, t0, tie)

    def leads_with(self, key: Hashable, intercepts: Any, slopes: Any, t0: float, tie: float = 0.0) -> bool:
        """Always False: the baseline takes no shortcut (the caller updates, then asks ``min``)."""
        return False

    def remove(self, key: Hashable) -> None:
        del self._elems[key]

    def discard(self, key: Hashable) -> None:
        self._elems.pop(key, None)

    def advance(self, t: float) -> int:
        self._now = self._check_time(t)
        return 0
