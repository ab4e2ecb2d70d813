"""Unit tests of the live tree: hand-computed crossing times, the max over resources, ties, numerics."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairalloc.kinetic import LiveTree, ResortQueue

STRUCTURES = [LiveTree, ResortQueue]


def test_single_crossing_time_is_exact():
    # a = 0.5 constant; b = 1.0 * e^{-t/2}: equal when e^{-t/2} = 0.5, i.e. t = 2 ln 2 (by hand).
    tree = LiveTree(tau=2.0)
    tree.insert("a", [0.5])
    tree.insert("b", [0.0], [1.0])
    assert list(tree) == ["a", "b"]
    assert tree.next_event_time == pytest.approx(2 * math.log(2), rel=1e-15)
    assert tree.advance(2 * math.log(2) * (1 - 1e-12)) == 0
    assert list(tree) == ["a", "b"]
    assert tree.advance(2 * math.log(2) * (1 + 1e-12)) == 1
    assert list(tree) == ["b", "a"] and tree.swaps == 1


def test_max_over_resources():
    # x: max(0.3 + 0.5u, 0.55), u = e^{-t}: 0.8 at t=0, the first line until 0.3 + 0.5u = 0.55
    #    (u = 0.5, t = ln 2), then constant 0.55.
    # y: 0.2 + 0.45u: 0.65 at t=0, decreasing to 0.2.     z: constant 0.6.
    # By hand: at t=0 the order is z (0.6), y (0.65), x (0.8).
    #   y meets z when 0.2 + 0.45u = 0.6: u = 8/9, t = ln(9/8).
    #   x meets z when 0.3 + 0.5u = 0.6: u = 0.6, t = ln(5/3); afterwards x <= 0.6 for ever.
    #   x - y = 0.1 + 0.05u > 0 on x's first piece; on the second, y <= 0.2 + 0.45 * 0.5 < 0.55 = x.
    # So two swaps: [z, y, x] -> [y, z, x] at ln(9/8) -> [y, x, z] at ln(5/3).
    tree = LiveTree(tau=1.0)
    tree.insert("x", [0.3, 0.55], [0.5, 0.0])
    tree.insert("y", [0.2], [0.45])
    tree.insert("z", [0.6])
    assert list(tree) == ["z", "y", "x"]
    assert tree.next_event_time == pytest.approx(math.log(9 / 8), rel=1e-14)
    tree.advance(0.5 * (math.log(9 / 8) + math.log(5 / 3)))
    assert list(tree) == ["y", "z", "x"] and tree.swaps == 1
    assert tree.next_event_time == pytest.approx(math.log(5 / 3), rel=1e-14)
    tree.advance(10.0)
    assert list(tree) == ["y", "x", "z"] and tree.swaps == 2
    assert tree.priority("x") == pytest.approx(0.55, abs=1e-12)


def test_envelope_breakpoint_crossing():
    # x: max(0.5 + 0.5u, 0.9): equals 0.9 from u = 0.8 (t = ln 1.25) on. y: 0.95 - 0.3u (rising to 0.95).
    # At t=0: x = 1.0, y = 0.65. x meets y on its first piece when 0.5 + 0.5u = 0.95 - 0.3u: u = 0.5625,
    # but x's first piece ends at u = 0.8 (x = 0.9 there, y = 0.71): no crossing on it. On the second
    # piece x = 0.9 = 0.95 - 0.3u at u = 1/6: t = ln 6 (by hand).
    tree = LiveTree(tau=1.0)
    tree.insert("x", [0.5, 0.9], [0.5, 0.0])
    tree.insert("y", [0.95], [-0.3])
    assert list(tree) == ["y", "x"]
    assert tree.next_event_time == pytest.approx(math.log(6), rel=1e-14)
    tree.advance(math.log(6) + 1e-9)
    assert list(tree) == ["x", "y"]


@pytest.mark.parametrize("cls", STRUCTURES)
def test_ties_by_trend_then_key(cls):
    q = cls(tau=1.0)
    q.insert(5, [0.5])                 # constant 0.5
    q.insert(3, [0.5])                 # identical: key order 3 before 5
    q.insert(4, [0.0], [0.5])          # 0.5 now, decreasing: first just after now
    q.insert(1, [1.0], [-0.5])         # 0.5 now, increasing: last
    assert list(q) == [4, 3, 5, 1]
    assert q.min() == 4


def test_identical_trajectories_never_swap():
    tree = LiveTree(tau=0.5)
    for k in range(6):
        tree.insert(k, [0.1, 0.2], [0.3, -0.1])
    tree.advance(100.0)
    assert list(tree) == list(range(6)) and tree.swaps == 0


def test_large_times_no_overflow():
    # t / tau = 1e12: every coefficient is rescaled by e^{-(t - t0)/tau} <= 1; nothing overflows.
    tree = LiveTree(tau=1e-3, time=1e9)
    tree.insert("a", [0.2], [0.5])
    tree.insert("b", [0.3], [0.0])
    tree.insert("c", [0.25], [1e300])          # huge but finite slope: decays away in microseconds
    assert list(tree) == ["b", "a", "c"]
    tree.advance(1e9 + 1.0)
    assert list(tree) == ["a", "c", "b"]
    assert all(math.isfinite(tree.priority(k)) for k in "abc")
    # and an element inserted with a reference far in the past
    tree.insert("d", [0.21], [1.0], t0=0.0)
    assert tree.priority("d") == 0.21


def test_constant_mode_is_an_ordered_set():
    tree = LiveTree(tau=None)
    tree.insert(0, [0.2], [0.3])       # constant 0.5 (u == 1)
    tree.insert(1, [0.4])
    assert list(tree) == [1, 0] and tree.next_event_time == math.inf
    tree.advance(1e6)
    assert list(tree) == [1, 0] and tree.swaps == 0


def test_many_elements_block_splits_and_resort_agree():
    rng = np.random.default_rng(4)
    tree = LiveTree(tau=1.0, load=4)
    ref = ResortQueue(tau=1.0)
    for k in range(200):
        a, b = rng.uniform(0, 1, 2), rng.uniform(-0.5, 0.5, 2)
        tree.insert(k, a, b)
        ref.insert(k, a, b)
    for t in np.linspace(0.1, 5, 25):
        tree.advance(t)
        ref.advance(t)
        assert list(tree) == list(ref)
        k = int(rng.integers(200))
        a, b = rng.uniform(0, 1, 2), rng.uniform(-0.5, 0.5, 2)
        tree.update(k, a, b)
        ref.update(k, a, b)
    assert tree.swaps > 0
    for k in range(0, 200, 3):
        tree.remove(k)
        ref.remove(k)
    assert list(tree) == list(ref) and len(tree) == len(ref)


def test_bad_input():
    tree = LiveTree(tau=1.0, time=5.0)
    with pytest.raises(ValueError, match="tau"):
        LiveTree(tau=0.0)
    with pytest.raises(ValueError, match=r"intercepts\[0\]=nan"):
        tree.insert(0, [float("nan")])
    with pytest.raises(ValueError, match="slopes has 3 entries"):
        tree.insert(0, [0.1, 0.2], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="t0=6.0 must be finite and <= now"):
        tree.insert(0, [0.1], t0=6.0)
    tree.insert(0, [0.1])
    with pytest.raises(KeyError):
        tree.insert(0, [0.2])
    with pytest.raises(ValueError, match="before the current time"):
        tree.advance(4.0)
    with pytest.raises(KeyError):
        tree.remove(1)
    tree.remove(0)
    with pytest.raises(KeyError):
        tree.min()


def _kendall(o1, o2):
    pos = {k: i for i, k in enumerate(o2)}
    s = [pos[k] for k in o1]
    return sum(1 for i in range(len(s)) for j in range(i + 1, len(s)) if s[i] > s[j])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_swap_count_equals_brute_force_count_of_order_changes(seed):
    """Small runs: sample the brute-force order every 1e-3 and count the pairs changing order.

    SDRF-shaped trajectories (max over 2 resources of s + obar_r + (c_r - obar_r) u), 6 elements,
    t in [0, 4] with tau = 1. The tree is advanced in one step; the brute-force count sums the Kendall
    distances between consecutive sampled orders (exact unless a pair crosses twice within 1e-3).
    """
    rng = np.random.default_rng(seed)
    tau, n = 1.0, 6
    lines = {}
    for k in range(n):
        s, obar, c = rng.uniform(0, 0.3), rng.uniform(0, 0.2, 2), rng.uniform(0, 0.5, 2)
        lines[k] = (s + obar, c - obar)
    tree = LiveTree(tau=tau)
    for k, (a, b) in lines.items():
        tree.insert(k, a, b)

    def brute(t):
        u = math.exp(-t / tau)
        return sorted(lines, key=lambda k: (max(lines[k][0] + lines[k][1] * u), k))

    times = np.linspace(0.0, 4.0, 4001)
    orders = [brute(t) for t in times]
    count = sum(_kendall(o1, o2) for o1, o2 in zip(orders, orders[1:]))
    tree.advance(4.0)
    assert list(tree) == orders[-1]
    assert tree.swaps == count
    assert count > 0


@pytest.mark.parametrize("tau", [None, 50.0])
@pytest.mark.parametrize("seed", range(4))
def test_lead_or_update_is_leads_with_then_update(tau, seed):
    """Issue 11: the live tree's one-envelope ``lead_or_update`` answers as ``leads_with`` and, when
    that is False, leaves the tree as ``update_trusted`` would (same order now and after later swaps),
    checked against a twin tree driven by the two separate calls and against ``ResortQueue``."""
    rng = np.random.default_rng(seed)
    n, k = 40, 2
    trees = [LiveTree(tau), LiveTree(tau), ResortQueue(tau)]

    def traj():
        return (tuple(rng.uniform(0, 1, k)), tuple(rng.uniform(-0.5, 0.5, k)))

    for key in range(n):
        a, b = traj()
        tie = float(rng.integers(0, 3))
        for q in trees:
            q.insert_trusted(key, a, b, 0.0, tie)
    now, leads = 0.0, 0
    for _ in range(150):
        now += float(rng.exponential(2.0))
        for q in trees:
            q.advance(now)
        key = int(rng.choice(list(trees[0]))) if rng.random() < 0.5 else trees[0].min()
        a, b = traj()
        tie = float(rng.integers(0, 3))
        fused = trees[0].lead_or_update(key, a, b, now, tie)
        lead = trees[1].leads_with(key, a, b, now, tie)
        assert fused == lead
        if not lead:
            trees[1].update_trusted(key, a, b, now, tie)
            trees[2].update_trusted(key, a, b, now, tie)
        leads += lead
        assert list(trees[0]) == list(trees[1])
        assert list(trees[0]) == list(trees[2])
    assert 0 < leads < 150                      # both branches were taken


@pytest.mark.parametrize("stale", range(100, 121))
def test_events_pushed_after_a_heap_compaction_in_one_advance_are_processed(stale):
    """Regression (issue 11): the event heap is compacted (stale entries dropped, when it holds more
    than 8 n + 64 entries) by a certificate pushed *during* an advance; the events pushed after that,
    still due before the advance's end, must be processed too.

    The pure-Python tree at 6c81f64 kept iterating its pre-compaction list and skipped them: with
    ``stale=110`` it ends at ['b', 'e', 'c', 'a', 'f', 'g'] after 3 swaps (the (e, c) crossing at
    ln(2/0.3) is lost). This is the one-swap difference of the sdrf-fig4 cell pool_fraction=0.9,
    delta=0.9999 (36933 swaps on the array tree, 36932 at 6c81f64; the first lost event is the
    (428, 268) crossing at t=261997.82 with the first 4000 jobs of the workload, where the old tree
    counts 2509 and the array tree 2510).

    Expected values by hand, tau = 1, u = e^-t: e = 0.3, a = 0.5, b = u, c = 2u, f = 5, g = 4 + 2000u.
    Order at 0: e, a, b, c, f, g. Crossings before t = 3: b < a at ln 2, b < e at ln(1/0.3),
    c < a at ln 4, c < e at ln(2/0.3) (c = 2b never meets b); g reaches f only at ln 2000 > 3.
    So at t = 3: b (0.050), c (0.100), e, a, f, g (103.6), after exactly 4 swaps, none pending.
    ``stale`` in-place updates of g each leave one stale (f, g) entry due at ln 2000, so that some
    count in this range fills the heap to the compaction threshold just before the advance.
    """
    tree = LiveTree(tau=1.0)
    for key, a, b in [("e", 0.3, 0.0), ("a", 0.5, 0.0), ("b", 0.0, 1.0), ("c", 0.0, 2.0),
                      ("f", 5.0, 0.0), ("g", 4.0, 2000.0)]:
        tree.insert(key, [a], [b])
    for _ in range(stale):
        tree.update("g", [4.0], [2000.0], t0=0.0)
    tree.advance(3.0)
    assert list(tree) == ["b", "c", "e", "a", "f", "g"]
    assert tree.swaps == 4
    assert tree.next_event_time == pytest.approx(math.log(2000.0))


def test_common_crossing_of_five_elements_reverses_the_order():
    r"""Five trajectories :math:`p_i(t) = 1 + b_i (e^{-t} - 1/2)` (tau = 1) all meet at :math:`t = \ln 2`:
    before, the order is by increasing :math:`b_i`; after, by decreasing :math:`b_i` (by hand). The
    swap events of that instant are processed together (several at one time)."""
    tree = LiveTree(tau=1.0)
    slopes = [0.1, 0.2, 0.3, 0.4, 0.5]
    for key, b in enumerate(slopes):
        tree.insert(key, [1.0 - b / 2], [b])
    assert list(tree) == [0, 1, 2, 3, 4]
    assert tree.next_event_time == pytest.approx(math.log(2.0), rel=1e-12)
    tree.advance(1.0)
    assert list(tree) == [4, 3, 2, 1, 0]
    assert tree.swaps >= 4                       # at least the adjacent exchanges that reverse 5 items


def test_equal_intercepts_with_underflowed_slopes_keep_the_exact_order():
    r"""Slope terms :math:`2 e^{-800}` and :math:`e^{-800}` are both 0.0 in floating point; by their exact
    ratio (2) the first is larger, so its element comes second whatever the keys say."""
    tree = LiveTree(tau=1.0)
    tree.advance(800.0)
    tree.insert(0, [0.25], [2.0], t0=0.0)
    tree.insert(1, [0.25], [1.0], t0=0.0)
    assert list(tree) == [1, 0]
    tree.insert(2, [0.25], [-1.0], t0=0.0)       # a negative term: below both
    assert list(tree) == [2, 1, 0]


@pytest.mark.parametrize("lines", [3, 5])
def test_order_of_many_line_trajectories_is_the_sorted_maxima(lines):
    r"""Trajectories of 3 and 5 lines (envelopes of several pieces): at every time the tree's order is
    the order of :math:`\max_k (a_k + b_k e^{-t/\tau})` evaluated directly with NumPy, and so is each
    element's priority (random coefficients: no two maxima within rounding at the sampled times)."""
    rng = np.random.default_rng(40 + lines)
    n, tau = 40, 2.0
    A, B = rng.uniform(0, 1, (n, lines)), rng.uniform(-1, 1, (n, lines))
    tree = LiveTree(tau=tau)
    for k in range(n):
        tree.insert(k, A[k], B[k])
    for t in np.linspace(0.05, 8.0, 40):
        tree.advance(float(t))
        p = (A + B * np.exp(-t / tau)).max(axis=1)
        assert list(tree) == sorted(range(n), key=lambda k: (p[k], k))
        for k in range(0, n, 7):
            assert tree.priority(k) == pytest.approx(p[k], abs=1e-12)
    assert tree.swaps > 0


def test_lines_equal_at_their_start_take_the_smallest_slope():
    r"""SDRF at a user's first start (no commitment yet, an excess :math:`x_r` per resource): lines
    :math:`0.5 + x_r - x_r e^{-(t - t_0)/\tau}` all equal 0.5 at :math:`t_0`; after it the largest
    excess leads: :math:`p(t) = 0.5 + 0.3 (1 - e^{-t})` for x = (0.1, 0.3, 0.2), tau = 1. It crosses a
    constant 0.7 where :math:`e^{-t} = 1/3`, at :math:`t = \ln 3` (by hand)."""
    x = np.array([0.1, 0.3, 0.2])
    tree = LiveTree(tau=1.0)
    tree.insert("user", 0.5 + x, -x)
    tree.insert("constant", [0.7], [0.0])
    for t in (0.5, 1.0):
        assert tree.priority("user", t) == pytest.approx(0.5 + 0.3 * (1 - math.exp(-t)), abs=1e-12)
    assert list(tree) == ["user", "constant"]
    assert tree.next_event_time == pytest.approx(math.log(3.0), rel=1e-12)
    tree.advance(1.2)
    assert list(tree) == ["constant", "user"]
