"""The one verdict rule of every seed-vs-ours table (lpsched.core.fidelity): values, directions
against their noise, ranges without slack but a grid's, joint ranges, reduced runs, extremes,
rows that hold by construction, the two kinds of difference, and the tally."""

from __future__ import annotations

import csv
import io
import math

import pytest

from lpsched.core.fidelity import (
    KINDS,
    Bound,
    FidelityTable,
    Gap,
    Range,
    Size,
    compare,
    compare_all,
    kind_of,
    mean_and_se,
    not_measured,
    paired_se,
)


def test_value_rule_match_close_differs() -> None:
    assert compare("a", "L1", 1.0, 1.04, tolerance=0.05).verdict == "match"
    assert compare("a", "L1", 1.0, 1.09, tolerance=0.05).verdict == "close"
    assert compare("a", "L1", 1.0, 1.2, tolerance=0.05).verdict == "differs: not reproduced"
    measured = compare("a", "L1", 1.0, 1.2, tolerance=0.05, gap=Gap(7, measured=True))
    assert measured.verdict == "differs: cause measured (decision 7)"
    tried = compare("a", "L1", 1.0, 1.2, tolerance=0.05, gap=Gap(9, readings=4))
    assert tried.verdict == "differs: not reproduced (decision 9: 4 readings tried)"


def test_noise_widens_a_value_only_at_the_seeds_size() -> None:
    full = compare("a", "L1", 1.0, 1.15, tolerance=0.05, noise=0.08)  # band 0.16
    assert full.verdict == "match" and full.tolerance == "0.16"
    red = compare("a", "L1", 1.0, 1.04, tolerance=0.05, noise=0.01, size=Size(12, 1000))
    assert red.verdict == "match" and red.tolerance == "0.05"
    wide = compare("a", "L1", 1.0, 1.0, tolerance=0.05, noise=0.03, size=Size(12, 1000))
    assert wide.verdict == "not measured: reduced run (12 of 1,000 instances)"


def test_a_direction_must_clear_its_noise() -> None:
    above = Bound(">", 1.0)
    assert compare("d", "L1", above, 0.992, noise=0.001).kind == "differs: not reproduced"
    assert compare("d", "L1", above, 0.992, noise=0.01).verdict == "undetermined"
    assert compare("d", "L1", above, 1.05, noise=0.01).verdict == "match"
    assert compare("d", "L1", Bound("<", 1.0), 1.018, noise=0.02).verdict == "undetermined"
    assert compare("d", "L1", Bound("<", 1.0), 1.018).kind == "differs: not reproduced"
    assert compare("d", "L1", Bound("<", 1.0), 1.0).verdict == "undetermined"
    reduced = compare("d", "L1", above, 1.01, noise=0.01, size=Size(2, 30))
    assert reduced.verdict == "not measured: reduced run (2 of 30 instances)"
    with pytest.raises(ValueError, match="no tolerance"):
        compare("d", "L1", above, 1.0, tolerance=0.01)


def test_a_range_has_no_slack_but_a_grids() -> None:
    assert compare("r", "L1", Range(5, 30), 30).verdict == "match"
    assert compare("r", "L1", Range(5, 30), 35).kind == "differs: not reproduced"
    grid = [0, 5, 10, 15, 20]
    nearest = compare("r", "L1", Range(12, 14), 15, grid=grid)
    assert nearest.verdict == "match" and "nearest values 10 and 15 match" in nearest.note
    assert compare("r", "L1", Range(12, 14), 10, grid=grid).verdict == "match"
    assert compare("r", "L1", Range(12, 14), 20, grid=grid).kind.startswith("differs")
    # only the grid's own values stand for the range: nothing in between, either side
    assert compare("r", "L1", Range(12, 14), 11, grid=grid).kind.startswith("differs")
    assert compare("r", "L1", Range(12, 14), 14.5, grid=grid).kind.startswith("differs")


def test_a_joint_range_needs_every_line() -> None:
    ok = compare_all("j", "001 L158", Range(5, 30), {"fcfs cont": 10, "easy quasi": 25},
                     unit="%")
    assert ok.verdict == "match" and ok.ours == "10–25 % over 2 lines"
    bad = compare_all("j", "001 L158", Range(5, 30), {"fcfs cont": 35, "easy quasi": 25},
                      unit="%")
    assert bad.kind == "differs: not reproduced" and "fcfs cont" in bad.note
    assert compare_all("j", "L", Range(5, 30), {"a": 10, "b": None}).kind == "not measured"
    # a line not judged at a reduced size leaves the joint row not judged, never "differs"
    noisy = compare_all("j", "L", Range(5, 30), {"a": 10, "b": 40}, noise=20.0,
                        size=Size(3, 30))
    assert noisy.verdict.startswith("not measured: reduced run (3 of 30")


def test_extremes_are_never_judged_on_reduced_runs() -> None:
    reduced = compare("m", "L1", 1.93, 1.18, tolerance=0.1, statistic="max",
                      size=Size(40, 1000))
    assert reduced.verdict == "not measured: reduced run (40 of 1,000 instances)"
    full = compare("m", "L1", 1.93, 1.18, tolerance=0.1, statistic="max",
                   size=Size(1000, 1000))
    assert full.kind == "differs: not reproduced"


def test_a_sampled_statistic_without_noise_is_not_judged_on_a_reduced_run() -> None:
    """One instance, or no noise computed: a mean, median, share or direction of it says
    nothing about the seed's population; a deterministic value (a setting, a count of the
    trace) is judged as is."""
    one = compare("m", "L1", 1.35, 1.34, tolerance=0.05, size=Size(1, 1000))
    assert one.verdict.startswith("not measured: reduced run (1 of 1,000 instances)")
    side = compare("d", "L1", Bound(">", 0), 20.7, size=Size(1, 40))
    assert side.verdict.startswith("not measured: reduced run")
    setting = compare("m", "L1", 10, 10, statistic="value", size=Size(1, 1000))
    assert setting.verdict == "match"
    assert compare("m", "L1", 1.35, 1.34, tolerance=0.05).verdict == "match"  # seed's size
    echo = compare("m", "L1", 10, 10, size=Size(1, 1000), construction="the generator's m")
    assert echo.kind == "holds by construction"


def test_a_row_that_cannot_fail_says_so() -> None:
    row = compare("be", "000 L3038", Bound(">", 99.6), 100.0,
                  construction="the count-profile planner never moves a start")
    assert row.verdict.startswith("holds by construction: the count-profile")
    assert row.kind == "holds by construction"


def test_labels_and_rows_not_measured() -> None:
    assert compare("o", "L", "a < b", "A<B").verdict == "match"
    swapped = compare("o", "L", "a < b", "b < a", gap=Gap(3, measured=True))
    assert swapped.kind == "differs: cause measured"
    nm = not_measured("x", "L", 5.0, "trace missing", ref="000-T3.1", source="Table 3.1")
    assert nm.verdict == "not measured: trace missing" and nm.tolerance == "—"
    assert nm.ref == "000-T3.1" and nm.source == "Table 3.1"
    with pytest.raises(TypeError):
        compare("o", "L", "a", 1.0)


def test_the_tally_counts_validation_rows_calibration_apart() -> None:
    rows = [compare("a", "L", 1.0, 1.0), compare("b", "L", 1.0, 9.0, role="calibration"),
            compare("c", "L", Bound("<", 1), 0.5), not_measured("d", "L", 1.0, "x"),
            compare("e", "L", Bound("<", 1), 1.0)]
    table = FidelityTable("t", rows, Size(10, 100))
    counts = table.counts()
    assert counts["rows"] == 4 and counts["match"] == 2 and counts["undetermined"] == 1
    assert counts["not measured"] == 1 and counts["calibration"] == 1
    assert sum(counts[k] for k in KINDS) == counts["rows"]
    assert table.summary().startswith(
        "t vs seed, 10 of 100 instances: 4 validation rows: match 2;")
    parsed = list(csv.DictReader(io.StringIO(table.csv_text())))
    assert parsed[0]["ref"] == "" and parsed[1]["role"] == "calibration"
    assert table.to_dict()["size"] == {"n": 10, "seed_n": 100, "unit": "instances"}


def test_kinds_and_noise_helpers() -> None:
    for kind in KINDS:
        assert kind_of(kind) == kind
    assert kind_of("not measured: reduced run (1 of 2 instances)") == "not measured"
    with pytest.raises(ValueError):
        kind_of("explained")
    mean, se = mean_and_se([1.0, 2.0, 3.0])
    assert mean == 2.0 and se == pytest.approx(1 / math.sqrt(3))
    assert paired_se([1, 2, 3], [1, 1, 1]) == pytest.approx(se)
    assert mean_and_se([1.0])[1] is None


def test_a_wide_table_fits_a_terminal() -> None:
    label = "Table 5.4 SDSC Blue best-effort local: mean waits over basic's, 30 instances"
    rows = [compare(label, "000 L2944", Bound(">", 1.0), 0.992, noise=0.001,
                    gap=Gap(251, measured=True), note="n" * 30),
            compare("T4", "003 L908", 1.163, 1.12, tolerance=0.05)]
    text = FidelityTable("w", rows).format()
    assert max(map(len, text.splitlines())) <= 100 and label in text.splitlines()
