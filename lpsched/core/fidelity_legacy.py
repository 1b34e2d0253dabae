"""Seed-vs-ours tables: one published figure per row, its verdict by a fixed rule.

Every ``lpsched reproduce ...`` run ends with one such table, printed and written to
``<out>/<experiment>_vs_seed.csv`` (docs/decisions.md, "Fidelity tables"). A row names the
figure, the seed line it is read from, the seed's value, ours, the tolerance and a verdict:

``match``
    ours is within the tolerance of the seed's value (inside the range, on the right side
    of the bound, equal to the label);
``close``
    ours is off by at most :data:`CLOSE_FACTOR` times the tolerance;
``differs: explained by decision N``
    farther off, and decision ``N`` of docs/decisions.md holds the evidence of why;
``differs``
    farther off, with no explanation yet;
``not measured: REASON``
    the run could not measure the figure (a trace missing from the data folder, a reduced
    run without the cell): never counted as a match.

A figure also carries its *role*: ``calibration`` (it chose a reading or a parameter, so
it is no evidence for that reading) or ``validation`` (it judges the reading), declared
before the figure is looked at (docs/decisions.md).

Nothing here computes a figure: each family's reproduction measures its values and builds
the rows with :func:`compare`; this module only applies the verdict rule and formats.

Examples
--------
>>> rows = [compare("T4 CBS3M", "003 L908", 1.163, 1.120, tolerance=0.05),
...         compare("forced cont.", "000 L2944", Bound("<", 2.0), 7.2,
...                 tolerance=0.5, unit="%", explained_by=251)]
>>> [r.verdict for r in rows]
['match', 'differs: explained by decision 251']
>>> print(FidelityTable("demo", rows).format())  # doctest: +NORMALIZE_WHITESPACE
figure        seed line  seed   ours   tolerance  verdict                             role
T4 CBS3M      003 L908   1.163  1.12   0.05       match                               validation
forced cont.  000 L2944  < 2 %  7.2 %  0.5 %      differs: explained by decision 251  validation
"""

from __future__ import annotations

import csv
import io
import math
import textwrap
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["CLOSE_FACTOR", "COLUMNS", "WIDTH", "Bound", "FidelityRow", "FidelityTable", "Range",
           "compare", "not_measured"]

WIDTH = 100
"""The widest line :meth:`FidelityTable.format` prints by default (a terminal's 100 columns)."""

#: the columns that wrap when a table is wider than asked, widest first
_WRAPPING = ("figure", "verdict", "seed_value", "ours", "tolerance")

CLOSE_FACTOR = 2.0
"""A value off by more than the tolerance but at most this many tolerances is ``close``."""

COLUMNS = ("figure", "seed_line", "seed_value", "ours", "tolerance", "verdict", "role",
           "note")
"""The CSV columns, in order."""

Role = Literal["validation", "calibration"]


@dataclass(frozen=True)
class Range:
    """A published range ``[lo, hi]`` (e.g. "5–30 %")."""

    lo: float
    hi: float

    def __post_init__(self) -> None:
        if not self.lo <= self.hi:
            raise ValueError(f"Range({self.lo}, {self.hi}): lo must be <= hi")

    def distance(self, value: float) -> float:
        """How far ``value`` lies outside the range (0 inside).

        Parameters
        ----------
        value : float
            Our measured value, in the unit of the range.

        Returns
        -------
        float
            ``lo - value`` below the range, ``value - hi`` above it, 0 inside (the ends
            included); :func:`compare` judges it against the tolerance.
        """
        return max(self.lo - value, value - self.hi, 0.0)

    def label(self, unit: str = "") -> str:
        """As the table shows it: ``5–30 %``.

        Parameters
        ----------
        unit : str
            Shown after the upper end ("%", "s"); ``""`` (the default) shows none.

        Returns
        -------
        str
            ``lo–hi`` with an en dash, each end up to 4 significant digits, then the unit.
        """
        return f"{_num(self.lo)}–{_num(self.hi)}{_unit(unit)}"


@dataclass(frozen=True)
class Bound:
    """A published inequality: ``Bound("<", 2.0)`` is "under 2" (``<`` and ``<=`` are read
    alike, as are ``>`` and ``>=``: a figure is a measurement, not a strict proof)."""

    op: Literal["<", "<=", ">", ">="]
    value: float

    def __post_init__(self) -> None:
        if self.op not in ("<", "<=", ">", ">="):
            raise ValueError(f"Bound op {self.op!r}: must be <, <=, > or >=")

    def distance(self, value: float) -> float:
        """How far ``value`` lies on the wrong side of the bound (0 on the right side).

        Parameters
        ----------
        value : float
            Our measured value, in the unit of the bound.

        Returns
        -------
        float
            ``value - bound`` above an upper bound (``<``, ``<=``), ``bound - value``
            below a lower one (``>``, ``>=``), 0 on the right side or on the bound itself.
        """
        if self.op in ("<", "<="):
            return max(value - self.value, 0.0)
        return max(self.value - value, 0.0)

    def label(self, unit: str = "") -> str:
        """As the table shows it: ``< 2 %``.

        Parameters
        ----------
        unit : str
            Shown after the value ("%", "s"); ``""`` (the default) shows none.

        Returns
        -------
        str
            The operator, a space, the value (up to 4 significant digits), then the unit.
        """
        return f"{self.op} {_num(self.value)}{_unit(unit)}"


SeedValue = float | int | str | Range | Bound


@dataclass(frozen=True)
class FidelityRow:
    """One published figure beside ours; values are kept as display strings (the CSV and
    the printed table show the same text) and, where numeric, as numbers in ``to_dict``."""

    figure: str
    seed_line: str
    seed_value: str
    ours: str
    tolerance: str
    verdict: str
    role: Role = "validation"
    note: str = ""
    numbers: dict[str, float | None] = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The row as JSON-ready data: the display columns, plus ``seed_number`` and
        ``ours_number`` when the values are numeric (``None`` otherwise).

        Returns
        -------
        dict
            The :data:`COLUMNS` as keys with their display strings, plus ``seed_number``
            and ``ours_number`` (float or ``None``; ``ours_number`` is also ``None`` on a
            ``not measured`` row).
        """
        out: dict[str, Any] = {c: getattr(self, c) for c in COLUMNS}
        out["seed_number"] = self.numbers.get("seed")
        out["ours_number"] = self.numbers.get("ours")
        return out


def _num(x: float) -> str:
    """A number as a table shows it: up to 4 significant digits, no trailing zeros."""
    if isinstance(x, bool) or not isinstance(x, int | float):
        return str(x)
    if isinstance(x, int) or (math.isfinite(x) and x == int(x) and abs(x) < 1e15):
        return str(int(x))
    return f"{x:.4g}"


def _unit(unit: str) -> str:
    return "" if not unit else (unit if unit == "%" else f" {unit}").replace("%", " %")


def _verdict(distance: float, tol: float, explained_by: int | None) -> str:
    if distance <= tol:
        return "match"
    if distance <= CLOSE_FACTOR * tol:
        return "close"
    return f"differs: explained by decision {explained_by}" if explained_by else "differs"


def compare(figure: str, seed_line: str, seed: SeedValue, ours: float | str | None, *,
            tolerance: float = 0.0, relative: bool = False, unit: str = "",
            explained_by: int | None = None, role: Role = "validation",
            note: str = "") -> FidelityRow:
    """One row: the seed's value beside ours, with the verdict of the module's rule.

    Parameters
    ----------
    figure : str
        What is compared ("Table 4 CBS3M-EDF-online avg").
    seed_line : str
        Where the seed states it ("003 L908", "002 B16").
    seed : float, str, Range or Bound
        The published value: a number, a label (an order, a set, a name: compared for
        equality after stripping spaces and case), a range or an inequality.
    ours : float, str or None
        Our measured value; ``None`` makes a ``not measured`` row (use
        :func:`not_measured` to give the reason).
    tolerance : float
        Largest difference that is still a ``match``: absolute, or relative to ``|seed|``
        (to the range's width for a :class:`Range`) when ``relative``. Unused for labels.
    relative : bool
        Read ``tolerance`` as a fraction.
    unit : str
        Shown after the numbers ("%", "s").
    explained_by : int, optional
        The decision that explains a difference; used only when the verdict is not
        ``match`` or ``close``.
    role : {"validation", "calibration"}
        Whether the figure judges a reading or chose it (then it is no evidence for it).
    note : str
        Free text (the reading used, the sample size).

    Returns
    -------
    FidelityRow
    """
    if role not in ("validation", "calibration"):
        raise ValueError(f"role {role!r}: must be 'validation' or 'calibration'")
    if tolerance < 0 or not math.isfinite(tolerance):
        raise ValueError(f"tolerance {tolerance}: must be finite and >= 0")
    if isinstance(seed, Range | Bound):
        seed_label = seed.label(unit)
        seed_number = None
        scale = (seed.hi - seed.lo if isinstance(seed, Range) else abs(seed.value))
    elif isinstance(seed, str):
        seed_label, seed_number, scale = seed, None, 0.0
    else:
        seed_label, seed_number, scale = _num(seed) + _unit(unit), float(seed), abs(seed)
    tol = tolerance * scale if relative else tolerance
    tol_label = (f"{_num(100 * tolerance)} % rel." if relative else _num(tol) + _unit(unit)
                 ) if not isinstance(seed, str) else "equal"
    if ours is None:
        return FidelityRow(figure, seed_line, seed_label, "", tol_label,
                           "not measured", role, note, {"seed": seed_number, "ours": None})
    if isinstance(seed, str) or isinstance(ours, str):
        if not isinstance(seed, str) or not isinstance(ours, str):
            raise TypeError(f"{figure}: a label compares only with a label "
                            f"(seed {seed!r}, ours {ours!r})")
        same = "".join(seed.split()).lower() == "".join(ours.split()).lower()
        verdict = "match" if same else _verdict(math.inf, 0.0, explained_by)
        return FidelityRow(figure, seed_line, seed_label, ours, tol_label, verdict, role,
                           note, {"seed": None, "ours": None})
    value = float(ours)
    if not math.isfinite(value):
        distance = math.inf
    elif isinstance(seed, Range | Bound):
        distance = seed.distance(value)
    else:
        distance = abs(value - float(seed))
    return FidelityRow(figure, seed_line, seed_label, _num(value) + _unit(unit), tol_label,
                       _verdict(distance, tol, explained_by), role, note,
                       {"seed": seed_number, "ours": value})


def not_measured(figure: str, seed_line: str, seed: SeedValue, reason: str, *,
                 unit: str = "", role: Role = "validation", tolerance: float | None = None,
                 relative: bool = False) -> FidelityRow:
    """A row for a figure this run could not measure, with the reason in the verdict.

    Parameters
    ----------
    figure, seed_line, seed, unit, role
        As for :func:`compare`; ``unit`` is shown after the seed's value.
    reason : str
        Why the figure is missing ("trace RICC not in ../shared/data"); the verdict reads
        ``not measured: REASON``.
    tolerance : float, optional
        The tolerance the figure would be judged with, shown in its column (as in
        :func:`compare`, relative when ``relative``); without it the column shows ``—``,
        never a tolerance of 0 the figure does not have.
    relative : bool
        Read ``tolerance`` as a fraction of the seed's value.

    Returns
    -------
    FidelityRow
        ``ours`` empty, the verdict ``not measured: REASON``.
    """
    row = compare(figure, seed_line, seed, None, unit=unit, role=role,
                  tolerance=tolerance or 0.0, relative=relative)
    tol = row.tolerance if tolerance is not None or isinstance(seed, str) else "—"
    return FidelityRow(row.figure, row.seed_line, row.seed_value, "", tol,
                       f"not measured: {reason}", role, row.note, row.numbers)


_INDENT = "  "


def _title(column: str) -> str:
    """A column's header: ``seed_value`` -> ``seed``, ``seed_line`` -> ``seed line``."""
    return column.replace("_value", "").replace("_", " ")


def _line_width(cells: list[list[str]]) -> int:
    """The width of the widest line when no cell wraps (two spaces between columns)."""
    return sum(max(len(line[i]) for line in cells) for i in range(len(cells[0]))
               ) + 2 * (len(cells[0]) - 1)


def _fit_widths(cells: list[list[str]], cols: list[str], width: int) -> list[int]:
    """Column widths for ``cells`` that fit ``width``: each column as wide as its widest
    cell, then the widest wrapping column narrowed one character at a time (never below
    its longest word) until the line, separators included, fits or nothing can narrow."""
    widths = [max(len(line[i]) for line in cells) for i in range(len(cols))]
    floor = [max((len(w) for line in cells for w in line[i].split()), default=0)
             for i in range(len(cols))]
    wrapping = [i for i, c in enumerate(cols) if c in _WRAPPING]
    while sum(widths) + 2 * (len(cols) - 1) > width:
        movable = [i for i in wrapping if widths[i] > floor[i]]
        if not movable:
            break
        widest = max(movable, key=lambda i: widths[i])
        widths[widest] -= 1
    return widths


def _aligned(cells: list[list[str]], notes: list[str], widths: list[int], width: int,
             indent: str) -> str:
    """``cells`` (the header first) as aligned lines, each cell wrapped in its width, each
    row's note under it; with an ``indent``, the rows' blocks are joined by a NUL so that
    the caller can put each row's label above its block."""
    blocks: list[list[str]] = []
    for i, line in enumerate(cells):
        wrapped = [textwrap.wrap(v, w, break_long_words=False) or [""]
                   for v, w in zip(line, widths, strict=True)]
        block = [indent + "  ".join((parts[k] if k < len(parts) else "").ljust(w)
                                    for parts, w in zip(wrapped, widths, strict=True)
                                    ).rstrip()
                 for k in range(max(len(parts) for parts in wrapped))]
        if i and notes[i - 1]:
            block += textwrap.wrap(notes[i - 1], width, initial_indent="    note: ",
                                   subsequent_indent="          ", break_long_words=False)
        blocks.append(block)
    return ("\x00" if indent else "\n").join("\n".join(b) for b in blocks)


@dataclass(frozen=True)
class FidelityTable:
    """The seed-vs-ours table of one experiment."""

    experiment: str
    rows: Sequence[FidelityRow]

    @property
    def filename(self) -> str:
        """``<experiment>_vs_seed.csv``, the file every reproduction writes."""
        return f"{self.experiment}_vs_seed.csv"

    def counts(self) -> dict[str, int]:
        """How many rows have each verdict kind: ``match``, ``close``, ``explained``
        (``differs: explained by decision N``), ``differs`` (no explanation yet) and
        ``not measured``.

        Returns
        -------
        dict of str to int
            The five kinds, in that order, each present (0 when no row has it); they sum
            to the number of rows.
        """
        kinds = Counter("explained" if r.verdict.startswith("differs: explained")
                        else r.verdict.split(":")[0] for r in self.rows)
        return {k: kinds.get(k, 0)
                for k in ("match", "close", "explained", "differs", "not measured")}

    def csv_text(self) -> str:
        """The table as CSV text, the columns of :data:`COLUMNS`.

        Returns
        -------
        str
            The header line (the names of :data:`COLUMNS`), then one line per row with
            its display strings, ``\\n``-terminated; the text
            ``lpsched.cli.common.report_fidelity`` writes to :attr:`filename`.
        """
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(COLUMNS)
        for r in self.rows:
            writer.writerow([getattr(r, c) for c in COLUMNS])
        return buf.getvalue()

    def format(self, columns: Iterable[str] = COLUMNS, width: int = WIDTH) -> str:
        """The table as aligned plain text (header first), for a terminal or a log.

        Parameters
        ----------
        columns : iterable of str
            Which columns, in order (names of :data:`COLUMNS`); by default all of them, as
            the CSV has them, so the printed table and the file say the same. The ``note``
            is printed under its row (``note: ...``), not as a column.
        width : int
            The widest line wanted (default :data:`WIDTH`). A table whose rows fit is one
            line per row; a wider one prints each figure's label whole on a line of its
            own, its other columns on the next line, indented, and wraps the values and
            the verdict inside their cells at spaces. A word is never cut, so a line may
            exceed ``width`` only when a single word does.

        Returns
        -------
        str
            The header, then the lines of each row, columns separated by two spaces.
        """
        cols = [c for c in columns if c != "note"]
        notes = [r.note if "note" in columns else "" for r in self.rows]
        cells = [[_title(c) for c in cols]] + [[getattr(r, c) for c in cols]
                                               for r in self.rows]
        if _line_width(cells) <= width or "figure" not in cols:
            return _aligned(cells, notes, _fit_widths(cells, cols, width), width, "")
        k = cols.index("figure")
        rest = [c for i, c in enumerate(cols) if i != k]
        cells = [[v for i, v in enumerate(line) if i != k] for line in cells]
        widths = _fit_widths(cells, rest, width - len(_INDENT))
        body = _aligned(cells, notes, widths, width, _INDENT)
        labels = [_title("figure")] + [r.figure for r in self.rows]
        blocks = body.split("\x00")
        return "\n".join(f"{label}\n{block}" for label, block in zip(labels, blocks,
                                                                      strict=True))

    def summary(self) -> str:
        """One line: ``ptg vs seed: match 5; close 2; differs, explained 2; differs,
        unexplained 1; not measured 0 (10 rows)``.

        Returns
        -------
        str
            ``<experiment> vs seed:`` then each kind of :meth:`counts` in its order as
            ``<kind> <count>`` (the word first, so that no count reads as a verb), then
            the number of rows.
        """
        words = {"explained": "differs, explained", "differs": "differs, unexplained"}
        return f"{self.experiment} vs seed: " + "; ".join(
            f"{words.get(k, k)} {n}" for k, n in self.counts().items()
        ) + f" ({len(self.rows)} rows)"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the experiment, the verdict counts and every row.

        Returns
        -------
        dict
            ``experiment`` (str), ``counts`` (:meth:`counts`) and ``rows`` (a list of
            :meth:`FidelityRow.to_dict`, in the table's order); what a ``reproduce --json``
            run prints under ``"vs_seed"``.
        """
        return {"experiment": self.experiment, "counts": self.counts(),
                "rows": [r.to_dict() for r in self.rows]}
