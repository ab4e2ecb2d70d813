"""The README opens with the two fresh-machine commands, and .ci/run runs the second one verbatim."""

from __future__ import annotations

import re


def _first_block(text: str) -> list[str]:
    block = re.search(r"```(?:bash)?\n(.*?)```", text, re.S)
    assert block, "README needs a code block with the two commands"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_two_commands(repo_root):
    lines = _first_block((repo_root / "README.md").read_text())
    assert len(lines) == 2
    install_run, install_test = lines
    assert "pip install" in install_run and "fairalloc " in install_run
    assert 'pip install -e ".[test]"' in install_test and "pytest" in install_test


def test_ci_runs_the_readme_test_command(repo_root):
    ci = (repo_root / ".ci" / "run").read_text()
    assert "sed -n 2p" in ci and 'bash -c "$cmd"' in ci          # runs line 2 of the first block
    assert '"$rc" -eq 5' in ci                                    # "no tests collected" fails CI
