r"""Fairness-axiom predicates with witnesses (``axioms.md``): pure functions, no hypothesis.

Every predicate takes the instance first and the allocation second (positional), options
keyword-only, and returns a :class:`~proofs_check.verdict.Verdict`. Two settings:

* **pooled, divisible**: a :class:`fairalloc.Instance` and an (n, m) allocation in capacity units
  (or the :class:`~fairalloc.AllocationResult` of a mechanism). Utilities are fractions of the total
  demand (SDRF Eq. 1); the per-task view of ``axioms.md`` differs by the factor :math:`K_i`, which
  cancels in every comparison (see :mod:`proofs_check.units`).
* **servers**: a :class:`fairalloc.TaskInstance` and an (n, M) matrix of tasks per server, integer
  (default) or ``divisible=True``. Utilities are tasks; placement is honoured.
* **time-varying**: a :class:`fairalloc.TimeVaryingInstance` and an (n, M, T) start schedule
  (TV-TSF). ``scope="cumulative"`` judges the whole horizon (TV-TSF Eqs. 5-9), ``scope="per-slot"``
  each slot's starts as a one-shot allocation of the free capacity (:mod:`proofs_check._timevarying`).

An allocation of the wrong shape, with negative entries or above capacity raises
:class:`~fairalloc.InvalidInstanceError` (invalid, not unfair). Tolerances are explicit (``atol``,
absolute, in the utility units; default ``1e-9``); ``exact=True`` (pooled) evaluates the same formulas
in ``fractions.Fraction`` arithmetic with tolerance 0 unless given, for small hand-made or rational
allocations.

======================== =========================================== =================================
axiom                    variants                                    function
======================== =========================================== =================================
sharing incentive        plain, weighted, commitment                 :func:`has_sharing_incentive`
envy-freeness            plain, weighted, commitment; servers:       :func:`is_envy_free`
                         placement "given" or "any" (MILP)
EF1 (integer tasks)      remove, gain (time-varying: cumulative,     :func:`is_ef1`
                         per slot)
bottleneck               (SDRF Prop. 1)                              :func:`is_bottleneck`
non-wastefulness         divisible, integer                          :func:`is_non_wasteful`
Pareto efficiency        strong, weak                                :func:`is_pareto_efficient`
population monotonicity  (mechanism)                                 :func:`is_population_monotone`
resource monotonicity    (mechanism)                                 :func:`is_resource_monotone`
strategy-proofness       stage / repeated game (searches)            :func:`find_profitable_misreport`,
                                                                     :func:`find_profitable_deviation`
======================== =========================================== =================================

Examples
--------
The DRF paper's example is fair by every axiom DRF satisfies:

>>> import fairalloc as fa
>>> inst = fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[100, 100], capacities=[9, 18])
>>> r = fa.drf(inst)
>>> [bool(f(inst, r)) for f in (has_sharing_incentive, is_envy_free, is_pareto_efficient, is_non_wasteful)]
[True, True, True, True]

An envious pair, exactly: one resource, user 0 holds 1/3 and user 1 holds 2/3, both want everything:

>>> v = is_envy_free(fa.Instance([[1], [1]]), [["1/3"], ["2/3"]], exact=True)
>>> v.holds, v.witness["envious"], v.witness["envied"], v.witness["u_other"]
(False, 0, 1, '2/3')

References
----------
.. [1] A. Ghodsi et al., "Dominant Resource Fairness: Fair Allocation of Multiple Resource Types",
   NSDI 2011 (SI, EF, PO, SP, PM, RM for Leontief users).
.. [2] H. Sadok, M. Campista, L. Costa, SBRC 2018 (SDRF: bottleneck, non-wasteful, Props. 1-6).
.. [3] D. Parkes, A. Procaccia, N. Shah, "Beyond Dominant Resource Fairness", ACM TEAC 2015
   (zero demands, weights, indivisible tasks).
.. [4] W. Wang, B. Li, B. Liang, "Multi-resource fair allocation in heterogeneous cloud computing
   systems" (DRFH), IEEE TPDS 2015; W. Wang et al., "Fair allocation with placement constraints" (TSF).
.. [5] Li Jie, Wang Jianzhou, TV-TSF, Chinese Journal on Internet of Things, 2024, Eqs. 2-9
   (time-varying tasks: sharing incentive, EF1 and Pareto optimality over the horizon).
"""

from __future__ import annotations

from fairalloc.validation import require_choice

from . import _pooled, _servers, _setting, _timevarying
from .monotonicity import is_population_monotone, is_resource_monotone
from .verdict import Verdict

__all__ = [
    "Verdict",
    "has_sharing_incentive",
    "is_envy_free",
    "is_ef1",
    "is_bottleneck",
    "is_non_wasteful",
    "is_pareto_efficient",
    "is_population_monotone",
    "is_resource_monotone",
    "find_profitable_misreport",
    "find_profitable_deviation",
]


def _pooled_data(instance, allocation, commitments, atol, exact) -> _pooled.PooledData:
    return _pooled.PooledData(instance, allocation, commitments=commitments, atol=atol, exact=exact)


def _server_data(instance, allocation, commitments, divisible, atol, exact) -> _servers.ServerData:
    if commitments is not None:
        raise ValueError("a TaskInstance carries its own commitments; do not pass commitments=")
    if exact:
        raise ValueError("exact=True applies to pooled instances (task allocations are counts already)")
    return _servers.ServerData(instance, allocation, divisible=divisible, atol=atol)


_dispatch = _setting.setting_of


def _tv_data(instance, allocation, commitments, divisible, atol, exact, scope) -> _timevarying.TVData:
    if commitments is not None or divisible or exact:
        raise ValueError("time-varying schedules are integer task starts: no commitments=, divisible= or exact=")
    require_choice("scope", scope, _timevarying.SCOPES)
    return _timevarying.TVData(instance, allocation, atol=atol)


def has_sharing_incentive(instance, allocation, /, *, variant: str = "plain", commitments=None,
                          divisible: bool = False, atol: float | None = None, exact: bool = False,
                          scope: str = "cumulative") -> Verdict:
    r"""Sharing incentive: nobody is worse off than with an equal split (``axioms.md``).

    Parameters
    ----------
    instance : Instance or TaskInstance
    allocation : array_like or AllocationResult
        (n, m) bundles in capacity units (pooled) or (n, M) tasks per server.
    variant : {"plain", "weighted", "commitment"}
        plain: :math:`u_i(A_i) \ge u_i(C/n)` (servers: :math:`\sum_{l\in E_i} u_i(c_l/n)`);
        weighted: :math:`u_i(A_i) \ge u_i(w_i C/\sum w)`; commitment (SDRF): dominant share
        :math:`s_i \ge \min(D_i, \max(0, w_i L_0 - \tilde c_i))` with
        :func:`fairalloc.shares.commitment_entitlements`.
    commitments : array_like (n, m), optional
        Pooled SDRF commitments (needed by ``variant="commitment"``); task instances carry their own.
    divisible : bool
        Task instances only: fractional task counts allowed, utilities without floors.
    atol : float, optional
        Allowed shortfall (default 1e-9; 0 with ``exact=True``).
    exact : bool
        Pooled only: exact rational arithmetic.
    scope : {"cumulative", "per-slot"}
        Time-varying instances only: over the horizon (TV-TSF Eq. 5: at least the tasks the user
        starts alone on its 1/n share of every eligible server) or in every slot.

    Returns
    -------
    Verdict
        Witness on violation: the worst user, its value, the reference value and bundle.

    Raises
    ------
    fairalloc.InvalidInstanceError
        An unknown ``variant`` or ``scope`` (naming the argument and the accepted values).

    See Also
    --------
    is_envy_free, fairalloc.shares.commitment_entitlements

    Examples
    --------
    The DRF paper's example (Ghodsi et al., Section 4): capacities (9 CPU, 18 GB), user A's tasks
    need (1, 4), B's (3, 1). On an equal split (4.5, 9) A runs :math:`\min(4.5/1, 9/4) = 2.25`
    tasks and B :math:`\min(4.5/3, 9/1) = 1.5`; DRF gives them 3 and 2. One task for A falls short:

    >>> import fairalloc as fa
    >>> inst = fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[100, 100], capacities=[9, 18])
    >>> has_sharing_incentive(inst, fa.drf(inst)).holds
    True
    >>> v = has_sharing_incentive(inst, [[1, 4], [6, 2]])
    >>> v.holds, v.witness["user"]
    (False, 0)
    """
    variant = require_choice("variant", variant, ("plain", "weighted", "commitment"))
    if _dispatch(instance) == "time-varying":
        tvd = _tv_data(instance, allocation, commitments, divisible, atol, exact, scope)
        return _timevarying.sharing_incentive(tvd, variant, scope)
    if _dispatch(instance) == "pooled":
        d = _pooled_data(instance, allocation, commitments, atol, exact)
        return _pooled.sharing_incentive(d, variant)
    return _servers.sharing_incentive(_server_data(instance, allocation, commitments, divisible, atol, exact), variant)


def is_envy_free(instance, allocation, /, *, variant: str = "plain", commitments=None,
                 placement: str = "given", divisible: bool = False, atol: float | None = None,
                 exact: bool = False, time_limit: float | None = None, scope: str = "cumulative") -> Verdict:
    r"""Envy-freeness: :math:`u_i(A_j) \le u_i(A_i)` for all users i, j (``axioms.md``).

    Parameters
    ----------
    instance : Instance or TaskInstance or TimeVaryingInstance
        The instance the allocation is for.
    allocation : array_like or AllocationResult
        (n, m) bundles in capacity units (pooled), (n, M) tasks per server, or (n, M, T) starts.
    variant : {"plain", "weighted", "commitment"}
        weighted: :math:`u_i(A_j)\,w_i/w_j \le u_i(A_i)`; commitment (SDRF): whenever i envies j and
        j received something, :math:`(\tilde c_j + D_i u_i(A_j))/w_j \le (\tilde c_i + s_i)/w_i`
        (``axioms.md``'s :math:`c_j + \mu_i u_i(A_j) \le c_i + s_i` in dominant-share units; no user
        envies one with an equal or higher commitment).
    placement : {"given", "any"}
        Task instances: judge the placement as given, or ask whether *some* placement of the same
        task totals is envy-free (the disjunction of LPs, solved as one MILP; plain/weighted only).
    commitments : array_like (n, m), optional
        Pooled SDRF commitments (needed by ``variant="commitment"``); task instances carry their own.
    placement : {"given", "any"}
        Task instances: judge the placement as given, or ask whether *some* placement of the same
        task totals is envy-free (the disjunction of LPs, solved as one MILP; plain/weighted only).
    divisible : bool
        Task instances only: fractional task counts allowed, utilities without floors.
    atol : float, optional
        Allowed excess of the envied value (default 1e-9; 0 with ``exact=True``).
    exact : bool
        Pooled only: exact rational arithmetic.
    time_limit : float, optional
        Seconds for the MILP of ``placement="any"``; when it stops early the verdict is undecided.
    scope : {"cumulative", "per-slot"}
        Time-varying instances only (module docstring); the schedule's servers are as given.

    Returns
    -------
    Verdict
        Witness on violation: the envious user, the envied one and both values.

    Raises
    ------
    fairalloc.InvalidInstanceError
        An unknown ``variant``, ``placement`` or ``scope``.

    Notes
    -----
    A satisfied user (utility at its cap) envies nobody in every variant: no bundle is worth more to
    it. Utilities are capped at the demand, as ``axioms.md``'s :math:`\min(K_i, \cdot)`.

    Examples
    --------
    The DRF paper's example: with DRF's bundles (3, 12) and (6, 2), A values B's at
    :math:`\min(6/1, 2/4) = 0.5` task (< 3) and B values A's at :math:`\min(3/3, 12/1) = 1` (< 2).
    Giving everything to A makes B envious:

    >>> import fairalloc as fa
    >>> inst = fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[100, 100], capacities=[9, 18])
    >>> is_envy_free(inst, fa.drf(inst)).holds
    True
    >>> is_envy_free(inst, [[3, 12], [0, 0]]).holds
    False
    """
    variant = require_choice("variant", variant, ("plain", "weighted", "commitment"))
    placement = require_choice("placement", placement, ("given", "any"))
    if _dispatch(instance) == "time-varying":
        tvd = _tv_data(instance, allocation, commitments, divisible, atol, exact, scope)
        return _timevarying.envy_free(tvd, variant, scope)
    if _dispatch(instance) == "pooled":
        return _pooled.envy_free(_pooled_data(instance, allocation, commitments, atol, exact), variant)
    s = _server_data(instance, allocation, commitments, divisible, atol, exact)
    if placement == "any":
        return _servers.envy_free_any_placement(s, variant, time_limit=time_limit)
    return _servers.envy_free(s, variant)


def is_ef1(instance, tasks, /, *, variant: str = "remove", atol: float | None = None,
           scope: str = "cumulative") -> Verdict:
    r"""Envy-freeness up to one task, for integer tasks on servers (``axioms.md``, both variants).

    * ``"remove"``: for all i, j with :math:`x_j \ge 1` some task of j (on some server) can be
      removed so that :math:`u_i(A_j - d_j) \le x_i`;
    * ``"gain"``: :math:`u_i(A_j) \le x_i + 1`.

    Time-varying instances (TV-TSF Eq. 6, unweighted): ``scope="cumulative"`` over the horizon (a
    task of *j* is one start, in some slot on some server), ``"per-slot"`` in every slot.

    Parameters
    ----------
    instance : TaskInstance or TimeVaryingInstance
        Integer tasks on servers.
    tasks : array_like or AllocationResult
        (n, M) integer tasks per server, or (n, M, T) starts per slot.
    variant : {"remove", "gain"}, default "remove"
        Which reading of EF1 (above).
    atol : float, optional
        Tolerance of the comparisons (default 1e-9).
    scope : {"cumulative", "per-slot"}, default "cumulative"
        Time-varying instances only.

    Returns
    -------
    Verdict
        Witness on violation: the envious user, the envied one and the values compared.

    Raises
    ------
    TypeError
        ``instance`` is a pooled :class:`~fairalloc.Instance` (EF1 needs integer tasks).
    fairalloc.InvalidInstanceError
        An unknown ``variant`` or ``scope``.

    Examples
    --------
    One server <4>, both users need 1 unit per task; user 0 runs 1 task, user 1 runs 3 (hand-made):
    user 0 values user 1's bundle at 3 tasks > 1 + 1, and removing one task leaves 2 > 1.

    >>> import fairalloc as fa
    >>> ti = fa.TaskInstance([[4]], [[1], [1]], tasks=[4, 4])
    >>> is_ef1(ti, [[1], [3]], variant="gain").holds, is_ef1(ti, [[1], [3]], variant="remove").holds
    (False, False)
    >>> is_ef1(ti, [[2], [2]]).holds
    True
    """
    variant = require_choice("variant", variant, ("remove", "gain"))
    if _dispatch(instance) == "time-varying":
        return _timevarying.ef1(_tv_data(instance, tasks, None, False, atol, False, scope), variant, scope)
    if _dispatch(instance) != "servers":
        raise TypeError("is_ef1 needs a fairalloc.TaskInstance or TimeVaryingInstance (integer tasks)")
    return _servers.ef1(_server_data(instance, tasks, None, False, atol, False), variant)


def is_bottleneck(instance, allocation, /, *, commitments=None, divisible: bool = False,
                  atol: float | None = None, exact: bool = False, scope: str = "per-slot") -> Verdict:
    """Bottleneck (SDRF Prop. 1): every user is satisfied or needs a saturated resource.

    Task instances: no unsatisfied user can run more on any eligible server's leftover (the
    per-server reading; same as :func:`is_non_wasteful` there). Time-varying instances: the same in
    every slot (``scope="per-slot"``, default: no user with a pending task is left with room for
    it after the slot's starts) or over the horizon (``"cumulative"``, as :func:`is_non_wasteful`).

    Parameters
    ----------
    instance : Instance or TaskInstance or TimeVaryingInstance
        The instance the allocation is for.
    allocation : AllocationResult or array_like
        A result, or its allocation (pooled: (n_agents, n_resources) in capacity units; tasks:
        (n_agents, n_servers) tasks; time-varying: (n_agents, n_servers, n_slots) starts).
    commitments : array_like, optional
        SDRF commitments (pooled instances), as fractions of capacity.
    divisible : bool
        Tasks on servers judged as divisible (fractional tasks).
    atol : float, optional
        Tolerance of the comparisons (default: the checkers' common tolerance).
    exact : bool
        Compare in exact rational arithmetic (``fractions.Fraction``).
    scope : {"per-slot", "cumulative"}
        Time-varying instances only, see above.

    Returns
    -------
    Verdict
        ``holds`` True, False (the witness names an unsatisfied user and the resources it could
        still use) or None (undecided).

    Examples
    --------
    The DRF paper's example: DRF saturates CPU, which both users need; a bundle of one task each
    leaves room:

    >>> import fairalloc as fa
    >>> inst = fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[100, 100], capacities=[9, 18])
    >>> is_bottleneck(inst, fa.drf(inst)).holds, is_bottleneck(inst, [[1, 4], [3, 1]]).holds
    (True, False)
    """
    if _dispatch(instance) == "time-varying":
        tvd = _tv_data(instance, allocation, commitments, divisible, atol, exact, scope)
        return _timevarying.non_wasteful(tvd, scope, "bottleneck")
    if _dispatch(instance) == "pooled":
        return _pooled.bottleneck(_pooled_data(instance, allocation, commitments, atol, exact))
    return _servers.non_wasteful(_server_data(instance, allocation, None, divisible, atol, exact), "bottleneck")


def is_non_wasteful(instance, allocation, /, *, commitments=None, divisible: bool = False,
                    atol: float | None = None, exact: bool = False, scope: str = "cumulative") -> Verdict:
    """Non-wastefulness (``axioms.md``).

    Divisible pooled: bundles proportional to demands (nothing held that is not used) and the
    bottleneck property. Integer tasks: no unsatisfied user's next task fits in the leftover capacity
    of an eligible server (divisible tasks on servers: no positive amount fits). Time-varying
    instances: ``scope="cumulative"`` (default) no unsatisfied user could start one more task in a
    slot where it has one pending, with room for the task's whole run; ``"per-slot"`` as
    :func:`is_bottleneck`.

    Parameters
    ----------
    instance : Instance or TaskInstance or TimeVaryingInstance
        The instance the allocation is for.
    allocation : AllocationResult or array_like
        As in :func:`is_bottleneck`.
    commitments : array_like, optional
        SDRF commitments (pooled instances), as fractions of capacity.
    divisible : bool
        Tasks on servers judged as divisible (fractional tasks).
    atol : float, optional
        Tolerance of the comparisons (default: the checkers' common tolerance).
    exact : bool
        Compare in exact rational arithmetic (``fractions.Fraction``).
    scope : {"cumulative", "per-slot"}, default "cumulative"
        Time-varying instances only, see above.

    Returns
    -------
    Verdict
        ``holds`` True, False (with the user and the waste as witness) or None (undecided).

    Examples
    --------
    DRF's bundles in the DRF paper's example are multiples of the demands (3 and 2 tasks) and use all
    9 CPUs; giving A (2, 12), more memory than its 2 CPUs let it use, wastes memory:

    >>> import fairalloc as fa
    >>> inst = fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[100, 100], capacities=[9, 18])
    >>> is_non_wasteful(inst, fa.drf(inst)).holds, is_non_wasteful(inst, [[2, 12], [6, 2]]).holds
    (True, False)
    """
    if _dispatch(instance) == "time-varying":
        tvd = _tv_data(instance, allocation, commitments, divisible, atol, exact, scope)
        return _timevarying.non_wasteful(tvd, scope)
    if _dispatch(instance) == "pooled":
        return _pooled.non_wasteful(_pooled_data(instance, allocation, commitments, atol, exact))
    s = _server_data(instance, allocation, None, divisible, atol, exact)
    return _servers.non_wasteful(s, "divisible" if divisible else "integer")


def is_pareto_efficient(instance, allocation, /, *, variant: str = "strong", method: str = "auto",
                        commitments=None, divisible: bool = False, atol: float | None = None,
                        exact: bool = False, time_limit: float | None = None,
                        scope: str = "cumulative") -> Verdict:
    r"""Pareto efficiency, strong or weak (``axioms.md``).

    Strong: no feasible :math:`A'` with :math:`u(A') \ge u(A)` and :math:`\sum u(A') > \sum u(A)`.
    Weak: no :math:`A'` giving *every unsatisfied user* more while nobody loses.

    Parameters
    ----------
    method : {"auto", "certificate", "lp"}
        Pooled: ``"certificate"`` (exact and fast): with minimal bundles :math:`u_i\theta_i`, a
        strong improvement exists iff some unsatisfied user needs no saturated resource, a weak one
        iff no unsatisfied user needs one; ``"lp"``: ``axioms.md``'s LP (HiGHS). Task instances always
        solve the LP (divisible) or MILP (integer) over per-server task counts with placement.
        ``"auto"``: certificate for pooled, program for servers.
    time_limit : float, optional
        Seconds for the MILP; when it stops early the verdict is undecided (``holds=None``).
    scope : {"cumulative", "per-slot"}
        Time-varying instances: over the horizon (TV-TSF Eqs. 7-9: an MILP over all start
        schedules) or in every slot (an MILP over the slot's starts, the past fixed).

    Examples
    --------
    A Pareto-dominated allocation: one resource, two users wanting 0.5 each, given 0.25 each:

    >>> import fairalloc as fa
    >>> v = is_pareto_efficient(fa.Instance([[0.5], [0.5]]), [[0.25], [0.25]])
    >>> v.holds, v.witness["improved_users"]
    (False, [0])
    """
    variant = require_choice("variant", variant, ("strong", "weak"))
    method = require_choice("method", method, ("auto", "certificate", "lp"))
    if _dispatch(instance) == "time-varying":
        tvd = _tv_data(instance, allocation, commitments, divisible, atol, exact, scope)
        return _timevarying.pareto(tvd, variant, scope, time_limit=time_limit)
    if _dispatch(instance) == "pooled":
        d = _pooled_data(instance, allocation, commitments, atol, exact)
        return _pooled.pareto(d, variant, "lp" if method == "lp" else "certificate")
    s = _server_data(instance, allocation, commitments, divisible, atol, exact)
    return _servers.pareto(s, variant, time_limit=time_limit)


def find_profitable_misreport(*args, **kwargs):
    """Search for a profitable lie in the stage game: :func:`proofs_check.misreports.find_profitable_misreport`.

    Kept here so that ``proofs_check.axioms`` offers every checker ``DESIGN.md`` lists; the search
    itself lives in :mod:`proofs_check.misreports`, imported on the first call.

    Parameters
    ----------
    *args, **kwargs
        Those of :func:`proofs_check.misreports.find_profitable_misreport`.

    Returns
    -------
    Verdict

    Examples
    --------
    DRF is strategy-proof (Ghodsi et al., Theorem 1), so no lie is found:

    >>> import fairalloc as fa
    >>> inst = fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[100, 100], capacities=[9, 18])
    >>> find_profitable_misreport(fa.drf, inst, rng=0, budget=10).holds
    True
    """
    from .misreports import find_profitable_misreport as f

    return f(*args, **kwargs)


def find_profitable_deviation(*args, **kwargs):
    """Search for a profitable deviation in the repeated game: :func:`proofs_check.misreports.find_profitable_deviation`.

    Kept here so that ``proofs_check.axioms`` offers every checker ``DESIGN.md`` lists; the search
    itself lives in :mod:`proofs_check.misreports`, imported on the first call.

    Parameters
    ----------
    *args, **kwargs
        Those of :func:`proofs_check.misreports.find_profitable_deviation`.

    Returns
    -------
    Verdict

    Examples
    --------
    With stateless dynamics each period is a stage of DRF, which is strategy-proof, so no deviation
    pays:

    >>> import fairalloc as fa
    >>> from proofs_check.repeated import RepeatedGame, StatelessDynamics
    >>> game = RepeatedGame([9, 18], [[[1, 4], [3, 1]]] * 2, [[100, 100]] * 2)   # two equal periods
    >>> find_profitable_deviation(StatelessDynamics(fa.drf), game, rng=0, budget=5).holds
    True
    """
    from .misreports import find_profitable_deviation as f

    return f(*args, **kwargs)
