"""Reproductions of the thesis's simulations (seed 002 §4.6, §5.7, §5.8) as runner cells
(``lpsched.core.runner.run_cells``: resumable, local processes or Dask).

* ``faircamp`` (Figs. 4.3-4.4, B16-B17): one cell per (k, instance); FairCamp (packed
  and in blocks, decision 91) and FCFS (submission and generation order, decision 93) on
  the same ch. 4 workload, named as ``campaigns run`` names them; the headline pairing is
  the CLI's defaults, ``fcfs-submission`` over ``faircamp-packed``; the metric is the
  per-user cumulative ratio (S2) against LPT makespans (spec A2).
* ``ostrich`` (Figs. 5.6-5.13, B23-B28): the LPC-EGEE replay (OStrich with and without
  dependencies, FCFS with dependencies, the original log) and the two-profile simulation
  (OStrich vs FCFS, 40 instances). Each LPC-EGEE row also carries its hourly utilisation
  over the seed's December-January extract (Figs. 5.9-5.11, [L1364-L1368]), from which
  :func:`b26_check` states B26 ("without dependencies, utilisation at least 20% higher
  where the load is above 10%") beside the seed, and :func:`ostrich_series_rows` gives
  the series as CSV rows.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone
from typing import Any

import numpy as np

from lpsched.campaigns.extract import extract
from lpsched.campaigns.faircamp import faircamp, faircamp_packed
from lpsched.campaigns.generators import faircamp_workload, profiles_workload, short_users
from lpsched.campaigns.instance import Workload
from lpsched.campaigns.metrics import (
    campaign_stretch,
    campaign_stretch_from_log,
    original_run,
    user_stretch,
    utilisation_series,
)
from lpsched.campaigns.policies import policy_factory
from lpsched.campaigns.schedule import CampaignRun, validate
from lpsched.campaigns.simulator import simulate
from lpsched.core.swf import SwfTrace, read_swf

#: the k of Fig. 4.3
FAIRCAMP_USERS = (2, 3, 5, 10, 20)
#: histogram bin of Fig. 5.6 [L1356]
BIN = 0.15
#: the seed's values, side by side with ours
SEED_RATIOS = {5: 1.35, 10: 2.24, 20: 3.4}


def faircamp_cells(users: tuple[int, ...] = FAIRCAMP_USERS, instances: int = 1000,
                   jobs: int = 10_000, first_seed: int = 0) -> list[dict[str, Any]]:
    """The cells of the FairCamp reproduction (seed 002 Figs. 4.3-4.4): one per user count
    ``k`` in ``users`` and instance seed, each run by :func:`faircamp_cell`."""
    # "policies" is part of the store key: stores made under the old names are recomputed
    return [{"k": k, "seed": first_seed + i, "jobs": jobs,
             "policies": ",".join(FAIRCAMP_POLICIES)} for k in users for i in range(instances)]


#: the FairCamp reproduction's policies, named as ``campaigns run`` reports its
#: ``"variant"``: FairCamp under readings (ii) packed and (i) blocks (spec A3, decision 91),
#: FCFS in submission and in generation (stream) order (decision 93)
FAIRCAMP_POLICIES = ("faircamp-packed", "faircamp-block", "fcfs-submission", "fcfs-generation")
#: the headline pairing (FCFS, FairCamp): the CLI's defaults (decisions 91, 93)
HEADLINE = ("fcfs-submission", "faircamp-packed")


def _faircamp_run(w: Workload, name: str) -> CampaignRun:
    if name == "faircamp-block":
        return faircamp(w)
    if name == "faircamp-packed":
        return faircamp_packed(w)
    order = name.removeprefix("fcfs-")
    return simulate(w, policy_factory("fcfs", False, fcfs_order=order))


#: The fields every stored row of each experiment has, checked when rows are read back
#: (:func:`lpsched.core.store.check_row`; issue 10): a damaged store is one line.
ROW_SCHEMAS: dict[str, dict[str, str]] = {
    "faircamp": {"k": "int>=1", "seed": "int>=0", "policy": "text", "jobs": "int>=0"},
    "ostrich": {"part": "text", "policy": "text", "campaigns": "int>=0"},
}


def faircamp_cell(cell: dict[str, Any]) -> list[dict[str, Any]]:
    """Every policy of :data:`FAIRCAMP_POLICIES` on one instance; each schedule validated.
    O(n log n)."""
    w = faircamp_workload(int(cell["k"]), int(cell["jobs"]), seed=int(cell["seed"]))
    rows = []
    for name in FAIRCAMP_POLICIES:
        t0 = time.perf_counter()
        run = _faircamp_run(w, name)
        seconds = time.perf_counter() - t0
        validate(run)
        s2 = user_stretch(run)
        rows.append({**cell, "policy": name, "max_user_stretch": float(np.nanmax(s2)),
                     "max_campaign_stretch": float(campaign_stretch(run).max()),
                     "deadlines_met": bool(run.info.get("deadlines_met", True)),
                     "seconds": seconds})
    return rows


def faircamp_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per k: mean max-stretch (S2) of each policy with its 95% CI half-width and range,
    the FCFS/FairCamp ratios of the four pairings beside the seed's, and the checks of
    B16-B17."""
    out: dict[str, Any] = {}
    for k in sorted({r["k"] for r in rows}):
        per = {p: np.array([r["max_user_stretch"] for r in rows
                            if r["k"] == k and r["policy"] == p]) for p in FAIRCAMP_POLICIES}
        if any(v.size == 0 for v in per.values()):
            continue
        entry: dict[str, Any] = {"instances": int(per[HEADLINE[1]].size),
                                 "seed_ratio": SEED_RATIOS.get(k)}
        for p, v in per.items():
            entry[p] = {"mean": float(v.mean()), "ci95": float(1.96 * v.std(ddof=1)
                                                              / np.sqrt(v.size))
                        if v.size > 1 else 0.0, "range": [float(v.min()), float(v.max())],
                        "in_100_400": int(np.sum((v >= 100) & (v <= 400)))}
        for f in ("fcfs-submission", "fcfs-generation"):
            for c in ("faircamp-packed", "faircamp-block"):
                entry[f"ratio_{f}_over_{c}"] = float(per[f].mean() / per[c].mean())
        entry["headline"] = {"fcfs": HEADLINE[0], "faircamp": HEADLINE[1],
                             "ratio": entry[f"ratio_{HEADLINE[0]}_over_{HEADLINE[1]}"]}
        entry["faircamp_block_below_k"] = bool(np.all(per["faircamp-block"] <= k + 1e-9))
        entry["faircamp_packed_below_k"] = bool(np.all(per["faircamp-packed"] <= k + 1e-9))
        entry["packed_deadlines_met"] = all(r["deadlines_met"] for r in rows
                                            if r["k"] == k)
        out[str(k)] = entry
    return out


def ostrich_cells(trace: str, instances: int = 40, jobs: int = 10_000, users: int = 10,
                  limit: int = 0, first_seed: int = 0) -> list[dict[str, Any]]:
    """The cells of the OStrich reproduction (seed 002 ch. 5, Figs. 5.6-5.13): the
    LPC-EGEE replay of ``trace`` under OStrich and FCFS with and without dependencies and
    the original schedule, then ``instances`` synthetic user-profile workloads."""
    cells: list[dict[str, Any]] = [
        {"part": "egee", "trace": trace, "policy": pol, "deps": deps, "limit": limit,
         "series": SERIES}
        for pol, deps in (("ostrich", True), ("ostrich", False), ("fcfs", True),
                          ("fcfs", False), ("original", True))]
    cells += [{"part": "profiles", "seed": first_seed + i, "jobs": jobs, "users": users}
              for i in range(instances)]
    return cells


def ostrich_cell(cell: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows of one cell of :func:`ostrich_cells` (an EGEE replay or a profiles
    workload)."""
    return _egee_cell(cell) if cell["part"] == "egee" else _profiles_cell(cell)


def _egee_cell(cell: dict[str, Any]) -> list[dict[str, Any]]:
    """The LPC-EGEE replay (§5.7): m = 140, MAX campaigns, downtime pieces."""
    trace = read_swf(cell["trace"])
    if cell["limit"] or cell.get("first", 0):
        trace = _head(trace, int(cell["limit"]), int(cell.get("first", 0)))
    w = extract(trace, 140, "max", bool(cell["deps"])).workload
    t0 = time.perf_counter()
    run: CampaignRun = original_run(w) if cell["policy"] == "original" else simulate(
        w, policy_factory(cell["policy"], False))
    seconds = time.perf_counter() - t0
    if cell["policy"] != "original":
        validate(run)
    d = campaign_stretch(run)
    hist = np.bincount(np.minimum(((d - 1) / BIN).astype(np.int64), 20), minlength=21)
    row = {"part": "egee", "policy": cell["policy"], "deps": cell["deps"],
           "campaigns": w.campaigns, "users": int(np.unique(w.user).size), "jobs": w.jobs,
           "histogram_0_15": hist.tolist(), "seconds": seconds,
           "utilisation_busy_area": float(np.sum(w.p * w.q))}
    # from the effective release max(submit, C_{i-1}) (decision 90), and "_log": from the
    # log's submission time (the seed does not say which it measures)
    for suffix, x in (("", d), ("_log", campaign_stretch_from_log(run))):
        row.update({f"share_1{suffix}": float(np.mean(x <= 1 + 1e-9)),
                    f"share_1_15{suffix}": float(np.mean(x <= 1.15 + 1e-9)),
                    f"share_below_1_5{suffix}": float(np.mean(x < 1.5)),
                    f"max_stretch{suffix}": float(x.max())})
    row.update(_series_fields(trace, run))
    return [row]


#: the utilisation series of the LPC-EGEE rows (part of their store key): December and
#: January (the seed's extract, Figs. 5.9-5.11), bins of one hour
SERIES = "dec-jan/3600"
#: B26 as the seed states it ([L1368]): where the load is above 10%, no-dependency
#: utilisation at least 20% greater than with dependencies
B26_LOAD, B26_GAIN = 0.10, 1.20


def dec_jan_window(trace: SwfTrace) -> tuple[float, float, str] | None:
    """The seed's extract, "an interval of two months (December and January)" [L1364]:
    ``[Dec 1, Feb 1)`` at midnight in the installation's time zone (header
    ``TimeZoneString``, else UTC), the first December 1 at or after the log's start
    (header ``UnixStartTime``), as seconds from the log's start, and its ISO start.
    ``None`` without ``UnixStartTime``. O(1).
    """
    start = trace.header_int("UnixStartTime")
    if start is None:
        return None
    tz: Any = timezone.utc
    name = trace.header.get("TimeZoneString", "").split()[0:1]
    if name:
        try:
            from zoneinfo import ZoneInfo

            tz = ZoneInfo(name[0])
        except (ImportError, KeyError, ValueError):
            tz = timezone.utc
    begin = datetime.fromtimestamp(start, tz)
    year = begin.year if (begin.month, begin.day, begin.hour, begin.minute, begin.second,
                          begin.microsecond) <= (12, 1, 0, 0, 0, 0) else begin.year + 1
    dec1 = datetime(year, 12, 1, tzinfo=tz)
    feb1 = datetime(year + 1, 2, 1, tzinfo=tz)
    return dec1.timestamp() - start, feb1.timestamp() - start, dec1.isoformat()


def _series_fields(trace: SwfTrace, run: CampaignRun) -> dict[str, Any]:
    """Hourly utilisation of ``run`` over the Dec-Jan extract (empty when the replayed
    jobs do not reach it, e.g. with ``--limit``). Each trace piece runs on its own
    machine; a simulated piece that overruns the next piece's start would count twice
    (reported as the series' maximum above 1)."""
    window = dec_jan_window(trace)
    width = float(SERIES.split("/")[1])
    w = run.workload
    if window is None or not np.any((run.end > window[0]) & (run.start < window[1])):
        return {"series": SERIES, "series_start": None, "utilisation_dec_jan": []}
    u = utilisation_series(w.q, run.start, run.end, w.processors, window[0], window[1],
                           width)
    return {"series": SERIES, "series_start": window[2], "series_t0": window[0],
            "utilisation_dec_jan": np.round(u, 6).tolist()}


def _head(trace: Any, limit: int, first: int = 0) -> Any:
    """Jobs ``first .. first + limit - 1`` of the trace (``limit`` 0: to the end); the
    header is kept (a reduced run keeps the log's dates)."""
    from dataclasses import replace

    stop = first + limit if limit else None
    cols = {k: v[first:stop] for k, v in trace.columns.items()}
    return replace(trace, columns=cols, lines=None)


def _profiles_cell(cell: dict[str, Any]) -> list[dict[str, Any]]:
    """The two-profile simulation (§5.8, spec A16): OStrich vs FCFS (submission order)."""
    w = profiles_workload(int(cell["users"]), int(cell["jobs"]), seed=int(cell["seed"]))
    short = short_users(w)
    rows = []
    for pol in ("fcfs", "ostrich"):
        run = simulate(w, policy_factory(pol, False))
        validate(run)
        d = campaign_stretch(run)
        per_user = np.full(w.users, np.nan)
        np.fmax.at(per_user, w.user, d)
        rows.append({"part": "profiles", "seed": cell["seed"], "policy": pol,
                     "campaigns": w.campaigns, "below_2": int(np.sum(d < 2)),
                     "above_20": int(np.sum(d > 20)),
                     "short_max_stretch": float(np.nanmean(per_user[short])),
                     "long_max_stretch": float(np.nanmean(per_user[~short]))})
    return rows


#: the LPC-EGEE figures of the summary (``_log``: stretch from the log's submission time)
EGEE_KEYS = ("campaigns", "users", "share_1", "share_1_15", "share_below_1_5", "max_stretch",
             "share_1_log", "share_1_15_log", "share_below_1_5_log", "max_stretch_log")


def _egee_series(rows: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    """The Dec-Jan hourly series of the LPC-EGEE rows, by name (``ostrich``,
    ``ostrich-nodeps``, ``fcfs``, ``fcfs-nodeps``, ``original``); rows without one (a
    ``--limit`` run, an older store) are left out."""
    return {f"{r['policy']}{'' if r['deps'] else '-nodeps'}":
            np.asarray(r["utilisation_dec_jan"], dtype=float)
            for r in rows if r.get("part") == "egee" and r.get("utilisation_dec_jan")}


def _busy_hours(u: np.ndarray) -> dict[str, Any]:
    above = u > B26_LOAD
    return {"hours_above_10": int(above.sum()),
            "mean_when_above_10": float(u[above].mean()) if above.any() else None,
            "mean": float(u.mean()), "std": float(u.std()),
            "hours_idle_below_1": int(np.sum(u < 0.01)),
            "hours_at_100": int(np.sum(u >= 1 - 1e-9)), "max": float(u.max())}


def b26_check(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """B26 (spec §8; [L1368], Figs. 5.10-5.11): "Regarding the periods where the system
    load is above 10%, this scenario [OStrich without dependencies] achieves system
    utilization at least 20% greater than the one obtained with job dependencies."

    Reading (decision recorded in the issue notes): for each replay, the mean hourly
    utilisation over the hours of Dec-Jan in which its own utilisation exceeds 10%; the
    check holds iff no-deps >= 1.2 x with-deps (relative "20% greater"). Also reported:
    the absolute reading (+20 points) and the paired reading (the same hours, those where
    the with-dependency replay is above 10%; share of those hours where no-deps is at
    least 20% higher). ``None`` when either series is missing. O(hours).
    """
    series = _egee_series(rows)
    if "ostrich" not in series or "ostrich-nodeps" not in series:
        return None
    d, n = series["ostrich"], series["ostrich-nodeps"]
    deps, nodeps = _busy_hours(d), _busy_hours(n)
    md, mn = deps["mean_when_above_10"], nodeps["mean_when_above_10"]
    ratio = mn / md if md and mn is not None else None
    paired = d > B26_LOAD
    pd, pn = (float(x[paired].mean()) if paired.any() else None for x in (d, n))
    start = next(r["series_start"] for r in rows if r.get("utilisation_dec_jan"))
    return {
        "window": {"start": start, "hours": int(d.size), "bin_seconds": 3600.0},
        "statement": "without dependencies, utilisation at least 20% greater than with "
                     "them over the periods where the load is above 10% ([L1368])",
        "reading": "each replay's mean hourly utilisation over its own hours above 10%",
        "with_deps": deps, "no_deps": nodeps,
        "ratio": ratio, "difference_points": (mn - md) * 100 if ratio is not None else None,
        "holds": bool(ratio is not None and ratio >= B26_GAIN),
        "holds_absolute_20_points": bool(ratio is not None and mn - md >= 0.20),
        "paired": {"hours": int(paired.sum()), "mean_with_deps": pd, "mean_no_deps": pn,
                   "ratio": pn / pd if pd and pn is not None else None,
                   "holds": bool(pd and pn is not None and pn >= B26_GAIN * pd),
                   "share_hours_20pct_higher": float(np.mean(n[paired] >= B26_GAIN
                                                             * d[paired]))
                   if paired.any() else None},
        "no_deps_more_homogeneous": bool(nodeps["std"] < deps["std"]),
        "others": {k: _busy_hours(v) for k, v in series.items()
                   if k not in ("ostrich", "ostrich-nodeps")},
        "seed": {"gain": B26_GAIN, "load": B26_LOAD, "no_deps_more_homogeneous": True,
                 "idle_periods_more_frequent_without_deps": True}}


def ostrich_series_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The Dec-Jan utilisation series as CSV rows, one per hour: the hour's index, its
    start in seconds from the log's start and as a date, one column per replay. Empty
    when no row carries a series. O(hours)."""
    series = _egee_series(rows)
    if not series:
        return []
    first = next(r for r in rows if r.get("utilisation_dec_jan"))
    t0 = float(first["series_t0"])
    begin = datetime.fromisoformat(first["series_start"])
    width = float(SERIES.split("/")[1])
    size = min(v.size for v in series.values())
    return [{"hour": i, "log_seconds": t0 + i * width,
             "date": (begin + timedelta(seconds=i * width)).isoformat(),
             **{k: float(v[i]) for k, v in sorted(series.items())}} for i in range(size)]


def ostrich_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """EGEE shares beside the seed's (B24-B25), B26 (:func:`b26_check`) and the profile
    totals (B27-B28)."""
    egee = {f"{r['policy']}{'' if r['deps'] else '-nodeps'}": {
        k: r[k] for k in EGEE_KEYS if k in r} for r in rows if r["part"] == "egee"}
    prof: dict[str, Any] = {}
    for pol in ("fcfs", "ostrich"):
        rs = [r for r in rows if r["part"] == "profiles" and r["policy"] == pol]
        if rs:
            total = sum(r["campaigns"] for r in rs)
            prof[pol] = {"instances": len(rs), "campaigns": total,
                         "below_2": sum(r["below_2"] for r in rs),
                         "above_20": sum(r["above_20"] for r in rs),
                         "share_above_20": sum(r["above_20"] for r in rs) / total,
                         "short_max_stretch": float(np.mean([r["short_max_stretch"]
                                                             for r in rs])),
                         "long_max_stretch": float(np.mean([r["long_max_stretch"]
                                                            for r in rs]))}
    seed = {"egee": {"ostrich": {"share_1": 0.686, "share_1_15": 0.80,
                                 "share_below_1_5": 0.897},
                     "original": {"share_1": 0.003, "share_below_1_5": 0.552},
                     "campaigns": 56918, "users": 55},
            "profiles": {"fcfs_share_above_20": 0.423, "ostrich_share_above_20": 0.013,
                         "short": {"fcfs": 50, "ostrich": 12.8},
                         "long": {"fcfs": 6.3, "ostrich": 6.8}}}
    return {"egee": egee, "b26": b26_check(rows), "profiles": prof, "seed": seed}
