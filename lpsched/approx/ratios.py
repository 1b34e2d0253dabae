"""Randomised checks that every approximation guarantee holds (``lpsched check-ratios``).

The instances, per algorithm:

* list scheduling and LPT (identical machines): uniform random times, small and large, and
  for ``m = 2..8`` the two classical tight families, on which the theorem ratio is reached
  exactly: Graham's example (:func:`graham_tight`, ``2 − 1/m``) and the LPT example
  (:func:`lpt_tight`, ``4/3 − 1/(3m)``);
* the CPU+GPU dual approximations (2 and 3/2): uniform random CPU times with random GPU
  accelerations (at most 1, or up to 2 on every other trial); no adversarial family;
* NFDH+LS (contiguous and local rigid jobs): uniform random jobs (every third trial all of
  width ``ℓ/2 + 1``, one per cluster at a time), and the three-job instance of seed 000
  ch. 4 Figure 4.2 (three unit jobs of width 2 on two clusters of 3). That instance is tight
  for the local/non-local ratio 2 (Theorems 2 and 3), not for NFDH+LS: its makespan 2 is
  the local optimum and twice its lower bound ``max(A/m, pmax)``, against a guarantee of 3;
* MRT and K-shelf (moldable jobs): random monotonic tables (:func:`moldable_table`) and small
  integer Amdahl tables.

Each result is checked against its certified bound (``makespan <= guarantee·lower_bound``)
and, on small sizes, against the exact MIP optimum (the theorem ratio against OPT, and the
dual step never rejecting a λ or a ``d`` that the optimum achieves). Deterministic by seed.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lpsched.approx import exact
from lpsched.approx.dual import hybrid_schedule, hybrid_step, hybrid_step_32
from lpsched.approx.listsched import list_scheduling, lpt
from lpsched.approx.moldable import (
    amdahl_table,
    kshelf,
    mrt,
    mrt_test,
    validate_moldable,
)
from lpsched.approx.packing import nfdh_ls, validate_rigid


@dataclass
class RatioReport:
    """The worst observed ratio per algorithm, its guarantee, the trials and the violations.

    A ratio is measured against the optimum when it is known (small instances solved by
    MIP), else against the certified lower bound.
    """

    worst: dict[str, tuple[float, float]] = field(default_factory=dict)
    trials: dict[str, int] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)

    def record(self, name: str, ratio: float, guarantee: float) -> None:
        """Keep the trial closest to its guarantee (``ratio/guarantee`` largest).

        Parameters
        ----------
        name : str
            The algorithm (or generator) the trial measured, e.g. ``"lpt"``.
        ratio : float
            The trial's makespan over its reference (optimum or lower bound).
        guarantee : float
            The ratio the algorithm is proven to stay within.
        """
        old = self.worst.get(name)
        if old is None or (ratio / guarantee, ratio) > (old[0] / old[1], old[0]):
            self.worst[name] = (ratio, guarantee)
        self.trials[name] = self.trials.get(name, 0) + 1

    def to_dict(self) -> dict[str, Any]:
        """The JSON form printed by ``lpsched check-ratios --json``: per algorithm the worst
        ratio, its guarantee, their quotient and the number of trials; the violations; ``ok``
        when there are none.

        Returns
        -------
        dict
            ``algorithms`` (name -> ``worst_ratio``, ``its_guarantee``, ``share_of_guarantee``,
            ``trials``), ``violations`` (list of str) and ``ok`` (bool).
        """
        return {"algorithms": {n: {"worst_ratio": r, "its_guarantee": g,
                                   "share_of_guarantee": r / g, "trials": self.trials[n]}
                               for n, (r, g) in self.worst.items()},
                "violations": self.violations, "ok": not self.violations}


def graham_tight(m: int) -> tuple[np.ndarray, float]:
    """Graham's tight instance: m(m−1) unit tasks then one of length m.

    List scheduling in this order gives 2m − 1, OPT = m: the ratio ``2 − 1/m``.

    Parameters
    ----------
    m : int
        The number of identical machines (>= 1).

    Returns
    -------
    times : numpy.ndarray
        The m(m−1) + 1 processing times, the long task last (the list's order).
    optimum : float
        OPT = m.
    """
    return np.concatenate([np.ones(m * (m - 1)), [float(m)]]), float(m)


def lpt_tight(m: int) -> tuple[np.ndarray, float]:
    """LPT's tight instance: 2m−1, 2m−1, 2m−2, 2m−2, ..., m+1, m+1, m, m, m.

    LPT gives 4m − 1, OPT = 3m: the ratio ``4/3 − 1/(3m)``.

    Parameters
    ----------
    m : int
        The number of identical machines (>= 1).

    Returns
    -------
    times : numpy.ndarray
        The 2m + 1 processing times.
    optimum : float
        OPT = 3m (LPT reaches 4/3 − 1/(3m) of it).
    """
    pairs = np.repeat(np.arange(2 * m - 1, m, -1, dtype=float), 2)
    return np.concatenate([pairs, [m, m, m]]), 3.0 * m


def check_ratios(trials: int = 200, seed: int = 0, small: int = 8,
                 time_limit: float = 5.0) -> RatioReport:
    """Check every approximation guarantee on random and tight instances (module doc).

    ``trials`` random instances per generator; what ``lpsched check-ratios`` prints.

    Parameters
    ----------
    trials : int
        Random instances per generator (default 200).
    seed : int
        The random seed (numpy's ``default_rng``); default 0.
    small : int
        The largest number of jobs of the instances solved exactly by MIP (default 8).
    time_limit : float
        Seconds per exact MIP (default 5).

    Returns
    -------
    RatioReport
        Per algorithm the worst ratio met and its guarantee, the number of trials, and the
        violations (empty when every guarantee held).
    """
    rng = np.random.default_rng(seed)
    rep = RatioReport()
    _identical_machines(rep, rng, trials, small, time_limit)
    _hybrid(rep, rng, trials, small, time_limit)
    _packing(rep, rng, trials, time_limit)
    _moldable(rep, rng, trials, time_limit)
    return rep


def _identical(rep: RatioReport, name: str, algo: Callable[[np.ndarray, int], Any],
               opt_ratio: Callable[[int], float], times: np.ndarray, m: int,
               opt: float | None, small: int, time_limit: float) -> None:
    """One identical-machines trial: the certified bound, then the theorem ratio against
    ``opt`` (or the MIP optimum on small sizes), else the ratio to the lower bound."""
    r = algo(times, m)
    if not r.holds():
        rep.violations.append(f"{name}: makespan {r.makespan} > {r.guarantee}·LB "
                              f"{r.lower_bound}")
    if opt is None and times.size <= small and m <= 3:
        e = exact.makespan_identical(times, m, time_limit)
        opt = e.makespan if e.optimal else None
    if opt is not None:
        bound = opt_ratio(m)
        rep.record(name, r.makespan / opt, bound)
        if r.makespan > bound * opt * (1 + 1e-9):
            rep.violations.append(f"{name}: makespan {r.makespan} > {bound:.4f}·OPT {opt} "
                                  f"(m={m}, times={times.tolist()})")
    else:
        rep.record(name, r.ratio, r.guarantee)


def _identical_machines(rep: RatioReport, rng: np.random.Generator, trials: int, small: int,
                        time_limit: float) -> None:
    """List scheduling (2 − 1/m) and LPT (4/3 − 1/(3m)) on small and large uniform
    instances, and on Graham's and the LPT tight families for m = 2..8."""
    def ls_ratio(m: int) -> float:
        return 2 - 1 / m

    def lpt_ratio(m: int) -> float:
        return 4 / 3 - 1 / (3 * m)

    for _ in range(trials):
        m = int(rng.integers(1, 4))
        n = int(rng.integers(1, small + 1))
        times = np.round(rng.uniform(0.5, 10, n), 2)
        _identical(rep, "list-scheduling", list_scheduling, ls_ratio, times, m, None, small,
                   time_limit)
        _identical(rep, "lpt", lpt, lpt_ratio, times, m, None, small, time_limit)
        big = rng.uniform(1, 100, int(rng.integers(50, 400)))
        _identical(rep, "list-scheduling", list_scheduling, ls_ratio, big,
                   int(rng.integers(2, 33)), None, small, time_limit)
        _identical(rep, "lpt", lpt, lpt_ratio, big, int(rng.integers(2, 33)), None, small,
                   time_limit)
    for m in range(2, 9):
        t, opt = graham_tight(m)
        _identical(rep, "list-scheduling", list_scheduling, ls_ratio, t, m, opt, small,
                   time_limit)
        t, opt = lpt_tight(m)
        _identical(rep, "lpt", lpt, lpt_ratio, t, m, opt, small, time_limit)


def _hybrid(rep: RatioReport, rng: np.random.Generator, trials: int, small: int,
            time_limit: float) -> None:
    """CPU+GPU dual approximations (2 and 3/2 variants) against their certified bound and
    the MIP optimum, and the dual step accepting λ = OPT."""
    fail = rep.violations.append
    for trial in range(trials):
        m, k = int(rng.integers(1, 3)), int(rng.integers(1, 3))
        n = int(rng.integers(1, small + 1))
        p = np.round(rng.uniform(1, 10, n), 2)
        accel = rng.uniform(0.05, 2.0, n) if trial % 2 else rng.uniform(0.05, 1.0, n)
        q = np.round(p * accel + 0.01, 2)
        r = hybrid_schedule(p, q, m, k)
        if not r.holds():
            fail(f"hybrid-2: makespan {r.makespan} > 2·LB {r.lower_bound}")
        e = exact.makespan_hybrid(p, q, m, k, time_limit)
        if e.optimal:
            rep.record("hybrid-2", r.makespan / e.makespan, 2.0)
            if r.makespan > 2 * e.makespan * (1 + r.tolerance) * (1 + 1e-9):
                fail(f"hybrid-2: makespan {r.makespan} > 2·OPT {e.makespan}")
            if hybrid_step(p, q, m, k, e.makespan * (1 + 1e-12)) is None:
                fail(f"hybrid-2: the dual step rejected λ = OPT = {e.makespan}")
        else:
            rep.record("hybrid-2", r.ratio, 2.0)
        r32 = hybrid_schedule(p, q, m, k, variant="3/2")
        if not r32.holds():
            fail(f"hybrid-3/2: makespan {r32.makespan} > {r32.guarantee}·LB {r32.lower_bound}")
        if e.optimal:
            rep.record("hybrid-3/2", r32.makespan / e.makespan, r32.guarantee)
            if r32.makespan > r32.guarantee * e.makespan * (1 + r32.tolerance) * (1 + 1e-9):
                fail(f"hybrid-3/2: makespan {r32.makespan} > {r32.guarantee}·OPT {e.makespan}")
            if hybrid_step_32(p, q, m, k, e.makespan * (1 + 1e-12)) is None:
                fail(f"hybrid-3/2: the DP rejected λ = OPT = {e.makespan}")


def _packing(rep: RatioReport, rng: np.random.Generator, trials: int,
             time_limit: float) -> None:
    """NFDH+LS (3) on random rigid jobs, against the exact contiguous-and-local optimum on
    small sizes, plus the three-job instance of seed 000 Figure 4.2 (ratio 2 to the lower
    bound; module doc)."""
    for trial in range(trials):
        k, ell = int(rng.integers(1, 9)), int(rng.integers(1, 17))
        n = int(rng.integers(1, 200))
        p = rng.uniform(0.1, 100, n)
        size = rng.integers(1, ell + 1, n) if trial % 3 else np.full(n, ell // 2 + 1)
        r = nfdh_ls(np.c_[p, size], k, ell)
        validate_rigid(p, size, r.schedule, k * ell, ell, local=True)
        if not r.holds():
            rep.violations.append(f"nfdh-ls: makespan {r.makespan} > 3·max(A/m, pmax) = "
                                  f"3·{r.lower_bound}")
        if trial % 8 == 0:  # against the exact contiguous-and-local optimum, small sizes
            few = np.c_[p[:4], np.minimum(size[:4], ell)]
            kk = min(k, 2)
            e = exact.makespan_rigid(few, kk * ell, ell, local=True, time_limit=time_limit)
            small_r = nfdh_ls(few, kk, ell)
            if e.optimal:
                rep.record("nfdh-ls", small_r.makespan / e.makespan, 3.0)
                if small_r.makespan > 3 * e.makespan * (1 + 1e-9):
                    rep.violations.append(f"nfdh-ls: makespan {small_r.makespan} > "
                                          f"3·OPT {e.makespan}")
        else:
            rep.record("nfdh-ls", r.ratio, 3.0)
    tight = nfdh_ls(np.array([[1.0, 2], [1.0, 2], [1.0, 2]]), 2, 3)
    rep.record("nfdh-ls", tight.ratio, 3.0)


def moldable_table(rng: np.random.Generator, n: int, m: int, kind: int) -> np.ndarray:
    """Draw a random monotonic moldable time table of one of four families.

    Kind 0: Amdahl with random serial fractions; 1: power law ``w/p^a`` (``a`` in [0, 1]);
    2: near the MRT thresholds (many jobs of similar length with serial fractions 0.2–0.6,
    which overflow shelf S2); 3: a mix of perfectly parallel and sequential jobs.

    Parameters
    ----------
    rng : numpy.random.Generator
        The generator to draw from (it advances).
    n : int
        The number of jobs.
    m : int
        The number of processors (the table's width).
    kind : int
        The family, 0 to 3 as above (any other value: 3).

    Returns
    -------
    numpy.ndarray
        Shape ``(n, m)``: ``T[j, p−1]``, job j's time on p processors (work ``w ~ U[1, 100]``
        on one processor, 50 to 60 for kind 2).
    """
    w = rng.uniform(1, 100, n)
    if kind == 0:
        return amdahl_table(w, rng.uniform(0, 1, n), m)
    if kind == 1:
        return w[:, None] / np.arange(1, m + 1)[None, :] ** rng.uniform(0, 1, n)[:, None]
    if kind == 2:
        return amdahl_table(rng.uniform(50, 60, n), rng.uniform(0.2, 0.6, n), m)
    return amdahl_table(w, rng.choice([0.0, 1.0], n), m)


def _moldable(rep: RatioReport, rng: np.random.Generator, trials: int,
              time_limit: float) -> None:
    """MRT (3/2·(1 + eps) against its proven lower bound; 3/2·(1 + eps) against the MIP
    optimum on integer tables; the dual test accepting OPT) and K-shelf (valid schedules;
    no guarantee is claimed: its worst ratio to MRT's lower bound is reported against inf)."""
    for trial in range(trials):
        m, n = int(rng.integers(1, 33)), int(rng.integers(1, 40))
        table = moldable_table(rng, n, m, trial % 4)
        r = mrt(table, m, eps=1e-3)
        validate_moldable(table, r.schedule)
        if not r.holds() or r.extra["unbuilt_guesses"]:
            rep.violations.append(f"mrt: makespan {r.makespan} vs 3/2·(1+eps)·LB "
                                  f"{r.lower_bound} ({r.extra['unbuilt_guesses']} unbuilt "
                                  f"guesses), m={m}, table={table.tolist()}")
        k = kshelf(table, m, cmax=float(r.extra["d_star"]))
        validate_moldable(table, k.schedule)
        rep.record("k-shelf", k.makespan / r.lower_bound, math.inf)
        if trial % 4 == 0:  # integer Amdahl tables against the time-indexed MIP
            mm, nn = int(rng.integers(1, 4)), int(rng.integers(1, 5))
            small = (rng.integers(0, 4, nn)[:, None]
                     + rng.integers(1, 4, nn)[:, None] * 12 / np.arange(1, mm + 1)[None, :])
            e = exact.makespan_moldable(small, mm, time_limit)
            rs = mrt(small, mm, eps=1e-3)
            if e.optimal:
                rep.record("mrt", rs.makespan / e.makespan, 1.5 * (1 + 1e-3))
                if rs.makespan > 1.5 * (1 + 1e-3) * e.makespan * (1 + 1e-9):
                    rep.violations.append(f"mrt: makespan {rs.makespan} > 3/2·(1+eps)·OPT "
                                          f"{e.makespan}, table={small.tolist()}")
                if mrt_test(small, e.makespan * (1 + 1e-12)) is None:
                    rep.violations.append(f"mrt: the dual test rejected d = OPT = "
                                          f"{e.makespan}, table={small.tolist()}")
        else:
            rep.record("mrt", r.ratio, 1.5 * (1 + 1e-3))
