"""Reduced reproductions (the full ones: ``lpsched reproduce faircamp | ostrich``)."""

from __future__ import annotations

import pytest

from lpsched.campaigns import reproduce as exp
from lpsched.core import ResultStore, run_cells
from tests.shared_data import needs_shared, shared_file

EGEE = "LPC-EGEE-2004-1.2-cln.swf.gz"


def test_faircamp_reduced(tmp_path) -> None:
    """B16 qualitatively: FairCamp (both readings) below k; FCFS in stream order worse for
    large k, the gap growing with k; packed FairCamp vs FCFS in submission order about the
    same for k = 2 and better for k = 20 (numbers: benchmarks/RESULTS.md, Issue 11)."""
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
