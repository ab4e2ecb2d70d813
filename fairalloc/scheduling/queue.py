"""Deprecated: the job-queue policies moved to :mod:`fairalloc.sim.policies.queue` (``fairalloc.sim``).

Every name of the old module still resolves here, with a :class:`DeprecationWarning`.
"""

import importlib as _importlib
import warnings as _warnings


def __getattr__(name: str):
    module = _importlib.import_module("fairalloc.sim.policies.queue")
    if name.startswith("__") or not hasattr(module, name):
        raise AttributeError(f"module 'fairalloc.scheduling.queue' has no attribute {name!r}")
    _warnings.warn(f"fairalloc.scheduling.queue.{name} moved to fairalloc.sim.policies.queue.{name} (also "
                   "fairalloc.sim for the policies); the old path will be removed", DeprecationWarning, stacklevel=2)
    return getattr(module, name)
