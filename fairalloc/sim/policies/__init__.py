"""The simulator's policies, and the one table of their names.

:data:`POLICIES` maps every built-in name of ``fa.simulate(..., policy=name)`` to the factory that
builds a fresh policy from the call's options; nothing registers itself when a module is imported.
:func:`register_policy` adds a name of your own (it is looked up before the built-in names).

=======================  ==============================================================================
``fcfs``, ``sjf``,       rigid jobs on processors, strict order (:mod:`.queue`); ``"<name>+easy"`` adds
``wfp3``, ``unicef``,    EASY backfilling (:mod:`.easy`), ``"easy"`` is ``"fcfs+easy"``
``f1``, ``f2``, ``buc``
``drf``, ``sdrf``,       continuous-time task schedulers (:class:`~.tasks.TaskPolicy`); ``tsf`` and ``cdrf``
``tsf``, ``cdrf``        with ``slot=`` are the slotted baselines (:class:`~.slots.SlotPolicy`)
``tvtsf``                TV-TSF Algorithms 1-5 per slot (:class:`~.slots.SlotPolicy`)
``tsf-static``,          TV-TSF's static baselines (:class:`~.slots.StaticSlotPolicy`)
``cdrf-static``
``slurm``,               Slurm's multifactor priority (fair share over an account tree) on rigid jobs, in
``slurm+easy``           priority order or with EASY backfilling, or (``slurm``) on a task pool
                         (:class:`~.fairshare.SlurmPolicy`)
``htcondor``             HTCondor's user priorities and pie-slice negotiation on rigid jobs
                         (:class:`~.fairshare.HTCondorPolicy`)
``kueue``, ``yarn``,     container clusters' fair sharing on queues of users (:class:`~.container.ContainerPolicy`)
``mesos``, ``volcano``
``learned:FILE``         a learned priority function's JSON file (:class:`~.learned.LearnedPolicy`);
                         ``learned:FILE+easy`` with EASY
=======================  ==============================================================================
"""

from __future__ import annotations

from typing import Any, Callable

from ...errors import InvalidInstanceError
from .base import Policy
from .queue import (BUC, F1, F2, FCFS, QUEUE_POLICIES, SJF, UNICEF, WFP3, PriorityPolicy, QueuePolicy,
                    QueueView, buc_score, ema_update, f1_score, f2_score, make_queue_policy, precision,
                    threshold_update, unicef_score, wfp3_score)
from .slots import SlotPolicy, StaticSlotPolicy
# production fair-share policies (issue 27)
from .fairshare import HTCondorPolicy, SlurmPolicy
from .tasks import TaskPolicy
# learned priority functions: "learned:FILE" (issue 29)
from .learned import PREFIX as LEARNED_PREFIX
from .learned import LearnedFunction, LearnedPolicy, learned_policy

__all__ = ["Policy", "POLICIES", "make_policy", "register_policy", "policy_names", "TaskPolicy", "SlotPolicy",
           "StaticSlotPolicy", "QueuePolicy", "FCFS", "SJF", "WFP3", "UNICEF", "F1", "F2", "BUC",
           "PriorityPolicy", "QueueView", "ema_update", "threshold_update", "precision", "wfp3_score",
           "unicef_score", "f1_score", "f2_score", "buc_score", "make_queue_policy", "QUEUE_POLICIES",
           # production fair-share policies (issue 27)
           "SlurmPolicy", "HTCondorPolicy"]
__all__ += ["LearnedFunction", "LearnedPolicy", "learned_policy"]      # learned priority functions (issue 29)


def _queue(name: str) -> Callable[..., Policy]:
    return lambda **options: make_queue_policy(name, **options)


def _task(name: str) -> Callable[..., Policy]:
    def build(**options: Any) -> Policy:
        if name in ("tsf", "cdrf") and options.get("slot") is not None:
            return SlotPolicy(name, **options)
        options.pop("slot", None)
        return TaskPolicy(name, **options)
    return build


#: Built-in policy names -> ``factory(**options)`` returning a fresh policy for one run.
POLICIES: dict[str, Callable[..., Policy]] = {
    **{name: _queue(name) for name in (*QUEUE_POLICIES, "easy")},
    **{name: _task(name) for name in ("drf", "sdrf", "tsf", "cdrf")},
    "tvtsf": lambda **options: SlotPolicy("tvtsf", **options),
    **{name: (lambda _n=name, **options: StaticSlotPolicy(_n, **options)) for name in ("tsf-static", "cdrf-static")},
    # production fair-share policies (issue 27): Slurm multifactor (+ EASY), HTCondor user priority
    "slurm": lambda **options: SlurmPolicy(**options),
    "slurm+easy": lambda **options: SlurmPolicy(**{"backfill": True, **options}),
    "htcondor": lambda **options: HTCondorPolicy(**options),
}

#: Names added with :func:`register_policy` (looked up first).
_REGISTERED: dict[str, Callable[..., Policy]] = {}


def register_policy(name: str, factory: Callable[..., Policy]) -> None:
    """Make ``simulate(..., policy=name, **options)`` build ``factory(**options)``.

    Parameters
    ----------
    name : str
        The policy's name (case-insensitive); it is looked up before the built-in names of
        :data:`POLICIES`, and an earlier registration of the same name is replaced.
    factory : callable
        Called with the keyword options given to :func:`~fairalloc.simulate` (beyond its own
        arguments); returns a fresh :class:`~fairalloc.sim.Policy` for one run (the protocol is in
        :mod:`fairalloc.sim.engine`; task schedulers: :class:`~fairalloc.sim.TaskPolicy`).

    Examples
    --------
    DRF with the "skip" blocking rule under its own name:

    >>> import fairalloc as fa
    >>> from fairalloc.sim import TaskPolicy, register_policy
    >>> register_policy("drf-skip-doc", lambda **kw: TaskPolicy("drf", blocking="skip", **kw))
    >>> wl = fa.workloads.google_like(5, 50, rng=0)
    >>> r = fa.simulate(wl, fa.sim.ResourcePool.from_workload(wl, 0.5), policy="drf-skip-doc")
    >>> r.task_summary()["policy"]
    'drf'
    """
    _REGISTERED[str(name).lower()] = factory


def policy_names() -> list[str]:
    """Every name :func:`make_policy` knows (registered and built-in), sorted; ``"<queue>+easy"`` not listed.

    Examples
    --------
    >>> {"fcfs", "easy", "sdrf", "tvtsf", "cdrf-static"} <= set(policy_names())
    True
    """
    return sorted(set(POLICIES) | set(_REGISTERED))


def make_policy(name: str, **options: Any) -> Policy:
    """A fresh policy for the name ``name`` (case-insensitive) with ``options``.

    Parameters
    ----------
    name : str
        A name of :data:`POLICIES`, one added by :func:`register_policy`, ``"<queue policy>+easy"``, or
        ``"learned:FILE"`` / ``"learned:FILE+easy"``: the learned priority function in the JSON file
        ``FILE`` (:func:`~.learned.learned_policy`).
    **options
        The policy's keyword options (e.g. ``delta=`` for SDRF, ``k_p=`` for BUC).

    Returns
    -------
    Policy

    Raises
    ------
    InvalidInstanceError
        An unknown name (the message lists the known ones), an option the policy does not take, or
        a ``learned:`` file that is missing or not a learned function (naming the path and what is wrong).

    Examples
    --------
    >>> make_policy("sdrf", delta=0.5).name, make_policy("wfp3+easy").name, make_policy("tsf", slot=1.0).name
    ('sdrf', 'wfp3+easy', 'tsf-slotted')
    >>> make_policy("drf", delta=0.5)
    Traceback (most recent call last):
    ...
    fairalloc.errors.InvalidInstanceError: option(s) ['delta'] do not apply to policy 'drf' (it takes weights, server, blocking, structure, ties, wakeups, wake_on)
    """
    key = str(name).lower()
    if key.startswith(LEARNED_PREFIX) and key not in _REGISTERED:     # "learned:FILE[+easy]" (a path: case kept)
        return learned_policy(str(name), **options)
    factory = _REGISTERED.get(key) or POLICIES.get(key)
    if factory is None and key.endswith("+easy") and key[:-len("+easy")] in QUEUE_POLICIES:
        factory = _queue(key)
    if factory is None:
        raise InvalidInstanceError(f"policy={name!r} is not one of {', '.join(policy_names())} "
                                   "(or '<queue policy>+easy', 'learned:FILE')", argument="policy", value=name)
    return factory(**options)


# ---- issue 28: the container clusters' fair sharing (Kueue, YARN, Mesos, Volcano), keys on the core ----
from .container import QUEUE_POLICIES as _CONTAINER, ContainerPolicy  # noqa: E402

POLICIES.update({name: (lambda _n=name, **options: ContainerPolicy(_n, **options)) for name in _CONTAINER})
__all__ += ["ContainerPolicy"]
