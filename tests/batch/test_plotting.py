"""The batch figures (lpsched.batch.plotting): each draws a PNG whose legend names what
the seed's text states beside ours (labelled "seed"), with the seed's log scale where the
values allow it."""

from __future__ import annotations

from pathlib import Path

import pytest

from lpsched.batch import plotting

pytest.importorskip("matplotlib")


@pytest.fixture
def legends(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The legend labels and y scales of every figure saved (read before it is closed)."""
    seen: list[list[str]] = []
    real = plotting._save

    def save(fig, path):  # type: ignore[no-untyped-def]
        for ax in fig.axes:
            _, labels = ax.get_legend_handles_labels()
            seen.append([*labels, f"yscale={ax.get_yscale()}"])
        real(fig, path)

    monkeypatch.setattr(plotting, "_save", save)
    return seen


def test_scatter_draws_the_diagonal_as_the_seeds(tmp_path: Path, legends) -> None:
    path = tmp_path / "s.png"
    plotting.scatter_figure({"kth_sp2": ([1.0, 2.0], [1.1, 1.9]), "hpc2n": ([3.0], [2.0])},
                            "basic", "beplat", "Figure 5.9", path)
    assert path.stat().st_size > 1000
    assert ["ours (2 instances)", "seed: y = x", "yscale=linear"] in legends


def test_bars_mark_the_side_of_1_the_seed_states(tmp_path: Path, legends) -> None:
    path = tmp_path / "b.png"
    bars = {"sdsc_blue": {"beloc": 0.95, "becont": 0.9}, "kth_sp2": {"beloc": None,
                                                                     "becont": 1.1}}
    plotting.bars_figure(bars, "sum flow / basic's", "Figure 5.8", path,
                         {("sdsc_blue", "beloc"): ">", ("sdsc_blue", "becont"): "<"})
    labels = legends[0]
    assert "seed: above 1" in labels and "seed: below 1" in labels
    assert {"beloc", "becont"} <= set(labels) and path.stat().st_size > 1000


def test_curves_shade_the_seeds_range_on_a_log_axis(tmp_path: Path, legends) -> None:
    path = tmp_path / "c.png"
    panels = {"FCFS": {"contiguous": [(0.0, 300.0), (20.0, 90.0)],
                       "non-contiguous": [(0.0, 100.0), (20.0, 100.0)]}}
    plotting.curves_figure(panels, "mean total time (min)", "Figure 4", path,
                           band=(5.0, 30.0))
    assert "seed: break-even 5–30 %" in legends[0] and "yscale=log" in legends[0]
    zero = {"EASY": {"contiguous": [(0.0, 0.0), (20.0, 5.0)]}}
    plotting.curves_figure(zero, "mean wait (min)", "Figure 5", tmp_path / "z.png")
    assert "yscale=linear" in legends[1]  # a wait of 0 cannot sit on a log axis


def test_boxes_print_the_seeds_ranking(tmp_path: Path, legends) -> None:
    path = tmp_path / "x.png"
    plotting.boxes_figure({"basic": [50.0, 55.0], "best-effort local": [88.0, 90.0]},
                          "local jobs (%)", "Figure 4.11", path, "best-effort local highest")
    assert path.stat().st_size > 1000 and "mean (ours)" in legends[0]
