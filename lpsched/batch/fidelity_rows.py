"""The row builders the three batch seed-vs-ours tables share.

Every row goes through :func:`lpsched.core.fidelity.compare` (the one verdict rule); what
this module adds is how the batch tables read the seeds' words:

* a **joint** statement ("every variant improves", "on all platforms") is one row whose
  verdict is its least favourable line's (:func:`joint`): a line that differs beyond its
  noise makes the statement differ; one inside its noise makes it undetermined;
* "**similar**" is a value: the relative difference of two means, 0 within
  :data:`SIMILAR` percent (:func:`similar`);
* a **share** over instances ("most points", "90 % of the time") carries the noise of a
  proportion, :func:`share_noise`, which never reads a share of few instances as certain;
* a sentence that **restates** another (an abstract, an introduction, a conclusion) is a
  row naming the rows that judge it (:func:`restates`); :func:`carry_restated` gives it
  their least favourable verdict, so a restatement reads as the finding it repeats
  (counted in the tally as a row of its own, never as an unmeasured one);
* a **set-up** fact compares the seed's setting with the run's (:func:`setup`): a setting
  the tool fixes holds by construction, a fact the run measures is a value;
* a standard error of exactly 0 (every instance ties) is no noise estimate
  (:func:`known_noise`).

The readings are decisions 520–521.
"""

from __future__ import annotations

import gzip
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lpsched.core.fidelity import (
    Bound,
    FidelityRow,
    Gap,
    SeedValue,
    compare,
    mean_and_se,
    not_measured,
    paired_se,
)

__all__ = ["ONLINE", "SIMILAR", "Line", "carry_restated", "header_machine", "joint",
           "known_noise", "num", "paired", "restates", "setup", "share", "share_noise",
           "similar", "unexplained"]

SIMILAR = 5.0
"""Two means are "similar" when they differ by at most this many percent (decision 521)."""

ONLINE = 1.0
"""A scatter point lies "on y = x" when it is within this many percent of the diagonal
(decision 521: a marker's width on the seed's axes)."""

#: the order of a joint row's lines, least favourable first
_WORST = ("differs: cause measured", "differs: not reproduced", "not measured",
          "undetermined", "close", "holds by construction", "match")


@dataclass(frozen=True)
class Line:
    """One line of a joint statement: its label, our value and its noise (standard error;
    ``None``: no estimate). ``value`` ``None``: the line was not measured."""

    label: str
    value: float | None
    noise: float | None = None


def num(x: float) -> str:
    """A number as the tables show it: 4 significant digits.

    Parameters
    ----------
    x : float
        Any number (``inf`` shown as ``inf``).

    Returns
    -------
    str
        ``f"{x:.4g}"``.
    """
    return f"{x:.4g}"


def joint(figure: str, seed_line: str, seed: Bound, lines: Sequence[Line], *,
          empty: str = "no line measured", **options: Any) -> FidelityRow:
    """One row for a direction the seed states for several lines together: each line is
    judged by :func:`~lpsched.core.fidelity.compare`, the row takes the verdict of the least
    favourable one.

    Parameters
    ----------
    figure, seed_line : str
        As for :func:`~lpsched.core.fidelity.compare`.
    seed : Bound
        The direction every line must satisfy.
    lines : sequence of Line
        The lines; a line of value ``None`` was not measured.
    empty : str
        The reason of the ``not measured`` row when there is no line, or no line measured.
    **options
        ``compare``'s keyword arguments (``ref``, ``source``, ``unit``, ``size``,
        ``statistic``, ``gap``, ``construction``, ``role``, ``note``).

    Returns
    -------
    FidelityRow
        ``ours`` reads ``k of n lines on the seed's side; least: LABEL VALUE``; the note
        names the lines against the seed beyond their noise.
    """
    keep = {k: v for k, v in options.items() if k in ("ref", "source", "unit", "role")}
    if not lines:
        return not_measured(figure, seed_line, seed, empty, **keep)
    missing = [ln.label for ln in lines if ln.value is None]
    if len(missing) == len(lines):
        return not_measured(figure, seed_line, seed, empty, **keep)
    if missing:
        return not_measured(figure, seed_line, seed, "line(s) not measured: "
                            + ", ".join(missing), **keep)
    rows = [(ln, compare(figure, seed_line, seed, ln.value, noise=ln.noise, **options))
            for ln in lines]
    worst_line, worst = min(rows, key=lambda lr: (_rank(lr[1].kind),
                                                  seed.margin(float(lr[0].value or 0))))
    side = sum(seed.margin(float(ln.value or 0)) > 0 for ln in lines)
    against = [ln.label for ln, r in rows if r.kind.startswith("differs")]
    unit = options.get("unit", "")
    shown = f"{num(float(worst_line.value or 0))}{' ' + unit if unit else ''}"
    note = "; ".join(filter(None, [
        options.get("note", ""),
        f"against the seed beyond their noise: {', '.join(against)}" if against else ""]))
    return replace(worst, ours=f"{side} of {len(lines)} lines on the seed's side; least: "
                   f"{worst_line.label} {shown}", note=note)


def _rank(kind: str) -> int:
    return _WORST.index(kind)


def paired(a: Mapping[Any, float], b: Mapping[Any, float], scale: float = 1.0,
           ) -> tuple[float | None, float | None, int]:
    """The mean difference ``a − b`` over the instances both hold, its paired standard
    error, each divided by ``scale``.

    Parameters
    ----------
    a, b : mapping
        Instance (seed) -> value, for two allocations.
    scale : float
        The divisor (basic's mean, to read the difference on the seed's normalised axis).

    Returns
    -------
    tuple of (float or None, float or None, int)
        The mean difference (``None`` without a common instance), its standard error
        (``None`` below two), and the number of instances.
    """
    keys = sorted(set(a) & set(b))
    if not keys or not scale:
        return None, None, len(keys)
    xs, ys = [a[k] for k in keys], [b[k] for k in keys]
    mean = math.fsum(x - y for x, y in zip(xs, ys, strict=True)) / len(keys) / scale
    se = paired_se(xs, ys) if len(keys) > 1 else None
    return mean, known_noise(se, scale), len(keys)


def known_noise(se: float | None, scale: float = 1.0) -> float | None:
    """A standard error as a noise estimate: ``None`` (no estimate) when it is missing or
    exactly 0, the degenerate value of identical per-instance values (every instance
    ties), which on a few instances says nothing of the spread of many.

    Parameters
    ----------
    se : float or None
        A standard error (:func:`~lpsched.core.fidelity.mean_and_se`, ``paired_se``).
    scale : float
        The divisor (as :func:`paired`'s).

    Returns
    -------
    float or None
        ``se / scale``, or ``None``.
    """
    return None if not se or not scale else se / scale


def share_noise(k: int, n: int) -> float | None:
    """The standard error of a share of ``k`` in ``n`` instances, in percent, as
    ``sqrt(p(1 − p)/n)`` with ``p = (k + 1)/(n + 2)``: a share of 2 in 2 instances is not
    read as certain.

    Parameters
    ----------
    k : int
        Instances where the property holds.
    n : int
        Instances.

    Returns
    -------
    float or None
        The standard error (percentage points); ``None`` when ``n`` is 0.
    """
    if n <= 0:
        return None
    p = (k + 1) / (n + 2)
    return 100 * math.sqrt(p * (1 - p) / n)


def share(flags: Iterable[bool]) -> tuple[float | None, float | None, int]:
    """The share of true flags over instances (percent), its noise and the count.

    Parameters
    ----------
    flags : iterable of bool
        One flag per instance.

    Returns
    -------
    tuple of (float or None, float or None, int)
        The share (``None`` when empty), :func:`share_noise`, and ``n``.
    """
    xs = [bool(f) for f in flags]
    if not xs:
        return None, None, 0
    return 100 * sum(xs) / len(xs), share_noise(sum(xs), len(xs)), len(xs)


def similar(figure: str, seed_line: str, a: Mapping[Any, float], b: Mapping[Any, float],
            **options: Any) -> FidelityRow:
    """A "similar" statement: the relative difference of the means of ``a`` and ``b``
    (percent), 0 within :data:`SIMILAR`, with the paired noise.

    Parameters
    ----------
    figure, seed_line : str
        As for :func:`~lpsched.core.fidelity.compare`.
    a, b : mapping
        Instance -> value of the two allocations the seed calls similar.
    **options
        ``compare``'s keyword arguments (``ref``, ``source``, ``size``, ``gap``,
        ``construction``, ``role``, ``note``).

    Returns
    -------
    FidelityRow
        Seed ``0 %``, ours ``100 (mean(a)/mean(b) − 1)``, tolerance :data:`SIMILAR` %.
    """
    keys = sorted(set(a) & set(b))
    base = mean_and_se(b[k] for k in keys)[0] if keys else math.nan
    diff, noise, _ = paired(a, b, scale=base / 100 if keys and base else 0.0)
    return compare(figure, seed_line, 0.0, diff, tolerance=SIMILAR, unit="%", noise=noise,
                   **options)


def restates(figure: str, seed_line: str, *, ref: str, of: str, what: str = "restated",
             source: str = "text") -> FidelityRow:
    """A row for a sentence that restates a claim judged in another row (an abstract, an
    introduction or a conclusion repeating a result): not counted twice.

    Parameters
    ----------
    figure, seed_line : str
        What the sentence says, where.
    ref : str
        The sentence's manifest id.
    of : str
        The manifest id(s) of the rows that judge the claim.
    what : str
        The seed's value column (the claim in a few words).
    source : str
        ``text`` or the figure the sentence reads.

    Returns
    -------
    FidelityRow
        ``not measured: restates OF (judged in its rows)``.
    """
    return not_measured(figure, seed_line, what, f"restates {of} (judged in its rows)",
                        ref=ref, source=source)


def setup(figure: str, seed_line: str, seed: SeedValue, ours: float | str | None, *,
          ref: str, why: str = "not in this run", gap: Gap | None = None, unit: str = "",
          role: str = "validation", note: str = "", source: str = "text",
          construction: str | None = None) -> FidelityRow:
    """A set-up fact: the seed's setting beside the run's.

    A setting the tool itself fixes (a model, a generator's parameter, a command-line
    option, the trace's name) cannot fail when equal: it passes ``construction`` and reads
    ``holds by construction``. A fact the run measures (a trace header's processors, the
    jobs kept) passes none and is a value (``statistic="value"``), judged as is at any size.

    Parameters
    ----------
    figure, seed_line : str
        The setting and where the seed states it.
    seed : float, int or str
        The seed's setting.
    ours : float, int, str or None
        The run's (``None``: not known from the run, ``why`` says why).
    ref : str
        The setting's manifest id.
    why : str
        The reason when ``ours`` is ``None``.
    gap : Gap, optional
        The decision behind a departure.
    unit : str
        After the numbers.
    role : {"validation", "calibration"}
        A setting chosen by looking at the figure it is compared with is ``calibration``.
    note : str
        What the departure may change.
    source : str
        ``text`` or the table that states the setting (``Table 5.2``).
    construction : str, optional
        The assumption under which the run's setting is the seed's (a setting the tool
        fixes or echoes): the row reads ``holds by construction`` when they are equal.

    Returns
    -------
    FidelityRow
    """
    if ours is None:
        return not_measured(figure, seed_line, seed, why, ref=ref, unit=unit, source=source,
                            role=role)  # type: ignore[arg-type]
    if isinstance(seed, str) != isinstance(ours, str):
        seed, ours = str(seed), str(ours)
    return compare(figure, seed_line, seed, ours, ref=ref, gap=gap, unit=unit, source=source,
                   role=role, note=note, statistic="value",  # type: ignore[arg-type]
                   construction=construction)


def carry_restated(rows: Sequence[FidelityRow]) -> list[FidelityRow]:
    """Each restating row (:func:`restates`) with the verdict of the rows it restates: the
    least favourable verdict over every row of the restated ids (a sentence restating two
    findings holds only as far as both do); its note says so.

    Parameters
    ----------
    rows : sequence of FidelityRow
        A whole table's rows, restating rows among them.

    Returns
    -------
    list of FidelityRow
        The rows in the same order; a restating row whose restated ids have no row keeps
        its ``not measured: restates ...``.
    """
    out = []
    for row in rows:
        ids = _restated_ids(row)
        judged = [r for r in rows if ids and r.ref in ids and not _restated_ids(r)]
        if not judged:
            out.append(row)
            continue
        worst = min(judged, key=lambda r: _rank(r.kind))
        note = (f"restates {', '.join(sorted(ids))}: carries the least favourable verdict "
                f"of their {len(judged)} row(s), so the finding is judged once and only "
                "repeated here")
        out.append(replace(row, verdict=worst.verdict, ours=worst.ours,
                           decision=worst.decision, evidence=worst.evidence,
                           note="; ".join(filter(None, [row.note, note]))))
    return out


#: the note of a difference no decision stands behind
UNEXPLAINED = ("no decision stands behind this difference: no reading of the set-up has been "
               "run against it")


def unexplained(rows: Sequence[FidelityRow]) -> list[FidelityRow]:
    """The rows, each ``differs: not reproduced`` row with no decision saying so in its
    note (a difference nothing was run against).

    Parameters
    ----------
    rows : sequence of FidelityRow
        A table's rows.

    Returns
    -------
    list of FidelityRow
        The same rows; only those differing with no decision get the note.
    """
    return [replace(r, note="; ".join(filter(None, [r.note, UNEXPLAINED])))
            if r.kind == "differs: not reproduced" and r.decision is None
            and "no decision stands behind" not in r.note else r for r in rows]


def _restated_ids(row: FidelityRow) -> set[str]:
    """The manifest ids a :func:`restates` row names (empty for any other row)."""
    head = "not measured: restates "
    if not row.verdict.startswith(head):
        return set()
    text = row.verdict[len(head):].split(" (judged")[0]
    return {x.strip() for x in text.replace(" and ", ", ").split(",") if x.strip()}


def header_machine(path: str) -> int | None:
    """The machine an SWF trace's header declares (``MaxProcs``, else ``MaxNodes``): the
    machine every batch cell simulates, read from the header lines only.

    Parameters
    ----------
    path : str
        The trace a cell names (``.swf`` or ``.swf.gz``).

    Returns
    -------
    int or None
        The machine; ``None`` when the file is not there or declares none.
    """
    p = Path(path)
    if not p.is_file():
        return None
    found: dict[str, int] = {}
    try:
        with (gzip.open(p, "rt", errors="replace") if p.name.endswith(".gz")
              else p.open(errors="replace")) as fh:
            for _, line in zip(range(500), fh, strict=False):
                if not line.startswith(";"):
                    break
                key, _, value = line[1:].partition(":")
                if key.strip() in ("MaxProcs", "MaxNodes") and value.strip().isdigit():
                    found.setdefault(key.strip(), int(value))
    except (OSError, EOFError):
        return None
    return found.get("MaxProcs") or found.get("MaxNodes")
