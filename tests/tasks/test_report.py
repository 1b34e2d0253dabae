"""The report hook of ``reproduce redirection`` (:mod:`lpsched.tasks.report`): every
manifest entry a row from an empty store, and from a small pair of stores (comparison and
the tuning grids beside it) every figure of ch. 3 drawn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lpsched.core.store import ResultStore
from lpsched.report.manifest import manifest
from lpsched.tasks.fidelity import FIGURES
from lpsched.tasks.report import TUNING, TUNING_STORE, choose_selection, report_part
from tests.tasks.test_fidelity import _grid, row

WANTED = {e.id for e in manifest("000") if e.experiment == "redirection"}
POLICIES = ("fcfs", "spt", "gspt", "srpt", "gsrpt", "spt-rd", "gspt-rd", "spt-rr", "gspt-rr")
TRACES = ("Curie", "HPC2N", "KTH-SP2", "LLNL-Thunder", "Metacentrum", "RICC", "SDSC-Blue-4.1")


def _fill(store: ResultStore, experiment: str, rows: list[dict[str, Any]]) -> None:
    for i, r in enumerate(rows):
        # a cell names a trace file that is not there: the trace columns say so
        store.add(experiment, [f"/nowhere/{r['trace']}.swf", r["seed"], r["policy"], i,
                               {"status": "completed", "zero_run": "drop"}], [r])


def _comparison(k: int) -> list[dict[str, Any]]:
    return [row(t, s, p, max_stretch_over_lb=1.0 + POLICIES.index(p) / 10,
                sum_flow_over_lb=1.2) for t in TRACES for s in range(k) for p in POLICIES]


def test_an_empty_store_gives_every_entry_a_row_and_no_figure(tmp_path: Path) -> None:
    store = ResultStore(tmp_path / "redirection.sqlite")
    part = report_part(store, "redirection", tmp_path / "fig")
    assert WANTED <= {r.ref for r in part.table.rows}
    assert part.figures == () and not (tmp_path / "fig").exists()
    assert {r.kind for r in part.table.rows} == {
        "not measured", "holds by construction", "differs: cause measured"}
    none = report_part(None, "redirection", tmp_path / "fig")
    assert WANTED <= {r.ref for r in none.table.rows}


def test_a_small_pair_of_stores_draws_every_figure(tmp_path: Path) -> None:
    store = ResultStore(tmp_path / "redirection.sqlite")
    _fill(store, "redirection", _comparison(2))
    tuning = ResultStore(tmp_path / TUNING_STORE)
    _fill(tuning, TUNING, _grid("Curie", 2, (10, 10)) + _grid("LLNL-Thunder", 2, (7, 2)))
    tuning.close()
    part = report_part(store, "redirection", tmp_path / "fig")
    assert WANTED <= {r.ref for r in part.table.rows}
    assert part.table.size is not None and part.table.size.label() == (
        "2 of 20 instances per trace")
    assert {f.ref for f in part.figures} == set(FIGURES)
    for figure in part.figures:
        assert figure.path == tmp_path / "fig" / f"{figure.ref}.png"
        assert figure.path.read_bytes()[:4] == b"\x89PNG"
        assert "the seed prints none of its values" in figure.caption
        # the caption gives the run's size, not the seed's
        assert "means over 2 instances" in figure.caption
        assert "(the seed's over 20)" in figure.caption
    assert any("read from" in n for n in part.notes)
    rows = {r.figure: r for r in part.table.rows}
    assert rows["Table 3.1 Curie trace # tasks"].verdict.startswith(
        "not measured: trace file /nowhere/")
    # Table 3.2 read from the sibling store: an extreme, not judged at 2 instances
    assert rows["Table 3.2 LLNL-Thunder SPT-RD m_d"].verdict == (
        "not measured: reduced run (2 of 20 instances)")


def test_the_chapters_selection_is_read_when_a_store_holds_several() -> None:
    chapter = [row("KTH-SP2", 0, "spt")]
    other = [dict(r, job_status="all", zero_run="keep") for r in chapter * 3]
    assert choose_selection(chapter + other) == {"status": "completed", "zero_run": "drop"}
    assert choose_selection(other) == {"status": "all", "zero_run": "keep"}
    assert choose_selection([]) is None


@pytest.mark.parametrize("name", ["redirection.sqlite", "elsewhere.sqlite"])
def test_a_tuning_store_given_alone_is_read_as_the_grids(tmp_path: Path, name: str) -> None:
    store = ResultStore(tmp_path / name)
    _fill(store, TUNING, _grid("LLNL-Thunder", 2, (7, 2)))
    part = report_part(store, "redirection", tmp_path / "fig")
    assert {f.ref for f in part.figures} == {"000-F3.4", "000-F3.6"}


def test_the_report_reads_curies_requested_times_from_the_trace(tmp_path: Path) -> None:
    """Decision 554: the share of Curie's jobs asking 24 hours, read from field 9 of the
    trace file the cells name (``reproduce`` does not keep it)."""
    lines = ["; Version: 2.2", "; MaxProcs: 93312"]
    for i in range(30):
        ask = 86400 if i % 3 == 0 else 3600
        lines.append(f"{i + 1} {i * 600} 0 {100 + i} 4 -1 -1 4 {ask} -1 1 1 1 -1 -1 1 -1 -1")
    trace = tmp_path / "CEA-Curie-2011-2.1-cln.swf"
    trace.write_text("\n".join(lines) + "\n")
    store = ResultStore(tmp_path / "redirection.sqlite")
    store.add("redirection", [str(trace), 0, "spt", {}, {"status": "completed",
                                                        "zero_run": "drop"}],
              [row("Curie", 0, "spt")])
    rows = {r.figure: r for r in report_part(store, "redirection", tmp_path / "f").table.rows}
    share = rows["Curie: share of the jobs whose requested time is 24 h"]
    assert share.ours == "0.3333" and share.verdict == "match"
    assert rows["Table 3.1 Curie trace # tasks"].ours == "30"
    assert rows["Table 3.1 Curie trace # CPUs"].verdict == (
        "differs: not reproduced (decision 554: 1 reading tried)")


def test_an_empty_sibling_store_is_no_tuning_store(tmp_path: Path) -> None:
    """A tuning run beside that has stored nothing yet leaves an empty file: the table is
    built without it, never an error."""
    from lpsched.tasks.report import sibling_rows

    (tmp_path / TUNING_STORE).write_bytes(b"")
    assert sibling_rows(tmp_path / TUNING_STORE, TUNING) == []
    store = ResultStore(tmp_path / "redirection.sqlite")
    _fill(store, "redirection", _comparison(2)[:9])
    part = report_part(store, "redirection", tmp_path / "fig")
    assert WANTED <= {r.ref for r in part.table.rows}


def test_a_narrow_log_panel_labels_more_than_two_values() -> None:
    """A panel spanning less than a decade (KTH-SP2's total stretch over GSRPT, 0.9-4.5)
    labels its intermediate ticks as plain numbers."""
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lpsched.tasks.plotting import _log_axis

    fig, ax = plt.subplots()
    ax.bar(["a", "b"], [1.0, 4.0])
    ax.set_ylim(0.9, 4.5)
    _log_axis(ax)
    fig.canvas.draw()
    lo, hi = ax.get_ylim()
    shown = [t.get_text() for t in ax.yaxis.get_majorticklabels() + ax.yaxis.get_minorticklabels()
             if lo <= t.get_position()[1] <= hi and t.get_text()]
    plt.close(fig)
    assert len(shown) >= 3 and {"1", "2", "3"} <= set(shown), shown
