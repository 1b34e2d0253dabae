"""The path formulation of the max-stretch LPs (lpsched.bags.maxstretch.paths, decision 213):
same answers as the buffer model of (K)/(K1), plans that pass the independent check, and
the pricing certificate."""

from dataclasses import replace
from itertools import pairwise

import numpy as np
import pytest

from lpsched import check_plan, max_stretch, online_max_stretch
from lpsched.bags import Application, Instance, StarPlatform, random_bags
from lpsched.bags.maxstretch import StretchSearch, choose_formulation
from lpsched.bags.maxstretch.buffer_model import StretchModel
from lpsched.bags.maxstretch.paths import PRICE_TOLERANCE, RESIDUAL_LIMIT, PathMaster
from lpsched.bags.maxstretch.problem import StretchProblem, online_problem
from lpsched.errors import LpschedError
from lpsched.solvers.highs import HighsModel
from tests.conftest import small_instance


def buffer_deliver(problem: StretchProblem, stretch: float, relaxed: bool = False):
    """The deliver LP of the buffer model at ``stretch``: (objective, d objective / dS)."""
    model = StretchModel(problem, problem.order_at(stretch), relaxed=relaxed)
    highs = HighsModel(model.lp)
    bounds = model.deliver_bounds(stretch)
    highs.set_col_bounds(*bounds["cols"])
    highs.set_row_bounds(*bounds["rows"])
    highs.set_costs(model.deliver_cost, "max")
    sol = highs.solve().require_optimal()
    return sol.objective, float(sol.reduced_costs["stretch"][0])


def online_state(inst: Instance, share: float = 0.6):
    """A state at the last release: ``share`` of each application still at the master, the
    rest buffered on the workers (so ``B̂ > 0`` on several pairs)."""
    rem = np.floor(inst.tasks * share)
    buffered = np.zeros((inst.n, inst.p))
    buffered[:, 0] = (inst.tasks - rem) / 2
    buffered[:, -1] += (inst.tasks - rem) / 2
    return float(inst.release.max()), rem, buffered


def problems():
    """One small problem of each kind: every generator profile, bounded multiport, online
    states with buffered tasks."""
    out = {
        "simgrid": StretchProblem.offline(random_bags(6, 3, seed=3)),
        "mpi": StretchProblem.offline(random_bags(6, 3, profile="mpi", seed=1)),
        "balanced": StretchProblem.offline(random_bags(8, 4, profile="balanced", seed=2)),
        "multiport-bounded": StretchProblem.offline(
            small_instance(11, n=5, p=3, port="multiport", bw=1.5)),
        "multiport-unbounded": StretchProblem.offline(
            small_instance(12, n=5, p=3, port="multiport")),
    }
    inst = random_bags(6, 3, profile="balanced", seed=5)
    out["online-balanced"] = online_problem(inst, *online_state(inst))
    inst = small_instance(13, n=4, p=3, port="multiport", bw=2.0)
    out["online-multiport"] = online_problem(inst, *online_state(inst, 0.5))
    return out


PROBLEMS = problems()


@pytest.mark.parametrize("name", sorted(PROBLEMS))
@pytest.mark.parametrize("relaxed", [False, True])
def test_path_lp_equals_buffer_lp(name, relaxed):
    """At stretches below, at and above the optimum, the path LP (column generation run to
    the certificate) has the buffer model's optimal value and S-derivative; relaxed: the
    window relaxation's."""
    pr = PROBLEMS[name]
    opt = StretchSearch(pr, formulation="buffers").problem  # conditioned like the searches
    s_opt = max_stretch_of(pr)
    for factor in (0.9, 0.999, 1.0, 1.2):
        # online, far below the optimum a deadline may precede T_new (no epoch order)
        s = max(s_opt * factor, s_opt * 0.999) if pr.online else s_opt * factor
        master = PathMaster(opt, opt.order_at(s), relaxed=relaxed, fraction=False)
        ans = master.deliver(s, tolerance=1e-9, exact=True)
        value, slope = buffer_deliver(opt, s, relaxed)
        total = max(1.0, float(opt.remaining.sum() + opt.buffered.sum()))
        assert ans.objective == pytest.approx(value, abs=1e-7 * total), (name, factor)
        assert ans.max_gain <= PRICE_TOLERANCE
        assert ans.bound == pytest.approx(ans.objective, abs=1e-6 * total)
        if abs(value - opt.remaining.sum()) > 1e-6 * total:  # a real deficit: same slope
            assert ans.stretch_rc == pytest.approx(slope, rel=1e-5, abs=1e-6)


def buffer_fraction(problem: StretchProblem, stretch: float) -> float:
    """The largest ``λ`` such that the buffer model delivers ``λ·r_k`` of every application
    at ``stretch``, by bisection on ``λ`` (each step: the buffer model's deliver LP with the
    remaining tasks scaled by ``λ``; the windows do not depend on them)."""
    lo, hi = 0.0, 1.0
    if buffer_deliver(problem, stretch)[0] >= problem.remaining.sum() - 1e-9:
        return 1.0
    for _ in range(40):
        lam = 0.5 * (lo + hi)
        scaled = replace(problem, remaining=problem.remaining * lam)
        if buffer_deliver(scaled, stretch)[0] >= scaled.remaining.sum() * (1 - 1e-10):
            lo = lam
        else:
            hi = lam
    return lo


@pytest.mark.parametrize("name", sorted(n for n in PROBLEMS if not n.startswith("online")))
def test_fraction_question_is_the_uniform_shortfall(name):
    """Decision 229: the fraction question's optimum (column generation run to the
    certificate) is the buffer model's largest uniform fraction ``λ``; its deficit
    ``(1 - λ)·total`` is at least the fewest tasks undelivered and 0 exactly at feasible
    stretches; the first answer's bound never claims more than it (usually converged on
    these small problems: early proofs are the next test's)."""
    pr = PROBLEMS[name]
    opt = StretchSearch(pr, formulation="buffers").problem
    s_opt = max_stretch_of(pr)
    total = float(opt.remaining.sum())
    for factor in (0.8, 0.95, 1.0, 1.1):
        s = s_opt * factor
        master = PathMaster(opt, opt.order_at(s), fraction=True)
        assert master.fraction
        ans = master.deliver(s, tolerance=1e-9, exact=True)
        lam = buffer_fraction(opt, s)
        assert ans.objective / total == pytest.approx(lam, abs=1e-7), (name, factor)
        fewest = total - buffer_deliver(opt, s)[0]
        assert total - ans.objective >= fewest - 1e-7 * total
        if factor >= 1.0:
            assert total - ans.objective <= 1e-7 * total
        else:
            assert total - ans.objective > 1e-4 * total
            first = PathMaster(opt, opt.order_at(s), fraction=True).deliver(s, tolerance=1e-9)
            assert total - first.bound <= total - ans.objective + 1e-7 * total
            assert first.stretch_rc > 0  # more stretch, more of every application


def test_online_masters_keep_the_tasks_question():
    """Held tasks are no fraction of anything: online masters maximise the tasks."""
    pr = PROBLEMS["online-balanced"]
    assert not PathMaster(pr, pr.order_at(max_stretch_of(pr)), fraction=True).fraction


def expected_costs(master: PathMaster, mode: str) -> np.ndarray:
    """Every column's objective coefficient a question should set, built from the
    master's column lists (not from its own ``_set_mode``)."""
    cost = np.zeros(master.num_cols)
    H = master.held_k.size
    j = master.columns()[2]
    if mode == "deliver":
        cost[1:1 + H] = -1.0
        cost[master.n_fixed:] = (j >= 0).astype(float)
    elif mode == "fraction":
        cost[master.fraction_col] = master.problem.remaining.sum()
    else:
        cost[0] = 1.0
    return cost


@pytest.mark.parametrize("name, fraction", [("online-balanced", None),
                                            ("online-multiport", None),
                                            ("balanced", False), ("balanced", True)])
def test_costs_follow_the_question_after_any_sequence(name, fraction):
    """Decision 229: after deliver, min_stretch and deliver again (columns added
    in between), HiGHS holds exactly the costs of the question asked last."""
    pr = PROBLEMS[name]
    s = max_stretch_of(pr)
    master = PathMaster(pr, pr.order_at(s * 1.05), fraction=fraction)
    master.seed()
    mode = "fraction" if master.fraction else "deliver"
    total = float(pr.remaining.sum())

    def costs() -> np.ndarray:
        return np.asarray(master.highs.getLp().col_cost_, float)

    ans = master.deliver(s * 1.05, tolerance=1e-9, exact=True)
    assert np.array_equal(costs(), expected_costs(master, mode))
    assert ans.objective <= total + 1e-7 * max(1.0, total)
    master.min_stretch(s * 1.049, s * 1.05, total - 1e-6 * max(1.0, total))  # one order
    assert np.array_equal(costs(), expected_costs(master, "min"))
    before = master.num_cols
    master.set_order(pr.order_at(s * 0.97))
    ans = master.deliver(s * 0.97, tolerance=1e-9, exact=True)
    assert np.array_equal(costs(), expected_costs(master, mode))
    assert ans.objective <= total + 1e-7 * max(1.0, total)  # never more than there is
    assert master.num_cols >= before


@pytest.mark.parametrize("profile, n, p, seed, share", [("balanced", 20, 10, 0, 0.6),
                                                        ("simgrid", 12, 4, 0, 0.3),
                                                        ("mpi", 6, 3, 0, 0.6)])
def test_online_paths_equal_buffers_on_several_states(profile, n, p, seed, share):
    """Online re-solves with held tasks (the tasks question) on the path formulation:
    the buffer model's optimum, and plans that pass the check (decision 229: a stale cost
    vector makes paths 28 % optimistic on the first of these)."""
    inst = random_bags(n, p, profile=profile, seed=seed)
    t, rem, buf = online_state(inst, share)
    paths = online_max_stretch(inst, t, rem, buf, formulation="paths")
    buffers = online_max_stretch(inst, t, rem, buf, formulation="buffers")
    assert paths.formulation == "paths"
    assert paths.stretch == pytest.approx(buffers.stretch, rel=1e-7)
    assert check_plan(inst, paths.plan).ok


def test_early_proofs_and_their_tangents_bound_the_uniform_shortfall():
    """Decision 229: a fraction check stopped at its first Lagrangian proof (not converged)
    reports a deficit at most the exact one, and its tangent stays below the exact deficit
    across the whole interval (the bound is affine in S with the duals fixed)."""
    pr = StretchProblem.offline(random_bags(12, 5, profile="balanced", seed=3))
    search = StretchSearch(pr, time_limit=None, relaxation_bound=False,
                           formulation="paths", coarse_start=False)
    opt, pts = search.problem, search.points
    s_opt = max_stretch_of(opt)
    total = float(opt.remaining.sum())
    tol = 1e-9 * total
    proofs = 0
    for lo, hi in pairwise(pts):
        if hi >= s_opt or proofs >= 4:
            break
        order = opt.order_at(0.5 * (lo + hi))
        s = lo + 0.3 * (hi - lo)
        first = PathMaster(opt, order, fraction=True).deliver(s, tolerance=tol)
        if first.max_gain <= PRICE_TOLERANCE or total - first.objective <= tol:
            continue  # converged or feasible: no early proof here
        proofs += 1
        cert, slope = total - first.bound, -first.stretch_rc
        for s2 in np.linspace(lo, hi, 4):
            exact = PathMaster(opt, order, fraction=True)
            exact.seed()
            deficit = total - exact.deliver(s2, tolerance=tol, exact=True).objective
            assert cert + slope * (s2 - s) <= deficit + 1e-7 * total
    assert proofs >= 2


def test_a_gap_waits_for_a_close_certificate():
    """``gap``: an infeasible answer ends only once the certified deficit is within the gap
    of the master's; the guided search sets :data:`GUIDED_GAP`, bisection none."""
    from lpsched.bags.maxstretch import GUIDED_GAP
    pr = PROBLEMS["balanced"]
    opt = StretchSearch(pr, formulation="buffers").problem
    s = max_stretch_of(pr) * 0.9
    total = float(opt.remaining.sum())
    for gap in (0.3, 0.05):
        ans = PathMaster(opt, opt.order_at(s)).deliver(s, tolerance=1e-9, gap=gap)
        assert total - ans.bound > 1e-9  # infeasible, certified
        assert ans.bound - ans.objective <= gap * (total - ans.bound) + 1e-9
    inst = random_bags(8, 4, profile="balanced", seed=2)
    assert max_stretch(inst).search.infeasible_gap == GUIDED_GAP
    assert max_stretch(inst, "bisection", tol=1e-6).search.infeasible_gap is None


def max_stretch_of(pr: StretchProblem) -> float:
    from lpsched.bags.maxstretch import solve_problem
    return solve_problem(pr, formulation="buffers").stretch


@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_pricing_certificate_matches_highs(name):
    """The pricing's reduced profits are HiGHS' own reduced costs on the columns present
    (same sign convention), and after convergence no path prices out anywhere."""
    pr = PROBLEMS[name]
    s = max_stretch_of(pr) * 0.98 if not pr.online else max_stretch_of(pr)
    master = PathMaster(pr, pr.order_at(s))
    master.seed()
    ans = master.deliver(s, tolerance=1e-9, exact=True)
    _, row_dual, col_dual = master.solution()
    gain, best_j, _, app_gain, held_best = master.price(row_dual)
    assert max(app_gain.max(initial=-np.inf), held_best.max(initial=-np.inf)) <= PRICE_TOLERANCE
    assert ans.max_gain <= PRICE_TOLERANCE
    # every column's reduced cost from HiGHS is at most the best path of its (k, u, j')
    k, u, j, jp = master.columns()
    rc = col_dual[master.n_fixed:]
    xs = j >= 0
    assert (rc[xs] <= gain[k[xs], u[xs], jp[xs]] + 1e-7).all()
    best = np.isclose(best_j[k[xs], u[xs], jp[xs]], j[xs])
    assert np.allclose(rc[xs][best], gain[k[xs], u[xs], jp[xs]][best], atol=1e-7)


@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_max_stretch_paths_equals_buffers(name):
    from lpsched.bags.maxstretch import solve_problem
    pr = PROBLEMS[name]
    buffers = solve_problem(pr, formulation="buffers")
    paths = solve_problem(pr, formulation="paths")
    assert paths.formulation == "paths" and buffers.formulation == "buffers"
    assert paths.stretch == pytest.approx(buffers.stretch, rel=1e-7)
    assert paths.lp_size["rows"] > 0 and paths.column_rounds >= paths.lp_solves


@pytest.mark.parametrize("profile", ["simgrid", "balanced", "mpi"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_plans_pass_the_independent_check(profile, seed):
    inst = random_bags(8, 4, profile=profile, seed=seed)
    paths = max_stretch(inst, formulation="paths")
    buffers = max_stretch(inst, formulation="buffers")
    assert paths.stretch == pytest.approx(buffers.stretch, rel=1e-7)
    check = check_plan(inst, paths.plan)
    assert check.ok, check.violations
    delivered = paths.plan.comp.sum(axis=(1, 2))
    assert delivered == pytest.approx(inst.tasks, rel=1e-6)


@pytest.mark.parametrize("method", ["intervals-lp", "bisection"])
def test_other_methods_on_paths(method):
    inst = random_bags(8, 4, profile="balanced", seed=4)
    ref = max_stretch(inst, formulation="buffers").stretch
    res = max_stretch(inst, method, tol=1e-8, formulation="paths")
    assert res.stretch == pytest.approx(ref, rel=1e-7, abs=1e-8)
    assert check_plan(inst, res.plan).ok


def test_bounded_multiport_plan_and_online_plan_pass_the_check():
    inst = small_instance(21, n=5, p=3, port="multiport", bw=1.0)
    res = max_stretch(inst, formulation="paths")
    assert res.stretch == pytest.approx(max_stretch(inst, formulation="buffers").stretch,
                                        rel=1e-7)
    assert check_plan(inst, res.plan).ok
    inst = random_bags(6, 3, profile="balanced", seed=7)
    t_new, rem, buffered = online_state(inst)
    on = online_max_stretch(inst, t_new, rem, buffered, formulation="paths")
    ref = online_max_stretch(inst, t_new, rem, buffered, formulation="buffers")
    assert on.stretch == pytest.approx(ref.stretch, rel=1e-7)
    assert check_plan(inst, on.plan).ok
    assert on.plan.comp.sum() == pytest.approx(rem.sum() + buffered.sum(), rel=1e-6)


def two_by_two() -> Instance:
    """Worked by hand: two identical workers (speed 1, bandwidth 1), one-port.

    A: released at 0, 4 tasks of work 4 and size 1 (alone: the CPUs give 2·(1/4) = 0.5
    task/s, the port 1, so ``MS*_A = 8``). B: released at 2, 4 tasks of work 1 and size 1
    (port-bound at 1 task/s, ``MS*_B = 4``). Deadlines ``8S`` and ``2 + 4S``.

    CPU: A needs 16 CPU-seconds, B 4, and B's must fall inside ``[2, 2 + 4S]``, so
    ``2·8S - 4 >= 16``: ``S >= 1.25``. At ``S = 1.25`` (epochs 0, 2, 7, 10) every CPU is busy
    throughout: A computes 1 task in [0, 2], 1.5 in [2, 7] and 1.5 in [7, 10]. The port in
    [2, 7] (5 s) carries B's 4 tasks, leaving 1 s: A can receive only 1 of the 1.5 tasks it
    computes there. So the optimum 1.25 needs the other 0.5 sent in [0, 2] and buffered
    across the release of B: a path with ``j < j'``.
    """
    plat = StarPlatform([1.0, 1.0], [1.0, 1.0], None, "one-port")
    return Instance(plat, (Application(0.0, 4, 4.0, 1.0), Application(2.0, 4, 1.0, 1.0)))


def test_hand_checked_case_needs_buffering_across_intervals():
    inst = two_by_two()
    pr = StretchProblem.offline(inst)
    assert pr.ms.tolist() == [8.0, 4.0]
    res = max_stretch(inst, formulation="paths")
    assert res.stretch == pytest.approx(1.25, rel=1e-9)
    assert max_stretch(inst, formulation="buffers").stretch == pytest.approx(1.25, rel=1e-9)
    assert check_plan(inst, res.plan).ok
    # the plan sends 0.5 task of A more than it computes in [0, 2]: buffered across r_B
    assert res.plan.epochs.tolist() == pytest.approx([0.0, 2.0, 7.0, 10.0])
    assert res.plan.comm[0, :, 0].sum() == pytest.approx(1.5, abs=1e-7)
    assert res.plan.comp[0, :, 0].sum() == pytest.approx(1.0, abs=1e-7)
    assert res.plan.buffers[0, :, 1].sum() == pytest.approx(0.5, abs=1e-7)
    # the same master restricted to same-interval paths (no j < j') falls short at 1.25:
    # 0.5 task of A cannot be delivered
    master = PathMaster(pr, pr.order_at(1.25), fraction=False)
    master.seed()
    master._set_mode("deliver", 1.25, 1.25, 0.0)
    obj, _, _ = master._solve(None, 4)
    assert pr.remaining.sum() - obj == pytest.approx(0.5, abs=1e-7)
    # ... and column generation finds the buffering path and closes the gap
    ans = master.deliver(1.25, tolerance=1e-9, exact=True)
    assert pr.remaining.sum() - ans.objective == pytest.approx(0.0, abs=1e-7)
    k, _, j, jp = master.columns()
    used = ans.x[master.n_fixed:] > 1e-9
    assert ((j < jp) & used & (k == 0)).any()


def test_plan_of_an_earlier_solution_reads_in_its_own_order():
    """A solution vector taken in one epoch order, read after the master moved to another
    order, gives the arrays it gave when it was taken (online: the held tasks sit at the
    window start), and not the ones the new order would give it."""
    inst = random_bags(6, 3, profile="balanced", seed=2)
    pr = online_problem(inst, *online_state(inst))  # critical values 1.179 and 1.657
    first, later = pr.order_at(1.1), pr.order_at(7.0)
    assert not np.array_equal(first, later)
    master = PathMaster(pr, first)
    ans = master.deliver(1.1, tolerance=1e-9, exact=True)
    then = master.plan_arrays(ans.x)
    master.set_order(later)
    master.deliver(7.0, tolerance=1e-9, exact=True)
    again = master.plan_arrays(ans.x, order=first)
    for name, arr in then.items():
        assert np.allclose(again[name], arr, atol=1e-12), name
    now = master.plan_arrays(ans.x)
    assert any(now[k].shape != then[k].shape or not np.allclose(now[k], then[k])
               for k in then)
    assert then["comp"].sum() > 0


def test_forced_paths_refuse_per_application_units():
    """An application of 10^9 tasks makes the LPs count whole applications; there the path
    master has been seen to miss the optimum inside HiGHS' tolerance, so ``auto`` takes
    the buffer model and an explicit ``paths`` is refused (decision 217)."""
    from tests.bags.test_hardening import replaced

    inst = replaced(random_bags(5, 3, seed=3), 0, tasks=10**9)
    with pytest.raises(LpschedError, match="buffer formulation"):
        max_stretch(inst, formulation="paths")
    assert max_stretch(inst).formulation == "buffers"


def test_formulation_choice_and_errors():
    inst = random_bags(4, 2, seed=0)
    mem = np.full(inst.p, 1e12)
    pr = StretchProblem.offline(inst, memory=mem)
    assert choose_formulation(pr, "auto") == "buffers"
    with pytest.raises(LpschedError, match="memory"):
        choose_formulation(pr, "paths")
    with pytest.raises(LpschedError, match="formulation"):
        max_stretch(inst, formulation="flows")
    with pytest.raises(LpschedError, match="memory"):
        PathMaster(pr, pr.order_at(2.0))
    # memory bounds keep the buffer model under "auto", and the answer is the usual one
    res = max_stretch(inst, memory=mem)
    assert res.formulation == "buffers"
    assert res.stretch == pytest.approx(max_stretch(inst, formulation="paths").stretch,
                                        rel=1e-7)


def test_to_dict_reports_the_formulation():
    res = max_stretch(random_bags(4, 2, profile="balanced", seed=0), formulation="paths")
    out = res.to_dict(plan=False)
    assert out["formulation"] == "paths"
    assert out["column_rounds"] == res.column_rounds >= 1
    assert out["columns"] == res.columns
    assert set(out["lp_size"]) == {"columns", "rows", "nonzeros"}


def test_a_master_answer_off_a_constraint_is_solved_again_cold(monkeypatch):
    """As the buffer model's searches do: a warm master solution whose recomputed residual
    exceeds 1e-6 is solved once more from scratch; one that stays off raises."""
    from lpsched.errors import SolverError

    inst = random_bags(8, 4, profile="balanced", seed=3)
    ref = max_stretch(inst, formulation="paths").stretch
    real, real_cold = PathMaster.residual, PathMaster.solve_cold
    calls = {"spoil": 1, "cold": 0}

    def residual(self, x):
        if calls["spoil"] and self.solves >= 2:
            calls["spoil"] -= 1
            return 1e-3
        return real(self, x)

    def solve_cold(self, time_limit=None):
        calls["cold"] += 1
        return real_cold(self, time_limit)

    monkeypatch.setattr(PathMaster, "residual", residual)
    monkeypatch.setattr(PathMaster, "solve_cold", solve_cold)
    res = max_stretch(inst, formulation="paths")
    assert calls == {"spoil": 0, "cold": 1}
    assert res.stretch == pytest.approx(ref, rel=1e-7)
    assert check_plan(inst, res.plan).ok
    monkeypatch.setattr(PathMaster, "residual", lambda self, x: 1e-3)
    with pytest.raises(SolverError, match="violates a constraint"):
        max_stretch(inst, formulation="paths")


def test_the_residual_is_relative_to_the_row_and_absolute_on_columns():
    """Decision 229: a row's violation counts relative to the size of its terms
    (the fraction question's task rows hold r_k·λ), a negative path absolutely."""
    pr = StretchProblem.offline(random_bags(8, 4, profile="balanced", seed=3))
    s = 1.2 * max_stretch_of(pr)
    master = PathMaster(pr, pr.order_at(s), fraction=True)
    master.seed()
    ans = master.deliver(s, tolerance=1e-9, exact=True)
    assert ans.objective == pytest.approx(pr.remaining.sum(), rel=1e-9)  # λ = 1
    x = ans.x.copy()
    assert master.residual(x) <= 1e-9
    r_max = float(pr.remaining.max())
    x[master.fraction_col] += 2e-6 / r_max  # the largest task row is short by 2e-6 tasks
    size = 2 * r_max  # Σ x_k + r_k·λ on that row
    assert master.residual(x) == pytest.approx(2e-6 / size, rel=1e-3)
    assert master.residual(x) < RESIDUAL_LIMIT  # accepted, though 2e-6 tasks off
    y = ans.x.copy()
    y[master.n_fixed + int(np.argmax(y[master.n_fixed:]))] = -2e-6  # a negative path
    assert master.residual(y) >= 2e-6


def test_first_solve_after_a_far_reorder_is_primal(monkeypatch):
    """Primal simplex with no basis and after a reorder that moves at least ``FAR_REORDER``
    epoch positions; ``REORDER_STRATEGY`` after a nearer one; dual simplex when only the
    stretch moved inside one order. The answer does not depend on the rule."""
    from lpsched.bags.maxstretch import paths as sp

    pr = StretchProblem.offline(random_bags(12, 4, profile="balanced", seed=3))
    search = StretchSearch(pr, formulation="paths")
    pts = search.points
    lo, hi = float(pts[0]), float(pts[-1])
    master = PathMaster(search.problem, search.problem.order_at(lo))
    assert master.first_strategy() == sp._PRIMAL  # no basis yet
    master.deliver(lo, tolerance=1e-9)
    assert master.first_strategy() == sp._DUAL  # same order: bounds and costs only
    far = search.problem.order_at(hi)
    moved = int((far != master.order).sum())
    assert moved >= 2
    monkeypatch.setattr(sp, "FAR_REORDER", moved)
    master.set_order(far)
    assert master.first_strategy() == sp._PRIMAL
    master.deliver(hi, tolerance=1e-9)
    monkeypatch.setattr(sp, "FAR_REORDER", moved + 1)
    master.set_order(search.problem.order_at(lo))
    assert master.first_strategy() == sp.REORDER_STRATEGY
    monkeypatch.setattr(sp, "FAR_REORDER", None)
    master.set_order(far)
    assert master.first_strategy() == sp.REORDER_STRATEGY
    inst = random_bags(12, 4, profile="balanced", seed=3)
    never = max_stretch(inst, formulation="paths").stretch
    monkeypatch.setattr(sp, "FAR_REORDER", 1)
    always = max_stretch(inst, formulation="paths")
    assert always.stretch == pytest.approx(never, rel=1e-7)
    assert check_plan(inst, always.plan).ok
