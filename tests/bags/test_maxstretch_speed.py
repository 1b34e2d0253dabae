"""Issue 34: the speed work on the max-stretch search (the first path master solved by the
interior point method with crossover, the coarse LPs without presolve) leaves the optimum
of the benchmark's balanced 100x20 instances where it was, and its plans pass the checks."""

from __future__ import annotations

import pytest

from lpsched import check_plan, max_stretch, random_bags
from lpsched.bags import stretch_paths

#: ``max_stretch(random_bags(100, 20, profile="balanced", seed=s))`` before the speed work
#: (commit c34351f), the seeds of ``benchmarks/bench_maxstretch.py --family balanced --large``
BEFORE = {0: 40.35254265960282, 1: 39.279927816868216, 2: 42.27362106329687,
          3: 39.61863350695236, 4: 41.96719298219813}


@pytest.mark.slow
@pytest.mark.parametrize("seed", sorted(BEFORE))
def test_balanced_100x20_optimum_unchanged(seed: int) -> None:
    inst = random_bags(100, 20, profile="balanced", seed=seed)
    res = max_stretch(inst)
    assert res.stretch == pytest.approx(BEFORE[seed], rel=1e-9)
    assert check_plan(inst, res.plan).ok


@pytest.mark.parametrize("cold", ["ipm", "simplex"])
def test_cold_solver_gives_the_same_optimum(monkeypatch: pytest.MonkeyPatch, cold: str) -> None:
    """Both first-solve methods of the path master reach the same optimum (20x10)."""
    inst = random_bags(20, 10, profile="balanced", seed=3)
    monkeypatch.setattr(stretch_paths, "COLD_SOLVER", cold)
    res = max_stretch(inst, formulation="paths")
    monkeypatch.setattr(stretch_paths, "COLD_SOLVER", "simplex")
    ref = max_stretch(inst, formulation="buffers")
    assert res.stretch == pytest.approx(ref.stretch, rel=1e-7)
    assert check_plan(inst, res.plan).ok


def test_a_failed_interior_point_solve_falls_back_to_simplex(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """If the first master's interior point solve does not end optimal, the primal
    simplex of before answers, and the optimum is the same."""
    from lpsched.solvers.solution import Status

    inst = random_bags(20, 10, profile="balanced", seed=3)
    ref = max_stretch(inst, formulation="paths")
    real = stretch_paths.model_status
    seen: list[str] = []

    def first_fails(h: object) -> Status:
        if not seen:
            seen.append("ipm")
            return Status.ERROR
        return real(h)  # type: ignore[arg-type]

    monkeypatch.setattr(stretch_paths, "COLD_SOLVER", "ipm")  # the opt-in (decision 402)
    monkeypatch.setattr(stretch_paths, "model_status", first_fails)
    res = max_stretch(inst, formulation="paths")
    assert seen == ["ipm"]
    assert res.stretch == pytest.approx(ref.stretch, rel=1e-9)
    assert check_plan(inst, res.plan).ok
