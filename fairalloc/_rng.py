"""Former private name of :mod:`fairalloc.rng`, kept while modules on other branches import it.

Import :mod:`fairalloc.rng` instead.
"""

from .rng import *  # noqa: F401,F403
from .rng import __all__  # noqa: F401
