import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lpsched import throughput
from lpsched.bags import Application, Instance, StarPlatform
from lpsched.bags.steady_state import dedicated_throughputs, worker_rates
from lpsched.bags.throughput_model import single_throughput_lp, weighted_throughput_lp
from lpsched.errors import InvalidInstanceError
from lpsched.solvers import solve
from tests.conftest import small_instance

seeds = st.integers(0, 2**31 - 1)


@given(seeds, st.sampled_from(["one-port", "multiport"]), st.sampled_from([None, 3.0]))
def test_closed_forms_equal_lp1(seed, port, bw):
    inst = small_instance(seed, port=port, bw=bw)
    rho = dedicated_throughputs(inst)
    for k in range(inst.n):
        lp = solve(single_throughput_lp(inst, k)).require_optimal()
        assert rho[k] == pytest.approx(lp.objective, rel=1e-9)
    rates = worker_rates(inst)
    assert (rates <= 1.0 / inst.comp_time + 1e-12).all()
    assert np.allclose(rates.sum(axis=1), rho)


@given(seeds)
def test_oneport_below_multiport_when_master_is_fast(seed):
    inst = small_instance(seed)
    one = dedicated_throughputs(inst, "one-port")
    multi = dedicated_throughputs(inst, "multiport")  # BW unbounded >= max b_u
    assert (one <= multi * (1 + 1e-12)).all()


def test_communication_bound_fastest_link_takes_everything():
    # worker 0: fastest link, communication-bound (c = 1 > x = 0.5): saturates the port.
    plat = StarPlatform([2.0, 100.0], [1.0, 0.5])
    app = Application(0.0, 10, work=1.0, size=1.0)
    assert throughput(plat, app) == pytest.approx(1.0)  # b_max / δ
    assert throughput(plat, app, port="multiport") == pytest.approx(1.0 + 0.5)


def test_knapsack_closed_form_by_hand():
    # c = (0.5, 1, 2), x = (2, 1, 1): take 1/2 (port 1/4), then 1 (port 1), capped by port.
    plat = StarPlatform([0.5, 1.0, 1.0], [2.0, 1.0, 0.5])
    rho = throughput(plat, Application(0.0, 5, 1.0, 1.0))
    assert rho == pytest.approx(0.5 + 0.75)


def test_unrelated_platform_needs_a_row():
    plat = StarPlatform([[1.0, 2.0], [3.0, 1.0]], [1.0, 1.0])
    app = Application(0.0, 4, 1.0, 1.0)
    with pytest.raises(InvalidInstanceError, match="row"):
        throughput(plat, app)
    assert throughput(plat, app, row=1) > 0


def test_weighted_lp_splits_by_weights():
    inst = Instance(StarPlatform([1.0, 1.0], [4.0, 4.0]),
                    (Application(0, 10, 1.0, 1.0), Application(0, 10, 1.0, 1.0)))
    sol = solve(weighted_throughput_lp(inst, [2.0, 1.0])).require_optimal()
    per_app = sol.values["rho"].sum(axis=1)
    assert per_app[0] == pytest.approx(2 * per_app[1])
    assert per_app.sum() == pytest.approx(2.0)  # both CPUs full
    zero = solve(weighted_throughput_lp(inst, [1.0, 0.0])).require_optimal()
    assert zero.values["rho"][1].sum() == 0.0
    with pytest.raises(InvalidInstanceError, match="weights"):
        weighted_throughput_lp(inst, [0.0, 0.0])
