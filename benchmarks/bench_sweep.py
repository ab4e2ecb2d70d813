"""Sweep runner: cells per second with 1 and 2 Dask workers, overhead per cell against calling the
cell function directly, peak memory of a worker.

    python benchmarks/bench_sweep.py            # 16 cells of about 1 CPU second each, 3 rounds
    python benchmarks/bench_sweep.py --quick    # 8 cells of about 0.3 CPU seconds, 2 rounds
    python benchmarks/bench_sweep.py --checksums   # the store's checksums: cost per cell (no Dask)

Every cell is the built-in cell (``fa.simulate`` with WFP3 on one Lublin workload: the same work
in each cell, cells told apart by their seed only), so the figures compare like with like:

* **direct**: ``simulate_cell(workload, params)`` called in a loop in this process (the baseline);
* **in-process runner** (``workers=0``): the same cells through ``run_sweep`` without Dask (keys,
  Parquet files, records): the store's own overhead;
* **Dask, 1 worker / 2 workers**: ``run_sweep`` on a ``LocalCluster`` started (and its workers'
  imports done) before the clock, each run in a fresh folder; *steady state* counts only the
  cells finished after each worker's first one.

The four runs are interleaved in each of ``--rounds`` rounds and the medians reported, so a change
of the machine's load hits them alike.

Overhead per cell = (runner time / cells - direct time per cell) / direct time per cell, in wall
time and in CPU time (this process plus the workers' processes; the nannies are not counted).
Machine load changes the wall times a lot: read the same-run ratios, with the ``uptime`` lines.

``--checksums`` measures what the store's integrity checks cost per cell (the cells keep the
summary, users and jobs tables, the largest files a built-in cell writes), in the same process,
rounds interleaved: the in-process runner as shipped against the same runner with the SHA-256 of
each table replaced by a constant (``store.hashlib`` patched for that run only); and, for a resume,
verifying every file's SHA-256 against checking sizes only (``Store.check``), per cell.
"""

from __future__ import annotations

import argparse
import importlib
import os
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0   # Linux: KiB


def _calibrated_jobs(target: float, params: dict) -> int:
    """Lublin jobs for which one WFP3 cell takes about ``target`` CPU seconds."""
    import fairalloc as fa
    from fairalloc.experiments.simulation_cell import simulate_cell

    n_jobs = 2000
    for _ in range(4):
        wl = fa.workloads.lublin(n_jobs, nodes=128, rng=0)
        t0 = time.process_time()
        simulate_cell(wl, params)
        dt = time.process_time() - t0
        if 0.8 * target <= dt <= 1.25 * target:
            break
        n_jobs = max(200, int(n_jobs * target / dt))
    return n_jobs


def checksum_overhead(args: argparse.Namespace) -> None:
    import hashlib
    import types

    import fairalloc as fa
    import fairalloc.experiments.store as store_module
    from fairalloc.experiments import Spec, run_sweep
    from fairalloc.experiments.store import Store

    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    print(f"cores: {os.cpu_count()}, fairalloc {fa.__version__}")
    tables = ["summary", "users", "jobs"]
    n_jobs = _calibrated_jobs(args.target, {"policy": "wfp3", "options": {}, "capacity": {"processors": 128},
                                            "tables": tables})
    spec = Spec.from_dict({"name": "bench", "workload": {"generator": "lublin", "n_jobs": n_jobs, "nodes": 128,
                                                        "rng": 0}, "capacity": {"processors": 128},
                           "policies": {"wfp3": {}}, "seeds": args.cells, "tables": tables})
    print(f"\n{args.cells} cells, fa.simulate(WFP3) on Lublin n_jobs={n_jobs}, tables {', '.join(tables)}; "
          f"{args.rounds} rounds, with and without checksums interleaved")

    class _NoDigest:
        def __init__(self, data=b""):
            pass

        def hexdigest(self):
            return "0" * 64

    no_hash = types.SimpleNamespace(sha256=_NoDigest)
    wall: dict[str, list[float]] = {"with": [], "without": []}
    cpu: dict[str, list[float]] = {"with": [], "without": []}
    verify: dict[str, list[float]] = {"sha256": [], "size": []}
    hashing: list[float] = []
    nbytes = 0
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for mode in (("with", "without") if r % 2 == 0 else ("without", "with")):
                saved = store_module.hashlib
                if mode == "without":
                    store_module.hashlib = no_hash
                try:
                    t0, c0 = time.perf_counter(), time.process_time()
                    out = Path(tmp) / f"{mode}{r}"
                    assert run_sweep(spec, out, workers=0, progress=False).ok
                    wall[mode].append(time.perf_counter() - t0)
                    cpu[mode].append(time.process_time() - c0)
                finally:
                    store_module.hashlib = saved
                if mode == "with":
                    st = Store(out)
                    for how, checksum in (("sha256", True), ("size", False)):
                        c0 = time.process_time()
                        assert st.check(checksum=checksum) == {}
                        verify[how].append(time.process_time() - c0)
                    blobs = [f.read_bytes() for f in (out / "tables").rglob("*.parquet")]
                    nbytes = sum(len(b) for b in blobs)
                    # what Store.write adds to each cell, timed alone: the SHA-256 of its tables' bytes
                    c0 = time.process_time()
                    for _ in range(20):
                        for b in blobs:
                            hashlib.sha256(b).hexdigest()
                    hashing.append((time.process_time() - c0) / 20)
    med = {k: statistics.median(v) for k, v in cpu.items()}
    medw = {k: statistics.median(v) for k, v in wall.items()}
    per_cell = {k: v / args.cells for k, v in med.items()}
    print(f"table bytes per cell: {nbytes / args.cells / 1024:.0f} KiB")
    print(f"runner in process, CPU s per cell: with checksums {per_cell['with']:.4f}, without "
          f"{per_cell['without']:.4f}: overhead {100 * (med['with'] / med['without'] - 1):+.2f}% (goal < 2%); "
          f"wall s per cell {medw['with'] / args.cells:.4f} vs {medw['without'] / args.cells:.4f} "
          f"({100 * (medw['with'] / medw['without'] - 1):+.2f}%)")
    print("(each round, CPU s: " + "; ".join(f"{k} " + " ".join(f"{x:.2f}" for x in v) for k, v in cpu.items()) + ")")
    vs = {k: statistics.median(v) / args.cells for k, v in verify.items()}
    cell = per_cell["without"]
    h = statistics.median(hashing) / args.cells
    print(f"the SHA-256 Store.write computes, timed alone: {1000 * h:.2f} ms CPU per cell, "
          f"{100 * h / per_cell['without']:.2f}% of the runner's CPU time per cell (goal < 2%)")
    print(f"resume verification per cell: SHA-256 of every file {1000 * vs['sha256']:.2f} ms CPU, sizes only "
          f"{1000 * vs['size']:.2f} ms; against the runner's {cell:.3f} CPU s per cell: "
          f"{100 * vs['sha256'] / cell:.2f}% and {100 * vs['size'] / cell:.3f}%")
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cells", type=int, default=16)
    ap.add_argument("--target", type=float, default=1.0, help="CPU seconds per cell (calibrated)")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds (median reported)")
    ap.add_argument("--quick", action="store_true", help="8 cells of about 0.3 s, 2 rounds")
    ap.add_argument("--checksums", action="store_true", help="the store's checksums: cost per cell")
    args = ap.parse_args()
    if args.quick:
        args.cells, args.target, args.rounds = 8, 0.3, 2
    if args.checksums:
        checksum_overhead(args)
        return

    from distributed import Client, LocalCluster

    import fairalloc as fa
    from fairalloc.experiments import Spec, load, run_sweep
    from fairalloc.experiments.simulation_cell import simulate_cell

    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    print(f"cores: {os.cpu_count()}, fairalloc {fa.__version__}")

    # calibrate the workload so that one cell takes about --target seconds of CPU (wall time depends
    # on how many other processes share the cores)
    params = {"policy": "wfp3", "options": {}, "capacity": {"processors": 128}, "tables": ["summary", "users"]}
    n_jobs = _calibrated_jobs(args.target, params)
    spec_dict = {"name": "bench", "workload": {"generator": "lublin", "n_jobs": n_jobs, "nodes": 128, "rng": 0},
                 "capacity": {"processors": 128}, "policies": {"wfp3": {}}, "seeds": args.cells,
                 "tables": ["summary", "users"]}
    spec = Spec.from_dict(spec_dict)

    wl = fa.workloads.lublin(n_jobs, nodes=128, rng=0)
    print(f"\ngrid: {args.cells} cells, fa.simulate(WFP3) on Lublin n_jobs={n_jobs}, 128 processors; "
          f"{args.rounds} rounds, the four runs interleaved in each (the machine's load moves)")

    def direct() -> tuple[float, float]:
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(args.cells):
            simulate_cell(wl, params)
        return time.perf_counter() - t0, time.process_time() - c0

    times: dict[str, list[float]] = {k: [] for k in ("direct", "inproc", "dask1", "dask2", "steady1", "steady2")}
    cpu: dict[str, list[float]] = {k: [] for k in ("direct", "inproc", "dask1", "dask2")}
    builds: dict[int, float] = {}
    peak: dict[int, dict] = {}
    with tempfile.TemporaryDirectory() as tmp, \
            LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0") as c1, \
            Client(c1) as cl1, \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as c2, \
            Client(c2) as cl2:
        clients = {1: cl1, 2: cl2}
        for n, client in clients.items():        # start-up and imports: not counted
            client.wait_for_workers(n)
            client.run(importlib.import_module, "fairalloc.experiments.simulation_cell")
            client.run(importlib.import_module, "fairalloc.sim")
        for r in range(args.rounds):
            wall, used = direct()
            times["direct"].append(wall)
            cpu["direct"].append(used)
            t0, c0 = time.perf_counter(), time.process_time()
            assert run_sweep(spec, Path(tmp) / f"inproc{r}", workers=0, progress=False).ok
            times["inproc"].append(time.perf_counter() - t0)
            cpu["inproc"].append(time.process_time() - c0)
            for n, client in clients.items():
                done_at: list[float] = []
                w0 = sum(client.run(time.process_time).values())
                t0, c0 = time.perf_counter(), time.process_time()
                s = run_sweep(spec, Path(tmp) / f"dask{n}-{r}", scheduler=client,
                              progress=lambda c, o: done_at.append(time.perf_counter()))
                times[f"dask{n}"].append(time.perf_counter() - t0)
                # CPU time of this process (client, scheduler, file writes) and of the workers
                cpu[f"dask{n}"].append(time.process_time() - c0 + sum(client.run(time.process_time).values()) - w0)
                assert s.ok, s
                # steady state: the cells finished after each worker's first one, over their time
                times[f"steady{n}"].append((done_at[-1] - done_at[n - 1]) / (args.cells - n) * args.cells)
                builds[n] = builds.get(n, 0.0) + float(load(Path(tmp) / f"dask{n}-{r}", "cells").df()["load_s"].sum())
        for n, client in clients.items():
            peak[n] = client.run(_peak_rss_mb)

    med = {k: statistics.median(v) for k, v in times.items()}
    base = med["direct"]
    print(f"{'run (median of rounds)':32s} {'wall s':>8s} {'s/cell':>8s} {'cells/s':>8s} {'/ direct':>9s}")
    labels = {"direct": "direct calls (baseline)", "inproc": "runner in process (no Dask)",
              "dask1": "Dask, 1 worker", "steady1": "  steady state, 1 worker",
              "dask2": "Dask, 2 workers", "steady2": "  steady state, 2 workers"}
    for k, label in labels.items():
        w = med[k]
        print(f"{label:32s} {w:8.2f} {w / args.cells:8.3f} {args.cells / w:8.2f} {w / base:8.3f}x")
    print("(each round: " + "; ".join(f"{k} " + " ".join(f"{x:.2f}" for x in v) for k, v in times.items()) + " s)")
    print(f"\nspeed-up 2 workers vs 1 (same rounds): {med['dask1'] / med['dask2']:.2f}x overall, "
          f"{med['steady1'] / med['steady2']:.2f}x steady state (goal >= 1.7x on 2 free cores)")
    print(f"runner overhead per cell vs direct calls: 1 Dask worker {100 * (med['dask1'] / base - 1):+.1f}% "
          f"(workload builds {builds[1] / args.rounds:.2f} s per round included), steady state "
          f"{100 * (med['steady1'] / base - 1):+.1f}%; in process {100 * (med['inproc'] / base - 1):+.1f}% "
          f"(goal < 5% for a 1-second cell)")
    cmed = {k: statistics.median(v) for k, v in cpu.items()}
    print("CPU seconds (less sensitive to the machine's load than wall time): direct "
          f"{cmed['direct']:.2f}, in process {cmed['inproc']:.2f} ({100 * (cmed['inproc'] / cmed['direct'] - 1):+.1f}%), "
          f"1 Dask worker + this process {cmed['dask1']:.2f} ({100 * (cmed['dask1'] / cmed['direct'] - 1):+.1f}%), "
          f"2 Dask workers + this process {cmed['dask2']:.2f} ({100 * (cmed['dask2'] / cmed['direct'] - 1):+.1f}%)")
    mb = lambda d: ", ".join(f"{v:.0f}" for v in d.values())  # noqa: E731
    print(f"peak memory (max RSS) of each worker: {mb(peak[1])} MB (1 worker); {mb(peak[2])} MB (2 workers); "
          f"this process: {_peak_rss_mb():.0f} MB")
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
