r"""Slurm's multifactor priority and HTCondor's user priorities as simulator policies (rigid jobs; Slurm also tasks).

The rules are :mod:`fairalloc.fairshare`'s, one place each: the decay of the usage, the charge of a
running job, classic fair share and Fair Tree, the age and job-size factors and the weighted sum
(:mod:`fairalloc.fairshare.slurm`); the real user priority update, the pie shares and the negotiation
cycle (:mod:`fairalloc.fairshare.htcondor`); billing (:mod:`fairalloc.fairshare.billing`). This module
only wires them to the simulator's events (:mod:`fairalloc.sim.engine`): which instants are passes or
negotiation cycles, which jobs run and wait. The loops that run at every pass or cycle are compiled
with numba from those same functions (:mod:`fairalloc._jit`; plain Python under ``NUMBA_DISABLE_JIT=1``).

Both run **rigid jobs on processors** (a :class:`~fairalloc.sim.ProcessorPool`: SWF traces, Lublin):
one task per job, ``processors`` wide. A job's billing rate is its processors (Slurm's default
``TRESBillingWeights=CPU=1``; HTCondor's slot weight = cores), or ``billing=``'s rate over the
resource ``"cpu"``. Slurm also runs **tasks on one pool** (a :class:`~fairalloc.sim.ResourcePool`:
``google_like``, the Google and Alibaba traces), each job a group of identical tasks like a Slurm job
array: a task's billing rate is ``billing=``'s over the trace's resources (default ``CPU=1`` when the
trace has a ``cpu`` resource, else its dominant share), its job-size factor its dominant share, and at
each decision every job in priority order starts as many tasks as fit, until a job that cannot start all
the tasks it wants (nothing overtakes it; no backfilling on a pool).

**Slurm** (``policy="slurm"``, ``"slurm+easy"`` or ``backfill=True``). Passes at :math:`k\,T` (``T`` =
``calc_period``, ``PriorityCalcPeriod``, from the trace's time 0). At each pass: the usage reset if a
``PriorityUsageResetPeriod`` boundary was reached (:func:`~fairalloc.fairshare.slurm.next_usage_reset`),
the decay of every user's usage by :math:`f^{T}` and the charge of every running job for the seconds
it ran since the last pass (:func:`~fairalloc.fairshare.slurm.period_decay`,
:func:`~fairalloc.fairshare.slurm.usage_charge`; ``decay="continuous"``: SDRF's Eq. 6 between events,
:func:`fairalloc.commitments.decay_row_into`); then every user's fair-share factor over the account
tree (classic or Fair Tree) and every waiting job's priority

.. math:: P = w_{age}\min(w/\text{max\_age}, 1) + w_{fs} F_{fs}(u) + w_{js} F_{js} + w_{part} F_{part}
          + w_{qos} F_{qos},

truncated to an integer (:func:`~fairalloc.fairshare.slurm.job_priority`). A job that ends is charged
at once; a job that arrives between passes gets its priority from the last pass's factors with age 0.
Between passes the order is fixed. Jobs start in order of priority (highest first; ties: earlier
submission, then lower row) until the first that does not fit (Slurm's main scheduler), or with EASY
backfilling on that order (:mod:`.easy`; Slurm's backfill scheduler). The job-size factor of a rigid
job of *c* processors on *C* is :math:`c/C` (nodes taken as processors: one CPU per node), or
:math:`1 - c/C` with ``favor_small``. The scheduler runs at every arrival and end and at every pass
while a waiting job could fit (a pass where no waiting job fits in the free processors cannot start
anything, so it only updates the usage, which is done at the next event from the same passes).

**HTCondor** (``policy="htcondor"``). Negotiation cycles at :math:`k\,I` (``I`` = ``interval``,
``NEGOTIATOR_INTERVAL``). At each cycle: every user's real user priority is updated
(:func:`~fairalloc.fairshare.htcondor.rup_update_into`; :math:`\rho` = processors in use at the cycle
plus the processor-seconds of jobs that ended since the last cycle, counted from their start or the last
cycle, over the cycle's :math:`\Delta t`), EUP = RUP x priority factor, and one negotiation cycle over
the idle jobs, each user's in submission order (:func:`~fairalloc.fairshare.htcondor.negotiate_into`:
pie slices in proportion to 1/EUP, leftovers spun again). Jobs start only at cycles (nothing starts
between cycles, as in HTCondor); a cycle where no idle job fits in the free processors matches nothing
and only updates the priorities, which are caught up at the next event from the same cycles. With
accounting groups (an account tree whose accounts have ``quota`` or ``quota_dynamic``), every cycle
first computes the groups' allocations with surplus (:func:`~fairalloc.fairshare.htcondor.group_allocations`)
and limits (:func:`~fairalloc.fairshare.htcondor.group_limits`), then negotiates group by group, in
order of usage over quota (HTCondor's default ``GROUP_SORT_EXPR``; the ``<none>`` group, users directly
under ``root``, last).

Both run by default on the simulator's compiled loop (:mod:`.slurm_loop`, :mod:`.condor_loop`: one
specialisation of :func:`fairalloc.sim.kernels._loop` for both, the same rules compiled from the same source,
the event engine their oracle in the tests); ``engine="events"`` selects the event engine, and what the compiled
loop does not cover runs there (logged with the reason: ``watch=``, ``progress=True``, Slurm's
``decay="continuous"`` and tasks on a pool, HTCondor's accounting groups).

Both policies keep, for :mod:`fairalloc.experiments.explain`, the factors of each decision about one
*watched* job (``watch=row``): nothing is recorded otherwise.

Examples
--------
Three users on 4 processors, Fair Tree over a flat tree, a pass every 10 s; every job is 4 processors
wide. User 0 runs from 0 to 100 and submits a second job at 50; users 1 and 2 submit one each at 50.
At the pass at 50 user 0 has all the usage: its level fair share is (1/3)/1, the others' infinite
(no usage, tied), so Fair Tree gives users 1 and 2 the factor 3/3 and user 0 1/3; the priorities
(weights 1000, 10000, 1000, 1000; age 0; size 4/4) are 12000, 12000 and 5333: at 100 user 1's job
starts (tie with user 2's: same submission, lower row). At the pass at 110 user 2 has no usage and
user 0 the most, so user 2's job starts at 110 and user 0's at 120:

>>> import fairalloc as fa
>>> wl = fa.workloads.Workload(submit=[0, 50, 50, 50], run_time=[100, 10, 10, 10], processors=[4, 4, 4, 4],
...                            user=[0, 0, 1, 2])
>>> fa.simulate(wl, 4, policy="slurm", calc_period=10).jobs["start"].tolist()
[0.0, 120.0, 100.0, 110.0]
"""

from __future__ import annotations

import bisect
import math
from dataclasses import fields
from typing import Any

import numpy as np

from ... import commitments
from ..._jit import jit
from ...accounts import AccountTree, subtree_sum_into
from ...errors import InvalidInstanceError
from ...fairshare import htcondor as _hc
from ...fairshare import slurm as _sl
from ...fairshare.billing import Billing
from ...fairshare.htcondor import HTCondorPriority
from ...fairshare.slurm import SlurmPriority
from .base import Policy
from .queue import QueuePolicy

__all__ = ["HTCONDOR_OPTIONS", "SLURM_OPTIONS", "HTCondorPolicy", "SlurmPolicy"]

#: Options of :class:`SlurmPolicy` that are :class:`~fairalloc.fairshare.SlurmPriority` knobs.
SLURM_OPTIONS = tuple(f.name for f in fields(SlurmPriority))
#: Options of :class:`HTCondorPolicy` that are :class:`~fairalloc.fairshare.HTCondorPriority` knobs.
HTCONDOR_OPTIONS = tuple(f.name for f in fields(HTCondorPriority))

# compiled copies of the one definition of each rule (fairalloc._jit: the same source under numba)
_period_decay = jit(_sl.period_decay)
_usage_charge = jit(_sl.usage_charge)
_decay_usage_into = jit(_sl.decay_usage_into)
_subtree_sum_into = jit(subtree_sum_into)
_classic_into = jit(_sl.classic_fairshare_into)
_level_into = jit(_sl.level_fairshare_into)
_fair_tree_into = jit(_sl.fair_tree_into)
_age_factor = jit(_sl.age_factor)
_job_priority = jit(_sl.job_priority)
_rup_update_into = jit(_hc.rup_update_into)
_rup_update_by_into = jit(_hc.rup_update_by_into)
_decay_factors = jit(commitments.decay_factors)
_negotiate_into = jit(_hc.negotiate_into)
_negotiate_work_into = jit(_hc.negotiate_work_into)
_eup_into = jit(_hc.effective_priority_into)
_decay_row_into = jit(commitments.decay_row_into)


def _register() -> None:
    """The fair-share rules that call other rules (Fair Tree's sibling order, Eq. 6 in the RUP update,
    the pie) must be registered with numba before the first compiled call."""
    from ...fairshare import _jit as fjit

    fjit.register()


# ---- the loops run at passes / cycles (compiled) -------------------------------------------------
@jit
def _slurm_passes(usage, per_second, last, now, period, run_user, run_rate, run_last, n_run, reset_at):
    """Every Slurm pass at ``last + k * period <= now``: reset (once ``reset_at`` is reached: then return),
    decay, charge the running jobs. Returns (time of the last pass, passes done, reset done)."""
    n = 0
    t = last + period
    reset = False
    while t <= now:
        if t >= reset_at:
            for i in range(usage.shape[0]):
                usage[i] = 0.0
            reset = True
        _decay_usage_into(usage, _period_decay(per_second, t - last))
        for k in range(n_run):
            usage[run_user[k]] += _usage_charge(run_rate[k], t - run_last[k], per_second)
            run_last[k] = t
        last = t
        n += 1
        if reset:
            break
        t = last + period
    return last, n, reset


@jit
def _slurm_factors(usage, parent, user_nodes, node_usage, classic, fs_parent, use_parent, raw_shares, level_shares,
                   norm_shares, preorder, dampening, efctv, node_f, is_user, sibling_shares, level_fs, fs_child_ptr,
                   fs_children, stack_node, stack_tied, sib_order, out):
    """Each user's fair-share factor from its usage (classic or Fair Tree), into ``out`` (``sib_order``: Fair
    Tree's siblings in their last order, kept between calls: :func:`~fairalloc.fairshare.slurm.fair_tree_into`)."""
    _subtree_sum_into(parent, user_nodes, usage, node_usage)
    if classic:
        _classic_into(fs_parent, use_parent, raw_shares, level_shares, norm_shares, preorder, node_usage, dampening,
                      efctv, node_f)
    else:
        _level_into(fs_parent, is_user, use_parent, sibling_shares, node_usage, level_fs)
        for v in range(node_f.shape[0]):
            node_f[v] = 0.0
        _fair_tree_into(fs_child_ptr, fs_children, is_user, level_fs, user_nodes.shape[0], node_f, stack_node,
                        stack_tied, sib_order)
    for k in range(user_nodes.shape[0]):
        out[k] = node_f[user_nodes[k]]


@jit
def _slurm_priorities(jobs, submit, uidx, js, fs, now, max_age, wa, wf, wj, wp, wq, part, qos, integer, prio, age):
    """Priority (and age factor) of each job of ``jobs`` at ``now``."""
    for q in range(jobs.shape[0]):
        j = jobs[q]
        a = _age_factor(now - submit[j], max_age)
        age[j] = a
        prio[j] = _job_priority(a, fs[uidx[j]], js[j], part, qos, wa, wf, wj, wp, wq, 0.0, 0.0, integer)


@jit
def _condor_cycles(rup, in_use, uncharged, rho, last, now, interval, tau, min_priority, dc):
    """Every RUP update at ``last + k * interval <= now`` (in use constant in between); returns (last, cycles).
    The usage of the jobs ended counts in the first update; from the second on :math:`\rho` is ``in_use`` itself
    (``in_use + 0 / dt`` is ``in_use``, exactly). ``dc`` (4 floats, kept by the caller between calls: ``dt``,
    the two factors of :func:`~fairalloc.commitments.decay_factors` of it, ``tau``; start with ``dt`` NaN)
    caches Eq. 6's factors while the cycles' length repeats: each update is :func:`rup_update_into`'s to the bit
    (``rup_update_into`` is ``decay_factors`` then ``rup_update_by_into``)."""
    n = 0
    t = last + interval
    while t <= now:
        dt = t - last
        if dt != dc[0] or tau != dc[3]:
            dc[1], dc[2] = _decay_factors(dt, tau)
            dc[0] = dt
            dc[3] = tau
        if n == 0:
            for i in range(rup.shape[0]):
                rho[i] = in_use[i] + uncharged[i] / dt
                uncharged[i] = 0.0
            _rup_update_by_into(rup, rho, dc[1], dc[2], min_priority, rup)
        else:
            _rup_update_by_into(rup, in_use, dc[1], dc[2], min_priority, rup)
        last = t
        n += 1
        t = last + interval
    return last, n


# ---- shared plumbing -----------------------------------------------------------------------------
def _split_options(policy: str, options: dict[str, Any], knobs: tuple[str, ...], takes: tuple[str, ...]) -> dict:
    unknown = sorted(set(options) - set(knobs))
    if unknown:
        raise InvalidInstanceError(f"option(s) {unknown} do not apply to policy {policy!r} (it takes "
                                   f"{', '.join(takes + knobs)})", argument=unknown[0], value=options[unknown[0]])
    return options


def _tree_for(accounts: Any, wl: Any) -> tuple[AccountTree, np.ndarray]:
    """(tree, user number of each job): the tree given (a file is read), or flat over the trace's users."""
    if accounts is None:
        users = sorted({int(u) for u in np.unique(wl.user)})
        tree = AccountTree.flat(users)
    elif isinstance(accounts, AccountTree):
        tree = accounts
    else:
        from ...accounts import read_accounts
        tree = read_accounts(accounts)
    uniq, inv = np.unique(wl.user, return_inverse=True)     # each distinct user looked up once
    names = set(tree.user_names)
    if any(str(u) not in names for u in uniq.tolist()):
        return tree, tree.user_index(wl.user.tolist())       # (its error names the first job without one)
    return tree, tree.user_index(uniq.tolist())[inv.reshape(-1)]


def _mode(policy: str, sim: Any, pool: bool = False) -> str:
    """``"rigid"`` (one-task jobs on processors) or, if ``pool``, ``"pool"`` (a :class:`ResourcePool`); else an error."""
    from ..cluster_state import ProcessorPool, ResourcePool

    if isinstance(sim.state, ProcessorPool) and bool(np.all(sim.workload.tasks == 1)):
        return "rigid"
    if pool and isinstance(sim.state, ResourcePool):
        return "pool"
    what = "rigid jobs on processors (an int capacity, one task per job)" + (" or tasks on one pool (a resource "
                                                                             "vector)" if pool else "")
    raise InvalidInstanceError(f"policy {policy!r} runs {what}; this capacity ({type(sim.state).__name__}) is not "
                               "supported by it", argument="capacity", value=type(sim.state).__name__)


def _pool_rates(billing: Any, wl: Any, totals: np.ndarray) -> np.ndarray:
    """Billing rate of one task of each job on a pool: ``billing``'s; default CPU=1 (Slurm's default) when the
    trace has a ``cpu`` resource, else the dominant share (:func:`fairalloc.shares.dominant_shares`)."""
    if billing is None:
        names = [str(r).strip().lower() for r in wl.resource_names]
        billing = Billing() if "cpu" in names else Billing(rule="dominant_share")
    b = billing if isinstance(billing, Billing) else Billing(billing)
    return b.rates(wl.resources, list(wl.resource_names), capacities=totals)


def _rates(billing: Any, wl: Any) -> np.ndarray:
    """Billing rate of each rigid job: its processors, or ``billing``'s rate over the resource ``cpu``."""
    if billing is None:
        return wl.processors.astype(float)
    b = billing if isinstance(billing, Billing) else Billing(billing)
    return b.rates(wl.processors.astype(float)[:, None], ["cpu"], capacities=None
                   if b.rule != "dominant_share" else [float(max(wl.processors.max(), 1))])


def _loop_refusal(name: str, sim: Any, watch: Any) -> str | None:
    """What of ``sim`` the compiled loop runs for neither policy (tasks on a pool, a progress bar, ``watch=``)."""
    from ..cluster_state import ProcessorPool

    if not (isinstance(sim.state, ProcessorPool) and bool(np.all(sim.workload.tasks == 1))):
        return f"tasks on a pool (the compiled loop runs {name} on rigid jobs on processors)"
    if sim.progress:
        return "progress=True (the compiled loop shows no progress bar)"
    if watch is not None:
        return "watch= (explain records each decision on the event engine)"
    return None


def _check_watch(watch: Any) -> int | None:
    if watch is None:
        return None
    if isinstance(watch, bool) or not isinstance(watch, (int, np.integer)) or watch < 0:
        raise InvalidInstanceError(f"watch={watch!r} must be a workload row (int >= 0)", argument="watch", value=watch)
    return int(watch)


class SlurmPolicy(QueuePolicy):
    r"""Slurm's multifactor priority on rigid jobs or a task pool (module docstring): fair share over an account tree.

    Parameters
    ----------
    accounts : AccountTree or path, optional
        The associations (:class:`~fairalloc.accounts.AccountTree`, or a YAML/CSV/sacctmgr file); every
        user of the trace (matched by ``str``) must be in it. Default: a flat tree, one share per user.
    billing : Billing or mapping, optional
        How a job's processors are billed (resource ``"cpu"``); default: its processors.
    backfill : bool, default False
        EASY backfilling on the priority order (name ``"slurm+easy"``).
    partition, qos : float, default 1.0 and 0.0
        The constant partition and QOS factors (every job the same).
    priority : SlurmPriority, optional
        All the knobs at once (else give them one by one as ``**knobs``).
    watch : int, optional
        Record each decision about this workload row (:mod:`fairalloc.experiments.explain`); rigid jobs only.
    **knobs
        :class:`~fairalloc.fairshare.SlurmPriority`'s knobs (``half_life``, ``calc_period``, ``usage_reset``,
        ``max_age``, ``decay``, ``fairshare``, ``dampening``, ``weight_age``, ``weight_fairshare``,
        ``weight_job_size``, ``weight_partition``, ``weight_qos``, ``favor_small``, ``size_relative_to_time``,
        ``integer``) and their defaults (half-life 7 days,
        ``decay="slurm"``: the code's :math:`1 - 0.693/t_{1/2}` per second; pass every 300 s; max age
        7 days; Fair Tree; weights 1000, 10000, 1000, 1000, 0). A half-life of 0 or below is refused.

    Attributes
    ----------
    usage : ndarray
        Each user's decayed usage (processor-seconds) after the run's last pass or event.
    fairshare_factor : ndarray
        Each user's fair-share factor at the last pass.
    tree : AccountTree
    log : list of dict
        With ``watch``: one entry per decision while the watched job waited.

    Raises
    ------
    InvalidInstanceError
        A knob out of range (``half_life=0``), an unknown option, a user of the trace without an
        association, a capacity that is neither processors nor one pool (servers), ``backfill`` or ``watch``
        on a pool, billing weights for a resource the trace lacks (rigid jobs: other than cpu).

    Examples
    --------
    >>> SlurmPolicy(half_life=3600).prio.half_life, SlurmPolicy(backfill=True).name
    (3600.0, 'slurm+easy')
    >>> SlurmPolicy(half_life=0)
    Traceback (most recent call last):
    ...
    fairalloc.errors.InvalidInstanceError: half_life=0 must be > 0 (or inf); Slurm's PriorityDecayHalfLife=0 ('no decay') is written half_life=math.inf here
    """

    name = "slurm"

    def __init__(self, *, accounts: Any = None, billing: Any = None, backfill: bool = False, partition: float = 1.0,
                 qos: float = 0.0, priority: SlurmPriority | None = None, watch: int | None = None,
                 **knobs: Any) -> None:
        _split_options("slurm", knobs, SLURM_OPTIONS, ("accounts", "billing", "backfill", "partition", "qos",
                                                       "priority", "watch"))
        if priority is not None and knobs:
            raise InvalidInstanceError(f"give priority= or its knobs {sorted(knobs)}, not both", argument="priority",
                                       value=sorted(knobs))
        self.prio = priority if priority is not None else SlurmPriority(**knobs)
        if isinstance(accounts, str) and accounts == "flat":
            accounts = None
        self.accounts = accounts
        self.billing = billing if billing is None or isinstance(billing, Billing) else Billing(billing)
        from ...fairshare._checks import scalar
        self.partition = scalar("partition", partition, strict=False)
        self.qos = scalar("qos", qos, strict=False)
        if self.partition > 1 or self.qos > 1:
            raise InvalidInstanceError(f"partition={partition!r} and qos={qos!r} are factors in [0, 1]",
                                       argument="partition" if self.partition > 1 else "qos",
                                       value=partition if self.partition > 1 else qos)
        self.watch = _check_watch(watch)
        super().__init__(backfill=backfill)

    # -- set-up ------------------------------------------------------------------------------------
    def reset(self, sim: Any) -> None:
        from ...shares import dominant_shares

        self.mode = _mode(self.name, sim, pool=True)
        if self.mode == "pool" and self.backfill:
            raise InvalidInstanceError("slurm+easy (EASY backfilling) needs rigid jobs on processors; on a pool of "
                                       "tasks use 'slurm'", argument="backfill", value=True)
        if self.mode == "pool" and self.watch is not None:
            raise InvalidInstanceError("watch (explain) supports rigid jobs on processors", argument="watch",
                                       value=self.watch)
        if self.mode == "rigid":
            super().reset(sim)
        else:
            Policy.reset(self, sim)
        _register()
        wl = sim.workload
        p = self.prio
        self.tree, self.uidx = _tree_for(self.accounts, wl)
        t = self.tree
        n_users = t.n_users
        if self.mode == "rigid":
            self.rate = _rates(self.billing, wl)
            cap = float(sim.state.capacity)
            c = wl.processors.astype(float)
            self.js = np.array([_sl.job_size_factor(x, x, cap, cap, p.favor_small, p.size_relative_to_time,
                                                    max(self.estimate[j], 60.0) / 60.0)
                                for j, x in enumerate(c.tolist())]) \
                if p.size_relative_to_time else (1.0 - c / cap if p.favor_small else c / cap)
            m = int(sim.state.capacity) + 1
        else:                # one pool: per-task billing; the job-size factor of a task is its dominant share
            self.state = sim.state
            self.queue = []
            self.rate = _pool_rates(self.billing, wl, sim.state.totals)
            d = np.asarray(dominant_shares(wl.resources, sim.state.totals), dtype=float)
            self.js = 1.0 - d if p.favor_small else d
            self.res = wl.resources
            self.left = wl.tasks.tolist()
            self.procs = [0] * len(wl)
            m = 1024
        self.js = np.clip(self.js, 0.0, 1.0)
        self.usage = np.zeros(n_users)
        self._fs = np.zeros(n_users)
        self.continuous = p.decay == "continuous"
        self.per_second = 1.0 if self.continuous else p.per_second
        self.tau = commitments.tau_from_half_life(p.half_life) if self.continuous else math.inf
        self.user_rate = np.zeros(n_users)             # continuous: billing rate of the running jobs per user
        self.t_usage = 0.0                             # continuous: time the usage is at
        self.run_user = np.zeros(m, np.int64)
        self.run_rate = np.zeros(m)
        self.run_last = np.zeros(m)
        self.run_job = np.zeros(m, np.int64)
        self.n_run = 0
        self.slot: dict[int, list[int]] = {}          # job -> its running launches' slots, oldest first
        self.last_pass = 0.0
        self.n_passes = 0
        self.n_decisions = 0
        self.epoch = float(wl.meta.get("UnixStartTime", 0.0) or 0.0) if isinstance(wl.meta, dict) else 0.0
        self.reset_at = _sl.next_usage_reset(p.usage_reset, 0.0, epoch=self.epoch)
        self.prio_arr = np.zeros(len(wl))
        self.age_arr = np.zeros(len(wl))
        self.submit_f = np.ascontiguousarray(wl.submit, dtype=float)
        n = t.n_nodes
        self._ws = (np.empty(n), np.empty(n), np.zeros(n), np.empty(n), np.empty(n, np.int64), np.empty(n, np.bool_),
                    t.fs_children.copy())
        self._tree_args = (t.parent, t.user_nodes, t.fs_parent, t.use_parent, t.raw_shares, t.level_shares,
                           t.normalized_shares, t.preorder, t.is_user, t.sibling_shares, t.fs_child_ptr, t.fs_children)
        self.log: list[dict[str, Any]] = []
        self._stale: np.ndarray | None = None        # the usage of a pass whose factors are not computed yet
        self._order: list[int] | None = None         # the waiting jobs in order, and their keys
        self._keys: list[tuple[float, float, int]] = []
        self._minw: int | None = None                # the narrowest waiting job's width
        self._factors(self.usage)

    @property
    def fairshare_factor(self) -> np.ndarray:
        """Each user's fair-share factor as of the last pass."""
        if self._stale is not None:
            self._factors(self._stale)
        return self._fs

    def _factors(self, usage: np.ndarray) -> None:
        """Every user's fair-share factor from ``usage`` (the usage at a pass)."""
        self._stale = None
        t = self._tree_args
        node_usage, efctv, node_f, lf, sn, st, sib = self._ws
        _slurm_factors(usage, t[0], t[1], node_usage, self.prio.fairshare == "classic", t[2], t[3], t[4], t[5],
                       t[6], t[7], self.prio.dampening, efctv, node_f, t[8], t[9], lf, t[10], t[11], sn, st, sib,
                       self._fs)

    # -- usage ---------------------------------------------------------------------------------------
    def _catch_up(self, now: float) -> None:
        """Every pass up to ``now``: usage, then the factors and the waiting jobs' priorities at the last one."""
        p = self.prio
        done = 0
        if self.continuous:
            last = self.last_pass + p.calc_period * math.floor((now - self.last_pass) / p.calc_period)
            if last > self.last_pass:
                while self.reset_at <= last:       # resets at the first pass at or after each boundary
                    tr = p.calc_period * math.ceil(self.reset_at / p.calc_period)
                    self._advance(tr)
                    self.usage[:] = 0.0
                    self.reset_at = _sl.next_usage_reset(p.usage_reset, tr, epoch=self.epoch)
                self._advance(last)
                done = round((last - self.last_pass) / p.calc_period)
                self.last_pass = last
        else:
            while True:
                last, n, reset = _slurm_passes(self.usage, self.per_second, self.last_pass, now, p.calc_period,
                                               self.run_user, self.run_rate, self.run_last, self.n_run, self.reset_at)
                self.last_pass = last
                done += n
                if not reset:
                    break
                self.reset_at = _sl.next_usage_reset(p.usage_reset, last, epoch=self.epoch)
        if done:
            self.n_passes += done
            if self.queue:
                self._factors(self.usage)
                self._priorities(np.fromiter(self.queue, np.int64, len(self.queue)), self.last_pass)
                self._order = None
            else:                 # nothing waits: the factors of this pass are computed when a job arrives
                self._stale = self.usage.copy()

    def _advance(self, t: float) -> None:
        """Continuous decay: the usage at ``t`` (SDRF's Eq. 6 with the billing rate, in units of tau)."""
        if t > self.t_usage:
            c = self.usage / self.tau
            _decay_row_into(c, self.user_rate, t - self.t_usage, self.tau, c)
            self.usage[:] = c * self.tau
            self.t_usage = t

    def _priorities(self, jobs: np.ndarray, at: float) -> None:
        p = self.prio
        _slurm_priorities(jobs, self.submit_f, self.uidx, self.js, self._fs, at, p.max_age, p.weight_age,
                          p.weight_fairshare, p.weight_job_size, p.weight_partition, p.weight_qos, self.partition,
                          self.qos, p.integer, self.prio_arr, self.age_arr)

    # -- events --------------------------------------------------------------------------------------
    def on_submit(self, job: int, now: float) -> None:
        self._catch_up(now)
        if self._stale is not None:
            self._factors(self._stale)
        super().on_submit(job, now)
        self._priorities(np.array([job], np.int64), now)
        if self._order is not None:          # into the kept order
            key = (-float(self.prio_arr[job]), float(self.submit_f[job]), job)
            k = bisect.bisect(self._keys, key)
            self._keys.insert(k, key)
            self._order.insert(k, job)
        if self._minw is not None and self.mode == "rigid" and self.procs[job] < self._minw:
            self._minw = self.procs[job]

    def on_finish(self, job: int, tasks: int, server: int, now: float, killed: bool) -> None:
        self._catch_up(now)
        if self.mode == "rigid":
            super().on_finish(job, tasks, server, now, killed)
        slots = self.slot[job]
        k = slots.pop(0)            # a job's launches all run its run time: they end in the order they started
        if not slots:
            del self.slot[job]
        u = int(self.run_user[k])
        if self.continuous:
            self._advance(now)
            self.user_rate[u] -= self.run_rate[k]
            if abs(self.user_rate[u]) < 1e-9:
                self.user_rate[u] = 0.0
        else:
            self.usage[u] += _sl.usage_charge(float(self.run_rate[k]), now - float(self.run_last[k]), self.per_second)
        last = self.n_run - 1
        if k != last:               # swap-remove
            j2 = int(self.run_job[last])
            self.run_user[k], self.run_rate[k], self.run_last[k], self.run_job[k] = (
                self.run_user[last], self.run_rate[last], self.run_last[last], j2)
            moved = self.slot[j2]
            moved[moved.index(last)] = k
        self.n_run = last

    def order(self, now: float) -> list[int]:
        """The waiting jobs by priority (highest first), then submission, then row; kept between calls (the
        priorities change only at passes and a job's at its arrival)."""
        if self._order is None:
            q = self.queue
            jobs = np.fromiter(q, np.int64, len(q))
            srt = np.lexsort((jobs, self.submit_f[jobs], -self.prio_arr[jobs]))
            self._order = jobs[srt].tolist()
            self._keys = list(zip((-self.prio_arr[jobs][srt]).tolist(), self.submit_f[jobs][srt].tolist(),
                                  self._order))
        return self._order

    def schedule(self, now: float) -> list[tuple[int, int, int]]:
        self._catch_up(now)
        watching = self.watch is not None and self.watch in self.queue
        if watching:
            free0 = int(self._free())
            order = self.order(now)
            running = [(j, s, e) for (j, _k, _s, s, e) in self.sim.running.values()]
        if self.mode == "rigid":
            out = super().schedule(now)
            gone = {j for j, _, _ in out}
        else:
            out, gone = self._pool_schedule(now)
        self.n_decisions += 1
        if not self.queue:
            self._minw = None
        if self.continuous and out:
            self._advance(now)
        if gone and self._order is not None:
            keep = [i for i, j in enumerate(self._order) if j not in gone]
            self._order = [self._order[i] for i in keep]
            self._keys = [self._keys[i] for i in keep]
        for j, n, _ in out:
            if self.procs[j] == self._minw:
                self._minw = None
            k = self.n_run
            if k == len(self.run_user):          # a pool: more launches than slots so far
                self.run_user, self.run_rate, self.run_last, self.run_job = (
                    np.concatenate([a, np.zeros_like(a)]) for a in (self.run_user, self.run_rate, self.run_last,
                                                                     self.run_job))
            self.slot.setdefault(j, []).append(k)
            self.run_user[k] = self.uidx[j]
            self.run_rate[k] = self.rate[j] * n
            self.run_last[k] = now
            self.run_job[k] = j
            self.n_run = k + 1
            if self.continuous:
                self.user_rate[self.uidx[j]] += self.rate[j] * n
        if watching:
            self.log.append(self._record(now, free0, order, [j for j, _, _ in out], running))
        return out

    def _pool_schedule(self, now: float) -> tuple[list[tuple[int, int, int]], set[int]]:
        """Tasks on one pool, in priority order: each job as many tasks as fit, until a job that cannot start all
        it wants (Slurm's main scheduler: nothing overtakes a blocked job). Returns (launches, jobs done)."""
        from ...shares import tasks_that_fit

        if not self.queue:
            return [], set()
        free = np.array(self.state.free[0], dtype=float)
        out: list[tuple[int, int, int]] = []
        done: set[int] = set()
        for j in self.order(now):
            k = self.left[j]
            f = float(tasks_that_fit(free, self.res[j]))
            n = k if f >= k else int(f)
            if n > 0:
                out.append((j, n, 0))
                free -= n * self.res[j]
                self.left[j] = k - n
                if n == k:
                    done.add(j)
            if n < k:
                break
        if done:
            self.queue = [j for j in self.queue if j not in done]
        return out, done

    def next_wakeup(self, now: float) -> float | None:
        if not self.queue:
            return None
        if self.mode == "pool":
            return self.last_pass + self.prio.calc_period
        if self._minw is None:
            procs = self.procs
            self._minw = min(procs[j] for j in self.queue)
        if self._minw > self._free():
            return None           # no waiting job fits: a pass cannot start anything (module docstring)
        return self.last_pass + self.prio.calc_period     # the next pass (the passes up to now are done)

    def run_stats(self) -> dict[str, Any]:
        return {"passes": int(self.n_passes), "decisions": int(self.n_decisions)}

    # -- the compiled loop -----------------------------------------------------------------------------
    #: ``fa.simulate(..., engine="kernel")`` may run a policy object on the compiled loop: :meth:`run_kernel`
    #: leaves the state the event engine would (``usage``, ``fairshare_factor``, the counters).
    kernel_keeps_state = True

    def kernel_refusal(self, sim: Any) -> str | None:
        """Why the compiled loop (:meth:`run_kernel`) does not run ``sim``, or None when it does."""
        why = _loop_refusal("Slurm", sim, self.watch)
        if why is not None:
            return why
        if self.prio.decay == "continuous":
            return "decay='continuous' (SDRF's Eq. 6 between events runs on the event engine)"
        if self.prio.usage_reset not in ("none", "now") and float(self.prio.calc_period) != round(self.prio.calc_period):
            return (f"usage_reset={self.prio.usage_reset!r} with a calc_period that is not a whole number of seconds "
                    f"({self.prio.calc_period!r})")
        return None

    def kernel_applies(self, sim: Any) -> bool:
        """Whether :meth:`run_kernel` runs ``sim`` (:meth:`kernel_refusal` says why not)."""
        return self.kernel_refusal(sim) is None

    def run_kernel(self, sim: Any) -> Any:
        """Run ``sim`` on the simulator's compiled loop (:func:`fairalloc.sim.kernels.rigid_run` with
        :mod:`.slurm_loop`): the event engine's schedule (the tests compare every start time), with the rules
        and the set-up of this class. Call only when :meth:`kernel_applies`."""
        from ..kernels import rigid_run
        from ..metrics import SimulationResult
        from . import slurm_loop as SL

        from ..simulate import rigid_setup

        wl, state = sim.workload, sim.state
        ok, rejected, kill, dur, order, expected = rigid_setup(sim)
        self.reset(sim)                      # the tree, users, job sizes, billing and epoch, as the engine's
        p = self.prio
        n = len(wl)
        submit = np.ascontiguousarray(wl.submit[order], dtype=float)
        resets = []
        if len(order):
            bound = float(submit.max() + dur[order].sum())     # no later event: a job runs while one waits
            r = self.reset_at
            while r <= bound:          # each boundary; the next counted from the pass that reset (the engine's)
                resets.append(r)
                r = _sl.next_usage_reset(p.usage_reset, p.calc_period * math.ceil(r / p.calc_period),
                                         epoch=self.epoch)
        sl = SL.new_state(self.tree, self.uidx[order], self.js[order], self.rate[order], submit,
                          wl.processors[order], int(state.capacity), p, partition=self.partition, qos=self.qos,
                          resets=resets)
        start = np.full(n, np.nan)
        start[order], _ = rigid_run(submit, wl.processors[order], dur[order], expected[order], int(state.capacity),
                                    backfill=self.backfill, slurm=sl)
        self.usage[:] = sl.usage
        self._fs[:] = sl.fs
        self._stale = sl.snap.copy() if sl.si[SL._STALE] else None
        self.last_pass = float(sl.sf[SL._LAST])
        self.n_passes = int(sl.si[SL._PASSES])
        self.n_decisions = int(sl.si[SL._DECISIONS])
        return SimulationResult.from_run(wl, start=start, end=start + dur, killed=kill, rejected=rejected,
                                         launches=None, policy=self.name, state=state,
                                         enforce_walltime=sim.enforce_walltime,
                                         stats={"engine": "kernel", **self.run_stats()})

    # -- explain -------------------------------------------------------------------------------------
    def factors_of(self, j: int) -> dict[str, Any]:
        """The priority of waiting job ``j`` and its factors, as computed at the last pass (or its submission)."""
        p = self.prio
        u = int(self.uidx[j])
        return {"job": int(j), "user": self.tree.user_names[u], "priority": float(self.prio_arr[j]),
                "age": float(self.age_arr[j]), "fairshare": float(self._fs[u]),
                "job_size": float(self.js[j]), "partition": self.partition, "qos": self.qos,
                "usage": float(self.usage[u]), "processors": int(self.procs[j]),
                "weighted": {"age": p.weight_age * float(self.age_arr[j]),
                             "fairshare": p.weight_fairshare * float(self._fs[u]),
                             "job_size": p.weight_job_size * float(self.js[j]),
                             "partition": p.weight_partition * self.partition, "qos": p.weight_qos * self.qos}}

    def _record(self, now: float, free0: int, order: list[int], started: list[int], running: list) -> dict[str, Any]:
        j = self.watch
        pos = order.index(j)
        rec: dict[str, Any] = {"time": float(now), "free": free0, "position": pos, "queued": len(order),
                               "last_pass": float(self.last_pass), "job": self.factors_of(j),
                               "ahead": [self.factors_of(a) for a in order[:pos]], "started": j in started}
        if j in started:
            rec["reason"] = "started"
            return rec
        from . import easy
        procs = self.procs
        gone = set(started)
        h = 0
        while order[h] in gone:                   # strict order: the jobs started in order, then the head
            h += 1
        head = order[h]
        free = free0 - sum(procs[a] for a in order[:h])
        rec["head"] = int(head)
        rec["free_at_head"] = int(free)
        if head == j:
            rec["reason"] = "no room"
            rec["detail"] = f"needs {procs[j]} processors, {free} free after the jobs ahead started"
            return rec
        if not self.backfill:
            rec["reason"] = "lower priority"
            rec["detail"] = (f"behind job {head} (priority {self.prio_arr[head]:g}), which needs {procs[head]} processors "
                             f"with {free} free; nothing overtakes it without backfilling")
            return rec
        # EASY: the head's shadow time and extra processors from the running jobs (those started before it
        # this instant included), by the backfill core's own rule (easy._shadow, easy._passes)
        run = sorted([(e, procs[a]) for a, _s, e in running]
                     + [(now + self.estimate[a], procs[a]) for a in order[:h]])
        rend = np.array([max(e, now) for e, _ in run] + [0.0])
        rproc = np.array([q for _, q in run] + [0], np.int64)
        shadow, extra = easy._shadow.py_func(now, free, procs[head], len(run), rend, rproc, now)
        rec["shadow"] = float(shadow)
        rec["extra"] = int(extra)
        for a in order[h + 1:]:                   # the backfill pass in order, up to j
            if a == j:
                break
            if a in gone:
                if not now + self.estimate[a] <= shadow:
                    extra -= procs[a]
                free -= procs[a]
        rec["free_at_turn"] = int(free)
        rec["extra_at_turn"] = int(extra)
        if procs[j] > free:
            rec["reason"] = "no room"
            rec["detail"] = (f"needs {procs[j]} processors, {free} free at its turn (job {head} is the blocked head, "
                             f"reserved at {shadow:g})")
        elif easy._passes.py_func(procs[j], self.estimate[j], now, free, extra, shadow):
            rec["reason"] = "inconsistent"        # would have been started: cannot happen (explain checks)
        else:
            rec["reason"] = "backfill reservation"
            rec["detail"] = (f"fits now ({procs[j]} <= {free} free) but would end at {now + self.estimate[j]:g}, after "
                             f"job {head}'s reservation at {shadow:g}, and needs more than the {extra} processors that "
                             "job does not need")
        return rec


class HTCondorPolicy(Policy):
    r"""HTCondor's user priorities and pie-slice negotiation on rigid jobs (module docstring).

    Parameters
    ----------
    accounts : AccountTree or path, optional
        Users' ``prio_factor`` and accounting groups (``quota``, ``quota_dynamic``, ``accept_surplus``);
        every user of the trace must be in it. Default: a flat tree (no groups).
    billing : Billing or mapping, optional
        Slot weight of a job (resource ``"cpu"``); default its processors.
    priority : HTCondorPriority, optional
        All the knobs at once (else give them one by one as ``**knobs``).
    watch : int, optional
        Record each cycle while this workload row is idle (:mod:`fairalloc.experiments.explain`).
    **knobs
        :class:`~fairalloc.fairshare.HTCondorPriority`'s knobs (``half_life``, ``default_prio_factor``,
        ``interval``, ``accept_surplus``, ``oversubscription``, ``min_slot_weight``) and their defaults
        (``PRIORITY_HALFLIFE`` 1 day, factor 1000, ``NEGOTIATOR_INTERVAL`` 60 s, ``GROUP_ACCEPT_SURPLUS`` False,
        oversubscription True).

    Attributes
    ----------
    rup : ndarray
        Each user's real user priority after the run's last cycle.
    log : list of dict

    Raises
    ------
    InvalidInstanceError
        A knob out of range (``half_life=0``), an unknown option (``backfill``: HTCondor does not
        backfill), a user without an association, a capacity that is not processors.

    Examples
    --------
    Ten processors; users 0, 1, 2 with five 1-processor jobs each at 0; user 0's priority factor is 2000, so
    the EUPs are 1000, 500, 500 and the pie 0.2 : 0.4 : 0.4 of 10: users 1 and 2 start 4 jobs each, user 0
    2; the rest start at the first cycle after the jobs end at 100 (cycles every 60 s: at 120):

    >>> import fairalloc as fa
    >>> from fairalloc.accounts import AccountTree
    >>> tree = AccountTree([{"user": "0", "prio_factor": 2000}, {"user": "1"}, {"user": "2"}])
    >>> wl = fa.workloads.Workload(submit=[0] * 15, run_time=[100] * 15, processors=[1] * 15,
    ...                            user=[0] * 5 + [1] * 5 + [2] * 5)
    >>> r = fa.simulate(wl, 10, policy="htcondor", accounts=tree)
    >>> r.jobs.groupby("user")["start"].apply(lambda s: (s == 0).sum()).tolist()
    [2, 4, 4]
    """

    name = "htcondor"

    def __init__(self, *, accounts: Any = None, billing: Any = None, priority: HTCondorPriority | None = None,
                 watch: int | None = None, **knobs: Any) -> None:
        _split_options("htcondor", knobs, HTCONDOR_OPTIONS, ("accounts", "billing", "priority", "watch"))
        if priority is not None and knobs:
            raise InvalidInstanceError(f"give priority= or its knobs {sorted(knobs)}, not both", argument="priority",
                                       value=sorted(knobs))
        self.prio = priority if priority is not None else HTCondorPriority(**knobs)
        if isinstance(accounts, str) and accounts == "flat":
            accounts = None
        self.accounts = accounts
        self.billing = billing if billing is None or isinstance(billing, Billing) else Billing(billing)
        self.watch = _check_watch(watch)

    def reset(self, sim: Any) -> None:
        super().reset(sim)
        _mode(self.name, sim)
        _register()
        wl = sim.workload
        self.state = sim.state
        self.tree, self.uidx = _tree_for(self.accounts, wl)
        n_users = self.tree.n_users
        self.size = _rates(self.billing, wl)
        self.procs = wl.processors.tolist()
        self.submit_f = np.ascontiguousarray(wl.submit, dtype=float)
        self.factor = self.prio.prio_factors(self.tree)
        self.rup = np.full(n_users, _hc.MIN_PRIORITY)
        self.in_use = np.zeros(n_users)
        self.uncharged = np.zeros(n_users)
        self._rho = np.zeros(n_users)
        self._dc = np.array([np.nan, 0.0, 0.0, np.nan])      # _condor_cycles' cache of Eq. 6's factors
        self.tau = self.prio.tau
        self.last = 0.0
        self.started_at: dict[int, float] = {}
        self.idle: list[int] = []
        self.n_cycles = 0
        self.n_negotiations = 0
        self.log: list[dict[str, Any]] = []
        quota = np.asarray(self.tree.attribute("quota"))
        dyn = np.asarray(self.tree.attribute("quota_dynamic"))
        self.groups = bool(np.any(~np.isnan(quota[1:])) or np.any(~np.isnan(dyn[1:])))
        self.min_idle = math.inf

    def _catch_up(self, now: float) -> None:
        last, n = _condor_cycles(self.rup, self.in_use, self.uncharged, self._rho, self.last, now, self.prio.interval,
                                 self.tau, _hc.MIN_PRIORITY, self._dc)
        self.last = last
        self.n_cycles += n

    def on_submit(self, job: int, now: float) -> None:
        self._catch_up(now)
        self.idle.append(job)

    def on_finish(self, job: int, tasks: int, server: int, now: float, killed: bool) -> None:
        self._catch_up(now)
        u = self.uidx[job]
        w = float(self.size[job])
        self.in_use[u] -= w
        if abs(self.in_use[u]) < 1e-9:
            self.in_use[u] = 0.0
        self.uncharged[u] += w * (now - max(self.started_at.pop(job), self.last))

    def schedule(self, now: float) -> list[tuple[int, int, int]]:
        self._catch_up(now)
        if now != self.last or not self.idle:
            return []             # jobs start only at negotiation cycles
        free = float(self.state.free)
        idle = np.fromiter(self.idle, np.int64, len(self.idle))
        if float(self.size[idle].min()) > free:
            return []
        self.n_negotiations += 1
        idle = idle[np.lexsort((idle, self.submit_f[idle], self.uidx[idle]))]   # by user, then submission
        eup = self.rup * self.factor
        n = self.tree.n_users
        matched = np.zeros(len(idle), np.bool_)
        usage = self.in_use.copy()
        shares, limits, order = np.zeros(n), np.zeros(n), np.zeros(n, np.int64)
        watch = self.watch is not None and self.watch in self.idle
        rounds: list[dict[str, Any]] = []
        if not self.groups:
            ptr = np.searchsorted(self.uidx[idle], np.arange(n + 1)).astype(np.int64)
            _negotiate_into(eup, usage, ptr, self.size[idle], free, float(self.state.capacity), math.inf,
                            float(usage.sum()), self.prio.min_slot_weight, matched, shares, limits, order)
            if watch:
                rounds.append({"group": None, "shares": shares.copy(), "limits": limits.copy()})
        else:
            free = self._negotiate_groups(idle, eup, usage, free, matched, shares, limits, order, rounds if watch else None)
        started = idle[matched].tolist()
        if watch:
            self.log.append(self._record(now, float(self.state.free), idle, matched, eup, rounds))
        if started:
            gone = set(started)
            self.idle = [j for j in self.idle if j not in gone]
            for j in started:
                self.started_at[j] = now
                self.in_use[self.uidx[j]] += self.size[j]
        return [(j, 1, 0) for j in started]

    def _negotiate_groups(self, idle, eup, usage, free, matched, shares, limits, order, rounds) -> float:
        """One cycle with accounting groups: allocations with surplus, limits, then each group's negotiation."""
        t = self.tree
        user_acct = t.parent[t.user_nodes]
        na = len(t.account_names)
        requested = self.in_use.copy()
        np.add.at(requested, self.uidx[idle], self.size[idle])
        total = float(self.state.capacity)
        p = self.prio
        alloc, quota, _ = _hc.group_allocations(t, total, requested, accept_surplus=p.accept_surplus,
                                                oversubscription=p.oversubscription)
        sub_q = _hc.group_quotas(t, total, oversubscription=p.oversubscription)[1]
        g_use = np.zeros(na)
        np.add.at(g_use, user_acct, self.in_use)
        lim = _hc.group_limits(t, alloc, quota, sub_q, g_use, accept_surplus=p.accept_surplus)
        members = [np.flatnonzero(user_acct == a) for a in range(na)]
        groups = [a for a in range(na) if len(members[a])]
        key = [(1 if a == 0 else 0, g_use[a] / quota[a] if quota[a] > 0 else 3.3e38, a) for a in groups]
        uid = self.uidx[idle]
        n = t.n_users
        for _, _, a in sorted(key):
            if free <= 0:
                break
            mine = np.isin(uid, members[a])
            if not mine.any():
                continue
            sel = np.flatnonzero(mine)
            ptr = np.searchsorted(uid[sel], np.arange(n + 1)).astype(np.int64)
            m = matched[sel].copy()
            gq = math.inf if a == 0 else float(lim[a])
            before = usage.copy()
            free = _negotiate_into(eup, usage, ptr, self.size[idle[sel]], free, total, gq, float(g_use[a]),
                                   p.min_slot_weight, m, shares, limits, order)
            matched[sel] = m
            g_use[a] += float((usage - before).sum())
            if rounds is not None:
                rounds.append({"group": t.account_names[a], "quota": float(quota[a]), "limit": gq,
                               "shares": shares.copy(), "limits": limits.copy()})
        return free

    def next_wakeup(self, now: float) -> float | None:
        if not self.idle:
            return None
        if min(self.size[j] for j in self.idle) > self.state.free:
            return None           # no idle job fits: a cycle cannot match anything (module docstring)
        return self.last + self.prio.interval             # the next cycle (the cycles up to now are done)

    def run_stats(self) -> dict[str, Any]:
        return {"cycles": int(self.n_cycles), "negotiations": int(self.n_negotiations)}

    # -- the compiled loop -----------------------------------------------------------------------------
    #: ``fa.simulate(..., engine="kernel")`` may run a policy object on the compiled loop: :meth:`run_kernel`
    #: leaves the state the event engine would (``rup``, ``in_use``, ``uncharged``, the counters).
    kernel_keeps_state = True

    def kernel_refusal(self, sim: Any) -> str | None:
        """Why the compiled loop (:meth:`run_kernel`) does not run ``sim``, or None when it does."""
        why = _loop_refusal("HTCondor", sim, self.watch)
        if why is not None:
            return why
        tree = self.accounts if isinstance(self.accounts, AccountTree) else None
        if self.accounts is not None and tree is None:
            from ...accounts import read_accounts
            tree = read_accounts(self.accounts)
        if tree is not None:
            quota = np.asarray(tree.attribute("quota"))
            dyn = np.asarray(tree.attribute("quota_dynamic"))
            if bool(np.any(~np.isnan(quota[1:])) or np.any(~np.isnan(dyn[1:]))):
                return "accounting groups (quota or quota_dynamic: the group negotiation runs on the event engine)"
        return None

    def kernel_applies(self, sim: Any) -> bool:
        """Whether :meth:`run_kernel` runs ``sim`` (:meth:`kernel_refusal` says why not)."""
        return self.kernel_refusal(sim) is None

    def run_kernel(self, sim: Any) -> Any:
        """Run ``sim`` on the simulator's compiled loop (:func:`fairalloc.sim.kernels.rigid_run` with
        :mod:`.condor_loop`, inside Slurm's specialisation of the loop): the event engine's schedule (the tests
        compare every start time), with the rules and the set-up of this class. Call only when
        :meth:`kernel_applies`."""
        from ..kernels import rigid_run
        from ..metrics import SimulationResult
        from ..simulate import rigid_setup
        from . import condor_loop as CL
        from . import slurm_loop as SL

        wl, state = sim.workload, sim.state
        ok, rejected, kill, dur, order, expected = rigid_setup(sim)
        self.reset(sim)                      # the tree, users, sizes and factors, as the engine's
        n = len(wl)
        sl = SL.condor_state(self.uidx[order], self.size[order], wl.processors[order], self.factor, self.prio,
                             int(state.capacity))
        start = np.full(n, np.nan)
        start[order], _ = rigid_run(wl.submit[order], wl.processors[order], dur[order], expected[order],
                                    int(state.capacity), backfill=False, slurm=sl)
        hc = sl.hc
        self.rup[:] = hc.rup[hc.slot]          # (kept by slot: condor_loop)
        self.in_use[:] = hc.in_use[hc.slot]
        self.uncharged[:] = hc.uncharged[hc.slot]
        self.last = float(hc.cf[CL._LAST])
        self.n_cycles = int(hc.ci[CL._CYCLES])
        self.n_negotiations = int(hc.ci[CL._NEG])
        return SimulationResult.from_run(wl, start=start, end=start + dur, killed=kill, rejected=rejected,
                                         launches=None, policy=self.name, state=state,
                                         enforce_walltime=sim.enforce_walltime,
                                         stats={"engine": "kernel", **self.run_stats()})

    def _record(self, now, free, idle, matched, eup, rounds) -> dict[str, Any]:
        j = self.watch
        u = int(self.uidx[j])
        t = self.tree
        last = rounds[-1] if rounds else {"shares": np.zeros(t.n_users), "limits": np.zeros(t.n_users)}
        for r in rounds:                     # the round of the watched user's group
            if r["shares"][u] > 0:
                last = r
        users = [{"user": t.user_names[k], "rup": float(self.rup[k]), "eup": float(eup[k]),
                  "in_use": float(self.in_use[k]), "share": float(last["shares"][k]), "limit": float(last["limits"][k])}
                 for k in np.argsort(eup, kind="stable") if np.any(self.uidx[idle] == k)]
        k = int(np.flatnonzero(idle == j)[0])
        started = bool(matched[k])
        mine = idle[self.uidx[idle] == u]
        ahead_same = [int(a) for a in mine[:int(np.flatnonzero(mine == j)[0])]]
        got = [int(a) for a in idle[matched] if self.uidx[a] == u]
        rec = {"time": float(now), "free": free, "job": {"job": int(j), "user": t.user_names[u],
                                                         "processors": int(self.procs[j]), "rup": float(self.rup[u]),
                                                         "eup": float(eup[u]), "factor": float(self.factor[u])},
               "users": users, "ahead_same_user": ahead_same, "matched_same_user": got, "started": started,
               "group": last.get("group")}
        # its pie slice: the share of the last spin of the pie W (the pool, at most the group's limit)
        pie = min(float(self.state.capacity), float(last.get("limit", math.inf)))
        slice_ = float(last["shares"][u]) * pie
        mine_after = float(self.in_use[u]) + float(self.size[got].sum() if got else 0.0)
        left = free - float(self.size[idle[matched]].sum())
        rec["slice"] = slice_
        if started:
            rec["reason"] = "started"
        elif mine_after + float(self.size[j]) > slice_:
            rec["reason"] = "lower priority"
            rec["detail"] = (f"user {t.user_names[u]}'s pie slice is used up: share {last['shares'][u]:.4g} of {pie:g} "
                             f"= {slice_:.4g} processors (EUP {eup[u]:.4g}); it runs {mine_after:g} after this cycle "
                             f"(matched now: jobs {got}), this job needs {self.procs[j]} more")
        else:
            rec["reason"] = "no room"
            rec["detail"] = f"needs {self.procs[j]} processors; {left:g} free after this cycle's matches"
        return rec
