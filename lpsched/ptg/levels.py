"""Precedence levels, bottom and top levels and the critical-path walk of a :class:`Dag`
(seed 004 spec §1.5).

They come as numpy arrays for callers and as plain lists for the HCPA loop
(:mod:`lpsched.ptg.hcpa_loop`), whose graphs are small enough that list sweeps beat numpy
calls. Each sweep follows the graph's plan (:attr:`Dag.sweeps`). O(n + e) each.
"""

from __future__ import annotations

import numpy as np

from lpsched.ptg.model import Dag


def dag_levels(dag: Dag) -> np.ndarray:
    """Precedence levels of ``dag`` (longest path in edges from a source).

    O(n + e).

    Parameters
    ----------
    dag : Dag
        One or several PTGs (their sweep plans, :attr:`Dag.sweeps`).

    Returns
    -------
    numpy.ndarray
        The level of each task (integers, 0 at the sources), shape ``(n,)``.
    """
    lev = np.zeros(dag.n, dtype=int)
    for v in range(dag.n):
        for u in dag.preds[v]:
            lev[v] = max(lev[v], lev[u] + 1)
    return lev


def bottom_levels(dag: Dag, p: np.ndarray) -> np.ndarray:
    """Bottom levels under allocation ``p`` (the task's own time included).

    O(n + e).

    Parameters
    ----------
    dag : Dag
        One or several PTGs (their sweep plans, :attr:`Dag.sweeps`).
    p : numpy.ndarray
        Processors per task (spec §1.5's ``T(v, p_v)`` times).

    Returns
    -------
    numpy.ndarray
        ``bl(v)``, the longest path (s) from ``v`` to an exit, ``v`` included, shape ``(n,)``.
    """
    return np.array(bottom_level_list(dag, dag.times(p).tolist()))


def bottom_level_list(dag: Dag, tt: list[float]) -> list[float]:
    """:func:`bottom_levels` from the task times ``tt``, on plain lists.

    Parameters
    ----------
    dag : Dag
        One or several PTGs (their sweep plans, :attr:`Dag.sweeps`).
    tt : list of float
        Each task's time (s).

    Returns
    -------
    list of float
        The bottom levels (s), a new list.
    """
    bl = tt[:]
    for v, only, s in dag.sweeps[0]:
        bl[v] = tt[v] + (bl[only] if only >= 0 else max([bl[w] for w in s]))
    return bl


def top_levels(dag: Dag, tt: np.ndarray) -> np.ndarray:
    """``tl(v) = max_{u ∈ pred(v)} tl(u) + T(u)`` (spec §1.5).

    O(n + e).

    Parameters
    ----------
    dag : Dag
        One or several PTGs (their sweep plans, :attr:`Dag.sweeps`).
    tt : numpy.ndarray
        Each task's time (s).

    Returns
    -------
    numpy.ndarray
        ``tl(v)``, the longest path (s) from a source to ``v``, ``v`` excluded.
    """
    return np.array(top_level_list(dag, np.asarray(tt, float).tolist()))


def top_level_list(dag: Dag, tt: list[float]) -> list[float]:
    """:func:`top_levels` from the task times ``tt``, on plain lists.

    Parameters
    ----------
    dag : Dag
        One or several PTGs (their sweep plans, :attr:`Dag.sweeps`).
    tt : list of float
        Each task's time (s).

    Returns
    -------
    list of float
        The top levels (s), a new list.
    """
    tl = [0.0] * len(tt)
    for v, only, pr in dag.sweeps[1]:
        tl[v] = tl[only] + tt[only] if only >= 0 else max([tl[u] + tt[u] for u in pr])
    return tl


def critical_path(succs: list[list[int]], bl: list[float], sources: list[int],
                   ) -> tuple[float, list[int]]:
    """``T_CP`` and one critical path (walk to the successor of largest ``bl``, lowest
    index on ties; ``sources`` and every ``succs[v]`` in increasing order).

    Parameters
    ----------
    succs : list of list of int
        Successors of every task, each list sorted (:attr:`Dag.plain`).
    bl : list of float
        Bottom levels (s).
    sources : list of int
        The tasks without predecessors, sorted.

    Returns
    -------
    tuple of (float, list of int)
        ``T_CP`` (s, the largest bottom level of a source) and the tasks of the path from
        that source to an exit.
    """
    at = bl.__getitem__  # ``max`` keeps the first of equal keys: lists sorted ascending
    v = sources[0] if len(sources) == 1 else max(sources, key=at)
    t_cp = bl[v]
    path = [v]
    while s := succs[v]:
        v = s[0] if len(s) == 1 else max(s, key=at)
        path.append(v)
    return t_cp, path
