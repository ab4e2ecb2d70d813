r"""HTCondor's user priorities, pie-slice negotiation and hierarchical group quotas.

Sources (read at htcondor/htcondor ``7491a145f6``, 2026-08-21): the admin manual's "User Priorities and
Negotiation", "Priority Calculation", "The Layperson's Description of the Pie Spin and Pie Slice" and
"Accounting Groups with Hierarchical Group Quotas" (``docs/admin-manual/cm-configuration.rst``,
https://htcondor.readthedocs.io/en/latest/admin-manual/cm-configuration.html), the negotiator's
configuration page, ``src/condor_negotiator.V6/Accountant.cpp`` (``UpdateOnePriority``),
``matchmaker.cpp`` (``negotiateWithGroup``, ``calculateSubmitterLimit``, ``calculateNormalizationFactor``,
``SubmitterLimitPermits``) and ``GroupEntry.cpp`` (``hgq_assign_quotas``, ``hgq_fairshare``,
``hgq_allocate_surplus``, ``strict_enforce_quota``); defaults from ``src/condor_utils/param_info.in``.

**Real user priority** (RUP, "Priority Calculation"): every update, :math:`\Delta t` seconds after the
last,

.. math:: \pi_r(u, t) = \beta\,\pi_r(u, t - \Delta t) + (1 - \beta)\,\rho(u, t),\qquad
          \beta = 0.5^{\Delta t / h},

with :math:`\rho` the (slot-weighted) cores in use, plus the usage of jobs that ended since the last
update divided by :math:`\Delta t`, and :math:`h` = ``PRIORITY_HALFLIFE`` (default 86400 s). The RUP
never goes below 0.5 (``MinPriority``; every user starts there). At steady state it tends to the
cores in use. This is **SDRF's Eq. 6** with the excess :math:`\bar o` replaced by :math:`\rho`:
:math:`\beta = e^{-\Delta t/\tau}` with :math:`\tau = h/\ln 2`, and the update is
:func:`fairalloc.commitments.decay_row_into` itself, followed by the floor (:func:`rup_update_into`).
So a RUP is an SDRF commitment computed on the whole use (in cores, not fractions, and not above a
fair share), with a floor.

**Effective user priority** EUP = RUP :math:`\times` priority factor (``DEFAULT_PRIO_FACTOR`` = 1000,
or the user's ``prio_factor`` in the :class:`~fairalloc.accounts.AccountTree`). Lower is better.

**Pie slices** (``calculateNormalizationFactor``, ``calculateSubmitterLimit``): among the submitters
negotiating, :math:`share_i = (1/EUP_i)/\sum_j (1/EUP_j)` and the limit :math:`\max(share_i\,W - usage_i,
0)` with :math:`W` the pool's slot weight (at most the group's quota) and :math:`usage_i` what the user
already runs. Submitters negotiate in EUP order (then the smaller starvation ratio
:math:`usage/(usage + limit)`, then the lower index, where HTCondor uses a hash of the submitter's last
update time); leftovers are spun again with recomputed slices among those still wanting (:func:`negotiate_into`).

**Group quotas** (hierarchical group quotas): static quotas (absolute) and dynamic quotas (fractions
of the parent's) assigned top-down (:func:`group_quotas`); each group gets :math:`\min(requested,
quota)` and the unused quota, the *surplus*, goes bottom-up to groups that accept surplus, in
proportion to their quotas (:func:`group_allocations`); a group that does not accept surplus caps the
usage of its whole subtree at its quota (:func:`group_limits`, ``NEGOTIATOR_STRICT_ENFORCE_QUOTA``).
Weighted slots (``NEGOTIATOR_USE_SLOT_WEIGHTS``, the default) are assumed, so the integer round-robin of
remainders (``hgq_recover_remainders``) does not run, as in HTCondor.

Not modelled: preemption (``NEGOTIATOR_CONSIDER_PREEMPTION`` is taken as False: only idle capacity is
matched, which the configuration page says also makes the pie more accurate), floors and ceilings,
nice and remote users, the order of several allocation rounds between groups.

Examples
--------
The manual: a user with RUP 10 and nothing running has RUP 5 one day later and 2.5 two days later:

>>> rup = np.array([10.0])
>>> update_rup(rup, [0.0], 86400.0, half_life=86400.0).tolist()
[5.0]
>>> update_rup(rup, [0.0], 2 * 86400.0, half_life=86400.0).tolist()
[2.5]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from .. import commitments
from ..accounts import AccountTree
from ..errors import InvalidInstanceError
from ._checks import scalar
from ._jit import callee

__all__ = [
    "HTCondorPriority",
    "MIN_PRIORITY",
    "rup_update_into",
    "rup_update_by_into",
    "update_rup",
    "effective_priority_into",
    "submitter_shares_into",
    "submitter_limit",
    "negotiate_into",
    "negotiate_work_into",
    "group_quotas",
    "group_allocations",
    "group_limits",
]

#: The lowest real user priority (``Accountant::MinPriority``); every user starts there.
MIN_PRIORITY = 0.5


@dataclass(frozen=True)
class HTCondorPriority:
    """HTCondor's priority and negotiation knobs (configuration names in brackets), checked.

    Parameters
    ----------
    half_life : float, optional
        [``PRIORITY_HALFLIFE``] seconds, ``> 0``; default 86400.
    default_prio_factor : float, optional
        [``DEFAULT_PRIO_FACTOR``] ``>= 1``; default 1000.
    interval : float, optional
        [``NEGOTIATOR_INTERVAL``] seconds between negotiation cycles (each updates the priorities);
        default 60.
    accept_surplus : bool, optional
        [``GROUP_ACCEPT_SURPLUS``] default for groups without their own ``accept_surplus``; default False.
    oversubscription : bool, optional
        [``NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION``] default True (``param_info.in``; the admin manual's
        quota section describes the scaling that ``False`` gives).
    min_slot_weight : float, optional
        The smallest slot weight (one core); default 1.

    Raises
    ------
    InvalidInstanceError
        A half-life or interval of 0 or below, a priority factor below 1.

    Examples
    --------
    >>> HTCondorPriority().half_life, HTCondorPriority().default_prio_factor
    (86400.0, 1000.0)
    >>> HTCondorPriority(half_life=0)
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: half_life=0 must be finite and > 0 (PRIORITY_HALFLIFE)
    """

    half_life: float = 86400.0
    default_prio_factor: float = 1000.0
    interval: float = 60.0
    accept_surplus: bool = False
    oversubscription: bool = True
    min_slot_weight: float = 1.0

    def __post_init__(self) -> None:
        for name, knob in (("half_life", "PRIORITY_HALFLIFE"), ("interval", "NEGOTIATOR_INTERVAL"),
                           ("min_slot_weight", "slot weight")):
            object.__setattr__(self, name, scalar(name, getattr(self, name), what=f" ({knob})"))
        f = scalar("default_prio_factor", self.default_prio_factor, what=" (DEFAULT_PRIO_FACTOR)")
        if f < 1:
            raise InvalidInstanceError(f"default_prio_factor={self.default_prio_factor!r} must be >= 1 "
                                       "(DEFAULT_PRIO_FACTOR)", argument="default_prio_factor", value=f)
        object.__setattr__(self, "default_prio_factor", f)

    @property
    def tau(self) -> float:
        """The time constant :math:`h/\\ln 2` of the RUP (SDRF's :math:`\\tau`)."""
        return commitments.tau_from_half_life(self.half_life)

    def prio_factors(self, tree: AccountTree) -> np.ndarray:
        """Each user's priority factor: its ``prio_factor`` in the tree, else ``default_prio_factor``.

        Parameters
        ----------
        tree : AccountTree

        Returns
        -------
        ndarray of float, shape (n_users,)

        Examples
        --------
        >>> from fairalloc.accounts import AccountTree
        >>> t = AccountTree([{"user": "a"}, {"user": "b", "prio_factor": 2000}])
        >>> HTCondorPriority().prio_factors(t).tolist()
        [1000.0, 2000.0]
        """
        pf = np.asarray(tree.attribute("prio_factor"))[tree.user_nodes]
        return np.where(np.isnan(pf), self.default_prio_factor, pf)


def rup_update_into(rup, rho, dt: float, tau: float, min_priority: float, out) -> None:
    r"""One RUP update (``UpdateOnePriority``): floor, SDRF Eq. 6 with :math:`\bar o = \rho`, floor.

    :math:`\pi \leftarrow \max(\pi_{min}, \beta \max(\pi_{min}, \pi) + (1-\beta)\rho)` with
    :math:`\beta = e^{-\Delta t/\tau} = 0.5^{\Delta t/h}`, computed by
    :func:`fairalloc.commitments.decay_row_into` (the one definition of Eq. 6).

    Parameters
    ----------
    rup : ndarray of float, shape (n,)
        Real user priorities before the update.
    rho : ndarray of float, shape (n,)
        Recent usage :math:`\rho`: cores (slot weight) in use, plus uncharged usage of jobs that ended
        since the last update divided by ``dt``.
    dt : float
        Seconds since the last update, ``> 0``.
    tau : float
        :math:`h/\ln 2` (:func:`fairalloc.commitments.tau_from_half_life`).
    min_priority : float
        :data:`MIN_PRIORITY`.
    out : ndarray of float, shape (n,)
        Receives the new RUPs (may be ``rup``).

    Examples
    --------
    From the floor, 100 cores for 48 hours at a one-day half-life (the manual's "about 75"):
    :math:`100 (1 - 1/4) + 0.5/4 = 75.125`:

    >>> out = np.empty(1)
    >>> rup_update_into(np.array([0.5]), np.array([100.0]), 2 * 86400.0, 86400.0 / np.log(2), 0.5, out)
    >>> round(float(out[0]), 9)
    75.125
    """
    one_minus, keep = commitments.decay_factors(dt, tau)
    rup_update_by_into(rup, rho, one_minus, keep, min_priority, out)


@callee
def rup_update_by_into(rup, rho, one_minus: float, keep: float, min_priority: float, out) -> None:
    r""":func:`rup_update_into` with Eq. 6's factors given (:func:`fairalloc.commitments.decay_factors` of ``dt``
    and ``tau``): a loop of cycles of one length computes them once (the result is the same to the bit).

    Parameters
    ----------
    rup, rho, min_priority, out
        As :func:`rup_update_into`.
    one_minus, keep : float
        :math:`1-\beta` and :math:`\beta`.

    Examples
    --------
    The example of :func:`rup_update_into` (:math:`\beta = 1/4`):

    >>> out = np.empty(1)
    >>> rup_update_by_into(np.array([0.5]), np.array([100.0]), 0.75, 0.25, 0.5, out)
    >>> float(out[0])
    75.125
    """
    for k in range(len(rup)):
        out[k] = rup[k] if rup[k] > min_priority else min_priority
    commitments.decay_row_by_into(out, rho, one_minus, keep, out)
    for k in range(len(out)):
        if out[k] < min_priority:
            out[k] = min_priority


def update_rup(rup: Any, in_use: Any, dt: float, *, half_life: float = 86400.0, uncharged: Any = None) -> np.ndarray:
    """Real user priorities after ``dt`` seconds with ``in_use`` cores (a checked :func:`rup_update_into`).

    Parameters
    ----------
    rup : array_like, shape (n,)
        RUPs before (``>= 0``; values below 0.5 count as 0.5).
    in_use : array_like, shape (n,)
        Slot weight (cores) each user runs during the interval, ``>= 0``.
    dt : float
        Seconds, ``> 0``.
    half_life : float, optional
        ``PRIORITY_HALFLIFE`` (default 86400).
    uncharged : array_like, shape (n,), optional
        Core-seconds of jobs that ended during the interval (added as ``uncharged / dt``).

    Returns
    -------
    ndarray of float, shape (n,)

    Raises
    ------
    InvalidInstanceError
        Shapes differ, a negative or non-finite entry, ``dt`` or ``half_life`` not positive.

    Examples
    --------
    Ten cores for a long time: the RUP tends to 10 (steady state):

    >>> update_rup([0.5], [10.0], 30 * 86400.0).round(6).tolist()
    [10.0]
    """
    r = np.asarray(rup, dtype=float)
    rho = np.asarray(in_use, dtype=float)
    if r.ndim != 1 or rho.shape != r.shape:
        raise InvalidInstanceError(f"rup {r.shape} and in_use {rho.shape} must be 1-D of one length",
                                   argument="in_use", value=rho.shape)
    for name, a in (("rup", r), ("in_use", rho)):
        bad = np.flatnonzero(~np.isfinite(a) | (a < 0))
        if bad.size:
            raise InvalidInstanceError(f"{name}[{int(bad[0])}]={float(a[bad[0]])!r} must be finite and >= 0",
                                       argument=name, index=(int(bad[0]),), value=float(a[bad[0]]))
    if not (math.isfinite(dt) and dt > 0):
        raise InvalidInstanceError(f"dt={dt!r} must be finite and > 0", argument="dt", value=dt)
    tau = commitments.tau_from_half_life(half_life)
    if uncharged is not None:
        u = np.asarray(uncharged, dtype=float)
        if u.shape != r.shape or np.any(~np.isfinite(u) | (u < 0)):
            raise InvalidInstanceError("uncharged must have in_use's shape, finite and >= 0", argument="uncharged",
                                       value=u.tolist())
        rho = rho + u / dt
    out = np.empty_like(r)
    rup_update_into(r, rho, float(dt), tau, MIN_PRIORITY, out)
    return out


def effective_priority_into(rup, prio_factor, out) -> None:
    """EUP = RUP x priority factor (``Accountant::GetPriority``).

    Parameters
    ----------
    rup, prio_factor : ndarray of float, shape (n,)
    out : ndarray of float, shape (n,)

    Examples
    --------
    >>> out = np.empty(2); effective_priority_into(np.array([0.5, 10.0]), np.array([1000.0, 2000.0]), out)
    >>> out.tolist()
    [500.0, 20000.0]
    """
    for k in range(len(rup)):
        out[k] = rup[k] * prio_factor[k]


@callee
def submitter_shares_into(eup, active, out) -> None:
    r"""Pie shares :math:`(1/EUP_i)/\sum_j (1/EUP_j)` over the active submitters (0 for the others).

    Computed as HTCondor does, :math:`(M/EUP_i)/\sum_j (M/EUP_j)` with :math:`M` the largest active EUP
    (``calculateNormalizationFactor``).

    Parameters
    ----------
    eup : ndarray of float, shape (n,)
        Effective user priorities, ``> 0``.
    active : ndarray of bool, shape (n,)
        Submitters negotiating.
    out : ndarray of float, shape (n,)

    Examples
    --------
    The manual: EUP 5, 10, 20 receive slots in the ratio 4 : 2 : 1:

    >>> out = np.empty(3); submitter_shares_into(np.array([5.0, 10.0, 20.0]), np.ones(3, np.bool_), out)
    >>> (out * 7).round(12).tolist()
    [4.0, 2.0, 1.0]
    """
    mx = 2.2250738585072014e-308
    for k in range(len(eup)):
        if active[k] and eup[k] > mx:
            mx = eup[k]
    norm = 0.0
    for k in range(len(eup)):
        if active[k]:
            norm += mx / eup[k]
    for k in range(len(eup)):
        out[k] = (mx / eup[k]) / norm if active[k] else 0.0


@callee
def submitter_limit(share: float, slot_weight_total: float, usage: float, group_room: float) -> float:
    """A submitter's pie slice: ``max(share * W - usage, 0)``, at most the group's room (``calculateSubmitterLimit``).

    Parameters
    ----------
    share : float
        :func:`submitter_shares_into`.
    slot_weight_total : float
        The pie :math:`W` (pool slot weight, at most the group's quota).
    usage : float
        Slot weight the submitter runs now.
    group_room : float
        ``max(group quota - group usage, 0)`` at the start of the spin (``inf`` without a group).

    Returns
    -------
    float

    Examples
    --------
    >>> submitter_limit(0.25, 100.0, 10.0, math.inf), submitter_limit(0.25, 100.0, 30.0, math.inf)
    (15.0, 0.0)
    >>> submitter_limit(0.25, 100.0, 10.0, 4.0)
    4.0
    """
    lim = share * slot_weight_total - usage
    if lim < 0.0:
        lim = 0.0
    if lim > group_room:
        lim = group_room
    return lim


def negotiate_into(eup, usage, job_ptr, job_size, free: float, slot_weight_total: float, group_quota: float,
                   group_usage: float, min_slot_weight: float, matched, shares, limits, order) -> float:
    r"""One negotiation cycle of one group on a pool of ``free`` cores: pie spins (``negotiateWithGroup``).

    Each spin computes the shares of the submitters still negotiating (:func:`submitter_shares_into`)
    and the pie left :math:`\sum_i` limit\ :sub:`i` (:func:`submitter_limit`); on the first spin the
    submitters are ordered by EUP, then starvation ratio :math:`usage/(usage+limit)`, then index. Each
    submitter in turn recomputes its limit with its current usage, takes at most the pie left, and is
    offered its idle jobs in queue order: a job is matched when it fits the free cores and the
    submitter's new matches stay within its limit (or it has matched nothing yet this spin and its limit
    is positive: HTCondor's round-up against crumbs, ``SubmitterLimitPermits``). A submitter that got
    all it wanted, or whose remaining jobs do not fit, leaves the cycle; one stopped by its limit waits
    for the next spin. Spins repeat while the pie shrank or a submitter left, someone negotiates and
    cores are free. After the first spin a submitter whose limit or the pie left is below
    ``min_slot_weight`` is skipped.

    Parameters
    ----------
    eup : ndarray of float, shape (n,)
        Effective user priorities (fixed during the cycle).
    usage : ndarray of float, shape (n,)
        Slot weight each submitter runs; increased in place by its matches.
    job_ptr : ndarray of int64, shape (n + 1,)
        Submitter ``i``'s idle jobs are ``job_size[job_ptr[i]:job_ptr[i + 1]]``, in the order its schedd
        presents them (job priority, then submission).
    job_size : ndarray of float, shape (J,)
        Slot weight (cores) of each idle job.
    free : float
        Free cores in the pool.
    slot_weight_total : float
        The pool's slot weight (used and free); the pie is at most ``group_quota`` of it.
    group_quota : float
        The group's negotiation limit (``inf`` without groups).
    group_usage : float
        Slot weight the group runs now.
    min_slot_weight : float
        Smallest slot weight (1 core).
    matched : ndarray of bool, shape (J,)
        In: jobs already matched (skipped); out: also this cycle's matches.
    shares, limits : ndarray of float, shape (n,)
        Work space (on return: the last spin's shares and limits).
    order : ndarray of int64, shape (n,)
        Receives the negotiation order of the first spin.

    Returns
    -------
    float
        The free cores left.

    Examples
    --------
    Three submitters with EUP 5, 10, 20 (shares 4/7, 2/7, 1/7), nothing running, 70 one-core slots and
    plenty of one-core jobs: slices 40, 20 and 10 (the manual's inverse ratio rule):

    >>> n, jobs = 3, 100
    >>> ptr = np.arange(0, (n + 1) * jobs, jobs, dtype=np.int64); size = np.ones(n * jobs)
    >>> usage = np.zeros(n); matched = np.zeros(n * jobs, np.bool_)
    >>> left = negotiate_into(np.array([5.0, 10.0, 20.0]), usage, ptr, size, 70.0, 70.0, math.inf, 0.0, 1.0,
    ...                       matched, np.empty(n), np.empty(n), np.empty(n, np.int64))
    >>> usage.tolist(), float(left)
    ([40.0, 20.0, 10.0], 0.0)
    """
    n = len(eup)
    for k in range(n):
        order[k] = k
    return negotiate_work_into(eup, usage, job_ptr, job_size, free, slot_weight_total, group_quota, group_usage,
                               min_slot_weight, matched, shares, limits, order, np.zeros(n, dtype=np.bool_),
                               np.empty(n))


@callee
def negotiate_work_into(eup, usage, job_ptr, job_size, free: float, slot_weight_total: float, group_quota: float,
                        group_usage: float, min_slot_weight: float, matched, shares, limits, order, active,
                        starve) -> float:
    """:func:`negotiate_into` with its work space given (it allocates nothing: the simulator's compiled loop).

    Parameters
    ----------
    eup, usage, job_ptr, job_size, free, slot_weight_total, group_quota, group_usage, min_slot_weight, matched, shares, limits
        As in :func:`negotiate_into`.
    order : ndarray of int64, shape (n,)
        On entry any permutation of ``range(n)`` (the previous cycle's order makes the first spin's sort nearly
        linear; the result does not depend on it); receives the first spin's order.
    active : ndarray of bool, shape (n,)
        Work space.
    starve : ndarray of float, shape (n,)
        Work space.

    Returns
    -------
    float
        As :func:`negotiate_into`: the free cores left.

    Examples
    --------
    :func:`negotiate_into`'s example (slices 40, 20, 10 by the inverse ratio rule) from a reversed start order:

    >>> n, jobs = 3, 100
    >>> ptr = np.arange(0, (n + 1) * jobs, jobs, dtype=np.int64); size = np.ones(n * jobs)
    >>> usage = np.zeros(n); matched = np.zeros(n * jobs, np.bool_); order = np.array([2, 1, 0])
    >>> left = negotiate_work_into(np.array([5.0, 10.0, 20.0]), usage, ptr, size, 70.0, 70.0, math.inf, 0.0, 1.0,
    ...                            matched, np.empty(n), np.empty(n), order, np.zeros(n, np.bool_), np.empty(n))
    >>> usage.tolist(), float(left), order.tolist()
    ([40.0, 20.0, 10.0], 0.0, [0, 1, 2])
    """
    n = len(eup)
    for i in range(n):
        active[i] = False
    for i in range(n):
        for j in range(job_ptr[i], job_ptr[i + 1]):
            if not matched[j]:
                active[i] = True
                break
    swt = slot_weight_total if slot_weight_total < group_quota else group_quota
    spin = 0
    n_order = 0
    while True:
        spin += 1
        if group_usage >= group_quota:
            break
        n_active = 0
        for i in range(n):
            if active[i]:
                n_active += 1
        if n_active == 0 or free <= 0:
            break
        room = group_quota - group_usage
        if room < 0:
            room = 0.0
        submitter_shares_into(eup, active, shares)
        pie_left = 0.0
        for i in range(n):
            limits[i] = submitter_limit(shares[i], swt, usage[i], room) if active[i] else 0.0
            pie_left += limits[i]
        if pie_left <= 0:
            break
        if spin == 1:
            # order: EUP, then starvation ratio, then index (a total order: an insertion sort from the order
            # given gives the one result, in about n steps when that order is nearly sorted already)
            for i in range(n):
                alloc = usage[i] + limits[i]
                starve[i] = usage[i] / alloc if alloc > 0 else 3.4028234663852886e38
            for k in range(1, n):
                x = order[k]
                q = k
                while q > 0:
                    y = order[q - 1]
                    if not (eup[x] < eup[y] or (eup[x] == eup[y] and (starve[x] < starve[y] or (
                            starve[x] == starve[y] and x < y)))):
                        break
                    order[q] = y
                    q -= 1
                order[q] = x
            n_order = n
        pie_orig = pie_left
        active_orig = n_active
        for k in range(n_order):
            i = order[k]
            if not active[i]:
                continue
            if group_usage >= group_quota:
                break
            lim = submitter_limit(shares[i], swt, usage[i], room)
            if lim > pie_left:
                lim = pie_left
            if spin > 1 and (lim < min_slot_weight or pie_left < min_slot_weight):
                continue
            used = 0.0
            limited = False
            for j in range(job_ptr[i], job_ptr[i + 1]):
                if matched[j]:
                    continue
                c = job_size[j]
                if not (used + c <= lim or (used <= 0 and lim > 0)):
                    limited = True
                    continue
                if c > free:
                    continue
                matched[j] = True
                used += c
                usage[i] += c
                group_usage += c
                free -= c
                pie_left -= c
            if not (limited or used >= lim):
                active[i] = False
        n_active = 0
        for i in range(n):
            if active[i]:
                n_active += 1
        if not ((pie_left < pie_orig or n_active < active_orig) and n_active > 0 and free > 0):
            break
    return free


# ---- hierarchical group quotas (per negotiation cycle: Python, recursive as GroupEntry.cpp) ----------
class _Group:
    __slots__ = ("node", "children", "parent", "static", "config", "quota", "subtree_quota", "requested",
                 "subtree_requested", "allocated", "accept_surplus")

    def __init__(self, node: int) -> None:
        self.node = node
        self.children: list[_Group] = []
        self.parent: _Group | None = None
        self.static = False
        self.config = 0.0
        self.quota = 0.0
        self.subtree_quota = 0.0
        self.requested = 0.0
        self.subtree_requested = 0.0
        self.allocated = 0.0
        self.accept_surplus = False


def _groups(tree: AccountTree, accept_surplus: bool) -> list[_Group]:
    """One _Group per account node (users are submitters, not groups); root accepts surplus."""
    quota = np.asarray(tree.attribute("quota"))
    dyn = np.asarray(tree.attribute("quota_dynamic"))
    acc = np.asarray(tree.attribute("accept_surplus"))
    groups = [_Group(v) for v in range(len(tree.account_names))]
    for v, g in enumerate(groups):
        if not np.isnan(quota[v]):
            g.static, g.config = True, float(quota[v])
        elif not np.isnan(dyn[v]):
            g.static, g.config = False, float(dyn[v])
        g.accept_surplus = bool(acc[v]) if acc[v] >= 0 else accept_surplus
        if v > 0:
            g.parent = groups[tree.parent[v]]
            g.parent.children.append(g)
    groups[0].accept_surplus = True
    return groups


def _assign(g: _Group, quota: float, oversub: bool) -> None:
    if quota <= 0:
        return
    g.subtree_quota = quota
    sqsum = sum(c.config for c in g.children if c.static)
    dqsum = sum(c.config for c in g.children if not c.static)
    sqa = sqsum if oversub else min(sqsum, quota)
    dqa = max(0.0, quota - sqa)
    zs = sqsum if sqsum > 0 else 1.0
    zd = max(dqsum, 1.0)
    chq = 0.0
    for c in g.children:
        q = c.config * (sqa / zs) if c.static else c.config * (dqa / zd)
        q = max(q, 0.0)
        _assign(c, q, oversub)
        chq += q
    g.quota = quota if oversub else quota - chq
    if g.parent is None:
        g.quota = quota - chq
    if g.quota < 0:
        g.quota = 0.0


def group_quotas(tree: AccountTree, total: float, *, oversubscription: bool = True) -> tuple[np.ndarray, np.ndarray]:
    r"""Each group's quota from the pool's size (``hgq_assign_quotas``).

    Static children first get their configured quota, scaled down in proportion if they exceed the
    parent's (unless ``oversubscription``); dynamic children share what remains in proportion to their
    fractions (scaled so that the fractions sum to at most 1); a group keeps what its children do not
    take (all of it with ``oversubscription``); the root (``<none>``) keeps the pool minus its children's.

    Parameters
    ----------
    tree : AccountTree
        Groups are its accounts (``quota`` or ``quota_dynamic`` fields; neither = dynamic 0, as
        HTCondor with a warning); users are submitters.
    total : float
        The pool's slot weight, ``> 0``.
    oversubscription : bool, optional
        ``NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION`` (default True, HTCondor's).

    Returns
    -------
    quota : ndarray of float, shape (n_accounts,)
        The quota of each group at its own node.
    subtree_quota : ndarray of float, shape (n_accounts,)
        The quota its subtree received.

    Examples
    --------
    The manual's 30-slot pool, physics 20 and chemistry 10; after a power failure leaves 15 slots
    they scale to 10 and 5 (without oversubscription):

    >>> from fairalloc.accounts import AccountTree
    >>> t = AccountTree([{"account": "group_physics", "quota": 20}, {"account": "group_chemistry", "quota": 10}])
    >>> group_quotas(t, 30.0)[0].tolist()
    [0.0, 20.0, 10.0]
    >>> group_quotas(t, 15.0, oversubscription=False)[0].tolist()
    [0.0, 10.0, 5.0]
    """
    if not (math.isfinite(total) and total > 0):
        raise InvalidInstanceError(f"total={total!r} must be finite and > 0", argument="total", value=total)
    groups = _groups(tree, False)
    _assign(groups[0], float(total), oversubscription)
    return (np.array([g.quota for g in groups]), np.array([g.subtree_quota for g in groups]))


def _surplus_loop(by_quota: bool, groups: list[_Group], allocated: list[float], sub_req: list[float],
                  surplus: float, requested: float) -> tuple[float, float]:
    while surplus > 0:
        z = sum((g.subtree_quota if by_quota else 1.0) for g, r in zip(groups, sub_req) if r > 0)
        if z <= 0:
            break
        never_gt = True
        sumalloc = 0.0
        for j, g in enumerate(groups):
            if sub_req[j] > 0:
                a = surplus * ((g.subtree_quota if by_quota else 1.0) / z)
                if a > sub_req[j]:
                    a = sub_req[j]
                    never_gt = False
                allocated[j] += a
                sub_req[j] -= a
                sumalloc += a
        surplus -= sumalloc
        requested -= sumalloc
        if never_gt or surplus < 0:
            surplus = 0.0
    return surplus, requested


def _allocate_surplus(g: _Group, surplus: float) -> float:
    if surplus <= 0:
        return 0.0
    if g.subtree_requested <= 0:
        return surplus
    groups = g.children + [g]
    allocated = [0.0] * len(groups)
    save_accept, save_sq = g.accept_surplus, g.subtree_quota
    g.accept_surplus = True
    g.subtree_quota = g.quota
    requested = g.subtree_requested
    g.subtree_requested = g.requested
    if surplus >= requested:
        for j, c in enumerate(groups):
            if c.accept_surplus and c.subtree_requested > 0:
                allocated[j] = c.subtree_requested
        surplus -= requested
        requested = 0.0
    else:
        sub_req = [c.subtree_requested if (c.accept_surplus and c.subtree_requested > 0) else 0.0 for c in groups]
        surplus, requested = _surplus_loop(True, groups, allocated, sub_req, surplus, requested)
        surplus, requested = _surplus_loop(False, groups, allocated, sub_req, surplus, requested)
    for j, c in enumerate(groups[:-1]):
        if allocated[j] > 0:
            _allocate_surplus(c, allocated[j])
    g.allocated += allocated[-1]
    g.requested -= allocated[-1]
    g.subtree_requested = requested
    g.accept_surplus, g.subtree_quota = save_accept, save_sq
    return surplus


def _fairshare(g: _Group) -> float:
    g.allocated = min(g.requested, g.quota)
    g.requested -= g.allocated
    g.subtree_requested = g.requested
    surplus = g.quota - g.allocated
    if not g.children:
        return surplus
    for c in g.children:
        surplus += _fairshare(c)
        if c.accept_surplus:
            g.subtree_requested += c.subtree_requested
    return _allocate_surplus(g, surplus)


def group_allocations(tree: AccountTree, total: float, requested: Any, *, accept_surplus: bool = False,
                      oversubscription: bool = True) -> tuple[np.ndarray, np.ndarray, float]:
    r"""Slot weight allocated to each group this cycle, with surplus (``hgq_fairshare``, ``hgq_allocate_surplus``).

    Each group first gets :math:`\min(requested, quota)`. Going up the tree, the quota a subtree leaves
    unused is shared among the groups of that subtree (the node itself included) that accept surplus
    and still want more: all of it when it covers their requests, else in proportion to their quotas,
    then equally among those with no quota.

    Parameters
    ----------
    tree : AccountTree
    total : float
        The pool's slot weight.
    requested : array_like, shape (n_users,)
        Slot weight each user (submitter) wants: running plus idle (HTCondor's weighted running and
        idle jobs); summed into the user's account (users directly under ``root`` are in ``<none>``).
    accept_surplus : bool, optional
        ``GROUP_ACCEPT_SURPLUS``, for groups without their own ``accept_surplus`` (the root always accepts).
    oversubscription : bool, optional
        As :func:`group_quotas`.

    Returns
    -------
    allocated : ndarray of float, shape (n_accounts,)
    quota : ndarray of float, shape (n_accounts,)
        :func:`group_quotas`.
    surplus : float
        Quota nobody could use.

    Examples
    --------
    The manual's surplus example: physics 20 (does not accept surplus) with hep 15 and lep 5 (accept),
    chemistry 10; hep's users want 60, lep's nothing: hep is allocated its 15 plus lep's unused 5, and
    with oversubscription physics' own unused quota too, which :func:`group_limits` caps at physics' 20:

    >>> from fairalloc.accounts import AccountTree
    >>> t = AccountTree([{"account": "physics", "quota": 20, "accept_surplus": False},
    ...     {"account": "hep", "parent": "physics", "quota": 15, "accept_surplus": True},
    ...     {"account": "lep", "parent": "physics", "quota": 5, "accept_surplus": True},
    ...     {"account": "chemistry", "quota": 10},
    ...     {"user": "higgs", "account": "hep"}, {"user": "dirac", "account": "lep"}])
    >>> alloc, quota, left = group_allocations(t, 30.0, [60.0, 0.0], oversubscription=False)
    >>> alloc.tolist(), left
    ([0.0, 0.0, 20.0, 0.0, 0.0], 10.0)
    """
    if not (math.isfinite(total) and total > 0):
        raise InvalidInstanceError(f"total={total!r} must be finite and > 0", argument="total", value=total)
    req = np.asarray(requested, dtype=float)
    if req.shape != (tree.n_users,):
        raise InvalidInstanceError(f"requested must have shape ({tree.n_users},), got {req.shape}",
                                   argument="requested", value=req.shape)
    bad = np.flatnonzero(~np.isfinite(req) | (req < 0))
    if bad.size:
        i = int(bad[0])
        raise InvalidInstanceError(f"requested[{i}]={float(req[i])!r} must be finite and >= 0",
                                   argument="requested", index=(i,), value=float(req[i]))
    groups = _groups(tree, accept_surplus)
    _assign(groups[0], float(total), oversubscription)
    quota = np.array([g.quota for g in groups])
    for k, v in enumerate(tree.user_nodes):
        groups[tree.parent[v]].requested += req[k]
    left = _fairshare(groups[0])
    return np.array([g.allocated for g in groups]), quota, float(left)


def group_limits(tree: AccountTree, allocated: Any, quota: Any, subtree_quota: Any, usage: Any, *,
                 accept_surplus: bool = False) -> np.ndarray:
    r"""The slot weight each group may reach when it negotiates (``hgq_negotiate_with_all_groups``).

    The target :math:`\max(allocated, quota)`, then ``strict_enforce_quota``: for each ancestor (the group
    included) that does not accept surplus, the new usage of the group is at most that ancestor's quota
    (its configured static quota, else its subtree quota) minus its subtree's usage.

    Parameters
    ----------
    tree : AccountTree
    allocated, quota, subtree_quota : array_like, shape (n_accounts,)
        :func:`group_allocations` and :func:`group_quotas`.
    usage : array_like, shape (n_accounts,)
        Slot weight each group runs at its own node (its submitters').
    accept_surplus : bool, optional
        ``GROUP_ACCEPT_SURPLUS``.

    Returns
    -------
    ndarray of float, shape (n_accounts,)

    Examples
    --------
    The surplus example with oversubscription (the default): hep is allocated more than 20, and
    physics (no surplus, quota 20) caps it at 20:

    >>> from fairalloc.accounts import AccountTree
    >>> t = AccountTree([{"account": "physics", "quota": 20, "accept_surplus": False},
    ...     {"account": "hep", "parent": "physics", "quota": 15, "accept_surplus": True},
    ...     {"account": "lep", "parent": "physics", "quota": 5, "accept_surplus": True},
    ...     {"account": "chemistry", "quota": 10},
    ...     {"user": "higgs", "account": "hep"}, {"user": "dirac", "account": "lep"}])
    >>> alloc, quota, _ = group_allocations(t, 30.0, [60.0, 0.0])
    >>> float(alloc[2]) > 20
    True
    >>> float(group_limits(t, alloc, quota, group_quotas(t, 30.0)[1], np.zeros(5))[2])
    20.0
    """
    groups = _groups(tree, accept_surplus)
    alloc = np.asarray(allocated, dtype=float)
    q = np.asarray(quota, dtype=float)
    sq = np.asarray(subtree_quota, dtype=float)
    use = np.asarray(usage, dtype=float)
    na = len(groups)
    for name, a in (("allocated", alloc), ("quota", q), ("subtree_quota", sq), ("usage", use)):
        if a.shape != (na,):
            raise InvalidInstanceError(f"{name} must have shape ({na},) (one per account), got {a.shape}",
                                       argument=name, value=a.shape)
    sub_use = use.copy()
    depth = np.zeros(na, dtype=np.int64)
    for v in range(1, na):
        p = v
        while p > 0:
            depth[v] += 1
            p = tree.parent[p]
    for v in sorted(range(1, na), key=lambda a: -depth[a]):       # deepest accounts first
        sub_use[tree.parent[v]] += sub_use[v]
    out = np.empty(na)
    for v, g in enumerate(groups):
        slots = max(alloc[v], q[v])
        new = slots - use[v]
        h: _Group | None = g
        while h is not None:
            if not h.accept_surplus:
                cap = (h.config if h.static else sq[h.node]) - sub_use[h.node]
                cap = max(cap, 0.0)
                if new > cap:
                    new = cap
            h = h.parent
        out[v] = new + use[v]
    return out
