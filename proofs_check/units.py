r"""The one mapping between ``axioms.md``'s per-task view and fairalloc's total demands.

``axioms.md`` describes user *i* by a per-task demand :math:`d_i` and a task cap :math:`K_i`, with
divisible utility :math:`u_i(A) = \min(K_i, \min_{r: d_{ir}>0} A_r/d_{ir})` (tasks).
:class:`fairalloc.Instance` stores the *total* demand :math:`\theta_i = K_i d_i` and its utilities
are fractions of that demand (SDRF Eq. 1, cap 1). The two agree up to the factor :math:`K_i`:

.. math:: u_i^{\text{tasks}}(A) = K_i \cdot \min\{1, \min_r A_r / \theta_{ir}\}.

Every axiom except the repeated game compares utilities of the *same* user (sharing incentive, envy,
Pareto dominance, monotonicity), so the factor cancels and the checkers work in fractions. The
repeated game adds utilities of one user across periods whose demands differ, so there the unit
matters: :func:`task_utilities` converts, and nothing else in ``proofs_check`` does.
"""

from __future__ import annotations

import numpy as np

from fairalloc import Instance, shares

__all__ = ["pooled_instance", "fraction_utilities", "task_utilities"]


def pooled_instance(task_demands, tasks, capacities=None, weights=None, **names) -> Instance:
    r"""The :class:`~fairalloc.Instance` of per-task demands :math:`d_i` and caps :math:`K_i` (:math:`\theta_i = K_i d_i`).

    Parameters
    ----------
    task_demands : array_like of shape (N, R)
        Per-task demand :math:`d_i` of each user, non-negative.
    tasks : array_like of shape (N,)
        Task cap :math:`K_i` of each user, positive.
    capacities : array_like of shape (R,), optional
        Pool capacity of each resource; default: :class:`~fairalloc.Instance`'s default (all ones).
    weights : array_like of shape (N,), optional
        User weights (default all ones).
    **names
        ``users=`` / ``resources=`` labels, passed on.

    Returns
    -------
    fairalloc.Instance
        Total demands :math:`\theta_i = K_i d_i`.

    Raises
    ------
    fairalloc.InvalidInstanceError
        A negative demand, a non-positive cap or capacity, or mismatched shapes (naming the argument).

    See Also
    --------
    fairalloc.Instance.from_tasks : the same mapping; this name is the one ``axioms.md`` examples use.

    Examples
    --------
    ``axioms.md``'s two users, (1, 4) × 3 tasks and (3, 1) × 2 tasks, total 3·(1, 4) and 2·(3, 1):

    >>> pooled_instance([[1, 4], [3, 1]], [3, 2], [9, 18]).demands.tolist()
    [[3.0, 12.0], [6.0, 2.0]]
    """
    return Instance.from_tasks(task_demands, tasks, capacities, weights, **names)


def fraction_utilities(demands, allocation) -> np.ndarray:
    """Fraction of each user's total demand its bundle serves (SDRF Eq. 1), row by row.

    ``allocation`` may hold another user's bundles (envy) or exact rationals (object arrays).

    Parameters
    ----------
    demands : array_like of shape (N, R)
        Total demands :math:`\\theta_i`.
    allocation : array_like of shape (N, R)
        Bundle :math:`A_i` of each row (float or ``Fraction`` objects).

    Returns
    -------
    ndarray of shape (N,)
        :math:`\\min\\{1, \\min_{r: \\theta_{ir}>0} A_{ir}/\\theta_{ir}\\}` via
        :func:`fairalloc.shares.leontief_utility`.

    Examples
    --------
    User 0 gets (3, 6) of (3, 12): half its demand (6/12 binds); user 1 gets all of (6, 2):

    >>> fraction_utilities([[3, 12], [6, 2]], [[3, 6], [6, 2]]).tolist()
    [0.5, 1.0]
    """
    return shares.leontief_utility(allocation, demands)


def task_utilities(demands, allocation, tasks) -> np.ndarray:
    r"""``axioms.md``'s divisible utility in tasks, :math:`K_i \cdot` :func:`fraction_utilities`.

    Parameters
    ----------
    demands : array_like of shape (N, R)
        Total demands :math:`\theta_i = K_i d_i`.
    allocation : array_like of shape (N, R)
        Bundles :math:`A_i`.
    tasks : array_like of shape (N,)
        Task caps :math:`K_i`.

    Returns
    -------
    ndarray of shape (N,)
        Tasks served, :math:`K_i \min\{1, \min_r A_{ir}/\theta_{ir}\}`.

    Examples
    --------
    The bundles of :func:`fraction_utilities`' example serve 1/2 of 3 tasks and all of 2:

    >>> task_utilities([[3, 12], [6, 2]], [[3, 6], [6, 2]], [3, 2]).tolist()     # 1.5 of A's tasks, 2 of B's
    [1.5, 2.0]
    """
    k = np.asarray(tasks)
    return k * fraction_utilities(demands, allocation)
