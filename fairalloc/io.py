"""Reading instances and commitments from files; writing results.

Instance files (``.json``, ``.yaml`` / ``.yml``, ``.csv``) describe a pooled :class:`~fairalloc.Instance`
and optionally its SDRF commitments. JSON and YAML take either form below (``kind: pooled`` is the
default; other kinds, e.g. task instances on servers, are registered by the modules that solve them):

*Per-user form*::

    resources: [cpu, mem]          # optional names (default r0, r1, ...)
    capacities: [9, 18]            # optional (default: ones)
    users:
      - name: A                    # optional (default user0, ...)
        demand: [1, 4]             # total demand, or per-task demand when `tasks` is given
        tasks: 100                 # optional: demand is per task, total = tasks * demand
        weight: 1                  # optional (default 1)
        commitment: [0.1, 0.0]     # optional SDRF commitments, fractions of capacity
      - {name: B, demand: [3, 1], tasks: 100}

*Matrix form*::

    demands: [[100, 400], [300, 100]]
    capacities: [9, 18]
    weights: [1, 1]                # optional
    commitments: [[0.1, 0], [0, 0]]   # optional
    agent_names: [A, B]            # optional
    resource_names: [cpu, mem]     # optional

*CSV*: one row per user; a column ``user`` (names; the row whose user is ``capacity`` holds the
capacities), optional ``weight`` and ``tasks`` columns, optional ``commitment:<resource>`` columns,
and every other column a resource demand::

    user,cpu,mem,weight,commitment:cpu,commitment:mem
    capacity,9,18,,,
    A,100,400,1,0.1,0
    B,300,100,1,0,0

Commitment files given separately (``fairalloc solve --commitments FILE``): CSV rows per user (an
optional leading ``user`` column), or JSON/YAML as a list of rows or a mapping ``name: [values]``.

Rules (refused with an error naming the file, the line where it is known, the field and the value,
unless a warning is said). One strict reader serves every format and every kind:

* Text: UTF-8, with or without a byte-order mark (as Excel writes CSV).
* A key given twice in one JSON object or YAML mapping is refused (both readers would keep the last
  value silently); so is a CSV header naming a column twice.
* Numbers are YAML 1.2's (PyYAML reads YAML 1.1): ``1e3`` is 1000.0, ``0o10`` and ``0x10`` are 8 and
  16, ``true``/``false`` the only booleans (``yes``, ``on`` are words). A value the two versions read
  differently, a leading zero (``010``: 8 in YAML 1.1, 10 in 1.2) or a base-60 form (``1:30``: 90 or a
  word), is refused with its line. JSON ``NaN``/``Infinity`` are refused; CSV cells are plain decimals
  (``1_000``, ``nan``, ``inf`` refused).
* Every number is a number: a word (``demand: [one, 2]``), a boolean (booleans belong only in
  ``placement``) or a mapping (``demand: {cpu: 1}``) where a number or a list of numbers belongs is
  refused, not read as 1 or left to fail inside.
* Sizes are bounded before anything is allocated (:data:`LIMITS`, which a user may raise): the file's
  bytes, the values a YAML file expands to through aliases (a few hundred bytes of ``*alias`` can name
  billions), the nesting depth, the servers a ``kind: tasks`` or ``time-varying`` file describes
  (``count`` summed over types) and its ``slots``.
* CSV: the header must have a ``user`` column (without it the header row would be read as resources
  and the capacity row as a user). The row whose user is ``capacity`` (lower case) holds the
  capacities; a second one, or a user named ``Capacity`` in another case, is refused (no row silently
  becomes the capacities). Without a ``capacity`` row the capacities are 1 per resource, and a one-line
  warning says so (as it does for a JSON/YAML file without ``capacities``).
* Commitments are fractions of a resource's capacity: each is in [0, 1] (Eq. 3 keeps them there);
  a value above 1 is refused, not accepted as "more than the whole resource". The rule is
  :func:`fairalloc.commitments.as_commitments`, the same for ``fa.sdrf(..., commitments=...)``,
  :class:`~fairalloc.TaskInstance` and the files.
* The model's own checks follow (finite, nonnegative, shapes, and the normalised demands representable:
  :func:`fairalloc.validation.require_ratio_representable`), their messages prefixed with the file.
* Time-varying files (:mod:`fairalloc.exact.files`): every user lists ``arrivals`` over the same
  number of slots (a shorter list is refused, not padded with zeros); ``slots``, if given, may only
  extend the horizon past the listed arrivals (no arrivals in those slots).
* Unknown keys and unknown kinds are refused, with the allowed ones listed.
"""

from __future__ import annotations

import csv
import json
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from .errors import FairallocWarning, InvalidInstanceError
from .model import Instance
from .validation import as_array

__all__ = ["InstanceSpec", "load_instance", "load_commitments", "parse_instance", "write_json",
           "INSTANCE_KINDS", "read_data", "parse_yaml", "LIMITS"]


@dataclass(frozen=True)
class InstanceSpec:
    """What an instance file describes: the instance, its commitments (or None) and its source.

    Returned by :func:`parse_instance`, :func:`load_instance` and the built-in examples
    (:mod:`fairalloc.examples`); frozen.

    Parameters
    ----------
    instance : Instance or TaskInstance or object
        The instance (a :class:`~fairalloc.Instance` for ``kind="pooled"``; other kinds hold what their
        registered reader builds).
    commitments : ndarray, shape (n_agents, n_resources), optional
        SDRF commitments as fractions of capacity, or ``None`` when the file gives none.
    source : str, optional
        Where it came from (a path, ``"<data>"``, ``"builtin:<name>"``).
    kind : str, optional
        The file's ``kind`` (default ``"pooled"``; see :data:`INSTANCE_KINDS`).

    Attributes
    ----------
    instance, commitments, source, kind
        As the parameters.

    Examples
    --------
    >>> from fairalloc.examples import drf_paper
    >>> spec = drf_paper()
    >>> spec.source, spec.kind, spec.commitments is None
    ('builtin:drf-paper', 'pooled', True)
    """

    instance: Any
    commitments: np.ndarray | None = None
    source: str = ""
    kind: str = "pooled"


#: Limits of what an instance file may ask for, checked before anything is allocated (raise them here
#: for bigger files): the file's size in bytes, the values it holds once YAML aliases are expanded, the
#: nesting depth, the servers it describes (``count`` summed over server types) and its time slots.
LIMITS: dict[str, int] = {"bytes": 64 * 2**20, "values": 5_000_000, "depth": 100, "servers": 100_000,
                          "slots": 100_000}


def _limit_error(where: str, what: str, value: Any, key: str, argument: str) -> InvalidInstanceError:
    """``what`` is, with ``value``, above ``LIMITS[key]``: refused before anything of that size is allocated."""
    return InvalidInstanceError(f"{where}: {what} ({value:,} {key}) is above the limit of {LIMITS[key]:,} {key} "
                                f"(fairalloc.io.LIMITS[{key!r}]; raise it for a bigger instance)",
                                argument=argument, value=value)


def _read_text(path: Path) -> str:
    """The file's text: UTF-8 with or without a byte-order mark, at most ``LIMITS["bytes"]`` bytes."""
    if path.is_dir():
        raise InvalidInstanceError(f"{path}: is a directory, not an instance file", argument="path", value=str(path))
    size = path.stat().st_size
    if size > LIMITS["bytes"]:
        raise _limit_error(str(path), "the file's size", size, "bytes", "path")
    try:
        return path.read_bytes().decode("utf-8-sig")        # a UTF-8 BOM (Excel's CSV) is accepted
    except UnicodeDecodeError as exc:
        line = path.read_bytes()[:exc.start].count(b"\n") + 1
        raise InvalidInstanceError(f"{path}:{line}: not a text file (byte {exc.start} is not UTF-8); instance files "
                                   "are JSON, YAML or CSV text", argument="path", value=str(path)) from None


def _json_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _Duplicate(k)
        out[k] = v
    return out


class _Duplicate(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _json_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number (write a finite number)")


def _load_json(text: str, where: str) -> Any:
    try:
        return json.loads(text, object_pairs_hook=_json_pairs, parse_constant=_json_constant)
    except _Duplicate as exc:
        lines = [i for i, ln in enumerate(text.splitlines(), start=1) if f'"{exc.key}"' in ln]
        at = f" (lines {', '.join(map(str, lines))})" if 1 < len(lines) <= 5 else ""
        raise InvalidInstanceError(f"{where}: duplicate key {exc.key!r} in one object{at}: JSON readers keep only "
                                   "the last value; write each key once", argument=exc.key, value=exc.key) from None
    except RecursionError:
        raise InvalidInstanceError(f"{where}: nested too deeply to be an instance", argument="path",
                                   value=where) from None
    except ValueError as exc:                        # json.JSONDecodeError is a ValueError
        raise InvalidInstanceError(f"{where}: not valid JSON: {exc}", argument="path", value=where) from None


def _strict_yaml_loader():
    """A YAML loader with the YAML 1.2 core schema's numbers, refusing ambiguous and duplicated input.

    PyYAML implements YAML 1.1, where ``010`` is octal 8, ``1:30`` is 90 (base 60), ``yes``/``on`` are
    booleans and ``1e3`` is a string. Here numbers are those of YAML 1.2 (``1e3`` is 1000.0, ``0o10``
    and ``0x10`` are 8 and 16, ``true``/``false`` the only booleans, so ``yes`` is a word); a leading
    zero (``010``) or a base-60 form (``1:30``), read differently by the two versions, is refused with
    its line; so is a key given twice in one mapping.
    """
    import yaml

    class StrictLoader(yaml.SafeLoader):
        pass

    StrictLoader.yaml_implicit_resolvers = {}
    add = StrictLoader.add_implicit_resolver
    add("tag:fairalloc:ambiguous", re.compile(r"^(?:[-+]?0[0-9_]+|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?)$"),
        list("-+0123456789"))
    add("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
    add("tag:yaml.org,2002:null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""])
    add("tag:yaml.org,2002:int", re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"), list("-+0123456789"))
    add("tag:yaml.org,2002:float", re.compile(
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"),
        list("-+0123456789."))

    def ambiguous(loader, node):
        raise yaml.constructor.ConstructorError(
            None, None, f"{node.value!r} is read differently by YAML 1.1 (" +
            ("octal" if ":" not in node.value else "base 60") + ") and YAML 1.2 (" +
            ("decimal" if ":" not in node.value else "a word") + "): write the number without a leading zero "
            "or a colon (0o10 for octal), or quote it if it is a name", node.start_mark)

    def integer(loader, node):
        v = loader.construct_scalar(node)
        sign = -1 if v.startswith("-") else 1
        body = v.lstrip("+-")
        if len(body) > 1 and body[0] == "0" and body[1].isdigit():
            return ambiguous(loader, node)
        return sign * int(body, 0) if body[:2] in ("0o", "0x") else sign * int(body)

    def floating(loader, node):
        v = loader.construct_scalar(node).lower()
        if v.endswith(".inf"):
            return float("-inf") if v.startswith("-") else float("inf")
        return float("nan") if v == ".nan" else float(v)

    def mapping(loader, node, deep=False):
        seen: dict[Any, int] = {}
        if isinstance(node, yaml.MappingNode):
            for key_node, _ in node.value:
                key = key_node.value if isinstance(key_node, yaml.ScalarNode) else id(key_node)
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"duplicate key {key!r} (first at line {seen[key]}): YAML readers keep only "
                        "the last value; write each key once", key_node.start_mark)
                seen[key] = key_node.start_mark.line + 1
        return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)

    StrictLoader.add_constructor("tag:fairalloc:ambiguous", ambiguous)
    StrictLoader.add_constructor("tag:yaml.org,2002:int", integer)
    StrictLoader.add_constructor("tag:yaml.org,2002:float", floating)
    StrictLoader.construct_mapping = mapping
    return StrictLoader


def _expanded_size(root: Any, where: str) -> None:
    """Refuse a YAML node graph that expands (through aliases) past ``LIMITS["values"]`` values."""
    import yaml

    size: dict[int, int] = {}
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        if id(node) in size:
            continue
        kids = ([n for pair in node.value for n in pair] if isinstance(node, yaml.MappingNode)
                else node.value if isinstance(node, yaml.SequenceNode) else [])
        if done or not kids:
            size[id(node)] = 1 + sum(size[id(k)] for k in kids)
            if size[id(node)] > LIMITS["values"]:
                raise InvalidInstanceError(
                    f"{where}:{node.start_mark.line + 1}: this YAML expands to more than {LIMITS['values']:,} values "
                    "through aliases (*name) (fairalloc.io.LIMITS['values']); an instance file needs no alias "
                    "bomb", argument="path", value=where)
        else:
            stack.append((node, True))
            stack.extend((k, False) for k in kids if id(k) not in size)


def _load_yaml(text: str, where: str) -> Any:
    """Parse ``text`` with :func:`_strict_yaml_loader`; aliases and nesting bounded by :data:`LIMITS`."""
    import yaml

    loader = _strict_yaml_loader()(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _expanded_size(node, where)
        return loader.construct_document(node)
    except RecursionError:
        raise InvalidInstanceError(f"{where}: nested too deeply to be an instance", argument="path",
                                   value=where) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f":{mark.line + 1}" if mark is not None else ""
        raise InvalidInstanceError(f"{where}{line}: not valid YAML: {exc.problem or exc}", argument="path",
                                   value=where) from None
    except yaml.YAMLError as exc:
        raise InvalidInstanceError(f"{where}: not valid YAML: {exc}", argument="path", value=where) from None
    finally:
        loader.dispose()


def _read_mapping(path: Path) -> Any:
    text = _read_text(path)
    suffix = path.suffix.lower()
    if suffix == ".json":
        return _load_json(text, str(path))
    if suffix in (".yaml", ".yml"):
        return _load_yaml(text, str(path))
    raise InvalidInstanceError(f"{path}: unknown file type {suffix!r}; use .json, .yaml, .yml or .csv",
                               argument="path", value=str(path))


def parse_yaml(text: str, source: str = "<text>") -> Any:
    """Parse YAML text by the rules of this module's docstring (the one strict YAML reader of fairalloc).

    YAML 1.2 numbers (``010`` and ``1:30``, read differently by YAML 1.1, are refused with their
    line), a key given twice in a mapping refused, aliases and nesting bounded by :data:`LIMITS`.
    Every YAML file fairalloc reads goes through it: instance files, experiment specs, the shipped
    reproductions, accounts files, ``--cells`` values.

    Parameters
    ----------
    text : str
        The YAML text.
    source : str, default "<text>"
        Where it came from, for messages (a path, ``"--cells"``).

    Returns
    -------
    object
        The data (mappings, lists, str, int, float, bool, None); None for an empty document.

    Raises
    ------
    InvalidInstanceError
        Not valid YAML, a duplicate key, an ambiguous number or a limit exceeded: the message starts
        with ``source`` and the line.

    Examples
    --------
    >>> parse_yaml("delta: 1e-6\\nseeds: 0o10")
    {'delta': 1e-06, 'seeds': 8}
    >>> parse_yaml("a: 1\\na: 2", "spec.yaml")
    Traceback (most recent call last):
    ...
    fairalloc.errors.InvalidInstanceError: spec.yaml:2: not valid YAML: duplicate key 'a' (first at line 1): YAML readers keep only the last value; write each key once
    """
    return _load_yaml(text, source)


def read_data(path: str | Path) -> Any:
    """Read a JSON (``.json``) or YAML (``.yaml``, ``.yml``) file by the rules of this module's docstring.

    The file is UTF-8 text (a byte-order mark is accepted) of at most ``LIMITS["bytes"]`` bytes; JSON
    refuses duplicate keys and ``NaN``; YAML is read by :func:`parse_yaml`.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    object
        The data.

    Raises
    ------
    InvalidInstanceError
        A directory, another suffix, not UTF-8, too big, or not valid (the message names the file and
        the line where it is known).
    FileNotFoundError
        No such file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "spec.yaml"
    >>> _ = p.write_text("name: x\\nseeds: 010\\n")
    >>> read_data(p)
    Traceback (most recent call last):
    ...
    fairalloc.errors.InvalidInstanceError: ...spec.yaml:2: not valid YAML: '010' is read differently by YAML 1.1 (octal) and YAML 1.2 (decimal): write the number without a leading zero or a colon (0o10 for octal), or quote it if it is a name
    """
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"no such file: {p}")
    return _read_mapping(p)


_CSV_NUMBER = re.compile(r"^[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$")


def _csv_number(text: str) -> float:
    """A CSV cell as a plain decimal (``float`` alone would take ``1_000``, ``nan``, ``inf``); else ValueError."""
    t = text.strip()
    if not _CSV_NUMBER.match(t):
        raise ValueError(f"{text!r} is not a number")
    return float(t)


def _float(text: str, where: str, column: str) -> float:
    try:
        return _csv_number(text)
    except ValueError:
        raise InvalidInstanceError(f"{where}: column {column!r} has {text!r}, not a number",
                                   argument=column, value=text) from None


def _parse_csv(path: Path) -> dict[str, Any]:
    rows = [(n, r) for n, r in enumerate(csv.reader(_read_text(path).splitlines()), start=1)
            if r and any(c.strip() for c in r) and not r[0].lstrip().startswith("#")]
    if len(rows) < 2:
        raise InvalidInstanceError(f"{path}: needs a header row and at least one user row",
                                   argument="path", value=str(path))
    header = [h.strip() for h in rows[0][1]]
    seen: dict[str, int] = {}
    for j, h in enumerate(header):
        if h.lower() in seen:
            raise InvalidInstanceError(f"{path}: the header names column {h!r} twice (columns {seen[h.lower()] + 1} and "
                                       f"{j + 1}); each column once", argument=h, value=header)
        seen[h.lower()] = j
    special = {"user", "weight", "tasks"}
    res_cols = [j for j, h in enumerate(header) if h.lower() not in special and not h.lower().startswith("commitment:")]
    com_cols = {h.split(":", 1)[1]: j for j, h in enumerate(header) if h.lower().startswith("commitment:")}
    if not res_cols:
        raise InvalidInstanceError(f"{path}: no resource columns in header {header}", argument="path",
                                   value=str(path))
    resources = [header[j] for j in res_cols]
    unknown = set(com_cols) - set(resources)
    if unknown:
        raise InvalidInstanceError(f"{path}: commitment columns for unknown resources {sorted(unknown)}",
                                   argument="commitments", value=sorted(unknown))
    col = {h.lower(): j for j, h in enumerate(header)}
    if "user" not in col:
        raise InvalidInstanceError(f"{path}: the header {header} has no 'user' column; the first column names the "
                                   "users, and the row whose user is 'capacity' holds the capacities",
                                   argument="user", value=header)
    users, demands, weights, tasks, commits, capacities = [], [], [], [], [], None
    capacity_line = 0
    for lineno, row in rows[1:]:
        where = f"{path}:{lineno}"
        if len(row) != len(header):
            raise InvalidInstanceError(f"{where}: {len(row)} fields, header has {len(header)}",
                                       argument="path", value=row)
        name = row[col["user"]].strip()
        values = [_float(row[j], where, header[j]) for j in res_cols]
        if name.lower() == "capacity":
            if name != "capacity":
                raise InvalidInstanceError(
                    f"{where}: user {name!r}: the capacity row is spelt 'capacity' (lower case), and no user may "
                    "be named so in any case; write 'capacity' if this row holds the capacities, else rename "
                    "the user", argument="user", index=(lineno,), value=name)
            if capacity_line:
                raise InvalidInstanceError(f"{where}: a second 'capacity' row (the first is at line {capacity_line}); "
                                           "give the capacities once", argument="capacities", index=(lineno,),
                                           value=values)
            capacities, capacity_line = values, lineno
            continue
        users.append(name)
        demands.append(values)
        if "weight" in col:
            weights.append(_float(row[col["weight"]], where, "weight") if row[col["weight"]].strip() else 1.0)
        if "tasks" in col:
            tasks.append(_float(row[col["tasks"]], where, "tasks") if row[col["tasks"]].strip() else 1.0)
        if com_cols:
            commits.append([_float(row[com_cols[r]], where, f"commitment:{r}") if r in com_cols and
                            row[com_cols[r]].strip() else 0.0 for r in resources])
    if not users:
        raise InvalidInstanceError(f"{path}: no user rows (only the capacity row)", argument="path", value=str(path))
    d = np.array(demands, dtype=float)
    if tasks:
        d = d * np.array(tasks)[:, None]
    out: dict[str, Any] = {"demands": d, "capacities": capacities, "agent_names": users,
                           "resource_names": resources}
    if weights:
        out["weights"] = weights
    if commits:
        out["commitments"] = commits
    return out


def _from_users(data: Mapping[str, Any], where: str) -> dict[str, Any]:
    users = data["users"]
    if not isinstance(users, list) or not users:
        raise InvalidInstanceError(f"{where}: 'users' must be a non-empty list", argument="users", value=users)
    allowed = {"name", "demand", "tasks", "weight", "commitment"}
    demands, names, weights, commits = [], [], [], []
    any_commit = any(isinstance(u, Mapping) and "commitment" in u for u in users)
    for i, u in enumerate(users):
        if not isinstance(u, Mapping) or "demand" not in u:
            raise InvalidInstanceError(f"{where}: users[{i}] must be a mapping with a 'demand'",
                                       argument="users", index=(i,), value=u)
        extra = set(u) - allowed
        if extra:
            raise InvalidInstanceError(f"{where}: users[{i}] has unknown key(s) {sorted(extra)}; allowed: {sorted(allowed)}",
                                       argument="users", index=(i,), value=sorted(extra))
        d = np.atleast_1d(as_array(f"users[{i}].demand", u["demand"], ndim=(0, 1)))
        if "tasks" in u:
            d = d * _scalar(u["tasks"], where, f"users[{i}].tasks")
        demands.append(d)
        names.append(str(u.get("name", f"user{i}")))
        weights.append(_scalar(u.get("weight", 1.0), where, f"users[{i}].weight"))
        if any_commit:
            commits.append(u.get("commitment", [0.0] * len(d)))
    lens = {len(d) for d in demands}
    if len(lens) != 1:
        raise InvalidInstanceError(f"{where}: users have demand vectors of different lengths {sorted(lens)}",
                                   argument="users", value=sorted(lens))
    out = {"demands": np.stack(demands), "capacities": data.get("capacities"),
           "weights": weights, "agent_names": names, "resource_names": data.get("resources")}
    if any_commit:
        out["commitments"] = commits
    return out


def _pooled(data: Mapping[str, Any], where: str) -> InstanceSpec:
    if "users" in data:
        allowed = {"kind", "users", "capacities", "resources", "name", "description"}
        fields = _from_users(data, where)
    else:
        allowed = {"kind", "demands", "capacities", "weights", "commitments", "agent_names",
                   "resource_names", "name", "description"}
        if "demands" not in data:
            raise InvalidInstanceError(f"{where}: needs 'users' or 'demands'", argument="demands")
        fields = {k: data.get(k) for k in ("demands", "capacities", "weights", "agent_names",
                                           "resource_names", "commitments") if k in data}
    unknown = set(data) - allowed
    if unknown:
        raise InvalidInstanceError(f"{where}: unknown key(s) {sorted(unknown)}; allowed: {sorted(allowed)}",
                                   argument=sorted(unknown)[0], value=sorted(unknown))
    commitments = fields.pop("commitments", None)
    if fields.get("capacities") is None:
        warnings.warn("the instance gives no capacities (CSV: no 'capacity' row): each resource has capacity 1",
                      FairallocWarning, stacklevel=3)
    inst = Instance(**fields)
    c = None
    if commitments is not None:
        c = _commitments_in_range(commitments, inst, where)
    return InstanceSpec(inst, c, where, "pooled")


def _commitments_in_range(commitments: Any, inst: Any, where: str) -> np.ndarray:
    """Validated commitments, each a fraction of its resource in [0, 1] (SDRF Eq. 3 keeps them there):
    :func:`fairalloc.commitments.as_commitments`, the one rule of the API and the files, with ``where``.

    ``inst``: what they belong to (anything with ``n_agents``, ``n_resources`` and ``resource_names``:
    an :class:`Instance`, or a task file's users and cluster)."""
    from .commitments import as_commitments

    try:
        return as_commitments(commitments, inst.n_agents, inst.n_resources, resource_names=inst.resource_names)
    except InvalidInstanceError as exc:
        raise InvalidInstanceError(f"{where}: {exc}", argument=exc.argument, index=exc.index,
                                   value=exc.value) from None


#: Parsers of instance kinds: ``kind`` value -> function(mapping, source) -> InstanceSpec.
INSTANCE_KINDS: dict[str, Callable[[Mapping[str, Any], str], InstanceSpec]] = {"pooled": _pooled}


#: Keys whose values are names or flags, not numbers (every other leaf of an instance file is a number).
_TEXT_KEYS = {"kind", "name", "description", "resources", "resource_names", "agent_names", "server_names",
              "servers", "type", "resource_units"}
_BOOL_KEYS = {"placement"}
#: Keys whose values may be mappings (or lists of mappings); anywhere else a mapping is refused.
_MAPPING_KEYS = {"users", "servers", "cluster", "commitments"}
#: Keys whose numbers size what is allocated: key -> the limit (``LIMITS``) on each value and on their sum.
_SIZE_KEYS = {"count": "servers", "slots": "slots"}


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _check_numbers(value: Any, where: str, path: str = "", key: str = "") -> None:
    """Refuse what is not a number where a number belongs, before any array is built.

    Booleans (YAML ``true``), words, and mappings (``demand: {cpu: 1}``) where a number or a list of
    numbers belongs; nesting deeper than ``LIMITS["depth"]``; a ``count`` of servers or a number of
    ``slots`` above its limit (each value and their sum), so nothing of that size is allocated.
    """
    totals: dict[str, float] = {}
    stack = [(value, path, key, 0)]
    while stack:
        v, pth, k, depth = stack.pop()
        if depth > LIMITS["depth"]:
            raise InvalidInstanceError(f"{where}: {pth} is nested more than {LIMITS['depth']} levels deep",
                                       argument=k, value=depth)
        if isinstance(v, Mapping):
            if pth and k not in _MAPPING_KEYS:
                raise InvalidInstanceError(f"{where}: {pth}={_short(v)} is a mapping; a number or a list of numbers "
                                           "belongs here (demands and capacities list one number per resource, in "
                                           "the order of 'resources')", argument=k, value=_short(v))
            stack.extend((vv, f"{pth}.{kk}" if pth else str(kk), str(kk), depth + 1)
                         for kk, vv in reversed(list(v.items())))
        elif isinstance(v, (list, tuple)):
            stack.extend((vv, f"{pth}[{i}]", k, depth + 1) for i, vv in reversed(list(enumerate(v))))
        elif k in _TEXT_KEYS:
            continue
        elif isinstance(v, (bool, np.bool_)):
            if k not in _BOOL_KEYS:
                raise InvalidInstanceError(f"{where}: {pth}={v!r} is a boolean; a number belongs here",
                                           argument=k, value=v)
        elif isinstance(v, str):
            raise InvalidInstanceError(f"{where}: {pth}={v!r} is not a number", argument=k, value=v)
        elif k in _SIZE_KEYS and isinstance(v, (int, float)):
            limit = _SIZE_KEYS[k]
            totals[k] = totals.get(k, 0) + v
            if v > LIMITS[limit] or totals[k] > LIMITS[limit]:
                what = f"{pth}={v!r}" if v > LIMITS[limit] else f"the {k} summed up to {pth}"
                raise _limit_error(where, what, max(v, totals[k]), limit, k)


def _scalar(value: Any, where: str, path: str) -> float:
    """One number (a file's ``tasks`` or ``weight``), or an error naming the path and the value."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    raise InvalidInstanceError(f"{where}: {path}={_short(value)} must be one number", argument=path.split(".")[-1],
                               value=value)


def parse_instance(data: Mapping[str, Any], source: str = "<data>") -> InstanceSpec:
    """Build an :class:`InstanceSpec` from a mapping in one of the documented forms.

    The forms (per-user, matrix) and the rules are in this module's docstring; the mapping is what a
    JSON or YAML instance file holds.

    Parameters
    ----------
    data : Mapping
        The file's content. ``data["kind"]`` (default ``"pooled"``) selects the reader from
        :data:`INSTANCE_KINDS`.
    source : str, optional
        Name used in error messages and kept as ``InstanceSpec.source`` (default ``"<data>"``).

    Returns
    -------
    InstanceSpec

    Raises
    ------
    InvalidInstanceError
        ``data`` is not a mapping; an unknown ``kind`` or key; a word or boolean where a number belongs;
        commitments outside [0, 1]; anything :class:`~fairalloc.Instance` refuses. The message names
        the source, the field and the value.

    Examples
    --------
    The DRF paper's example in per-user form: 100 tasks of <1, 4> give a total demand <100, 400>:

    >>> spec = parse_instance({"capacities": [9, 18], "users": [
    ...     {"name": "A", "demand": [1, 4], "tasks": 100},
    ...     {"name": "B", "demand": [3, 1], "tasks": 100, "commitment": [0.1, 0]}]})
    >>> spec.instance.demands.tolist(), spec.commitments.tolist()
    ([[100.0, 400.0], [300.0, 100.0]], [[0.0, 0.0], [0.1, 0.0]])
    >>> parse_instance({"demands": [[1, "two"]]})
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: <data>: demands[0][1]='two' is not a number
    """
    if not isinstance(data, Mapping):
        raise InvalidInstanceError(f"{source}: the top level must be a mapping, got {type(data).__name__}",
                                   argument="data", value=type(data).__name__)
    kind = str(data.get("kind", "pooled")).lower()
    if kind not in INSTANCE_KINDS:
        raise InvalidInstanceError(f"{source}: unknown kind {kind!r}; known kinds: {sorted(INSTANCE_KINDS)}",
                                   argument="kind", value=kind)
    _check_numbers(data, source)
    try:
        return INSTANCE_KINDS[kind](data, source)
    except InvalidInstanceError as exc:              # the model's own checks: say which file
        if str(exc).startswith(source):
            raise
        raise InvalidInstanceError(f"{source}: {exc}", argument=exc.argument, index=exc.index,
                                   value=exc.value) from None


def load_instance(path: str | Path) -> InstanceSpec:
    r"""Read an instance file (``.json``, ``.yaml``/``.yml`` or ``.csv``; formats in the module docstring).

    Parameters
    ----------
    path : str or pathlib.Path
        The file; its suffix selects the reader (anything but ``.csv`` is read as JSON or YAML).

    Returns
    -------
    InstanceSpec
        With ``source`` the path.

    Raises
    ------
    FileNotFoundError
        No such file.
    InvalidInstanceError
        Anything :func:`parse_instance` refuses; for CSV also a missing ``user`` column or a
        non-numeric cell (the message names the file, row and column).

    Examples
    --------
    A CSV file with a ``capacity`` row (written to a temporary directory that is removed afterwards):

    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = pathlib.Path(d) / "drf.csv"
    ...     _ = p.write_text("user,cpu,mem\ncapacity,9,18\nA,100,400\nB,300,100\n")
    ...     spec = load_instance(p)
    >>> spec.instance.agent_names, spec.instance.capacities.tolist(), spec.instance.demands.tolist()
    (('A', 'B'), [9.0, 18.0], [[100.0, 400.0], [300.0, 100.0]])
    """
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"instance file not found: {p}")
    if p.suffix.lower() == ".csv":
        return parse_instance(_parse_csv(p), str(p))
    return parse_instance(_read_mapping(p), str(p))


def load_commitments(path: str | Path, instance: Instance) -> np.ndarray:
    """Read SDRF commitments for ``instance`` from a CSV, JSON or YAML file (each in [0, 1]).

    CSV: one row per user (an optional leading ``user`` column, an optional header row). JSON/YAML: a
    list of rows, a mapping ``name: [values]``, or either under a ``commitments`` key. With names, users
    the file omits start at zero, with a :class:`~fairalloc.errors.FairallocWarning` saying which.

    Parameters
    ----------
    path : str or pathlib.Path
        The file.
    instance : Instance
        The instance the commitments belong to (its ``agent_names`` and ``n_resources``).

    Returns
    -------
    ndarray, shape (n_agents, n_resources)
        Fractions of each resource's capacity.

    Raises
    ------
    FileNotFoundError
        No such file.
    InvalidInstanceError
        No rows, a non-numeric row, an unknown user name, a wrong shape, or a value outside [0, 1].

    Examples
    --------
    >>> import json, pathlib, tempfile, warnings
    >>> import fairalloc as fa
    >>> inst = fa.Instance([[1, 4], [3, 1]], capacities=[9, 18], agent_names=["A", "B"])
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = pathlib.Path(d) / "c.json"
    ...     _ = p.write_text(json.dumps({"A": [0.2, 0.0]}))
    ...     with warnings.catch_warnings():
    ...         warnings.simplefilter("ignore", fa.FairallocWarning)   # "no commitments for users ['B']"
    ...         c = load_commitments(p, inst)
    >>> c.tolist()
    [[0.2, 0.0], [0.0, 0.0]]
    """
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"commitments file not found: {p}")
    if p.suffix.lower() == ".csv":
        rows = [(n, r) for n, r in enumerate(csv.reader(_read_text(p).splitlines()), start=1)
                if r and any(c.strip() for c in r)]
        if not rows:
            raise InvalidInstanceError(f"{p}: no commitment rows", argument="commitments", value=str(p))
        try:
            float(rows[0][1][-1])                     # a header ends with a name; nan/inf are data refused below
        except (ValueError, IndexError):
            rows = rows[1:]
        by_name: dict[str, list[float]] = {}
        first_line: dict[str, int] = {}
        plain = []
        for lineno, r in rows:
            try:
                vals = [_csv_number(x) for x in r]
                plain.append(vals)
            except ValueError:
                try:
                    vals = [_csv_number(x) for x in r[1:]]
                except ValueError:
                    raise InvalidInstanceError(f"{p}:{lineno}: row {r!r} is not numeric",
                                               argument="commitments", index=(lineno,), value=r) from None
                name = r[0].strip()
                if name in by_name:
                    raise InvalidInstanceError(f"{p}:{lineno}: user {name!r} again (first at line {first_line[name]}); "
                                               "give each user's commitments once", argument="commitments",
                                               index=(lineno,), value=name)
                by_name[name], first_line[name] = vals, lineno
        data: Any = by_name if by_name else plain
    else:
        data = _read_mapping(p)
        if isinstance(data, Mapping) and "commitments" in data:
            data = data["commitments"]
        _check_numbers(data, str(p), "commitments", "commitments")
    if isinstance(data, Mapping):
        missing = [n for n in instance.agent_names if n not in data]
        extra = [n for n in data if n not in instance.agent_names]
        if extra:
            raise InvalidInstanceError(f"{p}: commitments for unknown users {extra}; users: {list(instance.agent_names)}",
                                       argument="commitments", value=extra)
        data = [data.get(n, [0.0] * instance.n_resources) for n in instance.agent_names]
        if missing:
            warnings.warn(f"no commitments for users {missing}: they start at zero", FairallocWarning, stacklevel=2)
    return _commitments_in_range(data, instance, str(p))


def write_json(obj: Any, path: str | Path | None) -> str:
    """Serialise ``obj`` (results, dicts with arrays) as indented JSON, to ``path`` or as text only.

    Arrays become nested lists, NumPy scalars Python numbers, enums their value. For an
    :class:`~fairalloc.result.AllocationResult` pass ``result.to_dict()`` (the result object itself
    is not JSON-serialisable).

    Parameters
    ----------
    obj : object
        Anything JSON can hold once arrays, NumPy scalars and enums are converted.
    path : str or pathlib.Path or None
        The file to write (with a trailing newline); ``None`` or ``"-"`` writes nothing.

    Returns
    -------
    str
        The JSON text (without the trailing newline).

    Raises
    ------
    TypeError
        An object JSON cannot hold (``json.dumps``'s error).

    Examples
    --------
    >>> import numpy as np
    >>> print(write_json({"tasks": np.array([3, 2]), "level": np.float64(0.5)}, None))
    {
      "tasks": [
        3,
        2
      ],
      "level": 0.5
    }
    """
    from .result import _jsonable

    text = json.dumps(_jsonable(obj), indent=2)
    if path is not None and str(path) != "-":
        Path(path).write_text(text + "\n")
    return text
