import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lpsched import max_stretch
from lpsched.bags import Application, Instance, StarPlatform
from lpsched.bags.maxstretch.problem import StretchProblem
from lpsched.bags.maxstretch.relaxations import (
    relaxation_lower_bound,
    resource_demands,
    single_machine_stretch,
    window_feasible,
)
from tests.conftest import small_instance

seeds = st.integers(0, 2**31 - 1)


def test_window_test_by_hand():
    start = np.array([0.0, 1.0])
    assert window_feasible(start, np.array([4.0, 3.0]), np.array([2.0, 2.0]))
    assert not window_feasible(start, np.array([3.0, 3.0]), np.array([2.0, 2.0]))
    assert not window_feasible(start, np.array([10.0, 2.5]), np.array([1.0, 2.0]))


@given(seeds, st.sampled_from(["one-port", "multiport"]), st.sampled_from([None, 2.0]))
def test_relaxations_never_exceed_the_lp_optimum(seed, port, bw):
    inst = small_instance(seed, port=port, bw=bw)
    pr = StretchProblem.offline(inst)
    bound = relaxation_lower_bound(pr)
    assert bound <= max_stretch(inst, relaxation_bound=False).stretch * (1 + 1e-9)
    for demand in resource_demands(pr).values():
        assert (demand >= 0).all()


@given(seeds)
def test_port_only_oracle(seed):
    """Spec §11 inv. 15: every application communication-bound on the fastest link, so the
    master port is the only resource: the LP optimum is the single-machine EDF optimum."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 6))
    plat = StarPlatform([100.0, 100.0], [4.0, 1.0], port="one-port")
    apps = tuple(Application(float(rng.uniform(0, 10)), int(rng.integers(1, 15)),
                             float(rng.uniform(0.1, 1.0)), float(rng.uniform(1, 4)))
                 for _ in range(n))
    inst = Instance(plat, apps)
    pr = StretchProblem.offline(inst)
    oracle = single_machine_stretch(pr, inst.tasks * inst.size / 4.0)
    assert max_stretch(inst, relaxation_bound=False).stretch == pytest.approx(oracle, rel=1e-7)
