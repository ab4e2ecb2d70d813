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
* :func:`catch_up`: every pass up to now, keeping the last one's usage; the factors as of it are computed
  when a decision first needs them (one that may start a job: some waiting job fits) or a job arrives,
  from that usage, the same values the event engine computes at the pass.

**What is computed when.** The event engine computes, at each pass, every user's factor and every waiting
job's priority; between passes the order is fixed. Here:

* the factors, at the first arrival or decision after a pass that needs them (:func:`_refresh`); the
  waiting jobs of the users whose factor changed are re-prioritised then (Fair Tree's factors are ranks:
  most passes change none). On a flat tree under Fair Tree the factors kept are not computed again when
  :func:`_same_ranks` shows from the usages that the ranking and its ties stay as they are (one
  comparison per two neighbours in the ranking instead of the tree's sums, level fair shares, sort and
  ranks);
* every waiting job's priority (a *ranking*, :func:`_rank`), with backfilling at a decision that may
  start a job (EASY may start any job of the order). Without backfilling a decision starts jobs only
  from the front of the order, and the priorities kept decide it without re-ranking in most cases
  (:func:`_settle`): as long as the factors are unchanged, a job's priority only grows between passes
  (its age), by at most :math:`w_{age}\,\Delta t/\text{max\_age}` since the last ranking (plus 1 for the
  truncation to an integer). So if the first job kept in order does not fit and every job that fits is
  kept more than that below it, the first job of the true order does not fit either and nothing starts
  (the engine's decision); else the true first jobs are found among the few jobs kept within that bound
  of the first, recomputed. The waiting jobs are re-ranked when that work since the last ranking exceeds
  the queue's length.

The waiting jobs are kept sorted by the priorities kept (an arrival goes in by binary search; a
re-prioritisation or a ranking re-sorts them, a merge sort that skips the merges of runs already in order,
as the order mostly survives a pass; a ranking or refresh that leaves the order as it was sorts nothing). Strict
order hands EASY's core only the jobs it can look at (the prefix up to the first that does not fit); with
backfilling the whole order, once: EASY's ranks then hold it, less the jobs started (the jobs left keep their ranks
and relative order), and the next decision only pushes the jobs that arrived since at the order's end. The order
is handed over again (:func:`fairalloc.sim.policies.easy._requeue`) only after a job arrived before its end, or a
ranking or refresh moved a job. EASY's decision depends only on the waiting jobs in order (a rank left empty by a
started job is skipped), so it is the same as after a requeue. Jobs are the loop's positions
(arrival order), so "earlier submission, then lower row" is "lower position".

HTCondor runs in the same specialisation of the loop: its state (:mod:`.condor_loop`) is the field ``hc`` of
this one (:func:`condor_state`), and :func:`finish`, :func:`submit`, :func:`decide` and :func:`next_wakeup`
hand an HTCondor run to its functions (a flag of the state, read at run time).

Every function allocates nothing (the loop is compiled without reference counting); the arrays are made by
:func:`new_state`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..._jit import jit
from ..._merge_sort import sorter
from . import condor_loop as CL
from . import easy as E
from .fairshare import _age_factor, _job_priority, _slurm_factors, _slurm_passes, _usage_charge

__all__ = ["SlurmLoopState", "new_state"]

# ints of the state (si); the counters _RANKS (rankings), _CERTS (decisions where the first job kept showed that
# nothing starts), _SETTLED (other decisions settled by _settle) and _REPRIO (jobs re-prioritised by a factor
# change) are read by tests; _WORK: _settle's work since the last ranking
# _CONDOR: the run is HTCondor's (:mod:`.condor_loop`, on the field ``hc``), not Slurm's
# _FLAT: Fair Tree on a flat tree (:func:`_same_ranks` applies); _FSOK: the kept factors are of a full computation on
# it; _FSKIP (read by tests): factor computations that :func:`_same_ranks` showed unchanged
# _ESOK: with backfilling, EASY's waiting ranks hold the first _ESN jobs of the order (the others arrived since, at its
# end); _REQUEUES: decisions that handed EASY the whole order again (E._requeue)
(_CLASSIC, _INTEGER, _NRUN, _STALE, _LO, _HI, _NPEND, _MINW, _RESET, _PASSES, _DECISIONS, _NQ, _EXACT, _RANKS, _CERTS,
 _REPRIO, _WORK, _SETTLED, _CONDOR, _FLAT, _FSOK, _FSKIP, _ESOK, _ESN, _REQUEUES) = range(25)
# floats of the state (sf)
_LAST, _PERIOD, _PERSEC, _MAXAGE, _WA, _WF, _WJ, _WP, _WQ, _PART, _QOS, _DAMP, _TCU, _TREF, _EPS = range(15)


class SlurmLoopState(NamedTuple):
    """The policy's arrays between the loop's events (positions: the loop's jobs in arrival order)."""

    si: np.ndarray        #: int64 (25,): flags and counters (module constants)
    sf: np.ndarray        #: float (15,): last pass, period, per-second decay, max age, weights, factors, the
    #: instant that ran the last pass, the pass of the last ranking, the rounding margin of _settle
    resets: np.ndarray    #: usage-reset boundaries, ascending, then inf
    uidx: np.ndarray      #: (n,) each job's user
    js: np.ndarray        #: (n,) job-size factor
    rate: np.ndarray      #: (n,) billing rate
    submit: np.ndarray    #: (n,) submit time
    procs: np.ndarray     #: (n,) width
    prio: np.ndarray      #: (n,) priority kept (of a waiting job: as of the last ranking, its re-prioritisation
    #: or its submission)
    pat: np.ndarray       #: (n,) the time whose age the priority kept is computed at
    slot: np.ndarray      #: (n,) a running job's slot
    wq: np.ndarray        #: (n,) the waiting jobs, in order of the priorities kept, at [lo, hi) (the last
    #: ``npend`` of them arrived while the factors were stale: not placed yet)
    buf: np.ndarray       #: (n,) merge sort's buffer
    cnt: np.ndarray       #: (capacity + 1,) waiting jobs per width
    usage: np.ndarray     #: (users,) decayed usage
    snap: np.ndarray      #: (users,) the usage at a pass whose factors are not computed yet
    fs: np.ndarray        #: (users,) fair-share factors
    fs_old: np.ndarray    #: (users,) the factors before the last refresh
    ucnt: np.ndarray      #: (users,) waiting jobs per user
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
    sib_order: np.ndarray  #: Fair Tree's siblings in their last order (fair_tree_into's ``order``)
    hc: CL.CondorLoopState  #: HTCondor's state when ``si[_CONDOR]`` (else one of no job: the same numba type)


def new_state(tree, uidx, js, rate, submit, procs, capacity: int, prio, *, partition: float, qos: float,
              resets, condor=None) -> SlurmLoopState:
    """The state for jobs in arrival order (``uidx``, ``js``, ``rate``, ``submit``, ``procs`` by position) on
    ``capacity`` processors, with ``prio`` (a :class:`~fairalloc.fairshare.SlurmPriority`) and the usage-reset
    boundaries ``resets`` (ascending; see :meth:`SlurmPolicy.run_kernel`). ``condor``: an HTCondor run's state
    (:func:`condor_state`), else None."""
    n = len(submit)
    m = n if n else 1
    si = np.zeros(25, np.int64)
    si[_CONDOR] = condor is not None
    si[_CLASSIC] = prio.fairshare == "classic"
    si[_INTEGER] = bool(prio.integer)
    si[_EXACT] = 1
    si[_STALE] = 1                        # the factors of the usage at the start (zero), when first needed
    si[_MINW] = np.iinfo(np.int64).max
    sf = np.zeros(15)
    sf[_PERIOD], sf[_PERSEC], sf[_MAXAGE] = prio.calc_period, prio.per_second, prio.max_age
    sf[_WA], sf[_WF], sf[_WJ], sf[_WP], sf[_WQ] = (prio.weight_age, prio.weight_fairshare, prio.weight_job_size,
                                                   prio.weight_partition, prio.weight_qos)
    sf[_PART], sf[_QOS], sf[_DAMP] = partition, qos, prio.dampening
    # (a margin far above the rounding of the priority's sum and of the age factor: relative 2^-52 of the
    # weights' sum, a few times)
    sf[_EPS] = 1e-9 * (prio.weight_age + prio.weight_fairshare + prio.weight_job_size + prio.weight_partition
                       + prio.weight_qos + 1.0)
    t = tree
    nn, nu = t.n_nodes, t.n_users
    # Fair Tree on a flat tree: every user a child of the root, user k at node k + 1 (AccountTree.flat's layout)
    si[_FLAT] = (prio.fairshare == "fair_tree" and nn == nu + 1 and bool(np.array_equal(t.user_nodes, np.arange(1, nn)))
                 and bool(np.all(t.fs_parent[1:] == 0)) and not bool(np.any(t.use_parent))
                 and int(t.fs_child_ptr[1] - t.fs_child_ptr[0]) == nu)
    c = int(capacity) + 1

    def f(a, dt):
        return np.ascontiguousarray(a, dtype=dt)

    return SlurmLoopState(si, sf, f(np.append(np.asarray(resets, float), np.inf), float), f(uidx, np.int64),
                          f(js, float), f(rate, float), f(submit, float), f(procs, np.int64), np.zeros(m),
                          np.full(m, -np.inf),
                          np.zeros(m, np.int64), np.zeros(m, np.int64), np.zeros(m, np.int64), np.zeros(c, np.int64),
                          np.zeros(nu), np.zeros(nu), np.zeros(nu), np.zeros(nu), np.zeros(nu, np.int64),
                          np.zeros(c, np.int64), np.zeros(c), np.zeros(c),
                          np.zeros(c, np.int64), t.parent, t.user_nodes, t.fs_parent, t.use_parent, t.raw_shares,
                          t.level_shares, t.normalized_shares, t.preorder, t.is_user, t.sibling_shares, t.fs_child_ptr,
                          t.fs_children, np.empty(nn), np.empty(nn), np.zeros(nn), np.empty(nn),
                          np.empty(nn, np.int64), np.empty(nn, np.bool_), t.fs_children.copy(),
                          CL.idle_state() if condor is None else condor)


def condor_state(uidx, size, procs, factor, prio, capacity: int) -> SlurmLoopState:
    """The loop's state of an HTCondor run (:func:`fairalloc.sim.policies.condor_loop.new_state`'s arguments),
    its Slurm part of no job (the loop's one specialisation runs both policies)."""
    from ...accounts import AccountTree
    from ...fairshare.slurm import SlurmPriority

    hc = CL.new_state(uidx, size, procs, factor, prio, capacity)
    return new_state(AccountTree.flat([0]), np.zeros(0, np.int64), np.zeros(0), np.zeros(0), np.zeros(0),
                     np.zeros(0, np.int64), 1, SlurmPriority(), partition=1.0, qos=0.0, resets=[], condor=hc)


# ---- the rules, called with this state ----------------------------------------------------------------
#: Relative margin of :func:`_same_ranks` (far above the few roundings of the level fair shares: 2^-52 each).
_MARGIN = 1e-12


@jit(_nrt=False)
def _same_ranks(sl, usage):
    r"""Whether Fair Tree's factors of ``usage`` on a flat tree are the ones kept (the last full computation's),
    shown without computing them: True only if every two users adjacent in the kept order keep that order and
    its ties. Fair Tree on a flat tree ranks the users by :math:`LF_v = S_v/(U_v/U_{root})` (descending; ties
    keep one rank, :func:`~fairalloc.fairshare.slurm.fair_tree_into`), so the factors depend only on the order
    and on which neighbours tie. Two neighbours ``a`` before ``b``:

    * tied in the kept order: they stay tied if their shares and usages are equal (the same operations on
      the same numbers give the same :math:`LF`);
    * ``a`` strictly first: it stays so if :math:`S_a U_b > S_b U_a (1 + 10^{-12})` (:math:`U` = usage; for
      :math:`U_a = 0`: :math:`LF_a = \infty` above a used ``b``). The computed :math:`LF` is :math:`S/(U/U_{root})`
      with two roundings of relative error :math:`2^{-53}` each (the root's :math:`U_{root}` is the same
      number for both): a margin of :math:`10^{-12}` between the exact quotients keeps the computed ones
      strictly ordered, as long as no quotient leaves the normal range (usages in
      :math:`[10^{-200}, 10^{90}]` or 0).

    Anything else (a near tie, a new tie, zero shares) answers False: the factors are computed."""
    order, lf, sh = sl.sib_order, sl.level_fs, sl.sibling_shares
    lo, hi = sl.fs_child_ptr[0], sl.fs_child_ptr[1]
    for i in range(lo, hi):
        x = usage[order[i] - 1]
        if x != 0.0 and not (1e-200 <= x <= 1e90):
            return False
    for i in range(lo + 1, hi):
        a, b = order[i - 1], order[i]
        ua, ub = usage[a - 1], usage[b - 1]
        if lf[a] == lf[b]:
            if ua != ub or sh[a] != sh[b]:
                return False
        elif not (sh[a] * ub > (sh[b] * ua) * (1.0 + _MARGIN)):
            return False
    return True


@jit(_nrt=False)
def _factors(sl, usage):
    """Every user's fair-share factor from ``usage`` (the usage at a pass) into ``sl.fs`` (on a flat tree under Fair
    Tree, kept when :func:`_same_ranks` shows them unchanged). Returns whether they were computed (then the
    factors before are in ``sl.fs_old``); False: ``sl.fs`` is unchanged."""
    si = sl.si
    si[_STALE] = 0
    if si[_FSOK] != 0 and _same_ranks(sl, usage):
        si[_FSKIP] += 1
        return False
    si[_FSOK] = si[_FLAT]
    for u in range(sl.fs.shape[0]):
        sl.fs_old[u] = sl.fs[u]
    _slurm_factors(usage, sl.parent, sl.user_nodes, sl.node_usage, sl.si[_CLASSIC] != 0, sl.fs_parent, sl.use_parent,
                   sl.raw_shares, sl.level_shares, sl.norm_shares, sl.preorder, sl.sf[_DAMP], sl.efctv, sl.node_f,
                   sl.is_user, sl.sibling_shares, sl.level_fs, sl.fs_child_ptr, sl.fs_children, sl.stack_node,
                   sl.stack_tied, sl.sib_order, sl.fs)
    return True


@jit(inline='always')
def _priority(sl, j, at):
    sf = sl.sf
    return _job_priority(_age_factor(at - sl.submit[j], sf[_MAXAGE]), sl.fs[sl.uidx[j]], sl.js[j], sf[_PART],
                         sf[_QOS], sf[_WA], sf[_WF], sf[_WJ], sf[_WP], sf[_WQ], 0.0, 0.0, sl.si[_INTEGER] != 0)


@jit(inline='always')
def _before(prio, a, b):
    """Whether job ``a`` goes before job ``b``: higher priority, then lower position."""
    return prio[a] > prio[b] or (prio[a] == prio[b] and a < b)


#: ``wq[lo:hi]`` sorted by :func:`_before` (:func:`fairalloc._merge_sort.merge_sort`: a merge of two runs already
#: in order is skipped, so an order that mostly survived a pass costs about one comparison per run)
_sort = sorter(_before, "slurm_jobs")


@jit(inline='always')
def _in_order(wq, lo, hi, prio):
    """Whether ``wq[lo:hi]`` is sorted by :func:`_before` (then sorting it changes nothing)."""
    for q in range(lo + 1, hi):
        if _before(prio, wq[q], wq[q - 1]):
            return False
    return True


@jit(inline='always')
def _place(sl, j, at, lo, q):
    """Job ``j`` with its priority at ``at`` into ``wq[lo:q + 1]``, whose first ``q - lo`` places hold the order
    (``wq[q]`` is free or ``j`` itself): binary search for the first place whose job goes after ``j``, the jobs from
    there shifted one place on. If ``j`` did not land at the end, EASY's ranks no longer hold the order."""
    wq, prio = sl.wq, sl.prio
    prio[j] = _priority(sl, j, at)
    sl.pat[j] = at
    a, b = lo, q
    while a < b:
        m = (a + b) >> 1
        if _before(prio, wq[m], j):
            a = m + 1
        else:
            b = m
    if a < q:
        sl.si[_ESOK] = 0
    for r in range(q, a, -1):
        wq[r] = wq[r - 1]
    wq[a] = j


@jit(inline='always')
def _resort(sl, lo, hi):
    """``wq[lo:hi]`` sorted by the priorities kept; if that moved a job, EASY's ranks no longer hold the order."""
    if not _in_order(sl.wq, lo, hi, sl.prio):
        _sort(sl.wq, sl.buf, lo, hi, sl.prio)
        sl.si[_ESOK] = 0


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
        si[_EXACT] = 0                    # the priorities kept are those of an earlier pass
    else:
        sf[_TREF] = sf[_LAST]             # (nothing waits: nothing kept from before)


@jit(inline='always')
def _at(sl, j):
    """When the event engine last computed waiting job ``j``'s priority: at the last pass if it waited when
    the pass ran (submitted before the instant that ran it), else at its submission (age 0)."""
    sub = sl.submit[j]
    return sl.sf[_LAST] if sub < sl.sf[_TCU] else sub


@jit(_nrt=False)
def _refresh(sl):
    """The factors of the last pass (from its usage, kept in ``snap``), if not computed yet; the waiting jobs of
    the users whose factor changed, and those that arrived meanwhile, get their priority (as the event engine
    has it now) and their place in the order. The other jobs keep theirs (their factor is the same: the
    priority kept differs from the engine's only by the age, which :func:`_settle` bounds) and their order
    (sorted by the priorities kept); so only the jobs recomputed move: each arrival alone by binary search, else
    out, sorted, and merged back."""
    si = sl.si
    changed = False
    if si[_STALE] != 0 and _factors(sl, sl.snap):
        fs, old = sl.fs, sl.fs_old
        for u in range(fs.shape[0]):
            if fs[u] != old[u] and sl.ucnt[u] > 0:
                changed = True
    lo, hi = si[_LO], si[_HI]
    npend = si[_NPEND]
    if not changed and npend == 0:
        return
    wq, prio, uidx, buf = sl.wq, sl.prio, sl.uidx, sl.buf
    si[_NPEND] = 0
    if not changed:                       # the arrivals only: each into its place (binary search), as submit does
        for q in range(hi - npend, hi):
            j = wq[q]
            _place(sl, j, _at(sl, j), lo, q)
        return
    # The jobs whose priority is recomputed (of a user whose factor changed, or arrived meanwhile: ``x``) leave the
    # order; the others keep theirs and their order (checked: else the whole order is sorted); ``x`` is sorted and
    # merged back from the end. The order of the priorities kept is total (ties go to the lower position), so this
    # is the order a sort of the whole gives.
    si[_ESOK] = 0
    fs, old = sl.fs, sl.fs_old
    w = lo
    nx = 0
    ok = True
    for q in range(lo, hi):
        j = wq[q]
        u = uidx[j]
        if q >= hi - npend or fs[u] != old[u]:
            if q < hi - npend:
                si[_REPRIO] += 1
            at = _at(sl, j)
            prio[j] = _priority(sl, j, at)
            sl.pat[j] = at
            buf[lo + nx] = j
            nx += 1
        else:
            if w > lo and _before(prio, j, wq[w - 1]):
                ok = False
            wq[w] = j
            w += 1
    for q in range(nx):
        wq[w + q] = buf[lo + q]
    if not ok:
        _sort(wq, buf, lo, hi, prio)
        return
    _sort(wq, buf, w, hi, prio)
    for q in range(w, hi):
        buf[q] = wq[q]
    i = w - 1
    x = hi - 1
    k = hi - 1
    while x >= w and i >= lo:
        if _before(prio, buf[x], wq[i]):
            wq[k] = wq[i]
            i -= 1
        else:
            wq[k] = buf[x]
            x -= 1
        k -= 1
    while x >= w:
        wq[k] = buf[x]
        x -= 1
        k -= 1


@jit(_nrt=False)
def _rank(sl):
    """The waiting jobs' priorities and order, as the event engine's (the factors current: :func:`_refresh`):
    a job that waited when the last pass ran at that pass, a later one at its submission (age 0)."""
    si, sf = sl.si, sl.sf
    wq = sl.wq
    lo, hi = si[_LO], si[_HI]
    for q in range(lo, hi):
        j = wq[q]
        at = _at(sl, j)
        sl.prio[j] = _priority(sl, j, at)
        sl.pat[j] = at
    _resort(sl, lo, hi)
    si[_EXACT] = 1
    si[_RANKS] += 1
    si[_WORK] = 0
    sf[_TREF] = sf[_LAST]


@jit(inline='always')
def _exact(sl, j):
    """Job ``j``'s priority kept made the event engine's now (the factors current); returns 1 if recomputed.
    It only grows (the age grows), so a job keeps its place against the jobs kept after it."""
    at = _at(sl, j)
    if sl.pat[j] == at:
        return 0
    sl.prio[j] = _priority(sl, j, at)
    sl.pat[j] = at
    return 1


@jit(_nrt=False)
def _settle(sl, free):
    """Strict order between rankings: the first jobs of the true order (the event engine's, at the last pass)
    found from the priorities kept (the factors current; module docstring). Returns ``m``: the jobs kept at
    ``[lo, m)`` are, in order, the jobs that start in ``free`` processors and then one that does not fit (or
    the end); -1 when re-ranking every job is cheaper (the work since the last ranking exceeds the queue).

    A priority kept is at most the true one (the age only grows since it was computed; every operation of
    the sum is monotone) and at least the true one less ``d`` = the age weight times the time since the last
    ranking over ``max_age``, plus 1 when the priority is truncated to an integer, plus a rounding margin;
    a job recomputed (:func:`_exact`) is exact. So the true next job is found among the jobs kept within
    ``d`` of the first, made exact and sorted (a window that grows as jobs start); and if the first kept
    job does not fit and every job that fits is kept more than ``d`` below it, a job that does not fit
    goes first: nothing (more) starts."""
    si, sf = sl.si, sl.sf
    wq, prio, procs = sl.wq, sl.prio, sl.procs
    lo, hi = si[_LO], si[_HI]
    d = sf[_WA] * ((sf[_LAST] - sf[_TREF]) / sf[_MAXAGE]) * (1.0 + 1e-9) + sf[_EPS]
    if si[_INTEGER] != 0:
        d += 1.0
    i = lo
    xe = lo                               # [i, xe): made exact, sorted; no job after it can go first
    f = free
    while i < hi:
        if si[_WORK] > hi - lo:
            return -1
        a = wq[i]
        if i == xe and procs[a] > f:      # does any job that fits come within d of it?
            top = prio[a]
            q = i + 1
            while q < hi and prio[wq[q]] + d >= top and procs[wq[q]] > f:
                q += 1
            si[_WORK] += q - i
            if q == hi or prio[wq[q]] + d < top:
                return i + 1              # no: the first true job does not fit
        if xe == i:
            si[_WORK] += _exact(sl, a)
            xe = i + 1
        top = prio[wq[i]]
        while xe < hi and prio[wq[xe]] + d >= top:
            j = wq[xe]
            si[_WORK] += 1 + _exact(sl, j)
            k = xe                        # into its place in the window
            while k > i and _before(prio, j, wq[k - 1]):
                wq[k] = wq[k - 1]
                k -= 1
            wq[k] = j
            xe += 1
            top = prio[wq[i]]
        a = wq[i]                         # the true next
        if procs[a] > f:
            return i + 1
        f -= procs[a]
        i += 1
    return hi


@jit(_nrt=False)
def finish(sl, j, now):
    """Job ``j`` ended at ``now``: the passes up to now, then its charge since the last pass (or its start)."""
    if sl.si[_CONDOR] != 0:
        CL.finish(sl.hc, j, now)
        return
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
    """Job ``j`` arrives at ``now``: its priority from the last pass's factors (age 0), into the order (placed
    at the next refresh if the factors are not computed yet)."""
    if sl.si[_CONDOR] != 0:
        CL.submit(sl.hc, j, now)
        return
    catch_up(sl, now)
    si = sl.si
    wq = sl.wq
    lo, hi = si[_LO], si[_HI]
    if hi == wq.shape[0]:                 # room at the end: move the order to the front
        for q in range(lo, hi):
            wq[q - lo] = wq[q]
        hi -= lo
        lo = 0
        si[_LO] = 0
    if si[_STALE] != 0 or si[_NPEND] != 0:
        si[_NPEND] += 1                   # the factors are not computed yet: placed at the next refresh
        wq[hi] = j
    else:                                 # into its place (an arrival at the end keeps EASY's ranks)
        _place(sl, j, now, lo, hi)
    sl.slot[j] = -1                       # waiting
    si[_HI] = hi + 1
    si[_NQ] += 1
    sl.ucnt[sl.uidx[j]] += 1
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
    sl.ucnt[sl.uidx[j]] -= 1


@jit(inline='always')
def decide(sl, now, free, es, est, out, resv, backfill, scan, ready):
    """One decision at ``now`` with ``free`` processors: the passes up to now, then EASY's core
    (:func:`~fairalloc.sim.policies.easy.step`, strict order without ``backfill``) on the waiting jobs in
    order (``ready``: the loop's, empty). Writes the ranks started to ``out`` (their jobs: ``es.wjob``);
    returns (how many, free left). An HTCondor run: :func:`fairalloc.sim.policies.condor_loop.decide`."""
    if sl.si[_CONDOR] != 0:
        return CL.decide(sl.hc, now, free, es, out)
    catch_up(sl, now)
    si = sl.si
    si[_DECISIONS] += 1
    if si[_NQ] == 0 or si[_MINW] > free:
        return 0, free                    # nothing waits, or nothing fits: nothing starts
    _refresh(sl)
    lo, hi = si[_LO], si[_HI]
    wq, procs = sl.wq, sl.procs
    m = -1
    if si[_EXACT] == 0 and not backfill:
        m = _settle(sl, free)             # the true order's first jobs, from the priorities kept
        if m == lo + 1 and procs[wq[lo]] > free:
            si[_CERTS] += 1
            return 0, free                # the first job in order does not fit: nothing starts
        if m >= 0:
            si[_SETTLED] += 1
    if m < 0:
        if si[_EXACT] == 0:
            _rank(sl)
        m = hi
        if not backfill:                  # strict order looks at the jobs up to the first that does not fit
            f = free
            m = lo
            while m < hi:
                f -= procs[wq[m]]
                m += 1
                if f < 0:
                    break
    new = hi - lo - si[_ESN]
    if backfill and si[_ESOK] != 0 and es.ist[1] + new <= es.wproc.shape[0]:
        for q in range(hi - new, hi):     # EASY's ranks hold wq[lo:hi - new]: the arrivals since, at the end
            j = wq[q]
            E.push(j, procs[j], est[j], es)
    else:
        si[_REQUEUES] += 1
        E._requeue(wq[lo:m], procs, est, es, resv)
    k, free = E.step(now, free, es, out, resv, backfill, scan, ready)
    if backfill:
        si[_ESOK] = 1                     # EASY's ranks: the order less the jobs started (removed below)
        si[_ESN] = hi - lo - k
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
    if sl.si[_CONDOR] != 0:
        return CL.next_wakeup(sl.hc, free)
    si = sl.si
    if si[_NQ] == 0 or si[_MINW] > free:
        return np.inf
    return sl.sf[_LAST] + sl.sf[_PERIOD]
