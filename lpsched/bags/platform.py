"""Star platforms: a master that only sends, and heterogeneous workers (seed 003 §2.1).

Units: speeds in flop/s, bandwidths in bytes/s.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from lpsched.errors import InvalidInstanceError

Port = Literal["one-port", "multiport"]
PORTS: tuple[str, ...] = ("one-port", "multiport")


def positive_array(name: str, value: Any, ndim: tuple[int, ...]) -> np.ndarray:
    """Return ``value`` as a float array of one of the ranks ``ndim``, all entries finite > 0.

    Raises :class:`InvalidInstanceError` naming ``name`` otherwise.
    """
    try:
        arr = np.array(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidInstanceError(name, value, f"not an array of numbers ({exc})") from None
    if arr.ndim not in ndim:
        want = " or ".join(f"{d}-D" for d in ndim)
        raise InvalidInstanceError(name, value, f"expected a {want} array, got shape {arr.shape}")
    if arr.size == 0:
        raise InvalidInstanceError(name, value, "must not be empty")
    bad = ~np.isfinite(arr) | (arr <= 0)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise InvalidInstanceError(
            f"{name}[{']['.join(map(str, idx))}]", float(arr[idx]), "must be finite and > 0"
        )
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, eq=False)
class StarPlatform:
    """A master feeding ``p`` workers over a star network.

    Parameters
    ----------
    speeds:
        Shape ``(p,)`` (related machines, ``s_u``) or ``(n, p)`` (unrelated machines: one row
        per application, ``s_u^(k)``), flop/s.
    bandwidths:
        Shape ``(p,)``, ``b_u`` of the link master -> ``P_u``, bytes/s.
    master_bandwidth:
        ``BW``, the master's outgoing capacity under bounded multiport (bytes/s);
        ``None`` or ``inf`` means unbounded. Ignored by the one-port model.
    port:
        ``"one-port"`` (the master sends one message at a time, constraint (10-b)) or
        ``"multiport"`` (bounded multiport, constraint (10)).
    extra:
        Unknown JSON keys, kept so a load/save round trip loses nothing.
    """

    speeds: np.ndarray
    bandwidths: np.ndarray
    master_bandwidth: float = math.inf
    port: Port = "one-port"
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        speeds = positive_array("platform.speeds", self.speeds, (1, 2))
        bws = positive_array("platform.bandwidths", self.bandwidths, (1,))
        if speeds.shape[-1] != bws.shape[0]:
            raise InvalidInstanceError(
                "platform.speeds",
                self.speeds,
                f"has {speeds.shape[-1]} workers but platform.bandwidths has {bws.shape[0]}",
            )
        bw = self.master_bandwidth
        bw = math.inf if bw is None else bw
        if isinstance(bw, bool) or not isinstance(bw, (int, float, np.floating, np.integer)):
            raise InvalidInstanceError("platform.master_bandwidth", bw, "must be a number or null")
        if math.isnan(bw) or bw <= 0:
            raise InvalidInstanceError("platform.master_bandwidth", bw, "must be > 0 (or null)")
        if self.port not in PORTS:
            raise InvalidInstanceError("platform.port", self.port, f"must be one of {PORTS}")
        object.__setattr__(self, "speeds", speeds)
        object.__setattr__(self, "bandwidths", bws)
        object.__setattr__(self, "master_bandwidth", float(bw))
        object.__setattr__(self, "extra", dict(self.extra))

    @property
    def workers(self) -> int:
        """Number of workers ``p``."""
        return int(self.bandwidths.shape[0])

    @property
    def unrelated(self) -> bool:
        """True when speeds are given per (application, worker)."""
        return self.speeds.ndim == 2

    def speed_matrix(self, n_apps: int) -> np.ndarray:
        """Speeds as an ``(n_apps, p)`` matrix ``s_u^(k)`` (rows repeated for related machines)."""
        if self.unrelated:
            if self.speeds.shape[0] != n_apps:
                raise InvalidInstanceError(
                    "platform.speeds",
                    self.speeds.tolist(),
                    f"has {self.speeds.shape[0]} rows but there are {n_apps} applications",
                )
            return self.speeds
        return np.broadcast_to(self.speeds, (n_apps, self.workers))

    def with_port(self, port: Port) -> StarPlatform:
        """The same platform under another communication model."""
        return StarPlatform(self.speeds, self.bandwidths, self.master_bandwidth, port, self.extra)
