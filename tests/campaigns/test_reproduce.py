"""Reduced reproductions (the full ones: ``lpsched reproduce faircamp | ostrich``)."""

from __future__ import annotations

import numpy as np
import pytest

from lpsched.campaigns import reproduce as exp
from lpsched.core import ResultStore, run_cells
from lpsched.errors import ParseError
from tests.shared_data import needs_shared, shared_file

EGEE = "LPC-EGEE-2004-1.2-cln.swf.gz"


def test_faircamp_reduced(tmp_path) -> None:
    """B16 qualitatively: FairCamp (both readings) below k; FCFS in stream order worse for
    large k, the gap growing with k; packed FairCamp vs FCFS in submission order about the
    same for k = 2 and better for k = 20 (decisions 91, 93, 303)."""
    cells = exp.faircamp_cells((2, 10, 20), instances=3, jobs=6000)
    store = ResultStore(tmp_path / "f.sqlite")
    assert run_cells("faircamp", cells, exp.faircamp_cell, store, progress=False) == 9
    assert run_cells("faircamp", cells, exp.faircamp_cell, store, progress=False) == 0
    s = exp.faircamp_summary(store.rows_of("faircamp", cells))
    for k in ("2", "10", "20"):
        assert s[k]["faircamp_block_below_k"] and s[k]["faircamp_packed_below_k"]
        assert s[k]["packed_deadlines_met"]
    key = "ratio_fcfs-generation_over_faircamp-block"
    assert s["20"][key] > s["10"][key] > 1.0
    assert 0.5 < s["2"][key] < 1.5
    key = "ratio_fcfs-submission_over_faircamp-packed"
    assert 0.8 < s["2"][key] < 1.25
    assert s["20"][key] > 1.0
    # the headline is the CLI's defaults, and FairCamp is not worse than FCFS for k >= 10
    head = s["20"]["headline"]
    assert {k: head[k] for k in ("fcfs", "faircamp", "ratio")} == {
        "fcfs": "fcfs-submission", "faircamp": "faircamp-packed", "ratio": s["20"][key]}
    assert head["ratio_se"] >= 0.0  # decision 430
    assert s["10"]["headline"]["ratio"] >= 1.0


def test_reproduction_names_the_variants_as_the_cli_does() -> None:
    from lpsched.cli import build_parser

    args = build_parser().parse_args(["campaigns", "run", "w.json", "--policy", "faircamp"])
    assert (args.faircamp_mode, args.fcfs_order) == ("packed", "submission")
    assert exp.HEADLINE == ("fcfs-submission", "faircamp-packed")
    assert set(exp.FAIRCAMP_POLICIES) == {f"faircamp-{m}" for m in ("packed", "block")} | {
        f"fcfs-{o}" for o in ("submission", "generation")}


def test_profiles_reduced() -> None:
    """B27/B28 qualitatively: OStrich gives short-job users a far lower max-stretch than
    FCFS and leaves fewer campaigns above 20."""
    rows = []
    for seed in range(2):
        rows += exp.ostrich_cell({"part": "profiles", "seed": seed, "jobs": 3000,
                                  "users": 10})
    s = exp.ostrich_summary(rows)["profiles"]
    assert s["ostrich"]["short_max_stretch"] < s["fcfs"]["short_max_stretch"]
    assert s["ostrich"]["above_20"] <= s["fcfs"]["above_20"]


@needs_shared(EGEE)
def test_egee_reduced() -> None:
    """B24/B25 qualitatively on the first 30,000 jobs: OStrich puts far more campaigns at
    stretch 1 than the original log."""
    rows = []
    for pol in ("ostrich", "original"):
        rows += exp.ostrich_cell({"part": "egee", "trace": str(shared_file(EGEE)), "policy": pol,
                                  "deps": True, "limit": 30_000})
    s = exp.ostrich_summary(rows)["egee"]
    assert s["ostrich"]["share_1"] > 0.5 > s["original"]["share_1"]
    assert s["ostrich"]["share_below_1_5"] > s["original"]["share_below_1_5"]


# -- B26: utilisation over the Dec-Jan extract, with and without dependencies ------------

def test_utilisation_series_exact() -> None:
    """Two jobs on m = 4, bins of 10 over [0, 25): the last bin is 5 long."""
    import numpy as np

    from lpsched.campaigns.metrics import utilisation_series

    u = utilisation_series(np.array([2, 1]), np.array([0.0, 5.0]), np.array([15.0, 30.0]),
                           4, 0.0, 25.0, 10.0)
    assert u.tolist() == [25 / 40, 20 / 40, 5 / 20]
    # a window starting inside a job, and one with no job at all
    assert utilisation_series(np.array([4]), np.array([0.0]), np.array([10.0]), 4, 5.0, 20.0,
                              5.0).tolist() == [1.0, 0.0, 0.0]


EGEE_HEADER = """; UnixStartTime: 1091615532
; TimeZoneString: Europe/Paris
; MaxProcs: 140
1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1
"""


def test_dec_jan_window_of_the_egee_header(tmp_path) -> None:
    """Dec 1, 2004 00:00 CET = 1101855600 (Unix); Feb 1, 2005 00:00 CET = 1107212400; the
    log starts at 1091615532 (Aug 4, 2004 12:32:12 CEST): 62 days."""
    from lpsched.core.swf import read_swf

    path = tmp_path / "h.swf"
    path.write_text(EGEE_HEADER)
    t0, t1, start = exp.dec_jan_window(read_swf(path))
    assert (t0, t1) == (1101855600 - 1091615532, 1107212400 - 1091615532)
    assert t1 - t0 == 62 * 86400 and start == "2004-12-01T00:00:00+01:00"
    path.write_text(EGEE_HEADER.replace("TimeZoneString: Europe/Paris", "X: y"))
    assert exp.dec_jan_window(read_swf(path))[0] == 1101859200 - 1091615532   # UTC
    path.write_text(EGEE_HEADER.replace("UnixStartTime", "Other"))
    assert exp.dec_jan_window(read_swf(path)) is None


def _rows(series: dict) -> list[dict]:
    return [{"part": "egee", "policy": k.split("-")[0], "deps": not k.endswith("nodeps"),
             "series_start": "2004-12-01T00:00:00+01:00", "series_t0": 100.0,
             "utilisation_dec_jan": v} for k, v in series.items()]


def test_b26_check_hand_made() -> None:
    """Same work (mean 0.3 over 5 hours), concentrated without dependencies: over its own
    hours above 10% no-deps averages 0.75, with deps 0.5 (ratio 1.5, +25 points: holds);
    hour by hour where deps is above 10%, no-deps is lower on average (paired: fails)."""
    rows = _rows({"ostrich": [0.5, 0.5, 0.5, 0.0, 0.0],
                  "ostrich-nodeps": [0.75, 0.75, 0.0, 0.0, 0.0]})
    b = exp.b26_check(rows)
    assert b["with_deps"]["mean_when_above_10"] == 0.5
    assert b["no_deps"]["mean_when_above_10"] == 0.75
    assert b["ratio"] == 1.5 and b["holds"] and b["holds_absolute_20_points"]
    assert b["paired"]["hours"] == 3 and b["paired"]["ratio"] == 1.0
    assert not b["paired"]["holds"] and b["paired"]["share_hours_20pct_higher"] == 2 / 3
    assert not b["no_deps_more_homogeneous"]
    rows = _rows({"ostrich": [0.5, 0.5], "ostrich-nodeps": [0.55, 0.55]})
    assert not exp.b26_check(rows)["holds"]                  # 10% higher only
    assert exp.b26_check(_rows({"ostrich": [0.5]})) is None  # no no-deps series
    assert exp.b26_check([]) is None
    table = exp.ostrich_series_rows(_rows({"ostrich": [0.5, 0.25], "original": [0.0, 1.0]}))
    assert table == [
        {"hour": 0, "log_seconds": 100.0, "date": "2004-12-01T00:00:00+01:00",
         "ostrich": 0.5, "original": 0.0},
        {"hour": 1, "log_seconds": 3700.0, "date": "2004-12-01T01:00:00+01:00",
         "ostrich": 0.25, "original": 1.0}]


@needs_shared(EGEE)
def test_b26_reduced() -> None:
    """B26 on three weeks of December (jobs 76,308-95,778 of LPC-EGEE): the series covers
    Dec-Jan by the hour; the original log's series equals a brute-force computation from
    the SWF times; OStrich without dependencies reaches 100% in more hours than with them
    (Fig. 5.11 vs 5.10) and the check is computed."""
    import itertools

    import numpy as np

    from lpsched.core.swf import read_swf

    rows = []
    for pol, deps in (("ostrich", True), ("ostrich", False), ("original", True)):
        rows += exp.ostrich_cell({"part": "egee", "trace": str(shared_file(EGEE)), "policy": pol,
                                  "deps": deps, "limit": 19_471, "first": 76_308,
                                  "series": exp.SERIES})
    series = {f"{r['policy']}{'' if r['deps'] else '-nodeps'}":
              np.array(r["utilisation_dec_jan"]) for r in rows}
    assert {v.size for v in series.values()} == {62 * 24}
    assert all(v.min() >= 0 and v.max() <= 1 + 1e-6 for v in series.values())
    c = read_swf(shared_file(EGEE)).columns
    sel = slice(76_308, 76_308 + 19_471)
    keep = c["run"][sel] > 0
    start = (c["submit"][sel] + np.maximum(c["wait"][sel], 0))[keep]
    end = start + c["run"][sel][keep]
    t0 = 1101855600.0 - 1091615532.0
    edges = t0 + 3600.0 * np.arange(62 * 24 + 1)
    brute = np.array([np.sum(np.clip(np.minimum(end, b) - np.maximum(start, a), 0, None))
                      for a, b in itertools.pairwise(edges)]) / (140 * 3600.0)
    assert np.allclose(series["original"], brute, atol=2e-6)
    b = exp.b26_check(rows)
    assert b["no_deps"]["hours_at_100"] > b["with_deps"]["hours_at_100"]
    assert isinstance(b["holds"], bool) and b["window"]["hours"] == 62 * 24
    # the same work inside the window (jobs end well before February)
    assert series["ostrich"].sum() == pytest.approx(series["ostrich-nodeps"].sum(), rel=1e-6)


# -- defaults, the B28 criterion and the seed-vs-ours tables of the store (decision 302) --

def test_reproduction_defaults() -> None:
    """Each reproduction's default: FairCamp's headline (decisions 91, 93), OStrich's
    status (300) and user-count sweep (302), equal in the CLI and the module."""
    from lpsched.cli import build_parser
    from lpsched.cli import campaigns as cli

    assert exp.HEADLINE == ("fcfs-submission", "faircamp-packed")
    assert exp.PROFILE_USERS == cli.PROFILE_USERS == (5, 10, 20, 40)
    assert exp.PROFILE_DEFAULT_USERS == cli.PROFILE_DEFAULT_USERS == 10
    args = build_parser().parse_args(["reproduce", "ostrich"])
    assert (args.status, args.users, args.users_per_instance) == ("all", "5,10,20,40", None)
    args = build_parser().parse_args(["reproduce", "faircamp"])
    assert args.users == "2,3,5,10,20"
    cells = exp.ostrich_cells("t.swf", instances=2)
    assert sorted({c["users"] for c in cells if c["part"] == "profiles"}) == [5, 10, 20, 40]
    assert not any("status" in c for c in cells if c["part"] == "egee")  # the default
    cells = exp.ostrich_cells("t.swf", instances=1, status="completed")
    assert all(c["status"] == "completed" for c in cells if c["part"] == "egee")


def test_b28_distance_criterion() -> None:
    """Decision 302's criterion: 0 at the seed's values (short FCFS above 50 costs
    nothing), and the log distance otherwise."""
    prof = {"fcfs": {"short_max_stretch": 80.0, "long_max_stretch": 6.3},
            "ostrich": {"short_max_stretch": 12.8, "long_max_stretch": 6.8}}
    assert exp.b28_distance(prof) == pytest.approx(0.0)
    prof["fcfs"]["short_max_stretch"] = 25.0
    prof["ostrich"]["long_max_stretch"] = 13.6
    assert exp.b28_distance(prof) == pytest.approx(2 * np.log(2.0))
    assert exp.b28_distance({"fcfs": {}}) is None


def test_ostrich_summary_and_table_on_a_small_store(tmp_path) -> None:
    """The profile sweep through the runner's store: the summary reports the default user
    count (decision 302), and the seed-vs-ours table built from the same stored rows
    (:func:`lpsched.campaigns.fidelity.build_table`) has its B28 rows as calibration, a
    reduced run's judged by no verdict."""
    from lpsched.campaigns.fidelity import build_table

    cells = [c for c in exp.ostrich_cells("unused.swf", instances=2, jobs=400,
                                          users=(4, 10)) if c["part"] == "profiles"]
    store = ResultStore(tmp_path / "o.sqlite")
    run_cells("ostrich", cells, exp.ostrich_cell, store, progress=False)
    rows = store.rows_of("ostrich", cells, exp.ROW_SCHEMAS["ostrich"])
    summary = exp.ostrich_summary(rows)
    assert set(summary["profiles_sweep"]) == {"4", "10"} and summary["profiles_users"] == 10
    assert summary["criterion_users"] in (4, 10)
    sweep = exp.profiles_sweep_rows(summary)
    assert [r["users"] for r in sweep] == [4, 10] and [r["default"] for r in sweep] == [
        False, True]
    assert sweep[1]["fcfs_campaigns"] == summary["profiles"]["fcfs"]["campaigns"]
    table = build_table("ostrich", rows, cells)
    b28 = [r for r in table.rows if r.ref in ("002-L1419-short", "002-L1419-long")]
    assert len(b28) == 4 and all(r.role == "calibration" for r in b28)
    # 2 of the seed's 40 instances of 400 jobs: the values are shown, never judged
    assert all(r.ours and r.verdict.startswith("not measured") for r in b28)
    # a sweep without the reported count reports none; a single count run is the one reported
    only4 = exp.ostrich_summary([r for r in rows if r["users"] == 4])
    assert only4["profiles_users"] == 4
    both = exp.ostrich_summary([r for r in rows if r["users"] == 4]
                               + [dict(r, users=5) for r in rows if r["users"] == 4])
    assert both["profiles_users"] is None


def test_faircamp_table_on_a_small_store(tmp_path) -> None:
    """B16-B17 through the runner's store and
    :func:`lpsched.campaigns.fidelity.build_table`: a k not run is not measured with the
    reason, the k = 2 headline row shows the summary's ratio, one CSV line per row."""
    from lpsched.campaigns.fidelity import build_table

    cells = exp.faircamp_cells((2, 20), instances=2, jobs=2000)
    store = ResultStore(tmp_path / "f.sqlite")
    run_cells("faircamp", cells, exp.faircamp_cell, store, progress=False)
    rows = store.rows_of("faircamp", cells)
    summary = exp.faircamp_summary(rows)
    table = build_table("faircamp", rows, cells)
    by = {r.figure: r for r in table.rows}
    assert table.filename == "faircamp_vs_seed.csv"
    for k in (3, 5, 10):
        for reading in ("packed, calibration", "blocks"):
            row = by[f"FCFS/FairCamp mean max-stretch, k = {k} ({reading})"]
            assert row.verdict == f"not measured: k = {k} not run" and row.ours == ""
    r2 = by["FCFS/FairCamp mean max-stretch, k = 2 (packed, calibration)"]
    assert r2.role == "calibration"
    assert float(r2.ours) == pytest.approx(summary["2"]["headline"]["ratio"], abs=5e-4)
    csv = table.csv_text().splitlines()
    assert csv[0].startswith("ref,source,figure,seed_line") and len(csv) == len(table.rows) + 1


def test_faircamp_zipf_exponent_reading() -> None:
    """The prose's Zipf exponent ([L1136], decision 303) is a cell parameter; the default
    (1.4267, [L1124]) leaves the store keys of before unchanged."""
    from lpsched.cli import build_parser

    assert build_parser().parse_args(["reproduce", "faircamp"]).zipf_exponent == 1.4267
    assert all("exponent" not in c for c in exp.faircamp_cells((2,), instances=2))
    cells = exp.faircamp_cells((5,), instances=1, jobs=300, exponent=1.0)
    assert cells[0]["exponent"] == 1.0
    rows = exp.faircamp_cell(cells[0])
    default = exp.faircamp_cell(exp.faircamp_cells((5,), instances=1, jobs=300)[0])
    assert {r["policy"] for r in rows} == set(exp.FAIRCAMP_POLICIES)
    assert [r["max_user_stretch"] for r in rows] != [r["max_user_stretch"] for r in default]


def test_check_trace_looks_at_the_replayed_jobs_only(tmp_path) -> None:
    """``reproduce ostrich --limit N`` replays the first N jobs: the check does too."""
    path = tmp_path / "t.swf"
    path.write_text("; MaxProcs: 4\n"
                    "1 0 0 0 1 -1 -1 1 -1 -1 1 7 1 -1 -1 -1 -1 -1\n"
                    "2 5 0 9 1 -1 -1 1 -1 -1 1 7 1 -1 -1 -1 -1 -1\n")
    exp.check_trace(str(path))  # job 2 can be placed
    with pytest.raises(ParseError, match="its only job was left out"):
        exp.check_trace(str(path), limit=1)
    with pytest.raises(ParseError, match="1 status 1 not selected"):
        exp.check_trace(str(path), status="failed", limit=1)


def test_ratio_standard_error_of_paired_instances() -> None:
    """Decision 430: the delta-method standard error of mean(a)/mean(b) is 0 when a is
    exactly r*b, and matches a hand computation otherwise."""
    b = np.array([2.0, 4.0, 6.0])
    assert exp._ratio_se(1.5 * b, b, 1.5) == 0.0
    a = np.array([3.0, 5.0, 10.0])
    r = a.mean() / b.mean()
    resid = a - r * b  # [0.0, -1.0, 1.0]: sd 1
    assert exp._ratio_se(a, b, r) == pytest.approx(np.std(resid, ddof=1) / (np.sqrt(3) * 4))
    assert exp._ratio_se(a[:1], b[:1], r) == 0.0
