"""Certified results of approximation algorithms: a schedule, a lower bound computed alongside
and the proven guarantee, so ``makespan <= guarantee·(1 + tolerance)·lower_bound`` can be
checked on every call (issue #4)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lpsched.errors import InvalidInstanceError


@dataclass(frozen=True)
class MachineSchedule:
    """Task ``j`` runs on machine ``machine[j]`` during ``[start[j], end[j]]``. For hybrid
    platforms machines ``0..m-1`` are CPUs and ``m..m+k-1`` GPUs."""

    machine: np.ndarray
    start: np.ndarray
    end: np.ndarray

    @property
    def makespan(self) -> float:
        return float(self.end.max()) if self.end.size else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"machine": self.machine.tolist(), "start": self.start.tolist(),
                "end": self.end.tolist()}


@dataclass(frozen=True)
class Certified:
    """``makespan`` of ``schedule``; ``lower_bound`` <= OPT (proved); ``guarantee`` proven
    against that bound; ``tolerance`` the relative slack of a numerical search (0 if none);
    ``opt_guarantee`` the ratio proven against the optimum when it is smaller than the one
    certifiable from the bound (e.g. LPT's 4/3 − 1/(3m))."""

    algorithm: str
    schedule: MachineSchedule
    makespan: float
    lower_bound: float
    guarantee: float
    tolerance: float = 0.0
    opt_guarantee: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ratio(self) -> float:
        return self.makespan / self.lower_bound if self.lower_bound > 0 else 1.0

    def holds(self) -> bool:
        """``makespan <= guarantee·(1 + tolerance)·lower_bound`` (up to 1e-9 relative)."""
        return self.makespan <= self.guarantee * (1 + self.tolerance) * self.lower_bound * (
            1 + 1e-9) + 1e-12

    def to_dict(self, schedule: bool = False) -> dict[str, Any]:
        out = {"algorithm": self.algorithm, "makespan": self.makespan,
               "lower_bound": self.lower_bound, "guarantee": self.guarantee,
               "tolerance": self.tolerance, "opt_guarantee": self.opt_guarantee,
               "ratio_to_lower_bound": self.ratio, "certified": self.holds(), **self.extra}
        if schedule:
            out["schedule"] = self.schedule.to_dict()
        return out


def check_times(name: str, times: Any) -> np.ndarray:
    """Processing times as a 1-D float array, finite and >= 0 (InvalidInstanceError)."""
    try:
        arr = np.asarray(times, dtype=float)
    except (TypeError, ValueError):
        raise InvalidInstanceError(name, times, "must be numbers") from None
    if arr.ndim != 1:
        raise InvalidInstanceError(name, arr.shape, "must be a 1-D list of times")
    bad = ~np.isfinite(arr) | (arr < 0)
    if bad.any():
        i = int(np.argmax(bad))
        raise InvalidInstanceError(f"{name}[{i}]", float(arr[i]), "must be finite and >= 0")
    return arr


def check_count(name: str, value: Any, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InvalidInstanceError(name, value, f"must be a whole number >= {minimum}")
    return int(value)
