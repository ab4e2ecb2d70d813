"""Execute every notebook of ``notebooks/`` at small scale and hand it to mkdocs-jupyter (gen-files).

The jupytext ``.py`` files are the notebooks' source (the ``.ipynb`` beside them are kept in sync by a
test). Each is executed with nbclient in ``notebooks/`` (where it finds ``../shared/data``) with
``FAIRALLOC_SCALE=small``, the size the tests use, two at a time, and the executed notebook is written
to ``notebooks/<name>.ipynb`` in the site's sources, which mkdocs-jupyter renders with its outputs
(figures included: the kernel keeps matplotlib's inline backend).

A notebook whose data are absent (``FileNotFoundError``, e.g. the KTH-SP2 log for ``buc``) is shown
unexecuted, with a note saying so, as the tests skip then; any other error fails the build.
The axioms notebook runs the claims campaign at small scale; one cell appended to it (and removed
before rendering) saves its reports, ``[r.to_dict() for r in reports]``, and its search budgets to the
JSON file named by
``$FAIRALLOC_DOCS_CLAIMS_JSON``, from which ``gen_claims.py`` builds the ledger: the campaign runs once
per build.

A notebook the notebook tests of the same run executed this way already (``.ci/run`` sets
``$FAIRALLOC_EXECUTED_NOTEBOOKS``; ``executed_notebooks.py``) is rendered from that execution, not run
again, when the digests of its source and of the packages it runs match this checkout (the axioms
notebook's reports come with it); the log says which notebooks were taken from the tests.

``FAIRALLOC_DOCS_EXECUTE=0`` skips execution altogether (for a quick ``mkdocs serve``).
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import jupytext
import mkdocs_gen_files
import nbclient
import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
import executed_notebooks  # noqa: E402

log = logging.getLogger("mkdocs.plugins.fairalloc.notebooks")

NB_DIR = Path("notebooks").resolve()
TIMEOUT = 900            # seconds per cell: a safety cap only
EXECUTE = os.environ.get("FAIRALLOC_DOCS_EXECUTE", "1") != "0"


def _title(nb) -> str:
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return "notebook"


def _note(nb, text: str) -> None:
    nb.cells.insert(1 if nb.cells and nb.cells[0].cell_type == "markdown" else 0,
                    nbformat.v4.new_markdown_cell(f"> **Not executed in this build:** {text}"))


def _run(path: Path):
    nb = jupytext.read(path)
    if not EXECUTE:
        _note(nb, "the site was built with `FAIRALLOC_DOCS_EXECUTE=0`.")
        return path, nb, 0.0
    executed, why = executed_notebooks.load(path)
    if executed is not None:
        side = executed_notebooks.side_file(path.stem)
        if side is not None:
            shutil.copyfile(side, os.environ["FAIRALLOC_DOCS_CLAIMS_JSON"])
        log.info("notebook %s: executed by the notebook tests of this run in %.1f s (same sources), "
                 "not run again", path.name, why)
        return path, executed, 0.0
    log.info("notebook %s: executing it (%s)", path.name, why)
    t0 = time.perf_counter()
    epilogue = executed_notebooks.EPILOGUES.get(path.stem)
    try:
        for attempt in range(3):
            nb = jupytext.read(path)
            if epilogue:
                nb.cells.append(nbformat.v4.new_code_cell(epilogue[0]))
            client = nbclient.NotebookClient(nb, timeout=TIMEOUT, kernel_name="python3",
                                             resources={"metadata": {"path": str(NB_DIR)}})
            try:
                client.execute()
                break
            except RuntimeError as exc:
                # two kernels started at once can race for a port (zmq "Address already in use"), and
                # the kernel dies before its first reply: start it again, twice at most
                if "Kernel died before replying" not in str(exc) or attempt == 2:
                    raise
                log.info("%s: kernel died at start (%s), starting it again", path.name, exc)
        if epilogue:
            nb.cells.pop()
    except nbclient.exceptions.CellExecutionError as exc:
        if exc.ename != "FileNotFoundError":
            raise RuntimeError(f"notebook {path.name} failed at small scale:\n{exc}") from None
        nb = jupytext.read(path)
        _note(nb, f"its data are absent here ({exc.evalue}); see the notebook's first cells for where "
                  "it looks (`$FAIRALLOC_DATA`: see [Real traces](../data.md)).")
        log.info("%s: data absent, shown unexecuted (%s)", path.name, exc.evalue)
    return path, nb, time.perf_counter() - t0


def main() -> None:
    # the kernels inherit this process's environment: small scale, and matplotlib's inline backend
    os.environ["FAIRALLOC_SCALE"] = executed_notebooks.SCALE
    os.environ.pop("MPLBACKEND", None)
    os.environ["FAIRALLOC_DOCS_CLAIMS_JSON"] = str(Path(tempfile.mkdtemp(prefix="fairalloc-docs-")) / "claims.json")
    sources = sorted(NB_DIR.glob("*.py"))
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(_run, sources))
    summary = []
    index = ["# Notebooks", "",
             "Every notebook of `notebooks/`, executed at small scale (`FAIRALLOC_SCALE=small`, the size "
             "the tests use) when this site was built (in CI, by the notebook tests of the same run where "
             "they execute it the same way, from the same sources). Run one at full size with "
             "`FAIRALLOC_SCALE=full jupyter lab notebooks/` (the `.py` files are jupytext notebooks).", ""]
    for path, nb, seconds in results:
        name = path.stem
        with mkdocs_gen_files.open(f"notebooks/{name}.ipynb", "w") as fh:
            nbformat.write(nb, fh)
        mkdocs_gen_files.set_edit_path(f"notebooks/{name}.ipynb", f"../notebooks/{path.name}")
        title = _title(nb)
        summary.append(f"* [{title}]({name}.ipynb)\n")
        index.append(f"- [{title}]({name}.ipynb) (`notebooks/{path.name}`)")
        if seconds:
            log.info("notebook %s executed in %.1f s", path.name, seconds)
    with mkdocs_gen_files.open("notebooks/index.md", "w") as fh:
        fh.write("\n".join(index) + "\n")
    with mkdocs_gen_files.open("notebooks/SUMMARY.md", "w") as fh:
        fh.write("* [Overview](index.md)\n")
        fh.writelines(summary)


main()
