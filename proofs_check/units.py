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

    >>> pooled_instance([[1, 4], [3, 1]], [3, 2], [9, 18]).demands.tolist()
    [[3.0, 12.0], [6.0, 2.0]]
    """
    return Instance.from_tasks(task_demands, tasks, capacities, weights, **names)


def fraction_utilities(demands, allocation) -> np.ndarray:
    """Fraction of each user's total demand its bundle serves (SDRF Eq. 1), row by row.

    ``allocation`` may hold another user's bundles (envy) or exact rationals (object arrays).

    >>> fraction_utilities([[3, 12], [6, 2]], [[3, 6], [6, 2]]).tolist()
    [0.5, 1.0]
    """
    return shares.leontief_utility(allocation, demands)


def task_utilities(demands, allocation, tasks) -> np.ndarray:
    r"""``axioms.md``'s divisible utility in tasks, :math:`K_i \cdot` :func:`fraction_utilities`.

    >>> task_utilities([[3, 12], [6, 2]], [[3, 6], [6, 2]], [3, 2]).tolist()     # 1.5 of A's tasks, 2 of B's
    [1.5, 2.0]
    """
    k = np.asarray(tasks)
    return k * fraction_utilities(demands, allocation)
