"""Properties of the pooled divisible mechanisms on random instances (hypothesis).

Instances include zero demands, ties, weights, commitments and (where no LP is involved) extreme
magnitudes. Every property follows from the definition of Eq. 4/5 (SDRF paper) and DRF:
- the sweep and the iterated LPs compute the same allocation;
- feasibility: no resource over capacity;
- bottleneck (SDRF Prop. 1): every user is satisfied or needs a saturated resource;
- SDRF with zero commitments is DRF; with one resource it is stateful max-min;
- the allocation is proportional to the demand vector (non-wasteful bundles).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import fairalloc as fa
from fairalloc import shares


@st.composite
def pooled(draw, *, max_n=8, max_m=3, min_m=1, magnitudes=(1e-3, 1e3), commitments=True, weights=True):
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(min_m, max_m))
    lo, hi = magnitudes
    vals = st.floats(lo, hi, allow_nan=False, allow_infinity=False)
    # a few repeated values produce ties; zeros are allowed but every row keeps one positive entry
    pool = draw(st.lists(vals, min_size=1, max_size=4))
    entry = st.one_of(st.sampled_from(pool), vals, st.just(0.0))
    d = np.array(draw(st.lists(st.lists(entry, min_size=m, max_size=m), min_size=n, max_size=n)))
    for i in range(n):
        if not (d[i] > 0).any():
            d[i, draw(st.integers(0, m - 1))] = draw(vals)
    caps = np.array(draw(st.lists(st.floats(0.5, 20), min_size=m, max_size=m)))
    w = np.array(draw(st.lists(st.sampled_from([0.5, 1.0, 1.0, 2.0, 3.0]), min_size=n, max_size=n))) if weights and draw(st.booleans()) else None
    c = None
    if commitments and draw(st.booleans()):
        cpool = st.one_of(st.just(0.0), st.floats(0, 0.5))
        c = np.array(draw(st.lists(st.lists(cpool, min_size=m, max_size=m), min_size=n, max_size=n)))
    return fa.Instance(d, capacities=caps, weights=w), c


def _norm(inst, alloc):
    return shares.normalized_demands(alloc, inst.capacities)


@given(pooled())
def test_waterfill_equals_lp(case):
    inst, c = case
    a = fa.sdrf(inst, c)
    b = fa.sdrf(inst, c, method="lp")
    assert b.status is fa.Status.OPTIMAL
    np.testing.assert_allclose(_norm(inst, b.allocation), _norm(inst, a.allocation), rtol=1e-7, atol=1e-8)


@settings(max_examples=10)
@given(pooled(max_n=200, max_m=3))
def test_waterfill_equals_lp_many_users(case):
    inst, c = case
    a = fa.sdrf(inst, c)
    b = fa.sdrf(inst, c, method="lp")
    np.testing.assert_allclose(_norm(inst, b.allocation), _norm(inst, a.allocation), rtol=1e-7, atol=1e-8)


def _check_feasible_and_bottleneck(inst, r, atol=1e-9):
    o = _norm(inst, r.allocation)
    a = inst.normalized_demands
    usage = o.sum(axis=0)
    assert np.all(usage <= 1 + atol), usage
    assert np.all(o >= -atol) and np.all(o <= a * (1 + 1e-12) + atol)
    satisfied = r.utilities >= 1 - 1e-9
    saturated = usage >= 1 - 1e-9
    for i in np.flatnonzero(~satisfied):
        assert (saturated & (a[i] > 0)).any(), f"user {i} neither satisfied nor bottlenecked"
    # bundles proportional to demands: o_i = u_i * a_i
    np.testing.assert_allclose(o, r.utilities[:, None] * a, rtol=1e-9, atol=1e-12)


@given(pooled(max_n=200, magnitudes=(1e-9, 1e9)))
def test_feasible_bottleneck_proportional_extreme_magnitudes(case):
    inst, c = case
    _check_feasible_and_bottleneck(inst, fa.sdrf(inst, c))
    _check_feasible_and_bottleneck(inst, fa.drf(inst))


@given(pooled(commitments=False))
def test_sdrf_with_zero_commitments_is_drf(case):
    inst, _ = case
    a = fa.sdrf(inst, np.zeros((inst.n_agents, inst.n_resources)))
    b = fa.drf(inst)
    np.testing.assert_array_equal(a.allocation, b.allocation)


@given(pooled(max_m=1))
def test_one_resource_sdrf_is_stateful_max_min(case):
    inst, c = case
    a = fa.sdrf(inst, c)
    b = fa.max_min(inst, None if c is None else c[:, 0])
    np.testing.assert_allclose(a.allocation, b.allocation, rtol=1e-12, atol=1e-15)


@given(pooled(max_m=1))
def test_stateful_max_min_commitment_adjusted_sharing_incentive(case):
    """SDRF Section 4.3: a user's allocation is at least min(demand, fair share - commitment)
    (weighted: w_i/sum(w) - c_i/w_i... here with unit weights only)."""
    inst, c = case
    inst = inst.replace(weights=np.ones(inst.n_agents))
    c = np.zeros((inst.n_agents, 1)) if c is None else c
    r = fa.max_min(inst, c[:, 0])
    o = _norm(inst, r.allocation)[:, 0]
    a = inst.normalized_demands[:, 0]
    bound = np.minimum(a, np.maximum(0.0, 1.0 / inst.n_agents - c[:, 0]))
    assert np.all(o >= bound - 1e-9)


@given(pooled(), st.integers(0, 2**32 - 1))
def test_permuting_users_permutes_the_allocation(case, seed):
    inst, c = case
    perm = np.random.default_rng(seed).permutation(inst.n_agents)
    c = np.zeros((inst.n_agents, inst.n_resources)) if c is None else c
    a = fa.sdrf(inst, c)
    b = fa.sdrf(fa.Instance(inst.demands[perm], inst.capacities, inst.weights[perm]), c[perm])
    np.testing.assert_allclose(b.allocation, a.allocation[perm], rtol=1e-12, atol=1e-14)
