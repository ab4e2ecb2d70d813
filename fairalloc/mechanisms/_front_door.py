"""The one front door of each mechanism: dispatch on the instance type and ``method=``.

``fa.drf``, ``fa.sdrf``, ``fa.tsf``, ``fa.cdrf`` and ``fa.tvtsf`` each look up a :class:`Method` by
(instance type, method name) in their table, check the keywords against the ones that method
accepts, call the implementation and return its :class:`~fairalloc.result.AllocationResult` with
``tasks`` in the method's documented dtype. The implementations (``fairalloc.exact.tasks_leximin``,
``fairalloc.scheduling.drf_greedy``, ...) stay importable, but the front door is what users call.

Keyword errors are ``TypeError`` naming the keyword, the mechanism, the method and the accepted
keywords (Python's own convention for an unexpected keyword argument), raised before any work; a
solver option of the wrong type or range (``time_limit="10"``) is an
:class:`~fairalloc.errors.InvalidInstanceError` naming it and its value
(:func:`fairalloc.validation.check_solver_options`), also before any work; an
option a backend rejects (``options={...}`` passed to cvxpy/HiGHS untouched) becomes an
:class:`~fairalloc.errors.InvalidInstanceError` naming ``options`` and the method, chained to the
backend's error.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from ..validation import check_solver_options, require_choice
from ..errors import FairallocError, InvalidInstanceError
from ..result import AllocationResult

__all__ = ["Method", "dispatch", "options_named"]


@dataclass(frozen=True)
class Method:
    """One way to compute a mechanism on one instance type.

    Attributes
    ----------
    name : str
        The ``method=`` value.
    target : str or callable
        ``"module:function"`` (imported on first use, so heavy backends load only when called) or the
        function itself; called as ``target(instance, **fixed, **keywords)``.
    fixed : mapping
        Keywords the front door sets itself (e.g. ``mechanism="drf"`` for ``tasks_leximin``); a
        user may not pass them.
    keywords : tuple of str or None
        The keywords a user may pass. None: every keyword-only parameter of ``target`` except
        ``fixed`` (read from its signature, so it follows the implementation).
    tasks_dtype : str or None
        dtype of ``result.tasks`` (None: the method returns no ``tasks``).
    summary : str
        One line for error messages and docs.
    """

    name: str
    target: str | Callable[..., AllocationResult]
    fixed: Mapping[str, Any] = field(default_factory=dict)
    keywords: tuple[str, ...] | None = None
    tasks_dtype: str | None = None
    summary: str = ""

    def function(self) -> Callable[..., AllocationResult]:
        if callable(self.target):
            return self.target
        module, _, attr = self.target.partition(":")
        return getattr(importlib.import_module(module), attr)

    def accepted(self) -> tuple[str, ...] | None:
        """Keywords a user may pass (None: any, the target takes ``**kwargs``)."""
        if self.keywords is not None:
            return self.keywords
        params = list(inspect.signature(self.function()).parameters.values())
        if any(p.kind is p.VAR_KEYWORD for p in params):
            return None
        if params and params[0].kind is not params[0].KEYWORD_ONLY:
            params = params[1:]                      # the instance
        return tuple(p.name for p in params
                     if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name not in self.fixed)


@contextlib.contextmanager
def options_named(where: str, options: Mapping[str, Any] | None):
    """Turn a backend's bare ``ValueError`` or ``TypeError`` about ``options`` (passed to it untouched) into an
    :class:`InvalidInstanceError` naming ``options``, the mechanism and the method, chained to the
    backend's error. Without options (or for fairalloc's own errors) nothing changes."""
    try:
        yield
    except (ValueError, TypeError) as exc:       # HiGHS: ValueError; Clarabel: TypeError
        if not options or isinstance(exc, FairallocError):
            raise
        raise InvalidInstanceError(f"{where}: the backend rejected options={dict(options)!r}: {exc}",
                                   argument="options", value=dict(options)) from exc


def _a(name: str) -> str:
    return ("an " if name[:1] in "AEIOU" else "a ") + name


#: (instance type, method name) -> Method, per mechanism.
Table = dict[tuple[type, str], Method]


def dispatch(mechanism: str, instance: Any, method: str | None, kwargs: Mapping[str, Any],
             table: Table, defaults: Mapping[type, str]) -> AllocationResult:
    """Check ``instance`` and the keywords, call the method, return its result (see module docstring)."""
    cls = next((c for c in defaults if isinstance(instance, c)), None)
    if cls is None:
        kinds = " or ".join(f"fairalloc.{c.__name__}" for c in defaults)
        raise TypeError(f"{mechanism}: instance must be a {kinds}, got {type(instance).__name__}")
    if method is None:
        method = defaults[cls]
    known = [name for (c, name) in table if c is cls]
    try:
        method = require_choice("method", method, known)
    except InvalidInstanceError as exc:
        others = sorted({c.__name__ for (c, name) in table if name == method and c is not cls})
        hint = f"; method={method!r} is for {' or '.join(map(_a, others))}" if others else ""
        raise InvalidInstanceError(f"{mechanism}: {exc} (the methods on {_a(cls.__name__)}){hint}",
                                   argument="method", value=method) from None
    m = table[(cls, method)]
    accepted = m.accepted()
    if accepted is not None:
        unknown = [k for k in kwargs if k not in accepted]
        if unknown:
            ok = ", ".join(accepted) if accepted else "none"
            fixed = f"; {', '.join(m.fixed)} is set by {mechanism} itself" if set(unknown) & set(m.fixed) else ""
            raise TypeError(
                f"{mechanism}(method={method!r}) on {_a(cls.__name__)} got unexpected keyword "
                f"{'argument' if len(unknown) == 1 else 'arguments'} {', '.join(map(repr, unknown))}; "
                f"accepted keywords: {ok}{fixed}")
    check_solver_options(f"{mechanism}(method={method!r})", **kwargs)     # the one check of every solver option
    func = m.function()
    with options_named(f"{mechanism}(method={method!r})", kwargs.get("options")):
        result = func(instance, **m.fixed, **kwargs)
    if m.tasks_dtype is not None and result.tasks is not None and result.tasks.dtype != m.tasks_dtype:
        result = result.replace(tasks=np.asarray(result.tasks, dtype=m.tasks_dtype))
    return result
