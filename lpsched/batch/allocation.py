"""Processor allocation for rigid jobs (seed 000 ch. 4–5, names of ch. 5 §5.6 [L3403–L3557]).

Processors are numbered in line, clusters of ``cluster_size`` consecutive ids. Each rule
gets the boolean mask of free processors and the job size, and returns the chosen ids, or
``None`` when a *forced* rule cannot place the job now (it then waits for the next change of
the platform's state):

* ``basic`` — the ``size`` lowest free ids (Alg. 2);
* ``becont`` — maximal contiguous free blocks by decreasing length, taken until ``size``
  processors are gathered; never delays;
* ``cont`` — only the largest contiguous block (ties: lowest ids); delays if it is too small;
* ``becont-ff`` / ``cont-ff`` — seed 000 ch. 4 Alg. 3 and its forced variant: the first
  (lowest-id) contiguous free run long enough, its first ids; otherwise ``basic`` /
  delay (A5.6: ch. 4 and ch. 5 give the same names to these two different rules);
* ``beloc`` — clusters by decreasing number of free processors, taken until ``size``
  processors are gathered (Alg. 4); never delays;
* ``loc`` — only the ``⌈size/ℓ⌉`` clusters with the most free processors (decision: the
  minimal number of clusters, which equals the ch. 5 "largest cluster only" rule for jobs
  that fit in a cluster); delays if they are not enough.

On a tree topology (:mod:`lpsched.batch.topology`; the free mask then covers every leaf,
uninstalled ones never free):

* ``beplat`` — Algorithm 5 of seed 000 [L3520–L3550]: levels bottom-up, in each level the
  first node (id order) whose subtree has ``size`` free processors; inside it, its clusters
  by decreasing free count (ties lower index); the root always succeeds, so it never delays;
* ``plat`` — the same restricted to level ``L_min(size)`` (A5.8); delays otherwise;
* ``contiguous`` — seed 001 §4.2: the first level-``L_min`` block (id order) with ``size``
  free processors, its lowest free ids; delays otherwise;
* ``quasi-contiguous`` — seed 001 §4.3: ``contiguous`` if possible, else, with
  ``M = ⌈qct·size/100⌉``, the level-``L_min`` block ``c`` (inside a level-``L_min+1`` block
  with ``size`` free) keeping the most free processors ``f`` with ``size − f <= M`` (ties
  lower index), all of ``c`` then the rest from its siblings by decreasing free count;
  delays otherwise.
"""

from __future__ import annotations

import math

import numpy as np

from lpsched.batch.topology import Topology
from lpsched.errors import InvalidInstanceError

ALLOCATORS = ("basic", "becont", "cont", "becont-ff", "cont-ff", "beloc", "loc", "beplat",
              "plat", "contiguous", "quasi-contiguous")
NEEDS_CLUSTERS = ("beloc", "loc")
NEEDS_TOPOLOGY = ("beplat", "plat", "contiguous", "quasi-contiguous")


def free_blocks(free: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Starts and lengths of the maximal runs of free processors.

    Parameters
    ----------
    free : numpy.ndarray
        The free mask of the machine (bool, one entry per processor id; seed 000 §5.6's
        processors as a line).

    Returns
    -------
    tuple of (numpy.ndarray, numpy.ndarray)
        The first id of each maximal run of free processors, increasing, and its length.
    """
    # the changes of a bool mask padded with a busy id at each side alternate run start,
    # run end (decision 460: one comparison of bools, not an int64 diff of the whole mask)
    padded = np.zeros(free.size + 2, bool)
    padded[1:-1] = free
    change = (padded[1:] != padded[:-1]).nonzero()[0]
    starts = change[0::2]
    return starts, change[1::2] - starts


BLOCK = 1024  # processors per bucket of the free counts a simulator may keep


def block_counts(free: np.ndarray) -> np.ndarray:
    """Free processors in each bucket of ``BLOCK`` consecutive ids: summed in place, so the
    memory is one count per bucket, not one id per free processor (8 bytes each: 80 MB on
    10^7 processors).

    Parameters
    ----------
    free : numpy.ndarray
        The free mask of the machine (bool, one entry per processor id; seed 000 §5.6's
        processors as a line).

    Returns
    -------
    numpy.ndarray
        int64, ``⌈len(free) / BLOCK⌉`` entries: the free processors of each bucket of
        :data:`BLOCK` consecutive ids (the last bucket may be shorter).
    """
    whole = free.size // BLOCK
    counts = np.zeros(-(-free.size // BLOCK), np.int64)
    free[: whole * BLOCK].reshape(whole, BLOCK).sum(axis=1, out=counts[:whole])
    if whole < counts.size:
        counts[whole] = np.count_nonzero(free[whole * BLOCK:])
    return counts


def lowest_free(free: np.ndarray, size: int, counts: np.ndarray) -> np.ndarray:
    """The ``size`` lowest free ids, reading only the buckets that have free processors
    (``counts`` from :func:`block_counts`, kept up to date by the caller).

    Parameters
    ----------
    free : numpy.ndarray
        The free mask of the machine (bool, one entry per processor id; seed 000 §5.6's
        processors as a line).
    size : int
        Processors wanted (at most the free count).
    counts : numpy.ndarray
        :func:`block_counts` of ``free``.

    Returns
    -------
    numpy.ndarray
        The ``size`` lowest free ids, increasing (``basic``, seed 000 §5.6 Alg. 2).
    """
    last = int(np.cumsum(counts).searchsorted(size))  # the bucket completing ``size``
    buckets = counts[: last + 1].nonzero()[0]
    if buckets.size > 4:  # many buckets: one scan of their span is cheaper than a loop
        lo = int(buckets[0]) * BLOCK
        return lo + free[lo:(last + 1) * BLOCK].nonzero()[0][:size]
    out = [b * BLOCK + free[b * BLOCK:(b + 1) * BLOCK].nonzero()[0] for b in buckets]
    return np.concatenate(out)[:size] if out else np.zeros(0, np.int64)


def allocate(rule: str, free: np.ndarray, size: int, cluster_size: int | None = None,
             topology: Topology | None = None, qct: int = 20,
             counts: np.ndarray | None = None,
             clusters: np.ndarray | None = None, total: int | None = None,
             blocks: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray | None:
    """Choose the processor ids of a job of ``size`` under ``rule`` (the module's list).

    ``counts`` (:func:`block_counts` of ``free``) lets ``basic`` skip busy buckets;
    ``clusters`` (:func:`cluster_counts` of ``free``) spares the cluster and tree rules a
    sum over the whole mask. Either gives the same ids as the mask alone.

    Parameters
    ----------
    rule : str
        One of :data:`ALLOCATORS` (seed 000 ch. 4–5 and seed 001 names).
    free : numpy.ndarray
        The free mask of the machine (bool, one entry per processor id; seed 000 §5.6's
        processors as a line).
    size : int
        The job's processors.
    cluster_size : int, optional
        Processors per cluster (``beloc``, ``loc``; seed 000 ch. 4's ``ℓ``).
    topology : Topology, optional
        The tree (``beplat``, ``plat``, ``contiguous``, ``quasi-contiguous``).
    qct : int
        The quasi-contiguity threshold, percent of ``size`` (seed 001; default 20).
    counts : numpy.ndarray, optional
        :func:`block_counts` of ``free``.
    clusters : numpy.ndarray, optional
        :func:`cluster_counts` of ``free`` for the clusters of ``cluster_size`` (the
        topology's when given), kept up to date by the caller.
    total : int, optional
        The free count of ``free``, when the caller keeps it.
    blocks : tuple of numpy.ndarray, optional
        :func:`free_blocks` of ``free``, when the caller keeps them (the run rules).

    Returns
    -------
    numpy.ndarray or None
        The ids chosen (``size`` of them), or ``None`` when a forced rule cannot place the
        job now (the scheduler then waits).

    Notes
    -----
    Decision 460: the kept counts give the same ids. Decision 390: a job of no processor
    gets none under every rule.
    """
    if rule not in ALLOCATORS:
        raise InvalidInstanceError("alloc", rule, f"must be one of {ALLOCATORS}")
    if total is None:
        total = int(counts.sum()) if counts is not None else int(free.sum())
    if total < size:
        return None
    if size == 0 and (topology is not None or rule not in NEEDS_TOPOLOGY):
        return np.zeros(0, np.int64)  # no processor, under every rule (decision 390)
    if rule in NEEDS_TOPOLOGY:
        if topology is None:
            raise InvalidInstanceError("topology", None, f"{rule!r} needs a tree topology")
        return _tree_rule(rule, free, size, topology, qct, clusters)
    if rule == "basic":
        return lowest_free(free, size, counts) if counts is not None else \
            free.nonzero()[0][:size]
    if rule in ("becont-ff", "cont-ff"):
        starts, lengths = blocks if blocks is not None else free_blocks(free)
        fit = (lengths >= size).nonzero()[0]
        if fit.size:
            return np.arange(starts[fit[0]], starts[fit[0]] + size)
        return None if rule == "cont-ff" else free.nonzero()[0][:size]
    if rule in ("becont", "cont"):
        starts, lengths = blocks if blocks is not None else free_blocks(free)
        if rule == "cont":  # the longest run, ties lower start: the first maximum
            best = int(lengths.argmax())
            if lengths[best] < size:
                return None
            return np.arange(starts[best], starts[best] + size)
        order = np.argsort(-lengths, kind="stable")  # ties: lower start (increasing)
        order = order[: int(np.cumsum(lengths[order]).searchsorted(size)) + 1]
        ids = np.concatenate([np.arange(starts[b], starts[b] + lengths[b]) for b in order])
        return ids[:size]
    if cluster_size is None or cluster_size < 1:
        raise InvalidInstanceError("cluster_size", cluster_size, f"{rule!r} needs clusters")
    count = math.ceil(free.size / cluster_size)
    if free.size == count * cluster_size:
        padded = free
    else:
        padded = np.zeros(count * cluster_size, bool)
        padded[: free.size] = free
    per_cluster = clusters if clusters is not None else \
        padded.reshape(count, cluster_size).sum(axis=1)
    if rule == "loc":
        order = np.argsort(-per_cluster, kind="stable")[: math.ceil(size / cluster_size)]
        if per_cluster[order].sum() < size:
            return None
    return _take_by_clusters(padded, 0, padded.size, size, cluster_size, per_cluster)


def cluster_counts(free: np.ndarray, cluster_size: int) -> np.ndarray:
    """Free processors in each cluster of ``cluster_size`` consecutive ids (the last one
    padded with busy ids), for :func:`allocate`'s ``clusters``.

    Parameters
    ----------
    free : numpy.ndarray
        The free mask of the machine (bool, one entry per processor id).
    cluster_size : int
        Processors per cluster (seed 000 ch. 4's ``ℓ``; a topology's ``B_1``).

    Returns
    -------
    numpy.ndarray
        int64, ``⌈len(free) / cluster_size⌉`` entries.
    """
    count = math.ceil(free.size / cluster_size)
    padded = np.zeros(count * cluster_size, bool)
    padded[: free.size] = free
    return padded.reshape(count, cluster_size).sum(axis=1, dtype=np.int64)


def placeable(rule: str, free: np.ndarray, sizes: np.ndarray,
              cluster_size: int | None = None, total: int | None = None,
              clusters: np.ndarray | None = None,
              blocks: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Say, per size, whether ``rule`` can place a job of that size on ``free`` at all.

    Exact for ``cont``/``cont-ff`` (the longest free run) and ``loc`` (the ``⌈size/ℓ⌉``
    fullest clusters), the free count for the other rules (a necessary condition there).
    One pass over the mask for a whole queue: a pass need not try a job its forced rule
    must refuse.

    Parameters
    ----------
    rule : str
        One of :data:`ALLOCATORS`.
    free : numpy.ndarray
        The free mask of the machine (bool, one entry per processor id; seed 000 §5.6's
        processors as a line).
    sizes : numpy.ndarray
        Job sizes (int).
    cluster_size : int, optional
        Processors per cluster (``loc``).
    total : int, optional
        The free count of ``free``, when the caller keeps it.
    clusters : numpy.ndarray, optional
        :func:`cluster_counts` of ``free``, when the caller keeps them.
    blocks : tuple of numpy.ndarray, optional
        :func:`free_blocks` of ``free``, when the caller keeps them.

    Returns
    -------
    numpy.ndarray
        bool, one per size: ``False`` when ``rule`` cannot place a job of that size now.
    """
    if total is None:
        total = int(np.count_nonzero(free))
    ok = sizes <= total
    if rule in ("cont", "cont-ff"):
        _, lengths = blocks if blocks is not None else free_blocks(free)
        return ok & (sizes <= (int(lengths.max()) if lengths.size else 0))
    if rule == "loc" and cluster_size:
        if clusters is None:
            clusters = cluster_counts(free, cluster_size)
        per = np.sort(clusters)[::-1]
        best = np.concatenate([[0], np.cumsum(per)])
        need = np.minimum(-(-sizes // cluster_size), clusters.size)
        return ok & (best[need] >= sizes)
    return ok


def _take_by_clusters(free: np.ndarray, lo: int, hi: int, size: int, cluster: int,
                      per_cluster: np.ndarray | None = None) -> np.ndarray:
    """``size`` free ids of ``[lo, hi)``, clusters by decreasing free count (ties lower),
    reading only the clusters needed (``per_cluster``: their free counts, if kept)."""
    if per_cluster is None:
        per_cluster = free[lo:hi].reshape(-1, cluster).sum(axis=1)
    # decreasing free count, ties lower index: a stable sort
    order = np.argsort(-per_cluster, kind="stable")
    order = order[: int(np.cumsum(per_cluster[order]).searchsorted(size)) + 1]
    # the chosen clusters' ids, cluster after cluster in that order, increasing inside
    # each: one gather instead of a slice and a search per cluster (decision 460)
    idx = (lo + order[:, None] * cluster + np.arange(cluster)).ravel()
    return idx[free[idx]][:size]


def _level_counts(topo: Topology, free: np.ndarray, level: int,
                  clusters: np.ndarray | None) -> np.ndarray:
    """Free processors per block of ``level``: from the kept cluster counts when given."""
    if clusters is None:
        return topo.block_counts(free, level)
    per = topo.block_sizes[level - 1] // topo.cluster_size
    return clusters if per == 1 else clusters.reshape(-1, per).sum(axis=1)


def _tree_rule(rule: str, free: np.ndarray, size: int, topo: Topology, qct: int,
               clusters: np.ndarray | None = None) -> np.ndarray | None:
    lmin = topo.min_level(size)
    cl = topo.cluster_size
    if rule in ("beplat", "plat"):
        for lvl in range(lmin, topo.levels + 1) if rule == "beplat" else (lmin,):
            counts = _level_counts(topo, free, lvl, clusters)
            ok = (counts >= size).nonzero()[0]
            if ok.size:
                b, bs = int(ok[0]), topo.block_sizes[lvl - 1]
                return _take_by_clusters(free, b * bs, (b + 1) * bs, size, cl,
                                         None if clusters is None else
                                         clusters[b * bs // cl:(b + 1) * bs // cl])
        return None
    bs = topo.block_sizes[lmin - 1]
    counts = _level_counts(topo, free, lmin, clusters)
    ok = (counts >= size).nonzero()[0]
    if ok.size:  # contiguous: first block, lowest free ids
        b = int(ok[0])
        return b * bs + free[b * bs:(b + 1) * bs].nonzero()[0][:size]
    if rule == "contiguous" or lmin == topo.levels:
        return None
    allowed = (qct * size + 99) // 100
    if allowed == 0:
        return None
    parent_bs = topo.block_sizes[lmin]
    per = parent_bs // bs
    parent_ok = np.repeat(_level_counts(topo, free, lmin + 1, clusters) >= size, per)
    cand = (parent_ok & (size - counts <= allowed)).nonzero()[0]
    if not cand.size:
        return None
    c = int(cand[counts[cand].argmax()])  # the most free, ties lower index
    keep = c * bs + free[c * bs:(c + 1) * bs].nonzero()[0]
    p = c // per
    siblings = [s for s in range(p * per, (p + 1) * per) if s != c]
    siblings.sort(key=lambda s: (-counts[s], s))
    rest = np.concatenate([s * bs + free[s * bs:(s + 1) * bs].nonzero()[0]
                           for s in siblings])
    return np.concatenate([keep, rest[: size - keep.size]])


def is_contiguous(ids: np.ndarray) -> bool:
    """Distinct ids (as every validated allocation) forming one run.

    Parameters
    ----------
    ids : numpy.ndarray
        A job's processor ids (distinct).

    Returns
    -------
    bool
        Whether the ids are one run of consecutive ids (an empty set counts as contiguous).
    """
    return bool(ids.size == 0 or int(ids.max()) - int(ids.min()) == ids.size - 1)


def is_local(ids: np.ndarray, cluster_size: int) -> bool:
    """The job spans the fewest clusters it can (one if it fits in a cluster).

    Parameters
    ----------
    ids : numpy.ndarray
        A job's processor ids.
    cluster_size : int
        Processors per cluster (ids ``c·ℓ .. (c+1)·ℓ − 1`` form cluster ``c``).

    Returns
    -------
    bool
        Whether the job uses at most ``⌈size/ℓ⌉`` clusters (seed 000 ch. 4's local job).

    Raises
    ------
    ZeroDivisionError
        ``cluster_size`` is 0: clusters of no processor hold no id and ``⌈size/0⌉`` has no
        value, so locality is undefined, neither true nor false (the answer of
        :func:`~lpsched.batch.validation.validate_batch` for ``local`` without clusters).
    """
    least = math.ceil(len(ids) / cluster_size)  # first: clusters of 0 processors raise here
    used = np.unique(np.asarray(ids) // cluster_size).size
    return used <= least


def _mask_of(bits: int, m: int) -> np.ndarray:
    """The boolean mask of the ``m`` low bits of ``bits`` (bit ``i`` = processor ``i``)."""
    raw = np.frombuffer(bits.to_bytes((m + 7) // 8, "little"), np.uint8)
    return np.unpackbits(raw, bitorder="little")[:m].astype(bool)


#: the slot a job of run time 0 holds its processors in :func:`slice_plan` (so no other job
#: starts on them at the same instant, as :func:`~lpsched.batch.simulator.validate_batch`
#: requires); its end stays its start
ZERO_RUN = 1e-6


def slice_plan(run: np.ndarray, size: np.ndarray, m: int, rule: str,
               cluster_size: int | None = None) -> tuple[np.ndarray, list[np.ndarray]]:
    """Plan jobs submitted at 0 by time slices: seed 000 ch. 4 Algorithm 1 offline.

    Jobs in queue order, each planned at the first time slice whose processors free over
    its whole run (``P = ∩ S[j]``, [000 L2771–L2773]) let ``rule`` choose ``size`` of
    them; a forced rule's refusal rejects that slice and the next is tried [000
    L2838–L2840]. The chosen processors are reserved at once (processor *sets*, not
    counts), so with exact run times every plan is the schedule. A job of run time 0 holds
    its processors :data:`ZERO_RUN` seconds.

    Parameters
    ----------
    run : numpy.ndarray
        The jobs' run times (all submitted at 0).
    size : numpy.ndarray
        The jobs' sizes, each in ``1..m``.
    m : int
        Processors.
    rule : str
        An allocator of :data:`ALLOCATORS` without a topology.
    cluster_size : int, optional
        ``ℓ`` for ``beloc``/``loc``.

    Returns
    -------
    tuple of (numpy.ndarray, list of numpy.ndarray)
        The start times and the processor ids of each job.

    Notes
    -----
    Algorithm 1 [000 L2759–L2786] read as the ch. 4 table's planner, reading (h) of
    decision 274.
    """
    if (size > m).any() or (size < 1).any():
        raise InvalidInstanceError("size", int(size.max()), f"every job needs 1..{m} "
                                   "processors")
    times, free = [0.0], [(1 << m) - 1]  # slice i = [times[i], times[i+1]), last unbounded
    starts = np.zeros(run.size)
    procs: list[np.ndarray] = []
    for p, s in zip(np.maximum(run, ZERO_RUN).tolist(), size.tolist(), strict=True):
        for i in range(len(times)):
            bits, j = free[i], i
            while bits.bit_count() >= s and j + 1 < len(times) and times[j + 1] < times[i] + p:
                j += 1
                bits &= free[j]
            if bits.bit_count() < s:
                continue
            ids = allocate(rule, _mask_of(bits, m), int(s), cluster_size)
            if ids is not None:
                break
        else:  # pragma: no cover - the last slice is the idle machine
            raise InvalidInstanceError("rule", rule, "refused a job on the idle machine")
        starts[len(procs)] = times[i]
        procs.append(ids)
        _reserve(times, free, times[i], times[i] + p, int(sum(1 << int(k) for k in ids)))
    return starts, procs


def _reserve(times: list[float], free: list[int], lo: float, hi: float, used: int) -> None:
    """Take the processors ``used`` (bits) out of every slice of ``[lo, hi)``, splitting the
    slices at ``hi`` (``lo`` is a slice start already)."""
    import bisect

    k = bisect.bisect_left(times, hi)
    if k == len(times) or times[k] != hi:
        times.insert(k, hi)
        free.insert(k, free[k - 1])
    for i in range(bisect.bisect_left(times, lo), k):
        free[i] &= ~used
