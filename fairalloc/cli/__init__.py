"""The ``fairalloc`` command line: ``fairalloc solve | simulate | compare | check | ...``.

Each subcommand lives in its own module ``fairalloc.cli.<name>`` exposing
``register(subparsers) -> argparse.ArgumentParser`` (which sets ``func=run`` as a default) and
``run(args) -> int``; its one-line help is :data:`COMMAND_HELP`. Other packages add subcommands
through the entry point group ``fairalloc.commands`` (an object with the same ``register``):
``proofs_check`` provides ``fairalloc check`` that way, so fairalloc never imports proofs_check
(``docs/design.md``).

Dispatch is lazy: :func:`main` imports the module of the subcommand that runs and nothing else
(``fairalloc --help`` lists the built-in subcommands from :data:`COMMAND_HELP` without importing
them, and loads only the plugins, for their help line), so start-up does not pay for numba, scipy
or pandas.

Every subcommand takes the options of :mod:`fairalloc.cli.conventions` (``-q``, ``-v``, ``--json``,
``--no-progress``, ``--progress``, ``--debug``), before or after its name (``fairalloc -v sweep ...``
is ``fairalloc sweep -v ...``), and follows its exit statuses: an input error is one line on stderr
and exit status 2; ``--debug`` (or ``FAIRALLOC_DEBUG=1``) shows the traceback.
"""

from __future__ import annotations

import argparse
import csv
import importlib
import logging
import os
import sys
import warnings
import zlib
from typing import Sequence

from ..errors import FairallocError, SolverError, SolverUnavailableError
from .conventions import (EXIT_CODES, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_NO_SOLUTION, EXIT_USAGE, OneLineParser,
                      add_common_options, configure_logging, debug_enabled, json_to_stdout, merge_common_options,
                      write_pending_json)

__all__ = ["main", "console", "started_by_console", "SUBCOMMANDS", "COMMAND_HELP", "PLUGIN_GROUP", "build_parser"]

#: One-line help of each built-in subcommand (``fairalloc --help``), in the order it lists them.
COMMAND_HELP: dict[str, str] = {
    "solve": "solve an instance with max-min, DRF and SDRF (or chosen mechanisms)",
    "simulate": "simulate scheduling policies on a trace or a generated workload",
    "compare": "greedy schedulers against the exact optimum on small instances",
    "sweep": "run an experiment spec (a grid of simulations) on Dask, resumable",
    "results": "show a sweep's results (tables, SQL through DuckDB)",
    "reproduce": "reproduce a seed paper's headline experiment and report against it",
    "learn": "learn priority functions by simulation (learned-priorities method)",
    "whatif": "one trace under several policies and settings: per-user and per-account waits and shares",
    # issue 27
    "explain": "why did one job wait: each decision while it was pending (priority, factors, what blocked it)",
}
#: Subcommand modules of fairalloc (``fairalloc.cli.<name>``), in the order ``fairalloc --help`` lists them.
SUBCOMMANDS: tuple[str, ...] = tuple(COMMAND_HELP)
#: Exit status when the reader of stdout went away (128 + SIGPIPE, as a shell reports it).
EXIT_BROKEN_PIPE = 141
#: Entry point group of subcommands provided by other packages (``check``: proofs_check.cli).
PLUGIN_GROUP = "fairalloc.commands"

logger = logging.getLogger(__name__)


def _plugins(only: str | None = None) -> list:
    """Subcommand objects of the entry point group, sorted by name (a broken one is skipped with a
    warning); ``only``: just the one of that name (nothing when no plugin has it)."""
    from importlib.metadata import entry_points

    out = []
    for ep in sorted(entry_points(group=PLUGIN_GROUP), key=lambda e: e.name):
        if only is not None and ep.name != only:
            continue
        try:
            out.append(ep.load())
        except Exception as exc:  # noqa: BLE001 - a broken plugin must not break the other commands
            print(f"fairalloc: warning: subcommand {ep.name!r} ({ep.value}) not loaded: {exc}", file=sys.stderr)
    return out


class _VersionAction(argparse.Action):
    """``--version``: reads the installed version only when asked (importlib.metadata takes 0.05-0.1 s)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from ..version import __version__

        print(f"fairalloc {__version__}")
        parser.exit()


class _Subparsers:
    """What a subcommand's ``register`` receives: ``add_parser`` with the help line of :data:`COMMAND_HELP`."""

    def __init__(self, action):
        self._action = action

    def add_parser(self, name: str, **kw):
        if name in COMMAND_HELP:
            kw.setdefault("help", COMMAND_HELP[name])
        return self._action.add_parser(name, **kw)

    def __getattr__(self, name):
        return getattr(self._action, name)


def _command_of(argv: Sequence[str]) -> str | None:
    """The subcommand named in ``argv``: the first word that is not an option (the top-level options
    take no value), or None (``fairalloc``, ``fairalloc --help``)."""
    for word in argv:
        if word == "--":
            return None
        if not word.startswith("-"):
            return word
    return None


def build_parser(command: str | None = None, *, lazy: bool = False) -> argparse.ArgumentParser:
    """The ``fairalloc`` argument parser: the common options and one subparser per subcommand.

    The built-in subcommands (``SUBCOMMANDS``) and those that other installed packages register
    under the ``fairalloc.commands`` entry-point group (``proofs_check`` adds ``check``) each add
    their subparser through their ``register(subparsers)``; every subparser gets the common options
    (``-q``, ``-v``, ``--json``, ``--no-progress``, ``--debug``).

    Parameters
    ----------
    command : str, optional
        With ``lazy``: the subcommand about to run (the only module imported).
    lazy : bool, default False
        Register only ``command`` in full; the other built-in subcommands get a placeholder with
        their help line (their modules are not imported), and plugins are loaded only when no
        built-in subcommand is named (for the listing of ``fairalloc --help``) or for their own run.

    Returns
    -------
    argparse.ArgumentParser
        Parses ``fairalloc [options] COMMAND ...``; ``args.func(args)`` runs the command.

    See Also
    --------
    main : parses, runs the command and maps errors to exit statuses.

    Examples
    --------
    >>> parser = build_parser()
    >>> args = parser.parse_args(["solve", "--list-examples"])
    >>> args.command, args.quiet
    ('solve', False)
    """
    parser = OneLineParser(
        prog="fairalloc",
        description="Fair allocation of several resources among users over time: exact mechanisms, "
                    "greedy schedulers, simulations and axiom checks.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="exit statuses:\n" + "\n".join(f"  {k:3d}  {v}" for k, v in EXIT_CODES.items()))
    parser.add_argument("--version", action=_VersionAction, help="show the version and exit")
    add_common_options(parser, top=True)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    sub.required = True
    wrapped = _Subparsers(sub)
    for name in SUBCOMMANDS:
        if lazy and name != command:        # a placeholder: the help line, the module is not imported
            sub.add_parser(name, help=COMMAND_HELP.get(name), add_help=False)
        else:
            add_common_options(importlib.import_module(f"{__name__}.{name}").register(wrapped))
    if not lazy or command not in SUBCOMMANDS:
        plugins = _plugins(command) if lazy and command is not None else []
        for mod in plugins or _plugins():   # all of them: `fairalloc --help`, or an unknown name's choices
            add_common_options(mod.register(wrapped))
    return parser


def _is_input_error(exc: BaseException) -> bool:
    """Errors that come from what the user gave (files, options), not from a bug of ours."""
    if isinstance(exc, FairallocError):
        return not isinstance(exc, SolverError) or isinstance(exc, SolverUnavailableError)
    if isinstance(exc, (OSError, EOFError, ValueError, zlib.error, csv.Error)):
        return True
    mod = type(exc).__module__ or ""
    return mod.startswith(("yaml", "pyarrow"))


def _one_line(exc: BaseException) -> str:
    text = str(exc) if isinstance(exc, FairallocError) or isinstance(exc, OSError) and exc.filename \
        else f"{type(exc).__name__}: {exc}"
    if isinstance(exc, KeyError) and not isinstance(exc, FairallocError):
        text = f"{type(exc).__name__}: {exc.args[0] if exc.args else ''}"
    return " ".join(line.strip() for line in text.strip().splitlines() if line.strip()) or type(exc).__name__


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``fairalloc`` console script; returns the exit status (see ``fairalloc --help``).

    Parses ``argv``, runs the subcommand, and turns what can go wrong into an exit status and one
    line on stderr instead of a traceback: usage errors and errors in what the user gave (files,
    options, instances) give 2, a bug of fairalloc the internal-error status, an interrupt its own
    status (the table is ``EXIT_CODES``); ``--debug`` shows the traceback. Warnings are printed as one line naming the subcommand.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after ``fairalloc``; ``None`` reads ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit status (0 on success; the others are listed by ``fairalloc --help``).

    Examples
    --------
    ``--version`` prints the version and returns 0; an unknown subcommand is a usage error (2):

    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()) as out:
    ...     code = main(["--version"])
    >>> code, out.getvalue().startswith("fairalloc ")
    (0, True)
    >>> with contextlib.redirect_stderr(io.StringIO()):
    ...     main(["no-such-command"])
    2
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_command_of(argv), lazy=True)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:                       # --help, --version, usage errors (one line, status 2)
        return int(exc.code or 0)
    merge_common_options(args)
    configure_logging(args)
    name = f"fairalloc {args.command}"

    def one_line_warning(message, category, filename, lineno, file=None, line=None):
        print(f"{name}: warning: {' '.join(str(message).split())}", file=sys.stderr)

    try:
        with json_to_stdout(args.json == "-"), warnings.catch_warnings():
            warnings.showwarning = one_line_warning
            warnings.simplefilter("default")
            code = int(args.func(args) or 0)
        write_pending_json(args)
        return code
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:                         # `fairalloc ... | head`: the reader left; stop quietly
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return EXIT_BROKEN_PIPE
    except Exception as exc:  # noqa: BLE001 - the one place that turns exceptions into exit statuses
        if debug_enabled(args):
            raise
        if _is_input_error(exc):
            print(f"{name}: error: {_one_line(exc)}", file=sys.stderr)
            return EXIT_USAGE
        if isinstance(exc, SolverError):
            print(f"{name}: solver error: {_one_line(exc)}", file=sys.stderr)
            return EXIT_NO_SOLUTION
        print(f"{name}: internal error: {_one_line(exc)} (a bug: rerun with --debug and report the traceback)",
              file=sys.stderr)
        return EXIT_INTERNAL


_CONSOLE = False


def console(argv: Sequence[str] | None = None) -> int:
    """The ``fairalloc`` command itself (the console script and ``python -m fairalloc``): :func:`main`
    in a process of its own.

    The same as :func:`main`, except that the process is known to exist for this one command, so a
    subcommand may choose settings that hold for the whole process: ``fairalloc compare`` then runs
    the greedy schedulers as plain Python instead of compiling them (its ``--compile auto``, see
    :mod:`fairalloc.cli.compare`). Code that calls :func:`main` in its own process is never changed so.

    Parameters
    ----------
    argv : sequence of str, optional
        As :func:`main`.

    Returns
    -------
    int
        The exit status, as :func:`main`.

    Examples
    --------
    It is what ``python -m fairalloc`` runs (in a process of its own, as here: a call inside this
    process would let ``compare`` turn numba off for the rest of it):

    >>> import subprocess, sys
    >>> run = subprocess.run([sys.executable, "-m", "fairalloc", "--version"], capture_output=True, text=True)
    >>> run.returncode, run.stdout.startswith("fairalloc ")
    (0, True)
    """
    global _CONSOLE
    before, _CONSOLE = _CONSOLE, True
    try:
        return main(argv)
    finally:
        _CONSOLE = before


def started_by_console() -> bool:
    """Whether this process was started as the ``fairalloc`` command (:func:`console`), not by code
    that calls :func:`main` in a process of its own.

    Examples
    --------
    >>> started_by_console()          # a doctest calls it inside pytest's process
    False
    """
    return _CONSOLE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(console())
