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
# # BUC (Corrêa and Pillon), Section 4: Figs. 1 and 2 beside the paper
#
# BUC keeps a score S_u per user (start 60; after each job that was not killed at its walltime it
# rises when the job was precise and falls otherwise, from the precision P = R_t / W_t of Eq. 1)
# and orders the queue by Eq. 2, S_f = (0.8·S_u + 0.2/(W_t/10^5))·K_p + T_e, on top of FCFS. The
# paper (GRID'5000 Lille, not public) reports waits **down by up to 93%** for precise users and **up
# by up to 20%** for imprecise ones, K_p = 10800 better than 1440, and (Fig. 2) a median queue-position
# gain at insertion that grows with S_u.
#
# The experiment is the shipped spec `buc` of `fairalloc reproduce`
# (`fairalloc/experiments/reproductions/specs/buc.yaml`); this notebook defines no algorithm. It
# shows the stored results of `docs/reproductions/results/buc/` when they are of the scale asked
# (`FAIRALLOC_SCALE`: `small` by default, `full` for the paper's size), else those in
# `../out/reproduce/buc-SCALE`, and runs that scale when there are none (without the KTH-SP2 log
# here, it shows the stored results and says so). KTH-SP2 of the Parallel Workloads Archive (100 processors; acknowledge
# Lars Malinowsky, KTH, and the archive) stands in for the Lille log, with three injected users of
# precision 0, 0.5 and 1 (100 jobs of walltime 3600 s each, as in the paper), at the log's own load
# and at rescaled loads. The paper gives no formula for the S_u update, only its direction; the rule
# used is ours (`fairalloc.sim.threshold_update`: up when P ≥ 0.5, down otherwise, by a step
# that grows with how precise the job was); the moving average of 100·P (`ema_update`) runs beside it.

# %%
# %matplotlib inline
import json
import os
from pathlib import Path

import pandas as pd
from IPython.display import Markdown, display

import fairalloc
from fairalloc.experiments.reproductions import buc, notebook_scale, results_dir
from fairalloc.experiments.reproductions.report import read_claims
from fairalloc.plots.reproductions import buc_fig1, buc_fig2

SCALE = notebook_scale()          # FAIRALLOC_SCALE: small (default) or full (the paper's size)
STORED = Path(fairalloc.__file__).resolve().parents[1] / "docs" / "reproductions" / "results"


def results(name):
    """The folder of a finished reproduction of ``SCALE``: stored in the docs, else run into ../out
    (the stored run of another scale when this one's trace is absent here: said below)."""
    out = results_dir(name, SCALE, stored=STORED, out=Path("../out/reproduce"))
    if (out / "provenance.json").exists():
        prov = json.loads((out / "provenance.json").read_text())
        display(Markdown(f"Stored results: `{prov['command']}` at commit `{prov['commit'][:10]}`, {prov['date']}"))
        if prov.get("scale") != SCALE:
            display(Markdown(f"**Scale {SCALE} asked for, but its trace is absent here: these are the stored "
                             f"results of scale {prov.get('scale')}.** Put the traces in `$FAIRALLOC_DATA` "
                             "or in `../shared/data` beside the repository to run it."))
    return out


out = results("buc")
print((out / "report.md").read_text().split("## Claims")[0])

# %% [markdown]
# ## Fig. 1: change of the injected users' mean wait under BUC against FCFS (K_p = 10800)
# The paper: the precise users (its Injected 2 and 3, P = 0.5 and 1) gain 20% to 90%, down by up
# to 93%; the imprecise one (P ≈ 0) loses up to 20%. The dashed lines mark -93% and +20%.

# %%
ch = pd.read_csv(out / "wait_changes.csv", dtype={"load": str})
main = ch[(ch["update"] == "threshold") & (ch["k_p"] == 10800.0)]
display(buc_fig1(main))
fig1 = main.pivot_table(index="load", columns="injected", values="change", aggfunc="median").round(0)
fig1["paper P=0"], fig1["paper P=0.5"], fig1["paper P=1"] = "up to +20", "-20..-90", "down to -93"
fig1

# %% [markdown]
# ## Fig. 2: median queue-position gain at insertion by S_u bucket (K_p = 10800)
# At each insertion into a queue longer than 5, the share of the jobs ahead of it under FCFS that
# BUC puts behind it, bucketed by the user's S_u at that moment. The paper: 0-24 about 30%, 25-49
# above 40%, 50-74 about 60%, 75-100 above 90% (black marks).

# %%
gains = pd.read_csv(out / "fig2_position_gain.csv", dtype={"load": str})
display(buc_fig2(gains, buc.PAPER_FIG2))
fig2 = gains.pivot(index="bucket", columns="load", values="median_gain").round(0)
fig2["paper"] = pd.Series({"0-24": "~30", "25-49": "> 40", "50-74": "~60", "75-100": "> 90"})
fig2

# %% [markdown]
# ## The S_u rule: our two readings of the paper's words
# The paper gives no formula, only that S_u rises after a precise job and falls otherwise, and its
# injected users' final scores: 4.8 (P = 0), 96.14 (P = 0.5), 99 (P = 1). A moving average of 100·P
# ends at 50 for P = 0.5; the threshold rule, like the paper's 96.14, counts P = 0.5 as precise.

# %%
rules = pd.read_csv(out / "update_rules.csv", dtype={"load": str})
rules.round(1)

# %% [markdown]
# ## Every claim against the paper
# Each row of the report: the paper's number, ours, reproduced or not, and the reason found.

# %%
table = read_claims(out)
table

# %% [markdown]
# ## Reading
# Printed from the tables above (no conclusion is written in advance). The figures differ between
# scales; the report's setup lists the offered loads and how often the queue is long.

# %%
native = main[main["load"] == "native"].groupby("injected")["change"].median()
INJ = native.to_dict()
GAIN = gains[gains["load"] == "native"].set_index("bucket")["median_gain"].to_dict()
print(f"At the log's own load, K_p = 10800: precise injected user (P = 1) wait {INJ['P=1']:+.0f}% against "
      f"FCFS (paper: down by up to 93%), P = 0.5 {INJ['P=0.5']:+.0f}% (paper: a gain), imprecise (P = 0) "
      f"{INJ['P=0']:+.0f}% (paper: up by up to 20%).")
print("Median queue-position gain by S_u bucket:", {k: round(v) for k, v in GAIN.items()},
      "(paper: ~30, > 40, ~60, > 90).")
display(Markdown(f"**{out.name}**: {int((table['reproduced'] == 'yes').sum())} of {len(table)} claims reproduced"))
