"""The batch reproductions' figures, redrawn from stored rows (needs ``matplotlib``).

Seed 000 Figs. 4.7–4.12 (ch. 4), Figs. 5.8–5.16 (ch. 5) and seed 001 Figs. 3–7. The seeds
print no values for these figures (they are images): what is drawn beside ours is what the
text states, labelled "seed" (the diagonal ``y = x`` the text says most points lie on, the
side of 1 the text gives each variant, the break-even ranges).

Each function draws one figure into ``path`` (PNG) and returns nothing; the report hook
(:mod:`lpsched.batch.report`) calls them with the rows of a store.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lpsched.core.figures import tight_layout

__all__ = ["bars_figure", "boxes_figure", "curves_figure", "scatter_figure"]


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: str | Path) -> None:
    plt = _pyplot()
    tight_layout(fig)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def scatter_figure(panels: Mapping[str, tuple[Sequence[float], Sequence[float]]],
                   xlabel: str, ylabel: str, title: str, path: str | Path) -> None:
    """Per-instance values of one allocation against another's (Figs. 4.7–4.9,
    5.9–5.12), one panel per platform, with the diagonal ``y = x`` labelled "seed: most
    points on y = x" where the text says so.

    Parameters
    ----------
    panels : mapping of str to (xs, ys)
        Panel title -> the instances' x and y values (same order).
    xlabel, ylabel, title : str
        Axis labels and the figure's title.
    path : str or Path
        The PNG written.
    """
    plt = _pyplot()
    n = max(len(panels), 1)
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.8 * rows), squeeze=False)
    for ax, (name, (xs, ys)) in zip(axes.flat, panels.items(), strict=False):
        ax.scatter(xs, ys, s=14, label=f"ours ({len(xs)} instances)")
        lo = min([*xs, *ys], default=0.0)
        hi = max([*xs, *ys], default=1.0)
        ax.plot([lo, hi], [lo, hi], "k--", lw=1, label="seed: y = x")
        ax.set_title(name, fontsize=9)
        ax.set_xlabel(xlabel, fontsize=8)
        ax.set_ylabel(ylabel, fontsize=8)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    fig.suptitle(title, fontsize=10)
    _save(fig, path)


def boxes_figure(values: Mapping[str, Sequence[float]], ylabel: str, title: str,
                 path: str | Path, seed_note: str = "") -> None:
    """A measure per allocation over the instances (Figs. 4.10–4.12): a box per
    allocation, the mean marked.

    Parameters
    ----------
    values : mapping of str to sequence of float
        Allocation name -> its per-instance values.
    ylabel, title : str
        Axis label and title.
    path : str or Path
        The PNG written.
    seed_note : str
        The seed's word on the figure, printed under the title as "seed: ...".
    """
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    names = list(values)
    ax.boxplot([list(values[k]) for k in names], showmeans=True)
    ax.set_xticks(range(1, len(names) + 1), names, fontsize=8, rotation=15)
    ax.plot([], [], "g^", label="mean (ours)")
    ax.set_ylabel(ylabel)
    ax.set_title(title + (f"\nseed: {seed_note}" if seed_note else ""), fontsize=9)
    ax.legend(fontsize=7)
    _save(fig, path)


def bars_figure(bars: Mapping[str, Mapping[str, float | None]], ylabel: str, title: str,
                path: str | Path,
                seed: Mapping[tuple[str, str], str] | None = None) -> None:
    """Grouped bars: per platform, each variant's value over basic's (Figs. 5.8,
    5.13–5.16), the line ``1`` (basic), and where the text gives a variant's side of 1
    a marker labelled "seed: below 1" (▼) or "seed: above 1" (▲) at 1.

    Parameters
    ----------
    bars : mapping
        Platform -> variant -> its mean over basic's (``None``: not run).
    ylabel, title : str
        Axis label and title.
    path : str or Path
        The PNG written.
    seed : mapping, optional
        ``(platform, variant) -> "<"`` or ``">"``: the side of 1 the seed states.
    """
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(9, 4))
    plats = list(bars)
    variants = sorted({v for p in plats for v in bars[p]})
    width = 0.8 / max(len(variants), 1)
    marked: set[str] = set()
    for j, v in enumerate(variants):
        xs = [i + j * width for i in range(len(plats))]
        hs = [bars[p].get(v) or 0.0 for p in plats]
        ax.bar(xs, hs, width, label=v)
        for x, p in zip(xs, plats, strict=True):
            side = (seed or {}).get((p, v))
            if side:
                label = "seed: below 1" if side == "<" else "seed: above 1"
                ax.plot(x, 1.0, "kv" if side == "<" else "k^", ms=4,
                        label=None if label in marked else label)
                marked.add(label)
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(plats))], plats, fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, ncol=3)
    _save(fig, path)


def curves_figure(panels: Mapping[str, Mapping[str, Sequence[tuple[float, float]]]],
                  ylabel: str, title: str, path: str | Path, log: bool = True,
                  band: tuple[float, float] | None = None) -> None:
    """Seed 001's figures: per scheduler a panel, one line per allocation against the
    speed-up (log y as the seed's), and the break-even range the seed states as a shaded
    band labelled "seed".

    Parameters
    ----------
    panels : mapping
        Panel (scheduler) -> line -> ``(speed-up %, value)`` points.
    ylabel, title : str
        Axis label and title.
    path : str or Path
        The PNG written.
    log : bool
        A logarithmic y axis (the seed's [001 L156]) when every value is positive.
    band : (float, float), optional
        The seed's break-even range (%), shaded.
    """
    plt = _pyplot()
    fig, axes = plt.subplots(1, max(len(panels), 1), figsize=(5 * max(len(panels), 1), 4),
                             squeeze=False)
    for ax, (name, lines) in zip(axes.flat, panels.items(), strict=False):
        for label, pts in lines.items():
            pts = sorted(pts)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3, label=label)
        if band:
            ax.axvspan(band[0], band[1], color="grey", alpha=0.2,
                       label=f"seed: break-even {band[0]:g}–{band[1]:g} %")
        if log and all(p[1] > 0 for pts in lines.values() for p in pts):
            ax.set_yscale("log")  # a wait of 0 keeps the axis linear
        ax.set_xlabel("speed-up (%)")
        ax.set_ylabel(ylabel)
        ax.set_title(name, fontsize=9)
        ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=10)
    _save(fig, path)
