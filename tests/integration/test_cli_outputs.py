"""The output-folder rule and the output formats every command shares (fairalloc.cli.conventions, issue 32).

The rule: a non-empty folder fairalloc did not write is refused (even with --force); an earlier output of
fairalloc is kept unless --force, which replaces only what that run wrote; without --out, compare
writes a new run folder each time; a resumable job resumes in its own folder only. Each case below is
the scenario of the issue (a second compare deleting the first, a user's notes.txt deleted, a
``reproduce --cells`` report over the full one) or one of the rule's branches."""

from __future__ import annotations

import argparse
import json

import pandas as pd
import pytest

from fairalloc.cli import main
from fairalloc.cli.conventions import (MARKER, add_format_option, add_output_options, exact_number, format_table,
                                       output_folder, read_marker, resumable_folder, write_table)
from fairalloc.errors import InvalidInstanceError


def _args(*argv: str, runs: str | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    add_output_options(p, runs=runs)
    add_format_option(p)
    p.add_argument("-q", "--quiet", action="store_true")
    return p.parse_args(list(argv))


def _write(out, args, names, command="demo"):
    with output_folder(out, args, command) as tmp:
        for n in names:
            (tmp / n).write_text(n)


def test_an_earlier_output_is_kept_unless_force_which_keeps_the_users_files(tmp_path, capsys):
    out = tmp_path / "res"
    _write(out, _args(), ["a.csv", "b.png"])
    assert read_marker(out)["written"] == ["a.csv", "b.png"]
    (out / "notes.txt").write_text("mine")
    with pytest.raises(InvalidInstanceError, match="holds an earlier output of fairalloc demo"):
        _write(out, _args(), ["c.csv"])
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "a.csv", "b.png", "notes.txt"]
    _write(out, _args("--force"), ["c.csv"])
    # the earlier run's a.csv and b.png are gone (no stale files), the user's notes.txt stays
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "c.csv", "notes.txt"]
    assert (out / "notes.txt").read_text() == "mine" and read_marker(out)["written"] == ["c.csv"]
    assert "kept notes.txt" in capsys.readouterr().out


def test_a_folder_fairalloc_did_not_write_is_refused_even_with_force(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("keep")
    for argv in ((), ("--force",)):
        with pytest.raises(InvalidInstanceError, match="did not write"):
            _write(mine, _args(*argv), ["a.csv"])
    assert [p.name for p in mine.iterdir()] == ["thesis.tex"]
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(InvalidInstanceError, match="exists and is not a folder"):
        _write(f, _args("--force"), ["a.csv"])


def test_an_older_marker_and_older_outputs(tmp_path):
    # a marker of an older fairalloc (one line of text) does not list what it wrote: `ours` does
    out = tmp_path / "old"
    out.mkdir()
    (out / MARKER).write_text("written by fairalloc compare\n")
    (out / "compare.csv").write_text("old")
    (out / "notes.txt").write_text("mine")
    with output_folder(out, _args("--force"), "compare", ours=("compare.csv", "summary.csv")) as tmp:
        (tmp / "summary.csv").write_text("new")
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "notes.txt", "summary.csv"]
    # an output of a version before the marker: a folder holding only the names the command writes
    pre = tmp_path / "pre"
    pre.mkdir()
    (pre / "compare.csv").write_text("old")
    with output_folder(pre, _args("--force"), "compare", ours=("compare.csv",)) as tmp:
        (tmp / "compare.csv").write_text("new")
    assert (pre / "compare.csv").read_text() == "new"


def test_without_out_every_run_gets_a_new_folder_and_latest_links_the_newest(tmp_path):
    root = tmp_path / "out" / "demo"
    firsts = []
    for k in range(3):
        args = _args(runs=str(root))
        _write(None, args, [f"run{k}.csv"])
        firsts.append(args.out)
    runs = sorted(p for p in root.iterdir() if p.name != "latest")
    assert [str(p) for p in runs] == firsts and len(set(firsts)) == 3       # same second: -2, -3 suffixes
    assert [next(p.glob("run*.csv")).name for p in runs] == ["run0.csv", "run1.csv", "run2.csv"]
    assert (root / "latest").resolve() == runs[-1].resolve()


def test_an_error_or_interrupt_leaves_the_earlier_output(tmp_path):
    out = tmp_path / "res"
    _write(out, _args(), ["a.csv"])
    with pytest.raises(KeyboardInterrupt):
        with output_folder(out, _args("--force"), "demo") as tmp:
            (tmp / "half.csv").write_text("x")
            raise KeyboardInterrupt
    assert sorted(p.name for p in tmp_path.iterdir()) == ["res"]             # no partial folder left
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "a.csv"]


def test_a_resumable_job_resumes_only_its_own_folder(tmp_path, capsys):
    out = tmp_path / "rep"
    with resumable_folder(out, _args(), "reproduce", "buc --scale small") as f:
        (f / "sweep").mkdir()
        (f / "report.md").write_text("full")
    (out / "notes.txt").write_text("mine")
    with resumable_folder(out, _args(), "reproduce", "buc --scale small") as f:       # the same job: resumed
        assert (f / "report.md").read_text() == "full"
    with pytest.raises(InvalidInstanceError, match=r"holds an earlier output of fairalloc reproduce \(buc --scale small\)"):
        with resumable_folder(out, _args(), "reproduce", "buc --scale small --cells 'k_p=600'"):
            raise AssertionError("the body of a refused job ran")
    assert (out / "report.md").read_text() == "full"
    with resumable_folder(out, _args("--force"), "reproduce", "buc --scale paper") as f:
        assert sorted(p.name for p in f.iterdir()) == [MARKER, "notes.txt"]    # the other job's entries went
        (f / "report.md").write_text("paper")
    assert read_marker(out)["job"] == "buc --scale paper" and read_marker(out)["written"] == ["report.md"]


def test_reproduce_cells_and_tables_from_get_their_own_folders(tmp_path, monkeypatch, capsys):
    from fairalloc.cli.reproduce import _default_out

    ns = argparse.Namespace
    full = _default_out(ns(name="sdrf-fig4", scale="paper", cells=None, tables_from=None))
    part = _default_out(ns(name="sdrf-fig4", scale="paper", cells=["pool_fraction=0.5"], tables_from=None))
    other = _default_out(ns(name="sdrf-fig4", scale="paper", cells=["pool_fraction=0.6"], tables_from=None))
    fig6 = _default_out(ns(name="sdrf-fig6", scale="paper", cells=None, tables_from=str(full)))
    assert str(full) == "out/reproduce/sdrf-fig4-paper"
    assert len({full, part, other, fig6}) == 4 and str(part).startswith("out/reproduce/sdrf-fig4-paper-cells-")
    assert str(fig6) == "out/reproduce/sdrf-fig6-paper-from-sdrf-fig4-paper"
    # another job into a reproduction's folder is refused before anything runs
    monkeypatch.chdir(tmp_path)
    with resumable_folder(full, _args(), "reproduce", "sdrf-fig4 --scale paper") as f:
        (f / "report.md").write_text("full")
    assert main(["reproduce", "sdrf-fig4", "--scale", "paper", "--cells", "pool_fraction=0.5", "--out", str(full)]) == 2
    assert "holds an earlier output of fairalloc reproduce (sdrf-fig4 --scale paper)" in capsys.readouterr().err
    assert (full / "report.md").read_text() == "full"


def test_formats_write_the_same_rows(tmp_path):
    df = pd.DataFrame({"delta": [0.999999, 0.9999999, float("nan")], "wait": [1 / 3, 2.0, 5.5], "name": list("abc")})
    paths = write_table(df, tmp_path / "t", ["csv", "parquet", "json"])
    assert [p.name for p in paths] == ["t.csv", "t.parquet", "t.json"]
    rows = json.loads((tmp_path / "t.json").read_text())
    assert rows[0] == {"delta": 0.999999, "wait": 1 / 3, "name": "a"} and rows[2]["delta"] is None  # exact floats
    for back in (pd.read_csv(paths[0]), pd.read_parquet(paths[1]), pd.read_json(paths[2], precise_float=True)):
        pd.testing.assert_frame_equal(back, df, check_exact=True)
    p = argparse.ArgumentParser()
    add_format_option(p, figures=False)
    assert p.parse_args(["--format", "json,parquet"]).format.tables == ("json", "parquet")
    with pytest.raises(SystemExit):
        p.parse_args(["--format", "png"])                                  # no figures on this command


def test_terminal_tables_print_parameters_exactly():
    # delta = 1 - 10^-6 and 1 - 10^-7 (the SDRF grid) print as typed, not as 1; a measured mean to 4 digits
    df = pd.DataFrame({"delta": [0.999999, 0.9999999, 0.9], "mean_wait": [1 / 3, 20 / 3, 1e5 / 7]})
    lines = format_table(df).splitlines()
    assert lines[1].split() == ["0", "0.999999", "0.3333"]
    assert lines[2].split() == ["1", "0.9999999", "6.667"]
    assert lines[3].split() == ["2", "0.9", "1.429e+04"]
    assert exact_number(1 - 1e-6) == "0.999999" and exact_number(3.0) == "3"


def test_progress_bars_only_on_a_terminal_unless_asked(monkeypatch):
    from fairalloc.cli import build_parser
    from fairalloc.cli.conventions import show_progress

    class Stream:
        def __init__(self, tty):
            self.tty = tty

        def isatty(self):
            return self.tty

    parse = build_parser().parse_args
    monkeypatch.setattr("sys.stderr", Stream(False))                    # a piped log
    assert not show_progress(parse(["compare"]))
    assert show_progress(parse(["compare", "--progress"]))
    monkeypatch.setattr("sys.stderr", Stream(True))                     # a terminal
    assert show_progress(parse(["compare"]))
    assert not show_progress(parse(["compare", "--no-progress"]))
    assert not show_progress(parse(["compare", "-q", "--progress"]))    # -q: nothing but errors and warnings


def test_an_interrupted_resumable_run_still_owns_its_partial_files(tmp_path):
    out = tmp_path / "rep"
    with resumable_folder(out, _args(), "reproduce", "buc --scale small") as f:
        (f / "report.md").write_text("small")
    (out / "notes.txt").write_text("mine")                              # added by the user after a finished run
    with pytest.raises(KeyboardInterrupt):
        with resumable_folder(out, _args(), "reproduce", "buc --scale small") as f:
            (f / "sweep").mkdir()                                       # cells written before Ctrl-C
            raise KeyboardInterrupt
    with resumable_folder(out, _args(), "reproduce", "buc --scale small") as f:   # resumed
        (f / "report.md").write_text("full")
    # the interrupted run's sweep/ is the job's; the user's notes.txt, found before it began, is not
    assert read_marker(out)["written"] == ["report.md", "sweep"] and read_marker(out)["kept"] == ["notes.txt"]
    with resumable_folder(out, _args("--force"), "reproduce", "tvtsf --scale small") as f:
        assert sorted(p.name for p in f.iterdir()) == [MARKER, "notes.txt"]


# -- the common options before or after the subcommand's name -----------------------------------------

def test_no_subcommand_overrides_a_common_option_given_before_its_name():
    # every subparser (plugins and learn's own subcommands included) leaves the common options' defaults
    # to the top parser: a default of its own would overwrite `fairalloc -q sweep` with quiet=False
    from fairalloc.cli import build_parser
    from fairalloc.cli.conventions import check_common_defaults

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    assert {"solve", "simulate", "compare", "sweep", "results", "reproduce", "learn", "check"} <= set(commands)
    assert check_common_defaults(parser) == []
    bad = argparse.ArgumentParser()
    bad.add_subparsers().add_parser("x").add_argument("-q", "--quiet", action="store_true")
    assert check_common_defaults(bad) == ["x -q/--quiet"]


def test_verbose_counts_on_both_sides_of_the_name():
    from fairalloc.cli import build_parser
    from fairalloc.cli.conventions import merge_common_options

    parse = build_parser().parse_args
    for argv, want in ((["solve"], 0), (["-v", "solve"], 1), (["solve", "-v"], 1), (["-v", "solve", "-vv"], 3),
                       (["-vv", "learn", "states", "-v"], 3)):
        assert merge_common_options(parse(argv)).verbose == want, argv
    args = parse(["-q", "--json", "-", "--debug", "--no-progress", "results", "d"])
    assert (args.quiet, args.json, args.debug, args.no_progress) == (True, "-", True, True)


@pytest.mark.parametrize("before", [True, False])
def test_global_options_before_or_after_the_command(tmp_path, capsys, monkeypatch, before):
    # `fairalloc -v sweep ...` was "unrecognized arguments: -v"; `fairalloc -q sweep` printed its summary
    spec = tmp_path / "tiny.yaml"
    spec.write_text("name: tiny\nworkload: {generator: lublin, n_jobs: 20, nodes: 8, rng: 0}\n"
                    "capacity: {processors: 8}\npolicies: {fcfs: {}}\nseeds: 1\ntables: [summary]\n")
    monkeypatch.chdir(tmp_path)

    def run(opts, *argv):
        return main([*opts, *argv] if before else [*argv, *opts])

    assert run(["-v"], "sweep", str(spec), "--out", "a", "--workers", "0", "--no-progress") == 0
    capsys.readouterr()
    assert run(["-q"], "sweep", str(spec), "--out", "b", "--workers", "0") == 0
    assert capsys.readouterr().out == ""
    assert run(["-q"], "solve", "--example", "drf-paper") == 0
    assert capsys.readouterr().out == ""
    assert run(["--json", "-"], "results", "b", "--table", "summary") == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 1 and rows[0]["policy"] == "fcfs"


# -- the rule in check and learn; formats in check, learn and reproduce ---------------------------------

def test_check_out_follows_the_rule_and_format(tmp_path, capsys):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "report.md").write_text("my own report")
    cell = ["check", "--mechanism", "drf", "--axiom", "rm", "--examples", "20", "--no-progress", "-q"]
    assert main([*cell, "--out", str(mine)]) == 2                  # it wrote report.md over the user's
    assert "did not write" in capsys.readouterr().err and (mine / "report.md").read_text() == "my own report"
    out = tmp_path / "c"
    assert main([*cell, "--out", str(out), "--format", "svg,json"]) == 0
    assert {"report.md", "results.json", "heatmap.svg", "summary.json", "witnesses"} <= {p.name for p in out.iterdir()}
    rows = json.loads((out / "summary.json").read_text())
    assert [(r["mechanism"], r["axiom"], r["status"]) for r in rows] == [("drf", "rm", "agrees")]
    (out / "notes.txt").write_text("mine")
    assert main([*cell, "--out", str(out)]) == 2                   # an earlier output: --force to replace
    assert "--force" in capsys.readouterr().err
    assert main([*cell, "--out", str(out), "--force"]) == 0
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "heatmap.png", "notes.txt", "report.md",
                                                     "results.json", "witnesses"]


def test_check_all_selection_never_writes_over_the_whole_tables_report(tmp_path, capsys, monkeypatch):
    from proofs_check.cli import _default_all_out

    ns = argparse.Namespace
    assert str(_default_all_out(ns(axiom=None, variant=None))) == "out/check"
    assert str(_default_all_out(ns(axiom="si", variant="weighted"))) == "out/check-si-weighted"
    full = tmp_path / "check"
    with resumable_folder(full, _args(), "check", "check --all") as f:
        (f / "report.md").write_text("every cell")
    argv = ["check", "--all", "--axiom", "si", "--examples", "2", "--f-examples", "2", "--no-progress", "--out",
            str(full)]
    assert main(argv) == 2                                          # refused before any search
    assert "holds an earlier output of fairalloc check (check --all)" in capsys.readouterr().err
    assert (full / "report.md").read_text() == "every cell"


def test_learn_states_follows_the_rule_and_format(tmp_path, capsys):
    # learn's help said an earlier output "is replaced", but it was refused, naming a --force it lacked
    out = tmp_path / "st"
    argv = ["learn", "states", "--states", "3", "--started", "2", "--queued", "4", "--processors", "64", "-q",
            "--out", str(out)]
    assert main(argv) == 0
    assert main(argv) == 2 and "--force" in capsys.readouterr().err
    assert main([*argv, "--force", "--format", "parquet,svg"]) == 0
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "per_state.parquet", "states.parquet", "states.svg"]
    assert len(pd.read_parquet(out / "per_state.parquet")) == 3


def test_reproduction_reports_write_the_asked_formats_beside_their_csv(tmp_path):
    from fairalloc.experiments.reproductions import learned, load_spec
    from fairalloc.formats import Formats

    # one trace of the learned-priorities table (the columns of test_reproduction_metrics._learned_runs)
    runs = pd.DataFrame([{"kind": "typeless", "seed": 0, "policy": p, "avebsld": v, "offered_load": 0.9,
                          "jobs_per_day": 100.0, "span_days": 30.0, "jobs": 3000}
                         for p, v in zip(["fcfs", "wfp3", "unicef", "f1", "f2"], [300.0, 100.0, 200.0, 50.0, 80.0])])
    learned.report({"runs": runs}, tmp_path, scale="small", spec=load_spec("learned-priorities"),
                   formats=Formats(tables=("parquet",), figures=("svg", "pdf")))
    names = {p.name for p in tmp_path.iterdir()}
    assert {"gains.csv", "gains.parquet", "avebsld.csv", "avebsld.parquet", "avebsld.svg", "avebsld.pdf"} <= names
    assert "avebsld.png" not in names and "![avebsld.svg](avebsld.svg)" in (tmp_path / "report.md").read_text()


def test_a_sweep_folder_takes_only_a_sweep_of_the_same_spec(tmp_path, capsys):
    # a sweep folder is resumable by design: its rule is "empty, or a sweep store of the same spec name"
    text = ("name: NAME\nworkload: {generator: lublin, n_jobs: 20, nodes: 8, rng: 0}\ncapacity: {processors: 8}\n"
            "policies: {fcfs: {}}\nseeds: 1\ntables: [summary]\n")
    for name in ("one", "two"):
        (tmp_path / f"{name}.yaml").write_text(text.replace("NAME", name))
    out = tmp_path / "sw"
    run = ["--workers", "0", "-q", "--out", str(out)]
    assert main(["sweep", str(tmp_path / "one.yaml"), *run]) == 0
    before = sorted(p.name for p in out.rglob("*"))
    assert main(["sweep", str(tmp_path / "one.yaml"), *run]) == 0          # the same spec: resumed
    assert main(["sweep", str(tmp_path / "two.yaml"), *run]) == 2          # another spec's store
    assert "holds the sweep 'one', not 'two'; use another folder" in capsys.readouterr().err
    assert sorted(p.name for p in out.rglob("*")) == before
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    assert main(["sweep", str(tmp_path / "one.yaml"), "--workers", "0", "-q", "--out", str(mine)]) == 2
    assert "not a sweep folder" in capsys.readouterr().err and [p.name for p in mine.iterdir()] == ["notes.txt"]
    # without -q: the refusal comes before the header, which would announce a run that never starts
    assert main(["sweep", str(tmp_path / "one.yaml"), "--workers", "0", "--out", str(mine)]) == 2
    err = capsys.readouterr().err
    assert "not a sweep folder" in err and "cells ->" not in err
