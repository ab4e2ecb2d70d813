"""The hypothesis strategies build valid instances, honour their options, and shrink to small examples."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

import fairalloc as fa
from proofs_check import strategies as S
from proofs_check._inputs import server_tasks
from proofs_check.claims import Domain


@settings(max_examples=40)
@given(S.pooled_instances(zero_demands=False, caps=False, n_agents=(2, 5), n_resources=(2, 3)))
def test_positive_uncapped_instances(inst):
    assert (inst.demands > 0).all()
    assert (fa.shares.dominant_shares(inst.demands, inst.capacities) > 1).all()   # nobody can be satisfied
    assert 2 <= inst.n_agents <= 5 and 2 <= inst.n_resources <= 3


@settings(max_examples=40)
@given(S.pooled_instances(weights=True, magnitudes="extreme"))
def test_weighted_extreme_instances_are_valid(inst):
    assert (inst.weights >= 1).all() and np.isfinite(inst.demands).all()


@settings(max_examples=30)
@given(st.data())
def test_task_instances_and_integer_allocations_are_feasible(data):
    ti = data.draw(S.task_instances(n_agents=(1, 4), n_servers=(1, 3)))
    x = data.draw(S.integer_allocations(ti))
    server_tasks(ti, x)                                     # raises if infeasible
    assert (ti.fits.max(axis=1) >= 1).all()


@settings(max_examples=20)
@given(S.time_varying_instances())
def test_time_varying_instances(tv):
    assert tv.n_slots >= 1 and (tv.durations >= 1).all()


@settings(max_examples=30)
@given(S.repeated_games(changing=False, absent=False, caps=False))
def test_constant_games(g):
    assert (g.tasks > 0).all()
    assert np.all(g.task_demands == g.task_demands[0:1])


@settings(max_examples=30)
@given(st.data())
def test_misreports_are_valid_reports(data):
    inst = data.draw(S.pooled_instances())
    i = data.draw(st.integers(0, inst.n_agents - 1))
    lie = data.draw(S.misreports(inst, i))
    dem = np.array(inst.demands)
    dem[i] = lie["demands"]
    fa.Instance(dem, inst.capacities)                       # a valid instance


@settings(max_examples=20)
@given(S.cases(Domain(commitments=True, zero_demands=True, caps=True)))
def test_cases_carry_commitments(case):
    assert case.commitments.shape == (case.instance.n_agents, case.instance.n_resources)


def test_shrinks_to_minimal_examples():
    cfg = settings(database=None, max_examples=200, suppress_health_check=list(HealthCheck))
    inst = find(S.pooled_instances(), lambda i: i.n_agents >= 3, settings=cfg)
    assert inst.n_agents == 3 and inst.n_resources == 1
    g = find(S.repeated_games(), lambda g: g.n_periods >= 3, settings=cfg)
    assert g.n_periods == 3 and g.n_agents == 2 and g.n_resources == 1


@pytest.mark.parametrize("factory, kw", [
    (S.pooled_instances, {"n_agents": (3, 2)}),
    (S.pooled_instances, {"n_resources": 0}),
    (S.pooled_instances, {"magnitudes": "huge"}),
    (S.task_instances, {"max_tasks": 0}),
    (S.repeated_games, {"n_periods": "three"}),
])
def test_bad_options_are_rejected(factory, kw):
    with pytest.raises(InvalidArgument):
        find(factory(**kw), lambda x: True)
