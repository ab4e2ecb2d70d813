r"""Each queued job's score, learned-priorities Eqs. 2-3, and the scored training table.

For a state (S, Q) and a collection *P* of permutations of Q, each simulated (:mod:`.reference`)
to its AVEbsld over Q (Eq. 1), the paper scores job *t* of Q by how good the trials that started
with it were:

.. math::

    \mathrm{score}(t) = \frac{\sum_{p \in P} \mathrm{AVEbsld}(p, t)}{\sum_{p \in P} \mathrm{AVEbsld}(p)},
    \qquad
    \mathrm{AVEbsld}(p, t) = \begin{cases} \mathrm{AVEbsld}(p) & t_0(p) = t \\ 0 & \text{otherwise}
    \end{cases}

(Eqs. 2-3; :math:`t_0(p)` is the first job of permutation *p*). Lower is a better first choice. The
scores of one state sum to 1; with uniformly random permutations each job is first in about
:math:`|P|/|Q|` trials, so a score mixes how good the trials that start with *t* were with how
often *t* happened to be first (the sum, not the mean, as the paper writes it and the authors'
``generate_simulation_data.py`` computes it; with 250,000 permutations of 32 jobs the counts vary by
about 1 %).

References
----------
.. [1] D. Carastan-Santos, R. Y. de Camargo, learned nonlinear priority functions (workshop paper),
   Section 2, Eqs. 1-3.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pandas as pd

from ...errors import InvalidInstanceError
from ...rng import as_generator
from ...sim.metrics import TAU
from .states import States

__all__ = ["job_scores", "random_permutations", "score_states", "read_scores", "SCORE_COLUMNS"]

#: Columns of the scored training table (:func:`score_states`), the input of the regression.
SCORE_COLUMNS = ("state", "job", "r", "n", "s", "score", "first")


def job_scores(avebsld: Any, permutations: Any) -> np.ndarray:
    r"""Scores of the queued jobs by Eqs. 2-3 from a batch of trials' outcomes (module docstring).

    Parameters
    ----------
    avebsld : array_like, shape (..., P)
        AVEbsld of each trial (Eq. 1), finite and > 0; leading axes are a batch of states.
    permutations : array_like of int, shape (..., P, q)
        The trials' permutations of the queue's jobs ``0 .. q-1``; only the first column (the job
        started first) enters Eqs. 2-3.

    Returns
    -------
    ndarray, shape (..., q)
        score(t) for every job *t*; each state's scores sum to 1.

    Raises
    ------
    InvalidInstanceError
        No trials (P = 0), mismatched shapes, a job index outside ``0 .. q-1``, a non-finite or
        non-positive AVEbsld.

    Examples
    --------
    A queue of three jobs a = 0, b = 1, c = 2 and all six permutations, with made-up AVEbsld
    values (they sum to 1 + 2 + 3 + 4 + 5 + 5 = 20):

    ===========  =======  ===============================
    permutation  AVEbsld  counts for
    ===========  =======  ===============================
    a b c        1        a
    a c b        2        a
    b a c        3        b
    b c a        4        b
    c a b        5        c
    c b a        5        c
    ===========  =======  ===============================

    so score(a) = (1 + 2) / 20 = 0.15, score(b) = (3 + 4) / 20 = 0.35, score(c) = (5 + 5) / 20 = 0.5:

    >>> perms = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]]
    >>> job_scores([1, 2, 3, 4, 5, 5], perms).tolist()
    [0.15, 0.35, 0.5]
    """
    a = np.asarray(avebsld, dtype=float)
    perms = np.asarray(permutations)
    if perms.ndim < 2 or perms.shape[:-1] != a.shape:
        raise InvalidInstanceError(f"permutations has shape {perms.shape}; expected avebsld's shape {a.shape} plus "
                                   "one axis of jobs", argument="permutations", value=perms.shape)
    if a.shape[-1] == 0:
        raise InvalidInstanceError("no trials (P = 0): every score would be 0/0", argument="avebsld",
                                   value=a.shape)
    q = perms.shape[-1]
    if not np.issubdtype(perms.dtype, np.integer):
        raise InvalidInstanceError(f"permutations must be integers, got {perms.dtype}", argument="permutations",
                                   value=str(perms.dtype))
    first = perms[..., 0]
    if first.min() < 0 or first.max() >= q:
        bad = np.argwhere((first < 0) | (first >= q))[0]
        raise InvalidInstanceError(f"permutations[{', '.join(map(str, bad))}, 0]={int(first[tuple(bad)])} is not a "
                                   f"job of a queue of {q}", argument="permutations", index=tuple(map(int, bad)),
                                   value=int(first[tuple(bad)]))
    if not (np.isfinite(a).all() and (a > 0).all()):
        bad = np.argwhere(~(np.isfinite(a) & (a > 0)))[0]
        raise InvalidInstanceError(f"avebsld[{', '.join(map(str, bad))}]={float(a[tuple(bad)])!r} must be finite and > 0 "
                                   "(a bounded slowdown is at least 1)", argument="avebsld",
                                   index=tuple(map(int, bad)), value=float(a[tuple(bad)]))
    flat_a = a.reshape(-1, a.shape[-1])
    flat_first = first.reshape(-1, a.shape[-1])
    out = np.empty((flat_a.shape[0], q))
    for i in range(flat_a.shape[0]):
        out[i] = np.bincount(flat_first[i], weights=flat_a[i], minlength=q) / flat_a[i].sum()
    return out.reshape(a.shape[:-1] + (q,))


def random_permutations(queued: int, n_trials: int, *, rng: Any = None) -> np.ndarray:
    """``n_trials`` uniformly random permutations of ``range(queued)``, one per row.

    Parameters
    ----------
    queued : int >= 2
        |Q|.
    n_trials : int >= 1
        |P| (the paper: 250,000).
    rng : int or numpy.random.Generator, optional

    Returns
    -------
    ndarray of int16, shape (n_trials, queued)

    Examples
    --------
    >>> p = random_permutations(4, 3, rng=0)
    >>> p.shape, bool((np.sort(p, axis=1) == np.arange(4)).all())
    ((3, 4), True)
    >>> random_permutations(4, 0)
    Traceback (most recent call last):
    ...
    fairalloc.errors.InvalidInstanceError: n_trials=0 must be an integer >= 1 (P, the permutations per state)
    """
    if isinstance(n_trials, bool) or not isinstance(n_trials, (int, np.integer)) or n_trials < 1:
        raise InvalidInstanceError(f"n_trials={n_trials!r} must be an integer >= 1 (P, the permutations per state)",
                                   argument="n_trials", value=n_trials)
    if isinstance(queued, bool) or not isinstance(queued, (int, np.integer)) or not 2 <= queued <= 32767:
        raise InvalidInstanceError(f"queued={queued!r} must be an integer in 2..32767", argument="queued",
                                   value=queued)
    gen = as_generator(rng)
    base = np.broadcast_to(np.arange(queued, dtype=np.int16), (int(n_trials), int(queued)))
    return gen.permuted(base, axis=1)


#: The signature of a batch of trials (the reference, or a compiled kernel with the same contract).
TrialBatch = Callable[..., np.ndarray]


def score_states(states: States, n_trials: int, *, rng: Any = None, backfill: bool = False, tau: float = TAU,
                 trials: TrialBatch | None = None, progress: bool = False) -> pd.DataFrame:
    """Simulate ``n_trials`` random permutations of every state's queue and score its jobs (Eqs. 1-3).

    Parameters
    ----------
    states : States
        The training states.
    n_trials : int >= 1
        Permutations per state, |P|.
    rng : int or numpy.random.Generator, optional
        Seed of the permutations (drawn state after state from one generator).
    backfill : bool, default False
        EASY backfilling in the trials (the paper: none).
    tau : float, default 10
        Bounded-slowdown threshold (seconds).
    trials : callable, optional
        The batch of trials, with the signature and meaning of :func:`~.reference.reference_trials`
        (the plain-Python oracle); default :func:`~.trials.compiled_trials`, the same trials on the
        simulator's compiled loop.
    progress : bool, default False
        A progress bar over the states.

    Returns
    -------
    pandas.DataFrame
        One row per queued job of every state: ``state``, ``job`` (0..q-1), ``r`` (run time),
        ``n`` (processors), ``s`` (submit time relative to the window), ``score`` (Eqs. 2-3) and
        ``first`` (trials that started with this job). ``attrs`` holds the run's settings.

    Examples
    --------
    Three small states, 50 trials each; scores sum to 1 per state:

    >>> from fairalloc.experiments.learn import training_states
    >>> st = training_states(3, started=2, queued=4, processors=64, rng=1)
    >>> t = score_states(st, 50, rng=2)
    >>> t.shape, t.groupby("state")["score"].sum().round(12).tolist(), int(t["first"].sum())
    ((12, 7), [1.0, 1.0, 1.0], 150)
    """
    from tqdm.auto import tqdm

    from .trials import compiled_trials

    if not isinstance(states, States):
        raise InvalidInstanceError(f"states={type(states).__name__} must be a States (training_states(...))",
                                   argument="states", value=type(states).__name__)
    gen = as_generator(rng)
    run = trials or compiled_trials
    q, s0 = states.queued, states.started
    frames = []
    for i in tqdm(range(len(states)), desc="states", unit="state", disable=not progress):
        perms = random_permutations(q, n_trials, rng=gen)
        a = run(states.run_time[i], states.processors[i], states.submit[i], states.estimate[i], started=s0,
                capacity=states.capacity, permutations=perms, backfill=backfill, tau=tau)
        f = states.queue_frame(i)
        f.insert(0, "state", i)
        f["score"] = job_scores(a, perms)
        f["first"] = np.bincount(perms[:, 0], minlength=q)
        frames.append(f)
    table = pd.concat(frames, ignore_index=True)
    table.attrs.update({"n_trials": int(n_trials), "backfill": bool(backfill), "tau": float(tau),
                        "capacity": states.capacity, "started": s0, "queued": q, "states_meta": dict(states.meta)})
    return table


def read_scores(path: Any, *, queued: int = 32) -> pd.DataFrame:
    """Read a scored training table: Parquet or CSV written from :func:`score_states`, or the
    authors' ``score-distribution.csv`` (no header; columns r, n, s, score; each state's ``queued``
    jobs on consecutive rows, as ``gather_data.py`` of ``hpcsched/gen-sched-policies`` writes it).

    Parameters
    ----------
    path : str or Path
        ``.parquet`` or ``.csv``.
    queued : int, default 32
        |Q|, used only for the headerless layout (row *i* is in state ``i // queued``).

    Returns
    -------
    pandas.DataFrame
        Columns ``state``, ``r``, ``n``, ``s``, ``score`` at least.

    Raises
    ------
    FileNotFoundError
        No such file.
    InvalidInstanceError
        Missing columns, a non-numeric value, a headerless file whose rows are not whole states.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "authors.csv")
    ...     _ = open(p, "w").write("10,4,100,0.6\\n20,2,50,0.4\\n30,1,0,0.5\\n40,8,9,0.5\\n")
    ...     t = read_scores(p, queued=2)
    >>> t["state"].tolist(), t["score"].tolist()
    ([0, 0, 1, 1], [0.6, 0.4, 0.5, 0.5])
    """
    from pathlib import Path

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"scores file not found: {path}")
    need = ["state", "r", "n", "s", "score"]
    if path.suffix.lower() == ".parquet":
        table = pd.read_parquet(path)
    else:
        try:
            head = pd.read_csv(path, nrows=1, header=None)
        except (ValueError, pd.errors.ParserError, UnicodeDecodeError) as exc:
            raise InvalidInstanceError(f"{path}: not a CSV table: {exc}", argument="path", value=str(path)) from None
        first = head.iloc[0].tolist() if len(head) else []
        numeric = bool(first) and all(isinstance(v, (int, float, np.number)) for v in first)
        if numeric:
            table = pd.read_csv(path, header=None)
            if table.shape[1] != 4:
                raise InvalidInstanceError(f"{path}: a table without a header must have the 4 columns r, n, s, score "
                                           f"(the authors' layout); it has {table.shape[1]}", argument="path",
                                           value=str(path))
            table.columns = ["r", "n", "s", "score"]
            if isinstance(queued, bool) or not isinstance(queued, (int, np.integer)) or queued < 2:
                raise InvalidInstanceError(f"queued={queued!r} must be an integer >= 2", argument="queued",
                                           value=queued)
            if len(table) % queued:
                raise InvalidInstanceError(f"{path}: {len(table)} rows are not whole states of queued={queued} jobs",
                                           argument="queued", value=queued)
            table.insert(0, "state", np.arange(len(table)) // queued)
        else:
            table = pd.read_csv(path)
    missing = [c for c in need if c not in table]
    if missing:
        raise InvalidInstanceError(f"{path}: missing column(s) {missing} (a scores table has {', '.join(need)})",
                                   argument="path", value=list(table.columns))
    for c in need:
        if not pd.api.types.is_numeric_dtype(table[c]):
            raise InvalidInstanceError(f"{path}: column {c!r} is not numeric", argument="path", value=c)
    return table
