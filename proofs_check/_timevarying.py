r"""Axiom predicates for start schedules of time-varying instances (TV-TSF, :class:`fairalloc.TimeVaryingInstance`).

A schedule is the integer array ``x[i, m, t]`` of user *i*'s tasks **started** on server *m* in slot
*t*; a task started in :math:`\tau` holds :math:`d_i(\tau)` on its server in slots
:math:`\tau..\tau+e_i-1` (Eq. 10b), and a user never starts more tasks by *t* than it submitted by
*t*. Two readings of every axiom (``scope``):

``"cumulative"`` (TV-TSF Section 1.3, over the whole horizon)
    A user's utility is the number of tasks it starts, :math:`X_i = \sum_{t,m} x_{imt}` (at most what
    it submits, :math:`K_i = \sum_t B_i(t)`). User *i* values user *j*'s schedule by the tasks it
    would start in *j*'s place: in each slot, the tasks of :math:`d_i(t)` that *j*'s bundles started
    in that slot hold (:math:`\lfloor\cdot\rfloor` per server, eligible servers only), but no more
    than *i* has pending then (its own submissions, minus what it started so far in *j*'s place;
    :func:`proofs_check._tv_lies.true_tv_payoff`, the valuation the lie searches use). Task
    durations are ignored, as in the paper's Lemma 2 / Eq. 18; pending tasks are not (a bundle
    obtained before one's tasks exist is worth nothing, the paper's Eq. 2).

    * SI (Eq. 5): :math:`X_i \ge \sum_t k_i(t)`, with :math:`k_i(t)` the tasks *i* starts in slot *t*
      when it runs **alone on its dedicated servers** :math:`C_m/n` (every eligible *m*), starting in
      each slot every pending task that fits (servers in index order). The paper does not say how
      :math:`k_i(t)` is obtained; this is what a user alone on its share does.
    * EF: :math:`u_i(A_j) \le X_i`; EF1 (Eq. 6, unweighted): ``"remove"`` (some task of *j*, in some
      slot on some server, can be removed so that i's envy disappears) or ``"gain"``
      (:math:`u_i(A_j) \le X_i + 1`).
    * PO (Eqs. 7-9): no feasible schedule gives every user at least as many tasks and some user more
      (strong; weak: every unsatisfied user more); an MILP over all schedules
      (:func:`proofs_check._programs.dominating_schedule`).
    * Non-wasteful: no unsatisfied user could start one more task in some slot where it had one
      pending (in every later slot too), on an eligible server with room for the task's whole run
      inside the horizon.

``"per-slot"``
    Each slot is a one-shot allocation of indivisible tasks on servers: the *free* capacity of every
    server (capacity minus the tasks started earlier and still running), the tasks pending at the
    slot (submitted so far minus started before), the demands :math:`d_i(t)` and weights
    :math:`\omega_i(t)`; the slot's starts are judged by the server predicates of
    :mod:`proofs_check._servers` (SI against :math:`1/n` of each server's free capacity, EF, EF1,
    PO, non-wastefulness). A violation in any slot is a violation.

Witnesses carry the instance, the whole schedule, the scope and (per slot) the slot and its derived
arrays, so that :mod:`proofs_check.replay` re-derives and re-checks them without this module.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fairalloc import TimeVaryingInstance, shares

from . import _programs, _servers, _tv_lies
from ._inputs import ATOL, running_usage, slot_schedule
from .verdict import Verdict, jsonable

__all__ = ["TVData", "SCOPES", "alone_on_share", "sharing_incentive", "envy_free", "ef1", "pareto",
           "non_wasteful"]

SCOPES = ("cumulative", "per-slot")
UNIT = "tasks started over the horizon"


def alone_on_share(tv: TimeVaryingInstance, user: int, share: float) -> np.ndarray:
    r"""(T,) tasks ``user`` starts per slot alone on ``share`` of every eligible server (the :math:`k_i(t)` of Eq. 5).

    In each slot, pending tasks (submitted, not yet started) are started on the eligible servers in
    index order while one fits in the server's slice minus the user's own running tasks.

    >>> import fairalloc as fa
    >>> tv = fa.TimeVaryingInstance([[4]], [[1], [1]], arrivals=[[3, 1], [0, 0]], durations=[2, 1])
    >>> alone_on_share(tv, 0, 0.5).tolist()       # slice of 2 units: 2 tasks, busy for 2 slots
    [2.0, 0.0]
    """
    caps = np.asarray(tv.cluster.capacities, float) * float(share)
    d = tv.task_demands[user]
    e = int(tv.durations[user])
    T = tv.n_slots
    own = np.zeros((tv.n_servers, tv.n_resources, T))
    out = np.zeros(T)
    pending = 0
    for t in range(T):
        pending += int(tv.arrivals[user, t])
        for m in np.flatnonzero(tv.placement[user]):
            if pending <= 0:
                break
            k = int(min(pending, shares.tasks_that_fit(caps[m] - own[m, :, t], d[t])))
            if k > 0:
                own[m, :, t:t + e] += k * d[t][:, None]
                pending -= k
                out[t] += k
    return out


class TVData:
    """Validated arrays of one time-varying instance and start schedule."""

    def __init__(self, instance: TimeVaryingInstance, tasks: Any, *, atol: float | None = None) -> None:
        self.instance = tv = instance
        self.atol = ATOL if atol is None else float(atol)
        self.x = slot_schedule(tv, tasks, atol=max(self.atol, ATOL))
        self.n, self.M, self.T = self.x.shape
        self.d = np.asarray(tv.task_demands, float)                  # (N, T, K)
        self.B = np.asarray(tv.arrivals, float)                      # (N, T)
        self.P = np.asarray(tv.placement, bool)
        self.caps = np.asarray(tv.cluster.capacities, float)
        self.w = np.asarray(tv.weights, float)                       # (N, T)
        self.starts = self.x.sum(axis=1)                             # (N, T)
        self.X = self.starts.sum(axis=1)
        self.K = self.B.sum(axis=1)
        self.satisfied = self.X >= self.K - self.atol
        self.usage = running_usage(tv, self.x)                       # (M, K, T)

    # -- per slot ---------------------------------------------------------------------------
    def free_before(self, t: int) -> np.ndarray:
        """(M, K) capacity left in slot ``t`` by the tasks started before ``t`` and still running."""
        started_now = np.einsum("im,ir->mr", self.x[:, :, t], self.d[:, t, :])
        return np.maximum(self.caps - (self.usage[:, :, t] - started_now), 0.0)

    def pending(self, t: int) -> np.ndarray:
        """(N,) tasks submitted by slot ``t`` and not started before it."""
        before = self.starts[:, :t].sum(axis=1)
        return self.B[:, : t + 1].sum(axis=1) - before

    def slot(self, t: int) -> _servers.ServerData:
        """Slot ``t`` as a one-shot task allocation (module docstring, ``"per-slot"``)."""
        free, pend = self.free_before(t), self.pending(t)
        ctx = {"setting": "time-varying", "scope": "per-slot", "slot": int(t), "instance": self.instance.to_dict(),
               "schedule": self.x.tolist(), "slot_capacities": free.tolist(), "slot_pending": pend.tolist(),
               "slot_demands": self.d[:, t, :].tolist()}
        return _servers.ServerData.from_arrays(task_demands=self.d[:, t, :], tasks_wanted=pend,
                                               placement=self.P, capacities=free, weights=self.w[:, t],
                                               allocation=self.x[:, :, t], context=ctx, atol=self.atol)

    def active_slots(self) -> list[int]:
        return [t for t in range(self.T) if (self.pending(t) > 0).any()]

    # -- cumulative ---------------------------------------------------------------------------
    def value(self, i: int, j: int, x_j: np.ndarray | None = None) -> float:
        """u_i(A_j) over the horizon: tasks i would start with j's started bundles (module docstring)."""
        if i == j and x_j is None:
            return float(self.X[i])
        xj = self.x[j] if x_j is None else x_j
        return _tv_lies.true_tv_payoff(self.instance, i, self.d[j], xj)

    def value_matrix(self) -> np.ndarray:
        """U[i, j] = u_i(A_j) over the horizon (U[i, i] = X_i)."""
        return np.array([[self.value(i, j) for j in range(self.n)] for i in range(self.n)])

    def witness(self, axiom: str, variant: str, **extra: Any) -> dict[str, Any]:
        w = {"kind": "allocation", "setting": "time-varying", "scope": "cumulative", "axiom": axiom,
             "variant": variant, "instance": self.instance.to_dict(), "schedule": self.x.tolist(),
             "utilities": self.X.tolist(), "submitted": self.K.tolist(), "utility_unit": UNIT, "atol": self.atol}
        w.update({k: jsonable(v) for k, v in extra.items()})
        return w


def _per_slot(tvd: TVData, axiom: str, variant: str, check) -> Verdict:
    """Apply ``check(slot_data)`` to every slot with pending tasks; the first violation wins."""
    undecided = []
    slots = tvd.active_slots()
    for t in slots:
        v = check(tvd.slot(t))
        if v.holds is False:
            return Verdict(False, v.witness, f"slot {t}: {v.detail}", v.variant, v.axiom, v.margin,
                           {"slots_checked": slots.index(t) + 1})
        if v.holds is None:
            undecided.append((f"slot {t}: {v.detail}", v.status))
    if undecided:
        return Verdict(None, None, "; ".join(d for d, _ in undecided), variant, axiom, status=undecided[0][1])
    return Verdict(True, None, f"holds in each of the {len(slots)} slots with pending tasks (per slot)", variant,
                   axiom, stats={"slots_checked": len(slots)})


def sharing_incentive(tvd: TVData, variant: str, scope: str) -> Verdict:
    axiom = "sharing-incentive"
    if scope == "per-slot":
        return _per_slot(tvd, axiom, variant, lambda s: _servers.sharing_incentive(s, variant))
    if variant != "plain":
        raise ValueError("cumulative sharing incentive on time-varying instances is 'plain' (Eq. 5)")
    ref = np.array([alone_on_share(tvd.instance, i, 1.0 / tvd.n).sum() for i in range(tvd.n)])
    slack = tvd.X - ref
    i = int(np.argmin(slack))
    if slack[i] >= -tvd.atol:
        return Verdict(True, None, f"every user starts at least the tasks it would start alone on its 1/n share "
                       f"(smallest slack {slack[i]:.6g} tasks)", variant, axiom, float(slack[i]))
    wit = tvd.witness(axiom, variant, user=i, have=tvd.X[i], reference=ref[i], shortfall=-slack[i],
                      reference_per_slot=alone_on_share(tvd.instance, i, 1.0 / tvd.n),
                      violators=np.flatnonzero(slack < -tvd.atol).tolist())
    return Verdict(False, wit, f"user {i} starts {tvd.X[i]:g} tasks < {ref[i]:g} alone on its 1/{tvd.n} share "
                   "(Eq. 5, over the horizon)", variant, axiom, float(slack[i]))


def envy_free(tvd: TVData, variant: str, scope: str) -> Verdict:
    axiom = "envy-free"
    if scope == "per-slot":
        return _per_slot(tvd, axiom, variant, lambda s: _servers.envy_free(s, variant))
    if variant != "plain":
        raise ValueError("cumulative envy-freeness on time-varying instances is 'plain'")
    U = tvd.value_matrix()
    gap = U - tvd.X[:, None]
    gap[np.arange(tvd.n), np.arange(tvd.n)] = -np.inf
    gap[tvd.satisfied] = -np.inf
    i, j = np.unravel_index(int(np.argmax(gap)), gap.shape)
    if gap[i, j] <= tvd.atol:
        return Verdict(True, None, "nobody envies anybody's schedule (over the horizon)", variant, axiom,
                       None if not np.isfinite(gap[i, j]) else -float(gap[i, j]))
    wit = tvd.witness(axiom, variant, envious=int(i), envied=int(j), u_own=tvd.X[i], u_other=U[i, j], excess=gap[i, j])
    return Verdict(False, wit, f"user {i} envies user {j}: {U[i, j]:g} vs {tvd.X[i]:g} tasks over the horizon",
                   variant, axiom, -float(gap[i, j]))


def ef1(tvd: TVData, variant: str, scope: str) -> Verdict:
    axiom = "ef1"
    if scope == "per-slot":
        return _per_slot(tvd, axiom, variant, lambda s: _servers.ef1(s, variant))
    U = tvd.value_matrix()
    for i in range(tvd.n):
        for j in range(tvd.n):
            if i == j or tvd.X[j] < 1:
                continue
            if variant == "gain":
                if U[i, j] > tvd.X[i] + 1 + tvd.atol:
                    wit = tvd.witness(axiom, variant, envious=i, envied=j, u_own=tvd.X[i], u_other=U[i, j])
                    return Verdict(False, wit, f"u_{i}(A_{j}) = {U[i, j]:g} > X_{i} + 1 = {tvd.X[i] + 1:g} "
                                   "(over the horizon)", variant, axiom, float(tvd.X[i] + 1 - U[i, j]))
                continue
            if U[i, j] <= tvd.X[i] + tvd.atol:
                continue
            best = np.inf
            for m, t in zip(*np.nonzero(tvd.x[j] >= 1)):
                fewer = tvd.x[j].copy()
                fewer[m, t] -= 1
                best = min(best, tvd.value(i, j, fewer))
            if best > tvd.X[i] + tvd.atol:
                wit = tvd.witness(axiom, variant, envious=i, envied=j, u_own=tvd.X[i], u_other=U[i, j],
                                  u_other_after_best_removal=best)
                return Verdict(False, wit, f"user {i} still envies user {j} after removing any one task "
                               f"({best:g} > {tvd.X[i]:g}, over the horizon)", variant, axiom, float(tvd.X[i] - best))
    return Verdict(True, None, f"EF1-{variant} holds for every pair (over the horizon)", variant, axiom)


def pareto(tvd: TVData, variant: str, scope: str, time_limit: float | None = None) -> Verdict:
    axiom = "pareto"
    if scope == "per-slot":
        return _per_slot(tvd, axiom, variant, lambda s: _servers.pareto(s, variant, time_limit=time_limit))
    if tvd.satisfied.all():
        return Verdict(True, None, "every user starts every task it submits", variant, axiom)
    tv = tvd.instance
    out = _programs.dominating_schedule(tvd.d, tvd.caps, tvd.P, tvd.B, tv.durations, tvd.X,
                                        weak=variant == "weak", time_limit=time_limit)
    if out.status == "infeasible" and variant == "weak":
        return Verdict(True, None, "no schedule gives every unsatisfied user more tasks (MILP infeasible)",
                       variant, axiom)
    if not out.ok:
        return Verdict(None, None, f"MILP not solved: {out.status} {out.message}", variant, axiom, status=out.status)
    y = np.round(out.x)
    Y = y.sum(axis=(1, 2))
    if variant == "strong" and Y.sum() - tvd.X.sum() < 1 - 1e-6:
        return Verdict(True, None, f"no schedule dominates (best total {Y.sum():g} tasks)", variant, axiom)
    wit = tvd.witness(axiom, variant, improved_schedule=y, improved_totals=Y, gain=Y.sum() - tvd.X.sum())
    return Verdict(False, wit, f"a feasible schedule dominates ({variant}, Eqs. 7-9): totals {Y.tolist()} vs "
                   f"{tvd.X.tolist()}", variant, axiom, -float(Y.sum() - tvd.X.sum()))


def non_wasteful(tvd: TVData, scope: str, variant: str = "non-wasteful") -> Verdict:
    axiom = "non-wasteful" if variant != "bottleneck" else "bottleneck"
    if scope == "per-slot":
        return _per_slot(tvd, axiom, variant, lambda s: _servers.non_wasteful(s, variant))
    cum_left = np.cumsum(tvd.B, axis=1) - np.cumsum(tvd.starts, axis=1)         # pending after slot t's starts
    for i in np.flatnonzero(~tvd.satisfied):
        e = int(tvd.instance.durations[i])
        for t in range(tvd.T):
            if cum_left[i, t:].min() < 1:
                continue                     # one more start in t would outrun the submissions of a later slot
            window = slice(t, min(tvd.T, t + e))
            for m in np.flatnonzero(tvd.P[i]):
                free = tvd.caps[m][:, None] - tvd.usage[m, :, window]            # (K, slots)
                room = shares.tasks_that_fit(free.T, tvd.d[i, t]).min()
                if room >= 1:
                    wit = tvd.witness(axiom, variant, user=int(i), slot=int(t), server=int(m), free=free.T,
                                      room=float(room))
                    return Verdict(False, wit, f"user {i} has a task pending from slot {t} on and it fits on server "
                                   f"{m} for its whole run (over the horizon)", variant, axiom, -float(room))
    return Verdict(True, None, "no unsatisfied user could start one more task anywhere (over the horizon)",
                   variant, axiom)
