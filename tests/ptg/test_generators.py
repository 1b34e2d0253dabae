"""Generators (seed 004 §6.3–§6.5)."""

from __future__ import annotations

import numpy as np
import pytest

from lpsched.errors import InvalidInstanceError
from lpsched.ptg.generators import (
    build_member,
    fft_ptg,
    population,
    random_levels,
    random_ptg,
    scenarios,
    strassen_ptg,
    task_costs,
)


@pytest.mark.parametrize(("points", "tasks", "levels"), [(2, 5, 3), (4, 15, 5), (8, 39, 7)])
def test_fft_counts_levels_width(points: int, tasks: int, levels: int) -> None:
    g = fft_ptg(points, seed=1)
    real = ~g.dummy
    assert real.sum() == tasks
    assert g.width == points
    assert len(set(g.levels[real].tolist())) == 2 * int(np.log2(points)) + 1 == levels


def test_strassen_counts_and_width() -> None:
    g = strassen_ptg(seed=3)
    assert (~g.dummy).sum() == 25 and g.width == 10
    assert g.dummy.sum() == 2  # ten sources, four sinks


def test_random_ptg_counts_and_width_bound() -> None:
    for seed in range(20):
        n, fat, reg = 30, 0.5, 0.8
        g = random_ptg(n, fat, 0.8, reg, 2, seed=seed)
        assert (~g.dummy).sum() == n
        nb = int(np.floor(n**fat))
        sizes = random_levels(n, fat, reg, np.random.default_rng(seed))
        assert sum(sizes) == n and max(sizes) <= int(nb * (1 + (1 - reg)))


def test_determinism_by_seed() -> None:
    a, b = random_ptg(20, 0.5, 0.2, 0.8, 2, seed=4), random_ptg(20, 0.5, 0.2, 0.8, 2, seed=4)
    assert a.ids == b.ids and np.array_equal(a.work, b.work) and \
        np.array_equal(a.edges, b.edges)
    c = random_ptg(20, 0.5, 0.2, 0.8, 2, seed=5)
    assert not np.array_equal(a.work, c.work)


def test_costs_ranges() -> None:
    rng = np.random.default_rng(0)
    w, a = task_costs(2000, "ad", rng)
    assert (a >= 0).all() and (a < 0.25).all()
    assert w.min() >= 64 * 2048**2 and w.max() <= 512 * 10240**2
    w3, _ = task_costs(100, "d32", rng)
    assert w3.min() >= 2048**3 and w3.max() <= 10240**3
    with pytest.raises(InvalidInstanceError):
        task_costs(3, "quadratic", rng)


def test_populations_and_scenarios() -> None:
    assert [len(population(c)) for c in ("random", "fft", "strassen")] == [1296, 120, 100]
    sc = scenarios()
    assert len(sc) == 1500
    assert all(len(set(s.members)) == s.n_ptgs for s in sc)
    # the same 25 sets on every cluster (DECIDE-25)
    by = {}
    for s in sc:
        by.setdefault((s.cls, s.n_ptgs, s.set_index), set()).add(s.members)
    assert all(len(v) == 1 for v in by.values()) and len(by) == 375
    g = build_member(population("fft")[0])
    assert (~g.dummy).sum() == 5


def test_bad_parameters() -> None:
    with pytest.raises(InvalidInstanceError, match="fat"):
        random_ptg(10, 1.5)
    with pytest.raises(InvalidInstanceError, match="points"):
        fft_ptg(6)
    with pytest.raises(InvalidInstanceError, match="jump"):
        random_ptg(10, jump=0)
