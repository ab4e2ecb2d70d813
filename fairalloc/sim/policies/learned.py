r"""A learned priority function as a file: formula, coefficients and how it was obtained.

A :class:`LearnedFunction` is what the learning method produces and what a scheduler uses: a score
:math:`f(r, n, s)` of a waiting job's run-time estimate *r* (seconds), processors *n* and submit
time *s* (seconds), **lowest first** (the learned-priorities paper's convention, Section 2).
Inputs are taken as :math:`r \gets \max(r, 1)` and :math:`s \gets \max(s, 1)` before the formula
sees them, as the shipped F1/F2 do (``fairalloc.sim.policies.queue``), so that ``log(r)``, ``log(s)``
and ``1/r`` are finite for every job.

File format (JSON, UTF-8)::

    {
      "format": "fairalloc.learned-priority",
      "version": 1,
      "name": "F1",
      "formula": "c1 * sqrt(r) * c2 * n + c3 * log10(s)",
      "coefficients": {"c1": 0.0001352, "c2": 0.2765352, "c3": 0.007147},
      "lower_first": true,
      "inputs": {"r": "...", "n": "...", "s": "..."},
      "provenance": {"fairalloc": "0.1.0", "states": ..., "trials": ..., "seed": ..., ...}
    }

``formula`` is in the restricted grammar of :mod:`.formula` (parsed, never evaluated as code);
``coefficients`` holds exactly the names the formula uses; ``provenance`` is free-form JSON that
says where the function came from (for a learned one: the states, trials per state, seed, workload,
backfilling, the fit and its held-out error, and the fairalloc version).

The paper's two functions are :func:`paper_function` ``("F1")`` and ``("F2")``, with the decimal
logarithm of *s*, as ``fairalloc.sim.policies.queue``'s F1 and F2. Table 1 does not give the base;
its :math:`c_3` belongs to :math:`\log_{10} s`: the authors' published pipeline
(``hpcsched/gen-sched-policies``, SC'17) fits and evaluates ``log10`` terms only, and a least-squares
refit of Table 1's forms on the authors' published scores gives :math:`c_3` = 0.0072143 (F1) and
0.0069532 (F2) with :math:`\log_{10} s` against Table 1's 0.0071470 and 0.0069554, and 0.0031331
and 0.0030197 with :math:`\ln s` (the evidence in full: the docstring of
:mod:`fairalloc.sim.policies.queue`). ``log(s)`` in a formula is the natural logarithm, ``log10(s)``
the decimal one.

References
----------
.. [1] D. Carastan-Santos, R. Y. de Camargo, learned nonlinear priority functions (workshop paper,
   ``shared/papers/originals/learned-priorities-pt.txt``), Section 2 and Table 1.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from ...errors import InvalidInstanceError
from .formula import Formula
from .queue import PriorityPolicy, QueueView

__all__ = ["LearnedFunction", "LearnedPolicy", "learned_policy", "paper_function", "prepare_inputs", "FORMAT",
           "FORMAT_VERSION", "TABLE1", "INPUTS", "FLOOR", "PREFIX"]

FORMAT = "fairalloc.learned-priority"
FORMAT_VERSION = 1
#: r and s below this are taken as this (seconds) before the formula sees them.
FLOOR = 1.0
#: What the inputs mean (written into every file).
INPUTS = {"r": "run-time estimate in seconds (the requested time, or the run time when none is known), "
               "taken as at least 1",
          "n": "processors the job requests",
          "s": "submit time in seconds from the start of the trace (of the training state's window when "
               "learning), taken as at least 1"}

#: Table 1 of the paper, verbatim: (formula, c1, c2, c3). In F1, c1 and c2 enter only as the product c1*c2.
TABLE1 = {
    "F1": ("c1 * sqrt(r) * c2 * n + c3 * log10(s)", 0.0001352, 0.2765352, 0.0071470),
    "F2": ("c1 * r + c2 * sqrt(n) + c3 * log10(s)", 0.0000002, 0.0003207, 0.0069554),
}


def prepare_inputs(r: Any, n: Any, s: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The inputs a formula sees: float arrays (at least 1-d) with *r* and *s* taken as at least
    :data:`FLOOR` (the one place of that rule: evaluation and fitting both call it).

    Parameters
    ----------
    r, n, s : array_like
        Run-time estimates (s), processors, submit times (s).

    Returns
    -------
    tuple of three ndarray of float

    Examples
    --------
    >>> [a.tolist() for a in prepare_inputs([0, 50], [4, 1], [0.5, 3600])]
    [[1.0, 50.0], [4.0, 1.0], [1.0, 3600.0]]
    """
    r = np.maximum(np.atleast_1d(np.asarray(r, dtype=float)), FLOOR)
    s = np.maximum(np.atleast_1d(np.asarray(s, dtype=float)), FLOOR)
    return r, np.atleast_1d(np.asarray(n, dtype=float)), s


@dataclass(frozen=True, eq=False)
class LearnedFunction:
    """A priority function :math:`f(r, n, s)` with its coefficients and provenance (lowest first).

    Parameters
    ----------
    formula : str or Formula
        The expression (grammar of :mod:`.formula`).
    coefficients : mapping of str to float
        A finite value for every coefficient the formula uses, and no other.
    name : str, default "learned"
        A short label (tables, legends).
    provenance : mapping, optional
        JSON-serialisable description of where the function comes from.
    lower_first : bool, default True
        Start the lowest value first (the paper's convention); ``False`` starts the highest first.

    Raises
    ------
    InvalidInstanceError
        A formula outside the grammar, a missing, extra or non-finite coefficient, a provenance
        that is not JSON.

    Examples
    --------
    The paper's F1 on a 100 s, 2-processor job submitted at s = 1:
    0.0001352 * 10 * 0.2765352 * 2 + 0.007147 * log10 1:

    >>> f1 = paper_function("F1")
    >>> round(float(f1(100, 2, 1)[0]), 9)
    0.000747751
    >>> LearnedFunction("c1 * r + c2", {"c1": 1.0})
    Traceback (most recent call last):
    ...
    fairalloc.errors.InvalidInstanceError: coefficients ['c1'] do not match formula 'c1 * r + c2' (it uses ['c1', 'c2']; missing ['c2'], not used [])
    """

    formula: Formula
    coefficients: Mapping[str, float]
    name: str = "learned"
    provenance: Mapping[str, Any] = field(default_factory=dict)
    lower_first: bool = True

    def __post_init__(self) -> None:
        f = self.formula if isinstance(self.formula, Formula) else Formula(self.formula)
        coeffs = {}
        for k, v in dict(self.coefficients).items():
            try:
                x = float(v)
            except (TypeError, ValueError):
                raise InvalidInstanceError(f"coefficients[{k!r}]={v!r} is not a number", argument="coefficients",
                                           index=(k,), value=v) from None
            if not math.isfinite(x):
                raise InvalidInstanceError(f"coefficients[{k!r}]={v!r} must be finite", argument="coefficients",
                                           index=(k,), value=v)
            coeffs[k] = x
        f(1.0, 1.0, 1.0, coeffs)                         # names must match (raises naming both)
        try:
            prov = json.loads(json.dumps(dict(self.provenance)))
        except (TypeError, ValueError) as exc:
            raise InvalidInstanceError(f"provenance is not JSON-serialisable: {exc}", argument="provenance",
                                       value=str(self.provenance)[:80]) from None
        object.__setattr__(self, "formula", f)
        object.__setattr__(self, "coefficients", {k: coeffs[k] for k in f.coefficients})
        object.__setattr__(self, "provenance", prov)
        object.__setattr__(self, "name", str(self.name))
        object.__setattr__(self, "lower_first", bool(self.lower_first))

    def __call__(self, r: Any, n: Any, s: Any) -> np.ndarray:
        """The priority of each job (vectorised; lower starts first unless ``lower_first=False``).

        Parameters
        ----------
        r, n, s : array_like
            Run-time estimates (s), processors, submit times (s); broadcast together. *r* and *s*
            are taken as at least :data:`FLOOR` (module docstring).

        Returns
        -------
        ndarray of float, at least 1-d
        """
        return self.formula(*prepare_inputs(r, n, s), self.coefficients)

    def order(self, r: Any, n: Any, s: Any) -> np.ndarray:
        """Indices of the jobs in start order (ties in input order, as an FCFS queue breaks them).

        Examples
        --------
        >>> paper_function("F2").order([3600, 60], [64, 1], [7200, 7200]).tolist()   # the short serial job first
        [1, 0]
        """
        key = self(r, n, s)
        return np.argsort(key if self.lower_first else -key, kind="stable")

    # -- files ------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The file's content (module docstring)."""
        return {"format": FORMAT, "version": FORMAT_VERSION, "name": self.name, "formula": self.formula.text,
                "coefficients": dict(self.coefficients), "lower_first": self.lower_first, "inputs": dict(INPUTS),
                "provenance": dict(self.provenance)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str = "data") -> "LearnedFunction":
        """Inverse of :meth:`to_dict`, checking the format, version and every field.

        Raises
        ------
        InvalidInstanceError
            Not a mapping, another format or a newer version, a missing or mistyped field (the
            message names ``source`` and the field).
        """
        if not isinstance(data, Mapping):
            raise InvalidInstanceError(f"{source}: a learned function is a JSON object, got {type(data).__name__}",
                                       argument="function", value=source)
        if data.get("format") != FORMAT:
            raise InvalidInstanceError(f"{source}: format={data.get('format')!r}, expected {FORMAT!r}",
                                       argument="format", value=data.get("format"))
        if data.get("version") != FORMAT_VERSION:
            raise InvalidInstanceError(f"{source}: version={data.get('version')!r}; this fairalloc reads version "
                                       f"{FORMAT_VERSION}", argument="version", value=data.get("version"))
        for key, kind in (("formula", str), ("coefficients", Mapping)):
            if not isinstance(data.get(key), kind):
                raise InvalidInstanceError(f"{source}: field {key!r} is missing or not a {kind.__name__}",
                                           argument=key, value=data.get(key))
        lower = data.get("lower_first", True)
        if not isinstance(lower, bool):
            raise InvalidInstanceError(f"{source}: lower_first={lower!r} must be true or false",
                                       argument="lower_first", value=lower)
        prov = data.get("provenance", {})
        if not isinstance(prov, Mapping):
            raise InvalidInstanceError(f"{source}: provenance must be an object", argument="provenance", value=prov)
        return cls(data["formula"], data["coefficients"], name=str(data.get("name", "learned")), provenance=prov,
                   lower_first=lower)

    def save(self, path: str | Path) -> Path:
        """Write the JSON file (indented, keys in the order of :meth:`to_dict`)."""
        path = Path(path)
        path.write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: str | Path) -> "LearnedFunction":
        """Read a file written by :meth:`save` (or by hand in the same format).

        Raises
        ------
        FileNotFoundError
            No such file.
        InvalidInstanceError
            Not JSON, or not a learned function (:meth:`from_dict`).

        Examples
        --------
        >>> import tempfile, os
        >>> with tempfile.TemporaryDirectory() as d:
        ...     p = paper_function("F2").save(os.path.join(d, "f2.json"))
        ...     g = LearnedFunction.load(p)
        >>> g.name, g.formula.text, g.coefficients["c3"]
        ('F2', 'c1 * r + c2 * sqrt(n) + c3 * log10(s)', 0.0069554)
        """
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"learned function file not found: {path}")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InvalidInstanceError(f"{path}: not a JSON file: {exc}", argument="path", value=str(path)) from None
        return cls.from_dict(data, source=str(path))

    def __repr__(self) -> str:
        cs = ", ".join(f"{k}={v:.6g}" for k, v in self.coefficients.items())
        return f"LearnedFunction({self.name!r}: {self.formula.text}; {cs}; {'lowest' if self.lower_first else 'highest'} first)"


def paper_function(name: str) -> LearnedFunction:
    """The learned-priorities paper's F1 or F2 with Table 1's coefficients, as printed.

    Parameters
    ----------
    name : {"F1", "F2"}

    Returns
    -------
    LearnedFunction
        Decimal logarithm (module docstring); provenance cites the table.

    Examples
    --------
    >>> paper_function("f1").formula.text
    'c1 * sqrt(r) * c2 * n + c3 * log10(s)'
    """
    key = str(name).upper()
    if key not in TABLE1:
        raise InvalidInstanceError(f"name={name!r} is not one of {sorted(TABLE1)}", argument="name", value=name)
    formula, c1, c2, c3 = TABLE1[key]
    return LearnedFunction(formula, {"c1": c1, "c2": c2, "c3": c3}, name=key,
                           provenance={"source": "learned-priorities paper, Table 1 (Carastan-Santos and de Camargo)",
                                       "log": "decimal (the paper does not give the base; the authors' code "
                                              "fits and evaluates log10, and refits of Table 1 agree)",
                                       "trained_on": "Lublin-Feitelson model, 256 processors, |S| = 16, |Q| = 32, "
                                                     "250,000 permutations per state, no backfilling"})


# ---- the learned function as a queue policy ---------------------------------------------------------
#: ``fa.simulate(..., policy=PREFIX + path)`` schedules by the learned function in the file.
PREFIX = "learned:"


class LearnedPolicy(PriorityPolicy):
    """Order the queue by a :class:`LearnedFunction` (lowest first unless its ``lower_first`` is False).

    The priority of a waiting job is ``function(r, n, s)`` with *r* its run-time estimate (the
    requested time, or the run time when the workload has none), *n* its processors and *s* its
    submit time (seconds from the trace start), evaluated by :meth:`LearnedFunction.__call__`: the
    code the fit evaluates (:func:`prepare_inputs`, then the :class:`~.formula.Formula`), so a
    function scores a job in a simulation exactly as it scored it when it was fitted. Ties keep
    arrival order (FCFS underneath), as every queue policy of :mod:`.queue`.

    The key depends on the job alone (not on the wait), so it is computed once per job: by name
    (``policy="learned:FILE"``, :func:`learned_policy`) the simulation runs on the compiled loop,
    :func:`fairalloc.sim.kernels.rigid_run` with each job's rank in that order; a policy object
    passed to :func:`~fairalloc.simulate` runs on the event engine (:meth:`score` at each queue
    event), which gives the same schedule.

    Parameters
    ----------
    function : LearnedFunction, str or Path
        The function, or the path of its JSON file (:meth:`LearnedFunction.load`).
    backfill : bool, default False
        EASY backfilling on top of the order (name ``"...+easy"``).
    name : str, optional
        Default ``"learned:<function name>"``.

    Raises
    ------
    InvalidInstanceError
        Not a learned function, or (in a simulation) a job whose priority is not finite, naming the
        job and its inputs.

    Examples
    --------
    The paper's F2 (Table 1): at 10 jobs 1, 2, 3 wait with estimates 8, 2, 4 and 2, 2, 1 processors;
    their priorities are dominated by :math:`c_3 \\ln s` (s = 1, 2, 3), so they start in arrival order,
    as FCFS does (job 3 waits for job 2, the third 2-processor job of the four processors):

    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 1, 2, 3], run_time=[10, 8, 2, 4], processors=[4, 2, 2, 1])
    >>> fa.simulate(wl, 4, policy=LearnedPolicy(paper_function("F2"))).jobs["start"].tolist()
    [0.0, 10.0, 10.0, 12.0]

    Shortest first, as a function of *r* alone (SJF), starts job 2 (2 s) and job 3 (4 s) at 10:

    >>> sjf = LearnedFunction("c1 * r", {"c1": 1.0}, name="sjf")
    >>> fa.simulate(wl, 4, policy=LearnedPolicy(sjf)).jobs["start"].tolist()
    [0.0, 12.0, 10.0, 10.0]
    """

    name = "learned"

    def __init__(self, function: "LearnedFunction | str | Path", *, backfill: bool = False,
                 name: str | None = None) -> None:
        if isinstance(function, (str, Path)):
            function = LearnedFunction.load(function)
        if not isinstance(function, LearnedFunction):
            raise InvalidInstanceError(f"function={type(function).__name__} must be a LearnedFunction or the path "
                                       "of its JSON file", argument="function", value=type(function).__name__)
        self.function = function
        super().__init__(higher_first=not function.lower_first, backfill=backfill,
                         name=name if name is not None else f"{PREFIX}{function.name}")

    def priorities(self, estimate: Any, processors: Any, submit: Any, jobs: Any = None) -> np.ndarray:
        """The function at each job, checked finite (``jobs``: the workload rows, for the message)."""
        key = self.function(estimate, processors, submit)
        bad = np.flatnonzero(~np.isfinite(key))
        if bad.size:
            k = int(bad[0])
            j = int(jobs[k]) if jobs is not None else k
            r, n, s = (float(np.atleast_1d(np.asarray(x, float))[k]) for x in (estimate, processors, submit))
            raise InvalidInstanceError(
                f"learned function {self.function.name!r} ({self.function.formula.text}) is {float(key[k])!r} at job {j} "
                f"(r={r!r}, n={n!r}, s={s!r}): a priority must be finite", argument="policy", index=(j,),
                value=float(key[k]))
        return key

    def score(self, view: QueueView) -> np.ndarray:
        return self.priorities(view.estimate, view.processors, view.submit, view.jobs)

    # -- the compiled loop: the key is static, so the order is a rank per job -----------------------
    def kernel_applies(self, sim: Any) -> bool:
        """Whether :meth:`run_kernel` runs ``sim``: rigid one-task jobs on processors, no progress bar."""
        from ..cluster_state import ProcessorPool

        return isinstance(sim.state, ProcessorPool) and bool(np.all(sim.workload.tasks == 1)) and not sim.progress

    def run_kernel(self, sim: Any) -> Any:
        """Run ``sim`` on :func:`fairalloc.sim.kernels.rigid_run` with each job's rank in this order
        (the same schedule as the event engine; call only when :meth:`kernel_applies`)."""
        from ..simulate import _run_fcfs_kernel

        wl = sim.workload
        est = np.where(np.isnan(wl.requested_time), wl.run_time, wl.requested_time)
        key = self.priorities(est, wl.processors, wl.submit, np.arange(len(wl)))
        return _run_fcfs_kernel(sim, easy=self.backfill, key=-key if self.higher_first else key)


def learned_policy(name: str, **options: Any) -> LearnedPolicy:
    """The policy ``"learned:FILE"`` or ``"learned:FILE+easy"`` (:func:`~fairalloc.sim.make_policy`).

    Parameters
    ----------
    name : str
        :data:`PREFIX` then the path of a learned-function JSON file, optionally ``"+easy"``.
    **options
        ``backfill`` and ``name`` of :class:`LearnedPolicy`.

    Raises
    ------
    InvalidInstanceError
        No path, a missing file, a file that is not a learned function (the message names the path
        and what is wrong), an option :class:`LearnedPolicy` does not take.

    Examples
    --------
    >>> learned_policy("learned:no/such.json")
    Traceback (most recent call last):
    ...
    fairalloc.errors.InvalidInstanceError: policy='learned:no/such.json': learned function file not found: no/such.json
    """
    spec = str(name)[len(PREFIX):]
    backfill = options.pop("backfill", False)
    if spec.lower().endswith("+easy"):
        spec, backfill = spec[:-len("+easy")], True
    if not spec.strip():
        raise InvalidInstanceError(f"policy={name!r} names no file (write learned:PATH, the path of a learned-function "
                                   "JSON file, e.g. from `fairalloc learn fit`)", argument="policy", value=name)
    extra = sorted(set(options) - {"name"})
    if extra:
        raise InvalidInstanceError(f"option(s) {extra} do not apply to policy {name!r} (it takes backfill, name)",
                                   argument="options", value=extra)
    try:
        function = LearnedFunction.load(spec)
    except FileNotFoundError as exc:
        raise InvalidInstanceError(f"policy={name!r}: {exc}", argument="policy", value=name) from None
    except InvalidInstanceError as exc:
        raise InvalidInstanceError(f"policy={name!r}: {exc}", argument="policy", value=name) from None
    return LearnedPolicy(function, backfill=backfill, **options)
