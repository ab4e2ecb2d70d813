"""The live tree against a brute-force oracle (hypothesis state machines).

After every step, the tree's in-order keys must be the elements sorted by their priority at the
current time, computed here independently of the tree:
``p(t) = max_k (a_k + b_k * exp(-(t - t0) / tau))``. Priorities that differ by less than 1e-9
(relative) may appear in either order (rounding; see the module docstring of ``live_tree``);
elements with identical trajectories are always tied and must follow their tie values (drawn from a
small set, so that equal ones are common), then their keys.

Swap counts: with one line per element, the difference of two priorities is monotone in time between
mutations, so every pair swaps at most once per ``advance`` and the number of swap events must equal
the number of pairs whose order differs before and after (the Kendall distance of the two brute-force
orders). With a maximum of lines (SDRF shape) pairs may cross several times: the count must be at
least that distance and of the same parity.
"""

from __future__ import annotations

import math

import hypothesis.strategies as st
from hypothesis import settings
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from fairalloc.kinetic import LiveTree, ResortQueue

TOL = 1e-9
KEYS = st.integers(min_value=0, max_value=11)
DTS = st.sampled_from([0.0, 0.05, 0.1, 0.25, 0.25, 0.5, 0.5, 1.0, 2.0, 3.0])
#: tie values (the schedulers pass the oldest pending submission time; 0.0 for ties="index")
TIES = st.sampled_from([0.0, 0.0, 0.0, -1.0, 2.5])


def oracle_value(traj, t, tau):
    a, b, t0 = traj
    if tau is None:
        return max(ak + bk for ak, bk in zip(a, b))
    u = math.exp(-(t - t0) / tau)
    return max(ak + bk * u for ak, bk in zip(a, b))


def oracle_slope(traj, t, tau):
    """Coefficient beta of the line active just after t (the largest value, ties: smallest slope)."""
    a, b, t0 = traj
    if tau is None:
        return 0.0
    u = math.exp(-(t - t0) / tau)
    best = max(range(len(a)), key=lambda k: (a[k] + b[k] * u, -b[k]))
    return b[best] * u


def kendall(order1, order2):
    pos = {k: i for i, k in enumerate(order2)}
    seq = [pos[k] for k in order1]
    return sum(1 for i in range(len(seq)) for j in range(i + 1, len(seq)) if seq[i] > seq[j])


def canonical(traj):
    a, b, t0 = traj
    return (a, None, None) if all(x == 0 for x in b) else (a, b, t0)


# --- trajectories ------------------------------------------------------------------------------
GRID = st.sampled_from([-1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0])


@st.composite
def affine_lines(draw):
    """Generic affine in u: one line a + b u, any signs."""
    return (draw(GRID),), (draw(GRID),)


@st.composite
def sdrf_lines(draw, n_resources=2):
    """SDRF level shape: a_r = s + obar_r, b_r = c0_r - obar_r (commitments c0, excess obar >= 0)."""
    s = draw(st.sampled_from([0.0, 0.1, 0.2, 0.3, 0.5]))
    obar = [draw(st.sampled_from([0.0, 0.05, 0.1, 0.2])) for _ in range(n_resources)]
    c0 = [draw(st.sampled_from([0.0, 0.1, 0.2, 0.3, 0.5])) for _ in range(n_resources)]
    return tuple(s + o for o in obar), tuple(c - o for c, o in zip(c0, obar))


class _TreeMachine(RuleBasedStateMachine):
    lines = None          # strategy of (intercepts, slopes)
    single_line = False   # enables the exact swap-count check

    def __init__(self):
        super().__init__()
        self.model = {}   # key -> (a, b, t0)
        self.ties = {}    # key -> tie value
        self.tree = None
        self.resort = None
        self.tau = None

    @initialize(tau=st.sampled_from([None, 0.5, 1.0, 2.0, 2.0]), t_start=st.sampled_from([0.0, 7.0, 1e6]),
                n=st.integers(min_value=2, max_value=8), data=st.data())
    def setup(self, tau, t_start, n, data):
        self.tau = tau
        self.tree = LiveTree(tau, time=t_start, load=4)     # tiny blocks: exercise splits/merges
        self.resort = ResortQueue(tau, time=t_start)
        for key in range(n):
            self.insert(key, data, 0.0)

    # --- oracle --------------------------------------------------------------------------------
    def oracle_order(self):
        t = self.tree.now
        return sorted(self.model, key=lambda k: (oracle_value(self.model[k], t, self.tau),
                                                 -oracle_slope(self.model[k], t, self.tau),
                                                 self.ties[k], k))

    def near_tie(self):
        """Two different trajectories whose priorities differ by rounding only (or not at all) now."""
        t = self.tree.now
        pairs = sorted(((oracle_value(tr, t, self.tau), canonical(tr)) for tr in self.model.values()),
                       key=lambda p: p[0])
        return any(v2 - v1 <= TOL * (1 + abs(v1) + abs(v2)) and c1 != c2
                   for (v1, c1), (v2, c2) in zip(pairs, pairs[1:]))

    def t0_choice(self, back):
        return max(self.tree.now - back, 0.0) if self.tree.now - back >= 0 else self.tree.now

    def check_no_swaps(self, swaps_before, tie_before=False):
        """A mutation places the element where it belongs: no swap event is needed to repair it."""
        if not (tie_before or self.near_tie()):
            assert self.tree.swaps == swaps_before

    # --- rules ---------------------------------------------------------------------------------
    @rule(key=KEYS, data=st.data(), back=st.sampled_from([0.0, 0.0, 0.5, 2.0]))
    def insert(self, key, data, back):
        if key in self.model:
            return
        a, b = data.draw(self.lines)
        tie = data.draw(TIES)
        t0 = self.t0_choice(back)
        swaps = self.tree.swaps
        self.tree.insert(key, a, b, t0=t0, tie=tie)
        self.resort.insert(key, a, b, t0=t0, tie=tie)
        self.model[key] = (a, b, t0)
        self.ties[key] = tie
        self.check_no_swaps(swaps)

    @precondition(lambda self: self.model)
    @rule(data=st.data())
    def remove(self, data):
        key = data.draw(st.sampled_from(sorted(self.model)))
        swaps = self.tree.swaps
        tie_before = self.near_tie()
        self.tree.remove(key)
        self.resort.remove(key)
        del self.model[key]
        del self.ties[key]
        self.check_no_swaps(swaps, tie_before)

    @precondition(lambda self: self.model)
    @rule(data=st.data(), back=st.sampled_from([0.0, 0.0, 1.0]))
    def update(self, data, back):
        key = data.draw(st.sampled_from(sorted(self.model)))
        a, b = data.draw(self.lines)
        tie = data.draw(TIES)
        t0 = self.t0_choice(back)
        swaps = self.tree.swaps
        tie_before = self.near_tie()
        self.tree.update(key, a, b, t0=t0, tie=tie)
        self.resort.update(key, a, b, t0=t0, tie=tie)
        self.model[key] = (a, b, t0)
        self.ties[key] = tie
        self.check_no_swaps(swaps, tie_before)

    @rule(dt=DTS)
    def advance(self, dt):
        self._advance(dt)

    @rule(dt=DTS)
    def advance_more(self, dt):     # advancing is the interesting step: make it twice as likely
        self._advance(dt)

    def _advance(self, dt):
        tie_before = self.near_tie()
        before = self.oracle_order()
        swaps0 = self.tree.swaps
        t = self.tree.now + dt
        n = self.tree.advance(t)
        self.resort.advance(t)
        assert self.tree.now == t
        assert n == self.tree.swaps - swaps0
        if tie_before or self.near_tie():
            return
        after = self.oracle_order()
        dist = kendall(before, after)
        if self.single_line:
            assert n == dist, f"{n} swap events, but {dist} pairs changed order"
        else:
            assert n >= dist and (n - dist) % 2 == 0, f"{n} swap events for a Kendall distance {dist}"

    # --- invariants ----------------------------------------------------------------------------
    @invariant()
    def order_matches_brute_force(self):
        if self.tree is None:
            return
        order = list(self.tree)
        assert sorted(order) == sorted(self.model)
        assert len(self.tree) == len(self.model)
        t = self.tree.now
        vals = [oracle_value(self.model[k], t, self.tau) for k in order]
        for i in range(len(order) - 1):
            v1, v2 = vals[i], vals[i + 1]
            assert v1 <= v2 + TOL * (1 + abs(v1) + abs(v2)), (order, vals)
        pos = {k: i for i, k in enumerate(order)}
        for k1 in order:
            for k2 in order:
                if ((self.ties[k1], k1) < (self.ties[k2], k2)
                        and canonical(self.model[k1]) == canonical(self.model[k2])):
                    assert pos[k1] < pos[k2], f"identical trajectories {k1}, {k2} out of (tie, key) order"
        if not self.near_tie():
            assert order == self.oracle_order()
            assert order == list(self.resort)
            nt, nr = self.tree.next_event_time, self.resort.next_event_time
            assert nt == nr or math.isclose(nt, nr, rel_tol=1e-9, abs_tol=1e-9), (nt, nr)
        if order:
            assert self.tree.min() == order[0]
            for k in order:
                assert math.isclose(self.tree.priority(k), oracle_value(self.model[k], t, self.tau),
                                    rel_tol=1e-12, abs_tol=1e-12)


class AffineMachine(_TreeMachine):
    lines = affine_lines()
    single_line = True


class SDRFMachine(_TreeMachine):
    lines = sdrf_lines()


TestAffineLiveTree = AffineMachine.TestCase
TestAffineLiveTree.settings = settings(stateful_step_count=40)
TestSDRFLiveTree = SDRFMachine.TestCase
TestSDRFLiveTree.settings = settings(stateful_step_count=40)
