"""What a max-stretch search returns (seed 003 §3), with the JSON forms.

The answer of one feasibility LP (:class:`Check`), the record of every LP solved
(:class:`Probe`), the plan in tasks (:class:`StretchPlan`: amounts sent and computed per
interval, buffers per epoch) and the result of :func:`lpsched.bags.maxstretch.max_stretch`
(:class:`MaxStretchResult`).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lpsched.models.program import LinearProgram
from lpsched.solvers.highs import write_model


@dataclass(frozen=True)
class Check:
    """The answer of one feasibility LP (see
    :meth:`~lpsched.bags.maxstretch.search.StretchSearch.check`)."""

    stretch: float
    feasible: bool
    deficit: float
    slope: float
    interval: Hashable
    x: np.ndarray = field(repr=False)
    model_key: Hashable = None
    #: The workers of the model that answered (indices into the search's problem).
    workers: tuple[int, ...] = ()


@dataclass(frozen=True)
class Probe:
    """One LP solved by a search: the stretch (or interval) and what it said."""

    kind: str  # "feasibility" or "interval"
    low: float
    high: float
    feasible: bool
    # feasibility: the deficit in tasks (offline path checks: the uniform shortfall
    # (1 - λ)·Σ r_k, decision 229); interval LPs: the optimal S
    value: float
    seconds: float
    iterations: int

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: every field by name (an entry of ``probes`` in
        :meth:`MaxStretchResult.to_dict`).

        Returns
        -------
        dict
            ``kind``, ``low``, ``high``, ``feasible``, ``value`` and ``seconds``.
        """
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass(frozen=True)
class StretchPlan:
    """A point of (K)/(K1) at stretch ``stretch``, in amounts of tasks (seed 003 §3.4).

    ``epochs`` (``E``,) sorted epoch times (s); interval ``j`` is ``[epochs[j], epochs[j+1]]``.
    ``comm[k, u, j]`` tasks of application ``k`` sent to worker ``u`` in interval ``j``
    (``A_{M→u}^(k)(j)``), ``comp[k, u, j]`` tasks computed (``A_u^(k)(j)``),
    ``buffers[k, u, e]`` tasks waiting on ``u`` at epoch ``e`` (``B_u^(k)(t_e)``).
    ``apps[k]`` is the index of row ``k`` in the instance; ``start``, ``remaining`` and
    ``buffered`` describe the windows and the initial state (offline: releases, ``Π``, 0).
    """

    stretch: float
    epochs: np.ndarray
    deadlines: np.ndarray
    start: np.ndarray
    remaining: np.ndarray
    buffered: np.ndarray
    comm: np.ndarray
    comp: np.ndarray
    buffers: np.ndarray
    apps: np.ndarray
    port: str
    t_new: float | None = None

    def rates(self) -> tuple[np.ndarray, np.ndarray]:
        """Rates ``ρ_{M→u}^(k)(j)`` and ``ρ_u^(k)(j)`` (tasks/s); 0 on empty intervals.

        Returns
        -------
        tuple of numpy.ndarray
            Sending and computing rates, each ``(n, p, J)``, tasks per second (seed 003 §3.3's
            ``ρ`` variables).
        """
        length = np.diff(self.epochs)
        inv = np.divide(1.0, length, out=np.zeros_like(length), where=length > 0)
        return self.comm * inv, self.comp * inv

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: every array as nested lists (the ``plan`` object of
        ``lpsched solve --json --plan``), read back and checked by
        :func:`lpsched.bags.check.plan_from_dict`.

        Returns
        -------
        dict
            The plan's fields, arrays as nested lists.
        """
        return {
            "stretch": self.stretch, "epochs": self.epochs.tolist(),
            "deadlines": self.deadlines.tolist(), "start": self.start.tolist(),
            "apps": self.apps.tolist(), "port": self.port, "t_new": self.t_new,
            "remaining": self.remaining.tolist(), "buffered": self.buffered.tolist(),
            "comm": self.comm.tolist(), "comp": self.comp.tolist(),
            "buffers": self.buffers.tolist(),
        }

    def to_frame(self) -> Any:
        """The plan as a pandas DataFrame, one row per (application, worker, interval).

        Rows in the order of ``comm[k, u, j]`` (application, then worker, then interval);
        ``pip install 'lpsched[pandas]'`` when pandas is missing.

        Returns
        -------
        pandas.DataFrame
            Columns:

            ``app`` (int)
                Index of the application in the instance, ``apps[k]``.
            ``worker`` (int)
                Worker index ``u``.
            ``interval`` (int)
                Interval index ``j``.
            ``begin``, ``end`` (s)
                The interval ``[epochs[j], epochs[j+1]]``.
            ``comm``, ``comp`` (tasks)
                Tasks sent to ``u`` in ``j`` (``A_{M→u}^(k)(j)``) and computed by ``u``
                (``A_u^(k)(j)``), fractional in the fluid model.
            ``comm_rate``, ``comp_rate`` (tasks/s)
                The same divided by the interval's length (:meth:`rates`; 0 on empty
                intervals).
            ``buffered`` (tasks)
                Tasks waiting on ``u`` at the interval's end, ``buffers[k, u, j+1]``.

        Examples
        --------
        >>> from lpsched.bags import random_bags
        >>> from lpsched.bags.maxstretch import max_stretch
        >>> plan = max_stretch(random_bags(3, 2, seed=0)).plan
        >>> frame = plan.to_frame()
        >>> len(frame) == plan.comm.size
        True
        >>> list(frame.columns)[:5]
        ['app', 'worker', 'interval', 'begin', 'end']
        >>> bool(abs(frame.groupby("app")["comp"].sum() - plan.remaining).max() < 1e-6)
        True
        """
        from lpsched.core.frames import frame

        n, p, j = self.comm.shape
        k, u, i = (a.ravel() for a in np.meshgrid(np.arange(n), np.arange(p), np.arange(j),
                                                  indexing="ij"))
        comm_rate, comp_rate = self.rates()
        return frame({
            "app": np.asarray(self.apps)[k], "worker": u, "interval": i,
            "begin": self.epochs[:-1][i], "end": self.epochs[1:][i],
            "comm": self.comm.ravel(), "comp": self.comp.ravel(),
            "comm_rate": comm_rate.ravel(), "comp_rate": comp_rate.ravel(),
            "buffered": self.buffers[:, :, 1:].ravel(),
        }, "StretchPlan.to_frame()")


@dataclass(frozen=True)
class MaxStretchResult:
    """The optimal max-stretch and how it was found.

    ``stretch`` is achievable (the plan proves it); ``lower`` is the largest stretch shown
    infeasible (``stretch`` itself for the exact interval method). ``lp_solves`` counts the
    LPs of the exact model, ``pricing_solves`` the one-worker pricing LPs and
    ``relaxation_solves`` the (smaller) LPs of the window relaxation that raised the lower
    bound, its pricing LPs included; ``highs_seconds`` is the time inside HiGHS,
    ``build_seconds`` the model building in Python (both including the relaxation's),
    ``seconds`` everything. ``probes`` lists every LP of the exact model in order.
    ``formulation`` is ``"buffers"`` or ``"paths"``; under paths a probe is one check (its
    ``seconds`` and ``iterations`` summed over the master solves), ``column_rounds`` counts
    the master solves and ``columns`` the paths generated by pricing (the relaxation's
    included), and ``lp_size`` is the master's final size. ``coarse_solves`` counts the
    coarse LP solves that chose where a large path search starts and the pairs it seeds
    (each column-generation round of the fine coarse LP counts as one; their time is in
    ``highs_seconds``).

    Notes
    -----
    The coarse start is decisions 228-229; what the counters mean under paths, decision 219.
    """

    stretch: float
    lower: float
    method: str
    status: str
    plan: StretchPlan
    dedicated_makespans: np.ndarray
    throughputs: np.ndarray
    lp_solves: int
    pricing_solves: int
    workers_used: int
    critical_values: int
    seconds: float
    highs_seconds: float
    build_seconds: float
    iterations: int
    lp_size: dict[str, int]
    probes: tuple[Probe, ...]
    search: Any = field(default=None, repr=False, compare=False)
    relaxation_solves: int = 0
    formulation: str = "buffers"
    column_rounds: int = 0
    columns: int = 0
    coarse_solves: int = 0

    @property
    def deadlines(self) -> np.ndarray:
        """Deadline of each application of the plan (s): release plus ``stretch`` times its
        dedicated makespan, seed 003 eq. (2) (``plan.deadlines``)."""
        return self.plan.deadlines

    @property
    def epochs(self) -> np.ndarray:
        """Sorted epoch times of the plan (s), ``plan.epochs``."""
        return self.plan.epochs

    @property
    def comm(self) -> np.ndarray:
        """Tasks of application ``k`` sent to worker ``u`` in interval ``j``,
        ``plan.comm[k, u, j]``."""
        return self.plan.comm

    @property
    def comp(self) -> np.ndarray:
        """Tasks of application ``k`` computed by worker ``u`` in interval ``j``,
        ``plan.comp[k, u, j]``."""
        return self.plan.comp

    @property
    def buffers(self) -> np.ndarray:
        """Tasks of application ``k`` waiting on worker ``u`` at epoch ``e``,
        ``plan.buffers[k, u, e]``."""
        return self.plan.buffers

    def interval_lp(self) -> LinearProgram:
        """The stretch-interval LP (12)–(20) whose optimum is ``stretch`` (min ``S``);
        :class:`~lpsched.errors.LpschedError` for a result found by solving time scales
        apart (:func:`~lpsched.bags.maxstretch.offline.solve_by_scales`: no single LP holds
        it).

        Returns
        -------
        LinearProgram
            A fresh copy of that LP (to read, export or re-solve).
        """
        if self.search is None:
            from lpsched.errors import LpschedError

            raise LpschedError("this max-stretch was found by solving the applications' time "
                               "scales apart (decision 250): no single LP holds it to export")
        return self.search.interval_lp_at(self.stretch)

    def export_lp(self, path: str) -> None:
        """Write :meth:`interval_lp` as an LP or MPS file (by extension).

        Parameters
        ----------
        path : str
            The file written: ``.lp`` or ``.mps``.
        """
        write_model(self.interval_lp(), path)

    def to_dict(self, plan: bool = True) -> dict[str, Any]:
        """JSON-ready summary (``plan=False`` leaves out the per-interval arrays).

        Parameters
        ----------
        plan : bool
            Include the plan (default ``True``).

        Returns
        -------
        dict
            ``stretch``, ``lower``, ``method``, ``status``, ``dedicated_makespans``
            (``MS*_k``, s), ``throughputs``, ``deadlines``, the search's counts and times,
            ``probes``, and with ``plan`` the :meth:`StretchPlan.to_dict`.
        """
        out: dict[str, Any] = {
            "stretch": self.stretch, "lower": self.lower, "method": self.method,
            "status": self.status, "lp_solves": self.lp_solves,
            "pricing_solves": self.pricing_solves,
            "relaxation_solves": self.relaxation_solves, "coarse_solves": self.coarse_solves,
            "workers_used": self.workers_used,
            "formulation": self.formulation, "column_rounds": self.column_rounds,
            "columns": self.columns,
            "critical_values": self.critical_values, "seconds": self.seconds,
            "highs_seconds": self.highs_seconds, "build_seconds": self.build_seconds,
            "iterations": self.iterations, "lp_size": self.lp_size,
            "port": self.plan.port, "t_new": self.plan.t_new,
            "apps": self.plan.apps.tolist(),
            "dedicated_makespans": self.dedicated_makespans.tolist(),
            "throughputs": self.throughputs.tolist(),
            "deadlines": self.deadlines.tolist(),
            "probes": [p.to_dict() for p in self.probes],
        }
        if plan:
            out["plan"] = self.plan.to_dict()
        return out

    def to_frame(self, per: str = "application") -> Any:
        """The result as a pandas DataFrame (``pip install 'lpsched[pandas]'``).

        Parameters
        ----------
        per : {"application", "interval", "probe"}
            ``"application"`` (default): one row per application of the plan, in the
            plan's order; ``"interval"``: the plan, one row per (application, worker,
            interval), exactly :meth:`StretchPlan.to_frame`; ``"probe"``: one row per LP
            of the exact model, in the order solved (the fields of :class:`Probe`).

        Returns
        -------
        pandas.DataFrame
            Per application, columns:

            ``app`` (int)
                Index of the application in the instance (``plan.apps``).
            ``release`` (s)
                ``r_k`` of seed 003 eq. (2): ``start`` offline, ``d_k − S·MS*_k`` online
                (to rounding).
            ``start`` (s)
                Where the application's window opens: its release offline, ``T_new``
                online (``plan.start``).
            ``tasks`` (tasks)
                Tasks still at the master when the window opens (``Π`` offline, ``Π_rem``
                online; ``plan.remaining``).
            ``buffered`` (tasks)
                Tasks already on the workers at ``start`` (``plan.buffered`` summed over
                the workers; 0 offline).
            ``rho_star`` (tasks/s)
                ``ρ*``, the throughput of the application alone on the platform
                (``throughputs``).
            ``ms_star`` (s)
                ``MS*``, its dedicated makespan (``dedicated_makespans``).
            ``deadline`` (s)
                ``d_k = r_k + S·MS*_k`` at the optimal stretch ``S`` (``deadlines``).
            ``stretch`` (1)
                The optimal max-stretch ``S`` (the same on every row), ``stretch``.

            Per probe: ``kind``, ``low``, ``high`` (1, stretch), ``feasible``, ``value``
            (tasks for a feasibility LP, the optimal ``S`` for an interval LP),
            ``seconds`` (s, time in HiGHS) and ``iterations`` (simplex iterations).

        Raises
        ------
        ValueError
            ``per`` is none of the three.

        Examples
        --------
        >>> from lpsched.bags import random_bags
        >>> from lpsched.bags.maxstretch import max_stretch
        >>> inst = random_bags(3, 2, seed=0)
        >>> res = max_stretch(inst)
        >>> apps = res.to_frame()
        >>> " ".join(apps.columns)
        'app release start tasks buffered rho_star ms_star deadline stretch'
        >>> apps["tasks"].tolist() == inst.tasks.tolist()
        True
        >>> len(res.to_frame(per="probe")) == len(res.probes)
        True
        """
        from lpsched.core.frames import frame

        if per == "interval":
            return self.plan.to_frame()
        if per == "probe":
            fields = list(Probe.__dataclass_fields__)
            return frame({f: [getattr(p, f) for p in self.probes] for f in fields},
                         "MaxStretchResult.to_frame(per='probe')")
        if per != "application":
            raise ValueError(f"per={per!r}: MaxStretchResult.to_frame() gives one row per "
                             "'application', 'interval' or 'probe'")
        return frame(self._application_columns(), "MaxStretchResult.to_frame()")

    def _application_columns(self) -> dict[str, Any]:
        """The columns of :meth:`to_frame` per application."""
        ms = np.asarray(self.dedicated_makespans, float)
        deadlines = np.asarray(self.deadlines, float)
        return {
            "app": np.asarray(self.plan.apps, int),
            "release": (np.asarray(self.plan.start, float) if self.plan.t_new is None
                        else deadlines - self.stretch * ms),
            "start": np.asarray(self.plan.start, float),
            "tasks": np.asarray(self.plan.remaining, float),
            "buffered": np.asarray(self.plan.buffered, float).reshape(len(ms), -1).sum(axis=1),
            "rho_star": np.asarray(self.throughputs, float), "ms_star": ms,
            "deadline": deadlines, "stretch": float(self.stretch),
        }
