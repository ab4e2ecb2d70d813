"""Benchmark of the job-queue simulator against the same FCFS model written with SimPy.

For each size (Lublin-Feitelson workloads, 256 processors) it runs, each in a fresh process so that
peak memory (ru_maxrss) belongs to that run alone:

* FCFS with ``engine="kernel"`` (what ``simulate(policy="fcfs")`` uses) and ``engine="events"``
  (the general event engine with the FCFS policy object);
* EASY backfilling with ``engine="kernel"`` (what ``simulate(policy="easy")`` uses) and with the
  event engine; the kernel's start times are checked equal to the event engine's;
* FCFS written with SimPy (a ``Container`` of processors, whose ``get`` queue is strict FIFO) on the
  same jobs; its start times are checked equal to ours.

It prints jobs per second, peak memory, and the ratios against SimPy measured in the same run.
Targets (issue 4): FCFS >= 10x SimPy; 10^6 jobs under 1 GB peak. The EASY kernel is also shown
against SimPy's FCFS (SimPy has no EASY here: the ratio says how far EASY is from the FCFS target)
and against the event engine's EASY. Needs ``pip install -e .[bench]``.

    python benchmarks/bench_sim.py --sizes 100000 1000000
    python benchmarks/bench_sim.py --load 2 --sizes 20000 50000 100000 --kinds fcfs-kernel easy-kernel easy

The second line is the overload scaling (issue 11): submit times compressed to an offered load of
2, so the queue grows without bound; EASY must stay linear in the number of jobs.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import resource
import time

import numpy as np


def _workload(n: int, nodes: int, seed: int, load: float | None = None):
    from fairalloc.workloads import lublin
    wl = lublin(n, nodes=nodes, rng=seed)
    if load:       # offered load = sum(processors x run time) / (nodes x submit span)
        offered = float((wl.processors * wl.run_time).sum()) / (nodes * float(np.ptp(wl.submit)))
        wl = wl.replace(submit=wl.submit * (offered / load))
    return wl


def _simpy_fcfs(submit, procs, run, capacity):
    import simpy

    n = len(submit)
    start = np.zeros(n)
    env = simpy.Environment()
    pool = simpy.Container(env, capacity=capacity, init=capacity)

    def job(i, p, r):
        yield pool.get(p)          # strict FIFO: the head blocks later requests
        start[i] = env.now
        yield env.timeout(r)
        yield pool.put(p)

    def arrivals():
        for i in range(n):
            dt = submit[i] - env.now
            if dt > 0:
                yield env.timeout(dt)
            env.process(job(i, procs[i], run[i]))

    env.process(arrivals())
    env.run()
    return start


def _measure(kind: str, n: int, nodes: int, seed: int, load, queue: "mp.Queue") -> None:
    wl = _workload(n, nodes, seed, load)
    warm = 0.0
    if kind != "simpy":              # numba compiles (or loads its cache) once: timed apart
        from fairalloc.sim import simulate
        t0 = time.perf_counter()
        simulate(_workload(50, nodes, seed), nodes, policy=kind.split("-")[0],
                 engine="events" if kind in ("easy", "fcfs-events") else "kernel")
        warm = time.perf_counter() - t0
    order = np.argsort(wl.submit, kind="stable")
    t0 = time.perf_counter()
    if kind == "simpy":
        start = _simpy_fcfs(wl.submit[order].tolist(), wl.processors[order].tolist(),
                            wl.run_time[order].tolist(), nodes)
        starts = np.empty(n)
        starts[order] = start
    else:
        from fairalloc.sim import simulate
        policy, engine = {"fcfs-kernel": ("fcfs", "kernel"), "fcfs-events": ("fcfs", "events"),
                          "easy": ("easy", "events"), "easy-kernel": ("easy", "kernel")}[kind]
        r = simulate(wl, nodes, policy=policy, engine=engine)
        starts = r.jobs["start"].to_numpy()
    dt = time.perf_counter() - t0
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    queue.put((kind, n, dt, peak_mb, starts if kind in ("simpy", "fcfs-kernel", "easy", "easy-kernel") else None,
               warm))


def run_one(kind: str, n: int, nodes: int, seed: int, load=None):
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=_measure, args=(kind, n, nodes, seed, load, q))
    p.start()
    out = q.get()
    p.join()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--nodes", type=int, default=256)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip-simpy-above", type=int, default=None,
                    help="do not run SimPy on workloads larger than this")
    ap.add_argument("--load", type=float, default=None,
                    help="scale submit times to this offered load (e.g. 2: overload, the queue grows "
                         "without bound); default: Lublin's own")
    ap.add_argument("--kinds", nargs="+", default=KINDS, choices=KINDS + ["simpy"],
                    help="which runs (SimPy is added unless skipped by size)")
    args = ap.parse_args()
    if args.load:
        return overload(args)
    print(f"Lublin-Feitelson workloads (typed), {args.nodes} processors, seed {args.seed}")
    print(f"{'jobs':>9} {'run':<12} {'seconds':>8} {'jobs/s':>11} {'peak MB':>8} {'vs SimPy':>9}")
    for n in args.sizes:
        rows = {}
        kinds = list(KINDS)
        if args.skip_simpy_above is None or n <= args.skip_simpy_above:
            kinds.append("simpy")
        for kind in kinds:
            rows[kind] = run_one(kind, n, args.nodes, args.seed)
        simpy_rate = n / rows["simpy"][2] if "simpy" in rows else None
        for kind in kinds:
            _, _, dt, mb, _, _ = rows[kind]
            rate = n / dt
            ratio = f"{rate / simpy_rate:8.1f}x" if simpy_rate and kind != "simpy" else ""
            print(f"{n:>9} {kind:<12} {dt:8.2f} {rate:11,.0f} {mb:8.0f} {ratio:>9}")
        if "simpy" in rows:
            same = np.array_equal(rows["simpy"][4], rows["fcfs-kernel"][4])
            print(f"{'':>9} FCFS start times identical to SimPy's: {same}")
        same = np.array_equal(rows["easy"][4], rows["easy-kernel"][4], equal_nan=True)
        print(f"{'':>9} EASY start times identical to the event engine's: {same}")
        print(f"{'':>9} first EASY call (numba compiles or loads its cache; not in the timings): "
              f"{rows['easy-kernel'][5]:.2f} s")
        mem_ok = all(r[3] < 1024 for r in rows.values() if r[0] != "simpy")
        fast = [rows[k][2] for k in ("fcfs-kernel", "fcfs-events")]
        if simpy_rate:
            print(f"{'':>9} target FCFS >= 10x SimPy: kernel {'met' if rows['simpy'][2] / fast[0] >= 10 else 'MISSED'}, "
                  f"event engine {'met' if rows['simpy'][2] / fast[1] >= 10 else 'MISSED'}; "
                  f"peak < 1 GB: {'met' if mem_ok else 'MISSED'}")
            easy_x = rows["simpy"][2] / rows["easy-kernel"][2]
            print(f"{'':>9} EASY kernel vs SimPy's FCFS: {easy_x:.1f}x (10x {'met' if easy_x >= 10 else 'MISSED'}); "
                  f"vs the event engine's EASY: {rows['easy'][2] / rows['easy-kernel'][2]:.1f}x")


KINDS = ["fcfs-kernel", "fcfs-events", "easy-kernel", "easy"]


def overload(args) -> None:
    """Seconds per run at a raised offered load, and the growth from one size to the next."""
    kinds = [k for k in args.kinds if k != "simpy"]
    print(f"Lublin-Feitelson workloads (typed), {args.nodes} processors, seed {args.seed}, "
          f"submit times scaled to offered load {args.load}")
    print(f"{'jobs':>9} " + " ".join(f"{k:>12}" for k in kinds) + "   (seconds)")
    prev = None
    for n in args.sizes:
        rows = {k: run_one(k, n, args.nodes, args.seed, args.load) for k in kinds}
        print(f"{n:>9} " + " ".join(f"{rows[k][2]:12.3f}" for k in kinds))
        if prev is not None:
            pn, pr = prev
            print(f"{'x' + format(n / pn, '.1f'):>9} " + " ".join(
                f"{'x' + format(rows[k][2] / pr[k][2], '.1f'):>12}" for k in kinds) + "   (growth)")
        if "easy" in rows and "easy-kernel" in rows:
            same = np.array_equal(rows["easy"][4], rows["easy-kernel"][4], equal_nan=True)
            print(f"{'':>9} EASY start times identical to the event engine's: {same}")
        prev = (n, rows)


if __name__ == "__main__":
    main()
