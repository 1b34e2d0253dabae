"""PTG generators of seed 004 §6.3–§6.5 (spec §6.3–§6.5), all seeded.

* :func:`random_ptg` — daggen-style random PTGs [L499-516] (EXT: F. Suter's daggen
  procedure, spec §6.3): levels of ``⌊n^fat⌋ · (1 ± (1 − regular))`` tasks, parents drawn
  in the level ``jump`` back at most, ``density`` scaling the number of parents.
* :func:`fft_ptg` — FFT with ``m ∈ {2, 4, 8}`` points: a tree of ``2m − 1`` recursive calls
  then ``log2 m`` butterfly stages of ``m`` tasks (5, 15, 39 tasks; width ``m``) [L521-523].
* :func:`strassen_ptg` — one Strassen level: 10 additions, 7 products, 8 additions
  (25 tasks, width 10) [L523].
* Task costs [L475-498]: data side ``⌊U[2048, 11264)/1024⌋·1024`` (``d = side²``),
  ``a ~ U[64, 512)``; ``a·d``, ``a·d·log2 d`` or ``d^{3/2}`` flop, or one of the three at
  random (the four complexity scenarios); ``α ~ U[0, 0.25)``.
* :func:`population` / :func:`scenarios` — the 1,296 + 120 + 100 PTGs and the 1,500
  scenarios of §6.5 (DECIDE-25: sets drawn without replacement, the same on all clusters).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lpsched.errors import InvalidInstanceError
from lpsched.ptg.model import CLUSTERS, PTG, make_ptg

COMPLEXITIES = ("ad", "adlogd", "d32", "mixed")
CLASSES = ("random", "fft", "strassen")
N_VALUES = (2, 4, 6, 8, 10)


def task_costs(n: int, complexity: str, rng: np.random.Generator,
               alpha_max: float = 0.25) -> tuple[np.ndarray, np.ndarray]:
    """Work (flop) and ``α`` of ``n`` tasks under one complexity scenario (spec §6.3 step 2,
    DECIDE-26/31).

    O(n).

    Parameters
    ----------
    n : int
        Number of tasks.
    complexity : {"ad", "adlogd", "d32", "mixed"}
        The complexity scenario [L481-492]: every task ``a·d``, ``a·d·log2 d`` or ``d^{3/2}``
        flop, or each drawn among the three (``mixed``).
    rng : numpy.random.Generator
        Source of the draws (data size, ``a``, complexity, ``α``).
    alpha_max : float
        Upper end of the Amdahl fraction draw ``α ~ U[0, alpha_max)`` (seed: 25 % [L497]).

    Returns
    -------
    tuple of numpy.ndarray
        The sequential work of each task in flop (shape ``(n,)``) and its non-parallelisable
        fraction ``α`` (shape ``(n,)``) [L475-498].
    """
    if complexity not in COMPLEXITIES:
        raise InvalidInstanceError("complexity", complexity, f"one of {COMPLEXITIES}")
    side = np.floor(rng.uniform(2048, 11264, n) / 1024) * 1024
    a = rng.uniform(64, 512, n)
    kind = rng.integers(0, 3, n) if complexity == "mixed" else \
        np.full(n, COMPLEXITIES.index(complexity))
    d = side**2
    work = np.choose(kind, [a * d, a * d * np.log2(d), d**1.5])
    alpha = rng.uniform(0.0, alpha_max, n)
    return work, alpha


def _check(field: str, value: float, low: float, high: float) -> None:
    if not (isinstance(value, (int, float)) and math.isfinite(value) and low <= value <= high):
        raise InvalidInstanceError(field, value, f"must be in [{low:g}, {high:g}]")


def random_levels(n: int, fat: float, regular: float, rng: np.random.Generator) -> list[int]:
    """Level sizes (spec §6.3 step 1): ``⌊n^fat⌋·(1 + r/100)``, ``r ~ U[−perc, perc)``,
    ``perc = 100(1 − regular)``, the last level truncated to total ``n``.

    Parameters
    ----------
    n : int
        Number of tasks of the PTG.
    fat : float
        Width exponent (daggen's ``fat``, [L499-505]): the mean level holds ``⌊n^fat⌋`` tasks.
    regular : float
        Regularity in [0, 1]: 1 gives equal levels, lower values spread their sizes.
    rng : numpy.random.Generator
        Source of the draws.

    Returns
    -------
    list of int
        The number of tasks of each level, top to bottom, summing to ``n``.
    """
    nb = max(1, math.floor(math.exp(fat * math.log(n))))
    perc = 100.0 * (1.0 - regular)
    sizes: list[int] = []
    while sum(sizes) < n:
        r = rng.uniform(-perc, perc) if perc > 0 else 0.0
        sizes.append(max(1, int(nb * (1 + r / 100.0))))
    sizes[-1] -= sum(sizes) - n
    return sizes


def random_ptg(n: int = 20, fat: float = 0.5, density: float = 0.2, regular: float = 0.8,
               jump: int = 1, complexity: str = "mixed", seed: int | np.random.Generator = 0,
               alpha_max: float = 0.25, name: str = "") -> PTG:
    """A random daggen-style PTG (seed 004 §6.3, spec §6.3).

    O(n·density·width).

    Parameters
    ----------
    n : int
        Number of data-parallel tasks (the seed uses 10, 20, 30 [L499]).
    fat : float
        Width exponent (see :func:`random_levels`).
    density : float
        Scales the number of parents of each task, in [0, 1].
    regular : float
        Regularity of the level sizes, in [0, 1].
    jump : int
        Parents come from at most ``jump`` levels above (1: the level just above).
    complexity : {"ad", "adlogd", "d32", "mixed"}
        The complexity scenario [L481-492]: every task ``a·d``, ``a·d·log2 d`` or ``d^{3/2}``
        flop, or each drawn among the three (``mixed``).
    seed : int or numpy.random.Generator
        Seed (or generator) of every draw: the same seed gives the same PTG.
    alpha_max : float
        Upper end of the Amdahl fraction draw ``α ~ U[0, alpha_max)`` (seed: 25 % [L497]).
    name : str
        The PTG's name (default: derived from its parameters).

    Returns
    -------
    PTG
        A validated PTG (dummy entry and exit tasks added where it has several sources or
        sinks), its work in flop and ``α`` per task.
    """
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 100_000:
        raise InvalidInstanceError("n", n, "must be a whole number in [1, 100000]")
    _check("fat", fat, 0.0, 1.0)
    _check("density", density, 0.0, 1.0)
    _check("regular", regular, 0.0, 1.0)
    _check("alpha_max", alpha_max, 0.0, 1.0)
    if isinstance(jump, bool) or not isinstance(jump, int) or jump < 1:
        raise InvalidInstanceError("jump", jump, "must be a whole number >= 1")
    rng = np.random.default_rng(seed)
    sizes = random_levels(n, fat, regular, rng)
    first = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    edges: set[tuple[int, int]] = set()
    for lev in range(1, len(sizes)):
        prev = sizes[lev - 1]
        for v in range(first[lev], first[lev + 1]):
            nparents = min(1 + int(rng.uniform(0, density * prev)), prev)
            for _ in range(nparents):
                pl = max(0, lev - int(rng.uniform(1, jump + 1)))
                size = sizes[pl]
                k = int(rng.integers(0, size))
                for probe in range(size):  # linear probing on a duplicate edge
                    u = first[pl] + (k + probe) % size
                    if (u, v) not in edges:
                        edges.add((u, v))
                        break
    work, alpha = task_costs(n, complexity, rng, alpha_max)
    ids = [f"t{v}" for v in range(n)]
    return make_ptg(ids, work, alpha, [(ids[u], ids[v]) for u, v in sorted(edges)],
                    name or f"random-n{n}")


def fft_ptg(points: int = 4, complexity: str = "mixed", seed: int | np.random.Generator = 0,
            alpha_max: float = 0.25, name: str = "") -> PTG:
    """FFT PTG with ``points ∈ {2, 4, 8, ...}`` (a power of two >= 2): ``2m − 1 + m·log2 m``
    tasks (spec §6.4, DECIDE-24).

    Parameters
    ----------
    points : int
        ``m``, the number of points (the seed uses 2, 4 and 8 [L521-523]).
    complexity : {"ad", "adlogd", "d32", "mixed"}
        The complexity scenario [L481-492]: every task ``a·d``, ``a·d·log2 d`` or ``d^{3/2}``
        flop, or each drawn among the three (``mixed``).
    seed : int or numpy.random.Generator
        Seed (or generator) of every draw: the same seed gives the same PTG.
    alpha_max : float
        Upper end of the Amdahl fraction draw ``α ~ U[0, alpha_max)`` (seed: 25 % [L497]).
    name : str
        The PTG's name (default: derived from its parameters).

    Returns
    -------
    PTG
        The recursive-call tree and the ``log2 m`` butterfly stages, width ``m``.
    """
    m = points
    if isinstance(m, bool) or not isinstance(m, int) or m < 2 or m & (m - 1) or m > 4096:
        raise InvalidInstanceError("points", points, "must be a power of two in [2, 4096]")
    ids = [f"r{k}" for k in range(1, 2 * m)]  # heap numbering: children of k are 2k, 2k+1
    edges = [(f"r{k // 2}", f"r{k}") for k in range(2, 2 * m)]
    prev = [f"r{m + j}" for j in range(m)]
    for s in range(1, int(math.log2(m)) + 1):
        cur = [f"b{s}_{j}" for j in range(m)]
        ids += cur
        for j in range(m):
            edges += [(prev[j], cur[j]), (prev[j ^ (1 << (s - 1))], cur[j])]
        prev = cur
    work, alpha = task_costs(len(ids), complexity, np.random.default_rng(seed), alpha_max)
    return make_ptg(ids, work, alpha, edges, name or f"fft-{m}")


def strassen_ptg(complexity: str = "mixed", seed: int | np.random.Generator = 0,
                 alpha_max: float = 0.25, name: str = "") -> PTG:
    """One-level Strassen PTG: 25 tasks, width 10 (spec §6.4, DECIDE-24).

    Parameters
    ----------
    complexity : {"ad", "adlogd", "d32", "mixed"}
        The complexity scenario [L481-492]: every task ``a·d``, ``a·d·log2 d`` or ``d^{3/2}``
        flop, or each drawn among the three (``mixed``).
    seed : int or numpy.random.Generator
        Seed (or generator) of every draw: the same seed gives the same PTG.
    alpha_max : float
        Upper end of the Amdahl fraction draw ``α ~ U[0, alpha_max)`` (seed: 25 % [L497]).
    name : str
        The PTG's name (default: derived from its parameters).

    Returns
    -------
    PTG
        10 additions, 7 products and 8 additions [L523].
    """
    ids = [f"T{k}" for k in range(1, 11)] + [f"M{k}" for k in range(1, 8)] + \
        ["C12", "C21", "X1", "X2", "C11", "Y1", "Y2", "C22"]
    edges = [("T1", "M1"), ("T2", "M1"), ("T3", "M2"), ("T4", "M3"), ("T5", "M4"),
             ("T6", "M5"), ("T7", "M6"), ("T8", "M6"), ("T9", "M7"), ("T10", "M7"),
             ("M3", "C12"), ("M5", "C12"), ("M2", "C21"), ("M4", "C21"),
             ("M1", "X1"), ("M4", "X1"), ("M7", "X2"), ("M5", "X2"), ("X1", "C11"),
             ("X2", "C11"), ("M1", "Y1"), ("M2", "Y1"), ("M3", "Y2"), ("M6", "Y2"),
             ("Y1", "C22"), ("Y2", "C22")]
    work, alpha = task_costs(len(ids), complexity, np.random.default_rng(seed), alpha_max)
    return make_ptg(ids, work, alpha, edges, name or "strassen")


@dataclass(frozen=True)
class Member:
    """The parameters of one PTG of a population (§6.3–§6.4)."""

    cls: str
    index: int
    params: tuple[tuple[str, float | int | str], ...]


def population(cls: str) -> list[Member]:
    """The PTG population of class ``cls``: 1,296 random (n × complexity × fat × regular ×
    density × jump × 3 samples), 120 FFT (3 sizes × 4 complexities × 10), 100 Strassen
    (4 complexities × 25) [L514-527].

    Parameters
    ----------
    cls : {"random", "fft", "strassen"}
        The population.

    Returns
    -------
    list of Member
        Every member's class, index and generator parameters, in a fixed order (the index
        is the member's position).
    """
    out: list[tuple[tuple[str, float | int | str], ...]] = []
    if cls == "random":
        for n in (10, 20, 30):
            for cx in COMPLEXITIES:
                for fat in (0.2, 0.5, 0.8):
                    for reg in (0.2, 0.8):
                        for dens in (0.2, 0.8):
                            for jump in (1, 2, 4):
                                out += [(("n", n), ("complexity", cx), ("fat", fat),
                                         ("regular", reg), ("density", dens),
                                         ("jump", jump), ("sample", s)) for s in range(3)]
    elif cls == "fft":
        out = [(("points", m), ("complexity", cx), ("sample", s))
               for m in (2, 4, 8) for cx in COMPLEXITIES for s in range(10)]
    elif cls == "strassen":
        out = [(("complexity", cx), ("sample", s)) for cx in COMPLEXITIES for s in range(25)]
    else:
        raise InvalidInstanceError("class", cls, f"one of {CLASSES}")
    return [Member(cls, k, p) for k, p in enumerate(out)]


def build_member(member: Member, seed: int = 0) -> PTG:
    """The PTG of one population member; its random draws come from
    ``default_rng([seed, class, index])``.

    Parameters
    ----------
    member : Member
        One entry of :func:`population`.
    seed : int
        The study's seed (``reproduce ptg --seed``).

    Returns
    -------
    PTG
        The same PTG for the same member and seed, whatever else was built before.
    """
    rng = np.random.default_rng([seed, CLASSES.index(member.cls), member.index])
    p = {k: v for k, v in member.params if k != "sample"}
    name = f"{member.cls}-{member.index}"
    if member.cls == "random":
        return random_ptg(seed=rng, name=name, **p)  # type: ignore[arg-type]
    if member.cls == "fft":
        return fft_ptg(seed=rng, name=name, **p)  # type: ignore[arg-type]
    return strassen_ptg(seed=rng, name=name, **p)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Scenario:
    """One scenario of §6.5: ``N`` PTGs of class ``cls`` (population indices ``members``)
    on ``cluster``; ``set_index`` is the set number (0..24) for that ``(cls, N)``."""

    cls: str
    n_ptgs: int
    set_index: int
    cluster: str
    members: tuple[int, ...]


def scenarios(seed: int = 0, sets: int = 25, n_values: tuple[int, ...] = N_VALUES,
              classes: tuple[str, ...] = CLASSES,
              clusters: tuple[str, ...] = tuple(CLUSTERS)) -> list[Scenario]:
    """The scenarios of §6.5: for each class and ``N``, ``sets`` random sets of ``N`` PTGs
    (without replacement), each on every cluster (3 × 5 × 25 × 4 = 1,500 by default).

    Parameters
    ----------
    seed : int
        Seed of the set draws (and of the members' PTGs).
    sets : int
        Random sets per class and ``N`` (seed: 25 [L536]).
    n_values : tuple of int
        The numbers of concurrent PTGs (seed: 2, 4, 6, 8, 10).
    classes : tuple of str
        The populations drawn from.
    clusters : tuple of str
        The Table 1 clusters each set runs on.

    Returns
    -------
    list of Scenario
        One per (class, ``N``, set, cluster), with the indices of its members.
    """
    out = []
    for cls in classes:
        size = len(population(cls))
        for N in n_values:
            for k in range(sets):
                rng = np.random.default_rng([seed, 99, CLASSES.index(cls), N, k])
                members = tuple(int(x) for x in rng.choice(size, N, replace=False))
                out += [Scenario(cls, N, k, c, members) for c in clusters]
    return out
