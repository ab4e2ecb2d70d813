r"""HTCondor's user priorities and negotiation inside the simulator's compiled loop (:mod:`fairalloc.sim.kernels`).

The semantics are :class:`~fairalloc.sim.policies.fairshare.HTCondorPolicy`'s (its module docstring: cycles
every ``interval``, the real user priority updated at each, EUP = RUP x priority factor, one negotiation over
the idle jobs of each user in submission order; jobs start only at cycles), and every rule is the one
compiled there from :mod:`fairalloc.fairshare.htcondor`: :func:`~.fairshare._condor_cycles` (the RUP updates,
SDRF's Eq. 6 with a floor), ``_eup_into`` (:func:`~fairalloc.fairshare.htcondor.effective_priority_into`) and
``_negotiate_work_into`` (:func:`~fairalloc.fairshare.htcondor.negotiate_work_into`, the pie spins of
:func:`~fairalloc.fairshare.htcondor.negotiate_into` with its work space given). This module only keeps the
policy's state between the loop's events, as the event engine's policy does between its callbacks:
:func:`finish` (a job ended: the cycles up to now, then it leaves the processors in use and its usage since its
start or the last cycle is left to the next update), :func:`submit` (an arrival joins the idle jobs),
:func:`decide` (the cycles up to now; at a cycle instant, with an idle job that fits, one negotiation) and
:func:`next_wakeup` (the next cycle while an idle job fits in the free processors).

It runs inside Slurm's specialisation of the loop (:mod:`.slurm_loop`: a :class:`CondorLoopState` is a field of
its state, a flag in it chooses the policy at run time), so HTCondor adds no specialisation of the loop. The
idle jobs are kept in arrival order (the loop's positions: "earlier submission, then lower row" is "lower
position"); a negotiation sorts them by user (a counting sort: by user, then position, the engine's
``lexsort``). The first spin's submitter order starts from the previous negotiation's (the sort's result does
not depend on it). The jobs started are handed to the loop through EASY's ``wjob`` (ranks ``0..k-1``), which
HTCondor does not otherwise use.

Every function allocates nothing (the loop is compiled without reference counting); the arrays are made by
:func:`new_state`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..._jit import jit
from ...fairshare import htcondor as _hc
from .fairshare import _condor_cycles, _eup_into, _negotiate_work_into

__all__ = ["CondorLoopState", "new_state"]

# ints of the state (ci): idle jobs, cycles (RUP updates), negotiations, decisions, users whose RUP moves
_NIDLE, _CYCLES, _NEG, _DECISIONS, _NLIVE = range(5)
# floats of the state (cf): last cycle, interval, tau, pool slot weight, min slot weight, smallest idle size, then
# _condor_cycles' cache of Eq. 6's factors (dt, 1 - beta, beta, tau)
_LAST, _INTERVAL, _TAU, _TOTAL, _MSW, _MINSIZE, _DC = range(7)


class CondorLoopState(NamedTuple):
    """HTCondor's arrays between the loop's events (positions: the loop's jobs in arrival order)."""

    ci: np.ndarray          #: int64 (5,): counters (module constants)
    cf: np.ndarray          #: float (10,): last cycle, interval, tau, pool, min slot weight, smallest idle size, the
    #: cache of Eq. 6's factors (4)
    uidx: np.ndarray        #: (n,) each job's user
    size: np.ndarray        #: (n,) slot weight (billing rate)
    procs: np.ndarray       #: (n,) width
    started_at: np.ndarray  #: (n,) a running job's start (-inf: idle)
    idle: np.ndarray        #: (n,) the idle jobs in arrival order, at [0, ci[_NIDLE])
    sjob: np.ndarray        #: (n,) the idle jobs sorted by user (a negotiation's)
    ssize: np.ndarray       #: (n,) their sizes
    matched: np.ndarray     #: (n,) bool: matched this negotiation
    ptr: np.ndarray         #: (users + 1,) each user's idle jobs in sjob
    rup: np.ndarray         #: (users,) real user priorities, by slot
    factor: np.ndarray      #: (users,) priority factors, by user
    in_use: np.ndarray      #: (users,) slot weight in use, by slot
    uncharged: np.ndarray   #: (users,) usage of jobs ended since the last cycle, by slot
    rho: np.ndarray         #: (users,) work space of the RUP update
    slot: np.ndarray        #: (users,) each user's slot (the users whose RUP moves at [0, ci[_NLIVE]))
    uslot: np.ndarray       #: (users,) each slot's user
    rupu: np.ndarray        #: (users,) a negotiation's RUPs, of its submitters with idle jobs in user order
    cfac: np.ndarray        #: (users,) their priority factors
    cptr: np.ndarray        #: (users + 1,) their idle jobs in sjob
    eup: np.ndarray         #: (users,) a negotiation's effective user priorities (its submitters)
    usage: np.ndarray       #: (users,) its usage
    shares: np.ndarray      #: (users,) pie shares (work space)
    limits: np.ndarray      #: (users,) pie slices (work space)
    order: np.ndarray       #: (users,) a negotiation's submitter order
    active: np.ndarray      #: (users,) bool work space
    starve: np.ndarray      #: (users,) work space


def new_state(uidx, size, procs, factor, prio, capacity: int) -> CondorLoopState:
    """The state for jobs in arrival order (``uidx``, ``size``, ``procs`` by position), users' priority
    ``factor`` (:meth:`~fairalloc.fairshare.HTCondorPriority.prio_factors`), ``prio`` (an
    :class:`~fairalloc.fairshare.HTCondorPriority`) on ``capacity`` processors."""
    n = len(uidx)
    m = n if n else 1
    nu = len(factor)
    ci = np.zeros(5, np.int64)
    cf = np.array([0.0, float(prio.interval), float(prio.tau), float(capacity), float(prio.min_slot_weight), np.inf,
                   np.nan, 0.0, 0.0, np.nan])

    def f(a, dt):
        return np.ascontiguousarray(a, dtype=dt)

    z = np.zeros
    return CondorLoopState(ci=ci, cf=cf, uidx=f(uidx, np.int64), size=f(size, float), procs=f(procs, np.int64),
                           started_at=z(m), idle=z(m, np.int64), sjob=z(m, np.int64), ssize=z(m), matched=z(m, np.bool_),
                           ptr=z(nu + 1, np.int64), rup=np.full(nu, _hc.MIN_PRIORITY), factor=f(factor, float),
                           in_use=z(nu), uncharged=z(nu), rho=z(nu), slot=np.arange(nu, dtype=np.int64),
                           uslot=np.arange(nu, dtype=np.int64), rupu=z(nu), cfac=z(nu), cptr=z(nu + 1, np.int64),
                           eup=z(nu), usage=z(nu), shares=z(nu), limits=z(nu), order=np.arange(nu, dtype=np.int64),
                           active=z(nu, np.bool_), starve=z(nu))


def idle_state() -> CondorLoopState:
    """A state of no job and one user (the field of a Slurm run's state: the same numba type)."""
    from ...fairshare.htcondor import HTCondorPriority

    return new_state(np.zeros(0, np.int64), np.zeros(0), np.zeros(0, np.int64), np.ones(1), HTCondorPriority(), 1)


@jit(inline='always')
def _swap(hc, a, b):
    """Exchange the users at slots ``a`` and ``b``."""
    ua, ub = hc.uslot[a], hc.uslot[b]
    hc.uslot[a], hc.uslot[b] = ub, ua
    hc.slot[ua], hc.slot[ub] = b, a
    hc.rup[a], hc.rup[b] = hc.rup[b], hc.rup[a]
    hc.in_use[a], hc.in_use[b] = hc.in_use[b], hc.in_use[a]
    hc.uncharged[a], hc.uncharged[b] = hc.uncharged[b], hc.uncharged[a]


@jit(inline='always')
def _live(hc, u):
    """User ``u``'s slot, among the users whose RUP moves (it is about to use processors)."""
    nl = hc.ci[_NLIVE]
    if hc.slot[u] >= nl:
        _swap(hc, hc.slot[u], nl)
        hc.ci[_NLIVE] = nl + 1
    return hc.slot[u]


@jit(_nrt=False)
def catch_up(hc, now):
    r"""Every cycle up to ``now`` (the RUP updates; the processors in use constant in between).

    Only the users at slots ``[0, ci[_NLIVE])`` are updated: every other user is at the floor with nothing in use
    and nothing uncharged, which a cycle leaves exactly as it is
    (:math:`\max(\pi_{min}, (1-\beta)\cdot 0 + \beta\,\pi_{min}) = \pi_{min}`, :math:`\beta \le 1`); a user
    joins them when it starts a job and leaves them once back in that state."""
    cf, ci = hc.cf, hc.ci
    if cf[_LAST] + cf[_INTERVAL] > now:
        return
    nl = ci[_NLIVE]
    last, k = _condor_cycles(hc.rup[:nl], hc.in_use[:nl], hc.uncharged[:nl], hc.rho[:nl], cf[_LAST], now,
                             cf[_INTERVAL], cf[_TAU], _hc.MIN_PRIORITY, cf[_DC:_DC + 4])
    cf[_LAST] = last
    ci[_CYCLES] += k
    s = 0
    while s < nl:
        if hc.rup[s] == _hc.MIN_PRIORITY and hc.in_use[s] == 0.0 and hc.uncharged[s] == 0.0:
            nl -= 1
            _swap(hc, s, nl)
        else:
            s += 1
    ci[_NLIVE] = nl


@jit(_nrt=False)
def finish(hc, j, now):
    """Job ``j`` ended at ``now``: the cycles up to now; its slot weight leaves the user's use and its usage
    since its start (or the last cycle) is left to the next update (the engine's ``on_finish``)."""
    catch_up(hc, now)
    u = _live(hc, hc.uidx[j])
    w = hc.size[j]
    hc.in_use[u] -= w
    if abs(hc.in_use[u]) < 1e-9:
        hc.in_use[u] = 0.0
    s = hc.started_at[j]
    last = hc.cf[_LAST]
    hc.uncharged[u] += w * (now - (s if s > last else last))


@jit(_nrt=False)
def submit(hc, j, now):
    """Job ``j`` arrives at ``now``: the cycles up to now, then it joins the idle jobs."""
    catch_up(hc, now)
    k = hc.ci[_NIDLE]
    hc.idle[k] = j
    hc.started_at[j] = -np.inf            # idle
    hc.ci[_NIDLE] = k + 1
    if hc.size[j] < hc.cf[_MINSIZE]:
        hc.cf[_MINSIZE] = hc.size[j]


@jit(_nrt=False)
def _negotiate(hc, free):
    """One negotiation over the idle jobs with ``free`` processors (the engine's ``schedule`` at a cycle):
    the idle jobs by user, then position; the pie spins; returns how many were matched (kept first in
    ``sjob``'s matched entries, in that order, by :func:`decide`)."""
    ci = hc.ci
    n_idle = ci[_NIDLE]
    nu = hc.rup.shape[0]
    ptr, idle, sjob, ssize, uidx = hc.ptr, hc.idle, hc.sjob, hc.ssize, hc.uidx
    for u in range(nu + 1):                     # counting sort by user (stable: positions ascending)
        ptr[u] = 0
    for q in range(n_idle):
        ptr[uidx[idle[q]] + 1] += 1
    for u in range(nu):
        ptr[u + 1] += ptr[u]
    for q in range(n_idle):                     # (ptr[u] moves to the end of u's jobs, then back)
        j = idle[q]
        u = uidx[j]
        sjob[ptr[u]] = j
        ssize[ptr[u]] = hc.size[j]
        hc.matched[ptr[u]] = False
        ptr[u] += 1
    for u in range(nu, 0, -1):
        ptr[u] = ptr[u - 1]
    ptr[0] = 0
    # the submitters with idle jobs only, in user order (the others take no part in the rule: no share, no
    # limit, no place in the spins; the order's index tie-break keeps user order), with their RUP by slot
    total = 0.0
    na = 0
    cptr = hc.cptr
    cptr[0] = 0
    for u in range(nu):
        s = hc.slot[u]
        total += hc.in_use[s]
        if ptr[u + 1] > ptr[u]:
            hc.rupu[na] = hc.rup[s]
            hc.cfac[na] = hc.factor[u]
            hc.usage[na] = hc.in_use[s]
            hc.order[na] = na
            na += 1
            cptr[na] = ptr[u + 1]
    _eup_into(hc.rupu[:na], hc.cfac[:na], hc.eup[:na])
    _negotiate_work_into(hc.eup[:na], hc.usage[:na], cptr[:na + 1], ssize[:n_idle], float(free), hc.cf[_TOTAL],
                         np.inf, total, hc.cf[_MSW], hc.matched[:n_idle], hc.shares[:na], hc.limits[:na],
                         hc.order[:na], hc.active[:na], hc.starve[:na])


@jit(inline='always')
def decide(hc, now, free, es, out):
    """One decision at ``now`` with ``free`` processors: the cycles up to now; at a cycle instant with an idle
    job that fits, one negotiation; the jobs matched start (in the engine's order: by user, then submission).
    Writes ranks ``0..k-1`` to ``out`` with their jobs in ``es.wjob``; returns (k, free left)."""
    catch_up(hc, now)
    ci, cf = hc.ci, hc.cf
    ci[_DECISIONS] += 1
    n_idle = ci[_NIDLE]
    if now != cf[_LAST] or n_idle == 0 or cf[_MINSIZE] > free:
        return 0, free                          # jobs start only at cycles, and only if one fits
    ci[_NEG] += 1
    _negotiate(hc, free)
    k = 0
    for q in range(n_idle):
        if hc.matched[q]:
            j = hc.sjob[q]
            es.wjob[k] = j
            out[k] = k
            k += 1
            hc.started_at[j] = now
            hc.in_use[_live(hc, hc.uidx[j])] += hc.size[j]
            free -= hc.procs[j]
    if k > 0:                                   # the idle jobs left, in arrival order
        w = 0
        mn = np.inf
        idle = hc.idle
        for q in range(n_idle):
            j = idle[q]
            if hc.started_at[j] == -np.inf:      # (still idle)
                idle[w] = j
                w += 1
                if hc.size[j] < mn:
                    mn = hc.size[j]
        ci[_NIDLE] = w
        cf[_MINSIZE] = mn
    return k, free


@jit(inline='always')
def next_wakeup(hc, free):
    """The next cycle while an idle job fits in ``free`` processors (a cycle may then match it); else inf."""
    if hc.ci[_NIDLE] == 0 or hc.cf[_MINSIZE] > free:
        return np.inf
    return hc.cf[_LAST] + hc.cf[_INTERVAL]
