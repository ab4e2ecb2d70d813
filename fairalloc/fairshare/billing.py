r"""Usage charged per user in billing units: Slurm's TRES billing, or the dominant share.

A running job is charged a *billing rate* (billing units per second); the fair-share policies
(:mod:`.slurm`, :mod:`.htcondor`) decay the charged usage over time. The rate of a job is fixed when it
starts (Slurm caches ``billable_tres`` per job, ``calc_job_billable_tres`` in ``job_mgr.c``), so it is
computed once per job: :meth:`Billing.rates`.

Rules (Slurm ``TRESBillingWeights`` and ``PriorityFlags``, ``assoc_mgr_tres_weighted`` in
``src/common/assoc_mgr.c``; TRES page https://slurm.schedmd.com/tres.html), with :math:`x_r` the job's
amount of resource *r* and :math:`w_r` its billing weight:

* ``"sum"`` (Slurm's default): :math:`b = \sum_r w_r x_r`;
* ``"max_tres"`` (``PriorityFlags=MAX_TRES``): :math:`b = \max_{r\ \mathrm{node}} w_r x_r +
  \sum_{r\ \mathrm{global}} w_r x_r`, where *node* TRES are ``cpu``, ``mem``, ``node`` and every
  ``gres/...`` (a GPU), and *global* TRES the rest (licenses, burst buffers, ...). This is DRF-like:
  with :math:`w_r = 1/C_r` it is the dominant share;
* ``"max_tres_gres"`` (``PriorityFlags=MAX_TRES_GRES``, Slurm 25.05): :math:`b = \max_{r \in
  \{cpu, mem, node\}} w_r x_r + \sum_{r\ \mathrm{gres}} w_r x_r + \sum_{r\ \mathrm{global}} w_r x_r`;
* ``"dominant_share"``: :math:`b = \max_r x_r / C_r`, the dominant share of
  :func:`fairalloc.shares.dominant_shares` (not re-defined here), in fractions of the cluster.

Without weights Slurm bills the allocated CPUs (``TRESBillingWeights="CPU=1"``): that is
``Billing()``. Slurm stores the *billing TRES* of a job as an integer (truncated, the TRES page's
"4.5 => 4"), but the fair-share usage uses the unrounded double (``_apply_new_usage`` multiplies by
``calc_job_billable_tres``'s double); rates here are not rounded.

Trace resources are matched to weights by name, case-insensitively, with the aliases ``memory`` =
``mem`` and ``gpu`` = ``gres/gpu``. A weight for a resource the trace lacks is an error (Slurm:
"TRES weight ... is not a configured TRES type"); a trace resource without a weight is not billed
(Slurm's weights default to 0).

Examples
--------
The TRES page's example, ``TRESBillingWeights="CPU=1.0,Mem=0.25G,GRES/gpu=2.0,license/licA=1.5"``, a job
with 1 CPU and 8 GiB (8192 MiB; the ``G`` suffix bills per GiB):

>>> b = Billing.from_slurm("CPU=1.0,Mem=0.25G,GRES/gpu=2.0,license/licA=1.5")
>>> b.rates([[1, 8192, 0, 0]], ["cpu", "mem", "gpu", "license/licA"]).tolist()
[3.0]
>>> Billing.from_slurm("CPU=1.0,Mem=0.25G", flags="MAX_TRES").rates([[1, 8192]], ["cpu", "mem"]).tolist()
[2.0]
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np

from .. import shares
from ..errors import InvalidInstanceError

__all__ = ["Billing", "BILLING_RULES", "tres_billing_row", "NODE", "GRES", "GLOBAL"]

#: Billing rules and their codes for :func:`tres_billing_row`.
BILLING_RULES = {"sum": 0, "max_tres": 1, "max_tres_gres": 2, "dominant_share": 3}

#: TRES kinds (codes in ``Billing.weights_for``'s ``kinds``): a node TRES (cpu, mem, node), a GRES, a global TRES.
NODE, GRES, GLOBAL = 0, 1, 2

_ALIASES = {"memory": "mem", "gpu": "gres/gpu", "gpus": "gres/gpu"}
_UNITS = {"K": 1, "M": 2, "G": 3, "T": 4, "P": 5}


def _canonical(name: str) -> str:
    key = str(name).strip().lower()
    return _ALIASES.get(key, key)


def _kind(canonical: str) -> int:
    if canonical in ("cpu", "mem", "node"):
        return NODE
    if canonical.startswith("gres/"):
        return GRES
    return GLOBAL


def tres_billing_row(amounts, weights, kinds, rule: int) -> float:
    r"""One job's billing rate under a TRES rule (``sum``, ``max_tres``, ``max_tres_gres``), as a plain loop.

    Slurm's ``assoc_mgr_tres_weighted`` term by term; numba compiles this one definition for the
    schedulers' inner loops. The dominant share is not computed here (:func:`fairalloc.shares.dominant_share_row`).

    Parameters
    ----------
    amounts : sequence of float, length m
        The job's amount of each resource.
    weights : sequence of float, length m
        Billing weight per unit of each resource (0 = not billed).
    kinds : sequence of int, length m
        :data:`NODE`, :data:`GRES` or :data:`GLOBAL` per resource.
    rule : int
        ``BILLING_RULES["sum"]``, ``["max_tres"]`` or ``["max_tres_gres"]``.

    Returns
    -------
    float

    Examples
    --------
    1 CPU (weight 1), 2 GiB billed at 0.25 per GiB counted in GiB, 1 GPU (weight 2): sum 1 + 0.5 + 2;
    MAX_TRES max(1, 0.5, 2); MAX_TRES_GRES max(1, 0.5) + 2:

    >>> [tres_billing_row([1.0, 2.0, 1.0], [1.0, 0.25, 2.0], [0, 0, 1], r) for r in (0, 1, 2)]
    [3.5, 2.0, 3.0]
    """
    node = 0.0
    gres = 0.0
    total = 0.0
    for r in range(len(amounts)):
        x = amounts[r] * weights[r]
        k = kinds[r]
        if rule == 0 or k == GLOBAL:
            total += x
        elif rule == 2 and k == GRES:
            gres += x
        elif x > node:
            node = x
    return total + node + gres


class Billing:
    r"""How a job's resources become a billing rate (see the module docstring).

    Parameters
    ----------
    weights : mapping of str to float, optional
        Billing weight per unit of each named resource (``>= 0``). Default ``{"cpu": 1.0}`` (Slurm's
        default, allocated CPUs). Not allowed with ``rule="dominant_share"``.
    rule : {"sum", "max_tres", "max_tres_gres", "dominant_share"}, optional
        Default ``"sum"``.

    Attributes
    ----------
    weights : dict of str to float
        Canonical resource name (``mem``, ``gres/gpu``, ...) to weight.
    rule : str

    Raises
    ------
    InvalidInstanceError
        An unknown rule, a negative or non-finite weight, weights that sum to 0 (nothing would be
        charged), weights with ``dominant_share``.

    Examples
    --------
    The multifactor page's jobs on ``TRESBillingWeights=CPU=1.0,Mem=0.25G`` (memory given in GiB
    here, so the weight is 0.25 per unit):

    >>> b = Billing({"cpu": 1.0, "memory": 0.25})
    >>> b.rates([[1, 60], [16, 1], [16, 60]], ["cpu", "memory"]).tolist()
    [16.0, 16.25, 31.0]
    >>> Billing(rule="dominant_share").rates([[1, 60]], ["cpu", "memory"], capacities=[16, 64]).tolist()
    [0.9375]
    """

    def __init__(self, weights: Mapping[str, float] | None = None, *, rule: str = "sum") -> None:
        if rule not in BILLING_RULES:
            raise InvalidInstanceError(f"rule={rule!r} is not a billing rule; rules: {sorted(BILLING_RULES)}",
                                       argument="rule", value=rule)
        if rule == "dominant_share":
            if weights is not None:
                raise InvalidInstanceError("rule='dominant_share' takes no weights (it divides by the capacities)",
                                           argument="weights", value=dict(weights))
            w: dict[str, float] = {}
        else:
            w = {}
            for name, value in ({"cpu": 1.0} if weights is None else dict(weights)).items():
                key = _canonical(name)
                if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)) \
                        or not math.isfinite(float(value)) or float(value) < 0:
                    raise InvalidInstanceError(f"weights[{name!r}]={value!r} must be a finite number >= 0",
                                               argument="weights", value=value)
                if key in w:
                    raise InvalidInstanceError(f"weights give {key!r} twice (as {name!r})", argument="weights",
                                               value=name)
                w[key] = float(value)
            if not any(w.values()):
                raise InvalidInstanceError(f"billing weights {weights!r} sum to 0: every job would be billed 0, no "
                                           "usage would be charged and fair share would be off; give a weight > 0",
                                           argument="weights", value=dict(weights or {}))
        self.weights = w
        self.rule = rule

    @classmethod
    def from_slurm(cls, text: str, *, flags: str = "", memory_unit: str = "M") -> "Billing":
        """Parse Slurm's ``TRESBillingWeights`` string (and the billing flag of ``PriorityFlags``).

        Parameters
        ----------
        text : str
            E.g. ``"CPU=1.0,Mem=0.25G,GRES/gpu=2.0"``. A unit suffix (K, M, G, T, P) on a memory
            weight means "per that unit" (Slurm divides the weight by 1024 per step above the base unit).
        flags : str, optional
            ``PriorityFlags``; ``MAX_TRES`` or ``MAX_TRES_GRES`` picks the rule (others are ignored here).
        memory_unit : str, optional
            Unit of the trace's memory column (default ``"M"``, MiB, Slurm's base unit).

        Returns
        -------
        Billing

        Raises
        ------
        InvalidInstanceError
            An entry without ``=``, a weight that is not a number, an unknown unit.

        Examples
        --------
        >>> Billing.from_slurm("CPU=1.0,Mem=0.25G").weights
        {'cpu': 1.0, 'mem': 0.000244140625}
        >>> Billing.from_slurm("CPU=1,Mem=0.25", flags="NO_FAIR_TREE,MAX_TRES").rule
        'max_tres'
        """
        fl = {f.strip().upper() for f in flags.split(",") if f.strip()}
        rule = "max_tres_gres" if "MAX_TRES_GRES" in fl else "max_tres" if "MAX_TRES" in fl else "sum"
        base = _UNITS.get(memory_unit.upper())
        if base is None:
            raise InvalidInstanceError(f"memory_unit={memory_unit!r} must be one of {list(_UNITS)}",
                                       argument="memory_unit", value=memory_unit)
        weights: dict[str, float] = {}
        for item in (t.strip() for t in text.split(",")):
            if not item:
                continue
            name, eq, value = item.partition("=")
            if not eq or not value.strip():
                raise InvalidInstanceError(f"TRESBillingWeights entry {item!r} must be <TRES>=<weight>",
                                           argument="TRESBillingWeights", value=item)
            value = value.strip()
            unit = value[-1].upper() if value[-1].isalpha() else None
            num = value[:-1] if unit else value
            try:
                w = float(num)
            except ValueError:
                raise InvalidInstanceError(f"TRESBillingWeights entry {item!r}: {value!r} is not a number",
                                           argument="TRESBillingWeights", value=item) from None
            if unit is not None:
                if unit not in _UNITS:
                    raise InvalidInstanceError(f"TRESBillingWeights entry {item!r}: unknown unit {unit!r}; "
                                               f"units: {list(_UNITS)}", argument="TRESBillingWeights", value=item)
                if _canonical(name) == "mem":
                    w /= 1024.0 ** (_UNITS[unit] - base)
            weights[name.strip()] = w
        return cls(weights, rule=rule)

    def weights_for(self, resource_names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Weights and TRES kinds aligned with a trace's resources.

        Parameters
        ----------
        resource_names : sequence of str
            The trace's resource names (``Workload.resource_names``).

        Returns
        -------
        weights : ndarray of float, shape (m,)
            0 for a resource without a weight.
        kinds : ndarray of int64, shape (m,)
            :data:`NODE`, :data:`GRES` or :data:`GLOBAL`.

        Raises
        ------
        InvalidInstanceError
            A weight names a resource the trace lacks (the message lists the trace's resources), or two
            trace resources are the same after aliasing.

        Examples
        --------
        >>> w, k = Billing({"cpu": 1, "gpu": 2}).weights_for(["cpu", "memory", "gpu"])
        >>> w.tolist(), k.tolist()
        ([1.0, 0.0, 2.0], [0, 0, 1])
        >>> Billing({"gpu": 2}).weights_for(["cpu", "memory"])
        Traceback (most recent call last):
            ...
        fairalloc.errors.InvalidInstanceError: billing weights name 'gres/gpu', which the trace lacks; its resources: ['cpu', 'memory']
        """
        canon = [_canonical(r) for r in resource_names]
        if len(set(canon)) != len(canon):
            raise InvalidInstanceError(f"resource names {list(resource_names)} repeat a resource after aliasing "
                                       "(memory = mem, gpu = gres/gpu)", argument="resource_names",
                                       value=list(resource_names))
        for key in self.weights:
            if key not in canon:
                raise InvalidInstanceError(f"billing weights name {key!r}, which the trace lacks; its resources: "
                                           f"{list(resource_names)}", argument="weights", value=key)
        w = np.array([self.weights.get(c, 0.0) for c in canon], dtype=float)
        k = np.array([_kind(c) for c in canon], dtype=np.int64)
        return w, k

    def rates(self, amounts: Any, resource_names: Sequence[str], capacities: Any = None) -> np.ndarray:
        """Billing rate of each job (billing units per second of run time).

        Parameters
        ----------
        amounts : array_like, shape (n_jobs, m)
            Each job's resources (whole job: per-task demand times tasks, or a rigid job's processors).
        resource_names : sequence of str, length m
        capacities : array_like, shape (m,), optional
            Cluster totals; required by ``"dominant_share"``.

        Returns
        -------
        ndarray of float, shape (n_jobs,)

        Raises
        ------
        InvalidInstanceError
            Wrong shape, a negative or non-finite amount, a weight for a resource the trace lacks,
            ``dominant_share`` without positive capacities.

        Examples
        --------
        >>> Billing().rates([[4, 100.0], [2, 0.0]], ["cpu", "memory"]).tolist()      # CPUs only
        [4.0, 2.0]
        """
        x = np.asarray(amounts, dtype=float)
        if x.ndim != 2 or x.shape[1] != len(resource_names):
            raise InvalidInstanceError(f"amounts must have shape (n_jobs, {len(resource_names)}), got {x.shape}",
                                       argument="amounts", value=x.shape)
        bad = np.argwhere(~np.isfinite(x) | (x < 0))
        if len(bad):
            i, r = (int(v) for v in bad[0])
            raise InvalidInstanceError(f"amounts[{i}, {r}]={float(x[i, r])!r} must be finite and >= 0",
                                       argument="amounts", index=(i, r), value=float(x[i, r]))
        if self.rule == "dominant_share":
            if capacities is None:
                raise InvalidInstanceError("rule='dominant_share' needs the cluster's capacities",
                                           argument="capacities", value=None)
            cap = np.asarray(capacities, dtype=float)
            if cap.shape != (x.shape[1],) or np.any(~np.isfinite(cap)) or np.any(cap <= 0):
                raise InvalidInstanceError(f"capacities={cap.tolist()!r} must be {x.shape[1]} positive numbers",
                                           argument="capacities", value=cap.tolist())
            return np.asarray(shares.dominant_shares(x, cap), dtype=float)
        w, k = self.weights_for(resource_names)
        code = BILLING_RULES[self.rule]
        return np.array([tres_billing_row(row, w, k, code) for row in x], dtype=float)

    def __repr__(self) -> str:
        return f"Billing({self.weights!r}, rule={self.rule!r})"
