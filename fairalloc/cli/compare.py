"""``fairalloc compare``: greedy schedulers against the exact optimum of the same mechanism.

Examples::

    fairalloc compare                                   # built-in and seeded random small instances
    fairalloc compare --random 50 --random-tv 20 --seed 3 --out out/compare-seed3 --format parquet,pdf
    fairalloc compare examples/tasks_placement.yaml --variants drf,drf-skip,tsf
    fairalloc compare --variants sdrf,sdrf-printed,sdrf-skip --no-builtin

The logic is :func:`fairalloc.experiments.compare.compare`; this module parses arguments, prints the
summary and writes ``compare.csv`` (one row per instance and variant), ``summary.csv`` and
``compare.png`` (``--format``: other table and figure formats) into a new run folder
``out/compare/YYYYmmdd-HHMMSS`` (``out/compare/latest`` links the newest), or into ``--out``
(the output-folder rule of :mod:`fairalloc.cli.conventions`).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..errors import InvalidInstanceError
from .conventions import (add_format_option, add_output_options, emit_json, nonnegative_int, output_folder,
                          plan_output, positive_float, say, show_progress)

__all__ = ["register", "run"]

#: What compare writes into --out in its default formats (an older output folder holding only these is ours).
_WRITES = ("compare.csv", "summary.csv", "compare.png")
#: Random instances of a default run (with the 5 built-in ones: the 57 instances the README names).
DEFAULT_RANDOM, DEFAULT_RANDOM_TV = 40, 12


def register(subparsers: Any) -> argparse.ArgumentParser:
    from ..experiments.compare import DEFAULT_VARIANTS, VARIANTS

    p = subparsers.add_parser(
        "compare",
        description="Run every greedy task scheduler (DRF, SDRF Algorithm 1, TSF, CDRF, TV-TSF "
                    "Algorithms 1-5) and the exact program of the same mechanism (leximin MILPs) on "
                    "small instances: built-in ones and seeded random ones by default, or instance "
                    "files (kind: tasks / time-varying). Prints a summary, writes a CSV per run and "
                    "a figure to --out.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="variants: " + "; ".join(f"{k}: {v.description}" for k, v in VARIANTS.items()))
    p.add_argument("files", nargs="*", help="instance files (JSON/YAML, kind: tasks or time-varying)")
    p.add_argument("--variants", default=",".join(DEFAULT_VARIANTS),
                   help="comma-separated variants (default: %(default)s)")
    p.add_argument("--random", type=nonnegative_int, default=DEFAULT_RANDOM,
                   help="random task instances (default: %(default)s)")
    p.add_argument("--random-tv", type=nonnegative_int, default=DEFAULT_RANDOM_TV,
                   help="random time-varying instances (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random instances (default: %(default)s)")
    p.add_argument("--no-builtin", action="store_true", help="leave out the built-in instances")
    p.add_argument("--solver", default=None, help="MILP backend: highs, cbc (default: the first available)")
    p.add_argument("--time-limit", type=positive_float, default=30.0,
                   help="seconds per exact program (default: %(default)s)")
    p.add_argument("--threads", type=nonnegative_int, default=1,
                   help="solver threads per exact program (default 1: these programs are small, more threads "
                        "cost more than they save; 0: the solver's default)")
    p.add_argument("--no-pareto", action="store_true", help="skip the Pareto-domination MILPs")
    p.add_argument("--compile", choices=("auto", "yes", "no"), default="auto",
                   help="yes: compile the greedy schedulers with numba; no: run the same source as plain Python "
                        "(numba's NUMBA_DISABLE_JIT, for the whole process); auto (default): no when run as the "
                        "`fairalloc` command, yes when called through fairalloc.cli.main inside another program")
    add_output_options(p, runs="out/compare", what="output folder for the tables and the figure")
    add_format_option(p)
    p.set_defaults(func=run)
    return p


def _instances(args: argparse.Namespace) -> list[tuple[str, Any]]:
    from .. import exact  # noqa: F401 - registers the task / time-varying file kinds
    from ..experiments.compare import builtin_instances, random_instances
    from ..io import load_instance

    out: list[tuple[str, Any]] = []
    for f in args.files:
        spec = load_instance(f)
        out.append((Path(f).stem, spec.instance))
    if not args.files:
        if not args.no_builtin:
            out += builtin_instances()
        out += random_instances(args.random, args.random_tv, rng=args.seed)
    if not out:
        raise InvalidInstanceError("no instances: give files, or --random / --random-tv > 0",
                                   argument="files", value=[])
    return out


def _compile_schedulers(choice: str) -> bool:
    """Apply ``--compile`` before any scheduler runs; return whether the schedulers will be compiled.

    On ``compare``'s small instances (a few users and tasks) a compiled call is no faster than the
    same source run as Python (median 0.69 against 0.77 ms a call on the default instances, and the
    same 189 rows; ``benchmarks/RESULTS.md``, issue 32), while compiling costs about 50 CPU s on a
    machine's first run. numba reads ``NUMBA_DISABLE_JIT`` once, when it is imported, and fairalloc
    imports it at the first call of a compiled function (:mod:`fairalloc._jit`): so "no" can only
    take effect before that, and then holds for the rest of the process. ``auto`` chooses "no" only
    for the ``fairalloc`` command (:func:`fairalloc.cli.started_by_console`), whose process ends with
    the command; a program that calls :func:`fairalloc.cli.main` keeps compiling.
    """
    import os
    import sys
    import warnings

    from . import started_by_console

    plain = choice == "no" or (choice == "auto" and started_by_console())
    numba = sys.modules.get("numba")
    if plain and numba is None:
        os.environ["NUMBA_DISABLE_JIT"] = "1"
        return False
    if numba is None:
        return os.environ.get("NUMBA_DISABLE_JIT", "0").strip() in ("", "0")
    if choice == "no" and not numba.config.DISABLE_JIT:
        warnings.warn("--compile no: numba was already loaded in this process with compilation on, "
                      "so the schedulers are compiled")
    return not numba.config.DISABLE_JIT


def run(args: argparse.Namespace) -> int:
    import pandas as pd

    from ..experiments.compare import VARIANTS, compare, summarize
    from ..plots import save
    from ..plots.compare import gaps
    from .conventions import write_table

    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    if not variants:
        raise InvalidInstanceError("--variants is empty", argument="variants", value=args.variants)
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        raise InvalidInstanceError(f"--variants: unknown variant {unknown[0]!r}; known: {', '.join(VARIANTS)}",
                                   argument="variants", value=unknown[0])
    plan_output(args, ours=_WRITES)
    compiled = _compile_schedulers(args.compile)
    instances = _instances(args)
    table = compare(instances, variants=variants, solver=args.solver, time_limit=args.time_limit,
                    pareto=not args.no_pareto, progress=show_progress(args), threads=args.threads or None)
    n_t = sum(1 for _, i in instances if type(i).__name__ == "TaskInstance")
    say(args, f"\n{len(instances)} instances ({n_t} one-shot task instances, {len(instances) - n_t} time-varying); "
          "each greedy scheduler against the exact (leximin) program of its mechanism")
    summary = summarize(table)
    cols = ["instances", "same", "differ", "mean_min_gap", "max_min_gap", "max_distance", "dominated",
            "greedy_util", "exact_util", "greedy_ms", "exact_ms"]
    with pd.option_context("display.width", 200, "display.max_columns", 20,
                           "display.float_format", "{:,.3f}".format):
        say(args, summary[cols].to_string())
    say(args, "  same: greedy reaches the leximin optimum; min_gap: exact min share - greedy min share; "
          "distance: largest gap between the sorted share vectors; dominated: Pareto-dominated greedy "
          "allocations (another gives everyone as many tasks and someone more) / decided",
          "  exact_util: of the optimum the solver returned; the leximin optimum fixes the sorted shares, not "
          "the allocation, so another solver or version may return another utilisation (same, min_gap and "
          "distance do not change)",
          f"  greedy_ms, exact_ms: median wall time of one call after an untimed warm-up "
          f"({table.attrs.get('warmup_s', 0.0):.1f} s: "
          + ("numba compiling the schedulers or loading them from its cache" if compiled else
             "the schedulers run as plain Python, not compiled (--compile yes compiles them)")
          + ", solver start-up); exact_ms: the whole leximin sequence of MILPs")
    bad = summary["not_proven"].sum()
    if bad:
        say(args, f"  {bad} exact program(s) not proven optimal (time limit {args.time_limit:g} s, or the "
              "backend stopped without a proof): their rows' exact_status says so in compare.csv")
    worst = table.dropna(subset=["leximin_distance"]).sort_values("leximin_distance", ascending=False)
    worst = worst[worst["leximin_distance"] > 0].head(5)
    if len(worst):
        say(args, "\nLargest differences:")
        for _, r in worst.iterrows():
            dom = {True: "Pareto-dominated", False: "not dominated", None: "domination undecided"}[
                r["pareto_dominated"] if r["pareto_dominated"] in (True, False) else None]
            say(args, f"  {r['instance']:<24} {r['variant']:<12} min share greedy {r['greedy_min']:.3f} vs exact "
                  f"{r['exact_min']:.3f}, distance {r['leximin_distance']:.3f}, tasks {r['greedy_tasks']} vs "
                  f"{r['exact_tasks']}, {dom}")
    emit_json(args, {"summary": summary.reset_index().to_dict("records"), "rows": table.to_dict("records"),
                     "warmup_s": table.attrs.get("warmup_s"), "compiled": compiled})
    with output_folder(args.out, args, "compare", ours=_WRITES) as out:
        written = (write_table(table, out / "compare", args.format.tables)
                   + write_table(summary, out / "summary", args.format.tables, index=True)
                   + save(gaps(table), out / "compare", args.format.figures))
    say(args, f"\nwrote {len(table)} rows to {args.out}: " + ", ".join(p.name for p in written))
    return 0
