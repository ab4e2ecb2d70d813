"""fairalloc: fair allocation of several resources among users over time.

Exact mechanisms (water-filling, LPs, MILPs), greedy schedulers, simulators and axiom checkers for
DRF, SDRF, TSF, TV-TSF, BUC and learned priority functions. See ``DESIGN.md`` for the layout.

>>> import fairalloc as fa
>>> inst = fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[100, 100], capacities=[9, 18])
>>> fa.drf(inst).dominant_shares.round(6).tolist()
[0.666667, 0.666667]
"""


from . import clusters, commitments, scheduling, shares
from .errors import (FairallocError, FairallocWarning, InfeasibleError, InvalidInstanceError,
                     SolverError, SolverUnavailableError)
from .exact.solvers import available_solvers
from . import exact
from .mechanisms import cdrf, drf, max_min, sdrf, tsf, tvtsf
from .mechanisms import asset_fairness, ceei
from .model import Cluster, Instance, TaskInstance, TimeVaryingInstance
from .result import SOLUTION_PRESENT, AllocationResult, Status

#: Heavier parts (pandas, scipy.stats, solvers) load on first use: ``fa.simulate`` imports the
#: simulator then. Name -> (module, attribute or None for the module itself).
_LAZY = {
    "workloads": ("fairalloc.workloads", None),
    "simulate": ("fairalloc.sim", "simulate"),
    "SimulationResult": ("fairalloc.sim", "SimulationResult"),
    "experiments": ("fairalloc.experiments", None),
    "accounts": ("fairalloc.accounts", None),
    "fairshare": ("fairalloc.fairshare", None),
}


def __getattr__(name: str):
    try:
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'fairalloc' has no attribute {name!r}") from None
    import importlib

    obj = importlib.import_module(module)
    obj = obj if attr is None else getattr(obj, attr)
    globals()[name] = obj
    return obj


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


from .version import __version__  # noqa: E402

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
