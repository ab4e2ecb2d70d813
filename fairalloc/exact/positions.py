r"""The value-aware position driver of the leximin engine (``solve_leximin(driver="positions")``).

It fixes one *position* of the leximin vector per solve, reasons exactly about which users can take
the values found, and searches the finitely many achievable values when a solve does not finish in
its time slice. Ogryczak and Śliwiński [1]_ fix positions by ordered outcomes; this driver fixes
them by *value*, which integer values make possible.

Values and positions
--------------------
User *i*'s value is :math:`v_i = a_i X_i + b_i` in task totals :math:`X_i \in [\ell_i, u_i]`
(:class:`~fairalloc.exact.leximin.Valuation`). With *S* from
:func:`~fairalloc.exact.leximin.integer_scale`, :math:`V_i(X) = A_i X + B_i` with
:math:`A_i = S a_i`, :math:`B_i = S b_i` integers (TV-TSF: :math:`V_i = X_i S / D_i`,
:math:`D_i = \sum_t \omega_i h_i(t)`, *S* = lcm(D)): every comparison below is exact integer
arithmetic. An *achievable value* of *i* is :math:`V_i(k)`, *k* an integer in its bounds. Users with
:math:`\ell_i = u_i` are constants; the leximin order is unchanged by merging a fixed multiset into
both sides, so only the others (the *movable* users) are optimised. Let :math:`\mu_1 \le \dots \le
\mu_q` be their leximin-optimal sorted vector (unique as a vector, though not as an allocation).

State
-----
* *Z*: users whose task count is fixed (their value is an entry of :math:`\mu` already attributed);
* *F*: the other movable users (*free*), with integer bounds :math:`\ell_i \le X_i \le u_i`;
* *O*: a multiset of *open* values: entries of :math:`\mu` found but not yet attributed to a user;
* *f* (the *floor*): the largest entry found.

:math:`P` is the set of feasible allocations in which the users of *Z* have their counts, the
values of *O* are taken by distinct free users who have exactly those values (a *matching*), and
every other free user has :math:`V_i \ge f`. The driver keeps three invariants:

(I1) every leximin-optimal allocation lies in *P*;
(I2) the entries found (values of *Z*'s users found as entries, and *O*) are :math:`\mu_1..\mu_p`;
(I3) the kept solution (the last one returned by a solve) lies in *P*.

**Lemma (the next position).** For :math:`x \in P` let :math:`N(x)` be the :math:`(|O|+1)`-th
smallest value of the free users. Then :math:`\max_{x \in P} N(x) = \mu_{p+1}`. *Proof.* A
leximin-optimal :math:`x^\ast \in P` (I1) has free values that are :math:`\mu` without *Z*'s
entries; by (I2) the :math:`|O|` smallest are *O* and the next is :math:`\mu_{p+1}`, so
:math:`N(x^\ast) = \mu_{p+1}`. Conversely every :math:`x \in P` has a sorted vector that starts
with :math:`\mu_1..\mu_p` (*Z*'s and *O*'s values, all at most *f*, every other value at least
*f*) followed by :math:`N(x)`; it is not lexicographically better than :math:`\mu`, so
:math:`N(x) \le \mu_{p+1}`. :math:`\square`

After :math:`\mu_{p+1}` is found it joins *O* and becomes the floor. (I1) and (I3) still hold: in
any allocation of *P* whose :math:`N` is :math:`\mu_{p+1}` (the leximin optima, and the solution
just found), assign the :math:`|O|+1` smallest free values, in order, to :math:`O \cup
\{\mu_{p+1}\}`; the others are at least :math:`\mu_{p+1}`.

The position program
--------------------
:math:`\max z` over *P*: binaries :math:`u_{iv}` only for pairs where *v* is open and achievable by
*i* within its bounds, :math:`\sum_i u_{iv} = m_v` (the multiplicity of *v*), :math:`\sum_v u_{iv}
\le 1` (:math:`= 1` for users that must take an open value, below), :math:`X_i + \sum_v (t_i -
k_{iv}) u_{iv} \ge t_i` and :math:`X_i + \sum_v (u_i - k_{iv}) u_{iv} \le u_i` (matched to *v*:
:math:`X_i = k_{iv}`, :math:`V_i(k_{iv}) = v`; unmatched: :math:`t_i \le X_i \le u_i` with
:math:`t_i` the least count at the floor), and :math:`z \le V_i + \sum_v (\bar z - v) u_{iv}`
with the tight big-M :math:`\bar z - v`, :math:`\bar z` the combinatorial bound below. *z* starts
at the kept solution's :math:`N` (its lower bound) and the solve is started from that solution.

**Combinatorial bound.** :math:`N(x) \le \bar z`, the largest cap :math:`c = V_i(u_i)` such that the
free users with caps below *c* can all take distinct open values (Kuhn's augmenting paths): the
unmatched users of any :math:`x \in P` have caps at least :math:`N(x)`, so the users with smaller
caps are matched. When the kept solution has :math:`N = \bar z` the position is proven without a
solve.

**Proof by the backend's bound.** :math:`N(x)` is an achievable value of a free user. A backend
bound *b* (valid: a proven upper bound on :math:`\max z`) proves the incumbent :math:`N` when no
achievable value lies in :math:`(N, b]`; the backend is told to stop there (absolute gap = the
distance to the next achievable value, less 1/2), whatever its own status says, and the driver
decides from the final incumbent and bound. That gap is the one of the incumbent the solve started
from: a backend that finds a better incumbent stops as soon as its bound is within the *old* gap of
it, which can leave achievable values in :math:`(N, b]` (on seed 1 of the dense 10 x 10 x 20 TV-TSF
instance HiGHS stopped at 7020 with its bound at 7223, 7176 achievable). Such a stop is not a stall:
the position program is solved again at once, from the new incumbent and with its gap
(``resolved_at_gap``), before any value search. It terminates: a second stop at the same incumbent
has its bound within that incumbent's own gap, which proves it, and incumbents only rise through
finitely many values.

LP bounds
---------
Before each MILP of a position with open values (``lp_bounds``, on by default), the position
program's LP relaxation (integrality dropped; :func:`~fairalloc.exact.lp_bounds.lp_max`, with its
float slack) is solved with the big-M's and *z*'s column bound taken from the least upper bound *K*
known (first :math:`\bar z`): :math:`z \le V_i + \sum_v (K - v)
u_{iv}`, :math:`z \le K`. The rows are valid for every :math:`x \in P` with :math:`N(x) \le K`,
which is all of *P* (*K* is an upper bound of :math:`\max N`), so the LP optimum *b* is an upper bound
of :math:`\mu_{p+1}`, and so is the largest achievable value of a free user not above *b*; that
value becomes *K* and the relaxation is solved again, with smaller big-M's, while *K* falls (at most
``max_lp_rounds`` times). When *K* reaches the incumbent's :math:`N` the position is proven without
a MILP (``positions_by_lp``). The MILP itself keeps :math:`\bar z` as its big-M (with the tight *K*
one hard position of the dense 10 x 10 x 20 instance of seed 1 took four times the CPU in the one run
tried: ``benchmarks/RESULTS.md``).

Value search
------------
The first position, the max-min program, runs to the end by default (``first_slice=None``): its
slices and value search measured two to three times slower than one solve on the dense 20 x 20 x 30
instances (figures in ``benchmarks/RESULTS.md``); ``first_slice`` gives it a slice and a search like
the later positions. For the later positions, if the slice ends first (``time_slice`` seconds
of this process's CPU: the wall limit given to the backend is the slice divided by the CPU / wall
ratio of the sequence's calls so far, so that a loaded machine does not shorten the work a slice
buys; :meth:`~fairalloc.exact.rounds.Rounds.wall_for`), the finitely many achievable values in
:math:`(N, b]` are searched by bisection with *feasibility queries*: "is there :math:`x \in P`
whose unmatched free users all have :math:`V_i \ge c`?" (the same rows with the thresholds
:math:`t_i` of *c* and no *z*): yes raises the incumbent to the :math:`N` of the solution found,
no proves :math:`\mu_{p+1} < c`. A query the backend leaves open in its slice is asked again, for
the same slice, of a second backend when one is given (``query_solver``, e.g. CP-SAT, which refuted
"every user >= 77/1240" on the dense 10 x 10 x 20 instance of seed 0 in about a second of CPU:
``benchmarks/RESULTS.md``). Queries run on the formulation's *strengthened copy* when there is one
(``strong``: the same columns with extra valid rows; for TV-TSF, identical servers' loads
ordered, valid because every row the driver adds depends on user totals only, and Chvátal-Gomory
roundings of the capacity rows, :func:`fairalloc.exact.tvtsf.rounded_rows`). A query that stalls in
its slice leaves its value open and the bisection goes on below it; the position program is then
solved again, started from the best solution, with twice the slice (``after_stall="double"``, the
default) or without a slice (``"unsliced"``: each doubling repeats the work of the slice before it,
since a backend does not resume a search, but on seed 1 of the dense 10 x 10 x 20 instances the two
measured alike; ``benchmarks/RESULTS.md``). A stalled query with the incumbent still at the floor (a *tie query*: can one more user rise above the floor?) goes to
**today's count MILP** instead (``count_fallback``): maximise the number *K* of free users with
:math:`V_i > f` over *P*. The leximin vector then has exactly :math:`|F| - K - |O|` more entries equal
to *f* (an allocation of *P* with more free users above *f* would be lexicographically better than
:math:`\mu`, and the leximin optimum itself has :math:`|F| - K` entries at or below *f*); they join *O*
at once. The count asks one question for the whole tie where positions would ask one per entry.

Refutation from the top
-----------------------
Before its bisection, a value search tries to *refute* the highest achievable value *c* left in
:math:`(N, b]`, with the backend that refutes fastest (``refute_backend``: CP-SAT by default, in a
short slice of ``refute_slice`` CPU seconds): the feasibility query at *c* above. **Rule.** An
INFEASIBLE answer proves :math:`\mu_{p+1} < c`, so the bound falls to the largest achievable value
of a free user below *c* (or to *N*), and the next value down is tried; a FEASIBLE answer gives an
allocation of *P* with :math:`N \ge c`, and *c* is the top: the position is proven at *c*; a
time limit (or any other status) decides nothing: *c* stays open, the refutations stop, and *c* is
asked next of the sequence's backend (its slice, then ``query_solver``): "no" lowers the bound below
*c* and the refutations go on from the new top; "yes" proves the position at *c*; undecided, the
search ends there: the position program is solved again (twice the slice, *z* capped at the refuted
bound), and the next search asks *c* again, with that longer slice. The values below *c* are not
searched: below a value the refutation backend could not refute, a "no" is harder still, and a
"yes" only raises the incumbent, which the position program does as well. (Asking *c* again and
again with doubled slices, without the position program in between, measured worse: on seed 1 of
the dense 10 x 10 x 20 instances a top value that neither backend decided took the whole budget,
where the position program had proven the same positions in seconds; ``benchmarks/RESULTS.md``.)
Without a refutation backend the search is the bisection alone.

*Proof.* The query at *c* is feasible exactly when some :math:`x \in P` has :math:`N(x) \ge c`: its
unmatched free users are the free users other than the :math:`|O|` matched ones, all :math:`\ge c`,
and the matched ones take open values :math:`\le f \le N < c`, so they are the :math:`|O|` smallest
and :math:`N(x)` is the least unmatched value; conversely matching *O* to the :math:`|O|` smallest free
values of an *x* with :math:`N(x) \ge c` leaves every unmatched user :math:`\ge c`. Infeasible therefore means
:math:`\max_P N < c`, i.e. :math:`\mu_{p+1} < c` by the lemma, and :math:`\mu_{p+1}`, an achievable
value of a free user, is at most the largest one below *c*. Only a backend's proof of infeasibility
lowers the bound; a stalled refutation changes nothing but the order of the questions. When the
bound reaches the incumbent's *N* the position is proven. The refuted bound is also the position
program's column bound on *z* (valid: no point of *P* has :math:`N` above it), so that its MILP stops
as soon as it finds the bound. A value whose refutation stalled is not tried again in the same
position. Why top down: the highest values are the cheapest to refute (on the dense 10 x 10 x 20
instance of seed 0, CP-SAT refutes "every user >= 77/1240" in about a second of CPU while
"every user >= 76/1240", which is feasible, takes HiGHS minutes to find; bisection asked the hard
question first, ``benchmarks/RESULTS.md``).

By matching
-----------
With ``split_matchings`` > 0 (2 through :func:`~fairalloc.exact.leximin.solve_leximin`), a later
position whose MILP stops in its slice with open values and at most ``split_matchings`` *live*
matchings of them (:meth:`PositionDriver.live_matchings`: those whose set may still hold an allocation
with *N* above the incumbent, by their unmatched users' caps and the sets proven empty below) is settled
without the value search, by one program per live matching *m* of the open values to distinct free
users who can take them: :math:`P_m`, the allocations of *P* in which the users of *m* have exactly their values, is the
position program's feasible set with those binaries fixed, so its program has no binaries (and no
big-M): users of *m* fixed at their counts, every other free user :math:`V_i \ge f`, :math:`\max z`,
:math:`z \le V_i` for those users, :math:`z \ge c_m` with :math:`c_m` the next achievable value of
its unmatched users above the incumbent. *Proof.* *P* is the union of the :math:`P_m` (a point of *P*
comes with a matching), and on :math:`P_m` the matched users hold the open values (all :math:`\le f`)
and the others are :math:`\ge f`, so :math:`N(x)` is the least unmatched value, which the program
maximises; so :math:`\mu_{p+1} = \max_m \max_{P_m} N`. A program found INFEASIBLE proves that
:math:`P_m` has no point with :math:`N` above the incumbent; one that stops (its slice, or the
backend's gap) with a bound *b* proves it when no achievable value of its unmatched users lies in
(incumbent, *b*]; otherwise it is solved again (twice the slice when it stalled), and every solution
found is kept (it lies in *P*, with :math:`N` above the incumbent, which rises to it). When every
matching is settled the incumbent is :math:`\mu_{p+1}` and the kept solution attains it, so (I1)-(I3)
hold as after a position solve. A matching's set is also skipped when it lies inside one proven empty
at an earlier position (``split_known_empty``; not with free disposal): a proof of INFEASIBLE for a
state whose non-free users had counts :math:`k_i` and whose other users needed :math:`V_j \ge c`
within bounds :math:`[\ell_j, u_j]` says that no feasible allocation has those counts and those
values; bounds only tighten as the driver goes on, so a later matching's set is inside it when its
users fixed then have the same counts, every user fixed since has a value :math:`\ge c`, and every
unmatched user's least allowed value (the floor, or above the incumbent) is :math:`\ge c`. A pair
(free user, open value) that only matchings inside such sets use (at the floor) is *ruled out*
(``pairs_ruled_out``): *P* is the union of the other matchings' sets, so the deductions below count
takers without it. Why at most 2 live matchings by default: on the dense 10 x 10 x 20 TV-TSF instance
of seed 2 the last entry's one matching program found the entry where the position MILP and the
value search stalled (the sequence proven in 56-62 s of CPU against 93-96 s, or unproven); on seed 1, positions
with 6-12 live matchings went slower by matching than by the value search, a matching asked for *z*
above the incumbent stalling where the position MILP proved the position (``benchmarks/RESULTS.md``).
``stats``: ``split_positions``, ``split_solves``,
``split_known_empty``, ``split_skipped`` (more matchings than ``split_matchings``: the value search
ran).

Threshold backend
-----------------
A formulation may hand over a *threshold backend* (``solve_leximin(threshold=...)``, used when the
option ``threshold_solver`` names it; TV-TSF with demands constant in time:
:func:`fairalloc.exact.patterns.threshold_schedule`): ``threshold(lower, upper, cpu_limit)`` decides
whether an allocation has :math:`\ell_i \le X_i \le u_i` for every user. A feasibility query (or a
refutation) at *c* is a union of such questions, one per *matching* of the open values to distinct
free users who can take them: users of *Z* at their counts, a matched user at its value's count,
every other free user in :math:`[\max(\ell_i, t_i(c)), u_i]`. (Matching each open value to one user
who takes it is exactly membership in *P* with every unmatched free user at least *c*; the position
program's binaries encode the same choice.) So the query is feasible iff one of the questions is, and
infeasible iff every one is proven infeasible (a matching that leaves a user's bounds crossed needs no
question). With at most ``max_matchings`` (8) matchings the driver asks them first, in the query's
slice (CPU seconds, shared by the questions): a schedule found is re-checked against the base program and the
matching's bounds before it is kept, every question refuted answers "no", and anything else leaves the
query to the MILP backends, as without the backend. The rounds are recorded with ``backend``
``"threshold"``; ``stats``: ``threshold_questions``, ``threshold_found``, ``threshold_refuted``,
``threshold_undecided``, ``threshold_skipped`` (too many matchings), ``threshold_unavailable`` (the
backend declined the instance, e.g. the pattern model's transition tables too large: it is not asked
again), ``threshold_cpu_ms``.

Free disposal
-------------
When the formulation says so (``solve_leximin(disposable=True)``: lowering a user's task columns never
breaks a row; TV-TSF and the task models without ``symmetry``) and the option ``free_disposal`` is on
(off by default), the programs ask fixed users for *at least* their counts and matched users for at
least their values' counts, and drop the upper bounds of free users. That relaxed set
:math:`Q \supseteq P` has the same maximum of :math:`N`: lowering the task columns of the fixed and
matched users of any :math:`x \in Q` to the exact counts gives a point of *P* with the same unmatched
values. Every solution is trimmed so before it is kept (I3), and re-checked against the program (a
violation is an error: the formulation was not disposable, never a silent result); the count program
also forbids counting a matched user above the floor. It was meant to make the packings easier for
the backend; measured, it made them harder: on seed 1 of the dense 10 x 10 x 20 TV-TSF instances the
position MILPs that the exact counts prove in one or two CPU seconds stopped at their slices with
bounds far above the answer (e.g. 7475 against 5720), and seed 2 was proven only with exact counts
(``benchmarks/RESULTS.md``). So exact counts are the default.

Exact deductions (no solver call)
---------------------------------
Between solves, to a fixpoint; each is a consequence of membership in *P*, so it keeps (I1) and
(I3), and it only moves an entry from *O* to a user of *Z* (I2):

1. a user can take an open value only if the value is one of its achievable values within its
   bounds;
2. if exactly *m* free users can take a value open *m* times, every allocation of *P* matches all
   of them to it: they are fixed there;
3. a free user whose cap is below the floor must take an open value (unmatched users are at least
   *f*); so must every user that can take one when exactly :math:`|O|` users can; one that can take
   a single open value is fixed there, the others get bounds from the smallest and largest value
   they can take;
4. every other free user gets the lower bound of the smallest value it could take: its smallest
   takeable open value, or the floor.

On the dense 10 x 10 x 20 TV-TSF instance of seed 2, rules 2 and 3 fix eight users at their caps.

End
---
When every free user must take an open value (:math:`|F| = |O|`), all of :math:`\mu` is known. The
kept solution attains it: by (I3) it lies in *P*, whose free values are then exactly *O*. Each
solve adds at least one entry, so there are at most *q* position solves plus the searches' queries.
``stats``: ``positions_proven``, ``users_fixed`` (``fixed_by_count``, ``fixed_by_cap``),
``bounds_tightened``, ``positions_by_bound``, ``proven_by_bound``, ``searches``, ``queries``,
``counts``, ``slices_doubled``, ``unsliced_after_stall``, ``lp_rounds``, ``bigm_tightened``,
``positions_by_lp``, ``lp_cpu_s``, ``queries_<backend>`` (``query_solver``), ``refutations``,
``refuted``, ``top_stalled``, ``resolved_at_gap``, ``free_disposal`` (1 when the rows ask for "at
least"); the rounds (kind ``position``, ``query``, ``refute``, ``count``; the LP relaxations are not
rounds) in ``stats["rounds"]``.

References
----------
.. [1] W. Ogryczak, T. Śliwiński, "On direct methods for lexicographic min-max optimization", ICCSA 2006.
"""

from __future__ import annotations

import logging
import math
import time
from collections import Counter
from typing import Any

import numpy as np

from ..result import Status
from .program import LinearProgram
from .leximin import LeximinOutcome, Valuation
from .lp_bounds import lp_max
from .rounds import Rounds

logger = logging.getLogger(__name__)

__all__ = ["PositionDriver"]


class PositionDriver:
    """The value-aware position driver (module docstring); one instance per leximin sequence."""

    def __init__(self, rounds: Rounds, valuation: Valuation, scale: int, *, objective: str,
                 time_slice: float | None = 2.0, strong: LinearProgram | None = None,
                 count_fallback: bool = True, disposable: bool = False, lp_bounds: bool = True,
                 max_lp_rounds: int = 8, after_stall: str = "double", query_backend: Any = None,
                 first_slice: float | None = None, refute_backend: Any = None,
                 refute_slice: float | None = 2.0, threshold: Any = None, max_matchings: int = 8,
                 split_matchings: int = 0) -> None:
        self.r = rounds
        self.valuation = valuation
        self.S = int(scale)
        self.A = [int(round(float(a) * scale)) for a in valuation.slope]   # V_i(k) = A_i k + B_i, integers
        self.B = [int(round(float(b) * scale)) for b in valuation.offset]
        self.n = len(self.A)
        self.lo = [int(v) for v in valuation.lower]
        self.hi = [int(v) for v in valuation.upper]
        self.lower0, self.upper0 = list(self.lo), list(self.hi)
        self.free = [self.lo[i] < self.hi[i] for i in range(self.n)]
        self.movable = np.array(self.free, dtype=bool)
        self.fixed0 = [i for i in range(self.n) if not self.free[i]]   # fixed from the start
        self.open: Counter = Counter()          # entries of the free users' leximin vector not yet attributed
        self.floor: int | None = None           # the largest entry found: every unattributed free user is >= it
        self.found: list[int] = []              # every entry found, in order
        self.objective = objective
        self.time_slice = time_slice
        self.strong = strong
        self.count_fallback = count_fallback
        self.disposable = disposable
        self.lp_bounds = lp_bounds
        if after_stall not in ("unsliced", "double"):
            raise ValueError(f"after_stall={after_stall!r} must be 'unsliced' or 'double'")
        self.after_stall = after_stall
        self.query_backend = query_backend     # a Backend asked again when a query stalls, or None
        self.first_slice = first_slice
        self.refute_backend = refute_backend   # a Backend that tries to refute the top values, or None
        self.refute_slice = refute_slice
        self.threshold = threshold             # the threshold backend (module docstring, "Threshold backend")
        self.max_matchings = int(max_matchings)
        self.split_matchings = int(split_matchings)   # "By matching": at most this many; 0: off
        self.no_schedule: list[tuple[dict[int, int], int]] = []   # "By matching": proven empty sets
        self.dead: set = set()                  # (user, open value) pairs no allocation of P uses
        self.refute_stalled: set = set()        # values whose refutation stalled, in this position
        self.zcap: int | None = None            # a bound on z proven by refutations, in this position
        self.lp_cpu = 0.0                       # CPU seconds of the LP relaxations (``lp_bounds``)
        self.max_lp_rounds = int(max_lp_rounds)
        self.integer_z = rounds.backend.name == "cpsat"
        self.failed: Any = None
        self.known: float | None = None         # max-min: the best upper bound known when stopped
        self.stats: Counter = Counter()
        self.stats["free_disposal"] = int(disposable)      # 1: "at least" counts (module docstring)

    # ---- values --------------------------------------------------------------------------------
    def V(self, i: int, k: int) -> int:
        return self.A[i] * k + self.B[i]

    def k_ge(self, i: int, v: int) -> int:
        """Smallest k with V_i(k) >= v."""
        return -((self.B[i] - v) // self.A[i])

    def k_of(self, i: int, v: int) -> int | None:
        """k with V_i(k) == v within i's bounds, or None."""
        q, r = divmod(v - self.B[i], self.A[i])
        return q if r == 0 and self.lo[i] <= q <= self.hi[i] else None

    def takes(self, i: int) -> list[int]:
        """Open values user i can take (achievable within its bounds), ascending."""
        return [v for v in sorted(self.open) if self.can_take(i, v)]

    def can_take(self, i: int, v: int) -> bool:
        """Can free user i take open value v: achievable within its bounds, and not a pair ruled out
        by sets proven empty (module docstring, "By matching")?"""
        return self.k_of(i, v) is not None and (i, v) not in self.dead

    # ---- state -------------------------------------------------------------------------------
    def free_users(self) -> list[int]:
        return [i for i in range(self.n) if self.free[i]]

    def n_open(self) -> int:
        return sum(self.open.values())

    def fix(self, i: int, v: int) -> None:
        k = self.k_of(i, v)
        assert k is not None
        self.lo[i] = self.hi[i] = k
        self.free[i] = False
        self.open[v] -= 1
        if self.open[v] == 0:
            del self.open[v]
        self.stats["users_fixed"] += 1

    def deduce(self) -> None:
        """The exact deductions (module docstring), to a fixpoint."""
        changed = True
        while changed:
            changed = self.prune_pairs()
            free = self.free_users()
            for v in sorted(self.open):
                cand = [i for i in free if self.can_take(i, v)]
                if len(cand) < self.open[v]:
                    raise RuntimeError(f"position driver: open value {v} x{self.open[v]} has only {cand}")
                if len(cand) == self.open[v]:
                    for i in cand:
                        self.fix(i, v)
                    self.stats["fixed_by_count"] += len(cand)
                    changed = True
                    break
            if changed:
                continue
            tk = {i: self.takes(i) for i in free}
            able = [i for i in free if tk[i]]
            must = {i for i in free if self.floor is not None and self.V(i, self.hi[i]) < self.floor}
            if self.open and len(able) == self.n_open():
                must |= set(able)
            for i in free:
                if i in must:
                    if not tk[i]:
                        raise RuntimeError(f"position driver: user {i} must take an open value and can take none")
                    if len(tk[i]) == 1:
                        self.fix(i, tk[i][0])
                        self.stats["fixed_by_cap"] += 1
                        changed = True
                        break
                    lo, hi = self.k_of(i, tk[i][0]), self.k_of(i, tk[i][-1])
                else:
                    if self.floor is None:
                        continue
                    least = min(tk[i][0], self.floor) if tk[i] else self.floor
                    lo, hi = self.k_ge(i, least), self.hi[i]
                if lo > self.lo[i] or hi < self.hi[i]:
                    self.lo[i], self.hi[i] = max(lo, self.lo[i]), min(hi, self.hi[i])
                    if self.lo[i] > self.hi[i]:
                        raise RuntimeError(f"position driver: user {i}'s bounds cross")
                    self.stats["bounds_tightened"] += 1
                    changed = True

    # ---- bounds ------------------------------------------------------------------------------
    def _matchable(self, users: list[int]) -> bool:
        """Can every user of ``users`` take a distinct open slot (Kuhn's augmenting paths)?"""
        slots = [v for v in sorted(self.open) for _ in range(self.open[v])]
        owner = [-1] * len(slots)
        can = {i: [s for s, v in enumerate(slots) if self.can_take(i, v)] for i in users}

        def augment(i: int, seen: set) -> bool:
            for s in can[i]:
                if s in seen:
                    continue
                seen.add(s)
                if owner[s] < 0 or augment(owner[s], seen):
                    owner[s] = i
                    return True
            return False

        return all(augment(i, set()) for i in users)

    def upper_bound(self) -> int:
        """Largest cap c such that the free users with caps below c can all take open values: no
        allocation consistent with the state has its next entry above it (module docstring)."""
        free = self.free_users()
        caps = sorted({self.V(i, self.hi[i]) for i in free}, reverse=True)
        for c in caps:
            if self._matchable([i for i in free if self.V(i, self.hi[i]) < c]):
                return c
        raise RuntimeError("position driver: no free user can stay unmatched")

    def next_entry(self, totals: np.ndarray) -> int:
        """The entry after the open ones of an allocation consistent with the state: the (|O|+1)-th
        smallest value of the free users."""
        vals = sorted(self.V(i, int(totals[i])) for i in self.free_users())
        return vals[self.n_open()]

    def assignment(self, totals: np.ndarray) -> dict[int, int]:
        """Which free user takes which open value in a consistent allocation: user -> value."""
        out: dict[int, int] = {}
        for v in sorted(self.open):
            users = [i for i in self.free_users() if i not in out and self.V(i, int(totals[i])) == v]
            assert len(users) >= self.open[v], (v, users)
            for i in users[:self.open[v]]:
                out[i] = v
        return out

    def candidates(self, low: int, high: float) -> list[int]:
        """Achievable values of free users in (low, high], ascending."""
        out: set = set()
        for i in self.free_users():
            k0 = max(self.lo[i], self.k_ge(i, low + 1))
            k1 = self.hi[i]
            if high != math.inf:
                k1 = min(k1, (int(math.floor(high)) - self.B[i]) // self.A[i])
            out.update(self.A[i] * k + self.B[i] for k in range(k0, k1 + 1))
        return sorted(out)

    # ---- programs ----------------------------------------------------------------------------
    def program(self, mode: str, *, level: int, zub: int | None = None, strong: bool = False,
                hint_totals: np.ndarray | None = None) -> tuple[LinearProgram, dict[str, float]]:
        """One round over the state: ``mode`` "position" (max z, z <= the unmatched users' values, z >=
        ``level``), "query" (every unmatched user >= ``level``, no objective) or "count" (max the
        number of free users above ``level`` = the floor, every unmatched user >= it)."""
        base = self.strong if (strong and self.strong is not None) else self.r.base
        tot = self.r.tot
        lab = self.r.label
        cols: list = []
        rows: list = []
        cost: dict = {}
        hint: dict[str, float] = {}
        assign = self.assignment(hint_totals) if hint_totals is not None else {}
        for i in range(self.n):
            if not self.free[i]:         # disposable: at least its count (trimmed back after the solve)
                rows.append((dict(tot[i]), self.lo[i], None if self.disposable else self.hi[i], f"{lab}pfix_{i}"))
        if mode == "position":
            z = f"{lab}pz"
            # z's column bound: the combinatorial bound, or below it a bound proven by refutations
            cols.append((z, level, zub if self.zcap is None else max(level, min(zub, self.zcap)), self.integer_z))
            cost = {z: 1.0}
            if hint_totals is not None:
                hint[z] = float(level)
        for v in sorted(self.open):
            rows.append(({}, self.open[v], self.open[v], f"{lab}popen_{v}"))
        open_rows = {v: len(rows) - len(self.open) + j for j, v in enumerate(sorted(self.open))}
        must = {i for i in self.free_users() if self.floor is not None and self.V(i, self.hi[i]) < self.floor}
        for i in self.free_users():
            tk = self.takes(i)
            us = {}
            for v in tk:
                u = f"{lab}pu_{i}_{v}"
                cols.append((u, 0, 1, True))
                rows[open_rows[v]][0][u] = 1.0
                us[v] = u
                if hint_totals is not None:
                    hint[u] = 1.0 if assign.get(i) == v else 0.0
            lo, hi = self.lo[i], self.hi[i]
            if us:
                rows.append(({u: 1.0 for u in us.values()}, 1 if i in must else 0, 1, f"{lab}pone_{i}"))
            if mode in ("query", "count"):
                t = max(lo, self.k_ge(i, level))
            elif self.floor is not None:
                t = max(lo, self.k_ge(i, self.floor))
            else:
                t = lo
            # unmatched: X_i >= t; matched to v: X_i >= k_iv (t >= k_iv: open values are <= the floor)
            if t > self.lower0[i] or us:
                row = dict(tot[i])
                for v, u in us.items():
                    row[u] = float(t - self.k_of(i, v))
                rows.append((row, t, None, f"{lab}plo_{i}"))
            # unmatched: X_i <= hi; matched to v: X_i <= k_iv (not needed with free disposal: trimmed)
            if not self.disposable and (hi < self.upper0[i] or us):
                row = dict(tot[i])
                for v, u in us.items():
                    row[u] = float(hi - self.k_of(i, v))
                rows.append((row, None, hi, f"{lab}phi_{i}"))
            if mode == "position":
                # z <= A_i X_i + B_i + sum_v (zub - v) u_iv
                row = {k: self.A[i] * c for k, c in tot[i].items()}
                row[z] = -1.0
                for v, u in us.items():
                    row[u] = float(zub - v)
                rows.append((row, -self.B[i], None, f"{lab}pz_{i}"))
            if mode == "count":
                kg = self.k_ge(i, level + 1)
                if kg <= hi:
                    y = f"{lab}py_{i}"
                    cols.append((y, 0, 1, True))
                    cost[y] = 1.0
                    row = dict(tot[i])
                    row[y] = -float(kg)
                    rows.append((row, 0, None, f"{lab}py_{i}"))
                    if us and self.disposable:       # a user counted above the floor is not matched
                        rows.append(({y: 1.0, **{u: 1.0 for u in us.values()}}, None, 1, f"{lab}pyu_{i}"))
                    if hint_totals is not None:
                        hint[y] = 1.0 if int(hint_totals[i]) >= kg else 0.0
        prog = base.extended(cols=cols, rows=rows, cost=cost)
        return prog, hint

    # ---- the rounds ----------------------------------------------------------------------------
    def _start(self, prog: LinearProgram, hint: dict) -> np.ndarray | None:
        return self.r.start(prog, hint) if hint else None

    def solve_position(self) -> list[int] | None:
        """The next entry (or entries, when a count MILP settles a tie); None when stopped."""
        zub = self.upper_bound()
        xs = self.r.totals
        logger.debug("position: floor %s open %s zub %s free %s", self.floor, dict(self.open), zub,
                     [(i, self.lo[i], self.hi[i], self.V(i, self.lo[i]), self.V(i, self.hi[i])) for i in self.free_users()])
        if xs is not None:
            inc = self.next_entry(xs)
            if inc == zub:
                self.stats["positions_by_bound"] += 1
                return [inc]
        else:
            inc = min(self.V(i, self.lo[i]) for i in self.free_users())
        # the first position is the max-min program, solved without a slice (module docstring)
        slice_ = self.time_slice if self.found else self.first_slice
        self.refute_stalled = set()
        self.zcap = None
        known = zub          # the least upper bound known: z's column bound and the big-M's
        while True:
            if self.lp_bounds and self.open and self.r.x is not None:
                known = self.tighten(inc, known)
            cand = self.candidates(inc, known)
            if not cand and self.r.x is not None:
                if self.lp_bounds and self.open:
                    self.stats["positions_by_lp"] += 1
                return [inc]
            # the backend may stop once its bound is below the next achievable value above the
            # incumbent; whether that proves the position is decided below, from the final incumbent
            gap = float(cand[0] - inc) - 0.5 if cand else 0.5
            asked = inc                  # the incumbent the gap was computed from
            prog, hint = self.program("position", level=inc, zub=zub, hint_totals=self.r.totals)
            out, x = self.r.solve("position", prog, proven=gap, start=self._start(prog, hint),
                                  time_slice=self.r.wall_for(slice_))
            if out is None:
                return None
            if out.status not in (Status.OPTIMAL, Status.FEASIBLE, Status.NOT_SOLVED):
                self.failed = out
                return None
            if x is not None:
                self.keep(prog, x)
                inc = max(inc, self.next_entry(self.r.totals))
            b = out.stats.get("bound")
            if b is not None and math.isfinite(b):
                known = min(known, int(math.floor(b + 1e-6 * max(1.0, abs(b)))))
            self.known = known
            if self.r.x is not None and not self.candidates(inc, known):
                if out.status is not Status.OPTIMAL:
                    self.stats["proven_by_bound"] += 1
                return [inc]          # no achievable value in (incumbent, bound]: proven
            if self.r.user_gap is not None and out.status in (Status.OPTIMAL, Status.FEASIBLE):
                self.failed = out              # a user's gap: stop here, unproven
                return None
            if self.r.x is None:          # no allocation yet: only a longer solve can give one
                slice_ = None if slice_ is None else 2 * slice_
                continue
            if out.status is Status.OPTIMAL and inc > asked:
                # stopped at the gap of the incumbent it started from, not a stall: the new incumbent's
                # next achievable value is nearer, so the same program is solved again with that gap
                # (module docstring, "Proof by the backend's bound")
                self.stats["resolved_at_gap"] += 1
                continue
            if self.split_matchings and self.open:
                live = self.live_matchings(inc, known)
                logger.debug("position by matching? %s live matchings (at most %s)",
                             None if live is None else len(live), self.split_matchings)
                if live is not None and len(live) <= self.split_matchings:
                    return self.by_matching(live, inc, slice_)
                self.stats["split_skipped"] += 1
            got = self.search(inc, known, slice_)
            if got is None:
                return None
            kind, value = got
            if kind == "done":
                return value
            inc, known = value
            self.known = known
            if self.after_stall == "unsliced":
                slice_ = None
                self.stats["unsliced_after_stall"] += 1
            else:
                slice_ = None if slice_ is None else 2 * slice_
                self.stats["slices_doubled"] += 1

    def _enter(self, m: dict[int, int]) -> tuple:
        """Fix the users of matching ``m`` at their values' counts (the state of :math:`P_m`, module
        docstring "By matching"); returns what :meth:`_leave` restores."""
        saved = (list(self.lo), list(self.hi), list(self.free), Counter(self.open))
        for i, v in m.items():
            k = self.k_of(i, v)
            self.lo[i] = self.hi[i] = k
            self.free[i] = False
            self.open[v] -= 1
            if self.open[v] == 0:
                del self.open[v]
        return saved

    def _leave(self, saved: tuple) -> None:
        self.lo, self.hi, self.free, self.open = list(saved[0]), list(saved[1]), list(saved[2]), Counter(saved[3])

    def live_matchings(self, inc: int, known: int) -> list[list] | None:
        """The matchings of the open values whose sets may still hold an allocation with *N* above the
        incumbent (module docstring, "By matching"): not those whose unmatched users' least cap is at
        most ``inc``, nor those inside a set proven empty; as [matching, its bound]; the kept solution's
        matching first. None when there are more than ``_SPLIT_ENUMERATE`` matchings in all."""
        ms = self.matchings(self._SPLIT_ENUMERATE)
        if ms is None:
            return None
        own = self.assignment(self.r.totals)
        out = []
        for m in sorted(ms, key=lambda m: m != own):
            saved = self._enter(m)
            try:
                cap = min(known, min(self.V(i, self.hi[i]) for i in self.free_users()))
                if not self.candidates(inc, cap):
                    continue
                if self._known_empty(inc):
                    self.stats["split_known_empty"] += 1
                    continue
                out.append([m, cap])
            finally:
                self._leave(saved)
        return out

    _SPLIT_ENUMERATE = 256      # matchings enumerated at most to count the live ones

    def by_matching(self, live: list[list], inc: int, slice_: float | None) -> list[int] | None:
        """The position as the largest of one program per live matching (:meth:`live_matchings`; module
        docstring, "By matching"): each matching's program has its users fixed and no binaries; it asks
        for *z* at least the next achievable value above the incumbent, runs in ``slice_`` (doubled for the matchings it leaves
        open) and is asked again until no achievable value of its unmatched users lies in (incumbent,
        its bound]. Returns [the entry], or None when the budget ran out."""
        self.stats["split_positions"] += 1
        pending = [[m, b, slice_] for m, b in live]       # [matching, its bound, its slice]
        while pending:
            left = []
            for m, b, sl in pending:
                saved = self._enter(m)
                try:
                    cand = self.candidates(inc, b)
                    if not cand:
                        continue                          # nothing above the incumbent in P_m
                    # z >= the next achievable value: INFEASIBLE settles the matching. (Starting the kept
                    # solution's matching from it, with z >= the incumbent, did not find the last entry of
                    # seed 2 of the dense 10 x 10 x 20 instance in either run tried: benchmarks/RESULTS.md)
                    level = cand[0]
                    gap = float(cand[1] - cand[0]) - 0.5 if len(cand) > 1 else 0.5
                    prog, _ = self.program("position", level=level, zub=b)
                    out, x = self.r.solve("matching", prog, proven=gap, time_slice=self.r.wall_for(sl))
                    self.stats["split_solves"] += 1
                    if out is None:
                        return None
                    if out.status is Status.INFEASIBLE:   # max over P_m of N < level: at most inc
                        if not self.disposable:
                            self.no_schedule.append(({i: self.lo[i] for i in range(self.n) if not self.free[i]},
                                                     level))
                        continue
                    if out.status not in (Status.OPTIMAL, Status.FEASIBLE, Status.NOT_SOLVED):
                        self.failed = out
                        return None
                    if x is not None:
                        self.keep(prog, x)                # in P_m, so in P; its N is above inc
                        inc = max(inc, self.next_entry(self.r.totals))
                    bd = out.stats.get("bound")
                    if bd is not None and math.isfinite(bd):
                        b = min(b, math.floor(bd + 1e-6 * max(1.0, abs(bd))))
                    if self.r.user_gap is not None and x is not None:
                        self.failed = out
                        return None
                    if self.candidates(inc, b):
                        stalled = out.status is not Status.OPTIMAL
                        left.append([m, b, (None if sl is None else 2 * sl) if stalled else sl])
                finally:
                    self._leave(saved)
            if left and self.r.out_of_time():
                return None
            # a matching left open before the incumbent rose is asked again only if it still has values above it
            pending = [e for e in left if self._above(e[0], inc, e[1])]
        return [inc]

    def prune_pairs(self) -> bool:
        """Rule out the pairs (user, open value) that only matchings inside sets proven empty use
        (module docstring, "By matching"); True when some pair was ruled out."""
        if not self.no_schedule or not self.open or self.floor is None:
            return False
        ms = self.matchings(self._SPLIT_ENUMERATE)
        if ms is None:
            return False
        used: set = set()
        for m in ms:
            saved = self._enter(m)
            try:
                empty = self._known_empty(self.floor - 1)
            finally:
                self._leave(saved)
            if not empty:
                used.update(m.items())
        if not used:
            raise RuntimeError("position driver: every matching of the open values lies in a set proven empty")
        new = {(i, v) for i in self.free_users() for v in self.open
               if self.can_take(i, v) and (i, v) not in used}
        self.dead |= new
        self.stats["pairs_ruled_out"] += len(new)
        return bool(new)

    def _known_empty(self, inc: int) -> bool:
        """In a matching's state (:meth:`_enter`): is its set of allocations with *N* above ``inc`` inside
        one proven empty before (module docstring, "By matching")?"""
        det = {i: self.lo[i] for i in range(self.n) if not self.free[i]}
        free = self.free_users()
        for old, lb in self.no_schedule:
            if (all(det.get(i) == k for i, k in old.items())
                    and all(self.V(i, k) >= lb for i, k in det.items() if i not in old)
                    and all(self.V(j, max(self.lo[j], self.k_ge(j, max(self.floor, inc + 1)))) >= lb for j in free)):
                return True
        return False

    def _above(self, m: dict[int, int], inc: int, b: int) -> bool:
        saved = self._enter(m)
        try:
            return bool(self.candidates(inc, b))
        finally:
            self._leave(saved)

    def tighten(self, inc: int, known: int) -> int:
        """The largest achievable value not above the bound of the position program's LP relaxation
        (:func:`~fairalloc.exact.lp_bounds.lp_max`, its float slack included), the big-M's taken from
        ``known``; solved again while that lowers ``known`` (module docstring, "LP bounds")."""
        for _ in range(self.max_lp_rounds):
            left = self.r.remaining()
            if known <= inc or (left is not None and left <= 0):
                break
            prog, _ = self.program("position", level=inc, zub=known)
            c0 = time.process_time()
            b = lp_max(prog, time_limit=left, threads=self.r.kw["threads"])
            self.stats["lp_rounds"] += 1
            self.lp_cpu += time.process_time() - c0
            if b is None:
                break
            new = max([inc] + self.candidates(inc, math.floor(b)))
            if new >= known:
                break
            self.stats["bigm_tightened"] += 1
            known = new
        return known

    def search(self, inc: int, zub: int, slice_: float | None) -> tuple[str, Any] | None:
        """Refutation from the top, then bisection over the achievable values in (inc, zub] by
        feasibility queries (module docstring, "Value search" and "Refutation from the top").

        A feasible answer raises the incumbent, an infeasible one lowers the bound; a query that stalls
        leaves its value and everything above it open (the bisection goes on below it), except a tie
        query (the incumbent still at the floor), which a count MILP settles. Returns ("done", entries)
        when decided, ("again", (inc, zub)) when values above the incumbent are still open (the
        caller solves the position MILP again, longer), None when the budget ran out."""
        self.stats["searches"] += 1
        while self.refute_backend is not None:
            got = self.refute_down(inc, zub)
            if got is None:
                return None
            inc, zub, top = got
            if top is None:                   # nothing left, or found: the bisection below ends at once
                break
            ans = self.query(top, slice_)     # refuted above, undecided at the top: the sequence's backend
            if ans is None:
                st = self.stalled(inc)
                if st is not None:
                    if st[0] == "return":
                        return st[1]
                    inc = st[1]
                    continue
                self.stats["top_stalled"] += 1
                return "again", (inc, zub)    # the position MILP again, longer, z capped at zub
            if ans:
                inc = self.next_entry(self.r.totals)
                continue
            zub = max([inc] + self.candidates(inc, top - 1))     # refuted by the sequence's backend
            self.zcap = zub if self.zcap is None else min(self.zcap, zub)
            self.known = zub if self.known is None else min(self.known, zub)
        open_top = None                      # the lowest value left open by a stalled query
        while True:
            cand = self.candidates(inc, zub if open_top is None else min(zub, open_top - 1))
            if not cand:
                break
            c = cand[(len(cand) - 1) // 2]
            ans = self.query(c, slice_)
            if ans is None:
                st = self.stalled(inc)
                if st is not None:
                    if st[0] == "return":
                        return st[1]
                    inc = st[1]
                    continue
                open_top = c if open_top is None else min(open_top, c)
            elif ans:
                inc = self.next_entry(self.r.totals)
                if open_top is not None and inc >= open_top:
                    open_top = None          # found at or above the open value: search up to zub again
            else:                            # nothing at or above c: that refutes what was left open too
                open_top = None
                zub = max([inc] + self.candidates(inc, c - 1))
        if open_top is None:
            return "done", [inc]
        return "again", (inc, zub)

    def stalled(self, inc: int) -> tuple[str, Any] | None:
        """After a query stalled: ("return", None) when the budget is spent; a tie query (the incumbent
        at the floor) settled by the count MILP: ("return", ("done", entries)) when more entries equal
        the floor (None in their place when the count did not finish), else ("inc", the count
        solution's entry, above the floor); None for any other query (the search goes on)."""
        if self.r.out_of_time():
            return "return", None
        if not (self.count_fallback and self.floor is not None and inc == self.floor):
            return None
        q = self.count()
        if q is None:
            return "return", None
        if q > 0:
            return "return", ("done", [self.floor] * q)
        return "inc", self.next_entry(self.r.totals)

    def refute_down(self, inc: int, zub: int) -> tuple[int, int, int | None] | None:
        """Top-down refutation (module docstring, "Refutation from the top"): while the refutation
        backend proves "no x in P has every unmatched free user >= c" for the highest achievable value
        *c* in (inc, zub], the bound falls to the next value below. Returns (incumbent, bound, the value
        whose refutation stalled or None); None when the budget ran out."""
        if self.refute_backend is None:
            return inc, zub, None
        while True:
            cand = self.candidates(inc, zub)
            if not cand:
                return inc, zub, None
            c = cand[-1]
            if c in self.refute_stalled:
                return inc, zub, c
            ans = self.query(c, self.refute_slice, backend=self.refute_backend, kind="refute")
            self.stats["refutations"] += 1
            if ans is False:                  # proven: mu_{p+1} < c
                self.stats["refuted"] += 1
                zub = max([inc] + cand[:-1])
                self.zcap = zub if self.zcap is None else min(self.zcap, zub)
                self.known = zub if self.known is None else min(self.known, zub)
                continue
            if ans:                           # found: the incumbent is at c = the top, proven below
                return self.next_entry(self.r.totals), zub, None
            if self.r.out_of_time():
                return None
            self.refute_stalled.add(c)        # a time limit decides nothing: c stays open
            return inc, zub, c

    def query(self, c: int, time_slice: float | None, *, backend: Any = None, kind: str = "query") -> bool | None:
        """Is there x in P whose unmatched free users all have V_i >= c? True (kept), False (proven
        infeasible), None (undecided in the slice). ``backend``: this question's backend (default the
        sequence's, then ``query_backend`` if it stalls). Started from the kept solution's columns."""
        prog, hint = self.program("query", level=c, strong=True, hint_totals=self.r.totals)
        if self.threshold is not None:
            got = self.ask_threshold(c, time_slice, kind)
            if got is not None:
                return got
        start = self.r.start(prog, hint) if self.r.x is not None else None
        out, x = self.r.solve(kind, prog, proven=None, time_slice=self.r.wall_for(time_slice), start=start,
                              backend=backend)
        if kind == "query":
            self.stats["queries"] += 1
        if (kind == "query" and out is not None and out.status not in (Status.OPTIMAL, Status.FEASIBLE, Status.INFEASIBLE)
                and self.query_backend is not None and self.query_backend.name != self.r.backend.name):
            # the same question to the second backend, for the same slice (module docstring)
            out, x = self.r.solve("query", prog, proven=None, time_slice=self.r.wall_for(time_slice),
                                  backend=self.query_backend, start=start)
            self.stats[f"queries_{self.query_backend.name}"] += 1
            if out is not None and out.status is Status.ERROR:     # a failure, not an open answer: say so
                self.stats["query_solver_errors"] += 1
                logger.warning("position driver: query_solver %s failed: %s", self.query_backend.name, out.message)
        logger.debug("query %s: %s", c, None if out is None else out.status.value)
        if out is None:
            return None
        if out.status in (Status.OPTIMAL, Status.FEASIBLE):
            self.keep(prog, x)
            return True
        if out.status is Status.INFEASIBLE:
            return False
        return None

    def matchings(self, limit: int | None = None) -> list[dict[int, int]] | None:
        """Every way to give the open values to distinct free users who can take them (user -> value),
        or None when there are more than ``limit`` (default ``max_matchings``; module docstring,
        "Threshold backend")."""
        limit = self.max_matchings if limit is None else int(limit)
        slots = [v for v in sorted(self.open) for _ in range(self.open[v])]
        free = self.free_users()
        out: list[dict[int, int]] = []

        def rec(j: int, used: dict[int, int], least: int) -> bool:
            if j == len(slots):
                out.append(dict(used))
                return len(out) <= limit
            v = slots[j]
            # equal values take users in increasing order (each set of users once)
            lo_user = least if j > 0 and slots[j - 1] == v else -1
            for i in free:
                if i > lo_user and i not in used and self.can_take(i, v):
                    used[i] = v
                    ok = rec(j + 1, used, i)
                    del used[i]
                    if not ok:
                        return False
            return True

        return out if rec(0, {}, -1) else None

    def ask_threshold(self, c: int, time_slice: float | None, kind: str) -> bool | None:
        """The query "is there x in P whose unmatched free users all have V_i >= c?" asked of the threshold
        backend, one threshold question per matching of the open values (module docstring, "Threshold
        backend"): True (a solution found, checked and kept), False (every matching proven impossible),
        None (not of that form, or undecided: the MILP backends are asked next)."""
        ms = self.matchings()
        if ms is None:
            self.stats["threshold_skipped"] += 1
            return None
        c0 = time.process_time()
        budget = time_slice                          # CPU seconds; the sequence's wall budget besides
        undecided = False
        for m in ms:
            lower = np.array(self.lo, dtype=np.int64)
            upper = np.array(self.hi, dtype=np.int64)
            for i in self.free_users():
                if i in m:
                    lower[i] = upper[i] = self.k_of(i, m[i])
                else:
                    lower[i] = max(self.lo[i], self.k_ge(i, c))
            if (lower > upper).any():
                continue                             # this matching leaves a user below c: impossible
            spent = time.process_time() - c0       # the matchings share the slice
            if budget is not None and spent >= budget:
                undecided = True
                break
            ans, sol = self.threshold(lower, upper, None if budget is None else budget - spent, self.r.remaining())
            if getattr(self.threshold, "available", True) is False:
                self.threshold = None              # the backend declined this instance: not asked again
                self.stats["threshold_unavailable"] = 1
                return None
            self.stats["threshold_questions"] += 1
            logger.debug("threshold question at %s (%s): %s %s", c, kind, ans,
                         getattr(self.threshold, "last", None))
            if ans is None:
                undecided = True
                continue
            if ans:
                x = np.zeros(self.r.base.n_cols)
                for name, v in sol.items():
                    x[self.r.base.index[name]] = v
                # re-checked here, independently of the backend: the base program's rows, and the
                # totals within this matching's bounds (so the solution lies in P, with N >= c)
                bad = self.r.base.violation(x)
                got = self.r.totals_of(x)
                if bad is None and ((got < lower) | (got > upper)).any():
                    bad = f"totals {got.tolist()} outside [{lower.tolist()}, {upper.tolist()}]"
                if bad is not None:
                    raise RuntimeError(f"position driver: the threshold backend's solution violates the query ({bad})")
                self.r.record(kind, Status.FEASIBLE, backend="threshold", cpu_s=time.process_time() - c0,
                              level=c, matchings=len(ms))
                self.stats["threshold_found"] += 1
                self.stats["threshold_cpu_ms"] += int(1000 * (time.process_time() - c0))
                if kind == "query":
                    self.stats["queries"] += 1
                self.r.keep(x)
                return True
        cpu = time.process_time() - c0
        self.stats["threshold_cpu_ms"] += int(1000 * cpu)
        if undecided:
            self.r.record(kind, Status.NOT_SOLVED, backend="threshold", cpu_s=cpu, level=c, matchings=len(ms))
            self.stats["threshold_undecided"] += 1
            return None
        self.r.record(kind, Status.INFEASIBLE, backend="threshold", cpu_s=cpu, level=c, matchings=len(ms))
        self.stats["threshold_refuted"] += 1
        if kind == "query":
            self.stats["queries"] += 1
        return False

    def count(self) -> int | None:
        """Today's count MILP at the floor: the most free users *K* above it; returns the number of
        further entries equal to the floor (:math:`|F| - K - |O|`) and keeps the count's solution (it
        has exactly that many unmatched users at the floor, so it lies in the next state's *P*)."""
        xs = self.r.totals
        prog, hint = self.program("count", level=self.floor, hint_totals=xs)
        out, x = self.r.solve("count", prog, proven=0.5, start=self._start(prog, hint))
        self.stats["counts"] += 1
        if out is None or out.status is not Status.OPTIMAL:
            self.failed = out
            return None
        self.keep(prog, x)
        k = int(round(out.objective))
        return len(self.free_users()) - k - self.n_open()

    def keep(self, prog: LinearProgram, x: np.ndarray) -> None:
        """Keep a round's solution, trimmed to the state's exact counts with free disposal."""
        self.r.keep(self.trim(prog, x) if self.disposable else x)

    def trim(self, prog: LinearProgram, x: np.ndarray) -> np.ndarray:
        """With free disposal (``disposable``: every row that holds a user's task columns is a "<=" row
        with nonnegative coefficients, or a lower bound on its total below its count), lower the task
        columns of fixed users to their counts and of matched users to their values' counts; unmatched
        users keep theirs. The result lies in *P* (module docstring, "Free disposal")."""
        base = self.r.base
        xb = np.array(x[:base.n_cols], dtype=float)
        for i in range(self.n):
            if not self.free[i]:
                target = self.lo[i]
            else:
                target = None
                for v in self.takes(i):
                    j = prog.index.get(f"{self.r.label}pu_{i}_{v}")
                    if j is not None and x[j] > 0.5:
                        target = self.k_of(i, v)
                if target is None:
                    continue
            excess = int(round(sum(c * xb[j] for j, c in self.r.tot[i].items()))) - target
            if excess < 0:
                raise RuntimeError(f"position driver: user {i} below its count {target} in a solution")
            for j in sorted(self.r.tot[i], reverse=True):
                if excess == 0:
                    break
                if self.r.tot[i][j] != 1.0:
                    raise RuntimeError("position driver: free disposal needs unit task columns")
                take = min(excess, int(round(xb[j] - max(base.lb[j], 0.0))))
                if take > 0:
                    xb[j] -= take
                    excess -= take
            if excess:
                raise RuntimeError(f"position driver: could not trim user {i} to {target} tasks")
        bad = base.violation(xb)
        if bad is not None:
            raise RuntimeError(f"position driver: a trimmed solution violates the model ({bad}); "
                               f"the formulation is not disposable")
        return xb

    # ---- the sequence ------------------------------------------------------------------------
    def run(self) -> LeximinOutcome:
        if not any(self.free):       # nobody can move: the bounds are the allocation; still check feasibility
            out, x = self.r.solve("feasibility", self.r.base.extended(cost={}), proven=0.5)
            if x is None:
                st = Status.NOT_SOLVED if out is None else out.status
                return self.finish(st, "time limit before the first solve" if out is None else out.message)
            self.r.keep(x)
            return self.finish(Status.OPTIMAL, "every user is at its only possible task count")
        while True:
            self.deduce()
            if len(self.free_users()) == self.n_open():
                break
            got = self.solve_position()
            if got is None:
                return self.stopped()
            for v in got:
                self.open[v] += 1
                self.found.append(v)
            self.floor = max(got) if self.floor is None else max(self.floor, max(got))
            logger.debug("%sposition(s) %d: %s", self.r.label, len(self.found), got)
            if self.objective == "maxmin":
                return self.finish(Status.OPTIMAL, f"max-min proven optimal by {self.r.backend.name}")
        return self.finish(Status.OPTIMAL, f"leximin proven optimal by {self.r.backend.name} "
                                           f"({len(self.r.rounds)} solves, {len(self.leximin())} distinct levels)")

    def leximin(self) -> list[tuple[float, int]]:
        """The entries proven so far (with the users fixed from the start), as (value, multiplicity)."""
        vals = Counter(self.found)
        for i in self.fixed0:
            vals[self.V(i, self.lo[i])] += 1
        return [(v / self.S, c) for v, c in sorted(vals.items())]

    def finish(self, status: Status, message: str, bound: float | None = None) -> LeximinOutcome:
        stats = {**{k: int(v) for k, v in self.stats.items()}, "integer_scale": self.S,
                 "levels_proven": len(self.leximin()), "positions_proven": len(self.found)}
        if self.stats["lp_rounds"]:
            stats["lp_cpu_s"] = round(self.lp_cpu, 3)
        lex = self.leximin() if self.objective == "leximin" else []
        return self.r.outcome(status, message, self.valuation, self.movable, lex, bound, stats)

    def stopped(self) -> LeximinOutcome:
        out = self.failed
        why = "the time limit was reached" if out is None else out.message
        bound = None
        if self.objective == "maxmin" and self.known is not None:
            bound = self.known / self.S
        if self.r.x is None:
            st = Status.NOT_SOLVED if out is None or out.status in (Status.FEASIBLE, Status.NOT_SOLVED) else out.status
            return self.finish(st, f"leximin stopped before any allocation: {why}", bound)
        return self.finish(Status.FEASIBLE, f"leximin stopped after {len(self.found)} proven position(s): {why}; "
                                            f"the allocation satisfies every proven position but the rest is "
                                            f"not proven optimal", bound)
