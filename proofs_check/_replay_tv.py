"""Independent re-verification of time-varying witnesses and of "no envy-free placement" witnesses.

Used by :mod:`proofs_check.replay`. Nothing here calls the predicates that produced the witnesses:
the schedule's feasibility, the per-slot arrays (free capacity, pending tasks) and the compared
numbers are recomputed from the instance with plain loops, and a "no placement of these task totals
is envy-free" witness is re-decided by enumerating every placement (integer tasks) or by one LP
(divisible tasks, where a bundle's value to another user is linear in the placement).
"""

from __future__ import annotations

import itertools
from typing import Any, Callable, Mapping

import numpy as np

import fairalloc as fa
from fairalloc import shares

from .verdict import Replay

__all__ = ["replay_schedule", "no_envy_free_placement", "replay_tv_misreport", "tv_utilities", "tv_from_witness"]

#: placements enumerated at most (integer witnesses are shrunk: a few hundred at most in practice)
MAX_PLACEMENTS = 200_000


def tv_from_witness(w: Mapping[str, Any]) -> "fa.TimeVaryingInstance":
    if "case" in w and w["case"].get("kind") == "time-varying":
        return fa.TimeVaryingInstance.from_dict(w["case"]["instance"])
    return fa.TimeVaryingInstance.from_dict(w["instance"])


def _feasible(tv, x: np.ndarray) -> str:
    """'' when the start schedule is feasible, else why (loops, not the checker's validation)."""
    n, M, T = x.shape
    if np.any(x < 0) or not np.allclose(x, np.round(x)):
        return "negative or fractional starts"
    for i in range(n):
        for m in range(M):
            if x[i, m].sum() > 0 and not tv.placement[i, m]:
                return f"user {i} starts on server {m} outside its placement"
        started = 0.0
        for t in range(T):
            started += x[i, :, t].sum()
            if started > tv.arrivals[i, : t + 1].sum():
                return f"user {i} starts more than it submitted by slot {t}"
    for m in range(M):
        for t in range(T):
            held = np.zeros(tv.n_resources)
            for i in range(n):
                for tau in range(max(0, t - int(tv.durations[i]) + 1), t + 1):
                    held += x[i, m, tau] * tv.task_demands[i, tau]
            if np.any(held > tv.cluster.capacities[m] * (1 + 1e-9) + 1e-9):
                return f"server {m} over capacity in slot {t}"
    return ""


def _in_place_of(tv, i: int, demands_j, x_j) -> float:
    """Tasks user i starts with user j's started bundles (x_j (M, T), demands_j (T, K)), pending-capped."""
    pending = total = 0.0
    for t in range(tv.n_slots):
        pending += float(tv.arrivals[i, t])
        fit = sum(float(shares.tasks_that_fit(x_j[m, t] * np.asarray(demands_j[t], float), tv.task_demands[i, t]))
                  for m in range(tv.n_servers) if tv.placement[i, m])
        run = min(pending, fit)
        pending -= run
        total += run
    return total


def _alone(tv, i: int) -> float:
    """Tasks user i starts alone on 1/n of every eligible server, starting what fits each slot."""
    n, T = tv.n_agents, tv.n_slots
    slice_ = tv.cluster.capacities / n
    running: list[tuple[int, int, np.ndarray]] = []          # (server, last slot, demand)
    pending = total = 0
    for t in range(T):
        pending += int(tv.arrivals[i, t])
        running = [r for r in running if r[1] >= t]
        for m in range(tv.n_servers):
            if not tv.placement[i, m]:
                continue
            while pending > 0:
                used = sum((dd for mm, _, dd in running if mm == m), np.zeros(tv.n_resources))
                if shares.tasks_that_fit(slice_[m] - used, tv.task_demands[i, t]) < 1:
                    break
                running.append((m, t + int(tv.durations[i]) - 1, tv.task_demands[i, t].copy()))
                pending -= 1
                total += 1
    return float(total)


def tv_utilities(result) -> np.ndarray:
    return np.asarray(result.tasks, float).sum(axis=(1, 2))


def replay_schedule(w: Mapping[str, Any], resolve_mechanism: Callable, server_arrays: Callable) -> Replay:
    """Re-verify an allocation witness of a time-varying schedule (cumulative or per slot)."""
    tv = tv_from_witness(w)
    x = np.asarray(w["schedule"], float)
    numbers: dict[str, Any] = {}
    why = _feasible(tv, x)
    if why:
        return Replay(False, f"the schedule is infeasible: {why}", numbers)
    name = w["claim"]["mechanism"] if "claim" in w else w.get("mechanism")
    if name is not None:
        rerun = np.asarray(resolve_mechanism(name)(tv).tasks, float)
        numbers["rerun_max_difference"] = float(np.max(np.abs(rerun - x)))
        if numbers["rerun_max_difference"] > 0.5:
            return Replay(False, f"re-running {name} gives another schedule", numbers)
    n, M, T = x.shape
    tol = float(w.get("atol", 0.0))
    X = x.sum(axis=(1, 2))
    K = tv.arrivals.sum(axis=1).astype(float)
    axiom, variant = w["axiom"], w["variant"]
    if w.get("scope") == "per-slot":
        t = int(w["slot"])
        free = tv.cluster.capacities.astype(float).copy()
        for i in range(n):
            for tau in range(max(0, t - int(tv.durations[i]) + 1), t):
                free -= np.outer(x[i, :, tau], tv.task_demands[i, tau])
        pending = np.array([tv.arrivals[i, : t + 1].sum() - x[i, :, :t].sum() for i in range(n)], float)
        numbers.update(slot=t, free=free, pending=pending)
        out = server_arrays(w, tv.task_demands[:, t, :], tv.placement, pending, np.maximum(free, 0.0),
                            tv.weights[:, t], x[:, :, t], False)
        return Replay(out.confirmed, f"slot {t}: {out.detail}", {**numbers, **dict(out.numbers)})
    if axiom == "sharing-incentive":
        i = int(w["user"])
        ref = _alone(tv, i)
        return Replay(X[i] < ref - tol, f"user {i} starts {X[i]:g} tasks vs {ref:g} alone on its 1/{n} share",
                      {**numbers, "have": X[i], "reference": ref})
    if axiom in ("envy-free", "ef1"):
        i, j = int(w["envious"]), int(w["envied"])
        uij = _in_place_of(tv, i, tv.task_demands[j], x[j])
        if axiom == "envy-free":
            return Replay(X[i] < K[i] and uij > X[i] + tol, f"user {i} would start {uij:g} tasks in user {j}'s "
                          f"place vs {X[i]:g}", {**numbers, "u_own": X[i], "u_other": uij})
        if variant == "gain":
            return Replay(uij > X[i] + 1 + tol, f"u_{i}(A_{j}) = {uij:g} vs X_{i} + 1 = {X[i] + 1:g}",
                          {**numbers, "u_other": uij})
        after = []
        for m, t in itertools.product(range(M), range(T)):
            if x[j, m, t] >= 1:
                fewer = x[j].copy()
                fewer[m, t] -= 1
                after.append(_in_place_of(tv, i, tv.task_demands[j], fewer))
        best = min(after) if after else 0.0
        return Replay(X[j] >= 1 and best > X[i] + tol, f"after removing any one of user {j}'s starts user {i} would "
                      f"still start >= {best:g} > {X[i]:g}", {**numbers, "best_after_removal": best})
    if axiom == "pareto":
        y = np.asarray(w["improved_schedule"], float)
        why = _feasible(tv, y)
        Y = y.sum(axis=(1, 2))
        nobody_loses = bool(np.all(Y >= X))
        gain = float(Y.sum() - X.sum()) if variant == "strong" else float(np.min((Y - X)[X < K], initial=np.inf))
        ok = not why and nobody_loses and gain >= 1
        return Replay(ok, f"improved schedule feasible={not why} {why}, nobody loses={nobody_loses}, gain {gain:g}",
                      {**numbers, "gain": gain})
    if axiom in ("non-wasteful", "bottleneck"):
        i, t, m = int(w["user"]), int(w["slot"]), int(w["server"])
        e = int(tv.durations[i])
        left = [tv.arrivals[i, : s + 1].sum() - x[i, :, : s + 1].sum() for s in range(t, T)]
        room = []
        for s in range(t, min(T, t + e)):
            held = np.zeros(tv.n_resources)
            for k in range(n):
                for tau in range(max(0, s - int(tv.durations[k]) + 1), s + 1):
                    held += x[k, m, tau] * tv.task_demands[k, tau]
            room.append(float(shares.tasks_that_fit(tv.cluster.capacities[m] - held, tv.task_demands[i, t])))
        ok = X[i] < K[i] and bool(tv.placement[i, m]) and min(left) >= 1 and min(room) >= 1
        return Replay(ok, f"user {i} could start one more task in slot {t} on server {m} (room {room}, "
                      f"pending {left})", {**numbers, "room": room})
    return Replay(False, f"unknown time-varying axiom {axiom!r}", numbers)


def no_envy_free_placement(d, P, K, caps, weights, X, *, divisible: bool, weighted: bool = False) -> Replay:
    """Re-decide "no placement of the task totals ``X`` is envy-free" from scratch (see module docstring)."""
    d, P, caps = np.asarray(d, float), np.asarray(P, bool), np.asarray(caps, float)
    K, X, wts = np.asarray(K, float), np.asarray(X, float), np.asarray(weights, float)
    n, M = P.shape
    unsat = X < K - 1e-9
    factor = (lambda i, j: wts[j] / wts[i]) if weighted else (lambda i, j: 1.0)
    if divisible:
        # u_i of j's bundle on server l is y_jl * rho_ij with rho_ij = min over i's needs of d_jr / d_ir: linear
        pairs = [(j, l) for j in range(n) for l in range(M) if P[j, l]]
        col = {p: k for k, p in enumerate(pairs)}
        A_eq = np.zeros((n, len(pairs)))
        for (j, l), k in col.items():
            A_eq[j, k] = 1.0
        rows, rhs = [], []
        for l in range(M):
            for r in range(d.shape[1]):
                row = np.zeros(len(pairs))
                for j in range(n):
                    if P[j, l]:
                        row[col[j, l]] = d[j, r]
                rows.append(row); rhs.append(caps[l, r])
        for i in np.flatnonzero(unsat):
            need = d[i] > 0
            for j in range(n):
                if j == i:
                    continue
                rho = float(np.min(d[j, need] / d[i, need]))
                row = np.zeros(len(pairs))
                for l in range(M):
                    if P[i, l] and P[j, l]:
                        row[col[j, l]] = rho
                rows.append(row); rhs.append(X[i] * factor(i, j))
        import scipy.sparse as sp

        from fairalloc.exact.backends import solve_lp
        from fairalloc.exact.program import LinearProgram

        A = sp.csr_matrix(np.vstack([A_eq, np.array(rows).reshape(-1, len(pairs))]))
        prog = LinearProgram(tuple(f"y{k}" for k in range(len(pairs))), np.zeros(len(pairs)),
                             np.full(len(pairs), np.inf), np.zeros(len(pairs), bool), A,
                             np.r_[X, np.full(len(rows), -np.inf)], np.r_[X, np.array(rhs, dtype=float)],
                             tuple(f"r{k}" for k in range(A.shape[0])), np.zeros(len(pairs)), 0.0, False)
        out, _ = solve_lp(prog)
        return Replay(out.status is fa.Status.INFEASIBLE, f"LP of envy-free placements (linear for divisible "
                      f"tasks): {out.status.value} ({out.message})", {"lp_status": out.status.value})
    per_user = []
    for j in range(n):
        elig = np.flatnonzero(P[j])
        opts = [c for c in itertools.product(range(int(X[j]) + 1), repeat=elig.size) if sum(c) == int(X[j])]
        per_user.append([(elig, c) for c in opts])
    count = int(np.prod([len(o) for o in per_user], dtype=float))
    if count > MAX_PLACEMENTS:
        return Replay(False, f"{count} placements: too many to enumerate", {"placements": count})
    feasible = 0
    for combo in itertools.product(*per_user):
        y = np.zeros((n, M))
        for j, (elig, c) in enumerate(combo):
            y[j, elig] = c
        if np.any(y.T @ d > caps * (1 + 1e-9) + 1e-9):
            continue
        feasible += 1
        envy = False
        for i in np.flatnonzero(unsat):
            for j in range(n):
                if j != i:
                    u = sum(float(shares.tasks_that_fit(y[j, l] * d[j], d[i])) for l in range(M) if P[i, l])
                    if min(K[i], u) > X[i] * factor(i, j) + 1e-9:
                        envy = True
                        break
            if envy:
                break
        if not envy:
            return Replay(False, f"placement {y.tolist()} of the same totals is envy-free", {"placements": count})
    return Replay(True, f"none of the {feasible} feasible placements of these task totals (of {count} enumerated) "
                  "is envy-free", {"placements": count, "feasible": feasible})


def replay_tv_misreport(w: Mapping[str, Any], fn: Callable) -> Replay:
    """Re-run the mechanism with the truth and with the lie (identity and reversed user orders)."""
    tv = tv_from_witness(w)
    i = int(w["user"])
    rep = w["report"]
    d = np.array(tv.task_demands, float)
    a = np.array(tv.arrivals)
    d[i] = np.asarray(rep["task_demands"], float)
    a[i] = np.asarray(rep["arrivals"], float)
    lied = tv.replace(task_demands=d, arrivals=a)
    gamma = float(w.get("gamma", 1.0))

    def payoff(row, reported) -> float:           # true tasks run by the received bundles (M, T), pending-capped
        pending = total = 0.0
        for t in range(tv.n_slots):
            pending += float(tv.arrivals[i, t])
            fit = sum(float(shares.tasks_that_fit(row[m, t] * np.asarray(reported[t], float), tv.task_demands[i, t]))
                      for m in range(tv.n_servers) if tv.placement[i, m])
            run = min(pending, fit)
            pending -= run
            total += gamma ** t * run
        return total

    gains = []
    for order in (np.arange(tv.n_agents), np.arange(tv.n_agents)[::-1]):
        pos = int(np.flatnonzero(order == i)[0])
        perm = lambda inst: fa.TimeVaryingInstance(inst.cluster, inst.task_demands[order], inst.arrivals[order],  # noqa: E731
                                                   inst.durations[order], inst.placement[order], inst.weights[order])
        rt, rl = fn(perm(tv)), fn(perm(lied))
        gains.append(payoff(np.asarray(rl.tasks, float)[pos], d[i])
                     - payoff(np.asarray(rt.tasks, float)[pos], tv.task_demands[i]))
    g = min(gains)
    return Replay(g > float(w.get("atol", 0.0)), f"user {i}'s true (discounted) tasks rise by {g:g} with the lie "
                  "(both user orders)", {"gain": g, "gains": gains})
