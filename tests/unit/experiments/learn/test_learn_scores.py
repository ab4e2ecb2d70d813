"""Eqs. 2-3 (fairalloc.experiments.learn.scores): hand-enumerated queues, invariants, bad input."""

import numpy as np
import pytest

from fairalloc.errors import InvalidInstanceError
from fairalloc.experiments.learn import (job_scores, random_permutations, reference_trials, score_states,
                                         training_states)

from test_learn_reference import AVEBSLD, PERMS, PROCS, RUN, SUBMIT


def test_scores_of_the_hand_computed_state():
    # The six permutations of test_learn_reference, AVEbsld (in sixths) 10, 12, 10, 11, 19, 16: sum 78.
    # a is first in the first two (10 + 12), b in the next two (10 + 11), c in the last two (19 + 16):
    # score(a) = 22/78, score(b) = 21/78, score(c) = 35/78 (putting the late job c first is worst).
    np.testing.assert_allclose(job_scores(AVEBSLD, PERMS), [22 / 78, 21 / 78, 35 / 78], rtol=1e-15)
    a = reference_trials(RUN, PROCS, SUBMIT, started=1, capacity=4, permutations=PERMS)
    np.testing.assert_allclose(job_scores(a, PERMS), [22 / 78, 21 / 78, 35 / 78], rtol=1e-14)


def test_only_the_first_job_counts_and_a_job_never_first_scores_zero():
    # two trials both starting with job 1: its score is 1, the others 0 whatever the rest of the order
    assert job_scores([3.0, 5.0], [[1, 0, 2, 3], [1, 3, 2, 0]]).tolist() == [0.0, 1.0, 0.0, 0.0]


def test_batch_axes():
    a = np.array([[1.0, 3.0], [2.0, 2.0]])
    perms = np.array([[[0, 1], [1, 0]], [[1, 0], [1, 0]]])
    np.testing.assert_allclose(job_scores(a, perms), [[0.25, 0.75], [0.0, 1.0]])


def test_permutations_are_uniform_enough_and_seeded():
    p = random_permutations(4, 4000, rng=3)
    assert (np.sort(p, axis=1) == np.arange(4)).all()
    counts = np.bincount(p[:, 0], minlength=4)
    assert counts.min() > 850 and counts.max() < 1150            # 1000 +- 4.7 sigma (sigma = 27)
    assert (random_permutations(4, 10, rng=3) == random_permutations(4, 10, rng=3)).all()


def test_bad_input():
    with pytest.raises(InvalidInstanceError, match="P = 0"):
        job_scores(np.zeros(0), np.zeros((0, 3), int))
    with pytest.raises(InvalidInstanceError, match="n_trials=0"):
        random_permutations(3, 0)
    with pytest.raises(InvalidInstanceError, match=r"queued=1"):
        random_permutations(1, 5)
    with pytest.raises(InvalidInstanceError, match=r"permutations\[1, 0\]=3 is not a job"):
        job_scores([1.0, 1.0], [[0, 1, 2], [3, 1, 2]])
    with pytest.raises(InvalidInstanceError, match=r"avebsld\[0\]=nan"):
        job_scores([np.nan, 1.0], [[0, 1], [1, 0]])
    with pytest.raises(InvalidInstanceError, match="expected avebsld's shape"):
        job_scores([1.0, 1.0], [[0, 1]])


def test_score_states_table():
    st = training_states(4, started=3, queued=5, processors=64, rng=11)
    t = score_states(st, 40, rng=12)
    assert list(t.columns) == ["state", "job", "r", "n", "s", "score", "first"]
    assert len(t) == 20
    np.testing.assert_allclose(t.groupby("state")["score"].sum(), 1.0)
    assert (t.groupby("state")["first"].sum() == 40).all()
    # the features are the queue's own jobs (columns started.. of each state)
    np.testing.assert_array_equal(t["r"].to_numpy().reshape(4, 5), st.run_time[:, 3:])
    np.testing.assert_array_equal(t["s"].to_numpy().reshape(4, 5), st.submit[:, 3:])
    again = score_states(st, 40, rng=12)
    assert t.equals(again)
    with pytest.raises(InvalidInstanceError, match="n_trials=0"):
        score_states(st, 0)
