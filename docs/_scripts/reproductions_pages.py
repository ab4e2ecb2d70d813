"""Markdown of the Reproductions pages from stored reproduction runs (no MkDocs dependency).

A reproduction run whose results the docs show is stored as ``docs/reproductions/results/<spec>/``:
its ``report.md`` (written by ``fairalloc reproduce``), the PNG figures the report shows, and a
``provenance.json`` (``command``, ``commit``, ``date``, ``scale``, ``machine``, ``wall_seconds``).
``gen_reproductions.py`` calls these functions during the build; ``tests/test_docs_reproductions.py``
calls them on a folder made in a temporary directory.

* :func:`stored_results` reads every stored folder.
* :func:`spec_page` is one spec's page: the provenance box, then the report (its claims table:
  paper, ours, reproduced, reason) with its figures inline (links rewritten to where the page
  copies them: ``<spec>/<file>``).
* :func:`status_table` is the index's table: every shipped spec, whether results are stored (at
  which scale, from which commit) or "not run yet", and the command that regenerates them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

PROVENANCE_KEYS = ("command", "commit", "date", "scale", "subset", "machine", "wall_seconds")
FIGURE_SUFFIXES = (".png", ".svg", ".jpg", ".jpeg")
#: Where the docs keep stored runs, relative to the docs folder.
RESULTS = "reproductions/results"

_LINK = re.compile(r"(?P<bang>!?)\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)(?P<title>\s+\"[^\"]*\")?\)")


@dataclass
class Stored:
    """One stored run: ``folder`` (``results/<name>``), its report text, provenance and figures."""

    name: str
    folder: Path
    report: str
    provenance: dict
    figures: list[str] = field(default_factory=list)

    @property
    def scale(self) -> str:
        return str(self.provenance.get("scale", "not recorded"))


def read_stored(folder: Path) -> Stored:
    """Read one stored folder; a missing ``report.md`` or a malformed ``provenance.json`` is an error
    naming the file (the build fails saying which folder is broken)."""
    folder = Path(folder)
    report = folder / "report.md"
    if not report.is_file():
        raise ValueError(f"stored reproduction {folder}: no report.md")
    prov_path = folder / "provenance.json"
    provenance: dict = {}
    if prov_path.is_file():
        try:
            provenance = json.loads(prov_path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ValueError(f"stored reproduction {prov_path}: not valid JSON ({exc})") from None
        if not isinstance(provenance, dict):
            raise ValueError(f"stored reproduction {prov_path}: must hold a JSON object, "
                             f"got {type(provenance).__name__}")
    figures = sorted(p.name for p in folder.iterdir() if p.suffix.lower() in FIGURE_SUFFIXES)
    return Stored(folder.name, folder, report.read_text(encoding="utf-8"), provenance, figures)


def stored_results(results: Path) -> dict[str, Stored]:
    """Every stored run under ``results`` (one sub-folder per spec), by spec name; {} when absent."""
    results = Path(results)
    if not results.is_dir():
        return {}
    return {p.name: read_stored(p) for p in sorted(results.iterdir())
            if p.is_dir() and not p.name.startswith((".", "_"))}


def _value(prov: dict, key: str) -> str:
    v = prov.get(key)
    if v is None or v == "":
        return "*not recorded*"
    if key == "wall_seconds":
        try:
            return f"{float(v):,.0f} s"
        except (TypeError, ValueError):
            return str(v)
    if key in ("command", "commit"):
        return "`" + str(v).replace("`", "'") + "`"
    return str(v).replace("|", "\\|").replace("\n", " ")


def provenance_box(stored: Stored) -> str:
    """An admonition with the run's command, commit, date, scale (``paper-subset`` with a ``subset``
    line for a run of part of the paper grid), machine and wall time."""
    lines = ['!!! info "Provenance"', "", "    | item | value |", "    |---|---|"]
    if not stored.provenance:
        lines += ["    | provenance | *no provenance.json stored with this run* |"]
    for key in PROVENANCE_KEYS:
        if key == "subset" and not stored.provenance.get("subset"):
            continue                       # optional: only a run of part of a scale's grid has one
        if stored.provenance:
            lines.append(f"    | {key.replace('_', ' ')} | {_value(stored.provenance, key)} |")
    return "\n".join(lines) + "\n"


def _rewrite_links(text: str, stored: Stored, prefix: str) -> str:
    """Relative links to files of the stored folder point at their copies (``prefix/file``); a
    relative link to anything else (the run's ``sweep/``, a file not stored) keeps its text only."""
    def sub(m: re.Match) -> str:
        target = m["target"]
        if re.match(r"^[a-z][a-z0-9+.-]*:|^#|^/", target):      # URL, anchor or absolute: untouched
            return m[0]
        path, _, anchor = target.partition("#")
        if (stored.folder / path).is_file() and Path(path).suffix.lower() in FIGURE_SUFFIXES:
            new = f"{prefix}/{path}" + (f"#{anchor}" if anchor else "")
            return f"{m['bang']}[{m['text']}]({new}{m['title'] or ''})"
        return f"{m['text'] or path} (`{path}`, not stored)" if m["bang"] else f"{m['text']} (`{path}`)"
    return _LINK.sub(sub, text)


def spec_page(name: str, title: str | None, stored: Stored) -> str:
    """The page of one stored run: a heading, the provenance box, the report, its figures inline.

    The report's own first-level heading becomes the page title; its sections follow unchanged,
    except that links to the stored figures point at the page's copies (``<name>/<file>``). Figures
    stored but not shown by the report are appended under *Other stored figures*.
    """
    body = stored.report.strip("\n")
    m = re.match(r"#\s+(.+)\n", body + "\n")
    heading = m.group(1).strip() if m else (title or name)
    if m:
        body = body[m.end():]
    body = _rewrite_links(body, stored, name)
    lines = [f"# {heading}", ""]
    if title and title != heading:
        lines += [f"*{title}* (`fairalloc reproduce {name}`)", ""]
    else:
        lines += [f"`fairalloc reproduce {name}`", ""]
    if title is None:
        lines += ['!!! warning "Not a shipped spec"', "",
                  f"    `{name}` is not one of `fairalloc reproduce --list`; it is shown as stored.", ""]
    lines += [provenance_box(stored), body.strip("\n"), ""]
    shown = set(re.findall(rf"\]\({re.escape(name)}/([^)\s#]+)", body))
    extra = [f for f in stored.figures if f not in shown]
    if extra:
        lines += ["## Other stored figures", ""] + [f"![{f}]({name}/{f})\n" for f in extra]
    return "\n".join(lines).rstrip("\n") + "\n"


def regenerate_command(name: str, scale: str = "small") -> str:
    """The command that regenerates a stored run of ``name`` at ``scale``."""
    scale_opt = "" if scale == "small" else f" --scale {scale}"
    return f"fairalloc reproduce {name}{scale_opt} --out out/reproduce/{name}-{scale}"


def status_table(specs: dict[str, str], stored: dict[str, Stored]) -> str:
    """The index's table: per shipped spec (``{name: title}``, the order of ``--list``), its stored
    results or "not run yet", and the command that (re)generates them; stored folders that are not
    a shipped spec follow."""
    lines = ["| spec | title | stored results | regenerate |", "|---|---|---|---|"]
    for name in [*specs, *(n for n in stored if n not in specs)]:
        title = specs.get(name, "*not a shipped spec*").replace("|", "\\|")
        s = stored.get(name)
        if s is None:
            lines.append(f"| `{name}` | {title} | not run yet | `{regenerate_command(name)}` |")
            continue
        when = s.provenance.get("date")
        commit = s.provenance.get("commit")
        what = f"[scale {s.scale}]({name}.md)" + (f", {when}" if when else "") + \
            (f", commit `{str(commit)[:10]}`" if commit else "")
        scale = s.scale if s.scale in ("small", "paper") else "small"
        lines.append(f"| [`{name}`]({name}.md) | {title} | {what} | `{regenerate_command(name, scale)}` |")
    return "\n".join(lines) + "\n"
