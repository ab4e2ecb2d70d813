"""The brute-force counterpart of the live tree: re-sort every element on every query.

Same interface and the same order (comparison and tie rule) as :class:`~fairalloc.kinetic.LiveTree`;
nothing is kept between queries. It is the baseline the SDRF paper compares its live tree with
(re-sorting all users at every scheduling decision) and a test oracle for the tree's event logic.
"""

from __future__ import annotations

import functools
from typing import Any, Hashable, Iterator

import numpy as np

from . import tree_core as core
from .live_tree import _INF, _Kinetic

#: ``tree_core.cmp`` as plain Python (the same source): a re-sort calls it O(n log n) times on
#: Python floats, where a call into compiled code would cost more than the comparison
_cmp = getattr(core.cmp, "py_func", core.cmp)

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

    def _state_keys(self) -> list[tuple[tuple, int]]:
        """((intercept, slope term, slope coefficient, t0, tie, key order), element) of every element at
        now: the arguments of ``tree_core.cmp`` (the states in one compiled call)."""
        n = len(self._index)
        idx = np.fromiter(self._index.values(), np.int64, n)
        out = np.empty((n, 3))
        F, I, P = self._ts[0], self._ts[1], self._ts[2]
        fm = self._fm
        core.states(F, I, P, idx, fm[0], fm[1], fm[2] != 0.0, out)
        return list(zip(zip(out[:, 0].tolist(), out[:, 1].tolist(), out[:, 2].tolist(),
                            F[idx, core._T0].tolist(), F[idx, core._TIE].tolist(),
                            I[idx, core._KORD].tolist()), idx.tolist()))

    def _args(self) -> tuple:
        fm = self._fm
        return float(fm[0]), float(fm[1]), bool(fm[2] != 0.0)

    def _sorted_elems(self) -> list[int]:
        now, tau, kin = self._args()
        key = functools.cmp_to_key(lambda p, q: _cmp(*p[0], *q[0], now, tau, kin))
        return [e for _, e in sorted(self._state_keys(), key=key)]

    def _sorted(self) -> list[Hashable]:
        keys = self._keys
        return [keys[e] for e in self._sorted_elems()]

    def min(self) -> Hashable:
        if not self._index:
            raise KeyError("min() of an empty ResortQueue")
        now, tau, kin = self._args()
        best = be = None
        for k, e in self._state_keys():
            if best is None or _cmp(*k, *best, now, tau, kin) < 0:
                best, be = k, e
        return self._keys[be]

    def first(self, n: int) -> list[Hashable]:
        return self._sorted()[:n]

    def _fail(self, x: int, y: int) -> float:
        F, I, P = self._ts[0], self._ts[1], self._ts[2]
        fm = self._fm
        return float(core.fail_time(F, I, P, fm[1], fm[2] != 0.0, x, y, fm[0], False))

    @property
    def next_event_time(self) -> float:
        """Time of the next change of order, found by brute force over the sorted neighbours."""
        order = self._sorted_elems()
        return min((self._fail(x, y) for x, y in zip(order, order[1:])), default=_INF)

    @property
    def next_min_change(self) -> float:
        """The earliest time the first element can change, :attr:`next_event_time` (as
        :attr:`LiveTree.next_min_change <fairalloc.kinetic.LiveTree.next_min_change>`)."""
        return self.next_event_time

    def insert(self, key: Hashable, intercepts: Any, slopes: Any = None, *, t0: float | None = None,
               tie: float = 0.0) -> None:
        if key in self._index:
            raise KeyError(f"key {key!r} is already in the queue; use update()")
        ab, t0, tie = self._checked(intercepts, slopes, t0, tie)
        e, kord = self._add(key)
        core.set_trajectory(self._ts, e, ab, t0, tie, kord)

    def update(self, key: Hashable, intercepts: Any, slopes: Any = None, *, t0: float | None = None,
               tie: float = 0.0) -> None:
        e = self._index[key]
        ab, t0, tie = self._checked(intercepts, slopes, t0, tie)
        core.set_trajectory(self._ts, e, ab, t0, tie, self._kord(e))

    def insert_trusted(self, key: Hashable, intercepts: Any, slopes: Any, t0: float, tie: float = 0.0) -> None:
        ab = self._lines(intercepts, slopes)
        e, kord = self._add(key)
        core.set_trajectory(self._ts, e, ab, t0, tie, kord)

    def update_trusted(self, key: Hashable, intercepts: Any, slopes: Any, t0: float, tie: float = 0.0) -> None:
        e = self._index[key]
        core.set_trajectory(self._ts, e, self._lines(intercepts, slopes), t0, tie, self._kord(e))

    def leads_with(self, key: Hashable, intercepts: Any, slopes: Any, t0: float, tie: float = 0.0) -> bool:
        """Always False: the baseline takes no shortcut (the caller updates, then asks ``min``)."""
        return False

    def remove(self, key: Hashable) -> None:
        self._drop(key)

    def discard(self, key: Hashable) -> None:
        if key in self._index:
            self._drop(key)

    def advance(self, t: float) -> int:
        self._now = self._check_time(t)
        return 0
