"""Start-up time of the command line and of ``import fairalloc`` (issue 32), against a bare interpreter.

Each command runs ``--runs`` times in a fresh interpreter, interleaved (so that load changes hit all
alike); printed per command: minimum and median wall seconds, minimum and median CPU seconds (user +
system of the child), and the ratio of median CPU to the baseline ``python -c pass`` of the same run.
``--tree DIR`` (repeatable) measures other source trees too (``PYTHONPATH=DIR``), e.g. a checkout of
an older commit, side by side.

    python benchmarks/bench_startup.py                      # this tree, 10 runs
    python benchmarks/bench_startup.py --runs 20 --tree /path/to/other/checkout
    python benchmarks/bench_startup.py --importtime         # and the 12 slowest imports of --help

Goal (issue 32): ``fairalloc --help`` under 0.3 s on a quiet machine.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

COMMANDS = {
    "python -c pass (baseline)": ["-c", "pass"],
    "import fairalloc": ["-c", "import fairalloc"],
    "fairalloc --help": ["-m", "fairalloc", "--help"],
    "fairalloc --version": ["-m", "fairalloc", "--version"],
    "fairalloc solve --list-examples": ["-m", "fairalloc", "solve", "--list-examples"],
    "import fairalloc; fa.drf": ["-c", "import fairalloc as fa; fa.drf"],
}


def _once(argv: list[str], tree: str) -> tuple[float, float]:
    env = {**os.environ, "PYTHONPATH": tree}
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, *argv], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True, cwd=tree)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--tree", action="append", default=[], help="another source tree to measure beside this one")
    ap.add_argument("--importtime", action="store_true", help="also print the slowest imports of --help")
    args = ap.parse_args()
    trees = [str(ROOT), *args.tree]
    res: dict[tuple[str, str], list[tuple[float, float]]] = {(c, t): [] for c in COMMANDS for t in trees}
    load0 = open("/proc/loadavg").read().split()[:3] if Path("/proc/loadavg").exists() else ["?"]
    for _ in range(args.runs):
        for c, argv in COMMANDS.items():
            for t in trees:
                res[(c, t)].append(_once(argv, t))
    load1 = open("/proc/loadavg").read().split()[:3] if Path("/proc/loadavg").exists() else ["?"]
    print(f"{args.runs} runs each, interleaved; {os.cpu_count()} CPUs; load average before {' '.join(load0)}, "
          f"after {' '.join(load1)}")
    for t in trees:
        base = statistics.median(u for _, u in res[(next(iter(COMMANDS)), t)])
        print(f"\n{t}")
        print(f"  {'command':34s} {'wall min':>9s} {'median':>8s} {'cpu min':>9s} {'median':>8s} {'cpu / baseline':>15s}")
        for c in COMMANDS:
            w = [x for x, _ in res[(c, t)]]
            u = [x for _, x in res[(c, t)]]
            print(f"  {c:34s} {min(w):9.3f} {statistics.median(w):8.3f} {min(u):9.3f} {statistics.median(u):8.3f} "
                  f"{statistics.median(u) / base:14.1f}x")
    if args.importtime:
        run = subprocess.run([sys.executable, "-X", "importtime", "-m", "fairalloc", "--help"], capture_output=True,
                             text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=str(ROOT))
        rows = [line.split("|") for line in run.stderr.splitlines() if line.startswith("import time:")
                and "self" not in line]
        rows = sorted(rows, key=lambda r: -int(r[1]))[:12]
        print("\nslowest imports of fairalloc --help (cumulative microseconds):")
        for r in rows:
            print(f"  {int(r[1]):9d}  {r[2].strip()}")


if __name__ == "__main__":
    main()
