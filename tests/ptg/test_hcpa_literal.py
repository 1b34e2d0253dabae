"""The improved HCPA as seed 004 writes it (:mod:`lpsched.ptg.hcpa_literal`): the step of
[L216-222], smallest ``T(v, p+1)/(p+1)`` on the critical path, against its one-increment
reference, its full-sweep oracle and hand computations; the jumps (decision 410) and the
kept bottom levels (decision 348) give the same allocations bit for bit."""

from __future__ import annotations

import hashlib
import math

import numpy as np
import pytest

from lpsched.ptg import reproduce as exp
from lpsched.ptg.generators import fft_ptg, random_ptg, strassen_ptg
from lpsched.ptg.hcpa import DEFAULT_BOUND, NO_BOUND, HcpaBound, Trajectory, all_allocs, hcpa_alloc
from lpsched.ptg.hcpa_literal import (
    MONOTONE_ALPHA,
    TOL,
    _jump_end,
    literal_alloc,
    literal_alloc_reference,
    literal_alloc_sweeps,
)
from lpsched.ptg.model import single
from tests.ptg.helpers import SPEED, chain_fork

LITERAL = HcpaBound("literal")

#: sha256 of every allocation ``literal_alloc(d, b)``, ``b = 1..P``, of the PTGs of
#: scenarios 0, 1, 2 and 5 of ``cells(60)``, computed with the full-sweep implementation of
#: decision 348 (``literal_alloc_sweeps``'s algorithm) before the jumps of decision 410
GOLDEN = "d7bcd87f0ccd62adec35a944810f9a0e7707af9d732a87e3c7fec17cc36388d1"


def _real(d: object, p: np.ndarray) -> list[int]:
    return p[~d.dummy].tolist()  # type: ignore[attr-defined]


def test_literal_hcpa_hand_computed() -> None:
    """a (100 s, α = 0.1) and b (60 s, α = 0) both before c (20 s, α = 0); P = 3.

    As written [L218-220] (smallest T(v, p+1)/(p+1) on the critical path): (1,1,1): paths
    a→c 120, b→c 80; T_A = 180/3 = 60; keys a 55/2 = 27.5, c 10/2 = 5 → c, and c stays
    the choice up to its cap 3 (L = 106.7 > T_A = 60 throughout). Then only a is a
    candidate: a→2 (T = 55): a→c 61.7, b→c 66.7, area 110 + 60 + 20 = 190, 3·66.7 = 200 >
    190: b→2: a→c 61.7, 3·61.7 = 185 <= 190: stop. (2, 2, 3).
    CPA's gain rule instead grows a first (gain 72.5 against 15) and ends at (3, 2, 2)
    (a→2, b→2, c→2, a→3, then 3·50 <= 200)."""
    d = single(chain_fork({"a": (100.0, 0.1), "b": (60.0, 0.0), "c": (20.0, 0.0)},
                          [("a", "c"), ("b", "c")]), SPEED)
    assert _real(d, hcpa_alloc(d, 3, bound=LITERAL)) == [2, 2, 3]
    assert _real(d, literal_alloc_reference(d, 3)) == [2, 2, 3]
    assert _real(d, hcpa_alloc(d, 3, bound=NO_BOUND)) == [3, 2, 2]


def test_literal_hcpa_chain_grows_short_task_first() -> None:
    """A chain a (10 s) → b (100 s), α = 0, P = 4: the written rule takes a (key 5 < 50)
    up to 4 processors before b; α = 0 keeps the area at 110 and T_CP·4 > 110 until b
    is on 4 too: (4, 4)."""
    d = single(chain_fork({"a": (10.0, 0.0), "b": (100.0, 0.0)}, [("a", "b")]), SPEED)
    assert _real(d, hcpa_alloc(d, 4, bound=LITERAL)) == [4, 4]


@pytest.mark.parametrize("seed", range(6))
def test_literal_jumps_equal_one_step_reference(seed: int) -> None:
    graphs = [random_ptg(n=20, fat=0.5, density=0.5, jump=2, seed=seed),
              fft_ptg(8, seed=seed), strassen_ptg(seed=seed)]
    for g in graphs:
        d = single(g, 3.3e9)
        for P in (1, 2, 7, 20, 47):
            assert np.array_equal(literal_alloc(d, P), literal_alloc_reference(d, P))


@pytest.mark.parametrize("seed", range(4))
def test_literal_incremental_levels_equal_full_sweeps(seed: int) -> None:
    """The kept bottom levels (decision 348) take exactly the jumps of the full-sweep
    version and of the one-increment reference: random graphs of several shapes, FFT and
    Strassen graphs, with per-task caps and a stopping budget as CAFM and C1/C4 pass."""
    rng = np.random.default_rng(seed)
    graphs = [random_ptg(n=int(rng.integers(8, 50)), fat=float(rng.uniform(0.2, 0.9)),
                         density=float(rng.uniform(0.1, 0.9)), jump=int(rng.integers(1, 4)),
                         seed=seed),
              fft_ptg((2, 4, 8, 16)[seed], seed=seed), strassen_ptg(seed=seed)]
    for g in graphs:
        d = single(g, 3.3e9)
        for P in (1, 3, 20, 47, 120, 216):
            fast = literal_alloc(d, P)
            assert np.array_equal(fast, literal_alloc_sweeps(d, P))
            if P <= 47:
                assert np.array_equal(fast, literal_alloc_reference(d, P))
            lim = rng.integers(1, P + 1, d.n)
            stop = max(1, P // 2)
            assert np.array_equal(literal_alloc(d, P, lim, stop),
                                  literal_alloc_sweeps(d, P, lim, stop))


def test_literal_trajectory_and_all_allocs() -> None:
    d = single(fft_ptg(4, seed=3), 3.3e9)
    traj = Trajectory.build(d, 12, LITERAL)
    allocs = all_allocs(traj)
    assert len(allocs) == 12
    for b, p in enumerate(allocs, start=1):
        assert np.array_equal(p, literal_alloc(d, b)) and p.max() <= b


def test_bound_parse_and_default() -> None:
    assert DEFAULT_BOUND == LITERAL and str(LITERAL) == "literal"
    assert HcpaBound.parse("literal") == LITERAL
    with pytest.raises(ValueError, match=r"'literal:0.5'.*literal takes no value"):
        HcpaBound.parse("literal:0.5")  # decision 416: it moved the budget silently
    with pytest.raises(ValueError, match="literal takes no value"):
        HcpaBound("literal", 0.5)
    assert str(HcpaBound.parse("budget:0.65")) == "budget:0.65"
    d = single(fft_ptg(2, seed=0), SPEED)
    with pytest.raises(ValueError, match="literal"):
        hcpa_alloc(d, 4, level_cap=2, bound=LITERAL)


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


def test_study_allocations_equal_the_recorded_digest() -> None:
    """Every budget of the study's own PTGs (fixed seeds): the digest of the full-sweep
    implementation (:data:`GOLDEN`) and the full-sweep oracle agree with
    :func:`literal_alloc`."""
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


def test_literal_hcpa_says_the_seed_states_a_bound_without_its_value() -> None:
    """[L595-597]: "The HCPA algorithm bounds the number of processors that can be used in
    a schedule"; the literal rule adds none because the value is not given, not because
    the seed gives no bound."""
    import lpsched.ptg.hcpa_literal as hl
    from lpsched.cli.ptg import HCPA_BOUND_HELP

    doc = " ".join((hl.__doc__ or "").split())
    assert "because the seed gives none" not in doc
    assert 'HCPA "bounds the number of processors that can be used in a schedule" ' \
        "[L595-597] but not the value of the bound" in doc
    assert "the seed states a bound [L595-597] but not its value; none is added" in \
        HCPA_BOUND_HELP and "DECIDE" not in HCPA_BOUND_HELP
