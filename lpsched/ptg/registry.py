"""The 19 algorithms of seed 004 §4.0 by name, and :func:`run`: algorithm, then BACKFILL
(the last step of every algorithm, [L230-233]), then the independent validator and the
metrics of §2.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from lpsched.errors import InvalidInstanceError
from lpsched.ptg import algorithms as alg
from lpsched.ptg import cafm
from lpsched.ptg.mapping import backfill
from lpsched.ptg.problem import Problem
from lpsched.ptg.schedule import Metrics, PtgSchedule, metrics, validate

Algorithm = Callable[[Problem, np.random.Generator], PtgSchedule]

#: the 19 names of the issue, in the order of spec §4.0
ALGORITHMS: dict[str, Algorithm] = {
    "selfish": partial(alg.selfish, key="bl"),
    "selfish-order": partial(alg.selfish, key="order"),
    "selfish-weight": partial(alg.selfish, key="weight"),
    "c1": alg.c1,
    "c4": alg.c4,
    "f1": alg.f1,
    "f2": alg.f2,
    "cra-ndags": partial(alg.cra, strategy="ndags", key="bl"),
    "cra-ndags-weight": partial(alg.cra, strategy="ndags", key="weight"),
    "cra-work": partial(alg.cra, strategy="work", key="bl"),
    "cra-work-weight": partial(alg.cra, strategy="work", key="weight"),
    "cra-width": partial(alg.cra, strategy="width", key="bl"),
    "cra-width-weight": partial(alg.cra, strategy="width", key="weight"),
    "cafm-cra": partial(cafm.cafm_cra, key="bl"),
    "cafm-cra-weight": partial(cafm.cafm_cra, key="weight"),
    "cafm-saf": partial(cafm.cafm_list, key="saf"),
    "cafm-sptf": partial(cafm.cafm_list, key="sptf"),
    "cafm-lptf": partial(cafm.cafm_list, key="lptf"),
    "cafm-k-shelves": cafm.cafm_k_shelves,
}


@dataclass(frozen=True)
class RunResult:
    """A backfilled schedule of one algorithm with its metrics and timings.

    Attributes
    ----------
    seconds : float
        The algorithm's own time: the algorithm and BACKFILL, once the shared parts exist.
    shared : dict[str, float]
        One-time cost of each shared precomputation the algorithm uses (``standalone_hcpa``
        for all 19, ``moldable_spec`` for CAFM), whichever run paid for it; the cost of the
        algorithm on a fresh problem is ``seconds + shared_seconds``.
    valid : bool or None
        True when the independent validator ran on both schedules and passed, None when
        it was not run (``run(check=False)``); a failed check raises instead.
    """

    algorithm: str
    schedule: PtgSchedule
    before_backfill: PtgSchedule
    metrics: Metrics
    seconds: float
    shared: dict[str, float] = field(default_factory=dict)
    valid: bool | None = None

    @property
    def shared_seconds(self) -> float:
        """Sum of :attr:`shared`."""
        return float(sum(self.shared.values()))

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: algorithm, ``valid``, the metrics, ``seconds``, ``shared_seconds``
        and its parts ``shared``.

        Returns
        -------
        dict
            One algorithm's row of ``lpsched ptg schedule --json`` (seconds of CPU, metrics of
            seed 004 §2).
        """
        return {"algorithm": self.algorithm, "valid": self.valid, **self.metrics.to_dict(),
                "seconds": self.seconds, "shared_seconds": self.shared_seconds,
                "shared": dict(self.shared)}

    def row(self) -> dict[str, Any]:
        """The run's own figures, one scalar each: the row of :meth:`to_frame`'s
        ``per="run"``.

        Returns
        -------
        dict
            ``algorithm``, ``valid``, ``makespan`` (s), ``scaled_sum_completion``,
            ``max_stretch`` (seed 004 §2), ``utilisation`` (busy area over ``P·Cmax``),
            ``seconds`` and ``shared_seconds`` (s).
        """
        m = self.metrics
        return {"algorithm": self.algorithm, "valid": self.valid, "makespan": m.makespan,
                "scaled_sum_completion": m.scaled_sum_completion,
                "max_stretch": m.max_stretch, "utilisation": m.utilisation,
                "seconds": self.seconds, "shared_seconds": self.shared_seconds}

    def to_frame(self, per: str = "task") -> Any:
        """The run as a pandas DataFrame, the ``algorithm`` in its first column (``pip
        install 'lpsched[pandas]'`` when pandas is missing).

        Parameters
        ----------
        per : {"task", "ptg", "run"}
            ``"task"`` (default): one row per task, the columns of
            :meth:`PtgSchedule.to_frame <lpsched.ptg.schedule.PtgSchedule.to_frame>` for the
            backfilled schedule, then ``start_before`` and ``end_before`` (s, the task in
            the schedule before BACKFILL); ``"ptg"``: one row per PTG, the columns of
            :meth:`Metrics.to_frame <lpsched.ptg.schedule.Metrics.to_frame>`; ``"run"``:
            one row, the fields of :meth:`row` (the run's makespan, scaled sum completion
            time, max-stretch, utilisation and timings).

        Returns
        -------
        pandas.DataFrame
            One row per task or per PTG, or one row.

        Raises
        ------
        ValueError
            ``per`` is none of ``"task"``, ``"ptg"`` and ``"run"``.

        Examples
        --------
        >>> from lpsched.ptg.generators import fft_ptg
        >>> from lpsched.ptg.model import get_cluster
        >>> from lpsched.ptg.problem import Problem
        >>> pb = Problem([fft_ptg(4, seed=1), fft_ptg(4, seed=2)], get_cluster("chti"))
        >>> res = run(pb, "selfish")
        >>> tasks = res.to_frame()
        >>> len(tasks) == res.schedule.start.size, list(tasks.columns)[:3]
        (True, ['algorithm', 'task', 'ptg'])
        >>> bool((tasks["end"] <= tasks["end_before"] + 1e-9).all())  # BACKFILL never delays
        True
        >>> float(res.to_frame(per="ptg")["stretch"].max()) == res.metrics.max_stretch
        True
        >>> res.to_frame(per="run")[["algorithm", "valid", "max_stretch"]].round(3)
          algorithm  valid  max_stretch
        0   selfish   True        1.747
        """
        if per == "run":
            from lpsched.core.frames import frame

            return frame({k: [v] for k, v in self.row().items()},
                         "RunResult.to_frame(per='run')")
        if per == "task":
            out = self.schedule.to_frame()
            out["start_before"] = self.before_backfill.start
            out["end_before"] = self.before_backfill.end
        elif per == "ptg":
            out = self.metrics.to_frame()
        else:
            raise ValueError(f"per={per!r}: RunResult.to_frame() gives one row per 'task' "
                             "or per 'ptg', or one row for the 'run'")
        out.insert(0, "algorithm", self.algorithm)
        return out


def shared_parts(pb: Problem, name: str) -> dict[str, float]:
    """Compute (once per problem) the shared precomputations algorithm ``name`` uses and
    return the one-time cost of each (``pb.timings``).

    Parameters
    ----------
    pb : Problem
        The problem.
    name : str
        One of the 19 algorithm names.

    Returns
    -------
    dict
        Part name (``standalone_hcpa``, ``moldable_spec``) -> seconds it took.
    """
    pb.cstar  # noqa: B018 - standalone HCPA: allocations, schedules, C*_i
    parts = ["standalone_hcpa"]
    if name.startswith("cafm"):
        cafm.shared_spec(pb)
        parts.append("moldable_spec")
    return {k: pb.timings.get(k, 0.0) for k in parts}


def algorithm_names() -> list[str]:
    """The 19 names, spec §4.0 order.

    Returns
    -------
    list of str
        ``selfish`` ... ``cafm-k-shelves``, as ``--algorithm`` takes them.
    """
    return list(ALGORITHMS)


def run(pb: Problem, name: str, seed: int | None = None, check: bool = True) -> RunResult:
    """Run algorithm ``name`` on ``pb`` and BACKFILL the result.

    Parameters
    ----------
    pb : Problem
        The PTGs and the cluster; its shared parts are computed first (not timed in
        ``seconds``; reported in ``shared``).
    name : str
        One of :data:`ALGORITHMS` (InvalidInstanceError otherwise).
    seed : int, optional
        Seed of the random ties (default ``pb.seed``).
    check : bool
        Validate both schedules (InvalidScheduleError on a violation); ``valid`` is then
        True, otherwise None.

    Returns
    -------
    RunResult
        No task starts later than before BACKFILL.

    Examples
    --------
    Two 4-point FFT graphs on the 20 processors of Table 1's ``chti`` cluster:

    >>> from lpsched.ptg.generators import fft_ptg
    >>> from lpsched.ptg.model import get_cluster
    >>> from lpsched.ptg.problem import Problem
    >>> pb = Problem([fft_ptg(4, seed=1), fft_ptg(4, seed=2)], get_cluster("chti"))
    >>> r = run(pb, "cafm-k-shelves")
    >>> r.valid, round(r.metrics.makespan, 3), round(r.metrics.max_stretch, 3)
    (True, 169.027, 0.986)
    >>> round(run(pb, "selfish").metrics.max_stretch, 3)
    1.747

    (A stretch may fall below 1: each PTG's reference time ``C*_i`` is its makespan alone
    under HCPA's allocation, which another algorithm's allocation can beat, seed 004 A9.)
    """
    if name not in ALGORITHMS:
        raise InvalidInstanceError("algorithm", name, f"unknown; one of {', '.join(ALGORITHMS)}")
    rng = np.random.default_rng([pb.seed if seed is None else seed, 7,
                                 list(ALGORITHMS).index(name)])
    shared = shared_parts(pb, name)
    t0 = time.perf_counter()
    raw = ALGORITHMS[name](pb, rng)
    final = backfill(raw, pb.flat[0], pb.P)
    seconds = time.perf_counter() - t0
    if check:
        validate(raw, pb.ptgs, pb.cluster)
        validate(final, pb.ptgs, pb.cluster)
    return RunResult(name, final, raw, metrics(final, pb.cstar, pb.P), seconds, shared,
                     True if check else None)
