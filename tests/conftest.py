"""Shared fixtures and settings for the whole test suite.

* Hypothesis profiles: ``ci`` (default: bounded, derandomised, no deadline), ``ci-newest`` (``ci`` with a
  twelfth of its examples: ``.ci/run``'s second leg), ``dev`` (few examples), ``thorough`` (many
  examples). Pick one with ``HYPOTHESIS_PROFILE=thorough pytest``.
* ``--runslow`` runs tests marked ``slow``.
* ``shared_data`` gives the folder of real traces (``$FAIRALLOC_DATA`` or ``../shared/data`` beside
  the repository) or skips the test with a message saying where it looked.
* Compile warm-up: the whole suite (the README's ``pytest -n auto``, no paths given) on several xdist
  workers with numba's cache empty first fills the cache in one process per worker
  (``tests/_compile_warmup.py``), so that the workers load the compiled cores instead of both compiling
  the same functions at the same time (measured: about half of a cold run's compile CPU was such
  duplicates; ``benchmarks/RESULTS.md``, "CI time"). ``FAIRALLOC_WARMUP=0`` turns it off;
  ``FAIRALLOC_WARMUP=1`` runs it for any selection of tests on several workers.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# The installed packages, imported before pytest prepends test folders to sys.path: tests/unit holds a
# proofs_check/ folder of tests, which under pip's editable-install import hook (a fresh
# `pip install -e .`, no PYTHONPATH) would otherwise shadow the package as an empty namespace package
# whenever a run imports it first after collecting tests/unit (a subset run: "cannot import name
# 'find_profitable_misreport' from 'proofs_check' (unknown location)").
import fairalloc  # noqa: E402,F401
import proofs_check  # noqa: E402,F401
from proofs_check.campaign import load_package_modules  # noqa: E402

# Every module of both packages, before any test draws: hypothesis mixes constants from the source of the
# local modules loaded at the time into its draws, and reads them again when sys.modules grows, so the
# cases a derandomised test or a seeded search saw depended on which modules earlier tests in the same
# worker had imported (proofs_check.campaign's docstring, Reproducibility). With all of them loaded
# first, a seed gives the same cases in any order and on any number of workers, but for the few modules
# tests write to temporary folders and import (a sweep's cell functions, a user's mechanism file), whose
# constants still join when they load.
load_package_modules()

REPO = Path(__file__).resolve().parent.parent

settings.register_profile("ci", max_examples=60, derandomize=True, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
# .ci/run's second leg (the newest Python and packages): every property test still runs, on a twelfth of
# ci's cases (5: each strategy and check is drawn and run there); what that leg checks is that the same code
# runs there, the depth of the searches is the first leg's (the same tests at the ci profile)
settings.register_profile("ci-newest", parent=settings.get_profile("ci"), max_examples=5)
settings.register_profile("dev", max_examples=15, deadline=None)
settings.register_profile("thorough", max_examples=2000, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


_WARMUP: dict = {}


def _numba_cache_empty() -> bool:
    """No numba index file of this Python (``*.py311.nbi``) under fairalloc's ``__pycache__`` folders
    (fairalloc._jit_cache clears them all together when a source changed; ``import fairalloc`` above
    ran that check)."""
    pkg = Path(fairalloc.__file__).resolve().parent
    return not any(pkg.rglob(f"__pycache__/*.py{sys.version_info[0]}{sys.version_info[1]}.nbi"))


def pytest_configure(config):
    """The compile warm-up (module docstring), in xdist's controller before its workers start."""
    mode = os.environ.get("FAIRALLOC_WARMUP", "")
    if mode == "0" or hasattr(config, "workerinput") or config.option.collectonly:
        return
    n = getattr(config.option, "numprocesses", None)        # xdist resolved "auto" to a number by now
    whole = getattr(config, "args_source", None) is getattr(getattr(pytest.Config, "ArgsSource", None), "TESTPATHS", 0)
    if (not isinstance(n, int) or n < 2 or not (whole or mode == "1")
            or os.environ.get("NUMBA_DISABLE_JIT", "0") != "0" or os.environ.get("NUMBA_CACHE_DIR")
            or not _numba_cache_empty()):
        return
    import importlib.util

    spec = importlib.util.spec_from_file_location("_fairalloc_compile_warmup", REPO / "tests" / "_compile_warmup.py")
    warmup = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(warmup)
    share = [list(warmup.GROUPS)[i::n] for i in range(n)]   # heaviest first, dealt out
    t0, c0 = time.perf_counter(), os.times()
    procs = [subprocess.Popen([sys.executable, spec.origin, *names], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, cwd=REPO) for names in share if names]
    failed, groups, errors = [], [], 0
    for p in procs:
        capped = False
        try:
            out = p.communicate(timeout=max(1.0, warmup.CAP_SECONDS - (time.perf_counter() - t0)))[0]
        except subprocess.TimeoutExpired:           # a safety cap: the tests then compile what is missing
            p.kill()
            out = p.communicate()[0] + f"\nstopped by the warm-up's cap of {warmup.CAP_SECONDS} s"
            capped = True
        if p.returncode != 0:
            failed.append(out)
            errors += not capped
        lines = out.strip().splitlines()
        groups.append(lines[-1] if lines else "?")
    c1 = os.times()
    _WARMUP.update(wall=time.perf_counter() - t0, procs=len(procs), failed=failed, groups=groups, errors=errors,
                   cpu=c1.children_user + c1.children_system - c0.children_user - c0.children_system)


def pytest_sessionfinish(session, exitstatus):
    """A warm-up command that failed (an exit status, an exception: not the safety cap, which depends on the
    machine's speed) fails the run: its commands are ``fairalloc`` command lines through the public paths,
    and ``.ci/run``'s second leg counts on them to run the compiled entry points on the newest Python."""
    if _WARMUP.get("errors") and exitstatus == 0 and not hasattr(session.config, "workerinput"):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_report_header(config):
    if _WARMUP:
        return (f"numba cache was empty: compile warm-up in {_WARMUP['procs']} processes, {_WARMUP['wall']:.0f} s "
                f"wall, {_WARMUP['cpu']:.0f} CPU s (" + "; ".join(_WARMUP["groups"]) + ")"
                + (" (FAILED: see the end of this report)" if _WARMUP["failed"] else ""))
    return None


def pytest_terminal_summary(terminalreporter):
    for out in _WARMUP.get("failed", ()):
        terminalreporter.write_sep("=", "compile warm-up failed (the tests ran without it; a command that failed, "
                                   "not the safety cap, fails the run)", red=True)
        terminalreporter.write_line(out[-4000:])


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="also run tests marked slow")


#: Tests that hold one worker for a long time (CI's ``--durations``): collected first, longest first, so that
#: with ``-n 2`` the other worker runs the rest of the suite beside them instead of one worker finishing them
#: alone at the end (the greedy longest-first schedule on two machines). Only the order changes: every test
#: is independent of the others.
FIRST = ("tests/integration/test_notebook_axioms.py",
         "tests/integration/test_check_cli.py::test_all_on_the_sweep_runner_matches_and_resumes",
         "tests/integration/test_notebook",
         "tests/unit/experiments/test_sweep.py::test_local_cluster_same_rows_workload_built_once_per_worker")


def _first_rank(item) -> int:
    return next((k for k, prefix in enumerate(FIRST) if item.nodeid.startswith(prefix)), len(FIRST))


def pytest_collection_modifyitems(config, items):
    items[:] = sorted(items, key=_first_rank)       # stable: the rest keeps the collection order
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def data_dir() -> Path | None:
    """The real-trace folder, or None when it is absent."""
    env = os.environ.get("FAIRALLOC_DATA")
    candidates = [Path(env)] if env else []
    candidates.append(REPO.parent / "shared" / "data")
    for c in candidates:
        if c.is_dir():
            return c
    return None


@pytest.fixture(scope="session")
def shared_data() -> Path:
    d = data_dir()
    if d is None:
        pytest.skip("real traces not found: set $FAIRALLOC_DATA or place ../shared/data beside the repository")
    return d


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO
