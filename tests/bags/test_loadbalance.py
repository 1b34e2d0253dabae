import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lpsched.bags.loadbalance import s1d, s1d_reversed
from lpsched.errors import InvalidInstanceError


@st.composite
def fluid(draw):
    n = draw(st.integers(1, 5))
    raw = np.array(draw(st.lists(st.floats(0.05, 1.0), min_size=n, max_size=n)))
    total = draw(st.floats(0.1, 1.0))
    shares = raw / raw.sum() * total
    times = np.array(draw(st.lists(st.floats(0.01, 10.0), min_size=n, max_size=n)))
    counts = np.array(draw(st.lists(st.integers(0, 12), min_size=n, max_size=n)))
    return shares, times, counts


@given(fluid(), st.floats(-100, 100))
def test_lemma1_no_task_ends_later_than_fluid(data, t0):
    shares, times, counts = data
    p = s1d(t0, shares, times, counts)
    assert np.bincount(p.app, minlength=shares.size).tolist() == counts.tolist()
    assert (p.end <= t0 + p.index * times[p.app] / shares[p.app] + 1e-9 * (1 + abs(t0))).all()
    assert (p.end <= p.fluid + 1e-9 * (1 + abs(t0))).all()
    assert np.allclose(p.start[1:], p.end[:-1])  # back-to-back from t0
    if p.app.size:
        assert p.start[0] == t0


@given(fluid(), st.floats(-100, 100))
def test_lemma2_no_task_starts_earlier_than_fluid(data, t1):
    shares, times, counts = data
    p = s1d_reversed(t1, shares, times, counts)
    fluid_start = t1 - p.index * times[p.app] / shares[p.app]
    assert (p.start >= fluid_start - 1e-9 * (1 + abs(t1))).all()
    assert np.allclose(p.fluid, fluid_start)
    if p.app.size:
        assert p.end[-1] == pytest.approx(t1)
        assert (np.diff(p.start) > 0).all()
    # right-packing equals mirror -> S_1D -> mirror
    mirrored = s1d(-t1, shares, times, counts)
    assert np.allclose(np.sort(-mirrored.end), np.sort(p.start))


def test_bad_shares_are_rejected():
    with pytest.raises(InvalidInstanceError, match="sum to at most 1"):
        s1d(0.0, [0.7, 0.7], [1.0, 1.0], [1, 1])
    with pytest.raises(InvalidInstanceError, match="positive share"):
        s1d(0.0, [0.0, 0.5], [1.0, 1.0], [1, 1])
    with pytest.raises(InvalidInstanceError, match="whole numbers"):
        s1d(0.0, [0.5], [1.0], [1.5])
