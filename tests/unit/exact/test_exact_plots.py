"""Figures of exact allocations render without pyplot state and show what they claim."""

from __future__ import annotations

import numpy as np

import fairalloc as fa
from fairalloc.plots.exact import task_allocation, tvtsf_schedule


def test_task_allocation_bars_stack_to_the_server_load():
    ti = fa.TaskInstance([[9, 18]], [[1, 4], [3, 1]], tasks=[10, 10])
    r = fa.exact.tasks_leximin(ti, solver="highs")
    fig = task_allocation(r, ti)
    ax = fig.axes[0]
    heights = [p.get_height() for p in ax.patches]
    # A: 3 tasks of (1, 4) -> bottleneck memory 12/18; B: 2 of (3, 1) -> CPU 6/9
    np.testing.assert_allclose(heights, [12 / 18, 6 / 9])


def test_tvtsf_schedule_lines_are_the_cumulative_shares():
    tv = fa.TimeVaryingInstance([[2]], [[1], [1]], arrivals=[[2, 0], [1, 1]], durations=[1, 1])
    r = fa.tvtsf(tv, method="milp-online", solver="highs")
    fig = tvtsf_schedule(r, tv)
    lines = fig.axes[0].get_lines()
    # online: 1 + 1 started in each slot, h = 2: shares 1/2 after slot 0 and 2/4 after slot 1
    for line in lines:
        np.testing.assert_allclose(line.get_ydata(), [0.5, 0.5])
