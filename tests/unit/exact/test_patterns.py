"""Column generation over per-server schedules (``fairalloc.exact.patterns``, issue 30 section 2).

Specified by brute force: the pricing's dynamic program against enumerating every schedule of one
server (values from random task values, exact maxima compared); the threshold questions of
:func:`threshold_schedule` and :func:`dive_starts` against the set of feasible task totals enumerated by
``_exact_bruteforce.feasible_tv_totals`` (a DFS over slots written from Eq. 10b, not our model), on
seeded tiny instances, every "yes" schedule re-checked with ``schedule_details`` and every "no" a
positive Lagrangian bound; and a hand case.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.exact.patterns import server_types, supports, threshold_schedule
from fairalloc.exact.tvtsf import _fits, schedule_details

from _exact_bruteforce import feasible_tv_totals  # noqa: E402


def tiny(seed: int):
    """A tiny contended instance with durations 1..3 (the dense instances' range) and constant demands."""
    g = np.random.default_rng(seed)
    n = int(g.integers(2, 4))
    m = int(g.integers(1, 3))
    T = int(g.integers(3, 5))
    caps = g.integers(3, 7, size=(m, 2)).astype(float)
    if m == 2 and g.random() < 0.5:
        caps[1] = caps[0]                          # two identical servers: one type of count 2
    d = g.integers(1, 4, size=(n, 2)).astype(float)
    for i in range(n):
        d[i] = np.minimum(d[i], caps[0])
    arr = g.integers(0, 3, size=(n, T))
    dur = g.integers(1, 4, size=n)
    p = g.random((n, m)) < 0.7
    p[:, 0] = True
    return fa.TimeVaryingInstance(fa.Cluster(caps), d, arr, dur, placement=p)


def brute_best(tv, m: int, c: np.ndarray, ub: np.ndarray) -> float:
    """max sum c_it y_it over every schedule y of server m alone (0 <= y_it <= ub_it, Eq. 10b per slot)."""
    n, T = c.shape
    cells = [(i, t) for i in range(n) for t in range(T) if ub[i, t] > 0 and tv.placement[i, m]]
    best = 0.0
    d, e, cap = tv.task_demands[:, 0, :], tv.durations, tv.cluster.capacities[m]
    for combo in itertools.product(*[range(int(ub[i, t]) + 1) for i, t in cells]):
        use = np.zeros((T, len(cap)))
        for (i, t), k in zip(cells, combo):
            use[t:t + int(e[i])] += k * d[i]
        if (use <= cap + 1e-9).all():
            best = max(best, sum(c[i, t] * k for (i, t), k in zip(cells, combo)))
    return best


@pytest.mark.parametrize("seed", range(12))
def test_pricing_is_the_exact_maximum(seed):
    check_pricing(seed)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_pricing_in_runs_of_few_entries_is_the_exact_maximum(seed, monkeypatch):
    """The recursion evaluates the table entries in runs of whole room classes (``ServerType._CHUNK``
    entries, half a million by default, so one run on these tables): runs of 2 entries give the same
    brute-force maxima."""
    from fairalloc.exact.patterns import ServerType

    monkeypatch.setattr(ServerType, "_CHUNK", 2)
    check_pricing(seed)


def check_pricing(seed: int) -> None:
    """The pricing of every server type of ``tiny(seed)`` against :func:`brute_best`, 3 random value sets."""
    tv = tiny(seed)
    g = np.random.default_rng(100 + seed)
    fits = _fits(tv)
    cum = np.cumsum(tv.arrivals, axis=1)
    for st in server_types(tv):
        m = st.servers[0]
        ub = np.minimum(np.minimum(fits[:, m, :], cum), 1 + (seed % 2))
        ub = np.where(tv.placement[:, m][:, None], ub, 0)
        if np.prod(ub + 1.0) > 5000:                 # keeps the enumeration small (a case count, not a time)
            ub = np.minimum(ub, 1)
        for _ in range(3):
            c = g.normal(size=(tv.n_agents, tv.n_slots))
            v, y = st.price(c, ub)
            assert v == pytest.approx(brute_best(tv, m, c, ub), abs=1e-9)
            assert float((c * y).sum()) == pytest.approx(v, abs=1e-9)         # the pattern has that value
            assert (y <= ub).all() and (y >= 0).all()
            starts = np.zeros((tv.n_agents, tv.n_servers, tv.n_slots), dtype=np.int64)
            starts[:, m, :] = y
            use = schedule_details(tv, starts)["usage"][m]
            assert (use <= tv.cluster.capacities[m][:, None] + 1e-9).all()


def check_answer(tv, lo, ans, feasible_totals):
    truth = any(all(t[i] >= lo[i] for i in range(tv.n_agents)) for t in feasible_totals)
    assert ans.feasible is not None, ans.stats          # tiny cases are decided within the node budget
    assert ans.feasible == truth, (lo, ans.stats)
    if ans.feasible:
        det = schedule_details(tv, ans.starts)
        assert (det["usage"] <= tv.cluster.capacities[:, :, None] + 1e-9).all()
        assert (det["pending"] >= 0).all()
        assert not ans.starts[~np.broadcast_to(tv.placement[:, :, None], ans.starts.shape)].any()
        assert (ans.starts.sum(axis=(1, 2)) >= lo).all()
    else:
        assert ans.bound > 0


@pytest.mark.parametrize("seed", range(10))
def test_threshold_questions_against_enumeration(seed):
    tv = tiny(seed)
    assert supports(tv)
    totals = feasible_tv_totals(tv)
    top = np.max(np.array(sorted(totals)), axis=0)
    types = server_types(tv)
    g = np.random.default_rng(seed)
    asked = {tuple(top), tuple(top + 1), tuple(np.zeros(tv.n_agents, int))}
    while len(asked) < 8:
        asked.add(tuple(int(v) for v in g.integers(0, top + 2)))
    for lo in sorted(asked):
        lo = np.array(lo)
        check_answer(tv, lo, threshold_schedule(tv, lo, types=types), totals)


def test_hand_case_end_of_horizon():
    """One server <2>, two users <1> of duration 2, two tasks each submitted at slot 0, 3 slots: 2 tasks
    at slot 0 hold the server for slots 0-1, 2 more start at slot 2 and hold it for the one slot left: 2 + 2
    is feasible; 3 for user 0 is not (2 submitted); 2 + 2 with the server <1> is not (3 server-slots hold
    at most 3 tasks: slots 0-1 one task, slot 2 one task... 2 tasks in all)."""
    tv = fa.TimeVaryingInstance([[2]], [[1], [1]], arrivals=[[2, 0, 0], [2, 0, 0]], durations=[2, 2])
    assert threshold_schedule(tv, [2, 2]).feasible is True
    assert threshold_schedule(tv, [3, 0]).feasible is False
    small = fa.TimeVaryingInstance([[1]], [[1], [1]], arrivals=[[2, 0, 0], [2, 0, 0]], durations=[2, 2])
    ans = threshold_schedule(small, [1, 1])
    assert ans.feasible is True
    ans = threshold_schedule(small, [2, 1])
    assert ans.feasible is False and ans.bound > 0


@pytest.mark.parametrize("branching", ["up", "config"])
@pytest.mark.parametrize("seed", range(4))
def test_other_branchings_decide_alike(seed, branching):
    tv = tiny(seed)
    totals = feasible_tv_totals(tv)
    top = np.max(np.array(sorted(totals)), axis=0)
    branched = 0
    for lo in (top, top - (top > 0)):
        ans = threshold_schedule(tv, lo, branching=branching)
        check_answer(tv, lo, ans, totals)
        branched += ans.stats.get("config_branches", 0)
    if branching == "config" and seed in (1, 3):
        assert branched > 0          # these two reach slot-decision branches (4 + 8 and 0 + 3 of them)


def test_after_highs_ran_with_two_threads():
    """HiGHS's process-wide scheduler keeps the first run's thread count; the master (one thread) must
    still solve after a two-thread run in the same process (it ended "Not Set" before)."""
    from fairalloc.exact.solvers import highs_threads, quiet_highs

    h = quiet_highs()
    highs_threads(h, 2)
    h.addVar(0.0, 1.0)
    h.run()
    tv = fa.TimeVaryingInstance([[2]], [[1], [1]], arrivals=[[2, 0, 0], [2, 0, 0]], durations=[2, 2])
    assert threshold_schedule(tv, [2, 2]).feasible is True


def test_bad_arguments_are_named():
    tv = tiny(0)
    with pytest.raises(ValueError, match="lower must have shape"):
        threshold_schedule(tv, [1] * (tv.n_agents + 1))
    with pytest.raises(ValueError, match="branching"):
        threshold_schedule(tv, [0] * tv.n_agents, branching="sideways")


def test_time_varying_demands_are_refused():
    tv = fa.TimeVaryingInstance([[4]], np.array([[[1], [2]]]), arrivals=[[1, 1]], durations=[1])
    assert not supports(tv)
    with pytest.raises(ValueError, match="constant"):
        server_types(tv)


def test_too_many_configurations_are_refused():
    """The hand instance's one server <2> with two users of demand <1> and duration 2: a state counts
    the running tasks of age 1 of each user, at most 2 in all: (a, b) with a + b <= 2, 6 states (1
    empty, 2 single, 3 pairs); no task lives 3 slots, so one (empty) core; usage levels {0, 1, 2};
    a table entry is (room left r, usage c of the tasks started) with c <= r: 1 + 2 + 3 = 6 entries.
    A limit of 5 is refused, by name."""
    from fairalloc.exact.patterns import TooManyConfigurations

    tv = fa.TimeVaryingInstance([[2]], [[1], [1]], arrivals=[[2, 0, 0], [2, 0, 0]], durations=[2, 2])
    st = server_types(tv)[0]
    assert (st.n_states, st.n_entries, len(st.shorts)) == (6, 6, 1)
    with pytest.raises(TooManyConfigurations, match="more than 5"):
        server_types(tv, max_configs=5)


def brute_schedules(tv, m: int, ub: np.ndarray) -> set:
    """Every schedule y of server m alone with 0 <= y_it <= ub_it and Eq. 10b in every slot (a task of
    user i started in slot t holds d_i in slots t..t+e_i-1), enumerated cell by cell."""
    n, T = ub.shape
    cells = [(i, t) for i in range(n) for t in range(T) if ub[i, t] > 0 and tv.placement[i, m]]
    d, e, cap = tv.task_demands[:, 0, :], tv.durations, tv.cluster.capacities[m]
    out = set()
    for combo in itertools.product(*[range(int(ub[i, t]) + 1) for i, t in cells]):
        use = np.zeros((T, len(cap)))
        y = np.zeros((n, T), dtype=np.int64)
        for (i, t), k in zip(cells, combo):
            use[t:t + int(e[i])] += k * d[i]
            y[i, t] = k
        if (use <= cap + 1e-9).all():
            out.add(y.tobytes())
    return out


def table_schedules(st, ub: np.ndarray) -> set:
    """Every schedule the slot-transition table generates: all paths of moves from the empty state."""
    n, T = ub.shape
    out = set()

    def walk(t: int, s: int, y: np.ndarray) -> None:
        if t == T:
            out.add(y.tobytes())
            return
        nxt, qs = st.moves(s, ub[:, t])
        for s2, q in zip(nxt, qs):
            z = y.copy()
            z[st.long, t] = st.x_of[s2]
            z[st.short, t] = st.shorts[q]
            walk(t + 1, int(s2), z)

    walk(0, st.empty, np.zeros((n, T), dtype=np.int64))
    return out


@pytest.mark.parametrize("seed", range(12))
def test_table_generates_exactly_the_feasible_server_schedules(seed):
    """The table's moves from the empty state give the same set of server schedules as enumerating
    every start vector against Eq. 10b (the set the pricing maximises over; module docstring)."""
    tv = tiny(seed)
    fits = _fits(tv)
    cum = np.cumsum(tv.arrivals, axis=1)
    sizes = []
    for st in server_types(tv):
        m = st.servers[0]
        ub = np.minimum(np.minimum(fits[:, m, :], cum), 2)
        ub = np.where(tv.placement[:, m][:, None], ub, 0)
        if np.prod(ub + 1.0) > 3000:                 # keeps the enumeration small (a case count, not a time)
            ub = np.minimum(ub, 1)
        want = brute_schedules(tv, m, ub)
        got = table_schedules(st, ub)
        assert got == want
        sizes.append(len(want))
    assert max(sizes) > 1                            # not only the empty schedule
