"""Forced allocators under conservative backfilling always finish (decision 265): a due job
the forced rule refuses is re-planned from the next end, not from now.

Re-planned from now, ``reproduce contiguity``'s seed-3 instance (300 CEA-Curie jobs, 512
processors, clusters of 16) never finishes under ``loc``: zero-length jobs refused in turn
are re-planned one rounding step later at every pass (the clock creeps by 1.8e-12 s a pass
towards an end 1 s away). The tests run the simulator under a step budget: more passes than
the budget is a failure, not a hang. The trace test skips without ``../shared/data``."""

from __future__ import annotations

import numpy as np
import pytest

from lpsched.batch import simulator as sim_mod
from lpsched.batch.simulator import COMPRESSIONS, simulate_batch, validate_batch
from lpsched.core.swf import Workload
from tests.shared_data import shared_file

CURIE = "CEA-Curie-2011-2.1-cln.swf.gz"
FIXED = tuple(c for c in COMPRESSIONS if c != "rebuild")


class BudgetExceeded(Exception):
    pass


@pytest.fixture
def budget(monkeypatch):
    """``budget(n)`` caps the scheduling passes of the simulations that follow at ``n``."""
    state = {"left": 0, "used": 0}
    original = sim_mod._BatchSim.scheduling_pass

    def counted(self):
        state["used"] += 1
        if state["used"] > state["left"]:
            raise BudgetExceeded(f"more than {state['left']} passes at now = {self.now!r}")
        return original(self)

    monkeypatch.setattr(sim_mod._BatchSim, "scheduling_pass", counted)

    def set_budget(n: int) -> dict[str, int]:
        state["left"], state["used"] = n, 0
        return state

    return set_budget


def offline(size: list[int], run: list[float], submit: list[float] | None = None,
            m: int = 16) -> Workload:
    n = len(size)
    r = np.array(run, float)
    return Workload(job=np.arange(1, n + 1), submit=np.array(submit or [0.0] * n, float),
                    run=r, size=np.array(size), estimate=r.copy(), processors=m)


#: the smallest shapes found by a random search that hung the simulator before the fix
#: (16 processors, clusters of 4): zero-length jobs a forced rule refuses while the free
#: count would fit them
HUNG = [
    ("loc", offline([5, 5, 8, 8, 3], [0, 1, 0, 0, 3]),
     [0.0, 0.0, 1.0, 1.0, 0.0]),
    ("cont-ff", offline([5, 4, 8, 10], [0, 5, 0, 0], [1, 1, 2, 2]),
     [1.0, 1.0, 6.0, 6.0]),
]


@pytest.mark.parametrize("compression", FIXED)
@pytest.mark.parametrize(("alloc", "work", "starts"), HUNG, ids=[h[0] for h in HUNG])
def test_hand_made_forced_refusals_finish(budget, alloc, work, starts, compression):
    """Each job is refused at most once per end (decision 265), so a handful of passes."""
    state = budget(4 * work.jobs + 10)
    sched, _ = simulate_batch(work, "conservative", alloc=alloc, cluster_size=4,
                              compression=compression)
    validate_batch(work, sched, 16, cluster_size=4, forced=alloc)
    # the zero-length jobs' slots are 1e-12 s long, so under "none" the second may start
    # one such slot after the first
    np.testing.assert_allclose(sched.start, starts, atol=1e-9)
    assert state["used"] <= 4 * work.jobs + 10


def test_the_budget_can_fail(budget):
    """The fixture does stop a run: a budget below the passes needed raises."""
    alloc, work, _ = HUNG[0]
    budget(2)
    with pytest.raises(BudgetExceeded):
        simulate_batch(work, "conservative", alloc=alloc, cluster_size=4,
                       compression="reassign")


def test_a_rule_that_can_never_place_a_job_is_an_error():
    """A due job refused on the idle machine can never start: a clear error, not a loop.
    (Every rule places any job on an idle line; a tree whose level-``L_min`` blocks are
    partly uninstalled is the shape where it could happen — here, simulated directly.)"""
    work = offline([4], [1.0], m=8)
    run = sim_mod._BatchSim(work, "conservative", 8, False, "loc", 4, None, 20, None, 0.0,
                            "reassign")
    with pytest.raises(sim_mod.LpschedError, match="cannot be placed"):
        run.next_change(0)


@pytest.mark.parametrize("compression", FIXED)
def test_curie_seed3_loc_finishes(budget, compression):
    """``reproduce contiguity``'s seed-3 instance, rebuilt from the trace, under ``loc``:
    finishes in a few thousand passes (it never did before)."""
    curie = shared_file(CURIE)
    from lpsched.batch.reproduce import contiguity_instance

    work = contiguity_instance(str(curie), 3, 300, 512)
    assert work.jobs == 300 and int(work.size.max()) <= 512
    state = budget(5000)
    sched, _ = simulate_batch(work, "conservative", alloc="loc", cluster_size=16,
                              compression=compression)
    validate_batch(work, sched, 512, cluster_size=16, forced="loc")
    assert state["used"] < 5000
