"""SWF reading without the compiled parser ``lpsched.core._swf_c``.

An install without Cython or a C compiler has no compiled parser: :mod:`lpsched.core.swf`
holds ``None`` for it (simulated here with ``monkeypatch``), and ``_parse_rows`` must read
the job lines with ``numpy.loadtxt`` and the line path, the reference, to the same values
bit for bit, with ``LPSCHED_PURE_PYTHON`` unset.
"""

from __future__ import annotations

import numpy as np
import pytest

from lpsched.core import swf
from lpsched.core.swf import _parse_rows

LINES = [
    "1 0 10 3600 4 -1 -1 4 7200 -1 1 3 1 -1 1 -1 -1 -1",
    "2  5\t0 1e3 8 -1.5 .5 8 5. -0 1 3 1 -1 1 -1 -1 -1",
    "3 12 1 0.1 1 inf nan 1 123456789012345678 -1 0 3 1 -1 1 -1 -1 -1",
]


def test_without_the_parser_the_reference_reads_the_same(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LPSCHED_PURE_PYTHON", raising=False)
    numbers = list(range(1, len(LINES) + 1))
    built = swf._swf_c is not None
    compiled = _parse_rows(list(LINES), numbers, "x.swf", False) if built else None
    monkeypatch.setattr(swf, "_swf_c", None)
    values, lines, skipped = _parse_rows(list(LINES), numbers, "x.swf", False)
    assert values.shape == (3, 18) and lines.tolist() == numbers and skipped == []
    assert values[1, 9] == 0.0 and np.signbit(values[1, 9])  # "-0" as float("-0")
    if built:
        assert compiled is not None
        assert compiled[0].tobytes() == values.tobytes()
