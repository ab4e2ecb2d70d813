"""Kinetic data structures: keep elements sorted while their priorities move predictably with time.

:class:`LiveTree` is the SDRF paper's *live tree* (Section 6.3); :class:`ResortQueue` has the same
interface and re-sorts everything on every query (the brute-force baseline and a test oracle);
:class:`LazyHeap` is the common shortcut (a heap recomputing the top lazily), exact only for
priorities that never decrease, kept as a benchmark baseline.
This package depends on nothing else in fairalloc (``DESIGN.md``; only on :mod:`fairalloc._jit`, the
dependency-free helper that compiles at first use): trajectories are generic
maxima of functions affine in :math:`u = e^{-t/\\tau}` (:mod:`.tree_core`: the algebra, the arrays
and the compiled operations); SDRF's trajectories are built in :mod:`fairalloc.scheduling.keys`.
"""

from .live_tree import LiveTree
from .lazy_heap import LazyHeap
from .resort import ResortQueue

__all__ = ["LiveTree", "ResortQueue", "LazyHeap"]
