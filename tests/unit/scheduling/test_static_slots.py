"""TSF and CDRF as TV-TSF's Table 1 describes them (fairalloc.scheduling.static_slots), against
slots computed by hand (the derivations are in the comments)."""

import dataclasses

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.scheduling.static_slots import StaticSlotScheduler
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
    assert r.stats["granted"] == 4 + 1 + 2          # slot 0: 4 grants, slot 1: 1, slot 2: 2


@pytest.mark.parametrize("point", ["solver", "canonical"])
def test_tsf_static_rounds_down_then_largest_remainder_by_hand(point):
    # Server 0 <4,4>, server 1 <2,2>; A = <1,1> on both, B = <2,1> on server 0 only: the divisible
    # slot is x_A = (1, 2), x_B = (1.5, 0) (derived in tests/unit/exact/test_divisible_tsf.py). floors A 1 on s0 + 2 on s1, B 1 on s0; B's remainder 0.5 on s0
    # does not fit (s0 has 4 - 1 - 2 = 1 CPU left, B needs 2). Starts: A 3, B 1. The optimal face is that
    # one point (s1 takes at most 2 of A's 3 tasks, s0's CPU 4 >= x_A0 + 2 * 1.5 the rest), so the
    # canonical point is the same.
    s = StaticSlotScheduler([[4, 4], [2, 2]], n_users=2, placement=[[1, 1], [1, 0]], mechanism="tsf-static",
                            point=point)
    s.submit(0, [1, 1], 10, slot=0)
    s.submit(1, [2, 1], 10, slot=0)
    st = s.step(0)
    assert sorted((a.user, a.server) for a in st) == [(0, 0), (0, 1), (0, 1), (1, 0)]
    # remainders: one server <3,3>, A = B = <2,2>, h = 1 each, 1 task each: x = 0.75 each (CPU 3 / 2
    # tasks of 2 = 1.5 tasks shared equally); floors 0; largest remainder, ties to user 0: A starts.
    s = StaticSlotScheduler([[3, 3]], n_users=2, mechanism="tsf-static", point=point)
    s.submit(0, [2, 2], 1, slot=0)
    s.submit(1, [2, 2], 1, slot=0)
    assert [(a.user, a.server) for a in s.step(0)] == [(0, 0)]


def _tie_case(mechanism, ties):
    """One server <1,1>; every task <1,1>, 1 slot long. Slot 0: users 0 and 2 submit one task each
    (slot 0); one fits. Slot 1: user 0's task has ended, user 1 submits one task (slot 1); users 1
    and 2 pend with equal keys (CDRF: dominant share after the task, 1 each, in a static slot with
    no memory; TSF: h = 1 each, x = 0.5 each, equal remainders). Returns the starts of slots 0, 1."""
    s = StaticSlotScheduler([[1, 1]], n_users=3, mechanism=mechanism, ties=ties)
    s.submit(0, [1, 1], 1, slot=0)
    s.submit(2, [1, 1], 1, slot=0)
    first = [a.user for a in s.step(0)]
    for a in s.running_tasks().tolist():
        s.finish(a)
    s.submit(1, [1, 1], 1, slot=1)
    return first, [a.user for a in s.step(1)]


@pytest.mark.parametrize("mechanism", ["cdrf-static", "tsf-static"])
def test_static_ties_wait_then_index_by_hand(mechanism):
    # slot 0: users 0 and 2 both submitted for slot 0: the lower index (0) under either rule.
    # slot 1: user 2 has waited since slot 0, user 1 since slot 1: "wait" serves 2, "index" serves 1.
    assert _tie_case(mechanism, "wait") == ([0], [2])
    assert _tie_case(mechanism, "index") == ([0], [1])


def test_static_ties_through_simulate():
    # The same case as a simulation (job 0: user 0, job 1: user 2 at slot 0; job 2: user 1 at slot 1).
    wl = Workload(submit=[0, 0, 1], run_time=[1, 1, 1], tasks=[1, 1, 1], user=[0, 2, 1],
                  resources=[[1, 1]] * 3, resource_names=("cpu", "mem"))
    cl = fa.Cluster([[1, 1]])
    for pol in ("cdrf-static", "tsf-static"):
        assert _starts(fa.simulate(wl, cl, policy=pol)) == {0: [0.0], 2: [1.0], 1: [2.0]}
        assert _starts(fa.simulate(wl, cl, policy=pol, ties="index")) == {0: [0.0], 1: [1.0], 2: [2.0]}


def test_tsf_static_user_with_nothing_left_after_the_floors(monkeypatch):
    # An LP solution may exceed a user's task count by the solver's feasibility tolerance (HiGHS's
    # primal tolerance is 1e-7): x = 2 + 1e-7 for a user with 2 tasks floors to 2 (both start) and
    # leaves a remainder of 1e-7 > 1e-9. That user has nothing left to place (the paper-scale TV-TSF
    # run, seed 6, raised IndexError reading its head job's tie value). One server <4,4>; user 0 has
    # 2 tasks <1,1>, user 1 one task <1,1>: all three fit, by hand.
    from fairalloc.scheduling import static_slots

    real = static_slots.divisible_tsf

    def nudged(*args, **kwargs):
        r = real(*args, **kwargs)
        return dataclasses.replace(r, tasks=r.tasks + 1e-7 * (r.tasks > 0))

    monkeypatch.setattr(static_slots, "divisible_tsf", nudged)
    s = StaticSlotScheduler([[4, 4]], n_users=2, mechanism="tsf-static")
    s.submit(0, [1, 1], 2, slot=0)
    s.submit(1, [1, 1], 1, slot=0)
    assert sorted((a.user, a.server) for a in s.step(0)) == [(0, 0), (0, 0), (1, 0)]


def _three_users_two_servers(rounding):
    # Servers s0 = <2,2>, s1 = <2.4,2.4>; A = <1,1> on both, B = <1,1> on s0 only, C = <1,1> on s1
    # only, 5 tasks each; h = 2 + 2 = 4 for all (whole tasks of <1,1> on the full servers). The
    # leximin of X_i / 4 fills the 4.4 units of capacity: X = 4.4/3 = 1.467 each, forced on servers
    # by placement: B on s0, C on s1, A the rest: 2 - 1.467 = 0.533 on s0, 2.4 - 1.467 = 0.933 on s1.
    s = StaticSlotScheduler([[2, 2], [2.4, 2.4]], n_users=3, placement=[[1, 1], [1, 0], [0, 1]],
                            mechanism="tsf-static", rounding=rounding)
    for u in range(3):
        s.submit(u, [1, 1], 5, slot=0)
    return sorted((a.user, a.server) for a in s.step(0))


def test_tsf_static_roundings_by_hand():
    # Floors: B 1 on s0, C 1 on s1, A 0 and 0 (free then: s0 1, s1 1.4).
    # largest remainder: fractional parts 0.933 (A s1), 0.533 (A s0), 0.467 (B s0), 0.467 (C s1):
    # A on s1 (1.4 free), A on s0 (1 free); B and C no longer fit.
    assert _three_users_two_servers("largest_remainder") == [(0, 0), (0, 1), (1, 0), (2, 1)]
    # per server: the floors only.
    assert _three_users_two_servers("floor_server") == [(1, 0), (2, 1)]
    # per user: floor(X_A) = floor(1.467) = 1 task for A, on its server of the larger fractional
    # part (s1); B and C floor(1.467) = 1 each, already placed.
    assert _three_users_two_servers("floor_user") == [(0, 1), (1, 0), (2, 1)]
    # the LP's tasks: 3 x 4.4/3 = 4.4 in the slot, whatever the rounding
    s = StaticSlotScheduler([[2, 2], [2.4, 2.4]], n_users=3, placement=[[1, 1], [1, 0], [0, 1]],
                            mechanism="tsf-static", rounding="floor_server")
    for u in range(3):
        s.submit(u, [1, 1], 5, slot=0)
    s.step(0)
    assert s.lp_tasks == pytest.approx(4.4, abs=1e-6) and s.decisions == 2


def test_tsf_static_floors_deadlock_and_the_run_ends_saying_so():
    # One server <1,1>; users 0 and 1 submit one task <1,1> each at slot 0, user 2 one task
    # <0.1,0.1> at slot 3; every task runs 1 slot. Slot 0: x = 1/2 each (h = 1 each).
    # Largest remainder: user 0 at 0 (equal remainders: the lower index), user 1 at 1, user 2 at 3.
    # Floors (per server or per user, the same here: one server): floor(1/2) = 0, nothing starts
    # and nothing runs (stalled) until slot 3: user 2 (h = 10) asks for 1 task: X_2 = 1 (its cap,
    # share 1/10), users 0 and 1 share the rest, 0.45 each: user 2 alone starts. Once its task has
    # ended nothing will arrive: the run ends with jobs 0 and 1 unfinished.
    wl = Workload(submit=[0, 0, 3], run_time=[1, 1, 1], tasks=[1, 1, 1], user=[0, 1, 2],
                  resources=[[1, 1], [1, 1], [0.1, 0.1]], resource_names=("cpu", "mem"))
    cl = fa.Cluster([[1, 1]])
    r = fa.simulate(wl, cl, policy="tsf-static")
    assert _starts(r) == {0: [0.0], 1: [1.0], 2: [3.0]} and "deadlocked" not in r.stats
    for rounding in ("floor_server", "floor_user"):
        r = fa.simulate(wl, cl, policy="tsf-static", rounding=rounding)
        assert _starts(r) == {2: [3.0]}
        assert r.jobs["finished"].tolist() == [False, False, True] and r.stats["deadlocked"] is True


def test_cdrf_static_blind_realisation_by_hand():
    # Servers s0 = s1 = <1,1>; user 0 = <1,1> on s1 only, user 1 = <1,1> on both, one task each of
    # 1 slot. The pool <2,2> grants 0 then 1 (equal keys 1/2: the lower index).
    # Eligible (first fit over the user's servers): 0 -> s1, 1 -> s0, both at slot 0.
    # Blind (first fit over all servers): 0 -> s0, forbidden: fails; 1 -> s0. Slot 1: user 0 alone,
    # its grant goes to s0 again and fails; nothing runs, nothing will arrive: deadlock.
    wl = Workload(submit=[0, 0], run_time=[1, 1], tasks=[1, 1], user=[0, 1],
                  resources=[[1, 1], [1, 1]], resource_names=("cpu", "mem"))
    cl = fa.Cluster([[1, 1], [1, 1]])
    pl = [[False, True], [True, True]]
    r = fa.simulate(wl, cl, policy="cdrf-static", placement=pl)
    assert _starts(r) == {0: [0.0], 1: [0.0]} and r.stats["unrealised"] == 0
    r = fa.simulate(wl, cl, policy="cdrf-static", placement=pl, realise="blind")
    assert _starts(r) == {1: [0.0]} and r.stats["deadlocked"] is True
    assert r.stats["unrealised"] == 2          # slot 0 and slot 1; then no further slot is stepped
    s = StaticSlotScheduler([[1, 1], [1, 1]], n_users=2, placement=pl, mechanism="cdrf-static", realise="blind")
    s.submit(0, [1, 1], 1, slot=0)
    assert s.step(0) == [] and s.stalled


@pytest.mark.parametrize("kw, arg", [({"mechanism": "cdrf-static", "rounding": "floor_user"}, "rounding"),
                                     ({"mechanism": "tsf-static", "realise": "blind"}, "realise"),
                                     ({"mechanism": "tsf-static", "rounding": "floor"}, "rounding"),
                                     ({"mechanism": "cdrf-static", "realise": "any"}, "realise")])
def test_static_readings_are_checked(kw, arg):
    with pytest.raises(fa.InvalidInstanceError) as e:
        StaticSlotScheduler([[1, 1]], n_users=1, **kw)
    assert e.value.argument == arg
    with pytest.raises(fa.InvalidInstanceError):
        fa.sim.StaticSlotPolicy(kw["mechanism"], **{k: v for k, v in kw.items() if k != "mechanism"})


# The canonical point of the divisible TSF's optimal face (static_slots.canonical_point). Two servers <2, 2>,
# users A and B = <1, 1> asking for 2 tasks each, h = 4 (the full cluster's monopoly count), both servers
# eligible. The leximin gives each 2 tasks (levels 2/4 = 0.5; 4 tasks fill the cluster), and the optimal face
# is one segment: x_A0 = a, x_A1 = 2 - a, x_B0 = 2 - a, x_B1 = a for a in [0, 2] (each user's total 2, each
# server's 2 tasks). A weighted sum of the pairs is constant + a (c_A0 - c_A1 - c_B0 + c_B1): its maximum is
# a = 2 when that exchange sum is positive, a = 0 when negative; when it is 0 (equal weights) the next stage
# maximises x_A0 (the first pair), a = 2 again.
_TWO = dict(capacities=[[2, 2], [2, 2]], demands=[[1, 1], [1, 1]], pending=[2, 2], monopoly=[4, 4],
            eligible=[[1, 1], [1, 1]], weights=[1, 1], levels=[0.5, 0.5])
_A_ON_0 = [[2.0, 0.0], [0.0, 2.0]]
_A_ON_1 = [[0.0, 2.0], [2.0, 0.0]]


def _splitmix64_weight(k):
    """SplitMix64 (Steele, Lea, Flood, OOPSLA 2014) in Python integers, its top 53 bits in [1, 2)."""
    mask = 2 ** 64 - 1
    z = (k + 0x9E3779B97F4A7C15) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return 1 + ((z ^ (z >> 31)) >> 11) / 2 ** 53


@pytest.mark.parametrize("cost, want", [([[2, 1], [1, 1]], _A_ON_0),      # exchange sum +1
                                        ([[1, 2], [1, 1]], _A_ON_1),      # exchange sum -1
                                        ([[1, 1], [1, 1]], _A_ON_0)])     # 0: the lexicographic stage
def test_canonical_point_on_a_face_with_many_optima_by_hand(cost, want):
    from fairalloc.scheduling.static_slots import canonical_point

    x, st = canonical_point(**_TWO, cost=cost)
    np.testing.assert_allclose(x, want, atol=1e-7)
    if cost == [[1, 1], [1, 1]]:
        assert st["lps"] >= 2                      # stage 0's maximisers are the whole face: a later stage decided


def test_canonical_point_default_weights_and_any_lp_route():
    from fairalloc.exact.tsf_lp import divisible_tsf
    from fairalloc.scheduling.static_slots import canonical_point, canonical_weights

    # the weights: SplitMix64 of the pair numbers m + M u = 0, 1, 2, 3, computed independently here
    c = [[_splitmix64_weight(0), _splitmix64_weight(1)], [_splitmix64_weight(2), _splitmix64_weight(3)]]
    np.testing.assert_array_equal(canonical_weights([0, 1], 2), c)
    want = _A_ON_0 if c[0][0] - c[0][1] - c[1][0] + c[1][1] > 0 else _A_ON_1
    assert want == _A_ON_1                         # 1.883 - 1.567 - 1.591 + 1.113 < 0
    # whichever LP route found the levels (scipy's HiGHS or highspy's), the same canonical point
    args = {k: v for k, v in _TWO.items() if k != "levels"}
    for solver in ("scipy", "highs"):
        r = divisible_tsf(*args.values(), solver=solver)
        np.testing.assert_allclose(r.levels, [0.5, 0.5], rtol=1e-9)
        x, st = canonical_point(*args.values(), r.levels)
        np.testing.assert_allclose(x, want, atol=1e-7)
        assert st["lps"] == 1


def test_point_applies_to_the_static_tsf_only():
    with pytest.raises(fa.InvalidInstanceError) as e:
        StaticSlotScheduler([[1, 1]], n_users=1, mechanism="cdrf-static", point="canonical")
    assert e.value.argument == "point"
    with pytest.raises(fa.InvalidInstanceError) as e:
        StaticSlotScheduler([[1, 1]], n_users=1, mechanism="tsf-static", point="vertex")
    assert e.value.argument == "point"


def test_simulator_rounds_the_canonical_point_when_asked():
    # _TWO through the simulator: two servers <2, 2>, users 0 and 1 with one job of 2 tasks <1, 1> each at slot 0
    # (h = 4, levels 0.5). The canonical point is _A_ON_1 (test above, by SplitMix64 computed here): user 0's two
    # tasks on server 1, user 1's on server 0; all integers, so rounding starts exactly them. (linprog's vertex is
    # that point too on this face, so the run's stats show that the reading reached the scheduler.)
    wl = Workload(submit=[0, 0], run_time=[1, 1], tasks=[2, 2], user=[0, 1],
                  resources=[[1, 1], [1, 1]], resource_names=("cpu", "mem"))
    cl = fa.Cluster([[2, 2], [2, 2]])
    r = fa.simulate(wl, cl, policy="tsf-static", point="canonical")
    user = r.jobs.set_index("row")["user"]
    placed = sorted((int(user.loc[j]), int(s), int(k)) for j, s, k in zip(r.launches["job"], r.launches["server"],
                                                                           r.launches["tasks"]))
    assert placed == [(0, 1, 2), (1, 0, 2)]
    assert r.stats["point"] == "canonical" and r.stats["canonical_failed"] == 0
    assert "point" not in fa.simulate(wl, cl, policy="tsf-static").stats      # the default reading says nothing
    with pytest.raises(fa.InvalidInstanceError) as e:
        fa.simulate(wl, cl, policy="cdrf-static", point="canonical")
    assert e.value.argument == "point"
    with pytest.raises(fa.InvalidInstanceError) as e:
        fa.sim.StaticSlotPolicy("tsf-static", point="vertex")
    assert e.value.argument == "point"
