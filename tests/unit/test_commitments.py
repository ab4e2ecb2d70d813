"""SDRF commitments: Eq. 3 (discrete), Eq. 6 (continuous), conversions; values computed by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairalloc import commitments as cm
from fairalloc.errors import InvalidInstanceError


def test_excess_over_fair_share():
    # n = 2: fair share 1/2. Allocation 0.75 -> excess 0.25; 0.25 -> 0.
    np.testing.assert_allclose(cm.excess([[0.75], [0.25]]), [[0.25], [0.0]])
    # weights (3, 1): fair shares 0.75 and 0.25 -> no excess for the same allocation.
    np.testing.assert_allclose(cm.excess([[0.75], [0.25]], weights=[3, 1]), [[0.0], [0.0]])


def test_one_step_eq3():
    # c' = (1 - delta) * excess + delta * c = 0.5 * 0.25 + 0.5 * 0.1 = 0.175
    c = cm.step([[0.1], [0.0]], [[0.75], [0.25]], delta=0.5)
    np.testing.assert_allclose(c, [[0.175], [0.0]])


def test_sum_form_equals_recursion():
    rng = np.random.default_rng(3)
    hist = rng.uniform(0, 1, size=(25, 4, 3))
    c = np.zeros((4, 3))
    for a in hist:
        c = cm.step(c, a, delta=0.9)
    np.testing.assert_allclose(cm.from_history(hist, delta=0.9), c, rtol=1e-12, atol=1e-15)
    c0 = rng.uniform(0, 0.2, size=(4, 3))
    c = c0.copy()
    for a in hist:
        c = cm.step(c, a, delta=0.9)
    np.testing.assert_allclose(cm.from_history(hist, delta=0.9, initial=c0), c, rtol=1e-12, atol=1e-15)


def test_eq6_over_one_dt_equals_one_eq3_step():
    for delta in (0.1, 0.5, 0.9, 1 - 1e-6):
        tau = cm.tau_from_delta(delta, dt=2.0)
        c0 = np.array([0.3, 0.0])
        ex = np.array([0.1, 0.4])
        np.testing.assert_allclose(cm.decay(c0, ex, dt=2.0, tau=tau), (1 - delta) * ex + delta * c0, rtol=1e-10)


def test_eq6_is_a_semigroup():
    # decaying over dt1 then dt2 with the same excess equals decaying over dt1 + dt2.
    tau = 7.0
    a = cm.decay(cm.decay([0.5], [0.1], 1.5, tau), [0.1], 2.5, tau)
    np.testing.assert_allclose(a, cm.decay([0.5], [0.1], 4.0, tau), rtol=1e-13)


def test_constant_excess_converges_to_it():
    c = np.zeros((2, 1))
    alloc = np.array([[0.8], [0.2]])          # excess 0.3 for user 0
    for _ in range(400):
        c = cm.step(c, alloc, delta=0.97)
    np.testing.assert_allclose(c, [[0.3], [0.0]], atol=1e-5)
    np.testing.assert_allclose(cm.decay([0.0], [0.3], dt=1e6, tau=10.0), [0.3])


def test_conversions():
    # tau = -dt / ln(delta); half-life = tau ln 2.
    assert cm.tau_from_delta(math.exp(-1)) == pytest.approx(1.0)
    assert cm.delta_from_tau(1.0) == pytest.approx(math.exp(-1))
    assert cm.half_life_from_tau(1.0) == pytest.approx(math.log(2))
    assert cm.delta_from_half_life(1.0) == pytest.approx(0.5)
    assert cm.half_life_from_delta(0.5) == pytest.approx(1.0)
    # precision at the paper's longest memory: delta = 1 - 1e-7 -> tau ~ 1e7 - 0.5
    assert cm.tau_from_delta(1 - 1e-7) == pytest.approx(1e7 - 0.5, rel=1e-8)
    for d in (0.01, 0.5, 1 - 1e-6):
        assert cm.delta_from_tau(cm.tau_from_delta(d)) == pytest.approx(d, rel=1e-12)


@pytest.mark.parametrize("delta", [0.0, 1.0, -0.1, 1.5, float("nan")])
def test_delta_outside_open_interval_is_rejected_for_conversions(delta):
    with pytest.raises(InvalidInstanceError, match="delta=.* must be in \\(0, 1\\)"):
        cm.tau_from_delta(delta)


def test_step_accepts_delta_zero_but_not_one():
    np.testing.assert_allclose(cm.step([[0.4]], [[1.0]], 0.0), [[0.0]])    # one user: share 1, no excess
    with pytest.raises(InvalidInstanceError, match=r"delta=1.0 must be in \[0, 1\)"):
        cm.step([[0.4]], [[1.0]], 1.0)


def test_bad_commitments():
    with pytest.raises(InvalidInstanceError, match=r"commitments\[1, 0\]=-0.1 must be >= 0"):
        cm.as_commitments([[0.0], [-0.1]], 2, 1)
    with pytest.raises(InvalidInstanceError, match=r"commitments\[0, 0\]=nan must be finite"):
        cm.as_commitments([[np.nan], [0.0]], 2, 1)
    with pytest.raises(InvalidInstanceError, match=r"commitments must have shape \(2, 2\)"):
        cm.as_commitments([[0.0], [0.0]], 2, 2)
    with pytest.raises(InvalidInstanceError, match=r"tau=0.0 must be finite and > 0"):
        cm.decay([0.0], [0.0], 1.0, 0.0)
    with pytest.raises(InvalidInstanceError, match=r"dt=.* must be finite and >= 0"):
        cm.decay([0.0], [0.0], -1.0, 1.0)


def test_decay_keeps_a_commitment_idle_for_many_tau():
    # Issue 25: Eq. 6 with no excess is c(t) = c0 e^{-dt/tau}. The factor was computed as
    # 1 - (-expm1(-x)), which rounds to 0 once e^{-x} < 2^-53 (x > 36.7): a commitment of 0.3 idle
    # for 140 tau became 0 instead of 0.3 e^{-140} = 4.74e-62 (by hand: ln 0.3 - 140 = -141.204 and
    # -141.204 / ln 10 = -61.324, 10^-0.324 = 0.474).
    c0, x = 0.3, 140.0
    want = math.exp(math.log(c0) - x)
    assert want == pytest.approx(4.741e-62, rel=1e-3, abs=0)
    assert cm.decay([c0], [0.0], dt=x, tau=1.0)[0] == pytest.approx(want, rel=1e-13, abs=0)
    assert cm.decay([c0], [0.0], dt=[x], tau=1.0)[0] == pytest.approx(want, rel=1e-13, abs=0)   # array dt
    assert cm.decay_row([c0, 0.0], [0.0, 0.5], x, 1.0) == pytest.approx([want, 0.5], rel=1e-13, abs=0)
    out = [c0]
    cm.decay_row_into(out, [0.0], 2 * x, 2.0, out)                # in place, dt / tau = 140
    assert out[0] == pytest.approx(want, rel=1e-13, abs=0)
    assert cm.decay([1e-30], [0.0], dt=40.0, tau=1.0)[0] == pytest.approx(1e-30 * math.exp(-40), rel=1e-13, abs=0)
