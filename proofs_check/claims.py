"""The table of ``axioms.md`` as data: mechanism x axiom -> expected verdict, variant, source.

Every row of the table is here, including the mechanisms that are not implemented yet (indivisible
DRF variants, TSF, DRFH, TV-TSF, ...): each :class:`MechanismInfo` names the callable that implements
it (a dotted path, resolved on demand); campaigns skip the rows whose callable does not resolve, and
say why. A cell of the table becomes one :class:`Claim` per variant, e.g. "F (weighted SI: T)" is
``Claim("weighted_max_min", "si", "plain", "F")`` and ``Claim(..., "si", "weighted", "T")``.

Expected verdicts: ``"T"`` (theorem, or derived with a proof sketch), ``"F"`` (known false: the
search must find a counterexample), ``"?"`` (open: campaigns report what they find), ``"-"`` (not
applicable). :attr:`Claim.derived` marks the few cells we added from our own analysis (stated in
``note``), which are not in the table of ``axioms.md``.

>>> len(MECHANISMS), sorted({c.expected for c in CLAIMS})
(18, ['-', '?', 'F', 'T'])
>>> [(c.variant, c.expected) for c in claims_for("weighted_max_min", "si")]
[('plain', 'F'), ('weighted', 'T')]
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

__all__ = ["Domain", "MechanismInfo", "Claim", "AXIOMS", "AXIOM_LABELS", "MECHANISMS", "CLAIMS",
           "claims_for", "implemented_claims", "mechanism"]

#: Columns of the table, in order, with the variants each one can be tested in.
AXIOMS: dict[str, tuple[str, ...]] = {
    "sp-stage": ("stage",),
    "sp-repeated": ("repeated",),
    "po": ("strong", "weak"),
    "si": ("plain", "weighted", "commitment"),
    "ef": ("plain", "weighted", "commitment", "no-constraints", "with-constraints"),
    "ef1": ("remove", "gain", "per-slot-remove", "per-slot-gain", "cumulative-constrained-remove"),
    "bottleneck": ("bottleneck", "non-wasteful"),
    "pm": ("plain",),
    "rm": ("plain",),
}
AXIOM_LABELS = {"sp-stage": "SP stage", "sp-repeated": "SP repeated", "po": "PO", "si": "SI", "ef": "EF",
                "ef1": "EF1", "bottleneck": "bottleneck / no waste", "pm": "PM", "rm": "RM"}


@dataclass(frozen=True)
class Domain:
    """The instances a row of the table speaks about (what campaigns and property tests generate).

    ``caps``: users may have finite demands (be satisfiable); without caps every user's total
    dominant demand exceeds the capacity. ``zero_demands``: users may not need some resource.
    ``setting="servers"``: task instances (:class:`fairalloc.TaskInstance`, integer tasks) on
    ``n_servers`` servers, with placement constraints when ``placement``.
    """

    n_agents: tuple[int, int] = (2, 4)
    n_resources: tuple[int, int] = (2, 3)
    zero_demands: bool = False
    caps: bool = False
    weights: bool = False
    commitments: bool = False
    setting: str = "pooled"
    n_servers: tuple[int, int] = (1, 3)
    placement: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass(frozen=True)
class MechanismInfo:
    """One row of the table and, if it exists, the callable that implements it.

    ``target`` is a dotted path (``"fairalloc.drf"``) with optional keyword arguments ``kwargs``;
    ``dynamics`` says how the repeated game carries state (``"sdrf"``: commitments by Eq. 3;
    ``"stateless"``). ``atol`` is the tolerance its checks use (interior-point solvers are accurate to
    about 1e-8, not to the last bit).
    """

    key: str
    label: str
    target: str | None
    domain: Domain
    source: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    dynamics: str | None = "stateless"
    atol: float = 1e-9
    phase: str = "A"
    reason: str = ""

    def resolve(self) -> Callable | None:
        """The implementing callable, or None when it is not (yet) importable."""
        if self.target is None:
            return None
        module, _, name = self.target.rpartition(".")
        try:
            fn = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError):
            return None
        if self.kwargs:
            fn = functools.partial(fn, **dict(self.kwargs))
            fn.__name__ = self.key  # type: ignore[attr-defined]
        return fn

    @property
    def implemented(self) -> bool:
        return self.resolve() is not None

    @property
    def why_not(self) -> str:
        if self.implemented:
            return ""
        if self.target is None:
            return self.reason or "no implementation named"
        return f"{self.target} is not importable ({self.reason})" if self.reason else f"{self.target} is not importable"


@dataclass(frozen=True)
class Claim:
    """One cell (and variant) of the table."""

    mechanism: str
    axiom: str
    variant: str
    expected: str
    cell: str
    source: str
    derived: bool = False
    note: str = ""

    @property
    def key(self) -> str:
        return f"{self.mechanism}/{self.axiom}/{self.variant}"


_GHODSI = "Ghodsi et al., DRF, NSDI 2011"
_PARKES = "Parkes, Procaccia, Shah, Beyond DRF, ACM TEAC 2015"
_SDRF = "Sadok, Campista, Costa, SDRF, SBRC 2018 (Section 5, Props. 1-6)"
_OURS = "axioms.md (our analysis)"
_B = "phase B: indivisible / server mechanisms come from the exact and scheduling branches"

_one = Domain(n_resources=(1, 1), caps=True)
MECHANISMS: dict[str, MechanismInfo] = {m.key: m for m in [
    MechanismInfo("max_min", "max-min, one resource, caps", "fairalloc.max_min", _one,
                  "Bertsekas & Gallager, Data Networks 1992 (max-min fairness)"),
    MechanismInfo("weighted_max_min", "weighted max-min", "fairalloc.max_min",
                  Domain(n_resources=(1, 1), caps=True, weights=True), "weighted max-min (textbook)"),
    MechanismInfo("stateful_max_min", "stateful max-min", "fairalloc.max_min",
                  Domain(n_resources=(1, 1), caps=True, commitments=True), _SDRF + ", Eq. 4", dynamics="sdrf"),
    MechanismInfo("sdrf", "SDRF (stage, commitments given)", "fairalloc.sdrf",
                  Domain(n_resources=(1, 3), zero_demands=True, caps=True, commitments=True), _SDRF,
                  dynamics="sdrf"),
    MechanismInfo("drf", "DRF, divisible, positive demands", "fairalloc.drf", Domain(), _GHODSI),
    MechanismInfo("drf_lex", "DRF with zero demands / caps (lexicographic)", "fairalloc.drf",
                  Domain(zero_demands=True, caps=True), _PARKES),
    MechanismInfo("weighted_drf", "weighted DRF", "fairalloc.drf",
                  Domain(zero_demands=True, caps=True, weights=True), _PARKES),
    MechanismInfo("drf_indivisible_stop", "DRF, indivisible tasks, stop at first misfit (as printed)", None,
                  Domain(setting="servers"), _SDRF + " Algorithm 1; " + _PARKES, phase="B", reason=_B),
    MechanismInfo("drf_indivisible_skip", "DRF, indivisible, skip users that do not fit", None,
                  Domain(setting="servers"), _PARKES, phase="B", reason=_B),
    MechanismInfo("sequential_minmax", "sequential min-max (Parkes et al., indivisible)", None,
                  Domain(setting="servers"), _PARKES, phase="B", reason=_B),
    MechanismInfo("drfh", "DRFH (heterogeneous servers)", None, Domain(setting="servers"),
                  "Wang, Li, Liang, DRFH, IEEE TPDS 2015", phase="B", reason=_B),
    MechanismInfo("tsf", "TSF (placement constraints)", None, Domain(setting="servers"),
                  "Wang et al., TSF, 2016", phase="B", reason=_B),
    MechanismInfo("tvtsf_milp", "TV-TSF integer program (leximin of cumulative task shares)", None,
                  Domain(setting="time-varying"), "Li & Wang, TV-TSF, 2024 (Theorems 1-3); " + _OURS,
                  phase="B", reason=_B),
    MechanismInfo("tvtsf_greedy", "TV-TSF greedy (best fit + FREEZE)", None, Domain(setting="time-varying"),
                  "Li & Wang, TV-TSF, 2024 (Algorithms 1-5); " + _OURS, phase="B", reason=_B),
    MechanismInfo("asset", "asset fairness", "fairalloc.asset_fairness", Domain(), _GHODSI),
    MechanismInfo("ceei", "CEEI (equal budgets)", "fairalloc.ceei", Domain(), _GHODSI + "; Varian 1974",
                  atol=1e-6, dynamics=None),
    MechanismInfo("bottleneck_max", "bottleneck max fairness, Dolev's bottleneck-based fairness", None, Domain(),
                  "Bonald & Roberts 2015; Dolev et al. 2012", phase="-", reason="not implemented in fairalloc"),
    MechanismInfo("dynamic_drf", "dynamic DRF (Kash et al.)", None, Domain(),
                  "Kash, Procaccia, Shah, JAIR 2014", phase="-", reason="not implemented in fairalloc"),
]}

# (mechanism, axiom, variant, expected, cell text as printed)
_ROWS: list[tuple[str, str, str, str, str]] = []


def _row(mech: str, cells: Mapping[str, list[tuple[str, str]] | str], text: Mapping[str, str] | None = None) -> None:
    for axiom in AXIOMS:
        spec = cells.get(axiom, "")
        if isinstance(spec, str):
            exp = spec if spec else "?"
            variants = [(AXIOMS[axiom][0] if axiom not in ("bottleneck",) else v, exp)
                        for v in (("bottleneck", "non-wasteful") if axiom == "bottleneck" else (None,))]
        else:
            variants = spec
        for variant, exp in variants:
            _ROWS.append((mech, axiom, variant, exp, (text or {}).get(axiom, cells.get(axiom) if isinstance(cells.get(axiom), str) else "")))


_row("max_min", {"sp-stage": "T", "sp-repeated": "T", "po": "T", "si": "T", "ef": "T", "ef1": "-",
                 "bottleneck": "T", "pm": "T", "rm": "T"})
_row("weighted_max_min", {"sp-stage": "T", "sp-repeated": "T", "po": "T",
                          "si": [("plain", "F"), ("weighted", "T")], "ef": [("plain", "F"), ("weighted", "T")],
                          "ef1": "-", "bottleneck": "T", "pm": "T", "rm": "T"},
     {"si": "F (weighted SI: T)", "ef": "F (weighted EF: T)"})
_row("stateful_max_min", {"sp-stage": "T", "sp-repeated": "?", "po": "T", "si": [("plain", "F")],
                          "ef": [("plain", "F")], "ef1": "-", "bottleneck": "T", "pm": "T", "rm": "T"},
     {"pm": "T (positive demands)"})
_row("sdrf", {"sp-stage": "T", "sp-repeated": "F", "po": "T", "si": [("plain", "F"), ("commitment", "T")],
              "ef": [("plain", "F"), ("commitment", "T")], "ef1": "-", "bottleneck": "T", "pm": "F", "rm": "F"},
     {"sp-repeated": "**F** (see below)", "po": "T per stage", "si": "F; commitment-adjusted T",
      "ef": "F; commitment-adjusted T", "pm": "F with zero demands"})
_row("drf", {"sp-stage": "T", "sp-repeated": "T", "po": "T", "si": "T", "ef": "T", "ef1": "-", "bottleneck": "T",
             "pm": "T", "rm": "F"})
_row("drf_lex", {"sp-stage": "T", "sp-repeated": "T", "po": "T", "si": "T", "ef": "T", "ef1": "-",
                 "bottleneck": "T", "pm": "F", "rm": "F"},
     {"po": "T (a single equalising stage is only weakly PO)"})
_row("weighted_drf", {"sp-stage": "T", "sp-repeated": "T", "po": "T", "si": [("plain", "F"), ("weighted", "T")],
                      "ef": [("plain", "F"), ("weighted", "T")], "ef1": "-", "bottleneck": "T", "pm": "?", "rm": "F"},
     {"si": "F (weighted: T)", "ef": "F (weighted: T)", "pm": "(blank)"})
_row("drf_indivisible_stop", {"sp-stage": "F", "sp-repeated": "-", "po": "F", "si": "F", "ef": "F",
                              "ef1": [("remove", "?"), ("gain", "F")], "bottleneck": "F", "pm": "?", "rm": "?"},
     {"ef1": "remove ?, gain F"})
_row("drf_indivisible_skip", {"sp-stage": "F", "sp-repeated": "-", "po": "?", "si": "F", "ef": "F",
                              "ef1": [("remove", "?"), ("gain", "F")], "bottleneck": "T", "pm": "?", "rm": "?"},
     {"ef1": "remove ?, gain F"})
_row("sequential_minmax", {"sp-stage": "F", "sp-repeated": "-", "po": "?", "si": "?", "ef": "F",
                           "ef1": [("remove", "F"), ("gain", "?")], "bottleneck": "T", "pm": "?", "rm": "?"},
     {"ef1": "remove F, gain ?"})
_row("drfh", {"sp-stage": "T", "sp-repeated": "T", "po": "T", "si": "F", "ef": "T", "ef1": "-", "bottleneck": "T",
              "pm": "F", "rm": "F"}, {"si": "**F**"})
_row("tsf", {"sp-stage": "T", "sp-repeated": "T", "po": "T", "si": "T",
             "ef": [("no-constraints", "T"), ("with-constraints", "F")], "ef1": "-", "bottleneck": "T",
             "pm": "F", "rm": "F"}, {"ef": "no constraints T; **with constraints F**"})
_row("tvtsf_milp", {"sp-stage": "F", "sp-repeated": "?", "po": "T", "si": "F", "ef": "F",
                    "ef1": [("per-slot-remove", "?"), ("per-slot-gain", "F"), ("cumulative-constrained-remove", "F")],
                    "bottleneck": "T", "pm": "?", "rm": "?"},
     {"po": "T per slot", "si": "F per slot",
      "ef1": "per slot: remove ?, gain F; cumulative with constraints: remove F"})
_row("tvtsf_greedy", {"sp-stage": "F", "sp-repeated": "?", "po": "F", "si": "F", "ef": "F",
                      "ef1": [("remove", "F")], "bottleneck": "T", "pm": "?", "rm": "?"},
     {"po": "**F**", "ef1": "remove F"})
_row("asset", {"sp-stage": "T", "sp-repeated": "T", "po": "T", "si": "F", "ef": "T", "ef1": "-", "bottleneck": "T",
               "pm": "T", "rm": "F"}, {"si": "**F**"})
_row("ceei", {"sp-stage": "F", "sp-repeated": "-", "po": "T", "si": "T", "ef": "T", "ef1": "-", "bottleneck": "T",
              "pm": "F", "rm": "F"}, {"sp-stage": "**F**"})
_row("bottleneck_max", {"sp-stage": "F", "sp-repeated": "-", "po": "T", "si": "?", "ef": "?", "ef1": "-",
                        "bottleneck": "T", "pm": "?", "rm": "?"}, {"sp-stage": "**F**", "po": "T (positive)"})
_row("dynamic_drf", {"sp-stage": "T", "sp-repeated": "-", "po": "T", "si": "T", "ef": [("plain", "F")],
                     "ef1": "-", "bottleneck": "T", "pm": "-", "rm": "-"},
     {"sp-repeated": "n/a", "po": "dynamic PO T", "ef": "F (dynamic EF: T)"})

_DERIVED = [
    Claim("stateful_max_min", "si", "commitment", "T", "(not in the table)", _OURS, True,
          "stateful max-min is SDRF with one resource; the commitment-adjusted SI of SDRF applies"),
    Claim("stateful_max_min", "ef", "commitment", "T", "(not in the table)", _OURS, True,
          "stateful max-min is SDRF with one resource; the commitment-adjusted EF of SDRF applies"),
]

CLAIMS: tuple[Claim, ...] = tuple(
    Claim(m, a, v, e, t or e, MECHANISMS[m].source) for (m, a, v, e, t) in _ROWS) + tuple(_DERIVED)


def mechanism(key: str) -> MechanismInfo:
    """The :class:`MechanismInfo` of a row (``KeyError`` listing the keys otherwise)."""
    try:
        return MECHANISMS[key]
    except KeyError:
        raise KeyError(f"unknown mechanism {key!r}; known: {', '.join(MECHANISMS)}") from None


def claims_for(mechanism_key: str | None = None, axiom: str | None = None) -> list[Claim]:
    """Claims filtered by mechanism and/or axiom, in table order."""
    return [c for c in CLAIMS if (mechanism_key is None or c.mechanism == mechanism_key)
            and (axiom is None or c.axiom == axiom)]


def implemented_claims(*, testable_only: bool = True) -> list[Claim]:
    """Claims whose mechanism resolves to a callable (and, by default, whose verdict is T, F or ?)."""
    return [c for c in CLAIMS if MECHANISMS[c.mechanism].implemented
            and (not testable_only or c.expected in ("T", "F", "?"))]
