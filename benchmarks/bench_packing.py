"""The packing question of issue 30: can every user of a dense TV-TSF instance reach a share threshold?

On the dense 10 x 10 x 20 instance of seed 0 (``dense_time_varying_instance(10, 10, 20, rng=0)``) the
max-min of Eq. 10 was known to be 17/280 or 76/1240: "every user >= 77/1240" is infeasible (CP-SAT on
the MILP in seconds), "every user >= 76/1240" was undecided after 60 s by HiGHS, CP-SAT and SCIP. With
shares X_i / D_i (D_i = 20 h_i), the question is a threshold vector: X_i >= ceil(num D_i / den) for every
user. Three models are tried, each printing its verdict, wall and CPU seconds; ``--model milp`` decided
it (a schedule with every user >= 76/1240: the max-min is 76/1240; ``benchmarks/RESULTS.md``):

``--model cpsat``: CP-SAT's scheduling model. One interval per task needed (the k-th task of user i
released at the slot its k-th task is submitted, tasks of a user ordered by start), placement as
optional presence on each eligible server (exactly one), ``AddCumulative`` per server and resource;
a task that starts late holds its resources only inside the horizon (size min(e_i, T - start)), as
in Eq. 10; identical servers ordered by task count.

``--model cpsat-time``: CP-SAT on the time-indexed model (the starts x_imt as integer variables, one
capacity row per server, resource and slot), written directly rather than read from ``tvtsf_model``:
identical servers ordered by the CPU-slots they hold, each server type's summed capacity as a redundant
row, ``--cuts`` the rounded rows of every capacity row, ``--elastic`` the total deficit minimised from
``tvtsf_greedy``'s schedule as a hint (CP-SAT's neighbourhood search needs an objective).

``--model colgen``: column generation over per-server schedules (Dantzig-Wolfe). A column is one
server's schedule (tasks of each user started in each slot, fitting the server in every slot);
identical servers (capacities and eligible users) share one pool with their count as a convexity
bound. The restricted master minimises the total deficit below the thresholds (above the users'
bounds) subject to "started by slot t <= submitted by t" per user, each server type's count; the
pricing problem per type is a small MILP (HiGHS, proven or with its bound). The Lagrangian bound
:math:`\\sum_i \\pi_i \\ell_i - \\sum_{it} \\mu_{it} A_i(t) - \\sum_k n_k \\max(0, \\bar V_k)` (duals clipped to
their signs, :math:`\\pi \\le 1`, :math:`\\bar V_k` the pricing bounds) is a valid lower bound on the
deficit of every integer schedule: above 0, the thresholds are infeasible. When the master's LP
optimum is 0 the LP does not decide; the master is then solved once as an integer program over the
columns generated (price-and-branch: a deficit of 0 is a feasible schedule; a positive one decides
nothing). Duals are smoothed towards the best bound's (Wentges, ``--alpha``).

``--model pricing``: no question; builds the pattern tables of ``--seed``'s instance
(:func:`fairalloc.exact.patterns.server_types`) and prices every server type once with random task
values (``numpy`` seed 0), printing per type its states, room classes, entries, the CPU seconds and
the peak of Python memory (``tracemalloc``) of that one ``price_path`` call, and the value found.

``--model patterns``: :func:`fairalloc.exact.patterns.threshold_schedule`, the same Dantzig-Wolfe
master with exact pricing by dynamic programming over each server's running tasks (milliseconds
instead of a MILP per pricing), the Lagrangian bound as a certificate, then branch-and-price on the
servers' starts (``--max-nodes``).

``--model milp``: the time-indexed MILP of :func:`fairalloc.exact.tvtsf_model` (Eq. 10's rows as
fairalloc builds them), its level *z* fixed at 0, with a deficit column per user:
:math:`\\min \\sum_i \\delta_i` subject to :math:`X_i + \\delta_i \\ge \\ell_i`, :math:`0 \\le \\delta_i \\le \\ell_i`
(an *elastic* feasibility query: every schedule is feasible for it, deficit 0 answers "yes", a proven
bound of at least 1 answers "no"; ``--plain`` fixes the deficits at 0: the plain feasibility question;
``--strong`` takes the rows of the position driver's strengthened copy instead, identical servers'
loads ordered and :func:`~fairalloc.exact.tvtsf.rounded_rows`; ``--random-seed`` sets the backend's seed).
With ``--start-threshold`` the same program is first solved at a lower threshold and its schedule
(deficit 0 there, a positive deficit at ``--threshold``) is the MIP start: the solver then holds an
incumbent from the first node and its improvement heuristics (HiGHS's sub-MIPs) work from it (whether
that is faster than the plain question was not shown: ``benchmarks/RESULTS.md``).
``--lns-rounds N`` replaces the one solve by a large-neighbourhood search: N rounds, each freeing the
start columns of a few random servers or of a window of slots (the others fixed at the incumbent's
values) and re-solving from the incumbent, which it replaces when the deficit is not larger; it starts
from the ``--start-threshold`` schedule, else from :func:`fairalloc.scheduling.tvtsf.tvtsf_greedy`'s.
A schedule of deficit 0 is re-checked with :func:`fairalloc.exact.tvtsf.schedule_details` (capacity in
every slot, nothing started before it is submitted, placement, the shares against the thresholds) and
``--store`` writes it as JSON (``tests/data/tvtsf_dense_seed0_maxmin.json``, which
``tests/unit/exact/test_dense_seed0_maxmin.py`` checks without a solver).

Figures and commands: ``benchmarks/RESULTS.md``.

    python benchmarks/bench_packing.py --model cpsat --threshold 76/1240 --time-limit 600
    python benchmarks/bench_packing.py --model colgen --threshold 77/1240 --time-limit 600
    python benchmarks/bench_packing.py --model patterns --threshold 77/1240
    python benchmarks/bench_packing.py --model cpsat-time --threshold 76/1240 --cuts --time-limit 300
    python benchmarks/bench_packing.py --model milp --threshold 76/1240 --start-threshold 17/280 --threads 1
    python benchmarks/bench_packing.py --model milp --solver cpsat --threshold 77/1240 --plain --threads 1
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import sys
import time
from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp

from fairalloc.exact.backends import solve_program
from fairalloc.exact.program import LinearProgram, from_pulp
from fairalloc.exact.random_instances import dense_time_varying_instance
from fairalloc.exact.solvers import get_backend, quiet_highs
from fairalloc.exact.tvtsf import _fits, _upper_offline, schedule_details, tvtsf_model, tvtsf_valuation
from fairalloc.result import Status
from fairalloc.scheduling.tvtsf import tvtsf_greedy


def instance(seed: int, num: int, den: int):
    tv = dense_time_varying_instance(10, 10, 20, rng=seed)
    lo = np.array([-(-num * int(d) // den) for d in _D(tv)])
    return tv, lo, _upper_offline(tv, _fits(tv))


def cpsat(tv, lo, time_limit: float, workers: int) -> str:
    from ortools.sat.python import cp_model

    n, M, T = tv.n_agents, tv.n_servers, tv.n_slots
    fits = _fits(tv)
    cum = np.cumsum(tv.arrivals, axis=1)
    d = tv.task_demands[:, 0, :].astype(int)
    caps = tv.cluster.capacities.astype(int)
    m = cp_model.CpModel()
    on = {k: [] for k in range(M)}
    for i in range(n):
        prev = None
        elig = [k for k in range(M) if tv.placement[i, k] and fits[i, k, 0] > 0]
        for j in range(int(lo[i])):
            r = int(np.argmax(cum[i] >= j + 1))
            s = m.NewIntVar(r, T - 1, f"s{i}_{j}")
            if prev is not None:
                m.Add(prev <= s)
            prev = s
            size = m.NewIntVar(1, int(tv.durations[i]), f"z{i}_{j}")
            m.AddMinEquality(size, [int(tv.durations[i]), T - s])
            end = m.NewIntVar(r + 1, T, f"e{i}_{j}")
            lits = []
            for k in elig:
                p = m.NewBoolVar(f"p{i}_{j}_{k}")
                on[k].append((m.NewOptionalIntervalVar(s, size, end, p, f"iv{i}_{j}_{k}"), i, p))
                lits.append(p)
            m.AddExactlyOne(lits)
    for k in range(M):
        for r in range(caps.shape[1]):
            if on[k] and sum(int(d[i, r]) for _, i, _ in on[k]) > caps[k, r]:
                m.AddCumulative([iv for iv, _, _ in on[k]], [int(d[i, r]) for _, i, _ in on[k]], int(caps[k, r]))
    groups: dict = {}
    for k in range(M):
        groups.setdefault((tuple(caps[k]), tuple(tv.placement[:, k])), []).append(k)
    for g in groups.values():
        for a, b in zip(g[:-1], g[1:]):
            m.Add(sum(p for _, _, p in on[a]) >= sum(p for _, _, p in on[b]))
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = time_limit
    solver.parameters.num_workers = workers
    st = solver.Solve(m)
    return f"{solver.StatusName(st)} ({solver.NumBranches()} branches, {solver.NumConflicts()} conflicts)"


def cpsat_time(tv, lo, args) -> str:
    """``--model cpsat-time``: CP-SAT on the time-indexed model written directly (x_imt starts; capacity
    per server, resource and slot; started <= submitted; X_i >= threshold), identical servers ordered by
    CPU-slots used, each server type's summed capacity as a redundant row; ``--cuts`` adds
    :func:`~fairalloc.exact.tvtsf.rounded_rows` of every capacity row; ``--elastic`` minimises the total
    deficit instead (CP-SAT's LNS then has an objective), from ``tvtsf_greedy``'s schedule as a hint."""
    from ortools.sat.python import cp_model

    from fairalloc.exact.tvtsf import rounded_rows

    n, M, T = tv.n_agents, tv.n_servers, tv.n_slots
    fits, cum = _fits(tv), np.cumsum(tv.arrivals, axis=1)
    d, caps, e = tv.task_demands[:, 0, :].astype(int), tv.cluster.capacities.astype(int), tv.durations.astype(int)
    m = cp_model.CpModel()
    x = {(i, k, t): m.new_int_var(0, int(min(fits[i, k, t], cum[i, t])), f"x{i}_{k}_{t}")
         for i in range(n) for k in range(M) for t in range(T)
         if tv.placement[i, k] and fits[i, k, t] > 0 and cum[i, t] > 0}
    tot = []
    for i in range(n):
        for t in range(T):
            if t + 1 == T or tv.arrivals[i, t + 1] > 0:
                m.add(sum(x[i, k, s] for k in range(M) for s in range(t + 1) if (i, k, s) in x) <= int(cum[i, t]))
        tot.append(sum(v for (u, _, _), v in x.items() if u == i))
    if args.elastic:
        short = [m.new_int_var(0, int(lo[i]), f"d{i}") for i in range(n)]
        for i in range(n):
            m.add(tot[i] + short[i] >= int(lo[i]))
        m.minimize(sum(short))
        hint = np.asarray(tvtsf_greedy(tv).tasks, dtype=np.int64)
        for key, v in x.items():
            m.add_hint(v, int(hint[key]))
    else:
        for i in range(n):
            m.add(tot[i] >= int(lo[i]))
    use = {}
    for k in range(M):
        for t in range(T):
            for r in range(caps.shape[1]):
                terms = [(int(d[i, r]), x[i, k, s]) for i in range(n) for s in range(max(0, t - e[i] + 1), t + 1)
                         if (i, k, s) in x]
                if not terms:
                    continue
                use[k, r, t] = sum(c * v for c, v in terms)
                m.add(use[k, r, t] <= int(caps[k, r]))
                if args.cuts:
                    for a, b in rounded_rows([c for c, _ in terms], float(caps[k, r])):
                        m.add(sum(int(q) * v for q, (_, v) in zip(a, terms) if q > 0) <= int(b))
    groups: dict = {}
    for k in range(M):
        groups.setdefault((tuple(caps[k]), tuple(tv.placement[:, k])), []).append(k)
    for g in groups.values():
        for t in range(T):
            for r in range(caps.shape[1]):
                if len(g) > 1 and all((k, r, t) in use for k in g):
                    m.add(sum(use[k, r, t] for k in g) <= int(caps[g[0], r]) * len(g))
        load = {k: sum(int(d[i, 0]) * min(int(e[i]), T - s) * v for (i, kk, s), v in x.items() if kk == k) for k in g}
        for a, b in zip(g[:-1], g[1:]):
            m.add(load[a] >= load[b])
    solver = cp_model.CpSolver()
    p = solver.parameters
    p.max_time_in_seconds = args.time_limit
    p.num_workers = args.threads
    p.random_seed = 0 if args.random_seed is None else args.random_seed
    code = solver.solve(m)
    found = f"{solver.status_name(code)} ({solver.num_branches} branches)"
    if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return found
    sched = np.zeros((n, M, T), dtype=np.int64)
    for key, v in x.items():
        sched[key] = solver.value(v)
    short = [i for i in range(n) if sched[i].sum() < lo[i]]
    bad = [b for b in check_schedule(tv, sched, lo) if "below their thresholds" not in b]
    if bad:
        return f"ERROR: the schedule found breaks: {'; '.join(bad)}"
    if short:
        deficit = int(sum(lo[i] - sched[i].sum() for i in short))
        return f"{found}: least deficit {deficit} (users {short} short), bound {solver.best_objective_bound:g}"
    return f"FEASIBLE: {found}, a schedule with every threshold met, re-checked with schedule_details"


class ColumnGeneration:
    """The Dantzig-Wolfe master and pricing of the module docstring."""

    def __init__(self, tv, lo, hi, pricing_limit: float) -> None:
        self.tv, self.lo, self.hi = tv, lo.astype(float), hi.astype(float)
        self.n, self.M, self.T = tv.n_agents, tv.n_servers, tv.n_slots
        self.fits = _fits(tv)
        self.cum = np.cumsum(tv.arrivals, axis=1)
        self.d = tv.task_demands[:, 0, :]
        self.caps = tv.cluster.capacities
        self.pricing_limit = pricing_limit
        keys: dict = {}
        for k in range(self.M):
            key = (tuple(self.caps[k]), tuple(tv.placement[:, k] & (self.fits[:, k, 0] > 0)))
            keys.setdefault(key, []).append(k)
        self.types = list(keys.values())
        n, T = self.n, self.T
        self.n_rows = 2 * n + n * T + len(self.types)        # L_i, U_i, R_it, K_k, all ">="
        self.rhs = np.r_[self.lo, -self.hi, -self.cum.ravel(), [-len(g) for g in self.types]].astype(float)
        self.cols: list = []

    def column(self, k: int, y: dict) -> np.ndarray:
        n, T = self.n, self.T
        a = np.zeros(self.n_rows)
        for (i, t), v in y.items():
            a[i] += v
            a[n + i] -= v
            a[2 * n + i * T + t: 2 * n + (i + 1) * T] -= v
        a[2 * n + n * T + k] = -1.0
        return a

    def price(self, k: int, pi, rho, mu) -> tuple[float, float, dict, bool]:
        """max over one server of type k of sum y_it (pi_i - rho_i - sum_{t' >= t} mu_it'): value, bound,
        the schedule, proven."""
        tv, T, m = self.tv, self.T, self.types[k][0]
        users = [i for i in range(self.n) if tv.placement[i, m] and self.fits[i, m, 0] > 0]
        cols, coef, ub = [], [], []
        for i in users:
            tail = np.cumsum(mu[i][::-1])[::-1]
            for t in range(T):
                c = pi[i] - rho[i] - tail[t]
                if c > 1e-12 and self.cum[i, t] > 0:
                    cols.append((i, t)); coef.append(c); ub.append(min(self.fits[i, m, t], self.cum[i, t]))
        if not cols:
            return 0.0, 0.0, {}, True
        data, ind, ptr, rhi = [], [], [0], []
        for t in range(T):
            for r in range(self.caps.shape[1]):
                for j, (i, tau) in enumerate(cols):
                    if tau <= t < tau + int(tv.durations[i]) and self.d[i, r] > 0:
                        ind.append(j); data.append(self.d[i, r])
                ptr.append(len(ind)); rhi.append(self.caps[m, r])
        for i in users:
            for t in range(T):
                js = [j for j, (ii, tau) in enumerate(cols) if ii == i and tau <= t]
                if js:
                    ind += js; data += [1.0] * len(js); ptr.append(len(ind)); rhi.append(self.cum[i, t])
        A = sp.csr_matrix((data, ind, ptr), shape=(len(rhi), len(cols)))
        prog = LinearProgram(tuple(f"y{j}" for j in range(len(cols))), np.zeros(len(cols)), np.array(ub, float),
                             np.ones(len(cols), bool), A, np.full(len(rhi), -np.inf), np.array(rhi, float),
                             tuple(f"r{j}" for j in range(len(rhi))), np.array(coef), 0.0, True)
        out, x = solve_program(prog, get_backend("highs", "milp"), time_limit=self.pricing_limit, proven_gap=1e-7)
        y = {} if x is None else {cols[j]: int(round(v)) for j, v in enumerate(x) if round(v) > 0}
        bound = out.stats.get("bound")
        return (out.objective or 0.0), (math.inf if bound is None else bound), y, out.status is Status.OPTIMAL

    def run(self, time_limit: float, alpha: float) -> str:
        import highspy

        n, T, t0 = self.n, self.T, time.perf_counter()
        h = quiet_highs()
        inf = highspy.kHighsInf
        h.addRows(self.n_rows, self.rhs, np.full(self.n_rows, inf), 0, np.array([], dtype=np.int32),
                  np.array([], dtype=np.int32), np.array([]))
        for i in range(n):                 # deficit slacks, cost 1
            h.addCol(1.0, 0.0, inf, 1, np.array([i], dtype=np.int32), np.array([1.0]))
            h.addCol(1.0, 0.0, inf, 1, np.array([n + i], dtype=np.int32), np.array([1.0]))
        best_lb, best_y, it = -math.inf, None, 0
        while time.perf_counter() - t0 < time_limit:
            it += 1
            h.run()
            obj = h.getInfo().objective_function_value
            y_lp = np.array(h.getSolution().row_dual)
            y = y_lp if best_y is None or alpha <= 0 else alpha * best_y + (1 - alpha) * y_lp
            pi, rho = np.clip(y[:n], 0, 1), np.clip(y[n:2 * n], 0, 1)
            mu = np.clip(y[2 * n:2 * n + n * T], 0, None).reshape(n, T)
            tau = np.clip(y[2 * n + n * T:], 0, None)
            lb = float(pi @ self.lo - rho @ self.hi - (mu * self.cum).sum())
            added = 0
            for k in range(len(self.types)):
                v, b, yk, _ = self.price(k, pi, rho, mu)
                lb -= len(self.types[k]) * max(0.0, b)
                if v > tau[k] + 1e-7:
                    a = self.column(k, yk)
                    nz = np.flatnonzero(a)
                    h.addCol(0.0, 0.0, inf, len(nz), nz.astype(np.int32), a[nz])
                    self.cols.append((k, yk))
                    added += 1
            if lb > best_lb:
                best_lb, best_y = lb, y.copy()
            print(f"  iteration {it}: master LP {obj:.6f}, Lagrangian bound {lb:.6f} (best {best_lb:.6f}), "
                  f"{len(self.cols)} columns, {time.perf_counter() - t0:.1f}s", flush=True)
            if best_lb > 1e-4:
                return f"INFEASIBLE (Lagrangian bound {best_lb:.6f} > 0 after {it} iterations)"
            if added == 0:
                if alpha > 0 and not np.allclose(y, y_lp):
                    alpha = alpha / 2 if alpha > 0.05 else 0.0          # mispricing: towards the LP duals
                    continue
                return self.price_and_branch(obj, time_limit - (time.perf_counter() - t0))
        return f"UNDECIDED (time limit; best Lagrangian bound {best_lb:.6f}, {len(self.cols)} columns)"

    def price_and_branch(self, lp: float, left: float) -> str:
        nc, n = len(self.cols), self.n
        A = np.zeros((self.n_rows, nc + 2 * n))
        for j, (k, yk) in enumerate(self.cols):
            A[:, j] = self.column(k, yk)
        for i in range(n):
            A[i, nc + 2 * i] = A[n + i, nc + 2 * i + 1] = 1.0
        prog = LinearProgram(tuple(f"c{j}" for j in range(nc + 2 * n)), np.zeros(nc + 2 * n),
                             np.full(nc + 2 * n, np.inf), np.r_[np.ones(nc, bool), np.zeros(2 * n, bool)],
                             sp.csr_matrix(A), self.rhs, np.full(self.n_rows, np.inf),
                             tuple(f"r{j}" for j in range(self.n_rows)), -np.r_[np.zeros(nc), np.ones(2 * n)])
        out, _ = solve_program(prog, get_backend("highs", "milp"), time_limit=max(left, 10.0))
        deficit = None if out.objective is None else -out.objective
        if deficit is not None and deficit < 0.5:
            return f"FEASIBLE (price-and-branch: an integer schedule over {nc} columns)"
        return (f"UNDECIDED (column generation converged, LP optimum {lp:.6f} = no proof; price-and-branch over "
                f"{nc} columns: {out.status.value}, least deficit {deficit})")


class ThresholdMilp:
    """``--model milp``: tvtsf_model's rows, z fixed at 0, one deficit column per user (module docstring)."""

    def __init__(self, tv, lo, plain: bool = False, strong: bool = False, random_seed: int | None = None) -> None:
        self.tv, self.lo = tv, [int(v) for v in lo]
        self.options = {} if random_seed is None else {"random_seed": int(random_seed)}
        # strong: the position driver's strengthened copy (identical servers' loads ordered, rounded rows)
        model = tvtsf_model(tv, symmetry="servers", cuts=True) if strong else tvtsf_model(tv)
        base = from_pulp(model.problem)
        z = base.index[model.variables["z"].name]
        lb, ub = base.lb.copy(), base.ub.copy()
        lb[z] = ub[z] = 0.0                 # the level rows become V_i >= 0: always true
        integer = base.integer.copy()
        integer[z] = True                   # fixed anyway; CP-SAT takes integer columns only
        self.base = dataclasses.replace(base, lb=lb, ub=ub, integer=integer)
        self.x = {key: base.index[v.name] for key, v in model.variables["x"].items()}   # (i, m, t) -> column
        n = tv.n_agents
        rows = []
        for i in range(n):
            terms = {c: 1.0 for (u, _, _), c in self.x.items() if u == i}
            terms[f"deficit_{i}"] = 1.0
            rows.append((terms, float(self.lo[i]), math.inf, f"threshold_{i}"))
        top = [0.0 if plain else float(v) for v in self.lo]         # plain: the feasibility question itself
        self.prog = self.base.extended(cols=[(f"deficit_{i}", 0.0, top[i], True) for i in range(n)],
                                       rows=rows, cost={f"deficit_{i}": 1.0 for i in range(n)}, maximize=False)

    def start(self, starts: np.ndarray) -> np.ndarray:
        v = np.zeros(self.prog.n_cols)
        for (i, m, t), c in self.x.items():
            v[c] = starts[i, m, t]
        got = starts.sum(axis=(1, 2))
        for i in range(self.tv.n_agents):
            v[self.prog.index[f"deficit_{i}"]] = max(0, self.lo[i] - int(got[i]))
        return v

    def starts(self, v: np.ndarray) -> np.ndarray:
        tv = self.tv
        out = np.zeros((tv.n_agents, tv.n_servers, tv.n_slots), dtype=np.int64)
        for (i, m, t), c in self.x.items():
            out[i, m, t] = round(v[c])
        return out

    def solve(self, solver: str, time_limit: float, threads: int, start: np.ndarray | None = None,
              free=None):
        """Solve (from ``start``); with ``free`` ((i, m, t) -> bool), every other start column is fixed at
        ``start``'s value (a neighbourhood of the large-neighbourhood search)."""
        prog = self.prog
        if free is not None:
            lb, ub = prog.lb.copy(), prog.ub.copy()
            for key, c in self.x.items():
                if not free(*key):
                    lb[c] = ub[c] = float(start[key])
            prog = dataclasses.replace(prog, lb=lb, ub=ub)
        out, v = solve_program(prog, get_backend(solver, "milp"), time_limit=time_limit, threads=threads,
                               start=None if start is None else self.start(start), options=self.options)
        return out, (None if v is None else self.starts(v))

    def deficit(self, starts: np.ndarray) -> int:
        got = starts.sum(axis=(1, 2))
        return int(sum(max(0, self.lo[i] - int(got[i])) for i in range(self.tv.n_agents)))

    def lns(self, start: np.ndarray, rounds: int, args, rng) -> tuple[np.ndarray, int]:
        """Large-neighbourhood search: free the columns of ``--lns-servers`` random servers, or of a window
        of ``--lns-window`` slots on every server, alternately; re-solve from the incumbent (every other
        column fixed), keep the result when its deficit is not larger; stop at deficit 0. Returns the best
        schedule and the rounds run."""
        best, T, M, it = start, self.tv.n_slots, self.tv.n_servers, 0
        for it in range(rounds):
            if self.deficit(best) == 0:
                return best, it
            if it % 2 == 0:
                chosen = set(rng.choice(M, size=min(args.lns_servers, M), replace=False).tolist())
                free, what = (lambda i, m, t, c=frozenset(chosen): m in c), f"servers {sorted(chosen)}"
            else:
                a = int(rng.integers(0, max(1, T - args.lns_window + 1)))
                b = a + args.lns_window
                free, what = (lambda i, m, t, a=a, b=b: a <= t < b), f"slots {a}..{b - 1}"
            c0 = time.process_time()
            out, got = self.solve(args.solver, args.time_limit, args.threads, start=best, free=free)
            if got is not None and self.deficit(got) <= self.deficit(best):
                best = got
            print(f"    LNS round {it + 1} ({what}): {out.status.value}, deficit {self.deficit(best)}; "
                  f"{time.process_time() - c0:.1f}s CPU", flush=True)
        return best, rounds


def check_schedule(tv, starts: np.ndarray, lo) -> list[str]:
    """What a schedule breaks (capacity, submissions, placement, thresholds), via schedule_details."""
    det = schedule_details(tv, starts)
    bad = []
    over = det["usage"] - tv.cluster.capacities[:, :, None]
    if (over > 1e-9).any():
        m, r, t = np.argwhere(over > 1e-9)[0]
        bad.append(f"server {m} resource {r} over capacity in slot {t}")
    if (det["pending"] < 0).any():
        i, t = np.argwhere(det["pending"] < 0)[0]
        bad.append(f"user {i} started more than submitted by slot {t}")
    if starts[~np.broadcast_to(tv.placement[:, :, None], starts.shape)].any():
        bad.append("a task on a server its placement forbids")
    got = starts.sum(axis=(1, 2))
    short = [i for i in range(tv.n_agents) if got[i] < lo[i]]
    if short:
        bad.append(f"users {short} below their thresholds")
    return bad


def store(path: str, tv, starts: np.ndarray, seed: int, threshold: str, how: str) -> None:
    """The schedule and the instance it is for (to re-check without a solver)."""
    doc = {
        "instance": f"fairalloc.exact.random_instances.dense_time_varying_instance(10, 10, 20, rng={seed})",
        "claim": f"every user's TV-TSF share (Eq. 3 after the last slot) >= {threshold}",
        "found_by": how,
        "capacities": tv.cluster.capacities.tolist(),
        "task_demands": tv.task_demands[:, 0, :].tolist(),
        "durations": tv.durations.tolist(),
        "arrivals": tv.arrivals.tolist(),
        "placement": tv.placement.astype(int).tolist(),
        "starts": [[int(i), int(m), int(t), int(starts[i, m, t])] for i, m, t in np.argwhere(starts > 0)],
    }
    with open(path, "w") as fh:
        json.dump(doc, fh, indent=None, separators=(",", ":"))
        fh.write("\n")


def milp(tv, lo, args) -> str:
    start = None
    if args.start_threshold:
        snum, sden = (int(v) for v in args.start_threshold.split("/"))
        slo = np.array([-(-snum * int(d) // sden) for d in _D(tv)])
        t0, c0 = time.perf_counter(), time.process_time()
        out, start = ThresholdMilp(tv, slo, strong=args.strong, random_seed=args.random_seed).solve(
            args.solver, args.time_limit, args.threads)
        print(f"  start: every user >= {args.start_threshold} (tasks >= {slo.tolist()}): {out.status.value}, "
              f"deficit {out.objective}; {time.perf_counter() - t0:.1f}s wall, {time.process_time() - c0:.1f}s CPU",
              flush=True)
        if start is None or out.objective is None or out.objective > 0.5:
            return f"UNDECIDED (no start schedule at {args.start_threshold})"
    t0, c0 = time.perf_counter(), time.process_time()
    tm = ThresholdMilp(tv, lo, plain=args.plain, strong=args.strong, random_seed=args.random_seed)
    if args.lns_rounds:
        if start is None:
            start = np.asarray(tvtsf_greedy(tv).tasks, dtype=np.int64)       # the paper's best-fit heuristic
            print(f"  start: tvtsf_greedy, deficit {tm.deficit(start)}", flush=True)
        sched, used = tm.lns(start, args.lns_rounds, args, np.random.default_rng(args.lns_seed))
        out = SimpleNamespace(status=Status.FEASIBLE, objective=float(tm.deficit(sched)),
                              stats={"rounds": used})
    else:
        out, sched = tm.solve(args.solver, args.time_limit, args.threads, start=start)
    bound = out.stats.get("bound")
    work = f"{out.stats['rounds']} LNS rounds" if "rounds" in out.stats else f"{out.stats.get('nodes')} nodes"
    print(f"  every user >= {args.threshold}: {out.status.value}, least deficit {out.objective}, bound {bound}, "
          f"{work}; {time.perf_counter() - t0:.1f}s wall, {time.process_time() - c0:.1f}s CPU", flush=True)
    if out.status.value == "infeasible" or (bound is not None and bound > 0.5):
        return (f"INFEASIBLE (proven by {args.solver}" + ("" if out.status.value == "infeasible" else
                                                          f": least deficit >= {bound:g}") + ")")
    if sched is not None and out.objective is not None and out.objective < 0.5:
        bad = check_schedule(tv, sched, lo)
        if bad:
            return f"ERROR: the schedule found breaks: {'; '.join(bad)}"
        if args.store:
            how = (f"benchmarks/bench_packing.py --model milp --solver {args.solver} --threshold {args.threshold}"
                   + (f" --start-threshold {args.start_threshold}" if args.start_threshold else "")
                   + (f" --lns-rounds {args.lns_rounds} --lns-seed {args.lns_seed}" if args.lns_rounds else "")
                   + f" --threads {args.threads} --time-limit {args.time_limit:g}")
            store(args.store, tv, sched, args.seed, args.threshold, how)
            print(f"  stored {args.store}")
        return "FEASIBLE (a schedule of deficit 0, re-checked with schedule_details)"
    return f"UNDECIDED (least deficit {out.objective}, bound {bound})"


def patterns(tv, lo, hi, args) -> str:
    """``--model patterns``: :func:`fairalloc.exact.patterns.threshold_schedule` (column generation with
    exact pricing by dynamic programming, the Lagrangian bound, branch-and-price on the servers'
    starts), ``--max-nodes`` nodes."""
    from fairalloc.exact.patterns import threshold_schedule

    c0 = time.process_time()
    ans = threshold_schedule(tv, lo, hi, max_nodes=args.max_nodes, branching=args.branching,
                             cpu_limit=args.cpu_limit)
    st = ans.stats
    work = (f"root LP {st['root_lp']:.6f}, Lagrangian bound {st['root_bound']:.6f}, {st['nodes']} nodes, "
            f"{st['iterations']} pricing rounds, {st.get('columns', 0)} columns, pricing {st['pricing_s']:.1f}s + "
            f"LPs {st['lp_s']:.1f}s CPU of {time.process_time() - c0:.1f}s")
    if ans.feasible is True:
        bad = check_schedule(tv, ans.starts, lo)
        if bad:
            return f"ERROR: the schedule found breaks: {'; '.join(bad)}"
        return f"FEASIBLE (a schedule re-checked with schedule_details; {work})"
    if ans.feasible is False:
        how = "every branch's LP positive" if st.get("exhausted") else f"Lagrangian bound {ans.bound:.6f} > 0"
        return f"INFEASIBLE (proven: {how}; {work})"
    extra = f", {st['config_branches']} slot-decision branches" if st.get("config_branches") else ""
    return f"UNDECIDED ({st.get('stopped', 'node')} budget{extra}; {work})"


def _D(tv) -> np.ndarray:
    """D_i = sum_t w_i h_i(t): the denominators of Eq. 3 after the last slot (shares X_i / D_i)."""
    upper = _upper_offline(tv, _fits(tv))
    return np.rint(1 / tvtsf_valuation(tv, upper=upper).slope).astype(int)


def pricing(seed: int) -> int:
    """``--model pricing``: one ``price_path`` per server type of the dense 10x10x20 instance of ``seed``."""
    import tracemalloc

    from fairalloc.exact.patterns import server_types

    tv = dense_time_varying_instance(10, 10, 20, rng=seed)
    c0 = time.process_time()
    types = server_types(tv, 5_000_000)
    print(f"dense 10x10x20 seed {seed}: tables built in {time.process_time() - c0:.2f}s CPU; "
          f"load average {os.getloadavg()}")
    g = np.random.default_rng(0)
    ub = np.minimum(np.cumsum(tv.arrivals, axis=1), 50)
    for k, st in enumerate(types):
        c = g.normal(size=(tv.n_agents, tv.n_slots))
        tracemalloc.start()
        c0 = time.process_time()
        v, y, _ = st.price_path(c, ub)
        cpu = time.process_time() - c0
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"type {k} (servers {st.servers}): {st.n_states} states, {len(st.pair_bounds)} room classes, "
              f"{st.n_entries} entries; one pricing {cpu:.3f}s CPU, peak {peak / 1e6:.1f} MB; value {v!r}, "
              f"{int(y.sum())} tasks")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", choices=["cpsat", "cpsat-time", "colgen", "milp", "patterns", "pricing"], required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threshold", default="76/1240", help="share every user must reach, num/den")
    ap.add_argument("--time-limit", type=float, default=600.0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--alpha", type=float, default=0.5, help="colgen: dual smoothing (0: off)")
    ap.add_argument("--pricing-limit", type=float, default=20.0, help="colgen: seconds per pricing MILP")
    ap.add_argument("--solver", choices=["highs", "cpsat"], default="highs", help="milp: the backend")
    ap.add_argument("--start-threshold", default=None,
                    help="milp: first solve at this lower threshold, num/den, and start from its schedule")
    ap.add_argument("--plain", action="store_true",
                    help="milp: deficits fixed at 0 (the plain feasibility question, no start)")
    ap.add_argument("--lns-rounds", type=int, default=0,
                    help="milp: large-neighbourhood search rounds (--time-limit each) instead of one solve; "
                         "from the --start-threshold schedule, else from tvtsf_greedy's")
    ap.add_argument("--lns-servers", type=int, default=3, help="milp: servers freed per LNS round")
    ap.add_argument("--lns-window", type=int, default=6, help="milp: slots freed per LNS round")
    ap.add_argument("--lns-seed", type=int, default=0, help="milp: the LNS's random choices")
    ap.add_argument("--elastic", action="store_true",
                    help="cpsat-time: minimise the total deficit, hinted with tvtsf_greedy's schedule")
    ap.add_argument("--cuts", action="store_true", help="cpsat-time: rounded rows of every capacity row")
    ap.add_argument("--strong", action="store_true",
                    help="milp: the position driver's strengthened copy (identical servers' loads ordered, "
                         "rounded capacity rows) instead of tvtsf_model's rows")
    ap.add_argument("--random-seed", type=int, default=None,
                    help="milp: the backend's random_seed option (HiGHS and CP-SAT)")
    ap.add_argument("--max-nodes", type=int, default=2000, help="patterns: branch-and-price nodes")
    ap.add_argument("--branching", choices=["nearest", "up", "config"], default="nearest",
                    help="patterns: which fractional start is branched on first ('config': a server's slot "
                         "decision first)")
    ap.add_argument("--cpu-limit", type=float, default=None, help="patterns: CPU seconds (a stop is UNDECIDED)")
    ap.add_argument("--store", default=None, help="milp: write a schedule of deficit 0 to this JSON file")
    args = ap.parse_args(argv)
    if args.model == "pricing":
        return pricing(args.seed)
    num, den = (int(v) for v in args.threshold.split("/"))
    tv, lo, hi = instance(args.seed, num, den)
    print(f"dense 10x10x20 seed {args.seed}: every user >= {num}/{den}, i.e. tasks >= {lo.tolist()}; model "
          f"{args.model}; load average {os.getloadavg()}", flush=True)
    t0, c0 = time.perf_counter(), time.process_time()
    if args.model == "cpsat":
        verdict = cpsat(tv, lo, args.time_limit, args.threads)
    elif args.model == "cpsat-time":
        verdict = cpsat_time(tv, lo, args)
    elif args.model == "milp":
        verdict = milp(tv, lo, args)
    elif args.model == "patterns":
        verdict = patterns(tv, lo, hi, args)
    else:
        verdict = ColumnGeneration(tv, lo, hi, args.pricing_limit).run(args.time_limit, args.alpha)
    print(f"verdict: {verdict}; {time.perf_counter() - t0:.1f}s wall, {time.process_time() - c0:.1f}s CPU; "
          f"load average {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
