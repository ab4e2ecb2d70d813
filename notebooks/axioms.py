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
# # Fairness axioms: what axioms.md expects, what the checkers find
#
# `shared/papers/axioms.md` lists, for every mechanism and axiom, whether the axiom is a theorem
# (T), known to fail (F) or open (?). `proofs_check` turns that table into data
# (`proofs_check.claims`), searches each implemented cell for counterexamples with hypothesis-drawn
# instances, shrinks what it finds and re-verifies every witness from its JSON alone. This notebook
# shows the matrix (expected vs found), the minimal counterexamples as small tables, and the SDRF
# repeated-game deviation step by step. It defines no algorithm: every number comes from
# `fairalloc` and `proofs_check`.
#
# `FAIRALLOC_SCALE=small` (default, CI) tries few cases per T cell; `full` the campaign budget of
# `fairalloc check --all`. F cells stop at their first counterexample either way.

# %%
import json
import os

import numpy as np
import pandas as pd

import fairalloc as fa
from fairalloc.plots.axioms import claims_heatmap
from proofs_check import campaign, claims
from proofs_check.misreports import find_profitable_deviation
from proofs_check.repeated import RepeatedGame, SDRFDynamics, play
from proofs_check.replay import replay

SCALE = os.environ.get("FAIRALLOC_SCALE", "small")
T_EXAMPLES = {"small": 6, "full": 300}[SCALE]       # cases per T / ? cell
F_EXAMPLES = 500                                     # F cells stop at the first counterexample
SECONDS = {"small": 20.0, "full": 60.0}[SCALE]
pd.set_option("display.width", 140)
print(f"scale={SCALE}: {T_EXAMPLES} cases per T cell, up to {F_EXAMPLES} per F cell")

# %% [markdown]
# ## The claims table
# Every row of axioms.md, one line per (axiom, variant); rows whose mechanism is not in fairalloc
# yet (indivisible DRF variants, TSF, DRFH, TV-TSF: phase B) are listed and skipped.

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
    if c.axiom == "ef1":
        continue
    n = F_EXAMPLES if c.expected == "F" else T_EXAMPLES
    reports.append(campaign.run_cell(c, examples=n, seconds=SECONDS, seed=0))
found = pd.DataFrame([r.to_dict() for r in reports])[["mechanism", "axiom", "variant", "expected", "found",
                                                         "status", "examples", "seconds"]]
print(found.to_string(index=False))
DISAGREEMENTS = int((found.status == "DISAGREES").sum())
print(f"disagreements with axioms.md: {DISAGREEMENTS}")

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
        print("capacities", w["case"]["instance"]["capacities"])
        print(instance_table(w["case"]).to_string())
    if w["kind"] == "allocation":
        print("allocation", np.round(w["allocation"], 4).tolist())
    elif w["kind"] == "misreport":
        print("lie of user", w["user"], ":", np.round(w["report"]["demands"], 4).tolist(),
              f"utility {w['truthful_utility']:.4f} -> {w['misreport_utility']:.4f}")
    elif w["kind"] == "mechanism":
        print({k: w[k] for k in ("leaving", "resource", "factor", "loser", "before", "after") if k in w})
print(f"\nreplayed and confirmed: {REPLAYED}")

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
        examples=F_EXAMPLES if known == "deviation" else PROBE_EXAMPLES, seconds=SECONDS * 3, seed=0)
    rows.append({"games": name, "axioms.md": known, "tried": out.examples,
                 "deviation found": out.verdict is not None,
                 "detail": out.verdict.detail if out.verdict is not None else "",
                 "per-task demands": (out.verdict.witness["game"]["task_demands"] if out.verdict is not None else "")})
PROBES = pd.DataFrame(rows)
print(PROBES[["games", "axioms.md", "tried", "deviation found", "detail"]].to_string(index=False))
for r in rows:
    if r["deviation found"]:
        print(f"{r['games']}: per-task demands by period {np.round(r['per-task demands'], 3).tolist()}")
