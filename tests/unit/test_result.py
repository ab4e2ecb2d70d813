"""AllocationResult: the public constructors and the per-user table."""

import numpy as np
import pytest

import fairalloc as fa


def test_to_frame_columns_are_singular_nouns():
    # DRF on <1, 2>, <2, 1> (capacities 1): dominant shares 2/3 each, allocations (1/3, 2/3), (2/3, 1/3)
    r = fa.drf(fa.Instance([[1, 2], [2, 1]]))
    frame = r.to_frame(resource_names=["cpu", "mem"])
    assert list(frame.columns) == ["alloc[cpu]", "alloc[mem]", "dominant_share", "level", "utility", "share"]
    np.testing.assert_allclose(frame["utility"], [1 / 3, 1 / 3])


def test_from_arrays_adopts_without_copy_and_checks_fields():
    a = np.ones((2, 1))
    r = fa.AllocationResult.from_arrays(status=fa.Status.OPTIMAL, mechanism="drf", method="waterfill",
                                        allocation=a)
    assert r.allocation is a and not a.flags.writeable           # handed over, now read-only
    b = np.ones((2, 1))
    r2 = fa.AllocationResult(status="optimal", mechanism="drf", method="waterfill", allocation=b)
    assert r2.allocation is not b and b.flags.writeable            # the constructor copies
    assert r.status is fa.Status.OPTIMAL and isinstance(r2.status, fa.Status)
    with pytest.raises(TypeError, match="unknown AllocationResult field"):
        fa.AllocationResult.from_arrays(status="optimal", mechanism="drf", method="x", allocations=a)
