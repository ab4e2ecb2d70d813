"""``fairalloc learn``: learn priority functions by simulation (the learned-priorities method).

Subcommands:

``states``
    Draw training states (S, Q) from the Lublin-Feitelson model or a trace; write them (Parquet),
    a per-state table and a figure.
``fit``
    Fit the paper's forms F1, F2 and an enumerated family (optionally a gplearn symbolic search)
    to a scored training table by least squares; rank them by held-out mean absolute error; write
    the ranking, the best functions as learned-function JSON files, and figures.
``show``
    Print a learned-function file (or the paper's F1/F2), evaluate it at given jobs, save it.
``train``
    The whole method on the sweep layer (Dask; resumable): states, trials on the compiled loop,
    scores (Eqs. 2-3), fits; writes best.json, F1.json, F2.json (re-fitted), ranking.csv.
``evaluate``
    AVEbsld of FCFS, SJF, WFP3, UNICEF, F1, F2 and learned files, without and with EASY, on a
    30-day Lublin trace and the real logs given (sweep layer; resumable).

Examples::

    fairalloc learn states --states 200 --out out/learn/states
    fairalloc learn states --workload swf:../shared/data/swf/KTH-SP2-1996-2.1-cln.swf.gz --processors 100
    fairalloc learn fit scores.parquet --symbolic --out out/learn/fit
    fairalloc learn fit score-distribution.csv --queue 32 --weights rn      # the authors' SC'17 scores
    fairalloc learn show out/learn/fit/best.json --at 3600,64,7200
    fairalloc learn show F1 --save f1.json
    fairalloc learn train --states 200 --trials 250000 --workers 2 --out out/learn/train
    fairalloc learn train --easy --states 64 --trials 50000 --out out/learn/train-easy      # EASY in the trials
    fairalloc learn evaluate out/learn/train/best.json out/learn/train/F1.json \
        --swf KTH-SP2=../shared/data/swf/KTH-SP2-1996-2.1-cln.swf.gz:100 --out out/learn/evaluate
    fairalloc learn evaluate out/learn/train/best.json --swf-windows 30 \
        --swf KTH-SP2=../shared/data/swf/KTH-SP2-1996-2.1-cln.swf.gz:100 --out out/learn/evaluate-30d

The library is :mod:`fairalloc.experiments.learn`; this module parses arguments and prints tables.
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import Any

from ..errors import InvalidInstanceError
from .conventions import (OneLineParser, add_common_options, add_format_option, add_output_options, emit_json,
                          nonnegative_int, output_folder, check_output_folder, positive_float, positive_int, say,
                          show_progress, write_table)

__all__ = ["register", "run"]

logger = logging.getLogger(__name__)

_LUBLIN_OPTIONS = {"typed": int, "umed": float, "estimate": str}
_STATES_FILES = ("states.parquet", "states.csv", "states.png", *(f"per_state.{x}" for x in ("csv", "parquet", "json")),
                 *(f"states.{x}" for x in ("pdf", "svg")))
_FIT_FILES = ("best.json", "functions", *(f"{t}.{x}" for t in ("ranking", "paper") for x in ("csv", "parquet", "json")),
              *(f"{t}.{x}" for t in ("fit", "ranking") for x in ("png", "pdf", "svg")))


def register(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "learn",
        description="Learn job priority functions f(r, n, s) as the learned-priorities paper does: training "
                    "states (S, Q), scores of the queued jobs by Eqs. 2-3, least-squares fits of nonlinear "
                    "forms ranked on held-out states. Subcommands: states, fit, show, train, evaluate.",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("Examples::")[1])
    sub = p.add_subparsers(dest="learn_command", metavar="SUBCOMMAND", parser_class=OneLineParser)

    s = sub.add_parser("states", help="draw training states (S, Q) and write them",
                       description="Draw training states: windows of |S| + |Q| consecutive jobs of a workload "
                                   "(S started first, in trace order; Q the queue whose permutations are scored), "
                                   "and write states.parquet (the states, read by score_states), per_state.csv "
                                   "(one row per state) and states.png (--format: other formats).")
    s.add_argument("--states", type=positive_int, default=100, metavar="N", help="number of states (default 100)")
    s.add_argument("--workload", default="lublin",
                   help="lublin[:typed=0|1,umed=U,estimate=exact|F] (the model, on --processors nodes; "
                        "default typeless) or swf:PATH or parquet:PATH (a trace of rigid jobs); default lublin")
    s.add_argument("--processors", type=positive_int, default=256, help="processors of the cluster (default 256)")
    s.add_argument("--started", type=nonnegative_int, default=16, help="|S| (default 16)")
    s.add_argument("--queued", type=positive_int, default=32, help="|Q| (default 32; at least 2)")
    s.add_argument("--seed", type=nonnegative_int, default=0, help="seed of the windows and the model (default 0)")
    add_output_options(s, default="out/learn/states")
    s.set_defaults(out="out/learn/states")
    add_format_option(s)
    s.set_defaults(func=run_states)

    f = sub.add_parser("fit", help="fit and rank priority forms on scored states",
                       description="Fit the paper's F1 and F2 and an enumerated family of forms (products and sums "
                                   "of r, sqrt r, log r, n, sqrt n, log n, s, log s) to scored jobs by least squares, "
                                   "rank them by mean absolute error on held-out states, write the ranking, the best "
                                   "functions as JSON files and figures.")
    f.add_argument("scores", metavar="SCORES",
                   help="scored jobs: Parquet or CSV with columns state, r, n, s, score (score_states), or the "
                        "authors' headerless CSV r, n, s, score (see --queue)")
    f.add_argument("--queue", type=positive_int, default=32, metavar="Q",
                   help="jobs per state in a headerless CSV (default 32)")
    f.add_argument("--forms", choices=("all", "paper", "family"), default="all",
                   help="paper: F1 and F2; family: the enumerated family (F1 and F2 among them); all (default)")
    f.add_argument("--form", action="append", default=[], metavar="NAME=FORMULA",
                   help="also fit this form (repeatable), e.g. 'mine=c1*log(r)*n + c2*log(s)'")
    f.add_argument("--test-fraction", type=float, default=0.25, help="share of states held out (default 0.25)")
    f.add_argument("--weights", choices=("none", "rn"), default="none",
                   help="rn: weight residuals by r*n, as the authors' SC'17 code (default none)")
    f.add_argument("--max-nfev", type=positive_int, default=None, metavar="N",
                   help="evaluation limit of the solver per form; a form stopped by it keeps its best point so far "
                        "(status iteration_limit; default: scipy's limit)")
    f.add_argument("--symbolic", action="store_true", help="also run the gplearn symbolic search (extra 'learn')")
    f.add_argument("--generations", type=positive_int, default=20, help="symbolic search: generations (default 20)")
    f.add_argument("--population", type=positive_int, default=1000,
                   help="symbolic search: programs per generation (default 1000)")
    f.add_argument("--seed", type=nonnegative_int, default=0, help="seed of the split and the search (default 0)")
    f.add_argument("--top", type=positive_int, default=10, help="rows of the ranking printed and files written "
                                                                "(default 10)")
    add_output_options(f, default="out/learn/fit")
    f.set_defaults(out="out/learn/fit")
    add_format_option(f)
    f.set_defaults(func=run_fit)

    w = sub.add_parser("show", help="print, evaluate or save a learned function",
                       description="Print a learned-function JSON file (or the paper's F1, F2): formula, coefficients, "
                                   "provenance; evaluate it at jobs given as r,n,s; save it.")
    w.add_argument("function", metavar="FILE|F1|F2", help="a learned-function JSON file, or F1 / F2 (Table 1)")
    w.add_argument("--at", action="append", default=[], metavar="R,N,S",
                   help="evaluate at run time R (s), processors N, submit time S (s); repeatable")
    w.add_argument("--save", default=None, metavar="PATH", help="write the function as a JSON file")
    w.set_defaults(func=run_show)

    trn, ev = _register_train_evaluate(sub)    # train and evaluate on the sweep layer (issue 29)

    for sp in (s, f, w, trn, ev):
        add_common_options(sp)
    p.set_defaults(func=run, _learn_parser=p)
    return p


def run(args: argparse.Namespace) -> int:
    args._learn_parser.print_help()
    return 2


# ---- states ---------------------------------------------------------------------------------------
def _states_workload(spec: str, seed: int) -> tuple[Any, dict]:
    kind, _, rest = spec.partition(":")
    if kind.lower() != "lublin":
        from .simulate import parse_workload

        if kind.lower() not in ("swf", "parquet"):
            raise InvalidInstanceError(f"--workload {spec!r}: expected lublin[:...], swf:PATH or parquet:PATH",
                                       argument="workload", value=spec)
        return parse_workload(spec, seed=seed), {}
    opts: dict[str, Any] = {}
    for part in filter(None, rest.split(",")):
        k, eq, v = part.partition("=")
        k = k.strip()
        if not eq or k not in _LUBLIN_OPTIONS:
            raise InvalidInstanceError(f"--workload {spec!r}: {part!r} is not one of "
                                       f"{', '.join(f'{o}=...' for o in _LUBLIN_OPTIONS)}", argument="workload",
                                       value=spec)
        try:
            val = _LUBLIN_OPTIONS[k](v.strip())
        except ValueError:
            raise InvalidInstanceError(f"--workload {spec!r}: {k}={v!r} is not a {_LUBLIN_OPTIONS[k].__name__}",
                                       argument="workload", value=spec) from None
        if k == "typed":
            val = bool(val)
        if k == "estimate" and val != "exact":
            try:
                val = float(val)
            except ValueError:
                raise InvalidInstanceError(f"--workload {spec!r}: estimate={v!r} must be 'exact' or a factor >= 1",
                                           argument="workload", value=spec) from None
        opts[k] = val
    return "lublin", opts


def run_states(args: argparse.Namespace) -> int:
    import numpy as np
    import pandas as pd

    from ..experiments.learn import training_states
    from ..plots import save
    from ..plots.learn import states_histograms

    check_output_folder(args.out, ours=_STATES_FILES, force=args.force)
    wl, opts = _states_workload(args.workload, args.seed)
    st = training_states(args.states, workload=wl, processors=args.processors, started=args.started,
                         queued=args.queued, rng=args.seed, lublin=opts or None)
    q = slice(st.started, None)
    per_state = pd.DataFrame({
        "state": np.arange(len(st)), "window_start": st.meta["window_start"], "first_job_id": st.meta["job_id"],
        "S_processors": st.processors[:, :st.started].sum(axis=1), "Q_processors": st.processors[:, q].sum(axis=1),
        "Q_work_processor_hours": (st.run_time[:, q] * st.processors[:, q]).sum(axis=1) / 3600.0,
        "Q_last_submit_h": st.submit[:, -1] / 3600.0, "Q_median_run_s": np.median(st.run_time[:, q], axis=1)})
    dropped = st.meta["dropped"]
    say(args, f"{len(st)} training states from {args.workload}: |S| = {st.started}, |Q| = {st.queued}, "
              f"{st.capacity} processors, seed {args.seed}"
              + (f"; dropped {dropped['unknown_run_time']} job(s) of unknown run time and "
                 f"{dropped['unknown_processors']} of unknown processors" if any(dropped.values()) else ""))
    with pd.option_context("display.width", 160, "display.float_format", "{:,.2f}".format):
        say(args, per_state.describe().loc[["mean", "min", "50%", "max"]].drop(columns=["state"]).to_string())
    emit_json(args, {"states": len(st), "started": st.started, "queued": st.queued, "processors": st.capacity,
                     "workload": args.workload, "seed": args.seed, "meta": st.meta})
    with output_folder(args.out, args, "learn states", ours=_STATES_FILES) as out:
        st.to_parquet(out / "states.parquet")
        written = write_table(per_state, out / "per_state", args.format.tables)
        written += save(states_histograms(st), out / "states", args.format.figures, dpi=110)
    say(args, f"wrote {args.out}/states.parquet, " + ", ".join(p.name for p in written))
    return 0


# ---- fit ------------------------------------------------------------------------------------------
def _forms(args: argparse.Namespace) -> dict[str, str]:
    from ..experiments.learn import PAPER_FORMS, Formula, enumerate_forms

    forms: dict[str, str] = {}
    if args.forms in ("paper", "all"):
        forms.update(PAPER_FORMS)
    if args.forms in ("family", "all"):
        paper = {Formula(v).text for v in PAPER_FORMS.values()} if args.forms == "all" else set()
        forms.update({k: v for k, v in enumerate_forms().items() if Formula(v).text not in paper})
    for item in args.form:
        name, eq, text = item.partition("=")
        if not eq or not name.strip() or not text.strip():
            raise InvalidInstanceError(f"--form {item!r}: expected NAME=FORMULA", argument="form", value=item)
        Formula(text)                                   # refuse a bad formula before any fit
        forms[name.strip()] = text.strip()
    return forms


def _slug(text: str) -> str:
    import re

    for op, word in (("+", " plus "), ("*", " times "), ("/", " over "), ("-", " minus ")):
        text = text.replace(op, word)
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")[:60] or "form"


def run_fit(args: argparse.Namespace) -> int:
    import json

    import pandas as pd

    from ..experiments.learn import fit_forms, read_scores, table1_coefficients
    from ..experiments.learn.symbolic import available
    from ..plots import save
    from ..plots.learn import fit_scatter, ranking_bars
    from ..version import __version__

    if not 0.0 < args.test_fraction < 1.0:
        raise InvalidInstanceError(f"--test-fraction {args.test_fraction!r} must be in (0, 1)",
                                   argument="test-fraction", value=args.test_fraction)
    if args.symbolic and not available():
        raise InvalidInstanceError("--symbolic needs gplearn: pip install 'fairalloc[learn]'", argument="symbolic")
    check_output_folder(args.out, ours=_FIT_FILES, force=args.force)
    forms = _forms(args)
    table = read_scores(args.scores, queued=args.queue)
    symbolic = {"population_size": args.population, "generations": args.generations} if args.symbolic else False
    ranking = fit_forms(table, forms, test_fraction=args.test_fraction, rng=args.seed,
                        weights=None if args.weights == "none" else "rn", max_nfev=args.max_nfev,
                        symbolic=symbolic, progress=show_progress(args))
    rt = ranking.table()
    n_states = int(table["state"].nunique())
    say(args, f"{len(table)} scored jobs in {n_states} states from {args.scores}; fitted {len(ranking.fits)} forms on "
              f"{len(ranking.train_states)} states, ranked on {len(ranking.test_states)} held-out states "
              f"(seed {args.seed}, weights {args.weights}); held-out MAE of the constant predictor (the mean "
              f"score): {ranking.baseline_mae:.4g}")
    shown = rt.head(args.top).copy()
    shown["coefficients"] = [", ".join(f"{k}={v:.4g}" for k, v in c.items()) for c in shown["coefficients"]]
    with pd.option_context("display.width", 200, "display.max_colwidth", 60, "display.float_format", "{:.4g}".format):
        say(args, shown[["rank", "name", "status", "test_mae", "train_mae", "coefficients"]].to_string(index=False))
    paper_rows = []
    for name in ("F1", "F2"):
        try:
            fit = ranking[name]
        except KeyError:
            continue
        rank = [f.name for f in ranking.fits].index(name) + 1
        for c, t1 in table1_coefficients(name).items():
            paper_rows.append({"form": name, "rank": rank, "coefficient": c + (" (= c1*c2 of Table 1)"
                                                                                if name == "F1" and c == "c1" else ""),
                               "fitted": fit.coefficients.get(c), "table1": t1})
    paper = pd.DataFrame(paper_rows)
    if len(paper):
        with pd.option_context("display.float_format", "{:.6g}".format):
            say(args, "the paper's forms against Table 1 (decimal log; Table 1's F1 c1 and c2 enter as one product):",
                paper.to_string(index=False))
    stopped = [f.name for f in ranking.fits if f.status == "iteration_limit"]
    if stopped:
        say(args, f"{len(stopped)} form(s) stopped at the solver's evaluation limit, not converged (their best "
                  f"point so far is ranked and saved; raise --max-nfev): {', '.join(stopped[:5])}"
                  + (" ..." if len(stopped) > 5 else ""))
    failed = [f.name for f in ranking.fits if not f.success]
    if failed:
        say(args, f"{len(failed)} form(s) failed (ranked last, see ranking.csv): {', '.join(failed[:5])}"
                  + (" ..." if len(failed) > 5 else ""))
    provenance = {"fairalloc": __version__, "scores": str(args.scores), "states": n_states,
                  "baseline_test_mae": ranking.baseline_mae,
                  "train_states": len(ranking.train_states), "test_states": len(ranking.test_states),
                  "seed": args.seed, "weights": args.weights, "max_nfev": args.max_nfev,
                  **{k: v for k, v in table.attrs.items() if k in ("n_trials", "backfill", "tau", "capacity",
                                                                   "started", "queued", "states_meta")}}
    emit_json(args, {"provenance": provenance, "ranking": json.loads(rt.to_json(orient="records"))})
    with output_folder(args.out, args, "learn fit", ours=_FIT_FILES) as out:
        fmt = args.format
        written = write_table(rt.assign(coefficients=[json.dumps(c) for c in rt["coefficients"]]), out / "ranking",
                              fmt.tables)
        if len(paper):
            written += write_table(paper, out / "paper", fmt.tables)
        (out / "functions").mkdir()
        usable = [f for f in ranking.fits if f.success]
        if usable:
            usable[0].function(name=usable[0].name, provenance=provenance).save(out / "best.json")
        for i, fit in enumerate(ranking.fits[:args.top], 1):
            if fit.success:
                fit.function(provenance=provenance).save(out / "functions" / f"{i:02d}_{_slug(fit.name)}.json")
        drawn = usable[:3] + [f for f in usable[3:] if f.name in ("F1", "F2")]
        written += save(fit_scatter(table, drawn, states=ranking.test_states), out / "fit", fmt.figures, dpi=110)
        written += save(ranking_bars(ranking, top=args.top), out / "ranking", fmt.figures, dpi=110)
    say(args, f"wrote {args.out}/best.json, functions/ (top {args.top}), " + ", ".join(p.name for p in written))
    return 0


# ---- show -----------------------------------------------------------------------------------------
def run_show(args: argparse.Namespace) -> int:
    import json

    import numpy as np

    from ..experiments.learn import LearnedFunction, paper_function

    name = args.function
    fn = paper_function(name) if name.upper() in ("F1", "F2") and not Path(name).exists() else LearnedFunction.load(name)
    points = []
    for item in args.at:
        parts = item.split(",")
        try:
            vals = [float(x) for x in parts]
        except ValueError:
            vals = []
        if len(vals) != 3 or not all(np.isfinite(vals)):
            raise InvalidInstanceError(f"--at {item!r}: expected three numbers R,N,S", argument="at", value=item)
        points.append(vals)
    say(args, f"{fn.name}: {fn.formula.text}  ({'lowest' if fn.lower_first else 'highest'} first)",
        "coefficients: " + ", ".join(f"{k} = {v:.10g}" for k, v in fn.coefficients.items()),
        "provenance: " + json.dumps(fn.provenance, indent=2, sort_keys=True).replace("\n", "\n  "))
    values = []
    if points:
        arr = np.array(points)
        values = fn(arr[:, 0], arr[:, 1], arr[:, 2]).tolist()
        for (r, n, s), v in zip(points, values):
            say(args, f"f(r={r:g}, n={n:g}, s={s:g}) = {v:.10g}")
    emit_json(args, {**fn.to_dict(), "at": [{"r": p[0], "n": p[1], "s": p[2], "value": v}
                                            for p, v in zip(points, values)]})
    if args.save:
        path = fn.save(args.save)
        say(args, f"wrote {path}")
    return 0


# ---- train and evaluate on the sweep layer ------------------------------------------------------------
def _register_train_evaluate(sub: Any) -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    t = sub.add_parser("train", help="states, trials, scores and fits on the sweep layer (Dask, resumable)",
                       description="Run the learned-priorities method end to end as a resumable sweep: draw training "
                                   "states, simulate --trials permutations of each queue on the compiled loop, score "
                                   "the jobs (Eqs. 2-3), fit the paper's forms and the enumerated family, and write "
                                   "best.json, F1.json and F2.json (re-fitted; usable as --policy learned:FILE), "
                                   "ranking.csv and scores.parquet. Rerun into the same --out to finish or reuse.")
    t.add_argument("--states", type=positive_int, default=200, help="training states (default 200)")
    t.add_argument("--per-cell", type=positive_int, default=10, help="states per sweep cell (default 10)")
    t.add_argument("--trials", type=positive_int, default=250_000,
                   help="permutations per state (default 250000, the paper's)")
    t.add_argument("--workload", default="lublin", help="lublin (default) or swf:PATH / parquet:PATH")
    t.add_argument("--processors", type=positive_int, default=256, help="processors (default 256)")
    t.add_argument("--started", type=nonnegative_int, default=16, help="|S| (default 16)")
    t.add_argument("--queued", type=positive_int, default=32, help="|Q| (default 32)")
    t.add_argument("--easy", action="store_true",
                   help="schedule every trial with EASY backfilling over the permutation (the paper: none, "
                        "strict list order; the default); the functions' provenance says which")
    t.add_argument("--seed", type=nonnegative_int, default=0, help="seed (default 0)")
    t.add_argument("--workers", type=nonnegative_int, default=None,
                   help="Dask worker processes (default: one per core; 0: in this process)")
    t.add_argument("--scheduler", default=None, help="address of an existing Dask scheduler")
    t.add_argument("--out", default="out/learn/train", help="training folder (default out/learn/train)")
    t.set_defaults(func=run_train)

    e = sub.add_parser("evaluate", help="AVEbsld of baselines, F1/F2 and learned files, with and without EASY",
                       description="Simulate FCFS, SJF, WFP3, UNICEF, F1, F2 (Table 1) and each learned-function FILE, "
                                   "each without and with EASY backfilling, on 30-day Lublin traces (256 "
                                   "processors) and the SWF logs given; print AVEbsld and each policy's gain over "
                                   "the best classic baseline; write evaluation.csv. Resumable.")
    e.add_argument("functions", nargs="*", metavar="FILE", help="learned-function JSON files")
    e.add_argument("--seeds", type=positive_int, default=1, help="Lublin traces (seeds 0..N-1; default 1)")
    e.add_argument("--days", type=positive_int, default=30, help="days of each Lublin trace (default 30)")
    e.add_argument("--swf", action="append", default=[], metavar="LABEL=PATH:PROCESSORS[:HEAD]",
                   help="also a real log (repeatable); HEAD keeps its first jobs; a missing file is skipped, saying so")
    e.add_argument("--swf-windows", type=positive_float, default=None, metavar="DAYS",
                   help="cut each --swf log (without HEAD) into consecutive DAYS-day windows from its first "
                        "submission, each simulated alone from an empty machine, and report the mean over the "
                        "windows, as the paper evaluates on 30-day traces (empty windows left out; default: the "
                        "whole log as one trace)")
    e.add_argument("--no-easy", action="store_true", help="only without backfilling")
    e.add_argument("--workers", type=nonnegative_int, default=None,
                   help="Dask worker processes (default: one per core; 0: in this process)")
    e.add_argument("--scheduler", default=None, help="address of an existing Dask scheduler")
    e.add_argument("--out", default="out/learn/evaluate", help="evaluation folder (default out/learn/evaluate)")
    e.set_defaults(func=run_evaluate)
    return t, e


def _resumable_folder(path: str, marker: str) -> Path:
    """A folder a resumable learn run may write: absent, empty, or one of its own earlier runs."""
    out = Path(path)
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / marker).exists())):
        raise InvalidInstanceError(f"--out {path}: not empty and not an earlier run of this command (no {marker}); "
                                   "give a new or empty folder", argument="out", value=path)
    return out


def run_train(args: argparse.Namespace) -> int:
    import pandas as pd

    from ..experiments.learn import table1_coefficients
    from ..experiments.learn.pipeline import train

    out = _resumable_folder(args.out, "sweep")
    res = train(out, states=args.states, per_cell=args.per_cell, trials=args.trials, workload=args.workload,
                processors=args.processors, started=args.started, queued=args.queued, backfill=args.easy,
                seed=args.seed, workers=args.workers, scheduler=args.scheduler, progress=show_progress(args))
    ranking = res["ranking"]
    say(args, f"{args.states} states x {args.trials} trials ({args.workload}, {args.processors} processors, |S| = "
              f"{args.started}, |Q| = {args.queued}, {'EASY' if args.easy else 'no backfilling'}); {res['sweep']}",
        f"held-out MAE of the constant predictor: {ranking.baseline_mae:.4g}")
    rt = ranking.table().head(10)
    rt["coefficients"] = [", ".join(f"{k}={v:.4g}" for k, v in c.items()) for c in rt["coefficients"]]
    with pd.option_context("display.width", 200, "display.max_colwidth", 60, "display.float_format", "{:.4g}".format):
        say(args, rt[["rank", "name", "status", "test_mae", "coefficients"]].to_string(index=False))
    for name in ("F1", "F2"):
        try:
            fit = ranking[name]
        except KeyError:
            continue
        t1 = table1_coefficients(name)
        say(args, f"{name} re-fitted: " + ", ".join(f"{c}={fit.coefficients[c]:.4g} (Table 1: {v:.4g})"
                                                   for c, v in t1.items()))
    say(args, "wrote " + ", ".join(str(p) for p in res["files"].values()))
    return 0


def run_evaluate(args: argparse.Namespace) -> int:
    import pandas as pd

    from ..experiments.learn.pipeline import evaluate, window_entry

    out = _resumable_folder(args.out, "evaluation.csv") if not Path(args.out, "lublin").exists() else Path(args.out)
    for f in args.functions:
        if not Path(f).is_file():
            raise InvalidInstanceError(f"learned function file not found: {f}", argument="functions", value=f)
    workloads: dict[str, Any] = {"lublin": {"generator": "lublin", "days": args.days, "nodes": 256,
                                            "rng": "${seed}", "processors": 256}}
    for item in args.swf:
        label, eq, rest = item.partition("=")
        tokens = rest.split(":")
        numbers = 2 if len(tokens) >= 3 and tokens[-1].isdigit() and tokens[-2].isdigit() else 1
        parts = [":".join(tokens[:-numbers]), *tokens[-numbers:]]
        if not eq or not label or len(tokens) < 2 or not parts[1].isdigit() or not parts[0]:
            raise InvalidInstanceError(f"--swf {item!r}: expected LABEL=PATH:PROCESSORS[:HEAD]", argument="swf",
                                       value=item)
        path = Path(parts[0])
        if not path.is_file():
            say(args, f"--swf {label}: {path} is absent here: skipped")
            continue
        if args.swf_windows is not None and len(parts) == 2:
            workloads[label] = window_entry(path, int(parts[1]), args.swf_windows)
            say(args, f"--swf {label}: {workloads[label]['seeds']} windows of {args.swf_windows:g} days")
            continue
        entry = {"reader": "swf", "path": str(path.resolve()), "processors": int(parts[1])}
        if len(parts) == 3:
            entry["head"] = int(parts[2])
        workloads[label] = entry
    table = evaluate(out, args.functions, workloads=workloads, easy=not args.no_easy, seeds=args.seeds,
                     workers=args.workers, scheduler=args.scheduler, progress=show_progress(args))
    with pd.option_context("display.width", 200, "display.float_format", "{:.4g}".format):
        say(args, table.to_string(index=False))
    say(args, f"wrote {out / 'evaluation.csv'}")
    return 0
