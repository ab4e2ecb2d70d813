"""Pooled forms of the production policies (fairalloc.fairshare.pooled).

What specifies them here, never their own output:

* hand computations (each test says how), the DRF paper's example (Ghodsi et al., NSDI 2011,
  Section 4: <1 CPU, 4 GB> and <3 CPU, 1 GB> on <9, 18>: 3 and 2 tasks) and HTCondor's manual (EUPs 5,
  10, 20 get slots 4 : 2 : 1);
* reductions to fairalloc's exact mechanisms where the rule reduces to one: Kueue DRS (one
  ClusterQueue per user, no quotas), YARN DRF (no min shares), Mesos' sorter and Volcano's DRF/HDRF are
  weighted DRF; Slurm with MAX_TRES billing by 1/capacity is SDRF with the billed usage as the
  commitment. The reference (``fa.drf`` / ``fa.sdrf``) is checked against the *literal* rule
  (``method="increments"``: each decision made by the production per-decision function of
  fairalloc.fairshare on the current allocation), which shares no code with the water-filling;
* the fixed point: at the exact limit, every user still wanting and not blocked has the same
  production key (the fair-share factor of ``fairshare_factors``).
"""

from __future__ import annotations

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.accounts import AccountTree
from fairalloc.errors import InvalidInstanceError
from fairalloc.fairshare import AdmissionFairSharing, Billing, pooled
from fairalloc.fairshare.slurm import fairshare_factors

GHODSI = fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[100, 100], capacities=[9, 18])
#: increments of 1e-3 dominant share: the literal loop ends within a few steps of the limit
STEP = 1e-3
TOL = 5e-3


def _random_instances(seed, count, *, weights=True, zero=False):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n, m = int(rng.integers(2, 4)), int(rng.integers(1, 4))
        D = rng.uniform(0.1, 2.0, (n, m))
        if zero:
            D[rng.random((n, m)) < 0.2] = 0.0
            D[D.sum(axis=1) == 0, 0] = 1.0
        C = rng.uniform(0.5, 3.0, m)
        w = rng.integers(1, 4, n).astype(float) if weights else None
        yield fa.Instance(D, C, w)


# ---- hand cases ----------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [pooled.kueue_drs, pooled.yarn_drf, pooled.mesos_drf, pooled.volcano_drf,
                                pooled.volcano_hdrf])
@pytest.mark.parametrize("method", ["waterfill", "increments"])
def test_dominant_share_rules_give_the_drf_papers_example(fn, method):
    """Ghodsi et al. Section 4: user A gets 3 tasks <1, 4>, user B 2 tasks <3, 1> (dominant shares 2/3)."""
    r = fn(GHODSI, method=method, step=STEP)
    tasks = (r.allocation / np.array([[1, 4], [3, 1]])).max(axis=1)
    np.testing.assert_allclose(tasks, [3.0, 2.0], atol=0.03 if method == "increments" else 1e-9)


@pytest.mark.parametrize("algorithm", ["classic", "fair_tree"])
@pytest.mark.parametrize("method", ["waterfill", "increments"])
def test_slurm_past_usage_by_hand(algorithm, method):
    """10 CPUs, two equal users wanting all, user 0 used 4 CPU-periods: 4 + x0 = x1, x0 + x1 = 10."""
    r = pooled.slurm_fairshare(fa.Instance([[10.0], [10.0]], capacities=[10]), [4.0, 0.0], algorithm=algorithm,
                               method=method, step=STEP)
    np.testing.assert_allclose(r.allocation.ravel(), [3.0, 7.0], atol=0.02 if method == "increments" else 1e-12)


def test_slurm_shares_weigh_the_usage():
    """Shares 1 and 3 (S = 1/4, 3/4), no usage, one resource of 8: x0/S0 = x1/S1, so 2 and 6 (by hand)."""
    r = pooled.slurm_fairshare(fa.Instance([[8.0], [8.0]], capacities=[8], weights=[1, 3]))
    np.testing.assert_allclose(r.allocation.ravel(), [2.0, 6.0], atol=1e-12)


def test_cpu_billing_starves_the_cpu_heavy_user():
    """Slurm's default billing (CPUs) and HTCondor's default slot weight: capacities <1, 1>, user 0 wants
    <1, 0.1>, user 1 <0.1, 1>. Equal CPU x each: memory 0.1 x + 10 x = 1 saturates at x = 10/101, so user 0
    runs 10/101 of its demand. DRF: equal dominant shares s, 1.1 s = 1: 10/11 each (by hand)."""
    inst = fa.Instance([[1.0, 0.1], [0.1, 1.0]])
    for r in (pooled.slurm_fairshare(inst), pooled.htcondor_priority(inst)):
        np.testing.assert_allclose(r.utilities, [10 / 101, 1.0 * 10 / 101 * 10], atol=1e-12)
    np.testing.assert_allclose(fa.drf(inst).utilities, [10 / 11, 10 / 11], atol=1e-12)
    # MAX_TRES billing by 1/capacity is the dominant share: DRF again
    np.testing.assert_allclose(pooled.slurm_fairshare(inst, billing=Billing(rule="dominant_share")).utilities,
                               [10 / 11, 10 / 11], atol=1e-12)


@pytest.mark.parametrize("method", ["waterfill", "increments"])
def test_htcondor_pie_slices_of_the_manual(method):
    """HTCondor's manual: EUPs 5, 10, 20 share slots 4 : 2 : 1 (7 CPUs, each user wanting all)."""
    r = pooled.htcondor_priority(fa.Instance([[7.0]] * 3, capacities=[7]), rup=[5.0, 10.0, 20.0], method=method,
                                 step=STEP)
    np.testing.assert_allclose(r.allocation.ravel(), [4.0, 2.0, 1.0], atol=0.02 if method == "increments" else 1e-9)


def test_htcondor_floor_and_leftovers_spun_again():
    """RUPs 0.1 and 0.2 are below the floor 0.5: equal slices. User 0 wants 2 of 10 CPUs; its unused
    slice is spun again, so user 1 gets 8 (by hand)."""
    r = pooled.htcondor_priority(fa.Instance([[2.0], [10.0]], capacities=[10]), rup=[0.1, 0.2])
    np.testing.assert_allclose(r.allocation.ravel(), [2.0, 8.0], atol=1e-12)


@pytest.mark.parametrize("method", ["waterfill", "increments"])
def test_volcano_proportion_leaves_resources_idle(method):
    """<10, 2> and <2, 10> on <10, 10>, weights 1: deserved tends to <8, 2> and <2, 8> (first round <5, 2>,
    <2, 5>, then the 3 left of each resource goes to the heavy user of it), so 0.8 of each demand and 0.4 of
    each resource idle; DRF gives 10/12 each (by hand)."""
    inst = fa.Instance([[10.0, 2.0], [2.0, 10.0]], capacities=[10, 10])
    r = pooled.volcano_proportion(inst, method=method, step=STEP)
    np.testing.assert_allclose(r.utilities, [0.8, 0.8], atol=0.01 if method == "increments" else 1e-6)
    assert r.allocation.sum(axis=0).max() < 9.7


@pytest.mark.parametrize("method", ["waterfill", "increments"])
def test_kueue_afs_by_hand(method):
    """Sampling interval = half-life, so the entry penalty is alpha = 1/2 of a request; consumed 4 and 0:
    usages 4 + x0/2 and x1/2 equalise with x0 + x1 = 10: x0 = 1, x1 = 9 (by hand)."""
    afs = AdmissionFairSharing(usage_half_life=300.0, sampling_interval=300.0)
    r = pooled.kueue_afs(fa.Instance([[10.0], [10.0]], capacities=[10]), [[4.0], [0.0]], afs=afs, method=method,
                         step=STEP)
    np.testing.assert_allclose(r.allocation.ravel(), [1.0, 9.0], atol=0.02 if method == "increments" else 1e-12)


def test_kueue_afs_adds_raw_units():
    """Default resource weights 1 add CPUs and GB: <1, 100> capacities, user 0 <1, 1>, user 1 <0.01, 100>.
    Equal usage 2 t0 = 100.01 t1; CPU t0 + 0.01 t1 <= 1 binds: t0 = 1/(1 + 0.02/100.01), t1 = 2 t0/100.01
    (about 0.02), while half of everything gives user 1 a utility of 0.5 (by hand)."""
    r = pooled.kueue_afs(fa.Instance([[1.0, 1.0], [0.01, 100.0]], capacities=[1, 100]))
    t0 = 1 / (1 + 0.02 / 100.01)
    np.testing.assert_allclose(r.utilities, [t0, 2 * t0 / 100.01], rtol=1e-9)


# ---- usage updates -------------------------------------------------------------------------------
def test_slurm_usage_step_is_a_decay_pass_then_the_charge():
    """U' = delta U + delta b (one pass of one period: _apply_decay then usage_charge with r = 1)."""
    np.testing.assert_allclose(pooled.slurm_usage_step([4.0, 0.0], [[3.0, 1.0], [7.0, 0.0]], 0.5),
                               [0.5 * 4 + 0.5 * 3, 0.5 * 7])
    dom = pooled.slurm_usage_step([0.0], [[1.0, 3.0]], 0.25, billing=Billing(rule="dominant_share"),
                                  capacities=[4.0, 4.0])
    np.testing.assert_allclose(dom, [0.25 * 3 / 4])


def test_htcondor_rup_step_half_life_one_period():
    """beta = 1/2: 0.5 * max(0.5, RUP) + 0.5 * cores in use, floored at 0.5 (the manual's rule)."""
    np.testing.assert_allclose(pooled.htcondor_rup_step([4.0, 0.0], [[2.0], [0.0]], 0.5), [3.0, 0.5])


def test_kueue_afs_step():
    """(1 - alpha) c + alpha u with alpha = 1 - decay: 0.75 * 4 + 0.25 * 8 = 5."""
    np.testing.assert_allclose(pooled.kueue_afs_step([[4.0]], [[8.0]], 0.75), [[5.0]])


# ---- reductions and the literal rule ----------------------------------------------------------------
@pytest.mark.parametrize("fn", [pooled.kueue_drs, pooled.yarn_drf, pooled.mesos_drf, pooled.volcano_hdrf])
def test_weighted_dominant_share_rules_reduce_to_weighted_drf(fn):
    """The rule decided by its own per-decision function converges to fa.drf (weights = queue weights)."""
    for inst in _random_instances(3, 4, zero=True):
        ref = fa.drf(inst).allocation
        np.testing.assert_allclose(fn(inst).allocation, ref, atol=1e-9)
        lit = fn(inst, method="increments", step=STEP).allocation
        np.testing.assert_allclose(lit / inst.capacities, ref / inst.capacities, atol=TOL)


def test_volcano_drf_is_unweighted_drf():
    for inst in _random_instances(4, 4, zero=True):
        ref = fa.drf(fa.Instance(inst.demands, inst.capacities)).allocation
        np.testing.assert_allclose(pooled.volcano_drf(inst).allocation, ref, atol=1e-9)
        lit = pooled.volcano_drf(inst, method="increments", step=STEP).allocation
        np.testing.assert_allclose(lit / inst.capacities, ref / inst.capacities, atol=TOL)


def test_slurm_max_tres_is_sdrf_with_the_billed_usage_as_commitment():
    """MAX_TRES billing by 1/C is the dominant share: levels (P_i + s_i)/S_i, SDRF's (c_i + s_i)/w_i with
    c_i = P_i (S and w proportional)."""
    rng = np.random.default_rng(5)
    for inst in _random_instances(5, 5, zero=True):
        P = rng.uniform(0, 0.5, inst.n_agents)
        r = pooled.slurm_fairshare(inst, P, billing=Billing(rule="dominant_share"))
        ref = fa.sdrf(inst, commitments=np.repeat(P[:, None], inst.n_resources, axis=1))
        np.testing.assert_allclose(r.allocation, ref.allocation, atol=1e-9)


@pytest.mark.parametrize("algorithm", ["classic", "fair_tree"])
def test_slurm_waterfill_is_the_limit_of_the_factor_rule(algorithm):
    rng = np.random.default_rng(6)
    for inst in _random_instances(6, 4):
        P = rng.uniform(0, 1.0, inst.n_agents)
        a = pooled.slurm_fairshare(inst, P).allocation
        b = pooled.slurm_fairshare(inst, P, algorithm=algorithm, method="increments", step=STEP).allocation
        np.testing.assert_allclose(b / inst.capacities, a / inst.capacities, atol=TOL)


def test_slurm_limit_is_a_fixed_point_of_the_classic_factor():
    """Progressive filling stops a user only when it is satisfied or needs a full resource, and every user
    that received something and still wants more has the same (largest) fair-share factor."""
    rng = np.random.default_rng(7)
    checked = 0
    for inst in _random_instances(7, 8):
        P = rng.uniform(0, 1.0, inst.n_agents)
        r = pooled.slurm_fairshare(inst, P)
        U = P + Billing({"r0": 1.0}).rates(r.allocation, list(inst.resource_names), inst.capacities)
        F = fairshare_factors(AccountTree.flat(range(inst.n_agents), shares=list(inst.weights)), U,
                              fairshare="classic")
        full = r.allocation.sum(axis=0) >= inst.capacities * (1 - 1e-9)
        wanting = r.utilities < 1 - 1e-9
        assert not (wanting & ~((inst.demands > 0) & full).any(axis=1)).any()
        served = wanting & (r.allocation[:, 0] > 1e-9)
        if served.sum() >= 2:
            np.testing.assert_allclose(F[served], F[served].max(), rtol=1e-9)
            assert (F[wanting] <= F[served].max() * (1 + 1e-9)).all()
            checked += 1
    assert checked >= 2


def test_htcondor_and_afs_waterfill_are_the_limit_of_the_rule():
    rng = np.random.default_rng(8)
    afs = AdmissionFairSharing(usage_half_life=600.0, sampling_interval=300.0)
    for inst in _random_instances(8, 4):
        R = rng.uniform(0, 3.0, inst.n_agents)
        a = pooled.htcondor_priority(inst, R).allocation
        b = pooled.htcondor_priority(inst, R, method="increments", step=STEP).allocation
        np.testing.assert_allclose(b / inst.capacities, a / inst.capacities, atol=TOL)
        c = rng.uniform(0, 1.0, (inst.n_agents, inst.n_resources))
        a = pooled.kueue_afs(inst, c, afs=afs).allocation
        b = pooled.kueue_afs(inst, c, afs=afs, method="increments", step=STEP).allocation
        np.testing.assert_allclose(b / inst.capacities, a / inst.capacities, atol=TOL)


def test_volcano_proportion_closed_form_is_the_limit_of_allocatable():
    for inst in _random_instances(9, 4):
        a = pooled.volcano_proportion(inst).allocation
        b = pooled.volcano_proportion(inst, method="increments", step=STEP).allocation
        np.testing.assert_allclose(b / inst.capacities, a / inst.capacities, atol=TOL)


# ---- bad input ------------------------------------------------------------------------------------
def test_bad_input_is_named():
    inst = fa.Instance([[0.0, 1.0], [1.0, 1.0]])
    with pytest.raises(InvalidInstanceError, match="charges nothing for user 0"):
        pooled.slurm_fairshare(inst)                   # CPU billing, user 0 needs no CPU
    ok = fa.Instance([[1.0], [1.0]])
    with pytest.raises(InvalidInstanceError, match=r"usage\[1\]=-1.0"):
        pooled.slurm_fairshare(ok, [0.0, -1.0])
    with pytest.raises(InvalidInstanceError, match=r"usage must have shape \(2,\)"):
        pooled.slurm_fairshare(ok, [0.0])
    with pytest.raises(InvalidInstanceError, match="step=0"):
        pooled.kueue_drs(ok, method="increments", step=0)
    with pytest.raises(InvalidInstanceError, match="method"):
        pooled.yarn_drf(ok, method="lp")
    with pytest.raises(InvalidInstanceError, match="decay"):
        pooled.htcondor_rup_step([1.0], [[1.0]], 1.0)
    with pytest.raises(TypeError, match="fairalloc.Instance"):
        pooled.mesos_drf([[1.0]])
