"""The fixed-reservation pass that takes only the turns that can change the plan (decision
266) keeps every start time of forced allocators: the hashes of ``data/forced_starts.json``
(:mod:`tests.batch.forced_cases`) are those of the pass that searches the plan for every
waiting job, on 512-processor CEA-Curie instances and KTH-SP2, online and offline,
``basic`` / ``cont-ff`` / ``loc`` under the three fixed-reservation compressions. Skipped
without the shared traces (tests/shared_data.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.batch import forced_cases as fc
from tests.shared_data import shared_file

PINNED = json.loads(fc.FIXTURE.read_text())


@pytest.fixture(scope="module")
def instances():
    for name in (fc.CURIE, fc.KTH):
        shared_file(name)
    return fc.instances()


def test_the_fixture_covers_every_case():
    assert len(PINNED) == 5 * len(fc.ALLOCS) * len(fc.COMPRESSIONS)


#: textbook compression moves most waiting jobs at each early end (decision 266): its
#: cases take 15-20 s each on a loaded machine, so they run with ``-m slow``
COMPRESSION_CASES = [pytest.param(c, marks=pytest.mark.slow) if c == "textbook" else c
                     for c in fc.COMPRESSIONS]


@pytest.mark.parametrize("alloc", fc.ALLOCS)
@pytest.mark.parametrize("compression", COMPRESSION_CASES)
def test_forced_start_times_are_the_pinned_ones(instances, alloc, compression):
    for name, (work, cluster) in instances.items():
        start = fc.run_case(work, cluster, alloc, compression)
        assert fc.start_hash(start) == PINNED[f"{name}/{alloc}/{compression}"], name


def test_the_hash_sees_one_moved_start(instances):
    work, cluster = instances["kth-online-300"]
    start = fc.run_case(work, cluster, "loc", "reassign")
    moved = start.copy()
    moved[np.argmax(start)] += 1e-3
    assert fc.start_hash(start) == PINNED["kth-online-300/loc/reassign"]
    assert fc.start_hash(moved) != fc.start_hash(start)
