"""Which modules and names the API reference documents (shared by ``gen_reference.py`` and the tests).

No MkDocs dependency: ``tests/test_docstrings.py`` imports this file by path to check, per name the
reference renders, that its docstring is complete.

* :func:`public_modules` gives the pages of a root package, in page order.
* :func:`reference_entries` walks every page's ``__all__`` in that order and tells, per name, whether
  it is documented there (its *primary* entry) or only linked to an earlier page's entry (the same
  function or class re-exported, e.g. ``fairalloc.mechanisms.drf`` is ``fairalloc.drf``).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import types
from dataclasses import dataclass

ROOTS = ("fairalloc", "proofs_check")


def public_modules(root: str) -> list[str]:
    """The pages of ``root``: the root, its public modules and subpackages one level down that declare
    ``__all__`` (packages first), and every module named in a page's ``__all__`` (e.g. the submodules
    listed by ``fairalloc.plots``), in that order."""
    pkg = importlib.import_module(root)
    packages, modules = [], []
    for info in pkgutil.iter_modules(pkg.__path__, root + "."):
        if info.name.rsplit(".", 1)[-1].startswith("_"):
            continue
        mod = importlib.import_module(info.name)
        if getattr(mod, "__all__", None) is not None:
            (packages if info.ispkg else modules).append(info.name)
    out = [root, *packages, *modules]
    i = 0
    while i < len(out):
        mod = importlib.import_module(out[i])
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name, None)
            if isinstance(obj, types.ModuleType) and obj.__name__ not in out and obj.__name__.startswith(root):
                out.append(obj.__name__)
        i += 1
    return out


def reusable(obj) -> bool:
    """Objects documented once and linked from later pages (functions, classes, modules)."""
    return inspect.isfunction(obj) or inspect.isclass(obj) or isinstance(obj, types.ModuleType)


@dataclass(frozen=True)
class Entry:
    """One name of one page's ``__all__``.

    ``public`` is ``page + "." + name``; ``primary`` is False when an earlier page already documents
    the same object (``first`` is that entry's public name; ``first == public`` when primary).
    """

    page: str
    name: str
    public: str
    obj: object
    primary: bool
    first: str


def reference_entries(roots: tuple[str, ...] = ROOTS) -> list[Entry]:
    """Every name of every reference page, in the order the reference renders them."""
    documented: dict[int, str] = {}
    out: list[Entry] = []
    for root in roots:
        for module in public_modules(root):
            mod = importlib.import_module(module)
            for name in mod.__all__:
                obj = getattr(mod, name)
                public = f"{module}.{name}"
                if reusable(obj) and id(obj) in documented:
                    out.append(Entry(module, name, public, obj, False, documented[id(obj)]))
                    continue
                if reusable(obj):
                    documented[id(obj)] = public
                out.append(Entry(module, name, public, obj, True, public))
    return out
