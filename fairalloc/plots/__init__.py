"""Figures used by the notebooks and the command line (matplotlib, Agg-safe).

One module per area (``plots.sim``, ``plots.compare``, ``plots.exact``, ...; the
axiom-check figures are in ``proofs_check.plots``). Every function takes
data (results, tables), draws on a new Figure or a given ``ax``, and returns the Figure; nothing here
calls ``pyplot.show`` or leaves global pyplot state behind. (The design document names a single
``plots.py``; it is a package so that each area keeps its figures in a module of its own.)
:func:`subplots` makes every figure (a new Figure, no pyplot, and its layout engine) and :func:`save` writes
it in the formats a command was asked for (``--format``): the set-up is written once, in ``plots/_figure.py``.
"""

from __future__ import annotations

from . import compare, exact, learn, reproductions, scheduling, sim, tasks, whatif
from ._figure import DPI, save, subplots

__all__: list[str] = ["sim", "exact", "compare", "scheduling", "tasks", "reproductions", "learn", "whatif", "subplots",
                      "save", "DPI"]
