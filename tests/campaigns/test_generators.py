"""The ch. 4 and ch. 5 generators (spec §4.6, A4, A16): determinism and distributions."""

from __future__ import annotations

import json

import numpy as np
import pytest

from lpsched.campaigns.generators import (
    MAX_JOBS,
    ZIPF_EXPONENT,
    check_sizes,
    faircamp_workload,
    generate,
    profiles_workload,
    short_users,
)
from lpsched.campaigns.instance import MAX_USERS, from_dict, to_dict
from lpsched.core.swf import MAX_PROCESSORS
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


# -- the sizes a workload file may hold (decision 248) --------------------------------------

# -- finding 6: generator limits -----------------------------------------------------------

@pytest.mark.parametrize("users, jobs, processors, field", [
    (MAX_USERS + 1, 10, 10, "users"), (10, MAX_JOBS + 1, 10, "jobs"),
    (10, 10**9, 10, "jobs"), (10, 10, MAX_PROCESSORS + 1, "processors"),
    (0, 10, 10, "users"), (10, 10, 0, "processors"), (True, 10, 10, "users"),
])
def test_generators_refuse_sizes_out_of_range(users: int, jobs: int, processors: int,
                                               field: str) -> None:
    for make in (faircamp_workload, profiles_workload):
        with pytest.raises(InvalidInstanceError, match="whole number from 1 to") as info:
            make(users, jobs, 0, processors)
        assert info.value.field == field
    with pytest.raises(InvalidInstanceError):
        check_sizes(users, jobs, processors)


def test_generate_zero_processors_is_refused_not_the_default() -> None:
    """``processors=0`` is refused, not read as the profile's default (``None`` is the
    default)."""
    for profile in ("faircamp", "profiles"):
        with pytest.raises(InvalidInstanceError) as info:
            generate(profile, 3, 10, 0, processors=0)
        assert info.value.field == "processors"
    assert generate("faircamp", 3, 10, 0).processors == 10
    assert generate("profiles", 3, 10, 0).processors == 64


def test_the_largest_generated_workload_loads() -> None:
    """At the limits, the workload file is one ``campaigns run`` accepts."""
    w = profiles_workload(MAX_USERS, 20, seed=1, processors=MAX_PROCESSORS)
    again = from_dict(json.loads(json.dumps(to_dict(w))))
    assert again.users == MAX_USERS and again.processors == MAX_PROCESSORS
