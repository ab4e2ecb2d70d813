"""Figures used by the notebooks and the command line (matplotlib, Agg-safe).

One module per area (``plots.sim``, ``plots.compare``, ``plots.exact``, ...; the
axiom-check figures are in ``proofs_check.plots``). Every function takes
data (results, tables), draws on a new Figure or a given ``ax``, and returns the Figure; nothing here
calls ``pyplot.show`` or leaves global pyplot state behind. (``DESIGN.md`` names a single
``plots.py``; it is a package so that each area keeps its figures in a module of its own.)
"""

from . import compare, exact, learn, reproductions, scheduling, sim, tasks

__all__: list[str] = ["sim", "exact", "compare", "scheduling", "tasks", "reproductions", "learn"]
