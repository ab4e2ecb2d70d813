"""Greedy shrinking of a counterexample: fewer users, resources and periods, simpler numbers.

Hypothesis finds the first failing case of a campaign; re-running a whole strategy-proofness search
for every shrink step of hypothesis would be slow, so campaigns shrink the witness themselves: try
each simplification (drop a user, a resource, a period; round demands, capacities, weights,
commitments, discounts), keep it when the claim still fails on the smaller case (the previous
witness's lie is tried first), repeat until nothing simplifies. Every candidate stays inside the
claim's :class:`~proofs_check.claims.Domain` (no zero demands or caps where the row excludes them).
"""

from __future__ import annotations

import time
from typing import Iterator

import numpy as np

from fairalloc import Cluster, Instance, TaskInstance, TimeVaryingInstance, shares
from fairalloc.errors import InvalidInstanceError

from .cases import Case
from .checks import check_case
from .claims import Claim, Domain, claim_domain
from .repeated import RepeatedGame
from .verdict import Verdict

__all__ = ["shrink", "in_domain"]


def in_domain(domain: Domain, case: Case) -> bool:
    """Does ``case`` belong to the instances ``domain`` describes?

    The shrinker keeps only candidates inside the claim's domain, so a reduced counterexample still
    speaks about the claim (e.g. no zero demand for a row that assumes positive demands).

    Parameters
    ----------
    domain : Domain
        The claim's instances (:func:`proofs_check.claims.claim_domain`).
    case : Case
        A pooled, server, time-varying or repeated-game case.

    Returns
    -------
    bool
        The case's setting, sizes, demands, weights, caps, placement and commitments are those the
        domain allows.

    Examples
    --------
    DRF's row assumes positive demands that exceed the capacity (no caps): (2, 1) and (1, 2) on unit
    capacities are in it, a zero demand is not:

    >>> import fairalloc as fa
    >>> from proofs_check.cases import Case
    >>> from proofs_check.claims import MECHANISMS
    >>> dom = MECHANISMS["drf"].domain
    >>> in_domain(dom, Case(fa.Instance([[2, 1], [1, 2]]))), in_domain(dom, Case(fa.Instance([[1, 0], [2, 2]])))
    (True, False)
    """
    if case.game is not None:
        g = case.game
        if g.n_agents < 1 or not (domain.n_resources[0] <= g.n_resources <= domain.n_resources[1]):
            return False
        present = g.tasks > 0
        if not domain.zero_demands and (present[:, :, None] & (g.task_demands <= 0)).any():
            return False
        if not domain.weights and not np.all(g.weights == 1):
            return False
        if not domain.caps:
            dom = g.tasks * (g.task_demands / g.capacities).max(axis=2)
            if (present & (dom <= 1)).any():
                return False
        return True
    inst = case.instance
    if isinstance(inst, TimeVaryingInstance):
        return (domain.setting == "time-varying" and inst.n_agents >= 1
                and domain.n_resources[0] <= inst.n_resources <= domain.n_resources[1]
                and inst.n_servers <= domain.n_servers[1] and inst.n_slots <= domain.n_slots[1]
                and (domain.placement or bool(inst.placement.all()))
                and (domain.weights or bool(np.all(inst.weights == 1))))
    if isinstance(inst, TaskInstance):
        return (domain.setting == "servers" and inst.n_agents >= 1
                and domain.n_resources[0] <= inst.n_resources <= domain.n_resources[1]
                and inst.n_servers <= domain.n_servers[1]
                and (domain.placement or bool(inst.placement.all()))
                and (domain.weights or bool(np.all(inst.weights == 1)))
                and (domain.commitments or not np.any(inst.commitments)))
    if domain.setting != "pooled":
        return False
    if inst.n_agents < 1 or not (domain.n_resources[0] <= inst.n_resources <= domain.n_resources[1]):
        return False
    if not domain.zero_demands and (inst.demands <= 0).any():
        return False
    if not domain.weights and not np.all(inst.weights == 1):
        return False
    if not domain.caps and (shares.dominant_shares(inst.demands, inst.capacities) <= 1).any():
        return False
    if domain.commitments != (case.commitments is not None) and case.commitments is not None:
        return False
    return True


def _round(x: np.ndarray, digits: int, keep_positive: bool) -> np.ndarray:
    r = np.round(x, digits)
    if keep_positive:
        r = np.where((x > 0) & (r <= 0), 10.0 ** -digits, r)
    return r


def _pooled_candidates(case: Case) -> Iterator[Case]:
    inst, c = case.instance, case.commitments
    n, m = inst.n_agents, inst.n_resources
    for k in range(n):                                       # drop a user
        if n > 1:
            keep = [i for i in range(n) if i != k]
            yield Case(Instance(inst.demands[keep], inst.capacities, inst.weights[keep]),
                       None if c is None else c[keep])
    for r in range(m):                                       # drop a resource
        if m > 1:
            keep = [q for q in range(m) if q != r]
            d = inst.demands[:, keep]
            if (d > 0).any(axis=1).all():
                yield Case(Instance(d, inst.capacities[keep], inst.weights), None if c is None else c[:, keep])
    a = shares.normalized_demands(inst.demands, inst.capacities)
    if not np.all(inst.capacities == 1):
        yield Case(Instance(a, None, inst.weights), c)       # unit capacities (same shares)
    for digits in (0, 1, 2):
        r = _round(a, digits, keep_positive=True)
        if not np.array_equal(r, a) and (r > 0).any(axis=1).all():
            yield Case(Instance(r, None, inst.weights), c)
    for i in range(n):                                       # one user at a time
        for digits in (1, 2):
            r = a.copy()
            r[i] = _round(a[i], digits, keep_positive=True)
            if not np.array_equal(r, a):
                yield Case(Instance(r, None, inst.weights), c)
    if not np.all(inst.weights == 1):
        yield Case(inst.replace(weights=None), c)
        yield Case(inst.replace(weights=np.round(inst.weights)), c) if np.all(np.round(inst.weights) > 0) else None
    if c is not None:
        if np.any(c != 0):
            yield Case(inst, np.zeros_like(c))
        for i in range(n):
            if np.any(c[i] != 0):
                cc = c.copy(); cc[i] = 0
                yield Case(inst, cc)
        for digits in (1, 2):
            r = np.round(c, digits)
            if not np.array_equal(r, c):
                yield Case(inst, r)


def _server_candidates(case: Case) -> Iterator[Case]:
    ti = case.instance
    n, M, K = ti.n_agents, ti.n_servers, ti.n_resources
    d, k, P = ti.task_demands, ti.tasks, ti.placement
    caps, w, c = ti.cluster.capacities, ti.weights, ti.commitments

    def make(caps_=caps, d_=d, k_=k, P_=P, w_=w, c_=c):
        try:
            return Case(TaskInstance(Cluster(caps_), d_, k_, P_, w_, c_))
        except InvalidInstanceError:                     # e.g. a task that no longer fits anywhere
            return None

    for i in range(n):                                       # drop a user
        if n > 1:
            keep = [j for j in range(n) if j != i]
            yield make(d_=d[keep], k_=k[keep], P_=P[keep], w_=w[keep], c_=c[keep])
    yield from _drop_servers(caps, P, make)
    for r in range(K):                                       # drop a resource
        if K > 1:
            keep = [q for q in range(K) if q != r]
            if (d[:, keep] > 0).any(axis=1).all() and (caps[:, keep] > 0).any(axis=0).all():
                yield make(caps_=caps[:, keep], d_=d[:, keep], c_=c[:, keep])
    for i in range(n):                                       # fewer tasks
        for kk in sorted({1, int(k[i]) - 1} - {int(k[i])}):
            if 0 <= kk < k[i]:
                kv = k.copy(); kv[i] = kk
                yield make(k_=kv)
    if not P.all():
        yield make(P_=np.ones_like(P))
    for l in range(M):                                       # smaller servers
        for r in range(K):
            if caps[l, r] > 1:
                cv = caps.copy(); cv[l, r] -= 1
                yield make(caps_=cv)
    for i in range(n):                                       # smaller tasks
        for r in range(K):
            if d[i, r] > 1 or (d[i, r] > 0 and (d[i] > 0).sum() > 1):
                dv = d.copy(); dv[i, r] -= 1 if d[i, r] > 1 else d[i, r]
                yield make(d_=dv)
    if not np.all(w == 1):
        yield make(w_=np.ones(n))
    if np.any(c):
        yield make(c_=np.zeros_like(c))


def _drop_servers(caps: np.ndarray, P: np.ndarray, make) -> Iterator[Case]:
    """Candidates without one server (when every user keeps an eligible server): task and time-varying cases."""
    M = caps.shape[0]
    for l in range(M):
        if M > 1:
            keep = [q for q in range(M) if q != l]
            if P[:, keep].any(axis=1).all():
                yield make(caps_=caps[keep], P_=P[:, keep])


def _tv_candidates(case: Case) -> Iterator[Case]:
    tv = case.instance
    n, M, K, T = tv.n_agents, tv.n_servers, tv.n_resources, tv.n_slots
    d, a, e, P = tv.task_demands, tv.arrivals, tv.durations, tv.placement
    caps, w = tv.cluster.capacities, tv.weights

    def make(caps_=caps, d_=d, a_=a, e_=e, P_=P, w_=w):
        try:
            return case.replace(instance=TimeVaryingInstance(Cluster(caps_), d_, a_, e_, P_, w_))
        except InvalidInstanceError:                     # e.g. a task that no longer fits anywhere
            return None

    for i in range(n):                                       # drop a user
        if n > 1:
            keep = [j for j in range(n) if j != i]
            yield make(d_=d[keep], a_=a[keep], e_=e[keep], P_=P[keep], w_=w[keep])
    for t in range(T):                                       # drop a slot (later ones move up)
        if T > 1:
            keep = [s for s in range(T) if s != t]
            yield make(d_=d[:, keep], a_=a[:, keep], w_=w[:, keep])
    yield from _drop_servers(caps, P, make)
    for r in range(K):                                       # drop a resource
        if K > 1:
            keep = [q for q in range(K) if q != r]
            if (d[:, :, keep] > 0).any(axis=2).all():
                yield make(caps_=caps[:, keep], d_=d[:, :, keep])
    for i in range(n):                                       # fewer submissions, shorter tasks
        for t in range(T):
            if a[i, t] > 0:
                av = a.copy(); av[i, t] -= 1
                yield make(a_=av)
        if e[i] > 1:
            ev = e.copy(); ev[i] -= 1
            yield make(e_=ev)
    if not P.all():
        yield make(P_=np.ones_like(P))
    if T > 1 and not (d == d[:, :1]).all():                  # constant demands
        yield make(d_=np.repeat(d[:, :1], T, axis=1))
    for l in range(M):                                       # smaller servers
        for r in range(K):
            if caps[l, r] > 1:
                cv = caps.copy(); cv[l, r] -= 1
                yield make(caps_=cv)
    for i in range(n):                                       # smaller tasks (every slot at once)
        for r in range(K):
            col = d[i, :, r]
            if (col > 1).any() or ((col > 0).any() and ((d[i] > 0).sum(axis=1) > 1).all()):
                dv = d.copy(); dv[i, :, r] = np.where(col > 1, col - 1, 0.0 if ((d[i] > 0).sum(axis=1) > 1).all() else col)
                yield make(d_=dv)
    if not np.all(w == 1):
        yield make(w_=np.ones_like(w))
    if case.gamma is not None and case.gamma != 1.0:
        yield case.replace(gamma=1.0)


def _game_candidates(case: Case) -> Iterator[Case]:
    g = case.game
    T, n, m = g.n_periods, g.n_agents, g.n_resources
    for t in range(T):                                       # drop a period
        if T > 1:
            keep = [s for s in range(T) if s != t]
            yield case.replace(game=RepeatedGame(g.capacities, g.task_demands[keep], g.tasks[keep], g.weights))
    for k in range(n):                                       # drop a user
        if n > 1:
            keep = [i for i in range(n) if i != k]
            yield case.replace(game=RepeatedGame(g.capacities, g.task_demands[:, keep], g.tasks[:, keep],
                                                 g.weights[keep]))
    for r in range(m):
        if m > 1:
            keep = [q for q in range(m) if q != r]
            d = g.task_demands[:, :, keep]
            ok = ((g.tasks <= 0) | (d > 0).any(axis=2)).all()
            if ok:
                yield case.replace(game=RepeatedGame(g.capacities[keep], d, g.tasks, g.weights))
    if case.gamma is not None and case.gamma != 1.0:
        yield case.replace(gamma=1.0)
    if case.delta is not None and case.delta != 0.5:
        yield case.replace(delta=0.5)
    # simpler numbers: per-task vectors with dominant entry 1 and rounded dominant totals
    a = g.task_demands / g.capacities
    mu = a.max(axis=2)
    safe = np.where(mu > 0, mu, 1.0)
    v = a / safe[:, :, None]
    tot = g.tasks * mu
    for digits in (1, 2):
        vr = _round(v, digits, keep_positive=True)
        tr = np.where(tot > 0, np.maximum(np.round(tot, digits), 10.0 ** -digits), 0.0)
        cand = RepeatedGame(np.ones(m), vr, tr, g.weights)
        if not (np.array_equal(vr, v) and np.array_equal(tr, g.tasks) and np.all(g.capacities == 1)):
            yield case.replace(game=cand)
    if not np.all(g.weights == 1):
        yield case.replace(game=g.replace(weights=np.ones(n)))


def shrink(claim: Claim, case: Case, verdict: Verdict, *, seed: int = 0, budget: int | None = None,
           time_limit: float = 60.0, max_checks: int = 400) -> tuple[Case, Verdict, dict]:
    """Shrink a failing ``case`` of ``claim`` while the claim keeps failing.

    Returns the smallest case found, its verdict (a violation), and stats (checks run, steps taken;
    ``stopped``: ``"checks"`` when ``max_checks`` candidates were checked, ``"time"`` when
    ``time_limit`` seconds ran out first; absent when no candidate shrinks the case further). Bound
    the work by ``max_checks`` for a result that does not depend on the machine's speed; the time
    limit is then a safety cap.

    Candidates (drop a user, a resource or a server; round demands; unit capacities and weights;
    zero commitments; shorter games) are tried in a fixed order; the first that still fails the
    claim, inside the claim's domain (:func:`in_domain`), replaces the case, until none does.

    Parameters
    ----------
    claim : Claim
        The claim the case refutes.
    case : Case
        The failing case.
    verdict : Verdict
        Its failing verdict; its witness is the hint the candidates' searches try first.
    seed : int, default 0
        Seed of the candidates' searches (:func:`proofs_check.checks.check_case`).
    budget : int, optional
        Lies or deviations per user in those searches.
    time_limit : float, default 60.0
        Safety cap in seconds.
    max_checks : int, default 400
        Candidates checked at most.

    Returns
    -------
    tuple of (Case, Verdict, dict)
        The smallest failing case, its verdict and the stats.

    Examples
    --------
    Floored divisible TSF's sharing-incentive finding (``FINDINGS["tsf/si/plain"]``), started from
    two resources; dropping resource 1 leaves the finding's instance, one server <4> with tasks of 3
    and 4 units, where TSF gives 4/7 task each, below the 2/3 user 0 gets on half the server:

    >>> import fairalloc as fa
    >>> from proofs_check.cases import Case
    >>> from proofs_check.checks import check_case
    >>> from proofs_check.claims import claims_for
    >>> claim = claims_for("tsf", "si")[0]
    >>> case = Case(fa.TaskInstance([[4, 4]], [[3, 1], [4, 1]], tasks=[1, 1]))
    >>> small, v, stats = shrink(claim, case, check_case(claim, case), max_checks=20)
    >>> small.instance.cluster.capacities.tolist(), small.instance.task_demands.tolist(), v.holds
    ([[4.0]], [[3.0], [4.0]], False)
    """
    domain = claim_domain(claim)
    t0 = time.perf_counter()
    checks = steps = 0
    current, cur_v = case, verdict
    improved = True
    while improved:
        improved = False
        if current.game is not None:
            gen = _game_candidates(current)
        elif isinstance(current.instance, TimeVaryingInstance):
            gen = _tv_candidates(current)
        elif isinstance(current.instance, TaskInstance):
            gen = _server_candidates(current)
        else:
            gen = _pooled_candidates(current)
        for cand in gen:
            if cand is None:
                continue
            if checks >= max_checks:
                return current, cur_v, {"checks": checks, "steps": steps, "stopped": "checks"}
            if time.perf_counter() - t0 > time_limit:
                return current, cur_v, {"checks": checks, "steps": steps, "stopped": "time"}
            try:
                if not in_domain(domain, cand):
                    continue
                v = check_case(claim, cand, seed=seed, budget=budget, hint=cur_v.witness)
            except (InvalidInstanceError, ValueError):
                continue
            checks += 1
            if v.violated:
                current, cur_v = cand, v
                steps += 1
                improved = True
                break
    return current, cur_v, {"checks": checks, "steps": steps}
