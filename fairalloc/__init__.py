"""fairalloc: fair allocation of several resources among users over time.

Exact mechanisms (water-filling, LPs, MILPs), greedy schedulers, simulators and axiom checkers for
DRF, SDRF, TSF, TV-TSF, BUC and learned priority functions. See the design document of the docs
(``docs/design.md``) for the layout.

>>> import fairalloc as fa
>>> inst = fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[100, 100], capacities=[9, 18])
>>> fa.drf(inst).dominant_shares.round(6).tolist()
[0.666667, 0.666667]

Every public name is imported on first use (PEP 562): ``import fairalloc`` loads only the errors, ``fa.drf`` the mechanisms (numpy, scipy), ``fa.scheduling`` the numba-compiled
schedulers, ``fa.simulate`` the simulator (pandas). ``dir(fairalloc)`` and ``__all__`` list them all.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from . import _jit_cache
from .errors import (FairallocError, FairallocWarning, InfeasibleError, InvalidInstanceError, SolverError,
                     SolverUnavailableError)

try:                                    # numba's cache of the compiled cores follows their sources
    _jit_cache.check()
except Exception:  # noqa: BLE001 - housekeeping of a cache must never stop an import
    pass

if TYPE_CHECKING:                       # what the names are, for type checkers and documentation tools
    from . import accounts, clusters, commitments, exact, experiments, fairshare, scheduling, shares, sim, workloads
    from .exact.solvers import available_solvers
    from .mechanisms import asset_fairness, cdrf, ceei, drf, max_min, sdrf, tsf, tvtsf
    from .model import Cluster, Instance, TaskInstance, TimeVaryingInstance
    from .result import SOLUTION_PRESENT, AllocationResult, Status
    from .sim import SimulationResult, simulate
    from .version import __version__

#: Public name -> (module, attribute, or None for the module itself); imported on first access.
_LAZY: dict[str, tuple[str, str | None]] = {
    **{name: (f"fairalloc.{name}", None) for name in
       ("clusters", "commitments", "exact", "experiments", "scheduling", "shares", "sim", "workloads")},
    "available_solvers": ("fairalloc.exact.solvers", "available_solvers"),
    **{name: ("fairalloc.mechanisms", name) for name in
       ("asset_fairness", "cdrf", "ceei", "drf", "max_min", "sdrf", "tsf", "tvtsf")},
    **{name: ("fairalloc.model", name) for name in ("Cluster", "Instance", "TaskInstance", "TimeVaryingInstance")},
    **{name: ("fairalloc.result", name) for name in ("SOLUTION_PRESENT", "AllocationResult", "Status")},
    "simulate": ("fairalloc.sim", "simulate"),
    "SimulationResult": ("fairalloc.sim", "SimulationResult"),
    "accounts": ("fairalloc.accounts", None),
    "fairshare": ("fairalloc.fairshare", None),
    "__version__": ("fairalloc.version", "__version__"),      # importlib.metadata: 0.05-0.1 s
}


def __getattr__(name: str):
    try:
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'fairalloc' has no attribute {name!r}") from None
    obj = importlib.import_module(module)
    obj = obj if attr is None else getattr(obj, attr)
    globals()[name] = obj
    return obj


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    # models
    "Instance",
    "Cluster",
    "TaskInstance",
    "TimeVaryingInstance",
    # results
    "AllocationResult",
    "Status",
    "SOLUTION_PRESENT",
    # divisible mechanisms
    "max_min",
    "drf",
    "sdrf",
    # servers, indivisible tasks, time slots (exact programs in fairalloc.exact)
    "tsf",
    "cdrf",
    "tvtsf",
    "exact",
    "asset_fairness",
    "ceei",
    # formulas and state
    "shares",
    "commitments",
    # greedy task schedulers and built-in clusters
    "scheduling",
    "clusters",
    # solvers
    "available_solvers",
    # simulation
    "workloads",
    "sim",
    "simulate",
    "SimulationResult",
    # experiment sweeps (specs, Dask runner, Parquet/DuckDB store)
    "experiments",
    # production fair share (Slurm, HTCondor) on an account tree
    "accounts",
    "fairshare",
    # errors
    "FairallocError",
    "InvalidInstanceError",
    "SolverError",
    "SolverUnavailableError",
    "InfeasibleError",
    "FairallocWarning",
]
