"""Imports flow one way (DESIGN.md): every ``import`` statement of ``fairalloc`` and ``proofs_check``,
at module level or inside a function, read from the source with :mod:`ast` (nothing is imported).

Rule table (a unit is a top-level module or subpackage of ``fairalloc``; a unit may import units of
its own rank or below, never above; the facade ``fairalloc/__init__.py`` is exempt):

====  ==================================================  =================================================
rank  units                                               what they are
====  ==================================================  =================================================
0     errors, version, tolerance, validation, rng, _numeric  exceptions, numeric and validation helpers
0     formats                                             output formats of tables and figures, the table writer
0     kinetic                                             sorted structures: imports nothing of fairalloc
0     _merge_sort                                         the compiled loops' one stable sort (through _jit)
1     shares                                              THE formulas, over plain arrays
2     model, result, commitments, clusters                 instances, results, SDRF commitments (use shares)
3     io, examples, workloads, accounts, formats           reading instances, traces, account trees; output formats
4     mechanisms, exact, scheduling, fairshare             the algorithms (siblings: may import each other)
5     sim                                                 the simulator
6     experiments, plots                                   experiments over the above; figures
7     cli, __main__                                        the command line
====  ==================================================  =================================================

Extra rules: ``kinetic`` imports nothing of ``fairalloc`` but the dependency-free ``_jit`` helper; ``fairalloc`` never imports ``proofs_check``
(``fairalloc check`` comes from proofs_check through an entry point); no unit imports the facade
``fairalloc`` itself except ``cli`` (its version) and ``proofs_check``; the unit graph has no cycle.

DESIGN.md writes ``model <- shares``; the code keeps ``shares`` below ``model`` (``shares`` holds pure
formulas over arrays and imports nothing of ours but numeric helpers; the model's normalised views
call them), which is the order this table checks.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

RANKS: dict[str, int] = {
    "errors": 0, "version": 0, "tolerance": 0, "validation": 0, "rng": 0,
    "_numeric": 0, "kinetic": 0, "_jit_cache": 0, "formats": 0, "_jit": 0, "_merge_sort": 0,
    "shares": 1,
    "model": 2, "result": 2, "commitments": 2, "clusters": 2,
    "io": 3, "examples": 3, "workloads": 3, "accounts": 3,
    "mechanisms": 4, "exact": 4, "scheduling": 4, "fairshare": 4,
    "sim": 5,
    "experiments": 6, "plots": 6,
    "cli": 7, "__main__": 7,
}
#: Units that import nothing of fairalloc but one another (``_jit`` compiles at first use; ``kinetic`` uses it;
#: ``_merge_sort`` is the one sort of the compiled loops, bound per comparator through ``_jit``).
STANDALONE = {"kinetic", "_jit_cache", "_jit", "_merge_sort"}


def _imports(path: Path, package: list[str]) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in ``path`` (``package``: its package's dotted parts)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                if node.module:
                    out.append((node.lineno, ".".join(base + [node.module])))
                else:
                    out += [(node.lineno, ".".join(base + [a.name])) for a in node.names]
            else:
                out.append((node.lineno, node.module or ""))
    return out


def _modules(top: str):
    for path in sorted((ROOT / top).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        package = parts[:-1]
        yield path, parts, package


def _unit(parts: list[str]) -> str:
    return parts[1] if len(parts) > 1 and parts[1] != "__init__" else "__init__"


def _fairalloc_edges():
    edges = []
    for path, parts, package in _modules("fairalloc"):
        src = _unit(parts)
        for line, target in _imports(path, package):
            edges.append((path.relative_to(ROOT), line, src, target))
    return edges


def test_every_unit_has_a_rank():
    units = {_unit(parts) for _, parts, _ in _modules("fairalloc")} - {"__init__"}
    missing = sorted(units - set(RANKS))
    assert not missing, f"units without a rank in the rule table of this test: {missing}"


def test_fairalloc_never_imports_proofs_check():
    bad = [f"{p}:{line} imports {t}" for p, line, _, t in _fairalloc_edges() if t.split(".")[0] == "proofs_check"]
    assert not bad, "fairalloc must not import proofs_check (DESIGN.md):\n" + "\n".join(bad)


def test_imports_flow_one_way():
    bad = []
    for p, line, src, target in _fairalloc_edges():
        head = target.split(".")
        if head[0] != "fairalloc" or src == "__init__":
            continue
        if len(head) == 1 or head[1] == "__version__":
            if src not in ("cli", "__main__"):
                bad.append(f"{p}:{line}: {src} imports the facade 'fairalloc' (import the unit it needs)")
            continue
        dst = head[1]
        if dst == src:
            continue
        if src in STANDALONE and dst not in STANDALONE:
            bad.append(f"{p}:{line}: {src} must import nothing of fairalloc, imports {target}")
        elif RANKS.get(dst, 99) > RANKS[src]:
            bad.append(f"{p}:{line}: {src} (rank {RANKS[src]}) imports {target} (rank {RANKS.get(dst)})")
    assert not bad, "imports against the direction of DESIGN.md (rule table in this test's docstring):\n" \
        + "\n".join(bad)


def test_no_cycle_between_units():
    graph: dict[str, set[str]] = defaultdict(set)
    for _, _, src, target in _fairalloc_edges():
        head = target.split(".")
        if head[0] == "fairalloc" and len(head) > 1 and head[1] in RANKS and head[1] != src and src != "__init__":
            graph[src].add(head[1])
    state: dict[str, int] = {}
    cycle: list[str] = []

    def visit(u: str, stack: list[str]) -> bool:
        state[u] = 1
        for v in sorted(graph[u]):
            if state.get(v) == 1:
                cycle.extend(stack[stack.index(v):] + [u, v] if v in stack else [u, v])
                return True
            if state.get(v) is None and visit(v, stack + [u]):
                return True
        state[u] = 2
        return False

    for u in sorted(graph):
        if state.get(u) is None and visit(u, []):
            break
    assert not cycle, f"import cycle between units: {' -> '.join(cycle)}"


@pytest.mark.parametrize("case, expected", [
    ("from ..sim import simulate", "fairalloc.sim"),
    ("from . import shares", "fairalloc.shares"),
    ("import proofs_check.campaign", "proofs_check.campaign"),
])
def test_the_import_reader_resolves_relative_imports(tmp_path, case, expected):
    # the walker itself: a relative import in fairalloc/mechanisms/x.py, resolved by hand
    f = tmp_path / "x.py"
    f.write_text(case + "\n")
    package = ["fairalloc"] if case.startswith("from . ") else ["fairalloc", "mechanisms"]
    assert _imports(f, package) == [(1, expected)]


def test_proofs_check_uses_only_the_conventions_of_the_command_line():
    # proofs_check imports fairalloc (it checks it); of fairalloc's command line only proofs_check.cli (the
    # subcommand `check`) uses the public conventions module, nothing else
    bad = [f"{path.relative_to(ROOT)}:{line} imports {t}" for path, parts, package in _modules("proofs_check")
           for line, t in _imports(path, package) if t.startswith("fairalloc.cli")
           and not (parts == ["proofs_check", "cli"] and t == "fairalloc.cli.conventions")]
    assert not bad, "\n".join(bad)
