"""The reference trial (fairalloc.experiments.learn.reference) against schedules computed by hand,
and against fa.simulate where the two settings coincide (every job submitted at 0)."""

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.errors import InvalidInstanceError
from fairalloc.experiments.learn import reference_schedule, reference_trials

# One state of the hand computation (capacity 4): S = one job S0 (10 s, 2 processors, submitted 0);
# Q = a (20 s, 2 p, submitted 0), b (10 s, 3 p, submitted 0), c (5 s, 1 p, submitted 30).
RUN = [10, 20, 10, 5]
PROCS = [2, 2, 3, 1]
SUBMIT = [0, 0, 0, 30]
PERMS = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]]

# Start times of (S0, a, b, c) in each permutation, strict list order, computed by hand:
# S0 runs 0-10 on 2 processors, leaving 2 free.
#  a b c: a 0 (fits beside S0, ends 20); b needs 3: free 2 at 10, 4 at 20 -> 20; c: submitted 30 -> 30
#  a c b: a 0; c waits for its submission: 30; b at 30 (a ended 20, c holds 1 of 4)
#  b a c: b waits for S0: 10 (ends 20); a needs 2, free 1 until b ends: 20; c 30
#  b c a: b 10; c 30; a 30 (3 free)
#  c a b: c 30; a 30 (ends 50); b needs 3: 2 free at 35, 4 at 50 -> 50
#  c b a: c 30 (ends 35); b 30 (ends 40); a needs 2: 1 free at 35, 4 at 40 -> 40
STARTS = {(0, 1, 2): [0, 0, 20, 30], (0, 2, 1): [0, 0, 30, 30], (1, 0, 2): [0, 20, 10, 30],
          (1, 2, 0): [0, 30, 10, 30], (2, 0, 1): [0, 30, 50, 30], (2, 1, 0): [0, 40, 30, 30]}
# AVEbsld over Q (tau = 10): bsld = max((w + r) / max(r, 10), 1); c (5 s) never waits: 1.
#  a b c: a 1, b (20+10)/10 = 3, c 1        -> 5/3  = 10/6
#  a c b: a 1, c 1, b (30+10)/10 = 4        -> 6/3  = 12/6
#  b a c: b (10+10)/10 = 2, a (20+20)/20 = 2, c 1 -> 10/6
#  b c a: b 2, c 1, a (30+20)/20 = 2.5      -> 11/6
#  c a b: c 1, a 2.5, b (50+10)/10 = 6      -> 19/6
#  c b a: c 1, b 4, a (40+20)/20 = 3        -> 16/6
AVEBSLD = [10 / 6, 12 / 6, 10 / 6, 11 / 6, 19 / 6, 16 / 6]


@pytest.mark.parametrize("perm", PERMS)
def test_strict_order_schedules_by_hand(perm):
    order = [0] + [1 + k for k in perm]
    got = reference_schedule(RUN, PROCS, SUBMIT, order, capacity=4)
    assert got.tolist() == STARTS[tuple(perm)]


def test_trials_give_the_hand_avebsld_of_all_six_permutations():
    got = reference_trials(RUN, PROCS, SUBMIT, started=1, capacity=4, permutations=PERMS)
    np.testing.assert_allclose(got, AVEBSLD, rtol=1e-15)


def test_easy_backfills_while_the_late_head_is_not_submitted():
    # c b a with EASY: c (submitted 30) heads the list, reserved at 30 with 4 - 1 = 3 extra processors.
    # At 0, b (3 p) does not fit beside S0 but a (2 p, 20 s) does and ends by 30: a starts at 0.
    # At 20 (a ends; 4 free) b (10 s) ends by 30: starts at 20. c starts at 30.
    # AVEbsld: c 1, b (20 + 10)/10 = 3, a 1 -> 5/3 (no backfilling: 16/6).
    got = reference_schedule(RUN, PROCS, SUBMIT, [0, 3, 2, 1], capacity=4, backfill=True)
    assert got.tolist() == [0, 0, 20, 30]
    a = reference_trials(RUN, PROCS, SUBMIT, started=1, capacity=4, permutations=[[2, 1, 0]], backfill=True)
    np.testing.assert_allclose(a, [5 / 3], rtol=1e-15)


def test_easy_uses_extra_processors_and_never_delays_the_head():
    # capacity 4, all submitted at 0, list order X (2 p, 10 s), H (3 p, 5 s), B (1 p, 100 s), C (1 p, 100 s).
    # At 0: X starts; H needs 3 with 2 free: shadow 10 (X's end), extra 2 + 2 - 3 = 1. B ends after the
    # shadow but needs 1 <= extra: starts at 0 (extra 0). C would take the head's processor: waits.
    # At 10: 3 free, H starts (ends 15); C starts when H ends, at 15.
    run, procs, sub = [10, 5, 100, 100], [2, 3, 1, 1], [0, 0, 0, 0]
    assert reference_schedule(run, procs, sub, [0, 1, 2, 3], capacity=4, backfill=True).tolist() == [0, 10, 0, 15]
    # without backfilling B waits for H (strict order) and starts beside it at 10; C at 15
    assert reference_schedule(run, procs, sub, [0, 1, 2, 3], capacity=4).tolist() == [0, 10, 10, 15]


def test_easy_reservation_uses_estimates():
    # capacity 4, list order X (2 p, runs 10 s), H (3 p, 5 s), B (2 p, 30 s), all submitted at 0.
    # X estimated at 50 s: H is reserved at 50 with 4 - 3 = 1 extra; B (estimated 30) ends by 50 and
    # backfills at 0, taking the 2 processors X leaves. X in fact ends at 10, but H needs 3 and only 2 are
    # free until B ends: H starts at 30.
    got = reference_schedule([10, 5, 30], [2, 3, 2], [0, 0, 0], [0, 1, 2], capacity=4, estimate=[50, 5, 30],
                             backfill=True)
    assert got.tolist() == [0, 30, 0]
    # exact estimates: H reserved at 10; B would end at 30 > 10 and needs 2 > 1 extra: no backfill.
    # H starts at 10 (ends 15), B at 15.
    got = reference_schedule([10, 5, 30], [2, 3, 2], [0, 0, 0], [0, 1, 2], capacity=4, backfill=True)
    assert got.tolist() == [0, 10, 15]


def _by_simulate(run, procs, order, capacity, backfill):
    key = np.empty(len(order))
    key[np.asarray(order)] = np.arange(len(order))          # the list position is the priority
    wl = fa.workloads.Workload(submit=np.zeros(len(run)), run_time=run, processors=procs, requested_time=run)
    pol = fa.sim.PriorityPolicy(lambda q: key[q.jobs], backfill=backfill, name="list")
    res = fa.simulate(wl, capacity, policy=pol)
    return res.jobs.sort_values("row")["start"].to_numpy()


@pytest.mark.parametrize("backfill", [False, True])
def test_same_starts_as_the_event_simulator_when_every_job_is_submitted_at_zero(backfill):
    # With every job waiting from time 0 the trial's list order is an online priority order, so the
    # event engine (an independent implementation of FCFS/EASY over a priority) must agree.
    rng = np.random.default_rng(5)
    for _ in range(20):
        m = int(rng.integers(3, 14))
        run = rng.integers(1, 200, m).astype(float)
        procs = rng.integers(1, 9, m)
        order = rng.permutation(m).tolist()
        ours = reference_schedule(run, procs, np.zeros(m), order, capacity=8, backfill=backfill)
        np.testing.assert_array_equal(ours, _by_simulate(run, procs, order, 8, backfill))


def test_bad_input_is_named():
    with pytest.raises(InvalidInstanceError, match="permutations has shape"):
        reference_trials(RUN, PROCS, SUBMIT, started=1, capacity=4, permutations=np.zeros((0, 3), int))
    with pytest.raises(InvalidInstanceError, match=r"permutations\[1\]=\[0, 0, 2\] is not a permutation"):
        reference_trials(RUN, PROCS, SUBMIT, started=1, capacity=4, permutations=[[0, 1, 2], [0, 0, 2]])
    with pytest.raises(InvalidInstanceError, match=r"processors\[1\]=5 is wider than the cluster"):
        reference_schedule(RUN, [2, 5, 3, 1], SUBMIT, [0, 1, 2, 3], capacity=4)
    with pytest.raises(InvalidInstanceError, match="not a permutation of range"):
        reference_schedule(RUN, PROCS, SUBMIT, [0, 1, 1, 3], capacity=4)
