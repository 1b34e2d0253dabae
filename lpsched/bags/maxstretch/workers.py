"""Worker generation: the workers and pairs a search starts with, and who joins when.

Not in the seed, and exact (decision 18). The buffer model's feasibility LPs are first posed
on the workers that serve some application in its steady state alone (plus those holding
buffered tasks, :func:`initial_workers`); a "no" there is accepted only when pricing the
missing workers proves it, otherwise the workers whose price is positive join
(:func:`joining_workers`) and the LP is solved again. The path master starts from the
same-interval paths of the steady-state pairs (:func:`seed_pairs`) and prices every worker.
"""

from __future__ import annotations

import numpy as np

from lpsched.bags.maxstretch.problem import StretchProblem
from lpsched.bags.steady_state import rates_multiport, rates_oneport

#: Which (application, worker) pairs get same-interval seed paths without a coarse start:
#: ``"all"`` or ``"steady"`` (those serving the application in its steady state alone).
SEED_PAIRS = "steady"
#: A missing worker joins when its price (the tasks it could add) exceeds this fraction of
#: ``max(1, tasks to deliver)``.
JOIN_PRICE = 1e-12


def _steady_rates(problem: StretchProblem) -> np.ndarray:
    """``(n, p)`` rates of each application alone on the platform, by its port model."""
    if problem.port == "one-port":
        return rates_oneport(problem.comp, problem.comm)
    return rates_multiport(problem.comp, problem.comm, problem.size, problem.master_bandwidth)


def seed_pairs(problem: StretchProblem) -> np.ndarray | None:
    """The (application, worker) pairs whose same-interval paths seed a path master.

    Parameters
    ----------
    problem : StretchProblem
        The offline or online problem.

    Returns
    -------
    numpy.ndarray or None
        Boolean ``(n, p)``: the pairs that serve the application in its steady state alone
        or hold its tasks; ``None`` (every pair) when :data:`SEED_PAIRS` is ``"all"``.
    """
    if SEED_PAIRS == "all":
        return None
    return (_steady_rates(problem) > 0) | (problem.buffered > 0)


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
    rates = _steady_rates(problem)
    used = (rates > 0).any(axis=0) | (problem.buffered > 0).any(axis=0)
    return tuple(int(u) for u in np.flatnonzero(used)) or tuple(range(problem.p))


def joining_workers(workers: tuple[int, ...], prices: dict[int, tuple[float, float]],
                    total: float) -> tuple[int, ...]:
    """The worker set after a "no" that pricing could not certify.

    Parameters
    ----------
    workers : tuple of int
        The workers the LP was posed on.
    prices : dict of int to tuple of (float, float)
        ``{worker: (price, d price/dS)}`` of every missing worker: the tasks its own LP of
        reduced profits could add under the restricted LP's linking duals.
    total : float
        Tasks to deliver.

    Returns
    -------
    tuple of int
        ``workers`` with every worker priced above ``JOIN_PRICE·max(1, total)`` (at least
        the best priced one), sorted.
    """
    floor = JOIN_PRICE * max(1.0, total)
    join = [v for v, (p, _) in prices.items() if p > floor] or [
        max(prices, key=lambda v: prices[v][0])]
    return tuple(sorted(set(workers) | set(join)))
