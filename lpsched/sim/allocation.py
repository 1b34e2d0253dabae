"""Processor allocation for rigid jobs (seed 000 ch. 4–5, names of ch. 5 §5.6 [L3403–L3557]).

Processors are numbered in line, clusters of ``cluster_size`` consecutive ids. Each rule
gets the boolean mask of free processors and the job size, and returns the chosen ids, or
``None`` when a *forced* rule cannot place the job now (it then waits for the next change of
the platform's state):

* ``basic`` — the ``size`` lowest free ids (Alg. 2);
* ``becont`` — maximal contiguous free blocks by decreasing length, taken until ``size``
  processors are gathered; never delays;
* ``cont`` — only the largest contiguous block (ties: lowest ids); delays if it is too small;
* ``beloc`` — clusters by decreasing number of free processors, taken until ``size``
  processors are gathered (Alg. 4); never delays;
* ``loc`` — only the ``⌈size/ℓ⌉`` clusters with the most free processors (decision: the
  minimal number of clusters, which equals the ch. 5 "largest cluster only" rule for jobs
  that fit in a cluster); delays if they are not enough.
"""

from __future__ import annotations

import math

import numpy as np

from lpsched.errors import InvalidInstanceError

ALLOCATORS = ("basic", "becont", "cont", "beloc", "loc")
NEEDS_CLUSTERS = ("beloc", "loc")


def free_blocks(free: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Starts and lengths of the maximal runs of free processors."""
    edges = np.diff(np.concatenate([[0], free.astype(np.int8), [0]]))
    starts = np.flatnonzero(edges == 1)
    ends = np.flatnonzero(edges == -1)
    return starts, ends - starts


def allocate(rule: str, free: np.ndarray, size: int,
             cluster_size: int | None = None) -> np.ndarray | None:
    """Processor ids for a job of ``size`` under ``rule`` (module doc)."""
    if rule not in ALLOCATORS:
        raise InvalidInstanceError("alloc", rule, f"must be one of {ALLOCATORS}")
    if int(free.sum()) < size:
        return None
    if rule == "basic":
        return np.flatnonzero(free)[:size]
    if rule in ("becont", "cont"):
        starts, lengths = free_blocks(free)
        order = np.lexsort((starts, -lengths))
        if rule == "cont":
            best = order[0]
            if lengths[best] < size:
                return None
            return np.arange(starts[best], starts[best] + size)
        ids = np.concatenate([np.arange(starts[b], starts[b] + lengths[b]) for b in order])
        return ids[:size]
    if cluster_size is None or cluster_size < 1:
        raise InvalidInstanceError("cluster_size", cluster_size, f"{rule!r} needs clusters")
    clusters = math.ceil(free.size / cluster_size)
    padded = np.zeros(clusters * cluster_size, bool)
    padded[: free.size] = free
    counts = padded.reshape(clusters, cluster_size).sum(axis=1)
    order = np.lexsort((np.arange(clusters), -counts))
    if rule == "loc":
        order = order[: math.ceil(size / cluster_size)]
        if counts[order].sum() < size:
            return None
    ids = np.concatenate([c * cluster_size + np.flatnonzero(
        padded[c * cluster_size:(c + 1) * cluster_size]) for c in order])
    return ids[:size]


def is_contiguous(ids: np.ndarray) -> bool:
    s = np.sort(ids)
    return bool(s.size == 0 or s[-1] - s[0] == s.size - 1)


def is_local(ids: np.ndarray, cluster_size: int) -> bool:
    """The job spans the fewest clusters it can (one if it fits in a cluster)."""
    used = np.unique(np.asarray(ids) // cluster_size).size
    return used <= math.ceil(len(ids) / cluster_size)
