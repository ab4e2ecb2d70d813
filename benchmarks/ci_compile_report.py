"""Where the CI's time goes when numba's cache is cold: every compilation, per process, in CPU seconds.

CI starts each leg with an empty numba cache, and ``pytest -n auto`` runs two xdist workers on CI's two
cores; a function compiled in both workers costs its compile twice (numba's on-disk cache helps only a
process that starts compiling after the other saved). This script runs a command on a source tree with
the tree's numba caches removed (``*.nbi``/``*.nbc`` under its ``__pycache__`` folders and
``fairalloc/__pycache__/jit-sources.json``, see ``fairalloc/_jit_cache.py``) and records every
compilation of every Python process it starts (pytest's workers, Dask workers, subprocesses) with
numba's documented event API (``numba.core.event``, ``"numba:compile"``): the dispatcher's qualified
name, the argument types, and the CPU time of the compiling thread (``time.thread_time``), inclusive and
exclusive of the callees compiled inside it. The recorder is ``benchmarks/_compile_log/sitecustomize.py``,
put on ``PYTHONPATH`` with ``FAIRALLOC_COMPILE_LOG`` set for the measured command only.

Printed: the command's wall and CPU seconds (``/usr/bin/time -v``: user + system of it and its children),
then a table, heaviest first: function, signature, exclusive CPU seconds summed over processes, the
number of processes that compiled it, and the duplicated CPU (the sum less the cheapest single compile:
what one shared compile would have saved); then the same per function (all signatures together).

    python benchmarks/ci_compile_report.py pytest                 # cold `pytest -n 2` of this tree
    python benchmarks/ci_compile_report.py pytest -- tests/unit/sim -x
    python benchmarks/ci_compile_report.py compare                # cold `fairalloc compare`
    python benchmarks/ci_compile_report.py warmup -- queues       # cold groups of tests/_compile_warmup.py
    python benchmarks/ci_compile_report.py warmup --parallel -- queues plain   # one process per group, as conftest
    python benchmarks/ci_compile_report.py table LOGDIR           # the table of an earlier run
    python benchmarks/ci_compile_report.py pytest --warm          # keep the caches (a warm run)

Figures are in ``benchmarks/RESULTS.md`` ("CI time").
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOOK_DIR = Path(__file__).resolve().parent / "_compile_log"
ENV = "FAIRALLOC_COMPILE_LOG"

# ---- the recorder (runs inside the measured processes) --------------------------------------------------

_local = threading.local()


def _log_path() -> str:
    tag = os.environ.get("PYTEST_XDIST_WORKER") or Path(sys.argv[0] or "python").name or "python"
    tag = re.sub(r"[^A-Za-z0-9_.-]", "_", tag)
    return os.path.join(os.environ[ENV], f"{tag}-{os.getpid()}.jsonl")


def install() -> None:
    """Register the ``numba:compile`` listener that appends one JSON line per compilation to
    ``$FAIRALLOC_COMPILE_LOG/<worker>-<pid>.jsonl``."""
    from numba.core import event

    path = _log_path()
    lock = threading.Lock()

    class Recorder(event.Listener):
        def on_start(self, ev):
            stack = getattr(_local, "stack", None)
            if stack is None:
                stack = _local.stack = []
            stack.append([time.thread_time(), time.perf_counter(), 0.0])

        def on_end(self, ev):
            stack = _local.stack
            t0, w0, children = stack.pop()
            cpu = time.thread_time() - t0
            if stack:
                stack[-1][2] += cpu
            data = ev.data or {}
            disp = data.get("dispatcher")
            py = getattr(disp, "py_func", None)
            name = f"{getattr(py, '__module__', '?')}.{getattr(py, '__qualname__', repr(disp))}"
            rec = {"fn": name, "sig": "(" + ", ".join(str(a) for a in data.get("args", ())) + ")",
                   "cpu": round(cpu, 4), "self": round(cpu - children, 4),
                   "wall": round(time.perf_counter() - w0, 4), "depth": len(stack),
                   # (numba 0.68's Event.is_failed answers the opposite: `_exc_details is None`)
                   "failed": getattr(ev, "_exc_details", None) is not None}
            with lock, open(path, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(rec) + "\n")

    event.register("numba:compile", Recorder())


def install_on_numba_import() -> None:
    """Install the recorder as soon as the process imports numba (numba is not imported before)."""
    if "numba.core.event" in sys.modules:
        install()
        return
    import importlib.abc
    import importlib.machinery

    class Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name != "numba.core.event":
                return None
            sys.meta_path.remove(self)
            spec = importlib.machinery.PathFinder.find_spec(name, path, target)
            if spec is None or spec.loader is None:
                return spec
            real = spec.loader.exec_module

            def exec_module(module):
                real(module)
                try:
                    install()
                except Exception as exc:        # never break the watched process
                    print(f"ci_compile_report: recorder not installed: {exc!r}", file=sys.stderr)

            spec.loader.exec_module = exec_module
            return spec

    sys.meta_path.insert(0, Finder())


# ---- the runner and the table --------------------------------------------------------------------------

def clear_caches(tree: Path) -> int:
    """Remove numba's cache files under ``tree``'s ``__pycache__`` folders and fairalloc's stamp; how many."""
    n = 0
    for p in list(tree.rglob("__pycache__/*.nb[ic]")):
        if ".venv" in p.parts or "site-packages" in p.parts:
            continue
        p.unlink()
        n += 1
    stamp = tree / "fairalloc" / "__pycache__" / "jit-sources.json"
    if stamp.exists():
        stamp.unlink()
        n += 1
    return n


def run(cmd: list[str], tree: Path, logdir: Path, warm: bool) -> dict:
    if not warm:
        print(f"removed {clear_caches(tree)} cache files under {tree}", flush=True)
    logdir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env[ENV] = str(logdir)
    env["PYTHONPATH"] = os.pathsep.join([str(tree), str(HOOK_DIR)] + [p for p in [env.get("PYTHONPATH")] if p])
    tfile = logdir / "time-v.txt"
    print("+", " ".join(cmd), f"(cwd {tree})", flush=True)
    t0 = time.perf_counter()
    rc = subprocess.call(["/usr/bin/time", "-v", "-o", str(tfile)] + cmd, cwd=tree, env=env)
    wall = time.perf_counter() - t0
    text = tfile.read_text() if tfile.exists() else ""

    def field(label):
        m = re.search(re.escape(label) + r":\s*([0-9.]+)", text)
        return float(m.group(1)) if m else float("nan")

    res = {"rc": rc, "wall": wall, "user": field("User time (seconds)"), "sys": field("System time (seconds)"),
           "maxrss_mb": field("Maximum resident set size (kbytes)") / 1024}
    (logdir / "run.json").write_text(json.dumps(res))
    return res


def load(logdir: Path) -> list[dict]:
    out = []
    for f in sorted(logdir.glob("*.jsonl")):
        for line in f.read_text().splitlines():
            try:
                r = json.loads(line)
            except ValueError:
                continue
            r["proc"] = f.stem
            out.append(r)
    return out


def table(recs: list[dict], top: int = 40) -> str:
    lines = []
    total = sum(r["self"] for r in recs)
    procs = sorted({r["proc"] for r in recs})
    per_proc = collections.Counter()
    for r in recs:
        per_proc[r["proc"]] += r["self"]
    failed = [r for r in recs if r.get("failed")]
    if failed:
        lines.append(f"{len(failed)} of them raised (numba then retried other typings): "
                     f"{sum(r['self'] for r in failed):.1f} CPU s")
    lines.append(f"{len(recs)} compilations in {len(procs)} processes, {total:.1f} CPU s of compile (exclusive); "
                 "per process: " + ", ".join(f"{p} {s:.1f}" for p, s in per_proc.most_common()))

    def groups(key):
        g = collections.defaultdict(list)
        for r in recs:
            g[key(r)].append(r)
        rows = []
        for k, rs in g.items():
            cpu = sum(r["self"] for r in rs)
            by_proc = collections.defaultdict(float)
            for r in rs:
                by_proc[r["proc"]] += r["self"]
            dup = cpu - min(by_proc.values()) if len(by_proc) > 1 else 0.0
            rows.append((cpu, k, len(rs), len(by_proc), dup))
        rows.sort(key=lambda x: -x[0])
        return rows

    sig_rows = groups(lambda r: (r["fn"], r["sig"]))
    dup_total = sum(r[4] for r in sig_rows)
    lines.append(f"duplicated (compiled in more than one process, less one compile each): {dup_total:.1f} CPU s")
    lines.append("")
    lines.append(f"| CPU s | procs | function | signature |")
    lines.append("|---:|---:|---|---|")
    for cpu, (fn, sig), n, np_, dup in sig_rows[:top]:
        s = sig if len(sig) <= 110 else sig[:107] + "..."
        lines.append(f"| {cpu:.1f} | {np_} | `{fn.removeprefix('fairalloc.')}` | `{s}` |")
    lines.append("")
    lines.append("| CPU s | compiles | procs | signatures | function |")
    lines.append("|---:|---:|---:|---:|---|")
    fn_groups = collections.defaultdict(list)
    for r in recs:
        fn_groups[r["fn"]].append(r)
    fn_rows = sorted(((sum(r["self"] for r in rs), fn, len(rs), len({r["proc"] for r in rs}),
                       len({r["sig"] for r in rs})) for fn, rs in fn_groups.items()), key=lambda x: -x[0])
    for cpu, fn, n, np_, ns in fn_rows[:top]:
        lines.append(f"| {cpu:.1f} | {n} | {np_} | {ns} | `{fn.removeprefix('fairalloc.')}` |")
    lines.append("")
    lines.append("Functions compiled for more than one signature (CPU s, then where the signatures differ):")
    for cpu, fn, n, np_, ns in fn_rows:
        if ns > 1 and cpu >= 0.5:
            lines.append(f"- {cpu:.1f} `{fn.removeprefix('fairalloc.')}`: " + " / ".join(_differ(sorted({r["sig"] for r in fn_groups[fn]}))))
    return "\n".join(lines)


def _differ(sigs: list[str]) -> list[str]:
    """Each signature's part between the longest common prefix and suffix (comma-separated fields)."""
    split = [s.split(", ") for s in sigs]
    pre = 0
    while all(len(x) > pre for x in split) and len({x[pre] for x in split}) == 1:
        pre += 1
    suf = 0
    while all(len(x) > pre + suf for x in split) and len({x[-1 - suf] for x in split}) == 1:
        suf += 1
    return [f"[{pre}:] " + ", ".join(x[pre:len(x) - suf])[:90] for x in split]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog="Arguments after -- go to the measured command (pytest, fairalloc compare, or the "
                                        "warm-up's group names).")
    ap.add_argument("what", choices=["pytest", "compare", "warmup", "table"])
    ap.add_argument("logdir", nargs="?", help="table: the folder of an earlier run; else where to write (a new temp folder)")
    ap.add_argument("--tree", type=Path, default=ROOT, help="the source tree to run (default: this checkout)")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("-n", default="2", help="pytest's -n (default 2, CI's cores)")
    ap.add_argument("--warm", action="store_true", help="keep the numba caches")
    ap.add_argument("--parallel", action="store_true",
                    help="warmup: one process per group, all started together (as tests/conftest.py runs them on "
                         "as many xdist workers); each prints its group's wall and CPU seconds last")
    ap.add_argument("--top", type=int, default=40)
    argv = list(sys.argv[1:] if argv is None else argv)
    rest = argv[argv.index("--") + 1:] if "--" in argv else []
    a = ap.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    if a.what == "table":
        logdir = Path(a.logdir)
        if (logdir / "run.json").exists():
            print(json.loads((logdir / "run.json").read_text()))
        print(table(load(logdir), a.top))
        return 0
    logdir = Path(a.logdir) if a.logdir else Path(tempfile.mkdtemp(prefix=f"compile-{a.what}-"))
    if a.what == "pytest":
        cmd = [a.python, "-m", "pytest", "-n", a.n, "-p", "no:cacheprovider", "-q"] + rest
    elif a.what == "warmup":
        script = str(a.tree.resolve() / "tests" / "_compile_warmup.py")
        cmd = [a.python, script] + (rest or ["queues"])
        if a.parallel:
            cmd = ["sh", "-c", " ".join(f"{shlex.quote(a.python)} {shlex.quote(script)} {shlex.quote(g)} &"
                                        for g in (rest or ["queues"])) + " wait"]
    else:
        out = Path(tempfile.mkdtemp(prefix="compile-compare-out-"))
        cmd = [a.python, "-c", "import sys; from fairalloc.cli import main; sys.exit(main())", "compare",
               "--out", str(out)] + rest
    res = run(cmd, a.tree.resolve(), logdir, a.warm)
    print(f"\nexit {res['rc']}; wall {res['wall']:.1f} s; CPU {res['user'] + res['sys']:.1f} s "
          f"(user {res['user']:.1f} + sys {res['sys']:.1f}); max RSS {res['maxrss_mb']:.0f} MB; "
          f"load {open('/proc/loadavg').read().split()[0]}; log {logdir}")
    print(table(load(logdir), a.top))
    if a.what == "compare":
        shutil.rmtree(out, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
