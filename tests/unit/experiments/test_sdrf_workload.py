"""The SDRF reproductions' workload: google_like with the parameters fitted to the Google 2011 subset,
fitted in the run when the data is found, else the frozen copy; the same workload either way."""

import numpy as np
import pytest

from fairalloc.errors import InvalidInstanceError
from fairalloc.experiments.reproductions import sdrf
from fairalloc.workloads.google_fit import SUBSET_FIT


def test_frozen_copy_when_the_data_is_absent(monkeypatch):
    monkeypatch.setattr("fairalloc.experiments.reproductions.tvtsf.data_dir", lambda: None)
    wl = sdrf.workload(n_users=50, n_tasks=3000, params="subset")
    assert wl.meta["params"]["source"] == SUBSET_FIT.source
    assert "frozen copy" in wl.meta["params"]["source"]


def test_fitted_in_the_run_gives_the_frozen_workload(shared_data):
    fitted = sdrf.workload(n_users=50, n_tasks=3000, params="subset")
    frozen = sdrf.workload(n_users=50, n_tasks=3000, params="frozen")
    assert "fitted in this run" in fitted.meta["params"]["source"]
    assert np.array_equal(fitted.resources, frozen.resources) and np.array_equal(fitted.tasks, frozen.tasks)
    assert np.array_equal(fitted.user, frozen.user) and np.array_equal(fitted.run_time, frozen.run_time)


def test_illustrative_is_the_unfitted_generator_and_a_wrong_name_is_refused():
    wl = sdrf.workload(n_users=50, n_tasks=3000)
    assert "params" not in wl.meta
    with pytest.raises(InvalidInstanceError, match="params"):
        sdrf.workload(params="fitted")
