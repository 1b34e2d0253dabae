"""Lower bounds (decision 133): classical, LP, the scaled sum and their labels."""

from __future__ import annotations

import numpy as np
import pytest

from lpsched.ptg.bound_model import makespan_lp, tangent_points
from lpsched.ptg.bounds import classical, lower_bounds
from lpsched.ptg.problem import Problem
from tests.ptg.helpers import chain_fork, random_problem_ptgs, small_cluster


def test_classical_bound_hand_computed() -> None:
    # chain a (100 s, α=0.5) → b (40 s, α=0) on 4 processors: CP = 62.5 + 10, area 140
    g = chain_fork({"a": (100.0, 0.5), "b": (40.0, 0.0)}, [("a", "b")])
    pb = Problem([g], small_cluster(4))
    cp, area = classical(pb)
    assert cp[0] == pytest.approx(72.5) and area[0] == pytest.approx(140.0)
    b = lower_bounds(pb)
    assert b.makespan_classical == pytest.approx(72.5)
    # LP: the chain must be done by C; a faster a costs more work than 4·C allows?
    # Here 4·72.5 = 290 >= the work at full speed (250 + 40): the LP meets the CP bound.
    assert b.makespan_lp == pytest.approx(72.5, rel=1e-6)


def test_lp_tight_on_two_independent_tasks() -> None:
    # two tasks of 100 s, α = 0.5, on 2 processors: any speed-up costs work, LP = 100 = OPT
    g1 = chain_fork({"a": (100.0, 0.5)}, [], "A")
    g2 = chain_fork({"b": (100.0, 0.5)}, [], "B")
    b = lower_bounds(Problem([g1, g2], small_cluster(2)))
    assert b.makespan_classical == pytest.approx(100.0)
    assert b.makespan_lp == pytest.approx(100.0, rel=1e-6)


def test_lp_beats_classical_hand_computed() -> None:
    # chain a1 → a2 and a task b, each 100 s with α = 0.5, on 2 processors. Classical:
    # max(CP = 75 + 75, area 300/2) = 150. LP with tangents at p = 1 (w >= 200 − x) and
    # p = 2 (w >= 450 − 4x): symmetric x, C = 2x, 2(200 − x) + 100 <= 4x ⇒ C >= 500/3.
    a = chain_fork({"a1": (100.0, 0.5), "a2": (100.0, 0.5)}, [("a1", "a2")], "A")
    b = chain_fork({"b": (100.0, 0.5)}, [], "B")
    pb = Problem([a, b], small_cluster(2))
    lb = lower_bounds(pb)
    assert lb.makespan_classical == pytest.approx(150.0)
    assert lb.makespan_lp == pytest.approx(500 / 3, rel=1e-6)
    from lpsched.ptg.registry import ALGORITHMS, run

    assert min(run(pb, n).metrics.makespan for n in ALGORITHMS) >= lb.makespan


def test_lp_shape() -> None:
    g = chain_fork({"a": (1.0, 0.1), "b": (2.0, 0.2), "c": (3.0, 0.0)}, [("a", "b"),
                                                                          ("a", "c")])
    pb = Problem([g], small_cluster(5))
    lp = makespan_lp(pb.flat[0], 5)
    n = pb.flat[0].n
    assert lp.num_cols == 3 * n + 1
    k = tangent_points(5).size
    assert tangent_points(5).tolist() == [1, 2, 4, 5]
    assert lp.num_rows == g.edges.shape[0] + n + 3 * k + 1
    assert np.isfinite(lp.col_lower).all()


@pytest.mark.parametrize("alpha", [1.0, 1 - 1e-12, 1 - 1e-11, 1 - 1e-9, 1 - 1e-6])
def test_lp_bound_alpha_near_one_stays_a_finite_proof(alpha: float) -> None:
    # α → 1: the tangent slope −α p²/(1 − α) is 0/0 or huge; the LP must still solve and
    # stay a bound (no speed-up: every schedule takes >= the serial time of the chain)
    a = chain_fork({"a1": (100.0, alpha), "a2": (50.0, alpha)}, [("a1", "a2")], "A")
    b = chain_fork({"b": (100.0, 0.5)}, [], "B")
    pb = Problem([a, b], small_cluster(216))
    lp = makespan_lp(pb.flat[0], 216)
    assert np.isfinite(lp.matrix.data).all()
    assert np.isfinite(lp.split_rows(lp.row_lower)["tangent"]).all()
    assert np.abs(lp.matrix.data).max() <= 1e9
    lb = lower_bounds(pb)
    assert np.isfinite(lb.makespan_lp) and np.isfinite(lb.ptg_lp).all()
    assert lb.makespan_lp >= lb.makespan_classical * (1 - 1e-6)
    assert lb.makespan_lp <= 150.0 * (1 + 1e-9)  # the chain alone, 2 tasks at T(v, P) ≈ t1
    from lpsched.ptg.registry import ALGORITHMS, run

    assert min(run(pb, n).metrics.makespan for n in ALGORITHMS) >= lb.makespan


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_ssct_source_names_the_bound_that_gives_it(seed: int) -> None:
    """"lp" only when the LP raised some PTG's bound above its classical one: a single
    task alone has equal bounds (the LP's is then just below, by the 1e-7 safety factor),
    so its source is "classical"."""
    alone = Problem([chain_fork({"a": (50.0, 0.3)}, [])], small_cluster(8))
    assert lower_bounds(alone).ssct_source == "classical"
    b = lower_bounds(Problem(random_problem_ptgs(seed, 3), small_cluster(16)))
    raised = bool((b.ptg_lp > b.ptg_classical).any())
    assert b.ssct_source in ({"lp", "area-order"} if raised else {"classical", "area-order"})
