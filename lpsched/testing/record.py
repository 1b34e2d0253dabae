"""What the running test has seen, for the plugin's ``--lpsched-report`` and
``--lpsched-examples``.

The plugin opens a :class:`TestRecord` around each test call (:func:`open_test`); the
strategies note every instance they draw (:func:`drawn`) and
:func:`~lpsched.testing.ratio.assert_ratio` notes every ratio it measures
(:func:`ratio`). Outside a test run under the plugin nothing is kept.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any


@dataclass
class TestRecord:
    """One test's worst ratio (the largest ``reached/claimed``; among equal shares, up to
    1e-9, the largest ``reached``), the instance that reached it, the last instance drawn
    and the last failing one."""

    __test__ = False  # not a pytest test class

    nodeid: str
    calls: int = 0
    worst: float = -math.inf
    worst_claimed: float = math.nan
    worst_against: str = ""
    worst_instance: Any = None
    last_drawn: Any = None
    last_failure: Any = None
    failures: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


_current: list[TestRecord] = []


def open_test(nodeid: str) -> TestRecord:
    """Start recording for the test ``nodeid`` (the plugin calls it).

    Parameters
    ----------
    nodeid : str
        pytest's id of the test (``path::name[params]``).

    Returns
    -------
    TestRecord
        The new record, now the innermost.

    Examples
    --------
    >>> rec = open_test("t"); _ = close_test(); rec.calls
    0
    """
    rec = TestRecord(nodeid)
    _current.append(rec)
    return rec


def close_test() -> TestRecord | None:
    """Stop recording the innermost test and return its record.

    Returns
    -------
    TestRecord or None
        The record closed, or ``None`` when none is open.

    Examples
    --------
    >>> _ = open_test("t"); close_test().nodeid
    't'
    """
    return _current.pop() if _current else None


def current() -> TestRecord | None:
    """The record of the running test (``None`` outside the plugin).

    Returns
    -------
    TestRecord or None
        The innermost open record.

    Examples
    --------
    >>> rec = open_test("t"); current() is rec
    True
    >>> _ = close_test()
    """
    return _current[-1] if _current else None


def drawn(inst: Any) -> None:
    """Note an instance a strategy has just drawn.

    Parameters
    ----------
    inst : object
        The instance drawn; kept as the test's ``last_drawn`` (no copy).

    Examples
    --------
    >>> rec = open_test("t"); drawn("inst"); _ = close_test(); rec.last_drawn
    'inst'
    """
    rec = current()
    if rec is not None:
        rec.last_drawn = inst


def _worse(share: float, reached: float, old_share: float, old_reached: float) -> bool:
    """A larger share of the claim; equal shares (up to 1e-9, as claims like 11/9 and
    4/3 − 1/9 differ in the last bit) are ordered by the ratio reached."""
    if not (math.isfinite(share) and math.isfinite(old_share)):
        return share > old_share
    if abs(share - old_share) <= 1e-9 * max(1.0, abs(old_share)):
        return reached > old_reached
    return share > old_share


def ratio(reached: float, claimed: float, against: str, inst: Any, failed: bool) -> None:
    """Note a ratio measured by ``assert_ratio`` (``failed``: above the claim).

    Parameters
    ----------
    reached : float
        The ratio measured (e.g. makespan over the reference).
    claimed : float
        The guarantee it is checked against.
    against : str
        What the reference is (``"optimum"`` or ``"lower bound"``).
    inst : object
        The instance measured, kept when it is the worst so far (the one nearest its claim).
    failed : bool
        Whether ``reached`` broke the claim (counted in ``failures``).

    Examples
    --------
    >>> rec = open_test("t"); ratio(1.1, 1.2, "optimum", None, False); _ = close_test()
    >>> rec.worst
    1.1
    """
    rec = current()
    if rec is None:
        return
    rec.calls += 1
    share = reached / claimed if claimed > 0 else math.inf
    old = rec.worst / rec.worst_claimed if rec.worst_claimed > 0 else -math.inf
    if rec.worst_instance is None or _worse(share, reached, old, rec.worst):
        rec.worst, rec.worst_claimed = reached, claimed
        rec.worst_against, rec.worst_instance = against, inst
    if failed:
        rec.failures += 1
        rec.last_failure = inst
