"""The max-stretch LP with buffers, (K)/(K1) of seed 003 §3.3, built once per epoch order.

The polyhedra (K) (bounded multiport) and (K1) (one-port) and the stretch-interval LP
(§3.1, §3.3.4, §3.4, §3.5), built with vectorized numpy. One builder serves every use:

* **feasibility of a stretch S** (Algorithm 1 and the interval search): the stretch column is
  fixed to ``S`` and the LP *maximises the tasks delivered by their deadlines*, with the totals
  (3)/(12) relaxed to ``<= Π``. That LP is always feasible (send nothing), so HiGHS never has
  to prove infeasibility, a proof measured to run past 20 s near the optimum. ``S`` is
  feasible iff the deficit ``ΣΠ - delivered`` is within
  :data:`lpsched.core.tolerances.DELIVERY`; the deficit itself is a useful signal.
* **the stretch-interval LP (12)-(20)**: the same model with ``S`` free in ``[S_a, S_b]``,
  the totals fixed and the objective ``min S``.

Switching between the two only changes bounds and costs, so a live HiGHS model warm-starts.

The LP works in *amounts* (tasks sent/computed per interval, the variables of (12)-(20)),
so the interval lengths ``Δ_j(S) = dα_j·S + dβ_j`` appear only on the right-hand side, as
``Σ (...) - dα_j·S <= dβ_j``. Variables exist only for (application, interval) pairs inside
the application's window ``[start_k, d_k]`` (spec A4, by epoch *positions*); the buffer at
the window's start is the constant ``B̂`` (0 offline, (5)/(14); the online state (5′)), the one
at its end is 0 ((6)/(15)). Times are shifted to the earliest window start and divided by the
largest ``MS*`` for conditioning; stretches are dimensionless and unchanged by this.

Size, with ``C`` the number of active (application, interval) cells: ``3·C·p + 1`` columns,
``n + C·p + J·p + J`` rows (one-port: the link rows (9) are implied by (10-b) and omitted;
bounded multiport keeps them), about ``11·C·p`` nonzeros. The window relaxation
(``relaxed=True``) keeps one balance row per (application, worker) instead of the ``C·p``
conservation rows: a smaller LP whose least feasible stretch bounds the exact one from below.
"""

from __future__ import annotations

import numpy as np

from lpsched.bags.maxstretch.problem import StretchProblem
from lpsched.core import tolerances
from lpsched.errors import LpschedError
from lpsched.models.program import INF, LinearProgram

#: HiGHS' basis status codes (``int(highspy.HighsBasisStatus.kLower)``, ``kBasic``), kept
#: here as plain integers because model builders never import a solver.
AT_LOWER, BASIC = 0, 1


class StretchModel:
    """The LP of one epoch order, in feasibility ("deliver") or "min-stretch" mode.

    The LP is built at construction; switch modes on a live solver with
    :meth:`deliver_bounds` and :meth:`stretch_bounds`; read a solution back as a plan with
    :meth:`plan_arrays`. ``relaxed=True`` builds the window relaxation instead
    (:meth:`_add_window_balance`): a smaller LP whose least feasible stretch is a lower bound
    of the exact one.
    """

    def __init__(self, problem: StretchProblem, order: np.ndarray,
                 relaxed: bool = False) -> None:
        self.problem = problem
        self.relaxed = relaxed
        self.order = np.asarray(order)
        pr = problem
        js, je = pr.window_positions(self.order)
        lengths = je - js
        self.n_epochs = self.order.size
        self.n_intervals = self.n_epochs - 1
        self.cell_app = np.repeat(np.arange(pr.n), lengths)
        self.app_offset = np.concatenate([[0], np.cumsum(lengths)])
        local = np.arange(self.cell_app.size) - self.app_offset[self.cell_app]
        self.cell_interval = js[self.cell_app] + local
        self.first_cell = local == 0
        self.last_cell = self.cell_interval == je[self.cell_app] - 1
        a, b = pr.epoch_alpha[self.order], pr.epoch_beta[self.order]
        self.d_alpha, self.d_beta = np.diff(a), np.diff(b)
        self.lp = LinearProgram("max_stretch", sense="max")
        self._build()

    @property
    def n_cells(self) -> int:
        """Number of active (application, interval) cells ``C``, the pairs inside a window."""
        return int(self.cell_app.size)

    def _build(self) -> None:
        """Add the columns, one block per constraint family of (K)/(K1), then the objective.

        Seed 003 §3.3.4 (constraints (3)-(11), (10-b)) in the amounts of the interval LP
        (12)-(20), §3.1.3 for memory. The blocks are added in this order (their names and
        order are the model's layout): ``tasks``, ``conservation``, ``cpu``, ``link``
        (multiport), ``port`` (one-port) or ``master`` (finite ``BW``), ``memory`` (if
        bounded), ``delivered``. Vectorized: O(C·p) time and memory for ``C`` active cells.
        """
        pr = self.problem
        self._add_columns()
        self._add_tasks()
        if self.relaxed:
            self._add_window_balance()
        else:
            self._add_conservation()
        da, db = self._capacity_intervals()
        # (8)/(17): CPU of each worker in each interval.
        self.cpu_rows = self._add_per_worker("cpu", self.comp, pr.comp[self.cell_app] / pr.scale,
                                             da, db)
        self._add_master(da, db)
        if not self.relaxed:
            self._add_memory()
        self._add_objective()

    def _add_columns(self) -> None:
        """Columns ``send``, ``comp``, ``buffer`` (one per cell and worker) and ``stretch``.

        ``buffer`` is the buffer at the end of the cell's interval, fixed to 0 on a window's
        last cell ((6)/(15)); ``stretch`` is fixed to 1 until a mode sets its bounds.
        """
        lp, cells, p = self.lp, self.n_cells, self.problem.p
        ones = np.ones((cells, p))
        self.send = lp.add_variables("send", (cells, p))
        self.comp = lp.add_variables("comp", (cells, p))
        if self.relaxed:  # only the buffers at the windows' ends, B_u^(k)(d_k)
            self.buffer = lp.add_variables("buffer", (self.problem.n, p), upper=0.0)
        else:
            self.buffer = lp.add_variables("buffer", (cells, p), upper=np.where(
                self.last_cell[:, None], 0.0, INF) * ones)
        self.stretch = lp.add_variables("stretch", (1,), lower=1.0, upper=1.0)

    def _add_tasks(self) -> None:
        """(3)/(12)/(3'): tasks sent per application (relaxed to ``<=`` in deliver mode)."""
        pr, cells = self.problem, self.n_cells
        self.tasks_rows = self.lp.add_constraints(
            "tasks", np.broadcast_to(self.cell_app[:, None], (cells, pr.p)), self.send, 1.0,
            upper=pr.remaining, num_rows=pr.n)

    def _add_conservation(self) -> None:
        """(7)/(16): ``B_end(c) - B_end(c-1) - send(c) + comp(c) = B̂`` on a window's first
        cell (where ``B_end(c-1)`` is absent), ``= 0`` elsewhere."""
        pr, cells, p, app = self.problem, self.n_cells, self.problem.p, self.cell_app
        rows = np.arange(cells * p).reshape(cells, p)
        prev = ~self.first_cell
        rhs = np.where(self.first_cell[:, None], pr.buffered[app], 0.0)
        self.lp.add_constraints(
            "conservation",
            np.concatenate([rows.ravel(), rows[prev].ravel(), rows.ravel(), rows.ravel()]),
            np.concatenate([self.buffer.ravel(), (self.buffer[np.flatnonzero(prev) - 1]).ravel(),
                            self.send.ravel(), self.comp.ravel()]),
            np.concatenate([np.ones(cells * p), -np.ones(int(prev.sum()) * p),
                            -np.ones(cells * p), np.ones(cells * p)]),
            lower=rhs.ravel(), upper=rhs.ravel(), num_rows=cells * p)

    def _add_window_balance(self) -> None:
        """The relaxation of (7)/(16) to whole windows: ``Σ_j send − Σ_j comp − B(d_k) =
        −B̂`` for each application and worker, the intermediate buffers free (they may go
        negative: a task may be computed before it arrives). Every plan of (K)/(K1)
        satisfies it, so the model's optimum bounds the exact one; it has ``n·p`` balance
        rows instead of ``C·p`` and no buffer columns inside the windows."""
        pr, p, app = self.problem, self.problem.p, self.cell_app
        rows = app[:, None] * p + np.arange(p)
        self.lp.add_constraints(
            "balance", np.concatenate([rows.ravel(), rows.ravel(), np.arange(pr.n * p)]),
            np.concatenate([self.send.ravel(), self.comp.ravel(), self.buffer.ravel()]),
            np.concatenate([np.ones(rows.size), -np.ones(rows.size), -np.ones(pr.n * p)]),
            lower=-pr.buffered.ravel(), upper=-pr.buffered.ravel(), num_rows=pr.n * p)

    def _capacity_intervals(self) -> tuple[np.ndarray, np.ndarray]:
        """Number the intervals where some application is active (only they get capacity
        rows), set :attr:`cell_capacity_row` and return their ``(dα_j, dβ_j)``."""
        active = np.unique(self.cell_interval)
        row_of = np.full(self.n_intervals, -1)
        row_of[active] = np.arange(active.size)
        self.cell_capacity_row = row_of[self.cell_interval]  # local row in cpu/port blocks
        return self.d_alpha[active], self.d_beta[active]

    def _add_per_worker(self, name: str, cols: np.ndarray, coef: np.ndarray,
                        da: np.ndarray, db: np.ndarray) -> np.ndarray:
        """Rows ``Σ_cells coef·x - dα_j·S <= dβ_j``, one per (active interval ``j``, worker):
        the capacity (8)/(17) of a CPU or (9)/(18) of a link, in normalised time."""
        p, m = self.problem.p, da.size
        r = self.cell_capacity_row[:, None] * p + np.arange(p)
        srow = (np.arange(m)[:, None] * p + np.arange(p)).ravel()
        return self.lp.add_constraints(
            name, np.concatenate([r.ravel(), srow]),
            np.concatenate([cols.ravel(), np.full(srow.size, int(self.stretch[0]))]),
            np.concatenate([coef.ravel(), -np.repeat(da, p)]),
            upper=np.repeat(db, p), num_rows=m * p)

    def _add_master(self, da: np.ndarray, db: np.ndarray) -> None:
        """The master's side of each active interval, by port model.

        One-port: (10-b)/(19-b), the time the master spends sending, one message at a time
        (the link rows (9) are implied and omitted). Bounded multiport: (9)/(18) for each
        link and (10)/(19), the master's outgoing bandwidth, if ``BW`` is finite. Sets
        :attr:`port_rows` and :attr:`port_coef` (``None`` without a master row).
        """
        pr, app, scale = self.problem, self.cell_app, self.problem.scale
        self.port_rows: np.ndarray | None = None
        self.port_coef: np.ndarray | None = None  # (cells, p): coefficient of send in its row
        master: tuple[str, np.ndarray] | None = None
        if pr.port == "one-port":
            master = ("port", pr.comm[app] / scale)
        else:
            self.link_rows = self._add_per_worker("link", self.send, pr.comm[app] / scale,
                                                  da, db)
            bw = pr.master_bandwidth
            if np.isfinite(bw):
                master = ("master", np.broadcast_to((pr.size[app] / bw / scale)[:, None],
                                                    (self.n_cells, pr.p)))
        if master is None:
            return
        name, self.port_coef = master
        m = da.size
        self.port_rows = self.lp.add_constraints(
            name, np.concatenate([np.repeat(self.cell_capacity_row, pr.p), np.arange(m)]),
            np.concatenate([self.send.ravel(), np.full(m, int(self.stretch[0]))]),
            np.concatenate([self.port_coef.ravel(), -da]), upper=db, num_rows=m)

    def _add_memory(self) -> None:
        """§3.1.3: ``Σ_k δ_k·B_u^(k)(t_j) <= M_u`` at every epoch inside some window (no
        rows without a memory bound)."""
        pr, p, app = self.problem, self.problem.p, self.cell_app
        if pr.memory is None:
            return
        inner = ~self.last_cell
        ep = self.cell_interval[inner] + 1
        uniq, ep_row = np.unique(ep, return_inverse=True)
        self.lp.add_constraints(
            "memory", (ep_row[:, None] * p + np.arange(p)).ravel(),
            self.buffer[inner].ravel(),
            np.broadcast_to(pr.size[app[inner]][:, None], (int(inner.sum()), p)).ravel(),
            upper=np.tile(pr.memory, uniq.size), num_rows=uniq.size * p)

    def _add_objective(self) -> None:
        """The deliver-mode objective (tasks sent, minus leftover buffers) and the same sum
        as the ``delivered`` row."""
        pr, lp, app = self.problem, self.lp, self.cell_app
        # Leftover buffers at a window's end are allowed (and penalised) in deliver mode only
        # where tasks were already buffered (online states), so that mode stays feasible.
        at_end = self.buffer if self.relaxed else self.buffer[self.last_cell]  # (n, p)
        self.leftover = at_end[pr.buffered[app[self.last_cell]] > 0]
        self.deliver_cost = np.zeros(lp.num_cols)
        self.deliver_cost[self.send.ravel()] = 1.0
        self.deliver_cost[self.leftover] = -1.0
        cols = np.flatnonzero(self.deliver_cost)
        lp.set_objective(cols, self.deliver_cost[cols])
        # The same quantity as a row: free in deliver mode, ">= total - tolerance" in
        # min-stretch mode, so both modes accept exactly the same stretches.
        self.delivered_row = lp.add_constraints(
            "delivered", np.zeros(cols.size, int), cols, self.deliver_cost[cols], num_rows=1)

    # -- modes ----------------------------------------------------------------------------
    @property
    def total_tasks(self) -> float:
        """Tasks to deliver in all: those at the master plus those already buffered on the
        workers."""
        return float(self.problem.remaining.sum() + self.problem.buffered.sum())

    @property
    def delivery_tolerance(self) -> float:
        """Absolute deficit (tasks) under which a stretch counts as feasible."""
        return tolerances.DELIVERY * max(1.0, self.total_tasks)

    def deliver_bounds(self, stretch: float) -> dict[str, tuple[np.ndarray, ...]]:
        """Bounds that make the model the feasibility LP at ``stretch`` (see module doc).

        Parameters
        ----------
        stretch : float
            The stretch asked (fixed column ``S``).

        Returns
        -------
        dict of str to tuple of numpy.ndarray
            Per block or row family, ``(index, lower, upper)``.
        """
        return {
            "cols": (np.concatenate([self.stretch, self.leftover]),
                     np.concatenate([[stretch], np.zeros(self.leftover.size)]),
                     np.concatenate([[stretch], np.full(self.leftover.size, INF)])),
            "rows": (self.delivered_row, np.array([-INF]), np.array([INF])),
        }

    def stretch_bounds(self, low: float, high: float) -> dict[str, tuple[np.ndarray, ...]]:
        """Bounds of the stretch-interval LP (12)-(20) on ``[low, high]``.

        Every task counts as delivered up to :attr:`delivery_tolerance` in total — the
        criterion of the feasibility LP — so this LP is feasible whenever that LP accepted
        ``high``, and both searches agree on the same threshold.

        Parameters
        ----------
        low, high : float
            The interval of ``S`` (its two critical values).

        Returns
        -------
        dict of str to tuple of numpy.ndarray
            Per block or row family, ``(index, lower, upper)``.
        """
        need = float(self.problem.remaining.sum()) - self.delivery_tolerance
        return {
            "cols": (np.concatenate([self.stretch, self.leftover]),
                     np.concatenate([[low], np.zeros(self.leftover.size)]),
                     np.concatenate([[high], np.zeros(self.leftover.size)])),
            "rows": (self.delivered_row, np.array([need]), np.array([INF])),
        }

    def apply_bounds(self, bounds: dict[str, tuple[np.ndarray, ...]]) -> None:
        """Write mode bounds into the declarative model itself (for export or PuLP).

        Parameters
        ----------
        bounds : dict of str to tuple of numpy.ndarray
            :meth:`deliver_bounds`, :meth:`stretch_bounds` or :meth:`pricing_bounds`.
        """
        self.lp.set_col_bounds(*bounds["cols"])
        self.lp.set_row_bounds(*bounds["rows"])

    def pricing_bounds(self, stretch: float) -> dict[str, tuple[np.ndarray, ...]]:
        """Bounds of a worker's pricing LP: ``S`` fixed, the linking rows (totals (3), the
        master (10)/(10-b), the delivered total) free — their duals are in the profits.

        Parameters
        ----------
        stretch : float
            The stretch asked.

        Returns
        -------
        dict of str to tuple of numpy.ndarray
            Per block or row family, ``(index, lower, upper)``.
        """
        rows = [self.tasks_rows, self.delivered_row]
        if self.port_rows is not None:
            rows.append(self.port_rows)
        rows_all = np.concatenate(rows)
        return {
            "cols": (self.stretch, np.array([stretch]), np.array([stretch])),
            "rows": (rows_all, np.full(rows_all.size, -INF), np.full(rows_all.size, INF)),
        }

    def pricing_cost(self, tasks_dual: np.ndarray, port_dual: np.ndarray | None) -> np.ndarray:
        """Reduced profits of this model's sends under the linking duals of another model of
        the same epoch order (same cells): ``1 − y_tasks[k] − y_port[j]·coef_u``.

        Parameters
        ----------
        tasks_dual : numpy.ndarray
            Duals of the task rows (3), shape ``(n,)``.
        port_dual : numpy.ndarray or None
            Duals of the master's rows (10)/(10-b) per interval (``None``: none posed).

        Returns
        -------
        numpy.ndarray
            The cost vector over this model's columns.
        """
        cost = np.zeros(self.lp.num_cols)
        profit = 1.0 - tasks_dual[self.cell_app][:, None] + np.zeros(self.send.shape)
        if port_dual is not None and self.port_coef is not None:
            profit = profit - port_dual[self.cell_capacity_row][:, None] * self.port_coef
        cost[self.send] = profit
        return cost

    def min_stretch_cost(self) -> np.ndarray:
        """The objective of the stretch-interval LP (12)–(20): cost 1 on the stretch column, 0
        elsewhere (minimise ``S``).

        Returns
        -------
        numpy.ndarray
            Shape ``(num_cols,)``.
        """
        cost = np.zeros(self.lp.num_cols)
        cost[self.stretch] = 1.0
        return cost

    # -- starting from the window relaxation's basis ---------------------------------------
    def basis_from_relaxed(self, relaxed: StretchModel, col_status: np.ndarray,
                           row_status: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """This exact model's start basis from an optimal basis of ``relaxed``.

        Parameters
        ----------
        relaxed : StretchModel
            The window relaxation (``relaxed=True``) of the same epoch order on the same
            workers.
        col_status, row_status : numpy.ndarray
            Its basis, as HiGHS status codes (:data:`AT_LOWER`, :data:`BASIC`, ...; see
            ``HighsModel.basis``).

        Returns
        -------
        tuple of numpy.ndarray or None
            ``(col_status, row_status)`` for this model, or ``None`` when the cells differ
            (another order, other workers) or this model is itself a relaxation.

        Notes
        -----
        The map: ``send``, ``comp``,
        ``stretch`` and every row block present in both models keep their status; the end
        buffers ``B(d_k)`` take the relaxation's; every inner buffer column is basic and
        every conservation row (16) nonbasic (an equality); rows the relaxation lacks
        (memory) have basic slacks; where a balance row's slack was basic, the slack of the
        window's last conservation row is basic instead.

        Why it is a good start: the balance row of ``(k, u)`` is the sum of that pair's
        conservation rows, and with the inner buffers basic those rows form a triangular
        block, so the basis is nonsingular exactly when the relaxation's was. With the inner
        buffers basic (cost 0), the duals of a pair's conservation rows all equal its
        balance row's, so every reduced cost is the relaxation's: the basis is dual
        feasible, and the dual simplex only has to repair the buffers that the relaxation
        let go negative (the one constraint family it dropped). Exactness does not depend
        on this: it is only where the simplex starts (decision 195).

        Examples
        --------
        >>> from lpsched.bags import random_bags
        >>> pr = StretchProblem.offline(random_bags(4, 2, profile="balanced", seed=0))
        >>> order = pr.order_at(5.0)
        >>> exact, relaxed = StretchModel(pr, order), StretchModel(pr, order, relaxed=True)
        >>> cols = np.ones(relaxed.lp.num_cols, np.int8)
        >>> rows = np.zeros(relaxed.lp.num_rows, np.int8)
        >>> start = exact.basis_from_relaxed(relaxed, cols, rows)
        >>> [a.size for a in start] == [exact.lp.num_cols, exact.lp.num_rows]
        True
        >>> relaxed.basis_from_relaxed(exact, cols, rows) is None
        True
        """
        if (not relaxed.relaxed or self.relaxed
                or not np.array_equal(relaxed.order, self.order)
                or not np.array_equal(relaxed.problem.worker_ids, self.problem.worker_ids)
                or relaxed.n_cells != self.n_cells):
            return None
        rc, rr = np.asarray(col_status), np.asarray(row_status)
        mine, theirs = self.lp, relaxed.lp
        if rc.size != theirs.num_cols or rr.size != theirs.num_rows:
            return None
        cols = np.full(mine.num_cols, BASIC, dtype=np.int8)
        rows = np.full(mine.num_rows, BASIC, dtype=np.int8)
        for name in ("send", "comp", "stretch"):
            cols[mine.variables[name].indices()] = rc[theirs.variables[name].indices()]
        cols[self.buffer[self.last_cell].ravel()] = rc[relaxed.buffer.ravel()]
        for name, block in mine.constraints.items():
            if name in theirs.constraints:
                rows[block.indices()] = rr[theirs.constraints[name].indices()]
        conservation = mine.constraints["conservation"].indices().reshape(self.n_cells, -1)
        rows[conservation.ravel()] = AT_LOWER
        balance = rr[theirs.constraints["balance"].indices()].reshape(self.problem.n, -1)
        last = conservation[self.last_cell]  # (n, p): the windows' last rows, app order
        rows[last[balance == BASIC]] = BASIC
        return cols, rows

    # -- reading a solution ---------------------------------------------------------------
    def plan_arrays(self, x: np.ndarray) -> dict[str, np.ndarray]:
        """Dense ``comm``/``comp`` ``(n, p, J)`` and ``buffers`` ``(n, p, E)`` from ``x``
        (not for a relaxed model: its points are not plans).

        Parameters
        ----------
        x : numpy.ndarray
            A primal solution of this model.

        Returns
        -------
        dict of str to numpy.ndarray
            ``comm``, ``comp`` (tasks sent and computed per interval) and ``buffers`` (tasks
            held at each epoch), the amounts of seed 003 §3.3.
        """
        if self.relaxed:
            raise LpschedError("a relaxed stretch model has no plan")
        pr = self.problem
        n, p, J, E = pr.n, pr.p, self.n_intervals, self.n_epochs
        comm = np.zeros((n, p, J))
        comp = np.zeros((n, p, J))
        buffers = np.zeros((n, p, E))
        app, iv = self.cell_app, self.cell_interval
        comm[app, :, iv] = np.clip(x[self.send], 0.0, None)
        comp[app, :, iv] = np.clip(x[self.comp], 0.0, None)
        buffers[app, :, iv + 1] = np.clip(x[self.buffer], 0.0, None)
        first = self.first_cell
        buffers[app[first], :, iv[first]] = pr.buffered[app[first]]
        return {"comm": comm, "comp": comp, "buffers": buffers}


