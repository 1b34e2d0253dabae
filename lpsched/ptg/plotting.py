"""Gantt chart of a multi-PTG schedule (spec §(b).8); matplotlib is imported lazily (it is
in the dev extras)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from lpsched.ptg.schedule import PtgSchedule


def gantt(sched: PtgSchedule, processors: int, path: str | Path, title: str = "") -> None:
    """Draw every task as one bar per processor, coloured by PTG, and save to ``path``.
    O(Σ p_v) rectangles."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import PolyCollection

    cmap = plt.get_cmap("tab20")
    verts, colors = [], []
    for k, ids in enumerate(sched.procs):
        s, e = float(sched.start[k]), float(sched.end[k])
        for q in np.asarray(ids).tolist():
            verts.append([(s, q), (e, q), (e, q + 0.9), (s, q + 0.9)])
            colors.append(cmap(int(sched.owner[k]) % 20))
    fig, ax = plt.subplots(figsize=(10, 5))
    ax.add_collection(PolyCollection(verts, facecolors=colors, edgecolors="none"))
    ax.set_xlim(0, max(sched.makespan, 1e-9))
    ax.set_ylim(0, processors)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("processor")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(str(path))
    plt.close(fig)


def summary_figures(summ: dict[str, Any], folder: str | Path) -> list[Path]:
    """Figs 2–8 of seed 004 from :func:`lpsched.ptg.reproduce.summary`: box plots of SSCT,
    Cmax and MaxS per population (whiskers = min and max, spec §2.6), the harmonic-mean
    ratio planes with the Pareto sets, and mean MaxS versus ``N``. Returns the files."""
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
        fig.tight_layout()
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
        for a, v in ratios.items():
            ax.scatter(v[x], v[y], c="C3" if a in summ["pareto"][key] else "C0")
            ax.annotate(a, (v[x], v[y]), fontsize=7)
        ax.set_xlabel(f"harmonic mean of {x} / SELFISH")
        ax.set_ylabel(f"harmonic mean of {y} / SELFISH")
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
