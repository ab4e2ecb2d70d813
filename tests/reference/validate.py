r"""Validate a simulated task schedule against the scheduling rule, decision by decision.

:func:`validate_task_schedule` rebuilds the run from the workload and the launches alone (nothing of
the simulator's state is read) and checks, at every instant where a job arrives, a task starts or a
task ends (in the simulator's order: completions, then arrivals, then one pass):

1. *no task before submission, FIFO within a user*: every launched task is the oldest pending task of
   its user (jobs of one user in submission order, ties by row), and every task of every admitted job
   runs exactly once;
2. *capacity*: the task fits on its server (:func:`fairalloc.shares.tasks_that_fit`) on a server its
   user may use, and the server is the one the server rule picks (``"first_fit"``: the lowest index;
   ``"best_fit"`` and ``"tvtsf"``: the smallest score of :mod:`fairalloc.scheduling.servers`'
   formulas, recomputed here);
3. *lowest key*: the user served has the lowest key among the users with pending tasks
   (``blocking="skip"``: among those whose head task fits somewhere now; the others are set aside,
   and within a pass free capacity only shrinks), keys recomputed from the definitions:

   * DRF: :func:`~fairalloc.shares.dominant_shares` of the holdings, over the weight;
   * SDRF: :func:`~fairalloc.shares.sdrf_levels` (or :func:`~fairalloc.shares.sdrf_printed_priorities`)
     with commitments by :func:`fairalloc.commitments.decay` (Eq. 6) from each user's last change,
     the excess :func:`~fairalloc.commitments.excess_over` its fair share
     (:func:`~fairalloc.shares.fair_shares`);
   * TSF: the sum of :func:`~fairalloc.shares.task_shares` of its running tasks (monopoly counts by
     :func:`~fairalloc.shares.monopoly_tasks` on the servers);
   * CDRF: :func:`~fairalloc.shares.dominant_shares_after` with its head task;
   * another rule (Kueue, YARN, Mesos on queues): the caller's ``key`` callable, with its ``admits``
     (a quota) deciding whether a head task may start at all;

   keys within ``atol`` are equal; among equal keys that do not move with time (all but SDRF with a
   time constant), ``ties="wait"`` serves the user whose head task was submitted first, then the lower
   index (``"index"``: the lower index);
4. *stop vs skip*: when a pass ends with tasks pending, ``"stop"``: the first user's head task fits on
   no server it may use (with keys equal to rounding: one of the first users'); ``"skip"``: no user's
   head task fits anywhere it may run.

Wake-ups (SDRF, ``blocking="stop"``) need no rule of their own here: a start at a wake-up is checked
like any other, and every pass ends in state 4.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from fairalloc import commitments as C
from fairalloc import shares

__all__ = ["ScheduleViolation", "validate_task_schedule"]

BLOCKING = {"drf": "stop", "sdrf": "stop", "tsf": "skip", "cdrf": "skip", "kueue": "skip", "yarn": "skip",
            "mesos": "skip"}


class ScheduleViolation(AssertionError):
    """A schedule breaks the rule; the message names the instant, the job and the rule."""


def _fits(free, d):
    return shares.tasks_that_fit(free, d) >= 1


def validate_task_schedule(workload, cluster, result, *, mechanism, placement=None, blocking=None,
                           weights=None, commitments=None, tau=None, delta=None, priority="level",
                           ties="wait", server="first_fit", atol=1e-9, check_ties=True, key=None,
                           admits=None) -> int:
    """Check ``result`` (a :class:`fairalloc.sim.SimulationResult` of a task scheduler) against the rule.

    Parameters
    ----------
    workload : Workload
    cluster : Cluster
        The servers the simulation ran on.
    result : SimulationResult
    mechanism : {"drf", "sdrf", "tsf", "cdrf"}
    placement, blocking, weights, commitments, tau, delta, priority, ties, server
        The options the simulation was given (``delta`` per time unit; default blocking: the mechanism's).
    atol : float
        Keys closer than this are equal.
    check_ties : bool
        Check the tie rule among equal keys (exact when demands and capacities are dyadic, so that the
        simulator's sums and these agree to the last bit).
    key : callable, optional
        ``key(user, usage, demand) -> float`` for another mechanism (a production rule on queues):
        ``usage`` (n_users, K) the raw holdings of every user, ``demand`` the user's head task; lower first.
    admits : callable, optional
        ``admits(user, usage, demand) -> bool``: whether the rule lets the head task start now (a quota);
        a refused task counts as one that fits nowhere.

    Returns
    -------
    int
        The number of task starts checked.

    Raises
    ------
    ScheduleViolation
        At the first violation.
    """
    blocking = blocking or BLOCKING[mechanism]
    stop = blocking == "stop"
    if delta is not None:
        tau = C.tau_from_delta(delta)
    moves = mechanism == "sdrf" and tau is not None
    check_ties = check_ties and not moves
    caps = np.asarray(cluster.capacities, dtype=float)
    totals = caps.sum(axis=0)
    m_servers, k = caps.shape
    res = np.asarray(workload.resources, dtype=float).reshape(len(workload.submit), -1)
    user_of = np.asarray(workload.user, dtype=np.int64)
    n = int(user_of.max()) + 1 if len(user_of) else 0
    if weights is not None:
        n = max(n, len(weights))
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    fair = shares.fair_shares(w)
    place = np.ones((n, m_servers), bool) if placement is None else np.asarray(placement, bool)
    h_of = shares.monopoly_tasks(res, caps) if mechanism == "tsf" else None

    admitted = np.sort(result.jobs["row"].to_numpy())
    arrivals = sorted(admitted.tolist(), key=lambda j: (workload.submit[j], j))
    lf = result.launches
    L = list(zip(lf["job"].to_numpy().tolist(), lf["tasks"].to_numpy().tolist(),
                 lf["server"].to_numpy().tolist(), lf["start"].to_numpy().tolist(),
                 lf["end"].to_numpy().tolist()))
    by_start: dict[float, list] = {}
    by_end: dict[float, list] = {}
    for row in L:
        by_start.setdefault(row[3], []).append(row)
        by_end.setdefault(row[4], []).append(row)
    sub = {}
    for j in arrivals:
        sub.setdefault(float(workload.submit[j]), []).append(j)
    instants = sorted(set(sub) | set(by_start) | set(by_end))

    free = caps.copy()
    usage = np.zeros((n, k))
    running = np.zeros(n, np.int64)
    tsf_tasks = [{} for _ in range(n)]          # TSF: running tasks per monopoly count
    queue: list[deque] = [deque() for _ in range(n)]  # [row, tasks left]
    c0 = np.zeros((n, k)) if commitments is None else np.asarray(commitments, dtype=float).reshape(n, k).copy()
    t0 = np.zeros(n)
    ex = np.zeros((n, k))
    checked = 0

    def comm(u, t):
        return C.decay(c0[u], ex[u], t - t0[u], tau) if moves else c0[u]

    def change(u, t):
        if not moves:
            return
        c0[u] = comm(u, t)
        t0[u] = t
        ex[u] = C.excess_over(usage[u] / totals, fair[u])

    key_of = key

    def key(u, t):
        if key_of is not None:
            return float(key_of(u, usage, res[queue[u][0][0]]))
        if mechanism == "drf":
            return float(shares.dominant_shares(usage[u][None, :], totals, w[u:u + 1])[0])
        if mechanism == "cdrf":
            d = res[queue[u][0][0]]
            return float(shares.dominant_shares_after(usage[u][None, :], d[None, :], totals, w[u:u + 1])[0])
        if mechanism == "tsf":
            return float(sum(shares.task_shares(x, hh, w[u]) for hh, x in tsf_tasks[u].items()))
        o = usage[u] / totals
        c = comm(u, t)
        if priority == "level":
            return float(shares.sdrf_levels(shares.dominant_shares(o[None, :]), c[None, :], w[u:u + 1])[0])
        return float(shares.sdrf_printed_priorities(o[None, :], c[None, :], w[u:u + 1])[0])

    def tie(u):
        return float(workload.submit[queue[u][0][0]]) if ties == "wait" else 0.0

    def fits_somewhere(u):
        d = res[queue[u][0][0]]
        if admits is not None and not admits(u, usage, d):
            return False
        return bool((_fits(free, d) & place[u]).any())

    def fail(t, msg):
        raise ScheduleViolation(f"t={t!r}: {msg}")

    def first_of(cands, keys):
        """The users first in order (keys within atol; with check_ties the one by the tie rule)."""
        kmin = min(keys[v] for v in cands)
        group = [v for v in cands if keys[v] <= kmin + atol]
        if check_ties:
            return [min(group, key=lambda v: (tie(v), v))]
        return group

    for t in instants:
        ended = {}
        for j, cnt, m, _, _ in by_end.get(t, ()):                     # 1. completions
            u = int(user_of[j])
            for _ in range(cnt):
                free[m] += res[j]
                usage[u] -= res[j]
            running[u] -= cnt
            if running[u] == 0:
                usage[u] = 0.0
            if h_of is not None:
                tsf_tasks[u][h_of[j]] -= cnt
                if tsf_tasks[u][h_of[j]] == 0:
                    del tsf_tasks[u][h_of[j]]
            ended[u] = None
        for u in ended:
            change(u, t)
        for j in sub.get(t, ()):                                      # 2. arrivals
            queue[int(user_of[j])].append([j, int(workload.tasks[j])])
        for j, cnt, m, _, _ in by_start.get(t, ()):                   # 3. the pass
            u = int(user_of[j])
            for _ in range(cnt):
                if not queue[u] or queue[u][0][0] != j:
                    fail(t, f"job {j} of user {u} started but the oldest pending task of user {u} is "
                            f"{'none' if not queue[u] else 'of job ' + str(queue[u][0][0])} (FIFO / submission)")
                if admits is not None and not admits(u, usage, res[j]):
                    fail(t, f"job {j} of user {u} started though the rule refuses it (admits is False)")
                cands = [v for v in range(n) if queue[v] and (stop or fits_somewhere(v))]
                keys = {v: key(v, t) for v in cands}
                first = first_of(cands, keys)
                if u not in first:
                    v = first[0]
                    fail(t, f"job {j}: user {u} (key {keys[u]!r}) served before user {v} (key {keys[v]!r}, "
                            f"tie {tie(v)!r}) under {mechanism} {blocking}/{ties}")
                d = res[j]
                ok = _fits(free, d) & place[u]
                if not ok[m]:
                    fail(t, f"job {j} of user {u} started on server {m}, where it does not fit or may not run")
                idx = np.flatnonzero(ok)
                if server == "first_fit":
                    want = [int(idx[0])]
                else:
                    if server == "best_fit":
                        score = shares.normalized_demands(free[idx] - d, totals).sum(axis=1)
                    else:                                             # TV-TSF Algorithm 4
                        dn = shares.normalized_demands(d, totals)
                        fn = shares.normalized_demands(free[idx], totals)
                        r0 = int(np.argmax(dn > 0))
                        score = np.abs(dn / dn[r0] - fn / fn[:, r0:r0 + 1]).sum(axis=1)
                    want = idx[score <= score.min() + atol].tolist()
                if m not in want:
                    fail(t, f"job {j} of user {u} on server {m}; the {server} rule picks {want}")
                free[m] -= d
                usage[u] += d
                running[u] += 1
                if h_of is not None:
                    tsf_tasks[u][h_of[j]] = tsf_tasks[u].get(h_of[j], 0) + 1
                queue[u][0][1] -= 1
                if queue[u][0][1] == 0:
                    queue[u].popleft()
                change(u, t)
                checked += 1
        pending = [v for v in range(n) if queue[v]]                   # 4. how the pass ended
        if not pending:
            continue
        if stop:
            keys = {v: key(v, t) for v in pending}
            first = first_of(pending, keys)
            if all(fits_somewhere(v) for v in first):
                fail(t, f"the pass stopped (blocking='stop') though user {first[0]}, first, has a task that fits")
        else:
            open_ = [v for v in pending if fits_somewhere(v)]
            if open_:
                fail(t, f"the pass ended (blocking='skip') though user {open_[0]}'s task fits")
    left = [(v, queue[v][0][0]) for v in range(n) if queue[v]]
    if left:
        raise ScheduleViolation(f"tasks never started: user {left[0][0]}, job {left[0][1]} (and {len(left) - 1} more users)")
    return checked
