r"""The learned-priorities method end to end on the sweep layer: train (states, trials, fit) and evaluate.

**Training** (:func:`train`): the training states are independent, so they run as a sweep
(:func:`fairalloc.experiments.run_sweep`: Dask, a ``LocalCluster`` by default or a cluster by
address; one stored table per finished cell; a rerun into the same folder reuses the finished cells).
Cell *c* draws ``per_cell`` states (:func:`~.states.training_states`, seeded by ``(seed, c)``) and
scores their queued jobs by Eqs. 1-3 over ``trials`` random permutations each
(:func:`~.scores.score_states` on the compiled trials, :mod:`.trials`). The scored table of every
cell is then fitted (:func:`~.regression.fit_forms`: the paper's F1 and F2 and the enumerated family,
ranked by held-out mean absolute error), and the folder gets ``scores.parquet``, ``ranking.csv``,
``best.json`` (the best form, a :class:`~fairalloc.sim.policies.learned.LearnedFunction` with its
provenance) and ``F1.json`` / ``F2.json`` (the paper's forms re-fitted), ready for
``policy="learned:FILE"``.

**Evaluation** (:func:`evaluate`): one sweep of the built-in simulation cell per workload over the
policies FCFS, SJF, WFP3, UNICEF, F1, F2 (Table 1) and every learned-function file given, each
without and with EASY backfilling; the table reports AVEbsld (Eq. 1) per policy and workload, and
each policy's gain over the best of the classic baselines (FCFS, SJF, WFP3, UNICEF, as the paper's
"up to 7.25x" compares).

With the same states across cells: windows of a real trace are drawn per cell, so two cells may
share a window (the Lublin model draws a fresh trace per cell).
"""

from __future__ import annotations

import functools
import json
import logging
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from ...errors import InvalidInstanceError
from ...sim.metrics import TAU

__all__ = ["train", "evaluate", "score_cell", "BASELINES", "PAPER_POLICIES", "evaluation_table", "nonempty_windows",
           "swf_window", "window_entry"]

logger = logging.getLogger(__name__)

SCORE_CELL = "fairalloc.experiments.learn.pipeline:score_cell"
#: The classic baselines of the evaluation (the paper's FCFS and Tang et al.'s WFP3 and UNICEF; SJF).
BASELINES = ("fcfs", "sjf", "wfp3", "unicef")
#: The paper's two functions with Table 1's coefficients.
PAPER_POLICIES = ("f1", "f2")


def _workload_entry(workload: Any) -> dict[str, Any] | None:
    """A sweep spec's workload entry for ``workload`` ("lublin", "swf:PATH", "parquet:PATH" or a
    path); None for the Lublin model (each cell generates its own trace)."""
    if workload is None or str(workload) == "lublin":
        return None
    text = str(workload)
    kind, _, path = text.partition(":")
    if kind in ("swf", "parquet") and path:
        p = Path(path).expanduser().resolve()
    else:
        p = Path(text).expanduser().resolve()
        kind = "parquet" if p.suffix == ".parquet" else "swf"
    if not p.is_file():
        raise InvalidInstanceError(f"workload={text!r}: no such file {p}", argument="workload", value=text)
    return {"reader": kind, "path": str(p)}


def score_cell(workload: Any, params: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """One training cell: ``per_cell`` states drawn and scored (module docstring); the sweep's cell
    function (:mod:`fairalloc.experiments.worker`'s contract). Grid values: ``per_cell``, ``trials``,
    ``processors``, ``started``, ``queued``, ``backfill``, ``tau``, ``base_seed``; the cell's seed *c*."""
    from .scores import score_states
    from .states import training_states

    g = params["grid"]
    c = int(params["seed"])
    ss = np.random.SeedSequence([int(g["base_seed"]), c])
    s_states, s_trials = ss.spawn(2)
    st = training_states(int(g["per_cell"]), workload="lublin" if workload is None else workload,
                         processors=int(g["processors"]), started=int(g["started"]), queued=int(g["queued"]),
                         rng=np.random.default_rng(s_states))
    table = score_states(st, int(g["trials"]), rng=np.random.default_rng(s_trials), backfill=bool(g["backfill"]),
                         tau=float(g["tau"]))
    table["state"] = table["state"] + c * int(g["per_cell"])
    table.insert(0, "cell", c)
    return {"scores": table}


def _check_states(entry: Mapping[str, Any] | None, **args: Any) -> None:
    """Draw one cell's states here, as :func:`score_cell` will (the same :func:`~.states.training_states`
    on the same workload), so that a bad ``processors``, ``started`` or ``queued`` (an empty or
    one-job queue), a trace without run times or with jobs wider than the cluster, or one too short
    for a cell's states raises its :class:`InvalidInstanceError` before any worker starts, not as
    failed cells of the sweep."""
    from ..inputs import build_workload
    from .states import training_states

    wl = "lublin" if entry is None else build_workload(entry)
    training_states(args.pop("per_cell"), workload=wl, rng=0, **args)


def _check_runs(label: str, entry: Mapping[str, Any]) -> None:
    """Refuse a trace none of whose jobs has a run time (every policy would reject every job: a table
    of NaN); jobs of unknown run time among known ones are rejected and counted by the simulator."""
    from ..inputs import build_workload

    wl = build_workload({k: v for k, v in entry.items() if k != "processors"})
    if len(wl) and np.isnan(wl.run_time).all():
        raise InvalidInstanceError(f"workloads[{label!r}] ({entry.get('path')}) has no run times (run_time is unknown "
                                   f"for all {len(wl)} jobs): nothing to simulate", argument="workloads",
                                   index=(label,), value=entry.get("path"))


@functools.lru_cache(maxsize=2)
def _read_log(path: str) -> Any:
    """A log read once per process (every cell of a windowed evaluation reads the same file)."""
    from ...workloads import read_swf

    return read_swf(path).sorted()


def nonempty_windows(wl: Any, days: float = 30.0) -> list[tuple[float, float]]:
    """The non-empty ``days``-day windows of a trace: consecutive windows from its first submission
    (:func:`fairalloc.experiments.reproductions.learned.windows`, the paper's 30-day traces, the last
    one shorter), each ``(start, end)`` in seconds, those in which no job is submitted left out (a
    log's gaps: a machine down for a month).

    Examples
    --------
    >>> import fairalloc as fa
    >>> day = 86400.0
    >>> wl = fa.workloads.Workload(submit=[0.0, 5 * day, 70 * day], run_time=[1.0] * 3, processors=[1] * 3)
    >>> [(round(a / day), round(b / day)) for a, b in nonempty_windows(wl)]      # days 30..60: no job
    [(0, 30), (60, 70)]
    """
    from ..reproductions.learned import windows

    win = windows(wl, float(days))
    return [(a, b) for k, (a, b) in enumerate(win) if np.any(_in_window(wl.submit, a, b, k == len(win) - 1))]


def _in_window(submit: np.ndarray, a: float, b: float, last: bool) -> np.ndarray:
    """Jobs submitted in ``[a, b)``, or ``[a, b]`` in a trace's last window."""
    return (submit >= a) & ((submit <= b) if last else (submit < b))


def swf_window(log: str, days: float = 30.0, window: int = 0) -> Any:
    """Window ``window`` of :func:`nonempty_windows` of the SWF log ``log`` as a trace of its own, to
    be simulated alone from an empty machine, as the learned-priorities reproduction cuts the model
    program's output. A sweep workload entry's generator
    (``"fairalloc.experiments.learn.pipeline:swf_window"``, ``window: ${seed}``); :func:`window_entry`
    builds the entry.

    Raises
    ------
    InvalidInstanceError
        ``window`` past the last window, naming it and the count.
    """
    wl = _read_log(str(Path(log).resolve()))
    win = nonempty_windows(wl, days)
    w = int(window)
    if not 0 <= w < len(win):
        raise InvalidInstanceError(f"window={window!r}: {log} has {len(win)} non-empty {days:g}-day windows",
                                   argument="window", value=window)
    a, b = win[w]
    return wl.take(_in_window(wl.submit, a, b, b >= float(wl.submit.max())))


def window_entry(log: str | Path, processors: int, days: float = 30.0) -> dict[str, Any]:
    """The :func:`evaluate` workload entry that evaluates an SWF log window by window
    (:func:`swf_window`, one window per seed; ``seeds`` = the number of windows, so the evaluation
    table's ``seeds`` column counts windows and its AVEbsld is their mean).

    Raises
    ------
    InvalidInstanceError
        A log with no jobs, or none with a run time.
    """
    p = str(Path(log).resolve())
    wl = _read_log(p)
    if not len(wl) or np.isnan(wl.run_time).all():
        raise InvalidInstanceError(f"{log}: no job has a run time ({len(wl)} jobs): nothing to simulate",
                                   argument="log", value=str(log))
    return {"generator": "fairalloc.experiments.learn.pipeline:swf_window", "log": p, "days": float(days),
            "window": "${seed}", "processors": int(processors), "seeds": len(nonempty_windows(wl, days))}


def _run(spec: Mapping[str, Any], out: Path, workers: Any, scheduler: Any, progress: bool) -> Any:
    from ..runner import run_sweep
    from ..spec import Spec

    summary = run_sweep(Spec.from_dict(dict(spec)), out, workers=workers, scheduler=scheduler, progress=progress)
    bad = summary.failed + summary.timed_out + summary.lost
    if bad or summary.cluster_lost:
        f = bad[0] if bad else {"label": "-", "error": summary.cluster_lost}
        raise RuntimeError(f"{len(bad)} cells of {spec['name']} did not finish; first: {f.get('label')}: {f['error']}; "
                           f"the finished cells are kept in {out}: run again to finish")
    return summary


def train(out: str | Path, *, states: int = 200, per_cell: int = 10, trials: int = 250_000,
          workload: Any = "lublin", processors: int = 256, started: int = 16, queued: int = 32,
          backfill: bool = False, tau: float = TAU, seed: int = 0, forms: Mapping[str, str] | None = None,
          test_fraction: float = 0.25, symbolic: Any = False, workers: int | None = None, scheduler: Any = None,
          progress: bool = False) -> dict[str, Any]:
    """Train priority functions by the learned-priorities method on the sweep layer (module docstring).

    Parameters
    ----------
    out : str or Path
        The training folder (``sweep/``: the resumable store; the fitted files beside it).
    states : int, default 200
        Training states in all (a multiple of ``per_cell``).
    per_cell : int, default 10
        States per sweep cell.
    trials : int, default 250,000
        Permutations per state (the paper's |P|).
    workload : "lublin" or path, default "lublin"
        The Lublin-Feitelson model on ``processors`` nodes, or a trace (``swf:PATH``, ``parquet:PATH``).
    processors, started, queued : int
        The cluster and |S|, |Q| (the paper: 256, 16, 32).
    backfill : bool, default False
        EASY backfilling in the trials (the paper: none).
    tau : float, default 10
    seed : int, default 0
        Seed of the states, the permutations and the held-out split.
    forms, test_fraction, symbolic
        As :func:`~.regression.fit_forms`.
    workers, scheduler, progress
        As :func:`fairalloc.experiments.run_sweep`.

    Returns
    -------
    dict
        ``ranking`` (the :class:`~.regression.Ranking`), ``scores`` (the table), ``files`` (name ->
        path of ``best.json``, ``F1.json``, ``F2.json``, ``ranking.csv``, ``scores.parquet``), ``sweep``.

    Raises
    ------
    InvalidInstanceError
        ``states`` not a positive multiple of ``per_cell``, ``trials`` < 1 (P = 0), a missing trace,
        and, before any trial runs, what :func:`~.states.training_states` refuses: ``queued`` < 2
        (an empty or one-job queue), ``started`` < 0, ``processors`` < 1, a trace without run times
        or with a job wider than the cluster, one too short for ``per_cell`` states.
    """
    from ..store import load
    from .regression import fit_forms

    for name, v in (("states", states), ("per_cell", per_cell), ("trials", trials)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise InvalidInstanceError(f"{name}={v!r} must be an integer >= 1", argument=name, value=v)
    if states % per_cell:
        raise InvalidInstanceError(f"states={states} is not a multiple of per_cell={per_cell}", argument="states",
                                   value=states)
    entry = _workload_entry(workload)
    _check_states(entry, per_cell=int(per_cell), processors=processors, started=started, queued=queued)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    grid = {"per_cell": int(per_cell), "trials": int(trials), "processors": int(processors), "started": int(started),
            "queued": int(queued), "backfill": bool(backfill), "tau": float(tau), "base_seed": int(seed)}
    spec: dict[str, Any] = {"name": "learn-train", "seeds": {"start": 0, "count": states // per_cell},
                            "grid": {k: [v] for k, v in grid.items()}, "tables": ["scores"], "run": SCORE_CELL}
    if entry is not None:
        spec["workload"] = entry
    summary = _run(spec, out / "sweep", workers, scheduler, progress)
    table = load(out / "sweep", "scores").df().sort_values(["state", "job"], kind="stable").reset_index(drop=True)
    table = table[["state", "job", "r", "n", "s", "score", "first"]]
    ranking = fit_forms(table, forms, test_fraction=test_fraction, rng=seed, symbolic=symbolic, progress=progress)
    prov = {"method": "learned priorities (Eqs. 1-3, least squares)", "states": int(states), "trials": int(trials),
            "workload": str(workload), "processors": int(processors), "started": int(started), "queued": int(queued),
            "backfill": bool(backfill), "tau": float(tau), "seed": int(seed)}
    files = {}
    table.to_parquet(out / "scores.parquet")
    files["scores.parquet"] = out / "scores.parquet"
    rt = ranking.table()
    rt.assign(coefficients=rt["coefficients"].map(json.dumps)).to_csv(out / "ranking.csv", index=False)
    files["ranking.csv"] = out / "ranking.csv"
    ok = [f for f in ranking.fits if f.success]
    if ok:
        files["best.json"] = ok[0].function(name="learned-best", provenance=prov).save(out / "best.json")
    for paper in ("F1", "F2"):
        try:
            fit = ranking[paper]
        except KeyError:
            continue
        if fit.success:
            files[f"{paper}.json"] = fit.function(name=f"{paper}-refit", provenance=prov).save(out / f"{paper}.json")
    (out / "train.json").write_text(json.dumps({**prov, "per_cell": int(per_cell)}, indent=2) + "\n")
    return {"ranking": ranking, "scores": table, "files": files, "sweep": summary}


def _policy_label(spec: str) -> str:
    """A sweep label for a policy name (a ``learned:`` path becomes ``learned-<file stem>``)."""
    if spec.lower().startswith("learned:"):
        body = spec[len("learned:"):]
        easy = body.lower().endswith("+easy")
        stem = Path(body[:-5] if easy else body).stem
        safe = "".join(ch if ch.isalnum() or ch in "._-" else "-" for ch in stem)
        return f"learned-{safe}" + ("+easy" if easy else "")
    return spec


def evaluate(out: str | Path, functions: Sequence[str | Path] = (), *, workloads: Mapping[str, Any] | None = None,
             policies: Sequence[str] = (*BASELINES, *PAPER_POLICIES), easy: bool = True, seeds: int = 1,
             workers: int | None = None, scheduler: Any = None, progress: bool = False) -> pd.DataFrame:
    """AVEbsld of the baselines, the paper's F1/F2 and learned functions, without and with EASY.

    Parameters
    ----------
    out : str or Path
        The evaluation folder (one resumable sweep per workload, ``evaluation.csv``).
    functions : sequence of paths
        Learned-function JSON files (each becomes ``learned:PATH``).
    workloads : mapping of label to workload entry, optional
        Sweep workload entries (``{"generator": "lublin", "days": 30, "nodes": 256, "rng": "${seed}"}``,
        ``{"reader": "swf", "path": ..., "head": N}``: the first N jobs; :func:`window_entry`: a log
        window by window) with ``"processors"`` (the cluster) and optionally ``"seeds"`` (this entry's
        seeds, instead of ``seeds``); default: a 30-day Lublin trace on 256 processors.
    policies : sequence of str
        Policy names besides the learned files.
    easy : bool, default True
        Also each policy with EASY backfilling (``"+easy"``).
    seeds : int, default 1
        Seeds of each generated workload (its ``${seed}``) without its own ``"seeds"``; a trace read
        from a file runs once.
    workers, scheduler, progress
        As :func:`fairalloc.experiments.run_sweep`.

    Returns
    -------
    pandas.DataFrame
        :func:`evaluation_table`: one row per (workload, policy, backfilling); ``evaluation.csv``, and
        ``evaluation_traces.csv`` with each trace's (seed's, window's) summary row.

    Raises
    ------
    InvalidInstanceError
        A trace read from a file in which no job has a run time (before any simulation).
    """
    from ..store import load

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    workloads = dict(workloads or {"lublin-30d": {"generator": "lublin", "days": 30, "nodes": 256, "rng": "${seed}",
                                                    "processors": 256}})
    names = [*policies, *(f"learned:{Path(f).resolve()}" for f in functions)]
    if easy:
        names += [f"{p}+easy" for p in names]
    for label, entry in workloads.items():       # a trace read from a file: refused now if no job has a run time
        if "reader" in entry:
            _check_runs(label, entry)
    rows = []
    for label, entry in workloads.items():
        entry = dict(entry)
        processors = int(entry.pop("processors"))
        n_seeds = int(entry.pop("seeds", seeds))
        policies_entry: dict[str, dict[str, str]] = {}
        for p in names:                               # two files of one name: "learned-best", "learned-best-2"
            lab, k = _policy_label(p), 2
            base = lab
            while lab in policies_entry:
                lab = base.replace("+easy", f"-{k}+easy") if base.endswith("+easy") else f"{base}-{k}"
                k += 1
            policies_entry[lab] = {"policy": p}
        spec = {"name": f"learn-evaluate-{label}", "workload": entry, "capacity": {"processors": processors},
                "policies": policies_entry,
                "seeds": n_seeds if "generator" in entry else 1,      # a trace read from a file is one trace
                "tables": ["summary"]}
        _run(spec, out / label, workers, scheduler, progress)
        df = load(out / label, "summary").df()
        df.insert(0, "workload", label)
        rows.append(df)
    traces = pd.concat(rows, ignore_index=True)
    traces.to_csv(out / "evaluation_traces.csv", index=False)
    table = evaluation_table(traces)
    table.to_csv(out / "evaluation.csv", index=False)
    return table


def evaluation_table(summary: pd.DataFrame) -> pd.DataFrame:
    """Mean AVEbsld over seeds per (workload, policy, easy), and the gain over the best classic
    baseline of the same workload and backfilling (best baseline AVEbsld / the policy's: > 1 is better).

    Examples
    --------
    >>> s = pd.DataFrame({"workload": ["w"] * 3, "label": ["fcfs", "wfp3", "f1"], "avebsld": [40.0, 20.0, 5.0],
    ...                   "seed": [0, 0, 0]})
    >>> evaluation_table(s)[["policy", "avebsld", "gain"]].values.tolist()
    [['fcfs', 40.0, 0.5], ['wfp3', 20.0, 1.0], ['f1', 5.0, 4.0]]
    """
    s = summary.copy()
    s["easy"] = s["label"].str.endswith("+easy")
    s["policy"] = s["label"].str.replace("+easy", "", regex=False)
    t = (s.groupby(["workload", "easy", "policy"], sort=False)
         .agg(avebsld=("avebsld", "mean"), seeds=("seed", "nunique")).reset_index())
    base = t[t["policy"].isin(BASELINES)].groupby(["workload", "easy"])["avebsld"].min().rename("best_baseline")
    t = t.join(base, on=["workload", "easy"])
    t["gain"] = t["best_baseline"] / t["avebsld"]
    return t[["workload", "easy", "policy", "avebsld", "gain", "best_baseline", "seeds"]]
