"""proofs_check uses fairalloc through public names only (issue 15 item 6).

It once imported ``fairalloc._validation``, ``fairalloc._tol`` and ``fairalloc._rng``; what it needs is
public now (:mod:`fairalloc.validation`, :mod:`fairalloc.tolerance`, :mod:`fairalloc.rng`).
"""

import ast
from pathlib import Path

import proofs_check

ROOT = Path(proofs_check.__file__).parent


def private_fairalloc_imports(path: Path) -> list[str]:
    bad = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and node.module.split(".")[0] == "fairalloc":
            parts = node.module.split(".")
            names = [a.name for a in node.names]
            if any(p.startswith("_") for p in parts) or any(n.startswith("_") for n in names):
                bad.append(f"{path.name}:{node.lineno}: from {node.module} import {', '.join(names)}")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "fairalloc" and any(p.startswith("_") for p in a.name.split(".")):
                    bad.append(f"{path.name}:{node.lineno}: import {a.name}")
    return bad


def test_proofs_check_imports_only_public_fairalloc_names():
    bad = [b for f in sorted(ROOT.glob("*.py")) for b in private_fairalloc_imports(f)]
    assert not bad, bad


def test_the_checker_sees_a_private_import(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("from fairalloc._tol import ATOL\nfrom fairalloc.shares import _x\nimport fairalloc._rng\n")
    assert len(private_fairalloc_imports(f)) == 3


def test_result_construction_uses_the_public_constructor():
    import fairalloc

    pkg = Path(fairalloc.__file__).parent
    users = [str(p.relative_to(pkg)) for p in pkg.rglob("*.py")
             if "._adopt(" in p.read_text() and p.name != "result.py"]
    assert not users, users


def intra_package_imports(path: Path) -> set[str]:
    """Modules of proofs_check that ``path`` imports, at the top or inside functions."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:
                if node.module:
                    out.add(node.module.split(".")[0])
                else:
                    out.update(a.name for a in node.names)
            elif node.level == 0 and node.module and node.module.startswith("proofs_check."):
                out.add(node.module.split(".")[1])
    return out


def test_no_import_cycles_inside_proofs_check():
    # issue 15 item 6: replay.py <-> _replay_tv.py imported each other (inside functions)
    import networkx as nx

    g = nx.DiGraph()
    for f in ROOT.glob("*.py"):
        for dep in intra_package_imports(f):
            if (ROOT / f"{dep}.py").exists():
                g.add_edge(f.stem, dep)
    cycles = list(nx.simple_cycles(g))
    assert not cycles, cycles
