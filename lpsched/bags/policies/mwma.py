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


class MWMA(BasePolicy):
    """``mwma-nbt`` or ``mwma-ms``."""

    def __init__(self, weights: str) -> None:
        if weights not in ("nbt", "ms"):
            raise LpschedError(f"unknown MWMA weights {weights!r}")
        self.weights = weights
        self.name = f"mwma-{weights}"
        self.rates: np.ndarray | None = None
        self.sent: np.ndarray | None = None
        self.solve_seconds: list[float] = []
        self._stale = True

    def on_release(self, sim: StarSimulator, k: int) -> None:
        """Mark the rates stale: the steady-state LP is solved again at the next decision."""
        self._stale = True

    def _solve(self, sim: StarSimulator) -> None:
        t0 = time.perf_counter()
        active = sim.released & (sim.unsent > 0)
        omega = np.where(active, sim.unsent, 0).astype(float)
        if self.weights == "ms":
            omega = omega * sim.ms / sim.tasks
        # the rates do not depend on the weights' scale, the LP's numerics do (ms weights
        # of 1e13 s left HiGHS with rates below its tolerances): bring the largest weight
        # near 1 by a power of two, which changes no digit of the LP's data
        omega *= 2.0 ** -np.round(np.log2(omega.max()))
        sol = solve(weighted_throughput_lp(sim.inst, omega), time_limit=sim.time_left())
        sol.require_optimal(f"{self.name} steady-state LP")
        self.rates = np.where(active[:, None], np.clip(sol.values["rho"], 0.0, None), 0.0)
        self.sent = np.zeros_like(self.rates)
        self.solve_seconds.append(time.perf_counter() - t0)
        self._stale = False

    def next_send(self, sim: StarSimulator) -> tuple[int, int] | None:
        """The ``(application, worker)`` with positive LP rate and a free link that is due first,
        ``argmin (sent since the solve + 1)/ρ_u^(k)`` (ties: application, then worker); the LP is
        solved again first when an application arrived or one ran out of tasks at the master."""
        active = sim.released & (sim.unsent > 0)
        if not active.any():
            return None
        if self._stale or self.rates is None or not _positive(self.rates)[active].any():
            self._solve(sim)
        assert self.rates is not None and self.sent is not None
        usable = _positive(self.rates) & active[:, None] & sim.free_links()[None, :]
        if not usable.any():
            return None
        cand = np.argwhere(usable)
        due = (self.sent[usable] + 1) / self.rates[usable]
        k, u = cand[np.lexsort((cand[:, 1], cand[:, 0], due))[0]]
        self.sent[k, u] += 1
        if sim.unsent[k] == 1:  # this send empties k: re-solve at the next decision
            self._stale = True
        return int(k), int(u)

    def stats(self) -> dict[str, Any]:
        """``solves``, the number of steady-state LPs solved, and ``solve_seconds``, the wall
        time of each."""
        return {"solves": len(self.solve_seconds), "solve_seconds": self.solve_seconds}
