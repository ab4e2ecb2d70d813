"""The repeated game: SDRF commitments across periods, and the deviation axioms.md describes.

Hand computation of the game used below (unit capacities, delta = 0.5, gamma = 1; per-task demands,
10 tasks each so nobody is satisfied):

* period 0: A = <1, 0.05>, B = <0.1, 1>. DRF (no commitments yet): both dominant shares s; resource 0
  holds s + 0.1 s = 1, so s = 10/11. A receives <10/11, 1/22>, B <1/11, 10/11>.
  Excess over 1/2: A 9/22 on resource 0, B 9/22 on resource 1; commitments (1 - 0.5) * 9/22 = 9/44.
* period 1: A = B = <1, 0>: levels c + s equal, s_A + s_B = 1 -> s_A = 1/2.
  A's payoff (tasks): 10/11 + 1/2 = 31/22.
* A caps period 0 at phi * 10/11 tasks: B grows until resource 0 is full, s_B = 10 (1 - phi * 10/11),
  or resource 1 is, s_B = 1 - phi/22 (A uses phi/22 of it), whichever comes first. Commitments: A
  (phi * 10/11 - 1/2)/2, B (s_B - 1/2)/2; period 1: s_A = (1 + c_B - c_A)/2.
"""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.errors import InvalidInstanceError
from proofs_check.misreports import find_profitable_deviation
from proofs_check.replay import replay
from proofs_check.repeated import RepeatedGame, SDRFDynamics, StatelessDynamics, payoff, play

GAME = RepeatedGame([1, 1], [[[1, 0.05], [0.1, 1]], [[1, 0], [1, 0]]], [[10, 10], [10, 10]])


def _hand_payoff(phi: F) -> F:
    s_b = min(10 * (1 - phi * F(10, 11)), 1 - phi / 22)
    c_a = (phi * F(10, 11) - F(1, 2)) / 2
    c_b = (s_b - F(1, 2)) / 2
    return phi * F(10, 11) + (1 + c_b - c_a) / 2


def test_truthful_play_matches_hand_computation():
    tr = play(SDRFDynamics(0.5), GAME)
    assert tr.allocations[0] == pytest.approx(np.array([[10 / 11, 1 / 22], [1 / 11, 10 / 11]]))
    assert tr.states[1] == pytest.approx(np.array([[9 / 44, 0], [0, 9 / 44]]))
    assert tr.utilities[:, 0] == pytest.approx([10 / 11, 0.5])
    assert tr.payoff(0, 1.0) == pytest.approx(float(F(31, 22)))


@pytest.mark.parametrize("phi", [F(999, 1000), F(99, 100)])
def test_cap_deviation_matches_hand_computation(phi):
    tr = play(SDRFDynamics(0.5), GAME, user=0, reports={0: ([1, 0.05], float(phi * F(10, 11)))})
    assert tr.payoff(0, 1.0) == pytest.approx(float(_hand_payoff(phi)), abs=1e-12)
    assert _hand_payoff(phi) > F(31, 22)                  # profitable (hand computation)


def test_search_finds_the_sdrf_deviation_and_it_replays():
    v = find_profitable_deviation(SDRFDynamics(0.5), GAME, user=0, gamma=1.0, rng=0)
    assert v.holds is False
    w = v.witness
    assert w["deviation_kind"] == "cap" and w["phi"] == 0.999
    assert w["gain"] == pytest.approx(float(_hand_payoff(F(999, 1000)) - F(31, 22)), abs=1e-12)
    r = replay(w)
    assert r.confirmed, r.detail


def test_stateless_drf_has_no_profitable_deviation_here():
    v = find_profitable_deviation(StatelessDynamics(fa.drf), GAME, gamma=1.0, budget=80, rng=0)
    assert v.holds is True and v.stats["deviations_tried"] == 160


def test_one_resource_constant_tasks_no_deviation():
    # stateful max-min, one resource, constant task sizes, everybody present (axioms.md: none known)
    g = RepeatedGame([1], [[[1], [1]], [[1], [1]], [[1], [1]]], [[10, 10], [10, 10], [10, 10]])
    v = find_profitable_deviation(SDRFDynamics(0.5, mechanism=fa.max_min), g, gamma=0.9, budget=60, rng=0)
    assert v.holds is True


def test_idle_period_and_payoff():
    tr = play(SDRFDynamics(0.5), GAME, user=1, reports={0: ([0.1, 1], 0.0)})
    assert np.all(tr.allocations[0, 1] == 0) and tr.utilities[0, 1] == 0
    assert payoff([1, 1, 1], 0.5) == pytest.approx(1.75)


def test_game_validation():
    with pytest.raises(InvalidInstanceError, match="all zero"):
        RepeatedGame([1], [[[0.0], [1.0]]], [[1, 1]])
    with pytest.raises(InvalidInstanceError):
        RepeatedGame([1, 1], [[[1.0], [1.0]]], [[1, 1]])
    with pytest.raises(InvalidInstanceError):
        SDRFDynamics(1.0)
    with pytest.raises(ValueError, match="gamma"):
        find_profitable_deviation(SDRFDynamics(0.5), GAME, gamma=0.0)
    assert RepeatedGame.from_dict(GAME.to_dict()).task_demands.tolist() == GAME.task_demands.tolist()
