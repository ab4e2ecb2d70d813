"""Shared fixtures and settings for the whole test suite.

* Hypothesis profiles: ``ci`` (default: bounded, derandomised, no deadline), ``dev`` (few examples),
  ``thorough`` (many examples). Pick one with ``HYPOTHESIS_PROFILE=thorough pytest``.
* ``--runslow`` runs tests marked ``slow``.
* ``shared_data`` gives the folder of real traces (``$FAIRALLOC_DATA`` or ``../shared/data`` beside
  the repository) or skips the test with a message saying where it looked.
"""

from __future__ import annotations

import os
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

REPO = Path(__file__).resolve().parent.parent

settings.register_profile("ci", max_examples=60, derandomize=True, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=15, deadline=None)
settings.register_profile("thorough", max_examples=2000, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="also run tests marked slow")


def pytest_collection_modifyitems(config, items):
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
