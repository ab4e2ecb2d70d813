"""One check for the scalar knobs of the fair-share policies (half-lives, periods, weights)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import InvalidInstanceError


def scalar(name: str, value: Any, *, strict: bool = True, allow_inf: bool = False, what: str = "") -> float:
    """``value`` as a float that is > 0 (``strict``) or >= 0, finite unless ``allow_inf``; else a clear error.

    ``what`` is appended to the message (e.g. the configuration name it stands for).
    """
    if isinstance(value, (bool, np.bool_)):
        raise InvalidInstanceError(f"{name}={value!r} must be a number{what}", argument=name, value=value)
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InvalidInstanceError(f"{name}={value!r} must be a number{what}", argument=name, value=value) from None
    bad = math.isnan(v) or (v <= 0 if strict else v < 0) or (math.isinf(v) and not allow_inf)
    if bad:
        rule = ("> 0 (or inf)" if allow_inf else "finite and > 0") if strict else "finite and >= 0"
        raise InvalidInstanceError(f"{name}={value!r} must be {rule}{what}", argument=name, value=value)
    return v


def user_matrix(argument: str, value: Any, n_rows: int, n_cols: int, *, rows: str = "users") -> np.ndarray:
    """``value`` as a new (n_rows, n_cols) float array, finite and >= 0; else a clear error.

    A 1-D input is accepted when ``n_cols == 1``. ``rows`` names the first axis in the message.
    """
    from ..validation import as_array, require_nonnegative, require_shape

    arr = as_array(argument, value, ndim=(1, 2))
    if arr.ndim == 1 and n_cols == 1:
        arr = arr.reshape(-1, 1)
    require_shape(argument, arr, (n_rows, n_cols), names=[f"n_{rows}", "n_resources"])
    require_nonnegative(argument, arr)
    return arr


def no_parent_shares(tree: Any, system: str) -> None:
    """Refuse a tree with Slurm's ``FairShare=parent`` nodes for a system that has no such notion."""
    if bool(np.any(tree.use_parent)):
        v = int(np.flatnonzero(tree.use_parent)[0])
        raise InvalidInstanceError(f"{tree.where(v)}: {tree.names[v]!r} has shares='parent' (Slurm's FairShare=parent); {system} has "
                                   "no such notion: give it a weight instead", argument="shares", index=(v,),
                                   value="parent")


def node_scalar(tree: Any, field: str, default: float) -> np.ndarray:
    """The tree's per-node scalar ``field`` with unset entries (NaN) replaced by ``default``."""
    a = np.array(tree.attribute(field), dtype=float)
    a[np.isnan(a)] = default
    return a


def node_vector(tree: Any, field: str, default: float, n_resources: int) -> np.ndarray:
    """The tree's per-node, per-resource ``field`` (n_nodes, n_resources), unset entries set to ``default``.

    A tree without resource names (no per-resource field can be set) gives ``default`` everywhere; a tree
    with names must have ``n_resources`` of them.
    """
    a = np.array(tree.attribute(field), dtype=float)
    if a.shape[1] == 0:
        return np.full((tree.n_nodes, n_resources), default)
    if a.shape[1] != n_resources:
        raise InvalidInstanceError(f"the tree has {a.shape[1]} resources {list(tree.resources)}, the input "
                                   f"{n_resources}", argument="resources", value=list(tree.resources))
    a[np.isnan(a)] = default
    return a
