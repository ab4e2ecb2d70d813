"""explain: hand-built cases whose reasons are known by hand (no room, backfill reservation, lower priority)."""

import json

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.accounts import AccountTree
from fairalloc.errors import InvalidInstanceError
from fairalloc.experiments.explain import explain
from fairalloc.workloads import Workload


def test_slurm_lower_priority_then_no_room():
    # test_fairshare_policies' hand schedule: job 1 (user 0) waits from 50 to 120. At 50 the order is jobs 2, 3
    # (priority 12000: users 1, 2 have no usage, factor 1) and 1 (5333: factor 1/3); job 2 is the head and does
    # not fit (job 0 holds the 4 processors): job 1 waits behind it. At 100 job 2 starts, job 3 is the blocked
    # head. At 110 job 3 starts and job 1 is the head: no room (job 3 holds the machine). At 120 it starts.
    wl = Workload(submit=[0, 50, 50, 50], run_time=[100, 10, 10, 10], processors=[4, 4, 4, 4], user=[0, 0, 1, 2])
    r = fa.simulate(wl, 4, policy="slurm", calc_period=10)
    e = explain(wl, 1, capacity=4, policy="slurm", calc_period=10, result=r)
    assert [(d["time"], d["reason"], d.get("head")) for d in e.decisions] == [
        (50.0, "lower priority", 2), (100.0, "lower priority", 3), (110.0, "no room", 1), (120.0, "started", None)]
    d0 = e.decisions[0]
    assert [a["job"] for a in d0["ahead"]] == [2, 3]
    assert d0["job"]["priority"] == 5333.0 and d0["ahead"][0]["priority"] == 12000.0
    assert d0["job"]["fairshare"] == pytest.approx(1 / 3) and d0["ahead"][0]["fairshare"] == 1.0
    assert d0["job"]["weighted"]["job_size"] == 1000.0 and d0["job"]["weighted"]["partition"] == 1000.0
    assert e.job["wait"] == 70.0
    text = e.text()
    assert "lower priority" in text and "no room" in text and "priority 5333" in text
    back = json.loads(e.to_json())
    assert back["reasons"] == {"lower priority": 2, "no room": 1, "started": 1}


def test_slurm_easy_backfill_reservation():
    # 4 processors, no pass inside the run (calc_period 1e6): every factor as at submission, usage 0, Fair Tree
    # ties everyone at factor 1. Job 0 (user 0): 2 processors, 0..100. Job 1 (user 1): 4 wide, at 1, 10 s:
    # priority 10000 + 1000 (size 4/4) + 1000 = 12000. Job 2 (user 2): 2 wide, at 2, 200 s: 10000 + 500 + 1000.
    # At 2: job 1 is the head (needs 4, 2 free): shadow 100 (job 0's end), extra 2 + 2 - 4 = 0. Job 2 fits in
    # the 2 free, but would end at 202 > 100 and needs 2 > 0 extra: backfill reservation. At 100 job 1 starts
    # and holds the machine: job 2 is the head, no room. At 110 it starts.
    wl = Workload(submit=[0, 1, 2], run_time=[100, 10, 200], processors=[2, 4, 2], user=[0, 1, 2])
    e = explain(wl, 2, capacity=4, policy="slurm+easy", calc_period=1e6)
    assert [(d["time"], d["reason"]) for d in e.decisions] == [(2.0, "backfill reservation"), (100.0, "no room"),
                                                               (110.0, "started")]
    d = e.decisions[0]
    assert (d["head"], d["shadow"], d["extra"], d["free_at_turn"]) == (1, 100.0, 0, 2)
    assert d["job"]["priority"] == 11500.0 and d["ahead"][0]["priority"] == 12000.0
    # the same case without backfilling: job 2 waits behind the head, a lower priority
    e2 = explain(wl, 2, capacity=4, policy="slurm", calc_period=1e6)
    assert e2.decisions[0]["reason"] == "lower priority"


def test_htcondor_pie_slice_then_started():
    # test_fairshare_policies' pie: user 0 (factor 2000) gets 2 of its 5 jobs at 0; its third job (row 2)
    # waits for its slice: at the cycle at 0 its limit is used up by its first two jobs. Nothing fits until the
    # jobs end at 100 (no cycle runs a negotiation then); it starts at the cycle at 120.
    tree = AccountTree([{"user": "0", "prio_factor": 2000}, {"user": "1"}, {"user": "2"}])
    wl = Workload(submit=np.zeros(15), run_time=np.full(15, 100.0), processors=np.ones(15, int),
                  user=np.repeat([0, 1, 2], 5))
    e = explain(wl, 2, capacity=10, policy="htcondor", accounts=tree)
    assert [(d["time"], d["reason"]) for d in e.decisions] == [(0.0, "lower priority"), (120.0, "started")]
    d = e.decisions[0]
    assert d["job"]["eup"] == 1000.0 and d["matched_same_user"] == [0, 1]
    assert {u["user"]: u["share"] for u in d["users"]} == pytest.approx({"0": 0.2, "1": 0.4, "2": 0.4})


def test_explain_bad_input():
    wl = Workload(submit=[0, 1], run_time=[10, 10], processors=[2, 2], user=[0, 1])
    with pytest.raises(InvalidInstanceError, match="cannot explain"):
        explain(wl, 1, capacity=2, policy="fcfs")
    with pytest.raises(InvalidInstanceError, match=r"job=5 must be a workload row in \[0, 2\)"):
        explain(wl, 5, capacity=2)
    with pytest.raises(InvalidInstanceError, match="job_id=99"):
        explain(wl, job_id=99, capacity=2)
    r = fa.simulate(wl, 4, policy="slurm")
    with pytest.raises(InvalidInstanceError, match="the re-run starts job 1 at 10.0, the result at 1.0"):
        explain(wl, 1, capacity=2, result=r)
