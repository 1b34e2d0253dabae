"""Bag-of-tasks applications and instances (seed 003 §2.2).

An application ``A_k`` has a release date ``r^(k)`` (s), ``Π^(k)`` identical independent tasks,
``w^(k)`` flop of work and ``δ^(k)`` bytes of input data per task.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from lpsched.bags.platform import StarPlatform, huge_integer, shown
from lpsched.errors import InvalidInstanceError

#: Task counts above 2**53 are not whole numbers a float can count exactly.
MAX_TASKS = 2**53


def _number(name: str, value: Any, *, positive: bool, integer: bool = False) -> float:
    """``value`` as a float: a real number (not a boolean or a string), inside the float
    range, finite, ``> 0`` (``positive``) or ``>= 0``, and with ``integer`` a whole number
    of tasks at most :data:`MAX_TASKS`. Raises :class:`InvalidInstanceError` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise InvalidInstanceError(name, shown(value), "must be a number")
    try:
        v = float(value)
    except OverflowError:  # a JSON integer with hundreds of digits
        raise InvalidInstanceError(name, huge_integer(int(value)),
                                   "outside the float range (about ±1.8e308)") from None
    if not math.isfinite(v):
        raise InvalidInstanceError(name, value, "must be finite")
    if positive and v <= 0:
        raise InvalidInstanceError(name, value, "must be > 0")
    if not positive and v < 0:
        raise InvalidInstanceError(name, value, "must be >= 0")
    if integer and v != round(v):
        raise InvalidInstanceError(name, value, "must be a whole number of tasks")
    if integer and v > MAX_TASKS:
        raise InvalidInstanceError(name, value, f"more than 2**53 = {MAX_TASKS} tasks cannot "
                                   "be counted exactly")
    return v


@dataclass(frozen=True)
class Application:
    """One bag of ``tasks`` identical tasks released at ``release``.

    ``work`` is the flop count of one task, ``size`` the bytes of one task's input.
    ``extra`` keeps unknown JSON keys. Validated (:class:`InvalidInstanceError` naming the
    field): every field a real number (not a boolean or a string) inside the float range
    and finite; ``release >= 0``; ``tasks`` a whole number in ``[1, 2**53]``; ``work`` and
    ``size`` > 0.
    """

    release: float
    tasks: int
    work: float
    size: float
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        self.validate("application")

    def validate(self, where: str) -> None:
        """Check every field; ``where`` prefixes the field names in the error.

        Parameters
        ----------
        where : str
            The application's name in error messages, e.g. ``"applications[3]"``.

        Raises
        ------
        InvalidInstanceError
            A release that is not a finite number >= 0, a task count that is not a whole
            number in ``1..MAX_TASKS``, or a work or size that is not finite and > 0.
        """
        object.__setattr__(
            self, "release", _number(f"{where}.release", self.release, positive=False)
        )
        tasks = _number(f"{where}.tasks", self.tasks, positive=True, integer=True)
        object.__setattr__(self, "tasks", int(tasks))
        object.__setattr__(self, "work", _number(f"{where}.work", self.work, positive=True))
        object.__setattr__(self, "size", _number(f"{where}.size", self.size, positive=True))
        object.__setattr__(self, "extra", dict(self.extra))


def _speed_field(unrelated: bool, k: int, u: int) -> str:
    return f"platform.speeds[{k}][{u}]" if unrelated else f"platform.speeds[{u}]"


@dataclass(frozen=True, eq=False)
class Instance:
    """A star platform and the applications submitted to it.

    The per-application arrays (``release``, ``tasks``, ``work``, ``size``) and the
    per-(application, worker) times ``comp_time[k, u] = w^(k)/s_u^(k)`` and
    ``comm_time[k, u] = δ^(k)/b_u`` are computed once and read-only. ``comm_time`` is seed
    003's transfer time and leaves out the link latencies (``platform.latencies``), which
    only the simulator adds.

    Validated on construction (:class:`InvalidInstanceError` naming the field): at least one
    application, unrelated speeds with one row per application, and times per task whose
    ratios stay floats (:meth:`_check_times`: e.g. ``work = 1e-308`` is rejected, its rate
    would overflow).
    """

    platform: StarPlatform
    applications: tuple[Application, ...]
    extra: Mapping[str, Any] = field(default_factory=dict)
    #: seconds added to every time to give the dates of the file (:meth:`rebased`): the
    #: releases, and every time computed, are counted from ``origin``
    origin: float = 0.0

    def __post_init__(self) -> None:
        if not isinstance(self.platform, StarPlatform):
            raise InvalidInstanceError("platform", self.platform, "must be a StarPlatform")
        apps = tuple(self.applications)
        if not apps:
            raise InvalidInstanceError("applications", [], "needs at least one application")
        for k, app in enumerate(apps):
            if not isinstance(app, Application):
                raise InvalidInstanceError(f"applications[{k}]", app, "must be an Application")
        object.__setattr__(self, "applications", apps)
        object.__setattr__(self, "extra", dict(self.extra))
        object.__setattr__(self, "origin", _number("origin", self.origin, positive=False))
        self.platform.speed_matrix(len(apps))  # shape check for unrelated speeds
        self._check_times()

    def _check_times(self) -> None:
        """The per-task times and the ratios the steady state divides by stay floats.

        ``w/s`` and ``δ/b`` (seconds per task) must be finite with a finite inverse
        (``1e-308`` flop on a 1e9 flop/s worker is 1e-317 s: its rate overflows), their
        ratio ``(δ/b)/(w/s)`` too (the one-port knapsack divides by it), and
        ``Π·min_u max(w/s_u, δ/b_u)``, a bound of the dedicated makespan ``MS*``. The error
        names the field that is furthest from 1 in order of magnitude (the likely typo).
        """
        plat, n = self.platform, len(self.applications)
        speeds = np.asarray(plat.speed_matrix(n), float)
        work = np.array([a.work for a in self.applications])
        size = np.array([a.size for a in self.applications])
        tasks = np.array([a.tasks for a in self.applications], float)
        with np.errstate(all="ignore"):
            comp = work[:, None] / speeds
            comm = size[:, None] / plat.bandwidths[None, :]
            checks = (
                ("work / speed", comp, np.isfinite(comp) & np.isfinite(1.0 / comp)),
                ("size / bandwidth", comm, np.isfinite(comm) & np.isfinite(1.0 / comm)),
                ("(size / bandwidth) / (work / speed)", comm / comp,
                 np.isfinite(comm / comp) & np.isfinite(comp / comm)),
            )
            makespan = tasks * np.maximum(comp, comm).min(axis=1)
        for what, value, ok in checks:
            if not ok.all():
                k, u = (int(i) for i in np.argwhere(~ok)[0])
                fields = [(f"applications[{k}].work", work[k]),
                          (f"applications[{k}].size", size[k]),
                          (_speed_field(plat.unrelated, k, u), speeds[k, u]),
                          (f"platform.bandwidths[{u}]", plat.bandwidths[u])]
                if what != "(size / bandwidth) / (work / speed)":
                    fields = fields[0::2] if what.startswith("work") else fields[1::2]
                name, v = max(fields, key=lambda f: abs(math.log10(f[1])))
                raise InvalidInstanceError(
                    name, float(v), f"{what} = {float(value[k, u]):.3g} on worker {u} for "
                    f"application {k} is outside what a float can compute with (it or its "
                    "inverse overflows); rescale the units")
        latency = np.asarray(plat.latencies, float)
        if latency.any():
            with np.errstate(all="ignore"):
                send = comm + latency[None, :]
            if not np.isfinite(send).all():
                k, u = (int(i) for i in np.argwhere(~np.isfinite(send))[0])
                raise InvalidInstanceError(
                    f"platform.latencies[{u}]", float(latency[u]), f"latency + size / "
                    f"bandwidth overflows on worker {u} for application {k}; rescale the units")
        if not np.isfinite(makespan).all():
            k = int(np.argmin(np.isfinite(makespan)))
            raise InvalidInstanceError(
                f"applications[{k}].tasks", int(tasks[k]), "the time to run all its tasks "
                "on the best worker overflows the float range; rescale the units")
        self._check_master(size, tasks)

    def _check_master(self, size: np.ndarray, tasks: np.ndarray) -> None:
        """A bounded master link (``BW``): ``δ/BW`` per task, its inverse and the time to
        send every task of an application, ``Π·δ/BW``, stay floats (the multiport steady
        state and the schedule checker divide by ``BW``). The error names
        ``platform.master_bandwidth`` or the application's size, whichever is further from
        1 in order of magnitude."""
        bw = self.platform.master_bandwidth
        if not math.isfinite(bw):
            return
        with np.errstate(all="ignore"):
            per_task = size / bw
            ok = np.isfinite(per_task) & np.isfinite(1.0 / per_task) & np.isfinite(
                tasks * per_task)
        if ok.all():
            return
        k = int(np.argmin(ok))
        name, v = max([(f"applications[{k}].size", float(size[k])),
                       ("platform.master_bandwidth", bw)], key=lambda f: abs(math.log10(f[1])))
        raise InvalidInstanceError(
            name, v, f"sending the {int(tasks[k])} tasks of application {k} through the master "
            f"link takes {float(tasks[k] * per_task[k]):.3g} s (size / master_bandwidth = "
            f"{float(per_task[k]):.3g} s per task): outside what a float can compute with; "
            "rescale the units")

    @property
    def n(self) -> int:
        """Number of applications."""
        return len(self.applications)

    @property
    def p(self) -> int:
        """Number of workers."""
        return self.platform.workers

    def _frozen(self, values: Sequence[float], dtype: type = float) -> np.ndarray:
        arr: np.ndarray = np.array(values, dtype=dtype)
        arr.setflags(write=False)
        return arr

    @cached_property
    def release(self) -> np.ndarray:
        """Release dates ``r^(k)``, shape ``(n,)``."""
        return self._frozen([a.release for a in self.applications])

    @cached_property
    def tasks(self) -> np.ndarray:
        """Task counts ``Π^(k)``, shape ``(n,)`` (float, so it can be fractional in states)."""
        return self._frozen([a.tasks for a in self.applications])

    @cached_property
    def work(self) -> np.ndarray:
        """Work per task ``w^(k)``, flop."""
        return self._frozen([a.work for a in self.applications])

    @cached_property
    def size(self) -> np.ndarray:
        """Input size per task ``δ^(k)``, bytes."""
        return self._frozen([a.size for a in self.applications])

    @cached_property
    def comp_time(self) -> np.ndarray:
        """``x_u^(k) = w^(k)/s_u^(k)``: seconds to compute one task of k on u, shape ``(n, p)``."""
        out = self.work[:, None] / self.platform.speed_matrix(self.n)
        out.setflags(write=False)
        return out

    @cached_property
    def comm_time(self) -> np.ndarray:
        """``c_u^(k) = δ^(k)/b_u``: seconds to send one task of k to u alone, shape ``(n, p)``."""
        out = self.size[:, None] / self.platform.bandwidths[None, :]
        out.setflags(write=False)
        return out

    def with_port(self, port: str) -> Instance:
        """The same workload on the same platform under another communication model.

        Parameters
        ----------
        port : str
            ``"one-port"`` or ``"multiport"`` (bounded multiport).

        Returns
        -------
        Instance
            A new instance; this one is unchanged.

        Raises
        ------
        InvalidInstanceError
            ``port`` is neither model.
        """
        plat = self.platform.with_port(port)  # type: ignore[arg-type]
        return Instance(plat, self.applications, self.extra, self.origin)

    def subset(self, indices: Sequence[int]) -> Instance:
        """The instance restricted to applications ``indices`` (and their speed rows).

        Parameters
        ----------
        indices : sequence of int
            The applications to keep, in the order given (their new indices ``0..len-1``).

        Returns
        -------
        Instance
            The same platform (with only these rows of the speeds when they are unrelated),
            extra data and origin.
        """
        idx = [int(i) for i in indices]
        plat = self.platform
        if plat.unrelated:
            plat = StarPlatform(
                plat.speeds[idx], plat.bandwidths, plat.master_bandwidth, plat.port, plat.extra,
                plat.latencies,
            )
        return Instance(plat, tuple(self.applications[i] for i in idx), self.extra,
                        self.origin)

    def rebased(self) -> Instance:
        """The same instance with its times counted from the first release.

        Every release minus ``r0 = min r``, and ``origin`` grown by ``r0`` (seed 003 §2.2:
        only the differences of release dates matter to flows and stretches). The
        differences are exact when the releases lie within a factor 2 of each other
        (Sterbenz), else rounded once, to the precision of the difference; the times a
        schedule is built from then keep the digits the absolute dates would lose (a release
        of 1e17 s has a spacing of 16 s).

        Returns
        -------
        Instance
            The rebased instance (this one itself when the first release is already 0).

        Examples
        --------
        >>> from lpsched.bags import random_bags
        >>> inst = random_bags(3, 2, seed=1)
        >>> r = inst.rebased()
        >>> float(r.release.min()), r.origin == float(inst.release.min())
        (0.0, True)
        """
        r0 = float(self.release.min())
        if r0 == 0.0:
            return self
        apps = tuple(Application(a.release - r0, a.tasks, a.work, a.size, a.extra)
                     for a in self.applications)
        return Instance(self.platform, apps, self.extra, self.origin + r0)
