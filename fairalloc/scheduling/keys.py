r"""The keys of the task schedulers: what each mechanism minimises when it picks the next user.

A task scheduler serves, among the users with pending tasks, the one with the smallest *key*; equal
keys go to the user whose oldest pending task has waited longest, then to the lower index
(``ties="wait"``; ``"index"``: the index only). Each key is a function of one user's state, written
here once as a plain loop from the formulas of :mod:`fairalloc.shares` and
:mod:`fairalloc.commitments`, compiled for the decision core (:mod:`fairalloc.scheduling.core`).
Notation: :math:`u_{ir}` the raw resources user *i*'s running tasks hold, :math:`T_r` the cluster
totals, :math:`o_{ir} = u_{ir}/T_r`, :math:`w_i` the weight, :math:`d_i` the demand of *i*'s oldest
pending task.

==========  ============================================================  =======  ==================
name        key of user *i*                                               moves    source
==========  ============================================================  =======  ==================
``drf``     :math:`\max_r o_{ir} / w_i`                                   no       DRF [1]_ Section 4
``sdrf``    level :math:`(\max_r o_{ir} + \max_r c_{ir}(t)) / w_i`, or    yes      SDRF [2]_ Eq. 5,
            printed :math:`\max_r (o_{ir} + c_{ir}(t)) / w_i`                      Algorithm 1
``tsf``     :math:`\sum_{\text{running}} 1/h(d) / w_i`                    no       TSF [3]_
``cdrf``    :math:`\max_r (u_{ir} + d_{ir}) / T_r / w_i`                  no       CDRF [4]_
==========  ============================================================  =======  ==================

*Constant keys* change only when the user's own state does (a start, a finish, a new head task):
the core keeps them in an indexed heap. *SDRF's key moves with time*: the commitments decay by Eq. 6,
:math:`c_{ir}(t) = \bar o_{ir} + (c_{ir}(t_0) - \bar o_{ir}) e^{-(t - t_0)/\tau}` with the excess
:math:`\bar o_i = \max(o_i - f_i, 0)` constant between two changes of the user's allocation, so the key
is a maximum of lines :math:`a_r + b_r e^{-(t - t_0)/\tau}` (:func:`trajectory_row`), which the live
tree (:mod:`fairalloc.kinetic.tree_core`) keeps in order exactly.

The table :data:`KEYS` names each key, says whether it moves with time, and which blocking rule the
mechanism uses by default. A new mechanism is one key function here, one branch in
:func:`fairalloc.scheduling.core.key_value` / ``key_lines`` and one row of the table.

References
----------
.. [1] A. Ghodsi et al., "Dominant Resource Fairness: Fair Allocation of Multiple Resource Types",
   NSDI 2011.
.. [2] H. Sadok, M. Campista, L. Costa, "O Passado Também Importa: Um Mecanismo de Alocação Justa de
   Múltiplos Tipos de Recursos ao Longo do Tempo", SBRC 2018, Eq. 5-6, Algorithm 1.
.. [3] W. Wang, B. Li, B. Liang, J. Li, "Multi-resource fair sharing for datacenter jobs with
   placement constraints", SC 2016.
.. [4] D. Parkes, A. Procaccia, N. Shah, "Beyond Dominant Resource Fairness: Extensions, Limitations,
   and Indivisibilities", ACM TEAC 3(1), 2015.
"""

from __future__ import annotations

from typing import NamedTuple

from .. import shares
from .._jit import jit

__all__ = ["KEYS", "Key", "DRF", "SDRF", "TSF", "CDRF", "drf_key", "tsf_key", "cdrf_key", "trajectory_row"]

#: Key ids (the core's dispatch).
DRF, SDRF, TSF, CDRF = 0, 1, 2, 3


class Key(NamedTuple):
    """One row of :data:`KEYS`.

    Attributes
    ----------
    id : int
        The core's id of the key.
    moves : bool
        Whether the key moves with time (then the live tree orders the users; else an indexed heap).
    blocking : str
        The mechanism's default blocking rule (``"stop"``: end the pass at the first task that fits
        nowhere; ``"skip"``: set that user aside until the pass ends).
    """

    id: int
    moves: bool
    blocking: str


#: Mechanism name -> :class:`Key`.
KEYS = {"drf": Key(DRF, False, "stop"), "sdrf": Key(SDRF, True, "stop"),
        "tsf": Key(TSF, False, "skip"), "cdrf": Key(CDRF, False, "skip")}

_dominant = jit(shares.dominant_share_row)


@jit(_nrt=False)
def drf_key(usage, totals, w):
    """DRF's key :math:`\\max_r u_r / T_r / w` (the dominant share, :func:`fairalloc.shares.dominant_share_row`).

    Written as SDRF's level with no commitment, :math:`(\\max_r o_r + 0) / w`: the same float (the
    ``+ 0.0`` turns a -0.0 into 0.0).

    Examples
    --------
    The DRF paper's user A holding 3 tasks <1 CPU, 4 GB> of <9, 18>: max(3/9, 12/18) = 2/3:

    >>> import numpy as np
    >>> round(float(drf_key.py_func(np.array([3.0, 12.0]), np.array([9.0, 18.0]), 1.0)), 4)
    0.6667
    """
    return (_dominant(usage, totals) + 0.0) / w


@jit(_nrt=False)
def tsf_key(held_h, held_n, n_held, w):
    """TSF's key :math:`\\sum_j n_j / (h_j w)` over the distinct monopoly counts :math:`h_j` of the
    user's running tasks (:math:`n_j` tasks each; :func:`fairalloc.shares.task_shares`, summed in the
    order the counts were first held).

    Examples
    --------
    Two tasks with h = 4 and one with h = 8, weight 1: 2/4 + 1/8:

    >>> import numpy as np
    >>> float(tsf_key.py_func(np.array([4.0, 8.0]), np.array([2, 1]), 2, 1.0))
    0.625
    """
    acc = 0.0
    for j in range(n_held):
        acc += held_n[j] / (held_h[j] * w)
    return acc


@jit(_nrt=False)
def cdrf_key(usage, demand, totals, w):
    """CDRF's key :math:`\\max_r (u_r + d_r) / T_r / w` (:func:`fairalloc.shares.dominant_shares_after`).

    Examples
    --------
    The DRF paper's user B holding <6, 2> with its next task <3, 1> on <9, 18>: (6 + 3)/9 = 1:

    >>> import numpy as np
    >>> float(cdrf_key.py_func(np.array([6.0, 2.0]), np.array([3.0, 1.0]), np.array([9.0, 18.0]), 1.0))
    1.0
    """
    best = (usage[0] + demand[0]) / totals[0]
    for r in range(1, totals.shape[0]):
        x = (usage[r] + demand[r]) / totals[r]
        if x > best:
            best = x
    return best / w


def trajectory_row(o, excess_, c0, w, level, a, b) -> None:
    r"""User i's SDRF priority as lines for the live tree: intercepts into ``a``, slopes into ``b``.

    With Eq. 6, :math:`c_{ir}(t) = \bar o_{ir} + (c_{ir}(t_0) - \bar o_{ir}) e^{-(t - t_0)/\tau}`; the
    level reading (Eq. 5) is :math:`(\max_r o_{ir} + \max_r c_{ir}) / w_i`, i.e. lines
    :math:`a_r = (\max o_i + \bar o_{ir}) / w_i`, :math:`b_r = (c_{ir}(t_0) - \bar o_{ir}) / w_i`; the
    printed reading :math:`\max_r (o_{ir} + c_{ir}) / w_i` has :math:`a_r = (o_{ir} + \bar o_{ir}) / w_i`.

    Examples
    --------
    >>> a, b = [0.0, 0.0], [0.0, 0.0]
    >>> trajectory_row([0.5, 0.25], [0.0, 0.0], [0.1, 0.3], 1.0, True, a, b); a, b
    ([0.5, 0.5], [0.1, 0.3])
    """
    if level:
        dom = o[0]                             # max(o): the first of equal maxima
        for r in range(1, len(o)):
            if o[r] > dom:
                dom = o[r]
        for r in range(len(o)):
            a[r] = (dom + excess_[r]) / w
    else:
        for r in range(len(o)):
            a[r] = (o[r] + excess_[r]) / w
    for r in range(len(o)):
        b[r] = (c0[r] - excess_[r]) / w


_trajectory = jit(trajectory_row)
