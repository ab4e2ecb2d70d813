"""Billing against Slurm's TRES and multifactor pages (SchedMD/slurm 284c3b95f0: doc/html/tres.shtml,
"Billing Weights" and "Priority Flags"; doc/html/priority_multifactor.shtml, "Fair-share Factor").
"""

from __future__ import annotations

import numpy as np
import pytest

from fairalloc import shares
from fairalloc.errors import InvalidInstanceError
from fairalloc.fairshare import Billing
from fairalloc.fairshare.billing import tres_billing_row

TRES = ["cpu", "mem", "gres/gpu", "license/licA"]


def test_tres_page_examples():
    # TRESBillingWeights="CPU=1.0,Mem=0.25G,GRES/gpu=2.0,license/licA=1.5"; memory in MiB (Slurm's base unit)
    w = "CPU=1.0,Mem=0.25G,GRES/gpu=2.0,license/licA=1.5"
    job = [1, 8 * 1024, 0, 0]                               # 1 CPU, 8 GiB
    # "(1*1.0) + (8*0.25) + (0*2.0) + (0*1.5) = 3.0"
    assert Billing.from_slurm(w).rates([job], TRES).tolist() == [3.0]
    # MAX_TRES: "MAX(1*1.0, 8*0.25, 0*2.0) + (0*1.5) = 2.0"
    assert Billing.from_slurm(w, flags="MAX_TRES").rates([job], TRES).tolist() == [2.0]
    # MAX_TRES_GRES: "(0*2.0) + MAX(1*1.0, 8*0.25) + (0*1.5) = 2.0"
    b = Billing.from_slurm(w, flags="MAX_TRES_GRES")
    assert b.rates([job], TRES).tolist() == [2.0]
    # with a GPU the page prints "(1*2.0) + MAX(1*1.0, 8*0.25) + (0*1.5) = 3.0": its own terms add to
    # 2.0 + 2.0 + 0 = 4.0 (an arithmetic slip on the page; assoc_mgr_tres_weighted adds the GRES to the max)
    assert b.rates([[1, 8 * 1024, 1, 0]], TRES).tolist() == [4.0]
    # "(1*1.0) + (8*0.25) + (0*2.0) + (1*1.5) = 4.5 => 4": the page's stored billing TRES is truncated; the
    # fair-share usage uses the double (_apply_new_usage * calc_job_billable_tres), so the rate is 4.5
    assert Billing.from_slurm(w).rates([[1, 8 * 1024, 0, 1]], TRES).tolist() == [4.5]
    # "(1*1.0) + (10*0.25) + (0*2.0) + (1*1.5) = 5.0"
    assert Billing.from_slurm(w).rates([[1, 10 * 1024, 0, 1]], TRES).tolist() == [5.0]


def test_multifactor_page_examples():
    # TRESBillingWeights=CPU=1.0,Mem=0.25G on 16CPU, 64GiB nodes; memory in GiB here (weight 0.25 per GiB)
    b = Billing.from_slurm("CPU=1.0,Mem=0.25G", memory_unit="G")
    # "Job1: (1*1.0) + (60*0.25) = 16; Job2: (16*1.0) + (1*0.25) = 16.25; Job3: (16*1.0) + (60*0.25) = 31"
    assert b.rates([[1, 60], [16, 1], [16, 60]], ["cpu", "mem"]).tolist() == [16.0, 16.25, 31.0]
    # MAX: the page prints "Job1: MAX((1*1.0), (60*0.25)) = 15, Job2: MAX((15*1.0), (1*0.25)) = 15,
    # Job3: MAX((16*1.0), (64*0.25)) = 16" (its Job2 has 15 CPUs and its Job3 64 GiB there: the inputs as printed)
    m = Billing.from_slurm("CPU=1.0,Mem=0.25G", memory_unit="G", flags="MAX_TRES")
    assert m.rates([[1, 60], [15, 1], [16, 64]], ["cpu", "mem"]).tolist() == [15.0, 15.0, 16.0]


def test_default_is_cpus_and_aliases():
    # no weights: Slurm bills the allocated CPUs
    assert Billing().rates([[4, 512.0]], ["cpu", "memory"]).tolist() == [4.0]
    w, k = Billing({"CPU": 1, "Memory": 0.5, "gpu": 3}).weights_for(["cpu", "mem", "gpu"])
    assert w.tolist() == [1.0, 0.5, 3.0] and k.tolist() == [0, 0, 1]


def test_dominant_share_is_the_shares_module_definition():
    x = np.array([[1.0, 60.0], [16.0, 1.0], [8.0, 32.0]])
    cap = np.array([16.0, 64.0])
    got = Billing(rule="dominant_share").rates(x, ["cpu", "memory"], capacities=cap)
    # by hand: max(1/16, 60/64) = 0.9375, max(1, 1/64) = 1, max(0.5, 0.5) = 0.5
    assert got.tolist() == [0.9375, 1.0, 0.5]
    np.testing.assert_array_equal(got, shares.dominant_shares(x, cap))
    # MAX_TRES with weights 1/C is the same number
    m = Billing({"cpu": 1 / 16, "mem": 1 / 64}, rule="max_tres").rates(x, ["cpu", "mem"])
    np.testing.assert_allclose(m, got)


def test_row_rule_by_hand():
    # node TRES cpu=2*1, mem=3*0.5, gres 1*4, global license 2*0.25
    row = ([2.0, 3.0, 1.0, 2.0], [1.0, 0.5, 4.0, 0.25], [0, 0, 1, 2])
    assert tres_billing_row(*row, 0) == 2 + 1.5 + 4 + 0.5
    assert tres_billing_row(*row, 1) == max(2, 1.5, 4) + 0.5
    assert tres_billing_row(*row, 2) == max(2, 1.5) + 4 + 0.5


@pytest.mark.parametrize("make, message", [
    (lambda: Billing({"gpu": 1}).rates([[1, 2]], ["cpu", "memory"]), r"billing weights name 'gres/gpu', which the trace lacks"),
    (lambda: Billing({"cpu": -1}), r"weights\['cpu'\]=-1 must be a finite number >= 0"),
    (lambda: Billing({"cpu": True}), r"weights\['cpu'\]=True"),
    (lambda: Billing({"cpu": 1, "CPU": 2}), r"give 'cpu' twice"),
    # weights that sum to 0 would bill nothing: fair share silently off (issue 27, Bad input; Kueue PR #15228)
    (lambda: Billing({"cpu": 0, "mem": 0.0}), r"billing weights \{'cpu': 0, 'mem': 0.0\} sum to 0"),
    (lambda: Billing(rule="max"), r"rule='max' is not a billing rule"),
    (lambda: Billing({"cpu": 1}, rule="dominant_share"), r"takes no weights"),
    (lambda: Billing(rule="dominant_share").rates([[1, 1]], ["cpu", "mem"]), r"needs the cluster's capacities"),
    (lambda: Billing().rates([[1, -1]], ["cpu", "mem"]), r"amounts\[0, 1\]=-1.0 must be finite and >= 0"),
    (lambda: Billing().rates([[1, 1]], ["cpu"]), r"amounts must have shape \(n_jobs, 1\)"),
    (lambda: Billing().weights_for(["mem", "memory"]), r"repeat a resource"),
    (lambda: Billing.from_slurm("CPU"), r"entry 'CPU' must be <TRES>=<weight>"),
    (lambda: Billing.from_slurm("CPU=x"), r"'x' is not a number"),
    (lambda: Billing.from_slurm("Mem=1Q"), r"unknown unit 'Q'"),
])
def test_bad_billing(make, message):
    with pytest.raises(InvalidInstanceError, match=message):
        make()
