"""Mutation check of the decision core, the keys and the kinetic tree (issue 26), with cosmic-ray.

Mutates ``fairalloc/scheduling/core.py``, ``fairalloc/scheduling/keys.py`` and
``fairalloc/kinetic/tree_core.py`` with cosmic-ray's operators and runs, for each mutant, the tests
that specify them (the reference validator on simulated schedules, the live tree against brute force,
the SDRF wake-up oracle, the tie rule, tiny commitments, and the three modules' doctests), stopping at
the first failure. The functions are numba-compiled in production; here they run as Python
(``NUMBA_DISABLE_JIT=1``: the same source) so that a mutant costs no compilation.

The work happens in a copy of the checkout (``git archive HEAD``) in a temporary folder: the
checkout is never modified. ``--sample N`` runs a seeded random sample of N mutants (the others are
marked skipped), since the full run is long on a shared machine; the kill rate is reported with its
95% Wilson interval, and the survivors' diffs are written to ``--survivors FILE`` for review (an
equivalent mutant, one no test can tell apart from the original, is not a test gap).

    nice -n 10 python benchmarks/mutation_core.py --sample 120 --seed 0 --survivors /tmp/survivors.txt

Not part of CI. Needs the ``bench`` extra (``pip install -e .[bench]``: cosmic-ray).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MODULES = ["fairalloc/scheduling/core.py", "fairalloc/scheduling/keys.py", "fairalloc/kinetic/tree_core.py"]
TESTS = ["tests/unit/sim/test_validated_schedules.py", "tests/unit/kinetic/test_live_tree.py",
         "tests/unit/sim/test_sdrf_wakeups.py", "tests/unit/scheduling/test_ties.py",
         "tests/unit/scheduling/test_tiny_commitments.py", *MODULES]


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion k/n."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return c - h, c + h


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sample", type=int, default=0, help="run this many mutants, drawn with --seed (0: all)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--ref", default="HEAD", help="the commit whose files are mutated")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds per mutant's tests")
    p.add_argument("--survivors", default="", help="write the surviving mutants' diffs here")
    p.add_argument("--keep", default="", help="work in this folder (kept) instead of a temporary one")
    a = p.parse_args(argv)
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult

    here = Path(__file__).resolve().parent.parent
    tmp_ctx = tempfile.TemporaryDirectory() if not a.keep else None
    work = Path(a.keep or tmp_ctx.name)
    work.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(here), "archive", a.ref, "fairalloc", "tests", "proofs_check",
                              "pyproject.toml"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(work)], input=archive, check=True)
    test_cmd = (f"{sys.executable} -m pytest -x -q -p no:cacheprovider -p no:randomly "
                + " ".join(TESTS))
    config = work / "cr.toml"
    config.write_text(
        "[cosmic-ray]\n"
        f"module-path = {json.dumps(MODULES)}\n"
        f"timeout = {a.timeout}\n"
        "excluded-modules = []\n"
        f"test-command = {json.dumps(test_cmd)}\n"
        "[cosmic-ray.distributor]\nname = \"local\"\n")
    db = work / "session.sqlite"
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": str(work), "PYTHONDONTWRITEBYTECODE": "1"}
    cr = [sys.executable, "-m", "cosmic_ray.cli"]
    base = subprocess.run(test_cmd.split(), cwd=work, env=env, capture_output=True, text=True, check=False)
    if base.returncode != 0:                  # every mutant would count as killed
        print(base.stdout[-3000:])
        raise SystemExit("the tests fail on the unmutated code: fix them first")
    if not db.exists():
        subprocess.run([*cr, "init", str(config), str(db)], cwd=work, env=env, check=True)
    with use_db(str(db), WorkDB.Mode.open) as wdb:
        items = list(wdb.pending_work_items)
        total = wdb.num_work_items
        if a.sample and a.sample < len(items):
            rng = random.Random(a.seed)
            keep = {w.job_id for w in rng.sample(sorted(items, key=lambda w: w.job_id), a.sample)}
            skip = [w.job_id for w in items if w.job_id not in keep]
            wdb.set_multiple_results(skip, WorkResult(worker_outcome=WorkerOutcome.SKIPPED))
    print(f"{total} mutants of {', '.join(MODULES)}; running {a.sample or total} (seed {a.seed})", flush=True)
    t0 = time.time()
    subprocess.run([*cr, "exec", str(config), str(db)], cwd=work, env=env, check=True)
    wall = time.time() - t0
    killed = survived = incompetent = timeouts = 0
    lines = []
    with use_db(str(db), WorkDB.Mode.open) as wdb:
        for item, result in wdb.completed_work_items:
            if result.worker_outcome == WorkerOutcome.SKIPPED:
                continue
            if result.worker_outcome != WorkerOutcome.NORMAL or result.test_outcome == TestOutcome.INCOMPETENT:
                incompetent += 1            # the mutant could not be imported or run (abnormal, exception)
                continue
            if result.test_outcome == TestOutcome.SURVIVED:
                survived += 1
                m = item.mutations[0]
                lines.append(f"--- {m.module_path}:{m.start_pos[0]} {m.operator_name} #{m.occurrence}\n{result.diff}\n")
            else:
                killed += 1                  # a test failed, or the tests timed out (counted as killed)
                timeouts += result.output == "timeout"
    n = killed + survived
    lo, hi = wilson(killed, n)
    print(f"ran {n + incompetent} mutants: {killed} killed, {survived} survived, {incompetent} incompetent "
          f"(not importable or crashed before the tests); kill rate {killed}/{n} = {killed / max(n, 1):.1%} "
          f"(95% Wilson interval {lo:.1%} - {hi:.1%}; {timeouts} of the killed by the time-out); {wall:.0f} s wall")
    if a.survivors:
        Path(a.survivors).write_text("".join(lines))
        print(f"survivors' diffs: {a.survivors}")
    if tmp_ctx is not None:
        tmp_ctx.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
