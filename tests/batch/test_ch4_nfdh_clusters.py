"""NFDH+LS at ch. 4's other cluster sizes (decision 277, seed 000 [L2899–L2900])."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lpsched.batch.fidelity import vs_seed
from lpsched.batch.reproduce import contiguity_cell, contiguity_summary
from lpsched.core import caches


def _swf(path: Path, sizes: list[int]) -> str:
    lines = [f"{j + 1} {j} 0 {10 * (j + 1)} {s} -1 -1 {s} {10 * (j + 1)} -1 1 1 1 1 1 -1 -1 -1"
             for j, s in enumerate(sizes)]
    path.write_text("; MaxProcs: 256\n" + "\n".join(lines) + "\n")
    caches.release()
    return str(path)


def test_nfdh_ls_runs_at_the_smallest_cluster_size_holding_every_job(tmp_path: Path) -> None:
    trace = _swf(tmp_path / "t.swf", [4, 20, 8, 30])
    rows = [r for seed in range(3) for r in contiguity_cell([trace, seed, 4, 64, 16, "nfdh-ls"])]
    assert all(r["cluster"] == 32 and r["makespan"] > 0 for r in rows)
    rows += [r for seed in range(3) for r in contiguity_cell([trace, seed, 4, 64, 16, "basic"])]
    summ = contiguity_summary(rows)
    assert summ["nfdh-ls"]["clusters"] == [32] and summ["nfdh-ls"]["skipped_instances"] == 0
    row = _nfdh_row(rows, [[trace, seed, 4, 64, 16, a] for seed in range(3)
                           for a in ("nfdh-ls", "basic")])
    assert row.verdict == "match" and "clusters of 32" in row.note


def test_nfdh_ls_is_skipped_when_a_job_is_wider_than_128(tmp_path: Path) -> None:
    trace = _swf(tmp_path / "w.swf", [4, 200, 8])
    (row,) = contiguity_cell([trace, 0, 3, 256, 16, "nfdh-ls"])
    assert row["makespan"] is None and row["wider_than_128"] == 1
    assert contiguity_summary([row])["nfdh-ls"]["skipped_instances"] == 1
    nfdh = _nfdh_row([row], [[trace, 0, 3, 256, 16, "nfdh-ls"]])
    assert nfdh.verdict.startswith("not measured: no instance")
    assert "decision 277" in nfdh.verdict


def _nfdh_row(rows: list[dict], cells: list[list]) -> Any:
    """Theorem 4's row of the ch. 4 table built from ``rows``."""
    table = vs_seed("contiguity", rows, cells)
    (row,) = [r for r in table.rows if r.figure.startswith("NFDH+LS makespan")]
    return row


@pytest.fixture(autouse=True)
def _clear_cache():
    yield
    caches.release()
