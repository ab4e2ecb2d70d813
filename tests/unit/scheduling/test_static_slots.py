"""TSF and CDRF as TV-TSF's Table 1 describes them (fairalloc.scheduling.static_slots), against
slots computed by hand (the derivations are in the comments)."""

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.scheduling.static_slots import StaticSlotScheduler, divisible_tsf
from fairalloc.workloads import Workload


def _starts(r):
    """Per user: sorted start slots of its tasks, from the launches table."""
    lf = r.launches
    user = r.jobs.set_index("row")["user"]
    out = {}
    for job, k, s in zip(lf["job"], lf["tasks"], lf["start"]):
        out.setdefault(int(user.loc[job]), []).extend([float(s)] * int(k))
    return {u: sorted(v) for u, v in out.items()}


def test_cdrf_static_ignores_placement_and_duration_by_hand():
    # Servers <2,2>, <2,2>; user 0 = <1,1> on server 0 only, 3 tasks; user 1 = <1,1> anywhere, 2 tasks;
    # every task runs 2 slots. Slot 0: the pool <4,4> is granted 0, 1, 0, 1 (keys 1/4, 1/4 -> index;
    # then 1/4 < 1/2; then 1/2 = 1/2 -> index). First fit: 0 -> s0, 1 -> s0 (s0 now full), 0 -> no
    # eligible server (lost), 1 -> s1. Slot 1: free s1 <1,1>; pool <1,1> granted to user 0; s0 full:
    # lost again. Slot 2: everything ended; user 0's 2 tasks go to s0.
    wl = Workload(submit=[0, 0], run_time=[2, 2], tasks=[3, 2], user=[0, 1],
                  resources=[[1, 1], [1, 1]], resource_names=("cpu", "mem"))
    cl = fa.Cluster([[2, 2], [2, 2]])
    pl = [[True, False], [True, True]]
    r = fa.simulate(wl, cl, policy="cdrf-static", placement=pl)
    assert _starts(r) == {0: [0.0, 2.0, 2.0], 1: [0.0, 0.0]}
    assert r.stats["unrealised"] == 2


def test_divisible_tsf_by_hand():
    # Server 0 <4,4>, server 1 <2,2>; A = <1,1> on both, B = <2,1> on server 0 only; h (full
    # capacities, placement ignored) A: 4 + 2 = 6, B: 2 + 1 = 3. Equal shares t: X_A = 6t, X_B = 3t,
    # X_A1 <= 2 (server 1's CPU) so X_A0 >= 6t - 2 and server 0's CPU X_A0 + 2 X_B <= 4 gives
    # 12t - 2 <= 4, t = 1/2: X_A = 3 (1 on s0, 2 on s1), X_B = 1.5 on s0. Nobody can rise.
    x = divisible_tsf([[4, 4], [2, 2]], [[1, 1], [2, 1]], [10, 10], [6, 3], [[1, 1], [1, 0]])
    np.testing.assert_allclose(x, [[1, 2], [1.5, 0]], atol=1e-7)


def test_tsf_static_rounds_down_then_largest_remainder_by_hand():
    # The case above in one slot: floors A 1 on s0 + 2 on s1, B 1 on s0; B's remainder 0.5 on s0
    # does not fit (s0 has 4 - 1 - 2 = 1 CPU left, B needs 2). Starts: A 3, B 1.
    s = StaticSlotScheduler([[4, 4], [2, 2]], n_users=2, placement=[[1, 1], [1, 0]], mechanism="tsf-static")
    s.submit(0, [1, 1], 10, slot=0)
    s.submit(1, [2, 1], 10, slot=0)
    st = s.step(0)
    assert sorted((a.user, a.server) for a in st) == [(0, 0), (0, 1), (0, 1), (1, 0)]
    # remainders: one server <3,3>, A = B = <2,2>, h = 1 each, 1 task each: x = 0.75 each (CPU 3 / 2
    # tasks of 2 = 1.5 tasks shared equally); floors 0; largest remainder, ties to user 0: A starts.
    s = StaticSlotScheduler([[3, 3]], n_users=2, mechanism="tsf-static")
    s.submit(0, [2, 2], 1, slot=0)
    s.submit(1, [2, 2], 1, slot=0)
    assert [(a.user, a.server) for a in s.step(0)] == [(0, 0)]


@pytest.mark.parametrize("seed", range(3))
def test_divisible_tsf_matches_tsf_lp(seed):
    # the same program as fa.tsf(method="lp") (cvxpy): equal task totals X_i (the leximin of the
    # task shares is unique in X / h; x_im need not be)
    pytest.importorskip("cvxpy")
    rng = np.random.default_rng(seed)
    caps = rng.integers(2, 9, (3, 2)).astype(float)
    d = rng.integers(1, 4, (4, 2)).astype(float)
    pl = rng.random((4, 3)) < 0.7
    pl[:, 0] = True
    k = rng.integers(1, 6, 4)
    ti = fa.TaskInstance(fa.Cluster(caps), d, tasks=k, placement=pl)
    ref = fa.tsf(ti, method="lp")
    h = fa.shares.monopoly_tasks(d, caps)
    x = divisible_tsf(caps, d, k, h, pl)
    np.testing.assert_allclose(x.sum(axis=1), np.asarray(ref.tasks).sum(axis=1), atol=1e-5)
