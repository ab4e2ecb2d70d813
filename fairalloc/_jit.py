"""Compile on first use: numba is imported, and fairalloc's compiled functions built, only when one is called.

A function written as a plain loop over arrays is marked with :func:`jit` (the options of
``numba.njit``; ``cache=True`` by default). Marking imports nothing: the module-level name is bound
to a :class:`Pending` that remembers the function. The first call of any pending function runs
:func:`ensure`: it imports numba, builds one dispatcher per marked function, and rebinds every module
global of fairalloc that holds a pending function to its dispatcher, so that compiled code calling
another marked function (numba reads such globals when it compiles the caller) calls compiled code.
Functions marked after that are compiled at once.

Nothing else of fairalloc is imported here (the kinetic structures use it too). Under
``NUMBA_DISABLE_JIT=1`` numba's ``njit`` returns the plain function: the same source runs as Python.

Examples
--------
>>> @jit(cache=False)          # (a function typed at a prompt has no file to cache in)
... def twice(x):
...     return 2 * x
>>> twice.py_func(21), twice(21)
(42, 42)
"""

from __future__ import annotations

import functools
import sys
import types
from typing import Any, Callable

__all__ = ["jit", "callee", "specialise", "ensure", "Pending"]

_PENDING: list["Pending"] = []
_CALLEES: list[Callable] = []
_GLOBALS: list[dict] = []          # the globals of :func:`specialise`'s copies (rebound by :func:`ensure`)
_READY = False


class Pending:
    """A function marked for compilation; calling it compiles every marked function first (:func:`ensure`).

    Attributes
    ----------
    py_func : callable
        The plain function (as a numba dispatcher's ``py_func``).
    options : dict
        The options given to ``numba.njit``.
    """

    def __init__(self, fn: Callable, options: dict) -> None:
        self.py_func = fn
        self.options = options
        self.compiled: Any = None
        functools.update_wrapper(self, fn)       # name, module, docstring, __wrapped__ (doctests)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.compiled is None:
            ensure()
        return self.compiled(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<pending compiled function {self.__module__}.{self.__qualname__}>"


def jit(fn: Callable | None = None, /, **options: Any):
    """Mark ``fn`` for ``numba.njit(**options)`` at first use (``cache=True`` unless given).

    Use as ``@jit``, ``@jit(inline="always")`` or ``name = jit(other_module.plain_function)`` (a
    separate compiled copy bound to ``name``; the plain function itself is left as it is).
    """
    options.setdefault("cache", True)
    options.setdefault("_nrt", True)

    def mark(f: Callable) -> Any:
        p = Pending(f, options)
        if _READY:
            _compile(p)
            return p.compiled
        _PENDING.append(p)
        return p

    return mark if fn is None else mark(fn)


def callee(fn: Callable) -> Callable:
    """Mark the plain function ``fn`` as called by other plain functions that numba compiles; returns ``fn``.

    Python calls ``fn`` as it is; before numba builds the first compiled function (:func:`ensure`), ``fn`` is
    registered with ``numba.extending.register_jitable``, so that a compiled caller compiles the call (a
    plain function is otherwise an untyped global to numba).
    """
    _CALLEES.append(fn)
    if _READY:
        _register(fn)
    return fn


def specialise(fn: Callable, suffix: str, /, *, cache: bool = True, **names: Any) -> Any:
    """A compiled copy of the plain function ``fn`` in which the global ``names`` are bound as given.

    One source, several compiled functions: ``fn`` reads a global (a comparator, say) that each copy binds
    to another marked function, and numba compiles each copy with its own callee inlined or called
    directly, as if it had been written out. (Passing the callee as an argument instead makes numba's
    cache miss at every run, since a dispatcher's type names its address.) The copy is named
    ``fn.__qualname__ + "_" + suffix``, which also names its cache file, so copies never share one.
    Options are :func:`jit`'s defaults with ``_nrt=False`` (``cache=False`` for a function without a file).

    Examples
    --------
    >>> def apply(x):
    ...     return op(x)
    >>> def double(x):
    ...     return 2 * x
    >>> apply_double = specialise(apply, "double", cache=False, op=double)
    >>> apply_double.py_func.__qualname__, apply_double.py_func(4)
    ('apply_double', 8)
    """
    g = dict(fn.__globals__)
    g.update(names)
    copy = types.FunctionType(fn.__code__, g, f"{fn.__name__}_{suffix}", fn.__defaults__, fn.__closure__)
    copy.__qualname__ = f"{fn.__qualname__}_{suffix}"
    copy.__module__ = fn.__module__
    copy.__doc__ = fn.__doc__
    _GLOBALS.append(g)
    if _READY:
        _rebind(g)
    return jit(copy, _nrt=False, cache=cache)


def _rebind(g: dict) -> None:
    for attr, val in list(g.items()):
        if type(val) is Pending:
            if val.compiled is None:
                _compile(val)
            g[attr] = val.compiled


def _register(fn: Callable) -> None:
    from numba.extending import register_jitable

    register_jitable(fn)


def _compile(p: Pending) -> None:
    import numba

    p.compiled = numba.njit(**p.options)(p.py_func)
    if p.compiled is p.py_func:                  # NUMBA_DISABLE_JIT=1: the plain function, as a dispatcher reads
        p.py_func.py_func = p.py_func


def ensure() -> None:
    """Compile every marked function (numba builds the machine code at each one's first call) and
    rebind the module globals of fairalloc that hold pending functions to their dispatchers."""
    global _READY
    if _READY:
        return
    for fn in _CALLEES:
        _register(fn)
    for p in _PENDING:
        if p.compiled is None:
            _compile(p)
    _READY = True
    for g in _GLOBALS:
        _rebind(g)
    for name, mod in list(sys.modules.items()):
        if mod is None or not (name == "fairalloc" or name.startswith("fairalloc.")):
            continue
        for attr, val in list(vars(mod).items()):
            if type(val) is Pending:
                setattr(mod, attr, val.compiled)
    _PENDING.clear()
