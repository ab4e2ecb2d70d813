"""The gplearn search (fairalloc.experiments.learn.symbolic); skipped, saying why, without gplearn."""

import numpy as np
import pandas as pd
import pytest

from fairalloc.experiments.learn import Formula, fit_forms
from fairalloc.experiments.learn.symbolic import available, program_formula, symbolic_search

pytestmark = pytest.mark.skipif(not available(), reason="gplearn is not installed (pip install 'fairalloc[learn]')")


def test_translation_matches_gplearns_protected_operators_by_hand():
    # gplearn's definitions: div(a, b) = a / b if |b| > 0.001 else 1; sqrt(x) = sqrt(|x|);
    # log(x) = log|x| if |x| > 0.001 else 0.
    f = Formula(program_formula("add(mul(X0, 0.5), div(sqrt(sub(X1, 20.0)), log(X2)))"))
    r, n, s = np.array([4.0, 4.0, 4.0]), np.array([16.0, 29.0, 16.0]), np.array([np.e, np.e**2, 1.0])
    # 2 + sqrt(4)/1 = 4;  2 + sqrt(9)/2 = 3.5;  log(1) = 0 -> division gives 1: 2 + 1 = 3
    np.testing.assert_allclose(f(r, n, s), [4.0, 3.5, 3.0], rtol=1e-14)


def test_translation_gives_gplearns_own_predictions():
    from gplearn.genetic import SymbolicRegressor

    rng = np.random.default_rng(0)
    X = np.column_stack([rng.uniform(1, 1e3, 300), rng.integers(1, 64, 300), rng.uniform(1, 1e4, 300)])
    y = 1e-3 * np.sqrt(X[:, 0]) * X[:, 1] - np.log(X[:, 2])
    est = SymbolicRegressor(population_size=200, generations=3, random_state=1, n_jobs=1,
                            function_set=("add", "sub", "mul", "div", "sqrt", "log"))
    est.fit(X, y)
    # the prefix list (full precision, as gplearn's examples read est._program) gives its predictions;
    # the printed text rounds constants to 3 decimals
    f = Formula(program_formula(est._program.program))
    np.testing.assert_allclose(f(X[:, 0], X[:, 1], X[:, 2]), est.predict(X), rtol=1e-12, atol=1e-12)
    g = Formula(program_formula(str(est)))
    np.testing.assert_allclose(g(X[:, 0], X[:, 1], X[:, 2]), est.predict(X), rtol=1e-2)


def test_search_is_ranked_with_the_forms():
    rng = np.random.default_rng(2)
    t = pd.DataFrame({"state": np.repeat(np.arange(10), 16), "r": rng.uniform(1, 1e4, 160),
                      "n": rng.integers(1, 128, 160).astype(float), "s": rng.uniform(10, 1e5, 160)})
    t["score"] = 4e-5 * np.sqrt(t.r) * t.n + 7e-3 * np.log(t.s)
    ranking = fit_forms(t, {"F1": "c1 * sqrt(r) * n + c2 * log(s)"}, rng=3,
                        symbolic={"population_size": 200, "generations": 2})
    sym = ranking["symbolic (gplearn)"]
    assert ranking.best.name == "F1" and sym.n_test == len(ranking.test_states) * 16
    assert np.isfinite(sym.test_mae) and sym.extra["program"]
    train = t[t.state.isin(ranking.train_states)]
    assert sym.coefficients["c1"] == pytest.approx(train.score.mean())
    assert sym.coefficients["c2"] == pytest.approx(train.score.std(ddof=0))
    f = sym.function()
    np.testing.assert_allclose(f(t.r, t.n, t.s), sym.predict(t.r, t.n, t.s))
    assert f.provenance["fit"]["program"] == sym.extra["program"]


def test_repeatable_with_a_seed():
    rng = np.random.default_rng(4)
    t = pd.DataFrame({"r": rng.uniform(1, 100, 50), "n": rng.integers(1, 8, 50), "s": rng.uniform(1, 100, 50)})
    t["score"] = t.r / t.n
    a = symbolic_search(t, rng=5, population_size=100, generations=2)
    b = symbolic_search(t, rng=5, population_size=100, generations=2)
    assert a.formula == b.formula and a.train_mae == b.train_mae
