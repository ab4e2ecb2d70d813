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
    time_limit: 3600                      # optional: seconds per cell; a cell still running then
                                          # is stopped and recorded as `timeout`
    run: mypackage.cells:my_cell          # optional: another cell function (module docstring of
                                          # fairalloc.experiments.worker for its contract); its
                                          # check(params), if it has one, runs on every cell first

The cells are the product seeds x grid x (each policy x its own grid), in that nesting order (the
last axis varies fastest). They are expanded lazily (:meth:`Spec.iter_cells`), and a spec of more
than :data:`MAX_CELLS` cells is refused unless ``max_cells`` (``--max-cells``) raises the limit:
each cell writes a record and a file per table, so a grid written by mistake (a ``count`` with
three zeros too many) would otherwise fill the disk.

Each cell has a stable key: a hash of its resolved parameters (workload, capacity, policy and
options, seed, grid values, tables, cell function, the columns it writes) and of the code that
computes it (:func:`~fairalloc.experiments.fingerprint.code_fingerprint`: fairalloc's source, the
source of a custom cell function or generator, the numerical libraries' versions). A rerun into the
same folder reuses exactly the cells whose parameters and code are unchanged; after an edit of
fairalloc (a bug fix) every cell runs again, and the run says so.

The format is also a JSON Schema, :data:`SCHEMA` (rendered on the documentation site by
:func:`schema_markdown`), against which every spec is validated when it is loaded.

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

__all__ = ["Spec", "Cell", "SpecError", "BUILTIN_CELL", "BUILTIN_TABLES", "MAX_CELLS", "SCHEMA",
           "schema_markdown"]

#: The default cell function: one :func:`fairalloc.simulate` call.
BUILTIN_CELL = "fairalloc.experiments.simulation_cell:simulate_cell"
#: Tables the built-in cell can keep.
BUILTIN_TABLES = ("summary", "users", "jobs", "rejected", "utilization")
#: Cells a spec may expand to unless ``max_cells`` (``fairalloc sweep --max-cells``) raises it:
#: each cell writes a record and one file per table (a sweep of 10^5 cells is some 200,000 files).
MAX_CELLS = 100_000
_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"
_LABEL_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$"
_IDENT_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"
_REF_PATTERN = r"^\$\{[A-Za-z_][A-Za-z0-9_]*\}$"
_REF = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$")
#: Options of a policy entry that go to fa.simulate itself rather than to the policy.
SIMULATE_OPTIONS = ("enforce_walltime", "engine")
#: Names a grid axis may not take (they are cell columns already).
_RESERVED = ("key", "label", "policy", "seed", "status", "index")

_REF_SCHEMA = {"type": "string", "pattern": _REF_PATTERN,
               "description": "a reference ${name} to the cell's seed or to an axis of `grid`"}


def _or_ref(schema: dict) -> dict:
    return {"anyOf": [schema, {"$ref": "#/$defs/reference"}]}


#: The spec format as a JSON Schema (draft 2020-12). :class:`Spec` validates every spec against it
#: before its own checks (those that need fairalloc: policy options, generator arguments, files).
SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "fairalloc sweep spec",
    "description": "A named grid of simulations (or of any cell function), expanded into cells: "
                   "seeds x grid x (each policy x its own option lists), the last axis fastest.",
    "type": "object",
    "required": ["name"],
    "additionalProperties": False,
    "$defs": {"reference": _REF_SCHEMA},
    "properties": {
        "name": {"type": "string", "pattern": _NAME_PATTERN,
                 "description": "The sweep's name: letters, digits, '.', '_', '-'. A results folder holds "
                                "the sweep of one name.", "examples": ["sdrf-delta"]},
        "description": {"type": "string", "description": "Free text, shown by `fairalloc results`."},
        "workload": {
            "type": ["object", "null"],
            "description": "What each cell simulates: a generator with its keyword arguments, or a trace "
                           "reader with a path; built once per worker process and workload. Required by "
                           "the built-in cell; a custom cell (`run`) may go without.",
            "properties": {
                "generator": {"type": "string",
                              "description": "lublin, google_like, alibaba_like, or 'package.module:function' "
                                             "(any other key of `workload` is its keyword argument); "
                                             "either a generator or a reader"},
                "reader": {"enum": list(inputs.READERS),
                           "description": "a trace reader of fairalloc.workloads"},
                "path": {"type": "string",
                         "description": "the trace file of a reader (~ and $VARS expanded; relative to the "
                                        "spec file's folder)"},
                "prepare": {"type": "boolean",
                            "description": "readers of task traces: run prepare_tasks (default true)"},
                "head": _or_ref({"type": "integer", "minimum": 1,
                                 "description": "keep the first N jobs by submit time"}),
            },
            "if": {"required": ["reader"]},
            "then": {"required": ["path"], "properties": {"generator": False}},
            "else": {"required": ["generator"]},
            "examples": [{"generator": "lublin", "n_jobs": 500, "nodes": 128, "rng": "${seed}"},
                         {"reader": "swf", "path": "$FAIRALLOC_DATA/swf/KTH-SP2-1996-2.1-cln.swf.gz"}],
        },
        "capacity": {
            "type": ["object", "null"],
            "description": "The machine of the built-in cell, one key (default: the workload's own "
                           "MaxProcs).",
            "minProperties": 1, "maxProperties": 1, "additionalProperties": False,
            "properties": {
                "processors": _or_ref({"type": "integer", "minimum": 1,
                                       "description": "identical processors (rigid jobs)"}),
                "pool": _or_ref({"type": "number", "exclusiveMinimum": 0,
                                 "description": "one pool of every resource at this fraction of the "
                                                "workload's mean use R"}),
                "resources": _or_ref({"type": "array", "minItems": 1,
                                      "items": {"type": "number", "exclusiveMinimum": 0},
                                      "description": "one pool with these totals"}),
                "cluster": _or_ref({"type": "string",
                                    "description": "a built-in cluster, a function of fairalloc.clusters "
                                                   "(e.g. tvtsf-table3)"}),
            },
            "examples": [{"processors": 128}, {"pool": "${load}"}],
        },
        "grid": {
            "type": ["object", "null"],
            "description": "Axes shared by every policy: name -> list of values, used through "
                           "\"${name}\" anywhere in workload, capacity and policies; each axis is also a "
                           "column of every table.",
            "propertyNames": {"pattern": _IDENT_PATTERN, "not": {"enum": list(_RESERVED)}},
            "additionalProperties": {"type": "array", "minItems": 1},
            "examples": [{"load": [0.5, 0.75, 1.0]}],
        },
        "policies": {
            "description": "Policy names, or label -> options. An option whose value is a list is a grid "
                           "axis of that policy; `policy:` names the policy when the label is another "
                           "name. Options go to the policy (and enforce_walltime, engine to "
                           "fa.simulate); a custom cell receives them as params['options'].",
            "oneOf": [
                {"type": "array", "minItems": 1, "uniqueItems": True, "items": {"type": "string"}},
                {"type": "object", "minProperties": 1,
                 "propertyNames": {"pattern": _LABEL_PATTERN},
                 "additionalProperties": {
                     "type": ["object", "null"],
                     "propertyNames": {"not": {"enum": [r for r in _RESERVED if r != "policy"]}},
                     "properties": {"policy": {"type": "string", "minLength": 1}},
                 }},
            ],
            "examples": [["fcfs", "easy"], {"sdrf": {"delta": [0.9, 0.999999]},
                                            "sdrf-printed": {"policy": "sdrf", "priority": "printed"}}],
        },
        "seeds": {
            "description": "The seeds: a list of distinct non-negative ints, a count N (0..N-1), or "
                           "{start: S, count: N}. Default [0].",
            "oneOf": [
                {"type": "integer", "minimum": 1},
                {"type": "array", "minItems": 1, "uniqueItems": True,
                 "items": {"type": ["integer", "null"], "minimum": 0}},
                {"type": "object", "required": ["count"], "additionalProperties": False,
                 "properties": {"start": {"type": "integer", "minimum": 0},
                                "count": {"type": "integer", "minimum": 1}}},
            ],
            "examples": [3, [0, 1, 2], {"start": 0, "count": 100}],
        },
        "tables": {
            "type": "array", "minItems": 1, "uniqueItems": True,
            "items": {"type": "string", "pattern": _IDENT_PATTERN, "not": {"const": "cells"}},
            "description": "The tables to keep. Built-in cell: summary, users, jobs, rejected, utilization "
                           "(default [summary]); a custom cell: any it returns (default: all).",
            "examples": [["summary", "users"]],
        },
        "run": {
            "type": "string", "pattern": r"^[A-Za-z_][A-Za-z0-9_.]*:[A-Za-z_][A-Za-z0-9_.]*$",
            "description": "Another cell function, 'package.module:function', called as "
                           "function(workload, params) -> {table: DataFrame} "
                           "(fairalloc.experiments.worker). Default: the built-in fa.simulate cell.",
        },
        "time_limit": {
            "type": ["number", "null"], "exclusiveMinimum": 0,
            "description": "Seconds a cell may run (its workload build included); a cell still running "
                           "then is stopped and recorded with status `timeout`. The cells then run in a "
                           "child process of each worker, which can be stopped. Default: no limit "
                           "(fairalloc sweep --time-limit overrides).",
            "examples": [3600],
        },
    },
}


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


def cell_code(run: str, workload: Any) -> str:
    """The code fingerprint of cells that call ``run`` on ``workload`` (a custom generator's package
    counts too): :func:`~fairalloc.experiments.fingerprint.code_fingerprint`."""
    from .fingerprint import code_fingerprint

    gen = workload.get("generator") if isinstance(workload, Mapping) else None
    return code_fingerprint([run] + ([gen] if isinstance(gen, str) and ":" in gen else []))


def _check_max_cells(max_cells: Any) -> int | None:
    if max_cells is None:
        return None
    if not isinstance(max_cells, int) or isinstance(max_cells, bool) or max_cells < 1:
        raise InvalidInstanceError(f"max_cells={max_cells!r} must be a positive int (or None: no limit)",
                                   argument="max_cells", value=max_cells)
    return max_cells


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)


def _dotted(path: Any) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def _schema_error(data: Mapping[str, Any]) -> SpecError | None:
    """The most relevant violation of :data:`SCHEMA` in ``data`` as a :class:`SpecError` naming the
    dotted key and its value (None when ``data`` is valid)."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    err = best_match(Draft202012Validator(SCHEMA).iter_errors(data))
    if err is None:
        return None
    path = list(err.absolute_path)
    value: Any = err.instance
    why = err.message
    schema_path = list(err.relative_schema_path)
    if err.validator == "additionalProperties" and isinstance(err.instance, Mapping):
        known = err.schema.get("properties", {})
        extra = [k for k in err.instance if k not in known]
        if extra:
            path, value = path + [extra[0]], err.instance[extra[0]]
            why = "unknown key; known: " + ", ".join(known)
    elif err.validator == "required" and isinstance(err.instance, Mapping):
        missing = [k for k in err.validator_value if k not in err.instance]
        if missing:
            path, value, why = path + [missing[0]], None, "required"
    elif "propertyNames" in schema_path and isinstance(err.instance, str) and path:
        parent = data
        for p in path:
            parent = parent[p]
        name = err.instance
        path, value = path + [name], parent.get(name) if isinstance(parent, Mapping) else name
        why = (f"the name {name!r} is reserved ({', '.join(_RESERVED)})" if err.validator == "not"
               else f"the name {name!r} does not match {err.validator_value}")
    elif err.validator in ("oneOf", "anyOf") and err.context:
        why = "not one of the accepted forms"
    elif err.validator is None:                      # a `false` schema: the key may not be there
        parent: Any = data
        for p in path:
            parent = parent[p]
        named = [k for k, v in parent.items() if v == err.instance] if isinstance(parent, Mapping) else []
        if named:
            path = path + [named[0]]
        why = "not allowed here"
    key = _dotted(path) or "<spec>"
    node: Any = SCHEMA
    for p in path:                     # the key's own description, when the schema has one
        props = node.get("properties", {}) if isinstance(node, dict) else {}
        node = props.get(p) if isinstance(p, str) and p in props else None
        if node is None:
            break
    desc = node.get("description") if isinstance(node, dict) else None
    if desc:
        why = f"{why} (expected: {desc[0].lower() + desc[1:]})"
    return SpecError(key, value, why)


def _type_names(schema: Mapping[str, Any]) -> str:
    """A short type description of a schema node, for the docs table."""
    if "$ref" in schema:
        return "${name}"
    for alt in ("anyOf", "oneOf"):
        if alt in schema:
            return " or ".join(dict.fromkeys(_type_names(s) for s in schema[alt]))
    if "enum" in schema:
        return " \\| ".join(f"`{v}`" for v in schema["enum"])
    t = schema.get("type", "any")
    t = " or ".join(t) if isinstance(t, list) else t
    if t == "array" and "items" in schema and "type" in schema["items"]:
        it = schema["items"]["type"]
        t = f"array of {' or '.join(it) if isinstance(it, list) else it}"
    bounds = []
    for k, sym in (("minimum", ">="), ("exclusiveMinimum", ">"), ("minItems", "items >="),
                   ("minProperties", "keys >=")):
        if k in schema:
            bounds.append(f"{sym} {schema[k]}")
    return t + (f" ({', '.join(bounds)})" if bounds else "")


def schema_markdown() -> str:
    """The spec format (:data:`SCHEMA`) as a Markdown page: one table of the top-level keys, then
    each structured key's own keys and examples (the documentation site's "Sweep spec format").

    Returns
    -------
    str

    Examples
    --------
    >>> md = schema_markdown()
    >>> md.splitlines()[0], "| `time_limit` |" in md, "| `seeds` |" in md
    ('# Sweep spec format', True, True)
    """
    import yaml

    def row(name: str, node: Mapping[str, Any], required: bool) -> str:
        desc = " ".join(str(node.get("description", "")).split()).replace("|", "\\|")
        return f"| `{name}` | {_type_names(node)} | {'yes' if required else ''} | {desc} |"

    lines = ["# Sweep spec format", "",
             "A sweep spec is a YAML file (or the same structure as a Python dict) read by "
             "`fairalloc sweep SPEC.yaml` and `fairalloc.experiments.Spec`. This page is generated from "
             "the JSON Schema `fairalloc.experiments.spec.SCHEMA`, against which every spec is validated "
             "when it is loaded; fairalloc then checks what a schema cannot (policies and their options, "
             "generator arguments, files, `${name}` references). An error names the dotted key and the "
             "value.", "", " ".join(SCHEMA["description"].split()), "",
             "Write `\"${name}\"` for the value of the cell's seed (`${seed}`) or of a `grid` axis "
             "anywhere in `workload`, `capacity` and `policies`.", "",
             f"A spec of more than {MAX_CELLS:,} cells is refused unless `--max-cells` (`max_cells=`) "
             "raises the limit.", "", "## Keys", "",
             "| key | type | required | meaning |", "|---|---|---|---|"]
    req = set(SCHEMA.get("required", ()))
    for name, node in SCHEMA["properties"].items():
        lines.append(row(name, node, name in req))
    for name, node in SCHEMA["properties"].items():
        if not node.get("properties") and not node.get("examples"):
            continue
        lines += ["", f"## `{name}`", "", " ".join(str(node.get("description", "")).split()), ""]
        if node.get("properties"):
            lines += ["| key | type | meaning |", "|---|---|---|"]
            for sub, sn in node["properties"].items():
                desc = " ".join(str(sn.get("description", "") or (sn.get("anyOf") or [{}])[0].get(
                    "description", "")).split()).replace("|", "\\|")
                lines.append(f"| `{sub}` | {_type_names(sn)} | {desc} |")
            lines.append("")
        for ex in node.get("examples", []):
            text = (f"{name}: {json.dumps(ex)}" if _scalar(ex) else
                    yaml.safe_dump({name: ex}, sort_keys=False, default_flow_style=None).strip())
            lines += ["```yaml", text, "```", ""]
    import textwrap

    example = textwrap.dedent(__doc__.split("Python dict::\n")[1].split("\nThe cells are")[0]).strip("\n")
    lines += ["## A complete spec", "", "```yaml", example, "```", "",
              "## The schema", "", "```json", json.dumps(SCHEMA, indent=1), "```", ""]
    return "\n".join(lines)


@dataclass(frozen=True)
class Cell:
    """One run of a sweep: resolved parameters, a stable ``key`` and the columns it adds to tables.

    Attributes
    ----------
    key : str
        16 hex digits of SHA-256 over the resolved parameters, the columns the cell writes and the
        code that computes it (:attr:`code`).
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
    code : str
        :func:`~fairalloc.experiments.fingerprint.code_fingerprint` of the code the key was computed
        with; a worker running other code refuses the cell (:func:`~.worker.execute_cell`).

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
    code: str = field(default="", compare=False)

    @property
    def workload_key(self) -> str | None:
        """Hash of the resolved workload spec (the worker's cache key)."""
        return None if self.workload is None else hashlib.sha256(
            _canonical(self.workload).encode()).hexdigest()[:16]


def _substitute(obj: Any, values: Mapping[str, Any], where: str, defined: set[str], path: tuple = ()) -> Any:
    """``obj`` with every ``"${name}"`` replaced by ``values[name]`` (``where`` + ``path``: the dotted
    key an undefined name is reported at)."""
    t = type(obj)
    if t is str:
        if "${" not in obj:
            return obj
        m = _REF.match(obj.strip())
        if m:
            name = m.group(1)
            if name not in defined:
                raise SpecError(_dotted([where, *path]), obj,
                                f"refers to ${{{name}}}, which is neither 'seed' nor an axis "
                                f"of 'grid' (axes: {sorted(defined - {'seed'})})")
            return values.get(name)
        return obj
    if t is dict or (t is not list and isinstance(obj, Mapping)):
        return {k: _substitute(v, values, where, defined, path + (k,)) for k, v in obj.items()}
    if t is list:
        return [_substitute(v, values, where, defined, path + (i,)) for i, v in enumerate(obj)]
    return obj


def _refs(obj: Any) -> set[str]:
    t = type(obj)
    if t is str:
        m = _REF.match(obj.strip()) if "${" in obj else None
        return {m.group(1)} if m else set()
    if t is dict or (t is not list and isinstance(obj, Mapping)):
        return set().union(*(_refs(v) for v in obj.values())) if obj else set()
    if t is list:
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
    fairalloc.experiments.spec.SpecError: spec key 'tabels' = ['summary']: unknown key; known: name, description, workload, capacity, grid, policies, seeds, tables, run, time_limit
    """

    def __init__(self, data: Mapping[str, Any], *, base: str | Path | None = None,
                 max_cells: int | None = MAX_CELLS) -> None:
        self.base = None if base is None else Path(base).resolve()
        self.data = copy.deepcopy(dict(data))
        self.max_cells = _check_max_cells(max_cells)
        self._scanned: tuple[set, set] | None = None
        self._check()

    # -- construction --------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, base: str | Path | None = None,
                  max_cells: int | None = MAX_CELLS) -> "Spec":
        """A spec from a dict; relative workload paths are taken from ``base`` (default: the
        current directory). ``max_cells``: the most cells it may expand to (:data:`MAX_CELLS`;
        None: no limit)."""
        if not isinstance(data, Mapping):
            raise SpecError("<spec>", type(data).__name__, "a spec is a mapping of keys to values")
        return cls(data, base=Path.cwd() if base is None else base, max_cells=max_cells)

    @classmethod
    def from_yaml(cls, path: str | Path, *, max_cells: int | None = MAX_CELLS) -> "Spec":
        """A spec from a YAML (or JSON) file, read by fairalloc's strict reader (:func:`fairalloc.io.read_data`:
        duplicate keys and numbers YAML 1.1 and 1.2 read differently are refused with their line);
        relative workload paths are taken from the file's folder."""
        from ..io import read_data

        p = Path(path)
        if not p.is_file():
            raise SpecError("<spec file>", str(path), "no such file" if not p.exists() else "not a file")
        if p.suffix.lower() not in (".yaml", ".yml", ".json"):
            raise SpecError("<spec file>", str(path), "a spec is a .yaml, .yml or .json file")
        return cls.from_dict(read_data(p), base=p.parent, max_cells=max_cells)

    @property
    def name(self) -> str:
        return self.data["name"]

    @property
    def run(self) -> str:
        return self.data.get("run", BUILTIN_CELL)

    @property
    def builtin(self) -> bool:
        return self.run == BUILTIN_CELL

    @property
    def time_limit(self) -> float | None:
        """Seconds a cell may run (``time_limit:``), or None."""
        v = self.data.get("time_limit")
        return None if v is None else float(v)

    def to_dict(self) -> dict[str, Any]:
        """The spec as given (a deep copy)."""
        return copy.deepcopy(self.data)

    def __repr__(self) -> str:
        return f"Spec(name={self.name!r}, cells={self.n_cells})"

    # -- validation ----------------------------------------------------------------------------
    def _check(self) -> None:
        d = self.data
        err = _schema_error(d)
        if err is not None:
            raise err
        if "run" in d:
            try:
                inputs.resolve_callable(d["run"])
            except ValueError as exc:
                raise SpecError("run", d["run"], str(exc)) from None
        self._grid = self._check_grid(d.get("grid") or {})
        self._seeds = self._check_seeds(d.get("seeds", [0]))
        defined = set(self._grid) | {"seed"}
        self._defined = defined
        for key in ("workload", "capacity", "policies"):
            if key in d:
                _substitute(d[key], {}, key, defined)   # undefined references
        self._policies = self._check_policies(d.get("policies"))
        self.n_cells = self._count()
        if self.max_cells is not None and self.n_cells > self.max_cells:
            raise InvalidInstanceError(
                f"spec {self.name!r} expands to {self.n_cells:,} cells ({self._size_text()}), more than "
                f"the limit of {self.max_cells:,} (each cell writes a record and a file per table): check "
                "the seeds and grids, or raise the limit with --max-cells N (max_cells=N)",
                argument="max_cells", value=self.n_cells)
        self._tables = self._check_tables(d.get("tables"))
        if "workload" in d or self.builtin:
            self._check_workload(d.get("workload"))
        if "capacity" in d and d["capacity"] is not None:
            self._check_capacity(d["capacity"])
        if self.builtin:
            self._check_builtin_policies()
        if not self.builtin:
            self._check_custom_cells()

    def _count(self) -> int:
        """Cells of the expansion: seeds x grid points x (sum over policies of their own points)."""
        n_grid = 1
        for values in self._grid.values():
            n_grid *= len(values)
        per_policy = 0
        for _, _, _, axes in self._policies:
            k = 1
            for values in axes.values():
                k *= len(values)
            per_policy += k
        return len(self._seeds) * n_grid * per_policy

    def _size_text(self) -> str:
        parts = [f"{len(self._seeds):,} seeds"]
        parts += [f"{len(v):,} {k}" for k, v in self._grid.items()]
        per = {label or "(cell)": int(__import__("math").prod(len(v) for v in axes.values()))
               for label, _, _, axes in self._policies}
        parts.append(" + ".join(f"{label} x {n:,}" if n > 1 else str(label) for label, n in per.items()))
        return " x ".join(parts[:-1]) + f" x ({parts[-1]})"

    def _check_custom_cells(self) -> None:
        """Call the custom cell function's ``check(params)`` (when it has one) on every cell."""
        check = getattr(inputs.resolve_callable(self.run), "check", None)
        if not callable(check):
            return
        for cell in self.iter_cells():
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

    def _check_grid(self, grid: Mapping[str, list]) -> dict[str, list]:
        """Names, lists and emptiness are the schema's; a value twice would give two equal cells."""
        for k, v in grid.items():
            if len({_canonical(x) for x in v}) != len(v):
                raise SpecError(f"grid.{k}", v, "repeated value")
        return dict(grid)

    def _check_seeds(self, seeds: Any) -> range | list:
        """The seeds (a ``range`` for the counted forms: nothing is expanded); shapes are the schema's,
        and a seed must be an int (the schema's "integer" also takes 2.0)."""
        def whole(key: str, v: Any) -> int:
            if not isinstance(v, int) or isinstance(v, bool):
                raise SpecError(key, v, "an int")
            return v

        if isinstance(seeds, Mapping):
            start = whole("seeds.start", seeds.get("start", 0))
            return range(start, start + whole("seeds.count", seeds["count"]))
        if isinstance(seeds, list):
            for i, x in enumerate(seeds):
                if x is not None:
                    whole(f"seeds[{i}]", x)
            if len(set(seeds)) != len(seeds):
                raise SpecError("seeds", seeds, "repeated seed")
            return list(seeds)
        return range(whole("seeds", seeds))

    def _check_policies(self, pols: Any) -> list[tuple[str, str | None, dict, dict]]:
        """[(label, policy, fixed options, grid options)]; no policies -> one unnamed entry."""
        if pols is None:
            if self.builtin:
                raise SpecError("policies", pols, "required: at least one policy")
            return [(None, None, {}, {})]
        if isinstance(pols, list):                 # names (the schema: distinct strings)
            pols = {p: {} for p in pols}
        out = []
        for label, opts in pols.items():
            opts = {} if opts is None else opts
            policy = opts.get("policy", label)
            fixed, axes = {}, {}
            for k, v in opts.items():
                if k == "policy":
                    continue
                if isinstance(v, list):
                    if not v:
                        raise SpecError(f"policies.{label}.{k}", v, "empty grid")
                    if len({_canonical(x) for x in v}) != len(v):
                        raise SpecError(f"policies.{label}.{k}", v, "repeated value (two equal cells)")
                    axes[k] = v
                else:
                    fixed[k] = v
            out.append((label, policy, fixed, axes))
        return out

    def _check_tables(self, tables: Any) -> list[str] | None:
        """Names are the schema's; the built-in cell keeps its own tables only."""
        if tables is None:
            return ["summary"] if self.builtin else None
        for i, t in enumerate(tables):
            if self.builtin and t not in BUILTIN_TABLES:
                raise SpecError(f"tables[{i}]", t, f"unknown table; the built-in cell keeps "
                                                    f"{', '.join(BUILTIN_TABLES)}")
        return list(tables)

    def _check_workload(self, wl: Any) -> None:
        if wl is None:
            raise SpecError("workload", wl, "required by the built-in cell: {generator: ...} or {reader: ..., path: ...}")
        which = "generator" if "generator" in wl else "reader"
        try:
            fn, fixed, _ = inputs.workload_function(wl)
        except ValueError as exc:
            raise SpecError(f"workload.{which}", wl[which], str(exc)) from None
        args = {k: v for k, v in wl.items() if k not in inputs.WORKLOAD_META_KEYS}
        if which == "reader":
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
                self._check_resolved("workload", {"generator": "lublin", "head": h}, "head")

    def _values_of(self, value: Any, where: str) -> list:
        """Every value ``value`` takes across the grid (itself, or a grid axis it refers to)."""
        refs = _refs(value)
        if not refs:
            return [value]
        name = next(iter(refs))
        if name == "seed":
            return list(self._seeds)
        return list(self._grid[name])

    def _check_resolved(self, key: str, value: Any, sub: str) -> None:
        """Validate a value a ``${name}`` resolves to against the schema of ``key`` (the same rule as
        a value written in place)."""
        from jsonschema import Draft202012Validator
        from jsonschema.exceptions import best_match

        schema = {**SCHEMA["properties"][key], "$defs": SCHEMA["$defs"]}
        err = best_match(Draft202012Validator(schema).iter_errors(value))
        if err is not None:
            raise SpecError(f"{key}.{sub}", value[sub], f"{err.message} (after ${{name}} substitution)")

    def _check_capacity(self, cap: Mapping[str, Any]) -> None:
        (kind, value), = cap.items()
        for v in self._values_of(value, f"capacity.{kind}"):
            if _refs(value):
                self._check_resolved("capacity", {kind: v}, kind)
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
                        make_policy(policy, **pol_opts)      # (make_policy ignores case; a learned: path keeps it)
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
    def _grid_points(self) -> Iterator[dict[str, Any]]:
        names = list(self._grid)
        for vals in itertools.product(*self._grid.values()):
            yield dict(zip(names, vals))

    def _points(self) -> Iterator[tuple[Any, dict, tuple]]:
        for seed in self._seeds:
            for g in self._grid_points():
                for label, policy, fixed, axes in self._policies:
                    for values in itertools.product(*axes.values()):
                        yield seed, g, (label, policy, {**fixed, **dict(zip(axes, values))})

    def _resolve(self, seed: Any, g: dict, label: str | None, policy: str | None,
                 opts: dict) -> tuple[dict | None, dict, dict]:
        """(workload, params, coordinates before typing) of one point of the expansion."""
        d = self.data
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
        coords: dict[str, Any] = {"label": label, "policy": policy, "seed": seed}
        for k, v in {**options, **g}.items():
            if k in coords and _canonical(coords[k]) != _canonical(v):
                raise SpecError(f"{where}.{k}", v, f"clashes with grid axis {k!r} = {coords[k]!r}")
            coords[k] = v if _scalar(v) else _canonical(v)
        return workload, params, coords

    def _value_types(self, v: Any) -> set:
        """The types a coordinate written as ``v`` takes over the sweep (a ``${name}`` takes those of
        the seeds or of the axis; a list or mapping is written as a JSON string)."""
        if isinstance(v, str) and "${" in v:
            m = _REF.match(v.strip())
            if m:
                vals = self._seeds if m.group(1) == "seed" else self._grid[m.group(1)]
                if isinstance(vals, range):
                    return {int} if len(vals) else set()
                return set().union(*(self._value_types(x) for x in vals)) if vals else set()
        if v is None:
            return set()
        return {type(v)} if _scalar(v) else {str}

    def _scan(self) -> tuple[set, set]:
        """The typing of the coordinate columns, and no two cells with the same parameters.

        A column whose values mix types across the sweep is written as strings (ints mixed with
        floats as floats), so that the Parquet files of one table read together; the types come from
        the spec's own lists (no cell is expanded). Two cells have equal parameters only when a
        policy's option list holds a ``${name}`` that resolves to another of its values: only then
        are the cells expanded once, keeping a digest of each."""
        if self._scanned is None:
            kinds: dict[str, set] = {"label": {str}, "policy": {str},
                                     "seed": self._value_types("${seed}")}
            for k, vals in self._grid.items():
                kinds.setdefault(k, set()).update(*(self._value_types(x) for x in vals))
            for _, _, fixed, axes in self._policies:
                for k, v in fixed.items():
                    kinds.setdefault(k, set()).update(self._value_types(v))
                for k, vals in axes.items():
                    kinds.setdefault(k, set()).update(*(self._value_types(x) for x in vals))
            as_str = {k for k, t in kinds.items() if len(t - {int, float}) > 0 and len(t) > 1}
            as_float = {k for k, t in kinds.items() if t == {int, float}}
            if any(_refs(v) for _, _, _, axes in self._policies for v in axes.values()):
                seen: set[bytes] = set()
                for seed, g, (label, policy, opts) in self._points():
                    workload, params, _ = self._resolve(seed, g, label, policy, opts)
                    sig = hashlib.sha256(_canonical([workload, params]).encode()).digest()[:12]
                    if sig in seen:
                        raise SpecError("policies", self.data.get("policies"),
                                        "two cells resolve to the same parameters")
                    seen.add(sig)
            self._scanned = (as_str, as_float)
        return self._scanned

    @property
    def code(self) -> str:
        """:func:`~fairalloc.experiments.fingerprint.code_fingerprint` of the code the cells run
        (fairalloc, a custom ``run`` or ``generator``, the numerical libraries)."""
        return cell_code(self.run, self.data.get("workload"))

    def iter_cells(self) -> Iterator[Cell]:
        """The cells one by one, in expansion order (seeds, then grid, then policies), without
        building the list: a sweep of many cells holds one at a time.

        Examples
        --------
        >>> spec = Spec.from_dict({"name": "tiny", "workload": {"generator": "lublin", "n_jobs": 20,
        ...                        "nodes": 16, "rng": "${seed}"}, "capacity": {"processors": 16},
        ...                        "policies": ["fcfs"], "seeds": {"start": 0, "count": 50000}})
        >>> it = spec.iter_cells()
        >>> first = next(it)
        >>> spec.n_cells, first.index, first.params["seed"], next(it).params["seed"]
        (50000, 0, 0, 1)
        """
        override = vars(self).get("cells")     # a caller that restricted the cells of this instance
        if override is not None:
            yield from override()
            return
        as_str, as_float = self._scan()
        version, code = _version(), self.code
        for index, (seed, g, (label, policy, opts)) in enumerate(self._points()):
            workload, params, raw = self._resolve(seed, g, label, policy, opts)
            coords = {k: (None if v is None else str(v) if k in as_str else float(v) if k in as_float else v)
                      for k, v in raw.items()}
            ident = {"version": version, "code": code, "run": self.run, "workload": workload, "params": params,
                     "coords": coords}
            key = hashlib.sha256(_canonical(ident).encode()).hexdigest()[:16]
            yield Cell(key=key, index=index, run=self.run, workload=workload, params=params, coords=coords,
                       code=code)

    def cells(self) -> list[Cell]:
        """Every cell of the sweep, in expansion order (seeds, then grid, then policies); a list of
        :meth:`iter_cells`."""
        return list(self.iter_cells())
