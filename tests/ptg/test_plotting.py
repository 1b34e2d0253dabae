"""The seed 004 figures (lpsched.ptg.plotting): what is drawn, not how it looks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lpsched.ptg.generators import fft_ptg, strassen_ptg
from lpsched.ptg.model import get_cluster
from lpsched.ptg.problem import Problem
from lpsched.ptg.registry import run
from lpsched.ptg.reproduce import pareto_front

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from lpsched.ptg import plotting  # noqa: E402


@pytest.fixture(scope="module")
def result() -> tuple[Problem, object]:
    pb = Problem([fft_ptg(4, seed=1, name="f"), strassen_ptg(seed=2, name="s")],
                 get_cluster("chti"))
    return pb, run(pb, "cafm-k-shelves")


def test_gantt_draws_one_bar_per_task_and_processor(result: tuple) -> None:
    pb, r = result
    fig, ax = plt.subplots()
    plotting.draw_gantt(ax, r.schedule, pb.P, "t", labels=["f", "s"])
    (bars,) = ax.collections
    assert len(bars.get_paths()) == int(r.schedule.alloc.sum()) > 0
    assert ax.get_xlim() == (0, r.schedule.makespan) and ax.get_ylim() == (0, pb.P)
    # each bar has its PTG's colour
    colours = {tuple(c) for c in bars.get_facecolors()}
    assert len(colours) == 2
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["f", "s"]
    plt.close(fig)


def test_gantt_file(result: tuple, tmp_path: Path) -> None:
    pb, r = result
    plotting.gantt(r.schedule, pb.P, tmp_path / "g.png", "k shelves")
    assert (tmp_path / "g.png").stat().st_size > 1000


def test_pareto_plot_marks_the_front() -> None:
    pts = {"a": (1.0, 3.0), "b": (2.0, 1.0), "c": (2.5, 2.0), "d": (3.0, 0.5)}
    front = pareto_front(pts)
    assert front == ["a", "b", "d"]
    fig, ax = plt.subplots()
    plotting.pareto_plot(ax, pts, front, "x", "y", "t")
    red = matplotlib.colors.to_rgba("C3")
    marked = {t.get_text() for t, col in zip(ax.texts, ax.collections, strict=True)
              if np.allclose(col.get_facecolors()[0], red)}
    assert marked == {"a", "b", "d"}
    (stair,) = ax.lines  # the staircase through the front, sorted by x
    assert list(stair.get_xdata()) == [1.0, 2.0, 3.0]
    plt.close(fig)


def _saved_figures(monkeypatch: pytest.MonkeyPatch) -> list:
    """Every figure saved from now on (``Figure.savefig`` still writes the file)."""
    from matplotlib.figure import Figure

    saved: list = []
    real = Figure.savefig

    def spy(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        saved.append(self)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", spy)
    return saved


def _legend_texts(fig) -> list[str]:
    (ax,) = fig.axes
    legend = ax.get_legend()
    assert legend is not None, "the Gantt chart has no legend"
    return [t.get_text() for t in legend.get_texts()]


def test_saved_gantt_has_one_legend_entry_per_ptg(result: tuple, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    pb, r = result
    saved = _saved_figures(monkeypatch)
    plotting.gantt(r.schedule, pb.P, tmp_path / "named.png", "t", [g.name for g in pb.ptgs])
    plotting.gantt(r.schedule, pb.P, tmp_path / "plain.png", "t")
    assert [_legend_texts(f) for f in saved] == [["f", "s"], ["PTG 0", "PTG 1"]]
    # each entry in its PTG's bar colour
    handles = saved[0].axes[0].get_legend().legend_handles
    bars = saved[0].axes[0].collections[0].get_facecolors()
    colours = {tuple(np.round(c, 6)) for c in bars}
    assert {tuple(np.round(h.get_facecolor(), 6)) for h in handles} == colours


def test_cli_gantt_legend_names_every_graph(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """``lpsched ptg schedule A B --gantt out.png``: the saved chart's legend names each
    PTG (two files with the same graph name: the files as typed)."""
    from lpsched.cli import main
    from lpsched.ptg.io import to_json

    a, b, c = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    a.write_text(to_json(fft_ptg(4, seed=1, name="fft")))
    b.write_text(to_json(strassen_ptg(seed=2, name="strassen")))
    c.write_text(to_json(fft_ptg(4, seed=3, name="fft")))
    saved = _saved_figures(monkeypatch)
    out = tmp_path / "g.png"
    assert main(["ptg", "schedule", str(a), str(b), "--cluster", "chti", "--algorithm",
                 "selfish", "--no-lp", "--gantt", str(out)]) == 0
    assert out.stat().st_size > 1000 and _legend_texts(saved[-1]) == ["fft", "strassen"]
    assert main(["ptg", "schedule", str(a), str(b), str(c), "--cluster", "chti",
                 "--algorithm", "selfish", "--no-lp", "--gantt", str(out)]) == 0
    assert _legend_texts(saved[-1]) == [str(a), "strassen", str(c)]


def test_the_summary_figures_are_drawn_once_and_their_files_are_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Laid out by lpsched.core.figures.tight_layout (decision 692): one draw per file,
    the bytes of a layout by ``Figure.tight_layout``, which makes ``savefig`` draw twice."""
    from matplotlib.figure import Figure

    rng = np.random.default_rng(5)
    algs = ["selfish", "selfish-order", "cafm-cra", "cafm-k-shelves"]

    def box() -> dict[str, float]:
        q = np.sort(rng.uniform(1, 10, 5))
        return dict(zip(("min", "q1", "median", "q3", "max"), map(float, q), strict=True))

    ratios = {a: {m: float(rng.uniform(0.5, 1.5)) for m in ("makespan", "ssct", "max_stretch")}
              for a in algs}
    summ = {"boxes": {m: {p: {a: box() for a in algs} for p in ("random", "fft", "all")}
                      for m in ("ssct", "makespan", "max_stretch")},
            "ratios_to_selfish": ratios,
            "pareto": {k: algs[:2] for k in ("ssct_vs_cmax", "maxs_vs_cmax", "maxs_vs_ssct")},
            "mean_max_stretch_by_N": {a: {"2": 1.5, "4": 2.5} for a in algs}}
    draws: list[int] = []
    draw = Figure.draw
    monkeypatch.setattr(Figure, "draw", lambda fig, r: (draws.append(1), draw(fig, r))[1])
    (tmp_path / "ours").mkdir()
    (tmp_path / "plain").mkdir()
    ours = plotting.summary_figures(summ, tmp_path / "ours")
    once = len(draws)
    monkeypatch.setattr(plotting, "tight_layout", lambda fig: fig.tight_layout())
    plain = plotting.summary_figures(summ, tmp_path / "plain")
    assert len(ours) == 7 and once == 7  # one draw a file
    assert len(draws) - once == 7 + 3  # Figs 2-4 laid out by Figure.tight_layout: twice
    for a, b in zip(ours, plain, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
