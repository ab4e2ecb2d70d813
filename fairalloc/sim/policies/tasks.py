r"""The continuous-time task schedulers as simulator policies: ``drf``, ``sdrf``, ``tsf``, ``cdrf``.

.. code-block:: python

    fa.simulate(workload, capacity, policy="sdrf", delta=1 - 1e-6)

runs SDRF Algorithm 1 on a task workload (DESIGN.md's contract). ``capacity`` is a resource vector
(one pool, SDRF's setting: :meth:`~fairalloc.sim.ResourcePool.from_workload` sizes it as a fraction of
the workload's mean use *R*) or a :class:`~fairalloc.Cluster` of servers with ``placement=`` per user
(TV-TSF's setting, e.g. :func:`fairalloc.clusters.tvtsf_table3`).

Vocabulary (:mod:`fairalloc.sim.engine`): a workload row is a *job* of ``tasks`` identical tasks; its
``user`` is the scheduler's user (the model's agent). Each job is handed to the scheduler as one
:meth:`~fairalloc.scheduling.TaskScheduler.submit` of its tasks (first in, first out per user); the
tasks the scheduler starts one by one are returned to the engine as launches ``(job, tasks, server)``,
consecutive starts of the same job on the same server merged into one launch.

:class:`TaskPolicy` drives an incremental scheduler of :mod:`fairalloc.scheduling` (advance to the
event time, finish, submit, then one :meth:`schedule` per instant). SDRF's commitments decay by Eq. 6
between events (``delta`` per ``dt`` seconds, SDRF's :math:`\Delta t = 1` s by default). With
``blocking="stop"`` (Algorithm 1 as printed) a scheduler can be stopped on its first user while the
order moves; it asks the engine to wake it at the live tree's next swap and runs Algorithm 1 again
when the first user has changed, the only change that can unblock it (:class:`TaskPolicy`,
``wake_on``). The slotted policies (``tvtsf``; ``tsf`` and ``cdrf`` with ``slot=``) are in
:mod:`fairalloc.sim.policies.slots`.

Options (keyword arguments of :func:`~fairalloc.simulate` after ``policy=``):

=================  ========================================================================
``weights``        (n_users,) positive weights (default ones)
``server``         server rule: ``"first_fit"`` (default; ``"tvtsf"`` for slotted policies),
                   ``"best_fit"``, ``"tvtsf"`` or a callable (:mod:`fairalloc.scheduling.servers`)
``blocking``       ``"stop"`` (default for drf/sdrf) or ``"skip"`` (default for tsf/cdrf)
``structure``      ``"live_tree"`` (default), ``"resort"`` (re-sort every user at every decision,
                   the exact baseline) or ``"heap"`` (lazy heap, inexact baseline): the schedulers'
                   ``structure=``. The old spelling ``tree="live" | "resort" | "heap"`` still works
                   with a :class:`DeprecationWarning`
``ties``           among equal priorities: ``"wait"`` (default; the user whose oldest pending task
                   has waited longest, then the lower index) or ``"index"`` (lower index only);
                   :class:`~fairalloc.scheduling.TaskScheduler`; slotted policies too, by the
                   slot of the oldest pending task
``delta``, ``dt``,  SDRF only: discount per ``dt`` seconds (Eq. 3; or ``tau`` directly),
``tau``,           priority reading ``"level"`` (default) or ``"printed"``, initial commitments
``priority``,      (n_users, K) as fractions of the totals
``commitments``
``slot``           slot length (tvtsf: default 1.0; tsf/cdrf: giving it selects the slotted baseline)
=================  ========================================================================

Bad input raises :class:`~fairalloc.InvalidInstanceError` naming the argument, row and value: a row
with no user (-1), a task with zero demand on every resource or a zero run time (clean a trace with
:func:`fairalloc.workloads.prepare_tasks`), ``delta`` outside (0, 1), a user with no eligible server.
Tasks that fit on no server the user may use are rejected by the engine before the run and counted
in ``result.rejected`` with that reason (as every simulator policy's jobs are).

References
----------
.. [1] H. Sadok, M. Campista, L. Costa, "O Passado Também Importa", SBRC 2018, Algorithm 1, Eq. 6.
.. [2] Li Jie, Wang Jianzhou, "A fair multi-resource allocation mechanism for time-varying discrete
   jobs with placement constraints", Chinese Journal on Internet of Things, 2024, Algorithms 1-5.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ...commitments import tau_from_delta
from ...errors import InvalidInstanceError
from ...scheduling import STRUCTURES, TIES
from ...scheduling.cdrf import CDRFScheduler
from ...scheduling.progressive import DRFScheduler, SDRFScheduler
from ...scheduling.tsf import TSFScheduler
from ...validation import require_choice
from ..cluster_state import Servers
from .base import Policy

__all__ = ["TaskPolicy", "TREES"]

_SCHEDULERS = {"drf": DRFScheduler, "sdrf": SDRFScheduler, "tsf": TSFScheduler, "cdrf": CDRFScheduler}
#: The deprecated ``tree=`` names -> the scheduler's ``structure`` (the one spelling).
TREES = {"live": "live_tree", "live_tree": "live_tree", "resort": "resort", "heap": "heap"}
_SDRF_ONLY = ("delta", "dt", "tau", "priority", "commitments", "jump")


def _check_workload(sim: Any, name: str) -> tuple[Any, Servers]:
    state = sim.state
    wl = sim.workload
    if not isinstance(state, Servers):
        what = (f"a processor count of {state.capacity}" if hasattr(state, "capacity")
                else type(state).__name__)
        res = (f" (one entry per resource: {', '.join(wl.resource_names)})" if len(wl.resource_names)
               else "")
        raise InvalidInstanceError(f"policy {name!r} schedules tasks with resource vectors: give a resource "
                                   f"vector{res} or a Cluster as capacity, not {what} "
                                   f"({type(state).__name__})", argument="capacity",
                                   value=type(state).__name__)
    if not len(wl):
        return wl, state
    user = wl.user
    if user.min() < 0:
        r = int(np.argmax(user < 0))
        raise InvalidInstanceError(f"user[{r}]=-1: policy {name!r} needs the user of every job",
                                   argument="user", index=(r,), value=-1)
    res = wl.resources
    zero = np.isfinite(res).all(axis=1) & ~(res > 0).any(axis=1)
    if zero.any():
        r = int(np.argmax(zero))
        raise InvalidInstanceError(f"resources[{r}]={res[r].tolist()!r} is zero on every resource: a task "
                                   "scheduler ranks users by their shares (drop such rows with "
                                   "fairalloc.workloads.prepare_tasks)", argument="resources", index=(r,),
                                   value=res[r].tolist())
    zr = wl.run_time == 0
    if zr.any():
        r = int(np.argmax(zr))
        raise InvalidInstanceError(f"run_time[{r}]=0.0: a task must hold its resources for some time "
                                   "(drop such rows with fairalloc.workloads.prepare_tasks)",
                                   argument="run_time", index=(r,), value=0.0)
    return wl, state


def _n_users(wl: Any, state: Servers, weights: Any) -> int:
    n = int(wl.user.max()) + 1 if len(wl) else 1
    if state.placement is not None:
        n = max(n, state.placement.shape[0])
    if weights is not None:
        w = len(np.atleast_1d(weights))
        if w < n:
            raise InvalidInstanceError(f"weights has {w} entries but the workload has users 0..{n - 1}",
                                       argument="weights", value=w)
        n = w
    return n


class _Launches:
    """Task ids -> jobs, and the running tasks of every (job, server), for one policy run."""

    def __init__(self) -> None:
        self.job_of = np.zeros(0, dtype=np.int64)
        self.running: dict[tuple[int, int], list[int]] = {}

    def add(self, job: int, ids: range) -> None:
        if ids.stop > self.job_of.size:
            self.job_of = np.resize(self.job_of, max(ids.stop, 2 * self.job_of.size))
        self.job_of[ids.start:ids.stop] = job

    def group(self, starts: list) -> list[tuple[int, int, int]]:
        """:meth:`group_arrays` of :class:`~fairalloc.scheduling._base.Start` records."""
        return self.group_arrays(np.fromiter((st.task for st in starts), dtype=np.int64, count=len(starts)),
                                 np.fromiter((st.server for st in starts), dtype=np.int64, count=len(starts)))

    def runs(self, tasks: np.ndarray, servers: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Starts given as arrays (task ids, servers), in order, as launches: runs of consecutive starts
        of one job on one server are one launch. Returns each launch's job, position of its first
        start and number of starts (int64 arrays)."""
        n = tasks.size
        jobs = self.job_of[tasks]
        cut = np.flatnonzero((jobs[1:] != jobs[:-1]) | (servers[1:] != servers[:-1])) + 1
        first = np.concatenate([np.zeros(min(n, 1), dtype=np.int64), cut])
        return jobs[first], first, np.diff(first, append=n)

    def group_arrays(self, tasks: np.ndarray, servers: np.ndarray) -> list[tuple[int, int, int]]:
        """:meth:`runs` as launches ``(job, tasks, server)``, whose running task ids :meth:`finished`
        returns."""
        if tasks.size == 0:
            return []
        jobs, first, counts = self.runs(tasks, servers)
        counts = counts.tolist()
        out = list(zip(jobs.tolist(), counts, servers[first].tolist()))
        running = self.running
        tl = tasks.tolist()
        for (j, k, s), a in zip(out, first.tolist()):
            lst = running.get((j, s))
            if lst is None:
                running[(j, s)] = tl[a:a + k]
            else:
                lst.extend(tl[a:a + k])
        return out

    def finished(self, job: int, tasks: int, server: int) -> list[int]:
        lst = self.running[(job, server)]
        done = lst[-tasks:]
        del lst[-tasks:]
        if not lst:
            del self.running[(job, server)]
        return done


class TaskPolicy(Policy):
    """A continuous-time task scheduler (``drf``, ``sdrf``, ``tsf``, ``cdrf``) as a simulator policy.

    Parameters
    ----------
    mechanism : {"drf", "sdrf", "tsf", "cdrf"}
    weights, server, blocking, structure, ties
        See the module docstring.
    tree : {"live", "resort", "heap"}, optional
        Deprecated spelling of ``structure`` (``"live"`` is ``"live_tree"``).
    wakeups : bool, default True
        Ask to be woken when the first user may change while blocked (``blocking="stop"``); False
        re-runs Algorithm 1 only at arrivals and completions (the paper's "re-run whenever a task
        arrives or finishes").
    wake_on : {"first", "any"}
        ``"first"`` (default): run Algorithm 1 at every change of the first user; ``"any"``: at every
        swap anywhere in the order. Both give the same schedule (Notes); ``"any"`` runs passes that
        start nothing (kept to measure).
    **options
        SDRF only: ``delta``, ``dt``, ``tau``, ``priority``, ``commitments``.

    Attributes
    ----------
    scheduler : TaskScheduler
        The scheduler of the current run (after :meth:`reset`): read its state in tests.

    Raises
    ------
    InvalidInstanceError
        An unknown mechanism or choice, SDRF options given to another mechanism, ``delta`` outside
        (0, 1), ``tree`` and ``structure`` that disagree; at the run, a workload unfit for tasks.

    Notes
    -----
    Wake-ups (``blocking="stop"``, issue 25). After a pass that stopped on user *h*, the policy asks
    to be woken at the queue's next swap event anywhere in the order
    (:attr:`~fairalloc.scheduling.TaskScheduler.next_min_change`); at a wake-up with no arrival or
    completion, ``"first"`` runs Algorithm 1 only if the first user is no longer *h*
    (:attr:`~fairalloc.scheduling.TaskScheduler.first_user`), then asks again; ``"any"`` always runs it.

    *Claim*: both run Algorithm 1 at every instant at which re-running it would start a task, so
    they give the schedule of re-running it at every instant. *Proof*: between two arrivals or
    completions nothing but time changes (pending queues, running tasks, free capacity, every
    user's trajectory of Eq. 6), so a pass at time *t* starts a task iff the first user at *t* has a
    head task that fits; *h*'s does not (it did not at the stop, and the free capacity is the
    same). The order of the users changes only at the swap events of the live tree (crossings of
    neighbours, processed in time order), and the first user changes only at a swap of the first
    pair; a user further back reaches the front through a chain of swaps with each user ahead of
    it, every one an event. Waking at every event, the policy is present at every change of the
    first user (and runs Algorithm 1 there, or at the next arrival or completion if that comes
    first); at the other wake-ups the first user is *h* and a pass would start nothing and stop on
    *h* again, so skipping it changes nothing. The cost is at most one wake-up per swap event while
    blocked, events the tree processes anyway. A rule that watches a fixed number of positions is
    not exact: watching the first pair's certificate alone (the rule before issue 25) missed a user
    passing the second user and then the first with no event between (the issue's case); the first
    two pairs miss a user from the fourth place (``tests/unit/sim/test_sdrf_wakeups.py``).

    Examples
    --------
    Two users share a pool of 2 units; user 0 submits two 1-unit tasks at 0 (runs 0..10), user 1
    one at 1. DRF: user 0's two tasks fill the pool; at 10 user 1's task starts:

    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 1], run_time=[10, 10], tasks=[2, 1], user=[0, 1],
    ...                            resources=[[1.0], [1.0]])
    >>> p = TaskPolicy("drf")
    >>> r = fa.simulate(wl, [2.0], policy=p)
    >>> r.jobs["start"].tolist(), p.scheduler.decisions
    ([0.0, 10.0], 3)
    """

    def __init__(self, mechanism: str = "drf", *, weights: Any = None, server: Any = "first_fit",
                 blocking: str | None = None, structure: str = "live_tree", ties: str = "wait",
                 wakeups: bool = True, wake_on: str = "first", tree: str | None = None,
                 **options: Any) -> None:
        self.mechanism = require_choice("policy", mechanism, tuple(_SCHEDULERS))
        if tree is not None:
            name = TREES[require_choice("tree", tree, tuple(TREES))]
            if structure != "live_tree" and structure != name:
                raise InvalidInstanceError(f"tree={tree!r} and structure={structure!r} disagree; give "
                                           "structure only (tree is its old spelling)",
                                           argument="tree", value=tree)
            warnings.warn(f"tree={tree!r} is deprecated: use structure={name!r}", DeprecationWarning,
                          stacklevel=2)
            structure = name
        self.structure = require_choice("structure", structure, STRUCTURES)
        self.ties = require_choice("ties", ties, TIES)
        extra = set(options) - set(_SDRF_ONLY)
        if extra or (options and self.mechanism != "sdrf"):
            bad = sorted(extra or options)
            allowed = "weights, server, blocking, structure, ties, wakeups, wake_on" + (
                ", " + ", ".join(_SDRF_ONLY) if self.mechanism == "sdrf" else "")
            raise InvalidInstanceError(f"option(s) {bad} do not apply to policy {self.mechanism!r} "
                                       f"(it takes {allowed})", argument="options", value=bad)
        if options.get("delta") is not None:
            tau_from_delta(options["delta"], options.get("dt", 1.0))       # checks delta in (0, 1)
        self.weights = weights
        self.server = server
        self.blocking = blocking
        self.wakeups = bool(wakeups)
        self.wake_on = require_choice("wake_on", wake_on, ("first", "any"))
        self.options = options
        self.name = self.mechanism
        self.scheduler = None
        self.n_wakeups = 0

    def reset(self, sim: Any) -> None:
        super().reset(sim)
        wl, state = _check_workload(sim, self.mechanism)
        n = _n_users(wl, state, self.weights)
        self.scheduler = self._new_scheduler(state, n, wl)
        self._user = wl.user.tolist()
        self._tasks = wl.tasks.tolist()
        self._demand = wl.resources
        self._launches = _Launches()
        self._t = 0.0
        self._stop = self.scheduler.blocking == "stop"
        self.n_wakeups = 0
        self._wake = math.nan
        self._moved = False                       # an arrival or completion since the last pass

    def _new_scheduler(self, state: Servers, n: int, wl: Any) -> Any:
        """The scheduler of one run for ``n`` users on ``state``'s servers."""
        cls = _SCHEDULERS[self.mechanism]
        return cls(state.capacities, n_users=n if self.weights is None else None, weights=self.weights,
                   placement=state.placement, server=self.server, blocking=self.blocking,
                   structure=self.structure, ties=self.ties, time=0.0, **self.options)

    def _advance(self, now: float) -> None:
        if now > self._t:
            self.scheduler.advance(now)
            self._t = now

    def on_submit(self, job: int, now: float) -> None:
        self._advance(now)
        # rows checked by _check_workload and the engine's admission (fits on an eligible server)
        ids = self.scheduler.submit_trusted(self._user[job], self._demand[job], self._tasks[job])
        self._launches.add(job, ids)
        self._moved = True

    def on_finish(self, job: int, tasks: int, server: int, now: float, killed: bool) -> None:
        self._advance(now)
        self.scheduler.finish_all(self._launches.finished(job, tasks, server))
        self._moved = True

    def schedule(self, now: float) -> list[tuple[int, int, int]]:
        self._advance(now)
        s = self.scheduler
        if now == self._wake:                         # woken by our own reschedule point
            if not self._moved and self.wake_on == "first" and s.first_user == s.blocked_by:
                return []                             # still stopped on the same user (Notes)
            self.n_wakeups += 1
        self._moved = False
        return self._launches.group(s.schedule())

    def next_wakeup(self, now: float) -> float | None:
        if not (self.wakeups and self._stop) or self.scheduler.blocked_by is None:
            return None
        t = self.scheduler.next_min_change            # the next swap anywhere (Notes)
        if now < t < math.inf:
            self._wake = t
            return t
        return None

    def kernel_applies(self, sim: Any) -> bool:
        """Whether :meth:`run_kernel` runs this simulation: a built-in server rule (not a callable) and
        no progress bar."""
        return isinstance(sim.state, Servers) and not sim.progress and isinstance(self.server, str)

    def run_kernel(self, sim: Any) -> Any:
        """Run ``sim`` on the simulator's compiled loop (:func:`fairalloc.sim.kernels.task_run`) around the
        decision core this policy's scheduler holds: the same schedule, launches and counts as
        :meth:`Simulation.run` (the tests compare them). Call only when :meth:`kernel_applies`."""
        from ... import shares
        from ..kernels import task_run
        from ..metrics import SimulationResult

        wl, state = sim.workload, sim.state
        state.bind(wl)
        ok, rejected = sim.admissible()
        self.reset(sim)                             # the engine's checks, n_users, weights
        run, req = wl.run_time, wl.requested_time
        n = len(wl)
        kill = ok & ~np.isnan(req) & (run > req) if sim.enforce_walltime else np.zeros(n, dtype=bool)
        dur = np.where(kill, req, run)
        idx = np.flatnonzero(ok)
        order = idx[np.argsort(wl.submit[idx], kind="stable")]
        s = self.scheduler
        demand = wl.resources[order]
        h = shares.monopoly_tasks(demand, s.cluster.capacities) if self.mechanism == "tsf" else None
        r = task_run(s._core, wl.submit[order], wl.user[order], wl.tasks[order], demand, dur[order], kill[order],
                     h=h, wakeups=self.wakeups, wake_first=self.wake_on == "first",
                     preempt=self._kernel_preemption(len(order)))
        start, end, killed = np.full(n, np.nan), np.full(n, np.nan), np.zeros(n, dtype=bool)
        start[order], end[order], killed[order] = r["start"], r["end"], r["killed"]
        lp, lk, ls, lt0, lt1, lkill = r["launches"]
        launches = {"job": order[lp].astype(np.int64), "tasks": lk.astype(np.int64),
                    "server": ls.astype(np.int64), "start": lt0, "end": lt1,
                    "killed": lkill.astype(bool)}
        stats = {"events": r["events"], "decisions": r["decisions"], "swaps": r["swaps"], "wakeups": r["wakeups"],
                 "structure": s.structure, "blocking": s.blocking, "ties": s.ties, "server": s.server,
                 "engine": "kernel"}
        table = None if r["preempt"] is None else self._kernel_preemptions(r["preempt"], order, wl, launches, stats)
        result = SimulationResult.from_run(wl, start=start, end=end, killed=killed, rejected=rejected,
                                           launches=launches, policy=self.name, state=state,
                                           enforce_walltime=sim.enforce_walltime, stats=stats)
        if table is not None:
            result.preemptions = table
        return result

    def _kernel_preemption(self, n_jobs: int) -> Any:
        """The compiled loop's preemption state for ``n_jobs`` jobs (None: the policy does not preempt)."""
        return None

    def _kernel_preemptions(self, ps: Any, order: np.ndarray, wl: Any, launches: dict, stats: dict) -> Any:
        """The eviction table of a preempting policy's run (its launches and stats completed in place)."""
        raise NotImplementedError

    def run_stats(self) -> dict[str, Any]:
        """Figures of the run for :attr:`SimulationResult.stats`."""
        s = self.scheduler
        return {"decisions": s.decisions, "swaps": s.swaps, "wakeups": self.n_wakeups,
                "structure": s.structure, "blocking": s.blocking, "ties": s.ties,
                "server": s.server}
