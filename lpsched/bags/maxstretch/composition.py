"""Plans of disjoint groups of applications composed into one plan of the whole instance.

What :func:`~lpsched.bags.maxstretch.offline.solve_by_scales` does with the plans of the
groups it solves apart: find when a plan is busy (:func:`busy_blocks`), pause a plan while
another works (:func:`paused_plan`), and carry several plans onto one grid of epochs
(:func:`compose_plans`). The rates of (K)/(K1) are constant inside an interval, so splitting
an interval's amounts in proportion to time keeps every capacity row.
"""

from __future__ import annotations

import numpy as np

from lpsched.bags.instance import Instance
from lpsched.bags.maxstretch.results import StretchPlan


def _regrid(plan: StretchPlan, epochs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``plan``'s amounts carried onto the sorted ``epochs`` (which cover its own): each
    interval's amounts split in proportion to its overlap with the new intervals (the
    rates of (K)/(K1) are constant inside an interval, so every capacity row still holds);
    an interval of length 0 goes whole to the new interval that starts there."""
    t = np.asarray(plan.epochs, float)
    lo, hi = t[:-1], t[1:]
    lo_new, hi_new = epochs[:-1], epochs[1:]
    overlap = np.clip(np.minimum(hi[:, None], hi_new[None, :])
                      - np.maximum(lo[:, None], lo_new[None, :]), 0.0, None)
    length = hi - lo
    share = np.divide(overlap, length[:, None], out=np.zeros_like(overlap),
                      where=length[:, None] > 0)
    for j in np.flatnonzero(length <= 0):
        share[j, min(max(int(np.searchsorted(epochs, lo[j], side="right")) - 1, 0),
                     hi_new.size - 1)] = 1.0
    return np.asarray(plan.comm, float) @ share, np.asarray(plan.comp, float) @ share


def busy_blocks(plan: StretchPlan) -> list[tuple[float, float]]:
    """The maximal time ranges ``[begin, end]`` in which ``plan`` sends or computes
    anything (its intervals with a positive amount, adjacent ones merged), in order.

    Parameters
    ----------
    plan : StretchPlan
        A plan (seed 003 §3.3's amounts per interval).

    Returns
    -------
    list of tuple of (float, float)
        The busy ranges in seconds, in time order.
    """
    t = np.asarray(plan.epochs, float)
    used = (np.asarray(plan.comm, float) > 0).any(axis=(0, 1)) | (
        np.asarray(plan.comp, float) > 0).any(axis=(0, 1))
    blocks: list[tuple[float, float]] = []
    for j in np.flatnonzero(used & (np.diff(t) > 0)):
        if blocks and blocks[-1][1] >= t[j]:
            blocks[-1] = (blocks[-1][0], float(t[j + 1]))
        else:
            blocks.append((float(t[j]), float(t[j + 1])))
    return blocks


def paused_plan(plan: StretchPlan, at: float, pause: float) -> StretchPlan:
    """``plan`` with nothing done during ``[at, at + pause]``.

    What it does before ``at`` stays, what it does after is done ``pause`` seconds later
    (an interval across ``at`` is split there first; buffers carried over the pause).
    Deadlines move by ``pause`` where they lie after ``at``; ``stretch`` is left to the
    caller (:func:`~lpsched.bags.maxstretch.offline.solve_by_scales`).

    Parameters
    ----------
    plan : StretchPlan
        The plan to pause.
    at : float
        Time the pause starts (s).
    pause : float
        Its length (s).

    Returns
    -------
    StretchPlan
        The paused plan (same applications, epochs after ``at`` moved).
    """
    t = np.asarray(plan.epochs, float)
    if pause <= 0 or at >= t[-1]:
        return plan
    split = at > t[0] and not (t == at).any()
    grid = np.sort(np.append(t, at)) if split else t
    comm, comp = _regrid(plan, grid) if split else (
        np.asarray(plan.comm, float), np.asarray(plan.comp, float))
    i = int(np.searchsorted(grid, at, side="right")) - 1 if at > t[0] else 0
    epochs = np.concatenate([grid[:i + 1], grid[i:] + pause]) if at > t[0] else grid + pause
    gap = np.zeros((*comm.shape[:2], 1))
    if at > t[0]:
        comm = np.concatenate([comm[:, :, :i], gap, comm[:, :, i:]], axis=2)
        comp = np.concatenate([comp[:, :, :i], gap, comp[:, :, i:]], axis=2)
    buffers = np.asarray(plan.buffered, float)[:, :, None] + np.concatenate(
        [np.zeros((*comm.shape[:2], 1)), np.cumsum(comm - comp, axis=2)], axis=2)
    deadlines = np.asarray(plan.deadlines, float)
    return StretchPlan(
        stretch=plan.stretch, epochs=epochs,
        deadlines=np.where(deadlines > at, deadlines + pause, deadlines),
        start=plan.start, remaining=plan.remaining, buffered=plan.buffered, comm=comm,
        comp=comp, buffers=buffers, apps=plan.apps, port=plan.port, t_new=plan.t_new)


def compose_plans(inst: Instance, stretch: float, ms: np.ndarray,
                  parts: list[tuple[StretchPlan, np.ndarray]]) -> StretchPlan:
    """One offline plan of ``inst`` at ``stretch`` from the plans of disjoint application groups.

    ``parts`` holds each plan with the instance indices of its sub-instance's rows; their
    activities never share a moment
    (:func:`~lpsched.bags.maxstretch.offline.solve_by_scales`). Every plan is carried onto
    the union of the epochs (:func:`_regrid`), the buffers recomputed from the amounts.

    Parameters
    ----------
    inst : Instance
        The whole instance.
    stretch : float
        The composed plan's max-stretch.
    ms : numpy.ndarray
        ``MS*_k`` of every application (s).
    parts : list of tuple of (StretchPlan, numpy.ndarray)
        Each group's plan and the instance indices of its applications.

    Returns
    -------
    StretchPlan
        A plan of ``inst`` (seed 003 §3.3's variables) at ``stretch``.
    """
    epochs = np.unique(np.concatenate([np.asarray(p.epochs, float) for p, _ in parts]))
    n, workers = inst.n, inst.p
    comm = np.zeros((n, workers, epochs.size - 1))
    comp = np.zeros((n, workers, epochs.size - 1))
    for plan, idx in parts:
        rows = np.asarray(idx)[np.asarray(plan.apps, int)]
        comm[rows], comp[rows] = _regrid(plan, epochs)
    buffers = np.concatenate([np.zeros((n, workers, 1)), np.cumsum(comm - comp, axis=2)],
                             axis=2)
    return StretchPlan(
        stretch=stretch, epochs=epochs, deadlines=inst.release + stretch * ms,
        start=inst.release.copy(), remaining=inst.tasks.copy(),
        buffered=np.zeros((n, workers)), comm=comm, comp=comp, buffers=buffers,
        apps=np.arange(n), port=inst.platform.port)


