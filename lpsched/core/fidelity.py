"""Seed-vs-ours tables: one published result per row, judged by one rule for every family.

Every ``lpsched reproduce ...`` run ends with one such table, printed and written to
``<out>/<experiment>_vs_seed.csv``, and ``lpsched report`` lays the tables of a seed out in
the seed's order. A row names the published result (its manifest id ``ref``, its
``source`` — ``Table 4``, ``Figure 5.9`` or ``text`` — and its seed line), the seed's
value, ours, the tolerance it is judged with, the verdict and its role.

The verdict rule
----------------
A **value** (a number the seed prints) matches when ours is within the tolerance;
``close`` within :data:`CLOSE_FACTOR` tolerances; else it differs. The tolerance is the one
declared for the row; at the seed's size it widens to the row's own noise (:data:`NOISE_Z`
standard errors) when that is larger, never at a reduced size.

A **direction** (``Bound``: "< 1", "better than", "outperforms") matches only when ours is
on the seed's side by more than its noise (:data:`NOISE_Z` standard errors, paired where the
instances pair); within the noise it is ``undetermined``; on the wrong side, beyond the
noise, it differs. No tolerance: a direction has no slack. A row without a noise estimate
(one deterministic measurement, a whole trace) has a noise of 0.

A **range** (``Range``: "5–30 %") matches inside the range and differs outside it, with no
slack, except where the values ours can take (its ``grid``) have none inside the range:
then the grid's nearest values on either side match, and the row says so. A range the seed
states for several lines together is judged as stated: :func:`compare_all` requires every
line inside.

A **label** (an order, a name) matches when equal (spaces and case aside).

A row that **cannot fail** under the tool's own model reads ``holds by construction:
ASSUMPTION`` (``construction=``), naming the assumption that makes it so.

**Reduced runs.** A run smaller than the seed's (``size=Size(n, seed_n)``) never judges an
extreme or a tail count (a maximum, a minimum, a count over n instances: ``statistic=``),
and a row whose noise is wider than its tolerance (a direction: whose noise hides the
side) reads ``not measured: reduced run (n of N)``; so does a mean, median or share
(:data:`SAMPLED`) given no noise estimate (``noise=None``: one instance, or none
computed). A deterministic quantity (a setting, a count of the trace) is
``statistic="value"``. A row that holds by construction is judged as is at any size.

**Differences** name their kind: ``differs: cause measured (decision N)`` when a measured
mechanism, or an inconsistency inside the seed's own set-up, accounts for the gap
(``gap=Gap(N, measured=True)``); ``differs: not reproduced (decision N: K readings
tried)`` otherwise (``gap=Gap(N, readings=K)``, or no ``gap`` at all: ``differs: not
reproduced``).

**Roles.** A row is ``validation`` (it judges a reading) or ``calibration`` (it chose a
reading or a default by looking at results, so it is no evidence for it). Tallies count
validation rows only; calibration rows are counted apart.

Nothing here computes a figure: each family's reproduction measures its values and builds
the rows with :func:`compare`; this module applies the rule and formats.

Examples
--------
>>> rows = [compare("T4 CBS3M avg", "003 L908", 1.163, 1.120, tolerance=0.05,
...                 ref="003-T4", source="Table 4"),
...         compare("forced cont. makespan", "000 L2951", Bound("<", 2.0), 7.2, unit="%",
...                 noise=0.4, gap=Gap(251, measured=True), ref="000-L2951")]
>>> [r.verdict for r in rows]
['match', 'differs: cause measured (decision 251)']
"""

from __future__ import annotations

import csv
import io
import math
import textwrap
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["CLOSE_FACTOR", "COLUMNS", "EXTREMES", "KINDS", "NOISE_Z", "SAMPLED", "WIDTH", "Bound",
           "FidelityRow", "FidelityTable", "Gap", "Range", "Size", "compare", "compare_all",
           "kind_of", "mean_and_se", "not_measured", "paired_se"]

CLOSE_FACTOR = 2.0
"""A value off by more than its tolerance but at most this many tolerances is ``close``."""

NOISE_Z = 2.0
"""How many standard errors make a row's noise: beyond it a direction is decided (about a
95 % two-sided band for a mean)."""

SAMPLED = frozenset({"mean", "median", "share"})
"""Statistics of a sample of instances: on a reduced run without a noise estimate (one
instance, or none given) they are not judged."""

EXTREMES = frozenset({"max", "min", "count", "tail"})
"""Statistics judged only at the seed's own size: over fewer instances a maximum is lower,
a minimum higher and a tail count smaller by construction."""

WIDTH = 100
"""The widest line :meth:`FidelityTable.format` prints by default (a terminal's 100 columns)."""

COLUMNS = ("ref", "source", "figure", "seed_line", "seed_value", "ours", "tolerance",
           "verdict", "role", "note")
"""The CSV columns, in order."""

KINDS = ("match", "close", "holds by construction", "undetermined",
         "differs: cause measured", "differs: not reproduced", "not measured")
"""The verdict kinds, in the order tallies list them."""

Role = Literal["validation", "calibration"]
Statistic = Literal["mean", "value", "median", "share", "max", "min", "count", "tail"]

#: the columns that wrap when a table is wider than asked
_WRAPPING = ("figure", "verdict", "seed_value", "ours", "tolerance", "source")
_INDENT = "  "


@dataclass(frozen=True)
class Range:
    """A published range ``[lo, hi]`` (e.g. "5–30 %")."""

    lo: float
    hi: float

    def __post_init__(self) -> None:
        if not self.lo <= self.hi:
            raise ValueError(f"Range({self.lo}, {self.hi}): lo must be <= hi")

    def label(self, unit: str = "") -> str:
        """As the table shows it: ``5–30 %``.

        Parameters
        ----------
        unit : str
            Shown after the upper end ("%", "s").

        Returns
        -------
        str
            ``lo–hi`` with an en dash, each end up to 4 significant digits, then the unit.
        """
        return f"{_num(self.lo)}–{_num(self.hi)}{_unit(unit)}"


@dataclass(frozen=True)
class Bound:
    """A published direction: ``Bound("<", 1.0)`` is "under 1", "better than basic"
    (``<`` and ``<=`` read alike, as do ``>`` and ``>=``: a measurement, not a proof)."""

    op: Literal["<", "<=", ">", ">="]
    value: float

    def __post_init__(self) -> None:
        if self.op not in ("<", "<=", ">", ">="):
            raise ValueError(f"Bound op {self.op!r}: must be <, <=, > or >=")

    def margin(self, value: float) -> float:
        """How far ``value`` lies on the seed's side of the bound (negative: the wrong side).

        Parameters
        ----------
        value : float
            Our measured value, in the unit of the bound.

        Returns
        -------
        float
            ``bound - value`` for ``<``, ``value - bound`` for ``>``.
        """
        return self.value - value if self.op in ("<", "<=") else value - self.value

    def label(self, unit: str = "") -> str:
        """As the table shows it: ``< 2 %``.

        Parameters
        ----------
        unit : str
            Shown after the value ("%", "s").

        Returns
        -------
        str
            The operator, a space, the value (up to 4 significant digits), the unit.
        """
        return f"{self.op} {_num(self.value)}{_unit(unit)}"


@dataclass(frozen=True)
class Size:
    """How large a run is beside the seed's: ``n`` of the seed's ``seed_n`` units."""

    n: int
    seed_n: int
    unit: str = "instances"

    @property
    def reduced(self) -> bool:
        """Whether the run is smaller than the seed's."""
        return self.n < self.seed_n

    def label(self) -> str:
        """``12 of 1,000 instances``.

        Returns
        -------
        str
            The run's size, the seed's and the unit.
        """
        return f"{self.n:,} of {self.seed_n:,} {self.unit}"


@dataclass(frozen=True)
class Gap:
    """Why ours differs: the decision holding the evidence, and its kind.

    ``measured``: the decision measured the cause (a mechanism, or an inconsistency inside
    the seed's own set-up); else it tried ``readings`` readings of the text without
    bringing the seed's value back. ``evidence`` says it in two or three sentences (the
    report prints them under the row).
    """

    decision: int
    measured: bool = False
    readings: int = 0
    evidence: str = ""

    def verdict(self) -> str:
        """The ``differs`` verdict this gap gives.

        Returns
        -------
        str
            ``differs: cause measured (decision N)`` or ``differs: not reproduced
            (decision N: K readings tried)``.
        """
        if self.measured:
            return f"differs: cause measured (decision {self.decision})"
        tried = (f": {self.readings} reading{'s' if self.readings > 1 else ''} tried"
                 if self.readings else "")
        return f"differs: not reproduced (decision {self.decision}{tried})"


SeedValue = float | int | str | Range | Bound


@dataclass(frozen=True)
class FidelityRow:
    """One published result beside ours; values are kept as display strings (the CSV and the
    printed table show the same text) and, where numeric, as numbers (``numbers``)."""

    figure: str
    seed_line: str
    seed_value: str
    ours: str
    tolerance: str
    verdict: str
    role: Role = "validation"
    note: str = ""
    ref: str = ""
    source: str = "text"
    decision: int | None = None
    numbers: dict[str, float | None] = field(default_factory=dict, compare=False)
    evidence: str = ""

    @property
    def kind(self) -> str:
        """The verdict's kind, one of :data:`KINDS`."""
        return kind_of(self.verdict)

    def to_dict(self) -> dict[str, Any]:
        """The row as JSON-ready data.

        Returns
        -------
        dict
            The :data:`COLUMNS` as keys with their display strings, plus ``kind``,
            ``decision`` and ``seed_number``, ``ours_number``, ``noise`` (floats or
            ``None``), and ``evidence`` (the decision's, for a difference).
        """
        out: dict[str, Any] = {c: getattr(self, c) for c in COLUMNS}
        out.update(kind=self.kind, decision=self.decision, evidence=self.evidence,
                   seed_number=self.numbers.get("seed"), ours_number=self.numbers.get("ours"),
                   noise=self.numbers.get("noise"))
        return out


def kind_of(verdict: str) -> str:
    """The kind of a verdict string (one of :data:`KINDS`).

    Parameters
    ----------
    verdict : str
        A row's verdict, e.g. ``differs: cause measured (decision 251)``.

    Returns
    -------
    str
        ``match``, ``close``, ``holds by construction``, ``undetermined``, ``differs: cause
        measured``, ``differs: not reproduced`` or ``not measured``.

    Raises
    ------
    ValueError
        ``verdict`` is of no kind.
    """
    for kind in KINDS:
        if verdict == kind or verdict.startswith(kind + ":") or verdict.startswith(kind + " ("):
            return kind
    raise ValueError(f"verdict {verdict!r}: not one of {', '.join(KINDS)}")


def mean_and_se(values: Iterable[float]) -> tuple[float, float | None]:
    """The mean of ``values`` and its standard error (``None`` below two values).

    Parameters
    ----------
    values : iterable of float
        One value per instance (a per-instance ratio, a metric).

    Returns
    -------
    tuple of (float, float or None)
        The mean (nan when empty) and ``sd / sqrt(n)`` with the sample standard deviation.
    """
    xs = [float(v) for v in values]
    n = len(xs)
    if n == 0:
        return math.nan, None
    mean = math.fsum(xs) / n
    if n < 2:
        return mean, None
    var = math.fsum((x - mean) ** 2 for x in xs) / (n - 1)
    return mean, math.sqrt(var / n)


def paired_se(a: Sequence[float], b: Sequence[float]) -> float | None:
    """The standard error of the mean difference ``a - b`` of paired values (the same
    instances under two policies): the noise of a direction between them.

    Parameters
    ----------
    a, b : sequence of float
        The two values of each instance, in the same order.

    Returns
    -------
    float or None
        ``sd(a - b) / sqrt(n)``; ``None`` below two pairs.

    Raises
    ------
    ValueError
        ``a`` and ``b`` differ in length.
    """
    if len(a) != len(b):
        raise ValueError(f"paired values: {len(a)} and {len(b)} differ in length")
    return mean_and_se(x - y for x, y in zip(a, b, strict=True))[1]


def _num(x: float) -> str:
    """A number as a table shows it: up to 4 significant digits, no trailing zeros, and
    numbers of 10,000 or more as whole numbers (no exponent)."""
    if isinstance(x, bool) or not isinstance(x, int | float):
        return str(x)
    if isinstance(x, int) or (math.isfinite(x) and x == int(x) and abs(x) < 1e15):
        return str(int(x))
    if math.isfinite(x) and 1e4 <= abs(x) < 1e15:  # 73234, never 7.323e+04
        return str(round(x))
    return f"{x:.4g}"


def _unit(unit: str) -> str:
    return "" if not unit else (unit if unit == "%" else f" {unit}").replace("%", " %")


def _differs(gap: Gap | None) -> str:
    return gap.verdict() if gap else "differs: not reproduced"


def _reduced(size: Size | None) -> str:
    return f"not measured: reduced run ({size.label()})" if size else "not measured"


def _value_verdict(distance: float, tol: float, gap: Gap | None) -> str:
    if distance <= tol:
        return "match"
    if distance <= CLOSE_FACTOR * tol:
        return "close"
    return _differs(gap)


def _direction_verdict(bound: Bound, value: float, noise: float | None, size: Size | None,
                       gap: Gap | None) -> str:
    margin = bound.margin(value)
    band = NOISE_Z * (noise or 0.0)
    if margin > band:
        return "match"
    if margin < -band:
        return _differs(gap)
    return _reduced(size) if size and size.reduced else "undetermined"


def _grid_neighbours(rng: Range, grid: Sequence[float] | None) -> tuple[float, ...]:
    """The grid's two values next to a range with no grid value inside it (none when one
    lies inside, or without a grid): the values ours can take that stand for the range."""
    if not grid or any(rng.lo <= g <= rng.hi for g in grid):
        return ()
    below = [g for g in grid if g < rng.lo]
    above = [g for g in grid if g > rng.hi]
    return tuple([max(below)] if below else []) + tuple([min(above)] if above else [])


def _range_verdict(rng: Range, value: float, noise: float | None, size: Size | None,
                   neighbours: tuple[float, ...], gap: Gap | None) -> str:
    if size and size.reduced and noise and NOISE_Z * noise > (rng.hi - rng.lo) / 2:
        return _reduced(size)
    inside = rng.lo <= value <= rng.hi
    on_grid = any(math.isclose(value, g, rel_tol=1e-9, abs_tol=1e-12) for g in neighbours)
    return "match" if inside or on_grid else _differs(gap)


def _seed_parts(seed: SeedValue, unit: str) -> tuple[str, float | None]:
    if isinstance(seed, Range | Bound):
        return seed.label(unit), None
    if isinstance(seed, str):
        return seed, None
    return _num(seed) + _unit(unit), float(seed)


def _tolerance(seed: SeedValue, tolerance: float, relative: bool) -> float:
    if isinstance(seed, str | Bound):
        return 0.0
    scale = (seed.hi - seed.lo) if isinstance(seed, Range) else abs(float(seed))
    return tolerance * scale if relative else tolerance


def _check_args(role: str, tolerance: float, seed: SeedValue, noise: float | None) -> None:
    if role not in ("validation", "calibration"):
        raise ValueError(f"role {role!r}: must be 'validation' or 'calibration'")
    if tolerance < 0 or not math.isfinite(tolerance):
        raise ValueError(f"tolerance {tolerance}: must be finite and >= 0")
    if tolerance and isinstance(seed, Bound | Range):
        raise ValueError("a direction or a range has no tolerance: it is judged against "
                         "its noise (noise=) and, for a range, the grid (grid=)")
    if noise is not None and (noise < 0 or not math.isfinite(noise)):
        raise ValueError(f"noise {noise}: must be finite and >= 0")


def compare(figure: str, seed_line: str, seed: SeedValue, ours: float | str | None, *,
            ref: str = "", source: str = "text", tolerance: float = 0.0,
            relative: bool = False, unit: str = "", noise: float | None = None,
            size: Size | None = None, statistic: Statistic = "mean", gap: Gap | None = None,
            construction: str | None = None, grid: Sequence[float] | None = None,
            role: Role = "validation", note: str = "") -> FidelityRow:
    """One row: the seed's published result beside ours, with the verdict of the rule.

    Parameters
    ----------
    figure : str
        What is compared ("Table 4 CBS3M-EDF-online avg").
    seed_line : str
        Where the seed states it ("003 L908", "002 L1134-L1136").
    seed : float, str, Range or Bound
        The published result: a value, a label (compared for equality, spaces and case
        aside), a range or a direction.
    ours : float, str or None
        Our measured value; ``None`` makes a ``not measured`` row (:func:`not_measured`
        gives the reason).
    ref : str
        The result's id in the seed's manifest (``003-T4``, ``000-L2951``).
    source : str
        ``Table N``, ``Figure N`` as the seed numbers them, or ``text``.
    tolerance : float
        A value's declared tolerance: absolute, or relative to ``|seed|`` when
        ``relative``; none for a direction, a range or a label.
    relative : bool
        Read ``tolerance`` as a fraction of the seed's value.
    unit : str
        Shown after the numbers ("%", "s").
    noise : float, optional
        The standard error of ours (paired where instances pair); ``None``: no estimate.
    size : Size, optional
        The run's size beside the seed's; ``None``: the seed's own.
    statistic : str
        What ours is: ``mean``, ``value``, ``median``, ``share``, or an extreme
        (:data:`EXTREMES`: ``max``, ``min``, ``count``, ``tail``), never judged on a
        reduced run.
    gap : Gap, optional
        Why ours differs, used only when the verdict is a difference.
    construction : str, optional
        The assumption under which the row cannot fail: the verdict is then ``holds by
        construction: <construction>`` (when ours satisfies the claim).
    grid : sequence of float, optional
        The values ours can take (a grid of speed-ups), for a range with none inside.
    role : {"validation", "calibration"}
        Whether the row judges a reading or chose it.
    note : str
        Free text: the reading used, the sample, a grid's slack.

    Returns
    -------
    FidelityRow

    Raises
    ------
    ValueError
        A bad role, tolerance or noise, or a tolerance on a direction or range.
    TypeError
        A label compared with a number.
    """
    _check_args(role, tolerance, seed, noise)
    seed_label, seed_number = _seed_parts(seed, unit)
    tol = _tolerance(seed, tolerance, relative)
    tol_label = ("equal" if isinstance(seed, str) else "noise" if isinstance(seed, Bound)
                 else "none" if isinstance(seed, Range) else
                 f"{_num(100 * tolerance)} % rel." if relative else _num(tol) + _unit(unit))
    numbers: dict[str, float | None] = {"seed": seed_number, "ours": None, "noise": noise}
    base = dict(role=role, ref=ref, source=source, decision=gap.decision if gap else None,
                numbers=numbers, evidence=gap.evidence if gap else "")
    if ours is None:
        return FidelityRow(figure, seed_line, seed_label, "", tol_label, "not measured",
                           note=note, **base)  # type: ignore[arg-type]
    if isinstance(seed, str) or isinstance(ours, str):
        if not isinstance(seed, str) or not isinstance(ours, str):
            raise TypeError(f"{figure}: a label compares only with a label "
                            f"(seed {seed!r}, ours {ours!r})")
        same = "".join(seed.split()).lower() == "".join(ours.split()).lower()
        verdict = _constructed(construction, same) or ("match" if same else _differs(gap))
        return FidelityRow(figure, seed_line, seed_label, ours, tol_label, verdict,
                           note=note, **base)  # type: ignore[arg-type]
    value = float(ours)
    numbers["ours"] = value
    if construction:  # the row cannot fail: judged as is, whatever the run's size
        noise, size, statistic = None, None, "value"
    verdict, note = _numeric_verdict(seed, value, tol, noise, size, statistic, gap, grid,
                                     note, unit)
    if construction and verdict == "match":
        verdict = f"holds by construction: {construction}"
    if noise is not None and isinstance(seed, int | float | Bound):
        tol_label = _noise_label(seed, tol, noise, size, unit)
    return FidelityRow(figure, seed_line, seed_label, _num(value) + _unit(unit), tol_label,
                       verdict, note=note, **base)  # type: ignore[arg-type]


def _constructed(construction: str | None, holds: bool) -> str:
    return f"holds by construction: {construction}" if construction and holds else ""


def _noise_label(seed: float | Bound, tol: float, noise: float, size: Size | None,
                 unit: str) -> str:
    band = NOISE_Z * noise
    if isinstance(seed, Bound):
        return f"noise ±{_num(band)}{_unit(unit)}"
    if size is None or not size.reduced:
        return _num(max(tol, band)) + _unit(unit)
    return _num(tol) + _unit(unit)


def _numeric_verdict(seed: float | int | Range | Bound, value: float, tol: float,
                     noise: float | None, size: Size | None, statistic: str,
                     gap: Gap | None, grid: Sequence[float] | None, note: str,
                     unit: str) -> tuple[str, str]:
    """The verdict of a number against a value, a direction or a range (module doc)."""
    reduced = size is not None and size.reduced
    if not math.isfinite(value):
        return _differs(gap), note
    if reduced and statistic in EXTREMES:
        return _reduced(size), note
    if isinstance(seed, Bound):
        if reduced and noise is None and statistic in SAMPLED:
            return _reduced(size) + ", no noise estimate", note
        return _direction_verdict(seed, value, noise, size, gap), note
    if isinstance(seed, Range):
        neighbours = _grid_neighbours(seed, grid)
        if neighbours:
            note = "; ".join(filter(None, [note, (
                "no value of the grid lies inside the range: its nearest values "
                + " and ".join(_num(g) + _unit(unit) for g in neighbours) + " match")]))
        return _range_verdict(seed, value, noise, size, neighbours, gap), note
    if reduced and noise is None and statistic in SAMPLED:
        return _reduced(size) + ", no noise estimate", note
    if noise is not None:
        if reduced and NOISE_Z * noise > tol:
            return _reduced(size), note
        if not reduced:
            tol = max(tol, NOISE_Z * noise)
    return _value_verdict(abs(value - float(seed)), tol, gap), note


def compare_all(figure: str, seed_line: str, seed: Range, ours: Mapping[str, float | None],
                **options: Any) -> FidelityRow:
    """One row for a range the seed states for several lines together (every scheduler,
    every allocation): it matches only when every line's value lies inside.

    Parameters
    ----------
    figure, seed_line, seed
        As for :func:`compare`; ``seed`` is the joint range.
    ours : mapping of str to float or None
        Each line's value by its label; ``None`` for a line not measured.
    **options
        :func:`compare`'s keyword arguments (``ref``, ``source``, ``unit``, ``grid``,
        ``gap``, ``size``, ``role``, ``note``).

    Returns
    -------
    FidelityRow
        ``ours`` shows the lines' span (``lo–hi over k lines``); the note names the
        lines outside the range. A line not measured makes the row ``not measured``.
    """
    unit = options.get("unit", "")
    missing = [k for k, v in ours.items() if v is None]
    if missing or not ours:
        why = f"line(s) not measured: {', '.join(missing)}" if missing else "no line"
        return not_measured(figure, seed_line, seed, why, **{
            k: v for k, v in options.items() if k in ("ref", "source", "unit", "role")})
    values = {k: float(v) for k, v in ours.items() if v is not None}
    rows = {k: compare(figure, seed_line, seed, v, **options) for k, v in values.items()}
    first = next(iter(rows.values()))
    unjudged = [k for k, r in rows.items() if r.kind == "not measured"]
    if unjudged:
        return FidelityRow(figure, seed_line, first.seed_value, "", first.tolerance,
                           rows[unjudged[0]].verdict, first.role,
                           "; ".join(filter(None, [options.get("note", ""),
                                                   f"not judged: {', '.join(unjudged)}"])),
                           first.ref, first.source, None,
                           {"seed": None, "ours": None, "noise": None})
    outside = [k for k, r in rows.items() if r.kind != "match"]
    span = f"{_num(min(values.values()))}–{_num(max(values.values()))}{_unit(unit)}"
    verdict = "match" if not outside else _differs(options.get("gap"))
    note = "; ".join(filter(None, [options.get("note", ""), first.note if "grid" in
                                   first.note else "", f"every one of {len(values)} lines"
                                   if not outside else f"outside: {', '.join(outside)}"]))
    return FidelityRow(figure, seed_line, first.seed_value, f"{span} over {len(values)} lines",
                       first.tolerance, verdict, first.role, note, first.ref, first.source,
                       first.decision, {"seed": None, "ours": None, "noise": None},
                       first.evidence)


def not_measured(figure: str, seed_line: str, seed: SeedValue, reason: str, *,
                 ref: str = "", source: str = "text", unit: str = "",
                 role: Role = "validation", tolerance: float | None = None,
                 relative: bool = False) -> FidelityRow:
    """A row for a published result this run could not measure, with the reason.

    Parameters
    ----------
    figure, seed_line, seed, ref, source, unit, role
        As for :func:`compare`.
    reason : str
        Why the result is missing ("trace RICC not in ../shared/data", "hardware
        measurement: a simulation cannot show it"); the verdict reads ``not measured:
        REASON``.
    tolerance : float, optional
        The tolerance the row would be judged with (a value's); without it the column
        shows ``—``.
    relative : bool
        Read ``tolerance`` as a fraction of the seed's value.

    Returns
    -------
    FidelityRow
        ``ours`` empty, the verdict ``not measured: REASON``.
    """
    row = compare(figure, seed_line, seed, None, unit=unit, role=role, ref=ref,
                  source=source, tolerance=tolerance or 0.0, relative=relative)
    keep = tolerance is not None or isinstance(seed, str | Bound | Range)
    return FidelityRow(row.figure, row.seed_line, row.seed_value, "",
                       row.tolerance if keep else "—", f"not measured: {reason}", role,
                       row.note, ref, source, None, row.numbers)


def _title(column: str) -> str:
    return column.replace("_value", "").replace("_", " ")


def _fit_widths(cells: list[list[str]], cols: list[str], width: int) -> list[int]:
    """Column widths that fit ``width``: each column as wide as its widest cell, then the
    widest wrapping column narrowed (never below its longest word) until the line fits."""
    widths = [max(len(line[i]) for line in cells) for i in range(len(cols))]
    floor = [max((len(w) for line in cells for w in line[i].split()), default=0)
             for i in range(len(cols))]
    wrapping = [i for i, c in enumerate(cols) if c in _WRAPPING]
    while sum(widths) + 2 * (len(cols) - 1) > width:
        movable = [i for i in wrapping if widths[i] > floor[i]]
        if not movable:
            break
        widths[max(movable, key=lambda i: widths[i])] -= 1
    return widths


#: the characters :func:`textwrap.wrap` turns into spaces (``TextWrapper``'s whitespace)
_WRAP_SPACES = frozenset("\t\n\x0b\x0c\r")


def _wrap(text: str, width: int) -> list[str]:
    """``textwrap.wrap(text, width, break_long_words=False) or [""]``, without
    :mod:`textwrap` for a cell that fits its width as it is (most cells: the wrapper's
    regular expressions cost 0.05 s of a 1,000-row table, decision 691): such a cell is
    its own one line when ``width`` is positive, no character of it is one the wrapper
    turns into a space and it does not end with a space (which the wrapper drops)."""
    if (0 < width and len(text) <= width and not (text and text[-1].isspace())
            and _WRAP_SPACES.isdisjoint(text)):
        return [text]
    return textwrap.wrap(text, width, break_long_words=False) or [""]


def _block(line: list[str], widths: list[int], indent: str) -> list[str]:
    """One row's cells as aligned lines, each cell wrapped in its width."""
    wrapped = [_wrap(v, w) for v, w in zip(line, widths, strict=True)]
    return [indent + "  ".join((parts[k] if k < len(parts) else "").ljust(w)
                               for parts, w in zip(wrapped, widths, strict=True)).rstrip()
            for k in range(max(len(parts) for parts in wrapped))]


def _note_lines(note: str, width: int) -> list[str]:
    return textwrap.wrap(note, width, initial_indent="    note: ",
                         subsequent_indent="          ", break_long_words=False)


@dataclass(frozen=True)
class FidelityTable:
    """The seed-vs-ours table of one experiment, and the size of the run it judges."""

    experiment: str
    rows: Sequence[FidelityRow]
    size: Size | None = None

    @property
    def filename(self) -> str:
        """``<experiment>_vs_seed.csv``, the file every reproduction writes."""
        return f"{self.experiment}_vs_seed.csv"

    def counts(self) -> dict[str, int]:
        """The tally: validation rows per verdict kind, calibration rows apart.

        Returns
        -------
        dict of str to int
            ``rows`` (validation rows), each of :data:`KINDS` over them, then
            ``calibration`` (the calibration rows, whatever their verdicts).
        """
        kinds = Counter(r.kind for r in self.rows if r.role == "validation")
        out = {"rows": sum(kinds.values())}
        out.update({k: kinds.get(k, 0) for k in KINDS})
        out["calibration"] = sum(r.role == "calibration" for r in self.rows)
        return out

    def csv_text(self) -> str:
        """The table as CSV text, the columns of :data:`COLUMNS`.

        Returns
        -------
        str
            The header line, then one line per row, ``\\n``-terminated.
        """
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(COLUMNS)
        for r in self.rows:
            writer.writerow([getattr(r, c) for c in COLUMNS])
        return buf.getvalue()

    def format(self, columns: Iterable[str] = ("figure", "seed_line", "seed_value", "ours",
                                               "tolerance", "verdict", "role", "note"),
               width: int = WIDTH) -> str:
        """The table as aligned plain text (header first), for a terminal or a log.

        Parameters
        ----------
        columns : iterable of str
            Which columns, in order (names of :data:`COLUMNS`); the ``note`` is printed
            under its row (``note: ...``), not as a column.
        width : int
            The widest line wanted (default :data:`WIDTH`). A table whose rows fit is one
            line per row; a wider one prints each row's label whole on a line of its own
            (its manifest id after it, ``[003-T4]``) and its other columns on the next,
            indented, wrapping values and verdicts at spaces. A word is never cut.

        Returns
        -------
        str
            The header, then the lines of each row.
        """
        columns = list(columns)
        cols = [c for c in columns if c != "note"]
        notes = [r.note if "note" in columns else "" for r in self.rows]
        cells = [[_title(c) for c in cols]] + [[getattr(r, c) for c in cols]
                                               for r in self.rows]
        natural = sum(max(len(x[i]) for x in cells) for i in range(len(cols))) + 2 * (
            len(cols) - 1)
        lines: list[str] = []
        if natural <= width or "figure" not in cols:
            widths = _fit_widths(cells, cols, width)
            for i, line in enumerate(cells):
                lines += _block(line, widths, "")
                lines += _note_lines(notes[i - 1], width) if i and notes[i - 1] else []
            return "\n".join(lines)
        k = cols.index("figure")
        rest = [c for i, c in enumerate(cols) if i != k]
        body = [[v for i, v in enumerate(line) if i != k] for line in cells]
        widths = _fit_widths(body, rest, width - len(_INDENT))
        for i, line in enumerate(body):
            ref = self.rows[i - 1].ref if i else ""
            lines.append(f"{cells[i][k]}  [{ref}]" if ref else cells[i][k])
            lines += _block(line, widths, _INDENT)
            lines += _note_lines(notes[i - 1], width) if i and notes[i - 1] else []
        return "\n".join(lines)

    def summary(self) -> str:
        """One line: the experiment, the size, the tally (the word before each count).

        Returns
        -------
        str
            ``<experiment> vs seed, <size>: <n> validation rows: match 5; close 2; ...;
            calibration rows apart: 3``.
        """
        counts = self.counts()
        size = f", {self.size.label()}" if self.size else ""
        tally = "; ".join(f"{k} {counts[k]}" for k in KINDS)
        return (f"{self.experiment} vs seed{size}: {counts['rows']} validation rows: {tally}; "
                f"calibration rows apart: {counts['calibration']}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the experiment, the run's size, the tally and every row.

        Returns
        -------
        dict
            ``experiment``, ``size`` (``n``, ``seed_n``, ``unit`` or ``None``), ``counts``
            (:meth:`counts`) and ``rows`` (:meth:`FidelityRow.to_dict`, in order).
        """
        size = None if self.size is None else {"n": self.size.n, "seed_n": self.size.seed_n,
                                               "unit": self.size.unit}
        return {"experiment": self.experiment, "size": size, "counts": self.counts(),
                "rows": [r.to_dict() for r in self.rows]}
