"""What every trace reader does with its files: refuse what is not a file, and name file and line.

The readers (:func:`~fairalloc.workloads.read_swf`, :func:`~fairalloc.workloads.read_google2011`,
:func:`~fairalloc.workloads.read_alibaba`) raise fairalloc's own errors naming the file (and the line
where it is known) in the API itself, not only in the command line: a truncated or damaged gzip stream
(Python's ``EOFError``, ``gzip.BadGzipFile``, ``zlib.error``), bytes that are not UTF-8, and a line
pandas cannot split become :class:`~fairalloc.errors.InvalidInstanceError` (``argument="path"``); a
path that is a directory raises ``IsADirectoryError`` saying so, one that does not exist
``FileNotFoundError``.
"""

from __future__ import annotations

import contextlib
import gzip
import re
import zlib
from pathlib import Path
from typing import Iterator

from ..errors import FairallocError, InvalidInstanceError

__all__ = ["require_file", "reading"]


def require_file(path: Path, what: str) -> None:
    """Refuse a path that is a directory or does not exist; ``what`` names the file expected.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as d:
    ...     require_file(pathlib.Path(d), "SWF file")
    Traceback (most recent call last):
        ...
    IsADirectoryError: ... is a directory; give the SWF file itself
    """
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a directory; give the {what} itself")
    if not path.is_file():
        raise FileNotFoundError(f"{what} not found: {path}")


_LINE = re.compile(r"line (\d+)")


@contextlib.contextmanager
def reading(path: Path | str, *, line: list[int] | None = None) -> Iterator[None]:
    """Turn the errors of reading ``path`` into an :class:`InvalidInstanceError` naming it (and the line).

    ``line``, when given, is a one-element list the reader keeps at the number of the last line it
    read; the message then says where the file broke off.

    Examples
    --------
    >>> import gzip, tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = pathlib.Path(d) / "t.swf.gz"
    ...     _ = p.write_text("not gzip")
    ...     with reading(p):
    ...         gzip.open(p).read()
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: ...t.swf.gz: not a gzip file (BadGzipFile: Not a gzipped file (b'no')); a name ending in .gz must hold gzip data
    """
    at = ""
    try:
        yield
    except FairallocError:
        raise
    except (EOFError, gzip.BadGzipFile, zlib.error, UnicodeDecodeError, ValueError, OSError) as exc:
        if isinstance(exc, (FileNotFoundError, IsADirectoryError, PermissionError)):
            raise
        n = line[0] if line else None
        m = _LINE.search(str(exc))
        if n is None and m:
            n = int(m.group(1))
        at = f":{n}" if n else ""
        detail = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
        if isinstance(exc, gzip.BadGzipFile):
            why = f"not a gzip file ({detail}); a name ending in .gz must hold gzip data"
            at = ""
        elif isinstance(exc, (EOFError, zlib.error)):
            why = (f"the gzip stream is damaged or ends early (a truncated download?) after line {n}" if n
                   else "the gzip stream is damaged or ends early (a truncated download?)") + f" ({detail})"
            at = ""
        elif isinstance(exc, UnicodeDecodeError):
            why = f"not text ({detail})"
        else:
            why = detail
        raise InvalidInstanceError(f"{path}{at}: {why}", argument="path", index=(n,) if n else None,
                                   value=str(path)) from None
