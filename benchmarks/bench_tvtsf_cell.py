"""TV-TSF reproduction cells: CPU seconds per policy against a reference commit, and the same results (issue 16).

Runs :func:`fairalloc.experiments.reproductions.tvtsf.cell` (one sample of one scenario) for every
policy, once with the package in this checkout and once with the package of ``--ref`` (exported with
``git archive`` into a temporary directory), alternating, each in a fresh subprocess; prints the CPU
seconds of each (``time.process_time`` around the cell: comparable on a loaded machine), their
ratio, and whether the cell's tables (per-user times and the run row) are identical. Exits 1 if any
cell differs.

    python benchmarks/bench_tvtsf_cell.py --ref e281ff2 --scenario large50 --n-jobs 100 --slots 150 --seeds 0

The paper scale is ``--n-jobs 400 --slots 600`` (one cell takes minutes there).
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


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ref", default="e281ff2", help="reference commit (issue 16 speed-up: its start)")
    p.add_argument("--scenario", default="large50")
    p.add_argument("--n-jobs", type=int, default=100)
    p.add_argument("--slots", type=int, default=150)
    p.add_argument("--seeds", type=int, nargs="*", default=[0])
    p.add_argument("--policies", nargs="*", default=list(POLICIES))
    p.add_argument("--_child", default="", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a._child:
        print(json.dumps(child(a.scenario, a._child, a.n_jobs, a.slots, a.seeds[0])))
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
        for seed in a.seeds:
            for pol in a.policies:
                out = {}
                for which in ("ref", "new"):
                    args = [sys.executable, os.path.abspath(__file__), "--_child", pol, "--scenario", a.scenario,
                            "--n-jobs", str(a.n_jobs), "--slots", str(a.slots), "--seeds", str(seed)]
                    out[which] = json.loads(subprocess.run(args, check=True, capture_output=True, text=True,
                                                           env=envs[which]).stdout)
                    tot[which] += out[which]["cpu"]
                same = out["ref"]["digest"] == out["new"]["digest"]
                bad += not same
                print(f"{a.scenario} {a.n_jobs}/{a.slots} seed {seed} {pol:<12} CPU {a.ref} "
                      f"{out['ref']['cpu']:7.2f} s, this checkout {out['new']['cpu']:7.2f} s, ratio "
                      f"{out['ref']['cpu'] / out['new']['cpu']:.2f}  {'same' if same else 'DIFFERENT'}", flush=True)
    print(f"all cells: {a.ref} {tot['ref']:.1f} CPU s, this checkout {tot['new']:.1f} CPU s, "
          f"ratio {tot['ref'] / tot['new']:.2f}; {bad} cell(s) differ")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
