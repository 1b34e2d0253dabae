"""A pytest plugin (entry point ``lpsched``) and the tools to test a scheduler's claims.

Installed with lpsched, it adds to any pytest run:

* ``--lpsched-trials N`` (default 50) — random instances per generator of
  ``ratio_report``;
* ``--lpsched-report`` — at the end of the run, per test, the worst ratio
  :func:`assert_ratio` measured and the instance that reached it;
* ``--lpsched-examples DIR`` — each failing test's instance (the last one
  :func:`assert_ratio` rejected, else the last one a strategy drew: hypothesis replays the
  shrunk example last) written to ``DIR`` as the JSON file lpsched reads;
* ``ratio_report`` — a session-scoped :class:`~lpsched.approx.ratios.RatioReport`
  computed once by :func:`~lpsched.approx.ratios.check_ratios` (seed 0);
* :func:`assert_guarantees` — fails with every violation listed.

For a researcher's own algorithm::

    from hypothesis import given
    from lpsched.testing import strategies, optimum, lower_bound, assert_ratio

    @given(strategies.identical_jobs(max_jobs=10, max_machines=3))
    def test_my_lpt_is_4_3(inst):
        cmax = my_lpt_makespan(inst.times, inst.machines)
        assert_ratio(cmax, 4 / 3 - 1 / (3 * inst.machines), inst, "makespan")

``strategies`` (:mod:`lpsched.testing.strategies`) needs hypothesis and is imported on
first use, so the plugin loads without it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from lpsched.approx.ratios import RatioReport, check_ratios
from lpsched.testing import record
from lpsched.testing.bounds import Bound, Optimum, UnsupportedObjectiveError, lower_bound, optimum
from lpsched.testing.instances import (
    HybridTasks,
    IdenticalJobs,
    MoldableJobs,
    RigidJobs,
    from_dict,
    load_example,
    to_dict,
)
from lpsched.testing.ratio import RatioCheck, RatioError, assert_ratio

__all__ = [
    "Bound",
    "HybridTasks",
    "IdenticalJobs",
    "MoldableJobs",
    "Optimum",
    "RatioCheck",
    "RatioError",
    "RigidJobs",
    "UnsupportedObjectiveError",
    "assert_guarantees",
    "assert_ratio",
    "from_dict",
    "load_example",
    "lower_bound",
    "optimum",
    "strategies",
]

_RECORDS = pytest.StashKey[dict[str, Any]]()


def __getattr__(name: str) -> Any:
    """``lpsched.testing.strategies`` on first use (it imports hypothesis)."""
    if name == "strategies":
        import importlib

        return importlib.import_module("lpsched.testing.strategies")
    raise AttributeError(f"module 'lpsched.testing' has no attribute {name!r}")


def pytest_addoption(parser: Any) -> None:
    """The plugin's options (module doc).

    Parameters
    ----------
    parser : pytest.Parser
        pytest's option parser; the options go in its group ``lpsched``.

    Examples
    --------
    Run ``pytest --lpsched-report --lpsched-examples failing/`` in a project that
    uses :func:`assert_ratio`; ``pytest --help`` lists them under 'lpsched'.
    """
    group = parser.getgroup("lpsched", "lpsched scheduling checks")
    group.addoption("--lpsched-trials", type=int, default=50,
                    help="random instances per generator for lpsched's ratio checks")
    group.addoption("--lpsched-report", action="store_true", default=False,
                    help="per test, the worst ratio assert_ratio measured and its instance")
    group.addoption("--lpsched-examples", metavar="DIR", default=None,
                    help="write each failing test's instance to DIR as an lpsched JSON file")


def pytest_configure(config: Any) -> None:
    """Keep one :class:`~lpsched.testing.record.TestRecord` per test for the session.

    Parameters
    ----------
    config : pytest.Config
        The session's configuration; the records are kept in its stash.

    Examples
    --------
    Called by pytest at start-up; nothing to call by hand.
    """
    config.stash[_RECORDS] = {}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: Any) -> Any:
    """Record what the test draws and measures (:mod:`lpsched.testing.record`).

    Parameters
    ----------
    item : pytest.Item
        The test about to run.

    Yields
    ------
    None
        The test runs at the yield (a hook wrapper); its record is stored afterwards.

    Examples
    --------
    Wraps each test call; inside it :func:`lpsched.testing.record.current` is the
    test's record.
    """
    rec = record.open_test(item.nodeid)
    try:
        yield
    finally:
        record.close_test()
        item.config.stash[_RECORDS][item.nodeid] = rec


def _file_name(nodeid: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid).strip("_")[:150] + ".json"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: Any, call: Any) -> Any:
    """On a failing test call, write its instance to ``--lpsched-examples DIR``.

    Parameters
    ----------
    item : pytest.Item
        The test.
    call : pytest.CallInfo
        The phase being reported (only ``"call"`` writes an example).

    Yields
    ------
    None
        pytest's report is made at the yield (a hook wrapper) and read afterwards.

    Examples
    --------
    ``pytest --lpsched-examples failing/`` writes ``failing/<test id>.json``, read back
    with :func:`load_example`.
    """
    outcome = yield
    folder = item.config.getoption("--lpsched-examples", None)
    if folder is None or call.when != "call":
        return
    report = outcome.get_result()
    rec = item.config.stash[_RECORDS].get(item.nodeid)
    if not report.failed or rec is None:
        return
    inst = rec.last_failure if rec.last_failure is not None else rec.last_drawn
    if inst is None:
        return
    path = Path(folder) / _file_name(item.nodeid)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(to_dict(inst), indent=1) + "\n")
    report.sections.append(("lpsched example", f"failing instance written to {path}"))
    rec.extra["example"] = str(path)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: Any) -> None:
    """``--lpsched-report``: per test, the worst ratio and its instance; the example files.

    Parameters
    ----------
    terminalreporter : pytest.TerminalReporter
        Where the lines are written.
    exitstatus : int
        The session's exit status (unused).
    config : pytest.Config
        The session's configuration (its options and records).

    Examples
    --------
    ``pytest --lpsched-report`` ends with lines such as ``test_x.py::test_lpt: worst
    ratio 1.16667 (claimed 1.2, against the optimum) over 200 checks, ...``.
    """
    records = config.stash.get(_RECORDS, {})
    written = [r.extra["example"] for r in records.values() if "example" in r.extra]
    if written:
        terminalreporter.write_sep("-", "lpsched failing examples")
        for path in written:
            terminalreporter.write_line(path)
    if not config.getoption("--lpsched-report", False):
        return
    measured = [r for r in records.values() if r.calls]
    terminalreporter.write_sep("-", "lpsched ratio report")
    if not measured:
        terminalreporter.write_line("no test called assert_ratio")
    for rec in measured:
        terminalreporter.write_line(
            f"{rec.nodeid}: worst ratio {rec.worst:.6g} (claimed {rec.worst_claimed:.6g}, "
            f"against the {rec.worst_against}) over {rec.calls} checks, {rec.failures} "
            f"above the claim; instance {json.dumps(to_dict(rec.worst_instance))}")


@pytest.fixture(scope="session")
def ratio_report(request: Any) -> RatioReport:
    """Every guarantee checked once per test session.

    Examples
    --------
    >>> def test_guarantees(ratio_report):
    ...     assert_guarantees(ratio_report)
    """
    return check_ratios(trials=int(request.config.getoption("--lpsched-trials")), seed=0)


def assert_guarantees(report: RatioReport) -> None:
    """Fail the calling test if any guarantee was violated, listing each violation.

    Parameters
    ----------
    report : RatioReport
        The result of :func:`lpsched.approx.ratios.check_ratios`.

    Raises
    ------
    pytest.fail.Exception
        ``report`` lists a violation.

    Examples
    --------
    >>> assert_guarantees(RatioReport())
    """
    if report.violations:
        pytest.fail("approximation guarantees violated:\n" + "\n".join(report.violations))
