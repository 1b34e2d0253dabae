"""The reproduction, reduced (seed 004 §6.5, §7, spec §(a)); the full 1,500 x 19 run is
``lpsched reproduce ptg`` (benchmarks/RESULTS_ptg.md)."""

from __future__ import annotations

import pytest

from lpsched.core import ResultStore, run_cells
from lpsched.ptg import reproduce as exp


@pytest.fixture(scope="module")
def reduced() -> tuple[list, dict]:
    cells = exp.cells(10**4, 0, sets=2, n_values=(2, 4), clusters=("chti", "grillon"))
    store = ResultStore(":memory:")
    assert run_cells("ptg", cells, exp.cell_rows, store, progress=False) == len(cells) == 24
    assert run_cells("ptg", cells, exp.cell_rows, store, progress=False) == 0  # resumable
    rows = store.rows_of("ptg", cells)
    return rows, exp.summary(rows)


def test_rows_and_bounds(reduced: tuple[list, dict]) -> None:
    rows, summ = reduced
    assert len(rows) == 24 * 19
    assert summ["scenarios"] == 24 and summ["bounds_hold"] is True
    assert summ["ratios_to_selfish"]["selfish"] == {"makespan": 1.0, "ssct": 1.0,
                                                   "max_stretch": 1.0}
    box = summ["boxes"]["ssct"]["all"]["selfish"]
    assert box["min"] <= box["q1"] <= box["median"] <= box["q3"] <= box["max"]


def test_acceptance_checks_reduced(reduced: tuple[list, dict]) -> None:
    """On this reduced set (seeded, deterministic) checks 1, 6 and 7 of spec §(a) hold;
    2–4 do not (docs/decisions.md, "Multiple parallel task graphs"); 5 needs gdx."""
    _rows, summ = reduced
    checks = {c["check"][0]: c for c in summ["acceptance"]}
    assert sorted(checks) == list("1234567")
    assert checks["1"]["passed"] and checks["6"]["passed"] and checks["7"]["passed"]
    assert checks["6"]["values"]["share_of_cra_rows_N<=4"] > 0
    # SELFISH ORDER is much fairer than SELFISH (Fig. 4's ordering)
    assert summ["ratios_to_selfish"]["selfish-order"]["max_stretch"] < 0.5


def test_balanced_prefix() -> None:
    cells = exp.cells(60)
    assert {(c[0], c[1], c[3]) for c in cells} == {
        (cls, n, cl) for cls in ("random", "fft", "strassen") for n in (2, 4, 6, 8, 10)
        for cl in ("grelon", "grillon", "chti", "gdx")}
    assert len(exp.cells()) == 1500


def test_rank_difference(reduced: tuple[list, dict]) -> None:
    _rows, summ = reduced
    rd = summ["rank_difference"]
    assert set(rd) == {"ssct", "makespan", "max_stretch"}
    assert set(rd["ssct"]) == {"random", "fft", "strassen"}
    assert all(0 <= v <= 18 for m in rd.values() for v in m.values())
