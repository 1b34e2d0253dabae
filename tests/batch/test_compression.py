"""Conservative backfilling's compression rules (decisions 154 and 158): the textbook rule of
Mu'alem & Feitelson (2001), the default, against the seed's reassignment (seed 000 §5.5),
``none`` and ``rebuild``, on traces computed by hand, and the textbook property "no
reservation ever moves later" on random workloads."""

from __future__ import annotations

from collections import defaultdict
from itertools import pairwise
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lpsched.batch.simulator as simulator
from lpsched.batch.simulator import COMPRESSIONS, simulate_batch, validate_batch
from lpsched.core.swf import Workload
from lpsched.errors import InvalidInstanceError


def hand(submit: list[float], run: list[float], size: list[int], est: list[float],
         m: int) -> Workload:
    n = len(submit)
    return Workload(job=np.arange(1, n + 1), submit=np.array(submit, float),
                    run=np.array(run, float), size=np.array(size),
                    estimate=np.array(est, float), processors=m)


def random_workload(seed: int, n: int = 50, m: int = 16) -> Workload:
    rng = np.random.default_rng(seed)
    run = np.round(rng.uniform(1, 100, n), 1)
    est = np.round(run * rng.uniform(1.0, 4.0, n), 1)
    return Workload(job=np.arange(1, n + 1), submit=np.sort(np.round(rng.uniform(0, 300, n))),
                    run=run, size=rng.integers(1, m + 1, n), estimate=est, processors=m)


#: 2 processors. J1 (2 procs, estimate 10) runs [0, 2); J2 (2 procs, 10) is reserved at 10,
#: J3 (1 proc, 5) at 20. J1 ends early at 2: J2 fits now under every compressing rule and
#: starts; then textbook re-inserts J3 at 12 (J2's estimated end), while reassign keeps it at
#: 20 (it cannot start *now*): J2 ends at its estimate, so nothing ends early again and the
#: machine idles over [12, 20).
EARLIER_NOT_NOW = hand([0, 0, 0], [2, 10, 5], [2, 2, 1], [10, 10, 5], 2)

#: 2 processors. R1 (1 proc, estimate 10) ends early at 1, R2 (1 proc, 4) runs [0, 4); A
#: (2 procs, 5) is reserved at 10, then B (1 proc, 3) backfills into [4, 7). At 1 textbook
#: re-inserts A first, with B still in place: the earliest 2 processors for 5 s are at 7
#: (not 4, B holds one over [4, 7)); B then starts now. Reassign starts B now but leaves A
#: at 10; rebuild re-plans A from the running jobs alone, at 4; none keeps A at 10, B at 4.
OTHERS_STAY = hand([0, 0, 0, 0], [1, 4, 5, 3], [1, 1, 2, 1], [10, 4, 5, 3], 2)


@pytest.mark.parametrize(("compression", "starts"), [("textbook", [0, 2, 12]),
                                                     ("reassign", [0, 2, 20]),
                                                     ("none", [0, 10, 20]),
                                                     ("rebuild", [0, 2, 12])])
def test_textbook_moves_a_reservation_earlier_but_not_to_now(compression, starts):
    sched, stats = simulate_batch(EARLIER_NOT_NOW, "conservative", compression=compression)
    assert sched.start.tolist() == starts
    validate_batch(EARLIER_NOT_NOW, sched, 2)
    if compression != "rebuild":
        assert stats["first_reservation"].tolist() == [0, 10, 20]


@pytest.mark.parametrize(("compression", "starts"), [("textbook", [0, 0, 7, 1]),
                                                     ("reassign", [0, 0, 10, 1]),
                                                     ("none", [0, 0, 10, 4]),
                                                     ("rebuild", [0, 0, 4, 1])])
def test_textbook_reinserts_with_the_later_reservations_in_place(compression, starts):
    sched, _ = simulate_batch(OTHERS_STAY, "conservative", compression=compression)
    assert sched.start.tolist() == starts
    validate_batch(OTHERS_STAY, sched, 2)


def test_textbook_is_the_default_and_agrees_with_reassign_on_fig_5_3():
    """Seed 000 Fig. 5.3 (see test_simulator): only start-now moves exist there, so the
    textbook rule gives the seed's answer too."""
    w = hand([0, 0, 0, 0], [10, 2, 3, 1], [1, 1, 1, 1], [10, 10, 10, 5], 2)
    default, _ = simulate_batch(w, "conservative")
    textbook, _ = simulate_batch(w, "conservative", compression="textbook")
    assert default.start.tolist() == textbook.start.tolist() == [0, 0, 2, 5]
    assert COMPRESSIONS[0] == "textbook"
    assert simulate_batch(EARLIER_NOT_NOW, "conservative")[0].start.tolist() == [0, 2, 12]


def test_compression_is_refused_outside_conservative():
    w = hand([0], [1], [1], [1], 1)
    for compression in COMPRESSIONS:
        with pytest.raises(InvalidInstanceError, match="conservative backfilling only"):
            simulate_batch(w, "easy", compression=compression)
    with pytest.raises(InvalidInstanceError, match="must be one of"):
        simulate_batch(w, "conservative", compression="squeeze")


class _Recorded(simulator._BatchSim):
    """The simulator with every reservation it sets recorded, per job, in order."""

    history: dict[int, list[float]]

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        history: dict[int, list[float]] = defaultdict(list)

        class Slots(dict):
            def __setitem__(self, j: int, interval: tuple[float, float]) -> None:
                history[j].append(interval[0])
                super().__setitem__(j, interval)

        self.slot = Slots()
        _Recorded.history = history


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(2, 24))
def test_textbook_never_moves_a_reservation_later(seed, m):
    """Run times within the estimates (killed at the estimate, so no overrun): each job's
    successive reservations never increase, it starts at its last one, never after its
    first; the schedule is valid."""
    w = random_workload(seed, m=m)
    original = simulator._BatchSim
    simulator._BatchSim = _Recorded  # type: ignore[misc]
    try:
        sched, stats = simulate_batch(w, "conservative", kill=True, compression="textbook")
    finally:
        simulator._BatchSim = original  # type: ignore[misc]
    validate_batch(w, sched, m)
    history = _Recorded.history
    assert sorted(history) == list(range(w.jobs))
    for j, starts in history.items():
        assert all(b <= a for a, b in pairwise(starts)), (j, starts)
        assert sched.start[j] == starts[-1]
    assert (sched.start <= stats["first_reservation"]).all()


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from(COMPRESSIONS), st.booleans())
def test_every_compression_gives_a_valid_schedule(seed, compression, kill):
    w = random_workload(seed)
    sched, _ = simulate_batch(w, "conservative", kill=kill, compression=compression)
    validate_batch(w, sched, 16)
    assert np.allclose(sched.end - sched.start, np.minimum(w.run, w.estimate) if kill
                       else w.run)


def test_the_recorder_sees_a_move_later_when_there_is_one():
    """The property test can fail: with an overrun (J1, estimate 5, runs 10 on the one
    processor) J2's reservation at 5 falls due on a busy processor and moves to 10."""
    w = hand([0, 0], [10, 1], [1, 1], [5, 1], 1)
    original = simulator._BatchSim
    simulator._BatchSim = _Recorded  # type: ignore[misc]
    try:
        sched, _ = simulate_batch(w, "conservative", compression="textbook")
    finally:
        simulator._BatchSim = original  # type: ignore[misc]
    assert sched.start.tolist() == [0, 10]
    assert _Recorded.history[1][0] == 5 and _Recorded.history[1][-1] == 10
