"""Seed 000 ch. 4 Algorithm 1 with processor sets (reading (h), decision 274) and the rows
decisions 274–276 explain."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lpsched.batch.allocation import ZERO_RUN, is_contiguous, slice_plan
from lpsched.batch.fidelity import contiguity_table, platform_table, topology_table
from lpsched.errors import InvalidInstanceError
from tests.shared_data import shared_file

CURIE = "CEA-Curie-2011-2.1-cln.swf.gz"
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


def test_explained_rows_point_at_their_decisions() -> None:
    summ = {a: {"instances": 512, "mean_deviation": d, "within_2pct": w, "local_jobs": loc,
                "contiguous_jobs": 1.0}
            for a, d, w, loc in (("basic", 0, 1, .54), ("becont-ff", 0, 1, .55),
                                 ("cont-ff", .0478, .566, .67), ("beloc", 0, 1, .7685),
                                 ("loc", .0203, .8242, 1.0))}
    verdicts = [r.verdict for r in contiguity_table(summ).rows]
    assert verdicts[:6] == ["match", "differs: explained by decision 274", "match", "match",
                            "differs: explained by decision 274",
                            "differs: explained by decision 274"]
    topo = topology_table({"llnl_thunder": [
        {"policy": "fcfs", "alloc": "contiguous", "break_even_speedup": 45.0},
        {"policy": "easy", "alloc": "contiguous", "break_even_speedup": 15.0}]}, {})
    assert [r.verdict for r in topo.rows[:2]] == ["differs: explained by decision 275",
                                                  "match"]
    kth = {a: {"sum_flow": v, "instances": 30} for a, v in (
        ("becont", .983), ("beloc", .928), ("beplat", .906), ("cont", 1.213), ("loc", 1.018),
        ("plat", 1.045))}
    rows = {r.figure: r.verdict for r in platform_table({"kth_sp2": kth}, {}).rows}
    assert rows["kth_sp2: plat sum flow / basic's"] == "differs: explained by decision 276"
    assert rows["kth_sp2: loc sum flow / basic's"] == "close"
    assert rows["kth_sp2: beloc sum flow / basic's"] == "match"


def test_under_the_slices_planner_every_differing_ch4_row_cites_274() -> None:
    summ = {a: {"instances": 512, "mean_deviation": d, "within_2pct": w, "local_jobs": .888,
                "contiguous_jobs": 1.0}
            for a, d, w in (("basic", 0, 1), ("becont-ff", .0004, .9785),
                            ("cont-ff", .0158, .539), ("beloc", 0, .9766), ("loc", .0047, .902))}
    rows = contiguity_table(summ, planner="slices").rows
    assert [r.verdict for r in rows[:6]] == [
        "match", "match", "differs: explained by decision 274",
        "differs: explained by decision 274", "differs: explained by decision 274", "match"]
    assert contiguity_table(summ).rows[2].verdict == "differs"  # profile: not explained


def test_contiguity_cells_refuse_an_unknown_planner(tmp_path: Path) -> None:
    from lpsched.batch.reproduce import contiguity_cells

    trace = tmp_path / "t.swf"
    trace.write_text("1 0 0 10 4 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1\n")
    with pytest.raises(InvalidInstanceError, match="planner"):
        contiguity_cells(str(trace), 1, 1, 8, 4, planner="tree")
    cells = contiguity_cells(str(trace), 1, 1, 8, 4, planner="slices")
    assert all(c[6:] == ["all", "slices"] for c in cells)
