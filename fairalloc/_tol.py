"""Former private name of :mod:`fairalloc.tolerance`, kept while modules on other branches import it.

Import :mod:`fairalloc.tolerance` instead.
"""

from .tolerance import *  # noqa: F401,F403
from .tolerance import __all__  # noqa: F401
