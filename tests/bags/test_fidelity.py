"""Seed 003's seed-vs-ours table (``lpsched.bags.fidelity``) under the one rule: every
manifest entry a row at every size, extremes never judged on a reduced run, directions
judged against their paired noise, calibration rows (decisions 36, 316, 317) not counted,
and the printed values of ``seed_values`` equal to the manifest's."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from lpsched.bags import fidelity
from lpsched.bags.reproduce import METRICS
from lpsched.bags.seed_values import TABLE3, TABLES
from lpsched.report.manifest import manifest

GREEDY = [f"{a}-{r}" for a in ("fifo", "spt", "srpt", "swrpt") for r in ("rr", "mct", "dd")]
POLICIES = [*GREEDY, "mwma-nbt", "mwma-ms", "cbs3m-fifo-online", "cbs3m-edf-online",
            "cbs3m-fifo-offline", "cbs3m-edf-offline"]
RECEIVED = "dd_request=received;switch=complete"


def _rows(n: int, tie: tuple[str, str] | None = None, seed: int = 0) -> tuple[dict[str, Any],
                                                                            ...]:
    """Synthetic stored rows of ``n`` instances: each policy's metrics around the seed's
    Table 4-8 averages times the LP bound; ``tie``: the two policies get the same
    sum-stretch distribution (independent draws), so their paired difference is noise."""
    rng = np.random.default_rng(seed)
    out = []
    for s in range(n):
        bound = float(rng.uniform(2.0, 10.0))
        for p in POLICIES:
            row: dict[str, Any] = {"seed": s, "policy": p, "status": "ok", "reason": None,
                                   "lp_bound": bound}
            for metric in METRICS:
                avg = TABLES[metric][1][p].avg.value
                row[metric] = bound * avg * float(rng.uniform(0.9, 1.1))
            if tie and p in tie:
                row["sum_stretch"] = bound * float(rng.uniform(1.0, 1.2))
            out.append(row)
    return tuple(out)


def _run(n: int, profile: str = "simgrid", base: float = 12.5e6, reading: str = RECEIVED,
         **kw: Any) -> fidelity.Run:
    return fidelity.Run(fidelity.Setting(profile, base, reading), _rows(n, **kw))


def _by_ref(table: Any, ref: str) -> list[Any]:
    return [r for r in table.rows if r.ref == ref]


def test_an_empty_table_has_every_entry_and_judges_nothing() -> None:
    table = fidelity.cbs3m_table([])
    refs = {r.ref for r in table.rows}
    wanted = {e.id for e in manifest("003") if e.experiment in ("cbs3m", "none")}
    assert wanted <= refs, sorted(wanted - refs)
    assert {r.kind for r in table.rows} <= {"not measured", "holds by construction"}
    for row in table.rows:
        assert row.source and row.seed_line.startswith("003 L"), row
    assert table.counts()["match"] == 0


def test_extremes_are_not_judged_on_a_reduced_run() -> None:
    table = fidelity.cbs3m_table([_run(12)])
    assert table.size is not None and table.size.reduced
    for row in _by_ref(table, "003-T4"):
        if row.figure.endswith((" min", " max", " best %")):
            assert row.verdict == "not measured: reduced run (12 of 1,000 instances)", row
    worst = next(r for r in _by_ref(table, "003-L880c") if "worst" in r.figure)
    assert worst.kind == "not measured"


def test_links_chosen_by_the_tables_make_every_row_they_touch_calibration() -> None:
    """At the simgrid profile's 100 Mbit/s (decision 36) every Tables 4-8 cell and every
    claim on them is calibration and out of the tally; at the text's 10 Mbit/s with the
    text's greedy reading, CBS3M's cells are validation; the greedy switch kept for its
    distance to Table 4 (decision 317) and DD's reading (decision 316) stay calibration."""
    chosen = fidelity.cbs3m_table([_run(30)])
    cells = [r for r in chosen.rows if re.fullmatch(r"003-T[4-8]", r.ref)]
    assert cells and all(r.role == "calibration" for r in cells)
    assert all(r.role == "calibration" for r in _by_ref(chosen, "003-L884d"))
    assert chosen.counts()["rows"] == sum(r.role == "validation" for r in chosen.rows)

    literal = fidelity.cbs3m_table([_run(30, base=1.25e6)])
    roles = {r.figure: r.role for r in literal.rows if re.fullmatch(r"003-T[4-8]", r.ref)}
    assert roles["Table 4 CBS3M_EDF_ONLINE avg"] == "validation"
    assert roles["Table 4 SPT_MCT avg"] == "calibration"  # switch=complete (decision 317)
    assert roles["Table 6 FIFO_DD avg"] == "calibration"  # dd_request=received (316)
    text = fidelity.cbs3m_table([_run(30, base=1.25e6,
                                      reading="dd_request=idle;switch=dispatch")])
    roles = {r.figure: r.role for r in text.rows if re.fullmatch(r"003-T[4-8]", r.ref)}
    assert roles["Table 4 SPT_MCT avg"] == roles["Table 6 FIFO_DD avg"] == "validation"


def test_a_calibration_row_is_not_counted() -> None:
    table = fidelity.cbs3m_table([_run(30)])
    counts = table.counts()
    assert counts["calibration"] == sum(r.role == "calibration" for r in table.rows) > 0
    assert counts["rows"] + counts["calibration"] == len(table.rows)


def test_a_direction_within_its_paired_noise_is_undetermined() -> None:
    """At the seed's 1,000 instances, SRPT-MCT and CBS3M with the same sum-stretch
    distribution: "SRPT outperforms CBS3M" [003 L884] is within the paired noise."""
    run = _run(1000, base=1.25e6, reading="dd_request=idle;switch=dispatch",
               tie=("srpt-mct", "cbs3m-edf-online"))
    row = next(r for r in fidelity.cbs3m_table([run]).rows
               if r.ref == "003-L884d" and r.figure.startswith("Table 5: srpt-mct"))
    assert row.kind == "undetermined", row
    assert row.numbers["noise"] and abs(row.numbers["ours"]) < 2 * row.numbers["noise"]


def test_a_direction_at_a_reduced_size_with_one_instance_is_not_measured() -> None:
    """A half with one instance has no standard error: not a noise of 0 (which would
    decide the direction), but not measured."""
    table = fidelity.cbs3m_table([_run(3)])
    heavy = next(r for r in _by_ref(table, "003-L884c") if "heavy" in r.figure)
    assert heavy.kind == "not measured"


def test_both_profiles_of_one_store_are_judged_side_by_side() -> None:
    """``reproduce all`` puts the mpi and simgrid runs in one store: Table 3 from the
    first, Tables 4-8 from the second, each at its own size."""
    mpi = _run(4, profile="mpi", base=1.25e6)
    sim = _run(5)
    table = fidelity.cbs3m_table([sim, mpi])
    t3 = next(r for r in _by_ref(table, "003-T3") if r.figure.endswith("average"))
    assert "4 experiments" in t3.note and t3.role == "validation"
    t4 = next(r for r in _by_ref(table, "003-T4") if r.figure.endswith("avg"))
    assert t4.note.startswith("5 instances")
    assert table.size is not None and table.size.n == 5
    alone = fidelity.cbs3m_table([mpi])
    assert all(r.kind == "not measured" for r in _by_ref(alone, "003-T4"))


def test_runs_of_groups_a_store_by_setting() -> None:
    keys = [f'[0, "fifo-mct", "simgrid", 12500000.0, "{RECEIVED}"]',
            f'[1, "fifo-mct", "simgrid", 12500000.0, "{RECEIVED}"]',
            f'[0, "fifo-mct", "mpi", 1250000.0, "{RECEIVED}"]']
    rows = {0: {"seed": 0, "policy": "fifo-mct"}, 1: {"seed": 1, "policy": "fifo-mct"}}

    def rows_of(cells: list[Any]) -> list[dict[str, Any]]:
        return [rows[c[0]] for c in cells]
    runs = fidelity.runs_of(keys, rows_of)
    assert [r.setting.profile for r in runs] == ["simgrid", "mpi"]
    assert len(runs[0].rows) == 2 and runs[1].setting.literal


@pytest.mark.parametrize("ref", ["003-T3", "003-T4", "003-T5", "003-T6", "003-T7", "003-T8"])
def test_the_printed_values_are_the_manifests(ref: str) -> None:
    entry = next(e for e in manifest("003") if e.id == ref)
    if ref == "003-T3":
        for name, line, exps, avg in TABLE3.values():
            text = ",".join(c.text for c in exps)
            assert f"{name}/Exp1-Exp10={text}/Average={avg.text} (L{line})" in entry.values
        return
    number = int(ref[-1])
    metric = next(m for m, (n, _) in TABLES.items() if n == number)
    for row in TABLES[metric][1].values():
        cells = ",".join(c.text for c in (row.min, row.avg, row.sd, row.max, row.best))
        assert f"{row.name}/min,avg,sd,max,best%={cells} (L{row.line})" in entry.values


def test_a_mean_of_one_instance_is_not_judged() -> None:
    """One instance has no standard error: its mean is shown, not judged (a noise of 0
    would judge it against the seed's tolerance)."""
    table = fidelity.cbs3m_table([_run(1, base=1.25e6, reading="dd_request=idle;switch=dispatch"),
                                  _run(1, profile="mpi", base=1.25e6)])
    avg = next(r for r in _by_ref(table, "003-T4") if r.figure.endswith("CBS3M_EDF_ONLINE avg"))
    assert avg.ours and avg.verdict.startswith("not measured: reduced run (1 of 1,000 instances)")
    t3 = next(r for r in _by_ref(table, "003-T3") if r.figure.endswith("average"))
    assert t3.ours and t3.verdict.startswith("not measured: reduced run (1 of 10 experiments)")
    judged = [r for r in table.rows if r.role == "validation" and r.kind in (
        "match", "close", "undetermined") and r.ref.startswith(("003-T3", "003-T4"))]
    assert not judged, judged


def test_the_rr_dd_identity_is_calibration_only_under_the_rule_it_chose() -> None:
    """Decision 316 chose DD's ``received`` rule because it makes every RR row equal its DD
    row: the identity is no evidence under it; under ``idle`` it judges that reading."""
    chosen = _by_ref(fidelity.cbs3m_table([_run(5)]), "003-T4-rrdd")
    assert [r.role for r in chosen] == ["calibration"]
    idle = _by_ref(fidelity.cbs3m_table([_run(5, reading="dd_request=idle;switch=complete")]),
                   "003-T4-rrdd")
    assert [r.role for r in idle] == ["validation"]
    assert idle[0].verdict == "differs: cause measured (decision 316)"


def test_identical_values_on_a_reduced_run_are_no_noise_estimate() -> None:
    """MWMA-NBT at exactly 1.0 on every instance (Tables 6-7): a standard error of 0 from
    identical values is no estimate of the spread over 1,000; the average is not judged."""
    rows = [dict(r) for r in _rows(3)]
    for r in rows:
        if r["policy"] == "mwma-nbt":
            r["makespan"] = r["lp_bound"] * 0.5  # the best of every instance: exactly 1.0
    table = fidelity.cbs3m_table([fidelity.Run(fidelity.Setting("simgrid", 12.5e6, RECEIVED),
                                               tuple(rows))])
    avg = next(r for r in _by_ref(table, "003-T6") if r.figure.endswith("MWMA_NBT avg"))
    assert avg.ours == "1" and avg.verdict.startswith("not measured: reduced run"), avg


def test_generator_settings_hold_by_construction_with_the_seeds_digits() -> None:
    table = fidelity.cbs3m_table([_run(3), _run(2, profile="mpi", base=1.25e6)])
    for ref in ("003-T1", "003-T2", "003-S-mpi-size", "003-S-sim-size", "003-S-greedy",
                "003-S-algorithms"):
        assert all(r.kind == "holds by construction" for r in _by_ref(table, ref)), ref
    mean_log = next(r for r in _by_ref(table, "003-T2") if "mean in log" in r.figure)
    assert mean_log.seed_value == "4.0"
    srpt = next(r for r in _by_ref(table, "003-T3") if r.figure == "Table 3 SRPT MCT average")
    assert srpt.seed_value == "2.00"
