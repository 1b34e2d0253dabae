"""``lpsched.experiments.load`` on the store of every reproduction: each ``lpsched reproduce``
subcommand is run as a user runs it (the installed command, tiny sizes, a synthetic SWF
trace written here, an empty data folder: nothing of ../shared is read), and every
experiment of its store loads under the three ``lists`` modes with the stored values,
a field a row lacks missing in that row (never a value made up for it)."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pd = pytest.importorskip("pandas")

from lpsched import experiments as ex  # noqa: E402
from lpsched.core import frames  # noqa: E402
from lpsched.core.store import ResultStore  # noqa: E402
from lpsched.errors import LpschedError  # noqa: E402

LPSCHED = str(Path(sys.executable).with_name("lpsched"))

#: Every ``lpsched reproduce`` subcommand, with the options of a run of a few seconds, and
#: the experiments its store then holds. ``{trace}`` is a synthetic SWF file.
RUNS: dict[str, tuple[list[str], list[str]]] = {
    "cbs3m": (["cbs3m", "--instances", "1", "--profile", "mpi"], ["cbs3m"]),
    "contiguity": (["contiguity", "--trace", "{trace}", "--instances", "1",
                    "--jobs-per-instance", "30", "--processors", "64"], ["contiguity"]),
    "platform-level": (["platform-level", "--trace", "{trace}", "--instances", "1",
                        "--periods", "1"], ["platform-level"]),
    "topology-aware": (["topology-aware", "--trace", "{trace}", "--speedups", "0,20",
                        "--limit", "40"], ["topology-aware"]),
    "redirection": (["redirection", "--traces", "{trace}", "--instances", "1",
                     "--no-plots"], ["redirection"]),
    "redirection --tune": (["redirection", "--tune", "--trace", "{trace}", "--instances",
                            "1", "--no-plots"], ["redirection-tuning"]),
    "faircamp": (["faircamp", "--instances", "1", "--users", "2", "--jobs-per-instance",
                  "50"], ["faircamp"]),
    "ostrich": (["ostrich", "--trace", "{trace}", "--instances", "1", "--users", "2",
                 "--jobs-per-instance", "50"], ["ostrich"]),
    "ptg": (["ptg", "--scenarios", "1", "--no-figures"], ["ptg"]),
}

#: A list field some rows of the store lack (the greedy heuristics solve no LP; the
#: two-profile rows of ``reproduce ostrich`` have no histogram): the case that made
#: ``load`` cast a missing count to an integer and fail.
ABSENT = {"cbs3m": "solve_seconds", "ostrich": "histogram_0_15"}


def swf(path: Path, jobs: int = 120, procs: int = 64, seed: int = 0) -> Path:
    """A small SWF trace over two weeks; every fifth job has status 0 (failed)."""
    rng = np.random.default_rng(seed)
    submit = np.sort(rng.uniform(0, 14 * 86400, jobs)).astype(int)
    lines = [f"; MaxProcs: {procs}"]
    for j in range(jobs):
        run = int(rng.integers(60, 20000))
        size = int(rng.choice([1, 2, 4, 8, 16, 32]))
        status = 0 if j % 5 == 4 else 1
        lines.append(f"{j + 1} {submit[j]} 0 {run} {size} -1 -1 {size} {2 * run} -1 "
                     f"{status} {1 + j % 7} 1 -1 1 -1 -1 -1")
    path.write_text("\n".join(lines) + "\n")
    return path


def missing(value: Any) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def number_list_fields(rows: list[dict[str, Any]]) -> set[str]:
    """The fields that are a list of numbers in some row and nothing else in any row."""
    names = {k for row in rows for k in row}
    return {name for name in names
            if any(isinstance(row.get(name), list) for row in rows)
            and all(frames.number_lists(name, row[name]) is not None for row in rows
                    if row.get(name) is not None)}


def check_summary(frame: Any, rows: list[dict[str, Any]]) -> None:
    """``frame`` (``lists="summary"``) holds ``rows``: one frame row per stored row, every
    stored value as it is, every field a row lacks missing, and each list of numbers'
    count, sum and max (missing for a row without the list)."""
    assert len(frame) == len(rows)
    listed = number_list_fields(rows)
    names = {k for row in rows for k in row}
    assert names <= set(frame.columns)
    for (_, record), row in zip(frame.iterrows(), rows, strict=True):
        for name in names:
            value, got = row.get(name), record[name]
            if value is None or (isinstance(value, float) and math.isnan(value)):
                assert missing(got), (name, row)
            elif isinstance(value, list):
                assert list(got) == value, name
            else:
                assert got == value, (name, got, value)
        for name in listed:
            stats = frames.number_lists(name, row.get(name))
            for key in ("count", "sum", "max"):
                got = record[f"{name}_{key}"]
                if stats is None or missing(stats[f"{name}_{key}"]):
                    assert missing(got), (name, key, row.get(name))
                else:
                    assert got == pytest.approx(stats[f"{name}_{key}"]), (name, key)


def check_explode(path: Path, experiment: str, rows: list[dict[str, Any]]) -> None:
    """One row per element of the lists, or (lists of several lengths in one row, as the
    egee rows of ``reproduce ostrich``: a histogram and an hourly series) the one-line
    error naming the first such row."""
    listed = sorted(number_list_fields(rows))
    lengths = [{len(row.get(n) or []) for n in listed} for row in rows]
    uneven = [i for i, sizes in enumerate(lengths) if len(sizes) > 1]
    if uneven:
        with pytest.raises(LpschedError, match=rf"\(row {uneven[0]}: .*\); use "
                                               "lists='summary'"):
            ex.load(path, experiment, lists="explode")
        return
    frame = ex.load(path, experiment, lists="explode")
    assert len(frame) == sum(max(max(sizes), 1) if sizes else 1 for sizes in lengths)
    for name in listed:
        assert str(frame[name].dtype) == "float64"
        want = [v for row in rows for v in (row.get(name) or [math.nan])]
        np.testing.assert_array_equal(frame[name].to_numpy(), np.asarray(want, float))


@pytest.fixture(scope="module")
def trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return swf(tmp_path_factory.mktemp("trace") / "t.swf")


@pytest.mark.parametrize("run", list(RUNS))
def test_every_reproductions_store_loads(run: str, trace: Path, tmp_path: Path) -> None:
    argv, experiments = RUNS[run]
    out = tmp_path / "out"
    data = tmp_path / "data"  # an empty data folder: no shared trace can be read
    data.mkdir()
    proc = subprocess.run(
        [LPSCHED, "reproduce", *[a.replace("{trace}", str(trace)) for a in argv], "--out",
         str(out), "--quiet"], capture_output=True, text=True, timeout=300, cwd=tmp_path,
        env={**os.environ, "LPSCHED_DATA": str(data), "MPLBACKEND": "Agg"})
    assert proc.returncode == 0, proc.stderr
    path = out / f"{experiments[0]}.sqlite"
    assert ex.experiments(path) == experiments
    store = ResultStore(path, create=False)
    try:
        rows = {name: store.rows(name) for name in experiments}
    finally:
        store.close()
    if run in ABSENT:
        field = ABSENT[run]
        assert {field in row for row in rows[run]} == {True, False}
    for name in experiments:
        assert rows[name], name
        check_summary(ex.load(path, name), rows[name])
        kept = ex.load(path, name, lists="keep")  # the stored fields only
        assert len(kept) == len(rows[name])
        assert set(kept.columns) == {k for row in rows[name] for k in row}
        check_explode(path, name, rows[name])


def test_cbs3m_store_loads_with_the_rows_that_solve_no_lp(tmp_path: Path) -> None:
    """What ``reproduce cbs3m`` stores: CBS3M and MWMA rows with ``solve_seconds`` (a list
    of numbers), the greedy heuristics' rows without the field."""
    path = tmp_path / "cbs3m.sqlite"
    store = ResultStore(path)
    store.add("cbs3m", [1], [{"policy": "cbs3m", "solve_seconds": [0.25, 1.0]},
                             {"policy": "fifo"}])
    store.close()
    frame = ex.load(path)
    assert list(frame.columns) == ["policy", "solve_seconds", "solve_seconds_count",
                                   "solve_seconds_sum", "solve_seconds_max"]
    assert frame.loc[0, ["solve_seconds_count", "solve_seconds_sum",
                         "solve_seconds_max"]].tolist() == [2, 1.25, 1.0]
    assert frame.loc[1, ["solve_seconds_count", "solve_seconds_sum",
                         "solve_seconds_max"]].isna().all()  # no solve made up for fifo
    assert missing(frame.loc[1, "solve_seconds"])
    assert {str(frame[c].dtype) for c in ("solve_seconds_count", "solve_seconds_sum",
                                          "solve_seconds_max")} == {"float64"}
    exploded = ex.load(path, lists="explode")
    assert exploded["policy"].tolist() == ["cbs3m", "cbs3m", "fifo"]
    assert exploded["solve_seconds"].tolist()[:2] == [0.25, 1.0]
    assert math.isnan(exploded["solve_seconds"].tolist()[2])
    kept = ex.load(path, lists="keep")
    assert kept["solve_seconds"].tolist()[0] == [0.25, 1.0]
    assert missing(kept["solve_seconds"].tolist()[1])
