"""Input checks shared by every public entry point.

Each check raises :class:`~fairalloc.errors.InvalidInstanceError` naming the argument, the index of
the first offending entry and its value, e.g. ``demands[1, 0]=nan must be finite``. Checks never
modify or clip their input: they either return a validated read-only copy or raise.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .errors import InvalidInstanceError

__all__ = [
    "as_array",
    "frozen",
    "require_finite",
    "require_nonnegative",
    "require_positive",
    "require_fits",
    "require_integral",
    "require_shape",
    "require_choice",
    "first_bad",
    "require_units",
    "require_ratio_representable",
    "SOLVER_OPTIONS",
    "check_solver_options",
]


def _fmt_index(idx: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(int(i)) for i in idx) + "]" if idx else ""


def first_bad(mask: np.ndarray) -> tuple[int, ...] | None:
    """Index of the first ``True`` entry of ``mask`` in C (row-major) order, or ``None``.

    Parameters
    ----------
    mask : ndarray of bool
        Any shape.

    Returns
    -------
    tuple of int or None
        One index per axis; ``None`` when no entry is ``True``.

    Examples
    --------
    >>> import numpy as np
    >>> first_bad(np.array([[False, False], [True, True]]))
    (1, 0)
    >>> first_bad(np.zeros(3, dtype=bool)) is None
    True
    """
    if not mask.any():
        return None
    flat = int(np.flatnonzero(mask.ravel())[0])
    return tuple(int(i) for i in np.unravel_index(flat, mask.shape))


def _raise(argument: str, arr: np.ndarray, mask: np.ndarray, what: str) -> None:
    idx = first_bad(mask)
    if idx is None:
        return
    value = arr[idx].item() if arr.ndim else arr.item()
    count = int(mask.sum())
    more = f" ({count} entries violate this)" if count > 1 else ""
    raise InvalidInstanceError(f"{argument}{_fmt_index(idx)}={value!r} {what}{more}",
                               argument=argument, index=idx, value=value)


def as_array(argument: str, value: Any, *, ndim: int | Sequence[int] | None = None,
             dtype: type = float) -> np.ndarray:
    """Convert ``value`` to a new ndarray of ``dtype``, checking its number of dimensions.

    Parameters
    ----------
    argument : str
        The argument's name, for error messages.
    value : array_like
        The input; always copied.
    ndim : int or sequence of int, optional
        Allowed numbers of dimensions (default: any).
    dtype : type, optional
        Target dtype (default ``float``).

    Returns
    -------
    ndarray
        A writable copy.

    Raises
    ------
    InvalidInstanceError
        ``value`` is ``None``, cannot be converted to ``dtype``, or has a number of dimensions not in
        ``ndim``.

    Examples
    --------
    >>> as_array("demands", [[1, 2]], ndim=2).tolist()
    [[1.0, 2.0]]
    >>> as_array("demands", [1, 2], ndim=2)
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: demands must have 2 dimension(s), got shape (2,)
    >>> as_array("demands", None)
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: demands is required
    """
    if value is None:
        raise InvalidInstanceError(f"{argument} is required", argument=argument, value=None)
    try:
        arr = np.array(value, dtype=dtype, copy=True)
    except (TypeError, ValueError) as exc:
        raise InvalidInstanceError(
            f"{argument} could not be read as an array of {np.dtype(dtype).name}: {exc}",
            argument=argument, value=value) from None
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            want = " or ".join(str(a) for a in allowed)
            raise InvalidInstanceError(
                f"{argument} must have {want} dimension(s), got shape {arr.shape}",
                argument=argument, value=arr.shape)
    return arr


def frozen(arr: np.ndarray) -> np.ndarray:
    """Mark ``arr`` read-only (in place) and return it.

    Parameters
    ----------
    arr : ndarray
        An array the caller owns.

    Returns
    -------
    ndarray
        ``arr`` itself, with ``flags.writeable`` False.

    Examples
    --------
    >>> import numpy as np
    >>> a = frozen(np.zeros(2))
    >>> a.flags.writeable
    False
    """
    arr.setflags(write=False)
    return arr


def require_shape(argument: str, arr: np.ndarray, shape: tuple[int | None, ...], *,
                  names: Sequence[str] | None = None) -> None:
    """Check ``arr.shape`` against ``shape`` (``None`` = any length along that axis).

    Parameters
    ----------
    argument : str
        The argument's name, for the error message.
    arr : ndarray
        The array to check.
    shape : tuple of int or None
        The expected shape; its length fixes the number of dimensions.
    names : sequence of str, optional
        Names of the axes, shown in the message (e.g. ``["n_agents", "n_resources"]``).

    Raises
    ------
    InvalidInstanceError
        The shape differs; the message gives the expected and the actual shape.

    Examples
    --------
    >>> import numpy as np
    >>> require_shape("demands", np.zeros((2, 3)), (2, None))          # passes: returns None
    >>> require_shape("demands", np.zeros((2, 3)), (2, 2), names=["n_agents", "n_resources"])
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: demands must have shape (2, 2) = (n_agents, n_resources), got (2, 3)
    """
    ok = arr.ndim == len(shape) and all(s is None or a == s for a, s in zip(arr.shape, shape))
    if not ok:
        comma = "," if len(shape) == 1 else ""
        want = "(" + ", ".join("any" if s is None else str(s) for s in shape) + comma + ")"
        if names:
            want += " = (" + ", ".join(names) + comma + ")"
        raise InvalidInstanceError(f"{argument} must have shape {want}, got {arr.shape}",
                                   argument=argument, value=arr.shape)


def require_finite(argument: str, arr: np.ndarray) -> None:
    """Check that every entry of a floating array is finite (no NaN, no infinity).

    Integer and object arrays pass unchecked.

    Parameters
    ----------
    argument : str
        The argument's name, for the error message.
    arr : ndarray
        The array to check.

    Raises
    ------
    InvalidInstanceError
        At the first non-finite entry (C order), naming its index and value and how many entries fail.

    Examples
    --------
    >>> import numpy as np
    >>> require_finite("demands", np.array([[1.0, np.nan]]))
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: demands[0, 1]=nan must be finite
    """
    if np.issubdtype(arr.dtype, np.floating):
        _raise(argument, arr, ~np.isfinite(arr), "must be finite")


def require_nonnegative(argument: str, arr: np.ndarray) -> None:
    """Check that every entry is finite and >= 0.

    Parameters
    ----------
    argument : str
        The argument's name, for the error message.
    arr : ndarray
        The array to check.

    Raises
    ------
    InvalidInstanceError
        At the first non-finite or negative entry (C order); the message counts the entries that fail.

    Examples
    --------
    >>> import numpy as np
    >>> require_nonnegative("capacities", np.array([1.0, -2.0, -3.0]))
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: capacities[1]=-2.0 must be >= 0 (2 entries violate this)
    """
    require_finite(argument, arr)
    _raise(argument, arr, arr < 0, "must be >= 0")


def require_positive(argument: str, arr: np.ndarray) -> None:
    """Check that every entry is finite and > 0.

    Parameters
    ----------
    argument : str
        The argument's name, for the error message.
    arr : ndarray
        The array to check.

    Raises
    ------
    InvalidInstanceError
        At the first non-finite, zero or negative entry (C order).

    Examples
    --------
    >>> import numpy as np
    >>> require_positive("weights", np.array([1.0, 0.0]))
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: weights[1]=0.0 must be > 0
    """
    require_finite(argument, arr)
    _raise(argument, arr, arr <= 0, "must be > 0")


def require_fits(argument: str, widths: Any, capacity: float) -> None:
    """Check that no job is wider than the cluster: every entry of ``widths`` is at most ``capacity``.

    The one check of a rigid job's width (processors) against a machine of ``capacity`` identical
    processors, for every function that schedules such jobs and would otherwise wait forever for a job
    that can never start.

    Parameters
    ----------
    argument : str
        The argument's name, for the error message.
    widths : array_like
        Each job's width (processors), any shape.
    capacity : float
        The cluster's processors.

    Raises
    ------
    InvalidInstanceError
        At the first entry above ``capacity`` (C order); the message counts the entries that fail.

    Examples
    --------
    >>> require_fits("processors", [2, 5, 3, 8], 4)
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: processors[1]=5 is wider than the cluster (capacity=4) (2 entries violate this)
    """
    arr = np.asarray(widths)
    _raise(argument, arr, arr > capacity, f"is wider than the cluster (capacity={capacity})")


def require_integral(argument: str, arr: np.ndarray) -> np.ndarray:
    """Check that an array holds whole numbers (exactly countable in float64); return it as int64.

    Parameters
    ----------
    argument : str
        The argument's name, for the error message.
    arr : ndarray
        The array to check (float or integer).

    Returns
    -------
    ndarray of int64

    Raises
    ------
    InvalidInstanceError
        An entry that is not finite, not a whole number, or larger than :math:`2^{53}` in magnitude.

    Examples
    --------
    >>> import numpy as np
    >>> require_integral("tasks", np.array([1.0, 2.0])).tolist()
    [1, 2]
    >>> require_integral("tasks", np.array([1.0, 2.5]))
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: tasks[1]=2.5 must be a whole number
    """
    require_finite(argument, arr)
    if np.issubdtype(arr.dtype, np.floating):
        _raise(argument, arr, arr != np.round(arr), "must be a whole number")
        _raise(argument, arr, np.abs(arr) > 2**53, "is too large to count exactly")
    return arr.astype(np.int64)


def require_choice(argument: str, value: Any, choices: Sequence[str]) -> str:
    """Check that ``value`` is one of ``choices`` and return the canonical spelling.

    The comparison ignores case and treats ``_`` and ``-`` alike.

    Parameters
    ----------
    argument : str
        The argument's name, for the error message.
    value : object
        The user's value; anything but a matching string fails.
    choices : sequence of str
        The accepted spellings.

    Returns
    -------
    str
        The matching entry of ``choices``.

    Raises
    ------
    InvalidInstanceError
        ``value`` matches no choice; the message lists them.

    Examples
    --------
    >>> require_choice("method", "Wait_Fill", ["waterfill", "wait-fill"])
    'wait-fill'
    >>> require_choice("method", "simplex", ["waterfill", "lp"])
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: method='simplex' is not one of 'waterfill', 'lp'
    """
    if isinstance(value, str):
        low = value.lower().replace("_", "-")
        for c in choices:
            if c.lower().replace("_", "-") == low:
                return c
    raise InvalidInstanceError(
        f"{argument}={value!r} is not one of {', '.join(repr(c) for c in choices)}",
        argument=argument, value=value)


def require_units(argument: str, units: Sequence[str | None] | None, k: int) -> tuple[str | None, ...]:
    """``k`` units (``None`` = undeclared) from ``units`` (None: all undeclared); refuses a wrong length.

    Parameters
    ----------
    argument : str
        The argument's name, for the message.
    units : sequence of str or None, or None
        One unit per resource (``"cores"``, ``"GB"``, ...); ``None`` or ``""`` entries are undeclared.
    k : int
        The number of resources.

    Returns
    -------
    tuple of (str or None)
        Length ``k``, stripped.

    Raises
    ------
    InvalidInstanceError
        A string instead of a sequence, or a length other than ``k``.

    Examples
    --------
    >>> require_units("resource_units", ["cores", None], 2)
    ('cores', None)
    >>> require_units("resource_units", None, 2)
    (None, None)
    """
    if units is None:
        return (None,) * k
    if isinstance(units, str):
        raise InvalidInstanceError(f"{argument}={units!r} must be a sequence of {k} unit(s), one per resource",
                                   argument=argument, value=units)
    out = tuple(None if u is None or str(u).strip() == "" else str(u).strip() for u in units)
    if len(out) != k:
        raise InvalidInstanceError(f"{argument} has {len(out)} unit(s) for {k} resource(s)",
                                   argument=argument, value=out)
    return out


def require_ratio_representable(numerator: str, num: np.ndarray, denominator: str, den: np.ndarray, *,
                                result: str) -> np.ndarray:
    """``num / den`` (broadcast), refusing a quotient that overflows to infinity or a positive one that
    underflows to zero: the numeric check after normalisation, which the raw inputs pass.

    Every share fairalloc computes is in normalised units (a demand over a capacity, one over a
    weight): ``demands=[[1e308]]`` and ``capacities=[1e-10]`` are each finite and positive, but
    their quotient is ``inf``, and a mechanism would return NaN. The message names both arguments,
    the index and the values.

    Parameters
    ----------
    numerator, denominator : str
        The arguments' names, for the message.
    num, den : ndarray
        Finite, nonnegative numerator and positive denominator (checked by the caller), broadcastable.
    result : str
        What the quotient is (``"the normalised demand"``), for the message.

    Returns
    -------
    ndarray
        The quotient.

    Raises
    ------
    InvalidInstanceError
        At the first overflow (or underflow of a positive numerator), with ``argument=numerator``.

    Examples
    --------
    >>> import numpy as np
    >>> require_ratio_representable("demands", np.array([[2.0, 1.0]]), "capacities", np.array([4.0, 1.0]),
    ...                             result="the normalised demand").tolist()
    [[0.5, 1.0]]
    >>> require_ratio_representable("demands", np.array([[1e308, 1.0]]), "capacities", np.array([1e-10, 1.0]),
    ...                             result="the normalised demand")
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: demands[0, 0]=1e+308 / capacities[0]=1e-10: the normalised demand overflows (inf); rescale the units so that the ratio is representable
    """
    num_b, den_b = np.broadcast_arrays(np.asarray(num, dtype=float), np.asarray(den, dtype=float))
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        q = num_b / den_b
    for mask, what in ((~np.isfinite(q), "overflows (inf)"), ((num_b > 0) & (q == 0), "underflows to 0")):
        idx = first_bad(mask)
        if idx is None:
            continue
        den_idx = idx[len(idx) - np.ndim(den):] if np.ndim(den) else ()
        raise InvalidInstanceError(
            f"{numerator}{_fmt_index(idx)}={num_b[idx].item()!r} / {denominator}{_fmt_index(den_idx)}="
            f"{den_b[idx].item()!r}: {result} {what}; rescale the units so that the ratio is representable",
            argument=numerator, index=idx, value=num_b[idx].item())
    return q


def _is_real(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


#: The solver options of fairalloc's exact entry points, each with what it must be; one check for all
#: (:func:`check_solver_options`), called by every front door before any work.
SOLVER_OPTIONS: dict[str, str] = {
    "solver": "a backend name (str) or None",
    "time_limit": "a number of seconds > 0, or None",
    "mip_gap": "a number >= 0, or None",
    "threads": "a whole number >= 1, or None",
    "msg": "True or False",
    "options": "a mapping of backend options, or None",
    "warm_start": "True, False or None",
    "symmetry": "True or False",
    "aggregate": "True or False",
    "decompose": "True or False",
    "tighten": "True or False",
    "cuts": "True or False",
}


def _option_ok(name: str, value: Any) -> bool:
    if name == "solver":
        return value is None or isinstance(value, str)
    if name == "time_limit":
        return value is None or (_is_real(value) and not np.isnan(value) and value > 0)
    if name == "mip_gap":
        return value is None or (_is_real(value) and bool(np.isfinite(value)) and value >= 0)
    if name == "threads":
        return value is None or (isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 1)
    if name == "options":
        from collections.abc import Mapping

        return value is None or isinstance(value, Mapping)
    if name == "warm_start":
        return value is None or isinstance(value, (bool, np.bool_))
    return isinstance(value, (bool, np.bool_))


def check_solver_options(where: str, **options: Any) -> None:
    """Check solver options against :data:`SOLVER_OPTIONS` before any work; names not there pass.

    Parameters
    ----------
    where : str
        The entry point, for the message (``"drf(method='milp')"``).
    **options
        The options as the user gave them (``time_limit=...``, ``mip_gap=...``, ...).

    Raises
    ------
    InvalidInstanceError
        The first option of the wrong type or range, naming it, its value and what it must be.

    Examples
    --------
    >>> check_solver_options("drf(method='milp')", time_limit=10, mip_gap=0.0, threads=2)   # passes
    >>> check_solver_options("drf(method='milp')", time_limit="10")
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: drf(method='milp'): time_limit='10' must be a number of seconds > 0, or None (got str)
    """
    for name, value in options.items():
        want = SOLVER_OPTIONS.get(name)
        if want is not None and not _option_ok(name, value):
            raise InvalidInstanceError(f"{where}: {name}={value!r} must be {want} (got {type(value).__name__})",
                                       argument=name, value=value)
