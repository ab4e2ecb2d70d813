r"""The reference trial: one permutation of a state's queue scheduled in plain Python.

This is the oracle for the compiled batch kernel (:mod:`.trials`, the simulator's one loop) and
the pure-Python baseline it is timed against (``benchmarks/bench_learn.py``). It is deliberately slim: lists, loops, no index structures.

**The schedule** of a list of rigid jobs on ``capacity`` identical processors, given a list order
(S in trace order, then Q in the trial's permutation; :mod:`.states`):

* without backfilling (the paper's setting, and the authors' simulator ``trials_simulator.c``):
  jobs start **strictly in list order**; job *j* starts at the earliest time
  :math:`t \ge \max(b_{prev}, \sigma_j)` at which at least :math:`n_j` processors are free, where
  :math:`b_{prev}` is the start of the job before it in the list and :math:`\sigma_j` its submit
  time; a job holds its processors from its start to start + run time, and processors freed at *t*
  are free at *t*. (The authors' SimGrid run adds a message latency of a few milliseconds per job;
  it is not modelled.)
* with EASY backfilling (``backfill=True``, the paper's stated future work), in the event-driven
  form of ``fairalloc.sim.policies.easy``: at each instant (a submit time or an end), the first
  unstarted job in list order (the *head*) starts if it has been submitted and fits, and so on;
  otherwise it gets a reservation at its *shadow time*, the earliest
  :math:`t \ge \max(now, \sigma_h)` at which it would fit if every running job ended at its
  expected end :math:`\hat e = \max(b + \text{estimate}, now)`; the *extra* processors are those free
  at the shadow time beyond the head's need, counting every running job expected to end by then.
  Each later job in list order that has been submitted and fits in the free processors then starts
  if it ends (by its estimate) by the shadow time or uses only extra processors (which it then uses up).
  Without backfilling the same loop is the strict list order above.

**A trial's outcome** is AVEbsld over the queue Q only (paper Eq. 1, :math:`\tau` = 10 s):
:math:`\frac{1}{|Q|}\sum_{i \in Q} \max\{(w_i + r_i)/\max(r_i, \tau), 1\}` with
:math:`w_i = b_i - \sigma_i` (``fairalloc.sim.metrics.bounded_slowdown``, the one definition).

The batch contract, which a compiled kernel must meet exactly: :func:`reference_trials` takes one
state's arrays and a ``(P, q)`` array of permutations and returns the ``(P,)`` AVEbsld values.

References
----------
.. [1] D. Carastan-Santos, R. Y. de Camargo, learned nonlinear priority functions (workshop paper),
   Section 2, Eq. 1; SC'17 code ``hpcsched/gen-sched-policies`` (``trials_simulator.c``).
.. [2] A. W. Mu'alem, D. G. Feitelson, "Utilization, predictability, workloads, and user runtime
   estimates in scheduling the IBM SP2 with backfilling", IEEE TPDS 12(6), 2001 (EASY).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ...errors import InvalidInstanceError
from ...sim.metrics import TAU, bounded_slowdown
from ...validation import require_fits

__all__ = ["reference_schedule", "reference_trials", "check_state", "check_permutations", "trial_avebsld"]


def reference_schedule(run_time: Sequence[float], processors: Sequence[int], submit: Sequence[float],
                       order: Sequence[int], *, capacity: int, estimate: Sequence[float] | None = None,
                       backfill: bool = False) -> np.ndarray:
    """Start times of every job when the jobs are scheduled in list ``order`` (module docstring).

    Parameters
    ----------
    run_time, processors, submit : sequence, length m
        The jobs (seconds, processors, seconds).
    order : sequence of int
        The list order: a permutation of ``range(m)``.
    capacity : int
        Processors of the cluster (every job must fit: ``processors <= capacity``).
    estimate : sequence, length m, optional
        Run-time estimates for EASY's reservations (default: the run times).
    backfill : bool, default False
        EASY backfilling over the list order.

    Returns
    -------
    ndarray, shape (m,)
        Start time of each job (indexed like the inputs, not like ``order``).

    Examples
    --------
    Two processors; job 0 (2 wide, 10 s) then job 1 (1 wide, 5 s) then job 2 (1 wide, 3 s), all
    submitted at 0. In list order 0, 1, 2: job 0 runs 0-10, jobs 1 and 2 start together at 10.
    In order 1, 0, 2 without backfilling job 1 runs 0-5, job 0 waits for it (5-15) and job 2
    must not overtake job 0: it starts at 15. With EASY, job 2 (3 s) fits beside job 1 and ends
    by job 0's reservation at 5, so it starts at 0:

    >>> reference_schedule([10, 5, 3], [2, 1, 1], [0, 0, 0], [0, 1, 2], capacity=2).tolist()
    [0.0, 10.0, 10.0]
    >>> reference_schedule([10, 5, 3], [2, 1, 1], [0, 0, 0], [1, 0, 2], capacity=2).tolist()
    [5.0, 0.0, 15.0]
    >>> reference_schedule([10, 5, 3], [2, 1, 1], [0, 0, 0], [1, 0, 2], capacity=2, backfill=True).tolist()
    [5.0, 0.0, 0.0]
    """
    run = [float(x) for x in run_time]
    procs = [int(x) for x in processors]
    sub = [float(x) for x in submit]
    est = run if estimate is None else [float(x) for x in estimate]
    m = len(run)
    order = [int(j) for j in order]
    if sorted(order) != list(range(m)):
        raise InvalidInstanceError(f"order={order!r} is not a permutation of range({m})", argument="order",
                                   value=order)
    require_fits("processors", procs, capacity)
    start = [float("nan")] * m
    pending = list(order)              # unstarted jobs, in list order
    running: list[tuple[float, float, int]] = []   # (end, expected end from start + estimate, processors)
    free = capacity
    now = min(sub) if m else 0.0
    while pending:
        still = []
        for end, exp, p in running:    # processors freed at `now` are free at `now`
            if end <= now:
                free += p
            else:
                still.append((end, exp, p))
        running = still
        while pending and sub[pending[0]] <= now and procs[pending[0]] <= free:
            j = pending.pop(0)
            start[j] = now
            free -= procs[j]
            running.append((now + run[j], now + est[j], procs[j]))
        if not pending:
            break
        if backfill and len(pending) > 1:
            head = pending[0]
            ready = max(now, sub[head])
            expected = sorted((max(exp, now), p) for _, exp, p in running)
            avail = free + sum(p for e, p in expected if e <= ready)
            shadow = ready
            for e, p in expected:      # earliest expected end at which the head fits
                if avail >= procs[head]:
                    break
                if e > ready:
                    avail += p
                    shadow = e
            extra = free + sum(p for e, p in expected if e <= shadow) - procs[head]
            for j in list(pending[1:]):
                fits = sub[j] <= now and procs[j] <= free
                if fits and (now + est[j] <= shadow or procs[j] <= extra):
                    pending.remove(j)
                    start[j] = now
                    free -= procs[j]
                    running.append((now + run[j], now + est[j], procs[j]))
                    if not now + est[j] <= shadow:
                        extra -= procs[j]
        events = [end for end, _, _ in running if end > now] + [sub[j] for j in pending if sub[j] > now]
        now = min(events)              # never empty: every job fits on the empty cluster
    return np.array(start, dtype=float)


def check_permutations(permutations: Any, q: int) -> np.ndarray:
    """``permutations`` as an array of shape (P, q), P >= 1, each row a permutation of ``range(q)``
    (the batch contract's check, shared by every implementation of it).

    Raises
    ------
    InvalidInstanceError
        Another shape, no rows (P = 0), a row that is not a permutation (naming it).
    """
    perms = np.asarray(permutations)
    if perms.ndim != 2 or perms.shape[0] == 0 or perms.shape[1] != q:
        raise InvalidInstanceError(f"permutations has shape {perms.shape}; expected (P, {q}) with P >= 1 (one row "
                                   "per trial)", argument="permutations", value=perms.shape)
    ok = (np.sort(perms, axis=1) == np.arange(q)).all(axis=1)
    if not ok.all():
        bad = int(np.flatnonzero(~ok)[0])
        raise InvalidInstanceError(f"permutations[{bad}]={perms[bad].tolist()} is not a permutation of range({q})",
                                   argument="permutations", index=(bad,), value=perms[bad].tolist())
    return perms


def check_state(run_time: Any, processors: Any, submit: Any, estimate: Any = None, *, started: int,
                capacity: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One state's arrays as float run times, int processors, float submit times and estimates, checked
    as :class:`~.states.States` checks a batch (the one place of those rules): equal lengths, times
    finite and >= 0, processors integers from 1 to ``capacity``, and a queue of at least 2 jobs after
    the ``started`` ones (an empty or one-job queue has nothing to permute). Errors name the array and
    the (state, job) index, the state being 0.

    Examples
    --------
    >>> check_state([5, 3], [1, 1], [0, 1], started=2, capacity=2)
    Traceback (most recent call last):
    ...
    fairalloc.errors.InvalidInstanceError: a state of 2 jobs with started=2 leaves a queue of 0 job(s); \
the method permutes the queue, so it needs at least 2
    """
    from .states import States

    st = States(run_time=[np.asarray(run_time, dtype=float)], processors=[np.asarray(processors, dtype=float)],
                submit=[np.asarray(submit, dtype=float)],
                estimate=None if estimate is None else [np.asarray(estimate, dtype=float)],
                capacity=capacity, started=started)
    return st.run_time[0], st.processors[0], st.submit[0], st.estimate[0]


def reference_trials(run_time: Any, processors: Any, submit: Any, estimate: Any = None, *, started: int,
                     capacity: int, permutations: Any, backfill: bool = False, tau: float = TAU) -> np.ndarray:
    """AVEbsld over Q of each permutation of one state's queue (the batch contract, module docstring).

    Parameters
    ----------
    run_time, processors, submit : array_like, shape (m,)
        One state's jobs, S (the first ``started``) then Q, as :class:`~.states.States` holds them.
    estimate : array_like, shape (m,), optional
        Estimates for EASY (default: the run times).
    started : int
        |S|.
    capacity : int
        Processors of the cluster.
    permutations : array_like of int, shape (P, q)
        Row *p* lists the queue's jobs ``0 .. q-1`` (column ``started + k`` of the state is job *k*)
        in the order trial *p* starts them.
    backfill : bool, default False
        EASY backfilling over the list order.
    tau : float, default 10
        The bounded slowdown's threshold (seconds).

    Returns
    -------
    ndarray, shape (P,)
        AVEbsld of Q in each trial.

    Raises
    ------
    InvalidInstanceError
        What :func:`check_state` refuses (an empty or one-job queue, a time that is negative or not
        finite, e.g. an unknown run time, a job wider than the cluster), no permutations (P = 0), rows
        that are not permutations of ``range(q)``.

    Examples
    --------
    The two orders of a two-job queue on 1 processor, no S: job 0 (100 s) first gives bounded
    slowdowns 1 and (100 + 10) / 10 = 11, mean 6; job 1 (10 s) first gives 1 and (10 + 100) / 100
    = 1.1, mean 1.05:

    >>> reference_trials([100, 10], [1, 1], [0, 0], started=0, capacity=1, permutations=[[0, 1], [1, 0]]).tolist()
    [6.0, 1.05]
    """
    run, procs, sub, est = check_state(run_time, processors, submit, estimate, started=started, capacity=capacity)
    perms = check_permutations(permutations, run.shape[0] - started)
    head = list(range(started))
    out = np.empty(perms.shape[0])
    for p, perm in enumerate(perms.tolist()):
        order = head + [started + k for k in perm]
        start = reference_schedule(run, procs, sub, order, capacity=capacity, estimate=est, backfill=backfill)
        out[p] = trial_avebsld(start[None, started:], sub[started:], run[started:], tau)[0]
    return out


def trial_avebsld(start: np.ndarray, submit: np.ndarray, run: np.ndarray, tau: float = TAU) -> np.ndarray:
    """AVEbsld (Eq. 1) of each row of queued jobs' start times ``start`` (trials, q), with waits
    ``start - submit``: the mean of :func:`fairalloc.sim.metrics.bounded_slowdown` over the row, summed
    job after job in a fixed order so that every implementation of the batch contract gives the
    same floating-point value whatever the number of rows (numpy's own mean sums differently over
    a row of a block and over a 1-d array).

    Examples
    --------
    >>> trial_avebsld(np.array([[0., 100.], [10., 0.]]), np.zeros(2), np.array([100., 10.])).tolist()
    [6.0, 1.05]
    """
    b = bounded_slowdown(start - submit, run, tau)
    total = b[:, 0].copy()
    for k in range(1, b.shape[1]):
        total += b[:, k]
    return total / b.shape[1]
