"""Row names read from PuLP models are PuLP's own, so a diagnostic names the row the .lp file shows."""

from __future__ import annotations

import pulp

from fairalloc.exact.milp import check_solution, export_model
from fairalloc.exact.program import add_var, from_pulp


def _toy():
    p = pulp.LpProblem("toy", pulp.LpMaximize)
    x = add_var(p, "x", 0, None, integer=True)
    y = add_var(p, "y", 0, None, integer=True)
    p += 3 * x + 2 * y
    p += x + y <= 4
    p += (x + 3 * y <= 6, "mixed")
    p += x <= 3
    return p, x, y


def test_unnamed_rows_get_the_names_pulp_writes(tmp_path):
    p, x, y = _toy()
    text = export_model(p, tmp_path / "toy.lp").read_text()
    labels = {line.split(":")[1].strip(): line.split(":")[0].strip()
              for line in text.splitlines() if ":" in line and "<=" in line}
    # PuLP's writer labels the rows; the reader must use the same labels, in insertion order.
    assert from_pulp(p).row_names == (labels["x + y <= 4"], "mixed", labels["x <= 3"])


def test_check_solution_names_the_violated_row(tmp_path):
    p, x, y = _toy()
    x.setInitialValue(3)                      # x + y = 5: the first row, x + y <= 4, is violated by 1
    y.setInitialValue(2)
    text = export_model(p, tmp_path / "toy.lp").read_text()
    label = next(line.split(":")[0].strip() for line in text.splitlines() if line.endswith("x + y <= 4"))
    assert check_solution(p) == f"constraint {label} violated by 1"
