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

References
----------
.. [1] Li Jie, Wang Jianzhou, "A fair multi-resource allocation mechanism for time-varying discrete
   jobs with placement constraints", Chinese Journal on Internet of Things, 2024, Algorithm 4.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import shares
from .._validation import require_choice
from ..errors import InvalidInstanceError

__all__ = ["SERVER_RULES", "Servers"]

#: Names accepted by ``server=`` (a callable is accepted too).
SERVER_RULES = ("first_fit", "best_fit", "tvtsf")


class Servers:
    """Free capacities of M servers and the placement of tasks on them.

    Parameters
    ----------
    capacities : ndarray (M, K)
        Raw per-server capacities (as :attr:`fairalloc.Cluster.capacities`).
    placement : ndarray (N, M) of bool
        Eligibility of each user on each server (already validated).
    rule : str or callable
        See the module docstring.
    """

    def __init__(self, capacities: np.ndarray, placement: np.ndarray, rule: Any = "first_fit") -> None:
        self.capacity = np.array(capacities, dtype=float)
        self.capacity.setflags(write=False)
        self.free = self.capacity.copy()
        self.totals = self.capacity.sum(axis=0)
        self.placement = placement
        self._all_eligible = bool(placement.all())
        if callable(rule):
            self._rule: Callable | str = rule
            self.rule_name = getattr(rule, "__name__", "callable")
        else:
            self._rule = require_choice("server", rule, SERVER_RULES)
            self.rule_name = self._rule

    @property
    def n_servers(self) -> int:
        return self.capacity.shape[0]

    def fits(self, user: int, demand: np.ndarray) -> np.ndarray:
        """(M,) bool: servers where one task of ``demand`` fits now and ``user`` may run."""
        ok = shares.tasks_that_fit(self.free, demand) >= 1
        if not self._all_eligible:
            ok &= self.placement[user]
        return ok

    def fits_capacity(self, user: int, demand: np.ndarray) -> bool:
        """Whether the task fits on some eligible server of an *empty* cluster."""
        ok = shares.tasks_that_fit(self.capacity, demand) >= 1
        return bool((ok & self.placement[user]).any())

    def find(self, user: int, demand: np.ndarray) -> int:
        """Server chosen for one task of ``user`` with ``demand`` (raw units), or -1 if none fits."""
        if self.free.shape[0] == 1:                       # one pool: no NumPy on a short vector
            return 0 if shares.task_fits(self.free[0].tolist(), demand.tolist()) else -1
        ok = self.fits(user, demand)
        if not ok.any():
            return -1
        rule = self._rule
        if rule == "first_fit":
            return int(np.argmax(ok))
        idx = np.flatnonzero(ok)
        if rule == "best_fit":
            left = shares.normalized_demands(self.free[idx] - demand, self.totals).sum(axis=1)
            return int(idx[np.argmin(left)])
        if rule == "tvtsf":
            return int(idx[np.argmin(self.mismatch(demand, idx))])
        view = self.free.view()
        view.setflags(write=False)
        m = rule(view, np.asarray(demand), ok.copy())
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

    def take(self, server: int, demand: np.ndarray) -> None:
        self.free[server] -= demand

    def release(self, server: int, demand: np.ndarray) -> None:
        self.free[server] += demand

    def used(self) -> np.ndarray:
        """(M, K) capacity in use."""
        return self.capacity - self.free
