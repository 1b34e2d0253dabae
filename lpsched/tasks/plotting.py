"""Figures of the seed 000 ch. 3 reproduction (needs ``matplotlib``, the ``plot`` extra).

The six metrics per policy (Figs 3.7–3.13, normalised by the proven lower bound where there
is one, by GSRPT otherwise) and the tuning curves (Figs 3.3–3.6: metric vs ``m_d``, one
line per ``τ`` or ``c``).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from lpsched.core.figures import tight_layout
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
    tight_layout(fig)
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
    tight_layout(fig)
    fig.savefig(path, dpi=90)
    plt.close(fig)


# -- the report's figures (decision 552): means over the instances, two standard errors ------

#: the methods of Figs 3.7-3.13, in the chapter's order (FCFS drawn, never judged)
_METHODS = ("fcfs", "spt", "gspt", "srpt", "gsrpt", "spt-rd", "gspt-rd", "spt-rr", "gspt-rr")
_LABELS = {"fcfs": "FCFS", "spt": "SPT", "gspt": "GSPT", "srpt": "SRPT", "gsrpt": "GSRPT",
           "spt-rd": "SPT-RD", "gspt-rd": "GSPT-RD", "spt-rr": "SPT-RR", "gspt-rr": "GSPT-RR"}


def _of_trace(rows: list[dict[str, Any]], trace: str) -> list[dict[str, Any]]:
    from lpsched.tasks.fidelity import short_name

    return [r for r in rows if r.get("valid") and short_name(r.get("trace")) == trace]


def _normalised(rows: list[dict[str, Any]], metric: str) -> tuple[dict[str, list[float]], str]:
    """Per method, one value per instance: ``metric`` over its proven lower bound when the
    rows carry one, else over GSRPT's on the same instance; and the label of the divisor."""
    from collections import defaultdict

    bounded = any(r.get(f"{metric}_over_lb") is not None for r in rows)
    gsrpt = {r["seed"]: r.get(metric) for r in rows if r["policy"] == "gsrpt"}
    out: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        if bounded:
            value = r.get(f"{metric}_over_lb")
        else:
            base = gsrpt.get(r["seed"])
            value = r[metric] / base if base and r.get(metric) is not None else None
        if value is not None:
            out[str(r["policy"])].append(float(value))
    return out, "lower bound" if bounded else "GSRPT"


def _log_axis(ax: Any) -> None:
    """A log vertical axis whose ticks read as plain numbers; under a decade and a half of
    range the intermediate ticks (2, 3, ... 9 times a power of 10) are labelled too, under
    two and a half decades the 2 and 5 ones, so a narrow panel shows more than one or two
    values."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax.set_yscale("log")
    plain = FuncFormatter(lambda v, _: f"{v:g}")
    ax.yaxis.set_major_formatter(plain)
    lo, hi = ax.get_ylim()
    span = hi / lo if lo > 0 else math.inf
    if span < 300:
        subs = tuple(range(2, 10)) if span < 30 else (2.0, 5.0)
        ax.yaxis.set_minor_locator(LogLocator(base=10, subs=subs))
        ax.yaxis.set_minor_formatter(plain)
    else:
        ax.yaxis.set_minor_formatter(NullFormatter())


def comparison_panels(rows: list[dict[str, Any]], trace: str, path: str | Path,
                      full: bool = False) -> str | None:
    """Figs 3.7-3.13 from the comparison store: one panel per metric (the six for Curie's
    Fig. 3.7, the three stretch metrics otherwise), one bar per method, the mean over the
    instances of the normalised metric with two standard errors.

    Parameters
    ----------
    rows : list of dict
        The comparison store's rows (:func:`lpsched.tasks.reproduce.run_cell`).
    trace : str
        Table 3.1's short name of the trace drawn.
    path : str or Path
        The PNG written (its folder created).
    full : bool
        All six metrics (Fig. 3.7) rather than the three stretch metrics.

    Returns
    -------
    str or None
        What was drawn (for the caption), or ``None`` when the rows hold no instance of
        ``trace`` (nothing written).
    """
    from lpsched.core.fidelity import mean_and_se

    mine = _of_trace(rows, trace)
    if not mine:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metrics = METRICS if full else METRICS[:3]
    fig, axes = plt.subplots(2 if full else 1, 3, figsize=(13, 7 if full else 3.8),
                             squeeze=False)
    for ax, metric in zip(axes.ravel(), metrics, strict=True):
        values, divisor = _normalised(mine, metric)
        names = [m for m in _METHODS if values.get(m)]
        stats = [mean_and_se(values[m]) for m in names]
        ax.bar([_LABELS[m] for m in names], [s[0] for s in stats], color="tab:blue",
               yerr=[2 * (s[1] or 0.0) for s in stats], capsize=3, label="ours (mean, 2 SE)")
        _log_axis(ax)
        ax.set_ylabel(f"{metric.replace('_', ' ')} / {divisor}")
        ax.tick_params(axis="x", rotation=60)
        ax.legend(fontsize=7)
    k = len({r["seed"] for r in mine})
    fig.suptitle(f"{trace}: mean over {k} instances (the seed prints no values)")
    tight_layout(fig)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=80)
    plt.close(fig)
    bars = "two standard errors as bars" if k > 1 else "one instance: no error bar"
    return (f"the comparison store: means over {k} instances of {trace} (the seed's over "
            f"20), {bars}")


def tuning_panels(rows: list[dict[str, Any]], trace: str, along: str,
                  path: str | Path) -> str | None:
    """Figs 3.3-3.6 from the tuning store: SPT-RD's total stretch and total flow, means
    over the instances, against ``m_d`` one line per ``τ`` (``along="md"``, Figs 3.3-3.4)
    or against ``τ`` one line per ``m_d`` (``along="x"``, Figs 3.5-3.6).

    Parameters
    ----------
    rows : list of dict
        The tuning store's rows (:func:`lpsched.tasks.reproduce.tuning_cell`).
    trace : str
        Table 3.1's short name of the trace drawn.
    along : {"md", "x"}
        The horizontal axis.
    path : str or Path
        The PNG written (its folder created).

    Returns
    -------
    str or None
        What was drawn, or ``None`` when the rows hold no SPT-RD grid of ``trace``.
    """
    from collections import defaultdict

    mine = [r for r in _of_trace(rows, trace) if r["policy"] == "spt-rd"]
    if not mine:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, metric in zip(axes, ("sum_stretch", "sum_flow"), strict=True):
        points: dict[float, dict[float, list[float]]] = defaultdict(lambda: defaultdict(list))
        for r in mine:
            if r.get(metric) is not None:
                md, tau = float(r["md"]), float(r["tau"])
                x, line = (md, tau) if along == "md" else (tau, md)
                points[line][x].append(float(r[metric]))
        for line in sorted(points):
            xs = sorted(points[line])
            ax.plot(xs, [sum(points[line][x]) / len(points[line][x]) for x in xs],
                    marker="o", label=f"{'tau' if along == 'md' else 'm_d'} = {line:g}")
        ax.set_xlabel("m_d" if along == "md" else "tau")
        ax.set_ylabel(f"total {'stretch' if metric == 'sum_stretch' else 'flow'} (mean)")
        ax.legend(fontsize=7, ncol=2)
    k = len({r["seed"] for r in mine})
    fig.suptitle(f"{trace} SPT-RD: mean over {k} instances (the seed prints no values)")
    tight_layout(fig)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return (f"the tuning store: means over {k} instances of {trace} (the seed's over 20), "
            "no error bars")
