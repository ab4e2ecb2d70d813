"""Shipped reproductions of the seed papers' headline experiments (``fairalloc reproduce NAME``).

Each reproduction is a YAML spec in ``specs/`` (:data:`NAMES`): a cell function (``run:
"module:function"``, called with the workload and one cell's parameters, returning
``{table: DataFrame}``), an optional workload function (built once, from the scale's ``workload``
arguments), a report function, and per scale (``small``: about a minute, what the tests run;
``paper``: the papers' size where the data allows) the constant ``params`` and the ``grid`` whose
product gives the cells (a grid value is a list, or ``{range: [start, stop]}``; ``extra`` lists
cells that override some grid keys, combined with the product of the others).

:func:`run` computes every cell and returns the tables (each cell's rows concatenated);
:func:`reproduce` also writes them, the figures and ``report.md`` (the paper's number, ours,
reproduced yes or no, and the reason where not).

Modules: :mod:`.sdrf` (Figs. 4-6), :mod:`.tvtsf`, :mod:`.buc`, :mod:`.learned`; reports share
:mod:`.report`.
"""

from __future__ import annotations

import importlib
import itertools
import logging
import time
from pathlib import Path
from typing import Any, Callable

import pandas as pd

from ...errors import InvalidInstanceError

__all__ = ["NAMES", "SCALES", "load_spec", "validate_spec", "cells", "run", "reproduce", "spec_path"]

logger = logging.getLogger(__name__)

_DIR = Path(__file__).with_name("specs")
#: Names of the shipped reproductions.
NAMES = ("sdrf-fig4", "sdrf-fig5", "sdrf-fig6", "tvtsf", "buc", "learned-priorities")
SCALES = ("small", "paper")
_KEYS = {"name", "title", "run", "workload", "report", "scales"}


def spec_path(name: str) -> Path:
    """The YAML file of a shipped reproduction."""
    if name not in NAMES:
        raise InvalidInstanceError(f"reproduction {name!r} is not one of {', '.join(NAMES)}",
                                   argument="name", value=name)
    return _DIR / f"{name}.yaml"


def load_spec(name: str | Path) -> dict:
    """Read and validate a spec (a shipped name or a YAML path)."""
    import yaml

    p = Path(name) if str(name).endswith((".yaml", ".yml")) else spec_path(str(name))
    spec = yaml.safe_load(p.read_text(encoding="utf-8"))
    validate_spec(spec)
    return spec


def _resolve(ref: str, what: str) -> Callable:
    mod, _, fn = str(ref).partition(":")
    if not fn:
        raise InvalidInstanceError(f"{what}={ref!r} must be 'module:function'", argument=what, value=ref)
    try:
        f = getattr(importlib.import_module(mod), fn)
    except (ImportError, AttributeError) as exc:
        raise InvalidInstanceError(f"{what}={ref!r} cannot be imported: {exc}", argument=what,
                                   value=ref) from None
    if not callable(f):
        raise InvalidInstanceError(f"{what}={ref!r} is not callable", argument=what, value=ref)
    return f


def _values(key: str, v: Any) -> list:
    if isinstance(v, dict) and set(v) == {"range"}:
        a, b = v["range"]
        return list(range(int(a), int(b)))
    if isinstance(v, list) and v:
        return v
    raise InvalidInstanceError(f"grid[{key!r}]={v!r} must be a non-empty list or {{range: [a, b]}}",
                               argument="grid", index=(key,), value=v)


def validate_spec(spec: Any) -> None:
    """Check a spec's keys, that its functions import, and that every scale expands to cells."""
    if not isinstance(spec, dict):
        raise InvalidInstanceError(f"spec must be a mapping, got {type(spec).__name__}", argument="spec",
                                   value=type(spec).__name__)
    missing = sorted(_KEYS - set(spec))
    unknown = sorted(set(spec) - _KEYS)
    if missing or unknown:
        raise InvalidInstanceError(f"spec {spec.get('name')!r}: missing keys {missing}, unknown keys {unknown}",
                                   argument="spec", value=missing or unknown)
    _resolve(spec["run"], "run")
    _resolve(spec["report"], "report")
    if spec["workload"] is not None:
        _resolve(spec["workload"], "workload")
    for s in SCALES:
        if s not in spec["scales"]:
            raise InvalidInstanceError(f"spec {spec['name']!r} has no scale {s!r}", argument="scales", value=s)
        sc = spec["scales"][s]
        bad = sorted(set(sc) - {"workload", "params", "grid", "extra"})
        if bad:
            raise InvalidInstanceError(f"scale {s!r}: unknown keys {bad}", argument="scales", index=(s,),
                                       value=bad)
        if not cells(spec, s):
            raise InvalidInstanceError(f"scale {s!r} has no cells", argument="grid", index=(s,), value=None)


def cells(spec: dict, scale: str) -> list[dict]:
    """The cells of ``scale``: the grid's product (plus ``extra``), each with the constant params."""
    if scale not in SCALES:
        raise InvalidInstanceError(f"scale={scale!r} is not one of {', '.join(SCALES)}", argument="scale",
                                   value=scale)
    sc = spec["scales"][scale]
    params = dict(sc.get("params") or {})
    grid = {k: _values(k, v) for k, v in (sc.get("grid") or {}).items()}
    out = [dict(params, **dict(zip(grid, combo))) for combo in itertools.product(*grid.values())]
    for ex in sc.get("extra") or []:
        rest = {k: v for k, v in grid.items() if k not in ex}
        out += [dict(params, **ex, **dict(zip(rest, combo))) for combo in itertools.product(*rest.values())]
    return out


def run(spec: dict | str, scale: str = "small", *, progress: bool = False) -> dict[str, pd.DataFrame]:
    """Compute every cell of ``scale`` in this process; return ``{table: DataFrame}`` (rows of all cells).

    Each row carries the cell's number in ``cell``. (The sweep layer runs the same cells on
    workers; this is the in-process path.)
    """
    spec = load_spec(spec) if isinstance(spec, str) else spec
    fn = _resolve(spec["run"], "run")
    sc = spec["scales"][scale]
    wl = None
    if spec["workload"] is not None:
        wl = _resolve(spec["workload"], "workload")(**(sc.get("workload") or {}))
    todo = cells(spec, scale)
    it = todo
    if progress:
        from tqdm import tqdm
        it = tqdm(todo, desc=spec["name"], unit="cell")
    parts: dict[str, list[pd.DataFrame]] = {}
    for k, params in enumerate(it):
        t0 = time.perf_counter()
        res = fn(wl, **params)
        for table, df in res.items():
            df = df.copy()
            df["cell"] = k
            df["cell_seconds"] = time.perf_counter() - t0
            parts.setdefault(table, []).append(df)
    return {t: pd.concat(v, ignore_index=True) for t, v in parts.items()}


def reproduce(name: str, *, scale: str = "small", out: str | Path | None = None,
              progress: bool = False) -> Path:
    """Run a shipped reproduction, write ``tables/*.parquet``, figures and ``report.md`` in ``out``
    (default ``out/reproduce/NAME-SCALE``); return the report's path."""
    spec = load_spec(name)
    out = Path(out) if out is not None else Path("out") / "reproduce" / f"{name}-{scale}"
    (out / "tables").mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    tables = run(spec, scale, progress=progress)
    seconds = time.perf_counter() - t0
    for t, df in tables.items():
        df.to_parquet(out / "tables" / f"{t}.parquet", index=False)
    return _resolve(spec["report"], "report")(tables, out, scale=scale, spec=spec, seconds=seconds)


def read_tables(out: str | Path) -> dict[str, pd.DataFrame]:
    """The tables written by :func:`reproduce` in ``out``."""
    return {p.stem: pd.read_parquet(p) for p in sorted((Path(out) / "tables").glob("*.parquet"))}
