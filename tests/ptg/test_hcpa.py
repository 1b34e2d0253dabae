"""HCPA allocation, its replayable trajectory and M-STATIC (spec §3.1–§3.3)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpsched.ptg.generators import random_ptg
from lpsched.ptg.hcpa import (
    Trajectory,
    all_allocs,
    best_set,
    bottom_levels,
    hcpa_alloc,
    hcpa_schedule,
    m_static,
)
from lpsched.ptg.model import Dag, single
from tests.ptg.helpers import SPEED, chain_fork


def fork() -> Dag:
    """entry → a (100 s), b (60 s) → exit; α = 0."""
    g = chain_fork({"a": (100.0, 0.0), "b": (60.0, 0.0)}, [])
    return single(g, SPEED)


def test_hcpa_hand_computed_fork() -> None:
    # p=(1,1): T_CP=100 > T_A=160/4; a→2: CP is b (60); b→2: CP is a (50) > 40; a→3:
    # T_CP = max(33.3, 30) <= 40: stop.
    d = fork()
    p = hcpa_alloc(d, 4)
    real = dict(zip(np.flatnonzero(~d.dummy).tolist(), p[~d.dummy].tolist(), strict=True))
    assert list(real.values()) == [3, 2]
    assert p[d.dummy].tolist() == [0, 0]


def test_hcpa_single_task_amdahl() -> None:
    # α = 0.5, t1 = 100, P = 8: T_CP = T(p) and T_A = p·T(p)/8 meet at p = 8 (56.25)
    d = single(chain_fork({"x": (100.0, 0.5)}, []), SPEED)
    assert hcpa_alloc(d, 8).tolist() == [8]
    assert hcpa_alloc(d, 8, cap=3).tolist() == [3]


def test_level_cap() -> None:
    d = fork()
    p = hcpa_alloc(d, 4, cap=4, level_cap=3, levels=np.array([0, 1, 1, 2]))
    assert p[~d.dummy].sum() <= 3


def test_hcpa_schedule_hand_computed() -> None:
    # a on 3 processors [0, 33.3]; b (2 processors) appended after a on BEST_SET {3, 0}
    d = fork()
    s = hcpa_schedule(d, 4, np.random.default_rng(0))
    a, b = np.flatnonzero(~d.dummy)
    assert s.start[a] == 0 and s.end[a] == pytest.approx(100 / 3)
    assert s.procs[a].tolist() == [0, 1, 2]
    assert s.start[b] == pytest.approx(100 / 3) and s.end[b] == pytest.approx(100 / 3 + 30)
    assert s.procs[b].tolist() == [0, 3]


def test_best_set_prefers_smallest_gap() -> None:
    avail = np.array([5.0, 1.0, 3.0, 9.0, 0.0])
    assert best_set(avail, 2, 4.0).tolist() == [2, 1]  # free by 4: 3 then 1
    assert best_set(avail, 4, 4.0).tolist() == [2, 1, 4, 0]  # then the later ones


def _naive(dag: Dag, budget: int) -> np.ndarray:
    """One increment at a time, full recomputation (an independent reference)."""
    p = np.where(dag.dummy, 0, 1)
    while True:
        tt = dag.times(p)
        bl = tt.copy()
        for v in range(dag.n - 1, -1, -1):
            if dag.succs[v]:
                bl[v] = tt[v] + max(bl[w] for w in dag.succs[v])
        src = [v for v in range(dag.n) if not dag.preds[v]]
        v = max(src, key=lambda u: (bl[u], -u))
        cp, path = bl[v], [v]
        while dag.succs[v]:
            v = max(dag.succs[v], key=lambda u: (bl[u], -u))
            path.append(v)
        area = (np.maximum(p, 1) * tt)[~dag.dummy].sum()
        if cp <= area / budget * (1 + 1e-12):
            return p
        cand = [v for v in path if not dag.dummy[v] and p[v] < budget]
        if not cand:
            return p

        def gain(u: int) -> float:
            return dag.time(u, p[u]) / p[u] - dag.time(u, p[u] + 1) / (p[u] + 1)

        p[max(cand, key=lambda u: (gain(u), -u))] += 1


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 16), jump=st.integers(1, 3),
       density=st.sampled_from([0.2, 0.8]))
def test_batched_hcpa_and_trajectory_equal_the_reference(seed: int, n: int, jump: int,
                                                         density: float) -> None:
    d = single(random_ptg(n, 0.5, density, 0.5, jump, seed=seed), SPEED)
    traj = Trajectory.build(d, 24)
    every = all_allocs(traj)
    for b in (1, 2, 3, 7, 16, 24):
        ref = _naive(d, b)
        assert np.array_equal(hcpa_alloc(d, b), ref)
        assert np.array_equal(traj.alloc(b), ref)
        assert np.array_equal(every[b - 1], ref)


def test_m_static_never_before_predecessors_and_bottom_levels() -> None:
    g = random_ptg(15, 0.8, 0.8, 0.2, 2, seed=3)
    d = single(g, SPEED)
    p = hcpa_alloc(d, 6)
    bl = bottom_levels(d, p)
    for v in range(d.n):
        for w in d.succs[v]:
            assert bl[v] >= bl[w] + d.time(v, int(p[v])) - 1e-9
    s = m_static(d, p, (-bl,), 6, np.random.default_rng(1))
    pos = {v: k for k, v in enumerate(s.order.tolist())}
    assert all(pos[u] < pos[v] for v in range(d.n) for u in d.preds[v])
