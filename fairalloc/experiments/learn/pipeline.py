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

import json
import logging
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from ...errors import InvalidInstanceError
from ...sim.metrics import TAU

__all__ = ["train", "evaluate", "score_cell", "BASELINES", "PAPER_POLICIES", "evaluation_table"]

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
        ``states`` not a positive multiple of ``per_cell``, ``trials`` < 1, a missing trace.
    """
    from ..store import load
    from .regression import fit_forms

    for name, v in (("states", states), ("per_cell", per_cell), ("trials", trials)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise InvalidInstanceError(f"{name}={v!r} must be an integer >= 1", argument=name, value=v)
    if states % per_cell:
        raise InvalidInstanceError(f"states={states} is not a multiple of per_cell={per_cell}", argument="states",
                                   value=states)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    grid = {"per_cell": int(per_cell), "trials": int(trials), "processors": int(processors), "started": int(started),
            "queued": int(queued), "backfill": bool(backfill), "tau": float(tau), "base_seed": int(seed)}
    spec: dict[str, Any] = {"name": "learn-train", "seeds": {"start": 0, "count": states // per_cell},
                            "grid": {k: [v] for k, v in grid.items()}, "tables": ["scores"], "run": SCORE_CELL}
    entry = _workload_entry(workload)
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
        ``{"reader": "swf", "path": ..., "head": N}``: the first N jobs) with ``"processors"`` (the
        cluster); default: a 30-day Lublin trace on 256 processors.
    policies : sequence of str
        Policy names besides the learned files.
    easy : bool, default True
        Also each policy with EASY backfilling (``"+easy"``).
    seeds : int, default 1
        Seeds of each generated workload (its ``${seed}``); a trace read from a file runs once.
    workers, scheduler, progress
        As :func:`fairalloc.experiments.run_sweep`.

    Returns
    -------
    pandas.DataFrame
        :func:`evaluation_table`: one row per (workload, policy, backfilling).
    """
    from ..store import load

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    workloads = dict(workloads or {"lublin-30d": {"generator": "lublin", "days": 30, "nodes": 256, "rng": "${seed}",
                                                    "processors": 256}})
    names = [*policies, *(f"learned:{Path(f).resolve()}" for f in functions)]
    if easy:
        names += [f"{p}+easy" for p in names]
    rows = []
    for label, entry in workloads.items():
        entry = dict(entry)
        processors = int(entry.pop("processors"))
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
                "seeds": int(seeds) if "generator" in entry else 1,      # a trace read from a file is one trace
                "tables": ["summary"]}
        _run(spec, out / label, workers, scheduler, progress)
        df = load(out / label, "summary").df()
        df.insert(0, "workload", label)
        rows.append(df)
    table = evaluation_table(pd.concat(rows, ignore_index=True))
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
