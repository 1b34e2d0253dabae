"""SimGrid's units (lpsched/platforms/units.py): every prefix, the unit-less base, refusals."""

from __future__ import annotations

import pytest

from lpsched.platforms import parse_quantity, parse_speeds
from lpsched.platforms.units import BANDWIDTH_UNITS, SPEED_UNITS, TIME_UNITS


def test_every_decimal_speed_prefix_and_the_spelled_out_ones() -> None:
    for prefix, power in zip("kMGTPEZY", range(3, 27, 3), strict=True):
        assert parse_quantity(f"2{prefix}f", "speed") == (2 * 10.0**power, True)
    assert parse_quantity("3megaflops", "speed") == (3e6, True)
    assert "Kif" not in SPEED_UNITS and "Gflops" not in SPEED_UNITS  # SimGrid has neither


def test_bandwidths_in_bytes_and_bits_decimal_and_binary() -> None:
    assert BANDWIDTH_UNITS["GiBps"] == 1024.0**3
    assert BANDWIDTH_UNITS["Mbps"] == 1e6 / 8
    assert parse_quantity("10Gbps", "bandwidth") == (1.25e9, True)
    assert parse_quantity("2KiBps", "bandwidth") == (2048.0, True)


def test_times_from_weeks_to_picoseconds() -> None:
    assert TIME_UNITS["w"] == 604800.0 and TIME_UNITS["ps"] == 1e-12
    assert parse_quantity("1.5ms", "latency") == (1.5e-3, True)


def test_a_bare_number_is_the_base_unit_and_said_so() -> None:
    assert parse_quantity("125", "bandwidth") == (125.0, False)
    assert parse_quantity(" 1e-3 ", "latency") == (1e-3, False)


@pytest.mark.parametrize(("text", "kind", "words"), [
    ("fast", "speed", "speed 'fast' is not a SimGrid speed: a decimal number and a unit"),
    ("1GHz", "speed", "unknown speed unit 'GHz'"),
    ("1Gflops", "speed", "there are no binary prefixes"),
    ("10KBps", "bandwidth", "decimal kilo is 'k': kBps"),
    ("10 MBps", "bandwidth", "not a SimGrid bandwidth"),
    ("3sec", "latency", "w d h m s ms us ns ps"),
])
def test_what_simgrid_refuses_is_refused_with_what_it_accepts(text: str, kind: str,
                                                              words: str) -> None:
    with pytest.raises(ValueError, match=words):
        parse_quantity(text, kind)


def test_speeds_one_per_pstate_with_spaces() -> None:
    assert parse_speeds("100.0Mf, 50Mf,0f") == (1e8, 5e7, 0.0)
    assert parse_speeds("16.673E9flops") == (16.673e9,)
    with pytest.raises(ValueError, match=r"unknown speed unit 'G' in '1G'"):
        parse_speeds("1Gf, 1G")
