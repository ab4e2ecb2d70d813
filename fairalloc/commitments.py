r"""SDRF commitments: how much a user has used above its fair share, remembered with exponential decay.

* **Eq. 3** (discrete time, one step of length :math:`\Delta t`):
  :math:`c^{(t)}_{ir} = (1-\delta)\,\bar o^{(t)}_{ir} + \delta\, c^{(t-\Delta t)}_{ir}`, with the excess
  :math:`\bar o_{ir} = \max\{o_{ir} - f_i, 0\}` over the fair share :math:`f_i = 1/n` (or
  :math:`w_i / \sum_j w_j` with weights). Unrolled (sum form):
  :math:`c^{(t)} = (1-\delta)\sum_{k\le t}\delta^{t-k}\bar o^{(k)}` (with :math:`c=0` before the first step).
* **Eq. 6** (continuous time, excess constant on :math:`[t_0, t]`):
  :math:`c(t) = (1-\hat\delta)\,\bar o + \hat\delta\, c(t_0)`, :math:`\hat\delta = e^{-(t-t_0)/\tau}`.
* Conversions: :math:`\tau = -\Delta t / \ln\delta`, :math:`\delta = e^{-\Delta t/\tau}`, half-life
  :math:`t_{1/2} = \tau \ln 2`.

Allocations here are **normalised** (fractions of each resource's capacity), as in the paper where
every resource total is 1. Numerics: :math:`1-\delta` and :math:`\ln\delta` are computed with
``expm1`` / ``log1p`` so that :math:`\delta = 1-10^{-7}` (the paper's longest memory) keeps its precision;
Eq. 6's :math:`\hat\delta` itself is ``exp(-dt / tau)``, not :math:`1 - (1 - \hat\delta)` (which rounds to
0 beyond about 37 tau and would turn a commitment of 1e-20 into 0; issue 25).

Open point (``papers/sdrf.md`` errata): whether *n* in the fair share counts only active users is not
stated; here it is the number of rows passed (all users), or the weights' normalisation.

>>> import numpy as np
>>> c = step(np.zeros((2, 1)), [[0.75], [0.25]], delta=0.5)      # excess (0.25, 0) over 1/2
>>> c.ravel().tolist()
[0.125, 0.0]
>>> round(tau_from_delta(1 - 1e-6), 3)                            # dt = 1 s
999999.5
"""

from __future__ import annotations

import math

import numpy as np

from . import shares
from ._jit import callee
from .validation import as_array, require_nonnegative, require_shape
from .errors import InvalidInstanceError
from .tolerance import ATOL

__all__ = [
    "as_commitments",
    "excess",
    "excess_over",
    "step",
    "from_history",
    "decay",
    "decay_unchecked",
    "decay_row",
    "decay_row_into",
    "decay_factors",
    "decay_row_by_into",
    "excess_row_into",
    "excess_row",
    "tau_from_delta",
    "delta_from_tau",
    "half_life_from_tau",
    "tau_from_half_life",
    "half_life_from_delta",
    "delta_from_half_life",
]


def _check_delta(delta: float, *, allow_zero: bool) -> float:
    d = float(delta)
    lo_ok = d >= 0 if allow_zero else d > 0
    if not (np.isfinite(d) and lo_ok and d < 1):
        rng = "[0, 1)" if allow_zero else "(0, 1)"
        raise InvalidInstanceError(f"delta={delta!r} must be in {rng}", argument="delta", value=delta)
    return d


def _check_positive_scalar(name: str, value: float) -> float:
    v = float(value)
    if not (np.isfinite(v) and v > 0):
        raise InvalidInstanceError(f"{name}={value!r} must be finite and > 0", argument=name, value=value)
    return v


def as_commitments(commitments, n_agents: int, n_resources: int, *, argument: str = "commitments",
                   resource_names=None) -> np.ndarray:
    """Validate commitments: shape (n_agents, n_resources), finite, >= 0; ``None`` gives zeros.

    Parameters
    ----------
    commitments : array_like, shape (n_agents, n_resources), or None
        :math:`c_{ir}` as fractions of capacity. With one resource a 1-D array of length ``n_agents``
        is accepted. ``None`` means no history (all zero).
    n_agents, n_resources : int
        The expected shape.
    argument : str, optional
        Name used in error messages (default ``"commitments"``).
    resource_names : sequence of str, optional
        Names of the resources, for error messages.

    Returns
    -------
    ndarray of float, shape (n_agents, n_resources)
        A new array (the input is never modified).

    Raises
    ------
    InvalidInstanceError
        Not 1-D/2-D, wrong shape, or an entry that is NaN, infinite, negative or above 1 (beyond
        :data:`fairalloc.tolerance.ATOL`: a commitment is a fraction of a capacity; the message names the
        argument, the index and the value). The one rule for every door: the mechanisms, the task
        instances and the file loaders all call this.

    Examples
    --------
    >>> as_commitments(None, 2, 1).tolist()
    [[0.0], [0.0]]
    >>> as_commitments([0.1, 0.2], 2, 1).tolist()          # one resource: 1-D accepted
    [[0.1], [0.2]]
    >>> as_commitments([[0.1], [-0.2]], 2, 1)
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: commitments[1, 0]=-0.2 must be >= 0
    >>> as_commitments([[1.5], [0.0]], 2, 1)
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: commitments[0, 0]=1.5 is above 1: a commitment is a fraction of resource 0's capacity, at most the whole resource (SDRF Eq. 3 keeps it in [0, 1])
    """
    if commitments is None:
        return np.zeros((n_agents, n_resources))
    c = as_array(argument, commitments, ndim=(1, 2))
    if c.ndim == 1 and n_resources == 1:
        c = c[:, None]
    require_shape(argument, c, (n_agents, n_resources), names=["n_agents", "n_resources"])
    require_nonnegative(argument, c)
    above = c > 1.0 + ATOL
    if above.any():
        i, r = (int(x) for x in np.argwhere(above)[0])
        res = f"the capacity of {resource_names[r]}" if resource_names is not None else f"resource {r}'s capacity"
        raise InvalidInstanceError(f"{argument}[{i}, {r}]={float(c[i, r])!r} is above 1: a commitment is a fraction of "
                                   f"{res}, at most the whole resource (SDRF Eq. 3 keeps it in [0, 1])",
                                   argument=argument, index=(i, r), value=float(c[i, r]))
    return c


def excess(allocation, weights=None) -> np.ndarray:
    r"""Usage above the fair share, :math:`\bar o_{ir} = \max\{o_{ir} - f_i, 0\}` (SDRF Eq. 3).

    Parameters
    ----------
    allocation : array_like, shape (n, m)
        :math:`o_{ir}`, normalised (fractions of capacity).
    weights : array_like, shape (n,), optional
        Fair share :math:`f_i = w_i / \sum_j w_j` (:func:`fairalloc.shares.fair_shares`); ``None``
        (default) gives :math:`f_i = 1/n`.

    Returns
    -------
    ndarray, shape (n, m)

    See Also
    --------
    excess_over : the same with a given fair share.

    Examples
    --------
    Two users, fair share 1/2: 0.75 - 0.5 = 0.25 and 0.9 - 0.5 = 0.4, the rest below 1/2. Weights 3, 1
    make the fair shares 3/4 and 1/4, so only user 1 (0.5 - 0.25) is above:

    >>> excess([[0.75, 0.1], [0.25, 0.9]]).tolist()
    [[0.25, 0.0], [0.0, 0.4]]
    >>> excess([[0.75], [0.5]], weights=[3, 1]).tolist()
    [[0.0], [0.25]]
    """
    o = np.asarray(allocation, dtype=float)
    w = np.ones(o.shape[0]) if weights is None else np.asarray(weights, dtype=float)
    return excess_over(o, shares.fair_shares(w)[:, None])


def excess_over(allocation, fair_share) -> np.ndarray:
    r"""Eq. 3's excess for a given fair share: :math:`\max\{o_{ir} - f_i, 0\}` (broadcasting).

    What :func:`excess` computes once the fair share is known; an incremental scheduler updates one
    user at a time with it (``excess_over(o_i, f_i)``).

    Parameters
    ----------
    allocation : array_like
        :math:`o_{ir}`, normalised.
    fair_share : scalar or array_like
        :math:`f_i`, broadcast against ``allocation`` (for (n, m) allocations pass shape (n, 1)).

    Returns
    -------
    ndarray
        The broadcast shape of the inputs.

    Examples
    --------
    >>> excess_over([0.75, 0.1], 0.5).tolist()          # 0.75 - 0.5, and 0.1 is below 0.5
    [0.25, 0.0]
    """
    return np.maximum(np.asarray(allocation, dtype=float) - np.asarray(fair_share, dtype=float), 0.0)


def step(commitments, allocation, delta: float, weights=None) -> np.ndarray:
    r"""One step of SDRF Eq. 3: :math:`c' = (1-\delta)\,\bar o + \delta c`.

    Parameters
    ----------
    commitments : array_like, shape (n, m)
        Commitments before the step (fractions of capacity, >= 0).
    allocation : array_like, shape (n, m)
        Normalised allocation held during the step.
    delta : float in [0, 1)
        Discount per step (closer to 1 = longer memory; 0 = only the last step counts).
    weights : array_like, shape (n,), optional
        Fair share :math:`w_i/\sum w` instead of 1/n.

    Returns
    -------
    ndarray, shape (n, m)
        The commitments after the step.

    Raises
    ------
    InvalidInstanceError
        ``delta`` outside [0, 1), or ``allocation`` and ``commitments`` of different shapes.

    See Also
    --------
    from_history : many steps at once (sum form).
    decay : the continuous-time form (Eq. 6).

    Examples
    --------
    User 0 holds 0.75 against a fair share of 1/2 (excess 0.25), user 1 holds 0.25 (none): with
    :math:`\delta = 1/2` user 0's commitment becomes 0.5 x 0.25 = 0.125; a second step adds
    0.5 x 0.25 + 0.5 x 0.125 = 0.1875:

    >>> import numpy as np
    >>> c = step(np.zeros((2, 1)), [[0.75], [0.25]], delta=0.5)
    >>> c.ravel().tolist()
    [0.125, 0.0]
    >>> step(c, [[0.75], [0.25]], delta=0.5).ravel().tolist()
    [0.1875, 0.0]
    >>> step(c, [[0.75], [0.25]], delta=1.0)
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: delta=1.0 must be in [0, 1)
    """
    d = _check_delta(delta, allow_zero=True)
    c = np.asarray(commitments, dtype=float)
    o = np.asarray(allocation, dtype=float)
    if c.shape != o.shape:
        raise InvalidInstanceError(f"allocation shape {o.shape} must match commitments shape {c.shape}",
                                   argument="allocation", value=o.shape)
    return (1.0 - d) * excess(o, weights) + d * c


def from_history(allocations, delta: float, weights=None, initial=None) -> np.ndarray:
    r"""SDRF Eq. 3 in sum form over a history of allocations, oldest first.

    .. math:: c^{(T)} = (1-\delta)\sum_{k=1}^{T}\delta^{T-k}\bar o^{(k)} + \delta^T c^{(0)}

    Parameters
    ----------
    allocations : array_like, shape (T, n, m)
        Normalised allocations of each step, oldest first.
    delta : float in [0, 1)
        Discount per step.
    weights : array_like, shape (n,), optional
        Fair share :math:`w_i/\sum w` instead of 1/n.
    initial : array_like, shape (n, m), optional
        :math:`c^{(0)}`, commitments before the first step (default 0).

    Returns
    -------
    ndarray, shape (n, m)
        :math:`c^{(T)}`; equal (up to rounding) to :func:`step` applied ``T`` times.

    Raises
    ------
    InvalidInstanceError
        ``delta`` outside [0, 1), or ``allocations`` not 3-D.

    Examples
    --------
    The two steps of :func:`step`'s example in one call, :math:`0.5(0.5 \cdot 0.25 + 0.25) = 0.1875`;
    a lone user has fair share 1, so no excess:

    >>> from_history([[[0.75], [0.25]], [[0.75], [0.25]]], delta=0.5).ravel().tolist()
    [0.1875, 0.0]
    >>> from_history([[[0.75]], [[0.75]]], delta=0.5).ravel().tolist()
    [0.0]
    """
    d = _check_delta(delta, allow_zero=True)
    a = np.asarray(allocations, dtype=float)
    if a.ndim != 3:
        raise InvalidInstanceError(f"allocations must have shape (T, n, m), got {a.shape}",
                                   argument="allocations", value=a.shape)
    t = a.shape[0]
    ex = np.stack([excess(a[k], weights) for k in range(t)]) if t else np.zeros(a.shape)
    powers = d ** np.arange(t - 1, -1, -1, dtype=float)
    c = (1.0 - d) * np.tensordot(powers, ex, axes=1)
    if initial is not None:
        c = c + d ** t * np.asarray(initial, dtype=float)
    return c


def decay(c0, excess_, dt, tau: float) -> np.ndarray:
    r"""SDRF Eq. 6: commitments after ``dt`` with the excess held constant, :math:`(1-\hat\delta)\bar o + \hat\delta c_0`.

    :math:`\hat\delta = e^{-\Delta t/\tau}`; :math:`1 - \hat\delta` is computed with ``expm1`` so tiny
    ``dt / tau`` keeps its precision, and :math:`\hat\delta` with ``exp`` so a commitment decayed for
    many ``tau`` keeps its size (until ``exp`` underflows, beyond about 745 tau).

    Parameters
    ----------
    c0 : array_like
        Commitments at the start of the interval (fractions of capacity).
    excess_ : array_like
        :math:`\bar o`, the excess held during the interval (:func:`excess`), broadcast with ``c0``.
    dt : float or array_like
        Interval length(s), finite and >= 0, broadcast with ``c0``.
    tau : float
        Time constant (> 0), in the units of ``dt`` (:func:`tau_from_delta`, :func:`tau_from_half_life`).

    Returns
    -------
    ndarray
        The commitments at the end of the interval.

    Raises
    ------
    InvalidInstanceError
        ``tau`` not finite and positive, or a ``dt`` negative or not finite.

    See Also
    --------
    decay_unchecked, decay_row : the same arithmetic without checks (schedulers' inner loops).

    Examples
    --------
    With :math:`\tau = 1/\ln 2` one time unit gives :math:`\hat\delta = 1/2`, i.e. one Eq. 3 step with
    :math:`\delta = 1/2`: 0.5 x 0.5 = 0.25. With no excess a commitment halves in one half-life:

    >>> decay([0.0], [0.5], dt=1.0, tau=tau_from_delta(0.5)).tolist()
    [0.25]
    >>> decay([0.8], [0.0], dt=half_life_from_tau(3.0), tau=3.0).round(12).tolist()
    [0.4]
    """
    tau = _check_positive_scalar("tau", tau)
    dt = np.asarray(dt, dtype=float)
    if not np.all(np.isfinite(dt)) or np.any(dt < 0):
        raise InvalidInstanceError(f"dt={dt.tolist()!r} must be finite and >= 0", argument="dt", value=dt.tolist())
    return decay_unchecked(np.asarray(c0, dtype=float), np.asarray(excess_, dtype=float), dt, tau)


def decay_unchecked(c0: np.ndarray, excess_: np.ndarray, dt, tau: float) -> np.ndarray:
    r"""SDRF Eq. 6 as :func:`decay`, for arrays and a ``tau`` already validated (schedulers' inner loop).

    No argument is checked or converted.

    Parameters
    ----------
    c0 : ndarray
        Commitments at the start of the interval.
    excess_ : ndarray
        Excess held during the interval, broadcast with ``c0``.
    dt : float or ndarray
        Interval length(s), >= 0.
    tau : float
        Time constant, > 0.

    Returns
    -------
    ndarray

    Examples
    --------
    The same value as :func:`decay`'s first example (one step of :math:`\delta = 1/2`):

    >>> decay_unchecked(np.array([0.0]), np.array([0.5]), 1.0, tau_from_delta(0.5)).tolist()
    [0.25]
    """
    if np.ndim(dt) == 0:
        one_minus, keep = decay_factors(float(dt), tau)
    else:
        x = dt / tau
        one_minus = -np.expm1(-x)
        keep = np.exp(-x)
    return one_minus * excess_ + keep * c0


def decay_row(c0: list, excess_: list, dt: float, tau: float) -> list:
    r"""SDRF Eq. 6 for one user's commitments as Python lists.

    :func:`decay_unchecked`'s arithmetic, term by term (bitwise the same values), without NumPy's
    overhead on a short vector (schedulers' inner loop). Nothing is checked.

    Parameters
    ----------
    c0 : list of float
        The user's commitments at the start of the interval, one per resource.
    excess_ : list of float
        Its excess during the interval, same length.
    dt : float
        Interval length, >= 0.
    tau : float
        Time constant, > 0.

    Returns
    -------
    list of float

    Examples
    --------
    With :math:`\hat\delta = 1/2`: 0.5 x 0.5 + 0.5 x 0 = 0.25 and 0.5 x 0 + 0.5 x 0.4 = 0.2.

    >>> decay_row([0.0, 0.4], [0.5, 0.0], 1.0, tau_from_delta(0.5))
    [0.25, 0.2]
    """
    out = [0.0] * len(c0)
    decay_row_into(c0, excess_, dt, tau, out)
    return out


@callee
def decay_factors(dt: float, tau: float) -> tuple[float, float]:
    r"""The two factors of SDRF Eq. 6 over an interval: :math:`(1-\hat\delta, \hat\delta)`, :math:`\hat\delta = e^{-\Delta t/\tau}`.

    :math:`1 - \hat\delta` with ``expm1`` (accurate for tiny ``dt / tau``), :math:`\hat\delta` with ``exp``
    (not ``1 - (1 - delta_hat)``, which is 0 beyond about 37 tau). They depend on ``dt / tau`` only: a
    loop whose intervals repeat (a scheduler's fixed cycle) may compute them once per distinct ``dt`` and
    apply them with :func:`decay_row_by_into`; :func:`decay_row_into` is these two functions, so the result
    is the same to the bit.

    Parameters
    ----------
    dt : float
        Interval length, >= 0.
    tau : float
        Time constant, > 0.

    Returns
    -------
    (float, float)
        :math:`1-\hat\delta` and :math:`\hat\delta`.

    Examples
    --------
    >>> decay_factors(1.0, tau_from_delta(0.5))
    (0.5, 0.5)
    """
    x = dt / tau
    return -math.expm1(-x), math.exp(-x)


@callee
def decay_row_by_into(c0, excess_, one_minus: float, keep: float, out) -> None:
    r"""SDRF Eq. 6 with its factors given (:func:`decay_factors`): :math:`(1-\hat\delta)\bar o + \hat\delta c_0` into ``out``.

    Parameters
    ----------
    c0, excess_ : sequence of float
        As :func:`decay_row`.
    one_minus, keep : float
        :math:`1-\hat\delta` and :math:`\hat\delta` (:func:`decay_factors`).
    out : mutable sequence of float
        Receives the commitments at the end of the interval (may be ``c0``).

    Examples
    --------
    >>> out = [0.0, 0.0]
    >>> decay_row_by_into([0.0, 0.4], [0.5, 0.0], 0.5, 0.5, out); out
    [0.25, 0.2]
    """
    for r in range(len(c0)):
        out[r] = one_minus * excess_[r] + keep * c0[r]


def decay_row_into(c0, excess_, dt: float, tau: float, out) -> None:
    r""":func:`decay_row` written into ``out`` (lists or arrays; ``out`` may be ``c0``).

    A plain loop, so that numba compiles this one definition for the compiled SDRF core
    (:mod:`fairalloc.scheduling.core`) and Python runs it as it is: :func:`decay_factors`, then
    :func:`decay_row_by_into` (both registered for numba by :func:`fairalloc._jit.callee`).

    Parameters
    ----------
    c0, excess_ : sequence of float
        As :func:`decay_row`.
    dt, tau : float
        As :func:`decay_row`.
    out : mutable sequence of float
        Receives the commitments at the end of the interval.

    Examples
    --------
    >>> out = [0.0, 0.0]
    >>> decay_row_into([0.0, 0.4], [0.5, 0.0], 1.0, tau_from_delta(0.5), out); out
    [0.25, 0.2]
    """
    one_minus, keep = decay_factors(dt, tau)
    decay_row_by_into(c0, excess_, one_minus, keep, out)


def excess_row(allocation: list, fair_share: float) -> list:
    r""":func:`excess_over` for one user as a Python list: :math:`\max\{o_{ir} - f_i, 0\}`.

    Parameters
    ----------
    allocation : list of float
        The user's normalised allocation, one entry per resource.
    fair_share : float
        :math:`f_i`.

    Returns
    -------
    list of float

    Examples
    --------
    >>> excess_row([0.75, 0.1], 0.5)          # 0.75 - 0.5; 0.1 is below 0.5
    [0.25, 0.0]
    """
    out = [0.0] * len(allocation)
    excess_row_into(allocation, fair_share, out)
    return out


def excess_row_into(allocation, fair_share: float, out) -> None:
    r""":func:`excess_row` written into ``out`` (a plain loop, as :func:`decay_row_into`).

    Parameters
    ----------
    allocation : sequence of float
    fair_share : float
    out : mutable sequence of float

    Examples
    --------
    >>> out = [0.0, 0.0]
    >>> excess_row_into([0.75, 0.1], 0.5, out); out
    [0.25, 0.0]
    """
    for r in range(len(allocation)):
        x = allocation[r]
        out[r] = x - fair_share if x > fair_share else 0.0


def tau_from_delta(delta: float, dt: float = 1.0) -> float:
    r"""Time constant of Eq. 6 from Eq. 3's discount factor: :math:`\tau = -\Delta t / \ln\delta`.

    Parameters
    ----------
    delta : float
        Discount factor per step of length ``dt``, in (0, 1) (SDRF Eq. 3).
    dt : float, optional
        Length of one step of Eq. 3 (default 1, e.g. one second as in the SDRF paper's experiments).

    Returns
    -------
    float
        :math:`\tau`, in the units of ``dt``.

    Notes
    -----
    The unit of ``delta`` is a step of simulated time, not an event or a decision: SDRF Section 7 gives
    delta "relative to a Δt of 1 s", and the simulator's SDRF policy and the reproductions use
    ``dt = 1`` s (tau = 9.5 s at 1 - 10^-1, 10^6 s at 1 - 10^-6). Issue 16 checked whether another unit
    (the Google trace's microsecond) would explain the gaps to the paper's Figs. 4 and 6; it does not
    (``fairalloc.experiments.reproductions.sdrf``, "Gaps examined").

    Raises
    ------
    InvalidInstanceError
        ``delta`` outside (0, 1) or ``dt`` not positive.

    Examples
    --------
    A step of weight 1/2 per second (hand computation: :math:`1/\ln 2`):

    >>> round(tau_from_delta(0.5), 6)
    1.442695
    """
    d = _check_delta(delta, allow_zero=False)
    dt = _check_positive_scalar("dt", dt)
    return -dt / float(np.log1p(d - 1.0))


def delta_from_tau(tau: float, dt: float = 1.0) -> float:
    r"""Eq. 3's discount factor per step of length ``dt`` from Eq. 6's time constant: :math:`\delta = e^{-\Delta t/\tau}`.

    Parameters
    ----------
    tau : float
        Time constant (> 0).
    dt : float, optional
        Length of one step (default 1).

    Returns
    -------
    float
        :math:`\delta` in (0, 1); the inverse of :func:`tau_from_delta`.

    Examples
    --------
    >>> round(delta_from_tau(1.0), 6)   # e^{-1}
    0.367879
    """
    tau = _check_positive_scalar("tau", tau)
    dt = _check_positive_scalar("dt", dt)
    return float(np.exp(-dt / tau))


def half_life_from_tau(tau: float) -> float:
    r"""Time for a commitment to halve with no new excess (Eq. 6 with :math:`\bar o = 0`): :math:`\tau\ln 2`.

    Parameters
    ----------
    tau : float
        Time constant (> 0).

    Returns
    -------
    float
        The half-life, in the units of ``tau``.

    Examples
    --------
    >>> round(half_life_from_tau(10.0), 6)   # 10 ln 2
    6.931472
    """
    return _check_positive_scalar("tau", tau) * float(np.log(2.0))


def tau_from_half_life(half_life: float) -> float:
    r"""Time constant whose commitments halve in ``half_life``: :math:`\tau = t_{1/2} / \ln 2`.

    Parameters
    ----------
    half_life : float
        Time for a commitment to halve with no new excess (> 0).

    Returns
    -------
    float
        :math:`\tau`; the inverse of :func:`half_life_from_tau`.

    Examples
    --------
    >>> round(tau_from_half_life(1.0), 6)   # 1 / ln 2
    1.442695
    """
    return _check_positive_scalar("half_life", half_life) / float(np.log(2.0))


def half_life_from_delta(delta: float, dt: float = 1.0) -> float:
    r"""Half-life of commitments under Eq. 3's discount factor: :math:`-\Delta t \ln 2 / \ln\delta`.

    Parameters
    ----------
    delta : float
        Discount factor per step, in (0, 1).
    dt : float, optional
        Length of one step (default 1).

    Returns
    -------
    float
        The half-life, in the units of ``dt``.

    Examples
    --------
    The SDRF paper's best :math:`\delta = 1 - 10^{-6}` per second: commitments halve in about 8 days.

    >>> half_life_from_delta(0.5)
    1.0
    >>> round(half_life_from_delta(1 - 1e-6) / 86400, 2)
    8.02
    """
    return half_life_from_tau(tau_from_delta(delta, dt))


def delta_from_half_life(half_life: float, dt: float = 1.0) -> float:
    r"""Discount factor per step of length ``dt`` whose commitments halve in ``half_life``: :math:`2^{-\Delta t / t_{1/2}}`.

    Parameters
    ----------
    half_life : float
        Time for a commitment to halve (> 0).
    dt : float, optional
        Length of one step (default 1).

    Returns
    -------
    float
        :math:`\delta` in (0, 1).

    Examples
    --------
    >>> round(delta_from_half_life(1.0), 6)
    0.5
    """
    return delta_from_tau(tau_from_half_life(half_life), dt)


