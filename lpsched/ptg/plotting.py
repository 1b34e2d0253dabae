"""Figures of seed 004: the Gantt chart of a multi-PTG schedule (spec §(b).8), the
harmonic-mean ratio planes with their Pareto sets (Figs 5–7) and the whole set of Figs
2–8 of a reproduction. matplotlib is imported lazily (it is in the dev extras)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from lpsched.core.figures import tight_layout
from lpsched.ptg.schedule import PtgSchedule


def draw_gantt(ax: Any, sched: PtgSchedule, processors: int, title: str = "",
               labels: Sequence[str] | None = None) -> Any:
    """Draw a schedule on ``ax``: every task as one bar per processor it holds, coloured
    by its PTG (matplotlib's ``tab20`` colours, PTG ``i`` in colour ``i mod 20``), with a
    legend naming the PTG of each colour (outside the axes, on the right, so it never
    hides a bar).

    Zero-cost dummy tasks hold no processor and draw nothing. O(Σ p_v) rectangles, drawn
    as one collection.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    sched : PtgSchedule
        The schedule (e.g. ``run(pb, name).schedule``).
    processors : int
        The cluster's ``P`` (the height of the chart).
    title : str
        The axes' title.
    labels : sequence of str, optional
        One name per PTG, in PTG order (e.g. ``[g.name for g in pb.ptgs]``); default
        ``PTG 0``, ``PTG 1``, ... for the PTGs of the schedule.

    Returns
    -------
    matplotlib.axes.Axes
        ``ax``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> from lpsched.ptg.generators import fft_ptg
    >>> from lpsched.ptg.model import get_cluster
    >>> from lpsched.ptg.problem import Problem
    >>> from lpsched.ptg.registry import run
    >>> pb = Problem([fft_ptg(4, seed=1), fft_ptg(4, seed=2)], get_cluster("chti"))
    >>> fig, ax = plt.subplots()
    >>> ax = draw_gantt(ax, run(pb, "selfish").schedule, pb.P, "selfish", ["a", "b"])
    >>> len(ax.collections), [t.get_text() for t in ax.get_legend().get_texts()]
    (1, ['a', 'b'])
    >>> plt.close(fig)
    """
    import matplotlib.pyplot as plt
    from matplotlib.collections import PolyCollection
    from matplotlib.patches import Patch

    cmap = plt.get_cmap("tab20")
    verts, colors = [], []
    for k, ids in enumerate(sched.procs):
        s, e = float(sched.start[k]), float(sched.end[k])
        for q in np.asarray(ids).tolist():
            verts.append([(s, q), (e, q), (e, q + 0.9), (s, q + 0.9)])
            colors.append(cmap(int(sched.owner[k]) % 20))
    ax.add_collection(PolyCollection(verts, facecolors=colors, edgecolors="none"))
    ax.set_xlim(0, max(sched.makespan, 1e-9))
    ax.set_ylim(0, processors)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("processor")
    ax.set_title(title)
    if labels is None:
        n = int(np.max(sched.owner)) + 1 if len(sched.owner) else 0
        labels = [f"PTG {i}" for i in range(n)]
    if len(labels):
        ax.legend(handles=[Patch(color=cmap(i % 20), label=str(name))
                           for i, name in enumerate(labels)],
                  fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  borderaxespad=0.0, title="PTG", title_fontsize=7,
                  ncol=1 + len(labels) // 25)
    return ax


def gantt(sched: PtgSchedule, processors: int, path: str | Path, title: str = "",
          labels: Sequence[str] | None = None) -> None:
    """Draw every task as one bar per processor, coloured by PTG, with a legend naming each PTG's
    colour, and save to ``path`` (:func:`draw_gantt` on a new 10 × 5 inch figure).

    O(Σ p_v) rectangles.

    Parameters
    ----------
    sched : PtgSchedule
        The schedule to draw.
    processors : int
        The cluster's processors (the chart's rows).
    path : str or Path
        The image file (.png, .pdf or .svg, by its suffix).
    title : str
        The chart's title.
    labels : sequence of str, optional
        One name per PTG for the legend (default ``PTG 0``, ``PTG 1``, ...).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 5))
    draw_gantt(ax, sched, processors, title, labels)
    tight_layout(fig)
    fig.savefig(str(path))
    plt.close(fig)


def pareto_plot(ax: Any, points: Mapping[str, tuple[float, float]], front: Sequence[str],
                xlabel: str, ylabel: str, title: str = "") -> Any:
    """One point per algorithm on ``ax``, the Pareto set marked (smaller is better on both
    axes): its points in red and joined by the staircase of the front, the others in blue,
    every point named (the names of equal points share one label, ``a = b``).

    The planes of seed 004 Figs 5–7 (harmonic means of the ratios to SELFISH,
    ``summary(rows)["ratios_to_selfish"]`` and ``["pareto"]``), or any per-scenario pair of
    metrics with the front of :func:`lpsched.ptg.reproduce.pareto_front`.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    points : mapping of str to (float, float)
        ``(x, y)`` per algorithm.
    front : sequence of str
        The names of the Pareto set (a subset of ``points``).
    xlabel, ylabel : str
        Axis labels.
    title : str
        The axes' title.

    Returns
    -------
    matplotlib.axes.Axes
        ``ax``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> from lpsched.ptg.reproduce import pareto_front
    >>> pts = {"a": (1.0, 2.0), "b": (2.0, 1.0), "c": (2.0, 2.0), "d": (2.0, 2.0)}
    >>> fig, ax = plt.subplots()
    >>> ax = pareto_plot(ax, pts, pareto_front(pts), "SSCT", "MaxS")
    >>> [t.get_text() for t in ax.texts]
    ['a', 'b', 'c = d']
    >>> plt.close(fig)
    """
    on = set(front)
    same: dict[tuple[float, float], list[str]] = {}
    for name, (x, y) in points.items():
        same.setdefault((float(x), float(y)), []).append(name)
    for (x, y), names in same.items():
        ax.scatter(x, y, c="C3" if on & set(names) else "C0", zorder=3)
        ax.annotate(" = ".join(names), (x, y), fontsize=7, xytext=(3, 3),
                    textcoords="offset points")
    stair = sorted(points[name] for name in front)
    if len(stair) > 1:
        ax.step([p[0] for p in stair], [p[1] for p in stair], where="post", c="C3",
                lw=0.8, alpha=0.6, zorder=2)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    return ax


def summary_figures(summ: dict[str, Any], folder: str | Path) -> list[Path]:
    """Figs 2–8 of seed 004 from :func:`lpsched.ptg.reproduce.summary`: box plots of SSCT,
    Cmax and MaxS per population (whiskers = min and max, spec §2.6), the harmonic-mean
    ratio planes with the Pareto sets (:func:`pareto_plot`), and mean MaxS versus ``N``.

    Parameters
    ----------
    summ : dict
        The summary of the run's rows.
    folder : str or Path
        Where the PNG files are written.

    Returns
    -------
    list of Path
        The figures written (seven when every part is in the summary).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = []
    folder = Path(folder)
    for num, metric in ((2, "ssct"), (3, "makespan"), (4, "max_stretch")):
        pops = summ["boxes"][metric]
        fig, axes = plt.subplots(len(pops), 1, figsize=(11, 3 * len(pops)), squeeze=False)
        for ax, (pop, per) in zip(axes[:, 0], pops.items(), strict=True):
            stats = [{"label": a, "whislo": b["min"], "q1": b["q1"], "med": b["median"],
                      "q3": b["q3"], "whishi": b["max"]} for a, b in per.items()]
            ax.bxp(stats, showfliers=False)
            ax.set_title(f"{metric} ({pop})")
            ax.tick_params(axis="x", labelrotation=60, labelsize=7)
        tight_layout(fig)
        out.append(folder / f"fig{num}_{metric}.png")
        fig.savefig(out[-1])
        plt.close(fig)
    ratios = summ.get("ratios_to_selfish", {})
    for num, (x, y, key) in ((5, ("makespan", "ssct", "ssct_vs_cmax")),
                             (6, ("makespan", "max_stretch", "maxs_vs_cmax")),
                             (7, ("ssct", "max_stretch", "maxs_vs_ssct"))):
        if not ratios:
            break
        fig, ax = plt.subplots(figsize=(7, 6))
        pareto_plot(ax, {a: (v[x], v[y]) for a, v in ratios.items()}, summ["pareto"][key],
                    f"harmonic mean of {x} / SELFISH", f"harmonic mean of {y} / SELFISH")
        out.append(folder / f"fig{num}_{key}.png")
        fig.savefig(out[-1])
        plt.close(fig)
    fig, ax = plt.subplots(figsize=(8, 5))
    for a, per in summ["mean_max_stretch_by_N"].items():
        ax.plot([int(n) for n in per], list(per.values()), marker="o", label=a)
    ax.set_xlabel("N")
    ax.set_ylabel("mean MaxS")
    ax.legend(fontsize=6, ncol=2)
    out.append(folder / "fig8_maxs_vs_n.png")
    fig.savefig(out[-1])
    plt.close(fig)
    return out


#: the populations of Figs 2-4, in the seed's order within each algorithm [004 L550-L551]
SEED_POPULATIONS = ("random", "strassen", "fft", "all")
#: the box statistics the seed prints, drawn as "seed" markers: figure -> (algorithm,
#: statistic index 0..4 = min, Q1, median, Q3, max, value) [004 L572-L662]
SEED_BOX_MARKS: dict[int, tuple[tuple[str, int, float], ...]] = {
    2: (("selfish", 4, 8.43), ("selfish-order", 4, 3.75), ("selfish-order", 3, 2.46),
        ("selfish-order", 2, 1.71), ("selfish-order", 1, 1.17), ("selfish-order", 0, 0.96),
        ("selfish-weight", 4, 7.69), ("selfish-weight", 2, 1.71), ("cafm-lptf", 4, 6.0)),
    3: (("cafm-cra", 4, 1310.69), ("cafm-cra", 3, 404.73), ("cafm-cra", 2, 249.35),
        ("cafm-cra", 0, 3.71)),
    4: (("selfish", 2, 17.49), ("selfish", 4, 487.69), ("selfish-weight", 2, 2.38),
        ("selfish-weight", 4, 42.18), ("selfish-order", 2, 1.79), ("selfish-order", 3, 2.40),
        ("selfish-order", 4, 5.23), ("cafm-k-shelves", 2, 2.43), ("cafm-k-shelves", 3, 4.18),
        ("cafm-k-shelves", 4, 21.09), ("cafm-saf", 4, 17.98), ("cafm-sptf", 4, 17.98))}
#: the harmonic-mean ratios to SELFISH the seed prints (Fig. 5): CAFM CRA's Cmax about
#: 0.80 [004 L689-L690]
_METRIC_LABEL = {"ssct": "scaled sum completion time", "makespan": "makespan (s)",
                 "max_stretch": "maximum stretch"}


_RATIO_LABEL = {"ssct": "scaled sum completion time", "makespan": "makespan",
                "max_stretch": "maximum stretch"}


def _box_figure(st: Any, num: int, metric: str, path: Path) -> None:
    """Fig. ``num`` as the seed draws it: for each algorithm four boxes side by side
    (random, Strassen, FFT, all PTGs), whiskers at min and max, the seed's printed values
    as black markers on the all-PTGs box."""
    import matplotlib.pyplot as plt

    from lpsched.ptg.fidelity import display

    fig, ax = plt.subplots(figsize=(13, 5))
    width = 0.2
    for k, pop in enumerate(SEED_POPULATIONS):
        q = st.quant(metric, pop)
        if q is None:
            continue
        stats = [{"label": "", "whislo": q[0, 0, j], "q1": q[1, 0, j], "med": q[2, 0, j],
                  "q3": q[3, 0, j], "whishi": q[4, 0, j]} for j in range(len(st.algs))]
        pos = np.arange(len(st.algs)) + (k - 1.5) * width
        art = ax.bxp(stats, positions=pos, widths=width * 0.9, showfliers=False,
                     patch_artist=True, medianprops={"color": "k"})
        for b in art["boxes"]:
            b.set_facecolor(f"C{k}")
        art["boxes"][0].set_label(pop if pop != "all" else "all PTGs")
    marks = [(st.col(a) + 1.5 * width, v) for a, _k, v in SEED_BOX_MARKS.get(num, ())
             if st.has(a)]
    if marks:
        ax.scatter([m[0] for m in marks], [m[1] for m in marks], marker="x", color="k",
                   zorder=5, label="seed")
    ax.set_xticks(np.arange(len(st.algs)), [display(a) for a in st.algs], rotation=60,
                  fontsize=7, ha="right")
    ax.set_ylabel(_METRIC_LABEL[metric])
    if metric == "max_stretch":
        ax.set_yscale("log")
    ax.legend(fontsize=7)
    tight_layout(fig)
    fig.savefig(path)
    plt.close(fig)


def _plane_figure(st: Any, x: str, y: str, algs: Sequence[str], path: Path,
                  seed_points: Mapping[str, tuple[float | None, float | None]]) -> None:
    """A plane of Figs 5-7: harmonic means of the ratios to SELFISH of ``algs``, the front
    joined, the seed's printed ratios as markers (a ``None`` coordinate: drawn as a line)."""
    import matplotlib.pyplot as plt

    from lpsched.ptg.fidelity import display
    from lpsched.ptg.reproduce import pareto_front

    hx, hy = st.hmean(x), st.hmean(y)
    pts = {display(a): (float(hx[0, st.col(a)]), float(hy[0, st.col(a)])) for a in algs
           if st.has(a)}
    fig, ax = plt.subplots(figsize=(7, 6))
    pareto_plot(ax, pts, pareto_front(pts), f"mean relative {_RATIO_LABEL[x]}",
                f"mean relative {_RATIO_LABEL[y]}")
    for k, (name, (sx, sy)) in enumerate(seed_points.items()):
        if sx is not None and sy is None:
            ax.axvline(sx, c="k", ls=(":", "--", "-.")[k % 3], lw=1, label=f"seed: {name}")
    if seed_points:
        ax.legend(fontsize=7)
    tight_layout(fig)
    fig.savefig(path)
    plt.close(fig)


def seed_figures(st: Any, folder: str | Path) -> list[tuple[str, Path, str]]:
    """Figs 2-8 of seed 004 redrawn from a run's rows as the seed draws them.

    Figs 2-4: four boxes per algorithm (random, Strassen, FFT, all PTGs) on one axis;
    Fig. 5: all algorithms in the SSCT-Cmax plane; Figs 6-7: the six non-dominated of
    Fig. 5 [004 L706-L712]; Fig. 8: SELFISH and the fairest of each family [004 L727].

    Parameters
    ----------
    st : lpsched.ptg.fidelity.Study
        The run's rows (:func:`lpsched.ptg.fidelity.study_of`).
    folder : str or Path
        Where the PNG files go, named ``<manifest id>.png`` (``004-F2.png``).

    Returns
    -------
    list of (str, Path, str)
        ``(ref, path, caption)`` of each figure written.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lpsched.ptg.fidelity import FIG8, SEED_SIX, display

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    size = f"{st.size:,} scenario{'s' if st.size != 1 else ''}"
    out = []
    for num, metric in ((2, "ssct"), (3, "makespan"), (4, "max_stretch")):
        path = folder / f"004-F{num}.png"
        _box_figure(st, num, metric, path)
        out.append((f"004-F{num}", path, f"Figure {num}: {_METRIC_LABEL[metric]} per "
                    f"algorithm and population over the run's {size}, whiskers at min and "
                    "max; x: the seed's printed values (over its 1,500)"))
    if st.has("selfish"):
        for num, x, y, algs, seed in (
                (5, "makespan", "ssct", st.algs, {"CAFM CRA Cmax 0.80": (0.80, None),
                                                  "SELFISH ORDER Cmax > 1.10": (1.10, None)}),
                (6, "makespan", "max_stretch", SEED_SIX, {}),
                (7, "ssct", "max_stretch", SEED_SIX, {})):
            path = folder / f"004-F{num}.png"
            _plane_figure(st, x, y, algs, path, seed)
            out.append((f"004-F{num}", path, f"Figure {num}: harmonic means over the "
                        f"run's {size} of the ratios to SELFISH, {len(algs)} algorithms, "
                        "non-dominated in red"))
    ns = sorted(set(st.n.tolist()))
    fig, ax = plt.subplots(figsize=(7, 5))
    for a in FIG8:
        if st.has(a):
            ys = [st.mean("max_stretch", ("n", n))[0, st.col(a)] for n in ns]
            ax.plot(ns, ys, marker="o", label=display(a))
    ax.set_xlabel("number of PTGs")
    ax.set_ylabel("mean maximum stretch")
    ax.legend(fontsize=7)
    tight_layout(fig)
    path = folder / "004-F8.png"
    fig.savefig(path)
    plt.close(fig)
    per_n = ", ".join(f"{int((st.n == n).sum())} at N = {n}" for n in ns)
    out.append(("004-F8", path, "Figure 8: mean maximum stretch against the number of PTGs "
                f"over the run's {size} ({per_n}), SELFISH and the fairest of each family "
                "(the seed prints no values)"))
    return out
