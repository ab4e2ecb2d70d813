"""HiGHS's MIP presolve (highspy 1.16) ends some small, feasible count MILPs of the leximin driver with
"Solve error" or "Infeasible", or says "Optimal" with an objective (2, equal to its bound) that the
solution it returns does not have (it hands back the MIP start, objective 1; TSF with the default
warm start); the backend then solves once more with presolve off (stats ``retried``). The instance is ``fairalloc compare``'s ``random-tasks-34`` (seed 0), where CBC and
CP-SAT prove the leximin optimum: the expected sorted share vectors come from those two backends,
independent solvers of the same program."""

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.experiments.compare import random_instances

INSTALLED = set(fa.available_solvers("milp"))


def _instance():
    return dict(random_instances(40, 12, rng=0))["random-tasks-34"]


def _sorted(r):
    return np.sort(r.shares if r.shares is not None else r.dominant_shares)


@pytest.mark.parametrize("mechanism, kw", [("drf", {}), ("drf", {"warm_start": False}),
                                           ("tsf", {"warm_start": False}), ("tsf", {})])
def test_highs_proves_what_cbc_and_cpsat_prove(mechanism, kw):
    if "highs" not in INSTALLED:
        pytest.skip("HiGHS not installed")
    ti = _instance()
    others = [fa.exact.tasks_leximin(ti, mechanism=mechanism, solver=s) for s in ("cbc", "cpsat") if s in INSTALLED]
    if not others:
        pytest.skip("neither CBC nor CP-SAT installed to give the reference")
    for o in others:
        assert o.status is fa.Status.OPTIMAL
    r = fa.exact.tasks_leximin(ti, mechanism=mechanism, solver="highs", **kw)
    assert r.status is fa.Status.OPTIMAL, r.message
    for o in others:
        assert np.allclose(_sorted(r), _sorted(o), atol=1e-9)
