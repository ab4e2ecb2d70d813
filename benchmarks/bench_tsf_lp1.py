"""The static TSF's LP 1s (issue 31): what another route to the same LP would cost, and whether it gives the same vertex.

Records the first ``--lps`` LP 1s that :func:`fairalloc.exact.tsf_lp.divisible_tsf` hands to
:func:`scipy.optimize.linprog` in one TV-TSF reproduction cell (``tsf-static``, default large80,
sample 0, the paper scale), then solves each again, timing each route in CPU seconds
(``time.process_time``) and comparing its solution with the recorded one:

``linprog``
    the call as :mod:`fairalloc.exact.tsf_lp` makes it (the matrix as CSR from its triplets);
``linprog-csc``
    the same call given the matrix as a CSC array (what scipy converts it to before HiGHS): the same
    model in the same order, so the same vertex is expected bit for bit;
``highspy``
    HiGHS through highspy (its own version), cold, with the options scipy passes (presolve on, dual
    simplex): another HiGHS, so possibly another optimal vertex of the same LP;
``canonical``
    a rule that makes LP 1's answer unique: after ``highspy``'s LP 1, ``t`` is fixed at its optimum
    (relaxed by 1e-9 as the later rounds' levels are) and a secondary objective with fixed generic
    weights (a seeded draw, one weight per pair) is maximised from the LP 1 basis (a warm start);
    ``canonical-scipy`` solves the same secondary LP cold through ``linprog``, to see whether two HiGHS
    builds agree on the canonical point (they must, up to tolerances, for the rule to be worth it).

    python benchmarks/bench_tsf_lp1.py --lps 200

``--cells`` instead runs whole ``tsf-static`` cells (``--scenarios``, ``--n-jobs``, ``--slots``, sample ``--seed``) in
this process under each reading and LP route: ``point="canonical"`` with the LPs on
fairalloc's HiGHS route (highspy, primal simplex, no presolve), on ``linprog``'s HiGHS, and on highspy with
HiGHS's default options; ``point="solver"`` (the default: ``linprog``'s vertex, the stored cells' rule). It prints each
cell's CPU seconds, the canonical LPs and the sha256 of its tables: the canonical point's tables must not
depend on the route.

    python benchmarks/bench_tsf_lp1.py --cells --scenarios large50 --n-jobs 100 --slots 150

Prints per route the CPU seconds summed over the LPs, the ratio to ``linprog``, and how many
solutions equal the recorded one (bitwise, and within 1e-9). Nothing here changes fairalloc: it is a
measurement for the decision recorded in ``benchmarks/RESULTS.md`` (TV-TSF, fourth pass).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.sparse as sp


class _Enough(Exception):
    pass


def record(scenario: str, seed: int, n: int, every: int = 1) -> list[dict]:
    """LP 1 inputs and linprog's solutions, in the order the cell solves them (every ``every``-th)."""
    import importlib

    from fairalloc.experiments.reproductions import tvtsf

    tsf_lp = importlib.import_module("fairalloc.exact.tsf_lp")     # (fairalloc.exact.tsf_lp is also a function)

    out: list[dict] = []
    seen = [0]
    call = [0]
    solve, init = tsf_lp._LpBackend.solve, tsf_lp._LpBackend.__init__

    def init_(self, *a, **k):
        call[0] += 1
        init(self, *a, **k)

    def solve_(self, c, a, b, hi):
        res = solve(self, c, a, b, hi)
        seen[0] += 1
        if seen[0] % every == 0:
            out.append({"c": c.copy(), "a": sp.csr_matrix(a, copy=True), "b": b.copy(), "hi": hi.copy(),
                        "x": None if res[1] is None else np.array(res[1]), "call": call[0]})
            if len(out) >= n:
                raise _Enough
        return res

    tsf_lp._LpBackend.solve, tsf_lp._LpBackend.__init__ = solve_, init_
    try:
        tvtsf._source()
        tvtsf.cell(scenario=scenario, seed=seed, policy="tsf-static", n_jobs=400, slots=600)
    except _Enough:
        pass
    finally:
        tsf_lp._LpBackend.solve, tsf_lp._LpBackend.__init__ = solve, init
    return out


def _linprog(c, a, b, hi):
    from scipy.optimize import linprog

    return linprog(c, A_ub=a, b_ub=b, bounds=np.c_[np.zeros(c.size), hi], method="highs").x


def _highspy_model(c, a, b, hi):
    from fairalloc.exact.backends import highs_arrays
    from fairalloc.exact.solvers import highs_threads, quiet_highs

    h = quiet_highs()
    highs_threads(h, None)
    h.setOptionValue("presolve", "on")
    h.setOptionValue("simplex_strategy", 1)        # dual simplex, as scipy's linprog(method="highs")
    h.passModel(highs_arrays(np.asarray(c, float), np.zeros(c.size), np.asarray(hi, float), sp.csr_matrix(a),
                             np.full(a.shape[0], -np.inf), np.asarray(b, float)))
    return h


_ROUTES = {"canonical/highs-primal": ("canonical", "highs", {"presolve": "off", "simplex_strategy": 4}),
           "canonical/linprog": ("canonical", "scipy", None),
           "canonical/highs": ("canonical", "highs", None),
           "solver/linprog": ("solver", None, None)}


def cells(scenarios: list, n_jobs: int, slots: int, seed: int) -> None:
    """``--cells`` (module docstring)."""
    import hashlib
    import pickle

    from fairalloc.experiments.reproductions import tvtsf
    from fairalloc.scheduling import static_slots as ss

    tvtsf._source()
    made = []
    init = ss.StaticSlotScheduler.__init__
    old = (ss._LP_ROUTE, ss._LP_OPTIONS, dict(init.__kwdefaults__))

    def init_(self, *a, **k):
        init(self, *a, **k)
        made.append(self)

    ss.StaticSlotScheduler.__init__ = init_
    try:
        for sc in scenarios:
            for name, (point, route, opts) in _ROUTES.items():
                init.__kwdefaults__["point"] = point
                ss._LP_ROUTE, ss._LP_OPTIONS = (route, opts) if route else old[:2]
                made.clear()
                t = time.process_time()
                r = tvtsf.cell(scenario=sc, seed=seed, policy="tsf-static", n_jobs=n_jobs, slots=slots)
                cpu = time.process_time() - t
                s = [m for m in made if m.mechanism == "tsf-static"][-1]
                digest = hashlib.sha256(pickle.dumps({k: v.to_dict("list") for k, v in r.items()})).hexdigest()
                print(f"{sc} {n_jobs}/{slots} seed {seed} {name:<24} CPU {cpu:7.2f} s  slots {s.rounds}  canonical LPs "
                      f"{s.canonical_lps} (slots with more than one {s.canonical_multi}, banded {s.canonical_banded}, "
                      f"failed {s.canonical_failed})  tables {digest[:16]}", flush=True)
    finally:
        ss.StaticSlotScheduler.__init__ = init
        ss._LP_ROUTE, ss._LP_OPTIONS = old[:2]
        init.__kwdefaults__.update(old[2])


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cells", action="store_true", help="whole tsf-static cells per reading and route")
    p.add_argument("--scenarios", nargs="*", default=["large50"])
    p.add_argument("--n-jobs", type=int, default=100)
    p.add_argument("--slots", type=int, default=150)
    p.add_argument("--scenario", default="large80")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--lps", type=int, default=200)
    p.add_argument("--every", type=int, default=1, help="record every k-th LP 1 (spread over more slots)")
    a = p.parse_args(argv)
    if a.cells:
        cells(a.scenarios, a.n_jobs, a.slots, a.seed)
        return
    t0 = time.process_time()
    lps = record(a.scenario, a.seed, a.lps, a.every)
    print(f"recorded {len(lps)} LP 1s of {a.scenario} sample {a.seed} in {time.process_time() - t0:.1f} CPU s; "
          f"columns {min(l['c'].size for l in lps)}-{max(l['c'].size for l in lps)}, "
          f"rows {min(l['a'].shape[0] for l in lps)}-{max(l['a'].shape[0] for l in lps)}")
    rng = np.random.default_rng(0)
    cpu = {k: 0.0 for k in ("linprog", "linprog-csc", "highspy", "canonical", "canonical-scipy", "build-csr", "build-csc")}
    same = {k: [0, 0] for k in ("linprog", "linprog-csc", "highspy")}
    canon_diff, face_moves = [], 0
    for lp in lps:
        c, A, b, hi, x0 = lp["c"], lp["a"], lp["b"], lp["hi"], lp["x"]
        coo = A.tocoo()
        t = time.process_time()
        sp.csr_matrix((coo.data, (coo.row, coo.col)), shape=A.shape)
        cpu["build-csr"] += time.process_time() - t
        t = time.process_time()
        csc = sp.csc_array((coo.data, (coo.row, coo.col)), shape=A.shape)
        cpu["build-csc"] += time.process_time() - t
        for name, mat in (("linprog", A), ("linprog-csc", csc)):
            t = time.process_time()
            x = _linprog(c, mat, b, hi)
            cpu[name] += time.process_time() - t
            same[name][0] += x.tobytes() == x0.tobytes()
            same[name][1] += bool(np.abs(x - x0).max() <= 1e-9)
        t = time.process_time()
        h = _highspy_model(c, A, b, hi)
        h.run()
        x = np.asarray(h.getSolution().col_value)
        cpu["highspy"] += time.process_time() - t
        same["highspy"][0] += x.tobytes() == x0.tobytes()
        same["highspy"][1] += bool(np.abs(x - x0).max() <= 1e-9)
        # the canonical point: t fixed (relaxed), generic weights on the pairs, from LP 1's basis
        nv = c.size - 1
        w = rng.uniform(1.0, 2.0, nv)
        tstar = float(x[-1])
        t = time.process_time()
        h.changeColBounds(nv, tstar * (1 - 1e-9), tstar * (1 - 1e-9))
        h.changeColsCost(nv + 1, np.arange(nv + 1, dtype=np.int32), np.r_[-w, 0.0])
        h.run()
        xc = np.asarray(h.getSolution().col_value)
        cpu["canonical"] += time.process_time() - t
        face_moves += bool(np.abs(xc[:nv] - x[:nv]).max() > 1e-9)
        hi2 = hi.copy()
        t = time.process_time()
        from scipy.optimize import linprog

        xs = linprog(np.r_[-w, 0.0], A_ub=A, b_ub=b, bounds=np.c_[np.r_[np.zeros(nv), tstar * (1 - 1e-9)],
                                                                   np.r_[hi2[:nv], tstar * (1 - 1e-9)]],
                     method="highs").x
        cpu["canonical-scipy"] += time.process_time() - t
        canon_diff.append(float(np.abs(xs - xc).max()))
    base = cpu["linprog"]
    n = len(lps)
    for k in ("linprog", "linprog-csc", "highspy"):
        print(f"{k:<16} {cpu[k]:8.2f} CPU s  ratio {base / cpu[k]:5.2f}  same solution as recorded: "
              f"{same[k][0]}/{n} bitwise, {same[k][1]}/{n} within 1e-9")
    print(f"{'canonical':<16} {cpu['canonical']:8.2f} CPU s  (after highspy's LP 1, warm); highspy + canonical "
          f"{cpu['highspy'] + cpu['canonical']:.2f} s, ratio {base / (cpu['highspy'] + cpu['canonical']):.2f}; "
          f"the point moved off LP 1's vertex in {face_moves}/{n}")
    print(f"{'canonical-scipy':<16} {cpu['canonical-scipy']:8.2f} CPU s  (cold linprog); largest difference "
          f"to highspy's canonical point {max(canon_diff):.2e}, {sum(d <= 1e-7 for d in canon_diff)}/{n} within 1e-7")
    print(f"matrix build from triplets: CSR {cpu['build-csr']:.2f} CPU s, CSC {cpu['build-csc']:.2f} CPU s")


if __name__ == "__main__":
    main()
