"""Star platforms: a master that only sends, and heterogeneous workers (seed 003 §2.1).

Units: speeds in flop/s, bandwidths in bytes/s, latencies in seconds.
"""

from __future__ import annotations

import math
import reprlib
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from lpsched.errors import InvalidInstanceError

Port = Literal["one-port", "multiport"]
PORTS: tuple[str, ...] = ("one-port", "multiport")
_FLOAT_MAX = sys.float_info.max


def shown(value: Any) -> Any:
    """``value`` for an error message: scalars as they are, containers as a short repr that
    never recurses deeply (a pathologically nested list cannot overflow the stack).

    Parameters
    ----------
    value : object
        The offending value of an instance field.

    Returns
    -------
    object
        ``value`` itself, or a :class:`Verbatim` short repr of a list, tuple, dict or array.
    """
    if isinstance(value, (list, tuple, dict, np.ndarray)):
        return Verbatim(reprlib.repr(value))
    return value


class Verbatim(str):
    """Text shown as it is (no quotes) where an error message shows a value."""

    def __repr__(self) -> str:
        return str(self)


def huge_integer(value: int) -> Verbatim:
    """An integer too large for a float, shown by its first digits and its length.

    Parameters
    ----------
    value : int
        An integer beyond the float range.

    Returns
    -------
    Verbatim
        E.g. ``123456...(400 digits)``.
    """
    text = str(value)
    return Verbatim(f"{text[:6]}...({len(text)} digits)")


def _is_real(x: Any) -> bool:
    """A JSON number or a numpy real: not a boolean, a string, ``None`` or a container."""
    return type(x) in (int, float) or isinstance(x, (np.integer, np.floating))


def _entry(name: str, index: tuple[int, ...]) -> str:
    return f"{name}[{']['.join(map(str, index))}]"


def _as_float_array(name: str, value: Any) -> np.ndarray:
    """``value`` as a float array, every entry checked to be a real number first."""
    if isinstance(value, np.ndarray) and value.dtype.kind in "fiu":
        return np.array(value, dtype=float)
    try:
        raw = np.array(value, dtype=object)
    except (TypeError, ValueError) as exc:
        raise InvalidInstanceError(name, shown(value),
                                   f"not an array of numbers ({exc})") from None
    if raw.ndim == 0:
        raise InvalidInstanceError(name, shown(value), "must be a list of numbers")
    flat = raw.ravel()
    real = np.fromiter((_is_real(x) for x in flat), bool, flat.size)
    if not real.all():
        idx = np.unravel_index(int(np.argmin(real)), raw.shape)
        x = raw[idx]
        if isinstance(x, (list, tuple)):
            raise InvalidInstanceError(name, shown(value),
                                       "rows of different lengths (ragged list)")
        what = ("a boolean" if isinstance(x, (bool, np.bool_)) else "null" if x is None
                else "a string" if isinstance(x, str) else "an object" if isinstance(x, dict)
                else f"a {type(x).__name__}")
        raise InvalidInstanceError(_entry(name, tuple(int(i) for i in idx)), shown(x),
                                   f"must be a number, not {what}")
    try:
        return raw.astype(float)
    except OverflowError:  # a JSON integer beyond the float range
        big = np.fromiter((abs(x) > _FLOAT_MAX for x in flat), bool, flat.size)
        idx = np.unravel_index(int(np.argmax(big)), raw.shape)
        raise InvalidInstanceError(_entry(name, tuple(int(i) for i in idx)),
                                   huge_integer(raw[idx]),
                                   "outside the float range (about ±1.8e308)") from None


def positive_array(name: str, value: Any, ndim: tuple[int, ...]) -> np.ndarray:
    """Return ``value`` as a float array of one of the ranks ``ndim``, all entries finite > 0.

    Validated: every entry is a real number (booleans, strings, ``null`` and nested lists
    of different lengths are rejected, as in scalar fields), lies inside the float range,
    is finite and positive; the array has one of the ranks ``ndim`` and is not empty.
    Raises :class:`InvalidInstanceError` naming ``name`` (with the entry's index)
    otherwise.

    Parameters
    ----------
    name : str
        The field's name in error messages (e.g. ``"platform.speeds"``).
    value : object
        The decoded value (a number, nested lists or an array).
    ndim : tuple of int
        The ranks accepted, e.g. ``(1,)`` or ``(1, 2)``.

    Returns
    -------
    numpy.ndarray
        A read-only float array.

    Raises
    ------
    InvalidInstanceError
        A wrong rank, an empty array, or an entry that is not a finite positive number.
    """
    arr = _as_float_array(name, value)
    if arr.ndim not in ndim:
        want = " or ".join(f"{d}-D" for d in ndim)
        raise InvalidInstanceError(name, shown(value),
                                   f"expected a {want} array, got shape {arr.shape}")
    if arr.size == 0:
        raise InvalidInstanceError(name, shown(value), "must not be empty")
    bad = ~np.isfinite(arr) | (arr <= 0)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise InvalidInstanceError(_entry(name, idx), float(arr[idx]), "must be finite and > 0")
    arr.setflags(write=False)
    return arr


def latency_array(value: Any, workers: int) -> np.ndarray:
    """``value`` as the read-only per-worker link latencies of a star platform.

    Validated like :func:`positive_array` (real numbers only, inside the float range), but
    each entry must be finite and ``>= 0``.

    Parameters
    ----------
    value : array-like or None
        One latency per worker, seconds; ``None`` means all zero.
    workers : int
        The number of workers ``p``.

    Returns
    -------
    numpy.ndarray
        Shape ``(workers,)``, float, read-only (``-0.0`` written as ``0.0``).

    Raises
    ------
    InvalidInstanceError
        Naming ``platform.latencies`` (with the entry's index): a wrong length, an entry
        that is not a real number, negative, ``nan`` or infinite.

    Examples
    --------
    >>> latency_array(None, 2).tolist()
    [0.0, 0.0]
    >>> latency_array([1e-3, 0], 2).tolist()
    [0.001, 0.0]
    """
    if value is None:
        arr = np.zeros(workers)
    else:
        arr = _as_float_array("platform.latencies", value)
        if arr.shape != (workers,):
            raise InvalidInstanceError("platform.latencies", shown(value),
                                       f"expected one latency per worker ({workers}), got "
                                       f"shape {arr.shape}")
        bad = ~np.isfinite(arr) | (arr < 0)
        if bad.any():
            u = int(np.argmax(bad))
            raise InvalidInstanceError(f"platform.latencies[{u}]", float(arr[u]),
                                       "must be finite and >= 0 (seconds)")
        arr = arr + 0.0  # -0.0 -> 0.0, so a zero latency is written as 0.0
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
    latencies:
        Shape ``(p,)``, the latency of the link master -> ``P_u`` in seconds (``None``: all
        zero, seed 003's model). Seed 003's models have no latency: the LP models (K) and
        (K1), the steady state (``ρ*``, ``MS*``), the plan checker and the reconstructions
        of Theorems 3, 4 and 6 ignore it (the CLI says so in a ``lpsched: note:`` line).
        Only the master-worker simulator (:mod:`lpsched.bags.simulator`) honours it: each
        send starts with its link's latency, as in SimGrid's network models. Read from
        SimGrid platform files (:mod:`lpsched.bags.simgrid`); written to JSON only when
        some latency is nonzero.

    Raises
    ------
    InvalidInstanceError
        Naming the field (and the entry, e.g. ``platform.speeds[1]``): ``speeds`` and
        ``bandwidths`` must hold real numbers only (no booleans, strings or ``null``, rows
        of one length), finite, > 0 and inside the float range, one per worker;
        ``master_bandwidth`` a number > 0 or ``None``/``inf``; ``port`` one of
        :data:`PORTS`; ``latencies`` one finite number ``>= 0`` per worker.
    """

    speeds: np.ndarray
    bandwidths: np.ndarray
    master_bandwidth: float = math.inf
    port: Port = "one-port"
    extra: Mapping[str, Any] = field(default_factory=dict)
    latencies: np.ndarray | None = None

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
        if not _is_real(bw):
            raise InvalidInstanceError("platform.master_bandwidth", shown(bw),
                                       "must be a number or null")
        if isinstance(bw, int) and abs(bw) > _FLOAT_MAX:
            raise InvalidInstanceError("platform.master_bandwidth", huge_integer(bw),
                                       "outside the float range (about ±1.8e308)")
        if math.isnan(bw) or bw <= 0:
            raise InvalidInstanceError("platform.master_bandwidth", bw, "must be > 0 (or null)")
        if not isinstance(self.port, str) or self.port not in PORTS:
            raise InvalidInstanceError("platform.port", shown(self.port),
                                       f"must be one of {PORTS}")
        object.__setattr__(self, "speeds", speeds)
        object.__setattr__(self, "bandwidths", bws)
        object.__setattr__(self, "master_bandwidth", float(bw))
        object.__setattr__(self, "extra", dict(self.extra))
        object.__setattr__(self, "latencies", latency_array(self.latencies, bws.shape[0]))

    @property
    def workers(self) -> int:
        """Number of workers ``p``."""
        return int(self.bandwidths.shape[0])

    @property
    def has_latency(self) -> bool:
        """True when some worker's link has a nonzero latency (see ``latencies``)."""
        return bool(np.any(np.asarray(self.latencies) > 0))

    @property
    def unrelated(self) -> bool:
        """True when speeds are given per (application, worker)."""
        return self.speeds.ndim == 2

    def speed_matrix(self, n_apps: int) -> np.ndarray:
        """Speeds as an ``(n_apps, p)`` matrix ``s_u^(k)`` (rows repeated for related machines).

        Parameters
        ----------
        n_apps : int
            n, the number of applications.

        Returns
        -------
        numpy.ndarray
            Shape ``(n_apps, p)``, in flop/s: the speeds themselves for unrelated machines, a
            read-only broadcast of the speed vector for related ones.

        Raises
        ------
        InvalidInstanceError
            Unrelated speeds whose row count is not ``n_apps``.
        """
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
        """The same platform under another communication model.

        Parameters
        ----------
        port : str
            ``"one-port"`` or ``"multiport"``.

        Returns
        -------
        StarPlatform
            A new platform with the same speeds, bandwidths, master bandwidth, latencies and
            extra data.

        Raises
        ------
        InvalidInstanceError
            ``port`` is neither model.
        """
        return StarPlatform(self.speeds, self.bandwidths, self.master_bandwidth, port, self.extra,
                            self.latencies)
