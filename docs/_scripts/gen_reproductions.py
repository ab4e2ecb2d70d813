"""Render the stored reproduction runs under *Reproductions* (mkdocs-gen-files).

For every folder ``docs/reproductions/results/<spec>/`` (``report.md``, figures, ``provenance.json``;
the folder itself is excluded from the site in ``mkdocs.yml``) this writes the page
``reproductions/<spec>.md`` (provenance box, then the report with its claims table and figures) and
copies the figures to ``reproductions/<spec>/``. The index ``reproductions/index.md`` gets, in place
of its ``<!-- reproductions status -->`` marker, the table of every shipped spec
(``fairalloc reproduce --list``): stored at which scale, or "not run yet", and the command that
regenerates it. ``reproductions/SUMMARY.md`` is the section's navigation (literate-nav). The
markdown is built by ``reproductions_pages.py``, which the tests call on a temporary folder.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import mkdocs_gen_files

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reproductions_pages import RESULTS, spec_page, status_table, stored_results

from fairalloc.experiments.reproductions import NAMES, load_spec

log = logging.getLogger("mkdocs.plugins.fairalloc.reproductions")
MARKER = "<!-- reproductions status -->"


def main() -> None:
    docs = Path(__file__).resolve().parents[1]
    specs = {n: load_spec(n)["title"] for n in NAMES}
    stored = stored_results(docs / RESULTS)
    for name, s in stored.items():
        with mkdocs_gen_files.open(f"reproductions/{name}.md", "w") as fh:
            fh.write(spec_page(name, specs.get(name), s))
        for fig in s.figures:
            with mkdocs_gen_files.open(f"reproductions/{name}/{fig}", "wb") as fh:
                fh.write((s.folder / fig).read_bytes())
    with mkdocs_gen_files.open("reproductions/index.md", "r") as fh:
        index = fh.read()
    if MARKER not in index:
        raise RuntimeError(f"docs/reproductions/index.md lost its {MARKER} marker (gen_reproductions.py)")
    with mkdocs_gen_files.open("reproductions/index.md", "w") as fh:
        fh.write(index.replace(MARKER, status_table(specs, stored)))
    with mkdocs_gen_files.open("reproductions/SUMMARY.md", "w") as fh:
        fh.write("* [Overview](index.md)\n")
        fh.writelines(f"* [{name}]({name}.md)\n" for name in [*(n for n in specs if n in stored),
                                                              *(n for n in stored if n not in specs)])
        # the learned-priorities method's own run (fairalloc learn train / evaluate; issue 29)
        if (docs / "reproductions" / "learned-training" / "report.md").exists():
            fh.write("* [learned priorities: the method](learned-training/report.md)\n")
    log.info("reproductions: %d stored of %d shipped specs", sum(n in stored for n in specs), len(specs))


main()
