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
``expm1`` / ``log1p`` so that :math:`\delta = 1-10^{-7}` (the paper's longest memory) keeps its precision.

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
from .validation import as_array, require_nonnegative, require_shape
from .errors import InvalidInstanceError

__all__ = [
    "as_commitments",
    "excess",
    "excess_over",
    "step",
    "from_history",
    "decay",
    "decay_unchecked",
    "decay_row",
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


def as_commitments(commitments, n_agents: int, n_resources: int, *, argument: str = "commitments") -> np.ndarray:
    """Validate commitments: (n_agents, n_resources), finite, >= 0. ``None`` gives zeros.

    With one resource a 1-D array of length n_agents is accepted. Returns a new float array.
    """
    if commitments is None:
        return np.zeros((n_agents, n_resources))
    c = as_array(argument, commitments, ndim=(1, 2))
    if c.ndim == 1 and n_resources == 1:
        c = c[:, None]
    require_shape(argument, c, (n_agents, n_resources), names=["n_agents", "n_resources"])
    require_nonnegative(argument, c)
    return c


def excess(allocation, weights=None) -> np.ndarray:
    r"""Usage above the fair share, :math:`\bar o_{ir} = \max\{o_{ir} - f_i, 0\}` (Eq. 3).

    ``allocation`` (n, m) normalised; ``weights`` (n,) or None (fair share 1/n).

    >>> excess([[0.75, 0.1], [0.25, 0.9]]).tolist()
    [[0.25, 0.0], [0.0, 0.4]]
    """
    o = np.asarray(allocation, dtype=float)
    w = np.ones(o.shape[0]) if weights is None else np.asarray(weights, dtype=float)
    return excess_over(o, shares.fair_shares(w)[:, None])


def excess_over(allocation, fair_share) -> np.ndarray:
    r"""Eq. 3's excess for a given fair share: :math:`\max\{o_{ir} - f_i, 0\}` (broadcasting).

    What :func:`excess` computes once the fair share is known; an incremental scheduler updates one
    user at a time with it (``excess_over(o_i, f_i)``).

    >>> excess_over([0.75, 0.1], 0.5).tolist()
    [0.25, 0.0]
    """
    return np.maximum(np.asarray(allocation, dtype=float) - np.asarray(fair_share, dtype=float), 0.0)


def step(commitments, allocation, delta: float, weights=None) -> np.ndarray:
    r"""One step of Eq. 3: :math:`c' = (1-\delta)\,\bar o + \delta c`.

    Parameters
    ----------
    commitments : array_like (n, m)
        Commitments before the step (fractions of capacity, >= 0).
    allocation : array_like (n, m)
        Normalised allocation held during the step.
    delta : float in [0, 1)
        Discount per step (closer to 1 = longer memory; 0 = only the last step counts).
    weights : array_like (n,), optional
        Fair share :math:`w_i/\sum w` instead of 1/n.
    """
    d = _check_delta(delta, allow_zero=True)
    c = np.asarray(commitments, dtype=float)
    o = np.asarray(allocation, dtype=float)
    if c.shape != o.shape:
        raise InvalidInstanceError(f"allocation shape {o.shape} must match commitments shape {c.shape}",
                                   argument="allocation", value=o.shape)
    return (1.0 - d) * excess(o, weights) + d * c


def from_history(allocations, delta: float, weights=None, initial=None) -> np.ndarray:
    r"""Eq. 3 in sum form over a history ``allocations`` (T, n, m), oldest first.

    :math:`c^{(T)} = (1-\delta)\sum_{k=1}^{T}\delta^{T-k}\bar o^{(k)} + \delta^T c^{(0)}`.

    >>> from_history([[[0.75]], [[0.75]]], delta=0.5).ravel().tolist()    # one user: excess 0.75-1=0
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
    r"""Eq. 6: commitments after ``dt`` with the excess held constant, :math:`(1-\hat\delta)\bar o + \hat\delta c_0`.

    ``dt`` may be a scalar or an array broadcasting with ``c0`` (>= 0); ``tau`` > 0.

    >>> decay([0.0], [0.5], dt=1.0, tau=tau_from_delta(0.5)).tolist()   # one Eq. 3 step with delta 0.5
    [0.25]
    """
    tau = _check_positive_scalar("tau", tau)
    dt = np.asarray(dt, dtype=float)
    if not np.all(np.isfinite(dt)) or np.any(dt < 0):
        raise InvalidInstanceError(f"dt={dt.tolist()!r} must be finite and >= 0", argument="dt", value=dt.tolist())
    return decay_unchecked(np.asarray(c0, dtype=float), np.asarray(excess_, dtype=float), dt, tau)


def decay_unchecked(c0: np.ndarray, excess_: np.ndarray, dt, tau: float) -> np.ndarray:
    r"""Eq. 6 as :func:`decay`, for arrays and a ``tau`` already validated (schedulers' inner loop).

    ``dt`` may be a float or an array; no argument is checked or converted.

    >>> decay_unchecked(np.array([0.0]), np.array([0.5]), 1.0, tau_from_delta(0.5)).tolist()
    [0.25]
    """
    if np.ndim(dt) == 0:
        one_minus = -math.expm1(-float(dt) / tau)     # 1 - delta_hat, accurate for tiny dt / tau
    else:
        one_minus = -np.expm1(-dt / tau)
    return one_minus * excess_ + (1.0 - one_minus) * c0


def decay_row(c0: list, excess_: list, dt: float, tau: float) -> list:
    r"""Eq. 6 for one user's commitments as Python lists: :func:`decay_unchecked`'s arithmetic, term by
    term (bitwise the same values), without NumPy's overhead on a short vector (schedulers' inner loop).

    >>> decay_row([0.0, 0.4], [0.5, 0.0], 1.0, tau_from_delta(0.5))
    [0.25, 0.2]
    """
    one_minus = -math.expm1(-dt / tau)
    keep = 1.0 - one_minus
    return [one_minus * x + keep * c for c, x in zip(c0, excess_)]


def excess_row(allocation: list, fair_share: float) -> list:
    r""":func:`excess_over` for one user as a Python list: :math:`\max\{o_{ir} - f_i, 0\}`.

    >>> excess_row([0.75, 0.1], 0.5)
    [0.25, 0.0]
    """
    return [x - fair_share if x > fair_share else 0.0 for x in allocation]


def tau_from_delta(delta: float, dt: float = 1.0) -> float:
    r""":math:`\tau = -\Delta t / \ln\delta` for ``delta`` in (0, 1)."""
    d = _check_delta(delta, allow_zero=False)
    dt = _check_positive_scalar("dt", dt)
    return -dt / float(np.log1p(d - 1.0))


def delta_from_tau(tau: float, dt: float = 1.0) -> float:
    r""":math:`\delta = e^{-\Delta t/\tau}`."""
    tau = _check_positive_scalar("tau", tau)
    dt = _check_positive_scalar("dt", dt)
    return float(np.exp(-dt / tau))


def half_life_from_tau(tau: float) -> float:
    r"""Time for a commitment to halve with no new excess: :math:`\tau\ln 2`."""
    return _check_positive_scalar("tau", tau) * float(np.log(2.0))


def tau_from_half_life(half_life: float) -> float:
    return _check_positive_scalar("half_life", half_life) / float(np.log(2.0))


def half_life_from_delta(delta: float, dt: float = 1.0) -> float:
    return half_life_from_tau(tau_from_delta(delta, dt))


def delta_from_half_life(half_life: float, dt: float = 1.0) -> float:
    return delta_from_tau(tau_from_half_life(half_life), dt)


