"""Priority functions learned by simulation: the learned-priorities method (issue 29).

The method (Carastan-Santos and de Camargo; ``shared/papers/learned_priorities.md``): draw training
states (S, Q) from a workload (:mod:`.states`), simulate many random permutations of each queue after
S (:mod:`.trials` on the simulator's compiled loop; :mod:`.reference`, plain Python, is the oracle),
score each queued job by how good the trials that started with it were (Eqs. 2-3, :mod:`.scores`),
fit forms f(r, n, s) to the scores by least squares and rank them on held-out states (:mod:`.forms`,
:mod:`.regression`, and a symbolic search, :mod:`.symbolic`), and keep the best as a file
(:class:`~fairalloc.sim.policies.learned.LearnedFunction`, in the formula grammar of
:mod:`fairalloc.sim.policies.formula`), which schedules as ``policy="learned:FILE"``. The whole
method runs as a resumable Dask sweep, and its evaluation against the classic policies with and
without EASY, in :mod:`.pipeline` (``fairalloc learn train``, ``fairalloc learn evaluate``).

>>> from fairalloc.experiments import learn
>>> st = learn.training_states(6, started=4, queued=6, processors=64, rng=0)
>>> table = learn.score_states(st, 200, rng=1)
>>> ranking = learn.fit_forms(table, rng=2)
>>> ranking.best.status in learn.STATUSES, sorted(table.columns) == sorted(learn.SCORE_COLUMNS)
(True, True)
"""

from ...sim.policies.formula import Formula
from .forms import PAPER_FORMS, enumerate_forms, table1_coefficients
from ...sim.policies.learned import LearnedFunction, paper_function, prepare_inputs
from .reference import reference_schedule, reference_trials
from .regression import STATUSES, Fit, Ranking, fit_form, fit_forms, split_states
from .scores import SCORE_COLUMNS, job_scores, random_permutations, read_scores, score_states
from .states import States, training_states

__all__ = ["Formula", "PAPER_FORMS", "enumerate_forms", "table1_coefficients", "LearnedFunction", "paper_function",
           "prepare_inputs", "reference_schedule", "reference_trials", "STATUSES", "Fit", "Ranking", "fit_form",
           "fit_forms", "split_states", "SCORE_COLUMNS", "job_scores", "random_permutations", "read_scores", "score_states", "States",
           "training_states", "symbolic_search"]


def __getattr__(name: str):
    # gplearn (an optional extra) is imported only when the search is asked for
    if name == "symbolic_search":
        from .symbolic import symbolic_search
        return symbolic_search
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
