"""The gaps between the stored SDRF / learned-priorities reproductions and the papers (issue 16).

Not a speed benchmark: seeded experiments whose printed figures are quoted in the claim reasons of
``fairalloc/experiments/reproductions/sdrf.py`` and in the docstrings of
``fairalloc/scheduling/progressive.py`` and ``fairalloc/workloads/lublin.py``. Its parts:

``extremes``
    Why SDRF is far from DRF at delta = 1-10^-1 (the paper: about the same). SDRF in the limit
    tau -> 0 (``--tau``, default 10^-3 s) read two ways at the instant a user's allocation changes:
    *before* (fairalloc's Eq. 6: commitments are continuous in time, so at a finish instant they
    still hold the excess the user had just before) and *after* (the commitment jumps at once to the
    new excess: the paper's argument that small delta makes commitments "simply the last
    allocations, so that tasks are allocated as in DRF"). Prints whether each schedule is
    identical to DRF's, the mean task wait and Fig. 4's metric against DRF
    (:func:`fairalloc.experiments.reproductions.sdrf.wait_reduction`). The *after* reading is
    the scheduler's diagnostic option ``jump=True`` (:class:`fairalloc.scheduling.SDRFScheduler`),
    which the compiled loop runs too. ``--readings before`` runs only fairalloc's reading, ``--readings`` alone neither.
``cases``
    The two hand-made cases behind the small-delta analysis (one resource, pool 1, tasks of demand 1
    and 10 s): SDRF with ``--tau`` against DRF, start times per job. *A*: at a finish the finishing
    user's commitment still holds its excess, so another user is served first. *B*: users with
    nothing running whose commitments have decayed to almost nothing are ordered by those
    commitments (by how recently and how much they used), where DRF ties and serves the longest wait.
``starts``
    What a change of the simulator moves: every job's start time under DRF and SDRF(``--deltas``) on
    the workload, saved with ``--save FILE.npz``; ``--compare FILE.npz`` (a file saved by another
    checkout: run this script with ``PYTHONPATH`` at that checkout's package) prints, per run, how
    many jobs start at another time. The stored SDRF reports quote it for issue 25's fixes.
``seeds``
    Fig. 4's metric at delta = 1-10^-5 and 1-10^-6 (and the extremes) over several seeds, at a
    reduced scale that keeps the paper scale's pool / users ratio, tasks per user and tau / horizon:
    ``--users 63 --tasks 100000`` over 29 days (the paper scale is 627 users, 10^6 tasks, 29 days).
``events``
    Live-tree swap events per task scheduled (Fig. 6) for delta per second and for delta per
    microsecond (the Google trace's time unit): delta = 1-10^-1 per microsecond is tau = 9.5 us,
    1-10^-6 per microsecond is tau = 1 s.
``crowding``
    How many tasks of the mean demand the pool holds against the number of users, and the share of
    DRF's task starts that go to a user with nothing running (dominant share 0, where DRF ties).
``lublin``
    Jobs per day of the typeless Lublin generator: the closed form (mean of exp(g), g ~ Gamma(AARR
    ARAR, BARR) truncated at 13; 48 points a day), its spread over ``--seeds`` traces of 10,000 jobs,
    and the model program's ``swf/lublin_256.swf`` (when the data is found).

    python benchmarks/bench_sdrf_gaps.py extremes                    # 63 users, 10^5 tasks, 29 days
    python benchmarks/bench_sdrf_gaps.py cases
    PYTHONPATH=/tmp/old python benchmarks/bench_sdrf_gaps.py starts --save /tmp/old.npz
    python benchmarks/bench_sdrf_gaps.py starts --compare /tmp/old.npz
    python benchmarks/bench_sdrf_gaps.py extremes --users 627 --tasks 1000000   # the stored cell
    python benchmarks/bench_sdrf_gaps.py seeds --seeds 0 1 2 3 4 5 6 7 8 9
    python benchmarks/bench_sdrf_gaps.py events
    python benchmarks/bench_sdrf_gaps.py lublin --seeds 300
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from fairalloc.experiments.reproductions import sdrf
from fairalloc.sim import ResourcePool, simulate
from fairalloc.sim.task_metrics import task_queuing_times

DAY = 86400.0


def _changed(self, user, demand, extra, *, started):
        super()._changed(user, demand, extra, started=started)
        self._c0[user] = list(self._excess[user])
        self._t0[user] = self._now


def _run(wl, pool, label, **kw):
    """One simulation; returns (users table in sdrf.cell's columns, launches array, stats dict)."""
    t = time.process_time()
    r = simulate(wl, pool, **kw)
    u = r.task_users()
    users = pd.DataFrame({"user": u["user"].to_numpy(), "mean_wait": u["mean_queuing"].to_numpy()})
    users["pool_fraction"] = 0.5
    users["delta"] = label
    lf = r.launches[["job", "tasks", "start"]].to_numpy()
    st = {"swaps": int(r.stats.get("swaps", 0)), "decisions": int(r.stats.get("decisions", 0)),
          "mean_task_wait_days": float(np.mean(task_queuing_times(r))) / DAY,
          "cpu_s": time.process_time() - t, "engine": r.stats.get("engine")}
    return users, lf, st


def _fig4(users_drf, users_x):
    red = sdrf.wait_reduction(pd.concat([users_drf, users_x], ignore_index=True))
    row = red.iloc[0]
    return f"Fig. 4 metric {row['reduction']:.1f}% (median {row['median_reduction']:.1f}%, {int(row['users'])} users)"


def _workload(a, seed):
    wl = sdrf.workload(n_users=a.users, n_tasks=a.tasks, horizon=a.days * DAY, rng=seed, params="subset")
    return wl, ResourcePool.from_workload(wl, a.fraction)


def extremes(a) -> None:
    for seed in a.seeds:
        wl, pool = _workload(a, seed)
        print(f"seed {seed}: {a.users} users, {a.tasks:,} tasks over {a.days:g} days, pool {a.fraction:.0%} of R, "
              f"blocking {a.blocking!r}")
        base = dict(blocking=a.blocking)
        ud, ld, sd = _run(wl, pool, np.nan, policy="drf", **base)
        print(f"  DRF: mean task wait {sd['mean_task_wait_days']:.2f} days ({sd['cpu_s']:.0f} CPU s)")
        rows = [("SDRF tau=%g s, before-change reading (fairalloc)" % a.tau, dict(policy="sdrf", tau=a.tau), False)
                for _ in range("before" in a.readings)]
        rows += [("SDRF tau=%g s, after-change reading (diagnostic)" % a.tau,
                  dict(policy="sdrf", tau=a.tau, jump=True), True) for _ in range("after" in a.readings)]
        rows += [(f"SDRF delta={d:.7g} per s", dict(policy="sdrf", delta=d), False) for d in a.deltas]
        for k, (name, kw, _after) in enumerate(rows):
            ux, lx, sx = _run(wl, pool, 0.5 + k * 1e-3, **kw, **base)
            same = lx.shape == ld.shape and bool((lx == ld).all())
            moved = _jobs_moved(ld, lx)
            print(f"  {name}: schedule identical to DRF: {same} ({moved:,} of {len(wl):,} jobs start at another "
                  f"time); mean task wait {sx['mean_task_wait_days']:.2f} "
                  f"days; {_fig4(ud, ux)}; swaps per task {sx['swaps'] / max(sx['decisions'], 1):.3g} "
                  f"({sx['engine'] or 'event engine'}, {sx['cpu_s']:.0f} CPU s)", flush=True)


def _jobs_moved(la, lb) -> int:
    """Jobs whose first start differs between two launch arrays (job, tasks, start)."""
    def first(l):
        out: dict = {}
        for j, _, t in l:
            out[int(j)] = min(out.get(int(j), np.inf), t)
        return out
    fa_, fb = first(la), first(lb)
    return sum(fa_.get(j) != fb.get(j) for j in set(fa_) | set(fb))


#: The two hand-made cases of ``cases`` (rows: submit, user, run time; one task of demand 1 each, pool 1).
CASES = {
    "A (a finish: the finishing user's commitment still holds its excess)":
        ([(0, 0, 10), (1, 0, 10), (2, 1, 10)], 2),
    "B (idle users ordered by decayed commitments, DRF by the longest wait)":
        ([(0, 0, 10), (5, 2, 10), (11, 0, 10), (12, 1, 10)], 3),
}


def cases(a) -> None:
    from fairalloc.workloads import Workload

    for name, (rows, n) in CASES.items():
        sub, usr, rt = zip(*rows)
        wl = Workload(submit=list(sub), run_time=list(rt), tasks=[1] * len(rows), user=list(usr),
                      resources=[[1.0]] * len(rows))
        print(f"case {name}; jobs (submit, user, run time): {rows}")
        for label, kw in (("DRF", dict(policy="drf")), (f"SDRF tau={a.tau:g} s", dict(policy="sdrf", tau=a.tau))):
            r = simulate(wl, ResourcePool([1.0]), **kw)
            starts = ", ".join(f"user {u} job {j} at {s:g}" for j, (u, s) in enumerate(zip(wl.user, r.jobs["start"])))
            print(f"  {label}: {starts}")


def starts(a) -> None:
    for seed in a.seeds:
        wl, pool = _workload(a, seed)
        runs = {"drf": dict(policy="drf")}
        runs.update({f"sdrf {d!r}": dict(policy="sdrf", delta=d) for d in a.deltas})
        got = {}
        for name, kw in runs.items():
            t = time.process_time()
            got[f"{seed} {name}"] = simulate(wl, pool, blocking=a.blocking, **kw).jobs["start"].to_numpy()
            print(f"seed {seed} {name}: {time.process_time() - t:.0f} CPU s", flush=True)
        if a.save:
            np.savez(a.save, **got)
        if a.compare:
            old = np.load(a.compare)
            for k, v in got.items():
                if k not in old:
                    print(f"  {k}: not in {a.compare}")
                    continue
                w = old[k]
                moved = ~((v == w) | (np.isnan(v) & np.isnan(w)))
                shift = np.abs(v - w)[moved]
                print(f"  {k}: {int(moved.sum()):,} of {len(v):,} jobs start at another time"
                      + (f" (median shift {np.nanmedian(shift):.3g} s)" if moved.any() else ""), flush=True)


def seeds(a) -> None:
    res = []
    for seed in a.seeds:
        wl, pool = _workload(a, seed)
        ud, _, _ = _run(wl, pool, np.nan, policy="drf", blocking=a.blocking)
        tabs = [ud]
        for d in a.deltas:
            ux, _, _ = _run(wl, pool, d, policy="sdrf", delta=d, blocking=a.blocking)
            tabs.append(ux)
        red = sdrf.wait_reduction(pd.concat(tabs, ignore_index=True))
        red["seed"] = seed
        res.append(red)
        print(f"seed {seed}: " + ", ".join(f"1-{1 - d:.0e}: {r:.1f}%" for d, r in zip(red["delta"], red["reduction"])),
              flush=True)
    r = pd.concat(res)
    piv = r.pivot(index="seed", columns="delta", values="reduction")
    print(f"{a.users} users, {a.tasks:,} tasks over {a.days:g} days, pool {a.fraction:.0%} of R; Fig. 4 metric (%) "
          "per seed:")
    print(piv.round(1).to_string())
    print("mean, sd over seeds:", {f"1-{1 - d:.0e}": (round(piv[d].mean(), 1), round(piv[d].std(), 1)) for d in piv})
    if len(a.deltas) >= 2 and {1 - 1e-5, 1 - 1e-6} <= set(np.round(piv.columns, 12)):
        c5 = piv.columns[np.isclose(piv.columns, 1 - 1e-5, rtol=0, atol=1e-12)][0]
        c6 = piv.columns[np.isclose(piv.columns, 1 - 1e-6, rtol=0, atol=1e-12)][0]
        diff = piv[c5] - piv[c6]
        print(f"1-10^-5 minus 1-10^-6: mean {diff.mean():.2f} points, sd {diff.std():.2f}, "
              f"1-10^-5 ahead on {int((diff > 0).sum())} of {len(diff)} seeds")


def events(a) -> None:
    for seed in a.seeds:
        wl, pool = _workload(a, seed)
        cases = [(f"delta=1-10^-{k} per s (tau {-1 / np.log1p(-10.0 ** -k):.3g} s)", dict(delta=1 - 10.0 ** -k))
                 for k in (1, 6)]
        cases += [(f"delta=1-10^-{k} per us (tau {-1e-6 / np.log1p(-10.0 ** -k):.3g} s)",
                   dict(tau=-1e-6 / np.log1p(-10.0 ** -k))) for k in (1, 6)]
        for name, kw in cases:
            _, _, s = _run(wl, pool, 0.5, policy="sdrf", blocking=a.blocking, **kw)
            print(f"seed {seed}, {a.users} users, {a.tasks:,} tasks over {a.days:g} days: {name}: "
                  f"{s['swaps'] / max(s['decisions'], 1):.4g} swap events per task ({s['swaps']:,} / "
                  f"{s['decisions']:,})", flush=True)


def crowding(a) -> None:
    for seed in a.seeds:
        wl, pool = _workload(a, seed)
        tot = np.asarray(pool.totals, dtype=float).ravel()
        each = np.repeat(wl.resources, wl.tasks, axis=0)
        fit_mean = float(np.min(tot / each.mean(0)))
        fit_med = float(np.min(tot / np.median(each, axis=0)))
        busy_mean = float(np.mean(np.repeat(wl.run_time, wl.tasks)))
        print(f"seed {seed}: {a.users} users, {a.tasks:,} tasks over {a.days:g} days, pool {a.fraction:.0%} of R: "
              f"it holds {fit_mean:.1f} tasks of the mean demand, {fit_med:.1f} of the median demand, against "
              f"{a.users} users; {a.tasks / (a.days * DAY) * busy_mean:.1f} tasks run at once on average at 100% of R")
        if a.no_sim:
            continue
        r = simulate(wl, pool, policy="drf", blocking=a.blocking)
        lf = r.launches
        user = r.jobs.set_index("row").loc[lf["job"].to_numpy(), "user"].to_numpy()
        start, end = lf["start"].to_numpy(), lf["end"].to_numpy()
        alone = np.ones(len(lf), dtype=bool)
        busy: dict = {}
        for k in range(len(lf)):        # a start "from share 0": no earlier launch of its user still runs
            u = int(user[k])
            ends = [e for e in busy.get(u, []) if e > start[k]]
            alone[k] = not ends
            busy[u] = ends + [end[k]]
        w = lf["tasks"].to_numpy()
        print(f"  DRF: {np.sum(w[alone]) / np.sum(w):.1%} of the tasks started went to a user with nothing running "
              "(dominant share 0: DRF ties, which SDRF's commitments order by history at every delta)")


def lublin(a) -> None:
    from scipy import integrate, stats

    from fairalloc.workloads.lublin import LUBLIN_TYPELESS as P, TOO_MUCH_ARRIVE_TIME, lublin as gen

    shape, scale = P.aarr * P.arar, P.barr
    z = stats.gamma.cdf(TOO_MUCH_ARRIVE_TIME, shape, scale=scale)
    mean_gap = integrate.quad(lambda x: np.exp(x) * stats.gamma.pdf(x, shape, scale=scale), 0,
                              TOO_MUCH_ARRIVE_TIME)[0] / z
    print(f"typeless: E[exp(g)] = {mean_gap:.1f} s of rush-hour time per arrival; 48 points a day -> "
          f"{48 * 1800 / mean_gap:.2f} jobs per day expected")
    tilted = shape * scale / (1 - scale)
    print(f"the mean of exp(g) is carried by g near {tilted:.2f} (exp: {np.exp(tilted) / 3600:.1f} h gaps), "
          f"while g's own mean is {shape * scale:.2f} ({np.exp(shape * scale) / 60:.1f} min)")
    rates = []
    for s in range(a.seeds_n):
        wl = gen(n_jobs=10_000, nodes=256, typed=False, rng=s)
        rates.append(len(wl) / (wl.submit.max() / DAY))
    r = np.array(rates)
    print(f"{a.seeds_n} traces of 10,000 jobs (seeds 0..{a.seeds_n - 1}): jobs per day mean {r.mean():.1f}, "
          f"median {np.median(r):.1f}, 5-95% {np.percentile(r, 5):.1f}..{np.percentile(r, 95):.1f}, "
          f"max {r.max():.1f}; at least 112: {(r >= 112).mean():.1%}")
    from fairalloc.experiments.reproductions.tvtsf import data_dir

    d = data_dir()
    f = None if d is None else d / "swf" / "lublin_256.swf"
    if f is not None and f.is_file():
        sub = np.loadtxt(f, comments=";")[:, 1]
        print(f"model program's lublin_256.swf: {len(sub):,} jobs over {sub.max() / DAY:.1f} days = "
              f"{len(sub) / (sub.max() / DAY):.1f} jobs per day")
        from fairalloc.workloads.lublin import arrival_weights

        w = arrival_weights(P.anum, P.bnum)
        cum = np.concatenate([[0.0], np.cumsum(w)])

        def points(t):                 # the model's points spent by time t (48 a day)
            day = np.floor(t / DAY)
            rem = t - day * DAY
            b = np.minimum((rem // 1800).astype(int), 47)
            return day * 48 + cum[b] + (rem - b * 1800) / 1800 * w[b]

        gaps = np.diff(points(np.sort(sub))) * 1800
        g = np.log(gaps[gaps > 0])
        print(f"its log inter-arrival times in the model's points (x 1800 s): mean {g.mean():.3f}, variance "
              f"{g.var():.3f}; the model's g: mean {shape * scale:.3f}, variance {shape * scale ** 2:.3f} "
              "(before truncation at 13)")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("part", choices=["extremes", "cases", "starts", "seeds", "events", "crowding", "lublin"])
    p.add_argument("--users", type=int, default=63)
    p.add_argument("--tasks", type=int, default=100_000)
    p.add_argument("--days", type=float, default=29.0)
    p.add_argument("--fraction", type=float, default=0.5)
    p.add_argument("--blocking", default="stop", choices=["stop", "skip"])
    p.add_argument("--tau", type=float, default=1e-3)
    p.add_argument("--deltas", type=float, nargs="*", default=None)
    p.add_argument("--seeds", type=int, nargs="*", default=None)
    p.add_argument("--no-sim", action="store_true", help="crowding: the pool's size only, no DRF run")
    p.add_argument("--save", default=None, help="starts: save the start times to this .npz file")
    p.add_argument("--compare", default=None, help="starts: compare with the start times of this .npz file")
    p.add_argument("--readings", nargs="*", default=["before", "after"], choices=["before", "after"],
                   help="extremes: the tau readings to run (none: only DRF and --deltas)")
    a = p.parse_args(argv)
    if a.part == "lublin":
        a.seeds_n = (a.seeds or [300])[0]
    else:
        a.seeds = a.seeds if a.seeds is not None else ([0, 1, 2, 3, 4] if a.part == "seeds" else [0])
    if a.deltas is None:
        a.deltas = {"extremes": [0.9, 1 - 1e-7], "seeds": [0.9, 1 - 1e-5, 1 - 1e-6, 1 - 1e-7],
                    "starts": [1 - 10.0 ** -k for k in range(1, 8)]}.get(a.part, [])
    {"extremes": extremes, "cases": cases, "starts": starts, "seeds": seeds, "events": events, "crowding": crowding,
     "lublin": lublin}[a.part](a)


if __name__ == "__main__":
    main()
