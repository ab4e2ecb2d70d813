"""Optimisation formulations (LP, MILP) and the solver layer.

Users call the mechanisms' front doors (``fa.drf(ti)``, ``fa.sdrf``, ``fa.tsf``, ``fa.cdrf``,
``fa.tvtsf``), which dispatch here for ``method="milp"`` / ``"lp"`` and check the keywords first; the
functions below are their implementations, kept importable for direct use and for their models.

* :func:`tasks_leximin` / :func:`tasks_model`: indivisible tasks on servers (DRF, SDRF, TSF, CDRF).
* :func:`tvtsf_milp` / :func:`tvtsf_online` / :func:`tvtsf_model`: the TV-TSF integer program (Eq. 10).
* :func:`tsf_lp`: divisible TSF on servers by LP progressive filling.
* :mod:`~fairalloc.exact.milp`: :func:`solve_pulp`, :func:`export_model`, :class:`MilpModel` (PuLP models in).
* :mod:`~fairalloc.exact.program` / :mod:`~fairalloc.exact.backends`: a MILP as arrays, read through
  PuLP's public API, solved by HiGHS (highspy), CP-SAT (ortools) or CBC (PuLP), honest statuses.
* :mod:`~fairalloc.exact.pareto`: the Pareto-domination programs; :mod:`~fairalloc.exact.values`: the
  mechanism-to-value table.
* :mod:`~fairalloc.exact.placement`: the placement graph, components, max-flow bounds.
"""

from .milp import MilpModel, export_model, solve_pulp
from .placement import flow_check, maxmin_flow_bound, placement_components, placement_graph, tv_flow_check
from .solvers import available_solvers, get_backend
from .tasks import tasks_leximin, tasks_model
from .files import register_kinds as _register_kinds
from .tsf_lp import tsf_lp
from .tvtsf import schedule_details, tvtsf_milp, tvtsf_model, tvtsf_online

__all__ = [
    "available_solvers",
    "get_backend",
    "solve_pulp",
    "export_model",
    "MilpModel",
    "tasks_leximin",
    "tasks_model",
    "tvtsf_milp",
    "tvtsf_online",
    "tvtsf_model",
    "schedule_details",
    "tsf_lp",
    "placement_graph",
    "placement_components",
    "flow_check",
    "maxmin_flow_bound",
    "tv_flow_check",
]

_register_kinds()          # fairalloc.io reads "kind: tasks" and "kind: time-varying" files
