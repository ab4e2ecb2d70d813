"""Experiments built from the library.

* Sweeps: named experiment specs (:class:`Spec`, YAML or dict) expanded into cells, run on
  ``dask.distributed`` (:func:`run_sweep`) into a resumable Parquet store read through DuckDB
  (:func:`load`, :func:`connect`); ``fairalloc sweep`` and ``fairalloc results`` on the command line.
* Studies that return a table (and a figure in :mod:`fairalloc.plots`), used by the notebooks and
  the command line: :func:`sdrf_convergence`, :mod:`.compare`.
* Priority functions learned by simulation, the learned-priorities method: :mod:`.learn`.
* One trace under several policies and settings, per-user and per-account outcomes (``fairalloc
  whatif``): :mod:`.whatif`, with the share metrics of :mod:`.share_metrics`; why one job waited
  (``fairalloc explain``): :mod:`.explain`.
"""

from .convergence import CONVERGENCE_EXAMPLES, sdrf_convergence
from .runner import SweepSummary, run_sweep
from .spec import Cell, Spec, SpecError
from .store import connect, load

__all__ = ["Spec", "Cell", "SpecError", "run_sweep", "SweepSummary", "load", "connect",
           "sdrf_convergence", "CONVERGENCE_EXAMPLES", "compare", "learn", "whatif", "share_metrics", "explain"]


def __getattr__(name: str):
    # the comparison needs the exact programs (PuLP, HiGHS): load it on first use
    if name in ("compare", "learn", "whatif", "share_metrics", "explain"):   # learn: priority functions learned by simulation (issue 29)
        import importlib
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
