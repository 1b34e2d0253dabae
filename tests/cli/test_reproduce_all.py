"""``lpsched reproduce all``: every reproduction in one resumable run under one progress
line, each experiment's store and files as its own command writes them, the runs whose
traces are missing skipped with the reason, and the same rows on a Dask cluster of several
worker processes."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

LPSCHED = str(Path(sys.executable).with_name("lpsched"))


def run(*argv: str, data: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """The installed command with the traces folder ``data`` (empty: no trace)."""
    return subprocess.run([LPSCHED, *argv], capture_output=True, text=True, timeout=900,
                          env={**os.environ, "LPSCHED_DATA": str(data), **env})


def rows(store: Path) -> list[tuple]:
    """A store's rows, keys and values, in a canonical order (timings included: they are
    stored apart from the answers only by the reproductions' CSVs)."""
    con = sqlite3.connect(store)
    tables = [t for (t,) in con.execute("select name from sqlite_master where type='table' "
                                        "and name not like 'sqlite_%' and name not like '\\_%' "
                                        "escape '\\'")]
    out = []
    for table in tables:
        cols = [c[1] for c in con.execute(f'pragma table_info("{table}")')]
        keep = [c for c in cols if "seconds" not in c and c != "_extra"]
        out += sorted(tuple(r) for r in con.execute(
            f'select {", ".join(chr(34) + c + chr(34) for c in keep)} from "{table}"'))
    con.close()
    return out


@pytest.fixture(scope="module")
def no_traces(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("no-traces")


@pytest.fixture(scope="module")
def reduced(tmp_path_factory: pytest.TempPathFactory, no_traces: Path) -> Path:
    out = tmp_path_factory.mktemp("all")
    proc = run("reproduce", "all", "--reduced", "--out", str(out), "--json", "--no-report",
               data=no_traces)
    assert proc.returncode == 0, proc.stderr
    (out / "first.json").write_text(proc.stdout)
    (out / "first.stderr").write_text(proc.stderr)
    return out


def test_the_generated_experiments_run_and_the_trace_ones_say_why_not(reduced: Path) -> None:
    summary = json.loads((reduced / "first.json").read_text())
    assert set(summary["experiments"]) == {"cbs3m", "faircamp", "ptg"}
    assert all(e["computed_now"] == e["cells"] > 0 for e in summary["experiments"].values())
    for label in ("contiguity", "platform-level", "topology-aware", "redirection",
                  "redirection-tuning", "ostrich"):
        assert "not a folder" not in summary["skipped"][label]
        assert ".swf" in summary["skipped"][label], summary["skipped"][label]
    for name in ("cbs3m", "faircamp", "ptg"):
        assert (reduced / f"{name}.sqlite").is_file() and (reduced / f"{name}.txt").is_file()
        assert (reduced / f"{name}_vs_seed.csv").is_file()


def test_a_second_run_computes_nothing(reduced: Path, no_traces: Path) -> None:
    proc = run("reproduce", "all", "--reduced", "--out", str(reduced), "--json",
               "--no-report", data=no_traces)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert all(e["computed_now"] == 0 for e in summary["experiments"].values())


def test_one_progress_line_for_every_experiment(reduced: Path) -> None:
    """Not a terminal: a line every 30 s and one at the end, all labelled ``all``; no
    experiment prints a progress line of its own."""
    stderr = (reduced / "first.stderr").read_text()
    lines = [line for line in stderr.splitlines() if line.startswith("all")]
    assert lines and lines[-1].startswith("all: ") and " cells, " in lines[-1], stderr
    summary = json.loads((reduced / "first.json").read_text())
    total = sum(e["cells"] for e in summary["experiments"].values())
    assert lines[-1].startswith(f"all: {total}/{total} cells"), lines[-1]
    assert not any(line.startswith(("cbs3m:", "ptg:", "faircamp:"))
                   for line in stderr.splitlines())


def test_the_time_left_is_estimated_by_work() -> None:
    """Each experiment's weight (its expected CPU at the seed's size) shared among its
    cells by the experiment's own cost: the line says "by work"."""
    import io

    from lpsched.core.runner import Plan, run_plans
    from lpsched.core.store import ResultStore

    out = io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("lpsched.core.runner.LOG_EVERY", 0.0)
        mp.setattr("sys.stderr", out)
        a = ResultStore(":memory:")
        b = ResultStore(":memory:")
        run_plans([Plan("a", [1, 2, 3], _square, a, weight=10.0),
                   Plan("b", [4, 5], _square, b, cost=float, weight=1.0)], label="all")
    assert "left (by work)" in out.getvalue(), out.getvalue()
    assert [r["y"] for r in b.rows("b")] == [16, 25]


def _square(x: int) -> list[dict[str, int]]:
    return [{"y": x * x}]


@pytest.mark.slow
def test_a_dask_cluster_of_several_workers_gives_the_same_rows(reduced: Path, no_traces: Path,
                                                               tmp_path: Path) -> None:
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=3, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        address = cluster.scheduler_address.replace("tcp://", "dask://")
        proc = run("reproduce", "all", "--reduced", "--out", str(tmp_path), "--json",
                   "--no-report", "--executor", address, data=no_traces)
    assert proc.returncode == 0, proc.stderr
    for name in ("cbs3m", "faircamp", "ptg"):
        assert rows(tmp_path / f"{name}.sqlite") == rows(reduced / f"{name}.sqlite"), name
