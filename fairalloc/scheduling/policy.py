"""Deprecated: :class:`Policy` moved to :mod:`fairalloc.sim` (``fairalloc.sim.Policy``).

The old name still resolves here, with a :class:`DeprecationWarning`.
"""

import importlib as _importlib
import warnings as _warnings


def __getattr__(name: str):
    if name != "Policy":
        raise AttributeError(f"module 'fairalloc.scheduling.policy' has no attribute {name!r}")
    _warnings.warn("fairalloc.scheduling.policy.Policy moved to fairalloc.sim.Policy; the old path will be "
                   "removed", DeprecationWarning, stacklevel=2)
    return _importlib.import_module("fairalloc.sim.policies.base").Policy
