"""The decision core's pass is compiled for one type of its ``fresh`` flag, not once per constant.

numba types a constant argument of a call between compiled functions as a literal
(``Literal[bool](True)``) and compiles the callee once per literal value: :func:`core.schedule`
calling :func:`core.schedule_into` with ``True`` and then ``False``, and :mod:`fairalloc.sim.kernels`
calling it with a ``bool`` variable, compiled the largest function of the core three times (about 7
CPU s each, cold, per process and per state type). Found with ``benchmarks/ci_compile_report.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

numba = pytest.importorskip("numba")

from fairalloc.scheduling import core as C  # noqa: E402
from fairalloc.scheduling.keys import DRF  # noqa: E402


def test_schedule_into_is_not_compiled_for_literal_flags():
    # the DRF example of Core's docstring (DRF paper, Section 4): its schedule() compiles schedule_into
    core = C.Core(np.array([[9.0, 18.0]]), np.array([9.0, 18.0]), np.ones((2, 1), bool), np.ones(2),
                  key=DRF, order="heap", rule=0, blocking="stop", ties="wait")
    core.submit(0, np.array([1.0, 4.0]), 10), core.submit(1, np.array([3.0, 1.0]), 10)
    assert core.schedule(None)[:, 0].tolist() == [0, 1, 0, 1, 0]
    dispatcher = C.schedule_into
    if not hasattr(dispatcher, "signatures"):           # NUMBA_DISABLE_JIT=1: nothing is compiled
        pytest.skip("numba's JIT is disabled")
    fresh = [sig[-1] for sig in dispatcher.signatures]
    assert fresh, "schedule_into was not compiled by schedule()"
    assert not [t for t in fresh if isinstance(t, numba.types.Literal)], fresh
