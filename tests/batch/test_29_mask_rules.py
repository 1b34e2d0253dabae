"""The faster mask paths of issue 29 (decisions 460–461) give what the former computations
gave, on random masks and profiles: the runs of :func:`free_blocks` (the former int64
diff), the cluster and tree rules fed kept cluster counts (:func:`cluster_counts`) and
given the whole mask, the run rules given the installed ids only, :func:`placeable` with a
kept free count, and :meth:`Profile.held_for` (the entries of :meth:`Profile.held_until`)."""

from __future__ import annotations

import numpy as np
import pytest

from lpsched.batch.allocation import (
    allocate,
    cluster_counts,
    free_blocks,
    placeable,
)
from lpsched.batch.simulator import Profile
from lpsched.batch.topology import fat_tree, kary_ntree


def old_free_blocks(free: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    edges = np.diff(np.concatenate([[0], free.astype(np.int8), [0]]))
    starts = np.flatnonzero(edges == 1)
    return starts, np.flatnonzero(edges == -1) - starts


def random_mask(rng: np.random.Generator, n: int, installed: int) -> np.ndarray:
    free = rng.random(n) < rng.choice([0.1, 0.5, 0.9])
    free[installed:] = False
    return free


@pytest.mark.parametrize("seed", range(30))
def test_free_blocks_equals_the_diff_of_the_mask(seed):
    rng = np.random.default_rng(seed)
    free = random_mask(rng, int(rng.integers(0, 300)), 300)
    for got, want in zip(free_blocks(free), old_free_blocks(free), strict=True):
        assert got.tolist() == want.tolist()
        assert got.dtype == want.dtype


@pytest.mark.parametrize("seed", range(30))
def test_tree_and_cluster_rules_read_kept_counts_as_the_mask(seed):
    rng = np.random.default_rng(seed)
    topo = fat_tree(4, [2, 3], installed=int(rng.integers(10, 25))) if seed % 2 else \
        kary_ntree(4, 3, installed=int(rng.integers(30, 65)))
    free = random_mask(rng, topo.leaves, topo.installed)
    clusters = cluster_counts(free, topo.cluster_size)
    assert clusters.tolist() == topo.block_counts(free, 1).tolist()
    for rule in ("beloc", "loc", "beplat", "plat", "contiguous", "quasi-contiguous"):
        for size in range(1, int(free.sum()) + 1):
            for qct in (10, 40):
                want = allocate(rule, free, size, topo.cluster_size, topo, qct)
                got = allocate(rule, free, size, topo.cluster_size, topo, qct,
                               clusters=clusters)
                assert (want is None) == (got is None), (rule, size)
                if want is not None:
                    assert got.tolist() == want.tolist(), (rule, size)


@pytest.mark.parametrize("seed", range(30))
def test_run_rules_on_the_installed_ids_and_placeable_with_kept_counts(seed):
    rng = np.random.default_rng(seed)
    installed = int(rng.integers(5, 64))
    free = random_mask(rng, 64, installed)
    sizes = np.arange(1, 40)
    for rule in ("becont", "cont", "becont-ff", "cont-ff"):
        for size in range(1, int(free.sum()) + 1):
            want = allocate(rule, free, size)
            got = allocate(rule, free[:installed], size)
            assert (want is None) == (got is None)
            if want is not None:
                assert got.tolist() == want.tolist()
        assert placeable(rule, free[:installed], sizes, None, int(free.sum())).tolist() \
            == placeable(rule, free, sizes).tolist()
    clusters = cluster_counts(free, 5)
    assert placeable("loc", free, sizes, 5, int(free.sum()), clusters).tolist() \
        == placeable("loc", free, sizes, 5).tolist()


@pytest.mark.parametrize("seed", range(30))
def test_held_for_is_held_until_at_the_sizes(seed):
    rng = np.random.default_rng(seed)
    prof = Profile(float(rng.integers(0, 5)), int(rng.integers(0, 17)))
    for _ in range(int(rng.integers(0, 12))):
        start = float(rng.integers(0, 30))
        prof.add(start, start + float(rng.integers(1, 10)), int(rng.integers(-4, 5)))
    sizes = rng.integers(0, 20, int(rng.integers(1, 6)))
    want = prof.held_until(int(sizes.max()), int(sizes.min()))[sizes]
    assert prof.held_for(sizes).tolist() == want.tolist()


@pytest.mark.parametrize("seed", range(12))
def test_easy_candidates_start_the_jobs_the_plain_loop_starts(seed, monkeypatch):
    """Decision 464: EASY reading only the positions ``backfill_candidates`` gives starts
    the same jobs at the same times on the same processors as reading every position (a
    saturated queue of several hundred jobs, forced tree rules)."""
    from lpsched.batch import simulator as sim_mod
    from lpsched.core.swf import Workload

    rng = np.random.default_rng(seed)
    n = 400
    work = Workload(job=np.arange(1, n + 1), submit=np.sort(rng.random(n) * 2000),
                    run=rng.random(n) * 300 + 1, size=rng.integers(1, 40, n),
                    estimate=rng.random(n) * 300 + 301, processors=60)
    topo = kary_ntree(4, 3, installed=60)
    alloc = ("contiguous", "quasi-contiguous", "beplat")[seed % 3]
    fast, _ = sim_mod.simulate_batch(work, "easy", alloc=alloc, topology=topo, qct=20)
    monkeypatch.setattr(sim_mod._BatchSim, "backfill_candidates",
                        lambda self, qarr, lo, *rest: range(lo, qarr.size))
    plain, _ = sim_mod.simulate_batch(work, "easy", alloc=alloc, topology=topo, qct=20)
    assert fast.start.tolist() == plain.start.tolist()
    assert fast.end.tolist() == plain.end.tolist()
    assert [p.tolist() for p in fast.procs] == [p.tolist() for p in plain.procs]
