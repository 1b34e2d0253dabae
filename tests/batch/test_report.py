"""The batch report hook (lpsched.batch.report): on an empty store every manifest entry is
a row, not measured, and no figure is drawn; on a small store (cells of synthetic traces
run here) every entry is still a row and every figure entry of the experiment gets its PNG
(seed 001's Fig. 2 aside: a network simulation, its row and a note say so)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lpsched.batch import reproduce as exp
from lpsched.batch.report import report_part
from lpsched.core.store import ResultStore
from lpsched.report.manifest import EXPERIMENTS, manifest
from tests.cli.test_batch_reproduce_tables import synthetic_swf

pytest.importorskip("matplotlib")


def entries(experiment: str, kind: str | None = None) -> set[str]:
    seed = EXPERIMENTS[experiment]
    return {e.id for e in manifest(seed) if e.experiment == experiment
            and (kind is None or e.kind == kind)}


@pytest.mark.parametrize("experiment", ["contiguity", "platform-level", "topology-aware"])
def test_an_empty_store_gives_every_row_not_measured_and_no_figure(experiment, tmp_path):
    store = ResultStore(tmp_path / "empty.sqlite")
    part = report_part(store, experiment, tmp_path / "fig")
    store.close()
    assert entries(experiment) <= {r.ref for r in part.table.rows}
    assert all(r.kind == "not measured" for r in part.table.rows)
    assert part.figures == () and any("no figure drawn" in n for n in part.notes)


def _store(tmp_path: Path, experiment: str, cells: list, run) -> ResultStore:
    store = ResultStore(tmp_path / f"{experiment}.sqlite")
    for cell in cells:
        store.add(experiment, cell, run(cell), exp.ROW_SCHEMAS[experiment])
    return store


def _check_figures(part, experiment: str, folder: Path, absent: set[str] = frozenset()
                   ) -> None:
    assert entries(experiment) <= {r.ref for r in part.table.rows}
    drawn = {f.ref: f for f in part.figures}
    assert set(drawn) == entries(experiment, "figure") - absent
    for f in drawn.values():
        assert f.path == folder / f"{f.ref}.png" and f.path.stat().st_size > 1000
        assert f.caption.startswith("Figure") and "seed" in f.caption


def test_contiguity_store_draws_figures_4_7_to_4_12(tmp_path):
    trace = str(synthetic_swf(tmp_path / "t.swf"))
    cells = [c for c in exp.contiguity_cells(trace, 3, 40, 64, 16) if c[5] != "nfdh-ls"]
    store = _store(tmp_path, "contiguity", cells, exp.contiguity_cell)
    part = report_part(store, "contiguity", tmp_path / "fig")
    store.close()
    _check_figures(part, "contiguity", tmp_path / "fig")
    assert part.table.size is not None and part.table.size.label() == "3 of 512 instances"


def test_platform_store_draws_figures_5_8_to_5_16(tmp_path):
    trace = str(synthetic_swf(tmp_path / exp.CH5_PLATFORMS["kth_sp2"][0], procs=100))
    store = _store(tmp_path, "platform-level", exp.platform_cells(trace, 2),
                   exp.platform_cell)
    part = report_part(store, "platform-level", tmp_path / "fig")
    store.close()
    _check_figures(part, "platform-level", tmp_path / "fig")
    kth = [r for r in part.table.rows if r.figure.startswith("kth_sp2: ")
           and "sum flow / basic's" in r.figure]
    assert kth and all(r.verdict.startswith(("not measured: reduced run", "match",
                                             "differs", "close")) for r in kth)


def test_topology_store_draws_figures_3_to_7_not_2(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    cells = []
    for name, procs in (("llnl_thunder", 64), ("sdsc_blue", 64), ("hpc2n", 32)):
        trace = synthetic_swf(data / exp.SEED001_TRACES[name], jobs=80, procs=procs)
        cells += exp.topology_cells(str(trace), [0.0, 20.0, 40.0])
    store = _store(tmp_path, "topology-aware", cells, exp.topology_cell)
    part = report_part(store, "topology-aware", tmp_path / "fig")
    store.close()
    _check_figures(part, "topology-aware", tmp_path / "fig", absent={"001-F2"})
    assert any("INSEE" in n for n in part.notes)
    assert part.table.size is None  # whole (synthetic) traces: no --limit
