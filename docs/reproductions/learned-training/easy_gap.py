"""Why the learned functions + EASY lose to UNICEF + EASY on SDSC-BLUE whole (the report's "EASY gap").

Runs the policies on the whole SDSC-BLUE log (1,152 processors; requested times as estimates, as
``fairalloc learn evaluate``) and prints, for each, where its AVEbsld comes from:

1. by job width: each width class's share of AVEbsld (sum of its bounded slowdowns / all jobs), its
   mean and longest wait;
2. by time: AVEbsld per eighth of the log, with the eighth's offered load and the wide jobs' share
   of the work;
3. the clock-origin test: the same jobs with the submit times shifted (s enters the functions as
   log10 s, so a late job's s term is flatter); if the shift changed the gap, the origin of s
   would be the cause;
4. EASY's reservations (days 600-979, on the event engine, which also checks that the compiled loop
   gives the same schedule for a learned function): how often a wide job became the head of the
   queue, how long it waited for that, and how often it started after its first reservation (a job
   ranked before it arrived and took the head);
5. how far a later job may be submitted and still be ranked before a wide one (the functions' r, n
   terms against the s term: s_B < factor x s_A).

Writes ``easy_gap.png`` (width shares; AVEbsld per eighth) and ``easy_gap.csv`` beside this file
(``--out`` elsewhere). About 4 CPU minutes.

Usage::

    FAIRALLOC_DATA=../shared/data python docs/reproductions/learned-training/easy_gap.py
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

import fairalloc as fa
from fairalloc.sim import make_policy
from fairalloc.sim.policies.learned import (
    LearnedFunction,
    LearnedPolicy,
    paper_function,
)

HERE = Path(__file__).resolve().parent
DAY = 86400.0
CAPACITY = 1152
WIDTHS = [0, 64, 256, CAPACITY]
WIDTH_LABELS = ["<=64", "65-256", ">256"]


def policies(here: Path) -> dict[str, str]:
    learned = {"learned-best": here / "best.json", "learned-F1": here / "F1.json", "learned-F2": here / "F2.json",
               "easytrained-F2": here / "easy-trials" / "easytrained-F2.json"}
    names = {p: p for p in ("fcfs", "sjf", "wfp3", "unicef", "f1", "f2")}
    names.update({k: f"learned:{v}" for k, v in learned.items() if v.is_file()})
    return names


def by_width(jobs: pd.DataFrame) -> pd.DataFrame:
    j = jobs[jobs["finished"]]
    w = pd.cut(j["processors"], WIDTHS, labels=WIDTH_LABELS)
    g = j.groupby(w, observed=False)
    return pd.DataFrame({"jobs": g.size(), "share_of_avebsld": g["bsld"].sum() / len(j),
                         "mean_wait_h": g["wait"].mean() / 3600, "max_wait_d": g["wait"].max() / DAY})


def by_eighth(jobs: pd.DataFrame, t_end: float) -> pd.Series:
    j = jobs[jobs["finished"]]
    q = pd.cut(j["submit"], np.linspace(0, t_end, 9), labels=False, include_lowest=True)
    return j["bsld"].groupby(q).mean()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=os.environ.get("FAIRALLOC_DATA", str(HERE.parents[2].parent / "shared" / "data")))
    ap.add_argument("--out", default=str(HERE))
    args = ap.parse_args(argv)
    path = Path(args.data) / "swf" / "SDSC-BLUE-2000-4.2-cln.swf.gz"
    if not path.is_file():
        raise SystemExit(f"{path} not found: give --data or FAIRALLOC_DATA")
    t0, c0 = time.time(), time.process_time()
    wl = fa.workloads.read_swf(path)
    names = policies(HERE)
    runs = {f"{k}+easy": v + "+easy" for k, v in names.items()}
    runs.update({k: names[k] for k in ("unicef", "sjf", "f2", "learned-F2") if k in names})   # no backfilling
    jobs = {k: fa.simulate(wl, CAPACITY, policy=p).jobs for k, p in runs.items()}
    t_end = float(wl.submit.max()) + 1.0

    pd.set_option("display.width", 220)
    print(f"SDSC-BLUE whole: {len(wl)} jobs, {CAPACITY} processors, {t_end / DAY:.0f} days\n")
    print("1. AVEbsld and each width class's share of it (sum of its bounded slowdowns / all jobs)")
    rows = []
    for k, j in jobs.items():
        b = by_width(j)
        row = {"policy": k, "AVEbsld": j.loc[j["finished"], "bsld"].mean()}
        for lab in WIDTH_LABELS:
            row[f"share {lab}"] = b.loc[lab, "share_of_avebsld"]
        row["wide mean wait h"] = b.loc[">256", "mean_wait_h"]
        row["wide max wait d"] = b.loc[">256", "max_wait_d"]
        rows.append(row)
    t1 = pd.DataFrame(rows).set_index("policy")
    print(t1.round(2).to_string(), "\n")

    ref = jobs["unicef+easy"]
    ref = ref[ref["finished"]]
    q = pd.cut(ref["submit"], np.linspace(0, t_end, 9), labels=False, include_lowest=True)
    work = ref["run"] * ref["processors"]
    span = t_end / 8
    t2 = pd.DataFrame({k: by_eighth(j, t_end) for k, j in jobs.items() if k.endswith("+easy")}).T
    t2.loc["offered load"] = work.groupby(q).sum() / (CAPACITY * span)
    t2.loc["wide share of work"] = work[ref["processors"] > 256].groupby(q[ref["processors"] > 256]).sum() \
        / work.groupby(q).sum()
    t2.columns = [f"d{int(c * span / DAY)}-{int((c + 1) * span / DAY)}" for c in t2.columns]
    print("2. AVEbsld per eighth of the log (days), with EASY; offered load and wide jobs' share of the work")
    print(t2.round(2).to_string(), "\n")

    late = wl.take(wl.submit >= 600 * DAY)
    early = wl.head(50_000)
    cases = {"d600-979, s from trace start": late, "d600-979, s from day 600": late.replace(submit=late.submit - 600 * DAY),
             "first 50k, s from trace start": early, "first 50k, s + 600 d": early.replace(submit=early.submit + 600 * DAY)}
    keys = [k for k in ("unicef", "sjf", "f1", "f2", "learned-best", "learned-F1", "learned-F2") if k in names]
    t3 = pd.DataFrame({c: {f"{k}+easy": fa.simulate(w, CAPACITY, policy=names[k] + "+easy").avebsld for k in keys}
                       for c, w in cases.items()})
    print("3. The clock-origin test: AVEbsld with EASY, submit times shifted (only the functions' s term sees it)")
    print(t3.round(2).to_string(), "\n")

    fn = LearnedFunction.load(HERE / "F2.json")
    kernel = fa.simulate(late, CAPACITY, policy=f"learned:{HERE / 'F2.json'}+easy")
    rows = []
    for k, pol in (("fcfs+easy", make_policy("easy")), ("unicef+easy", make_policy("unicef+easy")),
                   ("sjf+easy", make_policy("sjf+easy")), ("f1+easy", make_policy("f1+easy")),
                   ("learned-F2+easy", LearnedPolicy(fn, backfill=True))):
        r = fa.simulate(late, CAPACITY, policy=pol, engine="events")
        if k == "learned-F2+easy":
            same = np.array_equal(r.jobs["start"].to_numpy(), kernel.jobs["start"].to_numpy(), equal_nan=True)
            print(f"4. learned-F2+easy on days 600-979: the compiled loop and the event engine give the same schedule: {same}")
        j = r.jobs[r.jobs["finished"]]
        shadow = pd.Series(pol.reservations, dtype=float).reindex(j["row"].to_numpy()).to_numpy()
        wide = (j["processors"] > 256).to_numpy()
        head = ~np.isnan(shadow) & wide
        moved = head & (j["start"].to_numpy() > shadow + 1.0)
        rows.append({"policy": k, "wide jobs": int(wide.sum()), "wide AVEbsld": j.loc[wide, "bsld"].mean(),
                     "ever head %": 100 * head.sum() / wide.sum(),
                     "wait to first head h": np.mean(shadow[head] - j["submit"].to_numpy()[head]) / 3600,
                     "started after 1st reservation %": 100 * moved.sum() / wide.sum(),
                     "mean delay past it h": np.mean(j["start"].to_numpy()[moved] - shadow[moved]) / 3600})
    t4 = pd.DataFrame(rows).set_index("policy")
    print("   wide jobs (> 256 processors) and EASY's reservation (first shadow time as the blocked head)")
    print(t4.round(2).to_string(), "\n")

    jw = ref[ref["processors"] > 256]
    js = ref[ref["processors"] <= 64]
    est = lambda x: x["requested_time"].fillna(x["run"]).median()
    rows = []
    for k, f in (("f1", paper_function("F1")), ("f2", paper_function("F2")),
                 *((k, LearnedFunction.load(names[k][len("learned:"):])) for k in names if k.startswith(("learned", "easy")))):
        cs = list(f.coefficients.values())[-1]                      # the log10(s) coefficient (last in every form here)
        gap = float(f(est(jw), jw["processors"].median(), 1)[0] - f(est(js), js["processors"].median(), 1)[0])
        rows.append({"function": k, "formula": f.formula.text, "r,n terms: wide - small": gap, "c_s": cs,
                     "factor": 10 ** (gap / cs) if gap / cs < 300 else np.inf})
    t5 = pd.DataFrame(rows).set_index("function")
    print(f"5. A median small job (<= 64 processors: {js['processors'].median():.0f} wide, {est(js):.0f} s requested) "
          f"submitted before factor x s_A ranks before a median wide one (> 256: {jw['processors'].median():.0f} wide, "
          f"{est(jw):.0f} s) submitted at s_A")
    print(t5.to_string(float_format="{:.4g}".format), "\n")

    out = Path(args.out)
    pd.concat({"by_width": t1.stack(), "by_eighth": t2.stack(), "clock": t3.stack(), "reservations": t4.stack()},
              names=["table", "row", "column"]).rename("value").to_csv(out / "easy_gap.csv")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(13, 4.8), gridspec_kw={"width_ratios": [1.15, 1]})
    shown = t1.loc[[k for k in t1.index if k.endswith("+easy")]]
    bottom = np.zeros(len(shown))
    for lab, color in zip(WIDTH_LABELS, ("#9ecae1", "#4292c6", "#d94801")):
        a.bar(range(len(shown)), shown[f"share {lab}"], bottom=bottom, color=color, label=f"{lab} processors")
        bottom += shown[f"share {lab}"].to_numpy()
    a.set_xticks(range(len(shown)), [k.replace("+easy", "") for k in shown.index], rotation=35, ha="right")
    a.set_ylabel("AVEbsld (stacked: share of each width class)")
    a.set_title("SDSC-BLUE whole, EASY: where AVEbsld comes from")
    a.legend(frameon=False)
    for k, style in (("unicef+easy", "k-"), ("fcfs+easy", "k:"), ("sjf+easy", "k--"), ("f1+easy", "C3-"),
                     ("f2+easy", "C1-"), ("learned-F2+easy", "C0-"), ("easytrained-F2+easy", "C2-")):
        if k in t2.index:
            b.plot(range(8), t2.loc[k], style, marker="o", ms=3, label=k.replace("+easy", ""))
    b.set_yscale("log")
    b.set_xticks(range(8), t2.columns, rotation=35, ha="right")
    b.set_ylabel("AVEbsld of the jobs submitted in the eighth")
    b.set_title("AVEbsld per eighth of the log, EASY (offered load at the bottom)")
    for x, v in enumerate(t2.loc["offered load"]):
        b.annotate(f"{v:.2f}", (x, 0.02), xycoords=("data", "axes fraction"), ha="center", va="bottom", fontsize=8)
    b.legend(frameon=False, fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(out / "easy_gap.png", dpi=110)
    print(f"wrote {out / 'easy_gap.png'}, {out / 'easy_gap.csv'}; {time.time() - t0:.0f} s wall, "
          f"{time.process_time() - c0:.0f} CPU s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
