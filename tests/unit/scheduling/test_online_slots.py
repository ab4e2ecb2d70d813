"""OnlineSlotScheduler: cumulative shares with changing demands (by hand), freezing, bad input."""

from __future__ import annotations

import pytest

from fairalloc.errors import InvalidInstanceError
from fairalloc.scheduling.online_slots import OnlineSlotScheduler


def test_cumulative_share_with_a_demand_change_by_hand():
    # One server of 4 units. Slot 0: user 0 submits one task of 1 unit (h = 4 tasks alone); it starts:
    # s = 1 / (1 slot x 4) = 0.25. Slot 2: a job of 2-unit tasks (h = 2): slots 0 and 1 count with
    # h = 4, slot 2 with h = 2, so the denominator is 4 + 4 + 2 = 10; its task starts (3 units
    # free): s = 2 / 10.
    s = OnlineSlotScheduler([[4.0]], n_users=1)
    s.submit(0, [1.0], 1, slot=0)
    assert len(s.step(0)) == 1
    assert s.cumulative_shares().tolist() == [0.25]
    s.submit(0, [2.0], 1, slot=2)
    assert len(s.step(2)) == 1
    assert s.cumulative_shares().tolist() == [0.2]


def test_lowest_cumulative_share_first_and_freeze():
    # Two users on one server of 3 units, unit tasks; user 0 already ran 2 tasks in slot 0 (alone).
    # Slot 1: user 1 arrives with 3 tasks, user 0 with 3 more. h = 3 for both. Denominators at slot 1:
    # user 0 3 + 3 = 6 (slots 0, 1), user 1 the same (its first job stands for slot 0 too).
    # Shares: user 0 2/6, user 1 0/6 -> user 1 (1/6), user 1 (2/6), tie 2/6 -> user 0 (lower index)
    # ... but user 0's two tasks still run: 1 unit free, so only user 1's first task fits; then
    # everybody is frozen (no room).
    s = OnlineSlotScheduler([[3.0]], n_users=2)
    ids = s.submit(0, [1.0], 2, slot=0)
    s.step(0)
    s.submit(0, [1.0], 3, slot=1)
    s.submit(1, [1.0], 3, slot=1)
    starts = s.step(1)
    assert [(st.user, st.time) for st in starts] == [(1, 1.0)]
    for t in ids:
        s.finish(t)
    # slot 2 (user 1's task of slot 1 still runs: 2 units free): shares user 0 2/9, user 1 1/9 ->
    # user 1 (2/9), tie 2/9 -> user 0 (lower index); the server is full, both frozen
    starts = s.step(2)
    assert [st.user for st in starts] == [1, 0]


def test_bad_input():
    s = OnlineSlotScheduler([[2.0, 2.0]], n_users=2)
    with pytest.raises(InvalidInstanceError, match="all zero"):
        s.submit(0, [0.0, 0.0], 1, slot=0)
    with pytest.raises(InvalidInstanceError, match="fits on none of its eligible servers"):
        s.submit(0, [3.0, 1.0], 1, slot=0)
    with pytest.raises(InvalidInstanceError, match=r"user=2 must be an index in \[0, 2\)"):
        s.submit(2, [1.0, 1.0], 1, slot=0)
    s.step(0)
    with pytest.raises(InvalidInstanceError, match="slot=0 has already been stepped"):
        s.submit(0, [1.0, 1.0], 1, slot=0)
    with pytest.raises(InvalidInstanceError, match="slot=0 must be after the last stepped slot 0"):
        s.step(0)
    with pytest.raises(InvalidInstanceError, match="task=5 is not running"):
        s.finish(5)
    with pytest.raises(InvalidInstanceError, match="policy='fifo'"):
        OnlineSlotScheduler([[1.0]], n_users=1, policy="fifo")


def test_finish_many_frees_in_order_and_refuses_what_does_not_run():
    # Two servers <2, 2> and <1, 1>, first fit, user 0 submits 3 unit tasks <1, 1> (ids 0, 1, 2): two
    # start on server 0, one on server 1 (by hand: first fit fills server 0, then server 1).
    s = OnlineSlotScheduler([[2.0, 2.0], [1.0, 1.0]], n_users=1, server="first_fit")
    ids = s.submit(0, [1.0, 1.0], 3, slot=0)
    assert [(st.task, st.server) for st in s.step(0)] == [(0, 0), (1, 0), (2, 1)]
    assert s.running_tasks().tolist() == list(ids)
    assert s.usage.tolist() == [[3.0, 3.0]]
    # tasks 2 and 0 end: server 1 is empty again, server 0 holds task 1; usage 1 task
    s.finish_many([2, 0])
    assert s.servers.free.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert s.running_tasks().tolist() == [1]
    assert s.usage.tolist() == [[1.0, 1.0]]
    with pytest.raises(InvalidInstanceError, match="task=0 is not running"):
        s.finish_many([1, 0])
    with pytest.raises(InvalidInstanceError, match="task=1 is not running"):
        s.finish_many([1, 1])                   # one task cannot end twice
    with pytest.raises(InvalidInstanceError, match="task=7 is not running"):
        s.finish(7)
    assert s.running_tasks().tolist() == [1]    # a refused call frees nothing
    s.finish(1)
    assert s.servers.free.tolist() == [[2.0, 2.0], [1.0, 1.0]] and s.usage.tolist() == [[0.0, 0.0]]
