"""What a sweep cell runs on: workloads and capacities built from the resolved parts of a spec.

One module for the spec's checks (on the machine that starts the sweep) and for the builds (on the
workers), so a spec that passes validation builds the same thing everywhere.

Workload specs (``workload:`` in a spec, after ``${name}`` substitution)::

    {"generator": "lublin", "n_jobs": 500, "nodes": 128, "rng": 3}       # fa.workloads.lublin(...)
    {"generator": "google_like", "n_users": 50, "n_tasks": 5000, "rng": 0}
    {"generator": "alibaba_like", "n_jobs": 200, "large_fraction": 0.5, "rng": 7}
    {"generator": "mypackage.workloads:make", "size": 10}                # any callable: a Workload, or
                                                                          # anything a custom cell reads
    {"reader": "swf", "path": "KTH-SP2-1996-2.1-cln.swf.gz"}             # fa.workloads.read_swf(path)
    {"reader": "google2011", "path": "...", "prepare": true}             # + prepare_tasks (default)
    {"reader": "alibaba" | "alibaba2018" | "parquet", "path": "..."}
    {..., "head": 1000}                                                   # first 1000 jobs by submit

Capacity specs (``capacity:``)::

    {"processors": 256}                 # identical processors (rigid jobs)
    {"pool": 0.5}                       # one pool of every resource at 0.5 x the workload's mean use R
    {"resources": [100, 200]}           # one pool with these totals
    {"cluster": "tvtsf-table3"}         # a built-in cluster: a function of fairalloc.clusters
"""

from __future__ import annotations

import importlib
import inspect
import os
from pathlib import Path
from typing import Any, Callable, Mapping

__all__ = ["GENERATORS", "READERS", "CAPACITY_KINDS", "resolve_callable", "workload_function",
           "build_workload", "build_capacity"]

#: Built-in generator names -> ``fairalloc.workloads`` function names.
GENERATORS = {"lublin": "lublin", "google_like": "google_like", "alibaba_like": "alibaba_like"}
#: Built-in reader names -> (``fairalloc.workloads`` function, fixed keyword arguments, task trace).
READERS: dict[str, tuple[str, dict[str, Any], bool]] = {
    "swf": ("read_swf", {}, False),
    "google2011": ("read_google2011", {}, True),
    "alibaba": ("read_alibaba", {"version": 2017}, True),
    "alibaba2017": ("read_alibaba", {"version": 2017}, True),
    "alibaba2018": ("read_alibaba", {"version": 2018}, True),
    "parquet": ("Workload.read_parquet", {}, False),
}
CAPACITY_KINDS = ("processors", "pool", "resources", "cluster")
#: Keys of a workload spec that are not arguments of the generator or reader.
WORKLOAD_META_KEYS = ("generator", "reader", "path", "prepare", "head")


def resolve_callable(ref: str) -> Callable[..., Any]:
    """The callable named ``"package.module:function"`` (``function`` may be dotted: ``Class.method``).

    Parameters
    ----------
    ref : str
        ``"package.module:function"``, exactly one colon.

    Returns
    -------
    callable

    Raises
    ------
    ValueError
        With the reason: not of that form, the module cannot be imported, it has no such name, or
        the object is not callable.

    Examples
    --------
    >>> resolve_callable("fairalloc.workloads:lublin").__name__
    'lublin'
    >>> resolve_callable("fairalloc.sim:ResourcePool.from_workload").__name__
    'from_workload'
    >>> resolve_callable("fairalloc.workloads:nope")
    Traceback (most recent call last):
    ...
    ValueError: module 'fairalloc.workloads' has no attribute 'nope'
    """
    if not isinstance(ref, str) or ref.count(":") != 1:
        raise ValueError(f"{ref!r} is not of the form 'package.module:function'")
    mod_name, _, attr = ref.partition(":")
    try:
        obj: Any = importlib.import_module(mod_name)
    except ImportError as exc:
        raise ValueError(f"cannot import module {mod_name!r} ({exc})") from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"module {mod_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise ValueError(f"{ref!r} is not callable")
    return obj


def workload_function(spec: Mapping[str, Any]) -> tuple[Callable[..., Any], dict[str, Any], bool]:
    """(function, fixed keyword arguments, is a task trace) for a workload spec's ``generator`` or
    ``reader``; ``ValueError`` naming the unknown name.

    Parameters
    ----------
    spec : mapping
        A workload spec with ``generator`` (a key of ``GENERATORS`` or ``"package.module:function"``)
        or ``reader`` (a key of ``READERS``).

    Returns
    -------
    tuple
        ``(function, fixed keyword arguments, whether the reader gives a task trace)``.

    Raises
    ------
    ValueError
        An unknown generator or reader, naming it and the known ones.

    Examples
    --------
    >>> fn, fixed, task_trace = workload_function({"generator": "lublin"})
    >>> fn.__name__, fixed, task_trace
    ('lublin', {}, False)
    >>> workload_function({"generator": "foo"})
    Traceback (most recent call last):
    ...
    ValueError: 'foo' is not a built-in generator (lublin, google_like, alibaba_like) nor 'package.module:function'
    """
    from .. import workloads

    if "generator" in spec:
        name = spec["generator"]
        if isinstance(name, str) and name in GENERATORS:
            return getattr(workloads, GENERATORS[name]), {}, False
        if isinstance(name, str) and ":" in name:
            return resolve_callable(name), {}, False
        raise ValueError(f"{name!r} is not a built-in generator ({', '.join(GENERATORS)}) nor "
                         "'package.module:function'")
    name = spec["reader"]
    if name not in READERS:
        raise ValueError(f"{name!r} is not one of {', '.join(READERS)}")
    fname, fixed, task_trace = READERS[name]
    fn: Any = workloads
    for part in fname.split("."):
        fn = getattr(fn, part)
    return fn, dict(fixed), task_trace


def check_arguments(fn: Callable[..., Any], kwargs: Mapping[str, Any], positional: tuple = ()) -> str | None:
    """The name of the first keyword ``fn`` does not accept, or ``None`` when all bind."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):   # builtins without a signature: accept
        return None
    if any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        return None
    names = {n for n, p in sig.parameters.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    for k in kwargs:
        if k not in names:
            return k
    return None


def expand_path(path: Any, base: Path | None) -> Path:
    """``path`` with ``~`` and ``$VARS`` expanded, relative to ``base`` (the spec file's folder)."""
    p = Path(os.path.expandvars(os.path.expanduser(str(path))))
    if not p.is_absolute() and base is not None:
        p = base / p
    return p.resolve()


def build_workload(spec: Mapping[str, Any]):
    """Build the :class:`~fairalloc.workloads.Workload` a resolved workload spec describes (a custom
    generator, ``"package.module:function"``, may return any object: a custom cell function gets it).

    ``path`` must already be absolute (the spec resolves it). Task traces (``google2011``,
    ``alibaba*``) go through :func:`fairalloc.workloads.prepare_tasks` unless ``prepare: false``;
    ``head: N`` keeps the first N jobs by submit time.

    Parameters
    ----------
    spec : mapping
        A resolved workload spec: ``generator`` or ``reader`` (with ``path``), optional ``prepare``
        and ``head``, and the function's own keyword arguments.

    Returns
    -------
    Workload
        Or, for a custom generator without ``head``, whatever it returned.

    Raises
    ------
    ValueError
        An unknown generator or reader (:func:`workload_function`).
    TypeError
        A built-in function, a reader or a ``head`` whose result is not a Workload.

    Examples
    --------
    20 Lublin jobs, then the first 5 by submit time:

    >>> wl = build_workload({"generator": "lublin", "n_jobs": 20, "nodes": 16, "rng": 0, "head": 5})
    >>> len(wl), bool((wl.submit[1:] >= wl.submit[:-1]).all())
    (5, True)
    """
    from ..workloads import Workload, prepare_tasks

    fn, fixed, task_trace = workload_function(spec)
    kwargs = {k: v for k, v in spec.items() if k not in WORKLOAD_META_KEYS}
    kwargs.update(fixed)
    if "reader" in spec:
        wl = fn(spec["path"], **kwargs)
        if spec.get("prepare", task_trace):
            wl = prepare_tasks(wl)
    else:
        wl = fn(**kwargs)
    if not isinstance(wl, Workload):
        if "reader" in spec or spec["generator"] in GENERATORS or spec.get("head") is not None:
            raise TypeError(f"workload function returned {type(wl).__name__}, not a fairalloc Workload")
        return wl        # a custom generator may build anything its custom cell function reads
    if spec.get("head") is not None:
        wl = wl.sorted().head(int(spec["head"]))
    return wl


def build_capacity(spec: Mapping[str, Any] | None, workload: Any) -> Any:
    """The ``capacity`` argument of :func:`fairalloc.simulate` for a resolved capacity spec
    (``None``: the workload's own ``MaxProcs``).

    Parameters
    ----------
    spec : mapping or None
        One key: ``processors`` (int), ``pool`` (a fraction of the workload's mean use, see
        :meth:`~fairalloc.sim.ResourcePool.from_workload`), ``resources`` (a vector) or ``cluster``
        (the name of a :mod:`fairalloc.clusters` function, ``-`` read as ``_``).
    workload : Workload
        Used by ``pool`` only.

    Returns
    -------
    int, list of float, ResourcePool, Cluster or None

    Examples
    --------
    >>> build_capacity({"processors": 16}, None), build_capacity({"resources": [1, 2]}, None)
    (16, [1.0, 2.0])
    >>> type(build_capacity({"cluster": "tvtsf-table3"}, None)).__name__, build_capacity(None, None)
    ('Cluster', None)
    """
    if spec is None:
        return None
    (kind, value), = spec.items()
    if kind == "processors":
        return int(value)
    if kind == "pool":
        from ..sim import ResourcePool
        return ResourcePool.from_workload(workload, float(value))
    if kind == "resources":
        return [float(v) for v in value]
    from .. import clusters
    return getattr(clusters, str(value).replace("-", "_"))()
