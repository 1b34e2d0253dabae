"""What seed 002's two seed-vs-ours tables share: a printed value's tolerance, a figure's
row, the stamp of rows not measured on the seed's inputs, the seed's order.

Used by :mod:`lpsched.campaigns.fidelity` and :mod:`lpsched.campaigns.fidelity_ostrich`;
the tolerance is decision 571, the stamp decision 570.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from lpsched.core.fidelity import FidelityRow, not_measured

__all__ = ["RELATIVE", "figure_row", "in_manifest_order", "printed_tolerance", "stamp"]

#: a printed value matches within this share of itself (decision 571)
RELATIVE = 0.05


def printed_tolerance(value: float, decimals: int) -> float:
    """The tolerance of a printed value: :data:`RELATIVE` of it, never less than half a
    unit of its last printed digit.

    Parameters
    ----------
    value : float
        The seed's printed value.
    decimals : int
        How many decimals the seed prints (0 for an integer).

    Returns
    -------
    float
        ``max(0.05 |value|, 0.5 10^-decimals)``.

    Notes
    -----
    Decision 571.
    """
    return max(RELATIVE * abs(value), 0.5 * 10.0 ** -decimals)


def figure_row(ref: str, source: str, line: str, what: str, judged: str,
               ours: str) -> FidelityRow:
    """The row of a figure whose points the seed does not print: redrawn, not judged.

    Parameters
    ----------
    ref, source, line : str
        The manifest entry's id, its ``Figure N`` and its seed line.
    what : str
        What the figure shows (the row's label).
    judged : str
        Where the values the text prints about it are judged (``"rows 002-L1358-*"``).
    ours : str
        What our redrawn figure shows, in a sentence (the note).

    Returns
    -------
    FidelityRow
        ``not measured: the seed prints no point of the figure ...``, the note ours.
    """
    row = not_measured(what, line, "image only", "the seed prints no point of the figure "
                       f"(an image, not in its text); {judged}", ref=ref, source=source)
    return replace(row, note=ours)


def stamp(rows: Iterable[FidelityRow], why: str | None) -> list[FidelityRow]:
    """Rows measured on inputs that are not a sample of the seed's (instances of another
    size, a part of the trace, another trace) read ``not measured: WHY``, whatever they
    showed; rows not measured already keep their reason.

    Parameters
    ----------
    rows : iterable of FidelityRow
        The rows measured on those inputs.
    why : str or None
        The reason; ``None``: the inputs are the seed's, the rows are kept as they are.

    Returns
    -------
    list of FidelityRow

    Notes
    -----
    Decision 570.
    """
    if why is None:
        return list(rows)
    return [r if r.kind == "not measured" else replace(r, verdict=f"not measured: {why}")
            for r in rows]


def in_manifest_order(rows: list[FidelityRow]) -> list[FidelityRow]:
    """The rows sorted by their entry's first seed line (the seed's order), the rows of
    one entry kept in the order built (a stable sort).

    Parameters
    ----------
    rows : list of FidelityRow
        A table's rows.

    Returns
    -------
    list of FidelityRow
    """
    def first(row: FidelityRow) -> int:
        digits = row.seed_line.split("L", 1)[-1].split("-")[0].split(",")[0]
        return int(digits) if digits.isdigit() else 0

    return sorted(rows, key=first)
