"""``fairalloc check``: search for violations of the fairness axioms (``proofs_check`` campaigns).

Examples::

    fairalloc check --mechanism sdrf --axiom sp-repeated --examples 5000 --seed 0
    fairalloc check --all --examples 200 --seconds 20 --out out/check
    fairalloc check --replay out/check/witnesses/sdrf__sp-repeated__repeated.json
    fairalloc check --list
    fairalloc check --mechanism mypkg.alloc:my_drf --domain pooled --axiom si

One cell prints the examples tried, whether the axiom held or was violated, and the minimal witness
as JSON; ``--all`` runs every implemented cell of the claims table and writes ``report.md``,
``results.json``, ``heatmap.png`` and ``witnesses/*.json`` into ``--out``, and each cell's record into
``--out``/cells as soon as the cell finishes: a rerun with the same budgets resumes from them.
``--mechanism package.module:function --domain D`` checks your own mechanism
(:mod:`proofs_check.user_mechanism`); each call of it gets ``--call-seconds`` (a call that does not
return ends the cell as ``timeout``, naming the instance). Exit status: 0 when every checked cell
agrees with ``axioms.md`` (a *known finding*, a T cell our checkers refute with an explanation in
``proofs_check.claims.FINDINGS``, is an expected result, like pytest's xfail) or the witness replays;
1 when some cell disagrees (a new finding, or an F cell whose violation was not found) or the
witness does not replay; 2 on bad input; 3 when a call of your mechanism did not return within
``--call-seconds``.

This module is the subcommand ``check`` of the ``fairalloc`` command, registered through the entry
point group ``fairalloc.commands`` (fairalloc never imports proofs_check). Nothing here imports
hypothesis at module level: ``--list`` and ``--replay`` do not load it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from fairalloc.cli.conventions import (add_format_option, add_output_options, check_output_folder, emit_json,
                                       output_folder, positive_float, positive_int, resumable_folder, say,
                                       show_progress)
from fairalloc.errors import InvalidInstanceError

__all__ = ["register", "run", "DEFAULT_CALL_SECONDS"]

#: ``--call-seconds`` when not given: the time limit of each call of a user's mechanism.
DEFAULT_CALL_SECONDS = 30.0
_AXES = "sp-stage, sp-repeated, po, si, ef, ef1, bottleneck, pm, rm"


def register(subparsers) -> argparse.ArgumentParser:
    """Add the ``check`` subcommand to ``fairalloc``'s parser (entry point ``fairalloc.commands``).

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        What ``ArgumentParser.add_subparsers()`` returned.

    Returns
    -------
    argparse.ArgumentParser
        The ``check`` parser; its default ``func`` is :func:`run`.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="fairalloc")
    >>> p = register(parser.add_subparsers())
    >>> args = parser.parse_args(["check", "--list"])
    >>> args.list, args.func is run
    (True, True)
    """
    p = subparsers.add_parser(
        "check", help="search for violations of fairness axioms (claims of axioms.md, or your mechanism)",
        description="Search for counterexamples to the fairness axioms of the claims table (axioms.md), "
                    "compare with the expected verdicts, replay witnesses; or run the same campaign on "
                    "your own mechanism (--mechanism package.module:function --domain ...).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="your own mechanism: --domain pooled: fn(fairalloc.Instance) -> allocation (users, resources); "
               "tasks: fn(fairalloc.TaskInstance) -> tasks (users, servers); time-varying: "
               "fn(fairalloc.TimeVaryingInstance) -> tasks (users, servers, slots); an AllocationResult "
               "or the bare array (guide: docs/guides/check-your-mechanism.md)")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--mechanism", help="row of the claims table (see --list), e.g. sdrf, drf, ceei; or your "
                                          "own callable as package.module:function (with --domain)")
    what.add_argument("--all", action="store_true", help="every implemented cell of the claims table")
    what.add_argument("--replay", metavar="WITNESS.json", help="re-verify a witness from scratch")
    what.add_argument("--list", action="store_true", help="list the claims table and what is implemented")
    p.add_argument("--domain", choices=("pooled", "tasks", "time-varying"),
                   help="with --mechanism package.module:function: the instances your callable takes")
    p.add_argument("--axiom", help=f"column: {_AXES} (default: all)")
    p.add_argument("--variant", help="variant of the axiom (default: every variant the table lists)")
    p.add_argument("--examples", type=positive_int, default=200, help="cases tried per cell (default 200)")
    p.add_argument("--seconds", type=positive_float, default=60.0,
                   help="safety cap in seconds per cell (default 60); a cell that reaches it says so")
    p.add_argument("--f-examples", type=positive_int, default=None,
                   help="--all: cases for cells expected F, which stop at their first violation "
                        "(default 10000; some violations are rare)")
    p.add_argument("--f-seconds", type=positive_float, default=None,
                   help="--all: time cap for cells expected F (default 120)")
    p.add_argument("--call-seconds", type=positive_float, default=None, metavar="S",
                   help="your mechanism (--mechanism package.module:function): time limit of each call (default "
                        "30); a call that does not return ends its cell as 'timeout'")
    p.add_argument("--budget", type=positive_int, default=None, help="lies / deviations tried per user and case")
    p.add_argument("--seed", type=int, default=0, help="seed of the search (default 0)")
    p.add_argument("--no-shrink", action="store_true", help="report the first counterexample as found")
    add_output_options(p, default="--all: out/check, out/check-AXIOM[-VARIANT] with --axiom / --variant; the "
                                  "same --all selection resumes there; a single cell writes nothing without it",
                       what="output folder of the report, the heatmap and the witnesses")
    add_format_option(p)
    p.add_argument("--fresh", action="store_true",
                   help="--all: recompute every cell (default: resume from the records in --out/cells)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, default=None, metavar="N",
                       help="--all: run the cells in parallel on a local Dask cluster of N worker processes "
                            "(fairalloc sweep's runner; resumable from --out/sweep)")
    where.add_argument("--scheduler", default=None, metavar="ADDRESS",
                       help="--all: run the cells on an existing Dask cluster (dask scheduler / dask worker)")
    p.set_defaults(func=run)
    return p


def _cell_lines(rep) -> list[str]:
    c = rep.claim
    found = ("VIOLATED" if rep.verdict is not None and rep.verdict.violated
             else "stopped (a call did not return)" if rep.status == "timeout" else "holds (no violation found)")
    expected = f"expected {c.expected} ({c.cell})" if c.expected else "expected: (your mechanism)"
    lines = [f"{c.key}: {expected}; {rep.examples} examples, {rep.seconds:.1f} s: {found} -> {rep.status}"]
    if rep.reason:
        lines.append(f"  note: {rep.reason}")
    if rep.undecided:
        lines.append(f"  undecided examples (solver failures): {rep.undecided}")
    if rep.verdict is not None and rep.verdict.violated:
        lines.append(f"  {rep.verdict.detail}")
        lines.append(f"  shrunk from {rep.original_size} in {rep.shrink_stats.get('steps', 0)} steps; witness:")
        lines.append(json.dumps(rep.to_dict()["witness"]))
    return lines


def _check_combination(args) -> None:
    """Options that do not go together, refused before any work."""
    if (args.workers is not None or args.scheduler is not None) and not args.all:
        raise InvalidInstanceError("--workers / --scheduler run the cells of --all on Dask; one cell runs here",
                                   argument="workers", value=args.workers if args.workers is not None else args.scheduler)
    if args.workers is not None and args.workers < 1:
        raise InvalidInstanceError(f"--workers {args.workers}: must be >= 1", argument="workers", value=args.workers)
    user = bool(args.mechanism) and ":" in args.mechanism
    if args.domain and not user:
        raise InvalidInstanceError("--domain goes with --mechanism package.module:function (your own mechanism); "
                                   "the rows of the claims table have their own domain", argument="domain",
                                   value=args.domain)
    if user and not args.domain:
        raise InvalidInstanceError(f"--mechanism {args.mechanism}: give --domain pooled, tasks or time-varying "
                                   "(the instances your callable takes)", argument="domain")
    if not args.all and (args.f_examples is not None or args.f_seconds is not None or args.fresh):
        opt = "--f-examples" if args.f_examples is not None else "--f-seconds" if args.f_seconds is not None \
            else "--fresh"
        raise InvalidInstanceError(f"{opt} applies to --all only", argument=opt)
    if args.call_seconds is not None and not user:
        raise InvalidInstanceError("--call-seconds limits the calls of your own mechanism (--mechanism "
                                   "package.module:function); the table's rows run without one",
                                   argument="call_seconds", value=args.call_seconds)
    if args.force and not (args.all or args.out):
        raise InvalidInstanceError("--force replaces an earlier output in --out; give --out (or --all)",
                                   argument="force")
    if args.out and not args.all and not args.replay and not args.list:
        check_output_folder(args.out, ours=_ALL_WRITES, force=args.force)     # before any search
    if (args.list or args.replay) and (args.axiom or args.variant):
        raise InvalidInstanceError("--axiom / --variant select cells to search; --list and --replay take none",
                                   argument="axiom")


def _replay(args) -> int:
    from .replay import replay

    path = Path(args.replay)
    try:
        w = json.loads(path.read_text())
    except UnicodeDecodeError:
        raise InvalidInstanceError(f"{path}: not a witness (not text JSON)", argument="replay", value=str(path)) \
            from None
    except json.JSONDecodeError as exc:
        raise InvalidInstanceError(f"{path}: not valid JSON: {exc}", argument="replay", value=str(path)) from None
    if not isinstance(w, dict) or "kind" not in w:
        raise InvalidInstanceError(f"{path}: not a witness: expected a JSON object with a 'kind' (as written by "
                                   "fairalloc check into witnesses/)", argument="replay", value=str(path))
    mech = (w.get("claim") or {}).get("mechanism", "")
    if isinstance(mech, str) and ":" in mech:              # a witness of your own mechanism: import it again
        from .user_mechanism import user_mechanism

        kind = (w.get("case") or {}).get("kind", "pooled")
        user_mechanism(mech, {"servers": "tasks"}.get(kind, kind))
    try:
        r = replay(w)
    except (KeyError, IndexError, TypeError) as exc:
        raise InvalidInstanceError(f"{path}: incomplete or malformed witness ({type(exc).__name__}: {exc})",
                                   argument="replay", value=str(path)) from None
    say(args, ("CONFIRMED: " if r.confirmed else "NOT CONFIRMED: ") + r.detail, json.dumps(r.to_dict()["numbers"]))
    emit_json(args, {"witness": str(path), **r.to_dict()})
    return 0 if r.confirmed else 1


def _list(args) -> int:
    from . import claims

    rows = []
    for key, info in claims.MECHANISMS.items():
        state = "implemented" if info.implemented else f"skipped: {info.why_not}"
        lines = [f"{key:22s} {info.label}  [{state}]"]
        cells = []
        for c in claims.claims_for(key):
            lines.append(f"    {c.axiom:12s} {c.variant:30s} {c.expected}  {'(derived) ' if c.derived else ''}{c.cell}")
            cells.append({"axiom": c.axiom, "variant": c.variant, "expected": c.expected, "cell": c.cell,
                          "derived": c.derived})
        say(args, *lines)
        rows.append({"mechanism": key, "label": info.label, "implemented": info.implemented,
                     "why_not": info.why_not, "source": info.source, "claims": cells})
    emit_json(args, rows)
    return 0


def _summary(reports) -> tuple[list, str]:
    checked = [r for r in reports if r.status != "skipped"]
    counts: dict[str, int] = {}
    for r in checked:
        counts[r.status] = counts.get(r.status, 0) + 1
    return checked, (f"{len(checked)} cells checked, {len(reports) - len(checked)} skipped: "
                     + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))


#: What ``--all`` writes in its folder (a folder of an older fairalloc holding only these is resumed).
_ALL_WRITES = ("report.md", "results.json", "heatmap.png", "heatmap.pdf", "heatmap.svg", "summary.csv",
               "summary.parquet", "summary.json", "witnesses", "cells", "sweep")


def _all_job(args) -> str:
    """The identity of an ``--all`` folder: the cells it holds (every cell, or those of --axiom / --variant);
    budgets are not part of it (a cell record run with other budgets is run again)."""
    return "check --all" + (f" --axiom {args.axiom}" if args.axiom else "") + (
        f" --variant {args.variant}" if args.variant else "")


def _default_all_out(args) -> Path:
    """``out/check`` for every cell, ``out/check-AXIOM[-VARIANT]`` for a selection (so a selection never
    writes over the whole table's report)."""
    parts = [p for p in (args.axiom, args.variant) if p]
    return Path("out") / ("check" + "".join(f"-{p}" for p in parts))


def _formats(args) -> dict:
    """``--format``: the heatmap's figure formats, and the summary table's formats when asked (the
    records are results.json in any case)."""
    from fairalloc.cli.conventions import DEFAULT_FORMATS

    fmt = args.format
    return {"figures": fmt.figures, "tables": () if fmt is DEFAULT_FORMATS else fmt.tables}


def _all(args) -> int:
    from . import campaign, claims

    sel = [c for c in claims.CLAIMS if args.axiom in (None, c.axiom) and args.variant in (None, c.variant)]
    if not sel:
        raise InvalidInstanceError(f"no claim with axiom={args.axiom!r} variant={args.variant!r}; see "
                                   "fairalloc check --list", argument="axiom", value=args.axiom)
    f_ex = campaign.F_EXAMPLES if args.f_examples is None else args.f_examples
    f_sec = campaign.F_SECONDS if args.f_seconds is None else args.f_seconds
    folder = Path(args.out or _default_all_out(args))
    with resumable_folder(folder, args, "check", _all_job(args), ours=_ALL_WRITES):
        cells = folder / "cells"
        done = len(list(cells.glob("*.json"))) if cells.is_dir() and not args.fresh else 0
        if done:
            say(args, f"resuming: {done} cell records in {cells} (cells run with other budgets are run again; "
                       "--fresh recomputes all)")
        reports = campaign.run_all(sel, examples=args.examples, seconds=args.seconds, seed=args.seed,
                                   budget=args.budget, progress=show_progress(args), f_examples=f_ex,
                                   f_seconds=f_sec, cells_dir=cells, resume=not args.fresh, workers=args.workers,
                                   scheduler=args.scheduler)
        paths = campaign.write_report(reports, folder, **_formats(args))
    checked, summary = _summary(reports)
    say(args, *[f"{r.claim.key:48s} expected {r.claim.expected}  found {r.found or '-'}  {r.status:16s} "
                 f"{r.examples:5d} ex {r.seconds:6.1f} s" for r in checked], summary)
    known = [r for r in checked if r.status == "known finding"]
    if known:
        say(args, f"  {len(known)} known findings (expected: T cells our checkers refute, explained in the report): "
                  + ", ".join(r.claim.key for r in known))
    say(args, *[f"  DISAGREES {r.claim.key}:{campaign.disagreement_hint(r) or ' see the report'}"
                 for r in checked if r.status == "DISAGREES"])
    say(args, f"report: {paths['report']}, heatmap: {paths['heatmap']}, cells: {cells}")
    emit_json(args, [r.to_dict() for r in reports])
    return 1 if any(r.status == "DISAGREES" for r in checked) else 0


def _cells(args) -> int:
    from . import campaign, claims

    if ":" in args.mechanism:
        from .user_mechanism import user_claims, user_mechanism

        sel = user_claims(user_mechanism(args.mechanism, args.domain, hard_stop=True,
                                         call_seconds=DEFAULT_CALL_SECONDS if args.call_seconds is None
                                         else args.call_seconds), args.axiom, args.variant)
    else:
        try:
            claims.mechanism(args.mechanism)
        except KeyError as exc:
            raise InvalidInstanceError(str(exc.args[0]), argument="--mechanism", value=args.mechanism) from None
        if args.axiom is not None and args.axiom not in claims.AXIOMS:
            raise InvalidInstanceError(f"--axiom {args.axiom!r}: expected one of {', '.join(claims.AXIOMS)}",
                                       argument="axiom", value=args.axiom)
        sel = campaign.select_claims(args.mechanism, args.axiom, args.variant)
        if not sel:
            raise InvalidInstanceError(f"no claim for mechanism={args.mechanism!r} axiom={args.axiom!r} "
                                       f"variant={args.variant!r}; see fairalloc check --list", argument="variant",
                                       value=args.variant)
    status = 0
    records = []
    for c in sel:
        rep = campaign.run_cell(c, examples=args.examples, seconds=args.seconds, seed=args.seed,
                                do_shrink=not args.no_shrink, budget=args.budget, progress=show_progress(args))
        if rep.status == "skipped":
            say(args, f"{c.key}: skipped ({rep.reason})")
            continue
        say(args, *_cell_lines(rep))
        records.append(rep)
        if rep.status == "timeout":
            from .call_limit import HARD_STOP_STATUS

            status = max(status, HARD_STOP_STATUS)
        elif rep.status == "DISAGREES":
            status = max(status, 1)
    if args.out and records:
        title = f"fairalloc check --mechanism {args.mechanism}" + (f" --axiom {args.axiom}" if args.axiom else "") \
            + (f" --variant {args.variant}" if args.variant else "")
        with output_folder(args.out, args, "check", ours=_ALL_WRITES) as out:
            campaign.write_report(records, out, title=title, **_formats(args))
    emit_json(args, [r.to_dict() for r in records])
    return int(status)


def run(args: argparse.Namespace) -> int:
    """Run ``fairalloc check`` with parsed arguments: ``--list``, ``--replay``, ``--all`` or some cells.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed by the parser of :func:`register`.

    Returns
    -------
    int
        The exit status (see ``fairalloc check --help``); 0 for ``--list``.

    Raises
    ------
    fairalloc.InvalidInstanceError
        Options that do not go together, refused before any work.

    Examples
    --------
    ``--list`` prints the table's rows and returns 0:

    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="fairalloc")
    >>> _ = register(parser.add_subparsers())
    >>> import contextlib, io
    >>> out = io.StringIO()
    >>> with contextlib.redirect_stdout(out):
    ...     status = run(parser.parse_args(["check", "--list"]))
    >>> status, out.getvalue().split()[0]       # the first row of axioms.md's table
    (0, 'max_min')
    """
    _check_combination(args)
    if args.list:
        return _list(args)
    if args.replay:
        return _replay(args)
    if args.all:
        return _all(args)
    return _cells(args)
