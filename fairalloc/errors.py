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
    """Base class of every exception fairalloc raises on purpose.

    Catch it to handle any of fairalloc's own errors at once; its subclasses also derive from the
    matching built-in (``ValueError``, ``RuntimeError``, ``ImportError``), so code that catches those
    keeps working.

    Attributes
    ----------
    args : tuple
        ``(message,)``: what went wrong, as the raising code wrote it (``str(error)``).

    See Also
    --------
    InvalidInstanceError, SolverError, SolverUnavailableError, InfeasibleError

    Examples
    --------
    A negative demand (row 0, column 1) is bad input; the error carries the argument, index and value:

    >>> import fairalloc as fa
    >>> try:
    ...     fa.Instance([[1, -1], [3, 1]], capacities=[9, 18])
    ... except fa.FairallocError as e:
    ...     print(type(e).__name__, e.argument, e.index, e.value)
    InvalidInstanceError demands (0, 1) -1.0
    """


class InvalidInstanceError(FairallocError, ValueError):
    """An argument does not describe a valid instance (also a ``ValueError``).

    Raised before any work by every public constructor and entry point (:class:`fairalloc.Instance`,
    :class:`fairalloc.TaskInstance`, the mechanisms, :mod:`fairalloc.validation`'s checks) for NaN,
    infinite, negative or non-integral entries, wrong shapes, unknown option names and bad parameters
    (a ``delta`` outside [0, 1), a negative seed). The message names the argument, the index of the
    first offending entry and its value; nothing is silently clipped.

    Parameters
    ----------
    message : str
        The human-readable message (``str(error)``).
    argument : str, optional
        Name of the offending argument.
    index : tuple of int, optional
        Position of the offending entry inside it.
    value : object, optional
        The offending value.

    Attributes
    ----------
    argument : str or None
        Name of the offending argument (``"demands"``, ``"weights"``, ...).
    index : tuple of int or None
        Position of the offending entry inside that argument, when there is one.
    value : object
        The offending value.

    Examples
    --------
    Weight 0 for user 1 is not allowed (weights must be > 0):

    >>> import fairalloc as fa
    >>> try:
    ...     fa.Instance([[1, 4], [3, 1]], capacities=[9, 18], weights=[1, 0])
    ... except ValueError as e:                     # an InvalidInstanceError is a ValueError
    ...     print(e)
    ...     print(e.argument, e.index, e.value)
    weights[1]=0.0 must be > 0
    weights (1,) 0.0
    """

    def __init__(self, message: str, *, argument: str | None = None,
                 index: tuple[int, ...] | None = None, value: Any = None) -> None:
        super().__init__(message)
        self.argument = argument
        self.index = index
        self.value = value


class SolverError(FairallocError, RuntimeError):
    """A backend failed in a way that leaves no usable result (also a ``RuntimeError``).

    Solves never raise it by themselves: a failure or a time limit is a status on the
    :class:`~fairalloc.result.AllocationResult` (``ERROR``, ``NOT_SOLVED``, ``UNBOUNDED``);
    :meth:`~fairalloc.result.AllocationResult.raise_for_status` turns such a status into this exception
    (an infeasible problem into its subclass :class:`InfeasibleError`). The message gives mechanism,
    method, status and the backend's message.

    Attributes
    ----------
    args : tuple
        ``(message,)``: what went wrong, as the raising code wrote it (``str(error)``).

    Examples
    --------
    >>> import fairalloc as fa
    >>> r = fa.AllocationResult(status="not_solved", mechanism="tsf", method="milp", message="time limit")
    >>> try:
    ...     r.raise_for_status()
    ... except fa.SolverError as e:
    ...     print(e)
    tsf/milp: not_solved: time limit
    """


class SolverUnavailableError(SolverError, ImportError):
    """The requested backend is unknown, cannot solve the problem's kind, or is not installed.

    A :class:`SolverError` and an ``ImportError``. Raised before any solve by
    :func:`fairalloc.exact.get_backend` (and so by every ``solver=`` argument): the message lists the
    known names, says which kinds a backend handles, or says what to ``pip install``.

    Attributes
    ----------
    args : tuple
        ``(message,)``: what went wrong, as the raising code wrote it (``str(error)``).

    Examples
    --------
    >>> import fairalloc as fa
    >>> from fairalloc.exact import get_backend
    >>> try:
    ...     get_backend("clarabel", "milp")            # a conic solver asked for a MILP
    ... except fa.SolverUnavailableError as e:
    ...     print(str(e).split(";")[0])
    solver 'clarabel' cannot solve MILP problems (it handles: conic)
    """


class InfeasibleError(SolverError):
    """Raised by :meth:`~fairalloc.result.AllocationResult.raise_for_status` for an infeasible problem.

    A :class:`SolverError`; the result's status is ``INFEASIBLE`` (the backend proved that no feasible
    solution exists). Solves return that status, they do not raise.

    Attributes
    ----------
    args : tuple
        ``(message,)``: what went wrong, as the raising code wrote it (``str(error)``).

    Examples
    --------
    >>> import fairalloc as fa
    >>> r = fa.AllocationResult(status="infeasible", mechanism="tvtsf", method="milp", message="no schedule")
    >>> try:
    ...     r.raise_for_status()
    ... except fa.InfeasibleError as e:
    ...     print(e)
    tvtsf/milp: infeasible: no schedule
    """


class FairallocWarning(UserWarning):
    """Something was ignored or adjusted; the message says what (emitted with ``stacklevel=2`` or more).

    Emitted, for instance, for an option a method does not use (``solver=`` with
    ``method="waterfill"``), a file with users that have no commitments (they start at zero), a
    leximin search cut at ``max_values``.
    Silence or escalate it with the ``warnings`` module by this category.

    Attributes
    ----------
    args : tuple
        ``(message,)``: what was ignored or adjusted (``str(warning)``).

    Examples
    --------
    DRF's water-filling is exact and uses no solver, so a ``solver`` argument is ignored, with a warning:

    >>> import warnings
    >>> import fairalloc as fa
    >>> inst = fa.Instance([[1, 4], [3, 1]], capacities=[9, 18])
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     r = fa.drf(inst, solver="highs")
    >>> [(w.category.__name__, str(w.message)) for w in caught]
    [('FairallocWarning', "solver='highs' and options are ignored by method='waterfill'")]
    """
