"""Steady-state LP builders (seed 003 §2.3 and the MWMA building block, spec §6.4).

* :func:`single_throughput_lp` — LP (1) for one application (bounded multiport), or (1) with
  the one-port constraint (10-b). Used to check the closed forms.
* :func:`weighted_throughput_lp` — several applications share the platform in steady state,
  maximise ``λ`` with ``Σ_u ρ_u^(k) = λ·ω_k`` (weights given by the caller).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from lpsched.bags.instance import Instance
from lpsched.errors import InvalidInstanceError
from lpsched.models.program import LinearProgram


def _capacity_rows(lp: LinearProgram, inst: Instance, rho: np.ndarray, port: str) -> None:
    """CPU rows (8), link rows (9) and the master row (10) or (10-b) on rates ``rho[k, u]``."""
    n, p = rho.shape
    comp, comm = np.asarray(inst.comp_time), np.asarray(inst.comm_time)
    worker = np.broadcast_to(np.arange(p), (n, p))
    lp.add_constraints("cpu", worker, rho, comp, upper=1.0, num_rows=p)
    if port == "one-port":
        lp.add_constraints("port", np.zeros((n, p), int), rho, comm, upper=1.0, num_rows=1)
        return
    lp.add_constraints("link", worker, rho, comm, upper=1.0, num_rows=p)
    bw = inst.platform.master_bandwidth
    if np.isfinite(bw):
        lp.add_constraints("master", np.zeros((n, p), int), rho,
                           np.broadcast_to(inst.size[:, None] / bw, (n, p)), upper=1.0,
                           num_rows=1)


def single_throughput_lp(inst: Instance, app: int = 0, port: str | None = None) -> LinearProgram:
    """LP (1) (or (1) with (10-b) for one-port) for application ``app`` alone.

    Variables ``rho`` shape ``(p,)``; maximise ``Σ_u ρ_u``.

    Parameters
    ----------
    inst : Instance
        The star platform and its applications.
    app : int
        The index k of the application whose throughput is maximised (default 0, the first).
    port : str or None
        ``"one-port"`` (adds constraint (10-b)) or ``"multiport"``; ``None`` (default) takes
        ``inst.platform.port``.

    Returns
    -------
    LinearProgram
        The LP (not solved), sense ``max``, with one variable block ``rho`` of shape
        ``(1, p)``: ρ_u, the tasks per second of application ``app`` given to worker u.
    """
    port = port or inst.platform.port
    lp = LinearProgram(f"throughput_app{app}", sense="max")
    rho = lp.add_variables("rho", (1, inst.p))
    _capacity_rows(lp, inst.subset([app]), rho, port)
    lp.set_objective(rho, 1.0)
    return lp


def weighted_throughput_lp(
    inst: Instance, weights: ArrayLike, port: str | None = None, objective: str = "ratio"
) -> LinearProgram:
    """The steady-state LP MWMA re-solves at each event (seed 003 §4.1 [L779–L784], spec
    §6.4), with the capacities (8)–(10) or (10-b).

    Parameters
    ----------
    inst : Instance
        The platform and applications (only the rates of weighted applications are free).
    weights : array_like
        ``ω_k >= 0`` per application; applications with weight 0 get no rate.
    port : str, optional
        ``"one-port"`` or ``"bounded-multiport"``; the platform's by default.
    objective : str
        ``"ratio"`` (default, decision A22): maximise ``λ`` s.t. ``Σ_u ρ_u^(k) = λ·ω_k``
        (variables ``rho`` ``(n, p)`` and ``lam`` ``(1,)``); ``"sum"`` (reading M5 of
        decision 322): maximise ``Σ_k ω_k Σ_u ρ_u^(k)``, no ratio rows (``lam`` is kept,
        fixed at 0, so that every solution has the same variables).

    Returns
    -------
    LinearProgram
        Built, not solved.
    """
    w = np.asarray(weights, dtype=float)
    if w.shape != (inst.n,) or not np.isfinite(w).all() or (w < 0).any() or w.sum() <= 0:
        raise InvalidInstanceError("weights", w.tolist(), f"need {inst.n} finite values >= 0, "
                                   "not all zero")
    if objective not in ("ratio", "sum"):
        raise InvalidInstanceError("objective", objective, "must be 'ratio' or 'sum'")
    port = port or inst.platform.port
    lp = LinearProgram("weighted_throughput", sense="max")
    n, p = inst.n, inst.p
    upper = np.where(w[:, None] > 0, np.inf, 0.0) * np.ones((n, p))
    rho = lp.add_variables("rho", (n, p), upper=upper)
    if objective == "sum":
        lp.add_variables("lam", (1,), upper=0.0)
        _capacity_rows(lp, inst, rho, port)
        lp.set_objective(rho, np.broadcast_to(w[:, None], (n, p)))
        return lp
    lam = lp.add_variables("lam", (1,))
    rows = np.broadcast_to(np.arange(n)[:, None], (n, p))
    lp.add_constraints(
        "share",
        np.concatenate([rows.ravel(), np.arange(n)]),
        np.concatenate([rho.ravel(), np.full(n, lam[0])]),
        np.concatenate([np.ones(n * p), -w]),
        lower=0.0, upper=0.0, num_rows=n,
    )
    _capacity_rows(lp, inst, rho, port)
    lp.set_objective(lam, 1.0)
    return lp
