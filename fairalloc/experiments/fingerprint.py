"""The code a sweep cell runs, as one hash: what its key is computed on besides its parameters.

A cell's result is decided by its parameters and by the code that computes it: fairalloc's own
source, the source of a custom cell function or generator (``run:`` / ``generator:`` of the spec),
and the numerical libraries underneath. :func:`code_fingerprint` hashes

* every ``*.py`` file of the ``fairalloc`` package (path and bytes: an edit anywhere, docstrings
  included, gives a new fingerprint; comments and docstrings cannot be told from code without
  parsing every file, which costs seconds at each start);
* the same for the top-level package (or the single module) of each callable named in the spec
  that is not part of fairalloc;
* the installed versions of the libraries results depend on (:data:`DEPENDENCIES`).

**The code this process runs.** Python keeps a module's code from when it was imported, whatever
happens to its file later. So a process hashes each package once, at its first use, and keeps that
hash: the key of a cell is the key of the code that process runs. A file edited after that (a bug
fixed while a notebook is open) is noticed, with a :class:`StaleCodeWarning` saying to restart
Python; a new process (``fairalloc sweep`` again, a restarted kernel, each Dask worker) hashes the
edited files, so its cells get new keys and run again. A worker whose hash differs from the
client's refuses the cell (:func:`~fairalloc.experiments.worker.execute_cell`).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import os
import time
import warnings
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Iterable

from ..errors import FairallocWarning

__all__ = ["code_fingerprint", "package_digest", "DEPENDENCIES", "StaleCodeWarning"]

#: Installed distributions whose versions enter the fingerprint (those absent count as absent).
DEPENDENCIES = ("numpy", "scipy", "pandas", "pyarrow", "numba", "pulp", "highspy", "cvxpy", "ortools",
                "networkx")


class StaleCodeWarning(FairallocWarning):
    """A package's source changed after this process hashed (and imported) it: the process still runs
    the old code, and its cells are keyed on it; restart Python to run the edited code."""


#: root -> (digest, when it was taken, whether a change was reported)
_taken: dict[str, list] = {}


def _files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    return [f for f in sorted(root.rglob("*.py")) if "__pycache__" not in f.parts]


def package_digest(root: str | Path) -> str:
    """SHA-256 over the relative paths and contents of the ``*.py`` files under ``root`` (a
    package's folder) or of ``root`` itself (one module's file).

    Parameters
    ----------
    root : str or Path

    Returns
    -------
    str
        64 hex digits.

    Examples
    --------
    Any byte changed in any file changes the digest:

    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = pathlib.Path(d)
    ...     _ = (p / "a.py").write_text("x = 1\\n")
    ...     before = package_digest(p)
    ...     _ = (p / "a.py").write_text("x = 2\\n")
    ...     after = package_digest(p)
    >>> before != after, len(before)
    (True, 64)
    """
    root = Path(root)
    h = hashlib.sha256()
    for f in _files(root):
        rel = f.name if f == root else f.relative_to(root).as_posix()
        h.update(rel.encode())
        h.update(b"\0")
        h.update(hashlib.sha256(f.read_bytes()).digest())
    return h.hexdigest()


def _digest_taken(top: str, root: Path) -> str:
    """The digest of ``root`` as this process first saw it (module docstring), with a warning when
    its files have changed since."""
    key = str(root)
    entry = _taken.get(key)
    if entry is None:
        t = time.time_ns()
        entry = _taken[key] = [package_digest(root), t, False]
        return entry[0]
    if not entry[2]:
        changed = [f for f in _files(root) if f.stat().st_mtime_ns > entry[1]]
        if changed and package_digest(root) != entry[0]:
            entry[2] = True
            warnings.warn(f"the source of {top} changed after this process loaded it ({changed[0]}"
                          + (f" and {len(changed) - 1} more" if len(changed) > 1 else "") + "): this process "
                          "still runs the code it imported, and its sweep cells are keyed on that code; restart "
                          "Python to run the edited code", StaleCodeWarning, stacklevel=4)
    return entry[0]


def _source_root(module_name: str) -> Path | None:
    """The folder of ``module_name``'s top-level package, or its own file for a top-level module."""
    top = module_name.split(".")[0]
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        locs = list(spec.submodule_search_locations)
        return Path(locs[0]) if locs else None
    return Path(spec.origin) if spec.origin and os.path.isfile(spec.origin) else None


@functools.lru_cache(maxsize=1)
def _versions() -> str:
    out = []
    for name in DEPENDENCIES:
        try:
            out.append(f"{name}={version(name)}")
        except PackageNotFoundError:
            out.append(f"{name}=-")
    return ";".join(out)


def code_fingerprint(callables: Iterable[str] = ()) -> str:
    """16 hex digits identifying the code that decides a cell's result (module docstring).

    Parameters
    ----------
    callables : iterable of str
        ``"package.module:function"`` names the cells call (the spec's ``run`` and a custom
        ``generator``); their top-level packages are hashed too (fairalloc's once).

    Returns
    -------
    str

    Examples
    --------
    >>> fp = code_fingerprint()
    >>> len(fp), fp == code_fingerprint(["fairalloc.experiments.simulation_cell:simulate_cell"])
    (16, True)
    """
    from ..version import __version__

    roots: dict[str, Path | None] = {"fairalloc": Path(__file__).resolve().parents[1]}
    for ref in callables:
        if isinstance(ref, str) and ":" in ref:
            top = ref.partition(":")[0].split(".")[0]
            if top not in roots:
                roots[top] = _source_root(top)
    h = hashlib.sha256(f"fairalloc {__version__}\0{_versions()}".encode())
    for top in sorted(roots):
        root = roots[top]
        h.update(f"\0{top}\0".encode())
        h.update((_digest_taken(top, root) if root is not None and root.exists() else "-").encode())
    return h.hexdigest()[:16]
