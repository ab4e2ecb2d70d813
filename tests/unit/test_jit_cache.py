"""numba's cache of compiled code follows the sources (fairalloc._jit_cache).

numba keys a cached function on its own file only (its documentation: "cache invalidation fails to
recognize changes in symbols defined in another file"; globals are frozen at compile time).
fairalloc's compiled cores call across files, so fairalloc clears the caches of every file compiled
code can reach when one of them changes. The expected values below are what the toy functions return
by reading their source."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from fairalloc import _jit_cache


def test_the_sources_compiled_code_reaches():
    names = {p.relative_to(_jit_cache._ROOT).as_posix() for p in _jit_cache.sources()}
    # the compiled cores and what they call or read (sim.kernels -> scheduling.core -> keys -> shares, ...)
    assert {"scheduling/core.py", "scheduling/keys.py", "scheduling/servers.py", "sim/kernels.py",
            "sim/policies/easy.py", "kinetic/tree_core.py", "shares.py", "commitments.py", "tolerance.py",
            "_jit.py"} <= names
    # not the facade nor the command line: editing them does not cost a recompilation
    assert not names & {"__init__.py", "cli/__init__.py", "cli/compare.py", "experiments/compare.py"}


def _run(tmp_path) -> str:
    code = "import sys; sys.path.insert(0, sys.argv[1]); import pkg.user; print(pkg.user.g())"
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_an_edit_in_another_file_reaches_the_cached_caller(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "consts.py").write_text("K = 1\n")
    (pkg / "core.py").write_text(textwrap.dedent("""
        from numba import njit
        from .consts import K

        @njit(cache=True)
        def f():
            return K
        """))
    (pkg / "user.py").write_text(textwrap.dedent("""
        from numba import njit
        from .core import f

        @njit(cache=True)
        def g():
            return f() + 10
        """))
    assert {p.name for p in _jit_cache.sources(pkg)} == {"consts.py", "core.py", "user.py"}
    assert _jit_cache.check(pkg) == 0                                   # no caches yet: nothing to clear
    assert _run(tmp_path) == "11"                                       # g() = K + 10 with K = 1
    assert list((pkg / "__pycache__").glob("user.g-*.nbi"))             # numba cached g beside the source
    (pkg / "consts.py").write_text("K = 2\n")                           # neither core.py nor user.py changes
    st = (pkg / "consts.py").stat()         # dated 2 s later, as an edit by hand would be: Python's bytecode
    os.utime(pkg / "consts.py", ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))   # cache checks whole seconds
    assert _jit_cache.check(pkg) >= 2                                   # f's and g's cache files removed
    assert _run(tmp_path) == "12"                                       # K = 2 reaches g
    assert _jit_cache.check(pkg) == 0                                   # the stamp matches: nothing to do
