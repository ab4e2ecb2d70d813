"""Tie-breaking among equal priorities (issue 15 item 2): the oldest pending task first, then the index.

Hand-made cases for every task scheduler (DRF, SDRF, TSF, CDRF), a simulation in which index order
starves high indices and the fair rule does not (waits computed by hand), and a property test
against a plain reference scheduler written here (exact fractions, a full sort at every decision)
for both rules: ``ties="index"`` reproduces the order used before the fix, ``ties="wait"`` the new one.
"""

from __future__ import annotations

from collections import deque
from fractions import Fraction

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given

import fairalloc as fa
from fairalloc.errors import InvalidInstanceError
from fairalloc.scheduling import CDRFScheduler, DRFScheduler, SDRFScheduler, TSFScheduler
from fairalloc.sim import simulate
from fairalloc.workloads import Workload

SCHEDULERS = {"drf": DRFScheduler, "sdrf": SDRFScheduler, "tsf": TSFScheduler, "cdrf": CDRFScheduler}


def _users(starts):
    return [s.user for s in starts]


# ---- hand-made cases ------------------------------------------------------------------------------
@pytest.mark.parametrize("mechanism", sorted(SCHEDULERS))
@pytest.mark.parametrize("structure", ["live_tree", "resort", "heap"])
def test_equal_priorities_longest_wait_first(mechanism, structure):
    # Pool <3, 3>, unit tasks <1, 1>; user 2 submits at t=0, user 0 at t=1, user 1 at t=2, one task
    # each, and nothing is scheduled before t=2. By hand: everybody holds nothing, so every key is
    # equal (DRF/SDRF share 0, TSF 0/3, CDRF 1/3 after the task; SDRF without commitments is DRF).
    # Oldest pending first: user 2 (waited 2), user 0 (1), user 1 (0). Index order: 0, 1, 2.
    for ties, expected in (("wait", [2, 0, 1]), ("index", [0, 1, 2])):
        s = SCHEDULERS[mechanism]([[3, 3]], n_users=3, structure=structure, ties=ties)
        for t, user in ((0.0, 2), (1.0, 0), (2.0, 1)):
            s.advance(t)
            s.submit(user, [1, 1])
        assert _users(s.schedule()) == expected, ties


@pytest.mark.parametrize("mechanism", sorted(SCHEDULERS))
def test_equal_waits_go_to_the_lower_index(mechanism):
    # The same three users all submitting at t=0: equal keys and equal waits -> index order.
    s = SCHEDULERS[mechanism]([[3, 3]], n_users=3)
    for user in (2, 0, 1):
        s.submit(user, [1, 1])
    assert _users(s.schedule()) == [0, 1, 2]


@pytest.mark.parametrize("mechanism", sorted(SCHEDULERS))
def test_wait_counts_from_the_oldest_pending_task(mechanism):
    # Pool <1>, unit tasks. t=0: user 1 submits two tasks; one starts (user 1 alone). t=1: user 0
    # submits one. t=2: user 1's task ends; both hold nothing (equal keys). User 1's oldest pending
    # task was submitted at 0, user 0's at 1: user 1 goes first, though it was the one just served.
    # With index order user 0 would.
    for ties, expected in (("wait", 1), ("index", 0)):
        s = SCHEDULERS[mechanism]([[1.0]], n_users=2, ties=ties)
        s.submit(1, [1.0], count=2)
        (first,) = s.schedule()
        s.advance(1.0)
        s.submit(0, [1.0])
        assert s.schedule() == []
        s.advance(2.0)
        s.finish(first.task)
        assert _users(s.schedule()) == [expected], ties


def test_priority_before_wait():
    # DRF, pool <4, 4>: user 0 holds one <1, 1> task (share 1/4) and has a task pending since t=0;
    # user 1 holds nothing and submits at t=1. Shares differ (1/4 > 0): user 1 first although user 0
    # has waited longer; then user 0 (the pool has room for both).
    s = DRFScheduler([[4, 4]], n_users=2)
    s.submit(0, [1, 1], count=2)
    assert _users(s.schedule(max_starts=1)) == [0]
    s.advance(1.0)
    s.submit(1, [1, 1])
    assert _users(s.schedule()) == [1, 0]


def test_sdrf_commitments_before_wait():
    # SDRF with tau = 1 and commitments held by user 0 only: priorities 0.5 e^{-t} (user 0) and 0
    # (user 1) are not equal, so user 1 goes first though user 0 waited longer (submitted at 0).
    s = SDRFScheduler([[2.0]], n_users=2, tau=1.0, commitments=[[0.5], [0.0]])
    s.submit(0, [1.0])
    s.advance(1.0)
    s.submit(1, [1.0])
    assert _users(s.schedule()) == [1, 0]


def test_bad_ties_name_the_argument():
    with pytest.raises(InvalidInstanceError, match="ties='fair'"):
        DRFScheduler([[1.0]], n_users=1, ties="fair")


# ---- the index bias in a simulation ----------------------------------------------------------------
def test_index_order_starves_high_indices_and_the_fair_rule_does_not():
    # Pool <1>, unit tasks of 1 s: one task at a time. User i (0..4) submits one task at k + 0.1 i
    # for k = 0..3 (20 tasks, 5 per second for a server of 1 per second: a queue forms). At every
    # integer time a task ends and every user holds nothing (equal shares).
    # Index order, by hand: user 0 always has a task pending at t = k (submitted at k) and wins: it
    # runs at 0, 1, 2, 3 (waits 0). Then user 1 at 4..7 (submitted 0.1..3.1: waits 3.9), user 2 at
    # 8..11 (7.8), user 3 at 12..15 (11.7), user 4 at 16..19 (15.6).
    # Oldest pending first is first come, first served over all users: the n-th submission (n = 5k + i)
    # starts at n, so it waits 5k + i - (k + 0.1 i) = 4k + 0.9 i; the user mean over k is 6 + 0.9 i.
    n, K = 5, 4
    submit = [k + 0.1 * i for k in range(K) for i in range(n)]
    user = [i for k in range(K) for i in range(n)]
    wl = Workload(submit=submit, run_time=[1.0] * len(submit), user=user, resources=[[1.0]] * len(submit))
    waits = {}
    for ties in ("index", "wait"):
        r = simulate(wl, [1.0], policy="drf", ties=ties)
        waits[ties] = r.task_users()["mean_queuing"].to_numpy()
    np.testing.assert_allclose(waits["index"], [0.0, 3.9, 7.8, 11.7, 15.6], atol=1e-9)
    np.testing.assert_allclose(waits["wait"], [6 + 0.9 * i for i in range(n)], atol=1e-9)


# ---- property: both rules against a plain reference scheduler -------------------------------------
CAPS = (4, 6)


class Reference:
    """DRF or CDRF task filling on one pool of integer capacities, by a full sort at every decision
    in exact fractions. The key is the dominant share held (DRF) or after the head task (CDRF);
    ties by the head task's submission time (``"wait"``), then the index."""

    def __init__(self, mechanism, n, ties, blocking):
        self.mechanism, self.ties, self.blocking = mechanism, ties, blocking
        self.now = 0.0
        self.pending = [deque() for _ in range(n)]   # [demand, count, submitted, first id]
        self.usage = [[0] * len(CAPS) for _ in range(n)]
        self.free = list(CAPS)
        self.running = {}
        self.next_id = 0

    def key(self, i):
        u = self.usage[i]
        if self.mechanism == "cdrf":
            d = self.pending[i][0][0]
            u = [a + b for a, b in zip(u, d)]
        share = max(Fraction(a, c) for a, c in zip(u, CAPS))
        tie = self.pending[i][0][2] if self.ties == "wait" else 0.0
        return share, tie, i

    def submit(self, i, d, count):
        self.pending[i].append([d, count, self.now, self.next_id])
        self.next_id += count

    def finish(self, task):
        i, d = self.running.pop(task)
        self.usage[i] = [a - b for a, b in zip(self.usage[i], d)]
        self.free = [a + b for a, b in zip(self.free, d)]

    def schedule(self):
        out, skipped = [], set()
        while True:
            active = [i for i, q in enumerate(self.pending) if q and i not in skipped]
            if not active:
                return out
            i = min(active, key=self.key)
            head = self.pending[i][0]
            d = head[0]
            if any(f < x for f, x in zip(self.free, d)):
                if self.blocking == "stop":
                    return out
                skipped.add(i)
                continue
            task = head[3]
            head[3] += 1
            head[1] -= 1
            if head[1] == 0:
                self.pending[i].popleft()
            self.usage[i] = [a + b for a, b in zip(self.usage[i], d)]
            self.free = [a - b for a, b in zip(self.free, d)]
            self.running[task] = (i, d)
            out.append((task, i))


DEMANDS = st.tuples(st.integers(0, 3), st.integers(0, 3)).filter(lambda d: any(d))
OPS = st.lists(st.one_of(
    st.tuples(st.just("submit"), st.integers(0, 3), DEMANDS, st.integers(1, 3)),
    st.tuples(st.just("advance"), st.sampled_from([0.0, 0.5, 1.0])),
    st.tuples(st.just("finish"), st.integers(0, 50)),
    st.tuples(st.just("schedule"))), min_size=1, max_size=40)


@given(OPS, st.sampled_from(["drf", "cdrf"]), st.sampled_from(["wait", "index"]),
       st.sampled_from(["stop", "skip"]), st.sampled_from(["live_tree", "resort", "heap"]))
def test_schedulers_follow_the_reference_order(ops, mechanism, ties, blocking, structure):
    cls = DRFScheduler if mechanism == "drf" else CDRFScheduler
    s = cls([list(CAPS)], n_users=4, ties=ties, blocking=blocking, structure=structure)
    ref = Reference(mechanism, 4, ties, blocking)
    for op in ops + [("schedule",)]:
        if op[0] == "submit":
            s.submit(op[1], list(op[2]), count=op[3])
            ref.submit(op[1], op[2], op[3])
        elif op[0] == "advance":
            s.advance(s.now + op[1])
            ref.now += op[1]
        elif op[0] == "finish" and ref.running:
            task = sorted(ref.running)[op[1] % len(ref.running)]
            s.finish(task)
            ref.finish(task)
        elif op[0] == "schedule":
            assert [(st_.task, st_.user) for st_ in s.schedule()] == ref.schedule()


# ---- slotted schedulers (TV-TSF Algorithm 2, one implementation: tvtsf.fill_slot) ------------------
@pytest.mark.parametrize("policy", ["tsf", "cdrf"])
def test_slotted_equal_keys_oldest_pending_slot_first(policy):
    # One server <1>, unit tasks of one slot. Slot 0: user 1 has 2 tasks, one starts (server full).
    # Slot 1: user 1's task has ended; user 0 submits one. Keys: TSF (tasks running) 0 and 0, CDRF
    # (dominant share after the task) 1 and 1: equal. User 1's pending task is from slot 0, user 0's
    # from slot 1: user 1 first; index order gives user 0.
    from fairalloc.scheduling import OnlineSlotScheduler, slotted_greedy

    for ties, expected in (("wait", 1), ("index", 0)):
        s = OnlineSlotScheduler([[1.0]], n_users=2, policy=policy, ties=ties)
        s.submit(1, [1.0], 2, slot=0)
        (first,) = s.step(0)
        s.finish(first.task)
        s.submit(0, [1.0], 1, slot=1)
        assert _users(s.step(1)) == [expected], ties
        # the same case as a TimeVaryingInstance (arrivals per slot), through SlotScheduler
        tv = fa.TimeVaryingInstance([[1]], [[1], [1]], arrivals=[[0, 1], [2, 0]], durations=[1, 1])
        r = slotted_greedy(tv, policy=policy, ties=ties)
        assert r.tasks[:, 0, 1].tolist() == ([0, 1] if expected == 1 else [1, 0]), ties
