"""The stretch axis of a search: its critical values and its two ends (seed 003 §3.4).

Between two consecutive critical values the epochs keep one order, so one LP structure
serves the whole interval (Theorem 7). A search runs between a lower end (1 offline, where a
deadline passes ``T_new`` online) and an achievable upper end: the applications one after
another at ``ρ*`` (``S_FIFO``, spec §3.7; the seed's printed ``S_max`` is inverted, spec A1).
"""

from __future__ import annotations

import math

import numpy as np

from lpsched.bags.maxstretch.problem import StretchProblem
from lpsched.core import tolerances


def critical_values(problem: StretchProblem, low: float = 1.0,
                    high: float = math.inf) -> np.ndarray:
    """Stretch values in the open interval ``(low, high)`` where two epochs meet (§3.4).

    Epochs are affine in ``S`` (``t = α·S + β``); two with different slopes meet at
    ``S = (β_b − β_a)/(α_a − α_b)``. Offline that is a release meeting a deadline or two
    deadlines crossing; online, ``T_new`` meeting a deadline or two deadlines crossing.
    Values closer than :data:`~lpsched.core.tolerances.CRITICAL_MERGE` (relative) are merged.
    O(n²) time and memory.

    Parameters
    ----------
    problem : StretchProblem
        The offline or online problem (seed 003 §3; its epochs, ``MS*_k`` and ``ρ*``).
    low, high : float
        The open interval of stretches searched (default ``(1, inf)``).

    Returns
    -------
    numpy.ndarray
        The critical values, ascending, merged within the tolerance.
    """
    a, b = problem.epoch_alpha, problem.epoch_beta
    da = a[:, None] - a[None, :]
    db = b[None, :] - b[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        s = db / da
    vals = np.unique(s[(da > 0) & np.isfinite(s)])
    merge = tolerances.CRITICAL_MERGE
    # Strictly inside (low, high) by more than the merge tolerance: a value computed an ulp
    # away from a bound (e.g. T_new meeting the most urgent deadline) is that bound.
    vals = vals[(vals > low * (1 + merge)) & (vals < high * (1 - merge))]
    if vals.size > 1:
        vals = vals[np.concatenate([[True], np.diff(vals) > merge * vals[1:]])]
    return vals


def sequential_stretch(problem: StretchProblem) -> float:
    """A feasible stretch: applications one after another at ``ρ*`` (spec §3.7, §4.1).

    Offline: ``C_k = max(r_k, C_{k-1}) + MS*_k`` in release order (``S_FIFO``), never above
    the corrected ``S_max = Σ MS*/min MS*``. Online: drain every buffer first, then the
    remaining tasks one application at a time, ending at ``T_end``;
    ``S = max_k (T_end − r_k)/MS*_k``.

    Parameters
    ----------
    problem : StretchProblem
        The offline or online problem (seed 003 §3; its epochs, ``MS*_k`` and ``ρ*``).

    Returns
    -------
    float
        An achievable max-stretch: an upper end of every search.
    """
    pr = problem
    if not pr.online:
        order = np.lexsort((np.arange(pr.n), pr.release))
        r, ms = pr.release[order], pr.ms[order]
        done = np.cumsum(ms)
        # C_k = max_{l<=k} (r_l + MS*_l + ... + MS*_k): the last idle gap starts the run
        end = np.maximum.accumulate(r - (done - ms)) + done
        return float(max(1.0, ((end - r) / ms).max()))
    drain = float((pr.buffered * pr.comp).sum(axis=0).max())
    t_new = float(pr.start[0])  # online, every window starts at T_new
    t_end = t_new + drain + float((pr.remaining / pr.rho_star).sum())
    return float(max(1.0, ((t_end - pr.release) / pr.ms).max()))


def online_lower_bound(problem: StretchProblem) -> float:
    """``max(1, max_k (T_new − r_k)/MS*_k)``: below it a deadline falls before ``T_new``.

    Parameters
    ----------
    problem : StretchProblem
        The offline or online problem (seed 003 §3; its epochs, ``MS*_k`` and ``ρ*``).
        Online (``T_new``, the released applications' ``r_k``).

    Returns
    -------
    float
        The lower end of an online search (seed 003 §3.5).
    """
    if not problem.online:
        return 1.0
    return float(max(1.0, ((problem.t_new - problem.release) / problem.ms).max()))

