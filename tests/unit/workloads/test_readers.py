"""Workload readers on real traces (skipped when absent) and on rows written here."""

import gzip

import numpy as np
import pytest

from fairalloc.errors import InvalidInstanceError
from fairalloc.sim import SimulationResult, simulate
from fairalloc.workloads import (SWFFormatError, Workload, lublin, read_alibaba, read_google2011,
                                 read_swf, write_swf)

SWF_TEXT = """; Version: 2.2
; MaxNodes: 8
; MaxProcs: 8
; Note: a tiny log written for this test
1 0 10 100 4 -1 -1 4 200 -1 1 3 1 -1 1 -1 -1 -1
2 5 -1 -1 -1 -1 -1 2 60 -1 5 4 1 -1 1 -1 -1 -1
3 7 0 30 2 -1 -1 2 -1 -1 0 3 1 -1 1 -1 -1 -1
"""


def test_swf_rows_written_here(tmp_path):
    p = tmp_path / "t.swf"
    p.write_text(SWF_TEXT)
    wl = read_swf(p)
    assert wl.meta["MaxProcs"] == 8 and wl.meta["MaxNodes"] == 8 and "tiny" in wl.meta["Note"]
    assert wl.job_id.tolist() == [1, 2, 3] and wl.user.tolist() == [3, 4, 3]
    assert np.array_equal(wl.run_time, [100, np.nan, 30], equal_nan=True)          # -1 -> missing
    assert wl.processors.tolist() == [4, 2, 2]           # job 2: allocated -1, requested 2 used
    assert np.array_equal(wl.requested_time, [200, 60, np.nan], equal_nan=True)
    assert wl.status.tolist() == [1, 5, 0]
    assert read_swf(p, status=1).job_id.tolist() == [1]
    assert read_swf(p, status=[0, 1]).meta["filtered_status"] == 1
    assert len(read_swf(p, drop_missing=True)) == 2
    g = tmp_path / "t.swf.gz"
    with gzip.open(g, "wt") as fh:
        fh.write(SWF_TEXT)
    assert read_swf(g).equals(read_swf(p).replace(meta=read_swf(g).meta))
    r = simulate(wl, policy="fcfs")                      # capacity from MaxProcs; run time unknown
    assert r.rejected["reason"].tolist() == ["run time unknown"]


@pytest.mark.parametrize("bad, why", [
    ("4 7 0 30 2 -1 -1 2 -1 -1 0 3 1 -1 1 -1 -1\n", "expected 18 fields, found 17"),
    ("4 7 0 thirty 2 -1 -1 2 -1 -1 0 3 1 -1 1 -1 -1 -1\n", r"field 4 \(run_time\) is not a number"),
    ("4 7 0 -30 2 -1 -1 2 -1 -1 0 3 1 -1 1 -1 -1 -1\n", "negative"),
])
def test_swf_malformed_line_raises_with_file_and_line_or_is_skipped(tmp_path, bad, why):
    p = tmp_path / "bad.swf"
    p.write_text(SWF_TEXT + bad + "5 9 0 1 1 -1 -1 1 5 -1 1 3 1 -1 1 -1 -1 -1\n")
    with pytest.raises(SWFFormatError, match=why) as e:
        read_swf(p)
    assert e.value.line == 8 and f"{p}:8:" in str(e.value)
    wl = read_swf(p, errors="skip")
    assert wl.job_id.tolist() == [1, 2, 3, 5]
    assert wl.meta["skipped_lines"] == 1 and wl.meta["skipped"][0]["line"] == 8


def test_write_swf_round_trip(tmp_path):
    wl = lublin(50, nodes=32, rng=3, n_users=4)
    back = read_swf(write_swf(wl, tmp_path / "l.swf"))
    for c in ["submit", "run_time", "processors", "requested_time", "user", "job_id"]:
        assert np.array_equal(getattr(back, c), getattr(wl, c))


def test_workload_parquet_round_trip(tmp_path):
    wl = Workload(submit=[0, 5.5], run_time=[1, np.nan], processors=[2, -1], user=[0, -1],
                  tasks=[1, 3], resources=[[0.5, 1], [np.nan, 2]], resource_names=["cpu", "mem"],
                  extra={"queue": np.array([1, 2]), "name": np.array(["a", "b"], dtype=object)},
                  meta={"source": "test", "MaxProcs": 8})
    back = Workload.read_parquet(wl.to_parquet(tmp_path / "w.parquet"))
    assert back.equals(wl) and back.meta == wl.meta


def test_simulation_result_parquet_round_trip(tmp_path):
    wl = lublin(200, nodes=32, rng=1, n_users=3)
    r = simulate(wl, 32, policy="buc+easy", enforce_walltime=True)
    back = SimulationResult.read_parquet(r.to_parquet(tmp_path / "out"))
    assert back.jobs.equals(r.jobs) and back.summary() == r.summary()
    assert (tmp_path / "out" / "users.parquet").exists()


def test_real_swf_traces(shared_data):
    kth = read_swf(shared_data / "swf" / "KTH-SP2-1996-2.1-cln.swf.gz")
    assert len(kth) == 27992 and kth.n_users == 212           # data/README.md
    assert kth.meta["MaxRecords"] == 28476 and kth.meta["MaxProcs"] == 100
    blue = read_swf(shared_data / "swf" / "SDSC-BLUE-2000-4.2-cln.swf.gz")
    assert len(blue) == 243306 and blue.n_users == 468
    assert int((blue.run_time > 0).sum()) == 232536                 # data/README.md: 232,536 > 0
    lub = read_swf(shared_data / "swf" / "lublin_256.swf")
    assert len(lub) == 10000 and lub.meta["MaxNodes"] == 256


GOOGLE_ROWS = """0,,1,0,,0,userA,3,9,0.125,0.07,0.0004,0
700000000,,1,0,m1,1,userA,3,9,0.125,0.07,0.0004,0
900000000,,1,0,m1,2,userA,3,9,0.125,0.07,0.0004,0
950000000,,1,0,,0,userA,3,9,0.125,0.07,0.0004,0
1000000000,,1,0,m2,1,userA,3,9,0.125,0.07,0.0004,0
1300000000,,1,0,m2,4,userA,3,9,0.125,0.07,0.0004,0
800000000,,2,0,,0,userB,1,0,0.5,0.25,0.001,1
810000000,,2,0,m3,1,userB,1,0,0.5,0.25,0.001,1
"""


def test_google2011_official_layout_rows_written_here(tmp_path):
    p = tmp_path / "part-00000-of-00500.csv"
    p.write_text(GOOGLE_ROWS)
    last = read_google2011(p)
    # job 1 task 0: attempt 0 = SUBMIT 0 s, SCHEDULE 700 s, EVICT 900 s; attempt 1 = SUBMIT 950 s,
    # SCHEDULE 1000 s, FINISH 1300 s -> last attempt run time 300 s. Job 2: still running (no end).
    assert last.job_id.tolist() == [2, 1]                     # ordered by submit: 800 s, 950 s
    assert np.array_equal(last.submit, [800, 950])
    assert np.array_equal(last.run_time, [np.nan, 300], equal_nan=True)
    assert last.status.tolist() == [-1, 4]
    assert last.resources.tolist() == [[0.5, 0.25], [0.125, 0.07]]
    assert last.meta["user_names"] == ["userB", "userA"] and last.user.tolist() == [0, 1]
    every = read_google2011(p, attempts="all")
    assert len(every) == 3 and sorted(every.extra["attempt"].tolist()) == [0, 0, 1]
    first = every.take(every.submit == 0)
    assert first.run_time.tolist() == [200] and first.status.tolist() == [2]   # EVICT


def test_google2011_subset_layout(tmp_path, shared_data):
    p = tmp_path / "sub.csv"
    p.write_text("0;7;0;uA;2;10;2506186271862;-1;0.04;0.003\n0;7;1;uB;2;10;1000000000;900000000;0.5;0.1\n")
    wl = read_google2011(p)
    assert "column 6" in wl.meta["assumption"] and np.isnan(wl.run_time).all()
    assert wl.extra["end_time"].tolist() == [2506186.271862, 1000.0]
    assert np.array_equal(wl.extra["time2"], [np.nan, 900.0], equal_nan=True)
    assert read_google2011(p, duration="end").run_time.tolist() == [2506186.271862 - 600, 400.0]
    real = read_google2011(shared_data / "google-2011-subset" / "task_events.csv")
    assert len(real) == 33302 and real.n_users == 245 and len(np.unique(real.job_id)) == 1145
    bad = tmp_path / "bad.csv"
    bad.write_text("a|b|c\n")
    with pytest.raises(InvalidInstanceError, match="bad.csv:1"):
        read_google2011(bad)


def test_alibaba_2017_and_2018_rows_written_here(tmp_path, shared_data):
    p17 = tmp_path / "b17.csv"
    p17.write_text("task_create_time,task_end_time,job_id,task_id,number_of_instances,status,cpu,mem\n"
                   "100,160,3,4,5,Terminated,50,0.0079\n"
                   "90,0,3,5,1,Waiting,,\n"
                   "120,130,8,1,0,Failed,100,0.01\n")
    wl = read_alibaba(p17, version=2017)
    assert wl.submit.tolist() == [90, 100] and wl.tasks.tolist() == [1, 5]
    assert np.array_equal(wl.run_time, [np.nan, 60], equal_nan=True)
    assert np.array_equal(wl.resources, [[np.nan, np.nan], [0.5, 0.0079]], equal_nan=True)
    assert wl.status.tolist() == [2, 1] and wl.meta["dropped_zero_instances"] == 1
    assert wl.user.tolist() == [0, 0]                         # one user per job: both rows job 3
    p18 = tmp_path / "b18.csv"
    p18.write_text("M1,10,j_1,1,Terminated,100,160,50,0.39\n"
                   "R2_1,3,j_1,1,Terminated,170,200,100,0.59\n"
                   "M1,2,j_7,1,Running,150,0,200,1.2\n")
    w18 = read_alibaba(p18, version=2018, users=2, rng=0)
    assert w18.job_id.tolist() == [1, 7, 1] and w18.tasks.tolist() == [10, 2, 3]
    assert np.array_equal(w18.run_time, [60, np.nan, 30], equal_nan=True)
    assert w18.resources[:, 0].tolist() == [0.5, 2.0, 1.0]
    assert w18.extra["task_name"].tolist() == ["M1", "M1", "R2_1"]
    assert set(w18.user.tolist()) <= {0, 1} and w18.user[0] == w18.user[2]
    with pytest.raises(InvalidInstanceError, match="version"):
        read_alibaba(p18, version=2019)
    real = read_alibaba(shared_data / "alibaba-2017" / "batch_task.csv")
    m = real.meta
    assert len(real) + m["dropped_zero_instances"] + m["dropped_missing_time"] == 80553
    assert len(np.unique(real.job_id)) <= 12951
