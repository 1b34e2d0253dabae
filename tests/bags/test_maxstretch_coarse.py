"""The coarse start of large path searches and pair-level column generation (decisions 227-229).

The coarse LP only chooses where the exact search starts and which pairs its master holds
first, so every test of the answer compares it with a search that does not use it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lpsched import check_plan, max_stretch
from lpsched.bags import random_bags
from lpsched.bags.maxstretch import COARSE_ABOVE, StretchSearch, coarse, paths, use_coarse
from lpsched.bags.maxstretch.coarse import FINE_GROUPS, CoarseLP, coarse_start
from lpsched.bags.maxstretch.problem import StretchProblem
from lpsched.errors import LpschedError, SolverError
from lpsched.solvers.solution import Status
from tests.cli.test_cli_subprocess import lpsched, one_json_object
from tests.conftest import small_instance


def _problem(n: int = 30, p: int = 8, seed: int = 0) -> StretchProblem:
    return StretchProblem.offline(random_bags(n, p, profile="balanced", seed=seed))


def test_coarse_lp_is_short_when_tight_and_complete_when_loose() -> None:
    pr = _problem()
    total = float(pr.remaining.sum())
    lp = CoarseLP(pr)
    short = lp.deliver(1.0)
    pairs_tight = lp.pairs()
    assert short < total - 1.0
    assert pairs_tight.shape == (pr.n, pr.p) and pairs_tight.dtype == bool
    assert pairs_tight.any()
    assert lp.deliver(1e6) == pytest.approx(total, rel=1e-9)
    assert lp.solves == 2 and lp.seconds > 0


def test_coarse_lp_with_one_group_is_the_whole_horizon() -> None:
    """One group: every application may use any worker within its window's total length; a
    hand check of the capacity on a 1-application instance."""
    pr = StretchProblem.offline(random_bags(1, 2, profile="balanced", seed=3))
    lp = CoarseLP(pr, groups=1)
    S = 1.0  # the window is exactly the dedicated makespan MS*: rate rho* delivers it all
    assert lp.deliver(S) == pytest.approx(float(pr.remaining.sum()), rel=1e-7)
    assert lp.deliver(0.5) == pytest.approx(0.5 * float(pr.remaining.sum()), rel=1e-7)


def test_groups_must_be_positive() -> None:
    with pytest.raises(LpschedError, match="1 group"):
        CoarseLP(_problem(), groups=0)


def test_coarse_start_brackets_its_own_threshold() -> None:
    pr = _problem(seed=1)
    search = StretchSearch(pr, time_limit=None, coarse_start=False)
    pts = search.points
    start = coarse_start(pr, pts, search.delivery_tolerance, fine_groups=None)
    total = float(pr.remaining.sum())
    assert 0 < start.index < len(pts) - 2  # this instance: an inner critical value
    assert start.solves <= int(np.ceil(np.log2(len(pts)))) + 1
    lp = CoarseLP(pr)
    assert lp.deliver(float(pts[start.index])) < total - search.delivery_tolerance
    assert np.array_equal(lp.pairs(), start.pairs)
    assert lp.deliver(float(pts[start.index + 1])) >= total - search.delivery_tolerance
    assert start.pairs.any()
    # the default: same critical value, pairs from the fine LP posed there
    fine = coarse_start(pr, pts, search.delivery_tolerance)
    assert fine.index == start.index and fine.solves > start.solves
    lp40 = CoarseLP(pr, FINE_GROUPS)
    lp40.deliver(float(pts[start.index]), pairs=start.pairs)
    assert np.array_equal(lp40.pairs(), fine.pairs)


@pytest.mark.parametrize("port", ["one-port", "bounded", "unbounded"])
def test_column_generated_coarse_lp_equals_the_whole_lp(
        port: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Decision 229: from any starting set of pairs (none, a few, the 10-group plan's),
    pricing whole pairs (5 per round here, so that it is incremental on these small
    instances) reaches the optimum of the LP posed with every pair."""
    monkeypatch.setattr(coarse, "PAIRS_PER_ROUND", 5)
    if port == "one-port":
        pr = _problem(20, 6, seed=2)
    else:
        pr = StretchProblem.offline(small_instance(
            14, n=12, p=4, port="multiport", bw=1.5 if port == "bounded" else None))
    low, total = StretchSearch(pr, time_limit=None).low, float(pr.remaining.sum())
    # the largest of these stretches at which the coarse LP is short (the fraction binds)
    S = next(f * low for f in (1.2, 1.0, 0.8, 0.6, 0.4)
             if CoarseLP(pr, 12).deliver(f * low) < total - 1e-6)
    full = CoarseLP(pr, 12)
    whole = full.deliver(S)
    assert full.solves == 1  # every pair posed: nothing prices out
    rng = np.random.default_rng(0)
    for mask in (np.zeros((pr.n, pr.p), bool), rng.random((pr.n, pr.p)) < 0.2,
                 full.pairs()):
        lp = CoarseLP(pr, 12)
        given = mask.copy()
        assert lp.deliver(S, pairs=mask) == pytest.approx(whole, rel=1e-9)
        assert np.array_equal(mask, given)  # the caller's mask is not grown in place
        if not mask.any():  # from nothing: pricing had to bring pairs in
            assert lp.solves > 1
        if port == "one-port":  # 120 pairs: the plan needs far from all of them
            assert lp._k.size < full._k.size
        # the generated plan, read through its own column list, sends the fraction found
        sent = np.bincount(lp._k, weights=lp._x, minlength=pr.n)
        assert (sent >= whole / total * pr.remaining - 1e-7).all()
    with pytest.raises(LpschedError, match="pair mask"):
        CoarseLP(pr).deliver(S, pairs=np.ones((2, 2), bool))


def test_a_time_limit_inside_the_fine_coarse_lp_stops_the_search() -> None:
    """The fine coarse LP gets what is left of the search's budget: a budget that runs out
    there raises a time-limit SolverError that says what to do."""
    pr = _problem(60, 12, seed=1)
    pts = StretchSearch(pr, time_limit=None, coarse_start=False).points
    calls: list[int] = []

    def count() -> float | None:
        calls.append(1)
        return None

    coarse_start(pr, pts, 1e-9)  # warm-up: nothing to time here
    coarse_start(pr, pts, 1e-9, count)
    last = len(calls)  # the fine LP asks last
    calls.clear()

    def tight() -> float | None:
        calls.append(1)
        return 1e-6 if len(calls) == last else None

    with pytest.raises(SolverError, match="time limit ran out") as err:
        coarse_start(pr, pts, 1e-9, tight)
    assert err.value.status is Status.TIME_LIMIT


def test_coarse_lp_delivers_the_same_fraction_of_every_application() -> None:
    """The coarse LP's answer is ``λ·total`` (decision 229): its plan sends at least
    ``λ·r_k`` tasks of every application ``k``."""
    pr = _problem(12, 4, seed=5)
    lp = CoarseLP(pr, 6)
    S = 1.1 * StretchSearch(pr, time_limit=None).low
    lam = lp.deliver(S) / float(pr.remaining.sum())
    assert 0 < lam < 1
    sent = np.bincount(lp._k, weights=lp._x, minlength=pr.n)
    assert (sent >= lam * pr.remaining - 1e-7).all()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_coarse_start_does_not_change_the_optimum(seed: int) -> None:
    inst = random_bags(30, 8, profile="balanced", seed=seed)
    on = max_stretch(inst, coarse_start=True)
    off = max_stretch(inst, coarse_start=False)
    buffers = max_stretch(inst, formulation="buffers")
    assert on.coarse_solves > 0 and off.coarse_solves == 0
    assert on.formulation == "paths"
    assert on.stretch == pytest.approx(off.stretch, rel=1e-8)
    assert on.stretch == pytest.approx(buffers.stretch, rel=1e-7)
    assert check_plan(inst, on.plan).ok
    assert on.to_dict(plan=False)["coarse_solves"] == on.coarse_solves


@pytest.mark.parametrize("bw", [1.5, None])
def test_the_coarse_start_on_a_multiport_platform(bw: float | None) -> None:
    """Bounded multiport (master row and links) and unbounded (links only)."""
    inst = small_instance(11, n=12, p=4, port="multiport", bw=bw)
    on = max_stretch(inst, coarse_start=True)
    off = max_stretch(inst, coarse_start=False, formulation="buffers")
    assert on.coarse_solves > 0
    assert on.stretch == pytest.approx(off.stretch, rel=1e-7)
    assert check_plan(inst, on.plan).ok


def test_the_default_rule_takes_large_instances_only() -> None:
    small = StretchProblem.offline(random_bags(profile="balanced", seed=0))
    large = StretchProblem.offline(random_bags(100, 20, profile="balanced", seed=0))
    assert not use_coarse(small) and use_coarse(large)
    assert large.n * large.p * (large.epoch_alpha.size - 1) > COARSE_ABOVE
    assert StretchSearch(small, time_limit=None).coarse is None
    # buffers never start from the coarse LP, even when asked
    assert StretchSearch(small, time_limit=None, formulation="buffers",
                         coarse_start=True).coarse is None


def test_pairs_enter_the_master_whole_and_reach_the_same_optimum() -> None:
    """A master seeded with no pair at all prices whole pairs in and ends at the optimum of
    the master seeded with every pair (the certificate: nothing prices out)."""
    pr = _problem(12, 5, seed=4)
    S = 1.3 * StretchSearch(pr, time_limit=None).low
    order = pr.order_at(S)
    full = paths.PathMaster(pr, order)
    full.seed()
    empty = paths.PathMaster(pr, order)
    empty.seed(np.zeros((pr.n, pr.p), bool))
    assert empty.num_cols == empty.n_fixed
    a = full.deliver(S, 1e-9, exact=True)
    b = empty.deliver(S, 1e-9, exact=True)
    assert a.max_gain <= paths.PRICE_TOLERANCE and b.max_gain <= paths.PRICE_TOLERANCE
    assert b.objective == pytest.approx(a.objective, rel=1e-9, abs=1e-7)
    assert empty.pairs.any() and b.rounds > 1
    # a pair in the master holds every same-interval path of its window
    k, u = np.argwhere(empty.pairs)[0]
    same = (empty.col_k == k) & (empty.col_u == u) & (empty.col_j == empty.col_jp)
    assert set(empty.col_jp[same]) >= set(np.flatnonzero(empty.window[k]))


def test_seed_refuses_a_mask_of_the_wrong_shape() -> None:
    pr = _problem(6, 3)
    master = paths.PathMaster(pr, pr.order_at(2.0))
    with pytest.raises(LpschedError, match="pair mask"):
        master.seed(np.ones((3, 6), bool))


def test_the_first_solve_after_the_stretch_grew_is_primal() -> None:
    """Inside one epoch order a larger stretch only enlarges capacities, so the last plan
    stays feasible and the next question starts with primal simplex; after a smaller
    stretch, dual simplex (only bounds changed)."""
    pr = _problem(8, 3, seed=2)
    low = StretchSearch(pr, time_limit=None).low
    master = paths.PathMaster(pr, pr.order_at(1.05 * low))
    master.seed()
    first: list[int] = []
    solve = master._solve

    def recording(time_limit: float | None, strategy: int) -> tuple[float, float, int]:
        first.append(strategy)
        return solve(time_limit, strategy)

    master._solve = recording  # type: ignore[method-assign]
    for S in (1.05 * low, 1.051 * low, 1.0505 * low):
        assert (pr.order_at(S) == master.order).all()  # one epoch order throughout
        first.append(-1)
        master.deliver(S, 1e-9)
    starts = [first[i + 1] for i, s in enumerate(first) if s == -1]
    assert starts == [paths._PRIMAL, paths._PRIMAL, paths._DUAL]


def test_solve_json_reports_the_coarse_start(tmp_path: Path) -> None:
    """``lpsched solve --json`` on a 100x20 balanced instance: the coarse start runs by
    default and the JSON says so; nothing but the JSON object on stdout."""
    inst = tmp_path / "b.json"
    made = lpsched("generate", "bags", "--profile", "balanced", "--apps", "100", "--workers",
                   "20", "--seed", "0", "-o", str(inst))
    assert made.returncode == 0, made.stderr
    p = lpsched("solve", str(inst), "--json")
    assert p.returncode == 0 and p.stderr == ""
    out = one_json_object(p)
    assert out["formulation"] == "paths" and out["coarse_solves"] > 0
    assert out["stretch"] == pytest.approx(40.352542625, rel=1e-8)


@pytest.mark.parametrize("where", ["top", "middle"])
def test_a_feasible_first_probe_falls_back_to_the_lower_bound(where: str) -> None:
    """A coarse start that overshoots (forced here: the first probe near the top of the
    stretch axis is feasible) still ends at the optimum, with ``lower <= stretch``."""
    from lpsched.bags.maxstretch.algorithms import search_intervals
    from lpsched.bags.maxstretch.coarse import CoarseStart

    inst = random_bags(20, 6, profile="balanced", seed=7)
    reference = max_stretch(inst, coarse_start=False)
    pr = StretchProblem.offline(inst)
    search = StretchSearch(pr, time_limit=None, coarse_start=True)
    assert search.coarse is not None
    index = search.n_intervals - 1 if where == "top" else search.n_intervals // 2
    search.coarse = CoarseStart(index, search.coarse.pairs, 0, 0.0)
    if where == "top":  # the probe there is feasible: this is the fallback
        assert search.check(float(search.points[index]), index).feasible
    stretch, lower, key, x = search_intervals(search, "newton")
    assert stretch == pytest.approx(reference.stretch, rel=1e-8)
    assert lower <= stretch * (1 + 1e-12)
    assert check_plan(inst, search.plan(stretch, key, x)).ok


def test_a_warm_model_gets_the_budget_left_not_a_total() -> None:
    """HiGHS counts ``time_limit`` against the run time of all runs of one object: the
    limit set before a warm run is that run time plus the budget left."""
    import highspy

    from lpsched.solvers.highs import set_time_limit

    pr = _problem(10, 4)
    master = paths.PathMaster(pr, pr.order_at(2.0))
    master.seed()
    master.deliver(2.0, 1e-9, exact=True)
    def limit() -> float:  # highspy returns (status, value) in recent versions
        got = master.highs.getOptionValue("time_limit")
        return float(got[1] if isinstance(got, tuple) else got)

    before = master.highs.getRunTime()
    assert before > 0
    set_time_limit(master.highs, 5.0)
    after = master.highs.getRunTime()  # HiGHS' clock keeps running between runs
    assert before + 5.0 <= limit() <= after + 5.0
    set_time_limit(master.highs, None)
    assert limit() == highspy.kHighsInf
