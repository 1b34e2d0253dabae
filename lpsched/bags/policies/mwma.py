"""MWMA — steady-state sharing of the platform by weights (seed 003 §4.1 [L779–L784],
refs [7, 8]; spec §6.4, decision A22).

At every arrival and whenever an application has no task left at the master, the policy
solves the steady-state LP over the applications with tasks left
(:func:`lpsched.bags.throughput_model.weighted_throughput_lp`, one-port):
maximise ``λ`` with ``Σ_u ρ_u^(k) = λ·ω_k``, CPU and port (or link and master) capacities.
Weights:

* ``mwma-nbt``: ``ω_k`` = tasks left at the master;
* ``mwma-ms``: ``ω_k`` = their dedicated time, ``Π_unsent·MS*/Π``.

Between events the master follows the rates in the 1-D load-balancing order: next send is
``argmin (sent since the solve + 1)/ρ_u^(k)`` (ties: application, then worker), back to back.
Workers compute FIFO.

The readings of decision 322, each an option of :class:`MWMA`, the defaults
being today's (decision A22): ``ms_weight="work"`` (M1, MS weight = flop left),
``share="platform"`` (M2, ``Σ_u ρ_u^(k)/ρ*^(k) = λ·ω_k``), ``share="payoff"`` (M3,
``ω_k·Σ_u ρ_u^(k) = λ``), ``resolve="release"`` (M4, re-solve at release dates only),
``objective="sum"`` (M5, maximise ``Σ_k ω_k Σ_u ρ_u^(k)``) and ``send="paced"`` (M6,
sends at the LP's pace rather than back to back). None is adopted (decision 323): the
registered ``mwma-nbt`` / ``mwma-ms`` use the defaults.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from lpsched.bags.simulator import BasePolicy, StarSimulator
from lpsched.bags.throughput_model import weighted_throughput_lp
from lpsched.errors import LpschedError
from lpsched.solvers import solve


def _positive(rates: np.ndarray) -> np.ndarray:
    """The rates the LP really gives, not its round-off: above ``1e-9`` times the largest
    rate. Relative, since rates scale with the platform: with links of 1e-3 B/s every rate
    is below 1e-12 tasks/s, and an absolute threshold there left the policy with nothing to
    send (an application "unfinished")."""
    top = float(rates.max()) if rates.size else 0.0
    return rates > 1e-9 * top if top > 0 else np.zeros(rates.shape, bool)


#: The options of :class:`MWMA` and their values, the first one being the default (decision
#: A22); the others are the readings M1–M6 of decision 322 (none adopted, decision 323).
READINGS: dict[str, tuple[str, ...]] = {
    "ms_weight": ("dedicated", "work"),
    "share": ("tasks", "platform", "payoff"),
    "resolve": ("event", "release"),
    "objective": ("ratio", "sum"),
    "send": ("eager", "paced"),
}


class MWMA(BasePolicy):
    """``mwma-nbt`` or ``mwma-ms`` (seed 003 §4.1 [L779–L784]).

    Parameters
    ----------
    weights : str
        ``"nbt"`` (tasks left at the master [L781]) or ``"ms"`` (remaining time [L782]).
    ms_weight : str
        MS's remaining time: ``"dedicated"`` (``Π_unsent/ρ*``, decision A22) or ``"work"``
        (``Π_unsent·w``, the flop left; reading M1 of decision 322).
    share : str
        How a weight shares the platform: ``"tasks"`` (``Σ_u ρ_u^(k) ∝ ω_k``), ``"platform"``
        (``Σ_u ρ_u^(k)/ρ*^(k) ∝ ω_k``, M2) or ``"payoff"`` (``Σ_u ρ_u^(k) ∝ 1/ω_k``, M3).
    resolve : str
        ``"event"`` (at every release and when an application runs out at the master) or
        ``"release"`` (at release dates only, M4; earlier only if no released application
        with tasks left has a rate).
    objective : str
        ``"ratio"`` (maximise the common ``λ``) or ``"sum"`` (maximise the weighted
        throughput, M5; :func:`~lpsched.bags.throughput_model.weighted_throughput_lp`).
    send : str
        ``"eager"`` (back to back, in the order of the key) or ``"paced"`` (M6: the n-th
        send of ``(k, u)`` since the solve starts no earlier than
        ``t_solve + (n-1)/ρ_u^(k)``; the policy wakes itself up for the next one).
    """

    def __init__(self, weights: str, *, ms_weight: str = "dedicated", share: str = "tasks",
                 resolve: str = "event", objective: str = "ratio",
                 send: str = "eager") -> None:
        if weights not in ("nbt", "ms"):
            raise LpschedError(f"unknown MWMA weights {weights!r}: expected 'nbt' or 'ms'")
        for option, value in (("ms_weight", ms_weight), ("share", share),
                              ("resolve", resolve), ("objective", objective),
                              ("send", send)):
            if value not in READINGS[option]:
                raise LpschedError(f"MWMA {option}={value!r}: expected one of "
                                   f"{', '.join(READINGS[option])}")
        self.weights = weights
        self.ms_weight, self.share, self.resolve = ms_weight, share, resolve
        self.objective, self.send = objective, send
        self.solved_at = 0.0
        self._wake: float | None = None
        self.name = f"mwma-{weights}"
        self.rates: np.ndarray | None = None
        self.sent: np.ndarray | None = None
        self.solve_seconds: list[float] = []
        self._stale = True

    def on_release(self, sim: StarSimulator, k: int) -> None:
        """Mark the rates stale: the steady-state LP is solved again at the next decision.

        Parameters
        ----------
        sim : StarSimulator
            The simulator running the policy (its clock, released and unsent tasks, links).
        k : int
            The index of the application just released.
        """
        self._stale = True

    def lp_weights(self, sim: StarSimulator) -> np.ndarray:
        """The weights given to the steady-state LP now (seed 003 [L779–L782]).

        0 for the applications not released or with no task left at the master; otherwise
        NBT's ``Π_unsent`` or MS's ``Π_unsent/ρ*`` (``Π_unsent·w`` with ``ms_weight="work"``),
        times ``ρ*`` for ``share="platform"``, inverted for ``share="payoff"``, so that the
        LP's ``Σ_u ρ_u^(k) = λ·ω_k`` states the reading's share.

        Parameters
        ----------
        sim : StarSimulator
            The simulator running the policy (its clock, released and unsent tasks, links).

        Returns
        -------
        numpy.ndarray
            ω_k, shape ``(n,)``, the weight of each application in the LP (0 for the inactive).

        Notes
        -----
        The readings are those of decision 322.
        """
        active = sim.released & (sim.unsent > 0)
        omega = np.where(active, sim.unsent, 0).astype(float)
        if self.weights == "ms":
            omega = omega * (sim.inst.work if self.ms_weight == "work" else sim.ms / sim.tasks)
        if self.share == "platform":  # Σ_u ρ_u/ρ* = λ·ω  <=>  Σ_u ρ_u = λ·ω·ρ*
            omega = omega * sim.rho
        elif self.share == "payoff":  # ω·Σ_u ρ_u = λ  <=>  Σ_u ρ_u = λ/ω
            omega = np.divide(1.0, omega, out=np.zeros_like(omega), where=omega > 0)
        return np.asarray(omega, float)

    def _solve(self, sim: StarSimulator) -> None:
        t0 = time.perf_counter()
        active = sim.released & (sim.unsent > 0)
        omega = self.lp_weights(sim)
        # the rates do not depend on the weights' scale, the LP's numerics do (ms weights
        # of 1e13 s left HiGHS with rates below its tolerances): bring the largest weight
        # near 1 by a power of two, which changes no digit of the LP's data
        omega *= 2.0 ** -np.round(np.log2(omega.max()))
        sol = solve(weighted_throughput_lp(sim.inst, omega, objective=self.objective),
                    time_limit=sim.time_left())
        sol.require_optimal(f"{self.name} steady-state LP")
        self.rates = np.where(active[:, None], np.clip(sol.values["rho"], 0.0, None), 0.0)
        self.sent = np.zeros_like(self.rates)
        self.solved_at = sim.now
        self.solve_seconds.append(time.perf_counter() - t0)
        self._stale = False

    def next_send(self, sim: StarSimulator) -> tuple[int, int] | None:
        """The ``(application, worker)`` with positive LP rate and a free link that is due first,
        ``argmin (sent since the solve + 1)/ρ_u^(k)`` (ties: application, then worker); the LP is
        solved again first when an application arrived or one ran out of tasks at the master.

        Parameters
        ----------
        sim : StarSimulator
            The simulator running the policy (its clock, released and unsent tasks, links).

        Returns
        -------
        tuple of int or None
            ``(k, u)``: send a task of application k to worker u now; ``None``: no send now (no
            task at the master, no free link with a positive rate, or, ``send="paced"``, none due
            yet: the policy asked the simulator to wake it up).
        """
        active = sim.released & (sim.unsent > 0)
        if not active.any():
            return None
        if self._stale or self.rates is None or not _positive(self.rates)[active].any():
            self._solve(sim)
        assert self.rates is not None and self.sent is not None
        usable = _positive(self.rates) & active[:, None] & sim.free_links()[None, :]
        if not usable.any():
            return None
        if self.send == "paced":
            start = self.solved_at + self.sent / np.where(usable, self.rates, 1.0)
            ready = usable & (start <= sim.now * (1 + 1e-12) + 1e-12)
            if not ready.any():
                when = float(start[usable].min())
                if self._wake is None or self._wake <= sim.now or when < self._wake:
                    self._wake = when
                    sim.wake_at(when)
                return None
            usable = ready
        cand = np.argwhere(usable)
        due = (self.sent[usable] + 1) / self.rates[usable]
        k, u = cand[np.lexsort((cand[:, 1], cand[:, 0], due))[0]]
        self.sent[k, u] += 1
        if sim.unsent[k] == 1 and self.resolve == "event":  # this send empties k
            self._stale = True
        return int(k), int(u)

    def stats(self) -> dict[str, Any]:
        """``solves``, the number of steady-state LPs solved, and ``solve_seconds``, the wall
        time of each.

        Returns
        -------
        dict
            ``{"solves": int, "solve_seconds": list of float}``.
        """
        return {"solves": len(self.solve_seconds), "solve_seconds": self.solve_seconds}
