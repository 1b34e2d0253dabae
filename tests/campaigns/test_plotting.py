"""The seed 002 figures (lpsched.campaigns.plotting.FIGURES): one per figure entry the rows
allow, the seed's printed values beside ours as markers labelled "seed", nothing drawn
from rows that do not hold the figure's data."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("matplotlib")

from lpsched.campaigns import plotting
from lpsched.campaigns.reproduce import faircamp_cell
from lpsched.report.manifest import manifest


def faircamp_rows() -> list[dict[str, Any]]:
    return [r for k in (2, 20) for s in range(2)
            for r in faircamp_cell({"k": k, "seed": s, "jobs": 300})]


def ostrich_rows() -> list[dict[str, Any]]:
    hist = [50, 10, 5] + [1] * 18
    egee = [{"part": "egee", "policy": p, "deps": d, "histogram_0_15": hist, "share_1": 0.5,
             "share_1_15": 0.6, "share_below_1_5": 0.7, "series_start": "2004-12-01",
             "utilisation_dec_jan": [0.1, 0.5, 1.0, 0.0]}
            for p, d in (("ostrich", True), ("ostrich", False), ("original", True))]
    prof = [{"part": "profiles", "seed": s, "policy": p, "users": 10, "campaigns": 100,
             "below_2": 40, "above_20": 5, "short_max_stretch": 20.0, "long_max_stretch": 6.0}
            for s in range(2) for p in ("fcfs", "ostrich")]
    return egee + prof


def labels(fig: Any) -> set[str]:
    return {t.get_text() for ax in fig.axes if ax.get_legend()
            for t in ax.get_legend().get_texts()}


def test_every_figure_entry_but_the_whole_trace_and_the_proof_has_a_drawing() -> None:
    figures = {e.id for e in manifest("002") if e.kind == "figure"}
    assert set(plotting.FIGURES) == figures - {"002-F5.2", "002-F5.7", "002-F5.8"}
    assert plotting.FROM_STORE < set(plotting.FIGURES)


@pytest.mark.parametrize("ref", sorted(plotting.FIGURES))
def test_each_figure_draws_with_the_seeds_values(ref: str) -> None:
    rows = faircamp_rows() if ref.startswith("002-F4") else ostrich_rows()
    fig = plotting.FIGURES[ref](rows)
    assert fig is not None and fig.axes
    shown = labels(fig)
    if ref in ("002-F4.1", "002-F4.3", "002-F5.1", "002-F5.5", "002-F5.6", "002-F5.12",
               "002-F5.13"):
        assert any(s.startswith("seed") for s in shown), (ref, shown)
    if ref == "002-F4.4":
        assert any("seed: FairCamp in [5, 13]" in s for s in shown)


@pytest.mark.parametrize("ref", sorted(plotting.FROM_STORE - {"002-F4.3", "002-F4.4"}))
def test_rows_without_the_data_draw_nothing(ref: str) -> None:
    assert plotting.FIGURES[ref]([]) is None
