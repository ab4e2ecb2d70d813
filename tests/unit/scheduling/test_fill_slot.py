"""TV-TSF Algorithm 2 for one slot (tvtsf.fill_slot, compiled) against a by-definition reference.

The reference below recomputes every active user's key from its definition at each decision
(TV-TSF / TSF: the ratio num/den with num grown by the job's increment; CDRF:
shares.dominant_share_after_one of usage plus the head task), picks the smallest (key, tie, index)
with min() over the active users (no heap), tests every server with shares.task_fits_rows and the
placement, and picks the server as Algorithm 4 says (H over the free capacities in units of the
totals, lowest index among equal H) or first fit, or asks a callable rule. A user whose head task
fits nowhere leaves the slot (FREEZE); one whose jobs are all started leaves too."""

import numpy as np
import pytest

from fairalloc import shares
from fairalloc.scheduling import FreeCapacity
from fairalloc.scheduling.tvtsf import DOMINANT_AFTER, RATIO, fill_slot


def reference(free, placement, totals, jobs, kind, num, den, usage, weights, rule):
    free = free.copy()
    num = np.array(num, dtype=float)
    usage = np.array(usage, dtype=float)
    queue = {i: [list(j) for j in q] for i, q in jobs.items()}
    active = set(queue)
    starts, rounds = [], 0

    def key(i):
        d = queue[i][0][0]
        if kind == RATIO:
            return num[i] / den[i]
        return shares.dominant_share_after_one(usage[i].tolist(), d.tolist(), totals.tolist(), weights[i])

    while active:
        i = min(active, key=lambda u: (key(u), queue[u][0][3], u))
        rounds += 1
        d, _, inc, _ = queue[i][0]
        ok = shares.task_fits_rows(free, d) & placement[i]
        if not ok.any():
            active.discard(i)
            continue
        idx = np.flatnonzero(ok)
        if rule == "first_fit":
            m = int(idx[0])
        elif rule == "tvtsf":
            k = int(np.flatnonzero(d > 0)[0])
            h = [np.abs((d / totals) / (d[k] / totals[k]) - (free[s] / totals) / (free[s, k] / totals[k])).sum()
                 for s in idx]
            m = int(idx[int(np.argmin(h))])       # argmin: the first (lowest index) of equal values
        else:
            m = int(rule(free.copy(), d, ok.copy()))
        free[m] -= d
        starts.append((i, m))
        num[i] += inc
        usage[i] += d
        queue[i][0][1] -= 1
        if queue[i][0][1] == 0:
            queue[i].pop(0)
        if not queue[i]:
            active.discard(i)
    return starts, rounds, free


def last_eligible(free, demand, eligible):
    """A callable server rule: the highest-index server where the task fits and the user may run."""
    return int(np.flatnonzero(eligible)[-1])


def instance(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(2, 7)), int(rng.integers(1, 5))
    cap = rng.integers(2, 10, (m, 2)).astype(float)
    pl = rng.random((n, m)) < 0.7
    pl[:, 0] = True
    free = cap * rng.uniform(0.2, 1.0, (m, 1))
    jobs = {}
    for i in sorted(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False).tolist()):
        jobs[i] = [(rng.integers(1, 4, 2) / 2.0, int(rng.integers(1, 5)), float(rng.choice([1.0, 0.25, 0.5])),
                    float(rng.integers(0, 3))) for _ in range(int(rng.integers(1, 4)))]
    num = rng.integers(0, 4, n).astype(float)
    den = rng.integers(1, 4, n).astype(float)
    usage = rng.integers(0, 3, (n, 2)).astype(float)
    weights = rng.choice([1.0, 2.0], n)
    return cap, pl, free, jobs, num, den, usage, weights


@pytest.mark.parametrize("rule", ["tvtsf", "first_fit", last_eligible])
@pytest.mark.parametrize("kind", [RATIO, DOMINANT_AFTER])
def test_fill_slot_is_algorithm_2_by_definition(kind, rule):
    # 40 seeded random slots per (key, server rule): the same starts in the same order, the same
    # rounds, the same free capacity after, and the caller's arrays untouched.
    for seed in range(40):
        cap, pl, free, jobs, num, den, usage, weights = instance(seed)
        servers = FreeCapacity(cap, pl, rule)
        for s in range(cap.shape[0]):                       # bring the free capacity to `free`
            servers.take(s, cap[s] - free[s])
        start_free = servers.free.copy()
        got = []
        num0, usage0 = num.copy(), usage.copy()
        rounds = fill_slot(servers, jobs, kind=kind, num=num, den=den, usage=usage, weights=weights,
                           start=lambda i, m, got=got: got.append((i, m)))
        want, want_rounds, want_free = reference(start_free, pl, servers.totals, jobs, kind, num, den, usage,
                                                 weights, rule)
        assert got == want and rounds == want_rounds, seed
        assert servers.free.tolist() == want_free.tolist(), seed
        assert num.tolist() == num0.tolist() and usage.tolist() == usage0.tolist()


def test_fill_slot_freezes_and_breaks_ties_by_hand():
    # Two servers <2, 2> and <4, 4> (totals <6, 6>); users 0 and 1 with tasks <1, 1>, user 0 allowed on
    # server 0 only. Keys num/den: user 0 0/1, user 1 0/2 (equal, 0); ties 1 and 0: user 1 first.
    # Algorithm 4: both servers have the task's shape (H = 0): the lower index, server 0. Then user 0
    # (key 0 < 1/2) on server 0, which is then full; user 1 (1/2 < 1) on server 1 (H = 0); keys 1 and
    # 1: user 1 (tie 0) on server 1; user 0 (key 1) fits nowhere: frozen; user 1 (3/2, 2) fills
    # server 1 (4 tasks there) and is frozen: 8 rounds.
    servers = FreeCapacity(np.array([[2.0, 2.0], [4.0, 4.0]]), np.array([[1, 0], [1, 1]], dtype=bool), "tvtsf")
    jobs = {0: [(np.array([1.0, 1.0]), 9, 1.0, 1.0)], 1: [(np.array([1.0, 1.0]), 9, 1.0, 0.0)]}
    got = []
    rounds = fill_slot(servers, jobs, kind=RATIO, num=[0.0, 0.0], den=[1.0, 2.0],
                       start=lambda i, m: got.append((i, m)))
    assert got == [(1, 0), (0, 0), (1, 1), (1, 1), (1, 1), (1, 1)]
    assert rounds == 8 and servers.free.tolist() == [[0.0, 0.0], [0.0, 0.0]]
