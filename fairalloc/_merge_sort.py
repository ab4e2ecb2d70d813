"""A stable merge sort of index arrays by a compiled comparator, written once for every compiled caller.

:func:`merge_sort` sorts ``a[lo:hi]`` (integers: users, queues, jobs, candidates) so that ``x`` comes before
``y`` when ``before(ctx, x, y)``, keeping the given order among items neither of which goes before the other
(stable). ``before`` must be a strict weak order (irreflexive, transitive, with transitive incomparability);
the result is then *the* stable sort of the input, whatever the algorithm, so replacing one correct stable
sort by another changes no schedule.

Bottom-up merge sort (Knuth, *The Art of Computer Programming* Vol. 3, Sec. 5.2.4, the straight two-way merge):
runs of width 1, 2, 4, ... are merged pairwise. A merge whose two runs are already in order (the last item of
the left run does not go after the first of the right: one comparison) is skipped, so an input that is
already sorted costs :math:`n - 1` comparisons per width and a mostly sorted one little more; otherwise the left
run is copied into ``buf`` (same indices) and merged back, taking the left item on ties (stability).
:math:`O(n \\log n)` comparisons, :math:`O(n)` scratch.

The comparator is a global of the source, bound per caller by :func:`sorter` (``fairalloc._jit.specialise``):
numba compiles one copy per comparator, each cached under its own name.

Examples
--------
>>> import numpy as np
>>> def by_value(ctx, x, y):
...     return ctx[x] < ctx[y]
>>> sort_by_value = sorter(by_value, "doctest_value", cache=False)
>>> v = np.array([3.0, 1.0, 2.0, 1.0, 0.5])
>>> a, buf = np.arange(5), np.empty(5, np.int64)
>>> sort_by_value.py_func(a, buf, 0, 5, v)     # the plain function (compiled: sort_by_value(...))
>>> a.tolist()                                   # 1.0 at indices 1 and 3 keep their order
[4, 1, 3, 2, 0]
"""

from __future__ import annotations

from typing import Callable

from ._jit import specialise

__all__ = ["merge_sort", "sorter"]


def before(ctx, x, y):  # pragma: no cover - each compiled copy binds its own (sorter)
    """The comparator of :func:`merge_sort` (bound per copy by :func:`sorter`)."""
    raise NotImplementedError("merge_sort is used through sorter(before, name)")


def merge_sort(a, buf, lo, hi, ctx):
    """Sort ``a[lo:hi]`` in place, stably, by the bound ``before(ctx, x, y)``; ``buf`` is scratch with
    ``buf.shape[0] >= hi`` (its contents afterwards are unspecified)."""
    n = hi - lo
    w = 1
    while w < n:
        s = lo
        while s < hi - w:
            m = s + w
            e = min(s + 2 * w, hi)
            if before(ctx, a[m], a[m - 1]):          # the runs are out of order across their boundary: merge
                for q in range(s, m):
                    buf[q] = a[q]
                i, j, k = s, m, s
                while i < m and j < e:
                    if before(ctx, a[j], buf[i]):
                        a[k] = a[j]
                        j += 1
                    else:                              # ties: the left run's item first (stable)
                        a[k] = buf[i]
                        i += 1
                    k += 1
                while i < m:
                    a[k] = buf[i]
                    i += 1
                    k += 1
            s = e
        w *= 2


def sorter(cmp: Callable, name: str, *, cache: bool = True):
    """:func:`merge_sort` compiled with ``before = cmp`` (a function marked with :func:`fairalloc._jit.jit`
    or :func:`~fairalloc._jit.callee`, or plain Python under ``NUMBA_DISABLE_JIT``), named
    ``merge_sort_<name>``: call it as ``sort(a, buf, lo, hi, ctx)``."""
    return specialise(merge_sort, name, cache=cache, before=cmp)
