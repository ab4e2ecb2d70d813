"""TV-TSF: time-varying task share fairness (Li and Wang 2024), one entry point for every method.

``METHODS`` maps a method name to the function that implements it; another module adds its own
(``METHODS["greedy"] = ...`` for the Algorithms 1-5 scheduler) without touching this one.

References
----------
.. [1] Li Jie, Wang Jianzhou, "A fair multi-resource allocation mechanism for time-varying discrete
   jobs with placement constraints", Chinese Journal on Internet of Things, 2024.
"""

from __future__ import annotations

from typing import Any, Callable

from .._validation import require_choice
from ..model import TimeVaryingInstance
from ..result import AllocationResult

__all__ = ["tvtsf", "METHODS", "register_method"]


def _milp(tv: TimeVaryingInstance, /, **kw: Any) -> AllocationResult:
    from ..exact.tvtsf import tvtsf_milp

    return tvtsf_milp(tv, **kw)


def _milp_online(tv: TimeVaryingInstance, /, **kw: Any) -> AllocationResult:
    from ..exact.tvtsf import tvtsf_online

    return tvtsf_online(tv, **kw)


def _greedy(tv: TimeVaryingInstance, /, **kw: Any) -> AllocationResult:
    from ..scheduling.tvtsf import tvtsf_greedy

    return tvtsf_greedy(tv, **kw)


#: method name -> implementation ``f(tv, /, **options) -> AllocationResult``.
METHODS: dict[str, Callable[..., AllocationResult]] = {"milp": _milp, "milp-online": _milp_online,
                                                       "greedy": _greedy}


def register_method(name: str, func: Callable[..., AllocationResult]) -> None:
    """Make ``fa.tvtsf(tv, method=name)`` call ``func(tv, **options)`` (e.g. a greedy scheduler)."""
    METHODS[name] = func


def tvtsf(instance: TimeVaryingInstance, /, *, method: str = "milp", **options: Any) -> AllocationResult:
    r"""TV-TSF allocation of time-varying indivisible tasks on servers with placement constraints.

    Parameters
    ----------
    instance : TimeVaryingInstance
    method : str
        A key of :data:`METHODS`: ``"milp"`` (Eq. 10 over the whole horizon, errata fixed;
        :func:`fairalloc.exact.tvtsf_milp`), ``"milp-online"`` (slot by slot with the past fixed;
        :func:`fairalloc.exact.tvtsf_online`), ``"greedy"`` (Algorithms 1-5,
        :func:`fairalloc.scheduling.tvtsf_greedy`; options ``server``), and whatever other modules
        registered.
    **options
        Passed to the method: for the MILPs ``objective`` ("leximin" or "maxmin"), ``solver``,
        ``time_limit``, ``mip_gap``, ``threads``, ``msg``, ``options``, ``symmetry``, ``decompose``.

    Returns
    -------
    AllocationResult
        ``tasks`` (n_agents, n_servers, n_slots) tasks started; ``shares`` cumulative task shares
        after the last slot (Eq. 3); ``details["cumulative_shares"]`` (n_agents, n_slots),
        ``details["usage"]`` (n_servers, n_resources, n_slots).

    Raises
    ------
    InvalidInstanceError
        Unknown ``method`` (the message lists the known ones).

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
    if not isinstance(instance, TimeVaryingInstance):
        raise TypeError(f"instance must be a fairalloc.TimeVaryingInstance, got {type(instance).__name__}")
    key = require_choice("method", method, tuple(METHODS))
    return METHODS[key](instance, **options)
