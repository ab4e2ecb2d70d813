"""Shipped reproductions of the seed papers' headline experiments (``fairalloc reproduce NAME``).

Each reproduction is a YAML file in ``specs/`` (:data:`NAMES`) with a ``title``, a ``report``
function (``"module:function"``) and, per scale, a sweep spec of the experiment layer
(:class:`fairalloc.experiments.Spec`): ``small`` finishes in a few minutes and is what the tests
run, ``paper`` is the papers' size where the data allows. A scale may add ``cells:``, a list of
restrictions (:func:`parse_cells`): only the cells matching one of them are the scale's, so a
scale can be a union of sub-grids (the TV-TSF paper grid, its load axis and its persistent users)
rather than their whole product. The cell functions are plain functions of
their parameters returning ``{table: DataFrame}`` (``cell`` in :mod:`.sdrf`, :mod:`.tvtsf`,
:mod:`.buc`, :mod:`.learned`); each module's ``sweep_cell`` adapts one to the sweep's cell
contract (:func:`sweep_adapter`). A ``sweep_cell`` that needs a real trace carries
``data_check()``, which raises ``FileNotFoundError`` naming it: :func:`run` then stops before any
cell runs.

:func:`reproduce` runs the scale's sweep with :func:`fairalloc.experiments.run_sweep` (resumable:
finished cells are kept), reads its tables back with :func:`fairalloc.experiments.load`, and writes
the figures and ``report.md`` (per headline claim: the paper's number, ours, reproduced yes or no,
and the reason where not, :mod:`.report`).
"""

from __future__ import annotations

import importlib
import inspect
import logging
import time
from pathlib import Path
from typing import Any, Callable

import pandas as pd

from ...errors import InvalidInstanceError

__all__ = ["NAMES", "SCALES", "load_spec", "validate_spec", "scale_spec", "sweep_adapter", "run", "reproduce",
           "read_tables", "spec_path", "parse_cells", "tables_from", "tables_source", "results_dir", "notebook_scale",
           "DataAbsentError"]

logger = logging.getLogger(__name__)


class DataAbsentError(InvalidInstanceError):
    """A reproduction that needs a real trace found none (``$FAIRALLOC_DATA``, ``../shared/data``): raised by
    :func:`run` before any cell runs; an :class:`~fairalloc.InvalidInstanceError` naming the file."""

_DIR = Path(__file__).with_name("specs")
#: Names of the shipped reproductions.
NAMES = ("sdrf-fig4", "sdrf-fig5", "sdrf-fig6", "tvtsf", "buc", "learned-priorities")
SCALES = ("small", "paper")
_KEYS = {"name", "title", "report", "scales"}


def spec_path(name: str) -> Path:
    """The YAML file of a shipped reproduction.

    Parameters
    ----------
    name : str
        One of :data:`NAMES`.

    Returns
    -------
    Path
        ``specs/<name>.yaml`` inside the package.

    Raises
    ------
    InvalidInstanceError
        An unknown name (the message lists :data:`NAMES`).

    Examples
    --------
    >>> spec_path("buc").name
    'buc.yaml'
    """
    if name not in NAMES:
        raise InvalidInstanceError(f"reproduction {name!r} is not one of {', '.join(NAMES)}",
                                   argument="name", value=name)
    return _DIR / f"{name}.yaml"


def load_spec(name: str | Path) -> dict:
    """Read and validate a spec (a shipped name or a YAML path).

    Parameters
    ----------
    name : str or Path
        A name of :data:`NAMES`, or a path ending in ``.yaml`` / ``.yml``.

    Returns
    -------
    dict
        Keys ``name``, ``title``, ``report`` and ``scales`` (one sweep spec per scale of
        :data:`SCALES`).

    Raises
    ------
    InvalidInstanceError
        An unknown name, or a spec :func:`validate_spec` refuses.

    Examples
    --------
    >>> spec = load_spec("buc")
    >>> sorted(spec), sorted(spec["scales"])
    (['name', 'report', 'scales', 'title'], ['paper', 'small'])
    """
    from ...io import read_data

    p = Path(name) if str(name).endswith((".yaml", ".yml")) else spec_path(str(name))
    spec = read_data(p)
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


def validate_spec(spec: Any) -> None:
    """Check a reproduction file: its keys, its report function, and each scale as a sweep Spec.

    Parameters
    ----------
    spec : dict
        A parsed reproduction file.

    Raises
    ------
    InvalidInstanceError
        Not a mapping, missing or unknown keys, a ``report`` that cannot be imported, a missing
        scale; :class:`~fairalloc.experiments.SpecError` for a scale that is not a valid sweep spec.

    Examples
    --------
    >>> validate_spec(load_spec("sdrf-fig4"))          # a shipped spec passes (returns None)
    >>> validate_spec({"name": "x"})
    Traceback (most recent call last):
    ...
    fairalloc.errors.InvalidInstanceError: spec 'x': missing keys ['report', 'scales', 'title'], unknown keys []
    """
    if not isinstance(spec, dict):
        raise InvalidInstanceError(f"spec must be a mapping, got {type(spec).__name__}", argument="spec",
                                   value=type(spec).__name__)
    missing = sorted(_KEYS - set(spec))
    unknown = sorted(set(spec) - _KEYS)
    if missing or unknown:
        raise InvalidInstanceError(f"spec {spec.get('name')!r}: missing keys {missing}, unknown keys {unknown}",
                                   argument="spec", value=missing or unknown)
    _resolve(spec["report"], "report")
    for s in SCALES:
        if s not in (spec["scales"] or {}):
            raise InvalidInstanceError(f"spec {spec['name']!r} has no scale {s!r}", argument="scales", value=s)
        _scale_parts(spec, s)          # the sweep spec and the restrictions' axes (cells are matched when run)


def _scale_parts(spec: dict, scale: str) -> tuple[Any, list[dict[str, list]] | None]:
    """A scale's sweep Spec (validated) and its parsed ``cells:`` restrictions (their axes checked)."""
    from ..spec import Spec

    d = dict(spec["scales"][scale])
    cells = d.pop("cells", None)
    sweep = Spec.from_dict(d, base=_DIR)
    if cells is None:
        return sweep, None
    if not isinstance(cells, list) or not cells or not all(isinstance(c, str) for c in cells):
        raise InvalidInstanceError(f"scales.{scale}.cells must be a list of restrictions "
                                   f"('AXIS=V1,V2 ...'), got {cells!r}", argument=f"scales.{scale}.cells",
                                   value=cells)
    parsed = parse_cells(cells)
    axes = set(d.get("grid") or {}) | {"policy", "seed"}
    for r in parsed:
        bad = sorted(set(r) - axes)
        if bad:
            raise InvalidInstanceError(f"scales.{scale}.cells: {bad} not a grid axis (axes: {sorted(axes)})",
                                       argument=f"scales.{scale}.cells", value=bad)
    return sweep, parsed


def scale_spec(spec: dict, scale: str) -> Any:
    """The sweep :class:`~fairalloc.experiments.Spec` of one scale of a reproduction file, restricted to
    the scale's ``cells:`` when it has some (module docstring).

    Parameters
    ----------
    spec : dict
        A parsed reproduction file (:func:`load_spec`).
    scale : str
        A key of ``spec["scales"]``.

    Returns
    -------
    Spec

    Raises
    ------
    InvalidInstanceError
        ``cells`` that are not a list of restriction texts, name no axis of the grid, or match no
        cell; :class:`~fairalloc.experiments.SpecError` for a scale that is not a valid sweep spec.

    Examples
    --------
    The TV-TSF small scale is a union of sub-grids, not the product of its axes:

    >>> spec = load_spec("tvtsf")
    >>> part = len(scale_spec(spec, "small").cells())
    >>> whole = len(scale_spec({**spec, "scales": {"small": {k: v for k, v in spec["scales"]["small"].items()
    ...                                                      if k != "cells"}}}, "small").cells())
    >>> part < whole
    True
    """
    sweep, cells = _scale_parts(spec, scale)
    return sweep if cells is None else _restrict(sweep, cells, f"{spec.get('name')}:{scale}")


def sweep_adapter(cell: Callable, workload: Any, params: dict) -> dict[str, pd.DataFrame]:
    """Call a plain cell function with a sweep cell's parameters and return its tables.

    The keywords are the cell's grid values and policy options, ``policy`` (when the spec has
    policies) and ``seed`` (when ``cell`` takes it). Columns the sweep adds itself (``label``,
    ``policy``, ``seed``, the grid axes and scalar options) are dropped from the tables, so each
    appears once, as the sweep writes it.

    Parameters
    ----------
    cell : callable
        ``cell(workload, **keywords) -> {table: DataFrame}``.
    workload : object
        The cell's workload (None when the spec has none).
    params : dict
        The sweep cell's parameters (:attr:`fairalloc.experiments.Cell.params`).

    Returns
    -------
    dict of DataFrame

    Examples
    --------
    A toy cell of one grid axis ``x``; its ``x`` and ``seed`` columns are dropped (the sweep adds
    them itself), ``y = 2 x`` stays:

    >>> import pandas as pd
    >>> def toy(workload, *, x, seed):
    ...     return {"t": pd.DataFrame({"x": [x], "seed": [seed], "y": [2 * x]})}
    >>> out = sweep_adapter(toy, None, {"grid": {"x": 3}, "options": {}, "policy": None, "seed": 7})
    >>> out["t"].to_dict("records")
    [{'y': 6}]
    """
    kw = {**params.get("grid", {}), **params.get("options", {})}
    if params.get("policy") is not None:
        kw["policy"] = params["policy"]
    sig = inspect.signature(cell).parameters
    if "seed" in sig:
        kw["seed"] = params.get("seed")
    tables = cell(workload, **kw)
    drop = {"label", "policy", "seed", *kw}
    return {t: df.drop(columns=[c for c in df.columns if c in drop]) for t, df in tables.items()}


def parse_cells(texts: Any) -> list[dict[str, list]]:
    """``["pool_fraction=0.5", "delta=null,0.999999 pool_fraction=0.5,0.6"]`` -> restrictions.

    Each text is one restriction: space-separated ``AXIS=V1,V2,...`` (values read as YAML: ``null``,
    numbers); a cell is kept when it matches every axis of *some* restriction (a union of sub-grids).
    An axis is a grid axis of the spec, ``policy`` (the policy's label) or ``seed``.

    Examples
    --------
    >>> parse_cells(["delta=null,0.999999 pool_fraction=0.5", "policy=tvtsf seed=0,1"])
    [{'delta': [None, 0.999999], 'pool_fraction': [0.5]}, {'policy': ['tvtsf'], 'seed': [0, 1]}]
    """
    from ...io import parse_yaml

    out = []
    for text in texts or ():
        r: dict[str, list] = {}
        for part in str(text).split():
            axis, eq, values = part.partition("=")
            if not eq or not axis or not values:
                raise InvalidInstanceError(f"cells={text!r}: {part!r} is not AXIS=V1,V2,...", argument="cells",
                                           value=text)
            r[axis] = [parse_yaml(v, f"cells={text!r}: {axis}") for v in values.split(",")]
        if not r:
            raise InvalidInstanceError(f"cells={text!r} is empty", argument="cells", value=text)
        out.append(r)
    return out


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return a == b


def _coords(c: Any) -> dict:
    """A cell's values for restrictions: its grid values, ``policy`` (label) and ``seed``."""
    return {**c.params["grid"], "policy": c.params["label"], "seed": c.params["seed"]}


def _restrict(spec: Any, cells: list[dict[str, list]], name: str) -> Any:
    """``spec`` whose :meth:`cells` keeps the cells matching some restriction (:func:`parse_cells`)."""
    every = spec.cells()
    axes = set().union(*(c.params["grid"] for c in every)) | {"policy", "seed"} if every else set()
    for r in cells:
        bad = sorted(set(r) - axes)
        if bad:
            raise InvalidInstanceError(f"cells: {bad} not a grid axis of {name!r} (axes: {sorted(axes)})",
                                       argument="cells", value=bad)
    keep = [c for c in every
            if any(all(any(_same(_coords(c)[a], v) for v in vs) for a, vs in r.items()) for r in cells)]
    if not keep:
        raise InvalidInstanceError(f"cells={cells!r} match no cell of {name!r}", argument="cells", value=cells)
    spec.cells = lambda: keep          # the sweep runs and records only these cells
    return spec


def run(name: str, scale: str = "small", *, out: str | Path, workers: int | None = 0,
        progress: bool = False, cells: Any = None) -> dict[str, pd.DataFrame]:
    """Run the sweep of ``scale`` into ``out`` (resumable) and return its tables as DataFrames.

    Parameters
    ----------
    name : str
        One of :data:`NAMES` (or a YAML path).
    scale : {"small", "paper"}, default "small"
    out : str or Path
        The sweep's folder.
    workers : int, optional, default 0
        As :func:`~fairalloc.experiments.run_sweep` (0: in this process).
    progress : bool, default False
    cells : list of str or list of dict, optional
        Restrict the grid to a union of sub-grids (:func:`parse_cells`: the texts or the parsed list);
        None runs every cell.

    Returns
    -------
    dict of DataFrame
        Every table the cells wrote, by name.

    Raises
    ------
    InvalidInstanceError
        An unknown name or scale, ``cells`` naming no grid axis or matching no cell, or a sweep with
        failed cells.

    Examples
    --------
    A small-scale run takes about a minute (``fairalloc reproduce NAME`` runs it from the command
    line); the scale is checked first:

    >>> run("buc", "huge", out="unused")
    Traceback (most recent call last):
    ...
    fairalloc.errors.InvalidInstanceError: scale='huge' is not one of small, paper
    """
    from .. import load as load_table, run_sweep
    from ..store import Store

    if scale not in SCALES:
        raise InvalidInstanceError(f"scale={scale!r} is not one of {', '.join(SCALES)}", argument="scale",
                                   value=scale)
    spec = load_spec(name)
    need = getattr(_resolve(spec["scales"][scale]["run"], "run"), "data_check", None)
    if need is not None:          # a reproduction whose data is absent stops before its cells, saying which
        try:
            need()
        except FileNotFoundError as exc:
            raise DataAbsentError(f"reproduction {name!r} skipped: {exc}", argument="name", value=name) from None
    sweep = scale_spec(spec, scale)
    if cells:
        sweep = _restrict(sweep, cells if isinstance(cells[0], dict) else parse_cells(cells), str(name))
    summary = run_sweep(sweep, out, workers=workers, progress=progress)
    if not summary.ok:
        raise InvalidInstanceError(f"reproduction {name!r}: {summary}", argument="name", value=name)
    return {t: load_table(out, t).df() for t in Store(out).table_names()}


def tables_from(name: str, scale: str, sweep: str | Path) -> tuple[dict[str, pd.DataFrame], list[dict]]:
    """The tables of ``name``'s cells at ``scale`` taken from another finished run (e.g. the SDRF
    Fig. 5 and Fig. 6 cells are Fig. 4 cells): the rows of the cells that compute the same thing as
    one of ``name``'s, that is with the same cell function, workload (as the spec writes it) and
    parameters (:func:`tables_source`).

    The code is not matched: a cell key also hashes fairalloc's code, so after any edit of the
    package (even of a report function) no key would match and a report could never be written
    again from stored cells. :func:`reproduce` says in the report which code computed the cells and
    whether it is this one (:func:`tables_source` gives it).

    Parameters
    ----------
    name : str
        One of :data:`NAMES`.
    scale : {"small", "paper"}
    sweep : str or Path
        A :func:`reproduce` output folder (its ``sweep/``, or the tables a ``tables_from`` report
        kept), or a sweep folder.

    Returns
    -------
    (dict of DataFrame, list of dict)
        The tables (rows of the matching cells) and, as restrictions (:func:`parse_cells`), the cells
        found when they are not all of ``name``'s (an empty list when they are).

    Raises
    ------
    InvalidInstanceError
        ``sweep`` is not a finished run, or holds none of the cells of ``name`` at ``scale``.
    """
    spec = load_spec(name)
    mine = {c.key: c for c in scale_spec(spec, scale).cells()}
    source = tables_source(sweep)
    ident = {_identity(spec["scales"][scale]["run"], spec["scales"][scale].get("workload"), c.params): k
             for k, c in mine.items()}
    theirs = {_identity(source["run"], source["workload"], p): k for k, p in source["cells"].items()}
    found = {ident[i]: theirs[i] for i in set(ident) & set(theirs)}          # my key -> their key
    tables = _read_source_tables(sweep)
    done = set().union(*(set(df["key"]) for df in tables.values())) if tables else set()
    found = {k: v for k, v in found.items() if v in done}
    if not found:
        raise InvalidInstanceError(f"tables_from={str(sweep)!r} holds none of the cells of {name!r} at scale "
                                   f"{scale!r}", argument="tables_from", value=str(sweep))
    keep = set(found.values())
    tables = {t: df[df["key"].isin(keep)].reset_index(drop=True) for t, df in tables.items()}
    grids = [_coords(mine[k]) for k in sorted(found, key=lambda k: mine[k].index)]
    return tables, [{a: [v] for a, v in g.items()} for g in grids] if len(found) < len(mine) else []


def _identity(run: str, workload: Any, params: dict) -> str:
    """What decides a cell's result apart from the code: its cell function, its workload as the spec
    writes it and its parameters (the sweep key without the version and the code fingerprint)."""
    import hashlib
    import json

    text = json.dumps({"run": run, "workload": workload, "params": params}, sort_keys=True, default=str)
    return hashlib.sha256(json.dumps(json.loads(text), sort_keys=True).encode()).hexdigest()


#: The folder of a ``tables_from`` report's output holding the cell tables it used.
TAKEN = "tables"


def _sweep_of(folder: str | Path) -> Path | None:
    """The sweep folder of a :func:`reproduce` output (``sweep/``) or ``folder`` itself; None if neither."""
    f = Path(folder)
    for d in (f / "sweep", f):
        if (d / "sweep.json").is_file() and (d / "manifest.parquet").is_file():
            return d
    return None


def tables_source(folder: str | Path) -> dict:
    """Where the cells of a finished run came from: its cell function, workload and code, and the
    parameters of each cell, read from its sweep (``sweep.json`` and ``manifest.parquet``) or from the
    ``tables/source.json`` a ``tables_from`` report writes.

    Parameters
    ----------
    folder : str or Path
        A :func:`reproduce` output folder or a sweep folder.

    Returns
    -------
    dict
        ``run``, ``workload``, ``code`` (the fingerprint of the fairalloc that computed the cells),
        ``cells`` (key -> parameters), ``seconds`` (key -> recorded wall seconds, where known) and
        ``folder`` (the sweep or report folder read, resolved).

    Raises
    ------
    InvalidInstanceError
        ``folder`` holds neither.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     tables_source(d)
    Traceback (most recent call last):
    ...
    fairalloc.errors.InvalidInstanceError: tables_from=... is not the output of a finished run (no sweep/ and no tables/source.json)
    """
    import json

    f = Path(folder)
    sweep = _sweep_of(f)
    if sweep is not None:
        from ..store import Store

        doc = json.loads((sweep / "sweep.json").read_text(encoding="utf-8"))
        man = pd.read_parquet(sweep / "manifest.parquet")
        cells = {k: json.loads(p) for k, p in zip(man["key"], man["params"])}
        recs = Store(sweep).records()
        seconds = {k: r.get("wall_s") for k, r in recs.items() if k in cells and r.get("status") == "done"}
        return {"run": doc["spec"].get("run"), "workload": doc["spec"].get("workload"), "code": doc.get("code"),
                "cells": cells, "seconds": seconds, "folder": str(sweep.resolve())}
    src = f / TAKEN / "source.json"
    if src.is_file():
        doc = json.loads(src.read_text(encoding="utf-8"))
        return {**doc, "folder": str(f.resolve())}
    raise InvalidInstanceError(f"tables_from={str(folder)!r} is not the output of a finished run (no sweep/ and "
                               f"no {TAKEN}/source.json)", argument="tables_from", value=str(folder))


def _read_source_tables(folder: str | Path) -> dict[str, pd.DataFrame]:
    sweep = _sweep_of(folder)
    if sweep is not None:
        from .. import load as load_table
        from ..store import Store

        return {t: load_table(sweep, t).df() for t in Store(sweep).table_names()}
    return read_tables(folder)


def _keep_tables(out: Path, tables: dict[str, pd.DataFrame], source: dict) -> None:
    """Write the tables a ``tables_from`` report used into ``out/tables/`` with their ``source.json``,
    so that :func:`read_tables` reads them back (the source folder may be moved or replaced)."""
    import json

    d = out / TAKEN
    d.mkdir(parents=True, exist_ok=True)
    keys = set().union(*(set(df["key"]) for df in tables.values())) if tables else set()
    for t, df in tables.items():
        df.to_parquet(d / f"{t}.parquet", index=False)
    doc = {"run": source["run"], "workload": source["workload"], "code": source["code"],
           "cells": {k: p for k, p in source["cells"].items() if k in keys},
           "seconds": {k: s for k, s in source.get("seconds", {}).items() if k in keys},
           "taken_from": source.get("taken_from", source["folder"])}          # the first run's folder when chained
    (d / "source.json").write_text(json.dumps(doc, indent=1, sort_keys=True, default=str), encoding="utf-8")


def _cells_seconds(sweep: Path, fallback: float) -> float:
    """The sum of the cells' wall times as the sweep recorded them (a resumed run's elapsed time would
    leave out the cells computed before)."""
    from .. import load as load_table

    try:
        c = load_table(sweep, "cells").df()
        return float(c["wall_s"].sum()) if "wall_s" in c and len(c) else fallback
    except Exception:  # noqa: BLE001 - the figure is informative; the elapsed time is the fallback
        return fallback


def reproduce(name: str, *, scale: str = "small", out: str | Path | None = None, workers: int | None = 0,
              progress: bool = False, cells: Any = None, tables_from: str | Path | None = None,
              formats: Any = None) -> Path:
    """Run a shipped reproduction and write, in ``out`` (default ``out/reproduce/NAME-SCALE``), its
    sweep (``sweep/``), figures and ``report.md``; return the report's path.

    Parameters
    ----------
    name : str
        One of :data:`NAMES`.
    scale : {"small", "paper"}, default "small"
    out : str or Path, optional
        Output folder (created).
    workers : int, optional, default 0
        As :func:`run`.
    progress : bool, default False
    cells : list of str, optional
        Run a subset of the grid (:func:`parse_cells`); the report's setup then lists it.
    tables_from : str or Path, optional
        The output folder of another reproduction: run nothing, and write the report from that run's
        cells that are also this reproduction's (:func:`tables_from`); the report says so and which
        code computed the cells. The tables used are kept in ``out/tables/`` (with ``source.json``:
        their cell function, workload, code and parameters), where :func:`read_tables` and a later
        ``tables_from=out`` read them.
    formats : fairalloc.formats.Formats, optional
        The figures' formats (default png; ``report.md`` shows the first), and table formats written
        beside the CSV files (which are always written: the report links them and the notebooks read
        them). The command line's ``--format``.

    Returns
    -------
    Path
        ``out / "report.md"``.

    Raises
    ------
    InvalidInstanceError
        An unknown name or scale, or a sweep with failed cells.

    Examples
    --------
    ``fairalloc reproduce sdrf-fig4`` is this call at the small scale (about a minute). An unknown
    name is refused before anything is written:

    >>> reproduce("nope")
    Traceback (most recent call last):
    ...
    fairalloc.errors.InvalidInstanceError: reproduction 'nope' is not one of sdrf-fig4, sdrf-fig5, sdrf-fig6, tvtsf, buc, learned-priorities
    """
    spec = load_spec(name)
    out = Path(out) if out is not None else Path("out") / "reproduce" / f"{name}-{scale}"
    out.mkdir(parents=True, exist_ok=True)
    parsed = parse_cells(cells) if cells and not isinstance(cells[0], dict) else (cells or None)
    t0 = time.perf_counter()
    if tables_from is not None:
        if parsed:
            raise InvalidInstanceError("give cells or tables_from, not both", argument="tables_from",
                                       value=str(tables_from))
        tables, parsed = globals()["tables_from"](name, scale, tables_from)
        source = tables_source(tables_from)
        keys = set().union(*(set(df["key"]) for df in tables.values()))
        known = [source.get("seconds", {}).get(k) for k in keys]
        seconds = float(sum(known)) if known and all(x is not None for x in known) else None
    else:
        tables = run(name, scale, out=out / "sweep", workers=workers, progress=progress, cells=parsed)
        seconds = _cells_seconds(out / "sweep", time.perf_counter() - t0)
    path = _resolve(spec["report"], "report")(tables, out, scale=scale, spec=spec, seconds=seconds, formats=formats)
    if parsed:
        text = Path(path).read_text(encoding="utf-8")
        line = ("- cells run: a subset of the grid, the union of " + "; ".join(
            " and ".join(f"{a} in {vs}" for a, vs in r.items()) for r in parsed)
            + " (the other cells of the spec were not run)\n")
        Path(path).write_text(text.replace("## Setup\n\n", "## Setup\n\n" + line, 1), encoding="utf-8")
    if tables_from is not None:
        _keep_tables(out, tables, source)
        code = scale_spec(spec, scale).code
        same = ("this fairalloc's code" if source["code"] == code else
                f"fairalloc code `{source['code']}`, not this fairalloc's `{code}`: a change of the package "
                "since then is not in these cells")
        text = Path(path).read_text(encoding="utf-8")
        line = (f"- cells taken from the run in `{tables_from}` (same cell function, workload and parameters; "
                f"computed by {same}); nothing was run for this report\n")
        Path(path).write_text(text.replace("## Setup\n\n", "## Setup\n\n" + line, 1), encoding="utf-8")
    return path


def read_tables(out: str | Path) -> dict[str, pd.DataFrame]:
    """The tables of a finished :func:`reproduce` in ``out``: from its sweep store, or for a report
    written from another run's cells (``tables_from``), the tables it kept in ``out/tables/``.

    Parameters
    ----------
    out : str or Path
        The folder :func:`reproduce` wrote.

    Returns
    -------
    dict of DataFrame
        By table name; empty when ``out`` holds no sweep tables.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     tables = read_tables(d)
    >>> tables
    {}
    """
    from .. import load as load_table
    from ..store import Store

    sweep = Path(out) / "sweep"
    taken = Path(out) / TAKEN
    if not sweep.exists() and (taken / "source.json").is_file():
        return {p.stem: pd.read_parquet(p) for p in sorted(taken.glob("*.parquet"))}
    return {t: load_table(sweep, t).df() for t in Store(sweep).table_names()}


def results_dir(name: str, scale: str = "small", *, stored: str | Path | None = None,
                out: str | Path = Path("out") / "reproduce") -> Path:
    """The folder of a finished reproduction of ``scale``: a stored run when there is one, else a run
    in ``out`` (made now when it has no report yet).

    A stored run is ``stored / name`` with a ``provenance.json`` whose ``scale`` is ``scale`` (the
    repository keeps them in ``docs/reproductions/results``); otherwise the folder is
    ``out / f"{name}-{scale}"``, and :func:`reproduce` runs there first when it holds no
    ``report.md``. When that run needs a trace that is absent (:class:`DataAbsentError`), the stored
    run of another scale is returned if there is one (its ``provenance.json`` says which scale: the
    caller should say so), so that a notebook still shows results on a machine without the traces.
    The notebooks read their figures and claims through this.

    Parameters
    ----------
    name : str
        One of :data:`NAMES`.
    scale : {"small", "paper"}, default "small"
    stored : str or Path, optional
        Folder of stored runs (None: look for none).
    out : str or Path, default "out/reproduce"
        Where runs are made.

    Returns
    -------
    Path
        A folder holding ``report.md`` (and ``provenance.json`` when stored).

    Raises
    ------
    InvalidInstanceError
        An unknown name or scale (before anything runs).
    FileNotFoundError
        The run needs a trace that is absent and no run of ``name`` is stored.

    Examples
    --------
    A stored small-scale run is found by its provenance; nothing runs:

    >>> import json, tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as d:
    ...     (Path(d) / "buc").mkdir()
    ...     _ = (Path(d) / "buc" / "provenance.json").write_text(json.dumps({"scale": "small"}))
    ...     _ = (Path(d) / "buc" / "report.md").write_text("# BUC")
    ...     results_dir("buc", "small", stored=d).name
    'buc'
    """
    import json

    if name not in NAMES:
        raise InvalidInstanceError(f"reproduction {name!r} is not one of {', '.join(NAMES)}", argument="name",
                                   value=name)
    if scale not in SCALES:
        raise InvalidInstanceError(f"scale={scale!r} is not one of {', '.join(SCALES)}", argument="scale",
                                   value=scale)
    here = None if stored is None else Path(stored) / name
    found = here is not None and (here / "provenance.json").is_file() and (here / "report.md").is_file()
    if found and json.loads((here / "provenance.json").read_text()).get("scale") == scale:
        return here
    folder = Path(out) / f"{name}-{scale}"
    if not (folder / "report.md").is_file():
        try:
            reproduce(name, scale=scale, out=folder)
        except DataAbsentError as exc:
            if found:
                logger.warning("%s; showing the stored run in %s instead", exc, here)
                return here
            raise FileNotFoundError(str(exc)) from None
    return folder


def notebook_scale(value: str | None = None) -> str:
    """The reproduction scale a notebook runs, from ``$FAIRALLOC_SCALE`` (or ``value``).

    The notebooks' convention is ``small`` (default: what the tests and the docs build run) and
    ``full`` (the papers' sizes); for a reproduction ``full`` is its ``paper`` scale, and ``paper``
    is accepted as well.

    Parameters
    ----------
    value : str, optional
        Default: the environment variable ``FAIRALLOC_SCALE``, else ``"small"``.

    Returns
    -------
    {"small", "paper"}

    Raises
    ------
    InvalidInstanceError
        Any other value (rather than running the small scale without a word).

    Examples
    --------
    >>> notebook_scale("full"), notebook_scale("small"), notebook_scale("paper")
    ('paper', 'small', 'paper')
    >>> notebook_scale("big")
    Traceback (most recent call last):
    ...
    fairalloc.errors.InvalidInstanceError: FAIRALLOC_SCALE='big' is not one of small, full (paper is full)
    """
    import os

    v = os.environ.get("FAIRALLOC_SCALE", "small") if value is None else value
    scale = {"small": "small", "full": "paper", "paper": "paper"}.get(str(v).strip().lower())
    if scale is None:
        raise InvalidInstanceError(f"FAIRALLOC_SCALE={v!r} is not one of small, full (paper is full)",
                                   argument="FAIRALLOC_SCALE", value=v)
    return scale
