"""The dependency DAG of a campaign extracted from a log (seed 002 §5.6, [L1322-L1332],
spec A12): ``a -> b`` iff ``end_a <= submit_b``, transitively reduced.

Edges join jobs of the same campaign, on the original log's times. A workload whose JSON
says ``"deps_rule": "interval-order"`` stores no edge lists: the edges are recomputed from
each job's ``submit0`` / ``end0`` on loading (decision 110; the LPC-EGEE DAGs hold 4
million edges).
"""

from __future__ import annotations

import numpy as np

#: the value of the workload key ``deps_rule`` that means "recompute the edges"
INTERVAL_ORDER = "interval-order"


def dependency_edges(camp: np.ndarray, submit: np.ndarray, end: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Transitively reduced dependency DAG of every campaign (module doc, [L1322-L1332]).

    Returns global (src, dst) job indices. O(n log n + edges).

    Parameters
    ----------
    camp : numpy.ndarray
        Shape ``(n,)``, the campaign index of each job (non-negative integers); edges join
        jobs of the same campaign only.
    submit : numpy.ndarray
        Shape ``(n,)``, each job's submission time in the original log, in seconds.
    end : numpy.ndarray
        Shape ``(n,)``, each job's end time in the original log, in seconds.

    Returns
    -------
    src : numpy.ndarray
        int64, the index (into the n jobs) of each edge's predecessor.
    dst : numpy.ndarray
        int64, the index of each edge's successor (``end[src] <= submit[dst]``), edges
        grouped by ``dst`` in increasing order.
    """
    n = camp.size
    t0 = float(min(end.min(), submit.min()))
    span = float(max(end.max(), submit.max())) - t0 + 1.0
    base = camp * span * 2  # campaigns occupy disjoint windows [base, base + span)
    e_key, s_key = end - t0 + base, submit - t0 + base
    by_end = np.lexsort((np.arange(n), e_key))
    ends = e_key[by_end]
    best = np.maximum.accumulate(s_key[by_end])  # latest submit among the first i ends
    hi = np.searchsorted(ends, s_key, side="right")  # jobs with end <= submit_b (+ earlier
    lo_camp = np.searchsorted(ends, base, side="left")  # campaigns, cut off here)
    m_b = np.where(hi > lo_camp, best[np.maximum(hi - 1, 0)], -np.inf)
    lo = np.maximum(np.searchsorted(ends, m_b, side="right"), lo_camp)
    counts = np.maximum(hi - lo, 0)
    dst = np.repeat(np.arange(n), counts)
    first = np.cumsum(counts) - counts
    src = by_end[np.arange(dst.size) + np.repeat(lo - first, counts)]
    return src.astype(np.int64), dst.astype(np.int64)
