"""Plots with matplotlib (optional dependency: ``pip install 'lpsched[plot]'``).

* :func:`gantt` — a schedule of the star platform: the master's sends on the top row, each
  worker's computations below (with its receptions as thin bars), coloured by application.
* :func:`stretch_boxplot` — the distribution of max-stretch / LP optimum per policy, from
  the rows of a reproduction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from lpsched.bags.instance import Instance
from lpsched.bags.schedule import Schedule
from lpsched.errors import LpschedError


def _plt() -> Any:
    try:
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the extra
        raise LpschedError("plots need matplotlib: pip install 'lpsched[plot]'") from None
    return plt


def gantt(inst: Instance, sched: Schedule, ax: Any = None, title: str | None = None) -> Any:
    """Draw ``sched``; returns the matplotlib axes."""
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
    return ax


def stretch_boxplot(rows: Sequence[dict[str, Any]], ax: Any = None,
                    order: Sequence[str] | None = None) -> Any:
    """Box plot of max-stretch / LP optimum per policy (log scale); returns the axes."""
    plt = _plt()
    policies = list(order) if order else sorted({r["policy"] for r in rows})
    data = [[r["max_stretch"] / r["lp_bound"] for r in rows if r["policy"] == p]
            for p in policies]
    if ax is None:
        _, ax = plt.subplots(figsize=(10, 4))
    ax.boxplot(data, vert=True, showfliers=True)
    ax.set_xticks(np.arange(1, len(policies) + 1))
    ax.set_xticklabels(policies, rotation=60, ha="right")
    ax.set_yscale("log")
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.set_ylabel("max-stretch / LP optimum")
    return ax
