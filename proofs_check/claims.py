"""The table of ``axioms.md`` as data: mechanism x axiom -> expected verdict, variant, source.

Every row of the table is here, including the mechanisms that are not implemented in fairalloc
(DRFH, dynamic DRF, bottleneck max fairness): each :class:`MechanismInfo` names the callable that
implements it (a dotted path, resolved on demand); campaigns skip the rows whose callable does not
resolve, and say why. The other rows are ours (:attr:`MechanismInfo.derived`): three for mechanisms of
fairalloc that the table's rows leave implicit: TSF with indivisible tasks (the exact leximin MILP),
and the TV-TSF integer program over the whole horizon (offline; the table's row is the program as
the mechanism applies it, slot by slot, see :data:`MECHANISMS`); and eleven for the pooled forms of
the production policies (:mod:`fairalloc.fairshare.pooled`: Slurm classic, Fair Tree and MAX_TRES
billing, HTCondor, Kueue fair sharing and admission fair sharing, YARN, Mesos, Volcano proportion,
DRF and HDRF), whose verdicts are our analysis and the campaigns' counterexamples. A cell of the table becomes one :class:`Claim` per variant, e.g. "F (weighted SI: T)" is
``Claim("weighted_max_min", "si", "plain", "F")`` and ``Claim(..., "si", "weighted", "T")``.

Expected verdicts: ``"T"`` (theorem, or derived with a proof sketch), ``"F"`` (known false: the
search must find a counterexample), ``"?"`` (open: campaigns report what they find), ``"-"`` (not
applicable). :attr:`Claim.derived` marks the few cells we added from our own analysis (stated in
``note``), which are not in the table of ``axioms.md``.

>>> len(MECHANISMS), len([m for m in MECHANISMS.values() if not m.derived]), sorted({c.expected for c in CLAIMS})
(32, 18, ['-', '?', 'F', 'T'])
>>> [(c.variant, c.expected) for c in claims_for("weighted_max_min", "si")]
[('plain', 'F'), ('weighted', 'T')]
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping

__all__ = ["Domain", "MechanismInfo", "Claim", "AXIOMS", "AXIOM_LABELS", "MECHANISMS", "USER_MECHANISMS", "CLAIMS",
           "FINDINGS", "all_mechanisms", "claims_for", "implemented_claims", "mechanism", "claim_domain", "scope_of"]

#: Columns of the table, in order, with the variants each one can be tested in.
#: Time-varying rows (TV-TSF) test each axiom over the whole horizon ("cumulative", TV-TSF Section
#: 1.3) or in every slot ("per-slot"); see :mod:`proofs_check._timevarying`.
AXIOMS: dict[str, tuple[str, ...]] = {
    "sp-stage": ("stage",),
    "sp-repeated": ("repeated",),
    "po": ("strong", "weak", "per-slot", "cumulative"),
    "si": ("plain", "weighted", "commitment", "per-slot", "cumulative"),
    "ef": ("plain", "weighted", "commitment", "no-constraints", "with-constraints", "cumulative"),
    "ef1": ("remove", "gain", "per-slot-remove", "per-slot-gain", "cumulative-remove", "cumulative-gain",
            "cumulative-constrained-remove"),
    "bottleneck": ("bottleneck", "non-wasteful", "per-slot", "cumulative"),
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
    ``n_servers`` servers, with placement constraints when ``placement``. ``setting="time-varying"``:
    :class:`fairalloc.TimeVaryingInstance` over ``n_slots`` slots, at most ``max_arrivals`` tasks
    submitted per user and slot, durations up to ``max_duration`` slots.

    Parameters
    ----------
    n_agents : tuple of (int, int), default (2, 4)
        Smallest and largest number of users, inclusive.
    n_resources : tuple of (int, int), default (2, 3)
        Smallest and largest number of resources, inclusive.
    zero_demands : bool, default False
        Users may demand none of some resource.
    caps : bool, default False
        Users may be satisfiable (finite demands below the capacity).
    weights : bool, default False
        Users may have weights other than 1.
    commitments : bool, default False
        Cases carry SDRF commitments (Eq. 6).
    setting : {"pooled", "servers", "time-varying"}, default "pooled"
        Which instance class the domain draws.
    n_servers : tuple of (int, int), default (1, 3)
        Server counts (``"servers"`` and ``"time-varying"``).
    placement : bool, default False
        Users may be barred from some servers.
    n_slots : tuple of (int, int), default (1, 3)
        Horizon lengths (``"time-varying"``).
    max_arrivals : int, default 3
        Tasks a user submits per slot, at most (``"time-varying"``).
    max_duration : int, default 2
        Task duration in slots, at most (``"time-varying"``).

    See Also
    --------
    proofs_check.strategies.cases : draws the cases of a domain.
    proofs_check.shrink.in_domain : whether a case belongs to a domain.

    Examples
    --------
    DRF's row speaks about 2-4 users, 2-3 resources, positive demands and no caps (Ghodsi et al.'s
    setting):

    >>> d = MECHANISMS["drf"].domain
    >>> d.setting, d.n_agents, d.n_resources, d.zero_demands, d.caps
    ('pooled', (2, 4), (2, 3), False, False)
    >>> Domain(setting="servers", placement=True).to_dict()["placement"]
    True
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
    n_slots: tuple[int, int] = (1, 3)
    max_arrivals: int = 3
    max_duration: int = 2

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass(frozen=True)
class MechanismInfo:
    """One row of the table and, if it exists, the callable that implements it.

    ``target`` is a dotted path (``"fairalloc.drf"``) with optional keyword arguments ``kwargs``;
    ``dynamics`` says how the repeated game carries state (``"sdrf"``: commitments by Eq. 3;
    ``"usage"``: a production policy's decayed usage, :class:`proofs_check.repeated.UsageDynamics`;
    ``"stateless"``). ``atol`` is the tolerance its checks use (interior-point solvers are accurate to
    about 1e-8, not to the last bit). ``divisible``: the mechanism allocates fractional tasks on
    servers (judged with divisible utilities). ``derived``: a row we added (not in ``axioms.md``).

    Parameters
    ----------
    key : str
        The row's key (``"drf"``, ``"weighted_max_min"``, ...).
    label : str
        The row's label as the report prints it.
    target : str or None
        Dotted path of the implementing callable, None for a row fairalloc does not implement.
    domain : Domain
        The instances the row speaks about.
    source : str
        The paper (or ``axioms.md``) the row's verdicts come from.
    kwargs : mapping, default {}
        Keyword arguments bound to the callable (e.g. ``{"blocking": "stop"}``).
    dynamics : {"stateless", "sdrf", "usage"} or None, default "stateless"
        How the repeated game carries state; None when the row has no repeated game.
    atol : float, default 1e-9
        Absolute tolerance of the row's checks.
    phase : str, default "A"
        The campaign phase the row belongs to.
    reason : str, default ""
        Why the row is not implemented (when ``target`` is None or does not import).
    divisible : bool, default False
        The mechanism allocates fractional tasks on servers.
    derived : bool, default False
        A row we added, not in ``axioms.md``.

    Attributes
    ----------
    implemented : bool
        ``target`` resolves to a callable.
    why_not : str
        Why it does not ("" when implemented).

    Examples
    --------
    >>> info = MECHANISMS["drf"]
    >>> info.target, info.implemented, info.resolve().__name__
    ('fairalloc.drf', True, 'drf')
    >>> MECHANISMS["drfh"].implemented, MECHANISMS["drfh"].why_not
    (False, 'not implemented in fairalloc (DRFH)')
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
    divisible: bool = False
    derived: bool = False

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
    """One cell (and variant) of the table.

    Parameters
    ----------
    mechanism : str
        The row's key in :data:`MECHANISMS` (or :data:`USER_MECHANISMS`).
    axiom : str
        The column's key in :data:`AXIOMS` (``"si"``, ``"ef"``, ``"sp-stage"``, ...).
    variant : str
        Which reading of the axiom (``"plain"``, ``"weighted"``, ``"commitment"``, ...).
    expected : {"T", "F", "?", "-"}
        Theorem, known false, open, not applicable.
    cell : str
        The cell's text as ``axioms.md`` prints it.
    source : str
        Where the verdict comes from.
    derived : bool, default False
        A cell we added from our own analysis (see ``note``).
    note : str, default ""
        The argument for a derived cell.

    Attributes
    ----------
    key : str
        ``"mechanism/axiom/variant"``, the name campaigns and :data:`FINDINGS` use.

    Examples
    --------
    Ghodsi et al. prove DRF sharing-incentive (the table's "T"):

    >>> c = claims_for("drf", "si")[0]
    >>> c.key, c.expected, c.source
    ('drf/si/plain', 'T', 'Ghodsi et al., DRF, NSDI 2011')
    """

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
_NOT = "not implemented in fairalloc"
_TSF = "Wang, Li, Liang, Li, TSF, SC 2016"
_TVTSF = "Li & Wang, TV-TSF, 2024"
#: the small server domain of the indivisible rows (placement only where a row is about it)
_srv = dict(setting="servers", n_agents=(2, 3), n_resources=(1, 2), n_servers=(1, 2))
_tv = Domain(setting="time-varying", n_agents=(2, 3), n_resources=(1, 2), n_servers=(1, 2), placement=True,
             n_slots=(1, 3), max_arrivals=4, max_duration=3)

_one = Domain(n_resources=(1, 1), caps=True)
#: production policies (fairalloc.fairshare.pooled): the billed first resource is needed by every user
_hpc = Domain(n_resources=(1, 3), caps=True)
_wdom = Domain(zero_demands=True, caps=True, weights=True)
_SLURM = "SchedMD, Slurm classic_fair_share and fair_tree pages, priority_multifactor.c"
_CONDOR = "HTCondor admin manual, user priorities and negotiation (pie slices)"
_KUEUE = "Kueue KEP 1714, fair_sharing.go (dominant resource share)"
_YARN = "Hadoop FairScheduler, DominantResourceFairnessPolicy"
_MESOS = "Apache Mesos, DRFSorter"
_VOLCANO = "Volcano proportion.go and drf.go"
_KUEUE_AFS = "Kueue KEP 4136 (admission fair sharing)"
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
    MechanismInfo("drf_indivisible_stop", "DRF, indivisible tasks, stop at first misfit (as printed)",
                  "fairalloc.scheduling.drf_greedy", Domain(**_srv), _SDRF + " Algorithm 1; " + _PARKES,
                  kwargs={"blocking": "stop"}, dynamics=None, phase="B"),
    MechanismInfo("drf_indivisible_skip", "DRF, indivisible, skip users that do not fit",
                  "fairalloc.scheduling.drf_greedy", Domain(**_srv), _PARKES, kwargs={"blocking": "skip"},
                  dynamics=None, phase="B"),
    MechanismInfo("sequential_minmax", "sequential min-max (Parkes et al., indivisible)",
                  "fairalloc.scheduling.cdrf_greedy", Domain(**_srv), _PARKES, dynamics=None, phase="B"),
    MechanismInfo("drfh", "DRFH (heterogeneous servers)", None, Domain(setting="servers"),
                  "Wang, Li, Liang, DRFH, IEEE TPDS 2015", phase="-", reason=_NOT + " (DRFH)"),
    MechanismInfo("tsf", "TSF (placement constraints)", "fairalloc.tsf", Domain(**_srv, placement=True), _TSF,
                  kwargs={"method": "lp", "solver": "highs"}, dynamics=None, atol=1e-6, phase="B", divisible=True),
    MechanismInfo("tvtsf_milp", "TV-TSF integer program (leximin of cumulative task shares)", "fairalloc.tvtsf",
                  _tv, _TVTSF + " (Theorems 1-3, Section 2: each slot maximises the smallest cumulative share); "
                  + _OURS, kwargs={"method": "milp-online", "objective": "leximin", "solver": "highs"},
                  dynamics=None, phase="B"),
    MechanismInfo("tvtsf_greedy", "TV-TSF greedy (best fit + FREEZE)", "fairalloc.tvtsf", _tv,
                  _TVTSF + " (Algorithms 1-5); " + _OURS, kwargs={"method": "greedy"}, dynamics=None, phase="B"),
    MechanismInfo("asset", "asset fairness", "fairalloc.asset_fairness", Domain(), _GHODSI),
    MechanismInfo("ceei", "CEEI (equal budgets)", "fairalloc.ceei", Domain(), _GHODSI + "; Varian 1974",
                  atol=1e-6, dynamics=None),
    MechanismInfo("bottleneck_max", "bottleneck max fairness, Dolev's bottleneck-based fairness", None, Domain(),
                  "Bonald & Roberts 2015; Dolev et al. 2012", phase="-", reason=_NOT),
    MechanismInfo("dynamic_drf", "dynamic DRF (Kash et al.)", None, Domain(),
                  "Kash, Procaccia, Shah, JAIR 2014", phase="-", reason=_NOT),
    # -- rows of ours (derived): mechanisms of fairalloc the table leaves implicit ------------------
    MechanismInfo("tsf_integer", "TSF, indivisible tasks (exact leximin MILP) [ours]", "fairalloc.exact.tasks_leximin",
                  Domain(**_srv, placement=True), _TSF + "; " + _OURS,
                  kwargs={"mechanism": "tsf", "solver": "highs"}, dynamics=None, phase="B", derived=True),
    MechanismInfo("tsf_unfloored", "TSF, divisible, monopoly counts without floors (Wang et al.'s task share) [ours]",
                  "proofs_check.variants.tsf_unfloored", Domain(**_srv, placement=True), _TSF + "; " + _OURS,
                  dynamics=None, atol=1e-6, phase="B", divisible=True, derived=True),
    MechanismInfo("tvtsf_offline", "TV-TSF integer program over the whole horizon (Eq. 10, offline) [ours]",
                  "fairalloc.tvtsf", _tv, _TVTSF + " (Eq. 10, errata fixed); " + _OURS,
                  kwargs={"method": "milp", "objective": "leximin", "solver": "highs"}, dynamics=None, phase="B",
                  derived=True),
    # -- production policies, pooled forms (fairalloc.fairshare.pooled; issues 27-28) [ours] --------------
    MechanismInfo("slurm_classic", "Slurm classic fair share, pooled, CPU billing (the default) [ours]",
                  "proofs_check.production.slurm_classic", _hpc, _SLURM + "; " + _OURS, dynamics="usage",
                  derived=True),
    MechanismInfo("slurm_fair_tree", "Slurm Fair Tree, pooled, CPU billing, flat tree [ours]",
                  "proofs_check.production.slurm_fair_tree", _hpc, _SLURM + "; " + _OURS, dynamics="usage",
                  derived=True),
    MechanismInfo("slurm_max_tres", "Slurm classic fair share, pooled, MAX_TRES billing by 1/capacity [ours]",
                  "proofs_check.production.slurm_max_tres",
                  Domain(zero_demands=True, caps=True, commitments=True), _SLURM + "; " + _OURS, dynamics="usage",
                  derived=True),
    MechanismInfo("htcondor", "HTCondor negotiation cycle, pooled, SLOT_WEIGHT = Cpus [ours]",
                  "proofs_check.production.htcondor", _hpc, _CONDOR + "; " + _OURS, dynamics="usage", derived=True),
    MechanismInfo("kueue_drs", "Kueue fair sharing, pooled, one ClusterQueue per user, no quotas [ours]",
                  "fairalloc.fairshare.pooled.kueue_drs", _wdom, _KUEUE + "; " + _OURS, derived=True),
    MechanismInfo("yarn_drf", "YARN Fair Scheduler with DRF, pooled, one queue per user, no min shares [ours]",
                  "fairalloc.fairshare.pooled.yarn_drf", _wdom, _YARN + "; " + _OURS, derived=True),
    MechanismInfo("mesos_drf", "Mesos DRF sorter, pooled, one role per user [ours]",
                  "fairalloc.fairshare.pooled.mesos_drf", _wdom, _MESOS + "; " + _OURS, derived=True),
    MechanismInfo("volcano_proportion", "Volcano proportion plugin, pooled, one queue per user [ours]",
                  "fairalloc.fairshare.pooled.volcano_proportion", _wdom, _VOLCANO + "; " + _OURS, derived=True),
    MechanismInfo("volcano_drf", "Volcano DRF plugin, pooled, one job per user [ours]",
                  "fairalloc.fairshare.pooled.volcano_drf", Domain(zero_demands=True, caps=True),
                  _VOLCANO + "; " + _OURS, derived=True),
    MechanismInfo("volcano_hdrf", "Volcano hierarchical DRF, pooled, flat hierarchy [ours]",
                  "fairalloc.fairshare.pooled.volcano_hdrf", _wdom, _VOLCANO + "; " + _OURS, derived=True),
    MechanismInfo("kueue_afs", "Kueue admission fair sharing, pooled, one ClusterQueue, default weights [ours]",
                  "proofs_check.production.kueue_afs", _wdom, _KUEUE_AFS + "; " + _OURS, dynamics="usage",
                  derived=True),
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
_row("tvtsf_milp", {"sp-stage": "F", "sp-repeated": "?", "po": [("per-slot", "T")], "si": [("per-slot", "F")],
                    "ef": [("cumulative", "F")],
                    "ef1": [("per-slot-remove", "?"), ("per-slot-gain", "F"), ("cumulative-constrained-remove", "F")],
                    "bottleneck": [("per-slot", "T"), ("cumulative", "T")], "pm": "?", "rm": "?"},
     {"po": "T per slot", "si": "F per slot", "ef": "F", "bottleneck": "T",
      "ef1": "per slot: remove ?, gain F; cumulative with constraints: remove F"})
_row("tvtsf_greedy", {"sp-stage": "F", "sp-repeated": "?", "po": [("cumulative", "F")], "si": [("cumulative", "F")],
                      "ef": [("cumulative", "F")], "ef1": [("cumulative-remove", "F")],
                      "bottleneck": [("per-slot", "T"), ("cumulative", "T")], "pm": "?", "rm": "?"},
     {"po": "**F**", "si": "F", "ef": "F", "ef1": "remove F", "bottleneck": "T"})
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
    # TV-TSF, the program slot by slot (the table's row): the horizon readings the table does not state
    Claim("tvtsf_milp", "po", "cumulative", "?", "(not in the table)", _OURS, True,
          "Theorem 3 is about the whole horizon; a slot-by-slot leximin is myopic (open)"),
    Claim("tvtsf_milp", "si", "cumulative", "?", "(not in the table)", _OURS, True,
          "Theorem 1 (Eq. 5) claims T; its proof takes a feasible point for the max-min (open)"),
    Claim("tvtsf_greedy", "po", "per-slot", "?", "(not in the table)", _OURS, True, "open"),
    Claim("tvtsf_greedy", "si", "per-slot", "?", "(not in the table)", _OURS, True, "open"),
]


def _ours(mech: str, cells: list[tuple[str, str, str, str]]) -> None:
    """Cells of a derived row: (axiom, variant, expected, note)."""
    _DERIVED.extend(Claim(mech, a, v, e, "(not in the table)", MECHANISMS[mech].source, True, note)
                    for a, v, e, note in cells)


_LEX = "leximin over integer allocations: a Pareto improvement would be leximin-better"
_INDIV = ("indivisible tasks: one server <3>, two users of unit tasks wanting 3 each; any allocation "
          "is 2/1 and the user with 1 task values the other's 2")
_ours("tsf_integer", [
    ("sp-stage", "stage", "?", "open"), ("sp-repeated", "repeated", "-", "no state"),
    ("po", "strong", "T", _LEX), ("si", "plain", "?", "open"),
    ("ef", "no-constraints", "F", _INDIV), ("ef", "with-constraints", "F", _INDIV),
    ("ef1", "remove", "?", "open"), ("ef1", "gain", "?", "open"),
    ("bottleneck", "bottleneck", "T", "Pareto efficient, hence non-wasteful"),
    ("bottleneck", "non-wasteful", "T", "Pareto efficient, hence non-wasteful"),
    ("pm", "plain", "?", "open"), ("rm", "plain", "?", "open")])
_ENVY_PLACEMENT = ("our analysis, with axioms.md's utility (eligible servers only): equal task shares cannot "
                   "envy (h_i >= rho_ji h_j, TV-TSF Lemma 1, placement ignored in h), and a user above i's share "
                   "cannot hold what i could use, or leximin would move it; the table's F needs a valuation that "
                   "counts servers i may not use")
_ours("tsf_unfloored", [
    ("sp-stage", "stage", "T", "Wang et al. (TSF)"), ("sp-repeated", "repeated", "-", "no state"),
    ("po", "strong", "T", "Wang et al. (TSF)"), ("si", "plain", "T", "Wang et al. (TSF)"),
    ("ef", "no-constraints", "T", "Wang et al. (TSF)"), ("ef", "with-constraints", "T", _ENVY_PLACEMENT),
    ("bottleneck", "bottleneck", "T", "Wang et al. (TSF)"), ("bottleneck", "non-wasteful", "T", "Wang et al. (TSF)"),
    ("pm", "plain", "F", "as the table's TSF row (zero demands, as lexicographic DRF)"),
    ("rm", "plain", "F", "as the table's TSF row (as DRF)")])
_IDLE = ("the optimum ignores when tasks start: one server <2>, one user submits 2 unit tasks in slot 0 "
         "(1 slot each) over 2 slots; starting one in each slot is optimal and leaves slot 0 half idle")
_ours("tvtsf_offline", [
    ("sp-stage", "stage", "?", "open"), ("sp-repeated", "repeated", "?", "open"),
    ("po", "per-slot", "F", _IDLE), ("po", "cumulative", "T", "Theorem 3; " + _LEX),
    ("si", "per-slot", "F", _IDLE), ("si", "cumulative", "?", "Theorem 1 claims T (open)"),
    ("ef", "cumulative", "F", "indivisible tasks (one task, two users)"),
    ("ef1", "per-slot-remove", "?", "open"), ("ef1", "per-slot-gain", "?", "open"),
    ("ef1", "cumulative-remove", "?", "Theorem 2 claims T (open)"), ("ef1", "cumulative-gain", "?", "open"),
    ("ef1", "cumulative-constrained-remove", "?", "open"),
    ("bottleneck", "per-slot", "F", _IDLE),
    ("bottleneck", "cumulative", "T", "Pareto efficient over the horizon, hence non-wasteful"),
    ("pm", "plain", "?", "open"), ("rm", "plain", "?", "open")])

# -- production policies, pooled forms (fairalloc.fairshare.pooled) -------------------------------------
# Rows with usage memory judge the stage game from a clean history (no past usage: the allocation DRF is
# compared with), except slurm_max_tres whose stage carries past usage (SDRF's setting); their repeated
# game carries the usage by the policy's own update (proofs_check.production).
_CPU_SI = ("CPU billing (Slurm's default TRESBillingWeights=CPU=1; HTCondor's SLOT_WEIGHT = Cpus) is max-min "
           "of the first resource: capacities <1, 1>, demands <1, 0.1> and <0.1, 1>; equal CPU x each, memory "
           "0.1x + 10x = 1 saturates at x = 10/101, so user 0 runs 10/101 < 1/2 of its demand (DRF: 10/11 each)")
_CPU_EQ = ("with no past usage every unsatisfied user holds the same CPU (positive demands: all freeze at the first "
           "saturation), so u_i(A_j) <= CPU_j / d_i,cpu <= u_i(A_i)")
_CPU_MONO = ("no past usage, positive demands: each user gets min(level, its CPU demand) with the level the first "
             "saturation; a user leaving or a capacity growing cannot lower it")
_FILL = "progressive filling stops a user only when satisfied or needing a saturated resource (Pareto certificate)"
_SLURM_DEV = ("Slurm charges all usage, even below the fair share: one CPU, delta 1/2 per period. Period 0: user 0 "
              "holds 0.6, user 1 0.1 (one task); period 1 both want all (user 1's tasks are 0.01). Taking half of its "
              "task lowers user 1's usage from 0.05 to 0.025 and raises its period-1 CPU from 0.625 to 0.6375: +0.75 "
              "tasks (tests/unit/proofs_check/test_production_findings.py; SDRF does not charge user 1 at all)")
_DEV = "a deviation found by the repeated-game search (the shrunk witness replays: tests/property/test_counterexamples.py)"
_WD = "one queue per user without quotas / min shares the rule is weighted DRF (tests/unit/fairshare/test_pooled.py)"
_PAST = "past usage lowers a user's level start, as SDRF's commitments (plain reading; the history is the point)"
_STAGE_SDRF = ("MAX_TRES by 1/C bills the dominant share: the stage is SDRF's Eq. 5 with the billed usage as the "
               "commitment (tests: equal to fa.sdrf), strategy-proof for fixed commitments (Sadok et al., Prop. 2)")
for _m in ("slurm_classic", "slurm_fair_tree", "htcondor"):
    _ours(_m, [("sp-stage", "stage", "?", "no lie found by the campaigns; open"),
               ("sp-repeated", "repeated", "F", _SLURM_DEV if _m != "htcondor" else
                "the RUP remembers the slot weight used: on the game of the Slurm rows (100 cores) user 1's RUP "
                "falls from 5.25 to 2.75 and its pie share rises from 30.25/35.5 to 30.25/33; " + _DEV),
               ("po", "strong", "T", _FILL), ("si", "plain", "F", _CPU_SI), ("ef", "plain", "T", _CPU_EQ),
               ("bottleneck", "bottleneck", "T", _FILL), ("bottleneck", "non-wasteful", "T", _FILL),
               ("pm", "plain", "T", _CPU_MONO), ("rm", "plain", "T", _CPU_MONO)])
_ours("slurm_max_tres", [("sp-stage", "stage", "T", _STAGE_SDRF), ("sp-repeated", "repeated", "F", _DEV),
                         ("po", "strong", "T", _FILL), ("si", "plain", "F", _PAST), ("ef", "plain", "F", _PAST),
                         ("bottleneck", "bottleneck", "T", _FILL), ("bottleneck", "non-wasteful", "T", _FILL),
                         ("pm", "plain", "F", "zero demands, as SDRF and lexicographic DRF"),
                         ("rm", "plain", "F", "as DRF")])
for _m in ("kueue_drs", "yarn_drf", "mesos_drf", "volcano_hdrf"):
    _ours(_m, [("sp-stage", "stage", "T", _WD), ("sp-repeated", "repeated", "T", _WD + "; no state"),
               ("po", "strong", "T", _WD), ("si", "plain", "F", _WD + " (weights)"),
               ("si", "weighted", "T", _WD), ("ef", "plain", "F", _WD + " (weights)"), ("ef", "weighted", "T", _WD),
               ("bottleneck", "bottleneck", "T", _WD), ("bottleneck", "non-wasteful", "T", _WD),
               ("pm", "plain", "F", _WD + "; zero demands, as lexicographic DRF"), ("rm", "plain", "F", "as DRF")])
_VD = "one job per user: the plugin orders jobs by dominant share, DRF (tests/unit/fairshare/test_pooled.py)"
_ours("volcano_drf", [("sp-stage", "stage", "T", _VD), ("sp-repeated", "repeated", "T", _VD + "; no state"),
                      ("po", "strong", "T", _VD), ("si", "plain", "T", _VD), ("ef", "plain", "T", _VD),
                      ("bottleneck", "bottleneck", "T", _VD), ("bottleneck", "non-wasteful", "T", _VD),
                      ("pm", "plain", "F", "zero demands, as lexicographic DRF"), ("rm", "plain", "F", "as DRF")])
_PROP = ("deserved is divided resource by resource and a queue stops at its deserved: <10, 2> and <2, 10> on "
         "<10, 10> deserve <8, 2> and <2, 8>, run 0.8 of their demands and leave 0.4 of each resource idle "
         "(DRF: 10/12 each)")
_ours("volcano_proportion", [("sp-stage", "stage", "?", "no lie found by the campaigns; open"),
                             ("sp-repeated", "repeated", "?", "no state: the stage game per period (open)"),
                             ("po", "strong", "F", _PROP), ("si", "plain", "F", "weights"),
                             ("si", "weighted", "?", "no violation found by the campaigns; open"),
                             ("ef", "plain", "F", "weights"),
                             ("ef", "weighted", "?", "no violation found by the campaigns; open"),
                             ("bottleneck", "bottleneck", "F", _PROP), ("bottleneck", "non-wasteful", "F", _PROP),
                             ("pm", "plain", "?", "open"), ("rm", "plain", "?", "open")])
_AFS = ("the usage adds raw amounts (resource weights 1: CPUs and GB alike), asset fairness at prices 1 per unit: "
        "capacities <1, 100>, demands <1, 1> and <0.01, 100>: equal usage 2 t0 = 100.01 t1 with the CPU binding "
        "gives user 1 about 0.02 of its demand (DRF: about 1/2)")
_ours("kueue_afs", [("sp-stage", "stage", "?", "no lie found by the campaigns; open"),
                    ("sp-repeated", "repeated", "F", "the consumed usage (and its entry penalty) remembers every "
                     "admission; " + _DEV),
                    ("po", "strong", "T", _FILL), ("si", "plain", "F", _AFS), ("si", "weighted", "F", _AFS),
                    ("ef", "plain", "F", "weights"),
                    ("ef", "weighted", "?", "no violation found by the campaigns; open"),
                    ("bottleneck", "bottleneck", "T", _FILL), ("bottleneck", "non-wasteful", "T", _FILL),
                    ("pm", "plain", "F", "zero demands (found by the campaigns)"), ("rm", "plain", "F", "as asset fairness")])

CLAIMS: tuple[Claim, ...] = tuple(
    Claim(m, a, v, e, t or e, MECHANISMS[m].source) for (m, a, v, e, t) in _ROWS) + tuple(_DERIVED)


#: T cells the campaigns refute: claim key -> what was found (see the report of ``fairalloc check --all``).
#: Property tests of T cells skip these and a unit test reproduces each witness instead.
_FLOOR = ("fairalloc's divisible TSF (fairalloc.exact.tsf_lp) divides by TV-TSF Eq. 4's floored monopoly count "
          "h_i = sum_m floor(min_r C_mr / d_ir); Wang et al.'s task share has no floors (row tsf_unfloored keeps "
          "this property). ")
FINDINGS: dict[str, str] = {
    "tsf/si/plain": _FLOOR + "One server <4>, tasks of 3 and 4 units, one wanted each: h = 1 and 1, TSF gives 4/7 "
                    "task each, below user 0's 2/3 on half the server.",
    "tsf/ef/no-constraints": _FLOOR + "One server <3>, tasks of 3 and 2 units: h = 1 and 1, 3/5 task each; user 1 "
                             "values user 0's 9/5 units at 0.9 task > 0.6.",
    "tsf/sp-stage/stage": _FLOOR + "One server <100>, user 0's tasks 34 units (h = 2), user 1's 10 (h = 10): "
                          "reporting 33 units (h = 3) raises user 0 from 1.19 to 1.46 true tasks.",
    "tsf_unfloored/si/plain": "TSF's h_i ignores placement (Wang et al.; TV-TSF Eq. 4): a user whose h counts a "
                              "server it may not use looks poorer and gets more. Servers <1, 1> and <1, 2>; user 0 "
                              "<1, 2> on both, user 1 <1, 0> on the second only: h = 1.5 and 2, user 0 gets 9/14 "
                              "< 3/4 task on half of each server.",
}


#: Mechanisms registered by users (:func:`proofs_check.user_mechanism.user_mechanism`), by key: kept
#: apart from :data:`MECHANISMS`, the table of axioms.md, which registering never changes.
USER_MECHANISMS: dict[str, MechanismInfo] = {}


def all_mechanisms() -> dict[str, MechanismInfo]:
    """The table's rows (:data:`MECHANISMS`) followed by the users' (:data:`USER_MECHANISMS`).

    Returns
    -------
    dict of str to MechanismInfo
        A new dictionary, by key; changing it changes neither table.

    Examples
    --------
    >>> rows = all_mechanisms()
    >>> list(rows)[:3] == list(MECHANISMS)[:3], set(MECHANISMS) <= set(rows)
    (True, True)
    """
    return {**MECHANISMS, **USER_MECHANISMS}


def claim_domain(claim: Claim) -> Domain:
    """The instances a claim speaks about: its row's domain, with or without placement constraints
    when the variant says so (TSF's EF "no constraints" / "with constraints").

    Parameters
    ----------
    claim : Claim
        A cell of the table.

    Returns
    -------
    Domain

    Raises
    ------
    KeyError
        The claim's mechanism is not a known row.

    Examples
    --------
    TSF's envy-freeness cell has two variants, the second on instances with placement constraints:

    >>> [claim_domain(c).placement for c in claims_for("tsf", "ef")]
    [False, True]
    """
    dom = mechanism(claim.mechanism).domain
    if claim.variant == "no-constraints":
        return replace(dom, placement=False)
    if claim.variant in ("with-constraints", "cumulative-constrained-remove"):
        return replace(dom, placement=True)
    return dom


def scope_of(variant: str) -> str:
    """``"per-slot"`` or ``"cumulative"``: how a time-varying claim is judged (:data:`AXIOMS`).

    Parameters
    ----------
    variant : str
        A time-varying claim's variant; those starting ``"per-slot"`` are judged in every slot, the
        others over the whole horizon (TV-TSF Section 1.3).

    Returns
    -------
    str

    Examples
    --------
    >>> scope_of("per-slot-remove"), scope_of("cumulative-gain")
    ('per-slot', 'cumulative')
    """
    return "per-slot" if variant.startswith("per-slot") else "cumulative"


def mechanism(key: str) -> MechanismInfo:
    """The :class:`MechanismInfo` of a row or of a user's mechanism (``KeyError`` listing the keys otherwise).

    Parameters
    ----------
    key : str
        A key of :func:`all_mechanisms`.

    Returns
    -------
    MechanismInfo

    Raises
    ------
    KeyError
        ``key`` is no row; the message lists the known keys.

    Examples
    --------
    >>> mechanism("weighted_drf").kwargs, mechanism("weighted_drf").domain.weights
    ({}, True)
    >>> mechanism("nope")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    KeyError: "unknown mechanism 'nope'; known: max_min, weighted_max_min, ..."
    """
    known = all_mechanisms()
    try:
        return known[key]
    except KeyError:
        raise KeyError(f"unknown mechanism {key!r}; known: {', '.join(known)}") from None


def claims_for(mechanism_key: str | None = None, axiom: str | None = None) -> list[Claim]:
    """Claims filtered by mechanism and/or axiom, in table order.

    Parameters
    ----------
    mechanism_key : str, optional
        Keep only this row's claims (default: every row).
    axiom : str, optional
        Keep only this column's claims (default: every column).

    Returns
    -------
    list of Claim

    Examples
    --------
    ``axioms.md``'s cell "F (weighted SI: T)" is two claims:

    >>> [(c.variant, c.expected) for c in claims_for("weighted_max_min", "si")]
    [('plain', 'F'), ('weighted', 'T')]
    """
    return [c for c in CLAIMS if (mechanism_key is None or c.mechanism == mechanism_key)
            and (axiom is None or c.axiom == axiom)]


def implemented_claims(*, testable_only: bool = True) -> list[Claim]:
    """Claims whose mechanism resolves to a callable (and, by default, whose verdict is T, F or ?).

    Parameters
    ----------
    testable_only : bool, default True
        Drop the ``"-"`` (not applicable) cells.

    Returns
    -------
    list of Claim
        In table order.

    Examples
    --------
    DRFH is not implemented, so none of its cells is; DRF's are, its "-" cell (EF1, for divisible
    allocations) only with ``testable_only=False``:

    >>> keys = {c.key for c in implemented_claims()}
    >>> any(k.startswith("drfh/") for k in keys), "drf/si/plain" in keys, "drf/ef1/remove" in keys
    (False, True, False)
    >>> "drf/ef1/remove" in {c.key for c in implemented_claims(testable_only=False)}
    True
    """
    return [c for c in CLAIMS if MECHANISMS[c.mechanism].implemented
            and (not testable_only or c.expected in ("T", "F", "?"))]
