r"""Why did this job wait? One job of a simulation, decision by decision.

:func:`explain` re-runs a simulation (it is deterministic: the same workload, capacity, policy and
options give the same schedule) with the policy *watching* one job: at every decision the scheduler
took while that job waited, the policy records the job's priority and each factor, the jobs ahead of
it with theirs, and what blocked it. Nothing is recorded in ordinary runs, so they pay nothing for it.

Reasons (``reason`` of each decision):

``"lower priority"``
    Slurm without backfilling: a job ahead of it (higher priority, or equal priority and earlier) does
    not fit, and nothing overtakes it. HTCondor: its user's pie slice this cycle (the share of the pool
    in proportion to 1/EUP, minus what the user already runs) was used up, or went to the user's
    earlier jobs.
``"no room"``
    It was next in line (the blocked head) or its turn came, and it needs more processors than are free.
``"backfill reservation"``
    Slurm with EASY backfilling: it fits in the free processors now, but would end (by its requested
    time) after the reservation of the blocked head job and needs more processors than that job leaves
    spare (EASY's test, :mod:`fairalloc.sim.policies.easy`).
``"started"``
    The decision that started it.

The policies that can explain are those that take ``watch=`` (``"slurm"``, ``"slurm+easy"``,
``"htcondor"``: :mod:`fairalloc.sim.policies.fairshare`).

Examples
--------
The simulator's hand-computed example (:mod:`fairalloc.sim.policies.fairshare`): user 0's second job
(row 1) waits behind users 1 and 2, whose fair-share factor is higher:

>>> import fairalloc as fa
>>> wl = fa.workloads.Workload(submit=[0, 50, 50, 50], run_time=[100, 10, 10, 10], processors=[4, 4, 4, 4],
...                            user=[0, 0, 1, 2])
>>> e = explain(wl, 1, capacity=4, policy="slurm", calc_period=10)
>>> [(d["time"], d["reason"]) for d in e.decisions]
[(50.0, 'lower priority'), (100.0, 'lower priority'), (110.0, 'no room'), (120.0, 'started')]
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import InvalidInstanceError

__all__ = ["REASONS", "Explanation", "explain"]

#: The reasons a decision can give (module docstring).
REASONS = ("lower priority", "no room", "backfill reservation", "started")


def _json_default(x: Any) -> Any:
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(f"not JSON serialisable: {type(x).__name__}")


@dataclass
class Explanation:
    """The decisions about one job of a simulation (:func:`explain`).

    Attributes
    ----------
    job : dict
        ``row``, ``job_id``, ``user``, ``submit``, ``start``, ``wait``, ``processors``.
    policy : str
    options : dict
        The policy's options of the run.
    decisions : list of dict
        One per decision while the job waited, in time order (the last one started it): ``time``,
        ``reason``, ``detail``; Slurm: ``job`` (its ``priority`` and factors ``age``, ``fairshare``,
        ``job_size``, ``partition``, ``qos``, their ``weighted`` values, its user's ``usage``),
        ``ahead`` (the same for each job before it in priority order), ``position``, ``free``,
        ``head``, EASY's ``shadow`` and ``extra``; HTCondor: ``job`` (its user's ``rup``, ``eup``,
        ``factor``), ``users`` (each idle user's RUP, EUP, share and limit in this cycle), ``group``.

    Examples
    --------
    An explanation holds plain values; :meth:`text` is the report, :meth:`to_json` everything:

    >>> e = Explanation(job={"row": 0, "job_id": 1, "user": "7", "submit": 0.0, "start": 5.0, "wait": 5.0,
    ...                      "processors": 2}, policy="slurm",
    ...                 decisions=[{"time": 0.0, "reason": "no room", "detail": "needs 2 processors, 0 free"},
    ...                            {"time": 5.0, "reason": "started"}])
    >>> e.counts()
    {'no room': 1, 'started': 1}
    >>> print(e.text().splitlines()[0])
    Job 1 (row 0, user 7, 2 processors) under slurm: submitted at 0 s, started at 5 s after waiting 5 s.
    """

    job: dict[str, Any]
    policy: str
    options: dict[str, Any] = field(default_factory=dict)
    decisions: list[dict[str, Any]] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """How many decisions gave each reason."""
        out: dict[str, int] = {}
        for d in self.decisions:
            out[d["reason"]] = out.get(d["reason"], 0) + 1
        return out

    def to_dict(self) -> dict[str, Any]:
        """Everything, as plain Python values (what ``--json`` prints)."""
        return json.loads(self.to_json())

    def to_json(self, indent: int | None = 2) -> str:
        """:meth:`to_dict` as JSON text."""
        return json.dumps({"job": self.job, "policy": self.policy,
                           "options": {k: (v if isinstance(v, (int, float, str, bool, type(None))) else repr(v))
                                       for k, v in self.options.items()},
                           "reasons": self.counts(), "decisions": self.decisions}, indent=indent,
                          default=_json_default)

    def text(self, max_ahead: int = 3, max_lines: int = 40) -> str:
        """A report a user can read: the job, then one line per run of decisions with the same reason and
        the same job blocking it (``max_lines`` of them at most: the first and last are kept), each with
        its priority and factors and the first ``max_ahead`` jobs ahead of it."""
        j = self.job
        wait = j.get("wait")
        head = (f"Job {j['job_id']} (row {j['row']}, user {j['user']}, {j['processors']} processors) under "
                f"{self.policy}: submitted at {j['submit']:g} s, ")
        head += (f"started at {j['start']:g} s after waiting {wait:g} s." if j.get("start") is not None
                 else "never started.")
        lines = [head]
        if not self.decisions:
            lines.append("The scheduler made no decision while it waited (it started at its submission, or the "
                         "policy took no decision before it started).")
            return "\n".join(lines)
        c = self.counts()
        lines.append(f"{len(self.decisions)} decision(s) while it waited: "
                     + ", ".join(f"{k} {v}" for k, v in c.items()) + ".")
        runs: list[list[dict[str, Any]]] = []
        for d in self.decisions:
            key = (d["reason"], d.get("head"), tuple(a["job"] for a in d.get("ahead", [])[:1]))
            if runs and runs[-1][0]["_key"] == key:
                runs[-1].append(d)
            else:
                runs.append([{**d, "_key": key}])
        shown = runs if len(runs) <= max_lines else runs[:max_lines // 2] + [None] + runs[-(max_lines // 2):]
        for r in shown:
            if r is None:
                lines.append(f"  ... {len(runs) - 2 * (max_lines // 2)} more runs of decisions ...")
                continue
            d0, d1 = r[0], r[-1]
            when = f"t={d0['time']:g}" if len(r) == 1 else f"t={d0['time']:g}..{d1['time']:g} ({len(r)} decisions)"
            lines.append(f"  {when}: {d1['reason']}" + (f": {d1['detail']}" if d1.get("detail") else ""))
            lines.extend("    " + s for s in _factor_lines(d1, max_ahead))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text()


def _slurm_line(f: dict[str, Any]) -> str:
    w = f["weighted"]
    return (f"job {f['job']} (user {f['user']}): priority {f['priority']:g} = age {w['age']:.6g} + fair share "
            f"{w['fairshare']:.6g} + job size {w['job_size']:.6g} + partition {w['partition']:.6g} + qos {w['qos']:.6g} "
            f"(factors {f['age']:.4g}, {f['fairshare']:.4g}, {f['job_size']:.4g}; user usage {f['usage']:.6g})")


def _factor_lines(d: dict[str, Any], max_ahead: int) -> list[str]:
    out = []
    if "priority" in d.get("job", {}):
        out.append("this " + _slurm_line(d["job"]) + f"; position {d['position'] + 1} of {d['queued']}")
        for a in d.get("ahead", [])[:max_ahead]:
            out.append("ahead: " + _slurm_line(a))
        more = len(d.get("ahead", [])) - max_ahead
        if more > 0:
            out.append(f"ahead: ... {more} more")
    elif "rup" in d.get("job", {}):
        jb = d["job"]
        out.append(f"its user {jb['user']}: RUP {jb['rup']:.6g}, EUP {jb['eup']:.6g} (factor {jb['factor']:g})"
                   + (f", group {d['group']}" if d.get("group") else ""))
        for u in d.get("users", [])[:max_ahead + 1]:
            out.append(f"user {u['user']}: EUP {u['eup']:.6g}, in use {u['in_use']:g}, share {u['share']:.4g}, "
                       f"limit {u['limit']:.4g}")
    return out


def explain(workload: Any, job: int | None = None, *, capacity: Any = None, policy: str = "slurm",
            job_id: Any = None, result: Any = None, enforce_walltime: bool = False, **options: Any) -> Explanation:
    """Why job ``job`` (a workload row) waited under ``policy``: every decision while it was pending.

    Parameters
    ----------
    workload : Workload
        The simulated workload.
    job : int, optional
        Its row in ``workload`` (or give ``job_id``).
    capacity : optional
        As :func:`fairalloc.simulate`.
    policy : str, default "slurm"
        A policy that takes ``watch=``: ``"slurm"``, ``"slurm+easy"``, ``"htcondor"``.
    job_id : optional
        The job's ``job_id`` instead of its row.
    result : SimulationResult, optional
        The run to explain: the re-run must start the job at the same time (else an error says the
        settings differ).
    enforce_walltime : bool, default False
    **options
        The policy's options, as given to :func:`fairalloc.simulate`.

    Returns
    -------
    Explanation

    Raises
    ------
    InvalidInstanceError
        No such row or job id, a job rejected before the run, a policy that cannot explain, a re-run that
        differs from ``result``.

    Examples
    --------
    EASY's reservation (the explain guide): job 2 fits in the 2 free processors at 2 but would run past the
    reservation of job 1 (4 wide, at 100, when job 0 ends) and no processor is spare; at 100 job 1 takes
    the machine; job 2 starts at 110:

    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 1, 2], run_time=[100, 10, 200], processors=[2, 4, 2], user=[0, 1, 2])
    >>> e = explain(wl, 2, capacity=4, policy="slurm+easy", calc_period=1e6)
    >>> [(d["time"], d["reason"]) for d in e.decisions]
    [(2.0, 'backfill reservation'), (100.0, 'no room'), (110.0, 'started')]
    >>> e.decisions[0]["shadow"], e.decisions[0]["extra"]
    (100.0, 0)
    """
    from ..sim import simulate
    from ..sim.policies import make_policy

    n = len(workload)
    if (job is None) == (job_id is None):
        raise InvalidInstanceError("give one of job (a workload row) and job_id", argument="job", value=job)
    if job_id is not None:
        rows = np.flatnonzero(workload.job_id == job_id)
        if not len(rows):
            raise InvalidInstanceError(f"job_id={job_id!r} is not in the workload", argument="job_id", value=job_id)
        job = int(rows[0])
    if isinstance(job, bool) or not isinstance(job, (int, np.integer)) or not 0 <= job < n:
        raise InvalidInstanceError(f"job={job!r} must be a workload row in [0, {n})", argument="job", value=job)
    job = int(job)
    try:
        pol = make_policy(policy, watch=job, **options)
    except (InvalidInstanceError, TypeError) as exc:
        if "watch" in str(exc):
            raise InvalidInstanceError(f"policy={policy!r} cannot explain its decisions; explain supports 'slurm', "
                                       "'slurm+easy' and 'htcondor'", argument="policy", value=policy) from None
        raise
    r = simulate(workload, capacity, policy=pol, enforce_walltime=enforce_walltime, engine="events")
    jobs = r.jobs.set_index("row")
    if job not in jobs.index:
        why = r.rejected.loc[r.rejected["row"] == job, "reason"]
        raise InvalidInstanceError(f"job {job} was rejected before the run ({why.iloc[0] if len(why) else 'unknown'}): "
                                   "it never waited", argument="job", value=job)
    row = jobs.loc[job]
    start = float(row["start"])
    if result is not None:
        theirs = result.jobs.set_index("row")
        if job not in theirs.index or not (float(theirs.loc[job, "start"]) == start
                                            or (np.isnan(start) and np.isnan(theirs.loc[job, "start"]))):
            raise InvalidInstanceError(f"the re-run starts job {job} at {start}, the result at "
                                       f"{theirs.loc[job, 'start'] if job in theirs.index else 'never'}: give the "
                                       "same workload, capacity, policy and options", argument="result",
                                       value=result.policy)
    info = {"row": job, "job_id": int(workload.job_id[job]), "user": str(workload.user[job]),
            "submit": float(row["submit"]), "start": None if np.isnan(start) else start,
            "wait": None if np.isnan(start) else float(row["wait"]), "processors": int(workload.processors[job])}
    for d in pol.log:
        if d["reason"] == "inconsistent":        # the recorded test says it should have started: a bug
            raise RuntimeError(f"explain: at t={d['time']} job {job} passes the backfill test but did not start")
    return Explanation(job=info, policy=pol.name, options=dict(options), decisions=list(pol.log))
