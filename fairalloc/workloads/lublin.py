r"""The Lublin-Feitelson (2003) model of rigid parallel jobs: sizes, run times and daily arrivals.

Implemented from the parameters of the reference C program ``m_lublin99.c`` (Parallel Workloads
Archive) as transcribed in ``shared/papers/lublin_model.md``, vectorised with numpy. Per job:

1. **Size** (two-stage uniform on :math:`\log_2` of the node count): with probability
   ``serial_prob`` one node; otherwise ``par`` ~ U(ULow, UMed) with probability UProb, else
   U(UMed, UHi); jobs with :math:`u \le` serial + pow2 probability round ``par`` to an integer
   (power-of-two sizes); nodes = ``floor(2**par + 0.5)``.
2. **Run time** (hyper-gamma on log run time): :math:`p = \mathrm{clip}(PA \cdot nodes + PB, 0, 1)`;
   ``hg`` ~ Gamma(A1, B1) with probability *p*, else Gamma(A2, B2) (shape, scale), redrawn while
   ``hg > 12``; run time = ``floor(exp(hg))`` seconds.
3. **Arrivals** (daily cycle): 48 half-hour buckets weighted by
   :math:`w_{(i-1) \bmod 48} = \Gamma_{cdf}(i+\tfrac12) - \Gamma_{cdf}(i-\tfrac12)` with the
   Gamma(ANUM, BNUM) law, :math:`i = 11..58`, normalised to mean 1. Each inter-arrival draws
   ``g`` ~ Gamma(AARR * ARAR, BARR) (redrawn while ``g > 13``) and buys ``exp(g) / 1800`` points; time
   passes through bucket *b* at ``w[b]`` points per 1800 s. Equivalently, arrival *k* happens at
   :math:`W^{-1}(\sum_{j \le k} e^{g_j} / 1800)` with *W* the cumulative weight, which is how it is
   computed here (vectorised, exact up to rounding). The day starts at midnight (``START = 0``).
   With ``typed=True`` batch (type 1) and interactive (type 0) jobs arrive as two independent
   streams merged by time, each with its own parameters; ``typed=False`` uses the typeless
   ("whole sample") parameters and labels every job type 0, as the C program does.

Deviations from the C program, all deliberate: numpy's generator replaces ``drand48``; submission
times are the floor of the exact continuous times instead of the C code's per-step truncation of the
running total (which drifts about 0.5 s earlier per job); the size parameters for machines other than
128 nodes are shifted by ``log2(nodes) - 7`` (the table's UHI = 7 is a 128-node machine; the C comment
advises UMED between UHI - 3.5 and UHI - 1.5), with the interactive UHI capped at the machine.

Jobs per day (issue 16). The typeless parameters give 94.8 jobs a day in expectation: a day is 48
points, and an arrival costs :math:`E[e^g]/1800` points with :math:`g \sim` Gamma(AARR ARAR, BARR)
truncated at 13, :math:`E[e^g] = 911.3` s. That mean is carried by rare long gaps (the tilted law
:math:`e^g\,\mathrm{Gamma}(a, b)` is Gamma(a, b / (1 - b)), mean g = 9.9, about 5.7 h, while g's own
mean is 5.1, about 2.7 min), so the rate of one trace varies a lot: over 300 traces of 10,000 jobs
(seeds 0..299) it is 84.3..108.2 jobs a day (5-95%), mean 95.4, and 1.7% of the traces reach the 112.0
of the model program's ``lublin_256.swf`` (10,000 jobs over 89.3 days). The C program's arrival code
(``arrive_init``, ``calc_next_arrive``: the same bucket weights, points and remainders; its
``gamrnd`` draws Gamma(int a) + Gamma(frac a) exactly) matches this module line by line, and the
file's log inter-arrival times, measured in the model's points, have mean 5.06 and variance 2.48
against the model's 5.10 and 2.48 (the means two standard errors apart). So the gap is a high draw
(or an unrecorded change of the program), not a different process; nothing was changed here. Command:
``python benchmarks/bench_sdrf_gaps.py lublin --seeds 300``.

The model has no users and no requested times. ``n_users`` assigns users (Zipf-like popularity,
seeded), and ``estimate`` sets requested times: ``"exact"`` (requested = run time) or a factor
``f >= 1`` (requested = run time x U(1, f), rounded up to a whole minute; a simple stand-in, not
Tsafrir's 2005 estimate model).

References
----------
.. [1] U. Lublin, D. G. Feitelson, "The workload on parallel supercomputers: modeling the
   characteristics of rigid jobs", J. Parallel Distrib. Comput. 63(11):1105-1122, 2003.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from scipy.special import gammainc

from ..rng import as_generator
from ..errors import InvalidInstanceError
from .workload import Workload

__all__ = ["lublin", "LublinParams", "LUBLIN_BATCH", "LUBLIN_INTERACTIVE", "LUBLIN_TYPELESS",
           "arrival_weights"]

logger = logging.getLogger(__name__)

BUCKETS = 48
SECONDS_IN_BUCKET = 1800.0
CYCLIC_DAY_START = 11
TOO_MUCH_TIME = 12.0
TOO_MUCH_ARRIVE_TIME = 13.0


@dataclass(frozen=True)
class LublinParams:
    """One job type's parameters (``m_lublin99.c`` defines; values for a 128-node machine).

    The steps that use them are in the module docstring; the shipped sets are
    :data:`LUBLIN_BATCH`, :data:`LUBLIN_INTERACTIVE` and :data:`LUBLIN_TYPELESS`.

    Attributes
    ----------
    serial_prob : float
        Probability of a one-node job (``SERIAL_PROB``).
    pow2_prob : float
        Probability of a parallel power-of-two size: a job whose uniform draw is at most
        ``serial_prob + pow2_prob`` rounds its :math:`\\log_2` size to an integer (``POW2_PROB``).
    ulow, umed, uhi : float
        Bounds of the two-stage uniform on :math:`\\log_2` of the size (``ULOW``, ``UMED``, ``UHI``).
    uprob : float
        Probability of the lower stage U(ulow, umed) (``UPROB``).
    a1, b1, a2, b2 : float
        Shape and scale of the two Gamma laws of the log run time (``A1``, ``B1``, ``A2``, ``B2``).
    pa, pb : float
        The first law's probability :math:`\\mathrm{clip}(pa \\cdot nodes + pb, 0, 1)` (``PA``, ``PB``).
    aarr, barr, arar : float
        Inter-arrival Gamma(aarr * arar, barr) on log seconds (``AARR``, ``BARR``, ``ARAR``).
    anum, bnum : float
        Gamma(anum, bnum) of the daily cycle (:func:`arrival_weights`; ``ANUM``, ``BNUM``).

    Examples
    --------
    A variant with more serial jobs, from the whole-sample set (frozen: use
    :func:`dataclasses.replace`):

    >>> import dataclasses
    >>> p = dataclasses.replace(LUBLIN_TYPELESS, serial_prob=0.5)
    >>> p.serial_prob, LUBLIN_TYPELESS.serial_prob, p.uhi
    (0.5, 0.244, 7.0)
    """

    serial_prob: float
    pow2_prob: float
    ulow: float
    umed: float
    uhi: float
    uprob: float
    a1: float
    b1: float
    a2: float
    b2: float
    pa: float
    pb: float
    aarr: float
    barr: float
    anum: float
    bnum: float
    arar: float


#: Batch jobs (type code 1).
LUBLIN_BATCH = LublinParams(0.2927, 0.6686, 1.2, 5.0, 7.0, 0.875, 6.57, 0.823, 639.1, 0.0156,
                            -0.003, 0.6986, 6.0415, 0.8531, 6.1271, 5.2740, 1.0519)
#: Interactive jobs (type code 0, ``ACTIVE`` in the C code).
LUBLIN_INTERACTIVE = LublinParams(0.1541, 0.625, 1.0, 3.0, 5.5, 0.705, 3.8351, 0.6605, 7.073,
                                  0.6856, -0.0118, 0.9156, 6.5510, 0.6621, 8.9186, 3.6680, 0.9797)
#: The whole sample (``INCLUDE_JOBS_TYPE = 0``).
LUBLIN_TYPELESS = LublinParams(0.244, 0.576, 0.8, 4.5, 7.0, 0.86, 4.2, 0.94, 312.0, 0.03, -0.0054,
                               0.78, 10.2303, 0.4871, 8.1737, 3.9631, 1.0225)


def arrival_weights(anum: float, bnum: float) -> np.ndarray:
    """The 48 half-hour bucket weights of the daily cycle, normalised to mean 1 (``arrive_init``).

    :math:`w_{(i-1) \\bmod 48} = \\Gamma_{cdf}(i+\\tfrac12) - \\Gamma_{cdf}(i-\\tfrac12)` for
    :math:`i = 11..58` with the Gamma(``anum``, ``bnum``) law (shape, scale), then divided by the mean.

    Parameters
    ----------
    anum : float
        Shape of the Gamma law (> 0).
    bnum : float
        Scale of the Gamma law (> 0).

    Returns
    -------
    ndarray, shape (48,)
        Bucket 0 is 00:00-00:30.

    Examples
    --------
    The weights average 1 and the quietest half-hour falls in the early morning (buckets 6-13,
    03:00-07:00), as the model's daily cycle says:

    >>> w = arrival_weights(LUBLIN_TYPELESS.anum, LUBLIN_TYPELESS.bnum)
    >>> w.shape, round(float(w.mean()), 12), int(w.argmin()) in range(6, 14)
    ((48,), 1.0, True)
    """
    w = np.zeros(BUCKETS)
    for i in range(CYCLIC_DAY_START, BUCKETS + CYCLIC_DAY_START):
        # Gamma(shape anum, scale bnum) CDF = regularised lower incomplete gamma P(anum, x / bnum)
        w[(i - 1) % BUCKETS] = gammainc(anum, (i + 0.5) / bnum) - gammainc(anum, (i - 0.5) / bnum)
    return w / w.mean()


def _gamma_below(rng: np.random.Generator, shape: float, scale: float, limit: float,
                 size: int) -> np.ndarray:
    """Gamma(shape, scale) draws, each redrawn while above ``limit`` (the C code's do-while)."""
    out = rng.gamma(shape, scale, size)
    bad = np.flatnonzero(out > limit)
    while bad.size:
        out[bad] = rng.gamma(shape, scale, bad.size)
        bad = bad[out[bad] > limit]
    return out


def _sizes(rng: np.random.Generator, p: LublinParams, n: int) -> np.ndarray:
    u = rng.random(n)
    first = rng.random(n) <= p.uprob
    par = np.where(first, rng.uniform(p.ulow, p.umed, n), rng.uniform(p.umed, p.uhi, n))
    pow2 = u <= p.serial_prob + p.pow2_prob
    par = np.where(pow2, np.floor(par + 0.5), par)
    nodes = np.floor(2.0 ** par + 0.5).astype(np.int64)
    nodes[u <= p.serial_prob] = 1
    return nodes


def _run_times(rng: np.random.Generator, p: LublinParams, nodes: np.ndarray) -> np.ndarray:
    n = nodes.size
    prob = np.clip(p.pa * nodes + p.pb, 0.0, 1.0)
    hg = np.empty(n)
    bad = np.arange(n)
    while bad.size:  # hyper-gamma, redrawn while > TOO_MUCH_TIME (the mixture is redrawn too)
        first = rng.random(bad.size) <= prob[bad]
        draw = np.where(first, rng.gamma(p.a1, p.b1, bad.size), rng.gamma(p.a2, p.b2, bad.size))
        hg[bad] = draw
        bad = bad[draw > TOO_MUCH_TIME]
    return np.floor(np.exp(hg))


def _arrivals(rng: np.random.Generator, p: LublinParams, n: int | None,
              horizon: float | None) -> np.ndarray:
    """Arrival times of one stream: the first ``n`` or all before ``horizon`` seconds."""
    w = arrival_weights(p.anum, p.bnum)
    cum = np.concatenate([[0.0], np.cumsum(w)])  # points paid by the end of each bucket
    per_day = cum[-1]
    points = np.zeros(0)
    total = 0.0
    chunk = n if n is not None else max(1024, int(horizon / 300) + 1)
    while True:
        g = _gamma_below(rng, p.aarr * p.arar, p.barr, TOO_MUCH_ARRIVE_TIME, chunk)
        step = total + np.cumsum(np.exp(g) / SECONDS_IN_BUCKET)
        total = float(step[-1])
        points = np.concatenate([points, step])
        if n is not None and points.size >= n:
            points = points[:n]
            break
        if horizon is not None and _invert(points[-1:], cum, per_day)[0] >= horizon:
            break
    times = _invert(points, cum, per_day)
    return times if horizon is None else times[times < horizon]


def _invert(points: np.ndarray, cum: np.ndarray, per_day: float) -> np.ndarray:
    day = np.floor(points / per_day)
    rem = points - day * per_day
    b = np.clip(np.searchsorted(cum, rem, side="right") - 1, 0, BUCKETS - 1)
    frac = (rem - cum[b]) / (cum[b + 1] - cum[b])
    return (day * BUCKETS + b + frac) * SECONDS_IN_BUCKET


def _scaled(p: LublinParams, shift: float, uhi_cap: float) -> LublinParams:
    uhi = min(p.uhi + shift, uhi_cap)
    umed = min(p.umed + shift, uhi)
    return replace(p, uhi=uhi, umed=umed, ulow=min(p.ulow, umed))


def lublin(n_jobs: int | None = None, *, days: float | None = None, nodes: int = 128,
           typed: bool = True, rng: Any = None, n_users: int | None = None,
           estimate: str | float = "exact", umed: float | None = None) -> Workload:
    """Generate a Lublin-Feitelson workload of rigid jobs (see the module docstring for the model).

    Parameters
    ----------
    n_jobs : int, optional
        Number of jobs (exactly one of ``n_jobs`` and ``days``).
    days : float, optional
        Generate every job submitted in ``[0, days * 86400)`` seconds.
    nodes : int
        Machine size; the largest job has ``2**floor(log2(nodes))`` nodes. 128 reproduces the C
        program's parameters exactly.
    typed : bool
        Batch and interactive jobs with their own parameters (``True``, the C default
        ``INCLUDE_JOBS_TYPE=1``) or the typeless whole-sample parameters.
    rng : int or numpy.random.Generator, optional
        Seed or generator (converted once).
    n_users : int, optional
        Assign users ``0..n_users-1`` with Zipf-like popularity (weight ``1/(k+1)``); default -1.
    estimate : "exact" or float >= 1
        Requested times: the run time, or run time x U(1, f) rounded up to a whole minute.
    umed : float, optional
        Override UMED (log2 of the median parallel size), e.g. ``log2(nodes) - 2.5``.

    Returns
    -------
    Workload
        Sorted by submit time, ``job_id`` 1..n, ``status`` 1, ``extra["type"]`` (0 interactive,
        1 batch); ``meta`` records the model, parameters and seed handling.

    Examples
    --------
    >>> wl = lublin(1000, nodes=256, rng=1)
    >>> len(wl), int(wl.processors.max()) <= 256, bool((wl.run_time >= 1).all())
    (1000, True, True)
    """
    if (n_jobs is None) == (days is None):
        raise InvalidInstanceError("give exactly one of n_jobs and days", argument="n_jobs",
                                   value=(n_jobs, days))
    if n_jobs is not None and (int(n_jobs) != n_jobs or n_jobs < 0):
        raise InvalidInstanceError(f"n_jobs={n_jobs!r} must be a non-negative integer",
                                   argument="n_jobs", value=n_jobs)
    if days is not None and not (np.isfinite(days) and days >= 0):
        raise InvalidInstanceError(f"days={days!r} must be >= 0", argument="days", value=days)
    if int(nodes) != nodes or nodes < 1:
        raise InvalidInstanceError(f"nodes={nodes!r} must be a positive integer", argument="nodes",
                                   value=nodes)
    if n_users is not None and (int(n_users) != n_users or n_users < 1):
        raise InvalidInstanceError(f"n_users={n_users!r} must be >= 1", argument="n_users",
                                   value=n_users)
    if not (estimate == "exact" or (isinstance(estimate, (int, float)) and estimate >= 1)):
        raise InvalidInstanceError(f"estimate={estimate!r} must be 'exact' or a factor >= 1",
                                   argument="estimate", value=estimate)
    gen = as_generator(rng)
    uhi = math.floor(math.log2(nodes))
    shift = uhi - 7.0
    horizon = None if days is None else float(days) * 86400.0
    n = None if n_jobs is None else int(n_jobs)
    kinds = [(1, LUBLIN_BATCH), (0, LUBLIN_INTERACTIVE)] if typed else [(0, LUBLIN_TYPELESS)]
    params = {}
    times, types = [], []
    for code, p in kinds:
        q = _scaled(p, shift, uhi)
        if umed is not None:
            q = replace(q, umed=float(umed))
        params[code] = q
        t = _arrivals(gen, q, n, horizon)
        times.append(t)
        types.append(np.full(t.size, code, dtype=np.int64))
    t_all = np.concatenate(times)
    ty_all = np.concatenate(types)
    order = np.lexsort((-ty_all, t_all))  # equal times: batch first (C: batch only if strictly
    if n is not None:                      # earlier; ties have probability zero with floats)
        order = order[:n]
    t_all, ty_all = t_all[order], ty_all[order]
    size = t_all.size
    procs = np.empty(size, dtype=np.int64)
    run = np.empty(size)
    for code, q in params.items():
        idx = np.flatnonzero(ty_all == code)
        procs[idx] = _sizes(gen, q, idx.size)
        run[idx] = _run_times(gen, q, procs[idx])
    if estimate == "exact":
        req = run.copy()
    else:
        req = np.ceil(run * gen.uniform(1.0, float(estimate), size) / 60.0) * 60.0
    if n_users is not None:
        wts = 1.0 / np.arange(1, n_users + 1)
        user = gen.choice(n_users, size=size, p=wts / wts.sum())
    else:
        user = np.full(size, -1)
    meta = {"source": "lublin", "model": "Lublin-Feitelson 2003 (m_lublin99.c parameters)",
            "nodes": int(nodes), "MaxNodes": int(nodes), "MaxProcs": int(nodes), "typed": bool(typed),
            "estimate": estimate, "n_users": n_users,
            "params": {str(k): vars(v) for k, v in params.items()}}
    return Workload(job_id=np.arange(1, size + 1), submit=np.floor(t_all), run_time=run,
                    requested_time=req, processors=procs, user=user, status=np.ones(size),
                    extra={"type": ty_all}, meta=meta)
