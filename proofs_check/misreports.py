r"""Searches for profitable lies: the stage game and the repeated game (strategy-proofness).

* :func:`find_profitable_misreport`: one allocation; a user reports another demand and is scored by
  the **true** utility of the bundle it receives. Lie families (``axioms.md``): scale one coordinate
  up, inflate all coordinates by random factors (possibly claiming resources it does not need),
  deflate coordinates (down to dropping one), lie about the cap (the whole demand scaled), and for
  integer tasks *bundle* k tasks into one report :math:`k d_i`.
* :func:`find_profitable_deviation`: a :class:`~proofs_check.repeated.RepeatedGame` under a dynamic
  mechanism (SDRF commitments carried by Eq. 3); a deviation caps one period's tasks at a fraction of
  what the user truthfully receives, idles for a period, or reports another vector; the payoff is
  :math:`\sum_t \gamma^t u_i^t` in tasks with true demands.

Tie-breaking: a lie counts only if it wins under every user order the mechanism could use. Each
order is a deterministic tie rule (greedy schedulers serve the lowest index first among equals; an
MILP returns one of its optima), so the lie is compared with the truth *under the same order*:
the gain is :math:`\min_\pi (u^{lie}_\pi - u^{truth}_\pi)` (``robustness="pointwise"``, the
default): whatever tie rule the mechanism uses, lying pays. ``robustness="uniform"`` asks more,
:math:`\min_\pi u^{lie}_\pi - \max_\pi u^{truth}_\pi` (the lie's worst order beats the truth's best
order, even when the two come from different tie rules); the two agree when the outcome does not
depend on the order. The divisible water-filling mechanisms (max-min, DRF, SDRF, asset fairness)
have a unique allocation, independent of the order of users (equal levels are treated
symmetrically, ``_waterfill``), so their order only moves floating-point rounding;
``tie_orders="auto"`` therefore confirms each candidate on the identity and the reversed order (a
cheap guard against rounding), and on every order (up to 24) for task and time-varying instances,
where greedy and MILP mechanisms really break ties by index.

Time-varying instances (TV-TSF): a lie is a report of per-slot demands and submissions
(:mod:`proofs_check._tv_lies`), scored by the true tasks the received bundles run, discounted by
``gamma`` per slot (1 for the stage game).

Gains are floats from the mechanisms' floating-point output; a lie counts when its gain exceeds
``atol`` (default 1e-7 in utility units), far above the mechanisms' rounding (about 1e-12).

References
----------
.. [1] A. Ghodsi et al., NSDI 2011, Section 4 (CEEI is not strategy-proof).
.. [2] D. Parkes, A. Procaccia, N. Shah, ACM TEAC 2015 (indivisible tasks).
.. [3] H. Sadok, M. Campista, L. Costa, SBRC 2018, Props. 2 and 3.
"""

from __future__ import annotations

import itertools
import logging
import math
import time
from typing import Any, Callable, Iterable, Iterator, Mapping

import numpy as np

from fairalloc import TaskInstance, TimeVaryingInstance, shares
from fairalloc.rng import as_generator
from fairalloc.errors import InvalidInstanceError

from . import _setting, _tv_lies
from .repeated import RepeatedGame, play
from .verdict import Verdict, jsonable

__all__ = ["find_profitable_misreport", "find_profitable_deviation", "STAGE_FAMILIES", "REPEATED_FAMILIES",
           "TV_REPEATED_FAMILIES", "stage_lies", "true_utility_of_report"]

logger = logging.getLogger(__name__)

STAGE_FAMILIES = ("scale", "deflate", "cap", "drop", "inflate", "bundle")
REPEATED_FAMILIES = ("cap", "idle", "vector")
#: slot-by-slot lies of a time-varying instance (its repeated game), :mod:`proofs_check._tv_lies`
TV_REPEATED_FAMILIES = _tv_lies.REPEATED
_UP = (1.5, 2.0, 4.0, 10.0)
_DOWN = (0.9, 0.5, 0.1)
_CAP = (0.5, 0.9, 1.1, 2.0, 10.0)
_PHI = (0.999, 0.99, 0.95, 0.9, 0.75, 0.5, 0.25)


# --------------------------------------------------------------------------------------------
# stage game
# --------------------------------------------------------------------------------------------
def _pooled_lies(theta: np.ndarray, families, rng) -> Iterator[tuple[str, np.ndarray]]:
    pos = np.flatnonzero(theta > 0)
    m = theta.shape[0]
    if "scale" in families:
        for f in _UP:
            for r in pos:
                lie = theta.copy(); lie[r] *= f
                yield "scale", lie
    if "deflate" in families:
        for f in _DOWN:
            for r in pos:
                lie = theta.copy(); lie[r] *= f
                yield "deflate", lie
    if "drop" in families and pos.size > 1:
        for r in pos:
            lie = theta.copy(); lie[r] = 0.0
            yield "drop", lie
    if "cap" in families:
        for f in _CAP:
            yield "cap", theta * f
    rand = [f for f in ("inflate", "deflate", "scale") if f in families]
    if not rand:
        return
    scale = float(theta.max())
    for k in itertools.count():
        fam = rand[k % len(rand)]
        if fam == "inflate":
            lie = theta * rng.uniform(1.0, 3.0, m)
            zero = theta <= 0
            lie[zero] = np.where(rng.random(zero.sum()) < 0.5, rng.uniform(0.0, 0.5, zero.sum()) * scale, 0.0)
        elif fam == "deflate":
            lie = theta * rng.uniform(0.2, 1.0, m)
        else:
            lie = theta.copy()
            r = pos[rng.integers(pos.size)]
            lie[r] *= math.exp(rng.uniform(-2.5, 2.5))
        yield fam, lie


def _task_lies(d: np.ndarray, K: int, families, rng) -> Iterator[tuple[str, np.ndarray, int]]:
    pos = np.flatnonzero(d > 0)
    if "bundle" in families:
        for k in (2, 3, 4):
            if K >= 2:
                yield "bundle", d * k, int(math.ceil(K / k))
    if "cap" in families:
        for KK in sorted({max(1, K - 1), K + 1, 2 * K, max(1, K // 2)} - {K}):
            yield "cap", d.copy(), int(KK)
    if "scale" in families:
        for f in _UP[:2]:
            for r in pos:
                lie = d.copy(); lie[r] *= f
                yield "scale", lie, K
    if "deflate" in families:
        for f in _DOWN[:2]:
            for r in pos:
                lie = d.copy(); lie[r] *= f
                yield "deflate", lie, K
    if "inflate" in families:
        for _ in itertools.count():
            yield "inflate", d * rng.uniform(1.0, 2.0, d.shape[0]), K


def stage_lies(instance, user: int, *, families=STAGE_FAMILIES, rng=None) -> Iterator[dict[str, Any]]:
    """The lies :func:`find_profitable_misreport` tries for ``user``, deterministic grid first, then random.

    Each lie is a dict: pooled ``{"family", "demands"}`` (the reported total demand row); task
    instances ``{"family", "task_demands", "tasks"}``.

    Parameters
    ----------
    instance : Instance or TaskInstance or TimeVaryingInstance
        The true instance.
    user : int
        The liar's index.
    families : iterable of str, default STAGE_FAMILIES
        Lie families to draw from (:data:`STAGE_FAMILIES`).
    rng : int or numpy.random.Generator, optional
        Seeds the random families (``"inflate"``, ``"deflate"``, ``"scale"``).

    Yields
    ------
    dict
        One lie; the generator is infinite when a random family is selected (take what you need,
        e.g. with :func:`itertools.islice`).

    Examples
    --------
    The grid comes first: ``"scale"`` multiplies one resource of the true total demand
    (100, 400) by 1.5, then by 2, ...:

    >>> import itertools
    >>> import fairalloc as fa
    >>> inst = fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[100, 100], capacities=[9, 18])
    >>> [(l["family"], l["demands"].tolist()) for l in itertools.islice(stage_lies(inst, 0, rng=0), 3)]
    [('scale', [150.0, 400.0]), ('scale', [100.0, 600.0]), ('scale', [200.0, 400.0])]
    """
    rng = as_generator(rng)
    if isinstance(instance, TimeVaryingInstance):
        yield from _tv_lies.tv_lies(instance, user, families, rng)
    elif isinstance(instance, TaskInstance):
        for fam, d, K in _task_lies(np.array(instance.task_demands[user], float), int(instance.tasks[user]),
                                    families, rng):
            yield {"family": fam, "task_demands": d, "tasks": K}
    else:
        for fam, lie in _pooled_lies(np.array(instance.demands[user], float), families, rng):
            yield {"family": fam, "demands": lie}


def _apply_lie(instance, user: int, lie: Mapping[str, Any]):
    if isinstance(instance, TimeVaryingInstance):
        return _tv_lies.apply_tv_lie(instance, user, lie)
    if isinstance(instance, TaskInstance):
        d = np.array(instance.task_demands, float)
        k = np.array(instance.tasks)
        d[user] = np.asarray(lie["task_demands"], float)
        k[user] = int(lie["tasks"])
        return instance.replace(task_demands=d, tasks=k)
    dem = np.array(instance.demands, float)
    dem[user] = np.asarray(lie["demands"], float)
    return instance.replace(demands=dem)


def true_utility_of_report(instance, user: int, result) -> float:
    """The TRUE utility of what ``user`` received in ``result`` (run on a possibly misreported instance).

    Pooled: :func:`fairalloc.shares.leontief_utility` of its bundle against its true total demand
    (fraction, cap 1). Task instance: tasks of its true demand that its per-server bundles
    (received tasks x reported demand) run, eligible servers only, capped at its true task count.

    Parameters
    ----------
    instance : Instance
        The TRUE pooled instance (task instances go through the search's own helper, which also
        needs the reported demand).
    user : int
        Whose utility.
    result : AllocationResult
        The mechanism's result on the (possibly misreported) instance.

    Returns
    -------
    float
        Fraction of the user's true total demand served, in [0, 1].

    Raises
    ------
    TypeError
        ``instance`` is a :class:`fairalloc.TaskInstance`.

    Examples
    --------
    In the DRF paper's example, user A (true demand 100 × (1, 4)) claiming twice the memory gets
    (1.8, 14.4) from DRF, which runs :math:`\\min(1.8/100, 14.4/400) = 0.018` of its demand, less
    than the 3/100 = 0.03 it gets truthfully:

    >>> import fairalloc as fa
    >>> inst = fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[100, 100], capacities=[9, 18])
    >>> lie = inst.replace(demands=[[100, 800], [300, 100]])
    >>> round(true_utility_of_report(inst, 0, fa.drf(lie)), 6), round(true_utility_of_report(inst, 0, fa.drf(inst)), 6)
    (0.018, 0.03)
    """
    if isinstance(instance, TaskInstance):
        raise TypeError("use _true_task_utility with the reported demand")
    return float(shares.leontief_utility(result.allocation[user], instance.demands[user]))


def _true_task_utility(instance: TaskInstance, user: int, reported_demand, tasks_row,
                       divisible: bool = False) -> float:
    bundles = np.asarray(tasks_row, float)[:, None] * np.asarray(reported_demand, float)[None, :]
    if divisible:                                  # fractional tasks: no floor per server
        per = shares.leontief_utility(bundles, instance.task_demands[user], cap=np.inf)
    else:
        per = shares.tasks_that_fit(bundles, instance.task_demands[user])
    per = np.where(instance.placement[user], per, 0.0)
    return float(min(instance.tasks[user], per.sum()))


def _orders(n: int, tie_orders, rng, is_tasks: bool) -> list[np.ndarray]:
    ident = np.arange(n)
    if tie_orders == "auto":
        tie_orders = "all" if (is_tasks and n <= 4) else (24 if is_tasks else 2)
    if tie_orders == "all":
        return [np.array(p) for p in itertools.permutations(range(n))]
    k = int(tie_orders)
    out = [ident]
    if k >= 2 and n > 1:
        out.append(ident[::-1].copy())
    while len(out) < k and n > 2:
        out.append(rng.permutation(n))
    return out


def _true_value(instance, user: int, lie, row, gamma: float, divisible: bool = False) -> float:
    """The TRUE utility of ``user`` from its row of a result (``lie`` None: truthful report)."""
    if isinstance(instance, TimeVaryingInstance):
        rep = instance.task_demands[user] if lie is None else lie["task_demands"]
        return _tv_lies.true_tv_payoff(instance, user, rep, row, gamma)
    if isinstance(instance, TaskInstance):
        rep = instance.task_demands[user] if lie is None else lie["task_demands"]
        return _true_task_utility(instance, user, rep, row, divisible)
    return float(shares.leontief_utility(row, instance.demands[user]))


def _row(instance, res, pos: int):
    return np.asarray(res.tasks)[pos] if isinstance(instance, (TaskInstance, TimeVaryingInstance)) else \
        res.allocation[pos]


def _utility_under(mechanism, instance, commitments, user, lie, perm, gamma: float = 1.0,
                   divisible: bool = False) -> float | None:
    """Liar's (or truthful user's, lie=None) true utility when users are ordered by ``perm``."""
    inst = instance if lie is None else _apply_lie(instance, user, lie)
    pinst, pc = _setting.permute(inst, perm, commitments)
    res = _setting.call(mechanism, pinst, pc)
    if not res.success:
        return None
    pos = int(np.flatnonzero(np.asarray(perm) == user)[0])
    return _true_value(instance, user, lie, _row(instance, res, pos), gamma, divisible)


def find_profitable_misreport(mechanism: Callable, instance, /, user: int | None = None, *,
                              commitments: Any = None, budget: int = 200, time_limit: float | None = None,
                              rng: Any = None, families: Iterable[str] = STAGE_FAMILIES,
                              atol: float = 1e-7, tie_orders: Any = "auto", robustness: str = "pointwise",
                              gamma: float = 1.0, divisible: bool = False,
                              candidates: Iterable[Mapping[str, Any]] = ()) -> Verdict:
    """Search for a report that gives ``user`` (default: each user) more TRUE utility (stage game).

    Parameters
    ----------
    mechanism : callable
        ``mechanism(instance[, commitments=...]) -> AllocationResult``.
    instance : Instance, TaskInstance or TimeVaryingInstance
    user : int, optional
        The liar; default every user in turn (the budget is per user).
    commitments : array_like (n, m), optional
        Passed to stateful pooled mechanisms (SDRF stage game).
    budget : int
        Lies tried per user (mechanism runs on a lie; confirmation runs are extra).
    time_limit : float, optional
        Seconds for the whole search; it stops early, saying so in ``stats``.
    rng : int or numpy.random.Generator, optional
        For the random lie families.
    families : iterable of str
        Among :data:`STAGE_FAMILIES` (time-varying instances also :data:`TV_REPEATED_FAMILIES`).
    atol : float
        A lie must gain more than this (utility units: fraction of demand, or tasks).
    tie_orders : "auto", "all" or int
        User orders a winning lie is confirmed under (see the module docstring).
    robustness : {"pointwise", "uniform"}
        How a lie must win across those orders (module docstring).
    gamma : float in (0, 1]
        Time-varying instances: discount per slot of the liar's true tasks.
    divisible : bool
        Task instances: the mechanism allocates fractional tasks (true utility without floors).
    candidates : iterable of dict
        Lies to try first (e.g. a known witness, when shrinking).

    Returns
    -------
    Verdict
        ``holds`` True when no profitable lie was found within the budget (not a proof); False with
        the lie as witness (``report``, utilities, ``gain``, ``tie_orders``); None if the mechanism failed
        on the truthful instance.

    Examples
    --------
    CEEI is manipulable (Ghodsi et al. Section 4.2); DRF is not:

    >>> import fairalloc as fa
    >>> inst = fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[100, 100], capacities=[9, 18])
    >>> find_profitable_misreport(fa.ceei, inst, rng=0, budget=60, atol=1e-6).holds
    False
    >>> find_profitable_misreport(fa.drf, inst, rng=0, budget=60).holds
    True
    """
    rng = as_generator(rng)
    families = tuple(families)
    setting = _setting.setting_of(instance)
    known = STAGE_FAMILIES + (TV_REPEATED_FAMILIES if setting == "time-varying" else ())
    unknown = set(families) - set(known)
    if unknown:
        raise ValueError(f"unknown lie families {sorted(unknown)}; choose among {known}")
    if robustness not in ("pointwise", "uniform"):
        raise ValueError(f"robustness={robustness!r} must be 'pointwise' or 'uniform'")
    gamma = float(gamma)
    if not (0 < gamma <= 1):
        raise ValueError(f"gamma={gamma!r} must be in (0, 1]")
    is_tasks = setting != "pooled"
    unit = {"pooled": "fraction of the user's total demand (SDRF Eq. 1)", "servers": "tasks",
            "time-varying": f"true tasks started over the horizon (discount {gamma:g} per slot)"}[setting]
    n = instance.n_agents
    users = range(n) if user is None else [int(user)]
    t0 = time.perf_counter()
    tried = runs = 0
    stopped = ""
    truth_cache: dict[int, list[float]] = {}
    base = _setting.call(mechanism, instance, commitments)
    runs += 1
    if not base.success:
        return Verdict(None, None, f"mechanism failed on the truthful instance: {base.status.value}", "stage",
                       "strategy-proof", status=base.status)
    orders = _orders(n, tie_orders, rng, is_tasks and not divisible)
    best_gain = -np.inf
    for i in users:
        u_truth0 = _true_value(instance, i, None, _row(instance, base, i), gamma, divisible)
        lies = itertools.chain(({"family": "candidate", **dict(c)} for c in candidates),
                               stage_lies(instance, i, families=families, rng=rng))
        for lie in itertools.islice(lies, budget):
            if time_limit is not None and time.perf_counter() - t0 > time_limit:
                stopped = f"time limit {time_limit}s reached"
                break
            try:
                u_lie = _utility_under(mechanism, instance, commitments, i, lie, np.arange(n), gamma, divisible)
            except InvalidInstanceError:
                continue                                     # not a valid report (e.g. task fits nowhere)
            tried += 1
            runs += 1
            if u_lie is None:
                continue
            gain = u_lie - u_truth0
            best_gain = max(best_gain, gain)
            if gain <= atol:
                continue
            # confirm under every tie order
            if i not in truth_cache:
                vals = [_utility_under(mechanism, instance, commitments, i, None, p, gamma, divisible) for p in orders]
                runs += len(orders)
                if any(v is None for v in vals):
                    continue                                 # the mechanism fails on some order
                truth_cache[i] = vals
            truth_vals = truth_cache[i]
            try:
                lies_u = [_utility_under(mechanism, instance, commitments, i, lie, p, gamma, divisible) for p in orders]
            except InvalidInstanceError:
                continue
            runs += len(orders)
            if any(v is None for v in lies_u):
                continue
            if robustness == "pointwise":
                robust = min(lv - tv for lv, tv in zip(lies_u, truth_vals))
            else:
                robust = min(lies_u) - max(truth_vals)
            if robust <= atol:
                logger.debug("lie %s wins %.3g but not under every order (%.3g)", lie["family"], gain, robust)
                continue
            lie_json = {k: jsonable(v) for k, v in lie.items()}
            witness = {"kind": "misreport", "setting": setting, "axiom": "strategy-proof", "variant": "stage",
                       "mechanism": _setting.mechanism_name(mechanism), "instance": instance.to_dict(), "user": int(i),
                       "report": lie_json, "family": lie["family"], "truthful_utility": truth_vals[0],
                       "misreport_utility": lies_u[0], "gain": robust, "tie_orders": len(orders),
                       "robustness": robustness, "gains_per_order": [lv - tv for lv, tv in zip(lies_u, truth_vals)],
                       "utility_unit": unit, "atol": atol}
            if setting == "time-varying":
                witness["gamma"] = gamma
            if divisible:
                witness["divisible"] = True
            if commitments is not None:
                witness["commitments"] = jsonable(np.asarray(commitments, float))
            return Verdict(False, witness, f"user {i} gains {robust:.6g} by a '{lie['family']}' lie "
                           f"({truth_vals[0]:.6g} -> {lies_u[0]:.6g}; {robustness} over {len(orders)} user orders)",
                           "stage", "strategy-proof", -robust,
                           {"lies_tried": tried, "mechanism_runs": runs, "seconds": time.perf_counter() - t0})
        if stopped:
            break
    stats = {"lies_tried": tried, "mechanism_runs": runs, "seconds": time.perf_counter() - t0,
             "best_gain": None if best_gain == -np.inf else float(best_gain)}
    if stopped:
        stats["stopped"] = stopped
    return Verdict(True, None, f"no profitable lie among {tried} tried{' (' + stopped + ')' if stopped else ''}",
                   "stage", "strategy-proof", None if best_gain == -np.inf else -float(best_gain), stats)


# --------------------------------------------------------------------------------------------
# repeated game
# --------------------------------------------------------------------------------------------
def _deviations(game: RepeatedGame, user: int, truthful, families, rng) -> Iterator[dict[str, Any]]:
    """Single-period deviations on a grid, then random ones (one or two periods)."""
    T = game.n_periods
    present = [t for t in range(T) if game.tasks[t, user] > 0]
    got = truthful.utilities[:, user]
    d = game.task_demands
    if "cap" in families:
        for t in present:
            if got[t] <= 0:
                continue
            for phi in _PHI:
                yield {"kind": "cap", "reports": {t: (d[t, user].copy(), phi * got[t])}, "phi": phi}
    if "idle" in families:
        for t in present:
            yield {"kind": "idle", "reports": {t: (d[t, user].copy(), 0.0)}}
    if "vector" in families:
        for t in present:
            pos = np.flatnonzero(d[t, user] > 0)
            for r in range(game.n_resources):
                for f in (2.0, 0.5):
                    if d[t, user, r] <= 0 or (f < 1 and pos.size == 0):
                        continue
                    lie = d[t, user].copy(); lie[r] *= f
                    yield {"kind": "vector", "reports": {t: (lie, game.tasks[t, user])}}
    if not present:
        return
    kinds = [k for k in ("cap", "vector", "idle") if k in families]
    if not kinds:
        return
    while True:
        n_dev = 1 if (len(present) == 1 or rng.random() < 0.6) else 2
        periods = rng.choice(present, size=n_dev, replace=False)
        reports = {}
        kind = kinds[rng.integers(len(kinds))]
        for t in periods:
            t = int(t)
            if kind == "cap":
                reports[t] = (d[t, user].copy(), rng.uniform(0.3, 1.0) * max(got[t], 1e-9))
            elif kind == "idle":
                reports[t] = (d[t, user].copy(), 0.0)
            else:
                lie = d[t, user] * np.exp(rng.uniform(-1.5, 1.5, game.n_resources))
                if rng.random() < 0.3:
                    lie[rng.integers(game.n_resources)] += rng.uniform(0, 1) * d[t, user].max()
                reports[t] = (lie, game.tasks[t, user])
        yield {"kind": f"random-{kind}", "reports": reports}


def _payoff_under(dynamics, game, user, reports, gamma, perm):
    g = game.permuted(perm)
    pos = int(np.flatnonzero(np.asarray(perm) == user)[0])
    tr = play(dynamics, g, user=pos, reports=reports)
    if tr.failures:
        return None, tr
    return tr.payoff(pos, gamma), tr


def find_profitable_deviation(dynamic_mechanism, periods: RepeatedGame, user: int | None = None,
                              gamma: float = 0.9, *, budget: int = 200, time_limit: float | None = None,
                              rng: Any = None, families: Iterable[str] = REPEATED_FAMILIES,
                              atol: float = 1e-7, confirm_reversed: bool = True,
                              candidates: Iterable[Mapping[int, tuple[Any, Any]]] = ()) -> Verdict:
    r"""Search for a deviation that raises a user's discounted payoff in the repeated game.

    Parameters
    ----------
    dynamic_mechanism : SDRFDynamics or StatelessDynamics
        Allocates each period from the reports and the state (commitments) and updates the state.
    periods : RepeatedGame
        True demands per period (they may change between periods; 0 tasks = absent).
    user : int, optional
        The deviating user (default: each in turn; the budget is per user).
    gamma : float in (0, 1]
        The user's discount: payoff :math:`\sum_t \gamma^t u_i^t` (tasks, true demands).
    budget : int
        Deviations tried per user.
    families : iterable of str
        ``"cap"`` (take only a fraction phi of the tasks it would receive truthfully in one period),
        ``"idle"`` (stay away for a period), ``"vector"`` (report another per-task vector).
    atol : float
        A deviation counts when it gains more than ``atol`` tasks.
    confirm_reversed : bool
        Re-play a winning deviation with the users in reversed order (see the tie-breaking note of the
        module docstring) and keep the smaller gain.
    candidates : iterable of dict
        Deviations ``{period: (task_demand, tasks)}`` to try first.

    Returns
    -------
    Verdict
        Witness: the game, the deviation, both trajectories (allocations, commitments, per-period
        utilities) and both payoffs.

    Examples
    --------
    SDRF with two resources and demand vectors that change (our analysis, ``axioms.md``): user 0 takes
    99% of its tasks in period 0, user 1 grows on resource 1, its commitment rises and user 0 gets
    more in period 1:

    >>> from proofs_check.repeated import RepeatedGame, SDRFDynamics
    >>> g = RepeatedGame([1, 1], [[[1, 0.05], [0.1, 1]], [[1, 0], [1, 0]]], [[10, 10], [10, 10]])
    >>> v = find_profitable_deviation(SDRFDynamics(0.5), g, user=0, gamma=1.0, rng=0)
    >>> v.holds, v.witness["deviation_kind"], v.witness["phi"], v.witness["gain"] > 0
    (False, 'cap', 0.999, True)
    """
    rng = as_generator(rng)
    families = tuple(families)
    unknown = set(families) - set(REPEATED_FAMILIES)
    if unknown:
        raise ValueError(f"unknown deviation families {sorted(unknown)}; choose among {REPEATED_FAMILIES}")
    gamma = float(gamma)
    if not (0 < gamma <= 1):
        raise ValueError(f"gamma={gamma!r} must be in (0, 1]")
    game = periods
    n = game.n_agents
    ident = np.arange(n)
    t0 = time.perf_counter()
    tried = 0
    stopped = ""
    best = -np.inf
    users = range(n) if user is None else [int(user)]
    for i in users:
        truth_pay, truth_tr = _payoff_under(dynamic_mechanism, game, i, None, gamma, ident)
        if truth_pay is None:
            return Verdict(None, None, f"mechanism failed in the truthful play: {truth_tr.failures[0]}", "repeated",
                           "strategy-proof", status=truth_tr.failures[0][1])
        devs = itertools.chain(({"kind": "candidate", "reports": dict(c)} for c in candidates),
                               _deviations(game, i, truth_tr, families, rng))
        for dev in itertools.islice(devs, budget):
            if time_limit is not None and time.perf_counter() - t0 > time_limit:
                stopped = f"time limit {time_limit}s reached"
                break
            try:
                pay, tr = _payoff_under(dynamic_mechanism, game, i, dev["reports"], gamma, ident)
            except InvalidInstanceError:
                continue
            tried += 1
            if pay is None:
                continue
            gain = pay - truth_pay
            best = max(best, gain)
            if gain <= atol:
                continue
            if confirm_reversed and n > 1:
                rev = ident[::-1].copy()
                tp, _ = _payoff_under(dynamic_mechanism, game, i, None, gamma, rev)
                dp, _ = _payoff_under(dynamic_mechanism, game, i, dev["reports"], gamma, rev)
                if tp is None or dp is None:
                    continue
                gain = min(gain, dp - tp, pay - tp, dp - truth_pay)
                if gain <= atol:
                    continue
            kind = dev["kind"]
            if kind == "candidate":
                ks = {("idle" if float(k) == 0 else "cap" if np.allclose(d, game.task_demands[t, i]) else "vector")
                      for t, (d, k) in dev["reports"].items()}
                kind = ks.pop() if len(ks) == 1 else "mixed"
            witness = {
                "kind": "repeated", "axiom": "strategy-proof", "variant": "repeated",
                **dynamic_mechanism.params(), "gamma": gamma, "game": game.to_dict(), "user": int(i),
                "deviation": {str(t): {"task_demand": jsonable(d), "tasks": float(k)}
                              for t, (d, k) in sorted(dev["reports"].items())},
                "deviation_kind": kind.replace("random-", ""),
                "payoff_truthful": truth_pay, "payoff_deviation": pay, "gain": gain,
                "utilities_truthful": truth_tr.utilities[:, i].tolist(), "utilities_deviation": tr.utilities[:, i].tolist(),
                "truthful": truth_tr.to_dict(), "deviating": tr.to_dict(), "utility_unit": "tasks", "atol": atol}
            if "phi" in dev:
                witness["phi"] = dev["phi"]
            return Verdict(False, witness, f"user {i} gains {gain:.6g} tasks (discounted, gamma={gamma:g}) by a "
                           f"'{witness['deviation_kind']}' deviation in period(s) {sorted(dev['reports'])}",
                           "repeated", "strategy-proof", -gain,
                           {"deviations_tried": tried, "seconds": time.perf_counter() - t0})
        if stopped:
            break
    stats = {"deviations_tried": tried, "seconds": time.perf_counter() - t0,
             "best_gain": None if best == -np.inf else float(best)}
    if stopped:
        stats["stopped"] = stopped
    return Verdict(True, None, f"no profitable deviation among {tried} tried{' (' + stopped + ')' if stopped else ''}",
                   "repeated", "strategy-proof", None if best == -np.inf else -float(best), stats)
