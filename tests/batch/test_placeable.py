"""``allocation.placeable`` (issue 29, decision 266): for the forced rules ``cont``,
``cont-ff`` and ``loc`` it says exactly whether :func:`allocate` places a job of each size
on a free mask; for the other rules it is the free count (a necessary condition)."""

from __future__ import annotations

import numpy as np
import pytest

from lpsched.batch.allocation import allocate, placeable


@pytest.mark.parametrize("rule", ["cont", "cont-ff", "loc", "basic", "beloc"])
def test_placeable_is_what_allocate_does(rule):
    rng = np.random.default_rng(7)
    for trial in range(300):
        m = int(rng.integers(1, 70))
        free = rng.random(m) < rng.random()
        sizes = np.arange(1, m + 1)
        cluster = int(rng.integers(1, m + 1))
        got = placeable(rule, free, sizes, cluster)
        want = np.array([allocate(rule, free.copy(), int(s), cluster) is not None
                         for s in sizes])
        if rule in ("cont", "cont-ff", "loc"):
            assert (got == want).all(), (trial, m, cluster, free.astype(int).tolist())
        else:  # the count only: never refuses a job the rule places
            assert (got >= want).all()
            assert (got == (sizes <= free.sum())).all()


def test_placeable_refuses_a_fragmented_line():
    free = np.array([1, 1, 0, 1, 1, 0, 1, 1], bool)
    assert placeable("cont-ff", free, np.array([2, 3, 6])).tolist() == [True, False, False]
    assert placeable("loc", free, np.array([2, 3, 4, 6]), 4).tolist() == \
        [True, True, False, True]
