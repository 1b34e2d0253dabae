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
    """Per-worker optimal rates for rows of (comp, comm) times, shape (m, p), one-port.

    Parameters
    ----------
    comp : numpy.ndarray
        x_u^(k) = w_k/s_u, the time of one task of each row on each worker (s), shape
        ``(m, p)``.
    comm : numpy.ndarray
        δ_k/b_u, the time to send one task of each row to each worker (s), shape ``(m, p)``.

    Returns
    -------
    numpy.ndarray
        Shape ``(m, p)``: ρ_u (tasks/s) of each row alone, workers served by increasing
        communication time until the master's port is full.
    """
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
    """Per-worker rates reaching the closed form, multiport (scaled down to fit BW).

    Parameters
    ----------
    comp : numpy.ndarray
        x_u^(k) = w_k/s_u, the time of one task of each row on each worker (s), shape
        ``(m, p)``.
    comm : numpy.ndarray
        δ_k/b_u, the time to send one task of each row to each worker (s), shape ``(m, p)``.
    size : numpy.ndarray
        δ_k, the bytes of one task of each row, shape ``(m,)``.
    master_bandwidth : float
        BW, the master's bandwidth (bytes/s; ``inf``: unbounded).

    Returns
    -------
    numpy.ndarray
        Shape ``(m, p)``: ``min(1/x_u, b_u/δ)`` per worker (tasks/s), scaled by a common
        factor when their sum would exceed ``BW/δ``.
    """
    rates = np.minimum(1.0 / comp, 1.0 / comm)
    total = rates.sum(axis=1)
    cap = master_bandwidth / size
    scale = np.where(total > cap, cap / total, 1.0)
    return rates * scale[:, None]


def worker_rates(inst: Instance, port: str | None = None) -> np.ndarray:
    """``ρ_u^*(k)``: the per-worker rates of each application alone, shape ``(n, p)``.

    Parameters
    ----------
    inst : Instance
        The star platform and its applications.
    port : str or None
        ``"one-port"`` or ``"multiport"``; ``None`` (default): the platform's.

    Returns
    -------
    numpy.ndarray
        Shape ``(n, p)``, tasks/s.
    """
    port = port or inst.platform.port
    if port == "one-port":
        return rates_oneport(np.asarray(inst.comp_time), np.asarray(inst.comm_time))
    return rates_multiport(np.asarray(inst.comp_time), np.asarray(inst.comm_time),
                            inst.size, inst.platform.master_bandwidth)


def dedicated_throughputs(inst: Instance, port: str | None = None) -> np.ndarray:
    """``ρ*(k)`` for every application of ``inst`` (tasks/s), shape ``(n,)``.

    ``port`` overrides the platform's model (the spec's decision A10 uses one-port
    everywhere the experiments need ``MS*``).

    Parameters
    ----------
    inst : Instance
        The star platform and its applications.
    port : str or None
        ``"one-port"`` or ``"multiport"``; ``None`` (default): the platform's.

    Returns
    -------
    numpy.ndarray
        Shape ``(n,)``, tasks/s.
    """
    return worker_rates(inst, port).sum(axis=1)


def dedicated_makespans(inst: Instance, port: str | None = None) -> np.ndarray:
    """``MS*(k) = Π(k)/ρ*(k)`` (seconds), shape ``(n,)``.

    Parameters
    ----------
    inst : Instance
        The star platform and its applications.
    port : str or None
        ``"one-port"`` or ``"multiport"``; ``None`` (default): the platform's.

    Returns
    -------
    numpy.ndarray
        Shape ``(n,)``, seconds.
    """
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

    Parameters
    ----------
    platform : StarPlatform
        The star platform.
    application : Application
        The application (its task count does not change the rate).
    row : int or None
        The application's row of per-application (unrelated) speeds; required then,
        ignored otherwise.
    port : str or None
        ``"one-port"`` or ``"multiport"``; ``None`` (default): the platform's.

    Returns
    -------
    float
        ρ*, tasks per second.

    Raises
    ------
    InvalidInstanceError
        Per-application speeds without ``row``.

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
