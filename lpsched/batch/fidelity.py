"""The batch reproductions' seed-vs-ours tables, built from stored rows by the one rule of
:mod:`lpsched.core.fidelity`.

:func:`vs_seed` is the one function that builds each table: ``lpsched reproduce
contiguity | platform-level | topology-aware`` prints it (and writes
``<experiment>_vs_seed.csv`` and the JSON's ``"vs_seed"``), and the report hook
(:mod:`lpsched.batch.report`) lays it out, from the same rows and cells. Every manifest
entry of the experiment (``lpsched/report/manifests/seed000_ch45.csv``, ``seed001.csv``)
is a row at every run size, a row not measured saying why. The rows themselves:
:mod:`lpsched.batch.fidelity_ch4` (seed 000 ch. 4), :mod:`lpsched.batch.fidelity_ch5`
(ch. 5), :mod:`lpsched.batch.fidelity_seed001` (seed 001), with the readings shared in
:mod:`lpsched.batch.fidelity_rows` (decisions 520–524 and 530).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lpsched.core.fidelity import FidelityTable

__all__ = ["EXPERIMENTS", "vs_seed"]

#: the batch reproductions with a seed-vs-ours table
EXPERIMENTS = ("contiguity", "platform-level", "topology-aware")


def vs_seed(experiment: str, rows: Sequence[Mapping[str, Any]],
            cells: Sequence[Sequence[Any]], missing: Mapping[str, str] | None = None,
            ) -> FidelityTable:
    """The seed-vs-ours table of a batch reproduction from its stored rows.

    Parameters
    ----------
    experiment : {"contiguity", "platform-level", "topology-aware"}
        The reproduction.
    rows : sequence of dict
        The rows its cells stored (empty: every row not measured, saying so).
    cells : sequence of list
        The run's cells (their keys give the run's settings and size).
    missing : mapping, optional
        Trace label -> why it was not run (its file absent), for ch. 5 and seed 001.

    Returns
    -------
    FidelityTable
        Every manifest entry of ``experiment`` a row, in the seed's order of sections.

    Raises
    ------
    ValueError
        ``experiment`` is not one of :data:`EXPERIMENTS`.
    """
    if experiment == "contiguity":
        from lpsched.batch.fidelity_ch4 import contiguity_rows

        return contiguity_rows(rows, cells)
    if experiment == "platform-level":
        from lpsched.batch.fidelity_ch5 import platform_rows

        return platform_rows(rows, cells, missing)
    if experiment == "topology-aware":
        from lpsched.batch.fidelity_seed001 import topology_rows

        return topology_rows(rows, cells, missing)
    raise ValueError(f"experiment {experiment!r}: one of {', '.join(EXPERIMENTS)}")
