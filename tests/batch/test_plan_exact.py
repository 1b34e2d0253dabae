"""Decision 381's savings in the conservative plan change no answer: merging equal
neighbouring breakpoints (:meth:`Profile.trim`) leaves every search's result, and the
textbook re-insertion's plain-Python search (:func:`_earlier_fit`, the slot let go
virtually, breakpoints before its end only) gives what the slot let go for real and
:func:`_first_fit` over the whole plan give. Random plans, each check able to fail."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest

from lpsched.batch.plan import Profile, _earlier_fit, _first_fit
from tests.batch.test_profile_tables import random_profile


@pytest.fixture(autouse=True, params=["as-built", "python"])
def plan_kind(request, monkeypatch):
    """Every check on the plan :class:`Profile` builds (compiled where it is built) and on
    the Python reference (``LPSCHED_PURE_PYTHON=1``)."""
    monkeypatch.setenv("LPSCHED_PURE_PYTHON", "1" if request.param == "python" else "0")
    return request.param


def reserved_plan(rng: np.random.Generator, m: int = 16) -> Profile:
    """A plan built as the simulator builds one: reservations that fit, some let go again
    (which leaves equal neighbouring breakpoints)."""
    prof = Profile(0.0, m)
    held = []
    for _ in range(int(rng.integers(1, 40))):
        size, length = int(rng.integers(1, m + 1)), float(rng.integers(1, 20))
        t = prof.earliest(size, length)
        prof.add(t, t + length, -size)
        held.append((t, t + length, size))
        if held and rng.random() < 0.3:
            a, b, s = held.pop(int(rng.integers(0, len(held))))
            prof.add(a, b, s)
    return prof


@pytest.mark.parametrize("seed", range(60))
def test_merging_equal_breakpoints_changes_no_search(seed):
    rng = np.random.default_rng(seed)
    prof = reserved_plan(rng) if seed % 2 else random_profile(rng)
    for _ in range(80):  # more than the 64 breakpoints below which trim leaves them
        t = float(rng.integers(0, 60)) + 0.25
        prof.add(t, t + 1.0, 0)  # a split, no change of value
    merged = copy.deepcopy(prof)
    merged.trim(float(prof.times[0]))
    if prof.times.size > 64:
        assert merged.times.size < prof.times.size
        assert (merged.free[1:] != merged.free[:-1]).all()
    for size in range(0, 18):
        for length in (0.5, 1.0, 3.0, 7.5, 40.0):
            for after in (None, float(prof.times[0]) + 2.0):
                try:
                    want = prof.earliest(size, length, after)
                except Exception as exc:  # the same error both ways
                    with pytest.raises(type(exc)):
                        merged.earliest(size, length, after)
                    continue
                assert merged.earliest(size, length, after) == want
    assert (merged.held_until(17) == prof.held_until(17)).all()
    sizes = np.arange(18)
    assert (merged.reached_at(sizes) == prof.reached_at(sizes)).all()


@pytest.mark.parametrize("seed", range(200))
def test_earlier_fit_equals_letting_the_slot_go(seed):
    rng = np.random.default_rng(seed)
    prof = reserved_plan(rng)
    size, length = int(rng.integers(1, 17)), float(rng.integers(1, 15))
    rs = prof.earliest(size, length, float(rng.integers(0, 40)))  # a slot the job holds
    re = rs + length
    prof.add(rs, re, -size)
    got = _earlier_fit(prof.times, prof.free, size, length, rs, re)
    prof.add(rs, re, size)  # the reference: let it go for real, search the whole plan
    t = _first_fit(prof.times, prof.free, size, length)
    assert got == (t if t < rs else math.inf), (got, t, rs)
