"""Check your own mechanism: run the axiom campaign on a callable that is not a row of the claims table.

``fairalloc check --mechanism package.module:function --domain pooled|tasks|time-varying [--axiom A]``
and, from Python, :func:`check_mechanism` import (or take) a callable with the signature of its
domain, run every applicable axiom of the domain (:data:`DOMAIN_AXIOMS`) with the default budgets,
and report verdicts and replayable witnesses in the same report as the built-in rows, with the
expected verdict left blank.

Signatures (the instance is the one positional argument; it returns an
:class:`~fairalloc.AllocationResult` or, for convenience, the bare array):

=================  =====================================================  ============================================
domain             called as                                              returns
=================  =====================================================  ============================================
``pooled``         ``fn(instance: fairalloc.Instance)``                   ``allocation`` (n_users, n_resources), capacity units
``tasks``          ``fn(instance: fairalloc.TaskInstance)``               ``tasks`` (n_users, n_servers), tasks per server
``time-varying``   ``fn(instance: fairalloc.TimeVaryingInstance)``        ``tasks`` (n_users, n_servers, n_slots), starts
=================  =====================================================  ============================================

The guide ``docs/guides/check-your-mechanism.md`` walks through an example.

**A call that does not return.** Each call of your function gets ``call_seconds``
(``fairalloc check --call-seconds``, default 30 s from the command line): a call still running then
is stopped and the cell ends with status ``"timeout"``, naming the instance it was called on
(:mod:`proofs_check.call_limit`).
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

import fairalloc as fa
from fairalloc.errors import InvalidInstanceError

from .call_limit import MechanismTimeout, call_limit
from .claims import AXIOMS, USER_MECHANISMS, Claim, Domain, MechanismInfo

__all__ = ["DOMAINS", "DOMAIN_AXIOMS", "UserMechanism", "load_callable", "user_mechanism", "user_claims",
           "check_mechanism"]

#: The instances each domain draws (the same as the table's rows of that setting).
DOMAINS: dict[str, Domain] = {
    "pooled": Domain(n_resources=(1, 3), zero_demands=False, caps=True),
    "tasks": Domain(setting="servers", n_agents=(2, 3), n_resources=(1, 2), n_servers=(1, 2), placement=True),
    "time-varying": Domain(setting="time-varying", n_agents=(2, 3), n_resources=(1, 2), n_servers=(1, 2),
                           placement=True, n_slots=(1, 3), max_arrivals=4, max_duration=3),
}

#: The (axiom, variant) cells run for each domain (those of the built-in rows of the same setting).
DOMAIN_AXIOMS: dict[str, tuple[tuple[str, str], ...]] = {
    "pooled": (("sp-stage", "stage"), ("sp-repeated", "repeated"), ("po", "strong"), ("si", "plain"),
               ("ef", "plain"), ("bottleneck", "bottleneck"), ("bottleneck", "non-wasteful"), ("pm", "plain"),
               ("rm", "plain")),
    "tasks": (("sp-stage", "stage"), ("po", "strong"), ("si", "plain"), ("ef", "plain"), ("ef1", "remove"),
              ("ef1", "gain"), ("bottleneck", "bottleneck"), ("bottleneck", "non-wasteful"), ("pm", "plain"),
              ("rm", "plain")),
    "time-varying": (("sp-stage", "stage"), ("po", "per-slot"), ("po", "cumulative"), ("si", "per-slot"),
                     ("si", "cumulative"), ("ef", "cumulative"), ("ef1", "per-slot-remove"),
                     ("ef1", "per-slot-gain"), ("ef1", "cumulative-remove"), ("ef1", "cumulative-gain"),
                     ("bottleneck", "per-slot"), ("bottleneck", "cumulative"), ("pm", "plain"), ("rm", "plain")),
}

_INSTANCE = {"pooled": fa.Instance, "tasks": fa.TaskInstance, "time-varying": fa.TimeVaryingInstance}
_WHAT = {"pooled": ("allocation", "(n_users, n_resources)"), "tasks": ("tasks", "(n_users, n_servers)"),
         "time-varying": ("tasks", "(n_users, n_servers, n_slots)")}


def _expected(domain: str, name: str) -> str:
    attr, shape = _WHAT[domain]
    return (f"{name}(instance: fairalloc.{_INSTANCE[domain].__name__}) returning a fairalloc.AllocationResult "
            f"with .{attr} of shape {shape} (or that array itself)")


def load_callable(target: str) -> Callable:
    """Import ``"package.module:function"`` (a dotted attribute path after the colon is allowed).

    Parameters
    ----------
    target : str
        ``"package.module:function"`` or ``"package.module:Class.method"``.

    Returns
    -------
    callable

    Raises
    ------
    fairalloc.InvalidInstanceError
        No colon, a module that does not import, a missing attribute, or an object that is not
        callable (``argument="mechanism"``).

    Examples
    --------
    >>> load_callable("fairalloc:drf").__name__
    'drf'
    >>> load_callable("fairalloc.drf")    # doctest: +ELLIPSIS
    Traceback (most recent call last):
    fairalloc.errors.InvalidInstanceError: --mechanism 'fairalloc.drf': expected package.module:function ...
    """
    module, sep, attr = str(target).partition(":")
    if not sep or not module or not attr:
        raise InvalidInstanceError(f"--mechanism {target!r}: expected package.module:function (or a row of the "
                                   "claims table, see fairalloc check --list)", argument="mechanism", value=target)
    try:
        obj: Any = importlib.import_module(module)
    except ImportError as exc:
        raise InvalidInstanceError(f"--mechanism {target!r}: cannot import module {module!r}: {exc}",
                                   argument="mechanism", value=target) from None
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise InvalidInstanceError(f"--mechanism {target!r}: module {module!r} has no attribute {attr!r}",
                                       argument="mechanism", value=target) from None
    if not callable(obj):
        raise InvalidInstanceError(f"--mechanism {target!r}: {attr} is a {type(obj).__name__}, not a callable",
                                   argument="mechanism", value=target)
    return obj


@dataclass(frozen=True)
class _Adapter:
    """Calls the user's function and checks what it returns (an AllocationResult or the bare array)."""

    fn: Callable
    name: str
    domain: str
    call_seconds: float | None = None
    hard_stop: bool = False

    @property
    def __name__(self) -> str:  # used in witnesses and messages
        return self.name

    def __call__(self, instance, **kw: Any) -> fa.AllocationResult:
        with call_limit(self.call_seconds, self.name, instance, self.hard_stop):
            out = self.fn(instance, **kw)
        return self.result(instance, out)

    def result(self, instance, out: Any) -> fa.AllocationResult:
        attr, shape_text = _WHAT[self.domain]
        if instance is None:
            return out
        n = instance.n_agents
        if self.domain == "pooled":
            want = (n, instance.n_resources)
        elif self.domain == "tasks":
            want = (n, instance.n_servers)
        else:
            want = (n, instance.n_servers, instance.n_slots)
        if isinstance(out, fa.AllocationResult):
            if not out.success:
                return out                                  # a failure is a status; checks report it undecided
            arr = getattr(out, attr)
            if arr is None:
                raise InvalidInstanceError(f"{self.name} returned an AllocationResult without .{attr}; expected "
                                           + _expected(self.domain, self.name), argument="mechanism", value=self.name)
        else:
            try:
                arr = np.asarray(out, dtype=float)
            except (TypeError, ValueError):
                raise InvalidInstanceError(f"{self.name} returned a {type(out).__name__}; expected "
                                           + _expected(self.domain, self.name), argument="mechanism",
                                           value=self.name) from None
        if np.shape(arr) != want:
            raise InvalidInstanceError(f"{self.name} returned .{attr} of shape {np.shape(arr)} for {n} users; expected "
                                       f"{want} {shape_text}", argument="mechanism", value=self.name)
        if isinstance(out, fa.AllocationResult):
            return out
        arr = np.array(arr)
        if attr == "allocation":
            return fa.AllocationResult(fa.Status.FEASIBLE, self.name, "user", allocation=arr)
        return fa.AllocationResult(fa.Status.FEASIBLE, self.name, "user", tasks=arr)


class UserMechanism(MechanismInfo):
    """A row of the claims table for a user's callable (see :func:`user_mechanism`).

    A :class:`~proofs_check.claims.MechanismInfo` whose callable is an adapter that checks what the
    user's function returns; it is kept in :data:`proofs_check.claims.USER_MECHANISMS`, never in the
    table's :data:`~proofs_check.claims.MECHANISMS`.

    Parameters
    ----------
    key, label, target, domain, source, kwargs, dynamics, atol, phase, reason, divisible, derived
        As :class:`~proofs_check.claims.MechanismInfo`; :func:`user_mechanism` fills them (the
        adapter is ``kwargs["adapter"]``).

    Examples
    --------
    >>> import fairalloc as fa
    >>> info = user_mechanism(fa.drf, "pooled")
    >>> type(info).__name__, info.key, info.domain.setting, info.dynamics
    ('UserMechanism', 'fairalloc.mechanisms.drf:drf', 'pooled', 'stateless')
    """

    def resolve(self) -> Callable | None:
        return self.kwargs["adapter"]


def _example(domain: str):
    """A small instance of the domain (the DRF paper's two users) for a first call before the campaign."""
    if domain == "pooled":
        return fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[3, 3], capacities=[9, 18])
    if domain == "tasks":
        return fa.TaskInstance([[9, 18]], [[1, 4], [3, 1]], tasks=[3, 3])
    return fa.TimeVaryingInstance([[4, 4]], [[2, 1], [1, 2]], arrivals=[[1, 1], [1, 0]], durations=[1, 2])


def user_mechanism(target: str | Callable, domain: str, *, call_seconds: float | None = None,
                   hard_stop: bool = False) -> UserMechanism:
    """Register a callable (or ``"package.module:function"``) as a row of the claims table and return it.

    The signature is checked (one positional argument, the instance), then the callable is called
    once on a small instance of the domain and its return checked, so that a wrong signature or
    return shape is reported before any search starts.

    Parameters
    ----------
    target : callable or str
        ``f(instance) -> AllocationResult`` (or the bare allocation / task array), or its import path
        ``"package.module:function"``.
    domain : {"pooled", "tasks", "time-varying"}
        The instances it takes (:data:`DOMAINS`): :class:`fairalloc.Instance`,
        :class:`fairalloc.TaskInstance` or :class:`fairalloc.TimeVaryingInstance`.
    call_seconds : float, optional
        Time limit of each call (module docstring); a call past it raises
        :class:`~proofs_check.call_limit.MechanismTimeout`.
    hard_stop : bool, default False
        End the process when a call cannot be interrupted (the command line sets it).

    Returns
    -------
    UserMechanism
        Registered in :data:`proofs_check.claims.USER_MECHANISMS` under its key
        (``"module:qualname"`` for a callable, the path for a string).

    Raises
    ------
    InvalidInstanceError
        Unknown domain, a target that does not import, a wrong signature or return shape.
    MechanismTimeout
        The first call, on a small example, did not return within ``call_seconds``.

    Examples
    --------
    >>> from proofs_check.claims import USER_MECHANISMS
    >>> info = user_mechanism("fairalloc:drf", "pooled")
    >>> info.key, USER_MECHANISMS[info.key] is info
    ('fairalloc:drf', True)
    >>> user_mechanism(lambda a, b: None, "pooled")    # doctest: +ELLIPSIS
    Traceback (most recent call last):
    fairalloc.errors.InvalidInstanceError: ... has signature (a, b); expected ...
    """
    if domain not in DOMAINS:
        raise InvalidInstanceError(f"--domain {domain!r}: expected one of {', '.join(DOMAINS)}", argument="domain",
                                   value=domain)
    if isinstance(target, str):
        fn, key = load_callable(target), target
    elif callable(target):
        fn = target
        key = f"{getattr(target, '__module__', None) or 'user'}:{getattr(target, '__qualname__', repr(target))}"
    else:
        raise InvalidInstanceError(f"mechanism must be a callable or 'package.module:function', got "
                                   f"{type(target).__name__}", argument="mechanism", value=target)
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        sig = None
    if sig is not None:
        try:
            sig.bind(object())
        except TypeError:
            raise InvalidInstanceError(f"{key} has signature {sig}; expected " + _expected(domain, key),
                                       argument="mechanism", value=key) from None
    if call_seconds is not None and not (isinstance(call_seconds, (int, float)) and call_seconds > 0):
        raise InvalidInstanceError(f"call_seconds={call_seconds!r} must be a number of seconds > 0",
                                   argument="call_seconds", value=call_seconds)
    adapter = _Adapter(fn, key, domain, None if call_seconds is None else float(call_seconds), hard_stop)
    probe = _example(domain)
    try:
        with call_limit(adapter.call_seconds, key, probe, hard_stop):
            out = fn(probe)
    except MechanismTimeout:
        raise
    except Exception as exc:  # noqa: BLE001 - the user's code: report it as such
        raise InvalidInstanceError(f"{key} failed on a {len(probe.agent_names)}-user example "
                                   f"{type(probe).__name__}: {type(exc).__name__}: {exc}; expected "
                                   + _expected(domain, key), argument="mechanism", value=key) from None
    adapter.result(probe, out)
    info = UserMechanism(key, f"{key} [{domain}]", key, DOMAINS[domain], "your mechanism",
                         kwargs={"adapter": adapter}, dynamics="stateless", phase="user")
    USER_MECHANISMS[key] = info
    return info


def user_claims(info: MechanismInfo, axiom: str | None = None, variant: str | None = None) -> list[Claim]:
    """The cells run for a user's mechanism: :data:`DOMAIN_AXIOMS` of its domain, expected left blank.

    Parameters
    ----------
    info : MechanismInfo
        A registered mechanism (:func:`user_mechanism`).
    axiom : str, optional
        Only this axiom's cells (a key of :data:`proofs_check.claims.AXIOMS`).
    variant : str, optional
        Only this variant's cells.

    Returns
    -------
    list of Claim
        ``expected=""``: a user's mechanism has no expected verdict; campaigns report what they find.

    Raises
    ------
    InvalidInstanceError
        An unknown axiom, or a filter that leaves no cell (the message lists the domain's cells).

    Examples
    --------
    >>> import fairalloc as fa
    >>> info = user_mechanism(fa.drf, "pooled")
    >>> [(c.axiom, c.variant, c.expected) for c in user_claims(info, "bottleneck")]
    [('bottleneck', 'bottleneck', ''), ('bottleneck', 'non-wasteful', '')]
    """
    domain = {"pooled": "pooled", "servers": "tasks", "time-varying": "time-varying"}[info.domain.setting]
    if axiom is not None and axiom not in AXIOMS:
        raise InvalidInstanceError(f"--axiom {axiom!r}: expected one of {', '.join(AXIOMS)}", argument="axiom",
                                   value=axiom)
    cells = [(a, v) for a, v in DOMAIN_AXIOMS[domain] if axiom in (None, a) and variant in (None, v)]
    if not cells:
        have = ", ".join(f"{a}/{v}" for a, v in DOMAIN_AXIOMS[domain])
        raise InvalidInstanceError(f"no cell {axiom or '*'}/{variant or '*'} for the {domain} domain; cells: {have}",
                                   argument="axiom", value=axiom)
    return [Claim(info.key, a, v, "", "", "your mechanism") for a, v in cells]


def check_mechanism(target: str | Callable, *, domain: str, axiom: str | None = None, variant: str | None = None,
                    examples: int = 200, seconds: float = 60.0, seed: int = 0, budget: int | None = None,
                    shrink: bool = True, progress: bool = False, call_seconds: float | None = None) -> list:
    """Run the axiom campaign on your own mechanism; returns one
    :class:`~proofs_check.campaign.CellReport` per cell (status ``"violation found"`` with a
    replayable witness, ``"none found"``, or ``"timeout"`` when a call did not return within
    ``call_seconds``).

    Parameters
    ----------
    target : callable or str
        As :func:`user_mechanism`.
    domain : {"pooled", "tasks", "time-varying"}
        As :func:`user_mechanism`.
    axiom, variant : str, optional
        Restrict the cells (:func:`user_claims`).
    examples : int, default 200
        Cases drawn per cell.
    seconds : float, default 60.0
        Safety cap per cell (the case count bounds the work).
    seed : int, default 0
        Seed of the draws and searches: the same seed gives the same reports.
    budget : int, optional
        Lies or deviations per user in the strategy-proofness cells.
    shrink : bool, default True
        Shrink a violation found to a small witness.
    progress : bool, default False
        Show a progress bar.
    call_seconds : float, optional
        Time limit of each call of the mechanism (module docstring).

    Returns
    -------
    list of CellReport
        One per cell, in :data:`DOMAIN_AXIOMS` order.

    Raises
    ------
    InvalidInstanceError
        As :func:`user_mechanism` and :func:`user_claims`.

    Examples
    --------
    >>> import fairalloc as fa
    >>> reps = check_mechanism(fa.drf, domain="pooled", axiom="si", examples=5)
    >>> [(r.claim.axiom, r.status) for r in reps]
    [('si', 'none found')]
    """
    from .campaign import run_cell

    info = user_mechanism(target, domain, call_seconds=call_seconds)
    return [run_cell(c, examples=examples, seconds=seconds, seed=seed, do_shrink=shrink, budget=budget,
                     progress=progress) for c in user_claims(info, axiom, variant)]

