"""``policy="learned:FILE"`` and :class:`LearnedPolicy` (fairalloc.sim.policies.learned).

The check against F1: a learned-function file written by hand (below, as JSON text) with Table 1's
F1 (learned-priorities paper, Table 1: c1 = 0.0001352, c2 = 0.2765352, c3 = 0.0071470, decimal log as
fairalloc.sim.policies.queue's docstring argues) must give the
schedule of policy ``"f1"``, which is an independent implementation of the same function
(:func:`fairalloc.sim.policies.queue.f1_score`, run on the event engine), with and without EASY. The
learned policy by name runs on the compiled loop (a static rank per job), as an object on the event
engine: both must give F1's schedule.
"""

from __future__ import annotations

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.errors import InvalidInstanceError
from fairalloc.sim.policies import LearnedFunction, LearnedPolicy, make_policy

F1_JSON = """{
  "format": "fairalloc.learned-priority",
  "version": 1,
  "name": "F1-by-hand",
  "formula": "c1 * sqrt(r) * c2 * n + c3 * log10(s)",
  "coefficients": {"c1": 0.0001352, "c2": 0.2765352, "c3": 0.0071470}
}
"""


@pytest.fixture(scope="module")
def lublin():
    return fa.workloads.lublin(days=3, nodes=256, rng=3)      # 425 jobs; F1 reorders 224 starts of FCFS's


@pytest.fixture
def f1_file(tmp_path):
    p = tmp_path / "f1.json"
    p.write_text(F1_JSON)
    return p


@pytest.mark.parametrize("easy", ["", "+easy"])
def test_a_file_with_table1_f1_schedules_as_policy_f1(lublin, f1_file, easy):
    expected = fa.simulate(lublin, 256, policy="f1" + easy, engine="events").jobs["start"].to_numpy()
    fcfs = fa.simulate(lublin, 256, policy="fcfs" + easy).jobs["start"].to_numpy()
    assert (expected != fcfs).sum() > 20                       # the order matters on this trace
    by_name = fa.simulate(lublin, 256, policy=f"learned:{f1_file}{easy}")
    assert by_name.stats["engine"] == "kernel" and by_name.policy == "learned:F1-by-hand" + easy
    np.testing.assert_array_equal(by_name.jobs["start"].to_numpy(), expected)
    obj = fa.simulate(lublin, 256, policy=LearnedPolicy(f1_file, backfill=bool(easy)))   # the event engine
    np.testing.assert_array_equal(obj.jobs["start"].to_numpy(), expected)


# Three jobs on 4 processors: job 0 (4 wide, 10 s) runs 0-10; job 1 (3 wide, 5 s, submitted at 1)
# and job 2 (2 wide, 20 s, submitted at 2) wait for it.
THREE = dict(submit=[0, 1, 2], run_time=[10, 5, 20], processors=[4, 3, 2])


@pytest.mark.parametrize("formula, lower_first, starts", [
    # narrowest first: job 2 (n = 2) starts at 10; job 1 (3) does not fit in the 2 left, waits for job 2's end at 30
    ("c1 * n", True, [0.0, 30.0, 10.0]),
    # smallest area r*n first: job 1 (15) before job 2 (40): job 1 at 10, job 2 (2) waits for it (1 left) until 15
    ("c1 * r * n", True, [0.0, 10.0, 15.0]),
    # widest first (highest n): job 1 at 10, job 2 at 15 as above
    ("c1 * n", False, [0.0, 10.0, 15.0]),
])
def test_three_jobs_by_hand(tmp_path, formula, lower_first, starts):
    wl = fa.workloads.Workload(**THREE)
    fn = LearnedFunction(formula, {"c1": 1.0}, name="hand", lower_first=lower_first)
    path = fn.save(tmp_path / "hand.json")
    assert fa.simulate(wl, 4, policy=f"learned:{path}").jobs["start"].tolist() == starts
    assert fa.simulate(wl, 4, policy=LearnedPolicy(fn)).jobs["start"].tolist() == starts


def test_easy_backfills_under_the_learned_order(tmp_path):
    # widest first with EASY: at 10 job 1 (3 wide) starts, 1 processor left; job 2 (2 wide) is the head,
    # its shadow is job 1's end at 15; job 3 (1 wide, 4 s, ends 14 <= 15) backfills at 10. Without EASY
    # job 3 waits behind job 2 until 15, when job 2 takes 2 of the 4 free processors and job 3 one more.
    wl = fa.workloads.Workload(submit=[0, 1, 2, 3], run_time=[10, 5, 20, 4], processors=[4, 3, 2, 1])
    path = LearnedFunction("c1 * n", {"c1": 1.0}, lower_first=False).save(tmp_path / "wide.json")
    assert fa.simulate(wl, 4, policy=f"learned:{path}").jobs["start"].tolist() == [0.0, 10.0, 15.0, 15.0]
    assert fa.simulate(wl, 4, policy=f"learned:{path}+easy").jobs["start"].tolist() == [0.0, 10.0, 15.0, 10.0]


def test_bad_files_name_the_path_and_what_is_wrong(tmp_path):
    with pytest.raises(InvalidInstanceError, match=r"learned function file not found: .*nope\.json"):
        make_policy(f"learned:{tmp_path / 'nope.json'}")
    with pytest.raises(InvalidInstanceError, match="names no file"):
        make_policy("learned:")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(InvalidInstanceError, match=r"bad\.json: not a JSON file"):
        make_policy(f"learned:{bad}")
    other = tmp_path / "other.json"
    other.write_text('{"format": "something-else", "version": 1}')
    with pytest.raises(InvalidInstanceError, match=r"other\.json: format='something-else'"):
        make_policy(f"learned:{other}")
    coeffs = tmp_path / "coeffs.json"
    coeffs.write_text(F1_JSON.replace('"c3": 0.0071470', '"c4": 1.0'))
    with pytest.raises(InvalidInstanceError, match=r"coeffs\.json.*missing \['c3'\]"):
        make_policy(f"learned:{coeffs}")
    with pytest.raises(InvalidInstanceError, match=r"option\(s\) \['delta'\]"):
        make_policy(f"learned:{coeffs}", delta=0.5)


def test_a_path_keeps_its_case(tmp_path):
    path = LearnedFunction("c1 * r", {"c1": 1.0}, name="SJF").save(tmp_path / "MixedCase.JSON")
    assert make_policy(f"learned:{path}+EASY").name == "learned:SJF+easy"


def test_a_priority_that_is_not_finite_is_refused_naming_the_job(tmp_path):
    # log(n - 1) is -inf for a serial job (n = 1): job 1 of THREE is 3 wide, so use a 1-wide job 2
    wl = fa.workloads.Workload(submit=[0, 1, 2], run_time=[10, 5, 20], processors=[4, 3, 1])
    path = LearnedFunction("c1 * log(n - 1)", {"c1": 1.0}, name="bad").save(tmp_path / "bad.json")
    with pytest.raises(InvalidInstanceError, match=r"is -inf at job 2 \(r=20.0, n=1.0, s=2.0\)"):
        fa.simulate(wl, 4, policy=f"learned:{path}")
    with pytest.raises(InvalidInstanceError, match=r"is -inf at job 2"):
        fa.simulate(wl, 4, policy=LearnedPolicy(path))
