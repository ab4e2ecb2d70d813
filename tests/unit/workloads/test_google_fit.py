"""fit_google_like: parameters recovered from workloads drawn with known ones; the Google subset fit.

Tolerances: each is about 5 standard deviations of the estimate, measured over 12 independent draws
(seeds 100..111) of the workload below (1000 users, 2*10^5 tasks, about 13,400 jobs). Measured sd:
user_sigma 0.025, tail 0.016, job_scale 0.053, cpu_mu 0.008, cpu_sigma 0.004, mem_ratio_mu 0.005,
mem_ratio_sigma 0.005, run_mu 0.007, run_sigma 0.008, gap CV 0.005. For the lognormal fields this
agrees with the textbook standard errors (sigma / sqrt(n), sigma / sqrt(2 n)), e.g. cpu_mu:
0.8 / sqrt(13400) = 0.007. The test uses other seeds than the measurement.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairalloc.errors import InvalidInstanceError
from fairalloc.workloads import GoogleLikeParams, Workload, fit_google_like, google_like, read_google2011
from fairalloc.workloads.google_fit import DEFAULT_PARAMS, SUBSET_FIT, trace_statistics

TRUE = GoogleLikeParams(user_sigma=1.2, tail=0.8, job_scale=2.0, max_tasks_per_job=500, cpu_mu=-3.0,
                        cpu_sigma=0.8, mem_ratio_mu=-0.3, mem_ratio_sigma=0.7, run_mu=6.0, run_sigma=1.1)
TOL = {"user_sigma": 0.13, "tail": 0.08, "job_scale": 0.27, "cpu_mu": 0.04, "cpu_sigma": 0.02,
       "mem_ratio_mu": 0.025, "mem_ratio_sigma": 0.025, "run_mu": 0.04, "run_sigma": 0.04}


@pytest.mark.parametrize("seed", [7, 8])
def test_known_parameters_are_recovered(seed):
    wl = google_like(1000, 200_000, params=TRUE, rng=seed, horizon=1e6)
    fit = fit_google_like(wl)
    for name, tol in TOL.items():
        assert abs(getattr(fit, name) - getattr(TRUE, name)) <= tol, (name, getattr(fit, name))
    # arrivals: uniform submissions given the count = a Poisson process: gap CV 1, rate jobs / horizon
    assert abs(fit.interarrival_cv - 1.0) <= 0.03
    assert fit.jobs_per_second == pytest.approx(len(wl) / 1e6, rel=0.01)
    # the truncation point's MLE is the largest job seen: at most the true one, and close to it
    assert 450 <= fit.max_tasks_per_job <= 500
    assert set(fit.fitted) >= set(TOL)


def test_task_rows_of_one_job_are_grouped():
    # a trace gives one row per task: 3 rows of job 7 (user 0) and 1 row of job 9 (user 1) are
    # 2 jobs of 3 and 1 tasks; a zero-demand row is dropped and counted
    wl = Workload(submit=[0, 0, 0, 5, 5], run_time=[10, 20, 40, 10, 10], job_id=[7, 7, 7, 9, 9],
                  user=[0, 0, 0, 1, 1], resources=[[0.1, 0.2]] * 3 + [[0.2, 0.1], [0.0, 0.0]],
                  resource_names=("cpu", "memory"))
    stats = trace_statistics(wl)
    assert (stats["jobs"], stats["tasks"], stats["tasks_per_job_max"]) == (2, 4, 3)
    fit = fit_google_like(wl)
    assert fit.counts["rows_dropped_zero_or_unknown_demand"] == 1
    # memory / CPU: 2 for job 7 and 0.5 for job 9: log-mean 0, log-sd log 2 (by hand)
    assert fit.mem_ratio_mu == pytest.approx(0.0, abs=1e-12)
    assert fit.mem_ratio_sigma == pytest.approx(math.log(2.0))
    # run times of the 4 tasks with a demand: 10, 20, 40, 10 s; their log-mean by hand
    assert fit.run_mu == pytest.approx(np.mean(np.log([10, 20, 40, 10])))


def test_default_params_leave_google_like_unchanged():
    # the draws without params are the illustrative shapes as before this change: same arrays
    a = google_like(60, 5000, rng=3)
    b = google_like(60, 5000, rng=3, params=None)
    assert np.array_equal(a.resources, b.resources) and np.array_equal(a.tasks, b.tasks)
    assert (DEFAULT_PARAMS.user_sigma, DEFAULT_PARAMS.tail, DEFAULT_PARAMS.cpu_sigma) == (2.0, 1.3, 0.9)
    assert "params" not in a.meta


def test_params_are_recorded_and_checked():
    wl = google_like(40, 3000, params=SUBSET_FIT, rng=0)
    assert wl.meta["params"]["source"].startswith("fit to shared/data")
    assert wl.tasks.max() <= SUBSET_FIT.max_tasks_per_job
    assert GoogleLikeParams.from_dict(SUBSET_FIT.to_dict()) == SUBSET_FIT
    with pytest.raises(InvalidInstanceError, match="user_sigma"):
        google_like(40, 3000, params=SUBSET_FIT, user_sigma=1.0)
    with pytest.raises(InvalidInstanceError, match="cpu_sigma"):
        GoogleLikeParams(cpu_sigma=float("nan"))
    with pytest.raises(InvalidInstanceError, match="max_tasks_per_job"):
        GoogleLikeParams(max_tasks_per_job=0)
    with pytest.raises(InvalidInstanceError, match="unknown GoogleLikeParams keys"):
        GoogleLikeParams.from_dict({"sigma": 1.0})


def test_workload_without_cpu_memory_is_refused():
    wl = Workload(submit=[0], run_time=[1], resources=[[1.0]], resource_names=("gpu",))
    with pytest.raises(InvalidInstanceError, match="cpu"):
        fit_google_like(wl)


def test_google_subset_fit_matches_the_frozen_copy(shared_data):
    wl = read_google2011(shared_data / "google-2011-subset" / "task_events.csv")
    fit = fit_google_like(wl)
    for name in ("user_sigma", "tail", "job_scale", "cpu_mu", "cpu_sigma", "mem_ratio_mu", "mem_ratio_sigma"):
        assert getattr(fit, name) == pytest.approx(getattr(SUBSET_FIT, name), rel=1e-5), name
        # what the reproductions use: the fit to 6 significant digits, equal to the frozen copy
        assert getattr(fit.rounded(), name) == getattr(SUBSET_FIT, name), name
    assert fit.max_tasks_per_job == SUBSET_FIT.max_tasks_per_job == 3879
    assert fit.counts == SUBSET_FIT.counts
    # the subset has no submission times and no run times: those are not fitted, and say so
    assert "run_mu" not in fit.fitted and fit.jobs_per_second is None
    # direct figures of the file (by pandas, independent of the fit): medians of the job demands
    import pandas as pd

    df = pd.read_csv(shared_data / "google-2011-subset" / "task_events.csv", sep=";", header=None)
    df = df[(df[8] > 0) & (df[9] > 0)].groupby(1).first()
    assert fit.cpu_mu == pytest.approx(np.log(df[8]).mean())
    assert fit.mem_ratio_mu == pytest.approx(np.log(df[9] / df[8]).mean())
