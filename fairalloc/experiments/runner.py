"""Run a sweep's cells on ``dask.distributed`` and keep their results (:mod:`.store`).

By default the sweep starts a :class:`distributed.LocalCluster` with one single-threaded worker
process per core (``workers=N`` for another count) and closes it at the end; ``scheduler=ADDRESS``
runs the same sweep on an existing cluster instead (start one with ``dask scheduler`` on one
machine and ``dask worker ADDRESS`` on each machine that has fairalloc installed, and any data the
spec reads at the same path). The process that calls :func:`run_sweep` writes every file, so the
workers need no shared folder. ``workers=0`` runs the cells one after the other in the calling
process (no Dask; for debugging a cell function with a debugger).

Restarting a sweep into the same folder skips the cells already done and reruns the others
(failed ones included).
"""

from __future__ import annotations

import logging
import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..errors import InvalidInstanceError
from .spec import Cell, Spec
from .store import Store
from .worker import execute_cell

__all__ = ["run_sweep", "SweepSummary"]

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
        Cells already done in ``out`` before this call.
    failed : list of dict
        Cells that raised (or whose worker died): ``key``, ``label``, ``policy``, ``seed``, ``error``.
    spec_changed : list of str
        Top-level keys of the spec that changed since the last run into ``out`` (cells with
        unchanged parameters were kept).

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
    spec_changed: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Every cell of the spec is done."""
        return not self.failed and self.done + self.skipped == self.total

    def __str__(self) -> str:
        lines = [f"sweep {self.name!r}: {self.total} cells: {self.done} done, {self.skipped} skipped "
                 f"(already done), {len(self.failed)} failed; results in {self.out}"]
        if self.spec_changed:
            lines.append(f"  the spec changed since the last run (at {', '.join(self.spec_changed)}): cells "
                         "with unchanged parameters were kept")
        for f in self.failed:
            lines.append(f"  failed {f['key']} (label={f['label']}, seed={f['seed']}): {f['error']}")
        return "\n".join(lines)


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
    cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0")
    return Client(cluster), cluster


def run_sweep(spec: Spec | str | Path | dict, out: str | Path, *, workers: int | None = None,
              scheduler: Any = None, progress: bool | Callable[[Cell, dict], None] = True) -> SweepSummary:
    """Run every cell of ``spec`` not yet done in ``out``; write each as it finishes.

    Parameters
    ----------
    spec : Spec, dict or path of a YAML file
    out : str or Path
        The sweep's folder (layout in :mod:`fairalloc.experiments.store`); created, or holding a
        spec of the same name from an earlier (possibly killed) run: the cells already done with
        the same parameters are skipped, the others run.
    workers : int, optional
        Worker processes of the local cluster (default: one per core); 0 runs the cells here, one
        after the other, without Dask.
    scheduler : str or distributed.Client, optional
        Address of an existing Dask scheduler (``tcp://host:8786``), or a client, instead of a
        local cluster. Not with ``workers``.
    progress : bool or callable
        A tqdm bar over cells (True), none (False), or a function ``progress(cell, outcome)``
        called after each cell is written (outcome: :func:`~.worker.execute_cell`'s dict).

    Returns
    -------
    SweepSummary

    Raises
    ------
    SpecError
        For a wrong spec, before anything runs.
    InvalidInstanceError
        ``out`` holds a sweep of another name, or is being written by another sweep; ``workers``
        and ``scheduler`` both given, or ``workers < 0``.

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
    if not isinstance(spec, Spec):
        spec = Spec.from_dict(spec) if isinstance(spec, dict) else Spec.from_yaml(spec)
    cells = spec.cells()
    store = Store(out)
    changed = store.open(spec, cells)
    try:
        summary = _run(spec, cells, store, workers, scheduler, progress)
    finally:
        store.close()
    summary.spec_changed = changed
    return summary


def _run(spec: Spec, cells: list[Cell], store: Store, workers: int | None, scheduler: Any,
         progress: Any) -> SweepSummary:
    out = store.out
    done = store.done_keys()
    todo = [c for c in cells if c.key not in done]
    summary = SweepSummary(name=spec.name, out=Path(out), total=len(cells), skipped=len(cells) - len(todo))
    callback = progress if callable(progress) else None
    bar = None
    if progress is True:
        from tqdm.auto import tqdm
        bar = tqdm(total=len(cells), initial=summary.skipped, desc=spec.name, unit="cell")

    def finish(cell: Cell, outcome: dict[str, Any]) -> None:
        store.write(cell, outcome)
        if outcome["status"] == "done":
            summary.done += 1
        else:
            summary.failed.append({"key": cell.key, "label": cell.params["label"],
                                   "policy": cell.params["policy"], "seed": cell.params["seed"],
                                   "error": outcome["error"]})
            logger.info("cell %s (%s, seed %s) failed: %s", cell.key, cell.params["label"],
                           cell.params["seed"], outcome["error"])
        if bar is not None:
            bar.update(1)
        if callback is not None:
            callback(cell, outcome)

    try:
        if not todo:
            return summary
        if workers == 0:
            for cell in todo:
                finish(cell, execute_cell(cell))
            return summary
        _run_on_dask(todo, workers, scheduler, finish)
        return summary
    finally:
        if bar is not None:
            bar.close()


def _run_on_dask(todo: list[Cell], workers: int | None, scheduler: Any,
                 finish: Callable[[Cell, dict], None]) -> None:
    from distributed import as_completed

    client, cluster = _client(workers, scheduler)
    try:
        run_id = uuid.uuid4().hex[:8]          # task names only: a restart never meets stale tasks
        cell_of, submitted = {}, []
        for cell in todo:
            fut = client.submit(execute_cell, cell, key=f"cell-{cell.key}-{run_id}",
                                priority=-cell.index)
            cell_of[fut.key] = cell
            submitted.append(fut)
        for fut in as_completed(submitted):
            cell = cell_of[fut.key]
            try:
                outcome = fut.result()
            except Exception as exc:  # noqa: BLE001 - the worker died (KilledWorker) or the task was lost
                outcome = {"key": cell.key, "status": "failed", "tables": {}, "error":
                           f"{type(exc).__name__}: {exc}", "traceback": None, "worker": None}
            fut.release()
            finish(cell, outcome)
    finally:
        if scheduler is None or not _is_client(scheduler):
            client.close()
        if cluster is not None:
            cluster.close()


def _is_client(obj: Any) -> bool:
    from distributed import Client
    return isinstance(obj, Client)
