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
# # Fairness axioms: what axioms.md expects, what the checkers find
#
# `shared/papers/axioms.md` lists, for every mechanism and axiom, whether the axiom is a theorem
# (T), known to fail (F) or open (?). `proofs_check` turns that table into data
# (`proofs_check.claims`), searches each implemented cell for counterexamples with hypothesis-drawn
# instances, shrinks what it finds and re-verifies every witness from its JSON alone. This notebook
# shows the matrix (expected vs found), the minimal counterexamples as small tables, the SDRF
# repeated-game deviation step by step, and the rows of indivisible tasks, servers and time slots:
# bundling against DRF task filling, what the floors of TSF's monopoly count do, and TV-TSF judged
# per slot or over the horizon. It defines no algorithm: every number comes from `fairalloc` and
# `proofs_check`.
#
# `FAIRALLOC_SCALE=small` (default, CI) tries few cases per T cell; `full` the campaign budget of
# `fairalloc check --all`. F cells stop at their first counterexample either way (cells whose
# violation is rare start from the seed listed in `proofs_check.campaign.QUICK`).

# %%
# %matplotlib inline
import json
import os

import numpy as np
import pandas as pd

import fairalloc as fa
from proofs_check import campaign, claims
from proofs_check.misreports import find_profitable_deviation
from proofs_check.plots import claims_heatmap, schedule_chart
from proofs_check.repeated import RepeatedGame, SDRFDynamics, play
from proofs_check.replay import replay

SCALE = os.environ.get("FAIRALLOC_SCALE", "small")
T_EXAMPLES = {"small": 6, "full": 300}[SCALE]       # cases per T / ? cell
EXACT_EXAMPLES = {"small": 2, "full": 60}[SCALE]    # rows whose mechanism solves LPs / MILPs
EXACT = {"tsf", "tsf_unfloored", "tsf_integer", "tvtsf_milp", "tvtsf_offline"}
F_EXAMPLES = 500                                     # F cells stop at the first counterexample
#: Every search here is bounded by counts (cases, shrink checks) with fixed seeds, so its verdict is the
#: same on any machine; seconds are only a safety cap, far above the slowest cell (the TV-TSF program's
#: constrained cumulative EF1 at seed 0: an MILP per case, ~4000 cases, about 45 s), and a
#: cell stopped by it says so (its ``reason``) instead of reporting "no violation".
SECONDS = F_SECONDS = 900.0
SHRINK_CHECKS_EXACT = 16                              # shrink candidates checked for LP / MILP rows
# (in every cell of those rows, an open cell's violation too: each candidate solves the row's LPs / MILPs
# again; the witness is then less small)
pd.set_option("display.width", 140)
print(f"scale={SCALE}: {T_EXAMPLES} cases per T cell, up to {F_EXAMPLES} per F cell")

# %% [markdown]
# ## The claims table
# Every row of axioms.md, one line per (axiom, variant), plus rows of ours (marked "[ours]":
# TSF with indivisible tasks, TSF with Wang et al.'s unfloored task share, the TV-TSF program
# over the whole horizon, and the pooled forms of the production policies: Slurm, HTCondor, Kueue,
# YARN, Mesos, Volcano). Rows whose mechanism is not in fairalloc (DRFH, dynamic DRF, bottleneck
# max fairness) are listed and skipped.

# %%
table = pd.DataFrame([{"mechanism": c.mechanism, "axiom": c.axiom, "variant": c.variant, "expected": c.expected,
                       "as printed": c.cell, "implemented": claims.MECHANISMS[c.mechanism].implemented}
                      for c in claims.CLAIMS])
print(table.pivot_table(index="mechanism", columns="axiom", values="expected",
                        aggfunc=lambda s: "/".join(s)).fillna("").to_string())

# %% [markdown]
# ## Expected vs found
# Each implemented cell is searched: T cells must show no violation, F cells must show one.

# %%
reports = []
for c in claims.implemented_claims():
    if campaign.skip_reason(c):
        continue
    costly = c.mechanism in EXACT
    if c.expected == "F" or c.key in claims.FINDINGS:
        reports.append(campaign.run_quick(c, examples=F_EXAMPLES, seconds=F_SECONDS,
                                          shrink_checks=SHRINK_CHECKS_EXACT if costly else 400))
    else:
        reports.append(campaign.run_cell(c, examples=EXACT_EXAMPLES if costly else T_EXAMPLES, seconds=SECONDS,
                                         seed=0, budget=8 if costly else None,
                                         shrink_checks=SHRINK_CHECKS_EXACT if costly else 400))
found = pd.DataFrame([r.to_dict() for r in reports])[["mechanism", "axiom", "variant", "expected", "found",
                                                         "status", "examples", "seconds"]]
print(found.to_string(index=False))
DISAGREEMENTS = int((found.status == "DISAGREES").sum())      # a known finding is an expected result
FINDINGS_FOUND = int((found.status == "known finding").sum())
print(f"disagreements with axioms.md: {DISAGREEMENTS} (besides {FINDINGS_FOUND} of the "
      f"{len(claims.FINDINGS)} known findings, below)")

# %% [markdown]
# ## Findings: T cells the checkers refute
# Each is reproduced by a hand computation in `tests/unit/proofs_check/test_phase_b_searches.py`.

# %%
for key, why in claims.FINDINGS.items():
    r = [r for r in reports if r.claim.key == key]
    state = (r[0].verdict.detail if r and r[0].verdict is not None and r[0].verdict.violated
             else "not refuted at this scale")
    print(f"- {key}: {state}\n  why: {why}")

# %%
import io  # noqa: E402

from IPython.display import Image  # noqa: E402

fig = claims_heatmap([r.to_dict() for r in reports], labels={k: m.label for k, m in claims.MECHANISMS.items()})
buf = io.BytesIO()
fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
Image(buf.getvalue())


# %% [markdown]
# ## Minimal counterexamples
# Every violation, shrunk (fewer users, resources, periods; simpler numbers) and replayed from its
# JSON alone (mechanism re-run, utilities recomputed in exact rational arithmetic).

# %%
def instance_table(case):
    inst = case["instance"]
    if case.get("kind") in ("servers", "time-varying"):
        d = np.asarray(inst["task_demands"], float)
        K = d.shape[-1]
        df = pd.DataFrame({"eligible servers": [np.flatnonzero(p).tolist() for p in inst["placement"]]})
        if case["kind"] == "servers":
            for r in range(K):
                df[f"task r{r}"] = d[:, r]
            df["tasks wanted"] = inst["tasks"]
        else:
            df["task per slot"] = [np.round(row, 3).tolist() for row in d]
            df["submitted per slot"] = inst["arrivals"]
            df["duration"] = inst["durations"]
        df.index.name = "user"
        return df
    df = pd.DataFrame(inst["demands"], columns=[f"demand r{r}" for r in range(len(inst["capacities"]))])
    if case.get("commitments") is not None:
        for r, col in enumerate(np.asarray(case["commitments"]).T):
            df[f"commitment r{r}"] = col
    if any(w != 1 for w in inst["weights"]):
        df["weight"] = inst["weights"]
    df.index.name = "user"
    return df


REPLAYED = 0
for r in reports:
    if r.verdict is None or not r.verdict.violated:
        continue
    w = r.verdict.witness
    ok = replay(w).confirmed
    REPLAYED += ok
    print(f"\n=== {r.claim.key} (expected {r.claim.expected}) — replay {'confirmed' if ok else 'FAILED'}")
    print(r.verdict.detail)
    if "instance" in w["case"]:
        inst = w["case"]["instance"]
        print("capacities", inst["cluster"]["capacities"] if "cluster" in inst else inst["capacities"])
        print(instance_table(w["case"]).to_string())
    if w["kind"] == "allocation":
        key = "schedule" if "schedule" in w else ("tasks" if "tasks" in w else "allocation")
        print(key, np.round(w[key], 4).tolist(), f"(slot {w['slot']})" if "slot" in w else "")
    elif w["kind"] == "misreport":
        rep = w["report"]
        lie = rep.get("demands", rep.get("task_demands"))
        extra = {k: rep[k] for k in ("tasks", "arrivals") if k in rep}
        print("lie of user", w["user"], f"({w['family']}):", np.round(lie, 4).tolist(), extra,
              f"utility {w['truthful_utility']:.4f} -> {w['misreport_utility']:.4f}")
    elif w["kind"] == "mechanism":
        print({k: w[k] for k in ("leaving", "resource", "factor", "loser", "before", "after") if k in w})
print(f"\nreplayed and confirmed: {REPLAYED}")

# %% [markdown]
# ## Indivisible tasks: bundling beats DRF task filling
# One server with 4 units; unit tasks; user 0 wants 3, user 1 wants 2. DRF filling (stop or skip at
# the first misfit alike) alternates: 2 and 2. If user 0 reports one task of 3 units instead, it is
# served first (share 0, in either user order) and its bundle runs 3 of its true tasks: a lie that
# wins under every tie order, which the search finds in the "bundle" family.

# %%
from fairalloc.scheduling import drf_greedy  # noqa: E402
from proofs_check.misreports import find_profitable_misreport  # noqa: E402

ti = fa.TaskInstance([[4]], [[1], [1]], tasks=[3, 2])
lied = ti.replace(task_demands=[[3], [1]], tasks=[1, 2])
print("truthful:", drf_greedy(ti).tasks.ravel().tolist(), "| user 0 bundles 3 tasks:", drf_greedy(lied).tasks.ravel().tolist())
BUNDLE = find_profitable_misreport(claims.MECHANISMS["drf_indivisible_stop"].resolve(), ti, user=0, rng=0)
print(BUNDLE.detail)

# %% [markdown]
# ## TSF: what the floors of the monopoly count do
# fairalloc's divisible TSF divides by TV-TSF Eq. 4's monopoly count $h_i=\sum_m\lfloor\min_r
# C_{mr}/d_{ir}\rfloor$, the count its integer mechanisms use. Wang et al.'s task share has no floors
# (row `tsf_unfloored`, the same LP reached through the weights). On one server of 4 units with
# tasks of 3 and 4 units, the floors make both users "worth" one task and TSF splits 4/7 each,
# below user 0's 2/3 on half the server; without floors, 2/3 and 1/2 (= DRF).

# %%
from proofs_check import axioms  # noqa: E402
from proofs_check.variants import tsf_unfloored, unfloored_monopoly  # noqa: E402

ti = fa.TaskInstance([[4]], [[3], [4]], tasks=[1, 1])
rows = []
for name, fn, h in [("fa.tsf (floored h)", lambda t: fa.tsf(t, solver="highs"), ti.monopoly),
                    ("tsf_unfloored", tsf_unfloored, unfloored_monopoly(ti))]:
    res = fn(ti)
    rows.append({"mechanism": name, "h": np.round(h, 4).tolist(), "tasks": np.round(res.tasks.ravel(), 4).tolist(),
                 "sharing incentive": axioms.has_sharing_incentive(ti, res, divisible=True, atol=1e-6).holds,
                 "envy-free": axioms.is_envy_free(ti, res, divisible=True, atol=1e-6).holds})
print(pd.DataFrame(rows).to_string(index=False))

# %% [markdown]
# ## TV-TSF: per slot or over the horizon
# The table's TV-TSF row is the integer program as the mechanism applies it: each slot maximises
# the smallest cumulative task share, the past fixed (`fa.tvtsf(method="milp-online")`). Each slot
# is then Pareto-efficient and non-wasteful, but the slots together are not (row `tvtsf_milp`, open
# cells). Eq. 10 solved once over the whole horizon (`method="milp"`, row `tvtsf_offline`) is
# Pareto-efficient over the horizon (Theorem 3) but cares only how many tasks start by the end, not
# when: its optimum may leave a slot idle while tasks wait. The campaign's witness:

# %%
po = [r for r in reports if r.claim.key == "tvtsf_offline/po/per-slot"][0]
w = po.verdict.witness
tv = fa.TimeVaryingInstance.from_dict(w["case"]["instance"])
print(po.verdict.detail)
online = fa.tvtsf(tv, method="milp-online", solver="highs")
print("offline starts", np.asarray(w["schedule"]).astype(int).tolist(), "| online starts", online.tasks.tolist())
fig = schedule_chart(tv, w["schedule"], title=f"offline program: slot {w['slot']} leaves room", highlight_slot=w["slot"])
buf = io.BytesIO()
fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
Image(buf.getvalue())

# %% [markdown]
# Cumulative envy needs tasks that exist: user *i* values *j*'s schedule by what it would start in
# *j*'s place, slot by slot, with its own submissions (TV-TSF Eq. 2). The cumulative EF1 cells are
# refuted only by rare instances, where a user's later tasks are cheaper than its earlier ones:

# %%
ef1 = [r for r in reports if r.claim.key == "tvtsf_greedy/ef1/cumulative-remove"][0]
if ef1.verdict is not None and ef1.verdict.violated:
    w = ef1.verdict.witness
    tv = fa.TimeVaryingInstance.from_dict(w["case"]["instance"])
    print(ef1.verdict.detail)
    print(instance_table(w["case"]).to_string())
    fig = schedule_chart(tv, w["schedule"], title="TV-TSF greedy: EF1 (remove) fails over the horizon")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    display_png = Image(buf.getvalue())
else:
    display_png = None
    print("not found at this scale:", ef1.reason)
display_png

# %% [markdown]
# ## SDRF in the repeated game, step by step
# axioms.md: "holding back in one period lets another user's allocation grow on a resource that then
# dominates its commitment, which pays off later". The smallest game we know (unit capacities,
# commitment memory delta = 0.5, undiscounted user, 10 tasks each so nobody is satisfied):
#
# * period 0: A's tasks need <1, 0.05>, B's <0.1, 1>; period 1: both need <1, 0>.
# * Truthfully, period 0 is DRF: both dominant shares 10/11 (resource 0 full). Each has an excess of
#   9/22 over the fair share 1/2 on its dominant resource: commitments 9/44 each. Period 1 splits 1/2, 1/2.
# * If A takes 99.9% of its period-0 tasks, resource 0 frees 0.00091; B needs only 0.1 of it per
#   unit of dominant share, so B grows by 10x that much on resource 1 and its commitment rises 10x
#   faster than A's falls. In period 1 the commitments differ and A gets more than it gave up.

# %%
game = RepeatedGame([1, 1], [[[1, 0.05], [0.1, 1]], [[1, 0], [1, 0]]], [[10, 10], [10, 10]])
dyn = SDRFDynamics(0.5)
v = find_profitable_deviation(dyn, game, user=0, gamma=1.0, rng=0)
print(v.detail)
dev = {int(t): (np.asarray(d["task_demand"]), d["tasks"]) for t, d in v.witness["deviation"].items()}
truthful, deviating = play(dyn, game), play(dyn, game, user=0, reports=dev)


def steps(tr, label):
    rows = []
    for t in range(game.n_periods):
        for i, name in enumerate("AB"):
            rows.append({"play": label, "period": t, "user": name,
                         "reported tasks": round(tr.reported_tasks[t, i], 4),
                         "allocation": np.round(tr.allocations[t, i], 5).tolist(),
                         "commitments before": np.round(tr.states[t][i], 5).tolist(),
                         "utility (tasks)": round(tr.utilities[t, i], 5)})
    return pd.DataFrame(rows)


print(pd.concat([steps(truthful, "truthful"), steps(deviating, "A deviates")]).to_string(index=False))
SDRF_GAIN = deviating.payoff(0, 1.0) - truthful.payoff(0, 1.0)
print(f"A's payoff: truthful {truthful.payoff(0, 1.0):.6f}, deviating {deviating.payoff(0, 1.0):.6f}, "
      f"gain {SDRF_GAIN:.6f} tasks; replay: {replay(v.witness).detail}")

# %% [markdown]
# The campaign's own witness for `sdrf/sp-repeated` (found from random games, then shrunk towards
# fewer users, resources and periods; see the next section for why it may have one resource):

# %%
sp = [r for r in reports if r.claim.key == "sdrf/sp-repeated/repeated"][0]
w = sp.verdict.witness
print(sp.verdict.detail)
print("game:", json.dumps(w["game"]))
print("deviation:", w["deviation"], "| delta", w["delta"], "gamma", w["gamma"])
for label in ("truthful", "deviating"):
    print(label, "allocations", np.round(w[label]["allocations"], 4).tolist())
    print(label, "commitments", np.round(w[label]["commitments"], 4).tolist())

# %% [markdown]
# ## Which games admit a deviation?
# axioms.md: a profitable SDRF deviation exists with two resources when demand vectors change; none
# was found with one resource, nor with constant demands and every user always active. The same
# search over four families of random games (2-3 users, 2-3 periods; utilities in tasks), stopping
# at the first deviation:
#
# * two resources, vectors change, every task one unit of its dominant resource (no change of task
#   size hides in the change of vector): the mechanism of axioms.md;
# * two resources, constant vectors, always active, uncapped: axioms.md's negative case;
# * one resource, constant task sizes (task counts may change);
# * one resource, task sizes change: a user whose tasks become smaller later values a unit of
#   resource more then, so giving up resource now (lowering its commitment, raising the others')
#   can pay. This is what the shrinker often returns for `sdrf/sp-repeated` (fewer resources first),
#   and what the open cell `stateful_max_min/sp-repeated` finds.

# %%
from hypothesis import strategies as st  # noqa: E402

from proofs_check.strategies import repeated_games  # noqa: E402

PROBE_EXAMPLES = {"small": 40, "full": 400}[SCALE]    # families where axioms.md knows no deviation
DEVIATION_SEED = 10   # the family with a deviation: seed 10 finds one at game 64, seed 0 at game 198 (44 CPU s)
families = {  # name: (game options, mechanism, what axioms.md says)
    "2 resources, vectors change (unit tasks)": (dict(n_resources=(2, 2), unit_tasks=True), fa.sdrf, "deviation"),
    "2 resources, constant, always active": (dict(n_resources=(2, 2), changing=False, absent=False, caps=False),
                                             fa.sdrf, "none known"),
    "1 resource, constant task sizes": (dict(n_resources=(1, 1), changing=False), fa.max_min, "none known"),
    "1 resource, task sizes change": (dict(n_resources=(1, 1)), fa.max_min, "none known"),
}
rows = []
for name, (kw, mech, known) in families.items():
    strat = st.tuples(repeated_games(n_agents=(2, 3), **kw), st.integers(1, 9).map(lambda k: k / 10),
                      st.sampled_from([1.0, 0.9, 0.5]))
    out = campaign.search(strat, lambda x, mech=mech: find_profitable_deviation(
        SDRFDynamics(x[1], mechanism=mech), x[0], None, x[2], budget=60, rng=0),
        examples=F_EXAMPLES if known == "deviation" else PROBE_EXAMPLES,
        seconds=F_SECONDS if known == "deviation" else SECONDS, seed=DEVIATION_SEED if known == "deviation" else 0)
    rows.append({"games": name, "axioms.md": known, "tried": out.examples,
                 "deviation found": out.verdict is not None,
                 "detail": out.verdict.detail if out.verdict is not None else "",
                 "per-task demands": (out.verdict.witness["game"]["task_demands"] if out.verdict is not None else "")})
PROBES = pd.DataFrame(rows)
print(PROBES[["games", "axioms.md", "tried", "deviation found", "detail"]].to_string(index=False))
for r in rows:
    if r["deviation found"]:
        print(f"{r['games']}: per-task demands by period {np.round(r['per-task demands'], 3).tolist()}")
