"""Greedy task filling against the exact divisible mechanisms where theory says they coincide.

One server (a pool), each user's total demand split into k equal tasks: as k grows, DRF task
filling approaches DRF's water-filling (Ghodsi et al. 2011, progressive filling), SDRF Algorithm 1 with
the level reading approaches Eq. 5 (``fa.sdrf``), and on one server TSF's task share
x_i / h_i with h_i = floor(1 / dominant share of a task) is the dominant share up to one task, so TSF
and CDRF filling approach DRF as well. The bound is one task's dominant share (1/k of the demand).
"""

from __future__ import annotations

import numpy as np
import pytest

import fairalloc as fa
from fairalloc import shares
from fairalloc.scheduling import GREEDY


def _random_pool_instance(rng, n, m):
    demands = rng.uniform(0.1, 1.0, (n, m))          # totals that fit in a pool of 1 per resource
    return fa.Instance(demands), rng.uniform(0, 0.3, (n, m))


def _greedy_on_pool(mechanism, inst, c, k):
    ti = fa.TaskInstance([inst.capacities], inst.demands / k, tasks=[k] * inst.n_agents,
                         commitments=c if mechanism == "sdrf" else None)
    r = GREEDY[mechanism](ti)
    return shares.normalized_demands(r.allocation, inst.capacities)


@pytest.mark.parametrize("mechanism", ["drf", "sdrf", "tsf", "cdrf"])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_one_server_divisible_limit(mechanism, seed):
    rng = np.random.default_rng(seed)
    inst, c = _random_pool_instance(rng, n=int(rng.integers(2, 5)), m=int(rng.integers(1, 4)))
    exact = fa.sdrf(inst, commitments=c) if mechanism == "sdrf" else fa.drf(inst)
    target = shares.normalized_demands(exact.allocation, inst.capacities)
    dist = {k: np.abs(_greedy_on_pool(mechanism, inst, c, k) - target).max() for k in (10, 1000)}
    # one task of every user is at most max_ir theta_ir / k of a resource; the greedy stops within a
    # couple of tasks of the water level (blocking, ties, flooring of h for TSF)
    assert dist[1000] <= 3 * inst.demands.max() / 1000 + 1e-12
    assert dist[1000] <= dist[10] + 1e-12


def test_drf_paper_totals_exact_at_task_granularity():
    # DRF paper: A <1, 4>, B <3, 1> on <9, 18> with unbounded demand: DRF's divisible optimum gives
    # both dominant share 2/3 (A: 3 tasks' worth, B: 2), which the greedy hits exactly because the
    # optimum is a whole number of tasks (Ghodsi et al., Section 4).
    inst = fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[100, 100], capacities=[9, 18])
    exact = fa.drf(inst)
    ti = fa.TaskInstance([[9, 18]], [[1, 4], [3, 1]], tasks=[100, 100])
    r = GREEDY["drf"](ti)
    np.testing.assert_allclose(r.allocation, exact.allocation, atol=1e-9)
