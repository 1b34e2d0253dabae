"""The max-stretch polyhedra (K) and (K1) and the stretch-interval LP (seed 003 §3.1, §3.3.4,
§3.4, §3.5), built once per *epoch order* with vectorized numpy.

One builder serves every use:

* **feasibility of a stretch S** (Algorithm 1 and the interval search): the stretch column is
  fixed to ``S`` and the LP *maximises the tasks delivered by their deadlines*, with the totals
  (3)/(12) relaxed to ``<= Π``. That LP is always feasible (send nothing), so HiGHS never has
  to prove infeasibility — the hazard measured in issue #2, where such proofs ran past 20 s
  near the optimum. ``S`` is feasible iff the deficit ``ΣΠ - delivered`` is within
  :data:`lpsched.core.tolerances.DELIVERY`; the deficit itself is a useful signal.
* **the stretch-interval LP (12)-(20)**: the same model with ``S`` free in ``[S_a, S_b]``,
  the totals fixed and the objective ``min S``.

Switching between the two only changes bounds and costs, so a live HiGHS model warm-starts.

The LP works in *amounts* (tasks sent/computed per interval, the variables of (12)-(20)),
so the interval lengths ``Δ_j(S) = dα_j·S + dβ_j`` appear only on the right-hand side, as
``Σ (...) - dα_j·S <= dβ_j``. Variables exist only for (application, interval) pairs inside
the application's window ``[start_k, d_k]`` (decision A4, by epoch *positions*); the buffer at
the window's start is the constant ``B̂`` (0 offline, (5)/(14); the online state (5′)), the one
at its end is 0 ((6)/(15)). Times are shifted to the earliest window start and divided by the
largest ``MS*`` for conditioning; stretches are dimensionless and unchanged by this.

Size, with ``C`` the number of active (application, interval) cells: ``3·C·p + 1`` columns,
``n + C·p + J·p + J`` rows (one-port: the link rows (9) are implied by (10-b) and omitted;
bounded multiport keeps them), about ``11·C·p`` nonzeros.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from lpsched.bags.instance import Instance
from lpsched.bags.steady_state import dedicated_throughputs
from lpsched.core import tolerances
from lpsched.errors import InfeasibleError, InvalidInstanceError, LpschedError
from lpsched.models.program import INF, LinearProgram

#: HiGHS' basis status codes (``int(highspy.HighsBasisStatus.kLower)``, ``kBasic``), kept
#: here as plain integers because model builders never import a solver.
AT_LOWER, BASIC = 0, 1


@dataclass(frozen=True, eq=False)
class StretchProblem:
    """The data of one max-stretch problem, offline or from an online state.

    ``start[k]`` is where the window of application ``k`` opens (its release offline,
    ``T_new`` online); ``remaining[k]`` the tasks still at the master (``Π`` offline,
    ``Π_rem`` online); ``buffered[k, u]`` the tasks already on worker ``u`` (``B̂``).
    ``release`` and ``ms`` (``MS*``) define the deadlines ``d_k = r_k + S·MS*_k``;
    ``rho_star`` is ``ρ*`` (tasks/s alone on the platform).
    ``apps`` are the indices of these applications in the original instance.
    """

    release: np.ndarray
    ms: np.ndarray
    rho_star: np.ndarray
    remaining: np.ndarray
    buffered: np.ndarray
    comp: np.ndarray
    comm: np.ndarray
    size: np.ndarray
    port: str
    master_bandwidth: float
    t_new: float | None = None
    memory: np.ndarray | None = None
    apps: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    workers: np.ndarray | None = None

    @classmethod
    def offline(cls, inst: Instance, memory: np.ndarray | None = None,
                ms_port: str | None = None) -> StretchProblem:
        """The whole instance, every application from its release (polyhedron (K)/(K1)).

        ``MS*`` uses the platform's port model unless ``ms_port`` says otherwise.

        Parameters
        ----------
        inst : Instance
            The star platform and its applications (seed 003 §2).
        memory : numpy.ndarray, optional
            Buffer bound per worker, in bytes (§3.1.3).
        ms_port : str, optional
            ``"one-port"`` or ``"multiport"`` for ``MS*`` (default: the platform's port).

        Returns
        -------
        StretchProblem
            The offline problem (window starts at the releases).
        """
        rho = dedicated_throughputs(inst, ms_port)
        return cls(
            release=np.asarray(inst.release, float),
            ms=inst.tasks / rho,
            rho_star=rho,
            remaining=np.asarray(inst.tasks, float),
            buffered=np.zeros((inst.n, inst.p)),
            comp=np.asarray(inst.comp_time, float),
            comm=np.asarray(inst.comm_time, float),
            size=np.asarray(inst.size, float),
            port=inst.platform.port,
            master_bandwidth=inst.platform.master_bandwidth,
            memory=None if memory is None else _memory(memory, inst.p),
            apps=np.arange(inst.n),
        )

    def restrict(self, workers: np.ndarray) -> StretchProblem:
        """The same problem on the workers ``workers`` only (indices into this problem).

        Any plan of the restricted problem, with zeros elsewhere, is a plan of this one; the
        converse needs pricing (see ``StretchSearch``). ``workers`` of the result holds the
        original indices.

        Parameters
        ----------
        workers : numpy.ndarray
            Indices of the workers kept (into this problem's workers).

        Returns
        -------
        StretchProblem
            The restricted problem.
        """
        w = np.asarray(workers, int)
        return replace(
            self, comp=self.comp[:, w], comm=self.comm[:, w], buffered=self.buffered[:, w],
            memory=None if self.memory is None else self.memory[w],
            workers=self.worker_ids[w])

    @property
    def worker_ids(self) -> np.ndarray:
        """Original indices of this problem's workers."""
        return np.arange(self.p) if self.workers is None else np.asarray(self.workers)

    @property
    def n(self) -> int:
        """Number of applications of the problem."""
        return int(self.release.shape[0])

    @property
    def p(self) -> int:
        """Number of workers of the problem (after :meth:`restrict`, the kept ones)."""
        return int(self.comp.shape[1])

    @property
    def online(self) -> bool:
        """Whether this is an online problem (a state at ``T_new``, polyhedron (K1) of §3.5)
        rather than the offline one."""
        return self.t_new is not None

    @cached_property
    def start(self) -> np.ndarray:
        """Window starts: releases offline, ``T_new`` for every application online."""
        if self.t_new is None:
            return self.release
        return np.full(self.n, float(self.t_new))

    @cached_property
    def origin(self) -> float:
        """The earliest window start (s): the time origin of the normalised epoch times."""
        return float(self.start.min())

    @cached_property
    def scale(self) -> float:
        """The largest ``MS*`` (s): the time unit of the normalised epoch times."""
        return float(self.ms.max())

    @cached_property
    def epoch_alpha(self) -> np.ndarray:
        """Slopes of the epoch functions ``t_e(S) = α_e·S + β_e`` (normalised time)."""
        starts = np.zeros(1 if self.online else self.n)
        return np.concatenate([starts, self.ms / self.scale])

    @cached_property
    def epoch_beta(self) -> np.ndarray:
        """Intercepts of the epoch functions ``t_e(S) = α_e·S + β_e`` (normalised time): the
        window starts, then the releases (so that ``β_e + α_e·S`` is the deadline)."""
        starts = ([self.t_new] if self.online else list(self.release))
        return (np.concatenate([starts, self.release]) - self.origin) / self.scale

    @cached_property
    def start_epoch(self) -> np.ndarray:
        """Index (into the epoch arrays) of each application's window start."""
        return np.zeros(self.n, int) if self.online else np.arange(self.n)

    @cached_property
    def deadline_epoch(self) -> np.ndarray:
        """Index (into the epoch arrays) of each application's deadline, after the window starts."""
        return (1 if self.online else self.n) + np.arange(self.n)

    def deadlines(self, stretch: float) -> np.ndarray:
        """``d_k = r_k + S·MS*_k`` in seconds (eq. (2)).

        Parameters
        ----------
        stretch : float
            The max-stretch ``S``.

        Returns
        -------
        numpy.ndarray
            Shape ``(n,)``, seconds.
        """
        return self.release + stretch * self.ms

    def epoch_times(self, stretch: float) -> np.ndarray:
        """All epoch values at ``stretch``, in seconds (unsorted, epoch-array order).

        Parameters
        ----------
        stretch : float
            The max-stretch ``S``.

        Returns
        -------
        numpy.ndarray
            Shape ``(2n,)``: the window starts, then the deadlines.
        """
        return self.origin + self.scale * (self.epoch_alpha * stretch + self.epoch_beta)

    def order_at(self, stretch: float) -> np.ndarray:
        """Epoch indices sorted by value at ``stretch``; ties: window starts first, then index.

        Inside an open stretch interval only identical epoch functions tie, so any fixed rule
        gives the interval's order (seed 003 §3.4); starts-first keeps every window
        non-negative at the closed ends as well.

        Parameters
        ----------
        stretch : float
            The max-stretch ``S``.

        Returns
        -------
        numpy.ndarray
            Shape ``(2n,)``: epoch indices in time order.
        """
        vals = self.epoch_alpha * stretch + self.epoch_beta
        kind = np.zeros(vals.size, int)
        kind[self.deadline_epoch] = 1
        return np.lexsort((np.arange(vals.size), kind, vals))

    def window_positions(self, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(js, je)``: each application's first interval and one past its last in epoch
        order ``order`` (interval ``j`` lies between the ``j``-th and ``j+1``-th epochs).
        Raises :class:`LpschedError` when a window is empty (an order taken below its
        start).

        Parameters
        ----------
        order : numpy.ndarray
            An epoch order (:meth:`order_at`).

        Returns
        -------
        tuple of numpy.ndarray
            ``(js, je)``, shape ``(n,)`` each.
        """
        order = np.asarray(order)
        pos = np.empty_like(order)
        pos[order] = np.arange(order.size)
        js, je = pos[self.start_epoch], pos[self.deadline_epoch]
        if (je <= js).any():
            k = int(np.argmax(je <= js))
            raise LpschedError(f"the window of application {k} is empty in this epoch order "
                               "(the order was taken below its start)")
        return js, je


def _memory(memory: np.ndarray, p: int) -> np.ndarray:
    mem = np.asarray(memory, float)
    if mem.shape != (p,) or not (mem > 0).all():
        raise InvalidInstanceError("memory", mem.tolist(), f"need {p} positive values (bytes)")
    return mem


class StretchModel:
    """The LP of one epoch order, in feasibility ("deliver") or "min-stretch" mode.

    Build with :meth:`build`; switch modes on a live solver with :meth:`deliver_bounds` and
    :meth:`stretch_bounds`; read a solution back as a plan with :meth:`plan_arrays`.
    ``relaxed=True`` builds the window relaxation instead (:meth:`_add_window_balance`, issue
    13): a smaller LP whose least feasible stretch is a lower bound of the exact one.
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
        """This exact model's start basis from an optimal basis of ``relaxed`` (issue 13).

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
        on this: it is only where the simplex starts.

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


def online_problem(
    inst: Instance,
    t_new: float,
    remaining: np.ndarray,
    buffered: np.ndarray,
    released: np.ndarray | None = None,
    memory: np.ndarray | None = None,
    ms_port: str | None = None,
) -> StretchProblem:
    """The problem on ``[T_new, ∞)`` from a state (seed 003 §3.5, spec §4.1).

    ``remaining[k]`` tasks of ``A_k`` still at the master, ``buffered[k, u]`` tasks (possibly
    fractional: in-flight sends count as received, partly computed tasks by their unfinished
    fraction) on worker ``u``. ``released`` (boolean, default ``release <= t_new``) says which
    applications the scheduler knows. The applications kept are the released ones with work
    left at the master *or* in a buffer (decision A11); deadlines use the original releases.

    Parameters
    ----------
    inst : Instance
        The instance.
    t_new : float
        The re-solve time ``T_new`` (s).
    remaining : numpy.ndarray
        Tasks at the master, shape ``(n,)``.
    buffered : numpy.ndarray
        Tasks held by the workers, shape ``(n, p)``.
    released : numpy.ndarray, optional
        Which applications the scheduler knows (default ``r_k <= t_new``).
    memory : numpy.ndarray, optional
        Buffer bound per worker, bytes.
    ms_port : str, optional
        The port model of ``MS*`` (default the platform's).

    Returns
    -------
    StretchProblem
        The online problem over the kept applications.
    """
    n, p = inst.n, inst.p
    t = float(t_new)
    if not math.isfinite(t):
        raise InvalidInstanceError("t_new", t_new, "must be finite")
    rem = np.asarray(remaining, float)
    buf = np.asarray(buffered, float)
    if rem.shape != (n,) or not np.isfinite(rem).all() or (rem < 0).any():
        raise InvalidInstanceError("remaining", rem.tolist(), f"need {n} finite values >= 0")
    if buf.shape != (n, p) or not np.isfinite(buf).all() or (buf < 0).any():
        raise InvalidInstanceError("buffered", buf.tolist(), f"need a ({n}, {p}) array >= 0")
    tol = 1e-9 * np.maximum(1.0, inst.tasks)
    if (rem + buf.sum(axis=1) > inst.tasks + tol).any():
        k = int(np.argmax(rem + buf.sum(axis=1) > inst.tasks + tol))
        raise InvalidInstanceError(f"remaining[{k}]", float(rem[k]),
                                   "remaining + buffered exceeds the application's tasks")
    rel = inst.release <= t if released is None else np.asarray(released, bool)
    if rel.shape != (n,):
        raise InvalidInstanceError("released", rel.tolist(), f"need {n} booleans")
    if (inst.release[rel] > t).any():
        k = int(np.flatnonzero(rel & (inst.release > t))[0])
        raise InvalidInstanceError(f"released[{k}]", True, f"release {inst.release[k]} > t_new")
    keep = np.flatnonzero(rel & ((rem > 0) | (buf.sum(axis=1) > 0)))
    if keep.size == 0:
        raise InfeasibleError(f"no released application has work left at t_new = {t}")
    rho = dedicated_throughputs(inst, ms_port)[keep]
    sub = inst.subset(keep.tolist())
    return StretchProblem(
        release=np.asarray(sub.release, float),
        ms=sub.tasks / rho,
        rho_star=rho,
        remaining=rem[keep],
        buffered=buf[keep],
        comp=np.asarray(sub.comp_time, float),
        comm=np.asarray(sub.comm_time, float),
        size=np.asarray(sub.size, float),
        port=inst.platform.port,
        master_bandwidth=inst.platform.master_bandwidth,
        t_new=t,
        memory=None if memory is None else _memory(memory, p),
        apps=keep,
    )
