"""Conventions every ``fairalloc`` subcommand shares: options, output streams, exit statuses, errors.

Options added to every subcommand (:func:`add_common_options`):

``-q/--quiet``
    Nothing on the terminal but errors and warnings (no tables, no progress bars).
``-v/--verbose``
    Log what happens (``-vv``: debug details).
``--json PATH|-``
    Write the machine-readable result to PATH; ``-`` prints only the JSON on stdout (everything
    else, including what solver libraries print, goes to stderr).
``--no-progress``
    No progress bars. They are also off when stderr is not a terminal, and with ``-q``.
``--debug``
    Show the Python traceback of an error (or set ``FAIRALLOC_DEBUG=1``).

Exit statuses (:data:`EXIT_CODES`): 0 done, the answer is yes; 1 done, the answer is no (a checked
cell disagrees with ``axioms.md``, a witness does not replay); 2 bad input or options, told in one
line; 3 done, but a solver returned no solution (infeasible, time limit without a solution, solver
error); 70 an internal error (a bug: please report it with the ``--debug`` traceback); 130 interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, Iterator

__all__ = ["EXIT_OK", "EXIT_NO", "EXIT_USAGE", "EXIT_NO_SOLUTION", "EXIT_INTERNAL", "EXIT_INTERRUPTED",
           "EXIT_CODES", "OneLineParser", "add_common_options", "show_progress", "emit_json", "say",
           "positive_int", "nonnegative_int", "positive_float", "nonnegative_float", "open_unit_float",
           "json_to_stdout", "debug_enabled", "configure_logging", "check_output_folder", "output_folder", "MARKER"]

#: File that marks a folder written by a fairalloc command (so a rerun may replace it, and nothing else).
MARKER = ".fairalloc-output"

EXIT_OK = 0
EXIT_NO = 1
EXIT_USAGE = 2
EXIT_NO_SOLUTION = 3
EXIT_INTERNAL = 70
EXIT_INTERRUPTED = 130

#: What each exit status means (printed by ``fairalloc --help``).
EXIT_CODES = {
    EXIT_OK: "done; the answer is yes (cells agree, the witness replays, every solve found a solution)",
    EXIT_NO: "done; the answer is no (a checked cell disagrees with axioms.md, a witness does not replay)",
    EXIT_USAGE: "bad input or options (one line on stderr; --debug shows the traceback)",
    EXIT_NO_SOLUTION: "done, but a solver returned no solution (infeasible, time limit, solver error)",
    EXIT_INTERNAL: "internal error: a bug in fairalloc (rerun with --debug and report the traceback)",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C)",
}


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line: ``fairalloc solve: error: ...``."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def add_common_options(parser: argparse.ArgumentParser, *, top: bool = False) -> None:
    """Add ``-q``, ``-v``, ``--json``, ``--no-progress`` and ``--debug`` (see the module docstring).

    On a subcommand the defaults are ``SUPPRESS`` so that options given before the subcommand name
    (``fairalloc --debug solve``) are not overwritten.
    """
    d = {} if top else {"default": argparse.SUPPRESS}
    g = parser.add_argument_group("common options")
    options: list[tuple[tuple[str, ...], dict[str, Any]]] = [
        (("--debug",), dict(action="store_true", help="show the traceback of an error (or set FAIRALLOC_DEBUG=1)"))]
    if not top:
        options = [
            (("-q", "--quiet"), dict(action="store_true", help="only errors and warnings on the terminal")),
            (("-v", "--verbose"), dict(action="count", help="log what happens (-vv: more)")),
            (("--json",), dict(metavar="PATH|-", help="write the result as JSON to PATH ('-': stdout, and nothing "
                                                      "else on stdout)")),
            (("--no-progress",), dict(action="store_true", help="no progress bars (also off when stderr is not a "
                                                                "terminal, and with -q)")),
        ] + options
    for flags, kw in options:
        try:
            g.add_argument(*flags, **kw, **d)
        except argparse.ArgumentError:      # a subcommand that defines it itself keeps its own (same meaning)
            pass


def debug_enabled(args: argparse.Namespace | None = None) -> bool:
    env = os.environ.get("FAIRALLOC_DEBUG", "").strip().lower() not in ("", "0", "false", "no")
    return env or bool(getattr(args, "debug", False))


def configure_logging(args: argparse.Namespace) -> None:
    level = {0: logging.WARNING, 1: logging.INFO}.get(getattr(args, "verbose", 0) or 0, logging.DEBUG)
    if getattr(args, "quiet", False):
        level = logging.WARNING
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    logging.getLogger("fairalloc").setLevel(level)
    logging.getLogger("proofs_check").setLevel(level)


def show_progress(args: argparse.Namespace) -> bool:
    """Progress bars: not with ``-q`` / ``--no-progress``, and only when stderr is a terminal."""
    if getattr(args, "quiet", False) or getattr(args, "no_progress", False):
        return False
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def say(args: argparse.Namespace, *lines: str) -> None:
    """Print human-readable lines (stdout; stderr with ``--json -``; nothing with ``-q``)."""
    if getattr(args, "quiet", False):
        return
    stream = sys.stderr if getattr(args, "json", None) == "-" else sys.stdout
    for line in lines:
        print(line, file=stream)


def emit_json(args: argparse.Namespace, payload: Any) -> None:
    """Keep ``payload`` for ``--json``; :func:`fairalloc.cli.main` writes it when the command ends."""
    if getattr(args, "json", None):
        args._json_payload = payload


def write_pending_json(args: argparse.Namespace) -> None:
    path = getattr(args, "json", None)
    if not path or not hasattr(args, "_json_payload"):
        return
    from ..io import write_json

    text = write_json(args._json_payload, path)
    if path == "-":
        sys.stdout.write(text + "\n")
        sys.stdout.flush()


@contextlib.contextmanager
def json_to_stdout(active: bool) -> Iterator[None]:
    """While the command runs, send everything printed on stdout to stderr (Python prints and what C
    libraries such as HiGHS write on file descriptor 1), so that only the JSON reaches stdout."""
    if not active:
        yield
        return
    sys.stdout.flush()
    try:
        fd = sys.stdout.fileno()
        saved = os.dup(fd)
    except (AttributeError, OSError, ValueError):      # not a real file (pytest capture): Python level only
        fd = saved = None
    try:
        if saved is not None:
            os.dup2(sys.stderr.fileno(), fd)
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        sys.stdout.flush()
        if saved is not None:
            os.dup2(saved, fd)
            os.close(saved)


def _number(kind: type, test, what: str):
    def parse(text: str):
        try:
            v = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {'an integer' if kind is int else 'a number'}") from None
        if kind is float and v != v:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number")
        if not test(v):
            raise argparse.ArgumentTypeError(f"{text!r} must be {what}")
        return v

    parse.__name__ = what
    return parse


positive_int = _number(int, lambda v: v >= 1, "an integer >= 1")
nonnegative_int = _number(int, lambda v: v >= 0, "an integer >= 0")
positive_float = _number(float, lambda v: 0 < v < float("inf"), "a number > 0")
nonnegative_float = _number(float, lambda v: 0 <= v < float("inf"), "a number >= 0")
open_unit_float = _number(float, lambda v: 0 < v < 1, "a number in (0, 1)")



def check_output_folder(path: str | Path, option: str = "--out", *, ours: tuple[str, ...] = ()) -> Path:
    """Refuse, before any work, an output path that :func:`output_folder` could not replace: a file, or
    a non-empty folder that no fairalloc command wrote (it has no :data:`MARKER`, and it holds files
    other than ``ours``, the names the command writes: outputs of versions before the marker)."""
    from ..errors import InvalidInstanceError

    out = Path(path)
    if out.exists() and not out.is_dir():
        raise InvalidInstanceError(f"{option} {out}: exists and is not a folder", argument=option, value=str(out))
    if out.is_dir() and not (out / MARKER).exists() and any(p.name not in ours for p in out.iterdir()):
        raise InvalidInstanceError(f"{option} {out}: a non-empty folder that fairalloc did not write; give a new or "
                                   "empty folder (an earlier output folder of fairalloc is replaced)",
                                   argument=option, value=str(out))
    return out


@contextlib.contextmanager
def output_folder(path: str | Path, args: argparse.Namespace, command: str, *,
                  ours: tuple[str, ...] = ()) -> Iterator[Path]:
    """Write an output folder whole or not at all.

    Yields a temporary folder next to ``path``; when the block ends without error, the folder gets
    :data:`MARKER` and replaces ``path`` (an earlier output of fairalloc there is removed, and the
    command says so); on an error or an interrupt the temporary folder is deleted and ``path`` is
    left as it was.
    """
    out = check_output_folder(path, ours=ours)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.partial-", dir=out.parent))
    try:
        yield tmp
        (tmp / MARKER).write_text(f"written by fairalloc {command}\n")
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if out.exists():
        old = [p.name for p in out.iterdir() if p.name != MARKER]
        if old:
            say(args, f"replacing {out}: removed {len(old)} entries of an earlier run")
        trash = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
        os.replace(out, trash / out.name)
        os.replace(tmp, out)
        shutil.rmtree(trash, ignore_errors=True)
    else:
        os.replace(tmp, out)
