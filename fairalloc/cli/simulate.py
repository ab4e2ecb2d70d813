"""``fairalloc simulate``: run job-queue policies on a trace or a generated workload.

Examples::

    fairalloc simulate --workload lublin:days=30,nodes=256 --policy fcfs,easy,wfp3,unicef,f1,f2,buc \\
        --processors 256 --out out/sim
    fairalloc simulate --workload swf:../shared/data/swf/KTH-SP2-1996-2.1-cln.swf.gz --policy fcfs,buc \\
        --enforce-walltime --out out/kth
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import InvalidInstanceError

__all__ = ["register", "run", "parse_workload"]

logger = logging.getLogger(__name__)

_LUBLIN_KEYS = {"days": float, "n": int, "n_jobs": int, "nodes": int, "typed": int, "seed": int,
                "n_users": int, "users": int, "estimate": str, "umed": float}


def _kv(text: str, spec: str) -> dict[str, str]:
    out = {}
    for part in filter(None, text.split(",")):
        if "=" not in part:
            raise InvalidInstanceError(f"--workload {spec!r}: expected key=value, got {part!r}",
                                       argument="workload", value=spec)
        k, v = part.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def parse_workload(spec: str, *, seed: int = 0):
    """Build a Workload from ``swf:PATH``, ``parquet:PATH`` or ``lublin:key=value,...``.

    Lublin keys: ``days`` or ``n`` (jobs), ``nodes``, ``typed`` (0/1), ``seed``, ``users``,
    ``estimate`` (``exact`` or a factor >= 1), ``umed``.

    >>> len(parse_workload("lublin:n=50,nodes=64,seed=1"))
    50
    """
    from ..workloads import Workload, lublin, read_swf

    kind, _, rest = spec.partition(":")
    kind = kind.lower()
    if kind == "swf":
        return read_swf(rest)
    if kind == "parquet":
        return Workload.read_parquet(rest)
    if kind == "lublin":
        kv = _kv(rest, spec)
        unknown = sorted(set(kv) - set(_LUBLIN_KEYS))
        if unknown:
            raise InvalidInstanceError(f"--workload {spec!r}: unknown key(s) {unknown}; known: "
                                       f"{sorted(_LUBLIN_KEYS)}", argument="workload", value=spec)
        try:
            v = {k: _LUBLIN_KEYS[k](x) for k, x in kv.items()}
        except ValueError as exc:
            raise InvalidInstanceError(f"--workload {spec!r}: {exc}", argument="workload",
                                       value=spec) from None
        n = v.get("n", v.get("n_jobs"))
        days = v.get("days")
        if n is None and days is None:
            days = 30.0
        est: Any = v.get("estimate", "exact")
        if est != "exact":
            est = float(est)
        return lublin(n, days=days, nodes=v.get("nodes", 128), typed=bool(v.get("typed", 1)),
                      rng=v.get("seed", seed), n_users=v.get("users", v.get("n_users")),
                      estimate=est, umed=v.get("umed"))
    raise InvalidInstanceError(f"--workload {spec!r}: expected swf:PATH, parquet:PATH or "
                               "lublin:key=value,...", argument="workload", value=spec)


def register(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "simulate", help="simulate job-queue policies on a trace or a generated workload",
        description="Simulate job-queue policies (FCFS, EASY, SJF, WFP3, UNICEF, F1, F2, BUC; any "
                    "with +easy) on rigid parallel jobs; print a summary table and write per-job "
                    "Parquet and figures to --out.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="workload specs: swf:PATH | parquet:PATH | lublin:days=30,nodes=256[,typed=1,seed=0,"
               "users=K,estimate=exact|F]")
    p.add_argument("--workload", default="lublin:days=30,nodes=256",
                   help="workload spec (default: %(default)s)")
    p.add_argument("--policy", default="fcfs,easy,wfp3,unicef,f1,f2",
                   help="comma-separated policies (default: %(default)s)")
    p.add_argument("--processors", type=int, default=None,
                   help="processors (default: the workload's MaxProcs / MaxNodes)")
    p.add_argument("--out", default=None, help="output folder (Parquet, CSV, figures)")
    p.add_argument("--enforce-walltime", action="store_true",
                   help="kill jobs at their requested time (default: run to completion)")
    p.add_argument("--k-p", type=float, default=10800.0, help="BUC's K_p (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="seed for generated workloads")
    p.add_argument("--head", type=int, default=None, help="use only the first N jobs")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    from tqdm.auto import tqdm

    from ..sim import simulate

    wl = parse_workload(args.workload, seed=args.seed)
    if args.head:
        wl = wl.sorted().head(args.head)
    policies = [s.strip() for s in args.policy.split(",") if s.strip()]
    capacity = args.processors
    results = {}
    show = not args.no_progress
    for name in tqdm(policies, desc="policies", disable=not show or len(policies) < 2):
        opts = {"k_p": args.k_p} if name.split("+")[0].lower() == "buc" else {}
        results[name] = simulate(wl, capacity, policy=name, enforce_walltime=args.enforce_walltime,
                                 progress=show, **opts)
    table = pd.DataFrame([r.summary() for r in results.values()]).set_index("policy")
    first = next(iter(results.values()))
    print(f"workload: {args.workload} ({len(wl)} jobs, {wl.n_users} users), "
          f"{int(first.capacity[0])} processors; jobs longer than their request "
          f"{'killed at walltime' if args.enforce_walltime else 'run to completion'}")
    cols = ["jobs", "finished", "rejected", "killed", "mean_wait", "median_wait", "avebsld",
            "utilization", "makespan"]
    with pd.option_context("display.width", 160, "display.float_format", "{:,.2f}".format):
        print(table[cols].to_string())
    if args.out:
        from ..plots.sim import avebsld_bars, wait_cdf

        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        for name, r in results.items():
            r.to_parquet(out / name.replace("+", "_"))
        table.to_csv(out / "summary.csv")
        wait_cdf(results).savefig(out / "wait_cdf.png", dpi=120)
        avebsld_bars(results).savefig(out / "avebsld.png", dpi=120)
        print(f"wrote {out}/summary.csv, wait_cdf.png, avebsld.png and per-policy Parquet folders")
    return 0
