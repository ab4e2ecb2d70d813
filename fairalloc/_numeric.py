"""Small numeric helpers (not formulas): fast reductions over a short last axis.

NumPy reduces along a short last axis (m = 2..16 resources) an order of magnitude slower than it
combines m whole columns with a binary ufunc, so these reduce column by column.
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["lastmax", "lastmin"]

_SHORT = 16


def lastmax(a: np.ndarray) -> np.ndarray:
    """``a.max(axis=-1)``, faster when the last axis is short."""
    if a.ndim >= 1 and 0 < a.shape[-1] <= _SHORT:
        return functools.reduce(np.maximum, [a[..., k] for k in range(a.shape[-1])])
    return a.max(axis=-1)


def lastmin(a: np.ndarray) -> np.ndarray:
    """``a.min(axis=-1)``, faster when the last axis is short."""
    if a.ndim >= 1 and 0 < a.shape[-1] <= _SHORT:
        return functools.reduce(np.minimum, [a[..., k] for k in range(a.shape[-1])])
    return a.min(axis=-1)
