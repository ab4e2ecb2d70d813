r"""The forms a priority function is fitted in: the paper's F1 and F2 and an enumerated family.

**The paper's forms** (Table 1):

.. math::

    F_1 = c_1\sqrt{r} \cdot c_2 n + c_3 \log_{10} s, \qquad F_2 = c_1 r + c_2\sqrt{n} + c_3 \log_{10} s.

The logarithm is decimal: Table 1's :math:`c_3` belongs to :math:`\log_{10} s` (the evidence is in
:mod:`fairalloc.sim.policies.learned`).

In :math:`F_1`, :math:`c_1` and :math:`c_2` enter only as their product: any pair with the same
:math:`c_1 c_2` gives the same function, so least squares can determine :math:`c_1 c_2` and
:math:`c_3` but not :math:`c_1` and :math:`c_2` apart (Table 1's 0.0001352 and 0.2765352 are one
point of a curve; their product is :math:`3.7388 \times 10^{-5}`). :data:`PAPER_FORMS` therefore
writes F1 with one coefficient for the product,

.. math::

    F_1 = c_1 \sqrt{r}\, n + c_2 \log_{10} s \quad (c_1 \equiv c_1^{T1} c_2^{T1},\ c_2 \equiv c_3^{T1}),

and :func:`table1_coefficients` maps Table 1 onto it. (Fitting the printed form is possible too:
its fit reports ``identifiable=False``.)

**The enumerated family** follows the authors' search (``nlr_scipy_enumerate_functions.py`` of
``hpcsched/gen-sched-policies``): a transform *g* of *r*, *h* of *n* and *k* of *s*, combined as
:math:`(g \circ_1 h) \circ_2 k` with :math:`\circ_1, \circ_2 \in \{+, \times\}`, one coefficient per
term and no more (products merge their coefficients):

=================  ===========================================
:math:`+, +`       :math:`c_1 g + c_2 h + c_3 k`
:math:`\times, +`  :math:`c_1 g h + c_2 k`
:math:`+, \times`  :math:`(c_1 g + c_2 h)\, k`
:math:`\times, \times`  :math:`c_1 g h k`
=================  ===========================================

with, by default, :math:`g \in \{r, \sqrt r, \log_{10} r\}`, :math:`h \in \{n, \sqrt n, \log_{10} n\}`,
:math:`k \in \{s, \log_{10} s\}`: 72 forms, F1 and F2 among them. Every one of them is linear in its
coefficients. The authors also tried ``1/x`` and division; pass your own term lists and operators
(``"/"``) to widen the family. Logarithms are decimal, as the authors' (a base only rescales a
coefficient; decimal keeps the fitted :math:`c_3` comparable with Table 1's).

References
----------
.. [1] D. Carastan-Santos, R. Y. de Camargo, learned nonlinear priority functions (workshop paper),
   Section 2 and Table 1; SC'17 code ``hpcsched/gen-sched-policies``.
"""

from __future__ import annotations

from typing import Sequence

from ...errors import InvalidInstanceError
from ...sim.policies.formula import Formula
from ...sim.policies.learned import TABLE1

__all__ = ["PAPER_FORMS", "enumerate_forms", "table1_coefficients", "R_TERMS", "N_TERMS", "S_TERMS", "OPERATORS"]

#: The paper's forms with identifiable coefficients (module docstring).
PAPER_FORMS = {"F1": "c1 * sqrt(r) * n + c2 * log10(s)", "F2": "c1 * r + c2 * sqrt(n) + c3 * log10(s)"}
R_TERMS = ("r", "sqrt(r)", "log10(r)")
N_TERMS = ("n", "sqrt(n)", "log10(n)")
S_TERMS = ("s", "log10(s)")
OPERATORS = ("+", "*")


def table1_coefficients(name: str) -> dict[str, float]:
    """Table 1's coefficients mapped onto :data:`PAPER_FORMS` (F1: ``c1`` = c1 c2, ``c2`` = c3).

    Parameters
    ----------
    name : {"F1", "F2"}

    Returns
    -------
    dict of str to float

    Examples
    --------
    >>> {k: round(v, 12) for k, v in table1_coefficients("F1").items()}   # 0.0001352 * 0.2765352
    {'c1': 3.7387559e-05, 'c2': 0.007147}
    >>> table1_coefficients("F2")
    {'c1': 2e-07, 'c2': 0.0003207, 'c3': 0.0069554}
    """
    key = str(name).upper()
    if key not in TABLE1:
        raise InvalidInstanceError(f"name={name!r} is not one of {sorted(TABLE1)}", argument="name", value=name)
    _, c1, c2, c3 = TABLE1[key]
    if key == "F1":
        return {"c1": c1 * c2, "c2": c3}
    return {"c1": c1, "c2": c2, "c3": c3}


def enumerate_forms(r_terms: Sequence[str] = R_TERMS, n_terms: Sequence[str] = N_TERMS,
                    s_terms: Sequence[str] = S_TERMS, operators: Sequence[str] = OPERATORS) -> dict[str, str]:
    """The family :math:`(g \\circ_1 h) \\circ_2 k` with identifiable coefficients (module docstring).

    Parameters
    ----------
    r_terms, n_terms, s_terms : sequence of str
        Transforms of *r*, *n* and *s* (expressions of the grammar in that one variable).
    operators : sequence of {"+", "*", "/"}
        The combinations tried for :math:`\\circ_1` and :math:`\\circ_2`.

    Returns
    -------
    dict of str to str
        Name (the structure without coefficients, e.g. ``"sqrt(r) * n + log10(s)"``) to formula.

    Examples
    --------
    >>> forms = enumerate_forms()
    >>> len(forms), forms["sqrt(r) * n + log10(s)"], forms["r + sqrt(n) + log10(s)"]
    (72, 'c1 * sqrt(r) * n + c2 * log10(s)', 'c1 * r + c2 * sqrt(n) + c3 * log10(s)')
    >>> enumerate_forms(["r"], ["n"], ["s"], ["*", "/"])["r / n / s"]
    'c1 * r / n / s'
    """
    for name, terms, var in (("r_terms", r_terms, "r"), ("n_terms", n_terms, "n"), ("s_terms", s_terms, "s")):
        if not terms:
            raise InvalidInstanceError(f"{name} is empty", argument=name, value=list(terms))
        for t in terms:
            f = Formula(t)
            if f.variables != (var,) or f.coefficients:
                raise InvalidInstanceError(f"{name}: {t!r} must be an expression in {var} alone, without "
                                           "coefficients", argument=name, value=t)
    bad = [o for o in operators if o not in ("+", "*", "/")]
    if bad or not operators:
        raise InvalidInstanceError(f"operators={list(operators)!r} must be a non-empty selection of '+', '*', '/'",
                                   argument="operators", value=list(operators))
    out: dict[str, str] = {}
    for o1 in operators:
        for o2 in operators:
            for g in r_terms:
                for h in n_terms:
                    for k in s_terms:
                        gh = f"c1 * {g} + c2 * {h}" if o1 == "+" else f"c1 * {g} {o1} {h}"
                        n_gh = 2 if o1 == "+" else 1
                        if o2 == "+":
                            text = f"{gh} + c{n_gh + 1} * {k}"
                        elif o1 == "+":
                            text = f"({gh}) {o2} {k}"
                        else:
                            text = f"{gh} {o2} {k}"
                        out[f"{g} {o1} {h} {o2} {k}"] = Formula(text).text
    return out
