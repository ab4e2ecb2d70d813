"""Conventions every ``fairalloc`` subcommand shares: options, output streams, exit statuses, errors.

Options added to every subcommand (:func:`add_common_options`), taken before or after its name
(``fairalloc -v sweep ...`` is ``fairalloc sweep -v ...``):

``-q/--quiet``
    Nothing on the terminal but errors and warnings (no tables, no progress bars).
``-v/--verbose``
    Log what happens (``-vv``: debug details).
``--json PATH|-``
    Write the machine-readable result to PATH; ``-`` prints only the JSON on stdout (everything
    else, including what solver libraries print, goes to stderr).
``--no-progress`` / ``--progress``
    Progress bars are drawn on stderr only when it is a terminal (not into a piped log), and not with
    ``-q``; ``--no-progress`` turns them off, ``--progress`` draws them into a pipe too.
``--debug``
    Show the Python traceback of an error (or set ``FAIRALLOC_DEBUG=1``).

Exit statuses (:data:`EXIT_CODES`): 0 done, the answer is yes; 1 done, the answer is no (a checked
cell disagrees with ``axioms.md``, a witness does not replay); 2 bad input or options, told in one
line; 3 done, but a solver returned no solution (infeasible, time limit without a solution, solver
error); 70 an internal error (a bug: please report it with the ``--debug`` traceback); 130 interrupted.

Output folders (one rule for every command that writes a folder; :func:`add_output_options`,
:func:`output_folder`, :func:`resumable_folder`):

* A command writes only into a folder that is new, empty, or an earlier output of fairalloc (it holds
  :data:`MARKER`, which records the command, the job and the entries that run wrote). A non-empty
  folder that fairalloc did not write is refused before any work, with or without ``--force``.
* Without ``--out``, ``compare`` writes every run into a new folder ``out/compare/YYYYmmdd-HHMMSS``
  and points the link ``out/compare/latest`` at it: earlier runs are kept.
* ``--out DIR`` naming an earlier output of fairalloc is refused unless ``--force``; with ``--force``
  the entries that run wrote are replaced, anything else in the folder (your notes) is kept, and the
  command says what it replaced.
* Resumable jobs (``reproduce``) continue in their own folder: a rerun of the same job resumes
  without ``--force``; another job (another reproduction, scale, ``--cells`` or ``--tables-from``)
  in it needs ``--force``. ``reproduce`` names its default folder after the job, so a ``--cells``
  run never writes over the full run's report; ``check --all`` after its selection (``out/check``,
  ``out/check-AXIOM[-VARIANT]``). A ``sweep`` folder is a results store
  (:mod:`fairalloc.experiments.store`): it takes a new or empty folder, or a sweep of the same spec
  name (resumed), and refuses anything else, saying what the folder holds.
* Other outputs are written whole or not at all: into a temporary folder beside the target, moved
  into place when the command succeeds; an error or Ctrl-C leaves the target as it was.

Output formats (:func:`add_format_option`; the formats and the table writer are in
:mod:`fairalloc.formats`, figures are written by :func:`fairalloc.plots.save`): ``--format`` takes
table formats (csv, parquet, json) and figure formats (png, pdf, svg), comma-separated, e.g.
``--format parquet,pdf,png``; a kind not named keeps its default (csv, png). Terminal tables print numbers that were typed (parameters such as
delta = 0.999999) exactly, and measurements to 4 significant digits (:func:`format_table`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator, Sequence

from ..formats import FIGURE_FORMATS, TABLE_FORMATS, Formats, write_table

__all__ = ["EXIT_OK", "EXIT_NO", "EXIT_USAGE", "EXIT_NO_SOLUTION", "EXIT_INTERNAL", "EXIT_INTERRUPTED",
           "EXIT_CODES", "OneLineParser", "add_common_options", "show_progress", "emit_json", "say",
           "positive_int", "nonnegative_int", "positive_float", "nonnegative_float", "open_unit_float",
           "json_to_stdout", "debug_enabled", "configure_logging", "check_output_folder", "output_folder", "MARKER",
           "add_output_options", "plan_output", "resumable_folder", "read_marker", "Formats", "TABLE_FORMATS", "FIGURE_FORMATS",
           "add_format_option", "DEFAULT_FORMATS", "write_table", "format_table", "exact_number", "merge_common_options",
           "check_common_defaults", "COMMON_DESTS"]

#: File that marks a folder written by a fairalloc command (JSON: command, job, the entries it wrote);
#: a rerun may replace those entries (with ``--force``), and nothing else.
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
    """Add ``-q``, ``-v``, ``--json``, ``--no-progress``, ``--progress`` and ``--debug`` (see the module docstring).

    The same options are taken before and after the subcommand's name (``fairalloc -v sweep ...`` and
    ``fairalloc sweep -v ...`` alike). ``top``: the ``fairalloc`` parser itself, whose defaults
    (``quiet`` False, ``verbose`` 0, ...) are the values when an option is not given. On a subcommand
    the defaults are ``SUPPRESS``, so that an option given before the subcommand's name is not
    overwritten by the subcommand's default. ``-v`` counts on both levels: before the name it
    counts into ``verbose_top`` and :func:`merge_common_options` adds it (``fairalloc -v sweep -v``
    is ``-vv``). A subcommand that defines one of these options itself must give it the default
    ``argparse.SUPPRESS`` (:func:`check_common_defaults` says which do not).
    """
    d = {"default": argparse.SUPPRESS}
    g = parser.add_argument_group("common options (before or after the command's name)" if top else "common options")
    options: list[tuple[tuple[str, ...], dict[str, Any]]] = [
        (("-q", "--quiet"), dict(action="store_true", help="only errors and warnings on the terminal")),
        (("-v", "--verbose"), dict(action="count", help="log what happens (-vv: more)",
                                   **({"dest": "verbose_top"} if top else {}))),
        (("--json",), dict(metavar="PATH|-", help="write the result as JSON to PATH ('-': stdout, and nothing "
                                                  "else on stdout)")),
        (("--no-progress",), dict(action="store_true", help="no progress bars (also off when stderr is not a "
                                                            "terminal, and with -q)")),
        (("--progress",), dict(action="store_true", help="progress bars even when stderr is not a terminal "
                                                         "(a log file)")),
        (("--debug",), dict(action="store_true", help="show the traceback of an error (or set FAIRALLOC_DEBUG=1)")),
    ]
    for flags, kw in options:
        try:
            g.add_argument(*flags, **kw, **d)
        except argparse.ArgumentError:      # a subcommand that defines it itself keeps its own (same meaning)
            pass
    if top:
        parser.set_defaults(quiet=False, verbose=0, verbose_top=0, json=None, no_progress=False, progress=False,
                            debug=False)


#: The destinations of the common options (:func:`add_common_options`).
COMMON_DESTS = ("quiet", "verbose", "json", "no_progress", "progress", "debug")


def merge_common_options(args: argparse.Namespace) -> argparse.Namespace:
    """Count ``-v`` given before the subcommand's name with those after it (``args.verbose``); returns ``args``."""
    args.verbose = (getattr(args, "verbose", 0) or 0) + (getattr(args, "verbose_top", 0) or 0)
    args.verbose_top = 0
    return args


def check_common_defaults(parser: argparse.ArgumentParser, *, top: bool = True) -> list[str]:
    """The common options the subcommands of ``parser`` (and theirs) define with another default than
    ``SUPPRESS``, as ``"COMMAND OPTION"``: each would overwrite the same option given before the
    subcommand's name (``fairalloc -q sweep``). Empty when every subcommand follows the rule."""
    bad = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                bad += [f"{name} {b}" for b in check_common_defaults(sub, top=False)]
        elif not top and action.dest in COMMON_DESTS and action.default is not argparse.SUPPRESS:
            bad.append("/".join(action.option_strings))
    return bad


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
    """Progress bars: not with ``-q`` / ``--no-progress``; with ``--progress``; else only when stderr is a terminal."""
    if getattr(args, "quiet", False) or getattr(args, "no_progress", False):
        return False
    if getattr(args, "progress", False):
        return True
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



# -- output folders ---------------------------------------------------------------------------------
def add_output_options(parser: argparse.ArgumentParser, *, runs: str | None = None, default: str | None = None,
                       what: str = "output folder") -> None:
    """Add ``--out DIR`` and ``--force`` (the rule is in the module docstring).

    Parameters
    ----------
    runs : str, optional
        Without ``--out``, each run writes a new folder ``runs/YYYYmmdd-HHMMSS`` (``runs/latest``
        points at the newest).
    default : str, optional
        Without ``--out`` (and ``runs``): the folder's description in the help (the command decides it).
    what : str
        What the folder holds, for the help.
    """
    if runs is not None:
        where = f"default: a new folder {runs}/YYYYmmdd-HHMMSS per run, {runs}/latest links the newest"
    elif default is not None:
        where = f"default: {default}"
    else:
        where = "nothing is written without it"
    parser.add_argument("--out", default=None, metavar="DIR",
                        help=f"{what} ({where}); a non-empty folder fairalloc did not write is refused")
    parser.add_argument("--force", action="store_true",
                        help="--out names an earlier output of fairalloc: replace what that run wrote (other "
                             "files there are kept)")
    parser.set_defaults(_runs_root=runs)


def read_marker(folder: str | Path) -> dict | None:
    """What :data:`MARKER` in ``folder`` says (``command``, ``job``, ``written``), or None without one.

    A marker of an older fairalloc (one line of text) gives ``written`` None: which entries that run
    wrote is not known.
    """
    path = Path(folder) / MARKER
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        info = json.loads(text)
        if isinstance(info, dict):
            return info
    except ValueError:
        pass
    words = text.split()
    return {"command": words[-1] if words else None, "job": None, "written": None}


def _write_marker(folder: Path, command: str, job: str | None, written: Sequence[str], *,
                  kept: Sequence[str] = (), running: bool = False) -> None:
    """``running``: a resumable job started writing; until it ends, everything in the folder but ``kept``
    (what was there before and is not ours) counts as written by it (an interrupted run's partial files)."""
    from ..version import __version__

    info = {"command": command, "job": job, "written": sorted(written), "kept": sorted(kept),
            "running": running, "fairalloc": __version__, "time": time.strftime("%Y-%m-%dT%H:%M:%S")}
    (folder / MARKER).write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")


def _earlier_entries(out: Path, marker: dict | None, ours: tuple[str, ...]) -> set[str] | None:
    """Entries of ``out`` an earlier run of fairalloc wrote; None when ``out`` is not an output of fairalloc."""
    entries = {p.name for p in out.iterdir()} - {MARKER}
    if marker is None:          # a folder without marker: ours only if it holds nothing but what we write
        return entries if entries <= set(ours) else None
    if marker.get("running"):   # a resumable run that did not end: all but what it found and kept
        return entries - set(marker.get("kept") or ())
    written = marker.get("written")
    return entries & (set(written) if written is not None else set(ours) if ours else entries)


def check_output_folder(path: str | Path, option: str = "--out", *, ours: tuple[str, ...] = (),
                        force: bool = False, job: str | None = None) -> Path:
    """Refuse, before any work, an output folder the rule of this module does not let a run write.

    Parameters
    ----------
    path : str or Path
        The folder.
    option : str
        The option that named it (for the message).
    ours : tuple of str
        The names the command writes: a folder holding only these, without :data:`MARKER`, is an
        output of an older fairalloc.
    force : bool
        ``--force``: an earlier output of fairalloc may be replaced.
    job : str, optional
        A resumable job's identity: a folder whose marker names the same job is resumed.

    Returns
    -------
    Path

    Raises
    ------
    InvalidInstanceError
        ``path`` is a file; a non-empty folder fairalloc did not write; an earlier output of fairalloc
        (another job's) without ``force``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "notes.txt").write_text("mine")
    >>> check_output_folder(d)
    Traceback (most recent call last):
    ...
    fairalloc.errors.InvalidInstanceError: --out ...: a non-empty folder that fairalloc did not write; give a new or empty folder
    """
    from ..errors import InvalidInstanceError

    out = Path(path)
    if out.exists() and not out.is_dir():
        raise InvalidInstanceError(f"{option} {out}: exists and is not a folder", argument=option, value=str(out))
    if not out.is_dir() or not any(out.iterdir()):
        return out
    marker = read_marker(out)
    earlier = _earlier_entries(out, marker, ours)
    if earlier is None:
        raise InvalidInstanceError(f"{option} {out}: a non-empty folder that fairalloc did not write; give a new or "
                                   "empty folder", argument=option, value=str(out))
    if force or (job is not None and (marker is None or marker.get("job") == job)):
        return out              # (a resumable job's folder of an older fairalloc, without marker: resumed)
    what = (marker or {}).get("command") or "a command"
    detail = f" ({marker['job']})" if marker and marker.get("job") else ""
    raise InvalidInstanceError(f"{option} {out}: holds an earlier output of fairalloc {what}{detail}; give another "
                               "folder, or --force to replace it (files fairalloc did not write there are kept)",
                               argument=option, value=str(out))


def _new_run(root: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path, k = root / stamp, 1
    while path.exists():
        k += 1
        path = root / f"{stamp}-{k}"
    return path


def _link_latest(root: Path, run: Path) -> None:
    """Point ``root/latest`` at ``run`` (a relative symbolic link; skipped where links are not allowed,
    or when ``latest`` is something else than a link)."""
    latest = root / "latest"
    if latest.exists() and not latest.is_symlink():
        return
    tmp = root / f".latest-{os.getpid()}"
    try:
        if tmp.is_symlink():
            tmp.unlink()
        os.symlink(run.name, tmp, target_is_directory=True)
        os.replace(tmp, latest)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()


def _target(args: argparse.Namespace, path: str | Path | None) -> tuple[Path, Path | None]:
    """The folder a run writes, and the run-folder root when it is a new timestamped run."""
    if path is not None:
        return Path(path), None
    root = getattr(args, "_runs_root", None)
    if root is None:
        raise ValueError("no output folder: give --out (this command has no default)")
    return _new_run(Path(root)), Path(root)


def plan_output(args: argparse.Namespace, *, ours: tuple[str, ...] = ()) -> Path:
    """Decide, before any work, where this run writes (``--out``, or a new run folder), check it by the
    rule, and keep it in ``args.out`` for :func:`output_folder`; returns it."""
    out, root = _target(args, getattr(args, "out", None))
    if root is None:
        check_output_folder(out, ours=ours, force=bool(getattr(args, "force", False)))
    args.out, args._runs_root_used = str(out), root
    return out


@contextlib.contextmanager
def output_folder(path: str | Path | None, args: argparse.Namespace, command: str, *,
                  ours: tuple[str, ...] = ()) -> Iterator[Path]:
    """Write an output folder whole or not at all, by the rule of this module.

    Yields a temporary folder next to ``path`` (``None``: a new run folder, :func:`add_output_options`
    ``runs``); when the block ends without error it gets :data:`MARKER` and takes the place of
    ``path``: the entries an earlier run of fairalloc wrote there are replaced (only with
    ``--force``; the command says so), anything else in the folder is kept. On an error or an
    interrupt the temporary folder is deleted and ``path`` is left as it was.
    """
    out, root = _target(args, path)
    if root is None and getattr(args, "_runs_root_used", None) is not None and Path(args.out) == out:
        root = args._runs_root_used       # planned by plan_output as a new run folder
    force = bool(getattr(args, "force", False))
    if root is None:
        check_output_folder(out, ours=ours, force=force)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.partial-", dir=out.parent))
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o777 & ~umask)           # mkdtemp's folder is private; the output is as any new folder
    try:
        yield tmp
        _write_marker(tmp, command, None, [p.name for p in tmp.iterdir()])
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if root is not None and out.exists():   # another run took the name meanwhile
        out = _new_run(root)
    args.out = str(out)
    if out.is_dir() and any(out.iterdir()):
        earlier = _earlier_entries(out, read_marker(out), ours) or set()
        kept = []
        for p in sorted(out.iterdir(), key=lambda q: q.name):
            if p.name == MARKER or p.name in earlier:
                continue
            name = p.name if not (tmp / p.name).exists() else f"{p.name}.kept"
            os.replace(p, tmp / name)
            kept.append(name)
        if earlier:
            say(args, f"replacing {out}: {len(earlier)} entries of an earlier run of fairalloc"
                      + (f"; kept {', '.join(kept)}" if kept else ""))
        trash = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
        os.replace(out, trash / out.name)
        os.replace(tmp, out)
        shutil.rmtree(trash, ignore_errors=True)
    else:
        if out.is_dir():
            out.rmdir()
        os.replace(tmp, out)
    if root is not None:
        _link_latest(root, out)


@contextlib.contextmanager
def resumable_folder(path: str | Path, args: argparse.Namespace, command: str, job: str, *,
                     ours: tuple[str, ...] = ()) -> Iterator[Path]:
    """A folder a resumable job writes in place (a sweep's cells as they finish), by the rule of this module.

    The same ``job`` resumes in its folder (and a folder of an older fairalloc holding only ``ours``,
    whose job was not recorded); another job's earlier output is replaced only with ``--force`` (its
    entries are removed before the run; other files are kept); a non-empty folder fairalloc did not
    write is refused. :data:`MARKER` names the job from the start and, when the
    block ends without error, the entries it wrote; while a run has not ended (it was interrupted),
    everything in the folder but what it found there counts as its own.
    """
    out = check_output_folder(path, ours=ours, force=bool(getattr(args, "force", False)), job=job)
    out.mkdir(parents=True, exist_ok=True)
    marker = read_marker(out)
    earlier = _earlier_entries(out, marker, ours) or set()
    if earlier and marker is not None and marker.get("job") != job:     # --force: another job's output goes
        say(args, f"replacing {out}: {len(earlier)} entries of an earlier run of fairalloc "
                  f"{(marker or {}).get('command') or command}")
        for name in earlier:
            p = out / name
            shutil.rmtree(p) if p.is_dir() and not p.is_symlink() else p.unlink()
        earlier = set()
    foreign = {p.name for p in out.iterdir()} - earlier - {MARKER}
    _write_marker(out, command, job, sorted(earlier), kept=sorted(foreign), running=True)
    yield out
    _write_marker(out, command, job, sorted({p.name for p in out.iterdir()} - foreign - {MARKER}),
                  kept=sorted(foreign))


# -- output formats ---------------------------------------------------------------------------------
# The formats and the table writer are fairalloc.formats' (the experiment layer writes with them too).

#: The default of ``--format`` (``args.format is DEFAULT_FORMATS``: the option was not given).
DEFAULT_FORMATS = Formats()


def _formats_parser(tables: bool, figures: bool):
    allowed = (TABLE_FORMATS if tables else ()) + (FIGURE_FORMATS if figures else ())

    def parse(text: str) -> Formats:
        words = [w.strip().lower().lstrip(".") for w in text.split(",") if w.strip()]
        bad = [w for w in words if w not in allowed]
        if bad or not words:
            raise argparse.ArgumentTypeError(f"{bad[0] if bad else text!r}: not one of {', '.join(allowed)}")
        t = tuple(dict.fromkeys(w for w in words if w in TABLE_FORMATS))
        f = tuple(dict.fromkeys(w for w in words if w in FIGURE_FORMATS))
        return Formats(t or Formats.tables, f or Formats.figures)

    parse.__name__ = "formats"
    return parse


def add_format_option(parser: argparse.ArgumentParser, *, tables: bool = True, figures: bool = True) -> None:
    """Add ``--format`` (``args.format``: a :class:`Formats`): the same option on every command that writes files."""
    kinds = []
    if tables:
        kinds.append(f"tables {', '.join(TABLE_FORMATS)}")
    if figures:
        kinds.append(f"figures {', '.join(FIGURE_FORMATS)}")
    default = ",".join(([Formats.tables[0]] if tables else []) + ([Formats.figures[0]] if figures else []))
    parser.add_argument("--format", type=_formats_parser(tables, figures), default=DEFAULT_FORMATS, metavar="LIST",
                        help=f"comma-separated file formats: {'; '.join(kinds)} (default: {default}; a kind "
                             "not named keeps its default)")


# -- terminal tables --------------------------------------------------------------------------------
#: A float column whose every value Python writes in at most this many significant digits was typed
#: (a parameter: delta = 0.999999, k_p = 10800): it is printed exactly.
TYPED_DIGITS = 12


def _significant_digits(x: float) -> int:
    text = repr(float(x)).lower().lstrip("-").split("e")[0].replace(".", "").lstrip("0")
    return len(text.rstrip("0")) if text else 0


def exact_number(x: float) -> str:
    """The shortest text that reads back as ``x`` (Python's ``repr``), without a trailing ``.0``.

    >>> exact_number(0.999999), exact_number(10800.0), exact_number(1e-07)
    ('0.999999', '10800', '1e-07')
    """
    text = repr(float(x))
    return text[:-2] if text.endswith(".0") else text


def format_table(df: Any, *, max_rows: int | None = None, digits: int = 4) -> str:
    """``df.to_string()`` with typed numbers exact and measurements to ``digits`` significant digits.

    A float column whose values all have at most :data:`TYPED_DIGITS` significant digits (parameters
    of a grid, counts stored as floats) prints each value exactly (:func:`exact_number`); other float
    columns (measured values) print ``digits`` significant digits.

    Examples
    --------
    >>> import pandas as pd
    >>> print(format_table(pd.DataFrame({"delta": [0.999999, 0.9], "wait": [1 / 3, 2.0]})))
         delta   wait
    0 0.999999 0.3333
    1      0.9      2
    """
    import numpy as np
    import pandas as pd

    formatters = {}
    for col in df.columns:
        values = df[col]
        if not pd.api.types.is_float_dtype(values):
            continue
        finite = values[np.isfinite(values.to_numpy(dtype=float, na_value=np.nan))]
        if all(_significant_digits(v) <= TYPED_DIGITS for v in finite):
            formatters[col] = lambda v: "NaN" if pd.isna(v) else exact_number(v)
        else:
            formatters[col] = lambda v, d=digits: "NaN" if pd.isna(v) else f"{v:,.{d}g}"
    with pd.option_context("display.width", 200, "display.max_columns", 40):
        return df.to_string(formatters=formatters, max_rows=max_rows) if len(df) else "(no rows)"
