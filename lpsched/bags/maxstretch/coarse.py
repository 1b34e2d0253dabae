"""Where to start the max-stretch search on large instances: a time-aggregated estimate.

On balanced 100x20 the first exact check of :func:`~lpsched.bags.maxstretch.max_stretch`
costs one cold solve of a path master seeded with the steady-state pairs (1,005 of 2,000
(application, worker) pairs on seed 0, about 100k columns, 9-11k simplex iterations,
3-5 s), and starting from the single-resource bound (0.48-0.75 of the optimum on the five
benchmark seeds) costs a far jump after it. Yet an optimal plan uses few pairs
(about two workers per application: 195 of 2,000 pairs on seed 0) and almost only
same-interval paths (98.6 %). This module guesses both *where* to start and *which pairs*
to seed from a much smaller LP.

The *coarse LP* at a stretch ``S`` merges the ``J`` intervals of the epoch order at ``S``
into ``G`` groups of consecutive intervals (:data:`GROUPS`, equal counts). Its variables are
the tasks ``x[k, u, g]`` of application ``k`` sent and computed on worker ``u`` within group
``g``; its rows are the tasks (3)/(12), and per group the master's port (one-port (10-b), or
the bounded multiport's master (10) and links (9)) and each CPU (8) with the group's total
length as capacity; each ``x[k, u, g]`` may use at most the part of ``g`` inside ``k``'s
window on any resource. It maximises the fraction ``λ <= 1`` of every application's tasks
it delivers (``Σ_{u,g} x[k, u, g] >= λ·r_k``), counted in tasks (``λ·Σ r_k``), as the
path master's checks do (decision 229): a plan short by the same fraction everywhere keeps
every application, so its pairs are those of a tight plan.

It is neither a relaxation nor a restriction of (K)/(K1) (a path sent in one group and
computed in the next has no coarse image; a coarse plan may send a window's tasks at the
wrong end of a group), so it decides nothing: :func:`coarse_start` only *chooses* the first
critical value the exact search probes and the pairs its master starts with. Every verdict
stays an exact check, so the search's answer is unchanged (decision 228).

The pairs come from a *fine* coarse LP of :data:`FINE_GROUPS` groups posed once at that
critical value, solved by column generation over whole pairs from the coarse plan's pairs
(decision 229): its plan holds 0.87-0.94 of the pairs an optimal plan uses on balanced
100x20, the 10-group plan 0.69-0.75.

Cost: one LP of ``n + G + G·p`` rows (one-port; 310 on balanced 100x20) and at most
``n·p·G`` columns per probe, ``O(log C)`` probes over the ``C`` critical values, then the
fine LP's rounds (4-7 on balanced 100x20, 0.16-0.30 s in all).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import highspy
import numpy as np

from lpsched.bags.maxstretch.paths import PRICE_TOLERANCE, path_coefficients
from lpsched.bags.maxstretch.problem import StretchProblem
from lpsched.errors import LpschedError, SolverError
from lpsched.solvers import console
from lpsched.solvers.highs import DEFAULT_OPTIONS, model_status, set_time_limit
from lpsched.solvers.solution import Status

#: Groups of consecutive intervals of the coarse LP. Measured on balanced 100x20 (5 seeds):
#: 10 groups put the coarse threshold at 0.86-0.92 of the optimum (the critical value
#: probed, the last one below it, at 0.84-0.91) for about 0.05 s per LP; 20 groups at
#: 0.91-0.97 for about 0.12 s; 30 at 0.94-0.99 for about 0.28 s. A closer start did not
#: pay for the dearer LPs (decision 228).
GROUPS = 10
#: Groups of the *fine* coarse LP posed once at the coarse threshold, whose plan's pairs
#: seed the path master (decision 229). On balanced 100x20 (seeds 0-4) the 40-group plan
#: holds 0.87-0.94 of the pairs the optimal plan uses (precision 0.73-0.83), against
#: 0.69-0.75 for the 10-group plan; column generation over pairs from the 10-group plan's
#: solves it in 0.16-0.30 s (the whole LP: 0.5-0.95 s).
FINE_GROUPS = 40
#: Pairs that enter a column-generated coarse LP per round (all their groups at once).
PAIRS_PER_ROUND = 200
#: A coarse answer counts a pair as used above this many tasks.
USED_TASKS = 1e-9
#: Offline path searches whose ``applications x workers x intervals`` exceeds this start
#: from the coarse LP (decision 228): 398k on balanced 100x20, 7.8k on balanced 20x10
#: (where the coarse LPs would cost more than they save).
COARSE_ABOVE = 100_000


@dataclass(frozen=True)
class CoarseStart:
    """What :func:`coarse_start` found: ``index`` of the critical value to probe first
    (the largest probed one the coarse LP found short of tasks, 0 if none), ``pairs`` the
    ``(n, p)`` mask of the pairs the coarse plan uses there, ``solves`` the coarse LPs and
    ``seconds`` the time inside HiGHS."""

    index: int
    pairs: np.ndarray
    solves: int
    seconds: float


class CoarseLP:
    """The coarse deliver LP of ``problem`` (module docstring), posed afresh at each stretch.

    Examples
    --------
    >>> from lpsched.bags import random_bags
    >>> pr = StretchProblem.offline(random_bags(6, 3, seed=1))
    >>> lp = CoarseLP(pr, groups=4)
    >>> low = lp.deliver(1.0)  # far too tight: tasks are left over
    >>> bool(low < pr.remaining.sum())
    True
    >>> bool(lp.deliver(1e6) >= pr.remaining.sum() - 1e-6)  # loose: all delivered
    True
    >>> lp.pairs().shape
    (6, 3)
    """

    def __init__(self, problem: StretchProblem, groups: int | None = None) -> None:
        groups = GROUPS if groups is None else groups
        if groups < 1:
            raise LpschedError(f"the coarse LP needs at least 1 group, got {groups}")
        self.problem = problem
        self.groups = groups
        self.master, self.link, self.cpu = path_coefficients(problem)
        self.solves = 0
        self.seconds = 0.0
        self._k = np.zeros(0, int)
        self._u = np.zeros(0, int)
        self._x = np.zeros(0)

    def _capacities(self, stretch: float) -> tuple[np.ndarray, np.ndarray]:
        """``(group length (G,), overlap (n, G))`` of the epoch order at ``stretch``."""
        pr = self.problem
        order = pr.order_at(stretch)
        js, je = pr.window_positions(order)
        length = np.diff(pr.epoch_beta[order]) + stretch * np.diff(pr.epoch_alpha[order])
        length = np.maximum(length, 0.0)  # exact ties may differ by an ulp
        J = length.size
        G = min(self.groups, J)
        edges = np.linspace(0, J, G + 1).round().astype(int)
        group = np.searchsorted(edges, np.arange(J), side="right") - 1
        iv = np.arange(J)
        inside = (iv[None, :] >= js[:, None]) & (iv[None, :] < je[:, None])
        overlap = np.zeros((pr.n, G))
        k, j = np.nonzero(inside)
        np.add.at(overlap, (k, group[j]), length[j])
        return np.bincount(group, weights=length, minlength=G), overlap

    def _layout(self, G: int) -> tuple[int, int, int]:
        """``(link row 0, CPU row 0, rows)`` with ``G`` groups: tasks ``n`` | master ``G``
        (free without a master row) | links ``G·p`` (multiport) | CPUs ``G·p``."""
        n, p = self.problem.n, self.problem.p
        link_rows = G * p if self.link is not None else 0
        cpu_row0 = n + G + link_rows
        return n + G, cpu_row0, cpu_row0 + G * p

    def _load(self, glen: np.ndarray) -> highspy.Highs:
        """A fresh HiGHS model with the rows and the fraction column ``λ`` only."""
        pr = self.problem
        n, p, G = pr.n, pr.p, glen.size
        _, _, num_rows = self._layout(G)
        total = float(pr.remaining.sum()) or 1.0  # λ's cost: the objective counts tasks
        row_lo = np.full(num_rows, -np.inf)
        row_lo[:n] = 0.0  # Σ x[k] - r_k·λ >= 0
        row_up = np.concatenate([np.full(n, np.inf),
                                 glen if self.master is not None else np.full(G, np.inf),
                                 np.repeat(glen, p) if self.link is not None else [],
                                 np.repeat(glen, p)])
        h = console.construct(highspy.Highs)
        done: list[object] = []

        def load() -> None:
            # presolve off: 0.55 s instead of 0.67 s for the ten LPs of balanced 100x20
            # seed 0 (decision 402)
            for key, value in {**DEFAULT_OPTIONS, "output_flag": False,
                               "presolve": "off"}.items():
                h.setOptionValue(key, value)
            done.append(h.passModel(
                1, num_rows, n, int(highspy.MatrixFormat.kColwise),
                int(highspy.ObjSense.kMaximize), 0.0, np.array([total]), np.zeros(1),
                np.ones(1),
                row_lo, row_up, np.zeros(1, np.int32), np.arange(n, dtype=np.int32),
                -pr.remaining.astype(float), np.zeros(1, np.int32)))

        console.quietly(load)
        if done[0] != highspy.HighsStatus.kOk:
            raise SolverError("HiGHS rejected the coarse LP")
        return h

    def _add(self, h: highspy.Highs, pairs: np.ndarray, overlap: np.ndarray) -> None:
        """Append the columns ``x[k, u, g]`` of the ``(n, p)`` mask ``pairs`` for every
        group ``g`` overlapping ``k``'s window, each capped by that overlap."""
        p, G = self.problem.p, overlap.shape[1]
        k0, u0 = np.nonzero(pairs)
        K, U = np.repeat(k0, G), np.repeat(u0, G)
        Gg = np.tile(np.arange(G), k0.size)
        keep = overlap[K, Gg] > 0
        K, U, Gg = K[keep], U[keep], Gg[keep]
        if not K.size:
            return
        link_row0, cpu_row0, _ = self._layout(G)
        rows = [K, cpu_row0 + Gg * p + U]
        vals = [np.ones(K.size), self.cpu[K, U]]
        if self.master is not None:
            rows.append(self.problem.n + Gg)
            vals.append(self.master[K, U])
        if self.link is not None:
            rows.append(link_row0 + Gg * p + U)
            vals.append(self.link[K, U])
        # a task of k uses at most the part of g inside k's window on every resource
        upper = overlap[K, Gg] / np.max(np.stack(vals[1:]), axis=0)
        per = len(rows)
        idx = np.stack(rows, axis=1).ravel().astype(np.int32)
        starts = (np.arange(K.size) * per).astype(np.int32)
        h.addCols(K.size, np.zeros(K.size), np.zeros(K.size), upper, idx.size, starts, idx,
                  np.stack(vals, axis=1).ravel())
        self._k = np.concatenate([self._k, K])
        self._u = np.concatenate([self._u, U])

    def _profits(self, y: np.ndarray, overlap: np.ndarray) -> np.ndarray:
        """``(n, p)``: the best reduced profit over the groups of each pair's columns under
        the row duals ``y`` (HiGHS: ``0 - Aᵀy``; ``-inf`` where no group overlaps)."""
        pr = self.problem
        n, p, G = pr.n, pr.p, overlap.shape[1]
        link_row0, cpu_row0, _ = self._layout(G)
        cost = y[:n, None, None] + self.cpu[:, :, None] * y[cpu_row0:].reshape(G, p).T
        if self.master is not None:
            cost = cost + self.master[:, :, None] * y[n:n + G]
        if self.link is not None:
            link = y[link_row0:cpu_row0].reshape(G, p).T
            cost = cost + self.link[:, :, None] * link
        return np.where(overlap[:, None, :] > 0, -cost, -np.inf).max(axis=2)

    def deliver(self, stretch: float, time_limit: float | None = None,
                pairs: np.ndarray | None = None) -> float:
        """Solve the coarse LP at ``stretch`` and return the tasks it delivers.

        The answer is the largest fraction ``λ`` of every application's tasks delivered,
        counted in tasks (``λ·total``, module docstring); the plan's pairs are then
        :meth:`pairs`. With ``pairs`` (an ``(n, p)`` mask) only those pairs' columns are
        posed first, and column generation adds the :data:`PAIRS_PER_ROUND` pairs of best
        reduced profit until none prices out: the same optimum, from a much smaller LP when
        the mask is close to the plan's pairs. ``time_limit`` (seconds) bounds the whole
        call.

        Parameters
        ----------
        stretch : float
            The stretch asked (its epoch order sets the groups).
        time_limit : float, optional
            Seconds for the whole call.
        pairs : numpy.ndarray, optional
            ``(n, p)`` mask of the (application, worker) pairs posed first (default: every
            pair).

        Returns
        -------
        float
            The tasks delivered, ``λ·Σ r_k``.
        """
        pr = self.problem
        t_end = None if time_limit is None else time.perf_counter() + max(time_limit, 1e-3)
        glen, overlap = self._capacities(stretch)
        h = self._load(glen)
        self._k, self._u = np.zeros(0, int), np.zeros(0, int)
        # a copy: the mask grows with the generated pairs, the caller's stays as given
        have = np.ones((pr.n, pr.p), bool) if pairs is None else np.array(pairs, bool)
        if have.shape != (pr.n, pr.p):
            raise LpschedError(f"a pair mask of shape {have.shape} for a coarse LP of "
                               f"{pr.n} applications x {pr.p} workers")
        self._add(h, have, overlap)
        while True:
            self._run(h, stretch, t_end)
            gain = self._profits(np.asarray(h.getSolution().row_dual, float), overlap)
            fresh = np.argwhere((gain > PRICE_TOLERANCE) & ~have)
            if not fresh.size:
                break
            best = np.argsort(-gain[fresh[:, 0], fresh[:, 1]], kind="stable")
            mask = np.zeros_like(have)
            mask[tuple(fresh[best[:PAIRS_PER_ROUND]].T)] = True
            self._add(h, mask, overlap)
            have |= mask
        self._x = np.asarray(h.getSolution().col_value, float)[1:]
        return float(h.getInfo().objective_function_value)

    def _run(self, h: highspy.Highs, stretch: float, t_end: float | None) -> None:
        set_time_limit(h, None if t_end is None else max(t_end - time.perf_counter(), 1e-3))
        t0 = time.perf_counter()
        console.quietly(h.run)
        self.seconds += time.perf_counter() - t0
        self.solves += 1
        status = model_status(h)
        if status is Status.TIME_LIMIT:
            raise SolverError(f"coarse LP at S={stretch:.9g}: the time limit ran out (status "
                              "time_limit); allow more time (--time-limit or time_limit=)",
                              status=status)
        if status is not Status.OPTIMAL:
            raise SolverError(f"coarse LP at S={stretch:.9g}: HiGHS returned status "
                              f"{status.value}", status=status)

    def pairs(self) -> np.ndarray:
        """``(n, p)`` mask of the pairs the last coarse plan uses.

        Returns
        -------
        numpy.ndarray
            Boolean, shape ``(n, p)``: pairs with more than :data:`USED_TASKS` tasks.
        """
        mask = np.zeros((self.problem.n, self.problem.p), bool)
        used = self._x > USED_TASKS
        mask[self._k[used], self._u[used]] = True
        return mask


def coarse_start(problem: StretchProblem, points: np.ndarray, tolerance: float,
                 time_left: Callable[[], float | None] | None = None,
                 groups: int | None = None,
                 fine_groups: int | None = FINE_GROUPS) -> CoarseStart:
    """Find the critical value a path search probes first and the pairs its master starts with.

    A binary search over the critical values ``points`` (ascending) for the last one at
    which the coarse LP is short by more than ``tolerance`` tasks (its uniform shortfall
    ``(1 - λ)·Σ r_k``), and the pairs of a coarse plan there (module docstring). The search
    poses about ``log2(len(points))`` coarse LPs of ``groups`` groups (default
    :data:`GROUPS`); ``points[0]`` is taken as short (the search's lower bound) and
    ``points[-1]`` as enough. The pairs are those of the ``fine_groups``-group LP posed
    there (default :data:`FINE_GROUPS`, column-generated from the pairs of the ``groups``
    one), or with ``fine_groups=None`` the ``groups`` one's own.

    Parameters
    ----------
    problem : StretchProblem
        The offline problem without held tasks.
    points : numpy.ndarray
        The search's critical values, ascending (seed 003 §3.4).
    tolerance : float
        Tasks short that count as short (the search's delivery tolerance).
    time_left : callable, optional
        Seconds left of the search's budget (``None``: unlimited).
    groups : int, optional
        Groups of the probing LPs (default :data:`GROUPS`).
    fine_groups : int, optional
        Groups of the LP whose pairs seed the master (default :data:`FINE_GROUPS`).

    Returns
    -------
    CoarseStart
        The index of the critical value probed first, the pairs, the LPs solved and their
        seconds.

    Notes
    -----
    The shortfall is the fraction question of the path master's checks (decision 229); the
    start is a guess, never a verdict (decision 228).
    """
    lp = CoarseLP(problem, groups)
    total = float(problem.remaining.sum())
    tl: Callable[[], float | None] = time_left or (lambda: None)
    lo, hi = 0, len(points) - 1
    pairs: np.ndarray | None = None  # the coarse plan's pairs at points[lo]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if lp.deliver(float(points[mid]), tl()) >= total - tolerance:
            hi = mid
        else:
            lo, pairs = mid, lp.pairs()
    if pairs is None:  # points[0] was never posed
        lp.deliver(float(points[lo]), tl())
        pairs = lp.pairs()
    solves, seconds = lp.solves, lp.seconds
    if fine_groups:
        fine = CoarseLP(problem, fine_groups)
        fine.deliver(float(points[lo]), tl(), pairs=pairs)
        pairs = fine.pairs()
        solves, seconds = solves + fine.solves, seconds + fine.seconds
    return CoarseStart(lo, pairs, solves, seconds)


def use_coarse(problem: StretchProblem) -> bool:
    """Whether a path search on ``problem`` starts from the coarse LP by default.

    It does when no task is held (the coarse LP ignores held tasks, so an online re-solve
    uses it only before any task is held) and ``n·p·J`` (``J`` intervals between the ``2n``
    epochs) is above :data:`COARSE_ABOVE`.

    Parameters
    ----------
    problem : StretchProblem
        The offline or online problem (seed 003 §3; its epochs, ``MS*_k`` and ``ρ*``).

    Returns
    -------
    bool
        ``True`` when the coarse start pays (decision 228).
    """
    intervals = problem.epoch_alpha.size - 1
    return (not (problem.buffered > 0).any()
            and problem.n * problem.p * intervals > COARSE_ABOVE)
