"""``fairalloc simulate``: run scheduling policies on a trace or a generated workload.

Two kinds of workload, told apart by whether the workload has per-task resource vectors:

* **rigid parallel jobs** (Parallel Workloads Archive SWF traces, the Lublin-Feitelson model) on
  identical processors, with the job-queue policies FCFS, EASY, SJF, WFP3, UNICEF, F1, F2, BUC;
* **tasks with resource vectors** (Google 2011, Alibaba traces; ``google_like``, ``alibaba_like``)
  on a pool sized as a fraction of the workload's mean use R (``--pool``, SDRF's setting) or on the
  TV-TSF paper's 100 servers (``--cluster tvtsf-table3``), with the task schedulers DRF, SDRF
  (Algorithm 1, ``--delta``, ``--priority``, ``--blocking``, ``--structure``, ``--ties``), TSF, CDRF and TV-TSF.

Examples::

    fairalloc simulate --workload lublin:days=30,nodes=256 --policy fcfs,easy,wfp3,unicef,f1,f2,buc \\
        --processors 256 --out out/sim
    fairalloc simulate --workload swf:../shared/data/swf/KTH-SP2-1996-2.1-cln.swf.gz --policy fcfs,buc \\
        --enforce-walltime --out out/kth
    fairalloc simulate --workload google_like:users=627,tasks=100000 --policy drf,sdrf --pool 0.5 \\
        --delta 0.999999 --out out/sdrf
    fairalloc simulate --workload alibaba_like:jobs=200,large=0.5 --policy tvtsf,tsf,cdrf \\
        --cluster tvtsf-table3 --slot 1 --out out/tvtsf
"""

from __future__ import annotations

import argparse
import logging
import zlib
from typing import Any

import pandas as pd

from ..scheduling import STRUCTURES, TIES
from ..errors import FairallocError, InvalidInstanceError
from .conventions import (add_format_option, add_output_options, check_output_folder, emit_json, nonnegative_float, open_unit_float, output_folder, positive_float, positive_int,
                      say, show_progress)

__all__ = ["register", "run", "parse_workload"]

logger = logging.getLogger(__name__)

_LUBLIN_KEYS = {"days": float, "n": int, "n_jobs": int, "nodes": int, "typed": int, "seed": int,
                "n_users": int, "users": int, "estimate": str, "umed": float}
_GOOGLE_LIKE_KEYS = {"users": int, "tasks": int, "horizon": float, "seed": int}
_ALIBABA_LIKE_KEYS = {"jobs": int, "large": str, "users": int, "slots": int, "seed": int}
#: Task policies (multi-resource schedulers) accepted for task workloads.
#: The container clusters' fair sharing (:mod:`fairalloc.sim.policies.container`; kept in step by a test).
CONTAINER_POLICY_NAMES = ("kueue", "yarn", "mesos", "volcano", "volcano-drf", "volcano-hdrf")
TASK_POLICY_NAMES = ("drf", "sdrf", "tsf", "cdrf", "tvtsf", "tsf-static", "cdrf-static", *CONTAINER_POLICY_NAMES)
CLUSTERS = ("tvtsf-table3",)


def _kv(text: str, spec: str) -> dict[str, str]:
    out = {}
    for part in filter(None, text.split(",")):
        if "=" not in part:
            raise InvalidInstanceError(f"--workload {spec!r}: expected key=value, got {part!r}",
                                       argument="workload", value=spec)
        k, v = part.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def _typed(spec: str, kv: dict[str, str], keys: dict[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(kv) - set(keys))
    if unknown:
        raise InvalidInstanceError(f"--workload {spec!r}: unknown key(s) {unknown}; known: {sorted(keys)}",
                                   argument="workload", value=spec)
    try:
        return {k: keys[k](x) for k, x in kv.items()}
    except ValueError as exc:
        raise InvalidInstanceError(f"--workload {spec!r}: {exc}", argument="workload", value=spec) from None


#: Workload kinds read from a file, and what the file must be.
_FILE_KINDS = {"swf": "a Standard Workload Format trace (text, or gzip with .gz)",
               "parquet": "a fairalloc workload Parquet file (Workload.to_parquet)",
               "google2011": "Google 2011 task events", "alibaba": "an Alibaba 2017 batch trace",
               "alibaba2017": "an Alibaba 2017 batch trace", "alibaba2018": "an Alibaba 2018 batch trace"}


def _flag(text: str) -> bool:
    low = text.strip().lower()
    if low in ("1", "true", "yes", "on"):
        return True
    if low in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{text!r} is not a yes/no value (1, 0, true, false)")


def _seconds_or_word(text: str) -> Any:
    return text if text in ("drop", "resample") else float(text)


def _statuses(text: str) -> list[int]:
    return [int(s) for s in text.split("+")]


#: Options of the file readers in ``--workload KIND:PATH,key=value,...``: key -> (converter, where it goes,
#: help). "read": a keyword of the reader; "prepare": of :func:`fairalloc.workloads.prepare_tasks`.
_PREPARE_KEYS = {"unknown_run_time": (_seconds_or_word, "prepare", "drop | resample | seconds"),
                 "merge": (_flag, "prepare", "merge identical rows of a job (0/1)"),
                 "seed": (int, "prepare", "seed of unknown_run_time=resample (and of users=K)")}
_READER_KEYS: dict[str, dict[str, tuple[Any, str, str]]] = {
    "swf": {"status": (_statuses, "read", "keep these statuses, e.g. 1 or 1+0"),
            "errors": (str, "read", "raise | skip malformed lines"),
            "drop_missing": (_flag, "read", "drop jobs without run time or processors (0/1)")},
    "parquet": {},
    "google2011": {"layout": (str, "read", "auto | official | subset"),
                   "attempts": (str, "read", "last | all"),
                   "duration": (str, "read", "unknown | end (the subset has no run times: end - 600 s)"),
                   **_PREPARE_KEYS},
    "alibaba": {"users": (lambda t: t if t == "job" else int(t), "read", "job | K (jobs mapped to K users)"),
                **_PREPARE_KEYS},
}
_READER_KEYS["alibaba2017"] = _READER_KEYS["alibaba2018"] = _READER_KEYS["alibaba"]


def _split_path(kind: str, rest: str, spec: str) -> tuple[str, dict[str, str]]:
    """``PATH[,key=value...]``: the path (which may hold commas or '=') and the options after it."""
    parts = rest.split(",")
    path = [parts[0]]
    opts: dict[str, str] = {}
    for part in parts[1:]:
        key, eq, value = part.partition("=")
        if eq and key.strip().isidentifier():
            if key.strip() in opts:
                raise InvalidInstanceError(f"--workload {spec!r}: option {key.strip()!r} given twice",
                                           argument="workload", value=spec)
            opts[key.strip()] = value.strip()
        elif opts:
            raise InvalidInstanceError(f"--workload {spec!r}: expected key=value after the path, got {part!r}",
                                       argument="workload", value=spec)
        else:
            path.append(part)
    return ",".join(path), opts


def _read_file(kind: str, path: str, opts: dict[str, str], spec: str):
    from ..workloads import Workload, prepare_tasks, read_alibaba, read_google2011, read_swf
    from ..workloads.units import parse_conversion

    known = _READER_KEYS[kind]
    read: dict[str, Any] = {}
    prep: dict[str, Any] = {}
    units: dict[str, str] = {}
    for key, text in opts.items():
        if key not in known:
            units[key] = text                   # a resource's unit conversion, checked once the columns are known
            continue
        conv, where, _ = known[key]
        try:
            value = conv(text)
        except ValueError as exc:
            raise InvalidInstanceError(f"--workload {spec!r}: {key}={text!r}: {exc}", argument="workload",
                                       value=spec) from None
        (read if where == "read" else prep)[key] = value
    seed = prep.pop("seed", None)
    if kind == "swf":
        wl = read_swf(path, **read)
    elif kind == "parquet":
        wl = Workload.read_parquet(path)
    else:
        if kind == "google2011":
            wl = read_google2011(path, **read)
        else:
            wl = read_alibaba(path, version=2018 if kind == "alibaba2018" else 2017, rng=seed, **read)
        if prep.get("unknown_run_time") == "resample":
            prep["rng"] = seed
        wl = prepare_tasks(wl, **prep)
    bad = [k for k in units if k not in wl.resource_names]
    if bad:
        options = ", ".join(f"{k} ({h})" for k, (_, _, h) in known.items()) or "none"
        res = (f"; or a resource's unit conversion {'/'.join(wl.resource_names)}=<factor><unit> (e.g. "
               f"{wl.resource_names[-1]}=384GB)") if wl.resource_names else ""
        raise InvalidInstanceError(f"--workload {spec!r}: unknown option {bad[0]!r}; the options of {kind}: "
                                   f"{options}{res}", argument="workload", value=spec)
    if units:
        wl = wl.convert_units({k: parse_conversion(v, k) for k, v in units.items()})
    return wl


def parse_workload(spec: str, *, seed: int = 0):
    """Build a Workload from a spec string.

    ``swf:PATH``, ``parquet:PATH``, ``lublin:key=value,...`` (rigid jobs); ``google2011:PATH``,
    ``alibaba:PATH`` (2017 layout), ``alibaba2018:PATH``, ``google_like:key=value,...``,
    ``alibaba_like:key=value,...`` (tasks; traces are cleaned with
    :func:`fairalloc.workloads.prepare_tasks`, which drops tasks with unknown run time).

    A file's path may be followed by the reader's options, ``KIND:PATH,key=value,...``: ``swf``:
    ``status`` (e.g. ``1`` or ``1+0``), ``errors`` (``raise``/``skip``), ``drop_missing``;
    ``google2011``: ``layout``, ``attempts``, ``duration`` (``end`` for the subset, which has no run
    times); ``alibaba*``: ``users`` (``job`` or K); task traces also ``unknown_run_time`` (``drop``,
    ``resample``, seconds), ``merge``, ``seed``; and a resource's unit conversion
    ``<resource>=<factor><unit>`` (``memory=384GB``: one unit of the column is 384 GB), needed where
    the trace's units differ from the cluster's (:mod:`fairalloc.workloads.units`).

    Lublin keys: ``days`` or ``n`` (jobs), ``nodes``, ``typed`` (0/1), ``seed``, ``users``,
    ``estimate`` (``exact`` or a factor >= 1), ``umed``. ``google_like`` keys: ``users``, ``tasks``,
    ``horizon`` (s), ``seed``. ``alibaba_like`` keys: ``jobs``, ``large`` (fraction of large jobs, or
    ``normal``), ``users``, ``slots``, ``seed``.

    >>> len(parse_workload("lublin:n=50,nodes=64,seed=1"))
    50
    >>> parse_workload("google_like:users=5,tasks=40,seed=2").n_tasks
    40
    """
    from ..workloads import alibaba_like, google_like, lublin

    kind, _, rest = spec.partition(":")
    kind = kind.lower().replace("-", "_")
    if kind in _FILE_KINDS:
        if not rest:
            raise InvalidInstanceError(f"--workload {spec!r}: give a path after '{kind}:'", argument="workload",
                                       value=spec)
        rest, opts = _split_path(kind, rest, spec)
        try:
            return _read_file(kind, rest, opts, spec)
        except InvalidInstanceError as exc:
            if exc.argument != "path":                   # the reader's own message names file and line
                raise
            raise InvalidInstanceError(f"--workload {spec!r}: cannot read it as {_FILE_KINDS[kind]}: {exc}",
                                       argument="workload", value=spec) from None
        except FairallocError:
            raise
        except (OSError, EOFError, ValueError, zlib.error) as exc:
            if isinstance(exc, FileNotFoundError):
                raise InvalidInstanceError(f"--workload {spec!r}: no such file {rest}", argument="workload",
                                           value=spec) from None
            if isinstance(exc, IsADirectoryError):
                raise InvalidInstanceError(f"--workload {spec!r}: {rest} is a directory; give {_FILE_KINDS[kind]} "
                                           "file itself", argument="workload", value=spec) from None
            raise InvalidInstanceError(f"--workload {spec!r}: cannot read {rest} as {_FILE_KINDS[kind]}: "
                                       f"{type(exc).__name__}: {' '.join(str(exc).split())}", argument="workload",
                                       value=spec) from None
    if kind == "google_like":
        v = _typed(spec, _kv(rest, spec), _GOOGLE_LIKE_KEYS)
        return google_like(v.get("users", 627), v.get("tasks", 100_000),
                           horizon=v.get("horizon", 86400.0), rng=v.get("seed", seed))
    if kind == "alibaba_like":
        v = _typed(spec, _kv(rest, spec), _ALIBABA_LIKE_KEYS)
        large = v.get("large", "0.25")
        large = None if large.lower() == "normal" else float(large)
        return alibaba_like(v.get("jobs", 200), large_fraction=large, n_users=v.get("users"),
                            slots=v.get("slots", 600), rng=v.get("seed", seed))
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
    raise InvalidInstanceError(f"--workload {spec!r}: expected swf:PATH, parquet:PATH, lublin:..., "
                               "google2011:PATH, alibaba:PATH, alibaba2018:PATH, google_like:... or "
                               "alibaba_like:...", argument="workload", value=spec)


def register(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "simulate",
        description="Simulate job-queue policies (FCFS, EASY, SJF, WFP3, UNICEF, F1, F2, BUC; any "
                    "with +easy) on rigid parallel jobs, or the task schedulers (DRF, SDRF, TSF, "
                    "CDRF, TV-TSF) on tasks with resource vectors; print a summary table and write "
                    "per-job Parquet and figures to --out.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="workload specs (rigid jobs): swf:PATH[,status=1,errors=skip,drop_missing=1] | parquet:PATH | "
               "lublin:days=30,nodes=256[,typed=1,seed=0,users=K,estimate=exact|F]\n"
               "workload specs (tasks): google2011:PATH[,duration=end,layout=...,attempts=last|all] | "
               "alibaba:PATH[,users=job|K] | alibaba2018:PATH | "
               "google_like:users=627,tasks=100000[,horizon=86400,seed=0] | "
               "alibaba_like:jobs=200,large=0.25|normal[,users=K,slots=600,seed=0]\n"
               "task traces also take unknown_run_time=drop|resample|SECONDS, merge=1, seed=N, and unit "
               "conversions RESOURCE=FACTORUNIT (e.g. alibaba:batch_task.csv,memory=384GB on --cluster "
               "tvtsf-table3, whose memory is in GB)")
    p.add_argument("--workload", default="lublin:days=30,nodes=256",
                   help="workload spec (default: %(default)s)")
    p.add_argument("--policy", default=None,
                   help="comma-separated policies (default: fcfs,easy,wfp3,unicef,f1,f2 for rigid "
                        "jobs; drf,sdrf for tasks); task policies: " + ", ".join(TASK_POLICY_NAMES) + "; "
                        "learned:FILE[+easy] orders rigid jobs by a learned priority function (a JSON file "
                        "of `fairalloc learn fit`); --list-policies lists every name")
    p.add_argument("--list-policies", action="store_true",
                   help="print every policy name, for task workloads and for rigid jobs, and exit")
    p.add_argument("--processors", type=positive_int, default=None,
                   help="processors (default: the workload's MaxProcs / MaxNodes)")
    add_output_options(p, what="output folder (Parquet per policy, the summary table, figures), written whole at "
                                "the end")
    add_format_option(p)
    p.add_argument("--enforce-walltime", action="store_true",
                   help="kill jobs at their requested time (default: run to completion)")
    p.add_argument("--k-p", type=positive_float, default=None, help="BUC's K_p (default: 10800)")
    p.add_argument("--seed", type=int, default=0, help="seed for generated workloads")
    p.add_argument("--head", type=positive_int, default=None, metavar="N", help="use only the first N jobs (N >= 1)")
    t = p.add_argument_group("task workloads")
    t.add_argument("--pool", type=positive_float, default=None, metavar="F",
                   help="one pool of every resource sized at F times the workload's mean use R "
                        "(SDRF paper: 0.5 .. 1.0; default 0.5 unless --cluster)")
    t.add_argument("--cluster", choices=CLUSTERS, default=None,
                   help="servers instead of a pool (tvtsf-table3: the TV-TSF paper's 100 servers)")
    t.add_argument("--delta", type=open_unit_float, default=None,
                   help="SDRF discount per second, in (0, 1) (default 1-1e-6, the paper's best)")
    t.add_argument("--priority", choices=("level", "printed"), default=None,
                   help="SDRF priority reading (default: level, consistent with Eq. 5)")
    t.add_argument("--blocking", choices=("stop", "skip"), default=None,
                   help="stop at the first task that does not fit (Algorithm 1 as printed) or skip "
                        "to the next user (default: stop for drf/sdrf, skip for tsf/cdrf)")
    t.add_argument("--structure", choices=STRUCTURES, default=None,
                   help="SDRF priority structure (default: live_tree, the kinetic live tree)")
    t.add_argument("--ties", choices=TIES, default=None,
                   help="order among equal priorities: wait (default: the user whose oldest pending "
                        "task has waited longest, then the lower index) or index (index order only)")
    t.add_argument("--slot", type=positive_float, default=None,
                   help="slot length for tvtsf (default 1) and slotted tsf/cdrf baselines")
    t.add_argument("--accounts", default=None, metavar="FILE",
                   help="queues of the container policies (" + ", ".join(CONTAINER_POLICY_NAMES) + "): an "
                        "account tree (YAML/CSV) whose users are the workload's user ids (default: one queue "
                        "per user)")
    t.add_argument("--half-life", type=positive_float, default=None, metavar="SECONDS",
                   help="kueue: Admission Fair Sharing with this usage half-life (usageHalfLifeTime; "
                        "sampled every 300 s)")
    t.add_argument("--preemption", default=None, metavar="STRATEGIES",
                   help="kueue: fair-sharing preemption, 'on' (Kueue's default strategies) or a comma list of "
                        "LessThanOrEqualToFinalShare, LessThanInitialShare; on a pool; adds preemptions, "
                        "preemption loops and wasted work to the table")
    t.add_argument("--min-run-time", type=nonnegative_float, default=None, metavar="SECONDS",
                   help="with --preemption: seconds a task runs before it may be evicted (default 0)")
    t.add_argument("--victim", choices=("requeue", "kill"), default=None,
                   help="with --preemption: an evicted task goes back to the front of its user's queue "
                        "(requeue, default) or is dropped (kill)")
    p.set_defaults(func=run)
    return p


def _is_task_workload(wl) -> bool:
    """Tasks with resource vectors (Google, Alibaba) rather than rigid jobs on processors (SWF, Lublin)."""
    return len(wl.resource_names) > 0


def _task_options(name: str, args: argparse.Namespace) -> dict[str, Any]:
    opts: dict[str, Any] = {}
    if name == "sdrf":
        opts.update(delta=1 - 1e-6 if args.delta is None else args.delta, priority=args.priority or "level",
                    structure=args.structure or "live_tree")
    if args.ties is not None and name in ("drf", "sdrf", "tsf", "cdrf", "tvtsf", *CONTAINER_POLICY_NAMES):
        opts["ties"] = args.ties
    if args.blocking and name in ("drf", "sdrf", "tsf", "cdrf", *CONTAINER_POLICY_NAMES):
        opts["blocking"] = args.blocking
    if args.accounts is not None and name in CONTAINER_POLICY_NAMES:
        opts["accounts"] = args.accounts
    if args.half_life is not None and name == "kueue":
        opts["half_life"] = args.half_life
    if args.preemption is not None and name == "kueue":
        pre: dict[str, Any] = {}
        if args.preemption.strip().lower() != "on":
            pre["strategies"] = [x.strip() for x in args.preemption.split(",") if x.strip()]
        if args.min_run_time is not None:
            pre["min_run_time"] = args.min_run_time
        if args.victim is not None:
            pre["victim"] = args.victim
        opts["preemption"] = pre
    if args.slot is not None and name in ("tvtsf", "tsf", "cdrf"):
        opts["slot"] = args.slot
    if args.cluster == "tvtsf-table3" and name != "tvtsf" and "server" not in opts:
        opts["server"] = "best_fit"
    return opts


def _run_tasks(wl, args: argparse.Namespace, policies: list[str]) -> int:
    from tqdm.auto import tqdm

    from ..sim import ResourcePool, simulate

    bad = [p for p in policies if p.lower() not in TASK_POLICY_NAMES]
    if bad:
        raise InvalidInstanceError(f"--policy {bad[0]!r} does not schedule tasks with resource vectors; "
                                   f"task policies: {', '.join(TASK_POLICY_NAMES)}",
                                   argument="policy", value=bad[0])
    _options_apply(args, [p.lower() for p in policies], tasks=True)
    if args.cluster:
        from .. import clusters

        capacity = clusters.tvtsf_table3()
        where = f"the {capacity.n_servers} servers of TV-TSF Table 3"
    else:
        frac = 0.5 if args.pool is None else args.pool
        capacity = ResourcePool.from_workload(wl, frac)
        where = f"a pool at {frac:g} x R"
    show = show_progress(args)
    results = {}
    for name in tqdm(policies, desc="policies", disable=not show or len(policies) < 2):
        r = simulate(wl, capacity, policy=name.lower(), progress=show, **_task_options(name.lower(), args))
        results[_unique(results, r.policy, name)] = r       # the result's own name, in the table, folders, legends
    table = pd.DataFrame([r.task_summary() for r in results.values()]).set_index("policy")
    table.insert(2, "rejected_tasks", [int(wl.tasks[r.rejected["row"].to_numpy()].sum())
                                       for r in results.values()])
    if any(r.preemptions is not None for r in results.values()):
        table["preemptions"] = [r.stats.get("preemptions", 0) for r in results.values()]
        table["preemption_loops"] = [r.stats.get("preemption_loops", 0) for r in results.values()]
        for k, name in enumerate(wl.resource_names):
            table[f"wasted:{name}"] = [r.stats.get("wasted_work", {}).get(name, 0.0) for r in results.values()]
    say(args, f"workload: {args.workload} ({len(wl)} jobs, {wl.n_tasks} tasks, {wl.n_users} users, "
              f"resources {list(wl.resource_names)}) on {where}")
    if table["rejected_tasks"].any():
        say(args, "rejected_tasks: tasks that fit on no server (or exceed the pool) are rejected before the "
                  "run and counted; see each result's .rejected table for the reasons")
    if table["completed_by_horizon"].isna().any():
        say(args, "completed_by_horizon: undefined (nan): every task was submitted at one instant (the Google 2011 "
                  "subset has no submission times), so the last submission is no trace end to count completions at")
    with pd.option_context("display.width", 200, "display.float_format", "{:,.3f}".format):
        say(args, table.to_string())
    emit_json(args, {"workload": args.workload, "capacity": where, "summary": table.reset_index().to_dict("records")})
    if args.out:
        from ..plots import save
        from ..plots.tasks import completed_ratio, resource_utilization, time_cdfs
        from .conventions import write_table

        fmt = args.format
        with output_folder(args.out, args, "simulate") as out:
            for name, r in results.items():
                r.to_parquet(out / name)
                save(resource_utilization(r), out / f"utilization_{name}", fmt.figures)
            write_table(table, out / "summary", fmt.tables, index=True)
            save(time_cdfs(results), out / "time_cdfs", fmt.figures)
            written = ["summary", "time_cdfs", "utilization_<policy>"]
            if "sdrf" in results and "drf" in results:
                save(completed_ratio(results["sdrf"], results["drf"]), out / "completed_ratio", fmt.figures)
                written.append("completed_ratio")
        say(args, f"wrote {args.out}/" + ", ".join(written) + f" ({', '.join(fmt.tables + fmt.figures)}) and "
                  "per-policy Parquet folders")
    return 0


def _unique(results: dict, name: str, asked: str) -> str:
    if name in results:
        raise InvalidInstanceError(f"--policy {asked!r} is {name!r}, which is already in the list", argument="policy",
                                   value=asked)
    return name


def _options_apply(args: argparse.Namespace, policies: list[str], *, tasks: bool) -> None:
    """Refuse options that none of the chosen policies reads (they would be silently ignored)."""
    rules = [("--delta", args.delta is not None, {"sdrf"}), ("--priority", args.priority is not None, {"sdrf"}),
             ("--structure", args.structure is not None, {"sdrf"}),
             ("--ties", args.ties is not None, {"drf", "sdrf", "tsf", "cdrf", "tvtsf", *CONTAINER_POLICY_NAMES}),
             ("--blocking", args.blocking is not None, {"drf", "sdrf", "tsf", "cdrf", *CONTAINER_POLICY_NAMES}),
             ("--slot", args.slot is not None, {"tvtsf", "tsf", "cdrf"}),
             ("--accounts", args.accounts is not None, set(CONTAINER_POLICY_NAMES)),
             ("--half-life", args.half_life is not None, {"kueue"}),
             ("--preemption", args.preemption is not None, {"kueue"})]
    for option, value in (("--min-run-time", args.min_run_time), ("--victim", args.victim)):
        if value is not None and args.preemption is None:
            raise InvalidInstanceError(f"{option} applies with --preemption only", argument=option, value=value)
    if tasks:
        rules += [("--enforce-walltime", args.enforce_walltime, set()), ("--k-p", args.k_p is not None, set()),
                  ("--processors", args.processors is not None, set())]
    else:
        rules += [("--k-p", args.k_p is not None, {"buc"})]
    bases = {p.split("+")[0] for p in policies}
    for option, given, readers in rules:
        if given and not bases & readers:
            what = f"policies {', '.join(sorted(readers))}" if readers else (
                "rigid jobs (this workload has tasks)" if tasks else "task workloads")
            raise InvalidInstanceError(f"{option} applies to {what}; the policies here are {', '.join(policies)}",
                                       argument=option)


def list_policies() -> str:
    """The policy names :func:`fairalloc.sim.policy_names` knows, split into task and rigid-job policies."""
    from ..sim.policies import policy_names

    names = policy_names()
    tasks = [n for n in TASK_POLICY_NAMES if n in names] + [n for n in TASK_POLICY_NAMES if n not in names]
    rigid = [n for n in names if n not in TASK_POLICY_NAMES]
    return ("task policies (workloads with resource vectors): " + ", ".join(tasks) + "\n"
            "rigid-job policies (SWF, Lublin; any queue policy also as NAME+easy): " + ", ".join(rigid)
            + ", learned:FILE")


def run(args: argparse.Namespace) -> int:
    if args.list_policies:
        print(list_policies())
        return 0
    if args.policy is not None and not [s for s in args.policy.split(",") if s.strip()]:
        raise InvalidInstanceError("--policy is empty; name one or more policies (or leave --policy out for the "
                                   "defaults)", argument="policy", value=args.policy)
    if args.out:
        check_output_folder(args.out, force=args.force)
    wl = parse_workload(args.workload, seed=args.seed)
    if args.head:
        wl = wl.sorted().head(args.head)
    if len(wl) == 0:
        raise InvalidInstanceError(f"--workload {args.workload}: no jobs to simulate"
                                   + (f" in the first {args.head}" if args.head else ""), argument="workload",
                                   value=args.workload)
    tasks = _is_task_workload(wl)
    default = "drf,sdrf" if tasks else "fcfs,easy,wfp3,unicef,f1,f2"
    policies = [s.strip() for s in (args.policy or default).split(",") if s.strip()]
    if tasks:
        return _run_tasks(wl, args, policies)
    return _run_jobs(wl, args, policies)


def _run_jobs(wl, args: argparse.Namespace, policies: list[str]) -> int:
    from tqdm.auto import tqdm

    from ..sim import simulate

    bad = [p for p in policies if p.lower() in TASK_POLICY_NAMES]
    if bad:
        raise InvalidInstanceError(f"--policy {bad[0]!r} schedules tasks with resource vectors; this "
                                   "workload has rigid jobs (use a queue policy: fcfs, easy, sjf, wfp3, "
                                   "unicef, f1, f2, buc)", argument="policy", value=bad[0])
    _options_apply(args, [p.lower() for p in policies], tasks=False)
    task_only = [o for o, v in (("--pool", args.pool), ("--cluster", args.cluster), ("--delta", args.delta),
                                ("--priority", args.priority), ("--structure", args.structure), ("--ties", args.ties),
                                ("--blocking", args.blocking),
                                ("--slot", args.slot), ("--accounts", args.accounts),
                                ("--half-life", args.half_life), ("--preemption", args.preemption)) if v is not None]
    if task_only:
        what = "--pool and --cluster apply" if task_only[0] in ("--pool", "--cluster") else f"{task_only[0]} applies"
        raise InvalidInstanceError(f"{what} to task workloads; this workload has rigid jobs on --processors",
                                   argument=task_only[0])
    from ..sim.policies import make_policy, make_queue_policy

    for name in policies:                               # unknown names are refused before any simulation
        if name.lower().startswith("learned:"):         # a learned function's file (its path keeps its case)
            make_policy(name)
        else:
            make_queue_policy(name.lower())
    capacity = args.processors
    results = {}
    show = show_progress(args)
    for name in tqdm(policies, desc="policies", disable=not show or len(policies) < 2):
        opts = {"k_p": 10800.0 if args.k_p is None else args.k_p} if name.split("+")[0].lower() == "buc" else {}
        r = simulate(wl, capacity, policy=name, enforce_walltime=args.enforce_walltime, progress=show, **opts)
        results[_unique(results, r.policy, name)] = r
    table = pd.DataFrame([r.summary() for r in results.values()]).set_index("policy")
    first = next(iter(results.values()))
    say(args, f"workload: {args.workload} ({len(wl)} jobs, {wl.n_users} users), "
              f"{int(first.capacity[0])} processors; jobs longer than their request "
              f"{'killed at walltime' if args.enforce_walltime else 'run to completion'}")
    cols = ["jobs", "finished", "rejected", "killed", "mean_wait", "median_wait", "avebsld",
            "utilization", "makespan"]
    with pd.option_context("display.width", 160, "display.float_format", "{:,.2f}".format):
        say(args, table[cols].to_string())
    emit_json(args, {"workload": args.workload, "processors": int(first.capacity[0]),
                     "summary": table.reset_index().to_dict("records")})
    if args.out:
        from ..plots.sim import avebsld_bars, wait_cdf

        from ..plots import save
        from .conventions import write_table

        fmt = args.format
        with output_folder(args.out, args, "simulate") as out:
            for name, r in results.items():
                r.to_parquet(out / name)
            write_table(table, out / "summary", fmt.tables, index=True)
            save(wait_cdf(results), out / "wait_cdf", fmt.figures)
            save(avebsld_bars(results), out / "avebsld", fmt.figures)
        say(args, f"wrote {args.out}/summary, wait_cdf, avebsld ({', '.join(fmt.tables + fmt.figures)}) and "
                  f"per-policy Parquet folders ({', '.join(results)})")
    return 0
