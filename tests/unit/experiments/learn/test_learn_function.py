"""The formula grammar and the learned-function file (fairalloc.experiments.learn.formula, .function)."""

import json
import math

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.errors import InvalidInstanceError
from fairalloc.experiments.learn import Formula, LearnedFunction, paper_function


@pytest.mark.parametrize("text, r, n, s, coeffs, want", [
    ("c1 * sqrt(r) * n + c2 * log(s)", 100, 2, math.e, {"c1": 0.5, "c2": 3}, 0.5 * 10 * 2 + 3),
    ("c1 * r + c2 * sqrt(n) + c3 * log10(s)", 10, 16, 1000, {"c1": 1, "c2": 1, "c3": 1}, 10 + 4 + 3),
    ("-c1 * r ** 2 / n - 1.5", 3, 2, 0, {"c1": 2}, -2 * 9 / 2 - 1.5),
    ("log2(n) + exp(0) + abs(-s)", 0, 8, 2, {}, 3 + 1 + 2),
    ("pdiv(r, n - 4) + psqrt(-s) + plog(0.0001)", 6, 4, 9, {}, 1 + 3 + 0),   # gplearn's protected operators
    ("pdiv(r, n) + plog(-s)", 6, 3, math.e, {}, 2 + 1),
])
def test_values_by_hand(text, r, n, s, coeffs, want):
    assert Formula(text)(r, n, s, coeffs)[()] == pytest.approx(want, rel=1e-14)


@pytest.mark.parametrize("text, why", [
    ("__import__('os')", "only the functions"),
    ("r.real", "Attribute expressions are not allowed"),
    ("x + r", "name 'x' is not allowed"),
    ("lambda: 1", "Lambda expressions"),
    ("r if n else s", "IfExp expressions"),
    ("r < n", "Compare expressions"),
    ("'a'", "is not a number"),
    ("True + r", "is not a number"),
    ("r[0]", "Subscript expressions"),
    ("sqrt(r, n)", "sqrt takes 1 positional argument"),
    ("pdiv(r)", "pdiv takes 2 positional arguments"),
    ("log(x=r)", "log takes 1"),
    ("r // n", "operator FloorDiv is not allowed"),
    ("r +", "is not an expression"),
    ("(" * 300 + "r" + ")" * 300, "formula="),
    ("r" + " + r" * 2000, "longer than"),
])
def test_anything_outside_the_grammar_is_refused(text, why):
    with pytest.raises(InvalidInstanceError, match=why.replace("(", r"\(")) as e:
        Formula(text)
    assert e.value.argument == "formula"


def test_coefficients_must_match_and_evaluation_broadcasts():
    f = Formula("c1 * r + c10 * n + c2")
    assert f.coefficients == ("c1", "c2", "c10") and f.variables == ("r", "n")
    out = f(np.array([[1.0], [2.0]]), [1.0, 2.0, 3.0], 0.0, {"c1": 1, "c2": 0, "c10": 10})
    assert out.shape == (2, 3) and out.tolist() == [[11, 21, 31], [12, 22, 32]]
    with pytest.raises(InvalidInstanceError, match=r"missing \['c10'\]"):
        f(1, 1, 1, {"c1": 1, "c2": 1})
    with pytest.raises(InvalidInstanceError, match=r"not used \['c3'\]"):
        f(1, 1, 1, {"c1": 1, "c2": 1, "c10": 1, "c3": 1})
    # outside a function's domain: NaN or inf, not an exception
    assert np.isnan(Formula("log(r - 5)")(1, 1, 1)).all() and np.isinf(Formula("r / (n - 1)")(1, 1, 1)).all()


# Table 1 of the paper, typed from the paper (not imported): F1 = c1 sqrt(r) c2 n + c3 log10 s,
# F2 = c1 r + c2 sqrt(n) + c3 log10 s (the base: fairalloc.sim.policies.queue's docstring), r and s at
# least 1 as fairalloc's queue policies take them.
def _f1_by_hand(r, n, s):
    return 0.0001352 * np.sqrt(np.maximum(r, 1)) * 0.2765352 * n + 0.0071470 * np.log10(np.maximum(s, 1))


def _f2_by_hand(r, n, s):
    return 0.0000002 * np.maximum(r, 1) + 0.0003207 * np.sqrt(n) + 0.0069554 * np.log10(np.maximum(s, 1))


def test_paper_functions_are_table_1():
    wl = fa.workloads.lublin(500, nodes=256, rng=3)
    r, n, s = wl.run_time, wl.processors, wl.submit
    np.testing.assert_allclose(paper_function("F1")(r, n, s), _f1_by_hand(r, n, s), rtol=1e-14)
    np.testing.assert_allclose(paper_function("F2")(r, n, s), _f2_by_hand(r, n, s), rtol=1e-14)


def test_paper_functions_give_the_priorities_of_the_shipped_f1_f2():
    # Consistency check with fairalloc's F1/F2 queue policies (the spec is the paper's formula, above):
    # the same values, so the same start order, on sampled Lublin jobs (submit times up to 30 days).
    from fairalloc.sim.policies.queue import f1_score, f2_score

    wl = fa.workloads.lublin(days=30, nodes=256, rng=8)
    est, n, s = wl.requested_time, wl.processors, wl.submit
    for name, shipped in (("F1", f1_score), ("F2", f2_score)):
        ours = paper_function(name)(est, n, s)
        np.testing.assert_allclose(ours, shipped(est, n, s), rtol=1e-12)
        assert (paper_function(name).order(est, n, s) == np.argsort(shipped(est, n, s), kind="stable")).all()


def test_file_round_trip_and_provenance(tmp_path):
    f = LearnedFunction("c1 * sqrt(r) * n + c2 * log(s)", {"c2": 0.007, "c1": 3.7e-5}, name="mine",
                        provenance={"states": 10, "trials": 250000, "seed": 1, "workload": {"model": "lublin"}})
    path = f.save(tmp_path / "mine.json")
    data = json.loads(path.read_text())
    assert data["format"] == "fairalloc.learned-priority" and data["version"] == 1
    assert list(data["coefficients"]) == ["c1", "c2"] and data["lower_first"] is True
    g = LearnedFunction.load(path)
    assert g.formula == f.formula and g.coefficients == f.coefficients and g.provenance == f.provenance
    x = (np.array([10.0, 3600.0]), np.array([4, 64]), np.array([0.0, 86400.0]))
    np.testing.assert_array_equal(g(*x), f(*x))


@pytest.mark.parametrize("change, why", [
    ({"format": "other"}, "format='other'"),
    ({"version": 2}, "version=2"),
    ({"formula": 3}, "field 'formula'"),
    ({"coefficients": {"c1": "x", "c2": 1}}, r"coefficients\['c1'\]='x' is not a number"),
    ({"coefficients": {"c1": float("inf"), "c2": 1}}, "must be finite"),
    ({"coefficients": {"c1": 1}}, r"missing \['c2'\]"),
    ({"formula": "open('x')"}, "only the functions"),
    ({"lower_first": "yes"}, "lower_first='yes'"),
])
def test_bad_files_are_refused(tmp_path, change, why):
    data = paper_function("F1").to_dict()
    data["formula"] = "c1 * r + c2 * s"
    data["coefficients"] = {"c1": 1.0, "c2": 2.0}
    data.update(change)
    p = tmp_path / "f.json"
    p.write_text(json.dumps(data))
    with pytest.raises(InvalidInstanceError, match=why):
        LearnedFunction.load(p)


def test_not_json_and_missing_file(tmp_path):
    p = tmp_path / "f.json"
    p.write_text("{not json")
    with pytest.raises(InvalidInstanceError, match="not a JSON file"):
        LearnedFunction.load(p)
    with pytest.raises(FileNotFoundError):
        LearnedFunction.load(tmp_path / "none.json")
    with pytest.raises(InvalidInstanceError, match="name='F3'"):
        paper_function("F3")
