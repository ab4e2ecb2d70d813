"""Start-up of the command line and of ``import fairalloc`` (issue 32): what gets imported, not how long
it takes (no verdict depends on the machine's speed; the times are in benchmarks/RESULTS.md).

``import fairalloc`` loads the errors only (PEP 562: every public name on first use), ``fairalloc --help``
lists the subcommands without importing their modules, and a subcommand imports its own module only."""

from __future__ import annotations

import json
import subprocess
import sys

import fairalloc as fa
from fairalloc import cli

#: Heavy libraries (and the axiom checkers) that start-up must not import.
HEAVY = ("numpy", "numba", "scipy", "pandas", "matplotlib", "pulp", "proofs_check.axioms", "fairalloc.model",
         "fairalloc.scheduling")


def _loaded_after(code: str) -> dict:
    """Run ``code`` in a fresh interpreter; the HEAVY modules and fairalloc.cli.* loaded afterwards."""
    probe = (f"import sys\n{code}\nimport json\n"
             f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
             "ours = sorted(m for m in sys.modules if m.startswith('fairalloc.cli.'))\n"
             "print(json.dumps({'heavy': heavy, 'cli': ours}), file=sys.stderr)")
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stderr.strip().splitlines()[-1])


def test_import_fairalloc_loads_no_heavy_library():
    assert _loaded_after("import fairalloc")["heavy"] == []


def test_help_and_version_load_no_subcommand_module():
    for argv in (["--help"], ["--version"]):
        got = _loaded_after(f"from fairalloc.cli import main\nassert main({argv!r}) == 0")
        assert got["heavy"] == [], argv
        assert set(got["cli"]) <= {"fairalloc.cli.conventions"}, argv


def test_a_subcommand_imports_its_own_module_only():
    got = _loaded_after("from fairalloc.cli import main\nassert main(['solve', '--list-examples']) == 0")
    assert "fairalloc.cli.solve" in got["cli"]
    assert not {f"fairalloc.cli.{n}" for n in ("compare", "simulate", "sweep", "results", "reproduce")} & set(got["cli"])


def test_the_lazy_listing_is_the_full_parsers():
    # the placeholders of `fairalloc --help` carry the same help lines as the subcommands' own parsers
    assert cli.build_parser(None, lazy=True).format_help() == cli.build_parser().format_help()
    # every subcommand's help line comes from COMMAND_HELP (one place)
    full = cli.build_parser()
    sub = next(a for a in full._actions if a.dest == "command")
    helps = {a.dest: a.help for a in sub._choices_actions}
    for name in cli.SUBCOMMANDS:
        assert helps[name] == cli.COMMAND_HELP[name]


def test_lazy_public_names_resolve_and_are_listed():
    assert set(fa.__all__) <= set(dir(fa))
    assert fa.Instance is __import__("fairalloc.model", fromlist=["Instance"]).Instance
    assert fa.__version__
    try:
        fa.no_such_name
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("fa.no_such_name did not raise AttributeError")
