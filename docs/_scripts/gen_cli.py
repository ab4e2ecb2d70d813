"""The command-line reference (``cli.md``), generated from the argparse parsers themselves (gen-files).

Every subcommand's ``--help``, as ``fairalloc`` prints it, at a fixed width of 100 columns: the page
cannot drift from the options. Plugins of the ``fairalloc.commands`` entry point group (``check``
from proofs_check) are included when installed.
"""

from __future__ import annotations

import os

import mkdocs_gen_files

os.environ["COLUMNS"] = "100"          # argparse wraps to the terminal width: a fixed width here

from fairalloc.cli import build_parser  # noqa: E402
from fairalloc.cli.conventions import EXIT_CODES  # noqa: E402


def main() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    lines = [
        "# Command line", "",
        "`fairalloc COMMAND --help` prints each of these pages; they are generated from the same parsers "
        "when this site is built.", "",
        "| command | what it does |", "|---|---|",
        *[f"| [`fairalloc {a.dest}`](#command-{a.dest}) | {a.help} |" for a in sub._choices_actions], "",
        "## Conventions", "",
        "* Every subcommand takes `-q/--quiet` (only errors and warnings), `-v/--verbose`, `--json PATH` "
        "(`--json -`: only the JSON on stdout), `--no-progress` / `--progress` (progress bars are drawn on "
        "stderr only when it is a terminal, never into a piped log, unless `--progress`) and `--debug` (or "
        "`FAIRALLOC_DEBUG=1`: the traceback of an error), before or after the command's name "
        "(`fairalloc -v sweep ...` is `fairalloc sweep -v ...`). Options are checked "
        "before any work starts; an input error is one line on stderr naming what is wrong.",
        "* Output folders: a command writes only into a new or empty folder, or one it wrote before. A "
        "non-empty folder that fairalloc did not write is refused, with or without `--force`. Without "
        "`--out`, `compare` writes each run into a new folder `out/compare/YYYYmmdd-HHMMSS` "
        "(`out/compare/latest` links the newest). An earlier output of fairalloc named by `--out` is kept "
        "unless `--force`, which replaces what that run wrote and keeps your own files there. `reproduce` "
        "names its folder after the job (`out/reproduce/NAME-SCALE`, `...-cells-HASH` with `--cells`, "
        "`...-from-FOLDER` with `--tables-from`) and resumes the same job in it; `check --all` likewise "
        "(`out/check`, `out/check-AXIOM[-VARIANT]` for a selection). A `sweep` folder is resumable: it "
        "takes a new or empty folder or a sweep of the same spec name, and refuses anything else. Folders "
        "are written whole: an error or Ctrl-C leaves the earlier content as it was.",
        "* `--format` (`compare`, `simulate`, `solve`, `results`, `reproduce`, `check`, `learn`): tables as "
        "`csv`, `parquet` or `json`, figures as `png`, `pdf` or `svg`, comma-separated (`--format "
        "parquet,pdf`); a kind not named keeps its default (csv, png). `reproduce` writes its tables as CSV "
        "in any case (its report links them) and the asked formats beside them.",
        "* Terminal tables print the numbers you typed (parameters such as delta = 0.999999) exactly and "
        "measurements to 4 significant digits.", "",
        "| exit status | meaning |", "|---|---|",
        *[f"| {k} | {v} |" for k, v in EXIT_CODES.items()], "",
        "## fairalloc {#command-fairalloc}", "", "```text", parser.format_help().rstrip(), "```", "",
    ]
    for name, p in sub.choices.items():
        lines += [f"## fairalloc {name} {{#command-{name}}}", "", "```text", p.format_help().rstrip(), "```", ""]
    with mkdocs_gen_files.open("cli.md", "w") as fh:
        fh.write("\n".join(lines))


main()
