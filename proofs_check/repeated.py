r"""The repeated game: a pooled instance whose demands change between periods, and a mechanism with state.

A :class:`RepeatedGame` lists, for every period *t*, each user's per-task demand :math:`d_i^t` and
task count :math:`K_i^t` (0: the user is absent that period). A *dynamic mechanism* allocates one
period given its state and updates the state from the allocation:

* :class:`SDRFDynamics`: SDRF (Eq. 5) with commitments carried by Eq. 3
  (:func:`fairalloc.commitments.step`, memory :math:`\delta`), or stateful max-min (Eq. 4) with one
  resource;
* :class:`UsageDynamics`: a production policy with memory (Slurm's decayed usage, HTCondor's real
  user priority, Kueue's consumed usage) updated by the policy's own rule
  (:mod:`proofs_check.production`);
* :class:`StatelessDynamics`: any one-shot mechanism (DRF, max-min, ...) played period by period.

:func:`play` runs the game with every user truthful except for the reports it is given, and returns
the :class:`Trajectory` (allocations, commitments, true utilities). A user's payoff is
:math:`\sum_t \gamma^t u_i^t` with :math:`u_i^t` in **tasks** (``axioms.md``), computed by
:func:`proofs_check.units.task_utilities` from the *true* demands.

Absent users take no part in a period's allocation; commitments use the fair share of *all* users
(:func:`fairalloc.commitments.step` with every row, an explicit choice for the open point of
``papers/sdrf.md``).

References
----------
.. [1] H. Sadok, M. Campista, L. Costa, SBRC 2018, Eqs. 2-5 and Prop. 3 (truthfulness in the repeated game).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

import fairalloc as fa
from fairalloc import commitments as _commitments
from fairalloc.validation import as_array, require_nonnegative, require_positive, require_shape
from fairalloc.errors import InvalidInstanceError

from .units import pooled_instance, task_utilities
from .verdict import jsonable

__all__ = ["RepeatedGame", "SDRFDynamics", "UsageDynamics", "StatelessDynamics", "Trajectory", "play", "payoff"]


class RepeatedGame:
    """Periods of a pooled instance with changing demands.

    Parameters
    ----------
    capacities : array_like (n_resources,)
    task_demands : array_like (n_periods, n_agents, n_resources)
        Per-task demand :math:`d_i^t` (>= 0; a present user needs some resource).
    tasks : array_like (n_periods, n_agents)
        Task counts :math:`K_i^t` (> 0 present, 0 absent). Need not be integers (divisible tasks).
    weights : array_like (n_agents,), optional

    Examples
    --------
    >>> g = RepeatedGame([1, 1], [[[1, 0.05], [0.1, 1]], [[1, 0], [1, 0]]], [[10, 10], [10, 10]])
    >>> g.n_periods, g.n_agents, g.n_resources
    (2, 2, 2)
    """

    def __init__(self, capacities: Any, task_demands: Any, tasks: Any, weights: Any = None) -> None:
        c = as_array("capacities", capacities, ndim=1)
        require_positive("capacities", c)
        d = as_array("task_demands", task_demands, ndim=3)
        T, n, m = d.shape
        require_shape("task_demands", d, (T, n, c.shape[0]), names=["n_periods", "n_agents", "n_resources"])
        require_nonnegative("task_demands", d)
        k = as_array("tasks", tasks, ndim=2)
        require_shape("tasks", k, (T, n), names=["n_periods", "n_agents"])
        require_nonnegative("tasks", k)
        empty = (k > 0) & ~(d > 0).any(axis=2)
        if empty.any():
            t, i = (int(v) for v in np.argwhere(empty)[0])
            raise InvalidInstanceError(f"task_demands[{t}, {i}] is all zero but user {i} is present in period {t}",
                                       argument="task_demands", index=(t, i), value=d[t, i].tolist())
        w = np.ones(n) if weights is None else as_array("weights", weights, ndim=1)
        require_shape("weights", w, (n,), names=["n_agents"])
        require_positive("weights", w)
        for a in (c, d, k, w):
            a.setflags(write=False)
        self.capacities, self.task_demands, self.tasks, self.weights = c, d, k, w

    n_periods = property(lambda self: self.task_demands.shape[0])
    n_agents = property(lambda self: self.task_demands.shape[1])
    n_resources = property(lambda self: self.task_demands.shape[2])

    def demands(self) -> np.ndarray:
        """(T, n, m) total demands :math:`K_i^t d_i^t`."""
        return self.tasks[:, :, None] * self.task_demands

    def permuted(self, perm) -> "RepeatedGame":
        p = np.asarray(perm)
        return RepeatedGame(self.capacities, self.task_demands[:, p], self.tasks[:, p], self.weights[p])

    def replace(self, **kw: Any) -> "RepeatedGame":
        base = dict(capacities=self.capacities, task_demands=self.task_demands, tasks=self.tasks,
                    weights=self.weights)
        base.update(kw)
        return RepeatedGame(**base)

    def to_dict(self) -> dict[str, Any]:
        return {"capacities": self.capacities.tolist(), "task_demands": self.task_demands.tolist(),
                "tasks": self.tasks.tolist(), "weights": self.weights.tolist()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "RepeatedGame":
        return cls(**dict(data))

    def __repr__(self) -> str:
        return f"RepeatedGame(n_periods={self.n_periods}, n_agents={self.n_agents}, n_resources={self.n_resources})"


class SDRFDynamics:
    """SDRF with commitments carried across periods (Eq. 3), or stateful max-min with ``mechanism=fa.max_min``.

    Parameters
    ----------
    delta : float in [0, 1)
        Commitment memory of Eq. 3 (the mechanism's, not the users' discount).
    mechanism : callable
        ``mechanism(instance, commitments=c)``: :func:`fairalloc.sdrf` (default) or :func:`fairalloc.max_min`.
    name : str, optional
        Name in witnesses and :meth:`params` (default: the mechanism's ``__name__``).

    Raises
    ------
    fairalloc.InvalidInstanceError
        ``delta`` outside [0, 1).

    See Also
    --------
    StatelessDynamics, play, fairalloc.commitments.step

    Examples
    --------
    One resource; user 1 is away in period 0, so user 0 holds everything, 1/2 above its fair share
    1/2, and its commitment becomes :math:`(1-\\delta) \\cdot 1/2 = 0.25` (Eq. 3). In period 1 SDRF
    equalises share plus commitment, :math:`x + 0.25 = 1 - x`, so user 0 gets 0.375 (by hand):

    >>> g = RepeatedGame([1], [[[1], [1]], [[1], [1]]], [[2, 0], [2, 2]])
    >>> tr = play(SDRFDynamics(0.5), g)
    >>> tr.states[1].ravel().tolist(), tr.utilities[1].tolist()
    ([0.25, 0.0], [0.375, 0.625])
    >>> SDRFDynamics(0.5).params()
    {'dynamics': 'sdrf', 'mechanism': 'sdrf', 'delta': 0.5}
    """

    stateful = True

    def __init__(self, delta: float = 0.5, *, mechanism: Callable = fa.sdrf, name: str | None = None) -> None:
        self.delta = float(delta)
        _commitments.step(np.zeros((1, 1)), np.zeros((1, 1)), self.delta)   # validates delta
        self.mechanism = mechanism
        self.name = name or getattr(mechanism, "__name__", "sdrf")

    def initial_state(self, n: int, m: int) -> np.ndarray:
        return np.zeros((n, m))

    def allocate(self, instance, state_rows):
        return self.mechanism(instance, commitments=state_rows)

    def update(self, state, normalized_allocation, weights):
        return _commitments.step(state, normalized_allocation, self.delta, weights)

    def params(self) -> dict[str, Any]:
        return {"dynamics": "sdrf", "mechanism": self.name, "delta": self.delta}


class UsageDynamics:
    r"""A production policy whose state is each user's decayed usage (:mod:`proofs_check.production`).

    Parameters
    ----------
    mechanism : callable
        ``mechanism(instance, usage=u, decay=delta)`` with ``u`` the state of the users present: (n,) in
        billing units, or (n, m) when the callable has ``per_resource = True`` (Kueue's consumed usage).
    update : callable
        ``update(usage, allocation, decay, capacities) -> usage`` with the period's allocation in
        instance units (the policy's rule, e.g. :func:`fairalloc.fairshare.pooled.slurm_usage_step`).
    delta : float in (0, 1)
        Decay of the usage per period (the half-life in periods is :math:`\ln 0.5/\ln\delta`).
    name : str, optional
    capacities : array_like (m,), optional
        The game's capacities, set by :meth:`bind` (which :func:`play` calls).

    Raises
    ------
    fairalloc.InvalidInstanceError
        ``delta`` outside (0, 1).

    Examples
    --------
    Slurm with CPU billing, one resource of 2 CPUs, :math:`\delta = 0.5`: user 1 is away in period 0,
    so user 0 runs 2 CPUs and its usage becomes :math:`0.5\,(0 + 2) = 1`; in period 1 the levels
    equalise, :math:`1 + x_0 = x_1`, so 0.5 and 1.5 (by hand):

    >>> from proofs_check.production import slurm_classic
    >>> g = RepeatedGame([2], [[[1], [1]], [[1], [1]]], [[2, 0], [2, 2]])
    >>> tr = play(UsageDynamics(slurm_classic, slurm_classic.usage_step, 0.5), g)
    >>> tr.states[1].tolist(), tr.allocations[1].ravel().tolist()
    ([1.0, 0.0], [0.5, 1.5])
    """

    stateful = True

    def __init__(self, mechanism: Callable, update: Callable, delta: float = 0.5, *, name: str | None = None,
                 capacities: Any = None) -> None:
        self.delta = float(delta)
        if not (0 < self.delta < 1):
            raise InvalidInstanceError(f"delta={delta!r} must be in (0, 1)", argument="delta", value=delta)
        self.mechanism = mechanism
        self.update_rule = update
        self.name = name or getattr(mechanism, "__name__", "mechanism")
        self.capacities = capacities

    def bind(self, game: RepeatedGame) -> UsageDynamics:
        """The same dynamics with the game's capacities (the update bills allocations in instance units)."""
        return UsageDynamics(self.mechanism, self.update_rule, self.delta, name=self.name, capacities=game.capacities)

    def initial_state(self, n: int, m: int) -> np.ndarray:
        per_resource = getattr(getattr(self.mechanism, "func", self.mechanism), "per_resource", False)
        return np.zeros((n, m)) if per_resource else np.zeros(n)

    def allocate(self, instance, state_rows):
        return self.mechanism(instance, usage=state_rows, decay=self.delta)

    def update(self, state, normalized_allocation, weights):
        return self.update_rule(state, normalized_allocation * self.capacities, self.delta, self.capacities)

    def params(self) -> dict[str, Any]:
        return {"dynamics": "usage", "mechanism": self.name, "delta": self.delta}


class StatelessDynamics:
    """A one-shot mechanism played period by period (no state).

    Parameters
    ----------
    mechanism : callable
        ``mechanism(instance) -> AllocationResult`` on a pooled :class:`fairalloc.Instance`
        (e.g. :func:`fairalloc.drf`).
    name : str, optional
        Name in witnesses and :meth:`params` (default: the mechanism's ``__name__``).

    See Also
    --------
    SDRFDynamics, play

    Examples
    --------
    The game of :class:`SDRFDynamics`' example under DRF: without memory, period 1 splits evenly:

    >>> import fairalloc as fa
    >>> g = RepeatedGame([1], [[[1], [1]], [[1], [1]]], [[2, 0], [2, 2]])
    >>> play(StatelessDynamics(fa.drf), g).utilities.tolist()
    [[1.0, 0.0], [0.5, 0.5]]
    >>> StatelessDynamics(fa.drf).params()
    {'dynamics': 'stateless', 'mechanism': 'drf'}
    """

    stateful = False

    def __init__(self, mechanism: Callable, *, name: str | None = None) -> None:
        self.mechanism = mechanism
        self.name = name or getattr(mechanism, "__name__", "mechanism")
        self.delta = None

    def initial_state(self, n: int, m: int) -> None:
        return None

    def allocate(self, instance, state_rows):
        return self.mechanism(instance)

    def update(self, state, normalized_allocation, weights):
        return None

    def params(self) -> dict[str, Any]:
        return {"dynamics": "stateless", "mechanism": self.name}


@dataclass(frozen=True)
class Trajectory:
    """One play of a repeated game (what :func:`play` returns).

    Attributes
    ----------
    allocations : ndarray of shape (T, n, m)
        Bundles per period, in capacity units.
    utilities : ndarray of shape (T, n)
        True utilities in tasks (:func:`proofs_check.units.task_utilities` of the true demands).
    states : list of T+1 states
        Commitments (n, m) for SDRF, None when stateless; ``states[t]`` is in force during period t.
    reported_task_demands : ndarray of shape (T, n, m)
        The per-task demand each user reported.
    reported_tasks : ndarray of shape (T, n)
        The task count each user reported (0: away).
    failures : list of (int, str, str)
        Periods where the mechanism failed: (period, status, message).

    Examples
    --------
    :class:`SDRFDynamics`' example, user 0's payoff with :math:`\\gamma = 0.5`: :math:`1 + 0.5 \\cdot
    0.375 = 1.1875`:

    >>> g = RepeatedGame([1], [[[1], [1]], [[1], [1]]], [[2, 0], [2, 2]])
    >>> tr = play(SDRFDynamics(0.5), g)
    >>> tr.allocations.shape, tr.payoff(0, 0.5), tr.failures
    ((2, 2, 1), 1.1875, [])
    """

    allocations: np.ndarray
    utilities: np.ndarray
    states: list
    reported_task_demands: np.ndarray
    reported_tasks: np.ndarray
    failures: list = field(default_factory=list)

    def payoff(self, user: int, gamma: float) -> float:
        return payoff(self.utilities[:, user], gamma)

    def to_dict(self) -> dict[str, Any]:
        return {"allocations": jsonable(self.allocations), "utilities": jsonable(self.utilities),
                "commitments": [None if s is None else jsonable(s) for s in self.states],
                "reported_task_demands": jsonable(self.reported_task_demands),
                "reported_tasks": jsonable(self.reported_tasks)}


def payoff(utilities, gamma: float) -> float:
    r""":math:`\sum_t \gamma^t u^t` (``axioms.md``; SDRF Eq. 2 up to its constant factor).

    Parameters
    ----------
    utilities : array_like of shape (T,)
        One user's utility per period, first period first.
    gamma : float in (0, 1]
        Discount per period.

    Returns
    -------
    float

    Examples
    --------
    :math:`1 + 0.5 \cdot 1 + 0.25 \cdot 1 = 1.75`:

    >>> payoff([1, 1, 1], 0.5)
    1.75
    """
    u = np.asarray(utilities, float)
    return float(np.sum(u * float(gamma) ** np.arange(u.shape[0])))


def play(dynamics, game: RepeatedGame, *, user: int | None = None,
         reports: Mapping[int, tuple[Any, Any]] | None = None) -> Trajectory:
    """Play ``game`` under ``dynamics``; ``reports[t] = (task_demand, tasks)`` replaces ``user``'s report in period t.

    Everybody else is truthful. A report with 0 tasks means the user stays away that period.

    Parameters
    ----------
    dynamics : SDRFDynamics or StatelessDynamics
        Allocates each period from the reports (and the state) and updates the state.
    game : RepeatedGame
        The true demands per period.
    user : int, optional
        The user whose reports ``reports`` replaces (needed when ``reports`` is given).
    reports : dict of int to (array_like, float), optional
        Period -> (per-task demand (m,), task count) reported by ``user``.

    Returns
    -------
    Trajectory
        Utilities are judged on the TRUE demands; a period where the mechanism fails allocates
        nothing and is listed in ``failures``.

    Examples
    --------
    :class:`StatelessDynamics`' game under DRF, user 1 staying away in period 1 as well: user 0
    then holds the whole resource twice (its true demand, 2 units, exceeds it):

    >>> import fairalloc as fa
    >>> g = RepeatedGame([1], [[[1], [1]], [[1], [1]]], [[2, 0], [2, 2]])
    >>> play(StatelessDynamics(fa.drf), g, user=1, reports={1: ([1], 0)}).utilities.tolist()
    [[1.0, 0.0], [1.0, 0.0]]
    """
    T, n, m = game.n_periods, game.n_agents, game.n_resources
    if hasattr(dynamics, "bind"):
        dynamics = dynamics.bind(game)
    d_rep = np.array(game.task_demands, float)
    k_rep = np.array(game.tasks, float)
    for t, (dd, kk) in (reports or {}).items():
        d_rep[t, user] = np.asarray(dd, float)
        k_rep[t, user] = float(kk)
    state = dynamics.initial_state(n, m)
    states = [None if state is None else np.array(state)]
    allocs = np.zeros((T, n, m))
    utils = np.zeros((T, n))
    true_demands = game.demands()
    failures = []
    C = game.capacities
    for t in range(T):
        active = np.flatnonzero((k_rep[t] > 0) & (d_rep[t] > 0).any(axis=1))
        full = np.zeros((n, m))
        if active.size:
            inst = pooled_instance(d_rep[t, active], k_rep[t, active], C, game.weights[active])
            res = dynamics.allocate(inst, None if state is None else state[active])
            if not res.success:
                failures.append((t, res.status.value, res.message))
            else:
                full[active] = res.allocation
        allocs[t] = full
        utils[t] = task_utilities(true_demands[t], full, game.tasks[t])
        state = dynamics.update(state, full / C, game.weights)
        states.append(None if state is None else np.array(state))
    return Trajectory(allocs, utils, states, d_rep, k_rep, failures)
