"""``set_time_limit``: ``None``/``inf`` mean no limit, a positive number a budget; 0 is
refused, never read as "no limit" (``--time-limit 0`` would run unbounded: decision 238)."""

from __future__ import annotations

import math

import highspy
import numpy as np
import pytest

from lpsched.errors import LpschedError
from lpsched.solvers import console
from lpsched.solvers.highs import set_time_limit


def _limit(h: highspy.Highs) -> float:
    return float(h.getOptionValue("time_limit")[1])


@pytest.mark.parametrize("value", [None, math.inf])
def test_no_limit(value: float | None) -> None:
    h = console.construct(highspy.Highs)
    set_time_limit(h, value)
    assert _limit(h) == math.inf


@pytest.mark.parametrize("value", [2.5, 3, np.float64(0.5), np.int64(4)])
def test_positive_budget(value: float) -> None:
    h = console.construct(highspy.Highs)
    set_time_limit(h, value)
    assert _limit(h) == pytest.approx(float(value), abs=1e-3)


@pytest.mark.parametrize("value", [0, 0.0, -1, math.nan, True, "5"])
def test_zero_negative_nan_refused(value: object) -> None:
    with pytest.raises(LpschedError, match="seconds > 0"):
        set_time_limit(console.construct(highspy.Highs), value)  # type: ignore[arg-type]
