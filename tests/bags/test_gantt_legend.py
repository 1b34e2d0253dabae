"""The Gantt chart of a bags schedule (lpsched.bags.plotting.gantt) names the application
of each colour in a legend: drawn directly, and in the figure ``lpsched plot gantt`` saves."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lpsched.bags import Application, Instance, StarPlatform
from lpsched.bags.policies import get_policy
from lpsched.bags.simulator import simulate

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from lpsched.bags import plotting  # noqa: E402


def _instance(names: list[str | None]) -> Instance:
    plat = StarPlatform(np.array([1.0, 2.0]), np.array([2.0, 3.0]))
    apps = tuple(Application(float(k), 3 + k, 2.0, 1.0, {"name": n} if n else {})
                 for k, n in enumerate(names))
    return Instance(plat, apps)


def test_one_legend_entry_per_application_in_its_colour() -> None:
    inst = _instance(["blast", None, "montage"])
    res = simulate(inst, get_policy("cbs3m-edf-online"))
    ax = plotting.gantt(inst, res.schedule)
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert texts == ["blast", "application 1", "montage"]
    bars = {tuple(np.round(c, 6)) for coll in ax.collections for c in coll.get_facecolors()}
    handles = ax.get_legend().legend_handles
    assert {tuple(np.round(h.get_facecolor(), 6)) for h in handles} == bars
    plt.close(ax.figure)


def test_plot_gantt_saves_the_legend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from matplotlib.figure import Figure

    from lpsched.bags.io import instance_to_json
    from lpsched.cli import main

    saved: list = []
    real = Figure.savefig

    def spy(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        saved.append(self)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", spy)
    f = tmp_path / "inst.json"
    f.write_text(instance_to_json(_instance([None, "b"])))
    out = tmp_path / "g.png"
    assert main(["plot", "gantt", str(f), "-o", str(out)]) == 0
    (fig,) = saved
    (ax,) = fig.axes
    # an application's "name" key is kept by the instance file and names its entry
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["application 0", "b"]
    assert out.stat().st_size > 1000
