r"""Slurm's multifactor priority inside the simulator's compiled loop (:mod:`fairalloc.sim.kernels`).

The semantics are :class:`~fairalloc.sim.policies.fairshare.SlurmPolicy`'s (its module docstring: passes
every ``calc_period``, reset, decay and charges, fair-share factors over the account tree, priorities,
the order by priority, then submission, then row; strict order or EASY backfilling on it), and every rule
is the one compiled there from :mod:`fairalloc.fairshare.slurm`: :func:`~.fairshare._slurm_passes`
(reset, decay, charges), :func:`~.fairshare._slurm_factors` (classic or Fair Tree),
``_age_factor`` and ``_job_priority``, ``_usage_charge``. The decision is EASY's core
(:func:`fairalloc.sim.policies.easy.step`) on the waiting jobs handed over in priority order. This module
only keeps the policy's state between the loop's events, as the event engine's policy does between its
callbacks:

* :func:`finish` (a job ended: the passes up to now, then its charge), :func:`submit` (an arrival: its
  priority at its submission from the last pass's factors, into the kept order), :func:`decide` (one
  decision: the passes up to now, the order handed to EASY's core, the jobs started registered) and
  :func:`next_wakeup` (the next pass while a waiting job fits in the free processors);
* :func:`catch_up`: every pass up to now, keeping the last one's usage; the factors and the waiting jobs'
  priorities as of it are computed when a decision first needs the order (one that may start a job:
  some waiting job fits), from that usage, the same values the event engine computes at the pass.

The waiting jobs are kept sorted (an arrival goes in by binary search; a pass re-sorts them, a merge sort
that skips the merges of runs already in order, as the order mostly survives a pass). Strict order hands
EASY's core only the jobs it can look at (the prefix up to the first that does not fit); with backfilling
the whole order. Jobs are the loop's positions (arrival order), so "earlier submission, then lower row"
is "lower position".

Every function allocates nothing (the loop is compiled without reference counting); the arrays are made by
:func:`new_state`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..._jit import jit
from . import easy as E
from .fairshare import _age_factor, _job_priority, _slurm_factors, _slurm_passes, _usage_charge

__all__ = ["SlurmLoopState", "new_state"]

# ints of the state (si)
_CLASSIC, _INTEGER, _NRUN, _STALE, _LO, _HI, _SORTED, _MINW, _RESET, _PASSES, _DECISIONS, _NQ = range(12)
# floats of the state (sf)
_LAST, _PERIOD, _PERSEC, _MAXAGE, _WA, _WF, _WJ, _WP, _WQ, _PART, _QOS, _DAMP, _TCU = range(13)


class SlurmLoopState(NamedTuple):
    """The policy's arrays between the loop's events (positions: the loop's jobs in arrival order)."""

    si: np.ndarray        #: int64 (12,): flags and counters (module constants)
    sf: np.ndarray        #: float (13,): last pass, period, per-second decay, max age, weights, factors, the
    #: instant that ran the last pass
    resets: np.ndarray    #: usage-reset boundaries, ascending, then inf
    uidx: np.ndarray      #: (n,) each job's user
    js: np.ndarray        #: (n,) job-size factor
    rate: np.ndarray      #: (n,) billing rate
    submit: np.ndarray    #: (n,) submit time
    procs: np.ndarray     #: (n,) width
    prio: np.ndarray      #: (n,) priority (of a waiting job: as of the last pass or its submission)
    slot: np.ndarray      #: (n,) a running job's slot
    wq: np.ndarray        #: (n,) the waiting jobs, in order, at [lo, hi)
    buf: np.ndarray       #: (n,) merge sort's buffer
    cnt: np.ndarray       #: (capacity + 1,) waiting jobs per width
    usage: np.ndarray     #: (users,) decayed usage
    snap: np.ndarray      #: (users,) the usage at a pass whose factors are not computed yet
    fs: np.ndarray        #: (users,) fair-share factors
    run_user: np.ndarray  #: (capacity + 1,) running jobs: user, billing rate, last charge, job
    run_rate: np.ndarray
    run_last: np.ndarray
    run_job: np.ndarray
    parent: np.ndarray    #: the account tree's arrays (AccountTree) and work arrays of the factors
    user_nodes: np.ndarray
    fs_parent: np.ndarray
    use_parent: np.ndarray
    raw_shares: np.ndarray
    level_shares: np.ndarray
    norm_shares: np.ndarray
    preorder: np.ndarray
    is_user: np.ndarray
    sibling_shares: np.ndarray
    fs_child_ptr: np.ndarray
    fs_children: np.ndarray
    node_usage: np.ndarray
    efctv: np.ndarray
    node_f: np.ndarray
    level_fs: np.ndarray
    stack_node: np.ndarray
    stack_tied: np.ndarray


def new_state(tree, uidx, js, rate, submit, procs, capacity: int, prio, *, partition: float, qos: float,
              resets) -> SlurmLoopState:
    """The state for jobs in arrival order (``uidx``, ``js``, ``rate``, ``submit``, ``procs`` by position) on
    ``capacity`` processors, with ``prio`` (a :class:`~fairalloc.fairshare.SlurmPriority`) and the usage-reset
    boundaries ``resets`` (ascending; see :meth:`SlurmPolicy.run_kernel`)."""
    n = len(submit)
    m = n if n else 1
    si = np.zeros(12, np.int64)
    si[_CLASSIC] = prio.fairshare == "classic"
    si[_INTEGER] = bool(prio.integer)
    si[_SORTED] = 1
    si[_STALE] = 1                        # the factors of the usage at the start (zero), when first needed
    si[_MINW] = np.iinfo(np.int64).max
    sf = np.zeros(13)
    sf[_PERIOD], sf[_PERSEC], sf[_MAXAGE] = prio.calc_period, prio.per_second, prio.max_age
    sf[_WA], sf[_WF], sf[_WJ], sf[_WP], sf[_WQ] = (prio.weight_age, prio.weight_fairshare, prio.weight_job_size,
                                                   prio.weight_partition, prio.weight_qos)
    sf[_PART], sf[_QOS], sf[_DAMP] = partition, qos, prio.dampening
    t = tree
    nn, nu = t.n_nodes, t.n_users
    c = int(capacity) + 1

    def f(a, dt):
        return np.ascontiguousarray(a, dtype=dt)

    return SlurmLoopState(si, sf, f(np.append(np.asarray(resets, float), np.inf), float), f(uidx, np.int64),
                          f(js, float), f(rate, float), f(submit, float), f(procs, np.int64), np.zeros(m),
                          np.zeros(m, np.int64), np.zeros(m, np.int64), np.zeros(m, np.int64), np.zeros(c, np.int64),
                          np.zeros(nu), np.zeros(nu), np.zeros(nu), np.zeros(c, np.int64), np.zeros(c), np.zeros(c),
                          np.zeros(c, np.int64), t.parent, t.user_nodes, t.fs_parent, t.use_parent, t.raw_shares,
                          t.level_shares, t.normalized_shares, t.preorder, t.is_user, t.sibling_shares, t.fs_child_ptr,
                          t.fs_children, np.empty(nn), np.empty(nn), np.zeros(nn), np.empty(nn),
                          np.empty(nn, np.int64), np.empty(nn, np.bool_))


# ---- the rules, called with this state ----------------------------------------------------------------
@jit(_nrt=False)
def _factors(sl, usage):
    """Every user's fair-share factor from ``usage`` (the usage at a pass) into ``sl.fs``."""
    sl.si[_STALE] = 0
    _slurm_factors(usage, sl.parent, sl.user_nodes, sl.node_usage, sl.si[_CLASSIC] != 0, sl.fs_parent, sl.use_parent,
                   sl.raw_shares, sl.level_shares, sl.norm_shares, sl.preorder, sl.sf[_DAMP], sl.efctv, sl.node_f,
                   sl.is_user, sl.sibling_shares, sl.level_fs, sl.fs_child_ptr, sl.fs_children, sl.stack_node,
                   sl.stack_tied, sl.fs)


@jit(inline='always')
def _priority(sl, j, at):
    sf = sl.sf
    return _job_priority(_age_factor(at - sl.submit[j], sf[_MAXAGE]), sl.fs[sl.uidx[j]], sl.js[j], sf[_PART],
                         sf[_QOS], sf[_WA], sf[_WF], sf[_WJ], sf[_WP], sf[_WQ], 0.0, 0.0, sl.si[_INTEGER] != 0)


@jit(inline='always')
def _before(prio, a, b):
    """Whether job ``a`` goes before job ``b``: higher priority, then lower position."""
    return prio[a] > prio[b] or (prio[a] == prio[b] and a < b)


@jit(_nrt=False)
def _sort(wq, buf, lo, hi, prio):
    """Sort ``wq[lo:hi]`` by :func:`_before` (bottom-up merge sort; a merge of two runs already in order is
    skipped, so an order that mostly survived a pass costs about one comparison per run)."""
    w = 1
    n = hi - lo
    while w < n:
        a = lo
        while a < hi - w:
            m = a + w
            b = min(a + 2 * w, hi)
            if _before(prio, wq[m], wq[m - 1]):        # not in order across the two runs: merge
                for q in range(a, m):
                    buf[q] = wq[q]
                i, j, k = a, m, a
                while i < m and j < b:
                    if _before(prio, wq[j], buf[i]):
                        wq[k] = wq[j]
                        j += 1
                    else:
                        wq[k] = buf[i]
                        i += 1
                    k += 1
                while i < m:
                    wq[k] = buf[i]
                    i += 1
                    k += 1
            a = b
        w *= 2


@jit(_nrt=False)
def catch_up(sl, now):
    """Every pass up to ``now`` (the usage reset at each boundary). The factors of the last pass (from its
    usage, kept in ``snap``) and the waiting jobs' priorities as of it are computed when a decision first
    needs the order (:func:`_rank`): the event engine computes them here, from the same usage."""
    si, sf = sl.si, sl.sf
    if sf[_LAST] + sf[_PERIOD] > now:
        return
    done = 0
    while True:
        last, k, reset = _slurm_passes(sl.usage, sf[_PERSEC], sf[_LAST], now, sf[_PERIOD], sl.run_user, sl.run_rate,
                                       sl.run_last, si[_NRUN], sl.resets[si[_RESET]])
        sf[_LAST] = last
        done += k
        if not reset:
            break
        si[_RESET] += 1
    if done == 0:
        return
    si[_PASSES] += done
    for u in range(sl.usage.shape[0]):
        sl.snap[u] = sl.usage[u]
    si[_STALE] = 1
    sf[_TCU] = now
    if si[_NQ] > 0:
        si[_SORTED] = 0


@jit(_nrt=False)
def _rank(sl):
    """The waiting jobs' priorities and order, as the event engine's: the factors of the last pass; a job
    that waited when the last pass ran (submitted before the instant that ran it) at that pass, a later one
    at its submission (age 0)."""
    si, sf = sl.si, sl.sf
    if si[_STALE] != 0:
        _factors(sl, sl.snap)
    last, tcu = sf[_LAST], sf[_TCU]
    wq, sub = sl.wq, sl.submit
    lo, hi = si[_LO], si[_HI]
    for q in range(lo, hi):
        j = wq[q]
        sl.prio[j] = _priority(sl, j, last if sub[j] < tcu else sub[j])
    _sort(wq, sl.buf, lo, hi, sl.prio)
    si[_SORTED] = 1


@jit(_nrt=False)
def finish(sl, j, now):
    """Job ``j`` ended at ``now``: the passes up to now, then its charge since the last pass (or its start)."""
    catch_up(sl, now)
    si = sl.si
    k = sl.slot[j]
    u = sl.run_user[k]
    sl.usage[u] += _usage_charge(sl.run_rate[k], now - sl.run_last[k], sl.sf[_PERSEC])
    last = si[_NRUN] - 1
    if k != last:                         # swap-remove
        j2 = sl.run_job[last]
        sl.run_user[k], sl.run_rate[k], sl.run_last[k], sl.run_job[k] = (sl.run_user[last], sl.run_rate[last],
                                                                         sl.run_last[last], j2)
        sl.slot[j2] = k
    si[_NRUN] = last


@jit(_nrt=False)
def submit(sl, j, now):
    """Job ``j`` arrives at ``now``: its priority from the last pass's factors (age 0), into the order."""
    catch_up(sl, now)
    si = sl.si
    wq, prio = sl.wq, sl.prio
    lo, hi = si[_LO], si[_HI]
    if hi == wq.shape[0]:                 # room at the end: move the order to the front
        for q in range(lo, hi):
            wq[q - lo] = wq[q]
        hi -= lo
        lo = 0
        si[_LO] = 0
    k = hi
    if si[_SORTED] != 0 and si[_STALE] != 0:
        si[_SORTED] = 0                   # the factors are not computed yet: the next decision ranks all
    if si[_SORTED] != 0:                  # binary search: the first place whose job goes after j
        prio[j] = _priority(sl, j, now)
        a, b = lo, hi
        while a < b:
            m = (a + b) >> 1
            if _before(prio, wq[m], j):
                a = m + 1
            else:
                b = m
        k = a
        for q in range(hi, k, -1):
            wq[q] = wq[q - 1]
    wq[k] = j
    sl.slot[j] = -1                       # waiting
    si[_HI] = hi + 1
    si[_NQ] += 1
    p = sl.procs[j]
    sl.cnt[p] += 1
    if p < si[_MINW]:
        si[_MINW] = p


@jit(_nrt=False)
def _started(sl, j, now):
    si = sl.si
    k = si[_NRUN]
    sl.slot[j] = k
    sl.run_user[k] = sl.uidx[j]
    sl.run_rate[k] = sl.rate[j]
    sl.run_last[k] = now
    sl.run_job[k] = j
    si[_NRUN] = k + 1
    p = sl.procs[j]
    sl.cnt[p] -= 1
    si[_NQ] -= 1


@jit(inline='always')
def decide(sl, now, free, es, est, out, resv, backfill, scan, ready):
    """One decision at ``now`` with ``free`` processors: the passes up to now, then EASY's core
    (:func:`~fairalloc.sim.policies.easy.step`, strict order without ``backfill``) on the waiting jobs in
    order (``ready``: the loop's, empty). Writes the ranks started to ``out`` (their jobs: ``es.wjob``);
    returns (how many, free left)."""
    catch_up(sl, now)
    si = sl.si
    si[_DECISIONS] += 1
    if si[_NQ] == 0 or si[_MINW] > free:
        return 0, free                    # nothing waits, or nothing fits: nothing starts
    lo, hi = si[_LO], si[_HI]
    wq, procs = sl.wq, sl.procs
    if si[_SORTED] == 0:
        _rank(sl)
    m = hi
    if not backfill:                      # strict order looks at the jobs up to the first that does not fit
        f = free
        m = lo
        while m < hi:
            f -= procs[wq[m]]
            m += 1
            if f < 0:
                break
    E._requeue(wq[lo:m], procs, est, es, resv)
    k, free = E.step(now, free, es, out, resv, backfill, scan, ready)
    if k == 0:
        return 0, free
    for q in range(k):
        _started(sl, es.wjob[out[q]], now)
    if backfill:                          # the jobs started leave the order (any ranks)
        w = lo
        for q in range(lo, hi):
            j = wq[q]
            if sl.slot[j] < 0:
                wq[w] = j
                w += 1
        si[_HI] = w
    else:                                 # strict order: the first k
        si[_LO] = lo + k
    if si[_NQ] == 0:
        si[_MINW] = np.iinfo(np.int64).max
    else:
        c = sl.cnt
        p = si[_MINW]
        while c[p] == 0:
            p += 1
        si[_MINW] = p
    return k, free


@jit(inline='always')
def next_wakeup(sl, free):
    """The next pass while a waiting job fits in ``free`` processors (a pass may then start it); else inf."""
    si = sl.si
    if si[_NQ] == 0 or si[_MINW] > free:
        return np.inf
    return sl.sf[_LAST] + sl.sf[_PERIOD]
