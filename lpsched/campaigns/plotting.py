"""Figures of the campaign reproductions (seed 002 Figs. 4.3, 4.4, 5.6, 5.9-5.11, 5.13), drawn with
matplotlib's object API (no pyplot state, any backend).

Each function takes the stored rows of :mod:`lpsched.campaigns.reproduce` and returns ``{name:
Figure}``; the caller saves them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lpsched.errors import LpschedError


def _figure() -> Any:
    try:
        from matplotlib.figure import Figure
    except ImportError:  # pragma: no cover - depends on the extra
        raise LpschedError("plots need matplotlib: pip install 'lpsched[plot]'") from None
    return Figure(figsize=(6.4, 4.0), layout="constrained")


def faircamp_figures(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Fig. 4.3 (mean max-stretch S2 per k, 95% CI, the line y = k) and Fig. 4.4 (the
    distribution at the largest k).

    Parameters
    ----------
    rows : list of dict
        The rows of the FairCamp reproduction (:func:`lpsched.campaigns.reproduce.faircamp_cell`),
        one per instance and policy, each with ``k`` (the number of users), ``policy`` and
        ``max_user_stretch``.

    Returns
    -------
    dict of str to matplotlib.figure.Figure
        ``"faircamp_fig4_3"`` and ``"faircamp_fig4_4"``.
    """
    ks = sorted({int(r["k"]) for r in rows})
    policies = sorted({r["policy"] for r in rows})
    fig = _figure()
    ax = fig.add_subplot()
    for pol in policies:
        vals = [np.array([r["max_user_stretch"] for r in rows
                          if r["k"] == k and r["policy"] == pol]) for k in ks]
        mean = [v.mean() for v in vals]
        ci = [1.96 * v.std(ddof=1) / np.sqrt(v.size) if v.size > 1 else 0.0 for v in vals]
        ax.errorbar(ks, mean, yerr=ci, marker="o", capsize=3, label=pol)
    ax.plot(ks, ks, "r--", label="k")
    ax.set_xlabel("number of users k")
    ax.set_ylabel("mean max-stretch (S2)")
    ax.set_yscale("log")
    ax.legend()
    out = {"faircamp_fig4_3": fig}
    fig2 = _figure()
    ax2 = fig2.add_subplot()
    kmax = ks[-1]
    for pol in policies:
        v = [r["max_user_stretch"] for r in rows if r["k"] == kmax and r["policy"] == pol]
        ax2.hist(v, bins=np.geomspace(1, max(max(v), 2) * 1.01, 40), alpha=0.5, label=pol)
    ax2.set_xscale("log")
    ax2.set_xlabel(f"max-stretch (S2), k = {kmax}")
    ax2.set_ylabel("instances")
    ax2.legend()
    out["faircamp_fig4_4"] = fig2
    return out


def ostrich_figures(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Fig. 5.6 (campaign stretch histogram, bins of 0.15, LPC-EGEE), Figs. 5.9-5.11 (the
    Dec-Jan utilisation, :func:`utilisation_figure`, when the rows carry it) and Fig. 5.13
    (mean per-user max-stretch by profile).

    Parameters
    ----------
    rows : list of dict
        The rows of the OStrich reproduction (:func:`lpsched.campaigns.reproduce.ostrich_cell`),
        each with ``part`` (``"egee"`` or ``"profiles"``) and ``policy``; the ``egee`` rows
        carry ``histogram_0_15`` and ``deps``, the ``profiles`` rows ``short_max_stretch``,
        ``long_max_stretch`` and ``users``.

    Returns
    -------
    dict of str to matplotlib.figure.Figure
        The figures the rows allow, among ``"ostrich_fig5_6"``, ``"ostrich_fig5_11"`` and
        ``"ostrich_fig5_13"`` (a user-count sweep keeps the default count's rows for the last).
    """
    out: dict[str, Any] = {}
    egee = [r for r in rows if r["part"] == "egee"]
    if egee:
        fig = _figure()
        ax = fig.add_subplot()
        for r in egee:
            h = np.asarray(r["histogram_0_15"], dtype=float)
            label = r["policy"] + ("" if r["deps"] else " (no deps)")
            ax.step(1 + 0.15 * np.arange(h.size), h / h.sum(), where="post", label=label)
        ax.set_xlabel("campaign stretch (bins of 0.15; last bin: all above)")
        ax.set_ylabel("share of campaigns")
        ax.legend()
        out["ostrich_fig5_6"] = fig
    series = utilisation_figure(rows)
    if series is not None:
        out["ostrich_fig5_11"] = series
    prof = [r for r in rows if r["part"] == "profiles"]
    counts = {r.get("users") for r in prof}
    if len(counts) > 1:  # a user-count sweep: Fig. 5.13 for the default (decision 302)
        from lpsched.campaigns.reproduce import PROFILE_DEFAULT_USERS

        prof = [r for r in prof if r.get("users") == PROFILE_DEFAULT_USERS]
    if prof:
        fig = _figure()
        ax = fig.add_subplot()
        pols = sorted({r["policy"] for r in prof})
        for i, pol in enumerate(pols):
            means = [np.mean([r[f"{p}_max_stretch"] for r in prof if r["policy"] == pol])
                     for p in ("short", "long")]
            ax.bar(np.arange(2) + 0.4 * i, means, width=0.4, label=pol)
        ax.set_xticks(np.arange(2) + 0.2, ["short-job users", "long-job users"])
        ax.set_yscale("log")
        ax.set_ylabel("mean per-user max campaign stretch")
        ax.legend()
        out["ostrich_fig5_13"] = fig
    return out


#: the panels of the Dec-Jan utilisation figure: (series name, the seed's figure)
UTILISATION_PANELS = (("original", "Fig. 5.9: original log (Maui)"),
                      ("ostrich", "Fig. 5.10: OStrich, with dependencies"),
                      ("ostrich-nodeps", "Fig. 5.11: OStrich, no dependencies"))


def utilisation_figure(rows: list[dict[str, Any]]) -> Any | None:
    """Figs. 5.9-5.11 (B26): hourly utilisation over the Dec-Jan extract of the LPC-EGEE
    replay, one panel per schedule, the 10% load line dashed; ``None`` when no row
    carries the series (e.g. a ``--limit`` run).

    Parameters
    ----------
    rows : list of dict
        The OStrich reproduction's rows; the ``egee`` rows with ``utilisation_dec_jan`` (the
        hourly utilisation, a fraction in [0, 1]) and ``series_start`` are drawn.

    Returns
    -------
    matplotlib.figure.Figure or None
        One panel per schedule found, or ``None`` when no row carries the series.
    """
    series = {f"{r['policy']}{'' if r['deps'] else '-nodeps'}": r
              for r in rows if r.get("part") == "egee" and r.get("utilisation_dec_jan")}
    panels = [(k, t) for k, t in UTILISATION_PANELS if k in series]
    if not panels:
        return None
    fig = _figure()
    fig.set_size_inches(8.0, 2.2 * len(panels) + 0.6)
    axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
    for ax, (key, title) in zip(axes, panels, strict=True):
        u = 100 * np.asarray(series[key]["utilisation_dec_jan"], dtype=float)
        days = np.arange(u.size) / 24.0
        ax.fill_between(days, u, step="post", linewidth=0.4)
        ax.axhline(10, color="r", linestyle="--", linewidth=0.8)
        ax.set_ylim(0, 105)
        ax.set_ylabel("utilisation %")
        ax.set_title(title, fontsize=9)
    start = next(iter(series.values()))["series_start"]
    axes[-1].set_xlabel(f"days from {start} (bins of one hour)")
    return fig
