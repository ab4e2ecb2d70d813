r"""Preemption in the task simulator: Kueue's fair-sharing preemption, one decision at a time (the reference).

.. code-block:: python

    fa.simulate(workload, capacity, policy="kueue", preemption=True)                 # Kueue's defaults
    fa.simulate(workload, capacity, policy="kueue",
                preemption={"strategies": ["LessThanInitialShare"], "min_run_time": 600, "victim": "kill"})

The semantics (each rule with its source)
-----------------------------------------
**When a check runs.** At every decision instant (the simulator's order: completions, then arrivals,
then decisions) the admission pass runs first (Kueue's tournament, :mod:`fairalloc.fairshare.kueue`,
``runTournament``; ``blocking="skip"``: a LocalQueue whose head task the quota or the pool refuses is set
aside, Kueue's BestEffortFIFO; in :func:`reference_kueue_run` by Kueue's scheduling cycle, one nominee per
ClusterQueue per cycle, with ``cycle=True``, its Notes, or one admission per tournament, the compiled loop's
order, with ``cycle=False``). Then, for the heads set aside, taken in tournament order, Kueue's
``fairPreemptions`` (``pkg/scheduler/preemption/preemption.go``) is asked which running tasks to evict so
that the head fits. The first head for which it finds victims has them evicted; then the pass runs again
(the freed quota goes to whoever the tournament puts first, as in Kueue, where the preemptor is admitted
in a later cycle once its victims are gone), then the preemption check again, until a check evicts
nothing. Each Kubernetes *workload* is one task here (one pod per workload, the unit Kueue admits).

**Candidates.** The running tasks of the other ClusterQueues of the preemptor's cohort that borrow on a
resource the preemptor needs (``findCandidates`` with ``reclaimWithinCohort: Any``; priorities are not
modelled, so ``withinClusterQueue`` is ``Never``: a queue never preempts itself), minus the tasks that
are *exempt*: a task is a candidate only when it started before now and has run at least
``min_run_time`` seconds, :math:`t - s \ge \text{min\_run\_time}` (:func:`preemptible`; Kueue's proposed
``fairSharing.minAdmitDuration``, kueue#9876 and PR #9770: "workloads admitted less than minAdmitDuration
ago are excluded from fair sharing preemption", described there as "analogous to Slurm's
``PreemptExemptTime``", Slurm's ``slurm.conf``: "a job will not be considered for preemption until it has
run for at least PreemptExemptTime"). A task started at this very instant is never a candidate, also with
``min_run_time=0`` (so every instant ends: each eviction removes one of the finitely many tasks running
since before now). When a blocked head waits only for an exempt task, the simulator wakes at the instant
the first such task becomes a candidate (PR #12996: "a timer-based retry when protection windows expire").

**The strategy rule** (KEP 1714 "Preemption", the preemption concept page "Fair Sharing";
:meth:`fairalloc.fairshare.kueue.KueueQueues.preemption_targets`, which this module calls). With the
preemptor's task :math:`w` of ClusterQueue :math:`x` added, target ClusterQueues :math:`y` are taken from
the root, at each cohort the child with the highest :math:`DRS` among those borrowing; candidates are
tried in ``CandidatesOrdering`` (other ClusterQueues first, then the most recently admitted, then the
launch order: the code's order, where the KEP's text also names workload size, see
:mod:`fairalloc.fairshare.kueue`). A candidate :math:`z` may be evicted when, with :math:`a_x, a_y` the
children of the least common ancestor on the paths to :math:`x` and :math:`y`,

* ``LessThanOrEqualToFinalShare`` (S2-a): :math:`DRS(a_x + w) \le DRS(a_y - z)`;
* ``LessThanInitialShare`` (S2-b): :math:`DRS(a_x + w) < DRS(a_y)`.

The default list is both, S2-a first, then S2-b on the candidates S2-a left (Kueue's default when
``fairSharing.preemptionStrategies`` is empty); a preemptor within its nominal quota on the contested
resources reclaims from borrowers unconditionally (``FairSharingPreemptWithinNominal``, on). Targets not
needed are given back (``fillBackWorkloads``); if no set of candidates makes the head fit, nothing is
evicted.

**The victim.** ``victim="requeue"`` (default; Kueue requeues an evicted workload, which keeps its
creation timestamp, so it is the oldest of its LocalQueue): the task goes back to the *front* of its
user's queue and will run its whole duration again when restarted. ``victim="kill"``: the task is dropped
and its job is reported ``killed`` (YARN's and Slurm's ``PreemptMode=CANCEL``).

**Lost work.** An evicted task that started at :math:`s` and is evicted at :math:`t` discards
:math:`d_r (t - s)` of each resource :math:`r` (CPU-seconds for a CPU column; :func:`lost_work`), counted
per event, per resource and per user (``result.preemptions``, ``result.stats["wasted_work"]``,
:func:`wasted_by_user`).

**Preemption loops.** A *loop* is an eviction of a task of user :math:`v` for user :math:`u` at time
:math:`t` when a task of :math:`u` was evicted for :math:`v` within the last ``loop_window`` seconds,
:math:`t - t' \le` ``loop_window`` (:class:`LoopCounter`): the two took the same resources from each other
back and forth (Kueue #3779, #9876 "preemption oscillation"; KAI #136). Loops are counted and flagged in
``result.preemptions``; they change nothing in the schedule.

Modelling choices (said where they matter): one pool (a :class:`~fairalloc.sim.ResourcePool`; Kueue admits
against quota, not nodes, and the quota of the cohort is at most the pool, so a task that fits the quota
fits the pool); one LocalQueue's head per ClusterQueue per tournament is its oldest pending task (ties:
the lower user index); workload priorities are not modelled (all equal); a requeued task runs its whole
duration again (no checkpoint).

:func:`reference_kueue_run` is the plain-Python reference (a specification and an oracle, O(N) per decision
and a tournament over the tree per admission; ``fa.simulate(..., engine="reference")``). The simulator runs
the same rules on its one compiled loop (:mod:`fairalloc.sim.kernels`): :func:`step` after each pass of the
decision core (the core's ``skip`` pass is the reference's admission), with the victims released through
the core and requeued as runs of one task at the front of their user's queue. The shares, the tournament
and the victim choice (:func:`fairalloc.fairshare.kueue.fair_preemption_into`) are
:mod:`fairalloc.fairshare.kueue`'s, written once, and both loops call them.

**YARN's fair-share preemption** is a second victim rule of the same :func:`step` (``cfg``'s rule entry,
:data:`YARN_RULE`; the settings and the semantics in :mod:`fairalloc.sim.yarn_preemption`, whose
:func:`~fairalloc.sim.yarn_preemption.reference_yarn_run` is its plain-Python oracle): the same state type (its
``y_*`` fields), the same eviction (:func:`_evict`), wake-ups and eviction table; the fair shares, the starvation
goal and ``canContainerBePreempted`` are :mod:`fairalloc.fairshare.yarn`'s.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from typing import Any, Mapping, NamedTuple

import numpy as np
import pandas as pd

from .._jit import jit
from .._merge_sort import sorter
from ..errors import InvalidInstanceError
from ..fairshare import kueue as _kq
from ..fairshare import yarn as _yarn
from ..scheduling.servers import _fits
from ..tolerance import FLOOR_EPS
from ..fairshare.kueue import VALID_STRATEGY_LISTS, KueueFairSharing, KueueQueues, drs_key, tournament_winner
from ..scheduling import core as C

__all__ = ["Preemption", "VICTIMS", "preemptible", "lost_work", "LoopCounter", "as_preemption",
           "reference_kueue_run", "wasted_by_user"]

#: What happens to an evicted task.
VICTIMS = ("requeue", "kill")


@dataclass(frozen=True)
class Preemption:
    """Preemption settings of the task simulator (module docstring), checked.

    Parameters
    ----------
    strategies : sequence of str, optional
        Kueue's ``fairSharing.preemptionStrategies``: one of
        :data:`~fairalloc.fairshare.kueue.VALID_STRATEGY_LISTS` (default both, S2-a first).
    min_run_time : float, optional
        Seconds a task must have run before it may be evicted (``minAdmitDuration`` / ``PreemptExemptTime``),
        ``>= 0``; default 0.
    victim : {"requeue", "kill"}
        Default ``"requeue"`` (to the front of its user's queue).
    loop_window : float, optional
        Seconds within which an eviction back counts as a loop, ``> 0``; default 3600. Reporting only.

    Raises
    ------
    InvalidInstanceError
        Naming the field and the value: an unknown strategy or a list Kueue refuses, a negative or NaN
        ``min_run_time``, an unknown ``victim``, a ``loop_window`` of 0 or below.

    Examples
    --------
    >>> Preemption().strategies
    ('LessThanOrEqualToFinalShare', 'LessThanInitialShare')
    >>> Preemption(min_run_time=-1)
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: preemption.min_run_time=-1 must be a number of seconds >= 0
    >>> Preemption(strategies=["Cheapest"])
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: preemption_strategies[0]='Cheapest' is not a Kueue preemption strategy; strategies: ['LessThanOrEqualToFinalShare', 'LessThanInitialShare']
    """

    strategies: tuple = VALID_STRATEGY_LISTS[2]
    min_run_time: float = 0.0
    victim: str = "requeue"
    loop_window: float = 3600.0

    def __post_init__(self) -> None:
        cfg = KueueFairSharing(preemption_strategies=self.strategies)      # checks the list (naming the field)
        object.__setattr__(self, "strategies", cfg.preemption_strategies)
        for name, strict in (("min_run_time", False), ("loop_window", True)):
            v = getattr(self, name)
            ok = isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
            if not ok or math.isnan(float(v)) or float(v) < 0 or (strict and float(v) == 0):
                raise InvalidInstanceError(f"preemption.{name}={v!r} must be a number of seconds "
                                           f"{'> 0' if strict else '>= 0'}", argument=f"preemption.{name}", value=v)
            object.__setattr__(self, name, float(v))
        if self.victim not in VICTIMS:
            raise InvalidInstanceError(f"preemption.victim={self.victim!r} must be one of {list(VICTIMS)}",
                                       argument="preemption.victim", value=self.victim)

    @property
    def fair_sharing(self) -> KueueFairSharing:
        """Kueue's configuration this reads as: the strategies, ``reclaimWithinCohort: Any``,
        ``withinClusterQueue: Never`` (no priorities), the default feature gates."""
        return KueueFairSharing(preemption_strategies=self.strategies, reclaim_within_cohort="Any")


def as_preemption(value: Any) -> Preemption | None:
    """``preemption=`` as given to a policy: None or False (off), True (defaults), a strategy name, a list of
    them, a mapping of :class:`Preemption`'s fields, or a :class:`Preemption`.

    Examples
    --------
    >>> as_preemption(None), as_preemption(True).victim, as_preemption("LessThanInitialShare").strategies
    (None, 'requeue', ('LessThanInitialShare',))
    >>> as_preemption({"min_run_time": 60, "victim": "kill"}).min_run_time
    60.0
    >>> as_preemption({"min_runtime": 60})
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: preemption: unknown field(s) ['min_runtime']; fields: ['strategies', 'min_run_time', 'victim', 'loop_window']
    """
    if value is None or value is False:
        return None
    if value is True:
        return Preemption()
    if isinstance(value, Preemption):
        return value
    if isinstance(value, str):
        return Preemption(strategies=(value,))
    if isinstance(value, Mapping):
        fields = ["strategies", "min_run_time", "victim", "loop_window"]
        extra = sorted(set(value) - set(fields))
        if extra:
            raise InvalidInstanceError(f"preemption: unknown field(s) {extra}; fields: {fields}", argument="preemption",
                                       value=extra)
        return Preemption(**dict(value))
    if isinstance(value, (list, tuple)):
        return Preemption(strategies=tuple(value))
    raise InvalidInstanceError(f"preemption={value!r} must be None, True, a strategy name, a list of them, a "
                               "mapping of settings or a Preemption", argument="preemption", value=repr(value)[:80])


def preemptible(start: float, now: float, min_run_time: float) -> bool:
    """Whether a task that started at ``start`` may be evicted at ``now``: it started before now and has run
    at least ``min_run_time`` seconds (module docstring).

    Examples
    --------
    >>> preemptible(0.0, 5.0, 5.0), preemptible(0.0, 4.0, 5.0), preemptible(3.0, 3.0, 0.0)
    (True, False, False)
    """
    return start < now and now - start >= min_run_time


def lost_work(demand: Any, start: float, now: float) -> np.ndarray:
    r"""The work an eviction at ``now`` discards, :math:`d_r (t - s)` per resource.

    Examples
    --------
    A task of 2 CPUs and 4 GB evicted after 30 s: 60 CPU-seconds and 120 GB-seconds:

    >>> lost_work([2.0, 4.0], 10.0, 40.0).tolist()
    [60.0, 120.0]
    """
    return np.asarray(demand, dtype=float) * (float(now) - float(start))


class LoopCounter:
    """Preemption loops (module docstring): an eviction of ``victim``'s task for ``preemptor`` at ``t`` is a
    loop when ``preemptor`` lost a task to ``victim`` within ``window`` seconds before.

    Examples
    --------
    >>> lc = LoopCounter(100.0)
    >>> lc.record(10.0, 0, 1), lc.record(50.0, 1, 0), lc.record(200.0, 0, 1), lc.loops
    (False, True, False, 1)
    """

    def __init__(self, window: float) -> None:
        self.window = float(window)
        self.last: dict[tuple[int, int], float] = {}      # (preemptor, victim) -> time of the last eviction
        self.loops = 0

    def record(self, t: float, preemptor: int, victim: int) -> bool:
        back = self.last.get((victim, preemptor))
        loop = bool(back is not None and t - back <= self.window)
        self.last[(preemptor, victim)] = t
        self.loops += loop
        return loop


def wasted_by_user(result: Any) -> pd.DataFrame:
    """Work discarded by evictions per user (rows) and resource (columns ``lost:<name>``), from
    ``result.preemptions``; users never evicted are absent.

    Examples
    --------
    See :func:`reference_kueue_run`.
    """
    tab = result.preemptions
    cols = [c for c in tab.columns if c.startswith("lost:")]
    return tab.groupby("victim_user")[cols].sum()


_TOURNAMENT: list = []


def _tournament():
    """:func:`fairalloc.fairshare.kueue.tournament_winner`, compiled from its one source (numba; the plain
    function under ``NUMBA_DISABLE_JIT=1``)."""
    if not _TOURNAMENT:
        from .._jit import jit
        from ..fairshare import _jit as _fsjit

        _fsjit.register()
        _TOURNAMENT.append(jit(tournament_winner))
    return _TOURNAMENT[0]


class RunInput(NamedTuple):
    """What the reference loops (:func:`reference_kueue_run`, :func:`fairalloc.sim.yarn_preemption.reference_yarn_run`)
    start from: the workload's arrays, the policy's account tree, the rows admitted (in submission order) and the
    empty run state."""
    pool: Any
    caps: np.ndarray
    k: int
    names: list
    sub: np.ndarray
    user_of: np.ndarray
    n_tasks: np.ndarray
    res: np.ndarray
    dur: np.ndarray
    n_users: int
    tree: Any
    rejected: list
    jobs: list
    queues: list        # per user: [job, tasks] FIFO (front = 0)
    start: np.ndarray
    end: np.ndarray
    killed: np.ndarray
    left: np.ndarray    # tasks not yet ended (done or killed)
    running: dict       # launch row -> task
    done_heap: list     # (end, launch row)
    rows: list          # job, start, end, killed, preempted
    events: list
    loops: LoopCounter
    wasted: np.ndarray
    wake: list


def run_input(workload: Any, capacity: Any, *, accounts: Any, weights: Any, policy: str, admitted: Any,
              loop_window: float) -> RunInput:
    """The reference loops' input preparation (:class:`RunInput`): ``policy``'s tree from
    :class:`~fairalloc.scheduling.production.QueueScheduler`, the rows ``admitted`` (default: those whose
    demand fits the pool; the others are rejected before the run), sorted by (submit, row)."""
    from ..scheduling.production import QueueScheduler, as_tree, cluster_resources
    from .cluster_state import ResourcePool

    pool = capacity if isinstance(capacity, ResourcePool) else ResourcePool(np.asarray(capacity, dtype=float))
    caps = np.asarray(pool.totals, dtype=float)
    k = len(caps)
    names = [str(x) for x in (getattr(workload, "resource_names", ()) or ())]
    if len(names) != k:
        names = [f"r{i}" for i in range(k)]
    sub = np.asarray(workload.submit, dtype=float)
    user_of = np.asarray(workload.user, dtype=np.int64)
    n_tasks = np.asarray(workload.tasks, dtype=np.int64)
    res = np.asarray(workload.resources, dtype=float).reshape(len(sub), k)
    dur = np.asarray(workload.run_time, dtype=float)
    n_users = int(user_of.max()) + 1 if len(user_of) else 1
    if weights is not None:
        n_users = max(n_users, len(np.atleast_1d(weights)))
    tree = QueueScheduler(caps[None, :], policy=policy, accounts=accounts, n_users=n_users, weights=weights,
                          resources=cluster_resources(names, k, as_tree(accounts))).tree
    if admitted is None:
        rejected = [(j, "wider than the pool") for j in range(len(sub)) if np.any(res[j] > caps)]
    else:
        rejected = list(admitted[1])
    bad = {j for j, _ in rejected}
    jobs = sorted((j for j in range(len(sub)) if j not in bad), key=lambda j: (sub[j], j))
    n = len(sub)
    return RunInput(pool, caps, k, names, sub, user_of, n_tasks, res, dur, n_users, tree, rejected, jobs,
                    [[] for _ in range(n_users)], np.full(n, np.nan), np.full(n, np.nan), np.zeros(n, dtype=bool),
                    n_tasks.copy(), {}, [], [], [], LoopCounter(loop_window), np.zeros(k), [])


def reference_kueue_run(workload: Any, capacity: Any, *, accounts: Any = None, weights: Any = None,
                        preemption: Any = True, policy_name: str = "kueue", admitted: Any = None,
                        shortcuts: bool = True, cycle: bool = True) -> Any:
    """Kueue's admission and fair-sharing preemption on a task workload, decision by decision (module docstring).

    Parameters
    ----------
    workload : Workload
        A task workload (``user``, ``tasks``, ``resources``, ``run_time``).
    capacity : array_like (K,) or ResourcePool
        One pool.
    accounts, weights
        As :class:`~fairalloc.sim.policies.container.ContainerPolicy` (Kueue's tree; default one ClusterQueue
        per user in a cohort holding the pool).
    preemption : optional
        :func:`as_preemption`'s forms; None or False: admission only (no eviction).
    policy_name : str
    shortcuts : bool, default True
        False: the plainest reading (Kueue's tournament through :meth:`KueueQueues.tournament`, every head
        tried in it, every preemptible task a candidate), a check of the three shortcuts of the default
        (the compiled tournament, refused heads set aside before it, candidates only from ClusterQueues
        that could lose one): the same schedule, slower.
    admitted : tuple (mask, rejected), optional
        The simulator's admission (:meth:`fairalloc.sim.Simulation.admissible`); default: the rows whose
        demand fits the pool.
    cycle : bool, default True
        True: Kueue's scheduling cycle (below). False: one admission per tournament, each ClusterQueue's
        next task competing at once (the order of the compiled ``kueue`` key, which the compiled loop's tests
        are held to; it differs from Kueue's cycle where a ClusterQueue could start several tasks at one
        instant and the room runs out, or where a ClusterQueue's nominee does not fit).

    Notes
    -----
    **Kueue's scheduling cycle** (``cycle=True``), as ``Scheduler.schedule`` in Kueue's
    ``pkg/scheduler/scheduler.go`` runs it: "1. Get the heads from the queues" (``Manager.heads``: one
    ``ClusterQueue.Pop`` per ClusterQueue, so **one nominee per ClusterQueue per cycle**, its oldest pending
    workload); "2. Take a snapshot"; "3." nominate against the snapshot (a nominee that does not fit is
    ``NoFit``); "4." order by the fair-sharing iterator (``fair_sharing_iterator.go``: ``pop`` runs the
    tournament over the ClusterQueues that still hold a nominee of this cycle, with the usage of the
    admissions made so far in the cycle, and removes the winner's ClusterQueue); "5." admit each in that
    order (``processEntry``: ``NoFit`` is not admitted; a nominee that fitted the snapshot but "no longer fits
    after processing another workload" is skipped); "6. Requeue the heads that were not scheduled"
    (``RequeueIfNotPresent`` in ``pkg/cache/queue/cluster_queue.go``, BestEffortFIFO: a ``NoFit`` nominee goes
    to the inadmissible workloads, so its ClusterQueue nominates its next workload in the next cycle; a
    skipped one is requeued at once, ``FailedAfterNomination``, and is the ClusterQueue's nominee again in
    the next cycle). Kueue's loop starts the next cycle at once while some ClusterQueue has a head
    (``Manager.Heads`` blocks only when none has). In this discrete-event reading a cycle takes no time: at
    each decision instant cycles run until one has no nominee (each cycle admits a task or sets every
    nominee aside, so this ends), and the next cycle after that starts at the next event. A task set aside
    (inadmissible) stays aside, also across instants, until a task of its cohort (the ClusterQueue itself
    without a cohort) ends or is evicted (``QueueAssociatedInadmissibleWorkloadsAfter``: quota freed in the
    cohort requeues its inadmissible workloads) or, with preemption, at a wake-up (the timer-based retry).
    Modelling choices: a LocalQueue is FIFO and its head stands for it (a head set aside sets its LocalQueue
    aside, as Kueue's equivalence hashing sets aside the job's other tasks of the same shape; a younger job of
    that LocalQueue waits behind it); the nominee of a ClusterQueue is the oldest head of its LocalQueues not
    set aside (ties: the lower user index, for Kueue's UID); the pool is checked beside the quota.

    Returns
    -------
    SimulationResult
        With ``preemptions`` (a table: ``time``, ``preemptor_user``, ``preemptor_job``, ``victim_user``,
        ``victim_job``, ``victim_start``, ``ran``, ``lost:<resource>``, ``loop``), ``launches`` with one row
        per task start and a ``preempted`` column, and ``stats`` ``preemptions``, ``preemption_loops``,
        ``wasted_work`` (per resource), ``decisions`` (task starts, restarts included).

    Examples
    --------
    A pool of 4 CPUs; user 0 (one ClusterQueue per user, nominal 0, the cohort holds the pool) fills it at
    0 with four 1-CPU tasks of 100 s; user 1 submits two at 10. By S2-a user 1's first task (its queue's
    DRS with it, 250 per mille) is at most user 0's without one task (750): one of user 0's tasks is
    evicted (the most recently admitted first; all four were admitted at 0, so the first launched, the
    workload order standing for Kueue's UID) and user 1's task starts; for
    user 1's second task 500 <= 500: a second eviction. The victims lost 10 s each (10 CPU-seconds),
    wait at the front of user 0's queue, and rerun from 100, when user 0's other two tasks end:

    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 10], run_time=[100, 100], tasks=[4, 2], user=[0, 1],
    ...                            resources=[[1.0], [1.0]])
    >>> r = reference_kueue_run(wl, [4.0])
    >>> r.preemptions[["time", "preemptor_user", "victim_user", "lost:r0"]].values.tolist()
    [[10.0, 1.0, 0.0, 10.0], [10.0, 1.0, 0.0, 10.0]]
    >>> r.jobs["end"].tolist(), r.stats["wasted_work"], r.stats["preemption_loops"]
    ([200.0, 110.0], {'r0': 20.0}, 0)
    >>> wasted_by_user(r)["lost:r0"].to_dict()
    {0: 20.0}
    """
    from .metrics import SimulationResult

    pre = as_preemption(preemption)
    (pool, caps, k, names, sub, user_of, n_tasks, res, dur, n_users, tree, rejected, jobs, queues, start, end, killed,
     left, running, done_heap, rows, events, loops, wasted, wake) = run_input(
        workload, capacity, accounts=accounts, weights=weights, policy="kueue", admitted=admitted,
        loop_window=pre.loop_window if pre is not None else math.inf)
    kq = KueueQueues(tree, resources=list(tree.resources))
    cfg = pre.fair_sharing if pre is not None else KueueFairSharing()
    lq = np.array([tree.node(str(u)) for u in range(n_users)], dtype=np.int64)
    cq_of = kq.parent[lq]
    usage = np.zeros((tree.n_nodes, k))
    free = caps.copy()
    decisions = 0

    def head(u: int) -> int:
        return queues[u][0][0]

    def admits(u: int, d: np.ndarray) -> bool:
        return kq.fits(usage, int(cq_of[u]), d) and bool(np.all(d <= free))

    n_nodes = tree.n_nodes
    has = np.zeros(n_nodes, dtype=bool)
    req = np.zeros((n_nodes, k))
    prio = np.zeros(n_nodes)
    stamp = np.zeros(n_nodes)
    work = usage.copy()
    play = _tournament()

    def order_heads(users: set[int]):
        """The users (one per ClusterQueue: its oldest head) in tournament order (Kueue's ``runTournament``
        from the root, :func:`~fairalloc.fairshare.kueue.tournament_winner`), one at a time."""
        rest = set(users)
        while rest:
            best: dict[int, int] = {}
            for u in sorted(rest):
                q = int(cq_of[u])
                b = best.get(q)
                if b is None or (sub[head(u)], u) < (sub[head(b)], b):
                    best[q] = u
            has[:] = False
            for q, u in best.items():
                has[q] = True
                req[q] = res[head(u)]
                stamp[q] = sub[head(u)]
            if not shortcuts:
                win = kq.tournament(usage, {q: res[head(u)] for q, u in best.items()},
                                    timestamp={q: float(sub[head(u)]) for q, u in best.items()}, config=cfg)
                u = best[win]
                yield u
                rest.discard(u)
                continue
            work[:] = usage
            win = int(play(0, kq.kind, kq.child_ptr, kq.children, kq.parent, has, req, prio, stamp, kq.subtree_quota,
                           kq.lending, work, kq.lendable, kq.group_of, kq.weight, cfg.prioritize_non_borrowing,
                           cfg.priority_sorting_within_cohort))
            u = best[win]
            yield u
            rest.discard(u)

    def start_task(u: int, now: float) -> None:
        nonlocal decisions
        entry = queues[u][0]
        j = entry[0]
        entry[1] -= 1
        if entry[1] == 0:
            queues[u].pop(0)
        d = res[j]
        free[:] -= d
        kq.add(usage, int(lq[u]), d)
        if np.isnan(start[j]):
            start[j] = now
        row = len(rows)
        rows.append([j, now, now + dur[j], False, False])
        running[row] = {"job": j, "user": u, "start": now}
        heapq.heappush(done_heap, (now + dur[j], row))
        decisions += 1

    def evict(row: int, preemptor: int, now: float) -> None:
        t = running.pop(row)
        j, v = t["job"], t["user"]
        d = res[j]
        free[:] += d
        kq.remove(usage, int(lq[v]), d)
        release(v)
        rows[row][2] = now
        rows[row][4] = True
        lost = lost_work(d, t["start"], now)
        wasted[:] += lost
        loop = loops.record(now, preemptor, v)
        events.append([now, preemptor, head(preemptor), v, j, t["start"], now - t["start"], *lost.tolist(), loop])
        if pre.victim == "kill":
            rows[row][3] = True
            killed[j] = True
            left[j] -= 1
            if left[j] == 0:
                end[j] = now
        elif queues[v] and queues[v][0][0] == j:
            queues[v][0][1] += 1
        else:
            queues[v].insert(0, [j, 1])

    top_of = np.arange(n_nodes, dtype=np.int64)                     # the child of the root above each node:
    for v in range(1, n_nodes):                                      # the cohort whose freed quota requeues
        while kq.parent[top_of[v]] > 0:                              # a ClusterQueue's inadmissible workloads
            top_of[v] = kq.parent[top_of[v]]
    held: set[int] = set()                                           # cycle=True: the LocalQueues set aside

    def release(u: int) -> None:
        """A task of user u ended or was evicted: its cohort's LocalQueues set aside are nominated again."""
        if cycle and held:
            g = top_of[cq_of[u]]
            held.difference_update([v for v in held if top_of[cq_of[v]] == g])

    def cycles(now: float) -> set[int]:
        """Kueue's scheduling cycles at ``now`` (Notes): per cycle one nominee per ClusterQueue (its oldest head
        not set aside), the nominees checked against the cycle's snapshot, then taken in tournament order: a
        nominee that did not fit the snapshot is set aside, one that still fits starts, one that fitted the
        snapshot but no longer fits stays its ClusterQueue's nominee for the next cycle. Returns the users set
        aside."""
        while True:
            nominee: dict[int, int] = {}
            for u in range(n_users):
                if queues[u] and u not in held:
                    q = int(cq_of[u])
                    b = nominee.get(q)
                    if b is None or (sub[head(u)], u) < (sub[head(b)], b):
                        nominee[q] = u
            if not nominee:
                return held
            fit = {u: admits(u, res[head(u)]) for u in nominee.values()}        # 3. against the snapshot
            for u in order_heads(set(nominee.values())):                         # 4.-5. the iterator's order
                if not fit[u]:
                    held.add(u)                                                  # NoFit: inadmissible
                elif admits(u, res[head(u)]):
                    start_task(u, now)
                # else skipped: "no longer fits after processing another workload", requeued immediately

    def pass_(now: float) -> set[int]:
        """Admission (skip): the tournament's winner starts if the quota and the pool admit its head task,
        else its user is set aside; returns the users set aside (``cycle=True``: :func:`cycles`)."""
        if cycle:
            return cycles(now)
        aside: set[int] = set()
        while True:
            open_ = set()
            for u in range(n_users):                                 # a head refused now is refused until the
                if queues[u] and u not in aside:                     # pass ends (free capacity and quota only
                    if not shortcuts or admits(u, res[head(u)]):     # shrink): aside at once, whatever its place
                        open_.add(u)
                    else:
                        aside.add(u)
            if not open_:
                return aside
            u = next(order_heads(open_))
            if shortcuts or admits(u, res[head(u)]):
                start_task(u, now)
            else:
                aside.add(u)

    def share_key(v: int, use: np.ndarray) -> tuple:
        """Kueue's ``CompareDRS`` key of node v at ``use`` (:func:`~fairalloc.fairshare.kueue.drs_key`)."""
        return drs_key(kq._drs(use, v)[0], float(kq.weight[v]))

    def preempt_once(aside: set[int], now: float) -> bool:
        """Kueue's fairPreemptions for the set-aside heads in tournament order; the first that finds victims
        has them evicted. Returns whether anything was evicted (and schedules a wake-up for exempt tasks).

        Only the candidates of ClusterQueues y with :math:`DRS(y) \\ge DRS(x + w)` are passed: no other can
        satisfy S2-a (:math:`DRS(x + w) \\le DRS(y - z) \\le DRS(y)`) or S2-b, and their shares only fall
        during the call; with one cohort level (the simulator refuses nested cohorts) the almost-LCAs are
        x and y. A preemptor within its nominal quota on the resources it needs takes every candidate
        (it reclaims unconditionally)."""
        cand = [r for r in sorted(running) if preemptible(running[r]["start"], now, pre.min_run_time)]
        by_cq: dict[int, list[int]] = {}                             # launch order (Kueue: the UID)
        for r in cand:
            by_cq.setdefault(int(cq_of[running[r]["user"]]), []).append(r)
        top = {q: share_key(q, usage) for q in by_cq}
        for u in order_heads(aside) if cand else ():
            x, d = int(cq_of[u]), res[head(u)]
            need = (d > 0) & (d > kq.available(usage, x))
            work[:] = usage
            kq.add(work, x, d)
            within = not np.any(work[x][need] > kq.subtree_quota[x][need])
            mine = share_key(x, work)
            ok = sorted(r for q, rs in by_cq.items() if not shortcuts or (q != x and (within or top[q] >= mine))
                        for r in rs)
            if not ok:
                continue
            wl = {"cq": [int(cq_of[running[r]["user"]]) for r in ok],
                  "request": [res[running[r]["job"]] for r in ok],
                  "admitted_at": [running[r]["start"] for r in ok],
                  "timestamp": [float(sub[running[r]["job"]]) for r in ok]}
            targets = kq.preemption_targets(usage, x, d, wl, config=cfg, timestamp=float(sub[head(u)]))
            if targets:
                for i, _why in targets:
                    evict(ok[i], u, now)
                return True
        if pre.min_run_time > 0:                                     # wake when an exempt task may be evicted
            later = [t["start"] + pre.min_run_time for t in running.values() if t["start"] + pre.min_run_time > now]
            if aside and later:
                heapq.heappush(wake, min(later))
        return False

    i = 0
    n = len(jobs)
    while True:
        now = math.inf
        while done_heap and done_heap[0][1] not in running:         # evicted: dropped lazily
            heapq.heappop(done_heap)
        if done_heap:
            now = done_heap[0][0]
        if i < n:
            now = min(now, sub[jobs[i]])
        if wake:
            now = min(now, wake[0])
        if now == math.inf:
            break
        while wake and wake[0] <= now:
            heapq.heappop(wake)
            held.clear()                                             # the timer-based retry
        while done_heap and done_heap[0][0] == now:                  # 1. completions
            _, row = heapq.heappop(done_heap)
            t = running.pop(row, None)
            if t is None:
                continue
            j, u = t["job"], t["user"]
            free[:] += res[j]
            kq.remove(usage, int(lq[u]), res[j])
            release(u)
            left[j] -= 1
            if left[j] == 0:
                end[j] = now
        while i < n and sub[jobs[i]] == now:                         # 2. arrivals
            j = jobs[i]
            queues[int(user_of[j])].append([j, int(n_tasks[j])])
            i += 1
        aside = pass_(now)                                           # 3. decisions
        while pre is not None and aside and preempt_once(aside, now):
            aside = pass_(now)
    launches = {"job": np.array([r[0] for r in rows], dtype=np.int64), "tasks": np.ones(len(rows), dtype=np.int64),
                "server": np.zeros(len(rows), dtype=np.int64), "start": np.array([r[1] for r in rows], dtype=float),
                "end": np.array([r[2] for r in rows], dtype=float), "killed": np.array([r[3] for r in rows], dtype=bool),
                "preempted": np.array([r[4] for r in rows], dtype=bool)}
    stats = {"decisions": decisions, "preemptions": len(events), "preemption_loops": loops.loops,
             "wasted_work": {nm: float(x) for nm, x in zip(names, wasted)}, "engine": "reference"}
    pool.bind(workload)
    result = SimulationResult.from_run(workload, start=start, end=end, killed=killed, rejected=rejected,
                                       launches=launches, policy=policy_name, state=pool, enforce_walltime=False,
                                       stats=stats)
    cols = ["time", "preemptor_user", "preemptor_job", "victim_user", "victim_job", "victim_start", "ran"]
    cols += [f"lost:{nm}" for nm in names] + ["loop"]
    result.preemptions = pd.DataFrame(events, columns=cols).astype(
        {"preemptor_user": np.int64, "preemptor_job": np.int64, "victim_user": np.int64, "victim_job": np.int64,
         "loop": bool})
    return result


# ---- the same rules on the simulator's compiled loop (:mod:`fairalloc.sim.kernels`) -------------------------
#: :func:`step`'s answers: nothing evicted, evictions made (run the pass again), room wanted (:func:`make_room`).
NONE, EVICTED, ROOM = 0, 1, 2
# meta fields: events written, wake-ups held, runs used (the run table's rows), rows wanted by the last check
_NEV, _NWAKE, _NRUNS, _NEED = range(4)
_ON = 4                                             # cfg's entry: 1 when the policy preempts
_RULE = 5                                           # cfg's last entry: the victim rule, KUEUE_RULE or YARN_RULE
#: The victim rules of :func:`step`: Kueue's fair-sharing preemption, YARN's fair-share preemption.
KUEUE_RULE, YARN_RULE = 0, 1
# YARN's float settings (y_par): units per total, utilization threshold
_Y_UNITS, _Y_UTIL = range(2)


class PreemptState(NamedTuple):
    """The compiled loop's preemption (:func:`step`): the settings, the Kueue tree's shape, the run -> job map
    of requeued tasks, the eviction events written, the pending wake-ups and the work arrays; N users, G
    nodes, K columns, C candidate rows."""

    par: np.ndarray          #: (1,) min_run_time
    cfg: np.ndarray          #: int64 (6,) kill, prioritize_non_borrowing, priority_sorting, preempt_within_nominal, on,
    #:                          the victim rule (KUEUE_RULE, YARN_RULE)
    strategies: np.ndarray   #: int64 strategy codes (fairshare.kueue.S2A, S2B)
    meta: np.ndarray         #: int64 (4,) _NEV, _NWAKE, _NRUNS, _NEED
    kind: np.ndarray         #: (G,) Kueue node kinds
    child_ptr: np.ndarray    #: (G + 1,)
    children: np.ndarray
    job: np.ndarray          #: (R,) the job of each run (a requeued task is a run of one task at its user's front)
    ev_t: np.ndarray         #: (E,) eviction times
    ev_i: np.ndarray         #: (E, 5) preemptor user, preemptor job, victim user, victim job, the victim's log row
    ev_s: np.ndarray         #: (E,) the victim's start
    wheap: np.ndarray        #: (W,) pending wake-ups (a binary heap)
    c_ent: np.ndarray        #: (C,) candidates: heap entry
    c_cq: np.ndarray         #: (C,) ClusterQueue
    c_adm: np.ndarray        #: (C,) start (admission)
    c_ts: np.ndarray         #: (C,) submission
    c_req: np.ndarray        #: (C, K) request
    c_tmp: np.ndarray        #: (C,) merge-sort scratch
    o_idx: np.ndarray        #: (C,) the candidates passed to the targets' rule (index into c_*)
    o_cq: np.ndarray
    o_adm: np.ndarray
    o_ts: np.ndarray
    o_req: np.ndarray
    o_ev: np.ndarray         #: (C,) bool, all False (no workload is being evicted when a check starts)
    o_pr: np.ndarray         #: (C,) zeros (no priorities)
    mark: np.ndarray         #: (C,) bool
    cands: np.ndarray        #: (C,)
    grouped: np.ndarray
    retry: np.ndarray
    tgt: np.ndarray
    why: np.ndarray
    has: np.ndarray          #: (G,) bool: tournament nominees / ClusterQueues with candidates
    best: np.ndarray         #: (G,) int64: each ClusterQueue's nominee (user)
    req_n: np.ndarray        #: (G, K) nominee requests
    prio: np.ndarray         #: (G,) zeros
    stamp: np.ndarray        #: (G,) nominee timestamps
    top_t: np.ndarray        #: (G,) int64 drs_key tier of each ClusterQueue with candidates
    top_v: np.ndarray        #: (G,) drs_key value
    cnt: np.ndarray          #: (G,) int64 scratch of the targets' rule
    seg_cur: np.ndarray
    seg_end: np.ndarray
    pruned_cq: np.ndarray    #: (G,) bool
    pruned_co: np.ndarray
    anc: np.ndarray
    order: np.ndarray        #: (G,) int64 tournament scratch
    stack: np.ndarray
    winner: np.ndarray
    save: np.ndarray         #: (G, K)
    uw: np.ndarray           #: (G, K) working usage
    work: np.ndarray         #: (n_resources,)
    need: np.ndarray         #: (K,) bool
    rest: np.ndarray         #: (N,) bool: heads not yet tried
    # YARN's fair-share preemption (:mod:`fairalloc.sim.yarn_preemption`); G nodes of the YARN tree
    y_par: np.ndarray        #: (2,) units per total, utilization threshold
    y_pre: np.ndarray        #: (G,) int64 the tree's nodes in preorder (children: child_ptr, children)
    y_min: np.ndarray        #: (G, K) min shares in units
    y_max: np.ndarray        #: (G, K) max shares in units (inf: unset)
    y_scale: np.ndarray      #: (K,) units per amount (units / total)
    y_tot: np.ndarray        #: (K,) units (the cluster counted in units)
    y_thr: np.ndarray        #: (N,) each application's fairSharePreemptionThreshold
    y_tmo: np.ndarray        #: (N,) each application's fairSharePreemptionTimeout
    y_since: np.ndarray      #: (N,) start of the application's current time below its goal (inf: not below)
    y_fair: np.ndarray       #: (G, K) instantaneous fair shares in units
    y_act: np.ndarray        #: (G,) bool: a runnable application below
    y_was: np.ndarray        #: (G,) bool: ``y_act`` when ``y_fair`` was computed (its only variable input)
    y_dem: np.ndarray        #: (N, K) demand (held + pending) in units
    y_s: np.ndarray          #: (N, K) starvation in units (rows of the starved applications)
    y_list: np.ndarray       #: (N,) int64 the applications starved for their timeout, in order
    y_sw: np.ndarray         #: (G,) siblings' weights (scratch of compute_shares_into)
    y_smin: np.ndarray       #: (G,)
    y_smax: np.ndarray       #: (G,)
    y_sact: np.ndarray       #: (G,) bool
    y_sout: np.ndarray       #: (G,)
    y_sfree: np.ndarray      #: (G,) bool
    y_take: np.ndarray       #: (N, K) taken from each application in one search (raw amounts)
    y_vec: np.ndarray        #: (3, K) scratch: usage, goal, potential
    y_cnt: np.ndarray        #: (C,) int64 tasks chosen from each candidate launch in one search


def new_state(pre: Any, kq: Any, n_users: int, n_jobs: int, k: int, rows: int = 256) -> PreemptState:
    """A :class:`PreemptState` for ``pre`` on Kueue's tree ``kq`` (the core's queue tree's), ``n_jobs`` jobs
    (runs ``0 .. n_jobs - 1`` are the jobs), room for ``rows`` candidates, events and requeued runs (grown by
    :func:`make_room`).

    ``pre=None`` (and ``kq=None``): the state of a queue policy that does not preempt, with every array
    empty or of one row: :func:`step` returns at once (``cfg``'s last entry 0), :func:`job_of` is the
    identity and :func:`next_wake` has no wake-up. Every queue policy passes one (this or a live one), so
    numba compiles the queue core's loop once, with the preemption code in it, not twice (with and
    without): a cold compile of the whole loop again costs more than 100 CPU seconds, in every CI leg."""
    i64, f64 = np.int64, np.float64
    on = pre is not None
    if on and not isinstance(pre, Preemption):
        return _yarn_state(pre, kq, n_users, n_jobs, k, rows)
    if not on:
        rows, g, n_res = 1, 0, 0
        pars, flags, strategies = [0.0], [0, 0, 0, 0, 0, 0], np.zeros(0, i64)
        kind, child_ptr, children = np.zeros(0, i64), np.zeros(1, i64), np.zeros(0, i64)
    else:
        g, n_res = kq.tree.n_nodes, kq.lendable.shape[1]
        cfg = pre.fair_sharing
        codes = {"LessThanOrEqualToFinalShare": 0, "LessThanInitialShare": 1}
        pars = [pre.min_run_time]
        flags = [pre.victim == "kill", cfg.prioritize_non_borrowing, cfg.priority_sorting_within_cohort,
                 cfg.preempt_within_nominal, 1, KUEUE_RULE]
        strategies = np.array([codes[s] for s in pre.strategies], dtype=i64)
        kind, child_ptr, children = (np.asarray(kq.kind, dtype=i64), np.asarray(kq.child_ptr, dtype=i64),
                                     np.asarray(kq.children, dtype=i64))
    return PreemptState(
        par=np.array(pars, dtype=f64),
        cfg=np.array(flags, dtype=i64),
        strategies=strategies,
        meta=np.array([0, 0, n_jobs, 0], dtype=i64), kind=kind, child_ptr=child_ptr, children=children,
        job=np.arange(n_jobs + rows, dtype=i64), ev_t=np.zeros(rows), ev_i=np.zeros((rows, 5), i64), ev_s=np.zeros(rows),
        wheap=np.zeros(rows), c_ent=np.zeros(rows, i64), c_cq=np.zeros(rows, i64), c_adm=np.zeros(rows),
        c_ts=np.zeros(rows), c_req=np.zeros((rows, k)), c_tmp=np.zeros(rows, i64), o_idx=np.zeros(rows, i64),
        o_cq=np.zeros(rows, i64), o_adm=np.zeros(rows), o_ts=np.zeros(rows), o_req=np.zeros((rows, k)),
        o_ev=np.zeros(rows, np.bool_), o_pr=np.zeros(rows), mark=np.zeros(rows, np.bool_), cands=np.zeros(rows, i64),
        grouped=np.zeros(rows, i64), retry=np.zeros(rows, i64), tgt=np.zeros(rows, i64), why=np.zeros(rows, i64),
        has=np.zeros(g, np.bool_), best=np.zeros(g, i64), req_n=np.zeros((g, k)), prio=np.zeros(g), stamp=np.zeros(g),
        top_t=np.zeros(g, i64), top_v=np.zeros(g), cnt=np.zeros(g, i64), seg_cur=np.zeros(g, i64),
        seg_end=np.zeros(g, i64), pruned_cq=np.zeros(g, np.bool_), pruned_co=np.zeros(g, np.bool_),
        anc=np.zeros(g, np.bool_), order=np.zeros(g, i64), stack=np.zeros(g, i64), winner=np.zeros(g, i64),
        save=np.zeros((g, k)), uw=np.zeros((g, k), f64), work=np.zeros(n_res),
        need=np.zeros(k, np.bool_), rest=np.zeros(n_users, np.bool_), **_yarn_arrays(None, 0, 0, k, rows))


def _yarn_arrays(y: dict | None, g: int, n: int, k: int, rows: int) -> dict:
    """The ``y_*`` fields of :class:`PreemptState`: YARN's tree and settings from ``y`` (None: empty arrays)."""
    f64 = np.float64
    out = dict(y_par=np.zeros(2), y_pre=np.zeros(g, np.int64), y_min=np.zeros((g, k)), y_max=np.zeros((g, k)),
               y_scale=np.ones(k), y_tot=np.ones(k), y_thr=np.zeros(n), y_tmo=np.zeros(n), y_since=np.full(n, np.inf),
               y_fair=np.zeros((g, k)), y_act=np.zeros(g, np.bool_), y_was=np.zeros(g, np.bool_),
               y_dem=np.zeros((n, k)), y_s=np.zeros((n, k)),
               y_list=np.zeros(n, np.int64), y_sw=np.zeros(g), y_smin=np.zeros(g), y_smax=np.zeros(g),
               y_sact=np.zeros(g, np.bool_), y_sout=np.zeros(g, f64), y_sfree=np.zeros(g, np.bool_),
               y_take=np.zeros((n, k)), y_vec=np.zeros((3, k)), y_cnt=np.zeros(rows, np.int64))
    if y is not None:
        out.update(y)
    return out


def _yarn_state(pre: Any, yq: Any, n_users: int, n_jobs: int, k: int, rows: int) -> PreemptState:
    """A live :class:`PreemptState` of YARN's fair-share preemption (:mod:`fairalloc.sim.yarn_preemption`):
    ``yq`` is (a :class:`~fairalloc.fairshare.yarn.YarnQueues` of the queue core's tree, whose users are the
    simulator's; the cluster's totals): the Kueue arrays empty, the ``y_*`` fields filled."""
    from .yarn_preemption import UNITS, settings

    yq, totals = yq
    base = new_state(None, None, n_users, n_jobs, k, rows=rows)
    base = base._replace(job=np.arange(n_jobs + rows, dtype=np.int64),
                         **{f: np.zeros((rows,) + getattr(base, f).shape[1:], getattr(base, f).dtype)
                            for f in _ROW_FIELDS})
    t = yq.tree
    g = t.n_nodes
    node = np.array([t.node(str(u)) for u in range(n_users)], dtype=np.int64)
    thr, tmo = settings(yq, pre, n_users, node)
    lo, hi = yq.scaled_shares(totals, UNITS)
    fair = np.zeros((g, k))                         # the fair shares with no runnable application (y_was)
    fair[0] = float(UNITS)
    y = dict(y_par=np.array([float(UNITS), float(pre.utilization_threshold)]),
             y_pre=np.array(t.preorder, dtype=np.int64), y_min=lo, y_max=hi,
             y_scale=float(UNITS) / np.asarray(totals, dtype=float), y_tot=np.full(k, float(UNITS)),
             y_thr=np.asarray(thr, dtype=float), y_tmo=np.asarray(tmo, dtype=float), y_fair=fair)
    arrays = _yarn_arrays(y, g, n_users, k, rows)
    return base._replace(par=np.array([0.0]), cfg=np.array([pre.victim == "kill", 0, 0, 0, 1, YARN_RULE], np.int64),
                         child_ptr=np.array(t.fs_child_ptr, dtype=np.int64),     # (copies: the tree's are
                         children=np.array(t.fs_children, dtype=np.int64),       # read-only, another numba type)
                         rest=np.zeros(n_users, np.bool_),
                         **arrays)


_ROW_FIELDS = ("ev_t", "ev_i", "ev_s", "wheap", "c_ent", "c_cq", "c_adm", "c_ts", "c_req", "c_tmp", "o_idx", "o_cq",
               "o_adm", "o_ts", "o_req", "o_ev", "o_pr", "mark", "cands", "grouped", "retry", "tgt", "why", "y_cnt")


def make_room(ps: PreemptState, runs: Any) -> tuple[PreemptState, Any]:
    """``ps`` and the core's run table with room for what :func:`step` asked (``meta[_NEED]`` more rows)."""
    from ..scheduling.core import RunTable

    need = int(ps.meta[_NEED])
    m = 2 * (max(int(ps.meta[_NEV]), int(ps.meta[_NWAKE])) + need) + 16
    grown = {}
    for name in _ROW_FIELDS:
        a = getattr(ps, name)
        if a.shape[0] < m:
            b = np.zeros((m,) + a.shape[1:], a.dtype)
            b[:a.shape[0]] = a
            grown[name] = b
    r = int(ps.meta[_NRUNS]) + need
    if r > runs.user.shape[0]:
        m = 2 * r
        runs = RunTable(*(np.concatenate([a, np.full((m - a.shape[0],) + a.shape[1:], -1 if j == 5 else 0, a.dtype)])
                          for j, a in enumerate(runs)))
        grown["job"] = np.concatenate([ps.job, np.arange(ps.job.shape[0], m, dtype=np.int64)])
    return ps._replace(**grown), runs


@jit(_nrt=False)
def job_of(ps, r):
    """The job of run ``r`` (the run itself without preemption)."""
    if ps is None:
        return r
    return ps.job[r]


@jit(_nrt=False)
def next_wake(ps, now, w):
    """The earlier of ``w`` and the first pending wake-up after ``now`` (those at or before now are done)."""
    if ps is None:
        return w
    h = ps.wheap
    while ps.meta[_NWAKE] > 0 and h[0] <= now:
        n = ps.meta[_NWAKE] - 1
        ps.meta[_NWAKE] = n
        h[0] = h[n]
        c = 0
        while True:
            x = 2 * c + 1
            if x >= n:
                break
            if x + 1 < n and h[x + 1] < h[x]:
                x += 1
            if h[c] <= h[x]:
                break
            h[c], h[x] = h[x], h[c]
            c = x
    if ps.meta[_NWAKE] > 0 and h[0] < w:
        return h[0]
    return w


@jit(_nrt=False)
def _push_wake(ps, t):
    h = ps.wheap
    c = ps.meta[_NWAKE]
    h[c] = t
    ps.meta[_NWAKE] = c + 1
    while c > 0:
        p = (c - 1) >> 1
        if h[p] <= h[c]:
            break
        h[p], h[c] = h[c], h[p]
        c = p


@jit(_nrt=False)
def _cand_before(ctx, a, b):
    """Whether candidate ``a`` goes before ``b`` (``ctx = (ps, hint, cq)``): by launch (``hint``'s sequence of the
    candidates' heap entries ``c_ent``) when ``cq`` is -1, else by Kueue's candidate order for the preemptor's
    ClusterQueue ``cq`` (:func:`candidates_cmp`, without AFS)."""
    ps, hint, cq = ctx
    if cq < 0:
        return hint[ps.c_ent[a], 0] < hint[ps.c_ent[b], 0]
    return _kq.candidates_cmp(a, b, False, cq, ps.o_ev, ps.o_cq, ps.o_cq, ps.o_adm, ps.o_pr, ps.o_adm) < 0


_sort_candidates = sorter(_cand_before, "preemption_candidates")


@jit(_nrt=False)
def _sort(ps, n, hint, cq):
    """``ps.cands[:n]`` sorted, stably, by :func:`_cand_before` (scratch ``ps.c_tmp``). (One int64 argument ``cq``,
    not a literal flag, and counts typed int64 from their start: numba compiles one signature per literal value.)"""
    _sort_candidates(ps.cands, ps.c_tmp, np.int64(0), n, (ps, hint, cq))


@jit(_nrt=False)
def _next_head(ps, st, runs, qs):
    """The next head in Kueue's tournament order (``runTournament`` from the root over each ClusterQueue's
    oldest head among those not yet tried, :func:`fairalloc.fairshare.kueue.tournament_winner`), taken out."""
    g = ps.has.shape[0]
    for q in range(g):
        ps.has[q] = False
    for u in range(ps.rest.shape[0]):
        if not ps.rest[u]:
            continue
        q = qs.queue[u]
        if ps.has[q]:
            b = ps.best[q]
            su, sb = runs.sub[st.qhead[u]], runs.sub[st.qhead[b]]
            if not (su < sb or (su == sb and u < b)):
                continue
        ps.has[q] = True
        ps.best[q] = u
        ps.stamp[q] = runs.sub[st.qhead[u]]
        d = runs.d[st.qhead[u]]
        for r in range(d.shape[0]):
            ps.req_n[q, r] = d[r]
    win = _kq.tournament_winner_into(0, ps.kind, ps.child_ptr, ps.children, qs.parent, ps.has, ps.req_n, ps.prio,
                                     ps.stamp, qs.quota, qs.limit, qs.usage, qs.lam, qs.group_of, qs.w,
                                     ps.cfg[1] != 0, ps.cfg[2] != 0, ps.work, ps.save, ps.order, ps.stack, ps.winner)
    u = ps.best[win]
    ps.rest[u] = False
    return u


@jit(_nrt=False)
def _path_copy(usage, parent, x, save, keep):
    """The usage rows of x and its ancestors into ``save`` (``keep``), or back from it."""
    node = x
    d = 0
    while node >= 0:
        for r in range(usage.shape[1]):
            if keep:
                save[d, r] = usage[node, r]
            else:
                usage[node, r] = save[d, r]
        node = parent[node]
        d += 1


@jit(_nrt=False)
def _key_ge(t1, v1, t2, v2):
    return t1 > t2 or (t1 == t2 and v1 >= v2)


@jit(_nrt=False)
def _evict(ps, st, runs, ts, e, u, now, hint, lp, lk, lm, lt0, lt1, lkill, n_log, rem, end, killed, user):
    """One task of the launch in heap entry ``e`` evicted at ``now`` for user ``u``'s head: released, logged
    (its launch row one task shorter, a row of its own ending now), requeued at the front of its user's queue
    or killed. Returns the log's length."""
    p = hint[e, 1]
    m = hint[e, 3]
    row = hint[e, 0] - 1
    s = lt0[row]
    v = user[p]
    kill = ps.cfg[0] != 0
    hint[e, 2] -= 1
    lk[row] -= 1
    lp[n_log] = p
    lk[n_log] = 1
    lm[n_log] = m
    lt0[n_log] = s
    lt1[n_log] = now
    lkill[n_log] = kill
    i = ps.meta[_NEV]
    ps.ev_t[i] = now
    ps.ev_i[i, 0] = u
    ps.ev_i[i, 1] = ps.job[st.qhead[u]]
    ps.ev_i[i, 2] = v
    ps.ev_i[i, 3] = p
    ps.ev_i[i, 4] = n_log
    ps.ev_s[i] = s
    ps.meta[_NEV] = i + 1
    C.release(st, runs, v, p, np.int64(1), m)
    if kill:
        killed[p] = True
        rem[p] -= 1
        if rem[p] == 0:
            end[p] = now
    else:
        h = st.qhead[v]
        if h >= 0 and ps.job[h] == p:               # its job heads the queue: one more pending task of it
            runs.left[h] += 1
        else:                                       # a run of one task at the front
            r = ps.meta[_NRUNS]
            ps.meta[_NRUNS] = r + 1
            ps.job[r] = p
            runs.user[r] = v
            runs.left[r] = 1
            runs.next_id[r] = 0
            runs.sub[r] = runs.sub[p]
            for x in range(runs.d.shape[1]):
                runs.d[r, x] = runs.d[p, x]
            runs.h[r] = runs.h[p]
            runs.nxt[r] = h
            st.qhead[v] = r
            if h < 0:
                st.qtail[v] = r
        if st.n_pending[v] == 0:                    # idle: back in the order (then, below, its queue's
            st.meta[C._ACTIVE] += 1                 # others re-keyed; its own key, just set, is set again)
            st.n_pending[v] = 1
            C._activate(st, runs, ts, v)
        else:
            st.n_pending[v] += 1
    C.changed(st, runs, ts, v)                      # (one call site: the core inlines it and its `regroup`, large
    return n_log + 1                                # bodies; a second `regroup` here cost ~1/3 of this compile)


@jit(_nrt=False)
def _yarn_fair_shares(ps, qs):
    """YARN's instantaneous fair shares in units (``ps.y_fair``), from the root down over the runnable
    applications ``ps.y_act`` (:func:`fairalloc.fairshare.yarn.compute_shares_into` per resource among siblings,
    as :meth:`~fairalloc.fairshare.yarn.YarnQueues.fair_shares` with ``units``). The shares depend on nothing else
    that changes during a run (weights, min and max shares and the totals are fixed): they are kept from the last
    call (``ps.y_was``) while the runnable set is the same."""
    k = ps.y_tot.shape[0]
    same = True
    for v in range(ps.y_act.shape[0]):
        if ps.y_act[v] != ps.y_was[v]:
            same = False
            ps.y_was[v] = ps.y_act[v]
    if same:
        return
    for r in range(k):
        ps.y_fair[0, r] = ps.y_tot[r]
    for i in range(ps.y_pre.shape[0]):
        v = ps.y_pre[i]
        lo, hi = ps.child_ptr[v], ps.child_ptr[v + 1]
        n = hi - lo
        if n == 0:
            continue
        for r in range(k):
            for j in range(n):
                c = ps.children[lo + j]
                ps.y_sw[j] = qs.w[c]
                ps.y_smin[j] = ps.y_min[c, r]
                ps.y_smax[j] = ps.y_max[c, r]
                ps.y_sact[j] = ps.y_act[c]
            _yarn.compute_shares_into(ps.y_sw[:n], ps.y_smin[:n], ps.y_smax[:n], ps.y_sact[:n], ps.y_fair[v, r],
                                      False, ps.y_sout[:n], ps.y_sfree[:n])
            for j in range(n):
                ps.y_fair[ps.children[lo + j], r] = ps.y_sout[j]


@jit(_nrt=False)
def _yarn_step(ps, st, runs, ts, now, hint, hs, lp, lk, lm, lt0, lt1, lkill, n_log, rem, end, killed, user):
    """:func:`step` for YARN's fair-share preemption (:mod:`fairalloc.sim.yarn_preemption`, whose
    :func:`~fairalloc.sim.yarn_preemption.reference_yarn_run` states it in plain Python): every application's
    time below its goal; above the utilization threshold, for each application starved for its timeout (in
    index order) its head request's containers, each from the candidates most recently launched first that
    ``can_preempt`` lets go, until the request fits."""
    qs = st.qs
    n_users = ps.y_since.shape[0]
    k = runs.d.shape[1]
    anyp = False
    for u in range(n_users):
        if st.n_pending[u] > 0:
            anyp = True
            break
    if not anyp:                                    # no demand beyond usage: nobody below its goal
        for u in range(n_users):
            ps.y_since[u] = np.inf
        return NONE, n_log
    n_run = np.int64(0)
    for e in range(hs):
        n_run += hint[e, 2]
    if (hs > ps.c_ent.shape[0] or ps.meta[_NEV] + n_run > ps.ev_t.shape[0]
            or ps.meta[_NWAKE] + n_users > ps.wheap.shape[0] or ps.meta[_NRUNS] + n_run > runs.user.shape[0]
            or n_log + n_run > lp.shape[0]):
        ps.meta[_NEED] = max(n_run, np.int64(n_users)) + 1
        return ROOM, n_log
    ps.meta[_NEED] = 0
    sc = ps.y_scale
    g = ps.y_act.shape[0]
    for v in range(g):
        ps.y_act[v] = False
    for u in range(n_users):                        # the runnable applications
        v = qs.node[u]
        if st.n_pending[u] > 0 or qs.nrun[v] > 0:
            while v >= 0 and not ps.y_act[v]:
                ps.y_act[v] = True
                v = qs.parent[v]
    _yarn_fair_shares(ps, qs)
    use, goal, pot = ps.y_vec[0], ps.y_vec[1], ps.y_vec[2]
    n_st = 0
    for u in range(n_users):                        # the timers
        v = qs.node[u]
        for r in range(k):
            use[r] = qs.usage[v, r] * sc[r]
            ps.y_dem[u, r] = np.inf
        # G = min(floor(theta F), D) <= floor(theta F) coordinate-wise, so usage below G is below floor(theta F)
        # too (a dominant share is monotone): the demand (held + pending) is summed only when that holds
        _yarn.starvation_goal_into(ps.y_fair[v], ps.y_dem[u], ps.y_thr[u], goal)
        if _yarn.usage_below_share(use, goal, ps.y_tot):
            for r in range(k):
                ps.y_dem[u, r] = qs.usage[v, r]
            h = st.qhead[u]
            while h >= 0:
                for r in range(k):
                    ps.y_dem[u, r] += runs.left[h] * runs.d[h, r]
                h = runs.nxt[h]
            for r in range(k):
                ps.y_dem[u, r] *= sc[r]
            _yarn.starvation_goal_into(ps.y_fair[v], ps.y_dem[u], ps.y_thr[u], goal)
        if not _yarn.usage_below_share(use, goal, ps.y_tot):
            ps.y_since[u] = np.inf
            continue
        if ps.y_since[u] == np.inf:
            ps.y_since[u] = now
            if ps.y_tmo[u] > 0.0 and ps.y_tmo[u] < np.inf:
                _push_wake(ps, now + ps.y_tmo[u])
        if now - ps.y_since[u] >= ps.y_tmo[u]:
            ps.y_list[n_st] = u
            n_st += 1
            for r in range(k):
                x = goal[r] - use[r]
                ps.y_s[u, r] = x if x > 0.0 else 0.0
    util = 0.0
    for r in range(k):
        x = qs.usage[0, r] / qs.tot[r]
        if x > util:
            util = x
    if n_st == 0 or not util > ps.y_par[_Y_UTIL]:
        return NONE, n_log
    n_e = np.int64(0)                               # candidate launches, most recently launched first
    for e in range(hs):
        if lt0[hint[e, 0] - 1] < now:
            ps.c_ent[n_e] = e
            ps.cands[n_e] = n_e
            n_e += 1
    _sort(ps, n_e, hint, np.int64(-1))
    for j in range(n_e):
        ps.c_tmp[j] = ps.c_ent[ps.cands[n_e - 1 - j]]
    evicted = False
    n_scan = np.int64(0)
    for i in range(n_st):
        u = ps.y_list[i]
        h = st.qhead[u]
        d = runs.d[h]
        ratio = 0.0
        for r in range(k):
            if d[r] > 0.0:
                x = ps.y_s[u, r] / (d[r] * sc[r])
                if x > ratio:
                    ratio = x
        n_want = np.int64(math.floor(ratio))
        if n_want > runs.left[h]:
            n_want = runs.left[h]
        for r in range(k):
            goal[r] = 0.0                           # (goal: what earlier containers of u claimed)
        for _ in range(n_want):
            for r in range(k):
                x = st.free[0, r] - goal[r]
                pot[r] = x if x > 0.0 else 0.0
            for w in range(n_users):
                for r in range(k):
                    ps.y_take[w, r] = 0.0
            ok = False
            for j in range(n_e):
                e = ps.c_tmp[j]
                ps.y_cnt[j] = 0
                p = hint[e, 1]
                w = user[p]
                vw = qs.node[w]
                dp = runs.d[p]
                for _t in range(hint[e, 2]):
                    for r in range(k):
                        use[r] = (qs.usage[vw, r] - ps.y_take[w, r] - dp[r]) * sc[r]
                    if _yarn.can_preempt(use, ps.y_fair[vw], ps.y_tot):
                        ps.y_cnt[j] += 1
                        for r in range(k):
                            ps.y_take[w, r] += dp[r]
                            pot[r] += dp[r]
                    if _fits(pot, d, FLOOR_EPS):
                        ok = True
                        break
                if ok:
                    n_scan = j + 1
                    break
            if not ok:
                break
            for j in range(n_scan):
                e = ps.c_tmp[j]
                for _t in range(ps.y_cnt[j]):
                    n_log = _evict(ps, st, runs, ts, e, u, now, hint, lp, lk, lm, lt0, lt1, lkill, n_log, rem, end,
                                   killed, user)
                    evicted = True
            for r in range(k):
                goal[r] += d[r]
    return (EVICTED if evicted else NONE), n_log


@jit(_nrt=False)
def step(ps, st, runs, ts, now, hend, hint, hs, lp, lk, lm, lt0, lt1, lkill, n_log, rem, end, killed, user):
    """After a pass (``blocking="skip"``) at ``now``: Kueue's fair-sharing preemption for the heads set aside,
    as :func:`reference_kueue_run`'s ``preempt_once`` (module docstring): the heads in tournament order, the
    first for which :func:`fairalloc.fairshare.kueue.fair_preemption_into` finds targets has them evicted.
    Returns (:data:`NONE`, :data:`EVICTED` or :data:`ROOM`, the log's length); evicted launches keep their
    heap entry with one task fewer (the caller drops the empty ones)."""
    if ps is None or ps.cfg[_ON] == 0:
        return NONE, n_log
    if ps.cfg[_RULE] == YARN_RULE:
        return _yarn_step(ps, st, runs, ts, now, hint, hs, lp, lk, lm, lt0, lt1, lkill, n_log, rem, end, killed, user)
    qs = st.qs
    n_aside = 0
    for u in range(ps.rest.shape[0]):               # after a "skip" pass every user with pending tasks is aside
        ps.rest[u] = st.n_pending[u] > 0
        if ps.rest[u]:
            n_aside += 1
    if n_aside == 0:
        return NONE, n_log
    n_run = 0
    for e in range(hs):
        n_run += hint[e, 2]
    if (n_run > ps.c_ent.shape[0] or ps.meta[_NEV] + n_run > ps.ev_t.shape[0] or ps.meta[_NWAKE] + 1 > ps.wheap.shape[0]
            or ps.meta[_NRUNS] + n_run > runs.user.shape[0] or n_log + n_run > lp.shape[0]):
        ps.meta[_NEED] = n_run + 1
        return ROOM, n_log
    ps.meta[_NEED] = 0
    mrt = ps.par[0]
    n_e = np.int64(0)                               # launches holding candidates, in launch order
    for e in range(hs):
        s = lt0[hint[e, 0] - 1]
        if s < now and now - s >= mrt:              # preemptible()
            ps.c_ent[n_e] = e
            ps.cands[n_e] = n_e
            n_e += 1
    nc = 0
    g = ps.has.shape[0]
    for q in range(g):
        ps.has[q] = False
    if n_e > 0:
        _sort(ps, n_e, hint, np.int64(-1))
        for j in range(n_e):                        # one candidate per task (c_tmp: the entries, sorted)
            ps.c_tmp[j] = ps.c_ent[ps.cands[j]]
        for j in range(n_e):
            e = ps.c_tmp[j]
            p = hint[e, 1]
            q = qs.queue[user[p]]
            for _ in range(hint[e, 2]):
                ps.o_idx[nc] = e
                ps.c_cq[nc] = q
                ps.c_adm[nc] = lt0[hint[e, 0] - 1]
                ps.c_ts[nc] = runs.sub[p]
                for r in range(runs.d.shape[1]):
                    ps.c_req[nc, r] = runs.d[p, r]
                nc += 1
        for i in range(nc):
            ps.c_ent[i] = ps.o_idx[i]
            q = ps.c_cq[i]
            if not ps.has[q]:
                ps.has[q] = True
                ratio, _ = _kq.dominant_resource_share(q, qs.parent, qs.quota, qs.usage, qs.lam, qs.group_of, ps.work)
                ps.top_t[q], ps.top_v[q] = _kq.drs_key(ratio, qs.w[q])
    # the two highest shares among ClusterQueues with candidates (a head's own queue is not a target)
    q1 = -1
    for q in range(g):
        if ps.has[q] and (q1 < 0 or not _key_ge(ps.top_t[q1], ps.top_v[q1], ps.top_t[q], ps.top_v[q])):
            q1 = q
    q2 = -1
    for q in range(g):
        if ps.has[q] and q != q1 and (q2 < 0 or not _key_ge(ps.top_t[q2], ps.top_v[q2], ps.top_t[q], ps.top_v[q])):
            q2 = q
    m = runs.d.shape[1]
    left = n_aside
    while nc > 0 and left > 0:
        u = _next_head(ps, st, runs, qs)
        left -= 1
        x = qs.queue[u]
        d = runs.d[st.qhead[u]]
        anyneed = False
        for r in range(m):
            ps.need[r] = d[r] > 0.0 and d[r] > _kq.available(x, r, qs.parent, qs.quota, qs.limit, qs.borrow, qs.usage)
            anyneed = anyneed or ps.need[r]
        if not anyneed:
            continue
        _path_copy(qs.usage, qs.parent, x, ps.save, True)   # the share of x with the head added (path restored)
        _kq.add_usage_into(x, d, qs.parent, qs.quota, qs.limit, qs.usage)
        within = True
        for r in range(m):
            if ps.need[r] and qs.usage[x, r] > qs.quota[x, r]:
                within = False
        ratio, _ = _kq.dominant_resource_share(x, qs.parent, qs.quota, qs.usage, qs.lam, qs.group_of, ps.work)
        mt, mv = _kq.drs_key(ratio, qs.w[x])
        _path_copy(qs.usage, qs.parent, x, ps.save, False)
        other = q1 if q1 != x else q2                # the highest share of another ClusterQueue
        if other < 0 or not (within or _key_ge(ps.top_t[other], ps.top_v[other], mt, mv)):
            continue
        n_ok = 0                                    # only ClusterQueues y with DRS(y) >= DRS(x + w) can lose one
        for i in range(nc):
            q = ps.c_cq[i]
            if q != x and (within or _key_ge(ps.top_t[q], ps.top_v[q], mt, mv)):
                ps.o_idx[n_ok] = i
                ps.o_cq[n_ok] = q
                ps.o_adm[n_ok] = ps.c_adm[i]
                ps.o_ts[n_ok] = ps.c_ts[i]
                for r in range(m):
                    ps.o_req[n_ok, r] = ps.c_req[i, r]
                n_ok += 1
        for v in range(g):
            for r in range(m):
                ps.uw[v, r] = qs.usage[v, r]
        sub_u = runs.sub[st.qhead[u]]
        if _kq.mark_candidates_into(x, ps.need, n_ok, ps.o_cq, ps.o_req, ps.o_pr, ps.o_ts, 0.0, sub_u, _kq.NEVER,
                                    _kq.ANY, qs.parent, qs.quota, ps.uw, ps.mark) == 0:
            continue
        n_c = np.int64(0)
        for i in range(n_ok):
            if ps.mark[i]:
                ps.cands[n_c] = i
                n_c += 1
        _sort(ps, n_c, hint, x)
        n_t = _kq.fair_preemption_into(x, d, ps.need, n_c, ps.cands, ps.o_cq, ps.o_req, ps.o_ev, ps.o_pr, ps.o_adm,
                                       ps.kind, ps.child_ptr, ps.children, qs.parent, qs.quota, qs.limit, qs.borrow,
                                       qs.lam, qs.group_of, qs.w, ps.uw, ps.strategies, ps.cfg[3] != 0, ps.work,
                                       ps.cnt, ps.seg_cur, ps.seg_end, ps.grouped, ps.pruned_cq, ps.pruned_co, ps.anc,
                                       ps.retry, ps.tgt, ps.why)
        if n_t > 0:
            for j in range(n_t):
                e = ps.c_ent[ps.o_idx[ps.tgt[j]]]
                n_log = _evict(ps, st, runs, ts, e, u, now, hint, lp, lk, lm, lt0, lt1, lkill, n_log, rem, end,
                               killed, user)
            return EVICTED, n_log
    if mrt > 0.0:                                   # wake when an exempt task may be evicted
        later = np.inf
        for e in range(hs):
            t = lt0[hint[e, 0] - 1] + mrt
            if t > now and t < later:
                later = t
        if later < np.inf:
            _push_wake(ps, later)
    return NONE, n_log


def kernel_preemptions(ps: PreemptState, order: np.ndarray, workload: Any, launches: dict, stats: dict,
                       pre: Preemption) -> pd.DataFrame:
    """The eviction table of a compiled run (the columns of :func:`reference_kueue_run`'s), from ``ps``'s events;
    ``launches`` (the loop's rows: jobs by workload row) gains ``preempted`` and loses the rows left with no task,
    sorted by start; ``stats`` gains ``preemptions``, ``preemption_loops``, ``wasted_work``."""
    ne = int(ps.meta[_NEV])
    ev_t, ev_i, ev_s = ps.ev_t[:ne], ps.ev_i[:ne], ps.ev_s[:ne]
    res = np.asarray(workload.resources, dtype=float)
    k = res.shape[1]
    names = [str(x) for x in (getattr(workload, "resource_names", ()) or ())]
    if len(names) != k:
        names = [f"r{i}" for i in range(k)]
    flag = np.zeros(len(launches["job"]), dtype=bool)
    flag[ev_i[:, 4]] = True
    launches["preempted"] = flag
    keep = np.flatnonzero(launches["tasks"] > 0)
    keep = keep[np.argsort(launches["start"][keep], kind="stable")]
    for key in list(launches):
        launches[key] = launches[key][keep]
    loops = LoopCounter(pre.loop_window)
    vjob = order[ev_i[:, 3]]
    rows = []
    wasted = np.zeros(k)
    for i in range(ne):
        lost = lost_work(res[vjob[i]], ev_s[i], ev_t[i])
        wasted += lost
        loop = loops.record(float(ev_t[i]), int(ev_i[i, 0]), int(ev_i[i, 2]))
        rows.append([float(ev_t[i]), int(ev_i[i, 0]), int(order[ev_i[i, 1]]), int(ev_i[i, 2]), int(vjob[i]),
                     float(ev_s[i]), float(ev_t[i] - ev_s[i]), *lost.tolist(), loop])
    stats.update({"preemptions": ne, "preemption_loops": loops.loops,
                  "wasted_work": {nm: float(x) for nm, x in zip(names, wasted)}})
    cols = ["time", "preemptor_user", "preemptor_job", "victim_user", "victim_job", "victim_start", "ran"]
    cols += [f"lost:{nm}" for nm in names] + ["loop"]
    return pd.DataFrame(rows, columns=cols).astype(
        {"preemptor_user": np.int64, "preemptor_job": np.int64, "victim_user": np.int64, "victim_job": np.int64,
         "loop": bool})
