"""Generators: the Lublin-Feitelson model against its parameters (lublin_model.md), and against the
reference program's output; google_like and alibaba_like shapes."""

import numpy as np
import pytest
from scipy import stats

from fairalloc.errors import InvalidInstanceError
from fairalloc.workloads import alibaba_like, google_like, lublin, read_swf
from fairalloc.workloads.lublin import LUBLIN_TYPELESS, arrival_weights

P = LUBLIN_TYPELESS  # serial 0.244, pow2 0.576, ULow 0.8, UMed 4.5, UHi 7, UProb 0.86 (lublin_model.md)


@pytest.fixture(scope="module")
def typeless():
    return lublin(40000, nodes=128, typed=False, rng=11)


def test_serial_fraction(typeless):
    serial = float((typeless.processors == 1).mean())
    se = np.sqrt(P.serial_prob * (1 - P.serial_prob) / len(typeless))
    assert abs(serial - P.serial_prob) < 5 * se                 # 0.244 +- 0.011


def test_power_of_two_fraction(typeless):
    # Jobs with u in (serial, serial + pow2] get a power-of-two size (probability 0.576). The other
    # parallel jobs (1 - 0.244 - 0.576 = 0.18) land on a power of two 2^k only when
    # 2^par in [2^k - 0.5, 2^k + 0.5): compute that chance from the two-stage uniform density.
    def cdf(x):  # two-stage uniform on [ULow, UMed] w.p. UProb, [UMed, UHi] otherwise
        a = P.uprob * np.clip((x - P.ulow) / (P.umed - P.ulow), 0, 1)
        return a + (1 - P.uprob) * np.clip((x - P.umed) / (P.uhi - P.umed), 0, 1)

    hit = sum(cdf(np.log2(2**k + 0.5)) - cdf(np.log2(2**k - 0.5)) for k in range(1, 8))
    expected = P.pow2_prob + (1 - P.serial_prob - P.pow2_prob) * hit
    sizes = typeless.processors
    pow2 = float(((sizes > 1) & ((sizes & (sizes - 1)) == 0)).mean())
    assert abs(pow2 - expected) < 5 * np.sqrt(expected * (1 - expected) / len(sizes))


def test_mean_log_run_time(typeless):
    # log run time ~ hyper-gamma: Gamma(A1, B1) w.p. p = clip(PA n + PB, 0, 1), else Gamma(A2, B2),
    # conditioned on <= 12 (redraws). run = floor(exp(hg)), so log(run) <= hg < log(run + 1).
    n = typeless.processors.astype(float)
    p = np.clip(P.pa * n + P.pb, 0, 1)
    g1, g2 = stats.gamma(P.a1, scale=P.b1), stats.gamma(P.a2, scale=P.b2)
    m1 = g1.expect(lambda x: x, ub=12) / g1.cdf(12)
    m2 = g2.expect(lambda x: x, ub=12) / g2.cdf(12)
    w1, w2 = p * g1.cdf(12), (1 - p) * g2.cdf(12)
    expected = float(np.mean((w1 * m1 + w2 * m2) / (w1 + w2)))
    lo = np.log(typeless.run_time).mean()
    hi = np.log(typeless.run_time + 1).mean()
    sd = np.log(typeless.run_time).std() / np.sqrt(len(n))
    assert lo - 5 * sd <= expected <= hi + 5 * sd


def test_daily_arrival_cycle(typeless):
    # arrival rate in half-hour bucket b is proportional to its weight w[b] (points are spent at
    # w[b] per bucket): the share of arrivals per bucket follows w / 48
    w = arrival_weights(P.anum, P.bnum)
    bucket = ((typeless.submit % 86400) // 1800).astype(int)
    share = np.bincount(bucket, minlength=48) / len(bucket)
    assert np.abs(share - w / 48).max() < 0.006
    assert np.argmax(share) == np.argmax(w) or share[np.argmax(w)] > 0.9 * share.max()


def test_typed_streams_and_sizes():
    wl = lublin(days=20, nodes=256, rng=2)
    assert wl.submit.max() < 20 * 86400 and set(np.unique(wl.extra["type"])) == {0, 1}
    assert wl.processors.max() <= 256 and (wl.run_time <= np.exp(12)).all()
    assert np.all(np.diff(wl.submit) >= 0)
    assert lublin(100, rng=4).equals(lublin(100, rng=4))       # deterministic for a seed
    est = lublin(500, rng=4, estimate=3.0)
    assert (est.requested_time >= est.run_time).all() and (est.requested_time % 60 == 0).all()
    with pytest.raises(InvalidInstanceError, match="exactly one"):
        lublin(10, days=1)
    with pytest.raises(InvalidInstanceError, match="nodes"):
        lublin(10, nodes=0)


def test_ks_against_reference_program_output(shared_data):
    ref = read_swf(shared_data / "swf" / "lublin_256.swf")
    ours = lublin(len(ref), nodes=256, typed=False, rng=1)
    # the reference file is typeless with UHI = 8 (lublin_model.md); UMED not recorded
    assert stats.ks_2samp(ours.run_time, ref.run_time).statistic < 0.03
    assert stats.ks_2samp(ours.processors, ref.processors).statistic < 0.03
    assert abs((ours.processors == 1).mean() - (ref.processors == 1).mean()) < 0.02


def test_google_like():
    wl = google_like(200, 20000, rng=0)
    assert wl.n_tasks == 20000 and wl.n_users == 200
    per_user = np.bincount(wl.user, weights=wl.tasks)
    assert per_user.max() > 20 * np.median(per_user)            # heavy-tailed tasks per user
    assert wl.resource_names == ("cpu", "memory") and (wl.resources > 0).all()
    assert (wl.run_time >= 1).all()
    with pytest.raises(InvalidInstanceError, match="n_users"):
        google_like(0, 10)


@pytest.mark.parametrize("frac", [0.25, 0.5, 0.8])
def test_alibaba_like_mixes(frac):
    wl = alibaba_like(200, large_fraction=frac, rng=1)
    large = wl.tasks >= 500
    assert large.sum() == round(frac * 200) and np.array_equal(large, wl.extra["large"])
    assert wl.submit.min() >= 1 and wl.submit.max() <= 600 and (wl.submit % 1 == 0).all()
    assert (wl.run_time >= 1).all() and (wl.run_time % 1 == 0).all()
    assert wl.meta["time_unit"] == "slot"


def test_alibaba_like_from_source(shared_data):
    from fairalloc.workloads import read_alibaba
    src = read_alibaba(shared_data / "alibaba-2017" / "batch_task.csv")
    wl = alibaba_like(100, large_fraction=0.5, source=src, rng=0)
    assert (wl.tasks >= 500).sum() == 50 and np.isfinite(wl.resources).all()
