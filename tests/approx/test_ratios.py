"""The randomised checks of every guarantee (``lpsched.approx.ratios``, ``lpsched
check-ratios``), the tight families its module doc names and the pytest plugin."""

from __future__ import annotations

import numpy as np
import pytest

from lpsched.approx import exact, ratios
from lpsched.approx.listsched import list_scheduling, lpt
from lpsched.approx.packing import nfdh_ls
from lpsched.approx.ratios import check_ratios


def test_check_ratios_finds_no_violation_and_reaches_tight_bounds():
    rep = check_ratios(trials=25, seed=3)
    assert rep.to_dict()["ok"], rep.violations
    worst = rep.to_dict()["algorithms"]
    assert worst["list-scheduling"]["worst_ratio"] == pytest.approx(2 - 1 / 8)
    assert worst["lpt"]["worst_ratio"] == pytest.approx(4 / 3 - 1 / 24)
    assert worst["hybrid-2"]["worst_ratio"] <= 2.0


def test_the_families_the_doc_calls_tight_are_tight() -> None:
    for m in range(2, 9):
        times, opt = ratios.graham_tight(m)
        assert list_scheduling(times, m).makespan / opt == pytest.approx(2 - 1 / m)
        times, opt = ratios.lpt_tight(m)
        assert lpt(times, m).makespan / opt == pytest.approx(4 / 3 - 1 / (3 * m))


def test_the_doc_describes_the_three_job_instance_as_it_is() -> None:
    """Ratio 2 to the lower bound (not 3), and its makespan is the local optimum."""
    doc = ratios.__doc__ or ""
    assert "adversarial CPU/GPU" not in doc and "no adversarial family" in doc
    jobs = np.array([[1.0, 2], [1.0, 2], [1.0, 2]])
    r = nfdh_ls(jobs, 2, 3)
    assert r.ratio == 2.0 and "twice its lower bound" in " ".join(doc.split())
    assert exact.makespan_rigid(jobs, 6, 3, local=True).makespan == r.makespan == 2.0


def test_ci_guarantees_through_the_plugin(ratio_report):
    """The pytest plugin (entry point lpsched.testing) the project's own CI uses."""
    from lpsched.testing import assert_guarantees

    assert_guarantees(ratio_report)
    names = set(ratio_report.to_dict()["algorithms"])
    assert {"list-scheduling", "lpt", "hybrid-2", "hybrid-3/2", "nfdh-ls"} <= names
