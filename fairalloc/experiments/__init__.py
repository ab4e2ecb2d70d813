"""Experiments built from the library: each is a function returning a table (and a figure in
:mod:`fairalloc.plots`), used by the notebooks and the command line."""

from .convergence import CONVERGENCE_EXAMPLES, sdrf_convergence

__all__ = ["sdrf_convergence", "CONVERGENCE_EXAMPLES", "compare"]


def __getattr__(name: str):
    # the comparison needs the exact programs (PuLP, HiGHS): load it on first use
    if name == "compare":
        import importlib
        return importlib.import_module(".compare", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
