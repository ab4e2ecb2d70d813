"""TV-TSF: time-varying task share fairness (Li and Wang 2024), one entry point for every method.

``METHODS`` maps a method name to the function that implements it;
:func:`register_method` adds another one without touching this module.

References
----------
.. [1] Li Jie, Wang Jianzhou, "A fair multi-resource allocation mechanism for time-varying discrete
   jobs with placement constraints", Chinese Journal on Internet of Things, 2024.
"""

from __future__ import annotations

from typing import Any, Callable

from ..model import TimeVaryingInstance
from ..result import AllocationResult
from ._front_door import Method, dispatch

__all__ = ["tvtsf", "METHODS", "DEFAULT_METHOD", "register_method"]

#: method name -> implementation (on a TimeVaryingInstance); ``tasks`` int64 (N, M, T) starts for all.
METHODS: dict[str, Method] = {
    "milp": Method("milp", "fairalloc.exact.tvtsf:tvtsf_milp", tasks_dtype="int64",
                                          summary="Eq. 10 over the whole horizon (MILPs)"),
    "milp-online": Method("milp-online", "fairalloc.exact.tvtsf:tvtsf_online",
                                                 tasks_dtype="int64",
                                                 summary="slot by slot exact leximin, the past fixed"),
    "greedy": Method("greedy", "fairalloc.scheduling.tvtsf:tvtsf_greedy",
                                            tasks_dtype="int64", summary="Algorithms 1-5"),
}
#: Default method per instance type.
DEFAULT_METHOD = {TimeVaryingInstance: "milp"}


def register_method(name: str, func: Callable[..., AllocationResult], *,
                    keywords: tuple[str, ...] | None = None) -> None:
    """Make ``fa.tvtsf(tv, method=name, **kw)`` call ``func(tv, **kw)``.

    The front door checks the keywords against ``keywords`` before calling ``func`` and returns
    ``tasks`` as int64.

    Parameters
    ----------
    name : str
        The method's name in :data:`METHODS` (an existing name is replaced).
    func : callable
        ``func(tv, **kw) -> AllocationResult`` with ``tasks`` (N, M, T) integers.
    keywords : tuple of str, optional
        The keywords it accepts (default: read from ``func``'s signature).

    Examples
    --------
    A method that starts nothing (a baseline), registered, called and removed again; an unknown
    keyword is refused before the call:

    >>> import numpy as np
    >>> import fairalloc as fa
    >>> from fairalloc.mechanisms.tvtsf import METHODS
    >>> tv = fa.TimeVaryingInstance([[4, 4]], [[1, 2], [2, 1]], arrivals=[[2, 0, 1], [1, 1, 0]], durations=[1, 2])
    >>> def nothing(tv):
    ...     shape = (tv.n_agents, tv.n_servers, tv.n_slots)
    ...     return fa.AllocationResult(status="feasible", mechanism="tvtsf", method="nothing",
    ...                                tasks=np.zeros(shape, dtype=int))
    >>> register_method("nothing", nothing)
    >>> r = fa.tvtsf(tv, method="nothing")
    >>> r.method, r.tasks.dtype, r.tasks.shape
    ('nothing', dtype('int64'), (2, 1, 3))
    >>> fa.tvtsf(tv, method="nothing", server=0)
    Traceback (most recent call last):
        ...
    TypeError: tvtsf(method='nothing') on a TimeVaryingInstance got unexpected keyword argument 'server'; accepted keywords: none
    >>> del METHODS["nothing"]
    """
    METHODS[name] = Method(name, func, keywords=keywords, tasks_dtype="int64",
                                                  summary=f"registered {getattr(func, '__name__', func)!r}")


def tvtsf(instance: TimeVaryingInstance, /, *, method: str | None = None, **options: Any) -> AllocationResult:
    r"""TV-TSF allocation of time-varying indivisible tasks on servers with placement constraints.

    Parameters
    ----------
    instance : TimeVaryingInstance
    method : str
        A method of :data:`METHODS`: ``"milp"`` (default; Eq. 10 over the whole horizon, errata
        fixed; :func:`fairalloc.exact.tvtsf_milp`), ``"milp-online"`` (slot by slot with the past
        fixed; :func:`fairalloc.exact.tvtsf_online`), ``"greedy"`` (Algorithms 1-5,
        :func:`fairalloc.scheduling.tvtsf_greedy`; option ``server``), and whatever
        :func:`register_method` added. ``tasks`` is int64 (N, M, T) for every method.
    **options
        The keywords of that method, checked before any work: for the MILPs ``objective``
        ("leximin" or "maxmin"), ``solver``, ``time_limit``, ``mip_gap``, ``threads``, ``msg``,
        ``options``, ``symmetry``, ``decompose``, ...; for ``"greedy"`` only ``server``.

    Returns
    -------
    AllocationResult
        ``tasks`` (n_agents, n_servers, n_slots) tasks started; ``shares`` cumulative task shares
        after the last slot (Eq. 3); ``details["cumulative_shares"]`` (n_agents, n_slots),
        ``details["usage"]`` (n_servers, n_resources, n_slots).

    Raises
    ------
    TypeError
        ``instance`` not a TimeVaryingInstance, or a keyword the method does not accept (e.g.
        ``solver=`` with ``method="greedy"``; the message names the keyword, the method and the
        accepted keywords).
    InvalidInstanceError
        Unknown ``method`` (the message lists the known ones), or ``options`` the backend rejects.

    Examples
    --------
    One server of 2 cores; user 0 submits 2 one-core tasks in slot 0, user 1 one in slot 0 and one
    in slot 1; tasks last 1 slot. h = 2 for both (2 tasks fit alone), so after 2 slots the shares are
    (tasks started) / 4. Everything fits in the two slots, so both end at 2/4; the offline program
    may start user 0's two tasks in either slot, while the online one (which only sees slot 0 when
    deciding it) splits slot 0 one-one:

    >>> import fairalloc as fa
    >>> tv = fa.TimeVaryingInstance([[2]], [[1], [1]], arrivals=[[2, 0], [1, 1]], durations=[1, 1])
    >>> r = fa.tvtsf(tv, method="milp", objective="leximin", solver="highs")
    >>> r.status.value, r.shares.tolist(), r.tasks.sum(axis=(1, 2)).tolist()
    ('optimal', [0.5, 0.5], [2, 2])
    >>> fa.tvtsf(tv, method="milp-online", solver="highs").tasks[:, 0, :].tolist()
    [[1, 1], [1, 1]]
    """
    table = {(TimeVaryingInstance, name): m for name, m in METHODS.items()}
    return dispatch("tvtsf", instance, method, options, table, DEFAULT_METHOD)
