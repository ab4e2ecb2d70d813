"""Training states (fairalloc.experiments.learn.states): the windows, their invariants, bad input."""

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.errors import InvalidInstanceError
from fairalloc.experiments.learn import States, training_states


def _trace(n, *, procs=None, run=None, req=None):
    sub = np.arange(n, dtype=float) * 100.0
    return fa.workloads.Workload(submit=sub, run_time=np.arange(1, n + 1, dtype=float) if run is None else run,
                                 processors=np.ones(n, int) if procs is None else procs, requested_time=req,
                                 job_id=np.arange(1, n + 1))


def test_windows_are_consecutive_disjoint_jobs_of_the_trace():
    wl = _trace(100)                 # job k (id k + 1): submitted at 100 k, runs k + 1 seconds
    st = training_states(5, workload=wl, processors=4, started=3, queued=7, rng=2)
    assert st.run_time.shape == (5, 10) and st.started == 3 and st.queued == 7
    first = st.run_time[:, 0].astype(int) - 1                   # trace row of each window's first job
    assert st.meta["window_start"] == first.tolist() and st.meta["job_id"] == (first + 1).tolist()
    np.testing.assert_array_equal(st.run_time, first[:, None] + 1 + np.arange(10))   # consecutive rows
    assert (np.diff(first) >= 10).all()                                                # disjoint
    np.testing.assert_array_equal(st.submit, np.tile(np.arange(10) * 100.0, (5, 1)))  # relative to the window
    np.testing.assert_array_equal(st.estimate, st.run_time)     # no requested times: the run times


def test_every_placement_can_be_drawn():
    # 2 windows of 2 jobs in 5 rows: starts (0,2) (0,3) (1,3): three placements, each reachable
    seen = {tuple(training_states(2, workload=_trace(5), processors=1, started=0, queued=2, rng=s).meta["window_start"])
            for s in range(40)}
    assert seen == {(0, 2), (0, 3), (1, 3)}


def test_unknown_jobs_are_dropped_and_counted_and_estimates_come_from_requests():
    run = np.arange(1, 13, dtype=float)
    run[[2, 5]] = np.nan
    procs = np.ones(12, int)
    procs[7] = -1
    req = np.full(12, np.nan)
    req[0] = 500.0
    wl = _trace(12, procs=procs, run=run, req=req)
    st = training_states(1, workload=wl, processors=2, started=1, queued=8, rng=0)
    assert st.meta["dropped"] == {"unknown_run_time": 2, "unknown_processors": 1}
    assert len(st) == 1 and not np.isnan(st.run_time).any()
    assert st.estimate[0, 0] == 500.0 and st.estimate[0, 1] == st.run_time[0, 1]


def test_lublin_states_of_the_paper_shape_are_seeded():
    a = training_states(3, rng=4)
    b = training_states(3, rng=4)
    assert a.run_time.shape == (3, 48) and a.capacity == 256
    assert (a.run_time == b.run_time).all() and (a.processors == b.processors).all()
    assert (a.processors <= 256).all() and (a.submit[:, 0] == 0).all()
    assert a.meta["workload"]["model"] == "lublin" and a.meta["seed"] == 4


def test_bad_input_names_the_argument():
    with pytest.raises(InvalidInstanceError, match="queued=1"):
        training_states(2, queued=1)
    with pytest.raises(InvalidInstanceError, match="queued=0"):
        training_states(2, queued=0)
    with pytest.raises(InvalidInstanceError, match="n_states=0"):
        training_states(0)
    with pytest.raises(InvalidInstanceError, match="processors=0"):
        training_states(2, processors=0)
    wide = _trace(20, procs=np.r_[np.ones(10, int), 9, np.ones(9, int)])
    with pytest.raises(InvalidInstanceError, match=r"job 11 \(processors=9\) is wider than the cluster \(processors=8\)"):
        training_states(1, workload=wide, processors=8, started=2, queued=2)
    no_runs = _trace(10, run=np.full(10, np.nan))
    with pytest.raises(InvalidInstanceError, match="no run times") as e:
        training_states(1, workload=no_runs, processors=2, started=2, queued=2)
    assert e.value.argument == "workload.run_time"
    with pytest.raises(InvalidInstanceError, match="at most 2 states"):
        training_states(3, workload=_trace(9), processors=2, started=2, queued=2)
    with pytest.raises(InvalidInstanceError, match="must be 'lublin' or a Workload"):
        training_states(1, workload="google")
    with pytest.raises(InvalidInstanceError, match="queue of 1"):
        States(run_time=[[1, 2, 3]], processors=[[1, 1, 1]], submit=[[0, 0, 0]], capacity=2, started=2)
    with pytest.raises(InvalidInstanceError, match=r"submit\[0, 1\]=-1.0"):
        States(run_time=[[1, 2]], processors=[[1, 1]], submit=[[0, -1]], capacity=2, started=0)


def test_parquet_round_trip(tmp_path):
    st = training_states(2, started=2, queued=3, processors=32, rng=9)
    back = States.read_parquet(st.to_parquet(tmp_path / "s.parquet"))
    for name in ("run_time", "processors", "submit", "estimate"):
        np.testing.assert_array_equal(getattr(back, name), getattr(st, name))
    assert (back.capacity, back.started, back.meta) == (st.capacity, st.started, st.meta)
    with pytest.raises(FileNotFoundError):
        States.read_parquet(tmp_path / "none.parquet")
