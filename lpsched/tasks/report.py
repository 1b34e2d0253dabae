"""The report hook of ``reproduce redirection`` (seed 000 ch. 3): its table and figures.

``lpsched report`` calls :func:`report_part` with the store of experiment ``redirection``
(``redirection.sqlite``). The chapter's results come from two runs written into one
``--out`` folder: the comparison (``reproduce redirection``, Figs 3.7-3.13 and the claims)
and the tuning grids (``reproduce redirection --tune``, Figs 3.3-3.6 and Table 3.2), whose
store is ``redirection-tuning.sqlite`` beside the comparison's (decision 552). The hook
reads both, measures the traces' own figures (Table 3.1's trace columns, Curie's 24-hour
requests) from the trace files the store's cells name, and builds the table with
:func:`lpsched.tasks.fidelity.build_table`, the function ``reproduce`` prints.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from lpsched.core.store import ResultStore
from lpsched.errors import LpschedError, StoreError
from lpsched.report.parts import FigureFile, ReportPart
from lpsched.tasks.fidelity import FIGURES, build_table, short_name, trace_facts

__all__ = ["TUNING", "TUNING_STORE", "choose_selection", "of_selection", "report_part",
           "sibling_rows", "store_facts"]

TUNING = "redirection-tuning"
"""The experiment of the tuning grids' store (``reproduce redirection --tune``)."""
TUNING_STORE = f"{TUNING}.sqlite"
"""The tuning store's file name, beside the comparison store."""


def sibling_rows(path: str | Path, experiment: str) -> list[dict[str, Any]]:
    """The rows of ``experiment`` in the store at ``path``, opened read-only; none when the
    file is absent or holds no such experiment.

    Parameters
    ----------
    path : str or Path
        A result store (e.g. ``<out>/redirection-tuning.sqlite``).
    experiment : str
        The experiment whose rows are read.

    Returns
    -------
    list of dict
        The stored rows (empty when there is no store, or the file is empty or not a
        store: a run beside it that has stored nothing yet).
    """
    if not Path(path).is_file():
        return []
    try:
        store = ResultStore(path, create=False)
    except StoreError:  # empty (a run that has stored nothing yet) or not a store
        return []
    try:
        return store.rows(experiment) if experiment in store.experiments() else []
    finally:
        store.close()


def choose_selection(rows: list[dict[str, Any]]) -> dict[str, str] | None:
    """The job selection the table reads when a store holds runs of several: the chapter's
    when present, else the most frequent.

    Parameters
    ----------
    rows : list of dict
        Stored rows (``job_status``, ``zero_run``).

    Returns
    -------
    dict or None
        ``{"status": ..., "zero_run": ...}``, or ``None`` without rows.

    Notes
    -----
    Decision 285 gives the chapter's selection.
    """
    from lpsched.tasks.reproduce import CHAPTER_SELECTION

    found = Counter((str(r.get("job_status")), str(r.get("zero_run"))) for r in rows
                    if r.get("job_status") is not None)
    if not found:
        return None
    chapter = (CHAPTER_SELECTION["status"], CHAPTER_SELECTION["zero_run"])
    status, zero_run = chapter if chapter in found else found.most_common(1)[0][0]
    return {"status": status, "zero_run": zero_run}


def of_selection(rows: list[dict[str, Any]], jobs: dict[str, str] | None,
                 ) -> list[dict[str, Any]]:
    """The rows computed under the job selection ``jobs`` (all of them when ``None``).

    Parameters
    ----------
    rows : list of dict
        Stored rows.
    jobs : dict or None
        ``{"status": ..., "zero_run": ...}``.

    Returns
    -------
    list of dict
        The rows whose ``job_status`` and ``zero_run`` are those of ``jobs``.
    """
    if jobs is None:
        return rows
    return [r for r in rows if r.get("job_status", jobs["status"]) == jobs["status"]
            and r.get("zero_run", jobs["zero_run"]) == jobs["zero_run"]]


def store_facts(stores: list[ResultStore], jobs: dict[str, str], estimates: bool = True,
                ) -> dict[str, dict[str, Any] | str]:
    """Table 3.1's trace columns of every trace the stores' cells name, read from the
    trace files (a file no longer there: the reason, as the row prints it).

    Parameters
    ----------
    stores : list of ResultStore
        The comparison and tuning stores.
    jobs : dict
        The job selection the table reads.
    estimates : bool
        Also read Curie's requested times (its 24-hour share, decision 554; the other
        traces' are never read).

    Returns
    -------
    dict
        Per trace (Table 3.1's short name): :func:`~lpsched.tasks.fidelity.trace_facts`,
        or why it was not read.
    """
    from lpsched.tasks.reproduce import trace_name

    paths: dict[str, str] = {}
    for store in stores:
        for experiment in ("redirection", TUNING):
            for key in store.done(experiment):
                cell = json.loads(key)
                if isinstance(cell, list) and cell and isinstance(cell[0], str):
                    paths.setdefault(short_name(trace_name(cell[0])), cell[0])
    facts: dict[str, dict[str, Any] | str] = {}
    for short, path in paths.items():
        if not Path(path).is_file():
            facts[short] = f"trace file {path} not found (the report reads it)"
            continue
        try:
            facts[short] = trace_facts(path, jobs["status"], jobs["zero_run"],
                                       estimates and short == "Curie")
        except (LpschedError, OSError, ValueError) as exc:
            facts[short] = f"trace file {Path(path).name} not read: {exc}"
    return facts


def _stores(store: ResultStore) -> tuple[list[dict[str, Any]], list[dict[str, Any]],
                                         list[ResultStore]]:
    """The comparison rows, the tuning rows and the tuning store opened beside (if any)."""
    have = store.experiments()
    rows = store.rows("redirection") if "redirection" in have else []
    if TUNING in have:
        return rows, store.rows(TUNING), []
    path = Path(store.path).with_name(TUNING_STORE)
    if store.path == ":memory:" or not path.is_file():
        return rows, [], []
    try:
        other = ResultStore(path, create=False)
    except StoreError:  # empty: a tuning run that has stored nothing yet
        return rows, [], []
    return rows, other.rows(TUNING) if TUNING in other.experiments() else [], [other]


def report_part(store: ResultStore | None, experiment: str, folder: Path) -> ReportPart:
    """The seed-vs-ours table of seed 000 ch. 3 and its figures, from the stores.

    Parameters
    ----------
    store : ResultStore or None
        The store of ``redirection`` (or of ``redirection-tuning``); its sibling
        ``redirection-tuning.sqlite`` is read too. ``None`` or an empty store: every row,
        not measured.
    experiment : str
        ``redirection``.
    folder : Path
        Where the figures are drawn (``<ref>.png``), created when a figure is drawn.

    Returns
    -------
    ReportPart
        The table (every manifest entry of ``redirection`` a row) and the figures drawn
        from the stored rows.
    """
    rows: list[dict[str, Any]] = []
    tuning: list[dict[str, Any]] = []
    extra: list[ResultStore] = []
    facts: dict[str, dict[str, Any] | str] = {}
    notes: list[str] = []
    jobs = None
    if store is not None:
        rows, tuning, extra = _stores(store)
        try:
            jobs = choose_selection(rows + tuning)
            if jobs is not None:
                facts = store_facts([store, *extra], jobs)
        finally:
            for other in extra:
                other.close()
        if extra:
            notes.append(f"tuning grids read from {Path(extra[0].path).name} beside the "
                         "comparison store")
        elif not tuning:
            notes.append(f"no tuning store ({TUNING_STORE}) beside the comparison store: "
                         "Table 3.2 and Figs 3.3-3.6 not measured")
    rows, tuning = of_selection(rows, jobs), of_selection(tuning, jobs)
    table = build_table(rows, tuning, facts, jobs, experiment="redirection")
    figures = _figures(rows, tuning, folder) if rows or tuning else []
    return ReportPart(experiment, table, tuple(figures), tuple(notes))


def _figures(rows: list[dict[str, Any]], tuning: list[dict[str, Any]],
             folder: Path) -> list[FigureFile]:
    """Every figure of ch. 3 the rows can draw (decision 552)."""
    try:
        from lpsched.tasks import plotting
    except ImportError:  # pragma: no cover - matplotlib is the plot extra
        return []
    out = []
    for ref, (_, trace, kind, readers) in FIGURES.items():
        path = folder / f"{ref}.png"
        source = "Figure " + ref.split("-F")[1]
        if kind == "tuning":
            along = "md" if ref in ("000-F3.3", "000-F3.4") else "x"
            drawn = plotting.tuning_panels(tuning, trace, along, path)
        else:
            drawn = plotting.comparison_panels(rows, trace, path, full=ref == "000-F3.7")
        if drawn:
            out.append(FigureFile(ref, path, f"{source} ({trace}) redrawn from {drawn}; the "
                                  f"seed prints none of its values (rows {readers} read "
                                  "the text's reading of it)"))
    return out
