"""Former private name of :mod:`fairalloc.validation`, kept while modules on other branches import it.

Import :mod:`fairalloc.validation` instead.
"""

from .validation import *  # noqa: F401,F403
from .validation import __all__  # noqa: F401
