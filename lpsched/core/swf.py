"""Standard Workload Format (SWF) traces: read, checked and written.

The format of the Parallel Workloads Archive: one job per line, 18 whitespace-separated
fields, ``-1`` for unknown; header lines start with ``;`` and ``Key: value`` ones
(``MaxProcs``, ``MaxNodes``, ...) describe the machine. :func:`read_swf` keeps every field
of every job (``.swf`` or ``.swf.gz``) after checking the file as below; :func:`to_workload`
applies the documented conventions and reports what it dropped and why; :func:`write_swf`
writes a trace back. It is in the core because three families read SWF traces: batch
(seeds 000 ch. 4-5 and 001), online tasks (seed 000 ch. 3) and campaigns (seed 002).

**What a trace must be** (decision 64, the SWF input policy). Each rule broken raises
:class:`~lpsched.errors.ParseError` naming the file — for a line,
:class:`~lpsched.errors.SwfParseError` (``file:line``) naming the field:

* the file: UTF-8 text (a byte-order mark is ignored), gzip-compressed exactly when its name
  ends in ``.gz``; a truncated or corrupt gzip stream, a name that disagrees with the content
  and an empty file are errors. A pipe, a FIFO or ``/dev/stdin`` is read too, once and
  never rewound (:mod:`lpsched.core.inputs`); its name says nothing (``/dev/fd/63``), so it
  is decompressed when it starts with gzip's magic bytes. Comment lines (``;``) may hold
  any bytes (kept with U+FFFD); no line is longer than :data:`MAX_LINE` bytes (the file is
  read and decompressed as a stream and a longer line is refused before it is held: an SWF
  line cannot be that long);
* the header: ``MaxProcs`` and ``MaxNodes``, when present, are whole numbers from 1 to
  :data:`MAX_PROCESSORS` (10^7, the largest machine simulated: the simulator keeps arrays
  per processor), or ``-1`` (unknown); ``nan``, ``1e18``, ``0.5``, ``0``, ``abc`` are errors
  pointing at the header line. A key given on two lines keeps its first value; for the keys
  lpsched reads (:data:`USED_KEYS`: ``MaxProcs``, ``MaxNodes``, ``UnixStartTime``,
  ``TimeZoneString``) a later line with another value is warned about
  (:class:`SwfHeaderWarning`, naming the file, the lines and the value kept: the CLI sums
  it up in its ``lpsched: note:`` line); the same value again is silent;
* a job line: 18 fields, each a finite ASCII number of magnitude at most 2^53
  (:data:`FIELD_LIMIT`, so whole numbers stay exact); the job number (field 1) a whole
  number ``>= 0`` that no other line repeats; the processor counts (fields 5 and 8) whole
  numbers.

**Policy for ids and processor counts.** By default a job line breaking a rule is an error
with its line number: a fractional processor count (``0.5``) is never run on 0 processors,
a job number ``2.5`` or ``1e30`` is never truncated or wrapped, a repeated job number
names the line of its first use. With ``lenient=True`` (the CLI's ``--lenient``) nothing is
changed silently either: a job line breaking a rule is skipped and recorded
(:attr:`SwfTrace.skipped_lines`, reasons counted in :attr:`SwfTrace.skip_reasons`; a
repeated job number keeps its first line and skips the later ones), and it stays in the
accounting — :func:`to_workload` counts it among ``dropped``, so jobs + dropped = the job
lines read (:attr:`SwfTrace.records`); a fractional processor count is the one value
repaired: rounded *up* (a job gets at least what it asked, ``0.5`` -> 1) and counted per
field in :attr:`SwfTrace.rounded`. Header errors stay errors under ``lenient``: they define
the machine.

Speed: the file is decoded once, well-formed job lines are parsed by :func:`numpy.loadtxt`
in one call (given the list of lines: a ``StringIO`` of their text would hold it again at
4 bytes a character, 115 MB more on CEA-Curie, and parse slower) and every rule is checked
on whole columns; only a file with a malformed line is re-read line by line, to name it.
Where it is built, the compiled parser :mod:`lpsched.core._swf_c` comes first (decision
670): the same array bit for bit (whole numbers of up to 15 digits converted exactly in C,
any other token by ``PyOS_string_to_double``, what ``float()`` and loadtxt call), about 4x
less CPU than loadtxt; a block with anything it does not handle goes to loadtxt and the
line path, the reference (``LPSCHED_PURE_PYTHON=1`` forces them).
"""

from __future__ import annotations

import gzip
import math
import warnings
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from itertools import repeat
from pathlib import Path
from typing import IO, Any

import numpy as np

from lpsched.core.inputs import is_stream, open_input, peek
from lpsched.core.kernels import compiled
from lpsched.errors import InvalidInstanceError, LpschedWarning, ParseError, SwfParseError

try:  # the job lines parsed in C (optional: without it, loadtxt and the line path below)
    from lpsched.core import _swf_c
except ImportError:  # pragma: no cover - depends on the build
    _swf_c = None  # type: ignore[assignment]

FIELDS = ("job", "submit", "wait", "run", "allocated", "cpu_time", "memory",
          "requested_procs", "requested_time", "requested_memory", "status", "user", "group",
          "executable", "queue", "partition", "preceding_job", "think_time")
#: the largest machine (processors) a trace may declare or ``to_workload`` accept
MAX_PROCESSORS = 10**7
#: the largest magnitude of any field (2^53: whole numbers exact in a float)
FIELD_LIMIT = 2.0**53
MACHINE_KEYS = ("MaxProcs", "MaxNodes")
#: the header keys lpsched reads: the machine, and the start date and time zone of the
#: trace (``lpsched reproduce campaigns``); a key given twice keeps its first value, and a
#: later line giving another value is warned about (:class:`SwfHeaderWarning`)
USED_KEYS = (*MACHINE_KEYS, "UnixStartTime", "TimeZoneString")
PROCESSOR_FIELDS = ("allocated", "requested_procs")
SKIPPED = "malformed line skipped (--lenient)"
#: the longest line read (bytes): 18 fields of magnitude at most 2^53 written in full
#: (sign, 17 significant digits, point, exponent: 25 characters) take 450 with their
#: spaces; 4096 leaves room for aligned columns and header notes (the longest line of the
#: archive's traces in ../shared/data has 162). A longer line is refused as it is read.
MAX_LINE = 4096
_BLOCK = 1 << 20
_GZIP_MAGIC = b"\x1f\x8b"


class SwfHeaderWarning(LpschedWarning):
    """A header key that lpsched reads (:data:`USED_KEYS`) is given twice with different
    values: the first is kept, the message names the file, the lines and the values."""


@dataclass(frozen=True)
class SwfTrace:
    """An SWF trace as read: every field of every job, the header and the accounting.

    ``columns[name]`` holds the 18 fields (float arrays, ``-1`` = unknown), ``header`` the
    ``Key: value`` entries (``header_lines``: the line of each), ``comments`` the raw
    comment lines, ``path`` the source; ``lines`` holds each job's line number. Lenient
    reading (module doc) fills ``skipped_lines`` (sorted), ``skip_reasons`` (count per
    reason) and ``rounded`` (fractional processor counts rounded up, per field);
    ``skipped`` counts the lines skipped."""

    columns: dict[str, np.ndarray]
    header: dict[str, str]
    comments: list[str]
    path: str = ""
    skipped: int = 0
    skipped_lines: tuple[int, ...] = ()
    skip_reasons: dict[str, int] = field(default_factory=dict)
    rounded: dict[str, int] = field(default_factory=dict)
    header_lines: dict[str, int] = field(default_factory=dict)
    lines: np.ndarray | None = None

    @property
    def jobs(self) -> int:
        """Number of job lines read (the length of every column).

        Returns
        -------
        int
            The job lines kept (lines skipped by lenient reading are not counted).
        """
        return int(self.columns["job"].size)

    @property
    def records(self) -> int:
        """Job lines read: the jobs kept plus the lines skipped.

        Returns
        -------
        int
            Every job line of the file, kept or skipped (``jobs + skipped``).
        """
        return self.jobs + self.skipped

    def header_int(self, *keys: str) -> int | None:
        """The first of ``keys`` whose header value starts with a positive whole number
        (``-1``, unknown, and anything else are passed over).

        Parameters
        ----------
        *keys : str
            Header keys to try in order, e.g. ``"MaxProcs", "MaxNodes"``.

        Returns
        -------
        int or None
            The first positive whole value found, else ``None``.
        """
        for key in keys:
            value = _header_number(self.header.get(key, ""))
            if value is not None and value >= 1 and value == math.floor(value):
                return int(value)
        return None

    @property
    def max_procs(self) -> int | None:
        """``MaxProcs`` (or ``MaxNodes``) from the header.

        Returns
        -------
        int or None
            The machine's processors as the header declares them; ``None`` when neither key
            holds a positive whole number.
        """
        return self.header_int(*MACHINE_KEYS)


def read_swf(path: str | Path, lenient: bool = False) -> SwfTrace:
    """Parse and check an SWF file (see module doc).

    The file is read as a stream of blocks (:data:`_BLOCK` bytes, once decompressed); each
    block's job lines are parsed at once and the blocks go into one ``(18, n)`` array whose
    rows are the columns (no copy per column): peak memory is about the columns plus one
    block, not the file's lines and two copies of the values.

    Parameters
    ----------
    path : str or Path
        An SWF trace, ``.swf`` or ``.swf.gz`` (gzip-compressed exactly when so named).
    lenient : bool
        Skip the job lines that break a rule (recorded in ``skipped_lines`` and
        ``skip_reasons``) and round fractional processor counts up (``rounded``), instead
        of raising :class:`~lpsched.errors.SwfParseError` on the first one.

    Returns
    -------
    SwfTrace
        Every field of every job kept (``columns``, float arrays, ``-1`` for unknown), the
        header entries and comment lines, and the accounting of what was skipped.

    Notes
    -----
    The streaming read is decision 376, the one-pass split of a block of job lines decision
    440, the longest line (:data:`MAX_LINE`) decision 289.
    """
    p = Path(path)
    header: dict[str, str] = {}
    header_lines: dict[str, int] = {}
    comments: list[str] = []
    parts: list[np.ndarray] = []
    line_parts: list[np.ndarray] = []
    skipped: list[tuple[int, str]] = []
    error: SwfParseError | None = None  # the first bad job line (raised after the header)
    number = 0
    repeats: list[tuple[str, str, int]] = []
    for lines in _read_blocks(p):
        data, numbers = _split_block(lines, number, header, header_lines, comments, repeats)
        number += len(lines)
        if error is None and data:
            try:
                values, kept, dropped = _parse_rows(data, numbers, str(p), lenient)
            except SwfParseError as exc:
                error = exc
                continue
            parts.append(values)
            line_parts.append(kept)
            skipped += dropped
    if not number:
        raise ParseError(str(p), "empty file (once decompressed): an SWF trace has one "
                         "job per line")
    if not parts and not comments and error is None:
        raise ParseError(str(p), "empty file: an SWF trace has one job per line")
    _check_header(header, header_lines, str(p))
    _warn_repeats(header, header_lines, repeats, str(p))
    if error is not None:
        raise error
    total = sum(part.shape[0] for part in parts)
    table = np.empty((len(FIELDS), total))  # row i: field i (filled block by block)
    at = 0
    while parts:
        part = parts.pop(0)
        table[:, at:at + part.shape[0]] = part.T
        at += part.shape[0]
    numbers_a = np.concatenate(line_parts) if line_parts else np.zeros(0, np.int64)
    values, numbers_a, more, rounded = _check_values(table.T, numbers_a, str(p), lenient)
    skipped = sorted(skipped + more)
    rows = values.T if values.T.flags.c_contiguous else np.ascontiguousarray(values.T)
    columns = {name: rows[i] for i, name in enumerate(FIELDS)}
    return SwfTrace(columns, header, comments, str(p), len(skipped),
                    tuple(line for line, _ in skipped),
                    dict(Counter(reason for _, reason in skipped)), rounded, header_lines,
                    numbers_a)


def _read_blocks(p: Path) -> Iterator[list[str]]:
    """The file's lines (without their ``\\n``), block by block: read and gzip-decompressed
    as a stream of :data:`_BLOCK` bytes, never rewound (the file may be a pipe:
    :mod:`lpsched.core.inputs`), decoded as UTF-8 with the bytes that are not kept as
    surrogates (``_parse_line`` names them). A line longer than :data:`MAX_LINE` is refused
    as soon as that many bytes of it are read, so a damaged or hostile file (one line of
    512 MiB once inflated) never sits in memory whole."""
    head = peek(p, 2)
    if not head:
        raise ParseError(str(p), "empty file: an SWF trace has one job per line")
    packed = head == _GZIP_MAGIC
    if not is_stream(p):  # a stream's name (/dev/fd/63, /dev/stdin) says nothing
        named = p.suffix.lower() == ".gz"
        if named and not packed:
            raise ParseError(str(p), "not gzip-compressed although named .gz: compress it "
                             "or remove .gz from its name")
        if packed and not named:
            raise ParseError(str(p), "gzip-compressed but not named .gz: add .gz to its "
                             "name")
    with open_input(p) as fh:
        stream: Any = gzip.GzipFile(fileobj=fh, mode="rb") if packed else fh
        rest = b""
        first = True
        count = 0  # lines yielded so far
        while True:
            try:
                chunk = stream.read(_BLOCK)
            except EOFError:
                raise ParseError(str(p), "truncated gzip data: the compressed stream ends "
                                 "early (an incomplete copy?)") from None
            except (OSError, zlib.error) as exc:
                if not packed:
                    raise ParseError(str(p), f"cannot read file: {exc}") from None
                raise ParseError(str(p), f"corrupt gzip data ({exc})") from None
            if not chunk:
                break
            block = rest + chunk
            cut = block.rfind(b"\n")
            if cut < 0:
                rest = block
            else:
                rest = block[cut + 1:]
                text = block[:cut].decode("utf-8-sig" if first else "utf-8",
                                          errors="surrogateescape")
                first = False
                part = text.split("\n")
                longest = max(map(len, part))
                if longest > MAX_LINE:
                    at = next(i for i, line in enumerate(part) if len(line) > MAX_LINE)
                    _too_long(p, count + at + 1)
                count += len(part)
                yield part
            if len(rest) > MAX_LINE:
                _too_long(p, count + 1)
        if rest:
            yield [rest.decode("utf-8-sig" if first else "utf-8", errors="surrogateescape")]


def _too_long(p: Path, line: int) -> None:
    raise SwfParseError(str(p), f"line longer than {MAX_LINE:,} bytes: no SWF line is "
                        f"(18 fields of magnitude at most 2^53, written in full, take at "
                        f"most {18 * 25:,}); not an SWF trace, or a damaged one", line=line)


def _split_block(lines: list[str], before: int, header: dict[str, str],
                 header_lines: dict[str, int], comments: list[str],
                 repeats: list[tuple[str, str, int]],
                 ) -> tuple[list[str], list[int]]:
    """The job lines of one block and their numbers (the block starts after line
    ``before``); its header entries (the first of each key) and comment lines go into
    ``header``, ``header_lines`` and ``comments``, and the later entries of a key of
    :data:`USED_KEYS` already seen into ``repeats`` as ``(key, value, line)``."""
    if not any(map(str.__contains__, lines, repeat(";"))):  # no comment line: C-level
        stripped = list(map(str.strip, lines))
        if all(stripped):  # and no blank line: every line is a job line
            return stripped, list(range(before + 1, before + 1 + len(lines)))
    data: list[str] = []
    numbers: list[int] = []
    for number, line in enumerate(lines, start=before + 1):
        text_ = line.strip()
        if not text_:
            continue
        if text_[0] != ";":
            data.append(text_)
            numbers.append(number)
            continue
        if not text_.isascii():  # bytes that are not UTF-8 become U+FFFD in comments
            text_ = text_.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        comments.append(text_)
        key, colon, value = text_[1:].strip().partition(":")
        key = key.strip()
        if colon and key and " " not in key:
            if key not in header:
                header[key], header_lines[key] = value.strip(), number
            elif key in USED_KEYS:
                repeats.append((key, value.strip(), number))
    return data, numbers


def _same_value(key: str, a: str, b: str) -> bool:
    """Whether two values of the header key ``key`` say the same (``8`` and ``8.0`` do, for
    the numeric keys)."""
    if a == b:
        return True
    if key == "TimeZoneString":
        return a.split()[:1] == b.split()[:1]
    x, y = _header_number(a), _header_number(b)
    return x is not None and x == y


def _warn_repeats(header: dict[str, str], lines: dict[str, int],
                  repeats: list[tuple[str, str, int]], path: str) -> None:
    """One :class:`SwfHeaderWarning` per key of :data:`USED_KEYS` given again with another
    value (module doc): the file, the lines and their values, the value kept (the first)."""
    for key in USED_KEYS:
        others = [(value, line) for k, value, line in repeats
                  if k == key and not _same_value(key, header[key], value)]
        if not others:
            continue
        shown = ", ".join(f"line {line}: {value!r}" for value, line in others[:3])
        more = f" and {len(others) - 3} more" if len(others) > 3 else ""
        warnings.warn(f"{path}: header {key} given again with another value ({shown}{more}); "
                      f"the first, {header[key]!r} at line {lines[key]}, is kept",
                      SwfHeaderWarning, stacklevel=4)


def _header_number(value: str) -> float | None:
    """The number that starts a header value (``None``: not a number)."""
    parts = value.split()
    if not parts or not parts[0].isascii() or "_" in parts[0]:
        return None
    try:
        return float(parts[0])
    except ValueError:
        return None


def _check_header(header: dict[str, str], lines: dict[str, int], path: str) -> None:
    """``MaxProcs`` / ``MaxNodes``: ``-1`` or a whole number in ``[1, MAX_PROCESSORS]``."""
    for key in MACHINE_KEYS:
        if key not in header:
            continue
        value = _header_number(header[key])
        problem = None
        if value is None:
            problem = "not a number"
        elif not math.isfinite(value):
            problem = "not a finite number"
        elif value == -1:
            continue  # unknown
        elif value != math.floor(value):
            problem = "not a whole number of processors"
        elif value < 1:
            problem = "a machine has at least 1 processor (-1: unknown)"
        elif value > MAX_PROCESSORS:
            problem = (f"more than {MAX_PROCESSORS:,} processors, the largest machine "
                       "lpsched simulates")
        if problem:
            raise SwfParseError(path, f"header {key} = {header[key]!r}: {problem}",
                                line=lines[key])


def _parse_rows(data: list[str], numbers: list[int], path: str, lenient: bool,
                ) -> tuple[np.ndarray, np.ndarray, list[tuple[int, str]]]:
    """The job lines as an ``(n, 18)`` array with their line numbers, and the lines skipped
    (lenient) as ``(line, reason)``: the compiled parser (:mod:`lpsched.core._swf_c`, the
    same values bit for bit, decision 670) when built and it handles every line, else one
    ``loadtxt`` call when every line is well formed, else line by line
    (``LPSCHED_PURE_PYTHON=1`` skips the compiled parser)."""
    if not data:
        return np.zeros((0, len(FIELDS))), np.zeros(0, np.int64), []
    if compiled(_swf_c):
        fast = _swf_c.parse_rows(data)  # None: a line it leaves to the reference below
        if fast is not None:
            return fast, np.array(numbers, np.int64), []
    joined = "\n".join(data)
    if joined.isascii() and "_" not in joined:
        del joined  # the lines go to loadtxt as a list: no text copy (4 bytes a character)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                values = np.loadtxt(data, dtype=float, comments=None, ndmin=2)
        except ValueError:
            pass
        else:
            if values.shape == (len(data), len(FIELDS)):
                return values, np.array(numbers, np.int64), []
    rows: list[list[float]] = []
    kept: list[int] = []
    skipped: list[tuple[int, str]] = []
    for text, number in zip(data, numbers, strict=True):
        values_, problem, reason = _parse_line(text)
        if values_ is None:
            if not lenient:
                raise SwfParseError(path, problem, line=number)
            skipped.append((number, reason))
            continue
        rows.append(values_)
        kept.append(number)
    return (np.array(rows, dtype=float).reshape(-1, len(FIELDS)),
            np.array(kept, np.int64), skipped)


def _parse_line(text: str) -> tuple[list[float] | None, str, str]:
    """A job line's 18 values, or ``None`` with the problem (naming the field) and the
    reason counted when the line is skipped."""
    if not text.isascii():
        bad = next((i for i, ch in enumerate(text) if "\udc80" <= ch <= "\udcff"), None)
        if bad is not None:
            before = text[:bad]
            i = len(before.split()) + (not before or before[-1].isspace())
            where = f"field {i} ({FIELDS[i - 1]})" if i <= len(FIELDS) else "the line"
            return None, (f"{where}: not UTF-8 text (byte 0x{ord(text[bad]) - 0xDC00:02x} "
                          f"at column {bad + 1})"), "not UTF-8 text"
    parts = text.split()
    if len(parts) != len(FIELDS):
        return None, f"expected {len(FIELDS)} fields, found {len(parts)}", \
            "wrong number of fields"
    values = []
    for i, token in enumerate(parts):
        try:
            if not token.isascii() or "_" in token:
                raise ValueError(token)
            values.append(float(token))
        except ValueError:
            return None, f"field {i + 1} ({FIELDS[i]}) = {token!r}: not a number", \
                "a field is not a number"
    return values, "", ""


def _check_values(values: np.ndarray, lines: np.ndarray, path: str, lenient: bool,
                  ) -> tuple[np.ndarray, np.ndarray, list[tuple[int, str]], dict[str, int]]:
    """The rules on whole columns (module doc). Default: the first line breaking one is an
    error. Lenient: those lines are skipped (returned as ``(line, reason)``) and fractional
    processor counts rounded up (counted per field)."""
    finite = np.isfinite(values)
    checks = _value_checks(values, finite)
    ids = values[:, 0]
    valid_id = ~(checks[0][0] | checks[1][0] | checks[2][0])
    repeated = np.zeros(ids.size, bool)
    first_of = np.zeros(ids.size, np.int64)
    if valid_id.any():
        rows = np.flatnonzero(valid_id)
        _, first, inverse = np.unique(ids[rows], return_index=True, return_inverse=True)
        first_of[rows] = rows[first[inverse.reshape(-1)]]
        repeated[rows] = first_of[rows] != rows
    checks.append((repeated, lambda i: f"field 1 (job) = {_show(ids[i])}: job number "
                   f"repeated (first at line {lines[first_of[i]]})", "repeated job number"))
    if not lenient:
        bad = np.zeros(ids.size, bool)
        for mask, _, _ in checks:
            bad |= mask
        if bad.any():
            i = int(np.argmax(bad))
            message = next(say(i) for mask, say, _ in checks if mask[i])
            raise SwfParseError(path, message, line=int(lines[i]))
        return values, lines, [], {}
    skip = np.zeros(ids.size, bool)
    skipped: list[tuple[int, str]] = []
    for mask, _, reason in checks[:3] + checks[4:]:
        new = mask & ~skip
        skipped += [(int(line), reason) for line in lines[new]]
        skip |= new
    keep = ~skip
    values, lines = values[keep], lines[keep]
    rounded: dict[str, int] = {}
    for name in PROCESSOR_FIELDS:
        col = values[:, FIELDS.index(name)]
        frac = col != np.floor(col)
        if frac.any():
            rounded[name] = int(frac.sum())
            col[frac] = np.ceil(col[frac])
    return values, lines, skipped, rounded


def _show(value: Any) -> str:
    """A field's value as written: ``2``, ``2.5``, ``1e+30``, ``nan``."""
    v = float(value)
    return str(int(v)) if math.isfinite(v) and v == int(v) and abs(v) < 1e16 else repr(v)


def _value_checks(values: np.ndarray, finite: np.ndarray) -> list[tuple[Any, Any, str]]:
    """``(rows breaking the rule, message for row i, reason)``, in the order reported: not
    finite, out of range, job number, processor counts (the repeated ids come next)."""
    big = finite & ((values > FIELD_LIMIT) | (values < -FIELD_LIMIT))
    ids = values[:, 0]
    bad_id = finite[:, 0] & ~big[:, 0] & ((ids < 0) | (ids != np.floor(ids)))
    cols = [FIELDS.index(name) for name in PROCESSOR_FIELDS]
    counts = values[:, cols]
    frac = finite[:, cols] & ~big[:, cols] & (counts != np.floor(counts))

    def cell(mask: np.ndarray, i: int, columns: list[int] | None = None) -> str:
        j = int(np.argmax(mask[i]))
        col = columns[j] if columns is not None else j
        return f"field {col + 1} ({FIELDS[col]}) = {_show(values[i, col])}"

    return [
        ((~finite).any(axis=1),
         lambda i: f"{cell(~finite, i)}: not a finite number", "a field is not finite"),
        (big.any(axis=1),
         lambda i: f"{cell(big, i)}: out of range (magnitude above 2^53)",
         "a field is out of range"),
        (bad_id, lambda i: f"field 1 (job) = {_show(ids[i])}: a job number must be a whole "
         "number >= 0", "job number not a whole number >= 0"),
        (frac.any(axis=1), lambda i: f"{cell(frac, i, cols)}: a processor count must be a "
         "whole number (--lenient rounds it up)", "fractional processor count"),
    ]


def write_swf(trace: SwfTrace, path: str | Path | IO[str]) -> None:
    """Write ``trace`` as an SWF file (gzip when named ``.gz``) or to a text stream.

    The comment lines come first, then one line per job; whole values are written as
    integers, others as the shortest decimal that reads back exactly (column by column).

    Parameters
    ----------
    trace : SwfTrace
        The trace to write (its comment lines and its 18 columns).
    path : str, Path or text stream
        A file name (``.gz``: gzip-compressed; replaced if it exists) or an open text stream.
    """
    if not isinstance(path, (str, Path)):
        _write_lines(trace, path)
        return
    p = Path(path)
    opener: Any = gzip.open if p.suffix.lower() == ".gz" else open
    with opener(p, "wt", encoding="utf-8") as fh:
        _write_lines(trace, fh)


def _write_lines(trace: SwfTrace, fh: IO[str]) -> None:
    """The lines of :func:`write_swf`, in chunks of 32,768 jobs."""
    for line in trace.comments:
        fh.write(line + "\n")
    n = trace.jobs
    for first in range(0, n, 1 << 15):
        part = slice(first, min(first + (1 << 15), n))
        columns = []
        for name in FIELDS:
            col = trace.columns[name][part]
            whole = (col == np.trunc(col)) & (np.abs(col) < 1e16)
            columns.append(col.astype(np.int64).tolist() if whole.all() else
                           [str(int(v)) if w else repr(v)
                            for v, w in zip(col.tolist(), whole.tolist(), strict=True)])
        fh.write("".join([" ".join(map(str, row)) + "\n" for row in zip(*columns, strict=True)]))


@dataclass(frozen=True)
class Workload:
    """Rigid jobs ready for simulation, with the accounting of the records they come from.

    ``submit`` (s, shifted so the first is 0 unless ``shift=False``), ``run`` (actual run
    time, s), ``size`` (processors), ``estimate`` (what backfilling believes, s), ``job``
    (SWF job numbers); ``dropped`` counts removed jobs per reason, ``fallbacks`` the jobs
    whose value came from a fallback field. From a trace also: ``records`` (job lines read:
    ``jobs + sum(dropped)`` until a caller cuts the jobs), ``skipped_lines`` (lines skipped
    by lenient reading, which ``dropped`` counts too, ``skip_reasons`` their reasons) and
    ``rounded`` (processor counts rounded up, per field)."""

    job: np.ndarray
    submit: np.ndarray
    run: np.ndarray
    size: np.ndarray
    estimate: np.ndarray
    processors: int | None
    dropped: dict[str, int] = field(default_factory=dict)
    fallbacks: dict[str, int] = field(default_factory=dict)
    source: str = ""
    records: int | None = None
    skipped_lines: tuple[int, ...] = ()
    rounded: dict[str, int] = field(default_factory=dict)
    skip_reasons: dict[str, int] = field(default_factory=dict)

    @property
    def jobs(self) -> int:
        """Number of jobs kept for simulation (the length of every per-job array).

        Returns
        -------
        int
            The jobs kept for simulation.
        """
        return int(self.job.size)

    def report(self, first: int = 10) -> dict[str, Any]:
        """Return the accounting of the jobs kept and dropped, as the CLI prints it.

        ``records = jobs + sum(dropped)``, the first ``first`` skipped lines, the rounded
        counts and the fallbacks.

        Parameters
        ----------
        first : int
            How many skipped line numbers to list (default 10).

        Returns
        -------
        dict
            ``records``, ``jobs``, ``dropped`` (reason -> count), ``skipped_lines`` (``count``,
            ``first``, ``reasons``), ``rounded``, ``fallbacks``, ``processors``, ``source``: what
            ``lpsched swf-info`` and ``lpsched batch --json`` print.
        """
        records = self.records if self.records is not None else \
            self.jobs + sum(self.dropped.values())
        return {"records": records, "jobs": self.jobs, "dropped": dict(self.dropped),
                "skipped_lines": {"count": len(self.skipped_lines),
                                  "first": list(self.skipped_lines[:first]),
                                  "reasons": dict(self.skip_reasons)},
                "rounded": dict(self.rounded), "fallbacks": dict(self.fallbacks),
                "processors": self.processors, "source": self.source}

    def require_jobs(self) -> Workload:
        """``self`` when it has a job; otherwise :class:`~lpsched.errors.ParseError` naming
        the source and saying why each record was dropped (in Batsim's terms when the
        source is a Batsim workload, ``.json``).

        Returns
        -------
        Workload
            ``self``, unchanged (raises :class:`~lpsched.errors.ParseError` when empty).
        """
        if self.jobs:
            return self
        reasons = "; ".join(f"{count} {why}" for why, count in sorted(
            self.dropped.items(), key=lambda item: -item[1]))
        records = self.records if self.records is not None else sum(self.dropped.values())
        if self.source.lower().endswith(".json"):  # a Batsim workload (lpsched.batch.batsim)
            message = (f"no job kept: all {records} jobs of the workload were dropped "
                       f"({reasons})" if records else "the workload has no jobs ('jobs' is "
                       "an empty list)")
        else:
            message = (f"no job kept: all {records} job lines were dropped ({reasons})"
                       if records else "no job in the trace (only header and comment lines)")
        raise ParseError(self.source or "workload", message)


def random_window(work: Workload, length: float, seed: int) -> Workload:
    """Return the jobs submitted in a random window of ``length`` seconds.

    Seed 000 ch. 3 §3.5.1 (spec reading A3.1): the window is ``[t, t + length]``, ``t``
    drawn uniformly (seeded) in ``[0, last submission − length]`` (from 0 if the trace is
    shorter), submissions shifted to start at 0.

    Parameters
    ----------
    work : Workload
        The whole trace's jobs.
    length : float
        The window's length (s), > 0.
    seed : int
        Seed of the window's start.

    Returns
    -------
    Workload
        The jobs submitted in the window, in order, submissions shifted to start at 0.
    """
    if not length > 0:
        raise InvalidInstanceError("length", length, "the window must be longer than 0")
    last = float(work.submit.max()) if work.jobs else 0.0
    t = float(np.random.default_rng(seed).uniform(0.0, max(0.0, last - length)))
    keep = np.flatnonzero((work.submit >= t) & (work.submit <= t + length))
    sub = work.submit[keep]
    return replace(work, job=work.job[keep], submit=sub - (sub.min() if sub.size else 0.0),
                   run=work.run[keep], size=work.size[keep], estimate=work.estimate[keep])


#: named job selections by the SWF status field (field 11): 1 completed, 0 failed,
#: 5 cancelled, 2-4 the pieces of a checkpointed job, -1 unknown
STATUS_NAMES: dict[str, frozenset[int]] = {
    "completed": frozenset({1}), "failed": frozenset({0}), "cancelled": frozenset({5})}


def parse_status(text: str | Iterable[int] | None) -> frozenset[int] | None:
    """Parse a job selection by SWF status (field 11) into the set of statuses kept.

    ``None`` or ``"all"`` keeps every job (returns ``None``); a name of
    :data:`STATUS_NAMES`, a comma list of names and whole numbers (``"completed,0"``) or an
    iterable of numbers gives the set of statuses kept.

    Parameters
    ----------
    text : str, iterable of int, or None
        ``"all"``, a name of :data:`STATUS_NAMES` (``completed``, ``failed``,
        ``cancelled``), a comma list of names and numbers (-1 to 9), or status numbers.

    Returns
    -------
    frozenset of int or None
        The SWF statuses (field 11) kept; ``None``: every job.

    Examples
    --------
    >>> sorted(parse_status("completed,5"))
    [1, 5]
    >>> parse_status("all") is None
    True
    """
    if text is None:
        return None
    if not isinstance(text, str):
        return frozenset(int(v) for v in text)
    if text.strip().lower() == "all":
        return None
    kept: set[int] = set()
    for part in (p.strip().lower() for p in text.split(",")):
        if part in STATUS_NAMES:
            kept |= STATUS_NAMES[part]
        elif part.lstrip("-").isdigit() and -1 <= int(part) <= 9:
            kept.add(int(part))
        else:
            raise InvalidInstanceError("status", text, "must be 'all', or a comma list of "
                                       f"{', '.join(STATUS_NAMES)} and SWF status numbers "
                                       "(-1 to 9)")
    return frozenset(kept)


def status_mask(trace: SwfTrace, status: str | Iterable[int] | None
                ) -> tuple[np.ndarray, dict[str, int]]:
    """Select the jobs of ``trace`` by status (field 11) and count the others per reason.

    ``status`` is read by :func:`parse_status`; the counts (``{"status 0 not selected":
    12}``) are for the caller's ``dropped`` accounting.

    Parameters
    ----------
    trace : SwfTrace
        The trace read by :func:`read_swf`.
    status : str, iterable of int, or None
        As :func:`parse_status`.

    Returns
    -------
    tuple of (numpy.ndarray, dict)
        A boolean mask over the trace's jobs (kept), and the jobs not kept per status
        (``{"status 0 not selected": 12}``).
    """
    kept = parse_status(status)
    column = trace.columns["status"]
    if kept is None:
        return np.ones(column.size, bool), {}
    mask = np.isin(column, np.fromiter(kept, float, len(kept)))
    values, counts = np.unique(column[~mask], return_counts=True)
    return mask, {f"status {int(v)} not selected": int(n)
                  for v, n in zip(values, counts, strict=True)}


#: the reason counted for the jobs ``to_workload(..., drop_zero_run=True)`` drops
ZERO_RUN = "run time 0 (field 4 = 0)"


def to_workload(trace: SwfTrace, size: str = "requested", estimate: str = "requested",
                processors: int | None = None, shift: bool = True,
                status: str | Iterable[int] | None = None,
                drop_zero_run: bool = False) -> Workload:
    """Turn a trace into the rigid jobs a simulator runs, and count every job dropped.

    The conventions:

    * ``size="requested"``: field 8, falling back to field 5 (allocated) when unknown;
      ``"allocated"``: field 5, falling back to field 8;
    * ``estimate="requested"``: field 9, falling back to the run time when unknown;
      ``"runtime"``: the actual run time (a perfect estimate);
    * dropped (and counted): the lines lenient reading skipped, jobs with no run time
      (field 4 < 0), with no processors, and those wider than the machine (``processors``,
      at most :data:`MAX_PROCESSORS`; default the header's ``MaxProcs``; with neither, the
      jobs wider than :data:`MAX_PROCESSORS`), so ``jobs + sum(dropped) = trace.records``;
    * ``status`` (:func:`parse_status`: ``"completed"``, ``"all"``, ``{1, 0}``; default
      every job): the jobs of another status are dropped, counted per status;
    * ``drop_zero_run``: the jobs whose run time is 0 are dropped too (counted as
      :data:`ZERO_RUN`); with ``status="completed"`` this is the selection whose counts are
      seed 000 Table 3.1's "# tasks" of all seven traces [L1835-1841];
    * order: submission time, then file order; submission times shifted so the first is 0.

    Parameters
    ----------
    trace : SwfTrace
        The trace read by :func:`read_swf`.
    size : {"requested", "allocated"}
        Which processor field is the job's size (the other is its fallback).
    estimate : {"requested", "runtime"}
        The requested time (field 9, falling back to the run time) or the run time.
    processors : int, optional
        The machine; default the header's ``MaxProcs`` (else ``MaxNodes``).
    shift : bool
        Shift the submissions so the first is 0 (default).
    status : str, iterable of int, or None
        The statuses kept (:func:`parse_status`; default every job).
    drop_zero_run : bool
        Drop the jobs of run time 0 (the CLI's ``--zero-run drop``).

    Returns
    -------
    Workload
        The jobs kept, in submission order, with the accounting of every record.

    Notes
    -----
    The conventions are decision 44 (sizes, estimates, what is dropped) and 64 (the
    accounting). The selection of seed 000 ch. 3 (completed jobs with a positive run time)
    is decision 285; ``drop_zero_run`` in the batch reproductions is decision 380.
    """
    if size not in ("requested", "allocated"):
        raise InvalidInstanceError("size", size, "must be 'requested' or 'allocated'")
    if estimate not in ("requested", "runtime"):
        raise InvalidInstanceError("estimate", estimate, "must be 'requested' or 'runtime'")
    if processors is not None:
        check_processors(processors)
    c = trace.columns
    first, second = (("requested_procs", "allocated") if size == "requested"
                     else ("allocated", "requested_procs"))
    procs = c[first].copy()
    fallback_size = procs <= 0
    procs[fallback_size] = c[second][fallback_size]
    run = c["run"]
    if estimate == "requested":
        est = c["requested_time"].copy()
        fallback_est = est <= 0
        est[fallback_est] = run[fallback_est]
    else:
        est = run.copy()
        fallback_est = np.zeros(run.size, bool)
    machine = processors if processors is not None else trace.max_procs
    reasons: Counter[str] = Counter({SKIPPED: trace.skipped})
    keep, unselected = status_mask(trace, status)
    reasons.update(unselected)
    widest = machine if machine is not None else MAX_PROCESSORS
    for reason, bad in (
            ("no run time (field 4 < 0)", run < 0),
            (ZERO_RUN, (run == 0) if drop_zero_run else np.zeros(run.size, bool)),
            ("no processors (fields 8 and 5 unknown)", procs <= 0),
            ("no submit time (field 2 < 0)", c["submit"] < 0),
            (f"wider than the machine ({machine} processors)" if machine is not None else
             f"wider than {MAX_PROCESSORS:,} processors, the largest machine simulated",
             procs > widest)):
        new = bad & keep
        reasons[reason] += int(new.sum())
        keep &= ~bad
    order = np.flatnonzero(keep)
    order = order[np.lexsort((order, c["submit"][order]))]
    submit = c["submit"][order]
    if shift and submit.size:
        submit = submit - submit[0]
    return Workload(
        job=c["job"][order].astype(np.int64), submit=submit, run=run[order],
        size=procs[order].astype(np.int64), estimate=np.maximum(est[order], run[order] * 0),
        processors=machine, dropped={k: v for k, v in reasons.items() if v},
        fallbacks={"size": int((fallback_size & keep).sum()),
                   "estimate": int((fallback_est & keep).sum())},
        source=trace.path, records=trace.records, skipped_lines=trace.skipped_lines,
        rounded=dict(trace.rounded), skip_reasons=dict(trace.skip_reasons))


def check_processors(value: Any, what: str = "processors") -> int:
    """A machine size: a whole number from 1 to :data:`MAX_PROCESSORS` (the simulator keeps
    arrays per processor, so a larger claim would exhaust memory before any output).

    Parameters
    ----------
    value : int
        The machine size to check.
    what : str
        The parameter's name in the error (default ``processors``).

    Returns
    -------
    int
        ``value`` as a Python int.
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InvalidInstanceError(what, value, "must be a whole number >= 1")
    if value > MAX_PROCESSORS:
        raise InvalidInstanceError(what, value, f"more than {MAX_PROCESSORS:,} processors, "
                                   "the largest machine lpsched simulates")
    return int(value)
