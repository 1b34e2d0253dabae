"""The report hook of seed 002's reproductions (``faircamp``: ch. 4; ``ostrich``: ch. 5),
for ``lpsched report`` (:mod:`lpsched.report.parts`).

:func:`report_part` reads one run's rows from a result store (the run at the seed's
settings when the store holds several, :func:`lpsched.campaigns.fidelity.select_cells`),
builds the seed-vs-ours table with the same builder as ``lpsched reproduce``
(:func:`lpsched.campaigns.fidelity.build_table`) and draws each figure of the seed that the
rows allow into ``folder`` as ``<entry>.png`` (:data:`lpsched.campaigns.plotting.FIGURES`).
An empty store gives every row, not measured, and only the worked examples' figures (they
are computed from the text).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from lpsched.campaigns.fidelity import build_table, select_cells
from lpsched.report.manifest import manifest
from lpsched.report.parts import FigureFile, ReportPart

__all__ = ["draw_figures", "report_part", "run_of"]

#: the worked examples each experiment's figures include (drawn from the text)
EXAMPLES = {"faircamp": ("002-F4.1", "002-F4.2"),
            "ostrich": ("002-F5.1", "002-F5.3", "002-F5.4")}


def run_of(store: Any, experiment: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The rows and cells of one run of ``experiment`` in ``store``.

    Parameters
    ----------
    store : ResultStore or None
        A result store (``None``: no run).
    experiment : str
        ``"faircamp"`` or ``"ostrich"``.

    Returns
    -------
    tuple of (list of dict, list of dict)
        The rows and the cells (both empty without a run).
    """
    if store is None:
        return [], []
    cells = select_cells(experiment, store.done(experiment))
    return (store.rows_of(experiment, cells) if cells else []), cells


def draw_figures(experiment: str, rows: list[dict[str, Any]], folder: Path) -> list[FigureFile]:
    """Draw the seed's figures of ``experiment`` that ``rows`` allow into ``folder``.

    Parameters
    ----------
    experiment : str
        ``"faircamp"`` or ``"ostrich"``.
    rows : list of dict
        The run's rows (empty: the worked examples only).
    folder : Path
        Where ``<entry>.png`` files go (created).

    Returns
    -------
    list of FigureFile
        One per file written, in the manifest's order, each with a caption naming what
        is drawn and where the seed's values are.
    """
    from lpsched.campaigns import plotting

    entries = {e.id: e for e in manifest("002") if e.experiment == experiment}
    out = []
    for ref, draw in plotting.FIGURES.items():
        if ref not in entries or (ref in plotting.FROM_STORE and not rows):
            continue
        fig = draw(rows)
        if fig is None:
            continue
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{ref}.png"
        tmp = path.with_name(f".{path.name}.tmp")
        fig.savefig(tmp, dpi=100, format="png")
        os.replace(tmp, path)  # a reader never sees half a file
        if ref in EXAMPLES[experiment]:
            text = f"redrawn from the worked example computed from the text: {entries[ref].claim}"
        else:  # what is drawn at the run's size, not the seed's
            text = f"redrawn from the stored rows: {plotting.caption(ref, rows)}"
        out.append(FigureFile(ref, path, f"{entries[ref].source}, {text} Open diamonds: the "
                              "seed's printed values, where it prints them."))
    return out


def report_part(store: Any, experiment: str, folder: Path) -> ReportPart:
    """The table and figures of ``experiment`` (``faircamp`` or ``ostrich``) for the report.

    Parameters
    ----------
    store : ResultStore or None
        The result store of ``lpsched reproduce <experiment>`` (``None`` or empty: every
        row not measured).
    experiment : str
        ``"faircamp"`` or ``"ostrich"``.
    folder : Path
        Where the figures are drawn.

    Returns
    -------
    ReportPart
        The table (:func:`lpsched.campaigns.fidelity.build_table`), the figures, and a
        note on the figures not drawn.
    """
    rows, cells = run_of(store, experiment)
    table = build_table(experiment, rows, cells)
    figures = draw_figures(experiment, rows, Path(folder))
    drawn = {f.ref for f in figures}
    missing = [e.id for e in manifest("002") if e.experiment == experiment
               and e.kind == "figure" and e.id not in drawn]
    notes = (f"Figures not drawn: {', '.join(missing)} (their rows say why).",) if missing \
        else ()
    return ReportPart(experiment, table, tuple(figures), notes)
