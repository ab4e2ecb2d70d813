"""Every mechanism's one public entry point (``fa.drf``, ``fa.sdrf``, ``fa.tsf``, ``fa.cdrf``,
``fa.tvtsf``, ...), dispatching on the instance type and ``method=``; divisible pooled mechanisms are
implemented here, the others in :mod:`fairalloc.exact` and :mod:`fairalloc.scheduling`."""

from .asset import asset_fairness
from .cdrf import cdrf
from .ceei import ceei
from .drf import drf
from .max_min import max_min
from .sdrf import sdrf
from .tsf import tsf
from .tvtsf import tvtsf

__all__ = ["max_min", "drf", "sdrf", "asset_fairness", "ceei", "tsf", "cdrf", "tvtsf"]
