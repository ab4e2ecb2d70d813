"""Run ``fairalloc compare`` as Getting started shows it, and keep its output for that page (gen-files).

The terminal output goes to ``assets/compare-output.txt`` (``hooks.py`` puts it into
``getting-started.md`` in place of the ``<!-- fairalloc compare output -->`` marker) and the figure to
``assets/compare.png``: the page shows what this version of fairalloc prints, not a copy that ages.
``FAIRALLOC_DOCS_EXECUTE=0`` skips the run.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import mkdocs_gen_files

log = logging.getLogger("mkdocs.plugins.fairalloc.compare")


def main() -> None:
    if os.environ.get("FAIRALLOC_DOCS_EXECUTE", "1") == "0":
        text = "(not run in this build: FAIRALLOC_DOCS_EXECUTE=0)"
        png = None
    else:
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            run = subprocess.run([sys.executable, "-m", "fairalloc", "compare", "--no-progress", "--out", tmp],
                                 capture_output=True, text=True, env={**os.environ, "MPLBACKEND": "Agg"})
            if run.returncode != 0:
                raise RuntimeError(f"fairalloc compare failed ({run.returncode}):\n{run.stdout}\n{run.stderr}")
            log.info("fairalloc compare ran in %.1f s", time.perf_counter() - t0)
            text = run.stdout.replace(tmp, "out/compare/YYYYmmdd-HHMMSS").rstrip()   # a run folder
            png = (Path(tmp) / "compare.png").read_bytes()
    with mkdocs_gen_files.open("assets/compare-output.txt", "w") as fh:
        fh.write(text + "\n")
    if png is not None:
        with mkdocs_gen_files.open("assets/compare.png", "wb") as fh:
            fh.write(png)


main()
