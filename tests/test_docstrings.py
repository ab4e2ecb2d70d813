"""Every function and class the API reference documents has a reference-quality numpydoc docstring.

The names are exactly those ``docs/_scripts/gen_reference.py`` renders: both use
``docs/_scripts/reference_names.py`` (imported here by path), which walks every reference page's
``__all__`` and marks where each object is documented (its first page; later pages only link to it).
Per documented function or class, parametrised so that a failure names the object:

* a one-line summary (the docstring's first line, written for this object: not missing, not the
  ``Name(field, ...)`` text a dataclass or namedtuple gets by default);
* a ``Parameters`` section when the callable takes parameters; a class may give its constructor's
  parameters as ``Parameters`` or describe its fields as ``Attributes``;
* an ``Examples`` section with at least one ``>>>`` line (``pytest --doctest-modules`` runs it).

Sections are numpydoc headers: the section name on its own line, underlined with dashes. Constants
and submodules listed in an ``__all__`` are documented by a ``#:`` comment or their module
docstring; of those, only the pages' modules are checked here (a summary line).

Run the part of one package with ``pytest tests/test_docstrings.py -k proofs_check``.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "docs" / "_scripts"))
from reference_names import ROOTS, public_modules, reference_entries

ENTRIES = reference_entries(ROOTS)
DOCUMENTED = [e for e in ENTRIES if e.primary and (inspect.isfunction(e.obj) or inspect.isclass(e.obj))]
PAGES = [m for root in ROOTS for m in public_modules(root)]

_HEADER = re.compile(r"^(?P<name>[A-Z][A-Za-z ]+)\n(?P<rule>-{3,})[ \t]*$", re.MULTILINE)


def own_docstring(obj) -> str:
    """The docstring written for ``obj`` itself (a class does not inherit its base's), cleaned."""
    doc = obj.__dict__.get("__doc__") if inspect.isclass(obj) else obj.__doc__
    return inspect.cleandoc(doc) if isinstance(doc, str) else ""


def sections(doc: str) -> dict[str, str]:
    """numpydoc sections of ``doc``: header name -> the text up to the next header."""
    heads = [m for m in _HEADER.finditer(doc) if len(m["rule"]) >= len(m["name"].strip()) - 1]
    return {m["name"].strip(): doc[m.end():heads[i + 1].start() if i + 1 < len(heads) else len(doc)]
            for i, m in enumerate(heads)}


def takes_parameters(obj) -> bool:
    """Whether calling ``obj`` (a function, or a class's constructor) takes any argument.

    A class whose constructor has no Python signature (an exception class inheriting
    ``BaseException.__init__(*args)``) takes arguments.
    """
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return True
    return len(sig.parameters) > 0


def problems(obj) -> list[str]:
    """What the docstring of ``obj`` lacks (empty when complete)."""
    doc = own_docstring(obj)
    if not doc.strip():
        return ["no docstring"]
    out = []
    summary = doc.strip().splitlines()[0].strip()
    if inspect.isclass(obj) and re.fullmatch(rf"{re.escape(obj.__name__)}\(.*\)?", summary):
        out.append(f"no summary line (only the generated {summary[:40]!r})")
    if _HEADER.match(doc):
        out.append("no summary line (the docstring opens with a section)")
    secs = sections(doc)
    if takes_parameters(obj):
        wanted = ("Parameters", "Attributes") if inspect.isclass(obj) else ("Parameters",)
        if not any(s in secs for s in wanted):
            out.append(f"no {' or '.join(wanted)} section")
    if "Examples" not in secs:
        out.append("no Examples section")
    elif not re.search(r"^\s*>>> ", secs["Examples"], re.MULTILINE):
        out.append("an Examples section without a '>>>' line")
    return out


def test_enumeration_is_the_reference():
    """The checked names are the reference's: each page is listed, each link points at a documented entry."""
    primary = {e.public for e in ENTRIES if e.primary}
    assert {e.page for e in ENTRIES} <= set(PAGES)
    assert "proofs_check.campaign" in PAGES and "fairalloc.shares" in PAGES
    for e in ENTRIES:
        assert e.primary or e.first in primary, e
        assert getattr(importlib.import_module(e.page), e.name) is e.obj
    assert len(DOCUMENTED) == len({id(e.obj) for e in DOCUMENTED})


@pytest.mark.parametrize("entry", DOCUMENTED, ids=[e.public for e in DOCUMENTED])
def test_docstring_is_complete(entry):
    missing = problems(entry.obj)
    assert not missing, f"{entry.public} ({entry.obj.__module__}): " + "; ".join(missing)


@pytest.mark.parametrize("module", PAGES)
def test_page_module_has_summary(module):
    doc = importlib.import_module(module).__doc__ or ""
    assert doc.strip(), f"module {module} has no docstring (its reference page opens with it)"


def _f(a):
    """Summary.

    Parameters
    ----------
    a : int

    Examples
    --------
    >>> _f(1)
    """


def _g():
    """Summary.

    Example: ``_g()``, not a section.
    """


class _C:
    """Summary.

    Attributes
    ----------
    x : int

    Examples
    --------
    Text only.
    """

    def __init__(self, x):
        self.x = x


class _E(Exception):
    """Summary."""


def test_checker_on_known_docstrings():
    """The checker itself, on docstrings whose verdict is known by reading them."""
    assert problems(_f) == []
    assert problems(_g) == ["no Examples section"]
    assert problems(_C) == ["an Examples section without a '>>>' line"]
    assert problems(_E) == ["no Parameters or Attributes section", "no Examples section"]
    assert problems(lambda: None) == ["no docstring"]
    assert sections(_f.__doc__ and inspect.cleandoc(_f.__doc__)).keys() == {"Parameters", "Examples"}
