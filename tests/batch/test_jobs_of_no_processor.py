"""Jobs of no processor (``size == 0``, reachable from the API and Batsim workloads; the SWF
reader never yields one) are simulated, validated and measured under every policy, rule and
penalty (decision 390: placed on no processor, no level, no penalty, ideal factors)."""

from __future__ import annotations

import numpy as np
import pytest

from lpsched.batch.allocation import ALLOCATORS, allocate
from lpsched.batch.simulator import (
    batch_metrics,
    placement_factors,
    simulate_batch,
    validate_batch,
)
from lpsched.batch.topology import parse_topology
from lpsched.core.swf import Workload

TOPO = parse_topology("fat-tree:4,4", 16)
WORK = Workload(job=np.arange(1, 7), submit=np.array([0, 0, 0, 1, 2, 2.0]),
                run=np.array([10, 100, 10, 10, 50, 5.0]), size=np.array([4, 8, 4, 4, 2, 0]),
                estimate=np.array([10, 100, 10, 10, 6, 5.0]), processors=16)


@pytest.mark.parametrize("alloc", ALLOCATORS)
@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
@pytest.mark.parametrize("penalty", [None, ("quadratic", 2.0)])
def test_every_rule_places_a_job_of_no_processor(alloc: str, policy: str,
                                                 penalty: tuple[str, float] | None) -> None:
    for rule in (["wait", "kill-advanced"] if policy == "easy" else ["wait"]):
        sched, _ = simulate_batch(WORK, policy, alloc=alloc, topology=TOPO, penalty=penalty,
                                  blocked_head=rule)
        assert sched.procs[5].size == 0 and sched.start[5] >= 2.0
        assert not sched.failed[5]
        validate_batch(WORK, sched, 16, topology=TOPO, forced=alloc)
        metrics = batch_metrics(WORK, sched, 16, topology=TOPO)
        assert np.isfinite(metrics["mean_wait"])
        factors = placement_factors(WORK, sched, TOPO)
        assert factors["locality_factor"] >= 1.0 and factors["platform_level_factor"] >= 1.0


def test_allocate_gives_no_processor_even_when_none_is_free() -> None:
    busy = np.zeros(16, bool)
    for rule in ALLOCATORS:
        ids = allocate(rule, busy, 0, 4, TOPO)
        assert ids is not None and ids.size == 0


def test_a_backfilled_job_of_no_processor_in_a_kill_round_on_the_line() -> None:
    # decision 387's line case (basic, six processors) with a job of no processor
    # backfilled past the head: it is a candidate victim, holds nothing, is not killed
    work = Workload(job=np.arange(1, 7), submit=np.array([0, 0, 1, 2, 2.5, 3]),
                    run=np.array([10, 100, 10, 50, 80, 50.0]),
                    size=np.array([2, 2, 3, 1, 0, 1]),
                    estimate=np.array([10, 100, 10, 5, 100, 6.0]), processors=6)
    sched, stats = simulate_batch(work, "easy", blocked_head="kill-advanced")
    validate_batch(work, sched, 6)
    assert sched.start[2] == 10 and sched.start[4] == 2.5
    assert stats["reservation_kills"] >= 1
