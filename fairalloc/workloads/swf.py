"""Reader for the Standard Workload Format (SWF) of the Parallel Workloads Archive.

Format (Feitelson et al. [1]_): header comment lines start with ``;`` and carry ``Key: value`` pairs
(``MaxNodes``, ``MaxProcs``, ``MaxRecords`` ...); every other non-blank line is one job with 18
whitespace-separated numeric fields, ``-1`` meaning unknown:

 1 job number, 2 submit time, 3 wait time, 4 run time, 5 allocated processors, 6 average CPU time,
 7 used memory, 8 requested processors, 9 requested time, 10 requested memory, 11 status
 (1 completed, 0 failed, 5 cancelled), 12 user id, 13 group id, 14 executable, 15 queue,
 16 partition, 17 preceding job, 18 think time.

References
----------
.. [1] D. G. Feitelson, D. Tsafrir, D. Krakov, "Experience with using the Parallel Workloads
   Archive", J. Parallel Distrib. Comput. 74(10), 2014. https://www.cs.huji.ac.il/labs/parallel/workload/swf.html
"""

from __future__ import annotations

import gzip
import io
import logging
from pathlib import Path
from typing import Any, Iterable, Iterator

import numpy as np

from ..validation import require_choice
from ..errors import InvalidInstanceError
from ._files import reading, require_file
from .workload import Workload

__all__ = ["read_swf", "write_swf", "SWF_FIELDS", "SWFFormatError"]

logger = logging.getLogger(__name__)

#: The 18 SWF field names, in file order.
SWF_FIELDS = ("job_number", "submit_time", "wait_time", "run_time", "allocated_processors",
              "average_cpu_time", "used_memory", "requested_processors", "requested_time",
              "requested_memory", "status", "user_id", "group_id", "executable", "queue",
              "partition", "preceding_job", "think_time")
_CHUNK = 65536


class SWFFormatError(InvalidInstanceError):
    """A malformed SWF line; ``path`` and ``line`` (1-based) say where.

    An :class:`~fairalloc.InvalidInstanceError` (argument ``"path"``, index the line).

    Parameters
    ----------
    message : str
        What is wrong with the line.
    path : str
        The file.
    line : int
        The line number, from 1.
    text : str
        The line (quoted in the message, first 120 characters).

    Attributes
    ----------
    path : str
    line : int

    Examples
    --------
    >>> e = SWFFormatError("expected 18 fields, found 2", path="t.swf", line=3, text="1 2\\n")
    >>> str(e), e.line
    ("t.swf:3: expected 18 fields, found 2: '1 2'", 3)
    """

    def __init__(self, message: str, *, path: str, line: int, text: str) -> None:
        super().__init__(f"{path}:{line}: {message}: {text.strip()[:120]!r}", argument="path",
                         index=(line,), value=text)
        self.path = path
        self.line = line


def _open(path: Path) -> io.TextIOBase:
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")


def _parse_header(line: str, header: dict[str, Any], last_key: list[str]) -> None:
    body = line.lstrip(";").strip()
    if ":" in body and not body.startswith(" "):
        key, _, value = body.partition(":")
        key = key.strip()
        if key and " " not in key:
            value = value.strip()
            try:
                num = float(value)
                value = int(num) if num.is_integer() else num
            except ValueError:
                pass
            if key in header and isinstance(header[key], str):
                header[key] = header[key] + "\n" + str(value)
            else:
                header[key] = value
            last_key[:] = [key]
            return
    if body and last_key and isinstance(header.get(last_key[0]), str):
        header[last_key[0]] += "\n" + body  # continuation line (e.g. a second Information URL)


def _check_line(fields: list[str]) -> str | None:
    """Why this split line is not a valid job record, or None."""
    if len(fields) != 18:
        return f"expected 18 fields, found {len(fields)}"
    for k, f in enumerate(fields):
        try:
            v = float(f)
        except ValueError:
            return f"field {k + 1} ({SWF_FIELDS[k]}) is not a number: {f!r}"
        if not np.isfinite(v):
            return f"field {k + 1} ({SWF_FIELDS[k]}) is not finite: {f!r}"
        if v < 0 and v != -1:
            return f"field {k + 1} ({SWF_FIELDS[k]})={f} is negative (only -1 means unknown)"
    return None


def _records(path: Path, errors: str, header: dict[str, Any],
             skipped: list[tuple[int, str]], where: list[int]) -> Iterator[np.ndarray]:
    """Yield (rows, 18) float arrays, chunk by chunk; header lines fill ``header``; ``where[0]`` is the
    number of the last line read."""
    last_key: list[str] = []
    with _open(path) as fh:
        lines: list[list[str]] = []
        numbers: list[int] = []
        for lineno, line in enumerate(fh, start=1):
            where[0] = lineno
            s = line.strip()
            if not s:
                continue
            if s.startswith(";"):
                _parse_header(s, header, last_key)
                continue
            lines.append(s.split())
            numbers.append(lineno)
            if len(lines) >= _CHUNK:
                yield _convert(path, lines, numbers, errors, skipped)
                lines, numbers = [], []
        if lines:
            yield _convert(path, lines, numbers, errors, skipped)


def _convert(path: Path, lines: list[list[str]], numbers: list[int], errors: str,
             skipped: list[tuple[int, str]]) -> np.ndarray:
    try:
        arr = np.array(lines, dtype=float)
        if arr.ndim == 2 and arr.shape[1] == 18 and np.isfinite(arr).all() and not (
                (arr < 0) & (arr != -1)).any():
            return arr
    except ValueError:
        pass
    good = []
    for fields, lineno in zip(lines, numbers):  # slow path: find the bad line(s)
        why = _check_line(fields)
        if why is None:
            good.append(fields)
        elif errors == "raise":
            raise SWFFormatError(why, path=str(path), line=lineno, text=" ".join(fields))
        else:
            skipped.append((lineno, why))
    return np.array(good, dtype=float).reshape(-1, 18)


def read_swf(path: str | Path, *, status: int | Iterable[int] | None = None,
             errors: str = "raise", drop_missing: bool = False) -> Workload:
    """Read a ``.swf`` or ``.swf.gz`` file into a :class:`Workload`, streaming it in chunks.

    Parameters
    ----------
    path : str or Path
        The file; gzip is recognised by the ``.gz`` suffix.
    status : int or iterable of int, optional
        Keep only jobs whose status field is one of these (e.g. ``1`` for completed jobs only);
        default keeps every job. The number dropped is ``meta["filtered_status"]``.
    errors : {"raise", "skip"}
        A malformed line (not 18 fields, a field that is not a number, a negative value other
        than -1) raises :class:`SWFFormatError` naming the file and the line number, or with
        ``"skip"`` is skipped and counted (``meta["skipped_lines"]``, the first 20 with their line
        numbers and reasons in ``meta["skipped"]``).
    drop_missing : bool
        Also drop jobs whose run time or processor count is unknown (counted in
        ``meta["dropped_missing"]``); by default they are kept with NaN / -1, and the simulator
        rejects and counts them.

    Returns
    -------
    Workload
        ``job_id`` (field 1), ``submit`` (2), ``run_time`` (4, NaN if -1), ``processors`` (5, or 8
        when 5 is unknown), ``requested_time`` (9, NaN if -1), ``status`` (11), ``user`` (12), and the
        other fields as ``extra`` columns (-1 kept as -1). ``meta`` holds the header fields under
        their own names (``MaxNodes``, ``MaxProcs``, ...), ``source`` and the counts above.

    Raises
    ------
    SWFFormatError
        A malformed line with ``errors="raise"`` (naming file and line).
    InvalidInstanceError
        A file that is not gzip though named ``.gz``, a gzip stream that ends early (a truncated
        download: the message says after which line), bytes that are not text.
    FileNotFoundError, IsADirectoryError
        ``path`` does not exist, or is a directory.

    Notes
    -----
    A job whose submit time is -1 cannot be placed in time; it is dropped and counted in
    ``meta["dropped_missing_submit"]`` whatever ``drop_missing`` says.

    Examples
    --------
    >>> import tempfile, os
    >>> text = "; MaxProcs: 4\\n1 0 5 100 4 -1 -1 4 200 -1 1 7 1 -1 -1 -1 -1 -1\\n"
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "tiny.swf")
    ...     _ = open(p, "w").write(text)
    ...     wl = read_swf(p)
    >>> wl.meta["MaxProcs"], wl.processors.tolist(), wl.requested_time.tolist(), wl.user.tolist()
    (4, [4], [200.0], [7])
    """
    path = Path(path)
    errors = require_choice("errors", errors, ("raise", "skip"))
    require_file(path, "SWF file")
    header: dict[str, Any] = {}
    skipped: list[tuple[int, str]] = []
    last = [0]
    with reading(path, line=last):
        chunks = list(_records(path, errors, header, skipped, last))
    arr = np.concatenate(chunks) if chunks else np.zeros((0, 18))
    meta: dict[str, Any] = dict(header)
    meta.update(source=str(path), format="swf", skipped_lines=len(skipped),
                skipped=[{"line": ln, "reason": why} for ln, why in skipped[:20]])
    if skipped:
        logger.warning("%s: skipped %d malformed line(s), first at line %d: %s", path, len(skipped),
                       skipped[0][0], skipped[0][1])
    n_read = arr.shape[0]
    no_submit = arr[:, 1] < 0
    arr = arr[~no_submit]
    meta["dropped_missing_submit"] = int(no_submit.sum())
    if status is not None:
        wanted = np.atleast_1d(np.asarray(list(status) if not np.isscalar(status) else [status]))
        keep = np.isin(arr[:, 10], wanted.astype(float))
        meta["filtered_status"] = int((~keep).sum())
        meta["status_kept"] = [int(s) for s in wanted]
        arr = arr[keep]
    procs = np.where(arr[:, 4] > 0, arr[:, 4], arr[:, 7])
    procs = np.where(procs > 0, procs, -1)
    run = np.where(arr[:, 3] >= 0, arr[:, 3], np.nan)
    if drop_missing:
        ok = ~np.isnan(run) & (procs > 0)
        meta["dropped_missing"] = int((~ok).sum())
        arr, procs, run = arr[ok], procs[ok], run[ok]
    meta["records_read"] = n_read
    extra_fields = (2, 5, 6, 7, 9, 12, 13, 14, 15, 16, 17)
    extra = {SWF_FIELDS[k]: arr[:, k].astype(np.int64) if np.all(arr[:, k] == np.round(arr[:, k]))
             else arr[:, k] for k in extra_fields}
    return Workload(job_id=arr[:, 0], submit=arr[:, 1], run_time=run, processors=procs,
                    requested_time=np.where(arr[:, 8] >= 0, arr[:, 8], np.nan), status=arr[:, 10],
                    user=arr[:, 11], extra=extra, meta=meta)


def write_swf(workload: Workload, path: str | Path, *, header: dict[str, Any] | None = None) -> Path:
    """Write a workload as SWF (unknown values as -1); the inverse of :func:`read_swf` for its fields.

    Parameters
    ----------
    workload : Workload
        Its ``job_id``, ``submit``, ``run_time``, ``processors``, ``requested_time``, ``status`` and
        ``user`` fill SWF fields 1, 2, 4, 5, 9, 11, 12; ``extra`` columns named as SWF fields fill
        theirs; the rest is -1.
    path : str or Path
        Output file; a ``.gz`` suffix writes gzip.
    header : dict, optional
        Written first as ``; key: value`` comment lines (e.g. ``{"MaxProcs": 128}``).

    Returns
    -------
    Path
        ``path``.

    Examples
    --------
    One job written and read back (a temporary directory, removed after):

    >>> import tempfile, pathlib
    >>> from fairalloc.workloads import Workload, read_swf
    >>> wl = Workload(submit=[0], run_time=[30], processors=[2], user=[1])
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = write_swf(wl, pathlib.Path(d) / "t.swf", header={"MaxProcs": 4})
    ...     text = p.read_text()
    ...     back = read_swf(p)
    >>> print(text, end="")
    ; MaxProcs: 4
    0 0 -1 30 2 -1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1
    >>> back.run_time.tolist(), back.processors.tolist(), back.meta["MaxProcs"]
    ([30.0], [2], 4)
    """
    path = Path(path)
    n = len(workload)
    cols = np.full((n, 18), -1.0)
    cols[:, 0] = workload.job_id
    cols[:, 1] = workload.submit
    cols[:, 3] = np.nan_to_num(workload.run_time, nan=-1)
    cols[:, 4] = workload.processors
    cols[:, 8] = np.nan_to_num(workload.requested_time, nan=-1)
    cols[:, 10] = workload.status
    cols[:, 11] = workload.user
    for k, name in enumerate(SWF_FIELDS):
        if name in workload.extra:
            cols[:, k] = workload.extra[name]
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "wt") as fh:
        for key, value in (header or {}).items():
            fh.write(f"; {key}: {value}\n")
        for row in cols:
            fh.write(" ".join(f"{int(v)}" if float(v).is_integer() else f"{v:g}" for v in row) + "\n")
    return path
