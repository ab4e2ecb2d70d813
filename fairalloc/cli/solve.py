"""``fairalloc solve``: solve one instance with one or several mechanisms and print them side by side.

Examples
--------
::

    fairalloc solve --example sdrf-fig2                       # max-min, DRF and SDRF side by side
    fairalloc solve examples/drf_paper.yaml --mechanism drf --method lp --solver highs
    fairalloc solve examples/three_users.csv --commitments examples/three_users_commitments.csv --json out.json
    fairalloc solve --list-examples
    fairalloc solve examples/tvtsf_two_users.yaml --mechanism tvtsf --method milp     # TV-TSF Eq. 10
    fairalloc solve examples/tasks_placement.yaml --mechanism drf,tsf --solver cpsat   # integer tasks
"""

from __future__ import annotations

import argparse
from typing import Any, Callable

import numpy as np

from .. import mechanisms
from ..validation import require_choice
from ..errors import InvalidInstanceError
from ..examples import EXAMPLES, get_example
from ..io import InstanceSpec, load_commitments, load_instance
from ..result import AllocationResult
from .conventions import (add_format_option, add_output_options, emit_json, nonnegative_float, nonnegative_int,
                          positive_float, say, show_progress)

__all__ = ["register", "run", "POOLED_MECHANISMS", "solve_pooled_spec", "format_pooled_table"]

# Exit status: 0 when every mechanism returned a solution, 3 when one did not (fairalloc --help).


def _max_min(spec: InstanceSpec, **kw: Any) -> AllocationResult:
    return mechanisms.max_min(spec.instance, **kw)


def _drf(spec: InstanceSpec, **kw: Any) -> AllocationResult:
    return mechanisms.drf(spec.instance, **kw)


def _sdrf(spec: InstanceSpec, **kw: Any) -> AllocationResult:
    return mechanisms.sdrf(spec.instance, spec.commitments, **kw)


#: Mechanisms on pooled instances, in the order the table shows them. max-min needs one resource.
POOLED_MECHANISMS: dict[str, Callable[..., AllocationResult]] = {
    "max-min": _max_min,
    "drf": _drf,
    "sdrf": _sdrf,
}


def register(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "solve",
        description="Solve one instance exactly and print the allocations side by side. The instance "
                    "comes from a JSON, YAML or CSV file (schema: see `python -c \"import fairalloc.io; "
                    "help(fairalloc.io)\"` and the files under examples/) or from --example NAME.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="built-in examples: " + ", ".join(EXAMPLES))
    p.add_argument("file", nargs="?", help="instance file (.json, .yaml/.yml, .csv)")
    p.add_argument("--example", metavar="NAME", help="use a built-in example instead of a file")
    p.add_argument("--list-examples", action="store_true", help="list the built-in examples and exit")
    p.add_argument("--mechanism", default="all",
                   help="comma-separated mechanisms: max-min, drf, sdrf (pooled); drf, sdrf, tsf, cdrf (kind: "
                        "tasks); tvtsf (kind: time-varying); or all (default: all that apply)")
    p.add_argument("--method", default=None,
                   help="pooled: waterfill (exact sweep, default) or lp (iterated LPs); tasks: milp (default) or "
                        "lp (divisible TSF); time-varying: milp (default) or milp-online")
    p.add_argument("--objective", default="leximin", choices=["leximin", "maxmin"],
                   help="MILPs (tasks, time-varying): leximin (default) or the single max-min")
    p.add_argument("--time-limit", type=positive_float, default=None, metavar="SEC",
                   help="MILPs: seconds for the whole solve; an unproven result is reported as feasible")
    p.add_argument("--mip-gap", type=nonnegative_float, default=None,
                   help="MILPs: relative gap (default 0: prove optimality)")
    add_output_options(p, what="tasks / time-varying: a folder for the figures, written whole at the end")
    add_format_option(p, tables=False)
    p.add_argument("--solver", default=None,
                   help="backend: LPs (pooled and tasks --method lp) are solved by highs; tasks and time-varying "
                        "MILPs by highs, cpsat or cbc; see `fairalloc solve --list-solvers`")
    p.add_argument("--list-solvers", action="store_true", help="list installed solver backends and exit")
    p.add_argument("--commitments", metavar="FILE", help="SDRF commitments (fractions of capacity) from a file")
    p.add_argument("--precision", type=nonnegative_int, default=4, help="digits shown in the table (default 4)")
    p.add_argument("--rows", type=nonnegative_int, default=50, metavar="N",
                   help="users shown in the table (default 50; 0: all); --json has every user")
    p.add_argument("--summary", action="store_true",
                   help="no per-user table: only each mechanism's status and the spread of its shares")
    p.set_defaults(func=run)
    return p


def _selected(arg: str, spec: InstanceSpec) -> list[str]:
    if arg.strip().lower() == "all":
        names = list(POOLED_MECHANISMS)
        return names
    names = [require_choice("mechanism", m.strip(), list(POOLED_MECHANISMS)) for m in arg.split(",") if m.strip()]
    if not names:
        raise InvalidInstanceError("--mechanism is empty", argument="mechanism", value=arg)
    return names


def solve_pooled_spec(spec: InstanceSpec, names: list[str], *, method: str = "waterfill",
                      solver: str | None = None, progress: bool = False) -> dict[str, AllocationResult | str]:
    """Run each named pooled mechanism; a mechanism that does not apply maps to the reason (a str).

    ``progress``: a bar over the mechanisms with the elapsed time (it advances when a mechanism ends,
    not within one solve)."""
    from tqdm.auto import tqdm

    out: dict[str, AllocationResult | str] = {}
    kw: dict[str, Any] = {"method": method}
    if solver is not None:
        kw["solver"] = solver
    for name in tqdm(names, desc=f"solving ({spec.instance.n_agents} users)", unit="mechanism", disable=not progress):
        if name == "max-min" and spec.instance.n_resources != 1:
            out[name] = f"n/a: max-min needs one resource (this instance has {spec.instance.n_resources})"
            continue
        out[name] = POOLED_MECHANISMS[name](spec, **kw)
    return out


def format_pooled_table(spec: InstanceSpec, results: dict[str, AllocationResult | str],
                        precision: int = 4, *, rows: int = 0, summary: bool = False) -> str:
    """Users as rows; demand, commitment, then each mechanism's allocation (and dominant share)."""
    import pandas as pd

    inst = spec.instance
    res_names = list(inst.resource_names)
    one = inst.n_resources == 1
    cols: dict[str, Any] = {}
    for r, name in enumerate(res_names):
        cols[("demand", name) if not one else ("demand", "")] = inst.demands[:, r]
    if not np.all(inst.weights == 1):
        cols[("weight", "")] = inst.weights
    if spec.commitments is not None:
        for r, name in enumerate(res_names):
            cols[("commitment (share)", name) if not one else ("commitment (share)", "")] = spec.commitments[:, r]
    notes = []
    for mech, res in results.items():
        label = mech if not (mech == "max-min" and spec.commitments is not None) else "max-min (no commitments)"
        if isinstance(res, str):
            notes.append(f"{mech}: {res}")
            continue
        if mech == "sdrf" and spec.commitments is None:
            label = "sdrf (zero commitments)"
        elif mech == "sdrf" and one:
            label = "sdrf (= stateful max-min)"
        for r, name in enumerate(res_names):
            cols[(label, name) if not one else (label, "")] = res.allocation[:, r]
        if not one:
            cols[(label, "dom.share")] = res.dominant_shares
    frame = pd.DataFrame(cols, index=pd.Index(inst.agent_names, name="user"))
    if one:
        frame.columns = [c[0] for c in frame.columns]
        frame.index.name = None
    else:
        frame.columns = pd.MultiIndex.from_tuples(frame.columns)
    cap = ", ".join(f"{n}={c:g}" for n, c in zip(res_names, inst.capacities))
    lines = [f"instance: {spec.source}  ({inst.n_agents} users; capacities {cap})"]
    if not summary:
        shown = frame if not rows or len(frame) <= rows else frame.head(rows)
        lines.append(shown.to_string(float_format=lambda v: f"{v:.{precision}g}"))
        if len(shown) < len(frame):
            lines.append(f"... {len(frame) - len(shown)} more users (--rows 0 shows all; --json has every user)")
    for mech, res in results.items():
        if not isinstance(res, str):
            spread = ""
            if summary and res.dominant_shares is not None and len(res.dominant_shares):
                ds = np.asarray(res.dominant_shares, float)
                spread = (f", dominant shares min {ds.min():.{precision}g} median {np.median(ds):.{precision}g} "
                          f"max {ds.max():.{precision}g}")
            lines.append(f"{mech}: status={res.status.value}, method={res.method}"
                         + (f", solver={res.solver}" if res.solver else "")
                         + (f", level={res.level:.{precision}g}" if res.level is not None else "")
                         + f", {res.stats.get('runtime_s', float('nan')) * 1e3:.2f} ms" + spread)
    lines += notes
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if args.list_examples:
        docs = {name: (fn.__doc__ or "").strip().splitlines()[0] for name, fn in EXAMPLES.items()}
        say(args, *[f"{name:22s} {doc}" for name, doc in docs.items()])
        emit_json(args, docs)
        return 0
    if args.list_solvers:
        from ..exact.solvers import available_solvers

        lp, milp, conic = available_solvers("lp"), available_solvers("milp"), available_solvers("conic")
        say(args, "LP:    " + ", ".join(lp), "MILP:  " + ", ".join(milp), "conic: " + ", ".join(conic))
        emit_json(args, {"lp": list(lp), "milp": list(milp), "conic": list(conic)})
        return 0
    if args.method is not None and args.method.strip() == "":
        raise InvalidInstanceError("--method is empty", argument="method", value=args.method)
    if bool(args.file) == bool(args.example):
        raise InvalidInstanceError("give an instance FILE or --example NAME (not both); "
                                   f"built-in examples: {', '.join(EXAMPLES)}", argument="file")
    spec = get_example(args.example) if args.example else load_instance(args.file)
    if spec.kind != "pooled":                       # tasks on servers, TV-TSF slots: exact programs
        from ._solve_exact import run_exact

        return run_exact(spec, args)
    if args.commitments:
        spec = InstanceSpec(spec.instance, load_commitments(args.commitments, spec.instance), spec.source,
                            spec.kind)
    names = _selected(args.mechanism, spec)
    method = require_choice("method", (args.method or "waterfill").strip().lower(), ["waterfill", "lp"])
    if args.out:
        raise InvalidInstanceError("--out writes figures of tasks / time-varying instances; a pooled instance has "
                                   "none (use --json)", argument="out", value=args.out)
    big = spec.instance.n_agents >= 1000 or method == "lp"
    results = solve_pooled_spec(spec, names, method=method, solver=args.solver,
                                progress=big and show_progress(args))
    say(args, format_pooled_table(spec, results, args.precision, rows=args.rows, summary=args.summary))
    emit_json(args, {"source": spec.source, "instance": spec.instance.to_dict(), "commitments": spec.commitments,
                     "results": {k: (v.to_dict() if isinstance(v, AllocationResult) else {"skipped": v})
                                 for k, v in results.items()}})
    return 0 if all(v.success for v in results.values() if isinstance(v, AllocationResult)) else 3
