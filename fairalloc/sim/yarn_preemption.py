r"""YARN's fair-share preemption in the task simulator: the settings and the plain-Python reference loop.

.. code-block:: python

    fa.simulate(workload, capacity, policy="yarn", preemption={"timeout": 60})          # threshold 0.5
    fa.simulate(workload, capacity, policy="yarn", accounts=tree, preemption=True)       # the tree's settings

The semantics (each rule with its source)
-----------------------------------------
Sources: Hadoop's FairScheduler documentation (``hadoop-yarn-site/src/site/markdown/FairScheduler.md``:
``fairSharePreemptionTimeout``, ``fairSharePreemptionThreshold``, ``defaultFairSharePreemptionTimeout``,
``defaultFairSharePreemptionThreshold``, ``yarn.scheduler.fair.preemption.cluster-utilization-threshold``) and
the scheduler's sources (``hadoop-yarn-server-resourcemanager/.../scheduler/fair/``): ``FSAppAttempt.java``
(``fairShareStarvation``, ``isUsageBelowShare``, ``canContainerBePreempted``,
``getUsageAfterPreemptingContainer``, ``getStarvedResourceRequests``), ``FSLeafQueue.java``
(``updateStarvedApps``, ``updateStarvedAppsFairshare``), ``FSPreemptionThread.java`` (``run``,
``identifyContainersToPreempt``, ``identifyContainersToPreemptOnNode``), ``SchedulerNode.java``
(``getRunningContainersWithAMsAtTheEnd``), ``FSStarvedApps.java``.

**Applications and their fair share.** The workload's users are YARN applications, under the tree's leaf
queues (:mod:`fairalloc.sim.policies.container`). An application is *runnable* while it has tasks pending or
running. Fair shares are the instantaneous ones (``ComputeFairShares``, :meth:`fairalloc.fairshare.yarn.YarnQueues.
fair_shares`, each resource separately, from the root down: among a leaf queue's runnable applications,
weight 1 each); amounts are counted in whole units of :math:`10^{-6}` of each resource's total
(:data:`UNITS`; YARN counts whole MB and vcores).

**Starvation** (``fairShareStarvation``). With :math:`F` the application's fair share, :math:`D` its demand
(held plus pending), :math:`U` its usage and :math:`\theta` its leaf queue's ``fairSharePreemptionThreshold``,
the application is below its share when :math:`U` is below :math:`G = \min(\lfloor\theta F\rfloor, D)` by
dominant shares (``isUsageBelowShare`` under DRF). It is *starved* once it has been below continuously for the
queue's ``fairSharePreemptionTimeout`` :math:`\tau` seconds ("If a queue's fair share preemption timeout is
set ... and the queue has been below half its fair share for that period of time, it is allowed to preempt
containers from other queues"): below from :math:`t_0` (the first decision instant at which it was, none
since at which it was not), it is starved at :math:`t \ge t_0 + \tau`, and the simulator wakes at
:math:`t_0 + \tau`. Its starvation is :math:`S = \max(0, G - U)`.

**When preemption is attempted.** At each decision instant after the admission pass (the order of
:mod:`fairalloc.sim.preemption`): when the cluster's utilization, the largest used/total ratio among all
resources (the page's reading; ``shouldAttemptPreemption``), exceeds ``utilization_threshold`` (default 0.8).
Starved applications are served in application order (the workload's user index; ``FSStarvedApps`` orders
them by a comparator that is not a total order).

**Which containers** (``identifyContainersToPreempt``). For the starved application's head request
(its oldest pending job's task demand :math:`d`), :math:`k = \lfloor \max_r S_r / d_r \rfloor` containers
(``getStarvedResourceRequests``: the containers that fit in the starvation, ``Resources.ratio`` read under DRF),
at most the job's pending tasks. For each: the pool is one node; ``potential`` starts at the node's free
capacity less what earlier containers of this check already claimed (``subtractFromNonNegative``); the running
containers are scanned most recently launched first (``getRunningContainersWithAMsAtTheEnd``: the node's
launch order, reversed; no application masters are modelled); a container of application :math:`v` is taken
when :math:`v`'s usage without it and without those already taken from :math:`v` in this search is not below
its fair share (``canContainerBePreempted``: ``!isUsageBelowShare(usageAfterPreemption, getFairShare())``),
and its resources are added to ``potential``; the scan stops as soon as :math:`d` fits in ``potential``
(the chosen containers are preempted) or finds no set (nothing for this application now).

**Modelling choices.** Victims are killed at once (YARN warns the application and kills after
``waitTimeBeforeKill``, 15 s); a container launched at this very instant is not a candidate (so each instant
ends: an eviction removes one of the finitely many containers running since before now); the freed resources
go to the next admission pass (YARN hands them to the starved application first, ``FSSchedulerNode``'s
reservation for it: here the DRF comparator decides, which puts an application below half its fair share
first in the usual case); the victim's task is requeued at the front of its user's queue (``victim="requeue"``,
the application asks again for a lost container) or killed (``"kill"``); min-share preemption
(``minSharePreemptionTimeout``) is not simulated (refused), nor weights of 0 (their fair share is their min
share), nor queues that disallow preemption. The starvation timers follow the page (every application at every
check), not two shortcuts of the code (``updateStarvedAppsFairshare`` stops at the first application not
starved in the comparator's order; ``update`` skips the timers while the utilization is below the threshold).

Lost work and loops are reported as for Kueue (:func:`fairalloc.sim.preemption.lost_work`,
:class:`~fairalloc.sim.preemption.LoopCounter`). :func:`reference_yarn_run` is the plain-Python reference
(``fa.simulate(..., policy="yarn", preemption=..., engine="reference")``); the simulator runs the same rules on
its one compiled loop (:func:`fairalloc.sim.preemption.step`, the YARN branch).
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import pandas as pd

from ..errors import InvalidInstanceError
from ..fairshare.yarn import (
    DEFAULT_UTILIZATION_THRESHOLD,
    YarnQueues,
    can_preempt,
    drf_key_into,
    fits_in_max_share,
    starvation_goal_into,
    usage_below_share,
)
from ..shares import task_fits
from .preemption import VICTIMS, lost_work, run_input

__all__ = ["YarnPreemption", "as_yarn_preemption", "reference_yarn_run", "UNITS"]

#: Whole units per resource total in which fair shares and starvation are counted.
UNITS = 1_000_000


@dataclass(frozen=True)
class YarnPreemption:
    """YARN's fair-share preemption settings (module docstring), checked.

    Parameters
    ----------
    timeout : float, optional
        ``defaultFairSharePreemptionTimeout`` in seconds (queues without ``fair_share_preemption_timeout`` in
        the account tree inherit it), ``>= 0``. Default None: the tree's (YARN's default is never: a run where
        no queue has a timeout is refused).
    threshold : float, optional
        ``defaultFairSharePreemptionThreshold`` in [0, 1]; default None: the tree's, else 0.5.
    utilization_threshold : float
        ``preemption.cluster-utilization-threshold``, in [0, 1]; default 0.8.
    victim : {"requeue", "kill"}
    loop_window : float
        Seconds within which an eviction back counts as a loop (reporting only), ``> 0``; default 3600.

    Examples
    --------
    >>> YarnPreemption(timeout=60).threshold is None
    True
    >>> YarnPreemption(threshold=1.5)
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: preemption.threshold=1.5 must be a number in [0, 1]
    """

    timeout: float | None = None
    threshold: float | None = None
    utilization_threshold: float = DEFAULT_UTILIZATION_THRESHOLD
    victim: str = "requeue"
    loop_window: float = 3600.0
    min_run_time: float = 0.0            # (a container launched now is never a candidate; nothing else)

    def __post_init__(self) -> None:
        def number(name, v, lo, hi, strict=False):
            ok = isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
            if not ok or math.isnan(float(v)) or not (lo <= float(v) <= hi) or (strict and float(v) == lo):
                rng = f"in [{lo:g}, {hi:g}]" if hi < math.inf else (f"> {lo:g}" if strict else f">= {lo:g}")
                raise InvalidInstanceError(f"preemption.{name}={v!r} must be a number {rng}",
                                           argument=f"preemption.{name}", value=v)
            object.__setattr__(self, name, float(v))

        if self.timeout is not None:
            number("timeout", self.timeout, 0.0, math.inf)
        if self.threshold is not None:
            number("threshold", self.threshold, 0.0, 1.0)
        number("utilization_threshold", self.utilization_threshold, 0.0, 1.0)
        number("loop_window", self.loop_window, 0.0, math.inf, strict=True)
        if self.victim not in VICTIMS:
            raise InvalidInstanceError(f"preemption.victim={self.victim!r} must be one of {list(VICTIMS)}",
                                       argument="preemption.victim", value=self.victim)


_FIELDS = ["timeout", "threshold", "utilization_threshold", "victim", "loop_window"]


def as_yarn_preemption(value: Any) -> YarnPreemption | None:
    """``preemption=`` of ``policy="yarn"``: None or False (off), True (the tree's settings), a number (the
    timeout in seconds), a mapping of :class:`YarnPreemption`'s fields, or a :class:`YarnPreemption`.

    Examples
    --------
    >>> as_yarn_preemption(30).timeout, as_yarn_preemption({"timeout": 5, "victim": "kill"}).victim
    (30.0, 'kill')
    >>> as_yarn_preemption({"strategies": ["x"]})
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: preemption: unknown field(s) ['strategies'] for policy 'yarn'; fields: ['timeout', 'threshold', 'utilization_threshold', 'victim', 'loop_window']
    """
    if value is None or value is False:
        return None
    if value is True:
        return YarnPreemption()
    if isinstance(value, YarnPreemption):
        return value
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        return YarnPreemption(timeout=value)
    if isinstance(value, Mapping):
        extra = sorted(set(value) - set(_FIELDS))
        if extra:
            raise InvalidInstanceError(f"preemption: unknown field(s) {extra} for policy 'yarn'; fields: {_FIELDS}",
                                       argument="preemption", value=extra)
        return YarnPreemption(**dict(value))
    raise InvalidInstanceError(f"preemption={value!r} must be None, True, a timeout in seconds, a mapping of "
                               f"{_FIELDS} or a YarnPreemption (policy 'yarn')", argument="preemption",
                               value=repr(value)[:80])


def settings(yq: YarnQueues, pre: YarnPreemption, n_users: int, user_nodes: np.ndarray) -> tuple:
    """Each user's (application's) threshold and timeout (its leaf queue's, inherited), checked: refused with a
    clear error when no queue has a timeout, when min-share preemption is set, or a weight of 0."""
    tree = yq.tree
    thr, tmo = yq.preemption_settings(pre.threshold, pre.timeout)
    q = np.asarray(tree.parent, dtype=np.int64)[user_nodes]
    if not np.any(np.isfinite(tmo[q])):
        raise InvalidInstanceError("preemption on 'yarn' needs a fair-share preemption timeout: give "
                                   "preemption={'timeout': seconds} or the queues' fair_share_preemption_timeout "
                                   "(YARN's default is never)", argument="preemption.timeout", value=None)
    ms = np.asarray(tree.attribute("min_share_preemption_timeout"), dtype=float)
    if np.any(~np.isnan(ms)):
        v = int(np.flatnonzero(~np.isnan(ms))[0])
        raise InvalidInstanceError(f"accounts: {tree.names[v]!r} sets min_share_preemption_timeout={ms[v]!r}: "
                                   "YARN's min-share preemption is not simulated (fair-share preemption is)",
                                   argument="min_share_preemption_timeout", index=(v,), value=float(ms[v]))
    if np.any(yq.weight <= 0):
        v = int(np.flatnonzero(yq.weight <= 0)[0])
        raise InvalidInstanceError(f"weight of {tree.names[v]!r} is {float(yq.weight[v])!r}: preemption with a "
                                   "weight of 0 is not simulated (its fair share is its min share)",
                                   argument="weights", index=(v,), value=float(yq.weight[v]))
    return thr[q], tmo[q]


def reference_yarn_run(workload: Any, capacity: Any, *, accounts: Any = None, weights: Any = None,
                       preemption: Any = True, policy_name: str = "yarn", admitted: Any = None) -> Any:
    """YARN's admission (the DRF comparator on the leaf queues, ``blocking="skip"``) and fair-share preemption on a
    task workload, decision by decision (module docstring): the oracle of the compiled loop.

    Parameters
    ----------
    workload : Workload
    capacity : array_like (K,) or ResourcePool
        One pool.
    accounts, weights
        As :class:`~fairalloc.sim.policies.container.ContainerPolicy` (default one queue per user).
    preemption : optional
        :func:`as_yarn_preemption`'s forms; None or False: admission only.
    policy_name : str
    admitted : tuple (mask, rejected), optional
        The simulator's admission; default the rows whose demand fits the pool.

    Returns
    -------
    SimulationResult
        As :func:`fairalloc.sim.preemption.reference_kueue_run`'s (``preemptions``, ``launches`` one row per
        task start with ``preempted``, ``stats``).

    Examples
    --------
    A pool of 4 CPUs, one queue per application: application 0 fills it at 0 with four tasks of 100 s;
    application 1 submits two at 10. Its fair share is 2 (two runnable applications of weight 1), half of it 1:
    with no task it is below from 10, so after a 30 s timeout, at 40, it is starved by
    :math:`S = \\min(1, 2) - 0 = 1`: one container (:math:`k = 1`). Application 0 holds 4 >= its fair share 2 with
    one fewer: its most recently launched task goes (it ran 40 s). Application 1 then holds 1, not below 1: no
    more. The victim reruns from 100 (when application 0's other tasks end) to 200; application 1's second task
    starts at 100 too:

    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 10], run_time=[100, 100], tasks=[4, 2], user=[0, 1],
    ...                            resources=[[1.0], [1.0]])
    >>> r = reference_yarn_run(wl, [4.0], preemption={"timeout": 30})
    >>> r.preemptions[["time", "preemptor_user", "victim_user", "lost:r0"]].values.tolist()
    [[40.0, 1.0, 0.0, 40.0]]
    >>> r.jobs["end"].tolist()
    [200.0, 200.0]
    """
    from .metrics import SimulationResult

    pre = as_yarn_preemption(preemption)
    (pool, caps, k, names, sub, user_of, n_tasks, res, dur, n_users, tree, rejected, jobs, queues, start, end, killed,
     left, running, done_heap, rows, events, loops, wasted, wake) = run_input(
        workload, capacity, accounts=accounts, weights=weights, policy="yarn", admitted=admitted,
        loop_window=pre.loop_window if pre is not None else math.inf)
    yq = YarnQueues(tree, resources=list(tree.resources))
    parent = np.asarray(tree.parent, dtype=np.int64)
    node = np.array([tree.node(str(u)) for u in range(n_users)], dtype=np.int64)
    leaf = parent[node]
    if pre is not None:
        thr, tmo = settings(yq, pre, n_users, node)
    usage = np.zeros((tree.n_nodes, k))
    count = np.zeros(tree.n_nodes, dtype=np.int64)                   # running tasks below each node
    free = caps.copy()
    units = np.full(k, float(UNITS))
    scale = units / caps
    since = np.full(n_users, math.inf)                               # start of the current time below G
    decisions = 0

    def head(u: int) -> int:
        return queues[u][0][0]

    def add(u: int, d: np.ndarray, sign: int) -> None:
        v = int(node[u])
        while v >= 0:
            count[v] += sign
            usage[v] = 0.0 if count[v] == 0 else usage[v] + sign * d
            v = int(parent[v])

    def order_key(u: int) -> tuple:
        """The core's ``yarn`` order: the DRF comparator's neediness and first ratio on u's leaf queue
        (:func:`~fairalloc.fairshare.yarn.drf_key_into`), then the oldest head task, then the index."""
        q = int(leaf[u])
        out = np.empty(k + 1)
        drf_key_into(usage[q], yq.min_share[q], float(yq.weight[q]), caps, out)
        return (out[0], out[1], sub[head(u)], u)

    def start_task(u: int, now: float) -> None:
        nonlocal decisions
        entry = queues[u][0]
        j = entry[0]
        entry[1] -= 1
        if entry[1] == 0:
            queues[u].pop(0)
        free[:] -= res[j]
        add(u, res[j], 1)
        if np.isnan(start[j]):
            start[j] = now
        row = len(rows)
        rows.append([j, now, now + dur[j], False, False])
        running[row] = {"job": j, "user": u, "start": now}
        heapq.heappush(done_heap, (now + dur[j], row))
        decisions += 1

    def pass_(now: float) -> None:
        aside: set[int] = set()
        while True:
            open_ = [u for u in range(n_users) if queues[u] and u not in aside]
            if not open_:
                return
            u = min(open_, key=order_key)
            d = res[head(u)]
            if fits_in_max_share(int(leaf[u]), d, parent, usage, yq.max_share) and task_fits(free, d):
                start_task(u, now)
            else:
                aside.add(u)

    def evict(row: int, preemptor: int, now: float) -> None:
        t = running.pop(row)
        j, v = t["job"], t["user"]
        d = res[j]
        free[:] += d
        add(v, d, -1)
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

    def preempt_once(now: float) -> bool:
        """Starvation of every application (the timers), then, above the utilization threshold, the containers of
        each starved application (module docstring). Returns whether anything was preempted."""
        demand = np.zeros((n_users, k))
        for u in range(n_users):
            demand[u] = usage[node[u]] + sum((res[j] * c for j, c in queues[u]), np.zeros(k))
        active = np.array([bool(queues[u]) or count[node[u]] > 0 for u in range(n_users)])
        fair = yq.fair_shares(caps, active=active, units=UNITS)             # whole units of 1e-6 of each total
        starved = []
        for u in range(n_users):
            goal = np.empty(k)
            starvation_goal_into(fair[node[u]], demand[u] * scale, float(thr[u]), goal)
            if not usage_below_share(usage[node[u]] * scale, goal, units):
                since[u] = math.inf
                continue
            if since[u] == math.inf:                                 # below from now: wake at the timeout
                since[u] = now
                if 0 < tmo[u] < math.inf:
                    heapq.heappush(wake, now + tmo[u])
            if now - since[u] >= tmo[u]:
                starved.append((u, np.maximum(goal - usage[node[u]] * scale, 0.0)))
        if not starved or not np.max(usage[0] / caps) > pre.utilization_threshold:
            return False
        any_evicted = False
        for u, s in starved:
            d = res[head(u)]
            ratio = max((s[r] / (d[r] * scale[r]) for r in range(k) if d[r] > 0), default=0.0)
            n_want = min(int(math.floor(ratio)), queues[u][0][1])
            claimed = np.zeros(k)
            for _ in range(n_want):
                potential = np.maximum(free - claimed, 0.0)
                taken: dict[int, np.ndarray] = {}
                chosen = []
                ok = False
                for row in sorted(running, reverse=True):            # most recently launched first
                    t = running[row]
                    if not t["start"] < now:
                        continue
                    v, dv = t["user"], res[t["job"]]
                    after = (usage[node[v]] - taken.get(v, 0.0) - dv) * scale
                    if can_preempt(after, fair[node[v]], units):
                        taken[v] = taken.get(v, 0.0) + dv
                        potential = potential + dv
                        chosen.append(row)
                    if task_fits(potential, d):
                        ok = True
                        break
                if not ok:
                    break
                for row in chosen:
                    evict(row, u, now)
                    any_evicted = True
                claimed = claimed + d
        return any_evicted

    i = 0
    n = len(jobs)
    while True:
        now = math.inf
        while done_heap and done_heap[0][1] not in running:
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
            add(u, res[j], -1)
            left[j] -= 1
            if left[j] == 0:
                end[j] = now
        while i < n and sub[jobs[i]] == now:                         # 2. arrivals
            j = jobs[i]
            queues[int(user_of[j])].append([j, int(n_tasks[j])])
            i += 1
        pass_(now)                                                   # 3. decisions
        while pre is not None and preempt_once(now):
            pass_(now)
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
