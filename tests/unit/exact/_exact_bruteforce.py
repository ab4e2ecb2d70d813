"""Brute-force oracles for the exact programs, written from the definitions with exact rationals.

Nothing here calls the code under test except the monopoly count h_i (tested on its own in
``test_task_models.py``). Values are ``fractions.Fraction``: comparisons are exact, so these oracles
need none of the tolerance reasoning of ``fairalloc.exact.leximin``.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

from fairalloc import shares


def F(x) -> Fraction:
    return Fraction(x).limit_denominator(10**9) if isinstance(x, float) else Fraction(int(x))


def per_task_dominant(ti) -> list[Fraction]:
    """mu_i = max_r d_ir / sum_m C_mr, exactly."""
    tot = [sum(F(c) for c in col) for col in ti.cluster.capacities.T]
    return [max(F(d) / t for d, t in zip(row, tot)) for row in ti.task_demands]


def task_values(ti, mechanism: str):
    """x (tuple of totals) -> tuple of Fractions, straight from the definitions."""
    mu = per_task_dominant(ti)
    w = [F(v) for v in ti.weights]
    h = [F(v) for v in ti.monopoly]
    ct = [max(F(c) for c in row) for row in ti.commitments]
    if mechanism == "drf":
        return lambda x: tuple(x[i] * mu[i] / w[i] for i in range(len(x)))
    if mechanism == "sdrf":
        return lambda x: tuple((ct[i] + x[i] * mu[i]) / w[i] for i in range(len(x)))
    if mechanism == "tsf":
        return lambda x: tuple(Fraction(x[i]) / (w[i] * h[i]) for i in range(len(x)))
    if mechanism == "cdrf":
        return lambda x: tuple((x[i] + 1) * mu[i] / w[i] for i in range(len(x)))
    raise ValueError(mechanism)


def feasible_task_totals(ti) -> set[tuple[int, ...]]:
    """Every vector of per-user totals reachable by an integer placement (enumerating placements)."""
    n, m = ti.n_agents, ti.n_servers
    d = ti.task_demands
    caps = ti.cluster.capacities
    cells = [(i, k) for i in range(n) for k in range(m) if ti.placement[i, k]]
    ub = [int(min(ti.tasks[i], shares.tasks_that_fit(caps[k], d[i]))) for i, k in cells]
    out = set()
    for combo in itertools.product(*[range(u + 1) for u in ub]):
        use = np.zeros_like(caps)
        tot = [0] * n
        for (i, k), c in zip(cells, combo):
            use[k] += c * d[i]
            tot[i] += c
        if (use <= caps + 1e-9).all() and all(tot[i] <= ti.tasks[i] for i in range(n)):
            out.add(tuple(tot))
    return out


def best_leximin(vectors) -> tuple:
    """The lexicographically largest sorted vector."""
    return max(tuple(sorted(v)) for v in vectors)


def best_maxmin(vectors, movable) -> Fraction:
    return max(min(v[i] for i in movable) for v in vectors)


def feasible_tv_totals(tv) -> set[tuple[int, ...]]:
    """Every vector of per-user started totals of a feasible TV-TSF schedule (DFS over slots)."""
    n, m, T = tv.n_agents, tv.n_servers, tv.n_slots
    d = tv.task_demands
    e = tv.durations
    caps = tv.cluster.capacities
    cum = np.cumsum(tv.arrivals, axis=1)
    cells = [(i, k) for i in range(n) for k in range(m) if tv.placement[i, k]]
    out = set()

    def rec(t: int, usage: np.ndarray, started: tuple):
        if t == T:
            out.add(started)
            return
        pending = [int(cum[i, t]) - started[i] for i in range(n)]

        def place(j: int, use_t: np.ndarray, add: list, usage_now: np.ndarray):
            if j == len(cells):
                rec(t + 1, usage_now, tuple(started[i] + add[i] for i in range(n)))
                return
            i, k = cells[j]
            c = 0
            while True:
                if c > 0:
                    need = d[i, t]
                    # the task runs in slots t .. t+e_i-1 (inside the horizon)
                    trial = usage_now.copy()
                    trial[k, :, t:t + int(e[i])] += need[:, None]
                    if (trial[k] > caps[k][:, None] + 1e-9).any() or add[i] + 1 > pending[i]:
                        break
                    usage_now = trial
                    add[i] += 1
                place(j + 1, use_t, list(add), usage_now)
                c += 1
            return

        place(0, None, [0] * n, usage)

    rec(0, np.zeros((m, caps.shape[1], T)), tuple([0] * n))
    return out


def tv_values(tv):
    """x (totals) -> cumulative task shares after the last slot (Eq. 3), exactly."""
    h = tv.monopoly
    w = tv.weights
    den = [sum(F(w[i, t]) * F(h[i, t]) for t in range(tv.n_slots)) for i in range(tv.n_agents)]
    return lambda x: tuple(Fraction(x[i]) / den[i] for i in range(len(x)))


def tiny_task_instance(seed: int, *, max_users: int = 3, max_servers: int = 2, identical: bool = False,
                       weights: bool = False, commitments: bool = False):
    """A tiny, contended TaskInstance (small integer servers and demands), for enumeration."""
    from fairalloc import Cluster, TaskInstance

    g = np.random.default_rng(seed)
    n = int(g.integers(2, max_users + 1))
    m = int(g.integers(1, max_servers + 1))
    caps = g.integers(2, 7, size=(m, 2)).astype(float)
    if identical:
        d = np.repeat(g.integers(1, 3, size=(1, 2)), n, axis=0).astype(float)
    else:
        d = g.integers(1, 4, size=(n, 2)).astype(float)
    for i in range(n):                             # make the task fit on server 0
        d[i] = np.minimum(d[i], caps[0])
    p = g.random((n, m)) < 0.7
    p[:, 0] = True
    tasks = g.integers(1, 5, size=n) if not identical else np.full(n, int(g.integers(2, 5)))
    w = g.choice([1.0, 2.0, 3.0], size=n) if weights else None
    c = g.integers(0, 4, size=(n, 2)) / 10.0 if commitments else None
    return TaskInstance(Cluster(caps), d, tasks, placement=p, weights=w, commitments=c)


def tiny_tv_instance(seed: int, *, max_users: int = 3, max_servers: int = 2, max_slots: int = 3,
                     identical: bool = False):
    """A tiny, contended TimeVaryingInstance for enumeration."""
    from fairalloc import Cluster, TimeVaryingInstance

    g = np.random.default_rng(seed)
    n = int(g.integers(2, max_users + 1))
    m = int(g.integers(1, max_servers + 1))
    T = int(g.integers(2, max_slots + 1))
    caps = g.integers(2, 6, size=(m, 2)).astype(float)
    if identical:
        d = np.repeat(g.integers(1, 3, size=(1, 2)), n, axis=0).astype(float)
        arr = np.repeat(g.integers(0, 3, size=(1, T)), n, axis=0)
        arr[:, 0] = np.maximum(arr[:, 0], 1)
        dur = np.full(n, int(g.integers(1, 3)))
    else:
        d = g.integers(1, 4, size=(n, 2)).astype(float)
        arr = g.integers(0, 3, size=(n, T))
        dur = g.integers(1, 3, size=n)
    for i in range(n):
        d[i] = np.minimum(d[i], caps[0])
    p = g.random((n, m)) < 0.7
    p[:, 0] = True
    return TimeVaryingInstance(Cluster(caps), d, arr, dur, placement=p)
