r"""DRF and SDRF task filling: SDRF Algorithm 1 (Section 6.2) with continuous-time commitments.

Active users are those with pending tasks. Repeatedly, the active user with the lowest priority
gets its next task, on a server where it fits (``server=``), until the rule stops:

.. code-block:: text

    while A != {}:
        i <- argmin_{i in A} priority_i(now)
        d_i <- demand of i's next task
        if d_i fits on a server i may use:  start it;  if i has no more pending tasks: A <- A \ {i}
        else: return            # blocking="stop", as printed;  "skip": set i aside, try the next user

Priorities (users normalised to capacity 1 per resource; :math:`o_i` held, :math:`c_i(t)` commitments):

``priority="level"`` (default)
    :math:`(\max_r o_{ir} + \max_r c_{ir}(t)) / w_i`: dominant share plus dominant commitment, the
    level of Eq. 5 (:func:`fairalloc.shares.sdrf_levels`). Filling by this key approaches Eq. 5's
    water-filling as tasks shrink (:mod:`fairalloc.experiments.convergence`).
``priority="printed"``
    :math:`\max_r (o_{ir} + c_{ir}(t)) / w_i`, as Algorithm 1 prints it
    (:func:`fairalloc.shares.sdrf_printed_priorities`).

With zero commitments both are the DRF key :math:`\max_r o_{ir} / w_i` (:class:`DRFScheduler`).

Commitments evolve in continuous time by SDRF Eq. 6 (:func:`fairalloc.commitments.decay`): between two
changes of a user's allocation its excess :math:`\bar o_i = \max(o_i - f_i, 0)` over the fair share
:math:`f_i = w_i / \sum_j w_j` (all users, see below) is constant, so
:math:`c_{ir}(t) = \bar o_{ir} + (c_{ir}(t_0) - \bar o_{ir}) e^{-(t - t_0)/\tau}` with
:math:`\tau = -\Delta t/\ln\delta` (:func:`fairalloc.commitments.tau_from_delta`). Every priority is
therefore a maximum of functions affine in :math:`e^{-t/\tau}` with one :math:`\tau` for all users,
which is what the live tree (:class:`fairalloc.kinetic.LiveTree`) keeps sorted exactly
(:func:`fairalloc.scheduling.keys.trajectory_row` builds the lines; :meth:`SDRFScheduler.priorities`
recomputes the priorities from :mod:`fairalloc.shares` and :mod:`fairalloc.commitments`).

Errata and choices (``papers/sdrf.md``):

* Algorithm 1's printed key :math:`\max_r(o_{ir}+c_{ir})` is not Eq. 5's order when the resource that
  dominates the allocation differs from the one that dominates the commitment; both are offered,
  ``"level"`` is the default (the authors' public simulator uses it too).
* Algorithm 1 stops at the first task that does not fit (head-of-line blocking); ``blocking="skip"``
  tries the next user instead. Default ``"stop"``, as printed.
* The fair share in Eq. 3 counts *all* users of the scheduler (``n_users`` / ``weights``), whether
  active or not (the paper does not say).
* Decisions at the instant of a change. Eq. 6 makes commitments continuous in time: when a user's
  task ends at *t*, its excess changes at *t* but its commitment at *t* is still the one built on
  :math:`(t_0, t]`, where it held the old excess. A decision taken at that instant (and in a full
  pool every start happens at a finish instant) sees the old excess, however small :math:`\tau`: as
  :math:`\delta \to 0` the commitment becomes the allocation held *just before*, not the current one,
  so SDRF does not reduce to DRF in that limit (the paper's Section 7 argues it does). Read the other
  way (the commitment jumps to the new excess at once), the level would be :math:`s + \max(s - f, 0)`,
  a monotone function of the dominant share *s*, and every schedule would be DRF's.
  ``benchmarks/bench_sdrf_gaps.py extremes`` measures both readings. The first is kept: it is Eq. 6 as
  printed (``test_commitments_at_a_finish_instant_hold_the_excess_held_before`` checks it by hand).
* Servers: the paper's setting is one pool (a :class:`~fairalloc.model.Cluster` with one server whose
  capacities are the totals); on several servers shares are fractions of the cluster totals and
  ``server=`` chooses where a task goes (:mod:`fairalloc.scheduling.servers`).
* Ties (equal priorities): the user whose priority will be lower just after now (decaying faster)
  first (the live tree's right-limit order); among priorities still equal, ``ties="wait"``
  (default) serves the user whose oldest pending task has waited longest, then the lower index;
  ``ties="index"`` the lower index only (:class:`~fairalloc.scheduling.TaskScheduler`). Commitments already
  break many ties by history; in DRF (no commitments) every user whose tasks have all ended sits at
  share 0, and index order alone makes waits grow with the index.

References
----------
.. [1] H. Sadok, M. Campista, L. Costa, "O Passado Também Importa: Um Mecanismo de Alocação Justa de
   Múltiplos Tipos de Recursos ao Longo do Tempo", SBRC 2018, Eq. 3, 5, 6, Algorithm 1.
.. [2] A. Ghodsi et al., "Dominant Resource Fairness: Fair Allocation of Multiple Resource Types",
   NSDI 2011 (progressive filling of tasks).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import commitments as _c
from .. import shares
from ..errors import InvalidInstanceError
from ..model import TaskInstance
from ..result import AllocationResult
from ..validation import require_choice
from ._base import TaskScheduler, check_task_instance, one_shot

__all__ = ["SDRFScheduler", "DRFScheduler", "sdrf_greedy", "drf_greedy", "PRIORITIES"]

PRIORITIES = ("level", "printed")


class SDRFScheduler(TaskScheduler):
    r"""Incremental SDRF Algorithm 1 (see the module docstring for the rule, readings and errata).

    The users are kept in the live tree's order (``structure="live_tree"``, the default); the decision
    core (:mod:`fairalloc.scheduling.core`) holds the state and takes every decision.

    Parameters
    ----------
    cluster : Cluster or array_like (M, K)
        One server for the paper's pooled setting; shares are fractions of the cluster totals.
    n_users : int, optional
        Number of users (or give ``weights``).
    weights : array_like (N,), optional
        Positive weights; the priority is divided by the weight and the fair share is
        :math:`w_i / \sum_j w_j`.
    commitments : array_like (N, K), optional
        Commitments at ``time``, as fractions of the cluster totals (default zeros).
    delta : float in (0, 1), optional
        Discount per ``dt`` (Eq. 3); gives :math:`\tau = -dt/\ln\delta`. Without ``delta`` and
        ``tau``, commitments stay constant (a snapshot: one-shot scheduling).
    dt : float, default 1.0
    tau : float, optional
        The time constant directly (instead of ``delta``).
    priority : {"level", "printed"}
    placement : array_like (N, M) of bool, optional
    server : {"first_fit", "best_fit", "tvtsf"} or callable
    blocking : {"stop", "skip"}, default "stop"
    structure : {"live_tree", "resort", "heap"}
        Keep users sorted with the live tree, re-sort all of them at every decision (exact baseline),
        or a heap with lazy recomputation (inexact baseline, :class:`~fairalloc.kinetic.LazyHeap`).
    ties : {"wait", "index"}, default "wait"
        Among equal priorities: the user whose oldest pending task has waited longest, then the
        lower index (``"wait"``), or the lower index only (``"index"``).
    time : float, default 0.0
    jump : bool, default False
        Diagnostic reading of Eq. 6 at an instant of change (module docstring): at every change of a
        user's allocation its commitment is set to the new excess at once (the :math:`\tau \to 0`
        limit read *after* the change; with a tiny :math:`\tau` the schedules are DRF's).

    Raises
    ------
    InvalidInstanceError
        ``delta`` outside (0, 1), ``tau`` <= 0, bad shapes, negative commitments, ...

    See Also
    --------
    sdrf_greedy : the same rule on a one-shot :class:`~fairalloc.TaskInstance`.
    fairalloc.sim.TaskPolicy : drives this scheduler in the simulator.

    Examples
    --------
    The example of :func:`sdrf_greedy`, incrementally: commitments held constant (no ``delta`` or
    ``tau``), user 0 has committed 0.3 of resource 1, and gets 4 tasks to user 1's 6:

    >>> s = SDRFScheduler([[10, 10]], n_users=2, commitments=[[0, 0.3], [0, 0]])
    >>> _ = s.submit(0, [1, 1], 10); _ = s.submit(1, [1, 1], 10)
    >>> starts = s.schedule()
    >>> [sum(st.user == u for st in starts) for u in (0, 1)]
    [4, 6]

    With :math:`\tau = 1` and nothing running (excess 0), Eq. 6 decays the commitment to
    :math:`0.3 e^{-1} = 0.1104` after one time unit:

    >>> s = SDRFScheduler([[10, 10]], n_users=2, commitments=[[0, 0.3], [0, 0]], tau=1.0)
    >>> _ = s.advance(1.0)
    >>> s.commitments().round(4).tolist()
    [[0.0, 0.1104], [0.0, 0.0]]
    """

    mechanism = "sdrf"

    def __init__(self, cluster: Any, /, *, n_users: int | None = None, weights: Any = None,
                 commitments: Any = None, delta: float | None = None, dt: float = 1.0,
                 tau: float | None = None, priority: str = "level", placement: Any = None,
                 server: Any = "first_fit", blocking: str | None = None, structure: str = "live_tree",
                 ties: str = "wait", time: float = 0.0, jump: bool = False) -> None:
        if delta is not None and tau is not None:
            raise InvalidInstanceError("give delta or tau, not both", argument="tau", value=tau)
        if delta is not None:
            tau = _c.tau_from_delta(delta, dt)
        elif tau is not None:
            tau = float(tau)
            if not (np.isfinite(tau) and tau > 0):
                raise InvalidInstanceError(f"tau={tau!r} must be finite and > 0", argument="tau", value=tau)
        self._tau = tau
        self.delta = delta
        self.priority = require_choice("priority", priority, PRIORITIES)
        self._commitments = commitments
        self.jump = bool(jump)
        super().__init__(cluster, n_users=n_users, weights=weights, placement=placement, server=server,
                         blocking=blocking, structure=structure, ties=ties, time=time)

    def _core_options(self) -> dict:
        n, k = self.n_users, self.cluster.n_resources
        return {"commitments": _c.as_commitments(self._commitments, n, k), "fair": shares.fair_shares(self.weights),
                "tau": self._tau, "level": self.priority == "level", "jump": self.jump}

    @property
    def tau(self) -> float | None:
        """Time constant of Eq. 6 (None: commitments held constant)."""
        return self._tau

    def commitments(self, t: float | None = None) -> np.ndarray:
        """(N, K) commitments at ``t`` (default now, >= every user's last change), by Eq. 6."""
        return self._core.commitments_at(self._now if t is None else float(t))

    def priorities(self) -> np.ndarray:
        """(N,) every user's priority now, from :mod:`fairalloc.shares` (the one definition)."""
        o = self.normalized_usage()
        c = self.commitments()
        if self.priority == "level":
            return shares.sdrf_levels(shares.dominant_shares(o), c, self.weights)
        return shares.sdrf_printed_priorities(o, c, self.weights)


class DRFScheduler(SDRFScheduler):
    """Incremental DRF task filling: the user with pending tasks and the lowest weighted dominant share next.

    SDRF with zero commitments (both priority readings coincide); its key does not move with time, so
    the decision core keeps the users in an indexed heap. Ties: ``ties="wait"`` (default) serves,
    among users at the same weighted dominant share, the one whose oldest pending task has waited
    longest, then the lower index; ``"index"`` the lower index only.

    Parameters
    ----------
    cluster : Cluster or array_like (M, K)
        Servers and capacities; shares are fractions of the cluster totals.
    n_users : int, optional
        Number of users (or give ``weights``).
    weights : array_like (N,), optional
        Positive weights; the key is the dominant share divided by the weight (default ones).
    placement : array_like (N, M) of bool, optional
        Servers each user may use (default all).
    server : {"first_fit", "best_fit", "tvtsf"} or callable, default "first_fit"
        Server rule (:mod:`fairalloc.scheduling.servers`).
    blocking : {"stop", "skip"}, default "stop"
    structure : {"live_tree", "resort", "heap"}, default "live_tree"
    ties : {"wait", "index"}, default "wait"
    time : float, default 0.0
        The starting time.

    Raises
    ------
    InvalidInstanceError
        Bad shapes, weights or choices (naming the argument).

    Examples
    --------
    DRF paper, Section 4: 9 CPUs and 18 GB, A's tasks <1, 4>, B's <3, 1>; A and B alternate until
    A holds 3 tasks and B 2 (both at dominant share 2/3), then A's next task does not fit:

    >>> s = DRFScheduler([[9, 18]], n_users=2)                      # DRF paper, Section 4
    >>> _ = s.submit(0, [1, 4], count=10); _ = s.submit(1, [3, 1], count=10)
    >>> [st.user for st in s.schedule()]
    [0, 1, 0, 1, 0]

    Both at share 0, user 1's task submitted at t = 0 and user 0's at t = 1: user 1 has waited
    longer and goes first; with ``ties="index"``, user 0 does.

    >>> for ties in ("wait", "index"):
    ...     s = DRFScheduler([[1, 1]], n_users=2, ties=ties)
    ...     _ = s.submit(1, [1, 1]); _ = s.advance(1.0); _ = s.submit(0, [1, 1])
    ...     print(ties, [st.user for st in s.schedule()])
    wait [1]
    index [0]
    """

    mechanism = "drf"

    def __init__(self, cluster: Any, /, *, n_users: int | None = None, weights: Any = None,
                 placement: Any = None, server: Any = "first_fit", blocking: str | None = None,
                 structure: str = "live_tree", ties: str = "wait",
                 time: float = 0.0) -> None:
        super().__init__(cluster, n_users=n_users, weights=weights, placement=placement, server=server,
                         blocking=blocking, structure=structure, ties=ties, time=time)


def sdrf_greedy(instance: TaskInstance, /, *, priority: str = "level", blocking: str = "stop",
                server: Any = "first_fit", structure: str = "live_tree") -> AllocationResult:
    r"""SDRF Algorithm 1 on a one-shot :class:`~fairalloc.TaskInstance` (commitments held constant).

    Every task of every user is pending at once; the instance's ``commitments`` (fractions of the
    cluster totals) are the snapshot. Returns status FEASIBLE (a heuristic, not proven optimal).

    Parameters
    ----------
    instance : TaskInstance
        Cluster, per-user task demands and counts, weights, placement, commitments.
    priority : {"level", "printed"}, default "level"
        Eq. 5's level or Algorithm 1's printed key (module docstring).
    blocking : {"stop", "skip"}, default "stop"
        Stop at the first task that fits nowhere (as printed) or set that user aside.
    server : {"first_fit", "best_fit", "tvtsf"} or callable, default "first_fit"
        Server rule (:mod:`fairalloc.scheduling.servers`).
    structure : {"live_tree", "resort", "heap"}, default "live_tree"
        How users are kept sorted (all give the same schedule here: priorities do not move).

    Returns
    -------
    AllocationResult
        ``tasks`` (N, M) tasks started per user and server, ``allocation`` (N, K) raw units,
        ``dominant_shares``, ``levels`` (Eq. 5: dominant share + dominant commitment, weighted),
        ``shares`` the final priorities in the chosen reading, ``utilities`` tasks per user;
        ``stats``: decisions, swaps, blocked_by, unplaced, runtime_s; ``details["order"]`` the users
        in the order they received tasks.

    Raises
    ------
    InvalidInstanceError
        ``instance`` is not a :class:`~fairalloc.TaskInstance`, or a bad choice.

    Examples
    --------
    One pool of 10 units of two resources; user 0 has committed 0.3 of resource 1; both want
    unit tasks <1, 1>. The level reading serves user 1 until its level 0.1 k catches up with
    0.3 + 0.1 k' (see ``tests/unit/scheduling``):

    >>> import fairalloc as fa
    >>> ti = fa.TaskInstance([[10, 10]], [[1, 1], [1, 1]], tasks=[10, 10], commitments=[[0, 0.3], [0, 0]])
    >>> sdrf_greedy(ti).tasks.ravel().tolist()
    [4, 6]
    """
    check_task_instance(instance)
    sched = SDRFScheduler(instance.cluster, weights=instance.weights, commitments=instance.commitments,
                          priority=priority, placement=instance.placement, server=server,
                          blocking=blocking, structure=structure)
    c = instance.commitments
    w = instance.weights
    totals = instance.cluster.totals

    def final(per_user):
        o = shares.normalized_demands(per_user[:, None] * instance.task_demands, totals)
        if sched.priority == "level":
            return shares.sdrf_levels(shares.dominant_shares(o), c, w)
        return shares.sdrf_printed_priorities(o, c, w)

    res = one_shot(sched, instance, shares_fn=final, extra_stats={"priority": sched.priority})
    return res.replace(levels=shares.sdrf_levels(res.dominant_shares, c, w))


def drf_greedy(instance: TaskInstance, /, *, blocking: str = "stop", server: Any = "first_fit",
               structure: str = "live_tree") -> AllocationResult:
    r"""DRF progressive filling of tasks on a one-shot :class:`~fairalloc.TaskInstance`.

    The user with the lowest weighted dominant share (fractions of the cluster totals) gets its next
    task, until the rule stops. The instance's commitments are ignored. ``shares`` and ``levels``
    are the weighted dominant shares.

    Parameters
    ----------
    instance : TaskInstance
        Cluster, per-user task demands and counts, weights, placement.
    blocking : {"stop", "skip"}, default "stop"
        Stop at the first task that fits nowhere, or set that user aside and go on.
    server : {"first_fit", "best_fit", "tvtsf"} or callable, default "first_fit"
        Server rule (:mod:`fairalloc.scheduling.servers`).
    structure : {"live_tree", "resort", "heap"}, default "live_tree"

    Returns
    -------
    AllocationResult
        Status FEASIBLE; ``tasks`` (N, M), ``allocation`` (N, K), ``dominant_shares``; ``stats`` as
        :func:`sdrf_greedy`.

    Raises
    ------
    InvalidInstanceError
        ``instance`` is not a :class:`~fairalloc.TaskInstance`, or a bad choice.

    Examples
    --------
    DRF paper [2]_, Section 4: 9 CPUs and 18 GB; A's tasks need <1 CPU, 4 GB>, B's <3 CPUs, 1 GB>.
    A gets 3 tasks and B 2, both at dominant share 2/3:

    >>> import fairalloc as fa
    >>> r = drf_greedy(fa.TaskInstance([[9, 18]], [[1, 4], [3, 1]], tasks=[100, 100]))
    >>> r.tasks.ravel().tolist(), r.dominant_shares.round(4).tolist()
    ([3, 2], [0.6667, 0.6667])
    """
    check_task_instance(instance)
    sched = DRFScheduler(instance.cluster, weights=instance.weights, placement=instance.placement,
                         server=server, blocking=blocking, structure=structure)
    totals = instance.cluster.totals
    w = instance.weights

    def final(per_user):
        return shares.dominant_share_of_tasks(per_user, instance.task_demands, totals, w)

    res = one_shot(sched, instance, shares_fn=final)
    return res.replace(levels=res.shares)
