r"""The one table from mechanism to user value that every exact program maximises.

========= =================================================================== ================================
mechanism user value of per-user task totals :math:`X_i` (weights divide)      :mod:`fairalloc.shares`
========= =================================================================== ================================
``drf``   dominant share :math:`X_i \mu_i / w_i`                               ``dominant_share_of_tasks``
``sdrf``  SDRF level :math:`(\tilde c_i + X_i \mu_i) / w_i` (SDRF Eq. 5)       ``sdrf_levels``
``tsf``   task share :math:`X_i / (w_i h_i)` (TSF)                             ``task_shares``
``cdrf``  :math:`(X_i + 1) \mu_i / w_i` (SequentialMinMax's key)              ``next_task_dominant_shares``
``tvtsf`` cumulative task share after the last slot (TV-TSF Eq. 3), of the    ``cumulative_task_shares``
          starts per user and slot
========= =================================================================== ================================

:func:`value_function` is what :mod:`fairalloc.exact.tasks` reads its affine valuations from;
:func:`mechanism_values` is what :mod:`fairalloc.experiments.compare` measures greedy and exact
allocations with. One table, so the comparison measures exactly what the programs maximise.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import shares
from ..errors import InvalidInstanceError

__all__ = ["VALUED_MECHANISMS", "value_function", "mechanism_values"]

VALUED_MECHANISMS = ("drf", "sdrf", "tsf", "cdrf", "tvtsf")


def value_function(instance: Any, mechanism: str) -> Callable[[np.ndarray], np.ndarray]:
    """``f(x)``: the users' values under ``mechanism`` from per-user task totals ``x`` (N,)
    (for ``"tvtsf"``: starts per user and slot (N, T))."""
    if mechanism == "tvtsf":
        return lambda started: shares.cumulative_task_shares(started, instance.monopoly, instance.weights)[:, -1]
    if mechanism not in VALUED_MECHANISMS:
        raise InvalidInstanceError(f"mechanism={mechanism!r} is not one of {', '.join(VALUED_MECHANISMS)}",
                                   argument="mechanism", value=mechanism)
    d, totals, w = instance.task_demands, instance.cluster.totals, instance.weights
    if mechanism == "drf":
        return lambda x: shares.dominant_share_of_tasks(x, d, totals) / w
    if mechanism == "sdrf":
        return lambda x: shares.sdrf_levels(shares.dominant_share_of_tasks(x, d, totals), instance.commitments, w)
    if mechanism == "tsf":
        return lambda x: shares.task_shares(x, instance.monopoly, w)
    return lambda x: shares.next_task_dominant_shares(x, d, totals, w)


def mechanism_values(instance: Any, mechanism: str, tasks: np.ndarray) -> np.ndarray:
    """The value each user gets under ``mechanism`` from ``tasks`` (a result's ``tasks`` array).

    ``tasks``: per user (N,), per user and server (N, M), or for ``"tvtsf"`` starts (N, M, T).

    >>> import fairalloc as fa
    >>> ti = fa.TaskInstance([[9, 18]], [[1, 4], [3, 1]], tasks=[10, 10])
    >>> mechanism_values(ti, "drf", [[3], [2]]).round(4).tolist()      # DRF paper: 2/3 each
    [0.6667, 0.6667]
    """
    t = np.asarray(tasks)
    if mechanism == "tvtsf":
        return value_function(instance, mechanism)(t.sum(axis=1))
    x = t.sum(axis=1) if t.ndim == 2 else t
    return value_function(instance, mechanism)(x)
