"""Figures of the campaign reproductions (seed 002), drawn with matplotlib's object API (no
pyplot state, any backend).

* one function per figure of the seed (:data:`FIGURES`, by manifest entry): Figs. 4.1-4.4,
  5.1, 5.3-5.6 and 5.9-5.13, each with the seed's printed values beside ours (open black
  diamonds labelled "seed") where the seed prints them; drawn by the report hook
  (:mod:`lpsched.campaigns.report`) and by ``reproduce faircamp | ostrich --plots``, saved
  as ``<entry>.png``. Figs. 5.7-5.8 (the whole trace's utilisation) are not drawn: the
  rows hold the December-January series only.
* :func:`faircamp_figures`, :func:`ostrich_figures`, :func:`utilisation_figure`: the
  combined figures of earlier versions (Figs. 5.9-5.11 in one file), kept for scripts.

Each function takes the stored rows of :mod:`lpsched.campaigns.reproduce` and returns a
Figure (or ``{name: Figure}``); the caller saves it.
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


# -- the seed's figures, one file each (the report hook, ``reproduce --plots``) -----------

SEED_STYLE = {"marker": "D", "color": "k", "linestyle": "none", "markersize": 6,
              "markerfacecolor": "none"}
"""The seed's printed values: open black diamonds labelled "seed"."""


def _policy_values(rows: list[dict[str, Any]], k: int, policy: str) -> np.ndarray:
    return np.array([float(r["max_user_stretch"]) for r in rows
                     if int(r["k"]) == k and r["policy"] == policy])


def fig_4_1(rows: list[dict[str, Any]]) -> Any:
    """Fig. 4.1: the worked example's FairCamp deadlines, ours beside the seed's.

    Parameters
    ----------
    rows : list of dict
        Unused (the example is computed from the text).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from lpsched.campaigns.examples import faircamp_example

    ex = faircamp_example()
    seed = {1: (10, 16), 2: (6, 12, 32)}
    fig = _figure()
    ax = fig.add_subplot()
    labels, ours, theirs = [], [], []
    for u, ds in sorted(ex.deadlines.items()):
        for i, d in enumerate(ds):
            labels.append(f"user {u}, campaign {i + 1}")
            ours.append(d)
            theirs.append(seed[u][i])
    x = np.arange(len(labels))
    ax.bar(x, ours, width=0.5, label="ours (FairCamp deadlines, k = 2)")
    ax.plot(x, theirs, label="seed", **SEED_STYLE)
    ax.set_xticks(x, labels, rotation=20, fontsize=8)
    ax.set_ylabel("deadline d_i")
    ax.legend()
    return fig


def fig_4_2(rows: list[dict[str, Any]]) -> Any:
    """Fig. 4.2: the block FairCamp schedule of the worked example, each block with its
    deadline (the seed prints the deadlines, not the chart's times).

    Parameters
    ----------
    rows : list of dict
        Unused.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from lpsched.campaigns.examples import faircamp_example

    ex = faircamp_example()
    fig = _figure()
    ax = fig.add_subplot()
    for i, ((u, c), s, e, d) in enumerate(zip(ex.order, ex.starts, ex.completions,
                                              ex.block_deadlines, strict=True)):
        ax.barh(i, e - s, left=s, color=f"C{u - 1}", label=f"user {u}" if c == 1 else None)
        ax.plot([d], [i], label="seed deadline" if i == 0 else None, **SEED_STYLE)
        ax.text(s + 0.2, i, f"u{u} c{c}", va="center", fontsize=8, color="w")
    ax.set_yticks([])
    ax.set_xlabel("time (one processor)")
    ax.set_title("FairCamp blocks in EDF order; every block ends before its deadline",
                 fontsize=9)
    ax.legend(fontsize=8)
    return fig


#: Fig. 4.3's printed FCFS/FairCamp ratios by k [002 L1134]
SEED_RATIOS_43 = {2: 1.0, 3: 1.0, 5: 1.35, 10: 2.24, 20: 3.4}


def fig_4_3(rows: list[dict[str, Any]]) -> Any:
    """Fig. 4.3: mean max-stretch per k with 95 % intervals and the line y = k (left), and
    the FCFS/FairCamp ratio beside the seed's printed ratios (right).

    Parameters
    ----------
    rows : list of dict
        The faircamp rows of one setting.

    Returns
    -------
    matplotlib.figure.Figure
    """
    ks = sorted({int(r["k"]) for r in rows})
    fig = _figure()
    fig.set_size_inches(9.0, 4.0)
    ax, ax2 = fig.subplots(1, 2)
    for pol in ("fcfs-submission", "faircamp-packed", "faircamp-block"):
        vals = [_policy_values(rows, k, pol) for k in ks]
        mean = [float(v.mean()) if v.size else np.nan for v in vals]
        ci = [1.96 * float(v.std(ddof=1)) / np.sqrt(v.size) if v.size > 1 else 0.0
              for v in vals]
        ax.errorbar(ks, mean, yerr=ci, marker="o", capsize=3, label=pol)
    ax.plot(ks, ks, "r--", label="bound k")
    ax.set_xlabel("number of users k")
    ax.set_ylabel("mean max-stretch (S2)")
    ax.legend(fontsize=8)
    for camp in ("faircamp-packed", "faircamp-block"):
        ratio = [float(_policy_values(rows, k, "fcfs-submission").mean()
                       / _policy_values(rows, k, camp).mean()) for k in ks]
        ax2.plot(ks, ratio, marker="o", label=f"ours, FCFS / {camp}")
    seed_k = [k for k in SEED_RATIOS_43]
    ax2.plot(seed_k, [SEED_RATIOS_43[k] for k in seed_k], label="seed", **SEED_STYLE)
    ax2.set_xlabel("number of users k")
    ax2.set_ylabel("FCFS / FairCamp mean max-stretch")
    ax2.legend(fontsize=8)
    return fig


def fig_4_4(rows: list[dict[str, Any]]) -> Any:
    """Fig. 4.4: the distribution of the max-stretch at k = 20 (the largest k run), with
    the seed's ranges shaded: FairCamp in [5, 13] around 8, FCFS mostly in [10, 50].

    Parameters
    ----------
    rows : list of dict
        The faircamp rows of one setting.

    Returns
    -------
    matplotlib.figure.Figure
    """
    kmax = max(int(r["k"]) for r in rows)
    fig = _figure()
    ax = fig.add_subplot()
    vals = {p: _policy_values(rows, kmax, p)
            for p in ("fcfs-submission", "faircamp-packed", "faircamp-block")}
    top = max(max(float(v.max()) for v in vals.values() if v.size), 60.0)
    bins = np.geomspace(1, top * 1.05, 50)
    for p, v in vals.items():
        ax.hist(v, bins=bins, alpha=0.5, density=True, label=f"ours, {p}")
    ax.axvspan(5, 13, color="g", alpha=0.12, label="seed: FairCamp in [5, 13]")
    ax.axvspan(10, 50, color="0.5", alpha=0.12, label="seed: FCFS mostly in [10, 50]")
    ax.axvline(8, color="g", linestyle=":", label="seed: FairCamp around 8")
    ax.set_xscale("log")
    ax.set_xlabel(f"max-stretch (S2), k = {kmax}")
    ax.set_ylabel("density")
    ax.legend(fontsize=7)
    return fig


def fig_5_1(rows: list[dict[str, Any]]) -> Any:
    """Fig. 5.1: the worked example's virtual completion times, ours beside the seed's
    (its ``s~_2^3 = 8`` contradicts its own ``C~_1^3 = 7``).

    Parameters
    ----------
    rows : list of dict
        Unused.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from lpsched.campaigns.examples import ostrich_example

    ex = ostrich_example()
    labels = ["C~1^1 t=0", "C~1^2 t=0", "C~1^1 t=2", "C~1^2 t=2", "C~1^3 t=2", "s~2^3",
              "C~2^3", "C~2^2"]
    ours = [*ex.at_0, *ex.at_2, ex.start_2_3, ex.c_2_3, ex.c_2_2]
    seed = [16, 6, 23, 8, 7, 8, 11, 13]
    fig = _figure()
    ax = fig.add_subplot()
    x = np.arange(len(labels))
    ax.bar(x, ours, width=0.5, label="ours (virtual clock, m = 6)")
    ax.plot(x, seed, label="seed", **SEED_STYLE)
    ax.set_xticks(x, labels, rotation=30, fontsize=8)
    ax.set_ylabel("virtual time")
    ax.legend()
    return fig


def _jobs_axes(ax: Any, ids: list[list[int]]) -> None:
    from lpsched.campaigns.examples import MAX_JOBS

    camp = {j: i for i, group in enumerate(ids) for j in group}
    for j, (s, e) in enumerate(MAX_JOBS, start=1):
        ax.barh(j, e - s, left=s, color=f"C{camp.get(j, 7)}" if j in camp else "0.8")
        ax.text(e + 0.3, j, str(j), va="center", fontsize=8)
    ax.invert_yaxis()
    ax.set_yticks([])


def fig_5_3(rows: list[dict[str, Any]]) -> Any:
    """Fig. 5.3: MAX on the seven jobs laid out as the text describes them, with and
    without the linker job 6 (colour: campaign).

    Parameters
    ----------
    rows : list of dict
        Unused.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from lpsched.campaigns.examples import max_example

    ex = max_example()
    fig = _figure()
    ax, ax2 = fig.subplots(1, 2, sharex=True)
    _jobs_axes(ax, ex.campaigns)
    ax.set_title(f"ours: {len(ex.campaigns)} campaign (seed: 1)", fontsize=9)
    _jobs_axes(ax2, ex.without_linker)
    ax2.set_title(f"without job 6: {len(ex.without_linker)} (seed: 2)", fontsize=9)
    ax.set_xlabel("time")
    ax2.set_xlabel("time")
    return fig


def fig_5_4(rows: list[dict[str, Any]]) -> Any:
    """Fig. 5.4: the dependency DAG of the Fig. 5.3 campaign (transitively reduced).

    Parameters
    ----------
    rows : list of dict
        Unused.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from lpsched.campaigns.examples import MAX_JOBS, max_example

    ex = max_example()
    fig = _figure()
    ax = fig.add_subplot()
    _jobs_axes(ax, ex.campaigns)
    for a, b in ex.edges:
        ax.annotate("", xy=(MAX_JOBS[b - 1][0], b), xytext=(MAX_JOBS[a - 1][1], a),
                    arrowprops={"arrowstyle": "->", "color": "k", "lw": 0.8})
    ax.set_title("ours: edges a -> b when a ends before b's submission (seed: image only)",
                 fontsize=9)
    ax.set_xlabel("time")
    return fig


def _stretch_figure(row: dict[str, Any], seed: dict[float, float], title: str) -> Any:
    """A campaign-stretch histogram (bins of 0.15) and its cumulative share with the
    seed's printed shares as markers."""
    h = np.asarray(row["histogram_0_15"], dtype=float)
    share = 100 * h / h.sum()
    edges = 1 + 0.15 * np.arange(h.size + 1)
    fig = _figure()
    fig.set_size_inches(9.0, 4.0)
    ax, ax2 = fig.subplots(1, 2)
    ax.bar(edges[:-1], share, width=0.15, align="edge", label="ours")
    ax.set_xlabel("campaign stretch (bins of 0.15; last: all above 4)")
    ax.set_ylabel("campaigns %")
    ax.set_title(title, fontsize=9)
    ax.legend()
    points = {1.0: 100 * float(row["share_1"]), 1.15: 100 * float(row["share_1_15"]),
              1.5: 100 * float(row["share_below_1_5"])}
    ax2.plot(list(points), list(points.values()), "o-", label="ours")
    ax2.plot(list(seed), list(seed.values()), label="seed", **SEED_STYLE)
    ax2.set_xlabel("campaign stretch at most (1.5: below)")
    ax2.set_ylabel("cumulative campaigns %")
    ax2.set_ylim(0, 100)
    ax2.legend()
    return fig


def fig_5_5(rows: list[dict[str, Any]]) -> Any | None:
    """Fig. 5.5: the original log's campaign stretch (seed: 0.3 % at 1, 55.2 % below 1.5).

    Parameters
    ----------
    rows : list of dict
        The ostrich rows of one run.

    Returns
    -------
    matplotlib.figure.Figure or None
        ``None`` without the original log's row.
    """
    row = next((r for r in rows if r.get("part") == "egee" and r["policy"] == "original"),
               None)
    return None if row is None else _stretch_figure(
        row, {1.0: 0.3, 1.5: 55.2}, "original log (Maui)")


def fig_5_6(rows: list[dict[str, Any]]) -> Any | None:
    """Fig. 5.6: OStrich's campaign stretch (seed: 68.6 % at 1, 80 % to 1.15, 89.7 %
    below 1.5).

    Parameters
    ----------
    rows : list of dict
        The ostrich rows of one run.

    Returns
    -------
    matplotlib.figure.Figure or None
        ``None`` without OStrich's row with dependencies.
    """
    row = next((r for r in rows if r.get("part") == "egee" and r["policy"] == "ostrich"
                and r["deps"]), None)
    return None if row is None else _stretch_figure(
        row, {1.0: 68.6, 1.15: 80.0, 1.5: 89.7}, "OStrich, with dependencies")


def _series_figure(rows: list[dict[str, Any]], key: str, title: str) -> Any | None:
    """One Dec-Jan utilisation panel (hourly), the 10 % load line dashed."""
    row = next((r for r in rows if r.get("part") == "egee" and r.get("utilisation_dec_jan")
                and f"{r['policy']}{'' if r['deps'] else '-nodeps'}" == key), None)
    if row is None:
        return None
    u = 100 * np.asarray(row["utilisation_dec_jan"], dtype=float)
    fig = _figure()
    fig.set_size_inches(8.0, 3.0)
    ax = fig.add_subplot()
    ax.fill_between(np.arange(u.size) / 24.0, u, step="post", linewidth=0.4, label="ours")
    ax.axhline(10, color="r", linestyle="--", linewidth=0.8, label="10 % load")
    ax.set_ylim(0, 105)
    ax.set_ylabel("utilisation %")
    ax.set_xlabel(f"days from {row['series_start']} (bins of one hour)")
    ax.set_title(title + " (seed: image only)", fontsize=9)
    ax.legend(fontsize=8, loc="upper right")
    return fig


def fig_5_9(rows: list[dict[str, Any]]) -> Any | None:
    """Fig. 5.9: Dec-Jan utilisation of the original log.

    Parameters
    ----------
    rows : list of dict
        The ostrich rows of one run.

    Returns
    -------
    matplotlib.figure.Figure or None
        ``None`` without the series (a part of the trace before December).
    """
    return _series_figure(rows, "original", "Fig. 5.9: original log (Maui)")


def fig_5_10(rows: list[dict[str, Any]]) -> Any | None:
    """Fig. 5.10: Dec-Jan utilisation under OStrich with dependencies.

    Parameters
    ----------
    rows : list of dict
        The ostrich rows of one run.

    Returns
    -------
    matplotlib.figure.Figure or None
    """
    return _series_figure(rows, "ostrich", "Fig. 5.10: OStrich, with dependencies")


def fig_5_11(rows: list[dict[str, Any]]) -> Any | None:
    """Fig. 5.11: Dec-Jan utilisation under OStrich without dependencies.

    Parameters
    ----------
    rows : list of dict
        The ostrich rows of one run.

    Returns
    -------
    matplotlib.figure.Figure or None
    """
    return _series_figure(rows, "ostrich-nodeps", "Fig. 5.11: OStrich, no dependencies")


def _profile_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    prof = [r for r in rows if r.get("part") == "profiles"]
    counts = sorted({int(r.get("users", 0)) for r in prof})
    k = 10 if 10 in counts else (counts[0] if counts else 0)
    return [r for r in prof if int(r.get("users", 0)) == k]


def fig_5_12(rows: list[dict[str, Any]]) -> Any | None:
    """Fig. 5.12: campaigns by stretch interval (below 2, 2 to 20, above 20), OStrich vs
    FCFS, as shares (seed: FCFS 42.3 % above 20, OStrich 1.3 %).

    Parameters
    ----------
    rows : list of dict
        The ostrich rows of one run (the two-profile rows of the reported user count).

    Returns
    -------
    matplotlib.figure.Figure or None
        ``None`` without two-profile rows.
    """
    prof = _profile_rows(rows)
    if not prof:
        return None
    fig = _figure()
    ax = fig.add_subplot()
    seed = {"fcfs": 42.3, "ostrich": 1.3}
    for i, pol in enumerate(("fcfs", "ostrich")):
        rs = [r for r in prof if r["policy"] == pol]
        total = sum(int(r["campaigns"]) for r in rs)
        lo = sum(int(r["below_2"]) for r in rs)
        hi = sum(int(r["above_20"]) for r in rs)
        x = np.arange(3) + 0.4 * i
        ax.bar(x, [100 * lo / total, 100 * (total - lo - hi) / total, 100 * hi / total],
               width=0.4, label=f"ours, {pol}")
        ax.plot([2 + 0.4 * i], [seed[pol]], label="seed" if i == 0 else None, **SEED_STYLE)
    ax.set_xticks(np.arange(3) + 0.2, ["stretch < 2", "2 to 20", "> 20"])
    ax.set_ylabel("campaigns %")
    ax.set_title(f"{prof[0].get('users')} users, {len(prof) // 2} instances", fontsize=9)
    ax.legend()
    return fig


def fig_5_13(rows: list[dict[str, Any]]) -> Any | None:
    """Fig. 5.13: mean per-user max campaign stretch by profile, OStrich vs FCFS, log
    scale, the seed's values beside (FCFS short: "above 50", drawn at 50).

    Parameters
    ----------
    rows : list of dict
        The ostrich rows of one run.

    Returns
    -------
    matplotlib.figure.Figure or None
        ``None`` without two-profile rows.
    """
    prof = _profile_rows(rows)
    if not prof:
        return None
    seed = {"fcfs": (50.0, 6.3), "ostrich": (12.8, 6.8)}
    fig = _figure()
    ax = fig.add_subplot()
    for i, pol in enumerate(("fcfs", "ostrich")):
        means = [float(np.mean([r[f"{p}_max_stretch"] for r in prof if r["policy"] == pol]))
                 for p in ("short", "long")]
        x = np.arange(2) + 0.4 * i
        ax.bar(x, means, width=0.4, label=f"ours, {pol}")
        ax.plot(x, seed[pol], label="seed (FCFS short: > 50)" if i == 0 else None,
                **SEED_STYLE)
    ax.set_xticks(np.arange(2) + 0.2, ["short-job users", "long-job users"])
    ax.set_yscale("log")
    ax.set_ylabel("mean per-user max campaign stretch")
    ax.set_title(f"{prof[0].get('users')} users (chosen by B28: decision 302)", fontsize=9)
    ax.legend(fontsize=8)
    return fig


def _instances(n: int) -> str:
    return f"{n:,} instance" + ("" if n == 1 else "s")


def _faircamp_caption(ref: str, rows: list[dict[str, Any]]) -> str:
    """What Fig. 4.3 or 4.4 draws from ``rows``, at the run's size."""
    ks = sorted({int(r["k"]) for r in rows})
    n = min((len({r["seed"] for r in rows if int(r["k"]) == k}) for k in ks), default=0)
    if ref == "002-F4.3":
        bars = ("95 % intervals" if n > 1 else "no interval (one instance)")
        return (f"mean S2 max-stretch against k = {', '.join(map(str, ks))} for FCFS and "
                f"FairCamp, each point the mean over {_instances(n)} per k (the seed's: "
                f"10^3), {bars}, the line y = k; right: the FCFS/FairCamp ratio.")
    kmax = max(ks, default=0)
    m = len({r["seed"] for r in rows if int(r["k"]) == kmax})
    return (f"density of the S2 max-stretch of {_instances(m)} at k = {kmax} (the seed's: "
            "10^3 at k = 20), FCFS and FairCamp, the seed's ranges shaded.")


def _ostrich_caption(ref: str, rows: list[dict[str, Any]]) -> str:
    """What one of Figs. 5.5-5.13 draws from ``rows``, at the run's size."""
    prof = _profile_rows(rows)
    n, users = len({r["seed"] for r in prof}), (prof[0].get("users") if prof else None)
    what = {
        "002-F5.5": "campaign stretch histogram (bin 0.15) of the original log's schedule "
                    "over the LPC-EGEE jobs replayed",
        "002-F5.6": "campaign stretch histogram (bin 0.15) under OStrich over the LPC-EGEE "
                    "jobs replayed",
        "002-F5.9": "hourly utilisation, December-January, the original log",
        "002-F5.10": "hourly utilisation, December-January, OStrich with dependencies",
        "002-F5.11": "hourly utilisation, December-January, OStrich without dependencies",
        "002-F5.12": f"campaigns per stretch interval, OStrich vs FCFS, pooled over "
                     f"{_instances(n)} of {users} users (the seed's: 40, user count not "
                     "given)",
        "002-F5.13": f"mean per-user max stretch by profile, OStrich vs FCFS, over "
                     f"{_instances(n)} of {users} users (the user count chosen by B28: "
                     "decision 302; the seed's: 40 instances)"}
    return what[ref] + "."


def caption(ref: str, rows: list[dict[str, Any]]) -> str:
    """What the figure of ``ref`` drawn from the stored ``rows`` shows, at the run's size
    (the instances, the user count), not the seed's.

    Parameters
    ----------
    ref : str
        A manifest entry of :data:`FROM_STORE`.
    rows : list of dict
        The rows it is drawn from.

    Returns
    -------
    str
        One or two sentences.
    """
    if ref in ("002-F4.3", "002-F4.4"):
        return _faircamp_caption(ref, rows)
    return _ostrich_caption(ref, rows)


#: each figure entry of the manifest and the function drawing it (Figs. 5.7-5.8: the rows
#: hold no whole-trace utilisation; Fig. 5.2 is a proof figure)
FIGURES: dict[str, Any] = {
    "002-F4.1": fig_4_1, "002-F4.2": fig_4_2, "002-F4.3": fig_4_3, "002-F4.4": fig_4_4,
    "002-F5.1": fig_5_1, "002-F5.3": fig_5_3, "002-F5.4": fig_5_4, "002-F5.5": fig_5_5,
    "002-F5.6": fig_5_6, "002-F5.9": fig_5_9, "002-F5.10": fig_5_10, "002-F5.11": fig_5_11,
    "002-F5.12": fig_5_12, "002-F5.13": fig_5_13}
#: the figures drawn from the store (the others are the worked examples, from the text)
FROM_STORE = frozenset({"002-F4.3", "002-F4.4", "002-F5.5", "002-F5.6", "002-F5.9",
                        "002-F5.10", "002-F5.11", "002-F5.12", "002-F5.13"})
