"""A simulation leaves no reference cycle behind (decision 463, the source of decision 432's
memory growth): with the cyclic collector off, no ``_BatchSim`` outlives
:func:`simulate_batch`, and a collection then finds nothing to free. It failed before the
fix: the simulator kept its own bound methods ``begin``/``finish``. Also: a reduced ch. 5
table names its instance count once (it said it twice under ``--instances``)."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from lpsched.batch.simulator import simulate_batch
from lpsched.batch.topology import fat_tree
from lpsched.core.swf import Workload


def small_work(n: int = 120) -> Workload:
    rng = np.random.default_rng(0)
    return Workload(job=np.arange(1, n + 1), submit=np.sort(rng.random(n) * 1000),
                    run=rng.random(n) * 100 + 1, size=rng.integers(1, 17, n),
                    estimate=rng.random(n) * 100 + 101, processors=64)


def live_simulators() -> int:
    return sum(type(o).__name__ == "_BatchSim" for o in gc.get_objects())


@pytest.mark.parametrize(("policy", "alloc", "kw"), [
    ("conservative", "loc", {"cluster_size": 16, "compression": "reassign"}),
    ("conservative", "basic", {}),
    ("easy", "beloc", {"cluster_size": 16}),
    ("conservative", "plat", {"topology": fat_tree(16, [4]), "penalty": ("quadratic", 2.0)}),
    ("easy", "quasi-contiguous", {"topology": fat_tree(16, [4])}),
])
def test_a_simulation_leaves_no_cycle(policy, alloc, kw):
    work = small_work()
    gc.collect()
    gc.disable()
    try:
        sched, _ = simulate_batch(work, policy, alloc=alloc, **kw)
        assert np.isfinite(sched.start).all()
        assert live_simulators() == 0
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_a_reduced_ch5_note_names_the_instances_once():
    """``--instances 3`` gave "3 of the seed's 30 instances; 3 of the seed's 30 instances"
    (the command's note and the table's count); now once."""
    from lpsched.batch.fidelity import platform_table

    summ = {"curie": {a: {"sum_flow": 0.9, "instances": 3}
                      for a in ("becont", "beloc", "beplat", "cont", "loc", "plat")}}
    rows = platform_table(summ, {}, reduced="3 of the seed's 30 instances").rows
    note = next(r.note for r in rows if r.figure == "curie: plat sum flow / basic's")
    assert note.count("3 of the seed's 30 instances") == 1
    rows = platform_table(summ, {}).rows
    note = next(r.note for r in rows if r.figure == "curie: plat sum flow / basic's")
    assert "reduced run (3 of the seed's 30 instances)" in note
