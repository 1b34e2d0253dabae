"""Plots with matplotlib (optional dependency: ``pip install 'lpsched[plot]'``).

* :func:`gantt` — a schedule of the star platform: the master's sends on the top row, each
  worker's computations below (with its receptions as thin bars), coloured by application,
  a legend naming the application of each colour.
* :func:`stretch_boxplot` — the distribution of max-stretch / LP optimum per policy, from
  the rows of a reproduction (runs that did not finish are counted, not plotted).
* :func:`load_figure`, :func:`figure5` — seed 003 Figures 6–10 (each metric against the
  load) and Figure 5 (the best four per experiment), from the data of
  :func:`lpsched.bags.reproduce.load_curves` / :func:`~lpsched.bags.reproduce.figure5_rows`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from lpsched.bags.instance import Instance
from lpsched.bags.schedule import Schedule
from lpsched.core.figures import tight_layout
from lpsched.errors import LpschedError


def _plt() -> Any:
    try:
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the extra
        raise LpschedError("plots need matplotlib: pip install 'lpsched[plot]'") from None
    return plt


def gantt(inst: Instance, sched: Schedule, ax: Any = None, title: str | None = None) -> Any:
    """Draw ``sched`` with a legend naming the application of each colour; returns the
    matplotlib axes.

    Parameters
    ----------
    inst : Instance
        The instance (its numbers of workers and applications set the rows and colours).
    sched : Schedule
        The schedule: the master's sends on the top row, each worker's computations (and,
        thin, its receptions) below.
    ax : matplotlib.axes.Axes or None
        The axes to draw on; ``None`` (default): a new figure sized to the workers.
    title : str or None
        The axes' title; default none.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    plt = _plt()
    if ax is None:
        _, ax = plt.subplots(figsize=(10, 1.0 + 0.45 * (inst.p + 1)))
    colors = plt.cm.tab20(np.arange(inst.n) % 20)
    rows = inst.p + 1
    # master port (row 0, drawn at the top)
    y0 = rows - 1
    ax.broken_barh(list(zip(sched.send_start, sched.send_end - sched.send_start,
                            strict=True)), (y0 + 0.1, 0.8),
                   facecolors=colors[sched.app], edgecolor="none")
    for u in range(inst.p):
        mine = sched.worker == u
        y = rows - 2 - u
        ax.broken_barh(list(zip(sched.start[mine], (sched.end - sched.start)[mine],
                                strict=True)), (y + 0.25, 0.65),
                       facecolors=colors[sched.app[mine]], edgecolor="white", linewidth=0.3)
        ax.broken_barh(list(zip(sched.send_start[mine],
                                (sched.send_end - sched.send_start)[mine], strict=True)),
                       (y + 0.05, 0.12), facecolors=colors[sched.app[mine]], edgecolor="none")
    ax.set_yticks(np.arange(rows) + 0.5)
    ax.set_yticklabels([f"P{u}" for u in range(inst.p - 1, -1, -1)] + ["master"])
    ax.set_ylim(0, rows)
    ax.set_xlabel("time (s)")
    if title:
        ax.set_title(title)
    _legend(ax, inst, colors)
    return ax


def _legend(ax: Any, inst: Instance, colors: Any) -> None:
    """One legend entry per application, in its colour: its ``name`` when the instance
    file gives one, else ``application k`` (outside the axes, so no bar is hidden)."""
    from matplotlib.patches import Patch

    names = []
    for k, app in enumerate(inst.applications):
        name = app.extra.get("name")
        names.append(name if isinstance(name, str) and name else f"application {k}")
    ax.legend(handles=[Patch(color=colors[k], label=name) for k, name in enumerate(names)],
              fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,
              ncol=1 + len(names) // 25)


def finished(row: dict[str, Any]) -> bool:
    """Whether a reproduction row is a finished run with a max-stretch and an LP bound
    (``status`` ``ok`` or absent, both numbers present and the bound positive): rows of
    a failed, timed-out or invalid run (seed 003 reproduction, metrics ``None``) are not.

    Parameters
    ----------
    row : dict
        One row of the reproduction (keys ``status``, ``max_stretch``, ``lp_bound``).

    Returns
    -------
    bool
        ``True`` for a finished run that can be plotted.
    """
    bound = row.get("lp_bound")
    return (row.get("status", "ok") == "ok" and row.get("max_stretch") is not None
            and bound is not None and float(bound) > 0)


def unfinished_counts(rows: Sequence[dict[str, Any]]) -> dict[str, int]:
    """``{policy: number of rows that are not finished runs}`` (:func:`finished`), for the
    plots' notes: such rows are counted and named, never plotted.

    Parameters
    ----------
    rows : sequence of dict
        Rows of the seed 003 reproduction (:mod:`lpsched.bags.reproduce`), each with
        ``policy``, ``max_stretch``, ``lp_bound`` and optionally ``status``.

    Returns
    -------
    dict of str to int
        Only the policies with at least one unfinished row.
    """
    out: dict[str, int] = {}
    for r in rows:
        if not finished(r):
            out[r["policy"]] = out.get(r["policy"], 0) + 1
    return out


def stretch_boxplot(rows: Sequence[dict[str, Any]], ax: Any = None,
                    order: Sequence[str] | None = None) -> Any:
    """Box plot of max-stretch / LP optimum per policy (log scale, seed 003 Table 4's
    quantity); returns the axes.

    Rows of runs that did not finish (``status`` failed / time_limit / invalid, metrics
    ``None``) are left out (:func:`unfinished_counts` names them); a policy with no finished
    run keeps its place on the axis, empty, its label marked ``(0 finished)``.

    Parameters
    ----------
    rows : sequence of dict
        Rows of the seed 003 reproduction (:mod:`lpsched.bags.reproduce`), each with
        ``policy``, ``max_stretch``, ``lp_bound`` and optionally ``status``.
    ax : matplotlib.axes.Axes or None
        The axes to draw on; ``None`` (default): a new 10 x 4 inch figure.
    order : sequence of str or None
        The policies in the order shown; ``None`` (default): sorted names of the rows.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    plt = _plt()
    policies = list(order) if order else sorted({r["policy"] for r in rows})
    data = [[float(r["max_stretch"]) / float(r["lp_bound"]) for r in rows
             if r["policy"] == p and finished(r)] for p in policies]
    if ax is None:
        _, ax = plt.subplots(figsize=(10, 4))
    ax.boxplot([d if d else [np.nan] for d in data], vert=True, showfliers=True)
    policies = [p if d else f"{p} (0 finished)" for p, d in zip(policies, data, strict=True)]
    ax.set_xticks(np.arange(1, len(policies) + 1))
    ax.set_xticklabels(policies, rotation=60, ha="right")
    ax.set_yscale("log")
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.set_ylabel("max-stretch / LP optimum")
    return ax


_TITLES = {"max_stretch": "max-stretch / LP optimum", "sum_stretch": "sum-stretch / best",
           "makespan": "makespan / best", "max_flow": "max-flow / best",
           "sum_flow": "sum-flow / best"}


def save(fig: Any, path: Any) -> None:
    """Write ``fig`` to ``path`` (the suffix picks the format) and close it; the CLI passes
    its own atomic writer instead (:func:`lpsched.bags.reproduce.write_figures`).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure (closed afterwards), laid out by :func:`tight_layout`.
    path : str or path-like
        The output file; its suffix (``.png``, ``.pdf``, ``.svg``...) picks the format
        (120 dpi for raster formats).
    """
    tight_layout(fig)
    fig.savefig(path, dpi=120)
    _plt().close(fig)


def load_figure(curve: Sequence[dict[str, Any]], metric: str,
                title: str | None = None) -> Any:
    """Seed 003 Figures 6–10 [L915–L1015]: ``metric`` (normalised as Tables 4–8) of each
    policy against the load (the LP optimal max-stretch, binned), one line per policy
    through the bins' means, from the rows of
    :func:`lpsched.bags.reproduce.load_curves`. Returns the axes.

    Parameters
    ----------
    curve : sequence of dict
        Rows of :func:`lpsched.bags.reproduce.load_curves`: ``policy``, ``load_mid`` (the
        bin's centre), ``mean`` (the metric's mean in the bin) and ``instances``; empty bins
        are skipped.
    metric : str
        The metric's name (e.g. ``"max_stretch"``), used for the axis label.
    title : str or None
        Prefix of the title (e.g. the profile's name); default: no title.

    Returns
    -------
    matplotlib.axes.Axes
        The axes of a new 7 x 4 inch figure.
    """
    plt = _plt()
    _, ax = plt.subplots(figsize=(7, 4))
    policies = list(dict.fromkeys(r["policy"] for r in curve))
    for p in policies:
        pts = sorted((r["load_mid"], r["mean"]) for r in curve
                     if r["policy"] == p and r["instances"] > 0)
        if pts:
            ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", label=p)
    ax.set_xlabel("load (optimal max-stretch of the instance)")
    ax.set_ylabel(_TITLES.get(metric, metric))
    if title:
        ax.set_title(f"{title}: {_TITLES.get(metric, metric)} against the load")
    if policies:
        ax.legend(fontsize=8)
    return ax


def figure5(points: Sequence[dict[str, Any]]) -> Any:
    """Seed 003 Figure 5 [L845, L872]: the relative max-stretch of the best four policies
    on each experiment (instance), from :func:`lpsched.bags.reproduce.figure5_rows`. Returns
    the axes.

    Parameters
    ----------
    points : sequence of dict
        Rows of :func:`lpsched.bags.reproduce.figure5_rows`: ``seed`` (the experiment),
        ``policy`` and ``value`` (its max-stretch over the LP optimum).

    Returns
    -------
    matplotlib.axes.Axes
        The axes of a new 7 x 4 inch figure, one group of bars per experiment.
    """
    plt = _plt()
    _, ax = plt.subplots(figsize=(7, 4))
    seeds = sorted({r["seed"] for r in points})
    policies = list(dict.fromkeys(r["policy"] for r in points))
    width = 0.8 / max(len(policies), 1)
    for i, p in enumerate(policies):
        val = {r["seed"]: r["value"] for r in points if r["policy"] == p}
        ax.bar(np.arange(len(seeds)) + i * width, [val.get(s, np.nan) for s in seeds],
               width, label=p)
    ax.set_xticks(np.arange(len(seeds)) + 0.4 - width / 2)
    ax.set_xticklabels([f"Exp{j + 1}" for j in range(len(seeds))], rotation=45)
    ax.set_ylabel("max-stretch / LP optimum")
    ax.set_title("Figure 5: relative max-stretch of the best four")
    if policies:
        ax.legend(fontsize=8)
    return ax


def seed_load_figure(load: np.ndarray, values: dict[str, np.ndarray],
                     curve: Sequence[dict[str, Any]], metric: str, number: int,
                     seed: dict[str, float]) -> Any:
    """Seed 003 Figure ``number`` (6–10) as the seed draws it [003 L878]: ``metric``
    against the load (the instance's LP optimal max-stretch), one colour per policy.

    A dot per instance, a line through the means of the load bins; ``metric`` is over
    the LP optimum for the max-stretch, over the instance's best policy otherwise; at the
    right edge the seed's table average of the same policy over all loads (the seed
    prints no value of the figure itself), labelled ``seed``.

    Parameters
    ----------
    load : numpy.ndarray
        Each instance's LP optimal max-stretch.
    values : dict of str to numpy.ndarray
        Each drawn policy's relative values, instance by instance (NaN: not finished).
    curve : sequence of dict
        The binned means (:func:`lpsched.bags.reproduce.load_curves`: ``policy``,
        ``load_mid``, ``mean``, ``instances``).
    metric : str
        The metric (``"max_stretch"``, ``"sum_flow"``...): the y axis' label.
    number : int
        The seed's figure number (its table is ``number - 2``).
    seed : dict of str to float
        The seed's table average of each policy (those without one get no marker).

    Returns
    -------
    matplotlib.axes.Axes
        The axes of a new 7.5 x 4.5 inch figure.

    Notes
    -----
    Returns the axes.
    """
    plt = _plt()
    _, ax = plt.subplots(figsize=(7.5, 4.5))
    colors = plt.cm.tab10(np.arange(max(len(values), 1)) % 10)
    right = float(np.nanmax(load)) if load.size else 1.0
    for color, (policy, v) in zip(colors, values.items(), strict=False):
        ok = np.isfinite(v)
        ax.scatter(load[ok], v[ok], s=10, alpha=0.35, color=color)
        pts = sorted((r["load_mid"], r["mean"]) for r in curve
                     if r["policy"] == policy and r["instances"] > 0)
        ax.plot([x for x, _ in pts], [y for _, y in pts], color=color, marker="o", ms=4,
                label=f"{policy} (ours: bin means, dots per instance)")
        if policy in seed:
            ax.plot([right], [seed[policy]], marker="<", ms=9, color=color, ls="none",
                    markeredgecolor="black",
                    label=f"seed: {policy}, Table {number - 2} average (all loads)")
    ax.set_xlabel("load (optimal max-stretch of the instance)")
    ax.set_ylabel(_TITLES.get(metric, metric))
    ax.set_title(f"Figure {number}: {_TITLES.get(metric, metric)} against the load")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    return ax


def seed_figure5(points: Sequence[dict[str, Any]],
                 seed: Mapping[str, Sequence[float]]) -> Any:
    """Seed 003 Figure 5 [003 L845, L872]: the relative max-stretch of the best four
    policies in each experiment, ours as bars and the seed's Table 3 cells as markers.

    Ours come from :func:`lpsched.bags.reproduce.figure5_rows`; the seed's markers are
    labelled ``seed`` (the seed's Exp k is another platform than our experiment k).

    Parameters
    ----------
    points : sequence of dict
        ``seed`` (our experiment), ``policy`` and ``value`` (max-stretch / LP optimum).
    seed : mapping of str to sequence of float
        Each policy's ten Table 3 cells, Exp1 to Exp10.

    Returns
    -------
    matplotlib.axes.Axes
        The axes of a new 8 x 4.5 inch figure, one group of bars per experiment.

    Notes
    -----
    Returns the axes.
    """
    plt = _plt()
    _, ax = plt.subplots(figsize=(8, 4.5))
    seeds = sorted({r["seed"] for r in points})
    policies = list(dict.fromkeys([*(r["policy"] for r in points), *seed]))
    count = max(len(seeds), max((len(v) for v in seed.values()), default=0))
    width = 0.8 / max(len(policies), 1)
    colors = plt.cm.tab10(np.arange(max(len(policies), 1)) % 10)
    for i, p in enumerate(policies):
        val = {r["seed"]: r["value"] for r in points if r["policy"] == p}
        x = np.arange(count) + i * width
        if val:
            ax.bar(x[:len(seeds)], [val.get(s, np.nan) for s in seeds], width,
                   color=colors[i], label=f"{p} (ours)")
        if p in seed:
            ax.plot(x[:len(seed[p])], seed[p], marker="D", ms=5, ls="none", color=colors[i],
                    markeredgecolor="black", label=f"seed: {p} (Table 3)")
    ax.set_xticks(np.arange(count) + 0.4 - width / 2)
    ax.set_xticklabels([f"Exp{j + 1}" for j in range(count)], rotation=45)
    ax.set_ylabel("max-stretch / LP optimum")
    ax.set_title("Figure 5: relative max-stretch of the best four, per experiment")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    return ax
