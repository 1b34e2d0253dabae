"""The schedule type's figures (:mod:`lpsched.ptg.schedule`): the metrics of seed 004 §2
and the four readings of Table 2's utilisation [L729-731] (decisions 337 and 340), computed
by hand on a two-PTG schedule."""

from __future__ import annotations

import numpy as np
import pytest

from lpsched.ptg.schedule import PtgSchedule, metrics, utilisation_readings, validate
from tests.ptg.helpers import chain_fork, small_cluster


def _two_ptg_schedule() -> tuple[PtgSchedule, list[object]]:
    """PTG A: x (6 s sequential) → y (4 s); PTG B: z (3 s); α = 0; P = 4.
    x on {0, 1, 2} over [0, 2], y on {0, 1} over [2, 4], z on {2} over [3, 6]."""
    a = chain_fork({"x": (6.0, 0.0), "y": (4.0, 0.0)}, [("x", "y")], "A")
    b = chain_fork({"z": (3.0, 0.0)}, [], "B")
    s = PtgSchedule(np.array([0.0, 2.0, 3.0]), np.array([2.0, 4.0, 6.0]), np.array([3, 2, 1]),
                    [np.array([0, 1, 2]), np.array([0, 1]), np.array([2])],
                    np.array([0, 0, 1]), np.arange(3))
    return s, [a, b]


def test_table2_utilisation_hand_computed_two_ptgs() -> None:
    """Busy area 3·2 + 2·2 + 1·3 = 13 processor-seconds; Cmax = 6; P = 4.
    * over the makespan (DECIDE-5): 13 / (4·6) = 13/24;
    * over each processor's own span: processors 0 and 1 span [0, 4], processor 2 [0, 6],
      processor 3 none: 13 / (4 + 4 + 6) = 13/14 (the idle end of 0 and 1, and the unused 3,
      left out);
    * processors used at least once: 3 of 4;
    * sampled at the starts 0, 2, 3: 3, 2 and 3 busy, (8/3)/4 = 2/3."""
    s, ptgs = _two_ptg_schedule()
    cluster = small_cluster(4)
    validate(s, ptgs, cluster)  # type: ignore[arg-type]
    r = utilisation_readings(s, 4)
    assert r["makespan"] == pytest.approx(13 / 24)
    assert r["processor_span"] == pytest.approx(13 / 14)
    assert r["used_processors"] == pytest.approx(0.75)
    assert r["start_instants"] == pytest.approx(2 / 3)
    m = metrics(s, np.array([4.0, 3.0]), 4)
    assert m.utilisation == pytest.approx(13 / 24)
    assert m.completion.tolist() == [4.0, 6.0] and m.max_stretch == pytest.approx(2.0)
