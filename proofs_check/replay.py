"""Re-verify a witness from its JSON alone: re-run the mechanism, recompute the numbers exactly.

:func:`replay` reads a witness produced by any checker (a dict, or a path to a JSON file), rebuilds
the instance (or game), re-runs the mechanism named in it where there is one, checks that it
reproduces the stored allocation, and recomputes the violated comparison in exact rational
arithmetic (``fractions.Fraction`` of the floating-point allocation, through
:func:`fairalloc.shares.leontief_utility`). It does not call the predicate that produced the witness:
each kind of violation is re-derived here from its definition in ``axioms.md``.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

import fairalloc as fa
from fairalloc import shares

from ._inputs import exact_array
from .cases import Case
from .claims import all_mechanisms
from .repeated import RepeatedGame, SDRFDynamics, StatelessDynamics, UsageDynamics, play
from ._replay_tv import no_envy_free_placement, replay_schedule, replay_tv_misreport, tv_from_witness
from .verdict import Replay, jsonable

__all__ = ["Replay", "replay", "resolve_mechanism"]


def resolve_mechanism(name: str) -> Callable:
    """A claims-table key (``"weighted_drf"``) or a fairalloc function name (``"drf"``).

    Parameters
    ----------
    name : str
        A key of :func:`proofs_check.claims.all_mechanisms` whose row is implemented (its callable,
        with the row's keyword arguments bound), else a public function of :mod:`fairalloc`.

    Returns
    -------
    callable

    Raises
    ------
    KeyError
        ``name`` is neither.

    Examples
    --------
    >>> resolve_mechanism("drf").__name__
    'drf'
    >>> resolve_mechanism("drf_indivisible_stop").keywords        # the row binds blocking="stop"
    {'blocking': 'stop'}
    >>> resolve_mechanism("nope")
    Traceback (most recent call last):
    KeyError: "cannot resolve mechanism 'nope' (not a claims key nor a fairalloc function)"
    """
    info = all_mechanisms().get(name)
    if info is not None and info.implemented:
        return info.resolve()
    fn = getattr(fa, name, None)
    if callable(fn):
        return fn
    raise KeyError(f"cannot resolve mechanism {name!r} (not a claims key nor a fairalloc function)")


def _F(x) -> Fraction:
    if isinstance(x, str) and x in ("inf", "-inf"):
        raise ValueError("infinite value in witness")
    return Fraction(x) if not isinstance(x, float) else Fraction(x)


def _util(bundle, demand) -> Fraction:
    return shares.leontief_utility(exact_array(bundle), exact_array(demand)).item()


def _mech_name(w: Mapping[str, Any]) -> str | None:
    if "claim" in w:
        return w["claim"]["mechanism"]
    return w.get("mechanism")


def _instance_and_commitments(w: Mapping[str, Any]):
    case = Case.from_dict(w["case"]) if "case" in w else None
    if case is not None and case.instance is not None:
        return case.instance, case.commitments
    inst = fa.Instance.from_dict(w["instance"])
    c = w.get("commitments")
    return inst, None if c is None else np.asarray(c, float)


def _replay_servers(w: Mapping[str, Any]) -> Replay:
    """Task allocations on servers: recount tasks with :func:`fairalloc.shares.tasks_that_fit`."""
    ti = _task_instance(w)
    x = np.asarray(w["tasks"], float)
    numbers: dict[str, Any] = {}
    name = _mech_name(w)
    if name is not None:                                  # the mechanism must reproduce the allocation
        rerun = np.asarray(resolve_mechanism(name)(ti).tasks, float)
        diff = float(np.max(np.abs(rerun - x))) if rerun.shape == x.shape else np.inf
        numbers["rerun_max_difference"] = diff
        if diff > 1e-6 * max(1.0, float(ti.tasks.max())):
            return Replay(False, f"re-running {name} gives another allocation (max difference {diff:.3g})", numbers)
    if w["axiom"] in ("sharing-incentive", "envy-free") and w["variant"] == "commitment":
        out = _replay_server_commitment(w, ti, x)
    else:
        out = _replay_server_arrays(w, ti.task_demands, ti.placement, ti.tasks.astype(float), ti.cluster.capacities,
                                    ti.weights, x, bool(w.get("divisible", False)))
    return Replay(out.confirmed, out.detail, {**numbers, **out.numbers})


def _replay_server_commitment(w: Mapping[str, Any], ti, x) -> Replay:
    """Commitment-adjusted SI / EF on servers (``axioms.md``, SDRF notes), in dominant-share units, exactly."""
    d = exact_array(ti.task_demands)
    tot = exact_array(ti.cluster.totals)
    mu = shares.dominant_shares(d, tot)
    X = [Fraction(int(round(v))) if not w.get("divisible") else Fraction(float(v)) for v in x.sum(axis=1)]
    wts = exact_array(ti.weights)
    tol = Fraction(w.get("atol", 0.0))
    if w["axiom"] == "sharing-incentive":
        i = int(w["user"])
        g = shares.commitment_entitlements(exact_array(ti.commitments), wts)[i]
        ref = min(Fraction(int(ti.tasks[i])) * mu[i], g)
        have = X[i] * mu[i]
        return Replay(have < ref - tol, f"user {i}: dominant share {float(have):.9g} vs entitlement {float(ref):.9g} "
                      "(exact)", {"have": have, "reference": ref})
    i, j = int(w["envious"]), int(w["envied"])
    ct = shares.dominant_commitment(exact_array(ti.commitments))
    P = ti.placement
    uij = sum(float(shares.tasks_that_fit(x[j, l] * ti.task_demands[j], ti.task_demands[i]))
              for l in range(ti.n_servers) if P[i, l])
    uij = Fraction(min(float(ti.tasks[i]), uij))
    gap = shares.commitment_envy_gap(mu[i] * X[i], mu[i] * uij, ct[i], ct[j], wts[i], wts[j])
    ok = uij > X[i] and X[j] > 0 and X[i] < int(ti.tasks[i]) and gap > tol
    return Replay(ok, f"user {i} vs user {j}: commitment-adjusted envy {float(gap):.9g} (exact)", {"gap": gap})


def _replay_server_arrays(w: Mapping[str, Any], d, P, K, caps, weights, x, divisible: bool) -> Replay:
    """The violated comparison of a server witness, recomputed on arrays (a task instance or one slot)."""
    n, M = x.shape
    P = np.asarray(P, bool)
    tol = float(w.get("atol", 0.0))
    fit = (lambda b, dd: float(shares.leontief_utility(b, dd, cap=np.inf))) if divisible else \
        (lambda b, dd: float(shares.tasks_that_fit(b, dd)))
    X = x.sum(axis=1)

    def value(i, bundles):                               # u_i of per-server bundles (M, K)
        return min(K[i], sum(fit(bundles[l], d[i]) for l in range(M) if P[i, l]))

    axiom, variant = w["axiom"], w["variant"]
    if axiom == "sharing-incentive" and variant != "commitment":
        i = int(w["user"])
        share = weights[i] / weights.sum() if variant == "weighted" else 1.0 / n
        ref = value(i, caps * share)
        return Replay(X[i] < ref - tol, f"user {i}: {X[i]:g} tasks vs fair-share value {ref:g}",
                      {"have": X[i], "reference": ref})
    if axiom == "envy-free" and w.get("placement_mode", "given") == "given" and variant != "commitment":
        i, j = int(w["envious"]), int(w["envied"])
        uij = value(i, x[j][:, None] * d[j][None, :])
        gap = uij * (weights[i] / weights[j] if variant == "weighted" else 1.0) - X[i]
        return Replay(X[i] < K[i] and gap > tol, f"user {i} values user {j}'s bundles at {uij:g} tasks vs own {X[i]:g}",
                      {"u_own": X[i], "u_other": uij})
    if axiom == "envy-free" and w.get("placement_mode") == "any" and variant in ("plain", "weighted"):
        return no_envy_free_placement(d, P, K, caps, weights, X, divisible=divisible, weighted=variant == "weighted")
    if axiom == "ef1":
        i, j = int(w["envious"]), int(w["envied"])
        B = x[j][:, None] * d[j][None, :]
        uij = value(i, B)
        if variant == "gain":
            return Replay(uij > X[i] + 1 + tol, f"u_{i}(A_{j}) = {uij:g} vs x_{i} + 1 = {X[i] + 1:g}", {"u_other": uij})
        after = []
        for l in np.flatnonzero(x[j] >= 1):
            B2 = B.copy()
            B2[l] = (x[j, l] - 1) * d[j]
            after.append(value(i, B2))
        best = min(after) if after else 0.0
        return Replay(best > X[i] + tol, f"after removing any one of user {j}'s tasks user {i} still values "
                      f"them at >= {best:g} > {X[i]:g}", {"best_after_removal": best})
    if axiom in ("non-wasteful", "bottleneck"):
        i, l = int(w["user"]), int(w["server"])
        left = caps[l] - x[:, l] @ d
        room = fit(np.maximum(left, 0.0), d[i])
        ok = X[i] < K[i] - tol and P[i, l] and (room >= 1 if not divisible else room > tol)
        return Replay(ok, f"user {i} unsatisfied; {room:g} more of its tasks fit on server {l}", {"room": room})
    if axiom == "pareto":
        y = np.asarray(w["improved_tasks"], float)
        feasible = (np.all(y >= -1e-9) and np.all(y[~P] <= 1e-9) and np.all(y.sum(axis=1) <= K + 1e-9)
                    and np.all(y.T @ d <= caps * (1 + 1e-9) + 1e-9)
                    and (divisible or np.allclose(y, np.round(y))))
        Y = y.sum(axis=1)
        nobody_loses = np.all(Y >= X - 1e-9)
        gain = Y.sum() - X.sum() if variant == "strong" else float(np.min((Y - X)[X < K - tol], initial=np.inf))
        need = (1 - 1e-6) if not divisible else tol
        ok = bool(feasible and nobody_loses and gain >= need)
        return Replay(ok, f"improved tasks feasible={feasible}, nobody loses={nobody_loses}, gain {gain:g}",
                      {"gain": gain})
    return Replay(False, f"replay of server witnesses for {axiom}/{variant} is not supported "
                  "(the commitment variants need the checker itself)")


def _replay_allocation(w: Mapping[str, Any]) -> Replay:
    if w.get("setting") == "servers":
        return _replay_servers(w)
    if w.get("setting") == "time-varying":
        return replay_schedule(w, resolve_mechanism, _replay_server_arrays)
    inst, c = _instance_and_commitments(w)
    A = np.asarray(exact_array(w["allocation"]), dtype=object)
    numbers: dict[str, Any] = {}
    name = _mech_name(w)
    if name is not None:
        fn = resolve_mechanism(name)
        res = fn(inst) if c is None else fn(inst, commitments=c)
        diff = float(np.max(np.abs(np.asarray(res.allocation, float) - np.asarray(A, float))))
        numbers["rerun_max_difference"] = diff
        if diff > 1e-6 * max(1.0, float(np.max(inst.capacities))):
            return Replay(False, f"re-running {name} gives another allocation (max difference {diff:.3g})", numbers)
        A = exact_array(res.allocation)
    theta = exact_array(inst.demands)
    C = exact_array(inst.capacities)
    wts = exact_array(inst.weights)
    tol = Fraction(w.get("atol", 0.0))
    n = inst.n_agents
    axiom, variant = w["axiom"], w["variant"]
    u = [_util(A[i], theta[i]) for i in range(n)]
    numbers["utilities"] = u
    if axiom == "sharing-incentive":
        i = int(w["user"])
        if variant == "commitment":
            s_i = shares.dominant_shares(A, C)[i]
            D_i = shares.dominant_shares(theta, C)[i]
            g = shares.commitment_entitlements(exact_array(c), wts)[i]
            ref, have = min(D_i, g), s_i
        else:
            share = wts[i] / sum(wts) if variant == "weighted" else Fraction(1, n)
            ref, have = _util([x * share for x in C], theta[i]), u[i]
        numbers.update(user=i, have=have, reference=ref)
        ok = have < ref - tol
        return Replay(ok, f"user {i}: {float(have):.9g} {'<' if ok else '>='} {float(ref):.9g} (exact)", numbers)
    if axiom == "envy-free":
        i, j = int(w["envious"]), int(w["envied"])
        uij = _util(A[j], theta[i])
        if variant == "plain":
            gap = uij - u[i]
        elif variant == "weighted":
            gap = uij * wts[i] / wts[j] - u[i]
        else:
            ct = shares.dominant_commitment(exact_array(c))
            s = shares.dominant_shares(A, C)
            D_i = shares.dominant_shares(theta, C)[i]
            gap = shares.commitment_envy_gap(s[i], D_i * uij, ct[i], ct[j], wts[i], wts[j]) \
                if uij > u[i] else Fraction(0)
        numbers.update(envious=i, envied=j, u_own=u[i], u_other=uij, gap=gap)
        ok = u[i] < 1 and gap > tol
        return Replay(ok, f"user {i} vs user {j}: envy {float(gap):.9g} (exact, tolerance {float(tol):g})", numbers)
    if axiom in ("bottleneck", "non-wasteful"):
        i = int(w["user"])
        if w.get("reason") == "bundle not proportional to the demand":
            r = int(w["resource"])
            extra = A[i][r] - u[i] * theta[i][r]
            numbers.update(user=i, resource=r, unused=extra)
            return Replay(extra / C[r] > tol, f"user {i} holds {float(extra):.9g} unused of resource {r}", numbers)
        usage = [sum(A[k][r] for k in range(n)) / C[r] for r in range(inst.n_resources)]
        needs = [r for r in range(inst.n_resources) if theta[i][r] > 0]
        free = all(usage[r] < 1 - tol for r in needs)
        numbers.update(user=i, usage=usage, needs=needs)
        return Replay(u[i] < 1 - tol and free, f"user {i} unsatisfied ({float(u[i]):.9g}) with every needed "
                      f"resource below capacity: {free}", numbers)
    if axiom == "pareto":
        y = [_F(v) if not isinstance(v, str) else Fraction(v) for v in w["improved_utilities"]]
        feasible = all(sum(y[k] * theta[k][r] for k in range(n)) <= C[r] for r in range(inst.n_resources))
        dominates = all(y[k] >= min(u[k], 1) for k in range(n)) and all(y[k] <= 1 for k in range(n))
        gain = sum(y) - sum(min(x, 1) for x in u)
        numbers.update(improved=y, gain=gain, feasible=feasible)
        ok = feasible and dominates and gain > tol
        return Replay(ok, f"improved utilities feasible={feasible}, nobody worse={dominates}, "
                      f"gain {float(gain):.9g} (exact)", numbers)
    return Replay(False, f"unknown allocation axiom {axiom!r}")


def _task_instance(w: Mapping[str, Any]) -> "fa.TaskInstance":
    if "case" in w and w["case"].get("kind") == "servers":
        return Case.from_dict(w["case"]).instance
    return fa.TaskInstance.from_dict(w["instance"])


def _replay_task_misreport(w: Mapping[str, Any]) -> Replay:
    ti = _task_instance(w)
    fn = resolve_mechanism(_mech_name(w))
    i = int(w["user"])
    rep_d = np.asarray(w["report"]["task_demands"], float)
    d = np.array(ti.task_demands, float)
    k = np.array(ti.tasks)
    d[i], k[i] = rep_d, int(w["report"]["tasks"])
    lied = ti.replace(task_demands=d, tasks=k)
    from . import _setting

    divisible = bool(w.get("divisible", False))

    def true_tasks(row, reported) -> float:          # tasks of the true demand the received bundles run
        count = ((lambda b: float(shares.leontief_utility(b, ti.task_demands[i], cap=np.inf))) if divisible
                 else (lambda b: float(shares.tasks_that_fit(b, ti.task_demands[i]))))
        per = [count(row[l] * reported) if ti.placement[i, l] else 0.0 for l in range(ti.n_servers)]
        return min(float(ti.tasks[i]), sum(per))

    gains = []
    for order in (np.arange(ti.n_agents), np.arange(ti.n_agents)[::-1]):
        pos = int(np.flatnonzero(order == i)[0])
        rt = fn(_setting.permute(ti, order)[0])
        rl = fn(_setting.permute(lied, order)[0])
        gains.append(true_tasks(np.asarray(rl.tasks, float)[pos], rep_d)
                     - true_tasks(np.asarray(rt.tasks, float)[pos], ti.task_demands[i]))
    g = min(gains)
    return Replay(g > float(w.get("atol", 0.0)), f"user {i} runs {g:g} more true tasks with the lie "
                  "(both user orders)", {"gain": g})


def _replay_misreport(w: Mapping[str, Any]) -> Replay:
    if w.get("setting") == "servers":
        return _replay_task_misreport(w)
    if w.get("setting") == "time-varying":
        return replay_tv_misreport(w, resolve_mechanism(_mech_name(w)))
    inst, c = _instance_and_commitments(w)
    fn = resolve_mechanism(_mech_name(w))
    i = int(w["user"])
    lie = np.array(inst.demands, float)
    lie[i] = np.asarray(w["report"]["demands"], float)
    lied = inst.replace(demands=lie)
    theta_i = exact_array(inst.demands[i])
    worst_gain = None
    for order in (np.arange(inst.n_agents), np.arange(inst.n_agents)[::-1]):
        pos = int(np.flatnonzero(order == i)[0])
        def run(x):
            ii = fa.Instance(x.demands[order], x.capacities, x.weights[order])
            return fn(ii) if c is None else fn(ii, commitments=np.asarray(c, float)[order])
        rt, rl = run(inst), run(lied)
        g = _util(rl.allocation[pos], theta_i) - _util(rt.allocation[pos], theta_i)
        worst_gain = g if worst_gain is None else min(worst_gain, g)
    tol = Fraction(w.get("atol", 0.0))
    return Replay(worst_gain > tol, f"user {i}'s true utility rises by {float(worst_gain):.9g} with the lie "
                  f"(exact, both user orders)", {"gain": worst_gain})


def _replay_repeated(w: Mapping[str, Any]) -> Replay:
    game = RepeatedGame.from_dict(w["game"])
    name = w.get("mechanism") or _mech_name(w)
    fn = resolve_mechanism(name)
    if w.get("dynamics") == "sdrf":
        dyn = SDRFDynamics(w["delta"], mechanism=fn)
    elif w.get("dynamics") == "usage":
        dyn = UsageDynamics(fn, getattr(getattr(fn, "func", fn), "usage_step"), w["delta"])
    else:
        dyn = StatelessDynamics(fn)
    i = int(w["user"])
    gamma = Fraction(w["gamma"])
    reports = {int(t): (np.asarray(r["task_demand"], float), float(r["tasks"])) for t, r in w["deviation"].items()}
    dem = game.demands()

    def exact_payoff(tr) -> Fraction:
        tot = Fraction(0)
        for t in range(game.n_periods):
            if game.tasks[t, i] > 0:
                u = _util(tr.allocations[t, i], dem[t, i]) * Fraction(float(game.tasks[t, i]))
                tot += gamma ** t * u
        return tot

    truthful, deviating = play(dyn, game), play(dyn, game, user=i, reports=reports)
    gain = exact_payoff(deviating) - exact_payoff(truthful)
    tol = Fraction(w.get("atol", 0.0))
    return Replay(gain > tol, f"user {i}'s discounted payoff rises by {float(gain):.9g} tasks (exact on the re-run "
                  f"allocations)", {"gain": gain, "payoff_truthful": exact_payoff(truthful),
                                    "payoff_deviation": exact_payoff(deviating)})


def _replay_mechanism(w: Mapping[str, Any]) -> Replay:
    from . import _setting

    fn = resolve_mechanism(_mech_name(w))
    if w.get("setting") in ("servers", "time-varying"):
        if w["setting"] == "servers":
            ti = _task_instance(w)
        else:
            ti = tv_from_witness(w)
        before = fn(ti)
        if w["axiom"] == "population-monotone":
            k = int(w["leaving"])
            ti2, _ = _setting.remove_user(ti, k)
            loser = int(w["loser"])
            pos = loser - (1 if loser > k else 0)
        else:
            ti2 = _setting.scale_resource(ti, int(w["resource"]), float(w["factor"]))
            loser = pos = int(w["loser"])
        after = fn(ti2)
        ub = float(np.asarray(before.tasks, float)[loser].sum())       # tasks run (started over the horizon)
        ua = float(np.asarray(after.tasks, float)[pos].sum())
        return Replay(ub - ua > float(w.get("atol", 1e-7)), f"user {loser}: {ub:g} -> {ua:g} tasks",
                      {"before": ub, "after": ua})
    inst, c = _instance_and_commitments(w)

    before = fn(inst) if c is None else fn(inst, commitments=c)
    if w["axiom"] == "population-monotone":
        k = int(w["leaving"])
        inst2, c2 = _setting.remove_user(inst, k, c)
        loser = int(w["loser"])
        pos = loser - (1 if loser > k else 0)
    else:
        inst2, c2 = _setting.scale_resource(inst, int(w["resource"]), float(w["factor"])), c
        loser = pos = int(w["loser"])
    after = fn(inst2) if c2 is None else fn(inst2, commitments=c2)
    ub = _util(before.allocation[loser], inst.demands[loser])
    ua = _util(after.allocation[pos], inst2.demands[pos])
    tol = Fraction(w.get("atol", 1e-7))
    return Replay(ub - ua > tol, f"user {loser}: {float(ub):.9g} -> {float(ua):.9g} (exact)",
                  {"before": ub, "after": ua, "loss": ub - ua})


def replay(witness: Mapping[str, Any] | str | Path) -> Replay:
    """Re-verify a violation's witness from its JSON alone, without the checker that produced it.

    Rebuilds the instance (or repeated game), re-runs the mechanism the witness names where there is
    one, checks that it reproduces the stored allocation, and recomputes the violated comparison in
    exact rational arithmetic (see the module docstring).

    Parameters
    ----------
    witness : dict or str or Path
        A :attr:`Verdict.witness <proofs_check.verdict.Verdict>` of a violation, or the path of a JSON
        file holding one (as written by ``fairalloc check``: ``witnesses/<cell>.json``).

    Returns
    -------
    Replay
        ``confirmed`` True when the violation is reproduced; ``detail`` says what was recomputed;
        ``numbers`` the recomputed quantities (``fractions.Fraction`` where exact).

    Examples
    --------
    CEEI is not strategy-proof; the lie a search finds replays on its own:

    >>> import fairalloc as fa
    >>> from proofs_check import find_profitable_misreport
    >>> inst = fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[100, 100], capacities=[9, 18])
    >>> v = find_profitable_misreport(fa.ceei, inst, rng=0)
    >>> v.holds, replay(v.witness).confirmed
    (False, True)
    """
    if isinstance(witness, (str, Path)):
        witness = json.loads(Path(witness).read_text())
    w = dict(witness)
    if "witness" in w and "kind" not in w:                 # a whole Verdict.to_dict() or a report record
        w = dict(w["witness"])
    kind = w.get("kind")
    if kind == "allocation":
        return _replay_allocation(w)
    if kind == "misreport":
        return _replay_misreport(w)
    if kind == "repeated":
        return _replay_repeated(w)
    if kind == "mechanism":
        return _replay_mechanism(w)
    return Replay(False, f"unknown witness kind {kind!r}")
