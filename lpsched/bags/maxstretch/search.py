"""The LP solves of one max-stretch search over the stretch axis, and its guided search.

:class:`StretchSearch` answers "is the stretch ``S`` achievable?" for one problem (offline or
online) with one live LP per interval of the stretch axis (between two critical values the
epoch order, hence the LP's structure, is fixed), warm-started from question to question.
Each LP is posed in the buffer model (:mod:`lpsched.bags.maxstretch.buffer_model`) or its
path reformulation (:mod:`lpsched.bags.maxstretch.paths`), as
:func:`~lpsched.bags.maxstretch.formulation.choose_formulation` says. Feasibility is always
asked with the always-feasible *deliver* LP; its deficit and the deficit's slope in ``S``
let :func:`guided_search` (Algorithm 2 of seed 003 §3.4, the deficit's tangent choosing the
next critical value, Newton steps inside the last interval) reach the optimum in few LPs.

The same guided search on the window relaxation (buffers free inside each window) gives a
lower bound of the optimum (:func:`window_lower_bound`), which a search uses to raise its
lower end, beside the single-resource bounds of :mod:`lpsched.bags.maxstretch.relaxations`.
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Hashable
from typing import Any

import numpy as np

from lpsched.bags.maxstretch.buffer_model import StretchModel
from lpsched.bags.maxstretch.coarse import CoarseStart, coarse_start, use_coarse
from lpsched.bags.maxstretch.conditioning import condition
from lpsched.bags.maxstretch.critical import (
    critical_values,
    online_lower_bound,
    sequential_stretch,
)
from lpsched.bags.maxstretch.formulation import choose_formulation
from lpsched.bags.maxstretch.paths import (
    PRICE_TOLERANCE,
    PathAnswer,
    PathMaster,
    PathView,
    check_cold_solver,
)
from lpsched.bags.maxstretch.problem import StretchProblem
from lpsched.bags.maxstretch.relaxations import relaxation_lower_bound
from lpsched.bags.maxstretch.results import Check, Probe, StretchPlan
from lpsched.bags.maxstretch.workers import initial_workers, joining_workers, seed_pairs
from lpsched.core import tolerances
from lpsched.errors import LpschedError, SolverError
from lpsched.models.program import LinearProgram
from lpsched.solvers.highs import HighsModel
from lpsched.solvers.solution import Solution, Status

#: HiGHS ``simplex_strategy`` values.
DUAL, PRIMAL = 1, 4
#: HiGHS ``simplex_dual_edge_weight_strategy`` values.
CHOOSE, DEVEX = -1, 1
#: HiGHS options of every max-stretch LP: presolve only costs time on these models
#: (measured in benchmarks/RESULTS.md) and is skipped anyway on warm starts.
SEARCH_OPTIONS: dict[str, Any] = {"presolve": "off"}


def check_time_limit(time_limit: float | None) -> float | None:
    """Validate a search's time limit: ``None`` or ``inf`` (no limit) or seconds ``> 0``.

    Raises :class:`LpschedError` otherwise: 0, negative values, NaN and non-real numbers
    are mistakes, never "no limit".

    Parameters
    ----------
    time_limit : float or None
        The search's wall-clock budget in seconds.

    Returns
    -------
    float or None
        ``time_limit`` itself, or ``None`` for no limit.

    Notes
    -----
    Decision 238: a time limit is a number of seconds > 0; 0 is not "no limit".
    """
    if time_limit is None:
        return None
    if (isinstance(time_limit, bool) or not isinstance(time_limit, numbers.Real)
            or not time_limit > 0):
        raise LpschedError(f"time_limit must be a number of seconds > 0 (None or inf: no "
                           f"limit), got {time_limit!r}")
    return None if time_limit == math.inf else time_limit


class StretchSearch:
    """LP solves over the stretch axis of one problem, with one live model per interval.

    The axis is cut at ``points = [S_lo, critical values..., S_up]``; interval ``i`` is
    ``[points[i], points[i+1]]`` and has one epoch order, hence one LP structure. A model is
    built the first time an interval is needed and kept, so later questions about the same
    interval (bisection steps, Newton steps, the final min-stretch LP) warm-start HiGHS from
    its last basis.

    Parameters
    ----------
    problem : StretchProblem
        The offline or online problem. The LPs see :func:`condition`'s version of it
        (:attr:`problem`; amounts per application when per-task times are tiny,
        :attr:`units`), and :meth:`plan` converts back to tasks.
    time_limit : float or None
        Wall-clock budget of the whole search in seconds, from construction (``None``:
        none): each LP gets what is left, and the search stops with :class:`SolverError`
        (status ``time_limit``) when it runs out.
    relaxation_bound : bool
        Raise ``S_lo`` to the single-resource bound of
        :mod:`lpsched.bags.maxstretch.relaxations`, then (``window_bound``) to the window
        relaxation's.
    warm_start : bool
        ``False`` loads a fresh HiGHS model for every LP (the buffer model only).
    worker_generation : bool
        Pose the buffer model's feasibility LPs on the useful workers only (below).
    window_bound : bool or None
        Run the window relaxation's search of its own (:attr:`window`, whose models are
        :class:`StretchModel` ``relaxed``) and raise ``S_lo`` to its answer; ``None``: on
        for buffers, off for paths.
    relaxed : bool
        Pose the window relaxation itself (this search is then some search's
        :attr:`window`).
    relaxation_basis : bool
        Start the first exact model built (the first check, at ``S_lo``) from the window
        search's last optimal basis when its epoch order and workers are the same
        (:meth:`StretchModel.basis_from_relaxed`: dual feasible, so one dual simplex with
        Devex pricing repairs the buffers).
    formulation : str
        ``"auto"``, ``"buffers"`` or ``"paths"``
        (:func:`~lpsched.bags.maxstretch.formulation.choose_formulation`).
    coarse_start : bool or None
        Compute a coarse start at construction (:attr:`coarse`,
        :mod:`lpsched.bags.maxstretch.coarse`): the pairs the path master starts with, and
        the critical value :func:`guided_search` probes first; ``None``:
        :func:`~lpsched.bags.maxstretch.coarse.use_coarse`.
    first_solve : str or None
        How the path master's first solve runs (``"simplex"`` or ``"ipm"``).
    **highs_options
        HiGHS options of every LP, over :data:`SEARCH_OPTIONS`.

    Notes
    -----
    **Worker generation** (``worker_generation=True``, exact): the feasibility LPs are
    first posed on the workers that serve some application in its steady state alone (plus
    those holding buffered tasks). A "yes" on a subset is a "yes" (a plan with zeros
    elsewhere). A "no" is certified by pricing: with the restricted LP's duals on the
    linking rows (totals (3) and the master's port or bandwidth row), each missing worker
    solves its own small LP of reduced profits; ``delivered <= V_W + Σ_v price_v``
    (Lagrangian bound). When that bound still leaves a deficit the answer is "no" (and its
    S-derivative, summed over the blocks, is a valid Newton slope); otherwise the workers
    with a positive price join and the LP is solved again
    (:func:`~lpsched.bags.maxstretch.workers.joining_workers`). The models stay
    n·p·C-sized on platforms where a few fast links carry everything.

    **The path formulation** (``formulation="paths"``, :mod:`lpsched.bags.maxstretch.paths`):
    one :class:`PathMaster` serves every interval (:meth:`master`), its columns and basis
    carried from one epoch order to the next; a check is column generation until the
    master's plan delivers within tolerance, or its Lagrangian bound proves the deficit
    above it (that bound and its S-slope are what the check reports), or no path prices
    out. Worker generation and the relaxation's basis are moot there (every worker is
    priced; there is no buffer-model basis), ``warm_start`` too (the master always stays
    live), and the window bound is off unless asked for (``window_bound=True``: a relaxed
    path master, measured slower on balanced 100x20; decision 218).

    Starting the first exact model from the relaxation's basis takes 5-10x fewer
    iterations and 1.5x less CPU on balanced 20x10 (decision 195).
    """

    #: An infeasible path check waits until its certified deficit is within this fraction
    #: of the master's own (``None``: the first Lagrangian proof stops, all a bare verdict
    #: needs; :func:`guided_search` sets :data:`GUIDED_GAP` on its search).
    infeasible_gap: float | None = None

    def __init__(self, problem: StretchProblem, time_limit: float | None = 120.0,
                 relaxation_bound: bool = True, warm_start: bool = True,
                 worker_generation: bool = True, window_bound: bool | None = None,
                 relaxed: bool = False, relaxation_basis: bool = True,
                 formulation: str = "auto", coarse_start: bool | None = None,
                 first_solve: str | None = None, **highs_options: Any) -> None:
        time_limit = check_time_limit(time_limit)
        #: how the path master's first solve runs (``first_solve``; ``"simplex"`` or
        #: ``"ipm"``, :func:`~lpsched.bags.maxstretch.paths.check_cold_solver`)
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
        #: The window relaxation's search, when it ran: its LPs are counted
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
        """:func:`~lpsched.bags.maxstretch.coarse.coarse_start` when ``wanted`` (``None``:
        :func:`use_coarse`) on an exact path search without held tasks, else ``None``."""
        problem = self.problem
        if wanted is None:
            wanted = use_coarse(problem)
        if not wanted or not self.paths or relaxed or (problem.buffered > 0).any():
            return None
        start = coarse_start(problem, self.points, self.delivery_tolerance,
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
        buffer formulation or with held tasks, the uniform shortfall ``(1 - λ)·Σ r_k`` of an
        offline path check; for a "no", a certified lower bound of it) and a slope ``dD/dS`` of
        a convex minorant of the deficit inside the interval (from the reduced cost of the fixed
        stretch column: right-hand sides are affine in ``S``). ``i`` picks the interval whose
        epoch order is used: either side of a critical value is valid at the value itself;
        default: below.

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

        Notes
        -----
        The offline path check's uniform shortfall is decision 229; worker generation,
        decision 18.
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
            self.workers = joining_workers(workers, prices, total)
        else:  # pragma: no cover - the worker set grows every round
            raise SolverError(f"worker generation at S={stretch:.9g} did not settle")
        self.probes.append(Probe("feasibility", stretch, stretch, bool(ok), deficit,
                                 sol.solve_seconds, sol.iterations))
        result = Check(stretch, bool(ok), deficit, slope, i, sol.x, (i, workers), workers)
        self.checks[(stretch, i)] = result
        if ok:
            self.last_feasible = result
        return result

    # -- the path formulation -------------------------------------------------------------
    def master(self, i: Hashable) -> PathMaster:
        """The search's path master, set to the epoch order of interval key ``i``.

        One master serves every epoch order (:meth:`PathMaster.set_order`: its rows are
        interval positions, a path keeps its coefficients, only the stretch column, the
        capacity bounds and which paths lie inside the windows change), so the basis and
        the columns carry over from one interval to the next. Built the first time from the
        window relaxation's paths that keep ``j <= j'`` and the same-interval paths
        (:meth:`PathMaster.seed`). Each key gets a :class:`PathView` in :attr:`models`
        that reads plans in its own order.

        Parameters
        ----------
        i : Hashable
            A model key (:meth:`key_of`).

        Returns
        -------
        PathMaster
            The path master (:mod:`lpsched.bags.maxstretch.paths`), in the epoch order of ``i``.
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
            self._master.seed(seed_pairs(self.problem) if self.coarse is None
                              else self.coarse.pairs)
        else:
            self._master.set_order(order)
        if key not in self.models:
            self.models[key] = (PathView(self._master, order), None)
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
        if isinstance(model, PathView):
            return model.size()
        lp = model.lp
        return {"columns": lp.num_cols, "rows": lp.num_rows, "nonzeros": lp.num_nonzeros}


#: :attr:`StretchSearch.infeasible_gap` of the tangent-guided search
#: (:func:`guided_search`), whose steps are only as long as the certified deficit is large
#: (decision 229). Exploration runs, with the fraction checks: balanced 20x10 takes 4 checks
#: instead of 6 (median; 0.037 -> 0.034 s), and 100x20 the same time with fewer, longer
#: checks (2.23 -> 2.21 s median over 15 seeds).
GUIDED_GAP: float | None = 0.3


# -- the tangent-guided search ----------------------------------------------------------------
def window_lower_bound(relaxed: StretchSearch) -> float:
    """The least stretch the window relaxation cannot rule out: a lower bound of the optimum.

    Found by the same tangent-guided search as the exact problem; a lower bound since every
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
        return guided_search(relaxed)[1]
    except SolverError as err:
        if err.status is Status.TIME_LIMIT:
            raise
        return float(relaxed.points[0])


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


def guided_search(search: StretchSearch) -> tuple[float, float, Check]:
    """Algorithm 2 with the deficit's tangent choosing the next critical value.

    The invariants are those of Algorithm 2's binary search
    (:func:`~lpsched.bags.maxstretch.algorithms.bracket`): everything below the current
    infeasible check ``c`` (posed in interval ``lo``) is infeasible (monotonicity),
    ``points[hi]`` is feasible. When ``c``'s tangent leaves its interval, that interval is
    ruled out and the next probe is the critical value below the tangent's root (``D`` is
    nearly convex across intervals, so this lands at or just below the optimum's interval;
    after a probe that overshoots, plain halving takes over). When the tangent stays inside,
    Newton steps finish in that interval, all on one warm model. Exact like Algorithm 2;
    every verdict is one feasibility LP.

    Parameters
    ----------
    search : StretchSearch
        The search whose axis is explored (exact, or the window relaxation's).

    Returns
    -------
    tuple of (float, float, Check)
        The least feasible stretch, the largest stretch proven infeasible (a lower bound)
        and the check that accepted the stretch.

    Notes
    -----
    With a coarse start (:attr:`StretchSearch.coarse`, decision 228) the first probe is the
    critical value it names instead of ``points[0]``: infeasible there, it is the first
    ``lo``; feasible, it becomes ``hi`` and the search starts from ``points[0]`` as without
    it. Its infeasible checks wait for a certified deficit within :data:`GUIDED_GAP` of the
    master's (:attr:`StretchSearch.infeasible_gap`, decision 229), so tangent steps are
    long. Decision 151 is the tangent-guided search itself.
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


