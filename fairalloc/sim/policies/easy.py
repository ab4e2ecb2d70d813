r"""EASY backfilling [1]_: the one decision core, used by the event engine and the EASY kernel.

At an instant ``now`` the waiting jobs, in the policy's order, start **in order** until the first
one that does not fit in the free processors: the *head*. The head gets a reservation at its
*shadow time*

.. math::

    s = \min\{\, t \ge now : f + \textstyle\sum_{j \in R,\ \hat e_j \le t} n_j \ge n_h \,\},
    \qquad \hat e_j = \max(b_j + r_j,\ now),

where *f* is the free processors, *R* the running jobs, :math:`b_j + r_j` a running job's start plus
its requested time (the run time when there is no request: what a reservation may assume; a job
past its request is expected to end now) and :math:`n_h` the head's width. The *extra*
processors are those the head will not need at *s*:

.. math::

    x = f + \textstyle\sum_{j \in R,\ \hat e_j \le s} n_j - n_h,

counting **every** running job expected to end at or before *s* (all those tied at *s* too, not
only those needed to reach :math:`n_h`). Then each later waiting job, in order, starts now if it
fits in the processors still free and either ends by the shadow time (``now + r <= s``) or uses
only extra processors (``n <= x``, which it then uses up).

Design
------
Waiting jobs have a *rank*: their position in the policy's order (arrival order for FCFS, so ranks
are fixed and the index is kept across instants; other orders are re-ranked at every pass). A
backfill pass asks "the first rank after the last one started that fits and passes the test"
until there is none, so it costs O((started + 1) log n), not the queue length. The index is a
segment tree over blocks of :data:`BLOCK` ranks, each node holding the smallest width below it and,
for each width class *c* (widths 1 to 15 each their own class, then four classes per power of
two, a power of two always starting one: see ``_cls``), the smallest requested time among the
jobs of class at most *c*. A node may hold a candidate when its smallest width fits in
:math:`\min(f, x)`, or when some job of a class no higher than that of *f* requests at most
``s - now`` (an over-approximation; a block is then scanned with the exact test).
Changes to the index are applied lazily, before a pass that uses it; a pass over at most
:data:`SCAN` ranks after the head scans them directly (both give the same decisions; tests
run either on every input).
Running jobs are kept sorted by expected end (at most ``capacity`` of them), only with backfilling
(only the shadow time reads them).

The functions are plain loops over the arrays of an :class:`EasyState`, compiled with numba at
first use (:mod:`fairalloc._jit`; plain Python under ``NUMBA_DISABLE_JIT=1``). The event engine's
queue policies call them through :class:`EasyCore`; the simulator's compiled loop
(:mod:`fairalloc.sim.kernels`) calls :func:`step` and its neighbours directly.

References
----------
.. [1] A. W. Mu'alem, D. G. Feitelson, "Utilization, predictability, workloads, and user runtime
   estimates in scheduling the IBM SP2 with backfilling", IEEE TPDS 12(6), 2001.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..._jit import jit

__all__ = ["EasyCore", "EasyState", "new_easy_state", "clear", "copy", "step", "push", "push_at", "run_remove", "BLOCK", "SCAN"]

#: Ranks per leaf block of the index.
BLOCK = 16
#: A pass over at most this many ranks after the head scans them instead of using the index.
SCAN = 64
_BIG = np.iinfo(np.int64).max


class EasyState(NamedTuple):
    """EASY's arrays: the waiting jobs by rank and their index, and the running jobs by expected end."""

    ist: np.ndarray       #: int64: head rank, next rank, tree size, dirty blocks, running jobs
    wproc: np.ndarray     #: (ranks,) width of the job waiting at each rank (0: none)
    west: np.ndarray      #: (ranks,) its requested time
    wjob: np.ndarray      #: (ranks,) its job
    tminp: np.ndarray     #: (2 * size,) index: smallest width below each node
    tmine: np.ndarray     #: (2 * size, classes) index: smallest requested time per width class
    dirty: np.ndarray     #: (blocks,) blocks changed since the index was brought up to date
    isdirty: np.ndarray   #: (blocks,) bool
    rend: np.ndarray      #: (capacity + 1,) running jobs' expected ends, ascending (kept with backfilling only)
    rproc: np.ndarray     #: (capacity + 1,) their widths
    rjob: np.ndarray      #: (capacity + 1,) their jobs


# ---- the index of waiting jobs ---------------------------------------------------------------------
@jit(inline='always')
def _cls(p):
    """Width class of ``p >= 1``: ``p - 1`` below 16, then four classes per power of two, each
    starting at ``2**k + i * 2**(k-2)`` (a power of two always starts a class). Non-decreasing
    in ``p``, so ``p <= w`` implies ``_cls(p) <= _cls(w)``."""
    if p < 16:
        return p - 1
    k = 0
    v = p
    while v >= 2:
        v >>= 1
        k += 1
    return 15 + 4 * (k - 4) + (((p - (1 << k)) << 2) >> k)


@jit
def _refresh(b, wproc, west, tminp, tmine, size):
    """Recompute the summary of block ``b`` and of its ancestors."""
    n_cls = tmine.shape[1]
    node = size + b
    lo = b * BLOCK
    hi = min(lo + BLOCK, wproc.shape[0])
    mp = _BIG
    for c in range(n_cls):
        tmine[node, c] = np.inf
    for r in range(lo, hi):
        p = wproc[r]
        if p > 0:
            if p < mp:
                mp = p
            c = _cls(p)
            if west[r] < tmine[node, c]:
                tmine[node, c] = west[r]
    for c in range(1, n_cls):           # class at most c
        if tmine[node, c - 1] < tmine[node, c]:
            tmine[node, c] = tmine[node, c - 1]
    tminp[node] = mp
    node >>= 1
    while node >= 1:          # up to the first ancestor that does not change
        a = 2 * node
        same = True
        v = min(tminp[a], tminp[a + 1])
        if v != tminp[node]:
            tminp[node] = v
            same = False
        for c in range(n_cls):
            e = min(tmine[a, c], tmine[a + 1, c])
            if e != tmine[node, c]:
                tmine[node, c] = e
                same = False
        if same:
            break
        node >>= 1


@jit
def _flush(ist, dirty, isdirty, wproc, west, tminp, tmine, size):
    """Bring the tree up to date with every block changed since the last flush."""
    for k in range(ist[3]):
        b = dirty[k]
        isdirty[b] = False
        _refresh(b, wproc, west, tminp, tmine, size)
    ist[3] = 0


@jit(inline='always')
def _mark(r, ist, dirty, isdirty):
    b = r // BLOCK
    if not isdirty[b]:
        isdirty[b] = True
        dirty[ist[3]] = b
        ist[3] += 1


@jit(inline='always')
def _passes(p, e, now, free, extra, shadow):
    """The backfill test of one waiting job (module docstring), without branches (``&``, ``|``: a scan over
    many ranks then takes one predictable branch per rank)."""
    return (p <= free) & ((now + e <= shadow) | (p <= extra))


@jit(inline='always')
def _ready(r, ready, now):
    """Whether the job at rank ``r`` may start at ``now``: always, unless ``ready`` (per rank) is given
    (a listed run, :func:`fairalloc.sim.kernels.rigid_run`'s ``listed``: every job queued from the
    start, each startable from its submit time)."""
    return ready.shape[0] == 0 or ready[r] <= now


@jit(inline='always')
def _scan(lo, hi, wproc, west, now, free, extra, shadow, ready):
    for r in range(lo, hi):
        p = wproc[r]
        if (p > 0) & _passes(p, west[r], now, free, extra, shadow) & _ready(r, ready, now):
            return r
    return -1


@jit
def _first(k, wproc, west, tminp, tmine, size, now, free, extra, shadow, ready):
    """The first rank >= k whose job passes the backfill test (and is ready), or -1."""
    n = wproc.shape[0]
    if k >= n:
        return -1
    b = k // BLOCK
    r = _scan(k, min((b + 1) * BLOCK, n), wproc, west, now, free, extra, shadow, ready)
    if r >= 0 or b + 1 >= size:
        return r
    wx = min(free, extra)
    cw = min(_cls(free), tmine.shape[1] - 1)
    # the largest requested time that may still end by the shadow (a little over, for rounding)
    d = (shadow - now) * (1.0 + 1e-9) + 1e-9 * abs(shadow) + 1e-300
    i = size + b + 1
    while True:
        if tminp[i] <= wx or tmine[i, cw] <= d:
            while i < size:
                a = 2 * i
                if tminp[a] <= wx or tmine[a, cw] <= d:
                    i = a
                else:
                    i = a + 1
            lo = (i - size) * BLOCK
            r = _scan(lo, min(lo + BLOCK, n), wproc, west, now, free, extra, shadow, ready)
            if r >= 0:
                return r
        while i & 1:          # next subtree to the right
            i >>= 1
        if i == 0:
            return -1
        i += 1


# ---- running jobs by expected end ----------------------------------------------------------------
@jit(inline='always')
def _run_add(job, end, p, es):
    ist, rend, rproc, rjob = es.ist, es.rend, es.rproc, es.rjob
    q = ist[4]
    while q > 0 and rend[q - 1] > end:      # after every job expected to end by ``end``
        rend[q] = rend[q - 1]
        rproc[q] = rproc[q - 1]
        rjob[q] = rjob[q - 1]
        q -= 1
    rend[q] = end
    rproc[q] = p
    rjob[q] = job
    ist[4] += 1


@jit(inline='always')
def run_remove(job, end, es):
    """A running job (expected to end at ``end``) ended: out of the running jobs."""
    ist, rend, rproc, rjob = es.ist, es.rend, es.rproc, es.rjob
    m = ist[4]
    k = 0
    while k < m and (rend[k] < end or rjob[k] != job):
        k += 1
    if k == m:          # not kept (without backfilling the running jobs are not kept)
        return
    for q in range(k, m - 1):
        rend[q] = rend[q + 1]
        rproc[q] = rproc[q + 1]
        rjob[q] = rjob[q + 1]
    ist[4] = m - 1


@jit(inline='always')
def _shadow(now, free, need, m, rend, rproc, lo):
    """Shadow time and extra processors of a head ``need`` wide (module docstring), at least ``lo``
    (``now``; a listed run's head that is not ready: its submit time, when it may fit already)."""
    avail = free
    k = 0
    shadow = lo if avail >= need else np.inf
    while shadow == np.inf and k < m:
        avail += rproc[k]
        k += 1
        if avail >= need:
            shadow = max(rend[k - 1], lo)
    while k < m and rend[k] <= shadow:   # every job expected to end by the shadow time
        avail += rproc[k]
        k += 1
    return shadow, avail - need


# ---- one decision ----------------------------------------------------------------------------------
@jit(inline='always')
def step(now, free, es, out, resv, backfill, scan, ready):
    """Start what FCFS (+ EASY if ``backfill``) starts at ``now``.

    Writes the ranks started, in order, to ``out``; returns (how many, free processors left);
    ``resv[rank]`` gets the shadow time the first time the job at ``rank`` is the head of a pass;
    a pass over at most ``scan`` ranks after the head scans them instead of using the index.
    ``ready``: empty (every queued job may start), or per rank the time from which its job may start
    (a listed run: a head not yet ready blocks the order as one that does not fit, and its shadow
    time is at least its ready time; a later job backfills only once ready).
    """
    ist, wproc, west, wjob, tminp, tmine, dirty, isdirty, rend, rproc, rjob = es
    n_out = 0
    h = ist[0]
    top = ist[1]
    while h < top and wproc[h] == 0:
        h += 1
    while h < top:                      # in order, until the first job that does not fit
        p = wproc[h]
        if p > free or not _ready(h, ready, now):
            break
        free -= p
        if backfill:                    # (only the shadow time reads the running jobs)
            _run_add(wjob[h], now + west[h], p, es)
        wproc[h] = 0
        _mark(h, ist, dirty, isdirty)
        out[n_out] = h
        n_out += 1
        h += 1
        while h < top and wproc[h] == 0:
            h += 1
    ist[0] = h
    if not backfill or h >= top or free == 0:
        return n_out, free
    lo = now if ready.shape[0] == 0 else max(now, ready[h])
    shadow, extra = _shadow(now, free, wproc[h], ist[4], rend, rproc, lo)
    if np.isnan(resv[h]):
        resv[h] = shadow
    short = top - h <= scan
    if not short:
        _flush(ist, dirty, isdirty, wproc, west, tminp, tmine, ist[2])
    r = h + 1
    while free > 0:
        if short:      # a few ranks: scan them (same test, no index)
            r = _scan(r, top, wproc, west, now, free, extra, shadow, ready)
        else:
            r = _first(r, wproc, west, tminp, tmine, ist[2], now, free, extra, shadow, ready)
        if r < 0:
            break
        p = wproc[r]
        if not now + west[r] <= shadow:   # ends after the shadow time: on extra processors
            extra -= p
        free -= p
        _run_add(wjob[r], now + west[r], p, es)
        wproc[r] = 0
        _mark(r, ist, dirty, isdirty)
        out[n_out] = r
        n_out += 1
        r += 1
    return n_out, free


@jit(inline='always')
def push(job, p, e, es):
    """Append ``job`` (``p`` wide, requesting ``e``) at the next rank."""
    ist, wproc, west, wjob, dirty, isdirty = es.ist, es.wproc, es.west, es.wjob, es.dirty, es.isdirty
    r = ist[1]
    wproc[r] = p
    west[r] = e
    wjob[r] = job
    ist[1] = r + 1
    _mark(r, ist, dirty, isdirty)


@jit(inline='always')
def push_at(job, p, e, r, es):
    """Put ``job`` (``p`` wide, requesting ``e``) at rank ``r`` of a static order known in advance
    (each job's place in the queue's order; FCFS: the arrival order, where this is :func:`push`)."""
    ist = es.ist
    es.wproc[r] = p
    es.west[r] = e
    es.wjob[r] = job
    if r + 1 > ist[1]:
        ist[1] = r + 1
    if r < ist[0]:
        ist[0] = r
    _mark(r, ist, es.dirty, es.isdirty)


@jit
def _requeue(jobs, procs, est, es, resv):
    """Replace the waiting jobs by ``jobs``, in that order (ranks from 0)."""
    ist, wproc, dirty, isdirty = es.ist, es.wproc, es.dirty, es.isdirty
    for r in range(ist[0], ist[1]):
        if wproc[r] != 0:
            wproc[r] = 0
            _mark(r, ist, dirty, isdirty)
        resv[r] = np.nan
    ist[0] = 0
    ist[1] = 0
    for q in range(jobs.shape[0]):
        j = jobs[q]
        push(j, procs[j], est[j], es)


@jit(_nrt=False)
def clear(es):
    """Empty ``es`` (no job waiting or running) for a new run of the same sizes, as
    :func:`new_easy_state` made it (a batch of runs reuses one state; it allocates nothing)."""
    ist = es.ist
    size = ist[2]
    ist[:] = 0
    ist[2] = size
    es.wproc[:] = 0
    es.west[:] = 0.0
    es.wjob[:] = 0
    es.tminp[:] = _BIG
    es.tmine[:] = np.inf
    es.dirty[:] = 0
    es.isdirty[:] = False
    es.rend[:] = 0.0
    es.rproc[:] = 0
    es.rjob[:] = 0


@jit(inline='always')
def _put(a, b):
    for i in range(a.shape[0]):
        b[i] = a[i]


@jit(_nrt=False)
def copy(es, to):
    """Make ``to`` (a state of the same sizes) equal to ``es``, array by array (it allocates nothing)."""
    _put(es.ist, to.ist)
    _put(es.wproc, to.wproc)
    _put(es.west, to.west)
    _put(es.wjob, to.wjob)
    _put(es.tminp, to.tminp)
    for i in range(es.tmine.shape[0]):
        _put(es.tmine[i], to.tmine[i])
    _put(es.dirty, to.dirty)
    _put(es.isdirty, to.isdirty)
    _put(es.rend, to.rend)
    _put(es.rproc, to.rproc)
    _put(es.rjob, to.rjob)


def new_easy_state(n_ranks: int, capacity: int, max_width: int) -> EasyState:
    """Empty arrays for ``n_ranks`` waiting ranks on ``capacity`` processors, jobs at most ``max_width`` wide."""
    n_ranks = max(1, int(n_ranks))
    n_blocks = max(1, -(-n_ranks // BLOCK))
    size = 1 << (n_blocks - 1).bit_length()
    n_cls = _cls.py_func(max(1, int(max_width))) + 1
    ist = np.zeros(5, dtype=np.int64)   # head rank, next rank, tree size, dirty blocks, running
    ist[2] = size
    return EasyState(ist, np.zeros(n_ranks, np.int64), np.zeros(n_ranks), np.zeros(n_ranks, np.int64),
                     np.full(2 * size, _BIG, np.int64), np.full((2 * size, n_cls), np.inf),
                     np.zeros(n_blocks, np.int64), np.zeros(n_blocks, np.bool_),
                     np.zeros(capacity + 1), np.zeros(capacity + 1, np.int64),
                     np.zeros(capacity + 1, np.int64))


@jit
def _decide(now, free, jobs, replace, ended, ended_end, begun, begun_end, procs, est, es, out, resv, backfill,
            scan):
    """:class:`EasyCore`'s one call per instant: the ends, the jobs started on an empty queue and
    the arrivals since the last, then :func:`step` (``replace``: ``jobs`` is the whole queue in
    its new order)."""
    for q in range(ended.shape[0]):
        run_remove(ended[q], ended_end[q], es)
    for q in range(begun.shape[0] if backfill else 0):
        _run_add(begun[q], begun_end[q], procs[begun[q]], es)
    if replace:
        _requeue(jobs, procs, est, es, resv)
    else:
        for q in range(jobs.shape[0]):
            j = jobs[q]
            push(j, procs[j], est[j], es)
    return step(now, free, es, out, resv, backfill, scan, np.empty(0))


class EasyCore:
    """FCFS (+ EASY backfilling) decisions over a queue in rank order, driven one event at a time.

    The event engine's queue policies hold one: :meth:`push` a waiting job, :meth:`finished` when
    a job ends, :meth:`step` at every instant (arrivals and ends are handed to the compiled core
    with the step, in one call; while nothing waits, jobs that fit start without calling it: the
    strict-order phase on an empty queue, nothing else). Ranks are the order in which jobs are pushed; :meth:`requeue`
    replaces the waiting jobs (a policy whose order changes hands the new order before every
    step) and keeps the running ones.

    Parameters
    ----------
    procs, est : array_like (n_jobs,)
        Width and requested time (what a reservation may assume) of every job.
    capacity : int
    n_ranks : int
        How many pushes the queue must hold between two :meth:`requeue`.
    backfill : bool
        EASY on top of the order (False: strict order only).
    scan : int
        A pass over at most this many ranks after the head scans them without the index.

    Attributes
    ----------
    reservations : dict
        Job -> shadow time of the first pass where it was the head.

    Examples
    --------
    Four processors; job 0 (3 wide, 10 s) runs; job 1 (3 wide) waits for it with 1 extra
    processor at 10; job 2 (1 wide, 20 s) backfills on that processor:

    >>> core = EasyCore([3, 3, 1], [10.0, 5.0, 20.0], 4, 3)
    >>> core.push(0); core.step(0.0, 4)
    ([0], 1)
    >>> core.push(1); core.push(2); core.step(2.0, 1)
    ([2], 0)
    >>> core.reservations
    {1: 10.0}
    """

    def __init__(self, procs, est, capacity: int, n_ranks: int, *, backfill: bool = True,
                 scan: int = SCAN) -> None:
        self.procs = np.ascontiguousarray(procs, dtype=np.int64)
        self.est = np.ascontiguousarray(est, dtype=float)
        self._e = self.est.tolist()
        self.backfill = bool(backfill)
        self.scan = int(scan)
        n_ranks = max(1, int(n_ranks))
        width = int(self.procs.max()) if len(self.procs) else 1
        self._es = new_easy_state(n_ranks, int(capacity), width)
        self.out = np.zeros(n_ranks, np.int64)
        self.resv = np.full(n_ranks, np.nan)
        self.started_at = [0.0] * len(self.procs)
        self.reservations: dict[int, float] = {}
        self._pushed: list[int] = []
        self._replace = False
        self._ended: list[int] = []
        self._ended_end: list[float] = []
        self._begun: dict[int, float] = {}    # started without the core, still running
        self._p = self.procs.tolist()
        self._waiting = 0           # jobs waiting in the compiled index after the last call

    def push(self, job: int) -> None:
        """Append a waiting job at the end of the order."""
        self._pushed.append(job)

    def requeue(self, jobs) -> None:
        """Make ``jobs`` the waiting jobs, in that order (ranks from 0); running jobs are kept."""
        self._pushed = list(jobs)
        self._replace = True

    def finished(self, job: int) -> None:
        """A running job ended (its processors are free again)."""
        if self._begun.pop(job, None) is None:     # the core knows it runs
            self._ended.append(job)
            self._ended_end.append(self.started_at[job] + self._e[job])

    def step(self, now: float, free: int) -> tuple[list[int], int]:
        """The jobs to start at ``now`` with ``free`` processors, in order, and the free left."""
        pushed = self._pushed
        if not self._waiting or self._replace:
            # nothing waits in the index: start in order while the jobs fit, without the core
            p = self._p
            need = 0
            for j in pushed:
                need += p[j]
            if need <= free:
                self._pushed = []
                self._replace = False
                self._waiting = 0
                e = self._e
                for j in pushed:
                    self.started_at[j] = now
                    self._begun[j] = now + e[j]
                return pushed, free - need
        es = self._es
        k, free = _decide(now, free, np.array(pushed, dtype=np.int64), self._replace,
                          np.array(self._ended, dtype=np.int64), np.array(self._ended_end),
                          np.fromiter(self._begun.keys(), np.int64, len(self._begun)),
                          np.fromiter(self._begun.values(), float, len(self._begun)),
                          self.procs, self.est, es, self.out, self.resv, self.backfill, self.scan)
        ist, wjob = es.ist, es.wjob
        self._waiting = (len(pushed) if self._replace else self._waiting + len(pushed)) - k
        self._pushed = []
        self._replace = False
        self._ended = []
        self._ended_end = []
        self._begun = {}
        h = int(ist[0])
        if h < ist[1] and not math.isnan(self.resv[h]):
            self.reservations.setdefault(int(wjob[h]), float(self.resv[h]))
        started = wjob[self.out[:k]].tolist() if k else []
        for j in started:
            self.started_at[j] = now
        return started, int(free)
