"""Exceptions and warnings raised by fairalloc.

Everything fairalloc raises on purpose derives from :class:`FairallocError`, so callers can catch the
whole family at once. Bad input is an :class:`InvalidInstanceError`, which is also a ``ValueError``
and carries the offending ``argument``, ``index`` and ``value`` as attributes. Solver *outcomes*
(infeasible, time limit) are statuses on the result, not exceptions; call
``result.raise_for_status()`` to turn them into :class:`InfeasibleError` / :class:`SolverError`.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "FairallocError",
    "InvalidInstanceError",
    "SolverError",
    "SolverUnavailableError",
    "InfeasibleError",
    "FairallocWarning",
]


class FairallocError(Exception):
    """Base class of every exception fairalloc raises on purpose."""


class InvalidInstanceError(FairallocError, ValueError):
    """An argument does not describe a valid instance.

    Attributes
    ----------
    argument : str or None
        Name of the offending argument (``"demands"``, ``"weights"``, ...).
    index : tuple of int or None
        Position of the offending entry inside that argument, when there is one.
    value : object
        The offending value.
    """

    def __init__(self, message: str, *, argument: str | None = None,
                 index: tuple[int, ...] | None = None, value: Any = None) -> None:
        super().__init__(message)
        self.argument = argument
        self.index = index
        self.value = value


class SolverError(FairallocError, RuntimeError):
    """A backend failed in a way that leaves no usable result (see ``result.message``)."""


class SolverUnavailableError(SolverError, ImportError):
    """The requested backend is unknown or not installed; the message says what to install."""


class InfeasibleError(SolverError):
    """Raised by ``AllocationResult.raise_for_status()`` for an infeasible problem."""


class FairallocWarning(UserWarning):
    """Something was ignored or adjusted; the message says what (emitted with ``stacklevel=2``)."""
