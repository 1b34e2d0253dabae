"""The data of one max-stretch problem: windows whose deadlines move with the stretch.

An application ``k`` released at ``r_k`` must finish by its deadline ``d_k = r_k + S·MS*_k``
(seed 003 eq. (2)). Every window start and deadline is an *epoch*, affine in the stretch
``S`` (``t_e(S) = α_e·S + β_e``); the order of the epochs changes only at the critical values
of §3.4, and one order gives one LP structure. :class:`StretchProblem` holds the offline
problem (every application from its release, (K)/(K1) of §3.3) or an online one (a state at
``T_new``, §3.5, built by :func:`online_problem`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from lpsched.bags.instance import Instance
from lpsched.bags.steady_state import dedicated_throughputs
from lpsched.errors import InfeasibleError, InvalidInstanceError, LpschedError


@dataclass(frozen=True, eq=False)
class StretchProblem:
    """The data of one max-stretch problem, offline or from an online state.

    ``start[k]`` is where the window of application ``k`` opens (its release offline,
    ``T_new`` online); ``remaining[k]`` the tasks still at the master (``Π`` offline,
    ``Π_rem`` online); ``buffered[k, u]`` the tasks already on worker ``u`` (``B̂``).
    ``release`` and ``ms`` (``MS*``) define the deadlines ``d_k = r_k + S·MS*_k``;
    ``rho_star`` is ``ρ*`` (tasks/s alone on the platform).
    ``apps`` are the indices of these applications in the original instance.
    """

    release: np.ndarray
    ms: np.ndarray
    rho_star: np.ndarray
    remaining: np.ndarray
    buffered: np.ndarray
    comp: np.ndarray
    comm: np.ndarray
    size: np.ndarray
    port: str
    master_bandwidth: float
    t_new: float | None = None
    memory: np.ndarray | None = None
    apps: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    workers: np.ndarray | None = None

    @classmethod
    def offline(cls, inst: Instance, memory: np.ndarray | None = None,
                ms_port: str | None = None) -> StretchProblem:
        """The whole instance, every application from its release (polyhedron (K)/(K1)).

        ``MS*`` uses the platform's port model unless ``ms_port`` says otherwise.

        Parameters
        ----------
        inst : Instance
            The star platform and its applications (seed 003 §2).
        memory : numpy.ndarray, optional
            Buffer bound per worker, in bytes (§3.1.3).
        ms_port : str, optional
            ``"one-port"`` or ``"multiport"`` for ``MS*`` (default: the platform's port).

        Returns
        -------
        StretchProblem
            The offline problem (window starts at the releases).
        """
        rho = dedicated_throughputs(inst, ms_port)
        return cls(
            release=np.asarray(inst.release, float),
            ms=inst.tasks / rho,
            rho_star=rho,
            remaining=np.asarray(inst.tasks, float),
            buffered=np.zeros((inst.n, inst.p)),
            comp=np.asarray(inst.comp_time, float),
            comm=np.asarray(inst.comm_time, float),
            size=np.asarray(inst.size, float),
            port=inst.platform.port,
            master_bandwidth=inst.platform.master_bandwidth,
            memory=None if memory is None else _memory(memory, inst.p),
            apps=np.arange(inst.n),
        )

    def restrict(self, workers: np.ndarray) -> StretchProblem:
        """The same problem on the workers ``workers`` only (indices into this problem).

        Any plan of the restricted problem, with zeros elsewhere, is a plan of this one; the
        converse needs pricing (see ``StretchSearch``). ``workers`` of the result holds the
        original indices.

        Parameters
        ----------
        workers : numpy.ndarray
            Indices of the workers kept (into this problem's workers).

        Returns
        -------
        StretchProblem
            The restricted problem.
        """
        w = np.asarray(workers, int)
        return replace(
            self, comp=self.comp[:, w], comm=self.comm[:, w], buffered=self.buffered[:, w],
            memory=None if self.memory is None else self.memory[w],
            workers=self.worker_ids[w])

    @property
    def worker_ids(self) -> np.ndarray:
        """Original indices of this problem's workers."""
        return np.arange(self.p) if self.workers is None else np.asarray(self.workers)

    @property
    def n(self) -> int:
        """Number of applications of the problem."""
        return int(self.release.shape[0])

    @property
    def p(self) -> int:
        """Number of workers of the problem (after :meth:`restrict`, the kept ones)."""
        return int(self.comp.shape[1])

    @property
    def online(self) -> bool:
        """Whether this is an online problem (a state at ``T_new``, polyhedron (K1) of §3.5)
        rather than the offline one."""
        return self.t_new is not None

    @cached_property
    def start(self) -> np.ndarray:
        """Window starts: releases offline, ``T_new`` for every application online."""
        if self.t_new is None:
            return self.release
        return np.full(self.n, float(self.t_new))

    @cached_property
    def origin(self) -> float:
        """The earliest window start (s): the time origin of the normalised epoch times."""
        return float(self.start.min())

    @cached_property
    def scale(self) -> float:
        """The largest ``MS*`` (s): the time unit of the normalised epoch times."""
        return float(self.ms.max())

    @cached_property
    def epoch_alpha(self) -> np.ndarray:
        """Slopes of the epoch functions ``t_e(S) = α_e·S + β_e`` (normalised time)."""
        starts = np.zeros(1 if self.online else self.n)
        return np.concatenate([starts, self.ms / self.scale])

    @cached_property
    def epoch_beta(self) -> np.ndarray:
        """Intercepts of the epoch functions ``t_e(S) = α_e·S + β_e`` (normalised time): the
        window starts, then the releases (so that ``β_e + α_e·S`` is the deadline)."""
        starts = ([self.t_new] if self.online else list(self.release))
        return (np.concatenate([starts, self.release]) - self.origin) / self.scale

    @cached_property
    def start_epoch(self) -> np.ndarray:
        """Index (into the epoch arrays) of each application's window start."""
        return np.zeros(self.n, int) if self.online else np.arange(self.n)

    @cached_property
    def deadline_epoch(self) -> np.ndarray:
        """Index (into the epoch arrays) of each application's deadline, after the window starts."""
        return (1 if self.online else self.n) + np.arange(self.n)

    def deadlines(self, stretch: float) -> np.ndarray:
        """``d_k = r_k + S·MS*_k`` in seconds (eq. (2)).

        Parameters
        ----------
        stretch : float
            The max-stretch ``S``.

        Returns
        -------
        numpy.ndarray
            Shape ``(n,)``, seconds.
        """
        return self.release + stretch * self.ms

    def epoch_times(self, stretch: float) -> np.ndarray:
        """All epoch values at ``stretch``, in seconds (unsorted, epoch-array order).

        Parameters
        ----------
        stretch : float
            The max-stretch ``S``.

        Returns
        -------
        numpy.ndarray
            Shape ``(2n,)``: the window starts, then the deadlines.
        """
        return self.origin + self.scale * (self.epoch_alpha * stretch + self.epoch_beta)

    def order_at(self, stretch: float) -> np.ndarray:
        """Epoch indices sorted by value at ``stretch``; ties: window starts first, then index.

        Inside an open stretch interval only identical epoch functions tie, so any fixed rule
        gives the interval's order (seed 003 §3.4); starts-first keeps every window
        non-negative at the closed ends as well.

        Parameters
        ----------
        stretch : float
            The max-stretch ``S``.

        Returns
        -------
        numpy.ndarray
            Shape ``(2n,)``: epoch indices in time order.
        """
        vals = self.epoch_alpha * stretch + self.epoch_beta
        kind = np.zeros(vals.size, int)
        kind[self.deadline_epoch] = 1
        return np.lexsort((np.arange(vals.size), kind, vals))

    def window_positions(self, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(js, je)``: each application's first interval and one past its last in epoch
        order ``order`` (interval ``j`` lies between the ``j``-th and ``j+1``-th epochs).
        Raises :class:`LpschedError` when a window is empty (an order taken below its
        start).

        Parameters
        ----------
        order : numpy.ndarray
            An epoch order (:meth:`order_at`).

        Returns
        -------
        tuple of numpy.ndarray
            ``(js, je)``, shape ``(n,)`` each.
        """
        order = np.asarray(order)
        pos = np.empty_like(order)
        pos[order] = np.arange(order.size)
        js, je = pos[self.start_epoch], pos[self.deadline_epoch]
        if (je <= js).any():
            k = int(np.argmax(je <= js))
            raise LpschedError(f"the window of application {k} is empty in this epoch order "
                               "(the order was taken below its start)")
        return js, je


def _memory(memory: np.ndarray, p: int) -> np.ndarray:
    mem = np.asarray(memory, float)
    if mem.shape != (p,) or not (mem > 0).all():
        raise InvalidInstanceError("memory", mem.tolist(), f"need {p} positive values (bytes)")
    return mem


def online_problem(
    inst: Instance,
    t_new: float,
    remaining: np.ndarray,
    buffered: np.ndarray,
    released: np.ndarray | None = None,
    memory: np.ndarray | None = None,
    ms_port: str | None = None,
) -> StretchProblem:
    """The problem on ``[T_new, ∞)`` from a state (seed 003 §3.5, spec §4.1).

    ``remaining[k]`` tasks of ``A_k`` still at the master, ``buffered[k, u]`` tasks (possibly
    fractional: in-flight sends count as received, partly computed tasks by their unfinished
    fraction) on worker ``u``. ``released`` (boolean, default ``release <= t_new``) says which
    applications the scheduler knows. The applications kept are the released ones with work
    left at the master *or* in a buffer (decision A11); deadlines use the original releases.

    Parameters
    ----------
    inst : Instance
        The instance.
    t_new : float
        The re-solve time ``T_new`` (s).
    remaining : numpy.ndarray
        Tasks at the master, shape ``(n,)``.
    buffered : numpy.ndarray
        Tasks held by the workers, shape ``(n, p)``.
    released : numpy.ndarray, optional
        Which applications the scheduler knows (default ``r_k <= t_new``).
    memory : numpy.ndarray, optional
        Buffer bound per worker, bytes.
    ms_port : str, optional
        The port model of ``MS*`` (default the platform's).

    Returns
    -------
    StretchProblem
        The online problem over the kept applications.
    """
    n, p = inst.n, inst.p
    t = float(t_new)
    if not math.isfinite(t):
        raise InvalidInstanceError("t_new", t_new, "must be finite")
    rem = np.asarray(remaining, float)
    buf = np.asarray(buffered, float)
    if rem.shape != (n,) or not np.isfinite(rem).all() or (rem < 0).any():
        raise InvalidInstanceError("remaining", rem.tolist(), f"need {n} finite values >= 0")
    if buf.shape != (n, p) or not np.isfinite(buf).all() or (buf < 0).any():
        raise InvalidInstanceError("buffered", buf.tolist(), f"need a ({n}, {p}) array >= 0")
    tol = 1e-9 * np.maximum(1.0, inst.tasks)
    if (rem + buf.sum(axis=1) > inst.tasks + tol).any():
        k = int(np.argmax(rem + buf.sum(axis=1) > inst.tasks + tol))
        raise InvalidInstanceError(f"remaining[{k}]", float(rem[k]),
                                   "remaining + buffered exceeds the application's tasks")
    rel = inst.release <= t if released is None else np.asarray(released, bool)
    if rel.shape != (n,):
        raise InvalidInstanceError("released", rel.tolist(), f"need {n} booleans")
    if (inst.release[rel] > t).any():
        k = int(np.flatnonzero(rel & (inst.release > t))[0])
        raise InvalidInstanceError(f"released[{k}]", True, f"release {inst.release[k]} > t_new")
    keep = np.flatnonzero(rel & ((rem > 0) | (buf.sum(axis=1) > 0)))
    if keep.size == 0:
        raise InfeasibleError(f"no released application has work left at t_new = {t}")
    rho = dedicated_throughputs(inst, ms_port)[keep]
    sub = inst.subset(keep.tolist())
    return StretchProblem(
        release=np.asarray(sub.release, float),
        ms=sub.tasks / rho,
        rho_star=rho,
        remaining=rem[keep],
        buffered=buf[keep],
        comp=np.asarray(sub.comp_time, float),
        comm=np.asarray(sub.comm_time, float),
        size=np.asarray(sub.size, float),
        port=inst.platform.port,
        master_bandwidth=inst.platform.master_bandwidth,
        t_new=t,
        memory=None if memory is None else _memory(memory, p),
        apps=keep,
    )
