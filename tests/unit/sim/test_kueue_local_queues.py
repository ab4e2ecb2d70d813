"""Several LocalQueues in one Kueue ClusterQueue (issue 28): what runs where.

Kueue's ClusterQueue (BestEffortFIFO) nominates its oldest pending workload to the cohort's tournament (its heap
is ordered by priority, then timestamp, then UID: ``queueOrderingFunc`` in Kueue's
``pkg/cache/queue/cluster_queue.go``; the LocalQueue enters that order only with Admission Fair Sharing,
KEP 4136); the compiled ``kueue`` key orders the LocalQueues of a ClusterQueue by the ClusterQueue's share with
each one's own head added. The reference loop plays Kueue's tournament; such a tree is routed to it, with or
without ``preemption``, where it applies (one pool). Expected starts are computed by hand in the docstrings.
"""

from __future__ import annotations

import logging

import fairalloc as fa
from fairalloc.accounts import AccountTree
from fairalloc.sim.preemption import reference_kueue_run


def _case():
    """Pool of 4 CPUs; ClusterQueue ``cq`` holds LocalQueues (users) 0 and 1, ``q2`` holds user 2 (no quotas:
    the cohort ``cluster`` holds the pool). User 2's 4-CPU task runs 0..10; user 0 submits a 3-CPU task at 1
    (job 1), user 1 a 2-CPU task at 2 (job 2), each 100 s."""
    t = AccountTree([{"account": "cq"}, {"account": "q2"}, {"user": "0", "account": "cq"},
                     {"user": "1", "account": "cq"}, {"user": "2", "account": "q2"}], resources=["r0"])
    wl = fa.workloads.Workload(submit=[0, 1, 2], run_time=[10, 100, 100], tasks=[1, 1, 1], user=[2, 0, 1],
                               resources=[[4.0], [3.0], [2.0]])
    return wl, t


def test_shared_cluster_queue_runs_kueue_tournament(caplog):
    """At 10 the pool is free. Kueue: ``cq`` nominates its oldest workload, job 1 (3 CPUs), admitted at 10; job 2
    (2 CPUs) then exceeds the 1 CPU left and waits for job 1's end at 110. (The compiled key would start job 2
    first: DRS(cq + 2 CPUs) = 500 per mille < DRS(cq + 3 CPUs) = 750.) The default engine routes the tree to the
    reference loop and says so at INFO level; ``engine="reference"`` gives the same."""
    wl, t = _case()
    ref = fa.simulate(wl, [4.0], policy="kueue", accounts=t, engine="reference")
    assert ref.stats["engine"] == "reference"
    assert ref.jobs["start"].tolist() == [0.0, 10.0, 110.0]
    with caplog.at_level(logging.INFO, logger="fairalloc.sim.policies.container"):
        r = fa.simulate(wl, [4.0], policy="kueue", accounts=t)
    assert r.stats["engine"] == "reference"
    assert r.jobs["start"].tolist() == [0.0, 10.0, 110.0]
    assert any("routed to the reference loop" in m for m in caplog.messages)
    assert not [x for x in caplog.records if x.levelno >= logging.WARNING]


def test_tie_goes_to_the_older_nominee_then_the_next_local_queue():
    """Pool of 4; user 2 (``q2``) holds it 0..10; user 0 (``cq``) submits a 3-CPU task at 1, user 1 (``cq``) a
    1-CPU task at 2, user 2 a 3-CPU task at 3; each runs 10 s. At 10, Kueue's tournament: ``cq``'s nominee
    (its oldest, user 0's) has DRS(cq + 3) = 750 per mille, ``q2``'s DRS(q2 + 3) = 750: a tie, the older
    workload (user 0's, created at 1) wins and starts (1 CPU left). Then ``cq`` nominates user 1's 1-CPU task
    (DRS 1000) and ``q2`` its 3-CPU task, which does not fit: user 1's starts at 10. User 2's waits for both
    to end at 20. (Keying each LocalQueue by its own head would start user 1's (250) first, then user 2's
    (750 < DRS(cq + 1 + 3) = 1000), leaving user 0's for 20.)"""
    t = _case()[1]
    wl = fa.workloads.Workload(submit=[0, 1, 2, 3], run_time=[10, 10, 10, 10], tasks=[1, 1, 1, 1],
                               user=[2, 0, 1, 2], resources=[[4.0], [3.0], [1.0], [3.0]])
    r = fa.simulate(wl, [4.0], policy="kueue", accounts=t)
    assert r.jobs["start"].tolist() == [0.0, 10.0, 10.0, 20.0]


def test_several_servers_stay_compiled_with_a_warning(caplog):
    """Where the reference loop does not apply (two servers), the compiled loop runs and a warning names the
    difference."""
    wl, t = _case()
    with caplog.at_level(logging.WARNING, logger="fairalloc.sim.policies.container"):
        r = fa.simulate(wl, [[4.0], [4.0]], policy="kueue", accounts=t)
    assert r.stats["engine"] == "kernel"
    assert any("holds several LocalQueues" in m for m in caplog.messages)


def test_preemption_with_shared_cluster_queue_is_routed_to_the_reference(caplog):
    """With ``preemption``, the same tree runs on the reference loop (the compiled admission would disagree with
    the compiled check's tournament): the result is the reference's, and a log record says so."""
    wl, t = _case()
    with caplog.at_level(logging.INFO, logger="fairalloc.sim.policies.container"):
        a = fa.simulate(wl, [4.0], policy="kueue", accounts=t, preemption=True)
    b = fa.simulate(wl, [4.0], policy="kueue", accounts=t, preemption=True, engine="reference")
    assert a.stats["engine"] == "reference"
    assert any("routed to the reference loop" in m for m in caplog.messages)
    assert a.jobs["start"].tolist() == b.jobs["start"].tolist()
    assert a.preemptions.equals(b.preemptions)


def test_one_local_queue_per_cluster_queue_stays_compiled(caplog):
    """One LocalQueue per ClusterQueue (the default tree): the compiled loop, no warning."""
    wl, _ = _case()
    with caplog.at_level(logging.WARNING, logger="fairalloc.sim.policies.container"):
        r = fa.simulate(wl, [4.0], policy="kueue", preemption=True)
    assert r.stats["engine"] == "kernel"
    assert not caplog.messages


def test_afs_next_local_queue_waits_for_the_next_cycle():
    """Kueue's cycle nominates one workload per ClusterQueue (``schedule()`` in Kueue's
    ``pkg/scheduler/scheduler.go``: "1. Get the heads from the queues", ..., "6. Requeue the heads that were not
    scheduled"). Pool of 4; user 2 (``q2``) runs 2 CPUs 0..1000, user 1 (``cq``) 1 CPU 0..5; users 0, 1, 2 submit
    3, 2, 2 CPUs at 1, 2, 3 (100 s each). At 5, 2 CPUs are free; ``cq``'s head is user 0's (AFS usage 0 < user
    1's). By hand: DRS(cq + 3) = 750 per mille < DRS(q2 + 2) = 1000, so ``cq``'s nominee goes first and does not
    fit; ``q2``'s does and starts at 5; user 1's 2-CPU task is ``cq``'s nominee in the next cycle, with nothing
    left, and starts when user 2's ends at 105. User 0's 3 CPUs are free only when user 2's first task ends
    at 1000."""
    t = _case()[1]
    wl = fa.workloads.Workload(submit=[0, 0, 1, 2, 3], run_time=[1000, 5, 100, 100, 100], tasks=[1] * 5,
                               user=[2, 1, 0, 1, 2], resources=[[2.0], [1.0], [3.0], [2.0], [2.0]])
    r = fa.simulate(wl, [4.0], policy="kueue", accounts=t, half_life=3600.0)
    assert r.jobs["start"].tolist() == [0.0, 0.0, 1000.0, 105.0, 5.0]


# ---- Kueue's scheduling cycle (``Scheduler.schedule``, Kueue ``pkg/scheduler/scheduler.go``) -----------------
# One nominee per ClusterQueue per cycle ("1. Get the heads from the queues": one ``ClusterQueue.Pop`` each); the
# nominees checked against the cycle's snapshot; the fair-sharing iterator's order (``fair_sharing_iterator.go``,
# the tournament over the ClusterQueues still holding a nominee of this cycle); "6. Requeue the heads that were
# not scheduled" (``RequeueIfNotPresent``, ``pkg/cache/queue/cluster_queue.go``: BestEffortFIFO sends a ``NoFit``
# nominee to the inadmissible workloads, its ClusterQueue's next workload is nominated in the next cycle; a
# nominee skipped because it "no longer fits after processing another workload" is requeued at once and is the
# nominee again). Expected starts computed by hand in each docstring; ``cycle=False`` (one admission per
# tournament, the compiled key's order) gives other starts, also by hand.


def test_hand_case_of_the_policy_page_follows_kueues_cycle():
    """The hand case of ``docs/policies/kueue.md``. Pool of 4; ``cq`` holds users 0 and 1, ``q2`` user 2 (no quotas:
    the cohort holds the pool). Jobs: user 2 2 CPUs 0..1000, user 1 1 CPU 0..5; users 0, 1, 2 submit 3, 2, 2 CPUs
    at 1, 2, 3 (100 s). At 1, 2, 3 each nominee needs more than the 1 CPU free: set aside (no quota is freed
    until 5). At 5 (user 1's task ends; 2 CPUs free; everything set aside is nominated again): cycle 1 nominates
    ``cq``'s oldest, user 0's 3 CPUs (NoFit), and ``q2``'s 2 CPUs; DRS(cq + 3) = 750 per mille < DRS(q2 + 2) =
    1000: ``cq``'s first, set aside; ``q2``'s fits and starts at 5. Cycle 2: ``cq`` nominates user 1's 2 CPUs:
    NoFit. At 105 (``q2``'s task ends): cycle 1, user 0's 3 CPUs (2 free): set aside; cycle 2, user 1's starts at
    105. User 0's starts at 1000. One admission per tournament (``cycle=False``) lets user 1's compete at 5 in
    the same round (DRS(cq + 2) = 500 < 1000): user 1's at 5, user 2's at 105."""
    t = _case()[1]
    wl = fa.workloads.Workload(submit=[0, 0, 1, 2, 3], run_time=[1000, 5, 100, 100, 100], tasks=[1] * 5,
                               user=[2, 1, 0, 1, 2], resources=[[2.0], [1.0], [3.0], [2.0], [2.0]])
    r = fa.simulate(wl, [4.0], policy="kueue", accounts=t)
    assert r.stats["engine"] == "reference"
    assert r.jobs["start"].tolist() == [0.0, 0.0, 1000.0, 105.0, 5.0]
    old = reference_kueue_run(wl, [4.0], accounts=t, preemption=None, cycle=False)
    assert old.jobs["start"].tolist() == [0.0, 0.0, 1000.0, 5.0, 105.0]


def test_one_nominee_per_cluster_queue_per_cycle():
    """One ClusterQueue per user (the default tree; the cohort holds the pool of 4). User 0: one job of three
    1-CPU tasks, user 1: one 3-CPU task, both at 0, 100 s. Cycle 1: nominees user 0's first task (DRS(q0 + 1) =
    250 per mille) and user 1's task (750): user 0's starts, then user 1's, which still fits (3 of the 3 CPUs
    left). Cycle 2: user 0's second task does not fit: set aside. At 100 both end; user 0's other two start (one
    per cycle). Job 0 ends at 200, job 1 at 100. One admission per tournament: user 0 wins 250, 500, then the tie
    750 = 750 (same timestamp, the lower index), three tasks; user 1's waits for 100: ends 100 and 200."""
    wl = fa.workloads.Workload(submit=[0, 0], run_time=[100, 100], tasks=[3, 1], user=[0, 1],
                               resources=[[1.0], [3.0]])
    r = reference_kueue_run(wl, [4.0], preemption=None)
    assert r.jobs["start"].tolist() == [0.0, 0.0] and r.jobs["end"].tolist() == [200.0, 100.0]
    old = reference_kueue_run(wl, [4.0], preemption=None, cycle=False)
    assert old.jobs["start"].tolist() == [0.0, 100.0] and old.jobs["end"].tolist() == [100.0, 200.0]


def test_skipped_nominee_is_its_cluster_queues_nominee_again():
    """Pool of 4; ``cq`` holds users 0 and 1, ``q2`` user 2. User 2 holds the pool 0..10; then user 0 submits 3
    CPUs at 1, user 2 2 CPUs at 2 and 1 CPU at 2.5, user 1 2 CPUs at 3 (100 s each). At 10, cycle 1: nominees
    user 0's 3 (``cq``) and user 2's 2 (``q2``), both fit the snapshot; DRS(q2 + 2) = 500 < DRS(cq + 3) = 750:
    ``q2``'s starts (2 free), ``cq``'s no longer fits: skipped, requeued at once. Cycle 2: ``cq`` nominates user 0's
    3 again (NoFit now), ``q2`` its 1 CPU; DRS 750 = 750, the older (user 0's, 1 < 2.5) first: set aside; ``q2``'s
    starts (1 free). Cycle 3: user 1's 2 CPUs: set aside. At 110 user 0's starts, at 210 user 1's. (Were the
    skipped nominee set aside at once, cycle 2 would nominate user 1's 2 CPUs, DRS(cq + 2) = 500 < 750, which
    starts at 10; ``cycle=False`` gives that: user 2's 1 CPU at 110.)"""
    t = _case()[1]
    wl = fa.workloads.Workload(submit=[0, 1, 2, 2.5, 3], run_time=[10, 100, 100, 100, 100], tasks=[1] * 5,
                               user=[2, 0, 2, 2, 1], resources=[[4.0], [3.0], [2.0], [1.0], [2.0]])
    r = fa.simulate(wl, [4.0], policy="kueue", accounts=t)
    assert r.jobs["start"].tolist() == [0.0, 110.0, 10.0, 10.0, 210.0]
    old = reference_kueue_run(wl, [4.0], accounts=t, preemption=None, cycle=False)
    assert old.jobs["start"].tolist() == [0.0, 110.0, 10.0, 110.0, 10.0]


def test_set_aside_until_its_cohort_frees_quota():
    """An inadmissible workload is nominated again only when quota is freed in its cohort (Kueue's workload
    controller calls ``QueueAssociatedInadmissibleWorkloadsAfter`` when a workload finishes or is evicted), not at
    an arrival. Pool of 4; user 2 (``q2``) runs 2 CPUs 0..1000; user 0 (``cq``) submits 3 CPUs at 1: set aside.
    At 2 users 1 (``cq``) and 2 submit 2 CPUs each (100 s): user 0's stays aside, so ``cq`` nominates user 1's in
    cycle 1; DRS(cq + 2) = 500 < DRS(q2 + 2) = 1000: user 1's starts at 2, user 2's is skipped, then NoFit. At 102
    (freed): user 0's 3 CPUs NoFit (DRS(cq + 3) = 750 < 1000, first), user 2's starts at 102; user 0's at 1000.
    (Nominating user 0's again at 2 would set it aside in cycle 1 and start user 2's at 2.)"""
    t = _case()[1]
    wl = fa.workloads.Workload(submit=[0, 1, 2, 2], run_time=[1000, 100, 100, 100], tasks=[1] * 4,
                               user=[2, 0, 1, 2], resources=[[2.0], [3.0], [2.0], [2.0]])
    r = reference_kueue_run(wl, [4.0], accounts=t, preemption=None)
    assert r.jobs["start"].tolist() == [0.0, 1000.0, 2.0, 102.0]
