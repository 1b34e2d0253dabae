"""Optimal max-stretch of concurrent bags-of-tasks (seed 003 §3.1–3.5).

``max_stretch(inst, method="intervals")`` — the stretch-interval search (Algorithm 2,
Theorems 7–8): a search over the *critical values* of the stretch, where the order of
release dates and deadlines changes, for the interval holding the optimum, then the
optimum inside it. Exact (up to LP tolerances). The critical values are probed where the
deficit's tangent points (halving after an overshoot), and Newton steps finish inside the
interval (issue 13: ``_guided_search``); ``method="intervals-lp"`` is the paper's version,
binary search then one LP (12)–(20), ``ceil(log2(#intervals)) + 1`` LP solves.

``max_stretch(inst, method="bisection", tol=1e-6)`` — Algorithm 1 (Theorem 2): bisection on
``S`` with the feasibility LP; returns an achievable ``S <= S_opt + tol``;
``O(log(S_up/tol))`` LP solves.

``online_max_stretch(inst, state)`` — §3.5: the optimum for ``[T_new, ∞)`` from the state at
an arrival (what CBS3M re-solves at every arrival).

How each LP is posed (the always-feasible "deliver" LP for every yes/no question, the
min-stretch LP only on an interval known to contain a feasible stretch) is documented in
:mod:`lpsched.bags.stretch_model`. Search bounds: ``S_lo = 1`` offline, and ``S_up`` is the
stretch of running the applications one after another at ``ρ*`` in release order
(``S_FIFO``, spec §3.7; the seed's printed ``S_max`` is inverted, decision A1). ``S_lo`` is
raised by the single-resource bounds (:mod:`lpsched.bags.bounds`) and by the window
relaxation (:func:`window_lower_bound`: buffers free inside each window, ``n·p`` balance
rows instead of ``C·p``), which lands within 0.5 % of the optimum on the balanced family.
Large path searches probe first where a time-aggregated LP runs short of tasks
(:mod:`lpsched.bags.stretch_coarse`, decision 228), and fall back to the lower bound when
that first probe is already feasible.

Each LP is posed in one of two exact formulations (``formulation=``, :func:`choose_formulation`):
the buffer model (K)/(K1) of :mod:`lpsched.bags.stretch_model`, or its path reformulation
solved by column generation (:mod:`lpsched.bags.stretch_paths`: no buffer rows, ~4,300 rows
on balanced 100x20 instead of 204,280; the default offline without a memory bound).
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Hashable
from typing import Any

import numpy as np

from lpsched.bags import stretch_coarse
from lpsched.bags.bounds import relaxation_lower_bound
from lpsched.bags.instance import Instance
from lpsched.bags.steady_state import rates_multiport, rates_oneport
from lpsched.bags.stretch_coarse import CoarseStart
from lpsched.bags.stretch_conditioning import (
    UNITS_BELOW,
    ScaleError,
    check_merge,
    condition,
)
from lpsched.bags.stretch_model import StretchModel, StretchProblem
from lpsched.bags.stretch_paths import (
    PRICE_TOLERANCE,
    PathAnswer,
    PathMaster,
    check_cold_solver,
)
from lpsched.bags.stretch_results import Check, MaxStretchResult, Probe, StretchPlan
from lpsched.core import tolerances
from lpsched.errors import LpschedError, SolverError
from lpsched.models.program import LinearProgram
from lpsched.solvers.highs import HighsModel
from lpsched.solvers.solution import Solution, Status

METHODS = ("intervals", "intervals-lp", "bisection")
#: How each epoch order's LP is posed: ``"buffers"`` the (K)/(K1) model of
#: :mod:`lpsched.bags.stretch_model`, ``"paths"`` its path reformulation by column
#: generation (:mod:`lpsched.bags.stretch_paths`), ``"auto"`` the rule of
#: :func:`choose_formulation`.
FORMULATIONS = ("auto", "buffers", "paths")
#: Iteration cap of Algorithm 1 (halving exhausts any float interval in about 2100 steps).
MAX_BISECTIONS = 2200
#: HiGHS ``simplex_strategy`` values.
DUAL, PRIMAL = 1, 4
#: HiGHS ``simplex_dual_edge_weight_strategy`` values.
CHOOSE, DEVEX = -1, 1
#: HiGHS options of every max-stretch LP: presolve only costs time on these models
#: (measured in benchmarks/RESULTS.md) and is skipped anyway on warm starts.
SEARCH_OPTIONS: dict[str, Any] = {"presolve": "off"}


def check_time_limit(time_limit: float | None) -> float | None:
    """``time_limit`` is ``None`` or ``inf`` (no limit: returns ``None``) or a number of
    seconds ``> 0`` (returned).

    Raises :class:`LpschedError` otherwise: 0, negative values, NaN and non-real numbers
    are mistakes, never "no limit" (decision 238).

    Parameters
    ----------
    time_limit : float or None
        The search's wall-clock budget in seconds.

    Returns
    -------
    float or None
        ``time_limit`` itself, or ``None`` for no limit.
    """
    if time_limit is None:
        return None
    if (isinstance(time_limit, bool) or not isinstance(time_limit, numbers.Real)
            or not time_limit > 0):
        raise LpschedError(f"time_limit must be a number of seconds > 0 (None or inf: no "
                           f"limit), got {time_limit!r}")
    return None if time_limit == math.inf else time_limit


# -- critical values and bounds ---------------------------------------------------------------
def critical_values(problem: StretchProblem, low: float = 1.0,
                    high: float = math.inf) -> np.ndarray:
    """Stretch values in the open interval ``(low, high)`` where two epochs meet (§3.4).

    Epochs are affine in ``S`` (``t = α·S + β``); two with different slopes meet at
    ``S = (β_b − β_a)/(α_a − α_b)``. Offline that is a release meeting a deadline or two
    deadlines crossing; online, ``T_new`` meeting a deadline or two deadlines crossing.
    Values closer than :data:`~lpsched.core.tolerances.CRITICAL_MERGE` (relative) are merged.
    O(n²) time and memory.

    Parameters
    ----------
    problem : StretchProblem
        The offline or online problem (seed 003 §3; its epochs, ``MS*_k`` and ``ρ*``).
    low, high : float
        The open interval of stretches searched (default ``(1, inf)``).

    Returns
    -------
    numpy.ndarray
        The critical values, ascending, merged within the tolerance.
    """
    a, b = problem.epoch_alpha, problem.epoch_beta
    da = a[:, None] - a[None, :]
    db = b[None, :] - b[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        s = db / da
    vals = np.unique(s[(da > 0) & np.isfinite(s)])
    merge = tolerances.CRITICAL_MERGE
    # Strictly inside (low, high) by more than the merge tolerance: a value computed an ulp
    # away from a bound (e.g. T_new meeting the most urgent deadline) is that bound.
    vals = vals[(vals > low * (1 + merge)) & (vals < high * (1 - merge))]
    if vals.size > 1:
        vals = vals[np.concatenate([[True], np.diff(vals) > merge * vals[1:]])]
    return vals


def sequential_stretch(problem: StretchProblem) -> float:
    """A feasible stretch: applications one after another at ``ρ*`` (spec §3.7, §4.1).

    Offline: ``C_k = max(r_k, C_{k-1}) + MS*_k`` in release order (``S_FIFO``), never above
    the corrected ``S_max = Σ MS*/min MS*``. Online: drain every buffer first, then the
    remaining tasks one application at a time, ending at ``T_end``;
    ``S = max_k (T_end − r_k)/MS*_k``.

    Parameters
    ----------
    problem : StretchProblem
        The offline or online problem (seed 003 §3; its epochs, ``MS*_k`` and ``ρ*``).

    Returns
    -------
    float
        An achievable max-stretch: an upper end of every search.
    """
    pr = problem
    if not pr.online:
        order = np.lexsort((np.arange(pr.n), pr.release))
        r, ms = pr.release[order], pr.ms[order]
        done = np.cumsum(ms)
        # C_k = max_{l<=k} (r_l + MS*_l + ... + MS*_k): the last idle gap starts the run
        end = np.maximum.accumulate(r - (done - ms)) + done
        return float(max(1.0, ((end - r) / ms).max()))
    drain = float((pr.buffered * pr.comp).sum(axis=0).max())
    t_new = float(pr.start[0])  # online, every window starts at T_new
    t_end = t_new + drain + float((pr.remaining / pr.rho_star).sum())
    return float(max(1.0, ((t_end - pr.release) / pr.ms).max()))


def online_lower_bound(problem: StretchProblem) -> float:
    """``max(1, max_k (T_new − r_k)/MS*_k)``: below it a deadline falls before ``T_new``.

    Parameters
    ----------
    problem : StretchProblem
        The offline or online problem (seed 003 §3; its epochs, ``MS*_k`` and ``ρ*``).
        Online (``T_new``, the released applications' ``r_k``).

    Returns
    -------
    float
        The lower end of an online search (seed 003 §3.5).
    """
    if not problem.online:
        return 1.0
    return float(max(1.0, ((problem.t_new - problem.release) / problem.ms).max()))


class StretchSearch:
    """LP solves over the stretch axis of one problem, with one live model per interval.

    The axis is cut at ``points = [S_lo, critical values..., S_up]``; interval ``i`` is
    ``[points[i], points[i+1]]`` and has one epoch order, hence one LP structure. A model is
    built the first time an interval is needed and kept, so later questions about the same
    interval (bisection steps, Newton steps, the final min-stretch LP) warm-start HiGHS from
    its last basis. ``warm_start=False`` loads a fresh HiGHS model for every LP (the
    baseline the benchmarks compare with). ``S_lo`` is raised to the single-resource bound of
    :mod:`lpsched.bags.bounds` unless ``relaxation_bound=False``, then (``window_bound``) to
    the window relaxation's by a search of its own (:attr:`window`, ``relaxed=True``: the
    models are :class:`StretchModel` ``relaxed``). With ``relaxation_basis``, the first
    exact model built (the first check, at ``S_lo``) starts from that search's last optimal
    basis when its epoch order and workers are the same
    (:meth:`StretchModel.basis_from_relaxed`: dual feasible, so one dual simplex with Devex
    pricing repairs the buffers; 5-10x fewer iterations, 1.5x less CPU on balanced 20x10).
    Large path searches compute a *coarse start* at construction (``coarse_start``,
    :attr:`coarse`, :mod:`lpsched.bags.stretch_coarse`): the pairs the path master starts
    with, and the critical value :func:`_guided_search` probes first.

    **Worker generation** (``worker_generation=True``, exact): the feasibility LPs are
    first posed on the workers that serve some application in its steady state alone (plus
    those holding buffered tasks). A "yes" on a subset is a "yes" (a plan with zeros
    elsewhere). A "no" is certified by pricing: with the restricted LP's duals on the
    linking rows (totals (3) and the master's port or bandwidth row), each missing worker
    solves its own small LP of reduced profits; ``delivered <= V_W + Σ_v price_v``
    (Lagrangian bound). When that bound still leaves a deficit the answer is "no" (and its
    S-derivative, summed over the blocks, is a valid Newton slope); otherwise the workers
    with a positive price join and the LP is solved again. The models stay n·p·C-sized on
    platforms where a few fast links carry everything.

    **The path formulation** (``formulation="paths"``, :mod:`lpsched.bags.stretch_paths`):
    one :class:`PathMaster` serves every interval (:meth:`master`), its columns and basis
    carried from one epoch order to the next; a check is column generation until the
    master's plan delivers within tolerance, or its Lagrangian bound proves the deficit
    above it (that bound and its S-slope are what the check reports), or no path prices
    out. Worker generation and the relaxation's basis are moot there (every worker is
    priced; there is no buffer-model basis), ``warm_start`` too (the master always stays
    live), and the window bound is off unless asked for (``window_bound=True``: a relaxed
    path master, measured slower on balanced 100x20).

    The LPs see :func:`condition`'s version of ``problem`` (``self.problem``; amounts per
    application when per-task times are tiny, ``self.units``), and :meth:`plan` converts
    back to tasks. ``time_limit`` (seconds, ``None``: none) is the wall-clock budget of the
    whole search, from construction: each LP gets what is left, and the search stops with
    :class:`SolverError` (status ``time_limit``) when it runs out.
    """

    #: An infeasible path check waits until its certified deficit is within this fraction
    #: of the master's own (``None``: the first Lagrangian proof stops, all a bare verdict
    #: needs; :func:`_guided_search` sets :data:`GUIDED_GAP` on its search).
    infeasible_gap: float | None = None

    def __init__(self, problem: StretchProblem, time_limit: float | None = 120.0,
                 relaxation_bound: bool = True, warm_start: bool = True,
                 worker_generation: bool = True, window_bound: bool | None = None,
                 relaxed: bool = False, relaxation_basis: bool = True,
                 formulation: str = "auto", coarse_start: bool | None = None,
                 first_solve: str | None = None, **highs_options: Any) -> None:
        time_limit = check_time_limit(time_limit)
        #: how the path master's first solve runs (``first_solve``; ``"simplex"`` or
        #: ``"ipm"``, :func:`~lpsched.bags.stretch_paths.check_cold_solver`)
        self.first_solve = check_cold_solver(first_solve)
        self.relaxed = relaxed
        self.time_limit = time_limit
        self.deadline = None if time_limit is None else time.monotonic() + time_limit
        conditioned = condition(problem)
        self.original = conditioned.original
        self.units = conditioned.units
        #: ``"buffers"`` or ``"paths"``: how this search poses its LPs (``formulation``
        #: resolved by :func:`choose_formulation`).
        self.formulation = choose_formulation(problem, formulation,
                                              units=conditioned.units is not None)
        self.paths = self.formulation == "paths"
        if self.paths:  # paths price every worker, and no buffer-model basis to carry
            worker_generation = relaxation_basis = False
        if window_bound is None:  # the default: on for buffers, off for paths (measured)
            window_bound = not self.paths
        #: Column generation of the path masters: master solves and columns generated.
        self.column_rounds = 0
        self.columns = 0
        self._master: PathMaster | None = None
        problem = conditioned.problem
        self.problem = problem
        self.warm_start = warm_start
        self.highs_options = {**SEARCH_OPTIONS, **highs_options}
        self.low = online_lower_bound(problem)
        trivial = self.low
        if relaxation_bound:
            self.low = relaxation_lower_bound(problem, self.low, self.deadline)
        self.high = max(sequential_stretch(problem), self.low)
        #: The window relaxation's search (issue 13), when it ran: its LPs are counted
        #: apart (:attr:`relaxation_solves`).
        self.window: StretchSearch | None = None
        if (relaxation_bound and window_bound and not relaxed
                and self.high > self.low * (1 + 1e-9)):
            self.window = StretchSearch(
                conditioned.original, time_limit=None if self.deadline is None else max(
                    1e-3, self.deadline - time.monotonic()), relaxation_bound=relaxation_bound,
                warm_start=warm_start, worker_generation=worker_generation, relaxed=True,
                formulation=self.formulation, first_solve=self.first_solve, **highs_options)
            self.low = max(self.low, min(window_lower_bound(self.window), self.high))
        #: The relaxation's last optimal basis, to start the first exact model from
        #: (:meth:`StretchModel.basis_from_relaxed`; ``relaxation_basis``).
        self._seed: tuple[StretchModel, np.ndarray, np.ndarray] | None = None
        self._seeded: set[Hashable] = set()
        seed_workers = self._relaxation_seed() if relaxation_basis else None
        #: True when the relaxations raised the lower bound above the trivial one.
        self.bound_is_informative = self.low > trivial * (1 + 1e-9)
        crit = critical_values(problem, self.low, self.high)
        self.points = np.unique(np.concatenate([[self.low], crit, [self.high]]))
        self.n_critical = int(crit.size)
        self.all_workers: tuple[int, ...] = tuple(range(problem.p))
        self.workers = (initial_workers(problem) if worker_generation else self.all_workers)
        if seed_workers is not None:  # the relaxation's workers (a superset: same start)
            self.workers = tuple(sorted(set(self.workers) | set(seed_workers)))
        self.models: dict[Hashable, tuple[Any, HighsModel | None]] = {}
        self.probes: list[Probe] = []
        w = self.window
        if w is not None and w.paths:
            self.column_rounds, self.columns = w.column_rounds, w.columns
        self.highs_seconds: float = 0.0 if w is None else w.highs_seconds
        self.build_seconds: float = 0.0 if w is None else w.build_seconds
        self.iterations: int = 0 if w is None else w.iterations
        self.last_feasible: Check | None = None
        self.checks: dict[tuple[float, Hashable], Check] = {}
        #: The coarse start of large offline path searches (decision 228): the critical
        #: value probed first and the pairs the master starts with; ``None`` otherwise.
        self.coarse = self._coarse_start(coarse_start, relaxed)

    def _relaxation_seed(self) -> tuple[int, ...] | None:
        """Keep the window relaxation's last feasible basis in ``_seed`` (when it has one)
        and return that probe's workers; ``None`` when there is no such basis."""
        last = None if self.window is None else self.window.last_feasible
        if self.window is None or last is None:
            return None
        rmodel, rhighs = self.window.models[last.model_key]
        if rhighs is None:
            return None
        self._seed = (rmodel, *rhighs.basis())
        return last.workers

    def _coarse_start(self, wanted: bool | None, relaxed: bool) -> CoarseStart | None:
        """:func:`~lpsched.bags.stretch_coarse.coarse_start` when ``wanted`` (``None``:
        :func:`use_coarse`) on an exact path search without held tasks, else ``None``."""
        problem = self.problem
        if wanted is None:
            wanted = use_coarse(problem)
        if not wanted or not self.paths or relaxed or (problem.buffered > 0).any():
            return None
        start = stretch_coarse.coarse_start(problem, self.points, self.delivery_tolerance,
                                            lambda: self.time_left("the coarse LP"))
        self.highs_seconds += start.seconds
        return start

    @property
    def delivery_tolerance(self) -> float:
        """Deficit (tasks) under which a stretch counts as feasible (as every model's)."""
        pr = self.problem
        return tolerances.DELIVERY * max(1.0, float(pr.remaining.sum() + pr.buffered.sum()))

    @property
    def n_intervals(self) -> int:
        """Number of intervals of the stretch axis (at least 1): ``len(points) - 1``."""
        return max(1, self.points.size - 1)

    @property
    def workers_used(self) -> int:
        """Workers the exact LPs were posed on: the worker set of worker generation, or
        under the path formulation the workers with a path in the master."""
        if self.paths and self._master is not None:
            return int(np.unique(self._master.col_u).size)
        return len(self.workers)

    @property
    def lp_solves(self) -> int:
        """LPs of the exact model solved so far (every probe but the one-worker pricing LPs)."""
        return sum(p.kind != "pricing" for p in self.probes)

    @property
    def pricing_solves(self) -> int:
        """One-worker pricing LPs solved so far by worker generation."""
        return sum(p.kind == "pricing" for p in self.probes)

    @property
    def coarse_solves(self) -> int:
        """Coarse LP solves that chose the start (:attr:`coarse`; each column-generation
        round of the fine coarse LP counts as one)."""
        return 0 if self.coarse is None else self.coarse.solves

    @property
    def relaxation_solves(self) -> int:
        """LPs solved by the window relaxation's search (:attr:`window`), its one-worker
        pricing LPs included."""
        return 0 if self.window is None else len(self.window.probes)

    def interval_of(self, stretch: float) -> int:
        """Index ``i`` with ``points[i] < stretch <= points[i+1]`` (clamped to the axis).

        Parameters
        ----------
        stretch : float
            A stretch value.

        Returns
        -------
        int
            The interval's index on the search's axis of critical values.
        """
        i = int(np.searchsorted(self.points, stretch, side="left")) - 1
        return min(max(i, 0), self.n_intervals - 1)

    def _interval(self, i: int) -> tuple[float, float]:
        if self.points.size == 1:
            return float(self.points[0]), float(self.points[0])
        return float(self.points[i]), float(self.points[i + 1])

    def key_of(self, stretch: float) -> Hashable:
        """The model key for ``stretch``: its interval on the axis, or, outside
        ``[S_lo, S_up]``, the epoch order at ``stretch`` itself.

        Parameters
        ----------
        stretch : float
            A stretch value.

        Returns
        -------
        Hashable
            An interval index, or ``("order", epochs)`` outside the axis.
        """
        if self.points[0] <= stretch <= self.points[-1]:
            return self.interval_of(stretch)
        return ("order", tuple(int(e) for e in self.problem.order_at(stretch)))

    def order_of(self, i: Hashable) -> np.ndarray:
        """The epoch order (an array of epoch indices) of model key ``i``: the one stored in an
        ``("order", epochs)`` key, or the order at the middle of interval ``i``.

        Parameters
        ----------
        i : Hashable
            A model key (:meth:`key_of`).

        Returns
        -------
        numpy.ndarray
            The epochs' indices in time order (seed 003 §3.4's epoch ordering).
        """
        if isinstance(i, tuple):
            return np.array(i[1])
        if not isinstance(i, (int, np.integer)):
            raise LpschedError(f"model key {i!r}: an interval index or ('order', epochs)")
        lo, hi = self._interval(int(i))
        return self.problem.order_at(0.5 * (lo + hi) if hi > lo else lo)

    def model(self, i: Hashable, workers: tuple[int, ...] | None = None,
              ) -> tuple[StretchModel, HighsModel]:
        """The live model of interval key ``i`` on ``workers`` (default: all).

        Parameters
        ----------
        i : Hashable
            A model key (:meth:`key_of`).
        workers : tuple of int, optional
            Indices of the workers posed (worker generation); default every worker.

        Returns
        -------
        tuple of (StretchModel, HighsModel)
            The (K)/(K1) model of that epoch order (seed 003 §3.3, (12)-(20)) and its live
            HiGHS copy, built on first use and kept for warm starts.
        """
        workers = self.all_workers if workers is None else workers
        key = (i, workers)
        cached = self.models.get(key)
        if cached is not None and cached[1] is not None and self.warm_start:
            return cached[0], cached[1]
        t0 = time.perf_counter()
        if cached is None:
            problem = (self.problem if workers == self.all_workers
                       else self.problem.restrict(np.array(workers)))
            model = StretchModel(problem, self.order_of(i), relaxed=self.relaxed)
        else:
            model = cached[0]
        highs = HighsModel(model.lp, **self.highs_options)
        if cached is None and self._seed is not None:
            basis = model.basis_from_relaxed(*self._seed)
            if basis is not None:
                highs.set_basis(*basis)
                self._seeded.add(key)
                self._seed = None
        self.build_seconds += time.perf_counter() - t0
        self.models[key] = (model, highs)
        return model, highs

    def time_left(self, what: str) -> float | None:
        """Seconds left of the search's budget (``None``: unlimited); raises
        :class:`SolverError` when it has run out, before ``what`` starts.

        Parameters
        ----------
        what : str
            The step about to start, named in the error.

        Returns
        -------
        float or None
            Seconds left (``None``: no limit).
        """
        if self.deadline is None:
            return None
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise SolverError(
                f"{what}: the time limit of {self.time_limit:g} s ran out (status time_limit) "
                f"after {self.lp_solves} LPs; allow more time (--time-limit or time_limit=)",
                status=Status.TIME_LIMIT)
        return left

    def _run(self, highs: HighsModel, what: str, started: bool = False) -> Solution:
        """Solve, check the status and the primal residual; a warm solve whose answer
        violates a constraint (a basis carried through many bound changes can drift just
        past the 1e-6 check; ``started``: a first solve from a given basis) is solved once
        more from scratch before giving up."""
        for attempt in range(2):
            sol = highs.solve(self.time_left(what))
            self.highs_seconds += sol.solve_seconds
            self.iterations += sol.iterations
            sol.require_optimal(what)
            if sol.residual <= 1e-6:
                return sol
            if attempt or (highs.solves < 2 and not started):
                break
            highs.restart()
            highs.set_option("simplex_strategy", PRIMAL)
        raise SolverError(f"{what}: HiGHS answer violates a constraint by {sol.residual:.3g}")

    def _apply(self, highs: HighsModel, bounds: dict[str, tuple[np.ndarray, ...]]) -> None:
        highs.set_col_bounds(*bounds["cols"])
        highs.set_row_bounds(*bounds["rows"])

    def _deliver(self, stretch: float, i: Hashable,
                 workers: tuple[int, ...]) -> tuple[StretchModel, Solution]:
        model, highs = self.model(i, workers)
        self._apply(highs, model.deliver_bounds(stretch))
        highs.set_costs(model.deliver_cost, "max")
        # Cold: sending nothing is feasible, so primal simplex starts in phase 2. Warm (only
        # the stretch moved, i.e. right-hand sides): the old basis stays dual feasible.
        seeded = highs.solves == 0 and (i, workers) in self._seeded
        highs.set_option("simplex_strategy", PRIMAL if highs.solves == 0 and not seeded
                         else DUAL)
        if seeded:  # dual feasible start (basis_from_relaxed): Devex, no DSE weights to
            # compute from scratch (2x fewer seconds per iteration on balanced 20x10)
            highs.set_option("simplex_dual_edge_weight_strategy", DEVEX)
        sol = self._run(highs, f"feasibility LP at S={stretch:.9g}", started=seeded)
        if seeded:
            highs.set_option("simplex_dual_edge_weight_strategy", CHOOSE)
        return model, sol

    def _prices(self, stretch: float, i: Hashable, model: StretchModel,
                sol: Solution) -> dict[int, tuple[float, float]]:
        """``{worker: (price, d price/dS)}`` for every worker outside the model."""
        tasks_dual = sol.duals["tasks"]
        port_dual = None if model.port_rows is None else sol.duals[
            "port" if "port" in sol.duals else "master"]
        out: dict[int, tuple[float, float]] = {}
        inside = set(int(w) for w in model.problem.worker_ids)
        for v in self.all_workers:
            if v in inside:
                continue
            pricing, highs = self.model(i, (v,))
            self._apply(highs, pricing.pricing_bounds(stretch))
            highs.set_costs(pricing.pricing_cost(tasks_dual, port_dual), "max")
            highs.set_option("simplex_strategy", PRIMAL)
            psol = self._run(highs, f"pricing LP of worker {v} at S={stretch:.9g}")
            slope = float(psol.reduced_costs["stretch"][0]) if psol.reduced_costs else 0.0
            out[v] = (max(0.0, float(psol.objective)), slope)
            self.probes.append(Probe("pricing", stretch, stretch, True, out[v][0],
                                     psol.solve_seconds, psol.iterations))
        return out

    def check(self, stretch: float, i: Hashable | None = None) -> Check:
        """Is ``stretch`` achievable? Solves the always-feasible deliver LP.

        Returns the verdict, the deficit (tasks short: the fewest tasks undelivered under the
        buffer formulation or with held tasks, the uniform shortfall ``(1 - λ)·Σ r_k`` of
        an offline path check, decision 229; for a "no", a certified lower bound of it)
        and a slope ``dD/dS`` of a convex minorant of the deficit inside the interval
        (from the reduced cost of the fixed stretch column: right-hand sides are
        affine in ``S``). ``i`` picks the interval whose epoch order is used: either side of
        a critical value is valid at the value itself; default: below.

        Parameters
        ----------
        stretch : float
            The stretch asked (seed 003 §3.4: is (K)/(K1) nonempty at ``S``?).
        i : Hashable, optional
            The model key whose epoch order is used (default: the interval below ``stretch``).

        Returns
        -------
        Check
            The verdict, deficit (tasks), slope, interval, solution and the workers posed.
        """
        i = self.key_of(stretch) if i is None else i
        if self.paths:
            return self._check_paths(stretch, i)
        total = float(self.problem.remaining.sum())
        for _ in range(self.problem.p + 1):  # each round adds a worker, or ends
            workers = self.workers
            model, sol = self._deliver(stretch, i, workers)
            deficit = total - float(sol.objective)
            slope = -float(sol.reduced_costs["stretch"][0]) if sol.reduced_costs else math.nan
            tol = model.delivery_tolerance
            ok = deficit <= tol
            if ok or workers == self.all_workers:
                break
            prices = self._prices(stretch, i, model, sol)
            bound = deficit - sum(p for p, _ in prices.values())
            if bound > tol:  # certified: even every missing worker cannot close the gap
                deficit = bound
                slope -= sum(d for _, d in prices.values())
                break
            floor = 1e-12 * max(1.0, total)
            join = [v for v, (p, _) in prices.items() if p > floor] or [
                max(prices, key=lambda v: prices[v][0])]
            self.workers = tuple(sorted(set(workers) | set(join)))
        else:  # pragma: no cover - the worker set grows every round
            raise SolverError(f"worker generation at S={stretch:.9g} did not settle")
        self.probes.append(Probe("feasibility", stretch, stretch, bool(ok), deficit,
                                 sol.solve_seconds, sol.iterations))
        result = Check(stretch, bool(ok), deficit, slope, i, sol.x, (i, workers), workers)
        self.checks[(stretch, i)] = result
        if ok:
            self.last_feasible = result
        return result

    # -- the path formulation (issue 13) -------------------------------------------------
    def master(self, i: Hashable) -> PathMaster:
        """The search's path master, set to the epoch order of interval key ``i``.

        One master serves every epoch order (:meth:`PathMaster.set_order`: its rows are
        interval positions, a path keeps its coefficients, only the stretch column, the
        capacity bounds and which paths lie inside the windows change), so the basis and
        the columns carry over from one interval to the next. Built the first time from the
        window relaxation's paths that keep ``j <= j'`` and the same-interval paths
        (:meth:`PathMaster.seed`). Each key gets a :class:`_PathView` in :attr:`models`
        that reads plans in its own order.

        Parameters
        ----------
        i : Hashable
            A model key (:meth:`key_of`).

        Returns
        -------
        PathMaster
            The path master (:mod:`lpsched.bags.stretch_paths`), in the epoch order of ``i``.
        """
        key = (i, self.all_workers)
        order = self.order_of(i)
        t0 = time.perf_counter()
        if self._master is None:
            self._master = PathMaster(self.problem, order, relaxed=self.relaxed,
                                      cold_solver=self.first_solve, **self.highs_options)
            donor = None if self.window is None else self.window._master
            if donor is not None and donor.col_k.size:
                self._master.add_columns(*donor.columns())
            self._master.seed(_seed_pairs(self.problem) if self.coarse is None
                              else self.coarse.pairs)
        else:
            self._master.set_order(order)
        if key not in self.models:
            self.models[key] = (_PathView(self._master, order), None)
        self.build_seconds += time.perf_counter() - t0
        return self._master

    def _count(self, ans: PathAnswer) -> None:
        self.highs_seconds += ans.seconds
        self.iterations += ans.iterations
        self.column_rounds += ans.rounds
        self.columns += ans.added

    def _check_paths(self, stretch: float, i: Hashable) -> Check:
        """:meth:`check` on the path master of ``i``: column generation until the master's
        plan delivers within tolerance (feasible), the Lagrangian bound proves the deficit
        above it (infeasible: that bound is the deficit reported, and its slope in ``S`` is
        the stretch column's reduced cost), or no column prices out. Offline, the deficit is
        the uniform shortfall ``(1 - λ)·Σ r_k`` of the fraction question (decision 229),
        not the fewest tasks undelivered: same verdict, longer tangent steps. The gap of
        an infeasible verdict is :attr:`infeasible_gap`."""
        master = self.master(i)
        total = float(self.problem.remaining.sum())
        tol = self.delivery_tolerance
        ans = master.deliver(stretch, tol, lambda: self.time_left(
            f"feasibility LP at S={stretch:.9g}"), gap=self.infeasible_gap)
        self._count(ans)
        deficit = total - ans.objective
        ok = deficit <= tol
        if not ok:
            deficit = deficit if ans.max_gain <= PRICE_TOLERANCE else total - ans.bound
        slope = -ans.stretch_rc
        self.probes.append(Probe("feasibility", stretch, stretch, bool(ok), deficit,
                                 ans.seconds, ans.iterations))
        key = (i, self.all_workers)
        result = Check(stretch, bool(ok), deficit, slope, i, ans.x, key, self.all_workers)
        self.checks[(stretch, i)] = result
        if ok:
            self.last_feasible = result
        return result

    def feasible(self, stretch: float, i: Hashable | None = None) -> tuple[bool, float]:
        """``(verdict, deficit)`` of :meth:`check`.

        Parameters
        ----------
        stretch : float
            The stretch asked.
        i : Hashable, optional
            The model key whose epoch order is used (as in :meth:`check`).

        Returns
        -------
        tuple of (bool, float)
            Whether ``stretch`` is achievable, and the deficit in tasks.
        """
        c = self.check(stretch, i)
        return c.feasible, c.deficit

    def minimize(self, i: int) -> tuple[float, np.ndarray, Hashable]:
        """The stretch-interval LP (12)–(20) on interval ``i`` (all workers); returns
        ``(S, x, model key)``. Call only on an interval whose upper end is known (or proven by
        construction) to be feasible, so the LP has a solution.

        Parameters
        ----------
        i : int
            The interval's index on the axis.

        Returns
        -------
        tuple of (float, numpy.ndarray, Hashable)
            The least stretch of the interval (seed 003 (12)-(20), Algorithm 2's final LP),
            the LP's solution and the key of the model that holds it.
        """
        lo, hi = self._interval(i)
        if self.paths:
            if not self.check(hi, i).feasible:
                raise SolverError(f"stretch-interval LP on [{lo:.9g}, {hi:.9g}]: its upper "
                                  "end is infeasible")
            master = self.master(i)
            need = float(self.problem.remaining.sum()) - self.delivery_tolerance
            ans = master.min_stretch(lo, hi, need, lambda: self.time_left(
                f"stretch-interval LP on [{lo:.9g}, {hi:.9g}]"))
            self._count(ans)
            value = float(np.clip(ans.x[0], lo, hi))
            self.probes.append(Probe("interval", lo, hi, True, value, ans.seconds,
                                     ans.iterations))
            return value, ans.x, (i, self.all_workers)
        model, highs = self.model(i)
        self._apply(highs, model.stretch_bounds(lo, hi))
        highs.set_costs(model.min_stretch_cost(), "min")
        highs.set_option("simplex_strategy", DUAL)
        sol = self._run(highs, f"stretch-interval LP on [{lo:.9g}, {hi:.9g}]")
        value = float(np.clip(sol.x[model.stretch[0]], lo, hi))
        self.probes.append(Probe("interval", lo, hi, True, value, sol.solve_seconds,
                                 sol.iterations))
        return value, sol.x, (i, self.all_workers)

    def plan(self, stretch: float, key: Hashable, x: np.ndarray) -> StretchPlan:
        """The plan of solution ``x`` of model ``key``, on every worker of the problem.

        Parameters
        ----------
        stretch : float
            The plan's stretch.
        key : Hashable
            The model key whose solution ``x`` is.
        x : numpy.ndarray
            That model's primal solution.

        Returns
        -------
        StretchPlan
            Amounts per interval of seed 003 §3.3 (communications, computations, buffers) on
            every worker, in the instance's units (the conditioning undone).
        """
        model, _ = self.models[key]
        pr = self.problem
        arrays = model.plan_arrays(x)
        cols = np.asarray(model.problem.worker_ids)
        p = self.original.p
        if cols.size != p:
            for name, arr in arrays.items():
                full = np.zeros((arr.shape[0], p, arr.shape[2]))
                full[:, cols, :] = arr
                arrays[name] = full
        if self.units is not None:  # amounts per application -> tasks
            arrays = {name: arr * self.units[:, None, None] for name, arr in arrays.items()}
        times = pr.epoch_times(stretch)[model.order]
        times = np.maximum.accumulate(times)  # exact ties may differ by an ulp
        orig = self.original
        return StretchPlan(
            stretch=stretch, epochs=times, deadlines=pr.deadlines(stretch),
            start=np.asarray(pr.start, float), remaining=orig.remaining.copy(),
            buffered=orig.buffered.copy(), apps=pr.apps.copy(), port=pr.port,
            t_new=pr.t_new, **arrays)

    def interval_lp_at(self, stretch: float) -> LinearProgram:
        """A fresh copy of the min-stretch LP of the interval containing ``stretch`` (of the
        conditioned problem: with :attr:`units`, amounts count whole applications).

        Parameters
        ----------
        stretch : float
            A stretch inside the interval.

        Returns
        -------
        LinearProgram
            The LP (12)-(20) of seed 003 §3.4 on that interval, to read, export or re-solve.
        """
        i = self.interval_of(stretch)
        lo, hi = self._interval(i)
        model = StretchModel(self.problem, self.order_of(i))
        model.apply_bounds(model.stretch_bounds(lo, hi))
        rem = self.problem.remaining
        model.lp.set_row_bounds(model.tasks_rows, rem, rem)  # (12) exactly, for other solvers
        model.lp.set_row_bounds(model.delivered_row, -np.inf, np.inf)
        cost = model.min_stretch_cost()
        model.lp.sense = "min"
        model.lp.set_objective(np.flatnonzero(cost), cost[cost != 0])
        return model.lp

    def lp_size(self, key: Hashable) -> dict[str, int]:
        """Columns, rows and nonzeros of the LP of the model stored under ``key`` (the
        ``lp_size`` of :class:`MaxStretchResult`).

        Parameters
        ----------
        key : Hashable
            A model key.

        Returns
        -------
        dict of str to int
            ``columns``, ``rows`` and ``nonzeros``.
        """
        model = self.models[key][0]
        if isinstance(model, _PathView):
            return model.size()
        lp = model.lp
        return {"columns": lp.num_cols, "rows": lp.num_rows, "nonzeros": lp.num_nonzeros}


def choose_formulation(problem: StretchProblem, formulation: str = "auto",
                       units: bool = False) -> str:
    """``"buffers"`` or ``"paths"``: how the LPs of ``problem`` are posed (issue 13).

    Parameters
    ----------
    problem : StretchProblem
        The problem to solve.
    formulation : str
        ``"buffers"`` (the (K)/(K1) model of :mod:`lpsched.bags.stretch_model`),
        ``"paths"`` (its path reformulation, :mod:`lpsched.bags.stretch_paths`) or
        ``"auto"``.
    units : bool
        Whether :func:`condition` counts this problem's amounts in whole applications
        (per-task times below :data:`UNITS_BELOW` of the horizon).

    Returns
    -------
    str
        ``formulation`` itself, or for ``"auto"``: ``"paths"`` for an offline problem
        without a memory bound whose amounts are counted in tasks, ``"buffers"`` otherwise.
        Paths have no memory rows (a memory bound couples all buffers); online (CBS3M's
        re-solves) and per-application units keep the buffer model, the first because the
        plans are not unique and CBS3M's schedules follow them, the second because its
        capacity rows of ~1e-9 (normalised time) are within HiGHS' feasibility tolerance
        and the path master has been seen to use that slack where the buffer model does not.

    Raises
    ------
    LpschedError
        For an unknown ``formulation``, or ``"paths"`` with a memory bound or on a problem
        counted per application (``units``).

    Examples
    --------
    >>> from lpsched.bags import random_bags
    >>> pr = StretchProblem.offline(random_bags(3, 2, seed=0))
    >>> choose_formulation(pr), choose_formulation(pr, "buffers")
    ('paths', 'buffers')
    """
    if formulation not in FORMULATIONS:
        raise LpschedError(f"unknown formulation {formulation!r}; choose one of "
                           f"{FORMULATIONS}")
    if formulation == "auto":
        return ("buffers" if problem.memory is not None or problem.online or units
                else "paths")
    if formulation == "paths" and problem.memory is not None:
        raise LpschedError("formulation='paths' has no memory rows (a memory bound couples "
                           "the applications' buffers); use formulation='buffers' or 'auto'")
    if formulation == "paths" and units:
        raise LpschedError("the path formulation is not used when per-task times are below "
                           f"{UNITS_BELOW:g} of the horizon (amounts per application): its "
                           "capacity rows then sit within HiGHS' feasibility tolerance and "
                           "it can miss the optimum; use the buffer formulation "
                           "(formulation='buffers' or 'auto'; --formulation buffers)")
    return formulation


#: Which (application, worker) pairs get same-interval seed paths without a coarse start:
#: ``"all"`` or ``"steady"`` (those serving the application in its steady state alone).
SEED_PAIRS = "steady"
#: Offline path searches whose ``applications x workers x intervals`` exceeds this start
#: from the coarse LP (:mod:`lpsched.bags.stretch_coarse`, decision 228): 398k on balanced
#: 100x20, 7.8k on balanced 20x10 (where the coarse LPs would cost more than they save).
COARSE_ABOVE = 100_000


def use_coarse(problem: StretchProblem) -> bool:
    """Whether a path search on ``problem`` starts from the coarse LP by default: no held
    tasks (the coarse LP ignores them, so an online re-solve uses it only before any task
    is held) and ``n·p·J`` (``J`` intervals between the ``2n`` epochs) above
    :data:`COARSE_ABOVE`.

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


#: :attr:`StretchSearch.infeasible_gap` of the tangent-guided search
#: (:func:`_guided_search`), whose steps are only as long as the certified deficit is large
#: (decision 229). Exploration runs, with the fraction checks: balanced 20x10 takes 4 checks
#: instead of 6 (median; 0.037 -> 0.034 s), and 100x20 the same time with fewer, longer
#: checks (2.23 -> 2.21 s median over 15 seeds).
GUIDED_GAP: float | None = 0.3


def _seed_pairs(problem: StretchProblem) -> np.ndarray | None:
    if SEED_PAIRS == "all":
        return None
    if problem.port == "one-port":
        rates = rates_oneport(problem.comp, problem.comm)
    else:
        rates = rates_multiport(problem.comp, problem.comm, problem.size,
                                problem.master_bandwidth)
    return (rates > 0) | (problem.buffered > 0)


class _PathView:
    """What :class:`StretchSearch` keeps per model key under the path formulation: the
    shared :class:`PathMaster` seen in one epoch order (``problem``, ``order``,
    :meth:`plan_arrays`, :meth:`size`, as a :class:`StretchModel` offers them)."""

    def __init__(self, master: PathMaster, order: np.ndarray) -> None:
        self.master = master
        self.problem = master.problem
        self.order = np.asarray(order).copy()

    def plan_arrays(self, x: np.ndarray) -> dict[str, np.ndarray]:
        """The plan of master solution ``x`` taken in this view's order."""
        return self.master.plan_arrays(x, self.order)

    def size(self) -> dict[str, int]:
        """The shared master's size now."""
        return self.master.size()


def initial_workers(problem: StretchProblem) -> tuple[int, ...]:
    """Workers that serve some application in its steady state alone, or hold its tasks.

    Parameters
    ----------
    problem : StretchProblem
        The offline or online problem (seed 003 §3; its epochs, ``MS*_k`` and ``ρ*``).

    Returns
    -------
    tuple of int
        The workers the first feasibility LPs pose (worker generation prices the others).
    """
    if problem.port == "one-port":
        rates = rates_oneport(problem.comp, problem.comm)
    else:
        rates = rates_multiport(problem.comp, problem.comm, problem.size,
                                problem.master_bandwidth)
    used = (rates > 0).any(axis=0) | (problem.buffered > 0).any(axis=0)
    return tuple(int(u) for u in np.flatnonzero(used)) or tuple(range(problem.p))


# -- the two algorithms -----------------------------------------------------------------------
def window_lower_bound(relaxed: StretchSearch) -> float:
    """The least stretch the window relaxation cannot rule out (issue 13), by the same
    tangent-guided search as the exact problem: a lower bound of the optimum, since every
    plan of (K)/(K1) is a point of the relaxation. ``relaxed`` is a ``StretchSearch`` with
    ``relaxed=True``; its lower end if its search meets numerical trouble.

    Parameters
    ----------
    relaxed : StretchSearch
        A search built with ``relaxed=True`` on the same problem.

    Returns
    -------
    float
        A lower bound of the optimal max-stretch (seed 003 §3's (K)/(K1)).
    """
    try:
        return _guided_search(relaxed)[1]
    except SolverError as err:
        if err.status is Status.TIME_LIMIT:
            raise
        return float(relaxed.points[0])


def _bracket(search: StretchSearch) -> int:
    """Binary search over the critical values (Algorithm 2's outer loop, Theorem 8).

    Returns ``lo`` such that the optimum lies in ``[points[lo], points[lo+1]]``: the upper
    end is feasible (``S_up`` by construction, or checked), the lower end is infeasible or is
    the lower bound. Each step is one feasibility LP at a critical value, posed in the epoch
    order of the interval *above* it, so that when the value is infeasible the deficit's
    tangent (a lower bound inside that interval, by convexity) can rule the whole interval
    out, and the final Newton steps start from that very check.
    """
    lo, hi = 0, search.n_intervals
    while hi - lo > 1:
        mid = (lo + hi) // 2
        c = search.check(float(search.points[mid]), mid)
        if c.feasible:
            hi = mid
        elif c.slope < 0 and c.stretch - c.deficit / c.slope > search.points[mid + 1]:
            lo = min(mid + 1, hi - 1)  # points[hi] is feasible: the root is at most there
        else:
            lo = mid
    return lo


def _tangent(c: Check, level: float = 0.0) -> float:
    """Where the tangent of the deficit at ``c`` falls to ``level`` tasks (``inf`` if never):
    inside ``c``'s interval no stretch below it has a deficit of at most ``level``."""
    return c.stretch - (c.deficit - level) / c.slope if c.slope < 0 else math.inf


def _newton_in(search: StretchSearch, i: int, c: Check,
               lower: float) -> tuple[Check | None, float]:
    """Newton steps on the deficit inside interval ``i`` from the infeasible check ``c``.

    ``D`` is convex and piecewise linear inside the interval, so the tangent's root is a
    lower bound of the least feasible stretch there and the iterates climb to it (the step
    landing in the last piece hits it exactly). Returns ``(accepting check, lower bound)``,
    or ``(None, lower)`` when the interval holds no feasible stretch: the tangent stays above
    the delivery tolerance up to the interval's end, or its upper end is infeasible.
    """
    _, hi = search._interval(i)
    tol = search.delivery_tolerance
    for _ in range(200):
        if c.feasible:
            return c, min(lower, c.stretch)
        reach = _tangent(c, tol)
        if reach > hi or c.stretch >= hi:
            return None, max(lower, hi)
        lower = max(lower, reach)
        nxt = min(_tangent(c), hi)
        if nxt <= c.stretch * (1 + 4 * np.finfo(float).eps):
            nxt = hi
        c = search.check(nxt, i)
    raise SolverError(f"no convergence in stretch interval {search._interval(i)}")


def _aim(points: np.ndarray, tangent: float) -> int:
    """Index of the critical value at or below the tangent's root (the next probe)."""
    return int(np.searchsorted(points, tangent, side="right")) - 1


def _guided_search(search: StretchSearch) -> tuple[float, float, Check]:
    """Algorithm 2 with the deficit's tangent choosing the next critical value (issue 13).

    Invariants of :func:`_bracket`: everything below the current infeasible check ``c``
    (posed in interval ``lo``) is infeasible (monotonicity), ``points[hi]`` is feasible.
    When ``c``'s tangent leaves its interval, that interval is ruled out and the next probe
    is the critical value below the tangent's root (``D`` is nearly convex across
    intervals, so this lands at or just below the optimum's interval; after a probe that
    overshoots, plain halving takes over). When the tangent stays inside, Newton steps
    finish in that interval (:func:`_newton_in`), all on one warm model. Exact like
    Algorithm 2; every verdict is one feasibility LP. With a coarse start
    (:attr:`StretchSearch.coarse`, decision 228) the first probe is the critical value it
    names instead of ``points[0]``: infeasible there, it is the first ``lo``; feasible,
    it becomes ``hi`` and the search starts from ``points[0]`` as without it. Its
    infeasible checks wait for a certified deficit within :data:`GUIDED_GAP` of the
    master's (:attr:`StretchSearch.infeasible_gap`, decision 229), so tangent steps are
    long.
    """
    pts = search.points
    search.infeasible_gap = GUIDED_GAP
    lo, hi, guided = 0, search.n_intervals, True
    start = 0 if search.coarse is None else search.coarse.index
    c = search.check(float(pts[start]), start)
    if start and c.feasible:  # the coarse start overshot: the optimum is below it
        hi, c = start, search.check(float(pts[0]), 0)
    elif start:
        lo = start
    lower = float(pts[lo])
    while True:
        _, top = search._interval(lo)
        if c.feasible or _tangent(c, search.delivery_tolerance) <= top or hi - lo == 1:
            found, lower = _newton_in(search, lo, c, lower)
            if found is not None:
                return found.stretch, lower, found
            if lo + 1 >= search.n_intervals:
                raise SolverError(f"the upper bound S={top:.9g} was found infeasible "
                                  f"(deficit {c.deficit:.3g} tasks); numerical trouble")
            lo += 1
            hi = max(hi, lo + 1)
            at = float(pts[lo])  # checked already when it was a feasible probe
            c, guided = search.checks.get((at, lo)) or search.check(at, lo), True
            continue
        m = min(max(_aim(pts, _tangent(c)) if guided else (lo + hi) // 2, lo + 1), hi - 1)
        probe = search.check(float(pts[m]), m)
        if probe.feasible:
            hi, guided = m, False
        else:
            lo, c, guided = m, probe, True
            lower = max(lower, probe.stretch)


def _search_intervals(search: StretchSearch,
                      final: str) -> tuple[float, float, Hashable, np.ndarray]:
    """Algorithm 2: bracket the optimum between critical values, then solve inside.

    ``final="newton"``: :func:`_guided_search` (the tangent picks the critical values,
    Newton steps finish, exact). ``final="lp"``: :func:`_bracket`, then the stretch-interval
    LP (12)–(20) on the bracket (Theorem 7). If that LP lands on the bracket's lower end
    (only after a borderline verdict), the interval below is solved as well, as
    Algorithm 2's ``U ← M`` branch does.
    """
    if final == "newton":
        stretch, lower, c = _guided_search(search)
        return stretch, lower, c.model_key, c.x
    i = _bracket(search)
    value, x, key = search.minimize(i)
    while i > 0 and value <= search.points[i] + tolerances.STRETCH_EQUAL * max(1.0, value):
        if not search.check(float(search.points[i]), i - 1).feasible:
            break
        i -= 1
        value, x, key = search.minimize(i)
    return value, value, key, x


def _search_bisection(search: StretchSearch,
                      tol: float) -> tuple[float, float, Hashable, np.ndarray]:
    """Algorithm 1: bisection on S between ``S_lo`` and the feasible ``S_up`` (Theorem 2).

    Stops at ``tol``, at the float resolution of ``S`` (a ``tol`` below one ulp) or after
    :data:`MAX_BISECTIONS` steps, whichever comes first.
    """
    s_inf, s_sup = search.low, search.high
    ok, _ = search.feasible(s_inf)
    if ok:
        s_sup = s_inf
    for _ in range(MAX_BISECTIONS):
        s = 0.5 * (s_inf + s_sup)
        if not (s_sup - s_inf > tol and s_inf < s < s_sup):  # done, or float resolution
            break
        ok, _ = search.feasible(s)
        if ok:
            s_sup = s
        else:
            s_inf = s
    last = search.last_feasible
    if last is None or last.stretch != s_sup:
        last = search.check(s_sup)
        if not last.feasible:
            raise SolverError(f"the upper bound S={s_sup:.9g} was found infeasible "
                              f"(deficit {last.deficit:.3g} tasks); numerical trouble")
    return s_sup, s_inf, last.model_key, last.x


def solve_problem(problem: StretchProblem, method: str = "intervals",
                  tol: float = tolerances.BISECTION, time_limit: float | None = 120.0,
                  relaxation_bound: bool = True, warm_start: bool = True,
                  worker_generation: bool = True, window_bound: bool | None = None,
                  relaxation_basis: bool = True, formulation: str = "auto",
                  coarse_start: bool | None = None, first_solve: str | None = None,
                  **highs_options: Any) -> MaxStretchResult:
    """Optimal max-stretch of a :class:`StretchProblem` (offline or online).

    Parameters
    ----------
    problem : StretchProblem
        The offline or online problem (seed 003 §3; its epochs, ``MS*_k`` and ``ρ*``).
    method, tol, time_limit, relaxation_bound, warm_start, worker_generation, window_bound,
    relaxation_basis, formulation, coarse_start, first_solve, **highs_options
        As for :func:`max_stretch`.

    Returns
    -------
    MaxStretchResult
        The stretch, its proven lower end, the plan and the search's statistics.
    """
    if method not in METHODS:
        raise LpschedError(f"unknown method {method!r}; choose one of {METHODS}")
    if not (tol > 0 and math.isfinite(tol)):
        raise LpschedError(f"tol must be a positive number, got {tol!r}")
    t0 = time.perf_counter()
    search = StretchSearch(problem, time_limit=time_limit, relaxation_bound=relaxation_bound,
                           warm_start=warm_start, worker_generation=worker_generation,
                           window_bound=window_bound, relaxation_basis=relaxation_basis,
                           formulation=formulation, coarse_start=coarse_start,
                           first_solve=first_solve, **highs_options)
    if method in ("intervals", "intervals-lp"):
        final = "lp" if method == "intervals-lp" else "newton"
        stretch, lower, i, x = _search_intervals(search, final)
        status = "optimal"
    else:
        stretch, lower, i, x = _search_bisection(search, tol)
        status = "within_tolerance"
    # the merged MS* (decision 235) move each deadline S times as far as MS* itself
    check_merge(search.original, search.original.ms, search.problem.ms, stretch)
    plan = search.plan(stretch, i, x)
    return MaxStretchResult(
        stretch=stretch, lower=lower, method=method, status=status, plan=plan,
        dedicated_makespans=problem.ms.copy(), throughputs=problem.rho_star.copy(),
        lp_solves=search.lp_solves, pricing_solves=search.pricing_solves,
        workers_used=search.workers_used, critical_values=search.n_critical,
        seconds=time.perf_counter() - t0, highs_seconds=search.highs_seconds,
        build_seconds=search.build_seconds, iterations=search.iterations,
        lp_size=search.lp_size(i), probes=tuple(search.probes), search=search,
        relaxation_solves=search.relaxation_solves, formulation=search.formulation,
        coarse_solves=search.coarse_solves,
        column_rounds=search.column_rounds, columns=search.columns)


def max_stretch(inst: Instance, method: str = "intervals", tol: float = tolerances.BISECTION,
                *, memory: np.ndarray | None = None, time_limit: float | None = 120.0,
                relaxation_bound: bool = True, warm_start: bool = True,
                worker_generation: bool = True, window_bound: bool | None = None,
                relaxation_basis: bool = True, formulation: str = "auto",
                coarse_start: bool | None = None, first_solve: str | None = None,
                **highs_options: Any) -> MaxStretchResult:
    """Optimal max-stretch of ``inst`` in the fluid model of its port (seed 003 §3).

    Polyhedron (K1) for a one-port platform, (K) for bounded multiport; ``memory`` adds the
    buffer bound of §3.1.3 (bytes per worker). ``method="intervals"`` is exact
    (Theorems 7–8, ``ceil(log2(#intervals)) + 1`` LPs); ``method="bisection"`` returns an
    achievable stretch within ``tol`` (absolute) of the optimum (Theorem 2);
    ``method="intervals-lp"`` is Algorithm 2 with the paper's final LP (12)–(20) instead of
    Newton steps. ``formulation`` says how each LP is posed: ``"buffers"`` the (K)/(K1)
    model of :mod:`lpsched.bags.stretch_model`, ``"paths"`` its exact path reformulation
    solved by column generation (:mod:`lpsched.bags.stretch_paths`, no buffer rows; not
    with ``memory``), ``"auto"`` (default) the rule of :func:`choose_formulation`; the
    result's ``formulation``, ``column_rounds`` and ``columns`` say what ran.
    ``coarse_start`` (path formulation, no held tasks) picks the master's first columns
    and, for ``"intervals"``, the first critical value probed, from a time-aggregated LP
    (:mod:`lpsched.bags.stretch_coarse`; a guess, so the answer does not change): ``None``
    (default) on instances with ``n·p·J`` above :data:`COARSE_ABOVE` (balanced 100x20:
    median 12.7 s -> 3.8 s on the benchmark set, 3.3 s on held-out instances),
    ``True``/``False`` always/never; ``coarse_solves`` counts its LPs.
    ``first_solve`` (path formulation; the buffer model ignores it) says how the path
    master's first solve runs, the largest single cost of a large search: ``"simplex"``
    (the default, also for ``None``: primal simplex from the slack basis) or ``"ipm"``
    (HiGHS' interior point method with crossover, then simplex from its basis; balanced
    100x20: median 2.5 -> 1.8 s CPU of the search). Both reach the same optimum, but
    ``"ipm"`` may land on another optimal vertex, so the plan, the schedule realised from
    it and the last digits of ``stretch`` can differ from the default's (decisions 402,
    452).
    ``relaxation_bound`` starts every search from the relaxations' lower bounds: the
    single-resource ones and the window relaxation's (:func:`window_lower_bound`, a
    smaller LP, issue 13) when ``window_bound`` is true (default ``None``: on with
    buffers, off with paths, where it costs more than it saves), and
    ``relaxation_basis`` starts the first exact LP from the relaxation's last optimal basis
    (dual simplex; :meth:`StretchModel.basis_from_relaxed`); ``warm_start=False`` solves
    every LP from scratch; ``worker_generation`` poses the feasibility LPs on the useful
    workers only, proving the rest useless by pricing (:class:`StretchSearch`; exact
    either way). Every LP is checked: a non-optimal status
    or a violated constraint raises :class:`SolverError`.

    ``time_limit`` (seconds, finite and > 0, or ``None``) is the wall-clock budget of the
    whole search, every LP and loop included; when it runs out, :class:`SolverError` with
    status ``time_limit``. Every loop is also capped (bisection: :data:`MAX_BISECTIONS`
    steps or the float resolution of ``S``; Newton: 200 steps). The instance is first
    conditioned for HiGHS (:func:`condition`): an application of 10^9 tasks beside small
    ones is solved in units of whole applications; time scales one LP cannot hold raise
    :class:`SolverError` with what to do.

    Parameters
    ----------
    inst : Instance
        The star platform and its bags of tasks (seed 003 §2).
    method : str
        ``"intervals"`` (default, exact), ``"intervals-lp"`` or ``"bisection"``.
    tol : float
        Absolute tolerance of the bisection (default
        :data:`~lpsched.core.tolerances.BISECTION`).
    memory : numpy.ndarray, optional
        Buffer bound per worker, in bytes (§3.1.3).
    time_limit : float or None
        Wall-clock budget of the whole search, in seconds (default 120; ``None``: none).
    relaxation_bound, warm_start, worker_generation, window_bound, relaxation_basis : bool
        The search's levers (above).
    formulation : str
        ``"auto"`` (default), ``"paths"`` or ``"buffers"``.
    coarse_start : bool, optional
        The coarse start (above; default ``None``: by instance size).
    first_solve : str, optional
        ``"simplex"`` (default) or ``"ipm"``: the path master's first solve (above).
    **highs_options
        HiGHS options for every LP (e.g. ``threads=1``).

    Returns
    -------
    MaxStretchResult
        ``stretch`` (the optimum, or within ``tol`` for the bisection), ``lower`` (a proven
        lower bound), ``plan`` (a :class:`StretchPlan` that ``check_plan`` verifies), the
        dedicated makespans ``MS*_k`` and throughputs, and the search's counts and times.

    Examples
    --------
    >>> from lpsched.bags import random_bags
    >>> res = max_stretch(random_bags(3, 2, seed=0))
    >>> round(res.stretch, 4), res.plan.comm.shape
    (2.4683, (3, 2, 5))
    >>> round(max_stretch(random_bags(3, 2, seed=0), method="bisection").stretch, 4)
    2.4683
    """
    options = dict(relaxation_bound=relaxation_bound, warm_start=warm_start,
                   worker_generation=worker_generation, window_bound=window_bound,
                   relaxation_basis=relaxation_basis, formulation=formulation,
                   coarse_start=coarse_start, first_solve=first_solve, **highs_options)
    try:
        return solve_problem(StretchProblem.offline(inst, memory), method, tol, time_limit,
                             **options)
    except ScaleError:
        if memory is not None or inst.n < 2:
            raise
        return solve_by_scales(inst, method, tol, time_limit, **options)


def solve_by_scales(inst: Instance, method: str = "intervals",
                    tol: float = tolerances.BISECTION, time_limit: float | None = 120.0,
                    **options: Any) -> MaxStretchResult:
    """Max-stretch of an instance whose dedicated makespans span more time scales than
    one LP holds (seed 003 §3 on each scale; decision 250): the applications are split at
    the largest ratio between consecutive ``MS*``, into a *small* group ``A`` and a
    *large* group ``L``, each solved on its own by :func:`max_stretch` (so a split again
    if needed), and the two plans are composed: ``A``'s plan as it is, and ``L``'s plan
    paused during each time range in which ``A``'s plan works (:func:`busy_blocks`,
    :func:`paused_plan`; from ``L``'s first epoch on): ``L`` runs in the time ``A``
    leaves, late by at most ``Δ``, the total length of the pauses.

    Exactness: removing applications relaxes (K)/(K1), so ``S* >= max(S*_A, S*_L)``
    (each group's proven lower bound); the composed plan is a point of (K)/(K1) for the
    whole instance at ``S_up = max(S*_A, S*_L + Δ / min_L MS*)`` (its two halves use the
    platform in disjoint time ranges, and the pause delays each ``L`` deadline by at most
    ``Δ``). The answer is ``S_up`` with ``lower = max(...)``:
    ``A``'s status when ``A`` sets the stretch (then ``S* = S*_A``), ``within_tolerance``
    when ``L`` does after a move ``Δ > 0`` and the bounds
    differ by at most ``tol·max(1, S)`` (``L`` sets it: the gap is ``Δ/MS*_L``, about the
    ratio of the time scales, below the bisection tolerance), else :class:`ScaleError`
    (the small applications hold the platform so long that ``Δ`` shows against ``L``'s
    ``MS*``: the time scales are not that far apart, and no exact method is implemented).

    Parameters
    ----------
    inst : Instance
        The instance (offline).
    method : str
        As for :func:`max_stretch`, applied to each group.
    tol : float
        The bisection tolerance, and the largest gap accepted between the two bounds.
    time_limit : float or None
        Wall-clock budget of each group's search, in seconds.
    **options
        Further options of :func:`max_stretch`.

    Returns
    -------
    MaxStretchResult
        ``stretch = S_up``, ``lower = max(S*_A, S*_L)``, the composed plan.

    Raises
    ------
    ScaleError
        The two bounds are further apart than ``tol``; one group alone cannot be solved.
    """
    from lpsched.bags.steady_state import dedicated_makespans, dedicated_throughputs

    t0 = time.perf_counter()
    ms = dedicated_makespans(inst)
    order = np.argsort(ms, kind="stable")
    cut = int(np.argmax(ms[order][1:] / ms[order][:-1])) + 1
    small, large = np.sort(order[:cut]), np.sort(order[cut:])
    ra = max_stretch(inst.subset(small.tolist()), method, tol, time_limit=time_limit,
                     **options)
    rl = max_stretch(inst.subset(large.tolist()), method, tol, time_limit=time_limit,
                     **options)
    paused, delta = rl.plan, 0.0
    for begin, end in busy_blocks(ra.plan):  # L gives way while A works
        at = max(begin, float(np.asarray(paused.epochs)[0]))
        if end > at:
            paused = paused_plan(paused, at, end - at)
            delta += end - at
    lower = max(ra.lower, rl.lower)
    late = rl.stretch + delta / float(ms[large].min())
    stretch = max(ra.stretch, late)
    # S* >= S*_A: when A sets the stretch, its status is the answer's; so for L if Δ = 0
    status = ra.status if ra.stretch >= late else rl.status if delta == 0 else \
        "within_tolerance"
    if stretch - lower > tol * max(1.0, stretch):
        raise ScaleError(
            f"the applications' dedicated makespans span {float(ms.max() / ms.min()):.2g} "
            f"times, more than one LP holds; solved apart, the max-stretch lies in "
            f"[{lower:.9g}, {stretch:.9g}], wider than tol = {tol:g} (the applications of "
            f"MS* <= {float(ms[small].max()):.3g} s hold the platform {delta:.6g} s while "
            "the larger ones run): solve the groups separately or rescale")
    plan = compose_plans(inst, stretch, ms, [(ra.plan, small), (paused, large)])
    parts = (ra, rl)
    return MaxStretchResult(
        stretch=stretch, lower=lower, method=method, status=status, plan=plan,
        dedicated_makespans=ms, throughputs=dedicated_throughputs(inst),
        lp_solves=sum(r.lp_solves for r in parts),
        pricing_solves=sum(r.pricing_solves for r in parts),
        workers_used=max(r.workers_used for r in parts),
        critical_values=sum(r.critical_values for r in parts),
        seconds=time.perf_counter() - t0, highs_seconds=sum(r.highs_seconds for r in parts),
        build_seconds=sum(r.build_seconds for r in parts),
        iterations=sum(r.iterations for r in parts),
        lp_size={k: max(r.lp_size.get(k, 0) for r in parts)
                 for k in {**ra.lp_size, **rl.lp_size}},
        probes=ra.probes + rl.probes, search=None,
        relaxation_solves=sum(r.relaxation_solves for r in parts),
        formulation=ra.formulation if ra.formulation == rl.formulation else "mixed",
        column_rounds=sum(r.column_rounds for r in parts),
        columns=sum(r.columns for r in parts),
        coarse_solves=sum(r.coarse_solves for r in parts))


def _regrid(plan: StretchPlan, epochs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``plan``'s amounts carried onto the sorted ``epochs`` (which cover its own): each
    interval's amounts split in proportion to its overlap with the new intervals (the
    rates of (K)/(K1) are constant inside an interval, so every capacity row still holds);
    an interval of length 0 goes whole to the new interval that starts there."""
    t = np.asarray(plan.epochs, float)
    lo, hi = t[:-1], t[1:]
    lo_new, hi_new = epochs[:-1], epochs[1:]
    overlap = np.clip(np.minimum(hi[:, None], hi_new[None, :])
                      - np.maximum(lo[:, None], lo_new[None, :]), 0.0, None)
    length = hi - lo
    share = np.divide(overlap, length[:, None], out=np.zeros_like(overlap),
                      where=length[:, None] > 0)
    for j in np.flatnonzero(length <= 0):
        share[j, min(max(int(np.searchsorted(epochs, lo[j], side="right")) - 1, 0),
                     hi_new.size - 1)] = 1.0
    return np.asarray(plan.comm, float) @ share, np.asarray(plan.comp, float) @ share


def busy_blocks(plan: StretchPlan) -> list[tuple[float, float]]:
    """The maximal time ranges ``[begin, end]`` in which ``plan`` sends or computes
    anything (its intervals with a positive amount, adjacent ones merged), in order.

    Parameters
    ----------
    plan : StretchPlan
        A plan (seed 003 §3.3's amounts per interval).

    Returns
    -------
    list of tuple of (float, float)
        The busy ranges in seconds, in time order.
    """
    t = np.asarray(plan.epochs, float)
    used = (np.asarray(plan.comm, float) > 0).any(axis=(0, 1)) | (
        np.asarray(plan.comp, float) > 0).any(axis=(0, 1))
    blocks: list[tuple[float, float]] = []
    for j in np.flatnonzero(used & (np.diff(t) > 0)):
        if blocks and blocks[-1][1] >= t[j]:
            blocks[-1] = (blocks[-1][0], float(t[j + 1]))
        else:
            blocks.append((float(t[j]), float(t[j + 1])))
    return blocks


def paused_plan(plan: StretchPlan, at: float, pause: float) -> StretchPlan:
    """``plan`` with nothing done during ``[at, at + pause]``: what it does before ``at``
    stays, what it does after is done ``pause`` seconds later (an interval across ``at``
    is split there first; buffers carried over the pause). Deadlines move by ``pause``
    where they lie after ``at``; ``stretch`` is left to the caller (:func:`solve_by_scales`).

    Parameters
    ----------
    plan : StretchPlan
        The plan to pause.
    at : float
        Time the pause starts (s).
    pause : float
        Its length (s).

    Returns
    -------
    StretchPlan
        The paused plan (same applications, epochs after ``at`` moved).
    """
    t = np.asarray(plan.epochs, float)
    if pause <= 0 or at >= t[-1]:
        return plan
    split = at > t[0] and not (t == at).any()
    grid = np.sort(np.append(t, at)) if split else t
    comm, comp = _regrid(plan, grid) if split else (
        np.asarray(plan.comm, float), np.asarray(plan.comp, float))
    i = int(np.searchsorted(grid, at, side="right")) - 1 if at > t[0] else 0
    epochs = np.concatenate([grid[:i + 1], grid[i:] + pause]) if at > t[0] else grid + pause
    gap = np.zeros((*comm.shape[:2], 1))
    if at > t[0]:
        comm = np.concatenate([comm[:, :, :i], gap, comm[:, :, i:]], axis=2)
        comp = np.concatenate([comp[:, :, :i], gap, comp[:, :, i:]], axis=2)
    buffers = np.asarray(plan.buffered, float)[:, :, None] + np.concatenate(
        [np.zeros((*comm.shape[:2], 1)), np.cumsum(comm - comp, axis=2)], axis=2)
    deadlines = np.asarray(plan.deadlines, float)
    return StretchPlan(
        stretch=plan.stretch, epochs=epochs,
        deadlines=np.where(deadlines > at, deadlines + pause, deadlines),
        start=plan.start, remaining=plan.remaining, buffered=plan.buffered, comm=comm,
        comp=comp, buffers=buffers, apps=plan.apps, port=plan.port, t_new=plan.t_new)


def compose_plans(inst: Instance, stretch: float, ms: np.ndarray,
                  parts: list[tuple[StretchPlan, np.ndarray]]) -> StretchPlan:
    """One offline plan of ``inst`` at ``stretch`` from plans of disjoint groups of its
    applications (``parts``: each plan with the instance indices of its sub-instance's
    rows) whose activities never share a moment (:func:`solve_by_scales`): every plan
    carried onto the union of the epochs (:func:`_regrid`), the buffers recomputed from
    the amounts.

    Parameters
    ----------
    inst : Instance
        The whole instance.
    stretch : float
        The composed plan's max-stretch.
    ms : numpy.ndarray
        ``MS*_k`` of every application (s).
    parts : list of tuple of (StretchPlan, numpy.ndarray)
        Each group's plan and the instance indices of its applications.

    Returns
    -------
    StretchPlan
        A plan of ``inst`` (seed 003 §3.3's variables) at ``stretch``.
    """
    epochs = np.unique(np.concatenate([np.asarray(p.epochs, float) for p, _ in parts]))
    n, workers = inst.n, inst.p
    comm = np.zeros((n, workers, epochs.size - 1))
    comp = np.zeros((n, workers, epochs.size - 1))
    for plan, idx in parts:
        rows = np.asarray(idx)[np.asarray(plan.apps, int)]
        comm[rows], comp[rows] = _regrid(plan, epochs)
    buffers = np.concatenate([np.zeros((n, workers, 1)), np.cumsum(comm - comp, axis=2)],
                             axis=2)
    return StretchPlan(
        stretch=stretch, epochs=epochs, deadlines=inst.release + stretch * ms,
        start=inst.release.copy(), remaining=inst.tasks.copy(),
        buffered=np.zeros((n, workers)), comm=comm, comp=comp, buffers=buffers,
        apps=np.arange(n), port=inst.platform.port)


def online_max_stretch(inst: Instance, t_new: float, remaining: np.ndarray,
                       buffered: np.ndarray, released: np.ndarray | None = None,
                       method: str = "intervals", tol: float = tolerances.BISECTION,
                       *, memory: np.ndarray | None = None,
                       time_limit: float | None = 120.0, relaxation_bound: bool = True,
                       worker_generation: bool = True,
                       window_bound: bool = False,
                       formulation: str = "auto") -> MaxStretchResult:
    """Optimal max-stretch on ``[T_new, ∞)`` from a state (seed 003 §3.5).

    ``remaining[k]``: tasks of ``A_k`` at the master; ``buffered[k, u]``: tasks on worker
    ``u``; both over all applications of ``inst`` (unreleased ones are ignored). The result's
    plan covers only the applications with work left (``result.plan.apps``), from ``T_new``.
    The seed solves this with Algorithm 1 (decision A13); the interval search (default) gives
    the same optimum exactly, with critical values where ``T_new`` meets a deadline.
    ``window_bound`` is off by default here: CBS3M's re-solves on ``simgrid`` platforms
    settle at the single-resource bound, where the window relaxation's extra LPs cost more
    than they save (measured at 10 Mbit/s links, and again at the 100 Mbit/s default of
    decision 36: 20 instances, ``cbs3m-fifo-online``, median simulation CPU 0.62 s with the
    bound against 0.52 s without; ``benchmarks/bench_balanced_levers.py cbs3m``).

    Parameters
    ----------
    inst : Instance
        The instance (every application, released or not).
    t_new : float
        The re-solve time ``T_new`` (s).
    remaining : numpy.ndarray
        Tasks of each application still at the master, shape ``(n,)``.
    buffered : numpy.ndarray
        Tasks held by each worker, shape ``(n, p)``.
    released : numpy.ndarray, optional
        Which applications have arrived (default: ``r_k <= T_new``).
    method, tol, memory, time_limit, relaxation_bound, worker_generation, formulation
        As for :func:`max_stretch`.
    window_bound : bool
        The window relaxation's bound (default off here, above).

    Returns
    -------
    MaxStretchResult
        The optimum on ``[T_new, inf)`` and its plan over the applications with work left.
    """
    from lpsched.bags.stretch_model import online_problem

    problem = online_problem(inst, t_new, remaining, buffered, released, memory)
    return solve_problem(problem, method, tol, time_limit, relaxation_bound,
                         worker_generation=worker_generation, window_bound=window_bound,
                         formulation=formulation)
