"""TV-TSF Algorithms 1-5 and the slotted TSF / CDRF baselines: hand-computed cases and invariants."""

from __future__ import annotations

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.scheduling import SlotScheduler, slotted_greedy, tvtsf_greedy


def _two_server_instance():
    # Servers <4, 8> and <8, 8>; user 0 (tasks <2, 4>) only on server 0; user 1 (tasks <2, 2>) on both;
    # 3 and 5 tasks arrive in slot 0; tasks last one slot.
    return fa.TimeVaryingInstance([[4, 8], [8, 8]], [[2, 4], [2, 2]], arrivals=[[3, 0], [5, 0]],
                                  durations=[1, 1], placement=[[1, 0], [1, 1]])


def test_two_server_placement_by_hand():
    # h (Eq. 4, full capacities, placement ignored): user 0: min(4/2, 8/4) + min(8/2, 8/4) = 2 + 2 = 4;
    # user 1: min(2, 4) + min(4, 4) = 2 + 4 = 6.
    # Slot 0 (shares s = started / cumulative h): 0 = 0 -> user 0 on s0. User 1 (0 < 1/4): Algorithm 4
    # over free capacities normalised by the totals <12, 16>: task (2/12, 2/16) -> shape (1, 0.75);
    # s0 free (2/12, 4/16) -> (1, 1.5), H = 0.75; s1 (8/12, 8/16) -> (1, 0.75), H = 0: server 1.
    # User 1 (1/6 < 1/4) on s1 (free <6, 6>, H = 0); user 0 (1/4 < 2/6) on s0 (now full); user 1 (2/6 <
    # 2/4) on s1; tie 2/4 = 3/6 -> user 0: no room, frozen; user 1 on s1 (free <2, 2> -> 0); user 1 has
    # one task left but no room: frozen. Slot 0: user 0: 2 on s0; user 1: 4 on s1.
    # Slot 1: everything is released; shares 2/8 < 4/12: user 0 on s0, user 1 on s1 (H = 0 again).
    r = tvtsf_greedy(_two_server_instance())
    assert r.tasks[:, :, 0].tolist() == [[2, 0], [0, 4]]
    assert r.tasks[:, :, 1].tolist() == [[1, 0], [0, 1]]
    np.testing.assert_allclose(r.details["cumulative_shares"], [[2 / 4, 3 / 8], [4 / 6, 5 / 12]])
    np.testing.assert_allclose(r.shares, [3 / 8, 5 / 12])
    assert r.details["unstarted"].tolist() == [0, 0]
    assert r.mechanism == "tvtsf" and r.method == "greedy" and r.status == fa.Status.FEASIBLE
    # First fit instead of Algorithm 4: user 1's first task lands on server 0 (it fits there), which
    # then has no room for user 0's second task (1/4 < 2/6, frozen); user 1 gets s1 four times.
    ff = tvtsf_greedy(_two_server_instance(), server="first_fit")
    assert ff.tasks[:, :, 0].tolist() == [[1, 0], [1, 4]]


def test_tasks_occupy_servers_for_their_duration():
    # One server <2, 2>, one user with tasks <1, 1> lasting 2 slots; 3 tasks arrive in slot 0.
    # By hand: slot 0 starts 2 (full); slot 1: both still running, nothing starts; slot 2: both ended,
    # the third starts; slot 3: nothing pending.
    tv = fa.TimeVaryingInstance([[2, 2]], [[1, 1]], arrivals=[[3, 0, 0, 0]], durations=[2])
    r = tvtsf_greedy(tv)
    assert r.tasks[0, 0].tolist() == [2, 0, 1, 0]
    np.testing.assert_allclose(r.details["utilization"][:, 0], [1.0, 1.0, 0.5, 0.5])
    # held per slot: 2 tasks in slots 0-1, the third in slots 2-3 (raw units <1, 1> each)
    np.testing.assert_allclose(r.details["usage"][0], [[2, 2, 1, 1], [2, 2, 1, 1]])
    assert r.details["pending"][0].tolist() == [1, 1, 0, 0]


def test_unstarted_tasks_stay_pending():
    tv = fa.TimeVaryingInstance([[2, 2]], [[1, 1]], arrivals=[[5, 0]], durations=[3])
    r = tvtsf_greedy(tv)
    assert r.tasks[0, 0].tolist() == [2, 0]
    assert r.details["unstarted"].tolist() == [3] and r.stats["unstarted"] == 3


def test_memory_tvtsf_vs_slotted_tsf():
    # One server <4> (one resource), unit tasks lasting one slot. Slot 0: only user 0 submits 4 tasks
    # and runs all of them. Slot 1: both submit 4. h = 4 per slot.
    # TV-TSF (cumulative): user 0 at (4 + x)/8, user 1 at x/8 -> user 1 takes all 4 slots of slot 1.
    # Slotted TSF (running tasks only, no memory): 0 = 0 -> alternate, 2 each. CDRF: likewise 2 each.
    tv = fa.TimeVaryingInstance([[4]], [[1], [1]], arrivals=[[4, 4], [0, 4]], durations=[1, 1])
    assert tvtsf_greedy(tv).tasks[:, 0, 1].tolist() == [0, 4]
    assert slotted_greedy(tv, policy="tsf").tasks[:, 0, 1].tolist() == [2, 2]
    assert slotted_greedy(tv, policy="cdrf").tasks[:, 0, 1].tolist() == [2, 2]
    # Weights omega_0 = (1, 1), omega_1 = (1, 3): denominators 4 + 4 = 8 and 4 + 12 = 16 at slot 1; user 1's
    # key x/16 <= 1/4 stays below user 0's (4 + x)/8 >= 1/2: user 1 still takes all 4.
    w = [[1, 1], [1, 3]]
    assert tvtsf_greedy(tv.replace(weights=w)).tasks[:, 0, 1].tolist() == [0, 4]


def test_time_varying_demands_use_the_start_slot_demand():
    # Demands per slot: slot 0 <2>, slot 1 <1> on a server <2>; 2 tasks in slot 0 (one fits), duration 1.
    # Slot 1: the pending task and the new one use d(1) = 1: both fit.
    tv = fa.TimeVaryingInstance([[2]], [[[2], [1]]], arrivals=[[2, 1]], durations=[1])
    r = tvtsf_greedy(tv)
    assert r.tasks[0, 0].tolist() == [1, 2]
    # h(t) = 1 then 2: shares 1/1, then 3/3
    np.testing.assert_allclose(r.details["cumulative_shares"][0], [1.0, 1.0])


@pytest.mark.parametrize("policy", ["tvtsf", "tsf", "cdrf"])
def test_invariants_on_random_instances(policy):
    """Per slot and server, the tasks running never exceed capacity; placement respected; no more
    tasks start than were submitted so far."""
    rng = np.random.default_rng(5)
    for _ in range(12):
        n, m, t = 3, 3, 6
        caps = rng.integers(3, 9, (m, 2)).astype(float)
        d = rng.integers(1, 3, (n, t, 2)).astype(float)
        placement = rng.random((n, m)) < 0.7
        placement[:, 0] = True
        tv = fa.TimeVaryingInstance(caps, d, arrivals=rng.integers(0, 5, (n, t)),
                                    durations=rng.integers(1, 4, n), placement=placement,
                                    weights=rng.uniform(0.5, 2, (n, t)))
        r = slotted_greedy(tv, policy=policy)
        x = r.tasks
        assert (x[~placement] == 0).all()
        for slot in range(t):
            running = np.zeros((m, 2))
            for i in range(n):
                for start in range(max(0, slot - tv.durations[i] + 1), slot + 1):
                    running += x[i, :, start, None] * d[i, start]
            assert (running <= caps + 1e-9).all()
        started = np.cumsum(x.sum(axis=1), axis=1)
        assert (started <= np.cumsum(tv.arrivals, axis=1)).all()
        np.testing.assert_array_equal(started[:, -1] + r.details["unstarted"], tv.arrivals.sum(axis=1))


def test_incremental_step_and_bad_input():
    s = SlotScheduler(_two_server_instance())
    first = s.step()
    assert sorted((st.user, st.server, st.count) for st in first) == [(0, 0, 2), (1, 1, 4)]
    s.step(arrivals=[0, 2])                        # the simulator may pass its own arrivals
    assert s.done
    with pytest.raises(fa.InvalidInstanceError, match="all 2 slots"):
        s.step()
    with pytest.raises(fa.InvalidInstanceError, match="policy='drf'"):
        SlotScheduler(_two_server_instance(), policy="drf")
    with pytest.raises(TypeError, match="TimeVaryingInstance"):
        tvtsf_greedy(fa.Instance([[1, 1]]))
    # zero-duration tasks, a task fitting no server, a user with no eligible server: the model says so
    with pytest.raises(fa.InvalidInstanceError, match=r"durations\[1\]=.*0\.0\)? must be >= 1 slot"):
        fa.TimeVaryingInstance([[4, 4]], [[1, 1], [1, 1]], arrivals=[[1], [1]], durations=[1, 0])
    with pytest.raises(fa.InvalidInstanceError, match=r"task_demands\[0, 0\]=\[5\.0, 1\.0\] fits on no server"):
        fa.TimeVaryingInstance([[4, 4]], [[5, 1]], arrivals=[[1]], durations=[1])
    with pytest.raises(fa.InvalidInstanceError, match="no eligible server"):
        fa.TimeVaryingInstance([[4, 4], [4, 4]], [[1, 1]], arrivals=[[1]], durations=[1], placement=[[0, 0]])
    with pytest.raises(fa.InvalidInstanceError, match=r"arrivals\[0\]=-1\.0 must be >= 0"):
        SlotScheduler(_two_server_instance()).step(arrivals=[-1, 0])
