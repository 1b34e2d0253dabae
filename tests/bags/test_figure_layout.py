"""Seed 003's figures laid out once (lpsched.core.figures.tight_layout, decision 692): the
figure keeps no layout engine, so ``savefig`` draws it once, and the file is the same byte
for byte as after ``Figure.tight_layout`` (which leaves a placeholder engine that makes
``savefig`` draw twice)."""

from __future__ import annotations

import io

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from lpsched.bags import plotting  # noqa: E402
from lpsched.bags import reproduce as exp  # noqa: E402
from lpsched.core.figures import tight_layout  # noqa: E402


def _rows() -> list[dict]:
    """Reproduction rows of 8 instances x 4 policies, as tests/bags/test_reproduce.py's."""
    rng = np.random.default_rng(3)
    rows = []
    for s in range(8):
        bound = float(rng.uniform(2, 8))
        for p in ("fifo-rr", "swrpt-mct", "mwma-nbt", "cbs3m-edf-online"):
            rows.append({"seed": s, "policy": p, "status": "ok", "reason": None,
                         "lp_bound": bound,
                         **{m: bound * float(rng.uniform(1, 3)) for m in exp.METRICS}})
    return rows


def _figures() -> list:
    rows = _rows()
    return [plotting.figure5(exp.figure5_rows(rows)).figure,
            *(plotting.load_figure(exp.load_curves(rows, m), m, title=f"Figure {n}").figure
              for n, m in ((6, "max_stretch"), (8, "makespan")))]


def _png(fig, once: bool) -> tuple[bytes, int]:
    """The PNG of ``fig`` laid out by ours (``once``) or by ``Figure.tight_layout``, and
    how many times ``savefig`` drew the figure."""
    drawn = []
    draw = fig.draw
    fig.draw = lambda renderer: (drawn.append(1), draw(renderer))[1]
    if once:
        tight_layout(fig)
    else:
        fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, dpi=120)
    plt.close(fig)
    return buf.getvalue(), len(drawn)


def test_the_figure_is_drawn_once_and_its_file_is_the_same():
    for ours, theirs in zip(_figures(), _figures(), strict=True):
        png, draws = _png(ours, once=True)
        reference, reference_draws = _png(theirs, once=False)
        assert (draws, reference_draws) == (1, 2)
        assert png == reference


def test_the_layout_is_tight_layout_s():
    fig, ref = _figures()[1], _figures()[1]
    tight_layout(fig)
    ref.tight_layout()
    assert fig.get_layout_engine() is None
    assert fig.subplotpars.__dict__ == ref.subplotpars.__dict__
    plt.close(fig)
    plt.close(ref)


def test_a_layout_asked_by_the_settings_is_kept():
    """With ``figure.autolayout`` set, the figure keeps the placeholder engine that
    ``Figure.tight_layout`` leaves (removing it would lay the figure out again)."""
    with matplotlib.rc_context({"figure.autolayout": True}):
        fig = Figure()
        fig.add_subplot().plot([0, 1], [1, 0])
        tight_layout(fig)
        assert fig.get_layout_engine() is not None


def test_save_writes_the_laid_out_figure(tmp_path):
    fig = _figures()[1]
    plotting.save(fig, tmp_path / "f.png")
    reference, _ = _png(_figures()[1], once=False)
    assert (tmp_path / "f.png").read_bytes() == reference
