"""TSF and CDRF greedy task filling: hand-computed cases, placement, invariants over random instances."""

from __future__ import annotations

import numpy as np
import pytest

import fairalloc as fa
from fairalloc import shares
from fairalloc.scheduling import GREEDY, CDRFScheduler, TSFScheduler, cdrf_greedy, drf_greedy, tsf_greedy


def test_tsf_two_server_placement_by_hand():
    # Servers <4, 4> x 2; user 0 only on server 0, user 1 anywhere; tasks <1, 1> and <2, 2>.
    # Monopoly counts (placement ignored, TV-TSF Eq. 4): h0 = 4 + 4 = 8, h1 = 2 + 2 = 4.
    # By hand: 0/8 = 0/4 tie -> user 0 on s0 (first fit); user 1 (0 < 1/8) on s0 (s0 uses 3 of 4);
    # user 0 (1/8 < 1/4) on s0 (full); user 0 (2/8 = 1/4, lower index): no room on s0 -> set aside;
    # user 1 on s1 twice (full). Task shares 2/8 and 3/4.
    ti = fa.TaskInstance([[4, 4], [4, 4]], [[1, 1], [2, 2]], tasks=[8, 8], placement=[[1, 0], [1, 1]])
    r = tsf_greedy(ti)
    assert ti.monopoly.tolist() == [8, 4]
    assert r.tasks.tolist() == [[2, 0], [1, 2]]
    np.testing.assert_allclose(r.shares, [2 / 8, 3 / 4])
    assert r.details["order"].tolist() == [0, 1, 0, 1, 1]
    assert r.mechanism == "tsf" and r.status == fa.Status.FEASIBLE


def test_tsf_weights_divide_the_share():
    # One server <6, 6>, identical users with tasks <1, 1> (h = 6), weights 1 and 2. By hand the keys
    # x0/6 and x1/12 tie at 0 -> 0; then user 1 twice (0, 1/12 < 1/6), tie 1/6 -> 0, user 1 twice: CPU 6.
    ti = fa.TaskInstance([[6, 6]], [[1, 1], [1, 1]], tasks=[10, 10], weights=[1, 2])
    assert tsf_greedy(ti).tasks.ravel().tolist() == [2, 4]


def test_cdrf_min_max_by_hand_and_against_drf():
    # One server <10, 10>; user 0 tasks <4, 1> (0.4 each), user 1 <1, 1> (0.1). CDRF (share after the
    # task): 0.4 vs 0.1, 0.2, 0.3 -> user 1 x3; 0.4 = 0.4 -> user 0; 0.8 vs 0.5, 0.6, 0.7 -> user 1 x3,
    # CPU full: [1, 6]. DRF filling (share before): tie -> user 0; user 1 x4 (0 .. 0.3 < 0.4); tie 0.4 ->
    # user 0, CPU 4 + 4 + 4 > 10: stop at [1, 4].
    ti = fa.TaskInstance([[10, 10]], [[4, 1], [1, 1]], tasks=[5, 10])
    r = cdrf_greedy(ti)
    assert r.tasks.ravel().tolist() == [1, 6]
    assert r.details["order"].tolist() == [1, 1, 1, 0, 1, 1, 1]
    np.testing.assert_allclose(r.dominant_shares, [0.4, 0.6])
    np.testing.assert_allclose(r.shares, [0.8, 0.7])        # the key after one more task: 2 * 0.4, 7 * 0.1
    assert drf_greedy(ti).tasks.ravel().tolist() == [1, 4]


def test_incremental_tsf_and_cdrf_release():
    # A finished task frees its capacity and lowers its user's key (incremental state).
    s = TSFScheduler([[2, 2]], n_users=2)
    a = s.submit(0, [1, 1], 3)
    s.submit(1, [1, 1], 3)
    assert [(st.user, st.task) for st in s.schedule()] == [(0, a[0]), (1, 3)]
    s.finish(a[0])
    np.testing.assert_allclose(s.task_shares(), [0.0, 0.5])
    assert [st.user for st in s.schedule()] == [0]
    c = CDRFScheduler([[2, 2]], n_users=1)
    ids = c.submit(0, [1, 2], 2)
    assert len(c.schedule()) == 1 and c.n_pending.tolist() == [1]
    c.finish(ids[0])
    assert len(c.schedule()) == 1 and c.n_running.tolist() == [1]


@pytest.mark.parametrize("mechanism", sorted(GREEDY))
@pytest.mark.parametrize("server", ["first_fit", "best_fit", "tvtsf"])
def test_invariants_on_random_instances(mechanism, server):
    """Capacity never exceeded per server and resource; placement respected; tasks within demand."""
    rng = np.random.default_rng(11)
    for _ in range(15):
        n, m = int(rng.integers(2, 5)), int(rng.integers(1, 4))
        caps = rng.integers(2, 9, (m, 2)).astype(float)
        d = rng.integers(1, 3, (n, 2)).astype(float)
        placement = rng.random((n, m)) < 0.7
        placement[np.arange(n), rng.integers(m, size=n)] = True
        try:
            ti = fa.TaskInstance(caps, d, tasks=rng.integers(1, 12, n), placement=placement,
                                 commitments=rng.uniform(0, 0.2, (n, 2)))
        except fa.InvalidInstanceError:
            continue                                   # some task fits none of its servers
        r = GREEDY[mechanism](ti, server=server)
        assert r.tasks.shape == (n, m) and (r.tasks >= 0).all()
        assert (r.tasks[~ti.placement] == 0).all()
        used = np.einsum("im,ik->mk", r.tasks, ti.task_demands)
        assert (used <= caps + 1e-9).all()
        assert (r.tasks.sum(axis=1) <= ti.tasks).all()
        np.testing.assert_allclose(r.allocation, r.tasks.sum(axis=1)[:, None] * ti.task_demands)
        np.testing.assert_allclose(r.dominant_shares, shares.dominant_shares(r.allocation, caps.sum(axis=0)))
