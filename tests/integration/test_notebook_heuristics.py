"""The heuristics-vs-optimum notebook executes at small scale and gives the expected kind of numbers.

Executes ``notebooks/heuristics_vs_optimum.py`` (jupytext percent format, the source of truth) with
nbclient from the notebooks folder, then reads the headline variables back from the kernel.
"""


def test_heuristics_vs_optimum_notebook(run_notebook):
    got = run_notebook("heuristics_vs_optimum.py",
                       "# %%\nprint(f'n={len(instances)}'); print(f'proven={(table.exact_status == \"optimal\").mean()}')\n"
                       "for k in ['drf', 'drf-skip', 'sdrf', 'sdrf-skip', 'tsf', 'cdrf', 'tvtsf']:\n"
                       "    print(f'opt_{k}={OPTIMAL[k]}'); print(f'dom_{k}={DOMINATED[k]}')\n"
                       "print(f'level={LEVEL_MAX_DIST}'); print(f'printed={PRINTED_CROSS_DIST}')\n"
                       "print(f'cmp={int((table.leximin_cmp > 0).sum())}')")
    assert int(got["n"]) == 57                                 # 40 + 12 random + 5 built-in
    # every exact program proven optimal; the notebook's 60 s MILP limit is a safety cap
    assert float(got["proven"]) == 1.0, ("an exact program stopped at the notebook's 60 s time limit (the "
                                         "budget that ran out was time, a slow or loaded machine), "
                                         "not a wrong result")
    assert int(got["cmp"]) == 0                                 # no greedy beats a proven optimum
    for k in ["drf", "drf-skip", "sdrf", "sdrf-skip", "tsf", "cdrf", "tvtsf"]:
        assert 0.0 < float(got[f"opt_{k}"]) <= 1.0
    # Observed at small scale (seed 2024): the greedy is often but not always optimal, and stopping at
    # the first task that does not fit (Algorithm 1 as printed) wastes capacity the skip rule uses:
    # more Pareto-dominated allocations, fewer optimal ones. Asserted as directions only.
    assert float(got["dom_drf"]) > float(got["dom_drf-skip"])
    assert float(got["dom_sdrf"]) > float(got["dom_sdrf-skip"])
    assert float(got["opt_drf-skip"]) > float(got["opt_drf"])
    # issue 5: with the level reading the distance to Eq. 5 is below 1e-2 by k = 1000; the printed
    # reading stays 0.225 away on the 'cross' instance (Eq. 5 dominant shares (0.525, 0.825), printed
    # rule (0.75, 0.75): fairalloc.experiments.convergence's docstring, solved by hand)
    assert float(got["level"]) < 1e-2
    assert abs(float(got["printed"]) - 0.225) < 1e-2
