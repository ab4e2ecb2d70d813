"""One campaign cell = one claim of the table, checked on one :class:`~proofs_check.cases.Case`.

:func:`check_case` runs the mechanism of a :class:`~proofs_check.claims.Claim` on a case and applies
the matching predicate or search, returning a :class:`~proofs_check.verdict.Verdict` whose witness
also records the claim and the case (so that :mod:`proofs_check.replay` can re-verify it from JSON).
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from . import axioms
from .cases import Case
from .claims import Claim, MechanismInfo, mechanism, scope_of
from .misreports import (STAGE_FAMILIES, TV_REPEATED_FAMILIES, find_profitable_deviation,
                         find_profitable_misreport)
from .monotonicity import is_population_monotone, is_resource_monotone
from .repeated import SDRFDynamics, StatelessDynamics, UsageDynamics
from .verdict import Verdict

__all__ = ["check_case", "dynamics_for", "mechanism_tolerance", "DEFAULT_BUDGET"]

#: Lies (stage) or deviations (repeated game) tried per user and case.
DEFAULT_BUDGET = {"sp-stage": 60, "sp-repeated": 60}


def mechanism_tolerance(info: MechanismInfo) -> float:
    """Tolerance for mechanism-level comparisons (gains, losses): 1e-7, or 10x the mechanism's accuracy.

    Parameters
    ----------
    info : MechanismInfo
        The row; its ``atol`` is the mechanism's accuracy.

    Returns
    -------
    float
        ``max(1e-7, 10 * info.atol)``.

    Examples
    --------
    DRF's row has ``atol=1e-9`` (exact water-filling), TSF's 1e-6 (an LP):

    >>> from proofs_check.claims import MECHANISMS
    >>> mechanism_tolerance(MECHANISMS["drf"]), round(mechanism_tolerance(MECHANISMS["tsf"]), 12)
    (1e-07, 1e-05)
    """
    return max(1e-7, 10 * info.atol)


def dynamics_for(info: MechanismInfo, delta: float | None):
    """The repeated-game dynamics of a row: SDRF's commitments (Eq. 3) or a stateless mechanism.

    Parameters
    ----------
    info : MechanismInfo
        The row; ``info.dynamics == "sdrf"`` carries commitments, ``"usage"`` a production policy's
        decayed usage (the callable's ``usage_step``, :mod:`proofs_check.production`), anything else
        is stateless.
    delta : float or None
        Commitment decay for SDRF rows (None: 0.5); ignored for stateless rows.

    Returns
    -------
    SDRFDynamics or UsageDynamics or StatelessDynamics
        Named after the row's key.

    Examples
    --------
    >>> from proofs_check.claims import MECHANISMS
    >>> dynamics_for(MECHANISMS["sdrf"], 0.9).params()
    {'dynamics': 'sdrf', 'mechanism': 'sdrf', 'delta': 0.9}
    >>> dynamics_for(MECHANISMS["drf"], None).params()
    {'dynamics': 'stateless', 'mechanism': 'drf'}
    """
    fn = info.resolve()
    if info.dynamics == "sdrf":
        return SDRFDynamics(0.5 if delta is None else delta, mechanism=fn, name=info.key)
    if info.dynamics == "usage":
        step = getattr(getattr(fn, "func", fn), "usage_step")
        return UsageDynamics(fn, step, 0.5 if delta is None else delta, name=info.key)
    return StatelessDynamics(fn, name=info.key)


def _annotate(v: Verdict, claim: Claim, case: Case) -> Verdict:
    if v.witness is None:
        return v
    w = dict(v.witness)
    w["claim"] = {"mechanism": claim.mechanism, "axiom": claim.axiom, "variant": claim.variant,
                  "expected": claim.expected}
    w["case"] = case.to_dict()
    return Verdict(v.holds, w, v.detail, v.variant, v.axiom, v.margin, v.stats, v.status)


def check_case(claim: Claim, case: Case, *, seed: int = 0, budget: int | None = None,
               hint: Mapping[str, Any] | None = None) -> Verdict:
    """Check ``claim`` on ``case``.

    Parameters
    ----------
    claim : Claim
    case : Case
    seed : int
        Seeds the random lie families (the same seed gives the same search).
    budget : int, optional
        Lies / deviations per user (default :data:`DEFAULT_BUDGET`).
    hint : dict, optional
        A previous witness of the same cell; its lie is tried first (used when shrinking).

    Returns
    -------
    Verdict
        The axiom's verdict on the case, its witness annotated with the claim and the case (JSON),
        so that :func:`proofs_check.replay.replay` can re-check it alone.

    Raises
    ------
    RuntimeError
        The claim's mechanism is not implemented.

    Examples
    --------
    DRF's resource-monotonicity cell is "F"; :func:`proofs_check.is_resource_monotone`'s hand
    example is a counterexample, and DRF's sharing-incentive cell holds on the DRF paper's example:

    >>> import fairalloc as fa
    >>> from proofs_check.cases import Case
    >>> from proofs_check.claims import claims_for
    >>> v = check_case(claims_for("drf", "rm")[0], Case(fa.Instance([[0.9, 1.4], [2.0, 0.6]])))
    >>> v.holds, v.witness["claim"]["axiom"]
    (False, 'rm')
    >>> inst = fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[100, 100], capacities=[9, 18])
    >>> check_case(claims_for("drf", "si")[0], Case(inst)).holds
    True
    """
    info = mechanism(claim.mechanism)
    fn = info.resolve()
    if fn is None:
        raise RuntimeError(f"{claim.mechanism} is not implemented: {info.why_not}")
    ax, var = claim.axiom, claim.variant
    tol = mechanism_tolerance(info)
    inst, c = case.instance, case.commitments
    if ax in ("si", "ef", "po", "bottleneck", "ef1"):
        res = fn(inst) if c is None else fn(inst, commitments=c)
        if not res.success:
            return Verdict(None, None, f"mechanism failed: {res.status.value} {res.message}", var, ax, status=res.status)
        if case.kind == "time-varying":
            v = _time_varying(inst, res, ax, var, info.atol)
        else:
            v = _stage(inst, res, ax, var, c, info)
    elif ax == "sp-stage" or (ax == "sp-repeated" and case.kind == "time-varying"):
        b = budget or DEFAULT_BUDGET[ax]
        families = TV_REPEATED_FAMILIES if ax == "sp-repeated" else STAGE_FAMILIES
        gamma = case.gamma if (ax == "sp-repeated" and case.gamma is not None) else 1.0
        v = None
        if hint and hint.get("kind") == "misreport":
            cand = _hinted_lie(hint, inst)
            if cand is not None:
                v = find_profitable_misreport(fn, inst, int(hint["user"]), commitments=c, budget=1, rng=seed,
                                              atol=tol, candidates=[cand], families=families, gamma=gamma,
                                              divisible=info.divisible)
        if v is None or not v.violated:
            v = find_profitable_misreport(fn, inst, commitments=c, budget=b, rng=seed, atol=tol, families=families,
                                          gamma=gamma, divisible=info.divisible)
    elif ax == "sp-repeated":
        b = budget or DEFAULT_BUDGET["sp-repeated"]
        dyn = dynamics_for(info, case.delta)
        v = None
        if hint and hint.get("kind") == "repeated":
            u = int(hint["user"])
            dev = {int(t): (np.asarray(r["task_demand"], float), float(r["tasks"]))
                   for t, r in hint["deviation"].items()}
            g = case.game
            if u < g.n_agents and all(t < g.n_periods and d.shape == (g.n_resources,) for t, (d, _) in dev.items()):
                v = find_profitable_deviation(dyn, g, u, case.gamma, budget=1, rng=seed, atol=tol, candidates=[dev])
        if v is None or not v.violated:
            v = find_profitable_deviation(dyn, case.game, None, case.gamma, budget=b, rng=seed, atol=tol)
    elif ax == "pm":
        v = is_population_monotone(fn, inst, commitments=c, atol=tol)
    elif ax == "rm":
        v = is_resource_monotone(fn, inst, commitments=c, atol=tol)
    else:
        raise ValueError(f"unknown axiom {ax!r}")
    return _annotate(v, claim, case)


def _stage(inst, res, ax: str, var: str, c, info: MechanismInfo) -> Verdict:
    """One allocation of a pooled or task instance against one claim."""
    kw = dict(commitments=c, atol=info.atol)
    if info.divisible:
        kw["divisible"] = True
    if ax == "si":
        return axioms.has_sharing_incentive(inst, res, variant=var, **kw)
    if ax == "ef1":
        if var not in ("remove", "gain"):
            raise ValueError(f"EF1 variant {var!r} is for time-varying instances")
        return axioms.is_ef1(inst, res, variant=var, atol=info.atol)
    if ax == "ef":
        if var in ("no-constraints", "with-constraints"):
            # TSF: is there ANY placement of the same task totals without envy? (the mechanism's split of a
            # user's tasks among servers is one optimum among many)
            return axioms.is_envy_free(inst, res, variant="plain", placement="any", **kw)
        return axioms.is_envy_free(inst, res, variant=var, **kw)
    if ax == "po":
        return axioms.is_pareto_efficient(inst, res, variant=var, **kw)
    if var == "bottleneck":
        return axioms.is_bottleneck(inst, res, **kw)
    return axioms.is_non_wasteful(inst, res, **kw)


def _time_varying(tv, res, ax: str, var: str, atol: float) -> Verdict:
    """A start schedule of a time-varying instance against one claim (scope from the variant)."""
    scope = scope_of(var)
    kw = dict(atol=atol, scope=scope)
    if ax == "si":
        return _relabel(axioms.has_sharing_incentive(tv, res, **kw), var)
    if ax == "ef":
        return _relabel(axioms.is_envy_free(tv, res, **kw), var)
    if ax == "ef1":
        return _relabel(axioms.is_ef1(tv, res, variant=var.rsplit("-", 1)[-1], **kw), var)
    if ax == "po":
        return _relabel(axioms.is_pareto_efficient(tv, res, **kw), var)
    if scope == "per-slot":
        return _relabel(axioms.is_bottleneck(tv, res, **kw), var)
    return _relabel(axioms.is_non_wasteful(tv, res, **kw), var)


def _relabel(v: Verdict, variant: str) -> Verdict:
    """The verdict under the claim's variant name (the predicate's own variant stays in the witness)."""
    return Verdict(v.holds, v.witness, v.detail, variant, v.axiom, v.margin, v.stats, v.status)


def _hinted_lie(hint: Mapping[str, Any], inst) -> dict | None:
    """The lie of a previous witness, if it still makes sense on ``inst`` (shrinking)."""
    u = int(hint["user"])
    rep = dict(hint.get("report", {}))
    if u >= inst.n_agents:
        return None
    key = "demands" if "demands" in rep else "task_demands"
    vec = np.asarray(rep.get(key, []), float)
    want = np.asarray(inst.demands[u] if key == "demands" else inst.task_demands[u]).shape
    if vec.shape != want:
        return None
    rep[key] = vec
    if "arrivals" in rep:
        arr = np.asarray(rep["arrivals"], float)
        if arr.shape != np.asarray(inst.arrivals[u]).shape:
            return None
        rep["arrivals"] = arr
    fam = str(hint.get("family", "candidate"))
    rep["family"] = fam if fam.endswith("(carried over)") else f"{fam} (carried over)"
    return rep
