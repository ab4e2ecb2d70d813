"""Divisible, one-shot mechanisms on pooled resources, each a function over an :class:`~fairalloc.Instance`."""

from .asset import asset_fairness
from .ceei import ceei
from .drf import drf
from .max_min import max_min
from .sdrf import sdrf
from .tsf import tsf
from .tvtsf import tvtsf

__all__ = ["max_min", "drf", "sdrf", "asset_fairness", "ceei", "tsf", "tvtsf"]
