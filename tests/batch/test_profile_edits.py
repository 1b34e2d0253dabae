"""Conservative backfilling's plan edits: :meth:`Profile.add` inserts both breakpoints in one
copy; it must give exactly the profile of the two-split reading (:meth:`Profile._split` at
the start, then at the end, then the slice added), on random edits and on the edge cases
(an end inside the start's segment, breakpoints already there, an infinite end, a start
before the profile). The plan the simulator builds (:class:`Profile`, compiled where it is
built) is checked the same way as the Python reference (:class:`PythonProfile`)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lpsched.batch.plan import Profile, PythonProfile

CLASSES = pytest.mark.parametrize("make", [PythonProfile, Profile],
                                  ids=["python", "as-built"])


def _reference_add(prof: PythonProfile, start: float, end: float, delta: int) -> None:
    start = max(start, float(prof.times[0]))
    if not end > start:
        return
    a = prof._split(start)
    b = prof._split(end) if end < math.inf else prof.times.size
    prof.free[a:b] += delta


def _pair(make: type, now: float, free: int) -> tuple[Profile, PythonProfile]:
    return make(now, free), PythonProfile(now, free)


@CLASSES
@pytest.mark.parametrize("seed", range(8))
def test_add_matches_two_splits(seed: int, make: type) -> None:
    rng = np.random.default_rng(seed)
    fast, ref = _pair(make, 5.0, 64)
    grid = np.arange(0.0, 40.0, 2.5)  # repeated times: breakpoints often already there
    for _ in range(300):
        start = float(rng.choice(grid)) if rng.random() < 0.5 else float(rng.uniform(0, 40))
        if rng.random() < 0.1:
            end = math.inf
        elif rng.random() < 0.4:
            end = float(rng.choice(grid))
        else:
            end = start + float(rng.uniform(-1, 10))
        delta = int(rng.integers(-8, 9))
        fast.add(start, end, delta)
        _reference_add(ref, start, end, delta)
        assert fast.times.tolist() == ref.times.tolist()
        assert fast.free.tolist() == ref.free.tolist()
        assert fast.free.dtype == ref.free.dtype == np.int64
        if rng.random() < 0.05:
            now = float(rng.uniform(float(fast.times[0]), 45))
            fast.trim(now)
            ref.trim(now)


@CLASSES
def test_add_edge_cases(make: type) -> None:
    fast, ref = _pair(make, 0.0, 10)
    for start, end, delta in ((1.0, 2.0, -3), (1.5, 1.75, -1), (1.0, 2.0, 3), (-5.0, 1.5, 2),
                              (2.0, math.inf, -4), (0.5, math.inf, 1), (3.0, 3.0, 7),
                              (4.0, 2.0, 7), (1.75, 2.0, -2)):
        fast.add(start, end, delta)
        _reference_add(ref, start, end, delta)
        assert (fast.times.tolist(), fast.free.tolist()) == (ref.times.tolist(),
                                                              ref.free.tolist())
