"""The compiled batch of trials (fairalloc.experiments.learn.trials) against the Python reference
trial (the oracle, itself pinned to hand schedules in test_learn_reference.py) and the hand numbers."""

import numpy as np
import pytest

from fairalloc.errors import InvalidInstanceError
from fairalloc.experiments.learn import random_permutations, reference_trials, score_states, training_states
from fairalloc.experiments.learn.trials import compiled_trials
from fairalloc.sim.kernels import rigid_batch, rigid_run

from test_learn_reference import AVEBSLD, PERMS, PROCS, RUN, SUBMIT


def test_the_hand_state_of_all_six_permutations():
    got = compiled_trials(RUN, PROCS, SUBMIT, started=1, capacity=4, permutations=PERMS)
    np.testing.assert_allclose(got, AVEBSLD, rtol=1e-15)


def test_easy_backfills_while_the_late_head_is_not_submitted():
    # test_learn_reference: c b a with EASY gives 5/3 (a backfills at 0 under c's reservation at 30)
    got = compiled_trials(RUN, PROCS, SUBMIT, started=1, capacity=4, permutations=[[2, 1, 0]], backfill=True)
    np.testing.assert_allclose(got, [5 / 3], rtol=1e-15)


def test_a_late_head_that_already_fits_is_reserved_at_its_submit_time():
    # capacity 4, list order H (1 p, submitted 30), A (2 p, 40 s), B (2 p, 20 s), all others at 0.
    # H fits at 0 but is not submitted: its shadow is 30 (not now) with 4 - 1 = 3 extra. A (ends 40 > 30)
    # needs 2 <= 3 extra: starts at 0 (extra 1). B (ends 20 <= 30): starts at 0. H at 30 needs 1: 0 free
    # until B ends at 20: starts at 30.
    run, procs, sub = [10, 40, 20], [1, 2, 2], [30, 0, 0]
    from fairalloc.experiments.learn import reference_schedule
    assert reference_schedule(run, procs, sub, [0, 1, 2], capacity=4, backfill=True).tolist() == [30, 0, 0]
    a = compiled_trials(run, procs, sub, started=0, capacity=4, permutations=[[0, 1, 2]], backfill=True)
    # bsld: H 1, A 1, B 1
    assert a.tolist() == [1.0]
    starts = rigid_batch(np.array([0., 0., 30.]), np.array([2, 2, 1]), np.array([40., 20., 10.]),
                         np.array([40., 20., 10.]), 4, np.array([[1, 2, 0]]), backfill=True)
    assert starts.tolist() == [[0.0, 0.0, 30.0]]


@pytest.mark.parametrize("backfill", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_identical_to_the_reference_on_seeded_states(seed, backfill):
    # Lublin states of 6 + 10 jobs on 64 processors; estimates = run times x U(1, 3) for EASY's reservations
    st = training_states(3, started=6, queued=10, processors=64, rng=seed)
    gen = np.random.default_rng(100 + seed)
    for i in range(len(st)):
        perms = random_permutations(st.queued, 60, rng=gen)
        est = st.run_time[i] * gen.uniform(1, 3, st.run_time.shape[1])
        args = (st.run_time[i], st.processors[i], st.submit[i], est)
        kw = dict(started=st.started, capacity=st.capacity, permutations=perms, backfill=backfill)
        ref = reference_trials(*args, **kw)
        np.testing.assert_array_equal(compiled_trials(*args, **kw, chunk=7), ref)   # several chunks, one ragged


# A state for the batch kernel's shared instants (rigid_batch runs the instants before the first submit
# time of a job ranked after the prefix common to every row once, then restores EASY's state per row).
# Capacity 4. S: A (10 s, 3 p, submitted 0), B (5 s, 4 p, submitted 1). Q: C (4 s, 1 p, submitted 2),
# D (20 s, 3 p, submitted 3), E (6 s, 2 p, submitted 5). By hand, with EASY over the list S, then Q's order:
#  0: A starts (1 free). 1: B, the head, does not fit: reserved at A's end, 10, with 4 - 4 = 0 extra.
#  2: C fits in the 1 free processor and ends (6) by the shadow time 10: backfilled at 2, whatever Q's order
#     (D, E are not submitted yet; at 3 and 5 nothing is free; at 6 D, E do not fit in 1 processor).
#  10: A ends, B starts (ends 15). 15: the first of D, E in the list starts; the other is the head:
#   D first: D 15 (ends 35), E (2 p) has 1 free: E 35.      Q's bsld: C 1, D (12+20)/20 = 1.6, E (30+6)/10 = 3.6
#   E first: E 15 (ends 21), D (3 p) has 2 free: D 21.      Q's bsld: C 1, E (10+6)/10 = 1.6, D (18+20)/20 = 1.9
SHARED_RUN, SHARED_PROCS, SHARED_SUBMIT = [10, 5, 4, 20, 6], [3, 4, 1, 3, 2], [0, 1, 2, 3, 5]
D_BEFORE_E, E_BEFORE_D = 6.2 / 3, 4.5 / 3


@pytest.mark.parametrize("perms, shared, want", [
    # rows differing from Q's first place: the shared instants are 0 and 1 (B's reservation held across t0 = 2)
    ([[0, 1, 2], [1, 0, 2], [2, 1, 0], [0, 2, 1]], 2, [D_BEFORE_E, D_BEFORE_E, E_BEFORE_D, E_BEFORE_D]),
    # every row puts C first: C (submitted early, at 2, before D and E) is in the shared prefix, so its
    # backfilled start under B's reservation is a shared instant (t0 = 3, D's submit time)
    ([[0, 1, 2], [0, 2, 1], [0, 1, 2]], 3, [D_BEFORE_E, E_BEFORE_D, D_BEFORE_E]),
])
def test_shared_instants_with_easy_and_an_early_job_by_hand(perms, shared, want):
    from fairalloc.sim.kernels import _shared

    kw = dict(started=2, capacity=4, permutations=perms, backfill=True)
    ref = reference_trials(SHARED_RUN, SHARED_PROCS, SHARED_SUBMIT, **kw)
    np.testing.assert_allclose(ref, want, rtol=1e-15)                      # the oracle agrees with the hand
    for chunk in (len(perms), 2, 1):                                       # one batch, a ragged one, one row each
        got = compiled_trials(SHARED_RUN, SHARED_PROCS, SHARED_SUBMIT, **kw, chunk=chunk)
        np.testing.assert_array_equal(got, ref)
    ranks = np.array([[0, 1] + [2 + p.index(k) for k in range(3)] for p in perms])
    assert _shared(ranks) == shared                                        # the path this test is about
    starts = rigid_batch(np.array(SHARED_SUBMIT, float), np.array(SHARED_PROCS), np.array(SHARED_RUN, float),
                         np.array(SHARED_RUN, float), 4, ranks, backfill=True)
    assert starts[:, :3].tolist() == [[0.0, 10.0, 2.0]] * len(perms)       # A, B, and C backfilled at 2
    d_first = [p.index(1) < p.index(2) for p in perms]
    assert starts[:, 3:].tolist() == [[15.0, 35.0] if f else [21.0, 15.0] for f in d_first]


def test_shared_instants_without_backfilling_match_the_reference():
    # the same state in strict list order (by hand, C D E: B 10; C waits for B: 15; D 15; E 35 -> bsld
    # C (13+4)/10 = 1.7, D 1.6, E 3.6)
    perms = [[0, 1, 2], [0, 2, 1], [2, 0, 1], [1, 2, 0]]
    kw = dict(started=2, capacity=4, permutations=perms)
    ref = reference_trials(SHARED_RUN, SHARED_PROCS, SHARED_SUBMIT, **kw)
    assert ref[0] == pytest.approx((1.7 + 1.6 + 3.6) / 3, rel=1e-15)
    np.testing.assert_array_equal(compiled_trials(SHARED_RUN, SHARED_PROCS, SHARED_SUBMIT, **kw), ref)


def test_unsorted_submit_times_and_no_started_jobs():
    # the contract does not require the state's columns in submit order
    run, procs, sub = [5, 30, 12, 7], [3, 2, 4, 1], [9, 0, 4, 4]
    perms = random_permutations(4, 24, rng=3)
    for backfill in (False, True):
        ref = reference_trials(run, procs, sub, started=0, capacity=4, permutations=perms, backfill=backfill)
        got = compiled_trials(run, procs, sub, started=0, capacity=4, permutations=perms, backfill=backfill)
        np.testing.assert_array_equal(got, ref)


def test_score_states_uses_the_compiled_trials_by_default():
    st = training_states(2, started=3, queued=5, processors=64, rng=4)
    a = score_states(st, 40, rng=5)
    b = score_states(st, 40, rng=5, trials=reference_trials)
    np.testing.assert_array_equal(a["score"].to_numpy(), b["score"].to_numpy())


def test_listed_is_additive_on_rigid_run():
    # the same jobs, default (each joins the queue at its submit time) and listed in arrival order
    sub, procs, dur = np.array([0., 1., 2.]), np.array([3, 3, 1]), np.array([10., 5., 20.])
    assert rigid_run(sub, procs, dur, dur, 4, backfill=False)[0].tolist() == [0.0, 10.0, 10.0]
    assert rigid_run(sub, procs, dur, dur, 4, backfill=False, listed=True)[0].tolist() == [0.0, 10.0, 10.0]


def test_bad_input():
    with pytest.raises(InvalidInstanceError, match=r"expected \(P, 3\) with P >= 1"):
        compiled_trials(RUN, PROCS, SUBMIT, started=1, capacity=4, permutations=np.zeros((0, 3), int))
    with pytest.raises(InvalidInstanceError, match=r"permutations\[1\]=\[0, 0, 2\] is not a permutation"):
        compiled_trials(RUN, PROCS, SUBMIT, started=1, capacity=4, permutations=[[0, 1, 2], [0, 0, 2]])
    with pytest.raises(InvalidInstanceError, match=r"processors\[0, 2\]=3 is wider than the cluster \(capacity=2\)"):
        compiled_trials(RUN, PROCS, SUBMIT, started=1, capacity=2, permutations=PERMS)
    with pytest.raises(InvalidInstanceError, match=r"ranks has shape \(2,\)"):
        rigid_batch(np.zeros(2), np.ones(2), np.ones(2), np.ones(2), 4, np.array([0, 1]))


def _batch_args(**change):
    """rigid_batch's arguments for three jobs on 4 processors (the docstring's example), changed."""
    kw = dict(submit=[0., 1., 2.], processors=[3, 3, 1], duration=[10., 5., 20.], requested=[10., 5., 20.],
              capacity=4, ranks=[[0, 1, 2], [1, 2, 0]])
    kw.update(change)
    return kw


@pytest.mark.parametrize("change, words", [
    # before the wrapper's check, a NaN run time made the compiled loop wait forever for its completion
    (dict(duration=[10., np.nan, 20.]), r"^duration\[1\]=nan must be finite"),
    (dict(duration=[10., 5., np.inf]), r"^duration\[2\]=inf must be finite"),
    (dict(requested=[10., -5., 20.]), r"^requested\[1\]=-5.0 must be >= 0"),
    (dict(submit=[0., np.nan, 2.]), r"^submit\[1\]=nan must be finite"),
    (dict(submit=[0., 3., 2.]), r"^submit\[2\]=2.0 is before submit\[1\]=3.0: jobs must be in arrival order"),
    (dict(processors=[3, 5, 1]), r"^processors\[1\]=5 is wider than the cluster \(capacity=4\)"),
    (dict(processors=[3, 0, 1]), r"^processors\[1\]=0 must be > 0"),
    (dict(processors=[3, 2.5, 1]), r"^processors\[1\]=2.5 must be an integer"),
    (dict(duration=[10., 5.]), r"^duration has shape \(2,\); expected \(3,\)"),
    (dict(ranks=[[0, 1, 2], [0, 0, 2]]), r"^ranks\[1\]=\[0, 0, 2\] is not a permutation of range\(3\)"),
    (dict(ranks=[[0, 1, 3]]), r"^ranks\[0\]=\[0, 1, 3\] is not a permutation"),
    (dict(capacity=0), r"^capacity=0 must be an integer >= 1"),
])
def test_rigid_batch_names_bad_input_before_the_loop(change, words):
    kw = _batch_args(**change)
    with pytest.raises(ValueError, match=words) as err:
        rigid_batch(kw.pop("submit"), kw.pop("processors"), kw.pop("duration"), kw.pop("requested"),
                    kw.pop("capacity"), kw.pop("ranks"))
    assert isinstance(err.value, InvalidInstanceError) and err.value.argument in words


@pytest.mark.parametrize("trials", [reference_trials, compiled_trials])
@pytest.mark.parametrize("change, words", [
    (dict(started=4, permutations=np.zeros((2, 0), int)), r"a state of 4 jobs with started=4 leaves a queue of 0"),
    (dict(started=3, permutations=[[0]]), r"started=3 leaves a queue of 1 job\(s\); the method permutes"),
    (dict(run_time=[10, 20, np.nan, 5]), r"run_time\[0, 2\]=nan must be finite and >= 0"),       # unknown run time
    (dict(submit=[0, -1, 0, 30]), r"submit\[0, 1\]=-1.0 must be finite and >= 0"),
    (dict(processors=[2, 5, 3, 1]), r"processors\[0, 1\]=5 is wider than the cluster \(capacity=4\)"),
    (dict(permutations=np.zeros((0, 3), int)), r"expected \(P, 3\) with P >= 1"),               # P = 0
])
def test_bad_states_are_named_before_any_trial(trials, change, words):
    # the issue's bad input at the trials' level, for the oracle and the compiled batch alike (one check,
    # check_state): before, an empty queue raised IndexError and an unknown run time never returned
    kw = dict(run_time=RUN, processors=PROCS, submit=SUBMIT, started=1, capacity=4, permutations=PERMS)
    kw.update(change)
    with pytest.raises(InvalidInstanceError, match=words):
        trials(kw.pop("run_time"), kw.pop("processors"), kw.pop("submit"), **kw)
