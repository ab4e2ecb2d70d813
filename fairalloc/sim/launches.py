r"""Launches given as arrays: what a policy that starts many tasks at one instant hands the engine.

A policy's ``schedule(now)`` returns launches ``(job, tasks, server)`` in order (:mod:`fairalloc.sim.engine`).
A slotted task scheduler starts hundreds of launches per slot (TV-TSF's Algorithm 2 interleaves the
users, so consecutive starts seldom share a job and a server: about one launch per task), and one
Python call per launch to start it and one to end it were most of such a run. :class:`Launches` is
the same list as four arrays; the engine applies it with the operations it applies to one launch,
in the same order, over arrays (:meth:`~fairalloc.sim.cluster_state.ClusterState.allocate_many`,
:meth:`~fairalloc.sim.cluster_state.ClusterState.release_many`), and hands the launches of one batch
that end at one instant back together (``policy.on_finish_many``).

The capacity test and the subtractions are those of
:meth:`~fairalloc.sim.cluster_state.Servers.allocate`, launch after launch, compiled
(:func:`take_many` calls :func:`fairalloc.shares.tasks_that_fit_one` compiled from its one source):
the free capacity after a batch is bitwise what the launches one at a time leave, and the first
launch that does not fit is the one :meth:`~fairalloc.sim.cluster_state.Servers.allocate` refuses.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import shares
from .._jit import jit

__all__ = ["Launches", "take_many", "release_many"]

_fit_one = jit(shares.tasks_that_fit_one)


class Launches(NamedTuple):
    """Launches ``(job[a], tasks[a], server[a])``, ``a = 0, 1, ...`` in order, as int64 arrays.

    ``tag`` is the policy's own number for each launch (e.g. where its task ids are kept): the
    engine returns it with the launch when it ends (``policy.on_finish_many``) and reads nothing
    else from it.

    Examples
    --------
    >>> import numpy as np
    >>> b = Launches.of([3, 3, 5], [2, 1, 1], [0, 1, 0])
    >>> b.job.tolist(), b.tasks.tolist(), b.server.tolist(), b.tag.tolist(), len(b.job)
    ([3, 3, 5], [2, 1, 1], [0, 1, 0], [0, 1, 2], 3)
    """

    job: np.ndarray
    tasks: np.ndarray
    server: np.ndarray
    tag: np.ndarray

    @classmethod
    def of(cls, job, tasks, server, tag=None) -> "Launches":
        """From sequences; ``tag`` defaults to the launches' positions 0, 1, ..."""
        j = np.asarray(job, dtype=np.int64)
        tag = np.arange(j.size, dtype=np.int64) if tag is None else np.asarray(tag, dtype=np.int64)
        return cls(j, np.asarray(tasks, dtype=np.int64), np.asarray(server, dtype=np.int64), tag)

    def take(self, idx) -> "Launches":
        """The launches ``idx`` (an index array or a slice), in that order."""
        return Launches(self.job[idx], self.tasks[idx], self.server[idx], self.tag[idx])


@jit(_nrt=False)
def take_many(free, demand, user, placement, placed, job, tasks, server, eps):
    """Launch after launch: refuse it (return its position) if its server does not exist, the job's user
    may not run there (``placed``: ``placement[user, server]`` is checked), or fewer than ``tasks`` tasks
    fit (:func:`~fairalloc.shares.tasks_that_fit_one`); else subtract ``tasks`` times the job's demand
    from the server's free capacity. Returns -1 when every launch was taken."""
    for a in range(job.shape[0]):
        j = job[a]
        k = tasks[a]
        m = server[a]
        if m < 0 or m >= free.shape[0]:
            return a
        if placed and not placement[user[j], m]:
            return a
        if _fit_one(free[m], demand[j], eps) < k:
            return a
        for r in range(free.shape[1]):
            free[m, r] -= demand[j, r] * k
    return -1


@jit(_nrt=False)
def release_many(free, demand, job, tasks, server):
    """Launch after launch: add ``tasks`` times the job's demand back to its server's free capacity."""
    for a in range(job.shape[0]):
        j = job[a]
        k = tasks[a]
        m = server[a]
        for r in range(free.shape[1]):
            free[m, r] += demand[j, r] * k
