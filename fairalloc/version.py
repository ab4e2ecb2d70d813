"""The installed version of fairalloc (``fairalloc.__version__``), in a unit of its own so that any
layer may read it without importing the facade."""

from importlib.metadata import PackageNotFoundError, version as _version

__all__ = ["__version__"]

try:
    __version__ = _version("fairalloc")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0+unknown"
