r"""Fit :func:`~fairalloc.workloads.google_like`'s parameters to a task trace (the Google 2011 subset).

:func:`google_like` draws a workload from six distributions; :func:`fit_google_like` estimates each
from a task :class:`~fairalloc.workloads.Workload` by maximum likelihood, under the generator's own
model, and returns a :class:`GoogleLikeParams` that ``google_like(..., params=...)`` takes:

* **jobs per user**: every user owns one job, and the others are spread over users in proportion to a
  lognormal popularity :math:`e^{\sigma Z_u}`. Per user, ``jobs - 1`` is then Poisson with mean
  :math:`\lambda e^{\sigma Z_u}` (Poisson-lognormal): :math:`(\lambda, \sigma)` by maximum likelihood,
  the integral over *Z* by 40-point Gauss-Hermite quadrature. Only ``user_sigma`` is kept: the number
  of jobs follows from ``n_tasks`` and the tasks per job. Per-user *task* counts are jobs per user
  times tasks per job; :func:`trace_statistics` compares their quantiles.
* **tasks per job** :math:`k = 1 + \lfloor s X \rfloor` with *X* Lomax (Pareto II) of index *a*
  (``numpy``'s ``pareto``): :math:`P(k > m) = (1 + m / s)^{-a}` exactly, truncated to
  :math:`k \le K`, so the discrete likelihood
  :math:`P(k = m) = [(1 + (m-1)/s)^{-a} - (1 + m/s)^{-a}] / [1 - (1 + K/s)^{-a}]` is maximised over
  (*a*, *s*), with *K* the largest job seen (the MLE of a truncation point). The truncation matters:
  the Google subset's fitted index is below 1 (infinite mean), so without it a 10^6-task draw is a
  few hundred jobs, one of them most of the tasks.
* **CPU** per task: lognormal (``cpu_mu``, ``cpu_sigma``: mean and standard deviation of
  :math:`\log` CPU); **memory** = CPU :math:`\times` lognormal (``mem_ratio_mu``,
  ``mem_ratio_sigma``, of :math:`\log(\text{mem}/\text{cpu})`); one demand per job (the first task's
  demand when a job's tasks differ; the fit counts such jobs).
* **run time** per task: lognormal (``run_mu``, ``run_sigma``), from the rows whose run time is known.
* **arrivals**: ``google_like`` submits jobs uniformly over the horizon, i.e. a Poisson process given
  the number of jobs; the fit gives the job rate (jobs per second) and the coefficient of variation of
  the gaps between job submissions (1 for Poisson), from each job's first submission.

What a trace does not hold is not fitted: the Google 2011 *subset* shipped in ``shared/data`` submits
every task at 0 and records no run time (:func:`~fairalloc.workloads.read_google2011`), so run times
and arrivals keep the generator's illustrative defaults there, and ``GoogleLikeParams.fitted`` lists
what was fitted. :data:`SUBSET_FIT` is a frozen copy of the fit to that subset, so that runs without
the data use the same parameters (a test re-fits the subset, when present, and compares).

Rows with a zero or unknown demand are dropped first, as the SDRF paper drops zero-demand tasks.

References
----------
.. [1] C. Reiss, J. Wilkes, J. Hellerstein, "Google cluster-usage traces: format + schema", 2011.
.. [2] M. Bulmer, "On fitting the Poisson lognormal distribution to species-abundance data",
   Biometrics 30(1), 1974 (the Poisson-lognormal likelihood).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from ..errors import InvalidInstanceError
from .workload import Workload

__all__ = ["GoogleLikeParams", "fit_google_like", "trace_statistics", "SUBSET_FIT", "DEFAULT_PARAMS"]

_FIELDS = ("user_sigma", "tail", "job_scale", "cpu_mu", "cpu_sigma", "mem_ratio_mu", "mem_ratio_sigma",
           "run_mu", "run_sigma")


@dataclass(frozen=True)
class GoogleLikeParams:
    """The distributions of :func:`~fairalloc.workloads.google_like` (module docstring).

    The defaults are the generator's illustrative shapes (user popularity lognormal(0, 2); tasks per
    job ``1 + floor(Lomax(1.3) * 30 * 0.3 / 1.3)``; CPU median 0.02 of a machine; memory = CPU x
    lognormal(0, 0.6); run time median 300 s, log-sd 1.4).

    Attributes
    ----------
    user_sigma : float
        Log-sd of the users' popularity (jobs per user).
    tail, job_scale : float
        Lomax index and scale of tasks per job.
    cpu_mu, cpu_sigma, mem_ratio_mu, mem_ratio_sigma, run_mu, run_sigma : float
        Mean and sd of log CPU, of log(memory / CPU) and of log run time (s).
    max_tasks_per_job : int or None
        Truncation of tasks per job (None: only by ``n_tasks``).
    jobs_per_second, interarrival_cv : float or None
        Fitted arrival rate and gap variability (None when the trace has no submission times);
        informative only: ``google_like``'s rate is ``n_tasks`` over its horizon.
    source : str
        Where the values come from.
    fitted : tuple of str
        The fields estimated from the trace (the others are defaults).
    counts : dict
        Users, jobs, tasks and rows used or dropped by the fit.

    Examples
    --------
    The defaults reproduce ``google_like``'s own draws; a field can be replaced with
    :func:`dataclasses.replace`. The default CPU median is exp(cpu_mu) = 0.02 of a machine:

    >>> import dataclasses, math
    >>> p = GoogleLikeParams()
    >>> round(math.exp(p.cpu_mu), 6), p.source
    (0.02, 'illustrative defaults')
    >>> dataclasses.replace(p, cpu_sigma=1.3).cpu_sigma
    1.3
    """

    user_sigma: float = 2.0
    tail: float = 1.3
    job_scale: float = 30.0 * 0.3 / 1.3
    cpu_mu: float = math.log(0.02)
    cpu_sigma: float = 0.9
    mem_ratio_mu: float = 0.0
    mem_ratio_sigma: float = 0.6
    run_mu: float = math.log(300.0)
    run_sigma: float = 1.4
    max_tasks_per_job: int | None = None
    jobs_per_second: float | None = None
    interarrival_cv: float | None = None
    source: str = "illustrative defaults"
    fitted: tuple = ()
    counts: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in _FIELDS:
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise InvalidInstanceError(f"{name}={v!r} must be a finite number", argument=name, value=v)
            if name in ("user_sigma", "tail", "job_scale", "cpu_sigma", "mem_ratio_sigma", "run_sigma") \
                    and v <= 0 and not (name.endswith("sigma") and v == 0):
                raise InvalidInstanceError(f"{name}={v!r} must be > 0", argument=name, value=v)
        object.__setattr__(self, "fitted", tuple(self.fitted))
        m = self.max_tasks_per_job
        if m is not None and (isinstance(m, bool) or int(m) != m or m < 1):
            raise InvalidInstanceError(f"max_tasks_per_job={m!r} must be a positive integer or None",
                                       argument="max_tasks_per_job", value=m)

    def rounded(self, digits: int = 6) -> "GoogleLikeParams":
        """The same parameters to ``digits`` significant digits (far below their standard errors), so
        that a fit repeated on another machine gives the same floats, hence the same workloads."""
        kw = {n: float(f"{getattr(self, n):.{digits}g}") for n in _FIELDS}
        for n in ("jobs_per_second", "interarrival_cv"):
            if getattr(self, n) is not None:
                kw[n] = float(f"{getattr(self, n):.{digits}g}")
        return replace(self, **kw)

    def to_dict(self) -> dict:
        """Plain values (JSON-ready)."""
        d = asdict(self)
        d["fitted"] = list(self.fitted)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "GoogleLikeParams":
        """The inverse of :meth:`to_dict`; unknown keys are refused."""
        known = set(cls.__dataclass_fields__)
        bad = sorted(set(d) - known)
        if bad:
            raise InvalidInstanceError(f"unknown GoogleLikeParams keys {bad}; known: {sorted(known)}",
                                       argument="params", value=bad)
        return cls(**d)

    def describe(self) -> list[str]:
        """One line per distribution, with the fitted values (for reports)."""
        f = set(self.fitted)

        def tag(*names: str) -> str:
            return "fitted" if all(n in f for n in names) else "default, not fitted"

        lines = [f"jobs per user: 1 + Poisson-lognormal, popularity log-sd user_sigma = {self.user_sigma:.3f} "
                 f"({tag('user_sigma')})",
                 f"tasks per job: 1 + floor(Lomax(tail = {self.tail:.3f}) x job_scale = {self.job_scale:.3f}) "
                 f"{'' if self.max_tasks_per_job is None else f', truncated to at most {self.max_tasks_per_job}'} "
                 f"({tag('tail', 'job_scale')})",
                 f"CPU per task: lognormal, median {math.exp(self.cpu_mu):.4g}, log-sd {self.cpu_sigma:.3f} "
                 f"({tag('cpu_mu', 'cpu_sigma')})",
                 f"memory / CPU: lognormal, median {math.exp(self.mem_ratio_mu):.4g}, log-sd "
                 f"{self.mem_ratio_sigma:.3f} ({tag('mem_ratio_mu', 'mem_ratio_sigma')})",
                 f"run time: lognormal, median {math.exp(self.run_mu):.4g} s, log-sd {self.run_sigma:.3f} "
                 f"({tag('run_mu', 'run_sigma')})"]
        if self.jobs_per_second is None:
            lines.append("arrivals: uniform over the horizon (Poisson given the count); rate = n_tasks / "
                         "horizon of the run (not fitted: the trace has no submission times)")
        else:
            lines.append(f"arrivals: fitted rate {self.jobs_per_second:.4g} jobs/s, gap CV "
                         f"{self.interarrival_cv:.3f} (Poisson: 1); the generator submits uniformly")
        return lines


#: The generator's illustrative shapes (``google_like``'s draws without ``params``).
DEFAULT_PARAMS = GoogleLikeParams()


def _lognormal_fit(x: np.ndarray) -> tuple[float, float]:
    lx = np.log(x)
    return float(lx.mean()), float(lx.std())          # the MLE (sd with divisor n)


def _lomax_fit(k: np.ndarray, cap: int) -> tuple[float, float]:
    """MLE of (a, s) for k = 1 + floor(s X), X ~ Lomax(a), truncated to k <= cap (module docstring)."""
    from scipy.optimize import minimize

    vals, cnt = np.unique(k.astype(np.int64), return_counts=True)
    m = vals.astype(float)

    def nll(th: np.ndarray) -> float:
        a, s = np.exp(th)
        lo = np.exp(-a * np.log1p((m - 1) / s))
        hi = np.exp(-a * np.log1p(m / s))
        norm = -np.expm1(-a * np.log1p(cap / s))                  # P(k <= cap)
        return -float((cnt * np.log(np.maximum(lo - hi, 1e-300))).sum() - cnt.sum() * math.log(norm))

    best = None
    for a0, s0 in ((1.0, 1.0), (1.5, 10.0), (0.5, 0.5)):
        r = minimize(nll, np.log([a0, s0]), method="Nelder-Mead",
                     options={"xatol": 1e-8, "fatol": 1e-10, "maxiter": 4000})
        if best is None or r.fun < best.fun:
            best = r
    a, s = np.exp(best.x)
    return float(a), float(s)


def _pln_fit(y: np.ndarray) -> tuple[float, float]:
    """MLE of (log lambda, sigma) for y ~ Poisson(lambda e^{sigma Z}), Z ~ N(0, 1).

    The integral over Z is adaptive Gauss-Hermite quadrature (20 nodes centred on each count's mode
    and scaled by its curvature): plain quadrature misses the narrow peak of a large count.
    """
    from scipy.optimize import minimize
    from scipy.special import gammaln

    t, w = np.polynomial.hermite_e.hermegauss(20)      # weight e^{-t^2/2}
    vals, cnt = np.unique(y.astype(np.int64), return_counts=True)
    v = vals.astype(float)
    lg = gammaln(v + 1) + 0.5 * math.log(2 * math.pi)

    def nll(th: np.ndarray) -> float:
        ll, sig = th[0], math.exp(th[1])
        z = np.clip((np.log(v + 0.5) - ll) / sig, -30, 30)
        for _ in range(60):                             # Newton on the concave log integrand
            e = np.exp(np.minimum(ll + sig * z, 700))
            z = z - (v * sig - sig * e - z) / (-sig * sig * e - 1)
        tau = 1 / np.sqrt(sig * sig * np.exp(np.minimum(ll + sig * z, 700)) + 1)
        zz = z[:, None] + tau[:, None] * t[None, :]
        eta = ll + sig * zz
        lf = v[:, None] * eta - np.exp(np.minimum(eta, 700)) - zz ** 2 / 2 + t[None, :] ** 2 / 2
        mx = lf.max(axis=1)
        li = mx + np.log((w[None, :] * np.exp(lf - mx[:, None])).sum(axis=1)) + np.log(tau) - lg
        return -float((cnt * li).sum())

    m = max(float(y.mean()), 1e-3)
    best = None
    for s0 in (0.5, 1.5, 3.0):
        r = minimize(nll, [math.log(m) - s0 * s0 / 2, math.log(s0)], method="Nelder-Mead",
                     options={"xatol": 1e-8, "fatol": 1e-10, "maxiter": 4000})
        if best is None or r.fun < best.fun:
            best = r
    return float(best.x[0]), float(math.exp(best.x[1]))


def _jobs(workload: Workload) -> dict[str, Any]:
    """One entry per job (rows grouped by ``job_id``; a generator's rows are jobs already)."""
    if not isinstance(workload, Workload):
        raise InvalidInstanceError(f"workload must be a Workload, got {type(workload).__name__}",
                                   argument="workload", value=type(workload).__name__)
    if workload.resources.shape[1] < 2 or tuple(workload.resource_names[:2]) != ("cpu", "memory"):
        raise InvalidInstanceError(f"workload needs resource columns ('cpu', 'memory'), has "
                                   f"{workload.resource_names}", argument="workload",
                                   value=workload.resource_names)
    res = workload.resources[:, :2]
    ok = np.isfinite(res).all(axis=1) & (res > 0).all(axis=1)
    dropped = int((~ok).sum())
    idx = np.flatnonzero(ok)
    if idx.size == 0:
        raise InvalidInstanceError("workload has no row with a positive CPU and memory demand",
                                   argument="workload", value=repr(workload))
    job = workload.job_id[idx]
    _, first, inv = np.unique(job, return_index=True, return_inverse=True)
    inv = inv.reshape(-1)
    tasks = np.bincount(inv, weights=workload.tasks[idx]).astype(np.int64)
    rows = idx[first]
    order = np.argsort(inv, kind="stable")
    starts = np.r_[0, np.cumsum(np.bincount(inv))[:-1]]
    v = res[idx][order]
    mixed = (np.minimum.reduceat(v, starts, axis=0) != np.maximum.reduceat(v, starts, axis=0)).any(axis=1)
    sub = np.full(first.size, np.inf)
    np.minimum.at(sub, inv, workload.submit[idx])
    return {"user": workload.user[rows], "tasks": tasks, "cpu": res[rows, 0], "memory": res[rows, 1],
            "submit": sub, "run": workload.run_time[idx], "dropped": dropped,
            "mixed_demand_jobs": int(mixed.sum()), "rows": int(idx.size)}


def fit_google_like(workload: Workload, /, *, source: str | None = None) -> GoogleLikeParams:
    """Estimate :func:`~fairalloc.workloads.google_like`'s parameters from a task trace.

    Parameters
    ----------
    workload : Workload
        Task rows (``tasks`` tasks each) with ``cpu`` and ``memory`` demands, ``user`` and
        ``job_id``; e.g. :func:`~fairalloc.workloads.read_google2011` or ``google_like`` itself.
    source : str, optional
        Recorded in the result (default: ``workload.meta["source"]``).

    Returns
    -------
    GoogleLikeParams
        ``fitted`` names what the trace determined; the rest keep the defaults (module docstring).

    Examples
    --------
    Drawn with CPU median 0.05 (log -3.0) and log-sd 0.5, recovered within a few standard errors
    (0.5 / sqrt(3000) = 0.009):

    >>> from fairalloc.workloads import google_like
    >>> p = GoogleLikeParams(cpu_mu=-3.0, cpu_sigma=0.5)
    >>> fit = fit_google_like(google_like(300, 60_000, params=p, rng=1))
    >>> round(fit.cpu_mu, 1), round(fit.cpu_sigma, 1)
    (-3.0, 0.5)
    """
    j = _jobs(workload)
    fitted = ["user_sigma", "tail", "job_scale", "max_tasks_per_job", "cpu_mu", "cpu_sigma", "mem_ratio_mu",
              "mem_ratio_sigma"]
    _, per_user = np.unique(j["user"], return_counts=True)
    _, user_sigma = _pln_fit(per_user - 1)
    cap = int(j["tasks"].max())
    tail, job_scale = _lomax_fit(j["tasks"], cap)
    cpu_mu, cpu_sigma = _lognormal_fit(j["cpu"])
    mem_mu, mem_sigma = _lognormal_fit(j["memory"] / j["cpu"])
    kw: dict[str, Any] = {}
    run = j["run"][np.isfinite(j["run"]) & (j["run"] > 0)]
    if run.size >= 2:
        kw["run_mu"], kw["run_sigma"] = _lognormal_fit(run)
        fitted += ["run_mu", "run_sigma"]
    sub = np.sort(j["submit"])
    if sub.size >= 3 and sub[-1] > sub[0]:
        gaps = np.diff(sub)
        kw["jobs_per_second"] = float((sub.size - 1) / (sub[-1] - sub[0]))
        kw["interarrival_cv"] = float(gaps.std() / gaps.mean())
        fitted += ["jobs_per_second", "interarrival_cv"]
    counts = {"users": int(per_user.size), "jobs": int(j["tasks"].size), "tasks": int(j["tasks"].sum()),
              "rows_used": j["rows"], "rows_dropped_zero_or_unknown_demand": j["dropped"],
              "jobs_with_mixed_demands": j["mixed_demand_jobs"], "run_times_known": int(run.size)}
    src = source if source is not None else str(workload.meta.get("source", "workload"))
    return GoogleLikeParams(user_sigma=user_sigma, tail=tail, job_scale=job_scale, cpu_mu=cpu_mu,
                            cpu_sigma=cpu_sigma, max_tasks_per_job=cap, mem_ratio_mu=mem_mu,
                            mem_ratio_sigma=mem_sigma,
                            source=f"fit to {src}", fitted=tuple(fitted), counts=counts, **kw)


def trace_statistics(workload: Workload, /) -> dict[str, float]:
    """Summary figures to compare a trace with a workload drawn from its fit (reports).

    Users, jobs, tasks; median / 90th percentile / maximum of tasks per job and of tasks per user;
    median CPU and memory per task and the median memory/CPU ratio (over jobs).
    """
    j = _jobs(workload)
    users, per_user_jobs = np.unique(j["user"], return_counts=True)
    per_user_tasks = np.bincount(np.searchsorted(users, j["user"]), weights=j["tasks"])
    q = np.quantile
    return {"users": int(users.size), "jobs": int(j["tasks"].size), "tasks": int(j["tasks"].sum()),
            "tasks_per_job_median": float(q(j["tasks"], 0.5)), "tasks_per_job_p90": float(q(j["tasks"], 0.9)),
            "tasks_per_job_max": int(j["tasks"].max()),
            "tasks_per_user_median": float(q(per_user_tasks, 0.5)),
            "tasks_per_user_p90": float(q(per_user_tasks, 0.9)),
            "share_of_tasks_top_10pct_users": float(np.sort(per_user_tasks)[::-1][:max(1, users.size // 10)].sum()
                                                    / per_user_tasks.sum()),
            "jobs_per_user_median": float(q(per_user_jobs, 0.5)),
            "cpu_median": float(q(j["cpu"], 0.5)), "memory_median": float(q(j["memory"], 0.5)),
            "memory_per_cpu_median": float(q(j["memory"] / j["cpu"], 0.5))}


#: Frozen fit to ``shared/data/google-2011-subset/task_events.csv`` (read with
#: ``read_google2011(path)``, the subset layout), to 6 significant digits, so that runs without the
#: data use the same values. Regenerate with ``fit_google_like(read_google2011(path)).rounded()``;
#: a test compares when the data is present.
SUBSET_FIT = GoogleLikeParams(
    user_sigma=1.55276, tail=0.488439, job_scale=0.229629, cpu_mu=-3.46343, cpu_sigma=1.30417,
    mem_ratio_mu=-0.543351, mem_ratio_sigma=1.15732, run_mu=5.70378, run_sigma=1.4, max_tasks_per_job=3879,
    source="fit to shared/data/google-2011-subset/task_events.csv (frozen copy, 6 significant digits)",
    fitted=("user_sigma", "tail", "job_scale", "max_tasks_per_job", "cpu_mu", "cpu_sigma", "mem_ratio_mu",
            "mem_ratio_sigma"),
    counts={"users": 240, "jobs": 1129, "tasks": 33284, "rows_used": 33284,
            "rows_dropped_zero_or_unknown_demand": 18, "jobs_with_mixed_demands": 1, "run_times_known": 0})
