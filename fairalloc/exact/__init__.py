"""Optimisation formulations (LP, MILP) and the solver layer."""

from .solvers import available_solvers, get_backend

__all__ = ["available_solvers", "get_backend"]
