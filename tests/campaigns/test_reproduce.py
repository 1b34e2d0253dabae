"""Reduced reproductions (the full ones: ``lpsched reproduce faircamp | ostrich``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lpsched.campaigns import reproduce as exp
from lpsched.core import ResultStore, run_cells

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
EGEE = DATA / "LPC-EGEE-2004-1.2-cln.swf.gz"


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
    assert s["20"]["headline"] == {"fcfs": "fcfs-submission", "faircamp": "faircamp-packed",
                                   "ratio": s["20"][key]}
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


@pytest.mark.skipif(not EGEE.exists(), reason="LPC-EGEE trace not in ../shared/data")
def test_egee_reduced() -> None:
    """B24/B25 qualitatively on the first 30,000 jobs: OStrich puts far more campaigns at
    stretch 1 than the original log."""
    rows = []
    for pol in ("ostrich", "original"):
        rows += exp.ostrich_cell({"part": "egee", "trace": str(EGEE), "policy": pol,
                                  "deps": True, "limit": 30_000})
    s = exp.ostrich_summary(rows)["egee"]
    assert s["ostrich"]["share_1"] > 0.5 > s["original"]["share_1"]
    assert s["ostrich"]["share_below_1_5"] > s["original"]["share_below_1_5"]
