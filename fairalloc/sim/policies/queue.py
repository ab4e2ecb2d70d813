r"""Job-queue policies for rigid parallel jobs on identical processors.

Every policy keeps the waiting jobs, orders them by a key when the engine asks (at each queue event:
a job added or a job finished), and starts them **in that order until the first one that does not
fit** (no job overtakes the head: the papers' setting without backfilling). With ``backfill=True``
EASY backfilling [3]_ runs on top of that order: the first waiting job that does not fit gets a
reservation at the *shadow time* (the earliest time enough processors are free, from the running
jobs' start + requested time), and any later job may start now if it fits and either ends (by its
requested time) by the shadow time or uses only processors the head job will not need (the extra
processors: every running job expected to end by the shadow time counts, ties included). The one
implementation of that decision is :mod:`.easy`.

Orders (lower key first; ties always by arrival, i.e. FCFS underneath):

================  ===================================================================================
``FCFS``          arrival order
``SJF``           shortest requested time first
``WFP3``          :math:`(w / r)^3 \cdot n`, highest first (Tang et al. 2009 [1]_)
``UNICEF``        :math:`w / (\log_2(n) \cdot r)`, highest first [1]_; serial jobs (n = 1, where
                  :math:`\log_2 n = 0`) use :math:`\log_2 2 = 1`, i.e. they are scored as 2-processor jobs
``F1``            :math:`c_1 \sqrt{r} \cdot c_2 n + c_3 \log_{10} s`, lowest first (learned priorities, Table 1)
``F2``            :math:`c_1 r + c_2 \sqrt{n} + c_3 \log_{10} s`, lowest first (Table 1)
``BUC``           :math:`S_f = (0.8 S_u + 0.2 \cdot 10^5 / W_t) K_p + T_e`, highest first (BUC Eq. 2)
``PriorityPolicy`` any ``score(now, queue)`` you write
================  ===================================================================================

Here *w* is the wait so far (now - submit), *r* the run-time estimate a scheduler may use (the
requested time, or the actual run time when the workload has no request, e.g. Lublin's exact
estimates), *n* the processors and *s* the submit time in seconds from the trace start. *r* is
taken as at least 1 s in ratios. F1/F2 use the **decimal** logarithm of :math:`\max(s, 1)` (a job
submitted at s = 0 gets :math:`\log_{10} 1 = 0` instead of :math:`-\infty`).

*The base of F1/F2's logarithm.* The paper prints ``log s`` without a base (Table 1 and the text
around it say nothing more). The base matters: :math:`c_3` is fixed, so reading it as :math:`\ln s`
weighs the submit time :math:`\ln 10 \approx 2.30` times more than :math:`\log_{10} s`. Table 1's
:math:`c_3` is for :math:`\log_{10} s`, on three pieces of evidence from the authors' published
pipeline (SC'17, ``hpcsched/gen-sched-policies``, the same method and model):

* its regression (``nonlinear-regression/nlr_scipy_enumerate_functions.py``) has one logarithm in
  its function set, ``np.log10`` (labels ``log10, inv, sqrt, id``), and no natural logarithm;
* its simulator evaluates the learned functions with ``log10(submit[i])``
  (``sched-performance-tester/sched-simulator-runtime.c``), with :math:`c_3` of 0.0067-0.0074, the
  order of Table 1's 0.0071470 and 0.0069554;
* refitting Table 1's forms by least squares on the authors' published scores
  (``nonlinear-regression/score-distribution.csv``: 216 states of 32 jobs) gives, unweighted,
  :math:`c_3` = 0.0072143 (F1) and 0.0069532 (F2) with :math:`\log_{10} s`, against Table 1's
  0.0071470 and 0.0069554 (1 % and 0.03 %), while :math:`\ln s` gives 0.0031331 and 0.0030197
  (Table 1 / ln 10 would be 0.0031039 and 0.0030207). With the authors' weights
  (``curve_fit(..., sigma=1/(r n))``, which multiplies each residual by :math:`r n`)
  :math:`\log_{10}` gives 0.0067365 and 0.0040360 (the inverse weighting, residuals divided by
  :math:`r n`, gives 0.0068598 and 0.0059522);
* fairalloc's own run of the method (``fairalloc learn train``: 64 Lublin states of 16 + 32 jobs on
  256 processors, 50,000 orders each, seed 0; ``docs/reproductions/learned-training/report.md``)
  re-fits :math:`c_3` = 0.007218 (F1) and 0.007027 (F2) with :math:`\log_{10} s`, 1 % from Table 1.

(Those scores are the SC'17 artifacts, not necessarily the workshop's training set, so the other
coefficients need not match: F2's :math:`c_1, c_2` come out 1.17e-7 and 2.65e-4 against Table 1's
2e-7 and 3.207e-4.)

References
----------
.. [1] W. Tang, Z. Lan, N. Desai, D. Buettner, "Fault-aware, utility-based job scheduling on Blue
   Gene/P systems", IEEE Cluster 2009 (WFP3, UNICEF).
.. [2] D. Carastan-Santos, R. Y. de Camargo, "Obtendo políticas de escalonamento para HPC com
   simulação e regressão" (learned priorities, Table 1); and "Obtaining dynamic scheduling policies
   with simulation and machine learning", SC'17.
.. [3] A. W. Mu'alem, D. G. Feitelson, "Utilization, predictability, workloads, and user runtime
   estimates in scheduling the IBM SP2 with backfilling", IEEE TPDS 12(6), 2001.
.. [4] Corrêa, Pillon, "BUC: Beneficiador de Usuários Conscientes em Grades" (Eqs. 1-2).
"""

from __future__ import annotations

import logging
import math
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ...errors import InvalidInstanceError
from .base import Policy
from .easy import EasyCore

__all__ = ["QueuePolicy", "FCFS", "SJF", "PriorityPolicy", "WFP3", "UNICEF", "F1", "F2", "BUC",
           "QueueView", "ema_update", "threshold_update", "precision", "wfp3_score", "unicef_score", "f1_score",
           "f2_score", "buc_score", "make_queue_policy", "QUEUE_POLICIES", "F1_COEFFS", "F2_COEFFS"]

logger = logging.getLogger(__name__)

#: Table 1 of the learned-priorities paper.
F1_COEFFS = (0.0001352, 0.2765352, 0.0071470)
F2_COEFFS = (0.0000002, 0.0003207, 0.0069554)


@dataclass(frozen=True)
class QueueView:
    """The waiting jobs handed to a score function, as arrays aligned with ``jobs``.

    Built by :meth:`PriorityPolicy.view` at every queue event; a score function reads it and returns
    one value per waiting job.

    Attributes
    ----------
    now : float
        The current simulated time (seconds).
    jobs : ndarray of int, shape (q,)
        Workload rows of the waiting jobs, in arrival order.
    submit : ndarray, shape (q,)
        Their submission times (seconds).
    wait : ndarray, shape (q,)
        ``now - submit``, the wait so far (seconds).
    estimate : ndarray, shape (q,)
        Run-time estimate: the requested time, or the actual run time when no request is known.
    processors : ndarray of int, shape (q,)
    user : ndarray of int, shape (q,)
    requested_time : ndarray, shape (q,)
        The workload's columns for those rows (``requested_time`` NaN when unknown).

    Examples
    --------
    Four jobs on 4 processors; job 0 (4 processors) runs from 0 to 10, so jobs 1-3 (submitted at
    1, 2, 3) wait. The score is called when two or more jobs wait: at t = 2 (waits 1, 0), t = 3
    (2, 1, 0) and t = 10 (9, 8, 7):

    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 1, 2, 3], run_time=[10, 8, 2, 4], processors=[4, 2, 2, 1])
    >>> seen = []
    >>> def by_estimate(q):
    ...     seen.append((q.now, q.wait.tolist()))
    ...     return q.estimate
    >>> _ = fa.simulate(wl, 4, policy=PriorityPolicy(by_estimate))
    >>> seen
    [(2.0, [1.0, 0.0]), (3.0, [2.0, 1.0, 0.0]), (10.0, [9.0, 8.0, 7.0])]
    """

    now: float
    jobs: np.ndarray
    submit: np.ndarray
    wait: np.ndarray
    estimate: np.ndarray
    processors: np.ndarray
    user: np.ndarray
    requested_time: np.ndarray


# ---- score functions (array in, array out; lower = earlier unless stated) ------------------------
def wfp3_score(wait: Any, estimate: Any, processors: Any) -> np.ndarray:
    """WFP3 :math:`(w/r)^3 n` (higher = earlier), Tang et al. [1]_.

    Parameters
    ----------
    wait : array_like, shape (q,)
        Wait so far :math:`w` (seconds).
    estimate : array_like, shape (q,)
        Run-time estimate :math:`r` (seconds), taken as at least 1.
    processors : array_like, shape (q,)
        Processors :math:`n`.

    Returns
    -------
    ndarray, shape (q,)

    Examples
    --------
    >>> wfp3_score([10, 20], [10, 10], [4, 1]).tolist()   # (1)^3*4, (2)^3*1
    [4.0, 8.0]
    """
    r = np.maximum(np.asarray(estimate, float), 1.0)
    return (np.asarray(wait, float) / r) ** 3 * np.asarray(processors, float)


def unicef_score(wait: Any, estimate: Any, processors: Any) -> np.ndarray:
    """UNICEF :math:`w / (\\log_2(\\max(n, 2)) \\cdot r)` (higher = earlier), Tang et al. [1]_.

    Parameters
    ----------
    wait : array_like, shape (q,)
        Wait so far :math:`w` (seconds).
    estimate : array_like, shape (q,)
        Run-time estimate :math:`r` (seconds), taken as at least 1.
    processors : array_like, shape (q,)
        Processors :math:`n`; serial jobs are scored as :math:`n = 2` (:math:`\\log_2 1 = 0`).

    Returns
    -------
    ndarray, shape (q,)

    Examples
    --------
    >>> unicef_score([8, 8], [2, 2], [1, 4]).tolist()   # 8/(1*2), 8/(2*2)
    [4.0, 2.0]
    """
    r = np.maximum(np.asarray(estimate, float), 1.0)
    n = np.maximum(np.asarray(processors, float), 2.0)
    return np.asarray(wait, float) / (np.log2(n) * r)


def f1_score(estimate: Any, processors: Any, submit: Any, coeffs: tuple = F1_COEFFS) -> np.ndarray:
    """F1 :math:`c_1\\sqrt{r} \\cdot c_2 n + c_3 \\log_{10} \\max(s, 1)` (lower = earlier), learned priorities Table 1 [2]_.

    Parameters
    ----------
    estimate : array_like, shape (q,)
        Run-time estimate :math:`r` (seconds), taken as at least 1.
    processors : array_like, shape (q,)
        Processors :math:`n`.
    submit : array_like, shape (q,)
        Submission time :math:`s` (seconds from the trace start), taken as at least 1.
    coeffs : tuple of 3 floats, default :data:`F1_COEFFS`
        :math:`(c_1, c_2, c_3)`.

    Returns
    -------
    ndarray, shape (q,)

    Examples
    --------
    >>> round(float(f1_score([100], [2], [1])[0]), 9)   # 0.0001352*10 * 0.2765352*2 + 0
    0.000747751
    """
    c1, c2, c3 = coeffs
    r = np.maximum(np.asarray(estimate, float), 1.0)
    s = np.maximum(np.asarray(submit, float), 1.0)
    return c1 * np.sqrt(r) * c2 * np.asarray(processors, float) + c3 * np.log10(s)


def f2_score(estimate: Any, processors: Any, submit: Any, coeffs: tuple = F2_COEFFS) -> np.ndarray:
    """F2 :math:`c_1 r + c_2 \\sqrt{n} + c_3 \\log_{10} \\max(s, 1)` (lower = earlier), learned priorities Table 1 [2]_.

    Parameters
    ----------
    estimate : array_like, shape (q,)
        Run-time estimate :math:`r` (seconds), taken as at least 1.
    processors : array_like, shape (q,)
        Processors :math:`n`.
    submit : array_like, shape (q,)
        Submission time :math:`s` (seconds from the trace start), taken as at least 1.
    coeffs : tuple of 3 floats, default :data:`F2_COEFFS`
        :math:`(c_1, c_2, c_3)`.

    Returns
    -------
    ndarray, shape (q,)

    Examples
    --------
    >>> round(float(f2_score([100], [4], [1])[0]), 9)   # 0.0000002*100 + 0.0003207*2
    0.0006614
    """
    c1, c2, c3 = coeffs
    r = np.maximum(np.asarray(estimate, float), 1.0)
    s = np.maximum(np.asarray(submit, float), 1.0)
    return c1 * r + c2 * np.sqrt(np.asarray(processors, float)) + c3 * np.log10(s)


def buc_score(user_score: Any, walltime: Any, wait: Any, k_p: float) -> np.ndarray:
    """BUC Eq. 2: :math:`S_f = (0.8 S_u + 0.2 / (W_t / 10^5)) K_p + T_e` (higher = earlier) [4]_.

    Parameters
    ----------
    user_score : array_like, shape (q,)
        The job's user score :math:`S_u` (0..100).
    walltime : array_like, shape (q,)
        Requested walltime :math:`W_t` (seconds), taken as at least 1.
    wait : array_like, shape (q,)
        Wait so far :math:`T_e` (seconds).
    k_p : float
        Administrator constant :math:`K_p`.

    Returns
    -------
    ndarray, shape (q,)

    Examples
    --------
    >>> buc_score([60], [3600], [100], 1440).round(3).tolist()   # (48 + 0.2*27.778)*1440 + 100
    [77220.0]
    """
    w = np.maximum(np.asarray(walltime, float), 1.0)
    return (0.8 * np.asarray(user_score, float) + 0.2 / (w / 100000.0)) * k_p + np.asarray(wait, float)


def precision(run_time: float, walltime: float) -> float:
    """BUC Eq. 1 [4]_: :math:`P = R_t / W_t`, clipped to [0, 1]; NaN when the walltime is unknown or 0.

    Parameters
    ----------
    run_time : float
        Actual run time :math:`R_t` (seconds).
    walltime : float
        Requested walltime :math:`W_t` (seconds); NaN or 0 means unknown.

    Returns
    -------
    float
        The precision in [0, 1], or NaN.

    Examples
    --------
    Half the request used; a job that overran its request is clipped to 1; no request:

    >>> precision(30.0, 60.0), precision(90.0, 60.0), precision(30.0, float("nan"))
    (0.5, 1.0, nan)
    """
    if not walltime > 0:
        return float("nan")
    return min(max(run_time / walltime, 0.0), 1.0)


def ema_update(alpha: float = 0.1) -> Callable[[float, float], float]:
    """A BUC score update by moving average: :math:`S_u \\leftarrow (1-\\alpha) S_u + \\alpha \\cdot 100 P`.

    The paper gives no formula for the update; this is one of the project's two rules (the default
    is :func:`threshold_update`). Here S_u rises only when 100 P is above the current score, so a
    job counts as precise relative to the user's own history, and S_u tends to 100 P for a user of
    constant precision P (50 for P = 0.5, where the paper's user ends at 96.14). Use it when S_u
    should read as the user's recent mean precision.

    Parameters
    ----------
    alpha : float in (0, 1], default 0.1
        Weight of the newest precision.

    Returns
    -------
    callable
        ``update(score, precision) -> score``, named ``"ema(alpha=...)"``.

    Raises
    ------
    InvalidInstanceError
        ``alpha`` outside (0, 1].

    Examples
    --------
    From 60 with alpha 0.5: a precise job (P = 1) gives 0.5*60 + 0.5*100 = 80, a job with P = 0
    gives 30:

    >>> round(ema_update(0.5)(60.0, 1.0), 6), round(ema_update(0.5)(60.0, 0.0), 6)
    (80.0, 30.0)
    """
    if not 0.0 < alpha <= 1.0:
        raise InvalidInstanceError(f"alpha={alpha!r} must be in (0, 1]", argument="alpha", value=alpha)

    def update(score: float, p: float) -> float:
        return (1.0 - alpha) * score + alpha * 100.0 * p

    update.__name__ = f"ema(alpha={alpha})"
    return update


def threshold_update(alpha: float = 0.1, threshold: float = 0.5) -> Callable[[float, float], float]:
    r"""BUC's score update, the project's rule after the paper's words (Section 3): the default.

    The paper gives no formula, only the direction (Section 3, the paragraph of Eq. 1): "Ao término da execução de cada tarefa, este valor é reavaliado, sendo incrementado, se o
    usuário foi preciso na sua estimativa de Walltime da tarefa, ou decrementado, caso contrário. A
    variação ocorre a partir da precisão P obtida." A job is *precise* when :math:`P \ge`
    ``threshold``; then :math:`S_u` rises, otherwise it falls, by a step that grows with how precise
    (or imprecise) the job was and stays inside [0, 100] (the formula is ours):

    .. math::

        S_u \leftarrow S_u + \alpha P (100 - S_u) \quad (P \ge \theta), \qquad
        S_u \leftarrow S_u - \alpha (1 - P) S_u \quad (P < \theta).

    The paper gives neither the threshold nor the step. ``threshold=0.5`` is read from Section 4:
    the injected user of precision 0.5 (the "50%" category) ends with :math:`S_u = 96.14`, above
    the initial 60, so the paper counts P = 0.5 as precise; its P = 1 and P = 0 users end at 99 and
    4.8. ``alpha`` (the step's rate) is the project's choice, the one :func:`ema_update` had; it is
    not fitted to those final scores. Under this rule a user of constant precision 0.5 tends to 100,
    under :func:`ema_update` to 50.

    Parameters
    ----------
    alpha : float, default 0.1
        Rate of the step, in (0, 1].
    threshold : float, default 0.5
        Least precision :math:`\theta` that counts as precise, in [0, 1].

    Returns
    -------
    callable
        ``update(score, precision) -> new score``, both scores in [0, 100], precision in [0, 1].

    Raises
    ------
    InvalidInstanceError
        ``alpha`` outside (0, 1] or ``threshold`` outside [0, 1], naming the argument and value.

    See Also
    --------
    ema_update : the moving average of 100 P (a user's score reads as its recent mean precision).

    Examples
    --------
    With ``alpha=0.5`` from S_u = 60: P = 1 gives 60 + 0.5·1·40 = 80, P = 0.5 gives 60 + 0.5·0.5·40 =
    70, P = 0 gives 60 - 0.5·1·60 = 30 and P = 0.4 (imprecise) gives 60 - 0.5·0.6·60 = 42:

    >>> up = threshold_update(0.5)
    >>> [round(up(60.0, p), 6) for p in (1.0, 0.5, 0.0, 0.4)]   # 60+20, 60+10, 60-30, 60-18
    [80.0, 70.0, 30.0, 42.0]
    """
    if not 0.0 < alpha <= 1.0:
        raise InvalidInstanceError(f"alpha={alpha!r} must be in (0, 1]", argument="alpha", value=alpha)
    if not 0.0 <= threshold <= 1.0:
        raise InvalidInstanceError(f"threshold={threshold!r} must be in [0, 1]", argument="threshold",
                                   value=threshold)

    def update(score: float, p: float) -> float:
        if p >= threshold:
            return score + alpha * p * (100.0 - score)
        return score - alpha * (1.0 - p) * score

    update.__name__ = f"threshold(alpha={alpha}, threshold={threshold})"
    return update


# ---- the policies --------------------------------------------------------------------------------
def _rigid_units(state: Any, wl: Any) -> Any:
    """None for processors (a job needs ``processors`` of them); ``"pool"`` for one pool of one
    resource (a job needs its demand of it); else a clear error."""
    if hasattr(state, "capacity"):
        return None
    if getattr(state, "n_servers", 0) == 1 and getattr(state, "n_resources", 0) == 1:
        return "pool"
    raise InvalidInstanceError("the job-queue policies start rigid jobs on processors or on one pool of one "
                               f"resource, not on {type(state).__name__} with capacities of shape "
                               f"{getattr(state, 'capacities', np.zeros(0)).shape}", argument="capacity",
                               value=getattr(state, "capacities", None))


class QueuePolicy(Policy):
    """Base class: a queue ordered by :meth:`order`, strict order, optional EASY on top.

    Subclasses implement ``order(now) -> list of waiting jobs, first to start first``; the jobs
    start in that order until the first that does not fit (module docstring). Jobs are rigid: one
    task each, on the simulator's processor pool.

    Parameters
    ----------
    backfill : bool, default False
        EASY backfilling [3]_ on top of the order (:mod:`fairalloc.sim.policies.easy`); the name gains
        ``"+easy"``.

    Attributes
    ----------
    name : str
        The policy's name in results (``"queue"``, or ``"queue+easy"``).
    queue : list of int
        Waiting jobs (workload rows) in arrival order, after :meth:`reset`.
    reservations : dict
        With EASY: the first shadow time computed for each job when it was the blocked head.

    Examples
    --------
    Last come, first served. Job 0 holds all 4 processors until 10; at 10 the order is jobs 3, 2, 1:
    job 3 (1 processor) and job 2 (2) start, job 1 (2) does not fit in the 1 left and waits for job 2
    to end at 12:

    >>> class LIFO(QueuePolicy):
    ...     name = "lifo"
    ...     def order(self, now):
    ...         return self.queue[::-1]
    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 1, 2, 3], run_time=[10, 8, 2, 4], processors=[4, 2, 2, 1])
    >>> fa.simulate(wl, 4, policy=LIFO()).jobs["start"].tolist()
    [0.0, 12.0, 10.0, 10.0]
    """

    name = "queue"

    def __init__(self, *, backfill: bool = False) -> None:
        self.backfill = bool(backfill)
        if self.backfill and not self.name.endswith("+easy"):
            self.name = f"{self.name}+easy"

    def reset(self, sim: Any) -> None:
        super().reset(sim)
        self.state = sim.state
        wl = sim.workload
        self._whole = _rigid_units(sim.state, wl)
        self.procs = (wl.processors if self._whole is None else wl.resources[:, 0]).tolist()
        est = np.where(np.isnan(wl.requested_time), wl.run_time, wl.requested_time)
        self.estimate_arr = est
        self.estimate = est.tolist()
        self.submit_arr = wl.submit
        self.queue: list[int] = []
        if self.backfill:
            self.core = self._core()
            #: EASY: first shadow time (reservation) computed for each job when it was the blocked head
            self.reservations: dict[int, float] = self.core.reservations
        else:
            self.reservations = {}

    def on_submit(self, job: int, now: float) -> None:
        self.queue.append(job)

    def on_finish(self, job: int, tasks: int, server: int, now: float, killed: bool) -> None:
        if self.backfill:
            self.core.finished(job)

    def order(self, now: float) -> list[int]:
        return self.queue

    def schedule(self, now: float) -> list[tuple[int, int, int]]:
        queue = self.queue
        if not queue:
            return []
        if self.backfill:
            return self._easy(now)
        free = self._free()
        procs = self.procs
        order = self.order(now)
        started: list[int] = []
        for j in order:  # strict order
            p = procs[j]
            if p > free:
                break
            free -= p
            started.append(j)
        if started:
            gone = set(started)
            self.queue = [j for j in queue if j not in gone]
        return [(j, 1, 0) for j in started]

    def _core(self) -> EasyCore:
        """The EASY decision core (:mod:`.easy`), holding the running jobs between instants."""
        wl = self.sim.workload
        if self._whole is None:
            return EasyCore(wl.processors, self.estimate_arr, self.state.capacity, max(len(wl), 1))
        procs = wl.resources[:, 0]
        cap = float(self.state.capacities[0, 0])
        if not (np.all(procs == np.round(procs)) and cap == round(cap)):
            raise InvalidInstanceError("EASY backfilling on a pool of one resource needs whole-number demands "
                                       f"and capacity (capacity {cap!r}); give the capacity as a processor "
                                       "count instead", argument="capacity", value=cap)
        return EasyCore(procs.astype(np.int64), self.estimate_arr, int(cap), max(len(wl), 1))

    def _free(self) -> Any:
        """The free processors (an int), or the free amount of the one pooled resource (a copy: the
        pool's own array is read-only)."""
        if self._whole is None:
            return self.state.free
        f = float(self.state.free[0, 0])
        return int(round(f)) if self.backfill else f

    def _easy(self, now: float) -> list[tuple[int, int, int]]:
        """Strict order, then EASY: the waiting jobs in the current order handed to the core."""
        self.core.requeue(self.order(now))
        started, _ = self.core.step(now, self._free())
        if started:
            gone = set(started)
            self.queue = [j for j in self.queue if j not in gone]
        return [(j, 1, 0) for j in started]


class FCFS(QueuePolicy):
    """First come, first served (arrival order; ``backfill=True`` gives EASY backfilling).

    With EASY the waiting jobs stay in the core's index in arrival order from one instant to the
    next (:mod:`.easy`): a pass costs the jobs it starts, not the queue length.

    Parameters
    ----------
    backfill : bool, default False
        EASY backfilling (name ``"fcfs+easy"``).

    Examples
    --------
    Job 0 holds all 4 processors until 10; then jobs 1 and 2 (2 processors each) start and job 3
    waits for job 2 to end at 10 + 2 = 12:

    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 1, 2, 3], run_time=[10, 8, 2, 4], processors=[4, 2, 2, 1])
    >>> fa.simulate(wl, 4, policy=FCFS()).jobs["start"].tolist()
    [0.0, 10.0, 10.0, 12.0]
    """

    name = "fcfs"

    def reset(self, sim: Any) -> None:
        super().reset(sim)
        self.queue = deque()  # type: ignore[assignment]
        self.waiting = 0

    def on_submit(self, job: int, now: float) -> None:
        if self.backfill:
            self.core.push(job)
            self.waiting += 1
        else:
            self.queue.append(job)

    def schedule(self, now: float) -> list[tuple[int, int, int]]:
        if self.backfill:
            if not self.waiting:
                return []
            started, _ = self.core.step(now, self._free())
            self.waiting -= len(started)
            return [(j, 1, 0) for j in started]
        queue = self.queue
        if not queue:
            return []
        free = self._free()
        procs = self.procs
        out = []
        while queue and procs[queue[0]] <= free:
            j = queue.popleft()
            free -= procs[j]
            out.append((j, 1, 0))
        return out


class PriorityPolicy(QueuePolicy):
    """Order the queue by ``score(view) -> array`` (lower first, or higher with ``higher_first``).

    Parameters
    ----------
    score : callable
        ``score(view: QueueView) -> array of float``, one value per waiting job, evaluated at every
        queue event with the current time (so wait-based scores are time-dependent).
    higher_first : bool
        Start the highest score first instead of the lowest.
    backfill : bool
        EASY backfilling on top of the order.
    name : str

    Examples
    --------
    Largest job first, a policy the module does not ship:

    >>> widest = PriorityPolicy(lambda q: q.processors, higher_first=True, name="widest")
    """

    name = "priority"

    def __init__(self, score: Callable[[QueueView], Any] | None = None, *, higher_first: bool = False,
                 backfill: bool = False, name: str | None = None) -> None:
        if name is not None:
            self.name = name
        super().__init__(backfill=backfill)
        if score is not None:
            self.score = score  # type: ignore[method-assign]
        self.higher_first = bool(higher_first)

    def score(self, view: QueueView) -> np.ndarray:  # pragma: no cover - overridden
        raise NotImplementedError

    def view(self, now: float) -> QueueView:
        wl = self.sim.workload
        jobs = np.fromiter(self.queue, dtype=np.int64, count=len(self.queue))
        sub = self.submit_arr[jobs]
        return QueueView(now=now, jobs=jobs, submit=sub, wait=now - sub,
                         estimate=self.estimate_arr[jobs], processors=wl.processors[jobs],
                         user=wl.user[jobs], requested_time=wl.requested_time[jobs])

    def order(self, now: float) -> list[int]:
        if len(self.queue) <= 1:
            return self.queue
        v = self.view(now)
        key = np.asarray(self.score(v), dtype=float)
        if key.shape != v.jobs.shape:
            raise InvalidInstanceError(f"score returned shape {key.shape}, expected {v.jobs.shape}",
                                       argument="score", value=key.shape)
        if self.higher_first:
            key = -key
        return v.jobs[np.argsort(key, kind="stable")].tolist()  # stable: ties in arrival order


class SJF(PriorityPolicy):
    """Shortest requested time first (the actual run time where no request is known).

    Parameters
    ----------
    backfill : bool, default False
        EASY backfilling (name ``"sjf+easy"``).

    Examples
    --------
    At 10, jobs 1, 2, 3 wait with estimates 8, 2, 4: job 2 (2 processors) and job 3 (1) start, job
    1 (2) waits for job 2 to end at 12 (FCFS started job 1 at 10 instead):

    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 1, 2, 3], run_time=[10, 8, 2, 4], processors=[4, 2, 2, 1])
    >>> fa.simulate(wl, 4, policy=SJF()).jobs["start"].tolist()
    [0.0, 12.0, 10.0, 10.0]
    """

    name = "sjf"

    def score(self, view: QueueView) -> np.ndarray:
        return view.estimate


class WFP3(PriorityPolicy):
    """WFP3: :math:`(w/r)^3 \\cdot n`, highest first [1]_ (:func:`wfp3_score`).

    Parameters
    ----------
    backfill : bool, default False
        EASY backfilling (name ``"wfp3+easy"``).

    Examples
    --------
    At 10 the waits are 9, 8, 7 and the estimates 8, 2, 4: scores :math:`(9/8)^3 \\cdot 2 = 2.85`,
    :math:`(8/2)^3 \\cdot 2 = 128`, :math:`(7/4)^3 \\cdot 1 = 5.36`, so jobs 2 and 3 start and job 1
    waits until 12:

    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 1, 2, 3], run_time=[10, 8, 2, 4], processors=[4, 2, 2, 1])
    >>> fa.simulate(wl, 4, policy=WFP3()).jobs["start"].tolist()
    [0.0, 12.0, 10.0, 10.0]
    """

    name = "wfp3"

    def __init__(self, *, backfill: bool = False) -> None:
        super().__init__(higher_first=True, backfill=backfill)

    def score(self, view: QueueView) -> np.ndarray:
        return wfp3_score(view.wait, view.estimate, view.processors)


class UNICEF(PriorityPolicy):
    """UNICEF: :math:`w / (\\log_2(\\max(n,2)) \\cdot r)`, highest first [1]_ (n = 1 as n = 2).

    Parameters
    ----------
    backfill : bool, default False
        EASY backfilling (name ``"unicef+easy"``).

    Examples
    --------
    At 10: scores 9/(1*8) = 1.125, 8/(1*2) = 4, 7/(1*4) = 1.75 (every job has n <= 2, so
    :math:`\\log_2 = 1`): jobs 2 and 3 start, job 1 waits until 12:

    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 1, 2, 3], run_time=[10, 8, 2, 4], processors=[4, 2, 2, 1])
    >>> fa.simulate(wl, 4, policy=UNICEF()).jobs["start"].tolist()
    [0.0, 12.0, 10.0, 10.0]
    """

    name = "unicef"

    def __init__(self, *, backfill: bool = False) -> None:
        super().__init__(higher_first=True, backfill=backfill)

    def score(self, view: QueueView) -> np.ndarray:
        return unicef_score(view.wait, view.estimate, view.processors)


class F1(PriorityPolicy):
    """Learned function F1 (Table 1 [2]_, :func:`f1_score`), lowest first; decimal log of max(s, 1).

    Parameters
    ----------
    backfill : bool, default False
        EASY backfilling (name ``"f1+easy"``).
    coeffs : tuple of 3 floats, default :data:`F1_COEFFS`
        :math:`(c_1, c_2, c_3)`.

    Examples
    --------
    Submit time dominates on this small workload (:math:`c_1 c_2 \\sqrt{r}\\, n` is at most 2.2e-4 while :math:`c_3 \\log_{10} s` is 0, 0.0022, 0.0034 for s = 1, 2, 3`), so the order is arrival order,
    as FCFS:

    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 1, 2, 3], run_time=[10, 8, 2, 4], processors=[4, 2, 2, 1])
    >>> fa.simulate(wl, 4, policy=F1()).jobs["start"].tolist()
    [0.0, 10.0, 10.0, 12.0]
    """

    name = "f1"

    def __init__(self, *, backfill: bool = False, coeffs: tuple = F1_COEFFS) -> None:
        super().__init__(backfill=backfill)
        self.coeffs = tuple(coeffs)

    def score(self, view: QueueView) -> np.ndarray:
        return f1_score(view.estimate, view.processors, view.submit, self.coeffs)


class F2(PriorityPolicy):
    """Learned function F2 (Table 1 [2]_, :func:`f2_score`), lowest first; decimal log of max(s, 1).

    Parameters
    ----------
    backfill : bool, default False
        EASY backfilling (name ``"f2+easy"``).
    coeffs : tuple of 3 floats, default :data:`F2_COEFFS`
        :math:`(c_1, c_2, c_3)`.

    Examples
    --------
    Submit time dominates on this small workload (:math:`c_1 r + c_2 \\sqrt{n}` is at most 4.6e-4 while :math:`c_3 \\log_{10} s` is 0, 0.0021, 0.0033 for s = 1, 2, 3`), so the order is arrival order,
    as FCFS:

    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 1, 2, 3], run_time=[10, 8, 2, 4], processors=[4, 2, 2, 1])
    >>> fa.simulate(wl, 4, policy=F2()).jobs["start"].tolist()
    [0.0, 10.0, 10.0, 12.0]
    """

    name = "f2"

    def __init__(self, *, backfill: bool = False, coeffs: tuple = F2_COEFFS) -> None:
        super().__init__(backfill=backfill)
        self.coeffs = tuple(coeffs)

    def score(self, view: QueueView) -> np.ndarray:
        return f2_score(view.estimate, view.processors, view.submit, self.coeffs)


class BUC(PriorityPolicy):
    """BUC: reward users whose walltime requests are accurate (BUC Eqs. 1-2), FCFS underneath.

    Every user starts at ``initial_score`` (60 on a 0..100 scale). When a job of the user ends
    normally, its precision :math:`P = R_t / W_t` (Eq. 1, clipped to [0, 1]) updates the score with
    ``update(score, P)`` (default :func:`threshold_update`, the project's rule after the paper's
    words, which give no formula: up when :math:`P \\ge 0.5`, down otherwise, alpha 0.1;
    :func:`ema_update` is the alternative); jobs
    killed at their walltime and jobs without a walltime do not update it. Waiting jobs are ordered by Eq. 2,
    :math:`S_f = (0.8 S_u + 0.2 / (W_t / 10^5)) K_p + T_e`, highest first, recomputed at every queue
    event; equal :math:`S_f` keep arrival order. With equal scores *and* equal walltimes the order is
    FCFS (the :math:`W_t` term otherwise favours short requests even among equally precise users).

    Parameters
    ----------
    k_p : float, default 10800.0
        Administrator constant :math:`K_p` (the paper tries 1440 and 10800); must be > 0.
    initial_score : float, default 60.0
        :math:`S_u` of a user before its first finished job.
    update : callable ``(score, precision) -> score``, optional
        Default :func:`threshold_update` with alpha 0.1.
    backfill : bool, default False
        EASY backfilling (name ``"buc+easy"``).

    Attributes
    ----------
    scores : dict
        Current :math:`S_u` by user id (after a run: the final scores).
    history : list of (time, user, precision, score)

    Raises
    ------
    InvalidInstanceError
        ``k_p`` not finite and > 0.

    Examples
    --------
    Two users, one job each on its own processor: user 0 requested 10 s and ran 10 (P = 1), user 1
    requested 20 and ran 10 (P = 0.5, precise by the paper's reading). With the default update
    (:func:`threshold_update`, rate 0.1), 60 + 0.1*1*(100 - 60) = 64 and 60 + 0.1*0.5*(100 - 60) = 62:

    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 0], run_time=[10, 10], processors=[1, 1],
    ...                            requested_time=[10, 20], user=[0, 1])
    >>> b = BUC()
    >>> _ = fa.simulate(wl, 4, policy=b)
    >>> b.scores
    {0: 64.0, 1: 62.0}
    """

    name = "buc"

    def __init__(self, *, k_p: float = 10800.0, initial_score: float = 60.0,
                 update: Callable[[float, float], float] | None = None, backfill: bool = False) -> None:
        super().__init__(higher_first=True, backfill=backfill)
        if not (k_p > 0 and math.isfinite(k_p)):
            raise InvalidInstanceError(f"k_p={k_p!r} must be > 0", argument="k_p", value=k_p)
        self.k_p = float(k_p)
        self.initial_score = float(initial_score)
        self.update = update if update is not None else threshold_update(0.1)

    def reset(self, sim: Any) -> None:
        super().reset(sim)
        self.scores: dict[int, float] = {}
        self.history: list[tuple[float, int, float, float]] = []
        self.users = sim.workload.user
        self.runs = sim.workload.run_time
        self.walltimes = sim.workload.requested_time
        top = int(self.users.max()) + 2 if len(self.users) else 1
        self._su = np.full(top, self.initial_score)  # S_u by user id + 1 (slot 0: unknown user)

    def user_score(self, user: int) -> float:
        return self.scores.get(int(user), self.initial_score)

    def on_finish(self, job: int, tasks: int, server: int, now: float, killed: bool) -> None:
        super().on_finish(job, tasks, server, now, killed)
        if killed:
            return
        p = precision(float(self.runs[job]), float(self.walltimes[job]))
        if math.isnan(p):
            return
        u = int(self.users[job])
        s = self.update(self.user_score(u), p)
        self.scores[u] = s
        self._su[u + 1] = s
        self.history.append((now, u, p, s))

    def score(self, view: QueueView) -> np.ndarray:
        su = self._su[view.user + 1]
        wt = np.where(np.isnan(view.requested_time), view.estimate, view.requested_time)
        return buc_score(su, wt, view.wait, self.k_p)


#: Names understood by :func:`make_queue_policy` and ``fairalloc simulate --policy``.
QUEUE_POLICIES: dict[str, type[QueuePolicy]] = {
    "fcfs": FCFS, "sjf": SJF, "wfp3": WFP3, "unicef": UNICEF, "f1": F1, "f2": F2, "buc": BUC}


def make_queue_policy(name: str, **options: Any) -> QueuePolicy:
    """Build a policy by name; ``"easy"`` = FCFS + EASY, ``"<name>+easy"`` adds EASY to any.

    Parameters
    ----------
    name : str
        A key of :data:`QUEUE_POLICIES` (case-insensitive), ``"easy"``, or ``"<key>+easy"``.
    **options
        Keyword arguments of the policy's class (e.g. ``k_p`` for BUC, ``backfill``).

    Returns
    -------
    QueuePolicy

    Raises
    ------
    InvalidInstanceError
        An unknown name (the message lists the known ones).

    Examples
    --------
    >>> make_queue_policy("wfp3+easy").name, make_queue_policy("easy").name
    ('wfp3+easy', 'fcfs+easy')
    """
    key = str(name).lower().strip()
    backfill = options.pop("backfill", False)
    if key == "easy":
        key, backfill = "fcfs", True
    if key.endswith("+easy"):
        key, backfill = key[: -len("+easy")], True
    if key not in QUEUE_POLICIES:
        raise InvalidInstanceError(f"policy={name!r} is not one of "
                                   f"{', '.join(sorted(QUEUE_POLICIES))}, 'easy' or '<name>+easy'",
                                   argument="policy", value=name)
    return QUEUE_POLICIES[key](backfill=backfill, **options)
