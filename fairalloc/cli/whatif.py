"""``fairalloc whatif``: one trace under several policies and settings, per-user and per-account outcomes.

Examples::

    fairalloc whatif ../shared/data/swf/KTH-SP2-1996-2.1-cln.swf.gz --policies fcfs,easy,sdrf \\
        --half-lives 1h,1d,7d --accounts synthetic --out out/whatif-kth --workers 2
    fairalloc whatif --generator google_like --gen n_users=40 --gen n_tasks=4000 \\
        --policies drf,sdrf,tsf,cdrf --half-lives 1h,1d --pool 0.9 --out out/whatif-google
    fairalloc whatif TRACE.swf --accounts assoc.txt --head 2000 --format csv,parquet,png,pdf
    fairalloc whatif ../shared/data/google-2011-subset/task_events.csv --reader google2011 --gen duration=end \
        --policies drf,tsf,sdrf --half-lives 1h,1d --pool 0.9 --accounts synthetic

The folder holds ``sweep/`` (the resumable store of the cells: a rerun computes only what is not
done; ``fairalloc results OUT/sweep`` queries it), ``inputs/`` (the workload, account tree and policy
objects the cells read) and ``report/`` (rewritten by every run: ``summary``, ``entities`` tables;
figures ``shares`` (delivered against entitled share per account over time), ``wait_cdf`` and
``summary_table``; ``README.txt`` stating the trace, the account tree and the definitions).
Definitions: :mod:`fairalloc.experiments.share_metrics`; the Python function:
:func:`fairalloc.experiments.whatif.whatif`.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["register", "run"]

_OURS = ("sweep", "inputs", "report")


def register(subparsers: Any) -> argparse.ArgumentParser:
    from .conventions import add_format_option, positive_float, positive_int

    p = subparsers.add_parser(
        "whatif",
        description="Run one trace under several policies and settings (half-lives, weights) on the sweep "
                    "layer (Dask, resumable) and compare per-user and per-account outcomes: waits, bounded "
                    "slowdown, delivered against entitled share over time windows, Jain's index and the "
                    "promised-vs-delivered gap.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="policies: any name fa.simulate accepts (fcfs, easy, fcfs+easy, sjf, wfp3, f1, f2, buc, drf, sdrf, slurm, "
               "slurm+easy, htcondor, "
               "tsf, cdrf, ...); on a rigid trace the task policies run each job as one task of its processors "
               "on a pool of the machine's size. Definitions: docs 'Compare policies on your trace (what-if)'.")
    p.add_argument("trace", nargs="?", default=None, metavar="TRACE",
                   help="a trace file (.swf, .swf.gz, .parquet); or --generator")
    p.add_argument("--generator", default=None, choices=("google_like", "lublin", "alibaba_like"),
                   help="a generated workload instead of a trace (its arguments: --gen KEY=VALUE)")
    p.add_argument("--reader", default=None, choices=("swf", "google2011", "alibaba", "alibaba2018", "parquet"),
                   help="how to read TRACE (default: by its name: .parquet, else swf); e.g. google2011 with "
                        "--gen duration=end for the Google 2011 subset")
    p.add_argument("--gen", action="append", default=[], metavar="KEY=VALUE",
                   help="an argument of the generator or reader (repeatable), e.g. --gen n_users=40 --gen rng=1")
    p.add_argument("--policies", default="fcfs,easy", metavar="LIST",
                   help="comma-separated policy names (default fcfs,easy)")
    p.add_argument("--half-lives", default=None, metavar="LIST",
                   help="usage half-lives (seconds, or 30m, 12h, 7d, 2w), comma-separated: each policy with a "
                        "usage decay (sdrf: tau = t1/2 / ln 2; a policy taking half_life=) runs once per value")
    p.add_argument("--weights", default="equal", metavar="LIST",
                   help="equal and/or shares (user weights = normalised shares of the account tree), for "
                        "policies that take weights (default equal)")
    p.add_argument("--accounts", default="flat", metavar="FILE|flat|synthetic[:K]",
                   help="account tree: a YAML/CSV file (sacctmgr associations), flat (default: every user one "
                        "share), or synthetic[:K] (K accounts with shares 1..K, users dealt after a seeded shuffle; "
                        "stated in the report)")
    cap = p.add_mutually_exclusive_group()
    cap.add_argument("--processors", type=positive_int, default=None, metavar="N",
                     help="machine size for rigid jobs (default: the trace's MaxProcs)")
    cap.add_argument("--pool", type=positive_float, default=None, metavar="F",
                     help="task workloads: one pool of F x the workload's mean use (default 1.0)")
    p.add_argument("--windows", type=positive_int, default=12, metavar="N",
                   help="equal time windows of the share metrics (default 12)")
    p.add_argument("--window", default=None, metavar="DURATION",
                   help="window length instead (seconds, or 12h, 7d)")
    p.add_argument("--charge", default="dominant", metavar="NAME",
                   help="usage charged as the dominant share (default) or one resource's share")
    p.add_argument("--head", type=positive_int, default=None, metavar="N",
                   help="keep the first N jobs by submit time (a small run first)")
    p.add_argument("--seed", type=int, default=0, help="seed of a synthetic account tree (default 0)")
    p.add_argument("--out", default="out/whatif", metavar="DIR",
                   help="what-if folder (default out/whatif): new, empty or an earlier whatif output (resumed); "
                        "a non-empty folder fairalloc did not write is refused")
    p.add_argument("--force", action="store_true",
                   help="--out holds another command's output: replace it (files fairalloc did not write are kept)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, default=None, metavar="N",
                       help="worker processes (default: one per core; 0: in this process, without Dask)")
    where.add_argument("--scheduler", default=None, metavar="ADDRESS", help="address of a running Dask scheduler")
    p.add_argument("--time-limit", type=positive_float, default=None, metavar="SECONDS",
                   help="stop a cell still running after SECONDS (recorded as timeout)")
    add_format_option(p)
    p.set_defaults(func=run)
    return p


def _gen_args(items: list[str]) -> dict[str, Any]:
    import yaml

    from ..errors import InvalidInstanceError

    out: dict[str, Any] = {}
    for k, item in enumerate(items):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InvalidInstanceError(f"--gen {item!r}: write KEY=VALUE", argument="--gen", index=(k,), value=item)
        out[key.strip()] = yaml.safe_load(value)
    return out


def accounts_arg(text: str | None) -> Any:
    """``--accounts FILE|flat|synthetic[:K]`` as :func:`fairalloc.experiments.whatif.whatif` takes it: the
    text (a file or ``"flat"``), or ``("synthetic", K)`` (K = 4 when not given); ``None`` stays ``None``."""
    from ..errors import InvalidInstanceError

    if text is None or not text.startswith("synthetic"):
        return text
    _, _, k = text.partition(":")
    try:
        return ("synthetic", int(k) if k else 4)
    except ValueError:
        raise InvalidInstanceError(f"--accounts {text!r}: write synthetic or synthetic:K",
                                   argument="--accounts", value=text) from None


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..errors import InvalidInstanceError
    from ..experiments.whatif import whatif, whatif_tables
    from .conventions import emit_json, format_table, resumable_folder, say, show_progress

    if (args.trace is None) == (args.generator is None):
        raise InvalidInstanceError("give a TRACE file or --generator (one of them)", argument="trace",
                                   value=args.trace)
    if args.trace and (args.reader or args.gen):
        workload: Any = {"reader": args.reader or ("parquet" if args.trace.endswith(".parquet") else "swf"),
                         "path": str(Path(args.trace).resolve()), **_gen_args(args.gen)}
    elif args.trace:
        workload = args.trace
    else:
        workload = {"generator": args.generator, **_gen_args(args.gen)}
    accounts = accounts_arg(args.accounts)
    capacity = args.processors if args.processors else ({"pool": args.pool} if args.pool else None)
    split = (lambda text: [w.strip() for w in text.split(",") if w.strip()])
    with resumable_folder(args.out, args, "whatif", "whatif", ours=_OURS) as out:
        summary = whatif(workload, split(args.policies),
                         half_lives=split(args.half_lives) if args.half_lives else None,
                         weights=split(args.weights), capacity=capacity, accounts=accounts, windows=args.windows,
                         window=args.window, charge=args.charge, head=args.head, out=out, workers=args.workers,
                         scheduler=args.scheduler, progress=show_progress(args), time_limit=args.time_limit,
                         rng=args.seed)
        _report(out, whatif_tables(out), summary, args, workload)
    cols = [c for c in ("label", "half_life", "weights", "setting", "jobs", "mean_wait", "median_wait", "p95_wait",
                        "mean_bsld", "jain_user", "gap_user", "jain_account", "gap_account") if c in summary.columns]
    say(args, f"trace: {workload}; accounts: {summary.attrs['tree']}", format_table(summary[cols]),
        str(summary.attrs["sweep"]), f"report: {Path(out) / 'report'}")
    emit_json(args, {"out": str(out), "tree": summary.attrs["tree"],
                     "summary": summary[cols].to_dict("records")})
    return 0


def _report(out: Any, tables: dict, summary: Any, args: argparse.Namespace, workload: Any) -> None:
    import shutil
    from pathlib import Path

    from .. import plots
    from ..plots import whatif as wplots
    from .conventions import write_table

    rep = Path(out) / "report"
    if rep.exists():
        shutil.rmtree(rep)
    rep.mkdir()
    write_table(summary, rep / "summary", args.format.tables)
    write_table(tables["entities"], rep / "entities", args.format.tables)
    for name, fig in (("shares", wplots.shares_over_time(tables["windows"])),
                      ("wait_cdf", wplots.wait_cdfs(tables["jobs"])),
                      ("summary_table", wplots.summary_table(summary))):
        plots.save(fig, rep / name, args.format.figures)
    (rep / "README.txt").write_text(
        f"fairalloc whatif\ntrace: {workload}\naccount tree: {summary.attrs['tree']}\n"
        f"tree file: {sorted((Path(out) / 'inputs').glob('accounts-*.yaml'))[-1].name} (in inputs/)\n"
        "definitions (delivered, entitled, entitled_active, Jain, gap, gap_flux): "
        "fairalloc.experiments.share_metrics\n", encoding="utf-8")
