"""The two hand-made cases behind the SDRF reproduction's small-delta analysis (reports of Figs. 4
and 6, ``benchmarks/bench_sdrf_gaps.py cases``): SDRF with a tiny tau does not schedule as DRF.

One resource, a pool of 1, every job one task of demand 1 running 10 s, so one task runs at a time.
Expected starts are derived by hand from Eq. 5 (level = dominant share + dominant commitment), Eq. 6
(:math:`c(t) = (1 - e^{-(t - t_0)/\\tau})\\,\\bar o + e^{-(t - t_0)/\\tau} c(t_0)`, :math:`\\bar o` the
excess over the fair share 1/n held on :math:`(t_0, t]`) and the tie rule of DESIGN.md (equal
priorities: the longest-waiting pending task first).
"""

import pytest

import fairalloc as fa
from fairalloc.sim import ResourcePool

TAU = 1e-3        # seconds: delta = exp(-1 / TAU) per second, far smaller than 1 - 10^-1


def starts(rows, **kw):
    """Start time of each job (rows: submit, user, run time)."""
    sub, usr, rt = zip(*rows)
    wl = fa.workloads.Workload(submit=list(sub), run_time=list(rt), tasks=[1] * len(rows), user=list(usr),
                               resources=[[1.0]] * len(rows))
    return fa.simulate(wl, ResourcePool([1.0]), **kw).jobs["start"].tolist()


# Case A: user 0 runs job 0 on [0, 10) and waits with job 1 since 1; user 1 waits with job 2 since 2.
CASE_A = [(0, 0, 10), (1, 0, 10), (2, 1, 10)]


def test_case_a_drf_serves_the_longest_wait_at_the_finish():
    # t = 10: both users hold nothing (share 0): a tie, and user 0's job 1 has waited longest (since 1)
    assert starts(CASE_A, policy="drf") == [0.0, 10.0, 20.0]


@pytest.mark.parametrize("kw", [dict(tau=TAU), dict(delta=0.9)], ids=["tau=1e-3", "delta=0.9"])
def test_case_a_sdrf_at_a_finish_still_counts_the_excess_held_before(kw):
    # n = 2, fair share 1/2: user 0 held 1 on (0, 10], excess 1/2, so by Eq. 6 c_0(10) = (1 - e^{-10/tau}) / 2,
    # 0.5 to double precision at tau = 1e-3 (0.33 at delta = 0.9, tau = 9.49 s): level 0 + c_0 > 0 = user 1's
    # level, so user 1's job 2 starts at 10 and user 0's job 1 at 20, however small tau
    assert starts(CASE_A, policy="sdrf", **kw) == [0.0, 20.0, 10.0]


# Case B: 3 users (fair share 1/3). User 0 runs job 0 on [0, 10); user 2's job 1 (submitted at 5) runs on
# [10, 20); at 20 user 0 (job 2, waiting since 11) and user 1 (job 3, since 12) both hold nothing.
CASE_B = [(0, 0, 10), (5, 2, 10), (11, 0, 10), (12, 1, 10)]


def test_case_b_drf_serves_the_longest_wait_among_idle_users():
    assert starts(CASE_B, policy="drf") == [0.0, 10.0, 20.0, 30.0]


def test_case_b_sdrf_orders_idle_users_by_their_decayed_commitments():
    # c_0(20) = (2/3) e^{-(20 - 10)/tau} = (2/3) e^{-10^4} > 0 = c_1 (user 1 never used anything): user 1's
    # level is lower, so its job 3 starts at 20 and user 0's job 2 at 30. The number is about 10^-4343, far
    # below the smallest double: the order is kept without computing it (issue 25, section 2)
    assert starts(CASE_B, policy="sdrf", tau=TAU) == [0.0, 10.0, 30.0, 20.0]
