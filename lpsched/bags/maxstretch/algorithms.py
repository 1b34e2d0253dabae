"""Algorithms 1 and 2 of seed 003 §3.4 over a :class:`StretchSearch`, and the solve they end.

Algorithm 1 (:func:`search_bisection`, Theorem 2) halves ``[S_lo, S_up]`` with one
feasibility LP per step and returns an achievable stretch within ``tol`` of the optimum.
Algorithm 2 (:func:`search_intervals`, Theorems 7-8) brackets the optimum between two
critical values and solves inside that interval: with the paper's stretch-interval LP
(12)-(20) after a binary search (:func:`bracket`, ``method="intervals-lp"``), or with the
tangent-guided search and Newton steps of
:func:`~lpsched.bags.maxstretch.search.guided_search` (``method="intervals"``, the default).
:func:`solve_problem` runs one of them on a problem and returns its
:class:`~lpsched.bags.maxstretch.results.MaxStretchResult`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Hashable
from typing import Any

import numpy as np

from lpsched.bags.maxstretch.conditioning import check_merge
from lpsched.bags.maxstretch.problem import StretchProblem
from lpsched.bags.maxstretch.results import MaxStretchResult
from lpsched.bags.maxstretch.search import StretchSearch, guided_search
from lpsched.core import tolerances
from lpsched.errors import LpschedError, SolverError

#: The searches of :func:`solve_problem` (``method=``).
METHODS = ("intervals", "intervals-lp", "bisection")
#: Iteration cap of Algorithm 1 (halving exhausts any float interval in about 2100 steps).
MAX_BISECTIONS = 2200


def bracket(search: StretchSearch) -> int:
    """Binary search over the critical values (Algorithm 2's outer loop, Theorem 8).

    The upper end of the bracket is feasible (``S_up`` by construction, or checked), the
    lower end is infeasible or is the lower bound. Each step is one feasibility LP at a
    critical value, posed in the epoch order of the interval *above* it, so that when the
    value is infeasible the deficit's tangent (a lower bound inside that interval, by
    convexity) can rule the whole interval out.

    Parameters
    ----------
    search : StretchSearch
        The search whose axis is bracketed.

    Returns
    -------
    int
        ``lo`` such that the optimum lies in ``[points[lo], points[lo+1]]``.
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


def search_intervals(search: StretchSearch,
                     final: str) -> tuple[float, float, Hashable, np.ndarray]:
    """Algorithm 2: bracket the optimum between critical values, then solve inside.

    ``final="newton"``: :func:`~lpsched.bags.maxstretch.search.guided_search` (the tangent
    picks the critical values, Newton steps finish, exact). ``final="lp"``: :func:`bracket`,
    then the stretch-interval LP (12)–(20) on the bracket (Theorem 7). If that LP lands on
    the bracket's lower end (only after a borderline verdict), the interval below is solved
    as well, as Algorithm 2's ``U ← M`` branch does.

    Parameters
    ----------
    search : StretchSearch
        The search run.
    final : str
        ``"newton"`` or ``"lp"``.

    Returns
    -------
    tuple of (float, float, Hashable, numpy.ndarray)
        The optimal stretch, a proven lower bound, the key of the model holding the plan
        and that model's solution.
    """
    if final == "newton":
        stretch, lower, c = guided_search(search)
        return stretch, lower, c.model_key, c.x
    i = bracket(search)
    value, x, key = search.minimize(i)
    while i > 0 and value <= search.points[i] + tolerances.STRETCH_EQUAL * max(1.0, value):
        if not search.check(float(search.points[i]), i - 1).feasible:
            break
        i -= 1
        value, x, key = search.minimize(i)
    return value, value, key, x


def search_bisection(search: StretchSearch,
                     tol: float) -> tuple[float, float, Hashable, np.ndarray]:
    """Algorithm 1: bisection on S between ``S_lo`` and the feasible ``S_up`` (Theorem 2).

    Stops at ``tol``, at the float resolution of ``S`` (a ``tol`` below one ulp) or after
    :data:`MAX_BISECTIONS` steps, whichever comes first.

    Parameters
    ----------
    search : StretchSearch
        The search run.
    tol : float
        Absolute tolerance on the stretch.

    Returns
    -------
    tuple of (float, float, Hashable, numpy.ndarray)
        ``S_sup`` (achievable), ``S_inf`` (the largest value found infeasible, or the lower
        end), the key of the model holding the plan at ``S_sup`` and its solution.
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
        As for :func:`~lpsched.bags.maxstretch.offline.max_stretch`.

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
        stretch, lower, i, x = search_intervals(search, final)
        status = "optimal"
    else:
        stretch, lower, i, x = search_bisection(search, tol)
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


