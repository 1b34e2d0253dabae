"""Figures of the seed 000 ch. 3 reproduction (needs ``matplotlib``, the ``plot`` extra).

The six metrics per policy (Figs 3.7–3.13, normalised by the proven lower bound where there
is one, by GSRPT otherwise) and the tuning curves (Figs 3.3–3.6: metric vs ``m_d``, one
line per ``τ`` or ``c``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lpsched.tasks.reproduce import METRICS

_BOUNDED = {"max_stretch", "max_flow", "sum_flow"}


def comparison_figure(summ: list[dict[str, Any]], trace: str, path: str | Path) -> None:
    """One panel per metric, one bar per policy, for ``trace`` (seed 000 Figures 3.7-3.13:
    the comparison of §3.5.2).

    Parameters
    ----------
    summ : list of dict
        :func:`~lpsched.tasks.reproduce.summary` rows (trace, policy).
    trace : str
        The trace whose rows are drawn.
    path : str or Path
        The image written (PNG, SVG or PDF by its suffix).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in summ if r["trace"] == trace]
    ref = next((r for r in rows if r["policy"] == "gsrpt"), None)
    fig, axes = plt.subplots(2, 3, figsize=(13, 7))
    for ax, metric in zip(axes.ravel(), METRICS, strict=True):
        names, values = [], []
        for r in rows:
            if metric in _BOUNDED:
                value = r.get(f"{metric}_over_lb")
            else:
                value = (r[metric] / ref[metric] if ref and ref[metric]
                         and r[metric] is not None else None)
            if value is not None:
                names.append(r["policy"])
                values.append(value)
        ax.bar(names, values, color="tab:blue")
        ax.set_yscale("log")
        ax.set_title(f"{metric} / {'lower bound' if metric in _BOUNDED else 'GSRPT'}")
        ax.tick_params(axis="x", rotation=60)
    fig.suptitle(f"{trace}: mean over instances")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def tuning_figure(summ: list[dict[str, Any]], policy: str, path: str | Path) -> None:
    """Total stretch and total flow of ``policy`` against ``m_d``, one line per ``τ`` (RD)
    or ``c`` (RR) (seed 000 Figures 3.3-3.6: the tuning of §3.5.2).

    Parameters
    ----------
    summ : list of dict
        :func:`~lpsched.tasks.reproduce.summary` rows of one trace's tuning grid.
    policy : str
        ``spt-rd``, ``gspt-rd``, ``spt-rr`` or ``gspt-rr``.
    path : str or Path
        The image written.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in summ if r["policy"] == policy]
    param = "tau" if policy.endswith("-rd") else "c"
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, metric in zip(axes, ("sum_stretch", "sum_flow"), strict=True):
        for value in sorted({r[param] for r in rows}):
            line = sorted((r["md"], r[metric]) for r in rows if r[param] == value
                          and r[metric] is not None)
            if line:
                ax.plot([x for x, _ in line], [y for _, y in line], marker="o",
                        label=f"{param}={value:g}")
        ax.set_xlabel("m_d")
        ax.set_title(f"{policy}: {metric}")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
