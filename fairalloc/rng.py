"""One conversion of the ``rng`` argument (int seed or ``numpy.random.Generator``)."""

from __future__ import annotations

import numbers

import numpy as np

from .errors import InvalidInstanceError

__all__ = ["as_generator"]


def as_generator(rng: int | np.random.Generator | None, *, argument: str = "rng") -> np.random.Generator:
    """Return a ``numpy.random.Generator`` for ``rng``.

    ``None`` gives a fresh, OS-seeded generator (non-deterministic on purpose); an integer seeds
    ``numpy.random.default_rng``; a ``Generator`` is returned unchanged (and is advanced by the
    caller's draws). Legacy ``RandomState`` objects and anything else are rejected.

    >>> int(as_generator(0).integers(10)) == int(as_generator(0).integers(10))
    True
    """
    if rng is None:
        return np.random.default_rng()
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool):
        if rng < 0:
            raise InvalidInstanceError(f"{argument}={rng!r} must be a non-negative integer seed",
                                       argument=argument, value=rng)
        return np.random.default_rng(int(rng))
    raise InvalidInstanceError(
        f"{argument}={rng!r} must be None, an int seed or a numpy.random.Generator",
        argument=argument, value=rng)
