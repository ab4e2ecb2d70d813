"""The Python examples of the documentation site run as printed (each page's blocks in order, sharing
one namespace, as a reader pastes them into one session), so the guides cannot drift from the API.
Pages that read the real traces skip, saying so, when they are absent."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "```python" in p.read_text())


def _blocks(page: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", page.read_text(), re.S)


def test_docs_have_python_examples():
    names = {p.relative_to(DOCS).as_posix() for p in PAGES}
    assert {"getting-started.md", "guides/solve-exactly.md", "guides/compare-greedy.md",
            "guides/simulate-trace.md", "guides/check-axioms.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_docs_python_examples_run(page, tmp_path, monkeypatch, request):
    if "FAIRALLOC_DATA" in page.read_text():
        monkeypatch.setenv("FAIRALLOC_DATA", str(request.getfixturevalue("shared_data")))
    monkeypatch.chdir(tmp_path)          # the examples write model files and witnesses
    monkeypatch.setenv("MPLBACKEND", "Agg")
    ns: dict = {}
    for i, block in enumerate(_blocks(page)):
        try:
            exec(compile(block, f"{page.name} python block {i}", "exec"), ns)
        except Exception as e:  # pragma: no cover - the message is the point
            pytest.fail(f"{page.relative_to(DOCS)} python block {i} fails: {type(e).__name__}: {e}\n{block}")
