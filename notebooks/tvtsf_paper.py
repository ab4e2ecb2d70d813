# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---


# %% [markdown]
# # TV-TSF (Li and Wang 2024), Section 3: Figs. 1-3 beside the paper
#
# The experiment is the shipped spec `tvtsf` of `fairalloc reproduce`; this notebook defines no
# algorithm. It reads the run stored in the docs (`docs/reproductions/results/tvtsf`, with its
# per-user times from the stored cells) when that run is of the scale asked for (`FAIRALLOC_SCALE`:
# `small` by default, `full` for the paper's size), else the results in
# `../out/reproduce/tvtsf-SCALE`, running the scale when there are none. Five policies: TV-TSF; TSF and CDRF as
# the paper's Table 1 describes them (`tsf-static`: divisible, placement-aware, duration-unaware;
# `cdrf-static`: indivisible, placement- and duration-unaware; one static allocation of the free
# capacity per slot); and the controlled variants (`tsf-slotted`, `cdrf-slotted`: TV-TSF's own
# packing with the TSF / CDRF key, which measure what the ordering alone is worth). The paper used
# Alibaba v2018 (not shipped): the 2017 `batch_task` demands stand in.

# %%
# %matplotlib inline
import json
from pathlib import Path

import pandas as pd

from IPython.display import Markdown, display

import fairalloc
from fairalloc.experiments.reproductions import (load_spec, notebook_scale, read_tables, results_dir, tvtsf,
                                                 tvtsf_report)
from fairalloc.experiments.reproductions.report import read_claims
from fairalloc.plots.reproductions import tvtsf_cdfs, tvtsf_load_axis

SCALE = notebook_scale()          # FAIRALLOC_SCALE: small (default) or full (the paper's size)
STORED = Path(fairalloc.__file__).resolve().parents[1] / "docs" / "reproductions" / "results"
out = results_dir("tvtsf", SCALE, stored=STORED, out=Path("../out/reproduce"))
if (out / "provenance.json").exists():
    # the stored run keeps no sweep tables; its cells are stored beside it (tvtsf.store_cells)
    prov = json.loads((out / "provenance.json").read_text())
    display(Markdown(f"Stored results: `{prov['command']}` at commit `{prov['commit'][:10]}`, {prov['date']}"))
    users = tvtsf.stored_cells(out / "cells")["users"]
else:
    n_jobs = load_spec("tvtsf")["scales"][SCALE]["grid"]["n_jobs"][0]     # the paper's experiment, not its axes
    users = tvtsf_report.split(read_tables(out), n_jobs)[0]["users"]
print((out / "report.md").read_text().split("## Claims")[0])

# %% [markdown]
# ## Figs. 1-3: CDFs over users, with mean μ and variance σ
# The paper's margins (TV-TSF better than the better of TSF and CDRF, in slots), for normal / 25% /
# 50% / 80% large jobs: waiting time ≥ 0.163 / 5 / 36 / 438; queuing time ≥ 0.9 / 56 / 56 / 708;
# completion time ≥ 14 / 119 / 384 / 585.

# %%
for metric, label in [("user_wait", "user waiting time"), ("mean_queuing", "task queuing time"),
                      ("mean_completion", "job completion time")]:
    display(tvtsf_cdfs(users, metric, label))

# %%
summary = tvtsf.summary(users)
summary.pivot(index="policy", columns="scenario",
              values=["user_wait_mean", "mean_queuing_mean", "mean_completion_mean"]).round(2)

# %% [markdown]
# ## The paper's claims against ours

# %%
claims = read_claims(out)
print(f"{int((claims['reproduced'] == 'yes').sum())} of {len(claims)} claims reproduced")
claims

# %% [markdown]
# ## Against load
# Every task's duration times 1, 2, 4, 6: the offered load times that factor, the job mix fixed. The
# margin (the better Table 1 baseline minus TV-TSF) against the offered memory load, the paper's margin
# of each scenario dotted. The paper's margins need baselines whose means are at least that large.

# %%
axis = out / "load_axis.csv"
if axis.exists():
    la = pd.read_csv(axis)
    display(tvtsf_load_axis(la, tvtsf_report.LABELS))
    display(la.pivot_table(index=["scenario", "duration_scale"], columns="metric",
                           values=["offered_memory", "margin", "paper_margin"]).round(2))
else:
    print("the load axis did not run for this report")

# %% [markdown]
# ## Persistent users, medians and quantiles, other readings of the baselines

# %%
for name in ("users_axis", "readings"):
    f = out / f"{name}.csv"
    display(Markdown(f"**{name}**"))
    display(pd.read_csv(f).round(2) if f.exists() else Markdown("not run for this report"))
q = pd.read_csv(out / "quantiles.csv") if (out / "quantiles.csv").exists() else tvtsf_report.quantiles(users).reset_index()
q[q["metric"] == "mean_queuing"].round(2)

# %% [markdown]
# ## The paper's own numbers

# %%
display(Markdown(tvtsf_report.PAPER_TEXT))
