"""The ``fairalloc`` command line: ``fairalloc solve | compare | check | simulate | sweep``.

Each subcommand lives in its own module ``fairalloc.cli.<name>`` exposing
``register(subparsers) -> argparse.ArgumentParser`` (which sets ``func=run`` as a default) and
``run(args) -> int``. Errors that fairalloc raises on purpose are printed as one line on stderr
(exit status 2); anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from ..errors import FairallocError

__all__ = ["main", "SUBCOMMANDS"]

#: Subcommand modules, in the order ``fairalloc --help`` lists them.
SUBCOMMANDS: tuple[str, ...] = ("solve", "simulate", "check", "compare", "sweep", "results", "reproduce")


def build_parser() -> argparse.ArgumentParser:
    from .. import __version__

    parser = argparse.ArgumentParser(
        prog="fairalloc",
        description="Fair allocation of several resources among users over time: exact mechanisms, "
                    "greedy schedulers, simulations and axiom checks.")
    parser.add_argument("--version", action="version", version=f"fairalloc {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in SUBCOMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``fairalloc`` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except FairallocError as exc:
        print(f"fairalloc {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
        print(f"fairalloc {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # pragma: no cover - interactive
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
