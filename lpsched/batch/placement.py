"""Where each job of a schedule sits, read from its processor runs for every job at once.

A schedule's processor sets, read once as runs of consecutive ids
(:meth:`~lpsched.batch.schedule.BatchSchedule.runs`), give each job's placement in a few
numpy passes over the runs: its lowest and highest id (:func:`extent`), the clusters it
spans (:func:`clusters_used`, :func:`local`: seed 000 ch. 4's local job), its platform
level on a tree (:func:`levels`, :func:`min_levels`: seed 000 ch. 5 §5.3's ``L_cur`` and
``L_min``) and the share of contiguous jobs (:func:`contiguous_share`). Each gives, job by
job, what the one-job functions of :mod:`lpsched.batch.allocation` and
:class:`~lpsched.batch.topology.Topology` give for one id array (the same float division
and ceiling), so the validation (:mod:`lpsched.batch.validation`) and the measures
(:mod:`lpsched.batch.schedule`) read the same values either way.

Notes
-----
Decisions 480-482: the runs are read once per schedule, and the per-job rules and factors
are computed from them for all jobs at once.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lpsched.batch.procsets import ProcSets
from lpsched.batch.topology import Topology


def integral(procs: Sequence[np.ndarray]) -> bool:
    """Say whether every job's ids are whole numbers (what the vectorised readings assume).

    Parameters
    ----------
    procs : sequence of numpy.ndarray
        Per job, its processor ids (a :class:`~lpsched.batch.procsets.ProcSets` always
        holds whole numbers).

    Returns
    -------
    bool
        ``True`` when every array is of an integer dtype.
    """
    return isinstance(procs, ProcSets) or all(np.asarray(p).dtype.kind in "iu"
                                              for p in procs)


def extent(runs: ProcSets) -> tuple[np.ndarray, np.ndarray]:
    """Give each job's lowest id and its highest id + 1 (0 and 0 for a job without any).

    Parameters
    ----------
    runs : ProcSets
        Every job's processors as runs, each job's in increasing order.

    Returns
    -------
    tuple of (numpy.ndarray, numpy.ndarray)
        Per job, the first id and one past the last (int64).
    """
    offsets = runs.offsets
    held = np.flatnonzero(np.diff(offsets) > 0)
    first, last = np.zeros(len(runs), np.int64), np.zeros(len(runs), np.int64)
    first[held], last[held] = runs.lo[offsets[held]], runs.hi[offsets[held + 1] - 1]
    return first, last


def clusters_used(runs: ProcSets, cluster_size: int) -> np.ndarray:
    """Count the distinct clusters (``id // cluster_size``) each job's ids fall in.

    Each run spans ``last − first + 1`` clusters, less one where a run starts in the
    cluster its predecessor of the same job ends in: :meth:`Topology.clusters_used` of
    every job.

    Parameters
    ----------
    runs : ProcSets
        Every job's processors as runs, each job's in increasing order.
    cluster_size : int
        Processors per cluster (> 0).

    Returns
    -------
    numpy.ndarray
        Per job, the clusters it uses (int64).
    """
    first = runs.lo // cluster_size
    last = (runs.hi - 1) // cluster_size
    part = (last - first + 1).astype(np.int64)
    if part.size > 1:
        inner = np.ones(part.size - 1, bool)  # run r and r + 1 belong to the same job
        bounds = runs.offsets[1:-1]
        inner[bounds[(bounds > 0) & (bounds < part.size)] - 1] = False
        part[1:] -= inner & (first[1:] == last[:-1])
    total = np.zeros(part.size + 1, np.int64)
    np.cumsum(part, out=total[1:])
    return total[runs.offsets[1:]] - total[runs.offsets[:-1]]


def local(runs: ProcSets, cluster_size: int) -> np.ndarray:
    """Say, per job, whether it spans the fewest clusters it can (seed 000 ch. 4).

    Parameters
    ----------
    runs : ProcSets
        Every job's processors as runs, each job's in increasing order.
    cluster_size : int
        Processors per cluster (> 0).

    Returns
    -------
    numpy.ndarray
        Per job, :func:`~lpsched.batch.allocation.is_local`: clusters used ``<=
        ⌈size/ℓ⌉`` (the same float division and ceiling), bool.
    """
    least = np.ceil(runs.sizes() / cluster_size)
    return clusters_used(runs, cluster_size) <= least


def levels(runs: ProcSets, topology: Topology) -> np.ndarray:
    """Give each job's platform level ``L_cur`` on a tree (seed 000 ch. 5 §5.3).

    Parameters
    ----------
    runs : ProcSets
        Every job's processors as runs, each job holding at least one id.
    topology : Topology
        The tree.

    Returns
    -------
    numpy.ndarray
        Per job, :meth:`Topology.level_of`: the smallest level whose aligned block holds
        its lowest and its highest id (int64).
    """
    first, last = extent(runs)
    last = last - 1
    level = np.full(len(runs), topology.levels, np.int64)
    for lvl in range(topology.levels, 0, -1):
        b = topology.block_sizes[lvl - 1]
        level[first // b == last // b] = lvl
    return level


def min_levels(size: np.ndarray, topology: Topology) -> np.ndarray:
    """Give the minimal platform level ``L_min`` of each job size on a tree.

    Parameters
    ----------
    size : numpy.ndarray
        Job sizes, at most the tree's leaves.
    topology : Topology
        The tree.

    Returns
    -------
    numpy.ndarray
        Per size, :meth:`Topology.min_level`: one plus the levels whose blocks are smaller
        (int64).
    """
    level = np.ones(size.size, np.int64)
    for b in topology.block_sizes:
        level += size > b
    return level


def contiguous_share(runs: ProcSets) -> float:
    """Give the share of jobs whose ids form one run of consecutive ids.

    Parameters
    ----------
    runs : ProcSets
        Every job's processors as runs, each job's in increasing order.

    Returns
    -------
    float
        The mean of :func:`~lpsched.batch.allocation.is_contiguous` over the jobs, read
        from the runs (``highest − lowest + 1 = size``); NaN without jobs.
    """
    first, last = extent(runs)
    return float(np.mean(last - first == runs.sizes())) if len(runs) else float("nan")
