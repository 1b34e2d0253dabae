"""Every algorithm's metrics on one problem (:mod:`lpsched.ptg.comparison`) and the per-run
row of a run (``RunResult.to_frame(per="run")``)."""

from __future__ import annotations

import dataclasses

import pytest

from lpsched.errors import InvalidInstanceError, InvalidScheduleError
from lpsched.ptg.comparison import check_bounds, compare_algorithms
from lpsched.ptg.generators import fft_ptg, strassen_ptg
from lpsched.ptg.model import get_cluster
from lpsched.ptg.problem import Problem
from lpsched.ptg.registry import ALGORITHMS, run


def _problem() -> Problem:
    return Problem([fft_ptg(4, seed=1), strassen_ptg(seed=2)], get_cluster("chti"), seed=3)


def test_rows_are_each_run_against_the_bounds() -> None:
    res = compare_algorithms(_problem(), ["selfish", "c4", "cafm-cra"])
    b = res.bounds
    assert [r["algorithm"] for r in res.rows] == ["selfish", "c4", "cafm-cra"]
    for row, r in zip(res.rows, res.results, strict=True):
        assert row["makespan"] == r.metrics.makespan
        assert row["makespan_ratio"] == r.metrics.makespan / b.makespan >= 1 - 1e-9
        assert row["ssct_ratio"] == r.metrics.scaled_sum_completion / b.ssct >= 1 - 1e-9
        assert (row["makespan_bound"], row["ssct_bound"]) == (b.makespan, b.ssct)
        assert row["valid"] is True and row["seconds"] == r.seconds
    assert res.bound_seconds > 0


def test_all_is_the_19_in_order_and_the_runs_are_run_s() -> None:
    pb = _problem()
    res = compare_algorithms(pb, "all", lp=False)
    assert [r.algorithm for r in res.results] == list(ALGORITHMS)
    again = run(pb, "cafm-k-shelves")  # same problem, same seed: the same schedule
    last = res.results[-1]
    assert last.metrics.makespan == again.metrics.makespan
    assert (last.schedule.start == again.schedule.start).all()
    assert res.bounds.makespan == res.bounds.makespan_classical  # no LP asked


def test_unknown_or_no_algorithm_is_refused() -> None:
    with pytest.raises(InvalidInstanceError, match="unknown"):
        compare_algorithms(_problem(), "fastest")
    with pytest.raises(InvalidInstanceError, match="at least one"):
        compare_algorithms(_problem(), [])


def test_a_bound_above_a_schedule_is_a_bug() -> None:
    res = compare_algorithms(_problem(), "selfish", lp=False)
    r = res.results[0]
    check_bounds(r, res.bounds)  # the real bounds hold
    high = dataclasses.replace(res.bounds, makespan_classical=r.metrics.makespan * 1.01)
    with pytest.raises(InvalidScheduleError, match="a lower bound exceeds"):
        check_bounds(r, high)


def test_frames_per_run_and_per_algorithm() -> None:
    pytest.importorskip("pandas")
    res = compare_algorithms(_problem(), ["selfish", "cafm-k-shelves"])
    frame = res.to_frame()
    assert frame["algorithm"].tolist() == ["selfish", "cafm-k-shelves"]
    assert frame.to_dict("records") == res.rows
    one = res.results[1].to_frame(per="run")
    assert len(one) == 1 and one.iloc[0].to_dict() == res.results[1].row()
    assert one.iloc[0]["max_stretch"] == frame.iloc[1]["max_stretch"]
    with pytest.raises(ValueError, match="'task' or per 'ptg', or one row for the 'run'"):
        res.results[0].to_frame(per="campaign")
