"""Plain functions that other plain functions of :mod:`fairalloc.fairshare` call, made callable from numba.

The per-decision rules are plain Python loops over arrays. When one calls another (Fair Tree's sibling
order, HTCondor's RUP update calling SDRF's Eq. 6 in :func:`fairalloc.commitments.decay_row_into`), numba
can compile the caller only if the callee is registered with ``numba.extending.register_jitable``.
Registration is deferred to :func:`register` so that importing fairalloc does not import numba; a
compiled layer calls ``register()`` once before ``njit(...)`` of any rule.
"""

from __future__ import annotations

from typing import Callable

from .. import commitments

_CALLEES: list[Callable] = [commitments.decay_row_into]
_registered: set[int] = set()


def callee(fn: Callable) -> Callable:
    """Mark ``fn`` as called from other rules (registered for numba by :func:`register`); returns ``fn``."""
    _CALLEES.append(fn)
    return fn


def register() -> None:
    """Register every marked callee with ``numba.extending.register_jitable`` (each once; callees of modules
    imported after an earlier call are registered by the next call)."""
    if all(id(fn) in _registered for fn in _CALLEES):
        return
    from numba.extending import register_jitable

    for fn in _CALLEES:
        if id(fn) not in _registered:
            register_jitable(fn)
            _registered.add(id(fn))
