r"""Lies of one user of a time-varying instance (TV-TSF), and the true value of what a lie obtains.

A report of user *i* is its per-task demands :math:`d'_i(t)` (T, K) and its submissions
:math:`B'_i(t)` (T,); durations and placement are not lied about. The mechanism starts
:math:`x'_{imt}` reported tasks; the liar's **true** tasks are what those bundles run, slot by slot:

.. math::

   \text{fit}_t = \sum_{m \in E_i} \Big\lfloor \min_{r: d_{ir}(t)>0} x'_{imt}\, d'_{ir}(t) / d_{ir}(t) \Big\rfloor,
   \qquad \text{run}_t = \min(\text{pending}_t, \text{fit}_t),

where :math:`\text{pending}_t` counts the true tasks submitted by *t* and not yet run (a bundle
obtained before the tasks exist is wasted). The payoff is :math:`\sum_t \gamma^t\,\text{run}_t`
(stage game: :math:`\gamma = 1`, the true tasks started over the horizon). Bundles run as long as
the reported tasks (same durations), so a bundle of *k* tasks of :math:`d_i(t)` runs *k* true tasks.

Families (``axioms.md``, adapted to slots): over the whole horizon (``STAGE``) ``bundle`` (report
tasks of :math:`k d_i(t)`, :math:`\lceil B_i(t)/k\rceil` of them), ``scale`` / ``deflate`` (one
resource, every slot), ``cap`` (submit fewer or more tasks), ``inflate`` (random factors);
slot by slot (``REPEATED``, the repeated game of a time-varying instance) ``hold`` (submit only a
fraction of one slot's tasks, the rest one slot later), ``idle`` (submit none of one slot's tasks
until the next slot) and ``slot-vector`` (another vector in one slot).
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Iterator, Mapping

import numpy as np

from fairalloc import TimeVaryingInstance, shares

__all__ = ["STAGE", "REPEATED", "tv_lies", "apply_tv_lie", "true_tv_payoff"]

STAGE = ("bundle", "scale", "deflate", "cap", "inflate")
REPEATED = ("hold", "idle", "slot-vector")


def tv_lies(tv: TimeVaryingInstance, user: int, families, rng) -> Iterator[dict[str, Any]]:
    """Lies of ``user``: ``{"family", "task_demands" (T, K), "arrivals" (T,)}``, grid first, then random."""
    d = np.array(tv.task_demands[user], float)
    B = np.array(tv.arrivals[user], float)
    T, K = d.shape
    pos = [r for r in range(K) if (d[:, r] > 0).any()]

    def lie(fam, dd=d, bb=B):
        return {"family": fam, "task_demands": np.array(dd, float), "arrivals": np.array(bb, float)}

    if "bundle" in families and B.sum() >= 2:
        for k in (2, 3):
            yield lie("bundle", d * k, np.ceil(B / k))
    if "cap" in families:
        for bb in (np.floor(B / 2), np.maximum(B - 1, 0), B + (np.arange(T) == 0), B * 2):
            if not np.array_equal(bb, B):
                yield lie("cap", d, bb)
    if "scale" in families:
        for f in (1.5, 2.0):
            for r in pos:
                dd = d.copy(); dd[:, r] *= f
                yield lie("scale", dd)
    if "deflate" in families:
        for f in (0.9, 0.5):
            for r in pos:
                dd = d.copy(); dd[:, r] *= f
                yield lie("deflate", dd)
    present = [t for t in range(T) if B[t] > 0]
    if "idle" in families:
        for t in present:
            bb = B.copy(); bb[t] = 0
            if t + 1 < T:
                bb[t + 1] += B[t]
            yield lie("idle", d, bb)
    if "hold" in families:
        for t in present:
            for phi in (0.5, 0.75):
                keep = math.floor(B[t] * phi)
                if keep == B[t]:
                    continue
                bb = B.copy(); bb[t] = keep
                if t + 1 < T:
                    bb[t + 1] += B[t] - keep
                yield lie("hold", d, bb)
    if "slot-vector" in families:
        for t in range(T):
            for r in pos:
                for f in (2.0, 0.5):
                    if d[t, r] > 0:
                        dd = d.copy(); dd[t, r] *= f
                        yield lie("slot-vector", dd)
    rand = [f for f in ("inflate", "slot-vector") if f in families]
    if not rand:
        return
    for k in itertools.count():
        fam = rand[k % len(rand)]
        dd = d.copy()
        if fam == "inflate":
            dd = d * rng.uniform(1.0, 2.0, K)
        else:
            t = int(rng.integers(T))
            dd[t] = d[t] * np.exp(rng.uniform(-1.0, 1.0, K))
        yield lie(fam, dd)


def apply_tv_lie(tv: TimeVaryingInstance, user: int, lie: Mapping[str, Any]) -> TimeVaryingInstance:
    """The instance with ``user``'s report replaced (may raise InvalidInstanceError: a task fitting nowhere)."""
    d = np.array(tv.task_demands, float)
    a = np.array(tv.arrivals)
    d[user] = np.asarray(lie["task_demands"], float)
    a[user] = np.asarray(lie["arrivals"], float)
    return tv.replace(task_demands=d, arrivals=a)


def true_tv_payoff(tv: TimeVaryingInstance, user: int, reported_demands, starts, gamma: float = 1.0) -> float:
    r"""The liar's true discounted payoff (module docstring) from its started reported tasks ``starts`` (M, T)."""
    x = np.asarray(starts, float)
    rep = np.asarray(reported_demands, float)
    pending = 0.0
    total = 0.0
    for t in range(tv.n_slots):
        pending += float(tv.arrivals[user, t])
        bundles = x[:, t, None] * rep[t][None, :]                              # (M, K)
        per = shares.tasks_that_fit(bundles, tv.task_demands[user, t])
        fit = float(np.where(tv.placement[user], per, 0.0).sum())
        run = min(pending, fit)
        pending -= run
        total += gamma ** t * run
    return total
