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
# # Learned priority functions F1 and F2 against FCFS, WFP3 and UNICEF, beside the paper
#
# The learned-priorities paper (Carastan-Santos and de Camargo; `shared/papers/learned_priorities.md`)
# fits two scores, F1 = c1·√r · c2·n + c3·log s and F2 = c1·r + c2·√n + c3·log s (Table 1), and
# evaluates them on 30-day Lublin-Feitelson traces on a 256-processor machine, without backfilling,
# by AVEbsld (Eq. 1, τ = 10 s). Its headline: F1 is **up to 7.25×** better than the best baseline,
# and clearly better than F2. Its traces and its Lublin parameters for 256 processors are not
# published, and the gain depends on the offered load, so every trace's load is shown.
#
# The experiment is the shipped spec `learned-priorities` of `fairalloc reproduce`
# (`fairalloc/experiments/reproductions/specs/learned-priorities.yaml`); this notebook defines no
# algorithm. Traces: the Lublin generator with the typed (batch + interactive) parameters, the same
# typeless, and the model program's own 256-processor output (`lublin_256.swf`, 89.2 days, cut into
# its three 30-day windows: the paper evaluates on 30-day traces). It
# shows the stored results of `docs/reproductions/results/learned-priorities/` when they are of the
# scale asked (`FAIRALLOC_SCALE`: `small` by default, `full` for the paper's size), else those in
# `../out/reproduce/learned-priorities-SCALE`, and runs that scale when there are none.

# %%
# %matplotlib inline
import json
import os
from pathlib import Path

import pandas as pd
from IPython.display import Markdown, display

import fairalloc
from fairalloc.experiments.reproductions import notebook_scale, results_dir
from fairalloc.experiments.reproductions.report import read_claims
from fairalloc.plots.reproductions import learned_bars

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


out = results("learned-priorities")
print((out / "report.md").read_text().split("## Claims")[0])

# %% [markdown]
# ## AVEbsld per policy and trace kind (median over traces, log scale)

# %%
runs = pd.read_csv(out / "avebsld.csv")
display(learned_bars(runs))
runs.groupby(["kind", "policy"])["avebsld"].median().unstack("policy")[
    ["fcfs", "wfp3", "unicef", "f1", "f2"]].round(1)

# %% [markdown]
# ## F1 against the best baseline, trace by trace, with each trace's offered load
# Gain = best baseline's AVEbsld / F1's (above 1: F1 is better). The paper: up to 7.25×.

# %%
g = pd.read_csv(out / "gains.csv")
g["seed"] = g["seed"].astype(int)
cols = ["kind", "seed", "window", "from_day", "to_day", "jobs_per_day", "offered_load", "best_baseline", "best",
        "f1", "f2", "gain_f1", "f1_beats_f2"]
g[[c for c in cols if c in g]].round(3)

# %%
by_kind = g.groupby("kind").agg(traces=("gain_f1", "size"), load_min=("offered_load", "min"),
                                load_max=("offered_load", "max"), gain_median=("gain_f1", "median"),
                                gain_max=("gain_f1", "max"), f1_beats_f2=("f1_beats_f2", "sum"))
by_kind["paper gain"] = "up to 7.25"
by_kind.round(2)

# %% [markdown]
# ## Every claim against the paper

# %%
table = read_claims(out)
table

# %% [markdown]
# ## Reading
# Printed from the tables above (no conclusion is written in advance).

# %%
p = runs.pivot_table(index=[c for c in ("kind", "seed", "window") if c in runs], columns="policy",
                     values="avebsld")
N_TRACES = len(g)
F1_WINS = int((g["gain_f1"] > 1).sum())
F1_MAX_GAIN = float(g["gain_f1"].max())
F1_VS_FCFS_MIN = float((p["fcfs"] / p["f1"]).min())
for kind, k in g.groupby("kind"):
    print(f"{kind}: offered load {k['offered_load'].min():.2f}..{k['offered_load'].max():.2f}; F1 better than "
          f"the best baseline on {int((k['gain_f1'] > 1).sum())}/{len(k)} traces, gain median "
          f"{k['gain_f1'].median():.2f}x, largest {k['gain_f1'].max():.2f}x (paper: up to 7.25x); "
          f"F1 better than F2 on {int(k['f1_beats_f2'].sum())}/{len(k)}.")
print(f"F1 against FCFS: at least {F1_VS_FCFS_MIN:.1f}x better on every trace.")
display(Markdown(f"**{out.name}**: {int((table['reproduced'] == 'yes').sum())} of {len(table)} claims reproduced"))
