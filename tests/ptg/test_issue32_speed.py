"""Issue 32, second session: the literal improved HCPA made faster (decision 410) gives
the allocations of the previous implementation, bit for bit, on fixed seeds."""

from __future__ import annotations

import hashlib
import math

import numpy as np
import pytest

from lpsched.ptg import reproduce as exp
from lpsched.ptg.hcpa_literal import (
    MONOTONE_ALPHA,
    TOL,
    _jump_end,
    literal_alloc,
    literal_alloc_sweeps,
)

#: sha256 of every allocation ``literal_alloc(d, b)``, ``b = 1..P``, of the PTGs of
#: scenarios 0, 1, 2 and 5 of ``cells(60)``, computed with the implementation of decision
#: 348 *before* the change of decision 410 (the file saved as it was, 2026-11-28)
GOLDEN = "d7bcd87f0ccd62adec35a944810f9a0e7707af9d732a87e3c7fec17cc36388d1"


def _scan(q1: int, cap: int, t: float, a: float, base_l: float, base_a: float, b: int,
          grow: float, other: float) -> int:
    """The one-increment scan the jump replaced (decision 348's inner loop)."""
    q = q1
    while q < cap:
        tq = t * (a + (1.0 - a) / q)
        lq = base_l + tq
        if lq * b <= (base_a + q * tq) * grow or not lq > other:
            break
        q += 1
    return q


def test_study_allocations_identical_to_before() -> None:
    """Every budget of the study's own PTGs (fixed seeds): the digest recorded before the
    change, and the full-sweep oracle, agree with :func:`literal_alloc`."""
    cs = exp.cells(60)
    h = hashlib.sha256()
    for i in (0, 1, 2, 5):
        pr = exp.problem_of(cs[i])
        for d in pr.dags:
            for b in range(1, pr.P + 1):
                p = literal_alloc(d, b)
                if b % 7 == 0 or b == pr.P:
                    assert np.array_equal(p, literal_alloc_sweeps(d, b))
                h.update(np.ascontiguousarray(p, dtype=np.int64).tobytes())
    assert h.hexdigest() == GOLDEN


@pytest.mark.parametrize("seed", range(3))
def test_jump_end_equals_the_scan(seed: int) -> None:
    """:func:`_jump_end` (roots, then checked one step at a time) ends every jump where the
    scan does, on random states, including α = 0, α just above and below
    :data:`MONOTONE_ALPHA`, no other path (-inf) and ties of the two tests."""
    rng = np.random.default_rng(seed)
    grow = 1 + TOL
    alphas = [0.0, MONOTONE_ALPHA / 2, MONOTONE_ALPHA, 1e-3, 0.25]
    for _ in range(3000):
        t = float(rng.uniform(0.01, 500))
        a = float(rng.choice(alphas)) if rng.random() < 0.3 else float(rng.uniform(0, .25))
        cap = int(rng.integers(2, 300))
        q1 = int(rng.integers(1, cap + 1))
        b = int(rng.integers(1, 300))
        base_l = float(rng.uniform(0, 2000))
        base_a = float(rng.uniform(0, 2000 * b))
        r = rng.random()
        other = (-math.inf if r < 0.1 else
                 base_l + t * (a + (1 - a) / int(rng.integers(q1, cap + 1))) if r < 0.3
                 else float(rng.uniform(0, base_l + t)))
        args = (q1, cap, t, a, base_l, base_a, b, grow, other)
        assert _jump_end(*args) == _scan(*args), args
