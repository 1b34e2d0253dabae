"""Dual approximation for independent tasks on CPUs and GPUs (seed 000 chapter 2, SWDUAL).

``m`` identical CPUs and ``k`` identical GPUs; task ``j`` takes ``p_j`` on a CPU and
``p̄_j`` on a GPU; minimise the makespan. For a guess ``λ``, :func:`hybrid_step` either
returns an allocation whose list schedules end by ``2λ`` or answers NO, proving that no
schedule of length ``<= λ`` exists (spec seed000 §1.3–1.6):

1. a task longer than ``λ`` on both sides: NO; longer on a CPU: forced on a GPU; longer on
   a GPU: forced on a CPU (decision: not written in the thesis but needed by its proof);
2. the knapsack (2.5)–(2.7) — least CPU area with GPU area ``<= kλ`` — solved greedily:
   free tasks by decreasing ``p_j/p̄_j`` go to the GPUs while their area is below ``kλ``
   (the crossing task included); the rest to the CPUs;
3. NO if the CPU area exceeds ``mλ`` (sound: the greedy's CPU area is at most the
   fractional knapsack optimum, itself at most any λ-schedule's CPU area);
4. list scheduling on each side, GPUs in knapsack order (forced tasks first).

Proposition 1: accepted ⇒ ``Cmax <= 2λ``. :func:`hybrid_schedule` binary-searches ``λ``
between a proven lower bound and an accepted value; the returned
:class:`~lpsched.approx.certified.Certified` has ``makespan <= 2·λ_accepted`` and
``lower_bound`` = the largest λ proven infeasible (or the trivial bound). O(n log n) per
step, O(log(1/ε)) steps.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from lpsched.approx.certified import Certified, MachineSchedule, check_count, check_times
from lpsched.approx.listsched import schedule_in_order
from lpsched.errors import InvalidInstanceError, LpschedError, SolverError


def _inputs(cpu: ArrayLike, gpu: ArrayLike, cpus: int, gpus: int,
            ) -> tuple[np.ndarray, np.ndarray, int, int]:
    p = check_times("cpu_times", cpu)
    q = check_times("gpu_times", gpu)
    if p.shape != q.shape:
        raise InvalidInstanceError("gpu_times", q.shape, f"needs one time per task ({p.size})")
    return p, q, check_count("cpus", cpus), check_count("gpus", gpus)


def hybrid_step(cpu: ArrayLike, gpu: ArrayLike, cpus: int, gpus: int,
                lam: float) -> np.ndarray | None:
    """Run the 2-dual step at a guess ``λ``: an allocation of the tasks, or a proof of NO.

    The four steps of the module doc: ``on_cpu`` (boolean per task), or ``None`` when no
    schedule of length ``<= λ`` exists.

    Parameters
    ----------
    cpu : array_like
        p_j, each task's time on a CPU, shape ``(n,)`` (finite, >= 0).
    gpu : array_like
        p̄_j, each task's time on a GPU, shape ``(n,)``.
    cpus : int
        m, the number of CPUs (1 to ``MAX_MACHINES``).
    gpus : int
        k, the number of GPUs (1 to ``MAX_MACHINES``).
    lam : float
        λ, the guessed makespan (time units of the tasks).

    Returns
    -------
    numpy.ndarray or None
        ``on_cpu``, bool of shape ``(n,)`` (``True``: the task runs on a CPU), an allocation
        whose list schedule ends by 2λ; ``None`` (NO): no schedule of length ``<= λ``
        exists.

    Raises
    ------
    InvalidInstanceError
        A bad time, times of different lengths, or a bad CPU or GPU count.
    """
    p, q, m, k = _inputs(cpu, gpu, cpus, gpus)
    if ((p > lam) & (q > lam)).any():
        return None
    on_cpu = np.zeros(p.size, bool)
    force_gpu = p > lam
    force_cpu = q > lam
    on_cpu[force_cpu] = True
    gpu_area = float(q[force_gpu].sum())
    if gpu_area > gpus * lam:
        return None
    free = np.flatnonzero(~force_gpu & ~force_cpu)
    with np.errstate(divide="ignore"):
        ratio = np.where(q[free] > 0, p[free] / np.where(q[free] > 0, q[free], 1.0), np.inf)
    order = free[np.lexsort((free, -ratio))]
    # GPU area before each free task; the task crossing kλ is taken whole
    before = gpu_area + np.cumsum(q[order]) - q[order]
    to_gpu = before < k * lam
    on_cpu[order[~to_gpu]] = True
    if float(p[on_cpu].sum()) > m * lam:
        return None
    return on_cpu


def hybrid_step_32(cpu: ArrayLike, gpu: ArrayLike, cpus: int, gpus: int, lam: float,
                   eps: float = 0.1) -> np.ndarray | None:
    """Run the (3/2 + ε)-dual step at a guess ``λ``: an allocation, or a proof of NO.

    Seed 000 [L966–L989] sketches it; the design follows Bleuse, Kedad-Sidhoum, Monna,
    Mounié and Trystram (the thesis' ref. [38]).

    In any schedule of length ``<= λ``: at most ``m`` tasks longer than ``λ/2`` run on CPUs
    and at most ``k`` longer than ``λ/2`` on GPUs (two cannot share a processor), the CPU area
    is ``<= mλ`` and the GPU area ``<= kλ``. The knapsack "least CPU area" is solved with these
    two cardinality constraints by dynamic programming over GPU areas rounded up to the grid
    ``δ = ελ/n``: state ``(μ long tasks on CPUs, κ long tasks on GPUs, GPU area in units)``,
    value = least CPU area; recurrence, for task ``j`` (CPU time ``p_j``, GPU units
    ``u_j = ⌈p̄_j/δ⌉``)::

        W_j(μ, κ, a) = min( W_{j−1}(μ − [p_j > λ/2], κ, a) + p_j,          # j on a CPU
                            W_{j−1}(μ, κ − [p̄_j > λ/2], a − u_j) )         # j on a GPU

    with tasks longer than ``λ`` on one side forced to the other, ``μ <= m``, ``κ <= k`` and
    ``a·δ <= kλ + ελ``. NO (correct: a λ-schedule's GPU set has rounded area
    ``<= kλ + nδ``) iff every reachable state has CPU area ``> mλ``.

    Schedule bound: long tasks first, one per processor, then the short ones by list
    scheduling; a short task starts before the average load of the others,
    ``<= λ`` on CPUs and ``<= λ + ελ/k`` on GPUs, and lasts ``<= λ/2``: ``Cmax <= (3/2 + ε)λ``.
    O(n·m·k·(k + ε)·n/ε) time; the choices are kept for the allocation.

    Parameters
    ----------
    cpu : array_like
        p_j, each task's time on a CPU, shape ``(n,)`` (finite, >= 0).
    gpu : array_like
        p̄_j, each task's time on a GPU, shape ``(n,)``.
    cpus : int
        m, the number of CPUs (1 to ``MAX_MACHINES``).
    gpus : int
        k, the number of GPUs (1 to ``MAX_MACHINES``).
    lam : float
        λ, the guessed makespan (time units of the tasks).
    eps : float
        ε in (0, 1], the grid's precision (default 0.1): the guarantee is 3/2 + ε and the
        table grows as 1/ε.

    Returns
    -------
    numpy.ndarray or None
        ``on_cpu``, bool of shape ``(n,)`` (``True``: the task runs on a CPU), an allocation
        whose list schedule ends by (3/2 + ε)λ; ``None`` (NO): no schedule of length ``<= λ``
        exists.

    Raises
    ------
    InvalidInstanceError
        A bad time, times of different lengths, or a bad CPU or GPU count.
    SolverError
        The dynamic program's table would exceed ``DP_CELLS`` cells.
    """
    p, q, m, k = _inputs(cpu, gpu, cpus, gpus)
    n = p.size
    cap = _dp_capacity(n, m, k, eps)
    if ((p > lam) & (q > lam)).any():
        return None
    delta = eps * lam / max(n, 1)
    # a GPU area beyond the grid cannot be chosen: clip it before the integer cast
    units = np.ceil(np.minimum(q / delta, cap + 1.0) - 1e-9).astype(int)
    long_cpu, long_gpu = p > lam / 2, q > lam / 2
    inf = np.inf
    dp = np.full((m + 1, k + 1, cap + 1), inf)
    dp[0, 0, 0] = 0.0
    choice = np.zeros((n, m + 1, k + 1, cap + 1), bool)  # True: task on a CPU
    for j in range(n):
        on_cpu = np.full_like(dp, inf)
        if p[j] <= lam:  # may run on a CPU
            if long_cpu[j]:
                on_cpu[1:] = dp[:-1] + p[j]
            else:
                on_cpu = dp + p[j]
        on_gpu = np.full_like(dp, inf)
        if q[j] <= lam and units[j] <= cap:  # may run on a GPU
            u = units[j]
            if long_gpu[j]:
                on_gpu[:, 1:, u:] = dp[:, :-1, : cap + 1 - u]
            else:
                on_gpu[:, :, u:] = dp[:, :, : cap + 1 - u]
        choice[j] = on_cpu <= on_gpu
        dp = np.minimum(on_cpu, on_gpu)
    best = np.unravel_index(int(np.argmin(dp)), dp.shape)
    if not dp[best] <= m * lam * (1 + 1e-12):
        return None
    alloc = np.zeros(n, bool)
    mu, ka, a = (int(x) for x in best)
    for j in range(n - 1, -1, -1):
        if choice[j, mu, ka, a]:
            alloc[j] = True
            mu -= int(long_cpu[j])
        else:
            ka -= int(long_gpu[j])
            a -= int(units[j])
    return alloc


#: Largest table of the (3/2 + ε) dynamic program (``n·(m+1)·(k+1)·(cap+1)`` cells, one byte
#: each for the choices, plus the values): beyond it the DP would exhaust the memory.
DP_CELLS = 200_000_000


def _dp_capacity(n: int, m: int, k: int, eps: float) -> int:
    """``cap``, the DP's number of GPU-area units, ``floor((kλ + ελ)/δ)`` with
    ``δ = ελ/n`` (independent of λ); SolverError when the table would exceed
    :data:`DP_CELLS`."""
    if not (isinstance(eps, (int, float)) and 0 < eps <= 1):
        raise InvalidInstanceError("dp_eps", eps, "must be in (0, 1]")
    cap = int(np.floor((k + eps) * max(n, 1) / eps + 1e-9))
    cells = n * (m + 1) * (k + 1) * (cap + 1)
    if cells > DP_CELLS:
        raise SolverError(f"hybrid 3/2: the dynamic program would need {cells:.3g} cells for "
                          f"{n} tasks on {m} CPUs and {k} GPUs with dp_eps {eps:g} (limit "
                          f"{DP_CELLS:.0e}): use the 2-approximation (variant '2')")
    return cap


def _schedule_32(p: np.ndarray, q: np.ndarray, m: int, k: int, on_cpu: np.ndarray,
                 lam: float) -> MachineSchedule:
    """Long tasks first (one per processor), then the short ones, on each side."""
    cpu_tasks, gpu_tasks = np.flatnonzero(on_cpu), np.flatnonzero(~on_cpu)
    cpu_order = cpu_tasks[np.lexsort((cpu_tasks, ~(p[cpu_tasks] > lam / 2)))]
    gpu_order = gpu_tasks[np.lexsort((gpu_tasks, ~(q[gpu_tasks] > lam / 2)))]
    times = np.where(on_cpu, p, q)
    a = schedule_in_order(times, m, cpu_order)
    b = schedule_in_order(times, k, gpu_order, first_machine=m)
    start = np.where(on_cpu, a.start, b.start)
    return MachineSchedule(np.where(on_cpu, a.machine, b.machine), start, start + times)


def hybrid_lower_bound(cpu: ArrayLike, gpu: ArrayLike, cpus: int, gpus: int) -> float:
    """The CPU+GPU lower bound ``max(max_j min(p_j, p̄_j), Σ_j min(p_j, p̄_j)/(m + k))``.

    Every task takes at least its shorter time, and the ``m + k`` machines share at least
    the sum of those.

    Parameters
    ----------
    cpu : array_like
        p_j, each task's time on a CPU, shape ``(n,)`` (finite, >= 0).
    gpu : array_like
        p̄_j, each task's time on a GPU, shape ``(n,)``.
    cpus : int
        m, the number of CPUs (1 to ``MAX_MACHINES``).
    gpus : int
        k, the number of GPUs (1 to ``MAX_MACHINES``).

    Returns
    -------
    float
        The bound (0 for no task).

    Raises
    ------
    InvalidInstanceError
        A bad time, times of different lengths, or a bad CPU or GPU count.
    """
    p, q, m, k = _inputs(cpu, gpu, cpus, gpus)
    fast = np.minimum(p, q)
    return float(max(fast.max(initial=0.0), fast.sum() / (m + k)))


def hybrid_allocation_schedule(cpu: np.ndarray, gpu: np.ndarray, cpus: int, gpus: int,
                               on_cpu: np.ndarray, gpu_order: np.ndarray) -> MachineSchedule:
    """List-schedule an allocation: the CPU tasks by index, the GPU tasks in ``gpu_order``.

    Parameters
    ----------
    cpu : numpy.ndarray
        p_j, each task's time on a CPU, shape ``(n,)``.
    gpu : numpy.ndarray
        p̄_j, each task's time on a GPU, shape ``(n,)``.
    cpus : int
        m, the number of CPUs (machines ``0..m-1``).
    gpus : int
        k, the number of GPUs (machines ``m..m+k-1``).
    on_cpu : numpy.ndarray
        bool, shape ``(n,)``: the allocation (``True``: on a CPU).
    gpu_order : numpy.ndarray
        The indices of the GPU tasks, in the order the GPU list takes them.

    Returns
    -------
    MachineSchedule
        Each task's machine, start and end.
    """
    n = cpu.size
    times = np.where(on_cpu, cpu, gpu)
    a = schedule_in_order(times, cpus, np.flatnonzero(on_cpu))
    b = schedule_in_order(times, gpus, gpu_order, first_machine=cpus)
    machine = np.where(on_cpu, a.machine, b.machine)
    start = np.where(on_cpu, a.start, b.start)
    return MachineSchedule(machine, start, start + times[np.arange(n)])


def hybrid_schedule(cpu_times: ArrayLike, gpu_times: ArrayLike, cpus: int, gpus: int,
                    variant: str = "2", eps: float = 1e-6, dp_eps: float = 0.1,
                    ) -> Certified[MachineSchedule]:
    """Schedule independent tasks on CPUs and GPUs by a dual approximation, certified.

    The 2-dual-approximation (``variant="2"``, :func:`hybrid_step`) or the (3/2 +
    ``dp_eps``) one (``"3/2"``, :func:`hybrid_step_32`), with a binary search on ``λ`` to
    relative precision ``eps``.

    Parameters
    ----------
    cpu_times : array_like
        p_j, each task's time on a CPU, shape ``(n,)`` (finite, >= 0).
    gpu_times : array_like
        p̄_j, each task's time on a GPU, shape ``(n,)``.
    cpus : int
        m, the number of CPUs (1 to ``MAX_MACHINES``).
    gpus : int
        k, the number of GPUs (1 to ``MAX_MACHINES``).
    variant : str
        ``"2"`` (default, the knapsack step :func:`hybrid_step`) or ``"3/2"`` (the dynamic
        program :func:`hybrid_step_32`).
    eps : float
        The bisection's relative width on λ (> 0; default 1e-6); for ``"3/2"`` at least
        ``dp_eps/10``.
    dp_eps : float
        ε of the ``"3/2"`` variant, in (0, 1] (default 0.1): its guarantee is 3/2 + ε.

    Returns
    -------
    Certified of MachineSchedule
        The schedule (CPUs ``0..m-1``, GPUs ``m..m+k-1``), its makespan, the rejected λ as
        lower bound and the guarantee 2 or 3/2 + ``dp_eps``; ``extra`` holds the accepted and
        rejected λ, the number of bisection steps and of CPU tasks.

    Raises
    ------
    InvalidInstanceError
        A bad time, count, ``eps`` or ``dp_eps``.
    LpschedError
        An unknown variant.
    SolverError
        ``"3/2"``: the dynamic program would be too large (use ``"2"``).

    Examples
    --------
    >>> r = hybrid_schedule([4, 4, 1], [1, 1, 4], cpus=1, gpus=1)
    >>> r.makespan, r.holds()
    (2.0, True)
    """
    if variant not in ("2", "3/2"):
        raise LpschedError(f"unknown variant {variant!r}: '2' or '3/2'")
    p, q, m, k = _inputs(cpu_times, gpu_times, cpus, gpus)
    if variant == "3/2":
        return _hybrid_32(p, q, m, k, eps, dp_eps)
    if not (eps > 0 and math.isfinite(eps)):
        raise InvalidInstanceError("eps", eps, "must be > 0")
    if p.size == 0 or hybrid_lower_bound(p, q, m, k) == 0:
        return _instant("hybrid-2", p, q, m, k, 2.0)
    lo = hybrid_lower_bound(p, q, m, k)
    hi = float(np.maximum(p, q).sum())  # everything fits: accepted
    steps = 0
    while hi - lo > eps * max(lo, 1e-300):
        mid = 0.5 * (lo + hi)
        steps += 1
        if hybrid_step(p, q, m, k, mid) is None:
            lo = mid
        else:
            hi = mid
    on_cpu = hybrid_step(p, q, m, k, hi)
    assert on_cpu is not None
    gpu_tasks = np.flatnonzero(~on_cpu)
    forced = gpu_tasks[p[gpu_tasks] > hi]
    rest = np.setdiff1d(gpu_tasks, forced)
    with np.errstate(divide="ignore"):
        ratio = np.where(q[rest] > 0, p[rest] / np.where(q[rest] > 0, q[rest], 1.0), np.inf)
    order = np.concatenate([forced, rest[np.lexsort((rest, -ratio))]])
    sched = hybrid_allocation_schedule(p, q, m, k, on_cpu, order)
    if sched.makespan > 2 * hi * (1 + 1e-12):
        raise LpschedError("hybrid 2-approximation exceeded 2λ: this contradicts "
                           "Proposition 1 (please report)")
    return Certified("hybrid-2", sched, sched.makespan, lo, 2.0, tolerance=hi / lo - 1,
                     extra={"accepted_lambda": hi, "rejected_lambda": lo, "steps": steps,
                            "cpu_tasks": int(on_cpu.sum())})


def _instant(name: str, p: np.ndarray, q: np.ndarray, m: int, k: int,
             guarantee: float) -> Certified[MachineSchedule]:
    """No tasks, or every task takes no time on one side (lower bound 0): each on that
    side, makespan 0, optimal."""
    on_cpu = p == 0
    sched = hybrid_allocation_schedule(p, q, m, k, on_cpu, np.flatnonzero(~on_cpu))
    return Certified(name, sched, sched.makespan, 0.0, guarantee,
                     extra={"cpu_tasks": int(on_cpu.sum())})


def _hybrid_32(p: np.ndarray, q: np.ndarray, m: int, k: int, eps: float,
               dp_eps: float) -> Certified[MachineSchedule]:
    if not (0 < dp_eps <= 1):
        raise InvalidInstanceError("dp_eps", dp_eps, "must be in (0, 1]")
    _dp_capacity(p.size, m, k, dp_eps)  # refuse a DP too large before searching
    if p.size == 0 or hybrid_lower_bound(p, q, m, k) == 0:
        return _instant("hybrid-3/2", p, q, m, k, 1.5 + dp_eps)
    lo = hybrid_lower_bound(p, q, m, k)
    hi = float(np.maximum(p, q).sum())
    # the DP's precision is relative: searching closer than dp_eps/10 buys nothing
    tol = max(eps, dp_eps / 10)
    steps = 0
    while hi - lo > tol * max(lo, 1e-300):
        mid = 0.5 * (lo + hi)
        steps += 1
        if hybrid_step_32(p, q, m, k, mid, dp_eps) is None:
            lo = mid
        else:
            hi = mid
    on_cpu = hybrid_step_32(p, q, m, k, hi, dp_eps)
    if on_cpu is None:  # hi was accepted by construction (everything fits) or by a step
        on_cpu = np.zeros(p.size, bool) if k * hi >= q.sum() else np.ones(p.size, bool)
    sched = _schedule_32(p, q, m, k, on_cpu, hi)
    if sched.makespan > (1.5 + dp_eps) * hi * (1 + 1e-9):
        raise LpschedError("hybrid 3/2 dual approximation exceeded (3/2 + ε)λ (please report)")
    return Certified("hybrid-3/2", sched, sched.makespan, lo, 1.5 + dp_eps,
                     tolerance=hi / lo - 1,
                     extra={"accepted_lambda": hi, "rejected_lambda": lo, "steps": steps,
                            "cpu_tasks": int(on_cpu.sum())})
