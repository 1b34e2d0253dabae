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
:class:`~lpsched.algorithms.certified.Certified` has ``makespan <= 2·λ_accepted`` and
``lower_bound`` = the largest λ proven infeasible (or the trivial bound). O(n log n) per
step, O(log(1/ε)) steps.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from lpsched.algorithms.certified import Certified, MachineSchedule, check_count, check_times
from lpsched.algorithms.listsched import schedule_in_order
from lpsched.errors import InvalidInstanceError, LpschedError


def _inputs(cpu: ArrayLike, gpu: ArrayLike, cpus: int, gpus: int,
            ) -> tuple[np.ndarray, np.ndarray, int, int]:
    p = check_times("cpu_times", cpu)
    q = check_times("gpu_times", gpu)
    if p.shape != q.shape:
        raise InvalidInstanceError("gpu_times", q.shape, f"needs one time per task ({p.size})")
    return p, q, check_count("cpus", cpus), check_count("gpus", gpus)


def hybrid_step(cpu: ArrayLike, gpu: ArrayLike, cpus: int, gpus: int,
                lam: float) -> np.ndarray | None:
    """The dual step at ``λ``: ``on_cpu`` (boolean per task) or ``None`` for NO."""
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


def hybrid_lower_bound(cpu: ArrayLike, gpu: ArrayLike, cpus: int, gpus: int) -> float:
    """``max(max_j min(p_j, p̄_j), Σ_j min(p_j, p̄_j)/(m + k))`` <= OPT."""
    p, q, m, k = _inputs(cpu, gpu, cpus, gpus)
    fast = np.minimum(p, q)
    return float(max(fast.max(initial=0.0), fast.sum() / (m + k)))


def hybrid_allocation_schedule(cpu: np.ndarray, gpu: np.ndarray, cpus: int, gpus: int,
                               on_cpu: np.ndarray, gpu_order: np.ndarray) -> MachineSchedule:
    """List schedules of an allocation: CPU tasks by index, GPU tasks in ``gpu_order``."""
    n = cpu.size
    times = np.where(on_cpu, cpu, gpu)
    a = schedule_in_order(times, cpus, np.flatnonzero(on_cpu))
    b = schedule_in_order(times, gpus, gpu_order, first_machine=cpus)
    machine = np.where(on_cpu, a.machine, b.machine)
    start = np.where(on_cpu, a.start, b.start)
    return MachineSchedule(machine, start, start + times[np.arange(n)])


def hybrid_schedule(cpu_times: ArrayLike, gpu_times: ArrayLike, cpus: int, gpus: int,
                    variant: str = "2", eps: float = 1e-6) -> Certified:
    """The 2-dual-approximation with binary search on ``λ`` (relative precision ``eps``).

    >>> r = hybrid_schedule([4, 4, 1], [1, 1, 4], cpus=1, gpus=1)
    >>> r.makespan, r.holds()
    (2.0, True)
    """
    if variant != "2":
        raise LpschedError(f"unknown variant {variant!r}: the 2-approximation ('2') is built")
    p, q, m, k = _inputs(cpu_times, gpu_times, cpus, gpus)
    if not (eps > 0 and math.isfinite(eps)):
        raise InvalidInstanceError("eps", eps, "must be > 0")
    if p.size == 0:
        empty = MachineSchedule(np.zeros(0, int), np.zeros(0), np.zeros(0))
        return Certified("hybrid-2", empty, 0.0, 0.0, 2.0)
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
