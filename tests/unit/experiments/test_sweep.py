"""Sweeps: a cell equals a direct fa.simulate call, failures are recorded while the others finish,
a real LocalCluster gives the same rows as the in-process runner, the store and its DuckDB views."""

from __future__ import annotations

import json
import os
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

import fairalloc as fa
from fairalloc.experiments import Spec, load, run_sweep
from fairalloc.experiments.store import Store

RIGID = {
    "name": "rigid",
    "workload": {"generator": "lublin", "n_jobs": 150, "nodes": 32, "rng": "${seed}"},
    "capacity": {"processors": 32},
    "policies": {"fcfs": {}, "easy": {}, "buc": {"k_p": [600.0, 10800.0]}},
    "seeds": [0, 1],
    "tables": ["summary", "users", "jobs"],
}

# a cell function the workers import (the test puts its folder on sys.path, which spawned
# Dask workers inherit): it fails for seed 1 and returns a small table otherwise
CELLS_MODULE = textwrap.dedent('''
    import pandas as pd

    def flaky(workload, params):
        if params["seed"] == 1:
            raise RuntimeError("seed 1 is cursed")
        return {"result": pd.DataFrame({"x": [params["grid"]["x"]] * 2, "part": [0, 1],
                                        "jobs": [len(workload)] * 2})}

    def hangs(workload, params):
        """Seed 1 never returns: in Python (sleep) for x = 1.5, in C holding the GIL for x = 2.5."""
        if params["seed"] == 1:
            if params["grid"].get("x", 1.5) == 1.5:
                import time
                time.sleep(3600)
            import collections, itertools
            collections.deque(itertools.repeat(None), maxlen=0)
        return {"result": pd.DataFrame({"seed": [params["seed"]]})}

    def odd_tables(workload, params):
        if params["seed"] == 0:     # a named index is data; an unnamed one is dropped
            return {"t": pd.DataFrame({"v": [1.0, 2.0]}, index=pd.Index([7, 9], name="user"))}
        return {"t": pd.DataFrame({"v": [object(), 1]})}     # Parquet cannot hold this column
''')

FLAKY = {
    "name": "flaky",
    "run": "sweep_test_cells:flaky",
    "workload": {"generator": "lublin", "n_jobs": 20, "nodes": 8, "rng": 0},
    "grid": {"x": [1.5, 2.5]},
    "seeds": [0, 1, 2],
}


def _later(path) -> None:
    """Date an edited source 2 s later, as an edit by hand would be. Python's bytecode cache (``__pycache__``,
    written unless ``PYTHONDONTWRITEBYTECODE`` is set) is checked against the source's mtime in whole seconds
    and its size: an edit of the same size within the second of the first import would otherwise run the old
    bytecode in a new process."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))


@pytest.fixture
def cells_module(tmp_path, monkeypatch):
    d = tmp_path / "mods"
    d.mkdir()
    (d / "sweep_test_cells.py").write_text(CELLS_MODULE)
    monkeypatch.syspath_prepend(str(d))
    monkeypatch.delitem(sys.modules, "sweep_test_cells", raising=False)    # this test's module, not an earlier one's
    return d


def test_cells_equal_direct_simulate_calls(tmp_path):
    summary = run_sweep(RIGID, tmp_path / "s", workers=0, progress=False)
    assert summary.ok and summary.done == 8 and summary.skipped == 0 and not summary.failed
    got = load(tmp_path / "s", "summary").df()
    jobs = load(tmp_path / "s", "jobs").df()
    for seed in (0, 1):
        wl = fa.workloads.lublin(150, nodes=32, rng=seed)
        for label, opts in (("fcfs", {}), ("easy", {}), ("buc", {"k_p": 600.0}), ("buc", {"k_p": 10800.0})):
            direct = fa.simulate(wl, 32, policy=label, **opts)
            sel = (got["label"] == label) & (got["seed"] == seed)
            jsel = (jobs["label"] == label) & (jobs["seed"] == seed)
            if opts:
                sel &= got["k_p"] == opts["k_p"]
                jsel &= jobs["k_p"] == opts["k_p"]
            row = got[sel]
            assert len(row) == 1
            want = direct.summary()
            for col in ("jobs", "finished", "mean_wait", "avebsld", "makespan", "utilization"):
                assert row[col].iloc[0] == pytest.approx(want[col], rel=1e-12), (label, seed, col)
            assert row["policy_name"].iloc[0] == want["policy"]
            mine = jobs[jsel].reset_index(drop=True)[list(direct.jobs.columns)]
            pd.testing.assert_frame_equal(mine, direct.jobs.reset_index(drop=True), check_dtype=False)
    users = load(tmp_path / "s", "users").df()
    assert set(users.columns) >= {"key", "label", "seed", "user", "mean_wait"}


def test_task_cell_equals_direct_simulate(tmp_path):
    spec = {"name": "tasks", "workload": {"generator": "google_like", "n_users": 6, "n_tasks": 300,
                                          "horizon": 600.0, "rng": "${seed}"},
            "capacity": {"pool": 0.6}, "policies": {"sdrf": {"delta": 0.99}}, "seeds": [2],
            "tables": ["summary", "users"]}
    run_sweep(spec, tmp_path / "t", workers=0, progress=False)
    wl = fa.workloads.google_like(6, 300, horizon=600.0, rng=2)
    direct = fa.simulate(wl, fa.sim.ResourcePool.from_workload(wl, 0.6), policy="sdrf", delta=0.99)
    row = load(tmp_path / "t", "summary").df().iloc[0]
    for col, want in direct.task_summary().items():
        if col != "policy":
            assert row[col] == pytest.approx(want, rel=1e-12, nan_ok=True), col
    users = load(tmp_path / "t", "users").df().drop(columns=["key", "label", "policy", "seed", "delta"])
    pd.testing.assert_frame_equal(users, direct.task_users().reset_index(drop=True), check_dtype=False)


def test_failing_cell_recorded_others_finish_and_rerun(tmp_path, cells_module):
    out = tmp_path / "f"
    s = run_sweep(FLAKY, out, workers=0, progress=False)
    assert (s.done, s.skipped, len(s.failed)) == (4, 0, 2) and not s.ok
    assert all(f["seed"] == 1 and "RuntimeError: seed 1 is cursed" in f["error"] for f in s.failed)
    cells = load(out, "cells").df()
    assert cells["status"].tolist() == ["done", "done", "failed", "failed", "done", "done"]
    assert cells.loc[cells["status"] == "failed", "error"].str.contains("cursed").all()
    rec = json.loads((out / "cells" / f"{s.failed[0]['key']}.json").read_text())
    assert "Traceback" in rec["traceback"] and "cursed" in rec["traceback"]
    res = load(out, "result").df()
    assert len(res) == 8 and set(res["seed"]) == {0, 2}
    assert res[["x", "part", "jobs"]].values.tolist()[:2] == [[1.5, 0, 20], [1.5, 1, 20]]
    # a restart skips what is done and tries the failed cells again
    again = run_sweep(FLAKY, out, workers=0, progress=False)
    assert (again.done, again.skipped, len(again.failed)) == (0, 4, 2)


def test_local_cluster_same_rows_workload_built_once_per_worker(tmp_path, cells_module):
    distributed = pytest.importorskip("distributed")
    run_sweep(RIGID, tmp_path / "inproc", workers=0, progress=False)
    seen = []
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, distributed.Client(cluster) as client:
        s = run_sweep(RIGID, tmp_path / "dask", scheduler=client, progress=lambda c, o: seen.append(c.key))
        f = run_sweep(FLAKY, tmp_path / "flaky", scheduler=cluster.scheduler_address, progress=False)
        # a cell that never returns (in Python, and in C holding the GIL) is stopped at the time limit
        # (3 s: the limit is the behaviour under test; the other cells take milliseconds once the cell
        # process has started, which is not counted) and the worker goes on with the next cells
        h = run_sweep(dict(FLAKY, name="hang", run="sweep_test_cells:hangs", time_limit=3), tmp_path / "hang",
                      scheduler=client, progress=False)
        assert client.status == "running"          # a client we passed is left open
    assert cluster.status.name == "closed"
    assert s.ok and s.done == 8 and len(seen) == 8
    assert (f.done, len(f.failed)) == (4, 2) and all("cursed" in x["error"] for x in f.failed)
    for table in ("summary", "users", "jobs"):
        pd.testing.assert_frame_equal(load(tmp_path / "dask", table).df(), load(tmp_path / "inproc", table).df())
    cells = load(tmp_path / "dask", "cells").df()
    assert cells["worker"].nunique() <= 2
    # each (workload, worker) pair builds its workload at most once: the later cells hit the cache
    built = cells[cells["load_s"] > 0].groupby(["seed", "worker"]).size()
    assert (built <= 1).all(), built
    assert (h.done, len(h.timed_out), h.failed) == (4, 2, [])
    assert all(t["seed"] == 1 and t["error"].startswith("time limit of 3 s reached") for t in h.timed_out)
    hung = load(tmp_path / "hang", "cells").df()
    assert sorted(hung.loc[hung["status"] == "timeout", "seed"]) == [1, 1]


def test_store_partial_cell_invisible_and_rewritten(tmp_path):
    out = tmp_path / "p"
    spec = Spec.from_dict(RIGID)
    cells = spec.cells()
    run_sweep(spec, out, workers=0, progress=False)
    full = load(out, "summary").df()
    # a process killed between a cell's table files and its record: table file present, no record
    victim = cells[3]
    (out / "cells" / f"{victim.key}.json").unlink()
    bogus = full[full["key"] == victim.key].assign(mean_wait=-1.0)
    bogus.to_parquet(out / "tables" / "summary" / f"{victim.key}.parquet", index=False)
    assert victim.key not in set(load(out, "summary").df()["key"])
    assert load(out, "cells").df().set_index("key").loc[victim.key, "status"] == "pending"
    s = run_sweep(spec, out, workers=0, progress=False)
    assert (s.done, s.skipped) == (1, 7)
    pd.testing.assert_frame_equal(load(out, "summary").df(), full)
    assert not list(out.rglob("*.tmp"))


def test_duckdb_query_and_errors(tmp_path):
    out = tmp_path / "q"
    run_sweep(RIGID, out, workers=0, progress=False)
    q = load(out, sql="SELECT label, k_p, count(*) AS n, avg(mean_wait) AS w FROM summary "
                      "GROUP BY label, k_p ORDER BY label, k_p").df()
    direct = {}
    for label, opts in (("buc", {"k_p": 600.0}), ("buc", {"k_p": 10800.0}), ("easy", {}), ("fcfs", {})):
        direct[(label, opts.get("k_p"))] = np.mean([
            fa.simulate(fa.workloads.lublin(150, nodes=32, rng=seed), 32, policy=label, **opts).summary()["mean_wait"]
            for seed in (0, 1)])
    assert q["n"].tolist() == [2, 2, 2, 2]
    for _, r in q.iterrows():
        kp = None if pd.isna(r["k_p"]) else r["k_p"]
        assert r["w"] == pytest.approx(direct[(r["label"], kp)], rel=1e-12)
    # the jobs table joined with the cells table
    n = load(out, sql="SELECT count(*) FROM jobs JOIN cells USING (key) WHERE cells.status = 'done'").fetchall()[0][0]
    assert n == 8 * 150
    with pytest.raises(fa.InvalidInstanceError, match="tables: cells, jobs, summary, users") as info:
        load(out, "nosuch")
    assert info.value.argument == "table"
    with pytest.raises(fa.InvalidInstanceError, match="nosuch_column") as info:
        load(out, sql="SELECT nosuch_column FROM summary")
    assert info.value.argument == "sql"


def test_out_folder_checks(tmp_path):
    out = tmp_path / "o"
    run_sweep(RIGID, out, workers=0, progress=False)
    with pytest.raises(fa.InvalidInstanceError, match="holds the sweep 'rigid', not 'other'") as info:
        run_sweep(dict(RIGID, name="other"), out, workers=0, progress=False)
    assert info.value.argument == "out"
    # the same spec grown by a seed: the 8 cells done are kept, 4 run; readers see the new spec's cells
    more = run_sweep(dict(RIGID, seeds=[0, 1, 2]), out, workers=0, progress=False)
    assert (more.done, more.skipped, more.spec_changed) == (4, 8, ["seeds"])
    assert "the spec changed since the last run (at seeds)" in str(more)
    assert sorted(set(load(out, "summary").df()["seed"])) == [0, 1, 2]
    fewer = run_sweep(dict(RIGID, seeds=[1]), out, workers=0, progress=False)
    assert (fewer.done, fewer.skipped) == (0, 4)
    assert set(load(out, "summary").df()["seed"]) == {1} and len(load(out, "cells").df()) == 4
    run_sweep(RIGID, out, workers=0, progress=False)
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "x.txt").write_text("mine")
    with pytest.raises(fa.InvalidInstanceError, match="not a sweep folder"):
        run_sweep(RIGID, junk, workers=0, progress=False)
    with pytest.raises(fa.InvalidInstanceError, match="not both"):
        run_sweep(RIGID, out, workers=2, scheduler="tcp://127.0.0.1:1")
    with pytest.raises(fa.InvalidInstanceError, match="workers=-1"):
        run_sweep(RIGID, out, workers=-1)
    assert Store(out).table_names() == ["jobs", "summary", "users"]
    # a second sweep into a folder another one is writing is refused (flock on OUT/.lock)
    busy = Store(out)
    busy.open(Spec.from_dict(RIGID), Spec.from_dict(RIGID).cells())
    try:
        with pytest.raises(fa.InvalidInstanceError, match="being written by another running sweep"):
            run_sweep(RIGID, out, workers=0, progress=False)
    finally:
        busy.close()
    assert run_sweep(RIGID, out, workers=0, progress=False).skipped == 8


def test_unreachable_scheduler_is_a_clear_error(tmp_path):
    dask = pytest.importorskip("dask")
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        with pytest.raises(fa.InvalidInstanceError, match="cannot reach a Dask scheduler") as info:
            run_sweep(RIGID, tmp_path / "u", scheduler="tcp://127.0.0.1:9", progress=False)
    assert info.value.argument == "scheduler"


def test_table_parquet_cannot_hold_fails_its_cell_only(tmp_path, cells_module):
    spec = {"name": "odd", "run": "sweep_test_cells:odd_tables", "seeds": 2}
    s = run_sweep(spec, tmp_path / "odd", workers=0, progress=False)
    assert s.done == 1 and len(s.failed) == 1 and s.failed[0]["seed"] == 1
    assert "ArrowInvalid" in s.failed[0]["error"] or "ArrowTypeError" in s.failed[0]["error"]
    t = load(tmp_path / "odd", "t").df()
    assert t[["user", "v"]].values.tolist() == [[7, 1.0], [9, 2.0]]


def test_time_limit_stops_a_cell_that_never_returns_here(tmp_path, cells_module):
    """workers=0 with a time limit: the cells run in a child process of this one, which is stopped at
    the limit (3 s here); the cell is recorded as timeout, not failed."""
    spec = {"name": "hang", "run": "sweep_test_cells:hangs", "seeds": 3}
    s = run_sweep(spec, tmp_path / "h", workers=0, progress=False, time_limit=3)
    assert (s.done, s.failed, [t["seed"] for t in s.timed_out], s.time_limit) == (2, [], [1], 3.0)
    assert "1 timed out" in str(s) and "time limit of 3 s reached: the cell was stopped" in str(s)
    cells = load(tmp_path / "h", "cells").df().set_index("seed")
    assert cells.loc[1, "status"] == "timeout" and cells.loc[0, "status"] == "done"
    with pytest.raises(fa.InvalidInstanceError, match="time_limit=0"):
        run_sweep(spec, tmp_path / "h", workers=0, time_limit=0)


def test_cluster_loss_is_told_from_a_failed_cell():
    """A cancelled future (the scheduler gone: distributed's FutureCancelledError with reason
    scheduler-connection-lost) is a lost cluster; a KilledWorker (the cell's process died each time it
    ran it) and the cell's own exception are failures of the cell."""
    distributed = pytest.importorskip("distributed")
    from distributed.client import FutureCancelledError

    from fairalloc.experiments.runner import SweepSummary, _is_cluster_loss, _record_loss

    class Client:
        status = "running"

    lost = FutureCancelledError("cell-x", "scheduler-connection-lost", "Client lost the connection")
    assert _is_cluster_loss(lost, Client())
    killed = distributed.KilledWorker.__new__(distributed.KilledWorker)    # its arguments vary by version
    assert not _is_cluster_loss(killed, Client())
    assert not _is_cluster_loss(RuntimeError("the cell's own error"), Client())
    cells = Spec.from_dict(FLAKY).cells()
    written = []
    summary = SweepSummary("flaky", None, total=len(cells))
    _record_loss(lost, cells[0], {"k": (None, cells[1])}, iter(cells[2:]), lambda c, o: written.append(o), summary)
    assert [o["status"] for o in written] == ["lost", "lost"] and summary.not_started == len(cells) - 2
    assert summary.cluster_lost == "scheduler-connection-lost: Client lost the connection"
    assert "the Dask cluster was lost (scheduler-connection-lost" in str(summary) and not summary.ok


def test_a_script_without_main_guard_is_told_so(tmp_path):
    """Issue 32: run_sweep(..., workers=2) saved as a script without `if __name__ == "__main__":`
    crashed with "Nanny failed to start" and then "being written by another running sweep"."""
    import subprocess
    import sys

    spec = {"name": "guard", "workload": {"generator": "lublin", "n_jobs": 10, "nodes": 8, "rng": 0},
            "capacity": {"processors": 8}, "policies": ["fcfs"]}
    script = tmp_path / "my_sweep.py"
    script.write_text("from fairalloc.experiments import run_sweep\n"
                      f"run_sweep({spec!r}, {str(tmp_path / 'out')!r}, workers=2, progress=False)\n")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    assert proc.returncode != 0
    assert (f"called at the top level of {script} (line 2) without an `if __name__ == \"__main__\":` guard"
            in proc.stderr), proc.stderr
    # refused before anything started: one traceback (the script's own), no worker's, no lock message
    assert proc.stderr.count("Traceback") == 1 and "another running sweep" not in proc.stderr
    assert not (tmp_path / "out").exists()


def test_keys_follow_the_code_and_a_rerun_says_it_recomputes(tmp_path, cells_module):
    """Issue 32: a cell's key hashed the version string, so a fixed bug gave the old cells back. The
    key now hashes the code that runs (here the cell function's module, edited on disk): a new process
    recomputes every cell and says why; this process, which still runs the module it imported, warns
    and keeps its keys (they are the keys of the code it runs)."""
    import subprocess
    import sys

    from fairalloc.experiments.fingerprint import StaleCodeWarning

    spec = dict(FLAKY, seeds=[0, 2])
    out = tmp_path / "c"
    first = run_sweep(spec, out, workers=0, progress=False)
    keys = set(load(out, "cells").df()["key"])
    again = run_sweep(spec, out, workers=0, progress=False)
    assert (first.done, again.skipped, again.code_changed) == (4, 4, None)
    assert "4 cells reused: done earlier with the same parameters and code" in str(again)
    mod = cells_module / "sweep_test_cells.py"
    mod.write_text(mod.read_text().replace('"part": [0, 1]', '"part": [0, 7]'))   # the "fix"
    _later(mod)
    with pytest.warns(StaleCodeWarning, match="the source of sweep_test_cells changed after this process loaded"):
        stale = run_sweep(spec, out, workers=0, progress=False)
    assert (stale.done, stale.skipped) == (0, 4)
    code = (f"import sys; sys.path.insert(0, {str(cells_module)!r})\n"
            "from fairalloc.experiments import run_sweep\n"
            f"print(run_sweep({spec!r}, {str(out)!r}, workers=0, progress=False))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "4 cells: 4 done, 0 skipped" in proc.stdout and "the code changed since the last run" in proc.stdout
    assert "4 cells of an earlier spec or code moved to" in proc.stdout
    assert not keys & set(load(out, "cells").df()["key"])
    assert set(load(out, "result").df()["part"]) == {0, 7}


def test_a_worker_running_other_code_refuses_the_cell():
    from dataclasses import replace

    from fairalloc.experiments.worker import execute_cell

    cell = replace(Spec.from_dict(RIGID).cells()[0], code="0123456789abcdef")
    out = execute_cell(cell)
    assert out["status"] == "failed" and "runs other code than the sweep's" in out["error"]
    assert "the cell's key was computed with 0123456789abcdef" in out["error"]


def test_a_huge_spec_is_refused_before_anything_unless_max_cells_raises_the_limit(tmp_path):
    """Issue 25: a spec of 10^7 cells grew to 8.6 GB in 5 minutes writing nothing."""
    huge = dict(RIGID, seeds={"start": 0, "count": 10**7})      # 4 x 10^7 cells
    with pytest.raises(fa.InvalidInstanceError, match=r"expands to 40,000,000 cells \(10,000,000 seeds x "
                                                      r"\(fcfs \+ easy \+ buc x 2\)\), more than the limit "
                                                      r"of 100,000") as info:
        run_sweep(huge, tmp_path / "huge", workers=0, progress=False)
    assert info.value.argument == "max_cells" and "--max-cells" in str(info.value)
    assert not (tmp_path / "huge").exists()
    with pytest.raises(fa.InvalidInstanceError, match="more than the limit of 7"):
        Spec.from_dict(RIGID, max_cells=7)
    # raised: the spec is expanded lazily, one cell at a time (nothing is built for the others)
    spec = Spec.from_dict(huge, max_cells=None)
    it = spec.iter_cells()
    first, second = next(it), next(it)
    assert spec.n_cells == 4 * 10**7 and (first.index, second.index) == (0, 1)
    assert first.params["seed"] == 0 and second.params["label"] == "easy"


def test_a_learned_function_file_is_a_sweep_policy(tmp_path):
    """Issue 29: ``learned:FILE`` is a policy of a sweep spec (``policy:`` under any label); its cell equals
    ``fa.simulate`` with the same name (Table 1's F1 as a file schedules as policy ``f1``:
    tests/unit/sim/test_learned_policy.py)."""
    from fairalloc.experiments.learn import LearnedFunction

    path = LearnedFunction("c1 * sqrt(r) * c2 * n + c3 * log10(s)",
                           {"c1": 0.0001352, "c2": 0.2765352, "c3": 0.0071470}, name="F1-file").save(tmp_path / "f1.json")
    spec = {"name": "learned", "workload": {"generator": "lublin", "n_jobs": 120, "nodes": 32, "rng": "${seed}"},
            "capacity": {"processors": 32}, "policies": {"mine": {"policy": f"learned:{path}"}}, "seeds": [0]}
    summary = run_sweep(spec, tmp_path / "s", workers=0, progress=False)
    assert summary.ok and summary.done == 1
    got = load(tmp_path / "s", "summary").df()
    direct = fa.simulate(fa.workloads.lublin(120, nodes=32, rng=0), 32, policy="f1").summary()
    assert got["mean_wait"].iloc[0] == pytest.approx(direct["mean_wait"])
