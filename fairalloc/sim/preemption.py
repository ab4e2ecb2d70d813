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
aside, Kueue's BestEffortFIFO). Then, for the heads set aside, taken in tournament order, Kueue's
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

This module is the plain-Python reference (a specification and an oracle, O(N) per decision and a
tournament over the tree per admission); the shares, the tournament and the victim choice are
:mod:`fairalloc.fairshare.kueue`'s, written once.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import pandas as pd

from ..errors import InvalidInstanceError
from ..fairshare.kueue import VALID_STRATEGY_LISTS, KueueFairSharing, KueueQueues, drs_key, tournament_winner

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


def reference_kueue_run(workload: Any, capacity: Any, *, accounts: Any = None, weights: Any = None,
                        preemption: Any = True, policy_name: str = "kueue", admitted: Any = None,
                        shortcuts: bool = True) -> Any:
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
    from ..scheduling.production import QueueScheduler
    from .cluster_state import ResourcePool
    from .metrics import SimulationResult

    pre = as_preemption(preemption)
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
    qsched = QueueScheduler(caps[None, :], policy="kueue", accounts=accounts, n_users=n_users, weights=weights,
                            resources=names)
    tree = qsched.tree
    kq = KueueQueues(tree, resources=names)
    cfg = pre.fair_sharing if pre is not None else KueueFairSharing()
    lq = np.array([tree.node(str(u)) for u in range(n_users)], dtype=np.int64)
    cq_of = kq.parent[lq]
    usage = np.zeros((tree.n_nodes, k))
    free = caps.copy()

    # jobs that fit the pool and their cohort's quota at all (the others are rejected before the run)
    if admitted is None:
        rejected = [(j, "wider than the pool") for j in range(len(sub)) if np.any(res[j] > caps)]
    else:
        rejected = list(admitted[1])
    bad = {j for j, _ in rejected}
    jobs = sorted((j for j in range(len(sub)) if j not in bad), key=lambda j: (sub[j], j))
    queues: list[list[list[int]]] = [[] for _ in range(n_users)]    # per user: [job, tasks] FIFO (front = 0)
    start = np.full(len(sub), np.nan)
    end = np.full(len(sub), np.nan)
    killed = np.zeros(len(sub), dtype=bool)
    left = n_tasks.copy()                                            # tasks not yet ended (done or killed)
    running: dict[int, dict] = {}                                    # launch row -> task
    done_heap: list[tuple[float, int]] = []                          # (end, launch row)
    rows: list[list] = []                                            # job, start, end, killed, preempted
    events: list[list] = []
    loops = LoopCounter(pre.loop_window if pre is not None else math.inf)
    wasted = np.zeros(k)
    wake: list[float] = []
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

    def pass_(now: float) -> set[int]:
        """Admission (skip): the tournament's winner starts if the quota and the pool admit its head task,
        else its user is set aside; returns the users set aside."""
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
        while done_heap and done_heap[0][0] == now:                  # 1. completions
            _, row = heapq.heappop(done_heap)
            t = running.pop(row, None)
            if t is None:
                continue
            j, u = t["job"], t["user"]
            free[:] += res[j]
            kq.remove(usage, int(lq[u]), res[j])
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
