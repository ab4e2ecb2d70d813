r"""Slurm's multifactor priority: decayed usage, classic fair share, Fair Tree and the job priority.

Sources (read at SchedMD/slurm ``284c3b95f0``, 2026-08-20): the ``priority_multifactor``,
``classic_fair_share`` and ``fair_tree`` pages (https://slurm.schedmd.com/priority_multifactor.html,
/classic_fair_share.html, /fair_tree.html), ``src/plugins/priority/multifactor/priority_multifactor.c``,
``.../fair_tree.c`` and ``src/common/assoc_mgr.c``. Every rule below says which function it follows.

**Decayed usage** (``_decay_thread``, ``_apply_new_usage``). Every ``PriorityCalcPeriod`` (default 5 min)
the controller multiplies every association's raw usage by :math:`f^{\Delta}` (:math:`\Delta` the
seconds since the last pass, floored at ``DBL_MIN``) and then charges each running job for the
:math:`r` seconds it ran since the last pass (or since it started): :math:`U \mathrel{+}= r\,f^{r}\,b`
with :math:`b` its billing rate (:mod:`.billing`). A job that ends is charged at once the same way.
The per-second factor :math:`f` is

* ``decay="slurm"`` (**default**): the code's :math:`f = 1 - 0.693/t_{1/2}` (``_init_decay_vars``:
  a first-order expansion of :math:`e^{\ln(1/2)/t_{1/2}}`). With :math:`t_{1/2}` = 7 days,
  :math:`f^{t_{1/2}} = 0.50007`: usage halves in :math:`t_{1/2}\cdot\ln 2/0.693` = 1.0002
  :math:`t_{1/2}`. It is the default because a comparison "with what my cluster runs" should
  compute what slurmctld computes; the difference from ``"exact"`` is that 0.02 %.
* ``decay="exact"``: :math:`f = 2^{-1/t_{1/2}}`, so that :math:`f^{t_{1/2}} = 1/2` exactly (the
  pages' stated half-life); the same passes and charges.
* ``decay="continuous"``: no passes for the usage: between two events of a user its billing rate
  :math:`b` is constant and :math:`U(t) = e^{-\Delta/\tau}U(t_0) + b\,\tau\,(1 - e^{-\Delta/\tau})`,
  :math:`\tau = t_{1/2}/\ln 2`. Divided by :math:`\tau` this is **SDRF's Eq. 6** with the excess
  :math:`\bar o` replaced by the billing rate: the state is :math:`c = U/\tau` and it is updated by
  :func:`fairalloc.commitments.decay_row_into` itself (no second copy). Normalised usage is a ratio,
  so :math:`\tau` cancels.

``PriorityDecayHalfLife=0`` means "no decay" in Slurm; here a half-life of 0 or below is refused (a
silent 0 turned fairness off in Kueue PR #15228) and no decay is written ``half_life=math.inf``.
``PriorityUsageResetPeriod`` clears all usage at calendar boundaries (:func:`next_usage_reset`).

**Normalised usage** (``set_assoc_usage_norm``): :math:`U_N = \min(U/U_{root}, 1)`, 0 when the root has
no usage. An account's raw usage is the sum over the users below it
(:func:`fairalloc.accounts.subtree_sum_into`).

**Classic fair share** (``PriorityFlags=NO_FAIR_TREE``; classic page, ``_set_assoc_usage_efctv``,
``_set_usage_efctv``, ``_set_assoc_fs_factor``): effective usage top-down,

.. math:: U_E = U_N \ \text{(children of root)},\qquad
          U_E = U_A + (U_{E,parent} - U_A)\,\frac{S^{raw}_{child}}{S_{all\ siblings}}

(the parent's :math:`U_E` when the siblings' shares sum to 0; the parent's for ``FairShare=parent``),
and :math:`F = 2^{-(U_E/S)/d}` with :math:`S` the normalised shares
(:attr:`fairalloc.accounts.AccountTree.normalized_shares`) and :math:`d` =
``FairShareDampeningFactor`` (default 1); :math:`F = 0` when :math:`S = 0`.

**Fair Tree** (the default since 19.05; fair_tree page, ``fair_tree.c``): per node the level fair share
:math:`LF = S/U` with :math:`S = S^{raw}/S^{raw}_{self+siblings}` and :math:`U = U^{raw}/U^{raw}_{parent}`
(:math:`U = 0` when the parent has no usage; :math:`LF = 0` when :math:`S = 0`, :math:`\infty` when
:math:`U = 0`; a ``FairShare=parent`` user has :math:`\infty`, a ``parent`` account ``NO_VAL``). Siblings
are sorted by :math:`LF` descending, users before accounts on equal :math:`LF` (``_cmp_level_fs``; here a
stable sort keeps record order among full ties, where Slurm's ``qsort`` leaves it unspecified), and the
tree is visited depth first; each user gets :math:`F = rank/N_{users}`, the rank starting at
:math:`N_{users}` and decreasing by one per user, except that a user *tied* with the one before keeps
its rank. Tied means: equal :math:`LF` to the previous sibling, or first child of an account that was
itself tied (``_calc_tree_fs``).

*Ties, as the code runs and not as the page says*: the page says "sibling accounts with the same Level
Fairshare have their children lists merged before descending". In ``fair_tree.c``,
``_count_tied_accounts`` stops at the first following sibling that is an account (``if
(!next_assoc->user) break;``) and users sort before accounts among equals, so it always returns 0: tied
accounts are visited one after the other, the first user of the later one tied with the last user
ranked before it. This module follows the code (Slurm's own regression test ``test24.4`` passes either
way; :func:`fair_tree_into`'s docstring has a case where the two differ).

**Job priority** (multifactor page, ``_get_priority_internal``, ``set_priority_factors``):

.. math:: P = w_{age} F_{age} + w_{fs} F_{fs} + w_{js} F_{js} + w_{part} F_{part} + w_{qos} F_{qos}
          + \mathrm{site} - \mathrm{nice}

at least 1, truncated to an unsigned 32-bit integer (``integer=True``); ties in order go to the earlier
submission, then the lower job id (the page's evaluation order). :math:`F_{age} = \min(w/\text{max\_age},
1)` for a job eligible for :math:`w` seconds; :math:`F_{js}` in :func:`job_size_factor`; partition and
QOS factors are constants (their ``PriorityJobFactor`` / QOS priority normalised to the largest).

**Relation to SDRF's commitments** (``../shared/papers/sdrf.md``, Eq. 3 and 6): both remember past use
with an exponential half-life. SDRF's commitment :math:`c_{ir}` is the decayed average of the use
*above the fair share*, per resource, :math:`(1-\delta)\sum_k\delta^{t-k}\max(o_{ir}^{(k)} - f_i, 0)`;
Slurm's :math:`U_i` is the decayed *sum* of the billed use, all of it, one number per user, compared
with the user's share only afterwards (:math:`U_E/S` in the classic factor, :math:`S/U` in Fair Tree).
For a user billed a constant :math:`b` over passes of :math:`\Delta` seconds, a pass is
:math:`U' = f^{\Delta}(U + \Delta b)`, so :math:`c = (1 - f^{\Delta})\,U/(\Delta f^{\Delta})` obeys **SDRF's Eq. 3
exactly**, :math:`c' = (1-\delta)\,b + \delta c` with :math:`\delta = f^{\Delta}`: up to a constant factor,
Slurm's usage is an SDRF commitment computed on the whole billed use instead of the excess over the fair
share (``decay="continuous"`` is the same in continuous time, Eq. 6). Half-life, :math:`\delta` and
:math:`\tau` convert with :func:`fairalloc.commitments.delta_from_half_life` and friends.

Examples
--------
The classic fair-share page's example (users' usages 0.2, 0.25, 0, 0.25, 0 of the machine; the other
0.3 charged to an account G without shares, as Slurm's regression test ``test24.1`` does):

>>> from fairalloc.accounts import AccountTree
>>> tree = AccountTree([
...     {"account": "A", "shares": 40}, {"account": "B", "parent": "A", "shares": 30},
...     {"account": "C", "parent": "A", "shares": 10},
...     {"account": "D", "shares": 60}, {"account": "E", "parent": "D", "shares": 25},
...     {"account": "F", "parent": "D", "shares": 35}, {"account": "G", "shares": 0},
...     {"user": "u1", "account": "B"}, {"user": "u2", "account": "C"}, {"user": "u3", "account": "C"},
...     {"user": "u4", "account": "E"}, {"user": "u5", "account": "F"}, {"user": "u6", "account": "G", "shares": 0}],
...     zero_shares="allow")
>>> t = sshare(tree, [0.2, 0.25, 0.0, 0.25, 0.0, 0.3], fairshare="classic")
>>> t.loc[t.user != "", ["user", "effective_usage", "fairshare"]].round(6).head(5).values.tolist()
[['u1', 0.3875, 0.408479], ['u2', 0.275, 0.022097], ['u3', 0.15, 0.125], ['u4', 0.25, 0.5], ['u5', 0.145833, 0.749154]]
"""

from __future__ import annotations

import datetime as _dt
import math
from dataclasses import dataclass, fields
from typing import Any, Sequence

import numpy as np

from ..accounts import AccountTree, subtree_sum_into
from ..errors import InvalidInstanceError
from ._checks import scalar
from ._jit import callee

__all__ = [
    "SlurmPriority",
    "DECAY_RULES",
    "USAGE_RESET_PERIODS",
    "SLURM_LN2",
    "NO_VAL",
    "decay_per_second",
    "period_decay",
    "usage_charge",
    "decay_usage_into",
    "classic_fairshare_into",
    "level_fairshare_into",
    "fair_tree_into",
    "fairshare_factors",
    "sshare",
    "age_factor",
    "job_size_factor",
    "job_priority",
    "next_usage_reset",
]

#: The constant of Slurm's per-second decay factor ``1 - 0.693 / half_life`` (``_init_decay_vars``).
SLURM_LN2 = 0.693
#: Slurm's ``NO_VAL`` (0xfffffffe) as a level fair share: a ``FairShare=parent`` account's, and the
#: "previous level" at the start of each sibling list in ``_calc_tree_fs``.
NO_VAL = 4294967294.0
#: Per-second decay rules of the usage (module docstring).
DECAY_RULES = ("slurm", "exact", "continuous")
#: ``PriorityUsageResetPeriod`` values.
USAGE_RESET_PERIODS = ("none", "now", "daily", "weekly", "monthly", "quarterly", "yearly")
_DBL_MIN = 2.2250738585072014e-308
_DAY = 86400.0


@dataclass(frozen=True)
class SlurmPriority:
    r"""The knobs of Slurm's multifactor priority (``slurm.conf`` names in brackets), checked.

    Parameters
    ----------
    half_life : float, optional
        Seconds for unused usage to halve [``PriorityDecayHalfLife``]; default 7 days (Slurm's);
        ``math.inf`` = no decay (Slurm writes 0, refused here).
    calc_period : float, optional
        Seconds between usage decays and priority recomputations [``PriorityCalcPeriod``, given in
        minutes]; default 300.
    usage_reset : str, optional
        [``PriorityUsageResetPeriod``] one of :data:`USAGE_RESET_PERIODS`; default ``"none"``.
    max_age : float, optional
        Wait in seconds at which the age factor reaches 1 [``PriorityMaxAge``]; default 7 days.
    decay : {"slurm", "exact", "continuous"}, optional
        Per-second decay (module docstring); default ``"slurm"``, the code's ``1 - 0.693/half_life``.
    fairshare : {"fair_tree", "classic"}, optional
        Fair-share algorithm; default ``"fair_tree"`` (Slurm >= 19.05; ``classic`` =
        ``PriorityFlags=NO_FAIR_TREE``).
    dampening : float, optional
        [``FairShareDampeningFactor``] classic only, ``>= 1`` (Slurm takes integers); default 1.
    weight_age, weight_fairshare, weight_job_size, weight_partition, weight_qos : float, optional
        [``PriorityWeight*``], ``>= 0``. Defaults 1000, 10000, 1000, 1000, 0: the multifactor page's
        configuration example (Slurm's own defaults are all 0, which makes the order FIFO: refused here,
        as weights that sum to 0 turn fair share off; that order is policy ``"fcfs"``).
    favor_small : bool, optional
        [``PriorityFavorSmall``] default False.
    size_relative_to_time : bool, optional
        [``PriorityFlags=SMALL_RELATIVE_TO_TIME``] default False.
    integer : bool, optional
        Truncate the priority to an unsigned 32-bit integer as Slurm does (default True).

    Raises
    ------
    InvalidInstanceError
        A half-life, period or age of 0 or below, a negative weight, weights that sum to 0, an unknown option.

    Examples
    --------
    >>> SlurmPriority().half_life / 86400, SlurmPriority().decay
    (7.0, 'slurm')
    >>> SlurmPriority(half_life=0)
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: half_life=0 must be > 0 (or inf); Slurm's PriorityDecayHalfLife=0 ('no decay') is written half_life=math.inf here
    """

    half_life: float = 7 * _DAY
    calc_period: float = 300.0
    usage_reset: str = "none"
    max_age: float = 7 * _DAY
    decay: str = "slurm"
    fairshare: str = "fair_tree"
    dampening: float = 1.0
    weight_age: float = 1000.0
    weight_fairshare: float = 10000.0
    weight_job_size: float = 1000.0
    weight_partition: float = 1000.0
    weight_qos: float = 0.0
    favor_small: bool = False
    size_relative_to_time: bool = False
    integer: bool = True

    def __post_init__(self) -> None:
        hint = "; Slurm's PriorityDecayHalfLife=0 ('no decay') is written half_life=math.inf here"
        object.__setattr__(self, "half_life", scalar("half_life", self.half_life, allow_inf=True, what=hint))
        object.__setattr__(self, "calc_period", scalar("calc_period", self.calc_period))
        object.__setattr__(self, "max_age", scalar("max_age", self.max_age))
        if self.decay not in DECAY_RULES:
            raise InvalidInstanceError(f"decay={self.decay!r} must be one of {list(DECAY_RULES)}",
                                       argument="decay", value=self.decay)
        if self.fairshare not in ("fair_tree", "classic"):
            raise InvalidInstanceError(f"fairshare={self.fairshare!r} must be 'fair_tree' or 'classic'",
                                       argument="fairshare", value=self.fairshare)
        if str(self.usage_reset).lower() not in USAGE_RESET_PERIODS:
            raise InvalidInstanceError(f"usage_reset={self.usage_reset!r} must be one of {list(USAGE_RESET_PERIODS)}",
                                       argument="usage_reset", value=self.usage_reset)
        object.__setattr__(self, "usage_reset", str(self.usage_reset).lower())
        d = scalar("dampening", self.dampening)
        if d < 1:
            raise InvalidInstanceError(f"dampening={self.dampening!r} must be >= 1 (FairShareDampeningFactor)",
                                       argument="dampening", value=self.dampening)
        object.__setattr__(self, "dampening", d)
        weights = {}
        for f in fields(self):
            if f.name.startswith("weight_"):
                object.__setattr__(self, f.name, scalar(f.name, getattr(self, f.name), strict=False))
                weights[f.name] = getattr(self, f.name)
        if not any(weights.values()):
            raise InvalidInstanceError(f"the priority weights sum to 0 ({', '.join(f'{k}=0' for k in weights)}): every "
                                       "job's priority would be 1 and the order first come first served (Slurm's FIFO), "
                                       "fair share off; give one weight > 0 (or use policy 'fcfs')", argument="weights",
                                       value=weights)
        if self.half_life == math.inf and self.decay == "continuous":
            raise InvalidInstanceError("decay='continuous' needs a finite half_life (tau = half_life / ln 2)",
                                       argument="half_life", value=self.half_life)

    @property
    def per_second(self) -> float:
        """The per-second decay factor :func:`decay_per_second` of these settings."""
        return decay_per_second(self.half_life, self.decay)


def decay_per_second(half_life: float, decay: str = "slurm") -> float:
    r"""Per-second decay factor :math:`f` of the usage (module docstring).

    Parameters
    ----------
    half_life : float
        Seconds, ``> 0``; ``math.inf`` gives 1 (no decay).
    decay : {"slurm", "exact"}, optional
        ``"slurm"`` (default): :math:`1 - 0.693/t_{1/2}`; ``"exact"``: :math:`2^{-1/t_{1/2}}`.

    Returns
    -------
    float

    Raises
    ------
    InvalidInstanceError
        A half-life of 0 or below, or another rule (``"continuous"`` has no per-second factor).

    Examples
    --------
    One day: :math:`1 - 0.693/86400` and :math:`2^{-1/86400}`; raised to 86400 the first gives
    :math:`e^{-0.693\ldots}` = 0.50007, the second 1/2:

    >>> f = decay_per_second(86400.0); round(f ** 86400, 5)
    0.50007
    >>> round(decay_per_second(86400.0, "exact") ** 86400, 9)
    0.5
    """
    hl = scalar("half_life", half_life, allow_inf=True)
    if decay not in ("slurm", "exact"):
        raise InvalidInstanceError(f"decay={decay!r} has no per-second factor; use 'slurm' or 'exact'",
                                   argument="decay", value=decay)
    if math.isinf(hl):
        return 1.0
    return 1.0 - SLURM_LN2 / hl if decay == "slurm" else 0.5 ** (1.0 / hl)


def period_decay(per_second: float, dt: float) -> float:
    """Decay of all usage over a pass of ``dt`` seconds: ``per_second ** dt``, at least ``DBL_MIN``.

    ``_decay_thread``: ``real_decay = pow(decay_factor, run_delta)``, floored at ``DBL_MIN`` (Slurm skips a
    pass with ``dt <= 0``: the factor is then 1).

    Parameters
    ----------
    per_second : float
        :func:`decay_per_second`.
    dt : float
        Seconds since the last pass.

    Returns
    -------
    float

    Examples
    --------
    >>> period_decay(0.5, 2.0), period_decay(0.5, 0.0), period_decay(0.5, 1e6) > 0
    (0.25, 1.0, True)
    """
    if dt <= 0:
        return 1.0
    x = per_second ** dt
    return x if x > _DBL_MIN else _DBL_MIN


def usage_charge(billing: float, run: float, per_second: float) -> float:
    r"""Usage charged for a job's :math:`r` seconds since the last pass: :math:`r\,f^{r}\,b` (``_apply_new_usage``).

    Parameters
    ----------
    billing : float
        The job's billing rate (:meth:`fairalloc.fairshare.Billing.rates`).
    run : float
        Seconds it ran since the last pass (or since it started), ``>= 0``.
    per_second : float
        :func:`decay_per_second`.

    Returns
    -------
    float

    Examples
    --------
    4 CPUs for 300 s with no decay, then with :math:`f = 1 - 0.693/600`:

    >>> usage_charge(4.0, 300.0, 1.0)
    1200.0
    >>> round(usage_charge(4.0, 300.0, 1 - 0.693 / 600), 1)     # 1200 * 0.998845^300
    848.4
    """
    if run <= 0:
        return 0.0
    return run * per_second ** run * billing


def decay_usage_into(usage, factor: float) -> None:
    """Multiply every entry of ``usage`` by ``factor`` in place (a pass's decay, ``_apply_decay``).

    Parameters
    ----------
    usage : ndarray of float
        Per-user raw usage.
    factor : float
        :func:`period_decay`.

    Examples
    --------
    >>> u = np.array([8.0, 2.0]); decay_usage_into(u, 0.5); u.tolist()
    [4.0, 1.0]
    """
    for k in range(len(usage)):
        usage[k] *= factor


def classic_fairshare_into(fs_parent, use_parent, raw_shares, level_shares, norm_shares, preorder, node_usage,
                           dampening: float, efctv, factor) -> None:
    r"""Classic fair share of every node: effective usage top-down and :math:`F = 2^{-(U_E/S)/d}`.

    Slurm's ``set_assoc_usage_norm``, ``_set_assoc_usage_efctv``, ``_set_usage_efctv`` and
    ``_set_assoc_fs_factor`` (module docstring), as a plain loop over the tree's arrays.

    Parameters
    ----------
    fs_parent, use_parent, raw_shares, level_shares, norm_shares, preorder : ndarray
        The :class:`~fairalloc.accounts.AccountTree` arrays of the same names (``norm_shares`` =
        ``normalized_shares``).
    node_usage : ndarray of float, shape (n_nodes,)
        Raw usage per node (:func:`fairalloc.accounts.subtree_sum_into` of the users' usage).
    dampening : float
        ``FairShareDampeningFactor``.
    efctv : ndarray of float, shape (n_nodes,)
        Receives the effective usage :math:`U_E` (the root's is 1, as Slurm sets it at start-up).
    factor : ndarray of float, shape (n_nodes,)
        Receives :math:`F` per node (users' entries are their fair-share factors).

    Examples
    --------
    Two users under root with 1 and 3 shares and usages 3 and 1: :math:`U_E` = 0.75, 0.25; :math:`F` =
    :math:`2^{-0.75/0.25} = 1/8` and :math:`2^{-0.25/0.75} = 0.7937`:

    >>> from fairalloc.accounts import AccountTree
    >>> t = AccountTree.flat(["a", "b"], shares=[1, 3])
    >>> ef, f = np.empty(3), np.empty(3)
    >>> classic_fairshare_into(t.fs_parent, t.use_parent, t.raw_shares, t.level_shares, t.normalized_shares,
    ...                        t.preorder, t.subtree_sum([3.0, 1.0]), 1.0, ef, f)
    >>> ef[1:].tolist(), f[1:].round(4).tolist()
    ([0.75, 0.25], [0.125, 0.7937])
    """
    root = node_usage[0]
    efctv[0] = 1.0                                     # set once at start-up (init)
    factor[0] = 1.0
    for k in range(1, len(preorder)):
        v = preorder[k]
        un = 0.0
        if root > 0:
            un = node_usage[v] / root
            if un > 1.0:
                un = 1.0
        p = fs_parent[v]
        if p == 0:
            ef = un
        elif use_parent[v] or level_shares[v] == 0:
            ef = efctv[p]
        else:
            ef = un + (efctv[p] - un) * (raw_shares[v] / level_shares[v])
        efctv[v] = ef
        s = norm_shares[v]
        if s <= 0:
            factor[v] = 0.0
        else:
            e = efctv[p] if use_parent[v] else ef          # a "parent" node uses its fs parent's
            factor[v] = 2.0 ** (-((e / s) / dampening))


def level_fairshare_into(fs_parent, is_user, use_parent, sibling_shares, node_usage, level_fs) -> None:
    r"""Fair Tree's level fair share :math:`LF = S/U` of every node (``_calc_assoc_fs``).

    Parameters
    ----------
    fs_parent, is_user, use_parent, sibling_shares : ndarray
        :class:`~fairalloc.accounts.AccountTree` arrays.
    node_usage : ndarray of float, shape (n_nodes,)
        Raw usage per node.
    level_fs : ndarray of float, shape (n_nodes,)
        Receives :math:`LF` (``inf`` for a ``parent`` user or no usage, :data:`NO_VAL` for a ``parent``
        account, 0 for no shares; the root's is :data:`NO_VAL`).

    Examples
    --------
    Shares 1 and 3, usages 3 and 1: :math:`(1/4)/(3/4) = 1/3` and :math:`(3/4)/(1/4) = 3`:

    >>> from fairalloc.accounts import AccountTree
    >>> t = AccountTree.flat(["a", "b"], shares=[1, 3]); lf = np.empty(3)
    >>> level_fairshare_into(t.fs_parent, t.is_user, t.use_parent, t.sibling_shares, t.subtree_sum([3.0, 1.0]), lf)
    >>> lf[1:].round(6).tolist()
    [0.333333, 3.0]
    """
    level_fs[0] = NO_VAL
    for v in range(1, len(fs_parent)):
        if use_parent[v]:
            level_fs[v] = math.inf if is_user[v] else NO_VAL
            continue
        s = sibling_shares[v]
        pu = node_usage[fs_parent[v]]
        u = node_usage[v] / pu if pu > 0 else 0.0
        if s == 0:
            level_fs[v] = 0.0
        elif u == 0:
            level_fs[v] = math.inf
        else:
            level_fs[v] = s / u


@callee
def _goes_before(a, b, level_fs, is_user):
    """Whether sibling ``a`` goes before sibling ``b``: higher :math:`LF`, then a user before an account, then
    record order (a node's fair-share children are in record order, and so in node order, among users and
    among accounts: :class:`~fairalloc.accounts.AccountTree`)."""
    if level_fs[a] != level_fs[b]:
        return level_fs[a] > level_fs[b]
    if is_user[a] != is_user[b]:
        return is_user[a]
    return a < b


@callee
def _sibling_sort(order, lo, hi, level_fs, is_user):
    """Sort ``order[lo:hi]`` (one node's fair-share children) by :func:`_goes_before`: a total order, so the
    result does not depend on the order it starts from. Insertion sort, started from the order of the last
    call when ``order`` is kept between calls: the siblings' order mostly survives a pass (a decay multiplies
    every usage alike), and a sorted segment costs one comparison per sibling. Returns whether it moved any."""
    moved = False
    for i in range(lo + 1, hi):
        v = order[i]
        k = i
        while k > lo and _goes_before(v, order[k - 1], level_fs, is_user):
            order[k] = order[k - 1]
            k -= 1
        if k != i:
            order[k] = v
            moved = True
    return moved


def fair_tree_into(fs_child_ptr, fs_children, is_user, level_fs, n_user_assocs: int, factor, stack_node,
                   stack_tied, order=None) -> None:
    r"""Fair Tree's ranking: depth-first over siblings sorted by :math:`LF`, :math:`F = rank/N` (``_calc_tree_fs``).

    As the code runs (module docstring): tied accounts are not merged. A user tied with the user ranked
    before it (equal :math:`LF` to its previous sibling, or first child of a tied account, or first
    child with :math:`LF` = :data:`NO_VAL`) keeps that rank; otherwise its rank is the number of users
    not yet ranked. Siblings are sorted by :math:`LF` descending, users before accounts among equals, then
    record order.

    Parameters
    ----------
    fs_child_ptr, fs_children, is_user : ndarray
        :class:`~fairalloc.accounts.AccountTree` arrays.
    level_fs : ndarray of float, shape (n_nodes,)
        :func:`level_fairshare_into`.
    n_user_assocs : int
        Number of users in the tree (Slurm's ``g_user_assoc_count``).
    factor : ndarray of float, shape (n_nodes,)
        Receives each user's fair-share factor (accounts' entries are left unchanged).
    stack_node : ndarray of int64, shape (n_nodes,)
    stack_tied : ndarray of bool, shape (n_nodes,)
        Work space.
    order : ndarray of int64, shape (n_nodes - 1,), optional
        Work space laid out as ``fs_children``, receiving each node's children in sorted order; a
        permutation of each node's children (``fs_children`` itself at first) kept between calls makes a
        call whose siblings' order has not changed cost one comparison per node. The result does not depend
        on it. Default: a copy of ``fs_children``.

    Examples
    --------
    Accounts A and B tie (both unused, :math:`LF = \infty`), each with two users; in A, ``a1`` used
    nothing and ``a2`` something (the parent A has no usage, so both have :math:`U = 0`, :math:`LF =
    \infty`, tied): ranks 4, 4; B is tied with A, so its first user is tied with ``a2``: 4, and ``b2``
    (its :math:`LF` equal to ``b1``'s) also 4. Merging the tied accounts' children (the page's rule) gives
    the same here; with ``b2`` used more than ``b1`` under a used B, the two differ (tests).

    >>> from fairalloc.accounts import AccountTree
    >>> t = AccountTree([{"account": "A"}, {"account": "B"}, {"user": "a1", "account": "A"},
    ...                  {"user": "a2", "account": "A"}, {"user": "b1", "account": "B"}, {"user": "b2", "account": "B"}])
    >>> lf = np.empty(t.n_nodes); f = np.zeros(t.n_nodes)
    >>> level_fairshare_into(t.fs_parent, t.is_user, t.use_parent, t.sibling_shares, np.zeros(t.n_nodes), lf)
    >>> fair_tree_into(t.fs_child_ptr, t.fs_children, t.is_user, lf, t.n_users, f,
    ...                np.empty(t.n_nodes, np.int64), np.empty(t.n_nodes, np.bool_))
    >>> f[t.user_nodes].tolist()
    [1.0, 1.0, 1.0, 1.0]
    """
    if order is None:
        order = fs_children.copy()
    for v in range(fs_child_ptr.shape[0] - 1):
        if fs_child_ptr[v + 1] - fs_child_ptr[v] > 1:
            _sibling_sort(order, fs_child_ptr[v], fs_child_ptr[v + 1], level_fs, is_user)
    rank = n_user_assocs
    rnt = n_user_assocs
    top = 0
    # the root's children, then each account's when it is visited: push in reverse sorted order
    lo, hi = fs_child_ptr[0], fs_child_ptr[1]
    for i in range(hi - 1, lo - 1, -1):
        v = order[i]
        stack_node[top] = v
        stack_tied[top] = (level_fs[order[i - 1]] == level_fs[v]) if i > lo else (level_fs[v] == NO_VAL)
        top += 1
    while top > 0:
        top -= 1
        v = stack_node[top]
        tied = stack_tied[top]
        if is_user[v]:
            if not tied:
                rank = rnt
            factor[v] = rank / n_user_assocs
            rnt -= 1
            continue
        lo, hi = fs_child_ptr[v], fs_child_ptr[v + 1]
        for i in range(hi - 1, lo - 1, -1):
            c = order[i]
            stack_node[top] = c
            if i > lo:
                stack_tied[top] = level_fs[order[i - 1]] == level_fs[c]
            else:
                stack_tied[top] = tied or level_fs[c] == NO_VAL
            top += 1


def fairshare_factors(tree: AccountTree, user_usage: Any, *, fairshare: str = "fair_tree",
                      dampening: float = 1.0) -> np.ndarray:
    """Each user's fair-share factor in ``[0, 1]`` from its raw (decayed) usage.

    Parameters
    ----------
    tree : AccountTree
    user_usage : array_like, shape (n_users,)
        Raw usage per user (any unit; only ratios matter), ``>= 0``.
    fairshare : {"fair_tree", "classic"}, optional
    dampening : float, optional
        Classic only (``FairShareDampeningFactor``).

    Returns
    -------
    ndarray of float, shape (n_users,)

    Raises
    ------
    InvalidInstanceError
        Wrong shape, a negative or non-finite usage, an unknown algorithm.

    See Also
    --------
    sshare : every intermediate value, per node, as a table.

    Examples
    --------
    A flat tree of three equal users with usages 6, 3, 1: Fair Tree ranks them 1/3, 2/3, 1; classic gives
    :math:`2^{-3 u}`, with :math:`u` = 0.6, 0.3, 0.1:

    >>> from fairalloc.accounts import AccountTree
    >>> t = AccountTree.flat(["x", "y", "z"])
    >>> fairshare_factors(t, [6.0, 3.0, 1.0]).round(4).tolist()
    [0.3333, 0.6667, 1.0]
    >>> fairshare_factors(t, [6.0, 3.0, 1.0], fairshare="classic").round(4).tolist()
    [0.2872, 0.5359, 0.8123]
    """
    return sshare(tree, user_usage, fairshare=fairshare, dampening=dampening, _factors_only=True)


def sshare(tree: AccountTree, user_usage: Any, *, fairshare: str = "fair_tree", dampening: float = 1.0,
           _factors_only: bool = False) -> Any:
    """Every association's shares, usages and fair-share factor, as ``sshare -l`` prints them.

    Parameters
    ----------
    tree : AccountTree
    user_usage : array_like, shape (n_users,)
        Raw usage per user, ``>= 0``.
    fairshare : {"fair_tree", "classic"}, optional
        Which normalised shares and effective usage are shown (Slurm shows the algorithm's own).
    dampening : float, optional
        Classic only.

    Returns
    -------
    pandas.DataFrame
        One row per node in depth-first order (``sshare``'s): ``account`` (the user's account for a
        user), ``user`` (``""`` for an account), ``raw_shares`` (NaN for ``parent``), ``norm_shares``,
        ``raw_usage``, ``norm_usage``, ``effective_usage``, ``fairshare`` (users only, else NaN),
        ``level_fs`` (Fair Tree; NaN for a ``parent`` node and under classic), and ``node``.

    Raises
    ------
    InvalidInstanceError
        As :func:`fairshare_factors`.

    Examples
    --------
    >>> from fairalloc.accounts import AccountTree
    >>> t = AccountTree([{"account": "A"}, {"user": "u", "account": "A"}])
    >>> sshare(t, [5.0])[["account", "user", "raw_usage", "fairshare"]].values.tolist()
    [['root', '', 5.0, nan], ['A', '', 5.0, nan], ['A', 'u', 5.0, 1.0]]
    """
    if fairshare not in ("fair_tree", "classic"):
        raise InvalidInstanceError(f"fairshare={fairshare!r} must be 'fair_tree' or 'classic'",
                                   argument="fairshare", value=fairshare)
    damp = scalar("dampening", dampening)
    u = np.asarray(user_usage, dtype=float)
    if u.shape != (tree.n_users,):
        raise InvalidInstanceError(f"user_usage must have shape ({tree.n_users},) (one per user of the tree), "
                                   f"got {u.shape}", argument="user_usage", value=u.shape)
    bad = np.flatnonzero(~np.isfinite(u) | (u < 0))
    if bad.size:
        i = int(bad[0])
        raise InvalidInstanceError(f"user_usage[{i}]={float(u[i])!r} (user {tree.user_names[i]!r}) must be finite "
                                   "and >= 0", argument="user_usage", index=(i,), value=float(u[i]))
    n = tree.n_nodes
    node_usage = np.empty(n)
    subtree_sum_into(tree.parent, tree.user_nodes, u, node_usage)
    factor = np.full(n, np.nan)
    lf = np.full(n, np.nan)
    if fairshare == "classic":
        efctv = np.empty(n)
        f = np.empty(n)
        classic_fairshare_into(tree.fs_parent, tree.use_parent, tree.raw_shares, tree.level_shares,
                               tree.normalized_shares, tree.preorder, node_usage, damp, efctv, f)
        factor[tree.user_nodes] = f[tree.user_nodes]
        norm_shares = np.asarray(tree.normalized_shares)
    else:
        level_fairshare_into(tree.fs_parent, tree.is_user, tree.use_parent, tree.sibling_shares, node_usage, lf)
        f = np.zeros(n)
        fair_tree_into(tree.fs_child_ptr, tree.fs_children, tree.is_user, lf, tree.n_users, f,
                       np.empty(n, np.int64), np.empty(n, np.bool_))
        factor[tree.user_nodes] = f[tree.user_nodes]
        efctv = np.zeros(n)
        pu = node_usage[np.maximum(tree.fs_parent, 0)]
        np.divide(node_usage, pu, out=efctv, where=pu > 0)
        efctv[0] = 1.0
        norm_shares = np.asarray(tree.sibling_shares)
        lf = lf.copy()
        lf[tree.use_parent | (lf == NO_VAL)] = np.nan
    if _factors_only:
        return factor[tree.user_nodes]
    import pandas as pd

    root = node_usage[0]
    norm_usage = np.minimum(node_usage / root, 1.0) if root > 0 else np.zeros(n)
    order = tree.preorder
    raw = np.where(tree.use_parent, np.nan, tree.raw_shares)
    acct = [tree.names[tree.parent[v]] if tree.is_user[v] else tree.names[v] for v in order]
    return pd.DataFrame({
        "account": acct, "user": [tree.names[v] if tree.is_user[v] else "" for v in order],
        "raw_shares": raw[order], "norm_shares": norm_shares[order], "raw_usage": node_usage[order],
        "norm_usage": norm_usage[order], "effective_usage": efctv[order], "fairshare": factor[order],
        "level_fs": lf[order], "node": order})


def age_factor(wait: float, max_age: float) -> float:
    """Age factor :math:`\\min(w/\\text{max\\_age}, 1)` of a job eligible for ``wait`` seconds (0 if not yet).

    ``set_priority_factors``: ``diff < max_age ? diff / max_age : 1``.

    Parameters
    ----------
    wait : float
        Seconds since the job became eligible (``accrue_time``; its submission here).
    max_age : float
        ``PriorityMaxAge`` in seconds, ``> 0``.

    Returns
    -------
    float

    Examples
    --------
    >>> age_factor(3.5 * 86400, 7 * 86400), age_factor(30 * 86400, 7 * 86400), age_factor(-5.0, 60.0)
    (0.5, 1.0, 0.0)
    """
    if wait <= 0:
        return 0.0
    if wait < max_age:
        return wait / max_age
    return 1.0


def job_size_factor(cpus: float, nodes: float, cluster_cpus: float, cluster_nodes: float, favor_small: bool = False,
                    relative_to_time: bool = False, time_limit_minutes: float = 1.0) -> float:
    r"""Job size factor in ``[0, 1]`` (``set_priority_factors``).

    * favour large (default): :math:`(n/N + c/C)/2` (just :math:`n/N` with no CPU count);
    * favour small: :math:`((N - n)/N + (C - c)/C)/2` (:math:`(N-n)/N` taken as 0 when :math:`n \ge N`);
    * ``SMALL_RELATIVE_TO_TIME``: :math:`\max(nC/N, c)/t/C` with :math:`t` the time limit in minutes
      (:math:`1 -` that when favouring small).

    Parameters
    ----------
    cpus, nodes : float
        The job's CPUs :math:`c` and minimum nodes :math:`n`.
    cluster_cpus, cluster_nodes : float
        :math:`C` and :math:`N`, ``> 0``.
    favor_small, relative_to_time : bool, optional
    time_limit_minutes : float, optional
        Only with ``relative_to_time``.

    Returns
    -------
    float
        Clipped to ``[0, 1]``.

    Examples
    --------
    A 2-node, 32-CPU job on 10 nodes of 16 CPUs: (0.2 + 0.2)/2; favouring small (0.8 + 0.8)/2:

    >>> job_size_factor(32, 2, 160, 10), job_size_factor(32, 2, 160, 10, favor_small=True)
    (0.2, 0.8)
    """
    if relative_to_time:
        js = nodes * cluster_cpus / cluster_nodes
        if cpus > js:
            js = cpus
        js = js / time_limit_minutes / cluster_cpus
        if favor_small:
            js = 1.0 - js
    elif favor_small:
        js = (cluster_nodes - nodes) / cluster_nodes if cluster_nodes > nodes else 0.0
        if cpus > 0:
            js = (js + (cluster_cpus - cpus) / cluster_cpus) / 2.0
    else:
        js = nodes / cluster_nodes
        if cpus > 0:
            js = (js + cpus / cluster_cpus) / 2.0
    if js < 0.0:
        return 0.0
    if js > 1.0:
        return 1.0
    return js


def job_priority(age: float, fairshare: float, job_size: float, partition: float, qos: float, weight_age: float,
                 weight_fairshare: float, weight_job_size: float, weight_partition: float, weight_qos: float,
                 site: float = 0.0, nice: float = 0.0, integer: bool = True) -> float:
    """Slurm's job priority: the weighted sum of the factors, at least 1, truncated to 32 bits (``_get_priority_internal``).

    Parameters
    ----------
    age, fairshare, job_size, partition, qos : float
        Factors in ``[0, 1]``.
    weight_age, weight_fairshare, weight_job_size, weight_partition, weight_qos : float
        ``PriorityWeight*``.
    site, nice : float, optional
        Site factor added, nice value subtracted (default 0).
    integer : bool, optional
        Truncate to an integer in ``[1, 2^32 - 1]`` as Slurm (default); else the sum floored at 1.

    Returns
    -------
    float

    Examples
    --------
    The multifactor page's example weights (age 1000, fair share 10000, size 1000, partition 1000) for a
    job at half its maximum age with fair share 0.408479, size 0.2 and partition 1:
    500 + 4084.79 + 200 + 1000 = 5784.79, truncated:

    >>> job_priority(0.5, 0.408479, 0.2, 1.0, 0.0, 1000, 10000, 1000, 1000, 0)
    5784.0
    """
    p = (weight_age * age + weight_fairshare * fairshare + weight_job_size * job_size
         + weight_partition * partition + weight_qos * qos + site - nice)
    if p < 1.0:
        p = 1.0
    if integer:
        p = float(math.floor(p))
        if p > 4294967295.0:
            p = 4294967295.0
    return p


def next_usage_reset(period: str, last_reset: float, *, epoch: float = 0.0) -> float:
    """Time of the next ``PriorityUsageResetPeriod`` boundary after ``last_reset`` (``_next_reset``).

    Boundaries are midnights of the calendar in UTC (Slurm uses the controller's local time): the next
    day; the next Sunday (a reset on a Sunday waits a week); the first of the next month, quarter
    (January, April, July, October) or year. The controller clears usage at its first pass at or after
    the boundary.

    Parameters
    ----------
    period : str
        One of :data:`USAGE_RESET_PERIODS`; ``"none"`` (and ``"now"``, which resets once at start)
        gives ``inf``.
    last_reset : float
        Seconds since the trace's start.
    epoch : float, optional
        Unix time of the trace's start (SWF ``UnixStartTime``; default 0, 1970-01-01, a Thursday).

    Returns
    -------
    float
        Seconds since the trace's start.

    Examples
    --------
    From 1970-01-01 00:00 (a Thursday): the next day, the next Sunday (3 days), 1970-02-01, 1970-04-01:

    >>> [next_usage_reset(p, 0.0) / 86400 for p in ("daily", "weekly", "monthly", "quarterly")]
    [1.0, 3.0, 31.0, 90.0]
    """
    p = str(period).lower()
    if p not in USAGE_RESET_PERIODS:
        raise InvalidInstanceError(f"period={period!r} must be one of {list(USAGE_RESET_PERIODS)}",
                                   argument="period", value=period)
    if p in ("none", "now"):
        return math.inf
    t = _dt.datetime.fromtimestamp(epoch + last_reset, tz=_dt.timezone.utc)
    day = t.replace(hour=0, minute=0, second=0, microsecond=0)
    if p == "daily":
        nxt = day + _dt.timedelta(days=1)
    elif p == "weekly":
        sunday_offset = 7 - ((day.weekday() + 1) % 7)        # tm_wday: Sunday = 0
        nxt = day + _dt.timedelta(days=sunday_offset)
    elif p == "monthly":
        nxt = day.replace(day=1, month=day.month % 12 + 1, year=day.year + (day.month == 12))
    elif p == "quarterly":
        m = 4 if day.month < 4 else 7 if day.month < 7 else 10 if day.month < 10 else 1
        nxt = day.replace(day=1, month=m, year=day.year + (m == 1))
    else:
        nxt = day.replace(day=1, month=1, year=day.year + 1)
    return nxt.timestamp() - epoch
