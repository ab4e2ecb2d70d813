"""Instance / Cluster / TaskInstance / TimeVaryingInstance: construction, immutability, bad input."""

from __future__ import annotations

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.errors import InvalidInstanceError


def test_instance_defaults_and_views():
    inst = fa.Instance([[1, 2], [3, 0]])
    assert inst.n_agents == 2 and inst.n_resources == 2
    np.testing.assert_array_equal(inst.capacities, [1, 1])
    np.testing.assert_array_equal(inst.weights, [1, 1])
    assert inst.agent_names == ("user0", "user1") and inst.resource_names == ("r0", "r1")


def test_one_dimensional_demands_mean_one_resource():
    inst = fa.Instance([2, 3, 4], capacities=10)
    assert inst.demands.shape == (3, 1)
    np.testing.assert_array_equal(inst.capacities, [10.0])


def test_instance_is_immutable_and_copies_its_input():
    d = np.array([[1.0, 2.0]])
    inst = fa.Instance(d)
    d[0, 0] = 99.0
    assert inst.demands[0, 0] == 1.0
    with pytest.raises(ValueError):
        inst.demands[0, 0] = 5.0
    with pytest.raises(AttributeError):
        inst.weights = np.ones(1)


def test_replace_and_round_trip():
    inst = fa.Instance([[1, 2], [3, 4]], capacities=[2, 8], weights=[1, 2], agent_names=["a", "b"])
    again = fa.Instance.from_dict(inst.to_dict())
    assert again == inst and again.agent_names == ("a", "b")
    other = inst.replace(weights=[3, 3])
    np.testing.assert_array_equal(other.weights, [3, 3])
    assert inst.weights.tolist() == [1, 2]
    with pytest.raises(TypeError, match="unexpected"):
        inst.replace(bogus=1)


def test_from_tasks_multiplies():
    inst = fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[2, 3], capacities=[9, 18])
    np.testing.assert_array_equal(inst.demands, [[2, 8], [9, 3]])


@pytest.mark.parametrize("bad,needle", [
    ([[1.0, np.nan]], r"demands\[0, 1\]=nan must be finite"),
    ([[1.0, np.inf]], r"demands\[0, 1\]=inf must be finite"),
    ([[1.0, -2.0]], r"demands\[0, 1\]=-2.0 must be >= 0"),
    ([[1.0, 1.0], [0.0, 0.0]], r"demands\[1\]=\[0.0, 0.0\] is all zero"),
    ([[[1.0]]], r"demands must have 1 or 2 dimension"),
    ([["a", 1]], r"demands could not be read"),
])
def test_bad_demands(bad, needle):
    with pytest.raises(InvalidInstanceError, match=needle) as info:
        fa.Instance(bad)
    assert info.value.argument == "demands"
    assert isinstance(info.value, ValueError)


def test_bad_demands_error_carries_index_and_value():
    with pytest.raises(InvalidInstanceError) as info:
        fa.Instance([[1.0, 2.0], [3.0, -4.0]])
    assert info.value.index == (1, 1) and info.value.value == -4.0


@pytest.mark.parametrize("caps,needle", [
    ([1.0, 0.0], r"capacities\[1\]=0.0 must be > 0"),
    ([1.0, -1.0], r"capacities\[1\]=-1.0 must be > 0"),
    ([1.0, np.nan], r"capacities\[1\]=nan must be finite"),
    ([1.0, 1.0, 1.0], r"capacities must have shape \(2,\)"),
])
def test_bad_capacities(caps, needle):
    with pytest.raises(InvalidInstanceError, match=needle):
        fa.Instance([[1, 1]], capacities=caps)


@pytest.mark.parametrize("w,needle", [
    ([1.0, 0.0], r"weights\[1\]=0.0 must be > 0"),
    ([1.0, -3.0], r"weights\[1\]=-3.0 must be > 0"),
    ([1.0], r"weights must have shape \(2,\)"),
])
def test_bad_weights(w, needle):
    with pytest.raises(InvalidInstanceError, match=needle):
        fa.Instance([[1], [1]], weights=w)


def test_bad_names():
    with pytest.raises(InvalidInstanceError, match="agent_names has 1 names, expected 2"):
        fa.Instance([[1], [1]], agent_names=["a"])
    with pytest.raises(InvalidInstanceError, match="contains 'a' twice"):
        fa.Instance([[1], [1]], agent_names=["a", "a"])


def test_cluster_types_and_normalisation():
    c = fa.Cluster.from_types([2, 1], [[4, 16], [8, 32]])
    assert c.n_servers == 3
    np.testing.assert_allclose(c.normalized.sum(axis=0), [1, 1])
    types, of = c.server_types()
    assert types.shape == (2, 2) and of.tolist() == [0, 0, 1]


@pytest.mark.parametrize("caps,needle", [
    ([[1, 1], [0, 0]], r"capacities\[1\]=\[0.0, 0.0\] is all zero"),
    ([[1, 0], [2, 0]], r"resource 1 does not exist"),
    ([[1, -1]], r"must be >= 0"),
])
def test_bad_cluster(caps, needle):
    with pytest.raises(InvalidInstanceError, match=needle):
        fa.Cluster(caps)
