"""One report format for every reproduction: per headline claim, the paper's number, ours,
reproduced yes or no, and the reason found where not (``report.md``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

__all__ = ["Claim", "write_report", "render_report"]


@dataclass(frozen=True)
class Claim:
    """One headline claim of a paper against the project's number.

    ``reproduced`` is True, False, or None (not decidable at this scale or with this data: the
    reason says why). ``reason`` is required when ``reproduced`` is not True.
    """

    claim: str
    paper: str
    ours: str
    reproduced: bool | None
    reason: str = ""

    def __post_init__(self) -> None:
        if self.reproduced is not None:
            object.__setattr__(self, "reproduced", bool(self.reproduced))
        if self.reproduced is not True and not self.reason:
            raise ValueError(f"claim {self.claim!r}: a claim not reproduced needs a reason")


def _yes_no(v: bool | None) -> str:
    return {True: "yes", False: "no", None: "undecided"}[v]


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_report(title: str, setup: Sequence[str], claims: Sequence[Claim],
                  notes: Sequence[str] = (), figures: Sequence[str] = ()) -> str:
    """Markdown text of a report (see :func:`write_report`).

    >>> print(render_report("T", ["s"], [Claim("c", "1", "2", False, "r")]).splitlines()[10])
    | c | 1 | 2 | no | r |
    """
    lines = [f"# {title}", "", "## Setup", ""]
    lines += [f"- {s}" for s in setup]
    lines += ["", "## Claims", "", "| claim | paper | ours | reproduced | reason |", "|---|---|---|---|---|"]
    lines += [f"| {_cell(c.claim)} | {_cell(c.paper)} | {_cell(c.ours)} | {_yes_no(c.reproduced)} | "
              f"{_cell(c.reason)} |" for c in claims]
    if figures:
        lines += ["", "## Figures", ""] + [f"![{f}]({f})" for f in figures]
    if notes:
        lines += ["", "## Notes", ""] + [f"- {n}" for n in notes]
    return "\n".join(lines) + "\n"


def write_report(path: str | Path, title: str, setup: Sequence[str], claims: Sequence[Claim],
                 notes: Sequence[str] = (), figures: Sequence[str] = ()) -> Path:
    """Write ``report.md``: title, setup (what stands in for the paper's data, and why), one table
    row per claim, the figures, notes."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(render_report(title, setup, claims, notes, figures), encoding="utf-8")
    return p
