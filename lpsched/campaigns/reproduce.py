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

import functools
import os
import time
from datetime import datetime, timedelta, timezone
from typing import Any

import numpy as np

from lpsched.campaigns import sequential
from lpsched.campaigns.extract import STATUS, extract
from lpsched.campaigns.faircamp import faircamp, faircamp_packed
from lpsched.campaigns.generators import (
    ZIPF_EXPONENT,
    faircamp_workload,
    profiles_workload,
    short_users,
)
from lpsched.campaigns.instance import Workload
from lpsched.campaigns.metrics import (
    campaign_stretch,
    campaign_stretch_from_log,
    user_stretch,
    utilisation_series,
)
from lpsched.campaigns.policies import policy_factory
from lpsched.campaigns.schedule import CampaignRun, original_run, validate
from lpsched.campaigns.simulator import simulate
from lpsched.core import caches
from lpsched.core.swf import SwfTrace, read_swf

#: the k of Fig. 4.3
FAIRCAMP_USERS = (2, 3, 5, 10, 20)
#: user counts of the two-profile simulation swept by ``reproduce ostrich`` (B27-B28; the
#: seed gives none, decision 302), and the one reported as the default (decision 302)
PROFILE_USERS = (5, 10, 20, 40)
PROFILE_DEFAULT_USERS = 10
#: histogram bin of Fig. 5.6 [L1356]
BIN = 0.15
#: the seed's values, side by side with ours
SEED_RATIOS = {5: 1.35, 10: 2.24, 20: 3.4}


def faircamp_cells(users: tuple[int, ...] = FAIRCAMP_USERS, instances: int = 1000,
                   jobs: int = 10_000, first_seed: int = 0,
                   exponent: float = ZIPF_EXPONENT) -> list[dict[str, Any]]:
    """The cells of the FairCamp reproduction (seed 002 Figs. 4.3-4.4): one per user count ``k``
    in ``users`` and instance seed, each run by :func:`faircamp_cell`.

    ``exponent`` is the Zipf law of the campaign owners: 1.4267 ([L1124], the default) or the
    prose's 1 ([L1136]: "twice the second most frequent user").

    Parameters
    ----------
    users : tuple of int
        The user counts k (default :data:`FAIRCAMP_USERS`, 2, 3, 5, 10 and 20).
    instances : int
        Instances per k (default 1,000, the seed's).
    jobs : int
        Jobs per instance (default 10,000).
    first_seed : int
        The seed of the first instance; the others follow (default 0).
    exponent : float
        The Zipf exponent of the campaign owners (default :data:`ZIPF_EXPONENT`).

    Returns
    -------
    list of dict
        One cell per (k, seed): ``k``, ``seed``, ``jobs``, ``policies`` and, when not the
        default, ``exponent``.

    Notes
    -----
    The default exponent is decision 92's; the prose's reading is decision 303's.
    """
    # "policies" is part of the store key: stores made under the old names are recomputed;
    # the exponent is, when it is not the default (stores of the default stay valid)
    extra = {} if exponent == ZIPF_EXPONENT else {"exponent": float(exponent)}
    return [{"k": k, "seed": first_seed + i, "jobs": jobs,
             "policies": ",".join(FAIRCAMP_POLICIES), **extra}
            for k in users for i in range(instances)]


#: the FairCamp reproduction's policies, named as ``campaigns run`` reports its
#: ``"variant"``: FairCamp under readings (ii) packed and (i) blocks (spec A3, decision 91),
#: FCFS in submission and in generation (stream) order (decision 93)
FAIRCAMP_POLICIES = ("faircamp-packed", "faircamp-block", "fcfs-submission", "fcfs-generation")
#: the headline pairing (FCFS, FairCamp): the CLI's defaults (decisions 91, 93)
HEADLINE = ("fcfs-submission", "faircamp-packed")


def _faircamp_run(w: Workload, name: str,
                  rho: tuple[np.ndarray, np.ndarray] | None = None) -> CampaignRun:
    if name == "faircamp-block":
        return faircamp(w, rho)
    if name == "faircamp-packed":
        return faircamp_packed(w, None if rho is None else rho[1])
    order = name.removeprefix("fcfs-")
    if rho is not None:  # the ch. 4 setting (sequential.applies): no engine
        return sequential.fcfs(w, order)
    return simulate(w, policy_factory("fcfs", False, fcfs_order=order))


#: The fields every stored row of each experiment has, checked when rows are read back
#: (:func:`lpsched.core.store.check_row`): a damaged store is one line.
ROW_SCHEMAS: dict[str, dict[str, str]] = {
    "faircamp": {"k": "int>=1", "seed": "int>=0", "policy": "text", "jobs": "int>=0"},
    "ostrich": {"part": "text", "policy": "text", "campaigns": "int>=0"},
}


def faircamp_cell(cell: dict[str, Any]) -> list[dict[str, Any]]:
    """Every policy of :data:`FAIRCAMP_POLICIES` on one instance; each schedule validated.

    O(n log n).

    Parameters
    ----------
    cell : dict
        One cell of :func:`faircamp_cells`.

    Returns
    -------
    list of dict
        One row per policy: the cell's fields, ``policy``, ``max_user_stretch`` (S2),
        ``max_campaign_stretch`` (S1), ``deadlines_met`` and ``seconds``.

    Raises
    ------
    InvalidScheduleError
        A schedule breaks a rule (or FairCamp misses a deadline in the §4.1 setting).
    """
    w = faircamp_workload(int(cell["k"]), int(cell["jobs"]), seed=int(cell["seed"]),
                          exponent=float(cell.get("exponent", ZIPF_EXPONENT)))
    # the ρ-schedules once per instance, for both FairCamps and every S2
    rho = sequential.lpt_schedules(w) if sequential.applies(w) else None
    den = None if rho is None else rho[1]
    rows = []
    for name in FAIRCAMP_POLICIES:
        t0 = time.perf_counter()
        run = _faircamp_run(w, name, rho)
        seconds = time.perf_counter() - t0
        validate(run)
        s2 = user_stretch(run, den)
        rows.append({**cell, "policy": name, "max_user_stretch": float(np.nanmax(s2)),
                     "max_campaign_stretch": float(campaign_stretch(run).max()),
                     "deadlines_met": bool(run.info.get("deadlines_met", True)),
                     "seconds": seconds})
    return rows


def faircamp_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per k: mean max-stretch (S2) of each policy with its 95% CI half-width and range,
    the FCFS/FairCamp ratios of the four pairings beside the seed's, and the checks of
    B16-B17.

    Parameters
    ----------
    rows : list of dict
        The rows of :func:`faircamp_cell` over the cells run.

    Returns
    -------
    dict
        Keyed by k as text (only the k with rows of every policy): ``instances``,
        ``seed_ratio``, per policy ``mean``, ``ci95``, ``range`` and ``in_100_400``, the four
        ratios, ``headline`` and the B16-B17 checks.
    """
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
        fc, fcfs = per[HEADLINE[1]], per[HEADLINE[0]]
        ratio = entry[f"ratio_{HEADLINE[0]}_over_{HEADLINE[1]}"]
        entry["headline"] = {"fcfs": HEADLINE[0], "faircamp": HEADLINE[1], "ratio": ratio,
                             "ratio_se": _ratio_se(fcfs, fc, ratio)}
        entry["fc_5_13"] = float(np.mean((fc >= 5) & (fc <= 13)))
        entry["fc_median"] = float(np.median(fc))
        entry["fcfs_10_50"] = float(np.mean((fcfs >= 10) & (fcfs <= 50)))
        entry["fcfs_tail"] = 1000.0 * float(np.mean((fcfs >= 100) & (fcfs <= 400)))
        entry["faircamp_block_below_k"] = bool(np.all(per["faircamp-block"] <= k + 1e-9))
        entry["faircamp_packed_below_k"] = bool(np.all(per["faircamp-packed"] <= k + 1e-9))
        entry["packed_deadlines_met"] = all(r["deadlines_met"] for r in rows
                                            if r["k"] == k)
        out[str(k)] = entry
    return out


def _ratio_se(num: np.ndarray, den: np.ndarray, ratio: float) -> float:
    """Standard error of ``mean(num) / mean(den)`` over paired instances (the ratio
    estimator's delta method: ``sd(num - ratio * den) / (sqrt(n) * mean(den))``); 0 for
    fewer than two instances."""
    if num.size < 2 or not den.mean() > 0:
        return 0.0
    return float(np.std(num - ratio * den, ddof=1) / (np.sqrt(num.size) * den.mean()))


def ostrich_cells(trace: str, instances: int = 40, jobs: int = 10_000,
                  users: int | tuple[int, ...] = PROFILE_USERS, limit: int = 0,
                  first_seed: int = 0, status: str = STATUS) -> list[dict[str, Any]]:
    """The cells of the OStrich reproduction (seed 002 ch. 5, Figs. 5.6-5.13): the LPC-EGEE
    replays of ``trace``, then the synthetic user-profile workloads.

    The replays (the jobs selected by SWF ``status``) run under OStrich and FCFS with and
    without dependencies, beside the original schedule; then ``instances`` profile workloads
    for each user count of ``users``.

    Parameters
    ----------
    trace : str
        The LPC-EGEE SWF file.
    instances : int
        Profile workloads per user count (default 40).
    jobs : int
        Jobs per profile workload (default 10,000).
    users : int or tuple of int
        The user count(s) of the profile workloads (default :data:`PROFILE_USERS`).
    limit : int
        Replay only the first ``limit`` jobs of the trace (default 0: all).
    first_seed : int
        The seed of the first profile workload (default 0).
    status : str
        The SWF statuses kept (default ``"all"``).

    Returns
    -------
    list of dict
        Five ``egee`` cells (OStrich and FCFS with and without dependencies, the original
        log), then the ``profiles`` cells.

    Notes
    -----
    The status default is decision 300; the user-count sweep is decision 302.
    """
    cells: list[dict[str, Any]] = [
        {"part": "egee", "trace": trace, "policy": pol, "deps": deps, "limit": limit,
         "series": SERIES, **({"status": status} if status != STATUS else {})}
        for pol, deps in (("ostrich", True), ("ostrich", False), ("fcfs", True),
                          ("fcfs", False), ("original", True))]
    sweep = (users,) if isinstance(users, int) else tuple(users)
    # "row_version" 2: the rows carry their user count (rows without it are recomputed)
    cells += [{"part": "profiles", "seed": first_seed + i, "jobs": jobs, "users": k,
               "row_version": 2} for k in sweep for i in range(instances)]
    return cells


def ostrich_cell(cell: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows of one cell of :func:`ostrich_cells` (an EGEE replay or a profiles
    workload).

    Parameters
    ----------
    cell : dict
        One cell of :func:`ostrich_cells` (``part`` ``"egee"`` or ``"profiles"``).

    Returns
    -------
    list of dict
        One row (EGEE replay) or one row per policy (profiles).
    """
    return _egee_cell(cell) if cell["part"] == "egee" else _profiles_cell(cell)


def check_trace(path: str, status: str = STATUS, processors: int = 140,
                limit: int = 0) -> int:
    """Refuse, before any cell runs, a trace (its first ``limit`` jobs, 0: all) where no job can
    be placed on ``processors`` under ``status`` (seed 002 §5.5).

    Parameters
    ----------
    path : str
        The SWF trace (LPC-EGEE in the seed).
    status : str
        Which SWF statuses are kept.
    processors : int
        The machine size jobs must fit (140, seed 002 §5.7).
    limit : int
        Only the first ``limit`` jobs (0: all).

    Returns
    -------
    int
        How many jobs can be placed: the size of each replay cell, which the progress
        line uses to estimate the time left by work.

    Raises
    ------
    ParseError
        Naming the trace and each reason's count. Reads the trace once; O(n log n).

    Notes
    -----
    The refusal is decision 301; the status filter decision 300.
    """
    from lpsched.campaigns.extract import _keep, _nothing_placed

    trace = _read_trace(path)
    if limit:
        trace = _head(trace, limit)
    keep, unplaced = _keep(trace, processors, status)
    if not keep.any():
        raise _nothing_placed(trace, unplaced)
    return int(keep.sum())


def _read_trace(path: str) -> SwfTrace:
    """The parsed trace, read once per process for the check and the five EGEE cells of a
    run (the same file: its size and modification time are part of the key). The trace is
    only read from: :func:`_head` and :func:`~lpsched.campaigns.extract.extract` take
    copies."""
    st = os.stat(path)
    return _read_trace_cached(path, st.st_size, st.st_mtime_ns)


@functools.lru_cache(maxsize=1)
def _read_trace_cached(path: str, size: int, mtime_ns: int) -> SwfTrace:
    return read_swf(path)


def _egee_workload(cell: dict[str, Any]) -> Workload:
    """The campaign workload an EGEE cell replays, extracted once per process for the cells
    of one trace, jobs, status and dependency choice (three cells share the one with
    dependencies, two the one without). Its arrays are made read-only: a cell that wrote into
    them would fail instead of changing the next cell's answers."""
    st = os.stat(cell["trace"])
    return _egee_workload_cached(cell["trace"], st.st_size, st.st_mtime_ns,
                                 int(cell["limit"]), int(cell.get("first", 0)),
                                 bool(cell["deps"]), str(cell.get("status", STATUS)))


@functools.lru_cache(maxsize=2)
def _egee_workload_cached(path: str, size: int, mtime_ns: int, limit: int, first: int,
                          deps: bool, status: str) -> Workload:
    trace = _read_trace(path)
    if limit or first:
        trace = _head(trace, limit, first)
    w = extract(trace, 140, "max", deps, status=status).workload
    for value in vars(w).values():
        arrays = value.values() if isinstance(value, dict) else (value,)
        for a in arrays:
            if isinstance(a, np.ndarray):
                a.setflags(write=False)
    return w


caches.register(_read_trace_cached, _egee_workload_cached)


def _egee_cell(cell: dict[str, Any]) -> list[dict[str, Any]]:
    """The LPC-EGEE replay (§5.7): m = 140, MAX campaigns, downtime pieces."""
    trace = _read_trace(cell["trace"])
    if cell["limit"] or cell.get("first", 0):
        trace = _head(trace, int(cell["limit"]), int(cell.get("first", 0)))
    w = _egee_workload(cell)
    t0 = time.perf_counter()
    run: CampaignRun = original_run(w) if cell["policy"] == "original" else simulate(
        w, policy_factory(cell["policy"], False))
    seconds = time.perf_counter() - t0
    if cell["policy"] != "original":
        validate(run)
    d = campaign_stretch(run)
    # the first bin also holds stretches below 1 (the log on fewer machines than it had)
    hist = np.bincount(np.clip(((d - 1) / BIN).astype(np.int64), 0, 20), minlength=21)
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
    """The seed's extract, "an interval of two months (December and January)" [L1364], as
    seconds from the log's start.

    ``[Dec 1, Feb 1)`` at midnight in the installation's time zone (header
    ``TimeZoneString``, else UTC), the first December 1 at or after the log's start (header
    ``UnixStartTime``), and its ISO start. ``None`` without ``UnixStartTime``. O(1).

    Parameters
    ----------
    trace : SwfTrace
        The parsed log (its header is read).

    Returns
    -------
    tuple or None
        ``(start, end, iso_start)``: seconds from the log's start, and Dec 1's ISO date.
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
        if pol == "fcfs" and sequential.applies(w):  # the same run without the engine
            run = sequential.fcfs(w, "submission")
        else:
            run = simulate(w, policy_factory(pol, False))
        validate(run)
        d = campaign_stretch(run)
        per_user = np.full(w.users, np.nan)
        np.fmax.at(per_user, w.user, d)
        rows.append({"part": "profiles", "seed": cell["seed"], "policy": pol,
                     "users": int(cell["users"]), "campaigns": w.campaigns,
                     "below_2": int(np.sum(d < 2)),
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

    Reading: for each replay, the mean hourly
    utilisation over the hours of Dec-Jan in which its own utilisation exceeds 10%; the
    check holds iff no-deps >= 1.2 x with-deps (relative "20% greater"). Also reported:
    the absolute reading (+20 points) and the paired reading (the same hours, those where
    the with-dependency replay is above 10%; share of those hours where no-deps is at
    least 20% higher). ``None`` when either series is missing. O(hours).

    Parameters
    ----------
    rows : list of dict
        The rows of :func:`ostrich_cell` over the cells of :func:`ostrich_cells`.

    Returns
    -------
    dict or None
        The window, the statement and reading, both replays' busy-hour figures, ``ratio``,
        ``holds`` and the other readings.

    Notes
    -----
    The reading is decision 145.
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
    """The Dec-Jan utilisation series as CSV rows, one per hour: the hour's index, its start in
    seconds from the log's start and as a date, one column per replay.

    Empty when no row carries a series. O(hours).

    Parameters
    ----------
    rows : list of dict
        The rows of :func:`ostrich_cell` over the cells of :func:`ostrich_cells`.

    Returns
    -------
    list of dict
        ``hour``, ``log_seconds``, ``date`` and one utilisation column per replay.
    """
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


def _profiles_totals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """B27-B28 figures of the two-profile rows of one user count, per policy."""
    prof: dict[str, Any] = {}
    for pol in ("fcfs", "ostrich"):
        rs = [r for r in rows if r["policy"] == pol]
        if rs:
            total = sum(r["campaigns"] for r in rs)
            short = [r["short_max_stretch"] for r in rs if r["short_max_stretch"] is not None
                     and np.isfinite(r["short_max_stretch"])]
            long_ = [r["long_max_stretch"] for r in rs if r["long_max_stretch"] is not None
                     and np.isfinite(r["long_max_stretch"])]
            prof[pol] = {"instances": len(rs), "campaigns": total,
                         "below_2": sum(r["below_2"] for r in rs),
                         "above_20": sum(r["above_20"] for r in rs),
                         "share_above_20": sum(r["above_20"] for r in rs) / total,
                         "short_max_stretch": float(np.mean(short)) if short else None,
                         "long_max_stretch": float(np.mean(long_)) if long_ else None}
    if "fcfs" in prof and "ostrich" in prof:
        prof["below_2_ratio"] = (prof["ostrich"]["below_2"] / prof["fcfs"]["below_2"]
                                 if prof["fcfs"]["below_2"] else None)
    return prof


#: B28 ([L1419]): per-profile mean of the users' max campaign stretch (FCFS short users:
#: "above 50", a bound); B27 ([L1411-L1417]): shares of campaigns with stretch > 20
SEED_B28 = {"short_fcfs": 50.0, "short_ostrich": 12.8, "long_fcfs": 6.3,
            "long_ostrich": 6.8}
SEED_B27 = {"fcfs_share_above_20": 0.423, "ostrich_share_above_20": 0.013,
            "below_2_ratio": 2.0}


def b28_distance(prof: dict[str, Any]) -> float | None:
    """The calibration criterion of the user count: how far B28's figures of one user count lie
    from the seed's, on a log scale.

    ``Σ |ln(ours / seed)|`` over B28's three numbers (short OStrich 12.8, long FCFS 6.3, long
    OStrich 6.8) plus ``ln(50 / ours)`` when short FCFS is below the seed's "above 50" (0
    above). ``None`` when a figure is missing. O(1).

    Parameters
    ----------
    prof : dict
        The profile figures of one user count (``fcfs`` and ``ostrich``, each with
        ``short_max_stretch`` and ``long_max_stretch``).

    Returns
    -------
    float or None
        The distance (0: every figure on the seed's).

    Notes
    -----
    The criterion is decision 302's, written before the sweep was run.
    """
    try:
        ours = {"short_fcfs": prof["fcfs"]["short_max_stretch"],
                "short_ostrich": prof["ostrich"]["short_max_stretch"],
                "long_fcfs": prof["fcfs"]["long_max_stretch"],
                "long_ostrich": prof["ostrich"]["long_max_stretch"]}
    except KeyError:
        return None
    if any(v is None or not v > 0 for v in ours.values()):
        return None
    d = max(0.0, float(np.log(SEED_B28["short_fcfs"] / ours["short_fcfs"])))
    return d + sum(abs(float(np.log(ours[k] / SEED_B28[k])))
                   for k in ("short_ostrich", "long_fcfs", "long_ostrich"))


def ostrich_summary(rows: list[dict[str, Any]],
                    default_users: int = PROFILE_DEFAULT_USERS) -> dict[str, Any]:
    """The figures of the OStrich reproduction beside the seed's: EGEE shares (B24-B25), B26
    (:func:`b26_check`) and the profile figures (B27-B28).

    ``"profiles"`` holds the figures of ``default_users`` (or of the only user count run),
    ``"profiles_sweep"`` those of every user count run, each with its B28 distance
    (:func:`b28_distance`), and ``"criterion_users"`` the count the calibration criterion
    picks on these rows.

    Parameters
    ----------
    rows : list of dict
        The rows of :func:`ostrich_cell` over the cells of :func:`ostrich_cells`.
    default_users : int
        The user count whose profile figures are reported (default
        :data:`PROFILE_DEFAULT_USERS`, 10).

    Returns
    -------
    dict
        ``egee`` (per replay), ``b26``, ``profiles``, ``profiles_users``,
        ``profiles_sweep``, ``criterion_users`` and the ``seed`` figures.

    Notes
    -----
    The criterion is decision 302's.
    """
    egee = {f"{r['policy']}{'' if r['deps'] else '-nodeps'}": {
        k: r[k] for k in EGEE_KEYS if k in r} for r in rows if r["part"] == "egee"}
    prof_rows = [r for r in rows if r["part"] == "profiles"]
    counts = sorted({int(r.get("users", default_users)) for r in prof_rows})
    sweep: dict[str, Any] = {}
    for k in counts:
        entry = _profiles_totals([r for r in prof_rows
                                  if int(r.get("users", default_users)) == k])
        entry["b28_distance"] = b28_distance(entry)
        sweep[str(k)] = entry
    scored = [(v["b28_distance"], int(k)) for k, v in sweep.items()
              if v["b28_distance"] is not None]
    shown = default_users if default_users in counts else (counts[0] if len(counts) == 1
                                                          else None)
    seed = {"egee": {"ostrich": {"share_1": 0.686, "share_1_15": 0.80,
                                 "share_below_1_5": 0.897},
                     "original": {"share_1": 0.003, "share_below_1_5": 0.552},
                     "campaigns": 56918, "users": 55},
            "profiles": {"fcfs_share_above_20": 0.423, "ostrich_share_above_20": 0.013,
                         "short": {"fcfs": 50, "ostrich": 12.8},
                         "long": {"fcfs": 6.3, "ostrich": 6.8}}}
    return {"egee": egee, "b26": b26_check(rows),
            "profiles": sweep.get(str(shown), {}) if shown is not None else {},
            "profiles_users": shown, "profiles_sweep": sweep,
            "criterion_users": min(scored)[1] if scored else None, "seed": seed}


def profiles_sweep_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """The user-count sweep of B27-B28 as CSV rows, one per user count: every figure of both
    policies, the seed's beside them, and the B28 distance.

    O(counts).

    Parameters
    ----------
    summary : dict
        The result of :func:`ostrich_summary`.

    Returns
    -------
    list of dict
        ``users``, per policy its figures (``fcfs_...``, ``ostrich_...``),
        ``below_2_ratio``, ``b28_distance`` and ``default``.

    Notes
    -----
    The B28 distance is decision 302's criterion.
    """
    out = []
    for k, v in summary["profiles_sweep"].items():
        row: dict[str, Any] = {"users": int(k)}
        for pol in ("fcfs", "ostrich"):
            for key in ("instances", "campaigns", "below_2", "above_20", "share_above_20",
                        "short_max_stretch", "long_max_stretch"):
                row[f"{pol}_{key}"] = v.get(pol, {}).get(key)
        row["below_2_ratio"] = v.get("below_2_ratio")
        row["b28_distance"] = v.get("b28_distance")
        row["default"] = int(k) == summary["profiles_users"]
        out.append(row)
    return out
