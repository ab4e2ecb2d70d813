"""Griffe extension: read fairalloc's numpydoc docstrings (reStructuredText markup) as Markdown.

The docstrings are the one source of API prose and are written for numpydoc / Sphinx. mkdocstrings
renders docstring text as Markdown, so this extension rewrites the reStructuredText markup it meets,
in the docstring text only, before rendering:

* ``:math:`x``` -> ``\\(x\\)`` and ``.. math::`` blocks -> ``\\[ ... \\]`` (typeset by MathJax);
* ``:func:`a.b``` / ``:class:`` / ``:mod:`` / ``:meth:`` / ``:attr:`` / ``:data:`` / ``:obj:`` ->
  a cross-reference to the documented object when the name resolves, else plain code;
* ``` ``code`` ``` -> `` `code` ``; a paragraph ending in ``::`` -> ``:`` (its indented block is a
  code block in Markdown too);
* citations ``[1]_`` -> ``[1]`` and the ``.. [1]`` lines of a References section -> a list.

Nothing in the package changes: the extension rewrites the text griffe holds for rendering.
"""

from __future__ import annotations

import re

import griffe

_ROOTS = ("fairalloc", "proofs_check")
_ROLE = re.compile(r":(?:py:)?(func|class|mod|meth|attr|data|obj|exc|const)?:`~?([^`]+)`")
_MATH_ROLE = re.compile(r":math:`([^`]+)`")
_LITERAL = re.compile(r"``([^`]+)``")
_CITE = re.compile(r"\[(\w+)\]_")
_REF_DEF = re.compile(r"^(\s*)\.\. \[(\w+)\]\s*(.*)$")
_MATH_BLOCK = re.compile(r"^(\s*)\.\. math::\s*(.*)$")


def _math_blocks(text: str) -> str:
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = _MATH_BLOCK.match(lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        indent, first = m.group(1), m.group(2).strip()
        body = [first] if first else []
        i += 1
        while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > len(indent)):
            body.append(lines[i].strip())
            i += 1
        body = [b for b in body if b]
        out += [f"{indent}\\[", *[f"{indent}{b}" for b in body], f"{indent}\\]", ""]
    return "\n".join(out)


def _fence_doctests(text: str) -> str:
    """Put ``>>>`` sessions written outside an Examples section into ```` ```pycon ```` fences (griffe
    reads the Examples section's sessions itself; elsewhere Markdown would read ``[1, 2]`` as a link)."""
    lines = text.splitlines()
    out: list[str] = []
    in_examples = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if i + 1 < len(lines) and set(lines[i + 1].strip()) == {"-"} and line.strip():
            in_examples = line.strip() == "Examples"
        if not in_examples and line.lstrip().startswith(">>>"):
            indent = line[:len(line) - len(line.lstrip())]
            out.append(f"{indent}```pycon")
            while i < len(lines) and lines[i].strip():
                out.append(lines[i])
                i += 1
            out += [f"{indent}```", ""]
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


def _references(text: str) -> str:
    out = []
    for line in text.splitlines():
        m = _REF_DEF.match(line)
        out.append(f"{m.group(1)}- [{m.group(2)}] {m.group(3)}" if m else line)
    return "\n".join(out)


def _roles(text: str, scope: str) -> str:
    def role(m: re.Match) -> str:
        name = m.group(2).strip()
        if "<" in name and name.endswith(">"):          # :func:`title <target>`
            name = name[name.index("<") + 1:-1].strip()
        shown = name.rsplit(".", 1)[-1] if m.group(0).startswith(":") and "~" in m.group(0) else name
        target = name.lstrip(".")
        if target.endswith("()"):
            target = target[:-2]
        # optional autoref: a link when the target is documented, plain code otherwise (no warning)
        if not target.startswith(_ROOTS):
            target = f"{scope}.{target}"
        return f'<autoref identifier="{target}" optional><code>{shown}</code></autoref>'

    return _ROLE.sub(role, text)


def _convert(text: str, scope: str) -> str:
    text = _math_blocks(text)
    text = _MATH_ROLE.sub(lambda m: "\\(" + m.group(1) + "\\)", text)
    text = _roles(text, scope)
    text = _LITERAL.sub(r"`\1`", text)
    text = _CITE.sub(r"[\1]", text)
    text = _references(text)
    text = re.sub(r"(\S)::[ \t]*$", r"\1:", text, flags=re.M)
    text = re.sub(r"^(\s*)::[ \t]*$", r"\1", text, flags=re.M)
    return _fence_doctests(text)


class RstToMarkdown(griffe.Extension):
    """Rewrite the reStructuredText markup of every docstring griffe loads (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self._done: set[str] = set()

    def _fix(self, obj) -> None:
        if obj.docstring is None or obj.path in self._done:
            return
        self._done.add(obj.path)
        scope = obj.path if obj.is_module else obj.module.path
        obj.docstring.value = _convert(obj.docstring.value, scope)

    def on_object(self, *, obj, **kwargs) -> None:  # griffe >= 1.x: every object, loaded statically or not
        self._fix(obj)

    def on_package(self, *, pkg, **kwargs) -> None:  # the top-level package is not an "object" event
        self._fix(pkg)


class UnpackedConstants(griffe.Extension):
    """Make names of a module's ``__all__`` that static analysis misses visible to griffe.

    ``COMPLETION, ARRIVAL, WAKEUP = 0, 1, 2`` binds three constants that griffe, reading the source,
    does not see. For each name of the runtime ``__all__`` that is missing and is plain data (not a
    function, class or module, which griffe finds where they are defined), an attribute with the
    runtime value is added, so the reference can document it.
    """

    def on_module_members(self, *, mod, **kwargs) -> None:
        import importlib
        import inspect
        import types

        if mod.path.endswith("__main__"):   # importing it would run the program
            return
        try:
            runtime = importlib.import_module(mod.path)
        except Exception:  # noqa: BLE001 - a module that does not import is documented from source alone
            return
        for name in getattr(runtime, "__all__", ()):
            if name in mod.members or not hasattr(runtime, name):
                continue
            value = getattr(runtime, name)
            if inspect.isfunction(value) or inspect.isclass(value) or isinstance(value, types.ModuleType):
                continue
            mod.set_member(name, griffe.Attribute(name, value=repr(value), lineno=0, endlineno=0))
