"""Issue 25, section 2: tiny commitments keep their users in Eq. 5's order.

A commitment decays by Eq. 6 (:math:`c(t) = c_0 e^{-(t - t_0)/\\tau}` with no excess) but never reaches
0: a user who held more than its fair share long ago still comes after an equal user who never did.
Two numerical limits broke that: the decay factor computed as :math:`1 - (1 - e^{-x})` (0 beyond about
37 tau) and the live tree's slope term :math:`b e^{-(t - t_0)/\\tau}` (0 beyond about 745 tau idle). The
expected orders below follow from Eq. 5 by hand (level = dominant share + dominant commitment; the
lower level is served first, whatever the tie rule says).
"""

from __future__ import annotations

import math

import pytest

from fairalloc.kinetic import LazyHeap, LiveTree, ResortQueue
from fairalloc.scheduling import SDRFScheduler

# user 0 held the whole pool on [0, 1) with fair share 1/2: excess 0.5, so by Eq. 6 with tau = 1
C1 = 0.5 * (1 - math.exp(-1.0))          # its commitment at t = 1: 0.31606


def _schedulers():
    """SDRF with tau = 1 on a pool of 1.0, two users, with each exact order of the users: the live
    tree and the re-sort baseline (the lazy heap compares keys as rounded sums, where 0.25 + 5e-62 is
    0.25)."""
    for structure in ("live_tree", "resort"):
        yield structure, SDRFScheduler([[1.0]], n_users=2, tau=1.0, structure=structure)


def _held_the_pool_until_one(s):
    s.submit(0, [1.0], 1)
    (start,) = s.schedule()
    s.advance(1.0)
    s.finish(start.task)


def test_commitment_idle_for_140_tau_is_kept_and_orders_its_user_after_a_user_at_zero():
    r"""User 0's commitment after 140 tau idle is :math:`C_1 e^{-140} = 5.0 \cdot 10^{-62}` (the issue's
    5e-62; by hand log10: log10(0.31606) - 140 log10(e) = -0.5002 - 60.8012 = -61.3014), set to 0 by
    ``1 - (-expm1(-140)) = 0`` at user 0's start. At 141 both users start a 0.25 task; at 142 both ask
    for 0.5 (only one fits). Levels: user 1 0.25, user 0 :math:`0.25 + 5.0 \cdot 10^{-62} e^{-1}`:
    user 1 first. With the commitment at 0 the levels tied and the tie rule (both submitted at 142:
    the lower index) served user 0."""
    want = C1 * math.exp(-140.0)
    assert math.log10(want) == pytest.approx(-61.3014, abs=1e-4)
    for name, s in _schedulers():
        _held_the_pool_until_one(s)
        s.advance(141.0)
        s.submit(0, [0.25], 1)
        s.submit(1, [0.25], 1)
        assert len(s.schedule()) == 2, name
        c = s.commitments()
        assert c[0, 0] == pytest.approx(want, rel=1e-12, abs=0) and c[1, 0] == 0.0, name
        s.advance(142.0)
        s.submit(0, [0.5], 1)
        s.submit(1, [0.5], 1)
        assert [st.user for st in s.schedule()] == [1], name
        assert s.blocked_by == 0 and s.order() == [0], name


def test_commitment_idle_for_999_tau_still_orders_its_user_after_a_user_at_zero():
    r"""At t = 1000 user 0's commitment is :math:`C_1 e^{-999} \approx 10^{-434.4}` (log10: log10(0.316)
    - 999 log10(e) = -0.50 - 433.86): positive, below the smallest double, so its priority in the
    tree, :math:`C_1 e^{-(1000 - 1)}`, underflowed to 0 and tied with user 1's 0. Both ask for the
    whole pool at 1000: user 1 first (Eq. 5), user 0 blocked."""
    assert math.log10(C1) - 999 * math.log10(math.e) == pytest.approx(-434.36, abs=0.01)
    for name, s in _schedulers():
        _held_the_pool_until_one(s)
        s.advance(1000.0)
        s.submit(0, [1.0], 1)
        s.submit(1, [1.0], 1)
        assert s.order() == [1, 0], name
        assert [st.user for st in s.schedule()] == [1], name
        assert s.blocked_by == 0, name


@pytest.mark.parametrize("cls", [LiveTree, ResortQueue, LazyHeap])
def test_underflowed_slope_terms_are_ordered_by_their_exact_ratio(cls):
    r"""Three trajectories with intercept 0: a = 0.3 e^{-t} (from 0), c = 0.5 e^{-(t-5)} (from 5), b = 0.
    At t = 1000 a's and c's terms are below 1e-300 (0 in doubles), but
    :math:`a/c = (0.3/0.5) e^{-5} < 1`: a before c at every time, and b (0) first. ``a`` carries the
    smallest tie value, which would put it first if the terms were taken as equal."""
    q = cls(tau=1.0)
    q.insert("a", [0.0], [0.3], tie=-1.0)
    q.advance(5.0)
    q.insert("c", [0.0], [0.5], tie=1.0)
    q.advance(1000.0)
    q.insert("b", [0.0], [0.0])
    assert q.priority("a") == 0.0 and q.priority("c") == 0.0          # underflowed
    assert list(q) == ["b", "a", "c"]
    if cls is not LazyHeap:                   # the lazy heap's min is inexact by design
        assert q.min() == "b"
    assert q.next_event_time == math.inf       # equal intercepts, one tau: they never cross
    if cls is LiveTree:
        q.advance(5000.0)
        assert list(q) == ["b", "a", "c"] and q.swaps == 0
