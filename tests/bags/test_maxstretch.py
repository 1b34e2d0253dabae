import itertools

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from lpsched import check_plan, critical_values, max_stretch, online_max_stretch
from lpsched.bags import Application, Instance, StarPlatform, random_bags
from lpsched.bags.maxstretch import StretchProblem, StretchSearch
from lpsched.errors import InfeasibleError, InvalidInstanceError, SolverError
from lpsched.solvers import solve
from tests.conftest import small_instance

seeds = st.integers(0, 2**31 - 1)
ports = st.sampled_from(["one-port", "multiport"])


def scaled(inst: Instance, time: float = 1.0, tasks_factor: float = 1.0) -> Instance:
    """Times multiplied by ``time``; ``tasks_factor`` = 1/g of Theorem 5."""
    apps = tuple(Application(a.release * time, round(a.tasks * tasks_factor),
                             a.work * time / tasks_factor, a.size * time / tasks_factor)
                 for a in inst.applications)
    return Instance(inst.platform, apps)


@given(seeds, ports, st.booleans())
@example(806, "one-port", False)
def test_intervals_equal_bisection(seed, port, bound):
    inst = small_instance(seed, port=port)
    exact = max_stretch(inst, "intervals", relaxation_bound=bound)
    paper = max_stretch(inst, "intervals-lp", relaxation_bound=bound)
    bis = max_stretch(inst, "bisection", tol=1e-8, relaxation_bound=bound)
    assert paper.stretch == pytest.approx(exact.stretch, rel=1e-7, abs=1e-7)
    # bisection's answer is achievable: within 1e-8 of the optimum, or else (where the
    # deficit is flat near the optimum, e.g. seed 806 one-port without the bound: 1.6e-8
    # below, 1.6e-8 tasks short, inside the delivery tolerance) its plan passes the
    # independent check, the definition of "achievable" both searches share
    assert bis.stretch >= exact.stretch - 1e-8 or check_plan(inst, bis.plan).ok
    assert bis.stretch - exact.stretch <= 1e-7
    assert bis.lower <= exact.stretch + 1e-8
    assert exact.lower <= exact.stretch
    assert exact.stretch >= 1.0 - 1e-12


@given(seeds, ports, st.sampled_from([None, 2.0]))
def test_plans_pass_the_independent_check(seed, port, bw):
    inst = small_instance(seed, port=port, bw=bw)
    for method in ("intervals", "bisection"):
        res = max_stretch(inst, method)
        report = check_plan(inst, res.plan)
        assert report.ok, report.violations
        assert res.plan.comm.sum(axis=(1, 2)) == pytest.approx(inst.tasks, rel=1e-7)


@given(seeds, ports)
def test_single_application_has_stretch_one(seed, port):
    inst = small_instance(seed, n=1, port=port)
    res = max_stretch(inst)
    assert res.stretch == pytest.approx(1.0, abs=1e-9)
    assert res.critical_values == 0 and res.lp_solves == 1


@given(seeds, st.sampled_from([0.25, 3.0, 1000.0]))
def test_invariant_under_time_scaling(seed, factor):
    inst = small_instance(seed)
    base = max_stretch(inst).stretch
    assert max_stretch(scaled(inst, time=factor)).stretch == pytest.approx(base, rel=1e-7)


@given(seeds, st.sampled_from([2.0, 3.0]))
def test_invariant_under_granularity_theorem5(seed, more):
    """Π/g tasks of g·w work and g·δ data (here g = 1/more) leave S_opt unchanged."""
    inst = small_instance(seed)
    base = max_stretch(inst).stretch
    assert max_stretch(scaled(inst, tasks_factor=more)).stretch == pytest.approx(base, rel=1e-7)


@given(seeds)
def test_invariant_under_release_shift_and_permutation(seed):
    inst = small_instance(seed)
    base = max_stretch(inst).stretch
    shifted = Instance(inst.platform, tuple(
        Application(a.release + 7.5, a.tasks, a.work, a.size) for a in inst.applications))
    assert max_stretch(shifted).stretch == pytest.approx(base, rel=1e-7)
    perm = np.random.default_rng(seed).permutation(inst.n)
    assert max_stretch(inst.subset(perm)).stretch == pytest.approx(base, rel=1e-7)


@given(seeds)
def test_adding_an_application_never_lowers_the_optimum(seed):
    inst = small_instance(seed)
    if inst.n < 2:
        return
    full = max_stretch(inst).stretch
    assert max_stretch(inst.subset(range(inst.n - 1))).stretch <= full + 1e-7


@given(seeds)
def test_single_worker_oneport_equals_unbounded_multiport(seed):
    inst = small_instance(seed, p=1)
    one = max_stretch(inst.with_port("one-port")).stretch
    multi = max_stretch(inst.with_port("multiport")).stretch
    assert one == pytest.approx(multi, rel=1e-7)


@given(seeds)
def test_single_worker_compute_bound_oracle(seed):
    """Spec §11 inv. 13: all released at 0 on one compute-bound worker, the optimum is
    max_k Σ_{l<=k} MS*_l / MS*_k with applications by increasing MS*."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 6))
    apps = tuple(Application(0.0, int(rng.integers(1, 20)), float(rng.uniform(1, 5)),
                             float(rng.uniform(0.1, 1.0))) for _ in range(n))
    inst = Instance(StarPlatform([1.0], [2.0]), apps)  # x = w >= 1 > c = δ/2
    ms = np.sort(inst.tasks * inst.work)
    expected = (np.cumsum(ms) / ms).max()
    assert max_stretch(inst).stretch == pytest.approx(expected, rel=1e-7)


@given(seeds)
def test_feasibility_is_monotone_around_the_optimum(seed):
    inst = small_instance(seed)
    res = max_stretch(inst)
    search = StretchSearch(StretchProblem.offline(inst))
    assert search.feasible(res.stretch * (1 + 1e-7))[0]
    assert search.feasible(res.stretch * 1.5)[0]
    if res.stretch > 1.0 + 1e-4:
        ok, deficit = search.feasible(res.stretch - 1e-5)
        assert not ok and deficit > 0


@given(seeds)
def test_epoch_order_is_constant_between_critical_values(seed):
    inst = small_instance(seed)
    pr = StretchProblem.offline(inst)
    crit = critical_values(pr, 1.0, 1e6)
    points = np.concatenate([[1.0], crit, [crit[-1] + 10 if crit.size else 10.0]])
    rng = np.random.default_rng(seed)
    for a, b in itertools.pairwise(points):
        values = [pr.epoch_times(s)[pr.order_at(0.5 * (a + b))] for s in
                  rng.uniform(a, b, 5)]
        for v in values:
            assert (np.diff(v) >= -1e-9 * max(1.0, abs(v).max())).all()


@pytest.mark.parametrize("seed", [3, 5])
def test_lp_solves_are_logarithmic_in_the_critical_values(seed):
    inst = random_bags(12, 4, seed=seed)
    res = max_stretch(inst, "intervals-lp", relaxation_bound=False)
    intervals = res.critical_values + 1
    assert res.critical_values >= 3
    assert res.lp_solves <= int(np.ceil(np.log2(intervals))) + 1
    assert [p.kind for p in res.probes][-1] == "interval"


def test_tight_relaxation_bound_settles_in_one_lp():
    """On a communication-bound platform the one-port bound is the optimum (spec §11 inv.
    15) and the search stops after one feasibility LP. The literal 10 Mbit/s links of seed
    003 [L796] make the Table 2 shape communication-bound; the ``simgrid`` default of
    100 Mbit/s (decision 36) does not (seed 0 then needs 6 LP solves)."""
    inst = random_bags(20, 10, seed=0, base_bandwidth=1.25e6)
    res = max_stretch(inst)
    assert res.lp_solves == 1
    assert res.stretch == pytest.approx(max_stretch(inst, relaxation_bound=False).stretch,
                                        rel=1e-8)


def test_cross_check_with_pulp_cbc():
    inst = small_instance(3, n=3, p=2)
    res = max_stretch(inst)
    lp = res.interval_lp()
    cbc = solve(lp, "pulp").require_optimal()
    assert cbc.objective == pytest.approx(res.stretch, rel=1e-6)
    scipy = solve(lp, "scipy").require_optimal()
    assert scipy.objective == pytest.approx(res.stretch, rel=1e-7)


def test_export_lp_is_readable(tmp_path):
    import highspy

    inst = small_instance(8, n=4, p=2)
    res = max_stretch(inst)
    path = tmp_path / "model.mps"
    res.export_lp(str(path))
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(str(path))
    h.run()
    assert h.getInfo().objective_function_value == pytest.approx(res.stretch, rel=1e-7)


def test_memory_bound_never_helps_and_is_respected():
    inst = small_instance(21, n=4, p=2)
    free = max_stretch(inst)
    per_task = inst.size.max()
    memory = np.full(inst.p, 1.5 * per_task)
    tight = max_stretch(inst, memory=memory)
    assert tight.stretch >= free.stretch - 1e-9
    assert check_plan(inst, tight.plan, memory=memory).ok
    assert (np.einsum("kue,k->ue", tight.buffers, inst.size) <= memory[:, None] + 1e-6).all()


def test_solver_trouble_is_never_an_answer():
    inst = random_bags(seed=1)
    with pytest.raises(SolverError, match="time_limit"):
        max_stretch(inst, time_limit=1e-6)


def test_bad_method_and_tolerance():
    inst = small_instance(1)
    with pytest.raises(Exception, match="unknown method"):
        max_stretch(inst, method="simplex")
    with pytest.raises(Exception, match="tol"):
        max_stretch(inst, method="bisection", tol=0.0)


# -- online ---------------------------------------------------------------------------------
@given(seeds)
def test_online_with_everyone_arriving_together_is_the_offline_optimum(seed):
    inst = small_instance(seed, same_release=True)
    offline = max_stretch(inst).stretch
    online = online_max_stretch(inst, 0.0, inst.tasks, np.zeros((inst.n, inst.p)))
    assert online.stretch == pytest.approx(offline, rel=1e-7)


@given(seeds)
def test_online_first_arrival_alone_has_stretch_one(seed):
    inst = small_instance(seed)
    first = int(np.argmin(inst.release))
    rem = np.where(np.arange(inst.n) == first, inst.tasks, 0.0)
    released = np.arange(inst.n) == first
    res = online_max_stretch(inst, float(inst.release[first]), rem,
                             np.zeros((inst.n, inst.p)), released)
    assert res.stretch == pytest.approx(1.0, abs=1e-9)


@given(seeds, st.sampled_from(["intervals", "bisection"]))
def test_online_state_with_buffers(seed, method):
    inst = small_instance(seed, n=4)
    t_new = float(inst.release.max())
    rng = np.random.default_rng(seed)
    done = rng.uniform(0, 0.5, inst.n) * inst.tasks
    buffered = np.zeros((inst.n, inst.p))
    buffered[:, 0] = np.minimum(1.0, inst.tasks - done)
    remaining = inst.tasks - done - buffered.sum(axis=1)
    res = online_max_stretch(inst, t_new, remaining, buffered, method=method, tol=1e-8)
    assert res.stretch >= 1.0
    lower = ((t_new - inst.release) / (inst.tasks / np.asarray(
        res.throughputs))).max()
    assert res.stretch > lower - 1e-9
    report = check_plan(inst, res.plan)
    assert report.ok, report.violations
    assert (res.plan.buffers[:, :, 0] == buffered[res.plan.apps]).all()
    exact = online_max_stretch(inst, t_new, remaining, buffered).stretch
    # Fractional leftovers can make the deficit nearly flat in S (0.4 task per unit of
    # stretch seen), so LP tolerances show up at the 1e-7 level: compare at 1e-6.
    assert abs(res.stretch - exact) <= 1e-6 * exact


def test_online_bad_states():
    inst = small_instance(4, n=3, p=2)
    zeros = np.zeros((3, 2))
    with pytest.raises(InvalidInstanceError, match="remaining"):
        online_max_stretch(inst, 30.0, -inst.tasks, zeros)
    with pytest.raises(InvalidInstanceError, match="buffered"):
        online_max_stretch(inst, 30.0, inst.tasks, np.zeros((2, 2)))
    with pytest.raises(InvalidInstanceError, match="exceeds"):
        online_max_stretch(inst, 30.0, inst.tasks, zeros + 1.0)
    with pytest.raises(InfeasibleError, match="no released application"):
        online_max_stretch(inst, 30.0, np.zeros(3), zeros)
    with pytest.raises(InvalidInstanceError, match="released"):
        online_max_stretch(inst, -1.0, inst.tasks, zeros, released=np.ones(3, bool))


# -- worker generation ------------------------------------------------------------------------
@given(seeds, ports, st.sampled_from(["intervals", "bisection"]))
def test_worker_generation_is_exact(seed, port, method):
    inst = small_instance(seed, p=int(np.random.default_rng(seed).integers(3, 7)), port=port)
    kw = {"method": method, "tol": 1e-8, "relaxation_bound": False}
    full = max_stretch(inst, worker_generation=False, **kw)
    gen = max_stretch(inst, worker_generation=True, **kw)
    assert gen.stretch == pytest.approx(full.stretch, rel=1e-7, abs=1e-8)
    assert check_plan(inst, gen.plan).ok


@given(seeds)
def test_pricing_certifies_a_lower_bound_of_the_deficit(seed):
    inst = small_instance(seed, p=5)
    res = max_stretch(inst, relaxation_bound=False, worker_generation=False)
    if res.stretch < 1.05:
        return
    s = 1.0 + 0.5 * (res.stretch - 1.0)
    full = StretchSearch(StretchProblem.offline(inst), relaxation_bound=False,
                         worker_generation=False).check(s)
    search = StretchSearch(StretchProblem.offline(inst), relaxation_bound=False)
    part = search.check(s)
    assert not full.feasible and not part.feasible
    assert part.deficit <= full.deficit * (1 + 1e-9) + 1e-9
    # the slope is that of a convex minorant inside the stretch interval of s: when the
    # optimum lies in that interval, the tangent's root never passes it
    _, hi = search._interval(search.interval_of(s))
    assert part.slope < 0
    if res.stretch <= hi:
        assert s - part.deficit / part.slope <= res.stretch * (1 + 1e-7)


def test_worker_generation_prices_the_slow_workers():
    inst = random_bags(12, 8, seed=3)
    res = max_stretch(inst, relaxation_bound=False, formulation="buffers")
    assert res.workers_used < inst.p
    assert res.pricing_solves > 0
    assert res.stretch == pytest.approx(
        max_stretch(inst, relaxation_bound=False, worker_generation=False,
                    formulation="buffers").stretch, rel=1e-7)
    unused = np.setdiff1d(np.arange(inst.p), np.flatnonzero(res.comm.sum(axis=(0, 2))))
    assert unused.size > 0


@given(seeds, ports)
def test_unrelated_machines(seed, port):
    """Speeds per (application, worker) (seed 003 [L152]): both searches agree and the plan
    passes the check."""
    base = small_instance(seed, port=port)
    rng = np.random.default_rng(seed)
    speeds = rng.uniform(0.5, 3.0, (base.n, base.p))
    inst = Instance(StarPlatform(speeds, base.platform.bandwidths, None, port),
                    base.applications)
    exact = max_stretch(inst, relaxation_bound=False)
    assert check_plan(inst, exact.plan).ok
    bis = max_stretch(inst, "bisection", tol=1e-8)
    assert bis.stretch == pytest.approx(exact.stretch, abs=1e-7)
