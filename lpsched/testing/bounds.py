"""One entry point for the bounds and optima lpsched can certify.

:func:`lower_bound` returns a proven lower bound of the optimum of ``(instance, objective)``
and :func:`optimum` the exact optimum when a solver proves it. Nothing here is a new model:
they call the family's existing bounds, LPs and MIPs.

=================  ====================  ==============================================  ==========
family             objective             lower_bound                                     optimum
=================  ====================  ==============================================  ==========
identical          makespan              ``max(Σp/m, max p)`` (combinatorial)            P||Cmax MIP
hybrid (CPU+GPU)   makespan              largest λ the 2-dual step rejects, or           MIP
                                         ``max(max min(p, p̄), Σ min(p, p̄)/(m+k))``
rigid              makespan              ``max(A/m, pmax)`` (combinatorial)              packing MIP
moldable           makespan              largest d MRT's dual test rejects               MIP, time
                                                                                         indexed
                                                                                         (whole
                                                                                         numbers)
star (seed 003)    max_stretch           LP optimum of the fluid max-stretch (lp)        none
star               max_flow,             ``MS*_k``: no application completes faster      none
                   sum_flow,             than alone at its steady-state throughput
                   makespan              (combinatorial)
tasks (seed 000    max_stretch,          preemptive migratory optimum by max-flow        none
ch. 3)             max_flow              search (lp); above 3,000 tasks one processor
                                         of speed m, EDF (combinatorial)
tasks              sum_flow              SRPT on one processor of speed m, Σp            none
                                         (combinatorial)
campaigns (seed    makespan,             largest user's Σ l_i (campaigns sequential),    none
002)               max_campaign_stretch  area / m; every campaign stretch >= 1
                                         (combinatorial)
ptg (seed 004)     makespan,             critical path and area, or the LP on the        none
                   sum_completion        tangents of Amdahl's work curves (lp)
=================  ====================  ==============================================  ==========

An unsupported pair raises :class:`UnsupportedObjectiveError` (an
:class:`~lpsched.errors.LpschedError`) naming what is supported.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from lpsched.errors import LpschedError, SolverError
from lpsched.solvers import Status
from lpsched.testing.instances import (
    AnyInstance,
    HybridTasks,
    IdenticalJobs,
    RigidJobs,
    family,
)

Kind = Literal["exact", "lp", "combinatorial"]

#: (family, objective) pairs with a lower bound, and those with an exact solver.
LOWER_BOUNDS: dict[str, tuple[str, ...]] = {
    "identical": ("makespan",), "hybrid": ("makespan",), "rigid": ("makespan",),
    "moldable": ("makespan",),
    "star": ("max_stretch", "max_flow", "sum_flow", "makespan"),
    "tasks": ("max_stretch", "max_flow", "sum_flow"),
    "campaigns": ("makespan", "max_campaign_stretch"),
    "ptg": ("makespan", "sum_completion"),
}
OPTIMA: dict[str, tuple[str, ...]] = {
    "identical": ("makespan",), "hybrid": ("makespan",), "rigid": ("makespan",),
    "moldable": ("makespan",),
}


#: What HiGHS's tolerances may still hide once it reports a MIP optimal, relative to the
#: makespan: :mod:`lpsched.approx.exact` solves with both gaps at 0 in a unit where the
#: largest time is in [1, 2) (decision 87), so only the feasibility and optimality
#: tolerances (1e-6 there) remain; a factor 4 of margin.
MIP_TOLERANCE = 4e-6


#: HiGHS's feasibility tolerance: a MIP whose objective is not recomputed from a schedule
#: (the rigid-job packing) may be off by this much per job.
MIP_FEASIBILITY = 1e-6


def _grid(values: np.ndarray, digits: int = 6) -> int | None:
    """The fewest decimals ``d <= digits`` with every value a multiple of ``10^-d``."""
    for d in range(digits + 1):
        scaled = values * 10.0**d
        if np.all(np.abs(scaled - np.round(scaled)) <= 1e-9 * np.maximum(1.0, scaled)):
            return d
    return None


def certify(value: float, data: np.ndarray, slack: float = 0.0) -> tuple[float, float, bool]:
    """``(value, lower, exact)`` for a MIP answer reported optimal.

    HiGHS's tolerances leave a doubt of ``MIP_TOLERANCE·|value|``; ``slack`` adds what
    its feasibility tolerance may shift a value that is not recomputed from a schedule.
    When the data are multiples of ``10^-d`` (whole numbers, few decimals), every makespan
    is too; if the total doubt is below half that step, the optimum is ``value`` rounded to
    it, proven. Otherwise the answer is not exact and ``lower = value − doubt``.

    Parameters
    ----------
    value : float
        The objective (e.g. a makespan) HiGHS reported optimal.
    data : numpy.ndarray
        The instance's numbers (any shape) whose decimal grid the objective lies on, e.g. the
        processing times.
    slack : float
        An absolute doubt added to ``MIP_TOLERANCE·|value|`` (default 0: the value was
        recomputed from a schedule).

    Returns
    -------
    value : float
        The optimum (rounded to the grid when proven), else ``value`` unchanged.
    lower : float
        A proven lower bound on the optimum (``value`` when exact, else ``value − doubt``,
        at least 0).
    exact : bool
        Whether the optimum is proven equal to the returned value.

    Examples
    --------
    >>> certify(8.999999, np.array([3.0, 3.0, 3.0]), slack=3e-6)
    (9.0, 9.0, True)
    >>> certify(1000000.5, np.array([0.5, 1e6]))[2]  # a doubt of 4 spans many steps of 0.5
    False
    """
    doubt = MIP_TOLERANCE * abs(value) + slack
    d = _grid(np.asarray(data, dtype=float).ravel())
    if d is not None and doubt < 0.5 * 10.0**-d * (1 - 1e-9):
        exact = round(value * 10**d) / 10**d
        return exact, exact, True
    return value, max(value - doubt, 0.0), False


class UnsupportedObjectiveError(LpschedError, ValueError):
    """lpsched has no bound (or no exact solver) for this (instance family, objective)."""


@dataclass(frozen=True)
class Bound:
    """A proven lower bound ``value`` on the optimal ``objective``.

    ``kind`` says what it is (``"exact"``: the optimum itself, ``"lp"``: an LP relaxation's
    optimum, ``"combinatorial"``: a closed-form or dual-test bound) and ``how`` which
    function gave it.
    """

    value: float
    kind: Kind
    how: str
    objective: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields.

        Returns
        -------
        dict
            ``value``, ``kind``, ``how`` and ``objective``.

        Examples
        --------
        >>> Bound(6.0, "combinatorial", "max(sum p/m, max p)", "makespan").to_dict()["kind"]
        'combinatorial'
        """
        return {"value": self.value, "kind": self.kind, "how": self.how,
                "objective": self.objective}


@dataclass(frozen=True)
class Optimum:
    """The best ``value`` a solver found and the proven ``lower`` bound on the optimum.

    ``proven`` only when the optimum is proven exactly (then ``value == lower``): the
    solver reported it optimal within its time limit *and* its stopping gap
    (:func:`certify`) cannot hide a better value. ``kind`` is ``"exact"`` when proven, else
    ``"incumbent"`` (an upper bound only).
    """

    value: float
    lower: float
    proven: bool
    how: str
    status: str
    objective: str
    seconds: float

    @property
    def kind(self) -> str:
        """``"exact"`` when proven, else ``"incumbent"``.

        Examples
        --------
        >>> Optimum(9.0, 8.5, False, "MIP", "time_limit", "makespan", 1.0).kind
        'incumbent'
        """
        return "exact" if self.proven else "incumbent"

    @property
    def bound(self) -> Bound:
        """The proven lower bound as a :class:`Bound` (``"exact"`` when proven).

        Examples
        --------
        >>> Optimum(9.0, 9.0, True, "MIP", "optimal", "makespan", 1.0).bound.kind
        'exact'
        """
        return Bound(self.lower, "exact" if self.proven else "combinatorial",
                     self.how if self.proven else f"{self.how} (solver's dual bound)",
                     self.objective)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields (``kind`` included).

        Returns
        -------
        dict
            ``value``, ``lower``, ``proven``, ``kind``, ``how``, ``status``, ``objective`` and
            ``seconds``.

        Examples
        --------
        >>> Optimum(9.0, 9.0, True, "MIP", "optimal", "makespan", 1.0).to_dict()["proven"]
        True
        """
        return {"value": self.value, "lower": self.lower, "proven": self.proven,
                "kind": self.kind, "how": self.how, "status": self.status,
                "objective": self.objective, "seconds": self.seconds}


def _unsupported(fam: str, objective: str, table: dict[str, tuple[str, ...]],
                 what: str) -> UnsupportedObjectiveError:
    pairs = ", ".join(f"{f}: {'/'.join(objs)}" for f, objs in table.items())
    return UnsupportedObjectiveError(f"no {what} for objective {objective!r} on a {fam} "
                                     f"instance; lpsched has one for {pairs}")


def _identical_lb(inst: Any, objective: str) -> Bound:
    from lpsched.approx.listsched import lower_bound as graham_bound

    return Bound(graham_bound(inst.times, inst.machines), "combinatorial",
                 "lpsched.approx.listsched.lower_bound: max(sum p/m, max p)", objective)


def _hybrid_lb(inst: Any, objective: str) -> Bound:
    from lpsched.approx.dual import hybrid_lower_bound, hybrid_schedule

    args = (inst.cpu_times, inst.gpu_times, inst.cpus, inst.gpus)
    simple = hybrid_lower_bound(*args)
    dual = hybrid_schedule(*args).lower_bound
    if dual > simple:
        return Bound(dual, "combinatorial", "lpsched.approx.dual.hybrid_schedule: largest "
                     "lambda the 2-dual step rejects (a proof of infeasibility)", objective)
    return Bound(simple, "combinatorial", "lpsched.approx.dual.hybrid_lower_bound: "
                 "max(max min(p, q), sum min(p, q)/(m + k))", objective)


def _rigid_lb(inst: Any, objective: str) -> Bound:
    from lpsched.approx.packing import nfdh_ls

    res = nfdh_ls(inst.jobs, inst.clusters, inst.cluster_size)
    return Bound(res.lower_bound, "combinatorial",
                 "lpsched.approx.packing.nfdh_ls: max(area/m, pmax)", objective)


def _moldable_lb(inst: Any, objective: str) -> Bound:
    from lpsched.approx.moldable import mrt

    res = mrt(inst.times, inst.processors)
    return Bound(res.lower_bound, "combinatorial", "lpsched.approx.moldable.mrt: largest d "
                 "the MRT dual test rejects (else max(max T(m), sum T(1)/m))", objective)


def _star_lb(inst: Any, objective: str, time_limit: float | None) -> Bound:
    from lpsched.bags.steady_state import dedicated_makespans

    if objective == "max_stretch":
        from lpsched.bags.maxstretch import max_stretch

        res = max_stretch(inst, time_limit=time_limit)
        return Bound(float(res.lower), "lp", "lpsched.bags.maxstretch.max_stretch: optimum "
                     "of the fluid max-stretch LP (K)/(K1), method 'intervals'", objective)
    ms = dedicated_makespans(inst)
    value = {"max_flow": float(ms.max()), "sum_flow": float(ms.sum()),
             "makespan": float((inst.release + ms).max())}[objective]
    return Bound(value, "combinatorial", "lpsched.bags.steady_state.dedicated_makespans: "
                 "each application needs at least MS*_k = tasks/rho*_k after its release",
                 objective)


def _tasks_lb(inst: Any, objective: str) -> Bound:
    """Online sequential tasks (seed 000 ch. 3): the bounds of :mod:`lpsched.tasks.bounds`,
    which hold for every schedule, preemptive or not, online or offline."""
    from lpsched.tasks.bounds import lower_bounds

    res = lower_bounds(inst)[objective]
    kind: Kind = "lp" if res.kind == "preemptive-exact" else "combinatorial"
    how = {"preemptive-exact": "optimum of the preemptive, migratory relaxation (a "
                               "transportation LP solved as a max-flow feasibility search)",
           "speed-m-edf": "one processor of speed m, EDF (above the exact-search limit)",
           "srpt-speed-m": "SRPT on one processor of speed m, and the total work"}.get(
               res.kind, res.kind)
    return Bound(float(res.value), kind, f"lpsched.tasks.bounds.lower_bounds: {how}",
                 objective)


def _campaigns_lb(inst: Any, objective: str) -> Bound:
    """Campaigns (seed 002): a campaign cannot end before ``t_i + l_i`` with ``l_i =
    max(W_i/m, p_max,i)`` (its stretch denominator [L782]), and a user's campaigns run one
    after the other (``t_{i+1} >= C_i``, spec §1.1): the makespan is at least the largest
    user's ``Σ_i l_i`` and the total area over ``m``; every campaign stretch is at least 1."""
    if objective == "max_campaign_stretch":
        return Bound(1.0, "combinatorial", "C_i - t_i >= l_i = max(W_i/m, p_max,i) [L782]",
                     objective)
    chain = np.bincount(inst.user, weights=inst.lower_bound, minlength=1).max()
    area = float((inst.p * inst.q).sum()) / inst.processors
    return Bound(float(max(chain, area)), "combinatorial", "max(largest user's sum of "
                 "l_i = max(W_i/m, p_max,i) (campaigns are sequential), total area / m)",
                 objective)


def _ptg_lb(inst: Any, objective: str) -> Bound:
    """Multiple PTGs (seed 004): :func:`lpsched.ptg.bounds.lower_bounds` (critical path and
    area; the LP on Amdahl's convex work curves; the area-order bound on the sum)."""
    from lpsched.ptg.bounds import lower_bounds

    b = lower_bounds(inst)
    if objective == "makespan":
        lp = b.makespan_lp >= b.makespan_classical
        return Bound(b.makespan, "lp" if lp else "combinatorial", "lpsched.ptg.bounds."
                     "lower_bounds: " + ("makespan LP on the tangents of the work curves"
                                         if lp else "max(critical path, area / P)"), objective)
    kind: Kind = "lp" if b.ssct_source == "lp" else "combinatorial"
    return Bound(b.sum_completion, kind, f"lpsched.ptg.bounds.lower_bounds: sum of each "
                 f"PTG's completion bound ({b.ssct_source})", objective)


_LOWER: dict[str, Callable[[Any, str], Bound]] = {
    "identical": _identical_lb, "hybrid": _hybrid_lb, "rigid": _rigid_lb,
    "moldable": _moldable_lb, "tasks": _tasks_lb, "campaigns": _campaigns_lb,
    "ptg": _ptg_lb,
}


def lower_bound(inst: AnyInstance, objective: str = "makespan", *,
                time_limit: float | None = 60.0) -> Bound:
    """A proven lower bound of the optimal ``objective`` of ``inst``.

    Parameters
    ----------
    inst : IdenticalJobs, HybridTasks, RigidJobs, MoldableJobs or lpsched.bags.Instance
        The instance (e.g. drawn by :mod:`lpsched.testing.strategies`).
    objective : str
        ``"makespan"`` for every family; ``"max_stretch"``, ``"max_flow"``, ``"sum_flow"``
        for star instances (table in the module doc).
    time_limit : float or None
        Wall-clock budget of the max-stretch LP search (star instances).

    Returns
    -------
    Bound
        ``value``, ``kind`` (``"lp"`` or ``"combinatorial"``) and ``how``.

    Raises
    ------
    UnsupportedObjectiveError
        For a pair lpsched cannot bound.

    Examples
    --------
    >>> from lpsched.testing.instances import IdenticalJobs
    >>> lower_bound(IdenticalJobs([3, 3, 2, 2, 2], 2), "makespan").value
    6.0
    """
    fam = family(inst)
    if objective not in LOWER_BOUNDS[fam]:
        raise _unsupported(fam, objective, LOWER_BOUNDS, "lower bound")
    if fam == "star":
        return _star_lb(inst, objective, time_limit)
    return _LOWER[fam](inst, objective)


def _solve_exact(inst: Any, time_limit: float) -> Any:
    from lpsched.approx import exact

    fam = family(inst)
    if fam == "identical":
        return exact.makespan_identical(inst.times, inst.machines, time_limit), \
            "lpsched.approx.exact.makespan_identical (assignment MIP, HiGHS)"
    if fam == "hybrid":
        return exact.makespan_hybrid(inst.cpu_times, inst.gpu_times, inst.cpus, inst.gpus,
                                     time_limit), \
            "lpsched.approx.exact.makespan_hybrid (assignment MIP, HiGHS)"
    if fam == "rigid":
        return exact.makespan_rigid(inst.jobs, inst.processors, inst.cluster_size,
                                    inst.local, time_limit), \
            "lpsched.approx.exact.makespan_rigid (contiguous packing MIP, HiGHS)"
    if not inst.integral:
        raise UnsupportedObjectiveError("the exact moldable MIP (time-indexed) needs whole-"
                                        "number times; draw them with moldable_jobs("
                                        "integral=True) or scale the table")
    return exact.makespan_moldable(inst.times, inst.processors, time_limit), \
        "lpsched.approx.exact.makespan_moldable (time-indexed MIP, HiGHS)"


def _trivial(inst: Any) -> bool:
    """Every job takes 0: the optimum is 0, no solver needed."""
    fam = family(inst)
    if fam == "identical":
        return not inst.times.any()
    if fam == "hybrid":
        return not np.minimum(inst.cpu_times, inst.gpu_times).any()
    return False


def optimum(inst: AnyInstance, objective: str = "makespan", *,
            time_limit: float = 10.0) -> Optimum:
    """The optimal ``objective`` of ``inst`` by lpsched's exact MIPs (HiGHS).

    ``proven`` is ``True`` only when HiGHS reports the optimum proved within
    ``time_limit`` and its stopping gap cannot hide a better value (:func:`certify`: whole
    numbers or few decimals); under a time limit that stopped it the result keeps the
    incumbent (``value``) and the dual bound (``lower``), with ``proven=False``; when only
    the gap is in doubt, ``lower = value − gap``.

    Parameters
    ----------
    inst : IdenticalJobs, HybridTasks, RigidJobs or MoldableJobs
        A small instance (the MIPs are for a dozen jobs at most).
    objective : str
        ``"makespan"``.
    time_limit : float
        Seconds given to the solver.

    Returns
    -------
    Optimum
        The best value found, its proven lower bound and whether it is the optimum.

    Raises
    ------
    UnsupportedObjectiveError
        For star instances (no exact solver of the atomic problem in lpsched: use
        :func:`lower_bound`) and non-integral moldable tables.

    Examples
    --------
    >>> from lpsched.testing.instances import IdenticalJobs
    >>> opt = optimum(IdenticalJobs([3, 3, 2, 2, 2], 2))
    >>> opt.value, opt.proven
    (6.0, True)
    """
    fam = family(inst)
    if objective not in OPTIMA.get(fam, ()):
        raise _unsupported(fam, objective, OPTIMA, "exact solver")
    if not (isinstance(time_limit, (int, float)) and time_limit > 0
            and math.isfinite(time_limit)):
        raise LpschedError(f"time_limit {time_limit!r}: must be a finite number > 0")
    t0 = time.perf_counter()
    if _trivial(inst):
        return Optimum(0.0, 0.0, True, "every job takes 0", "optimal", objective, 0.0)
    scale = _scale(inst)
    try:
        res, how = _solve_exact(_scaled(inst, scale), time_limit)
    except SolverError as exc:  # out of time before any schedule: nothing proven
        if exc.status not in (Status.TIME_LIMIT, "time_limit"):
            raise
        low = lower_bound(inst, objective).value
        return Optimum(math.inf, low, False, "no schedule within the time limit; lower: "
                       "lower_bound()", "time_limit", objective, time.perf_counter() - t0)
    value = float(res.makespan)
    lower = float(min(res.bound, value))
    proven = bool(res.optimal)
    if proven:
        data = _data(inst) * scale
        slack = MIP_FEASIBILITY * data.size if family(inst) == "rigid" else 0.0
        value, lower, proven = certify(value, data, slack)
    if scale != 1.0:
        value, lower = value / scale, lower / scale
        how += f" on the times scaled by {scale:g}"
    return Optimum(value, lower, proven, how, str(res.status), objective,
                   time.perf_counter() - t0)


def _scale(inst: Any) -> float:
    """A power of ten that makes the times whole numbers (few decimals: 12.456, 1e-6),
    else brings the largest to ``[1000, 10000)``, so that HiGHS's absolute tolerances
    cannot hide a better makespan; 1 for moldable tables (the time-indexed MIP grows with
    the times) and for times already whole."""
    data = _data(inst)
    top = float(data.max(initial=0.0))
    if family(inst) == "moldable" or top == 0.0:
        return 1.0
    d = _grid(data)
    if d is None:
        d = 3 - int(np.floor(np.log10(top)))
    d = int(np.clip(d, -90, 90))
    return float(10.0**d) if d > 0 else 1.0


def _scaled(inst: Any, scale: float) -> Any:
    """The same instance with every time multiplied by ``scale`` (the optimum scales)."""
    if scale == 1.0:
        return inst
    fam = family(inst)
    if fam == "identical":
        return IdenticalJobs(inst.times * scale, inst.machines)
    if fam == "hybrid":
        return HybridTasks(inst.cpu_times * scale, inst.gpu_times * scale, inst.cpus,
                           inst.gpus)
    return RigidJobs(inst.times * scale, inst.sizes, inst.clusters, inst.cluster_size,
                     inst.local)


def _data(inst: Any) -> np.ndarray:
    """Every time of an instance (the values a makespan is a sum of)."""
    fam = family(inst)
    if fam == "hybrid":
        return np.concatenate([inst.cpu_times, inst.gpu_times])
    return np.asarray(inst.times, dtype=float)
