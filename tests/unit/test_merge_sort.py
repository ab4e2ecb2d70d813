"""fairalloc._merge_sort: the one stable merge sort of the compiled loops, against Python's ``sorted``.

Python's ``sorted`` is stable (the language reference, "Sorting HOW TO"), so with the key of a strict weak
order it gives the unique stable order of the input: the reference. Inputs are seeded and full of ties
(values drawn from a few levels), in random, sorted, reversed and nearly sorted order, sorted whole and on a
sub-range (the Slurm queue sorts ``wq[lo:hi]``).
"""

import numpy as np
import pytest

from fairalloc._jit import jit
from fairalloc._merge_sort import sorter


@jit(cache=False, _nrt=False)
def _by_value_desc(ctx, x, y):
    return ctx[x] > ctx[y]


_sort = sorter(_by_value_desc, "test_value_desc", cache=False)


def _cases(rng):
    for n in (0, 1, 2, 3, 7, 8, 33, 100):
        v = rng.integers(0, 4, size=n).astype(float)                 # few levels: many ties
        base = np.arange(n)
        nearly = base.copy()
        if n > 3:
            i, j = rng.choice(n, size=2, replace=False)
            nearly[[i, j]] = nearly[[j, i]]
        by_value = np.array(sorted(base, key=lambda x: -v[x]), dtype=np.int64)
        for a in (rng.permutation(n), base, base[::-1].copy(), nearly, by_value):
            yield v, np.asarray(a, dtype=np.int64)


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "plain"])
def test_stable_sort_equals_pythons_sorted(compiled):
    rng = np.random.default_rng(20261128)
    fn = _sort if compiled else _sort.py_func
    count = 0
    for v, a in _cases(rng):
        n = a.shape[0]
        for lo, hi in ((0, n), (min(2, n), max(min(2, n), n - 1))):
            got = a.copy()
            buf = np.full(n, -1, np.int64)
            fn(got, buf, lo, hi, v)
            want = a.copy()
            want[lo:hi] = sorted(a[lo:hi], key=lambda x: -v[x])      # stable: ties keep their input order
            assert got.tolist() == want.tolist(), (v.tolist(), a.tolist(), lo, hi)
            count += 1
    assert count == 80


def test_comparisons_on_sorted_input_are_linear():
    """Merges of runs already in order are skipped: a sorted input of n items costs one comparison per pair
    of runs at each width, n - 1 in all for n a power of two (n/2 + n/4 + ... + 1; counted here)."""
    calls = []

    def before(ctx, x, y):
        calls.append((x, y))
        return ctx[x] < ctx[y]

    sort = sorter(before, "test_count", cache=False)
    v = np.arange(64, dtype=float)
    a = np.arange(64)
    sort.py_func(a, np.empty(64, np.int64), 0, 64, v)
    assert a.tolist() == list(range(64))
    assert len(calls) == 63
