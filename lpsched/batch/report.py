"""The report hook of the batch reproductions: ``contiguity`` (seed 000 ch. 4),
``platform-level`` (ch. 5) and ``topology-aware`` (seed 001).

:func:`report_part` reads an experiment's rows and cells from a result store, builds its
seed-vs-ours table with :func:`lpsched.batch.fidelity.vs_seed` (the function ``lpsched
reproduce`` prints) and redraws the seed's figures from the rows into a folder as
``<ref>.png`` (:mod:`lpsched.batch.plotting`). The seeds print no values for these
figures: beside ours is what the text states, labelled "seed". An empty store gives every
row, not measured, and no figure; Fig. 2 of seed 001 is never drawn (a network simulation,
its row says why).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from lpsched.batch.fidelity import vs_seed
from lpsched.report.parts import FigureFile, ReportPart

__all__ = ["contiguity_figures", "platform_figures", "report_part", "topology_figures"]

Rows = Sequence[Mapping[str, Any]]
NOT_DRAWN = {"001-F2": "Fig. 2 is not drawn: it needs the INSEE network simulator and the "
                       "NAS Parallel Benchmark traces [001 L119-L127] (row 001-F2)"}


def report_part(store: Any, experiment: str, folder: Path) -> ReportPart:
    """The report's part of one batch reproduction: its table and its figures.

    Parameters
    ----------
    store : ResultStore or None
        The store ``lpsched reproduce EXPERIMENT --out DIR`` wrote (``DIR/EXPERIMENT
        .sqlite``); ``None`` or an empty store gives every row, not measured, and no
        figure.
    experiment : {"contiguity", "platform-level", "topology-aware"}
        The reproduction.
    folder : Path
        Where the figures are drawn, as ``<ref>.png``.

    Returns
    -------
    ReportPart
        The table (:func:`lpsched.batch.fidelity.vs_seed`), the figures drawn, notes on
        the run and on the figures not drawn.
    """
    rows = store.rows(experiment) if store is not None else []
    cells = sorted((json.loads(k) for k in store.done(experiment)), key=str) \
        if store is not None else []
    table = vs_seed(experiment, rows, cells)
    notes = [f"{len(cells)} cells, {len(rows)} rows in the store"]
    drawn: list[FigureFile] = []
    if rows:
        drawn = _draw(experiment, rows, Path(folder))
    else:
        notes.append(f"no {experiment} rows in the store: every row not measured, no "
                     "figure drawn")
    if experiment == "topology-aware":
        notes += list(NOT_DRAWN.values())
    return ReportPart(experiment, table, tuple(drawn), tuple(notes))


def _draw(experiment: str, rows: Rows, folder: Path) -> list[FigureFile]:
    """The figures of ``experiment`` (none without matplotlib)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return []
    draw: dict[str, Callable[[Rows, Path], list[FigureFile]]] = {
        "contiguity": contiguity_figures, "platform-level": platform_figures,
        "topology-aware": topology_figures}
    return draw[experiment](rows, folder)


def contiguity_figures(rows: Rows, folder: Path) -> list[FigureFile]:
    """Seed 000 Figs. 4.7–4.12 from the rows of ``reproduce contiguity``.

    Parameters
    ----------
    rows : sequence of dict
        The stored rows (:func:`lpsched.batch.reproduce.contiguity_cell`).
    folder : Path
        Where the PNG files go.

    Returns
    -------
    list of FigureFile
        ``000-F4.7`` to ``000-F4.12``.
    """
    from lpsched.batch import plotting
    from lpsched.batch.fidelity_ch4 import NAMES, per_instance

    make = {(r["alloc"], r["seed"]): float(r["makespan"]) for r in rows
            if r.get("makespan") is not None}
    seeds = sorted({s for a, s in make if a == "basic"})
    out = []
    for ref, alloc, fig in (("000-F4.7", "becont-ff", "4.7"), ("000-F4.8", "cont-ff", "4.8"),
                            ("000-F4.9", "loc", "4.9")):
        both = [s for s in seeds if (alloc, s) in make]
        xs = [make["basic", s] / 3600 for s in both]
        ys = [make[alloc, s] / 3600 for s in both]
        path = folder / f"{ref}.png"
        plotting.scatter_figure({NAMES[alloc]: (xs, ys)}, "basic makespan (h)",
                                f"{NAMES[alloc]} makespan (h)", f"Figure {fig} redrawn",
                                path)
        out.append(FigureFile(ref, path, (
            f"Figure {fig} redrawn: each instance's makespan under {NAMES[alloc]} against "
            f"basic's, ours over {len(both)} instances; the seed prints no values: the "
            "dashed diagonal is the y = x its text places the points on.")))
    data = per_instance(rows)
    for ref, measure, fig, label, word in (
            ("000-F4.10", "contiguous", "4.10", "contiguous jobs (%)",
             "forced local and best-effort contiguous highest [L2971-L2974]"),
            ("000-F4.11", "local", "4.11", "local jobs (%)",
             "best-effort local highest, about 90 % [L2982-L2983]"),
            ("000-F4.12", "ratio", "4.12", "locality ratio E(K)/E(K*)",
             "best-effort local lowest, then forced contiguous [L3008-L3011]")):
        values = {NAMES[a]: list(v.values()) for a, v in data[measure].items() if v}
        path = folder / f"{ref}.png"
        plotting.boxes_figure(values, label, f"Figure {fig} redrawn", path, word)
        out.append(FigureFile(ref, path, (
            f"Figure {fig} redrawn: {label} per allocation over our "
            f"{len(data[measure].get('basic', {}))} instances; the seed prints no values: its "
            "text's ranking is printed on the figure.")))
    return out


def platform_figures(rows: Rows, folder: Path) -> list[FigureFile]:
    """Seed 000 Figs. 5.8–5.16 from the rows of ``reproduce platform-level``.

    Parameters
    ----------
    rows : sequence of dict
        The stored rows (:func:`lpsched.batch.reproduce.platform_cell`).
    folder : Path
        Where the PNG files go.

    Returns
    -------
    list of FigureFile
        ``000-F5.8`` to ``000-F5.16``.
    """
    from lpsched.batch import plotting
    from lpsched.batch.fidelity_ch5 import SCATTERS, VARIANTS, WORSE, platform_data

    data = platform_data(rows)
    out = []

    def bars(metric: str) -> dict[str, dict[str, float | None]]:
        res: dict[str, dict[str, float | None]] = {}
        for plat, metrics in data.items():
            vals = metrics.get(metric, {})
            base = _mean(vals.get("basic", {}).values())
            res[plat] = {v: (_mean(vals[v].values()) / base if base and vals.get(v)
                             else None) for v in VARIANTS}
        return res

    seed_58 = {(p, v): (">" if (p, v) in WORSE else "<") for p in data for v in VARIANTS}
    for ref, metric, fig, side in (
            ("000-F5.8", "sum_flow", "5.8", seed_58),
            ("000-F5.13", "contiguity_factor", "5.13", {k: "<" for k in seed_58}),
            ("000-F5.14", "locality_factor", "5.14", {k: "<" for k in seed_58}),
            ("000-F5.15", "platform_level_factor", "5.15", {k: "<" for k in seed_58}),
            ("000-F5.16", "success_rate", "5.16", {k: ">" for k in seed_58})):
        path = folder / f"{ref}.png"
        plotting.bars_figure(bars(metric), f"{metric.replace('_', ' ')} / basic's",
                             f"Figure {fig} redrawn", path, side)
        out.append(FigureFile(ref, path, (
            f"Figure {fig} redrawn: each variant's mean {metric.replace('_', ' ')} over "
            f"basic's per platform, ours ({_sizes(data, metric)}); the seed prints no bar "
            "heights: the markers 'seed' give the side of 1 its text states for each "
            "variant.")))
    for ref, x, y, _line, _words in SCATTERS:
        fig = ref.split("-F")[1]
        panels = {}
        for plat, metrics in data.items():
            xs, ys = metrics.get("sum_flow", {}).get(x, {}), metrics.get("sum_flow", {}).get(
                y, {})
            keys = sorted(set(xs) & set(ys))
            panels[plat] = ([xs[k] / 3600 for k in keys], [ys[k] / 3600 for k in keys])
        path = folder / f"{ref}.png"
        plotting.scatter_figure(panels, f"{x} sum flow (h)", f"{y} sum flow (h)",
                                f"Figure {fig} redrawn", path)
        out.append(FigureFile(ref, path, (
            f"Figure {fig} redrawn: each instance's sum flow under {y} against {x}, per "
            f"platform, ours ({_sizes(data, 'sum_flow')}); the seed prints no values: the "
            "dashed diagonal is y = x, which its text compares the clouds with.")))
    return out


def _mean(values: Any) -> float:
    xs = [float(v) for v in values]
    return sum(xs) / len(xs) if xs else math.nan


def _sizes(data: Mapping[str, Any], metric: str) -> str:
    return ", ".join(f"{p} {len(m.get(metric, {}).get('basic', {}))} instances"
                     for p, m in data.items())


def topology_figures(rows: Rows, folder: Path) -> list[FigureFile]:
    """Seed 001 Figs. 3–7 from the rows of ``reproduce topology-aware`` (Fig. 2 needs a
    network simulator: not drawn).

    Parameters
    ----------
    rows : sequence of dict
        The stored rows (:func:`lpsched.batch.reproduce.topology_cell`).
    folder : Path
        Where the PNG files go.

    Returns
    -------
    list of FigureFile
        ``001-F3`` to ``001-F7`` (a figure whose workload was not run is not drawn).
    """
    from lpsched.batch import plotting
    from lpsched.batch.fidelity_seed001 import LINES, NAMES, topology_data

    data = topology_data(rows)
    out = []
    rel: dict[str, dict[str, list[tuple[float, float]]]] = {}
    for t, lines in data.items():
        for p in ("fcfs", "easy"):
            base = lines.get((p, "non-contiguous"), {}).get(0.0)
            for i, ln in enumerate(LINES):
                pt = lines.get((p, ln), {}).get(0.0)
                if base and pt and base["mean_wait_min"]:
                    rel.setdefault(p.upper(), {}).setdefault(NAMES.get(t, t), []).append(
                        (float(i), float(pt["mean_wait_min"]) / float(base["mean_wait_min"])))
    if rel:
        path = folder / "001-F3.png"
        plotting.curves_figure(rel, "wait / non-contiguous's", "Figure 3 redrawn: lines "
                               "0 = contiguous, 1–4 = quasi qct 10–40, no speed-up", path)
        out.append(FigureFile("001-F3", path, (
            "Figure 3 redrawn: mean wait of contiguous (x = 0) and quasi-contiguous (x = "
            "1-4: qct 10-40 %) over non-contiguous's, same workload and scheduler, no "
            "speed-up (ours, one line per workload); the seed prints no values, its text "
            "says 'up to 100 times' [001 L135].")))
    for ref, t, field, fig, band in (
            ("001-F4", "llnl_thunder", "mean_total_min", "4", (5.0, 30.0)),
            ("001-F5", "llnl_thunder", "mean_wait_min", "5", None),
            ("001-F6", "sdsc_blue", "mean_total_min", "6", (15.0, 25.0)),
            ("001-F7", "hpc2n", "mean_total_min", "7", (10.0, 25.0))):
        if t not in data:
            continue
        panels = _curves(data[t], field)
        path = folder / f"{ref}.png"
        what = "total time" if field == "mean_total_min" else "wait"
        plotting.curves_figure(panels, f"mean {what} (min)", f"Figure {fig} redrawn: "
                               f"{NAMES[t]}", path, band=band)
        out.append(FigureFile(ref, path, (
            f"Figure {fig} redrawn: {NAMES[t]}'s mean {what} against the speed-up, per "
            f"scheduler, six allocation lines (ours, {_jobs(data[t])} jobs); the seed "
            "prints no values" + (f": the shaded band is the break-even range its text "
                                  f"states, {band[0]:g}-{band[1]:g} %." if band else "."))))
    return out


def _curves(lines: Mapping[tuple[str, str], Mapping[float, Mapping[str, Any]]],
            field: str) -> dict[str, dict[str, list[tuple[float, float]]]]:
    """Per scheduler (FCFS first), each line's points; non-contiguous drawn flat across
    the grid."""
    grid = sorted({s for (_, ln), pts in lines.items() if ln != "non-contiguous"
                   for s in pts})
    out: dict[str, dict[str, list[tuple[float, float]]]] = {"FCFS": {}, "EASY": {}}
    for (p, ln), pts in sorted(lines.items()):  # FCFS's panel first, as the seed's
        panel = out.setdefault(p.upper(), {})
        if ln == "non-contiguous" and 0.0 in pts:
            panel[ln] = [(s, float(pts[0.0][field])) for s in grid or [0.0]]
        else:
            panel[ln] = [(s, float(r[field])) for s, r in pts.items()]
    return {k: v for k, v in out.items() if v}


def _jobs(lines: Mapping[tuple[str, str], Mapping[float, Mapping[str, Any]]]) -> str:
    jobs = {int(r["jobs"]) for pts in lines.values() for r in pts.values()}
    return ", ".join(f"{j:,}" for j in sorted(jobs))
