"""Steady-state throughput of one application alone, in closed form (seed 003 §2.3).

``ρ*`` is the largest number of tasks per second the platform can sustain for one
application; ``MS* = Π/ρ*`` is the makespan the stretch is measured against.

* bounded multiport, LP (1): ``ρ* = min(BW/δ, Σ_u min(s_u/w, b_u/δ))`` (seed 003 eq. after (1));
* one-port, LP (1) with (10-b): a fractional knapsack — fill workers by increasing
  ``c_u = δ/b_u`` (decreasing bandwidth), each capped at ``1/x_u = s_u/w``, until the master's
  port time is used up (spec §2.3, the "bandwidth-centric" rule). O(p log p) per application.
"""

from __future__ import annotations

import numpy as np

from lpsched.bags.instance import Application, Instance
from lpsched.bags.platform import StarPlatform
from lpsched.errors import InvalidInstanceError


def rates_oneport(comp: np.ndarray, comm: np.ndarray) -> np.ndarray:
    """Per-worker optimal rates for rows of (comp, comm) times, shape (m, p), one-port."""
    order = np.argsort(comm, axis=1, kind="stable")
    c = np.take_along_axis(comm, order, axis=1)
    cap = 1.0 / np.take_along_axis(comp, order, axis=1)
    port_use = np.cumsum(c * cap, axis=1)  # port time per second if workers 1..l run at cap
    before = port_use - c * cap
    budget = np.clip(1.0 - before, 0.0, None)  # port time left when reaching worker l
    take = np.minimum(cap, budget / c)
    rates = np.empty_like(take)
    np.put_along_axis(rates, order, take, axis=1)
    return rates


def rates_multiport(comp: np.ndarray, comm: np.ndarray, size: np.ndarray,
                     master_bandwidth: float) -> np.ndarray:
    """Per-worker rates reaching the closed form, multiport (scaled down to fit BW)."""
    rates = np.minimum(1.0 / comp, 1.0 / comm)
    total = rates.sum(axis=1)
    cap = master_bandwidth / size
    scale = np.where(total > cap, cap / total, 1.0)
    return rates * scale[:, None]


def worker_rates(inst: Instance, port: str | None = None) -> np.ndarray:
    """``ρ_u^*(k)``: the per-worker rates of each application alone, shape ``(n, p)``."""
    port = port or inst.platform.port
    if port == "one-port":
        return rates_oneport(np.asarray(inst.comp_time), np.asarray(inst.comm_time))
    return rates_multiport(np.asarray(inst.comp_time), np.asarray(inst.comm_time),
                            inst.size, inst.platform.master_bandwidth)


def dedicated_throughputs(inst: Instance, port: str | None = None) -> np.ndarray:
    """``ρ*(k)`` for every application of ``inst`` (tasks/s), shape ``(n,)``.

    ``port`` overrides the platform's model (the spec's decision A10 uses one-port
    everywhere the experiments need ``MS*``).
    """
    return worker_rates(inst, port).sum(axis=1)


def dedicated_makespans(inst: Instance, port: str | None = None) -> np.ndarray:
    """``MS*(k) = Π(k)/ρ*(k)`` (seconds), shape ``(n,)``."""
    return inst.tasks / dedicated_throughputs(inst, port)


def throughput(
    platform: StarPlatform,
    application: Application,
    *,
    row: int | None = None,
    port: str | None = None,
) -> float:
    """Steady-state throughput ``ρ*`` of ``application`` alone on ``platform`` (tasks/s).

    ``row`` selects the speed row when the platform has per-application speeds.

    Examples
    --------
    >>> from lpsched.bags import StarPlatform, Application
    >>> plat = StarPlatform([1.0, 1.0], [2.0, 1.0], port="one-port")
    >>> throughput(plat, Application(0.0, 10, work=1.0, size=1.0))   # 1 + (1-1/2)/1
    1.5
    """
    if platform.unrelated:
        if row is None:
            raise InvalidInstanceError(
                "row", row, "the platform has per-application speeds: pass row=<application index>"
            )
        speeds = platform.speeds[row]
    else:
        speeds = platform.speeds
    single = Instance(StarPlatform(speeds, platform.bandwidths, platform.master_bandwidth,
                                   platform.port), (application,))
    return float(dedicated_throughputs(single, port)[0])
