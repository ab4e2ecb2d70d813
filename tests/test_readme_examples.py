"""The README's Python examples run as printed (in order, sharing one namespace, as a reader would
paste them into one session), so the front page cannot drift from the API."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_readme_has_python_examples():
    assert len(_blocks()) >= 5


def test_readme_python_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)          # the examples write out/..., tvtsf.mps
    ns: dict = {}
    for i, block in enumerate(_blocks()):
        try:
            exec(compile(block, f"README.md python block {i}", "exec"), ns)
        except Exception as e:  # pragma: no cover - the message is the point
            pytest.fail(f"README python block {i} fails: {type(e).__name__}: {e}\n{block}")
    # the DRF paper's example in the first block (Ghodsi et al. 2011: A 3 tasks, B 2 tasks)
    fa = ns["fa"]
    inst = fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[100, 100], capacities=[9, 18])
    assert fa.drf(inst).allocation.ravel().tolist() == pytest.approx([3, 12, 6, 2])
    assert (tmp_path / "tvtsf.mps").exists()
