"""proofs_check: fairness-axiom checkers with witnesses, manipulation searches and hypothesis strategies.

* :mod:`proofs_check.axioms`: predicates (sharing incentive, envy-freeness, EF1, bottleneck,
  non-wastefulness, Pareto efficiency, population and resource monotonicity) returning
  :class:`Verdict` objects with JSON witnesses, on pooled instances, tasks on servers and
  time-varying schedules (over the horizon or per slot); no hypothesis import.
* :mod:`proofs_check.misreports`: searches for profitable lies (stage game) and deviations
  (repeated game with SDRF commitments, :mod:`proofs_check.repeated`).
* :mod:`proofs_check.claims`: the table of ``axioms.md`` as data (and ``FINDINGS``, the T cells refuted);
  :mod:`proofs_check.variants`: re-parametrisations used to tell causes apart (TSF without floors).
* :mod:`proofs_check.strategies` (needs hypothesis), :mod:`proofs_check.campaign` (``fairalloc
  check``), :mod:`proofs_check.replay` (re-verify a witness from its JSON).

Imports :mod:`fairalloc`; fairalloc never imports this package (only its command line does).
"""

from .axioms import (has_sharing_incentive, is_bottleneck, is_ef1, is_envy_free, is_non_wasteful,
                     is_pareto_efficient, is_population_monotone, is_resource_monotone)
from .misreports import find_profitable_deviation, find_profitable_misreport
from .repeated import RepeatedGame, SDRFDynamics, StatelessDynamics
from .replay import replay
from .verdict import Verdict

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
    "replay",
]
