"""The MILP backends the exact-engine tests run on: each one installed, a visible skip otherwise.

CBC is bundled with PuLP 3.x only; PuLP 4 (what pip installs on Python >= 3.12) needs a ``cbc``
binary, so on such a machine the CBC cases skip, saying so.
"""

from __future__ import annotations

import pytest

import fairalloc as fa

_INSTALLED = set(fa.available_solvers("milp"))

MILP_SOLVERS = [pytest.param(s, marks=pytest.mark.skipif(s not in _INSTALLED, reason=f"MILP backend {s!r} "
                                                         "is not installed (PuLP 4 bundles no CBC)"))
                for s in ("highs", "cpsat", "cbc")]


def cbc_or_skip() -> str:
    if "cbc" not in _INSTALLED:
        pytest.skip("CBC is not available to PuLP here (PuLP 4 bundles no CBC)")
    return "cbc"
