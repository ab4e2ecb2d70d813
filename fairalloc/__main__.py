"""``python -m fairalloc`` runs the command line."""

import sys

from .cli import console

sys.exit(console())
