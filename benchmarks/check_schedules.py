"""Schedules unchanged: compare the task simulator's runs with those of a reference commit (issue 11).

Runs DRF, SDRF (several deltas, both priority readings), TSF and CDRF through ``fa.simulate`` on
``google_like`` workloads with 627 users, with continuous times (few ties) and with times rounded to
whole seconds and demands to a coarse grid (many ties), ties ``"wait"`` and ``"index"``, once with the
package in this checkout and once with the package of ``--ref`` (exported with ``git archive`` into a
temporary directory and run in a subprocess), and compares exactly: every launch (job, tasks, server,
start, end, killed), every job's start and end, and the decisions, swap and wake-up counts.

    python benchmarks/check_schedules.py --ref 83cc3da --tasks 20000 --seeds 0 1 2

Prints one line per run and exits 1 if any run differs. With ``--time-tasks N`` it then times DRF
and SDRF (delta = 1 - 1e-6, 50% of R) on an N-task 627-user workload, alternating reference and
checkout ``--repeat`` times (each in a fresh subprocess), and prints the best decisions per CPU second of each and
their ratio (same run, so comparable on a loaded machine):

    python benchmarks/check_schedules.py --ref 83cc3da --tasks 20000 --time-tasks 100000 --repeat 3

``--time-delta`` times SDRF at another delta (e.g. 0.9, where the live tree swaps most and a blocked
scheduler is woken most; issue 25).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile

import numpy as np


def configs():
    for delta in (None, 1 - 1e-1, 1 - 1e-3, 1 - 1e-6):
        if delta is None:
            yield "drf", {}
        else:
            yield "sdrf", {"delta": delta}
    yield "sdrf", {"delta": 1 - 1e-4, "priority": "printed"}
    yield "tsf", {}
    yield "cdrf", {}


def digest(result) -> dict:
    h = hashlib.sha256()
    for key in ("job", "tasks", "server", "start", "end", "killed"):
        h.update(np.ascontiguousarray(result.launches[key].to_numpy()).tobytes())
    for key in ("start", "end"):
        h.update(np.ascontiguousarray(result.jobs[key].to_numpy()).tobytes())
    s = result.stats
    return {"sha": h.hexdigest()[:16], "decisions": s["decisions"], "swaps": s["swaps"],
            "wakeups": s["wakeups"], "launches": int(len(result.launches["job"]))}


def workload(users, tasks, seed, tied):
    import fairalloc as fa
    wl = fa.workloads.google_like(users, tasks, rng=seed)
    if tied:                                   # whole seconds and a coarse demand grid: many ties
        res = np.asarray(wl.resources, dtype=float)
        grid = res.max(axis=0) / 8.0
        res = np.maximum(np.round(res / grid), 1.0) * grid
        wl = wl.replace(submit=np.floor(wl.submit), run_time=np.maximum(np.ceil(wl.run_time), 1.0),
                        resources=res)
    return wl


def run_all(users, tasks, seeds) -> dict:
    import fairalloc as fa
    from fairalloc.sim import ResourcePool
    out = {}
    for seed in seeds:
        for tied in (False, True):
            wl = workload(users, tasks, seed, tied)
            pool = ResourcePool.from_workload(wl, 0.5)
            for mech, kw in configs():
                for ties in ("wait", "index"):
                    r = fa.simulate(wl, pool, policy=mech, ties=ties, **kw)
                    name = f"seed={seed} tied={tied} {mech} {json.dumps(kw, sort_keys=True)} ties={ties}"
                    out[name] = digest(r)
    return out


def time_one(users, tasks, mech, delta=1 - 1e-6) -> tuple[float, int]:
    """Decisions per CPU second of one ``fa.simulate`` run (``time.process_time``: on a machine shared
    with other jobs, less sensitive to the load than wall time; workload generation not timed), and
    its wake-ups."""
    import time

    import fairalloc as fa
    from fairalloc.sim import ResourcePool
    wl = fa.workloads.google_like(users, tasks, rng=0)
    pool = ResourcePool.from_workload(wl, 0.5)
    kw = {"delta": delta} if mech == "sdrf" else {}
    t = time.process_time()
    r = fa.simulate(wl, pool, policy=mech, **kw)
    return r.stats["decisions"] / (time.process_time() - t), r.stats["wakeups"]


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ref", default="83cc3da", help="reference commit (issue 11: the branch's start)")
    p.add_argument("--users", type=int, default=627)
    p.add_argument("--tasks", type=int, default=20_000)
    p.add_argument("--seeds", type=int, nargs="*", default=[0, 1, 2])
    p.add_argument("--time-tasks", type=int, default=0, help="also time DRF/SDRF at this many tasks")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--_child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--time-delta", type=float, default=1 - 1e-6, help="SDRF's delta when timing")
    p.add_argument("--_time", default="", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a._time:
        print(*time_one(a.users, a.time_tasks, a._time, a.time_delta))
        return
    if a._child:
        print(json.dumps(run_all(a.users, a.tasks, a.seeds)))
        return
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", here, "archive", a.ref, "fairalloc"], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        args = [sys.executable, os.path.abspath(__file__), "--_child", "--users", str(a.users),
                "--tasks", str(a.tasks), "--seeds", *map(str, a.seeds)]
        ref_env = {**os.environ, "PYTHONPATH": tmp}
        ref = json.loads(subprocess.run(args, check=True, capture_output=True, text=True,
                                        env=ref_env).stdout) if a.tasks else {}
        rates: dict[tuple[str, str], list[float]] = {}
        wakes: dict[tuple[str, str], int] = {}
        for _ in range(a.repeat if a.time_tasks else 0):
            for mech in ("drf", "sdrf"):
                for which, env in (("ref", ref_env), ("new", dict(os.environ))):
                    targs = [sys.executable, os.path.abspath(__file__), "--users", str(a.users),
                             "--time-tasks", str(a.time_tasks), "--time-delta", repr(a.time_delta),
                             "--_time", mech]
                    out = subprocess.run(targs, check=True, capture_output=True, text=True, env=env)
                    rate, wakes[mech, which] = out.stdout.split()
                    rates.setdefault((mech, which), []).append(float(rate))
    for mech in ("drf", "sdrf") if rates else ():
        r0, r1 = max(rates[mech, "ref"]), max(rates[mech, "new"])
        what = f"sdrf delta={a.time_delta!r}" if mech == "sdrf" else mech
        print(f"{what} {a.time_tasks:,} tasks, best of {a.repeat}: {a.ref} {r0:,.0f}/s, this checkout "
              f"{r1:,.0f}/s, ratio {r1 / r0:.3f}  (all: ref {[round(x) for x in rates[mech, 'ref']]}, "
              f"new {[round(x) for x in rates[mech, 'new']]}; wake-ups ref {wakes[mech, 'ref']}, "
              f"new {wakes[mech, 'new']})")
    new = run_all(a.users, a.tasks, a.seeds) if a.tasks else {}
    bad = 0
    for name in ref:
        same = ref[name] == new.get(name)
        bad += not same
        print(("same  " if same else "DIFF  ") + name + "  " + json.dumps(new.get(name)) +
              ("" if same else "  ref " + json.dumps(ref[name])))
    print(f"{len(ref) - bad} of {len(ref)} runs identical to {a.ref}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
