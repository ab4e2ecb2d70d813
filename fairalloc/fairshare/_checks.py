"""One check for the scalar knobs of the fair-share policies (half-lives, periods, weights)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import InvalidInstanceError


def scalar(name: str, value: Any, *, strict: bool = True, allow_inf: bool = False, what: str = "") -> float:
    """``value`` as a float that is > 0 (``strict``) or >= 0, finite unless ``allow_inf``; else a clear error.

    ``what`` is appended to the message (e.g. the configuration name it stands for).
    """
    if isinstance(value, (bool, np.bool_)):
        raise InvalidInstanceError(f"{name}={value!r} must be a number{what}", argument=name, value=value)
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InvalidInstanceError(f"{name}={value!r} must be a number{what}", argument=name, value=value) from None
    bad = math.isnan(v) or (v <= 0 if strict else v < 0) or (math.isinf(v) and not allow_inf)
    if bad:
        rule = ("> 0 (or inf)" if allow_inf else "finite and > 0") if strict else "finite and >= 0"
        raise InvalidInstanceError(f"{name}={value!r} must be {rule}{what}", argument=name, value=value)
    return v
