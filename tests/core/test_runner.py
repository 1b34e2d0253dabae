import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from lpsched.bags import reproduce as exp
from lpsched.core import ResultStore, run_cells

VOLATILE = ("seconds", "solve_seconds")


def stable(rows):
    return sorted(({k: v for k, v in r.items() if k not in VOLATILE} for r in rows),
                  key=lambda r: (r["seed"], r["policy"]))


def square(x):
    return [{"x": x, "y": x * x}]


def test_store_is_idempotent_and_atomic(tmp_path):
    store = ResultStore(tmp_path / "s.sqlite")
    store.add("e", [1], [{"a": 1}, {"a": 2}])
    store.add("e", [1], [{"a": 1}, {"a": 2}])  # a rerun of the same cell adds nothing
    assert store.rows("e") == [{"a": 1}, {"a": 2}]
    assert store.done("e") == {ResultStore.key([1])}
    assert run_cells("sq", [1, 2, 3], square, store, progress=False) == 3
    assert run_cells("sq", [1, 2, 3, 4], square, store, progress=False) == 1
    assert [r["y"] for r in store.rows("sq")] == [1, 4, 9, 16]


def test_process_pool_gives_the_same_rows_as_serial(tmp_path):
    cells = exp.cells(2, policies=["fifo-mct", "cbs3m-edf-online", "mwma-nbt"])
    a, b = ResultStore(":memory:"), ResultStore(":memory:")
    run_cells(exp.EXPERIMENT, cells, exp.cell, a, jobs=1, progress=False)
    run_cells(exp.EXPERIMENT, cells, exp.cell, b, jobs=2, progress=False)
    assert stable(a.rows(exp.EXPERIMENT)) == stable(b.rows(exp.EXPERIMENT))
    grouped = ResultStore(":memory:")
    run_cells(exp.EXPERIMENT, cells, exp.cell, grouped, jobs=2, progress=False,
              group=exp.by_instance)
    assert stable(grouped.rows(exp.EXPERIMENT)) == stable(a.rows(exp.EXPERIMENT))
    assert len(grouped.done(exp.EXPERIMENT)) == len(cells)
    tab = exp.tables(a.rows(exp.EXPERIMENT))
    assert set(tab) == set(exp.METRICS)
    assert all(s["min"] >= 1 - 1e-6 for s in tab["max_stretch"].values())
    assert all(any(s["best"] > 0 for s in per.values()) for per in tab.values())


def test_killed_run_resumes_to_the_same_rows(tmp_path):
    """Kill the CLI part-way, restart it: exactly the rows of an uninterrupted run."""
    cmd = [sys.executable, "-m", "lpsched.cli", "reproduce", "cbs3m", "--instances", "6",
           "--quiet"]
    killed = tmp_path / "killed"
    proc = subprocess.Popen([*cmd, "--out", str(killed)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    db = killed / "cbs3m.sqlite"
    deadline = time.time() + 60
    count = 0
    while time.time() < deadline and proc.poll() is None:
        if db.exists():
            try:
                with sqlite3.connect(db) as con:
                    count = con.execute("SELECT COUNT(*) FROM cbs3m").fetchone()[0]
            except sqlite3.OperationalError:
                count = 0
            if count >= 20:
                break
        time.sleep(0.05)
    if proc.poll() is not None:
        pytest.skip("the run finished before it could be interrupted")
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = ResultStore(db).rows(exp.EXPERIMENT)
    every = len(exp.cells(6))  # one row per cell (policy x instance)
    assert 0 < len(partial) < every
    subprocess.run([*cmd, "--out", str(killed)], check=True, capture_output=True)
    whole = tmp_path / "whole"
    subprocess.run([*cmd, "--out", str(whole)], check=True, capture_output=True)
    resumed = ResultStore(db).rows(exp.EXPERIMENT)
    fresh = ResultStore(whole / "cbs3m.sqlite").rows(exp.EXPERIMENT)
    assert len(resumed) == len(fresh) == every
    assert stable(resumed) == stable(fresh)


def test_dask_local_cluster_gives_the_same_rows():
    distributed = pytest.importorskip("dask.distributed")
    cells = exp.cells(2, policies=["spt-mct", "cbs3m-edf-offline"])
    local = ResultStore(":memory:")
    run_cells(exp.EXPERIMENT, cells, exp.cell, local, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = ResultStore(":memory:")
        run_cells(exp.EXPERIMENT, cells, exp.cell, remote, executor=client, progress=False)
        # the CLI's form: an address string, dask://HOST:PORT
        address = cluster.scheduler_address.replace("tcp://", "dask://")
        by_address = ResultStore(":memory:")
        run_cells(exp.EXPERIMENT, cells, exp.cell, by_address, executor=address,
                  progress=False)
    assert stable(local.rows(exp.EXPERIMENT)) == stable(remote.rows(exp.EXPERIMENT))
    assert stable(local.rows(exp.EXPERIMENT)) == stable(by_address.rows(exp.EXPERIMENT))


class _Stream:
    def __init__(self, tty: bool) -> None:
        self.tty, self.parts = tty, []

    def isatty(self) -> bool:
        return self.tty

    def write(self, text: str) -> None:
        self.parts.append(text)

    def flush(self) -> None:
        pass


def test_progress_in_a_log_is_a_few_plain_lines(monkeypatch) -> None:
    """Off a terminal, no carriage returns, a line every LOG_EVERY seconds and one at the
    end; the estimate only from two cells on, labelled as by cells."""
    from lpsched.core import runner

    clock = iter(range(0, 10_000, 10))
    monkeypatch.setattr(runner.time, "perf_counter", lambda: float(next(clock)))
    log = _Stream(tty=False)
    bar = runner.Progress(100, "cells", stream=log)
    for _ in range(100):
        bar.step()
    text = "".join(log.parts)
    assert "\r" not in text
    lines = text.splitlines()
    assert 20 <= len(lines) <= 40 and lines[-1].startswith("cells: 100/100 cells")
    assert "left (by cells)" in lines[1] and "left" not in lines[-1]


def test_progress_on_a_terminal_redraws_one_line() -> None:
    from lpsched.core.runner import Progress

    term = _Stream(tty=True)
    bar = Progress(3, "x", stream=term)
    for _ in range(3):
        bar.step()
    text = "".join(term.parts)
    assert text.startswith("\r") and text.endswith("\n") and text.count("\n") == 1
    assert "3/3" in text


def test_progress_estimates_the_time_left_by_work(monkeypatch) -> None:
    """With each cell's work (decision 431), cheap first cells do not promise "~0s left"
    before an expensive one: 2 cells of work 1 took 10 s each, 1 cell of work 100 is left,
    so about 1,000 s are left (by cells it would say 10 s)."""
    from lpsched.core import runner

    clock = iter([0.0, 10.0, 20.0, 2000.0])
    monkeypatch.setattr(runner.time, "perf_counter", lambda: next(clock))
    log = _Stream(tty=False)
    bar = runner.Progress(3, "ch4", stream=log, work=[1.0, 1.0, 100.0])
    monkeypatch.setattr(runner, "LOG_EVERY", 0.0)
    bar.step(1.0)
    bar.step(1.0)
    lines = "".join(log.parts).splitlines()
    assert lines[-1].endswith("~1000s left (by work)")
    with pytest.raises(ValueError, match="work"):
        runner.Progress(2, "x", work=[1.0])
    with pytest.raises(ValueError, match="work"):
        runner.Progress(1, "x", work=[0.0])


def test_run_cells_passes_each_cells_work_to_the_bar(tmp_path, monkeypatch) -> None:
    from lpsched.core import ResultStore, run_cells, runner

    seen: list[float] = []
    real = runner.Progress.step

    def spy(self: runner.Progress, work: float = 0.0) -> None:
        seen.append(work)
        real(self, work)

    monkeypatch.setattr(runner.Progress, "step", spy)
    store = ResultStore(tmp_path / "w.sqlite")
    cells = [{"n": 3}, {"n": 5}]
    run_cells("w", cells, lambda c: [{"x": c["n"]}], store, progress=False,
              cost=lambda c: c["n"])
    assert seen == [3.0, 5.0]


def test_a_long_cell_is_followed_by_a_garbage_collection(tmp_path, monkeypatch) -> None:
    """Decision 432: reference cycles holding a cell's arrays are freed after the cell,
    not when Python's object-count thresholds happen to trigger."""
    import gc
    import weakref

    from lpsched.core import ResultStore, run_cells, runner

    class Big:
        pass

    refs: list[weakref.ref[Big]] = []

    def cell_fn(cell: dict) -> list[dict]:
        a, b = Big(), Big()
        a.other, b.other = b, a  # a cycle: freed only by the collector
        refs.append(weakref.ref(a))
        return [{"x": cell["n"]}]

    monkeypatch.setattr(runner, "COLLECT_AFTER", 0.0)
    gc.disable()
    try:
        run_cells("g", [{"n": 1}], cell_fn, ResultStore(tmp_path / "g.sqlite"),
                  progress=False)
        assert refs[0]() is None  # collected by the runner, with the collector disabled
    finally:
        gc.enable()
