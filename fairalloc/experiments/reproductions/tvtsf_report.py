r"""The TV-TSF reproduction's report (:func:`report`): the paper's twelve claims, then what decides them.

The claims table keeps one short reason per claim; the analysis below it explains, from the
numbers of this run:

* **User waiting time**: why it stays near 0 under every policy.
* **Sizes the paper's margins imply**: a margin of M slots on a mean time needs a baseline whose
  mean is at least M (user waiting and task queuing: TV-TSF's mean is at least 0) or M plus the mean
  task duration (job completion: no job completes faster than its tasks run), against our baselines'.
* **Against load** (the load axis, spec ``tvtsf``): every task's duration times 1, 2, 4, 6, so the
  offered load times that factor; margins beside the paper's and beside the least baseline they imply;
  whether TV-TSF's lead grows with load, and whether TSF's key with TV-TSF's packing (the controlled
  ``tsf-slotted``) does better than TV-TSF's cumulative key.
* **Persistent users**: the same jobs spread over users who stay (the paper's users never leave).
* **Medians and quantiles** beside the means: a few users can carry a mean.
* **Other readings of the baselines**: the static TSF floored per user / per server (no
  largest-remainder rescue), CDRF placed blind to placement; deadlocks and idle capacity.
* **The paper's own numbers**: where its text disagrees with itself.

References
----------
.. [1] Li Jie, Wang Jianzhou, "A fair multi-resource allocation mechanism for time-varying discrete
   jobs with placement constraints", Chinese Journal on Internet of Things, 2024, Section 3.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .tvtsf import (MAIN, MEMORY_GB, PAPER_MARGINS, READING_OF, READINGS, SCENARIOS, SETUP_CHECK, _LABEL,
                    _load_markdown, _load_table, _samples_markdown, per_sample_margins, summary)

__all__ = ["report", "split", "LABELS", "quantiles", "implied_minimum", "load_axis", "users_axis", "readings_table",
           "MEAN_DURATION", "PAPER_TEXT"]

#: The Table 1 baselines and the controlled variants, as the report names them.
BASELINES = ("tsf-static", "cdrf-static")
CONTROLLED = ("tsf-slotted", "cdrf-slotted")
METRICS = tuple(_LABEL)
#: Metric -> its name in the report and the figures.
LABELS = dict(_LABEL)
#: Mean task duration (slots) of :func:`fairalloc.workloads.alibaba_like` at duration scale 1.
MEAN_DURATION = 5.0
#: Quantiles over users reported beside the means.
QUANTILES = (0.5, 0.9, 0.99)

#: The paper's text where it disagrees with itself (Section 3.2, Chinese original), as quoted.
PAPER_TEXT = (
    "- **Completion at 80% large jobs: 708 or 585 slots.** Section 3.2.2 (queuing time) ends: "
    "大任务占比 80% 如图 2(d) 所示, TV-TSF 的用户任务平均排队时间和完成时间比其他两种算法分别快了 708 个时间槽 "
    "(\"at 80%, TV-TSF's mean task queuing time *and completion time* are each 708 slots faster than the "
    "other two\"); Section 3.2.3 (completion time) gives 585 for the same curve: 当大任务占比为 80% 时, TV-TSF "
    "用户平均任务完成时间比其他两种算法分别快了 585 个时间槽. The claims use 708 for queuing and 585 for "
    "completion.\n"
    "- **The queuing margin is 56 slots at 25% and at 50%.** 25%: 减少了至少 56 个时间槽 (\"at least 56\"); "
    "50%: 比其他两种算法分别快了 56 个时间槽 (\"faster than the other two *respectively* by 56\": one number "
    "for two baselines). The paper calls 25% low load (由于用户负载低) and 50% medium load, yet gives the same "
    "margin to both, while its waiting (5 -> 36) and completion (119 -> 384) margins grow several-fold "
    "between them.\n"
    "- **'The heavier the load, the more fairness is ensured'** (负载越大越能保障分配的公平, Section 3.2.2) is "
    "stated from the four scenarios, which differ in job mix, not in load alone; the load axis below "
    "tests it with the mix fixed.\n"
    "- **The users never leave** (Section 4: 目前只考虑了用户到达后不再离开的场景): the model's users submit "
    "in every slot; the experiment's text does not say how jobs map to users (the persistent-users "
    "axis below).")


def split(tables: dict, n_jobs: int) -> tuple[dict, dict]:
    """The paper's experiment (``n_jobs`` jobs, one user each, durations as drawn, the five policies)
    and the rest (the axes), each as ``{"users": ..., "runs": ...}``.

    Parameters
    ----------
    tables : dict of DataFrame
        ``users`` and ``runs`` of the cells (columns ``duration_scale`` and ``n_users`` optional:
        absent means 1 and 0).
    n_jobs : int
        The scale's job count (the paper's experiment is at that one).

    Returns
    -------
    (dict, dict)

    Examples
    --------
    >>> runs = pd.DataFrame({"policy": ["tvtsf", "tvtsf", "cdrf-blind"], "n_jobs": [400, 100, 100],
    ...                      "duration_scale": [1, 1, 1], "n_users": [0, 0, 0]})
    >>> base, axes = split({"users": runs, "runs": runs}, 400)
    >>> len(base["runs"]), len(axes["runs"])
    (1, 2)
    """
    out = ({}, {})
    for t in ("users", "runs"):
        df = tables[t]
        ds = df["duration_scale"] if "duration_scale" in df else pd.Series(1, index=df.index)
        nu = df["n_users"] if "n_users" in df else pd.Series(0, index=df.index)
        nj = df["n_jobs"] if "n_jobs" in df else pd.Series(n_jobs, index=df.index)
        base = (ds.fillna(1) == 1) & (nu.fillna(0) == 0) & df["policy"].isin(MAIN) & (nj == n_jobs)
        out[0][t], out[1][t] = df[base], df[~base]
    return out


def quantiles(users: pd.DataFrame, by: tuple = ("scenario", "policy")) -> pd.DataFrame:
    """Per group and metric: the mean, the median, the 90th and 99th percentiles over users (pooled over
    samples), the largest value, and the share of users at 0 (e.g. no task of theirs queued).

    Parameters
    ----------
    users : pandas.DataFrame
        The cells' ``users`` tables.
    by : tuple of str
        Grouping columns.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``by`` and ``metric``: ``mean``, ``median``, ``p90``, ``p99``, ``max``, ``zero``.

    Examples
    --------
    Queuing times 0, 0, 0, 8 over four users: mean 2, median 0, three quarters at 0:

    >>> u = pd.DataFrame({"scenario": "s", "policy": "tvtsf", "user_wait": 0.0, "mean_completion": 1.0,
    ...                   "mean_queuing": [0.0, 0.0, 0.0, 8.0]})
    >>> quantiles(u).loc[("s", "tvtsf", "mean_queuing"), ["mean", "median", "max", "zero"]].tolist()
    [2.0, 0.0, 8.0, 0.75]
    """
    rows = []
    for key, g in users.groupby(list(by), sort=False):
        key = key if isinstance(key, tuple) else (key,)
        for m in METRICS:
            v = g[m].dropna().to_numpy()
            if not v.size:
                continue
            q = np.quantile(v, QUANTILES)
            rows.append({**dict(zip(by, key)), "metric": m, "mean": float(v.mean()), "median": float(q[0]),
                         "p90": float(q[1]), "p99": float(q[2]), "max": float(v.max()),
                         "zero": float((v == 0).mean())})
    cols = [*by, "metric", "mean", "median", "p90", "p99", "max", "zero"]
    return pd.DataFrame(rows, columns=cols).set_index([*by, "metric"])


def implied_minimum(metric: str, scenario: str, duration_scale: float = 1.0) -> float:
    """The least mean of the better baseline that the paper's margin on ``metric`` in ``scenario``
    implies: TV-TSF's mean is at least 0 for user waiting and task queuing, and at least the mean task
    duration for job completion (no job completes faster than its tasks run).

    Parameters
    ----------
    metric : {"user_wait", "mean_queuing", "mean_completion"}
    scenario : str
        A key of :data:`~fairalloc.experiments.reproductions.tvtsf.SCENARIOS`.
    duration_scale : float, default 1.0
        The load axis' factor on durations (the mean duration is :data:`MEAN_DURATION` times it).

    Returns
    -------
    float
        Slots.

    Examples
    --------
    Queuing at 80% large jobs: 708 slots; completion there: 585 + 5 slots of mean duration:

    >>> implied_minimum("mean_queuing", "large80"), implied_minimum("mean_completion", "large80")
    (708.0, 590.0)
    """
    margin = float(PAPER_MARGINS[metric][scenario])
    return margin + (MEAN_DURATION * float(duration_scale) if metric == "mean_completion" else 0.0)


def _means(users: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Per group and policy: the mean over users (pooled over samples) of each metric, one column per
    (metric, policy)."""
    return users.groupby(by + ["policy"])[list(METRICS)].mean().unstack("policy")


def load_axis(users: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """The load axis: per window, scenario and duration scale (one user per job, the five policies),
    the offered memory load (TV-TSF's runs, mean over samples), the samples, every policy's mean of each
    metric, and the margin (the better Table 1 baseline minus TV-TSF) beside the paper's and the least
    baseline mean it implies (:func:`implied_minimum`).

    Parameters
    ----------
    users, runs : pandas.DataFrame
        The axes' cells (:func:`split`); rows of other policies or persistent users are ignored.

    Returns
    -------
    pandas.DataFrame
        One row per (n_jobs, slots, scenario, duration_scale, metric).
    """
    keep_u = users["policy"].isin(MAIN) & (users["n_users"] == 0)
    keep_r = runs["policy"].isin(MAIN) & (runs["n_users"] == 0)
    by = ["n_jobs", "slots", "scenario", "duration_scale"]
    if not keep_u.any():
        return pd.DataFrame()
    means = _means(users[keep_u], by)
    tv = runs[keep_r & (runs["policy"] == "tvtsf")].groupby(by)
    load = tv["offered_memory"].mean()
    samples = tv["seed"].nunique()
    rows = []
    for key in means.index:
        for m in METRICS:
            r = dict(zip(by, key))
            r["metric"] = m
            r["offered_memory"] = float(load.get(key, np.nan))
            r["samples"] = int(samples.get(key, 0))
            for p in MAIN:
                r[p] = float(means.loc[key, (m, p)]) if (m, p) in means.columns else np.nan
            r["margin"] = min(r[b] for b in BASELINES) - r["tvtsf"]
            r["controlled_margin"] = min(r[c] for c in CONTROLLED) - r["tvtsf"]
            r["paper_margin"] = float(PAPER_MARGINS[m][r["scenario"]])
            r["implied_minimum"] = implied_minimum(m, r["scenario"], r["duration_scale"])
            rows.append(r)
    out = pd.DataFrame(rows)
    order = {s: k for k, s in enumerate(SCENARIOS)}
    return out.sort_values(["n_jobs", "metric", "scenario", "duration_scale"],
                           key=lambda c: c.map(order) if c.name == "scenario" else
                           c.map({m: k for k, m in enumerate(METRICS)}) if c.name == "metric" else c
                           ).reset_index(drop=True)


def users_axis(users: pd.DataFrame) -> pd.DataFrame:
    """Persistent users against one user per job, at the same window and durations: per (window,
    scenario, n_users), every policy's mean of each metric and the margin.

    Parameters
    ----------
    users : pandas.DataFrame
        The axes' users rows (:func:`split`).

    Returns
    -------
    pandas.DataFrame
    """
    with_users = set(users.loc[users["n_users"] > 0, "n_jobs"])
    keep = users["policy"].isin(MAIN) & (users["duration_scale"] == 1) & users["n_jobs"].isin(with_users)
    if not keep.any() or not (users.loc[keep, "n_users"] > 0).any():
        return pd.DataFrame()
    by = ["n_jobs", "slots", "scenario", "n_users"]
    means = _means(users[keep], by)
    rows = []
    for key in means.index:
        for m in METRICS:
            r = {**dict(zip(by, key)), "metric": m}
            for p in MAIN:
                r[p] = float(means.loc[key, (m, p)]) if (m, p) in means.columns else np.nan
            r["margin"] = min(r[b] for b in BASELINES) - r["tvtsf"]
            r["controlled_margin"] = min(r[c] for c in CONTROLLED) - r["tvtsf"]
            r["paper_margin"] = float(PAPER_MARGINS[m][r["scenario"]])
            rows.append(r)
    out = pd.DataFrame(rows)
    order = {s: k for k, s in enumerate(SCENARIOS)}
    return out.sort_values(["metric", "scenario", "n_users"], key=lambda c: c.map(order) if c.name == "scenario"
                           else c.map({m: k for k, m in enumerate(METRICS)}) if c.name == "metric" else c
                           ).reset_index(drop=True)


def readings_table(users: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """The other readings of the baselines beside the default ones, at the window and durations they
    ran (one user per job): per (window, scenario, reading), the runs and how many deadlocked, jobs
    left unfinished per run, the capacity the reading left idle (TSF: tasks started over the LP's
    divisible tasks; CDRF: grants that failed), each metric's mean under the reading and under the
    default reading, and TV-TSF's margin against the better baseline when this reading replaces its
    default (the other baseline as is).

    Parameters
    ----------
    users, runs : pandas.DataFrame
        The axes' cells (:func:`split`).

    Returns
    -------
    pandas.DataFrame
    """
    rr = runs[runs["policy"].isin(READINGS)]
    if rr.empty:
        return pd.DataFrame()
    by = ["n_jobs", "slots", "duration_scale", "scenario"]
    ref_u = users[users["policy"].isin(MAIN) & (users["n_users"] == 0)]
    means = _means(pd.concat([ref_u, users[users["policy"].isin(READINGS)]]), by)
    rows = []
    for gkey, g in rr.groupby(by + ["policy"]):
        *key, pol = gkey
        key = tuple(key)
        r = {**dict(zip(by, key)), "reading": pol, "replaces": READING_OF[pol], "runs": len(g),
             "deadlocked": int(g["deadlocked"].astype(bool).sum()),
             "unfinished_jobs": float(g["unfinished_jobs"].mean())}
        if pol.startswith("tsf"):
            r["idle"] = f"started {g['started'].sum() / max(g['lp_tasks'].sum(), 1e-12):.3f} of the LP's tasks"
        else:
            r["idle"] = f"{g['unrealised'].sum() / max(g['granted'].sum(), 1):.3f} of grants failed"
        for m in METRICS:
            cols = means.loc[key] if key in means.index else None
            get = (lambda p: float(cols[(m, p)]) if cols is not None and (m, p) in cols.index else np.nan)
            r[f"{m}"] = get(pol)
            r[f"{m}_default"] = get(READING_OF[pol])
            other = [b for b in BASELINES if b != READING_OF[pol]]
            r[f"{m}_margin"] = min(get(pol), *(get(b) for b in other)) - get("tvtsf")
        rows.append(r)
    out = pd.DataFrame(rows)
    order = {s: k for k, s in enumerate(SCENARIOS)}
    return out.sort_values(["n_jobs", "duration_scale", "scenario", "reading"],
                           key=lambda c: c.map(order) if c.name == "scenario" else c).reset_index(drop=True)


# --- markdown ------------------------------------------------------------------------------------

def _f(v: float, nd: int = 2) -> str:
    return "n/a" if v is None or (isinstance(v, float) and not np.isfinite(v)) else f"{v:.{nd}f}"


def _window(n_jobs: int, slots: int, paper: tuple[int, int]) -> str:
    if (n_jobs, slots) == paper:
        return f"{n_jobs} jobs over {slots} slots (the window of the paper's experiment at this scale)"
    return (f"{n_jobs} jobs over {slots} slots (the arrival rate and offered load of the paper's experiment at "
            f"this scale, {slots / paper[1]:g} of its window)")


def _load_axis_markdown(t: pd.DataFrame) -> str:
    lines = []
    for m in METRICS:
        s = t[t["metric"] == m]
        if s.empty:
            continue
        lines += [f"**{_LABEL[m]}** (mean over users, slots)", "",
                  "| window | scenario | durations x | offered memory | samples | TV-TSF | tsf-static | cdrf-static | "
                  "tsf-slotted | cdrf-slotted | margin | paper's margin | least baseline the paper implies |",
                  "|---" * 13 + "|"]
        for _, r in s.iterrows():
            lines.append(f"| {int(r['n_jobs'])}/{int(r['slots'])} | {r['scenario']} | {int(r['duration_scale'])} | "
                         f"{r['offered_memory']:.2f} | {int(r['samples'])} | " +
                         " | ".join(_f(r[p]) for p in MAIN) +
                         f" | {_f(r['margin'])} | {r['paper_margin']:g} | {r['implied_minimum']:g} |")
        lines.append("")
    return "\n".join(lines) + "\n" + (
        "Margin: the better of tsf-static / cdrf-static minus TV-TSF. Least baseline the paper implies: the "
        "paper's margin, plus for completion the mean task duration (5 slots times the durations factor).\n")


def _users_markdown(t: pd.DataFrame) -> str:
    lines = ["| time | window | scenario | users | TV-TSF | tsf-static | cdrf-static | tsf-slotted | cdrf-slotted "
             "| margin | paper's margin |", "|---" * 11 + "|"]
    for _, r in t.iterrows():
        who = "one per job" if r["n_users"] == 0 else f"{int(r['n_users'])} persistent"
        lines.append(f"| {_LABEL[r['metric']]} | {int(r['n_jobs'])}/{int(r['slots'])} | {r['scenario']} | {who} | " +
                     " | ".join(_f(r[p]) for p in MAIN) + f" | {_f(r['margin'])} | {r['paper_margin']:g} |")
    return "\n".join(lines) + "\n"


def _quantiles_markdown(q: pd.DataFrame) -> str:
    lines = []
    for m in METRICS:
        if m not in q.index.get_level_values("metric"):
            continue
        lines += [f"**{_LABEL[m]}** (over users, pooled over samples; slots)", "",
                  "| scenario | policy | mean | median | 90th pct | 99th pct | largest | share at 0 |",
                  "|---|---|---|---|---|---|---|---|"]
        for (sc, pol, mm), r in q.xs(m, level="metric", drop_level=False).iterrows():
            lines.append(f"| {sc} | {pol} | {r['mean']:.2f} | {r['median']:.2f} | {r['p90']:.2f} | {r['p99']:.2f} | "
                         f"{r['max']:.1f} | {r['zero']:.2f} |")
        lines.append("")
    return "\n".join(lines)


def _readings_markdown(t: pd.DataFrame) -> str:
    lines = ["| window | scenario | reading (replaces) | runs | deadlocked | unfinished jobs per run | idle capacity | "
             "queuing: reading / default | completion: reading / default | TV-TSF's margin, queuing | "
             "TV-TSF's margin, completion |", "|---" * 11 + "|"]
    for _, r in t.iterrows():
        lines.append(f"| {int(r['n_jobs'])}/{int(r['slots'])} | {r['scenario']} | {r['reading']} ({r['replaces']}) | "
                     f"{r['runs']} | {r['deadlocked']} | {r['unfinished_jobs']:.1f} | {r['idle']} | "
                     f"{_f(r['mean_queuing'])} / {_f(r['mean_queuing_default'])} | "
                     f"{_f(r['mean_completion'])} / {_f(r['mean_completion_default'])} | "
                     f"{_f(r['mean_queuing_margin'])} | {_f(r['mean_completion_margin'])} |")
    return "\n".join(lines) + ("\n\nA deadlocked run ends with jobs that never start: its means are over the tasks "
                               "that started and the jobs that finished, so they understate the reading's cost.\n")


# --- analysis ------------------------------------------------------------------------------------

def _user_wait_text(load: pd.DataFrame, q: pd.DataFrame) -> str:
    busy = ", ".join(f"{sc} {100 * r['slots_with_queue']:.0f}% of slots with tasks waiting and "
                     f"{100 * r['users_into_queue']:.0f}% of users arriving into a queue"
                     for sc, r in load.iterrows()) if len(load) else ""
    return ("User waiting time is the wait for a user's *first* task. TV-TSF and the slotted TSF / CDRF keys rank "
            "a user with nothing running first (share 0); the static TSF's divisible allocation gives every "
            "pending user part of the slot; the static CDRF ranks users by the dominant share *after* one more "
            "task of the slot, so a newcomer whose one task is large can come after other users' second or third "
            "tasks, but it is still granted in that slot when the pool has room. So a newcomer waits only when "
            "none of its tasks fits anywhere for whole slots. That is not a lack of load: " + (busy or "see the load "
            "table") + ". The paper's hundreds of slots (438 at 80%) need users that cannot start one task for "
            "hundreds of slots, which its text does not explain.")


def _implied_text(summ: pd.DataFrame) -> str:
    m = summ.set_index(["scenario", "policy"])
    ratios: list[float] = []
    rows = ["| time | scenario | paper's margin | least better-baseline mean it implies | our better baseline | "
            "ratio |", "|---|---|---|---|---|---|"]
    for metric in METRICS:
        for sc in SCENARIOS:
            if (sc, "tvtsf") not in m.index:
                continue
            best = min(m.loc[(sc, b), f"{metric}_mean"] for b in BASELINES if (sc, b) in m.index)
            need = implied_minimum(metric, sc)
            ratio = need / best if best >= 0.01 else np.inf
            if metric != "user_wait" and np.isfinite(ratio):
                ratios.append(ratio)
            rows.append(f"| {_LABEL[metric]} | {sc} | {PAPER_MARGINS[metric][sc]:g} | {need:g} | {best:.2f} | "
                        + (f"{ratio:.0f}x |" if np.isfinite(ratio) else "above 100x |"))
    span = (f" (queuing and completion: {min(ratios):.0f} to {max(ratios):.0f} times)" if ratios else "")
    return ("A margin of M slots between two means needs the larger mean to be at least M (TV-TSF cannot wait "
            "or queue less than 0 slots) or, for job completion, M plus the mean task duration. Against that "
            "least size, our better baseline (ratio: how many times larger the paper's better baseline must "
            "have been than ours):\n\n" + "\n".join(rows) + "\n\nSo the gap is not only TV-TSF gaining less "
            f"against the same baselines: the paper's baselines must have waited far longer than ours{span}. "
            "The paper gives no job count, durations, slot length, user mapping or memory unit, and all of them "
            "set the load; the load axis below varies it.")


def _load_text(t: pd.DataFrame, paper: tuple[int, int]) -> str:
    if t.empty:
        return "The load axis did not run here (no axes cells in this report)."
    parts = []
    windows = sorted({(int(a), int(b)) for a, b in zip(t["n_jobs"], t["slots"])})
    for nj, sl in windows:
        w = t[(t["n_jobs"] == nj) & (t["slots"] == sl)]
        lo, hi = int(w["samples"].min()), int(w["samples"].max())
        head = (f"At {_window(nj, sl, paper)}, durations times {', '.join(str(int(d)) for d in sorted(set(w['duration_scale'])))}"
                f" ({lo if lo == hi else f'{lo}..{hi}'} sample{'s' if hi > 1 else ''} per point):")
        items = []
        for m in METRICS:
            s = w[w["metric"] == m]
            reach = s[s["margin"] >= s["paper_margin"]]
            top = s.loc[s["margin"].idxmax()]
            grows = [sc for sc, g in s.groupby("scenario") if len(g) > 1 and
                     (np.diff(g.sort_values("duration_scale")["margin"].to_numpy()) > 0).all()]
            neg = s[s["margin"] < 0]
            ctrl = s[(s["offered_memory"] > 1) & (s["controlled_margin"] < 0)]    # the controlled variant's mean is lower
            heavy = s[s["offered_memory"] > 1]
            txt = (f"**{_LABEL[m]}**: largest margin {top['margin']:.1f} slots ({top['scenario']}, durations x"
                   f"{int(top['duration_scale'])}, offered memory {top['offered_memory']:.1f}); "
                   f"{len(reach)} of {len(s)} points reach the paper's margin")
            if len(reach):
                txt += " (" + ", ".join(f"{r['scenario']} x{int(r['duration_scale'])}" for _, r in reach.iterrows()) + ")"
            txt += (f"; the margin grows at every step of load in {len(grows)} of {s['scenario'].nunique()} scenarios"
                    + (f" ({', '.join(grows)})" if grows else ""))
            if len(neg):
                txt += (f"; TV-TSF does worse than the better baseline at {len(neg)} points (down to "
                        f"{neg['margin'].min():.1f} slots)")
            if len(heavy):
                txt += (f"; above the cluster's memory (offered memory > 1), TSF's key with TV-TSF's packing "
                        f"(tsf-slotted / cdrf-slotted) does better than TV-TSF's cumulative key at {len(ctrl)} of "
                        f"{len(heavy)} points")
            items.append(txt + ".")
        parts.append(head + "\n\n" + "\n".join(f"- {x}" for x in items))
    short = [sl for _, sl in windows if sl != paper[1]]
    note = ("" if not short else
            "\n\nUnder overload the backlog grows through the submission window, so queuing and completion times "
            f"in slots depend on the window's length: these points ran over {short[0]} slots, the paper's over "
            f"{paper[1]}, and the same load over the paper's window is not measured here (no fixed ratio carries "
            "one window's margins to the other; the axes at the paper's window are one command, in the stored "
            "cells' README).")
    return "\n\n".join(parts) + note


def _users_text(t: pd.DataFrame) -> str:
    if t.empty:
        return "Persistent users did not run here."
    out = []
    for m in METRICS:
        s = t[t["metric"] == m]
        piv = s.pivot_table(index="scenario", columns="n_users", values="margin")
        if piv.shape[1] < 2:
            continue
        one, many = piv.columns[0], piv.columns[-1]
        out.append(f"**{_LABEL[m]}**: margin with one user per job / {int(many)} persistent users: " +
                   ", ".join(f"{sc} {_f(piv.loc[sc, one])} / {_f(piv.loc[sc, many])}"
                             for sc in [c for c in SCENARIOS if c in piv.index]))
    return ("The same jobs spread over persistent users (each submits several over the window and stays, "
            "as the paper's users do): TV-TSF's cumulative share now remembers a user's earlier tasks, which "
            "it cannot do with one user per job.\n\n" + "\n".join(f"- {x}" for x in out))


def _quantiles_text(q: pd.DataFrame) -> str:
    out = []
    for m in ("mean_queuing", "mean_completion"):
        for sc in SCENARIOS:
            try:
                tv = q.loc[(sc, "tvtsf", m)]
                best = min((q.loc[(sc, b, m)] for b in BASELINES), key=lambda r: r["mean"])
            except KeyError:
                continue
            out.append(f"{_LABEL[m]}, {sc}: margin of means {best['mean'] - tv['mean']:.2f}, of medians "
                       f"{best['median'] - tv['median']:.2f}, of 90th percentiles {best['p90'] - tv['p90']:.2f}"
                       + (f"; {100 * tv['zero']:.0f}% of users queue 0 slots under TV-TSF, "
                          f"{100 * best['zero']:.0f}% under the better baseline" if m == "mean_queuing" else ""))
    return ("Means over users can be carried by a few users (at 80% large jobs a few large jobs hold most of "
            "the waiting tasks). The margins of the medians and the 90th percentiles, beside the means "
            "(the better Table 1 baseline by its mean):\n\n" + "\n".join(f"- {x}" for x in out))


def _readings_text(t: pd.DataFrame, base_summ: pd.DataFrame) -> str:
    if t.empty:
        return "The other readings did not run here."
    dead = t[t["deadlocked"] > 0]
    reach = []
    for _, r in t.iterrows():
        for m in ("mean_queuing", "mean_completion"):
            if np.isfinite(r[f"{m}_margin"]) and r[f"{m}_margin"] >= PAPER_MARGINS[m][r["scenario"]]:
                reach.append(f"{r['reading']} at {r['scenario']} ({_LABEL[m]})")
    txt = ("Table 1 gives each baseline four words (placement, static, divisible or not, duration), not how a "
           "divisible allocation becomes tasks nor where an indivisible one is placed. Three other readings: "
           "the static TSF's divisible allocation floored per server (floor of x_im) or per user (floor of "
           "the user's total, placed on its servers by largest fractional part), both without the "
           "largest-remainder rescue of the default; and CDRF's grants placed by first fit over all servers, "
           "blind to placement, failing when the server is forbidden to the user, instead of first fit over "
           "the user's allowed servers. ")
    txt += (f"{len(dead)} of {len(t)} (scenario, reading) points had deadlocked runs: "
            + ", ".join(f"{r['reading']} at {r['scenario']} ({r['deadlocked']} of {r['runs']})" for _, r in dead.iterrows())
            + ". " if len(dead) else "No run deadlocked here. ")
    fs = t[t["reading"] == "tsf-floor-server"]
    txt += ("The per-server floor can deadlock: when every x_im < 1 and no task runs, nothing starts, the next "
            "slot sees the same free capacity and the same users, and nothing ever starts again (the simulator "
            "ends such a run once the last job has arrived and reports its jobs unfinished; a test shows it by "
            f"hand); here it did in {int(fs['deadlocked'].sum())} of {int(fs['runs'].sum())} runs. The blind "
            "CDRF deadlocks likewise when a user's first-fit server is forbidden to it and nothing else runs. ")
    txt += ("A margin reaches the paper's with " + "; ".join(reach) + ": wasteful readings. " if reach else
            "No reading's margin reaches the paper's here; the review that asked for these readings found "
            "only a wasteful baseline reaching the paper's sizes. ")
    txt += ("A wasteful reading leaves idle capacity that its own allocation granted (the idle-capacity "
            "column), so a margin against it measures that reading's rounding and placement losses, not what "
            "TV-TSF's cumulative key is worth.")
    return txt


def _packing_text(summ: pd.DataFrame) -> str:
    m = summ.set_index(["scenario", "policy"])
    out = []
    for metric in ("mean_queuing", "mean_completion"):
        for sc in SCENARIOS:
            if (sc, "tvtsf") not in m.index:
                continue
            tv = m.loc[(sc, "tvtsf"), f"{metric}_mean"]
            best = min(m.loc[(sc, b), f"{metric}_mean"] for b in BASELINES if (sc, b) in m.index)
            ctrl = min(m.loc[(sc, c), f"{metric}_mean"] for c in CONTROLLED if (sc, c) in m.index)
            out.append(f"{_LABEL[metric]}, {sc}: Table 1 baselines {best:.2f}, TV-TSF's packing with the TSF / "
                       f"CDRF key {ctrl:.2f}, TV-TSF {tv:.2f}")
    return ("The controlled variants run TV-TSF's own packing (Algorithm 4's server choice, freezing) with the "
            "TSF or CDRF key instead of the cumulative share; the difference between them and TV-TSF is what "
            "the key alone is worth, the difference between them and the Table 1 baselines what packing and "
            "placement are worth:\n\n" + "\n".join(f"- {x}" for x in out))


# --- report --------------------------------------------------------------------------------------

def _short_reason(metric: str, sc: str, margin: float, best: float) -> str:
    if metric == "user_wait":
        return "waits stay near 0 under every policy: a newcomer starts in its first slot when a task of it fits"
    need = implied_minimum(metric, sc)
    if margin <= 0:
        return f"TV-TSF not better here; the paper's margin needs a baseline mean of at least {need:g} slots"
    return (f"direction as in the paper; the paper's margin needs a baseline mean of at least {need:g} slots, "
            f"ours is {best:.2f}")


def report(tables: dict, out: Any, *, scale: str, spec: dict, seconds: float | None = None,
           formats: Any = None):
    """Write ``report.md``, the figures and the CSV tables of a TV-TSF run (module docstring).

    Parameters
    ----------
    tables : dict of DataFrame
        ``users`` and ``runs`` of the cells (the paper's experiment and, when they ran, the axes).
    out : str or Path
        The folder.
    scale : str
        The scale (its grid gives the paper experiment's job count and window).
    spec : dict
        The ``tvtsf`` reproduction file.
    seconds : float, optional
        The cells' wall time, for the setup.
    formats : fairalloc.formats.Formats, optional
        Figure formats, and table formats beside the CSV (:func:`.report.save_figure`, :func:`.report.save_table`).

    Returns
    -------
    Path
        ``out / "report.md"``.
    """
    from ...plots.reproductions import tvtsf_cdfs, tvtsf_load_axis
    from .report import Claim, save_figure, save_table, write_report

    out = Path(out)
    grid = spec["scales"][scale]["grid"]
    paper = (int(grid["n_jobs"][0]), int(grid["slots"][0]))
    tables = {t: _with_axes(tables[t]) for t in ("users", "runs")}
    base, axes = split(tables, paper[0])
    users, runs = base["users"], base["runs"]
    summ = summary(users)
    save_table(summ, out, "summary", formats)
    q = quantiles(users)
    save_table(q.reset_index(), out, "quantiles", formats)
    figs = []
    for k, (metric, label) in enumerate(_LABEL.items(), start=1):
        figs.append(save_figure(tvtsf_cdfs(users, metric, label), out, f"fig{k}_{metric}", formats, dpi=110))
    # the axes with their reference cells: at the paper's window those are the paper experiment's own
    wins = set(zip(axes["runs"]["n_jobs"], axes["runs"]["slots"])) if len(axes["runs"]) else set()
    ref = {t: base[t][[w in wins for w in zip(base[t]["n_jobs"], base[t]["slots"])]] for t in ("users", "runs")}
    ax = {t: pd.concat([axes[t], ref[t]], ignore_index=True) for t in ("users", "runs")}
    la = load_axis(ax["users"], ax["runs"]) if len(axes["users"]) else pd.DataFrame()
    ua = users_axis(ax["users"]) if len(axes["users"]) else pd.DataFrame()
    rd = readings_table(ax["users"], ax["runs"]) if len(axes["runs"]) else pd.DataFrame()
    for name, t in (("load_axis", la), ("users_axis", ua), ("readings", rd)):
        if len(t):
            save_table(t, out, name, formats)
    if len(la):
        figs.append(save_figure(tvtsf_load_axis(la, LABELS), out, "fig4_load_axis", formats, dpi=110))
    claims = []
    m = summ.set_index(["scenario", "policy"])
    load = _load_table(runs)
    per = per_sample_margins(users)
    for metric, margins in PAPER_MARGINS.items():
        for sc, pm in margins.items():
            if (sc, "tvtsf") not in m.index:
                continue
            tv = m.loc[(sc, "tvtsf"), f"{metric}_mean"]
            best = min(m.loc[(sc, p), f"{metric}_mean"] for p in BASELINES if (sc, p) in m.index)
            margin = best - tv
            ok = bool(margin >= pm)
            med = ""
            if (sc, "tvtsf", metric) in q.index:
                bm = min(q.loc[(sc, b, metric), "median"] for b in BASELINES if (sc, b, metric) in q.index)
                med = f"; medians {q.loc[(sc, 'tvtsf', metric), 'median']:.2f} / {bm:.2f}"
            claims.append(Claim(f"{_LABEL[metric]}, {sc}: TV-TSF better than the better of TSF / CDRF",
                                f">= {pm:g} slots",
                                f"TV-TSF {tv:.2f}, better baseline {best:.2f}: margin {margin:.2f}{med}", ok,
                                "" if ok else _short_reason(metric, sc, margin, best)))
    setup = [f"scale `{scale}`, the paper's experiment: {paper[0]} jobs (one user each) submitted over slots "
             f"1..{paper[1]}, {runs['seed'].nunique()} sample(s) per scenario; Table 3 cluster (100 servers)",
             f"demands: {runs['demands'].iloc[0]}; memory of the 2017 trace x {MEMORY_GB:g} GB (assumption)",
             f"placement: each server with probability {grid['placement_p'][0]}, the largest servers always",
             "TSF and CDRF as TV-TSF's Table 1 describes them (tsf-static: divisible, placement-aware, "
             "duration-unaware; cdrf-static: indivisible, placement- and duration-unaware), one static "
             "allocation of the free capacity per slot (fairalloc.scheduling.static_slots); controlled "
             "variants tsf-slotted / cdrf-slotted: TV-TSF's packing with the TSF / CDRF key",
             f"largest task queuing time seen: {runs['max_queuing'].max():.0f} slots; CDRF grants lost to "
             f"placement (cdrf-static): {int(runs.loc[runs['policy'] == 'cdrf-static', 'unrealised'].sum())}"]
    if len(axes["runs"]):
        ar = axes["runs"]
        for (nj, sl), g in ar.groupby(["n_jobs", "slots"]):
            what = []
            if (g["duration_scale"] > 1).any():
                what.append("durations x " + ", ".join(str(int(d)) for d in sorted(set(g["duration_scale"]))))
            if (g["n_users"] > 0).any():
                what.append(", ".join(f"{int(u)} persistent users" for u in sorted(set(g["n_users"]) - {0})))
            rd_pol = sorted(set(g["policy"]) & set(READINGS))
            if rd_pol:
                where = {p: sorted(set(g.loc[g["policy"] == p, "scenario"]), key=list(SCENARIOS).index) for p in rd_pol}
                what.append("baseline readings " + ", ".join(
                    p + ("" if len(where[p]) == len(SCENARIOS) else f" ({', '.join(where[p])} only)") for p in rd_pol))
            setup.append(f"axes at {_window(int(nj), int(sl), paper)}: {'; '.join(what)}; "
                         f"{g['seed'].nunique()} sample(s) (seeds {int(g['seed'].min())}..{int(g['seed'].max())})")
    if seconds is not None:
        setup.append(f"wall time of all cells: {seconds:.1f} s")
    analysis = [("User waiting time", _user_wait_text(load, q)),
                ("How large the baselines must be for the paper's margins", _implied_text(summ)),
                ("What separates TV-TSF from the Table 1 baselines", _packing_text(summ)),
                ("Against load", _load_text(la, paper)),
                ("Persistent users", _users_text(ua)),
                ("Medians and quantiles", _quantiles_text(q)),
                ("Other readings of the baselines", _readings_text(rd, summ)),
                ("The paper's own numbers", PAPER_TEXT),
                ("What the paper does not give", "Durations (here geometric, mean 5 slots), the job count, the "
                 "slot length, how jobs map to users and the memory unit of the 2017 trace are not in the paper "
                 "(the setup check below, line by line), and Alibaba 2017 demands stand in for 2018.")]
    notes = ["means and variances over users, pooled over samples (summary.csv); the paper gives mean mu "
             "and variance sigma per curve; medians and quantiles in quantiles.csv",
             "the controlled variants answer another question: what the ordering alone is worth with the "
             "same packing"]
    path = write_report(out / "report.md", spec["title"], setup, claims, notes, figs, analysis)
    with open(path, "a", encoding="utf-8") as f:
        f.write("\n## Load (TV-TSF runs, mean over samples)\n\n" + _load_markdown(load) + "\n")
        f.write("\n## Across samples\n\n" + _samples_markdown(per) + "\n")
        f.write("\n## Table: medians and quantiles over users\n\n" + _quantiles_markdown(q) + "\n")
        if len(la):
            f.write("\n## Table: against load\n\n" + _load_axis_markdown(la) + "\n")
        if len(ua):
            f.write("\n## Table: persistent users\n\n" + _users_markdown(ua) + "\n")
        if len(rd):
            f.write("\n## Table: other readings of the baselines\n\n" + _readings_markdown(rd) + "\n")
        f.write("\n## Setup checked against the paper, line by line\n\n" + SETUP_CHECK)
    return path


def _with_axes(df: pd.DataFrame) -> pd.DataFrame:
    """Cells stored before the axes existed have no ``duration_scale`` / ``n_users``: the paper's values."""
    df = df.copy()
    for a, v in (("duration_scale", 1), ("n_users", 0)):
        df[a] = df[a].fillna(v).astype(np.int64) if a in df else v
    return df
