"""Axiom predicates for pooled, divisible allocations (:class:`fairalloc.Instance`).

Utilities are fractions of each user's total demand (SDRF Eq. 1), computed only by
:func:`fairalloc.shares.leontief_utility`; see :mod:`proofs_check.units` for the per-task view of
``axioms.md`` (the factor :math:`K_i` cancels in every comparison made here). With ``exact=True`` all
arithmetic is on ``fractions.Fraction`` (floats are converted exactly) and the default tolerance is 0.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from fairalloc import Instance, shares
from fairalloc.commitments import as_commitments

from . import _programs
from ._inputs import ATOL, as_float, exact_array, pooled_allocation
from .verdict import Verdict, jsonable

__all__ = ["PooledData", "sharing_incentive", "envy_free", "bottleneck", "non_wasteful", "pareto"]

UNIT = "fraction of the user's total demand (SDRF Eq. 1)"


class PooledData:
    """Validated arrays of one pooled instance and allocation, float or exact."""

    def __init__(self, instance: Instance, allocation: Any, *, commitments: Any = None,
                 atol: float | None = None, exact: bool = False) -> None:
        self.instance = instance
        self.exact = exact
        tol = (0.0 if exact else ATOL) if atol is None else float(atol)
        self.atol = tol
        self.tol = Fraction(tol) if exact else tol
        conv = exact_array if exact else (lambda a: np.asarray(a, dtype=float))
        self.A = pooled_allocation(instance, allocation, atol=max(tol, ATOL) if not exact else tol, exact=exact)
        self.theta = conv(instance.demands)
        self.C = conv(instance.capacities)
        self.w = conv(instance.weights)
        self.n, self.m = instance.n_agents, instance.n_resources
        self.raw_commitments = None
        self.c = None
        if commitments is not None:
            fl = as_commitments(as_float(exact_array(commitments)) if exact else commitments, self.n, self.m)
            self.raw_commitments = fl
            if exact:                                # keep exact rationals given as Fractions or "p/q"
                ex = exact_array(commitments)
                self.c = ex.reshape(self.n, self.m)
            else:
                self.c = fl
        self.u = shares.leontief_utility(self.A, self.theta)              # (n,) fractions
        self.one = Fraction(1) if exact else 1.0
        self.satisfied = np.array([ui >= self.one - self.tol for ui in self.u], dtype=bool)

    def witness(self, axiom: str, variant: str, **extra: Any) -> dict[str, Any]:
        w = {"kind": "allocation", "setting": "pooled", "axiom": axiom, "variant": variant,
             "instance": self.instance.to_dict(), "allocation": jsonable(self.A),
             "utilities": jsonable(self.u), "utility_unit": UNIT, "atol": self.atol, "exact": self.exact}
        if self.raw_commitments is not None:
            w["commitments"] = self.raw_commitments.tolist()
        w.update({k: jsonable(v) for k, v in extra.items()})
        return w

    def usage(self) -> np.ndarray:
        """Normalised total usage of each resource."""
        return shares.normalized_demands(self.A.sum(axis=0), self.C)

    def need(self) -> np.ndarray:
        return np.asarray(as_float(self.theta) > 0)


def _fmt(x: Any) -> str:
    return f"{float(x):.6g}" if not isinstance(x, Fraction) else str(x)


def sharing_incentive(d: PooledData, variant: str) -> Verdict:
    axiom = "sharing-incentive"
    if variant == "commitment":
        if d.c is None:
            raise ValueError("variant='commitment' needs commitments")
        s = shares.dominant_shares(d.A, d.C)
        D = shares.dominant_shares(d.theta, d.C)
        g = shares.commitment_entitlements(d.c, d.w)
        ref = np.minimum(D, g)
        have, unit = s, "dominant share"
    else:
        fair = shares.fair_shares(d.w) if variant == "weighted" else np.full(d.n, d.one / d.n, dtype=object if d.exact else float)
        bundles = d.C[None, :] * np.asarray(fair)[:, None]
        ref = shares.leontief_utility(bundles, d.theta)
        have, unit = d.u, UNIT
    slack = np.array([h - r for h, r in zip(have, ref)], dtype=object if d.exact else float)
    worst = int(np.argmin(as_float(slack)))
    margin = float(slack[worst])
    if slack[worst] >= -d.tol:
        return Verdict(True, None, f"every user gets at least its {variant} fair-share utility "
                       f"(smallest slack {_fmt(slack[worst])} in {unit})", variant, axiom, margin)
    bad = [int(i) for i in np.flatnonzero(as_float(slack) < -float(d.tol))]
    wit = d.witness(axiom, variant, user=worst, have=have[worst], reference=ref[worst],
                    shortfall=-slack[worst], violators=bad, unit=unit)
    if variant != "commitment":
        wit["reference_bundle"] = jsonable(bundles[worst])
    else:
        wit["entitlement"] = jsonable(g[worst])
    return Verdict(False, wit, f"user {worst} gets {_fmt(have[worst])} < {_fmt(ref[worst])} ({unit}, "
                   f"{variant} sharing incentive)", variant, axiom, margin)


def envy_free(d: PooledData, variant: str) -> Verdict:
    axiom = "envy-free"
    U = shares.leontief_utility(d.A[None, :, :], d.theta[:, None, :])   # U[i, j] = u_i(A_j)
    n = d.n
    worst_gap, worst_pair = None, None
    s = D = None
    if variant == "commitment":
        if d.c is None:
            raise ValueError("variant='commitment' needs commitments")
        s = shares.dominant_shares(d.A, d.C)
        D = shares.dominant_shares(d.theta, d.C)
        ct = shares.dominant_commitment(d.c)
    for i in range(n):
        if d.satisfied[i]:
            continue                                    # a satisfied user envies nobody (u_i <= 1 = u_i(A_i))
        for j in range(n):
            if j == i:
                continue
            if variant == "plain":
                gap = U[i, j] - U[i, i]
            elif variant == "weighted":
                gap = U[i, j] * d.w[i] / d.w[j] - U[i, i]
            elif variant == "commitment":
                if not (U[i, j] > U[i, i] + d.tol) or not (s[j] > d.tol):
                    continue                            # no plain envy, or j received nothing
                gap = shares.commitment_envy_gap(s[i], D[i] * U[i, j], ct[i], ct[j], d.w[i], d.w[j])
            else:
                raise ValueError(variant)
            if worst_gap is None or gap > worst_gap:
                worst_gap, worst_pair = gap, (i, j)
    if worst_gap is None or worst_gap <= d.tol:
        margin = None if worst_gap is None else -float(worst_gap)
        return Verdict(True, None, f"nobody envies anybody ({variant})", variant, axiom, margin)
    i, j = worst_pair
    extra: dict[str, Any] = dict(envious=i, envied=j, u_own=U[i, i], u_other=U[i, j], excess=worst_gap)
    if variant == "weighted":
        extra.update(w_envious=d.w[i], w_envied=d.w[j])
    if variant == "commitment":
        extra.update(commitment_envious=ct[i], commitment_envied=ct[j], share_envious=s[i],
                     demand_share_envious=D[i])
    wit = d.witness(axiom, variant, **extra)
    return Verdict(False, wit, f"user {i} envies user {j}: u_{i}(A_{j}) = {_fmt(U[i, j])} vs "
                   f"u_{i}(A_{i}) = {_fmt(U[i, i])} ({variant}, violation {_fmt(worst_gap)})",
                   variant, axiom, -float(worst_gap))


def _saturated(d: PooledData, usage) -> np.ndarray:
    return np.array([x >= d.one - d.tol for x in usage], dtype=bool)


def bottleneck(d: PooledData, variant: str = "plain") -> Verdict:
    axiom = "bottleneck"
    usage = d.usage()
    sat = _saturated(d, usage)
    need = d.need()
    bad = [i for i in range(d.n) if not d.satisfied[i] and not (need[i] & sat).any()]
    if not bad:
        return Verdict(True, None, "every user is satisfied or needs a saturated resource", variant, axiom)
    i = bad[0]
    wit = d.witness(axiom, variant, user=i, needs=np.flatnonzero(need[i]).tolist(), usage=usage,
                    violators=bad)
    return Verdict(False, wit, f"user {i} is unsatisfied (u = {_fmt(d.u[i])}) but none of the resources "
                   f"it needs {np.flatnonzero(need[i]).tolist()} is saturated", variant, axiom)


def non_wasteful(d: PooledData, variant: str = "divisible") -> Verdict:
    axiom = "non-wasteful"
    minimal = d.u[:, None] * d.theta                          # the part of each bundle that is used
    excess = d.A - minimal
    exn = as_float(shares.normalized_demands(excess, d.C))
    tolf = float(d.tol)
    if (exn > tolf).any():
        i, r = (int(v) for v in np.argwhere(exn > tolf)[0])
        wit = d.witness(axiom, variant, user=i, resource=r, held=d.A[i, r], used=minimal[i, r],
                        reason="bundle not proportional to the demand")
        return Verdict(False, wit, f"user {i} holds {_fmt(d.A[i, r])} of resource {r} but uses only "
                       f"{_fmt(minimal[i, r])} (bundle not proportional to its demand)", variant, axiom,
                       -float(exn[i, r]))
    b = bottleneck(d)
    if not b.holds:
        wit = dict(b.witness)
        wit.update(axiom=axiom, variant=variant, reason="bottleneck fails")
        return Verdict(False, wit, b.detail, variant, axiom)
    return Verdict(True, None, "bundles are proportional to demands and every unsatisfied user is "
                   "bottlenecked", variant, axiom)


def _inside(d: PooledData, room):
    """A float room a relative 1e-9 inside the capacity, so that the witness's improvement is feasible when
    re-checked in exact arithmetic (the float slack can exceed the exact one by a rounding); exact data as is."""
    return room if d.exact else room * (1.0 - 1e-9)


def pareto(d: PooledData, variant: str = "strong", method: str = "certificate") -> Verdict:
    """Strong / weak Pareto efficiency.

    ``method="certificate"`` (exact, default): with minimal bundles :math:`u_i\\theta_i`, a dominating
    allocation exists iff some unsatisfied user needs no saturated resource (strong) / iff no
    unsatisfied user needs a saturated resource (weak); ``method="lp"`` solves ``axioms.md``'s LP.
    """
    axiom = "pareto"
    a = shares.normalized_demands(d.theta, d.C)
    minimal_usage = (d.u[:, None] * a).sum(axis=0)            # usage of the minimal bundles
    unsat = ~d.satisfied
    if not unsat.any():
        return Verdict(True, None, "every user is satisfied", variant, axiom)
    if method == "lp":
        out = _programs.dominating_pooled(as_float(a), as_float(d.u), weak=variant == "weak",
                                          satisfied=d.satisfied)
        if not out.ok:
            return Verdict(None, None, f"LP not solved: {out.status} {out.message}", variant, axiom, status=out.status)
        gain = out.value - float(sum(as_float(d.u))) if variant == "strong" else out.value
        if gain <= float(d.tol) + 1e-9:
            return Verdict(True, None, f"the Pareto LP finds no improvement (gain {gain:.3g})", variant, axiom,
                           stats={"method": "lp"})
        y = out.x
        wit = d.witness(axiom, variant, improved_utilities=y, gain=gain, method="lp",
                        improved_users=np.flatnonzero(y > as_float(d.u) + 1e-12).tolist())
        return Verdict(False, wit, f"the Pareto LP improves the utilities by {gain:.6g} ({variant})",
                       variant, axiom, -gain, {"method": "lp"})
    sat = _saturated(d, minimal_usage)
    need = d.need()
    blocked = np.array([bool((need[i] & sat).any()) for i in range(d.n)])
    if variant == "strong":
        free = np.flatnonzero(unsat & ~blocked)
        if free.size == 0:
            return Verdict(True, None, "every unsatisfied user needs a resource saturated by minimal bundles",
                           variant, axiom)
        i = int(free[0])
        slack = d.one - minimal_usage
        room = [slack[r] / a[i, r] for r in np.flatnonzero(need[i])]
        eps = min(_inside(d, min(room)), d.one - d.u[i])
        y = d.u.copy()
        y[i] = y[i] + eps
        wit = d.witness(axiom, variant, improved_utilities=y, improved_users=[i], gain=eps, method="certificate")
        return Verdict(False, wit, f"user {i} can get {_fmt(eps)} more with nobody losing: none of its "
                       "resources is saturated", variant, axiom, -float(eps))
    if (unsat & blocked).any():
        return Verdict(True, None, "some unsatisfied user needs a saturated resource", variant, axiom)
    # weak violation: raise every unsatisfied user by the same t
    idx = np.flatnonzero(unsat)
    load = (a[idx]).sum(axis=0)
    slack = d.one - minimal_usage
    ts = [_inside(d, slack[r] / load[r]) for r in range(d.m) if as_float(load[r]) > 0]
    ts += [d.one - d.u[i] for i in idx]
    t = min(ts)
    y = d.u.copy()
    for i in idx:
        y[i] = y[i] + t
    wit = d.witness(axiom, variant, improved_utilities=y, improved_users=idx.tolist(), gain=t,
                    method="certificate")
    return Verdict(False, wit, f"every unsatisfied user can gain {_fmt(t)}: no saturated resource blocks them",
                   variant, axiom, -float(t))
