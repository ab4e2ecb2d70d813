"""Units of a workload's resource columns and of the capacity it runs on: declared, checked, converted.

A task workload's ``resources`` columns carry numbers in some unit: cores, GB, or a trace's own
normalisation (Google 2011 divides every request by the largest machine's capacity; Alibaba 2017
normalises memory the same way, Alibaba 2018 to 0-100). A :class:`~fairalloc.workloads.Workload`
says which in ``resource_units`` (one entry per column, ``None`` = not declared), and so may a
:class:`~fairalloc.Cluster` (``Cluster(..., resource_units=("cores", "GB"))``; the TV-TSF Table 3
cluster of :func:`fairalloc.clusters.tvtsf_table3` declares cores and GB).

:func:`check_units` is called by :func:`fairalloc.simulate` before a run: where both sides declare
a unit for the same resource (by position, as the simulator pairs them) and the units differ, it
refuses, naming the resource and both units and saying how to convert. A side that declares nothing
is not checked (a plain array or a pool sized from the workload itself,
:meth:`fairalloc.sim.ResourcePool.from_workload`, is in the workload's units by construction).
:meth:`Workload.convert_units <fairalloc.workloads.Workload.convert_units>` converts a column:

>>> import fairalloc as fa
>>> wl = fa.workloads.Workload(submit=[0], run_time=[10], resources=[[2.0, 0.01]],
...                            resource_names=("cpu", "memory"), resource_units=("cores", "normalised"))
>>> check_units(wl, fa.clusters.tvtsf_table3())
Traceback (most recent call last):
    ...
fairalloc.errors.InvalidInstanceError: resource 'memory' of the workload is in normalised units but the capacity's 'mem' is in GB: convert the workload first, e.g. workload.convert_units({'memory': (F, 'GB')}) with F GB per normalised unit (fairalloc simulate: add memory=FGB to --workload), or give a capacity in normalised units
>>> gb = wl.convert_units({"memory": (384.0, "GB")})          # 1 normalised unit = 384 GB (an assumption)
>>> gb.resources.tolist(), gb.resource_units
([[2.0, 3.84]], ('cores', 'GB'))
>>> check_units(gb, fa.clusters.tvtsf_table3())             # passes: returns None
"""

from __future__ import annotations

import math
import re
from typing import Any

from ..errors import InvalidInstanceError

__all__ = ["check_units", "capacity_units", "parse_conversion"]

#: Units the readers and generators declare (others are accepted as written).
KNOWN_UNITS = ("cores", "GB", "normalised", "percent")


def capacity_units(capacity: Any) -> tuple[str | None, ...] | None:
    """The units a capacity declares: a Cluster's ``resource_units``, a cluster state's cluster's, else None."""
    for obj in (capacity, getattr(capacity, "cluster", None)):
        units = getattr(obj, "resource_units", None)
        if units is not None:
            return tuple(units)
    return None


def _same(a: str, b: str) -> bool:
    return a.strip().lower() == b.strip().lower()


def check_units(workload: Any, capacity: Any) -> None:
    """Refuse a workload whose declared resource units differ from the capacity's (module docstring).

    Parameters
    ----------
    workload : Workload
    capacity : Cluster, cluster state, array_like or int
        What :func:`fairalloc.simulate` accepts; only a Cluster (or a state built on one) declares units.

    Raises
    ------
    InvalidInstanceError
        For the first resource both declare, in different units (``argument="capacity"``).
    """
    wl_units = getattr(workload, "resource_units", None)
    cap_units = capacity_units(capacity)
    if not wl_units or not cap_units:
        return
    cap_names = getattr(capacity, "resource_names", None) or getattr(getattr(capacity, "cluster", None),
                                                                     "resource_names", None) or ()
    for j, (wu, cu) in enumerate(zip(wl_units, cap_units)):
        if wu is None or cu is None or _same(wu, cu):
            continue
        name = workload.resource_names[j] if j < len(workload.resource_names) else f"r{j}"
        cname = cap_names[j] if j < len(cap_names) else name
        raise InvalidInstanceError(
            f"resource {name!r} of the workload is in {wu} units but the capacity's {cname!r} is in {cu}: "
            f"convert the workload first, e.g. workload.convert_units({{{name!r}: (F, {cu!r})}}) with F {cu} "
            f"per {wu} unit (fairalloc simulate: add {name}=F{cu} to --workload), or give a capacity in "
            f"{wu} units", argument="capacity", index=(j,), value={name: wu, cname: cu})


_CONVERSION = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-z%][A-Za-z0-9_%]*)\s*$")


def parse_conversion(text: str, argument: str = "conversion") -> tuple[float, str]:
    """``"384GB"`` -> ``(384.0, "GB")``: the factor (new units per old unit) and the new unit.

    Examples
    --------
    >>> parse_conversion("384GB"), parse_conversion("0.01 cores")
    ((384.0, 'GB'), (0.01, 'cores'))
    >>> parse_conversion("GB")
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: conversion='GB' must be a positive factor followed by a unit, e.g. 384GB (one unit of the column is 384 GB)
    """
    m = _CONVERSION.match(str(text))
    factor = float(m.group(1)) if m else 0.0
    if not m or not (factor > 0 and math.isfinite(factor)):
        raise InvalidInstanceError(f"{argument}={text!r} must be a positive factor followed by a unit, e.g. 384GB "
                                   "(one unit of the column is 384 GB)", argument=argument, value=text)
    return factor, m.group(2)
