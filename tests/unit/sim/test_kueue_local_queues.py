"""Several LocalQueues in one Kueue ClusterQueue (issue 28): what runs where.

Kueue's ClusterQueue (BestEffortFIFO) nominates its oldest pending workload to the cohort's tournament; the
compiled ``kueue`` key orders the LocalQueues of a ClusterQueue by the ClusterQueue's share with each one's own
head added. The reference loop (``engine="reference"``) plays Kueue's tournament; with ``preemption`` such a
tree is routed to it, with a warning. Expected starts are computed by hand in the docstring.
"""

from __future__ import annotations

import logging

import fairalloc as fa
from fairalloc.accounts import AccountTree


def _case():
    """Pool of 4 CPUs; ClusterQueue ``cq`` holds LocalQueues (users) 0 and 1, ``q2`` holds user 2 (no quotas:
    the cohort ``cluster`` holds the pool). User 2's 4-CPU task runs 0..10; user 0 submits a 3-CPU task at 1
    (job 1), user 1 a 2-CPU task at 2 (job 2), each 100 s."""
    t = AccountTree([{"account": "cq"}, {"account": "q2"}, {"user": "0", "account": "cq"},
                     {"user": "1", "account": "cq"}, {"user": "2", "account": "q2"}], resources=["r0"])
    wl = fa.workloads.Workload(submit=[0, 1, 2], run_time=[10, 100, 100], tasks=[1, 1, 1], user=[2, 0, 1],
                               resources=[[4.0], [3.0], [2.0]])
    return wl, t


def test_reference_plays_kueue_tournament_and_the_compiled_key_differs(caplog):
    """At 10 the pool is free. Kueue: ``cq`` nominates its oldest workload, job 1 (3 CPUs), admitted at 10; job 2
    (2 CPUs) then exceeds the 1 CPU left and waits for job 1's end at 110. The compiled key: DRS(cq + 2 CPUs) =
    500 per mille < DRS(cq + 3 CPUs) = 750, so job 2 starts at 10 and job 1 at 110 (its end). A warning names the
    difference on the compiled run."""
    wl, t = _case()
    ref = fa.simulate(wl, [4.0], policy="kueue", accounts=t, engine="reference")
    assert ref.stats["engine"] == "reference"
    assert ref.jobs["start"].tolist() == [0.0, 10.0, 110.0]
    with caplog.at_level(logging.WARNING, logger="fairalloc.sim.policies.container"):
        comp = fa.simulate(wl, [4.0], policy="kueue", accounts=t)
    assert comp.stats["engine"] == "kernel"
    assert comp.jobs["start"].tolist() == [0.0, 110.0, 10.0]
    assert any("holds several LocalQueues" in m for m in caplog.messages)


def test_preemption_with_shared_cluster_queue_is_routed_to_the_reference(caplog):
    """With ``preemption``, the same tree runs on the reference loop (the compiled admission would disagree with
    the compiled check's tournament): the result is the reference's, and a warning says so."""
    wl, t = _case()
    with caplog.at_level(logging.WARNING, logger="fairalloc.sim.policies.container"):
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
