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
_done = False


def callee(fn: Callable) -> Callable:
    """Mark ``fn`` as called from other rules (registered for numba by :func:`register`); returns ``fn``."""
    _CALLEES.append(fn)
    return fn


def register() -> None:
    """Register every marked callee with ``numba.extending.register_jitable`` (once)."""
    global _done
    if _done:
        return
    from numba.extending import register_jitable

    for fn in _CALLEES:
        register_jitable(fn)
    _done = True
