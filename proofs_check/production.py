r"""The production policies' pooled forms as the claims table calls them (:mod:`fairalloc.fairshare.pooled`).

The checkers call a stateful mechanism as ``mechanism(instance, commitments=c)`` with ``c`` an
(n, m) array in fractions of each capacity (:func:`proofs_check.strategies.commitment_arrays`). For
the policies with memory the state is one number per user (Slurm's decayed usage, HTCondor's real
user priority), in billing units: these adapters read an (n, m) ``commitments`` as the resources each
user held over one past period, billed by the policy's own rule (:meth:`fairalloc.fairshare.Billing.rates`
of :math:`c_i \odot C`), and the repeated game (:class:`proofs_check.repeated.UsageDynamics`) passes
the usage itself as ``usage=``. Each adapter carries the policy's state update as ``usage_step``
(Slurm: :func:`~fairalloc.fairshare.pooled.slurm_usage_step`, a decay pass then the period's charge;
HTCondor: :func:`~fairalloc.fairshare.pooled.htcondor_rup_step`; Kueue's admission fair sharing:
:func:`~fairalloc.fairshare.pooled.kueue_afs_step`, whose state is per resource), the decay per period
being the case's ``delta`` (the half-life in periods is :math:`\ln 0.5/\ln\delta`).

No rule is defined here: the allocation and the update are fairalloc's.

>>> import fairalloc as fa
>>> inst = fa.Instance([[10.0], [10.0]], capacities=[10])
>>> slurm_classic(inst, commitments=[[0.4], [0.0]]).allocation.ravel().round(9).tolist()  # 4 CPU-periods used
[3.0, 7.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fairalloc.fairshare import AdmissionFairSharing, Billing, pooled

__all__ = ["slurm_classic", "slurm_fair_tree", "slurm_max_tres", "htcondor", "kueue_afs", "USAGE_RULES"]

_DOMINANT = Billing(rule="dominant_share")


def _past(instance, commitments: Any, usage: Any, billing: Billing | None) -> np.ndarray | None:
    if usage is not None:
        return np.asarray(usage, dtype=float)
    if commitments is None:
        return None
    c = np.asarray(commitments, dtype=float).reshape(instance.n_agents, instance.n_resources)
    bill = Billing({instance.resource_names[0]: 1.0}) if billing is None else billing
    return bill.rates(c * instance.capacities, list(instance.resource_names), capacities=instance.capacities)


def _slurm_step(billing):
    def step(usage, allocation, decay, capacities):
        return pooled.slurm_usage_step(usage, allocation, decay, billing=billing, capacities=capacities)
    return step


#: cores in the pool of the HTCondor row: its slot weight counts the first resource in units of
#: 1/100 of its capacity, so that the RUP floor (0.5 core) is small beside the pool, as in a real pool
POOL_CORES = 100.0


def _slot_weight(capacities, n_resources: int) -> Billing:
    return Billing({"r0": POOL_CORES / float(np.asarray(capacities, dtype=float).reshape(-1)[0])})


def _condor_step(usage, allocation, decay, capacities):
    A = np.asarray(allocation, dtype=float)
    return pooled.htcondor_rup_step(usage, A, decay, slot_weight=_slot_weight(capacities, A.shape[1]),
                                    capacities=capacities)


def slurm_classic(instance, commitments: Any = None, *, usage: Any = None, decay: float | None = None):
    """Slurm classic fair share, default billing (CPUs: the first resource); past usage from ``commitments`` or ``usage``.

    Parameters
    ----------
    instance : fairalloc.Instance
    commitments : array_like (n, m), optional
        Resources held over one past period, fractions of each capacity (a stage case's state).
    usage : array_like (n,), optional
        The state itself, in billing units (the repeated game); wins over ``commitments``.
    decay : float, optional
        The game's decay per period; the stage does not depend on it (accepted for
        :class:`~proofs_check.repeated.UsageDynamics`).

    Returns
    -------
    fairalloc.AllocationResult

    Examples
    --------
    See the module docstring; with no past usage, equal CPUs for both users of one resource:

    >>> import fairalloc as fa
    >>> slurm_classic(fa.Instance([[1.0], [1.0]])).allocation.ravel().tolist()
    [0.5, 0.5]
    """
    return pooled.slurm_fairshare(instance, _past(instance, commitments, usage, None), algorithm="classic")


def slurm_fair_tree(instance, commitments: Any = None, *, usage: Any = None, decay: float | None = None):
    """Slurm Fair Tree, default billing; on a flat tree its pooled form is the classic one's.

    Parameters
    ----------
    instance : fairalloc.Instance
    commitments : array_like (n, m), optional
        Resources held over one past period, fractions of each capacity (a stage case's state).
    usage : array_like (n,), optional
        The state itself, in billing units (the repeated game); wins over ``commitments``.
    decay : float, optional
        The game's decay per period; the stage does not depend on it (accepted for
        :class:`~proofs_check.repeated.UsageDynamics`).

    Returns
    -------
    fairalloc.AllocationResult

    Examples
    --------
    >>> import fairalloc as fa
    >>> slurm_fair_tree(fa.Instance([[10.0], [10.0]], capacities=[10]), usage=[4.0, 0.0]).allocation.ravel().round(9).tolist()
    [3.0, 7.0]
    """
    return pooled.slurm_fairshare(instance, _past(instance, commitments, usage, None), algorithm="fair_tree")


def slurm_max_tres(instance, commitments: Any = None, *, usage: Any = None, decay: float | None = None):
    """Slurm classic fair share with ``PriorityFlags=MAX_TRES`` and weights :math:`1/C_r` (the dominant share).

    Parameters
    ----------
    instance : fairalloc.Instance
    commitments : array_like (n, m), optional
        Resources held over one past period, fractions of each capacity (a stage case's state).
    usage : array_like (n,), optional
        The state itself, in billing units (dominant shares x periods) (the repeated game); wins over ``commitments``.
    decay : float, optional
        The game's decay per period; the stage does not depend on it (accepted for
        :class:`~proofs_check.repeated.UsageDynamics`).

    Returns
    -------
    fairalloc.AllocationResult

    Examples
    --------
    No past usage: DRF (Ghodsi et al.'s example, 3 and 2 tasks):

    >>> import fairalloc as fa
    >>> inst = fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[100, 100], capacities=[9, 18])
    >>> slurm_max_tres(inst).allocation.round(9).tolist()
    [[3.0, 12.0], [6.0, 2.0]]
    """
    return pooled.slurm_fairshare(instance, _past(instance, commitments, usage, _DOMINANT), billing=_DOMINANT)


def htcondor(instance, commitments: Any = None, *, usage: Any = None, decay: float | None = None):
    """HTCondor's negotiation cycle, ``SLOT_WEIGHT = Cpus`` (the first resource, :data:`POOL_CORES` in the
    pool); RUP from ``commitments`` or ``usage``.

    Parameters
    ----------
    instance : fairalloc.Instance
    commitments : array_like (n, m), optional
        Resources held over one past period, fractions of each capacity (a stage case's state).
    usage : array_like (n,), optional
        The state itself, real user priorities in cores (the repeated game); wins over ``commitments``.
    decay : float, optional
        The game's decay per period; the cycle does not depend on it (accepted for
        :class:`~proofs_check.repeated.UsageDynamics`).

    Returns
    -------
    fairalloc.AllocationResult

    Examples
    --------
    RUPs 20 and 5 cores: pie slices 1 : 4 of one resource both want whole:

    >>> import fairalloc as fa
    >>> htcondor(fa.Instance([[1.0], [1.0]]), usage=[20.0, 5.0]).allocation.ravel().round(9).tolist()
    [0.2, 0.8]
    """
    sw = _slot_weight(instance.capacities, instance.n_resources)
    return pooled.htcondor_priority(instance, _past(instance, commitments, usage, sw), slot_weight=sw)


def _afs_config(decay: float | None):
    """AFS with the half-life of ``decay`` per period (default 1/2) and a one-period sampling interval,
    so that the entry penalty of an admission is what the next sample adds to the consumed usage."""
    d = 0.5 if decay is None else float(decay)
    return AdmissionFairSharing(usage_half_life=float(np.log(0.5) / np.log(d)), sampling_interval=1.0)


def kueue_afs(instance, commitments: Any = None, *, usage: Any = None, decay: float | None = None):
    """Kueue admission fair sharing, one ClusterQueue, default resource weights (1 per unit of every
    resource); consumed resources from ``commitments`` (fractions of capacity) or ``usage`` (n, m).

    Parameters
    ----------
    instance : fairalloc.Instance
    commitments : array_like (n, m), optional
        Consumed resources as fractions of each capacity (a stage case's state).
    usage : array_like (n, m), optional
        Consumed resources in instance units (the repeated game); wins over ``commitments``.
    decay : float in (0, 1), optional
        Decay of the consumed usage per period (default 1/2); the sampling interval is one period, so
        the entry penalty is ``1 - decay`` of a request.

    Returns
    -------
    fairalloc.AllocationResult

    Examples
    --------
    Consumed 4 and 0 of 10 CPUs, entry penalty 1/2: 4 + x0/2 = x1/2 with x0 + x1 = 10:

    >>> import fairalloc as fa
    >>> kueue_afs(fa.Instance([[10.0], [10.0]], capacities=[10]), usage=[[4.0], [0.0]]).allocation.ravel().round(9).tolist()
    [1.0, 9.0]
    """
    if usage is not None:
        consumed = np.asarray(usage, dtype=float)
    elif commitments is not None:
        consumed = np.asarray(commitments, dtype=float).reshape(instance.n_agents, instance.n_resources) \
            * instance.capacities
    else:
        consumed = None
    return pooled.kueue_afs(instance, consumed, afs=_afs_config(decay))


def _afs_step(usage, allocation, decay, capacities):
    return pooled.kueue_afs_step(usage, allocation, decay, afs=_afs_config(decay))


#: row function name -> its state update ``(usage, allocation, decay, capacities) -> usage``
USAGE_RULES = {
    "slurm_classic": _slurm_step(None),
    "slurm_fair_tree": _slurm_step(None),
    "slurm_max_tres": _slurm_step(_DOMINANT),
    "htcondor": _condor_step,
    "kueue_afs": _afs_step,
}
for _fn in (slurm_classic, slurm_fair_tree, slurm_max_tres, htcondor, kueue_afs):
    _fn.usage_step = USAGE_RULES[_fn.__name__]      # type: ignore[attr-defined]
kueue_afs.per_resource = True                       # type: ignore[attr-defined]  # state (n, m), not (n,)
