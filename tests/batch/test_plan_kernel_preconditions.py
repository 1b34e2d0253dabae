"""The compiled plan (``lpsched.batch._plan_c``) outside the callers' preconditions.

Decision 634: the compiled plan's errors are the Python plan's. Two calls where they are
not: :meth:`earlier_fit` with a slot that ends before it starts (``rs > re``), where the
Python plan raises ``IndexError`` and the compiled one reads the breakpoint past the last
(``boundscheck=False``: one ``double`` beyond the array when ``rs`` is past every
breakpoint) and answers; :meth:`reached_at` with only negative sizes, where the Python
table has ``max(sizes) + 1 <= 0`` entries and raises, and the compiled one wraps around a
table of one entry. Skipped when the extension is not built.
"""

from __future__ import annotations

import numpy as np
import pytest

from lpsched.batch import plan
from lpsched.batch.plan import PythonProfile

needs_c = pytest.mark.skipif(plan._plan_c is None, reason="lpsched.batch._plan_c not built")


def _plans() -> list:
    out = []
    for cls in (PythonProfile, plan._plan_c.Profile):
        p = cls(0.0, 4)
        p.reserve(2.0, 5.0, 3)
        p.reserve(9.0, 2.0, 2)
        out.append(p)
    return out


@needs_c
@pytest.mark.parametrize(("rs", "re"), [(20.0, 9.5), (9.0, 3.0)])
def test_earlier_fit_of_a_reversed_slot_fails_as_the_python_plan(rs: float, re: float) -> None:
    python, compiled = _plans()
    with pytest.raises(IndexError):
        python.earlier_fit(3, 1.0, rs, re)
    with pytest.raises((IndexError, ValueError)):
        compiled.earlier_fit(3, 1.0, rs, re)


@needs_c
def test_reached_at_of_negative_sizes_fails_as_the_python_plan() -> None:
    python, compiled = _plans()
    sizes = np.array([-1, -1, -1])
    with pytest.raises(IndexError):
        python.reached_at(sizes)
    with pytest.raises(IndexError):
        compiled.reached_at(sizes)
