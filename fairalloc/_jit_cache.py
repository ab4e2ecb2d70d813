"""Keep numba's on-disk cache of fairalloc's compiled code in step with the sources.

fairalloc compiles its scheduling cores with ``numba.njit(cache=True)``: the first run on a machine
compiles them (about 35 CPU seconds), later runs load the compiled code from the cache, next to the
sources in ``__pycache__`` (``*.nbi`` index and ``*.nbc`` code files; with ``NUMBA_CACHE_DIR`` set, or
when that folder is not writable, numba's own fallbacks). numba keys each function's cache on its own
source file only; its documentation lists as a limitation that "cache invalidation fails to recognize
changes in symbols defined in another file" and that global variables are frozen at compile time.
fairalloc's cores call across files (``scheduling.core`` compiles functions of ``scheduling.keys``,
``scheduling.servers``, ``kinetic.tree_core``, ``commitments`` and ``shares``, and reads
``tolerance.FLOOR_EPS``): after an edit of ``shares.py`` or ``keys.py`` (a fix, a ``git pull``, an
upgrade in place), the cached ``scheduling.core`` would keep running the old code, silently.

:func:`check` closes that gap. The sources compiled code can reach are the modules that use
``njit`` and, transitively, the fairalloc modules they import (read with :mod:`ast`, nothing is
imported). A stamp beside the caches (``fairalloc/__pycache__/jit-sources.json``) records their
content hash; when the hash changes, the cache files of those modules in their ``__pycache__``
folders are removed (numba's documented way to clear a cache) and numba compiles again. The usual
call costs one small file read and one ``stat`` per source file (fairalloc's import runs it); the
hash is computed only when a file's size or modification time moved.

Not covered: caches that ``NUMBA_CACHE_DIR`` or numba's user-wide fallback place elsewhere (clear
that folder after changing fairalloc's sources).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

__all__ = ["check", "sources", "STAMP"]

#: The stamp file, in the package's ``__pycache__`` folder.
STAMP = "jit-sources.json"
_ROOT = Path(__file__).resolve().parent


def _module_file(root: Path, dotted: str) -> Path | None:
    p = root.parent.joinpath(*dotted.split("."))
    for cand in (p.with_suffix(".py"), p / "__init__.py"):
        if cand.is_file():
            return cand
    return None


def _imports(root: Path, path: Path) -> list[Path]:
    """The package's own modules that ``path`` imports (relative or absolute), as files."""
    import ast

    package = list(path.relative_to(root.parent).with_suffix("").parts)[:-1]
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_bytes(), filename=str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1] + (node.module.split(".") if node.module else [])
            elif (node.module or "").split(".")[0] == root.name:
                base = node.module.split(".")
            else:
                continue
            subs = [".".join(base + [a.name]) for a in node.names]
            names += subs
            if not all(_module_file(root, s) for s in subs):   # names defined in the module (or package) itself
                names.append(".".join(base))
        elif isinstance(node, ast.Import):
            names += [a.name for a in node.names if a.name.split(".")[0] == root.name]
    return [f for f in (_module_file(root, n) for n in names) if f is not None]


def _compiles(path: Path) -> bool:
    """Does the module compile code: call ``njit`` / ``jit`` (as a decorator or a function), or import numba?"""
    import ast

    for node in ast.walk(ast.parse(path.read_bytes(), filename=str(path))):
        if isinstance(node, ast.Call):
            f = node.func
            if (isinstance(f, ast.Name) and f.id in ("njit", "jit")) or (isinstance(f, ast.Attribute)
                                                                          and f.attr in ("njit", "jit")):
                return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if any(isinstance(d, ast.Name) and d.id in ("njit", "jit") for d in node.decorator_list):
                return True
        if isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] == "numba":
            return True
    return False


def sources(root: str | Path = _ROOT) -> list[Path]:
    """The source files compiled code of the package ``root`` can reach: the modules that compile code
    (call ``njit``) and, transitively, the package's modules they import. Sorted.

    Examples
    --------
    >>> names = [p.relative_to(_ROOT).as_posix() for p in sources()]
    >>> {"shares.py", "scheduling/core.py", "kinetic/tree_core.py"} <= set(names), "cli/__init__.py" in names
    (True, False)
    """
    root = Path(root).resolve()
    todo = [p for p in root.rglob("*.py") if b"jit" in p.read_bytes() and _compiles(p)]
    seen: set[Path] = set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        todo += [q for q in _imports(root, p) if q not in seen]
    return sorted(seen)


def _stats(root: Path, files: list[Path]) -> dict[str, list[int]]:
    out = {}
    for f in files:
        st = f.stat()
        out[f.relative_to(root).as_posix()] = [st.st_mtime_ns, st.st_size]
    return out


def _digest(root: Path, files: list[Path]) -> str:
    import hashlib

    h = hashlib.sha256()
    for f in files:
        h.update(f.relative_to(root).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def _clear(files: list[Path]) -> int:
    """Remove the numba cache files of these modules from their ``__pycache__`` folders; how many."""
    removed = 0
    for f in files:
        cache = f.parent / "__pycache__"
        if not cache.is_dir():
            continue
        for c in cache.iterdir():
            if c.suffix in (".nbi", ".nbc") and c.name.startswith(f.stem + "."):
                try:
                    c.unlink()
                    removed += 1
                except OSError:
                    pass
    return removed


def check(root: str | Path = _ROOT) -> int:
    """Remove the cached compiled code of ``root``'s modules when their sources changed (module docstring).

    Returns
    -------
    int
        The number of cache files removed (0: the caches match the sources, or there were none).

    Examples
    --------
    >>> check() >= 0
    True
    """
    base = os.fspath(root)
    try:                                # the usual case, kept cheap: the stamp and one stat per source
        with open(os.path.join(base, "__pycache__", STAMP), encoding="utf-8") as fh:
            stamp = json.load(fh)
        if all([(st := os.stat(os.path.join(base, name))).st_mtime_ns, st.st_size] == list(v)
               for name, v in stamp["files"].items()):
            return 0
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        stamp = {}
    root = Path(root).resolve()
    stamp_path = root / "__pycache__" / STAMP
    files = sources(root)
    digest = _digest(root, files)
    removed = 0 if stamp.get("sha256") == digest else _clear(files)
    try:
        stamp_path.parent.mkdir(exist_ok=True)
        tmp = stamp_path.with_name(f"{STAMP}.{os.getpid()}")
        tmp.write_text(json.dumps({"sha256": digest, "files": _stats(root, files)}, indent=1), encoding="utf-8")
        os.replace(tmp, stamp_path)
    except OSError:             # a read-only installation: numba then caches elsewhere (module docstring)
        pass
    return removed
