r"""What if this trace ran under other policies and settings? One trace, many policies, per-user and
per-account outcomes, on the sweep layer (Dask, Parquet, resumable).

:func:`whatif` runs one workload under every policy and setting asked for, each as a cell of a sweep
(:mod:`fairalloc.experiments.spec`, :func:`~fairalloc.experiments.run_sweep`): cells run on a local Dask
cluster (or an existing one), each finished cell is written at once, and a second call with the same
``out`` computes nothing that is done (cells are keyed by their parameters and by fairalloc's code).

**Policies.** Anything :func:`fairalloc.simulate` accepts: a name of its policy table (``"fcfs"``,
``"easy"``, ``"fcfs+easy"``, ``"sjf"``, ``"wfp3"``, ``"f1"``, ``"f2"``, ``"buc"``, ``"drf"``,
``"sdrf"``, ``"tsf"``, ``"cdrf"``, ... and any name added with :func:`fairalloc.sim.register_policy`),
``{label: {"policy": name, **options}}`` for several settings of one policy, or a policy object
(pickled into ``out/inputs`` and unpickled by each cell; its class must be importable by the workers).

**Settings (the grid).**

* ``half_lives`` (seconds): every policy that has a usage decay runs once per half-life. A policy
  has one when it is in :data:`HALF_LIFE_OPTIONS` (``sdrf``: :math:`\tau = t_{1/2}/\ln 2`,
  :func:`fairalloc.commitments.tau_from_half_life`; SDRF's Eq. 6 then halves a commitment in
  :math:`t_{1/2}`), or when its factory takes a ``half_life=`` keyword (the production fair-share policies of the
  simulator: ``"slurm"`` and ``"slurm+easy"``, Slurm's ``PriorityDecayHalfLife``; ``"htcondor"``, HTCondor's
  ``PRIORITY_HALFLIFE``; :mod:`fairalloc.sim.policies.fairshare`). Other policies run
  once. The summary gives ``half_life``, ``tau`` and the per-second ``delta`` of every cell, so SDRF and a
  Slurm decay at the same half-life sit on one row of a table.
* ``weights``: ``"equal"`` (default) and/or ``"shares"`` (each user's weight is its normalised share in
  the account tree), for policies that take ``weights=`` (DRF, SDRF, TSF, CDRF).
* ``capacity``: as a sweep spec's (``{"processors": N}``, ``{"pool": F}``, ``{"resources": [...]}``,
  ``{"cluster": NAME}``); default: the trace's own machine (``MaxProcs``) for rigid jobs, a pool of
  the workload's mean use (``{"pool": 1.0}``) for task workloads.

**Rigid jobs under task policies.** On a rigid trace (an SWF log: processors only) a policy that
schedules resource vectors refuses the processor machine (``fa.simulate`` raises naming ``capacity``:
DRF, SDRF, TSF, CDRF); it then runs on a one-resource pool ``processors`` of the machine's size, each
job one task demanding its processors for its run time: the same rigid job, allocated by the policy's
user order. The queue policies (and any policy that accepts the processors) keep the processor
machine. The summary's ``setting`` says which.

**Jobs that run for no time** (``run_time`` 0 or unknown: SDSC-BLUE has 10,770 of 243,306) are left
out of every cell, so that every policy runs the same jobs (the task schedulers refuse them); the
summary's ``dropped`` counts them.

**Accounts.** An :class:`~fairalloc.accounts.AccountTree` (or a YAML/CSV file for
:func:`~fairalloc.accounts.read_accounts`) whose users are the trace's (matched by ``str``); default a flat
tree (every user one share under ``root``); ``accounts="synthetic"`` (or ``("synthetic", k)``) builds
:func:`synthetic_tree`: k accounts with shares 1..k, users dealt to them by a seeded shuffle, stated in
``summary.accounts`` and written to ``out/inputs``.

**Outcomes** (:mod:`fairalloc.experiments.share_metrics` for the definitions): tables ``summary`` (one
row per cell), ``entities`` (per user and account), ``windows`` (per entity and window: delivered,
entitled, active) and ``jobs`` (waits, for CDFs), read with :func:`whatif_tables` or
``fairalloc results OUT/sweep``.

A new policy plugs in with no change here: register it
(``fairalloc.sim.register_policy("slurm-fs", factory)`` or a key of the policy core's table) and name it
in ``policies``; give its factory a ``half_life=`` keyword (seconds) and it joins the half-life grid
(another option name: one entry in :data:`HALF_LIFE_OPTIONS`); a ``weights=`` keyword and it joins the
weights grid; an ``accounts=`` keyword and every cell passes it the run's
:class:`~fairalloc.accounts.AccountTree` (the tree the shares are measured against: Slurm's classic
fair share and Fair Tree rank by it).

Examples
--------
>>> import tempfile
>>> import numpy as np
>>> import fairalloc as fa
>>> g = np.random.default_rng(1)
>>> wl = fa.workloads.Workload(submit=np.sort(g.uniform(0, 3600, 60)), run_time=g.uniform(60, 1800, 60),
...                            processors=g.integers(1, 17, 60), user=g.integers(0, 5, 60))
>>> with tempfile.TemporaryDirectory() as d:
...     s = whatif(wl, ["fcfs", "easy", "sdrf"], half_lives=[3600, 86400], capacity=32, out=d, workers=0)
>>> s[["label", "half_life", "setting"]].values.tolist()
[['fcfs', nan, 'processors'], ['easy', nan, 'processors'], ['sdrf', 3600.0, 'pool of processors'], ['sdrf', 86400.0, 'pool of processors']]
"""

from __future__ import annotations

import hashlib
import math
import pickle
import re
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from ..accounts import AccountTree, read_accounts
from ..errors import FairallocWarning, InvalidInstanceError
from ..rng import as_generator

__all__ = ["whatif", "whatif_cell", "whatif_tables", "synthetic_tree", "HALF_LIFE_OPTIONS", "WEIGHTS",
           "TABLES", "parse_duration"]

#: Cell function of the what-if sweep.
CELL = "fairalloc.experiments.whatif:whatif_cell"
#: Tables every what-if cell writes.
TABLES = ("summary", "entities", "windows", "jobs")
#: Policies whose decay is set by another option than ``half_life``: name -> (option, half-life ->
#: value). A policy whose factory takes ``half_life=`` needs no entry.
HALF_LIFE_OPTIONS: dict[str, tuple[str, Callable[[float], float]]] = {}
#: Values of the ``weights`` setting.
WEIGHTS = ("equal", "shares")


def _sdrf_tau(half_life: float) -> float:
    from ..commitments import tau_from_half_life
    return tau_from_half_life(half_life)


HALF_LIFE_OPTIONS["sdrf"] = ("tau", _sdrf_tau)

_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, "w": 604800.0}


def parse_duration(text: Any, argument: str = "half_life") -> float:
    """Seconds from a number or ``"90s"``, ``"30m"``, ``"12h"``, ``"7d"``, ``"2w"``; > 0 and finite.

    Parameters
    ----------
    text : float or str
        The duration.
    argument : str, default "half_life"
        The name the error gives (``half_lives[2]``, ``window``).

    Returns
    -------
    float
        Seconds.

    Raises
    ------
    InvalidInstanceError
        Not a duration, or not positive and finite (a half-life of 0 would turn a decay off: refused).

    Examples
    --------
    >>> parse_duration("7d"), parse_duration(3600), parse_duration("1.5h")
    (604800.0, 3600.0, 5400.0)
    >>> parse_duration("0h")
    Traceback (most recent call last):
    ...
    fairalloc.errors.InvalidInstanceError: half_life='0h' must be a positive duration (seconds, or 30m, 12h, 7d, 2w): a half-life of 0 would turn the decay off
    """
    value: Any = text
    if isinstance(text, str):
        t = text.strip().lower()
        scale = _UNITS.get(t[-1:], None)
        try:
            value = float(t[:-1]) * scale if scale is not None else float(t)
        except ValueError:
            raise InvalidInstanceError(f"{argument}={text!r} is not a duration (seconds, or 30m, 12h, 7d, 2w)",
                                       argument=argument, value=text) from None
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InvalidInstanceError(f"{argument}={text!r} is not a duration (seconds, or 30m, 12h, 7d, 2w)",
                                   argument=argument, value=text)
    v = float(value)
    if not (math.isfinite(v) and v > 0):
        raise InvalidInstanceError(f"{argument}={text!r} must be a positive duration (seconds, or 30m, 12h, 7d, "
                                   "2w): a half-life of 0 would turn the decay off", argument=argument, value=text)
    return v


# -- accounts -----------------------------------------------------------------------------------

def synthetic_tree(users: Sequence[Any], n_accounts: int = 4, *, rng: Any = 0) -> AccountTree:
    """A stated synthetic account tree for a trace without one.

    Accounts ``acct1`` .. ``acctK`` under ``root`` with raw shares 1 .. K (so the entitlements differ:
    account k is entitled to k / (K(K+1)/2)); the users, sorted, are shuffled with ``rng`` and dealt
    round-robin to the accounts (each account gets about the same number of users); each user has one
    share within its account.

    Parameters
    ----------
    users : sequence
        The trace's users (``str`` gives their names).
    n_accounts : int, default 4
        ``K``, at least 1 (at most the number of users).
    rng : int or numpy.random.Generator, default 0

    Returns
    -------
    AccountTree

    Examples
    --------
    >>> t = synthetic_tree(range(6), 3, rng=0)
    >>> t.account_names, [round(float(s), 4) for s in t.normalized_shares[1:4]]
    (('root', 'acct1', 'acct2', 'acct3'), [0.1667, 0.3333, 0.5])
    """
    names = sorted({str(u) for u in users}, key=lambda s: (len(s), s))
    if isinstance(n_accounts, bool) or not isinstance(n_accounts, (int, np.integer)) or not 1 <= n_accounts:
        raise InvalidInstanceError(f"n_accounts={n_accounts!r} must be an int >= 1", argument="n_accounts",
                                   value=n_accounts)
    k = min(int(n_accounts), max(len(names), 1))
    perm = as_generator(rng).permutation(len(names))
    recs: list[dict[str, Any]] = [{"account": f"acct{a + 1}", "shares": a + 1} for a in range(k)]
    recs += [{"user": names[p], "account": f"acct{(i % k) + 1}"} for i, p in enumerate(perm)]
    return AccountTree(recs, source=f"synthetic({k} accounts, shares 1..{k}, rng={rng if isinstance(rng, int) else 'Generator'})")


def _resolve_tree(accounts: Any, users: Sequence[Any], rng: Any) -> tuple[AccountTree, str]:
    """(tree, its description for the output)."""
    if accounts is None or (isinstance(accounts, str) and accounts == "flat"):
        return AccountTree.flat(sorted(set(users))), "flat (every user one share under root)"
    if isinstance(accounts, str) and accounts == "synthetic":
        accounts = ("synthetic", 4)
    if isinstance(accounts, tuple) and len(accounts) == 2 and accounts[0] == "synthetic":
        t = synthetic_tree(users, accounts[1], rng=rng)
        return t, (f"synthetic: {len(t.account_names) - 1} accounts acct1..acct{len(t.account_names) - 1} "
                   f"with shares 1..{len(t.account_names) - 1}, users dealt round-robin after a shuffle (rng={rng})")
    if isinstance(accounts, AccountTree):
        return accounts, f"given: {accounts!r}"
    if isinstance(accounts, (str, Path)):
        t = read_accounts(accounts)
        return t, f"from {accounts}"
    raise InvalidInstanceError(f"accounts={accounts!r} must be None/'flat', 'synthetic', ('synthetic', K), an "
                               "AccountTree or a YAML/CSV file", argument="accounts", value=repr(accounts)[:80])


def _check_users_in_tree(tree: AccountTree, users: Sequence[Any]) -> None:
    names = set(tree.user_names)
    missing = [u for u in sorted(set(users)) if str(u) not in names]
    if missing:
        raise InvalidInstanceError(f"user {missing[0]!r} of the trace has no association in the account tree "
                                   f"({len(missing)} of {len(set(users))} users without one); add it to an account",
                                   argument="accounts", value=missing[0])


# -- policies -----------------------------------------------------------------------------------

def _factory(name: str) -> Callable[..., Any]:
    """The factory ``fa.simulate`` uses for ``name`` (its policy table), or an error naming it."""
    from ..sim.policies import make_policy, policy_names
    from ..sim.policies.queue import QUEUE_POLICIES

    if name.startswith("learned:"):        # a learned priority function's file (its path keeps its case)
        make_policy(name)                   # a missing or malformed file: its error, before any cell runs
        return lambda **kw: make_policy(name, **kw)
    key = name.lower()
    base = key[:-5] if key.endswith("+easy") else key
    if key in policy_names() or base in QUEUE_POLICIES:
        return lambda **kw: make_policy(key, **kw)
    raise InvalidInstanceError(f"policies: unknown policy {name!r}; known: {', '.join(policy_names())} "
                               "(or '<queue policy>+easy', or a policy object)", argument="policies", value=name)


def _accepts(factory: Callable[..., Any], **kw: Any) -> bool:
    try:
        factory(**kw)
    except TypeError:
        return False
    except InvalidInstanceError as exc:
        return getattr(exc, "argument", None) not in kw and "do not apply" not in str(exc)
    return True


def _policy_entries(policies: Any, inputs: Path) -> list[tuple[str, dict[str, Any]]]:
    """[(label, spec options: policy name + options, or policy_object path)]."""
    if isinstance(policies, (str, bytes)) or not isinstance(policies, (Mapping, Sequence)):
        policies = [policies]
    items: list[tuple[str, Any]] = []
    if isinstance(policies, Mapping):
        items = list(policies.items())
    else:
        for p in policies:
            label = p if isinstance(p, str) else getattr(p, "name", None) or type(p).__name__
            if isinstance(p, str) and p.startswith("learned:"):     # a file path is no label: its stem is
                easy = p.endswith("+easy")
                stem = Path(p[len("learned:"):len(p) - 5 if easy else None]).stem
                label = "learned-" + re.sub(r"[^A-Za-z0-9_.-]", "_", stem) + ("+easy" if easy else "")
            items.append((str(label), p))
    if not items:
        raise InvalidInstanceError("policies is empty: name at least one", argument="policies", value=policies)
    out = []
    seen = set()
    for label, p in items:
        if label in seen:
            raise InvalidInstanceError(f"policies: label {label!r} given twice", argument="policies", value=label)
        seen.add(label)
        if p is None:
            p = {}
        if isinstance(p, str):
            _factory(p)
            out.append((label, {"policy": p}))
        elif isinstance(p, Mapping):
            name = p.get("policy", label)
            opts = {k: v for k, v in p.items() if k != "policy"}
            fac = _factory(name)
            try:
                fac(**opts)
            except (TypeError, InvalidInstanceError) as exc:
                raise InvalidInstanceError(f"policies[{label!r}]: {exc}", argument=f"policies.{label}",
                                           value=sorted(opts)) from None
            out.append((label, {"policy": name, **opts}))
        else:
            blob = pickle.dumps(p, protocol=pickle.HIGHEST_PROTOCOL)
            path = inputs / f"policy-{label}-{hashlib.sha256(blob).hexdigest()[:12]}.pkl"
            if not path.exists():
                path.write_bytes(blob)
            out.append((label, {"policy": f"object:{type(p).__name__}", "policy_object": str(path)}))
    return out


# -- the cell -----------------------------------------------------------------------------------

def _as_pool(workload: Any, capacity: Any) -> tuple[Any, list[float]]:
    """A rigid workload as one-task jobs on a one-resource pool ``processors``."""
    from ..sim import make_state

    procs = capacity if isinstance(capacity, (int, np.integer)) else None
    if procs is None:
        procs = float(make_state(workload, None).totals[0])
    wl = workload.replace(resources=workload.processors.astype(float)[:, None], resource_names=("processors",),
                          resource_units=(None,))
    return wl, [float(procs)]


def whatif_cell(workload: Any, params: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """One what-if cell: simulate, then the share metrics (the sweep's ``run`` for :func:`whatif`).

    ``params["options"]``: ``policy`` (a name, or ``object:...`` with ``policy_object``, a pickle),
    the policy's options, ``half_life`` (seconds, converted by :data:`HALF_LIFE_OPTIONS` or passed as
    ``half_life=``), ``weights`` (``"equal"``/``"shares"``), ``accounts`` (a YAML file of the tree),
    ``n_windows`` / ``window_length``, ``charge``, ``tree`` (the tree's description). Returns :data:`TABLES`.

    Parameters
    ----------
    workload : Workload
        Built by the sweep's worker from the spec's workload entry (cached per worker).
    params : mapping
        The cell's resolved parameters (:class:`~fairalloc.experiments.Cell`): ``policy``, ``options``
        (above), ``capacity``.

    Returns
    -------
    dict of str to pandas.DataFrame
        ``summary`` (one row: ``policy_name``, ``setting``, ``half_life``, ``tau``, ``delta``, counts,
        waits, ``mean_bsld``, :func:`~fairalloc.experiments.share_metrics.share_summary`'s figures,
        ``simulate_s``), ``entities``, ``windows``, ``jobs`` (finished jobs: ``user``, ``account``,
        ``submit``, ``wait``, ``bsld``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 0, 0], run_time=[10, 5, 10], processors=[2, 2, 2], user=[1, 2, 3])
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "acc.yaml").write_text("users: [{name: '1'}, {name: '2'}, {name: '3'}]")
    >>> t = whatif_cell(wl, {"policy": "fcfs", "capacity": {"processors": 4},
    ...                      "options": {"accounts": str(d / "acc.yaml"), "n_windows": 3, "charge": "dominant"}})
    >>> t["summary"][["setting", "mean_wait", "jain_user"]].values.tolist()[0][:2], sorted(t)
    (['processors', 1.6666666666666667], ['entities', 'jobs', 'summary', 'windows'])
    """
    from ..commitments import delta_from_half_life, tau_from_half_life
    from ..sim import simulate
    from .inputs import build_capacity
    from .share_metrics import entity_table, share_summary, share_windows

    opts = dict(params.get("options") or {})
    name = params.get("policy") or opts.get("policy")
    meta = {k: opts.pop(k, None) for k in ("accounts", "n_windows", "window_length", "charge", "tree", "half_life",
                                             "weights", "policy_object", "policy", "tree_to_policy")}
    tree = read_accounts(meta["accounts"])
    run = workload.run_time
    runs = run > 0                                  # NaN (unknown) compares False: left out too
    dropped = int(len(workload) - runs.sum())
    if dropped:
        workload = workload.take(np.flatnonzero(runs))
    capacity = build_capacity(params.get("capacity"), workload)
    setting = "pool" if workload.resources.shape[1] else "processors"
    wl = workload
    if meta["policy_object"]:
        with open(meta["policy_object"], "rb") as fh:
            policy: Any = pickle.load(fh)
    else:
        policy = name
        if meta["half_life"] is not None:
            opt, conv = HALF_LIFE_OPTIONS.get(name.lower(), ("half_life", float))
            opts[opt] = conv(float(meta["half_life"]))
        if meta["tree_to_policy"]:
            opts["accounts"] = tree
        if meta["weights"] == "shares":
            n = int(wl.user.max()) + 1
            w = np.ones(n)
            share = dict(zip(tree.user_names, tree.normalized_shares[tree.user_nodes]))
            for u in range(n):
                w[u] = share.get(str(u), 1.0) or 1.0
            opts["weights"] = w / w.max()
    t0 = time.perf_counter()
    try:
        r = simulate(wl, capacity, policy=policy, **opts)
    except InvalidInstanceError as exc:
        # a policy that schedules resource vectors refuses the processor machine (before it runs):
        # run each rigid job as one task of its processors on a one-resource pool of the same size
        if setting != "processors" or getattr(exc, "argument", None) != "capacity":
            raise
        if meta["policy_object"]:
            with open(meta["policy_object"], "rb") as fh:
                policy = pickle.load(fh)              # a fresh object: the refused one may hold state
        wl, capacity = _as_pool(workload, capacity)
        setting = "pool of processors"
        t0 = time.perf_counter()
        r = simulate(wl, capacity, policy=policy, **opts)
    run_s = time.perf_counter() - t0
    table = share_windows(r, tree, windows=meta["n_windows"], window=meta["window_length"], charge=meta["charge"] or "dominant")
    ent = entity_table(r, tree, table)
    fin = r.jobs[r.jobs["finished"].to_numpy()]
    w = fin["wait"].to_numpy(float)
    hl = meta["half_life"]
    row = {"policy_name": r.policy, "setting": setting,
           "half_life": float(hl) if hl is not None else np.nan,
           "tau": tau_from_half_life(float(hl)) if hl is not None else np.nan,
           "delta": delta_from_half_life(float(hl), 1.0) if hl is not None else np.nan,
           "jobs": int(len(r.jobs)), "finished": int(len(fin)), "rejected": int(len(r.rejected)),
           "dropped": dropped,
           "mean_wait": float(w.mean()) if w.size else np.nan,
           "median_wait": float(np.median(w)) if w.size else np.nan,
           "p95_wait": float(np.percentile(w, 95)) if w.size else np.nan,
           "mean_bsld": float(fin["bsld"].mean()) if len(fin) else np.nan,
           **share_summary(table), "simulate_s": run_s}
    user_acct = dict(zip(ent["entity"][ent["level"] == "user"], ent["account"][ent["level"] == "user"]))
    jobs = pd.DataFrame({"user": fin["user"].astype(str).to_numpy(),
                         "account": [user_acct.get(str(u), "") for u in fin["user"].to_numpy()],
                         "submit": fin["submit"].to_numpy(float), "wait": w,
                         "bsld": fin["bsld"].to_numpy(float)})
    return {"summary": pd.DataFrame([row]), "entities": ent, "windows": table.reset_index(drop=True),
            "jobs": jobs}


# -- the grid -----------------------------------------------------------------------------------

def _check_workload_arguments(spec: dict[str, Any]) -> None:
    """A workload spec's generator or reader and its keyword arguments, checked before anything runs (the
    sweep spec's rule, :func:`fairalloc.experiments.inputs.check_arguments`): an unknown name or keyword is
    an :class:`InvalidInstanceError` naming it, not a ``TypeError`` from inside the generator."""
    from .inputs import WORKLOAD_META_KEYS, check_arguments, workload_function

    if "generator" not in spec and "reader" not in spec:
        raise InvalidInstanceError("a workload spec needs 'generator' or 'reader'", argument="workload",
                                   value=dict(spec))
    which = "generator" if "generator" in spec else "reader"
    try:
        fn, fixed, _ = workload_function(spec)
    except ValueError as exc:
        raise InvalidInstanceError(str(exc), argument=f"workload.{which}", value=spec[which]) from None
    bad = check_arguments(fn, {**{k: v for k, v in spec.items() if k not in WORKLOAD_META_KEYS}, **fixed})
    if bad is not None:
        raise InvalidInstanceError(f"workload: {bad}={spec[bad]!r} is not an argument of "
                                   f"{getattr(fn, '__name__', fn)}", argument=f"workload.{bad}", value=spec[bad])


def _workload_spec(workload: Any, inputs: Path, head: int | None) -> tuple[dict[str, Any], Any]:
    """(the spec's workload entry, the Workload here)."""
    from ..workloads import Workload
    from .inputs import build_workload

    if isinstance(workload, Workload):
        wl = workload.sorted().head(int(head)) if head else workload
        buf = pickle.dumps((wl.to_frame(), wl.meta), protocol=4)
        path = inputs / f"workload-{hashlib.sha256(buf).hexdigest()[:12]}.parquet"
        if not path.exists():
            tmp = path.with_name(f".{path.name}.tmp")
            wl.to_parquet(tmp)
            tmp.replace(path)
        return {"reader": "parquet", "path": str(path)}, wl
    if isinstance(workload, (str, Path)):
        p = Path(workload)
        if not p.exists():
            raise InvalidInstanceError(f"workload={str(workload)!r}: no such file", argument="workload",
                                       value=str(workload))
        name = p.name.lower()
        reader = "parquet" if name.endswith(".parquet") else "swf"
        spec = {"reader": reader, "path": str(p.resolve())}
    elif isinstance(workload, Mapping):
        spec = dict(workload)
        _check_workload_arguments(spec)
    else:
        raise InvalidInstanceError(f"workload must be a Workload, a trace file or a workload spec, got "
                                   f"{type(workload).__name__}", argument="workload", value=type(workload).__name__)
    if head:
        spec["head"] = int(head)
    return spec, build_workload(spec)


def whatif(workload: Any, policies: Any = ("fcfs", "easy"), *, half_lives: Sequence[Any] | None = None,
           weights: Sequence[str] = ("equal",), capacity: Any = None, accounts: Any = None, windows: int = 12,
           window: Any = None, charge: str = "dominant", head: int | None = None, out: str | Path | None = None,
           workers: int | None = None, scheduler: Any = None, progress: bool = False,
           time_limit: float | None = None, rng: Any = 0, name: str = "whatif") -> pd.DataFrame:
    """Run one trace under several policies and settings; one summary row per (policy, setting).

    Parameters
    ----------
    workload : Workload, path or workload spec
        A :class:`~fairalloc.workloads.Workload`; a trace file (``.swf``, ``.swf.gz``; ``.parquet``); or a
        sweep spec's workload entry (``{"generator": "google_like", "n_users": 50, "rng": 0}``,
        ``{"reader": "google2011", "path": ...}``).
    policies : sequence or mapping
        Names of ``fa.simulate``'s policy table, policy objects, or ``{label: name | {"policy": name,
        **options} | object}`` (module docstring).
    half_lives : sequence of float or str, optional
        Half-lives in seconds (or ``"12h"``, ``"7d"``); each > 0. Policies with a usage decay run once
        per value (module docstring); without it they run with their own default.
    weights : sequence of {"equal", "shares"}
        Weight settings of the policies that take ``weights=``.
    capacity : int or mapping, optional
        Processors, or a sweep spec's capacity mapping; default: the trace's machine (rigid jobs) or
        ``{"pool": 1.0}`` (task workloads).
    accounts : None, "flat", "synthetic", ("synthetic", K), AccountTree or path
        The account tree (module docstring); every user of the trace must be in it.
    windows : int, default 12
        Equal windows over the run for the share metrics.
    window : float or str, optional
        Window length instead (seconds or ``"1d"``).
    charge : str, default "dominant"
        How usage is charged (:mod:`~fairalloc.experiments.share_metrics`).
    head : int, optional
        Keep the first N jobs by submit time (a small run first).
    out : str or Path, optional
        The what-if folder (``sweep/``: the resumable store; ``inputs/``: the workload, tree and policy
        objects the cells read). Default: a temporary folder, deleted at the end (nothing resumable).
    workers, scheduler, progress, time_limit
        As :func:`~fairalloc.experiments.run_sweep` (``workers=0``: in this process, no Dask). The
        cells read ``out/inputs``: with ``scheduler=`` the workers must see that folder at the same path.
    rng : int, default 0
        Seed of a synthetic account tree.
    name : str, default "whatif"
        The sweep's name.

    Returns
    -------
    pandas.DataFrame
        The ``summary`` table, one row per cell in grid order: ``label``, ``policy``, ``half_life``,
        ``tau``, ``delta`` (per second), ``weights``, ``setting``, waits, ``mean_bsld``, ``jain_user``,
        ``gap_user``, ``gap_flux_user`` and the ``_account`` ones, ``tree``. ``attrs``: ``out``, ``tree``,
        ``sweep`` (the :class:`~fairalloc.experiments.SweepSummary`).

    Raises
    ------
    InvalidInstanceError
        An unknown policy or option, a half-life that is not a positive duration (``half_lives[k]``), an
        unknown ``weights`` value, a trace user missing from the account tree, an account file error.

    Examples
    --------
    FCFS and EASY on three users' jobs (users 1 and 2 in account A of 2 shares, user 3 in B), 4
    processors. FCFS: job 0 runs 0..10, jobs 1-3 start at 10 (waits 0, 10, 9, 8: mean 6.75). EASY: job 1
    is reserved at 10, job 2 backfills at 1 (ends 6 <= 10), job 3 waits for it until 6 (waits 0, 10, 0, 4:
    mean 3.5):

    >>> import numpy as np, fairalloc as fa
    >>> from fairalloc.accounts import AccountTree
    >>> wl = fa.workloads.Workload(submit=[0, 0, 1, 2], run_time=[10, 5, 5, 1], processors=[3, 2, 1, 1],
    ...                            user=[1, 2, 3, 3])
    >>> tree = AccountTree([{"account": "A", "shares": 2}, {"account": "B"}, {"user": "1", "account": "A"},
    ...                     {"user": "2", "account": "A"}, {"user": "3", "account": "B"}])
    >>> s = whatif(wl, ["fcfs", "easy"], capacity=4, accounts=tree, windows=3, workers=0)
    >>> s[["label", "mean_wait"]].values.tolist()
    [['fcfs', 6.75], ['easy', 3.5]]
    """
    from .runner import run_sweep
    from .spec import Spec
    from .store import load

    hls = None
    if half_lives is not None:
        if isinstance(half_lives, (str, int, float)):
            half_lives = [half_lives]
        hls = [parse_duration(h, f"half_lives[{k}]") for k, h in enumerate(half_lives)]
        if not hls:
            raise InvalidInstanceError("half_lives is empty", argument="half_lives", value=[])
    if isinstance(weights, str):
        weights = [weights]
    for k, wv in enumerate(weights):
        if wv not in WEIGHTS:
            raise InvalidInstanceError(f"weights[{k}]={wv!r} is not one of {', '.join(WEIGHTS)}",
                                       argument="weights", index=(k,), value=wv)
    win = parse_duration(window, "window") if window is not None else None
    cleanup = out is None
    root = Path(tempfile.mkdtemp(prefix="fairalloc-whatif-")) if cleanup else Path(out)
    try:
        inputs = root / "inputs"
        inputs.mkdir(parents=True, exist_ok=True)
        entries = _policy_entries(policies, inputs)
        wspec, wl = _workload_spec(workload, inputs, head)
        if len(wl) and int(wl.user.min()) < 0:
            k = int(np.argmax(wl.user < 0))
            raise InvalidInstanceError(f"workload: job {k} has no user (-1): a what-if compares users and accounts, "
                                       "every job needs one", argument="workload", index=(k,), value=-1)
        users = [int(u) for u in np.unique(wl.user)]
        tree, tree_text = _resolve_tree(accounts, users, rng)
        _check_users_in_tree(tree, users)
        import yaml

        from .share_metrics import tree_records

        recs = tree_records(tree)
        text = yaml.safe_dump({"accounts": [{"name": r["account"], "parent": r["parent"], "shares": r["shares"]}
                                            for r in recs if "account" in r and "user" not in r],
                               "users": [{"name": r["user"], "account": r["account"], "shares": r["shares"]}
                                         for r in recs if "user" in r]}, sort_keys=False)
        tree_path = inputs / f"accounts-{hashlib.sha256(text.encode()).hexdigest()[:12]}.yaml"
        if not tree_path.exists():
            tree_path.write_text(text)
        if capacity is None:
            cap = {"pool": 1.0} if wl.resources.shape[1] else None
            if cap is None:
                from ..sim import make_state
                make_state(wl, None)            # a trace without MaxProcs: the error says so, before any cell
        elif isinstance(capacity, (int, np.integer)) and not isinstance(capacity, bool):
            cap = {"processors": int(capacity)}
        else:
            cap = dict(capacity)
        common = {"accounts": str(tree_path), "n_windows": int(windows), "window_length": win, "charge": charge,
                  "tree": tree_text}
        pols: dict[str, dict[str, Any]] = {}
        for label, opts in entries:
            o = {**opts, **common}
            pname = opts["policy"]
            if not pname.startswith("object:"):
                fac = _factory(pname)
                if hls is not None and (pname.lower() in HALF_LIFE_OPTIONS or _accepts(fac, half_life=1.0)):
                    o["half_life"] = list(hls) if len(hls) > 1 else hls[0]
                if "accounts" not in opts and _accepts(fac, accounts=tree):
                    o["tree_to_policy"] = True          # a fair-share key that ranks by the account tree
                if list(weights) != ["equal"] and _accepts(fac, weights=None):
                    o["weights"] = list(weights) if len(weights) > 1 else weights[0]
            pols[label] = o
        if hls is not None and not any("half_life" in o for o in pols.values()):
            warnings.warn(f"half_lives={half_lives!r}: none of the policies {list(pols)} has a usage decay (a "
                          "factory taking half_life=, or an entry of HALF_LIFE_OPTIONS): the half-lives are not used",
                          FairallocWarning, stacklevel=2)
        spec = Spec.from_dict({"name": name, "workload": wspec, "capacity": cap, "policies": pols,
                               "tables": list(TABLES), "run": CELL})
        summary = run_sweep(spec, root / "sweep", workers=workers, scheduler=scheduler, progress=progress,
                            time_limit=time_limit)
        bad = summary.failed + summary.timed_out + summary.lost
        if bad or summary.cluster_lost:
            f = bad[0] if bad else {"label": "-", "error": summary.cluster_lost}
            raise RuntimeError(f"{len(bad)} what-if cells did not finish (failed {len(summary.failed)}, timed out "
                               f"{len(summary.timed_out)}, lost {len(summary.lost)}); first: {f['label']}: {f['error']}; "
                               f"the finished cells are kept in {root / 'sweep'}: run again to finish")
        df = load(root / "sweep", "summary").df()
        df = df.drop(columns=[c for c in ("accounts", "tree_path") if c in df.columns])
        df.attrs.update(out=str(root), tree=tree_text, sweep=summary)
        return df
    finally:
        if cleanup:
            import shutil

            shutil.rmtree(root, ignore_errors=True)


def whatif_tables(out: str | Path) -> dict[str, pd.DataFrame]:
    """The tables of a what-if folder: ``summary``, ``entities``, ``windows``, ``jobs`` (pandas).

    Parameters
    ----------
    out : str or Path
        The ``out`` of :func:`whatif` (or ``fairalloc whatif --out``).

    Returns
    -------
    dict of str to pandas.DataFrame
        The done cells' rows, each with the cell's ``key``, ``label``, ``policy`` and settings in front.

    Examples
    --------
    >>> import tempfile, fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 0], run_time=[10, 5], processors=[3, 2], user=[1, 2])
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = whatif(wl, ["fcfs"], capacity=4, out=d, workers=0)
    ...     t = whatif_tables(d)
    >>> sorted(t), t["jobs"]["wait"].tolist()
    (['entities', 'jobs', 'summary', 'windows'], [0.0, 10.0])
    """
    from .store import load

    return {t: load(Path(out) / "sweep", t).df() for t in TABLES}
