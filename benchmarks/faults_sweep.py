"""The sweep store's and `fairalloc check`'s faults of issues 25 (section 3) and 32: inject each one,
run the command a user would, and say whether it ends in a clear error or a visible warning naming
the file or cell (or, for a fault that should not be one, whether the result is right).

    python benchmarks/faults_sweep.py                          # this checkout
    python benchmarks/faults_sweep.py --checkout /tmp/base     # another one (e.g. `git archive` of main)

Every command runs in a subprocess with ``PYTHONPATH`` set to the checkout, so the same script
measures the code before and after a change. A command that does not end is stopped after
``--cap`` seconds (a safety cap: such an outcome is "hangs"). Prints one row per fault and the count
of clear outcomes.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

CELLS = textwrap.dedent('''
    import collections, itertools, time
    import pandas as pd

    def slow(workload, params):
        time.sleep(params["grid"]["s"])
        return {"t": pd.DataFrame({"seed": [params["seed"]], "part": [1]})}

    def hang(workload, params):
        if params["seed"] == 1:
            time.sleep(3600)
        return {"t": pd.DataFrame({"seed": [params["seed"]]})}
''')
MECH = textwrap.dedent('''
    import time
    import fairalloc as fa

    def hangs(instance):
        if instance.n_agents == 3:
            time.sleep(3600)
        return fa.drf(instance)
''')
SPEC = """name: faults
workload: {generator: lublin, n_jobs: 40, nodes: 16, rng: "${seed}"}
capacity: {processors: 16}
policies: [fcfs, easy]
seeds: 3
tables: [summary, jobs]
"""


class Run:
    def __init__(self, checkout: Path, work: Path, cap: float) -> None:
        self.work, self.cap = work, cap
        mods = work / "mods"
        mods.mkdir(exist_ok=True)
        (mods / "fault_cells.py").write_text(CELLS)
        (mods / "fault_mech.py").write_text(MECH)
        self.env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(checkout), str(mods)]), MPLBACKEND="Agg")
        self.env.pop("DASK_LOGGING__DISTRIBUTED", None)

    def __call__(self, *args: str, cap: float | None = None, memory_gb: float | None = None,
                 stdin=None) -> tuple[int | None, str]:
        """(exit status or None when stopped at the cap, stdout + stderr)."""
        def limits():
            os.setsid()
            if memory_gb:
                resource.setrlimit(resource.RLIMIT_AS, (int(memory_gb * 2**30),) * 2)
        p = subprocess.Popen(list(args), cwd=self.work, env=self.env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, preexec_fn=limits)
        try:
            out = p.communicate(timeout=cap or self.cap)[0].decode(errors="replace")
            return p.returncode, out
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out = p.communicate()[0].decode(errors="replace")
            return None, out

    def fa(self, *args: str, **kw) -> tuple[int | None, str]:
        return self(sys.executable, "-m", "fairalloc", *args, **kw)

    def py(self, code: str, **kw) -> tuple[int | None, str]:
        return self(sys.executable, "-c", code, **kw)


def first_line(text: str, *keys: str) -> str:
    for line in text.splitlines():
        if any(k in line for k in keys):
            return " ".join(line.split())[:150]
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return " ".join(lines[-1].split())[:150] if lines else "(no output)"


def names(text: str, key: str, file: str) -> bool:
    """Whether a line of ``text`` names the damaged ``file`` (the cells table lists every key anyway)."""
    return any(file in line for line in text.splitlines())


def fresh_sweep(run: Run, name: str) -> Path:
    spec = run.work / "spec.yaml"
    spec.write_text(SPEC)
    out = run.work / name
    code, text = run.fa("sweep", str(spec), "--out", str(out), "--workers", "0", "-q")
    assert code == 0, text
    return out


def a_key(out: Path) -> str:
    return sorted(p.stem for p in (out / "tables" / "jobs").glob("*.parquet"))[1]


def f_deleted(run: Run):
    out = fresh_sweep(run, "deleted")
    key = a_key(out)
    (out / "tables" / "jobs" / f"{key}.parquet").unlink()
    _, shown = run.fa("results", str(out))
    code, rerun = run.fa("sweep", str(run.work / "spec.yaml"), "--out", str(out), "--workers", "0", "--no-progress")
    clear = names(shown, key, f"{key}.parquet") and names(rerun, key, f"{key}.parquet") and "1 done" in rerun
    return clear, f"results: {first_line(shown, key, 'cells:')} | rerun: {first_line(rerun, key, 'cells:')}"


def f_truncated(run: Run):
    out = fresh_sweep(run, "truncated")
    key = a_key(out)
    with open(out / "tables" / "jobs" / f"{key}.parquet", "r+b") as fh:
        fh.truncate(100)
    code, text = run.fa("results", str(out), "--sql", "SELECT count(*) AS n FROM summary")
    clear = code == 0 and names(text, key, f"{key}.parquet")
    return clear, f"exit {code}: {first_line(text, key, 'error', 'n')}"


def f_altered(run: Run):
    out = fresh_sweep(run, "altered")
    key = a_key(out)
    f = out / "tables" / "summary" / f"{key}.parquet"
    data = bytearray(f.read_bytes())
    data[len(data) // 2] ^= 0xFF
    f.write_bytes(bytes(data))
    code, text = run.fa("results", str(out))
    return names(text, key, f"{key}.parquet"), f"exit {code}: {first_line(text, key, 'cells:')}"


def f_record(run: Run):
    out = fresh_sweep(run, "record")
    key = a_key(out)
    rec = out / "cells" / f"{key}.json"
    rec.write_text(rec.read_text()[:20])
    code, text = run.fa("results", str(out))
    return f"{key}.json" in text, f"exit {code}: {first_line(text, key, 'error')}"


def f_stale_type(run: Run):
    base = "name: tagged\nworkload: {generator: lublin, n_jobs: 20, nodes: 16, rng: 0}\ncapacity: {processors: 16}\n" \
           "policies: [fcfs]\n"
    (run.work / "t1.yaml").write_text(base + 'grid: {tag: [5, "x"]}\n')
    (run.work / "t2.yaml").write_text(base + "grid: {tag: [5, 10]}\n")
    out = run.work / "tagged"
    run.fa("sweep", str(run.work / "t1.yaml"), "--out", str(out), "--workers", "0", "-q")
    run.fa("sweep", str(run.work / "t2.yaml"), "--out", str(out), "--workers", "0", "-q")
    code, text = run.fa("results", str(out), "--sql", "SELECT max(tag) AS m, typeof(max(tag)) AS t FROM summary",
                        "--json", "-")
    try:
        row = json.loads(text[text.index("["):])[0]
    except (ValueError, IndexError):
        return False, f"exit {code}: {first_line(text, 'error')}"
    return row == {"m": 10, "t": "BIGINT"}, f"max(tag) = {row['m']!r} ({row['t']})"


def f_direct_read(run: Run):
    out = run.work / "direct"
    spec = run.work / "spec.yaml"
    spec.write_text(SPEC)
    run.fa("sweep", str(spec), "--out", str(out), "--workers", "0", "-q")
    spec.write_text(SPEC.replace("seeds: 3", "seeds: 2"))
    run.fa("sweep", str(spec), "--out", str(out), "--workers", "0", "-q")
    code, text = run.py("import duckdb\n"
                        f"print(duckdb.sql(\"SELECT count(*) FROM read_parquet('{out}/tables/summary/*.parquet', "
                        "union_by_name=true)\").fetchall()[0][0])")
    n = text.strip().splitlines()[-1] if text.strip() else "?"
    return n == "4", f"direct read: {n} rows, the spec's cells: 4"


def f_huge(run: Run):
    (run.work / "huge.yaml").write_text(SPEC.replace("seeds: 3", "seeds: {start: 0, count: 5000000}"))
    t0 = time.perf_counter()
    code, text = run.fa("sweep", str(run.work / "huge.yaml"), "--out", str(run.work / "huge"), "--workers", "0",
                        "--no-progress", cap=60, memory_gb=3)
    dt = time.perf_counter() - t0
    if code is None:
        return False, f"still running after {dt:.0f} s (stopped; 3 GB memory limit)"
    return code == 2 and "limit" in text, f"exit {code} after {dt:.1f} s: {first_line(text, 'error', 'Error')}"


def f_hang(run: Run):
    (run.work / "hang.yaml").write_text("name: hang\nrun: fault_cells:hang\nseeds: 3\n")
    out = str(run.work / "hang")
    code, text = run.fa("sweep", str(run.work / "hang.yaml"), "--out", out, "--workers", "0", "--no-progress",
                        "--time-limit", "2", cap=120)
    if code == 2 and "unrecognized arguments" in text:      # no such option: the sweep as it is
        code, text = run.fa("sweep", str(run.work / "hang.yaml"), "--out", out, "--workers", "0",
                            "--no-progress", cap=60)
    if code is None:
        return False, "the sweep never ends (stopped after 60 s)"
    return "timed out" in text, f"exit {code}: {first_line(text, 'timed out', 'cells:')}"


def f_scheduler(run: Run):
    code = textwrap.dedent(f'''
        import json, os, subprocess, sys, time
        from pathlib import Path
        from fairalloc.experiments import run_sweep, load
        if __name__ == "__main__":
            work = Path({str(run.work)!r})
            sf = work / "sched.json"
            dask = str(Path(sys.executable).with_name("dask"))
            s = subprocess.Popen([dask, "scheduler", "--scheduler-file", str(sf), "--port", "0",
                                  "--dashboard-address", ":0"], stderr=subprocess.DEVNULL)
            while not sf.exists():
                time.sleep(0.1)
            w = subprocess.Popen([dask, "worker", "--scheduler-file", str(sf), "--nthreads", "1"],
                                 stderr=subprocess.DEVNULL)
            done = []
            def prog(c, o):
                done.append(1)
                if len(done) == 2:
                    s.kill()
            spec = {{"name": "lose", "run": "fault_cells:slow", "grid": {{"s": [0.5]}}, "seeds": 10}}
            try:
                summ = run_sweep(spec, work / "lose", scheduler=json.loads(sf.read_text())["address"], progress=prog)
            finally:
                s.kill(); w.kill()
            st = load(work / "lose", "cells").df()["status"].value_counts().to_dict()
            print("STATUS", json.dumps(st))
            print("SUMMARY", str(summ).splitlines()[0])
    ''')
    rc, text = run(sys.executable, "-c", code, cap=300)
    line = first_line(text, "STATUS")
    try:
        st = json.loads(line.split("STATUS", 1)[1])
    except (IndexError, ValueError):
        return False, f"exit {rc}: {first_line(text, 'Error')}"
    return "failed" not in st and "lost" in st, f"cells {st}; {first_line(text, 'SUMMARY')[8:]}"


def f_ctrl_c_and_logs(run: Run):
    (run.work / "slow.yaml").write_text("name: slow\nrun: fault_cells:slow\ngrid: {s: [2.0]}\nseeds: 8\n")
    out = run.work / "slow"
    p = subprocess.Popen([sys.executable, "-m", "fairalloc", "sweep", str(run.work / "slow.yaml"), "--out", str(out),
                          "--workers", "2", "--no-progress"], cwd=run.work, env=run.env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True)
    t0 = time.monotonic()
    while not ((out / "cells").is_dir() and list((out / "cells").glob("*.json"))):
        if p.poll() is not None or time.monotonic() - t0 > run.cap:
            break
        time.sleep(0.05)
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGINT)
    text = p.communicate(timeout=run.cap)[0].decode(errors="replace")
    info = sum("INFO" in ln and "distributed" in ln for ln in text.splitlines())
    tracebacks = text.count("Traceback")
    return (info == 0, f"{info} lines of Dask INFO logs"), \
        (tracebacks == 0 and p.returncode == 130, f"exit {p.returncode}, {tracebacks} tracebacks, "
                                                  f"{len(text.splitlines())} lines")


def f_sql_read(run: Run):
    out = fresh_sweep(run, "sqlread")
    code, text = run.fa("results", str(out), "--sql", "SELECT * FROM read_csv('/etc/os-release')")
    return code == 2, f"exit {code}: {first_line(text, 'error', 'NAME')}"


def f_sql_copy(run: Run):
    out = fresh_sweep(run, "sqlcopy")
    target = run.work / "copied.csv"
    code, text = run.fa("results", str(out), "--sql", f"COPY (SELECT 42) TO '{target}'")
    return not target.exists(), f"exit {code}, file written: {target.exists()}: {first_line(text, 'error')}"


def f_guard(run: Run):
    script = run.work / "noguard.py"
    script.write_text("from fairalloc.experiments import run_sweep\n"
                      f"run_sweep({str(run.work / 'spec.yaml')!r}, {str(run.work / 'guard')!r}, workers=2, "
                      "progress=False)\n")
    (run.work / "spec.yaml").write_text(SPEC)
    code, text = run(sys.executable, str(script), cap=180)
    clear = "__main__" in text and "another running sweep" not in text
    return clear, f"exit {code}: {first_line(text, '__main__', 'another running sweep', 'Nanny')}"


def f_known_findings(run: Run):
    code, text = run.fa("check", "--mechanism", "tsf", "--axiom", "si", "--variant", "plain", "--examples", "200",
                        "--no-progress", cap=600)
    return code == 0, f"exit {code}: {first_line(text, 'tsf/si/plain')}"


def f_user_hang(run: Run):
    code, text = run.fa("check", "--mechanism", "fault_mech:hangs", "--domain", "pooled", "--axiom", "si",
                        "--examples", "50", "--call-seconds", "2", "--no-progress", cap=120)
    if code == 2 and "unrecognized arguments" in text:
        code, text = run.fa("check", "--mechanism", "fault_mech:hangs", "--domain", "pooled", "--axiom", "si",
                            "--examples", "50", "--seconds", "2", "--no-progress", cap=60)
    if code is None:
        return False, "never returns (stopped after 60 s)"
    return "did not return" in text, f"exit {code}: {first_line(text, 'did not return', 'si/plain')}"


def f_stale_code(run: Run):
    (run.work / "code.yaml").write_text("name: code\nrun: fault_cells:slow\ngrid: {s: [0.0]}\nseeds: 2\n")
    out = str(run.work / "code")
    run.fa("sweep", str(run.work / "code.yaml"), "--out", out, "--workers", "0", "-q")
    mod = run.work / "mods" / "fault_cells.py"
    mod.write_text(mod.read_text().replace('"part": [1]', '"part": [2]'))        # the bug fix
    code, text = run.fa("sweep", str(run.work / "code.yaml"), "--out", out, "--workers", "0", "--no-progress")
    return "2 done" in text and "code changed" in text, first_line(text, "cells:")


FAULTS = [
    ("25: a deleted table file (resume and results)", f_deleted),
    ("25: a truncated table file (a query of another table)", f_truncated),
    ("25: a truncated cell record", f_record),
    ("25: a table file altered in place (same size)", f_altered),
    ("25: an edited spec whose stale files have another column type", f_stale_type),
    ("32: a direct DuckDB read after an edited spec (fewer seeds)", f_direct_read),
    ("25: a spec of 10^7 cells", f_huge),
    ("25: a cell that never returns", f_hang),
    ("25: a killed Dask scheduler", f_scheduler),
    ("32: Dask INFO logs of `fairalloc sweep`", None),
    ("25/32: Ctrl-C during `fairalloc sweep --workers 2`", None),
    ("25: results --sql reads /etc/os-release", f_sql_read),
    ("25: results --sql COPY ... TO a path", f_sql_copy),
    ("32: run_sweep(workers=2) in a script without a __main__ guard", f_guard),
    ("32: stale results after a fix of the cell's code", f_stale_code),
    ("32: a known finding (check tsf/si/plain) exits 1", f_known_findings),
    ("25: check --mechanism on a function that never returns", f_user_hang),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--checkout", default=str(Path(__file__).resolve().parents[1]))
    ap.add_argument("--cap", type=float, default=300.0, help="safety cap per command, seconds")
    ap.add_argument("--only", default=None, help="run the faults whose label contains this text")
    args = ap.parse_args()
    print(open("/proc/loadavg").read().strip() if os.path.exists("/proc/loadavg") else "")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        run = Run(Path(args.checkout).resolve(), Path(tmp), args.cap)
        pending = None
        for label, fn in FAULTS:
            if args.only and args.only not in label:
                continue
            t0 = time.perf_counter()
            if fn is None:
                if pending is None:
                    pending = f_ctrl_c_and_logs(run)
                clear, what = pending[0] if "INFO" in label else pending[1]
            else:
                try:
                    clear, what = fn(run)
                except Exception as exc:  # noqa: BLE001 - the outcome is the measure
                    clear, what = False, f"the script's probe failed: {type(exc).__name__}: {exc}"
            rows.append((label, clear, what))
            print(f"{'CLEAR ' if clear else 'NOT   '} {label}: {what}  [{time.perf_counter() - t0:.0f} s]", flush=True)
    n = sum(c for _, c, _ in rows)
    print(f"\n{n} of {len(rows)} faults end in a clear error, a visible warning or a right result "
          f"(checkout {args.checkout})")


if __name__ == "__main__":
    main()
