"""The compiled SWF number parser (``lpsched.core._swf_c``) against the reference.

The compiled parser turns the job lines into the ``(n, 18)`` array ``numpy.loadtxt`` makes,
or returns None for a line it leaves to loadtxt and the line-by-line path (which name the
bad line). Compared bit for bit (``tobytes``) with loadtxt and with ``float()`` on random
tokens of every spelling SWF files and their damaged copies hold, and on every real trace
of the shared data folder through ``read_swf`` with and without ``LPSCHED_PURE_PYTHON``.
"""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

from lpsched.core import swf
from lpsched.core.swf import FIELDS, _parse_line, _parse_rows, read_swf
from lpsched.errors import SwfParseError
from tests.shared_data import data_folder, shared_file

_swf_c = pytest.importorskip("lpsched.core._swf_c",
                             reason="the compiled SWF parser is not built (no Cython or "
                             "no C compiler): the Python path runs alone")

#: tokens ``float()`` reads: whole numbers (the fast path, up to 15 digits), and the others
#: (more digits, decimals, exponents, signs, spellings of inf and nan)
GOOD = ["0", "-0", "1", "-1", "007", "-007", "123456789012345", "-999999999999999",
        "1234567890123456", "-12345678901234567", "9007199254740993", "+5", "+0", ".5",
        "5.", "-.5", "-5.", "0.1", "3.14159", "1e3", "1E3", "1e-3", "-2.5e+10", "1e400",
        "-1e400", "1e-400", "4.9e-324", "2.2250738585072011e-308", "1.7976931348623157e308",
        "0.30000000000000004", "inf", "-inf", "+inf", "Inf", "INF", "infinity",
        "-Infinity", "nan", "-nan", "+nan", "NaN", "NAN", "00000000000000000001",
        "123.000", "1.5e0", "-0.0", "0e0"]
#: tokens that make the compiled parser return None (the reference then decides)
BAD = ["1_000", "abc", "1e", "0x10", "--1", "-", "+", ".", "1.2.3", "1e5.5", "nan(1)",
       "inff", "1,5", "é", "1\u00a0", "1\x00", "@1", "1-", "e5"]


def _token(rng: random.Random) -> str:
    """A random token that ``float()`` reads."""
    kind = rng.randrange(6)
    if kind == 0:
        return rng.choice(GOOD)
    if kind == 1:
        return str(rng.randrange(-10**rng.randrange(1, 18), 10**rng.randrange(1, 18)))
    if kind == 2:
        return repr(rng.uniform(-1e6, 1e6))
    if kind == 3:
        return f"{rng.uniform(-10, 10):.{rng.randrange(0, 20)}e}"
    if kind == 4:
        return repr(np.frombuffer(rng.randbytes(8), np.float64)[0].item())
    return "-1"


def _line(rng: random.Random, tokens: list[str]) -> str:
    """The tokens joined by random runs of spaces and tabs."""
    gaps = [rng.choice([" ", "\t", "  ", " \t ", "\t\t", "     "]) for _ in tokens]
    return "".join(g + t for g, t in zip(gaps, tokens, strict=True)).strip()


def _python(data: list[str]) -> np.ndarray:
    """The line-by-line reference: ``float()`` on every token."""
    rows = []
    for text in data:
        values, problem, _ = _parse_line(text)
        assert values is not None, problem
        rows.append(values)
    return np.array(rows, dtype=float).reshape(-1, len(FIELDS))


def _loadtxt(data: list[str]) -> np.ndarray | None:
    """``numpy.loadtxt`` as ``_parse_rows`` calls it (None when it refuses the lines)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.loadtxt(data, dtype=float, comments=None, ndmin=2)
    except ValueError:
        return None


@pytest.mark.parametrize("seed", range(8))
def test_random_tokens_bit_for_bit(seed):
    rng = random.Random(seed)
    data = [_line(rng, [_token(rng) for _ in FIELDS]) for _ in range(300)]
    fast = _swf_c.parse_rows(data)
    assert fast is not None and fast.shape == (300, len(FIELDS)) and fast.dtype == np.float64
    assert fast.tobytes() == _python(data).tobytes()
    reference = _loadtxt(data)
    assert reference is not None and fast.tobytes() == reference.tobytes()


@pytest.mark.parametrize("token", GOOD)
def test_each_spelling_as_float_reads_it(token):
    data = [" ".join([token] * len(FIELDS)), "\t".join(["-1"] * 17 + [token])]
    fast = _swf_c.parse_rows(data)
    assert fast is not None
    assert fast.tobytes() == _python(data).tobytes()
    reference = _loadtxt(data)
    assert reference is not None and fast.tobytes() == reference.tobytes()


def test_whole_numbers_exact_and_signed_zero():
    data = [" ".join(["-0", "0", "999999999999999", "-999999999999999"] + ["-1"] * 14)]
    fast = _swf_c.parse_rows(data)
    assert fast is not None
    assert fast[0, :4].tolist() == [0.0, 0.0, 999999999999999.0, -999999999999999.0]
    assert np.signbit(fast[0, 0]) and not np.signbit(fast[0, 1])


@pytest.mark.parametrize("token", BAD)
def test_tokens_left_to_the_reference(token):
    good = " ".join(["1"] * len(FIELDS))
    assert _swf_c.parse_rows([good, " ".join(["1"] * 17 + [token])]) is None
    assert _swf_c.parse_rows([good, " ".join([token] + ["1"] * 17)]) is None


@pytest.mark.parametrize("line", [
    " ".join(["1"] * 17), " ".join(["1"] * 19), "1",
    "1\x0b" + " ".join(["1"] * 17), "1\x0c" + " ".join(["1"] * 17),
    "1\r" + " ".join(["1"] * 17), "1\n" + " ".join(["1"] * 17),
    "1\x1c" + " ".join(["1"] * 17), "1\x1f" + " ".join(["1"] * 17),
    "1\u2003" + " ".join(["1"] * 17), "1\udc80" + " ".join(["1"] * 17),
    "1" * 5000 + " " + " ".join(["1"] * 17)])
def test_lines_left_to_the_reference(line):
    assert _swf_c.parse_rows([" ".join(["2"] * len(FIELDS)), line]) is None


def test_not_a_str_left_to_the_reference():
    class Text(str):
        pass

    assert _swf_c.parse_rows([Text(" ".join(["1"] * len(FIELDS)))]) is None
    assert _swf_c.parse_rows([]).shape == (0, len(FIELDS))


def _both(monkeypatch, data, lenient):
    """``_parse_rows`` compiled, then with ``LPSCHED_PURE_PYTHON=1``: result or error."""
    found = []
    for pure in ("0", "1"):
        monkeypatch.setenv("LPSCHED_PURE_PYTHON", pure)
        try:
            values, kept, skipped = _parse_rows(data, list(range(1, len(data) + 1)), "t.swf",
                                                lenient)
            found.append((values.tobytes(), values.shape, kept.tolist(), skipped))
        except SwfParseError as exc:
            found.append(str(exc))
    return found


@pytest.mark.parametrize("lenient", [False, True])
@pytest.mark.parametrize("bad", [*BAD, " ".join(["1"] * 17), "1\x0b2"])
def test_parse_rows_same_both_ways(monkeypatch, bad, lenient):
    rng = random.Random(bad)
    data = [_line(rng, [_token(rng) for _ in FIELDS]) for _ in range(20)]
    compiled, pure = _both(monkeypatch, data, lenient)
    assert compiled == pure
    data[7] = " ".join(["1"] * 17 + [bad]) if bad.count(" ") < 16 else bad
    compiled, pure = _both(monkeypatch, data, lenient)
    assert compiled == pure


def _traces() -> list[str]:
    folder = data_folder()
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if ".swf" in p.name)


def _read(path, lenient):
    try:
        tr = read_swf(path, lenient=lenient)
    except SwfParseError as exc:
        return str(exc)
    return ({k: (v.dtype.str, v.tobytes()) for k, v in tr.columns.items()},
            tr.lines.tobytes() if tr.lines is not None else None, tr.header, tr.comments,
            tr.skipped_lines, tr.skip_reasons, tr.rounded, tr.header_lines)


@pytest.mark.skipif(not _traces(), reason=f"no SWF trace in {data_folder()} (see "
                    "tests/shared_data.py)")
@pytest.mark.parametrize("name", _traces() or ["none"])
def test_real_traces_read_the_same_both_ways(monkeypatch, name):
    path = shared_file(name)
    for lenient in (False, True):
        monkeypatch.setenv("LPSCHED_PURE_PYTHON", "1")
        pure = _read(path, lenient)
        monkeypatch.setenv("LPSCHED_PURE_PYTHON", "0")
        calls = []
        real = _swf_c.parse_rows

        def counted(data, real=real, calls=calls):
            out = real(data)
            calls.append(out is not None)
            return out

        monkeypatch.setattr(swf._swf_c, "parse_rows", counted)
        compiled = _read(path, lenient)
        monkeypatch.setattr(swf._swf_c, "parse_rows", real)
        assert compiled == pure
        assert calls and all(calls), "the compiled parser left a real trace's block"
