r"""Free capacity per server and the choice of a server for one task.

Every greedy scheduler in :mod:`fairalloc.scheduling` places a task in two steps: the fairness rule
picks the *user*; a server rule picks, among the servers the user may use (placement) and on which
the task fits now, the *server*. The server rules:

``"first_fit"``
    The eligible server with the lowest index (default of DRF, SDRF, TSF, CDRF).
``"best_fit"``
    The eligible server left with the least free capacity after the task, measured as
    :math:`\sum_r (F_{mr} - d_r) / C_r` with :math:`C_r` the cluster total (ties: lowest index).
``"tvtsf"``
    TV-TSF Algorithm 4 (FIND_BESTFIT_SERVER): minimise the shape mismatch
    :math:`H(i, m) = \lVert d_i / d_{i1} - F_m / F_{m1} \rVert_1` between the task and the server's
    *free* capacity, both in normalised units (fractions of the cluster totals, TV-TSF Eq. 1), each
    divided by its first resource (ties: lowest index). When the task does not use the first
    resource (:math:`d_{i1} = 0`) both vectors are divided by their entry at the task's first
    positive resource instead (a documented extension: the paper assumes :math:`d_{ir} > 0`).
a callable
    ``f(free, demand, eligible) -> int``: ``free`` (M, K) free capacities, ``demand`` (K,) the task,
    ``eligible`` (M,) bool mask of the servers where it fits and is allowed; return a server index
    (or -1 for none). Arrays are read-only views.

Whether a task fits is :func:`fairalloc.shares.tasks_that_fit` ``>= 1`` on the free capacity (the one
definition, with its tolerance for floating-point round-off).

The rules are written once, as plain loops over one server's free row
(:func:`find_server`), compiled for the task schedulers' decision core
(:mod:`fairalloc.scheduling.core`) and called by :class:`FreeCapacity` (the slotted schedulers and
the simulator's cluster state). Sums over resources are NumPy's (:func:`row_sum`: left to right for
fewer than 8 terms, pairwise beyond), so that :meth:`FreeCapacity.mismatch` over arrays and the
compiled rule compute the same floats.

References
----------
.. [1] Li Jie, Wang Jianzhou, "A fair multi-resource allocation mechanism for time-varying discrete
   jobs with placement constraints", Chinese Journal on Internet of Things, 2024, Algorithm 4.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import shares
from .._jit import jit
from ..errors import InvalidInstanceError
from ..tolerance import FLOOR_EPS
from ..validation import require_choice

__all__ = ["SERVER_RULES", "FreeCapacity", "find_server", "shape_mismatch", "row_sum"]

#: Names accepted by ``server=`` (a callable is accepted too); a rule's id is its position.
SERVER_RULES = ("first_fit", "best_fit", "tvtsf")
FIRST_FIT, BEST_FIT, TVTSF = 0, 1, 2

_fits = jit(shares.task_fits_row)


@jit(_nrt=False)
def row_sum(x):
    """``numpy.sum`` of a 1-d float array, bit for bit: left to right (from -0.0) below 8 terms,
    else NumPy's pairwise summation (8 accumulators per block of at most 128 terms, halves above).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([1e16, 1.0, -1e16, 1.0, 3.0, 1e-3, 2.0, 5.0, 7.0])
    >>> float(row_sum.py_func(x)) == float(x.sum())
    True
    """
    n = x.shape[0]
    if n < 8:
        acc = -0.0
        for i in range(n):
            acc += x[i]
        return acc
    if n <= 128:
        r0, r1, r2, r3, r4, r5, r6, r7 = x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]
        i = 8
        stop = n - n % 8
        while i < stop:
            r0 += x[i]
            r1 += x[i + 1]
            r2 += x[i + 2]
            r3 += x[i + 3]
            r4 += x[i + 4]
            r5 += x[i + 5]
            r6 += x[i + 6]
            r7 += x[i + 7]
            i += 8
        acc = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            acc += x[i]
            i += 1
        return acc
    half = n // 2
    half -= half % 8
    return row_sum(x[:half]) + row_sum(x[half:])


@jit(_nrt=False)
def shape_mismatch(free_row, demand, totals, scratch):
    r"""TV-TSF Algorithm 4's :math:`H = \sum_r |d_r/d_k - f_r/f_k|` of one server, with :math:`d` the
    task's and :math:`f` the server's free capacity in units of the cluster totals and *k* the task's
    first positive resource (``scratch``: a (K,) work array).

    Examples
    --------
    :class:`FreeCapacity`'s example: task <2, 2> against free <4, 8> on totals <12, 16>: shapes
    <1, 0.75> and <1, 1.5>, H = 0.75:

    >>> import numpy as np
    >>> shape_mismatch.py_func(np.array([4.0, 8.0]), np.array([2.0, 2.0]), np.array([12.0, 16.0]), np.zeros(2))
    0.75
    """
    k = 0
    for r in range(demand.shape[0]):
        if demand[r] / totals[r] > 0:
            k = r
            break
    dk = demand[k] / totals[k]
    fk = free_row[k] / totals[k]
    for r in range(demand.shape[0]):
        scratch[r] = abs((demand[r] / totals[r]) / dk - (free_row[r] / totals[r]) / fk)
    return row_sum(scratch)


@jit(_nrt=False)
def find_server(free, demand, eligible, rule, totals, eps, scratch):
    """The server rule (module docstring): among the servers ``eligible`` and where one task of
    ``demand`` fits now (:func:`fairalloc.shares.task_fits_row`), the first (``rule`` 0), the one left
    with the least normalised capacity (1) or the smallest shape mismatch (2); ties to the lowest
    index; -1 when none. ``scratch``: a (K,) work array.

    Examples
    --------
    :class:`FreeCapacity`'s example: first fit picks server 0, TV-TSF's shape match server 1:

    >>> import numpy as np
    >>> free, tot = np.array([[4.0, 8.0], [8.0, 8.0]]), np.array([12.0, 16.0])
    >>> [find_server.py_func(free, np.array([2.0, 2.0]), np.ones(2, bool), rule, tot, 1e-9, np.zeros(2))
    ...  for rule in (0, 1, 2)]
    [0, 0, 1]
    """
    best = -1
    best_v = 0.0
    for m in range(free.shape[0]):
        if not (eligible[m] and _fits(free[m], demand, eps)):
            continue
        if rule == 0:
            return m
        if rule == 1:
            for r in range(demand.shape[0]):
                scratch[r] = (free[m, r] - demand[r]) / totals[r]
            v = row_sum(scratch)
        else:
            v = shape_mismatch(free[m], demand, totals, scratch)
        if best < 0 or v < best_v:
            best = m
            best_v = v
    return best


class FreeCapacity:
    """Free capacities of M servers and the placement of tasks on them.

    (Named for what it holds; :class:`fairalloc.sim.Servers` is the simulator's cluster state.)

    Parameters
    ----------
    capacities : ndarray (M, K)
        Raw per-server capacities (as :attr:`fairalloc.Cluster.capacities`).
    placement : ndarray (N, M) of bool
        Eligibility of each user on each server (already validated).
    rule : str or callable, default "first_fit"
        See the module docstring.

    Raises
    ------
    InvalidInstanceError
        An unknown rule name; later, a callable rule that returns a server where the task does not
        fit or the user may not run.

    Examples
    --------
    Servers <4, 8> and <8, 8>, one user allowed on both, a task <2, 2>. Algorithm 4 in units of the
    totals <12, 16>: the task's shape is <1/6, 1/8>, i.e. <1, 0.75> after dividing by the first
    entry; server 0's free <4, 8> gives <1, 1.5> (H = 0.75), server 1's <8, 8> gives <1, 0.75>
    (H = 0), so ``"tvtsf"`` picks server 1 where first fit picks server 0:

    >>> import numpy as np
    >>> fc = FreeCapacity(np.array([[4, 8], [8, 8]]), np.ones((1, 2), dtype=bool), "tvtsf")
    >>> fc.find(0, np.array([2.0, 2.0])), fc.mismatch(np.array([2.0, 2.0]), np.array([0, 1])).tolist()
    (1, [0.75, 0.0])
    >>> fc.take(1, np.array([2.0, 2.0])); fc.free.tolist()
    [[4.0, 8.0], [6.0, 6.0]]
    >>> FreeCapacity(np.array([[4, 8], [8, 8]]), np.ones((1, 2), dtype=bool)).find(0, np.array([2.0, 2.0]))
    0
    """

    def __init__(self, capacities: np.ndarray, placement: np.ndarray, rule: Any = "first_fit") -> None:
        self.capacity = np.array(capacities, dtype=float)
        self.capacity.setflags(write=False)
        # Free capacity. One pool (M = 1, SDRF's setting) is held as a list of K floats: a task
        # scheduler takes and releases one task per decision, and NumPy costs about 1 us per
        # operation on so short a vector where plain floats cost 0.1 us (the same IEEE subtractions
        # and additions, so the values are bitwise those of the array). Several servers: an (M, K) array.
        self._free = self.capacity.copy()
        self._row: list[float] | None = self._free[0].tolist() if self._free.shape[0] == 1 else None
        #: Whether this is one pool (M = 1), held as a list: give :meth:`take` / :meth:`release` lists then.
        self.one_pool = self._row is not None
        self.totals = self.capacity.sum(axis=0)
        self.placement = placement
        self._scratch = np.zeros(self.capacity.shape[1])
        self._eps = float(FLOOR_EPS)
        if callable(rule):
            self._rule: Callable | str = rule
            self.rule_name = getattr(rule, "__name__", "callable")
            self.rule_id = -1
        else:
            self._rule = require_choice("server", rule, SERVER_RULES)
            self.rule_name = self._rule
            self.rule_id = SERVER_RULES.index(self._rule)

    @property
    def free(self) -> np.ndarray:
        """(M, K) free capacity per server (read-only: change it with :meth:`take` and :meth:`release`)."""
        if self._row is None:
            return self._free
        free = np.array([self._row], dtype=float)
        free.setflags(write=False)
        return free

    @property
    def n_servers(self) -> int:
        return self.capacity.shape[0]

    def fits(self, user: int, demand: np.ndarray) -> np.ndarray:
        """(M,) bool: servers where one task of ``demand`` fits now and ``user`` may run."""
        return shares.task_fits_rows(self.free, np.asarray(demand, dtype=float)) & self.placement[user]

    def fits_capacity(self, user: int, demand: np.ndarray) -> bool:
        """Whether the task fits on some eligible server of an *empty* cluster."""
        ok = shares.tasks_that_fit(self.capacity, demand) >= 1
        return bool((ok & self.placement[user]).any())

    def find(self, user: int, demand: np.ndarray) -> int:
        """Server chosen for one task of ``user`` with ``demand`` (raw units), or -1 if none fits."""
        if self._row is not None:                         # one pool: no NumPy on a short vector
            return 0 if shares.task_fits(self._row, demand.tolist()) else -1
        demand = np.asarray(demand, dtype=float)
        if self.rule_id >= 0:
            return int(find_server(self._free, demand, self.placement[user], self.rule_id, self.totals,
                                   self._eps, self._scratch))
        ok = self.fits(user, demand)
        if not ok.any():
            return -1
        view = self.free.view()
        view.setflags(write=False)
        m = self._rule(view, demand, ok.copy())
        m = -1 if m is None else int(m)
        if m >= 0 and not ok[m]:
            raise InvalidInstanceError(f"server rule {self.rule_name!r} returned server {m}, where the task "
                                       f"does not fit or the user may not run", argument="server", value=m)
        return m

    def mismatch(self, demand: np.ndarray, idx: np.ndarray) -> np.ndarray:
        r"""TV-TSF Algorithm 4's :math:`H(i, m)` for the servers ``idx`` (normalised units; :func:`shape_mismatch`)."""
        d = np.asarray(demand, dtype=float)
        free = self.free
        return np.array([shape_mismatch(free[m], d, self.totals, self._scratch) for m in np.asarray(idx).tolist()])

    def find_list(self, user: int, demand: np.ndarray, demand_list: list) -> int:
        """:meth:`find` with the demand also given as a list of floats (one pool: no conversion)."""
        if self._row is not None:
            return 0 if shares.task_fits(self._row, demand_list) else -1
        return self.find(user, demand)

    def find_take(self, user: int, demand: np.ndarray, demand_list: list) -> int:
        """:meth:`find_list`, then :meth:`take` of one task on the server found; return it (-1: none,
        nothing taken). One call per decision of a greedy scheduler; on one pool, the same
        :func:`~fairalloc.shares.task_fits` and the same subtraction as those two methods."""
        row = self._row
        if row is not None:
            if shares.task_fits(row, demand_list):
                self._row = [f - x for f, x in zip(row, demand_list)]
                return 0
            return -1
        m = self.find(user, demand)
        if m >= 0:
            self._free[m] -= demand
        return m

    def take(self, server: int, demand: Any, count: int = 1) -> None:
        """Subtract ``count`` tasks of ``demand`` (raw units, an array or a list) from ``server``'s free capacity."""
        if self._row is not None:
            d = demand.tolist() if isinstance(demand, np.ndarray) else demand
            if count == 1:
                self._row = [f - x for f, x in zip(self._row, d)]
            else:
                self._row = [f - x * count for f, x in zip(self._row, d)]
        else:
            if count == 1:
                self._free[server] -= demand
            else:
                self._free[server] -= np.asarray(demand, dtype=float) * count

    def release(self, server: int, demand: Any, count: int = 1) -> None:
        """Add ``count`` tasks of ``demand`` back to ``server``'s free capacity (as :meth:`take`)."""
        if self._row is not None:
            d = demand.tolist() if isinstance(demand, np.ndarray) else demand
            if count == 1:
                self._row = [f + x for f, x in zip(self._row, d)]
            else:
                self._row = [f + x * count for f, x in zip(self._row, d)]
        else:
            if count == 1:
                self._free[server] += demand
            else:
                self._free[server] += np.asarray(demand, dtype=float) * count

    def assign(self, free: np.ndarray) -> None:
        """Set the free capacity to ``free`` (M, K): what a compiled loop left after taking tasks in the
        same order (:func:`fairalloc.scheduling.tvtsf.fill_slot_arrays`), the values :meth:`take` would leave."""
        if self._row is not None:
            self._row = np.asarray(free, dtype=float)[0].tolist()
        else:
            self._free[...] = free

    def free_row(self, server: int) -> list:
        """Free capacity of one server as a list of floats (read it, do not modify it)."""
        return self._row if self._row is not None else self._free[server].tolist()

    def used(self) -> np.ndarray:
        """(M, K) capacity in use."""
        return self.capacity - self.free

