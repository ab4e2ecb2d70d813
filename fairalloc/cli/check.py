"""``fairalloc check``: search for violations of the fairness axioms (``proofs_check`` campaigns).

Examples::

    fairalloc check --mechanism sdrf --axiom sp-repeated --examples 5000 --seed 0
    fairalloc check --all --examples 200 --seconds 20 --out check-report
    fairalloc check --replay check-report/witnesses/sdrf__sp-repeated__repeated.json
    fairalloc check --list

One cell prints the examples tried, whether the axiom held or was violated, and the minimal witness
as JSON; ``--all`` runs every implemented cell of the claims table and writes ``report.md``,
``results.json``, ``heatmap.png`` and ``witnesses/*.json`` into ``--out``. The exit status is 0 when
every checked cell agrees with ``axioms.md``, 1 when some cell disagrees (or a replay fails).

(``proofs_check`` is imported when the command runs: the library never imports it, the command line
is the application layer on top of both.)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

__all__ = ["register", "run"]


def register(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "check", help="search for violations of fairness axioms (claims of axioms.md)",
        description="Search for counterexamples to the fairness axioms of the claims table (axioms.md), "
                    "compare with the expected verdicts, replay witnesses.")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--mechanism", help="row of the claims table (see --list), e.g. sdrf, drf, ceei")
    what.add_argument("--all", action="store_true", help="every implemented cell of the claims table")
    what.add_argument("--replay", metavar="WITNESS.json", help="re-verify a witness from scratch")
    what.add_argument("--list", action="store_true", help="list the claims table and what is implemented")
    p.add_argument("--axiom", help="column: sp-stage, sp-repeated, po, si, ef, bottleneck, pm, rm (default: all)")
    p.add_argument("--variant", help="variant of the axiom (default: every variant the table lists)")
    p.add_argument("--examples", type=int, default=200, help="cases tried per cell (default 200)")
    p.add_argument("--seconds", type=float, default=60.0, help="time budget per cell in seconds (default 60)")
    p.add_argument("--f-examples", type=int, default=None,
                   help="--all: cases for cells expected F, which stop at their first violation "
                        "(default 10000; some violations are rare)")
    p.add_argument("--f-seconds", type=float, default=None,
                   help="--all: time budget for cells expected F (default 120)")
    p.add_argument("--budget", type=int, default=None, help="lies / deviations tried per user and case")
    p.add_argument("--seed", type=int, default=0, help="seed of the search (default 0)")
    p.add_argument("--no-shrink", action="store_true", help="report the first counterexample as found")
    p.add_argument("--out", default=None, help="output folder (--all: default ./check-report)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=run)
    return p


def _print_cell(rep, stream) -> None:
    c = rep.claim
    found = "VIOLATED" if rep.verdict is not None and rep.verdict.violated else "holds (no violation found)"
    print(f"{c.key}: expected {c.expected} ({c.cell}); {rep.examples} examples, {rep.seconds:.1f} s: {found} "
          f"-> {rep.status}", file=stream)
    if rep.reason:
        print(f"  note: {rep.reason}", file=stream)
    if rep.undecided:
        print(f"  undecided examples (solver failures): {rep.undecided}", file=stream)
    if rep.verdict is not None and rep.verdict.violated:
        print(f"  {rep.verdict.detail}", file=stream)
        print(f"  shrunk from {rep.original_size} in {rep.shrink_stats.get('steps', 0)} steps; witness:", file=stream)
        print(json.dumps(rep.to_dict()["witness"]), file=stream)


def run(args: argparse.Namespace) -> int:
    from proofs_check import campaign, claims
    from proofs_check.replay import replay

    out = sys.stdout
    if args.list:
        for key, info in claims.MECHANISMS.items():
            state = "implemented" if info.implemented else f"skipped: {info.why_not}"
            print(f"{key:22s} {info.label}  [{state}]", file=out)
            for c in claims.claims_for(key):
                print(f"    {c.axiom:12s} {c.variant:30s} {c.expected}  {'(derived) ' if c.derived else ''}{c.cell}",
                      file=out)
        return 0
    if args.replay:
        r = replay(Path(args.replay))
        print(("CONFIRMED: " if r.confirmed else "NOT CONFIRMED: ") + r.detail, file=out)
        print(json.dumps(r.to_dict()["numbers"]), file=out)
        return 0 if r.confirmed else 1
    if args.all:
        sel = [c for c in claims.CLAIMS if args.axiom in (None, c.axiom) and args.variant in (None, c.variant)]
        f_ex = campaign.F_EXAMPLES if args.f_examples is None else args.f_examples
        f_sec = campaign.F_SECONDS if args.f_seconds is None else args.f_seconds
        reports = campaign.run_all(sel, examples=args.examples, seconds=args.seconds, seed=args.seed,
                                   budget=args.budget, progress=not args.quiet, f_examples=f_ex, f_seconds=f_sec)
        folder = Path(args.out or "check-report")
        paths = campaign.write_report(reports, folder)
        checked = [r for r in reports if r.status != "skipped"]
        for r in checked:
            print(f"{r.claim.key:48s} expected {r.claim.expected}  found {r.found or '-'}  {r.status:16s} "
                  f"{r.examples:5d} ex {r.seconds:6.1f} s", file=out)
        counts: dict[str, int] = {}
        for r in checked:
            counts[r.status] = counts.get(r.status, 0) + 1
        print(f"{len(checked)} cells checked, {len(reports) - len(checked)} skipped: "
              + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())), file=out)
        for r in checked:
            if r.status == "DISAGREES":
                print(f"  DISAGREES {r.claim.key}:{campaign.disagreement_hint(r) or ' see the report'}", file=out)
        print(f"report: {paths['report']}, heatmap: {paths['heatmap']}", file=out)
        return 1 if any(r.status == "DISAGREES" for r in checked) else 0
    try:
        claims.mechanism(args.mechanism)
    except KeyError as exc:
        from fairalloc.errors import InvalidInstanceError

        raise InvalidInstanceError(str(exc.args[0]), argument="--mechanism", value=args.mechanism) from None
    sel = campaign.select_claims(args.mechanism, args.axiom, args.variant)
    if not sel:
        from fairalloc.errors import InvalidInstanceError

        raise InvalidInstanceError(f"no claim for mechanism={args.mechanism!r} axiom={args.axiom!r} "
                                   f"variant={args.variant!r}; see fairalloc check --list", argument="--axiom",
                                   value=args.axiom)
    status = 0
    records = []
    for c in sel:
        rep = campaign.run_cell(c, examples=args.examples, seconds=args.seconds, seed=args.seed,
                                do_shrink=not args.no_shrink, budget=args.budget, progress=not args.quiet)
        if rep.status == "skipped":
            print(f"{c.key}: skipped ({rep.reason})", file=out)
            continue
        _print_cell(rep, out)
        records.append(rep)
        status |= rep.status == "DISAGREES"
    if args.out and records:
        campaign.write_report(records, Path(args.out))
    return int(status)
