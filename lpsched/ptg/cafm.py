"""The CAFM family of seed 004 §4.4 [L349-433] (spec §3.7, §4.4, §5): a PTG is a moldable
job whose time on ``p`` processors is the makespan of ``HCPA_SCHED(G_i, p)``.

The seam ``lpsched.ptg.cafm → lpsched.approx.moldable`` (docs/architecture.md) gives:
:func:`~lpsched.approx.moldable.mrt` (the MRT 3/2+ε dual approximation: ``d*``),
:func:`~lpsched.approx.moldable.mrt_test` (the allotments of the accepted guess ``d*``,
before MRT's transformation rules, DECIDE-19), :func:`~lpsched.approx.moldable.kshelf`
(the K-shelf boxes with ``cmax = d*``, ``compact=False``: nominal shelves, DECIDE-22/23)
and :func:`~lpsched.approx.moldable.check_table` (the repaired table ``T̂``, DECIDE-10).

* :func:`moldable_spec` — ``T̂_i(p) = min_{q <= p} T_i(q)`` and the ``q`` achieving it.
* CAFM CRA (+WEIGHT) — ``p_i = HCPA_ALLOC(G_i, a_i)``, M-STATIC on ``P`` (DECIDE-11).
* CAFM SAF / SPTF / LPTF — boxes ``a_i × T̂_i(a_i)`` list-scheduled (M_RIGID) by area
  ascending, time ascending, time descending; ``S_i(q)`` copied into each box.
* CAFM K SHELVES — the K-shelf boxes, ``S_i(q)`` inside each.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np

from lpsched.approx.moldable import check_table, kshelf, mrt, mrt_test
from lpsched.ptg.mapping import m_rigid
from lpsched.ptg.mstatic import m_static
from lpsched.ptg.problem import Problem
from lpsched.ptg.schedule import PtgSchedule

#: ε of the dual approximation (DECIDE-20)
EPS = 1e-3


@dataclass(frozen=True)
class MoldableSpec:
    """``hat[i, p−1] = T̂_i(p)``, ``best[i, p−1]`` the ``q <= p`` achieving it, MRT's
    ``d*`` and allotments ``a_i``, and whether ``T̂`` is work-monotonic."""

    hat: np.ndarray
    best: np.ndarray
    d_star: float
    allotment: np.ndarray
    monotonic: bool


def moldable_spec(pb: Problem) -> MoldableSpec:
    """The moldable view of every PTG and MRT's answer (spec §3.7, §5.1; DECIDE-10/19/20).

    O(N·P) HCPA schedules (cached in the problem) plus MRT's O(N·P·log(1/ε)).

    Parameters
    ----------
    pb : Problem
        The ``N`` PTGs on one cluster (the moldable specification is cached in it).

    Returns
    -------
    MoldableSpec
        ``T̂_i(p)`` for ``p = 1..P`` (s, the best HCPA makespan with at most ``p``
        processors), the ``q`` achieving it, MRT's ``d*`` and allotments ``a_i``, and
        whether ``T̂`` is work-monotonic.
    """
    raw = np.array([pb.spec_times(i) for i in range(pb.N)])
    best = np.zeros(raw.shape, int)
    for i in range(pb.N):
        idx = np.arange(pb.P)
        run = np.minimum.accumulate(raw[i])
        improve = np.concatenate([[True], run[1:] < run[:-1]])
        best[i] = np.maximum.accumulate(np.where(improve, idx, 0)) + 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # work monotony lost is recorded, not printed
        hat, monotonic = check_table(raw, pb.P, repair=True)
        d_star = float(mrt(hat, pb.P, EPS, repair=True).extra["d_star"])
    step = mrt_test(hat, d_star)
    allot = step.allotment if step is not None else np.full(pb.N, pb.P)
    return MoldableSpec(hat, best, d_star, np.asarray(allot, int), bool(monotonic))


def shared_spec(pb: Problem) -> MoldableSpec:
    """:func:`moldable_spec` of ``pb``, computed once per problem and shared by the six CAFM
    algorithms; its cost is recorded in ``pb.timings["moldable_spec"]`` (the standalone HCPA
    runs it needs first are charged to ``standalone_hcpa``).

    Parameters
    ----------
    pb : Problem
        The ``N`` PTGs on one cluster (the moldable specification is cached in it).

    Returns
    -------
    MoldableSpec
        The same object on every call for one ``pb``.
    """
    if "cafm" not in pb.cache:
        pb.trajectories  # noqa: B018 - a shared part of its own, timed by the problem
        t0 = time.perf_counter()
        pb.cache["cafm"] = moldable_spec(pb)
        pb.charge("moldable_spec", t0)
    return pb.cache["cafm"]


def cafm_cra(pb: Problem, rng: np.random.Generator, key: str = "bl") -> PtgSchedule:
    """CAFM CRA (+WEIGHT with ``key="weight"``), seed 004 [L419-433]: MRT allotments as
    processor budgets of HCPA, then M-STATIC of all tasks on ``P``.

    Parameters
    ----------
    pb : Problem
        The ``N`` PTGs on one cluster (the moldable specification is cached in it).
    rng : numpy.random.Generator
        Breaks ties between equal priorities.
    key : {"bl", "weight"}
        Mapping priority: decreasing bottom level, or decreasing ``bl / C*_i²`` (WEIGHT).

    Returns
    -------
    PtgSchedule
        Every task's start, end, allocation and processors (flat order of ``pb``), before
        BACKFILL.
    """
    ms = shared_spec(pb)
    p = np.concatenate([t.alloc(int(a)) for t, a in zip(pb.trajectories, ms.allotment,
                                                       strict=True)])
    return m_static(pb.flat[0], p, pb.keys(key, p), pb.P, rng)


def _embed(pb: Problem, ms: MoldableSpec, size: np.ndarray, box_start: np.ndarray,
           box_procs: list[np.ndarray]) -> PtgSchedule:
    """Copy ``S_i(q)``, ``q = best[i, size_i − 1]``, into every box (virtual processor ``k``
    → the box's ``k``-th processor); mapping order: by box start, then inside the box."""
    dag, offs = pb.flat
    n = dag.n
    start, end = np.zeros(n), np.zeros(n)
    alloc = np.zeros(n, int)
    procs: list[np.ndarray] = [np.zeros(0, int)] * n
    order: list[int] = []
    for i in np.lexsort((np.arange(pb.N), box_start)):
        q = int(ms.best[i, size[i] - 1])
        s = pb.spec_schedule(int(i), q)
        o = offs[i]
        start[o:offs[i + 1]] = box_start[i] + s.start
        end[o:offs[i + 1]] = box_start[i] + s.end
        alloc[o:offs[i + 1]] = s.alloc
        box = np.sort(box_procs[i])
        for v in range(s.start.size):
            procs[o + v] = box[s.procs[v]]
        order.extend(int(o + v) for v in s.order)
    return PtgSchedule(start, end, alloc, procs, dag.owner.copy(), np.array(order, int))


def cafm_list(pb: Problem, rng: np.random.Generator, key: str = "saf") -> PtgSchedule:
    """CAFM SAF / SPTF / LPTF (seed 004 [L400-409]): boxes of ``a_i`` processors and length
    ``T̂_i(a_i)`` list-scheduled by M_RIGID (area ascending, time ascending, time
    descending; random ties), then filled with the HCPA schedules.

    Parameters
    ----------
    pb : Problem
        The ``N`` PTGs on one cluster (the moldable specification is cached in it).
    rng : numpy.random.Generator
        Breaks ties between equal priorities.
    key : {"saf", "sptf", "lptf"}
        The box order: smallest area first, shortest time first, longest time first.

    Returns
    -------
    PtgSchedule
        Every task's start, end, allocation and processors (flat order of ``pb``), before
        BACKFILL.
    """
    ms = shared_spec(pb)
    a = ms.allotment
    dur = ms.hat[np.arange(pb.N), a - 1]
    value = {"saf": a * dur, "sptf": dur, "lptf": -dur}[key]
    order = np.lexsort((rng.permutation(pb.N), value))
    box_start, box_procs = m_rigid(a, dur, order, pb.P)
    return _embed(pb, ms, a, box_start, box_procs)


def cafm_k_shelves(pb: Problem, rng: np.random.Generator) -> PtgSchedule:
    """CAFM K SHELVES (seed 004 [L410-418]): K-shelf boxes with unit weights and unshuffled
    shelves of non-decreasing length (``kshelf(T̂, P, cmax=d*, compact=False)``), each PTG
    on ``γ_i(L_k)`` processors, then the HCPA schedules inside.

    Parameters
    ----------
    pb : Problem
        The ``N`` PTGs on one cluster (the moldable specification is cached in it).
    rng : numpy.random.Generator
        Breaks ties between equal priorities.

    Returns
    -------
    PtgSchedule
        Every task's start, end, allocation and processors (flat order of ``pb``), before
        BACKFILL.
    """
    ms = shared_spec(pb)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ks = kshelf(ms.hat, pb.P, cmax=ms.d_star, eps=EPS, repair=True, compact=False)
    sched = ks.schedule
    size = np.asarray(sched.allotment, int)
    return _embed(pb, ms, size, np.asarray(sched.start, float),
                  [np.asarray(p, int) for p in sched.processors])
