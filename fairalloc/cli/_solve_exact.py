"""``fairalloc solve`` for instances on servers: indivisible tasks (``kind: tasks``) and TV-TSF time
slots (``kind: time-varying``). File schema: :mod:`fairalloc.exact.files`.

* tasks: ``--mechanism drf,sdrf,tsf,cdrf`` (or ``all``), exact leximin MILPs
  (:func:`fairalloc.exact.tasks_leximin`); ``--method lp`` gives divisible TSF (:func:`fairalloc.tsf`).
* time-varying: ``--mechanism tvtsf --method milp`` (Eq. 10 over the horizon) or ``milp-online``
  (slot by slot), or any method registered in :data:`fairalloc.mechanisms.tvtsf.METHODS`.

``--objective leximin|maxmin``, ``--solver``, ``--time-limit``, ``--mip-gap`` go to the MILPs;
``--out DIR`` writes a figure per mechanism (and ``--json`` the results).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np

from ..validation import require_choice
from ..errors import InvalidInstanceError
from ..io import InstanceSpec
from ..result import AllocationResult
from .conventions import EXIT_NO_SOLUTION, check_output_folder, emit_json, output_folder, say, show_progress

__all__ = ["TASK_MECHANISMS", "solve_exact_spec", "format_exact_table", "run_exact"]

TASK_MECHANISMS = ("drf", "sdrf", "tsf", "cdrf")


def _names(arg: str, kind: str) -> list[str]:
    known = list(TASK_MECHANISMS) if kind == "tasks" else ["tvtsf"]
    if arg.strip().lower() == "all":
        return known
    names = [m.strip().lower() for m in arg.split(",") if m.strip()]
    for m in names:
        if kind == "tasks" and m == "tvtsf":
            raise InvalidInstanceError("--mechanism tvtsf needs a time-varying instance (kind: time-varying); "
                                       f"for a tasks instance use {', '.join(TASK_MECHANISMS)}",
                                       argument="mechanism", value=m)
        if kind != "tasks" and m != "tvtsf":
            raise InvalidInstanceError(f"--mechanism {m}: a time-varying instance is solved by tvtsf",
                                       argument="mechanism", value=m)
    return [require_choice("mechanism", m, known) for m in names]


def solve_exact_spec(spec: InstanceSpec, names: list[str], *, method: str | None = None,
                     objective: str = "leximin", solver: str | None = None, time_limit: float | None = None,
                     mip_gap: float | None = None, progress: bool = False) -> dict[str, AllocationResult]:
    """Solve a tasks or time-varying :class:`InstanceSpec` with each named mechanism (``progress``: a bar
    over the mechanisms with the elapsed time; it advances when a mechanism's solve ends)."""
    from tqdm.auto import tqdm

    from .. import exact, mechanisms

    def bar(items):
        return tqdm(items, desc=f"solving ({spec.instance.n_agents} users)", unit="mechanism", disable=not progress)

    out: dict[str, AllocationResult] = {}
    kw: dict[str, Any] = {"solver": solver}
    if spec.kind == "tasks":
        method = (method or "milp").lower()
        if method not in ("milp", "lp"):
            raise InvalidInstanceError(f"--method {method!r}: tasks instances take milp (exact, integer tasks) or "
                                       f"lp (divisible TSF)", argument="method", value=method)
        for name in bar(names):
            if method == "lp":
                if name != "tsf":
                    raise InvalidInstanceError(f"--method lp is divisible TSF only (got mechanism {name})",
                                               argument="method", value=method)
                out[name] = mechanisms.tsf(spec.instance, method="lp", solver=solver)
            else:
                out[name] = exact.tasks_leximin(spec.instance, mechanism=name, objective=objective,
                                                time_limit=time_limit, mip_gap=mip_gap, **kw)
        return out
    from ..mechanisms.tvtsf import METHODS

    method = require_choice("method", method or "milp", tuple(METHODS))
    opts: dict[str, Any] = dict(kw, objective=objective, time_limit=time_limit, mip_gap=mip_gap)
    if not method.startswith("milp"):
        opts = {}                                  # other methods take their own defaults
    for name in bar(names):
        out[name] = mechanisms.tvtsf(spec.instance, method=method, **opts)
    return out


def format_exact_table(spec: InstanceSpec, results: dict[str, AllocationResult], precision: int = 4, *,
                       rows: int = 0, summary: bool = False) -> str:
    """Users as rows: what they ask for, then per mechanism the tasks they get and the maximised value."""
    import pandas as pd

    inst = spec.instance
    cols: dict[Any, Any] = {}
    res_names = inst.cluster.resource_names
    if spec.kind == "tasks":
        for r, name in enumerate(res_names):
            cols[("task", name)] = inst.task_demands[:, r]
        cols[("wants", "")] = inst.tasks
    else:
        cols[("submitted", "")] = inst.arrivals.sum(axis=1)
        cols[("duration", "")] = inst.durations
    if spec.kind == "tasks":
        cols[("h", "")] = inst.monopoly
    else:                                          # Eq. 3 denominator after the last slot
        cols[("sum w h", "")] = (inst.monopoly * inst.weights).sum(axis=1)
    for name, r in results.items():
        if not r.success:
            continue
        t = np.asarray(r.tasks)
        cols[(name, "tasks")] = t.reshape(t.shape[0], -1).sum(axis=1)
        cols[(name, "share")] = r.shares
    frame = pd.DataFrame(cols, index=pd.Index(inst.agent_names, name="user"))
    frame.columns = pd.MultiIndex.from_tuples(frame.columns)
    caps = inst.cluster.capacities
    lines = [f"instance: {spec.source}  ({inst.n_agents} users, {inst.n_servers} servers"
             + (f", {inst.n_slots} slots" if spec.kind != "tasks" else "")
             + f"; cluster totals {', '.join(f'{n}={v:g}' for n, v in zip(res_names, caps.sum(axis=0)))})"]
    if not summary:
        shown = frame if not rows or len(frame) <= rows else frame.head(rows)
        lines.append(shown.to_string(float_format=lambda v: f"{v:.{precision}g}"))
        if len(shown) < len(frame):
            lines.append(f"... {len(frame) - len(shown)} more users (--rows 0 shows all; --json has every user)")
    for name, r in results.items():
        st = r.stats
        extra = f", {st['n_solves']} solves" if "n_solves" in st else ""
        if r.details and "leximin" in r.details:
            extra += f", {len(r.details['leximin'])} distinct levels"
        if r.status.value != "optimal" and st.get("mip_gap") is not None:
            extra += f", gap {st['mip_gap']:.3g}"
        lines.append(f"{name}: status={r.status.value}, method={r.method}, solver={r.solver}"
                     + (f", min share={r.objective:.{precision}g}" if r.objective is not None else "")
                     + f"{extra}, {st.get('runtime_s', float('nan')):.2f} s"
                     + (f"  ({r.message})" if r.status.value != "optimal" else ""))
    return "\n".join(lines)


def _figures(spec: InstanceSpec, results: dict[str, AllocationResult], out: Path, formats=("png",)) -> list[Path]:
    from ..plots import save
    from ..plots.exact import task_allocation, tvtsf_schedule

    written = []
    for name, r in results.items():
        if not r.success:
            continue
        fig = task_allocation(r, spec.instance) if spec.kind == "tasks" else tvtsf_schedule(r, spec.instance)
        written += save(fig, out / f"{name}_{r.method}", formats)
    return written


def run_exact(spec: InstanceSpec, args: argparse.Namespace) -> int:
    """The ``fairalloc solve`` path for tasks and time-varying instances."""
    if getattr(args, "commitments", None):
        raise InvalidInstanceError("--commitments is for pooled instances; a tasks file carries them per user "
                                   "('commitment:')", argument="commitments")
    names = _names(args.mechanism, spec.kind)
    if getattr(args, "out", None):
        check_output_folder(args.out, force=args.force)
    results = solve_exact_spec(spec, names, method=args.method, objective=args.objective, solver=args.solver,
                               time_limit=args.time_limit, mip_gap=args.mip_gap, progress=show_progress(args))
    say(args, format_exact_table(spec, results, args.precision, rows=getattr(args, "rows", 0),
                                 summary=getattr(args, "summary", False)))
    if getattr(args, "out", None):
        with output_folder(args.out, args, "solve") as out:
            names = [p.name for p in _figures(spec, results, out, args.format.figures)]
        say(args, *[f"figure: {Path(args.out) / name}" for name in names])
    emit_json(args, {"source": spec.source, "kind": spec.kind, "instance": spec.instance.to_dict(),
                     "results": {k: v.to_dict() for k, v in results.items()}})
    return 0 if all(r.success for r in results.values()) else EXIT_NO_SOLUTION
