r"""Column generation over per-server schedules for TV-TSF threshold questions (issue 30, section 2).

The question: given integer bounds :math:`\ell_i \le X_i \le u_i` on every user's task total, is there
a schedule of the TV-TSF integer program (:func:`fairalloc.exact.tvtsf.tvtsf_model`: Eq. 10b capacity
per server, resource and slot; tasks started never above tasks submitted; placement) meeting them?
On the dense 10 x 10 x 20 instance of seed 0, "every user >= 76/1240" is such a question, and the
time-indexed MILP and CP-SAT leave it undecided for minutes (``benchmarks/RESULTS.md``).

Dantzig-Wolfe reformulation
---------------------------
A *pattern* of a server type *k* (servers with equal capacities :math:`C_k` and equal eligible users;
:math:`n_k` of them) is one server's schedule :math:`y_{it} \in \mathbb{N}`: tasks of user *i* started
on it in slot *t*, every slot's running tasks (started in the last :math:`e_i` slots, holding
:math:`d_i` each) fitting :math:`C_k`, and :math:`y_{it} \le \min(f_{ik}, A_i(t))` (:math:`f_{ik}`
tasks fit alone, :math:`A_i(t)` submitted by *t*). A schedule of the instance is exactly a choice of
at most :math:`n_k` patterns of each type (with repetition) satisfying the *master rows*

.. math::

   X_i = \sum_{p} \lambda_p \sum_t y^p_{it}, \quad \ell_i \le X_i \le u_i, \qquad
   \sum_p \lambda_p \sum_{\tau \le t} y^p_{i\tau} \le A_i(t), \qquad
   \sum_{p \in k} \lambda_p \le n_k,

:math:`\lambda_p \in \mathbb{N}` (the number of servers running pattern *p*). The restricted master
is the LP over the patterns generated so far with an elastic deficit :math:`\delta_i \ge 0` on each
bound (cost 1): its optimum is 0 iff the convexified question is feasible.

Pricing (exact, by dynamic programming)
---------------------------------------
With duals :math:`\pi_i, \rho_i \in [0, 1]` of the bounds, :math:`\mu_{it} \ge 0` of the submission
rows and :math:`\sigma_k \ge 0` of the type counts, a task of user *i* started in slot *t* is worth
:math:`c_{it} = \pi_i - \rho_i - \sum_{t' \ge t} \mu_{it'}`, and the best pattern of type *k*
maximises :math:`\sum_{it} c_{it} y_{it}` over the server schedules with :math:`y_{it} \le
b_{it} = \min(f_{ik}, A_i(t))` that meet Eq. 10b in every slot (demands are constant in time, which
this module requires). (The per-server submission rows are left to the master, which implies them: a
pattern breaking one can appear only fractionally.)

*The table, from slot transitions.* A *long* user has :math:`e_i \ge 2` (:math:`e_i` its duration,
at most *T*), a *short* one :math:`e_i = 1`; :math:`u(\cdot)` is the usage of a multiset of tasks
(linear). A server's *state* before slot *t* is the multiset :math:`s` of long tasks started before
*t* and still running in *t*, counted by (user, age :math:`a = 1..e_i - 1`: started in slot
:math:`t - a`). A *move* in slot *t* starts long tasks :math:`x` and short tasks :math:`q` with
:math:`x, q \le b_{\cdot t}` and

.. math:: u(s) + u(x) + u(q) \le C_k,

and enters the state :math:`s'` with age-1 part :math:`x` and :math:`s'(i, a) = s(i, a - 1)` for
:math:`2 \le a \le e_i - 1`: the *core* of :math:`s'` (its part of age :math:`\ge 2`) is
:math:`\gamma(s)`, a function of :math:`s` alone (``succ_core``).

*Claim: the sequences of moves from the empty state are exactly the server schedules above* (the
set the previous table, one transition per running configuration, generated; the same set, so the
same pricing). (i) Given a schedule *y*, let :math:`s_t` be its tasks running in *t* and started
before *t*. The tasks running in slot *t* are :math:`s_t` and those started in *t*, so Eq. 10b in
slot *t* is the move condition; the state after the move is :math:`s_{t+1}` (the tasks started in
*t* have age 1; a task of age :math:`a \le e_i - 2` has age :math:`a + 1`; one of age :math:`e_i -
1` ends). Every state met fits (:math:`u(s_t) \le C_k`, its tasks run in slot *t*), and the table
holds every multiset of (user, age :math:`\ge 1`) that fits: the moves exist in the table. (ii)
Conversely a sequence of moves gives starts :math:`y_{\cdot t} = (x_t, q_t)` within the bounds, and
by induction on *t* the state before slot *t* is that schedule's :math:`s_t`, so each move condition
is Eq. 10b in slot *t*. (Slots after the horizon are not checked, as in the program.) The states
entered all fit: :math:`u(s') = u(x) + u(\gamma\text{-part of } s) \le u(s) + u(x) \le C_k`.

*Evaluation by table entries, not by moves.* Per resource *r* the *grid* is the set of sums of the
type's task demands :math:`d_{jr}` up to :math:`C_{kr}`; the usage of any set of tasks that fits is
a grid point in every resource. Write :math:`\lfloor v \rfloor` for the largest grid point
:math:`\le v` (per resource). Then, for a grid point *w* (a usage that fits),
:math:`w \le v \iff w \le \lfloor v \rfloor`, so the move condition reads
:math:`u(q) \le \lfloor \lfloor C_k - u(s) \rfloor - u(x) \rfloor`. Group the states entered by
(core, cell of :math:`u(x)`) (*start classes*) and the states left by (:math:`\gamma(s)`, cell of
:math:`\lfloor C_k - u(s) \rfloor`) (*room classes*); an *entry* is a (room class, start class) of
the same core with the start's usage within the room, and carries the cell left to the short tasks.
The value recursion :math:`V_T \equiv 0`,

.. math::

   V_t(s) = \max_{\text{moves } (x, q) \text{ from } s} \big[c_{\cdot t} \cdot (x, q) + V_{t+1}(s')\big]
          = \max_{\text{entries } (\rho(s), \kappa)} \big[A_t(\kappa) + B_t(\text{rest})\big],

with :math:`A_t(\kappa)` the best :math:`c_{\cdot t} \cdot x + V_{t+1}(s')` over the states
:math:`s'` of start class :math:`\kappa` (:math:`x \le b_{\cdot t}`) and :math:`B_t(w)` the best
:math:`c_{\cdot t} \cdot q` over the short multisets :math:`q \le b_{\cdot t}` with :math:`u(q) \le
w` (a running maximum over the grid), maximises over the same moves, grouped: it is exact, and
:math:`V_0(\emptyset)` is the best pattern's value; the pattern is read forward along maximising
moves. :math:`V_t(s)` depends on *s* only through its room class, so the recursion keeps one value per
room class and slot (the pattern read forward rebuilds one slot's :math:`V_{t+1}` at a time), and
evaluates the entries in runs of whole room classes: its memory is that of the table plus
:math:`T` times the room classes, not :math:`T` times the states (seed 1's largest type below:
133,372 room classes; one pricing's peak 36.6 MB against 179.8 MB with every :math:`V_t` stored,
``benchmarks/RESULTS.md``). The table stores states, classes and entries, whose number grows far slower than the running
configurations' (the previous table): on the dense 10 x 10 x 20 instance of seed 1 the largest type
has 590,993 states and 4,367,731 entries against 30,767,486 running configurations
(``benchmarks/RESULTS.md``). ``tests/unit/exact/test_patterns.py`` checks the claim on tiny
instances: the schedules the moves generate against every start vector enumerated.

Bound (a certificate of infeasibility)
--------------------------------------
For any duals in those sign ranges, Lagrangian duality gives a lower bound on the deficit of every
integer schedule (indeed of every convex combination of patterns):

.. math::

   L = \sum_i \pi_i \ell_i - \sum_i \rho_i u_i - \sum_{it} \mu_{it} A_i(t)
       - \sum_k n_k \max\big(0, \max_p c \cdot y^p\big).

The pricing is exact, so *L* is computed exactly from clipped duals (no solver tolerance enters):
:math:`L > 0` proves the question infeasible (a deficit is an integer, so any positive bound
refutes). When column generation converges with the LP at 0 the bound cannot refute.

Branch-and-price
----------------
When the LP optimum is 0 the question is settled by branching. Each server is its own master type
(identical servers keep one transition table), so that :math:`\bar x_{mit} = \sum_{p \in m}
\lambda_p y^p_{it}` (tasks of user *i* started on server *m* in slot *t*) is a master quantity. When
the LP optimum is 0 and every :math:`\bar x_{mit}` is an integer, :math:`\bar x` is a schedule: each
server's :math:`\bar x_m` is a convex combination of its patterns, which satisfy linear rows
(capacity, start bounds), so it satisfies them too, and it is integral; the master rows hold for it.
Otherwise a fractional :math:`\bar x_{mit}` is branched on (``branching="nearest"``: the one nearest an
integer, towards it first; ``"up"``: the largest fractional part, rounded up first): a row
:math:`\sum_p \lambda_p y^p_{it} \le \lfloor \bar x \rfloor` or :math:`\ge \lceil \bar x \rceil`, elastic
(a slack of cost 1, so the LP stays feasible), whose dual enters the pricing's task value
:math:`c_{it}` of server *m* (so the pricing stays exact). The two rows split the integer schedules;
every schedule of a node meeting the bounds has cost 0 in its LP, so a node whose LP stays positive
after column generation (above ``_PRUNE``: the pricing's tolerance is 1e-7 per server) holds none,
and a search that runs out of nodes to try has *proven* the question infeasible. Depth first; bounded by ``max_nodes`` nodes and
``max_iterations`` pricing rounds (counts, never time): running out of them decides nothing.

Branching on slot decisions
---------------------------
``branching="config"``: a pattern is a path of moves, and its *slot decision* in slot *t* is its move
there (the state left and entered, encoded ``s * n_states + s'``, and the short multiset). Where the
master's weight on one server's slot decision is fractional, the search first forces it (every
pattern of that server takes it: the others are held at 0 and the pricing prices only that move in
slot *t*), and on backtrack bans it (the pricing prices the states it touches move by move,
:meth:`ServerType.moves`, without it). Both sides are sets of patterns closed under the pricing, so
the pricing stays exact; they split the server's schedules, so the search stays complete (the starts
are branched on when no slot decision is fractional).

References
----------
.. [1] G. Desaulniers, J. Desrosiers, M. M. Solomon (eds.), *Column Generation*, Springer 2005
   (Dantzig-Wolfe master, Lagrangian bound, branching on the original variables).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..model import TimeVaryingInstance

__all__ = ["ServerType", "PackingAnswer", "server_types", "threshold_schedule", "supports", "TooManyConfigurations"]

_EPS = 1e-9
_PRUNE = 1e-4      # a node LP above this (deficits are integers; pricing tolerance 1e-7 per server) has no schedule


def supports(tv: TimeVaryingInstance) -> bool:
    """Whether the pattern model applies: every user's task demand constant over the slots."""
    d = np.asarray(tv.task_demands)
    return bool((d == d[:, :1, :]).all())


class TooManyConfigurations(ValueError):
    """A server type's table has more states, short multisets or entries than ``max_configs``
    (:func:`server_types`)."""


def _multisets(cap: np.ndarray, demands: list[np.ndarray], bounds: list[int], limit: int | None = None) -> np.ndarray:
    """Every count vector c with c_j <= bounds[j] and sum_j c_j d_j <= cap (componentwise), in a fixed
    order (built one coordinate at a time, vectorised); :class:`TooManyConfigurations` beyond ``limit``
    of them (checked after each coordinate: the prefixes of the vectors are vectors of the prefix)."""
    cap = np.asarray(cap, dtype=float)
    rows = np.zeros((1, 0), dtype=np.int64)
    rem = cap[None, :].copy()
    for d, b in zip(demands, bounds):
        d = np.asarray(d, dtype=float)
        parts, rems = [], []
        for k in range(int(b) + 1):
            ok = (rem - k * d >= -_EPS).all(axis=1)
            if not ok.any():
                break
            parts.append(np.c_[rows[ok], np.full(int(ok.sum()), k, dtype=np.int64)])
            rems.append(rem[ok] - k * d)
        rows, rem = np.concatenate(parts), np.concatenate(rems)
        if limit is not None and len(rows) > limit:
            raise TooManyConfigurations(f"patterns: more than {limit} table entries on one server")
    return rows


def _sums(values: np.ndarray, cap: float) -> np.ndarray:
    """The sorted sums of nonnegative multiples of ``values`` up to ``cap`` (one resource's grid)."""
    vals = sorted({round(float(v), 9) for v in values if v > _EPS})
    out = {0.0}
    frontier = [0.0]
    while frontier:
        new = []
        for s in frontier:
            for v in vals:
                w = round(s + v, 9)
                if w <= cap + _EPS and w not in out:
                    out.add(w)
                    new.append(w)
        frontier = new
        if len(out) > 100_000:
            raise TooManyConfigurations("patterns: more than 100000 usage levels of one resource on one server")
    return np.array(sorted(out))


@dataclass
class ServerType:
    """One type of identical servers and its slot-transition table (module docstring, "Pricing").

    ``states``: every multiset of long tasks (:math:`e_i \\ge 2`) that fits, counted by (user, age
    :math:`a = 1..e_i - 1`), the tasks still running after a slot. ``core``: a state's part of age
    :math:`\\ge 2`; ``succ_core``: the core of every state a move from it enters (its tasks of age
    :math:`a \\le e_i - 2`, one slot older). ``x_of``: a state's age-1 part (the long tasks started
    into it). The table of moves is stored by *cells* of the usage grid (per resource, the sums of
    the type's task demands up to the capacity): an *entry* (room class, start class) pairs the states
    of one successor core and one cell of room left (``room_key``) with the states of that core and
    one cell of age-1 usage that fits in it (``x_key``), with the cell of the room then left to the
    short tasks (``pair_rest``). Its size is what grows, not the (state, move) pairs."""

    servers: list[int]
    cap: np.ndarray
    users: list[int]                  # eligible users whose task fits the server
    long: list[int]                   # of them, duration >= 2
    short: list[int]                  # duration 1
    state_items: list[tuple[int, int]]   # (user, age) of a state's coordinates, age 1..e-1
    states: np.ndarray                # (S, len(state_items)) counts
    x_of: np.ndarray                  # (S, len(long)) a state's age-1 part
    core: np.ndarray                  # (S,) index of a state's core
    succ_core: np.ndarray             # (S,) core of every state a move from it enters
    use: np.ndarray                   # (S, R) usage of each state
    x_use: np.ndarray                 # (S, R) usage of its age-1 part
    grid: list[np.ndarray]            # per resource, the sorted usage levels
    empty: int                        # index of the empty state
    shorts: np.ndarray                # (Q, len(short)) the short multisets that fit the server
    short_use: np.ndarray             # (Q, R)
    x_key: np.ndarray = field(default=None)      # (S,) start class (core, cell of x_use)
    room_key: np.ndarray = field(default=None)   # (S,) room class (succ_core, cell of the room left)
    order: np.ndarray = field(default=None)      # states sorted by x_key, and the classes' first positions
    x_bounds: np.ndarray = field(default=None)
    pair_x: np.ndarray = field(default=None)     # (P,) the entries' start classes, grouped by room class
    pair_rest: np.ndarray = field(default=None)  # (P,) cell of the room left to the short tasks
    pair_bounds: np.ndarray = field(default=None)   # first entry of each room class
    short_cell: np.ndarray = field(default=None)    # (Q,) cell of each short multiset's usage
    x_max: np.ndarray = field(default=None)         # (len(long),) largest age-1 count of each long user
    x_float: np.ndarray = field(default=None)       # x_of as floats, contiguous (the recursion's product)

    @property
    def count(self) -> int:
        return len(self.servers)

    @property
    def n_states(self) -> int:
        return len(self.states)

    @property
    def n_entries(self) -> int:
        return len(self.pair_x)

    def cells(self, u: np.ndarray) -> np.ndarray:
        """Flattened grid cell of the largest grid point <= ``u`` (rows, per resource); -1 where some
        coordinate is below every grid point (negative)."""
        u = np.atleast_2d(u)
        idx = np.zeros(len(u), dtype=np.int64)
        bad = np.zeros(len(u), dtype=bool)
        for r, g in enumerate(self.grid):
            j = np.searchsorted(g, u[:, r] + _EPS, side="right") - 1
            bad |= j < 0
            idx = idx * len(g) + np.maximum(j, 0)
        return np.where(bad, -1, idx)

    def _entered(self, s: int, ub_t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The states a move from state ``s`` can enter in a slot with start bounds ``ub_t`` (N,): those whose
        core is ``s``'s successor core, whose usage fits the room ``s`` leaves and whose long starts are
        within the bounds; and that room (cap - use of ``s``)."""
        cand = np.flatnonzero(self.core == self.succ_core[s])
        room = self.cap - self.use[s]
        ok = (self.x_use[cand] <= room + _EPS).all(axis=1)
        if self.long:
            ok &= (self.x_of[cand] <= ub_t[self.long]).all(axis=1)
        return cand[ok], room

    def moves(self, s: int, ub_t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every move from state ``s`` in a slot with start bounds ``ub_t`` (N,), listed: (the states
        entered, the short multisets' indices), pairwise (module docstring, "Pricing")."""
        cand, room = self._entered(s, ub_t)
        okq = (self.shorts <= ub_t[self.short]).all(axis=1) if self.short else np.ones(len(self.shorts), bool)
        qs = np.flatnonzero(okq)
        left = room[None, :] - self.x_use[cand]
        fit = (self.short_use[qs][None, :, :] <= left[:, None, :] + _EPS).all(axis=2)
        a, b = np.nonzero(fit)
        return cand[a], qs[b]

    def price(self, c: np.ndarray, ub: np.ndarray) -> tuple[float, np.ndarray]:
        """The best pattern for task values ``c`` (N, T) with per-slot start bounds ``ub`` (N, T):
        (its value, its starts (N, T)). Exact (module docstring)."""
        v, y, _ = self.price_path(c, ub)
        return v, y

    def _short_table(self, c_t: np.ndarray, ub_t: np.ndarray) -> np.ndarray:
        """Per grid cell, the best value of a short multiset (within ``ub_t``) whose usage is at most
        the cell's grid point (flattened; the empty multiset makes every entry >= 0)."""
        dims = [len(g) for g in self.grid]
        B = np.full(int(np.prod(dims)), -np.inf)
        qv = self.shorts @ c_t[self.short] if self.short else np.zeros(len(self.shorts))
        if self.short:
            qv = np.where((self.shorts <= ub_t[self.short]).all(axis=1), qv, -np.inf)
        np.maximum.at(B, self.short_cell, qv)
        B = B.reshape(dims)
        for r in range(len(dims)):                    # "usage <= room": running maxima along every resource
            np.maximum.accumulate(B, axis=r, out=B)
        return B.reshape(-1)

    _CHUNK = 1 << 19     # table entries evaluated at once in :meth:`_rooms` (bounds its temporaries)

    def _chunks(self) -> list[tuple[int, int, int, int]]:
        """The entries cut into runs of whole room classes of about ``_CHUNK`` entries: (first room
        class, last + 1, first entry, last + 1); computed once per table."""
        got = getattr(self, "_chunk_list", None)
        if got is None:
            R, P = len(self.pair_bounds), len(self.pair_x)
            ends = np.r_[self.pair_bounds, P]
            got, r0 = [], 0
            while r0 < R:
                r1 = int(np.searchsorted(ends, ends[r0] + self._CHUNK, side="right")) - 1
                r1 = min(R, max(r1, r0 + 1))
                got.append((r0, r1, int(ends[r0]), int(ends[r1])))
                r0 = r1
            self._chunk_list = got
        return got

    def _rooms(self, c_t: np.ndarray, ub_t: np.ndarray, V: np.ndarray, out: np.ndarray) -> np.ndarray:
        """One slot of the value recursion, by table entries (module docstring, "Pricing"): the value of
        every *room class* into ``out`` (R,). A state's value is its room class's (``out[room_key]``):
        the recursion's maximum depends on a state only through the room class it leaves."""
        a = V.copy()
        if self.long:
            a += self.x_float @ c_t[self.long]
            if (ub_t[self.long] < self.x_max).any():      # some start bound binds in this slot
                a[(self.x_of > ub_t[self.long]).any(axis=1)] = -np.inf
        best_x = np.maximum.reduceat(a[self.order], self.x_bounds)        # per start class
        del a
        B = self._short_table(c_t, ub_t)
        for r0, r1, e0, e1 in self._chunks():             # entries in runs of whole room classes
            val = best_x[self.pair_x[e0:e1]]
            val += B[self.pair_rest[e0:e1]]
            out[r0:r1] = np.maximum.reduceat(val, self.pair_bounds[r0:r1] - e0)
        return out

    def _slot(self, c_t: np.ndarray, ub_t: np.ndarray, V: np.ndarray) -> np.ndarray:
        """One slot of the value recursion: every state's value (:meth:`_rooms`, spread to the states)."""
        return self._rooms(c_t, ub_t, V, np.empty(len(self.pair_bounds)))[self.room_key]

    def _best_move(self, s: int, c_t, ub_t, V) -> tuple[int, int]:
        """A best move from ``s`` (the state entered, the short multiset): the best state entered given
        the best short multiset in the room it leaves (:meth:`_short_table`), then that multiset."""
        cand, room = self._entered(s, ub_t)
        B = self._short_table(c_t, ub_t)
        val = V[cand] + B[self.cells(room[None, :] - self.x_use[cand])]
        if self.long:
            val += self.x_of[cand] @ c_t[self.long]
        nxt = int(cand[int(np.argmax(val))])
        left = room - self.x_use[nxt]
        qv = self.shorts @ c_t[self.short] if self.short else np.zeros(len(self.shorts))
        okq = (self.short_use <= left + _EPS).all(axis=1)
        if self.short:
            okq &= (self.shorts <= ub_t[self.short]).all(axis=1)
        return nxt, int(np.argmax(np.where(okq, qv, -np.inf)))

    def _move_values(self, s: int, c_t, ub_t, V, forced, banned) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        nxt, qs = self.moves(s, ub_t)
        val = V[nxt].copy()
        if self.long:
            val += self.x_of[nxt] @ c_t[self.long]
        if self.short:
            val += self.shorts[qs] @ c_t[self.short]
        cfg = s * self.n_states + nxt
        if forced is not None:
            val = np.where((cfg == forced[0]) & (qs == forced[1]), val, -np.inf)
        for f, q in (banned or ()):
            val = np.where((cfg == f) & (qs == q), -np.inf, val)
        return val, nxt, qs

    def price_path(self, c: np.ndarray, ub: np.ndarray, forced: dict | None = None,
                   banned: dict | None = None) -> tuple[float, np.ndarray, np.ndarray]:
        """:meth:`price` over the patterns that, in every slot *t* of ``forced`` ({t: (configuration,
        short multiset)}), take that slot decision, and in no slot *t* of ``banned`` ({t: set of
        such pairs}) take one of those; also returns the best pattern's slot decisions (T, 2). A
        slot decision is (configuration, short multiset), the configuration ``s * n_states + s'`` of
        the move from state *s* into state *s'* (the tasks running in the slot are those of *s* and
        the age-1 part of *s'*). The value is -inf when no pattern qualifies. Exact: the restrictions
        are per move, and the states they touch are priced move by move (:meth:`moves`)."""
        n, T = c.shape
        S = self.n_states
        # V_t is kept per room class (W[t], R values: V_t = W[t][room_key]) plus the states a restricted
        # slot prices move by move (over[t]): R is far below S on large tables (seed 1's server 6 of the
        # dense 10 x 10 x 20 instance: 133,372 room classes, 590,993 states); one V of S values at a time
        W = np.empty((T, len(self.pair_bounds)))
        over: dict[int, dict[int, float]] = {}
        V = np.zeros(S)                                   # V_T = 0
        for t in range(T - 1, -1, -1):
            f = None if forced is None else forced.get(t)
            b = None if banned is None else banned.get(t)
            if f is not None:
                s = int(f[0]) // S
                over[t] = {s: self._move_values(s, c[:, t], ub[:, t], V, f, b)[0].max(initial=-np.inf)}
                W[t] = -np.inf
            else:
                over[t] = {s: self._move_values(s, c[:, t], ub[:, t], V, None, b)[0].max(initial=-np.inf)
                           for s in sorted({int(cfg) // S for cfg, _ in (b or ())})}
                self._rooms(c[:, t], ub[:, t], V, W[t])
            V = self._values(W, over, t, V)
        y = np.zeros((n, T), dtype=np.int64)
        path = np.zeros((T, 2), dtype=np.int64)
        v0 = float(V[self.empty])
        if not np.isfinite(v0):
            return -math.inf, y, path
        s = self.empty
        for t in range(T):          # forward along the best moves (the recursion's maxima, listed)
            f = None if forced is None else forced.get(t)
            b = None if banned is None else banned.get(t)
            V = np.zeros(S) if t + 1 == T else self._values(W, over, t + 1, V)      # V_{t+1}, rebuilt
            if f is None and not b:
                nxt, q = self._best_move(s, c[:, t], ub[:, t], V)
            else:
                val, nxts, qs = self._move_values(s, c[:, t], ub[:, t], V, f, b)
                j = int(np.argmax(val))
                nxt, q = int(nxts[j]), int(qs[j])
            path[t] = s * S + nxt, q
            for jj, i in enumerate(self.long):
                y[i, t] += self.x_of[nxt, jj]
            for jj, i in enumerate(self.short):
                y[i, t] += self.shorts[q, jj]
            s = nxt
        return v0, y, path

    def _values(self, W: np.ndarray, over: dict, t: int, out: np.ndarray) -> np.ndarray:
        """V_t of every state from its room-class form (:meth:`price_path`), into ``out`` when it has S
        entries (a new array otherwise)."""
        if out.shape != (self.n_states,):
            out = np.empty(self.n_states)
        np.take(W[t], self.room_key, out=out)
        for s, v in over.get(t, {}).items():
            out[s] = v
        return out


def server_types(tv: TimeVaryingInstance, max_configs: int | None = None) -> list[ServerType]:
    """Group identical servers (capacities, eligible users whose task fits) and build each type's
    slot-transition table (:class:`ServerType`); :class:`TooManyConfigurations` when a type has more
    than ``max_configs`` states, short multisets or table entries (on the dense 10 x 10 x 20 instances
    the largest type, seed 1's server 6, has 590,993 states and 4,367,731 entries:
    ``benchmarks/RESULTS.md``)."""
    if not supports(tv):
        raise ValueError("patterns: every user's task demand must be constant over the slots")
    from .tvtsf import _fits

    fits = _fits(tv)
    caps = tv.cluster.capacities
    d = tv.task_demands[:, 0, :].astype(float)
    R = d.shape[1]
    e = np.minimum(tv.durations.astype(int), tv.n_slots)
    keys: dict = {}
    for m in range(tv.n_servers):
        users = tuple(i for i in range(tv.n_agents) if fits[i, m, 0] > 0)
        keys.setdefault((tuple(caps[m]), users), []).append(m)
    out = []
    for (cap, users), servers in keys.items():
        cap = np.asarray(cap, dtype=float)
        m = servers[0]
        long_ = [i for i in users if e[i] >= 2]
        short = [i for i in users if e[i] < 2]
        items = [(i, a) for i in long_ for a in range(1, e[i])]
        states = _multisets(cap, [d[i] for i, _ in items], [int(fits[i, m, 0]) for i, _ in items], max_configs)
        pos = {it: j for j, it in enumerate(items)}
        old = [it for it in items if it[1] >= 2]                       # a core's coordinates
        core_rows = states[:, [pos[it] for it in old]] if old else np.zeros((len(states), 0), np.int64)
        aged = np.zeros_like(core_rows)              # the core a move enters: ages a <= e - 2, one older
        for j, (i, a) in enumerate(old):
            aged[:, j] = states[:, pos[(i, a - 1)]]
        cores, core = np.unique(core_rows, axis=0, return_inverse=True)
        core = core.reshape(-1)
        lookup = {r.tobytes(): k for k, r in enumerate(cores)}
        succ = np.array([lookup.get(r.tobytes(), -1) for r in aged], dtype=np.int64)
        if (succ < 0).any():          # cannot happen: an aged core fits (it is part of a state that fits)
            raise AssertionError("patterns: an aged core is not a state's core")
        D = np.array([d[i] for i, _ in items]).reshape(len(items), R)
        use = states @ D
        x_of = states[:, [pos[(i, 1)] for i in long_]] if long_ else np.zeros((len(states), 0), np.int64)
        x_use = x_of @ np.array([d[i] for i in long_]).reshape(len(long_), R)
        shorts = _multisets(cap, [d[i] for i in short], [int(fits[i, m, 0]) for i in short], max_configs)
        short_use = shorts @ np.array([d[i] for i in short]).reshape(len(short), R)
        grid = [_sums(d[list(users), r], cap[r]) for r in range(R)]
        st = ServerType(list(servers), cap, list(users), long_, short, items, states, x_of, core, succ, use, x_use,
                        grid, int(np.flatnonzero((states == 0).all(axis=1))[0]), shorts, short_use)
        dims = [len(g) for g in grid]
        x_cell, room_cell = st.cells(x_use), st.cells(cap[None, :] - use)
        xk, st.x_key = np.unique(core * np.prod(dims) + x_cell, return_inverse=True)
        rk, st.room_key = np.unique(succ * np.prod(dims) + room_cell, return_inverse=True)
        st.x_key, st.room_key = st.x_key.reshape(-1), st.room_key.reshape(-1)
        st.order = np.argsort(st.x_key, kind="stable")
        st.x_bounds = np.flatnonzero(np.r_[True, np.diff(st.x_key[st.order]) != 0])
        # entries: per core, every (room cell, start cell) with the start's usage within the room
        gx, cx = np.divmod(xk, np.prod(dims))
        gr, cr = np.divmod(rk, np.prod(dims))
        xpt = np.stack([g[i] for g, i in zip(grid, np.unravel_index(cx, dims))], axis=1)
        rpt = np.stack([g[i] for g, i in zip(grid, np.unravel_index(cr, dims))], axis=1)
        x_start = np.searchsorted(gx, np.arange(len(cores) + 1))        # start classes by core
        r_start = np.searchsorted(gr, np.arange(len(cores) + 1))        # room classes by core
        px, prest, counts = [], [], np.zeros(len(rk), dtype=np.int64)
        n_pairs = 0
        for g in range(len(cores)):
            rows = np.arange(r_start[g], r_start[g + 1])
            if not len(rows):
                continue
            xs = np.arange(x_start[g], x_start[g + 1])
            fit = (xpt[xs][None, :, :] <= rpt[rows][:, None, :] + _EPS).all(axis=2)
            a, b = np.nonzero(fit)                     # row-major: grouped by room class
            counts[rows] = fit.sum(axis=1)
            px.append(xs[b].astype(np.int32))
            prest.append(st.cells(rpt[rows[a]] - xpt[xs[b]]).astype(np.int32))
            n_pairs += len(a)
            if max_configs is not None and n_pairs > max_configs:
                raise TooManyConfigurations(f"patterns: more than {max_configs} table entries on one server")
        st.pair_x, st.pair_rest = np.concatenate(px), np.concatenate(prest)
        st.pair_bounds = np.r_[0, np.cumsum(counts)[:-1]]
        st.short_cell = st.cells(short_use)
        st.x_max = x_of.max(axis=0)
        st.x_float = np.ascontiguousarray(x_of, dtype=float)
        out.append(st)
    return out


@dataclass
class PackingAnswer:
    """The answer to a threshold question: ``feasible`` True (``starts`` a schedule meeting the
    bounds), False (proven: ``bound`` > 0 is the Lagrangian certificate) or None (undecided)."""

    feasible: bool | None
    starts: np.ndarray | None
    bound: float
    stats: dict


class _Master:
    """The restricted master LP on highspy (module docstring): rows L_i, U_i, R_it, K_k, all ">=";
    columns the deficits of L and U (cost 1), then the patterns and the branching rows' slacks."""

    def __init__(self, tv: TimeVaryingInstance, types: list[ServerType], lower, upper) -> None:
        import highspy

        from .solvers import highs_threads, quiet_highs

        self.tv, self.types = tv, types
        n, T = tv.n_agents, tv.n_slots
        self.n, self.T = n, T
        self.lo = np.asarray(lower, dtype=float)
        self.hi = np.asarray(upper, dtype=float)
        self.cum = np.cumsum(tv.arrivals, axis=1).astype(float)
        self.counts = np.array([t.count for t in types], dtype=float)
        self.n_rows = 2 * n + n * T + len(types)
        self.h = quiet_highs()
        self.inf = highspy.kHighsInf
        highs_threads(self.h, 1)          # the process-wide scheduler restarted if it ran with another count
        self.h.addRows(self.n_rows, self.rhs(), np.full(self.n_rows, self.inf),
                       0, np.array([], dtype=np.int32), np.array([], dtype=np.int32), np.array([]))
        for i in range(n):                 # the elastic deficits, cost 1
            self.h.addCol(1.0, 0.0, self.inf, 1, np.array([i], dtype=np.int32), np.array([1.0]))
            self.h.addCol(1.0, 0.0, self.inf, 1, np.array([n + i], dtype=np.int32), np.array([1.0]))
        self.cols: list[tuple[int, np.ndarray]] = []     # (type, starts (N, T))
        self.where: list[int] = []                          # each pattern's highspy column
        self.n_h = 2 * n                                    # highspy columns so far
        self.keys: dict = {}
        self.paths: list = []                               # each pattern's slot decisions (T, 2)

    def rhs(self) -> np.ndarray:
        """The rows' lower bounds: l_i, -u_i, -A_i(t), -n_k."""
        return np.r_[self.lo, -self.hi, -self.cum.ravel(), -self.counts]

    def column(self, k: int, y: np.ndarray) -> np.ndarray:
        n, T = self.n, self.T
        a = np.zeros(self.n_rows)
        x = y.sum(axis=1)
        a[:n] = x
        a[n:2 * n] = -x
        a[2 * n:2 * n + n * T] = -np.cumsum(y, axis=1).ravel()
        a[2 * n + n * T + k] = -1.0
        return a

    def add(self, k: int, y: np.ndarray, path: np.ndarray | None = None) -> int | None:
        key = (k, y.tobytes())
        if key in self.keys:
            return None
        self.paths.append(path)
        a = self.column(k, y)
        nz = np.flatnonzero(a)
        self.h.addCol(0.0, 0.0, self.inf, len(nz), nz.astype(np.int32), a[nz])
        self.keys[key] = len(self.cols)
        self.cols.append((k, y))
        self.where.append(self.n_h)
        self.n_h += 1
        return len(self.cols) - 1

    def add_slack(self, row: int, sign: float) -> int:
        """An elastic column of cost 1 on ``row`` (coefficient ``sign``); returns its highspy index."""
        self.h.addCol(1.0, 0.0, self.inf, 1, np.array([row], dtype=np.int32), np.array([sign]))
        self.n_h += 1
        return self.n_h - 1

    def solve(self) -> tuple[float, np.ndarray, np.ndarray]:
        self.h.run()
        obj = self.h.getInfo().objective_function_value
        sol = self.h.getSolution()
        if self.h.getModelStatus() != highspy_status().kOptimal:
            raise RuntimeError(f"patterns: the master LP ended {self.h.modelStatusToString(self.h.getModelStatus())}")
        lam = np.array(sol.col_value)[self.where] if self.where else np.zeros(0)
        return float(obj), np.array(sol.row_dual), lam


def _check(tv: TimeVaryingInstance, starts: np.ndarray) -> None:
    """Re-check a schedule against the model's own rules with
    :func:`~fairalloc.exact.tvtsf.schedule_details` (capacity per server, resource and slot; nothing
    started before it is submitted; placement); a violation is a bug here, raised."""
    from .tvtsf import schedule_details

    det = schedule_details(tv, starts)
    over = det["usage"] - tv.cluster.capacities[:, :, None]
    if (over > 1e-9).any():
        m, r, t = (int(v) for v in np.argwhere(over > 1e-9)[0])
        raise RuntimeError(f"patterns: schedule over capacity on server {m}, resource {r}, slot {t}")
    if (det["pending"] < 0).any():
        i, t = (int(v) for v in np.argwhere(det["pending"] < 0)[0])
        raise RuntimeError(f"patterns: user {i} started more tasks than submitted by slot {t}")
    if starts[~np.broadcast_to(tv.placement[:, :, None], starts.shape)].any():
        raise RuntimeError("patterns: a task on a server its placement forbids")


def highspy_status():
    import highspy

    return highspy.HighsModelStatus


def _per_server(types: list[ServerType]) -> list[ServerType]:
    """One type per server (the same transitions), so that a server's starts are master quantities."""
    import dataclasses

    return [dataclasses.replace(st, servers=[m]) for st in types for m in st.servers]


def threshold_schedule(tv: TimeVaryingInstance, lower, upper=None, *, max_nodes: int = 2000, max_iterations: int = 20000, branching: str = "nearest",
                types: list[ServerType] | None = None, progress: Any = None,
                cpu_limit: float | None = None, time_limit: float | None = None,
                full_root: bool = False) -> PackingAnswer:
    r"""Decide whether a schedule of ``tv`` gives every user :math:`\ell_i \le X_i \le u_i` tasks.

    Column generation with exact pricing, the Lagrangian bound at the root as a certificate, then
    branch-and-price on the servers' starts (module docstring).

    Parameters
    ----------
    tv : TimeVaryingInstance
        Demands constant in time (:func:`supports`).
    lower, upper : array_like of int, shape (N,)
        Bounds on the task totals (``upper`` default: the tasks submitted).
    max_nodes, max_iterations : int
        The budgets (branch-and-price nodes; pricing rounds in all).
    cpu_limit : float, optional
        CPU seconds of this process (``time.process_time``) after which the search stops, checked
        after every pricing round: a stop is an undecided answer (``stats["stopped"]``), never a verdict.
    time_limit : float, optional
        Wall seconds (``time.perf_counter``), checked likewise (``stats["stopped"] == "time_limit"``).
    full_root : bool, optional
        Run the root's column generation to the end whatever the limits (its certificate, and an
        integral root answer, do not depend on the machine's speed); the limits then apply to the
        branch-and-price. Default False.
    branching : {"nearest", "up", "config"}
        Which fractional start is branched on first: the one nearest an integer, towards it
        ("nearest"), or the one with the largest fractional part, rounded up first ("up"); or
        ``"config"``: a server's *slot decision* first (module docstring, "Branching on slot
        decisions"), the starts ("nearest") when no slot decision is fractional.
    types : list of ServerType, optional
        Precomputed :func:`server_types` (to reuse between questions on one instance).
    progress : callable, optional
        Called with a one-line string at each node.

    Returns
    -------
    PackingAnswer
        ``feasible`` True with ``starts`` (N, M, T); False, proven (``bound`` > 0: the root's
        Lagrangian certificate; or ``stats["exhausted"]``: every branch's LP positive); None when a
        budget ran out (``stats["stopped"]``: ``"cpu_limit"``, ``"time_limit"``, ``"iterations"`` or
        ``"nodes"``).

    Examples
    --------
    One server <2>, two users of demand <1> and duration 2, two tasks each submitted in slot 0 of a
    3-slot horizon: two tasks at slot 0 hold the server for slots 0-1, two more start in slot 2 (the
    last; they hold it inside the horizon only): 2 + 2 is feasible; 3 tasks of user 0 are not (only 2
    are submitted):

    >>> import fairalloc as fa
    >>> tv = fa.TimeVaryingInstance([[2]], [[1], [1]], arrivals=[[2, 0, 0], [2, 0, 0]], durations=[2, 2])
    >>> threshold_schedule(tv, [2, 2]).feasible
    True
    >>> ans = threshold_schedule(tv, [3, 0])
    >>> ans.feasible, ans.bound > 0
    (False, True)
    """
    n, M, T = tv.n_agents, tv.n_servers, tv.n_slots
    if branching not in ("nearest", "up", "config"):
        raise ValueError(f"branching={branching!r} must be 'nearest', 'up' or 'config'")
    lower = np.asarray(lower, dtype=np.int64)
    upper = tv.arrivals.sum(axis=1).astype(np.int64) if upper is None else np.asarray(upper, dtype=np.int64)
    for name, v in (("lower", lower), ("upper", upper)):
        if v.shape != (n,):
            raise ValueError(f"{name} must have shape ({n},) (one bound per user), got {v.shape}")
    if (lower > upper).any():
        i = int(np.argmax(lower > upper))
        return PackingAnswer(False, None, math.inf, {"reason": f"lower[{i}] = {lower[i]} > upper[{i}] = {upper[i]}"})
    types = _per_server(server_types(tv) if types is None else types)
    server = [st.servers[0] for st in types]
    master = _Master(tv, types, lower, upper)
    from .tvtsf import _fits

    fits = _fits(tv)
    cum = np.cumsum(tv.arrivals, axis=1)
    ub = [np.minimum(fits[:, st.servers[0], :], cum) for st in types]
    stats = {"iterations": 0, "nodes": 0, "branch_rows": 0, "pricing_s": 0.0, "lp_s": 0.0}
    base_rows = master.n_rows
    rows: list[tuple[int, int, int]] = []        # branching rows: (type, user, slot)
    slacks: list[int] = []                       # their elastic columns
    t0 = time.process_time()
    w0 = time.perf_counter()

    def out_of_budget() -> str | None:
        if full_root and not stats["nodes"]:
            return None
        if cpu_limit is not None and time.process_time() - t0 > cpu_limit:
            return "cpu_limit"
        if time_limit is not None and time.perf_counter() - w0 > time_limit:
            return "time_limit"
        return None

    def generate() -> tuple[float, float, np.ndarray, bool]:
        """Column generation at the node: (LP value, root Lagrangian bound, lambda, converged)."""
        best_lb = -math.inf
        while True:
            stats["iterations"] += 1
            c0 = time.process_time()
            obj, y, lam = master.solve()
            stats["lp_s"] += time.process_time() - c0
            pi, rho = np.clip(y[:n], 0, 1), np.clip(y[n:2 * n], 0, 1)
            mu = np.clip(y[2 * n:2 * n + n * T], 0, None).reshape(n, T)
            sigma = np.clip(y[2 * n + n * T:base_rows], 0, None)
            c = (pi - rho)[:, None] - np.cumsum(mu[:, ::-1], axis=1)[:, ::-1]
            res = master.rhs()
            lb = float(pi @ res[:n] + rho @ res[n:2 * n] + mu.ravel() @ res[2 * n:2 * n + n * T])
            extra = [np.zeros((n, T)) for _ in types]
            for r, (k, i, t) in enumerate(rows):
                extra[k][i, t] += y[base_rows + r]
            added = 0
            root = not rows and not decided()
            for k, st in enumerate(types):
                c0 = time.process_time()
                v, pat, path = st.price_path(c + extra[k], ub[k], forced[k], banned[k])
                stats["pricing_s"] += time.process_time() - c0
                if root:
                    lb -= max(0.0, v)
                if v > sigma[k] + 1e-7:
                    j = master.add(k, pat, path)
                    if j is not None:
                        added += 1
                        for r, (kk, i, t) in enumerate(rows):
                            if kk == k and pat[i, t]:
                                master.h.changeCoeff(base_rows + r, master.where[j], float(pat[i, t]))
            if root:
                best_lb = max(best_lb, lb)
            if (root and best_lb > 1e-6) or added == 0:
                return obj, best_lb, lam, True
            if stats["iterations"] >= max_iterations:
                stats["stopped"] = "iterations"
                return obj, best_lb, lam, False
            why = out_of_budget()
            if why is not None:
                stats["stopped"] = why
                return obj, best_lb, lam, False

    forced: list[dict] = [{} for _ in types]     # configuration branching: {slot: (configuration, short multiset)}
    banned: list[dict] = [{} for _ in types]     # {slot: set of such pairs}

    def decided() -> bool:
        return any(forced) or any(banned)

    def refresh(k: int) -> None:
        """Column bounds of server k's patterns from its slot decisions: a pattern against one is held at 0."""
        for j, (kk, _) in enumerate(master.cols):
            if kk != k:
                continue
            path = master.paths[j]
            ok = all(tuple(path[t]) == f for t, f in forced[k].items()) and \
                all(tuple(path[t]) not in b for t, b in banned[k].items())
            master.h.changeColBounds(master.where[j], 0.0, master.inf if ok else 0.0)

    def config_candidate(lam: np.ndarray) -> tuple[int, int, tuple[int, int]] | None:
        """The fractional slot decision (server, slot, pair) of largest weight, not already forced."""
        w: dict = {}
        for j in np.flatnonzero(lam > 1e-9):
            k = master.cols[j][0]
            path = master.paths[j]
            for t in range(T):
                key = (k, t, int(path[t, 0]), int(path[t, 1]))
                w[key] = w.get(key, 0.0) + lam[j]
        best, arg = -1.0, None
        for (k, t, cfg, q), v in w.items():
            if 1e-6 < v < 1 - 1e-6 and t not in forced[k] and v > best:
                best, arg = v, (k, t, (cfg, q))
        return arg

    def aggregate(lam: np.ndarray) -> np.ndarray:
        x = np.zeros((len(types), n, T))
        for j in np.flatnonzero(lam > 1e-12):
            k, pat = master.cols[j]
            x[k] += lam[j] * pat
        return x

    def add_row(k: int, i: int, t: int, lo_: float, hi_: float) -> None:
        js = [j for j, (kk, pat) in enumerate(master.cols) if kk == k and pat[i, t]]
        master.h.addRow(lo_, hi_, len(js), np.array([master.where[j] for j in js], dtype=np.int32),
                        np.array([float(master.cols[j][1][i, t]) for j in js]))
        # elastic (cost 1): the LP stays feasible, and a positive LP still proves the node empty
        slacks.append(master.add_slack(base_rows + len(rows), 1.0 if hi_ == master.inf else -1.0))
        rows.append((k, i, t))
        stats["branch_rows"] += 1

    def drop_row() -> None:
        master.h.deleteRows(1, np.array([base_rows + len(rows) - 1], dtype=np.int32))
        master.h.changeColBounds(slacks.pop(), 0.0, 0.0)       # its row is gone; the column stays, empty
        rows.pop()

    obj, lb, lam, done = generate()
    stats["root_bound"], stats["root_lp"] = lb, obj
    stats["columns"] = len(master.cols)
    if lb > 1e-6:
        stats["cpu_s"] = time.process_time() - t0
        return PackingAnswer(False, None, lb, stats)
    inf = master.inf
    stack: list[tuple] = []     # ("row", k, i, t, floor, down, other side tried) or ("cfg", k, t, pair, forced, tried)

    def undo(e: tuple) -> None:
        if e[0] == "row":
            drop_row()
        else:
            _, k, t, pair, was_forced, _ = e
            if was_forced:
                del forced[k][t]
            else:
                banned[k][t].discard(pair)
                if not banned[k][t]:
                    del banned[k][t]
            refresh(k)

    while stats["nodes"] < max_nodes:
        stats["nodes"] += 1
        frac = None
        cfg_branch = None
        if not done:
            break                       # the node's LP is not proven: nothing can be pruned
        if obj <= _PRUNE:
            x = aggregate(lam)
            f = np.abs(x - np.rint(x))
            if f.max() <= 1e-6:
                starts = np.zeros((n, M, T), dtype=np.int64)
                for k, m in enumerate(server):
                    starts[:, m, :] = np.rint(x[k]).astype(np.int64)
                got = starts.sum(axis=(1, 2))
                if (got >= lower).all() and (got <= upper).all():
                    _check(tv, starts)
                    stats["cpu_s"] = time.process_time() - t0
                    stats["columns"] = len(master.cols)
                    return PackingAnswer(True, starts, lb, stats)
        why = out_of_budget()
        if why is not None:
            stats["stopped"] = why
            break
        if obj <= _PRUNE:
            if branching == "config":
                cfg_branch = config_candidate(lam)
            if cfg_branch is None:
                if branching == "up":         # the largest fractional part, rounded up first
                    up = x - np.floor(x)
                    fr = np.where(f > 1e-6, -up, np.inf)
                else:                         # the fractional value nearest an integer, towards it first
                    fr = np.where(f > 1e-6, f, np.inf)
                if np.isfinite(fr).any():
                    frac = np.unravel_index(int(np.argmin(fr)), fr.shape)
        if progress is not None:
            progress(f"node {stats['nodes']}: depth {len(stack)}, LP {obj:.4f}, {len(master.cols)} columns")
        if cfg_branch is not None:
            k, t, pair = cfg_branch
            forced[k][t] = pair           # the heavier side first: every pattern of server k takes it
            refresh(k)
            stack.append(("cfg", k, t, pair, True, False))
            stats["config_branches"] = stats.get("config_branches", 0) + 1
        elif frac is not None:
            k, i, t = (int(v) for v in frac)
            v = x[k, i, t]
            down = branching != "up" and v - math.floor(v) < 0.5
            if down:
                add_row(k, i, t, -inf, float(math.floor(v)))
            else:
                add_row(k, i, t, float(math.ceil(v)), inf)
            stack.append(("row", k, i, t, int(math.floor(v)), down, False))
        else:
            # infeasible node: flip the deepest untried branch
            while stack and stack[-1][-1]:
                undo(stack.pop())
            if not stack:
                stats["cpu_s"] = time.process_time() - t0
                stats["columns"] = len(master.cols)
                stats["exhausted"] = True      # every branch's LP positive: no schedule (docstring)
                return PackingAnswer(False, None, stats["root_bound"], stats)
            e = stack.pop()
            undo(e)
            if e[0] == "row":
                _, k, i, t, fl, down, _ = e
                if down:
                    add_row(k, i, t, float(fl + 1), inf)
                else:
                    add_row(k, i, t, -inf, float(fl))
                stack.append(("row", k, i, t, fl, not down, True))
            else:
                _, k, t, pair, _, _ = e
                banned[k].setdefault(t, set()).add(pair)     # the other side: no pattern of k takes it
                refresh(k)
                stack.append(("cfg", k, t, pair, False, True))
        obj, lb, lam, done = generate()
    stats.setdefault("stopped", "nodes")
    stats["cpu_s"] = time.process_time() - t0
    stats["columns"] = len(master.cols)
    return PackingAnswer(None, None, stats["root_bound"], stats)
