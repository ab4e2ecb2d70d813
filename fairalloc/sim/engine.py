r"""The discrete-event core: one event heap, one cluster state, one policy.

Vocabulary (fixed once for the whole simulator): a **job** is one row of a
:class:`~fairalloc.workloads.Workload` (the allocation model's *request* of an agent); its **user** is
the model's *agent*; a **task** is one of the job's ``tasks`` identical units, each needing the job's
demand (``processors[j]`` processors, or the vector ``resources[j]``) for ``run_time[j]`` seconds; a
**launch** ``(job, tasks, server)`` starts that many tasks of a job together on one server. A rigid
parallel job is a job of one task launched once.

Events and time
---------------
Events live in a heap keyed by ``(time, priority, sequence number)``; the sequence number is a
counter, so ties are broken by insertion order and never by set order or wall-clock time. Priorities
at one instant: ``COMPLETION`` (0) before ``ARRIVAL`` (1) before ``WAKEUP`` (2): resources freed at
*t* are free for jobs arriving at *t*. Arrivals are a pre-sorted stream (by submit time, then row)
merged with the heap, which is the same order as pushing them with priority ``ARRIVAL`` but costs no
heap operations. At every instant *t* where something happened the engine

1. processes every event at *t*: a completion releases the launch's resources and calls
   ``policy.on_finish``; an arrival calls ``policy.on_submit``;
2. calls ``policy.schedule(t)`` **once** and applies the launches it returns, in order (each is
   checked against the free capacity: a policy that over-commits raises :class:`SimulationError`);
3. asks ``policy.next_wakeup(t)`` for a reschedule point.

The run ends when no event is left. Jobs still waiting then (a policy that never starts them) are
reported as unfinished; jobs that could never run (unknown run time, wider than the machine, fitting
no server) are rejected *before* the run and counted, so no simulation can hang.

The policy interface
--------------------
A policy is any object with these methods (subclass :class:`Policy` for the defaults):

``reset(sim)``
    Called once before the first event. ``sim`` is the :class:`Simulation`: read ``sim.workload``
    (columns as numpy arrays), ``sim.state`` (the :mod:`~fairalloc.sim.cluster_state` object:
    ``free``, ``fits(job, tasks, server)``, and for servers ``capacities``/``placement``),
    ``sim.enforce_walltime``, ``sim.remaining[job]`` (tasks not yet launched) and
    ``sim.running`` (``{launch id: (job, tasks, server, start, expected_end)}``).
``on_submit(job, now)``
    Job ``job`` arrived; all its tasks are waiting.
``on_finish(job, tasks, server, now, killed)``
    A launch ended (its resources are already free). ``killed`` is True when it hit its walltime
    under ``enforce_walltime=True`` (its run time was cut to the requested time).
``schedule(now) -> iterable of (job, tasks, server)``
    What to start **now**, in order. Rigid jobs return ``(j, 1, 0)``; a task scheduler may start
    part of a job (``tasks < remaining[j]``) and the rest later, on any server. Return an empty list
    to start nothing. The engine applies the launches only after ``schedule`` returns, so a policy
    that returns several must count its own launches against ``state.free`` (e.g. work on a copy
    of ``state.free``).
    ``schedule`` may also return a :class:`~fairalloc.sim.launches.Launches` (the launches as int64
    arrays ``job``, ``tasks``, ``server`` and a ``tag`` per launch of the policy's choosing): the
    engine applies them with the same checks and updates, launch after launch, on arrays (a slotted
    scheduler starts hundreds per slot), and the launches of such a batch that end at one instant
    are handed back together, in the order of their ends and with their tags, to
    ``policy.on_finish_many(launches, now, killed)`` once all their resources are free (the default,
    :meth:`Policy.on_finish_many`, calls ``on_finish`` for each). Their place among the instant's
    other completions is that of their own launches.
``next_wakeup(now) -> float or None``
    A time ``> now`` at which ``schedule`` must run again even if no job arrives or ends: the
    *reschedule point*. Only the latest answer counts (an earlier pending wake-up is dropped: it
    stays in the heap and is skipped when its time comes, so asking again costs O(log n); an
    instant with nothing but dropped wake-ups does not call ``schedule``).

**Time-dependent priorities** (wait-based scores such as WFP3, BUC's :math:`T_e`, SDRF's decaying
commitments) are evaluated inside ``schedule(now)`` from ``now``: nothing is stored per time step.
The queue-policy papers re-rank only at queue events (arrival or completion), which is what a policy
gets without wake-ups; a policy whose order can change *between* events in a way that matters (a
kinetic structure's next swap, SDRF Eq. 6) returns that instant from ``next_wakeup``.

**Slotted time** (TV-TSF): workloads in slots use integer ``submit`` and ``run_time`` (e.g.
``alibaba_like``; time unit = one slot). A slotted policy collects arrivals in ``on_submit``, starts
tasks only when ``now`` is a slot boundary, and returns the next boundary from ``next_wakeup`` while it
has pending tasks; with integer times every event already falls on a boundary.

Walltime
--------
With ``enforce_walltime=True`` (the Parallel Workloads Archive convention) a task whose run time
exceeds its requested time is killed at the requested time; with ``False`` (default) it runs to
completion. Either way the result says which (``SimulationResult.enforce_walltime`` and the
``killed`` column).

References
----------
.. [1] SimPy's ``Environment``: ``heappush(queue, (now + delay, priority, next(eid), event))``.
"""

from __future__ import annotations

import heapq
import logging
from typing import Any, Iterable

import numpy as np

from .cluster_state import ClusterState, ProcessorPool, SimulationError
from .launches import Launches
from ..workloads import Workload
from .policies.base import Policy

__all__ = ["Simulation", "Policy", "SimulationError", "COMPLETION", "ARRIVAL", "WAKEUP"]

logger = logging.getLogger(__name__)

COMPLETION, ARRIVAL, WAKEUP = 0, 1, 2


class Simulation:
    """One run of ``policy`` on ``workload`` over ``state``.

    Parameters
    ----------
    workload : Workload
    state : ClusterState
        :class:`~fairalloc.sim.cluster_state.ProcessorPool` for rigid jobs,
        :class:`~fairalloc.sim.cluster_state.ResourcePool` or
        :class:`~fairalloc.sim.cluster_state.Servers` for tasks.
    policy : Policy
    enforce_walltime : bool
        Kill a task at its requested time when its run time is longer (see the module docstring).
    progress : bool
        Show a tqdm progress bar over finished jobs.

    Notes
    -----
    :meth:`run` returns a :class:`~fairalloc.sim.metrics.SimulationResult`. The workload is never
    modified; rejected rows keep their index in the result's ``rejected`` table.
    :func:`~fairalloc.simulate` builds the state and policy from names and runs this.

    Raises
    ------
    SimulationError
        From :meth:`run`, when the policy launches what does not fit.

    Examples
    --------
    Two rigid jobs on 4 processors; job 1 needs 5 and is rejected before the run:

    >>> import fairalloc as fa
    >>> from fairalloc.sim import FCFS
    >>> from fairalloc.sim import ProcessorPool
    >>> wl = fa.workloads.Workload(submit=[0, 0], run_time=[1, 1], processors=[3, 5])
    >>> r = Simulation(wl, ProcessorPool(4), FCFS()).run()
    >>> r.jobs["start"].tolist(), r.rejected.values.tolist()
    ([0.0], [[1, 1, 'wider than the machine (5 > 4 processors)']])
    """

    def __init__(self, workload: Workload, state: ClusterState, policy: Any, *,
                 enforce_walltime: bool = False, progress: bool = False) -> None:
        self.workload = workload
        self.state = state
        self.policy = policy
        self.enforce_walltime = bool(enforce_walltime)
        self.progress = progress
        self.now = 0.0

    # ------------------------------------------------------------------------------------------
    def admissible(self) -> tuple[np.ndarray, list[tuple[int, str]]]:
        """Which jobs can ever run, decided before the run: ``(ok, rejected)``.

        ``ok`` is an (n_jobs,) bool mask; ``rejected`` lists ``(row, reason)`` sorted by row for the
        jobs that cannot: run time unknown (NaN), or a demand that fits nowhere even on an empty
        cluster (:meth:`~fairalloc.sim.cluster_state.ClusterState.never_fits`). Call after
        ``state.bind(workload)``; :meth:`run` and the specialised FCFS/EASY loops of
        :func:`~fairalloc.sim.simulate` both admit jobs with it.
        """
        wl = self.workload
        n = len(wl)
        rejected: list[tuple[int, str]] = []
        ok = np.ones(n, dtype=bool)
        bad_run = np.isnan(wl.run_time)
        for j in np.flatnonzero(bad_run):
            rejected.append((int(j), "run time unknown"))
        ok &= ~bad_run
        if isinstance(self.state, ProcessorPool):  # vectorised version of never_fits
            p = wl.processors
            for j in np.flatnonzero(ok & ((p < 1) | (p > self.state.capacity))):
                rejected.append((int(j), self.state.never_fits(int(j)) or "unknown"))
            ok &= (p >= 1) & (p <= self.state.capacity)
        else:
            for j, why in self.state.never_fits_rows(np.flatnonzero(ok)):
                rejected.append((j, why))
                ok[j] = False
        rejected.sort()
        return ok, rejected

    def run(self) -> "SimulationResult":
        from .metrics import SimulationResult

        wl = self.workload
        n = len(wl)
        state, policy = self.state, self.policy
        state.bind(wl)
        ok, rejected = self.admissible()
        if rejected:
            logger.info("%d job(s) rejected before the run (e.g. row %d: %s)", len(rejected),
                        rejected[0][0], rejected[0][1])
        run = wl.run_time
        req = wl.requested_time
        if self.enforce_walltime:
            kill = ok & ~np.isnan(req) & (run > req)
            dur = np.where(kill, req, run)
        else:
            kill = np.zeros(n, dtype=bool)
            dur = run.copy()
        expected = np.where(np.isnan(req), run, req)  # what a reservation may assume
        self.expected_duration = expected
        self.remaining = wl.tasks.copy() * ok
        self.running: dict[int, tuple[int, int, int, float, float]] = {}
        idx = np.flatnonzero(ok)
        order = idx[np.argsort(wl.submit[idx], kind="stable")]
        arr_t = wl.submit[order].tolist()
        arr_j = order.tolist()
        n_arr = len(arr_j)

        # per-job outcomes as Python lists during the run (indexing a NumPy array with a Python int
        # and comparing the NumPy scalar it returns costs several times a list's), arrays at the end
        nan = float("nan")
        start = [nan] * n
        end = [nan] * n
        killed = [False] * n
        rigid = isinstance(state, ProcessorPool) and bool(np.all(wl.tasks[ok] == 1))  # else: log launches
        log_j: list[int] = []
        log_k: list[int] = []
        log_s: list[int] = []
        log_t0: list[float] = []
        log_t1: list[float] = []
        log_kill: list[bool] = []
        logs = None if rigid else (log_j, log_k, log_s, log_t0, log_t1, log_kill)
        self._dur, self._kill = dur, kill
        durl = dur.tolist()
        killl = kill.tolist()
        expl = expected.tolist()
        remaining = self.remaining
        rem_launch = (wl.tasks * ok).tolist()  # tasks not yet finished, per job

        heap: list[tuple] = []
        push, pop = heapq.heappush, heapq.heappop
        seq = 0
        wake_seq, wake_time = -1, -1.0     # the pending wake-up (sequence number, time); -1: none
        policy.reset(self)
        on_submit, on_finish, schedule = policy.on_submit, policy.on_finish, policy.schedule
        next_wakeup = getattr(policy, "next_wakeup", None)
        alloc, release = state.allocate, state.release
        running = self.running
        bar = None
        if self.progress:
            from tqdm.auto import tqdm
            bar = tqdm(total=int(ok.sum()), unit="job", desc=getattr(policy, "name", "sim"),
                       mininterval=0.5)
        done = 0
        i = 0
        inf = float("inf")
        n_events = 0
        while True:
            t_heap = heap[0][0] if heap else inf
            t_arr = arr_t[i] if i < n_arr else inf
            now = t_heap if t_heap <= t_arr else t_arr
            if now == inf:
                break
            self.now = now
            seen = n_events
            # 1. every event at `now`: completions (priority 0) first, then arrivals, then wake-ups
            while heap and heap[0][0] == now and heap[0][1] == COMPLETION:
                e = pop(heap)
                if len(e) == 4:                # launches of one batch that end together
                    done += self._finish_many(e[3], now, rem_launch, end, killed)
                    n_events += e[3][0].job.size
                    continue
                _, _, lid, j, k, s, kl = e
                del running[lid]
                release(j, k, s)
                rem_launch[j] -= k
                if kl:
                    killed[j] = True
                if rem_launch[j] == 0:
                    end[j] = now
                    done += 1
                on_finish(j, k, s, now, kl)
                n_events += 1
            while i < n_arr and arr_t[i] == now:
                on_submit(arr_j[i], now)
                i += 1
                n_events += 1
            while heap and heap[0][0] == now:  # wake-ups (priority 2)
                if pop(heap)[2] == wake_seq:
                    wake_seq = -1
                    wake_time = -1.0
                    n_events += 1
            if n_events == seen:
                continue                       # only superseded wake-ups: nothing happened
            # 2. one scheduling decision
            out = schedule(now)
            if type(out) is Launches:          # the same steps on arrays
                seq = self._start_many(out, now, seq, heap, start, logs)
                out = ()
            for j, k, s in out:
                if k < 1 or k > remaining[j]:
                    raise SimulationError(f"policy {policy!r} launched {k} task(s) of job {j} "
                                          f"with {remaining[j]} waiting at t={now}")
                alloc(j, k, s)
                remaining[j] -= k
                if start[j] != start[j]:  # NaN: first launch of this job
                    start[j] = now
                d = durl[j]
                seq += 1
                running[seq] = (j, k, s, now, now + expl[j])
                push(heap, (now + d, COMPLETION, seq, j, k, s, killl[j]))
                if not rigid:
                    log_j.append(j)
                    log_k.append(k)
                    log_s.append(s)
                    log_t0.append(now)
                    log_t1.append(now + d)
                    log_kill.append(killl[j])
            # 3. reschedule point. Only the latest answer counts: a superseded wake-up stays in the
            # heap (removing it would cost O(heap)) and is skipped when popped (sequence mismatch).
            if next_wakeup is not None:
                w = next_wakeup(now)
                if w is not None:
                    if not w > now:
                        raise SimulationError(f"next_wakeup returned {w}, not after now={now}")
                    if w != wake_time:
                        seq += 1
                        push(heap, (w, WAKEUP, seq))
                        wake_seq, wake_time = seq, w
                else:
                    wake_seq, wake_time = -1, -1.0
            if bar is not None and done - bar.n >= 1000:
                bar.update(done - bar.n)
        if bar is not None:
            bar.update(done - bar.n)
            bar.close()
        start, end, killed = np.array(start, dtype=float), np.array(end, dtype=float), np.array(killed, dtype=bool)
        launches = None
        if not rigid:
            launches = {"job": np.array(log_j, dtype=np.int64), "tasks": np.array(log_k, dtype=np.int64),
                        "server": np.array(log_s, dtype=np.int64), "start": np.array(log_t0),
                        "end": np.array(log_t1), "killed": np.array(log_kill, dtype=bool)}
        unfinished = ok & np.isnan(end)
        if unfinished.any():
            logger.warning("%d job(s) never finished: the policy left them waiting",
                           int(unfinished.sum()))
        stats: dict[str, Any] = {"events": n_events}
        run_stats = getattr(policy, "run_stats", None)
        if run_stats is not None:                # e.g. a task scheduler's decisions and swap events
            stats.update(run_stats())
        self._dur = self._kill = None
        return SimulationResult.from_run(
            wl, start=start, end=end, killed=killed, rejected=rejected, launches=launches,
            policy=getattr(policy, "name", type(policy).__name__), state=state,
            enforce_walltime=self.enforce_walltime, stats=stats)

    def _start_many(self, b: Launches, now: float, seq: int, heap: list, start: list, logs: Any) -> int:
        """Step 2 for launches given as arrays: what the loop does for one launch, launch after launch
        (checks, allocation, start times, ``running``, the log), on arrays; the launches that end at
        one instant go into the heap as one entry ``(end, COMPLETION, sequence number of the first,
        (launches, their sequence numbers))``, which pops where their own entries would (their
        sequence numbers are consecutive and ordered as theirs). Returns the last sequence number."""
        j, k = b.job, b.tasks
        n = j.size
        if n == 0:
            return seq
        remaining = self.remaining
        if not ((k >= 1).all() and (np.bincount(j, weights=k, minlength=remaining.size) <= remaining).all()):
            left = remaining.tolist()          # the first launch the loop would refuse, and its message
            for a, (jj, kk) in enumerate(zip(j.tolist(), k.tolist())):
                if kk < 1 or kk > left[jj]:
                    self.state.allocate_many(b.take(slice(0, a)))
                    raise SimulationError(f"policy {self.policy!r} launched {kk} task(s) of job {jj} "
                                          f"with {left[jj]} waiting at t={now}")
                left[jj] -= kk
        self.state.allocate_many(b)
        np.subtract.at(remaining, j, k)
        jl = j.tolist()
        for jj in jl:
            if start[jj] != start[jj]:         # NaN: first launch of this job
                start[jj] = now
        ends = now + self._dur[j]
        seqs = range(seq + 1, seq + n + 1)
        self.running.update(zip(seqs, zip(jl, k.tolist(), b.server.tolist(), [now] * n,
                                          (now + self.expected_duration[j]).tolist())))
        order = np.argsort(ends, kind="stable")
        es = ends[order]
        cut = [0, *(np.flatnonzero(es[1:] != es[:-1]) + 1).tolist(), n]
        for a, z in zip(cut[:-1], cut[1:]):
            g = order[a:z]
            first = int(g[0])
            heapq.heappush(heap, (float(es[a]), COMPLETION, seq + 1 + first,
                                  (b.take(g), (g + (seq + 1)).tolist())))
        if logs is not None:
            log_j, log_k, log_s, log_t0, log_t1, log_kill = logs
            log_j.extend(jl)
            log_k.extend(k.tolist())
            log_s.extend(b.server.tolist())
            log_t0.extend([now] * n)
            log_t1.extend(ends.tolist())
            log_kill.extend(self._kill[j].tolist())
        return seq + n

    def _finish_many(self, group: tuple, now: float, rem_launch: list, end: list, killed: list) -> int:
        """Step 1 for the launches of one batch that end at ``now`` (:meth:`_start_many`): every launch's
        resources released in order, then its job's counters; then ``policy.on_finish_many`` once.
        Returns the number of jobs that finished."""
        b, seqs = group
        running = self.running
        for lid in seqs:
            del running[lid]
        self.state.release_many(b)
        kl = self._kill[b.job]
        done = 0
        for jj, kk in zip(b.job.tolist(), b.tasks.tolist()):
            r = rem_launch[jj] - kk
            rem_launch[jj] = r
            if r == 0:
                end[jj] = now
                done += 1
        if kl.any():
            for jj in b.job[kl].tolist():
                killed[jj] = True
        self.policy.on_finish_many(b, now, kl)
        return done
