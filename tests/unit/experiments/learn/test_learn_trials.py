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
    with pytest.raises(InvalidInstanceError, match=r"processors\[2\]=3 is wider than the cluster \(capacity=2\)"):
        compiled_trials(RUN, PROCS, SUBMIT, started=1, capacity=2, permutations=PERMS)
    with pytest.raises(InvalidInstanceError, match=r"ranks has shape \(2,\)"):
        rigid_batch(np.zeros(2), np.ones(2), np.ones(2), np.ones(2), 4, np.array([0, 1]))
