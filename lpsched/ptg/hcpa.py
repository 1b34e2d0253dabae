"""HCPA allocation over every budget, and HCPA_SCHED (seed 004 §3 [L214-226]; spec §3.1–§3.2).

* :func:`hcpa_alloc` — CPA/HCPA allocation under a processor budget ``Pb``: every task
  starts on one processor; while the critical path ``T_CP`` exceeds the average area
  ``T_A = Σ p_v T(v, p_v)/Pb``, the critical-path task with the largest gain
  ``T(v,p)/p − T(v,p+1)/(p+1)`` (DECIDE-2, GAIN) gets one more processor, subject to the
  per-task cap and the optional per-level cap of CRA (DECIDE-1, DECIDE-17).
  Ties (critical-path walk, selection) go to the lowest task index, so the allocation is a
  function of ``(graph, Pb)`` and can be cached (docs/decisions.md, decision 113). The
  loop itself, exact and batched, is :mod:`lpsched.ptg.hcpa_loop`.
* :class:`HcpaBound` — the processor bound of "improved HCPA" [22], which "bounds the
  number of processors that can be used in a schedule as a way to increase parallel
  efficiency" [L221-223, L592-597] (DECIDE-1; [22]'s exact rule is not in the seed): one
  of a small documented family (a per-task cap ``⌈f·Pb⌉`` or ``⌈x·√Pb⌉``, an Amdahl
  efficiency threshold, a per-level cap, a reduced budget) with CPA's gain selection, or
  the ``literal`` kind: the step exactly as the seed writes it [L216-222], the default
  :data:`DEFAULT_BOUND` (decision 336; the bound fitted to A9, ``budget:0.65``, is the named
  variant :data:`FITTED_BOUND`, decision 170). CRA's own allocations do not get it (DECIDE-17).
* :class:`Trajectory` and :func:`all_allocs` — the run on ``P`` processors, replayed to get
  the allocation for every budget ``Pb <= P`` (the moldable specification of §3.7).
* :func:`hcpa_schedule` — HCPA_SCHED (spec §3.2): allocation then M-STATIC
  (:mod:`lpsched.ptg.mstatic`) by decreasing bottom level (:mod:`lpsched.ptg.levels`) on a
  virtual cluster of ``p`` processors; its makespan is ``C*_i`` for ``p = P`` (no
  backfilling, DECIDE-3).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from lpsched.errors import InvalidInstanceError
from lpsched.ptg.hcpa_literal import literal_alloc, literal_allocs
from lpsched.ptg.hcpa_loop import SMALL, TOL, Gains, Record, run_hcpa
from lpsched.ptg.levels import bottom_levels, dag_levels
from lpsched.ptg.model import Dag
from lpsched.ptg.mstatic import m_static
from lpsched.ptg.schedule import PtgSchedule

#: the kinds of :class:`HcpaBound`
BOUND_KINDS = ("none", "fraction", "sqrt", "efficiency", "level", "budget", "literal")
#: what ``--hcpa-bound`` accepts, for the error messages of :meth:`HcpaBound.parse`
BOUND_SYNTAX = ("literal (the default) or none, alone, or KIND:VALUE with KIND one of "
                "fraction, sqrt, efficiency, level, budget (e.g. fraction:0.5)")


def _ceil(x: float) -> int:
    """``⌈x⌉`` robust to round-off (``0.4·20`` is 8, not 9), at least 1."""
    return max(1, math.ceil(x - 1e-9))


@dataclass(frozen=True)
class HcpaBound:
    """The processor bound of "improved HCPA" (seed 004 [L221-223, L592-597], spec §3.1,
    DECIDE-1), as a function of the budget ``Pb`` (the processors the schedule may use).

    * ``none`` — plain CPA (every task up to ``Pb``).
    * ``fraction`` ``f`` — every task on at most ``⌈f·Pb⌉`` processors.
    * ``sqrt`` ``x`` — every task on at most ``⌈x·√Pb⌉`` processors.
    * ``efficiency`` ``e`` — task ``v`` on at most the largest ``p`` with Amdahl efficiency
      ``T(v,1)/(p·T(v,p)) = 1/(α_v p + 1 − α_v) >= e`` (``Pb`` when ``α_v = 0``).
    * ``level`` ``f`` — the tasks of one precedence level on at most ``⌈f·Pb⌉`` processors
      together (as CRA's level cap, DECIDE-17).
    * ``budget`` ``f`` — HCPA_ALLOC on ``⌈f·Pb⌉`` processors: the stopping test
      ``T_CP <= Σ p T/⌈f·Pb⌉`` and every task on at most ``⌈f·Pb⌉``.
    * ``literal`` (``f`` = 1) — the allocation step *as the seed writes it* [L216-222]:
      the critical-path task with the smallest ``T(v, p+1)/(p+1)`` grows, CPA's stopping
      test, no processor bound (:mod:`lpsched.ptg.hcpa_literal`; the seed states a bound
      [L595-597] but not its value, so none is added). It takes no value.
      Every other kind selects by CPA's gain (DECIDE-2).

    Every cap is non-decreasing in ``Pb`` (the trajectory replay relies on it) and at least 1.
    ``str(bound)`` is ``kind:value`` (``none`` and ``literal`` alone: they take no value, and
    any other is refused); :meth:`parse` reads it back.

    Notes
    -----
    The kinds and the fitted variant ``budget:0.65`` are decision 170; ``literal``, the
    default, decision 336; ``literal`` and ``none`` refuse a value by decision 416.
    """

    kind: str = "none"
    value: float = 1.0

    def __post_init__(self) -> None:
        if self.kind not in BOUND_KINDS:
            raise InvalidInstanceError("hcpa bound", self.kind,
                                       f"unknown kind; one of {', '.join(BOUND_KINDS)}")
        v = self.value
        if self.kind in ("none", "literal") and v != 1:  # decision 416: no silent value
            raise InvalidInstanceError("hcpa bound", f"{self.kind}:{v}",
                                       f"{self.kind} takes no value")
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
                or v <= 0 or (self.kind != "sqrt" and v > 1):
            raise InvalidInstanceError("hcpa bound", f"{self.kind}:{v}",
                                       "the value must be in (0, 1] (sqrt: > 0)")

    def __str__(self) -> str:
        if self.kind in ("none", "literal"):
            return self.kind
        return f"{self.kind}:{self.value:g}"

    @classmethod
    def parse(cls, text: str) -> HcpaBound:
        """The bound ``text`` names: ``"literal"`` (the default), ``"none"``, ``"fraction:0.5"``,
        ``"sqrt:1"``, ``"efficiency:0.6"``, ``"level:1"`` or ``"budget:0.5"``.

        InvalidInstanceError otherwise: ``literal`` and ``none`` take no value.

        Parameters
        ----------
        text : str
            ``KIND`` or ``KIND:VALUE``, as ``str(bound)`` writes it (``--hcpa-bound``).

        Returns
        -------
        HcpaBound
            The bound; ``parse(str(b)) == b``.

        Notes
        -----
        The refusal of a value is decision 416.
        """
        kind, sep, val = str(text).strip().partition(":")
        if kind in ("none", "literal"):
            if sep:  # decision 416: a value here would be dropped or move the budget
                raise InvalidInstanceError("hcpa bound", text, (
                    f"{kind} takes no value; {BOUND_SYNTAX}"))
            return cls(kind, 1.0)
        try:
            number = float(val)
        except ValueError:
            raise InvalidInstanceError("hcpa bound", text, f"expected {BOUND_SYNTAX}"
                                       ) from None
        return cls(kind, number)

    def budget(self, pb: int) -> int:
        """The processors of the stopping test ``T_CP <= T_A``: ``Pb`` (``budget`` and
        ``literal``: ``⌈f·Pb⌉``).

        Parameters
        ----------
        pb : int
            ``Pb``, the processors of the allocation.

        Returns
        -------
        int
            The processors ``T_A = Σ p_v T(v, p_v) / b`` is averaged over, in ``[1, pb]``.
        """
        return min(pb, _ceil(self.value * pb)) if self.kind in ("budget", "literal") else pb

    def caps(self, dag: Dag, pb: int) -> np.ndarray:
        """The largest allocation of every task under budget ``pb`` (integers in ``[1, pb]``).

        A task of ``α = 1`` is capped at 1 under every kind: its time is the same on any number of
        processors, so one more processor never benefits it (the seed grows the task "that would
        benefit the most from one extra processor" [L216-218]; a workflow task recorded on one
        core is such a task by default). Seed 004's tasks have ``α <= 0.25`` [L497]: none is
        capped so.

        Parameters
        ----------
        dag : Dag
            The graph (its ``α`` for the ``efficiency`` kind).
        pb : int
            ``Pb``, the processors of the allocation.

        Returns
        -------
        numpy.ndarray
            One cap per task (shape ``(n,)``), non-decreasing in ``pb``.

        Notes
        -----
        The cap of a sequential task is decision 484.
        """
        if self.kind in ("fraction", "budget"):
            c = _ceil(self.value * pb)
        elif self.kind == "sqrt":
            c = _ceil(self.value * math.sqrt(pb))
        elif self.kind == "efficiency":
            a = dag.alpha
            with np.errstate(divide="ignore", invalid="ignore"):
                lim = np.floor((1.0 / self.value - 1.0 + a) / a + 1e-9)
            lim = np.where(a > 0, lim, pb)
            out = np.clip(np.nan_to_num(lim, nan=pb, posinf=pb), 1, pb).astype(int)
            return np.where(a >= 1.0, 1, out)
        else:
            c = pb
        return np.where(dag.alpha >= 1.0, 1, min(c, pb)).astype(int)

    def level_cap(self, pb: int) -> int | None:
        """The cap on the processors of one precedence level (``level`` only).

        Parameters
        ----------
        pb : int
            ``Pb``, the processors of the allocation.

        Returns
        -------
        int or None
            ``min(pb, ⌈f·pb⌉)`` for the ``level`` kind, None (no level cap) otherwise.
        """
        return min(pb, _ceil(self.value * pb)) if self.kind == "level" else None


#: plain CPA: no processor bound beyond the budget (CRA's allocations, DECIDE-17)
NO_BOUND = HcpaBound()
#: the bound fitted to A9 by decision 170 (HCPA_ALLOC on ``⌈0.65·Pb⌉`` processors with
#: CPA's gain rule): a named variant only, never the default (decision 336)
FITTED_BOUND = HcpaBound("budget", 0.65)
#: "improved HCPA" as the seed writes it [L216-222]: the critical-path task with the
#: smallest ``T(v, p+1)/(p+1)`` grows, CPA's stopping test, no processor bound (the seed
#: states a bound [L595-597] but not its value, so none is added; decision 336)
DEFAULT_BOUND = HcpaBound("literal", 1.0)


def hcpa_alloc(dag: Dag, budget: int, cap: int | None = None, level_cap: int | None = None,
               levels: np.ndarray | None = None, init: np.ndarray | None = None,
               bound: HcpaBound = DEFAULT_BOUND) -> np.ndarray:
    """HCPA_ALLOC (spec §3.1) with budget ``Pb = budget`` under the improved-HCPA
    ``bound`` (default :data:`DEFAULT_BOUND`; :data:`NO_BOUND` is plain CPA); returns
    ``p_v`` (0 for dummies).

    Stops when ``T_CP <= T_A`` (``T_A`` on ``bound.budget(Pb)`` processors) or no
    critical-path task may grow (cap ``min(cap, bound.caps(Pb))``, level cap: ``Σ_{lev(u) =
    lev(v)} p_u + 1 <= min(level_cap, bound.level_cap(Pb))``, levels computed when not
    given). The result never exceeds ``budget`` per task. O(K log n + B·(n + e)) for ``K``
    increments in ``B`` batches.

    Parameters
    ----------
    dag : Dag
        One PTG (or a composite graph) with its sequential times (s) and ``α``.
    budget : int
        ``Pb``, the processors the allocation is for (seed 004 [L214-223]).
    cap : int, optional
        A cap on every task's processors (CRA's ``P_i``, DECIDE-17).
    level_cap : int, optional
        A cap on the processors of one precedence level together (CRA, DECIDE-17).
    levels : numpy.ndarray, optional
        Precedence level per task (:func:`lpsched.ptg.levels.dag_levels`), computed when a
        level cap needs it and none is given.
    init : numpy.ndarray, optional
        The allocation to start from (default 1 per real task, 0 per dummy); gain rule only.
    bound : HcpaBound
        The improved-HCPA variant (DECIDE-1; the literal reading by default).

    Returns
    -------
    numpy.ndarray
        Processors per task (integers, shape ``(n,)``), in ``[1, budget]`` for real tasks.
    """
    limit = bound.caps(dag, budget)
    if cap:
        limit = np.minimum(limit, cap)
    if bound.kind == "literal":
        if level_cap is not None or init is not None:
            raise ValueError("the literal HCPA takes no level cap and no initial state")
        return literal_alloc(dag, budget, limit, bound.budget(budget))
    lc = _min_cap(level_cap, bound.level_cap(budget))
    if lc is not None and levels is None:
        levels = dag_levels(dag)
    p = init.copy() if init is not None else np.where(dag.dummy, 0, 1)
    return run_hcpa(dag, bound.budget(budget), limit, lc, levels, p)


def _min_cap(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)


def _replay_point(traj: Trajectory, b: int, chosen: np.ndarray, before: np.ndarray,
                  lev: np.ndarray, t_cp: np.ndarray, area: np.ndarray) -> tuple[int, bool]:
    """How far a recorded run (steps ``chosen``…, with a larger budget) is also the run
    for budget ``b``: ``(k, stopped)`` — the first ``k`` steps are shared, and ``stopped``
    says the ``b``-run stops there (else it must continue from that state). The two runs
    choose the same task while the ``b``-run's stopping test fails and the chosen task is
    still a candidate for it (below its cap, its level below the level cap): the ``b``-run's
    candidates are a subset, so its largest gain is the same task."""
    k_steps = chosen.size
    bound = traj.bound
    stop = t_cp * bound.budget(b) <= area * (1 + TOL)
    bad = before >= bound.caps(traj.dag, b)[chosen]
    lc = bound.level_cap(b)
    if lc is not None:
        bad |= lev + 1 > lc
    k_stop = int(np.argmax(stop)) if stop.any() else k_steps + 1
    k_div = int(np.argmax(np.append(bad, True)))
    return min(k_stop, k_div, k_steps), k_stop <= k_div


@dataclass
class Trajectory:
    """The HCPA increments on the whole cluster, replayed for smaller budgets.

    For budget ``b`` the run follows the one on ``P`` until either its stopping test holds
    or the chosen task is no longer a candidate for it (:func:`_replay_point`: it already
    has ``b``'s cap, or its level is full); then the run continues from that state. This
    needs every cap of ``bound`` non-decreasing in the budget, and deterministic ties.
    Exactly :func:`hcpa_alloc` with the same ``bound`` for every ``b``."""

    dag: Dag
    chosen: np.ndarray
    before: np.ndarray
    t_cp: np.ndarray
    area: np.ndarray
    processors: int
    bound: HcpaBound = DEFAULT_BOUND
    lev: np.ndarray | None = None
    levels: np.ndarray | None = None
    #: every increment in pop order, shared with the replays (small graphs only)
    gains: Gains | None = field(default=None, repr=False, compare=False)
    #: the allocations computed so far (``literal`` kind only)
    memo: dict[int, np.ndarray] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def build(cls, dag: Dag, processors: int, bound: HcpaBound = DEFAULT_BOUND,
              ) -> Trajectory:
        """One HCPA run with budget ``P`` under ``bound``, recording every step.

        O(K log n). Under the literal rule nothing is recorded: every budget is computed on demand
        by :meth:`alloc`.

        Parameters
        ----------
        dag : Dag
            One PTG (or a composite graph) with its sequential times (s) and ``α``.
        processors : int
            ``P``, the cluster's processors.
        bound : HcpaBound
            The improved-HCPA variant.

        Returns
        -------
        Trajectory
            The run, replayable for every budget ``b <= P``.
        """
        if bound.kind == "literal":  # no replay: every budget is computed (and cached)
            empty = np.zeros(0, dtype=int)
            return cls(dag, empty, empty, np.zeros(1), np.zeros(1), processors, bound)
        levels = dag_levels(dag) if bound.level_cap(processors) is not None else None
        rec = Record([], [], [], [], [])
        gains = Gains(dag, processors) if dag.n <= SMALL else None
        p = run_hcpa(dag, bound.budget(processors), bound.caps(dag, processors),
                      bound.level_cap(processors), levels, np.where(dag.dummy, 0, 1), rec,
                      gains)
        _close(dag, rec, p)
        return cls(dag, np.array(rec.chosen, int), np.array(rec.before, int),
                   np.array(rec.t_cp), np.array(rec.area), processors, bound,
                   np.array(rec.lev), levels, gains)

    def alloc(self, budget: int) -> np.ndarray:
        """HCPA_ALLOC with budget ``budget <= P``.

        O(K) plus any capped continuation.

        Parameters
        ----------
        budget : int
            The budget ``b``, ``1 <= b <= P``.

        Returns
        -------
        numpy.ndarray
            A copy of the allocation :func:`hcpa_alloc` gives for ``b`` under the same bound.
        """
        if self.bound.kind == "literal":
            if budget not in self.memo:
                self.memo[budget] = hcpa_alloc(self.dag, budget, bound=self.bound)
            return self.memo[budget].copy()
        k, stopped = _replay_point(self, budget, self.chosen, self.before, self._lev(),
                                   self.t_cp, self.area)
        p = np.where(self.dag.dummy, 0, 1)
        p += np.bincount(self.chosen[:k], minlength=p.size)
        if stopped or budget >= self.processors:
            return p
        return hcpa_alloc(self.dag, budget, init=p, bound=self.bound, levels=self.levels)

    def _lev(self) -> np.ndarray:
        return self.lev if self.lev is not None else np.zeros(self.chosen.size)


def _close(dag: Dag, rec: Record, p: np.ndarray) -> None:
    """Append the final state's ``T_CP`` and area to a record."""
    rec.t_cp.append(float(bottom_levels(dag, p).max()))
    rec.area.append(float((np.maximum(p, 1) * dag.times(p))[~dag.dummy].sum()))


def all_allocs(traj: Trajectory) -> list[np.ndarray]:
    """``HCPA_ALLOC`` for every budget ``b = 1..P`` (item ``b − 1``) under ``traj.bound``,
    exactly.

    Budgets are processed in decreasing order and the run for ``b`` is replayed from the run
    for ``b + 1`` (not from the run on ``P``): the two choose the same task as long as that
    task is still a candidate for ``b`` (:func:`_replay_point`), so only the steps after the
    first divergence are recomputed. Under the literal rule every budget is run (and cached in
    ``traj``): its runs diverge at once.

    Parameters
    ----------
    traj : Trajectory
        The recorded run of one PTG on the whole cluster (``P = traj.processors``).

    Returns
    -------
    list of numpy.ndarray
        ``P`` allocations, item ``b − 1`` the allocation for budget ``b`` (the moldable
        specification's input, spec §3.7).

    Notes
    -----
    The replay is decisions 113 and 211; the literal rule's divergence is measured in decision 341.
    """
    dag, P, bound = traj.dag, traj.processors, traj.bound
    if bound.kind == "literal":
        if all(bound.budget(b) == b for b in range(1, P + 1)):  # literal_allocs' caps
            for b, p in enumerate(literal_allocs(dag, P) or [], start=1):
                traj.memo.setdefault(b, p)  # the compiled loop, every budget at once
        return [traj.alloc(b) for b in range(1, P + 1)]
    base = np.where(dag.dummy, 0, 1)
    out: list[np.ndarray] = [base] * P
    chosen, before, t_cp, area = traj.chosen, traj.before, traj.t_cp, traj.area
    lev = traj._lev()
    out[P - 1] = traj.alloc(P)
    gains = traj.gains
    limits = (bound.budget(P), bound.caps(dag, P), bound.level_cap(P))
    for b in range(P - 1, 0, -1):
        last, limits = limits, (bound.budget(b), bound.caps(dag, b), bound.level_cap(b))
        if limits[0] == last[0] and limits[2] == last[2] and np.array_equal(limits[1],
                                                                              last[1]):
            out[b - 1] = out[b].copy()  # the same run: it depends on ``b`` only by these
            continue
        k, stopped = _replay_point(traj, b, chosen, before, lev, t_cp, area)
        p = base.copy()
        p += np.bincount(chosen[:k], minlength=p.size)
        if stopped:
            out[b - 1] = p
            chosen, before, lev = chosen[:k], before[:k], lev[:k]
            t_cp, area = t_cp[:k + 1], area[:k + 1]
            continue
        rec = Record([], [], [], [], [])  # the steps after the shared prefix
        p = run_hcpa(dag, limits[0], limits[1], limits[2], traj.levels, p, rec, gains)
        out[b - 1] = p
        _close(dag, rec, p)
        chosen = np.concatenate((chosen[:k], np.array(rec.chosen, int)))
        before = np.concatenate((before[:k], np.array(rec.before, int)))
        t_cp = np.concatenate((t_cp[:k], rec.t_cp))
        area = np.concatenate((area[:k], rec.area))
        lev = np.concatenate((lev[:k], rec.lev))
    return out


def hcpa_schedule(dag: Dag, processors: int, rng: np.random.Generator,
                  alloc: np.ndarray | None = None, bound: HcpaBound = DEFAULT_BOUND,
                  ) -> PtgSchedule:
    """HCPA_SCHED (spec §3.2): ``alloc`` (default :func:`hcpa_alloc` with budget
    ``processors`` under ``bound``) mapped by M-STATIC with decreasing bottom levels on
    ``processors``.

    Parameters
    ----------
    dag : Dag
        One PTG (or a composite graph) with its sequential times (s) and ``α``.
    processors : int
        The processors of the (virtual) cluster the PTG runs on alone.
    rng : numpy.random.Generator
        Breaks ties between equal bottom levels.
    alloc : numpy.ndarray, optional
        The allocation to map (default: :func:`hcpa_alloc` on ``processors``).
    bound : HcpaBound
        The improved-HCPA variant used when ``alloc`` is not given.

    Returns
    -------
    PtgSchedule
        The PTG's standalone schedule; its makespan is ``C*`` when ``processors = P``
        (seed 004 §2.1).
    """
    p = hcpa_alloc(dag, processors, bound=bound) if alloc is None else alloc
    return m_static(dag, p, (-bottom_levels(dag, p),), processors, rng)
