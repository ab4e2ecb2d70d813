"""Population and resource monotonicity: properties of a *mechanism*, checked on one instance.

* **Population monotonicity (PM)**: when a user leaves, nobody remaining loses.
* **Resource monotonicity (RM)**: when a resource's capacity grows, nobody loses.

Both re-run the mechanism and compare utilities user by user (``axioms.md``); the witness holds the
instance, the change and the utilities before and after, so it can be re-checked by re-running the
mechanism.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

import numpy as np

from . import _setting
from .verdict import Verdict, jsonable

__all__ = ["is_population_monotone", "is_resource_monotone"]

ATOL_MECH = 1e-7


def _base(mechanism, instance, commitments, axiom, atol) -> dict[str, Any]:
    w = {"kind": "mechanism", "axiom": axiom, "mechanism": _setting.mechanism_name(mechanism), "atol": atol,
         "setting": _setting.setting_of(instance), "instance": instance.to_dict()}
    if commitments is not None:
        w["commitments"] = jsonable(np.asarray(commitments, float))
    return w


def is_population_monotone(mechanism: Callable, instance: Any, /, *, commitments: Any = None,
                           leaving: Iterable[int] | None = None, atol: float = ATOL_MECH) -> Verdict:
    """Does any remaining user lose when one user leaves?

    Parameters
    ----------
    mechanism : callable
        ``mechanism(instance[, commitments=...]) -> AllocationResult``.
    instance : Instance or TaskInstance
    commitments : array_like, optional
        Passed to the mechanism (rows follow the users; the leaver's row is dropped).
    leaving : iterable of int, optional
        Users to try removing (default: each in turn).
    atol : float
        A loss counts only above ``atol`` (utility units: fraction of demand, or tasks).

    Examples
    --------
    Lexicographic DRF with a zero demand (hand computation): A = <1, 0>, B = <1, 0.5>, C = <0, 1>
    on unit capacities. All three rise to 1/2, resource 0 saturates, C continues to 3/4. Without A,
    B and C rise together until resource 1 saturates at 2/3, so C drops from 3/4 to 2/3:

    >>> import fairalloc as fa
    >>> v = is_population_monotone(fa.drf, fa.Instance([[1, 0], [1, 0.5], [0, 1]]))
    >>> v.holds, v.witness["leaving"], v.witness["loser"], round(v.witness["before"], 6), round(v.witness["after"], 6)
    (False, 0, 2, 0.75, 0.666667)
    """
    n = instance.n_agents
    base = _setting.call(mechanism, instance, commitments)
    if not base.success:
        return Verdict(None, None, f"mechanism failed: {base.status.value} {base.message}", "plain",
                       "population-monotone", status=base.status)
    u0 = _setting.utilities(instance, base)
    tried = 0
    for k in (range(n) if leaving is None else leaving):
        if n < 2:
            break
        inst2, c2 = _setting.remove_user(instance, k, commitments)
        r2 = _setting.call(mechanism, inst2, c2)
        tried += 1
        if not r2.success:
            return Verdict(None, None, f"mechanism failed without user {k}: {r2.status.value}", "plain",
                           "population-monotone", status=r2.status)
        u1 = _setting.utilities(inst2, r2)
        rest = [i for i in range(n) if i != k]
        loss = u0[rest] - u1
        j = int(np.argmax(loss))
        if loss[j] > atol:
            w = _base(mechanism, instance, commitments, "population-monotone", atol)
            w.update(leaving=int(k), loser=int(rest[j]), before=float(u0[rest[j]]), after=float(u1[j]),
                     loss=float(loss[j]), utilities_before=u0.tolist(), utilities_after=u1.tolist())
            return Verdict(False, w, f"when user {k} leaves, user {rest[j]} drops from {u0[rest[j]]:.6g} "
                           f"to {u1[j]:.6g}", "plain", "population-monotone", -float(loss[j]),
                           {"runs": tried + 1})
    return Verdict(True, None, f"nobody loses when any of {tried} users leaves", "plain",
                   "population-monotone", stats={"runs": tried + 1})


def is_resource_monotone(mechanism: Callable, instance: Any, /, *, commitments: Any = None,
                         resources: Iterable[int] | None = None, factors: Iterable[float] = (1.25, 2.0),
                         atol: float = ATOL_MECH) -> Verdict:
    """Does anybody lose when one resource's capacity grows by one of ``factors``?

    Parameters
    ----------
    mechanism : callable
        ``mechanism(instance[, commitments=...]) -> AllocationResult``.
    instance : Instance or TaskInstance
        The instance before the increase.
    commitments : array_like, optional
        Passed to the mechanism; they stay the same fractions of capacity.
    resources : iterable of int, optional
        Resources whose capacity grows (default: each in turn).
    factors : iterable of float, default (1.25, 2.0)
        Capacity multipliers tried, each > 1.
    atol : float
        A loss counts only above ``atol`` (utility units: fraction of demand, or tasks).

    Returns
    -------
    Verdict
        Witness on violation: ``resource``, ``factor``, ``loser``, its utility ``before`` and
        ``after``; undecided (``holds`` None) when the mechanism fails.

    Raises
    ------
    ValueError
        A factor that is not > 1.

    Examples
    --------
    DRF is not resource-monotone (the table's "F"). Unit capacities, A = <0.9, 1.4>, B = <2.0, 0.6>
    (hand computation): equal dominant shares :math:`s = 1.4 x_A = 2 y_B` saturate resource 0 at
    :math:`0.9 s/1.4 + s = 1`, so B gets :math:`y_B = s/2 = 0.304348`. With resource 1 grown by 1.25,
    A's demand on it is 1.12, :math:`0.9 s/1.12 + s = 1` and B drops to :math:`0.277228`:

    >>> import fairalloc as fa
    >>> v = is_resource_monotone(fa.drf, fa.Instance([[0.9, 1.4], [2.0, 0.6]]))
    >>> v.holds, v.witness["resource"], v.witness["factor"], v.witness["loser"]
    (False, 1, 1.25, 1)
    >>> round(v.witness["before"], 6), round(v.witness["after"], 6)
    (0.304348, 0.277228)
    """
    factors = tuple(float(f) for f in factors)
    if any(f <= 1 for f in factors):
        raise ValueError(f"factors={factors} must all be > 1")
    base = _setting.call(mechanism, instance, commitments)
    if not base.success:
        return Verdict(None, None, f"mechanism failed: {base.status.value}", "plain", "resource-monotone",
                       status=base.status)
    u0 = _setting.utilities(instance, base)
    tried = 0
    for r in (range(instance.n_resources) if resources is None else resources):
        for f in factors:
            inst2 = _setting.scale_resource(instance, r, f)
            r2 = _setting.call(mechanism, inst2, commitments)
            tried += 1
            if not r2.success:
                return Verdict(None, None, f"mechanism failed with resource {r} x{f}: {r2.status.value}",
                               "plain", "resource-monotone", status=r2.status)
            u1 = _setting.utilities(inst2, r2)
            loss = u0 - u1
            j = int(np.argmax(loss))
            if loss[j] > atol:
                w = _base(mechanism, instance, commitments, "resource-monotone", atol)
                w.update(resource=int(r), factor=f, loser=j, before=float(u0[j]), after=float(u1[j]),
                         loss=float(loss[j]), utilities_before=u0.tolist(), utilities_after=u1.tolist())
                return Verdict(False, w, f"when resource {r} grows x{f:g}, user {j} drops from {u0[j]:.6g} "
                               f"to {u1[j]:.6g}", "plain", "resource-monotone", -float(loss[j]),
                               {"runs": tried + 1})
    return Verdict(True, None, f"nobody loses in {tried} capacity increases", "plain", "resource-monotone",
                   stats={"runs": tried + 1})
