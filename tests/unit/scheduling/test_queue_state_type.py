"""Every queue policy's :class:`~fairalloc.scheduling.queues.QueueState` has one numba type.

The core is compiled once per state *type*: a field that is read-only for one policy (an array
taken by ``np.asarray`` from a read-only attribute) makes numba compile the whole queue core again
(about 100 CPU s cold) for that policy. Found with ``volcano-hdrf``'s ``hleaf``: ``numba.typeof``
gave ``readonly array(bool, 1d, C)`` there and ``array(bool, 1d, C)`` for every other policy.
"""

from __future__ import annotations

import numpy as np
import pytest

numba = pytest.importorskip("numba")

from fairalloc.scheduling.queues import build_queues, normalize_tree  # noqa: E402

POLICIES = ("kueue", "kueue-afs", "yarn", "mesos", "volcano", "volcano-drf", "volcano-hdrf")


def _types(policy: str) -> dict[str, str]:
    totals = np.array([10.0, 20.0])
    tree = normalize_tree(policy, None, 4, ["cpu", "mem"], totals)
    qs = build_queues(policy, tree, 4, totals)
    return {f: str(numba.typeof(getattr(qs, f))) for f in qs._fields}


def test_every_queue_policy_gives_the_same_state_type():
    first = _types(POLICIES[0])
    for policy in POLICIES[1:]:
        other = _types(policy)
        assert other == first, {f: (first[f], other[f]) for f in first if other[f] != first[f]}
