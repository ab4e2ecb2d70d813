r"""A small, safe expression language for priority functions :math:`f(r, n, s)`.

A learned priority function is stored as text (``"c1 * sqrt(r) * n + c2 * log(s)"``) so that a
person can read it and a file can carry it. The text is parsed with Python's :mod:`ast` parser and
then checked against a whitelist; nothing is ever passed to ``eval``. What is allowed:

================  ===================================================================================
variables         ``r`` (run time, seconds), ``n`` (processors), ``s`` (submit time, seconds)
coefficients      ``c0``, ``c1``, ``c2``, ... (their values come with the formula, not in it)
numbers           integer and decimal literals (``2``, ``0.5``, ``1e-3``)
operators         ``+ - * / **`` and unary ``-`` / ``+``; parentheses
functions         ``sqrt``, ``log`` (natural), ``log2``, ``log10``, ``exp``, ``abs``; and gplearn's
                  protected operators (symbolic regression, :mod:`fairalloc.experiments.learn.symbolic`): ``psqrt(x)`` =
                  :math:`\sqrt{|x|}`, ``plog(x)`` = :math:`\ln|x|` where :math:`|x| > 0.001`, else 0,
                  ``pdiv(a, b)`` = :math:`a / b` where :math:`|b| > 0.001`, else 1
================  ===================================================================================

Evaluation is vectorised with numpy and broadcasts its inputs; a value outside a function's domain
(``log`` of a negative number, a division by zero) gives NaN or infinity rather than an exception,
so a fit can see and reject it.

Examples
--------
>>> f = Formula("c1 * sqrt(r) * n + c2 * log(s)")
>>> f.text, f.coefficients
('c1 * sqrt(r) * n + c2 * log(s)', ('c1', 'c2'))
>>> f([100.0, 4.0], [2, 8], [1.0, 1.0], {"c1": 0.5, "c2": 1.0}).tolist()   # 0.5*10*2, 0.5*2*8
[10.0, 8.0]
>>> Formula("__import__('os').system('true')")
Traceback (most recent call last):
...
fairalloc.errors.InvalidInstanceError: formula="__import__('os').system('true')": only the functions abs, exp, log, log10, log2, pdiv, plog, psqrt, sqrt may be called
"""

from __future__ import annotations

import ast
import re
from typing import Any, Callable, Mapping

import numpy as np

from ...errors import InvalidInstanceError

__all__ = ["Formula", "VARIABLES", "FUNCTIONS", "MAX_LENGTH"]

#: The inputs of a priority function, in argument order.
VARIABLES = ("r", "n", "s")
#: Longest formula text accepted (characters).
MAX_LENGTH = 4000
_COEFFICIENT = re.compile(r"c[0-9]+\Z")


def _protected_sqrt(x):
    return np.sqrt(np.abs(x))


def _protected_log(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.abs(x) > 0.001, np.log(np.abs(x)), 0.0)


def _protected_div(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.abs(b) > 0.001, np.divide(a, b), 1.0)


#: Callable names and (number of arguments, implementation).
FUNCTIONS: dict[str, tuple[int, Callable]] = {
    "sqrt": (1, np.sqrt), "log": (1, np.log), "log2": (1, np.log2), "log10": (1, np.log10),
    "exp": (1, np.exp), "abs": (1, np.abs),
    "psqrt": (1, _protected_sqrt), "plog": (1, _protected_log), "pdiv": (2, _protected_div),
}

_BINARY = {ast.Add: np.add, ast.Sub: np.subtract, ast.Mult: np.multiply, ast.Div: np.divide,
           ast.Pow: np.power}
_UNARY = {ast.USub: np.negative, ast.UAdd: np.positive}


class Formula:
    """A parsed, whitelisted expression over ``r``, ``n``, ``s`` and coefficients ``c0, c1, ...``.

    Parameters
    ----------
    text : str
        The expression (module docstring for the grammar).

    Attributes
    ----------
    text : str
        The expression in a canonical spelling (:func:`ast.unparse`: spaces around operators, no
        redundant parentheses); two spellings of one expression tree give the same ``text``.
    coefficients : tuple of str
        The coefficient names it uses, in numeric order (``c2`` before ``c10``).
    variables : tuple of str
        The variables it uses, in the order ``r, n, s``.

    Raises
    ------
    InvalidInstanceError
        Text that is not an expression of the grammar (argument ``formula``, the text as value):
        a syntax error, a name other than the variables and ``c<k>``, a call of anything but the
        listed functions or with the wrong number of arguments, attributes, subscripts, strings,
        comparisons, lambdas, keywords, or a text longer than :data:`MAX_LENGTH`.

    Examples
    --------
    Two spellings, one formula; the paper's F2 with Table 1's coefficients on a 100 s, 4-processor
    job submitted at s = 1 (ln 1 = 0):

    >>> Formula("c1*r+c2*sqrt(n)+c3*log(s)").text == Formula("(c1 * r) + c2*sqrt(n) + (c3*log(s))").text
    True
    >>> f2 = Formula("c1*r + c2*sqrt(n) + c3*log(s)")
    >>> round(float(f2(100, 4, 1, {"c1": 2e-7, "c2": 3.207e-4, "c3": 6.9554e-3})), 9)   # 2e-5 + 6.414e-4
    0.0006614
    """

    __slots__ = ("text", "coefficients", "variables", "_fn")

    def __init__(self, text: str) -> None:
        if not isinstance(text, str):
            raise InvalidInstanceError(f"formula={text!r} must be a string", argument="formula", value=text)
        if len(text) > MAX_LENGTH:
            raise InvalidInstanceError(f"formula of {len(text)} characters is longer than {MAX_LENGTH}",
                                       argument="formula", value=text[:80] + "...")
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except SyntaxError as exc:
            raise InvalidInstanceError(f"formula={text!r} is not an expression: {exc.msg}", argument="formula",
                                       value=text) from None
        except (RecursionError, MemoryError, ValueError):
            raise InvalidInstanceError(f"formula={text!r} cannot be parsed (too deeply nested or a null byte)",
                                       argument="formula", value=text) from None
        names: set[str] = set()
        try:
            fn = self._compile(tree.body, text, names)
        except RecursionError:
            raise InvalidInstanceError(f"formula={text!r} is nested too deeply", argument="formula",
                                       value=text) from None
        self.text = ast.unparse(tree.body)
        self.coefficients = tuple(sorted((x for x in names if _COEFFICIENT.match(x)), key=lambda x: int(x[1:])))
        self.variables = tuple(v for v in VARIABLES if v in names)
        self._fn = fn

    # -- compilation: each node becomes a closure over numpy operations ----------------------------
    @classmethod
    def _compile(cls, node: ast.AST, text: str, names: set[str]) -> Callable[[Mapping[str, Any]], Any]:
        def bad(why: str) -> InvalidInstanceError:
            return InvalidInstanceError(f"formula={text!r}: {why}", argument="formula", value=text)

        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            op = _BINARY[type(node.op)]
            a, b = cls._compile(node.left, text, names), cls._compile(node.right, text, names)
            return lambda env: op(a(env), b(env))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            op1 = _UNARY[type(node.op)]
            a = cls._compile(node.operand, text, names)
            return lambda env: op1(a(env))
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise bad(f"{v!r} is not a number (only integer and decimal literals)")
            val = float(v)
            return lambda env: val
        if isinstance(node, ast.Name):
            if node.id not in VARIABLES and not _COEFFICIENT.match(node.id):
                raise bad(f"name {node.id!r} is not allowed (variables r, n, s; coefficients c0, c1, ...)")
            names.add(node.id)
            key = node.id
            return lambda env: env[key]
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
                raise bad(f"only the functions {', '.join(sorted(FUNCTIONS))} may be called")
            arity, impl = FUNCTIONS[node.func.id]
            if node.keywords or len(node.args) != arity or any(isinstance(a, ast.Starred) for a in node.args):
                raise bad(f"{node.func.id} takes {arity} positional argument{'s' if arity > 1 else ''}")
            args = [cls._compile(a, text, names) for a in node.args]
            if arity == 1:
                (a,) = args
                return lambda env: impl(a(env))
            a, b = args
            return lambda env: impl(a(env), b(env))
        if isinstance(node, ast.BinOp):
            raise bad(f"operator {type(node.op).__name__} is not allowed (only + - * / **)")
        raise bad(f"{type(node).__name__} expressions are not allowed (numbers, r, n, s, c<k>, + - * / **, "
                  "and the listed functions only)")

    def __call__(self, r: Any, n: Any, s: Any, coefficients: Mapping[str, float] | None = None) -> np.ndarray:
        """Evaluate on arrays ``r``, ``n``, ``s`` (broadcast together) with the given coefficients.

        Parameters
        ----------
        r, n, s : array_like
            The inputs (broadcastable to one shape).
        coefficients : mapping of str to float, optional
            A value for every name in :attr:`coefficients` (extra names are an error too, to catch
            a formula and coefficients that do not belong together).

        Returns
        -------
        ndarray of float
            The broadcast shape of the inputs; NaN or infinity where a function leaves its domain.

        Raises
        ------
        InvalidInstanceError
            A missing or unexpected coefficient (argument ``coefficients``).
        """
        coefficients = dict(coefficients or {})
        missing = [c for c in self.coefficients if c not in coefficients]
        extra = sorted(set(coefficients) - set(self.coefficients))
        if missing or extra:
            raise InvalidInstanceError(
                f"coefficients {sorted(coefficients)} do not match formula {self.text!r} (it uses "
                f"{list(self.coefficients)}; missing {missing}, not used {extra})", argument="coefficients",
                value=sorted(coefficients))
        r, n, s = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (r, n, s)))
        env: dict[str, Any] = {"r": r, "n": n, "s": s}
        env.update({k: float(v) for k, v in coefficients.items()})
        with np.errstate(all="ignore"):
            out = self._fn(env)
        return np.broadcast_to(np.asarray(out, dtype=float), r.shape).copy()

    def __repr__(self) -> str:
        return f"Formula({self.text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Formula) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)
