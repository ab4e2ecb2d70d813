r"""Pooled forms of the production fair-share policies: the allocation each rule converges to.

A production scheduler makes one decision at a time: it offers the next container, admits the next
workload or starts the next job of the user its rule ranks first. The *pooled form* of a rule is the
limit of that loop on a pool of divisible resources (a :class:`~fairalloc.Instance`): each user *i* wants
the bundle :math:`\theta_i` (Leontief: a fraction :math:`t_i \in [0, 1]` of it is worth :math:`t_i`), and
the rule is applied in infinitesimal increments, each charged to the user before the next decision,
until every user is satisfied or needs a full resource. It is what the axioms of ``docs/axioms.md`` are
judged on (:mod:`proofs_check`), beside DRF and SDRF.

**Two methods, one rule.** ``method="increments"`` runs that loop literally with increments of
``step`` (dominant share): each decision calls the per-decision function of :mod:`fairalloc.fairshare`
(:func:`~fairalloc.fairshare.slurm.fairshare_factors`, :meth:`~fairalloc.fairshare.KueueQueues.shares`
with :func:`~fairalloc.fairshare.kueue.drs_key`, :meth:`~fairalloc.fairshare.YarnQueues.order`,
:meth:`~fairalloc.fairshare.MesosSorter.sort`, :func:`~fairalloc.fairshare.htcondor.submitter_shares_into`)
on the current allocation, ties to the lower index. ``method="waterfill"`` (default) computes its limit
exactly: every rule below ranks users by a key that is a strictly increasing function of

.. math:: \ell_i = b_i + x_i / w_i, \qquad x_i = t_i B_i,

with :math:`B_i` the charge of user *i*'s whole demand (its billing, slot weight or dominant share),
:math:`b_i` a start and :math:`w_i` a rate, so the limit of serving the lowest key is the
lexicographic progressive filling of the levels :math:`\ell_i` (a user stops when satisfied or when it
needs a saturated resource): the water-filling engine of DRF and SDRF
(:func:`fairalloc.mechanisms._pooled.run_filling`) with directions :math:`\tilde\theta_i / B_i`, caps
:math:`B_i`, starts :math:`b_i` and rates :math:`w_i`. Each policy's docstring derives its
:math:`(B, b, w)` from the production formula; the tests check the two methods against each other and
against :func:`fairalloc.drf` where the rule reduces to it.

====================  ===========================================  ===================================  ==============================
policy                key (served first)                           :math:`B_i`                          :math:`b_i`, :math:`w_i`
====================  ===========================================  ===================================  ==============================
Slurm classic         largest :math:`F = 2^{-U_E/S}`               billing of :math:`\theta_i`          :math:`P_i/S_i`, :math:`S_i`
Slurm Fair Tree       largest rank of :math:`LF = S/U`             billing of :math:`\theta_i`          :math:`P_i/S_i`, :math:`S_i`
HTCondor              pie slice :math:`\propto 1/EUP`              slot weight of :math:`\theta_i`      0, pie share
Kueue fair sharing    lowest :math:`DRS/w` (cohort, no quotas)     dominant share                       0, weight
Kueue AFS             lowest LocalQueue usage                      entry penalty of :math:`\theta_i`    consumed usage / weight, weight
YARN Fair (DRF)       DRF comparator (no min shares)               dominant share                       0, weight
Mesos DRF sorter      lowest dominant share / weight               dominant share                       0, weight
Volcano DRF, HDRF     lowest dominant share (/ weight)             dominant share                       0, 1 (weight)
====================  ===========================================  ===================================  ==============================

Volcano's proportion plugin is not a water-filling: each queue stops at its *deserved* resources,
computed resource by resource (:func:`volcano_proportion` has the closed form).

**What the pooled forms abstract** (each policy's docstring adds its own): jobs and containers are
rigid and indivisible, decisions happen at discrete times (Slurm recomputes priorities every
``PriorityCalcPeriod``, HTCondor negotiates in cycles), the job priority has other factors (age, size,
QOS), backfilling, preemption, quotas and hierarchies deeper than one level. The users here form a
flat tree whose shares (weights) are the instance's weights.

Units: demands, capacities and usage are in the instance's units; billing (Slurm) and slot weight
(HTCondor) apply :class:`~fairalloc.fairshare.Billing` to them, so past usage is in billing units
(billing rate x periods).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import shares
from ..accounts import AccountTree
from ..errors import InvalidInstanceError
from ..mechanisms._pooled import check_instance, run_filling
from ..model import Instance
from ..result import AllocationResult
from ..validation import require_choice
from . import htcondor as _htcondor
from . import slurm as _slurm
from .billing import Billing
from .kueue import KueueQueues, drs_key
from .mesos import MesosSorter
from .yarn import YarnQueues

__all__ = ["METHODS", "charges", "slurm_fairshare", "htcondor_priority", "kueue_drs", "kueue_afs", "yarn_drf",
           "mesos_drf", "volcano_proportion", "volcano_drf", "volcano_hdrf", "slurm_usage_step", "htcondor_rup_step",
           "kueue_afs_step", "increments"]

#: ``method=`` of every pooled form.
METHODS = ("waterfill", "increments")
#: Default increment (dominant share) of ``method="increments"``.
DEFAULT_STEP = 1e-3
_FULL = 1e-12


def _names(instance: Instance) -> list[str]:
    return [f"u{i}" for i in range(instance.n_agents)]


def _cpu_billing(instance: Instance) -> Billing:
    """Slurm's default billing (allocated CPUs) and HTCondor's default slot weight (``Cpus``): the first resource."""
    return Billing({instance.resource_names[0]: 1.0})


def charges(instance: Instance, billing: Billing | None = None, *, argument: str = "billing") -> np.ndarray:
    """:math:`B_i`: the billing rate of each user's whole demand (:meth:`Billing.rates` in instance units).

    Parameters
    ----------
    instance : Instance
    billing : Billing, optional
        Default: the first resource, one unit per unit (Slurm's ``TRESBillingWeights=CPU=1``,
        HTCondor's ``SLOT_WEIGHT = Cpus``), the first resource playing the CPU.
    argument : str
        Name used in errors.

    Returns
    -------
    ndarray of float, shape (n_agents,)

    Raises
    ------
    InvalidInstanceError
        A user whose demand is not billed at all: the rule would never charge it (in Slurm such a user
        keeps the priority of its past usage however much it runs).

    Examples
    --------
    >>> import fairalloc as fa
    >>> inst = fa.Instance([[2.0, 1.0], [1.0, 4.0]], capacities=[4, 8])
    >>> charges(inst).tolist(), charges(inst, Billing(rule="dominant_share")).tolist()
    ([2.0, 1.0], [0.5, 0.5])
    """
    b = _cpu_billing(instance) if billing is None else billing
    if not isinstance(b, Billing):
        raise InvalidInstanceError(f"{argument} must be a fairalloc.fairshare.Billing, got {type(b).__name__}",
                                   argument=argument, value=repr(b))
    B = b.rates(instance.demands, list(instance.resource_names), capacities=instance.capacities)
    bad = np.flatnonzero(~(B > 0))
    if bad.size:
        i = int(bad[0])
        raise InvalidInstanceError(
            f"{argument}={b!r} charges nothing for user {i}'s demand {instance.demands[i].tolist()}: its key would "
            "never move; bill a resource every user needs", argument=argument, index=(i,), value=float(B[i]))
    return B


def _usage(name: str, value: Any, n: int) -> np.ndarray:
    if value is None:
        return np.zeros(n)
    u = np.asarray(value, dtype=float)
    if u.shape != (n,):
        raise InvalidInstanceError(f"{name} must have shape ({n},) (one per user), got {u.shape}", argument=name,
                                   value=list(u.shape))
    bad = np.flatnonzero(~np.isfinite(u) | (u < 0))
    if bad.size:
        i = int(bad[0])
        raise InvalidInstanceError(f"{name}[{i}]={float(u[i])!r} must be finite and >= 0", argument=name, index=(i,),
                                   value=float(u[i]))
    return u


def _flat_tree(instance: Instance) -> AccountTree:
    return AccountTree.flat(_names(instance), shares=[float(w) for w in instance.weights])


def _queue_tree(instance: Instance, field: str = "weight", head: tuple = (), parent: str | None = None) -> AccountTree:
    """One account ``q{i}`` per user (``field`` = its weight, below ``parent``) holding one user ``u{i}``:
    a queue, ClusterQueue, role or Volcano queue per user, after the ``head`` records (a cohort)."""
    n = instance.n_agents
    up = {} if parent is None else {"parent": parent}
    recs = list(head) + [{"account": f"q{i}", field: float(instance.weights[i]), **up} for i in range(n)]
    recs += [{"user": f"u{i}", "account": f"q{i}"} for i in range(n)]
    return AccountTree(recs, resources=list(instance.resource_names))


def _by_level(instance: Instance, charge: np.ndarray, starts: np.ndarray, rates: np.ndarray, *,
              mechanism: str, stats: dict | None = None) -> AllocationResult:
    """Progressive filling of the levels ``starts + x / rates``, ``x`` the charge (module docstring)."""
    a = shares.normalized_demands(instance.demands, instance.capacities)
    v = a / charge[:, None]
    x, level, status, message, _, st = run_filling(v, charge, starts, rates, method="waterfill", solver=None,
                                                   options=None, mechanism=mechanism)
    st.update(stats or {})
    alloc_norm = x[:, None] * v
    allocation = alloc_norm * instance.capacities
    return AllocationResult.from_arrays(
        status=status, mechanism=mechanism, method="waterfill", message=message, allocation=allocation,
        level=level, levels=starts + x / rates, dominant_shares=shares.dominant_shares(alloc_norm),
        utilities=shares.leontief_utility(allocation, instance.demands), stats=st)


def increments(instance: Instance, pick: Callable[[np.ndarray, np.ndarray], int], *, step: float = DEFAULT_STEP,
               mechanism: str = "increments") -> AllocationResult:
    r"""Progressive filling by increments: ``pick(allocation, eligible)`` names the user served next.

    Each round, the users not yet satisfied and not needing a full resource are *eligible*; ``pick``
    (a production rule's decision, on the current allocation in instance units) returns one of them,
    which receives ``step`` more dominant share along its demand (less when its demand or a resource
    runs out). It stops when nobody is eligible.

    Parameters
    ----------
    instance : Instance
    pick : callable
        ``pick(allocation (n, m), eligible (n,) bool) -> int``; -1 stops (the rule admits nobody).
    step : float, default 1e-3
        Increment in dominant share (fraction of the dominant resource's capacity), in (0, 1].
    mechanism : str
        Name on the result.

    Returns
    -------
    AllocationResult
        ``stats["decisions"]`` counts the calls of ``pick``.

    Raises
    ------
    InvalidInstanceError
        ``step`` outside (0, 1], or ``pick`` returns a user that is not eligible.

    Examples
    --------
    Always serving the user with the smallest dominant share is DRF (Ghodsi et al.'s example, demands
    <1 CPU, 4 GB> and <3 CPU, 1 GB> for 100 tasks each on <9, 18>: DRF gives 3 and 2 tasks):

    >>> import fairalloc as fa
    >>> inst = fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[100, 100], capacities=[9, 18])
    >>> def smallest(alloc, ok):
    ...     s = fa.shares.dominant_shares(alloc, inst.capacities)
    ...     return int(np.flatnonzero(ok)[np.argmin(s[ok])])
    >>> r = increments(inst, smallest, step=1e-3)
    >>> (r.allocation / [[1, 4], [3, 1]]).max(axis=1).round(2).tolist()
    [3.0, 2.0]
    """
    step = float(step)
    if not (0 < step <= 1):
        raise InvalidInstanceError(f"step={step!r} must be in (0, 1]", argument="step", value=step)
    a = shares.normalized_demands(instance.demands, instance.capacities)
    mu = shares.dominant_shares(a)
    n, m = a.shape
    t = np.zeros(n)
    used = np.zeros(m)
    need = a > 0
    full = np.zeros(m, dtype=bool)
    decisions = 0
    while True:
        eligible = (t < 1.0) & ~(need & full).any(axis=1)
        if not eligible.any():
            break
        i = int(pick(t[:, None] * instance.demands, eligible))
        decisions += 1
        if i == -1:                     # the rule admits nobody more
            break
        if not (0 <= i < n and eligible[i]):
            raise InvalidInstanceError(f"pick returned user {i}, not one of the eligible users "
                                       f"{np.flatnonzero(eligible).tolist()}", argument="pick", value=i)
        dt = min(step / mu[i], 1.0 - t[i])
        room = min((1.0 - used[r]) / a[i, r] for r in np.flatnonzero(need[i]))
        dt = max(min(dt, room), 0.0)
        t[i] = 1.0 if t[i] + dt >= 1.0 - _FULL else t[i] + dt
        used = used + dt * a[i]
        full = used >= 1.0 - 1e-9
    allocation = t[:, None] * instance.demands
    alloc_norm = t[:, None] * a
    return AllocationResult.from_arrays(
        status="feasible", mechanism=mechanism, method="increments",
        message=f"{decisions} decisions of step {step:g}: within about one step of the limit, not exact",
        allocation=allocation, dominant_shares=shares.dominant_shares(alloc_norm),
        utilities=shares.leontief_utility(allocation, instance.demands), stats={"decisions": decisions, "step": step})


def _first(order, eligible) -> int:
    for i in order:
        if eligible[i]:
            return int(i)
    raise InvalidInstanceError("no eligible user in the rule's order", argument="pick", value=list(order))


def _lowest(key: np.ndarray, eligible: np.ndarray) -> int:
    """The eligible user with the lowest key, the lower index among equals."""
    idx = np.flatnonzero(eligible)
    return int(idx[np.argmin(key[idx])])


def _method(method: str, step: float) -> str:
    method = require_choice("method", method, METHODS)
    if method == "increments" and not (0 < float(step) <= 1):
        raise InvalidInstanceError(f"step={step!r} must be in (0, 1]", argument="step", value=step)
    return method


# ---- Slurm ---------------------------------------------------------------------------------------
def slurm_fairshare(instance: Instance, /, usage: Any = None, *, algorithm: str = "classic",
                    billing: Billing | None = None, method: str = "waterfill",
                    step: float = DEFAULT_STEP) -> AllocationResult:
    r"""Slurm's fair share (classic or Fair Tree) on a pool: the limit of starting work for the user
    with the highest fair-share factor, each increment charged to its usage at once.

    Users are associations of a flat tree under ``root`` with raw shares = the instance's weights
    (normalised :math:`S_i = w_i/\sum_j w_j`); ``usage`` :math:`P_i` is each user's decayed past usage
    (billing units, :func:`slurm_usage_step`). While the pool is filled, user *i* holding a fraction
    :math:`t_i` of its demand has usage :math:`U_i = P_i + t_i B_i` (:math:`B_i` the billing of its whole
    demand, :func:`charges`; the usage charge of one period, :func:`fairalloc.fairshare.slurm.usage_charge`).

    * Classic (``classic_fair_share`` page): on a flat tree the effective usage is the normalised usage,
      :math:`U_E = U_i/\sum_j U_j`, and :math:`F_i = 2^{-U_E/S_i}`: the highest :math:`F` is the lowest
      :math:`U_i/S_i` (the common denominator cancels).
    * Fair Tree (``fair_tree`` page): :math:`LF_i = S_i/(U_i/\sum_j U_j)`, ranked descending: the highest
      rank is again the lowest :math:`U_i/S_i`; ties share a rank. On a flat tree the two algorithms
      order users alike, so their pooled forms coincide (they differ on deeper trees, not modelled).

    The key is a strictly increasing function of :math:`\ell_i = P_i/S_i + t_i B_i / S_i`: water-filling
    with :math:`b_i = P_i/S_i`, :math:`w_i = S_i` (module docstring). With MAX_TRES billing weighted by
    :math:`1/C_r` (``Billing(rule="dominant_share")``) and no past usage it is weighted DRF; with past
    usage it is SDRF's Eq. 5 with the whole decayed usage in place of the commitment. Slurm's default
    billing is the allocated CPUs (``billing=None``: the first resource): max-min on that resource.

    Abstracted: the job priority's other factors (age, size, partition, QOS) and their weights;
    priorities recomputed only every ``PriorityCalcPeriod`` (here after every increment); rigid jobs,
    FCFS order and backfilling; account hierarchies deeper than one level; dampening (a monotone
    transform on a flat tree, no effect on the order).

    Parameters
    ----------
    instance : Instance
        Demands, capacities and shares (weights).
    usage : array_like (n_agents,), optional
        Past decayed usage :math:`P_i \ge 0` in billing units (default 0).
    algorithm : {"classic", "fair_tree"}
        Which factor ``method="increments"`` ranks by (the limit is the same).
    billing : Billing, optional
        Default CPUs (the first resource).
    method : {"waterfill", "increments"}
        The limit computed exactly, or the decisions of :func:`~fairalloc.fairshare.slurm.fairshare_factors`
        one increment at a time (module docstring).
    step : float, default :data:`DEFAULT_STEP`
        Increment of ``method="increments"`` (:func:`increments`).

    Returns
    -------
    AllocationResult
        ``levels`` are :math:`U_i/S_i` (waterfill).

    Examples
    --------
    Two users of equal shares, one resource of 10 CPUs, both wanting 10; user 0 used 4 CPU-periods
    before: levels equalise, :math:`4 + x_0 = x_1`, :math:`x_0 + x_1 = 10`, so 3 and 7 (by hand):

    >>> import fairalloc as fa
    >>> r = slurm_fairshare(fa.Instance([[10.0], [10.0]], capacities=[10]), usage=[4.0, 0.0])
    >>> r.allocation.ravel().round(9).tolist()
    [3.0, 7.0]
    """
    check_instance(instance)
    method = _method(method, step)
    require_choice("algorithm", algorithm, ("classic", "fair_tree"))
    n = instance.n_agents
    P = _usage("usage", usage, n)
    B = charges(instance, billing)
    tree = _flat_tree(instance)
    S = np.asarray(tree.normalized_shares)[tree.user_nodes]
    name = f"slurm_{algorithm}"
    if method == "waterfill":
        return _by_level(instance, B, P / S, S, mechanism=name)
    bill = _cpu_billing(instance) if billing is None else billing
    names = list(instance.resource_names)

    def pick(alloc, eligible):
        U = P + bill.rates(alloc, names, capacities=instance.capacities)
        F = _slurm.fairshare_factors(tree, U, fairshare=algorithm)
        return _lowest(-F, eligible)

    return increments(instance, pick, step=step, mechanism=name)


def slurm_usage_step(usage: Any, allocation: Any, decay: float, *, billing: Billing | None = None,
                     resource_names: Any = None, capacities: Any = None) -> np.ndarray:
    r"""Usage after one period of ``allocation``: one Slurm decay pass of a period (:math:`f^{\Delta} =` ``decay``).

    :math:`U' = \delta\,U + r\,\delta^{r} b` with :math:`r = 1` period: Slurm's ``_apply_decay``
    (:func:`~fairalloc.fairshare.slurm.decay_usage_into`) followed by ``_apply_new_usage``
    (:func:`~fairalloc.fairshare.slurm.usage_charge`), the billing :math:`b` of each user's allocation.

    Parameters
    ----------
    usage : array_like (n,)
    allocation : array_like (n, m)
        Instance units.
    decay : float in (0, 1]
        :math:`\delta`, the period's decay factor (:func:`~fairalloc.fairshare.slurm.period_decay`).
    billing : Billing, optional
        Default the first resource.
    resource_names, capacities : sequence, optional
        The instance's (default ``r0, r1, ...`` and ones).

    Returns
    -------
    ndarray (n,)

    Examples
    --------
    >>> slurm_usage_step([4.0, 0.0], [[3.0], [7.0]], 0.5).tolist()
    [3.5, 3.5]
    """
    U = np.array(usage, dtype=float)
    A = np.asarray(allocation, dtype=float)
    names = [f"r{k}" for k in range(A.shape[1])] if resource_names is None else list(resource_names)
    bill = Billing({names[0]: 1.0}) if billing is None else billing
    b = bill.rates(A, names, capacities=np.ones(A.shape[1]) if capacities is None else capacities)
    _slurm.decay_usage_into(U, float(decay))
    for i in range(U.shape[0]):
        U[i] += _slurm.usage_charge(float(b[i]), 1.0, float(decay))
    return U


# ---- HTCondor ------------------------------------------------------------------------------------
def htcondor_priority(instance: Instance, /, rup: Any = None, *, slot_weight: Billing | None = None,
                      method: str = "waterfill", step: float = DEFAULT_STEP) -> AllocationResult:
    r"""HTCondor's pie-slice negotiation on a pool: one negotiation cycle with the users' priorities given.

    Each submitter's effective priority is :math:`EUP_i = \max(RUP_i, 0.5)\cdot f_i`
    (:func:`~fairalloc.fairshare.htcondor.effective_priority_into`, floor ``MinPriority``) with priority
    factor :math:`f_i = 1/w_i` (a larger weight, a better priority). The pie is cut in slices
    :math:`\propto 1/EUP_i` of the pool's slot weight
    (:func:`~fairalloc.fairshare.htcondor.submitter_shares_into`); what a submitter cannot use is spun
    again among those still wanting, in the same proportions. The limit is weighted max-min of the slot
    weight :math:`x_i = t_i B_i` (:func:`charges` with ``slot_weight``, default ``Cpus``: the first
    resource), rates the pie shares, starts 0, a user stopping when satisfied or when it needs a full
    resource (its jobs no longer match).

    Unlike Slurm, the priorities do not move within a cycle: the RUP is updated between cycles
    (:func:`htcondor_rup_step`), so the usage of this cycle counts only from the next one. With no
    usage (every RUP at the floor) and equal weights the cycle is max-min of the slot weight.

    Abstracted: matchmaking of jobs to machines (the pool is one divisible machine), job ranks and
    requirements, the starvation-ratio order inside a spin, group quotas, preemption, the integer
    slots of the pie.

    Parameters
    ----------
    instance : Instance
    rup : array_like (n_agents,), optional
        Real user priorities in slot-weight units (default the floor, 0.5).
    slot_weight : Billing, optional
        ``SLOT_WEIGHT``; default the first resource.
    method : {"waterfill", "increments"}
        ``"increments"`` serves the eligible user with the smallest slot weight per pie share.
    step : float, default :data:`DEFAULT_STEP`
        Increment of ``method="increments"`` (:func:`increments`).

    Returns
    -------
    AllocationResult

    Examples
    --------
    The manual's ratio: EUPs 5, 10, 20 (RUP 5, 10, 20, factor 1) share 7 CPUs 4 : 2 : 1 when every user
    wants them all:

    >>> import fairalloc as fa
    >>> r = htcondor_priority(fa.Instance([[7.0]] * 3, capacities=[7]), rup=[5.0, 10.0, 20.0])
    >>> r.allocation.ravel().round(9).tolist()
    [4.0, 2.0, 1.0]
    """
    check_instance(instance)
    method = _method(method, step)
    n = instance.n_agents
    R = _usage("rup", rup, n) if rup is not None else np.full(n, _htcondor.MIN_PRIORITY)
    B = charges(instance, slot_weight, argument="slot_weight")
    eup = np.empty(n)
    _htcondor.effective_priority_into(np.maximum(R, _htcondor.MIN_PRIORITY), 1.0 / instance.weights, eup)
    pie = np.empty(n)
    _htcondor.submitter_shares_into(eup, np.ones(n, dtype=np.bool_), pie)
    if method == "waterfill":
        return _by_level(instance, B, np.zeros(n), pie, mechanism="htcondor", stats={"eup": eup.tolist()})
    sw = _cpu_billing(instance) if slot_weight is None else slot_weight
    names = list(instance.resource_names)

    def pick(alloc, eligible):
        share = np.empty(n)
        _htcondor.submitter_shares_into(eup, eligible.astype(np.bool_), share)
        x = sw.rates(alloc, names, capacities=instance.capacities)
        ratio = np.where(eligible, x / np.where(share > 0, share, 1.0), np.inf)
        return _lowest(ratio, eligible)

    return increments(instance, pick, step=step, mechanism="htcondor")


def htcondor_rup_step(rup: Any, allocation: Any, decay: float, *, slot_weight: Billing | None = None,
                      resource_names: Any = None, capacities: Any = None) -> np.ndarray:
    r"""Real user priorities after one period of ``allocation`` (:func:`~fairalloc.fairshare.htcondor.update_rup`).

    :math:`\pi' = \max(0.5, \beta \max(0.5, \pi) + (1-\beta)\rho)` with :math:`\beta` = ``decay``
    (the half-life in periods :math:`h = \ln 0.5/\ln\beta`) and :math:`\rho` the slot weight in use.

    Parameters
    ----------
    rup : array_like (n,)
    allocation : array_like (n, m)
        Instance units.
    decay : float in (0, 1)
        :math:`\beta = 0.5^{1/h}` per period.
    slot_weight : Billing, optional
        Default the first resource.
    resource_names, capacities : optional
        The instance's.

    Returns
    -------
    ndarray (n,)

    Examples
    --------
    Half-life one period: a user at the floor running 10 cores gets :math:`0.5 \cdot 0.5 + 0.5 \cdot 10`:

    >>> htcondor_rup_step([0.5, 0.5], [[10.0], [0.0]], 0.5).tolist()
    [5.25, 0.5]
    """
    A = np.asarray(allocation, dtype=float)
    names = [f"r{k}" for k in range(A.shape[1])] if resource_names is None else list(resource_names)
    sw = Billing({names[0]: 1.0}) if slot_weight is None else slot_weight
    rho = sw.rates(A, names, capacities=np.ones(A.shape[1]) if capacities is None else capacities)
    decay = float(decay)
    if not (0 < decay < 1):
        raise InvalidInstanceError(f"decay={decay!r} must be in (0, 1) (a finite, positive half-life)",
                                   argument="decay", value=decay)
    return _htcondor.update_rup(rup, rho, 1.0, half_life=float(np.log(0.5) / np.log(decay)))


# ---- Kueue, YARN, Mesos: dominant shares -----------------------------------------------------------
def _dominant(instance: Instance, name: str, pick_factory, method: str, step: float) -> AllocationResult:
    check_instance(instance)
    method = _method(method, step)
    if method == "waterfill":
        a = shares.normalized_demands(instance.demands, instance.capacities)
        return _by_level(instance, shares.dominant_shares(a), np.zeros(instance.n_agents),
                         np.asarray(instance.weights, dtype=float), mechanism=name)
    return increments(instance, pick_factory(instance), step=step, mechanism=name)


def kueue_drs(instance: Instance, /, *, method: str = "waterfill", step: float = DEFAULT_STEP) -> AllocationResult:
    r"""Kueue's fair sharing on a pool: one ClusterQueue per user in one cohort, no nominal quotas.

    The cohort owns the pool (its nominal quota is the capacity); each ClusterQueue *i* (weight
    :math:`w_i`, the instance's weight) has no quota of its own, so all its usage is borrowed and its
    lendable capacity is the cohort's: :math:`DRS_i = \max_r 1000\,u_{ir}/C_r`
    (:func:`~fairalloc.fairshare.kueue.dominant_resource_share`), compared as :math:`DRS_i/w_i`
    (:func:`~fairalloc.fairshare.kueue.drs_key`). Admitting the workload of the lowest weighted share
    next, in infinitesimal workloads, is weighted DRF: water-filling of the dominant shares with rates
    :math:`w_i` (the issue's reduction: "Kueue DRS with one queue per user and no quotas").

    Abstracted: nominal quotas and borrowing/lending limits (a queue below its quota has share 0 and is
    admitted first), preemption, the tournament over nested cohorts, the per-mille integer status
    shares, workload priorities and timestamps.

    Parameters
    ----------
    instance : Instance
    method : {"waterfill", "increments"}
        ``"increments"`` admits by :meth:`~fairalloc.fairshare.KueueQueues.shares` and ``drs_key``.
    step : float, default :data:`DEFAULT_STEP`
        Increment of ``method="increments"`` (:func:`increments`).

    Returns
    -------
    AllocationResult

    Examples
    --------
    Ghodsi et al.'s example (<1, 4> and <3, 1> per task on <9, 18>): 3 and 2 tasks, as DRF:

    >>> import fairalloc as fa
    >>> r = kueue_drs(fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[100, 100], capacities=[9, 18]))
    >>> r.allocation.round(9).tolist()
    [[3.0, 12.0], [6.0, 2.0]]
    """
    def factory(inst):
        n = inst.n_agents
        cohort = {"account": "cohort", "nominal_quota": dict(zip(inst.resource_names, map(float, inst.capacities)))}
        k = KueueQueues(_queue_tree(inst, head=(cohort,), parent="cohort"), capacity=inst.capacities)
        cqs = [k.node(f"q{i}") for i in range(n)]

        def pick(alloc, eligible):
            ratio, _ = k.shares(k.usage(alloc))
            keys = [drs_key(float(ratio[v]), float(k.weight[v])) for v in cqs]
            best = min((keys[i], i) for i in range(n) if eligible[i])
            return best[1]
        return pick

    return _dominant(instance, "kueue_drs", factory, method, step)


def yarn_drf(instance: Instance, /, *, method: str = "waterfill", step: float = DEFAULT_STEP) -> AllocationResult:
    r"""YARN's Fair Scheduler with the DRF policy on a pool: one queue per user, no min shares.

    The scheduler offers the next container to the child that the DRF comparator
    (:func:`~fairalloc.fairshare.yarn.drf_compare`) puts first: without min shares nobody is needy, and
    the comparator orders by the vector of usage/cluster/weight sorted by usage share, its first entry
    the weighted dominant share. Offering in infinitesimal containers equalises the weighted dominant
    shares (the later entries only break exact ties): weighted DRF, the issue's "YARN DRF at equal
    weights against DRF water-filling on divisible demands" generalised to weights.

    Abstracted: min and max shares (a needy queue goes first), the fair shares of
    :func:`~fairalloc.fairshare.yarn.compute_shares_into` (used by preemption only), preemption,
    container sizes and node locality, start times.

    Parameters
    ----------
    instance : Instance
    method : {"waterfill", "increments"}
        ``"increments"`` offers by :meth:`~fairalloc.fairshare.YarnQueues.order`.
    step : float, default :data:`DEFAULT_STEP`
        Increment of ``method="increments"`` (:func:`increments`).

    Returns
    -------
    AllocationResult

    Examples
    --------
    Ghodsi et al.'s example with weights 1 and 2: weighted dominant shares :math:`(4x/18)/1 = (y/3)/2`
    for *x* and *y* tasks, so :math:`y = 4x/3`, and the CPUs run out first, :math:`x + 3y = 9`:
    :math:`x = 1.8`, :math:`y = 2.4` (by hand):

    >>> import fairalloc as fa
    >>> inst = fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[100, 100], capacities=[9, 18], weights=[1, 2])
    >>> yarn_drf(inst).allocation.round(9).tolist()
    [[1.8, 7.2], [7.2, 2.4]]
    """
    def factory(inst):
        n = inst.n_agents
        tree = _queue_tree(inst)
        y = YarnQueues(tree)
        qs = [tree.node(f"q{i}") for i in range(n)]

        def pick(alloc, eligible):
            use = np.zeros((tree.n_nodes, inst.n_resources))
            use[qs] = alloc
            order = y.order([qs[i] for i in range(n) if eligible[i]], use, inst.capacities)
            return qs.index(order[0])
        return pick

    return _dominant(instance, "yarn_drf", factory, method, step)


def mesos_drf(instance: Instance, /, *, method: str = "waterfill", step: float = DEFAULT_STEP) -> AllocationResult:
    r"""Mesos' DRF sorter on a pool: one role per user with the instance's weight.

    The allocator offers resources to the client first in ``DRFSorter::sort`` order, the lowest share
    :math:`\max_r A_r/T_r / w` (:func:`~fairalloc.fairshare.mesos.shares_into`) first: in infinitesimal
    offers, weighted DRF (Ghodsi et al. designed DRF for Mesos).

    Abstracted: offers of whole agents' resources, declined offers and filters, allocation counts as
    the second sort key, quotas and reservations, excluded resources.

    Parameters
    ----------
    instance : Instance
    method : {"waterfill", "increments"}
        ``"increments"`` offers by :meth:`~fairalloc.fairshare.MesosSorter.sort`.
    step : float, default :data:`DEFAULT_STEP`
        Increment of ``method="increments"`` (:func:`increments`).

    Returns
    -------
    AllocationResult

    Examples
    --------
    Three roles of weight 1 on 10 CPUs wanting 2, 10 and 10: the first is satisfied at 2, the other two
    share the remaining 8 (by hand):

    >>> import fairalloc as fa
    >>> mesos_drf(fa.Instance([[2.0], [10.0], [10.0]], capacities=[10])).allocation.ravel().round(9).tolist()
    [2.0, 4.0, 4.0]
    """
    def factory(inst):
        s = MesosSorter(_queue_tree(inst), inst.capacities)

        def pick(alloc, eligible):
            return _first(s.sort(alloc, active=eligible), eligible)
        return pick

    return _dominant(instance, "mesos_drf", factory, method, step)


# ---- Volcano --------------------------------------------------------------------------------------
def _volcano_eps(instance: Instance) -> float:
    """``minResource`` scaled to the instance: 1e-9 of its smallest capacity (Volcano's 0.1 is in milli-CPU and bytes)."""
    return 1e-9 * float(np.min(instance.capacities))


def volcano_proportion(instance: Instance, /, *, method: str = "waterfill",
                       step: float = DEFAULT_STEP) -> AllocationResult:
    r"""Volcano's proportion plugin on a pool: one queue per user (weight = the instance's), its request the demand.

    The plugin computes each queue's *deserved* resources resource by resource
    (:func:`~fairalloc.fairshare.volcano.deserved_into`: weighted shares of what is left, capped by the
    request, rounds until nothing is left), and the allocate action starts a task of a queue only while
    ``allocated + request <= deserved`` in every resource the task needs
    (:func:`~fairalloc.fairshare.volcano.queue_allocatable`). Filling in infinitesimal tasks, queue
    *i* stops at

    .. math:: t_i = \min\Bigl(1,\ \min_{r:\ \theta_{ir} > 0} \frac{d_{ir}}{\theta_{ir}}\Bigr),

    :math:`d_i` its deserved vector; the order of the queues (lowest share first) does not change the
    limit, since the deserved vectors add up to at most the cluster. Because ``deserved`` divides each
    resource separately, a queue whose demand is not proportional to the others' deserves more of a
    resource than it can use with its bottleneck, and the rest stays idle.

    Abstracted: guarantees and capabilities (none), reclaim and preempt actions, gang scheduling, job
    and task order inside a queue, ``minResource`` (scaled to 1e-9 of the smallest capacity).

    Parameters
    ----------
    instance : Instance
    method : {"waterfill", "increments"}
        ``"waterfill"``: the closed form above; ``"increments"``: queues in ``QueueOrderFn`` order
        (:meth:`~fairalloc.fairshare.VolcanoQueues.order`), each increment admitted only if
        ``queue_allocatable``.
    step : float, default :data:`DEFAULT_STEP`
        Increment of ``method="increments"`` (:func:`increments`).

    Returns
    -------
    AllocationResult

    Examples
    --------
    Two queues of weight 1 on <10 CPU, 10 GB>, wanting <10, 2> and <2, 10> (by hand): the first round
    gives each half of each resource capped by its request, <5, 2> and <2, 5>, leaving 3 of each; every
    later round splits what is left and the light resource stays capped, so the heavy one's deserved
    tends to 5 + 3 = 8 (the loop stops when less than ``minResource`` is left). Each queue runs 0.8 of
    its demand and 0.4 CPU and 0.4 GB stay idle, while DRF gives 10/12 each:

    >>> import fairalloc as fa
    >>> inst = fa.Instance([[10.0, 2.0], [2.0, 10.0]], capacities=[10, 10])
    >>> volcano_proportion(inst).utilities.round(6).tolist(), fa.drf(inst).utilities.round(6).tolist()
    ([0.8, 0.8], [0.833333, 0.833333])
    """
    from .volcano import VolcanoQueues, queue_allocatable

    check_instance(instance)
    method = _method(method, step)
    eps = _volcano_eps(instance)
    q = VolcanoQueues(_queue_tree(instance), instance.capacities, eps=eps)
    deserved = q.deserved(instance.demands)
    if method == "waterfill":
        theta = instance.demands
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(theta > 0, deserved / np.where(theta > 0, theta, 1.0), np.inf)
        t = np.minimum(1.0, ratio.min(axis=1))
        allocation = t[:, None] * theta
        a = shares.normalized_demands(allocation, instance.capacities)
        return AllocationResult.from_arrays(
            status="optimal", mechanism="volcano_proportion", method="waterfill",
            message="closed form: each queue filled up to its deserved resources", allocation=allocation,
            dominant_shares=shares.dominant_shares(a), utilities=shares.leontief_utility(allocation, theta),
            stats={"deserved": deserved.tolist()})
    mu = shares.dominant_shares(shares.normalized_demands(instance.demands, instance.capacities))
    node_of = {int(v): i for i, v in enumerate(q.queues)}

    def pick(alloc, eligible):
        for v in q.order(alloc, deserved):
            i = node_of[v]
            inc = instance.demands[i] * min(step / mu[i], 1.0)
            if eligible[i] and queue_allocatable(alloc[i], inc, deserved[i], eps):
                return i
        return -1

    return increments(instance, pick, step=step, mechanism="volcano_proportion")


def volcano_drf(instance: Instance, /, *, method: str = "waterfill", step: float = DEFAULT_STEP) -> AllocationResult:
    r"""Volcano's DRF plugin on a pool: one job per user, jobs ordered by their dominant share (``JobOrderFn``).

    A job's share is :math:`\max_r a_r/T_r` (``calculateShare``); starting the next task of the job with
    the lowest share, in infinitesimal tasks, is DRF (unweighted: the plugin has no job weights). With
    ``enableHierarchy`` see :func:`volcano_hdrf`.

    Abstracted: queues (one, without proportion), task order inside a job, preemption
    (:func:`~fairalloc.fairshare.volcano.drf_preemptable`), gang constraints.

    Parameters
    ----------
    instance : Instance
        Its weights are ignored (the plugin has none).
    method : {"waterfill", "increments"}
        ``"increments"`` orders jobs by the plugin's share (:func:`~fairalloc.fairshare.volcano.share_of`
        per resource, the largest).
    step : float, default :data:`DEFAULT_STEP`
        Increment of ``method="increments"`` (:func:`increments`).

    Returns
    -------
    AllocationResult

    Examples
    --------
    The instance's weights 1 and 3 are ignored: one resource is split equally (:func:`volcano_hdrf`
    splits it 1 : 3):

    >>> import fairalloc as fa
    >>> volcano_drf(fa.Instance([[1.0], [1.0]], weights=[1, 3])).allocation.ravel().round(9).tolist()
    [0.5, 0.5]
    """
    from .volcano import share_of

    check_instance(instance)
    method = _method(method, step)
    plain = Instance(instance.demands, instance.capacities, resource_names=instance.resource_names)
    if method == "waterfill":
        res = _dominant(plain, "volcano_drf", None, "waterfill", step)
        return res

    def factory(inst):
        C = inst.capacities

        def pick(alloc, eligible):
            key = np.array([max(share_of(float(alloc[i, r]), float(C[r])) for r in range(len(C)))
                            for i in range(inst.n_agents)])
            return _lowest(key, eligible)
        return pick

    return _dominant(plain, "volcano_drf", factory, "increments", step)


def volcano_hdrf(instance: Instance, /, *, method: str = "waterfill", step: float = DEFAULT_STEP) -> AllocationResult:
    r"""Volcano's hierarchical DRF on a pool: a flat hierarchy, one queue per user with ``hdrf_weight`` = its weight.

    With one job per queue below the root, a queue's HDRF share is its job's dominant share and the
    queues compare by not saturated first, then share/weight (:func:`~fairalloc.fairshare.volcano.hdrf_compare`):
    in infinitesimal tasks, weighted DRF, except that Volcano raises weights below 1 to 1
    (``buildHierarchy``), which the waterfill applies too.

    Abstracted: deeper hierarchies (the rescaling of :func:`~fairalloc.fairshare.volcano.hdrf_update_into`
    matters only there), several jobs per queue, reclaim.

    Parameters
    ----------
    instance : Instance
    method : {"waterfill", "increments"}
        ``"increments"`` orders queues by :meth:`~fairalloc.fairshare.VolcanoHDRF.order`.
    step : float, default :data:`DEFAULT_STEP`
        Increment of ``method="increments"`` (:func:`increments`).

    Returns
    -------
    AllocationResult

    Examples
    --------
    Weights 1 and 3, one resource: shares 1/4 and 3/4 (weights below 1 would be raised to 1):

    >>> import fairalloc as fa
    >>> volcano_hdrf(fa.Instance([[1.0], [1.0]], weights=[1, 3])).allocation.ravel().round(9).tolist()
    [0.25, 0.75]
    """
    from .volcano import VolcanoHDRF

    check_instance(instance)
    method = _method(method, step)
    w = np.maximum(np.asarray(instance.weights, dtype=float), 1.0)
    raised = Instance(instance.demands, instance.capacities, w, resource_names=instance.resource_names)
    if method == "waterfill":
        return _dominant(raised, "volcano_hdrf", None, "waterfill", step)

    def factory(inst):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            h = VolcanoHDRF(_queue_tree(instance, "hdrf_weight"), inst.capacities, eps=_volcano_eps(inst))
        qs = [h.tree.node(f"q{i}") for i in range(inst.n_agents)]

        def pick(alloc, eligible):
            state = h.update(alloc, inst.demands)
            order = h.order(state, [qs[i] for i in range(inst.n_agents) if eligible[i]])
            return qs.index(order[0])
        return pick

    return _dominant(raised, "volcano_hdrf", factory, "increments", step)


# ---- Kueue admission fair sharing -----------------------------------------------------------------
def kueue_afs(instance: Instance, /, consumed: Any = None, *, afs: Any = None, method: str = "waterfill",
              step: float = DEFAULT_STEP) -> AllocationResult:
    r"""Kueue's Admission Fair Sharing on a pool: one ClusterQueue, one LocalQueue per user (weight = its weight).

    Inside the ClusterQueue, workloads are admitted in the order of their LocalQueue's usage
    (:meth:`~fairalloc.fairshare.AdmissionFairSharing.order`), the usage being
    :math:`\sum_r \omega_r (c_{ir} + p_{ir}) / w_i` (:func:`~fairalloc.fairshare.kueue.afs_usage`) with
    :math:`c_i` the decayed consumed resources and :math:`p_i` the entry penalties of the workloads
    admitted since the last sample, :math:`\alpha\,\times` their requests
    (:meth:`~fairalloc.fairshare.AdmissionFairSharing.entry_penalty`, :math:`\alpha` =
    ``afs.entry_alpha``). Admitting in infinitesimal workloads, user *i* holding :math:`t_i\theta_i` has
    usage :math:`(\sum_r\omega_r c_{ir} + \alpha\, t_i \sum_r \omega_r\theta_{ir})/w_i`: water-filling with
    charge :math:`B_i = \alpha\sum_r\omega_r\theta_{ir}` (a weighted *sum* of the raw amounts: with the
    default weights 1, CPUs and bytes add up), start :math:`\sum_r\omega_r c_{ir}/w_i` and rate
    :math:`w_i`.

    Abstracted: fair sharing between ClusterQueues (one here), workload priorities and timestamps
    (ties go to the lower index), quotas, the sampling of the consumed usage within the cycle.

    Parameters
    ----------
    instance : Instance
    consumed : array_like (n_agents, n_resources), optional
        Decayed consumed resources per LocalQueue (instance units, default 0).
    afs : AdmissionFairSharing, optional
        Half-life, sampling interval and resource weights (default Kueue's example: 168 h, 300 s).
    method : {"waterfill", "increments"}
        ``"increments"`` admits by :meth:`~fairalloc.fairshare.AdmissionFairSharing.order` on the usages
        with the entry penalties of the allocation so far.
    step : float, default :data:`DEFAULT_STEP`
        Increment of ``method="increments"`` (:func:`increments`).

    Returns
    -------
    AllocationResult

    Examples
    --------
    Two LocalQueues of equal weight, 10 CPUs, both wanting all; one consumed 4 CPUs before. With
    :math:`\alpha = 1/2` (sampling interval = half-life) the usages are :math:`4 + x_0/2` and
    :math:`x_1/2`: :math:`x_0 = 1`, :math:`x_1 = 9` (by hand):

    >>> import fairalloc as fa
    >>> from fairalloc.fairshare import AdmissionFairSharing
    >>> afs = AdmissionFairSharing(usage_half_life=300.0, sampling_interval=300.0)
    >>> kueue_afs(fa.Instance([[10.0], [10.0]], capacities=[10]), [[4.0], [0.0]], afs=afs).allocation.ravel().round(9).tolist()
    [1.0, 9.0]
    """
    from .kueue import AdmissionFairSharing

    check_instance(instance)
    method = _method(method, step)
    cfg = AdmissionFairSharing() if afs is None else afs
    n, m = instance.n_agents, instance.n_resources
    names = list(instance.resource_names)
    c = np.zeros((n, m)) if consumed is None else np.asarray(consumed, dtype=float)
    if c.shape != (n, m) or np.any(~np.isfinite(c) | (c < 0)):
        raise InvalidInstanceError(f"consumed must be ({n}, {m}), finite and >= 0", argument="consumed",
                                   value=np.asarray(consumed).tolist())
    w = np.asarray(instance.weights, dtype=float)
    zero = np.zeros((n, m))
    start = cfg.usage(c, zero, w, names)
    B = cfg.usage(zero, cfg.entry_penalty(instance.demands), np.ones(n), names)
    bad = np.flatnonzero(~(B > 0))
    if bad.size:
        i = int(bad[0])
        raise InvalidInstanceError(f"user {i}'s demand weighs nothing under resource_weights={cfg.resource_weights}",
                                   argument="afs", index=(i,), value=float(B[i]))
    if method == "waterfill":
        return _by_level(instance, B, start, w, mechanism="kueue_afs")

    def pick(alloc, eligible):
        usage = cfg.usage(c, cfg.entry_penalty(alloc), w, names)
        usage = np.where(eligible, usage, np.inf)
        return int(cfg.order(usage, np.zeros(n), np.arange(n, dtype=float))[0])

    return increments(instance, pick, step=step, mechanism="kueue_afs")


def kueue_afs_step(consumed: Any, allocation: Any, decay: float, *, afs: Any = None) -> np.ndarray:
    r"""Consumed resources after one sampling period with ``allocation`` admitted (``CalculateDecayedConsumed``).

    :math:`c' = (1-\alpha)c + \alpha u` by :meth:`~fairalloc.fairshare.AdmissionFairSharing.decay` over
    one period, where :math:`1 - \alpha` = ``decay`` fixes the half-life in periods
    (:math:`\ln 0.5/\ln\delta`) unless ``afs`` is given.

    Parameters
    ----------
    consumed, allocation : array_like (n, m)
    decay : float in (0, 1)
    afs : AdmissionFairSharing, optional
        Default: half-life from ``decay``, one-period sampling interval.

    Returns
    -------
    ndarray (n, m)

    Examples
    --------
    >>> kueue_afs_step([[4.0]], [[2.0]], 0.5).round(12).tolist()
    [[3.0]]
    """
    from .kueue import AdmissionFairSharing

    decay = float(decay)
    if not (0 < decay < 1):
        raise InvalidInstanceError(f"decay={decay!r} must be in (0, 1)", argument="decay", value=decay)
    cfg = afs if afs is not None else AdmissionFairSharing(usage_half_life=float(np.log(0.5) / np.log(decay)),
                                                           sampling_interval=1.0)
    return cfg.decay(consumed, allocation, cfg.sampling_interval)
