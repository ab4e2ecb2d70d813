"""Benchmark of the learned-priorities trials: the compiled batch against the Python reference trial.

A trial schedules one training state's 48 jobs (|S| = 16 started in trace order, then |Q| = 32 in a
random permutation) on 256 processors and measures AVEbsld over Q (``fairalloc.experiments.learn``).
For each state of a Lublin-Feitelson state set it times, in one process after a warm-up (numba
compilation excluded and reported on its own):

* the reference trial (``reference_trials``, plain Python) on ``--ref-trials`` permutations;
* the compiled batch (``compiled_trials``: ``rigid_batch``, the simulator's one loop with
  ``listed=True``) on ``--trials`` permutations, and checks its AVEbsld equal to the reference's on
  the reference's permutations;

and prints trials per CPU second (and per wall second), the per-trial cost, and the same-run ratio.
With ``--paper-state`` it also runs one state with 250,000 permutations (the paper's |P|) and
reports its wall time, CPU time and peak memory (``tracemalloc``: numpy blocks allocated by the run).

    python benchmarks/bench_learn.py
    python benchmarks/bench_learn.py --states 3 --trials 50000 --ref-trials 300 --backfill --paper-state
    python benchmarks/bench_learn.py --states 1 --trials 1000 --spread 5 --spread-states 32 --spread-trials 20000

``--spread N`` re-fits the paper's forms on N independent state sets (the issue's "spread over 5
seeds"), each through the training pipeline in this process.
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc

import numpy as np


def _timed(fn):
    c0, w0 = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.process_time() - c0, time.perf_counter() - w0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--states", type=int, default=3)
    ap.add_argument("--trials", type=int, default=20000, help="compiled trials per state")
    ap.add_argument("--ref-trials", type=int, default=200, help="reference trials per state")
    ap.add_argument("--backfill", action="store_true", help="also time trials with EASY backfilling")
    ap.add_argument("--paper-state", action="store_true", help="one state with 250,000 trials")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--spread", type=int, default=0, metavar="SEEDS",
                    help="also train SEEDS state sets (fairalloc learn train's pipeline, in this process) and print "
                         "the re-fitted F1/F2 coefficients' mean and spread")
    ap.add_argument("--spread-states", type=int, default=32)
    ap.add_argument("--spread-trials", type=int, default=20000)
    args = ap.parse_args()

    from fairalloc.experiments.learn import random_permutations, reference_trials, training_states
    from fairalloc.experiments.learn.trials import compiled_trials

    print(f"load average: {open('/proc/loadavg').read().split()[:3]}  (pid {os.getpid()})")
    st = training_states(args.states, rng=args.seed)       # the paper's setting: 256 processors, 16 + 32 jobs
    print(f"{len(st)} Lublin states, |S| = {st.started}, |Q| = {st.queued}, {st.capacity} processors")
    _, c, w = _timed(lambda: compiled_trials(st.run_time[0], st.processors[0], st.submit[0], started=st.started,
                                             capacity=st.capacity, permutations=random_permutations(32, 4, rng=0)))
    print(f"warm-up (numba compile or cache load): {c:.2f} CPU s, {w:.2f} s wall")
    gen = np.random.default_rng(args.seed + 1)
    for backfill in ([False, True] if args.backfill else [False]):
        rc = rw = cc = cw = 0.0
        nr = nc = 0
        for i in range(len(st)):
            a = (st.run_time[i], st.processors[i], st.submit[i], st.estimate[i])
            kw = dict(started=st.started, capacity=st.capacity, backfill=backfill)
            pr = random_permutations(st.queued, args.ref_trials, rng=gen)
            ref, c, w = _timed(lambda: reference_trials(*a, permutations=pr, **kw))
            rc, rw, nr = rc + c, rw + w, nr + len(pr)
            same = compiled_trials(*a, permutations=pr, **kw)
            assert np.array_equal(same, ref), f"state {i}: compiled trials differ from the reference"
            pc = random_permutations(st.queued, args.trials, rng=gen)
            _, c, w = _timed(lambda: compiled_trials(*a, permutations=pc, **kw))
            cc, cw, nc = cc + c, cw + w, nc + len(pc)
        label = "EASY" if backfill else "no backfilling"
        print(f"[{label}] reference: {nr} trials, {rc:.2f} CPU s ({nr / rc:,.0f} trials/CPU s, "
              f"{1e6 * rc / nr:.1f} us/trial), {rw:.2f} s wall")
        print(f"[{label}] compiled:  {nc} trials, {cc:.2f} CPU s ({nc / cc:,.0f} trials/CPU s, "
              f"{1e6 * cc / nc:.2f} us/trial), {cw:.2f} s wall ({nc / cw:,.0f} trials/s wall)")
        print(f"[{label}] same run: compiled / reference = {(nc / cc) / (nr / rc):,.0f}x trials per CPU s; "
              f"identical AVEbsld on all {nr} reference trials")
    if args.paper_state:
        perms = random_permutations(st.queued, 250_000, rng=gen)
        tracemalloc.start()
        _, c, w = _timed(lambda: compiled_trials(st.run_time[0], st.processors[0], st.submit[0], started=st.started,
                                                 capacity=st.capacity, permutations=perms))
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"one state, 250,000 trials: {w:.2f} s wall, {c:.2f} CPU s, peak {peak / 2**20:.1f} MiB traced "
              f"(the permutations themselves: {perms.nbytes / 2**20:.1f} MiB)")
    if args.spread:
        _spread(args)
    print(f"load average: {open('/proc/loadavg').read().split()[:3]}")


def _spread(args) -> None:
    """The paper's forms re-fitted on ``args.spread`` independent state sets (seeds 0..N-1)."""
    import tempfile

    import pandas as pd

    from fairalloc.experiments.learn import table1_coefficients
    from fairalloc.experiments.learn.pipeline import train

    rows = []
    for seed in range(args.spread):
        with tempfile.TemporaryDirectory() as d:
            res, c, w = _timed(lambda: train(d, states=args.spread_states, per_cell=args.spread_states,
                                             trials=args.spread_trials, seed=seed, workers=0))
        rk = res["ranking"]
        for name in ("F1", "F2"):
            for k, v in rk[name].coefficients.items():
                rows.append({"seed": seed, "form": name, "coefficient": k, "value": v})
        print(f"seed {seed}: {c:.1f} CPU s, {w:.1f} s wall; best form {rk.best.name} (held-out MAE "
              f"{rk.best.test_mae:.4g}, constant {rk.baseline_mae:.4g})")
    t = pd.DataFrame(rows).groupby(["form", "coefficient"])["value"].agg(["mean", "std", "min", "max"])
    t["table1"] = [table1_coefficients(f)[k] for f, k in t.index]
    t["cv"] = t["std"] / t["mean"].abs()
    print(f"re-fitted over {args.spread} state sets of {args.spread_states} states x {args.spread_trials} trials "
          "(decimal log; F1's c1 is Table 1's c1*c2):")
    print(t.to_string(float_format=lambda x: f"{x:.4g}"))


if __name__ == "__main__":
    main()
