"""The online re-solve of seed 003 §3.5: the optimal max-stretch from a state at ``T_new``.

What CBS3M (:mod:`lpsched.bags.policies.cbs3m`) solves at every arrival: the applications
released by ``T_new`` with work left at the master or in a worker's buffer, each keeping
its original release date and dedicated makespan, planned from ``T_new`` on.
"""

from __future__ import annotations

import numpy as np

from lpsched.bags.instance import Instance
from lpsched.bags.maxstretch.algorithms import solve_problem
from lpsched.bags.maxstretch.problem import online_problem
from lpsched.bags.maxstretch.results import MaxStretchResult
from lpsched.core import tolerances


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
    The seed solves this with Algorithm 1 (spec A13); the interval search (default) gives
    the same optimum exactly, with critical values where ``T_new`` meets a deadline.

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
        As for :func:`~lpsched.bags.maxstretch.offline.max_stretch`.
    window_bound : bool
        The window relaxation's bound (default off here, see Notes).

    Returns
    -------
    MaxStretchResult
        The optimum on ``[T_new, inf)`` and its plan over the applications with work left.

    Notes
    -----
    ``window_bound`` is off by default here: CBS3M's re-solves on ``simgrid`` platforms
    settle at the single-resource bound, where the window relaxation's extra LPs cost more
    than they save (measured at 10 Mbit/s links, and again at the 100 Mbit/s default of
    decision 36: 20 instances, ``cbs3m-fifo-online``, median simulation CPU 0.62 s with the
    bound against 0.52 s without; ``benchmarks/bench_balanced_levers.py cbs3m``). Who is in
    the problem is decision 22, the online solver decision 23.
    """
    problem = online_problem(inst, t_new, remaining, buffered, released, memory)
    return solve_problem(problem, method, tol, time_limit, relaxation_bound,
                         worker_generation=worker_generation, window_bound=window_bound,
                         formulation=formulation)
