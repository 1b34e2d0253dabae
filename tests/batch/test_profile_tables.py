"""The tables :meth:`Profile.held_until`, :meth:`Profile.held_for` and
:meth:`Profile.reached_at` (decisions 279, 461) answer the tests a search of the
breakpoints per job answers, and :meth:`Profile.earliest`'s test of the first run alone
gives what the vectorised search of every run (:func:`_first_fit`) gives: checked against
those searches on random profiles."""

from __future__ import annotations

import numpy as np
import pytest

from lpsched.batch.plan import Profile, _first_fit
from lpsched.errors import InvalidInstanceError


@pytest.fixture(autouse=True, params=["as-built", "python"])
def plan_kind(request, monkeypatch):
    """Every check on the plan :class:`Profile` builds (compiled where it is built) and on
    the Python reference (``LPSCHED_PURE_PYTHON=1``)."""
    monkeypatch.setenv("LPSCHED_PURE_PYTHON", "1" if request.param == "python" else "0")
    return request.param


def random_profile(rng: np.random.Generator, m: int = 16) -> Profile:
    prof = Profile(float(rng.integers(0, 5)), int(rng.integers(0, m + 1)))
    for _ in range(int(rng.integers(0, 12))):
        start = float(rng.integers(0, 30))
        prof.add(start, start + float(rng.integers(1, 10)), int(rng.integers(-4, 5)))
    return prof


@pytest.mark.parametrize("seed", range(40))
def test_held_until_equals_the_running_minimum_search(seed):
    rng = np.random.default_rng(seed)
    prof = random_profile(rng)
    top = 20
    held = prof.held_until(top)
    least = np.minimum.accumulate(prof.free)
    probes = np.concatenate([prof.times, prof.times + 0.5, prof.times - 0.5, [np.inf]])
    for size in range(top + 1):
        for x in probes:  # the search: size free on every breakpoint before x
            last = max(int(np.searchsorted(prof.times, x, side="left")) - 1, 0)
            assert (x <= held[size]) == (least[last] >= size), (size, x)


@pytest.mark.parametrize("seed", range(40))
def test_reached_at_equals_the_running_maximum_search(seed):
    rng = np.random.default_rng(seed)
    prof = random_profile(rng)
    most = np.maximum.accumulate(prof.free)
    probes = np.concatenate([prof.times, prof.times + 0.5, prof.times - 0.5, [np.inf]])
    for sizes in (np.arange(21), np.array([3, 3, 7])):  # the table and the direct search
        reached = prof.reached_at(sizes)
        for size, at in zip(sizes, reached, strict=True):
            for rs in probes:  # the search: size free on some breakpoint before rs
                last = max(int(np.searchsorted(prof.times, rs, side="left")) - 1, 0)
                assert (at < rs) == (most[last] >= size), (size, rs)


def test_a_profile_without_enough_processors_never_holds_or_reaches():
    prof = Profile(0.0, 4)
    prof.add(2.0, 5.0, -3)
    assert prof.held_until(5).tolist() == [np.inf] * 2 + [2.0] * 3 + [-np.inf]
    assert prof.reached_at(np.array([1, 4, 5])).tolist() == [-np.inf, -np.inf, np.inf]


@pytest.mark.parametrize("seed", range(10))
def test_held_until_stopped_early_keeps_the_wanted_entries(seed):
    rng = np.random.default_rng(seed)
    prof = Profile(0.0, 64)
    for _ in range(600):  # more breakpoints than the first chunks of the early stop
        start = float(rng.uniform(0, 1000))
        prof.add(start, start + float(rng.uniform(0.5, 40)), int(rng.integers(-6, 4)))
    full = prof.held_until(64)
    for least_size in (1, 5, 20, 40, 64):
        assert prof.held_until(64, least_size)[least_size:].tolist() \
            == full[least_size:].tolist()



def first_fit_or_none(find):
    try:
        return find()
    except InvalidInstanceError:
        return "none"


@pytest.mark.filterwarnings("ignore:invalid value")
@pytest.mark.parametrize("seed", range(30))
def test_earliest_run_by_run_equals_the_vectorised_search(seed):
    rng = np.random.default_rng(seed)
    prof = random_profile(rng) if seed % 2 else Profile(0.0, 8)
    if not seed % 2:  # many short runs: past the first four, the vectorised fallback
        for k in range(40):
            prof.add(2.0 * k + 1, 2.0 * k + 2, -int(rng.integers(1, 9)))
    for size in range(10):
        for length in (0.5, 1.0, 1.0 + 1e-12, 3.0, 50.0, np.inf):
            for after in (None, 3.0, 7.5):
                times, free = prof.times, prof.free
                if after is not None and after > times[0]:
                    i = int(np.searchsorted(times, after, side="right")) - 1
                    times, free = times[i:].copy(), free[i:]
                    times[0] = after
                new = first_fit_or_none(lambda: prof.earliest(size, length, after))  # noqa: B023
                old = first_fit_or_none(lambda: _first_fit(times, free, size, length))  # noqa: B023
                assert new == old, (size, length, after)


@pytest.mark.parametrize("seed", range(30))
def test_held_for_is_held_until_at_the_sizes(seed):
    """Decision 461: :meth:`Profile.held_for` gives :meth:`Profile.held_until`'s entries at
    the sizes asked for."""
    rng = np.random.default_rng(seed)
    prof = Profile(float(rng.integers(0, 5)), int(rng.integers(0, 17)))
    for _ in range(int(rng.integers(0, 12))):
        start = float(rng.integers(0, 30))
        prof.add(start, start + float(rng.integers(1, 10)), int(rng.integers(-4, 5)))
    sizes = rng.integers(0, 20, int(rng.integers(1, 6)))
    want = prof.held_until(int(sizes.max()), int(sizes.min()))[sizes]
    assert prof.held_for(sizes).tolist() == want.tolist()
