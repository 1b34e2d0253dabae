"""Seed 003's printed experimental values (Tables 3–8), as the seed prints them.

Kept as the printed strings, so that each value's printed precision is known (a cell
printed ``62.6`` is known to 0.05, ``1.003`` to 0.0005): the seed-vs-ours rows of
:mod:`lpsched.bags.fidelity` declare their tolerances from it and from the seed's own
standard deviations. ``tests/bags/test_fidelity.py`` checks every value against the
manifest ``lpsched/report/manifests/seed003.csv``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["METRIC_OF", "TABLE3", "TABLES", "Cell", "SeedRow", "decimals", "policy_of"]


@dataclass(frozen=True)
class Cell:
    """One printed number: its value and its text as printed."""

    text: str

    @property
    def value(self) -> float:
        """The number."""
        return float(self.text)

    @property
    def half_digit(self) -> float:
        """Half a unit of the last printed digit (``62.6``: 0.05; ``1.003``: 0.0005)."""
        return 0.5 * 10.0 ** -decimals(self.text)


def decimals(text: str) -> int:
    """The number of digits printed after the decimal point.

    Parameters
    ----------
    text : str
        A number as printed (``"62.6"``, ``"1.003"``, ``"20"``).

    Returns
    -------
    int
        0 for an integer, else the count of digits after the point.
    """
    return len(text.partition(".")[2])


@dataclass(frozen=True)
class SeedRow:
    """One algorithm's row of Tables 4–8: minimum, average, standard deviation, maximum
    and "the best in x %", and the seed line that prints it."""

    name: str
    line: int
    min: Cell
    avg: Cell
    sd: Cell
    max: Cell
    best: Cell


def policy_of(name: str) -> str:
    """lpsched's policy name of a seed algorithm name.

    Parameters
    ----------
    name : str
        As the seed prints it: ``"CBS3M_EDF_ONLINE"`` (Tables 4–8) or ``"CBS3M EDF
        ONLINE"`` (Table 3).

    Returns
    -------
    str
        ``"cbs3m-edf-online"``.
    """
    return name.lower().replace("_", "-").replace(" ", "-")


#: Tables 4–8 [003 L892–L1012], each algorithm's row as printed: name, min, avg, sd, max,
#: best %; the table number and its first row's line (the rows follow on the next lines)
_PRINTED = {
    "max_stretch": (4, 893, """
FIFO_RR 4.550 16.689 7.897 62.6 0.0
FIFO_MCT 1.857 6.912 2.404 17.9 0.0
FIFO_DD 4.550 16.689 7.897 62.6 0.0
SPT_RR 1.348 4.274 1.771 13.8 0.0
SPT_MCT 1.007 1.928 0.610 5.99 1.3
SPT_DD 1.348 4.274 1.771 13.8 0.0
SRPT_RR 1.348 4.121 1.737 13.8 0.0
SRPT_MCT 1.007 1.861 0.601 6.87 2.2
SRPT_DD 1.348 4.121 1.737 13.8 0.0
SWRPT_RR 1.344 4.119 1.739 13.8 0.0
SWRPT_MCT 1.007 1.857 0.601 6.87 1.9
SWRPT_DD 1.344 4.119 1.739 13.8 0.0
MWMA_NBT 1.477 3.433 1.044 8.49 0.0
MWMA_MS 2.435 8.619 2.420 20.4 0.0
CBS3M_FIFO_ONLINE 1.003 1.322 0.208 2.83 6.9
CBS3M_EDF_ONLINE 1.003 1.163 0.118 1.93 64.0
CBS3M_FIFO_OFFLINE 1.022 1.379 0.276 3.74 3.8
CBS3M_EDF_OFFLINE 1.011 1.213 0.125 2.06 26.2
"""),
    "sum_stretch": (5, 918, """
FIFO_RR 2.064 6.783 3.210 30.7 0.0
FIFO_MCT 1.322 2.754 0.670 6.45 0.0
FIFO_DD 2.064 6.783 3.210 30.7 0.0
SPT_RR 1.019 2.942 1.221 10.1 0.0
SPT_MCT 1.000 1.182 0.183 2.53 2.4
SPT_DD 1.019 2.942 1.221 10.1 0.0
SRPT_RR 1.007 2.607 1.071 8.93 0.0
SRPT_MCT 1.000 1.045 0.098 1.92 25.5
SRPT_DD 1.007 2.607 1.071 8.93 0.0
SWRPT_RR 1.000 2.596 1.068 8.96 0.1
SWRPT_MCT 1.000 1.038 0.098 1.92 60.1
SWRPT_DD 1.000 2.596 1.068 8.96 0.1
MWMA_NBT 1.051 2.013 0.644 5.41 0.0
MWMA_MS 1.663 4.183 1.269 11.5 0.0
CBS3M_FIFO_ONLINE 1.000 1.294 0.208 2.16 0.4
CBS3M_EDF_ONLINE 1.000 1.201 0.190 2.08 20.2
CBS3M_FIFO_OFFLINE 1.000 1.332 0.227 2.57 0.1
CBS3M_EDF_OFFLINE 1.000 1.272 0.214 2.49 3.8
"""),
    "makespan": (6, 943, """
FIFO_RR 1.343 2.716 0.684 5.31 0.0
FIFO_MCT 1.000 1.329 0.202 2.11 0.1
FIFO_DD 1.343 2.716 0.684 5.31 0.0
SPT_RR 1.325 2.714 0.685 5.33 0.0
SPT_MCT 1.000 1.329 0.202 2.1 0.0
SPT_DD 1.325 2.714 0.685 5.33 0.0
SRPT_RR 1.325 2.714 0.686 5.32 0.0
SRPT_MCT 1.000 1.328 0.202 2.1 0.0
SRPT_DD 1.325 2.714 0.686 5.32 0.0
SWRPT_RR 1.322 2.715 0.686 5.32 0.0
SWRPT_MCT 1.000 1.328 0.202 2.1 0.0
SWRPT_DD 1.322 2.715 0.686 5.32 0.0
MWMA_NBT 1.000 1.079 0.070 1.45 4.6
MWMA_MS 1.000 1.078 0.067 1.42 2.1
CBS3M_FIFO_ONLINE 1.000 1.029 0.029 1.17 7.5
CBS3M_EDF_ONLINE 1.000 1.004 0.006 1.05 35.0
CBS3M_FIFO_OFFLINE 1.000 1.018 0.023 1.22 17.6
CBS3M_EDF_OFFLINE 1.000 1.003 0.006 1.07 53.0
"""),
    "max_flow": (7, 968, """
FIFO_RR 1.146 3.097 1.135 10.2 0.0
FIFO_MCT 1.000 1.281 0.258 2.83 14.4
FIFO_DD 1.146 3.097 1.135 10.2 0.0
SPT_RR 1.386 3.282 1.222 10.9 0.0
SPT_MCT 1.002 1.460 0.287 3.09 0.0
SPT_DD 1.386 3.282 1.222 10.9 0.0
SRPT_RR 1.386 3.289 1.225 10.9 0.0
SRPT_MCT 1.003 1.473 0.306 4.28 0.0
SRPT_DD 1.386 3.289 1.225 10.9 0.0
SWRPT_RR 1.382 3.291 1.225 10.9 0.0
SWRPT_MCT 1.000 1.477 0.309 4.28 0.1
SWRPT_DD 1.382 3.291 1.225 10.9 0.0
MWMA_NBT 1.000 1.181 0.153 1.99 7.0
MWMA_MS 1.000 1.261 0.189 2.32 1.1
CBS3M_FIFO_ONLINE 1.000 1.054 0.061 1.52 5.8
CBS3M_EDF_ONLINE 1.000 1.031 0.057 1.48 23.2
CBS3M_FIFO_OFFLINE 1.000 1.037 0.058 1.48 21.6
CBS3M_EDF_OFFLINE 1.000 1.023 0.055 1.48 48.7
"""),
    "sum_flow": (8, 993, """
FIFO_RR 1.644 4.020 1.567 16.3 0.0
FIFO_MCT 1.134 1.652 0.264 3.33 0.0
FIFO_DD 1.644 4.020 1.567 16.3 0.0
SPT_RR 1.196 2.811 1.081 9.21 0.0
SPT_MCT 1.000 1.149 0.171 2.32 3.5
SPT_DD 1.196 2.811 1.081 9.21 0.0
SRPT_RR 1.079 2.704 1.048 9.03 0.0
SRPT_MCT 1.000 1.105 0.151 2.23 32.1
SRPT_DD 1.079 2.704 1.048 9.03 0.0
SWRPT_RR 1.079 2.706 1.049 9.03 0.0
SWRPT_MCT 1.000 1.108 0.152 2.23 15.4
SWRPT_DD 1.079 2.706 1.049 9.03 0.0
MWMA_NBT 1.000 1.404 0.217 2.29 0.1
MWMA_MS 1.359 2.333 0.355 3.7 0.0
CBS3M_FIFO_ONLINE 1.000 1.122 0.101 1.62 1.4
CBS3M_EDF_ONLINE 1.000 1.065 0.090 1.53 35.6
CBS3M_FIFO_OFFLINE 1.000 1.120 0.103 1.67 0.3
CBS3M_EDF_OFFLINE 1.000 1.087 0.101 1.66 18.7
"""),
}


def _parse(first: int, text: str) -> dict[str, SeedRow]:
    out = {}
    for i, line in enumerate(text.split("\n")[1:-1]):
        name, *cells = line.split()
        lo, avg, sd, hi, best = (Cell(c) for c in cells)
        out[policy_of(name)] = SeedRow(name, first + i, lo, avg, sd, hi, best)
    return out


#: metric -> (table number, {policy: SeedRow}), Tables 4 to 8 in turn
TABLES: dict[str, tuple[int, dict[str, SeedRow]]] = {
    metric: (number, _parse(first, text)) for metric, (number, first, text) in _PRINTED.items()}

#: table number -> metric
METRIC_OF: dict[int, str] = {number: metric for metric, (number, _) in TABLES.items()}

#: Table 3 [003 L847–L859]: the MPI experiments, each algorithm's relative max-stretch in
#: Exp1–Exp10 and its average, as printed, with the line of its row
_TABLE3 = """
CBS3M_EDF_OFFLINE 1.20 1.21 1.27 1.32 1.18 1.16 1.34 1.68 1.28 1.13 1.28
CBS3M_EDF_ONLINE 1.28 1.25 1.35 1.45 1.37 1.14 1.27 1.45 1.45 1.09 1.31
CBS3M_FIFO_OFFLINE 1.38 1.25 1.28 1.37 1.34 1.22 1.35 1.64 1.27 1.37 1.35
CBS3M_FIFO_ONLINE 1.42 1.26 1.48 1.43 1.47 1.15 1.54 1.55 1.36 1.16 1.38
FIFO_MCT 1.71 2.46 1.87 2.54 1.53 1.28 2.77 1.66 2.27 1.37 1.95
FIFO_RR 5.06 3.03 2.88 3.58 4.31 4.42 3.75 9.37 3.70 2.55 4.26
MWMA_MS 1.66 1.99 2.42 1.80 2.17 2.18 1.80 2.98 2.28 3.18 2.24
MWMA_NBT 1.22 1.45 1.43 1.53 1.53 1.63 1.36 1.67 1.48 1.49 1.48
SPT_DD 4.27 3.06 2.36 2.74 5.00 9.20 4.18 11.17 3.33 2.32 4.76
SPT_MCT 1.89 2.48 1.71 1.99 2.17 1.74 2.78 1.28 2.30 1.37 1.97
SRPT_MCT 1.91 2.41 1.72 2.00 2.17 1.76 2.79 1.64 2.27 1.38 2.00
SWRPT_MCT 1.92 2.44 1.72 1.99 2.17 1.76 2.97 1.63 2.28 1.38 2.03
"""

def _parse3(text: str) -> dict[str, tuple[str, int, tuple[Cell, ...], Cell]]:
    out = {}
    for i, line in enumerate(text.split("\n")[1:-1]):
        name, *cells = line.split()
        out[policy_of(name)] = (name.replace("_", " "), 848 + i,
                                tuple(Cell(c) for c in cells[:10]), Cell(cells[10]))
    return out


#: policy -> (name as printed, line, the ten experiments' cells, the average's cell)
TABLE3: dict[str, tuple[str, int, tuple[Cell, ...], Cell]] = _parse3(_TABLE3)
