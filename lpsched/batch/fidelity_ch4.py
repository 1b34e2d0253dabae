"""Seed 000 ch. 4's seed-vs-ours table (``reproduce contiguity``): every published result
of §4.6 and of the abstract, introduction and conclusions that restate it, one row or more
per entry of the manifest (``lpsched/report/manifests/seed000_ch45.csv``).

Measured per instance from the stored rows (decision 520): the makespan deviation of each
allocation from basic's, ``d = 100 (M_a / M_basic − 1)`` %, its mean with the standard
error over the instances, the share of instances on ``y = x`` and within 2 %; the shares
of contiguous and local jobs and the locality ratio (Figs. 4.10–4.12), compared between
allocations on the same instances (paired). Roles: the two makespan means that may choose
a reading of the chapter (best-effort contiguous ``< 0.1 %``, forced contiguous ``< 2 %``,
decisions 272, 274, 378) are ``calibration``. Under the count-profile planner a
best-effort rule never moves a start time, so its makespan rows cannot fail: they read
``holds by construction`` (decision 522).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from lpsched.batch.fidelity_rows import (
    ONLINE,
    Line,
    carry_restated,
    joint,
    known_noise,
    num,
    paired,
    restates,
    setup,
    share,
    similar,
    unexplained,
)
from lpsched.core.fidelity import (
    Bound,
    FidelityRow,
    FidelityTable,
    Gap,
    Size,
    compare,
    mean_and_se,
    not_measured,
)

__all__ = ["CH4_INSTANCES", "NAMES", "contiguity_rows", "contiguity_settings",
           "per_instance"]

#: seed 000 [L2908]: 512 instances of 300 Curie jobs on 512 processors in clusters of 16
CH4_INSTANCES = 512
CH4_TRACE = "CEA-Curie-2011-2.1-cln.swf.gz"
#: the allocations' names in the seed's words, in §4.6's order [L2911–L2912]
NAMES = {"basic": "basic", "becont-ff": "best-effort contiguous",
         "beloc": "best-effort local", "cont-ff": "forced contiguous",
         "loc": "forced local"}

PROFILE = ("the count-profile planner (decision 54) never moves a best-effort job's start: "
           "a best-effort rule takes whatever processors basic counted")
NOT_ALL = ("the seed's own Fig. 4.7 shows most points on y = x, not all: its planner moved "
           "some best-effort starts, ours moves none (deviation exactly 0 on every instance)")
GAP_274 = ("Nine readings declared before running (compression, online windows, allocated "
           "sizes, the last start, forced falling back, a warm-up, Algorithm 1's slices with "
           "either reference) were run on the whole ch. 4 table; none brings it back: the "
           "slices bring the two makespan means back but send the within-2 % shares of "
           "best-effort contiguous and local to 97.9 % and 97.7 %.")


def contiguity_settings(cells: Sequence[Sequence[Any]]) -> dict[str, Any]:
    """The run's settings, read from its cells ``[trace, seed, jobs, m, ℓ, alloc, status?,
    planner?]``.

    Parameters
    ----------
    cells : sequence of list
        The cells of one run (one setting).

    Returns
    -------
    dict
        ``trace`` (the file name), ``jobs``, ``processors``, ``cluster``, ``status``,
        ``planner``, ``allocs`` (set), ``seeds`` (count); empty without cells.
    """
    if not cells:
        return {}
    c = cells[0]
    status = c[6] if len(c) > 6 and c[6] not in (None, "all") else "all"
    return {"trace": str(c[0]).replace("\\", "/").rsplit("/", 1)[-1], "jobs": int(c[2]),
            "processors": int(c[3]), "cluster": int(c[4]), "status": status,
            "planner": c[7] if len(c) > 7 else "profile",
            "allocs": {x[5] for x in cells}, "seeds": len({x[1] for x in cells})}


def per_instance(rows: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, dict[int, float]]]:
    """Per measure and allocation, each instance's value (instances basic measured too).

    Parameters
    ----------
    rows : sequence of dict
        The rows of :func:`lpsched.batch.reproduce.contiguity_cell`.

    Returns
    -------
    dict
        ``dev`` (makespan deviation from basic, %), ``contiguous`` and ``local`` (shares of
        jobs, %), ``ratio`` (locality ratio): each ``{alloc: {seed: value}}``.
    """
    basic = {r["seed"]: float(r["makespan"]) for r in rows
             if r["alloc"] == "basic" and r.get("makespan")}
    out: dict[str, dict[str, dict[int, float]]] = {
        "dev": {}, "contiguous": {}, "local": {}, "ratio": {}}
    for r in rows:
        a, s = r["alloc"], r["seed"]
        if a not in NAMES or r.get("makespan") is None or s not in basic:
            continue
        out["dev"].setdefault(a, {})[s] = 100 * (float(r["makespan"]) / basic[s] - 1)
        out["contiguous"].setdefault(a, {})[s] = 100 * float(r["contiguous_jobs"])
        out["local"].setdefault(a, {})[s] = 100 * float(r["local_jobs"])
        if r.get("locality_ratio") is not None:
            out["ratio"].setdefault(a, {})[s] = float(r["locality_ratio"])
    return out


class _Ch4:
    """The rows of one run: its settings, per-instance values and size."""

    def __init__(self, rows: Sequence[Mapping[str, Any]], cells: Sequence[Sequence[Any]]):
        self.rows = rows
        self.set = contiguity_settings(cells)
        self.data = per_instance(rows)
        n = len(self.data["dev"].get("basic", {}))
        self.size = Size(n, CH4_INSTANCES) if n else None
        self.profile = self.set.get("planner", "profile") == "profile"
        self.why = ("no rows of this experiment in the store" if not rows else
                    "no instance has rows of both allocations")
        if n == 1:  # a mean over one instance has no noise estimate: never judged
            self.why = f"one instance gives no noise estimate (reduced run, 1 of {CH4_INSTANCES})"
            self.data = {k: {} for k in self.data}
        self.note = _departures(self.set)

    def opts(self, ref: str, source: str = "text", **extra: Any) -> dict[str, Any]:
        """``compare``'s options of a measured row: ref, source, size, the run's note, and
        the gap behind a difference (:data:`GAP_274`: nine readings were run on every row
        of the ch. 4 table; the rows that differ cite them)."""
        note = "; ".join(filter(None, [extra.pop("note", ""), self.note]))
        extra.setdefault("gap", Gap(274, readings=9, evidence=GAP_274))
        return {"ref": ref, "source": source, "size": self.size, "note": note, **extra}

    def vals(self, measure: str, alloc: str) -> dict[int, float]:
        return self.data[measure].get(alloc, {})

    def mean(self, fig: str, line: str, alloc: str, seed: Bound, **o: Any) -> FidelityRow:
        """A mean makespan deviation against a direction."""
        dev = self.vals("dev", alloc)
        if not dev:
            return not_measured(fig, line, seed, self.why, ref=o["ref"], unit="%",
                                source=o.get("source", "text"), role=o.get("role",
                                                                          "validation"))
        m, se = mean_and_se(dev.values())
        return compare(fig, line, seed, m, unit="%", noise=known_noise(se), **self.opts(**o))

    def diff(self, fig: str, line: str, measure: str, a: str, b: str, op: str,
             **o: Any) -> FidelityRow:
        """A paired difference of a measure between two allocations against 0."""
        d, se, _ = paired(self.vals(measure, a), self.vals(measure, b))
        unit = "" if measure == "ratio" else "%"
        if d is None:
            return not_measured(fig, line, Bound(op, 0.0), self.why,  # type: ignore[arg-type]
                                ref=o["ref"], unit=unit, source=o.get("source", "text"))
        return compare(fig, line, Bound(op, 0.0), d, unit=unit, noise=se,  # type: ignore
                       **self.opts(**o))

    def lines(self, measure: str, pairs: Sequence[tuple[str, str]]) -> list[Line]:
        """The paired differences ``a − b`` of a measure, as the lines of a joint row."""
        out = []
        for a, b in pairs:
            d, se, _ = paired(self.vals(measure, a), self.vals(measure, b))
            out.append(Line(f"{NAMES[a]} − {NAMES[b]}", d, se))
        return out

    def spread(self, alloc: str, measure: str) -> tuple[float, float] | None:
        """The standard deviation of a measure over the instances and its standard error
        ``sd / sqrt(2 (n − 1))``."""
        xs = list(self.vals(measure, alloc).values())
        if len(xs) < 2:
            return None
        m = math.fsum(xs) / len(xs)
        sd = math.sqrt(math.fsum((x - m) ** 2 for x in xs) / (len(xs) - 1))
        return sd, sd / math.sqrt(2 * (len(xs) - 1))


def _departures(s: Mapping[str, Any]) -> str:
    """The run's departures from the seed's setting, for the notes of measured rows."""
    if not s:
        return ""
    parts = [f"{s[k]} {what} (seed {v})" for k, what, v in (
        ("jobs", "jobs per instance", 300), ("processors", "processors", 512),
        ("cluster", "processors per cluster", 16)) if s[k] != v]
    if s["trace"] != CH4_TRACE:
        parts.append(f"trace {s['trace']} (seed CEA-Curie)")
    if s["status"] != "all":
        parts.append(f"status {s['status']}")
    if s["planner"] != "profile":
        parts.append(f"planner {s['planner']} (decision 274's reading (h))")
    return "setting: " + ", ".join(parts) if parts else ""


def contiguity_rows(rows: Sequence[Mapping[str, Any]], cells: Sequence[Sequence[Any]],
                    ) -> FidelityTable:
    """Seed 000 ch. 4's table from the stored rows of one run.

    Parameters
    ----------
    rows : sequence of dict
        The rows of :func:`lpsched.batch.reproduce.contiguity_cell` (empty: every row not
        measured).
    cells : sequence of list
        The run's cells (their keys give the settings).

    Returns
    -------
    FidelityTable
        ``contiguity``, every manifest entry of the experiment a row, in the seed's order.
    """
    c = _Ch4(rows, cells)
    out = carry_restated(unexplained([*_setup_rows(c), *_makespan_rows(c), *_locality_rows(c),
                          *_restated(), _nfdh_row(rows)]))
    return FidelityTable("contiguity", out, c.size)


def _setup_rows(c: _Ch4) -> list[FidelityRow]:
    """The set-up facts of §4.6 [L2874–L2924] beside the run's, and the settings the run
    cannot vary."""
    s = c.set
    why = "no cells of this experiment in the store"
    fixed = None if not s else "offline (all jobs at 0); real run times; makespan"
    allocs = None if not s else ", ".join(NAMES[a] for a in NAMES if a in s["allocs"])
    rows = [
        setup("ch. 4 instances: offline, real run times, makespan", "000 L408–L415",
              "offline (all jobs at 0); real run times; makespan", fixed,
              ref="000-S-ch4-intro", why=why, construction=(
                  "reproduce contiguity builds offline instances (every job at 0) of real "
                  "run times and measures their makespan")),
        setup("simulator input: each SWF job's processors and run time", "000 L2874–L2880",
              "requested processors; run time", None if not s else
              "requested processors; run time", ref="000-S-ch4-simulator", why=why,
              construction="the instances read each job's SWF processors and run time"),
        setup("estimates: the real run times", "000 L2881–L2882", "real run times",
              None if not s else "real run times", ref="000-S-ch4-real-times", why=why,
              construction="the instances' estimates are their run times"),
        not_measured("Curie: share of jobs whose user time is 24 h", "000 L2883–L2884",
                     "one third", "a statistic of the trace's requested times (SWF field 9), "
                     "which ch. 4's instances do not read (estimates = run times): no row "
                     "holds it", ref="000-L2883"),
        setup("machine size", "000 L2896–L2899", 512, s.get("processors"),
              ref="000-S-ch4-machine", why=why, unit="processors",
              construction="the machine is --processors (default 512)"),
        not_measured("512 processors: the worst size for the proposed algorithms",
                     "000 L2897–L2898", "worst of 64–1000", "one machine size per run "
                     "(--processors): needs runs over 64–1000 processors",
                     ref="000-L2897"),
        setup("processors per cluster", "000 L2899–L2900", 16, s.get("cluster"),
              ref="000-S-ch4-cluster", why=why,
              construction="the cluster size is --cluster-size (default 16)"),
        not_measured("cluster sizes above 16: similar results", "000 L2900–L2901",
                     "similar", "one cluster size per run (--cluster-size): needs runs at "
                     "32–128", ref="000-L2900"),
        setup("jobs per instance", "000 L2903–L2909", 300, s.get("jobs"),
              ref="000-S-ch4-jobs", why=why,
              construction="each instance draws --jobs-per-instance jobs (default 300)"),
        _instances_row(c),
        not_measured("more than 300 jobs per instance: similar results", "000 L2905–L2907",
                     "similar", "one job count per run (--jobs-per-instance): needs runs "
                     "above 300 jobs", ref="000-L2905"),
        setup("allocations compared", "000 L2911–L2912", ", ".join(NAMES.values()), allocs,
              ref="000-S-ch4-algorithms", why=why,
              construction="reproduce contiguity runs these five allocations"),
        setup("no run-time gain or loss from placement", "000 L2919–L2924",
              "none modelled", None if not s else "none modelled",
              ref="000-S-ch4-objectives", why=why,
              construction="the simulator gives a job the same run time wherever placed"),
        setup("trace of the makespan results", "000 L2927–L2929", "CEA-Curie",
              None if not s else ("CEA-Curie" if s["trace"] == CH4_TRACE else s["trace"]),
              ref="000-S-ch4-curie", why=why,
              construction="the trace is --trace (default CEA-Curie)"),
        not_measured("METACENTRUM and RICC: very similar makespans", "000 L2929–L2931",
                     "very similar", "one trace per run (--trace): needs runs on "
                     "METACENTRUM and RICC", ref="000-L2929"),
        setup("locality ratio: E(K_A,I) / E(K*_I) per instance", "000 L2990–L3002",
              "E(K)/E(K*)", None if not s else "E(K)/E(K*)",
              ref="000-S-ch4-locality-ratio", why=why,
              construction="the locality ratio is computed by this definition"),
    ]
    return rows


def _instances_row(c: _Ch4) -> FidelityRow:
    """The number of instances: the seed's 512, or a reduced run said so."""
    fig, line = "instances", "000 L2903–L2909"
    if c.size is None:
        return not_measured(fig, line, CH4_INSTANCES, c.why, ref="000-S-ch4-jobs")
    if c.size.reduced:
        return not_measured(fig, line, CH4_INSTANCES, f"reduced run ({c.size.label()})",
                            ref="000-S-ch4-jobs")
    return compare(fig, line, CH4_INSTANCES, c.size.n, ref="000-S-ch4-jobs")


def _online(c: _Ch4, fig: str, line: str, alloc: str, ref: str, source: str,
            construction: str | None = None, note: str = "") -> FidelityRow:
    """The share of instances on ``y = x`` (within :data:`ONLINE` %) against "most"."""
    dev = c.vals("dev", alloc)
    pct, noise, _ = share(abs(d) < ONLINE for d in dev.values())
    if pct is None:
        return not_measured(fig, line, Bound(">", 50.0), c.why, ref=ref, source=source,
                            unit="%")
    return compare(fig, line, Bound(">", 50.0), pct, unit="%", noise=noise,
                   statistic="share", construction=construction,
                   **c.opts(ref, source, note=note))


def _makespan_rows(c: _Ch4) -> list[FidelityRow]:
    """§4.6.1 [L2933–L2963] and the conclusion's L3036–L3039 (decisions 520–522)."""
    best = PROFILE if c.profile else None
    gap = Gap(274, readings=9, evidence=GAP_274)
    rows = [
        _online(c, "best-effort contiguous: instances on y = x (within 1 %)",
                "000 L2938–L2939", "becont-ff", "000-F4.7", "Figure 4.7", best,
                NOT_ALL if c.profile else ""),
        c.mean("best-effort contiguous vs basic, mean makespan difference",
               "000 L2938–L2940", "becont-ff", Bound("<", 0.1), ref="000-L2938",
               role="calibration", construction=best),
        _thicker(c),
        restates("forced contiguous: less stable (the cloud thickens)", "000 L2947–L2950",
                 ref="000-L2948", of="000-F4.8", what="thicker cloud"),
        c.mean("forced contiguous vs basic, mean makespan difference", "000 L2950–L2951",
               "cont-ff", Bound("<", 2.0), ref="000-L2950", role="calibration", gap=gap,
               note=HEADLINE),
        _online(c, "forced local: instances on y = x (within 1 %), like Fig. 4.7",
                "000 L2943–L2947", "loc", "000-F4.9", "Figure 4.9"),
        c.mean("forced local vs basic, mean makespan difference (like best-effort "
               "contiguous's)", "000 L2947", "loc", Bound("<", 0.1), ref="000-L2947"),
        c.mean("best-effort local vs basic, mean makespan difference (like forced local)",
               "000 L2954–L2955", "beloc", Bound("<", 0.1), ref="000-L2954",
               construction=best),
        joint("proposed allocations: mean makespan within 2 % of basic's", "000 L2957–L2960",
              Bound("<", 2.0), [Line(NAMES[a], *_mean(c, a)) for a in ("beloc", "loc")],
              empty=c.why, ref="000-L2957", unit="%", size=c.size, gap=GAP, note="; ".join(filter(
                  None, ["best-effort and forced contiguous's means are the calibration "
                         "rows 000-L2938 and 000-L2950", c.note]))),
        restates("enforcing contiguity: less stable performance", "000 L2960–L2963",
                 ref="000-L2960", of="000-F4.8", what="less stable"),
        restates("the proposed allocations do not affect the makespan negatively",
                 "000 L3036–L3037", ref="000-L3036", of="000-L2957", what="not negative"),
    ]
    for alloc in ("becont-ff", "beloc", "loc"):
        dev = c.vals("dev", alloc)
        pct, noise, _ = share(abs(d) < 2.0 for d in dev.values())
        fig = f"{NAMES[alloc]}: instances within 2 % of basic's makespan"
        rows.append(not_measured(fig, "000 L3037–L3039", Bound(">", 99.6), c.why,
                                 ref="000-L3037", unit="%") if pct is None else compare(
            fig, "000 L3037–L3039", Bound(">", 99.6), pct, unit="%", noise=noise,
            statistic="tail", construction=best if alloc != "loc" else None,
            **c.opts("000-L3037")))
    return rows


def _mean(c: _Ch4, alloc: str) -> tuple[float | None, float | None]:
    dev = c.vals("dev", alloc)
    if not dev:
        return None, None
    m, se = mean_and_se(dev.values())
    return m, known_noise(se)


def _thicker(c: _Ch4) -> FidelityRow:
    """Fig. 4.8: forced contiguous's cloud thicker than Figs. 4.7's and 4.9's: the
    standard deviation of its per-instance deviation above theirs."""
    fig = "forced contiguous: spread of the deviation above best-effort contiguous's " \
          "and forced local's"
    spreads = {a: c.spread(a, "dev") for a in ("cont-ff", "becont-ff", "loc")}
    mine = spreads["cont-ff"]
    lines = []
    for a in ("becont-ff", "loc"):
        other = spreads[a]
        lines.append(Line(f"sd(forced contiguous) − sd({NAMES[a]})",
                          None if mine is None or other is None else mine[0] - other[0],
                          None if mine is None or other is None else known_noise(
                              math.hypot(mine[1], other[1]))))
    shown = ", ".join(f"{NAMES[a]} {num(v[0])} %" for a, v in spreads.items() if v)
    return joint(fig, "000 L2947–L2950", Bound(">", 0.0), lines, empty=c.why,
                 ref="000-F4.8", source="Figure 4.8", unit="%", size=c.size, gap=GAP,
                 note="; ".join(filter(None, [f"standard deviations: {shown}" if shown
                                              else "", c.note])))


def _locality_rows(c: _Ch4) -> list[FidelityRow]:
    """§4.6.2 [L2967–L3015] and the conclusion's L3039–L3044."""
    beloc_local = c.vals("local", "beloc")
    m, se = mean_and_se(beloc_local.values()) if beloc_local else (None, None)
    se = known_noise(se)
    gap = Gap(274, readings=9, evidence=GAP_274)
    more = _variability(c)
    return [
        joint("contiguous jobs: forced local and best-effort contiguous above basic and "
              "best-effort local", "000 L2971–L2974", Bound(">", 0.0), c.lines(
                  "contiguous", [("loc", "basic"), ("loc", "beloc"), ("becont-ff", "basic"),
                                 ("becont-ff", "beloc")]), empty=c.why, ref="000-F4.10",
              source="Figure 4.10", unit="%", size=c.size, gap=GAP, note=c.note),
        c.diff("contiguous jobs: forced local above best-effort contiguous (closely "
               "followed)", "000 L2971–L2973", "contiguous", "loc", "becont-ff", ">",
               ref="000-L2971"),
        similar("contiguous jobs: basic and best-effort local similar", "000 L2971–L2972",
                c.vals("contiguous", "beloc"), c.vals("contiguous", "basic"),
                **c.opts("000-L2971")),
        joint("local jobs: best-effort local above basic, best-effort and forced contiguous",
              "000 L2982–L2983", Bound(">", 0.0), c.lines(
                  "local", [("beloc", "basic"), ("beloc", "becont-ff"),
                            ("beloc", "cont-ff")]), empty=c.why, ref="000-F4.11",
              source="Figure 4.11", unit="%", size=c.size, gap=GAP, note=c.note),
        c.diff("local jobs: best-effort contiguous below basic", "000 L2978–L2979", "local",
               "becont-ff", "basic", "<", ref="000-L2978"),
        c.diff("local jobs: forced contiguous above basic", "000 L2979–L2980", "local",
               "cont-ff", "basic", ">", ref="000-L2979"),
        more,
        compare("best-effort local: share of jobs placed locally", "000 L2982–L2983", 90.0,
                m, tolerance=5.0, unit="%", noise=se, **c.opts("000-L2982"))
        if m is not None else not_measured("best-effort local: share of jobs placed "
                                           "locally", "000 L2982–L2983", 90.0, c.why,
                                           ref="000-L2982", unit="%", tolerance=5.0),
        joint("locality ratio: best-effort local lowest, then forced contiguous",
              "000 L3008–L3011", Bound("<", 0.0), c.lines(
                  "ratio", [("beloc", "cont-ff"), ("cont-ff", "basic"),
                            ("cont-ff", "becont-ff")]), empty=c.why, ref="000-F4.12",
              source="Figure 4.12", size=c.size, gap=gap, note=c.note),
        c.diff("locality ratio: best-effort contiguous slightly below basic",
               "000 L3010–L3011", "ratio", "becont-ff", "basic", "<", ref="000-L3008"),
        similar("locality ratio: basic and best-effort contiguous similar",
                "000 L3010–L3011", c.vals("ratio", "becont-ff"), c.vals("ratio", "basic"),
                **c.opts("000-L3008")),
        not_measured("other cluster sizes and traces: the same relative performance",
                     "000 L3013–L3015", "similar", "one cluster size and one trace per run: "
                     "needs runs at 32–128 and on METACENTRUM and RICC", ref="000-L3013"),
        joint("locality improved: forced contiguous, best-effort local and forced local "
              "above basic's local jobs", "000 L3039–L3041", Bound(">", 0.0), c.lines(
                  "local", [("cont-ff", "basic"), ("beloc", "basic"), ("loc", "basic")]),
              empty=c.why, ref="000-L3039", unit="%", size=c.size, gap=GAP, note="; ".join(filter(
                  None, ["forced local is local by definition (its line cannot fail)",
                         c.note]))),
    ]


def _variability(c: _Ch4) -> FidelityRow:
    """L2979–L2982: forced contiguous's local share varies more across instances than
    basic's."""
    fig = "local jobs: forced contiguous more variable than basic"
    a, b = c.spread("cont-ff", "local"), c.spread("basic", "local")
    if a is None or b is None:
        return not_measured(fig, "000 L2979–L2982", Bound(">", 0.0), c.why,
                            ref="000-L2979", unit="%")
    return compare(fig, "000 L2979–L2982", Bound(">", 0.0), a[0] - b[0], unit="%",
                   noise=known_noise(math.hypot(a[1], b[1])), **c.opts(
                       "000-L2979", note=f"standard deviations over the instances: "
                       f"forced contiguous {num(a[0])} %, basic {num(b[0])} %"))


def _restated() -> list[FidelityRow]:
    """The abstract, the introduction and the conclusions repeating §4.6's results."""
    return [
        restates("contiguity and basic locality: benefits outweigh fewer backfilled jobs",
                 "000 L30–L32", ref="000-L30", of="000-L2957 and 000-L3039",
                 what="makespan kept, locality improved"),
        restates("(French abstract) the same", "000 L74–L77", ref="000-L74",
                 of="000-L2957 and 000-L3039", what="makespan kept, locality improved"),
        restates("benefits outweigh fewer backfilled jobs", "000 L417–L419", ref="000-L417",
                 of="000-L2957 and 000-L3039", what="makespan kept, locality improved"),
        restates("contiguity achieves some locality without the platform", "000 L419–L420",
                 ref="000-L419", of="000-L2979", what="more local jobs"),
        restates("good performance with more locality; contiguity gives locality",
                 "000 L2078–L2082", ref="000-L2078", of="000-L2957 and 000-L2979",
                 what="makespan kept, locality improved"),
        restates("simple constraints give more local allocations (forced contiguous)",
                 "000 L3041–L3044", ref="000-L3041", of="000-L2979", what="more local jobs"),
        restates("(ch. 6) the allocations did not affect the makespan negatively",
                 "000 L4039–L4040", ref="000-L4039", of="000-L2957", what="not negative"),
        restates("(ch. 6) locality improved; simple constraints give locality",
                 "000 L4040–L4045", ref="000-L4040", of="000-L3039 and 000-L2979",
                 what="locality improved"),
    ]


def _nfdh_row(rows: Sequence[Mapping[str, Any]]) -> FidelityRow:
    """Theorem 4's bound on NFDH+LS [L2507] where an instance has every job within a
    cluster (decision 277): a property of the algorithm, no published experimental result
    (no manifest entry)."""
    mine = [r for r in rows if r["alloc"] == "nfdh-ls"]
    done = [r for r in mine if r.get("makespan") is not None and r.get("lower_bound")]
    fig = "NFDH+LS makespan / max(W/m, p_max), largest over instances (Theorem 4)"
    if not done:
        return not_measured(fig, "000 L2507", Bound("<=", 3.0), (
            f"no instance has every job within a cluster of any size ch. 4 tried, 16-128 "
            f"({len(mine)} skipped; decision 277)") if mine else "no NFDH+LS rows")
    ratio = max(float(r["makespan"]) / float(r["lower_bound"]) for r in done)
    sizes = ", ".join(str(x) for x in sorted({int(r["cluster"]) for r in done}))
    return compare(fig, "000 L2507", Bound("<=", 3.0), ratio, note=(
        f"{len(done)} instances where every job fits a cluster (clusters of {sizes}); "
        f"{len(mine) - len(done)} others skipped; a theorem's bound, no published result"))


#: the decision the ch. 4 rows that differ cite (its readings ran on the whole table)
GAP = Gap(274, readings=9, evidence=GAP_274)

HEADLINE = ("calibration finding (decision 524, benchmarks/batch_ch4_headline.py, reduced: "
            "32-128 instances per value): of the parameters the text leaves open, no job "
            "count (100-1,000) brings forced contiguous under 2 %; a 128-processor machine "
            "does (+1.3 %), against the text's 512, 'the worst' size [L2896-L2898]; the "
            "planner does: Algorithm 1's time slices of processor sets [L2759-L2786] give "
            "+1.3 ± 0.5 % (128 instances), plausible from the text but found by this row, "
            "and it sends the best-effort within-2 % shares below the seed's (decision 274)")

