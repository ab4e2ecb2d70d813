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
    "require_integral",
    "require_shape",
    "require_choice",
    "first_bad",
]


def _fmt_index(idx: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(int(i)) for i in idx) + "]" if idx else ""


def first_bad(mask: np.ndarray) -> tuple[int, ...] | None:
    """Index (tuple) of the first True entry of ``mask`` in C order, or None."""
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
    """Convert ``value`` to an ndarray of ``dtype`` (a copy), checking its number of dimensions."""
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
    """Mark ``arr`` read-only and return it."""
    arr.setflags(write=False)
    return arr


def require_shape(argument: str, arr: np.ndarray, shape: tuple[int | None, ...], *,
                  names: Sequence[str] | None = None) -> None:
    """Check ``arr.shape`` against ``shape`` (None = any length along that axis)."""
    ok = arr.ndim == len(shape) and all(s is None or a == s for a, s in zip(arr.shape, shape))
    if not ok:
        comma = "," if len(shape) == 1 else ""
        want = "(" + ", ".join("any" if s is None else str(s) for s in shape) + comma + ")"
        if names:
            want += " = (" + ", ".join(names) + comma + ")"
        raise InvalidInstanceError(f"{argument} must have shape {want}, got {arr.shape}",
                                   argument=argument, value=arr.shape)


def require_finite(argument: str, arr: np.ndarray) -> None:
    if np.issubdtype(arr.dtype, np.floating):
        _raise(argument, arr, ~np.isfinite(arr), "must be finite")


def require_nonnegative(argument: str, arr: np.ndarray) -> None:
    require_finite(argument, arr)
    _raise(argument, arr, arr < 0, "must be >= 0")


def require_positive(argument: str, arr: np.ndarray) -> None:
    require_finite(argument, arr)
    _raise(argument, arr, arr <= 0, "must be > 0")


def require_integral(argument: str, arr: np.ndarray) -> np.ndarray:
    """Check that a float array holds whole numbers; return it as int64."""
    require_finite(argument, arr)
    if np.issubdtype(arr.dtype, np.floating):
        _raise(argument, arr, arr != np.round(arr), "must be a whole number")
        _raise(argument, arr, np.abs(arr) > 2**53, "is too large to count exactly")
    return arr.astype(np.int64)


def require_choice(argument: str, value: Any, choices: Sequence[str]) -> str:
    """Check that ``value`` is one of ``choices`` (case-insensitive); return the canonical spelling."""
    if isinstance(value, str):
        low = value.lower().replace("_", "-")
        for c in choices:
            if c.lower().replace("_", "-") == low:
                return c
    raise InvalidInstanceError(
        f"{argument}={value!r} is not one of {', '.join(repr(c) for c in choices)}",
        argument=argument, value=value)
