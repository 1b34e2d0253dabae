"""The max-stretch LPs of one epoch order as *path* LPs, solved by column generation.

For a fixed epoch order the buffer model of one (application ``k``, worker ``u``) in
(K)/(K1) (seed 003 §3.3.4, constraints (7)/(16) and (13) ``B >= 0``, buffers empty at the
window's end (6)/(15), ``B̂`` at its start (5)/(5′)) is a single-commodity flow along the
intervals of the window: ``B(j) = B(j-1) + send(j) - comp(j) >= 0``. Any such flow splits
into *paths* (flow decomposition, FIFO): ``x[k, u, j, j']`` tasks sent in interval ``j`` and
computed in interval ``j' >= j`` (``j = j'`` is allowed: (7)/(16) let a task be computed in
the interval it arrives in), and ``y[k, u, j']`` tasks of ``B̂`` computed in ``j'``; the
buffer at the end of interval ``c`` is then ``B̂ - Σ_{j'<=c} y + Σ_{j<=c<j'} x >= 0``.
Conversely every point of the path LP gives back sends, computations and non-negative
buffers. So the *path LP* below is exact, and it has no buffer or conservation rows: only
the totals (3)/(12) (``n`` rows), the held tasks ``Σ_{j'} y + leftover = B̂`` (one row per
pair holding tasks, online only), the master's rows per interval (one-port (10-b), or
bounded multiport's links (9) and master (10)), the CPUs (8) per interval and worker, and
the ``delivered`` row of :mod:`lpsched.bags.maxstretch.buffer_model` — about 4,300 rows on balanced
100x20 where the buffer model has 204,280.

Its columns are far too many to pose (``n·p·J²/2``), but they are generated: with the
duals of the restricted master, the reduced profit of ``x[k, u, j, j']`` is
``c - μ_k - σ - send_u(k, j) - cpu_u(k, j')`` (``μ`` the totals, ``σ`` the delivered row,
``send`` the master's side at interval ``j``, ``cpu`` worker ``u``'s CPU row at ``j'``), so
for each ``(k, u, j')`` the best ``j`` is a prefix minimum of ``send`` over the window
(``np.minimum.accumulate``, O(n·p·J)). No column with a positive reduced profit left is the
optimality certificate of the full path LP. The window relaxation of decision 150 (buffers
free inside a window) is the same master with ``j`` free in the whole window (a window
minimum instead of a prefix minimum).

One master serves every epoch order of a search (:meth:`PathMaster.set_order`): its
capacity rows are interval *positions*, and a path's coefficients do not depend on the
order; only the stretch column, the rows' bounds and which paths lie inside the windows
change, so the columns and HiGHS' basis carry over.

Memory bounds (§3.1.3) couple the buffers of all applications at each epoch; they break
this pricing, and :class:`~lpsched.bags.maxstretch.search.StretchSearch` keeps the buffer model
there.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import highspy
import numpy as np

from lpsched.bags.maxstretch.problem import StretchProblem
from lpsched.core import tolerances
from lpsched.errors import LpschedError, SolverError
from lpsched.solvers import console
from lpsched.solvers.highs import DEFAULT_OPTIONS, model_status, set_time_limit
from lpsched.solvers.solution import Status

#: A column prices out when its reduced profit per task exceeds this: ten times HiGHS'
#: dual feasibility tolerance, so a column HiGHS holds at its bound never prices out again
#: (measured: at most 1.6e-11 left on present columns). It is absolute per task: in the
#: stretch-interval LP a gap of up to this times the tasks can remain in ``S``, which
#: :func:`~lpsched.bags.maxstretch.conditioning.condition`'s switch to per-application
#: units keeps far below the tolerances (decision 213).
PRICE_TOLERANCE = 10 * tolerances.LP_OPTIMALITY
#: HiGHS ``simplex_strategy`` values.
_DUAL, _PRIMAL = 1, 4
#: HiGHS ``simplex_strategy`` of the first solve after the epoch order changed in fewer
#: than :data:`FAR_REORDER` positions (a short move along the stretch axis).
REORDER_STRATEGY = _DUAL
#: Epoch positions changed by a reorder from which its first solve is primal simplex
#: instead of :data:`REORDER_STRATEGY` (``None``: never). A far jump (the first tangent
#: step from the single-resource bound crosses ~30 critical values) leaves the dual simplex
#: far from optimal, and its iterations on the ~100k-column master cost more than primal
#: ones: balanced 100x20 median 13.6 -> 12.7 s, worst 29.9 -> 18.9 s (decision 223).
FAR_REORDER: int | None = 20
#: Primal simplex first when a deliver question asks a larger stretch than the last one
#: (every capacity row grows), whatever :data:`REORDER_STRATEGY` says for a near reorder.
#: The kept basis then stays dual feasible but is usually primal infeasible, so dual simplex
#: is the textbook choice; measured, it walked much longer: one such solve took 20.7k dual
#: iterations and 6.7 s on balanced 100x20 seed 4, where the whole search now takes 5 s
#: (decision 227).
GROW_PRIMAL = True
#: How the master's first solve (no basis yet) runs: ``"ipm"``, HiGHS' interior point
#: method with crossover to a basis (then simplex from that basis), or ``"simplex"``
#: (primal simplex from the slack basis). Measured on balanced 100x20 (decision 402): the first
#: master (4,280 rows x 27,101 columns, seed 0) takes 9,451 primal iterations and 1.41 s,
#: 60 IPM iterations + 896 crossover ones and 0.89 s with presolve (1.0 s without; seed 2:
#: 1.54 s against 0.66 s). Presolve is on for that solve only. The default stays
#: ``"simplex"`` (decision 402): the interior point lands on another optimal vertex, so the
#: plan, and the realised schedule of ``lpsched schedule``, differ from before (6x4 seed 3:
#: max-stretch 4.891 against 4.984) and move under a shift of the release dates. A caller
#: chooses per search with ``max_stretch(..., first_solve=)`` (``PathMaster(cold_solver=)``,
#: decision 452); this is what ``None`` means there.
COLD_SOLVER = "simplex"
#: The values of :data:`COLD_SOLVER` and of ``first_solve`` (``max_stretch(...,
#: first_solve=)``, ``lpsched solve --first-solve``; decision 452).
COLD_SOLVERS = ("simplex", "ipm")


def check_cold_solver(first_solve: str | None) -> str:
    """The path master's first-solve method (the first feasibility LP of seed 003 §3.4's
    search, no basis yet): ``first_solve``, or :data:`COLD_SOLVER` when ``None``; an
    :class:`~lpsched.errors.LpschedError` naming both choices otherwise.

    Parameters
    ----------
    first_solve : str or None
        ``"simplex"`` (primal simplex from the slack basis: the answers of before),
        ``"ipm"`` (HiGHS' interior point method with crossover; the same optimum, reached
        faster, but possibly another optimal plan: decisions 402, 452) or ``None``.

    Returns
    -------
    str
        ``"simplex"`` or ``"ipm"``.

    Examples
    --------
    >>> check_cold_solver(None), check_cold_solver("ipm")
    ('simplex', 'ipm')
    """
    chosen = COLD_SOLVER if first_solve is None else first_solve
    if chosen not in COLD_SOLVERS:
        raise LpschedError(f"first_solve {first_solve!r}: choose 'simplex' (the default: the "
                           "same plan as before) or 'ipm' (interior point first: the same "
                           "optimum, faster on large instances, possibly another optimal "
                           "plan)")
    return chosen
#: Feasibility questions without held tasks maximise the fraction ``λ`` of *every*
#: application's tasks delivered instead of the tasks delivered (decision 229): the same
#: verdict (``λ = 1`` iff everything is delivered), but the deficit ``(1 - λ)·total`` and
#: its tangent follow the bottleneck that sets the optimum, where the most tasks delivered
#: sacrifices the applications cheapest to drop, so Newton's steps were short. Measured in
#: exploration runs (decision 229), with the other changes of that decision: balanced
#: 100x20 (15 seeds) median 3.42 -> 2.21 s; 20x10 median 0.042 -> 0.034 s.
FRACTION_CHECKS = True
#: Largest violation of a row or column bound accepted in a master solution (as the buffer
#: model's searches accept); a warm answer above it is solved again from scratch, once. A
#: row's violation counts relative to the size of its terms, ``max(1, Σ_j |a_ij·x_j|)``:
#: the fraction question's task rows hold ``r_k·λ`` (up to a few hundred tasks), where
#: HiGHS' own tolerances (1e-7 on the scaled LP) let 8.9e-6 tasks through, cold as well,
#: on balanced 100x40 (decision 229).
RESIDUAL_LIMIT = 1e-6
#: Pairs (application, worker) that enter the master per pricing round when their best path
#: prices out, each with all its same-interval paths (decision 227): an optimal plan uses
#: about two workers per application (195 of 2,000 pairs on balanced 100x20 seed 0, 98.6 %
#: of its paths same-interval), so whole pairs enter and only a few at a time. At least
#: ``n·p / 100`` enter, so that every pair can enter within 100 rounds.
NEW_PAIRS_PER_ROUND = 20
#: Largest number of column-generation rounds of one question (each adds at least one
#: column; reached only on numerical trouble).
MAX_ROUNDS = 500


def path_coefficients(problem: StretchProblem) -> tuple[np.ndarray | None, np.ndarray | None,
                                                        np.ndarray]:
    """Per-task use of each resource by an (application, worker) pair, in normalised time.

    Three ``(n, p)`` arrays, ``(master, link, cpu)``: ``master`` is the one-port row's send
    time (one-port) or the master's share of a bounded multiport (``None`` when the master's
    bandwidth is unbounded); ``link`` the worker's link (multiport only, else ``None``);
    ``cpu`` the computation.

    Parameters
    ----------
    problem : StretchProblem
        The problem (seed 003 §2's platform: per-task sizes, bandwidths, speeds).

    Returns
    -------
    tuple of (numpy.ndarray or None, numpy.ndarray or None, numpy.ndarray)
        ``(master, link, cpu)``, each ``(n, p)`` or ``None``.

    Examples
    --------
    >>> from lpsched.bags import random_bags
    >>> pr = StretchProblem.offline(random_bags(3, 2, seed=0))
    >>> master, link, cpu = path_coefficients(pr)
    >>> master.shape, link is None, cpu.shape
    ((3, 2), True, (3, 2))
    """
    pr = problem
    master: np.ndarray | None = None
    link: np.ndarray | None = None
    if pr.port == "one-port":
        master = pr.comm / pr.scale
    else:
        link = pr.comm / pr.scale
        if np.isfinite(pr.master_bandwidth):
            master = np.broadcast_to((pr.size / pr.master_bandwidth / pr.scale)[:, None],
                                     (pr.n, pr.p)).copy()
    return master, link, pr.comp / pr.scale


@dataclass(frozen=True)
class PathAnswer:
    """What one question to a :class:`PathMaster` returned.

    ``objective`` of the last master solve; ``x`` its column values (the master's columns
    at that moment: later columns are appended, so ``x`` stays readable by
    :meth:`PathMaster.plan_arrays`); ``bound`` the Lagrangian bound of the *full* path
    LP's objective from the last duals (an upper bound when maximising the tasks
    delivered or ``λ·Σ r_k``, a lower bound of ``S`` in :meth:`PathMaster.min_stretch`; equal to
    ``objective`` once no column prices out, infinite when unknown); ``stretch_rc`` the
    reduced cost of the stretch column (its S-derivative, also the slope of ``bound`` in
    ``S``); ``max_gain`` the largest reduced profit left (``<= PRICE_TOLERANCE``:
    converged); ``rounds`` master solves, ``added`` columns generated, ``seconds`` and
    ``iterations`` inside HiGHS.
    """

    objective: float
    x: np.ndarray
    bound: float
    stretch_rc: float
    max_gain: float
    rounds: int
    added: int
    seconds: float
    iterations: int


class PathMaster:
    """The restricted path LP of one epoch order of ``problem``, live in HiGHS.

    Columns: the stretch ``S`` (column 0), one ``leftover`` per pair holding tasks (online),
    the fraction ``λ`` (:attr:`fraction_col`), then the generated paths, appended only (a
    path is never removed, so a solution vector taken earlier keeps its meaning).
    ``relaxed=True`` prices the window relaxation instead (send anywhere in the window).
    Questions: :meth:`deliver` (the feasibility LP at a stretch: maximise the fraction
    ``λ`` of every application delivered (:attr:`fraction`) or the tasks delivered, stop as
    soon as the deficit is within ``tolerance`` or is proved above it) and
    :meth:`min_stretch` (the stretch-interval LP (12)-(20), solved to the pricing
    certificate). ``cold_solver`` says how the first solve runs (no basis yet):
    ``"simplex"`` or ``"ipm"`` (:data:`COLD_SOLVER`, :func:`check_cold_solver`).

    Examples
    --------
    >>> from lpsched.bags import random_bags
    >>> pr = StretchProblem.offline(random_bags(3, 2, seed=0))
    >>> master = PathMaster(pr, pr.order_at(3.0))
    >>> ans = master.deliver(3.0, tolerance=1e-9, exact=True)
    >>> bool(ans.max_gain <= PRICE_TOLERANCE)  # the certificate: no path prices out
    True
    >>> abs(float(pr.remaining.sum() - ans.objective)) < 1e-9  # S = 3 is feasible
    True
    >>> master.size()["rows"] < 100
    True

    Notes
    -----
    The formulation is decision 213; the fraction question, decision 229; whole pairs
    entering per pricing round, decision 227.
    """

    def __init__(self, problem: StretchProblem, order: np.ndarray, relaxed: bool = False,
                 fraction: bool | None = None, cold_solver: str | None = None,
                 **highs_options: Any) -> None:
        if problem.memory is not None:
            raise LpschedError("the path formulation has no memory rows (they couple the "
                               "applications' buffers); use formulation='buffers'")
        #: how the first solve (no basis yet) runs: ``"simplex"`` or ``"ipm"``
        #: (``cold_solver``, default :data:`COLD_SOLVER`; :func:`check_cold_solver`)
        self.cold_solver = check_cold_solver(cold_solver)
        pr = self.problem = problem
        self.relaxed = relaxed
        n = pr.n
        self.n_epochs = int(np.asarray(order).size)
        self.n_intervals = self.n_epochs - 1
        self._lay_out_rows()
        H = self.held_k.size
        self._total = float(pr.remaining.sum()) or 1.0
        # fixed columns: stretch (bounds set by each question), one leftover per held pair,
        # the fraction λ (-remaining[k] on task row k; its cost is the total, so that the
        # objective, reduced costs and tolerances count tasks as in the deliver question;
        # fixed at 0 outside fraction questions)
        n_fixed = self.n_fixed = 2 + H
        self.fraction_col = 1 + H
        #: whether :meth:`deliver` asks for the fraction ``λ`` (``fraction``, default
        #: :data:`FRACTION_CHECKS`; offline problems only: held tasks are no fraction)
        self.fraction = (FRACTION_CHECKS if fraction is None else fraction) and H == 0
        starts = np.concatenate([[0], np.cumsum([self.cap_rows.size] + [2] * H + [n])]
                                ).astype(np.int32)
        idx = np.concatenate([self.cap_rows] + [np.array([n + h, self.delivered_row])
                                                for h in range(H)]
                             + [np.arange(n)]).astype(np.int32)
        vals = np.concatenate([np.zeros(self.cap_rows.size)]
                              + [np.array([1.0, -1.0])] * H
                              + [-pr.remaining]).astype(float)
        # generated columns: x (send j, compute j') or y (held, j = -1, compute j')
        self.col_k = np.zeros(0, int)
        self.col_u = np.zeros(0, int)
        self.col_j = np.zeros(0, int)
        self.col_jp = np.zeros(0, int)
        self._valid = np.zeros(0, bool)  # in the current order's windows
        self._keys = np.zeros(0, np.int64)  # sorted codes of the generated columns
        self._entries_rows: list[np.ndarray] = [idx.astype(int)]
        self._entries_cols: list[np.ndarray] = [np.repeat(np.arange(n_fixed), np.diff(starts))]
        self._entries_vals: list[np.ndarray] = [vals]
        self.sense = "max"
        self.cost_x = 1.0  # objective coefficient of the x columns (deliver mode)
        self._pass_model(starts, idx, vals, highs_options)
        self.solves = 0
        self.added = 0
        self.reorders = 0
        #: ``(n, p)``: the pairs whose same-interval paths were added (:meth:`seed`).
        self.pairs = np.zeros((n, pr.p), bool)
        self._fresh = True  # no basis yet
        self._reordered = False  # the order changed since the last solve
        self._far = False  # ... in at least FAR_REORDER positions
        self._stretch = np.inf  # the stretch of the last deliver question
        self._grew = False  # the deliver stretch grew since the last solve
        self.order = np.zeros(0, int)
        self.set_order(order)

    def _lay_out_rows(self) -> None:
        """The master's rows and their bounds; the stretch column's capacity rows."""
        pr = self.problem
        n, p, J = pr.n, pr.p, self.n_intervals
        # rows: tasks | held | port or master | link | cpu | delivered, one capacity row per
        # interval *position* (whatever the order: a path keeps its rows when it changes)
        held = np.argwhere(pr.buffered > 0)  # (H, 2) pairs (k, u) holding tasks
        self.held_k, self.held_u = held[:, 0], held[:, 1]
        H = held.shape[0]
        self.held_row0 = n
        r = n + H
        # (n, p) coefficients: the master row (None: no such row), links, CPUs
        self.port_coef, link_coef, self.comp_coef = path_coefficients(pr)
        self.comm_coef = pr.comm / pr.scale if link_coef is None else link_coef
        self.port_row0 = r
        if self.port_coef is not None:
            r += J
        self.link_row0 = r if pr.port != "one-port" else -1
        if pr.port != "one-port":
            r += J * p
        self.cpu_row0 = r
        r += J * p
        self.delivered_row = r
        self.num_rows = r + 1
        self.row_lower = np.full(self.num_rows, -np.inf)
        self.row_upper = np.full(self.num_rows, np.inf)
        self.row_upper[:n] = pr.remaining
        self.row_lower[n:n + H] = self.row_upper[n:n + H] = pr.buffered[self.held_k,
                                                                        self.held_u]
        # the stretch column's rows: every capacity row, coefficient -dα_j of its interval
        cap = [self.port_row0 + np.arange(J)] if self.port_coef is not None else []
        if self.link_row0 >= 0:
            cap.append(self.link_row0 + np.arange(J * p))
        cap.append(self.cpu_row0 + np.arange(J * p))
        self.cap_rows = np.concatenate(cap)
        # each capacity row's interval position
        self.cap_interval = np.concatenate(
            ([np.arange(J)] if self.port_coef is not None else [])
            + ([np.repeat(np.arange(J), p)] if self.link_row0 >= 0 else [])
            + [np.repeat(np.arange(J), p)])

    def _pass_model(self, starts: np.ndarray, idx: np.ndarray, vals: np.ndarray,
                    highs_options: dict[str, Any]) -> None:
        """A live HiGHS model with the fixed columns (stretch, one leftover per held pair,
        the fraction ``λ``)."""
        n_fixed = self.n_fixed
        self.highs = console.construct(highspy.Highs)
        self.logging = console.logging_enabled()
        options = {**DEFAULT_OPTIONS, "presolve": "off", **highs_options}
        # restored after the first solve's interior point method (COLD_SOLVER)
        self._presolve = str(options["presolve"])
        self._solver = str(options.get("solver", "choose"))
        if self.logging:
            options.update(output_flag=True, log_to_console=True)
        cost = np.full(n_fixed, -1.0)
        cost[0] = cost[self.fraction_col] = 0.0
        col_up = np.full(n_fixed, np.inf)
        col_lo = np.zeros(n_fixed)
        col_lo[0] = col_up[0] = 1.0
        col_up[self.fraction_col] = 0.0  # each question sets λ's bounds
        done: list[Any] = []

        def load() -> None:  # with the log on, HiGHS prints its banner here (1.13)
            for key, value in options.items():
                self.highs.setOptionValue(key, value)
            done.append(self.highs.passModel(
                n_fixed, self.num_rows, int(idx.size), int(highspy.MatrixFormat.kColwise),
                int(highspy.ObjSense.kMaximize), 0.0, cost, col_lo, col_up,
                np.ascontiguousarray(self.row_lower), np.ascontiguousarray(self.row_upper),
                starts, idx, vals, np.zeros(n_fixed, np.int32)))

        if self.logging:
            console.quietly(load)  # the log goes to the user's file or stderr, not stdout
        else:
            load()
        status = done[0]
        if status != highspy.HighsStatus.kOk:
            raise SolverError("HiGHS rejected the path master")

    def geometry(self, order: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(js, je, window)`` of an epoch order: each application's first interval and
        one past its last, and the ``(n, J)`` mask of the intervals inside its window.

        Parameters
        ----------
        order : numpy.ndarray
            An epoch order (:meth:`StretchProblem.order_at`).

        Returns
        -------
        tuple of numpy.ndarray
            ``js``, ``je`` (shape ``(n,)``) and ``window`` (boolean, ``(n, J)``).
        """
        pr = self.problem
        order = np.asarray(order)
        if order.size != self.n_epochs:
            raise LpschedError(f"an epoch order of {order.size} epochs for a path master of "
                               f"{self.n_epochs}")
        js, je = pr.window_positions(order)
        iv = np.arange(self.n_intervals)
        window = (iv[None, :] >= js[:, None]) & (iv[None, :] < je[:, None])
        return js, je, window

    def set_order(self, order: np.ndarray) -> None:
        """Make the master that of epoch order ``order``: the stretch column's
        coefficients ``-dα_j`` and the capacity rows' bounds ``dβ_j`` of each interval
        position, and the paths outside the new windows fixed to 0 (the others freed). The
        rows and every path's coefficients stay, so HiGHS keeps its basis.

        Parameters
        ----------
        order : numpy.ndarray
            The new epoch order (same epochs).
        """
        order = np.asarray(order)
        if np.array_equal(order, self.order):
            return
        pr = self.problem
        self.js, self.je, self.window = self.geometry(order)
        a, b = pr.epoch_alpha[order], pr.epoch_beta[order]
        da, db = np.diff(a)[self.cap_interval], np.diff(b)[self.cap_interval]
        old = self._entries_vals[0]
        ncap = self.cap_rows.size
        change = np.flatnonzero(old[:ncap] != -da)
        for t in change.tolist():
            self.highs.changeCoeff(int(self.cap_rows[t]), 0, float(-da[t]))
        old[change] = -da[change]
        bounds = self.row_upper[self.cap_rows]
        moved = np.flatnonzero(bounds != db)
        if moved.size:
            rows = self.cap_rows[moved]
            self.row_upper[rows] = db[moved]
            self.highs.changeRowsBounds(  # type: ignore[attr-defined]
                moved.size, rows.astype(np.int32), self.row_lower[rows], db[moved])
        if self.col_k.size:
            valid = self.valid(self.col_k, self.col_u, self.col_j, self.col_jp)
            flip = np.flatnonzero(valid != self._valid)
            if flip.size:
                self.highs.changeColsBounds(
                    flip.size, (flip + self.n_fixed).astype(np.int32), np.zeros(flip.size),
                    np.where(valid[flip], np.inf, 0.0))
            self._valid = valid
        if self.order.size:
            self.reorders += 1
            self._reordered = True
            moved_by = int((order != self.order).sum())
            self._far = self._far or (FAR_REORDER is not None and moved_by >= FAR_REORDER)
        self.order = order.copy()

    # -- sizes ------------------------------------------------------------------------------
    @property
    def num_cols(self) -> int:
        """Columns of the restricted master now (fixed ones included)."""
        return self.n_fixed + int(self.col_k.size)

    def size(self) -> dict[str, int]:
        """Columns, rows and nonzeros of the restricted master now.

        Returns
        -------
        dict of str to int
            ``columns``, ``rows`` and ``nonzeros``.
        """
        nnz = int(sum(a.size for a in self._entries_rows))
        return {"columns": self.num_cols, "rows": self.num_rows, "nonzeros": nnz}

    # -- columns -----------------------------------------------------------------------------
    def _codes(self, k: np.ndarray, u: np.ndarray, j: np.ndarray,
               jp: np.ndarray) -> np.ndarray:
        J, p = self.n_intervals, self.problem.p
        return (((k.astype(np.int64) * p + u) * (J + 1) + (j + 1)) * J + jp)

    def valid(self, k: np.ndarray, u: np.ndarray, j: np.ndarray,
              jp: np.ndarray) -> np.ndarray:
        """Which of these paths exist in this master's windows (``j = -1``: a held-task
        path, which needs ``B̂ > 0``).

        Parameters
        ----------
        k, u, j, jp : numpy.ndarray
            Application, worker, send interval (``-1``: held tasks) and compute interval of
            each path, equal shapes.

        Returns
        -------
        numpy.ndarray
            Boolean, one per path.
        """
        pr = self.problem
        js, je = self.js[k], self.je[k]
        ok = (jp >= js) & (jp < je) & (k >= 0) & (k < pr.n) & (u >= 0) & (u < pr.p)
        x = j >= 0
        ok &= np.where(x, (j >= js) & (j < je) & (self.relaxed | (j <= jp)), True)
        held = pr.buffered[np.clip(k, 0, pr.n - 1), np.clip(u, 0, pr.p - 1)] > 0
        return ok & np.where(x, True, held)

    def add_columns(self, k: np.ndarray, u: np.ndarray, j: np.ndarray,
                    jp: np.ndarray) -> int:
        """Append the paths ``(k, u, j, j')`` not yet in the master (``j = -1``: from the
        held tasks ``B̂``); returns how many were added. They enter at 0, so the last basis
        stays primal feasible.

        Parameters
        ----------
        k, u, j, jp : numpy.ndarray
            Application, worker, send interval (``-1``: held tasks) and compute interval of
            each path (paths outside the windows or already present are skipped).

        Returns
        -------
        int
            Columns added.
        """
        k, u, j, jp = (np.asarray(a, int).ravel() for a in (k, u, j, jp))
        keep = self.valid(k, u, j, jp)
        k, u, j, jp = k[keep], u[keep], j[keep], jp[keep]
        codes = self._codes(k, u, j, jp)
        codes, first = np.unique(codes, return_index=True)
        k, u, j, jp = k[first], u[first], j[first], jp[first]
        new = ~np.isin(codes, self._keys, assume_unique=True)
        if not new.any():
            return 0
        k, u, j, jp, codes = k[new], u[new], j[new], jp[new], codes[new]
        c = k.size
        base = self.num_cols
        x = j >= 0
        rows: list[np.ndarray] = []
        vals: list[np.ndarray] = []
        cols: list[np.ndarray] = []
        cidx = np.arange(c)

        def put(sel: np.ndarray, r: np.ndarray, v: np.ndarray) -> None:
            rows.append(r)
            vals.append(np.asarray(v, float))
            cols.append(cidx[sel])

        jx = j[x]
        put(x, k[x], np.ones(int(x.sum())))  # totals (3)/(12)
        hx = ~x
        if hx.any():
            hrow = self._held_row(k[hx], u[hx])
            put(hx, hrow, np.ones(hrow.size))
        if self.port_coef is not None:
            put(x, self.port_row0 + jx, self.port_coef[k[x], u[x]])
        if self.link_row0 >= 0:
            put(x, self.link_row0 + jx * self.problem.p + u[x],
                self.comm_coef[k[x], u[x]])
        put(np.ones(c, bool), self.cpu_row0 + jp * self.problem.p + u,
            self.comp_coef[k, u])
        put(x, np.full(int(x.sum()), self.delivered_row), np.ones(int(x.sum())))
        r_all, v_all, c_all = np.concatenate(rows), np.concatenate(vals), np.concatenate(cols)
        order = np.argsort(c_all, kind="stable")
        r_all, v_all, c_all = r_all[order], v_all[order], c_all[order]
        starts = np.searchsorted(c_all, np.arange(c)).astype(np.int32)
        cost = np.where(x, self.cost_x, 0.0)
        status = self.highs.addCols(c, cost, np.zeros(c), np.full(c, np.inf), r_all.size,
                                    starts, r_all.astype(np.int32), v_all)
        if status == highspy.HighsStatus.kError:
            raise SolverError("HiGHS refused new columns of the path master")
        self._entries_rows.append(r_all)
        self._entries_cols.append(c_all + base)
        self._entries_vals.append(v_all)
        self.col_k = np.concatenate([self.col_k, k])
        self.col_u = np.concatenate([self.col_u, u])
        self.col_j = np.concatenate([self.col_j, j])
        self.col_jp = np.concatenate([self.col_jp, jp])
        self._valid = np.concatenate([self._valid, np.ones(c, bool)])
        self._keys = np.sort(np.concatenate([self._keys, codes]))
        self.added += c
        return c

    def _held_row(self, k: np.ndarray, u: np.ndarray) -> np.ndarray:
        code = self.held_k * self.problem.p + self.held_u
        return self.held_row0 + np.searchsorted(code, k * self.problem.p + u)

    def columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The generated paths as arrays ``(k, u, j, j')`` (``j = -1``: held tasks).

        Returns
        -------
        tuple of numpy.ndarray
            ``(k, u, j, j')``, one entry per generated column.
        """
        return self.col_k, self.col_u, self.col_j, self.col_jp

    def seed(self, pairs: np.ndarray | None = None) -> int:
        """Add the initial columns of a master built from nothing.

        For each (application, worker) pair of the ``(n, p)`` mask ``pairs`` (default: all)
        and each interval of the window, the path sent and computed in that interval (pairs
        seeded before are skipped: :attr:`pairs`); for each held pair, its tasks computed in
        the window's first interval.

        Parameters
        ----------
        pairs : numpy.ndarray, optional
            Boolean ``(n, p)`` mask of the (application, worker) pairs seeded (default: all).

        Returns
        -------
        int
            Columns added.
        """
        pr = self.problem
        mask = np.ones((pr.n, pr.p), bool) if pairs is None else np.asarray(pairs, bool)
        if mask.shape != (pr.n, pr.p):
            raise LpschedError(f"a pair mask of shape {mask.shape} for a path master of "
                               f"{pr.n} applications x {pr.p} workers")
        mask = mask & ~self.pairs  # a pair's same-interval paths are added once
        self.pairs |= mask
        k, u = np.nonzero(mask)
        reps = self.window[k].sum(axis=1)
        kk, uu = np.repeat(k, reps), np.repeat(u, reps)
        jj = np.nonzero(self.window[k])[1]
        added = self.add_columns(kk, uu, jj, jj)
        if self.held_k.size:
            added += self.add_columns(self.held_k, self.held_u, np.full(self.held_k.size, -1),
                                      self.js[self.held_k])
        return added

    # -- pricing -----------------------------------------------------------------------------
    def price(self, row_dual: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                   np.ndarray, np.ndarray]:
        """Reduced profits of every path under the master's duals ``row_dual`` (HiGHS'
        convention: reduced cost ``c - Aᵀy``; a profit is that cost in the objective's
        direction).

        Parameters
        ----------
        row_dual : numpy.ndarray
            Duals of the master's rows (HiGHS' sign convention), shape ``(num_rows,)``.

        Returns
        -------
        tuple of numpy.ndarray
            ``(gain, best_j, held_gain, app_gain, held_best)``: ``gain[k, u, j']`` the best
            reduced profit of a path of ``(k, u)`` computed in ``j'`` (``-inf`` outside the
            window), sent in ``best_j[k, u, j']``; ``held_gain[h, j']`` the same for the
            held pairs; ``app_gain[k]`` and ``held_best[h]`` the maxima per application and
            per held pair (the Lagrangian bound's ingredients).
        """
        pr = self.problem
        n, p, J = pr.n, pr.p, self.n_intervals
        m = J
        sgn = 1.0 if self.sense == "max" else -1.0
        y = sgn * np.asarray(row_dual, float)
        base = sgn * self.cost_x - y[:n] - y[self.delivered_row]  # (n,)
        send = np.zeros((n, p, m))
        if self.port_coef is not None:
            send += self.port_coef[:, :, None] * y[self.port_row0:self.port_row0 + m]
        if self.link_row0 >= 0:
            link = y[self.link_row0:self.link_row0 + m * p].reshape(m, p).T  # (p, m)
            send += self.comm_coef[:, :, None] * link[None, :, :]
        cpu_y = y[self.cpu_row0:self.cpu_row0 + m * p].reshape(m, p).T  # (p, m)
        cpu = self.comp_coef[:, :, None] * cpu_y[None, :, :]  # (n, p, m)
        win = self.window[:, None, :]
        send_j = np.where(win, send, np.inf)  # (n, p, J)
        cpu_j = np.where(win, cpu, np.inf)
        iv = np.arange(J)
        if self.relaxed:
            best = np.argmin(send_j, axis=2)
            low = np.take_along_axis(send_j, best[:, :, None], axis=2)
            best_j = np.broadcast_to(best[:, :, None], (n, p, J))
            low = np.broadcast_to(low, (n, p, J))
        else:
            low = np.minimum.accumulate(send_j, axis=2)
            new = np.ones((n, p, J), bool)
            new[:, :, 1:] = send_j[:, :, 1:] < low[:, :, :-1]
            best_j = np.maximum.accumulate(np.where(new, iv, 0), axis=2)
        gain = np.where(win, base[:, None, None] - low - cpu_j, -np.inf)
        app_gain = gain.reshape(n, -1).max(axis=1) if J else np.full(n, -np.inf)
        H = self.held_k.size
        if H:
            yh = y[self.held_row0:self.held_row0 + H]
            held_gain = np.where(self.window[self.held_k], -yh[:, None]
                                 - cpu_j[self.held_k, self.held_u, :], -np.inf)
            held_best = held_gain.max(axis=1)
        else:
            held_gain = np.zeros((0, J))
            held_best = np.zeros(0)
        return gain, best_j, held_gain, app_gain, held_best

    def _select(self, gain: np.ndarray, best_j: np.ndarray, held_gain: np.ndarray,
                per_pair: int) -> int:
        """Add paths that price out, pair by pair (decision 227): of the pairs not yet in
        the master whose best path prices out, the :data:`NEW_PAIRS_PER_ROUND` best (at
        least ``n·p / 100``) enter with all their same-interval paths (:meth:`seed`);
        every pair already in has its ``per_pair`` best paths added (any ``j <= j'``);
        every held pair its best. Returns how many columns were added."""
        n, p, J = gain.shape
        tol = PRICE_TOLERANCE
        added = 0
        pair_gain = gain.max(axis=2) if J else np.full((n, p), -np.inf)
        fresh = (pair_gain > tol) & ~self.pairs
        if fresh.any():
            kk, uu = np.nonzero(fresh)
            many = max(NEW_PAIRS_PER_ROUND, -(-n * p // 100))
            take = np.argsort(-pair_gain[kk, uu], kind="stable")[:many]
            mask = np.zeros((n, p), bool)
            mask[kk[take], uu[take]] = True
            added += self.seed(mask)
        flat = np.where(self.pairs[:, :, None], gain, -np.inf).reshape(n * p, J)
        t = min(per_pair, J)
        if t >= J:
            top = np.broadcast_to(np.arange(J), (n * p, J))
        else:
            top = np.argpartition(-flat, t - 1, axis=1)[:, :t]
        g = np.take_along_axis(flat, top, axis=1)
        pair, col = np.nonzero(g > tol)
        k, u, jp = pair // p, pair % p, top[pair, col]
        added += self.add_columns(k, u, best_j[k, u, jp], jp)
        if held_gain.size:
            h = np.flatnonzero(held_gain.max(axis=1) > tol)
            if h.size:
                jh = np.argmax(held_gain[h], axis=1)
                added += self.add_columns(self.held_k[h], self.held_u[h],
                                          np.full(h.size, -1), jh)
        return added

    # -- solving -----------------------------------------------------------------------------
    def _set_mode(self, mode: str, low: float, high: float, need: float) -> None:
        """Objective and bounds of a question: ``mode`` ``"deliver"`` (maximise the tasks
        delivered), ``"fraction"`` (maximise ``λ·total``: task rows ``Σ x_k - r_k·λ >= 0``,
        at most ``Σ r_k`` delivered in all, so ``λ = 1`` delivers exactly ``r``) or
        ``"min"`` (minimise ``S`` in ``[low, high]`` with at least ``need`` delivered)."""
        h = self.highs
        H = self.held_k.size
        n_gen = int(self.col_k.size)
        n = self.problem.n
        fraction = mode == "fraction"
        if fraction:
            self.sense, self.cost_x = "max", 0.0
            cost = np.zeros(self.n_fixed + n_gen)
            cost[self.fraction_col] = self._total
            left_up = np.inf
            drow = (-np.inf, self._total)
        elif mode == "deliver":
            self.sense, self.cost_x = "max", 1.0
            cost = np.zeros(self.n_fixed + n_gen)
            cost[1:1 + H] = -1.0  # leftovers of the held tasks
            cost[self.n_fixed:] = np.where(self.col_j >= 0, 1.0, 0.0)
            left_up = np.inf
            drow = (-np.inf, np.inf)
        elif mode == "min":
            self.sense, self.cost_x = "min", 0.0
            cost = np.zeros(self.n_fixed + n_gen)
            cost[0] = 1.0
            left_up = 0.0
            drow = (need, np.inf)
        else:
            raise LpschedError(f"unknown path master question {mode!r}")
        if cost.size != self.num_cols:  # every column's cost, in the master's own order
            raise LpschedError(f"path master: {cost.size} costs for {self.num_cols} columns")
        h.changeObjectiveSense(highspy.ObjSense.kMaximize if self.sense == "max"
                               else highspy.ObjSense.kMinimize)
        cols = np.arange(cost.size, dtype=np.int32)
        h.changeColsCost(cost.size, cols, cost)
        fixed = np.arange(self.n_fixed, dtype=np.int32)
        lo = np.zeros(self.n_fixed)
        up = np.full(self.n_fixed, left_up)
        lo[0], up[0] = low, high
        up[self.fraction_col] = 1.0 if fraction else 0.0
        h.changeColsBounds(self.n_fixed, fixed, lo, up)
        tlo = np.zeros(n) if fraction else np.full(n, -np.inf)
        tup = np.full(n, np.inf) if fraction else self.problem.remaining.astype(float)
        self.row_lower[:n], self.row_upper[:n] = tlo, tup
        h.changeRowsBounds(  # type: ignore[attr-defined]
            n, np.arange(n, dtype=np.int32), tlo, tup)
        self.row_lower[self.delivered_row], self.row_upper[self.delivered_row] = drow
        h.changeRowsBounds(  # type: ignore[attr-defined]
            1, np.array([self.delivered_row], np.int32), np.array([drow[0]]),
            np.array([drow[1]]))

    def _solve(self, time_limit: float | None, strategy: int) -> tuple[float, float, int]:
        h = self.highs
        ipm = self._fresh and self.cold_solver == "ipm"  # no basis yet: see COLD_SOLVER
        if ipm:  # presolve helps the interior point method (not the warm simplex)
            h.setOptionValue("solver", "ipm")
            h.setOptionValue("presolve", "on")
        h.setOptionValue("simplex_strategy", strategy)
        set_time_limit(h, time_limit)
        t0 = time.perf_counter()
        try:
            if self.logging:
                console.quietly(h.run)
            else:
                h.run()
        finally:
            if ipm:
                h.setOptionValue("solver", self._solver)
                h.setOptionValue("presolve", self._presolve)
        seconds = time.perf_counter() - t0
        self.solves += 1
        status = model_status(h)
        info = h.getInfo()
        iterations = int(info.simplex_iteration_count)
        if ipm:
            iterations += int(info.ipm_iteration_count) + int(info.crossover_iteration_count)
            if status is not Status.OPTIMAL and status is not Status.TIME_LIMIT:
                # the interior point method is a shortcut, never a new way to fail: the
                # slack-basis primal simplex of before answers instead
                h.clearSolver()
                self._fresh = False
                obj, more, it = self._solve(time_limit, strategy)
                return obj, seconds + more, iterations + it
        if status is Status.TIME_LIMIT:
            raise SolverError("path master: the time limit ran out (status time_limit); "
                              "allow more time (--time-limit or time_limit=)", status=status)
        if status is not Status.OPTIMAL:
            raise SolverError(f"path master: HiGHS returned status {status.value} "
                              f"({h.modelStatusToString(h.getModelStatus())})",
                              status=status)
        return float(info.objective_function_value), seconds, iterations

    def first_strategy(self) -> int:
        """HiGHS ``simplex_strategy`` of the next question's first solve.

        Primal simplex with no basis yet, after a far reorder (:data:`FAR_REORDER`) or when
        the deliver stretch grew (:data:`GROW_PRIMAL`); :data:`REORDER_STRATEGY` after a near
        reorder; dual simplex otherwise (only bounds or costs changed since the last optimal
        basis).

        Returns
        -------
        int
            ``1`` (dual simplex) or ``4`` (primal simplex).
        """
        if self._fresh or self._far or (GROW_PRIMAL and self._grew):
            return _PRIMAL
        return REORDER_STRATEGY if self._reordered else _DUAL

    def solve_cold(self, time_limit: float | None = None) -> tuple[float, float, int]:
        """Forget the basis and solve the current master from scratch (primal simplex);
        returns ``(objective, seconds, iterations)``.

        Parameters
        ----------
        time_limit : float, optional
            Seconds allowed (``None``: none).

        Returns
        -------
        tuple of (float, float, int)
            ``(objective, seconds, iterations)``.
        """
        self.highs.clearSolver()
        return self._solve(time_limit, _PRIMAL)

    def solution(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(x, row_dual, col_dual)`` of the last solve.

        Returns
        -------
        tuple of numpy.ndarray
            Primal values per column, duals per row and reduced costs per column.
        """
        sol = self.highs.getSolution()
        return (np.asarray(sol.col_value, float), np.asarray(sol.row_dual, float),
                np.asarray(sol.col_dual, float))

    def residual(self, x: np.ndarray) -> float:
        """Largest violation of a row or column bound at ``x``, recomputed from the
        master's own matrix (not from HiGHS' row activities); a row's relative to
        ``max(1, Σ_j |a_ij·x_j|)`` (:data:`RESIDUAL_LIMIT`), a column's absolute.

        Parameters
        ----------
        x : numpy.ndarray
            A primal point of the master, shape ``(num_cols,)``.

        Returns
        -------
        float
            The largest violation (0 for a feasible point).
        """
        rows = np.concatenate(self._entries_rows)
        cols = np.concatenate(self._entries_cols)
        vals = np.concatenate(self._entries_vals)
        terms = vals * x[cols]
        act = np.bincount(rows, weights=terms, minlength=self.num_rows)
        size = np.bincount(rows, weights=np.abs(terms), minlength=self.num_rows)
        lo, up = self.row_lower, self.row_upper
        viol = np.maximum(np.maximum(lo - act, act - up), 0.0) / np.maximum(size, 1.0)
        gen = x[self.n_fixed:]
        neg = max(0.0, -float(gen.min())) if gen.size else 0.0
        return float(max(viol.max() if viol.size else 0.0, neg))

    def _generate(self, time_left: Callable[[], float | None],
                  stop: Callable[[float, float], bool], per_pair: int) -> PathAnswer:
        """Column generation: solve, price, add, until ``stop(objective, bound)`` or no
        column prices out."""
        rounds = added = iters = 0
        seconds = 0.0
        strategy = self.first_strategy()
        self._reordered = self._far = self._grew = False
        pr = self.problem
        weights = pr.remaining
        held = pr.buffered[self.held_k, self.held_u]
        while True:
            obj, sec, it = self._solve(time_left(), strategy)
            self._fresh = False
            rounds += 1
            seconds += sec
            iters += it
            x, row_dual, col_dual = self.solution()
            res = self.residual(x)
            if res > RESIDUAL_LIMIT:  # a warm basis drifted: once more from scratch
                obj, sec, it = self.solve_cold(time_left())
                rounds += 1
                seconds += sec
                iters += it
                x, row_dual, col_dual = self.solution()
                res = self.residual(x)
                if res > RESIDUAL_LIMIT:
                    raise SolverError(f"path master: HiGHS answer violates a constraint by "
                                      f"{res:.3g} (relative to the row's terms; solved cold "
                                      "as well)")
            gain, best_j, held_gain, app_gain, held_best = self.price(row_dual)
            max_gain = float(max(app_gain.max(initial=-np.inf),
                                 held_best.max(initial=-np.inf)))
            slack = float((weights * np.maximum(app_gain, 0.0)).sum()
                          + (held * np.maximum(held_best, 0.0)).sum())
            sgn = 1.0 if self.sense == "max" else -1.0
            bound = obj + sgn * slack if np.isfinite(slack) else sgn * np.inf
            stretch_rc = float(col_dual[0])
            if max_gain <= PRICE_TOLERANCE or stop(obj, bound) or rounds >= MAX_ROUNDS:
                if rounds >= MAX_ROUNDS and max_gain > PRICE_TOLERANCE:
                    raise SolverError(f"path column generation did not converge in "
                                      f"{MAX_ROUNDS} rounds (largest reduced profit "
                                      f"{max_gain:.3g})")
                return PathAnswer(obj, x, bound, stretch_rc, max_gain, rounds, added,
                                  seconds, iters)
            got = self._select(gain, best_j, held_gain, per_pair)
            if got == 0:  # every pricing-out column is already there: numerically stuck
                raise SolverError(f"path column generation stalled (largest reduced profit "
                                  f"{max_gain:.3g} on columns already in the master)")
            added += got
            strategy = _PRIMAL

    def deliver(self, stretch: float, tolerance: float,
                time_left: Callable[[], float | None] | None = None,
                stop_when_feasible: bool = True, per_pair: int = 2,
                exact: bool = False, gap: float | None = None) -> PathAnswer:
        """The feasibility LP at ``stretch``, by column generation.

        With :attr:`fraction` (offline) it maximises the fraction ``λ`` of every
        application's tasks delivered, counted in tasks: the objective is ``λ·total``, so
        ``objective``, ``bound``, ``stretch_rc`` and every tolerance count tasks as in the
        other question (posed in ``λ`` itself, the pricing and optimality tolerances were
        ``total`` times looser in tasks, and a check 2e-6 above the optimum of balanced
        100x20 seed 0 came out infeasible). The deficit ``remaining.sum() - objective`` is
        then the uniform shortfall ``(1 - λ)·total``: at least the fewest tasks left
        undelivered, and 0 exactly when they are. Otherwise it maximises the tasks
        delivered, leftovers penalised.

        The Lagrangian bound holds for ``λ`` too: some optimum sends at most ``r_k`` tasks
        of application ``k`` (trimming a surplus only loosens the packing rows), so
        ``total·λ* <= total·λ_master + Σ_k r_k·max(0, best reduced profit of k)``. With
        the duals fixed this bound is affine in ``S`` within an epoch order (the paths'
        profits do not depend on ``S``, only the stretch column does, and its reduced
        cost is the slope), so the tangent of a proof taken before convergence, or after
        waiting for ``gap``, still bounds the optimum at every ``S`` of the interval; and
        ``1 - λ(S)`` itself is convex there (an LP optimum whose right-hand sides are
        affine in ``S``).

        Stops when the deficit ``remaining.sum() - objective`` is within ``tolerance``
        (``stop_when_feasible``: the master's point is a plan, no certificate needed), when
        the Lagrangian bound proves the deficit above ``tolerance``, or when no column prices
        out (the exact optimum); ``exact=True`` only at the last. With a ``gap`` an
        infeasible verdict waits until the bound's deficit is within ``gap`` (relative) of
        the master's, so that the deficit and slope reported are nearly the LP's own
        (``None``: the first proof stops).

        Parameters
        ----------
        stretch : float
            The stretch asked (seed 003 §3.4: is (K)/(K1) nonempty at ``S``?).
        tolerance : float
            Tasks short that still count as delivered.
        time_left : callable, optional
            Seconds left of the search's budget (``None``: unlimited).
        stop_when_feasible : bool
            Stop as soon as the master's point delivers within ``tolerance`` (default).
        per_pair : int
            Paths added per priced pair and round.
        exact : bool
            Solve until no column prices out (the LP's own optimum).
        gap : float, optional
            Relative gap an infeasible verdict waits for (above).

        Returns
        -------
        PathAnswer
            The master's objective (tasks), its point ``x``, the Lagrangian bound, the stretch
            column's reduced cost (the slope), the largest reduced profit left, and the
            rounds, columns added, seconds and iterations.
        """
        self._set_mode("fraction" if self.fraction else "deliver", stretch, stretch, 0.0)
        self._grew = stretch > self._stretch
        self._stretch = stretch
        total = float(self.problem.remaining.sum())
        tl: Callable[[], float | None] = time_left or (lambda: None)

        def stop(obj: float, bound: float) -> bool:
            proven = total - bound > tolerance and (
                gap is None or bound - obj <= gap * (total - bound))
            return not exact and ((stop_when_feasible and total - obj <= tolerance)
                                  or proven)

        return self._generate(tl, stop, per_pair)

    def min_stretch(self, low: float, high: float, need: float,
                    time_left: Callable[[], float | None] | None = None,
                    per_pair: int = 2) -> PathAnswer:
        """The stretch-interval LP (12)–(20) on ``[low, high]``: minimise ``S`` with at least
        ``need`` tasks sent (leftovers 0), solved until no column prices out. The master must
        already hold a plan that delivers ``need`` at ``high`` (e.g. after :meth:`deliver` at
        ``high``).

        Parameters
        ----------
        low, high : float
            The interval of ``S``.
        need : float
            Tasks to deliver (the total less the tolerance).
        time_left : callable, optional
            Seconds left of the search's budget.
        per_pair : int
            Paths added per priced pair and round.

        Returns
        -------
        PathAnswer
            The master's objective (tasks), its point ``x``, the Lagrangian bound, the stretch
            column's reduced cost (the slope), the largest reduced profit left, and the
            rounds, columns added, seconds and iterations.
        """
        self._set_mode("min", low, high, need)
        tl: Callable[[], float | None] = time_left or (lambda: None)
        return self._generate(tl, lambda obj, bound: False, per_pair)

    # -- reading a solution ------------------------------------------------------------------
    def plan_arrays(self, x: np.ndarray, order: np.ndarray | None = None,
                    ) -> dict[str, np.ndarray]:
        """Dense ``comm``/``comp`` ``(n, p, J)`` and ``buffers`` ``(n, p, E)`` from a
        solution ``x`` of this master taken in epoch order ``order`` (default: the current
        one; ``x`` may predate later columns), the arrays
        :meth:`lpsched.bags.maxstretch.buffer_model.StretchModel.plan_arrays` returns.

        Parameters
        ----------
        x : numpy.ndarray
            A primal solution of this master.
        order : numpy.ndarray, optional
            The epoch order it is read in (default: the current one).

        Returns
        -------
        dict of str to numpy.ndarray
            ``comm``, ``comp`` and ``buffers`` (seed 003 §3.3's amounts).
        """
        js, _, window = (self.js, None, self.window) if order is None else self.geometry(order)
        if self.relaxed:
            raise LpschedError("a relaxed path master has no plan")
        pr = self.problem
        n, p, J, E = pr.n, pr.p, self.n_intervals, self.n_epochs
        c = x.size - self.n_fixed
        v = np.clip(x[self.n_fixed:], 0.0, None)
        k, u, j, jp = self.col_k[:c], self.col_u[:c], self.col_j[:c], self.col_jp[:c]
        comm = np.zeros((n, p, J))
        comp = np.zeros((n, p, J))
        sx = j >= 0
        np.add.at(comm, (k[sx], u[sx], j[sx]), v[sx])
        np.add.at(comp, (k, u, jp), v)
        net = np.cumsum(comm - comp, axis=2)  # (n, p, J), B̂ added below
        buffers = np.zeros((n, p, E))
        inside = window[:, None, :]
        buffers[:, :, 1:] = np.where(inside, np.clip(pr.buffered[:, :, None] + net, 0.0, None),
                                     0.0)
        first = np.arange(n)
        buffers[first, :, js] = pr.buffered
        return {"comm": comm, "comp": comp, "buffers": buffers}


class PathView:
    """The shared :class:`PathMaster` seen in one epoch order.

    What :class:`~lpsched.bags.maxstretch.search.StretchSearch` keeps per model key under the
    path formulation: ``problem``, ``order``, :meth:`plan_arrays` and :meth:`size`, as a
    :class:`~lpsched.bags.maxstretch.buffer_model.StretchModel` offers them.

    Parameters
    ----------
    master : PathMaster
        The search's path master.
    order : numpy.ndarray
        The epoch order this view reads plans in.
    """

    def __init__(self, master: PathMaster, order: np.ndarray) -> None:
        self.master = master
        self.problem = master.problem
        self.order = np.asarray(order).copy()

    def plan_arrays(self, x: np.ndarray) -> dict[str, np.ndarray]:
        """The plan of master solution ``x`` taken in this view's order.

        Parameters
        ----------
        x : numpy.ndarray
            The master's column values.

        Returns
        -------
        dict of str to numpy.ndarray
            ``comm``, ``comp`` and ``buffers``, as :meth:`PathMaster.plan_arrays` gives them.
        """
        return self.master.plan_arrays(x, self.order)

    def size(self) -> dict[str, int]:
        """The shared master's size now.

        Returns
        -------
        dict of str to int
            ``columns``, ``rows`` and ``nonzeros``.
        """
        return self.master.size()
