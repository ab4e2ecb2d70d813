"""proofs_check: fairness-axiom checkers with witnesses, manipulation searches and hypothesis strategies.

* :mod:`proofs_check.axioms`: predicates (sharing incentive, envy-freeness, EF1, bottleneck,
  non-wastefulness, Pareto efficiency, population and resource monotonicity) returning
  :class:`Verdict` objects with JSON witnesses, on pooled instances, tasks on servers and
  time-varying schedules (over the horizon or per slot); no hypothesis import.
* :mod:`proofs_check.misreports`: searches for profitable lies (stage game) and deviations
  (repeated game with SDRF commitments, :mod:`proofs_check.repeated`).
* :mod:`proofs_check.claims`: the table of ``axioms.md`` as data (and ``FINDINGS``, the T cells refuted);
  :mod:`proofs_check.variants`: re-parametrisations used to tell causes apart (TSF without floors);
  :mod:`proofs_check.production`: the production policies' pooled forms as the table calls them.
* :mod:`proofs_check.strategies` (needs hypothesis), :mod:`proofs_check.campaign` (``fairalloc
  check``), :mod:`proofs_check.replay` (re-verify a witness from its JSON).

Imports :mod:`fairalloc`; fairalloc never imports this package (only its command line does).
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING

if TYPE_CHECKING:                       # what the names are, for type checkers and documentation tools
    from .axioms import (has_sharing_incentive, is_bottleneck, is_ef1, is_envy_free, is_non_wasteful,
                         is_pareto_efficient, is_population_monotone, is_resource_monotone)
    from .misreports import find_profitable_deviation, find_profitable_misreport
    from .repeated import RepeatedGame, SDRFDynamics, StatelessDynamics, UsageDynamics
    from .replay import replay
    from .verdict import Verdict

#: Public name -> its module; imported on first access (PEP 562), so that ``fairalloc check --help``
#: and ``fairalloc --help`` (which load :mod:`proofs_check.cli`) do not import the checkers.
_LAZY: dict[str, str] = {
    **{name: "axioms" for name in ("has_sharing_incentive", "is_bottleneck", "is_ef1", "is_envy_free",
                                   "is_non_wasteful", "is_pareto_efficient", "is_population_monotone",
                                   "is_resource_monotone")},
    "find_profitable_deviation": "misreports", "find_profitable_misreport": "misreports",
    "RepeatedGame": "repeated", "SDRFDynamics": "repeated", "StatelessDynamics": "repeated",
    "UsageDynamics": "repeated",
    "replay": "replay", "Verdict": "verdict",
}


def __getattr__(name: str):
    try:
        module = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'proofs_check' has no attribute {name!r}") from None
    obj = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = obj
    return obj


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


class _Package(types.ModuleType):
    """``proofs_check.replay`` is the function, as when this package imported it eagerly: the import
    system sets each loaded submodule as an attribute of its package, which would hide it."""

    def __setattr__(self, name: str, value) -> None:
        if name == "replay" and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


__all__ = [
    "Verdict",
    "has_sharing_incentive",
    "is_envy_free",
    "is_ef1",
    "is_bottleneck",
    "is_non_wasteful",
    "is_pareto_efficient",
    "is_population_monotone",
    "is_resource_monotone",
    "find_profitable_misreport",
    "find_profitable_deviation",
    "RepeatedGame",
    "SDRFDynamics",
    "StatelessDynamics",
    "UsageDynamics",
    "replay",
]
