"""Horn's deadline-feasibility LP of preemptive, migratory schedules on identical processors.

The problem on ``m`` processors as a :class:`~lpsched.models.program.LinearProgram`
(builder: never solves).

Time is cut at every release and deadline into intervals ``I_k`` of length ``L_k``; task
``j`` may use the intervals inside ``[r_j, d_j]``. ``x_jk`` is the work of ``j`` in ``I_k``::

    maximise  Σ x_jk
    s.t.      Σ_k x_jk <= p_j            (task j)
              Σ_j x_jk <= m L_k          (interval k: m processors)
              0 <= x_jk <= min(L_k, p_j) (j runs on one processor at a time)

The deadlines are met by some preemptive, migratory schedule iff the optimum is ``Σ p_j``
(McNaughton's wrap-around builds the schedule of each interval). The model is always
feasible (``x = 0``), so a "no" is an optimum below ``Σ p_j``, never an infeasibility
status.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lpsched.models.program import LinearProgram  # scipy loads when a matrix is built


@dataclass(frozen=True)
class Windows:
    """The intervals and the (task, interval) edges of the windows ``[r_j, d_j]``.

    ``points`` and ``length`` are the intervals; ``task``, ``interval`` and ``cap`` the
    edges, with each edge's capacity ``min(L_k, p_j)``.
    """

    points: np.ndarray
    length: np.ndarray
    task: np.ndarray
    interval: np.ndarray
    cap: np.ndarray

    @property
    def edges(self) -> int:
        """Number of (task, interval) edges, the ``x_jk`` variables of the model."""
        return int(self.task.size)


def windows(release: np.ndarray, p: np.ndarray, deadline: np.ndarray) -> Windows:
    """Cut time at every release and deadline and list the (task, interval) pairs.

    The edges of Horn's transportation model, the exact bounds' feasibility test.

    Parameters
    ----------
    release, p, deadline : numpy.ndarray
        The tasks' release dates, processing times and deadlines (s), shape ``(n,)``.

    Returns
    -------
    Windows
        The ``K + 1`` cut points, the ``K`` interval lengths, and per edge its task, its
        interval and its capacity ``min(length, p_j)`` (a task runs on one processor at a
        time).
    """
    points = np.unique(np.concatenate([release, deadline]))
    length = np.diff(points)
    first = np.searchsorted(points, release)
    last = np.searchsorted(points, deadline)
    counts = np.maximum(last - first, 0)
    total = int(counts.sum())
    task = np.repeat(np.arange(release.size), counts)
    offset = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
    interval = first[task] + offset
    cap = np.minimum(length[interval], p[task])
    return Windows(points, length, task, interval, cap)


def deadline_lp(release: np.ndarray, p: np.ndarray, deadline: np.ndarray, m: int,
                win: Windows | None = None) -> LinearProgram:
    """Build Horn's deadline-feasibility LP (module doc) for releases, lengths and deadlines.

    Its blocks: ``x`` (one column per edge), rows ``task`` and ``interval``.

    Parameters
    ----------
    release, p, deadline : numpy.ndarray
        The tasks' release dates, processing times and deadlines (s), shape ``(n,)``.
    m : int
        Identical processors (each interval's capacity is ``m`` times its length).
    win : Windows, optional
        :func:`windows` of the same arrays, when already computed.

    Returns
    -------
    LinearProgram
        ``max Σ x`` subject to ``Σ_k x_jk <= p_j`` per task and ``Σ_j x_jk <= m·len_k``
        per interval, ``0 <= x_jk <= cap``: the deadlines can be met iff the optimum is
        ``Σ p_j``.
    """

    win = win if win is not None else windows(release, p, deadline)
    lp = LinearProgram("deadline-feasibility", sense="max")
    x = lp.add_variables("x", win.edges, upper=win.cap)
    lp.set_objective(x, 1.0)
    lp.add_constraints("task", rows=win.task, cols=x, vals=1.0, upper=p,
                       num_rows=release.size)
    lp.add_constraints("interval", rows=win.interval, cols=x, vals=1.0,
                       upper=m * win.length, num_rows=win.length.size)
    return lp
