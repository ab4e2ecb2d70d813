"""The what-if accepts the container clusters' policies (Kueue, YARN, Mesos, Volcano) beside DRF, SDRF and TV-TSF."""

from __future__ import annotations

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.experiments.whatif import synthetic_tree, whatif, whatif_tables


def test_container_policies_side_by_side(tmp_path):
    wl = fa.workloads.google_like(8, 600, horizon=3600.0, rng=0)
    names = ["drf", "sdrf", "tvtsf", "kueue", "yarn", "mesos", "volcano"]
    s = whatif(wl, names, half_lives=["1h"], capacity={"pool": 0.5}, accounts=("synthetic", 3), out=tmp_path,
               workers=0)
    assert s["label"].tolist() == names
    # SDRF and Kueue (its Admission Fair Sharing, usageHalfLifeTime) take the grid's half-life; the others
    # have none (their factories refuse half_life=)
    assert s.loc[s.label.isin(["sdrf", "kueue"]), "half_life"].tolist() == [3600.0, 3600.0]
    assert s.loc[~s.label.isin(["sdrf", "kueue"]), "half_life"].isna().all()
    assert (s["finished"] == len(wl)).all()
    # the cell ran the simulator with the run's account tree: the queues are its accounts
    tree = synthetic_tree(sorted(set(wl.user.tolist())), 3, rng=0)
    pool = fa.sim.ResourcePool.from_workload(wl, 0.5)
    direct = fa.simulate(wl, pool, policy="yarn", accounts=tree)
    assert s.loc[s.label == "yarn", "mean_wait"].item() == pytest.approx(float(np.mean(direct.jobs["wait"])))
    ent = whatif_tables(tmp_path)["entities"]
    assert {"acct1", "acct2", "acct3"} <= set(ent["entity"])
