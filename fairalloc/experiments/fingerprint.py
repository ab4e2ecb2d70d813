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

A file's hash is kept per process, keyed on its size and modification time, so a fingerprint costs
one ``stat`` per file after the first call (about a millisecond for fairalloc's files) and an edit
made while the process runs is seen.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import os
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Iterable

__all__ = ["code_fingerprint", "package_digest", "DEPENDENCIES"]

#: Installed distributions whose versions enter the fingerprint (those absent count as absent).
DEPENDENCIES = ("numpy", "scipy", "pandas", "pyarrow", "numba", "pulp", "highspy", "cvxpy", "ortools",
                "networkx")

_file_hashes: dict[str, tuple[int, int, str]] = {}


def _file_digest(path: Path) -> str:
    st = path.stat()
    key = str(path)
    hit = _file_hashes.get(key)
    if hit is not None and hit[0] == st.st_size and hit[1] == st.st_mtime_ns:
        return hit[2]
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    _file_hashes[key] = (st.st_size, st.st_mtime_ns, digest)
    return digest


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
    files = [root] if root.is_file() else sorted(root.rglob("*.py"))
    for f in files:
        if "__pycache__" in f.parts:
            continue
        rel = f.name if f == root else f.relative_to(root).as_posix()
        h.update(rel.encode())
        h.update(b"\0")
        h.update(_file_digest(f).encode())
    return h.hexdigest()


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
        h.update((package_digest(root) if root is not None and root.exists() else "-").encode())
    return h.hexdigest()[:16]
