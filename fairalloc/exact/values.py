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
    """``f(x)``: the users' values under ``mechanism`` from per-user task totals.

    The one table from mechanism to user value (:mod:`fairalloc.shares`), used by the exact programs
    and the axiom checkers alike.

    Parameters
    ----------
    instance : TaskInstance or TimeVaryingInstance
        The instance (its demands, capacities, weights, commitments).
    mechanism : {"drf", "sdrf", "tsf", "cdrf", "tvtsf"}
        The user value; ``"tvtsf"`` needs a :class:`~fairalloc.TimeVaryingInstance`.

    Returns
    -------
    callable
        ``f(x) -> ndarray (N,)`` with ``x`` the task totals per user (N,) (for ``"tvtsf"``: starts per
        user and slot (N, T)).

    Raises
    ------
    InvalidInstanceError
        An unknown ``mechanism``.

    See Also
    --------
    mechanism_values : the same from a result's ``tasks`` array.

    Examples
    --------
    TSF task shares in the DRF paper's example: 3/4 and 2/3 (monopoly counts 4 and 3):

    >>> import numpy as np
    >>> import fairalloc as fa
    >>> ti = fa.TaskInstance([[9, 18]], [[1, 4], [3, 1]], tasks=[10, 10])
    >>> value_function(ti, "tsf")(np.array([3, 2])).round(4).tolist()
    [0.75, 0.6667]
    """
    if mechanism == "tvtsf":
        return lambda started: shares.cumulative_task_shares(started, instance.monopoly, instance.weights)[:, -1]
    if mechanism not in VALUED_MECHANISMS:
        raise InvalidInstanceError(f"mechanism={mechanism!r} is not one of {', '.join(VALUED_MECHANISMS)}",
                                   argument="mechanism", value=mechanism)
    d, totals, w = instance.task_demands, instance.cluster.totals, instance.weights
    if mechanism == "drf":
        return lambda x: shares.dominant_share_of_tasks(x, d, totals, w)
    if mechanism == "sdrf":
        return lambda x: shares.sdrf_levels(shares.dominant_share_of_tasks(x, d, totals), instance.commitments, w)
    if mechanism == "tsf":
        return lambda x: shares.task_shares(x, instance.monopoly, w)
    return lambda x: shares.next_task_dominant_shares(x, d, totals, w)


def mechanism_values(instance: Any, mechanism: str, tasks: np.ndarray) -> np.ndarray:
    """The value each user gets under ``mechanism`` from ``tasks`` (a result's ``tasks`` array).

    Parameters
    ----------
    instance : TaskInstance or TimeVaryingInstance
        The instance.
    mechanism : {"drf", "sdrf", "tsf", "cdrf", "tvtsf"}
        The user value (:func:`value_function`).
    tasks : array_like
        Per user (N,), per user and server (N, M), or for ``"tvtsf"`` starts (N, M, T).

    Returns
    -------
    ndarray, shape (N,)

    Examples
    --------
    DRF paper: 3 tasks of A and 2 of B give dominant shares 2/3 each; as TSF task shares 3/4 and 2/3:

    >>> import fairalloc as fa
    >>> ti = fa.TaskInstance([[9, 18]], [[1, 4], [3, 1]], tasks=[10, 10])
    >>> mechanism_values(ti, "drf", [[3], [2]]).round(4).tolist()
    [0.6667, 0.6667]
    >>> mechanism_values(ti, "tsf", [[3], [2]]).round(4).tolist()
    [0.75, 0.6667]
    """
    t = np.asarray(tasks)
    if mechanism == "tvtsf":
        return value_function(instance, mechanism)(t.sum(axis=1))
    x = t.sum(axis=1) if t.ndim == 2 else t
    return value_function(instance, mechanism)(x)
