r"""Hypothesis strategies for fairness checks: instances, clusters, games, allocations and misreports.

Strategies are plural nouns with keyword-only options, checked before any drawing (a bad option
raises ``hypothesis.errors.InvalidArgument`` naming it). Every instance is built constructively, so
it is valid by construction (no ``.filter``): a positive entry is placed before the others may be
zero, a task is sized to fit on a server drawn from its eligible set first. Values come from small
integer grids (they shrink to simple numbers and produce ties) mixed with floats (generic
positions), so that minimal counterexamples are readable.

Pareto efficiency says little on instances where every user needs every resource and nobody is
capped (it reduces to "some resource is saturated", ``axioms.md``): :func:`pooled_instances` mixes in
zero demands and caps unless told not to.

>>> from hypothesis import given, settings
>>> @settings(max_examples=5, derandomize=True)
... @given(pooled_instances(n_agents=(2, 3), n_resources=(2, 2)))
... def test(inst):
...     assert inst.n_resources == 2
>>> test()
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from fairalloc import Cluster, Instance, TaskInstance, TimeVaryingInstance, shares

from .cases import Case
from .claims import Domain
from .repeated import RepeatedGame

__all__ = [
    "demand_vectors",
    "pooled_instances",
    "commitment_arrays",
    "pooled_allocations",
    "task_instances",
    "integer_allocations",
    "time_varying_instances",
    "repeated_games",
    "misreports",
    "cases",
]


def _check_range(name: str, value: Any, lo: int = 1) -> tuple[int, int]:
    if isinstance(value, int):
        value = (value, value)
    try:
        a, b = (int(v) for v in value)
    except (TypeError, ValueError):
        raise InvalidArgument(f"{name}={value!r} must be an int or a (min, max) pair") from None
    if a < lo or b < a:
        raise InvalidArgument(f"{name}={value!r} must satisfy {lo} <= min <= max")
    return a, b


def _check_choice(name: str, value: Any, choices) -> None:
    if value not in choices:
        raise InvalidArgument(f"{name}={value!r} must be one of {choices}")


_GRID = st.integers(1, 10).map(lambda k: k / 10)               # 0.1 .. 1.0, shrinks to 0.1
_FLOAT = st.floats(0.05, 1.0, allow_nan=False, allow_infinity=False, allow_subnormal=False)
_VALUE = st.one_of(_GRID, _FLOAT)


@st.composite
def demand_vectors(draw, n_resources: int, *, zero_demands: bool = False) -> np.ndarray:
    """A per-task demand vector with at least one positive entry (zeros elsewhere when allowed).

    Parameters
    ----------
    n_resources : int
        Length of the vector, >= 1.
    zero_demands : bool, default False
        Entries other than one drawn positive entry may be 0.

    Returns
    -------
    SearchStrategy of ndarray of shape (n_resources,)
        Non-negative floats (small integer grid values mixed with floats), at least one positive.

    Raises
    ------
    hypothesis.errors.InvalidArgument
        ``n_resources < 1`` (when drawing).

    Examples
    --------
    Every draw of 10 (fixed seed) is a non-negative (3,) vector with a positive entry:

    >>> from hypothesis import find, given, settings
    >>> @settings(max_examples=10, derandomize=True, database=None)
    ... @given(demand_vectors(3, zero_demands=True))
    ... def check(x):
    ...     assert x.shape == (3,) and (x >= 0).all() and (x > 0).any()
    >>> check()
    >>> find(demand_vectors(2), lambda d: True, settings=settings(database=None)).shape
    (2,)
    """
    if n_resources < 1:
        raise InvalidArgument(f"n_resources={n_resources!r} must be >= 1")
    first = draw(st.integers(0, n_resources - 1))
    out = np.empty(n_resources)
    for r in range(n_resources):
        if r != first and zero_demands and draw(st.booleans()):
            out[r] = 0.0
        else:
            out[r] = draw(_VALUE)
    return out


@st.composite
def pooled_instances(draw, *, n_agents=(2, 4), n_resources=(1, 3), zero_demands: bool = True,
                     caps: bool = True, weights: bool = False, ties: bool = True,
                     magnitudes: str = "moderate") -> Instance:
    """Pooled :class:`~fairalloc.Instance` (total demands ``K_i d_i``, capacities, weights).

    Parameters
    ----------
    n_agents, n_resources : int or (min, max)
    zero_demands : bool
        Users may not need some resources.
    caps : bool
        Users may have finite demands (total dominant share 0.05..1, satisfiable); otherwise every
        user's total dominant demand is 2 (never satisfied).
    weights : bool
        Weights drawn from 1..4 (else all 1).
    ties : bool
        Users may copy an earlier user's demand (exact ties).
    magnitudes : {"moderate", "extreme"}
        "extreme" multiplies each resource's capacity and demands by :math:`10^k`, k in -6..6 (the
        same instance in other units: every share is unchanged).

    Returns
    -------
    SearchStrategy of fairalloc.Instance

    Raises
    ------
    hypothesis.errors.InvalidArgument
        A range that is not an int or (min, max) with 1 <= min <= max, or an unknown ``magnitudes``.

    Examples
    --------
    Without caps every user's total dominant share is 2 (never satisfied); the sizes stay in range:

    >>> from fairalloc import shares
    >>> from hypothesis import find, given, settings
    >>> @settings(max_examples=10, derandomize=True, database=None)
    ... @given(pooled_instances(n_agents=(2, 3), n_resources=2, caps=False))
    ... def check(x):
    ...     assert 2 <= x.n_agents <= 3 and x.n_resources == 2
    ...     assert np.allclose(shares.dominant_shares(x.demands, x.capacities), 2)
    >>> check()
    """
    na = _check_range("n_agents", n_agents)
    nr = _check_range("n_resources", n_resources)
    _check_choice("magnitudes", magnitudes, ("moderate", "extreme"))
    n = draw(st.integers(*na))
    m = draw(st.integers(*nr))
    cap = np.array([draw(st.sampled_from([1.0, 2.0, 4.0, 10.0])) for _ in range(m)])
    rows = []
    for i in range(n):
        if ties and i > 0 and draw(st.integers(0, 3)) == 0:
            rows.append(rows[draw(st.integers(0, i - 1))].copy())
            continue
        d = draw(demand_vectors(m, zero_demands=zero_demands))
        a = d / d.max()                                          # normalised, dominant entry 1
        total = draw(st.integers(1, 20)) / 20 if (caps and draw(st.booleans())) else 2.0
        rows.append(a * total * cap)
    demands = np.array(rows)
    if magnitudes == "extreme":
        scale = np.array([10.0 ** draw(st.integers(-6, 6)) for _ in range(m)])
        demands, cap = demands * scale, cap * scale
    w = np.array([draw(st.integers(1, 4)) for _ in range(n)], float) if weights else None
    return Instance(demands, cap, w)


@st.composite
def commitment_arrays(draw, n_agents: int, n_resources: int, *, max_value: float = 0.5) -> np.ndarray:
    """SDRF commitments (n, m), fractions of capacity in [0, max_value].

    Zeros are likely (all users in a third of the draws, each user otherwise with probability 1/2):
    users without history are the common case, and they shrink to it.

    Parameters
    ----------
    n_agents, n_resources : int
        Shape of the array.
    max_value : float in (0, 1], default 0.5
        Largest commitment (fraction of capacity).

    Returns
    -------
    SearchStrategy of ndarray of shape (n_agents, n_resources)

    Raises
    ------
    hypothesis.errors.InvalidArgument
        ``max_value`` outside (0, 1] (when drawing).

    Examples
    --------
    >>> from hypothesis import find, given, settings
    >>> @settings(max_examples=10, derandomize=True, database=None)
    ... @given(commitment_arrays(3, 2, max_value=0.3))
    ... def check(x):
    ...     assert x.shape == (3, 2) and (0 <= x).all() and (x <= 0.3).all()
    >>> check()
    >>> find(commitment_arrays(2, 2), lambda c: True, settings=settings(database=None)).tolist()  # shrinks to no history
    [[0.0, 0.0], [0.0, 0.0]]
    """
    if not 0 < max_value <= 1:
        raise InvalidArgument(f"max_value={max_value!r} must be in (0, 1]")
    grid = st.integers(0, 10).map(lambda k: k * max_value / 10)
    val = st.one_of(grid, st.floats(0, max_value, allow_nan=False, allow_subnormal=False))
    out = np.zeros((n_agents, n_resources))
    if draw(st.integers(0, 2)) == 0:                   # one case in three: no history at all (DRF)
        return out
    for i in range(n_agents):
        if draw(st.booleans()):                         # users without commitments are common
            out[i] = [draw(val) for _ in range(n_resources)]
    return out


@st.composite
def pooled_allocations(draw, instance: Instance, *, waste: bool = False, saturate: bool = False) -> np.ndarray:
    """A feasible (n, m) allocation for ``instance``: proportional bundles (plus unused extra with ``waste``).

    Parameters
    ----------
    instance : fairalloc.Instance
        The pooled instance.
    waste : bool, default False
        Add resources a user cannot use (not proportional to its demand), still within capacity.
    saturate : bool, default False
        Scale the bundles up until some resource is full.

    Returns
    -------
    SearchStrategy of ndarray of shape (n_agents, n_resources)
        Bundles in capacity units; column sums never exceed the capacities.

    Examples
    --------
    >>> import fairalloc as fa
    >>> inst = fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[3, 2], capacities=[9, 18])
    >>> from hypothesis import find, given, settings
    >>> @settings(max_examples=10, derandomize=True, database=None)
    ... @given(pooled_allocations(inst, saturate=True))
    ... def check(x):
    ...     used = x.sum(axis=0) / inst.capacities
    ...     assert x.shape == (2, 2) and (used <= 1 + 1e-9).all() and (x.sum() == 0 or used.max() > 1 - 1e-9)
    >>> check()
    """
    n, m = instance.n_agents, instance.n_resources
    u = np.array([draw(st.integers(0, 10)) / 10 for _ in range(n)])
    A = u[:, None] * np.asarray(instance.demands)
    use = A.sum(axis=0) / instance.capacities
    top = use.max()
    if top > 1 or (saturate and top > 0):
        A = A / top
    if waste:
        left = instance.capacities - A.sum(axis=0)
        i = draw(st.integers(0, n - 1))
        r = draw(st.integers(0, m - 1))
        A[i, r] += left[r] * draw(st.integers(0, 10)) / 10
    return A


@st.composite
def task_instances(draw, *, n_agents=(1, 3), n_servers=(1, 3), n_resources=(1, 2), placement: bool = True,
                   weights: bool = False, commitments: bool = False, max_tasks: int = 6) -> TaskInstance:
    """:class:`~fairalloc.TaskInstance` on a small cluster; every task fits on an eligible server.

    Capacities are integers 1..8; each user draws its eligible servers (non-empty) and then a task
    no larger than one of them; task counts 0..``max_tasks``.

    Parameters
    ----------
    n_agents, n_servers, n_resources : int or (min, max)
        Sizes (defaults (1, 3), (1, 3), (1, 2)).
    placement : bool, default True
        Users may be barred from some servers.
    weights : bool, default False
        Draw weights 1..3.
    commitments : bool, default False
        Draw SDRF commitments (:func:`commitment_arrays`, at most 0.3).
    max_tasks : int, default 6
        Largest task count, >= 1.

    Returns
    -------
    SearchStrategy of fairalloc.TaskInstance

    Raises
    ------
    hypothesis.errors.InvalidArgument
        A bad range or ``max_tasks < 1`` (when drawing).

    Examples
    --------
    Every user's task fits on some server it may use:

    >>> from hypothesis import find, given, settings
    >>> @settings(max_examples=10, derandomize=True, database=None)
    ... @given(task_instances(n_agents=2, n_servers=(1, 2)))
    ... def check(x):
    ...     fits = (x.task_demands[:, None, :] <= x.cluster.capacities[None]).all(axis=2)
    ...     assert x.n_agents == 2 and (fits & x.placement).any(axis=1).all()
    >>> check()
    """
    na = _check_range("n_agents", n_agents)
    ns = _check_range("n_servers", n_servers)
    nr = _check_range("n_resources", n_resources)
    if max_tasks < 1:
        raise InvalidArgument(f"max_tasks={max_tasks!r} must be >= 1")
    n, M, K = draw(st.integers(*na)), draw(st.integers(*ns)), draw(st.integers(*nr))
    caps = np.array([[draw(st.integers(1, 8)) for _ in range(K)] for _ in range(M)], float)
    P = np.ones((n, M), bool)
    d = np.zeros((n, K))
    for i in range(n):
        if placement:
            home = draw(st.integers(0, M - 1))
            P[i] = [True if l == home else draw(st.booleans()) for l in range(M)]
        else:
            home = draw(st.integers(0, M - 1))
        first = draw(st.integers(0, K - 1))
        for r in range(K):
            hi = int(caps[home, r])
            lo = 1 if r == first else 0
            d[i, r] = draw(st.integers(lo, max(lo, hi)))
    tasks = [draw(st.integers(0, max_tasks)) for _ in range(n)]
    w = [draw(st.integers(1, 3)) for _ in range(n)] if weights else None
    c = draw(commitment_arrays(n, K, max_value=0.3)) if commitments else None
    return TaskInstance(Cluster(caps), d, tasks, P, w, c)


@st.composite
def integer_allocations(draw, instance: TaskInstance) -> np.ndarray:
    """A feasible integer (n, M) task matrix for ``instance`` (built server by server, user by user).

    Parameters
    ----------
    instance : fairalloc.TaskInstance
        The instance; users are visited in a drawn order, each server's leftover bounds what fits.

    Returns
    -------
    SearchStrategy of ndarray of shape (n_agents, n_servers)
        Integer-valued floats: at most each user's task count, only on eligible servers, within
        every server's capacity.

    Examples
    --------
    One server <4>, tasks of 3 and 1 units, 1 and 4 of them wanted:

    >>> import fairalloc as fa
    >>> ti = fa.TaskInstance([[4]], [[3], [1]], tasks=[1, 4])
    >>> from hypothesis import find, given, settings
    >>> @settings(max_examples=10, derandomize=True, database=None)
    ... @given(integer_allocations(ti))
    ... def check(x):
    ...     assert (x.sum(axis=1) <= ti.tasks).all() and 3 * x[0, 0] + x[1, 0] <= 4
    >>> check()
    """
    n, M = instance.n_agents, instance.n_servers
    left = np.array(instance.cluster.capacities, float)
    want = np.array(instance.tasks)
    x = np.zeros((n, M))
    order = draw(st.permutations(list(range(n))))
    for i in order:
        for l in range(M):
            if not instance.placement[i, l] or want[i] <= 0:
                continue
            fit = int(min(want[i], shares.tasks_that_fit(left[l], instance.task_demands[i])))
            k = draw(st.integers(0, fit))
            x[i, l] = k
            want[i] -= k
            left[l] -= k * instance.task_demands[i]
    return x


@st.composite
def time_varying_instances(draw, *, n_agents=(1, 3), n_servers=(1, 2), n_resources=(1, 2), n_slots=(1, 4),
                           placement: bool = True, weights: bool = False, max_arrivals: int = 3,
                           max_duration: int = 3, varying_demands: bool = True) -> TimeVaryingInstance:
    """:class:`~fairalloc.TimeVaryingInstance`: arrivals per slot, durations, optional placement.

    Built like :func:`task_instances` (integer capacities 1..8, each user's task sized to fit on a
    server it may use); with ``varying_demands`` a user's per-task demand may change from one slot
    to the next (TV-TSF's :math:`d_i(t)`), still sized to fit on that server. Arrivals are
    0..``max_arrivals`` per slot (zeros are common), durations 1..``max_duration`` slots.

    Parameters
    ----------
    n_agents, n_servers, n_resources, n_slots : int or (min, max)
        Sizes (defaults (1, 3), (1, 2), (1, 2), (1, 4)).
    placement : bool, default True
        Users may be barred from some servers.
    weights : bool, default False
        Draw weights.
    max_arrivals : int, default 3
        Largest number of tasks a user submits in one slot, >= 1.
    max_duration : int, default 3
        Longest task, in slots, >= 1.
    varying_demands : bool, default True
        A user's per-task demand may change between slots.

    Returns
    -------
    SearchStrategy of fairalloc.TimeVaryingInstance

    Raises
    ------
    hypothesis.errors.InvalidArgument
        A bad range, ``max_arrivals < 1`` or ``max_duration < 1`` (when drawing).

    Examples
    --------
    >>> from hypothesis import find, given, settings
    >>> @settings(max_examples=10, derandomize=True, database=None)
    ... @given(time_varying_instances(n_slots=2, max_arrivals=2))
    ... def check(x):
    ...     assert x.n_slots == 2 and 1 <= x.n_agents <= 3 and x.n_servers <= 2
    >>> check()
    """
    if max_arrivals < 1 or max_duration < 1:
        raise InvalidArgument(f"max_arrivals={max_arrivals!r} and max_duration={max_duration!r} must be >= 1")
    na = _check_range("n_agents", n_agents)
    ns = _check_range("n_servers", n_servers)
    nr = _check_range("n_resources", n_resources)
    nt = _check_range("n_slots", n_slots)
    n, M, K, T = draw(st.integers(*na)), draw(st.integers(*ns)), draw(st.integers(*nr)), draw(st.integers(*nt))
    caps = np.array([[draw(st.integers(1, 8)) for _ in range(K)] for _ in range(M)], float)
    P = np.ones((n, M), bool)
    d = np.zeros((n, T, K))
    for i in range(n):
        home = draw(st.integers(0, M - 1))
        if placement:
            P[i] = [True if l == home else draw(st.booleans()) for l in range(M)]

        def vector():
            first = draw(st.integers(0, K - 1))
            return [draw(st.integers(1 if r == first else 0, max(1, int(caps[home, r])))) for r in range(K)]

        d[i, :] = vector()
        if varying_demands:
            for t in range(1, T):
                if draw(st.integers(0, 2)) == 0:
                    d[i, t:] = vector()
    arrivals = [[draw(st.integers(0, max_arrivals)) if draw(st.integers(0, 2)) else 0 for _ in range(T)]
                for _ in range(n)]
    durations = [draw(st.integers(1, max_duration)) for _ in range(n)]
    w = [draw(st.integers(1, 3)) for _ in range(n)] if weights else None
    return TimeVaryingInstance(Cluster(caps), d, arrivals, durations, P, w)


@st.composite
def repeated_games(draw, *, n_agents=(2, 3), n_resources=(1, 2), n_periods=(2, 3), zero_demands: bool = True,
                   caps: bool = True, absent: bool = True, changing: bool = True, unit_tasks: bool = False,
                   weights: bool = False) -> RepeatedGame:
    """Multi-period demand sequences: per-task vectors that may change between periods, caps, absences.

    ``changing``: a user's per-task vector may change between periods (else only its task count
    does). ``unit_tasks``: every per-task vector has dominant entry 1 (a task is always one unit of
    its dominant resource), so that changes of vector are not changes of task size.

    Parameters
    ----------
    n_agents, n_resources, n_periods : int or (min, max)
        Sizes (defaults (2, 3), (1, 2), (2, 3)); capacities are all 1.
    zero_demands : bool, default True
        Per-task vectors may have zeros.
    caps : bool, default True
        A user may be satisfiable in a period (dominant demand 0.05..1); otherwise its dominant
        demand is 10.
    absent : bool, default True
        A user may stay away from a period (0 tasks, one draw in six).
    changing : bool, default True
        Per-task vectors may change between periods.
    unit_tasks : bool, default False
        Per-task vectors have dominant entry 1.
    weights : bool, default False
        Draw weights 1..3.

    Returns
    -------
    SearchStrategy of RepeatedGame

    Raises
    ------
    hypothesis.errors.InvalidArgument
        A bad range (when drawing).

    Examples
    --------
    >>> from hypothesis import find, given, settings
    >>> @settings(max_examples=10, derandomize=True, database=None)
    ... @given(repeated_games(n_periods=3, unit_tasks=True))
    ... def check(x):
    ...     assert x.n_periods == 3 and np.allclose(x.task_demands.max(axis=2), 1)
    >>> check()
    """
    na = _check_range("n_agents", n_agents)
    nr = _check_range("n_resources", n_resources)
    nt = _check_range("n_periods", n_periods)
    n, m, T = draw(st.integers(*na)), draw(st.integers(*nr)), draw(st.integers(*nt))
    d = np.zeros((T, n, m))
    k = np.zeros((T, n))
    base = [draw(demand_vectors(m, zero_demands=zero_demands)) for _ in range(n)]
    for t in range(T):
        for i in range(n):
            vec = draw(demand_vectors(m, zero_demands=zero_demands)) if (changing and draw(st.booleans())) else base[i]
            if unit_tasks:
                vec = vec / vec.max()
            d[t, i] = vec
            if absent and draw(st.integers(0, 5)) == 0:
                k[t, i] = 0.0
            elif caps and draw(st.booleans()):
                k[t, i] = draw(st.integers(1, 20)) / 20 / float(vec.max())    # dominant demand 0.05..1
            else:
                k[t, i] = 10.0 / float(vec.max())                            # dominant demand 10
    w = np.array([draw(st.integers(1, 3)) for _ in range(n)], float) if weights else None
    return RepeatedGame(np.ones(m), d, k, w)


@st.composite
def misreports(draw, instance: Instance, user: int) -> dict[str, Any]:
    """A lie of ``user`` about its demand (``axioms.md`` families), as :func:`~proofs_check.misreports.find_profitable_misreport` takes it.

    Parameters
    ----------
    instance : fairalloc.Instance
        The true pooled instance.
    user : int
        The liar.

    Returns
    -------
    SearchStrategy of dict
        ``{"family": one of "scale", "deflate", "cap", "inflate", "drop", "demands": (m,) reported
        total demand}``.

    Examples
    --------
    >>> import fairalloc as fa
    >>> inst = fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[3, 2], capacities=[9, 18])
    >>> from hypothesis import find, given, settings
    >>> @settings(max_examples=10, derandomize=True, database=None)
    ... @given(misreports(inst, 0))
    ... def check(x):
    ...     assert x["family"] in {"scale", "deflate", "cap", "inflate", "drop"}
    ...     assert x["demands"].shape == (2,) and (x["demands"] >= 0).all()
    >>> check()
    """
    theta = np.array(instance.demands[user], float)
    pos = np.flatnonzero(theta > 0)
    fam = draw(st.sampled_from(["scale", "deflate", "cap", "inflate", "drop"]))
    lie = theta.copy()
    factor = st.floats(0.05, 20.0, allow_nan=False, allow_subnormal=False)
    if fam in ("scale", "deflate"):
        r = int(pos[draw(st.integers(0, pos.size - 1))])
        f = draw(factor)
        lie[r] *= f if fam == "scale" or f < 1 else 1.0 / f
    elif fam == "cap":
        lie *= draw(factor)
    elif fam == "inflate":
        for r in range(lie.shape[0]):
            lie[r] = lie[r] * draw(st.floats(1.0, 5.0)) if lie[r] > 0 else (
                draw(st.floats(0.0, 1.0)) * float(theta.max()))
    else:
        if pos.size > 1:
            lie[int(pos[draw(st.integers(0, pos.size - 1))])] = 0.0
    return {"family": fam, "demands": lie}


@st.composite
def cases(draw, domain: Domain, *, game: bool = False, stateful: bool = False, moderate: bool = True) -> Case:
    """Inputs for one row of the claims table (:class:`~proofs_check.claims.Domain`).

    ``game=True`` draws a :class:`~proofs_check.repeated.RepeatedGame` with SDRF memory ``delta``
    (from 0.1..0.9) and a user discount ``gamma`` (0.5, 0.9 or 1); otherwise a pooled instance, with
    commitments when the domain has them, or a :class:`~fairalloc.TaskInstance` for a servers domain.
    A time-varying domain draws a :class:`~fairalloc.TimeVaryingInstance` (and ``gamma`` with
    ``game=True``: its repeated game is the instance itself).

    Parameters
    ----------
    domain : Domain
        The row's instances (:func:`proofs_check.claims.claim_domain`).
    game : bool, default False
        Draw a repeated game (pooled and time-varying domains only).
    stateful : bool, default False
        With ``game``: draw SDRF's ``delta`` (0.1..0.9); else ``delta`` is None.
    moderate : bool, default True
        Pooled instances in moderate magnitudes (``False``: ``magnitudes="extreme"``).

    Returns
    -------
    SearchStrategy of Case

    Raises
    ------
    hypothesis.errors.InvalidArgument
        ``game=True`` on a servers domain, or an unknown setting (when drawing).

    Examples
    --------
    The cases of DRF's row are pooled and inside its domain (:func:`proofs_check.shrink.in_domain`):

    >>> from proofs_check.claims import MECHANISMS
    >>> from proofs_check.shrink import in_domain
    >>> dom = MECHANISMS["drf"].domain
    >>> from hypothesis import find, given, settings
    >>> @settings(max_examples=10, derandomize=True, database=None)
    ... @given(cases(dom))
    ... def check(x):
    ...     assert x.kind == "pooled" and in_domain(dom, x)
    >>> check()
    """
    if domain.setting == "servers":
        if game:
            raise InvalidArgument("repeated games are pooled; the servers setting has no game")
        ti = draw(task_instances(n_agents=domain.n_agents, n_servers=domain.n_servers,
                                 n_resources=domain.n_resources, placement=domain.placement,
                                 weights=domain.weights, commitments=domain.commitments))
        return Case(ti)
    if domain.setting == "time-varying":
        tv = draw(time_varying_instances(n_agents=domain.n_agents, n_servers=domain.n_servers,
                                         n_resources=domain.n_resources, n_slots=domain.n_slots,
                                         placement=domain.placement, weights=domain.weights,
                                         max_arrivals=domain.max_arrivals, max_duration=domain.max_duration))
        return Case(tv, gamma=draw(st.sampled_from([1.0, 0.9, 0.5])) if game else None)
    if domain.setting != "pooled":
        raise InvalidArgument(f"cases() draws pooled, servers or time-varying domains; got setting={domain.setting!r}")
    if game:
        g = draw(repeated_games(n_agents=(2, 3), n_resources=domain.n_resources if domain.n_resources[1] <= 2
                                else (domain.n_resources[0], 2), zero_demands=domain.zero_demands,
                                caps=domain.caps, weights=domain.weights))
        delta = draw(st.integers(1, 9)) / 10 if stateful else None
        gamma = draw(st.sampled_from([1.0, 0.9, 0.5]))
        return Case(game=g, delta=delta, gamma=gamma)
    inst = draw(pooled_instances(n_agents=domain.n_agents, n_resources=domain.n_resources,
                                 zero_demands=domain.zero_demands, caps=domain.caps, weights=domain.weights,
                                 magnitudes="moderate" if moderate else "extreme"))
    c = draw(commitment_arrays(inst.n_agents, inst.n_resources)) if domain.commitments else None
    return Case(inst, c)
