"""File formats of tables and figures that fairalloc writes, one implementation for every writer.

The command line's ``--format`` (:func:`fairalloc.cli.conventions.add_format_option`) parses into a
:class:`Formats`; commands, the reproductions' reports and ``fairalloc check`` write tables with
:func:`write_table` and figures with :func:`fairalloc.plots.save` in those formats. Importing this
module loads neither pandas nor matplotlib (the command line starts without them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

__all__ = ["TABLE_FORMATS", "FIGURE_FORMATS", "Formats", "write_table"]

#: Table formats of ``--format``.
TABLE_FORMATS = ("csv", "parquet", "json")
#: Figure formats of ``--format``.
FIGURE_FORMATS = ("png", "pdf", "svg")


@dataclass(frozen=True)
class Formats:
    """The file formats a command writes, in the order given (frozen).

    Parameters
    ----------
    tables : tuple of str, default ("csv",)
        Of :data:`TABLE_FORMATS`.
    figures : tuple of str, default ("png",)
        Of :data:`FIGURE_FORMATS`.

    Examples
    --------
    >>> Formats(tables=("parquet", "csv"))
    Formats(tables=('parquet', 'csv'), figures=('png',))
    """

    tables: tuple[str, ...] = ("csv",)
    figures: tuple[str, ...] = ("png",)



def write_table(df: Any, stem: str | Path, formats: Sequence[str] = ("csv",), *, index: bool = False) -> list[Path]:
    """Write a DataFrame as ``stem.csv`` / ``stem.parquet`` / ``stem.json`` (records; numbers as Python
    writes them, exactly) and return the paths.

    Parameters
    ----------
    df : pandas.DataFrame
    stem : str or Path
        The path without its suffix.
    formats : sequence of str, default ("csv",)
        One file per format, of :data:`TABLE_FORMATS`.
    index : bool, default False
        Write the index too (as a column in json).

    Returns
    -------
    list of Path

    Raises
    ------
    ValueError
        A format not in :data:`TABLE_FORMATS`.

    Examples
    --------
    >>> import tempfile, pathlib, pandas as pd
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> [p.name for p in write_table(pd.DataFrame({"delta": [0.999999]}), d / "t", ["csv", "json"])]
    ['t.csv', 't.json']
    >>> (d / "t.json").read_text()
    '[\\n {\\n  "delta": 0.999999\\n }\\n]\\n'
    """
    import pandas as pd

    paths = []
    for fmt in formats:
        path = Path(f"{stem}.{fmt}")
        if fmt == "csv":
            df.to_csv(path, index=index)
        elif fmt == "parquet":
            df.to_parquet(path, index=index)
        elif fmt == "json":
            frame = df.reset_index() if index else df
            rows = frame.astype(object).where(pd.notna(frame), None).to_dict("records")
            path.write_text(json.dumps(rows, indent=1, default=_json_default) + "\n", encoding="utf-8")
        else:
            raise ValueError(f"table format {fmt!r} is not one of {', '.join(TABLE_FORMATS)}")
        paths.append(path)
    return paths


def _json_default(obj: Any) -> Any:
    if hasattr(obj, "item"):            # NumPy scalars
        return obj.item()
    if hasattr(obj, "tolist"):
        return obj.tolist()
    if hasattr(obj, "isoformat"):
        return obj.isoformat()
    return str(obj)
