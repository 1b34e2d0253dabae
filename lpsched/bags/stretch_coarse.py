"""Where to start the max-stretch search on large instances: a time-aggregated estimate (issue 13).

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
window on any resource. It maximises the tasks delivered (the deliver LP of
:mod:`lpsched.bags.stretch_model`, coarsened).

It is neither a relaxation nor a restriction of (K)/(K1) (a path sent in one group and
computed in the next has no coarse image; a coarse plan may send a window's tasks at the
wrong end of a group), so it decides nothing: :func:`coarse_start` only *chooses* the first
critical value the exact search probes and the pairs its master starts with. Every verdict
stays an exact check, so the search's answer is unchanged (decision 228).

Cost: one LP of ``n + G + G·p`` rows (one-port; 310 on balanced 100x20) and at most
``n·p·G`` columns per probe, ``O(log C)`` probes over the ``C`` critical values.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import highspy
import numpy as np

from lpsched.bags.stretch_model import StretchProblem
from lpsched.bags.stretch_paths import path_coefficients
from lpsched.errors import LpschedError, SolverError
from lpsched.solvers import console
from lpsched.solvers.highs import DEFAULT_OPTIONS, model_status
from lpsched.solvers.solution import Status

#: Groups of consecutive intervals of the coarse LP. Measured on balanced 100x20 (5 seeds):
#: 10 groups put the coarse threshold at 0.86-0.92 of the optimum (the critical value
#: probed, the last one below it, at 0.84-0.91) for about 0.05 s per LP; 20 groups at
#: 0.91-0.97 for about 0.12 s; 30 at 0.94-0.99 for about 0.28 s. A closer start did not
#: pay for the dearer LPs (decision 228).
GROUPS = 10
#: A coarse answer counts a pair as used above this many tasks.
USED_TASKS = 1e-9


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

    def deliver(self, stretch: float, time_limit: float | None = None) -> float:
        """The most tasks the coarse LP delivers at ``stretch``; its plan's pairs are then
        :meth:`pairs`."""
        pr = self.problem
        n, p = pr.n, pr.p
        glen, overlap = self._capacities(stretch)
        G = glen.size
        k, g = np.nonzero(overlap > 0)
        K, Gg = np.repeat(k, p), np.repeat(g, p)
        U = np.tile(np.arange(p), k.size)
        c = K.size
        # rows: tasks n | master G (free without a master row) | links G*p | CPUs G*p
        link_rows = G * p if self.link is not None else 0
        cpu_row0 = n + G + link_rows
        rows = [K, cpu_row0 + Gg * p + U]
        vals = [np.ones(c), self.cpu[K, U]]
        if self.master is not None:
            rows.append(n + Gg)
            vals.append(self.master[K, U])
        if self.link is not None:
            rows.append(n + G + Gg * p + U)
            vals.append(self.link[K, U])
        # a task of k uses at most the part of g inside k's window on every resource
        upper = overlap[K, Gg] / np.max(np.stack(vals[1:]), axis=0)
        num_rows = cpu_row0 + G * p
        row_up = np.concatenate([pr.remaining.astype(float), glen,
                                 np.repeat(glen, p) if link_rows else np.zeros(0),
                                 np.repeat(glen, p)])
        if self.master is None:
            row_up[n:n + G] = np.inf
        r_all, v_all = np.concatenate(rows), np.concatenate(vals)
        c_all = np.tile(np.arange(c), len(rows))
        order = np.argsort(c_all, kind="stable")
        starts = np.searchsorted(c_all[order], np.arange(c)).astype(np.int32)
        h = console.construct(highspy.Highs)
        done: list[object] = []

        def load() -> None:
            for key, value in {**DEFAULT_OPTIONS, "output_flag": False}.items():
                h.setOptionValue(key, value)
            if time_limit is not None:
                h.setOptionValue("time_limit", float(max(time_limit, 1e-3)))
            done.append(h.passModel(
                c, num_rows, int(r_all.size), int(highspy.MatrixFormat.kColwise),
                int(highspy.ObjSense.kMaximize), 0.0, np.ones(c), np.zeros(c), upper,
                np.full(num_rows, -np.inf), row_up, starts, r_all[order].astype(np.int32),
                v_all[order], np.zeros(c, np.int32)))

        console.quietly(load)
        if done[0] != highspy.HighsStatus.kOk:
            raise SolverError("HiGHS rejected the coarse LP")
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
        self._k, self._u = K, U
        self._x = np.asarray(h.getSolution().col_value, float)
        return float(h.getInfo().objective_function_value)

    def pairs(self) -> np.ndarray:
        """``(n, p)`` mask of the pairs the last coarse plan uses."""
        mask = np.zeros((self.problem.n, self.problem.p), bool)
        used = self._x > USED_TASKS
        mask[self._k[used], self._u[used]] = True
        return mask


def coarse_start(problem: StretchProblem, points: np.ndarray, tolerance: float,
                 time_left: Callable[[], float | None] | None = None,
                 groups: int | None = None) -> CoarseStart:
    """Binary search over the critical values ``points`` (ascending) for the last one at
    which the coarse LP leaves more than ``tolerance`` tasks undelivered, and the pairs of
    its coarse plan there (module docstring). ``points[0]`` is taken as short (the search's
    lower bound) and ``points[-1]`` as enough; about ``log2(len(points))`` coarse LPs of
    ``groups`` groups (default :data:`GROUPS`)."""
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
    return CoarseStart(lo, pairs, lp.solves, lp.seconds)
