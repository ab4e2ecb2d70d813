"""Run a sweep's cells on ``dask.distributed`` and keep their results (:mod:`.store`).

By default the sweep starts a :class:`distributed.LocalCluster` with one single-threaded worker
process per core (``workers=N`` for another count) and closes it at the end; ``scheduler=ADDRESS``
runs the same sweep on an existing cluster instead (start one with ``dask scheduler`` on one
machine and ``dask worker ADDRESS`` on each machine that has fairalloc installed, and any data the
spec reads at the same path). The process that calls :func:`run_sweep` writes every file, so the
workers need no shared folder. ``workers=0`` runs the cells one after the other in the calling
process (no Dask; for debugging a cell function with a debugger).

Restarting a sweep into the same folder skips the cells already done with the same parameters and
code, and reruns the others (failed, timed-out, lost and damaged ones included), saying which.

What can go wrong, and what the run says:

* a cell raises: status ``failed`` with its error; the others go on;
* a cell runs past the time limit (``time_limit=``, the spec's ``time_limit``): it is stopped,
  status ``timeout`` (:mod:`.worker`);
* the Dask cluster goes away (the scheduler killed, the network gone): the cells that were running
  are recorded as ``lost``, the run stops and says so; run it again to finish;
* Ctrl-C: the run stops quietly (the worker processes of a local cluster ignore the interrupt and
  are closed by the run), the cells finished so far are kept;
* a script that calls ``run_sweep(..., workers=N)`` at its top level without an
  ``if __name__ == "__main__":`` guard: refused at once, saying so (Dask's worker processes import
  the script, and each would start the sweep again).

Dask's own INFO messages are not shown unless fairalloc's logger is at INFO (``fairalloc -v``).
"""

from __future__ import annotations

import ast
import contextlib
import logging
import os
import signal
import sys
import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from ..errors import InvalidInstanceError
from .spec import MAX_CELLS, Cell, Spec
from .store import Store
from .worker import close_cell_process, execute_cell

__all__ = ["run_sweep", "SweepSummary", "SweepInterrupted"]

logger = logging.getLogger(__name__)


@dataclass
class SweepSummary:
    """What a call of :func:`run_sweep` did.

    Attributes
    ----------
    name : str
        The spec's name.
    out : Path
        The sweep's folder.
    total : int
        Cells in the spec.
    done : int
        Cells run and finished by this call.
    skipped : int
        Cells already done in ``out`` before this call, with the same parameters and code (reused).
    failed : list of dict
        Cells that raised (or whose worker process died): ``key``, ``label``, ``policy``, ``seed``,
        ``error``.
    timed_out : list of dict
        Cells stopped at the time limit (same fields).
    lost : list of dict
        Cells that were running when the Dask cluster went away (same fields).
    not_started : int
        Cells not submitted because the cluster went away.
    cluster_lost : str or None
        Why the run stopped early (the cluster's error), or None.
    repaired : list of dict
        Cells found damaged in ``out`` (``key``, ``problem``) and run again.
    retired : int
        Cells of an earlier spec or code moved to ``out/retired``.
    restored : int
        Cells of this spec taken back from ``out/retired`` (done by an earlier run of a spec that had
        them), counted in ``skipped``.
    code_changed : tuple of (str, str) or None
        (old, new) code fingerprint when fairalloc's (or the cell function's) code changed since the
        last run into ``out``: nothing computed before was reused.
    spec_changed : list of str
        Top-level keys of the spec that changed since the last run into ``out`` (cells with
        unchanged parameters were kept).
    time_limit : float or None
        The time limit per cell, seconds.

    Examples
    --------
    A sweep of one cell run here (``workers=0``) in a temporary folder, then again: the second
    call finds the cell done and skips it:

    >>> import tempfile
    >>> spec = {"name": "tiny", "workload": {"generator": "lublin", "n_jobs": 20, "nodes": 16,
    ...         "rng": "${seed}"}, "capacity": {"processors": 16}, "policies": ["fcfs"], "seeds": 1}
    >>> with tempfile.TemporaryDirectory() as d:
    ...     first = run_sweep(spec, d, workers=0, progress=False)
    ...     again = run_sweep(spec, d, workers=0, progress=False)
    >>> (first.total, first.done, first.skipped), (again.done, again.skipped, again.failed)
    ((1, 1, 0), (0, 1, []))
    """

    name: str
    out: Path
    total: int
    done: int = 0
    skipped: int = 0
    failed: list[dict[str, Any]] = field(default_factory=list)
    timed_out: list[dict[str, Any]] = field(default_factory=list)
    lost: list[dict[str, Any]] = field(default_factory=list)
    not_started: int = 0
    cluster_lost: str | None = None
    repaired: list[dict[str, str]] = field(default_factory=list)
    retired: int = 0
    restored: int = 0
    code_changed: tuple[str, str] | None = None
    spec_changed: list[str] = field(default_factory=list)
    time_limit: float | None = None

    @property
    def ok(self) -> bool:
        """Every cell of the spec is done."""
        return (not self.failed and not self.timed_out and not self.lost and self.cluster_lost is None
                and self.done + self.skipped == self.total)

    def __str__(self) -> str:
        counts = f"{self.done} done, {self.skipped} skipped (already done), {len(self.failed)} failed"
        if self.timed_out:
            counts += f", {len(self.timed_out)} timed out"
        if self.lost or self.cluster_lost:
            counts += f", {len(self.lost)} lost"
        lines = [f"sweep {self.name!r}: {self.total} cells: {counts}; results in {self.out}"]
        if self.code_changed:
            lines.append(f"  the code changed since the last run into this folder (code {self.code_changed[0]} -> "
                         f"{self.code_changed[1]}: fairalloc, the cell function or a numerical library): no "
                         "earlier cell was reused")
        elif self.skipped:
            lines.append(f"  {self.skipped} cells reused: done earlier with the same parameters and code")
        if self.spec_changed:
            lines.append(f"  the spec changed since the last run (at {', '.join(self.spec_changed)}): cells "
                         "with unchanged parameters were kept")
        if self.restored:
            lines.append(f"  {self.restored} of them taken back from {self.out / 'retired'} (done for an earlier "
                         "spec that had them)")
        if self.retired:
            lines.append(f"  {self.retired} cells of an earlier spec or code moved to {self.out / 'retired'} "
                         "(kept, not read)")
        for r in self.repaired:
            lines.append(f"  damaged, run again: cell {r['key']}: {r['problem']}")
        for f in self.failed:
            lines.append(f"  failed {f['key']} (label={f['label']}, seed={f['seed']}): {f['error']}")
        for f in self.timed_out:
            lines.append(f"  timed out {f['key']} (label={f['label']}, seed={f['seed']}): {f['error']}")
        if self.cluster_lost:
            lines.append(f"  the Dask cluster was lost ({self.cluster_lost}): {len(self.lost)} cells submitted "
                         f"but not finished are recorded as lost (not failed), {self.not_started} were not "
                         "submitted; run the sweep again to finish them")
        return "\n".join(lines)


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`run_sweep`; ``summary`` is what was done (the finished cells are kept)."""

    def __init__(self, summary: SweepSummary) -> None:
        super().__init__(f"interrupted after {summary.done} cells")
        self.summary = summary


# -- Dask set-up ----------------------------------------------------------------------------------

@contextlib.contextmanager
def _dask_logs(level: int | None = None) -> Iterator[None]:
    """Dask's loggers at WARNING (or ``level``) unless fairalloc's is at INFO (``-v``)."""
    import distributed  # noqa: F401 - its import sets its loggers' levels: do it before changing them

    logs = [logging.getLogger(n) for n in ("distributed", "distributed.client")]
    before = [log.level for log in logs]
    if level is not None:
        for log in logs:
            log.setLevel(level)
    elif not logging.getLogger("fairalloc").isEnabledFor(logging.INFO):
        logs[0].setLevel(logging.WARNING)
    try:
        yield
    finally:
        for log, lvl in zip(logs, before):
            log.setLevel(lvl)


@contextlib.contextmanager
def _quiet_children() -> Iterator[None]:
    """Start the local cluster's processes with SIGINT ignored (inherited through exec, and Python
    then installs no KeyboardInterrupt handler: Ctrl-C reaches the whole process group, and only the
    sweep should handle it) and Dask's logs at WARNING unless fairalloc's logger is at INFO (the
    worker processes read ``DASK_LOGGING__DISTRIBUTED`` when they import distributed)."""
    env_key = "DASK_LOGGING__DISTRIBUTED"
    env_before = os.environ.get(env_key)
    if env_before is None and not logging.getLogger("fairalloc").isEnabledFor(logging.INFO):
        os.environ[env_key] = "warning"
    main = threading.current_thread() is threading.main_thread()
    before = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    try:
        yield
    finally:
        if main:
            signal.signal(signal.SIGINT, before)
        if env_before is None:
            os.environ.pop(env_key, None)


def _main_guard_problem() -> str | None:
    """Why starting local worker processes here would fail, if it would: a worker process is importing
    the main script (and reached this call), or the call runs at the main script's top level outside
    ``if __name__ == "__main__":`` (each worker process would run it again)."""
    main = sys.modules.get("__main__")
    file = getattr(main, "__file__", None)
    if getattr(main, "__name__", None) == "__mp_main__":
        return (f"run_sweep was called while a worker process was starting: it imports your script "
                f"{file or ''} to start, and the script's top-level code calls run_sweep again. Put the call "
                "under `if __name__ == \"__main__\":`")
    if not file or not os.path.isfile(file):
        return None                                       # an interactive session, python -c
    mod_name = getattr(getattr(main, "__spec__", None), "name", None) or ""
    if mod_name == "__main__" or mod_name.endswith(".__main__") or Path(file).stem == "ipython":
        return None          # multiprocessing does not run a package's __main__ again (nor IPython's)
    import dask

    if dask.config.get("distributed.worker.multiprocessing-method", "spawn") == "fork":
        return None
    frame = sys._getframe(1)
    while frame is not None and not (frame.f_code.co_name == "<module>" and frame.f_globals is vars(main)):
        frame = frame.f_back
    if frame is None:
        return None                                       # not called from the script's top level
    try:
        tree = ast.parse(Path(file).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None
    line = frame.f_lineno
    for node in tree.body:
        if isinstance(node, ast.If) and _is_main_test(node.test) and node.lineno <= line <= node.end_lineno:
            return None
    return (f"run_sweep(..., workers=N) is called at the top level of {file} (line {line}) without an "
            "`if __name__ == \"__main__\":` guard: Dask's worker processes import that script to start, "
            "and each would start the sweep again (\"Nanny failed to start\"). Put the call under the guard, "
            "or use workers=0 to run the cells in this process")


def _is_main_test(test: ast.expr) -> bool:
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    consts = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return bool(names and consts)


def _client(workers: int | None, scheduler: Any):
    """(client, cluster or None): a LocalCluster unless ``scheduler`` names one."""
    from distributed import Client, LocalCluster

    if scheduler is not None:
        if isinstance(scheduler, Client):
            return scheduler, None
        try:
            return Client(scheduler), None
        except (OSError, TimeoutError, ValueError) as exc:
            raise InvalidInstanceError(f"scheduler={scheduler!r}: cannot reach a Dask scheduler there "
                                       f"({type(exc).__name__}: {exc})", argument="scheduler",
                                       value=scheduler) from None
    n = workers if workers is not None else (os.cpu_count() or 1)
    with _quiet_children():
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0",
                               silence_logs=logging.WARNING)
    return Client(cluster), cluster


def _is_cluster_loss(exc: BaseException, client: Any) -> bool:
    """Whether a future's error is the cluster going away rather than the cell failing."""
    import asyncio
    from concurrent.futures import CancelledError

    if isinstance(exc, (CancelledError, asyncio.CancelledError)):
        return True                                   # we cancel nothing: the scheduler did, or went away
    if type(exc).__name__ in ("CommClosedError", "StreamClosedError"):
        return True
    return getattr(client, "status", "running") not in ("running", "newly-created")


# -- the run --------------------------------------------------------------------------------------

def run_sweep(spec: Spec | str | Path | dict, out: str | Path, *, workers: int | None = None,
              scheduler: Any = None, progress: bool | Callable[[Cell, dict], None] = True,
              time_limit: float | None = None, max_cells: int | None = MAX_CELLS) -> SweepSummary:
    """Run every cell of ``spec`` not yet done in ``out``; write each as it finishes.

    Parameters
    ----------
    spec : Spec, dict or path of a YAML file
    out : str or Path
        The sweep's folder (layout in :mod:`fairalloc.experiments.store`); created, or holding a
        spec of the same name from an earlier (possibly killed) run: the cells already done with
        the same parameters and code are skipped, the others run.
    workers : int, optional
        Worker processes of the local cluster (default: one per core); 0 runs the cells here, one
        after the other, without Dask. A script that uses local worker processes must call
        ``run_sweep`` under ``if __name__ == "__main__":`` (module docstring).
    scheduler : str or distributed.Client, optional
        Address of an existing Dask scheduler (``tcp://host:8786``), or a client, instead of a
        local cluster. Not with ``workers``.
    progress : bool or callable
        A tqdm bar over cells (True), none (False), or a function ``progress(cell, outcome)``
        called after each cell is written (outcome: :func:`~.worker.execute_cell`'s dict).
    time_limit : float, optional
        Seconds each cell may run (default: the spec's ``time_limit``, else none); a cell still
        running then is stopped and recorded as ``timeout`` (:mod:`.worker`).
    max_cells : int or None, default MAX_CELLS
        Refuse a spec of more cells (None: no limit); see :data:`~fairalloc.experiments.spec.MAX_CELLS`.

    Returns
    -------
    SweepSummary

    Raises
    ------
    SpecError
        For a wrong spec, before anything runs.
    InvalidInstanceError
        ``out`` holds a sweep of another name, or is being written by another sweep; ``workers``
        and ``scheduler`` both given, or ``workers < 0``; a spec of more than ``max_cells`` cells; a
        script without a ``__main__`` guard.
    SweepInterrupted
        Ctrl-C (a ``KeyboardInterrupt`` carrying the summary so far).

    Examples
    --------
    Two policies on 30 Lublin jobs, run here (``workers=0``; ``workers=2`` would use a
    local Dask cluster) in a temporary folder; every cell writes one ``summary`` row and all 30 jobs
    of each finish:

    >>> import tempfile
    >>> from fairalloc.experiments import load
    >>> spec = Spec.from_dict({"name": "tiny", "workload": {"generator": "lublin", "n_jobs": 30,
    ...     "nodes": 16, "rng": "${seed}"}, "capacity": {"processors": 16},
    ...     "policies": ["fcfs", "easy"], "seeds": 1})
    >>> with tempfile.TemporaryDirectory() as d:
    ...     s = run_sweep(spec, d, workers=0, progress=False)
    ...     df = load(d, "summary").df()
    >>> s.ok, s.done
    (True, 2)
    >>> df[["policy", "seed", "finished"]].values.tolist()
    [['fcfs', 0, 30], ['easy', 0, 30]]
    """
    if workers is not None and scheduler is not None:
        raise InvalidInstanceError("give workers= (a local cluster) or scheduler= (an existing one), "
                                   "not both", argument="scheduler", value=scheduler)
    if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool) or workers < 0):
        raise InvalidInstanceError(f"workers={workers!r} must be an int >= 0", argument="workers",
                                   value=workers)
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))
                                   or not time_limit > 0):
        raise InvalidInstanceError(f"time_limit={time_limit!r} must be a number of seconds > 0",
                                   argument="time_limit", value=time_limit)
    if workers != 0 and scheduler is None:
        problem = _main_guard_problem()
        if problem:
            raise InvalidInstanceError(problem, argument="workers", value=workers)
    if not isinstance(spec, Spec):
        spec = (Spec.from_dict(spec, max_cells=max_cells) if isinstance(spec, dict)
                else Spec.from_yaml(spec, max_cells=max_cells))
    elif max_cells is not None and spec.n_cells > max_cells and "cells" not in vars(spec):
        raise InvalidInstanceError(f"spec {spec.name!r} has {spec.n_cells:,} cells, more than max_cells="
                                   f"{max_cells:,}; raise the limit (--max-cells) if you mean it",
                                   argument="max_cells", value=spec.n_cells)
    spec._scan()                            # two cells with equal parameters: refused before any file
    limit = float(time_limit) if time_limit is not None else spec.time_limit
    store = Store(out)
    try:
        report = store.open(spec, spec.iter_cells())
    except BaseException:
        store.close()
        raise
    summary = SweepSummary(name=spec.name, out=Path(out), total=report.n_cells, repaired=report.repaired,
                           retired=report.retired, restored=report.restored, code_changed=report.code_changed,
                           spec_changed=report.spec_changed, time_limit=limit)
    try:
        _run(spec, store, workers, scheduler, progress, summary, limit)
    except KeyboardInterrupt:
        raise SweepInterrupted(summary) from None
    finally:
        store.close()
        if workers == 0:
            close_cell_process()
    return summary


def _run(spec: Spec, store: Store, workers: int | None, scheduler: Any, progress: Any,
         summary: SweepSummary, limit: float | None) -> None:
    done = store.done_keys()             # after open(): intact cells of this spec only
    summary.skipped = len(done)
    todo = (c for c in spec.iter_cells() if c.key not in done)
    callback = progress if callable(progress) else None
    bar = None
    if progress is True:
        from tqdm.auto import tqdm
        bar = tqdm(total=summary.total, initial=summary.skipped, desc=spec.name, unit="cell")

    def finish(cell: Cell, outcome: dict[str, Any]) -> None:
        store.write(cell, outcome)
        status = outcome["status"]
        if status == "done":
            summary.done += 1
        else:
            row = {"key": cell.key, "label": cell.params["label"], "policy": cell.params["policy"],
                   "seed": cell.params["seed"], "error": outcome["error"]}
            {"timeout": summary.timed_out, "lost": summary.lost}.get(status, summary.failed).append(row)
            logger.info("cell %s (%s, seed %s) %s: %s", cell.key, cell.params["label"], cell.params["seed"],
                        status, outcome["error"])
        if bar is not None:
            bar.update(1)
        if callback is not None:
            callback(cell, outcome)

    try:
        if summary.skipped == summary.total:
            return
        if workers == 0:
            for cell in todo:
                finish(cell, execute_cell(cell, limit))
            return
        with _dask_logs():
            _run_on_dask(todo, workers, scheduler, finish, summary, limit)
    finally:
        if bar is not None:
            bar.close()


def _run_on_dask(todo: Iterator[Cell], workers: int | None, scheduler: Any,
                 finish: Callable[[Cell, dict], None], summary: SweepSummary, limit: float | None) -> None:
    """Submit the cells a window at a time (a sweep of many cells never sits whole in the scheduler)
    and write each as it finishes; stop at the first sign that the cluster is gone."""
    from distributed import as_completed

    client, cluster = _client(workers, scheduler)
    quiet_close = False
    try:
        run_id = uuid.uuid4().hex[:8]          # task names only: a restart never meets stale tasks
        try:
            threads = sum(client.nthreads().values())
        except Exception:  # noqa: BLE001 - the window is a throughput matter only
            threads = 0
        window = max(32, 4 * threads)
        inflight: dict[str, tuple[Any, Cell]] = {}
        pending = as_completed()

        def submit_more() -> None:
            while len(inflight) < window:
                cell = next(todo, None)
                if cell is None:
                    return
                fut = client.submit(execute_cell, cell, limit, key=f"cell-{cell.key}-{run_id}",
                                    priority=-cell.index, pure=False)
                inflight[fut.key] = (fut, cell)
                pending.add(fut)

        submit_more()
        for fut in pending:
            fut, cell = inflight.pop(fut.key)
            try:
                outcome = fut.result()
            except Exception as exc:  # noqa: BLE001 - the worker died (KilledWorker), or the cluster went away
                if _is_cluster_loss(exc, client):
                    quiet_close = True
                    _record_loss(exc, cell, inflight, todo, finish, summary)
                    return
                outcome = {"key": cell.key, "status": "failed", "tables": {}, "error":
                           f"{type(exc).__name__}: {exc}", "traceback": None, "worker": None}
            fut.release()
            finish(cell, outcome)
            submit_more()
    except BaseException:
        quiet_close = True
        raise
    finally:
        if quiet_close and cluster is not None:         # our workers: nothing to say while closing
            with contextlib.suppress(Exception):
                client.run(_silence_worker)
        with _dask_logs(logging.CRITICAL if quiet_close else None):
            if scheduler is None or not _is_client(scheduler):
                with contextlib.suppress(Exception):
                    client.close(timeout=10 if quiet_close else None)
            if cluster is not None:
                with contextlib.suppress(Exception):
                    cluster.close(timeout=10 if quiet_close else None)


def _silence_worker() -> None:
    logging.getLogger("distributed").setLevel(logging.CRITICAL)


def _record_loss(exc: BaseException, cell: Cell, inflight: dict, todo: Iterator[Cell],
                 finish: Callable[[Cell, dict], None], summary: SweepSummary) -> None:
    reason = getattr(exc, "reason", None) or type(exc).__name__
    msg = getattr(exc, "msg", None) or (str(exc).splitlines()[0] if str(exc) else "")
    summary.cluster_lost = f"{reason}: {msg}" if msg and msg != reason else reason
    error = f"the Dask cluster was lost while the cell ran ({summary.cluster_lost}); not a failure of the cell"
    for c in [cell] + [c for _, c in inflight.values()]:
        finish(c, {"key": c.key, "status": "lost", "tables": {}, "error": error, "traceback": None,
                   "worker": None})
    inflight.clear()
    summary.not_started = sum(1 for _ in todo)


def _is_client(obj: Any) -> bool:
    from distributed import Client
    return isinstance(obj, Client)
