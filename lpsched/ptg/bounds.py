"""Lower bounds on every scenario: overall makespan, each PTG's own makespan and the
scaled sum completion time.

* classical: ``CP_i`` = critical path with every task at its fastest time ``T(v, P)``,
  ``A_i = Σ_v T(v, 1)`` the minimum area; ``C_i >= max(CP_i, A_i/P)`` and
  ``Cmax >= max(max_i CP_i, Σ_i A_i / P)``;
* LP (:mod:`lpsched.ptg.bound_model`, solved by HiGHS): continuous durations, tangents of
  the convex work curve, precedence and work rows; ``>=`` the classical bound; solved in
  seconds, or, when the longest task is outside :data:`SECONDS_RANGE`, in the power of two
  of seconds where it takes 1 to 2 units, so any accepted work (up to 1e30 flop) stays
  within HiGHS' finite range and above its tolerances;
* sum of completions: ``Σ_i C_i >= max(Σ_i LB_i, Σ_k (A_(1) + ... + A_(k))/P)`` (PTGs by
  increasing area: the ``k``-th PTG to finish needs the area of ``k`` PTGs done), divided
  by ``Σ C*_i`` for the SSCT.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from lpsched.errors import SolverError
from lpsched.ptg.bound_model import makespan_lp
from lpsched.ptg.levels import bottom_levels
from lpsched.ptg.problem import Problem
from lpsched.solvers.highs import solve_highs


@dataclass(frozen=True)
class Bounds:
    """Lower bounds of one problem (module doc). ``*_classical`` and ``*_lp`` per PTG and
    overall; ``ssct`` the bound on the scaled sum completion time and its source."""

    ptg_classical: np.ndarray
    ptg_lp: np.ndarray
    makespan_classical: float
    makespan_lp: float
    sum_completion: float
    ssct: float
    ssct_source: str

    @property
    def makespan(self) -> float:
        """The best lower bound of the overall makespan (s): the larger of the classical and the
        LP bound."""
        return max(self.makespan_classical, self.makespan_lp)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: ``makespan`` (its value, which bound gives it and both bounds),
        ``scaled_sum_completion`` (value and source) and ``ptg_makespan`` (each PTG's classical
        and LP bounds); the ``lower_bounds`` of ``lpsched ptg schedule --json``.

        Returns
        -------
        dict
            Plain data (numbers in seconds, per-PTG bounds as arrays), ready for
            :func:`lpsched.cli.common.dump_json`.
        """
        best = "lp" if self.makespan_lp >= self.makespan_classical else "classical"
        return {"makespan": {"value": self.makespan, "bound": best,
                             "classical": self.makespan_classical, "lp": self.makespan_lp},
                "scaled_sum_completion": {"value": self.ssct, "bound": self.ssct_source},
                "ptg_makespan": {"classical": self.ptg_classical, "lp": self.ptg_lp}}


def classical(pb: Problem) -> tuple[np.ndarray, np.ndarray]:
    """``(CP_i, A_i)`` per PTG (module doc).

    O(n + e).

    Parameters
    ----------
    pb : Problem
        The PTGs and their cluster (``P`` processors).

    Returns
    -------
    tuple of numpy.ndarray
        ``CP_i``, the critical path of PTG ``i`` with every task at its fastest time
        ``T(v, P)`` (s), and ``A_i = Σ_v T(v, 1)``, its minimum area (processor-seconds),
        shape ``(N,)`` each: ``max(CP_i, A_i / P)`` bounds PTG ``i``'s makespan.
    """
    dag = pb.flat[0]
    bl = bottom_levels(dag, np.full(dag.n, pb.P))
    offs = pb.flat[1]
    cp = np.maximum.reduceat(bl, offs[:-1])
    area = np.add.reduceat(dag.t1, offs[:-1])
    return cp, area


#: longest sequential times (s) for which the LP bound is solved in seconds, unscaled:
#: ``[2**-10, 2**40)``, about 1 ms to 35,000 years, holds every problem of the seed's
#: generators and clusters (0.06 s to 500 s)
SECONDS_RANGE = (2.0**-10, 2.0**40)


def _unit_exponent(t1: np.ndarray) -> int:
    """``k`` such that the LP bound is solved on ``t1·2**k``: 0 when the longest time is
    within :data:`SECONDS_RANGE`, else the power of two that brings it into ``[1, 2)`` (0
    when every time is 0)."""
    top = float(t1.max()) if t1.size else 0.0
    if top <= 0 or SECONDS_RANGE[0] <= top < SECONDS_RANGE[1]:
        return 0
    return 1 - int(np.frexp(top)[1])


def _solve(pb: Problem, per_owner: bool) -> np.ndarray:
    """The LP bound, solved in a time unit where HiGHS can solve it (decision 133).

    HiGHS takes a bound of 1e20 or more as infinite (a task of 1e30 flop made it reject the
    model) and its tolerances are absolute (on tasks of a nanosecond the bound came out 0).
    Every time of the LP (bounds, tangent right-hand sides) is proportional to ``t1`` and its
    slopes are unitless, so scaling ``t1`` by ``2**k`` scales the optimum by exactly that
    factor (no rounding): it is scaled back here. Problems whose longest task is within
    :data:`SECONDS_RANGE` are solved unscaled, in seconds (scaling them too would move 2
    LPs of 600 by 1e-15 relative)."""
    dag = pb.flat[0]
    k = _unit_exponent(dag.t1)
    if k:
        dag = dataclasses.replace(dag, t1=np.ldexp(dag.t1, k))
    sol = solve_highs(makespan_lp(dag, pb.P, per_owner))
    sol.require_optimal("PTG makespan LP bound")
    if not sol.residual <= 1e-6 * max(1.0, abs(sol.objective)):
        raise SolverError(f"PTG makespan LP bound: residual {sol.residual:.3g}")
    return np.ldexp(np.asarray(sol.values["makespan"], float), -k)


def lower_bounds(pb: Problem, lp: bool = True) -> Bounds:
    """Every lower bound of the module doc: each PTG's makespan, the overall makespan and the
    scaled sum completion time (two HiGHS solves when ``lp``).

    The LP values are reduced by a relative 1e-7 so solver round-off never makes a bound
    exceed a makespan (so an LP value may show just below an equal classical one). A bound's
    ``source`` names the one that gives its value: for the scaled sum, "lp" when the LP raised
    at least one PTG's own bound, else "classical", or "area-order".

    Parameters
    ----------
    pb : Problem
        The PTGs, their cluster and ``C*_i`` (for the scaled sum completion time).
    lp : bool
        Also solve the LP relaxations (:func:`lpsched.ptg.bound_model.makespan_lp`); with
        ``False`` the LP values equal the classical ones.

    Returns
    -------
    Bounds
        Per-PTG and overall makespan bounds (s) and the bound on the scaled sum completion
        time (seed 004 §2's SSCT), each at most the value of any schedule.

    Notes
    -----
    The bounds are decision 133's, the labels decision 212's.
    """
    cp, area = classical(pb)
    ptg_cl = np.maximum(cp, area / pb.P)
    cmax_cl = float(max(cp.max(), area.sum() / pb.P))
    if lp:
        ptg_lp = _solve(pb, True) * (1 - 1e-7)
        cmax_lp = float(_solve(pb, False)[0]) * (1 - 1e-7)
    else:
        ptg_lp, cmax_lp = np.full(pb.N, np.nan), float("nan")
    per = np.fmax(ptg_cl, ptg_lp)
    prefix = float(np.cumsum(np.sort(area)).sum() / pb.P)
    # "lp" only when the LP raised some PTG's bound above its classical one
    total, source = float(per.sum()), "lp" if lp and bool((ptg_lp > ptg_cl).any()) \
        else "classical"
    if prefix > total:
        total, source = prefix, "area-order"
    return Bounds(ptg_cl, ptg_lp, cmax_cl, cmax_lp, total, total / float(pb.cstar.sum()),
                  source)
