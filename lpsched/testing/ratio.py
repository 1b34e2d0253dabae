"""``assert_ratio``: hold a value against a claimed approximation ratio.

The reference is the proven optimum when the exact solver proves it within the budget,
else the best proven lower bound (the larger of :func:`~lpsched.testing.bounds.lower_bound`
and the solver's dual bound). Against a lower bound the measured ratio is an *upper
estimate* of the true one, and a failure says so. A failure raises
:class:`RatioError` (an ``AssertionError``, so hypothesis shrinks it) whose message holds
the ratio reached and the instance as the JSON file lpsched reads, with the command that
runs it.
"""

from __future__ import annotations

import json
import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from lpsched.errors import LpschedError
from lpsched.testing import record
from lpsched.testing.bounds import (
    Bound,
    UnsupportedObjectiveError,
    lower_bound,
    optimum,
)
from lpsched.testing.instances import AnyInstance, command, family, to_dict

#: Relative slack of the comparison (float rounding of the value and the reference).
RTOL = 1e-9


class RatioError(AssertionError):
    """A value exceeds ``ratio × reference``; ``check`` holds the measurement."""

    def __init__(self, message: str, check: RatioCheck) -> None:
        super().__init__(message)
        self.check = check


@dataclass(frozen=True)
class RatioCheck:
    """One measurement of a ratio: ``reached = value/reference`` against the ``claimed`` one.

    ``against`` is ``"optimum"`` (proven) or ``"lower bound"`` (then ``reached`` is an
    upper estimate of the true ratio).
    """

    value: float
    claimed: float
    reference: float
    against: str
    how: str
    reached: float
    instance: dict[str, Any]

    @property
    def holds(self) -> bool:
        """``value <= claimed × reference`` (up to :data:`RTOL`).

        Examples
        --------
        >>> RatioCheck(7.0, 1.2, 6.0, "optimum", "MIP", 7 / 6, {}).holds
        True
        """
        return self.value <= self.claimed * self.reference * (1 + RTOL) + RTOL * 1e-3

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields.

        Returns
        -------
        dict
            The fields ``value``, ``claimed``, ``reference``, ``against``, ``how``, ``reached``
            and ``instance``, JSON-ready.

        Examples
        --------
        >>> RatioCheck(7.0, 1.2, 6.0, "optimum", "MIP", 7 / 6, {}).to_dict()["against"]
        'optimum'
        """
        return {"value": self.value, "claimed": self.claimed, "reference": self.reference,
                "against": self.against, "how": self.how, "reached": self.reached,
                "instance": self.instance}


def _real(x: Any) -> bool:
    """A real number, numpy's included (a makespan computed on an int array is an
    ``np.int64``), never a boolean."""
    return isinstance(x, (numbers.Real, np.number)) and not isinstance(x, (bool, np.bool_))


def _reference(inst: AnyInstance, objective: str, time_limit: float,
               ) -> tuple[float, str, str]:
    """(reference value, "optimum" | "lower bound", how)."""
    bound: Bound | None = None
    try:
        opt = optimum(inst, objective, time_limit=time_limit)
    except UnsupportedObjectiveError:
        opt = None
    if opt is not None and opt.proven:
        return opt.value, "optimum", opt.how
    bound = lower_bound(inst, objective)
    if opt is not None and opt.lower > bound.value:
        bound = opt.bound
    return bound.value, "lower bound", f"{bound.how} [{bound.kind}]"


def _message(check: RatioCheck, inst: AnyInstance, objective: str) -> str:
    estimate = ("" if check.against == "optimum" else
                " (against a lower bound: an upper estimate of the true ratio; the optimum "
                "was not proven within the budget or lpsched has no exact solver here)")
    return (f"claimed ratio {check.claimed:.6g} exceeded on an instance of the "
            f"{family(inst)} family: {objective} {check.value:.9g} vs {check.against} "
            f"{check.reference:.9g} ({check.how}), ratio reached {check.reached:.6g}{estimate}\n"
            f"instance JSON: {json.dumps(check.instance)}\n"
            f"reproduce it: save it as instance.json, then {command(inst, 'instance.json')}")


def _target(share: float, objective: str) -> None:
    """Inside a hypothesis test, steer the search towards larger ratios
    (``hypothesis.target``, targeted property-based testing); a no-op elsewhere. The
    ``k``-th call of a test case gets the label ``... #k`` (hypothesis allows one
    observation per label and test case)."""
    try:
        from hypothesis import target
        from hypothesis.control import current_build_context, currently_in_test_context
    except ImportError:  # hypothesis is a test dependency only
        return
    if not (currently_in_test_context() and math.isfinite(share)):
        return
    seen = getattr(current_build_context().data, "target_observations", {})
    label = base = f"lpsched ratio/claim ({objective})"
    k = 1
    while label in seen:
        k += 1
        label = f"{base} #{k}"
    target(share, label=label)


def assert_ratio(value: float, ratio: float, inst: AnyInstance, objective: str = "makespan",
                 *, time_limit: float = 5.0) -> RatioCheck:
    """Check ``value <= ratio × OPT`` for the ``objective`` of ``inst``.

    Parameters
    ----------
    value : float
        The objective value the researcher's algorithm reached on ``inst``.
    ratio : float
        The claimed approximation ratio (``>= 1``).
    inst : IdenticalJobs, HybridTasks, RigidJobs, MoldableJobs or lpsched.bags.Instance
        The instance.
    objective : str
        As in :func:`~lpsched.testing.bounds.lower_bound`.
    time_limit : float
        Budget of the exact solver; when it does not prove the optimum in time, the best
        lower bound is used instead.

    Returns
    -------
    RatioCheck
        The measurement (also recorded for ``--lpsched-report``).

    Raises
    ------
    RatioError
        (An ``AssertionError``) when ``value > ratio × reference``, with the ratio reached
        and the instance as JSON.

    Examples
    --------
    >>> from lpsched.approx.listsched import lpt
    >>> from lpsched.testing.instances import IdenticalJobs
    >>> inst = IdenticalJobs([3, 3, 2, 2, 2], 2)
    >>> assert_ratio(lpt(inst.times, 2).makespan, 7 / 6, inst).reached
    1.1666666666666667
    >>> assert_ratio(lpt(inst.times, 2).makespan, 1.1, inst)
    Traceback (most recent call last):
    ...
    lpsched.testing.ratio.RatioError: claimed ratio 1.1 exceeded on an instance of the ...
    """
    if not (_real(ratio) and math.isfinite(ratio) and ratio >= 1):
        raise LpschedError(f"ratio {ratio!r}: must be a finite number >= 1")
    if not (_real(value) and math.isfinite(float(value))):
        raise LpschedError(f"value {value!r}: must be a finite number")
    ratio, value = float(ratio), float(value)
    reference, against, how = _reference(inst, objective, time_limit)
    value = float(value)
    if reference > 0:
        reached = value / reference
    else:
        reached = 1.0 if value <= RTOL * 1e-3 else math.inf
    check = RatioCheck(value, float(ratio), reference, against, how, reached, to_dict(inst))
    _target(reached / float(ratio), objective)
    record.ratio(reached, float(ratio), against, inst, not check.holds)
    if not check.holds:
        raise RatioError(_message(check, inst, objective), check)
    return check
