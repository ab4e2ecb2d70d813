r"""Axiom predicates for allocations of tasks on servers (:class:`fairalloc.TaskInstance`).

An allocation is the matrix ``x[i, l]`` of user *i*'s tasks on server *l* (whole numbers for integer
tasks, any non-negative reals with ``divisible=True``). Utilities (``axioms.md``) are in tasks:
user *i* values a family of per-server bundles :math:`(A^l)_l` at
:math:`\min(K_i, \sum_{l\in E_i} f(A^l, d_i))`, where :math:`f` is
:func:`fairalloc.shares.tasks_that_fit` (integer: the floor per server) or
:func:`fairalloc.shares.leontief_utility` (divisible), and :math:`E_i` its eligible servers. Its own
bundle is worth its task count :math:`X_i = \sum_l x_{il}`. One server and integer tasks is the pooled
indivisible setting.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fairalloc import TaskInstance, shares

from . import _programs
from ._inputs import ATOL, server_tasks
from .verdict import Verdict, jsonable

__all__ = ["ServerData"]

UNIT = "tasks"


class ServerData:
    """Validated arrays of one task instance and task allocation."""

    def __init__(self, instance: TaskInstance, tasks: Any, *, divisible: bool = False,
                 atol: float | None = None) -> None:
        self.instance = instance
        self.divisible = divisible
        self.atol = ATOL if atol is None else float(atol)
        self.x = server_tasks(instance, tasks, divisible=divisible, atol=max(self.atol, ATOL))
        self.d = np.asarray(instance.task_demands, float)
        self.K = np.asarray(instance.tasks, float)
        self.P = np.asarray(instance.placement, bool)
        self.caps = np.asarray(instance.cluster.capacities, float)
        self.w = np.asarray(instance.weights, float)
        self.totals = np.asarray(instance.cluster.totals, float)
        self.commitments = np.asarray(instance.commitments, float)
        self.context: dict[str, Any] = {"setting": "servers", "instance": instance.to_dict()}
        self._derived()

    def _derived(self) -> None:
        self.n, self.M = self.x.shape
        self.X = self.x.sum(axis=1)
        self.satisfied = self.X >= self.K - self.atol

    @classmethod
    def from_arrays(cls, *, task_demands, tasks_wanted, placement, capacities, weights, allocation,
                    context: dict[str, Any], atol: float | None = None) -> "ServerData":
        """Integer task data built from arrays (already validated by the caller), e.g. one slot of a
        time-varying schedule: the free capacity of every server, the pending tasks, the slot's starts.

        ``context`` replaces the instance in witnesses (it must say how to rebuild the arrays).
        """
        self = cls.__new__(cls)
        self.instance = None
        self.divisible = False
        self.atol = ATOL if atol is None else float(atol)
        self.x = np.asarray(allocation, float)
        self.d = np.asarray(task_demands, float)
        self.K = np.asarray(tasks_wanted, float)
        self.P = np.asarray(placement, bool)
        self.caps = np.maximum(np.asarray(capacities, float), 0.0)
        self.w = np.asarray(weights, float)
        self.totals = self.caps.sum(axis=0)
        self.commitments = np.zeros_like(self.d)
        self.context = dict(context)
        self._derived()
        return self

    # -- utilities -------------------------------------------------------------------------
    def fit(self, bundle, demand) -> np.ndarray:
        """Tasks of ``demand`` a bundle runs (floor for integer tasks), broadcasting."""
        if self.divisible:
            return shares.leontief_utility(bundle, demand, cap=np.inf)
        return shares.tasks_that_fit(bundle, demand)

    def bundles(self) -> np.ndarray:
        """(n, M, R) per-server bundles x_il d_i."""
        return self.x[:, :, None] * self.d[:, None, :]

    def value_matrix(self, bundles=None) -> np.ndarray:
        """U[i, j] = u_i(A_j): i's tasks on j's per-server bundles, eligible servers only, capped at K_i."""
        B = self.bundles() if bundles is None else bundles
        per = self.fit(B[None, :, :, :], self.d[:, None, None, :])          # (n, n, M)
        per = np.where(self.P[:, None, :], per, 0.0)
        return np.minimum(per.sum(axis=2), self.K[:, None])

    def leftover(self) -> np.ndarray:
        """(M, R) free capacity per server."""
        return self.caps - np.einsum("il,ir->lr", self.x, self.d)

    def witness(self, axiom: str, variant: str, **extra: Any) -> dict[str, Any]:
        w = {"kind": "allocation", "axiom": axiom, "variant": variant, **self.context,
             "divisible": self.divisible, "tasks": self.x.tolist(),
             "utilities": self.X.tolist(), "utility_unit": UNIT, "atol": self.atol}
        w.update({k: jsonable(v) for k, v in extra.items()})
        return w


def sharing_incentive(s: ServerData, variant: str) -> Verdict:
    axiom = "sharing-incentive"
    if variant == "commitment":
        mu = shares.dominant_shares(s.d, s.totals)
        have = s.X * mu
        g = shares.commitment_entitlements(s.commitments, s.w)
        ref = np.minimum(s.K * mu, g)
        unit = "dominant share"
    else:
        frac = shares.fair_shares(s.w) if variant == "weighted" else np.full(s.n, 1.0 / s.n)
        per = s.fit(s.caps[None, :, :] * frac[:, None, None], s.d[:, None, :])     # (n, M)
        ref = np.minimum(np.where(s.P, per, 0.0).sum(axis=1), s.K)
        have, unit = s.X, UNIT
    slack = have - ref
    i = int(np.argmin(slack))
    if slack[i] >= -s.atol:
        return Verdict(True, None, f"every user gets at least its {variant} fair-share value "
                       f"(smallest slack {slack[i]:.6g} {unit})", variant, axiom, float(slack[i]))
    wit = s.witness(axiom, variant, user=i, have=have[i], reference=ref[i], shortfall=-slack[i],
                    violators=np.flatnonzero(slack < -s.atol).tolist(), unit=unit)
    return Verdict(False, wit, f"user {i} gets {have[i]:.6g} < {ref[i]:.6g} {unit} ({variant} sharing incentive)",
                   variant, axiom, float(slack[i]))


def envy_free(s: ServerData, variant: str) -> Verdict:
    axiom = "envy-free"
    U = s.value_matrix()
    mu = shares.dominant_shares(s.d, s.totals)
    ct = shares.dominant_commitment(s.commitments)
    best = None
    for i in range(s.n):
        if s.satisfied[i]:
            continue
        for j in range(s.n):
            if j == i:
                continue
            if variant == "plain":
                gap = U[i, j] - s.X[i]
            elif variant == "weighted":
                gap = U[i, j] * s.w[i] / s.w[j] - s.X[i]
            elif variant == "commitment":
                if not (U[i, j] > s.X[i] + s.atol and s.X[j] > s.atol):
                    continue
                gap = shares.commitment_envy_gap(mu[i] * s.X[i], mu[i] * U[i, j], ct[i], ct[j], s.w[i], s.w[j])
            else:
                raise ValueError(variant)
            if best is None or gap > best[0]:
                best = (gap, i, j)
    if best is None or best[0] <= s.atol:
        return Verdict(True, None, f"nobody envies anybody ({variant}, placement as given)", variant, axiom,
                       None if best is None else -float(best[0]))
    gap, i, j = best
    wit = s.witness(axiom, variant, envious=i, envied=j, u_own=s.X[i], u_other=U[i, j], excess=gap,
                    placement_mode="given")
    return Verdict(False, wit, f"user {i} envies user {j}: {U[i, j]:.6g} vs {s.X[i]:.6g} tasks ({variant})",
                   variant, axiom, -float(gap))


def envy_free_any_placement(s: ServerData, variant: str, time_limit: float | None = None) -> Verdict:
    """Is some placement of the same task totals envy-free? (the disjunction of LPs, as one MILP)."""
    axiom = "envy-free"
    if variant not in ("plain", "weighted"):
        raise ValueError("placement='any' supports variant 'plain' or 'weighted'")
    given = envy_free(s, variant)
    if given.holds:
        return Verdict(True, None, "the given placement is already envy-free", variant, axiom)
    out = _programs.envy_free_placement(s.d, s.caps, s.P, s.X, s.K, s.w, integer=not s.divisible,
                                        weighted=variant == "weighted", time_limit=time_limit)
    if out.ok:
        return Verdict(True, None, "an envy-free placement of the same task totals exists "
                       "(stats['placement'])", variant, axiom, stats={"placement": out.x.tolist()})
    if out.status != "infeasible":
        return Verdict(None, None, f"MILP not solved: {out.status} {out.message}", variant, axiom, status=out.status)
    wit = dict(given.witness)
    wit.update(placement_mode="any", totals=s.X.tolist())
    return Verdict(False, wit, "no placement of these task totals is envy-free (MILP infeasible); "
                   + given.detail, variant, axiom, given.margin)


def ef1(s: ServerData, variant: str) -> Verdict:
    axiom = "ef1"
    if s.divisible:
        raise ValueError("EF1 is defined for integer tasks (divisible=False)")
    U = s.value_matrix()
    for i in range(s.n):
        for j in range(s.n):
            if i == j or s.X[j] < 1:
                continue
            if variant == "gain":
                if U[i, j] > s.X[i] + 1 + s.atol:
                    wit = s.witness(axiom, variant, envious=i, envied=j, u_own=s.X[i], u_other=U[i, j])
                    return Verdict(False, wit, f"u_{i}(A_{j}) = {U[i, j]:.6g} > x_{i} + 1 = {s.X[i] + 1:.6g}",
                                   variant, axiom, float(s.X[i] + 1 - U[i, j]))
            elif variant == "remove":
                if U[i, j] <= s.X[i] + s.atol:
                    continue
                best = np.inf
                for l in np.flatnonzero(s.x[j] >= 1):
                    B = s.bundles()
                    B[j, l] = (s.x[j, l] - 1) * s.d[j]
                    best = min(best, s.value_matrix(B)[i, j])
                if best > s.X[i] + s.atol:
                    wit = s.witness(axiom, variant, envious=i, envied=j, u_own=s.X[i], u_other=U[i, j],
                                    u_other_after_best_removal=best)
                    return Verdict(False, wit, f"user {i} still envies user {j} after removing any one task "
                                   f"({best:.6g} > {s.X[i]:.6g})", variant, axiom, float(s.X[i] - best))
            else:
                raise ValueError(variant)
    return Verdict(True, None, f"EF1-{variant} holds for every pair", variant, axiom)


def non_wasteful(s: ServerData, variant: str) -> Verdict:
    axiom = "non-wasteful" if variant != "bottleneck" else "bottleneck"
    left = s.leftover()
    for i in np.flatnonzero(~s.satisfied):
        for l in np.flatnonzero(s.P[i]):
            room = float(s.fit(np.maximum(left[l], 0.0), s.d[i]))
            if (not s.divisible and room >= 1) or (s.divisible and room > s.atol):
                wit = s.witness(axiom, variant, user=int(i), server=int(l), leftover=left[l], room=room)
                what = "a next task fits" if not s.divisible else f"{room:.6g} more tasks fit"
                return Verdict(False, wit, f"user {i} is unsatisfied and {what} in server {l}'s leftover "
                               f"{left[l].round(9).tolist()}", variant, axiom, -room)
    return Verdict(True, None, "no unsatisfied user's task fits in any eligible server's leftover", variant, axiom)


def pareto(s: ServerData, variant: str, time_limit: float | None = None) -> Verdict:
    axiom = "pareto"
    if s.satisfied.all():
        return Verdict(True, None, "every user is satisfied", variant, axiom)
    out = _programs.dominating_servers(s.d, s.caps, s.P, s.X, s.K, integer=not s.divisible,
                                       weak=variant == "weak", time_limit=time_limit)
    if out.status == "infeasible" and variant == "weak":
        return Verdict(True, None, "no allocation gives every unsatisfied user more (MILP/LP infeasible)",
                       variant, axiom)
    if not out.ok:
        return Verdict(None, None, f"{'MILP' if not s.divisible else 'LP'} not solved: {out.status} {out.message}",
                       variant, axiom, status=out.status)
    y = out.x
    if variant == "strong":
        gain = out.value - s.X.sum()
        need = 1.0 - 1e-6 if not s.divisible else s.atol + 1e-9
        if gain < need:
            return Verdict(True, None, f"no allocation dominates (best total {out.value:.6g} tasks)", variant, axiom)
    else:
        gain = out.value
        if s.divisible and gain <= s.atol + 1e-9:
            return Verdict(True, None, "no allocation gives every unsatisfied user more", variant, axiom)
    wit = s.witness(axiom, variant, improved_tasks=np.round(y, 9), improved_totals=np.round(y.sum(axis=1), 9),
                    gain=gain)
    return Verdict(False, wit, f"a feasible allocation dominates ({variant}): totals {np.round(y.sum(axis=1), 6).tolist()} "
                   f"vs {s.X.tolist()}", variant, axiom, -float(gain))
