r"""TV-TSF Section 3 (Figs. 1-3): TV-TSF against TSF and CDRF on the Table 3 cluster, slot by slot.

Policies compared in every cell (:func:`cell`):

``tvtsf``
    TV-TSF Algorithms 1-5 (:class:`~fairalloc.scheduling.online_slots.OnlineSlotScheduler`).
``tsf-static``, ``cdrf-static``
    the baselines as TV-TSF's Table 1 describes them (TSF divisible, placement-aware and
    duration-unaware; CDRF indivisible, placement- and duration-unaware), a static allocation of
    each slot's free capacity (:mod:`fairalloc.scheduling.static_slots`).
``tsf-slotted``, ``cdrf-slotted``
    the *controlled* variants: TV-TSF's own packing, server rule and freezing with the TSF / CDRF
    key (``policy="tsf"`` / ``"cdrf"`` with ``slot=1``); they differ from TV-TSF in order only, so
    they measure what the ordering alone is worth.
``tsf-floor-user``, ``tsf-floor-server``, ``cdrf-blind``
    other readings of the Table 1 baselines (:data:`READINGS`): the static TSF's divisible
    allocation floored per user or per server without the largest-remainder rescue, and CDRF's
    grants placed by first fit over all servers, failing on a server forbidden to the user
    (``rounding=`` / ``realise=`` of :class:`~fairalloc.scheduling.static_slots.StaticSlotScheduler`).
    They are wasteful (capacity the allocation granted stays idle) and can deadlock; the report
    says how often and what their margins then measure.
``tsf-canonical``
    the static TSF rounding the canonical point of the divisible TSF's optimal face instead of the
    LP solver's vertex (``point="canonical"``, :func:`~fairalloc.scheduling.static_slots.canonical_point`):
    the same for any HiGHS build. Not one of :data:`READINGS` (the stored axes do not have it); a cell
    of it is ``cell(..., policy="tsf-canonical")``.

Workload (:func:`workload`): the paper samples Alibaba v2018 ``batch_task`` (not shipped);
:func:`fairalloc.workloads.alibaba_like` resamples the shipped **2017** ``batch_task`` rows
(CPU in cores; memory normalised in the trace, converted to GB by x 384, the largest Table 3 server,
an assumption: the trace does not say what it is normalised to), one user per job, submission slot
uniform in 1..600, durations geometric with mean 5 slots (the paper says only "an integer >= 1").
Without the data the built-in distribution of ``alibaba_like`` is used and the report says so.
Scenarios: ``normal`` (the trace's own mix), ``large25`` / ``large50`` / ``large80`` (fraction of
jobs with >= 500 tasks). Placement (the paper has constraints but does not say which): every user
may use each server with probability ``placement_p`` (seeded), and always the servers of the
largest type so that every task fits somewhere.

Axes beyond the paper's setup (the spec's scales are unions of sub-grids, its ``cells:``):
``duration_scale`` (every task's duration times 1, 2, 4, 6: the load axis, the offered load times
exactly that factor, the jobs otherwise those of the sample) and ``n_users`` (0: one user per job;
else the same jobs spread over that many persistent users, as the paper's users never leave). The
report (:mod:`.tvtsf_report`) puts them beside the paper's margins and the least baseline sizes the
margins imply.

Metrics (TV-TSF's definitions, :mod:`fairalloc.sim.task_metrics`), per user: waiting time (first
submission -> first start), mean task queuing time, mean job completion time; CDFs over users with
mean and variance (:func:`cdfs`, :func:`summary`). Every run also records how loaded it was
(:func:`saturation`: offered load, slots with tasks waiting, users arriving into a queue), and the
report checks the setup against the paper's Section 3.1 item by item (:data:`SETUP_CHECK`).

Scales: ``small`` (the tests; the paper's experiment on 40 jobs over 20 slots with small axes),
``paper`` (100 samples per scenario; the time a paper-scale sample takes, measured with
``benchmarks/bench_tvtsf_cell.py``, is in ``benchmarks/RESULTS.md``), and
:func:`reproduce_samples` for the paper scale with fewer samples (what is stored in
``docs/reproductions/results/tvtsf``). The paper scale takes longer than a working session on two
cores, so its cells are kept: :func:`store_cells` adds a sweep's complete samples to a folder of
Parquet batches (``docs/reproductions/results/tvtsf/cells``, about 35 kB per sample),
:func:`stored_cells` reads them back as the sweep's tables, and ``reproduce_samples(n,
stored=...)`` runs only the samples not stored and reports on all of them; the axes likewise
(``axes_samples``, ``axes_window``, ``axes_stored``; :func:`main` is the command line). The axes cost
far more than the paper's experiment (the static TSF solves one LP per slot with pending tasks, and
the load axis multiplies the slots; the blind CDRF re-grants failing tasks every slot), so the stored
report shows them at a quarter of the window on a few samples and says so.

References
----------
.. [1] Li Jie, Wang Jianzhou, "A fair multi-resource allocation mechanism for time-varying discrete
   jobs with placement constraints", Chinese Journal on Internet of Things, 2024, Section 3.
"""

from __future__ import annotations

import functools
import os
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ... import clusters, workloads
from ...sim import simulate
from ...sim.task_metrics import per_user

__all__ = ["sweep_cell", "SCENARIOS", "POLICIES", "workload", "placement", "cell", "summary", "cdfs", "data_dir",
           "offered_load", "saturation", "reproduce_samples", "store_cells", "stored_cells",
           "per_sample_margins", "SETUP_CHECK"]

#: scenario -> large-job fraction (None: the trace's own mix).
SCENARIOS = {"normal": None, "large25": 0.25, "large50": 0.5, "large80": 0.8}
#: policy label -> (simulate policy, options).
POLICIES = {"tvtsf": ("tvtsf", {}), "tsf-static": ("tsf-static", {}), "cdrf-static": ("cdrf-static", {}),
            "tsf-slotted": ("tsf", {"slot": 1.0}), "cdrf-slotted": ("cdrf", {"slot": 1.0}),
            "tsf-floor-user": ("tsf-static", {"rounding": "floor_user"}),
            "tsf-floor-server": ("tsf-static", {"rounding": "floor_server"}),
            "cdrf-blind": ("cdrf-static", {"realise": "blind"}),
            "tsf-canonical": ("tsf-static", {"point": "canonical"})}
#: The paper's comparison (Figs. 1-3): TV-TSF, the Table 1 baselines and the controlled variants.
MAIN = ("tvtsf", "tsf-static", "cdrf-static", "tsf-slotted", "cdrf-slotted")
#: Other readings of the Table 1 baselines (:mod:`fairalloc.scheduling.static_slots`): the static
#: TSF's divisible allocation floored per user or per server without the largest-remainder rescue,
#: and CDRF's grants placed blind to placement (failing on a forbidden server).
READINGS = ("tsf-floor-user", "tsf-floor-server", "cdrf-blind")
#: Which baseline each reading replaces.
READING_OF = {"tsf-floor-user": "tsf-static", "tsf-floor-server": "tsf-static", "cdrf-blind": "cdrf-static"}
#: GB per unit of the 2017 trace's normalised memory (assumption, module docstring).
MEMORY_GB = 384.0


def data_dir() -> Path | None:
    """``$FAIRALLOC_DATA`` or ``../shared/data`` from the working directory or the package; None if absent.

    Returns
    -------
    Path or None
        The first of those folders that exists, resolved.

    Examples
    --------
    ``$FAIRALLOC_DATA`` comes first when it names a folder:

    >>> import os, tempfile, pathlib
    >>> old = os.environ.pop("FAIRALLOC_DATA", None)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     os.environ["FAIRALLOC_DATA"] = d
    ...     found = data_dir() == pathlib.Path(d).resolve()
    >>> del os.environ["FAIRALLOC_DATA"]
    >>> if old is not None:
    ...     os.environ["FAIRALLOC_DATA"] = old
    >>> found
    True
    """
    env = os.environ.get("FAIRALLOC_DATA")
    cands = [Path(env)] if env else []
    here = Path(__file__).resolve()
    cands += [Path.cwd() / "../shared/data", Path.cwd() / "../../shared/data"]
    cands += [p / "shared" / "data" for p in here.parents]
    for c in cands:
        if c.is_dir():
            return c.resolve()
    return None


@functools.lru_cache(maxsize=2)
def _source() -> Any:
    d = data_dir()
    f = None if d is None else d / "alibaba-2017" / "batch_task.csv"
    if f is None or not f.is_file():
        return None
    wl = workloads.read_alibaba(f, version=2017)
    ok = np.isfinite(wl.resources).all(axis=1) & (wl.resources > 0).all(axis=1)
    wl = wl.take(ok)
    fr = wl.to_frame()
    return workloads.Workload(submit=fr["submit"].to_numpy(), run_time=np.ones(len(fr)),
                              tasks=fr["tasks"].to_numpy(),
                              resources=np.c_[wl.resources[:, 0], wl.resources[:, 1] * MEMORY_GB],
                              resource_names=("cpu", "memory"), user=np.arange(len(fr)),
                              meta={"source": str(f)})


def _seed(*parts: Any) -> int:
    return zlib.crc32(repr(parts).encode())


def workload(scenario: str, sample: int, *, n_jobs: int = 100, slots: int = 600, duration_scale: int = 1,
             n_users: int = 0) -> Any:
    """One sample of a scenario (module docstring); deterministic in (scenario, sample).

    Parameters
    ----------
    scenario : str
        A key of :data:`SCENARIOS`.
    sample : int
        The sample number (seeds the draw).
    n_jobs : int, default 100
    slots : int, default 600
        Submission slots are uniform in 1..``slots``.
    duration_scale : int, default 1
        Every task's duration (slots) times this: the load axis. The jobs, their demands, tasks
        and submission slots are those of the sample at scale 1; the offered load is multiplied by
        exactly this factor (:func:`offered_load`).
    n_users : int, default 0
        0: one user per job (the reproduction's reading). Otherwise the jobs are spread over this
        many persistent users, uniformly and seeded (``alibaba_like(n_users=)``: the same jobs as
        with one user per job, each user submits several over the window and stays).

    Returns
    -------
    Workload

    Raises
    ------
    ValueError
        An unknown scenario.

    Examples
    --------
    A real call resamples the shared Alibaba 2017 rows when present (reading them takes about a
    second), so its numbers depend on the data; an unknown scenario is refused first:

    >>> workload("large99", 0)
    Traceback (most recent call last):
    ...
    ValueError: scenario='large99' is not one of ['large25', 'large50', 'large80', 'normal']
    """
    if scenario not in SCENARIOS:
        raise ValueError(f"scenario={scenario!r} is not one of {sorted(SCENARIOS)}")
    k = int(duration_scale)
    if k != duration_scale or k < 1:
        raise ValueError(f"duration_scale={duration_scale!r} must be an integer >= 1")
    u = int(n_users)
    if u != n_users or u < 0:
        raise ValueError(f"n_users={n_users!r} must be an integer >= 0 (0: one user per job)")
    src = _source()
    w = workloads.alibaba_like(n_jobs, large_fraction=SCENARIOS[scenario], slots=slots, source=src,
                               rng=_seed("tvtsf", scenario, sample), n_users=u or None)
    return w.replace(run_time=w.run_time * k) if k != 1 else w


def demands_source() -> str:
    """Which demands :func:`workload` samples (the report's setup line)."""
    return ("alibaba 2017 batch_task rows (resampled)" if _source() is not None
            else "alibaba_like built-in distribution (no data found)")


def placement(n_users: int, cluster: Any, p: float, sample: int) -> np.ndarray:
    """(n_users, M) bool: each server with probability ``p``, the largest servers always.

    Parameters
    ----------
    n_users : int
    cluster : Cluster
    p : float in [0, 1]
        Probability that a user may use a server (seeded by ``(n_users, p, sample)``).
    sample : int

    Returns
    -------
    ndarray of bool, shape (n_users, M)

    Examples
    --------
    With p = 0 only the servers of the largest type (every resource at the cluster's maximum)
    remain, for every user:

    >>> import fairalloc as fa
    >>> cl = fa.clusters.tvtsf_table3()
    >>> pl = placement(3, cl, 0.0, 0)
    >>> big = (cl.capacities == cl.capacities.max(axis=0)).all(axis=1)
    >>> pl.shape == (3, cl.n_servers), bool((pl == big).all())
    (True, True)
    """
    rng = np.random.default_rng(_seed("placement", n_users, p, sample))
    pl = rng.random((n_users, cluster.n_servers)) < p
    cap = cluster.capacities
    big = np.all(cap == cap.max(axis=0), axis=1)
    pl[:, big] = True
    return pl


def cell(wl: Any = None, *, scenario: str, seed: int, policy: str, n_jobs: int = 100,
         slots: int = 600, placement_p: float = 0.5, duration_scale: int = 1, n_users: int = 0) -> dict:
    """Simulate ``policy`` (a key of :data:`POLICIES`) on sample ``seed`` of ``scenario``.

    ``wl`` is unused (the workload depends on the cell's scenario and sample). Returns ``users``
    (per user: ``user_wait``, ``mean_queuing``, ``mean_completion``) and ``runs`` (one row: means,
    variances, largest task queuing time, utilisation, grants the static CDRF could not place,
    jobs left unfinished, whether the run ended in a deadlock). Times are over the tasks that
    started and the jobs that finished: a run that deadlocks (a wasteful baseline reading) says so
    in ``unfinished_jobs`` / ``deadlocked``, and its times are not comparable.

    Parameters
    ----------
    wl : object, optional
        Unused.
    scenario : str
        A key of :data:`SCENARIOS`.
    seed : int
        The sample.
    policy : str
        A key of :data:`POLICIES`.
    n_jobs : int, default 100
    slots : int, default 600
    placement_p : float, default 0.5
        As :func:`placement`.
    duration_scale, n_users : int
        As :func:`workload` (defaults: the paper-scale reading).

    Returns
    -------
    dict of DataFrame

    Raises
    ------
    ValueError
        An unknown scenario, a bad ``duration_scale`` or ``n_users``.
    KeyError
        An unknown policy.

    Examples
    --------
    As :func:`workload`, a real call depends on the shared data; an unknown scenario is refused:

    >>> cell(scenario="large99", seed=0, policy="tvtsf")
    Traceback (most recent call last):
    ...
    ValueError: scenario='large99' is not one of ['large25', 'large50', 'large80', 'normal']
    """
    sample = int(seed)
    w = workload(scenario, sample, n_jobs=int(n_jobs), slots=int(slots), duration_scale=duration_scale,
                 n_users=n_users)
    cl = clusters.tvtsf_table3()
    pl = placement(int(w.user.max()) + 1, cl, float(placement_p), int(sample))
    name, opts = POLICIES[policy]
    r = simulate(w, cl, policy=name, placement=pl, **opts)
    u = per_user(r)[["user", "user_wait", "mean_queuing", "mean_completion"]].copy()
    lf = r.launches
    sub = r.jobs.set_index("row")["submit"]
    q = lf["start"].to_numpy() - sub.loc[lf["job"].to_numpy()].to_numpy()
    summ = r.task_summary()
    runs = {"users": len(u), "tasks": int(w.n_tasks), "rejected": len(r.rejected),
            "max_queuing": float(q.max()) if q.size else np.nan,
            "utilization_cpu": float(summ.get("utilization:cpu", np.nan)),
            "utilization_mem": float(summ.get("utilization:mem", np.nan)),
            "unrealised": int(r.stats.get("unrealised", 0)),
            "lp_not_optimal": int(r.stats.get("lp_not_optimal", 0)),
            "demands": demands_source()}
    if policy not in MAIN:          # the readings' own figures (the paper's cells keep their columns)
        runs.update({"unfinished_jobs": int((~r.jobs["finished"].astype(bool)).sum()),
                     "deadlocked": bool(r.stats.get("deadlocked", False)),
                     "granted": int(r.stats.get("granted", 0)), "lp_tasks": float(r.stats.get("lp_tasks", 0.0)),
                     "started": int(lf["tasks"].sum())})
    runs.update(saturation(w, cl, r, int(slots)))
    for k in ("user_wait", "mean_queuing", "mean_completion"):
        runs[f"{k}_mean"] = float(u[k].mean())
        runs[f"{k}_var"] = float(u[k].var(ddof=0))
    runs = pd.DataFrame([runs])
    for df in (u, runs):
        df["scenario"] = scenario
        df["seed"] = sample
        df["policy"] = policy
    return {"users": u, "runs": runs}


def offered_load(w: Any, cluster: Any, slots: int) -> np.ndarray:
    r"""(K,) work submitted over the window per unit of capacity: :math:`\sum_j B_j e_j d_{jr} / (C_r\,T)`,
    ``T = slots`` (above 1: more work than the cluster can run within the submission window)."""
    work = (w.tasks[:, None] * w.run_time[:, None] * w.resources).sum(axis=0)
    return work / (cluster.totals * float(slots))


def saturation(w: Any, cluster: Any, r: Any, slots: int) -> dict:
    """How loaded one run was: offered load per resource (:func:`offered_load`), the fraction of slots
    (from the first submission to the last start) with a task waiting, the mean number of tasks
    waiting per such slot, and how many users arrived while tasks of others were waiting (and their
    mean waiting time): with a fair key a newcomer is first in line (share 0), so user waiting time
    stays near 0 unless no task of its can start anywhere for whole slots."""
    load = offered_load(w, cluster, slots)
    out = {f"offered_{n}": float(v) for n, v in zip(w.resource_names, load)}
    lf = r.launches
    sub = r.jobs.set_index("row")["submit"]
    s0 = sub.loc[lf["job"].to_numpy()].to_numpy().astype(np.int64)
    st = lf["start"].to_numpy().astype(np.int64)
    k = lf["tasks"].to_numpy()
    lo, hi = int(s0.min()) if s0.size else 0, int(st.max()) + 1 if st.size else 1
    waiting = np.zeros(hi - lo + 1)
    np.add.at(waiting, s0 - lo, k)                      # waiting in [submit, start)
    np.add.at(waiting, st - lo, -k)
    waiting = np.cumsum(waiting)[:-1]
    busy = waiting > 0
    out["slots_with_queue"] = float(busy.mean()) if busy.size else 0.0
    out["queue_when_busy"] = float(waiting[busy].mean()) if busy.any() else 0.0
    first = r.jobs.groupby("user")["submit"].min().astype(np.int64)
    lu = r.jobs.set_index("row")["user"].loc[lf["job"].to_numpy()].to_numpy()
    # tasks of *other* users waiting (submitted by t, not started by t) in each user's first slot t: all
    # waiting then (`waiting`, as every start is at or after its submission) less the user's own,
    # whose launches are submitted at t at the earliest (so "by t" is "at t")
    users, t = first.index.to_numpy(), first.to_numpy()          # users ascending (groupby)
    pos = t - lo
    inside = (pos >= 0) & (pos < waiting.size)
    everyone = np.zeros(t.size)
    everyone[inside] = waiting[pos[inside]]
    tu = t[np.searchsorted(users, lu)]                            # each launch's user's first slot
    mine = (s0 <= tu) & (st > tu)
    own = np.bincount(np.searchsorted(users, lu[mine]), weights=k[mine], minlength=users.size)
    at = everyone - own
    into = at > 0
    uw = per_user(r).set_index("user")["user_wait"]
    out["users_into_queue"] = float(into.mean()) if into.size else 0.0
    out["user_wait_into_queue"] = float(uw.loc[first.index[into]].mean()) if into.any() else 0.0
    return out


def summary(users: pd.DataFrame) -> pd.DataFrame:
    """Per (scenario, policy): mean and variance over users (pooled over samples) of the three times.

    Parameters
    ----------
    users : pandas.DataFrame
        The cells' ``users`` tables.

    Returns
    -------
    pandas.DataFrame
        ``scenario``, ``policy`` and ``<time>_mean`` / ``<time>_var`` (population variance) for
        ``user_wait``, ``mean_queuing``, ``mean_completion``.

    Examples
    --------
    Waits 1 and 3: mean 2, variance ((1-2)^2 + (3-2)^2) / 2 = 1:

    >>> u = pd.DataFrame({"scenario": "normal", "policy": "tvtsf", "user_wait": [1.0, 3.0],
    ...                   "mean_queuing": [2.0, 2.0], "mean_completion": [5.0, 7.0]})
    >>> summary(u)[["user_wait_mean", "user_wait_var", "mean_queuing_var"]].values.tolist()
    [[2.0, 1.0, 0.0]]
    """
    g = users.groupby(["scenario", "policy"])
    out = {}
    for k in ("user_wait", "mean_queuing", "mean_completion"):
        out[f"{k}_mean"] = g[k].mean()
        out[f"{k}_var"] = g[k].var(ddof=0)
    return pd.DataFrame(out).reset_index()


def cdfs(users: pd.DataFrame, metric: str) -> dict:
    """{(scenario, policy): (sorted values, cumulative fractions)} of ``metric`` over users.

    Parameters
    ----------
    users : pandas.DataFrame
        The cells' ``users`` tables.
    metric : str
        A column (NaN values dropped).

    Returns
    -------
    dict

    Examples
    --------
    >>> u = pd.DataFrame({"scenario": "normal", "policy": "tvtsf", "user_wait": [3.0, 1.0]})
    >>> v, f = cdfs(u, "user_wait")[("normal", "tvtsf")]
    >>> v.tolist(), f.tolist()
    ([1.0, 3.0], [0.5, 1.0])
    """
    out = {}
    for key, g in users.groupby(["scenario", "policy"]):
        v = np.sort(g[metric].dropna().to_numpy())
        out[key] = (v, np.arange(1, v.size + 1) / max(v.size, 1))
    return out


# --- report ------------------------------------------------------------------------------------

#: TV-TSF's headline margins (slots): TV-TSF better than the better of TSF / CDRF by at least this.
PAPER_MARGINS = {
    "user_wait": {"normal": 0.163, "large25": 5, "large50": 36, "large80": 438},
    "mean_queuing": {"normal": 0.9, "large25": 56, "large50": 56, "large80": 708},
    "mean_completion": {"normal": 14, "large25": 119, "large50": 384, "large80": 585},
}
_LABEL = {"user_wait": "user waiting time", "mean_queuing": "task queuing time",
          "mean_completion": "job completion time"}


def report(tables: dict, out: Any, *, scale: str, spec: dict, seconds: float | None = None,
           formats: Any = None) -> Path:
    """The report of a run (:func:`fairalloc.experiments.reproductions.tvtsf_report.report`)."""
    from .tvtsf_report import report as write

    return write(tables, out, scale=scale, spec=spec, seconds=seconds, formats=formats)


def per_sample_margins(users: pd.DataFrame) -> pd.DataFrame:
    """Per (metric, scenario): the margin of each sample, how it spreads and how many reach the paper's.

    A sample's margin is the better (smaller) of the Table 1 baselines' means over users minus
    TV-TSF's, in that sample alone (the claims' margin pools users over samples instead).

    Parameters
    ----------
    users : pandas.DataFrame
        The cells' ``users`` tables (``scenario``, ``policy``, ``seed`` and the three times).

    Returns
    -------
    pandas.DataFrame
        Indexed by (metric, scenario): ``samples``, ``mean``, ``std`` (population), ``min``, ``max`` of
        the margins and ``reach``, the samples whose margin is at least :data:`PAPER_MARGINS`'.

    Examples
    --------
    Two samples of one scenario; sample 0: TV-TSF 1, tsf-static 3, cdrf-static 4: margin 2; sample 1:
    TV-TSF 2, baselines 2.5 and 5: margin 0.5 (both below the paper's 0.9 for queuing, normal):

    >>> u = pd.DataFrame({"scenario": "normal", "seed": [0, 0, 0, 1, 1, 1],
    ...                   "policy": ["tvtsf", "tsf-static", "cdrf-static"] * 2,
    ...                   "mean_queuing": [1.0, 3.0, 4.0, 2.0, 2.5, 5.0]})
    >>> r = per_sample_margins(u).loc[("mean_queuing", "normal")]
    >>> r[["samples", "mean", "min", "max", "reach"]].tolist()
    [2.0, 1.25, 0.5, 2.0, 1.0]
    """
    rows = []
    for metric, margins in PAPER_MARGINS.items():
        if metric not in users.columns:
            continue
        g = users.groupby(["scenario", "seed", "policy"])[metric].mean().unstack("policy")
        if "tvtsf" not in g.columns:
            continue
        base = [p for p in ("tsf-static", "cdrf-static") if p in g.columns]
        if not base:
            continue
        mg = g[base].min(axis=1) - g["tvtsf"]
        present = set(mg.index.get_level_values("scenario"))
        for sc in [c for c in SCENARIOS if c in present and c in margins]:
            v = mg.xs(sc, level="scenario").dropna().to_numpy()
            if not v.size:
                continue
            rows.append({"metric": metric, "scenario": sc, "samples": float(v.size), "mean": float(v.mean()),
                         "std": float(v.std()), "min": float(v.min()), "max": float(v.max()),
                         "reach": float((v >= margins[sc]).sum())})
    cols = ["metric", "scenario", "samples", "mean", "std", "min", "max", "reach"]
    return pd.DataFrame(rows, columns=cols).set_index(["metric", "scenario"])


def _samples_markdown(per: pd.DataFrame) -> str:
    rows = ["| time | scenario | paper's margin | samples | margin mean | std | min | max "
            "| samples at or above the paper's |",
            "|---|---|---|---|---|---|---|---|---|"]
    for (metric, sc), r in per.iterrows():
        rows.append(f"| {_LABEL[metric]} | {sc} | {PAPER_MARGINS[metric][sc]} | {int(r['samples'])} | "
                    f"{r['mean']:.2f} | "
                    f"{r['std']:.2f} | {r['min']:.2f} | {r['max']:.2f} | {int(r['reach'])} |")
    return "\n".join(rows) + "\n\n" + (
        "A sample's margin: the better of tsf-static / cdrf-static minus TV-TSF, each the mean over that "
        "sample's users (slots). A verdict would change with the samples only if some sample reached the "
        "paper's margin.\n")


_LOAD_COLS = {"offered_cpu": "offered load CPU", "offered_memory": "offered load memory",
              "utilization_cpu": "CPU in use", "utilization_mem": "memory in use",
              "slots_with_queue": "slots with a task waiting", "queue_when_busy": "tasks waiting (such slots)",
              "users_into_queue": "users arriving into a queue", "user_wait_into_queue": "their mean user wait"}


def _load_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Per scenario, TV-TSF's runs: the :func:`saturation` figures, mean over samples."""
    cols = [c for c in _LOAD_COLS if c in runs.columns]
    tv = runs[runs["policy"] == "tvtsf"]
    return tv.groupby("scenario")[cols].mean().reindex([s for s in SCENARIOS if s in set(tv["scenario"])])


def _load_markdown(load: pd.DataFrame) -> str:
    head = "| scenario | " + " | ".join(_LOAD_COLS[c] for c in load.columns) + " |"
    rows = [head, "|---" * (len(load.columns) + 1) + "|"]
    for sc, r in load.iterrows():
        rows.append(f"| {sc} | " + " | ".join(f"{v:.0f}" if c == "queue_when_busy" else f"{v:.2f}"
                                             for c, v in r.items()) + " |")
    return "\n".join(rows) + "\n\n" + (
        "Offered load: work submitted (tasks x duration x demand) over the cluster's capacity times the "
        "submission window. CPU / memory in use: time-averaged over the whole run, drain included. "
        "Users arriving into a queue: tasks of others were waiting in the user's first slot.\n")


#: The paper's Section 3.1 (TV-TSF, Chinese original), item by item, and what the project does.
SETUP_CHECK = """| paper (Section 3.1) | our reading | status |
|---|---|---|
| Table 3: 100 servers, CPU cores / GB memory, ten types | `clusters.tvtsf_table3()`: the ten types in order, totals 3150 cores, 12120 GB | as in the paper |
| 用户每个任务资源需求的分布由 `batch_task` 统计得到 (per-task demands: the distribution of `batch_task`, Alibaba v2018) | rows of the shipped **2017** `batch_task` resampled with replacement (71,369 rows with demands); CPU 100 = 1 core; memory is normalised in the trace, read as x 384 GB (the largest Table 3 server) | stand-in (2018 not shipped); memory unit an assumption |
| 每个作业包含的任务数 ... `instance_num` (tasks per job: `instance_num`) | a job is one `batch_task` row, its tasks are the row's instances (2017: `number_of_instances`); mean 154, 7.5% of rows have >= 500 | as in the paper |
| 小型 (< 500 tasks per job), 大型 (>= 500); 正常 and 大型任务比例 25 / 50 / 80% (normal, large-job fraction 25 / 50 / 80%) | `normal`: rows drawn as they come; `large25/50/80`: that fraction of *jobs* drawn from rows with >= 500 instances | as in the paper |
| 每个任务的提交时间在 1~600 个时间槽内随机确定 (submission slot uniform in 1..600) | one uniform slot per job (the paper writes 任务, used for jobs elsewhere too; per instance would spread a job over the window and lower the load) | reading |
| 最小运行时间为 1 个时间槽, 运行时间为时间槽的整数倍 (run time an integer >= 1 slot) | geometric, mean 5 slots, per job | **not in the paper**: the distribution and the slot length are not given |
| number of jobs / users | small 40 jobs over 20 slots; paper 400 over 600; one user per job | **not in the paper** |
| 每个实验生成 100 组实验样本 (100 samples per experiment) | `--scale paper`: 100 seeds; `small`: 1 | as in the paper at `paper` scale |
| 25% "由于用户负载低" (low load), 50% "中等负载" (medium), 80% "重负载" (heavy) | offered load rises in that order (table above) | qualitatively as in the paper |
| user waiting time: 用户提交第一个任务到其第一个任务开始执行 (first submission to first start) | `task_metrics.user_waiting_times` | as in the paper |
| task queuing time: 每个任务提交到该任务被执行 (each task's submission to its start) | per task, mean per user | as in the paper |
| job completion time: to the last task's end | per job, mean per user | as in the paper |
"""


#: The paper's experiment inside the paper scale's union of sub-grids (spec ``tvtsf``).
BASE = {"duration_scale": [1], "n_users": [0], "policy": list(MAIN)}
#: Grid axes of the spec, in its order (the order of the sweep's columns).
GRID = ("scenario", "n_jobs", "slots", "placement_p", "duration_scale", "n_users")
#: Values of the axes the stored paper-scale cells were computed without (the paper's reading).
_AXIS_DEFAULTS = {"duration_scale": 1, "n_users": 0}


#: Sweep folder of each part inside :func:`reproduce_samples`' ``out`` (one part per folder, so that
#: :func:`store_cells` finds whole samples of one part).
SWEEPS = {"base": "sweep", "axes": "sweep-axes"}


def _is_base(coords: dict) -> bool:
    return all(any(coords.get(a, _AXIS_DEFAULTS.get(a)) == v for v in vs) for a, vs in BASE.items())


def part_spec(spec: dict, part: str, *, seeds: range, window: tuple[int, int] | None = None) -> Any:
    """The sweep of one part of the paper scale: ``"base"`` (the paper's experiment, :data:`BASE`) or
    ``"axes"`` (the load axis, persistent users and the other readings; at another ``window`` than the
    paper's the axes part includes the base cells of that window, the axis' reference point).

    Parameters
    ----------
    spec : dict
        The parsed ``tvtsf`` reproduction file.
    part : {"base", "axes"}
    seeds : range
        The samples.
    window : (n_jobs, slots), optional
        Replaces the paper's 400 jobs over 600 slots (same arrival rate: the same offered load).

    Returns
    -------
    Spec
    """
    import copy

    from . import _coords, scale_spec

    if part not in ("base", "axes"):
        raise ValueError(f"part={part!r} is not 'base' or 'axes'")
    spec = copy.deepcopy(spec)
    p = spec["scales"]["paper"]
    paper = (p["grid"]["n_jobs"][0], p["grid"]["slots"][0])
    if window is not None:
        p["grid"]["n_jobs"], p["grid"]["slots"] = [int(window[0])], [int(window[1])]
    p["seeds"] = {"start": seeds.start, "count": len(seeds)}
    sweep = scale_spec(spec, "paper")
    keep = [c for c in sweep.cells()
            if part == "base" and _is_base(_coords(c))
            or part == "axes" and (not _is_base(_coords(c)) or tuple(window or paper) != paper)]
    if not keep:
        raise ValueError(f"the {part} part of the paper scale has no cell")
    sweep.cells = lambda: keep          # the sweep runs and records only these cells
    return sweep


def _run_part(sweep: Any, folder: Path, workers: Any, progress: bool) -> tuple[dict, float]:
    from .. import load as load_table, run_sweep

    summ = run_sweep(sweep, folder, workers=workers, progress=progress)
    if not summ.ok:
        raise RuntimeError(f"tvtsf paper scale: {summ}")
    keys = {c.key for c in sweep.cells()}       # this call's cells only (the folder may hold others)
    tables = {}
    for t in ("users", "runs", "cells"):
        df = load_table(folder, t).df()
        tables[t] = df[df["key"].isin(keys)]
    # the cells' own recorded times (a resumed run's elapsed time would leave out the earlier cells)
    return {t: tables[t] for t in ("users", "runs")}, float(tables["cells"]["wall_s"].sum())


def _samples_part(spec: dict, part: str, n: int, *, out: Path, workers: Any, progress: bool, stored: Any,
                  window: tuple[int, int] | None) -> tuple[dict, float]:
    """Samples 0..n-1 of one part: the stored ones read back, the others run (module docstring)."""
    old = stored_cells(stored) if stored is not None and Path(stored).is_dir() and _batches(Path(stored)) else None
    want = spec["scales"]["paper"]["grid"]
    if window is not None:
        want = {**want, "n_jobs": [int(window[0])], "slots": [int(window[1])]}
    if old is not None:
        for c in ("n_jobs", "slots", "placement_p"):
            have = set(old["runs"][c])
            if not have <= set(want[c]):
                raise ValueError(f"stored={str(stored)!r} holds cells with {c} {sorted(have)}; this part has "
                                 f"{sorted(want[c])}")
    first = 0 if old is None else min(n, int(old["runs"]["seed"].max()) + 1)
    tables, seconds = {}, 0.0
    if first < n:
        tables, seconds = _run_part(part_spec(spec, part, seeds=range(first, n), window=window),
                                    out / SWEEPS[part], workers, progress)
    if old is not None:
        keep = {t: old[t][old[t]["seed"] < n] for t in ("users", "runs")}
        seconds += float(old["cells"].loc[old["cells"]["seed"] < n, "wall_s"].sum())
        tables = {t: pd.concat([keep[t], tables[t]], ignore_index=True) if t in tables else keep[t]
                  for t in ("users", "runs")}
    return tables, seconds


def reproduce_samples(samples: int, *, out: Any, workers: int | None = 0, progress: bool = False,
                      stored: Any = None, axes_samples: int = 0, axes_window: tuple[int, int] | None = None,
                      axes_stored: Any = None) -> Path:
    """``fairalloc reproduce tvtsf --scale paper`` with the first ``samples`` samples per scenario
    instead of the paper's 100, and the axes (load, persistent users, baseline readings) on
    ``axes_samples`` samples, possibly at a smaller window (the report's setup states both). Resumable
    as any sweep: a later call with more samples in the same ``out`` runs only the new ones.

    Parameters
    ----------
    samples : int
        1..100: samples (seeds) 0 .. ``samples`` - 1 of the paper's experiment (:data:`BASE`).
    out : str or Path
        Output folder: the sweeps of the cells run here (``out/sweep``, the paper's experiment;
        ``out/sweep-axes``, the axes), the figures and ``report.md``.
    workers : int, optional, default 0
        As :func:`~fairalloc.experiments.run_sweep`.
    progress : bool, default False
    stored : str or Path, optional
        A folder of stored cells of the paper's experiment (:func:`store_cells`): its samples below
        ``samples`` are not run again, the sweep runs the others only (seeds from the first sample not
        stored). The samples of a cell are independent of which others run (a cell's seed is its
        sample), so the tables are those of one sweep of all samples.
    axes_samples : int, default 0
        0..100: samples of the axes part (:func:`part_spec`); 0 runs none.
    axes_window : (n_jobs, slots), optional
        The axes' window when not the paper's 400 jobs over 600 slots (e.g. ``(100, 150)``: the same
        arrival rate and offered load, a quarter of the window; then the axes include their own
        reference cells, the paper's experiment at that window).
    axes_stored : str or Path, optional
        As ``stored``, for the axes part (one folder per window).

    Raises
    ------
    ValueError
        ``samples`` not in 1..100 or ``axes_samples`` not in 0..100, or stored cells of another grid.
    RuntimeError
        A cell of the sweep failed (the sweep's summary says which).

    Returns
    -------
    Path
        ``out / "report.md"``.

    Examples
    --------
    The whole paper scale, the axes included, resuming from the repository's stored cells (the time a
    sample takes is in ``benchmarks/RESULTS.md``): ``python -m fairalloc.experiments.reproductions.tvtsf
    --samples 100 --axes-samples 100 --workers 2 --out out/tvtsf-paper``.
    """
    from . import load_spec

    n, na = int(samples), int(axes_samples)
    if n != samples or not 1 <= n <= 100:
        raise ValueError(f"samples={samples!r} must be an integer in 1..100")
    if na != axes_samples or not 0 <= na <= 100:
        raise ValueError(f"axes_samples={axes_samples!r} must be an integer in 0..100")
    spec = load_spec("tvtsf")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    tables, seconds = _samples_part(spec, "base", n, out=out, workers=workers, progress=progress, stored=stored,
                                    window=None)
    if na:
        more, sec = _samples_part(spec, "axes", na, out=out, workers=workers, progress=progress,
                                  stored=axes_stored, window=axes_window)
        seconds += sec
        tables = {t: pd.concat([tables[t], more[t]], ignore_index=True) for t in ("users", "runs")}
    tables = {t: _canonical(df) for t, df in tables.items()}
    spec["scales"]["paper"]["seeds"] = {"start": 0, "count": n}
    return report(tables, out, scale="paper", spec=spec, seconds=seconds)


# --- stored cells ------------------------------------------------------------------------------

#: A stored users batch keeps the cell key and the per-user columns; the rest comes back from its
#: runs row (the same cell key), in the sweep's column order.
_USERS_HEAD = ["key", "label", "policy", "seed"]
_USERS_KEPT = ["key", "user", "user_wait", "mean_queuing", "mean_completion"]


def _canonical(df: pd.DataFrame) -> pd.DataFrame:
    """Rows in the sweep's cell order (sample, window, load, users, scenario, policy; users by index):
    pooled sums over users then do not depend on where a cell was read from. Cells without the
    ``duration_scale`` / ``n_users`` columns (stored before the axes existed) get the paper's values."""
    df = df.copy()
    for a, v in _AXIS_DEFAULTS.items():
        if a not in df:
            df[a] = v
        df[a] = df[a].fillna(v).astype(np.int64)
    scenario = df["scenario"].map({s: k for k, s in enumerate(SCENARIOS)}).to_numpy()
    policy = df["policy"].map({p: k for k, p in enumerate(POLICIES)}).to_numpy()
    user = df["user"].to_numpy() if "user" in df else np.zeros(len(df))
    keys = [user, policy, scenario, df["n_users"].to_numpy(), df["duration_scale"].to_numpy()]
    keys += [df[c].to_numpy() for c in ("slots", "n_jobs") if c in df] + [df["seed"].to_numpy()]
    return df.iloc[np.lexsort(keys)].reset_index(drop=True)


def _batches(folder: Path) -> list[tuple[int, int, Path, Path]]:
    out = []
    for f in sorted(folder.glob("runs-s*-*.parquet")):
        a, b = (int(x) for x in f.stem[len("runs-s"):].split("-"))
        out.append((a, b, f, f.with_name(f"users-s{a:03d}-{b:03d}.parquet")))
    return sorted(out)


def stored_cells(folder: Any, *, per_sample: int | None = None) -> dict:
    """The cells stored in ``folder`` by :func:`store_cells`, as the sweep's tables.

    Parameters
    ----------
    folder : str or Path
    per_sample : int, optional
        Cells every sample must have (default: as many as the first sample of its batch has; a later
        batch may hold more cells per sample, e.g. axes left out of an earlier session's run).

    Returns
    -------
    dict of DataFrame
        ``users`` and ``runs`` with the sweep's columns, in the sweep's cell order; ``cells``: each
        cell's ``key``, ``seed``, ``scenario``, ``policy`` and ``wall_s`` (its recorded wall time).

    Raises
    ------
    FileNotFoundError
        ``folder`` holds no batch, or a batch's users file is missing.
    ValueError
        Batches that overlap or leave a gap, a sample without all its cells, users rows without a
        runs row, or runs of different parameters (``n_jobs``, ``slots``, ``placement_p``).
    """
    folder = Path(folder)
    batches = _batches(folder)
    if not batches:
        raise FileNotFoundError(f"stored={str(folder)!r} holds no stored cells (runs-sAAA-BBB.parquet)")
    runs, users, nxt = [], [], 0
    for a, b, fr, fu in batches:
        if a != nxt:
            raise ValueError(f"stored={str(folder)!r}: batch {fr.name} starts at sample {a}, expected {nxt} "
                             "(batches must follow one another)")
        if not fu.is_file():
            raise FileNotFoundError(f"stored={str(folder)!r}: {fu.name} is missing (beside {fr.name})")
        r, u = pd.read_parquet(fr), pd.read_parquet(fu)
        want = int((r["seed"] == a).sum()) if per_sample is None else per_sample     # default: per batch
        per = r.groupby("seed").size().reindex(range(a, b + 1), fill_value=0)
        short = per[per != want]
        if len(short):
            raise ValueError(f"stored={str(folder)!r}: {fr.name}: sample {int(short.index[0])} has "
                             f"{int(short.iloc[0])} cells, not {want}")
        runs.append(r)
        users.append(u)
        nxt = b + 1
    runs = pd.concat(runs, ignore_index=True)
    users = pd.concat(users, ignore_index=True)
    for c in ("n_jobs", "slots", "placement_p"):
        if runs[c].nunique() != 1:
            raise ValueError(f"stored={str(folder)!r}: runs of different {c}: {sorted(runs[c].unique())}")
    lost = ~users["key"].isin(runs["key"])
    if lost.any():
        raise ValueError(f"stored={str(folder)!r}: users rows of cell {users.loc[lost, 'key'].iloc[0]!r} have no runs row")
    cells = runs[["key", "seed", "scenario", "policy", "cell_wall_s"]].rename(columns={"cell_wall_s": "wall_s"})
    runs = runs.drop(columns="cell_wall_s")
    back = [c for c in _USERS_HEAD + list(GRID) if c in runs and c != "key"]
    cols = _USERS_HEAD + [c for c in GRID if c in runs] + _USERS_KEPT[1:]
    users = users.merge(runs[["key"] + back], on="key", how="left")[cols]
    return {"users": _canonical(users), "runs": _canonical(runs), "cells": _canonical(cells)}


def store_cells(sweep: Any, folder: Any, *, per_sample: int | None = None) -> Path | None:
    """Add the complete samples of a paper-scale sweep that ``folder`` does not hold yet, as one batch.

    A batch is two Parquet files, ``runs-sAAA-BBB.parquet`` (the runs rows of samples AAA..BBB, with
    each cell's recorded wall time as ``cell_wall_s``) and ``users-sAAA-BBB.parquet`` (the per-user
    times and cell key; the rest of a users row is its runs row's), about 35 kB per sample of the
    paper's experiment. A stored folder is what :func:`reproduce_samples` resumes from (``stored=``,
    ``axes_stored=``), so that samples computed in one session need not be computed again in the next.

    Parameters
    ----------
    sweep : str or Path
        A sweep folder of the ``tvtsf`` paper scale (or any scale: the cells' parameters are
        checked to agree with the stored ones when both exist).
    folder : str or Path
        Created when absent.
    per_sample : int, optional
        Cells of a complete sample: default the paper's experiment, 4 scenarios x 5 policies; give
        ``len(part_spec(spec, "axes", seeds=range(1), window=...).cells())`` for the axes part.
        Only cells of that part should be in ``sweep`` (e.g. the ``out/sweep`` of one window).

    Returns
    -------
    Path or None
        The new batch's runs file; None when the sweep has no complete sample after the stored ones.

    Raises
    ------
    ValueError
        The sweep's first new complete sample does not follow the stored ones (a gap).
    """
    from .. import load as load_table

    per_sample = len(SCENARIOS) * len(MAIN) if per_sample is None else int(per_sample)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    nxt = _batches(folder)[-1][1] + 1 if _batches(folder) else 0
    runs = load_table(sweep, "runs").df()
    users = load_table(sweep, "users").df()
    walls = load_table(sweep, "cells").df().set_index("key")["wall_s"]
    per = runs.groupby("seed").size()
    full = [int(s) for s, k in per.items() if k == per_sample and s >= nxt]
    take = []
    for s in sorted(full):
        if s != nxt + len(take):
            break
        take.append(s)
    if not take:
        if full:
            raise ValueError(f"sweep={str(sweep)!r}: its complete samples start at {min(full)}, the stored ones "
                             f"end at {nxt - 1}: a gap")
        return None
    a, b = take[0], take[-1]
    r = runs[runs["seed"].between(a, b)].copy()
    r["cell_wall_s"] = r["key"].map(walls).to_numpy()
    u = users[users["seed"].between(a, b)]
    if nxt:
        prev = pd.read_parquet(_batches(folder)[-1][2])
        for c in ("n_jobs", "slots", "placement_p"):
            if set(r[c]) != set(prev[c]):
                raise ValueError(f"sweep={str(sweep)!r}: {c} {sorted(set(r[c]))} differs from the stored "
                                 f"{sorted(set(prev[c]))}")
    fr = folder / f"runs-s{a:03d}-{b:03d}.parquet"
    _canonical(u)[_USERS_KEPT].to_parquet(folder / f"users-s{a:03d}-{b:03d}.parquet", index=False,
                                          compression="zstd")
    _canonical(r).to_parquet(fr, index=False, compression="zstd")
    return fr


def sweep_cell(workload: Any, params: dict) -> dict:
    """:func:`cell` under the sweep's cell contract (:func:`fairalloc.experiments.reproductions.sweep_adapter`).

    Parameters
    ----------
    workload : object
        The cell's workload.
    params : dict
        The sweep cell's parameters (:attr:`fairalloc.experiments.Cell.params`).

    Returns
    -------
    dict of DataFrame

    Notes
    -----
    No example: :func:`cell` reads the shared data when present (see :func:`workload`).
    """
    from . import sweep_adapter

    return sweep_adapter(cell, workload, params)


def axes_per_sample(window: tuple[int, int] | None = None, *, skip: Any = ()) -> int:
    """Cells of one sample of the axes part at ``window`` (:func:`part_spec`), less those ``skip``
    names as ``(policy, scenario)`` pairs: what :func:`store_cells` needs as ``per_sample``."""
    from . import load_spec

    cells = part_spec(load_spec("tvtsf"), "axes", seeds=range(1), window=window).cells()
    return sum((c.params["label"], c.params["grid"]["scenario"]) not in set(skip) for c in cells)


def main(argv: Any = None) -> Path:
    """``python -m fairalloc.experiments.reproductions.tvtsf``: the paper scale with its axes, resuming
    from the stored cells (:func:`reproduce_samples`), and, with ``--store``, adding the complete
    samples it ran to them. The whole paper scale, axes included (the time a sample takes is in
    ``benchmarks/RESULTS.md``)::

        python -m fairalloc.experiments.reproductions.tvtsf --samples 100 --axes-samples 100 --workers 2 --store

    Defaults: the stored folders of a repository checkout (``docs/reproductions/results/tvtsf/cells``
    for the paper's experiment, ``.../axes-N_JOBSxSLOTS`` for the axes at that window) when they exist.
    """
    import argparse

    root = Path(__file__).resolve().parents[3] / "docs" / "reproductions" / "results" / "tvtsf"
    p = argparse.ArgumentParser(prog="python -m fairalloc.experiments.reproductions.tvtsf",
                                description="TV-TSF paper scale with the load axis, persistent users and the "
                                            "baseline readings, resuming from stored cells")
    p.add_argument("--samples", type=int, default=100, help="samples of the paper's experiment (1..100)")
    p.add_argument("--axes-samples", type=int, default=0, help="samples of the axes (0..100; 0: none)")
    p.add_argument("--axes-window", type=int, nargs=2, metavar=("N_JOBS", "SLOTS"), default=None,
                   help="the axes' window (default the paper scale's 400 jobs over 600 slots)")
    p.add_argument("--out", default="out/tvtsf-paper", help="output folder (default out/tvtsf-paper)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--stored", default=None, help="stored cells of the paper's experiment")
    p.add_argument("--axes-stored", default=None, help="stored cells of the axes at their window")
    p.add_argument("--store", action="store_true", help="add the complete samples run to the stored folders")
    a = p.parse_args(argv)
    window = tuple(a.axes_window) if a.axes_window else (400, 600)
    stored = a.stored or (root / "cells" if (root / "cells").is_dir() else None)
    axes_stored = a.axes_stored or root / f"axes-{window[0]}x{window[1]}"
    path = reproduce_samples(a.samples, out=a.out, workers=a.workers, progress=True, stored=stored,
                             axes_samples=a.axes_samples, axes_window=window, axes_stored=axes_stored)
    if a.store:
        out = Path(a.out)
        if stored is not None and (out / SWEEPS["base"]).is_dir():
            store_cells(out / SWEEPS["base"], stored)
        if a.axes_samples and (out / SWEEPS["axes"]).is_dir():
            store_cells(out / SWEEPS["axes"], axes_stored, per_sample=axes_per_sample(window))
    print(path)
    return path


if __name__ == "__main__":
    main()

