"""One report format for every reproduction: per headline claim, the paper's number, ours,
reproduced yes or no, and the reason found where not (``report.md``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

__all__ = ["Claim", "write_report", "render_report", "read_claims", "save_figure", "save_table"]

#: Columns of a report's claims table, in order.
CLAIM_COLUMNS = ("claim", "paper", "ours", "reproduced", "reason")


@dataclass(frozen=True)
class Claim:
    """One headline claim of a paper against the project's number.

    ``reproduced`` is True, False, or None (not decidable at this scale or with this data: the
    reason says why). ``reason`` is required when ``reproduced`` is not True.

    Attributes
    ----------
    claim : str
        The paper's claim, in words.
    paper : str
        The paper's number.
    ours : str
        The project's number.
    reproduced : bool or None
    reason : str, default ""

    Raises
    ------
    ValueError
        ``reproduced`` not True and no ``reason``.

    Examples
    --------
    >>> Claim("F1 beats FCFS", "7.25x", "3.1x", True).reproduced
    True
    >>> Claim("F1 beats FCFS", "7.25x", "0.9x", False)
    Traceback (most recent call last):
    ...
    ValueError: claim 'F1 beats FCFS': a claim not reproduced needs a reason
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
                  notes: Sequence[str] = (), figures: Sequence[str] = (),
                  analysis: Sequence[tuple[str, str]] = ()) -> str:
    """Markdown text of a report (see :func:`write_report`).

    Parameters
    ----------
    title : str
    setup : sequence of str
        One bullet each.
    claims : sequence of Claim
        One table row each (``|`` escaped, newlines flattened). Keep a claim's ``reason`` to a
        short sentence; the explanation goes in ``analysis``.
    notes : sequence of str, optional
    figures : sequence of str, optional
        Image paths relative to the report.
    analysis : sequence of (str, str), optional
        ``(heading, markdown)`` sections written under ``## Analysis`` right after the claims table:
        why the claims came out as they did, at whatever length that takes.

    Returns
    -------
    str

    Examples
    --------
    Line 10 (from 0) is the first claim's row, after the title, setup and table header:

    >>> print(render_report("T", ["s"], [Claim("c", "1", "2", False, "r")]).splitlines()[10])
    | c | 1 | 2 | no | r |
    """
    lines = [f"# {title}", "", "## Setup", ""]
    lines += [f"- {s}" for s in setup]
    lines += ["", "## Claims", "", "| claim | paper | ours | reproduced | reason |", "|---|---|---|---|---|"]
    lines += [f"| {_cell(c.claim)} | {_cell(c.paper)} | {_cell(c.ours)} | {_yes_no(c.reproduced)} | "
              f"{_cell(c.reason)} |" for c in claims]
    if analysis:
        lines += ["", "## Analysis"]
        for head, text in analysis:
            lines += ["", f"### {head}", "", str(text).rstrip()]
    if figures:
        lines += ["", "## Figures", ""] + [f"![{f}]({f})" for f in figures]
    if notes:
        lines += ["", "## Notes", ""] + [f"- {n}" for n in notes]
    return "\n".join(lines) + "\n"


def write_report(path: str | Path, title: str, setup: Sequence[str], claims: Sequence[Claim],
                 notes: Sequence[str] = (), figures: Sequence[str] = (),
                 analysis: Sequence[tuple[str, str]] = ()) -> Path:
    """Write ``report.md``: title, setup (what stands in for the paper's data, and why), one table
    row per claim (a short reason each), the analysis behind them, the figures, notes.

    Parameters
    ----------
    path : str or Path
        The file (its folder is created).
    title, setup, claims, notes, figures, analysis
        As :func:`render_report`.

    Returns
    -------
    Path

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = write_report(pathlib.Path(d) / "r" / "report.md", "T", ["s"], [Claim("c", "1", "1", True)])
    ...     text = p.read_text()
    >>> text.splitlines()[0], text.splitlines()[-1]
    ('# T', '| c | 1 | 1 | yes |  |')
    """
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(render_report(title, setup, claims, notes, figures, analysis), encoding="utf-8")
    return p


def save_figure(fig: Any, out: str | Path, stem: str, formats: Any = None, *, dpi: int = 100) -> str:
    """Write a report's figure as ``out/stem.<format>`` in each figure format of ``formats`` (a
    :class:`fairalloc.formats.Formats`; None: png) and return the name ``report.md`` shows (the first).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from matplotlib.figure import Figure
    >>> from fairalloc.formats import Formats
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> save_figure(Figure(), d, "fig4", Formats(figures=("svg", "pdf")))
    'fig4.svg'
    >>> sorted(p.name for p in d.iterdir())
    ['fig4.pdf', 'fig4.svg']
    """
    from ...plots import save

    figures = tuple(getattr(formats, "figures", None) or ("png",))
    return save(fig, Path(out) / stem, figures, dpi=dpi)[0].name


def save_table(df: Any, out: str | Path, stem: str, formats: Any = None) -> None:
    """Write a report's table as ``out/stem.csv`` and in each other table format of ``formats`` (a
    :class:`fairalloc.formats.Formats`; None: csv only). The CSV is always written: ``report.md``
    links it, and the notebooks and a later comparison (:func:`~.sdrf.compare_runs`) read it.

    Examples
    --------
    >>> import tempfile, pathlib, pandas as pd
    >>> from fairalloc.formats import Formats
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> save_table(pd.DataFrame({"a": [1]}), d, "t", Formats(tables=("parquet",)))
    >>> sorted(p.name for p in d.iterdir())
    ['t.csv', 't.parquet']
    """
    from ...formats import write_table

    tables = tuple(getattr(formats, "tables", None) or ())
    write_table(df, Path(out) / stem, ("csv", *(t for t in tables if t != "csv")))


def read_claims(report: str | Path) -> "pd.DataFrame":
    """The claims table of a report (:func:`write_report`) as a DataFrame: the inverse of the table
    :func:`render_report` writes.

    Only the rows of the ``## Claims`` section are read (a report may hold other tables); cells are
    split on unescaped ``|`` and ``\\|`` is turned back into ``|``.

    Parameters
    ----------
    report : str or Path
        A ``report.md`` file, or the folder holding one.

    Returns
    -------
    pandas.DataFrame
        Columns ``claim``, ``paper``, ``ours``, ``reproduced`` (``"yes"``, ``"no"`` or
        ``"undecided"``) and ``reason``, one row per claim in the report's order.

    Raises
    ------
    FileNotFoundError
        No ``report.md`` there.
    ValueError
        The report has no ``## Claims`` section, or a row without five cells (naming the row).

    Examples
    --------
    A claim whose text holds a ``|`` survives the round trip:

    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = write_report(Path(d) / "report.md", "T", ["s"], [Claim("a | b", "1", "2", True),
    ...                                                          Claim("c", "3", "4", False, "why")])
    ...     t = read_claims(d)
    >>> t.values.tolist()
    [['a | b', '1', '2', 'yes', ''], ['c', '3', '4', 'no', 'why']]
    """
    import pandas as pd

    path = Path(report)
    if path.is_dir():
        path = path / "report.md"
    text = path.read_text()
    if "\n## Claims" not in "\n" + text:
        raise ValueError(f"report={str(path)!r} has no '## Claims' section")
    block = ("\n" + text).split("\n## Claims", 1)[1].split("\n## ", 1)[0]
    rows = []
    for k, line in enumerate(block.splitlines()):
        if not line.startswith("|") or line.startswith("|---") or line.startswith("| claim |"):
            continue
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if len(cells) != len(CLAIM_COLUMNS):
            raise ValueError(f"report={str(path)!r}: claims row {k} has {len(cells)} cells, not "
                             f"{len(CLAIM_COLUMNS)}: {line!r}")
        rows.append(cells)
    return pd.DataFrame(rows, columns=list(CLAIM_COLUMNS))
