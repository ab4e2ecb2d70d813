"""Experiments built from the library: each is a function returning a table (and a figure in
:mod:`fairalloc.plots`), used by the notebooks and the command line."""

from .convergence import CONVERGENCE_EXAMPLES, sdrf_convergence

__all__ = ["sdrf_convergence", "CONVERGENCE_EXAMPLES"]
