"""One scheduling problem of seed 004: ``N`` PTGs released at 0 on one cluster (§6.5), with
everything the 19 algorithms share, computed once.

The shared parts: the flat task arrays, each PTG's standalone HCPA allocation on ``P``
processors and its schedule (``C*_i``, spec §2.1, DECIDE-3: no backfilling), the priority
keys of spec §3.5 and the moldable specification of spec §3.7 (built on demand, cached).
:attr:`Problem.timings` records the one-time cost of each shared part (``standalone_hcpa``;
``moldable_spec``, set by :mod:`lpsched.ptg.cafm`) so that run times can be reported
honestly whichever algorithm happened to pay for it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Any

import numpy as np

from lpsched.errors import InvalidInstanceError
from lpsched.ptg.hcpa import DEFAULT_BOUND, HcpaBound, Trajectory, all_allocs, hcpa_schedule
from lpsched.ptg.levels import bottom_levels
from lpsched.ptg.model import PTG, Cluster, Dag, flatten, single
from lpsched.ptg.mstatic import hcpa_makespans
from lpsched.ptg.schedule import PtgSchedule


@dataclass
class Problem:
    """``ptgs`` on ``cluster``, with the seed of the shared parts' random ties and the
    improved-HCPA variant.

    ``hcpa_bound`` is the processor bound of "improved HCPA" (DECIDE-1) used wherever the seed
    says improved HCPA: standalone allocations and ``C*_i``, the SELFISH and Zhao families,
    the moldable specification and CAFM CRA (not CRA's own allocations, DECIDE-17).
    """

    ptgs: list[PTG]
    cluster: Cluster
    seed: int = 0
    hcpa_bound: HcpaBound = DEFAULT_BOUND
    _spec: dict[int, np.ndarray] = field(default_factory=dict, repr=False)
    cache: dict[str, Any] = field(default_factory=dict, repr=False)
    timings: dict[str, float] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.hcpa_bound, HcpaBound):
            raise InvalidInstanceError("hcpa_bound", self.hcpa_bound, "must be an HcpaBound")
        if not self.ptgs:
            raise InvalidInstanceError("ptgs", [], "give at least one PTG")
        for i, g in enumerate(self.ptgs):
            if not isinstance(g, PTG):
                raise InvalidInstanceError(f"ptgs[{i}]", type(g).__name__, "must be a PTG")

    def charge(self, part: str, since: float) -> None:
        """Add ``perf_counter() − since`` seconds to the shared part ``part``.

        Parameters
        ----------
        part : str
            The precomputation charged (``standalone_hcpa``, ``moldable_spec``).
        since : float
            ``time.perf_counter()`` when it started.
        """
        self.timings[part] = self.timings.get(part, 0.0) + time.perf_counter() - since

    @property
    def P(self) -> int:
        """Processors of the cluster."""
        return self.cluster.processors

    @property
    def N(self) -> int:
        """Number of PTGs."""
        return len(self.ptgs)

    @cached_property
    def flat(self) -> tuple[Dag, np.ndarray]:
        """All tasks as one :class:`Dag` and each PTG's offset."""
        return flatten(self.ptgs, self.cluster.speed)

    @cached_property
    def dags(self) -> list[Dag]:
        """Each PTG alone as a :class:`~lpsched.ptg.model.Dag` on the cluster's speed (computed
        once)."""
        return [single(g, self.cluster.speed) for g in self.ptgs]

    @cached_property
    def trajectories(self) -> list[Trajectory]:
        """HCPA on the whole cluster per PTG, replayable for any budget (timed as
        ``standalone_hcpa``)."""
        dags = self.dags
        t0 = time.perf_counter()
        out = [Trajectory.build(d, self.P, self.hcpa_bound) for d in dags]
        self.charge("standalone_hcpa", t0)
        return out

    @cached_property
    def selfish_alloc(self) -> np.ndarray:
        """``HCPA_ALLOC(G_i, P)`` of every PTG, as if alone (DECIDE-30), flat."""
        traj = self.trajectories
        t0 = time.perf_counter()
        out = np.concatenate([t.alloc(self.P) for t in traj])
        self.charge("standalone_hcpa", t0)
        return out

    def rng(self, *salt: int) -> np.random.Generator:
        """A generator for one purpose: ``default_rng([seed, *salt])``.

        Parameters
        ----------
        *salt : int
            Integers naming the purpose (e.g. ``1, i`` for PTG ``i``'s standalone schedule), so
            every draw is the same whatever ran before.

        Returns
        -------
        numpy.random.Generator
            A new generator.
        """
        return np.random.default_rng([self.seed, *salt])

    @cached_property
    def alone(self) -> list[PtgSchedule]:
        """``HCPA_SCHED(G_i, P)`` of every PTG (spec §3.2)."""
        offs, alloc = self.flat[1], self.selfish_alloc
        t0 = time.perf_counter()
        out = [hcpa_schedule(d, self.P, self.rng(1, i), alloc[offs[i]:offs[i + 1]])
               for i, d in enumerate(self.dags)]
        self.charge("standalone_hcpa", t0)
        return out

    @cached_property
    def cstar(self) -> np.ndarray:
        """``C*_i``: makespan of PTG ``i`` alone on ``P`` processors under HCPA (§2.1)."""
        return np.array([s.makespan for s in self.alone])

    def keys(self, kind: str, alloc: np.ndarray) -> tuple[np.ndarray, ...]:
        """Priority keys of spec §3.5 (smaller first): ``bl`` (decreasing bottom level),
        ``order`` (increasing ``C*_i``, then decreasing ``bl``), ``weight`` (decreasing
        ``bl/C*_i²``); ``bl`` inside each PTG under ``alloc``.

        Parameters
        ----------
        kind : {"bl", "order", "weight"}
            The priority of SELFISH, ORDER or WEIGHT (seed 004 [L226, L242-249]).
        alloc : numpy.ndarray
            Processors per task (flat), for the bottom levels.

        Returns
        -------
        tuple of numpy.ndarray
            One or two key arrays over the flat tasks, compared lexicographically.
        """
        dag = self.flat[0]
        bl = bottom_levels(dag, alloc)
        cs = self.cstar[dag.owner]
        if kind == "bl":
            return (-bl,)
        if kind == "order":
            return (cs, -bl)
        if kind == "weight":
            return (-bl / cs**2,)
        raise ValueError(f"unknown priority key {kind!r}")

    def spec_times(self, i: int) -> np.ndarray:
        """``T_i(p)``, ``p = 1..P``: makespan of ``HCPA_SCHED(G_i, p)`` (spec §3.7), cached.

        O(P·(n log n + n·P log P)) per PTG.

        Parameters
        ----------
        i : int
            The PTG.

        Returns
        -------
        numpy.ndarray
            Its HCPA makespan (s) on ``p`` processors, ``p = 1..P`` (shape ``(P,)``).
        """
        if i not in self._spec:
            allocs = all_allocs(self.trajectories[i])
            dag = self.dags[i]
            self._spec[i] = hcpa_makespans(dag, allocs, partial(self.rng, 2, i))
        return self._spec[i]

    def spec_schedule(self, i: int, p: int, traj: Trajectory | None = None) -> PtgSchedule:
        """``S_i(p)``: the HCPA schedule of PTG ``i`` on ``p`` virtual processors
        (deterministic: ties from ``rng(2, i, p)``).

        Parameters
        ----------
        i : int
            The PTG.
        p : int
            Virtual processors, ``1 <= p <= P``.
        traj : Trajectory, optional
            The PTG's HCPA run to take the allocation from (default its standalone one).

        Returns
        -------
        PtgSchedule
            The PTG alone on ``p`` processors; its makespan is ``spec_times(i)[p − 1]``.
        """
        t = traj or self.trajectories[i]
        return hcpa_schedule(self.dags[i], p, self.rng(2, i, p), t.alloc(p))
