r"""Re-parametrisations of fairalloc mechanisms that the claims table needs to tell causes apart.

:func:`tsf_unfloored` is divisible TSF with Wang et al.'s task share: the monopoly count
:math:`h_i = \sum_m \min_r C_{mr}/d_{ir}` without floors. fairalloc's :func:`fairalloc.tsf`
(``method="lp"``) uses TV-TSF Eq. 4's :math:`h_i = \sum_m \lfloor\min_r C_{mr}/d_{ir}\rfloor`, the same
count as its integer mechanisms so that divisible and integer results are comparable; with the floors
divisible TSF loses sharing incentive, envy-freeness and strategy-proofness (``FINDINGS`` in
:mod:`proofs_check.claims`), with the paper's count it keeps them. No new algorithm: the task share
:math:`x_i/(w_i h_i)` is reached through the weights, :math:`w'_i = w_i h^{div}_i / h^{floor}_i`,
and the LP progressive filling of :func:`fairalloc.exact.tsf_lp` does the rest.

>>> import fairalloc as fa
>>> ti = fa.TaskInstance([[4]], [[3], [4]], tasks=[1, 1])   # h = 4/3 and 1 (floors: 1 and 1)
>>> fa.tsf(ti, solver="highs").tasks.ravel().round(4).tolist()     # equal x/h with floored h: 4/7 each
[0.5714, 0.5714]
>>> tsf_unfloored(ti).tasks.ravel().round(4).tolist()              # x0/(4/3) = x1/1 and 3 x0 + 4 x1 = 4
[0.6667, 0.5]
"""

from __future__ import annotations

from typing import Any

import numpy as np

import fairalloc as fa
from fairalloc import shares

__all__ = ["unfloored_monopoly", "tsf_unfloored"]


def unfloored_monopoly(ti: "fa.TaskInstance") -> np.ndarray:
    r"""(N,) :math:`\sum_m \min_{r: d_{ir}>0} C_{mr}/d_{ir}`: divisible tasks a user could run alone (placement ignored).

    Wang et al.'s monopoly count, TV-TSF Eq. 4 without the floors.

    Parameters
    ----------
    ti : fairalloc.TaskInstance
        Servers :math:`C` (M, R) and per-task demands :math:`d` (N, R).

    Returns
    -------
    ndarray of shape (N,)
        Each user's divisible task count over all servers (float).

    Examples
    --------
    One server of capacity 4; tasks of size 3 and 4 (by hand: 4/3 and 4/4 tasks):

    >>> import fairalloc as fa
    >>> ti = fa.TaskInstance([[4]], [[3], [4]], tasks=[1, 1])
    >>> unfloored_monopoly(ti).round(4).tolist()
    [1.3333, 1.0]
    """
    per = shares.leontief_utility(ti.cluster.capacities[None, :, :], ti.task_demands[:, None, :], cap=np.inf)
    return per.sum(axis=1)


def tsf_unfloored(ti: "fa.TaskInstance", /, *, solver: str = "highs", **kwargs: Any) -> "fa.AllocationResult":
    """Divisible TSF with unfloored monopoly counts (module docstring); keywords go to :func:`fairalloc.tsf`.

    Parameters
    ----------
    ti : fairalloc.TaskInstance
        The instance; its weights :math:`w_i` are rescaled to :math:`w_i h^{div}_i / h^{floor}_i`.
    solver : str, default "highs"
        LP solver of :func:`fairalloc.exact.tsf_lp`.
    **kwargs
        Further keywords of :func:`fairalloc.tsf` with ``method="lp"`` (``options``, ``rise_tol``).

    Returns
    -------
    fairalloc.AllocationResult
        Divisible task counts in ``tasks`` (N, M), ``mechanism="tsf-unfloored"`` and the unfloored
        counts in ``details["monopoly"]``.

    Raises
    ------
    TypeError
        A keyword :func:`fairalloc.tsf` does not accept with ``method="lp"`` (the message lists the
        accepted ones).

    Examples
    --------
    Task sizes 3 and 4 on one server of 4: equal :math:`x_i/h_i` with :math:`h = (4/3, 1)` and
    :math:`3 x_0 + 4 x_1 = 4` give :math:`x = (2/3, 1/2)` (by hand):

    >>> import fairalloc as fa
    >>> ti = fa.TaskInstance([[4]], [[3], [4]], tasks=[1, 1])
    >>> res = tsf_unfloored(ti)
    >>> res.mechanism, res.tasks.ravel().round(4).tolist()
    ('tsf-unfloored', [0.6667, 0.5])
    """
    h = unfloored_monopoly(ti)
    res = fa.tsf(ti.replace(weights=ti.weights * h / ti.monopoly), method="lp", solver=solver, **kwargs)
    return res.replace(mechanism="tsf-unfloored", details={**res.details, "monopoly": h})
