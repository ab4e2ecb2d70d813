"""Generate the API reference pages from the packages' ``__all__`` at build time (mkdocs-gen-files).

One page per public package or module that declares ``__all__``: ``fairalloc`` and every public
subpackage of it, ``proofs_check`` and every public module of it. A page documents each name of its
``__all__`` with mkdocstrings (from the numpydoc docstrings), grouped by the module that defines it.
An object already documented on an earlier page (the same function re-exported, e.g.
``fairalloc.mechanisms.drf`` is ``fairalloc.drf``) is listed with a link instead of a second copy.
Names added to or renamed in an ``__all__`` appear without editing the docs.

Which pages and names there are is decided by ``reference_names.py`` (shared with
``tests/test_docstrings.py``, which checks each documented name's docstring).

Objects are rendered from their defining module (``fairalloc.mechanisms.drf.drf``) under the public
name as heading, and the public name (``fairalloc.drf``) is registered as a link target too.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
import types
from pathlib import Path

import griffe
import mkdocs_gen_files

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference_names import ROOTS, public_modules, reference_entries  # shared with the tests
#: modules without ``__all__`` members that are reference in their own right (file formats)
FORMAT_MODULES = ("fairalloc.io", "fairalloc.exact.files")

nav = mkdocs_gen_files.Nav()
_griffe = {root: griffe.load(root, docstring_parser="numpy", extensions=griffe.load_extensions(
    "docs/_scripts/griffe_rst.py:UnpackedConstants")) for root in ROOTS}


def _static(path: str) -> bool:
    """Whether griffe finds ``path`` by reading the source (names bound by tuple unpacking it does not)."""
    root, _, rest = path.partition(".")
    try:
        _griffe[root][rest] if rest else _griffe[root]
    except (KeyError, griffe.AliasResolutionError, griffe.CyclicAliasError):
        return False
    return True

def _canonical(obj, fallback: str) -> str:
    """The path where ``obj`` is defined (what griffe resolves statically), else ``fallback``."""
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    mod, qual = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if (inspect.isfunction(obj) or inspect.isclass(obj)) and mod and qual and "<" not in qual:
        return f"{mod}.{qual}"
    return fallback


def _summary(obj) -> str:
    """The first paragraph of a docstring, on one line, its reStructuredText roles as code."""
    text = (inspect.getdoc(obj) or "").split("\n\n")[0].replace("\n", " ")
    text = re.sub(r":(?:math|func|class|mod|meth|attr|data|obj):`~?([^`]+)`", r"`\1`", text)
    return re.sub(r"``([^`]+)``", r"`\1`", text)


def _defined_in(obj, module: str) -> str:
    if isinstance(obj, types.ModuleType):
        return "modules"
    mod = getattr(obj, "__module__", None) if (inspect.isfunction(obj) or inspect.isclass(obj)) else None
    return mod or module


def _entry(public: str, obj) -> str:
    canonical = _canonical(obj, public)
    short = public.rsplit(".", 1)[-1]
    if isinstance(obj, types.ModuleType):
        summary = _summary(obj)
        if canonical in _page_modules:
            return f"- [`{public}`]({canonical}.md): {summary}\n"
        return (f"::: {canonical}\n    options:\n      heading: \"{public}\"\n      toc_label: \"{short}\"\n"
                f"      members: false\n\n")
    anchor = f"[](){{#{public}}}\n\n" if canonical != public else ""
    if not _static(canonical):     # e.g. ``COMPLETION, ARRIVAL, WAKEUP = 0, 1, 2``: show the value
        return f"[](){{#{public}}}\n\n## `{public}`\n\n`{short} = {obj!r}`\n\n"
    return (f"{anchor}::: {canonical}\n    options:\n      heading: \"{public}\"\n"
            f"      toc_label: \"{short}\"\n\n")


def _page(module: str) -> str:
    lines = [f"# `{module}`", "", f"::: {module}", "    options:", "      members: false",
             "      show_root_heading: false", "      show_root_toc_entry: false", ""]
    groups: dict[str, list[tuple[str, object]]] = {}
    links: list[str] = []
    for e in _entries.get(module, ()):
        if not e.primary:
            links.append(f"- `{e.public}`: the same object as [`{e.first}`][{e.first}]")
            continue
        groups.setdefault(_defined_in(e.obj, module), []).append((e.public, e.obj))
    for where, items in groups.items():
        if len(groups) > 1:
            title = "Submodules" if where == "modules" else f"From `{where}`"
            lines += [f"## {title}", ""]
        for public, obj in items:
            lines.append(_entry(public, obj))
    if links:
        lines += ["## Documented elsewhere", "", *links, ""]
    return "\n".join(lines)


_entries: dict[str, list] = {}
for _e in reference_entries(ROOTS):
    _entries.setdefault(_e.page, []).append(_e)

_page_modules: set[str] = set()
for root in ROOTS:
    _page_modules.update(public_modules(root))

index = ["# API reference", "",
         "Generated at build time from the packages' `__all__` and the numpydoc docstrings "
         "(the one source of API prose). One page per package or module that declares `__all__`.", ""]
for root in ROOTS:
    index += [f"## `{root}` {{ #package-{root} }}", ""]
    for module in public_modules(root):
        path = f"reference/{module}.md"
        with mkdocs_gen_files.open(path, "w") as fh:
            fh.write(_page(module))
        parts = tuple(module.split("."))
        nav[parts] = f"{module}.md"
        summary = _summary(importlib.import_module(module))
        index.append(f"- [`{module}`]({module}.md): {summary}")
    index.append("")

index += ["## File formats", ""]
for module in FORMAT_MODULES:
    try:
        importlib.import_module(module)
    except ImportError:
        continue
    path = f"reference/{module}.md"
    with mkdocs_gen_files.open(path, "w") as fh:
        fh.write(f"# `{module}`\n\n::: {module}\n    options:\n      show_root_heading: false\n"
                 f"      show_root_toc_entry: false\n      members: false\n")
    nav[("File formats", module)] = f"{module}.md"
    index.append(f"- [`{module}`]({module}.md)")

with mkdocs_gen_files.open("reference/index.md", "w") as fh:
    fh.write("\n".join(index) + "\n")
with mkdocs_gen_files.open("reference/SUMMARY.md", "w") as fh:
    fh.write("* [Overview](index.md)\n")
    fh.writelines(nav.build_literate_nav())
