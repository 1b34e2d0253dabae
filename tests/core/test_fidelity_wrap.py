"""The printed seed-vs-ours table's cell wrapping (lpsched.core.fidelity, decision 691): a
cell that fits its column skips :mod:`textwrap`, and every cell and every table comes out
as ``textwrap.wrap`` makes them."""

from __future__ import annotations

import random
import textwrap

import pytest

from lpsched.core import fidelity
from lpsched.core.fidelity import Bound, FidelityTable, compare, not_measured


def _textwrap(text: str, width: int) -> list[str]:
    """The wrapping the table used before the short cut, its reference."""
    return textwrap.wrap(text, width, break_long_words=False) or [""]


@pytest.mark.parametrize(("text", "width"), [
    ("", 5), ("match", 5), ("match", 4), (" lead", 9), ("trail ", 9), ("a\tb", 9),
    ("a\nb", 9), ("x\u00a0", 9), ("\u2009", 3), ("long-word wraps", 6), ("  ", 4),
    ("noise ±1.01e-05 s", 40),
])
def test_a_cell_wraps_as_textwrap_wraps_it(text, width):
    assert fidelity._wrap(text, width) == _textwrap(text, width)


def test_random_cells_wrap_as_textwrap_wraps_them():
    rng = random.Random(7)
    alphabet = "ab -.,'()±\t\n\r\x0b\x0c\u00a0\u2009é"
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))
        width = rng.randint(1, 16)
        assert fidelity._wrap(text, width) == _textwrap(text, width), (text, width)


def test_a_width_of_zero_is_refused_as_textwrap_refuses_it():
    with pytest.raises(ValueError):
        fidelity._wrap("", 0)


def _table() -> FidelityTable:
    rows = [compare("Table 5.4 SDSC Blue best-effort local: mean waits over basic's, 30 "
                    "instances", "000 L2944", Bound(">", 1.0), 0.992, noise=0.001,
                    note="a note long enough to wrap " * 4),
            compare("T4", "003 L908", 1.163, 1.12, tolerance=0.05),
            not_measured("Table 3.1 Curie trace # tasks", "000 L1835", 279991,
                         "trace not in this run", role="calibration"),
            compare("short", "L1", 1.0, 1.04, tolerance=0.05)]
    return FidelityTable("w", rows)


@pytest.mark.parametrize("width", [40, 60, 100, 200])
def test_the_printed_table_is_textwrap_s(monkeypatch, width):
    """Narrow and wide, one line per row or each row's label on its own line: the same
    text as with ``textwrap.wrap`` for every cell."""
    table = _table()
    fast = table.format(width=width)
    monkeypatch.setattr(fidelity, "_wrap", _textwrap)
    assert fast == table.format(width=width)
