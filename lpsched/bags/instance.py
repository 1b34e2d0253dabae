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

from lpsched.bags.platform import StarPlatform
from lpsched.errors import InvalidInstanceError


def _number(name: str, value: Any, *, positive: bool, integer: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise InvalidInstanceError(name, value, "must be a number")
    v = float(value)
    if not math.isfinite(v):
        raise InvalidInstanceError(name, value, "must be finite")
    if positive and v <= 0:
        raise InvalidInstanceError(name, value, "must be > 0")
    if not positive and v < 0:
        raise InvalidInstanceError(name, value, "must be >= 0")
    if integer and v != round(v):
        raise InvalidInstanceError(name, value, "must be a whole number of tasks")
    return v


@dataclass(frozen=True)
class Application:
    """One bag of ``tasks`` identical tasks released at ``release``.

    ``work`` is the flop count of one task, ``size`` the bytes of one task's input.
    ``extra`` keeps unknown JSON keys.
    """

    release: float
    tasks: int
    work: float
    size: float
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        self.validate("application")

    def validate(self, where: str) -> None:
        """Check every field; ``where`` prefixes the field names in the error."""
        object.__setattr__(
            self, "release", _number(f"{where}.release", self.release, positive=False)
        )
        tasks = _number(f"{where}.tasks", self.tasks, positive=True, integer=True)
        object.__setattr__(self, "tasks", int(tasks))
        object.__setattr__(self, "work", _number(f"{where}.work", self.work, positive=True))
        object.__setattr__(self, "size", _number(f"{where}.size", self.size, positive=True))
        object.__setattr__(self, "extra", dict(self.extra))


@dataclass(frozen=True, eq=False)
class Instance:
    """A star platform and the applications submitted to it.

    The per-application arrays (``release``, ``tasks``, ``work``, ``size``) and the
    per-(application, worker) times ``comp_time[k, u] = w^(k)/s_u^(k)`` and
    ``comm_time[k, u] = δ^(k)/b_u`` are computed once and read-only.
    """

    platform: StarPlatform
    applications: tuple[Application, ...]
    extra: Mapping[str, Any] = field(default_factory=dict)

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
        self.platform.speed_matrix(len(apps))  # shape check for unrelated speeds

    @property
    def n(self) -> int:
        """Number of applications."""
        return len(self.applications)

    @property
    def p(self) -> int:
        """Number of workers."""
        return self.platform.workers

    def _frozen(self, values: Sequence[float], dtype: type = float) -> np.ndarray:
        arr = np.array(values, dtype=dtype)
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
        """The same workload on the same platform under another communication model."""
        plat = self.platform.with_port(port)  # type: ignore[arg-type]
        return Instance(plat, self.applications, self.extra)

    def subset(self, indices: Sequence[int]) -> Instance:
        """The instance restricted to applications ``indices`` (and their speed rows)."""
        idx = [int(i) for i in indices]
        plat = self.platform
        if plat.unrelated:
            plat = StarPlatform(
                plat.speeds[idx], plat.bandwidths, plat.master_bandwidth, plat.port, plat.extra
            )
        return Instance(plat, tuple(self.applications[i] for i in idx), self.extra)
