"""Built-in example instances (used by ``fairalloc solve --example NAME`` and the docs).

Each example is a function returning an :class:`~fairalloc.io.InstanceSpec` (instance plus
commitments), with its source in the docstring.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .io import InstanceSpec
from .model import Instance

__all__ = ["EXAMPLES", "get_example", "drf_paper", "sdrf_fig2", "sdrf_two_resources"]


def drf_paper() -> InstanceSpec:
    """The DRF paper's example (Ghodsi et al., NSDI 2011, Section 4) as a pooled instance.

    9 CPUs and 18 GB; tasks A = <1 CPU, 4 GB>, B = <3 CPU, 1 GB>, each user with more tasks than fit
    (100 each). DRF gives A 3 tasks and B 2 (dominant shares 2/3 each).

    Returns
    -------
    InstanceSpec
        No commitments; source ``"builtin:drf-paper"``.

    Examples
    --------
    The paper's result: A gets <3 CPU, 12 GB> and B <6 CPU, 2 GB>:

    >>> import fairalloc as fa
    >>> fa.drf(drf_paper().instance).allocation.round(9).tolist()
    [[3.0, 12.0], [6.0, 2.0]]
    """
    inst = Instance.from_tasks([[1, 4], [3, 1]], tasks=[100, 100], capacities=[9, 18],
                               agent_names=["A", "B"], resource_names=["cpu", "mem_gb"])
    return InstanceSpec(inst, None, "builtin:drf-paper")


def sdrf_fig2() -> InstanceSpec:
    """SDRF Fig. 1/2 style (Sadok et al., SBRC 2018, Section 4.3): one resource, four users, commitments.

    12 CPUs; demands A 5, B 2, C 1.5, D 6; under max-min and stateful max-min; commitments form the
    tanks' bases. Numbers are ours (the paper's figure gives no values).

    Returns
    -------
    InstanceSpec
        Commitments (0.1, 0, 0.05, 0.25) of the 12 CPUs, i.e. (1.2, 0, 0.6, 3) CPUs; source
        ``"builtin:sdrf-fig2"``.

    Examples
    --------
    Worked by hand: max-min satisfies B and C and splits the remaining 8.5 CPUs, so
    (4.25, 2, 1.5, 4.25); stateful max-min raises the level (commitment + allocation) to 6.5: A is capped
    by its demand 5, D gets 6.5 - 3 = 3.5, so (5, 2, 1.5, 3.5), using 5 + 2 + 1.5 + 3.5 = 12.

    >>> import fairalloc as fa
    >>> spec = sdrf_fig2()
    >>> fa.max_min(spec.instance).allocation.ravel().round(9).tolist()
    [4.25, 2.0, 1.5, 4.25]
    >>> fa.sdrf(spec.instance, commitments=spec.commitments).allocation.ravel().round(9).tolist()
    [5.0, 2.0, 1.5, 3.5]
    """
    inst = Instance([5.0, 2.0, 1.5, 6.0], capacities=12.0, agent_names=["A", "B", "C", "D"],
                    resource_names=["cpu"])
    c = np.array([[0.1], [0.0], [0.05], [0.25]])            # fractions of the 12 CPUs
    return InstanceSpec(inst, c, "builtin:sdrf-fig2")


def sdrf_two_resources() -> InstanceSpec:
    """Two resources with commitments: SDRF departs from DRF when a heavy past user competes.

    Capacities 10 CPUs and 40 GB; A = <6, 8> (CPU-heavy, has used a lot: commitment 0.2 of CPU),
    B = <2, 24> (memory-heavy), C = <5, 5> (new). Numbers are ours, for illustration.

    Returns
    -------
    InstanceSpec
        Commitments ((0.2, 0.05), (0, 0.1), (0, 0)); source ``"builtin:sdrf-two-resources"``.

    Examples
    --------
    The dominant commitments are the row maxima 0.2, 0.1 and 0:

    >>> from fairalloc.shares import dominant_commitment
    >>> spec = sdrf_two_resources()
    >>> spec.instance.agent_names, dominant_commitment(spec.commitments).tolist()
    (('A', 'B', 'C'), [0.2, 0.1, 0.0])
    """
    inst = Instance([[6.0, 8.0], [2.0, 24.0], [5.0, 5.0]], capacities=[10.0, 40.0],
                    agent_names=["A", "B", "C"], resource_names=["cpu", "mem_gb"])
    c = np.array([[0.2, 0.05], [0.0, 0.1], [0.0, 0.0]])
    return InstanceSpec(inst, c, "builtin:sdrf-two-resources")


#: Name -> builder of every built-in example.
EXAMPLES: dict[str, Callable[[], InstanceSpec]] = {
    "sdrf-fig2": sdrf_fig2,
    "drf-paper": drf_paper,
    "sdrf-two-resources": sdrf_two_resources,
}


def get_example(name: str) -> InstanceSpec:
    """The built-in example called ``name`` (see :data:`EXAMPLES`).

    Parameters
    ----------
    name : str
        One of the keys of :data:`EXAMPLES` (``"drf-paper"``, ``"sdrf-fig2"``,
        ``"sdrf-two-resources"``), case-insensitive.

    Returns
    -------
    InstanceSpec
        A new spec each call.

    Raises
    ------
    InvalidInstanceError
        An unknown name; the message lists the built-in ones.

    Examples
    --------
    >>> get_example("DRF-paper").source
    'builtin:drf-paper'
    >>> get_example("nosuch")
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: unknown example 'nosuch'; built-in examples: sdrf-fig2, drf-paper, sdrf-two-resources
    """
    from .errors import InvalidInstanceError

    try:
        return EXAMPLES[name.lower()]()
    except KeyError:
        raise InvalidInstanceError(f"unknown example {name!r}; built-in examples: {', '.join(EXAMPLES)}",
                                   argument="example", value=name) from None
