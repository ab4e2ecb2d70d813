"""The findings on the production policies' pooled forms, re-checked by hand, independently of the searches.

Each counterexample below is computed by hand (the numbers are in the docstrings) and checked with the
predicates of proofs_check on the allocation the hand computation gives, or by playing the repeated
game directly (:func:`proofs_check.repeated.play`) with the policy's own state update; DRF or SDRF on
the same input is the foil that satisfies the axiom. The campaigns' own (shrunk) witnesses are
replayed by ``tests/property/test_counterexamples.py``.
"""

from __future__ import annotations

from fractions import Fraction as Fr

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.fairshare import pooled
from proofs_check import axioms, production
from proofs_check.claims import claims_for
from proofs_check.repeated import (
    RepeatedGame,
    SDRFDynamics,
    StatelessDynamics,
    UsageDynamics,
    play,
)


def test_cpu_billing_violates_sharing_incentive():
    """Capacities <1, 1>; demands <1, 0.1> and <0.1, 1>. CPU billing gives equal CPU x; memory
    0.1 x + 10 x = 1 at x = 10/101: user 0 holds <10/101, 1/101>, user 1 <10/101, 100/101>. Half of each
    resource would give user 0 a utility of 1/2; it gets 10/101. DRF gives 10/11 each (SI holds)."""
    inst = fa.Instance([[1.0, 0.1], [0.1, 1.0]])
    hand = [[Fr(10, 101), Fr(1, 101)], [Fr(10, 101), Fr(100, 101)]]
    v = axioms.has_sharing_incentive(inst, [[str(x) for x in row] for row in hand], exact=True)
    assert v.holds is False and v.witness["user"] == 0
    for fn in (production.slurm_classic, production.slurm_fair_tree, production.htcondor):
        np.testing.assert_allclose(fn(inst).allocation, np.array(hand, float), atol=1e-12)
    assert axioms.has_sharing_incentive(inst, fa.drf(inst)).holds
    assert [c.expected for c in claims_for("slurm_classic", "si")] == ["F"]


def test_volcano_proportion_is_not_pareto_efficient():
    """<10, 2> and <2, 10> on <10, 10>: deserved <8, 2> and <2, 8>, 0.8 of each demand, so <8, 1.6> and
    <1.6, 8>: 0.4 CPU and 0.4 GB idle and both could grow. DRF (10/12 each) is Pareto efficient."""
    inst = fa.Instance([[10.0, 2.0], [2.0, 10.0]], capacities=[10, 10])
    hand = [["8", "8/5"], ["8/5", "8"]]
    assert axioms.is_pareto_efficient(inst, hand, exact=True).holds is False
    assert axioms.is_bottleneck(inst, hand, exact=True).holds is False
    np.testing.assert_allclose(pooled.volcano_proportion(inst).allocation, [[8, 1.6], [1.6, 8]], atol=1e-6)
    assert axioms.is_pareto_efficient(inst, fa.drf(inst)).holds


def test_kueue_afs_adds_raw_units_and_violates_sharing_incentive():
    """Capacities <1, 100>; demands <1, 1> and <0.01, 100>; usage t0 (1 + 1) = t1 (0.01 + 100) with the CPU
    binding, t0 + 0.01 t1 = 1: t0 = 100.01/100.03, t1 = 2/100.03; half of everything would give user 1 a
    utility of 1/2."""
    inst = fa.Instance([[1.0, 1.0], [0.01, 100.0]], capacities=[1, 100])
    t0, t1 = Fr(10001, 10003), Fr(200, 10003)
    hand = [[str(t0), str(t0)], [str(t1 * Fr(1, 100)), str(t1 * 100)]]
    v = axioms.has_sharing_incentive(inst, hand, exact=True)
    assert v.holds is False and v.witness["user"] == 1
    np.testing.assert_allclose(production.kueue_afs(inst).utilities, [float(t0), float(t1)], rtol=1e-9)
    assert axioms.has_sharing_incentive(inst, fa.drf(inst)).holds


# ---- the repeated game -------------------------------------------------------------------------------
#: one resource of capacity 1. Period 0: user 0 wants 0.6 (12 tasks of 0.05), user 1 0.1 (1 task of 0.1):
#: both served. Period 1: both want everything, user 0 in 2 tasks of 0.5, user 1 in 100 tasks of 0.01.
GAME = RepeatedGame([1.0], [[[0.05], [0.1]], [[0.5], [0.01]]], [[12, 1], [2, 100]])
#: user 1 takes half of its period-0 task (0.05 of the resource instead of 0.1)
LIE = {0: ([0.1], 0.5)}


def _gain(dyn):
    truth, dev = play(dyn, GAME), play(dyn, GAME, user=1, reports=LIE)
    return truth, dev, dev.payoff(1, 1.0) - truth.payoff(1, 1.0)


def test_slurm_decayed_usage_is_manipulable_in_the_repeated_game():
    """delta = 1/2, CPU billing. Truth: usages 0.5 * 0.6 = 0.3 and 0.5 * 0.1 = 0.05; period 1 levels
    0.3 + x0 = 0.05 + x1 with x0 + x1 = 1: x1 = 0.625, 62.5 tasks; payoff 1 + 62.5. Lie: usage 0.025,
    x1 = 0.6375, payoff 0.5 + 63.75: a gain of 0.75 tasks."""
    for fn in (production.slurm_classic, production.slurm_fair_tree):
        truth, dev, gain = _gain(UsageDynamics(fn, fn.usage_step, 0.5))
        np.testing.assert_allclose(truth.states[1], [0.3, 0.05])
        np.testing.assert_allclose(truth.allocations[1].ravel(), [0.375, 0.625])
        np.testing.assert_allclose(dev.allocations[1].ravel(), [0.3625, 0.6375])
        assert gain == pytest.approx(0.75)


def test_htcondor_rup_is_manipulable_in_the_repeated_game():
    """100 cores, half-life one period (beta = 1/2). Truth: RUPs 0.5 * 0.5 + 0.5 * 60 = 30.25 and
    0.25 + 5 = 5.25; pie share of user 1 = 30.25 / (30.25 + 5.25). Lie (5 cores): RUP 2.75, share
    30.25 / 33. Gain: 100 * (30.25/33 - 30.25/35.5) - 0.5 tasks."""
    fn = production.htcondor
    truth, dev, gain = _gain(UsageDynamics(fn, fn.usage_step, 0.5))
    np.testing.assert_allclose(truth.states[1], [30.25, 5.25])
    np.testing.assert_allclose(dev.states[1], [30.25, 2.75])
    assert gain == pytest.approx(100 * (30.25 / 33 - 30.25 / 35.5) - 0.5)
    assert gain > 5


def test_kueue_afs_consumed_usage_is_manipulable_in_the_repeated_game():
    """delta = 1/2: consumed 0.3 and 0.05 after period 0; entry penalty 1/2: 0.3 + x0/2 = 0.05 + x1/2,
    x1 = 0.75. Lie: consumed 0.025, x1 = 0.775: a gain of 2.5 - 0.5 = 2 tasks."""
    fn = production.kueue_afs
    truth, dev, gain = _gain(UsageDynamics(fn, fn.usage_step, 0.5))
    np.testing.assert_allclose(truth.allocations[1].ravel(), [0.25, 0.75])
    np.testing.assert_allclose(dev.allocations[1].ravel(), [0.225, 0.775])
    assert gain == pytest.approx(2.0)


def test_the_foils_are_not_manipulable_on_the_same_game():
    """SDRF charges only the use above the fair share 1/2: user 1 (0.1) has no commitment either way and
    loses half a task by lying; user 0's commitment 0.5 * 0.1 = 0.05 gives x1 = 0.525. DRF has no memory."""
    truth, _, gain = _gain(SDRFDynamics(0.5))
    np.testing.assert_allclose(truth.allocations[1].ravel(), [0.475, 0.525])
    assert gain == pytest.approx(-0.5)
    assert _gain(StatelessDynamics(fa.drf))[2] == pytest.approx(-0.5)


def test_usage_dynamics_refuses_a_decay_outside_the_open_interval():
    with pytest.raises(fa.errors.InvalidInstanceError, match="delta"):
        UsageDynamics(production.slurm_classic, production.slurm_classic.usage_step, 1.0)
