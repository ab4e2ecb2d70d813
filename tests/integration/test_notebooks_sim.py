"""The simulator notebooks execute at small scale and give the expected kind of numbers.

Each executes its ``.py`` (jupytext percent format, the source of truth) with nbclient from the
notebooks folder, then reads the headline variables back from the kernel's namespace.
"""

from pathlib import Path

import pytest

jupytext = pytest.importorskip("jupytext")
nbclient = pytest.importorskip("nbclient")

NB = Path(__file__).resolve().parents[2] / "notebooks"


@pytest.fixture(autouse=True)
def small_scale(monkeypatch):
    monkeypatch.setenv("FAIRALLOC_SCALE", "small")  # the kernel inherits this environment
    monkeypatch.setenv("MPLBACKEND", "Agg")


def execute(name, extra_code):
    nb = jupytext.read(NB / name)
    nb.cells.append(jupytext.reads(extra_code, fmt="py:percent").cells[0])
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(NB)}})
    client.execute()
    out = nb.cells[-1].outputs
    text = "".join(o.get("text", "") for o in out if o.get("output_type") == "stream")
    return dict(line.split("=", 1) for line in text.strip().splitlines() if "=" in line)


def test_learned_priorities_notebook():
    got = execute("learned_priorities.py", "# %%\nprint(f'wins={F1_WINS}'); print(f'n={N_TRACES}');"
                  " print(f'max={F1_MAX_GAIN}'); print(f'fcfs={F1_VS_FCFS_MIN}')")
    # learned-priorities paper: F1 "up to 7.25x" better than the best baseline. Observed at small
    # scale (4 traces, seeds 0-3): F1 wins on some traces only, largest gain about 1.8x; F1 is
    # always much better than FCFS. Asserted loosely: direction and order of magnitude.
    assert int(got["n"]) == 4
    assert int(got["wins"]) >= 1
    assert 1.0 < float(got["max"]) < 7.25 * 2
    assert float(got["fcfs"]) > 5


def test_buc_notebook(shared_data):
    got = execute("buc.py", "# %%\nprint(f'p0={INJ[\"injected P=0\"]}'); "
                  "print(f'p1={INJ[\"injected P=1\"]}'); print(f'hi={BUCKET_10800[\"75-100\"]}');"
                  " print(f'lo={BUCKET_10800[\"0-24\"]}')")
    # BUC paper: precise users wait less (up to -93%), imprecise users more (up to +20%)
    assert float(got["p1"]) < -20
    assert float(got["p0"]) > float(got["p1"])
    assert float(got["hi"]) < float(got["lo"])
