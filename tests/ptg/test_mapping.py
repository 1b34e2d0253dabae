"""M-READY, M_RIGID and BACKFILL (spec §3.4, §3.6, §4.4)."""

from __future__ import annotations

import numpy as np
import pytest

from lpsched.ptg.mapping import backfill, m_ready, m_rigid
from lpsched.ptg.model import flatten, single
from lpsched.ptg.schedule import PtgSchedule, metrics, validate
from tests.ptg.helpers import SPEED, chain_fork, small_cluster


def test_m_ready_hand_computed() -> None:
    # a (3 procs, 33.3 s) starts at 0; b needs 2 of the 1 free processor: skipped, starts
    # later; c (1 proc, 10 s) fits beside a (greedy skip, DECIDE-6).
    g = chain_fork({"a": (100.0, 0.0), "b": (60.0, 0.0), "c": (10.0, 0.0)}, [])
    d = single(g, SPEED)
    idx = {t: k for k, t in enumerate(g.ids)}
    p = np.where(d.dummy, 0, 1)
    p[idx["a"]], p[idx["b"]] = 3, 2
    key = np.zeros(d.n)
    key[idx["a"]], key[idx["b"]], key[idx["c"]] = 0, 1, 2
    s = m_ready(d, p, (key,), 4, np.random.default_rng(0))
    assert s.start[idx["a"]] == 0 and s.procs[idx["a"]].tolist() == [0, 1, 2]
    assert s.start[idx["c"]] == 0 and s.procs[idx["c"]].tolist() == [3]
    # at 10 only processor 3 is free again: b (2 processors) waits for a, until 100/3
    assert s.start[idx["b"]] == pytest.approx(100 / 3)
    validate(s, [g], small_cluster(4))


def test_m_rigid() -> None:
    start, procs = m_rigid(np.array([3, 2, 1]), np.array([5.0, 4.0, 2.0]), np.array([0, 1, 2]),
                           4)
    assert start.tolist() == [0.0, 5.0, 0.0]
    assert procs[2].tolist() == [3]


def _two_singletons() -> tuple[list, object]:
    g1 = chain_fork({"x": (10.0, 0.0)}, [], "A")
    g2 = chain_fork({"y": (10.0, 0.0)}, [], "B")
    return [g1, g2], flatten([g1, g2], SPEED)[0]


def test_backfill_moves_into_a_hole_and_may_change_processors() -> None:
    ptgs, dag = _two_singletons()
    s = PtgSchedule(np.array([0.0, 10.0]), np.array([10.0, 20.0]), np.array([1, 1]),
                    [np.array([0]), np.array([0])], np.array([0, 1]), np.array([0, 1]))
    validate(s, ptgs, small_cluster(2))
    b = backfill(s, dag, 2)
    assert b.start.tolist() == [0.0, 0.0] and b.procs[1].tolist() == [1]
    validate(b, ptgs, small_cluster(2))


def test_backfill_keeps_a_task_that_cannot_move() -> None:
    _ptgs, dag = _two_singletons()
    s = PtgSchedule(np.array([0.0, 10.0]), np.array([10.0, 20.0]), np.array([1, 1]),
                    [np.array([0]), np.array([0])], np.array([0, 1]), np.array([0, 1]))
    b = backfill(s, dag, 1)
    assert b.start.tolist() == [0.0, 10.0]


def test_backfill_never_delays_and_respects_later_tasks() -> None:
    # y (2 procs, [10, 15]) and a later-mapped z on processor 1 at [2, 6]: y cannot move
    # to 0 because z is in the way until 6 (conservative: z is not delayed).
    g1 = chain_fork({"x": (10.0, 0.0)}, [], "A")
    g2 = chain_fork({"y": (10.0, 0.0)}, [], "B")
    g3 = chain_fork({"z": (4.0, 0.0)}, [], "C")
    dag = flatten([g1, g2, g3], SPEED)[0]
    s = PtgSchedule(np.array([0.0, 10.0, 2.0]), np.array([10.0, 15.0, 6.0]),
                    np.array([1, 2, 1]), [np.array([0]), np.array([0, 1]), np.array([1])],
                    np.array([0, 1, 2]), np.array([0, 1, 2]))
    validate(s, [g1, g2, g3], small_cluster(2))
    b = backfill(s, dag, 2)
    assert (b.start <= s.start).all()
    assert b.start.tolist() == [0.0, 10.0, 0.0]  # z moves to 0 on processor 1 (its own)
    validate(b, [g1, g2, g3], small_cluster(2))


def test_metrics_hand_computed() -> None:
    _ptgs, _ = _two_singletons()
    s = PtgSchedule(np.array([0.0, 10.0]), np.array([10.0, 20.0]), np.array([1, 1]),
                    [np.array([0]), np.array([0])], np.array([0, 1]), np.array([0, 1]))
    m = metrics(s, np.array([10.0, 10.0]), 2)
    assert m.scaled_sum_completion == pytest.approx(30 / 20)
    assert m.max_stretch == pytest.approx(2.0) and m.unfairness == m.max_stretch
    assert m.utilisation == pytest.approx(20 / (2 * 20))
    assert m.makespan == 20.0
