"""The seed-vs-ours table of ``lpsched reproduce redirection`` (seed 000 ch. 3), one rule.

:func:`build_table` sets every published result of ch. 3 (the entries of the manifest
``seed000_ch3.csv``: Tables 3.1-3.2, Figures 3.3-3.13, the claims of §3.5.2, the abstract,
the introductions and the conclusions, and the set-up facts) beside the rows of the two
stores of the chapter's runs: the comparison (``reproduce redirection``, experiment
``redirection``) and the tuning grids (``reproduce redirection --tune``, experiment
``redirection-tuning``). Every row is judged by :mod:`lpsched.core.fidelity`'s rule
(decision 288):

* a direction between two methods on one trace is the ratio of their means over the
  instances both ran, with the paired standard error as its noise (decision 550);
* "a significant improvement in all stretch metrics" of a (trace, method) pair is firm,
  refuted or open; a count of pairs against a published quantifier counts the firm pairs,
  the open ones being its noise (decision 550);
* the tuning claims are slopes over the grids, Table 3.2 the grid's compromise point, an
  extreme judged only at the seed's 20 instances (decision 551);
* the figures' values are not in the seed's text: their rows say so (decision 552).

Nothing here simulates: the rows are read as stored, and the trace's own figures (Table
3.1's trace columns) come from :func:`trace_facts`, which ``reproduce`` answers from the
workloads it already read. ``reproduce`` and the report hook (:mod:`lpsched.tasks.report`)
call the same :func:`build_table`.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from lpsched.core.fidelity import (
    NOISE_Z,
    Bound,
    FidelityRow,
    FidelityTable,
    Gap,
    Role,
    Size,
    compare,
    mean_and_se,
    not_measured,
    paired_se,
)
from lpsched.tasks.instance import BOUND_B, TRACES
from lpsched.tasks.reproduce import B_RATIO, TABLE_3_1, trace_figures

__all__ = ["PAIRS", "SEED_INSTANCES", "STRETCH", "build_table", "choose_parameters",
           "instance_stats", "trace_facts"]

SEED_INSTANCES = 20
"""Instances per trace of the chapter [000 L1823]."""
STRETCH = ("max_stretch", "sum_stretch", "l2_stretch")
FLOW = ("max_flow", "sum_flow", "l2_flow")
METRICS = STRETCH + FLOW
#: each redirection method and its baseline (the same queue and order, no redirection)
PAIRS = (("spt-rd", "spt"), ("gspt-rd", "gspt"), ("spt-rr", "spt"), ("gspt-rr", "gspt"))
#: the traces of Table 3.1 by their full name
SHORT = {t.name: t.short for t in TRACES.values()}
ORDER = tuple(TABLE_3_1)
#: Table 3.1's instance columns: a declared 5 % of the seed's mean of 20 windows
INSTANCE_TOLERANCE = 0.05
#: "one third of the jobs in the Curie trace" [000 L1848-1851], read within 0.05
DAY_SHARE, DAY_SHARE_TOLERANCE = 1 / 3, 0.05
_LABEL = {"spt": "SPT", "gspt": "GSPT", "srpt": "SRPT", "gsrpt": "GSRPT", "spt-rd": "SPT-RD",
          "gspt-rd": "GSPT-RD", "spt-rr": "SPT-RR", "gspt-rr": "GSPT-RR", "fcfs": "FCFS"}
_NORM = {"max_stretch": "max", "sum_stretch": "sum", "l2_stretch": "L2", "max_flow": "max",
         "sum_flow": "sum", "l2_flow": "L2"}


# -- the run, indexed -----------------------------------------------------------------------

@dataclass
class Run:
    """The comparison and tuning rows indexed by trace, policy and instance, the trace
    facts and the job selection (what every part of the table reads)."""

    rows: list[dict[str, Any]]
    tuning: list[dict[str, Any]]
    facts: Mapping[str, dict[str, Any] | str]
    jobs: dict[str, str]
    idx: dict[tuple[str, str], dict[int, dict[str, Any]]] = field(default_factory=dict)
    grid: dict[tuple[str, str], dict[tuple[float, float], dict[int, dict[str, Any]]]] = field(
        default_factory=dict)

    def __post_init__(self) -> None:
        for row in self.rows:
            if row.get("valid"):
                key = (short_name(row.get("trace")), str(row["policy"]))
                self.idx.setdefault(key, {})[int(row["seed"])] = row
        for row in self.tuning:
            if row.get("valid"):
                key = (short_name(row.get("trace")), str(row["policy"]))
                point = (float(row["md"]), float(row.get("tau", row.get("c", 0.0))))
                self.grid.setdefault(key, {}).setdefault(point, {})[int(row["seed"])] = row

    def traces(self) -> list[str]:
        """The traces of Table 3.1 with comparison rows, in the table's order."""
        have = {t for t, _ in self.idx}
        return [t for t in ORDER if t in have]

    def tuned(self) -> list[str]:
        """The traces of Table 3.1 with tuning rows, in the table's order."""
        have = {t for t, _ in self.grid}
        return [t for t in ORDER if t in have]

    def instances(self, trace: str) -> int:
        """The instances of ``trace`` in the comparison store (any policy)."""
        seeds = {s for (t, _), by in self.idx.items() if t == trace for s in by}
        return len(seeds)

    def tuning_instances(self, trace: str) -> int:
        """The instances of ``trace`` in the tuning store."""
        return len({s for (t, _), pts in self.grid.items() if t == trace
                    for by in pts.values() for s in by})

    def size(self) -> Size | None:
        """The comparison run's size: its fewest instances of a trace, of the seed's 20."""
        counts = [self.instances(t) for t in self.traces()]
        return Size(min(counts), SEED_INSTANCES, "instances per trace") if counts else None


def short_name(trace: Any) -> str:
    """Table 3.1's short name of a stored ``trace`` field (``CEA-Curie-2011-2.1-cln`` →
    ``Curie``), or the field itself.

    Parameters
    ----------
    trace : object
        A row's ``trace``.

    Returns
    -------
    str
        The short name.
    """
    return SHORT.get(str(trace), str(trace))


def _size(k: int) -> Size:
    return Size(k, SEED_INSTANCES)


def _finite(row: dict[str, Any] | None, metric: str) -> float | None:
    value = None if row is None else row.get(metric)
    return float(value) if value is not None and math.isfinite(float(value)) else None


def _paired(run: Run, trace: str, a: str, b: str, metric: str,
            metric_b: str | None = None) -> tuple[list[float], list[float]]:
    """The values of ``a``'s ``metric`` and ``b``'s ``metric_b`` on the instances both ran."""
    first, second = run.idx.get((trace, a), {}), run.idx.get((trace, b), {})
    xs, ys = [], []
    for seed in sorted(set(first) & set(second)):
        x, y = _finite(first[seed], metric), _finite(second[seed], metric_b or metric)
        if x is not None and y is not None:
            xs.append(x)
            ys.append(y)
    return xs, ys


@dataclass(frozen=True)
class Ratio:
    """The ratio of two methods' means on the instances both ran, and its paired noise."""

    value: float
    noise: float | None
    k: int

    def z(self) -> float:
        """How many noises the ratio lies below 1 (``inf`` without noise, signed)."""
        gap = 1.0 - self.value
        if not self.noise:
            return math.copysign(math.inf, gap) if gap else 0.0
        return gap / self.noise


def ratio(run: Run, trace: str, a: str, b: str, metric: str) -> Ratio | None:
    """``mean(a) / mean(b)`` of ``metric`` on ``trace`` over the instances both ran, with
    the paired standard error of the difference divided by ``mean(b)`` as its noise.

    Parameters
    ----------
    run : Run
        The indexed rows.
    trace, a, b, metric : str
        The trace's short name, the method, its baseline and the metric.

    Returns
    -------
    Ratio or None
        ``None`` when no instance has both, or the baseline's mean is not positive.
    """
    xs, ys = _paired(run, trace, a, b, metric)
    if not xs:
        return None
    mb = math.fsum(ys) / len(ys)
    if mb <= 0:
        return None
    se = paired_se(xs, ys)
    return Ratio(math.fsum(xs) / len(xs) / mb, None if se is None else se / mb, len(xs))


def instance_stats(rows: Iterable[dict[str, Any]], keys: Sequence[str], metric: str,
                   ) -> dict[tuple[Any, ...], tuple[float, float | None, int]]:
    """The mean of ``metric`` over the instances of each group, its standard error and the
    number of instances (the figures' bars and error bars).

    Parameters
    ----------
    rows : iterable of dict
        Stored rows (valid ones are used).
    keys : sequence of str
        The grouping fields (e.g. ``("trace", "policy")``).
    metric : str
        The field averaged.

    Returns
    -------
    dict
        ``{group: (mean, se or None, k)}``.
    """
    groups: dict[tuple[Any, ...], list[float]] = defaultdict(list)
    for row in rows:
        value = _finite(row, metric) if row.get("valid") else None
        if value is not None:
            groups[tuple(row.get(k) for k in keys)].append(value)
    return {k: (*mean_and_se(v), len(v)) for k, v in groups.items()}


# -- the trace's own figures (Table 3.1's trace columns, the b-ratio, Curie's estimates) ----

def trace_facts(path: str, status: str, zero_run: str, estimates: bool = False,
                ) -> dict[str, Any]:
    """Table 3.1's trace columns of one trace under the job selection, and (``estimates``)
    the share of its jobs whose requested time is 24 hours (seed 000 [L1848-1851]).

    Parameters
    ----------
    path : str
        The SWF trace.
    status, zero_run : str
        The job selection (:func:`lpsched.tasks.reproduce.selection`).
    estimates : bool
        Also read the requested times (field 9) for ``day_share``: one more read of the
        file, which ``reproduce`` does not do (decision 554).

    Returns
    -------
    dict
        :func:`~lpsched.tasks.reproduce.trace_figures`'s ``jobs``, ``span_days``,
        ``max_procs``, ``run_ratio``, and ``day_share`` (``None`` unless ``estimates``).
    """
    facts = dict(trace_figures(path, status, zero_run))
    facts["day_share"] = None
    if estimates:
        from lpsched.core.swf import read_swf, to_workload
        from lpsched.tasks.instance import machine_size

        trace = read_swf(path)
        work = to_workload(trace, estimate="requested", status=status,
                           drop_zero_run=zero_run == "drop",
                           processors=machine_size(trace, path, None))
        if work.jobs:
            facts["day_share"] = float((work.estimate == 86400).sum()) / work.jobs
    return facts


# -- pieces of rows ----------------------------------------------------------------------------

def _lines(lines: str) -> str:
    return f"000 {lines}"


def _reduced_traces(have: int, want: int) -> str:
    return f"reduced run ({have} of {want} traces)"


def _one_reading(decision: int) -> Gap:
    """The gap of a row judged under one reading, declared before the rows were computed:
    a difference is not reproduced, one reading tried."""
    return Gap(decision, readings=1, evidence=(
        f"One reading, declared before the rows were computed (decision {decision}); no "
        "other was tried and no mechanism was measured."))


def _direction(figure: str, line: str, ref: str, bound: Bound, r: Ratio | None, *,
               source: str = "text", note: str = "", why: str = "",
               gap: Gap | None = None) -> FidelityRow:
    """A direction of a ratio of means against its paired noise (decision 550)."""
    if r is None:
        return not_measured(figure, line, bound, why or "no instance of both methods",
                            ref=ref, source=source)
    if r.noise is None:
        return _note(not_measured(figure, line, bound, f"reduced run ({r.k} of "
                                  f"{SEED_INSTANCES} instances): one instance has no noise "
                                  f"estimate", ref=ref, source=source), note)
    return compare(figure, line, bound, r.value, noise=r.noise, size=_size(r.k), ref=ref,
                   source=source, note=note, gap=gap or _one_reading(550))


def _note(row: FidelityRow, note: str) -> FidelityRow:
    return replace(row, note="; ".join(filter(None, [row.note, note])))


def _mean_direction(figure: str, line: str, ref: str, bound: Bound, values: list[float],
                    *, note: str = "", source: str = "text", size: Size | None = None,
                    statistic: str = "mean", why: str = "",
                    gap: Gap | None = None) -> FidelityRow:
    """A direction of a mean of per-instance values, with its standard error; ``size``
    defaults to the values' count of the seed's 20 instances; ``why`` the reason when
    there is none."""
    if not values:
        return not_measured(figure, line, bound, why or "no instance in this run", ref=ref,
                            source=source)
    mean, se = mean_and_se(values)
    if se is None:
        return _note(not_measured(figure, line, bound, f"reduced run (1 of {SEED_INSTANCES}"
                                  " instances): one instance has no noise estimate",
                                  ref=ref, source=source), note)
    return compare(figure, line, bound, mean, noise=se, size=size or _size(len(values)),
                   ref=ref, source=source, note=note, gap=gap or _one_reading(550),
                   statistic=statistic)  # type: ignore[arg-type]


def pair_state(run: Run, trace: str, method: str, base: str) -> str | None:
    """Whether ``method`` lowers all three stretch metrics of ``trace`` against ``base``
    beyond the paired noise: ``firm``, ``refuted`` (one is higher beyond it) or ``open``.

    Parameters
    ----------
    run : Run
        The indexed rows.
    trace, method, base : str
        The trace's short name, the method and its baseline.

    Returns
    -------
    str or None
        ``None`` when a metric has fewer than two paired instances (no noise).

    Notes
    -----
    Decision 550 states this reading.
    """
    zs = []
    for metric in STRETCH:
        r = ratio(run, trace, method, base, metric)
        if r is None or r.noise is None:
            return None
        zs.append(r.z())
    if all(z > NOISE_Z for z in zs):
        return "firm"
    if any(z < -NOISE_Z for z in zs):
        return "refuted"
    return "open"


def _count_row(figure: str, line: str, ref: str, states: Mapping[str, str | None],
               need: int, words: str, *, size: Size | None, existential: bool = False,
               note: str = "") -> FidelityRow:
    """A count of firm cases against "more than ``need - 1``", the open cases its noise
    (decision 550); ``states`` maps each case to ``firm``/``refuted``/``open``/``None``
    (``None``: not measured)."""
    seed = Bound(">", need - 0.5)
    firm = sum(s == "firm" for s in states.values())
    open_ = sum(s == "open" for s in states.values())
    missing = [k for k, s in states.items() if s is None]
    phrase, _, reading = words.partition(": ")
    shown = f"'{phrase}'"
    note = "; ".join(filter(None, [f"'{phrase}' read as {reading}: {need} or more of "
                                   f"{len(states)} cases (decision 550)", note]))
    detail = f"{firm} firm, {open_} open of {len(states) - len(missing)} measured"
    if missing and not (existential and firm >= need):
        why = (f"{len(missing)} of {len(states)} cases not measured (a trace not in this "
               f"run, or one instance)")
        return replace(not_measured(figure, line, seed, why, ref=ref), seed_value=shown,
                       note="; ".join([note, detail]))
    row = compare(figure, line, seed, firm + open_ / 2, noise=open_ / (2 * NOISE_Z),
                  size=size, ref=ref, note=note, gap=_one_reading(550))
    return replace(row, seed_value=shown, ours=detail)


def _close_state(run: Run, trace: str, method: str, base: str, metric: str,
                 preemptive: Sequence[str]) -> str | None:
    """Whether ``method``'s mean ``metric`` lies below the midpoint between ``base``'s and
    the better preemptive policy's, beyond the paired noise (decision 550)."""
    by = {p: run.idx.get((trace, p), {}) for p in (method, base, *preemptive)}
    seeds = set.intersection(*(set(v) for v in by.values())) if by else set()
    diffs = []
    for seed in sorted(seeds):
        vals = [_finite(by[p][seed], metric) for p in (method, base, *preemptive)]
        if all(v is not None for v in vals):
            x, y, *pre = (float(v) for v in vals)  # type: ignore[arg-type]
            diffs.append(x - (y + min(pre)) / 2)
    mean, se = mean_and_se(diffs)
    if se is None:
        return None
    if mean < -NOISE_Z * se:
        return "firm"
    return "refuted" if mean > NOISE_Z * se else "open"


# -- Table 3.1 and the b-ratio (decisions 285, 287, 288, 290, 554) ---------------------------

_NOT_IN_RUN = "trace not in this run"
#: why a row counting or spanning the selected jobs is a calibration row
_SELECTED = "the selection of jobs it counts was chosen by Table 3.1's # tasks (decision 285)"


def _facts_reason(facts: dict[str, Any] | str | None) -> str:
    return facts if isinstance(facts, str) else _NOT_IN_RUN


_SELECTION_GAP = Gap(285, readings=3, evidence=(
    "Three selections of the trace's job lines were counted (every line, status 1, status "
    "1 with a positive run time); the last gives Table 3.1's counts on the traces it "
    "fits."))
_CPUS_GAP = Gap(554, readings=1, evidence=(
    "One reading, the file header's MaxProcs; no measurement says where Table 3.1's "
    "figures come from, and the run uses Table 3.1's m (decision 74)."))


def _trace_rows(run: Run, short: str) -> list[FidelityRow]:
    """Table 3.1's trace columns (# tasks, # CPUs, size) of one trace."""
    cpus, count, size, *_, line = TABLE_3_1[short]
    ref, at = "000-T3.1", _lines(f"L{line}")
    facts = run.facts.get(short)
    head = f"Table 3.1 {short} trace"
    if not isinstance(facts, dict):
        why = _facts_reason(facts)
        return [not_measured(f"{head} # tasks", at, count, why, ref=ref, source="Table 3.1",
                             role="calibration"),
                not_measured(f"{head} # CPUs", at, cpus, why, ref=ref, source="Table 3.1"),
                not_measured(f"{head} size", at, size, why, ref=ref, source="Table 3.1",
                             role="calibration")]
    kept = f"jobs: status {run.jobs['status']}, run time 0 {run.jobs['zero_run']}"
    out = [compare(f"{head} # tasks", at, count, facts["jobs"], role="calibration",
                   ref=ref, source="Table 3.1", statistic="value", gap=_SELECTION_GAP,
                   note=f"{kept}; the counts chose this selection (decision 285)")]
    if facts["max_procs"] is None:
        out.append(not_measured(f"{head} # CPUs", at, cpus, "the file has no MaxProcs "
                                "header", ref=ref, source="Table 3.1"))
    else:
        out.append(compare(f"{head} # CPUs", at, cpus, facts["max_procs"], ref=ref,
                           source="Table 3.1", statistic="value", gap=_CPUS_GAP,
                           note="the header's MaxProcs; the run uses Table 3.1's m "
                           "(decisions 74, 554)"))
    if short == "Curie":
        out.append(compare(f"{head} size", at, size, round(facts["span_days"] * 24, 1),
                           tolerance=1, unit="h", role="calibration", ref=ref,
                           statistic="value", gap=_one_reading(288),
                           source="Table 3.1", note="read in hours: the unit chosen by "
                           "this figure (decision 288)"))
    else:
        out.append(compare(f"{head} size", at, size, round(facts["span_days"], 1),
                           tolerance=1, unit="d", ref=ref, source="Table 3.1",
                           statistic="value", role="calibration", gap=_one_reading(288),
                           note=f"first to last submission kept; {_SELECTED}"))
    return out


_MQ_GAP = Gap(287, readings=6, evidence=(
    "Under the chapter's formula m/Q with Q the mean request of a window's jobs, on the "
    "traces whose job counts Table 3.1 gives exactly, the mean m/Q of 20 windows never "
    "comes near the printed value (20,000 draws: P = 0; on LLNL-Thunder and Metacentrum "
    "even the most favourable single window is above it). Six readings of Q were tried on "
    "the seven traces; none fits more than three traces at once, and no mechanism "
    "accounts for the gap. The Q the seed's m/Q implies is 2 to 28 "
    "times the chapter's jobs' mean request on HPC2N, LLNL-Thunder and Metacentrum "
    "(benchmarks/tasks_headlines.py)."))


_TASKS_GAP = Gap(288, readings=1, evidence=(
    "One reading: the mean number of jobs the chapter's selection (decision 285) keeps in "
    "a window of Table 3.1's s days; no other reading was tried."))


def _instance_rows(run: Run, short: str) -> list[FidelityRow]:
    """Table 3.1's instance columns (m/Q, tasks per instance, instance size) of one trace:
    means over the run's instances, 5 % declared, the noise their standard error."""
    _, _, _, mq, tasks, days, line = TABLE_3_1[short]
    ref, at = "000-T3.1", _lines(f"L{line}")
    head = f"Table 3.1 {short}"
    members: dict[int, dict[str, Any]] = {}
    for (trace, _), by in run.idx.items():
        if trace == short:
            for seed, row in by.items():
                members.setdefault(seed, row)
    out = []
    for label, seed_value, key in (("tasks per instance", tasks, "n"),
                                   ("instance CPUs (m/Q)", mq, "processors")):
        figure = f"{head} {label}"
        values = [float(r[key]) for r in members.values() if r.get(key) is not None]
        gap = _MQ_GAP if key == "processors" else _TASKS_GAP
        role: Role = "calibration" if key == "n" else "validation"
        if len(values) < 2:
            why = (_NOT_IN_RUN if not values else f"reduced run (1 of {SEED_INSTANCES} "
                   f"instances): one instance ({values[0]:g}) has no noise estimate")
            out.append(not_measured(figure, at, seed_value, why, ref=ref, source="Table 3.1",
                                    tolerance=INSTANCE_TOLERANCE, relative=True, role=role))
            continue
        mean, se = mean_and_se(values)
        out.append(compare(figure, at, seed_value, round(mean, 1), tolerance=INSTANCE_TOLERANCE,
                           relative=True, noise=se, size=_size(len(values)), gap=gap, ref=ref,
                           source="Table 3.1", role=role, note="; ".join(filter(None, [
                               f"mean of {len(values)} instances",
                               _SELECTED if role == "calibration" else ""]))))
    info = next((t for t in TRACES.values() if t.short == short), None)
    figure = f"{head} instance size"
    if info is None or not members:
        out.append(not_measured(figure, at, days, _NOT_IN_RUN, ref=ref, source="Table 3.1",
                                unit="d"))
    else:
        out.append(compare(figure, at, days, info.days, unit="d", ref=ref, source="Table 3.1",
                           construction="the run's window is Table 3.1's s "
                           "(reproduce.window_of)"))
    return out


_B_GAP = Gap(290, readings=5, evidence=(
    "The declared reading, the 0.8n-th task of each instance over its longest, measures "
    "windows of 7-60 days where the sentence names traces; four other readings were "
    "measured after it differed, and only the whole traces' run times give 0.02 (a "
    "calibration row). No mechanism was measured. Per instance, the rank giving 0.02 is "
    "about the 0.88n-th (benchmarks/tasks_headlines.py, 5 windows of 5 traces), which no "
    "reading of '0.8n' gives."))


def _b_rows(run: Run) -> list[FidelityRow]:
    """The b-ratio of [000 L1935-1937]: per instance (declared) and over the whole traces'
    run times (calibration), decision 290."""
    ref, at = "000-L1934", _lines("L1934-L1938")
    means, ses = [], []
    for short in run.traces():
        vals = {s: r.get("long_task_ratio") for (t, _), by in run.idx.items() if t == short
                for s, r in by.items()}
        clean = [float(v) for v in vals.values() if v is not None]
        if clean:
            mean, se = mean_and_se(clean)
            means.append(mean)
            ses.append(se)
    figure = "b: p of the 0.8n-th task / longest, per instance, mean of traces"
    if not means:
        out = [not_measured(figure, at, B_RATIO, "no instance in this run", ref=ref,
                            tolerance=0.005)]
    elif any(se is None for se in ses):
        out = [not_measured(figure, at, B_RATIO, f"reduced run (1 of {SEED_INSTANCES} "
                            "instances): one instance has no noise estimate", ref=ref,
                            tolerance=0.005)]
    else:
        noise = math.sqrt(math.fsum(s * s for s in ses if s is not None)) / len(ses)
        mean = round(math.fsum(means) / len(means), 4)
        note = f"per instance, where the text says 'of each trace'; {len(means)} of 7 traces"
        if len(means) < len(ORDER):
            out = [replace(not_measured(figure, at, B_RATIO, _reduced_traces(
                len(means), len(ORDER)), ref=ref, tolerance=0.005),
                note=f"{note}: mean {mean:g} (the seed's is over the seven)")]
        else:
            k = min(run.instances(t) for t in run.traces())
            out = [compare(figure, at, B_RATIO, mean, tolerance=0.005, noise=noise,
                           size=_size(k), gap=_B_GAP, ref=ref, note=note)]
    ratios = [f["run_ratio"] for f in run.facts.values()
              if isinstance(f, dict) and f.get("run_ratio") is not None]
    figure = "b: run time of the 0.8n-th job / longest, whole traces"
    note = "reading chosen after the one above differed (decision 290)"
    if 0 < len(ratios) < len(ORDER):
        mean = round(math.fsum(ratios) / len(ratios), 4)
        out.append(replace(not_measured(figure, at, B_RATIO, _reduced_traces(
            len(ratios), len(ORDER)), ref=ref, role="calibration", tolerance=0.005),
            note=f"{note}; {len(ratios)} of 7 traces: mean {mean:g} (the seed's is over "
            "the seven)"))
    elif ratios:
        out.append(compare(figure, at, B_RATIO, round(math.fsum(ratios) / len(ratios), 4),
                           tolerance=0.005, role="calibration", ref=ref, statistic="value",
                           gap=_B_GAP, note=f"{note}; the seven traces"))
    else:
        out.append(not_measured(figure, at, B_RATIO, "no trace read in this run", ref=ref,
                                role="calibration", tolerance=0.005))
    return out


#: how the seed prints the day share [000 L1848-L1851], and the value it is read as
_ONE_THIRD = "one third (1/3)"


def _day_share_row(run: Run) -> FidelityRow:
    """One third of Curie's jobs ask 24 hours [000 L1848-1851] (decision 554), the seed's
    words shown as it prints them."""
    figure = "Curie: share of the jobs whose requested time is 24 h"
    at, ref = _lines("L1848-L1851"), "000-L1848"
    facts = run.facts.get("Curie")
    if not isinstance(facts, dict):
        row = not_measured(figure, at, DAY_SHARE, _facts_reason(facts), ref=ref,
                           tolerance=DAY_SHARE_TOLERANCE)
    elif facts.get("day_share") is None:
        row = not_measured(figure, at, DAY_SHARE, "needs the trace's requested times "
                           "(field 9), which reproduce does not keep: lpsched report reads "
                           "them", ref=ref, tolerance=DAY_SHARE_TOLERANCE)
    else:
        row = compare(figure, at, DAY_SHARE, round(facts["day_share"], 4),
                      tolerance=DAY_SHARE_TOLERANCE, ref=ref, statistic="value",
                      gap=_one_reading(554),
                      note="the chapter's jobs (decision 285), field 9 = 86,400 s")
    return replace(row, seed_value=_ONE_THIRD)


# -- the set-up facts (decision 553) -----------------------------------------------------------

_PERIODS_GAP = Gap(553, measured=True, evidence=(
    "The introduction says the instances are one-week periods, a random number per "
    "platform [000 L334-L338]; §3.5.1 says one random window [t, t + s] of Table 3.1's s "
    "days [000 L1823-L1828]. The seed contradicts itself, and the row's whole difference is "
    "that contradiction: the seed value is the introduction's sentence, ours the "
    "experimental section's set-up, which the run follows."))


def _grid_label(run: Run, short: str, policy: str) -> str:
    points = run.grid.get((short, policy), {})
    mds = sorted({int(md) for md, _ in points})
    xs = sorted({x for _, x in points})
    name = "tau" if policy.endswith("-rd") else "c"
    shown = (f"{xs[0]:g}-{xs[-1]:g}" if name == "tau" and xs == list(
        range(int(xs[0]), int(xs[-1]) + 1)) else ", ".join(f"{x:g}" for x in xs))
    return f"m_d {mds[0]}-{mds[-1]} x {name} {shown}" if mds else ""


def _setup_grid_rows(run: Run) -> list[FidelityRow]:
    """The tuning grids of [000 L1900-L1911] and [000 L1931-L1939] beside the store's."""
    out = []
    for ref, lines, policy in (("000-S-ch3-rd-grid", "L1900-L1911", "spt-rd"),
                               ("000-S-ch3-rr-grid", "L1931-L1939", "spt-rr")):
        at = _lines(lines)
        if not run.tuned():
            out.append(not_measured(f"tuning grid of {_LABEL[policy]}", at, "m_d 1-10 x ...",
                                    "no tuning run (reproduce redirection --tune)", ref=ref))
        for short in run.tuned():
            wide = short in ("Curie", "RICC")
            seed = ("m_d 1-10 x tau 1-10" if wide else "m_d 1-10 x tau 1-5") if policy.endswith(
                "-rd") else "m_d 1-10 x c 0.2, 0.4, 0.6, 0.8, 1"
            b = {float(r["b"]) for r in run.tuning
                 if r.get("policy") == policy and r.get("b") is not None}
            note = f"b = {', '.join(f'{x:g}' for x in sorted(b))}" if b else ""
            out.append(compare(f"tuning grid of {_LABEL[policy]} on {short}", at, seed,
                               _grid_label(run, short, policy) or "none", ref=ref, note=note,
                               construction="the grid is the one reproduce redirection "
                               "--tune sweeps (reproduce.tuning_cells)"))
    return out


def _setup_rows(run: Run) -> list[FidelityRow]:
    """Every set-up fact of ch. 3 beside the run's (decision 553)."""
    n_traces = len(run.traces())
    size = run.size()
    k = size.n if size else 0
    policies = sorted({p for _, p in run.idx}, key=lambda p: list(_LABEL).index(p)
                      if p in _LABEL else 99)
    chapter = [p for p in _LABEL if p != "fcfs"]
    compared = "" if not policies else ", ".join(_LABEL.get(p, p) for p in policies
                                                  if p != "fcfs")
    out = [
        compare("instances: how they are cut from a trace", _lines("L334-L338"),
                "one-week periods, a random number per platform",
                "one random window [t, t + s] of Table 3.1's s days (§3.5.1)",
                gap=_PERIODS_GAP, ref="000-S-ch3-intro-periods"),
        _count_setup("traces of Table 3.1 in the run", "L1354-L1355, L1818-L1820", 7,
                     n_traces, "traces", "000-S-ch3-traces"),
        compare("bounded stretch constant B (s)", _lines("L1405-L1411"), 10, BOUND_B,
                ref="000-S-ch3-bounded-stretch", construction="lpsched.tasks.instance."
                "BOUND_B"),
        compare("objectives: max, sum and L2 of stretch and flow", _lines("L1413-L1436"), 6,
                len(METRICS), ref="000-S-ch3-objectives",
                construction="every row stores the six"),
        _count_setup("instances per trace", "L1823-L1830", SEED_INSTANCES, k, "instances",
                     "000-S-ch3-instances"),
        compare("job length: the real run time, never the user's estimate",
                _lines("L1846-L1848"), "real run times", "real run times",
                ref="000-S-ch3-real-times", construction="p_j from SWF field 4 "
                "(reproduce._trace reads run times only)"),
        compare("parallel job to sequential task", _lines("L1852-L1886"), "method C",
                "method C", ref="000-S-ch3-method-c", construction="the cells build "
                "method C only (reproduce.instance); Q as decision 74"),
        compare("every value is a mean over the instances", _lines("L1894-L1898"),
                "means over the instances", "means over the instances",
                ref="000-S-ch3-simulator", construction="the table's values are means over "
                "the run's instances", note="the seed's simulator "
                "(fernando.mendonca.xyz/redirection.tar.gz) was not available to run; "
                "lpsched's validates every schedule independently"),
    ]
    out += _setup_grid_rows(run)
    if not policies:
        out.append(not_measured("methods compared", _lines("L1950-L1953"),
                                ", ".join(_LABEL[p] for p in chapter), "no comparison rows",
                                ref="000-S-ch3-methods"))
    elif set(chapter) - set(policies):
        out.append(replace(not_measured(
            "methods compared", _lines("L1950-L1953"), ", ".join(_LABEL[p] for p in chapter),
            f"reduced run ({len(set(chapter) & set(policies))} of {len(chapter)} methods)",
            ref="000-S-ch3-methods"), ours=compared))
    else:
        out.append(compare("methods compared", _lines("L1950-L1953"),
                           ", ".join(_LABEL[p] for p in chapter), compared,
                           ref="000-S-ch3-methods", construction="the run's policies are "
                           "the chapter's (reproduce redirection's default list)",
                           note="FCFS, defined but not compared by the chapter, is run and "
                           "drawn, never judged" if "fcfs" in policies else ""))
    return out


def _count_setup(figure: str, lines: str, seed: int, ours: int, unit: str,
                 ref: str) -> FidelityRow:
    """A setting of the run's command line beside the seed's: a reduced run below it,
    the seed's own by construction at it."""
    if not ours:
        return not_measured(figure, _lines(lines), seed, "no comparison rows", ref=ref)
    if ours < seed:
        return compare(figure, _lines(lines), seed, ours, ref=ref, statistic="count",
                       size=Size(ours, seed, unit))
    if ours > seed:
        return replace(not_measured(figure, _lines(lines), seed, f"{ours} {unit}: another "
                                    "setting than the seed's", ref=ref), ours=str(ours))
    return compare(figure, _lines(lines), seed, ours, ref=ref,
                   construction=f"the run's {unit} are set by its command line")


# -- what the stored rows cannot measure (decision 555) ---------------------------------------

def _text_rows(run: Run) -> list[FidelityRow]:
    """The sentences whose quantity the rows do not hold, and method C's m/Q."""
    redirected = ("needs the processing times of the redirected tasks, which the rows do "
                  "not store (decision 555)")
    out = [
        not_measured("counter rule: most heavy tasks have long processing times",
                     _lines("L1336-L1338"), "most heavy tasks are long", redirected,
                     ref="000-L1336"),
        not_measured("threshold rule: redirected tasks are in general big",
                     _lines("L1690-L1691"), "redirected tasks are big", redirected,
                     ref="000-L1690"),
        not_measured("methods A and B: too many tasks, equal times, a changed order",
                     _lines("L1873-L1884"), "A too big, B reorders", "the run builds method "
                     "C instances only (decision 555)", ref="000-L1873"),
        _day_share_row(run),
    ]
    ratios = []
    for short in run.traces():
        info = next(t for t in TRACES.values() if t.short == short)
        ms = [float(r["processors"]) for (t, _), by in run.idx.items() if t == short
              for r in by.values() if r.get("processors") is not None]
        if ms:
            ratios.append((sum(ms) / len(ms) / info.cpus, short))
    figure = "method C: m/Q over the trace's m, smallest trace"
    if ratios:
        low, short = min(ratios)
        out.append(compare(figure, _lines("L1886-L1888"), Bound("<", 1), round(low, 5),
                           ref="000-L1886", construction="Q >= 1, so m/Q <= m",
                           note=f"{short}; every trace of the run below 1"))
    else:
        out.append(not_measured(figure, _lines("L1886-L1888"), Bound("<", 1),
                                "no comparison rows", ref="000-L1886"))
    return out


# -- Curie, Fig. 3.7 [000 L1955-L1970] (decisions 291, 550) ------------------------------------

def _per_instance(run: Run, trace: str, a: str, b: str, metrics: Sequence[str],
                  ) -> dict[int, list[float]]:
    """Per instance of ``trace``, ``a``'s value over ``b``'s for each of ``metrics``."""
    first, second = run.idx.get((trace, a), {}), run.idx.get((trace, b), {})
    out = {}
    for seed in sorted(set(first) & set(second)):
        vals = [(_finite(first[seed], m), _finite(second[seed], m)) for m in metrics]
        if all(x is not None and y for x, y in vals):
            out[seed] = [float(x) / float(y) for x, y in vals]  # type: ignore[arg-type]
    return out


def _curie_rows(run: Run) -> list[FidelityRow]:
    """Fig. 3.7's readings on Curie: SPT against SRPT and GSRPT, SPT's flow against its
    stretch, and the redirection methods against their baselines."""
    out = []
    why = "" if "Curie" in run.traces() else _NOT_IN_RUN
    at = _lines("L1957-L1959")
    for pre in ("srpt", "gsrpt"):
        for metric in STRETCH:
            out.append(_direction(f"Curie {_NORM[metric]} stretch: SPT / {_LABEL[pre]}", at,
                                  "000-L1957", Bound(">", 1),
                                  ratio(run, "Curie", "spt", pre, metric), why=why,
                                  note="highly detrimental to the stretch against the "
                                  "preemptive policies"))
    for s_metric, f_metric in zip(STRETCH, FLOW, strict=True):
        per = _per_instance(run, "Curie", "spt", "srpt", (s_metric, f_metric))
        out.append(_mean_direction(
            f"Curie {_NORM[s_metric]}: SPT/SRPT on stretch minus on flow", at, "000-L1957",
            Bound(">", 0), [v[0] - v[1] for v in per.values()], why=why,
            note="'stable for the flow' read as a smaller ratio on flow than on stretch"))
    at = _lines("L1959-L1964")
    for method, base in PAIRS:
        if method == "spt-rd":
            continue
        for metric in STRETCH:
            out.append(_direction(f"Curie {_NORM[metric]} stretch: {_LABEL[method]} / "
                                  f"{_LABEL[base]}", at, "000-L1959", Bound("<", 1),
                                  ratio(run, "Curie", method, base, metric), why=why,
                                  note="Table 3.2's parameters"))
    out.append(_spt_rd_row(run))
    return out


def _spt_rd_row(run: Run) -> FidelityRow:
    """"The same improvement cannot be seen for SPT-RD" [000 L1964-L1967]: the stretch
    metric SPT-RD improves least against SPT, above 1 (decision 291)."""
    figure = "Curie SPT-RD / SPT, least improved stretch metric"
    at = _lines("L1964-L1967")
    rs = {m: ratio(run, "Curie", "spt-rd", "spt", m) for m in STRETCH}
    known = {m: r for m, r in rs.items() if r is not None and r.noise is not None}
    if len(known) < len(STRETCH):
        r = next((r for r in rs.values() if r is not None), None)
        why = "" if "Curie" in run.traces() else _NOT_IN_RUN
        return _direction(figure, at, "000-L1964", Bound(">", 1), r, why=why)
    metric, r = min(known.items(), key=lambda kv: kv[1].z())
    note = (f"{_NORM[metric]} stretch (the others: " + ", ".join(
        f"{_NORM[m]} {x.value:.3g}" for m, x in known.items() if m != metric)
            + "); the seed's cause (bursts redirected, an over-used pool) needs fields the "
            "rows lack (decision 555)")
    return _direction(figure, at, "000-L1964", Bound(">", 1), r, note=note,
                      gap=_one_reading(291))


# -- the claims over traces (decision 550) -----------------------------------------------------

def _states(run: Run, traces: Sequence[str], pairs: Sequence[tuple[str, str]],
            ) -> dict[str, str | None]:
    return {f"{t} {_LABEL[a]}": pair_state(run, t, a, b) for t in traces for a, b in pairs}


def _close_states(run: Run, traces: Sequence[str], methods: Sequence[str],
                  preemptive: Sequence[str]) -> dict[str, str | None]:
    base = dict(PAIRS)
    return {f"{t} {_LABEL[m]} {_NORM[x]}": _close_state(run, t, m, base[m], x, preemptive)
            for t in traces for m in methods for x in STRETCH}


def _more_than_half(n: int) -> int:
    return n // 2 + 1


#: the RD claim's two phrases as each restatement prints them (the French abstract its own)
_RD_WORDS = {"000-L64": ("obtient de meilleurs résultats", "dans de nombreux cas")}


def _rd_rows(run: Run, ref: str, lines: str, size: Size | None) -> list[FidelityRow]:
    """"The deterministic method outperforms SPT and in many cases approaches SRPT": the
    RD pairs firm on more than half, the RD cases close to SRPT on a quarter."""
    better, close_to = _RD_WORDS.get(ref, ("outperforms", "in many cases"))
    rd = [p for p in PAIRS if p[0].endswith("-rd")]
    states = _states(run, ORDER, rd)
    close = _close_states(run, ORDER, [m for m, _ in rd], ("srpt",))
    return [
        _count_row("RD pairs lowering all stretch metrics (SPT-RD/SPT, GSPT-RD/GSPT)",
                   _lines(lines), ref, states, _more_than_half(len(states)),
                   f"{better}: more than half", size=size),
        _count_row("RD cases below the midpoint between the baseline and SRPT",
                   _lines(lines), ref, close, math.ceil(len(close) / 4),
                   f"{close_to}: approaching SRPT on a quarter", size=size,
                   existential=True),
    ]


def _pooled(run: Run, traces: Sequence[str], value: Callable[[str, int], float | None],
            ) -> list[float]:
    out = []
    for t in traces:
        seeds = sorted({s for (tr, _), by in run.idx.items() if tr == t for s in by})
        for seed in seeds:
            v = value(t, seed)
            if v is not None:
                out.append(v)
    return out


def _instance_ratio(run: Run, trace: str, seed: int, a: str, b: str, metric: str,
                    ) -> float | None:
    x = _finite(run.idx.get((trace, a), {}).get(seed), metric)
    y = _finite(run.idx.get((trace, b), {}).get(seed), metric)
    return x / y if x is not None and y else None


def _average(values: Iterable[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return math.fsum(vals) / len(vals) if vals else None


def _rr_gain(run: Run, trace: str, seed: int) -> float | None:
    """RR's stretch ratio to its baseline minus RD's, averaged over the baselines and
    metrics, on one instance (L2011)."""
    diffs = []
    for base in ("spt", "gspt"):
        for metric in STRETCH:
            rr = _instance_ratio(run, trace, seed, f"{base}-rr", base, metric)
            rd = _instance_ratio(run, trace, seed, f"{base}-rd", base, metric)
            if rr is not None and rd is not None:
                diffs.append(rr - rd)
    return _average(diffs)


def _flow_cost(run: Run, trace: str, seed: int) -> float | None:
    """The redirection methods' total flow over their baseline's, averaged, one instance."""
    return _average(_instance_ratio(run, trace, seed, a, b, "sum_flow") for a, b in PAIRS)


def _claim_rows(run: Run) -> list[FidelityRow]:
    """The claims over traces: §3.5.2, the abstract, introductions and conclusions."""
    size = run.size()
    others = [t for t in ORDER if t != "Curie"]
    note = ("Metacentrum's pairs run on instances of m/Q far above the seed's 18 "
            "(decisions 287, 292)")
    out = [_count_row("other traces: pairs lowering all three stretch metrics",
                      _lines("L1972-L1974, L1988"), "000-L1972", _states(run, others, PAIRS),
                      _more_than_half(len(others) * len(PAIRS)),
                      "most of the cases: more than half", size=size, note=note),
           _count_row("cases below the midpoint between the baseline and SRPT/GSRPT",
                      _lines("L1988-L1991"), "000-L1988",
                      _close_states(run, ORDER, [m for m, _ in PAIRS], ("srpt", "gsrpt")),
                      2, "some cases: two", size=size, existential=True),
           _count_row("pairs of both methods lowering all three stretch metrics",
                      _lines("L1343-L1346"), "000-L1343", _states(run, ORDER, PAIRS),
                      _more_than_half(len(ORDER) * len(PAIRS)),
                      "significant benefits: more than half", size=size)]
    for ref, lines in (("000-L22", "L22-L24"), ("000-L64", "L64-L68"),
                       ("000-L338", "L338-L341"), ("000-L2008", "L2008-L2011"),
                       ("000-L4028", "L4028-L4031")):
        out += _rd_rows(run, ref, lines, size)
    rr = [p for p in PAIRS if p[0].endswith("-rr")]
    out += [_pooled_row(run, "RR's stretch ratio to the baseline minus RD's", "L2011-L2012",
                        "000-L2011", Bound(">", 0), lambda t, s: _rr_gain(run, t, s),
                        "per instance, averaged over SPT/GSPT and the three stretch metrics, "
                        "pooled over the traces"),
            _count_row("RR pairs lowering all three stretch metrics", _lines("L2011-L2012"),
                       "000-L2011", _states(run, ORDER, rr), 3, "several cases: three",
                       size=size, existential=True),
            _pooled_row(run, "redirection methods' total flow over their baseline's",
                        "L2007-L2008", "000-L2007", Bound(">", 1),
                        lambda t, s: _flow_cost(run, t, s),
                        "per instance, averaged over the four methods, pooled over the "
                        "traces; the stretch side is row 000-L1343")]
    return out


def _pooled_row(run: Run, figure: str, lines: str, ref: str, bound: Bound,
                value: Callable[[str, int], float | None], note: str) -> FidelityRow:
    """A direction of per-instance values pooled over the seven traces (a claim of the
    whole chapter: fewer traces is a reduced run)."""
    have = run.traces()
    if len(have) < len(ORDER):
        return not_measured(figure, _lines(lines), bound, _reduced_traces(len(have),
                                                                          len(ORDER)), ref=ref)
    return _mean_direction(figure, _lines(lines), ref, bound, _pooled(run, have, value),
                           note=note, size=run.size())


# -- the tuning grids: slopes and Table 3.2 (decision 551) -------------------------------------

def _lsq(points: Sequence[tuple[float, float]]) -> float | None:
    """The least-squares slope of ``points`` (``None`` when every x is equal)."""
    n = len(points)
    mx = math.fsum(x for x, _ in points) / n
    my = math.fsum(y for _, y in points) / n
    sxx = math.fsum((x - mx) ** 2 for x, _ in points)
    if sxx == 0:
        return None
    return math.fsum((x - mx) * (y - my) for x, y in points) / sxx


def slopes(run: Run, trace: str, policy: str, metric: str, along: str = "md",
           span: tuple[float, float] | None = None, line: float | None = None) -> list[float]:
    """Per instance, the slope of ``metric`` against ``m_d`` (``along="md"``) or against
    ``τ``/``c``, one slope per line of the other parameter, averaged over the lines and
    divided by the instance's mean of ``metric`` over the grid.

    Parameters
    ----------
    run : Run
        The indexed rows (its tuning grid).
    trace, policy, metric : str
        The trace's short name, the tuned method and the objective (or ``redirections``).
    along : {"md", "x"}
        The parameter on the horizontal axis.
    span : tuple of float, optional
        The range of that parameter kept (``(4, 10)``: ``m_d >= 4``).
    line : float, optional
        Only the line of this value of the other parameter (Table 3.2's ``τ``).

    Returns
    -------
    list of float
        One relative slope per instance (0 for an instance whose values are all 0, e.g. no
        task redirected; other instances whose grid mean is not positive left out).

    Notes
    -----
    Decision 551 states this reading.
    """
    points = run.grid.get((trace, policy), {})
    seeds = sorted({s for by in points.values() for s in by})
    out = []
    for seed in seeds:
        vals = {p: _finite(by.get(seed), metric) for p, by in points.items()}
        clean = {p: v for p, v in vals.items() if v is not None}
        scale = math.fsum(clean.values()) / len(clean) if clean else 0.0
        if clean and not any(clean.values()):
            out.append(0.0)  # zero everywhere (no task redirected): a flat line
            continue
        if scale <= 0:
            continue
        lines: dict[float, list[tuple[float, float]]] = defaultdict(list)
        for (md, x), v in clean.items():
            pos, other = (md, x) if along == "md" else (x, md)
            if (span is None or span[0] <= pos <= span[1]) and (line is None or other == line):
                lines[other].append((pos, v))
        found = [s for s in (_lsq(p) for p in lines.values() if len(p) >= 2) if s is not None]
        if found:
            out.append(math.fsum(found) / len(found) / scale)
    return out


def _untuned(trace: str) -> str:
    return (f"no tuning rows of {trace} (lpsched reproduce redirection --tune --trace "
            f"{trace})")


def _slope_row(run: Run, figure: str, lines: str, ref: str, bound: Bound, trace: str,
               policy: str, metric: str, **where: Any) -> FidelityRow:
    if trace not in run.tuned():
        return not_measured(figure, _lines(lines), bound, _untuned(trace), ref=ref)
    values = slopes(run, trace, policy, metric, **where)
    flat = bool(values) and not any(values)
    return _mean_direction(figure, _lines(lines), ref, bound, values,
                           size=_size(run.tuning_instances(trace)), gap=_one_reading(551),
                           note="flat: zero at every grid point of every instance" if flat
                           else "slope per unit of the parameter, relative to the grid's "
                           "mean; per instance, averaged over the other parameter's lines")


def _not_trade_off(run: Run) -> FidelityRow:
    """LLNL-Thunder: the Curie trade-off in ``m_d`` does not hold [000 L1917-L1918]: the
    less sure of its two components, its slope the other way (decision 551)."""
    figure = "LLNL-Thunder SPT-RD: stretch up and flow down with m_d (m_d >= 4) fails"
    if "LLNL-Thunder" not in run.tuned():
        return not_measured(figure, _lines("L1917-L1918"), "does not hold",
                            _untuned("LLNL-Thunder"), ref="000-L1917")
    parts = {}
    for metric, sign in (("sum_stretch", 1.0), ("sum_flow", -1.0)):
        values = slopes(run, "LLNL-Thunder", "spt-rd", metric, span=(4, 10))
        mean, se = mean_and_se(values)
        z = sign * mean / se if se else sign * mean * math.inf if mean else 0.0
        parts[metric] = (z, sign, values)
    metric, (_, sign, values) = min(parts.items(), key=lambda kv: kv[1][0])
    bound = Bound("<", 0) if sign > 0 else Bound(">", 0)
    return _mean_direction(f"{figure}: {metric} slope", _lines("L1917-L1918"), "000-L1917",
                           bound, values, size=_size(run.tuning_instances("LLNL-Thunder")),
                           gap=_one_reading(551),
                           note="the component of the trade-off least sure on its side")


def _tuning_rows(run: Run) -> list[FidelityRow]:
    """The tuning paragraph's claims [000 L1913-L1948] on the grids (decision 551)."""
    s = _slope_row
    out = [s(run, "Curie SPT-RD: total stretch slope against m_d (m_d >= 4)", "L1915-L1917",
             "000-L1915", Bound(">", 0), "Curie", "spt-rd", "sum_stretch", span=(4, 10)),
           s(run, "Curie SPT-RD: total flow slope against m_d (m_d >= 4)", "L1915-L1917",
             "000-L1915", Bound("<", 0), "Curie", "spt-rd", "sum_flow", span=(4, 10)),
           _not_trade_off(run),
           s(run, "LLNL-Thunder SPT-RD: total stretch slope against tau", "L1917-L1920",
             "000-L1917", Bound(">", 0), "LLNL-Thunder", "spt-rd", "sum_stretch", along="x"),
           s(run, "LLNL-Thunder SPT-RD: total flow slope against tau", "L1917-L1920",
             "000-L1917", Bound("<", 0), "LLNL-Thunder", "spt-rd", "sum_flow", along="x"),
           s(run, "LLNL-Thunder SPT-RD: total flow slope against m_d (Fig. 3.4b)",
             "L1967-L1970", "000-L1967", Bound("<", 0), "LLNL-Thunder", "spt-rd", "sum_flow"),
           s(run, "Curie SPT-RD, tau = 10: total flow slope against m_d", "L1967-L1970",
             "000-L1967", Bound("<", 0), "Curie", "spt-rd", "sum_flow", line=10.0)]
    for trace in run.tuned() or ["LLNL-Thunder"]:
        for policy in ("spt-rd", "gspt-rd"):
            out.append(s(run, f"{trace} {_LABEL[policy]}: redirected tasks' slope against "
                         "tau", "L1922-L1927", "000-L1922", Bound("<", 0), trace, policy,
                         "redirections", along="x"))
    out.append(not_measured("SPT-RR and GSPT-RR: 'similar observations'", _lines("L1931"),
                            "similar observations", "the sentence names no quantity to "
                            "measure; the RR grids are drawn (decision 551)",
                            ref="000-L1931"))
    for trace in run.tuned() or ["LLNL-Thunder"]:
        for policy in ("spt-rd", "spt-rr"):
            out.append(_spread_row(run, trace, policy))
        out.append(_conflict_row(run, trace))
    return out


def _point_means(run: Run, trace: str, policy: str, metric: str,
                 ) -> dict[tuple[float, float], dict[int, float]]:
    out = {}
    for point, by in run.grid.get((trace, policy), {}).items():
        vals = {s: v for s, v in ((s, _finite(r, metric)) for s, r in by.items())
                if v is not None}
        if vals:
            out[point] = vals
    return out


def _mean(values: Iterable[float]) -> float:
    vals = list(values)
    return math.fsum(vals) / len(vals)


def _between(figure: str, lines: str, ref: str, first: dict[int, float],
             second: dict[int, float], construction: str, note: str,
             size: Size) -> FidelityRow:
    """``mean(first) / mean(second) > 1`` on the instances of both, ``second`` the grid's
    minimum: at least 1 by construction (the points are picked after looking at the grid,
    so above 1 the ratio tests nothing); exactly 1, the two points coincide, the one case
    that goes against the claim, judged as an extreme over the grid (only at the seed's 20
    instances)."""
    seeds = sorted(set(first) & set(second))
    xs, ys = [first[s] for s in seeds], [second[s] for s in seeds]
    if not seeds or _mean(ys) <= 0:
        return not_measured(figure, _lines(lines), Bound(">", 1), "no instance in the grid",
                            ref=ref)
    value = _mean(xs) / _mean(ys)
    note = f"{note}; {len(seeds)} instances; the ratio's size is drawn in Figs 3.3-3.6"
    if value <= 1.0:
        return compare(figure, _lines(lines), Bound(">", 1), value, ref=ref, size=size,
                       statistic="min", note=f"{note}; the two points coincide")
    return compare(figure, _lines(lines), Bound(">", 1), value, ref=ref,
                   construction=construction, note=note)


def _spread_row(run: Run, trace: str, policy: str) -> FidelityRow:
    """The methods depend on their parameters [000 L2005-L2007]: the grid's worst mean total
    stretch over its best."""
    figure = f"{trace} {_LABEL[policy]}: worst / best total stretch over the grid"
    if trace not in run.tuned():
        return not_measured(figure, _lines("L2005-L2007"), Bound(">", 1), _untuned(trace),
                            ref="000-L2005")
    means = _point_means(run, trace, policy, "sum_stretch")
    if not means:
        return not_measured(figure, _lines("L2005-L2007"), Bound(">", 1),
                            f"no {_LABEL[policy]} rows in the tuning grid of {trace}",
                            ref="000-L2005")
    worst = max(means, key=lambda p: _mean(means[p].values()))
    best = min(means, key=lambda p: _mean(means[p].values()))
    return _between(figure, "L2005-L2007", "000-L2005", means[worst], means[best],
                    "the grid's worst mean over its best is >= 1 (equal only on a flat grid)",
                    f"worst {worst}, best {best} (m_d, parameter)",
                    _size(run.tuning_instances(trace)))


def _conflict_row(run: Run, trace: str) -> FidelityRow:
    """Minimising one objective harms another [000 L1944-L1948]: SPT-RD's total flow at the
    total stretch's best grid point over the best total flow."""
    figure = f"{trace} SPT-RD: total flow at the stretch-best point / best total flow"
    if trace not in run.tuned():
        return not_measured(figure, _lines("L1944-L1948"), Bound(">", 1), _untuned(trace),
                            ref="000-L1944")
    stretch = _point_means(run, trace, "spt-rd", "sum_stretch")
    flow = _point_means(run, trace, "spt-rd", "sum_flow")
    if not stretch or not flow:
        return not_measured(figure, _lines("L1944-L1948"), Bound(">", 1),
                            f"no SPT-RD rows in the tuning grid of {trace}", ref="000-L1944")
    at = min(stretch, key=lambda p: _mean(stretch[p].values()))
    best = min(flow, key=lambda p: _mean(flow[p].values()))
    return _between(figure, "L1944-L1948", "000-L1944", flow[at], flow[best],
                    "the best total flow is the grid's minimum, so any point's over it is "
                    ">= 1 (equal when one point is best for both)",
                    f"stretch-best {at}, flow-best {best} (m_d, tau)",
                    _size(run.tuning_instances(trace)))


def choose_parameters(run: Run, trace: str, policy: str,
                      ) -> tuple[tuple[float, float], float] | None:
    """Table 3.2's reading on a grid: the point whose worst objective is least bad, each
    objective's mean over the instances divided by the grid's best mean.

    Parameters
    ----------
    run : Run
        The indexed rows (its tuning grid).
    trace, policy : str
        The trace's short name and the tuned method.

    Returns
    -------
    tuple or None
        ``((m_d, τ or c), score)``, the score the largest of the six ratios; ``None`` when
        the grid of ``trace`` holds no row of ``policy``.

    Notes
    -----
    Decision 551 states this reading.
    """
    means: dict[tuple[float, float], dict[str, float]] = {}
    for metric in METRICS:
        for point, vals in _point_means(run, trace, policy, metric).items():
            means.setdefault(point, {})[metric] = _mean(vals.values())
    if not means:
        return None
    best = {m: min(v[m] for v in means.values() if m in v) for m in METRICS
            if any(m in v for v in means.values())}
    scores = {p: max(v[m] / best[m] if best[m] > 0 else 1.0 for m in v)
              for p, v in means.items()}
    point = min(scores, key=lambda p: (scores[p], p))
    return point, scores[point]


def _table_3_2_rows(run: Run) -> list[FidelityRow]:
    """Every cell of Table 3.2 [000 L1975-L1986]: our grid's compromise beside the seed's
    (``statistic="min"``: judged only at 20 instances)."""
    out = []
    for info in TRACES.values():
        line = _lines(f"L{1978 + ORDER.index(info.short)}")
        for policy in ("spt-rd", "gspt-rd", "spt-rr", "gspt-rr"):
            md, x = info.params[policy]
            name = "tau" if policy.endswith("-rd") else "c"
            choice = choose_parameters(run, info.short, policy)
            for k, (label, seed, step) in enumerate((("m_d", md, 0.5),
                                                     (name, x, 0.5 if name == "tau" else 0.1))):
                figure = f"Table 3.2 {info.short} {_LABEL[policy]} {label}"
                if choice is None:
                    out.append(not_measured(figure, line, seed, _untuned(info.short),
                                            ref="000-T3.2", source="Table 3.2",
                                            tolerance=step))
                    continue
                out.append(compare(figure, line, seed, choice[0][k], tolerance=step,
                                   statistic="min", ref="000-T3.2", source="Table 3.2",
                                   gap=_one_reading(551),
                                   size=_size(run.tuning_instances(info.short)),
                                   note=f"worst objective {choice[1]:.3g} x its grid best"))
    return out


# -- the figures (decision 552) ----------------------------------------------------------------

#: each figure of ch. 3: its caption line, its trace, its store and the rows reading it
FIGURES: dict[str, tuple[str, str, str, str]] = {
    "000-F3.3": ("L1928", "Curie", "tuning", "000-L1915"),
    "000-F3.4": ("L1929", "LLNL-Thunder", "tuning", "000-L1917, 000-L1967"),
    "000-F3.5": ("L1945", "Curie", "tuning", "000-L1915, 000-L1944"),
    "000-F3.6": ("L1960", "LLNL-Thunder", "tuning", "000-L1917"),
    "000-F3.7": ("L1992", "Curie", "comparison", "000-L1957, 000-L1959, 000-L1964"),
    "000-F3.8": ("L1973", "HPC2N", "comparison", "000-L1972, 000-L1988"),
    "000-F3.9": ("L1993", "KTH-SP2", "comparison", "000-L1972, 000-L1988"),
    "000-F3.10": ("L1994", "LLNL-Thunder", "comparison", "000-L1972, 000-L1988"),
    "000-F3.11": ("L1995", "Metacentrum", "comparison", "000-L1972, 000-L1988"),
    "000-F3.12": ("L1996", "RICC", "comparison", "000-L1972, 000-L1988"),
    "000-F3.13": ("L1997", "SDSC-Blue-4.1", "comparison", "000-L1972, 000-L1988"),
}


def _figure_rows(run: Run) -> list[FidelityRow]:
    """One row per figure: the seed prints none of its values (decision 552)."""
    out = []
    for ref, (line, trace, store, readers) in FIGURES.items():
        source = "Figure " + ref.split("-F")[1]
        k = run.tuning_instances(trace) if store == "tuning" else run.instances(trace)
        drawn = (f"redrawn from the {store} store ({k} of the seed's {SEED_INSTANCES} "
                 f"instances of {trace})" if k else
                 f"no {store} rows of {trace}: not drawn")
        row = not_measured(f"{source} {trace}: the seed's bars and curves", _lines(line),
                           "no value printed", "the seed prints none of its values "
                           "(only its caption survives)", ref=ref, source=source)
        out.append(_note(row, f"{drawn}; the text's reading of it: rows {readers}"))
    return out


# -- the table ---------------------------------------------------------------------------------

def build_table(rows: Sequence[dict[str, Any]], tuning: Sequence[dict[str, Any]] = (),
                facts: Mapping[str, dict[str, Any] | str] | None = None,
                jobs: dict[str, str] | None = None,
                experiment: str = "redirection") -> FidelityTable:
    """The seed-vs-ours table of seed 000 ch. 3: every manifest entry of ``redirection`` a row,
    at every run size.

    Parameters
    ----------
    rows : sequence of dict
        The comparison store's rows (:func:`lpsched.tasks.reproduce.run_cell`); may be
        empty.
    tuning : sequence of dict
        The tuning store's rows (:func:`lpsched.tasks.reproduce.tuning_cell`); may be empty.
    facts : mapping, optional
        Per trace (Table 3.1's short name), :func:`trace_facts`, or the reason it was not
        read (a string); a trace missing is "not in this run".
    jobs : dict, optional
        The job selection the rows were computed with (default the chapter's).
    experiment : str
        The table's experiment: ``redirection``, or ``redirection-tuning`` for the table a
        tuning run writes (its own ``redirection-tuning_vs_seed.csv``).

    Returns
    -------
    FidelityTable
        The rows in the manifest's groups (set-up, Table 3.1, b, text, tuning, Table 3.2,
        figures, Curie, the claims); the size the comparison run's.

    Examples
    --------
    >>> table = build_table([])
    >>> sorted({r.kind for r in table.rows})
    ['differs: cause measured', 'holds by construction', 'not measured']

    Notes
    -----
    Decision 288 states how the rows are judged.
    """
    from lpsched.tasks.reproduce import CHAPTER_SELECTION

    run = Run(list(rows), list(tuning), dict(facts or {}), dict(jobs or CHAPTER_SELECTION))
    out = _setup_rows(run)
    for short in ORDER:
        out += _trace_rows(run, short) + _instance_rows(run, short)
    out += _b_rows(run) + _text_rows(run) + _tuning_rows(run) + _table_3_2_rows(run)
    out += _figure_rows(run) + _curie_rows(run) + _claim_rows(run)
    size = run.size()
    if size is None and run.tuned():
        size = Size(min(run.tuning_instances(t) for t in run.tuned()), SEED_INSTANCES,
                    "instances per trace")
    return FidelityTable(experiment, out, size)
