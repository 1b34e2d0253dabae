"""Platform and application model of seed 004 §1 (spec §1.1–§1.5).

* :class:`Cluster` — one homogeneous cluster of ``P`` processors of speed ``s`` flop/s; the
  four clusters of Table 1 [L451-470] are in :data:`CLUSTERS`; :func:`get_cluster` also
  takes a processor count (``64``, ``64@3.2e9``).
* :class:`PTG` — a parallel task graph: a DAG of moldable tasks with a sequential cost
  ``work`` (flop) and an Amdahl fraction ``alpha`` each, stored in a topological order, with
  a single entry and a single exit (zero-cost *dummy* tasks are added where the graph has
  several sources or sinks, spec §1.2). ``T(v, p) = work_v/s · (α_v + (1 − α_v)/p)``
  [L493-498]. :attr:`PTG.graph` is the :mod:`networkx` view.
* :class:`Dag` — the arrays the algorithms work on (sequential times in seconds on one
  cluster, predecessor/successor lists); several PTGs flatten into one :class:`Dag`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import networkx as nx
import numpy as np

from lpsched.errors import InvalidInstanceError

ENTRY, EXIT = "__entry__", "__exit__"


@dataclass(frozen=True)
class Cluster:
    """A homogeneous cluster: ``processors`` identical processors of ``speed`` flop/s (seed 004
    §1.1, Table 1).

    Validated on construction.
    """

    name: str
    processors: int
    speed: float

    def __post_init__(self) -> None:
        if isinstance(self.processors, bool) or not isinstance(self.processors, (int, np.integer)) \
                or not 1 <= int(self.processors) <= 100_000:
            raise InvalidInstanceError("cluster.processors", self.processors,
                                       "must be a whole number in [1, 100000]")
        if isinstance(self.speed, bool) or not isinstance(self.speed, (int, float)) \
                or not math.isfinite(self.speed) or self.speed <= 0:
            raise InvalidInstanceError("cluster.speed", self.speed,
                                       "must be a finite number > 0 (flop/s)")


#: Table 1 of seed 004 [L451-470]: speeds are HPL GFlop/s over ACML
CLUSTERS: dict[str, Cluster] = {
    "grelon": Cluster("grelon", 120, 3.185e9),
    "grillon": Cluster("grillon", 47, 3.379e9),
    "chti": Cluster("chti", 20, 4.311e9),
    "gdx": Cluster("gdx", 216, 3.388e9),
}


#: flop/s of a cluster given by its processor count alone (``--cluster 64``; decision 373)
DEFAULT_SPEED = 1e9


def get_cluster(name: str) -> Cluster:
    """The cluster a name or a processor count gives (seed 004 §1.1).

    Parameters
    ----------
    name : str
        One of the Table 1 clusters [L451-470] (:data:`CLUSTERS`), or a processor count
        ``P`` (speed :data:`DEFAULT_SPEED`) or ``P@S`` (``S`` flop/s, e.g. ``64@3.2e9``).
        A SimGrid/Batsim platform file (``.xml``) is read by
        :func:`lpsched.ptg.platforms.cluster_from_platform`, which ``lpsched ptg schedule
        --cluster FILE.xml`` calls.

    Returns
    -------
    Cluster
        The validated cluster (a count is named ``P64@1e+09``).

    Raises
    ------
    InvalidInstanceError
        Naming the accepted forms (a ``.xml`` name: the function that reads it).

    Notes
    -----
    The count forms and the reference speed 1e9 flop/s are decision 373.
    """
    if name in CLUSTERS:
        return CLUSTERS[name]
    if name.lower().endswith(".xml"):
        raise InvalidInstanceError("cluster", name, "a platform file: "
                                   "lpsched.ptg.platforms.cluster_from_platform reads it")
    forms = (f"one of {', '.join(sorted(CLUSTERS))}, a processor count P or P@SPEED "
             "(flop/s), e.g. 64 or 64@3.2e9, or a platform file .xml")
    count, _, speed = name.partition("@")
    try:
        p = int(count.strip())
        s = float(speed) if speed.strip() else DEFAULT_SPEED
    except ValueError:
        raise InvalidInstanceError("cluster", name, f"unknown cluster; {forms}") from None
    if not 1 <= p <= 100_000:
        raise InvalidInstanceError("cluster", name, "the processor count must be in "
                                   f"[1, 100000]; {forms}")
    if not math.isfinite(s) or s <= 0:
        raise InvalidInstanceError("cluster", name, f"the speed must be a finite number > 0 "
                                   f"(flop/s); {forms}")
    return Cluster(f"P{p}@{s:g}", p, s)


def speed_is_default(name: str) -> bool:
    """Whether :func:`get_cluster` gives ``name``'s processors :data:`DEFAULT_SPEED` because
    it names none: a bare count ``P`` (or ``P@``), not a Table 1 cluster (the seed's speeds)
    nor a platform file (its own speeds).

    Parameters
    ----------
    name : str
        The ``--cluster`` value as typed.

    Returns
    -------
    bool
        ``True`` for ``"64"``, ``False`` for ``"64@3.2e9"``, ``"gdx"`` or ``"p.xml"``.
    """
    if name in CLUSTERS or name.lower().endswith(".xml"):
        return False
    return not name.partition("@")[2].strip()


def _check_number(fieldname: str, value: Any, low: float, high: float,
                  open_low: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InvalidInstanceError(fieldname, value, "must be a number")
    x = float(value)
    if not math.isfinite(x) or x < low or x > high or (open_low and x <= low):
        raise InvalidInstanceError(fieldname, value, f"must be in {'(' if open_low else '['}"
                                   f"{low:g}, {high:g}]")
    return x


@dataclass(frozen=True, eq=False)
class PTG:
    """A parallel task graph (seed 004 §1.2–§1.3), validated on construction.

    Tasks are numbered in a topological order; ``dummy[v]`` marks a zero-cost entry or exit
    added by :func:`make_ptg`. ``edges`` is an ``(e, 2)`` array of local indices.

    ``alpha_from`` and ``read_from`` say how the reading that built this graph set its
    numbers (never written back by :meth:`to_dict`: a file written from the graph gives
    every ``alpha`` itself): per task, where its ``alpha`` came from
    (:data:`lpsched.ptg.wfformats.ALPHA_ORIGINS`; empty when the graph was built in code),
    and the format read (``"wfcommons"``, ``"dax"``, ``"dot"``, ``"daggen"``, ``"json"``;
    empty when built in code). :mod:`lpsched.ptg.assumptions` turns them into notes."""

    ids: tuple[str, ...]
    work: np.ndarray
    alpha: np.ndarray
    dummy: np.ndarray
    edges: np.ndarray
    name: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    task_extra: tuple[dict[str, Any], ...] = ()
    alpha_from: tuple[str, ...] = ()
    read_from: str = ""

    @property
    def n(self) -> int:
        """Number of tasks, dummies included."""
        return len(self.ids)

    @cached_property
    def preds(self) -> list[list[int]]:
        """Predecessors of every task (lists of task indices, by the order of ``edges``)."""
        out: list[list[int]] = [[] for _ in range(self.n)]
        for u, v in self.edges.tolist():
            out[v].append(u)
        return out

    @cached_property
    def succs(self) -> list[list[int]]:
        """Successors of every task (lists of task indices, by the order of ``edges``)."""
        out: list[list[int]] = [[] for _ in range(self.n)]
        for u, v in self.edges.tolist():
            out[u].append(v)
        return out

    @cached_property
    def levels(self) -> np.ndarray:
        """Precedence level (longest path in edges from the entry; spec §1.5)."""
        lev = np.zeros(self.n, dtype=int)
        for v in range(self.n):
            for u in self.preds[v]:
                lev[v] = max(lev[v], lev[u] + 1)
        return lev

    @cached_property
    def width(self) -> int:
        """Largest number of real tasks on one precedence level (DECIDE-13: dummies are
        excluded)."""
        real = ~self.dummy
        if not real.any():
            return 0
        return int(np.bincount(self.levels[real]).max())

    @property
    def graph(self) -> nx.DiGraph:
        """The networkx DiGraph (node attributes ``id``, ``work``, ``alpha``, ``dummy``)."""
        g = nx.DiGraph()
        for v, tid in enumerate(self.ids):
            g.add_node(v, id=tid, work=float(self.work[v]), alpha=float(self.alpha[v]),
                       dummy=bool(self.dummy[v]))
        g.add_edges_from(self.edges.tolist())
        return g

    def times(self, speed: float, p: np.ndarray | int) -> np.ndarray:
        """``T(v, p)`` in seconds (Amdahl, seed 004 [L493-498]); dummies take 0.

        Parameters
        ----------
        speed : float
            The processor speed (flop/s).
        p : numpy.ndarray or int
            Processors per task, or one count for all.

        Returns
        -------
        numpy.ndarray
            ``(α + (1 − α)/p) · work / speed`` per task (s), shape ``(n,)``.
        """
        t1 = self.work / speed
        return t1 * (self.alpha + (1.0 - self.alpha) / np.asarray(p, dtype=float))

    def to_dict(self) -> dict[str, Any]:
        """The issue's JSON form (dummies omitted; extra keys kept).

        Returns
        -------
        dict
            ``name``, ``tasks`` (``id``, ``work``, ``alpha`` and their extra keys) and
            ``edges`` (``[from, to]`` id pairs), read back by
            :func:`lpsched.ptg.io.ptg_from_dict`.
        """
        real = np.flatnonzero(~self.dummy)
        tasks = []
        for v in real:
            t = dict(self.task_extra[v]) if self.task_extra else {}
            t.update({"id": self.ids[v], "work": float(self.work[v]),
                      "alpha": float(self.alpha[v])})
            tasks.append(t)
        edges = [[self.ids[u], self.ids[v]] for u, v in self.edges.tolist()
                 if not (self.dummy[u] or self.dummy[v])]
        out = dict(self.extra)
        if self.name:
            out["name"] = self.name
        out.update({"tasks": tasks, "edges": edges})
        return out


def make_ptg(ids: list[str], work: Any, alpha: Any, edges: list[tuple[str, str]],
             name: str = "", extra: dict[str, Any] | None = None,
             task_extra: list[dict[str, Any]] | None = None, *,
             alpha_from: list[str] | None = None, read_from: str = "") -> PTG:
    """Validate tasks and edges, add a dummy entry/exit where needed, and number the tasks
    in a topological order (seed 004 §1.2; spec §1.2).

    Raises :class:`InvalidInstanceError` naming the field: duplicate or empty ids, work not
    finite and > 0, ``alpha`` outside [0, 1], an edge that is not a pair of task-id strings
    or names an unknown task, a self-loop, a cycle. O(n + e).

    Parameters
    ----------
    ids : list of str
        Task ids, unique and non-empty.
    work : array_like
        Sequential work of each task (flop, finite and > 0).
    alpha : array_like
        Amdahl's non-parallelisable fraction of each task, in [0, 1] [L495-497].
    edges : list of tuple of str
        Precedences ``(from, to)`` by task id.
    name : str
        The PTG's name.
    extra : dict, optional
        Keys of the document kept as they are (written back by :meth:`PTG.to_dict`).
    task_extra : list of dict, optional
        Per task, keys kept as they are.
    alpha_from : list of str, optional
        Per task, where its ``alpha`` came from (:attr:`PTG.alpha_from`; dummies get
        ``"dummy"``).
    read_from : str
        The format the graph was read from (:attr:`PTG.read_from`).

    Returns
    -------
    PTG
        The validated graph.
    """
    if not ids:
        raise InvalidInstanceError("tasks", [], "a PTG needs at least one task")
    if alpha_from and len(alpha_from) != len(ids):
        raise ValueError(f"alpha_from has {len(alpha_from)} entries for {len(ids)} tasks")
    w = np.array([_check_number(f"tasks[{i}].work", x, 0.0, 1e30, open_low=True)
                  for i, x in enumerate(work)])
    a = np.array([_check_number(f"tasks[{i}].alpha", x, 0.0, 1.0) for i, x in enumerate(alpha)])
    index: dict[str, int] = {}
    for i, tid in enumerate(ids):
        if not isinstance(tid, str) or not tid or tid in (ENTRY, EXIT):
            raise InvalidInstanceError(f"tasks[{i}].id", tid, "must be a non-empty string "
                                       "(not a reserved dummy name)")
        if tid in index:
            raise InvalidInstanceError(f"tasks[{i}].id", tid, "duplicate task id")
        index[tid] = i
    g = nx.DiGraph()
    g.add_nodes_from(range(len(ids)))
    for k, e in enumerate(edges):
        if not isinstance(e, (list, tuple)) or len(e) != 2:
            raise InvalidInstanceError(f"edges[{k}]", e, "must be a pair [from, to]")
        for end in e:
            if not isinstance(end, str):
                raise InvalidInstanceError(f"edges[{k}]", e, f"endpoint {end!r} is not a "
                                           "task id (a string)")
            if end not in index:
                raise InvalidInstanceError(f"edges[{k}]", e, f"unknown task {end!r}")
        if e[0] == e[1]:
            raise InvalidInstanceError(f"edges[{k}]", e, "self-loop")
        g.add_edge(index[e[0]], index[e[1]])
    if not nx.is_directed_acyclic_graph(g):
        cycle = [ids[u] for u, _ in nx.find_cycle(g)]
        raise InvalidInstanceError("edges", cycle, "the graph has a cycle")
    return _with_dummies(g, list(ids), w, a, name, extra or {}, task_extra,
                         list(alpha_from) if alpha_from else [], read_from)


def _with_dummies(g: nx.DiGraph, ids: list[str], w: np.ndarray, a: np.ndarray, name: str,
                  extra: dict[str, Any], task_extra: list[dict[str, Any]] | None,
                  origin: list[str], read_from: str) -> PTG:
    n = len(ids)
    dummy = [False] * n
    sources = [v for v in range(n) if g.in_degree(v) == 0]
    sinks = [v for v in range(n) if g.out_degree(v) == 0]
    works, alphas = list(w), list(a)
    tx = list(task_extra) if task_extra else [{} for _ in range(n)]
    for label, ends, first in ((ENTRY, sources, True), (EXIT, sinks, False)):
        if len(ends) > 1:
            d = len(ids)
            ids.append(label)
            works.append(0.0)
            alphas.append(0.0)
            dummy.append(True)
            tx.append({})
            if origin:
                origin.append("dummy")
            g.add_edges_from((d, v) if first else (v, d) for v in ends)
    order = list(nx.lexicographical_topological_sort(g))
    pos = {v: i for i, v in enumerate(order)}
    edges = np.array(sorted((pos[u], pos[v]) for u, v in g.edges()), dtype=int).reshape(-1, 2)
    return PTG(tuple(ids[v] for v in order), np.array([works[v] for v in order], float),
               np.array([alphas[v] for v in order], float),
               np.array([dummy[v] for v in order], bool), edges, name, dict(extra),
               tuple(tx[v] for v in order), tuple(origin[v] for v in order) if origin else (),
               read_from)


@dataclass
class Dag:
    """Flat arrays of one or several PTGs on one cluster (what the algorithms use).

    ``t1[v]`` is the sequential time in seconds (``work/s``), ``owner[v]`` the PTG index,
    ``local[v]`` the task index inside it; tasks are in a topological order."""

    t1: np.ndarray
    alpha: np.ndarray
    dummy: np.ndarray
    preds: list[list[int]]
    succs: list[list[int]]
    owner: np.ndarray
    local: np.ndarray

    @property
    def n(self) -> int:
        """Number of tasks, dummies included."""
        return int(self.t1.size)

    def time(self, v: int, p: int) -> float:
        """``T(v, p)`` (Amdahl); 0 for a dummy.

        Parameters
        ----------
        v : int
            Task index.
        p : int
            Processors (>= 1).

        Returns
        -------
        float
            The task's time (s).
        """
        return float(self.t1[v] * (self.alpha[v] + (1.0 - self.alpha[v]) / max(p, 1)))

    def times(self, p: np.ndarray) -> np.ndarray:
        """``T(v, p_v)`` for every task (vectorised).

        Parameters
        ----------
        p : numpy.ndarray
            Processors per task (0 allowed for dummies).

        Returns
        -------
        numpy.ndarray
            Each task's time (s), 0 for dummies, shape ``(n,)``.
        """
        return self.t1 * (self.alpha + (1.0 - self.alpha) / np.maximum(p, 1))

    @cached_property
    def sweeps(self) -> tuple[list[tuple[int, int, list[int]]], list[tuple[int, int, list[int]]]]:
        """The level sweeps' plans: ``(v, only, succs)`` of every task with successors in reverse
        topological order, ``(v, only, preds)`` of every task with predecessors in topological
        order.

        ``only`` is the single neighbour, or −1 when there are several (most tasks of these graphs
        have one, and skip the ``max``).
        """
        n = self.n
        down = [(v, s[0] if len(s) == 1 else -1, s) for v in range(n - 1, -1, -1)
                if (s := self.succs[v])]
        up = [(v, s[0] if len(s) == 1 else -1, s) for v in range(n) if (s := self.preds[v])]
        return down, up

    @cached_property
    def plain(self) -> tuple[list[bool], list[int], list[float], list[float], list[list[int]]]:
        """What the HCPA loop reads, as lists: real (not dummy) tasks, sources, ``t1``,
        ``α``, and every successor list sorted (the critical-path walk's tie order)."""
        return ((~self.dummy).tolist(), [v for v in range(self.n) if not self.preds[v]],
                self.t1.tolist(), self.alpha.tolist(), [sorted(s) for s in self.succs])


def flatten(ptgs: list[PTG], speed: float) -> tuple[Dag, np.ndarray]:
    """All PTGs as one :class:`Dag` (no edges between them) and the offsets of each PTG's first
    task.

    O(Σ n_i + e_i).

    Parameters
    ----------
    ptgs : list of PTG
        The PTGs of one scenario.
    speed : float
        The cluster's processor speed (flop/s, Table 1): times are ``work / speed``.

    Returns
    -------
    tuple of (Dag, numpy.ndarray)
        The flat graph (``owner`` is the PTG of each task) and the ``N + 1`` offsets (PTG
        ``i``'s tasks are ``offsets[i]:offsets[i + 1]``).
    """
    offsets = np.concatenate([[0], np.cumsum([g.n for g in ptgs])]).astype(int)
    preds: list[list[int]] = []
    succs: list[list[int]] = []
    for g, off in zip(ptgs, offsets[:-1], strict=True):
        preds.extend([u + off for u in lst] for lst in g.preds)
        succs.extend([u + off for u in lst] for lst in g.succs)
    dag = Dag(np.concatenate([g.work / speed for g in ptgs]),
              np.concatenate([g.alpha for g in ptgs]),
              np.concatenate([g.dummy for g in ptgs]), preds, succs,
              np.repeat(np.arange(len(ptgs)), [g.n for g in ptgs]),
              np.concatenate([np.arange(g.n) for g in ptgs]))
    return dag, offsets


def single(ptg: PTG, speed: float) -> Dag:
    """One PTG as a :class:`Dag`.

    Parameters
    ----------
    ptg : PTG
        The graph.
    speed : float
        The processor speed (flop/s).

    Returns
    -------
    Dag
        Its tasks with sequential times in seconds.
    """
    return flatten([ptg], speed)[0]
