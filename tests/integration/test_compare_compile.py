"""``fairalloc compare --compile`` (issue 32): the ``fairalloc`` command runs the greedy schedulers as plain
Python (no numba compile on a machine's first run); code that calls ``fairalloc.cli.main`` keeps compiling.

What is checked is what numba itself reports (its ``DISABLE_JIT`` setting, the objects fairalloc's marked
functions became, the files of its cache), not only the flag compare prints. That the plain and the compiled
schedulers give the same rows is one source run two ways (``fairalloc._jit``); it was measured on the 189
default rows (benchmarks/RESULTS.md, issue 32), not pinned here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from fairalloc.cli import compare as compare_cli

ARGV = ["compare", "--no-builtin", "--random", "1", "--random-tv", "0", "--no-pareto", "--no-progress"]


def _probe(entry: str, extra: list[str], tmp_path) -> dict:
    out = tmp_path / "out"
    code = (f"import json, sys\nfrom fairalloc.cli import {entry}\nfrom fairalloc import _jit\n"
            f"rc = {entry}({ARGV + extra + ['--out', str(out), '--json', str(tmp_path / 'r.json')]!r})\n"
            "import numba, numba.extending\n"
            "mods = [m for n, m in list(sys.modules.items()) if m is not None and n.startswith('fairalloc.')]\n"
            "jitted = sorted({f'{m.__name__}.{a}' for m in mods for a, v in list(vars(m).items())\n"
            "                 if numba.extending.is_jitted(v)})\n"
            "print(json.dumps({'rc': rc, 'disable_jit': bool(numba.config.DISABLE_JIT), 'ready': _jit._READY,\n"
            "                  'jitted': jitted}))")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "cache")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout.strip().splitlines()[-1])
    got["reported"] = json.loads((tmp_path / "r.json").read_text())["compiled"]
    got["cache_files"] = sum(len(f) for _, _, f in os.walk(tmp_path / "cache"))
    return got


def test_the_fairalloc_command_runs_the_schedulers_as_python(tmp_path):
    got = _probe("console", [], tmp_path)
    assert got["rc"] == 0
    assert got["disable_jit"] and got["reported"] is False
    assert got["ready"] and got["jitted"] == []         # the schedulers ran, and no fairalloc name is a numba dispatcher
    assert got["cache_files"] == 0                      # nothing compiled, nothing written to numba's cache


def test_main_inside_a_program_leaves_the_process_compiling(monkeypatch):
    # auto from fairalloc.cli.main (not the fairalloc command) must not turn numba off for the caller's process
    monkeypatch.delenv("NUMBA_DISABLE_JIT", raising=False)
    before = dict(os.environ)
    compare_cli._compile_schedulers("auto")
    assert os.environ.get("NUMBA_DISABLE_JIT") is None and dict(os.environ) == before
