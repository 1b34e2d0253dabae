"""Processor allocation (:mod:`lpsched.batch.allocation`): :func:`placeable` against
:func:`allocate`, and the kept counts the simulator feeds the rules (decision 460) against
the whole mask, on random masks."""

from __future__ import annotations

import numpy as np
import pytest

from lpsched.batch.allocation import (
    allocate,
    cluster_counts,
    free_blocks,
    placeable,
)
from lpsched.batch.topology import fat_tree, kary_ntree


@pytest.mark.parametrize("rule", ["cont", "cont-ff", "loc", "basic", "beloc"])
def test_placeable_is_what_allocate_does(rule):
    """For the forced rules ``cont``, ``cont-ff`` and ``loc``, :func:`placeable` says
    exactly whether :func:`allocate` places a job of each size on a free mask; for the
    other rules it is the free count (a necessary condition; decision 266)."""
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


def diff_free_blocks(free: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The runs of free processors read from the int64 difference of the mask."""
    edges = np.diff(np.concatenate([[0], free.astype(np.int8), [0]]))
    starts = np.flatnonzero(edges == 1)
    return starts, np.flatnonzero(edges == -1) - starts


def random_mask(rng: np.random.Generator, n: int, installed: int) -> np.ndarray:
    free = rng.random(n) < rng.choice([0.1, 0.5, 0.9])
    free[installed:] = False
    return free


@pytest.mark.parametrize("seed", range(30))
def test_free_blocks_equals_the_diff_of_the_mask(seed):
    """:func:`free_blocks` gives the runs the difference of the mask gives, same dtypes."""
    rng = np.random.default_rng(seed)
    free = random_mask(rng, int(rng.integers(0, 300)), 300)
    for got, want in zip(free_blocks(free), diff_free_blocks(free), strict=True):
        assert got.tolist() == want.tolist()
        assert got.dtype == want.dtype


@pytest.mark.parametrize("seed", range(30))
def test_tree_and_cluster_rules_read_kept_counts_as_the_mask(seed):
    """Decision 460: the cluster and tree rules fed kept cluster counts
    (:func:`cluster_counts`) choose the ids they choose from the whole mask."""
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
    """Decision 460: the run rules given the installed ids only, and :func:`placeable` given
    a kept free count, answer as on the whole mask."""
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
