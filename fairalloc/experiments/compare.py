r"""Greedy schedulers against the exact optimum of the same mechanism, instance by instance (issue 5, item 7).

For every instance and every *variant* (a greedy scheduler with its options, and the mechanism whose
exact program is its reference):

========================= ===========================================================================
variant (default set)      greedy  ->  exact reference
========================= ===========================================================================
``drf``                    :func:`~fairalloc.scheduling.drf_greedy` (blocking "stop", as Algorithm 1)
                           -> :func:`fairalloc.exact.tasks_leximin` ``mechanism="drf"``
``sdrf``                   :func:`~fairalloc.scheduling.sdrf_greedy` (level reading, "stop"; the
                           instance's commitments held constant) -> ``mechanism="sdrf"``
``tsf``                    :func:`~fairalloc.scheduling.tsf_greedy` ("skip") -> ``mechanism="tsf"``
``cdrf``                   :func:`~fairalloc.scheduling.cdrf_greedy` (SequentialMinMax, "skip")
                           -> ``mechanism="cdrf"``
``tvtsf``                  :func:`~fairalloc.scheduling.tvtsf_greedy` (Algorithms 1-5) ->
                           ``fa.tvtsf(tv, method="milp")`` (Eq. 10, leximin, offline)
========================= ===========================================================================

More variants (:data:`VARIANTS`): ``drf-skip``, ``sdrf-skip``, ``sdrf-printed`` (Algorithm 1's printed
priority, measured against Eq. 5's levels), ``tsf-slots`` and ``cdrf-slots`` (the TV-TSF paper's
slotted baselines, measured against the TV-TSF optimum).

Per (instance, variant) the table holds: the mechanism's value vector for both allocations, computed
by the same :mod:`fairalloc.shares` formulas the exact program maximises (dominant shares, SDRF levels,
task shares, the CDRF key, TV-TSF's cumulative task shares), over the users that can receive a task;
``greedy_min`` / ``exact_min``; ``min_gap`` = exact - greedy; ``leximin_distance``, the largest
difference between the two sorted value vectors (0 when the greedy reaches the leximin optimum);
``leximin_cmp`` (-1: greedy leximin-worse, 0: equal, +1: greedy better, which a proven optimum
excludes: it would be reported); utilisation (mean over resources, and slots, of the share of
capacity in use); whether the greedy allocation is **Pareto-dominated** in task counts
(:func:`fairalloc.exact.pareto.pareto_improvement`: another allocation gives every user at least as
many tasks and ``pareto_extra`` more in total; None when the solver could not decide); the time of
each; the exact status (OPTIMAL only when proven).

Times (``greedy_s``, ``exact_s``, ``pareto_s``) are wall-clock seconds of one call, measured after a
warm-up: before timing, every variant's greedy runs once and every mechanism's exact program is
solved once on a small built-in instance of its kind, untimed, so that no row pays for numba's compilation
of the schedulers (about 35 CPU seconds on a first run; numba caches the compiled code beside the
sources, so later runs load it in a fraction of a second) or for importing and starting a solver.
``exact_s`` is the whole leximin sequence of MILPs (and placement flow checks) of the mechanism;
``pareto_s`` the one Pareto MILP (solved once per distinct allocation of an instance: variants whose
greedy allocations are equal share the verdict and its time). The warm-up's own duration is ``table.attrs["warmup_s"]``.

The exact allocation is *an* optimum: the leximin optimum fixes the sorted vector of values, not
the allocation, and several allocations often reach it. ``exact_tasks`` and ``exact_util`` are those
of the allocation the solver returned, which may differ between solvers, versions and machines;
``exact_min``, ``min_gap``, ``leximin_distance`` and ``same`` depend only on the optimal values.

Where theory says greedy and exact coincide (one server, equal tasks; and, as tasks shrink, the
divisible limit where both approach the water-filling of the divisible mechanism) the tests check
that they do; elsewhere this module reports the difference, it does not fail.

References
----------
.. [1] A. Ghodsi et al., "Dominant Resource Fairness", NSDI 2011 (progressive filling).
.. [2] H. Sadok, M. Campista, L. Costa, "O Passado Também Importa", SBRC 2018, Algorithm 1, Eq. 5.
.. [3] D. Parkes, A. Procaccia, N. Shah, "Beyond Dominant Resource Fairness", ACM TEAC 2015.
.. [4] W. Wang et al., "Multi-resource fair sharing for datacenter jobs with placement constraints", SC 2016.
.. [5] Li Jie, Wang Jianzhou, "A fair multi-resource allocation mechanism for time-varying discrete
   jobs with placement constraints", Chinese Journal on Internet of Things, 2024.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from .. import shares
from ..rng import as_generator
from ..errors import InvalidInstanceError
from ..model import TaskInstance, TimeVaryingInstance
from ..result import SOLUTION_PRESENT, AllocationResult
from ..exact.values import mechanism_values  # noqa: F401 - the one table, re-exported here
from ..scheduling import cdrf_greedy, drf_greedy, sdrf_greedy, slotted_greedy, tsf_greedy, tvtsf_greedy

__all__ = ["Variant", "VARIANTS", "DEFAULT_VARIANTS", "compare", "summarize", "builtin_instances",
           "random_instances", "mechanism_values", "TOL"]

logger = logging.getLogger(__name__)

#: Values closer than this count as equal (shares are fractions of capacity).
TOL = 1e-9


@dataclass(frozen=True)
class Variant:
    """A greedy scheduler with fixed options, and the mechanism whose exact program it is compared with.

    Parameters
    ----------
    name : str
        The variant's name in tables (a key of :data:`VARIANTS` for the shipped ones).
    mechanism : {"drf", "sdrf", "tsf", "cdrf", "tvtsf"}
        The exact program it is compared with; ``"tvtsf"`` variants run on
        :class:`~fairalloc.TimeVaryingInstance` s, the others on :class:`~fairalloc.TaskInstance` s
        (:attr:`kind`).
    greedy : callable
        ``greedy(instance, **options) -> AllocationResult``.
    options : mapping, optional
        Fixed keyword arguments of ``greedy``.
    description : str, optional
        One line for listings.

    Examples
    --------
    DRF filling with ``blocking="skip"`` on the DRF paper's example (9 CPUs, 18 GB; tasks <1, 4>
    and <3, 1>): after A 3 and B 2 tasks all 9 CPUs are in use (3 x 1 + 2 x 3), so nothing more
    fits and skipping changes nothing: the same 3 and 2 as the paper:

    >>> import fairalloc as fa
    >>> from fairalloc.scheduling import drf_greedy
    >>> v = Variant("drf-skip", "drf", drf_greedy, {"blocking": "skip"})
    >>> v.kind, v.run(fa.TaskInstance([[9, 18]], [[1, 4], [3, 1]], tasks=[10, 10])).tasks.ravel().tolist()
    ('tasks', [3, 2])
    """

    name: str
    mechanism: str                   # "drf", "sdrf", "tsf", "cdrf" (TaskInstance) or "tvtsf"
    greedy: Callable[..., AllocationResult]
    options: Mapping[str, Any] = field(default_factory=dict)
    description: str = ""

    @property
    def kind(self) -> str:
        return "time-varying" if self.mechanism == "tvtsf" else "tasks"

    def run(self, instance: Any) -> AllocationResult:
        return self.greedy(instance, **dict(self.options))


def _slots(policy: str) -> Callable[..., AllocationResult]:
    def run(tv: TimeVaryingInstance, /, **kw: Any) -> AllocationResult:
        return slotted_greedy(tv, policy=policy, **kw)
    run.__name__ = f"slotted_greedy_{policy}"
    return run


#: Every variant ``compare`` knows, by name.
VARIANTS: dict[str, Variant] = {v.name: v for v in [
    Variant("drf", "drf", drf_greedy, {}, "DRF progressive filling, stop at the first task that does not fit"),
    Variant("drf-skip", "drf", drf_greedy, {"blocking": "skip"}, "DRF filling, skip users whose task does not fit"),
    Variant("sdrf", "sdrf", sdrf_greedy, {}, "SDRF Algorithm 1, level reading, stop"),
    Variant("sdrf-skip", "sdrf", sdrf_greedy, {"blocking": "skip"}, "SDRF Algorithm 1, level reading, skip"),
    Variant("sdrf-printed", "sdrf", sdrf_greedy, {"priority": "printed"},
            "SDRF Algorithm 1 as printed (max_r o + c), stop"),
    Variant("tsf", "tsf", tsf_greedy, {}, "TSF filling (lowest task share first), skip"),
    Variant("cdrf", "cdrf", cdrf_greedy, {}, "CDRF SequentialMinMax, skip"),
    Variant("tvtsf", "tvtsf", tvtsf_greedy, {}, "TV-TSF Algorithms 1-5"),
    Variant("tsf-slots", "tvtsf", _slots("tsf"), {}, "slotted TSF baseline (TV-TSF paper), vs the TV-TSF optimum"),
    Variant("cdrf-slots", "tvtsf", _slots("cdrf"), {}, "slotted CDRF baseline (TV-TSF paper), vs the TV-TSF optimum"),
]}

#: What ``fairalloc compare`` runs by default: every mechanism's own greedy.
DEFAULT_VARIANTS = ("drf", "sdrf", "tsf", "cdrf", "tvtsf")


# -- instances --------------------------------------------------------------------------------------
def builtin_instances() -> list[tuple[str, Any]]:
    """Small instances from the papers and hand-computed cases (name, instance).

    Returns
    -------
    list of (str, TaskInstance or TimeVaryingInstance)
        ``drf-paper`` (DRF Section 4), ``sdrf-commitment`` (the :func:`~fairalloc.scheduling.sdrf_greedy`
        doctest), ``two-servers-placement`` (the :func:`~fairalloc.scheduling.tsf_greedy` doctest),
        ``integer-trap`` (tasks 6 and 5 on a capacity of 10), ``tvtsf-two-servers`` (the
        :func:`~fairalloc.scheduling.tvtsf_greedy` doctest).

    Examples
    --------
    >>> [(name, type(inst).__name__) for name, inst in builtin_instances()][-2:]
    [('integer-trap', 'TaskInstance'), ('tvtsf-two-servers', 'TimeVaryingInstance')]
    """
    from ..clusters import drf_example

    two = [[4, 4], [4, 4]]
    return [
        # DRF paper (Ghodsi et al., Section 4): A <1, 4>, B <3, 1> on <9, 18>: 3 and 2 tasks
        ("drf-paper", TaskInstance(drf_example(), [[1, 4], [3, 1]], tasks=[10, 10])),
        # SDRF with a commitment on user 0's second resource (the sdrf_greedy doctest)
        ("sdrf-commitment", TaskInstance([[10, 10]], [[1, 1], [1, 1]], tasks=[10, 10],
                                         commitments=[[0, 0.3], [0, 0]])),
        # two servers, user 0 restricted to server 0 (tsf_greedy doctest)
        ("two-servers-placement", TaskInstance(two, [[1, 1], [2, 2]], tasks=[8, 8], placement=[[1, 0], [1, 1]])),
        # indivisibility trap: 6 + 5 > 10, the greedy serves the first user, leximin the second twice
        ("integer-trap", TaskInstance([[10]], [[6], [5]], tasks=[2, 2])),
        # TV-TSF: two servers, placement, two slots (tvtsf_greedy doctest)
        ("tvtsf-two-servers", TimeVaryingInstance([[4, 8], [8, 8]], [[2, 4], [2, 2]], arrivals=[[3, 0], [5, 0]],
                                                  durations=[1, 1], placement=[[1, 0], [1, 1]])),
    ]


def random_instances(n_tasks: int = 10, n_time_varying: int = 5, *, rng: Any = 0, max_agents: int = 5,
                     max_servers: int = 3, max_tasks: int = 12, n_slots: int = 4) -> list[tuple[str, Any]]:
    """Seeded random small instances on Table 3-like clusters (:mod:`fairalloc.exact.random_instances`):
    ``n_tasks`` task instances (with SDRF commitments) and ``n_time_varying`` TV-TSF instances.

    Parameters
    ----------
    n_tasks : int, default 10
        Number of :class:`~fairalloc.TaskInstance` s.
    n_time_varying : int, default 5
        Number of :class:`~fairalloc.TimeVaryingInstance` s.
    rng : int or numpy.random.Generator, default 0
        Seed; the same seed gives the same instances.
    max_agents, max_servers : int, default 5 and 3
        Upper bounds of the (uniform) number of users and servers of a task instance; for a
        time-varying instance the bounds are one less, but at least 3 and 2.
    max_tasks : int, default 12
        Upper bound of a task instance's tasks per user.
    n_slots : int, default 4
        Slots of every time-varying instance.

    Returns
    -------
    list of (str, instance)
        Named ``random-tasks-k`` then ``random-tv-k``.

    Examples
    --------
    >>> [name for name, _ in random_instances(2, 1, rng=0)]
    ['random-tasks-0', 'random-tasks-1', 'random-tv-0']
    >>> random_instances(1, 0, rng=5)[0][1].tasks.tolist() == random_instances(1, 0, rng=5)[0][1].tasks.tolist()
    True
    """
    from ..exact.random_instances import random_task_instance, random_time_varying_instance

    g = as_generator(rng)
    out: list[tuple[str, Any]] = []
    for k in range(int(n_tasks)):
        n, m = int(g.integers(2, max_agents + 1)), int(g.integers(1, max_servers + 1))
        out.append((f"random-tasks-{k}", random_task_instance(n, m, rng=g, max_tasks=max_tasks,
                                                              commitments=True)))
    for k in range(int(n_time_varying)):
        n, m = int(g.integers(2, max(3, max_agents - 1) + 1)), int(g.integers(1, max(2, max_servers - 1) + 1))
        out.append((f"random-tv-{k}", random_time_varying_instance(n, m, n_slots, rng=g, max_duration=2)))
    return out


# -- values -----------------------------------------------------------------------------------------
def _servable(instance: Any) -> np.ndarray:
    """Users that can receive at least one task: some eligible server fits one, and it wants tasks."""
    if isinstance(instance, TimeVaryingInstance):
        d = instance.task_demands                                          # (N, T, K)
        fits = (shares.tasks_that_fit(instance.cluster.capacities[None, None], d[:, :, None, :]) >= 1)
        ok = (fits & instance.placement[:, None, :]).any(axis=2)           # (N, T)
        return (ok & (instance.arrivals > 0)).any(axis=1)
    fits = instance.fits >= 1
    return (fits & instance.placement).any(axis=1) & (instance.tasks > 0)


def _utilization(instance: Any, result: AllocationResult) -> float:
    totals = instance.cluster.totals
    if isinstance(instance, TimeVaryingInstance):
        usage = np.asarray(result.details["usage"])                       # (M, K, T)
        return float((usage.sum(axis=0) / totals[:, None]).mean())
    used = np.einsum("im,ir->r", result.tasks, instance.task_demands)
    return float((used / totals).mean())


def _leximin(g: np.ndarray, e: np.ndarray) -> tuple[float, int]:
    gs, es = np.sort(g), np.sort(e)
    if gs.size == 0:
        return 0.0, 0
    diff = gs - es
    dist = float(np.abs(diff).max())
    for v in diff:
        if v < -TOL:
            return dist, -1
        if v > TOL:
            return dist, 1
    return dist, 0


def _exact(instance: Any, mechanism: str, *, solver: str | None, time_limit: float | None,
           threads: int | None = 1) -> AllocationResult:
    if mechanism == "tvtsf":
        from ..mechanisms.tvtsf import tvtsf
        return tvtsf(instance, method="milp", solver=solver, time_limit=time_limit, threads=threads)
    from ..exact import tasks_leximin
    return tasks_leximin(instance, mechanism=mechanism, solver=solver, time_limit=time_limit, threads=threads)


# -- the comparison ---------------------------------------------------------------------------------
def compare(instances: Iterable[tuple[str, Any]] | None = None, /, *,
            variants: Sequence[str | Variant] = DEFAULT_VARIANTS, solver: str | None = None,
            time_limit: float | None = 30.0, pareto: bool = True, progress: bool = False,
            warmup: bool = True, threads: int | None = 1) -> pd.DataFrame:
    """Run every applicable variant's greedy and exact program on every instance; one row each.

    Parameters
    ----------
    instances : iterable of (name, TaskInstance or TimeVaryingInstance), optional
        Default: :func:`builtin_instances` plus :func:`random_instances` (seed 0).
    variants : sequence of str or Variant
        Names of :data:`VARIANTS` (default :data:`DEFAULT_VARIANTS`). Task variants run on
        :class:`~fairalloc.TaskInstance` s, ``tvtsf``-mechanism variants on
        :class:`~fairalloc.TimeVaryingInstance` s.
    solver : str, optional
        MILP backend (``"highs"``, ``"cbc"``).
    time_limit : float, optional
        Seconds per exact program (and per Pareto MILP). A program stopped by it reports status
        FEASIBLE (not proven) or NOT_SOLVED; its row says so.
    pareto : bool
        Also decide whether each greedy allocation is Pareto-dominated (one more MILP each).
    progress : bool
        tqdm progress bar.
    warmup : bool, default True
        Run every greedy and every mechanism's exact program once, untimed, before timing (module
        docstring); the seconds it took are ``table.attrs["warmup_s"]``.
    threads : int or None, default 1
        Solver threads per exact program (None: the backend's default). These programs are small:
        on the default run, one HiGHS thread took a third less CPU time than HiGHS's default
        (measured in the same process), as starting threads costs more than they save.

    Returns
    -------
    pandas.DataFrame
        One row per (instance, variant); columns described in the module docstring.

    Examples
    --------
    >>> import fairalloc as fa
    >>> from fairalloc.experiments.compare import builtin_instances
    >>> df = compare(builtin_instances()[3:4], variants=["drf", "drf-skip"], solver="highs")
    >>> df[["variant", "greedy_min", "exact_min", "leximin_distance", "pareto_dominated"]].values.tolist()
    [['drf', 0.0, 0.0, 0.4, False], ['drf-skip', 0.0, 0.0, 0.4, False]]
    """
    from tqdm.auto import tqdm

    if instances is None:
        instances = builtin_instances() + random_instances(rng=0)
    insts = list(instances)
    vs = []
    for v in variants:
        if isinstance(v, str):
            if v not in VARIANTS:
                raise InvalidInstanceError(f"variant {v!r} is not one of {', '.join(VARIANTS)}",
                                           argument="variants", value=v)
            v = VARIANTS[v]
        vs.append(v)
    for name, inst in insts:
        if not isinstance(inst, (TaskInstance, TimeVaryingInstance)):
            raise InvalidInstanceError(f"instance {name!r} is a {type(inst).__name__}: compare needs task "
                                       "instances (kind: tasks) or time-varying ones (kind: time-varying)",
                                       argument="instances", value=name)
    jobs = [(n, i, v) for n, i in insts for v in vs
            if (v.kind == "time-varying") == isinstance(i, TimeVaryingInstance)]
    exact_cache: dict[tuple[int, str], tuple[AllocationResult, float]] = {}
    pareto_cache: dict[tuple[int, tuple[int, ...], bytes], tuple[Any, float]] = {}
    t_warm = 0.0
    if warmup:
        t0 = time.perf_counter()
        _warm_up(jobs, solver=solver, time_limit=time_limit, threads=threads)
        t_warm = time.perf_counter() - t0
    rows = []
    for name, inst, v in tqdm(jobs, desc="compare", unit="run", disable=not progress):
        key = (id(inst), v.mechanism)
        if key not in exact_cache:
            t0 = time.perf_counter()
            ex = _exact(inst, v.mechanism, solver=solver, time_limit=time_limit, threads=threads)
            exact_cache[key] = (ex, time.perf_counter() - t0)
        ex, t_exact = exact_cache[key]
        t0 = time.perf_counter()
        gr = v.run(inst)
        t_greedy = time.perf_counter() - t0
        rows.append(_row(name, inst, v, gr, t_greedy, ex, t_exact, solver=solver, time_limit=time_limit,
                         pareto=pareto, pareto_cache=pareto_cache))
    table = pd.DataFrame(rows)
    table.attrs["warmup_s"] = t_warm
    return table


def _warm_up(jobs: Sequence[tuple[str, Any, Variant]], *, solver: str | None, time_limit: float | None,
             threads: int | None) -> None:
    """Run each variant's greedy once on the first instance of its kind (numba compiles the schedulers
    for those array types, or loads them from its cache) and each mechanism's exact program once on a
    small built-in instance of its kind (the solver's import and start), untimed."""
    small = dict(builtin_instances())
    tiny = {"tasks": small["integer-trap"], "time-varying": small["tvtsf-two-servers"]}
    greedy_done: set[str] = set()
    exact_done: set[str] = set()
    for _name, inst, v in jobs:
        if v.name not in greedy_done:
            greedy_done.add(v.name)
            v.run(inst)
        if v.mechanism not in exact_done:
            exact_done.add(v.mechanism)
            _exact(tiny[v.kind], v.mechanism, solver=solver, time_limit=time_limit, threads=threads)


def _row(name: str, inst: Any, v: Variant, gr: AllocationResult, t_greedy: float, ex: AllocationResult,
         t_exact: float, *, solver: str | None, time_limit: float | None, pareto: bool,
         pareto_cache: dict | None = None) -> dict[str, Any]:
    tv = isinstance(inst, TimeVaryingInstance)
    mask = _servable(inst)
    row: dict[str, Any] = {
        "instance": name, "variant": v.name, "mechanism": v.mechanism, "users": inst.n_agents,
        "servers": inst.n_servers, "slots": inst.n_slots if tv else 1,
        "exact_status": ex.status.value, "greedy_s": t_greedy, "exact_s": t_exact}
    gv = mechanism_values(inst, v.mechanism, gr.tasks)
    row["greedy_min"] = float(gv[mask].min()) if mask.any() else np.nan
    row["greedy_tasks"] = int(np.asarray(gr.tasks).sum())
    row["greedy_util"] = _utilization(inst, gr)
    if ex.status in SOLUTION_PRESENT and ex.tasks is not None:
        ev = mechanism_values(inst, v.mechanism, ex.tasks)
        row["exact_min"] = float(ev[mask].min()) if mask.any() else np.nan
        row["exact_tasks"] = int(np.asarray(ex.tasks).sum())
        row["exact_util"] = _utilization(inst, ex)
        dist, cmp = _leximin(gv[mask], ev[mask])
        row.update(min_gap=row["exact_min"] - row["greedy_min"], leximin_distance=dist, leximin_cmp=cmp,
                   same=bool(dist <= TOL))
        if cmp > 0 and ex.status.value == "optimal":
            logger.warning("%s / %s: the greedy is leximin-better than a proven optimum (%s)", name, v.name,
                           ex.message)
    else:
        row.update(exact_min=np.nan, exact_tasks=np.nan, exact_util=np.nan, min_gap=np.nan,
                   leximin_distance=np.nan, leximin_cmp=np.nan, same=None)
    row["pareto_dominated"] = None
    row["pareto_extra"] = np.nan
    row["pareto_s"] = np.nan
    if pareto:
        from ..exact.pareto import pareto_improvement
        tasks = np.asarray(gr.tasks)
        key = (id(inst), tasks.shape, np.ascontiguousarray(tasks, dtype=np.int64).tobytes())
        cache = {} if pareto_cache is None else pareto_cache
        if key not in cache:                  # the same allocation of the same instance: the same verdict
            t0 = time.perf_counter()
            verdict = pareto_improvement(inst, gr.tasks, solver=solver, time_limit=time_limit)
            cache[key] = (verdict, time.perf_counter() - t0)
        verdict, t_pareto = cache[key]
        row.update(pareto_dominated=verdict.dominated, pareto_extra=verdict.extra, pareto_s=t_pareto)
    return row


def summarize(table: pd.DataFrame, /) -> pd.DataFrame:
    """One row per variant: how often the greedy reaches the optimum, what it loses, times.

    Columns: ``instances``, ``same`` (greedy = leximin optimum), ``differ``, ``mean_min_gap``,
    ``max_min_gap``, ``mean_distance``, ``max_distance``, ``dominated`` (Pareto-dominated greedy
    allocations, of those decided), ``greedy_util``, ``exact_util``, ``greedy_ms``, ``exact_ms``
    (medians), ``not_proven`` (exact programs without a proven optimum).

    Parameters
    ----------
    table : pandas.DataFrame
        The output of :func:`compare` (columns ``variant``, ``same``, ``min_gap``,
        ``leximin_distance``, ``pareto_dominated``, ``greedy_util``, ``exact_util``, ``greedy_s``,
        ``exact_s``, ``exact_status``).

    Returns
    -------
    pandas.DataFrame
        Indexed by variant, in order of first appearance.

    Examples
    --------
    A hand-made table of two instances for one variant: one reaches the optimum, the other loses
    0.2 of the minimum and is Pareto-dominated; the second exact program was stopped unproven:

    >>> import pandas as pd
    >>> t = pd.DataFrame({"variant": ["drf", "drf"], "same": [True, False], "min_gap": [0.0, 0.2],
    ...                   "leximin_distance": [0.0, 0.4], "pareto_dominated": [False, True],
    ...                   "greedy_util": [1.0, 0.5], "exact_util": [1.0, 0.7], "greedy_s": [0.001, 0.003],
    ...                   "exact_s": [0.01, 0.03], "exact_status": ["optimal", "feasible"]})
    >>> s = summarize(t).to_dict("index")["drf"]
    >>> [s[k] for k in ("instances", "same", "differ", "dominated", "not_proven")]
    [2, 1, 1, '1/2', 1]
    >>> round(s["mean_min_gap"], 3), round(s["greedy_ms"], 3), round(s["exact_util"], 3)
    (0.1, 2.0, 0.85)
    """
    rows = []
    for variant, part in table.groupby("variant", sort=False):
        ok = part["same"].notna()
        decided = part["pareto_dominated"].notna()
        rows.append({
            "variant": variant, "instances": int(len(part)), "same": int(part.loc[ok, "same"].astype(bool).sum()),
            "differ": int((~part.loc[ok, "same"].astype(bool)).sum()),
            "mean_min_gap": float(part["min_gap"].mean()), "max_min_gap": float(part["min_gap"].max()),
            "mean_distance": float(part["leximin_distance"].mean()),
            "max_distance": float(part["leximin_distance"].max()),
            "dominated": f"{int(part.loc[decided, 'pareto_dominated'].astype(bool).sum())}/{int(decided.sum())}",
            "greedy_util": float(part["greedy_util"].mean()), "exact_util": float(part["exact_util"].mean()),
            "greedy_ms": 1e3 * float(part["greedy_s"].median()), "exact_ms": 1e3 * float(part["exact_s"].median()),
            "not_proven": int((part["exact_status"] != "optimal").sum())})
    return pd.DataFrame(rows).set_index("variant")
