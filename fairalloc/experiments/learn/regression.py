r"""Fit priority forms to the scores by nonlinear least squares; rank them on held-out states.

The paper (Section 2) fits :math:`f(r, n, s)` to the scored jobs "by the method of least squares"
over several nonlinear forms and keeps the best "by the mean absolute distance between the scores
and the function's output". Here a form is a formula of :mod:`.formula` with coefficients
``c1, c2, ...``; :func:`fit_form` solves

.. math::

    \min_c \sum_i \big(w_i\,(f(r_i, n_i, s_i; c) - \mathrm{score}_i)\big)^2

with :func:`scipy.optimize.least_squares` (trust-region reflective, ``x_scale="jac"``; *w* = 1
unless given: the authors' SC'17 code passes ``sigma = 1/(r n)`` to ``curve_fit``, i.e.
:math:`w = r n`). A form linear in its coefficients (every form of :func:`~.forms.enumerate_forms`)
starts from its linear least-squares solution, so the solver only confirms it; any other starts from
``x0`` (default all ones). Inputs go through :func:`~.function.prepare_inputs` (*r*, *s* at least 1),
as they will when the function schedules.

:func:`fit_forms` splits the states at random into training and held-out states (whole states,
so no job of a held-out state is seen in training), fits every form on the training states, and
ranks the forms by the mean absolute error :math:`\frac{1}{|H|}\sum_{i \in H}|f_i - \mathrm{score}_i|`
over the held-out jobs *H*, beside the constant predictor's (:attr:`Ranking.baseline_mae`: a
form that does not beat it has learned nothing about r, n, s). A form whose solver stops at the evaluation limit keeps its best point so
far with status ``"iteration_limit"``; one that fails (non-finite values at the start, a solver
error) gets status ``"failed"``, its message and NaN errors, and is ranked last. Neither stops the
others.

References
----------
.. [1] D. Carastan-Santos, R. Y. de Camargo, learned nonlinear priority functions (workshop paper),
   Section 2.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from ...errors import InvalidInstanceError
from ...rng import as_generator
from ...sim.policies.formula import Formula
from ...sim.policies.learned import LearnedFunction, prepare_inputs

__all__ = ["Fit", "Ranking", "fit_form", "fit_forms", "split_states", "STATUSES"]

logger = logging.getLogger(__name__)

#: What a fit's ``status`` may be.
STATUSES = ("converged", "iteration_limit", "failed")


@dataclass(frozen=True, eq=False)
class Fit:
    """One form fitted to scores.

    Attributes
    ----------
    name : str
        The form's name.
    formula : Formula
    coefficients : dict of str to float
        The best point found (``x0`` when the solver failed before its first step).
    status : {"converged", "iteration_limit", "failed"}
        ``converged``: a least-squares termination test held (scipy ``status`` 1-4);
        ``iteration_limit``: ``max_nfev`` reached, best point so far; ``failed``: see ``message``.
    message : str
        The solver's message (or the error).
    identifiable : bool
        The Jacobian at the solution has full column rank (``False``: some coefficients are not
        determined by the data, e.g. the printed F1's c1 and c2).
    nfev : int
        Residual evaluations.
    train_mae, test_mae : float
        Mean absolute error on the training and held-out jobs (NaN when not computed or failed).
    n_train, n_test : int
        Jobs in each part.
    extra : mapping
        What else the method reports (the symbolic search: its program and settings).

    Examples
    --------
    >>> fit = fit_form("c1 * n", [1.0, 1.0], [1, 3], [1.0, 1.0], [2.0, 6.0], name="linear in n")
    >>> fit.status, fit.success, round(fit.coefficients["c1"], 12), fit.predict(10, 5, 1).round(12).tolist()
    ('converged', True, 2.0, [10.0])
    """

    name: str
    formula: Formula
    coefficients: Mapping[str, float]
    status: str
    message: str
    identifiable: bool
    nfev: int
    train_mae: float
    test_mae: float = float("nan")
    n_train: int = 0
    n_test: int = 0
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def success(self) -> bool:
        """A usable fit: converged or stopped at the limit with finite coefficients."""
        return self.status != "failed" and all(math.isfinite(v) for v in self.coefficients.values())

    def predict(self, r: Any, n: Any, s: Any) -> np.ndarray:
        """The fitted function's values (inputs prepared as when scheduling)."""
        return self.formula(*prepare_inputs(r, n, s), self.coefficients)

    def function(self, *, name: str | None = None, provenance: Mapping[str, Any] | None = None) -> LearnedFunction:
        """This fit as a :class:`~.function.LearnedFunction` (provenance gets the fit's figures).

        Raises
        ------
        InvalidInstanceError
            A failed fit (no coefficients to save).
        """
        if not self.success:
            raise InvalidInstanceError(f"the fit of {self.name!r} failed ({self.message}); nothing to save",
                                       argument="fit", value=self.name)
        prov = dict(provenance or {})
        prov["fit"] = {"form": self.name, "status": self.status, "identifiable": self.identifiable,
                       "train_mae": _json_float(self.train_mae), "test_mae": _json_float(self.test_mae),
                       "train_jobs": self.n_train, "test_jobs": self.n_test, **dict(self.extra)}
        return LearnedFunction(self.formula, self.coefficients, name=name or self.name, provenance=prov)

    def __repr__(self) -> str:
        cs = ", ".join(f"{k}={v:.4g}" for k, v in self.coefficients.items())
        return (f"Fit({self.name!r}, {self.status}, test MAE {self.test_mae:.4g}, train MAE {self.train_mae:.4g}; "
                f"{cs})")


def _json_float(x: float) -> float | None:
    return None if not math.isfinite(x) else float(x)


def _columns(r: Any, n: Any, s: Any, score: Any) -> tuple[np.ndarray, ...]:
    arrays = [np.asarray(x, dtype=float).ravel() for x in (r, n, s, score)]
    k = arrays[0].shape[0]
    for name, a in zip(("r", "n", "s", "score"), arrays):
        if a.shape[0] != k:
            raise InvalidInstanceError(f"{name} has {a.shape[0]} values, r has {k}", argument=name, value=a.shape[0])
        bad = np.flatnonzero(~np.isfinite(a))
        if bad.size:
            raise InvalidInstanceError(f"{name}[{int(bad[0])}]={float(a[bad[0]])!r} must be finite", argument=name,
                                       index=(int(bad[0]),), value=float(a[bad[0]]))
    if k == 0:
        raise InvalidInstanceError("no scored jobs to fit", argument="score", value=0)
    return tuple(arrays)


def _design(formula: Formula, x: tuple[np.ndarray, ...]) -> np.ndarray | None:
    """The columns f(e_k) when ``formula`` is linear in its coefficients (checked at two random
    points), else None."""
    names = formula.coefficients
    if not names:
        return None
    eye = np.eye(len(names))
    cols = np.column_stack([formula(*x, dict(zip(names, e))) for e in eye])
    if not np.isfinite(cols).all():
        return None
    probe = np.random.default_rng(0)
    for _ in range(2):
        c = probe.normal(size=len(names))
        got = formula(*x, dict(zip(names, c)))
        want = cols @ c
        if not np.allclose(got, want, rtol=1e-9, atol=1e-12 * (np.abs(want).max() + 1.0)):
            return None
    return cols


def fit_form(formula: str | Formula, r: Any, n: Any, s: Any, score: Any, *, name: str | None = None,
             x0: Mapping[str, float] | Sequence[float] | None = None, weights: Any = None,
             max_nfev: int | None = None) -> Fit:
    """Least-squares fit of one form to scored jobs (module docstring).

    Parameters
    ----------
    formula : str or Formula
        The form, with coefficients ``c1, c2, ...`` (at least one).
    r, n, s, score : array_like, shape (k,)
        The jobs' run times, processors, submit times and scores (finite).
    name : str, optional
        Label (default: the formula).
    x0 : mapping or sequence of float, optional
        Starting coefficients (default: the linear solution for a form linear in its
        coefficients, else all ones).
    weights : array_like, shape (k,), optional
        Per-job weights on the residuals (default 1).
    max_nfev : int, optional
        Evaluation limit of the solver (scipy's default when None).

    Returns
    -------
    Fit
        With ``train_mae`` on these jobs (``test_mae`` NaN; :func:`fit_forms` fills it).

    Examples
    --------
    Scores made exactly by 2e-5 r + 3e-3 log s are recovered:

    >>> rng = np.random.default_rng(0)
    >>> r, n, s = rng.uniform(10, 1e4, 200), rng.integers(1, 64, 200), rng.uniform(10, 1e5, 200)
    >>> fit = fit_form("c1 * r + c2 * log(s)", r, n, s, 2e-5 * r + 3e-3 * np.log(s))
    >>> fit.status, {k: round(v, 12) for k, v in fit.coefficients.items()}, fit.train_mae < 1e-12
    ('converged', {'c1': 2e-05, 'c2': 0.003}, True)
    """
    from scipy.optimize import least_squares

    f = formula if isinstance(formula, Formula) else Formula(formula)
    names = f.coefficients
    if not names:
        raise InvalidInstanceError(f"formula={f.text!r} has no coefficients to fit (name them c1, c2, ...)",
                                   argument="formula", value=f.text)
    r, n, s, y = _columns(r, n, s, score)
    x = prepare_inputs(r, n, s)
    w = np.ones_like(y) if weights is None else np.asarray(weights, dtype=float).ravel()
    if w.shape != y.shape or not (np.isfinite(w).all() and (w >= 0).all()):
        raise InvalidInstanceError(f"weights must be {y.shape[0]} finite values >= 0", argument="weights",
                                   value=getattr(weights, "shape", None))
    if max_nfev is not None and (isinstance(max_nfev, bool) or not isinstance(max_nfev, (int, np.integer))
                                 or max_nfev < 1):
        raise InvalidInstanceError(f"max_nfev={max_nfev!r} must be an integer >= 1", argument="max_nfev",
                                   value=max_nfev)
    label = name or f.text
    design = _design(f, x)
    if x0 is None:
        if design is not None:
            start = np.linalg.lstsq(design * w[:, None], y * w, rcond=None)[0]
        else:
            start = np.ones(len(names))
    else:
        start = np.array([x0[c] for c in names] if isinstance(x0, Mapping) else list(x0), dtype=float)
        if start.shape != (len(names),):
            raise InvalidInstanceError(f"x0 has {start.size} values; formula uses {list(names)}", argument="x0",
                                       value=start.tolist())

    def residuals(c: np.ndarray) -> np.ndarray:
        return w * (f(*x, dict(zip(names, c))) - y)

    def result(c, status, message, identifiable, nfev) -> Fit:
        coeffs = {k: float(v) for k, v in zip(names, c)}
        pred = f(*x, coeffs)
        mae = float(np.mean(np.abs(pred - y))) if status != "failed" and np.isfinite(pred).all() else float("nan")
        return Fit(label, f, coeffs, status, message, identifiable, int(nfev), mae, n_train=int(y.size))

    try:
        res = least_squares(residuals, start, method="trf", x_scale="jac", max_nfev=max_nfev)
    except (ValueError, FloatingPointError, np.linalg.LinAlgError) as exc:
        logger.info("fit of %s failed: %s", label, exc)
        return result(start, "failed", f"{type(exc).__name__}: {exc}", False, 0)
    if res.status > 0:
        status = "converged"
    elif res.status == 0:
        status = "iteration_limit"
    else:
        status = "failed"
    return result(res.x, status, str(res.message), _full_rank(res.jac), res.nfev)


def _full_rank(jac: Any, tol: float = 1e-6) -> bool:
    """Whether the Jacobian's columns, each scaled to unit length, have a smallest singular value above
    ``tol`` (finite-difference Jacobians carry relative errors near 1e-8, so an exact dependence such
    as the printed F1's c1 and c2 shows up as a singular value of that order, not 0)."""
    jac = np.asarray(jac, dtype=float)
    if not np.isfinite(jac).all():
        return False
    norms = np.linalg.norm(jac, axis=0)
    if (norms == 0).any():
        return False
    return bool(np.linalg.svd(jac / norms, compute_uv=False).min() > tol)


def split_states(states: Sequence[int], *, test_fraction: float = 0.25, rng: Any = None) -> tuple[np.ndarray,
                                                                                                     np.ndarray]:
    """Split state ids at random into training and held-out ids (at least one in each).

    Parameters
    ----------
    states : sequence of int
        State ids (repeats allowed: one per scored job).
    test_fraction : float in (0, 1), default 0.25
        Share held out, rounded, at least one state and at most all but one.
    rng : int or numpy.random.Generator, optional

    Returns
    -------
    train, test : ndarray of int
        Sorted, disjoint, together every id once.

    Examples
    --------
    >>> train, test = split_states(range(8), test_fraction=0.25, rng=0)
    >>> len(train), len(test), sorted(np.concatenate([train, test]).tolist()) == list(range(8))
    (6, 2, True)
    """
    ids = np.unique(np.asarray(list(states)))
    if not 0.0 < test_fraction < 1.0:
        raise InvalidInstanceError(f"test_fraction={test_fraction!r} must be in (0, 1)", argument="test_fraction",
                                   value=test_fraction)
    if ids.size < 2:
        raise InvalidInstanceError(f"{ids.size} state(s): held-out states need at least 2 (one to fit, one to test)",
                                   argument="states", value=int(ids.size))
    k = min(max(1, int(round(test_fraction * ids.size))), ids.size - 1)
    perm = as_generator(rng).permutation(ids)
    return np.sort(perm[k:]), np.sort(perm[:k])


@dataclass(frozen=True, eq=False)
class Ranking:
    """Forms fitted on training states and ranked by held-out mean absolute error.

    Attributes
    ----------
    fits : tuple of Fit
        Best first (failed fits last).
    train_states, test_states : ndarray of int
        The split.
    baseline_mae : float
        Held-out MAE of the constant predictor (the training scores' mean, 1/|Q| when every state
        has |Q| jobs): the figure a form must beat to say anything about r, n, s.

    Examples
    --------
    >>> t = pd.DataFrame({"state": [0, 0, 1, 1, 2, 2], "r": [1, 9, 4, 16, 25, 1], "n": 1, "s": 1})
    >>> t["score"] = np.sqrt(t.r)
    >>> ranking = fit_forms(t, {"sqrt": "c1 * sqrt(r)", "linear": "c1 * r"}, rng=0)
    >>> [f.name for f in ranking.fits], ranking.best.test_mae < 1e-12, len(ranking.test_states)
    (['sqrt', 'linear'], True, 1)
    """

    fits: tuple
    train_states: np.ndarray
    test_states: np.ndarray
    baseline_mae: float = float("nan")

    @property
    def best(self) -> Fit:
        """The form with the lowest held-out error."""
        return self.fits[0]

    def __getitem__(self, name: str) -> Fit:
        for f in self.fits:
            if f.name == name:
                return f
        raise KeyError(name)

    def table(self) -> pd.DataFrame:
        """One row per form: ``rank``, ``name``, ``formula``, ``status``, ``identifiable``,
        ``test_mae``, ``train_mae``, ``nfev``, ``coefficients`` (a dict)."""
        return pd.DataFrame([{"rank": i + 1, "name": f.name, "formula": f.formula.text, "status": f.status,
                              "identifiable": f.identifiable, "test_mae": f.test_mae, "train_mae": f.train_mae,
                              "nfev": f.nfev, "coefficients": dict(f.coefficients)}
                             for i, f in enumerate(self.fits)])


def _table_columns(table: pd.DataFrame) -> None:
    missing = [c for c in ("state", "r", "n", "s", "score") if c not in table]
    if missing:
        raise InvalidInstanceError(f"the scores table lacks column(s) {missing} (score_states writes state, job, r, n, "
                                   "s, score, first)", argument="table", value=list(table.columns))


def fit_forms(table: pd.DataFrame, forms: Mapping[str, str] | None = None, *, test_fraction: float = 0.25,
              rng: Any = None, weights: str | None = None, max_nfev: int | None = None, symbolic: Any = False,
              progress: bool = False) -> Ranking:
    """Fit every form on training states and rank them by held-out MAE (module docstring).

    Parameters
    ----------
    table : pandas.DataFrame
        Scored jobs with columns ``state``, ``r``, ``n``, ``s``, ``score``
        (:func:`~.scores.score_states`).
    forms : mapping of name to formula, optional
        Default: the paper's F1 and F2 (:data:`~.forms.PAPER_FORMS`) and the enumerated family
        (:func:`~.forms.enumerate_forms`); a structure listed twice is fitted once, under the
        paper's name.
    test_fraction : float in (0, 1), default 0.25
        Share of the states held out.
    rng : int or numpy.random.Generator, optional
        Seed of the split (and of the symbolic search).
    weights : {None, "rn"}, default None
        ``"rn"``: residuals weighted by r n, as the authors' SC'17 code (``sigma = 1/(r n)``).
    max_nfev : int, optional
        Evaluation limit per form.
    symbolic : bool or mapping, default False
        Also run the symbolic-regression search (:func:`~.symbolic.symbolic_search`; a mapping
        passes options to it) on the same training states and rank it with the forms.
    progress : bool, default False
        A progress bar over the forms.

    Returns
    -------
    Ranking

    Examples
    --------
    Twelve states whose scores follow the F2 form exactly: F2's structure ranks first with a
    held-out error of (nearly) zero:

    >>> rng = np.random.default_rng(1)
    >>> t = pd.DataFrame({"state": np.repeat(np.arange(12), 8), "r": rng.uniform(10, 1e4, 96),
    ...                   "n": rng.integers(1, 256, 96), "s": rng.uniform(1e3, 1e5, 96)})
    >>> t["score"] = 1e-6 * t.r + 2e-3 * np.sqrt(t.n) + 5e-3 * np.log(t.s)
    >>> ranking = fit_forms(t, rng=0)
    >>> ranking.best.name, ranking.best.test_mae < 1e-12, len(ranking.fits)
    ('F2', True, 72)
    """
    from tqdm.auto import tqdm

    from .forms import PAPER_FORMS, enumerate_forms

    if not isinstance(table, pd.DataFrame):
        raise InvalidInstanceError(f"table={type(table).__name__} must be a pandas DataFrame of scored jobs",
                                   argument="table", value=type(table).__name__)
    _table_columns(table)
    if weights not in (None, "rn"):
        raise InvalidInstanceError(f"weights={weights!r} must be None or 'rn'", argument="weights", value=weights)
    if forms is None:
        family = enumerate_forms()
        paper = {Formula(v).text: k for k, v in PAPER_FORMS.items()}
        forms = {**PAPER_FORMS, **{k: v for k, v in family.items() if Formula(v).text not in paper}}
    if not forms:
        raise InvalidInstanceError("forms is empty", argument="forms", value={})
    gen = as_generator(rng)
    train_ids, test_ids = split_states(table["state"].to_numpy(), test_fraction=test_fraction, rng=gen)
    is_test = table["state"].isin(test_ids).to_numpy()
    tr, te = table[~is_test], table[is_test]
    w = None if weights is None else (np.maximum(tr["r"], 1.0) * tr["n"]).to_numpy(float)
    fits = []
    for name, text in tqdm(list(forms.items()), desc="forms", unit="form", disable=not progress):
        fit = fit_form(text, tr["r"], tr["n"], tr["s"], tr["score"], name=name, weights=w, max_nfev=max_nfev)
        fits.append(_with_test(fit, te))
    if symbolic:
        from .symbolic import symbolic_search

        opts = dict(symbolic) if isinstance(symbolic, Mapping) else {}
        opts.setdefault("rng", gen)
        fits.append(_with_test(symbolic_search(tr, **opts), te))
    fits.sort(key=lambda f: (not f.success or not math.isfinite(f.test_mae), f.test_mae if math.isfinite(f.test_mae)
                             else math.inf, f.name))
    baseline = float(np.mean(np.abs(te["score"].to_numpy(float) - tr["score"].to_numpy(float).mean())))
    return Ranking(tuple(fits), train_ids, test_ids, baseline)


def _with_test(fit: Fit, te: pd.DataFrame) -> Fit:
    from dataclasses import replace

    if not fit.success:
        return replace(fit, n_test=len(te))
    pred = fit.predict(te["r"], te["n"], te["s"])
    mae = float(np.mean(np.abs(pred - te["score"].to_numpy(float)))) if np.isfinite(pred).all() else float("nan")
    return replace(fit, test_mae=mae, n_test=len(te))
