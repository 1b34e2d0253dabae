"""Seed 000 ch. 4 Algorithm 1 with processor sets (reading (h), decision 274) and the rows
decisions 274 and 275 explain (ch. 5's, 276 and 424–427: test_ch5_explained.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lpsched.batch.allocation import ZERO_RUN, is_contiguous, slice_plan
from lpsched.batch.fidelity import vs_seed
from lpsched.errors import InvalidInstanceError
from tests.batch.test_fidelity_rows import ch4_cells, ch4_rows, topo_cells, topo_rows
from tests.shared_data import shared_file

CURIE = "CEA-Curie-2011-2.1-cln.swf.gz"
LLNL = "LLNL-Thunder-2007-1.1-cln.swf.gz"
# 8 processors: A [0-2] 10 s, B [3] 4 s, C [4] 10 s, D [5] 4 s, E [6-7] 10 s; at t = 4
# processors 3 and 5 are free (two, not adjacent); F needs 2 for 1 s
RUN = np.array([10.0, 4, 10, 4, 10, 1])
SIZE = np.array([3, 1, 1, 1, 2, 2])


def test_basic_backfills_on_any_two_free_processors() -> None:
    start, procs = slice_plan(RUN, SIZE, 8, "basic")
    assert start.tolist() == [0, 0, 0, 0, 0, 4]
    assert procs[5].tolist() == [3, 5]


def test_forced_contiguous_rejects_the_slice_and_tries_the_next() -> None:
    """[L2838–L2840]: no contiguous block of 2 at t = 4, so the slice is rejected; the
    next slice with a run of 2 free over the whole second is t = 10."""
    start, procs = slice_plan(RUN, SIZE, 8, "cont-ff")
    assert start[5] == 10.0 and procs[5].tolist() == [0, 1]
    assert all(is_contiguous(p) for p in procs)
    be_start, be_procs = slice_plan(RUN, SIZE, 8, "becont-ff")  # best effort: no wait
    assert be_start[5] == 4.0 and be_procs[5].tolist() == [3, 5]


def test_reservations_are_processor_sets_over_the_whole_run() -> None:
    """A later job planned earlier in time uses only processors free over its whole run
    (``P = ∩ S[j]``, [L2771–L2773]): B holds all 4 from 10 s, C (3 s) backfills at 0 on
    the 2 processors A leaves, D (12 s) cannot fit before B ends."""
    start, procs = slice_plan(np.array([10.0, 5, 3, 12]), np.array([2, 4, 2, 2]), 4, "basic")
    assert start.tolist() == [0, 10, 0, 15]
    assert procs[2].tolist() == [2, 3]


def test_zero_run_jobs_hold_their_processors_one_instant() -> None:
    start, _ = slice_plan(np.array([0.0, 5.0]), np.array([2, 2]), 2, "basic")
    assert start.tolist() == [0.0, ZERO_RUN]
    with pytest.raises(InvalidInstanceError, match=r"1\.\.2 processors"):
        slice_plan(np.array([1.0]), np.array([3]), 2, "basic")


def test_slice_plan_is_valid_on_a_curie_instance() -> None:
    from lpsched.batch.reproduce import contiguity_instance
    from lpsched.batch.simulator import BatchSchedule, validate_batch

    work = contiguity_instance(str(shared_file(CURIE)), 3, 300, 512)
    for rule in ("basic", "cont-ff", "loc"):
        start, procs = slice_plan(work.run, work.size, 512, rule, 16)
        sched = BatchSchedule(start=start, end=start + work.run, procs=procs)
        validate_batch(work, sched, 512, cluster_size=16, forced=rule)
        again, _ = slice_plan(work.run, work.size, 512, rule, 16)
        assert np.array_equal(start, again)


def test_under_the_slices_planner_every_differing_ch4_row_cites_274() -> None:
    """Decision 274's nine readings, Algorithm 1's slices among them, were run on the
    whole ch. 4 table: a row that differs under ``--planner slices`` cites it too."""
    cells = [[*c, "all", "slices"] for c in ch4_cells(64)]
    table = vs_seed("contiguity", ch4_rows(64), cells)
    differs = [r for r in table.rows if r.kind.startswith("differs")]
    assert differs and all(r.decision == 274 for r in differs), differs
    assert all("planner slices" in r.note for r in differs)
    assert not any(r.kind == "holds by construction" and "count-profile" in r.verdict
                   for r in table.rows)  # the slices planner moves best-effort starts


def test_llnl_break_even_on_a_cut_log_cites_275() -> None:
    """LLNL's FCFS contiguous break-even of 45 % (seed 5-30 % [001 L158]) on the first
    jobs of the log: decision 275 measured the cut log's early queue as the cause."""
    rows = topo_rows("llnl_thunder", {("fcfs", "contiguous"): 45.0})
    cut = vs_seed("topology-aware", rows, topo_cells(LLNL, 5000))
    row = next(r for r in cut.rows if r.ref == "001-L158b")
    assert row.kind.startswith("differs") and row.decision == 275, row
    whole = vs_seed("topology-aware", rows, topo_cells(LLNL, 0))
    row = next(r for r in whole.rows if r.ref == "001-L158b")
    assert row.kind.startswith("differs") and row.decision is None, row


def test_contiguity_cells_refuse_an_unknown_planner(tmp_path: Path) -> None:
    from lpsched.batch.reproduce import contiguity_cells

    trace = tmp_path / "t.swf"
    trace.write_text("1 0 0 10 4 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1\n")
    with pytest.raises(InvalidInstanceError, match="planner"):
        contiguity_cells(str(trace), 1, 1, 8, 4, planner="tree")
    cells = contiguity_cells(str(trace), 1, 1, 8, 4, planner="slices")
    assert all(c[6:] == ["all", "slices"] for c in cells)
