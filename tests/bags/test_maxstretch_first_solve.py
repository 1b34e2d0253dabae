"""The path master's first solve: ``max_stretch(..., first_solve=)`` (decisions 402, 452).

The default (``"simplex"``) keeps the pinned answers byte for byte
(tests/bags/test_maxstretch_pinned.py); the interior point first solve (``"ipm"``, with
crossover) reaches the same optimum and a plan that passes the checks, falls back to the
primal simplex when it does not end optimal, and an unknown value is refused with the two
choices.
"""

from __future__ import annotations

import numpy as np
import pytest

from lpsched import check_plan, max_stretch, random_bags
from lpsched.bags.maxstretch import paths
from lpsched.errors import LpschedError


def _plan_bytes(res: object) -> bytes:
    plan = res.plan  # type: ignore[attr-defined]
    return b"".join(np.ascontiguousarray(a).tobytes()
                    for a in (plan.epochs, plan.comm, plan.comp, plan.buffers))


def test_simplex_is_the_default() -> None:
    """``first_solve=None`` and ``"simplex"`` run the same LPs and give the same bytes."""
    inst = random_bags(20, 10, profile="balanced", seed=0)
    default = max_stretch(inst)
    simplex = max_stretch(inst, first_solve="simplex")
    assert default.search.first_solve == simplex.search.first_solve == "simplex"
    assert default.search._master.cold_solver == "simplex"
    assert default.stretch == simplex.stretch and default.lower == simplex.lower
    assert default.iterations == simplex.iterations
    assert _plan_bytes(default) == _plan_bytes(simplex)


@pytest.mark.parametrize(("apps", "workers", "profile", "seed", "port"), [
    (20, 10, "balanced", 0, "one-port"), (20, 10, "balanced", 3, "one-port"),
    (20, 10, "balanced", 3, "multiport"), (20, 10, "simgrid", 3, "multiport"),
    (12, 6, "mpi", 0, "one-port")])
def test_ipm_reaches_the_same_optimum(apps: int, workers: int, profile: str, seed: int,
                                      port: str) -> None:
    inst = random_bags(apps, workers, profile=profile, seed=seed, port=port)
    ref = max_stretch(inst)
    res = max_stretch(inst, first_solve="ipm")
    assert res.search.first_solve == "ipm"
    assert res.search._master.cold_solver == "ipm"
    assert res.formulation == "paths"
    assert res.stretch == pytest.approx(ref.stretch, rel=1e-7)
    assert res.lower <= res.stretch
    assert check_plan(inst, res.plan).ok


def test_ipm_runs_the_interior_point_method(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first master solve, and only it, asks HiGHS for ``solver=ipm``."""
    seen: list[str] = []
    real = paths.PathMaster._solve

    def spy(self: paths.PathMaster, *args: object) -> tuple[float, float, int]:
        seen.append("ipm" if self._fresh and self.cold_solver == "ipm" else "simplex")
        return real(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(paths.PathMaster, "_solve", spy)
    max_stretch(random_bags(20, 10, profile="balanced", seed=0), first_solve="ipm")
    assert seen[0] == "ipm" and set(seen[1:]) == {"simplex"}
    seen.clear()
    max_stretch(random_bags(20, 10, profile="balanced", seed=0))
    assert set(seen) == {"simplex"}


def test_the_buffer_model_ignores_it() -> None:
    inst = random_bags(12, 6, profile="mpi", seed=0)
    ref = max_stretch(inst, formulation="buffers")
    res = max_stretch(inst, formulation="buffers", first_solve="ipm")
    assert res.stretch == ref.stretch
    assert _plan_bytes(res) == _plan_bytes(ref)


@pytest.mark.parametrize("bad", ["IPM", "interior", ""])
def test_an_unknown_first_solve_is_refused(bad: str) -> None:
    with pytest.raises(LpschedError, match=r"first_solve .*choose 'simplex'.*or 'ipm'"):
        max_stretch(random_bags(6, 4, seed=0), first_solve=bad)


@pytest.mark.parametrize("cold", ["ipm", "simplex"])
def test_cold_solver_gives_the_same_optimum(monkeypatch: pytest.MonkeyPatch, cold: str) -> None:
    """Both first-solve methods of the path master reach the same optimum (20x10)."""
    inst = random_bags(20, 10, profile="balanced", seed=3)
    monkeypatch.setattr(paths, "COLD_SOLVER", cold)
    res = max_stretch(inst, formulation="paths")
    monkeypatch.setattr(paths, "COLD_SOLVER", "simplex")
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
    real = paths.model_status
    seen: list[str] = []

    def first_fails(h: object) -> Status:
        if not seen:
            seen.append("ipm")
            return Status.ERROR
        return real(h)  # type: ignore[arg-type]

    monkeypatch.setattr(paths, "COLD_SOLVER", "ipm")  # the opt-in (decision 402)
    monkeypatch.setattr(paths, "model_status", first_fails)
    res = max_stretch(inst, formulation="paths")
    assert seen == ["ipm"]
    assert res.stretch == pytest.approx(ref.stretch, rel=1e-9)
    assert check_plan(inst, res.plan).ok
