"""Tree topologies of batch clusters: seed 000 ch. 5's fat tree and seed 001's k-ary n-tree.

The fat tree of seed 000 ch. 5 §4.2 and the k-ary n-tree of seed 001 §2 are kept as
aligned blocks of processor ids, with an explicit networkx graph for inspection and path
checks.

Both are hierarchies of **levels** ``1..L``: a level-``l`` node (switch) serves an aligned
block ``[b·B_l, (b+1)·B_l)`` of processor ids, ``B_1`` being a cluster (one leaf switch) and
``B_L`` the whole tree. The distance notions of the seeds follow from the block sizes:

* platform level of an allocation (seed 000 [L3499–L3518]) — ``1`` if every processor is in
  one cluster, ``+1`` per level the traffic climbs: the smallest ``l`` whose block holds them
  all (:meth:`Topology.level_of`);
* minimal level of a size (``L_min``, seed 000; ``level(s)``, seed 001 §2.2): the smallest
  ``l`` with ``B_l >= size`` (:meth:`Topology.min_level`);
* clusters used and their minimum ``⌈size/B_1⌉`` (locality, seed 000 ch. 4–5);
* hops between two processors: ``2·lca`` links (seed 001 §2.1, :meth:`Topology.hops`).

``fat-tree:c,a2,...,aL`` has clusters of ``c`` processors and ``a_l`` level-``(l−1)`` nodes
under each level-``l`` switch (seed 000 Fig. 5.1 is ``fat-tree:2,2,2``; the seed gives no
shapes for its platforms, decision 51). ``kary-ntree:k,n`` has ``k^n`` nodes, blocks
``B_i = k^i`` and ``k^(i−1)`` switches per level-``i`` block, wired as Petrini & Vanneschi.
Processors beyond ``installed`` (the trace's machine) are uninstalled: the highest ids,
never free (seed 001 §2.3 ``uninstalled="tail"``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lpsched.errors import InvalidInstanceError


@dataclass(frozen=True)
class Topology:
    """Aligned processor blocks per level; ``kind`` is ``"fat-tree"`` or ``"kary-ntree"``."""

    kind: str
    block_sizes: tuple[int, ...]
    installed: int
    arity: tuple[int, ...] = ()
    _graph: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def leaves(self) -> int:
        """Number of leaves (processor ids) of the tree, installed or not: ``B_L``.

        Returns
        -------
        int
            ``block_sizes[-1]``.
        """
        return self.block_sizes[-1]

    @property
    def levels(self) -> int:
        """Number of levels ``L`` of the hierarchy.

        Returns
        -------
        int
            ``len(block_sizes)``: level 1 is a cluster, level ``L`` the whole tree.
        """
        return len(self.block_sizes)

    @property
    def cluster_size(self) -> int:
        """Processors of one cluster (one leaf switch), ``B_1``.

        Returns
        -------
        int
            ``block_sizes[0]`` (seed 000 ch. 4's ``ℓ``).
        """
        return self.block_sizes[0]

    def min_level(self, size: int) -> int:
        """``L_min``: the smallest level whose block can hold ``size`` processors.

        Parameters
        ----------
        size : int
            Processors of a job.

        Returns
        -------
        int
            ``L_min`` of seed 000 §5.3 (1-based); an error when the job is wider than the tree.
        """
        for lvl, b in enumerate(self.block_sizes, start=1):
            if b >= size:
                return lvl
        raise InvalidInstanceError("size", size, f"wider than the {self.leaves}-leaf tree")

    def level_of(self, ids: np.ndarray) -> int:
        """Platform level of an allocation: the smallest level with one block holding all.

        Parameters
        ----------
        ids : numpy.ndarray
            A job's processor ids (leaves of the tree).

        Returns
        -------
        int
            ``L_cur`` of seed 000 §5.3 (1-based): the level of the smallest aligned block holding
            every id.
        """
        arr = ids if isinstance(ids, np.ndarray) else np.asarray(ids)
        lo, hi = int(arr.min()), int(arr.max())  # the methods: no dispatch per call
        for lvl, b in enumerate(self.block_sizes, start=1):
            if lo // b == hi // b:
                return lvl
        return self.levels

    def clusters_used(self, ids: np.ndarray) -> int:
        """Number of distinct clusters the processors ``ids`` lie in (locality, seed 000 ch.
        4–5).

        Parameters
        ----------
        ids : numpy.ndarray
            A job's processor ids (leaves of the tree).

        Returns
        -------
        int
            Distinct level-1 blocks among the ids.
        """
        return int(np.unique(np.asarray(ids) // self.cluster_size).size)

    def min_clusters(self, size: int) -> int:
        """The fewest clusters ``size`` processors can lie in: ``⌈size/B_1⌉``.

        Parameters
        ----------
        size : int
            Processors of a job.

        Returns
        -------
        int
            ``⌈size / B_1⌉``, the denominator of seed 000's locality factor.
        """
        return math.ceil(size / self.cluster_size)

    def hops(self, p: int, q: int) -> int:
        """Links on a shortest path between processors ``p`` and ``q``: ``2·lca``.

        Parameters
        ----------
        p, q : int
            Two processor ids.

        Returns
        -------
        int
            ``0`` for the same processor, else twice the level of their lowest common switch.
        """
        return 0 if p == q else 2 * self.level_of(np.array([p, q]))

    def free_mask(self) -> np.ndarray:
        """All installed processors free, the uninstalled tail busy.

        Returns
        -------
        numpy.ndarray
            bool, ``leaves`` entries: ``True`` for the ``installed`` first leaves.
        """
        mask = np.zeros(self.leaves, bool)
        mask[: self.installed] = True
        return mask

    def block_counts(self, free: np.ndarray, level: int) -> np.ndarray:
        """Free processors in every block of ``level`` (``free`` has ``leaves`` entries).

        Parameters
        ----------
        free : numpy.ndarray
            The free mask (bool, ``leaves`` entries).
        level : int
            The level (1-based) whose aligned blocks are counted.

        Returns
        -------
        numpy.ndarray
            The free processors of each block of ``level``, in block order.
        """
        return free.reshape(-1, self.block_sizes[level - 1]).sum(axis=1)

    def graph(self) -> Any:
        """The explicit network as a ``networkx.Graph`` (built once): processors
        ``("p", i)``, switches ``("s", level, index)``.

        Returns
        -------
        networkx.Graph
            Processors and switches with their links (networkx imported here only).
        """
        if "g" not in self._graph:
            self._graph["g"] = _fat_tree_graph(self) if self.kind == "fat-tree" else \
                _kary_graph(self)
        return self._graph["g"]

    def describe(self) -> dict[str, Any]:
        """The JSON form: ``kind``, ``block_sizes``, ``leaves``, ``installed`` and ``arity`` (the
        ``topology`` field of ``lpsched batch --json``).

        Returns
        -------
        dict
            ``{"kind", "block_sizes", "leaves", "installed", "arity"}``.
        """
        return {"kind": self.kind, "block_sizes": list(self.block_sizes),
                "leaves": self.leaves, "installed": self.installed,
                "arity": list(self.arity)}


#: the most leaves a tree may have: the simulator keeps a mask over every leaf, and the
#: smallest tree covering the largest machine (10^7 processors) may be a few times larger
MAX_LEAVES = 2**27


def fat_tree(cluster_size: int, arities: tuple[int, ...] | list[int],
             installed: int | None = None) -> Topology:
    """Clusters of ``cluster_size`` processors; ``arities[i]`` children per switch of level
    ``i + 2``; at most :data:`MAX_LEAVES` leaves.

    Parameters
    ----------
    cluster_size : int
        Processors per leaf switch (seed 000 ch. 5: 16 by default in the reproduction).
    arities : sequence of int
        Children per switch above the clusters, from level 2 up.
    installed : int, optional
        Processors present (the first leaves); default every leaf.

    Returns
    -------
    Topology
        ``kind="fat-tree"``, ``block_sizes`` ``ℓ, ℓ·a2, ℓ·a2·a3, ...``.
    """
    sizes = [_leaves(_positive("cluster size", cluster_size), "fat-tree")]
    for a in arities:
        sizes.append(_leaves(sizes[-1] * _positive("arity", a), "fat-tree"))
    return Topology("fat-tree", tuple(sizes), _installed(installed, sizes[-1]),
                    (cluster_size, *arities))


def kary_ntree(k: int, n: int, installed: int | None = None) -> Topology:
    """``k^n`` processors, level-``i`` blocks of ``k^i`` (seed 001 §2.1); at most
    :data:`MAX_LEAVES`.

    Parameters
    ----------
    k : int
        Arity, at least 2.
    n : int
        Levels.
    installed : int, optional
        Processors present (the first leaves); default every leaf.

    Returns
    -------
    Topology
        ``kind="kary-ntree"``, ``block_sizes`` ``k, k², ..., kⁿ``.
    """
    k, n = _positive("k", k), _positive("n", n)
    if k < 2:
        raise InvalidInstanceError("k", k, "a k-ary n-tree needs k >= 2")
    sizes = [_leaves(k, "kary-ntree")]
    while len(sizes) < n:  # stops at the first size past the bound, whatever n is
        sizes.append(_leaves(sizes[-1] * k, "kary-ntree"))
    return Topology("kary-ntree", tuple(sizes), _installed(installed, sizes[-1]), (k, n))


def _leaves(count: int, kind: str) -> int:
    if count > MAX_LEAVES:
        raise InvalidInstanceError("topology", kind, f"more than {MAX_LEAVES:,} leaves "
                                   "(2^27), the largest tree lpsched simulates")
    return count


def parse_topology(spec: str, installed: int | None = None) -> Topology:
    """``fat-tree:c,a2,...`` or ``kary-ntree:k,n`` (the CLI's ``--topology``).

    Parameters
    ----------
    spec : str
        ``fat-tree:CLUSTER,ARITY,...`` or ``kary-ntree:K,N``.
    installed : int, optional
        The machine size (processors present); default every leaf.

    Returns
    -------
    Topology
        The tree; :class:`~lpsched.errors.InvalidInstanceError` naming the problem otherwise.
    """
    kind, _, params = spec.partition(":")
    try:
        values = [int(v) for v in params.split(",") if v.strip()]
    except ValueError:
        raise InvalidInstanceError("topology", spec, "parameters must be whole numbers") \
            from None
    if kind == "fat-tree" and values:
        return fat_tree(values[0], values[1:], installed)
    if kind == "kary-ntree" and len(values) == 2:
        return kary_ntree(values[0], values[1], installed)
    raise InvalidInstanceError("topology", spec, "expected fat-tree:CLUSTER,ARITY,... or "
                               "kary-ntree:K,N")


def _positive(name: str, v: int) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
        raise InvalidInstanceError(name, v, "must be a whole number >= 1")
    return int(v)


def _installed(installed: int | None, leaves: int) -> int:
    if installed is None:
        return leaves
    if not 1 <= installed <= leaves:
        raise InvalidInstanceError("topology", leaves, f"has fewer processors than the "
                                   f"machine ({installed}): choose a larger tree")
    return int(installed)


def _fat_tree_graph(t: Topology) -> Any:
    import networkx as nx

    g = nx.Graph()
    for i in range(t.leaves):
        g.add_edge(("p", i), ("s", 1, i // t.cluster_size))
    for lvl in range(1, t.levels):
        ratio = t.block_sizes[lvl] // t.block_sizes[lvl - 1]
        for b in range(t.leaves // t.block_sizes[lvl - 1]):
            g.add_edge(("s", lvl, b), ("s", lvl + 1, b // ratio))
    return g


def _kary_graph(t: Topology) -> Any:
    """Petrini–Vanneschi wiring: ``k^(n−1)`` switches per stage, switch ``w`` of stage ``i``
    linked to switch ``w'`` of stage ``i+1`` when they differ at most in base-``k`` digit
    ``i − 1`` of ``w``; node ``p`` on switch ``p // k`` of stage 1."""
    import networkx as nx

    k, n = t.arity
    width = k ** (n - 1)
    g = nx.Graph()
    for p in range(t.leaves):
        g.add_edge(("p", p), ("s", 1, p // k))
    for stage in range(1, n):
        step = k ** (stage - 1)
        for w in range(width):
            digit = (w // step) % k
            base = w - digit * step
            for d in range(k):
                g.add_edge(("s", stage, w), ("s", stage + 1, base + d * step))
    return g
