"""The balanced instance family (lpsched.bags.generators, profile "balanced"; decisions 147-148)."""

import hashlib

import numpy as np
import pytest

from lpsched.bags import PROFILES, instance_to_dict, random_bags
from lpsched.bags.generators import BALANCED


def _digest(inst):
    """A digest of the instance's values to 12 significant digits: numpy releases differ in
    the last bit of ``exp``/``log`` (numpy 1.24 vs 2.x: 1.6e-16 relative), which the same
    seed must not turn into a different digest."""
    h = hashlib.sha256()
    for a in (inst.release, inst.tasks, inst.work, inst.size, inst.platform.speeds,
              inst.platform.bandwidths):
        h.update(",".join(f"{x:.12g}" for x in np.asarray(a, dtype=np.float64).ravel())
                 .encode())
    h.update(inst.platform.port.encode())
    return h.hexdigest()[:16]


# Computed with the generator of commit e86136f, before the balanced profile existed (and
# checked equal under numpy 1.24 and 2.x, the digest being of 12 significant digits): the
# seed 003 profiles must keep drawing exactly the same instances. The simgrid entries pin
# that generator's base bandwidth of 1.25e6 B/s (10 Mbit/s): decision 36 made 100 Mbit/s
# the simgrid default, which changes the bandwidths only (by a factor of 10, tested below),
# so the digests of e86136f still check that the draws themselves are unchanged.
OLD_SIMGRID = 1.25e6
PINNED = [
    (dict(profile="simgrid", seed=0, base_bandwidth=OLD_SIMGRID), "e35420cf3a32b08d"),
    (dict(profile="simgrid", seed=1, base_bandwidth=OLD_SIMGRID), "1b69529e40d172c0"),
    (dict(profile="simgrid", seed=12345, base_bandwidth=OLD_SIMGRID), "0edb7fe7ff7dd45f"),
    (dict(profile="mpi", seed=0), "aaeafc8bce84111f"),
    (dict(profile="mpi", seed=7), "c7efd4b8bd0f5e1f"),
    (dict(apps=5, workers=3, profile="simgrid", seed=3, arrivals="interarrival",
          base_bandwidth=OLD_SIMGRID), "ee1634bb3e79302f"),
    (dict(apps=7, workers=4, profile="mpi", seed=4, integer_slowdowns=False,
          port="multiport"), "ffd7916ab593665f"),
    (dict(profile="simgrid", seed=2, base_bandwidth=1.25e7, base_speed=2e9),
     "7f69b32ed42ee3f9"),
    (dict(apps=100, workers=20, profile="simgrid", seed=5, base_bandwidth=OLD_SIMGRID),
     "bd5a7841aaa1fedd"),
]


@pytest.mark.parametrize(("kwargs", "digest"), PINNED)
def test_seed003_profiles_draw_the_same_instances_as_before(kwargs, digest):
    assert _digest(random_bags(**kwargs)) == digest


@pytest.mark.parametrize("kwargs", [k for k, _ in PINNED
                                    if k.get("base_bandwidth") == OLD_SIMGRID])
def test_simgrid_default_is_the_old_draw_with_100_mbit_links(kwargs):
    """Decision 36: the simgrid default (no ``base_bandwidth``) is the pinned instance with
    every link 10 times faster (12.5e6 B/s before slowdowns), nothing else changed."""
    old = random_bags(**kwargs)
    new = random_bags(**{k: v for k, v in kwargs.items() if k != "base_bandwidth"})
    assert PROFILES["simgrid"].base_bandwidth == 12.5e6
    assert PROFILES["mpi"].base_bandwidth == 1.25e6
    assert np.allclose(new.platform.bandwidths, old.platform.bandwidths * 10, rtol=1e-15, atol=0)
    assert _digest(new) == _digest(random_bags(**{**kwargs, "base_bandwidth": 12.5e6}))
    for field in ("release", "tasks", "work", "size"):
        assert np.array_equal(getattr(new, field), getattr(old, field))
    assert np.array_equal(new.platform.speeds, old.platform.speeds)


def test_balanced_ranges_and_shape():
    for seed in range(10):
        inst = random_bags(profile="balanced", seed=seed)
        assert (inst.n, inst.p, inst.platform.port) == (20, 10, "one-port")
        assert ((inst.tasks >= 10) & (inst.tasks <= 130)).all()
        assert np.array_equal(inst.tasks, np.round(inst.tasks))
        assert ((inst.work >= 3e9) & (inst.work <= 10e9)).all()
        assert ((inst.size >= 4e6) & (inst.size <= 20e6)).all()
        cpu_slow = 1e9 / inst.platform.speeds
        link_slow = 10e6 / inst.platform.bandwidths
        for slow in (cpu_slow, link_slow):
            assert ((slow >= 1) & (slow <= 10)).all()
            assert not np.allclose(slow, np.round(slow))  # real, not integer, slowdowns
        assert (np.diff(inst.release) >= 0).all() and (inst.release > 0).all()
        assert inst.extra["generator"]["profile"] == "balanced"
    # the per-application ranges the profile documents hold
    assert (inst.tasks * inst.work <= BALANCED.max_work_per_app).all()
    assert (inst.tasks * inst.size <= BALANCED.max_comm_per_app).all()


def test_balanced_draws_spread_over_their_ranges():
    inst = random_bags(400, 50, profile="balanced", seed=3)
    assert inst.tasks.min() <= 15 and inst.tasks.max() >= 125
    assert inst.work.min() < 3.3e9 and inst.work.max() > 9.7e9
    assert inst.size.min() < 5e6 and inst.size.max() > 19e6
    assert abs(np.median(np.log(inst.release)) - 4.0) < 0.25  # exp(N(4, 1.2²))


def test_balanced_computation_and_communication_are_of_the_same_order():
    """The point of the family: the master's port and the CPUs are loaded alike (the seed's
    literal 10 Mbit/s links, simgrid's default before decision 36, make the port the
    bottleneck by far; its 100 Mbit/s default divides that ratio by exactly 10)."""
    def ratio(inst):
        port = (inst.tasks * inst.comm_time.min(axis=1)).sum()
        cpus = (inst.tasks * inst.work).sum() / inst.platform.speeds.sum()
        return port / cpus

    balanced = [ratio(random_bags(profile="balanced", seed=s)) for s in range(10)]
    simgrid = [ratio(random_bags(profile="simgrid", seed=s, base_bandwidth=OLD_SIMGRID))
               for s in range(10)]
    assert 0.2 < np.median(balanced) < 5
    assert np.median(simgrid) > 20
    default = [ratio(random_bags(profile="simgrid", seed=s)) for s in range(10)]
    assert np.allclose(default, np.array(simgrid) / 10)


def test_balanced_is_deterministic_and_accepts_other_sizes():
    a, b = random_bags(profile="balanced", seed=11), random_bags(profile="balanced", seed=11)
    assert instance_to_dict(a) == instance_to_dict(b)
    assert _digest(random_bags(profile="balanced", seed=12)) != _digest(a)
    rng_a = random_bags(profile="balanced", seed=np.random.default_rng(5))
    rng_b = random_bags(profile="balanced", seed=np.random.default_rng(5))
    assert _digest(rng_a) == _digest(rng_b)
    big = random_bags(100, 20, profile="balanced", seed=0)
    assert (big.n, big.p) == (100, 20)
    # the profile's units can be overridden like the other profiles'
    fast = random_bags(profile="balanced", seed=11, base_bandwidth=20e6)
    assert np.allclose(fast.platform.bandwidths, 2 * a.platform.bandwidths)
    assert _digest(fast) != _digest(a)


def test_balanced_pinned_draw():
    """Pinned values of seed 0, so that a change of the balanced draws is a visible choice."""
    inst = random_bags(profile="balanced", seed=0)
    assert _digest(inst) == BALANCED_SEED0
    assert "balanced" in PROFILES


BALANCED_SEED0 = "d1ce3f3fa5893752"
