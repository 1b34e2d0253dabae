"""Conditioning of the max-stretch LPs of seed 003 §3: what HiGHS can take.

Relative times below :data:`UNITS_BELOW` make the LPs count whole applications, tiny ones
are raised to :data:`COEF_FLOOR`, dedicated makespans closer than :data:`SLOPE_MERGE` are
merged, and workers no application can use are dropped (:func:`condition`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from lpsched.bags.maxstretch.problem import StretchProblem
from lpsched.core import tolerances
from lpsched.errors import InvalidInstanceError, SolverError

#: HiGHS ignores matrix entries of magnitude up to 1e-9 (with a warning that fails the model
#: load) and rejects entries from 1e15 on. The max-stretch LPs divide times by the largest
#: ``MS*`` (:mod:`lpsched.bags.maxstretch.problem`), so these bounds are on *relative* times.
#: Below ``UNITS_BELOW`` the amounts are counted per application instead of per task.
UNITS_BELOW = 1e-7
#: Smallest relative time kept after that: smaller ones are raised to it (conservative).
COEF_FLOOR = 2e-9
#: Largest relative time accepted (HiGHS rejects 1e15; scaling needs room).
COEF_CEILING = 1e13
#: Dedicated makespans closer than this (relative to the largest) are made equal, so that
#: no two epoch slopes differ by a value HiGHS would drop; deadlines move by that much.
SLOPE_MERGE = 2e-9
#: Largest relative move of an application's ``MS*`` (so of its deadline) that a merge may
#: make: :data:`~lpsched.core.tolerances.PLAN_CHECK`, the plan check's tolerance on that
#: application's own ``MS*``. Beyond it the instance is refused, since its plan would miss
#: the small application's true deadline (``MS*`` 1 and 1.3 beside 2e8 merged to 1.3 put
#: the first application's computations after its deadline; decision 235).
MERGE_LIMIT = tolerances.PLAN_CHECK
#: Dedicated makespans below this fraction of the largest cannot share one LP with it.
SLOPE_RANGE = 4e-9


class ScaleError(SolverError):
    """The applications' dedicated makespans span more time scales than one LP can hold.

    They are too far apart, or too close beside a much larger one to be told apart.
    :func:`lpsched.bags.maxstretch.max_stretch` answers it by solving the time scales
    apart (:func:`~lpsched.bags.maxstretch.offline.solve_by_scales`).
    """


@dataclass(frozen=True)
class Conditioned:
    """A problem as the LPs see it: ``problem`` (``MS*`` closer than :data:`SLOPE_MERGE`
    merged; with ``units``, amounts counted in units of ``units[k]`` tasks) and the
    ``original`` it came from. ``units`` is ``None`` when amounts are in tasks."""

    problem: StretchProblem
    original: StretchProblem
    units: np.ndarray | None


def _merge_slopes(ms: np.ndarray) -> np.ndarray:
    """``ms`` with values closer than :data:`SLOPE_MERGE`·max set to the largest of their
    chain (sorted, vectorised)."""
    order = np.argsort(ms, kind="stable")
    s = ms[order]
    start = np.concatenate([[True], np.diff(s) > SLOPE_MERGE * s[-1]])
    group = np.cumsum(start) - 1
    top = np.maximum.reduceat(s, np.flatnonzero(start))
    out = np.empty_like(ms)
    out[order] = top[group]
    return out


def _drop_useless_workers(pr: StretchProblem, top: float) -> StretchProblem:
    """``pr`` without the workers on which one task of every application outlasts the
    horizon :data:`COEF_CEILING` times (they could carry at most ~1e-13 of a task, far
    below the LPs' tolerance: leaving them out keeps every answer achievable). Raises
    :class:`SolverError` when such a pair remains on a worker that must stay (it is fast
    for another application, or holds buffered tasks)."""
    slow = (np.maximum(pr.comp, pr.comm) / top) > COEF_CEILING
    if not slow.any():
        return pr
    drop = slow.all(axis=0) & (pr.buffered.sum(axis=0) == 0)
    keep = np.flatnonzero(~drop)
    if keep.size and not slow[:, keep].any():
        return pr.restrict(keep)
    k, u = np.argwhere(slow[:, keep] if keep.size else slow)[0]
    u = int(pr.worker_ids[keep[u] if keep.size else u])
    raise SolverError(
        f"worker {u} is too slow for application {int(pr.apps[k])} (one task there outlasts "
        f"the longest dedicated makespan more than {COEF_CEILING:.0e} times) but cannot be "
        "left out; remove it from the platform")


def check_merge(problem: StretchProblem, ms: np.ndarray, merged: np.ndarray,
                stretch: float) -> None:
    """Refuse a merge of dedicated makespans that moves a deadline too far.

    Raises :class:`ScaleError` when posing ``merged`` instead of the true ``ms`` moves some
    deadline ``r_k + S·MS*_k`` by more than :data:`MERGE_LIMIT` of that application's
    ``MS*`` at stretch ``stretch`` (the move is ``S·(merged_k - MS*_k)``): its plan would
    then fail the check. Called before the search with ``S = 1`` and after it with the
    stretch found.

    Parameters
    ----------
    problem : StretchProblem
        The problem (its releases).
    ms : numpy.ndarray
        The true ``MS*_k`` (s).
    merged : numpy.ndarray
        The ``MS*_k`` posed (after merging close slopes).
    stretch : float
        The stretch at which the move is measured.

    Notes
    -----
    Decision 235: ``MS*`` values are merged only within the plan check's tolerance.
    """
    moved = stretch * (merged - ms) / ms
    if not moved.size or moved.max() <= MERGE_LIMIT:
        return
    i = int(np.argmax(moved))
    j = int(np.argmax((merged == merged[i]) & (ms == merged[i])))
    raise ScaleError(
        f"application {int(problem.apps[i])} (MS* = {ms[i]:.6g} s) and application "
        f"{int(problem.apps[j])} (MS* = {ms[j]:.6g} s) are closer than one LP can tell apart "
        f"beside the largest MS* = {float(ms.max()):.3g} s (their epochs differ by less "
        f"than {SLOPE_MERGE:g} of it), and making them equal moves a deadline by "
        f"{moved[i]:.2g} of its MS* at stretch {stretch:.6g}; solve the small applications "
        "separately or rescale their task counts")


def condition(problem: StretchProblem) -> Conditioned:
    """Make ``problem`` safe to pose to HiGHS, or say clearly why it cannot be.

    Validated and adjusted, cheaply (O(n·p), vectorised):

    * ``MS*`` finite and positive (else :class:`InvalidInstanceError` on the application);
    * ``MS*`` at most 1/:data:`SLOPE_RANGE` apart (else :class:`SolverError`: one LP cannot
      hold both time scales), and values closer than :data:`SLOPE_MERGE` merged, when
      that moves no ``MS*`` by more than :data:`MERGE_LIMIT` of itself (else
      :class:`SolverError`);
    * per-task times over the largest ``MS*`` (the LP's coefficients): when some are below
      :data:`UNITS_BELOW` (e.g. an application of 10^9 tasks beside ones of 10), amounts are
      counted per application (``units[k]`` = its tasks), which brings each coefficient to
      the share of the horizon one whole application takes; what is still below
      :data:`COEF_FLOOR` is raised to it (a resource made slower by less than the LP's
      tolerance: the stretch found stays achievable). Workers so slow that one task
      outlasts the horizon :data:`COEF_CEILING` times are left out
      (:func:`_drop_useless_workers`).

    Parameters
    ----------
    problem : StretchProblem
        The problem (seed 003 §3's (K)/(K1) data).

    Returns
    -------
    Conditioned
        The problem posed to HiGHS, its ``units`` per application and the workers kept.
    """
    pr = problem
    ms = np.asarray(pr.ms, float)
    bad = ~(np.isfinite(ms) & (ms > 0))
    if bad.any():
        k = int(pr.apps[np.argmax(bad)]) if pr.apps.size else int(np.argmax(bad))
        raise InvalidInstanceError(f"applications[{k}].tasks", float(pr.remaining[
            np.argmax(bad)]), "its dedicated makespan MS* = tasks / rho* is not a finite "
            "positive number; rescale the instance's units")
    top = float(ms.max())
    if ms.min() < SLOPE_RANGE * top:
        i, j = int(np.argmin(ms)), int(np.argmax(ms))
        raise ScaleError(
            f"the dedicated makespans are too far apart for one LP: application "
            f"{int(pr.apps[i])} has MS* = {ms[i]:.3g} s, application {int(pr.apps[j])} "
            f"{ms[j]:.3g} s (ratio {ms[j] / ms[i]:.2g} > {1 / SLOPE_RANGE:.2g}); solve them "
            "separately or rescale their task counts")
    merged = _merge_slopes(ms)
    check_merge(pr, ms, merged, 1.0)  # S >= 1: the least a deadline moves by
    if not np.array_equal(merged, ms):
        pr = replace(pr, ms=merged)
    pr = _drop_useless_workers(pr, top)
    times = np.concatenate([pr.comp, pr.comm], axis=1) / top
    master = (pr.size / pr.master_bandwidth / top
              if pr.port == "multiport" and np.isfinite(pr.master_bandwidth) else None)
    low = min(float(times.min()), float(master.min()) if master is not None else np.inf)
    if low >= UNITS_BELOW:
        return Conditioned(pr, problem, None)
    units = pr.remaining + pr.buffered.sum(axis=1)
    units = np.where(units > 0, units, 1.0)
    floor = COEF_FLOOR * top / units[:, None]
    if master is not None and (units * master < COEF_FLOOR).any():
        raise SolverError(
            f"platform.master_bandwidth = {pr.master_bandwidth:.3g} B/s is so large that it "
            "never limits the master (its LP coefficients vanish); use null (unbounded)")
    scaled = replace(
        pr, remaining=pr.remaining / units, buffered=pr.buffered / units[:, None],
        comp=np.maximum(pr.comp, floor) * units[:, None],
        comm=np.maximum(pr.comm, floor) * units[:, None],
        size=pr.size * units, rho_star=pr.rho_star / units)
    return Conditioned(scaled, problem, units)


# -- the search engine ------------------------------------------------------------------------
