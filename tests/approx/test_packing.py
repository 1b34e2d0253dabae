"""Rigid jobs on clusters (``lpsched.approx.packing``, seed 000 ch. 4): NFDH's Lemma 1,
NFDH+LS's Theorem 4 and its schedules checked by ``validate_rigid``, the two-cluster
instance of Figure 4.2 and the exact local optimum."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lpsched.approx import exact
from lpsched.approx.packing import nfdh, nfdh_ls, validate_rigid
from lpsched.errors import InvalidInstanceError, InvalidScheduleError

TIGHT_2x3 = np.array([[1.0, 2], [1.0, 2], [1.0, 2]])  # Theorems 2 and 3: C^L / C = 2


@given(st.integers(1, 60).flatmap(lambda n: st.tuples(
    st.lists(st.floats(0.1, 50), min_size=n, max_size=n),
    st.lists(st.integers(1, 8), min_size=n, max_size=n))), st.integers(1, 6))
def test_nfdh_ls_theorem4(jobs, k):
    p, size = np.array(jobs[0]), np.array(jobs[1])
    ell = 8
    res = nfdh_ls(np.c_[p, size], k, ell)
    validate_rigid(p, size, res.schedule, k * ell, ell, local=True)
    assert res.holds()  # Cmax <= 3·max(A/m, pmax)
    assert res.makespan <= res.extra["theorem_bound"] * (1 + 1e-9)


def test_nfdh_lemma1():
    rng = np.random.default_rng(4)
    w, h = rng.uniform(0.01, 1, 300), rng.uniform(0, 5, 300)
    batch, heights = nfdh(w, h)
    assert heights.sum() <= 2 * (w * h).sum() + h.max() + 1e-9
    assert np.all(np.bincount(batch, weights=w) <= 1 + 1e-12)


def test_tight_two_clusters_of_three():
    """Three unit jobs of size 2 on 2 clusters of 3: Cmax = 1 (all in parallel on 6
    processors), but any local schedule needs 2 — NFDH+LS meets the locality optimum."""
    res = nfdh_ls(TIGHT_2x3, clusters=2, cluster_size=3)
    assert res.makespan == 2.0 and res.lower_bound == 1.0
    validate_rigid(TIGHT_2x3[:, 0], TIGHT_2x3[:, 1].astype(int), res.schedule, 6, 3,
                   local=True)


def test_rigid_validation_and_bad_inputs():
    res = nfdh_ls(TIGHT_2x3, clusters=2, cluster_size=3)
    from dataclasses import replace

    moved = replace(res.schedule, first=np.array([0, 2, 3]), start=np.zeros(3),
                    end=np.ones(3))
    with pytest.raises(InvalidScheduleError) as err:
        validate_rigid(TIGHT_2x3[:, 0], TIGHT_2x3[:, 1].astype(int), moved, 6, 3, local=True)
    assert err.value.rule in ("locality", "overlap")
    with pytest.raises(InvalidInstanceError, match="wider than a cluster"):
        nfdh_ls([[1, 4]], clusters=2, cluster_size=3)
    with pytest.raises(InvalidInstanceError, match="clusters"):
        nfdh_ls([[1, 1]], clusters=0, cluster_size=3)
    with pytest.raises(InvalidInstanceError, match="times"):
        nfdh_ls([[-1, 1]], clusters=1, cluster_size=3)


@pytest.mark.parametrize("seed", range(4))
def test_nfdh_ls_against_the_exact_local_optimum(seed):
    rng = np.random.default_rng(seed)
    jobs = np.c_[np.round(rng.uniform(1, 10, 5), 1), rng.integers(1, 5, 5)]
    e = exact.makespan_rigid(jobs, 8, 4, local=True)
    r = nfdh_ls(jobs, 2, 4)
    assert e.optimal
    assert e.makespan <= r.makespan * (1 + 1e-9)  # the MIP is optimal
    assert r.makespan <= 3 * e.makespan * (1 + 1e-9)
    assert e.makespan >= r.lower_bound * (1 - 1e-9)
