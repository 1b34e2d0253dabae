"""The tree allocators' schedules on the seeds' reduced cells are the pinned ones
(``tests/batch/data/tree_schedules.json``, :mod:`tests.batch.tree_cases`): ch. 5's
platform-level cells and seed 001's topology-aware cells. Skipped without
``../shared/data``; Curie and the seed 001 traces but LLNL are ``slow``."""

from __future__ import annotations

import json

import pytest

from tests.batch.tree_cases import (
    FIXTURE,
    SEED001,
    ch5_cases,
    ch5_run,
    present,
    s001_cases,
    s001_run,
    schedule_hash,
)


def test_the_fixture_covers_every_case():
    pinned = json.loads(FIXTURE.read_text())
    assert sorted(pinned) == sorted(ch5_cases() + s001_cases())


@pytest.mark.parametrize("name", [n for n in ch5_cases() if n.startswith("kth")]
                         + [pytest.param(n, marks=pytest.mark.slow) for n in ch5_cases()
                            if n.startswith("curie")])
def test_ch5_schedules_are_the_pinned_ones(name):
    present()
    assert schedule_hash(ch5_run(name)) == json.loads(FIXTURE.read_text())[name]


@pytest.mark.parametrize("name", [n if n.startswith(SEED001[0]) else
                                  pytest.param(n, marks=pytest.mark.slow)
                                  for n in s001_cases()])
def test_seed001_schedules_are_the_pinned_ones(name):
    present()
    assert schedule_hash(s001_run(name)) == json.loads(FIXTURE.read_text())[name]


def test_the_hash_sees_one_moved_processor():
    present()
    sched = ch5_run("kth/beloc")
    moved = [p.copy() for p in sched.procs]
    j = next(i for i, p in enumerate(moved) if p.size >= 2)
    moved[j] = moved[j][::-1].copy()

    class _S:
        start, end, failed, procs = sched.start, sched.end, sched.failed, moved

    assert schedule_hash(_S) != schedule_hash(sched)
