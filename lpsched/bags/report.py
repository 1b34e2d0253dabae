"""The report hook of ``reproduce cbs3m`` (seed 003): its table and Figures 5–10 from a store.

:func:`report_part` reads every run of the experiment ``cbs3m`` from a result store (a store
written by ``lpsched reproduce cbs3m`` holds one profile, one written by ``lpsched reproduce
all`` holds the ``mpi`` and the ``simgrid`` profile together), builds the seed-vs-ours table
with :func:`lpsched.bags.fidelity.cbs3m_table` (the function ``reproduce cbs3m`` prints) and
redraws the seed's Figures 5–10 into a folder as ``<ref>.png``. The seed prints no values
for its figures (they are images): the markers labelled "seed" are the table values of the
same policies (Table 3's cells for Figure 5, Tables 4–8's averages for Figures 6–10).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from lpsched.bags import fidelity
from lpsched.bags import reproduce as rep
from lpsched.bags.seed_values import TABLE3, TABLES
from lpsched.core.fidelity import FidelityTable
from lpsched.core.figures import tight_layout
from lpsched.report.parts import FigureFile, ReportPart

__all__ = ["figures", "report_part", "runs_in", "table_of"]


def runs_in(store: Any, experiment: str = rep.EXPERIMENT,
            profiles: Collection[str] | None = None) -> list[fidelity.Run]:
    """Every run of ``experiment`` in ``store``, grouped by setting (largest first).

    Parameters
    ----------
    store : ResultStore or None
        A result store (``None``: no run).
    experiment : str
        The experiment's name (default ``cbs3m``).
    profiles : collection of str, optional
        Only the runs of these generator profiles (default: every profile); the other
        cells' rows are not read.

    Returns
    -------
    list of lpsched.bags.fidelity.Run
        :func:`lpsched.bags.fidelity.runs_of` over the store's cells.
    """
    if store is None:
        return []
    keys = [k for k in store.done(experiment)
            if profiles is None or str(json.loads(k)[2]) in profiles]
    return fidelity.runs_of(keys,
                            lambda cells: store.rows_of(experiment, cells, rep.ROW_SCHEMA))


def table_of(store: Any, experiment: str = rep.EXPERIMENT) -> FidelityTable:
    """The seed-vs-ours table of the runs in ``store`` (milliseconds: no simulation).

    Parameters
    ----------
    store : ResultStore or None
        A result store; ``None`` or an empty one gives every row, not measured.
    experiment : str
        The experiment's name (default ``cbs3m``).

    Returns
    -------
    FidelityTable
        :func:`lpsched.bags.fidelity.cbs3m_table` of :func:`runs_in`.
    """
    return fidelity.cbs3m_table(runs_in(store, experiment))


#: the policies the seed's text names for a figure beside CBS3M [003 L884]: SRPT and SWRPT
#: outperform it on sum-stretch (Figure 7) and on heavily loaded sum-flow (Figure 10)
_NAMED = {"sum_stretch": ("srpt-mct", "swrpt-mct"), "sum_flow": ("srpt-mct", "swrpt-mct")}


def _save(ax: Any, path: Path) -> None:
    """Write the figure of ``ax`` as a PNG and close it."""
    import matplotlib.pyplot as plt

    tight_layout(ax.figure)
    path.parent.mkdir(parents=True, exist_ok=True)
    ax.figure.savefig(path, dpi=110)
    plt.close(ax.figure)


def _figure5(run: fidelity.Run, folder: Path) -> FigureFile | None:
    """Figure 5 [003 L872] from the ``mpi`` run: ours as bars, Table 3's cells as markers."""
    from lpsched.bags import plotting

    points = rep.figure5_rows(rep.select(list(run.rows), "lazy"))
    if not points:
        return None
    seed = {p: [c.value for c in TABLE3[p][2]] for p in rep.FIGURE5_POLICIES if p in TABLE3}
    path = folder / "003-F5.png"
    _save(plotting.seed_figure5(points, seed), path)
    n = len({r["seed"] for r in points})
    return FigureFile("003-F5", path, (
        f"Figure 5 redrawn: relative max-stretch (over the LP optimum) of the best four "
        f"per experiment, ours over {n} simulated experiments of Table 1 "
        f"({run.setting.label()}); the seed prints no values for the figure: the markers "
        "'seed' are its Table 3 cells of the same policies, measured on the MPI cluster's "
        "platforms, which are not published (our experiment k is not the seed's Exp k)."))


def _load_figure(run: fidelity.Run, stats: fidelity.Stats, metric: str,
                 folder: Path) -> FigureFile | None:
    """One of Figures 6–10 [003 L915–L1015] from the ``simgrid`` run."""
    from lpsched.bags import plotting

    number, seed_rows = TABLES[metric]
    figure = number + 2
    lazy = rep.select(list(run.rows), "lazy")
    chosen = rep.best_policies(lazy, metric)
    if metric in _NAMED:  # the policies the seed's message on this figure names [003 L884]
        chosen += [p for p in _NAMED[metric] if p not in chosen]
    curve = rep.load_curves(lazy, metric, chosen)
    if not curve or not stats.n:
        return None
    values = {p: stats.values(metric, p, finite=False) for p in chosen}
    seed = {p: seed_rows[p].avg.value for p in chosen if p in seed_rows}
    ax = plotting.seed_load_figure(np.asarray(stats.load), values, curve, metric, figure,
                                   seed)
    ref = f"003-F{figure}"
    path = folder / f"{ref}.png"
    _save(ax, path)
    base = ("over the LP optimal max-stretch" if metric == "max_stretch" else
            "over the best policy of each instance")
    return FigureFile(ref, path, (
        f"Figure {figure} redrawn: {metric.replace('_', '-')} {base}, against the load (the "
        f"instance's optimal max-stretch), of our best four on average"
        + (" and SRPT/SWRPT-MCT, which the seed's text names" if metric in _NAMED else "")
        + f" over {stats.n} "
        f"instances ({run.setting.label()}); the seed does not name its 'best heuristics'; "
        f"the seed prints no values for the figure: the markers 'seed' are Table {number}'s "
        "averages of the same policies over all loads."))


def figures(runs: Sequence[fidelity.Run], folder: Path) -> list[FigureFile]:
    """Figures 5–10 of the runs the table judges (the first run of each profile).

    Parameters
    ----------
    runs : sequence of lpsched.bags.fidelity.Run
        :func:`runs_in`'s runs.
    folder : Path
        Where the PNG files go (created).

    Returns
    -------
    list of FigureFile
        One per figure drawn: Figure 5 with an ``mpi`` run, Figures 6–10 with a
        ``simgrid`` run; none without matplotlib.
    """
    try:
        import matplotlib
    except ImportError:
        return []
    matplotlib.use("Agg")
    sim = next((r for r in runs if r.setting.profile == "simgrid"), None)
    mpi = next((r for r in runs if r.setting.profile == "mpi"), None)
    out: list[FigureFile | None] = []
    if mpi is not None:
        out.append(_figure5(mpi, folder))
    if sim is not None:
        stats = fidelity.stats_of(sim.rows)
        out += [_load_figure(sim, stats, metric, folder) for metric in rep.METRICS]
    return [f for f in out if f is not None]


def report_part(store: Any, experiment: str, folder: Path) -> ReportPart:
    """The report's part of ``cbs3m``: the table of every run in ``store`` and its figures.

    Parameters
    ----------
    store : ResultStore or None
        The store of ``lpsched reproduce cbs3m`` (or of ``reproduce all``: both profiles);
        ``None`` or an empty store gives every row, not measured, and no figure.
    experiment : str
        ``"cbs3m"``.
    folder : Path
        Where Figures 5–10 are drawn, as ``003-F<N>.png``.

    Returns
    -------
    ReportPart
        The table (:func:`lpsched.bags.fidelity.cbs3m_table`), the figures drawn, and a
        note naming the runs found beside the ones judged.
    """
    runs = runs_in(store, experiment)
    table = fidelity.cbs3m_table(runs)
    drawn = figures(runs, Path(folder))
    first = {r.setting.profile: id(r) for r in reversed(runs)}
    judged = set(first.values())
    notes = [f"judged: {r.setting.label()}, {len({x['seed'] for x in r.rows})} instances"
             for r in runs if id(r) in judged]
    notes += [f"also in the store, not judged: {r.setting.label()}, "
              f"{len({x['seed'] for x in r.rows})} instances"
              for r in runs if id(r) not in judged]
    if not runs:
        notes.append("no cbs3m run in the store: every row not measured, no figure drawn")
    return ReportPart(experiment, table, tuple(drawn), tuple(notes))
