"""Graham's list scheduling and LPT on identical machines (P||Cmax).

* :func:`list_scheduling` — each task, in list order, goes to the machine that becomes free
  first (ties: lowest index). Guarantee ``2 − 1/m`` (Graham 1966), certified against the
  lower bound ``max(Σp/m, max p)`` since ``Cmax <= Σp/m + (1 − 1/m)·max p``. O(n log m).
* :func:`lpt` — the list sorted by decreasing time (ties: lower index). Proven
  ``4/3 − 1/(3m)`` against the optimum (Graham 1969); against the computable bound only the
  list-scheduling ``2 − 1/m`` is certifiable (``Certified.opt_guarantee`` keeps 4/3 − 1/(3m)
  for checks against exact optima).

>>> r = list_scheduling([2, 3, 4, 6, 2, 2], 3)
>>> r.makespan, r.lower_bound, r.holds()
(8.0, 6.333333333333333, True)
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from lpsched.approx.certified import Certified, MachineSchedule, check_count, check_times
from lpsched.errors import InvalidInstanceError


def schedule_in_order(times: np.ndarray, machines: int, order: Sequence[int] | np.ndarray,
                      first_machine: int = 0) -> MachineSchedule:
    """List-schedule jobs in a given order on identical machines.

    Each job of ``times[order]`` goes to the earliest free machine (ties: lowest index);
    machine ids start at ``first_machine``.

    Parameters
    ----------
    times : numpy.ndarray
        p_j, the processing time of each job, shape ``(n,)``.
    machines : int
        m, the number of identical machines.
    order : sequence of int or numpy.ndarray
        The indices of the jobs in the order the list takes them (each once).
    first_machine : int
        The id of the first machine (default 0; hybrid platforms number GPUs after CPUs).

    Returns
    -------
    MachineSchedule
        Each job's machine, start and end, indexed like ``times``.
    """
    n = times.size
    machine = np.full(n, -1)
    start = np.zeros(n)
    heap = [(0.0, i) for i in range(machines)]
    for j in order:
        free, i = heapq.heappop(heap)
        machine[j], start[j] = i + first_machine, free
        heapq.heappush(heap, (free + float(times[j]), i))
    return MachineSchedule(machine, start, start + times)


def lower_bound(times: np.ndarray, machines: int) -> float:
    """The lower bound ``max(Σp/m, max p)``: no schedule on ``m`` machines is shorter.

    Parameters
    ----------
    times : numpy.ndarray
        p_j, the processing time of each job, shape ``(n,)``.
    machines : int
        m, the number of identical machines (>= 1).

    Returns
    -------
    float
        ``max(Σ_j p_j / m, max_j p_j)`` (0 for no job).
    """
    return float(max(times.sum() / machines, times.max(initial=0.0)))


def list_scheduling(times: ArrayLike, machines: int,
                    order: Sequence[int] | None = None) -> Certified[MachineSchedule]:
    """Schedule by Graham's list scheduling, certified against ``max(Σp/m, max p)``.

    The list is the given order by default; ``times`` must list at least one job
    (InvalidInstanceError otherwise, as for hybrid and moldable jobs).

    Parameters
    ----------
    times : array_like
        p_j, the processing time of each job (finite, >= 0), at least one job.
    machines : int
        m, the number of identical machines (1 to ``MAX_MACHINES``).
    order : sequence of int or None
        The list: job indices in the order they are scheduled; ``None`` (default): the
        given order ``0..n-1``.

    Returns
    -------
    Certified of MachineSchedule
        The schedule, its makespan, the lower bound ``max(Σp/m, max p)`` and the guarantee
        ``2 − 1/m``.

    Raises
    ------
    InvalidInstanceError
        No job, a bad processing time, or ``machines`` not a whole number in range.
    """
    p = check_times("times", times)
    if p.size == 0:
        raise InvalidInstanceError("times", [], "must list at least one job")
    m = check_count("machines", machines)
    sched = schedule_in_order(p, m, np.arange(p.size) if order is None else order)
    return Certified("list-scheduling", sched, sched.makespan, lower_bound(p, m), 2 - 1 / m)


def lpt(times: ArrayLike, machines: int) -> Certified[MachineSchedule]:
    """Schedule by Longest Processing Time first, certified against ``max(Σp/m, max p)``.

    :func:`list_scheduling` on the times sorted by decreasing length (ties: lower index);
    O(n log n).

    Parameters
    ----------
    times : array_like
        ``times[j]``, the processing time of job ``j`` (>= 0).
    machines : int
        ``m``, the number of identical machines (>= 1).

    Returns
    -------
    Certified[MachineSchedule]
        The schedule, the lower bound ``max(Σp/m, max p)``, the certified guarantee
        ``2 − 1/m`` and ``opt_guarantee = 4/3 − 1/(3m)`` (Graham 1969, against the optimum).

    Raises
    ------
    InvalidInstanceError
        No job, a time that is negative, not finite or not a number; ``machines`` not a
        whole number >= 1.

    Examples
    --------
    >>> r = lpt([2, 3, 4, 6, 2, 2], machines=3)
    >>> r.makespan, round(r.lower_bound, 3), r.holds()
    (7.0, 6.333, True)
    >>> r.schedule.machine.tolist()  # jobs 6, 4, 3 first, one per machine
    [2, 2, 1, 0, 1, 2]
    """
    p = check_times("times", times)
    if p.size == 0:
        raise InvalidInstanceError("times", [], "must list at least one job")
    m = check_count("machines", machines)
    sched = schedule_in_order(p, m, np.lexsort((np.arange(p.size), -p)))
    return Certified("lpt", sched, sched.makespan, lower_bound(p, m), 2 - 1 / m,
                     opt_guarantee=4 / 3 - 1 / (3 * m))
