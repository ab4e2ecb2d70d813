"""The ``fairalloc`` command on malformed input: one line on stderr naming what is wrong, the documented
exit status (``fairalloc --help``: 2 for bad input), and never a Python traceback.

Each case: command line (``{tmp}`` is a folder holding the files of ``FILES``), expected exit status,
and words the message must contain. Inputs are those of issue 10 (items 2 and 3) and their siblings.
The cases run in this process through :func:`fairalloc.cli.main` (what the console script calls: its
return value is the exit status), with stdout and stderr captured and every log record at WARNING or
above counted as a line of stderr (what ``configure_logging`` prints in a process of its own); a few
(``SUBPROCESS``, one per subcommand family, and one through pyproject's console-script entry) also run
as a real ``python -m fairalloc`` / console-script process, so the entry point, its exit status and its stderr are
checked end to end. The traceback of ``--debug``, the JSON of ``--json -`` with a C solver writing on
file descriptor 1, and the imports of ``check --list`` run as processes too.
"""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fairalloc.cli import main
from fairalloc.errors import InvalidInstanceError

REPO = Path(__file__).resolve().parents[2]

FILES: dict[str, str | bytes] = {
    "word.yaml": "capacities: [9, 18]\nusers:\n  - {demand: [one, 4]}\n  - {demand: [3, 1]}\n",
    "bool.yaml": "capacities: [9, 18]\nusers:\n  - {demand: [true, 4]}\n  - {demand: [3, 1]}\n",
    "binary.csv": bytes(range(128, 256)) * 4,
    "nouser.csv": "cpu,mem\n9,18\n1,4\n3,1\n",
    "commit.yaml": "capacities: [9, 18]\nusers:\n  - {demand: [1, 4], commitment: [1.5, 0]}\n  - {demand: [3, 1]}\n",
    "commit_tasks.yaml": ("kind: tasks\nresources: [cpu, mem]\nservers:\n  - {name: s0, capacity: [8, 8]}\nusers:\n"
                          "  - {demand: [1, 1], tasks: 3, commitment: [0.2, 1.5]}\n  - {demand: [1, 2], tasks: 3}\n"),
    "tv_lengths.yaml": ("kind: time-varying\nservers:\n  - {name: s0, capacity: [4, 4]}\nusers:\n"
                        "  - {demand: [2, 1], arrivals: [2, 1, 0], duration: 1}\n"
                        "  - {demand: [1, 2], arrivals: [1], duration: 1}\n"),
    "notgzip.swf.gz": "1 0 -1 100 4 -1 -1 4 50 -1 1 1 1 -1 -1 -1 -1 -1\n",
    "notparquet.parquet": "this is text\n",
    "alibaba.csv": "a,b,c\n1,2,3\n",
    "header_only.swf": "; MaxProcs: 4\n",
    "ok.swf": "; MaxProcs: 4\n1 0 -1 100 4 -1 -1 4 50 -1 1 1 1 -1 -1 -1 -1 -1\n",
    "empty.json": "",
    "incomplete.json": '{"kind": "mechanism"}',
    "a_file": "not a folder\n",
    "mapping.yaml": "capacities: [9, 18]\nusers:\n  - {name: A, demand: {cpu: 1, mem: 4}}\n",
    "dup.json": '{"demands": [[1, 1]], "capacities": [1, 1], "capacities": [9, 18]}',
    "g_subset.csv": "0;1;0;u;3;9;1000000000;-1;0.1;0.1\n0;2;0;v;3;9;2000000000;-1;0.2;0.1\n",
    "ali.csv": "0,100,1,1,2,Terminated,100,0.01\n10,50,2,2,1,Terminated,200,0.02\n",
    "mymech.py": ("import numpy as np\n"
                  "def flat(instance):\n    return np.zeros(instance.n_agents)\n"
                  "def two_args(instance, other):\n    return None\n"),
}

CASES = [
    # (id, argv, exit status, words in the message)
    ("yaml-word", ["solve", "{tmp}/word.yaml"], 2, ["users[0].demand[0]", "not a number"]),
    ("yaml-true", ["solve", "{tmp}/bool.yaml"], 2, ["boolean"]),
    ("binary-csv", ["solve", "{tmp}/binary.csv"], 2, ["not a text file"]),
    ("csv-no-user-column", ["solve", "{tmp}/nouser.csv"], 2, ["'user' column"]),
    ("commitment-above-1", ["solve", "{tmp}/commit.yaml"], 2, ["above 1"]),
    ("task-commitment-above-1", ["solve", "{tmp}/commit_tasks.yaml", "--mechanism", "sdrf"], 2,
     ["commitments[0, 1]", "above 1", "mem"]),
    ("tv-arrival-lengths", ["solve", "{tmp}/tv_lengths.yaml"], 2, ["users[1].arrivals", "every slot"]),
    ("missing-file", ["solve", "{tmp}/nope.yaml"], 2, ["not found"]),
    ("unknown-example", ["solve", "--example", "nope"], 2, ["nope"]),
    ("negative-precision", ["solve", "--example", "drf-paper", "--precision", "-1"], 2, ["--precision"]),
    ("solve-out-is-a-file", ["solve", f"{REPO}/examples/tasks_placement.yaml", "--out", "{tmp}/a_file"], 2,
     ["not a folder"]),
    ("solve-unknown-method", ["solve", "--example", "drf-paper", "--method", "simplex"], 2, ["method"]),
    ("unknown-option", ["solve", "--example", "drf-paper", "--frobnicate"], 2, ["unrecognized"]),
    ("swf-not-gzip", ["simulate", "--workload", "swf:{tmp}/notgzip.swf.gz"], 2, ["cannot read", "gzip"]),
    ("parquet-not-parquet", ["simulate", "--workload", "parquet:{tmp}/notparquet.parquet"], 2,
     ["cannot read", "Parquet"]),
    ("alibaba-other-format", ["simulate", "--workload", "alibaba:{tmp}/alibaba.csv"], 2, ["Alibaba"]),
    ("swf-no-jobs", ["simulate", "--workload", "swf:{tmp}/header_only.swf"], 2, ["no jobs"]),
    # issue 25 section 4 and issue 32 (units): a mapping where numbers belong was an internal error (70);
    # a duplicate key took the last value; a directory was "no such file"; the Google subset "no jobs"
    ("solve-demand-mapping", ["solve", "{tmp}/mapping.yaml"], 2, ["users[0].demand", "is a mapping"]),
    ("solve-duplicate-key", ["solve", "{tmp}/dup.json"], 2, ["duplicate key 'capacities'"]),
    ("swf-directory", ["simulate", "--workload", "swf:{tmp}/adir"], 2, ["adir is a directory"]),
    ("google2011-no-run-times", ["simulate", "--workload", "google2011:{tmp}/g_subset.csv"], 2,
     ["unknown run time", "google2011:PATH,duration=end"]),
    ("alibaba-units-on-table3", ["simulate", "--workload", "alibaba:{tmp}/ali.csv", "--cluster", "tvtsf-table3",
                                 "--policy", "drf"], 2, ["'memory'", "normalised", "GB", "memory=FGB"]),
    ("workload-unknown-option", ["simulate", "--workload", "swf:{tmp}/ok.swf,colour=red"], 2,
     ["unknown option 'colour'", "status"]),
    ("workload-bad-option-value", ["simulate", "--workload", "google2011:{tmp}/g_subset.csv,merge=maybe"], 2,
     ["merge='maybe'"]),
    ("head-0", ["simulate", "--workload", "swf:{tmp}/ok.swf", "--head", "0"], 2, ["--head"]),
    ("head-negative", ["simulate", "--workload", "swf:{tmp}/ok.swf", "--head", "-5"], 2, ["--head"]),
    ("empty-policy", ["simulate", "--workload", "swf:{tmp}/ok.swf", "--policy", ""], 2, ["--policy is empty"]),
    ("unknown-policy", ["simulate", "--workload", "swf:{tmp}/ok.swf", "--policy", "lifo"], 2, ["lifo"]),
    ("delta-without-sdrf", ["simulate", "--workload", "google_like:users=3,tasks=20", "--policy", "drf",
                            "--delta", "0.5"], 2, ["--delta applies"]),
    ("simulate-out-is-a-file", ["simulate", "--workload", "swf:{tmp}/ok.swf", "--out", "{tmp}/a_file"], 2,
     ["not a folder"]),
    ("check-examples-0", ["check", "--mechanism", "drf", "--examples", "0"], 2, ["--examples"]),
    ("check-unknown-mechanism", ["check", "--mechanism", "nonsense"], 2, ["unknown mechanism"]),
    ("check-unknown-axiom", ["check", "--mechanism", "drf", "--axiom", "envy"], 2, ["--axiom"]),
    ("replay-empty", ["check", "--replay", "{tmp}/empty.json"], 2, ["not valid JSON"]),
    ("replay-incomplete", ["check", "--replay", "{tmp}/incomplete.json"], 2, ["incomplete"]),
    ("replay-missing", ["check", "--replay", "{tmp}/nope.json"], 2, ["nope.json"]),
    ("user-mechanism-no-domain", ["check", "--mechanism", "mymech:flat"], 2, ["--domain"]),
    ("user-mechanism-no-module", ["check", "--mechanism", "nomodule_xyz:f", "--domain", "pooled"], 2,
     ["cannot import"]),
    ("user-mechanism-shape", ["check", "--mechanism", "mymech:flat", "--domain", "pooled"], 2,
     ["shape", "expected"]),
    ("user-mechanism-signature", ["check", "--mechanism", "mymech:two_args", "--domain", "tasks"], 2,
     ["signature", "fairalloc.TaskInstance"]),
    ("f-examples-without-all", ["check", "--mechanism", "drf", "--f-examples", "5"], 2, ["--all only"]),
]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cli_inputs")
    for name, content in FILES.items():
        (tmp / name).write_bytes(content if isinstance(content, bytes) else content.encode())
    (tmp / "adir").mkdir()
    return tmp


def fairalloc(args, tmp: Path, env_extra=None, command=None):
    """``fairalloc ARGS`` as a process (``python -m fairalloc`` unless ``command``) in the folder ``tmp``."""
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=f"{tmp}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    env.pop("FAIRALLOC_DEBUG", None)
    env.update(env_extra or {})
    argv = [a.replace("{tmp}", str(tmp)) for a in args]
    return subprocess.run([*(command or [sys.executable, "-m", "fairalloc"]), *argv], capture_output=True, text=True,
                          env=env, cwd=tmp, timeout=300)


#: the cases that also run as a process: one per subcommand family (a YAML error of ``solve``, a workload
#: of ``simulate``, the ``check`` subcommand that an entry point of proofs_check provides, argparse's own
#: usage error); ``console`` runs pyproject's ``fairalloc`` console-script entry the way its script does
SUBPROCESS = {"yaml-word": "module", "swf-not-gzip": "module", "check-unknown-mechanism": "module",
              "unknown-option": "console"}


@pytest.fixture
def in_process(files, monkeypatch, capsys, caplog):
    """``run(args) -> (status, stdout, stderr lines)``: :func:`fairalloc.cli.main` in this process, in the
    environment :func:`fairalloc` gives a process (cwd and ``sys.path`` hold the files, no
    ``FAIRALLOC_DEBUG``); log records at WARNING or above count as stderr lines."""
    monkeypatch.chdir(files)
    monkeypatch.syspath_prepend(str(files))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.delenv("FAIRALLOC_DEBUG", raising=False)
    levels = {n: logging.getLogger(n).level for n in ("fairalloc", "proofs_check")}
    modules = set(sys.modules)

    def run(args):
        argv = [a.replace("{tmp}", str(files)) for a in args]
        caplog.clear()
        capsys.readouterr()
        code = main(argv)
        out = capsys.readouterr()
        logged = [f"{r.levelname} {r.name}: {r.getMessage()}" for r in caplog.records
                  if r.levelno >= logging.WARNING]
        return code, out.out, out.err.splitlines() + logged

    yield run
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)
    for name in set(sys.modules) - modules:       # the user mechanism's module (mymech) came from the folder
        if getattr(sys.modules[name], "__file__", None) and str(files) in str(sys.modules[name].__file__):
            del sys.modules[name]


def check_one_line(argv, code, words, status, err_lines):
    err = "\n".join(err_lines)
    assert "Traceback" not in err, err
    assert status == code, (status, err)
    lines = [line for line in err_lines if line.strip() and "warning" not in line]
    assert len(lines) == 1, err
    assert re.match(rf"fairalloc( {argv[0]})?: error: ", lines[0]), lines[0]
    for w in words:
        assert w in lines[0], (w, lines[0])


@pytest.mark.parametrize("argv, code, words", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_malformed_input_gives_one_line_and_status(in_process, argv, code, words):
    status, _, err = in_process(argv)
    check_one_line(argv, code, words, status, err)


@pytest.mark.parametrize("argv, code, words, how", [(*c[1:], SUBPROCESS[c[0]]) for c in CASES if c[0] in SUBPROCESS],
                         ids=[c[0] for c in CASES if c[0] in SUBPROCESS])
def test_malformed_input_as_a_process(files, argv, code, words, how):
    command = None
    if how == "console":
        # what the installer's `fairalloc` script runs: pyproject's [project.scripts] entry, called as
        # sys.exit(entry()) (read from pyproject, not from an installed script that may predate it)
        entry = re.search(r'^\[project\.scripts\]\s*^fairalloc\s*=\s*"([\w.]+):(\w+)"',
                          (REPO / "pyproject.toml").read_text(), re.MULTILINE)
        assert entry, "pyproject.toml declares no `fairalloc` console script"
        command = [sys.executable, "-c", f"import sys; from {entry[1]} import {entry[2]}; sys.exit({entry[2]}())"]
    p = fairalloc(argv, files, command=command)
    check_one_line(argv, code, words, p.returncode, p.stderr.splitlines())


def test_all_cases_that_run_as_a_process_exist():
    assert set(SUBPROCESS) <= {c[0] for c in CASES}


def test_debug_shows_the_traceback(files, in_process, monkeypatch):
    p = fairalloc(["solve", "{tmp}/word.yaml", "--debug"], files)
    assert "Traceback" in p.stderr and "InvalidInstanceError" in p.stderr and p.returncode != 0
    monkeypatch.setenv("FAIRALLOC_DEBUG", "1")           # the variable, in this process: the error propagates
    with pytest.raises(InvalidInstanceError):
        in_process(["solve", "{tmp}/word.yaml"])


def test_missing_capacities_are_a_one_line_warning(files, in_process):
    (files / "nocap.csv").write_text("user,cpu,mem\nA,3,3\nB,1,2\n")
    code, out, err = in_process(["solve", "{tmp}/nocap.csv", "-q"])
    assert code == 0 and out == ""
    assert err == [("fairalloc solve: warning: the instance gives no capacities (CSV: no 'capacity' "
                    "row): each resource has capacity 1")]


@pytest.mark.parametrize("argv", [
    ["solve", "--example", "drf-paper", "--mechanism", "drf"],
    ["check", "--list"],
    ["simulate", "--workload", "swf:{tmp}/ok.swf", "--policy", "fcfs"],
], ids=["solve-pooled", "check-list", "simulate"])
def test_json_dash_prints_only_json(in_process, argv):
    code, out, err = in_process([*argv, "--json", "-"])
    assert code == 0, err
    json.loads(out)                           # nothing else on stdout (the table goes to stderr)
    assert "".join(err).strip(), "the human-readable output moves to stderr"


def test_json_dash_prints_only_json_with_a_c_solver(files):
    # a process: HiGHS writes on file descriptor 1, which only a process of its own shows as it is
    argv = ["solve", f"{REPO}/examples/tasks_placement.yaml", "--mechanism", "drf", "--solver", "highs"]
    p = fairalloc([*argv, "--json", "-"], files)
    assert p.returncode == 0, p.stderr
    json.loads(p.stdout)
    assert p.stderr.strip(), "the human-readable output moves to stderr"


def test_list_and_replay_do_not_load_hypothesis(files):
    code = ("import sys\nfrom fairalloc.cli import main\n"
            f"main(['check', '--list', '-q'])\nmain(['check', '--replay', {str(files / 'empty.json')!r}])\n"
            "assert 'hypothesis' not in sys.modules, 'hypothesis was imported'\nprint('ok')\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert p.stdout.strip() == "ok", p.stderr
