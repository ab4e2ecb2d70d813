r"""Symbolic regression over the same inputs (beyond the paper): gplearn's genetic programming.

The paper picks the best of a family of hand-written forms. A symbolic-regression search looks for
the expression itself: gplearn's :class:`~gplearn.genetic.SymbolicRegressor` evolves programs
over *r*, *n*, *s* with the functions ``add, sub, mul, div, sqrt, log`` (gplearn's protected
versions: :math:`\sqrt{|x|}`, :math:`\ln|x|` and a division that returns 1 near zero), judged by
mean absolute error, the paper's criterion. The target is standardised on the training jobs
(:math:`z = (\mathrm{score} - \mu)/\sigma`, so that the search's constants in [-1, 1] and its
parsimony pressure work at the scale of the scores), and the program found is turned back into a
formula of :mod:`.formula`,

.. math::

    f(r, n, s) = c_1 + c_2\, P(r, n, s), \qquad c_1 = \mu,\ c_2 = \sigma,

with gplearn's operators written as the grammar's ``pdiv``, ``psqrt``, ``plog`` (same definitions),
so the saved function gives exactly gplearn's predictions and schedules like any other learned
function. :func:`~.regression.fit_forms` (``symbolic=True``) runs it on the forms' training states
and ranks it by the same held-out error.

gplearn is an optional dependency: ``pip install "fairalloc[learn]"``.

References
----------
.. [1] J. R. Koza, *Genetic Programming*, MIT Press, 1992; gplearn, https://gplearn.readthedocs.io.
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np
import pandas as pd

from ...errors import InvalidInstanceError, SolverUnavailableError
from ...rng import as_generator
from ...sim.policies.formula import Formula
from ...sim.policies.learned import prepare_inputs
from .regression import Fit

__all__ = ["symbolic_search", "program_formula", "available", "FUNCTION_SET"]

#: gplearn functions the search uses, each with its formula spelling.
FUNCTION_SET = ("add", "sub", "mul", "div", "sqrt", "log")
_BINARY = {"add": "+", "sub": "-", "mul": "*"}
_CALLS = {"div": "pdiv", "sqrt": "psqrt", "log": "plog", "abs": "abs"}
_FEATURES = {"X0": "r", "X1": "n", "X2": "s"}


def available() -> bool:
    """Whether gplearn can be imported."""
    try:
        import gplearn.genetic  # noqa: F401
    except ImportError:
        return False
    return True


def program_formula(program: Any) -> str:
    """A gplearn program as a formula of the grammar (features X0, X1, X2 = r, n, s).

    Parameters
    ----------
    program : str or list
        The program's text (``str(estimator)``; gplearn prints constants with 3 decimals) or its
        prefix list (``estimator._program.program``, as gplearn's own examples read it: functions
        with ``name`` and ``arity``, feature indices, constants at full precision).

    Examples
    --------
    >>> program_formula("add(mul(X0, 0.5), div(sqrt(X1), log(X2)))")
    'r * 0.5 + pdiv(psqrt(n), plog(s))'
    >>> program_formula("neg(sub(X2, -0.25))")
    '-(s - -0.25)'
    """
    if not isinstance(program, str):
        return Formula(_prefix(list(program), repr(program)[:200])).text
    try:
        tree = ast.parse(program.strip(), mode="eval").body
    except SyntaxError as exc:
        raise InvalidInstanceError(f"program={program!r} is not a gplearn program: {exc.msg}", argument="program",
                                   value=program) from None

    def conv(node: ast.AST) -> str:
        if isinstance(node, ast.Name) and node.id in _FEATURES:
            return _FEATURES[node.id]
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value,
                                                                                                        bool):
            return repr(float(node.value))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            return repr(-float(node.operand.value))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            return _call(node.func.id, [conv(a) for a in node.args], program, ast.unparse(node))
        raise _untranslatable(program, ast.unparse(node))

    return Formula(conv(tree)).text


def _untranslatable(program: Any, part: str) -> InvalidInstanceError:
    return InvalidInstanceError(f"program={program!r}: cannot translate {part!r} (supported: "
                                f"{', '.join(sorted({*_BINARY, *_CALLS, 'neg'}))} over X0, X1, X2)",
                                argument="program", value=str(program))


def _call(fn: str, args: list, program: Any, part: str) -> str:
    if fn in _BINARY and len(args) == 2:
        return f"({args[0]} {_BINARY[fn]} {args[1]})"
    if fn in _CALLS and len(args) == (2 if fn == "div" else 1):
        return f"{_CALLS[fn]}({', '.join(args)})"
    if fn == "neg" and len(args) == 1:
        return f"(-{args[0]})"
    raise _untranslatable(program, part)


def _prefix(nodes: list, label: str) -> str:
    """Translate gplearn's prefix list (functions, feature indices, float constants)."""
    pos = 0

    def walk() -> str:
        nonlocal pos
        if pos >= len(nodes):
            raise _untranslatable(label, "<truncated program>")
        node = nodes[pos]
        pos += 1
        if isinstance(node, (bool, np.bool_)):
            raise _untranslatable(label, repr(node))
        if isinstance(node, (int, np.integer)):
            key = f"X{int(node)}"
            if key not in _FEATURES:
                raise _untranslatable(label, key)
            return _FEATURES[key]
        if isinstance(node, (float, np.floating)):
            return repr(float(node))
        name, arity = getattr(node, "name", None), getattr(node, "arity", None)
        if not isinstance(name, str) or not isinstance(arity, int):
            raise _untranslatable(label, repr(node))
        args = [walk() for _ in range(arity)]
        return _call(name, args, label, name)

    text = walk()
    if pos != len(nodes):
        raise _untranslatable(label, "<trailing nodes>")
    return text


def symbolic_search(table: pd.DataFrame, *, rng: Any = None, population_size: int = 1000, generations: int = 20,
                    parsimony_coefficient: float = 0.001, function_set: tuple = FUNCTION_SET, n_jobs: int = 1,
                    name: str = "symbolic (gplearn)", **options: Any) -> Fit:
    """Search an expression for the scores with gplearn (module docstring); returns it as a :class:`Fit`.

    Parameters
    ----------
    table : pandas.DataFrame
        Scored jobs (columns ``r``, ``n``, ``s``, ``score``): the training part.
    rng : int or numpy.random.Generator, optional
        Seeds gplearn's ``random_state``.
    population_size, generations, parsimony_coefficient, function_set, n_jobs :
        gplearn's settings (``metric="mean absolute error"`` is fixed: the paper's criterion).
    name : str
        The fit's name.
    **options
        Other keyword arguments of :class:`gplearn.genetic.SymbolicRegressor`.

    Returns
    -------
    Fit
        Status ``converged`` (the search ran its generations; nothing is proven), coefficients
        ``c1`` = mean and ``c2`` = standard deviation of the training scores, ``train_mae`` on
        ``table``; ``extra`` holds the gplearn program and settings.

    Raises
    ------
    SolverUnavailableError
        gplearn is not installed (``pip install "fairalloc[learn]"``).

    Examples
    --------
    A short search on scores that depend on r alone (the tests run it; skipped here, as gplearn is
    optional):

    >>> t = pd.DataFrame({"r": [1, 4, 9, 16, 25, 36], "n": 1, "s": 1, "score": [1, 2, 3, 4, 5, 6]})
    >>> fit = symbolic_search(t, rng=0, population_size=100, generations=2)   # doctest: +SKIP
    >>> fit.formula.text.startswith("c1 + c2 * ")                                # doctest: +SKIP
    True
    """
    try:
        from gplearn.genetic import SymbolicRegressor
    except ImportError:
        raise SolverUnavailableError("symbolic regression needs gplearn: pip install \"fairalloc[learn]\" "
                                     "(or pip install gplearn)") from None
    bad = [f for f in function_set if f not in FUNCTION_SET and f not in ("abs", "neg")]
    if bad:
        raise InvalidInstanceError(f"function_set has {bad}; supported: {', '.join(FUNCTION_SET)}, abs, neg",
                                   argument="function_set", value=list(function_set))
    r, n, s = prepare_inputs(table["r"], table["n"], table["s"])
    y = table["score"].to_numpy(float)
    if y.size < 2:
        raise InvalidInstanceError("symbolic regression needs at least 2 scored jobs", argument="table", value=y.size)
    mu, sigma = float(y.mean()), float(y.std())
    if not sigma > 0:
        sigma = 1.0
    seed = int(as_generator(rng).integers(2**31 - 1))
    est = SymbolicRegressor(population_size=population_size, generations=generations, metric="mean absolute error",
                            parsimony_coefficient=parsimony_coefficient, function_set=function_set,
                            random_state=seed, n_jobs=n_jobs, **options)
    est.fit(np.column_stack([r, n, s]), (y - mu) / sigma)
    program = str(est)        # the fitted program, in gplearn's own notation (constants to 3 decimals)
    prefix = getattr(getattr(est, "_program", None), "program", None)    # full precision (gplearn's examples)
    text = f"c1 + c2 * ({program_formula(program if prefix is None else prefix)})"
    f = Formula(text)
    coeffs = {"c1": mu, "c2": sigma}
    pred = f(r, n, s, coeffs)
    mae = float(np.mean(np.abs(pred - y))) if np.isfinite(pred).all() else float("nan")
    return Fit(name, f, coeffs, "converged", f"gplearn: {generations} generations of {population_size} programs",
               True, 0, mae, n_train=int(y.size),
               extra={"program": program, "gplearn": {"population_size": population_size, "generations": generations,
                                                      "parsimony_coefficient": parsimony_coefficient,
                                                      "function_set": list(function_set), "random_state": seed}})
