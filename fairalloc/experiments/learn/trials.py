r"""The trials of a state on the simulator's compiled loop: the batch contract of :mod:`.reference`, fast.

A trial schedules one state's jobs in one list order (S in trace order, then Q in the trial's
permutation) and measures AVEbsld over Q (:mod:`.reference` defines both). Here every trial is a
*list schedule* of the simulator's one compiled loop, :func:`fairalloc.sim.kernels.rigid_run` with
``listed=True`` (each job queued at its list position from the first instant, startable from its
submit time; EASY's core, :mod:`fairalloc.sim.policies.easy`, decides), run for a whole batch of
permutations in one compiled call (:func:`fairalloc.sim.kernels.rigid_batch`): there is no second
copy of the schedule rule. AVEbsld is then :func:`~.reference.trial_avebsld` over the batch, as the
reference computes it (:func:`fairalloc.sim.metrics.bounded_slowdown`, the one definition of Eq. 1).

:func:`compiled_trials` has the signature and meaning of :func:`~.reference.reference_trials`, and
the tests require identical outcomes on seeded states (the reference is the oracle); it is the
default of :func:`~.scores.score_states`. Speed: ``benchmarks/bench_learn.py`` (trials per CPU
second against the reference in the same run; figures in ``benchmarks/RESULTS.md``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import InvalidInstanceError
from ...sim.kernels import rigid_batch
from ...sim.metrics import TAU
from .reference import check_permutations, check_state, trial_avebsld

__all__ = ["compiled_trials", "CHUNK"]

#: Trials simulated per compiled call (bounds the memory of the start-time block: CHUNK x jobs floats).
CHUNK = 8192


def compiled_trials(run_time: Any, processors: Any, submit: Any, estimate: Any = None, *, started: int,
                    capacity: int, permutations: Any, backfill: bool = False, tau: float = TAU,
                    chunk: int = CHUNK) -> np.ndarray:
    """AVEbsld over Q of each permutation of one state's queue, on the compiled loop (module docstring).

    Parameters
    ----------
    run_time, processors, submit, estimate, started, capacity, permutations, backfill, tau
        As :func:`~.reference.reference_trials`.
    chunk : int, default :data:`CHUNK`
        Trials per compiled call.

    Returns
    -------
    ndarray, shape (P,)
        AVEbsld of Q in each trial.

    Raises
    ------
    InvalidInstanceError
        As :func:`~.reference.reference_trials`: an empty or one-job queue, a negative or non-finite
        time (an unknown run time), a job wider than the cluster, no permutations (P = 0), rows that
        are not permutations.

    Examples
    --------
    The reference's two-job example: job 0 (100 s) first gives mean bounded slowdown 6, job 1
    (10 s) first gives 1.05:

    >>> compiled_trials([100, 10], [1, 1], [0, 0], started=0, capacity=1, permutations=[[0, 1], [1, 0]]).tolist()
    [6.0, 1.05]
    """
    run, procs, sub, est = check_state(run_time, processors, submit, estimate, started=started, capacity=capacity)
    m = run.shape[0]
    perms = check_permutations(permutations, m - started)
    if isinstance(chunk, bool) or not isinstance(chunk, (int, np.integer)) or chunk < 1:
        raise InvalidInstanceError(f"chunk={chunk!r} must be an integer >= 1", argument="chunk", value=chunk)
    arrival = np.argsort(sub, kind="stable")            # the loop takes jobs in arrival order
    position = np.empty(m, dtype=np.int64)
    position[arrival] = np.arange(m)
    q = m - started
    queue_pos = position[started:]                       # arrival position of queued job k
    wait_sub, run_q = sub[started:], run[started:]
    out = np.empty(perms.shape[0])
    ranks = np.empty((min(chunk, perms.shape[0]), m), dtype=np.int64)
    ranks[:, position[:started]] = np.arange(started)    # S first, in trace order
    for lo in range(0, perms.shape[0], chunk):
        block = perms[lo:lo + chunk]
        b = block.shape[0]
        rk = ranks[:b]
        # the queued job at list place started + t is block[:, t]: its rank, at its arrival position
        rk[np.arange(b)[:, None], queue_pos[block]] = started + np.arange(q)
        start = rigid_batch(sub[arrival], procs[arrival], run[arrival], est[arrival], capacity, rk,
                            backfill=backfill)
        out[lo:lo + b] = trial_avebsld(start[:, queue_pos], wait_sub, run_q, tau)
    return out
