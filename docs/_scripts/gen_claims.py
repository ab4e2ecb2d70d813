"""Generate the claims ledger (``claims.md``) from ``proofs_check.claims`` at build time (gen-files).

Nothing in the page is written by hand: the cells, their expected verdicts and sources come from
``proofs_check.claims.CLAIMS`` / ``MECHANISMS`` / ``FINDINGS``; the "found" column is the campaign
that ``notebooks/axioms.py`` runs during the build at small scale (``gen_notebooks.py`` saves its
reports to ``$FAIRALLOC_DOCS_CLAIMS_JSON``; the campaign runs once per build): T and open cells a few
seeded cases each (an absence of violations at this budget is weak evidence, which the page says), F
cells and the findings searched from the seeds of ``proofs_check.campaign.QUICK`` until their first
counterexample, shrunk. Each violation's witness is published beside the page as JSON for
``fairalloc check --replay``, and every row gives the command that repeats its search.
"""

from __future__ import annotations

import json
import logging
import os

import mkdocs_gen_files

from proofs_check import campaign, claims

log = logging.getLogger("mkdocs.plugins.fairalloc.claims")

#: the axioms notebook's search budgets at small scale, read from its run (``_load``)
BUDGET: dict = {}


def _budget(c: claims.Claim) -> dict:
    """The search budget the axioms notebook gave a cell (as ``run_cell`` keywords)."""
    costly = c.mechanism in BUDGET["EXACT"]
    if c.expected == "F" or c.key in claims.FINDINGS:
        seed, examples, budget = campaign.QUICK.get(c.key, (0, BUDGET["F_EXAMPLES"], None))
        return dict(examples=examples, seconds=BUDGET["F_SECONDS"], seed=seed, budget=budget)
    return dict(examples=BUDGET["EXACT_EXAMPLES"] if costly else BUDGET["T_EXAMPLES"],
                seconds=BUDGET["SECONDS"], seed=0, budget=8 if costly else None)


def _command(c: claims.Claim, b: dict) -> str:
    cmd = (f"fairalloc check --mechanism {c.mechanism} --axiom {c.axiom} --variant {c.variant} "
           f"--examples {b['examples']} --seconds {int(b['seconds'])} --seed {b['seed']}")
    return cmd + (f" --budget {b['budget']}" if b.get("budget") else "")


def _cell(text: str) -> str:
    """Text for a Markdown table cell (brackets escaped: "[ours]" is no link)."""
    return str(text).replace("|", "\\|").replace("\n", " ").replace("[", "\\[").replace("]", "\\]")


def _reports() -> dict[str, dict] | None:
    """The axioms notebook's reports of this build, by claim key (None when it did not run)."""
    path = os.environ.get("FAIRALLOC_DOCS_CLAIMS_JSON")
    if not path or not os.path.exists(path):
        return None
    with open(path) as fh:
        saved = json.load(fh)
    BUDGET.update(saved["budget"])
    return {f"{d['mechanism']}/{d['axiom']}/{d['variant']}": d for d in saved["reports"]}


def main() -> None:
    reports = _reports()
    RUN = reports is not None
    if not RUN:
        log.info("claims ledger: the axioms notebook did not run in this build, no 'found' column")
    rows, found, seconds, violations = [], 0, 0.0, []
    for c in claims.CLAIMS:
        info = claims.MECHANISMS[c.mechanism]
        skip = campaign.skip_reason(c)
        if skip:
            rows.append((c, info, f"skipped: {skip}", ""))
            continue
        r = reports.get(c.key) if RUN else None
        if r is None:
            rows.append((c, info, "not run in this build", ""))
            continue
        b = _budget(c)
        found += 1
        seconds += float(r.get("seconds", 0.0))
        if r.get("found") == "F" and r.get("witness") is not None:
            name = c.key.replace("/", "__") + ".json"
            with mkdocs_gen_files.open(f"claims/{name}", "w") as fh:
                fh.write(json.dumps(r["witness"], indent=1))
            violations.append((c, r, name, b))
            result = f"**F** ({r['status']}; [witness](claims/{name}))"
        else:
            result = f"{r.get('found') or '?'} ({r['status']}, {r['examples']} cases)"
        rows.append((c, info, result, _command(c, b)))

    out = ["# Claims ledger", "",
           "Every cell of the mechanism × axiom table of [the axioms page](axioms.md), one row per variant, "
           "generated when this site was built from [`proofs_check.claims`](reference/proofs_check.claims.md) "
           "(the table as data) and a search run during the build. *Expected*: T (theorem), F (known false), "
           "? (open), - (not applicable), with the cell as printed in the table and its source. *Found in "
           "this build*: what [`proofs_check.campaign.run_cell`][proofs_check.campaign.run_cell] found when "
           "the [axioms notebook](notebooks/axioms.ipynb) ran during the build, with its **small budget**: "
           "T and open cells a few seeded cases each"
           + (f" ({BUDGET['T_EXAMPLES']}; {BUDGET['EXACT_EXAMPLES']} for rows that solve LPs / MILPs)" if RUN else "")
           + ", so \"T\" there "
           "means *no violation in those cases*, not a proof; F cells and the findings are searched from the "
           "seed of `proofs_check.campaign.QUICK` until the first counterexample, which is shrunk. "
           "The command in each row repeats that search; `fairalloc check --all` runs the full campaign "
           "(about ten minutes). How the checkers decide each axiom: [Axioms and checkers](concepts/axioms.md).",
           ""]
    if RUN:
        out += [f"{found} cells searched during this build (by the axioms notebook, {seconds:.0f} s of search).", ""]
    out += ["## The table", "",
            "| mechanism | axiom | variant | expected (as printed) | found in this build | reproduce |",
            "|---|---|---|---|---|---|"]
    for c, info, result, cmd in rows:
        exp = c.expected + (f" (printed: {_cell(c.cell)})" if c.cell != c.expected else "")
        mech = _cell(info.label) + (" (ours)" if c.derived and not info.derived else "")
        out.append(f"| {mech} | {claims.AXIOM_LABELS.get(c.axiom, c.axiom)} | {c.variant} | {exp} | {result} | "
                   + (f"`{cmd}`" if cmd else "") + " |")
    out += ["", "## Rows: sources and implementations", "",
            "| row | mechanism | source of the expected cells | implemented by |", "|---|---|---|---|"]
    for key, info in claims.MECHANISMS.items():
        impl = f"`{info.target}`" + (f" with `{dict(info.kwargs)}`" if info.kwargs else "") \
            if info.implemented else f"not implemented: {_cell(info.why_not)}"
        out.append(f"| `{key}` | {_cell(info.label)} | {_cell(info.source)} | {impl} |")
    out += ["", "## Findings: T cells the checkers refute", "",
            "`proofs_check.claims.FINDINGS`: cells that `axioms.md` (or our derivation) marks T and the "
            "checkers refute, each with the explanation recorded there and the minimal counterexample found "
            "in this build.", ""]
    by_key = {c.key: (r, name, b) for c, r, name, b in violations}
    for key, why in claims.FINDINGS.items():
        mech, axiom, variant = key.split("/")
        c = next(c for c in claims.CLAIMS if c.key == key)
        out += [f"### `{key}`", "", why, ""]
        if key in by_key:
            r, name, b = by_key[key]
            out += [f"Found in this build: {r.get('detail', '')} ([witness](claims/{name}); "
                    f"replay: `fairalloc check --replay {name}`).", ""]
        else:
            out += ["Not refuted in this build" + ("" if RUN else " (the campaign was not run)") + ".", ""]
        if RUN:
            out += ["```bash", _command(c, _budget(c)), "```", ""]
    out += ["## Minimal counterexamples", "",
            "Every violation found in this build, after shrinking (expected F cells and findings). Each "
            "witness re-verifies on its own: download it and run `fairalloc check --replay FILE.json` "
            "(or [`proofs_check.replay`][proofs_check.replay] in Python).", ""]
    if not violations:
        out.append("None in this build." if RUN else "The campaign was not run in this build.")
    for c, r, name, b in violations:
        case = (r.get("witness") or {}).get("case", {})
        out += [f"### `{c.key}` (expected {c.expected})", "",
                f"{r.get('detail', '')}. Found after {r['examples']} cases; original size "
                f"{r.get('original_size')}, shrunk in {(r.get('shrink') or {}).get('steps', 0)} steps. "
                f"[Witness](claims/{name}).", "",
                '??? note "The shrunk case"', "", "    ```json",
                "    " + json.dumps(case),
                "    ```", "",
                "```bash", _command(c, b), f"fairalloc check --replay {name}", "```", ""]
    with mkdocs_gen_files.open("claims.md", "w") as fh:
        fh.write("\n".join(out) + "\n")


main()
