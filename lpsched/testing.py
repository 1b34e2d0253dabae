"""A pytest plugin (entry point ``lpsched``): CI checks of every approximation guarantee.

Installed with lpsched, it adds a command-line option and a fixture to any pytest run:

* ``--lpsched-trials N`` (default 50) — random instances per generator;
* ``ratio_report`` — a session-scoped :class:`~lpsched.approx.ratios.RatioReport`
  computed once by :func:`~lpsched.approx.ratios.check_ratios` (seed 0);
* :func:`assert_guarantees` — fails with every violation listed.

A project's test then reads::

    def test_guarantees(ratio_report):
        assert_guarantees(ratio_report)
"""

from __future__ import annotations

from typing import Any

import pytest

from lpsched.approx.ratios import RatioReport, check_ratios


def pytest_addoption(parser: Any) -> None:
    parser.addoption("--lpsched-trials", type=int, default=50,
                     help="random instances per generator for lpsched's ratio checks")


@pytest.fixture(scope="session")
def ratio_report(request: Any) -> RatioReport:
    """Every guarantee checked once per test session."""
    return check_ratios(trials=int(request.config.getoption("--lpsched-trials")), seed=0)


def assert_guarantees(report: RatioReport) -> None:
    """Fail the calling test if any guarantee was violated, listing each violation."""
    if report.violations:
        pytest.fail("approximation guarantees violated:\n" + "\n".join(report.violations))
