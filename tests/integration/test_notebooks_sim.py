"""The simulator notebooks execute at small scale and give the expected kind of numbers.

Each executes its ``.py`` (jupytext percent format, the source of truth) with nbclient from the
notebooks folder, then reads the headline variables back from the kernel's namespace.
"""


def test_learned_priorities_notebook(run_notebook):
    got = run_notebook("learned_priorities.py", "# %%\nprint(f'wins={F1_WINS}'); print(f'n={N_TRACES}');"
                       " print(f'max={F1_MAX_GAIN}'); print(f'fcfs={F1_VS_FCFS_MIN}')")
    # learned-priorities paper: F1 "up to 7.25x" better than the best baseline. Observed at small
    # scale (4 traces, seeds 0-3): F1 wins on some traces only, largest gain about 1.8x; F1 is
    # always much better than FCFS. Asserted loosely: direction and order of magnitude.
    assert int(got["n"]) == 4
    assert int(got["wins"]) >= 1
    assert 1.0 < float(got["max"]) < 7.25 * 2
    assert float(got["fcfs"]) > 5


def test_buc_notebook(shared_data, run_notebook):
    got = run_notebook("buc.py", "# %%\nprint(f'p0={INJ[\"injected P=0\"]}'); "
                       "print(f'p1={INJ[\"injected P=1\"]}'); print(f'hi={BUCKET_10800[\"75-100\"]}');"
                       " print(f'lo={BUCKET_10800[\"0-24\"]}')")
    # BUC paper: precise users wait less (up to -93%), imprecise users more (up to +20%)
    assert float(got["p1"]) < -20
    assert float(got["p0"]) > float(got["p1"])
    assert float(got["hi"]) < float(got["lo"])
