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

Both the fit test and Algorithm 4's :math:`H(i, m)` are pure functions of the task's demand and of
one server's free row. A slotted scheduler asks them for every server at every task start, while a
start changes one server's row: :class:`FreeCapacity` keeps, per distinct demand vector, the (M,)
fit test and :math:`H` it last computed and recomputes only the rows of the servers changed since
(a counter per server, bumped by :meth:`~FreeCapacity.take`, :meth:`~FreeCapacity.release` and
:meth:`~FreeCapacity.find_take`), with the same functions on those rows: the values, and so every
choice, are those of a fresh computation (the tests compare them exactly). The TV-TSF paper-scale
large80 cell of sample 0 takes 1.55x less CPU with the same tables (``benchmarks/bench_tvtsf_cell.py``).

References
----------
.. [1] Li Jie, Wang Jianzhou, "A fair multi-resource allocation mechanism for time-varying discrete
   jobs with placement constraints", Chinese Journal on Internet of Things, 2024, Algorithm 4.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import shares
from ..validation import require_choice
from ..errors import InvalidInstanceError

__all__ = ["SERVER_RULES", "FreeCapacity"]

#: Names accepted by ``server=`` (a callable is accepted too).
SERVER_RULES = ("first_fit", "best_fit", "tvtsf")
#: Demand vectors whose fit test and H a :class:`FreeCapacity` keeps (cleared when full).
_CACHE_SIZE = 4096
#: Up to this many changed servers are recomputed on floats, not arrays (fewer NumPy calls) ...
_FEW_ROWS = 8
#: ... when there are at most this many resources (NumPy sums a row of fewer than 8 entries left to right).
_FEW_RESOURCES = 4


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
        self._totals_list = self.totals.tolist()
        self.placement = placement
        # per demand (its bytes): [clock when last brought up to date, (M,) fit test, (M,) H or None];
        # _stamp[m] is the clock of server m's last change (module docstring)
        self._cache: dict[bytes, list] = {}
        self._clock = 0
        self._stamp = np.zeros(self._free.shape[0], dtype=np.int64)
        self._all_rows = np.arange(self._free.shape[0])
        self._all_eligible = bool(placement.all())
        if callable(rule):
            self._rule: Callable | str = rule
            self.rule_name = getattr(rule, "__name__", "callable")
        else:
            self._rule = require_choice("server", rule, SERVER_RULES)
            self.rule_name = self._rule

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
        if self._row is not None:
            ok = shares.task_fits_rows(self.free, np.asarray(demand, dtype=float))
        else:
            ok = self._kept(np.asarray(demand, dtype=float))[0].copy()
        if not self._all_eligible:
            ok &= self.placement[user]
        return ok

    def _kept(self, demand: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """The (M,) fit test of ``demand`` on the free capacity now and, for the ``"tvtsf"`` rule, its
        (M,) :meth:`mismatch` (meaningful where the task fits), kept per demand and recomputed on the
        servers changed since it was last asked (module docstring). Several servers only; read, do not
        modify."""
        entry = self._cache.get(key := demand.tobytes())
        if entry is None:
            if len(self._cache) >= _CACHE_SIZE:
                self._cache.clear()
            m = self._free.shape[0]
            entry = [self._clock, np.zeros(m, dtype=bool), np.zeros(m) if self._rule == "tvtsf" else None,
                     demand.tolist(), None]
            self._cache[key] = entry
            rows = self._all_rows
        elif entry[0] == self._clock:
            return entry[1], entry[2]
        else:
            rows = (self._stamp > entry[0]).nonzero()[0]
        entry[0] = self._clock
        ok_all, h = entry[1], entry[2]
        if rows.size > _FEW_ROWS or self._free.shape[1] > _FEW_RESOURCES:
            ok = shares.task_fits_rows(self._free[rows], demand)
            ok_all[rows] = ok
            if h is not None and ok.any():
                rows = rows[ok]
                h[rows] = self.mismatch(demand, rows)
            return ok_all, h
        # a few servers changed: the same arithmetic row by row on floats (the tests compare it
        # exactly with the arrays'): shares.task_fits, and H summed left to right as NumPy sums a
        # row of fewer than 8 entries
        d = entry[3]
        if h is not None and entry[4] is None:
            dn = [x / t for x, t in zip(d, self._totals_list)]
            k = next((r for r, x in enumerate(dn) if x > 0), 0)
            entry[4] = (k, [x / dn[k] for x in dn])
        for m in rows.tolist():
            row = self._free[m].tolist()
            fit = shares.task_fits(row, d)
            ok_all[m] = fit
            if fit and h is not None:
                k, dd = entry[4]
                fn = [x / t for x, t in zip(row, self._totals_list)]
                fk = fn[k]
                acc = 0.0
                for x, y in zip(dd, fn):
                    acc += abs(x - y / fk)
                h[m] = acc
        return ok_all, h

    def fits_capacity(self, user: int, demand: np.ndarray) -> bool:
        """Whether the task fits on some eligible server of an *empty* cluster."""
        ok = shares.tasks_that_fit(self.capacity, demand) >= 1
        return bool((ok & self.placement[user]).any())

    def find(self, user: int, demand: np.ndarray) -> int:
        """Server chosen for one task of ``user`` with ``demand`` (raw units), or -1 if none fits."""
        if self._row is not None:                         # one pool: no NumPy on a short vector
            return 0 if shares.task_fits(self._row, demand.tolist()) else -1
        demand = np.asarray(demand, dtype=float)
        ok, h = self._kept(demand)
        if not self._all_eligible:
            ok = ok & self.placement[user]
        rule = self._rule
        if rule == "tvtsf":
            idx = ok.nonzero()[0]
            return int(idx[h[idx].argmin()]) if idx.size else -1
        if not ok.any():
            return -1
        if rule == "first_fit":
            return int(np.argmax(ok))
        idx = np.flatnonzero(ok)
        if rule == "best_fit":
            left = shares.normalized_demands(self.free[idx] - demand, self.totals).sum(axis=1)
            return int(idx[np.argmin(left)])
        view = self.free.view()
        view.setflags(write=False)
        m = rule(view, demand, ok.copy())
        m = -1 if m is None else int(m)
        if m >= 0 and not ok[m]:
            raise InvalidInstanceError(f"server rule {self.rule_name!r} returned server {m}, where the task "
                                       f"does not fit or the user may not run", argument="server", value=m)
        return m

    def mismatch(self, demand: np.ndarray, idx: np.ndarray) -> np.ndarray:
        r"""TV-TSF Algorithm 4's :math:`H(i, m)` for the servers ``idx`` (normalised units)."""
        d = shares.normalized_demands(demand, self.totals)
        f = shares.normalized_demands(self.free[idx], self.totals)
        k = int(np.argmax(d > 0))                        # first resource the task uses (0 if d_1 > 0)
        return np.abs(d / d[k] - f / f[:, k:k + 1]).sum(axis=1)

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
            self._changed(m)
        return m

    def _changed(self, server: int) -> None:
        """Server ``server``'s free row changed: what :meth:`_kept` holds for it is stale."""
        self._clock += 1
        self._stamp[server] = self._clock

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
            self._changed(server)

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
            self._changed(server)

    def free_row(self, server: int) -> list:
        """Free capacity of one server as a list of floats (read it, do not modify it)."""
        return self._row if self._row is not None else self._free[server].tolist()

    def used(self) -> np.ndarray:
        """(M, K) capacity in use."""
        return self.capacity - self.free

