"""Seed 001's seed-vs-ours table (``reproduce topology-aware``): every published result of
§§3–7 (``lpsched/report/manifests/seed001.csv``), one row or more per entry.

Each trace is replayed whole (or its first ``--limit`` jobs) once per scheduler,
allocation line and speed-up: a deterministic measurement, so every direction has a noise
of 0 (:mod:`lpsched.core.fidelity`) and is judged on its sign; a ``--limit`` run is a
reduced run (``Size`` in jobs), where a maximum is never judged. The break-even speed-up
of a line is the smallest speed-up of the grid whose mean total time is at most
non-contiguous's (``inf``: none in the grid); a range the seed states for several lines
together is one row through :func:`~lpsched.core.fidelity.compare_all` with the grid
(decision 530). Fig. 2 and its sentences need the INSEE network simulator and the NAS
traces: not measured.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from lpsched.batch.fidelity_rows import (
    Line,
    carry_restated,
    joint,
    num,
    restates,
    setup,
    unexplained,
)
from lpsched.core.fidelity import (
    Bound,
    FidelityRow,
    FidelityTable,
    Gap,
    Range,
    Size,
    compare,
    compare_all,
    not_measured,
)

__all__ = ["LINES", "SEED_JOBS", "TRACES", "topology_data", "topology_rows"]

#: the seed's three workloads [001 L103–L105], in its order of discussion (Figs. 4–7)
TRACES = ("llnl_thunder", "sdsc_blue", "hpc2n")
NAMES = {"llnl_thunder": "LLNL", "sdsc_blue": "SDSC", "hpc2n": "HPC2N"}
#: the job counts the seed quotes [001 L103–L105]
SEED_JOBS = {"hpc2n": 527_371, "llnl_thunder": 128_662, "sdsc_blue": 243_314}
#: the machines the seed quotes [001 L103–L105]
SEED_MACHINES = {"hpc2n": 240, "llnl_thunder": 4008, "sdsc_blue": 1152}
#: the contiguity lines of Figs. 3–7 (non-contiguous is the reference)
LINES = ("contiguous", "quasi(10)", "quasi(20)", "quasi(30)", "quasi(40)")
QUASI = LINES[1:]
POLICIES = ("fcfs", "easy")
INSEE = ("needs the INSEE network simulator and the NAS Parallel Benchmark traces "
         "[001 L119–L127]: lpsched simulates scheduling, not messages")
HPC2N_LOG = ("the data folder's HPC2N log is the cleaned one (HPC2N-2002-2.1-cln, 202,876 "
             "jobs) where the seed quotes the raw log's 527,371 [001 L103]: the cleaned "
             "log drops flurries and erroneous records, so HPC2N's queue is lighter and "
             "its break-even speed-ups may be lower than the seed's")

Data = dict[str, dict[tuple[str, str], dict[float, Mapping[str, Any]]]]


def _line(row: Mapping[str, Any]) -> str:
    alloc = str(row["alloc"])
    if alloc == "basic":
        return "non-contiguous"
    return alloc if alloc == "contiguous" else f"quasi({int(row['qct'])})"


def topology_data(rows: Sequence[Mapping[str, Any]]) -> Data:
    """The stored rows by trace, (scheduler, line) and speed-up.

    Parameters
    ----------
    rows : sequence of dict
        The rows of :func:`lpsched.batch.reproduce.topology_cell`.

    Returns
    -------
    dict
        ``{trace: {(policy, line): {speedup: row}}}``, ``line`` one of ``non-contiguous``
        and :data:`LINES`.
    """
    out: Data = {}
    for r in rows:
        key = (str(r["policy"]), _line(r))
        out.setdefault(str(r["trace"]), {}).setdefault(key, {})[float(r["speedup"])] = r
    return out


class _Run:
    """One run's rows: per trace its lines, grid, break-evens and size."""

    def __init__(self, rows: Sequence[Mapping[str, Any]], cells: Sequence[Sequence[Any]],
                 missing: Mapping[str, str]):
        self.data = topology_data(rows)
        self.missing = missing
        self.empty = not rows
        self.limits = {}
        for c in cells:
            label = _trace_label(str(c[0]))
            self.limits[label] = int(c[1])
        self.waits = any(c[3] == "easy" and (len(c) < 9 or c[8] == "wait") for c in cells)
        self.grid = sorted({float(r["speedup"]) for r in rows if r["alloc"] != "basic"})
        self.step = min((b - a for a, b in zip(self.grid, self.grid[1:], strict=False)),
                        default=5.0)
        jobs = {t: int(next(iter(v.values()))[0.0]["jobs"]) for t, v in self.data.items()
                if next(iter(v.values()), {}).get(0.0)}
        cut = {t: n for t, n in jobs.items() if self.limits.get(t)}
        self.size = (Size(sum(cut.values()), sum(SEED_JOBS.get(t, n) for t, n in cut.items()),
                          "jobs") if cut else None)
        self.psize = {t: Size(n, SEED_JOBS.get(t, n), f"jobs of {NAMES.get(t, t)}")
                      for t, n in cut.items()}

    def why(self, trace: str) -> str:
        if self.empty:
            return "no rows of this experiment in the store"
        return self.missing.get(trace, f"{trace} not in this run")

    def idle(self, trace: str) -> str:
        """Why a ratio to non-contiguous's wait is undefined on ``trace`` (its mean wait
        is 0 under a scheduler), else empty."""
        zero = [p.upper() for p in POLICIES if self.base(trace, p, "mean_wait_min") == 0]
        return (f"non-contiguous never waits on {NAMES.get(trace, trace)} under "
                f"{' and '.join(zero)} in this run (mean wait 0): a ratio to its wait is "
                "undefined") if zero else ""

    def waited(self, traces: Sequence[str] = TRACES) -> list[str]:
        """The traces whose non-contiguous wait is positive (a wait ratio is defined)."""
        return [t for t in traces if not self.idle(t)]

    def idle_note(self, traces: Sequence[str] = TRACES) -> str:
        return "; ".join(x for t in traces if (x := self.idle(t)))

    def point(self, trace: str, policy: str, line: str, s: float, field: str
              ) -> float | None:
        row = self.data.get(trace, {}).get((policy, line), {}).get(s)
        return None if row is None else float(row[field])

    def base(self, trace: str, policy: str, field: str) -> float | None:
        return self.point(trace, policy, "non-contiguous", 0.0, field)

    def ratio(self, trace: str, policy: str, line: str, s: float, field: str
              ) -> float | None:
        """A line's mean over non-contiguous's (same scheduler), at speed-up ``s``."""
        v, b = self.point(trace, policy, line, s, field), self.base(trace, policy, field)
        return None if v is None or not b else v / b

    def even(self, trace: str, policy: str, line: str) -> float | None:
        """The break-even speed-up (``inf`` beyond the grid; ``None``: not run)."""
        pts = self.data.get(trace, {}).get((policy, line))
        b = self.base(trace, policy, "mean_total_min")
        if not pts or b is None:
            return None
        return next((s for s in sorted(pts) if float(pts[s]["mean_total_min"]) <= b),
                    math.inf)

    def even_finite(self, trace: str, policy: str, line: str) -> float | None:
        """:meth:`even` with "beyond the grid" read as one step past its end (for
        comparing two break-evens)."""
        e = self.even(trace, policy, line)
        if e is None or math.isfinite(e):
            return e
        return (self.grid[-1] if self.grid else 50.0) + self.step

    def opts(self, ref: str, source: str = "text", trace: str | None = None,
             **extra: Any) -> dict[str, Any]:
        size = self.psize.get(trace) if trace else self.size
        if self.waits:  # EASY under --blocked-head wait: not the seed's rule
            extra["note"] = "; ".join(filter(None, [extra.get("note", ""), (
                "EASY's head waits for the next end (--blocked-head wait, decision 265), "
                "not the seed's kill of advanced jobs [001 L51–L53]")]))
        return {"ref": ref, "source": source, "size": size, **extra}


def _trace_label(path: str) -> str:
    from lpsched.batch.reproduce import trace_label

    return trace_label(path)


def _diff(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def topology_rows(rows: Sequence[Mapping[str, Any]], cells: Sequence[Sequence[Any]],
                  missing: Mapping[str, str] | None = None) -> FidelityTable:
    """Seed 001's table from the stored rows of one run.

    Parameters
    ----------
    rows : sequence of dict
        The rows of :func:`lpsched.batch.reproduce.topology_cell` (empty: every row not
        measured).
    cells : sequence of list
        The run's cells (their keys give ``--limit`` and the settings).
    missing : mapping, optional
        Trace -> why it was not run (its file absent).

    Returns
    -------
    FidelityTable
        ``topology-aware``, every manifest entry of seed 001 a row (Fig. 2's, not measured).
    """
    r = _Run(rows, cells, missing or {})
    out = unexplained([*_setup_rows(r, cells), *_insee_rows(), *_fig3_rows(r),
                          *_llnl_rows(r), *_break_even_rows(r), *_other_rows(r),
                          *_restated()])
    out = carry_restated(out)
    return FidelityTable("topology-aware", out, r.size)


def _setup_rows(r: _Run, cells: Sequence[Sequence[Any]]) -> list[FidelityRow]:
    """The set-up facts of §§1–6 beside the run's."""
    why = "no cells of this experiment in the store"
    ran = bool(cells)
    kills = {c[8] for c in cells if len(c) > 8 and c[3] == "easy"} or (
        {"wait"} if any(c[3] == "easy" for c in cells) else set())
    qcts = sorted({int(c[5]) for c in cells if c[4] == "quasi-contiguous"})
    grid = f"{num(min(r.grid))}–{num(max(r.grid))} %" if r.grid else None
    statuses = {c[7] for c in cells if len(c) > 7 and c[7]}
    rows = [
        setup("schedulers: FCFS and EASY (one reservation, user estimates)", "001 L50–L55",
              "FCFS, EASY", None if not ran else ", ".join(
                  p.upper() for p in POLICIES if any(c[3] == p for c in cells)),
              ref="001-S-schedulers", why=why,
              construction="reproduce topology-aware runs FCFS and EASY"),
        setup("EASY: advanced jobs killed when the head's reservation comes", "001 L51–L53",
              "kill-advanced", None if not kills else ", ".join(sorted(kills)),
              ref="001-S-kill", why=why, construction="the blocked-head rule is the "
              "run's setting (--blocked-head)", gap=Gap(387, measured=True, evidence=(
                  "--blocked-head wait lets the head wait for the next end instead of "
                  "killing the jobs advanced past it (decision 265), which is not the "
                  "seed's rule [001 L51–L53]."))),
        setup("allocators: non-contiguous, contiguous, quasi-contiguous on k-ary n-trees",
              "001 L57–L71", "basic, contiguous, quasi-contiguous", None if not ran else
              ", ".join(sorted({str(c[4]) for c in cells})), ref="001-S-allocators", why=why,
              construction="reproduce topology-aware runs these allocators"),
        setup("quasi-contiguity: at most ceil(qct/100 × size) tasks one level up (Eq. 1)",
              "001 L61–L65", "Eq. (1)", None if not ran else "Eq. (1)",
              ref="001-S-qct-eq", why=why,
              construction="the quasi-contiguous allocator implements Eq. (1)"),
        setup("qct values", "001 L135", "10, 20, 30, 40", None if not ran else
              ", ".join(str(q) for q in qcts), ref="001-S-qct-grid", why=why,
              construction="the qct values are the run's setting"),
        setup("each job gets exactly its requested nodes", "001 L22", "requested size",
              None if not ran else "requested size", ref="001-S-exact-size", why=why,
              construction="the simulator gives each job its requested size"),
        setup("SWF fields: arrival, run time (scaled), size, estimate; every job kept",
              "001 L85–L91", "every job", None if not ran else (
                  "every job" if not statuses else "status " + ", ".join(
                      sorted(map(str, statuses)))), ref="001-S-swf-fields", why=why,
              construction="the job selection (--status) is the run's setting"),
        setup("times in minutes", "001 L93", "minutes", None if not ran else "minutes",
              ref="001-S-minutes", why=why, construction="the rows report minutes"),
        not_measured("load by Eq. (2): first 1 % and jobs ending after the last arrival "
                     "removed", "001 L95–L99", "Eq. (2)", "the rows hold no load (a field "
                     "the cells would have to store: Eq. (2)'s load of the replayed trace)",
                     ref="001-S-load-def"),
        *[not_measured(f"{NAMES[t]}: load by Eq. (2)", "001 L103–L105", v, "the rows hold "
                       "no load (a field the cells would have to store)", ref="001-L103",
                       tolerance=0.02)
          for t, v in (("hpc2n", 0.62), ("llnl_thunder", 0.76), ("sdsc_blue", 0.86))],
        *_machine_rows(r),
        setup("k-ary n-trees: 4-ary 4-tree (HPC2N), 4-ary 6-tree (LLNL, SDSC), nodes past "
              "the machine not installed", "001 L107", "4-ary, smallest covering tree",
              None if not ran else ", ".join(sorted({f"{c[2]}-ary, smallest covering tree"
                                                     for c in cells})),
              ref="001-S-trees", why=why,
              construction="the tree shape is the run's setting"),
        setup("speed-ups swept (parallel jobs under (quasi-)contiguous only)",
              "001 L145–L147", "0–50 %", grid, ref="001-S-speedup", why=why,
              construction="the speed-up grid is the run's setting"),
        setup("metrics: mean wait and mean total time over jobs", "001 L149–L152",
              "mean wait, mean total", None if not ran else "mean wait, mean total",
              ref="001-S-metrics", why=why, construction="every cell reports these metrics"),
        setup("Fig. 3: waits over non-contiguous's, same workload and scheduler, no "
              "speed-up", "001 L135", "over non-contiguous at 0 %", None if not ran else
              "over non-contiguous at 0 %", ref="001-S-fig3-norm", why=why,
              construction="the rows normalise by this rule"),
    ]
    return rows


def _machine_rows(r: _Run) -> list[FidelityRow]:
    """Each workload's job count as the seed quotes it beside the run's (001-S-hpc2n,
    -llnl, -sdsc): the HPC2N log departs."""
    out = []
    for t, ref in (("hpc2n", "001-S-hpc2n"), ("llnl_thunder", "001-S-llnl"),
                   ("sdsc_blue", "001-S-sdsc")):
        pts = r.data.get(t, {}).get(("fcfs", "non-contiguous"), {})
        jobs = int(pts[0.0]["jobs"]) if 0.0 in pts else None
        why = r.why(t) if jobs is None else "a --limit run replays part of the log"
        whole = jobs is not None and not r.limits.get(t)
        note = HPC2N_LOG if t == "hpc2n" else (
            "the cleaned log (decision 275)" if t == "llnl_thunder" else "")
        gap = Gap(268, measured=True, evidence=HPC2N_LOG if t == "hpc2n" else (
            "The data folder holds the cleaned logs (-cln): they drop the erroneous "
            "records the seed's counts include (decision 268 counts them)."))
        out.append(setup(f"{NAMES[t]}: jobs of the log", "001 L103–L105", SEED_JOBS[t],
                         jobs if whole else None, ref=ref, why=why, gap=gap, note=note))
        out.append(not_measured(f"{NAMES[t]}: processors", "001 L103–L105", SEED_MACHINES[t],
                                "the rows hold no machine size (a field the cells would "
                                "have to store: the trace header's MaxProcs the tree "
                                "covers)", ref=ref))
    return out


def _insee_rows() -> list[FidelityRow]:
    """Fig. 2 and its sentences: a network simulation lpsched does not have."""
    return [
        not_measured("NPB execution times under contiguous, quasi-contiguous and "
                     "non-contiguous placement (INSEE)", "001 L131", "bar chart", INSEE,
                     ref="001-F2", source="Figure 2"),
        not_measured("non-contiguous NPB runs 2–3 times slower than contiguous",
                     "001 L133", Range(2, 3), INSEE, ref="001-L133a"),
        not_measured("quasi-contiguous NPB runs 30–50 % above contiguous", "001 L133",
                     Range(30, 50), INSEE, ref="001-L133b", unit="%"),
        not_measured("INSEE set-up: 16 jobs of 16 nodes on a 4-ary 4-tree", "001 L119–L125",
                     "16 × 16 on a 4-ary 4-tree", INSEE, ref="001-S-insee"),
    ]


def _fig3_rows(r: _Run) -> list[FidelityRow]:
    """Fig. 3 [001 L135–L141]: waits at no speed-up over non-contiguous's."""
    rel = {(t, p, ln): r.ratio(t, p, ln, 0.0, "mean_wait_min")
           for t in TRACES for p in POLICIES for ln in LINES}
    rows = [joint(f"{NAMES[t]}: every contiguity line waits longer than non-contiguous "
                  "at 0 %", "001 L139", Bound(">", 1.0),
                  [Line(f"{p} {ln}", rel[t, p, ln]) for p in POLICIES for ln in LINES],
                  empty=r.idle(t) or r.why(t),
                  **r.opts("001-F3", "Figure 3", t, note=_waits(rel, t)))
            for t in TRACES]
    ok = r.waited()
    idle = r.idle_note()
    worst = [v for v in rel.values() if v is not None]
    fig, line = "largest wait over non-contiguous's at 0 % (\"up to 100 times\")", "001 L135"
    rows.append(compare(fig, line, 100.0, max(worst), tolerance=0.5, relative=True,
                        statistic="max", **r.opts("001-L135a", note=(
                            "decision 530: 'up to 100' read as a largest ratio of 50–150")))
                if worst else not_measured(fig, line, 100.0, r.why("llnl_thunder"),
                                           ref="001-L135a", tolerance=0.5, relative=True))
    rows.append(joint("quasi-contiguous waits still above non-contiguous's at 0 %",
                      "001 L135", Bound(">", 1.0),
                      [Line(f"{NAMES[t]} {p} {q}", rel[t, p, q]) for t in ok
                       for p in POLICIES for q in QUASI], empty=idle or "no trace run",
                      **r.opts("001-L135b", note=idle)))
    rows.append(joint("quasi-contiguous waits below contiguous's at 0 %", "001 L135",
                      Bound("<", 0.0),
                      [Line(f"{NAMES[t]} {p} {q} − contiguous", _diff(
                          rel[t, p, q], rel[t, p, "contiguous"])) for t in ok
                       for p in POLICIES for q in QUASI], empty=idle or "no trace run",
                      **r.opts("001-L135b", note=idle)))
    rows.append(joint("LLNL's relative waits above SDSC's and HPC2N's", "001 L135–L141",
                      Bound(">", 0.0),
                      [Line(f"{p} {ln} LLNL − {NAMES[o]}", _diff(
                          rel["llnl_thunder", p, ln], rel[o, p, ln])) for o in TRACES[1:]
                       for p in POLICIES for ln in LINES if o in ok and "llnl_thunder" in ok],
                      empty=idle or "no trace run", **r.opts(
                          "001-L135c", note="; ".join(filter(None, [
                              "per scheduler and line, LLNL's ratio against each other "
                              "workload's", idle])))))
    return rows


def _waits(rel: Mapping[tuple[str, str, str], float | None], trace: str) -> str:
    shown = [f"{p} {ln} {num(v)}" for (t, p, ln), v in rel.items() if t == trace
             and v is not None and ln in ("contiguous", "quasi(40)")]
    return "waits over non-contiguous's: " + ", ".join(shown) if shown else ""


def _llnl_rows(r: _Run) -> list[FidelityRow]:
    """§6 on LLNL, Figs. 4–5 [001 L158–L160]."""
    t = "llnl_thunder"
    top = r.grid[-1] if r.grid else None
    tot0 = {(p, ln): r.ratio(t, p, ln, 0.0, "mean_total_min") for p in POLICIES
            for ln in LINES}
    small = [s for s in r.grid if s <= 10.0]
    rows = [
        joint("LLNL at 0 %: every contiguity combination's total time above "
              "non-contiguous's", "001 L158", Bound(">", 1.0),
              [Line(f"{p} {ln}", v) for (p, ln), v in tot0.items()], empty=r.why(t),
              **r.opts("001-L158a", trace=t)),
        joint("LLNL: every contiguity line's total time below non-contiguous's at the "
              "grid's largest speed-up", "001 L166", Bound("<", 1.0),
              [Line(f"{p} {ln}", None if top is None else r.ratio(
                  t, p, ln, top, "mean_total_min")) for p in POLICIES for ln in LINES],
              empty=r.why(t), **r.opts("001-F4", "Figure 4", t, note=(
                  "Fig. 4's lines cross below the flat non-contiguous line within the "
                  "grid; the break-evens are row 001-L158b"))),
        joint("LLNL: quasi-contiguous breaks even before contiguous", "001 L158",
              Bound("<", 0.0), [Line(f"{p} {q} − contiguous", _diff(
                  r.even_finite(t, p, q), r.even_finite(t, p, "contiguous")))
                  for p in POLICIES for q in QUASI], empty=r.why(t),
              **r.opts("001-L158c", trace=t, note=_beyond(r))),
        joint("LLNL: EASY's total time below FCFS's, every line and speed-up", "001 L158",
              Bound("<", 0.0), [Line(f"{ln} at {num(s)} %", _rel_diff(
                  r.point(t, "easy", ln, s, "mean_total_min"),
                  r.point(t, "fcfs", ln, s, "mean_total_min"))) for ln in
                  ("non-contiguous", *LINES) for s in ([0.0] if ln == "non-contiguous"
                                                       else r.grid)] or [Line("none", None)],
              empty=r.why(t), **r.opts("001-L158d", trace=t, note=(
                  "relative difference (EASY − FCFS) / FCFS of the mean total time"))),
        joint("LLNL: EASY breaks even at lower speed-ups than FCFS", "001 L158",
              Bound("<", 0.0), [Line(f"{ln} EASY − FCFS", _diff(
                  r.even_finite(t, "easy", ln), r.even_finite(t, "fcfs", ln)))
                  for ln in LINES], empty=r.why(t),
              **r.opts("001-L158e", trace=t, note=_beyond(r))),
        joint("LLNL at small speed-ups (≤ 10 %): waiting is most of the total time",
              "001 L160", Bound(">", 0.5), [Line(f"{p} {ln} at {num(s)} %", _share(
                  r.point(t, p, ln, s, "mean_wait_min"),
                  r.point(t, p, ln, s, "mean_total_min"))) for p in POLICIES for ln in LINES
                  for s in small] or [Line("none", None)], empty=r.why(t),
              **r.opts("001-L160a", trace=t)),
        joint("LLNL: every contiguity line's wait falls from 0 % to the grid's largest "
              "speed-up", "001 L160", Bound("<", 0.0), [Line(f"{p} {ln}", None if top is None
                                                             else _rel_diff(
                  r.point(t, p, ln, top, "mean_wait_min"),
                  r.point(t, p, ln, 0.0, "mean_wait_min"))) for p in POLICIES
                  for ln in LINES], empty=r.why(t), **r.opts("001-L160b", trace=t)),
        joint("LLNL at 0 %: every contiguity line's wait above non-contiguous's (Fig. 5's "
              "log scale)", "001 L170", Bound(">", 1.0),
              [Line(f"{p} {ln}", r.ratio(t, p, ln, 0.0, "mean_wait_min"))
               for p in POLICIES for ln in LINES], empty=r.idle(t) or r.why(t),
              **r.opts("001-F5", "Figure 5", t)),
    ]
    return rows


def _beyond(r: _Run) -> str:
    end = (r.grid[-1] if r.grid else 50.0) + r.step
    return f"a break-even beyond the grid counts as {num(end)} % (one step past its end)"


def _rel_diff(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or not b else (a - b) / b


def _share(part: float | None, whole: float | None) -> float | None:
    return None if part is None or not whole else part / whole


def _evens(r: _Run, traces: Sequence[str], lines: Sequence[str]
           ) -> dict[str, float | None]:
    return {f"{NAMES[t]} {p} {ln}": r.even(t, p, ln) for t in traces for p in POLICIES
            for ln in lines}


def _break_even_rows(r: _Run) -> list[FidelityRow]:
    """The break-even ranges, each one row over the lines the seed states it for
    (decision 530), and Figs. 6–7."""
    grid = r.grid or None
    rows = []
    for t, ref, line, rng, source in (
            ("llnl_thunder", "001-L158b", "001 L158", Range(5, 30), "text"),
            ("sdsc_blue", "001-L172a", "001 L172", Range(15, 25), "text"),
            ("hpc2n", "001-L172b", "001 L172", Range(10, 25), "text")):
        fig = f"{NAMES[t]}: break-even speed-up of every contiguity line, both schedulers"
        if t != "llnl_thunder" and (cut := _cut(r, [t])):
            rows.append(not_measured(fig, line, rng, cut, ref=ref, source=source, unit="%"))
            continue
        rows.append(compare_all(
            fig, line, rng, _evens(r, [t], LINES), unit="%", grid=grid,
                                gap=Gap(275, measured=True, evidence=(
                                    "On LLNL's first jobs FCFS contiguous breaks even at 45 "
                                    "%: the early queue of a cut log carries 258 cancelled "
                                    "records with 56 % of its work.")) if t == "llnl_thunder"
                                and r.limits.get(t) else None,
                                **r.opts(ref, source, t, note=(HPC2N_LOG if t == "hpc2n"
                                                               else ""))))
    for t, ref, line, source in (("sdsc_blue", "001-F6", "001 L190", "Figure 6"),
                                 ("hpc2n", "001-F7", "001 L194", "Figure 7")):
        top = r.grid[-1] if r.grid else None
        rows.append(joint(f"{NAMES[t]}: every contiguity line's total time below "
                          "non-contiguous's at the grid's largest speed-up", line,
                          Bound("<", 1.0), [Line(f"{p} {ln}", None if top is None else
                                                 r.ratio(t, p, ln, top, "mean_total_min"))
                                            for p in POLICIES for ln in LINES],
                          empty=r.why(t), **r.opts(ref, source, t, note=(
                              "the break-evens are rows 001-L172a and 001-L172b"))))
    first = {t: {p: min((e for ln in LINES if (e := r.even_finite(t, p, ln)) is not None),
                        default=None) for p in POLICIES} for t in TRACES}
    rows.append(joint("earliest break-even: SDSC's above LLNL's and HPC2N's", "001 L172",
                      Bound(">", 0.0), [Line(f"{p} SDSC − {NAMES[o]}", _diff(
                          first["sdsc_blue"][p], first[o][p])) for o in ("llnl_thunder",
                                                                         "hpc2n")
                          for p in POLICIES], empty="no trace run",
                      **r.opts("001-L172c", note="per scheduler, the smallest break-even "
                               "over the five contiguity lines; " + _beyond(r))))
    fig = "contiguous: break-even around 20–30 % (every workload, both schedulers)"
    cut = _cut(r, TRACES)
    rows.append(not_measured(fig, "001 L186", Range(20, 30), cut, ref="001-L186a", unit="%")
                if cut else (compare_all(
                    fig, "001 L186", Range(20, 30), _evens(r, TRACES, ["contiguous"]),
                    unit="%", grid=grid, **r.opts("001-L186a"))))
    quasi = [e for e in _evens(r, TRACES, QUASI).values() if e is not None]
    fig = "quasi-contiguous: smallest break-even (\"around 10 %\" in some cases)"
    rows.append(compare(fig, "001 L186", 10.0, min(quasi), tolerance=2.5, unit="%",
                        statistic="min", **r.opts("001-L186b", note=(
                            "decision 530: 'around 10 %' read as the grid's 10 %; a "
                            "minimum over the lines, never judged on a --limit run")))
                if quasi else not_measured(fig, "001 L186", 10.0, "no trace run",
                                           ref="001-L186b", unit="%", tolerance=2.5))
    return rows


def _cut(r: _Run, traces: Sequence[str]) -> str:
    """Why a break-even range is not judged on a ``--limit`` run of ``traces`` (empty when
    every one of them that ran is whole): the break-even of a log's first jobs is not the
    whole log's (decision 275 measured LLNL's moving from 35 % to 45 %), and a cut run has
    no noise estimate to say by how much."""
    if not all(t in r.data for t in traces):  # a line not run: compare_all says which
        return ""
    cut = [r.psize[t].label() for t in traces if t in r.psize]
    return f"reduced run ({'; '.join(cut)}), no noise estimate" if cut else ""


def _other_rows(r: _Run) -> list[FidelityRow]:
    """001-L10, -L162, -L174, -L176: the statements over every workload."""
    tot0 = [Line(f"{NAMES[t]} {p} {ln}", r.ratio(t, p, ln, 0.0, "mean_total_min"))
            for t in TRACES for p in POLICIES for ln in LINES]
    rows = [
        joint("at 0 %: contiguity's total time above non-contiguous's (every workload)",
              "001 L10", Bound(">", 1.0), tot0, empty="no trace run", **r.opts("001-L10a")),
        joint("at 0 %: quasi-contiguous's wait below contiguous's (every workload)",
              "001 L10", Bound("<", 0.0), [Line(f"{NAMES[t]} {p} {q} − contiguous", _diff(
                  r.ratio(t, p, q, 0.0, "mean_wait_min"),
                  r.ratio(t, p, "contiguous", 0.0, "mean_wait_min")))
                  for t in r.waited() for p in POLICIES for q in QUASI],
              empty=r.idle_note() or "no trace run", **r.opts("001-L10b",
                                                              note=r.idle_note())),
        joint("contiguity breaks even within the grid (every workload, scheduler, line)",
              "001 L10", Bound("<", 0.0), [Line(k, None if e is None else e - (
                  (r.grid[-1] if r.grid else 50.0) + r.step)) for k, e in _fin(r).items()],
              empty="no trace run", **r.opts("001-L10c", note=(
                  "break-even minus one step past the grid's end: below 0 when the line "
                  "crosses within the grid"))),
        joint("SDSC and HPC2N: LLNL's findings hold (total above at 0 %, quasi before "
              "contiguous, EASY before FCFS)", "001 L162", Bound(">", 0.0),
              [*[Line(f"{NAMES[t]} {p} {ln} total − 1", _diff(
                  r.ratio(t, p, ln, 0.0, "mean_total_min"), 1.0)) for t in TRACES[1:]
                 for p in POLICIES for ln in LINES],
               *[Line(f"{NAMES[t]} {p} contiguous − {q} break-even", _diff(
                   r.even_finite(t, p, "contiguous"), r.even_finite(t, p, q)))
                 for t in TRACES[1:] for p in POLICIES for q in QUASI],
               *[Line(f"{NAMES[t]} {ln} FCFS − EASY break-even", _diff(
                   r.even_finite(t, "fcfs", ln), r.even_finite(t, "easy", ln)))
                 for t in TRACES[1:] for ln in LINES]], empty="no trace run",
              **r.opts("001-L162", note=_beyond(r))),
        joint("quasi-contiguous's total time below contiguous's (mean over the grid)",
              "001 L174", Bound("<", 0.0), [Line(f"{NAMES[t]} {p} {q}", _grid_gap(
                  r, t, p, q)) for t in TRACES for p in POLICIES for q in QUASI],
              empty="no trace run", **r.opts("001-L174", note=(
                  "relative difference (quasi − contiguous) / contiguous of the mean total "
                  "time, averaged over the grid"))),
        joint("qct 40 narrows the FCFS–EASY gap of contiguous (at 0 %)", "001 L176",
              Bound("<", 0.0), [Line(NAMES[t], _diff(_gap(r, t, "quasi(40)"),
                                                     _gap(r, t, "contiguous")))
                                for t in TRACES], empty="no trace run",
              **r.opts("001-L176", note="|FCFS − EASY| / FCFS of the mean total time at "
                       "0 %, qct 40 minus contiguous")),
    ]
    return rows


def _fin(r: _Run) -> dict[str, float | None]:
    return {f"{NAMES[t]} {p} {ln}": r.even_finite(t, p, ln) for t in TRACES
            for p in POLICIES for ln in LINES}


def _grid_gap(r: _Run, t: str, p: str, q: str) -> float | None:
    gaps = [_rel_diff(r.point(t, p, q, s, "mean_total_min"),
                      r.point(t, p, "contiguous", s, "mean_total_min")) for s in r.grid]
    vals = [g for g in gaps if g is not None]
    return sum(vals) / len(vals) if vals else None


def _gap(r: _Run, t: str, ln: str) -> float | None:
    d = _rel_diff(r.point(t, "easy", ln, 0.0, "mean_total_min"),
                  r.point(t, "fcfs", ln, 0.0, "mean_total_min"))
    return None if d is None else abs(d)


def _restated() -> list[FidelityRow]:
    """The conclusion's sentences repeating §§5–6."""
    return [
        restates("contiguity costs fragmentation but can accelerate applications",
                 "001 L184", ref="001-L184a", of="001-L10a", what="elevated cost"),
        restates("quasi-contiguity: slightly less acceleration, much better scheduling",
                 "001 L184", ref="001-L184b", of="001-L10b and 001-L174",
                 what="scheduling improved"),
    ]
