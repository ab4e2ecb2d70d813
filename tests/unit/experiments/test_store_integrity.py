"""The sweep store notices what it lost (issue 25, section 3): deleted, truncated and altered table
files, damaged cell records, stale files of an edited spec, and an SQL connection that cannot read or
write other files. Every fault ends in a warning or an error naming the file or cell, the intact
tables still answer, and a rerun recomputes exactly the damaged cells (the tables then equal an
undamaged run's, row for row)."""

from __future__ import annotations

import json
import os
import warnings

import duckdb
import pandas as pd
import pytest

import fairalloc as fa
from fairalloc.experiments import Spec, load, run_sweep
from fairalloc.experiments.store import DamagedCellsWarning, Store

SPEC = {
    "name": "integrity",
    "workload": {"generator": "lublin", "n_jobs": 30, "nodes": 16, "rng": "${seed}"},
    "capacity": {"processors": 16},
    "policies": ["fcfs", "easy"],
    "seeds": 3,
    "tables": ["summary", "jobs"],
}
N_CELLS, N_JOBS = 6, 30


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    out = tmp_path_factory.mktemp("integrity") / "ref"
    assert run_sweep(SPEC, out, workers=0, progress=False).ok
    return out


@pytest.fixture
def sweep(finished, tmp_path):
    import shutil

    out = tmp_path / "s"
    shutil.copytree(finished, out)
    return out


def tables(out):
    with warnings.catch_warnings():
        warnings.simplefilter("error")              # an intact store reads without a warning
        return {t: load(out, t).df() for t in ("summary", "jobs")}


def victim(out, index=3):
    return load(out, "cells").df().iloc[index]["key"]


def test_records_list_each_file_with_size_and_sha256(finished):
    import hashlib

    for f in (finished / "cells").glob("*.json"):
        rec = json.loads(f.read_text())
        assert sorted(rec["files"]) == ["jobs", "summary"]
        for info in rec["files"].values():
            data = (finished / info["file"]).read_bytes()
            assert info["size"] == len(data) and info["sha256"] == hashlib.sha256(data).hexdigest()
    assert Store(finished).check(checksum=True) == {}


def test_deleted_table_file_is_named_left_out_and_rerun(sweep, finished):
    key = victim(sweep)
    (sweep / "tables" / "jobs" / f"{key}.parquet").unlink()
    with pytest.warns(DamagedCellsWarning, match=f"cell {key}: tables/jobs/{key}.parquet is missing"):
        jobs = load(sweep, "jobs").df()
    assert len(jobs) == (N_CELLS - 1) * N_JOBS and key not in set(jobs["key"])
    with pytest.warns(DamagedCellsWarning):
        cells = load(sweep, "cells").df().set_index("key")
    assert cells.loc[key, "status"] == "damaged" and "is missing" in cells.loc[key, "error"]
    # the rerun says which cell it recomputes and why, keeps the damaged files, and ends whole
    s = run_sweep(SPEC, sweep, workers=0, progress=False)
    assert (s.done, s.skipped) == (1, N_CELLS - 1) and s.ok
    assert s.repaired == [{"key": key, "problem": f"tables/jobs/{key}.parquet is missing"}]
    assert f"damaged, run again: cell {key}: tables/jobs/{key}.parquet is missing" in str(s)
    assert list((sweep / "damaged").rglob(f"{key}.json"))          # the record moved aside, not deleted
    for t, df in tables(sweep).items():
        pd.testing.assert_frame_equal(df.drop(columns="key"), tables(finished)[t].drop(columns="key"))


def test_truncated_file_leaves_intact_tables_answering(sweep, finished):
    key = victim(sweep)
    f = sweep / "tables" / "jobs" / f"{key}.parquet"
    size = f.stat().st_size
    with open(f, "r+b") as fh:
        fh.truncate(100)
    with pytest.warns(DamagedCellsWarning, match=rf"tables/jobs/{key}.parquet has 100 bytes, recorded {size:,}"):
        n = load(sweep, sql="SELECT count(*) FROM summary").fetchall()[0][0]
    assert n == N_CELLS - 1                            # the other table answers (the damaged cell left out)
    with pytest.warns(DamagedCellsWarning):
        assert load(sweep, sql="SELECT count(*) FROM jobs").fetchall()[0][0] == (N_CELLS - 1) * N_JOBS
    s = run_sweep(SPEC, sweep, workers=0, progress=False)
    assert [r["key"] for r in s.repaired] == [key] and "truncated or replaced" in s.repaired[0]["problem"]
    pd.testing.assert_frame_equal(tables(sweep)["jobs"], tables(finished)["jobs"])


def test_altered_file_of_the_same_size_is_caught_by_its_checksum(sweep):
    key = victim(sweep)
    f = sweep / "tables" / "summary" / f"{key}.parquet"
    data = bytearray(f.read_bytes())
    data[len(data) // 2] ^= 0xFF                       # one bit pattern changed, size unchanged
    f.write_bytes(bytes(data))
    assert Store(sweep).check(checksum=False) == {}    # sizes alone cannot see it
    assert Store(sweep).check(checksum=True) == {
        key: f"tables/summary/{key}.parquet does not match its recorded SHA-256 (altered)"}
    cells = Store(sweep).cells_table(checksum=True).set_index("key")     # what `fairalloc results` shows
    assert cells.loc[key, "status"] == "damaged"
    s = run_sweep(SPEC, sweep, workers=0, progress=False)                # a resume verifies checksums
    assert [r["key"] for r in s.repaired] == [key] and s.done == 1
    assert Store(sweep).check(checksum=True) == {}


def test_damaged_record_is_named_and_counts_as_not_done(sweep):
    key = victim(sweep)
    rec = sweep / "cells" / f"{key}.json"
    rec.write_text(rec.read_text()[:20])
    with pytest.warns(DamagedCellsWarning, match=rf"cells/{key}.json is damaged \(JSONDecodeError"):
        cells = load(sweep, "cells").df().set_index("key")
    assert cells.loc[key, "status"] == "damaged"
    with pytest.warns(DamagedCellsWarning):
        assert len(load(sweep, "summary").df()) == N_CELLS - 1
    s = run_sweep(SPEC, sweep, workers=0, progress=False)
    assert [r["key"] for r in s.repaired] == [key] and "JSONDecodeError" in s.repaired[0]["problem"]
    assert s.ok and len(tables(sweep)["summary"]) == N_CELLS


def test_partial_cell_files_without_a_record_are_removed_by_the_next_run(sweep):
    """A process killed between a cell's table files and its record: the files are not the cell's
    (no record lists them); the next run deletes them and runs the cell."""
    key = victim(sweep)
    (sweep / "cells" / f"{key}.json").unlink()
    bogus = load(sweep, "summary").df().query("key == @key").assign(mean_wait=-1.0)
    bogus.to_parquet(sweep / "tables" / "summary" / f"{key}.parquet", index=False)
    assert key not in set(load(sweep, "summary").df()["key"])
    s = run_sweep(SPEC, sweep, workers=0, progress=False)
    assert (s.done, s.skipped, s.repaired) == (1, N_CELLS - 1, [])
    assert (load(sweep, "summary").df()["mean_wait"] >= 0).all()


TAGGED = {"name": "tagged", "workload": {"generator": "lublin", "n_jobs": 20, "nodes": 16, "rng": 0},
          "capacity": {"processors": 16}, "policies": ["fcfs"]}


def test_edited_spec_retires_stale_files_so_views_and_direct_reads_agree(tmp_path):
    """Issue 25: a stale file retyped a column (max(tag) was the string '5'); issue 32: a direct
    read returned stale rows. Cells no longer in the spec move to retired/ and come back when a spec
    has them again."""
    out = tmp_path / "t"
    first = {**TAGGED, "grid": {"tag": [5, "x"]}}           # mixed types: tag is a string column
    run_sweep(first, out, workers=0, progress=False)
    assert load(out, sql="SELECT typeof(tag) FROM summary LIMIT 1").fetchall() == [("VARCHAR",)]
    s = run_sweep({**TAGGED, "grid": {"tag": [5, 10]}}, out, workers=0, progress=False)
    # tag=5 is another cell now (its column is an integer): both cells run, the old ones retire
    assert (s.done, s.skipped, s.retired) == (2, 0, 2)
    assert load(out, sql="SELECT max(tag), typeof(max(tag)) FROM summary").fetchall() == [(10, "BIGINT")]
    glob = str(out / "tables" / "summary" / "*.parquet")
    direct = duckdb.sql(f"SELECT count(*), max(tag) FROM read_parquet('{glob}', union_by_name=true)").fetchall()
    assert direct == [(2, 10)]
    assert len(list((out / "retired" / "tables" / "summary").glob("*.parquet"))) == 2
    # fewer seeds: the direct read sees exactly the spec's cells (it saw the old ones too before)
    run_sweep({**TAGGED, "grid": {"tag": [5, 10]}, "seeds": [0, 1, 2]}, out, workers=0, progress=False)
    s = run_sweep({**TAGGED, "grid": {"tag": [5, 10]}, "seeds": [1]}, out, workers=0, progress=False)
    assert (s.done, s.skipped) == (0, 2)
    n_direct = duckdb.sql(f"SELECT count(*) FROM read_parquet('{glob}', union_by_name=true)").fetchall()[0][0]
    assert n_direct == len(load(out, "summary").df()) == 2
    # the first spec again: its two cells come back from retired/, nothing runs
    s = run_sweep(first, out, workers=0, progress=False)
    assert (s.done, s.skipped, s.restored) == (0, 2, 2) and "taken back from" in str(s)
    assert sorted(load(out, "summary").df()["tag"]) == ["5", "x"]


def test_sql_connection_reads_only_the_stores_tables_and_writes_nothing(finished, tmp_path):
    target = tmp_path / "written.csv"
    for sql, why in [
        ("SELECT * FROM read_csv('/etc/os-release')", "disabled by configuration"),
        ("SELECT * FROM read_text('/etc/hostname')", "disabled by configuration"),
        (f"COPY (SELECT 1) TO '{target}'", "a COPY statement; the store is read-only"),
        (f"COPY (SELECT 1) TO '{finished / 'tables' / 'summary' / 'x.csv'}'", "read-only"),
        (f"ATTACH '{tmp_path / 'x.db'}'", "read-only"),
        ("SET enable_external_access = true", "read-only"),
        ("CREATE TABLE t AS SELECT 1", "read-only"),
        ("SELECT 1; SELECT 2", "one query"),
        ("SELECT * FROM read_parquet('" + str(finished / "retired" / "*.parquet") + "')", "disabled"),
    ]:
        with pytest.raises(fa.InvalidInstanceError, match=why) as info:
            load(finished, sql=sql)
        assert info.value.argument == "sql"
    assert not target.exists() and not (finished / "tables" / "summary" / "x.csv").exists()
    # the connection itself refuses a change of its settings
    con = fa.experiments.connect(finished)
    with pytest.raises(duckdb.Error, match="locked"):
        con.execute("SET enable_external_access = true")
    with pytest.raises(duckdb.Error, match="disabled"):
        con.execute("SELECT * FROM read_csv('/etc/os-release')")
    assert con.sql("SELECT count(*) FROM jobs").fetchall() == [(N_CELLS * N_JOBS,)]
    con.close()
    # queries, DESCRIBE and SUMMARIZE still work
    assert load(finished, sql="SELECT count(*) FROM summary").fetchall() == [(N_CELLS,)]
    assert "mean_wait" in set(load(finished, sql="DESCRIBE summary").df()["column_name"])


def test_unreadable_parquet_file_is_named_and_its_table_answers(sweep):
    """A file a record does not describe (an old store without checksums) that is not Parquet:
    DuckDB's "No magic bytes" becomes a warning naming the file, and the rest of the table answers."""
    key = victim(sweep)
    rec_path = sweep / "cells" / f"{key}.json"
    rec = json.loads(rec_path.read_text())
    del rec["files"]                                   # a record as written before checksums
    rec_path.write_text(json.dumps(rec))
    f = sweep / "tables" / "jobs" / f"{key}.parquet"
    f.write_bytes(b"not parquet at all")
    with pytest.warns(DamagedCellsWarning, match=rf"tables/jobs/{key}.parquet cannot be read"):
        jobs = load(sweep, "jobs").df()
    assert len(jobs) == (N_CELLS - 1) * N_JOBS


def test_store_write_is_the_one_place_records_are_made(tmp_path):
    """Every record the runner writes lists its files (a cell without tables lists none)."""
    spec = Spec.from_dict({**SPEC, "seeds": 1, "policies": ["fcfs"]})
    out = tmp_path / "w"
    run_sweep(spec, out, workers=0, progress=False)
    (rec,) = [json.loads(f.read_text()) for f in (out / "cells").glob("*.json")]
    assert rec["status"] == "done" and rec["code"] == spec.code and set(rec["files"]) == {"summary", "jobs"}
    assert os.path.isfile(out / rec["files"]["jobs"]["file"])
