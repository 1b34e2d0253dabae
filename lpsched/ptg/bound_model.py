"""LP relaxation of the moldable-DAG makespan problem (seed 004 §1.3's Amdahl model), built
with :class:`~lpsched.models.program.LinearProgram` (never solved here).

Variables per real task ``v``: start ``s_v >= 0``, duration ``x_v ∈ [T(v, P), T(v, 1)]``
and work ``w_v``; one makespan column ``C`` (or one per PTG). With Amdahl's law the work
as a function of the duration, ``w(x) = t1(1−α)·x/(x − α t1)`` (``p = (1−α)t1/(x − α t1)``),
is convex and decreasing on ``[T(v,P), T(v,1)]``, so every tangent at ``x_k = T(v, p_k)``
is a valid lower bound on the work of any real allotment: ``w_v >= w(x_k) + w'(x_k)(x_v −
x_k)``. Rows: precedence ``s_w − s_v − x_v >= 0``, ``C − s_v − x_v >= 0``, and the work
row ``Σ w_v <= P·C``. Every feasible schedule gives a feasible point (``x_v = T(v, p_v)``,
``w_v = p_v T(v, p_v)``), so the optimum is a lower bound on the makespan; it is at least
``max(critical path at P processors, Σ T(v,1)/P)`` because the tangent at ``p = 1`` gives
``w_v >= t1_v``. Tangents steeper than :data:`SLOPE_CAP` (α at or next to 1) are
replaced by that row. Size: ``3n + 1`` columns, ``e + n(K + 1) + 1`` rows for ``K`` tangents.
"""

from __future__ import annotations

import numpy as np

from lpsched.models.program import LinearProgram
from lpsched.ptg.model import Dag


def tangent_points(processors: int) -> np.ndarray:
    """Allotments where the work curve is touched: ``1, 2, 4, ..., P`` and ``P``.

    Parameters
    ----------
    processors : int
        ``P``, the cluster's processors (>= 1).

    Returns
    -------
    numpy.ndarray
        The allotments ``p_k`` (integers, increasing, without repeats) at which each task's
        work tangent ``w(x_k) + w'(x_k)(x − x_k)``, ``x_k = T(v, p_k)``, is a row.
    """
    pts = 2 ** np.arange(int(np.log2(processors)) + 1)
    return np.unique(np.append(pts, processors))


#: largest tangent slope ``|w'(x_k)|`` kept; steeper tangents (α within about ``p²/1e9`` of
#: 1, and α = 1 where the slope is 0/0) become the always-valid row ``w_v >= t1_v``
SLOPE_CAP = 1e9


def _tangents(t1: np.ndarray, alpha: np.ndarray, pk: np.ndarray) -> tuple[np.ndarray,
                                                                             np.ndarray]:
    """Slopes and right-hand sides of the tangent rows ``w − slope·x >= rhs``.

    Parameters
    ----------
    t1, alpha : numpy.ndarray
        Sequential times and Amdahl fractions of the real tasks, shape ``(m,)``.
    pk : numpy.ndarray
        Allotments where the work curve is touched, shape ``(K,)``.

    Returns
    -------
    tuple of numpy.ndarray
        ``(slope, rhs)``, shape ``(m, K)``. At ``x_k = T(v, p_k)``, ``w'(x_k) = −α
        t1²(1−α)/(x_k − α t1)² = −α p_k²/(1 − α)`` (closed form: no cancellation), the row
        is ``w − w'(x_k)·x >= p_k x_k − w'(x_k) x_k``. Where the slope is not finite or
        exceeds :data:`SLOPE_CAP` the row is ``w >= t1`` (``p·T(v, p) >= t1`` for every
        ``p``), so every row stays valid for every real allotment: the LP stays a proof.
    """
    a, p = alpha[:, None], pk[None, :]
    xk = t1[:, None] * (a + (1 - a) / p)
    with np.errstate(divide="ignore", invalid="ignore"):
        slope = -a * p**2 / (1 - a)
    steep = ~(np.abs(slope) <= SLOPE_CAP)
    slope = np.where(steep, 0.0, slope)
    rhs = np.where(steep, np.broadcast_to(t1[:, None], xk.shape), p * xk - slope * xk)
    return slope, rhs


def makespan_lp(dag: Dag, processors: int, per_owner: bool = False) -> LinearProgram:
    """The LP of the module doc for all tasks of ``dag``: one overall makespan, or one makespan
    per PTG.

    ``per_owner=False``: minimise the overall makespan ``C`` (work row over all tasks).
    ``per_owner=True``: one makespan per PTG with its own work row, minimise their sum (each
    PTG's bound is then its own optimum since the blocks are independent). Built with whole COO
    blocks. O(n·K + e).

    Parameters
    ----------
    dag : Dag
        One or several PTGs on one cluster (sequential times ``t1`` in seconds, ``α``).
    processors : int
        ``P``, the cluster's processors.
    per_owner : bool
        One makespan column and one work row per PTG (``dag.owner``) instead of one overall.

    Returns
    -------
    LinearProgram
        The model, not solved (one makespan column, or one per PTG with ``per_owner``);
        its optimum is a lower bound on the makespan (s) of any schedule of ``dag`` on
        ``P`` processors (seed 004 §1.3's model), or on the sum of the PTGs' makespans.
    """
    n, P = dag.n, processors
    real = np.flatnonzero(~dag.dummy)
    t1, al = dag.t1, dag.alpha
    lo = t1 * (al + (1 - al) / P)
    lp = LinearProgram("ptg-makespan-lb", "min")
    s = lp.add_variables("start", n)
    x = lp.add_variables("duration", n, lower=lo, upper=t1)
    w = lp.add_variables("work", n)
    groups = dag.owner if per_owner else np.zeros(n, int)
    G = int(groups.max()) + 1
    c = lp.add_variables("makespan", G)
    src = np.array([u for v in range(n) for u in dag.preds[v]], int)
    dst = np.array([v for v in range(n) for _u in dag.preds[v]], int)
    e = src.size
    rows = np.repeat(np.arange(e), 3)
    cols = np.column_stack([s[dst], s[src], x[src]]).ravel()
    lp.add_constraints("precedence", rows, cols, np.tile([1.0, -1.0, -1.0], e), lower=0.0,
                       num_rows=e)
    rows = np.repeat(np.arange(n), 3)
    cols = np.column_stack([c[groups], s, x]).ravel()
    lp.add_constraints("finish", rows, cols, np.tile([1.0, -1.0, -1.0], n), lower=0.0,
                       num_rows=n)
    pk = tangent_points(P).astype(float)
    K = pk.size
    slope, rhs = _tangents(t1[real], al[real], pk)
    r = np.arange(real.size * K)
    vv = np.repeat(real, K)
    lp.add_constraints("tangent", np.concatenate([r, r]),
                       np.concatenate([w[vv], x[vv]]),
                       np.concatenate([np.ones(r.size), -slope.ravel()]),
                       lower=rhs.ravel(), num_rows=r.size)
    rows = np.concatenate([groups[real], np.arange(G)])
    cols = np.concatenate([w[real], c])
    vals = np.concatenate([np.ones(real.size), np.full(G, -float(P))])
    lp.add_constraints("work", rows, cols, vals, upper=0.0, num_rows=G)
    lp.set_objective(c, np.ones(G))
    return lp
