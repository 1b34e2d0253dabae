"""The report hook of the experiment ``ptg`` (seed 004): its seed-vs-ours table and Figs
2-8 from a result store (:mod:`lpsched.report.parts`).

The table is :func:`lpsched.ptg.fidelity.ptg_table`, the one ``lpsched reproduce ptg``
prints; the run's size is the number of scenarios in the store and its improved-HCPA bound
is read from the cells' keys (the last item of every cell,
:func:`lpsched.ptg.reproduce.cells`).
"""

from __future__ import annotations

import json
from pathlib import Path

from lpsched.core.store import ResultStore
from lpsched.ptg.fidelity import ptg_table, study_of
from lpsched.report.parts import FigureFile, ReportPart

__all__ = ["report_part", "store_bound"]


def store_bound(store: ResultStore, experiment: str = "ptg") -> str:
    """The improved-HCPA bound the store's scenarios ran under.

    Parameters
    ----------
    store : ResultStore
        A store holding ``experiment``'s cells.
    experiment : str
        The experiment's name.

    Returns
    -------
    str
        The bound of the cells (``literal`` when the store has none); several bounds are
        joined with ``+`` (such a table mixes runs, and its gaps are the default's).
    """
    bounds = sorted({str(json.loads(k)[-1]) for k in store.done(experiment)})
    return "+".join(bounds) if bounds else "literal"


def report_part(store: ResultStore | None, experiment: str, folder: Path) -> ReportPart:
    """Seed 004's table and figures from the rows of ``store``.

    Parameters
    ----------
    store : ResultStore or None
        The store of a ``reproduce ptg`` run; ``None`` or an empty store gives every row,
        not measured, and no figure.
    experiment : str
        ``ptg``.
    folder : Path
        Where the figures are written (``004-F2.png`` ... ``004-F8.png``).

    Returns
    -------
    ReportPart
        The table, the figures drawn, and a note on the run's bound.
    """
    has = store is not None and experiment in store.experiments()
    rows = store.rows(experiment) if has and store is not None else []
    bound = store_bound(store, experiment) if has and store is not None else "literal"
    table = ptg_table(rows, bound)
    figures: tuple[FigureFile, ...] = ()
    st = study_of(rows) if rows else None
    if st is not None:
        from lpsched.ptg.plotting import seed_figures

        figures = tuple(FigureFile(ref, path, caption)
                        for ref, path, caption in seed_figures(st, Path(folder)))
    notes = (f"improved-HCPA bound of the rows: {bound}",) if rows else ()
    return ReportPart(experiment, table, figures, notes)
