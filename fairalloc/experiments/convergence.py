r"""Does SDRF Algorithm 1 approach Eq. 5 as tasks shrink? (issue 5, item 6)

The same total demand :math:`\theta_i` of every user is split into *k* equal tasks
:math:`\theta_i / k`; greedy SDRF (:class:`~fairalloc.scheduling.SDRFScheduler`, one pool, the given
commitments held constant: a snapshot) fills them; the result is compared with Eq. 5's exact
water-filling (:func:`fairalloc.sdrf`) on the divisible instance. The SDRF paper claims "the smaller
the tasks, the closer Algorithm 1 gets to Eq. 5" (Section 6.2).

Finding (reproduced by ``tests/unit/experiments/test_convergence.py`` on hand-solved instances):

* ``priority="level"`` (dominant share + dominant commitment) converges to Eq. 5, at rate
  :math:`O(1/k)` (one task of granularity).
* ``priority="printed"`` (:math:`\max_r (o_{ir} + c_{ir})`, Algorithm 1 as printed) converges too, but
  to a *different* allocation whenever a user's commitment lies on a resource other than the one
  dominating its allocation: the water-filling of :math:`\max_r(o_{ir}+c_{ir})`, which counts the
  commitment only where it exceeds the allocation's own dominance. With two users
  :math:`\theta = (0.9, 0.3), (0.3, 0.9)` and :math:`c_0 = (0, 0.3)` Eq. 5 gives dominant shares
  (0.525, 0.825), the printed rule (0.75, 0.75): a distance of 0.225 that does not shrink with *k*.
  With zero commitments both readings are DRF task filling and both converge.
"""

from __future__ import annotations

import time as _time
from typing import Any, Iterable, Sequence

import numpy as np

from .. import shares
from ..validation import require_choice
from ..commitments import as_commitments
from ..mechanisms import sdrf
from ..model import Cluster, Instance
from ..scheduling.progressive import PRIORITIES, SDRFScheduler

__all__ = ["sdrf_convergence", "CONVERGENCE_EXAMPLES", "DEFAULT_KS"]

#: Task counts of the study (k = 1 .. 1000).
DEFAULT_KS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)

#: Small instances of the study: name -> (demands, commitments), normalised (capacities 1).
CONVERGENCE_EXAMPLES: dict[str, tuple[list, list]] = {
    # zero commitments: both readings are DRF task filling (DRF paper's shapes, totals scaled to fit)
    "drf": ([[0.4, 0.8], [0.9, 0.2]], [[0.0, 0.0], [0.0, 0.0]]),
    # commitment on user 0's non-dominant resource: the readings differ (solved by hand in the tests)
    "cross": ([[0.9, 0.3], [0.3, 0.9]], [[0.0, 0.3], [0.0, 0.0]]),
    # three users, commitments on both resources
    "three": ([[0.6, 0.2], [0.2, 0.6], [0.5, 0.5]], [[0.0, 0.2], [0.1, 0.0], [0.0, 0.0]]),
}


def sdrf_convergence(instance: Instance, /, commitments: Any = None, *, ks: Iterable[int] = DEFAULT_KS,
                     priorities: Sequence[str] = PRIORITIES, blocking: str = "stop",
                     progress: bool = False):
    r"""Distance between greedy SDRF with *k* tasks per user and Eq. 5, for every *k* and reading.

    Parameters
    ----------
    instance : Instance
        Users' total demands :math:`\theta_i` on pooled resources (capacities, weights).
    commitments : array_like (n, m), optional
        The snapshot's commitments (fractions of capacity); default zeros (DRF).
    ks : iterable of int
        Tasks per user (each of demand :math:`\theta_i / k`). A *k* for which some user's task does
        not fit in the pool gives a row of NaN distances.
    priorities : sequence of {"level", "printed"}
    blocking : {"stop", "skip"}
    progress : bool
        Show a progress bar.

    Returns
    -------
    pandas.DataFrame
        One row per (k, priority): ``distance`` the largest difference between the greedy and the
        exact allocation over users and resources, in fractions of capacity (:math:`L_\infty`);
        ``share_distance`` the same on dominant shares; ``level_distance`` on Eq. 5 levels;
        ``tasks`` tasks started per user (tuple); ``decisions``, ``swaps``, ``runtime_s``.

    Examples
    --------
    >>> import fairalloc as fa
    >>> d, c = CONVERGENCE_EXAMPLES["cross"]
    >>> df = sdrf_convergence(fa.Instance(d), c, ks=[10, 1000])
    >>> df.pivot(index="k", columns="priority", values="distance").round(3).to_dict("index")
    {10: {'level': 0.015, 'printed': 0.195}, 1000: {'level': 0.001, 'printed': 0.225}}
    """
    import pandas as pd
    from tqdm.auto import tqdm

    if not isinstance(instance, Instance):
        raise TypeError(f"instance must be a fairalloc.Instance, got {type(instance).__name__}")
    n, m = instance.n_agents, instance.n_resources
    c = as_commitments(commitments, n, m)
    prios = [require_choice("priorities", p, PRIORITIES) for p in priorities]
    ks = [int(k) for k in ks]
    if any(k < 1 for k in ks):
        raise ValueError(f"ks={ks!r} must be positive integers")
    exact = sdrf(instance, commitments=c)
    caps = instance.capacities
    exact_norm = shares.normalized_demands(exact.allocation, caps)
    exact_dom = shares.dominant_shares(exact_norm)
    exact_lev = shares.sdrf_levels(exact_dom, c, instance.weights)
    cluster = Cluster(caps[None, :])
    rows = []
    for k, prio in tqdm([(k, p) for k in ks for p in prios], disable=not progress, desc="convergence"):
        task = instance.demands / k
        row: dict[str, Any] = {"k": k, "priority": prio}
        if not (shares.tasks_that_fit(caps, task) >= 1).all():
            row.update(distance=np.nan, share_distance=np.nan, level_distance=np.nan, tasks=None,
                       decisions=0, swaps=0, runtime_s=0.0)
            rows.append(row)
            continue
        t0 = _time.perf_counter()
        sched = SDRFScheduler(cluster, weights=instance.weights, commitments=c, priority=prio,
                              blocking=blocking)
        for i in range(n):
            sched.submit(i, task[i], k)
        starts = sched.schedule()
        x = np.bincount([s.user for s in starts], minlength=n)
        alloc = shares.normalized_demands(x[:, None] * task, caps)
        dom = shares.dominant_shares(alloc)
        row.update(distance=float(np.abs(alloc - exact_norm).max()),
                   share_distance=float(np.abs(dom - exact_dom).max()),
                   level_distance=float(np.abs(shares.sdrf_levels(dom, c, instance.weights) - exact_lev).max()),
                   tasks=tuple(int(v) for v in x), decisions=len(starts), swaps=sched.swaps,
                   runtime_s=_time.perf_counter() - t0)
        rows.append(row)
    return pd.DataFrame(rows)
