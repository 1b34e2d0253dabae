"""Seed 002 ch. 5's seed-vs-ours table (``reproduce ostrich``: §5.2-§5.5, Figs. 5.1-5.13),
one row per entry of the manifest, judged by :mod:`lpsched.core.fidelity` (the module
doc of :mod:`lpsched.campaigns.fidelity` says how).

Decisions 570-578 hold the readings.

The LPC-EGEE rows are one deterministic replay of the whole trace: their noise is 0 and a
part of the trace (``--limit``) is a reduced run, never judged (decision 570). The
two-profile rows pair OStrich and FCFS on the same instances (paired standard errors);
the user count was chosen on B28's four means after B27 was seen (decision 302), so every
two-profile row is ``calibration`` (decision 580); B26's utilisation readings were all
seen before this table (decision 145), so its rows are ``calibration`` too (decision 572).
An LPC-EGEE row no reading of its own was tried for names decision 578 when it differs.
"""

from __future__ import annotations

import inspect
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np

from lpsched.campaigns.examples import max_example, ostrich_example
from lpsched.campaigns.fidelity_rows import figure_row, in_manifest_order, printed_tolerance, stamp
from lpsched.campaigns.generators import profiles_workload, short_users
from lpsched.core.fidelity import (
    Bound,
    FidelityRow,
    FidelityTable,
    Gap,
    Range,
    Size,
    compare,
    mean_and_se,
    not_measured,
    paired_se,
)

__all__ = [
    "EGEE_JOBS",
    "PROFILE_INSTANCES",
    "EgeeRun",
    "ProfilesRun",
    "egee_run",
    "ostrich_table",
    "profiles_run",
]

#: job lines of the cleaned LPC-EGEE log the seed replays whole [002 L1340, L1354]
EGEE_JOBS = 234_889
#: instances and jobs per instance of the two-profile simulation [002 L1409]
PROFILE_INSTANCES, PROFILE_JOBS = 40, 10_000
#: m of the LPC-EGEE replay [002 L1350] (lpsched.campaigns.reproduce replays on 140)
EGEE_M = 140

GAP_EGEE = Gap(
    305,
    readings=12,
    evidence=(
        "Twelve readings of the extraction and replay (status filter, downtime pieces, MAX "
        "boundary, SESSION, closed loop, edge rule, start gate, campaign bound, pacing) move "
        "OStrich's share at stretch 1 by at most 1.1 points. Only the machine count moves it "
        "(70 machines: 79.2 %), and the text fixes m = 140."
    ),
)
GAP_USERS = Gap(
    305,
    measured=True,
    evidence=(
        "54 users have a job that ran; the 55th has only jobs of run time 0, which cannot be "
        "replayed: the seed counted users over the jobs with run time >= 0."
    ),
)
GAP_NODEPS = Gap(
    305,
    measured=True,
    evidence=(
        "Without dependencies the large MAX campaigns held together by linker jobs are "
        "released at once and saturate the machine; with SESSION extraction, which splits "
        "those campaigns, removing dependencies helps (95.5 % vs 94.3 %), as the seed expects."
    ),
)
GAP_PROFILES = Gap(
    302,
    readings=4,
    evidence=(
        "The user count is not given; four counts (5, 10, 20, 40) were run. At the count B28 "
        "chooses (10) FCFS's share above stretch 20 is 12.8 % (seed 42.3 %); 20 users come "
        "close on B27 at the cost of B28: no single count gives both."
    ),
)
#: the LPC-EGEE rows no reading of their own was tried for (decision 578)
GAP_EGEE_ONE = Gap(
    578,
    readings=1,
    evidence=(
        "Only the default extraction and replay (decisions 99-101, 300, 305) was judged on "
        "this row; no other reading was tried for it."
    ),
)


#: the seed's trace, as the Parallel Workloads Archive names its cleaned version [002 L1340]
EGEE_NAME = "LPC-EGEE-2004-1.2-cln"
#: the trace as the seed names it [002 L1340]
EGEE_SEED = "LPC-EGEE (cleaned version)"
#: the replay's pieces as the seed describes them [002 L1352-L1354]
PIECES = "pieces between downtimes, replayed separately"
#: the jobs replayed as the seed states it: "no jobs are omitted during the replay" [002 L1354]
EVERY_JOB = "every job, none omitted"


def _trace_name(path: str) -> str:
    """A trace file's name without its folder and its ``.swf`` / ``.swf.gz`` suffix."""
    return os.path.basename(path).removesuffix(".gz").removesuffix(".swf")


@dataclass(frozen=True)
class EgeeRun:
    """The LPC-EGEE rows of one replay, by schedule (``ostrich``, ``ostrich-nodeps``,
    ``fcfs``, ``fcfs-nodeps``, ``original``), and the part of the trace replayed."""

    rows: dict[str, dict[str, Any]]
    trace: str
    first: int
    limit: int

    @property
    def size(self) -> Size:
        """The jobs replayed beside the seed's whole trace."""
        n = self.limit or EGEE_JOBS
        return Size(
            min(n, EGEE_JOBS) if self.first == 0 else min(n, EGEE_JOBS - 1),
            EGEE_JOBS,
            "jobs of the LPC-EGEE trace",
        )

    def series(self, name: str) -> np.ndarray | None:
        """The Dec-Jan hourly utilisation of one schedule (``None``: not in the rows).

        Parameters
        ----------
        name : str
            A schedule's name (class doc).

        Returns
        -------
        numpy.ndarray or None
        """
        r = self.rows.get(name)
        u = r.get("utilisation_dec_jan") if r else None
        return np.asarray(u, dtype=float) if u else None


def egee_run(rows: Sequence[dict[str, Any]], cells: Sequence[dict[str, Any]]) -> EgeeRun:
    """The LPC-EGEE rows by schedule, and the trace part of their cells.

    Parameters
    ----------
    rows : sequence of dict
        Rows of :func:`lpsched.campaigns.reproduce.ostrich_cell` (one replay).
    cells : sequence of dict
        The run's cells (the trace, ``limit`` and ``first`` are in their keys only).

    Returns
    -------
    EgeeRun
    """
    by = {
        f"{r['policy']}{'' if r['deps'] else '-nodeps'}": r for r in rows if r.get("part") == "egee"
    }
    egee = [c for c in cells if c.get("part") == "egee"]
    c0 = egee[0] if egee else {}
    return EgeeRun(by, str(c0.get("trace", "")), int(c0.get("first", 0)), int(c0.get("limit", 0)))


@dataclass(frozen=True)
class ProfilesRun:
    """The two-profile rows of one user count, paired by instance (seed order)."""

    users: int | None
    jobs: int
    fcfs: list[dict[str, Any]] = field(default_factory=list)
    ostrich: list[dict[str, Any]] = field(default_factory=list)

    @property
    def size(self) -> Size:
        """The instances beside the seed's 40."""
        return Size(len(self.fcfs), PROFILE_INSTANCES, "instances")

    def values(self, policy: str, key: str) -> np.ndarray:
        """One field of one policy over the paired instances.

        Parameters
        ----------
        policy : str
            ``"fcfs"`` or ``"ostrich"``.
        key : str
            A field of the profile rows.

        Returns
        -------
        numpy.ndarray
        """
        rs = self.fcfs if policy == "fcfs" else self.ostrich
        return np.array([float(r[key]) for r in rs])


def profiles_run(
    rows: Sequence[dict[str, Any]], cells: Sequence[dict[str, Any]] = (), default_users: int = 10
) -> ProfilesRun:
    """The two-profile rows of the reported user count, paired by instance.

    Parameters
    ----------
    rows : sequence of dict
        Rows of :func:`lpsched.campaigns.reproduce.ostrich_cell`.
    cells : sequence of dict
        The run's cells (the jobs per instance are in their keys only; none: 10,000).
    default_users : int
        The reported count when the rows hold several (10).

    Returns
    -------
    ProfilesRun
        Empty when no profile row.

    Notes
    -----
    The reported count is decision 302's.
    """
    prof = [r for r in rows if r.get("part") == "profiles"]
    counts = sorted({int(r.get("users", default_users)) for r in prof})
    if not counts:
        return ProfilesRun(None, 0)
    k = default_users if default_users in counts else counts[0]
    by: dict[str, dict[int, dict[str, Any]]] = {"fcfs": {}, "ostrich": {}}
    for r in prof:
        if int(r.get("users", default_users)) == k and r["policy"] in by:
            by[r["policy"]][int(r["seed"])] = r
    seeds = sorted(set(by["fcfs"]) & set(by["ostrich"]))
    jobs = max(
        (
            int(c.get("jobs", 0))
            for c in cells
            if c.get("part") == "profiles" and int(c.get("users", k)) == k
        ),
        default=PROFILE_JOBS,
    )
    return ProfilesRun(k, jobs, [by["fcfs"][s] for s in seeds], [by["ostrich"][s] for s in seeds])


# -- the worked examples (decision 574) --------------------------------------------------


def _example_rows() -> list[FidelityRow]:
    """Figs. 5.1, 5.3, 5.4 computed from the text (decision 574)."""
    ex, mx = ostrich_example(), max_example()
    read_back = (
        "the loads 48, 18, 10, 8, 10 are read back from these printed values "
        "(spec B18): they cannot differ"
    )
    fig = "Figure 5.1"
    return [
        compare(
            "Fig. 5.1 C~ of users 1, 2 re-shared when user 3 joins at t = 2",
            "002 L1193",
            "23, 8",
            f"{ex.at_2[0]:g}, {ex.at_2[1]:g}",
            ref="002-F5.1",
            source=fig,
            note="VirtualClock on m = 6 (Eq. 5.1): the values the loads do not fix",
        ),
        compare(
            "Fig. 5.1 C~ at t = 0 (users 1, 2), user 3's at t = 2 and 5, user 2's at 8",
            "002 L1191-L1199",
            "16, 6; 7; 11; 13",
            f"{ex.at_0[0]:g}, {ex.at_0[1]:g}; {ex.at_2[2]:g}; {ex.c_2_3:g}; {ex.c_2_2:g}",
            ref="002-F5.1",
            source=fig,
            construction=read_back,
        ),
        compare(
            "Fig. 5.1 s~_2^3, the start of user 3's second campaign",
            "002 L1197",
            "8",
            f"{ex.start_2_3:g}",
            ref="002-F5.1",
            source=fig,
            gap=Gap(
                574,
                measured=True,
                evidence="The text gives C~_1^3 = 7 [002 L1193] and "
                "then s~_2^3 = C~_1^3 = 8 [002 L1197]; Eq. 5.2 gives 7: the seed "
                "contradicts itself.",
            ),
        ),
        compare(
            "Fig. 5.3 MAX: campaigns of the 7 jobs; without the linker job 6",
            "002 L1306-L1312",
            "1 campaign; 2 (jobs 1-5, job 7)",
            f"{len(mx.campaigns)} campaign; {len(mx.without_linker)} (jobs "
            f"{mx.without_linker[0][0]}-{mx.without_linker[0][-1]}, job "
            f"{mx.without_linker[-1][0]})",
            ref="002-F5.3",
            source="Figure 5.3",
            construction="the figure's times are not in the text; the jobs are laid out "
            "as it describes them (examples.MAX_JOBS), which fixes the grouping",
            note="extract.detect(method='max')",
        ),
        not_measured(
            "Fig. 5.4 the campaign's dependency DAG",
            "002 L1322",
            "image only",
            "the seed prints no edge of the figure (an image, not in its text)",
            ref="002-F5.4",
            source="Figure 5.4",
        ),
    ]


# -- the set-up ----------------------------------------------------------------------------


def _egee_fixed() -> list[FidelityRow]:
    """[002 L1300-L1356]: the settings every LPC-EGEE replay of ``reproduce`` has."""
    from lpsched.campaigns import reproduce as exp
    from lpsched.campaigns.extract import DOWNTIME

    m = inspect.signature(exp.check_trace).parameters["processors"].default
    return [
        compare(
            "machine: m",
            "002 L1350",
            EGEE_M,
            m,
            ref="002-S-egee-machines",
            statistic="value",
            construction="reproduce replays on check_trace's processors (140), whatever the log",
            note="the 10 months not checked",
        ),
        compare(
            "pieces between downtimes, replayed apart",
            "002 L1352-L1354",
            PIECES,
            PIECES,
            ref="002-S-egee-downtime",
            construction=f"extract splits the log at every gap >= {DOWNTIME / 3600:g} h with "
            "no job running, each piece keeping its queued jobs (decision 101: the text gives "
            "no length)",
        ),
        compare(
            "detection and order",
            "002 L1300-L1334",
            "MAX, interval DAG, LPT",
            "MAX, interval DAG, LPT",
            ref="002-S-egee-detection",
            construction="extract(method='max', deps=True) (decisions 99, 100)",
        ),
        compare("histogram bin", "002 L1356", 0.15, exp.BIN, ref="002-S-egee-bins",
                statistic="value", construction="reproduce.BIN, whatever the run"),
    ]


#: the LPC-EGEE set-up entries measured on the replay: (label, line, seed, entry)
EGEE_SETUP = (
    ("trace", "002 L1340", EGEE_SEED, "002-S-egee-trace"),
    ("jobs of the trace replayed", "002 L1354", EVERY_JOB, "002-S-egee-trace"),
    ("baseline: the log's own schedule", "002 L1338-L1350", "Maui (log)", "002-S-egee-baseline"),
    ("LPC-EGEE campaigns (MAX)", "002 L1354", 56918, "002-S-egee-campaigns"),
    ("LPC-EGEE users", "002 L1354", 55, "002-S-egee-campaigns"),
    ("extract: December-January", "002 L1366", "Dec-Jan", "002-S-egee-extract"),
)
GAP_CAMPAIGNS = Gap(
    305,
    readings=3,
    evidence=(
        "The non-strict MAX boundary gives 57,935 campaigns, completed jobs only 61,282, jobs "
        "of run time >= 0 59,972: none gives 56,918."
    ),
)


def _trace_row(name: str) -> FidelityRow:
    """[002 L1340]: the trace replayed, the run's ``--trace``; another trace is not judged."""
    if name != EGEE_NAME:
        return replace(not_measured("trace", "002 L1340", EGEE_SEED, f"trace {name} is not "
                                    f"the seed's {EGEE_NAME}", ref="002-S-egee-trace"),
                       ours=name)
    return compare("trace", "002 L1340", EGEE_SEED, EGEE_SEED, ref="002-S-egee-trace",
                   construction=f"the run's --trace (its default: {EGEE_NAME}.swf, the "
                   "Archive's cleaned version)", note=f"file {name}")


def _jobs_row(size: Size, part: str) -> FidelityRow:
    """[002 L1354]: every job replayed, none omitted (``--limit`` 0), else a reduced run."""
    fig = "jobs of the trace replayed"
    if size.reduced:
        return not_measured(fig, "002 L1354", EVERY_JOB, f"reduced run ({size.label()}): "
                            f"{part}", ref="002-S-egee-trace")
    return compare(fig, "002 L1354", EVERY_JOB, EVERY_JOB, ref="002-S-egee-trace",
                   construction="the run's --limit 0 replays every job line of the file",
                   note=f"{size.n:,} job lines ({part})")


def _egee_setup(egee: EgeeRun) -> list[FidelityRow]:
    """[002 L1340-L1366]: the trace, its part, m, pieces, detection, bins, extract."""
    from lpsched.campaigns.reproduce import SERIES

    if not egee.rows:
        return [not_measured(f, line, seed, "no LPC-EGEE rows in the store", ref=ref)
                for f, line, seed, ref in EGEE_SETUP] + _egee_fixed()
    name, size = _trace_name(egee.trace), egee.size
    first = egee.rows.get("ostrich") or next(iter(egee.rows.values()))
    part = (f"jobs {egee.first:,}-{egee.first + size.n - 1:,} of the trace" if size.reduced
            else "the whole trace")
    other = (f"trace {name} is not the seed's {EGEE_NAME}" if name != EGEE_NAME else
             f"reduced run ({size.label()}): a part of the trace is not a sample of it"
             if size.reduced else None)
    # counts of the whole log, one deterministic extraction: values, judged as they are
    counts = stamp([
        compare("LPC-EGEE campaigns (MAX)", "002 L1354", 56918, int(first["campaigns"]),
                statistic="value", gap=GAP_CAMPAIGNS, ref="002-S-egee-campaigns",
                note="a count over the same log: tolerance 0"),
        compare("LPC-EGEE users", "002 L1354", 55, int(first["users"]),
                statistic="value", gap=GAP_USERS, ref="002-S-egee-campaigns")], other)
    series = any(r.get("utilisation_dec_jan") for r in egee.rows.values())
    extract = (compare("extract: December-January", "002 L1366", "Dec-Jan", "Dec-Jan",
                       ref="002-S-egee-extract", construction="reproduce stores the "
                       "Dec-Jan hours of every replay that reaches them (decisions 143, 144)",
                       note=SERIES)
               if series else
               not_measured("extract: December-January", "002 L1366", "Dec-Jan",
                            f"the jobs replayed ({part}) do not reach December",
                            ref="002-S-egee-extract"))
    return [
        _trace_row(name),
        _jobs_row(size, part),
        compare("baseline: the log's own schedule", "002 L1338-L1350", "Maui (log)",
                "Maui (log)" if "original" in egee.rows else "absent",
                ref="002-S-egee-baseline", construction="reproduce replays the log's own "
                "start times as the 'original' schedule"),
        *counts, extract, *_egee_fixed()]


def _profiles_setup(prof: ProfilesRun) -> list[FidelityRow]:
    """[002 L1402-L1409]: m, instances, lengths, campaigns, the user count."""
    probe = profiles_workload(10, jobs=2000, seed=0)
    camp = np.repeat(np.arange(probe.campaigns), np.diff(probe.offsets))
    short = short_users(probe)[probe.user[camp]]
    p_new = inspect.signature(profiles_workload).parameters["p_new"].default
    inside = bool(
        np.all((probe.p[short] >= 1) & (probe.p[short] <= 3600))
        and np.all((probe.p[~short] >= 3600) & (probe.p[~short] <= 36000))
    )
    lengths = (
        f"short {probe.p[short].min():.6g}-{probe.p[short].max():.6g}; long "
        f"{probe.p[~short].min():.6g}-{probe.p[~short].max():.6g} (drawn, 2,000 jobs)"
    )
    gen = "the generator (generators.profiles_workload) draws it so, whatever the run"
    rows = [
        compare("machine: m", "002 L1402-L1407", 64, probe.processors, ref="002-S-profiles-m",
                statistic="value", construction=gen),
        compare(
            "job lengths by profile",
            "002 L1409",
            "short U[1, 3600]; long U[3600, 36000]",
            "short U[1, 3600]; long U[3600, 36000]" if inside else "outside",
            ref="002-S-profiles-lengths",
            construction=gen,
            note=lengths,
        ),
        compare(
            "campaigns: P(new campaign), owner",
            "002 L1409",
            "0.02, uniform",
            f"{p_new:g}, uniform",
            ref="002-S-profiles-campaigns",
            construction=gen,
        ),
    ]
    if prof.users is None:
        return [
            *rows,
            not_measured(
                "instances of 10^4 jobs",
                "002 L1409",
                40,
                "no two-profile rows in the store",
                ref="002-S-profiles-instances",
            ),
            not_measured(
                "users per instance",
                "002 L1409",
                "not given",
                "no two-profile rows in the store",
                ref="002-S-profiles-campaigns",
                role="calibration",
            ),
        ]
    return [
        *rows,
        compare(
            "instances of 10^4 jobs",
            "002 L1409",
            PROFILE_INSTANCES,
            prof.size.n,
            statistic="count",
            size=prof.size,
            ref="002-S-profiles-instances",
        ),
        not_measured(
            "users per instance",
            "002 L1409",
            "not given",
            f"the seed gives none; {prof.users} chosen by B28 (decision 302)",
            ref="002-S-profiles-campaigns",
            role="calibration",
        ),
    ]


# -- LPC-EGEE: the campaign stretch (Figs. 5.5-5.6, [002 L1358]) -------------------------

#: [002 L1358]: (label, schedule, field, seed %, decimals, entry)
SHARES: tuple[tuple[str, str, str, float, int, str], ...] = (
    (
        "OStrich campaigns at stretch <= 1.15",
        "ostrich",
        "share_1_15",
        80.0,
        0,
        "002-L1358-ostrich-115",
    ),
    ("OStrich campaigns at stretch 1", "ostrich", "share_1", 68.6, 1, "002-L1358-ostrich-1"),
    (
        "OStrich campaigns at stretch < 1.5",
        "ostrich",
        "share_below_1_5",
        89.7,
        1,
        "002-L1358-ostrich-15",
    ),
    ("original log campaigns at stretch 1", "original", "share_1", 0.3, 1, "002-L1358-orig-1"),
    (
        "original log campaigns at stretch < 1.5",
        "original",
        "share_below_1_5",
        55.2,
        1,
        "002-L1358-orig-15",
    ),
)

#: the calibration finding on OStrich's share at stretch 1 (decision 577)
FINDING_EGEE = (
    "calibration finding (decision 577, benchmarks/readings/campaigns/headline_calibration.py"
    ", whole trace): the machine count alone moves it, 72.0 % at m = 60 and 61.0 % at 50, so "
    "68.6 % needs m near 57, 40 % of the 140 the text states; not plausible from the text, "
    "and the shares up to 1.15 and 1.5 stay off the seed's shape"
)


def _quantile_edge(hist: Sequence[float], q: float) -> float:
    """The upper edge of the 0.15-wide bin where the cumulative share reaches ``q``."""
    h = np.asarray(hist, dtype=float)
    cum = np.cumsum(h) / h.sum()
    return 1.0 + 0.15 * (int(np.searchsorted(cum, q)) + 1)


def _egee_stretch_rows(egee: EgeeRun) -> list[FidelityRow]:
    """[002 L1358]: the shares of Figs. 5.5-5.6, the log's spread and OStrich's few high
    values; one deterministic replay, noise 0 (decision 575)."""
    size = egee.size
    rows = []
    for label, sched, key, seed, dec, ref in SHARES:
        r = egee.rows.get(sched)
        tol = printed_tolerance(seed, dec)
        if r is None:
            rows.append(
                not_measured(
                    label, "002 L1358", seed, "no LPC-EGEE rows", ref=ref, unit="%", tolerance=tol
                )
            )
            continue
        note = f"with dependencies; from the log's submission time: {100 * r[key + '_log']:.3g} %"
        if ref == "002-L1358-ostrich-1":
            note += "; " + FINDING_EGEE
        rows.append(
            compare(
                label,
                "002 L1358",
                seed,
                100 * float(r[key]),
                tolerance=tol,
                unit="%",
                size=size,
                statistic="value",
                ref=ref,
                gap=GAP_EGEE if sched == "ostrich" else GAP_EGEE_ONE,
                note=note,
            )
        )
    orig, ost = egee.rows.get("original"), egee.rows.get("ostrich")
    spread = "original log: stretch below which 95 % of campaigns lie"
    high = "share of campaigns at stretch >= 1.5: the log's minus OStrich's"
    if orig is None or ost is None:
        return [
            *rows,
            not_measured(
                spread, "002 L1358", Range(1.0, 3.0), "no LPC-EGEE rows", ref="002-L1358-orig-range"
            ),
            not_measured(
                high,
                "002 L1358",
                Bound(">", 0.0),
                "no LPC-EGEE rows",
                ref="002-L1358-high",
                unit="points",
            ),
        ]
    edge = _quantile_edge(orig["histogram_0_15"], 0.95)
    diff = 100 * (float(ost["share_below_1_5"]) - float(orig["share_below_1_5"]))
    return [
        *rows,
        compare(
            spread,
            "002 L1358",
            Range(1.0, 3.0),
            edge,
            size=size,
            statistic="tail",
            grid=[1 + 0.15 * i for i in range(22)],
            ref="002-L1358-orig-range",
            gap=GAP_EGEE_ONE,
            note="the upper edge of its 0.15-wide bin; last bin: all above 4",
        ),
        compare(
            high,
            "002 L1358",
            Bound(">", 0.0),
            diff,
            noise=0.0,
            size=size,
            statistic="value",
            unit="points",
            ref="002-L1358-high",
            gap=GAP_EGEE_ONE,
            note="'very few high values': fewer than the log's, one replay",
        ),
    ]


# -- LPC-EGEE: the utilisation (Figs. 5.7-5.11, [002 L1364-L1390]) -----------------------


def _mean_busy(u: np.ndarray) -> float | None:
    above = u > 0.10
    return float(u[above].mean()) if above.any() else None


def _b26_rows(egee: EgeeRun) -> list[FidelityRow]:
    """[002 L1368-L1380]: B26 under each reading of decision 145, all seen before this
    table: calibration (decision 572)."""
    fig = "no-deps / deps utilisation, hours > 10 % (Dec-Jan)"
    d, n = egee.series("ostrich"), egee.series("ostrich-nodeps")
    seed = Bound(">=", 1.2)
    if d is None or n is None:
        why = (
            "no Dec-Jan series: the replayed jobs do not reach December"
            if egee.rows
            else "no LPC-EGEE rows"
        )
        return [
            not_measured(
                f"{fig}, {r}", "002 L1368-L1380", seed, why, ref="002-L1368-20", role="calibration"
            )
            for r in ("own hours", "the same hours")
        ]
    md, mn = _mean_busy(d), _mean_busy(n)
    paired = d > 0.10
    pd = float(d[paired].mean()) if paired.any() else math.nan
    pn = float(n[paired].mean()) if paired.any() else math.nan
    own = mn / md if md and mn is not None else math.nan
    return [
        compare(
            f"{fig}, each replay's own hours",
            "002 L1368-L1380",
            seed,
            own,
            noise=0.0,
            statistic="value",
            role="calibration",
            ref="002-L1368-20",
            gap=Gap(
                145,
                measured=True,
                evidence="Both replays execute the same work in the window; only a reading "
                "over each replay's own busy hours can give the no-dependency replay more "
                "utilisation. It was chosen after the figures were seen.",
            ),
            note="decision 145's reading, chosen after Figs. 5.10-5.11 were seen",
        ),
        compare(
            f"{fig}, the same hours (deps > 10 %)",
            "002 L1368-L1380",
            seed,
            pn / pd if pd else math.nan,
            noise=0.0,
            statistic="value",
            role="calibration",
            ref="002-L1368-20",
            gap=Gap(
                145,
                measured=True,
                evidence=(
                    "Over the same hours the two replays hold the same work; the no-dependency "
                    "replay cannot be 20 % busier on average."
                ),
            ),
            note="the paired reading; seen with decision 145's",
        ),
    ]


def _direction(
    fig: str, line: str, ref: str, value: float | None, note: str, gap: Gap | None = None
) -> FidelityRow:
    """A direction on one deterministic replay (noise 0): ``value > 0`` is the seed's side."""
    if value is None:
        return not_measured(fig, line, Bound(">", 0.0), "no Dec-Jan series", ref=ref)
    return compare(fig, line, Bound(">", 0.0), value, noise=0.0, statistic="value", ref=ref,
                   gap=gap or GAP_EGEE_ONE, note=note)


def _utilisation_rows(egee: EgeeRun) -> list[FidelityRow]:
    """[002 L1364-L1390]: the whole trace (not in the rows) and the Dec-Jan extract."""
    d, n, o = (egee.series(k) for k in ("ostrich", "ostrich-nodeps", "original"))
    have = d is not None and n is not None and o is not None
    full = lambda u: int(np.sum(u >= 1 - 1e-9))  # noqa: E731
    idle = lambda u: int(np.sum(u < 0.01))  # noqa: E731
    rows = [
        not_measured(
            "whole trace: OStrich at 100 % more often, more empty periods",
            "002 L1364",
            Bound(">", 0.0),
            "the rows hold the Dec-Jan series "
            "only (field needed: the utilisation over the whole trace)",
            ref="002-L1364",
        )
    ]
    if not have:
        why = "no Dec-Jan series" if egee.rows else "no LPC-EGEE rows"
        return rows + [
            not_measured(f, line, Bound(">", 0.0), why, ref=ref)
            for f, line, ref in (
                ("Dec-Jan: hours at 100 %, OStrich minus the log", "002 L1366", "002-L1366"),
                ("Dec-Jan: sd of utilisation, deps minus no-deps", "002 L1368", "002-L1368-homog"),
                ("Dec-Jan: idle hours, no-deps minus deps", "002 L1380", "002-L1380"),
                ("Dec-Jan: distance to the log, no-deps minus deps", "002 L1382", "002-L1382"),
            )
        ]
    assert d is not None and n is not None and o is not None
    near = float(np.mean(np.abs(n - o)) - np.mean(np.abs(d - o)))
    return [
        *rows,
        _direction(
            "Dec-Jan: hours at 100 %, OStrich minus the log",
            "002 L1366",
            "002-L1366",
            full(d) - full(o),
            f"OStrich {full(d)} h, log {full(o)} h",
        ),
        _direction(
            "Dec-Jan: sd of utilisation, deps minus no-deps (points)",
            "002 L1368",
            "002-L1368-homog",
            100 * float(d.std() - n.std()),
            f"deps {100 * d.std():.3g}, no-deps {100 * n.std():.3g}",
        ),
        _direction(
            "Dec-Jan: idle hours (< 1 %), no-deps minus deps",
            "002 L1380",
            "002-L1380",
            idle(n) - idle(d),
            f"no-deps {idle(n)} h, deps {idle(d)} h",
        ),
        _direction(
            "Dec-Jan: mean |hourly difference| to the log, no-deps minus deps",
            "002 L1382-L1390",
            "002-L1382",
            100 * near,
            "points; 'quite similar' (deps) against 'more biased' (no-deps)",
        ),
    ]


def _nodeps_stretch_row(egee: EgeeRun) -> FidelityRow:
    """[002 L1368]: 'in theory' better stretch without dependencies (decision 304)."""
    fig = "OStrich at stretch 1: no-deps minus deps (points)"
    d, n = egee.rows.get("ostrich"), egee.rows.get("ostrich-nodeps")
    if d is None or n is None:
        return not_measured(
            fig, "002 L1368", Bound(">", 0.0), "no LPC-EGEE rows", ref="002-L1368-stretch"
        )
    return compare(
        fig,
        "002 L1368",
        Bound(">", 0.0),
        100 * (float(n["share_1"]) - float(d["share_1"])),
        noise=0.0,
        size=egee.size,
        statistic="value",
        ref="002-L1368-stretch",
        gap=GAP_NODEPS,
        note="'in theory', no figure published (decision 304)",
    )


# -- the two-profile simulation (Figs. 5.12-5.13, [002 L1411-L1419]) ---------------------


#: B27's counts and shares above stretch 20 [002 L1411-L1417]: (label, policy, seed,
#: entry, line)
B27_COUNTS: tuple[tuple[str, str, float | Bound, str, str], ...] = (
    ("FCFS campaigns with stretch > 20: count over the instances", "fcfs", Bound(">", 2600.0),
     "002-L1411-fcfs20", "002 L1411-L1417"),
    ("OStrich campaigns with stretch > 20: count over the instances", "ostrich", 117.0,
     "002-L1417", "002 L1417"))
B27_SHARES: tuple[tuple[str, str, float, str, str], ...] = (
    ("FCFS share of campaigns with stretch > 20", "fcfs", 42.3, "002-L1411-fcfs20",
     "002 L1411-L1417"),
    ("OStrich share of campaigns with stretch > 20", "ostrich", 1.3, "002-L1417", "002 L1417"))
BELOW_2 = "OStrich / FCFS campaigns with stretch < 2"
#: the note of every two-profile row measured at the calibrated user count
PROFILES_NOTE = ("{} users, the count B28's four numbers chose after B27 was seen (decision "
                 "302): calibration")


def _share_rows(prof: ProfilesRun) -> list[FidelityRow]:
    """B27 [002 L1411-L1417]: the campaigns above stretch 20 (counts over 40 instances:
    judged at the seed's size only; shares: means over instances) and below 2; computed at
    the user count chosen on B28 after B27 was seen: calibration (decisions 302, 572)."""
    cal: Literal["validation", "calibration"] = "calibration"
    if prof.users is None:
        why = "no two-profile rows in the store"
        return [*(not_measured(f, line, s, why, ref=ref, role=cal)
                  for f, _, s, ref, line in B27_COUNTS),
                *(not_measured(f, line, s, why, ref=ref, unit="%", role=cal,
                               tolerance=printed_tolerance(s, 1))
                  for f, _, s, ref, line in B27_SHARES),
                not_measured(BELOW_2, "002 L1411", Bound(">", 2.0), why, role=cal,
                             ref="002-L1411-below2")]
    size, note = prof.size, PROFILES_NOTE.format(prof.users)
    rows = [compare(fig, line, seed, float(prof.values(pol, "above_20").sum()),
                    statistic="count", size=size, gap=GAP_PROFILES, ref=ref, note=note,
                    role=cal,
                    tolerance=0.0 if isinstance(seed, Bound) else printed_tolerance(seed, 0))
            for fig, pol, seed, ref, line in B27_COUNTS]
    for fig, pol, share, ref, line in B27_SHARES:
        per = 100 * prof.values(pol, "above_20") / prof.values(pol, "campaigns")
        mean, se = mean_and_se(per.tolist())
        extra = "; 'more than 2600' is 42.3 % of the seed's campaigns" if pol == "fcfs" else ""
        rows.append(compare(fig, line, share, mean, tolerance=printed_tolerance(share, 1),
                            unit="%", noise=se, size=size, gap=GAP_PROFILES, ref=ref,
                            role=cal, note=f"{note}; mean over instances{extra}"))
    f_b2, o_b2 = prof.values("fcfs", "below_2"), prof.values("ostrich", "below_2")
    ratio = float(o_b2.sum() / f_b2.sum()) if f_b2.sum() else math.nan
    se = paired_se(o_b2.tolist(), (ratio * f_b2).tolist())
    rows.append(compare(BELOW_2, "002 L1411", Bound(">", 2.0), ratio,
                        noise=None if se is None else se / float(f_b2.mean()), size=size,
                        gap=GAP_PROFILES, ref="002-L1411-below2", role=cal,
                        note=f"{note}; noise: the paired ratio's delta method"))
    return rows


def _b28_rows(prof: ProfilesRun) -> list[FidelityRow]:
    """B28 [002 L1419]: per-profile mean of the users' max stretch; the user count was
    chosen on these four numbers: calibration (decisions 302, 572)."""
    specs: tuple[tuple[str, str, str, float | Bound, str], ...] = (
        (
            "short-job users, FCFS: mean max stretch",
            "fcfs",
            "short",
            Bound(">", 50.0),
            "002-L1419-short",
        ),
        ("short-job users, OStrich: mean max stretch", "ostrich", "short", 12.8, "002-L1419-short"),
        ("long-job users, FCFS: mean max stretch", "fcfs", "long", 6.3, "002-L1419-long"),
        ("long-job users, OStrich: mean max stretch", "ostrich", "long", 6.8, "002-L1419-long"),
    )
    fair = "FCFS's short/long ratio minus OStrich's"
    if prof.users is None:
        why = "no two-profile rows in the store"
        return [
            not_measured(
                f,
                "002 L1419",
                s,
                why,
                ref=ref,
                role="calibration",
                tolerance=None if isinstance(s, Bound) else printed_tolerance(s, 1),
            )
            for f, _, _, s, ref in specs
        ] + [
            not_measured(
                fair, "002 L1419", Bound(">", 0.0), why, ref="002-L1419-fair", role="calibration"
            )
        ]
    rows = []
    note = f"{prof.users} users, the count these rows chose (decision 302)"
    for fig, pol, profile, seed, ref in specs:
        mean, se = mean_and_se(prof.values(pol, f"{profile}_max_stretch").tolist())
        tol = 0.0 if isinstance(seed, Bound) else printed_tolerance(seed, 1)
        rows.append(
            compare(
                fig,
                "002 L1419",
                seed,
                mean,
                noise=se,
                size=prof.size,
                role="calibration",
                gap=GAP_PROFILES,
                ref=ref,
                note=note,
                tolerance=tol,
            )
        )
    ratio = {
        p: prof.values(p, "short_max_stretch") / prof.values(p, "long_max_stretch")
        for p in ("fcfs", "ostrich")
    }
    diff = ratio["fcfs"] - ratio["ostrich"]
    mean, se = mean_and_se(diff.tolist())
    rows.append(
        compare(
            fair,
            "002 L1419",
            Bound(">", 0.0),
            mean,
            noise=se,
            size=prof.size,
            role="calibration",
            ref="002-L1419-fair",
            gap=GAP_PROFILES,
            note=f"{note}; paired by instance",
        )
    )
    return rows


def _profiles_direction_rows(prof: ProfilesRun) -> list[FidelityRow]:
    """[002 L1411]: OStrich's max stretches significantly lower (the mean of B28's four
    numbers, which chose the user count: calibration); [002 L1411] the decay of Fig. 5.12's
    intervals (not in the rows)."""
    fig = "FCFS minus OStrich: mean of the two profiles' mean max stretch"
    decay = not_measured(
        "OStrich: campaigns per stretch interval fall fast towards 0",
        "002 L1411",
        Bound(">", 0.0),
        "the rows hold the counts below 2 and "
        "above 20 only (field needed: the campaigns per interval of Fig. "
        "5.12)",
        ref="002-L1411-decay",
        role="calibration",
    )
    if prof.users is None:
        return [
            not_measured(
                fig,
                "002 L1411",
                Bound(">", 0.0),
                "no two-profile rows in the store",
                ref="002-L1411",
                role="calibration",
            ),
            decay,
        ]
    both = {
        p: (prof.values(p, "short_max_stretch") + prof.values(p, "long_max_stretch")) / 2
        for p in ("fcfs", "ostrich")
    }
    mean = float(np.mean(both["fcfs"] - both["ostrich"]))
    return [
        compare(
            fig,
            "002 L1411",
            Bound(">", 0.0),
            mean,
            noise=paired_se(both["fcfs"].tolist(), both["ostrich"].tolist()),
            size=prof.size,
            ref="002-L1411",
            role="calibration",
            gap=GAP_PROFILES,
            note=PROFILES_NOTE.format(prof.users) + "; half short-job: the two profile means "
            "weigh alike; paired by instance",
        ),
        decay,
    ]


# -- the figures and the table -----------------------------------------------------------


#: Figs. 5.5-5.13: (entry, source, line, what, where its printed values are judged, the
#: data it needs: "egee", "series", "whole" or "profiles")
FIGURE_SPECS = (
    ("002-F5.5", "Figure 5.5", "002 L1362", "campaign stretch histogram, original log",
     "its printed values are judged in rows 002-L1358-orig-*", "egee"),
    ("002-F5.6", "Figure 5.6", "002 L1374", "campaign stretch histogram, OStrich",
     "its printed values are judged in rows 002-L1358-ostrich-*", "egee"),
    ("002-F5.7", "Figure 5.7", "002 L1378", "utilisation over the whole trace, log",
     "row 002-L1364", "whole"),
    ("002-F5.8", "Figure 5.8", "002 L1385", "utilisation over the whole trace, OStrich",
     "row 002-L1364", "whole"),
    ("002-F5.9", "Figure 5.9", "002 L1388", "utilisation Dec-Jan, log",
     "rows 002-L1366, 002-L1382", "series"),
    ("002-F5.10", "Figure 5.10", "002 L1394", "utilisation Dec-Jan, OStrich with deps",
     "rows 002-L1366, 002-L1382", "series"),
    ("002-F5.11", "Figure 5.11", "002 L1398", "utilisation Dec-Jan, OStrich no deps",
     "rows 002-L1368-*, 002-L1380", "series"),
    ("002-F5.12", "Figure 5.12", "002 L1405", "campaigns per stretch interval, OStrich vs "
     "FCFS", "rows 002-L1411-*, 002-L1417", "profiles"),
    ("002-F5.13", "Figure 5.13", "002 L1415", "mean max stretch by profile",
     "rows 002-L1419-* (calibration)", "profiles"))


def _figure_rows(egee: EgeeRun, prof: ProfilesRun) -> list[FidelityRow]:
    """Figs. 5.5-5.13: redrawn by the report hook where the rows allow (decision 576); Fig.
    5.13 shows B28, the user count's calibration."""
    drawn = "redrawn from the store"
    ours = {"egee": drawn if egee.rows else "no LPC-EGEE rows",
            "series": drawn if egee.series("ostrich") is not None else "no Dec-Jan series",
            "whole": "not drawn: the rows hold the Dec-Jan series only",
            "profiles": drawn if prof.users is not None else "no two-profile rows"}
    rows = [figure_row(ref, src, line, what, judged, ours[need])
            for ref, src, line, what, judged, need in FIGURE_SPECS]
    return [replace(r, role="calibration") if r.ref == "002-F5.13" else r for r in rows]


def _proof_figure_row() -> FidelityRow:
    """Fig. 5.2 illustrates the notation of Lemma 5.2's proof: no result to measure."""
    return not_measured(
        "Fig. 5.2 the notation of Lemma 5.2's proof",
        "002 L1236",
        "image only",
        "a proof figure (the area executed after s~_i^u), no measured result",
        ref="002-F5.2",
        source="Figure 5.2",
    )


def _conclusion_row() -> FidelityRow:
    return not_measured(
        "fair scheduling needed, more so under heavy load",
        "002 L1637",
        Bound(">", 0.0),
        "no run varies the load (one load per simulation)",
        ref="002-L1637",
    )


def ostrich_table(
    rows: Sequence[dict[str, Any]], cells: Sequence[dict[str, Any]] = ()
) -> FidelityTable:
    """The table of ``reproduce ostrich`` (seed 002 §5.2-§5.5, Figs. 5.1-5.13): every
    manifest entry of the experiment a row.

    Parameters
    ----------
    rows : sequence of dict
        The rows of :func:`lpsched.campaigns.reproduce.ostrich_cell` of one run.
    cells : sequence of dict
        The run's cells (the trace part and the jobs per instance are in their keys).

    Returns
    -------
    FidelityTable
        Experiment ``"ostrich"``, sized by the LPC-EGEE part replayed (the two-profile rows
        carry their own size).
    """
    egee, prof = egee_run(rows, cells), profiles_run(rows, cells)
    measured = (
        _egee_stretch_rows(egee)
        + _b26_rows(egee)
        + _utilisation_rows(egee)
        + [_nodeps_stretch_row(egee)]
    )
    name = _trace_name(egee.trace)
    if egee.rows and name != EGEE_NAME:
        measured = stamp(measured, f"trace {name} is not the seed's {EGEE_NAME}")
    elif egee.rows and egee.size.reduced:
        measured = stamp(
            measured,
            f"reduced run ({egee.size.label()}): a part of the trace is not a sample of it",
        )
    pmeasured = _share_rows(prof) + _b28_rows(prof) + _profiles_direction_rows(prof)
    if prof.users is not None and prof.jobs != PROFILE_JOBS:
        pmeasured = stamp(
            pmeasured,
            f"instances of {prof.jobs:,} jobs, not the seed's "
            f"{PROFILE_JOBS:,} (not a sample of its instances)",
        )
    out = (
        _egee_setup(egee)
        + _profiles_setup(prof)
        + _example_rows()
        + _figure_rows(egee, prof)
        + measured
        + pmeasured
        + [_proof_figure_row(), _conclusion_row()]
    )
    return FidelityTable("ostrich", in_manifest_order(out), _table_size(egee, prof))


def _table_size(egee: EgeeRun, prof: ProfilesRun) -> Size | None:
    """The table's size: the LPC-EGEE part replayed, its unit naming the two-profile
    instances too (each part's rows carry their own size)."""
    profiles = (f"two-profile simulation: {prof.size.label()}" if prof.users is not None
                else "")
    if not egee.rows:
        return prof.size if prof.users is not None else None
    unit = egee.size.unit + (f"; {profiles}" if profiles else "")
    return replace(egee.size, unit=unit)
