"""One conversion of the ``rng`` argument (int seed or ``numpy.random.Generator``)."""

from __future__ import annotations

import numbers

import numpy as np

from .errors import InvalidInstanceError

__all__ = ["as_generator"]


def as_generator(rng: int | np.random.Generator | None, *, argument: str = "rng") -> np.random.Generator:
    """Return a ``numpy.random.Generator`` for ``rng``.

    Parameters
    ----------
    rng : int, numpy.random.Generator or None
        ``None`` gives a fresh, OS-seeded generator (non-deterministic on purpose); a non-negative
        integer seeds ``numpy.random.default_rng``; a ``Generator`` is returned unchanged (and is
        advanced by the caller's draws).
    argument : str, optional
        Name used in error messages (default ``"rng"``).

    Returns
    -------
    numpy.random.Generator

    Raises
    ------
    InvalidInstanceError
        A negative seed, a ``bool``, a legacy ``RandomState`` or anything else.

    Examples
    --------
    The same seed gives the same draws; a generator passes through unchanged:

    >>> import numpy as np
    >>> int(as_generator(0).integers(10)) == int(as_generator(0).integers(10))
    True
    >>> g = np.random.default_rng(1)
    >>> as_generator(g) is g
    True
    >>> as_generator(-1)
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: rng=-1 must be a non-negative integer seed
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
