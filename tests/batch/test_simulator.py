"""The batch simulator (:func:`~lpsched.batch.simulator.simulate_batch`): valid schedules
under every policy, the seeds' worked examples by hand, the availability profile, and no
reference cycle left behind."""

import gc
import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lpsched.batch.batsim import JOBS_COLUMNS
from lpsched.batch.simulator import BatchSchedule, batch_metrics, simulate_batch, validate_batch
from lpsched.batch.topology import fat_tree, kary_ntree
from lpsched.core.swf import Workload, read_swf, to_workload
from lpsched.errors import InvalidInstanceError, InvalidScheduleError
from tests.shared_data import shared_file


def random_workload(seed: int, n: int = 40, m: int = 16) -> Workload:
    rng = np.random.default_rng(seed)
    run = np.round(rng.uniform(1, 100, n), 1)
    est = np.round(run * rng.uniform(1.0, 3.0, n), 1)
    return Workload(job=np.arange(1, n + 1), submit=np.sort(np.round(rng.uniform(0, 300, n))),
                    run=run, size=rng.integers(1, m + 1, n), estimate=est, processors=m)


@given(st.integers(0, 2**31 - 1), st.sampled_from(["fcfs", "easy", "conservative"]),
       st.booleans())
def test_every_policy_gives_a_valid_schedule(seed, policy, kill):
    w = random_workload(seed)
    sched, stats = simulate_batch(w, policy, kill=kill)
    validate_batch(w, sched, 16)
    dur = sched.end - sched.start
    assert np.allclose(dur, np.minimum(w.run, w.estimate) if kill else w.run)
    metrics = batch_metrics(w, sched, 16)
    assert 0 < metrics["utilisation"] <= 1 and metrics["mean_bounded_slowdown"] >= 1
    assert stats["events"] >= 2 * w.jobs


@given(st.integers(0, 2**31 - 1))
def test_fcfs_starts_in_submission_order(seed):
    w = random_workload(seed)
    sched, _ = simulate_batch(w, "fcfs")
    order = np.lexsort((np.arange(w.jobs), w.submit))
    assert (np.diff(sched.start[order]) >= -1e-9).all()


@given(st.integers(0, 2**31 - 1), st.sampled_from(["easy", "conservative"]))
def test_backfilling_with_exact_estimates(seed, policy):
    """With exact estimates: deterministic, valid, and the first job never waits on the empty
    machine."""
    w = random_workload(seed)
    exact = Workload(w.job, w.submit, w.run, w.size, w.run.copy(), w.processors)
    a, _ = simulate_batch(exact, policy)
    b, _ = simulate_batch(exact, policy)
    assert np.array_equal(a.start, b.start)
    validate_batch(exact, a, 16)
    # the earliest-submitted job never waits on an empty machine
    first = int(np.lexsort((np.arange(w.jobs), w.submit))[0])
    assert a.start[first] == w.submit[first]


def test_validation_rejects_overlaps_and_early_starts():
    w = random_workload(1, n=3, m=4)
    w = Workload(w.job, np.zeros(3), np.ones(3), np.array([2, 2, 2]), np.ones(3), 4)
    good = BatchSchedule(np.array([0.0, 0.0, 1.0]), np.array([1.0, 1.0, 2.0]),
                         [np.array([0, 1]), np.array([2, 3]), np.array([0, 1])])
    validate_batch(w, good, 4)
    clash = BatchSchedule(good.start, good.end, [np.array([0, 1]), np.array([1, 2]),
                                                 np.array([0, 1])])
    with pytest.raises(InvalidScheduleError, match="busy"):
        validate_batch(w, clash, 4)
    early = Workload(w.job, np.array([0.0, 0.5, 1.0]), w.run, w.size, w.estimate, 4)
    with pytest.raises(InvalidScheduleError, match="submission"):
        validate_batch(early, good, 4)


def test_bad_inputs():
    w = random_workload(2, m=8)
    with pytest.raises(InvalidInstanceError, match="policy"):
        simulate_batch(w, "sjf")
    with pytest.raises(InvalidInstanceError, match="wider"):
        simulate_batch(w, "easy", processors=4)


def test_real_trace_and_cli(tmp_path, capsys):
    from lpsched.cli import main

    hpc2n = shared_file("hpc2n-excerpt.swf")
    w = to_workload(read_swf(hpc2n))
    res = {}
    for policy in ("fcfs", "easy", "conservative"):
        sched, _ = simulate_batch(w, policy)
        validate_batch(w, sched, 240)
        res[policy] = batch_metrics(w, sched, 240)
    assert res["easy"]["mean_bounded_slowdown"] < res["fcfs"]["mean_bounded_slowdown"]
    out = tmp_path / "s.csv"
    code = main(["batch", str(hpc2n), "--policy", "conservative",
                 "--alloc", "basic", "--limit", "500", "--out", str(out), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    for key in ("jobs", "dropped", "makespan", "mean_wait", "mean_bounded_slowdown",
                "utilisation", "seconds", "jobs_per_second"):
        assert key in data
    lines = out.read_text().splitlines()
    assert lines[0] == ",".join(JOBS_COLUMNS) and len(lines) == 501


def test_profile_operations():
    from lpsched.batch.plan import Profile

    p = Profile(0.0, 4)
    p.add(5.0, float("inf"), 4)
    assert list(p.times) == [0.0, 5.0] and list(p.free) == [4, 8]
    p.reserve(0.0, 10.0, 3)
    assert list(p.free) == [1, 5, 8]
    assert p.earliest(2, 3.0) == 5.0  # 5 free from 5 to 10
    assert p.earliest(6, 1.0) == 10.0
    assert p.earliest(1, 100.0) == 0.0


def test_allocators():
    from lpsched.batch.allocation import allocate, free_blocks, is_contiguous, is_local

    free = np.array([1, 1, 0, 1, 1, 1, 0, 1], bool)
    assert free_blocks(free)[1].tolist() == [2, 3, 1]
    assert allocate("basic", free, 3).tolist() == [0, 1, 3]
    assert allocate("becont", free, 3).tolist() == [3, 4, 5]
    assert allocate("becont", free, 4).tolist() == [3, 4, 5, 0]
    assert allocate("cont", free, 3).tolist() == [3, 4, 5]
    assert allocate("cont", free, 4) is None  # forced: waits
    # both clusters have 3 free processors: ties go to the lower cluster
    assert allocate("beloc", free, 3, cluster_size=4).tolist() == [0, 1, 3]
    assert allocate("beloc", free, 4, cluster_size=4).tolist() == [0, 1, 3, 4]
    assert allocate("loc", free, 3, cluster_size=4).tolist() == [0, 1, 3]
    assert allocate("loc", free, 4, cluster_size=4) is None  # would need two clusters
    assert allocate("loc", free, 5, cluster_size=4).tolist() == [0, 1, 3, 4, 5]
    busier = np.array([1, 0, 0, 0, 1, 1, 0, 1], bool)
    assert allocate("beloc", busier, 2, cluster_size=4).tolist() == [4, 5]
    assert is_contiguous(np.array([3, 4, 5])) and not is_contiguous(np.array([0, 2]))
    assert is_local(np.array([4, 5, 7]), 4) and not is_local(np.array([1, 4]), 4)
    with pytest.raises(InvalidInstanceError, match="needs clusters"):
        allocate("beloc", free, 2)


@given(st.integers(0, 2**31 - 1), st.sampled_from(["fcfs", "easy", "conservative"]),
       st.sampled_from(["basic", "becont", "cont", "beloc", "loc"]))
def test_allocators_in_the_simulator(seed, policy, alloc):
    w = random_workload(seed)
    sched, _ = simulate_batch(w, policy, alloc=alloc, cluster_size=4)
    validate_batch(w, sched, 16, contiguous=alloc == "cont", cluster_size=4,
                   local=alloc == "loc")
    m = batch_metrics(w, sched, 16, cluster_size=4)
    if alloc == "cont":
        assert m["contiguous_jobs"] == 1.0
    if alloc == "loc":
        assert m["local_jobs"] == 1.0


# -- hand-computed schedules and the reservation guarantees -------------------------------------

def hand(submit, run, size, est=None, m=16):
    n = len(submit)
    return Workload(job=np.arange(1, n + 1), submit=np.array(submit, float),
                    run=np.array(run, float), size=np.array(size),
                    estimate=np.array(est if est is not None else run, float), processors=m)


@pytest.mark.parametrize(("policy", "starts"), [("fcfs", [0, 10, 10]), ("easy", [0, 10, 2]),
                                                ("conservative", [0, 10, 2])])
def test_seed001_e1_by_hand(policy, starts):
    """Spec seed 001 §4.5 E1 (16 nodes): J1 (12 nodes, 10) at 0, J2 (8, 5) at 1, J3 (4, 20)
    at 2. EASY reserves 10 for J2 and backfills J3 at 2 on the 4 free nodes; conservative
    too (J3 fits beside J2's reservation); FCFS makes J3 wait behind J2."""
    w = hand([0, 1, 2], [10, 5, 20], [12, 8, 4])
    sched, _ = simulate_batch(w, policy)
    assert sched.start.tolist() == starts
    validate_batch(w, sched, 16)


@pytest.mark.parametrize(("compression", "starts"), [("none", [0, 0, 10, 10]),
                                                     ("reassign", [0, 0, 2, 5]),
                                                     ("rebuild", [0, 0, 2, 5])])
def test_reassignment_fig_5_3_by_hand(compression, starts):
    """Seed 000 Fig. 5.3 on 2 processors: J1 and J2 run (estimates 10), J3 and J4 are reserved
    at 10. J2 ends early at 2: with reassignment J3 starts now and J4 keeps its reservation;
    J3 ends early at 5: J4 starts now. Without compression both wait for 10."""
    w = hand([0, 0, 0, 0], [10, 2, 3, 1], [1, 1, 1, 1], est=[10, 10, 10, 5], m=2)
    sched, stats = simulate_batch(w, "conservative", compression=compression)
    assert sched.start.tolist() == starts
    if compression != "rebuild":
        assert stats["first_reservation"].tolist() == [0, 0, 10, 10]


@given(st.integers(0, 2**31 - 1), st.sampled_from(["none", "reassign"]))
def test_conservative_never_delays_a_first_reservation(seed, compression):
    """Run times within the estimates (kill at the estimate, so no overruns): every job starts
    at its first reservation ("none") or no later ("reassign")."""
    w = random_workload(seed, n=60)
    sched, stats = simulate_batch(w, "conservative", kill=True, compression=compression)
    validate_batch(w, sched, 16)
    first = stats["first_reservation"]
    assert not np.isnan(first).any()
    if compression == "none":
        assert np.allclose(sched.start, first)
    else:
        assert (sched.start <= first + 1e-9).all()


@given(st.integers(0, 2**31 - 1))
def test_easy_never_delays_the_head_reservation(seed):
    """A job's start is never after the reservation it got when it first headed the queue."""
    w = random_workload(seed, n=60)
    sched, stats = simulate_batch(w, "easy", kill=True)
    first = stats["first_reservation"]
    held = ~np.isnan(first)
    assert (sched.start[held] <= first[held] + 1e-9).all()


def test_compression_needs_conservative_names():
    w = hand([0], [1], [1])
    with pytest.raises(InvalidInstanceError, match="compression"):
        simulate_batch(w, "conservative", compression="squeeze")
    with pytest.raises(InvalidInstanceError, match="conservative backfilling only"):
        simulate_batch(w, "easy", compression="rebuild")


def test_validation_accepts_a_zero_length_job_before_its_successor():
    """A job of run time 0 ends when it starts: the next job may start there at once, in
    whatever order the two were submitted (found on CEA-Curie)."""
    w = hand([0, 0], [5, 0], [1, 1], est=[5, 1], m=1)
    validate_batch(w, BatchSchedule(np.zeros(2), np.array([5.0, 0.0]),
                                    [np.array([0]), np.array([0])]), 1)
    sched, _ = simulate_batch(w, "easy")
    validate_batch(w, sched, 1)
    with pytest.raises(InvalidScheduleError, match="busy"):
        validate_batch(w, BatchSchedule(np.zeros(2), np.array([5.0, 1.0]),
                                        [np.array([0]), np.array([0])]), 1)



def test_profile_add_trim_and_from_releases():
    from lpsched.batch.plan import Profile

    p = Profile.from_releases(0.0, 2, np.array([3.0, 3.0, 7.0, -1.0]), np.array([1, 2, 4, 5]))
    assert list(p.times) == [0.0, 3.0, 7.0] and list(p.free) == [7, 10, 14]  # -1 -> now
    p.add(1.0, 5.0, -6)
    assert p.earliest(6, 2.0) == 5.0 and p.earliest(1, 1.0) == 0.0
    p.trim(4.0)
    assert list(p.times) == [4.0, 5.0, 7.0] and list(p.free) == [4, 10, 14]
    p.add(0.0, 4.5, 1)  # clipped to the profile's start
    assert list(p.free[:2]) == [5, 4]


# ---------------------------------------------------------------- no reference cycle
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
    """With the cyclic collector off, no ``_BatchSim`` outlives :func:`simulate_batch`, and
    a collection then finds nothing of lpsched's to free (decision 463: a simulator that
    kept its own bound methods ``begin``/``finish`` held every simulation's arrays until a
    full collection). Garbage other libraries leave in the process (matplotlib's figures of
    an earlier test) is not the simulator's and is not counted."""
    work = small_work()
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        sched, _ = simulate_batch(work, policy, alloc=alloc, **kw)
        assert np.isfinite(sched.start).all()
        assert live_simulators() == 0
        gc.collect()
        ours = [o for o in gc.garbage if _from_lpsched(o)]
        assert not ours, ours[:5]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def _from_lpsched(obj: object) -> bool:
    """Whether ``obj`` is an lpsched object, or a function or method of lpsched's code."""
    module = getattr(type(obj), "__module__", "") or ""
    owner = getattr(obj, "__self__", None)
    code = getattr(obj, "__module__", "") if callable(obj) else ""
    return any(str(m).startswith("lpsched") for m in (
        module, code or "", getattr(type(owner), "__module__", "") if owner is not None else ""))


# ---------------------------------------------------------------- EASY's candidates
@pytest.mark.parametrize("seed", range(12))
def test_easy_candidates_start_the_jobs_the_plain_loop_starts(seed, monkeypatch):
    """Decision 464: EASY reading only the positions ``backfill_candidates`` gives starts
    the same jobs at the same times on the same processors as reading every position (a
    saturated queue of several hundred jobs, forced tree rules)."""
    from lpsched.batch import simulator as sim_mod

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
