"""Experiment specs: a named grid of simulations (or of any cell function), expanded into cells.

A spec is a YAML file or the same structure as a Python dict::

    name: sdrf-delta                      # required: letters, digits, '.', '_', '-'
    description: SDRF Section 7 at small scale
    workload:                             # a generator with its parameters ...
      generator: google_like
      n_users: 40
      n_tasks: 3000
      rng: ${seed}                        # "${name}": the cell's seed or a value of `grid`
    # workload: {reader: swf, path: $FAIRALLOC_DATA/swf/KTH-SP2-1996-2.1-cln.swf.gz}   # ... or a reader
    capacity: {pool: "${load}"}           # processors: N | pool: F (x R) | resources: [...] | cluster: NAME
                                          # (quote "${name}" inside {...}: YAML reads braces there)
    grid:                                 # axes shared by every policy, used through ${name}
      load: [0.5, 0.75, 1.0]
    policies:                             # label -> options; a list is a grid axis of that policy
      drf: {}
      sdrf: {delta: [0.9, 0.999999], structure: live_tree}
      sdrf-printed: {policy: sdrf, priority: printed, delta: 0.999999}
    seeds: [0, 1, 2]                      # or an int N (0..N-1), or {start: 0, count: 100}
    tables: [summary, users]              # what to keep (built-in cell: summary, users, jobs,
                                          # rejected, utilization); default [summary]
    run: mypackage.cells:my_cell          # optional: another cell function (module docstring of
                                          # fairalloc.experiments.worker for its contract); its
                                          # check(params), if it has one, runs on every cell first

The cells are the product seeds x grid x (each policy x its own grid), in that nesting order (the
last axis varies fastest). Each cell has a stable key: a hash of its resolved parameters (workload,
capacity, policy and options, seed, grid values, tables, cell function) and of fairalloc's version
(the version string, not the code: results computed by a modified checkout keep their keys, so
use a new folder after changing fairalloc or a cell function).
Everything is checked before anything runs, and a wrong spec raises :class:`SpecError` naming the
key (``policies.sdrf.delta``), and the value: unknown top-level keys, policies and options (each
policy is built once with its options to check them), generator or reader arguments, missing files,
empty grids, references to undefined ``${name}``.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping

from ..errors import InvalidInstanceError
from . import inputs

__all__ = ["Spec", "Cell", "SpecError", "BUILTIN_CELL", "BUILTIN_TABLES"]

#: The default cell function: one :func:`fairalloc.simulate` call.
BUILTIN_CELL = "fairalloc.experiments.simulation_cell:simulate_cell"
#: Tables the built-in cell can keep.
BUILTIN_TABLES = ("summary", "users", "jobs", "rejected", "utilization")
_TOP_KEYS = ("name", "description", "workload", "capacity", "grid", "policies", "seeds", "tables", "run")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")
_REF = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$")
#: Options of a policy entry that go to fa.simulate itself rather than to the policy.
SIMULATE_OPTIONS = ("enforce_walltime", "engine")
#: Names a grid axis may not take (they are cell columns already).
_RESERVED = ("key", "label", "policy", "seed", "status", "index")


class SpecError(InvalidInstanceError):
    """A spec that cannot run; ``argument`` is the dotted key (``policies.sdrf.delta``), ``value``
    the offending value.

    An :class:`~fairalloc.InvalidInstanceError`, raised by :class:`Spec` before anything runs.

    Parameters
    ----------
    key : str
        The dotted key (also ``argument`` and :attr:`key`).
    value : object
        The offending value.
    why : str
        What is wrong with it.

    Examples
    --------
    >>> e = SpecError("policies.sdrf.delta", 2.0, "must be in (0, 1)")
    >>> str(e), e.key
    ("spec key 'policies.sdrf.delta' = 2.0: must be in (0, 1)", 'policies.sdrf.delta')
    """

    def __init__(self, key: str, value: Any, why: str) -> None:
        super().__init__(f"spec key {key!r} = {value!r}: {why}", argument=key, value=value)
        self.key = key


def _version() -> str:
    from ..version import __version__
    return __version__


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)


@dataclass(frozen=True)
class Cell:
    """One run of a sweep: resolved parameters, a stable ``key`` and the columns it adds to tables.

    Attributes
    ----------
    key : str
        16 hex digits of SHA-256 over the resolved parameters and fairalloc's version.
    index : int
        Position in the spec's expansion.
    run : str
        The cell function, ``"package.module:function"``.
    workload : dict or None
        The resolved workload spec (built once per worker, see :mod:`.inputs`).
    params : dict
        What the cell function receives: ``label``, ``policy``, ``options`` (policy options),
        ``capacity`` (resolved capacity spec or None), ``seed``, ``grid`` (values of the spec's
        ``grid`` axes) and ``tables``.
    coords : dict
        Columns added to every row the cell writes (``label``, ``policy``, ``seed``, each grid
        axis and each scalar option); a column whose values mix types across the sweep is a string.

    Examples
    --------
    The one cell of a one-policy, one-seed spec (``${seed}`` in the workload becomes the seed):

    >>> spec = Spec.from_dict({"name": "tiny", "workload": {"generator": "lublin", "n_jobs": 20,
    ...                        "nodes": 16, "rng": "${seed}"}, "capacity": {"processors": 16},
    ...                        "policies": ["fcfs"], "seeds": [7]})
    >>> cell, = spec.cells()
    >>> cell.index, cell.run, cell.workload["rng"], cell.coords, len(cell.key)
    (0, 'fairalloc.experiments.simulation_cell:simulate_cell', 7, {'label': 'fcfs', 'policy': 'fcfs', 'seed': 7}, 16)
    """

    key: str
    index: int
    run: str
    workload: dict | None
    params: dict
    coords: dict = field(compare=False)

    @property
    def workload_key(self) -> str | None:
        """Hash of the resolved workload spec (the worker's cache key)."""
        return None if self.workload is None else hashlib.sha256(
            _canonical(self.workload).encode()).hexdigest()[:16]


def _substitute(obj: Any, values: Mapping[str, Any], where: str, defined: set[str]) -> Any:
    if isinstance(obj, str):
        m = _REF.match(obj.strip())
        if m:
            name = m.group(1)
            if name not in defined:
                raise SpecError(where, obj, f"refers to ${{{name}}}, which is neither 'seed' nor an axis "
                                            f"of 'grid' (axes: {sorted(defined - {'seed'})})")
            return values.get(name)
        return obj
    if isinstance(obj, Mapping):
        return {k: _substitute(v, values, f"{where}.{k}", defined) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_substitute(v, values, f"{where}[{i}]", defined) for i, v in enumerate(obj)]
    return obj


def _refs(obj: Any) -> set[str]:
    if isinstance(obj, str):
        m = _REF.match(obj.strip())
        return {m.group(1)} if m else set()
    if isinstance(obj, Mapping):
        return set().union(*(_refs(v) for v in obj.values())) if obj else set()
    if isinstance(obj, list):
        return set().union(*(_refs(v) for v in obj)) if obj else set()
    return set()


def _scalar(v: Any) -> bool:
    return v is None or isinstance(v, (str, int, float, bool))


class Spec:
    """A validated experiment spec (module docstring for the format).

    Build one with :meth:`from_yaml` or :meth:`from_dict`; both check everything and raise
    :class:`SpecError` naming the key and the value. :meth:`cells` expands it.

    Parameters
    ----------
    data : mapping
        The spec (keys ``name``, ``description``, ``workload``, ``capacity``, ``grid``,
        ``policies``, ``seeds``, ``tables``, ``run``; module docstring); deep-copied.
    base : str or Path, optional
        Folder that relative workload paths are taken from (default: the current directory).

    Raises
    ------
    SpecError
        Any key or value that cannot run.

    Examples
    --------
    >>> spec = Spec.from_dict({"name": "tiny", "workload": {"generator": "lublin", "n_jobs": 20,
    ...                        "nodes": 16, "rng": "${seed}"}, "capacity": {"processors": 16},
    ...                        "policies": {"fcfs": {}, "easy": {}}, "seeds": 2})
    >>> [(c.params["label"], c.params["seed"]) for c in spec.cells()]
    [('fcfs', 0), ('easy', 0), ('fcfs', 1), ('easy', 1)]
    >>> Spec.from_dict({"name": "bad", "workload": {"generator": "lublin"}, "policies": {"fcfs": {}},
    ...                 "seeds": [0], "capacity": {"processors": 16}, "tabels": ["summary"]})
    Traceback (most recent call last):
    ...
    fairalloc.experiments.spec.SpecError: spec key 'tabels' = ['summary']: unknown key; known: name, description, workload, capacity, grid, policies, seeds, tables, run
    """

    def __init__(self, data: Mapping[str, Any], *, base: str | Path | None = None) -> None:
        self.base = None if base is None else Path(base).resolve()
        self.data = copy.deepcopy(dict(data))
        self._check()

    # -- construction --------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, base: str | Path | None = None) -> "Spec":
        """A spec from a dict; relative workload paths are taken from ``base`` (default: the
        current directory)."""
        if not isinstance(data, Mapping):
            raise SpecError("<spec>", type(data).__name__, "a spec is a mapping of keys to values")
        return cls(data, base=Path.cwd() if base is None else base)

    @classmethod
    def from_yaml(cls, path: str | Path) -> "Spec":
        """A spec from a YAML file; relative workload paths are taken from the file's folder."""
        import yaml

        p = Path(path)
        if not p.is_file():
            raise SpecError("<spec file>", str(path), "no such file")
        try:
            data = yaml.safe_load(p.read_text())
        except yaml.YAMLError as exc:
            raise SpecError("<spec file>", str(path), f"not valid YAML ({exc})") from None
        return cls.from_dict(data, base=p.parent)

    @property
    def name(self) -> str:
        return self.data["name"]

    @property
    def run(self) -> str:
        return self.data.get("run", BUILTIN_CELL)

    @property
    def builtin(self) -> bool:
        return self.run == BUILTIN_CELL

    def to_dict(self) -> dict[str, Any]:
        """The spec as given (a deep copy)."""
        return copy.deepcopy(self.data)

    def __repr__(self) -> str:
        return f"Spec(name={self.name!r}, cells={self.n_cells})"

    # -- validation ----------------------------------------------------------------------------
    def _check(self) -> None:
        d = self.data
        for k in d:
            if k not in _TOP_KEYS:
                raise SpecError(str(k), d[k], f"unknown key; known: {', '.join(_TOP_KEYS)}")
        name = d.get("name")
        if not isinstance(name, str) or not _NAME.match(name):
            raise SpecError("name", name, "required: letters, digits, '.', '_' or '-'")
        if "run" in d:
            try:
                inputs.resolve_callable(d["run"])
            except ValueError as exc:
                raise SpecError("run", d["run"], str(exc)) from None
        self._grid = self._check_grid(d.get("grid", {}))
        self._seeds = self._check_seeds(d.get("seeds", [0]))
        defined = set(self._grid) | {"seed"}
        self._defined = defined
        for key in ("workload", "capacity", "policies"):
            if key in d:
                _substitute(d[key], {}, key, defined)   # undefined references
        self._policies = self._check_policies(d.get("policies"))
        self._tables = self._check_tables(d.get("tables"))
        if "workload" in d or self.builtin:
            self._check_workload(d.get("workload"))
        if "capacity" in d and d["capacity"] is not None:
            self._check_capacity(d["capacity"])
        if self.builtin:
            self._check_builtin_policies()
        self.n_cells = sum(1 for _ in self._points())
        if not self.builtin:
            self._check_custom_cells()

    def _check_custom_cells(self) -> None:
        """Call the custom cell function's ``check(params)`` (when it has one) on every cell."""
        check = getattr(inputs.resolve_callable(self.run), "check", None)
        if not callable(check):
            return
        for cell in self.cells():
            try:
                check(cell.params)
            except (ValueError, KeyError, TypeError) as exc:
                label, opts = cell.params["label"], cell.params["options"]
                arg = getattr(exc, "argument", None)
                where = "policies" if label is None else f"policies.{label}"
                if arg in opts:
                    raise SpecError(f"{where}.{arg}", opts[arg], f"{self.run}.check: {exc}") from None
                if arg in cell.params["grid"]:
                    raise SpecError(f"grid.{arg}", cell.params["grid"][arg], f"{self.run}.check: {exc}") from None
                raise SpecError(where if label is not None else "run", opts if label is not None else self.run,
                                f"{self.run}.check (seed {cell.params['seed']}): {exc}") from None

    def _check_grid(self, grid: Any) -> dict[str, list]:
        if grid is None:
            return {}
        if not isinstance(grid, Mapping):
            raise SpecError("grid", grid, "a mapping of axis name -> list of values")
        for k, v in grid.items():
            if not isinstance(k, str) or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", k) or k in _RESERVED:
                raise SpecError(f"grid.{k}", v, f"an axis name is an identifier other than {', '.join(_RESERVED)}")
            if not isinstance(v, list):
                raise SpecError(f"grid.{k}", v, "a list of values")
            if not v:
                raise SpecError(f"grid.{k}", v, "empty grid")
            if len({_canonical(x) for x in v}) != len(v):
                raise SpecError(f"grid.{k}", v, "repeated value")
        return dict(grid)

    def _check_seeds(self, seeds: Any) -> list:
        if isinstance(seeds, bool):
            raise SpecError("seeds", seeds, "a list of ints, a count N, or {start: S, count: N}")
        if isinstance(seeds, int):
            if seeds < 1:
                raise SpecError("seeds", seeds, "a count must be >= 1")
            return list(range(seeds))
        if isinstance(seeds, Mapping):
            extra = set(seeds) - {"start", "count"}
            if extra or "count" not in seeds:
                raise SpecError("seeds", seeds, "{start: S, count: N} (count required)")
            start, count = seeds.get("start", 0), seeds["count"]
            for k, v in (("start", start), ("count", count)):
                if not isinstance(v, int) or isinstance(v, bool) or v < (1 if k == "count" else 0):
                    raise SpecError(f"seeds.{k}", v, "a non-negative int (count >= 1)")
            return list(range(start, start + count))
        if isinstance(seeds, list):
            if not seeds:
                raise SpecError("seeds", seeds, "empty grid")
            for i, s in enumerate(seeds):
                if s is not None and (not isinstance(s, int) or isinstance(s, bool) or s < 0):
                    raise SpecError(f"seeds[{i}]", s, "a seed is a non-negative int")
            if len(set(seeds)) != len(seeds):
                raise SpecError("seeds", seeds, "repeated seed")
            return list(seeds)
        raise SpecError("seeds", seeds, "a list of ints, a count N, or {start: S, count: N}")

    def _check_policies(self, pols: Any) -> list[tuple[str, str | None, dict, dict]]:
        """[(label, policy, fixed options, grid options)]; no policies -> one unnamed entry."""
        if pols is None:
            if self.builtin:
                raise SpecError("policies", pols, "required: at least one policy")
            return [(None, None, {}, {})]
        if isinstance(pols, list):
            for i, p in enumerate(pols):
                if not isinstance(p, str):
                    raise SpecError(f"policies[{i}]", p, "a policy name (or use a mapping label -> options)")
            if len(set(pols)) != len(pols):
                raise SpecError("policies", pols, "repeated policy")
            pols = {p: {} for p in pols}
        if not isinstance(pols, Mapping) or not pols:
            raise SpecError("policies", pols, "a non-empty mapping label -> options (or a list of names)")
        out = []
        for label, opts in pols.items():
            opts = {} if opts is None else opts
            if not isinstance(label, str) or not _LABEL.match(label):
                raise SpecError(f"policies.{label}", opts, "a label is letters, digits, '.', '_', '+' or '-'")
            if not isinstance(opts, Mapping):
                raise SpecError(f"policies.{label}", opts, "a mapping option -> value (a list: grid axis)")
            policy = opts.get("policy", label)
            if not isinstance(policy, str) or not policy:
                raise SpecError(f"policies.{label}.policy", policy, "a policy name")
            fixed, axes = {}, {}
            for k, v in opts.items():
                if k == "policy":
                    continue
                if k in _RESERVED:
                    raise SpecError(f"policies.{label}.{k}", v, f"reserved name ({', '.join(_RESERVED)})")
                if isinstance(v, list):
                    if not v:
                        raise SpecError(f"policies.{label}.{k}", v, "empty grid")
                    axes[k] = v
                else:
                    fixed[k] = v
            out.append((label, policy, fixed, axes))
        return out

    def _check_tables(self, tables: Any) -> list[str] | None:
        if tables is None:
            return ["summary"] if self.builtin else None
        if not isinstance(tables, list) or not tables:
            raise SpecError("tables", tables, "a non-empty list of table names")
        for i, t in enumerate(tables):
            if not isinstance(t, str) or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", t) or t == "cells":
                raise SpecError(f"tables[{i}]", t, "a table name is an identifier other than 'cells'")
            if self.builtin and t not in BUILTIN_TABLES:
                raise SpecError(f"tables[{i}]", t, f"unknown table; the built-in cell keeps "
                                                    f"{', '.join(BUILTIN_TABLES)}")
        if len(set(tables)) != len(tables):
            raise SpecError("tables", tables, "repeated table")
        return list(tables)

    def _check_workload(self, wl: Any) -> None:
        if wl is None:
            raise SpecError("workload", wl, "required by the built-in cell: {generator: ...} or {reader: ..., path: ...}")
        if not isinstance(wl, Mapping):
            raise SpecError("workload", wl, "a mapping: {generator: NAME, ...} or {reader: NAME, path: PATH, ...}")
        if ("generator" in wl) == ("reader" in wl):
            raise SpecError("workload", dict(wl), "exactly one of 'generator' and 'reader'")
        which = "generator" if "generator" in wl else "reader"
        try:
            fn, fixed, _ = inputs.workload_function(wl)
        except ValueError as exc:
            raise SpecError(f"workload.{which}", wl[which], str(exc)) from None
        args = {k: v for k, v in wl.items() if k not in inputs.WORKLOAD_META_KEYS}
        if which == "reader":
            if "path" not in wl:
                raise SpecError("workload.path", None, "a reader needs a path")
            for p in self._values_of(wl["path"], "workload.path"):
                path = inputs.expand_path(p, self.base)
                if not path.exists():
                    raise SpecError("workload.path", p, f"no such file: {path}")
        else:
            for k in ("path", "prepare"):
                if k in wl:
                    raise SpecError(f"workload.{k}", wl[k], "applies to readers only")
        bad = inputs.check_arguments(fn, {**args, **fixed}, ())
        if bad is not None:
            raise SpecError(f"workload.{bad}", wl[bad], f"not an argument of {getattr(fn, '__name__', fn)}")
        if "head" in wl:
            for h in self._values_of(wl["head"], "workload.head"):
                if not isinstance(h, int) or isinstance(h, bool) or h < 1:
                    raise SpecError("workload.head", h, "a positive int")

    def _values_of(self, value: Any, where: str) -> list:
        """Every value ``value`` takes across the grid (itself, or a grid axis it refers to)."""
        refs = _refs(value)
        if not refs:
            return [value]
        name = next(iter(refs))
        if name == "seed":
            return list(self._seeds)
        return list(self._grid[name])

    def _check_capacity(self, cap: Any) -> None:
        if not isinstance(cap, Mapping) or len(cap) != 1:
            raise SpecError("capacity", cap, f"a mapping with one of {', '.join(inputs.CAPACITY_KINDS)}")
        (kind, value), = cap.items()
        if kind not in inputs.CAPACITY_KINDS:
            raise SpecError(f"capacity.{kind}", value, f"unknown capacity; known: {', '.join(inputs.CAPACITY_KINDS)}")
        for v in self._values_of(value, f"capacity.{kind}"):
            if kind == "processors" and (not isinstance(v, int) or isinstance(v, bool) or v < 1):
                raise SpecError("capacity.processors", v, "a positive int")
            if kind == "pool" and (not isinstance(v, (int, float)) or isinstance(v, bool) or not v > 0):
                raise SpecError("capacity.pool", v, "a fraction of the mean use R, > 0")
            if kind == "resources" and (not isinstance(v, list) or not v
                                        or not all(isinstance(x, (int, float)) and x > 0 for x in v)):
                raise SpecError("capacity.resources", v, "a list of positive totals")
            if kind == "cluster":
                from .. import clusters
                fname = str(v).replace("-", "_")
                if fname.startswith("_") or fname not in getattr(clusters, "__all__", dir(clusters)):
                    known = [n.replace("_", "-") for n in getattr(clusters, "__all__", [])]
                    raise SpecError("capacity.cluster", v, f"unknown cluster; known: {', '.join(known)}")

    def _check_builtin_policies(self) -> None:
        """Build each policy once per distinct option set: unknown names and options fail here."""
        from ..sim.policies import make_policy

        seen = set()
        for label, policy, fixed, axes in self._policies:
            key = policy.lower()
            for values in itertools.product(*axes.values()):
                opts = {**fixed, **dict(zip(axes, values))}
                for g in self._grid_points() if _refs(opts) else [{}]:
                    resolved = _substitute(opts, {**g, "seed": self._seeds[0]}, f"policies.{label}",
                                           self._defined)
                    pol_opts = {k: v for k, v in resolved.items() if k not in SIMULATE_OPTIONS}
                    sig = _canonical([key, pol_opts])
                    if sig in seen:
                        continue
                    seen.add(sig)
                    try:
                        make_policy(key, **pol_opts)
                    except TypeError as exc:
                        m = re.search(r"keyword argument '(\w+)'", str(exc))
                        bad = m.group(1) if m else "?"
                        raise SpecError(f"policies.{label}.{bad}", pol_opts.get(bad),
                                        f"not an option of policy {policy!r} ({exc})") from None
                    except InvalidInstanceError as exc:
                        arg = getattr(exc, "argument", None)
                        if arg in pol_opts:
                            raise SpecError(f"policies.{label}.{arg}", pol_opts[arg], str(exc)) from None
                        if arg == "policy":
                            entry = self.data["policies"]
                            explicit = isinstance(entry, Mapping) and "policy" in (entry[label] or {})
                            raise SpecError(f"policies.{label}" + (".policy" if explicit else ""), policy,
                                            str(exc)) from None
                        raise SpecError(f"policies.{label}", pol_opts, str(exc)) from None
                    for k in SIMULATE_OPTIONS:
                        if k == "engine" and k in resolved and resolved[k] not in ("auto", "events", "kernel"):
                            raise SpecError(f"policies.{label}.engine", resolved[k], "one of auto, events, kernel")
                        if k == "enforce_walltime" and k in resolved and not isinstance(resolved[k], bool):
                            raise SpecError(f"policies.{label}.enforce_walltime", resolved[k], "true or false")

    # -- expansion -----------------------------------------------------------------------------
    def _grid_points(self) -> list[dict[str, Any]]:
        names = list(self._grid)
        return [dict(zip(names, vals)) for vals in itertools.product(*self._grid.values())]

    def _points(self) -> Iterator[tuple[Any, dict, tuple]]:
        for seed in self._seeds:
            for g in self._grid_points():
                for label, policy, fixed, axes in self._policies:
                    for values in itertools.product(*axes.values()):
                        yield seed, g, (label, policy, {**fixed, **dict(zip(axes, values))})

    def cells(self) -> list[Cell]:
        """Every cell of the sweep, in expansion order (seeds, then grid, then policies)."""
        version = _version()
        d = self.data
        raw = []
        for index, (seed, g, (label, policy, opts)) in enumerate(self._points()):
            values = {**g, "seed": seed}
            where = f"policies.{label}" if label else "policies"
            options = _substitute(opts, values, where, self._defined)
            workload = d.get("workload")
            if workload is not None:
                workload = _substitute(workload, values, "workload", self._defined)
                if "path" in workload:
                    workload["path"] = str(inputs.expand_path(workload["path"], self.base))
            capacity = d.get("capacity")
            if capacity is not None:
                capacity = _substitute(capacity, values, "capacity", self._defined)
            params = {"label": label, "policy": policy, "options": options, "capacity": capacity,
                      "seed": seed, "grid": dict(g), "tables": self._tables}
            ident = {"version": version, "run": self.run, "workload": workload, "params": params}
            key = hashlib.sha256(_canonical(ident).encode()).hexdigest()[:16]
            coords: dict[str, Any] = {"label": label, "policy": policy, "seed": seed}
            for k, v in {**options, **g}.items():
                if k in coords and _canonical(coords[k]) != _canonical(v):
                    raise SpecError(f"{where}.{k}", v, f"clashes with grid axis {k!r} = {coords[k]!r}")
                coords[k] = v if _scalar(v) else _canonical(v)
            raw.append((key, index, workload, params, coords))
        keys = [r[0] for r in raw]
        if len(set(keys)) != len(keys):
            raise SpecError("policies", d.get("policies"), "two cells resolve to the same parameters")
        # one type per column across the sweep (Parquet files are read together)
        kinds: dict[str, set] = {}
        for *_, coords in raw:
            for k, v in coords.items():
                if v is not None:
                    kinds.setdefault(k, set()).add(type(v))
        as_str = {k for k, t in kinds.items() if len(t - {int, float}) > 0 and len(t) > 1}
        as_float = {k for k, t in kinds.items() if t == {int, float}}
        cells = []
        for key, index, workload, params, coords in raw:
            coords = {k: (None if v is None else str(v) if k in as_str else float(v) if k in as_float else v)
                      for k, v in coords.items()}
            cells.append(Cell(key=key, index=index, run=self.run, workload=workload, params=params,
                              coords=coords))
        return cells
