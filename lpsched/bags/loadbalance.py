"""One-dimensional load balancing: atomic schedules from fluid ones (seed 003 §3.2).

A resource runs ``n`` applications in a fluid schedule where application ``k`` gets a share
``α_k`` of the resource (``Σ α_k <= 1``) and one of its tasks takes ``t_k`` at full speed, so
the ``i``-th task of ``k`` completes at ``T0 + i·t_k/α_k`` (decision A2: ``α_k`` is a share,
the seed's [L415] calls it a rate but uses ``t_k/α_k`` as the time per task).

* :func:`s1d` — ``S_1D``: tasks back-to-back from ``T0``, always the one with the smallest
  fluid completion ``(n_k + 1)·t_k/α_k`` next. **Lemma 1**: no task ends later than in the
  fluid schedule.
* :func:`s1d_reversed` — ``S_1D^{-2}``: the mirror image (right-packed against ``T1``).
  **Lemma 2**: no task starts earlier than in the fluid schedule where the tasks of ``k`` are
  the last ``N_k`` of the window (fluid starts ``T1 − i·t_k/α_k``).

Both run in O(N log n) with a heap, N = Σ N_k tasks; ties go to the lowest application.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from lpsched.errors import InvalidInstanceError


@dataclass(frozen=True)
class Placement:
    """Tasks in execution order: ``app[i]`` runs on ``[start[i], end[i]]``; ``index[i]`` is
    its rank among the tasks of its application (1-based, in fluid order) and ``fluid[i]``
    its completion (``s1d``) or start (``s1d_reversed``) in the fluid schedule."""

    app: np.ndarray
    index: np.ndarray
    start: np.ndarray
    end: np.ndarray
    fluid: np.ndarray


def _check(shares: ArrayLike, times: ArrayLike, counts: ArrayLike,
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a = np.asarray(shares, float)
    t = np.asarray(times, float)
    c = np.asarray(counts)
    if not (a.shape == t.shape == c.shape) or a.ndim != 1:
        raise InvalidInstanceError("shares", a.tolist(), "shares, times and counts need one "
                                   "value per application")
    if (c < 0).any() or (c != np.round(c)).any():
        raise InvalidInstanceError("counts", c.tolist(), "must be whole numbers >= 0")
    if (t <= 0).any() or not np.isfinite(t).all():
        raise InvalidInstanceError("times", t.tolist(), "must be finite and > 0")
    busy = c > 0
    if (a[busy] <= 0).any():
        raise InvalidInstanceError("shares", a.tolist(), "an application with tasks needs a "
                                   "positive share")
    if a[busy].sum() > 1 + 1e-9:
        raise InvalidInstanceError("shares", a.tolist(), "shares must sum to at most 1")
    return a, t, c.astype(int)


def _order(a: np.ndarray, t: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, ...]:
    """Tasks by increasing ``i·t_k/α_k`` (ties: lowest k), with that key and i."""
    period = np.divide(t, a, out=np.full_like(t, np.inf), where=a > 0)
    heap = [(period[k], k, 1) for k in range(a.size) if c[k] > 0]
    heapq.heapify(heap)
    n = int(c.sum())
    app = np.empty(n, int)
    index = np.empty(n, int)
    key = np.empty(n)
    for pos in range(n):
        due, k, i = heapq.heappop(heap)
        app[pos], index[pos], key[pos] = k, i, due
        if i < c[k]:
            heapq.heappush(heap, ((i + 1) * period[k], k, i + 1))
    return app, index, key


def s1d(t0: float, shares: ArrayLike, times: ArrayLike, counts: ArrayLike) -> Placement:
    """``S_1D`` (Lemma 1): ``counts[k]`` tasks of duration ``times[k]``, back-to-back from
    ``t0``, in order of fluid completion ``t0 + i·times[k]/shares[k]``.

    >>> p = s1d(0.0, [0.5, 0.5], [1.0, 1.0], [2, 1])
    >>> p.app.tolist(), p.end.tolist(), p.fluid.tolist()
    ([0, 1, 0], [1.0, 2.0, 3.0], [2.0, 2.0, 4.0])

    Parameters
    ----------
    t0 : float
        T0, the start of the window (s): the first task starts there.
    shares : array_like
        α_k, the share of the resource given to application k in the fluid schedule, shape
        ``(n,)``; positive for every application with tasks, summing to at most 1.
    times : array_like
        t_k, the time of one task of application k at full speed (s), shape ``(n,)``, finite
        and > 0.
    counts : array_like
        N_k, the number of tasks of application k to place, shape ``(n,)``, whole numbers
        >= 0.

    Returns
    -------
    Placement
        The N = Σ N_k tasks in execution order: application, rank within it, start, end
        and fluid completion.

    Raises
    ------
    InvalidInstanceError
        Arrays of different lengths, negative or fractional counts, non-positive times, a
        zero share for an application with tasks, or shares summing above 1.
    """
    a, t, c = _check(shares, times, counts)
    app, index, key = _order(a, t, c)
    dur = t[app]
    start = t0 + np.concatenate([[0.0], np.cumsum(dur)[:-1]]) if dur.size else dur.copy()
    return Placement(app, index, start, start + dur, t0 + key)


def s1d_reversed(t1: float, shares: ArrayLike, times: ArrayLike,
                 counts: ArrayLike) -> Placement:
    """``S_1D^{-2}`` (Lemma 2): the mirror of ``S_1D``, packed against ``t1``; the tasks of
    ``k`` are the last ``counts[k]`` of the fluid window, with fluid starts
    ``t1 − i·times[k]/shares[k]``. Returned in execution (increasing time) order.

    >>> p = s1d_reversed(4.0, [0.5, 0.5], [1.0, 1.0], [2, 1])
    >>> p.start.tolist(), p.fluid.tolist()
    ([1.0, 2.0, 3.0], [0.0, 2.0, 2.0])

    Parameters
    ----------
    t1 : float
        T1, the end of the window (s): the last task ends there.
    shares : array_like
        α_k, the share of the resource given to application k in the fluid schedule, shape
        ``(n,)``; positive for every application with tasks, summing to at most 1.
    times : array_like
        t_k, the time of one task of application k at full speed (s), shape ``(n,)``, finite
        and > 0.
    counts : array_like
        N_k, the number of tasks of application k to place, shape ``(n,)``, whole numbers
        >= 0.

    Returns
    -------
    Placement
        The N = Σ N_k tasks in execution order: application, rank within it, start, end
        and fluid start.

    Raises
    ------
    InvalidInstanceError
        Arrays of different lengths, negative or fractional counts, non-positive times, a
        zero share for an application with tasks, or shares summing above 1.
    """
    a, t, c = _check(shares, times, counts)
    app, index, key = _order(a, t, c)
    dur = t[app]
    start = t1 - np.cumsum(dur)
    rev = slice(None, None, -1)
    return Placement(app[rev], index[rev], start[rev], (start + dur)[rev], (t1 - key)[rev])
