"""The LP bound solved in a time unit HiGHS can handle (decision 133): any task work of the
accepted range (up to 1e30 flop) gives a bound, and ordinary problems are solved in
seconds, unscaled."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from lpsched.ptg import bounds
from lpsched.ptg.bounds import lower_bounds
from lpsched.ptg.io import ptg_from_dict
from lpsched.ptg.model import get_cluster
from lpsched.ptg.problem import Problem
from lpsched.ptg.registry import run
from tests.cli.test_cli_subprocess import lpsched, one_json_object
from tests.ptg.helpers import random_problem_ptgs


def _problem(work: float, cluster: str = "chti") -> Problem:
    """A chain a -> b and a lone c, works proportional to ``work``."""
    g = ptg_from_dict({"tasks": [{"id": "a", "work": work, "alpha": 0.1},
                                 {"id": "b", "work": 0.7 * work, "alpha": 0.3},
                                 {"id": "c", "work": 0.5 * work, "alpha": 0.0}],
                       "edges": [["a", "b"]]}, "g")
    return Problem([g], get_cluster(cluster))


@pytest.mark.parametrize("work", [1e30, 1e25, 1e-30, 1e-3, 1.0])
def test_the_lp_bound_is_solved_at_any_accepted_scale(work: float) -> None:
    """At 1e30 flop HiGHS would reject an unscaled model ('ptg-makespan-lb'); at a few flop
    its absolute tolerances would give 0. At every scale the bound is the ordinary
    problem's, rescaled."""
    reference = lower_bounds(_problem(1e9))
    b = lower_bounds(_problem(work))
    factor = work / 1e9
    assert b.makespan_lp == pytest.approx(reference.makespan_lp * factor, rel=1e-9)
    assert b.ptg_lp == pytest.approx(reference.ptg_lp * factor, rel=1e-9)
    assert b.makespan_lp > b.makespan_classical  # the LP beats the classical bound here
    assert b.makespan <= run(_problem(work), "selfish").metrics.makespan * (1 + 1e-9)


def test_ordinary_problems_are_solved_unscaled() -> None:
    """Their longest task is within SECONDS_RANGE: the LP is solved in seconds, unscaled
    (exponent 0)."""
    for seed in range(6):
        for name in ("chti", "grelon", "gdx"):
            pb = Problem(random_problem_ptgs(seed, 3), get_cluster(name))
            t1 = pb.flat[0].t1
            assert bounds.SECONDS_RANGE[0] <= t1.max() < bounds.SECONDS_RANGE[1]
            assert bounds._unit_exponent(t1) == 0


def test_the_unit_brings_the_longest_task_to_one_or_two() -> None:
    for top in (1e30, 3e-12, 2.0**40, 2.0**-11, 5e-310):
        k = bounds._unit_exponent(np.array([top, top / 7, 0.0]))
        assert 1.0 <= np.ldexp(top, k) < 2.0
    assert bounds._unit_exponent(np.zeros(3)) == 0 and bounds._unit_exponent(np.array([300.0])) == 0


def test_ptg_schedule_with_a_huge_work_reports_its_lp_bound(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    # alpha given (0): a task without one is a modelling default, noted on stderr
    path.write_text(json.dumps({"tasks": [{"id": "a", "work": 1e30, "alpha": 0},
                                          {"id": "b", "work": 1e9, "alpha": 0}],
                                "edges": [["a", "b"]]}))
    row = one_json_object(lpsched("ptg", "schedule", str(path), "--cluster", "chti",
                                  "--algorithm", "selfish", "--json"))
    bound = row["lower_bounds"]["makespan"]
    assert bound["lp"] is not None and 0 < bound["lp"] <= row["makespan"]
    assert bound["lp"] == pytest.approx(bound["classical"], rel=1e-6)  # a chain: CP
    text = lpsched("ptg", "schedule", str(path), "--cluster", "chti", "--algorithm",
                   "selfish")
    assert text.returncode == 0 and text.stderr == "" and "selfish" in text.stdout
