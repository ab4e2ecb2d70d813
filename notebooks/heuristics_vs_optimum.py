# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Greedy task schedulers against the exact optimum
#
# Every multi-resource mechanism in fairalloc has a fast greedy scheduler (`fairalloc.scheduling`) and
# an exact program (`fairalloc.exact`: leximin MILPs over integer tasks on servers with placement; the
# TV-TSF integer program over time slots). This notebook measures what the greedy heuristics lose:
#
# * **DRF** progressive filling and **SDRF Algorithm 1** (Sadok et al., SBRC 2018), as printed
#   (stop at the first task that does not fit) and with "skip"; SDRF with the level reading
#   (Eq. 5's order) and the printed one (max_r o + c);
# * **TSF** filling (Wang et al., SC 2016) and **CDRF** SequentialMinMax (Parkes et al. 2015);
# * **TV-TSF** Algorithms 1-5 (Li and Wang 2024) and the paper's slotted TSF / CDRF baselines, all
#   measured against the TV-TSF optimum (Eq. 10 with the errata fixed, leximin, offline).
#
# Values are the mechanism's own (dominant shares, SDRF levels with the instance's commitments, task
# shares, the CDRF key, cumulative task shares), computed by `fairalloc.shares` for both allocations.
# Then the convergence study: does Algorithm 1 approach Eq. 5's water-filling as tasks shrink, and
# with which priority reading?
#
# All logic lives in `fairalloc.experiments.compare` and `fairalloc.experiments.convergence`; this
# notebook defines no algorithm. `FAIRALLOC_SCALE=full` runs 300 task and 100 time-varying seeded
# instances; the default (`small`, run in CI) 40 and 12.

# %%
# %matplotlib inline
import os

import numpy as np
import pandas as pd

import fairalloc as fa
from fairalloc.experiments.compare import VARIANTS, builtin_instances, compare, random_instances, summarize
from fairalloc.experiments.convergence import CONVERGENCE_EXAMPLES, sdrf_convergence
from fairalloc.plots.compare import gaps
from fairalloc.plots.scheduling import convergence

SCALE = os.environ.get("FAIRALLOC_SCALE", "small")
N_TASKS, N_TV = {"small": (40, 12), "full": (300, 100)}[SCALE]
SEED = 2024
instances = builtin_instances() + random_instances(N_TASKS, N_TV, rng=SEED)
print(f"scale={SCALE}: {len(instances)} instances ({N_TASKS} random task instances with 2-5 users on "
      f"1-3 servers, {N_TV} random TV-TSF instances of 4 slots, plus {len(builtin_instances())} built-in)")

# %%
table = compare(instances, variants=list(VARIANTS), solver="highs", time_limit=60)
print("exact statuses:", table["exact_status"].value_counts().to_dict())
summary = summarize(table)
summary.round(3)

# %% [markdown]
# ## Gap distributions
#
# One dot per instance: the gap of the smallest value (exact - greedy; the max-min objective) and the
# leximin distance (the largest difference between the sorted value vectors; 0 = the greedy found the
# leximin optimum). Right: the time of each greedy against its exact program.

# %%
fig = gaps(table)
fig

# %% [markdown]
# ## What the greedy heuristics lose
#
# Per variant: how often the greedy reaches the leximin optimum, its max-min loss (mean and worst),
# the tasks it leaves unplaced that the optimum places, and how often its allocation is
# Pareto-dominated (another feasible allocation gives every user at least as many tasks and someone
# more: pure waste).

# %%
lost = table.assign(tasks_lost=table["exact_tasks"] - table["greedy_tasks"])
loss = pd.DataFrame({
    "optimal": lost.groupby("variant", sort=False)["same"].mean(),
    "mean_min_loss": lost.groupby("variant", sort=False)["min_gap"].mean(),
    "worst_min_loss": lost.groupby("variant", sort=False)["min_gap"].max(),
    "mean_tasks_lost": lost.groupby("variant", sort=False)["tasks_lost"].mean(),
    "pareto_dominated": lost.groupby("variant", sort=False)["pareto_dominated"].apply(
        lambda s: s.dropna().astype(bool).mean()),
    "greedy_ms": 1e3 * lost.groupby("variant", sort=False)["greedy_s"].median(),
    "exact_ms": 1e3 * lost.groupby("variant", sort=False)["exact_s"].median(),
})
OPTIMAL = loss["optimal"].round(3).to_dict()
WORST = loss["worst_min_loss"].round(4).to_dict()
DOMINATED = loss["pareto_dominated"].round(3).to_dict()
loss.round(3)

# %% [markdown]
# Reading the table: the "stop" variants (Algorithm 1 as printed) leave capacity idle whenever the
# user at the front has a task too big for what is left, which is also why they are often
# Pareto-dominated; "skip" recovers most of it. TSF and CDRF (skip by default) are close to their
# optima; the gaps that remain are the indivisibility effects a greedy order cannot see (the
# `integer-trap` instance: 6 + 5 > 10). TV-TSF's greedy decides slot by slot without knowing the
# future, while the reference is the offline optimum over the whole horizon: part of its gap is the
# price of being online.

# %% [markdown]
# ## Convergence of Algorithm 1 to Eq. 5
#
# The same total demand of every user is split into k equal tasks; greedy SDRF (one pool, the
# commitments a snapshot) is compared with Eq. 5's exact water-filling (`fa.sdrf`), for both priority
# readings, on the three instances of `CONVERGENCE_EXAMPLES` (`cross` has a commitment on a resource
# that does not dominate the user's allocation).

# %%
ks = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000) if SCALE == "full" else (1, 3, 10, 30, 100, 300, 1000)
conv = pd.concat([sdrf_convergence(fa.Instance(d), c, ks=ks).assign(instance=name)
                  for name, (d, c) in CONVERGENCE_EXAMPLES.items()], ignore_index=True)
convergence(conv)

# %%
at_k = conv[conv["k"] == max(ks)].pivot(index="instance", columns="priority", values="distance")
LEVEL_MAX_DIST = float(at_k["level"].max())
PRINTED_CROSS_DIST = float(at_k.loc["cross", "printed"])
at_k.round(4)

# %% [markdown]
# With the **level** reading (dominant share + dominant commitment, Eq. 5's order) the distance to
# Eq. 5 falls like 1/k on every instance. The **printed** reading (max_r o_ir + c_ir) converges too,
# but to a different allocation on `cross` (about 0.225 whatever k) and on `three` (about 0.13),
# whose commitments lie on resources that do not dominate the allocation: it counts a commitment
# only where it exceeds the allocation's own dominance, so Algorithm 1 as printed does not implement
# Eq. 5 there. With zero commitments (`drf`) both readings are DRF filling and coincide.

# %%
print(f"greedy = leximin optimum (fraction of instances): {OPTIMAL}")
print(f"worst max-min loss: {WORST}")
print(f"Pareto-dominated greedy allocations (fraction): {DOMINATED}")
print(f"distance to Eq. 5 at k = {max(ks)}: level reading <= {LEVEL_MAX_DIST:.4f}; printed reading on "
      f"'cross' {PRINTED_CROSS_DIST:.4f}")
