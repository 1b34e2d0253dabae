"""The ch. 4 and ch. 5 generators (spec §4.6, A4, A16): determinism and distributions."""

from __future__ import annotations

import numpy as np
import pytest

from lpsched.campaigns.generators import (
    ZIPF_EXPONENT,
    faircamp_workload,
    generate,
    profiles_workload,
    short_users,
)
from lpsched.errors import InvalidInstanceError


def test_faircamp_profile() -> None:
    w = faircamp_workload(5, 20_000, seed=4)
    again = faircamp_workload(5, 20_000, seed=4)
    assert np.array_equal(w.p, again.p) and np.array_equal(w.offsets, again.offsets)
    assert w.processors == 10 and w.users == 5 and w.jobs == 20_000
    assert set(np.unique(w.p).tolist()) <= set(range(1, 101))        # integer U{1..100}
    assert abs(w.campaigns / w.jobs - 0.1) < 0.01                    # P(new) = 0.1
    assert np.all(np.isnan(w.submit)) and np.all(w.think == 0)       # closed loop, tt = 0
    freq = np.bincount(w.user, minlength=5) / w.campaigns
    zipf = np.arange(1, 6) ** -ZIPF_EXPONENT
    assert np.allclose(freq, zipf / zipf.sum(), atol=0.03)


def test_profiles() -> None:
    w = profiles_workload(4, 5000, seed=1)
    assert w.processors == 64
    short = short_users(w)[w.user[w.camp]]
    assert w.p[short].max() <= 3600 and w.p[~short].min() >= 3600
    assert abs(w.campaigns / w.jobs - 0.02) < 0.01


def test_generate_checks() -> None:
    with pytest.raises(InvalidInstanceError):
        generate("nope", 3, 10, 0)
    with pytest.raises(InvalidInstanceError):
        generate("faircamp", 0, 10, 0)
