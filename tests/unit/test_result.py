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


def test_json_is_strict_with_infinities_inside_arrays(tmp_path):
    # An infinity inside an array field used to reach json.dumps as a float and come out as the
    # non-standard token Infinity (invalid JSON for strict parsers), while a scalar infinity became
    # "inf". Both are now the strings "inf" / "-inf", as the to_dict docstring says; NaN becomes null.
    import json

    r = fa.AllocationResult.from_arrays(status=fa.Status.OPTIMAL, mechanism="drf", method="waterfill",
                                        allocation=np.array([[np.inf, 1.0], [-np.inf, np.nan]]))

    def refuse(token):
        raise ValueError(f"non-standard JSON token {token}")

    d = json.loads(r.to_json(), parse_constant=refuse)
    assert d["allocation"] == [["inf", 1.0], ["-inf", None]]
    path = tmp_path / "r.json"
    fa.io.write_json(r.to_dict(), path)
    assert json.loads(path.read_text(), parse_constant=refuse)["allocation"][0][0] == "inf"
