"""Schedules unchanged: compare the simulator's runs with those of a reference commit (issues 11, 26).

Runs every built-in policy through ``fa.simulate``, once with the package in this checkout and once
with the package of ``--ref`` (exported with ``git archive`` into a temporary directory and run in a
subprocess), and compares exactly: every launch (job, tasks, server, start, end, killed), every job's
start and end, and the decisions, swap and wake-up counts.

* The task schedulers on one pool (``google_like`` with 627 users at 50% of R): DRF, SDRF (several
  deltas, both priority readings), TSF and CDRF, with continuous times (few ties) and with times
  rounded to whole seconds and demands to a coarse grid (many ties), ties ``"wait"`` and ``"index"``;
* ``--wide`` (default on) adds, on the first seed: the other blocking rule, the ``"resort"`` and
  ``"heap"`` structures, weights and initial commitments, SDRF's wake-ups ``"any"`` and off, each
  policy through the event engine as well (``engine="events"``), the four task schedulers on 8 servers
  with placement and each server rule (``first_fit``, ``best_fit``, ``tvtsf``), the slotted policies
  (``tvtsf``, ``tsf``/``cdrf`` with ``slot=``, ``tsf-static``, ``cdrf-static``) on TV-TSF's cluster,
  and the job-queue policies (FCFS, EASY, SJF, WFP3, UNICEF, F1, F2, BUC, with and without EASY, both
  engines for FCFS and EASY) on a Lublin workload.

    python benchmarks/check_schedules.py --ref 6a78e97 --tasks 20000 --seeds 0 1 2

Prints one line per run and exits 1 if any run differs. ``--ref-cache FILE`` keeps the reference's
digests in FILE (computed once per set of arguments). With ``--time-tasks N`` it then times DRF and
SDRF (delta = 1 - 1e-6, 50% of R) on an N-task 627-user workload, alternating reference and checkout
``--repeat`` times (each in a fresh subprocess), and prints the best decisions per CPU second of
each and their ratio (same run, so comparable on a loaded machine):

    python benchmarks/check_schedules.py --ref 6a78e97 --tasks 0 --time-tasks 1000000 --repeat 3

``--time-delta`` times SDRF at another delta (e.g. 0.9, where the live tree swaps most and a blocked
scheduler is woken most; issue 25).

``--cold`` times, for the reference and this checkout, the first ``fa.simulate`` of DRF and then of
SDRF (2,000 tasks) in a fresh process with an empty numba cache (``NUMBA_CACHE_DIR`` a new temporary
directory): the compilation a first run pays, in CPU seconds, and how many compiled signatures of how many
functions it made (numba specialises a function on each argument typing, a literal constant included):

    python benchmarks/check_schedules.py --ref 6a78e97 --tasks 0 --cold
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


def wide_pool_configs(n_users):
    """Options beyond the defaults, on one pool."""
    w = np.random.default_rng(7).uniform(0.5, 2.0, n_users).round(3).tolist()
    c = np.random.default_rng(8).uniform(0.0, 0.02, (n_users, 2)).round(4).tolist()
    yield "drf", {"blocking": "skip"}
    yield "sdrf", {"delta": 0.999, "blocking": "skip"}
    yield "sdrf", {"delta": 0.99, "blocking": "skip", "priority": "printed"}
    yield "tsf", {"blocking": "stop"}
    yield "cdrf", {"blocking": "stop"}
    yield "drf", {"weights": w}
    yield "sdrf", {"delta": 0.999, "weights": w, "commitments": c}
    yield "tsf", {"weights": w}
    yield "cdrf", {"weights": w}
    yield "sdrf", {"delta": 0.9, "wake_on": "any"}
    yield "sdrf", {"delta": 0.9, "wakeups": False}
    yield "sdrf", {"tau": 50.0, "priority": "printed"}
    for structure in ("resort", "heap"):
        yield "drf", {"structure": structure}
        yield "sdrf", {"delta": 0.999, "structure": structure}
        yield "sdrf", {"delta": 0.99, "structure": structure, "blocking": "skip"}
        yield "tsf", {"structure": structure}
    for mech, kw in configs():
        yield mech, {**kw, "engine": "events"}


def servers_configs():
    for rule in ("first_fit", "best_fit", "tvtsf"):
        yield "drf", {"server": rule}
        yield "sdrf", {"delta": 0.999, "server": rule}
        yield "sdrf", {"delta": 0.99, "server": rule, "blocking": "skip", "priority": "printed"}
        yield "tsf", {"server": rule}
        yield "cdrf", {"server": rule}
        yield "drf", {"server": rule, "blocking": "skip", "engine": "events"}
        yield "sdrf", {"delta": 0.999, "server": rule, "engine": "events"}


def slot_configs():
    yield "tvtsf", {}
    yield "tvtsf", {"server": "first_fit", "ties": "index"}
    yield "tsf", {"slot": 1.0}
    yield "cdrf", {"slot": 2.0}
    yield "tsf-static", {}
    yield "cdrf-static", {}


def queue_configs():
    for name in ("fcfs", "easy", "sjf", "wfp3", "unicef", "f1", "f2", "buc"):
        yield name, {}
        if name not in ("fcfs", "easy"):
            yield name + "+easy", {}
    yield "fcfs", {"engine": "events"}
    yield "easy", {"engine": "events"}
    yield "easy", {"enforce_walltime": True}


def digest(result) -> dict:
    h = hashlib.sha256()
    if result.launches is not None:
        for key in ("job", "tasks", "server", "start", "end", "killed"):
            h.update(np.ascontiguousarray(result.launches[key].to_numpy()).tobytes())
    for key in ("start", "end"):
        h.update(np.ascontiguousarray(result.jobs[key].to_numpy()).tobytes())
    s = result.stats
    return {"sha": h.hexdigest()[:16], "decisions": s.get("decisions"), "swaps": s.get("swaps"),
            "wakeups": s.get("wakeups"),
            "launches": None if result.launches is None else int(len(result.launches["job"]))}


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


def _servers(pool, n_users, seed):
    """8 servers whose capacities sum to the pool's (uneven shares), and a placement: every user on
    at least 3 of them."""
    import fairalloc as fa
    rng = np.random.default_rng(seed)
    share = rng.dirichlet(np.ones(8) * 2.0, size=pool.shape[0]).T     # (8, K), columns sum to 1
    caps = np.maximum(share * pool, pool / 40.0)
    placement = rng.random((n_users, 8)) < 0.6
    for u in range(n_users):
        placement[u, rng.choice(8, 3, replace=False)] = True
    return fa.Cluster(caps), placement


def _run(name, wl, capacity, mech, kw, out, placement=None):
    import fairalloc as fa
    kw = dict(kw)
    engine = kw.pop("engine", "auto")
    walltime = kw.pop("enforce_walltime", False)
    try:
        r = fa.simulate(wl, capacity, policy=mech, placement=placement, engine=engine, enforce_walltime=walltime,
                        **kw)
        out[name] = digest(r)
    except Exception as exc:                   # an option the reference does not know: say so
        out[name] = {"error": f"{type(exc).__name__}: {exc}"[:200]}


def run_all(users, tasks, seeds, wide) -> dict:
    import fairalloc as fa
    from fairalloc.sim import ResourcePool
    out = {}
    for seed in seeds:
        for tied in (False, True):
            wl = workload(users, tasks, seed, tied)
            pool = ResourcePool.from_workload(wl, 0.5)
            for mech, kw in configs():
                for ties in ("wait", "index"):
                    name = f"seed={seed} tied={tied} {mech} {json.dumps(kw, sort_keys=True)} ties={ties}"
                    _run(name, wl, pool, mech, {**kw, "ties": ties}, out)
    if not wide:
        return out
    seed = seeds[0] if seeds else 0
    for tied in (False, True):
        wl = workload(users, tasks, seed, tied)
        pool = ResourcePool.from_workload(wl, 0.5)
        for mech, kw in wide_pool_configs(users):
            name = f"pool seed={seed} tied={tied} {mech} {json.dumps(kw, sort_keys=True)[:120]}"
            _run(name, wl, pool, mech, kw, out)
        cluster, placement = _servers(np.asarray(pool.totals, dtype=float), users, seed)
        for mech, kw in servers_configs():
            for ties in ("wait", "index"):
                name = f"servers seed={seed} tied={tied} {mech} {json.dumps(kw, sort_keys=True)} ties={ties}"
                _run(name, wl, cluster, mech, {**kw, "ties": ties}, out, placement)
    slotted = fa.workloads.alibaba_like(max(tasks // 100, 50), rng=seed)
    for mech, kw in slot_configs():
        name = f"slots seed={seed} {mech} {json.dumps(kw, sort_keys=True)}"
        _run(name, slotted, fa.clusters.tvtsf_table3(), mech, kw, out)
    jobs = fa.workloads.lublin(max(tasks // 4, 500), nodes=128, rng=seed)
    for mech, kw in queue_configs():
        name = f"queue seed={seed} {mech} {json.dumps(kw, sort_keys=True)}"
        _run(name, jobs, 128, mech, kw, out)
    return out


def time_one(users, tasks, mech, delta=1 - 1e-6) -> tuple[float, int]:
    """Decisions per CPU second of one ``fa.simulate`` run (``time.process_time``: on a machine shared
    with other jobs, less sensitive to the load than wall time; workload generation not timed), and
    its wake-ups. numba is imported before the clock starts (6a78e97 imports it with
    ``fairalloc.sim``, later versions at the first compiled call; import times are measured apart),
    so the run's time includes loading its compiled code from the cache but not the import."""
    import time

    import numba  # noqa: F401

    import fairalloc as fa
    from fairalloc.sim import ResourcePool
    wl = fa.workloads.google_like(users, tasks, rng=0)
    pool = ResourcePool.from_workload(wl, 0.5)
    kw = {"delta": delta} if mech == "sdrf" else {}
    t = time.process_time()
    r = fa.simulate(wl, pool, policy=mech, **kw)
    return r.stats["decisions"] / (time.process_time() - t), r.stats["wakeups"]


def cold_one(users) -> list[str]:
    """CPU seconds of the first ``fa.simulate`` of DRF, then of SDRF, in this process (its numba cache
    empty: the caller's ``NUMBA_CACHE_DIR``)."""
    import time

    t0 = time.process_time()
    import fairalloc as fa
    from fairalloc.sim import ResourcePool
    wl = fa.workloads.google_like(users, 2000, rng=0)
    pool = ResourcePool.from_workload(wl, 0.5)
    out = []
    for mech in ("drf", "sdrf"):
        t = time.process_time()
        fa.simulate(wl, pool, policy=mech, **({"delta": 1 - 1e-6} if mech == "sdrf" else {}))
        out.append(f"{mech} {time.process_time() - t:.1f}")
    out.append(f"process {time.process_time() - t0:.1f}")
    found = {id(v): v for name, mod in list(sys.modules.items()) if name.startswith("fairalloc")   # dispatchers
             for v in vars(mod).values() if hasattr(v, "signatures") and hasattr(v, "py_func")}
    sigs = [len(v.signatures) for v in found.values() if v.signatures]
    out.append(f"compilations {sum(sigs)} of {len(sigs)} functions")
    return out


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ref", default="6a78e97", help="reference commit (issue 26: the branch's start)")
    p.add_argument("--ref-cache", default="", help="keep the reference's digests in this JSON file")
    p.add_argument("--narrow", action="store_true", help="only the pool runs of every seed (no --wide set)")
    p.add_argument("--users", type=int, default=627)
    p.add_argument("--tasks", type=int, default=20_000)
    p.add_argument("--seeds", type=int, nargs="*", default=[0, 1, 2])
    p.add_argument("--time-tasks", type=int, default=0, help="also time DRF/SDRF at this many tasks")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--_child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--time-delta", type=float, default=1 - 1e-6, help="SDRF's delta when timing")
    p.add_argument("--_time", default="", help=argparse.SUPPRESS)
    p.add_argument("--cold", action="store_true", help="also time the first call with an empty numba cache")
    p.add_argument("--_cold", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a._cold:
        print(", ".join(cold_one(a.users)))
        return
    if a._time:
        print(*time_one(a.users, a.time_tasks, a._time, a.time_delta))
        return
    if a._child:
        print(json.dumps(run_all(a.users, a.tasks, a.seeds, not a.narrow)))
        return
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", here, "archive", a.ref, "fairalloc"], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        args = [sys.executable, os.path.abspath(__file__), "--_child", "--users", str(a.users),
                "--tasks", str(a.tasks), "--seeds", *map(str, a.seeds)] + (["--narrow"] if a.narrow else [])
        ref_env = {**os.environ, "PYTHONPATH": tmp}
        key = json.dumps([a.ref, a.users, a.tasks, a.seeds, a.narrow])
        cache = {}
        if a.ref_cache and os.path.exists(a.ref_cache):
            with open(a.ref_cache) as f:
                cache = json.load(f)
        if key in cache:
            ref = cache[key]
        else:
            ref = json.loads(subprocess.run(args, check=True, capture_output=True, text=True,
                                            env=ref_env).stdout) if a.tasks else {}
            if a.ref_cache and a.tasks:
                cache[key] = ref
                with open(a.ref_cache, "w") as f:
                    json.dump(cache, f)
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
        for which, env in (("ref", ref_env), ("new", dict(os.environ))) if a.cold else ():
            with tempfile.TemporaryDirectory() as cache:
                out = subprocess.run([sys.executable, os.path.abspath(__file__), "--users", str(a.users), "--_cold"],
                                     check=True, capture_output=True, text=True,
                                     env={**env, "NUMBA_CACHE_DIR": cache}).stdout.strip()
            print(f"first call, empty numba cache, CPU s: {a.ref if which == 'ref' else 'this checkout'}: {out}")
    for mech in ("drf", "sdrf") if rates else ():
        r0, r1 = max(rates[mech, "ref"]), max(rates[mech, "new"])
        what = f"sdrf delta={a.time_delta!r}" if mech == "sdrf" else mech
        print(f"{what} {a.time_tasks:,} tasks, best of {a.repeat}: {a.ref} {r0:,.0f}/s, this checkout "
              f"{r1:,.0f}/s, ratio {r1 / r0:.3f}  (all: ref {[round(x) for x in rates[mech, 'ref']]}, "
              f"new {[round(x) for x in rates[mech, 'new']]}; wake-ups ref {wakes[mech, 'ref']}, "
              f"new {wakes[mech, 'new']})")
    new = run_all(a.users, a.tasks, a.seeds, not a.narrow) if a.tasks else {}
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
