"""Rigid parallel jobs on clusters: NFDH strip packing and NFDH+LS (seed 000 chapter 4,
Theorem 4 [L2507–L2582]), with every job contiguous and local.

Job ``j`` needs ``size_j`` processors for ``p_j``; the platform has ``k`` clusters of ``ℓ``
processors (``m = kℓ``), and every job fits in a cluster (``size_j <= ℓ``).

* :func:`nfdh` — Next-Fit Decreasing Height (Coffman et al.): rectangles of width
  ``w_j <= 1`` by non-increasing height, next-fit into batches. Lemma 1:
  ``Σ_i H_i <= 2·Σ_j w_j·h_j + H_1``.
* :func:`nfdh_ls` — each NFDH batch (widths ``size_j/ℓ``) becomes one pseudo-job of length
  ``H_i``, list-scheduled on the ``k`` clusters (Lemma 2); inside its cluster a batch's jobs
  sit side by side on contiguous processors from the batch's start. Theorem 4:
  ``Cmax <= 2A/m + pmax/k + (1 − 1/k)·pmax <= 3·max(A/m, pmax)``, ``A = Σ_j p_j·size_j``.
  O(n log n).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from lpsched.approx.certified import Certified, check_count, check_times
from lpsched.errors import InvalidInstanceError, InvalidScheduleError


@dataclass(frozen=True)
class RigidSchedule:
    """A schedule of rigid jobs on contiguous processors.

    Job ``j`` occupies processors ``first[j]`` to ``first[j] + size[j] − 1`` during
    ``[start[j], end[j]]``; processors are numbered cluster by cluster."""

    start: np.ndarray
    end: np.ndarray
    first: np.ndarray
    size: np.ndarray

    @property
    def makespan(self) -> float:
        """Completion time of the last job; 0 for an empty schedule."""
        return float(self.end.max()) if self.end.size else 0.0

    # the machine-schedule interface of Certified
    @property
    def machine(self) -> np.ndarray:
        """First processor of each job (``first``): the machine-schedule interface of
        :class:`~lpsched.approx.certified.Certified`."""
        return self.first

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: lists ``start``, ``end``, ``first`` and ``size`` indexed by job (the
        ``schedule`` field of :meth:`~lpsched.approx.certified.Certified.to_dict`).

        Returns
        -------
        dict of str to list
            ``start`` and ``end`` (times), ``first`` (first processor) and ``size`` (processor
            count), one entry per job.
        """
        return {k: getattr(self, k).tolist() for k in ("start", "end", "first", "size")}


def _jobs(jobs: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    arr = np.asarray(jobs, dtype=float)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise InvalidInstanceError("jobs", arr.shape, "expected rows (time, size)")
    p = check_times("jobs[:, 0] (times)", arr[:, 0])
    size = arr[:, 1]
    if (size < 1).any() or (size != np.round(size)).any() or not np.isfinite(size).all():
        i = int(np.argmax((size < 1) | (size != np.round(size)) | ~np.isfinite(size)))
        raise InvalidInstanceError(f"jobs[{i}] size", float(size[i]), "must be a whole "
                                   "number of processors >= 1")
    return p, size.astype(int)


def nfdh(widths: ArrayLike, heights: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Pack rectangles by Next-Fit Decreasing Height: each one's batch and each batch's height.

    Parameters
    ----------
    widths : array_like
        The width of each rectangle, a fraction of the strip's width (in (0, 1]), shape
        ``(n,)``.
    heights : array_like
        The height of each rectangle (a job's processing time), shape ``(n,)``.

    Returns
    -------
    batch : numpy.ndarray
        int, shape ``(n,)``: the batch (shelf) of each rectangle, batches numbered in the order
        NFDH opens them (rectangles by decreasing height, ties by index).
    height : numpy.ndarray
        The height of each batch, its first (tallest) rectangle's.
    """
    w = np.asarray(widths, float)
    h = np.asarray(heights, float)
    order = np.lexsort((np.arange(h.size), -h))
    batch = np.empty(h.size, int)
    heights_out: list[float] = []
    used = 2.0  # forces a first batch
    b = -1
    wl = w[order].tolist()
    hl = h[order].tolist()
    out = [0] * h.size
    for pos, (wi, hi) in enumerate(zip(wl, hl, strict=True)):
        if used + wi > 1.0 + 1e-12:
            b += 1
            used = 0.0
            heights_out.append(hi)  # the first (tallest) rectangle sets the batch height
        used += wi
        out[pos] = b
    batch[order] = out
    return batch, np.asarray(heights_out)


def nfdh_ls(jobs: ArrayLike, clusters: int, cluster_size: int) -> Certified[RigidSchedule]:
    """Schedule rigid jobs on clusters by NFDH+LS, contiguous and local, certified ratio 3.

    Theorem 4 of seed 000 ch. 4: ``Cmax <= 3·max(A/m, pmax)``.

    Parameters
    ----------
    jobs : array_like
        Shape ``(n, 2)``: rows ``(time, size)``, a rigid job's processing time (>= 0) and its
        number of processors (a whole number >= 1, at most ``cluster_size``).
    clusters : int
        k, the number of clusters.
    cluster_size : int
        ℓ, the processors per cluster (m = k·ℓ in all).

    Returns
    -------
    Certified of RigidSchedule
        The schedule (each job's start, end, first processor and size), its makespan, the
        lower bound ``max(A/m, pmax)`` and the guarantee 3; ``extra`` holds the number of
        batches and the theorem's bound ``2A/m + pmax/k + (1 − 1/k)·pmax``.

    Raises
    ------
    InvalidInstanceError
        ``jobs`` not of rows (time, size), a bad time or size, a job wider than a cluster, or
        a bad cluster count or size.

    Examples
    --------
    >>> r = nfdh_ls([[1, 2], [1, 2], [1, 2]], clusters=2, cluster_size=3)
    >>> r.makespan, r.lower_bound, r.holds()
    (2.0, 1.0, True)
    """
    p, size = _jobs(jobs)
    k = check_count("clusters", clusters)
    ell = check_count("cluster_size", cluster_size)
    if (size > ell).any():
        i = int(np.argmax(size > ell))
        raise InvalidInstanceError(f"jobs[{i}] size", int(size[i]),
                                   f"wider than a cluster ({ell} processors): locality "
                                   "cannot hold")
    if p.size == 0:
        z = np.zeros(0)
        return Certified("nfdh-ls", RigidSchedule(z, z, z.astype(int), z.astype(int)), 0.0,
                         0.0, 3.0)
    batch, height = nfdh(size / ell, p)
    heap = [(0.0, c) for c in range(k)]
    b_start = np.empty(height.size)
    b_cluster = np.empty(height.size, int)
    for i, hgt in enumerate(height.tolist()):
        free, c = heapq.heappop(heap)
        b_start[i], b_cluster[i] = free, c
        heapq.heappush(heap, (free + hgt, c))
    # offsets of the jobs inside their batch (jobs of a batch in NFDH order)
    order = np.lexsort((np.arange(p.size), -p))
    sizes_sorted = size[order]
    cum = np.cumsum(sizes_sorted) - sizes_sorted
    batch_sorted = batch[order]
    first_of_batch = np.r_[True, batch_sorted[1:] != batch_sorted[:-1]]
    base = np.maximum.accumulate(np.where(first_of_batch, cum, 0))
    offset = np.empty(p.size, int)
    offset[order] = cum - base
    start = b_start[batch]
    first = b_cluster[batch] * ell + offset
    sched = RigidSchedule(start, start + p, first, size)
    area = float((p * size).sum())
    lb = max(area / (k * ell), float(p.max()))
    return Certified("nfdh-ls", sched, sched.makespan, lb, 3.0,
                     extra={"batches": int(height.size),
                            "theorem_bound": 2 * area / (k * ell) + p.max() / k
                            + (1 - 1 / k) * p.max()})


def validate_rigid(p: np.ndarray, size: np.ndarray, sched: RigidSchedule, processors: int,
                   cluster_size: int | None = None, contiguous: bool = True,
                   local: bool = False) -> None:
    """Check a rigid-job schedule independently of the algorithm that made it.

    No processor runs two jobs at once; sizes and durations are the jobs'; ranges lie inside
    the machine (contiguous by representation) and, if ``local``, inside one cluster.

    Parameters
    ----------
    p : numpy.ndarray
        Each job's processing time, shape ``(n,)``.
    size : numpy.ndarray
        Each job's number of processors, shape ``(n,)``.
    sched : RigidSchedule
        The schedule to check.
    processors : int
        The machine's processor count; processors are ``0..processors-1``.
    cluster_size : int or None
        Processors per cluster; needed when ``local``.
    contiguous : bool
        Kept for symmetry: a :class:`RigidSchedule` holds a processor range, contiguous by
        construction (default ``True``).
    local : bool
        Also require each job inside one cluster (default ``False``).

    Raises
    ------
    InvalidScheduleError
        At the first violation: a duration or size not the job's, a processor outside the
        machine, a job spanning clusters, or two jobs at once on a processor.
    """
    if not np.allclose(sched.end - sched.start, p) or (sched.size != size).any():
        raise InvalidScheduleError("duration", "a job's duration or size is not its own")
    last = sched.first + sched.size - 1
    if (sched.first < 0).any() or (last >= processors).any():
        raise InvalidScheduleError("processors", "a job uses processors outside the machine")
    if local:
        assert cluster_size is not None
        bad = sched.first // cluster_size != last // cluster_size
        if bad.any():
            raise InvalidScheduleError("locality", f"job {int(np.argmax(bad))} spans clusters",
                                       int(np.argmax(bad)))
    # sweep: at each processor, intervals must not overlap (check by processor ranges)
    events = sorted(zip(sched.start.tolist(), range(p.size), strict=True))
    busy_until = np.zeros(processors)
    for t, j in events:
        rng = slice(int(sched.first[j]), int(last[j]) + 1)
        if (busy_until[rng] > t + 1e-9 * max(1.0, abs(t))).any():
            raise InvalidScheduleError("overlap", f"job {j} starts on a busy processor", j)
        busy_until[rng] = sched.end[j]
