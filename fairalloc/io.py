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

Rules (refused with an error naming the file, the field and the value, unless a warning is said):

* Every number is a number: a word (``demand: [one, 2]``) or a boolean (YAML ``true``/``yes``, JSON
  ``true``) where a number belongs is refused, not read as 1 (booleans belong only in ``placement``).
* CSV: the header must have a ``user`` column (without it the header row would be read as resources
  and the capacity row as a user); the file must be text (UTF-8). Without a ``capacity`` row the
  capacities are 1 per resource, and a one-line warning says so (as it does for a JSON/YAML file
  without ``capacities``).
* Commitments are fractions of a resource's capacity: each is in [0, 1] (Eq. 3 keeps them there);
  a value above 1 is refused, not accepted as "more than the whole resource".
* Time-varying files (:mod:`fairalloc.exact.files`): every user lists ``arrivals`` over the same
  number of slots (a shorter list is refused, not padded with zeros); ``slots``, if given, may only
  extend the horizon past the listed arrivals (no arrivals in those slots).
* Unknown keys and unknown kinds are refused, with the allowed ones listed.
"""

from __future__ import annotations

import csv
import json
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from .errors import FairallocWarning, InvalidInstanceError
from .model import Instance

__all__ = ["InstanceSpec", "load_instance", "load_commitments", "parse_instance", "write_json",
           "INSTANCE_KINDS"]


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


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InvalidInstanceError(f"{path}: not a text file (it is not UTF-8); instance files are JSON, YAML or "
                                   "CSV text", argument="path", value=str(path)) from None


def _read_mapping(path: Path) -> Any:
    text = _read_text(path)
    suffix = path.suffix.lower()
    try:
        if suffix == ".json":
            return json.loads(text)
        if suffix in (".yaml", ".yml"):
            import yaml

            return yaml.safe_load(text)
    except (json.JSONDecodeError, ValueError) as exc:
        raise InvalidInstanceError(f"{path}: not valid {suffix[1:].upper()}: {exc}", argument="path",
                                   value=str(path)) from None
    except Exception as exc:  # yaml.YAMLError and friends
        raise InvalidInstanceError(f"{path}: not valid YAML: {exc}", argument="path", value=str(path)) from None
    raise InvalidInstanceError(f"{path}: unknown file type {suffix!r}; use .json, .yaml, .yml or .csv",
                               argument="path", value=str(path))


def _float(text: str, where: str, column: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise InvalidInstanceError(f"{where}: column {column!r} has {text!r}, not a number",
                                   argument=column, value=text) from None


def _parse_csv(path: Path) -> dict[str, Any]:
    rows = list(csv.reader(_read_text(path).splitlines()))
    rows = [r for r in rows if r and any(c.strip() for c in r) and not r[0].lstrip().startswith("#")]
    if len(rows) < 2:
        raise InvalidInstanceError(f"{path}: needs a header row and at least one user row",
                                   argument="path", value=str(path))
    header = [h.strip() for h in rows[0]]
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
    for lineno, row in enumerate(rows[1:], start=2):
        where = f"{path}:{lineno}"
        if len(row) != len(header):
            raise InvalidInstanceError(f"{where}: {len(row)} fields, header has {len(header)}",
                                       argument="path", value=row)
        name = row[col["user"]].strip()
        values = [_float(row[j], where, header[j]) for j in res_cols]
        if name.lower() == "capacity":
            capacities = values
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
        d = np.atleast_1d(np.asarray(u["demand"], dtype=float))
        if "tasks" in u:
            d = d * float(u["tasks"])
        demands.append(d)
        names.append(str(u.get("name", f"user{i}")))
        weights.append(float(u.get("weight", 1.0)))
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
    """Validated commitments, each a fraction of its resource in [0, 1] (SDRF Eq. 3 keeps them there).

    ``inst``: what they belong to (anything with ``n_agents``, ``n_resources`` and ``resource_names``:
    an :class:`Instance`, or a task file's users and cluster)."""
    from .commitments import as_commitments

    c = as_commitments(commitments, inst.n_agents, inst.n_resources)
    above = np.argwhere(c > 1.0)
    if len(above):
        i, r = (int(x) for x in above[0])
        raise InvalidInstanceError(f"{where}: commitments[{i}, {r}]={float(c[i, r])!r} is above 1: a commitment is a fraction "
                                   f"of the capacity of {inst.resource_names[r]} (at most the whole resource)",
                                   argument="commitments", index=(i, r), value=float(c[i, r]))
    return c


#: Parsers of instance kinds: ``kind`` value -> function(mapping, source) -> InstanceSpec.
INSTANCE_KINDS: dict[str, Callable[[Mapping[str, Any], str], InstanceSpec]] = {"pooled": _pooled}


#: Keys whose values are names or flags, not numbers (every other leaf of an instance file is a number).
_TEXT_KEYS = {"kind", "name", "description", "resources", "resource_names", "agent_names", "server_names",
              "servers", "type"}
_BOOL_KEYS = {"placement"}


def _check_numbers(value: Any, where: str, path: str, key: str) -> None:
    """Refuse booleans and words where a number belongs (YAML ``true`` would otherwise read as 1)."""
    if key in _TEXT_KEYS:
        return
    if isinstance(value, Mapping):
        for k, v in value.items():
            _check_numbers(v, where, f"{path}.{k}" if path else str(k), str(k))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check_numbers(v, where, f"{path}[{i}]", key)
    elif isinstance(value, (bool, np.bool_)) and key not in _BOOL_KEYS:
        raise InvalidInstanceError(f"{where}: {path}={value!r} is a boolean; a number belongs here (YAML reads "
                                   "true/yes/on as booleans)", argument=key, value=value)
    elif isinstance(value, str):
        raise InvalidInstanceError(f"{where}: {path}={value!r} is not a number", argument=key, value=value)


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
    for k, v in data.items():
        if k == "users" and isinstance(v, list):
            for i, u in enumerate(v):
                if isinstance(u, Mapping):
                    for uk, uv in u.items():
                        _check_numbers(uv, source, f"users[{i}].{uk}", str(uk))
        else:
            _check_numbers(v, source, str(k), str(k))
    return INSTANCE_KINDS[kind](data, source)


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
        rows = [r for r in csv.reader(_read_text(p).splitlines()) if r and any(c.strip() for c in r)]
        if not rows:
            raise InvalidInstanceError(f"{p}: no commitment rows", argument="commitments", value=str(p))
        try:
            float(rows[0][-1])
        except (ValueError, IndexError):
            rows = rows[1:]                           # a header row
        by_name = {}
        plain = []
        for lineno, r in enumerate(rows, start=1):
            try:
                vals = [float(x) for x in r]
                plain.append(vals)
            except ValueError:
                try:
                    by_name[r[0].strip()] = [float(x) for x in r[1:]]
                except ValueError:
                    raise InvalidInstanceError(f"{p}: row {lineno} {r!r} is not numeric",
                                               argument="commitments", index=(lineno,), value=r) from None
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
