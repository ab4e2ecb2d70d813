"""Least-squares fits and the held-out ranking (fairalloc.experiments.learn.regression, .forms).

Scores are generated from a known formula plus Gaussian noise of known standard deviation; the
expected coefficients are the generating ones, within 5 standard errors computed from the noise
(linear least squares: cov = sigma^2 (X'X)^-1)."""

import numpy as np
import pandas as pd
import pytest

from fairalloc.errors import InvalidInstanceError
from fairalloc.experiments.learn import (PAPER_FORMS, enumerate_forms, fit_form, fit_forms, split_states,
                                         table1_coefficients, training_states)

SIGMA = 2e-4


@pytest.fixture(scope="module")
def jobs():
    st = training_states(60, rng=21)                         # Lublin queues: realistic r, n, s
    q = slice(st.started, None)
    return pd.DataFrame({"state": np.repeat(np.arange(60), st.queued), "r": st.run_time[:, q].ravel(),
                         "n": st.processors[:, q].ravel().astype(float), "s": st.submit[:, q].ravel()})


def _design(jobs, columns):
    r, n, s = np.maximum(jobs["r"], 1), jobs["n"], np.maximum(jobs["s"], 1)
    env = {"sqrt(r)*n": np.sqrt(r) * n, "log10(s)": np.log10(s), "r": r, "sqrt(n)": np.sqrt(n)}
    return np.column_stack([env[c] for c in columns])


@pytest.mark.parametrize("name, columns", [("F1", ["sqrt(r)*n", "log10(s)"]), ("F2", ["r", "sqrt(n)", "log10(s)"])])
def test_recovers_the_generating_coefficients_of_the_paper_forms(jobs, name, columns):
    true = table1_coefficients(name)                           # Table 1's values as the truth
    X = _design(jobs, columns)
    rng = np.random.default_rng(4)
    y = X @ np.array(list(true.values())) + rng.normal(0, SIGMA, len(jobs))
    fit = fit_form(PAPER_FORMS[name], jobs["r"], jobs["n"], jobs["s"], y)
    se = SIGMA * np.sqrt(np.diag(np.linalg.inv(X.T @ X)))
    got = np.array([fit.coefficients[k] for k in true])
    assert fit.status == "converged" and fit.identifiable
    assert (np.abs(got - np.array(list(true.values()))) < 5 * se).all(), (got, true, se)
    assert fit.train_mae == pytest.approx(SIGMA * np.sqrt(2 / np.pi), rel=0.1)   # E|N(0, s)| = s sqrt(2/pi)


def test_the_printed_f1_is_not_identifiable_but_its_product_is_recovered(jobs):
    true = table1_coefficients("F1")
    X = _design(jobs, ["sqrt(r)*n", "log10(s)"])
    y = X @ np.array([true["c1"], true["c2"]]) + np.random.default_rng(5).normal(0, SIGMA, len(jobs))
    fit = fit_form("c1 * sqrt(r) * c2 * n + c3 * log10(s)", jobs["r"], jobs["n"], jobs["s"], y,
                   x0=[1e-3, 1e-2, 1e-2])
    assert fit.status == "converged" and not fit.identifiable
    se = SIGMA * np.sqrt(np.diag(np.linalg.inv(X.T @ X)))
    assert abs(fit.coefficients["c1"] * fit.coefficients["c2"] - true["c1"]) < 5 * se[0]
    assert abs(fit.coefficients["c3"] - true["c2"]) < 5 * se[1]


def test_a_nonlinear_form(jobs):
    # scores = 0.002 n^0.5 + 0.007 log s exactly; from a nearby start the exponent is found
    y = 0.002 * jobs["n"] ** 0.5 + 0.007 * np.log(np.maximum(jobs["s"], 1))
    fit = fit_form("c1 * n ** c2 + c3 * log(s)", jobs["r"], jobs["n"], jobs["s"], y, x0=[0.01, 0.8, 0.01])
    assert fit.status == "converged"
    np.testing.assert_allclose([fit.coefficients[c] for c in ("c1", "c2", "c3")], [0.002, 0.5, 0.007], rtol=1e-6)


def test_limit_and_failure_are_statuses_not_crashes(jobs):
    y = 0.002 * jobs["n"] ** 0.5 + 0.007 * np.log(np.maximum(jobs["s"], 1))
    stopped = fit_form("c1 * n ** c2 + c3 * log(s)", jobs["r"], jobs["n"], jobs["s"], y, x0=[1, 1, 1], max_nfev=2)
    assert stopped.status == "iteration_limit" and stopped.success
    start_mae = np.mean(np.abs(jobs["n"] + np.log(np.maximum(jobs["s"], 1)) - y))
    assert stopped.train_mae <= start_mae                       # the best point so far, not the start
    failed = fit_form("c1 * log(n - 1000)", jobs["r"], jobs["n"], jobs["s"], y)
    assert failed.status == "failed" and not failed.success and "not finite" in failed.message
    assert np.isnan(failed.train_mae)
    with pytest.raises(InvalidInstanceError, match="failed"):
        failed.function()


def test_ranking_on_held_out_states(jobs):
    true = table1_coefficients("F2")
    y = _design(jobs, ["r", "sqrt(n)", "log10(s)"]) @ np.array(list(true.values()))
    t = jobs.assign(score=y + np.random.default_rng(6).normal(0, SIGMA, len(jobs)))
    forms = {**PAPER_FORMS, "bad": "c1 * log(n - 1000)", "r + n + s": "c1 * r + c2 * n + c3 * s"}
    ranking = fit_forms(t, forms, rng=7)
    assert ranking.best.name == "F2"
    assert [f.name for f in ranking.fits][-1] == "bad" and ranking["bad"].status == "failed"
    assert set(ranking.train_states).isdisjoint(ranking.test_states)
    assert len(ranking.test_states) == 15 and ranking.best.n_test == 15 * 32
    # held-out error of the true form: the noise, E|N(0, s)| = s sqrt(2/pi)
    assert ranking.best.test_mae == pytest.approx(SIGMA * np.sqrt(2 / np.pi), rel=0.15)
    te = t[t.state.isin(ranking.test_states)].score
    tr = t[~t.state.isin(ranking.test_states)].score
    assert ranking.baseline_mae == pytest.approx(np.mean(np.abs(te - tr.mean())), rel=1e-12)
    table = ranking.table()
    assert list(table["rank"]) == [1, 2, 3, 4] and table["test_mae"].iloc[0] == ranking.best.test_mae
    f = ranking.best.function(provenance={"seed": 7})
    assert f.provenance["fit"]["form"] == "F2" and f.provenance["seed"] == 7


def test_default_family_and_weights(jobs):
    fam = enumerate_forms()
    assert len(fam) == 72 and "sqrt(r) * n + log10(s)" in fam and "r + sqrt(n) + log10(s)" in fam
    assert fam["log10(r) + log10(n) * s"] == "(c1 * log10(r) + c2 * log10(n)) * s"
    assert fam["r * n * log10(s)"] == "c1 * r * n * log10(s)"
    y = _design(jobs, ["sqrt(r)*n", "log10(s)"]) @ np.array(list(table1_coefficients("F1").values()))
    ranking = fit_forms(jobs.assign(score=y), rng=1, weights="rn")
    assert len(ranking.fits) == 72 and ranking.best.name == "F1" and ranking.best.test_mae < 1e-12


def test_bad_input(jobs):
    with pytest.raises(InvalidInstanceError, match="no coefficients"):
        fit_form("r + n", [1], [1], [1], [1])
    with pytest.raises(InvalidInstanceError, match=r"score\[1\]=nan must be finite"):
        fit_form("c1 * r", [1, 2], [1, 1], [1, 1], [1, np.nan])
    with pytest.raises(InvalidInstanceError, match="lacks column"):
        fit_forms(jobs)
    with pytest.raises(InvalidInstanceError, match="at least 2"):
        split_states([0])
    with pytest.raises(InvalidInstanceError, match="test_fraction=1"):
        split_states([0, 1], test_fraction=1)
    with pytest.raises(InvalidInstanceError, match="r_terms"):
        enumerate_forms(r_terms=["n"])
