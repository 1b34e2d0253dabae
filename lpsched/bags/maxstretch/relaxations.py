"""Cheap lower bounds on the optimal max-stretch, from single-resource relaxations.

Every feasible point of (K)/(K1) loads each shared resource with at least a fixed amount of
work per application, inside the application's window ``[start_k, d_k(S)]``. Keeping one
resource and forgetting the rest leaves a single machine with preemption, whose feasibility
for a stretch ``S`` is the classical window test: for every pair of windows,
``Σ_{k: start_k >= start_i, d_k <= d_j} p_k <= d_j − start_i``. The least such ``S`` is a
lower bound of the LP optimum. Resources and per-application demands ``p_k``:

* one-port master (10-b): ``Π_k·min_u δ_k/b_u`` (every task crosses the port once);
* bounded multiport: the master ``Π_k·δ_k/BW`` and all links together ``Π_k·δ_k/Σ_u b_u``;
* all CPUs together, related speeds: ``W_k/Σ_u s_u`` (work is conserved); unrelated speeds:
  ``Π_k·min_u x_u^(k)/p`` (busy time summed over workers).

Online states count the buffered tasks on the CPUs but not on the port. The test costs
O(n²) per stretch value; the bound is found by bisection to 1e-12 relative. These bounds
shrink the range the exact searches explore (they never change their answers).
"""

from __future__ import annotations

import math
import time

import numpy as np

from lpsched.bags.maxstretch.problem import StretchProblem
from lpsched.errors import SolverError
from lpsched.solvers.solution import Status


def window_feasible(start: np.ndarray, deadline: np.ndarray, demand: np.ndarray) -> bool:
    """Can one preemptive machine process ``demand[k]`` inside ``[start[k], deadline[k]]``?

    Parameters
    ----------
    start : numpy.ndarray
        Where each window opens (s), shape ``(n,)``.
    deadline : numpy.ndarray
        Where each window closes (s), shape ``(n,)``.
    demand : numpy.ndarray
        The processing each application needs inside its window (s), shape ``(n,)``.

    Returns
    -------
    bool
        ``True`` when every pair of windows passes the test of the module doc (a relative
        slack of 1e-12 on the largest deadline).
    """
    order = np.argsort(deadline, kind="stable")
    d = deadline[order]
    s = start[order]
    p = demand[order]
    member = s[None, :] >= start[:, None]  # row i: windows opening at or after start_i
    load = np.cumsum(np.where(member, p[None, :], 0.0), axis=1)
    room = np.maximum(d[None, :] - start[:, None], 0.0)
    slack = 1e-12 * max(1.0, float(np.abs(d).max()))
    return bool((load <= room + slack).all())


#: Iteration caps of the two loops of :func:`single_machine_stretch`: doubling from 1 reaches
#: the largest float in 1024 steps, and bisection exhausts a float interval in about 2100.
MAX_DOUBLINGS = 1100
MAX_BISECTIONS = 2200
TIME_OUT = ("single-resource bound: the time limit ran out (status time_limit); allow "
            "more time (--time-limit or time_limit=)")


def _out_of_time(deadline: float | None) -> bool:
    return deadline is not None and time.monotonic() > deadline


def single_machine_stretch(problem: StretchProblem, demand: np.ndarray,
                           low: float = 1.0, high: float | None = None,
                           deadline: float | None = None) -> float:
    """Least stretch (to 1e-12 relative) at which ``demand`` fits one machine.

    Both loops are bounded: doubling the upper end stops at the float range
    (:data:`MAX_DOUBLINGS`), bisection at :data:`MAX_BISECTIONS` steps or when the midpoint
    is no longer between the ends; ``deadline`` (a :func:`time.monotonic` value) is the
    wall-clock budget. Raises :class:`SolverError` when no stretch fits, when the demand is
    not finite, or when the budget runs out.

    Parameters
    ----------
    problem : StretchProblem
        The max-stretch problem (offline or from an online state): windows, remaining and
        buffered tasks, costs and port model.
    demand : numpy.ndarray
        Each application's demand on the resource (s), shape ``(n,)``; applications with
        none are left out.
    low : float
        The smallest stretch considered (default 1); returned when it already fits.
    high : float or None
        A first upper end for the search (``None``: ``max(low, 2)``), doubled until it fits.
    deadline : float or None
        The :func:`time.monotonic` time by which to stop; ``None``: no budget.

    Returns
    -------
    float
        The least stretch S, to 1e-12 relative, whose windows ``[start_k, r_k + S·MS*_k]``
        hold the demand (the lower end of the final bisection interval).

    Raises
    ------
    SolverError
        A demand is not finite, no finite stretch fits, or the budget runs out (status
        ``TIME_LIMIT``).
    """
    start = np.asarray(problem.start, float)
    has = demand > 0
    if not has.any():
        return low
    if not np.isfinite(demand[has]).all():
        raise SolverError("single-resource bound: a demand is not finite (numbers too large "
                          "for floats); rescale the instance's units")
    hi = high if high is not None else max(low, 2.0)
    for _ in range(MAX_DOUBLINGS):
        if window_feasible(start[has], problem.deadlines(hi)[has], demand[has]):
            break
        if not math.isfinite(hi) or _out_of_time(deadline):
            break
        hi *= 2.0
    else:
        hi = math.inf
    if not (math.isfinite(hi)
            and window_feasible(start[has], problem.deadlines(hi)[has], demand[has])):
        if _out_of_time(deadline):
            raise SolverError(TIME_OUT, status=Status.TIME_LIMIT)
        raise SolverError("single-resource bound: no finite stretch fits (the numbers "
                          "are too far apart for floats); rescale the instance")
    lo = low
    if window_feasible(start[has], problem.deadlines(lo)[has], demand[has]):
        return lo
    for _ in range(MAX_BISECTIONS):
        if not hi - lo > 1e-12 * hi:
            break
        mid = 0.5 * (lo + hi)
        if not lo < mid < hi:  # float resolution reached
            break
        if _out_of_time(deadline):
            raise SolverError(TIME_OUT, status=Status.TIME_LIMIT)
        if window_feasible(start[has], problem.deadlines(mid)[has], demand[has]):
            hi = mid
        else:
            lo = mid
    return lo


def resource_demands(problem: StretchProblem) -> dict[str, np.ndarray]:
    """Per-application demand (seconds) on each relaxed resource (see module doc).

    Parameters
    ----------
    problem : StretchProblem
        The max-stretch problem (offline or from an online state): windows, remaining and
        buffered tasks, costs and port model.

    Returns
    -------
    dict of str to numpy.ndarray
        Shape ``(n,)`` demands in seconds, keyed by resource: ``"port"`` (one-port) or
        ``"master"`` (finite master bandwidth only) and ``"links"`` (multiport), and ``"cpus"``.
    """
    pr = problem
    out: dict[str, np.ndarray] = {}
    if pr.port == "one-port":
        out["port"] = pr.remaining * pr.comm.min(axis=1)
    else:
        if np.isfinite(pr.master_bandwidth):
            out["master"] = pr.remaining * pr.size / pr.master_bandwidth
        bw = pr.size[:, None] / pr.comm  # b_u, shape (n, p)
        out["links"] = pr.remaining * pr.size / bw[0].sum()
    tasks = pr.remaining + pr.buffered.sum(axis=1)
    ratios = pr.comp / pr.comp[:, :1]
    if np.allclose(ratios, ratios[:1], rtol=1e-12, atol=0.0):  # related machines
        speed_share = 1.0 / (1.0 / ratios[0]).sum()  # x_u = x_0·ratio_u; Σ_u s_u ∝ Σ 1/ratio
        out["cpus"] = tasks * pr.comp[:, 0] * speed_share
    else:
        out["cpus"] = tasks * pr.comp.min(axis=1) / pr.p
    return out


def relaxation_lower_bound(problem: StretchProblem, low: float = 1.0,
                           deadline: float | None = None) -> float:
    """The largest single-resource lower bound on the optimal stretch (at least ``low``);
    ``deadline`` is the wall-clock budget (:func:`single_machine_stretch`).

    Parameters
    ----------
    problem : StretchProblem
        The max-stretch problem (offline or from an online state): windows, remaining and
        buffered tasks, costs and port model.
    low : float
        The least value returned (default 1, a stretch is never below it).
    deadline : float or None
        The :func:`time.monotonic` time by which to stop; ``None``: no budget.

    Returns
    -------
    float
        The largest of ``low`` and the single-resource bounds of :func:`resource_demands`.

    Raises
    ------
    SolverError
        As :func:`single_machine_stretch` (not finite, no stretch fits, budget spent).
    """
    return max([low] + [single_machine_stretch(problem, d, low, deadline=deadline)
                        for d in resource_demands(problem).values()])
