"""Synthetic task workloads: ``google_like`` (many users, heavy-tailed tasks per user) and
``alibaba_like`` (the TV-TSF job mixes over 600 slots).

Both return a :class:`~fairalloc.workloads.Workload` whose rows are *jobs of identical tasks*:
``tasks`` tasks, each needing ``resources[row]`` (columns ``resource_names``) for ``run_time``
seconds (``google_like``) or slots (``alibaba_like``). The distributions are illustrative shapes
chosen to match the published qualitative facts (heavy tails, the papers' size thresholds and slot
ranges); they are *not* fitted to the traces unless a ``source`` workload is given, from which
``alibaba_like`` then resamples task rows, or ``google_like`` is given ``params`` fitted to a trace
(:func:`~fairalloc.workloads.fit_google_like`). Every draw goes through one seeded generator.

References
----------
.. [1] C. Reiss, J. Wilkes, J. Hellerstein, "Google cluster-usage traces: format + schema", 2011.
.. [2] Li Jie, Wang Jianzhou, "A fair multi-resource allocation mechanism for time-varying discrete
   jobs with placement constraints", Chinese Journal on Internet of Things, 2024 (Section 3).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..rng import as_generator
from ..errors import InvalidInstanceError
from .workload import Workload

__all__ = ["google_like", "alibaba_like", "SMALL_JOB_LIMIT"]

#: TV-TSF's threshold: a job is large when it has at least this many tasks.
SMALL_JOB_LIMIT = 500


def _positive_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or int(value) != value or value < 1:
        raise InvalidInstanceError(f"{name}={value!r} must be a positive integer", argument=name,
                                   value=value)
    return int(value)


def google_like(n_users: int = 627, n_tasks: int = 100_000, *, horizon: float = 86400.0,
                rng: Any = None, user_sigma: float = 2.0, tasks_per_job_mean: float = 30.0,
                tail: float = 1.3, params: Any = None) -> Workload:
    """Many users with heavy-tailed task counts, in the spirit of Google clusterdata-2011.

    Parameters
    ----------
    n_users : int
        Users (the SDRF paper's Google trace has 627; the scheduler benchmark also uses 10^4).
    n_tasks : int
        Total tasks, exactly (``workload.n_tasks``); the scheduler benchmark uses 10^6.
    horizon : float
        Submissions uniform on ``[0, horizon)`` seconds.
    rng : int or numpy.random.Generator, optional
    user_sigma : float
        Popularity of user *u* is lognormal(0, ``user_sigma``): a few users own most tasks.
    tasks_per_job_mean : float
        Scale of the tasks per job, drawn as ``1 + floor(Pareto(tail) * scale)`` (heavy-tailed).
    tail : float
        Pareto index of tasks per job (smaller = heavier tail).
    params : GoogleLikeParams, optional
        Every distribution at once, e.g. fitted to a trace by
        :func:`~fairalloc.workloads.fit_google_like` (or the frozen
        :data:`~fairalloc.workloads.google_fit.SUBSET_FIT`); it then replaces ``user_sigma``,
        ``tasks_per_job_mean`` and ``tail`` (which must keep their defaults), and is recorded in
        ``meta["params"]``. Without it the draws are the illustrative shapes below, unchanged.

    Returns
    -------
    Workload
        One row per job: ``user`` (every user has at least one job when there are at least as
        many jobs as users), ``tasks``, ``resources`` per task (``cpu``, ``memory``: fractions of
        one machine, lognormal, correlated), ``run_time`` per task (lognormal, median 5 minutes,
        clipped to [1 s, 1 day]); sorted by submit time.

    Examples
    --------
    >>> wl = google_like(50, 2000, rng=0)
    >>> wl.n_tasks, wl.n_users, wl.resource_names
    (2000, 50, ('cpu', 'memory'))
    """
    n_users = _positive_int("n_users", n_users)
    n_tasks = _positive_int("n_tasks", n_tasks)
    from .google_fit import DEFAULT_PARAMS, GoogleLikeParams

    if params is None:
        p = DEFAULT_PARAMS
        scale = max(tasks_per_job_mean * (tail - 1.0) / tail, 1e-9) if tail > 1 else tasks_per_job_mean
    else:
        if not isinstance(params, GoogleLikeParams):
            raise InvalidInstanceError(f"params must be a GoogleLikeParams, got {type(params).__name__}",
                                       argument="params", value=type(params).__name__)
        if (user_sigma, tasks_per_job_mean, tail) != (2.0, 30.0, 1.3):
            raise InvalidInstanceError("give either params or user_sigma / tasks_per_job_mean / tail, not both",
                                       argument="params", value=params.source)
        p = params
        user_sigma, tail, scale = p.user_sigma, p.tail, p.job_scale
    gen = as_generator(rng)
    sizes: list[np.ndarray] = []
    total = 0
    cap = n_tasks if params is None or p.max_tasks_per_job is None else min(n_tasks, p.max_tasks_per_job)
    while total < n_tasks:
        if params is None or p.max_tasks_per_job is None:
            s = 1 + np.floor(gen.pareto(tail, max(1024, n_tasks // 10)) * scale).astype(np.int64)
        else:   # Lomax truncated to 1 + floor(scale X) <= cap (scale X < cap), by inversion
            top = -np.expm1(-tail * np.log1p(cap / scale))
            u = gen.uniform(0.0, top, max(1024, n_tasks // 10))
            s = 1 + np.floor(np.expm1(-np.log1p(-u) / tail) * scale).astype(np.int64)
        s = np.minimum(s, cap)
        sizes.append(s)
        total += int(s.sum())
    size = np.concatenate(sizes)
    cut = int(np.searchsorted(np.cumsum(size), n_tasks))
    size = size[:cut + 1].copy()
    size[-1] -= int(size.sum()) - n_tasks
    n_jobs = size.size
    popularity = gen.lognormal(0.0, user_sigma, n_users)
    user = gen.choice(n_users, size=n_jobs, p=popularity / popularity.sum())
    if n_jobs >= n_users:  # every user owns at least one job (the first n_users jobs, shuffled)
        user[:n_users] = gen.permutation(n_users)
        user = user[gen.permutation(n_jobs)]
    submit = np.sort(gen.uniform(0.0, horizon, n_jobs))
    cpu = np.clip(gen.lognormal(p.cpu_mu, p.cpu_sigma, n_jobs), 1e-3, 0.5 if params is None else 1.0)
    mem = np.clip(cpu * gen.lognormal(p.mem_ratio_mu, p.mem_ratio_sigma, n_jobs), 1e-4,
                  0.5 if params is None else 1.0)
    run = np.clip(np.round(gen.lognormal(p.run_mu, p.run_sigma, n_jobs)), 1.0, 86400.0)
    meta = {"source": "google_like", "n_users": n_users, "n_tasks": n_tasks, "horizon": horizon,
            "note": "illustrative heavy-tailed shapes, not fitted to the trace" if params is None
            else f"parameters: {p.source}"}
    if params is not None:
        meta["params"] = p.to_dict()
    return Workload(submit=submit, run_time=run, tasks=size, user=user, resources=np.c_[cpu, mem],
                    resource_names=("cpu", "memory"), resource_units=("normalised", "normalised"),
                    status=np.ones(n_jobs), meta=meta)


def alibaba_like(n_jobs: int = 200, *, large_fraction: float | None = 0.25, n_users: int | None = None,
                 slots: int = 600, source: Workload | None = None, rng: Any = None,
                 max_tasks: int = 5000, mean_duration: float = 5.0) -> Workload:
    """Job mixes of TV-TSF's experiments: small (< 500 tasks) and large (>= 500) jobs over 600 slots.

    Parameters
    ----------
    n_jobs : int
    large_fraction : float in [0, 1] or None
        Fraction of large jobs (the paper's 0.25, 0.5, 0.8); ``None`` = the "normal" mix, i.e.
        whatever the task-count distribution gives (the source's own mix when ``source`` is given).
    n_users : int, optional
        Users formed from jobs by a seeded uniform mapping; default one user per job.
    slots : int
        Submission slot uniform in ``1..slots`` (the paper: 600).
    source : Workload, optional
        A task workload with resources, e.g. ``read_alibaba(..., version=2018)``; small and large
        rows are then resampled (with replacement) from its rows with known demands.
    max_tasks : int
        Largest job of the built-in distribution.
    mean_duration : float
        Mean task duration in slots of the built-in distribution (geometric, >= 1).

    Returns
    -------
    Workload
        ``submit`` = slot (integer), ``run_time`` = duration in slots (integer >= 1), ``tasks``,
        ``resources`` per task (``cpu`` in cores, ``memory`` in GB, as the TV-TSF Table 3 cluster
        counts them), ``extra["large"]`` (bool); ``meta["time_unit"] = "slot"``.

    Examples
    --------
    >>> wl = alibaba_like(100, large_fraction=0.5, rng=0)
    >>> int(wl.extra["large"].sum()), bool((wl.tasks[wl.extra["large"]] >= 500).all())
    (50, True)
    """
    n_jobs = _positive_int("n_jobs", n_jobs)
    slots = _positive_int("slots", slots)
    if large_fraction is not None and not (0.0 <= large_fraction <= 1.0):
        raise InvalidInstanceError(f"large_fraction={large_fraction!r} must be in [0, 1]",
                                   argument="large_fraction", value=large_fraction)
    gen = as_generator(rng)
    if source is None:
        if large_fraction is None:
            tasks = np.minimum(1 + np.floor(gen.pareto(0.9, n_jobs) * 20), max_tasks).astype(np.int64)
        else:
            n_large = int(round(large_fraction * n_jobs))
            large = np.arange(n_jobs) < n_large
            small_t = np.minimum(1 + np.floor(gen.pareto(1.1, n_jobs) * 15), SMALL_JOB_LIMIT - 1)
            large_t = np.minimum(SMALL_JOB_LIMIT + np.floor(gen.pareto(1.5, n_jobs) * 500), max_tasks)
            tasks = np.where(large, large_t, small_t).astype(np.int64)
            tasks = tasks[gen.permutation(n_jobs)]
        cpu = gen.choice([0.5, 1.0, 1.0, 2.0, 2.0, 4.0, 8.0], size=n_jobs)
        mem = np.round(cpu * gen.uniform(1.0, 4.0, n_jobs), 2)
        res = np.c_[cpu, mem]
        names = ("cpu", "memory")
        units: tuple = ("cores", "GB")
    else:
        ok = np.isfinite(source.resources).all(axis=1) & (source.resources.sum(axis=1) > 0)
        if source.resources.shape[1] == 0 or not ok.any():
            raise InvalidInstanceError("source has no rows with known resource demands",
                                       argument="source", value=source)
        rows = np.flatnonzero(ok)
        is_large = source.tasks[rows] >= SMALL_JOB_LIMIT
        if large_fraction is None:
            pick = gen.choice(rows, size=n_jobs)
        else:
            n_large = int(round(large_fraction * n_jobs))
            pools = (rows[is_large], rows[~is_large])
            if n_large and not pools[0].size or n_jobs - n_large and not pools[1].size:
                raise InvalidInstanceError("source lacks small or large jobs for this mix",
                                           argument="large_fraction", value=large_fraction)
            pick = np.concatenate([gen.choice(pools[0], size=n_large) if n_large else [],
                                   gen.choice(pools[1], size=n_jobs - n_large)
                                   if n_jobs - n_large else []]).astype(np.int64)
            pick = pick[gen.permutation(n_jobs)]
        tasks = source.tasks[pick]
        res = source.resources[pick]
        names = source.resource_names
        units = source.resource_units
    duration = gen.geometric(1.0 / max(mean_duration, 1.0), n_jobs).astype(float)
    submit = np.sort(gen.integers(1, slots + 1, n_jobs)).astype(float)
    user = np.arange(n_jobs) if n_users is None else gen.integers(0, _positive_int("n_users", n_users),
                                                                  n_jobs)
    meta = {"source": "alibaba_like", "time_unit": "slot", "slots": slots,
            "large_fraction": large_fraction, "small_job_limit": SMALL_JOB_LIMIT,
            "user_mapping": "one user per job" if n_users is None else f"uniform over {n_users} users (seeded)"}
    return Workload(submit=submit, run_time=duration, tasks=tasks, user=user, resources=res,
                    resource_names=names, resource_units=units, status=np.ones(n_jobs),
                    extra={"large": tasks >= SMALL_JOB_LIMIT}, meta=meta)
