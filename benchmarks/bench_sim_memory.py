"""Memory a task simulation allocates and keeps (issue 26: the month's peak memory against the old code).

Runs ``fa.simulate`` once on ``google_like(627, --tasks)`` over ``--days`` days (the month's arrival rate
at the defaults: 10^6 tasks over 0.906 days), pool 50% of R, after a small warm-up run (compilation
outside the measurement), with :mod:`tracemalloc` on during the call only, and prints the traced peak
during the call and what is still allocated after it returns (the result and whatever else stays alive),
the process's resident peak, then the largest allocations still held, by traceback. ``tracemalloc``
counts allocations, not time: the figures do not depend on the machine's load. To compare with an older
checkout, run this file with that checkout first on ``PYTHONPATH`` (``git archive REV | tar -x -C DIR``).

    python benchmarks/bench_sim_memory.py --tasks 1000000 --policy drf
"""

from __future__ import annotations

import argparse
import resource
import tracemalloc

import fairalloc as fa
from fairalloc.sim import ResourcePool


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=1_000_000)
    ap.add_argument("--days", type=float, default=None, help="horizon (default: the month's arrival rate)")
    ap.add_argument("--policy", default="drf")
    ap.add_argument("--top", type=int, default=6, help="allocations still held, shown by traceback")
    a = ap.parse_args()
    days = a.days if a.days is not None else 0.90625 * a.tasks / 1e6
    small = fa.workloads.google_like(627, 2000, rng=1)
    fa.simulate(small, ResourcePool.from_workload(small, 0.5), policy=a.policy)
    wl = fa.workloads.google_like(627, a.tasks, rng=0, horizon=days * 86400.0)
    pool = ResourcePool.from_workload(wl, 0.5)
    tracemalloc.start(8)
    result = fa.simulate(wl, pool, policy=a.policy)      # held while measured: it is what a caller keeps
    held, peak = tracemalloc.get_traced_memory()
    snap = tracemalloc.take_snapshot()
    tracemalloc.stop()
    print(f"google_like(627, {a.tasks:,}) over {days:g} days, {len(wl):,} jobs, policy {a.policy}: "
          f"{int(result.launches['job'].shape[0]) if hasattr(result, 'launches') else 'n/a'} launches")
    print(f"traced during simulate: peak {peak / 1e6:.1f} MB, still held after {held / 1e6:.1f} MB; "
          f"process resident peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    for st in snap.statistics("traceback")[:a.top]:
        frame = st.traceback[-1]
        print(f"  {st.size / 1e6:7.2f} MB in {st.count:,} blocks  {frame.filename.split('site-packages/')[-1]}:{frame.lineno}")


if __name__ == "__main__":
    main()
