"""SimGrid's units: speeds in flop/s, bandwidths in bytes/s, latencies in seconds.

The rules are those of SimGrid's unit parser (``src/xbt/xbt_parse_units.cpp``): a decimal
number followed by one unit of the kind, case-sensitive:

* speeds ``f`` with the decimal prefixes ``k M G T P E Z Y`` (``1Gf``), or ``flops`` with
  the spelled-out ones (``kiloflops`` ... ``yottaflops``); no binary prefix;
* bandwidths ``Bps`` with the decimal prefixes ``k M G T P E Z Y`` or the binary ``Ki Mi Gi
  Ti Pi Ei Zi Yi`` (``KiBps`` = 1024 B/s), and the same in bits, ``bps`` = 1/8 of the byte
  unit (``100Mbps`` = 12.5e6 B/s);
* times ``w d h m s ms us ns ps``.

A number without unit is read in the base unit (``f``, ``Bps``, ``s``), as SimGrid does
while warning that unit-less values are deprecated; :func:`parse_quantity` says whether a
unit was given so that a reader can report it. ``KBps`` is refused although SimGrid's XML
reference page lists it: SimGrid's parser refuses it too (the decimal kilo is ``k``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["BANDWIDTH_UNITS", "SPEED_UNITS", "TIME_UNITS", "parse_quantity", "parse_speeds"]


def _unit_scale(gens: Sequence[tuple[str, float, int, bool]]) -> dict[str, float]:
    """Each unit of ``gens`` with its decimal or binary prefixes; the first name wins.

    ``gens`` holds ``(unit, value, base, abbreviated)``: base 10 gives the decimal prefixes
    (``k``, ``M``, ... or ``kilo``, ``mega``, ...), base 2 the binary ones (``Ki``, ``Mi``,
    ... or ``kibi``, ``mebi``, ...).
    """
    table: dict[str, float] = {}
    for unit, value, base, abbrev in gens:
        mult = 1024.0 if base == 2 else 1000.0
        if base == 2:
            prefixes = (["Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi", "Yi"] if abbrev else
                        ["kibi", "mebi", "gibi", "tebi", "pebi", "exbi", "zebi", "yobi"])
        else:
            prefixes = (["k", "M", "G", "T", "P", "E", "Z", "Y"] if abbrev else
                        ["kilo", "mega", "giga", "tera", "peta", "exa", "zeta", "yotta"])
        table.setdefault(unit, value)
        for prefix in prefixes:
            value *= mult
            table.setdefault(prefix + unit, value)
    return table


#: Speed units (flop/s), as SimGrid's speed parser reads them.
SPEED_UNITS = _unit_scale([("f", 1.0, 10, True), ("flops", 1.0, 10, False)])
#: Bandwidth units (bytes/s), as SimGrid's bandwidth parser reads them.
BANDWIDTH_UNITS = _unit_scale([("bps", 0.125, 2, True), ("bps", 0.125, 10, True),
                               ("Bps", 1.0, 2, True), ("Bps", 1.0, 10, True)])
#: Time units (seconds), as SimGrid's time parser reads them.
TIME_UNITS = {"w": 7 * 24 * 60 * 60.0, "d": 24 * 60 * 60.0, "h": 60 * 60.0, "m": 60.0,
              "s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12}
_KINDS = {"speed": (SPEED_UNITS, "f"), "bandwidth": (BANDWIDTH_UNITS, "Bps"),
          "latency": (TIME_UNITS, "s")}
_NUMBER = re.compile(r"\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)(\S*)\s*\Z")


def parse_quantity(text: str, kind: str) -> tuple[float, bool]:
    """Read a SimGrid quantity (``"1.5Gf"``, ``"10MBps"``, ``"100us"``) in base units.

    Parameters
    ----------
    text : str
        A decimal number followed by one of SimGrid's units for ``kind`` (module doc).
    kind : str
        ``"speed"`` (flop/s), ``"bandwidth"`` (bytes/s) or ``"latency"`` (seconds).

    Returns
    -------
    tuple of (float, bool)
        The value in base units and ``True`` when a unit was given (a number alone is read
        in the base unit, as SimGrid does).

    Raises
    ------
    ValueError
        When ``text`` is not a number or its unit is not one SimGrid accepts for ``kind``;
        the message names the accepted units.

    Examples
    --------
    >>> parse_quantity("10MBps", "bandwidth")
    (10000000.0, True)
    >>> parse_quantity("100Mbps", "bandwidth")
    (12500000.0, True)
    >>> parse_quantity("1KiBps", "bandwidth")
    (1024.0, True)
    >>> parse_quantity("2.5ms", "latency")
    (0.0025, True)
    >>> parse_quantity("1e9", "speed")
    (1000000000.0, False)
    """
    units, base = _KINDS[kind]
    match = _NUMBER.match(text)
    if match is None:
        raise ValueError(f"{kind} {text!r} is not a SimGrid {kind}: a decimal number and a "
                         f"unit, e.g. {_example(kind)}")
    number, unit = match.groups()
    value = float(number)
    if not unit:
        return value * units[base], False
    if unit not in units:
        raise ValueError(f"unknown {kind} unit {unit!r} in {text!r}{_hint(unit, kind)}")
    return value * units[unit], True


def parse_speeds(text: str) -> tuple[float, ...]:
    """Read a host's ``speed`` attribute: one speed per pstate, separated by commas.

    Parameters
    ----------
    text : str
        ``"1Gf"`` or ``"100Mf, 50Mf, 20Mf"`` (spaces around each speed allowed).

    Returns
    -------
    tuple of float
        The speed of each pstate, in flop/s.

    Raises
    ------
    ValueError
        When one speed is not a SimGrid speed (:func:`parse_quantity`).

    Examples
    --------
    >>> parse_speeds("100.0Mf, 50Mf")
    (100000000.0, 50000000.0)
    """
    return tuple(parse_quantity(part.strip(), "speed")[0] for part in text.split(","))


def _example(kind: str) -> str:
    """A valid value of ``kind``, for the messages."""
    return {"speed": "'1Gf'", "bandwidth": "'125MBps' or '1Gbps'",
            "latency": "'50us'"}[kind]


def _hint(unit: str, kind: str) -> str:
    """What SimGrid accepts instead of ``unit``."""
    if kind == "bandwidth":
        if unit[:1] == "K" and unit[1:] in ("Bps", "bps"):
            return f" (decimal kilo is 'k': k{unit[1:]}; binary: Ki{unit[1:]})"
        return (" (SimGrid accepts Bps or bps with the prefixes k M G T P E Z Y or "
                "Ki Mi Gi Ti Pi Ei Zi Yi, e.g. 10MBps, 1Gbps, 64KiBps)")
    if kind == "speed":
        return (" (SimGrid accepts f or flops with the decimal prefixes k M G T P E Z Y, "
                "e.g. 1Gf, 500Mf; there are no binary prefixes for speeds)")
    return " (SimGrid accepts w d h m s ms us ns ps, e.g. 50us)"
