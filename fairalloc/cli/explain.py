"""``fairalloc explain``: why did one job of a simulation wait? Each decision while it was pending.

Examples::

    fairalloc explain ../shared/data/swf/KTH-SP2-1996-2.1-cln.swf.gz --job 1234 --policy slurm+easy
    fairalloc explain TRACE.swf --row 40 --policy htcondor --option half_life=3600 --json -
    fairalloc explain --generator lublin --gen n_jobs=500 --gen nodes=64 --gen rng=1 --gen n_users=8 \\
        --processors 64 --row 300 --policy slurm --option fairshare=classic

The simulation is re-run with the policy watching that job (it is deterministic), and the report gives,
at every decision while it waited, its priority and each factor, the jobs ahead of it and theirs, and
what blocked it (lower priority, no room, backfill reservation). The Python function:
:func:`fairalloc.experiments.explain.explain`.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["register", "run", "DURATION_OPTIONS"]

#: Options of the explained policies that are durations in seconds: ``--option half_life=7d`` is 604800
#: (``s``, ``m``, ``h``, ``d``, ``w``, as whatif's ``--half-lives``); a plain number is seconds.
DURATION_OPTIONS = ("half_life", "calc_period", "max_age", "interval")


def register(subparsers: Any) -> argparse.ArgumentParser:
    from .conventions import positive_int

    p = subparsers.add_parser(
        "explain", description="Why did one job wait? Re-runs the simulation with the policy watching the job and "
                               "prints every decision while it was pending: its priority and factors, the jobs "
                               "ahead of it, and what blocked it (lower priority, no room, backfill reservation).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="policies: slurm, slurm+easy, htcondor (options: --option KEY=VALUE, e.g. half_life=7d is "
               "half_life=604800, calc_period=300, fairshare=classic, decay=exact; docs 'Policies').")
    p.add_argument("trace", nargs="?", default=None, metavar="TRACE", help="a trace file (.swf, .swf.gz, .parquet)")
    p.add_argument("--generator", default=None, choices=("lublin",),
                   help="a generated workload instead of a trace (its arguments: --gen KEY=VALUE)")
    p.add_argument("--gen", action="append", default=[], metavar="KEY=VALUE", help="a generator argument (repeatable)")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--job", default=None, type=int, metavar="ID", help="the job's id (the trace's job number)")
    which.add_argument("--row", default=None, type=int, metavar="N", help="the job's row in the workload (from 0)")
    p.add_argument("--policy", default="slurm", choices=("slurm", "slurm+easy", "htcondor"),
                   help="the policy (default slurm)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="a policy option (repeatable), e.g. half_life=86400, calc_period=300, fairshare=classic")
    p.add_argument("--accounts", default=None, metavar="FILE|flat|synthetic[:K]",
                   help="account tree, as whatif's: a YAML/CSV/sacctmgr file, flat (default: every user one share), "
                        "or synthetic[:K] with --seed (the tree a whatif run with the same trace, --head and --seed "
                        "used; its file is also in the whatif folder's inputs/)")
    p.add_argument("--seed", type=int, default=0, help="seed of a synthetic account tree (default 0, as whatif's)")
    p.add_argument("--processors", type=positive_int, default=None, metavar="N",
                   help="machine size (default: the trace's MaxProcs)")
    p.add_argument("--head", type=positive_int, default=None, metavar="N",
                   help="keep the first N jobs by submit time")
    p.add_argument("--ahead", type=int, default=3, metavar="K", help="jobs ahead shown per decision (default 3)")
    p.add_argument("--lines", type=positive_int, default=40, metavar="N",
                   help="runs of decisions shown at most (first and last kept; default 40)")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..errors import InvalidInstanceError
    from ..experiments.explain import explain
    from ..experiments.inputs import build_workload
    from .conventions import emit_json, say
    import numpy as np

    from ..experiments.whatif import _UNITS, _check_users_in_tree, _resolve_tree, parse_duration
    from .whatif import _gen_args, accounts_arg

    if (args.trace is None) == (args.generator is None):
        raise InvalidInstanceError("give a TRACE file or --generator (one of them)", argument="trace", value=args.trace)
    if args.trace:
        reader = "parquet" if args.trace.endswith(".parquet") else "swf"
        spec: dict[str, Any] = {"reader": reader, "path": str(Path(args.trace).resolve())}
        if not Path(args.trace).exists():
            raise InvalidInstanceError(f"TRACE {args.trace!r}: no such file", argument="trace", value=args.trace)
    else:
        spec = {"generator": args.generator, **_gen_args(args.gen)}
    if args.head:
        spec["head"] = args.head
    wl = build_workload(spec)
    options = _gen_args(args.option)
    for key in DURATION_OPTIONS:        # the epilog's half_life=7d: a duration with a unit, as whatif's
        value = options.get(key)
        if isinstance(value, str) and value.strip()[-1:].lower() in _UNITS:
            options[key] = parse_duration(value, argument=key)
    if "accounts" in options:
        raise InvalidInstanceError("give the account tree with --accounts, not --option accounts=",
                                   argument="--option", value="accounts")
    accounts = accounts_arg(args.accounts)
    if accounts is not None:
        users = [int(u) for u in np.unique(wl.user)]
        tree, text = _resolve_tree(accounts, users, args.seed)
        _check_users_in_tree(tree, users)
        options["accounts"] = tree
        say(args, f"accounts: {text}")
    e = explain(wl, args.row, job_id=args.job, capacity=args.processors, policy=args.policy, **options)
    say(args, e.text(max_ahead=args.ahead, max_lines=args.lines))
    emit_json(args, e.to_dict())
    return 0
