"""TV-TSF reproduction cells: CPU seconds per policy against a reference commit, and the same results (issue 16).

Runs :func:`fairalloc.experiments.reproductions.tvtsf.cell` (one sample of one scenario) for every
policy, once with the package in this checkout and once with the package of ``--ref`` (exported with
``git archive`` into a temporary directory), alternating, each in a fresh subprocess; prints the CPU
seconds of each (``time.process_time`` around the cell: comparable on a loaded machine), their
ratio, and whether the cell's tables (per-user times and the run row) are identical. Exits 1 if any
cell differs.

    python benchmarks/bench_tvtsf_cell.py --ref e281ff2 --scenario large50 --n-jobs 100 --slots 150 --seeds 0

The paper scale is ``--n-jobs 400 --slots 600`` (one cell takes minutes there). "This checkout" is
the ``fairalloc`` Python imports here: set ``PYTHONPATH`` to an exported commit to measure that one
while editing the worktree.

``--one-process`` runs every cell of each checkout in turn in one process (the reference's, then this
checkout's), as a worker of the reproduction does: the per-sample CPU seconds of
``--scenario normal large25 large50 large80 --n-jobs 400 --slots 600``. Numba's work is paid once per
process, in its first cell: the reference, exported afresh, compiles (a few CPU seconds); this
checkout loads its cache when it is warm.

Measured (issue 16, tvtsf16d: :class:`~fairalloc.scheduling.servers.FreeCapacity` keeps each
demand's fit test and Algorithm 4's H; :func:`~fairalloc.exact.tsf_lp.divisible_tsf` does not ask LP 2
about users whose answer is known) against 9416ad8, the commit of the stored samples 0-2, with
``--n-jobs 100 --slots 150 --seeds 0 1 2`` for each of ``normal large25 large50 large80`` under
load 7-13 (other jobs on the 2 cores): 60 cells, 0 differ.
CPU seconds summed over the 12 cells of each policy (9416ad8 -> tvtsf16d, same-run ratio): tvtsf
31.8 -> 18.1 (1.76x), tsf-static 81.6 -> 67.9 (1.20x), cdrf-static 30.4 -> 21.4 (1.42x), tsf-slotted
32.9 -> 19.3 (1.70x), cdrf-slotted 33.9 -> 19.1 (1.77x); per reduced sample (its 20 cells) 1.50x,
1.48x, 1.36x (seeds 0, 1, 2); per scenario normal 1.67x, large25 1.70x, large50 1.56x, large80 1.33x;
all 210.6 -> 145.8 (1.44x). The static TSF gains least: every LP 1 is solved as before and fewer
LP 2s (1449 -> 1054 LPs in all in the reduced large80 cell of seed 0), and HiGHS is most of its time.
Before (cProfile at e1a4b26, paper-scale large80 sample 0): tvtsf 37.6 CPU s, 58% of it in the
server rule (Algorithm 4's H 26%, the fit test 19%, NumPy overhead on 100 x 2 arrays the rest);
tsf-static about 346 CPU s (profiled), 10,789 LPs in 1,110 slots: HiGHS's solve 72%, scipy's
``linprog`` wrapper about 15% (a Python loop over the 20,000 columns for the bound marginals, option
checks, input cleaning), building the sparse matrices about 5%.
Paper scale, the large80 row of sample 0 (``--scenario large80 --n-jobs 400 --slots 600 --seeds 0``,
load 6-8): 5 cells, 0 differ; tsf-static 339.2 -> 280.0 CPU s (1.21x), tvtsf 27.1 -> 17.5 (1.55x),
tsf-slotted 25.5 -> 16.9 (1.51x), cdrf-slotted 24.8 -> 17.5 (1.41x), cdrf-static 17.6 -> 16.9
(1.04x); the row 434.3 -> 348.9 (1.24x). The other 15 cells of sample 0 at tvtsf16d took 60.7 CPU
s in all and equal the stored run's tables (compared with its cell files, not re-run at 9416ad8), so
sample 0 is about 410 CPU s; with those 15 at their reduced ratio (about 1.6x), about 1.3x per sample.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
import subprocess
import sys
import tempfile
import time

POLICIES = ("tvtsf", "tsf-static", "cdrf-static", "tsf-slotted", "cdrf-slotted")


def child(scenario: str, policy: str, n_jobs: int, slots: int, seed: int) -> dict:
    from fairalloc.experiments.reproductions import tvtsf

    tvtsf._source()                                   # read the shared data before timing
    t = time.process_time()
    r = tvtsf.cell(scenario=scenario, seed=seed, policy=policy, n_jobs=n_jobs, slots=slots)
    cpu = time.process_time() - t
    digest = hashlib.sha256(pickle.dumps({k: v.to_dict("list") for k, v in r.items()})).hexdigest()
    return {"cpu": cpu, "digest": digest}


def child_all(scenarios: list, policies: list, n_jobs: int, slots: int, seeds: list) -> list:
    """Every (seed, scenario, policy) cell in turn in this process: CPU seconds and digest of each."""
    return [{"seed": seed, "scenario": sc, "policy": pol, **child(sc, pol, n_jobs, slots, seed)}
            for seed in seeds for sc in scenarios for pol in policies]


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ref", default="e281ff2", help="reference commit (issue 16 speed-up: its start)")
    p.add_argument("--scenario", nargs="*", default=["large50"])
    p.add_argument("--one-process", action="store_true",
                   help="all cells of a checkout in one process (per-sample CPU seconds)")
    p.add_argument("--n-jobs", type=int, default=100)
    p.add_argument("--slots", type=int, default=150)
    p.add_argument("--seeds", type=int, nargs="*", default=[0])
    p.add_argument("--policies", nargs="*", default=list(POLICIES))
    p.add_argument("--_child", default="", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a._child == "*":
        print(json.dumps(child_all(a.scenario, a.policies, a.n_jobs, a.slots, a.seeds)))
        return
    if a._child:
        print(json.dumps(child(a.scenario[0], a._child, a.n_jobs, a.slots, a.seeds[0])))
        return
    from fairalloc.experiments.reproductions.tvtsf import data_dir

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ)
    if data_dir() is not None:
        env["FAIRALLOC_DATA"] = str(data_dir())
    bad = 0
    tot = {"ref": 0.0, "new": 0.0}
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", here, "archive", a.ref, "fairalloc"], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        envs = {"ref": {**env, "PYTHONPATH": tmp}, "new": env}
        if a.one_process:
            out = {}
            for which in ("ref", "new"):
                args = [sys.executable, os.path.abspath(__file__), "--_child", "*", "--scenario", *a.scenario,
                        "--n-jobs", str(a.n_jobs), "--slots", str(a.slots), "--seeds", *map(str, a.seeds),
                        "--policies", *a.policies]
                out[which] = json.loads(subprocess.run(args, check=True, capture_output=True, text=True,
                                                       env=envs[which]).stdout)
            for r, n in zip(out["ref"], out["new"]):
                same = r["digest"] == n["digest"]
                bad += not same
                tot["ref"] += r["cpu"]
                tot["new"] += n["cpu"]
                print(f"{r['scenario']} {a.n_jobs}/{a.slots} seed {r['seed']} {r['policy']:<12} CPU {a.ref} "
                      f"{r['cpu']:7.2f} s, this checkout {n['cpu']:7.2f} s, ratio {r['cpu'] / n['cpu']:.2f}  "
                      f"{'same' if same else 'DIFFERENT'}", flush=True)
        for seed in ([] if a.one_process else a.seeds):
            for sc, pol in [(sc, pol) for sc in a.scenario for pol in a.policies]:
                out = {}
                for which in ("ref", "new"):
                    args = [sys.executable, os.path.abspath(__file__), "--_child", pol, "--scenario", sc,
                            "--n-jobs", str(a.n_jobs), "--slots", str(a.slots), "--seeds", str(seed)]
                    out[which] = json.loads(subprocess.run(args, check=True, capture_output=True, text=True,
                                                           env=envs[which]).stdout)
                    tot[which] += out[which]["cpu"]
                same = out["ref"]["digest"] == out["new"]["digest"]
                bad += not same
                print(f"{sc} {a.n_jobs}/{a.slots} seed {seed} {pol:<12} CPU {a.ref} "
                      f"{out['ref']['cpu']:7.2f} s, this checkout {out['new']['cpu']:7.2f} s, ratio "
                      f"{out['ref']['cpu'] / out['new']['cpu']:.2f}  {'same' if same else 'DIFFERENT'}", flush=True)
    print(f"all cells: {a.ref} {tot['ref']:.1f} CPU s, this checkout {tot['new']:.1f} CPU s, "
          f"ratio {tot['ref'] / tot['new']:.2f}; {bad} cell(s) differ")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
