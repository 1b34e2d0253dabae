"""Topologies: fat trees and k-ary n-trees, the platform-level (seed 000 ch. 5)
and (quasi-)contiguous (seed 001) allocators, placement penalties and their metrics."""

import csv
import json

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lpsched.batch.allocation import allocate
from lpsched.batch.batsim import JOBS_COLUMNS
from lpsched.batch.simulator import BatchSchedule, batch_metrics, simulate_batch, validate_batch
from lpsched.batch.topology import fat_tree, kary_ntree, parse_topology
from lpsched.cli import main
from lpsched.core.swf import Workload
from lpsched.errors import InvalidInstanceError, InvalidScheduleError
from tests.shared_data import needs_shared, shared_file


def busy(topo, ids):
    free = topo.free_mask()
    free[list(ids)] = False
    return free


# -- the topologies --------------------------------------------------------------------------

@pytest.mark.parametrize("topo", [kary_ntree(2, 3), kary_ntree(3, 2), kary_ntree(4, 3),
                                  fat_tree(2, (2, 2)), fat_tree(4, (3, 2))])
def test_block_arithmetic_matches_the_networkx_graph(topo):
    g = topo.graph()
    procs = range(topo.leaves)
    dist = dict(nx.all_pairs_shortest_path_length(g))
    for p in procs:
        for q in procs:
            assert dist[("p", p)][("p", q)] == topo.hops(p, q)
    if topo.kind == "kary-ntree":
        k, n = topo.arity
        assert sum(1 for v in g if v[0] == "s") == n * k ** (n - 1)
        # a stage-i switch reaches downwards exactly one level-i block of k^i nodes
        for (_, stage, w) in (v for v in g if v[0] == "s"):
            below = {v for v in nx.descendants(g.subgraph(
                [u for u in g if u[0] == "p" or u[1] <= stage]), ("s", stage, w))
                if v[0] == "p"}
            block = {p for (_, p) in below}
            assert len(block) == k**stage
            assert len({p // k**stage for p in block}) == 1


def test_levels_and_parsing():
    t = kary_ntree(4, 3)  # spec seed 001 §4.4 A1
    assert [t.min_level(s) for s in (1, 4, 5, 16, 17, 64)] == [1, 1, 2, 2, 3, 3]
    assert t.level_of(np.array([0, 3])) == 1 and t.level_of(np.array([3, 4])) == 2
    assert t.level_of(np.array([15, 16])) == 3
    f = parse_topology("fat-tree:2,2,2")  # seed 000 Fig. 5.1: 8 processors, 4 clusters of 2
    assert f.block_sizes == (2, 4, 8) and f.cluster_size == 2
    assert f.level_of(np.array([0, 4])) == 3  # Cl1 and Cl3 go through the root
    assert parse_topology("kary-ntree:4,4", installed=240).installed == 240
    with pytest.raises(InvalidInstanceError, match="fewer processors"):
        parse_topology("kary-ntree:2,2", installed=5)
    with pytest.raises(InvalidInstanceError, match="expected"):
        parse_topology("torus:4")
    with pytest.raises(InvalidInstanceError, match="whole numbers"):
        parse_topology("fat-tree:a,b")
    with pytest.raises(InvalidInstanceError, match="k >= 2"):
        kary_ntree(1, 3)


# -- seed 001 §4.4 worked cases (4-ary 3-tree, 64 nodes) --------------------------------------

T43 = kary_ntree(4, 3)


def test_contiguous_worked_cases_a2_to_a5():
    free = T43.free_mask()
    a2 = allocate("contiguous", free, 4, topology=T43)
    assert a2.tolist() == [0, 1, 2, 3]
    free[a2] = False
    a3 = allocate("contiguous", free, 6, topology=T43)
    assert a3.tolist() == [4, 5, 6, 7, 8, 9]
    free[a3] = False
    assert allocate("contiguous", free, 4, topology=T43).tolist() == [12, 13, 14, 15]
    one_per_leaf = busy(T43, range(0, 64, 4))
    assert allocate("contiguous", one_per_leaf, 4, topology=T43) is None  # A5


def test_quasi_contiguous_worked_cases_a6_to_a12():
    one_per_leaf = busy(T43, range(0, 64, 4))
    assert allocate("quasi-contiguous", one_per_leaf, 4, topology=T43, qct=10).tolist() == \
        [1, 2, 3, 5]  # A6
    assert allocate("quasi-contiguous", one_per_leaf, 4, topology=T43, qct=0) is None  # A7
    five_each = busy(T43, [b * 16 + i for b in range(4) for i in range(5, 16)])
    assert allocate("contiguous", five_each, 6, topology=T43) is None  # A8
    assert allocate("quasi-contiguous", five_each, 6, topology=T43, qct=10).tolist() == \
        [0, 1, 2, 3, 4, 16]  # A9
    four_each = busy(T43, [b * 16 + i for b in range(4) for i in range(4, 16)])
    assert allocate("quasi-contiguous", four_each, 6, topology=T43, qct=10) is None  # A10
    assert allocate("basic", one_per_leaf, 3, topology=T43).tolist() == [1, 2, 3]  # A11
    assert allocate("quasi-contiguous", T43.free_mask(), 40, topology=T43).tolist() == \
        list(range(40))  # A12


def test_fragmentation_case_e3():
    t = kary_ntree(4, 2)
    free = busy(t, [0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14])
    assert allocate("basic", free, 4).tolist() == [3, 7, 11, 15]
    assert allocate("contiguous", free, 4, topology=t) is None
    assert allocate("quasi-contiguous", free, 4, topology=t, qct=25) is None
    assert allocate("quasi-contiguous", free, 4, topology=t, qct=75).tolist() == \
        [3, 7, 11, 15]


def workload(submit, run, size, est=None, m=16):
    n = len(submit)
    return Workload(job=np.arange(1, n + 1), submit=np.array(submit, float),
                    run=np.array(run, float), size=np.array(size),
                    estimate=np.array(est if est is not None else run, float), processors=m)


@pytest.mark.parametrize(("alloc", "qct", "j5_start"), [
    ("basic", 20, 1.0), ("contiguous", 20, 100.0), ("quasi-contiguous", 25, 100.0),
    ("quasi-contiguous", 75, 1.0)])
def test_e3_in_the_simulator(alloc, qct, j5_start):
    """J1..J4 of size 3 at t=0 (contiguous puts one per leaf), J5 of size 4 at t=1."""
    t = kary_ntree(4, 2)
    w = workload([0, 0, 0, 0, 1], [100] * 5, [3, 3, 3, 3, 4])
    if alloc == "basic":
        # basic packs J1..J4 on 0–11, so J5 fits on 12–15 at once
        sched, _ = simulate_batch(w, "easy", alloc=alloc, topology=t)
    else:
        sched, _ = simulate_batch(w, "easy", alloc=alloc, topology=t, qct=qct)
        assert [p.tolist() for p in sched.procs[:4]] == [[0, 1, 2], [4, 5, 6], [8, 9, 10],
                                                         [12, 13, 14]]
    assert sched.start[4] == j5_start
    validate_batch(w, sched, 16, topology=t, forced=alloc, qct=qct)


def test_easy_e2_contiguous_backfills_the_small_job():
    t = kary_ntree(4, 2)
    w = workload([0, 1, 2], [10, 5, 20], [12, 8, 4])
    sched, _ = simulate_batch(w, "easy", alloc="contiguous", topology=t)
    assert sched.start.tolist() == [0, 10, 2]
    assert sched.procs[2].tolist() == [12, 13, 14, 15]


# -- platform level (seed 000 ch. 5) ------------------------------------------------------------

def test_beplat_and_plat_on_the_fig_5_1_tree():
    t = fat_tree(2, (2, 2))  # 8 processors, clusters {0,1} {2,3} {4,5} {6,7}
    free = busy(t, [0, 3, 5, 6])  # one free processor per cluster
    # 2 processors: no cluster has 2 free; level 2 block {0..3} has 1, 2 -> beplat takes them
    assert allocate("beplat", free, 2, topology=t).tolist() == [1, 2]
    assert allocate("plat", free, 2, topology=t) is None  # L_min = 1: one cluster only
    assert allocate("plat", free, 3, topology=t) is None  # L_min = 2: no half has 3 free
    assert allocate("beplat", free, 3, topology=t).tolist() == [1, 2, 4]
    emptier = busy(t, [0, 1, 3])
    # Algorithm 5: inside the chosen node, clusters by decreasing free count
    assert allocate("beplat", emptier, 3, topology=t).tolist() == [4, 5, 6]
    with pytest.raises(InvalidInstanceError, match="tree topology"):
        allocate("beplat", free, 2)


@given(st.integers(0, 2**31 - 1), st.sampled_from(["fcfs", "easy", "conservative"]),
       st.sampled_from(["beplat", "plat", "contiguous", "quasi-contiguous", "beloc"]))
def test_tree_allocators_in_the_simulator(seed, policy, alloc):
    rng = np.random.default_rng(seed)
    n = 40
    run = np.round(rng.uniform(1, 100, n), 1)
    w = Workload(job=np.arange(1, n + 1), submit=np.sort(np.round(rng.uniform(0, 300, n))),
                 run=run, size=rng.integers(1, 31, n), estimate=np.round(run * 4, 1),
                 processors=30)
    t = fat_tree(4, (2, 4))  # 32 leaves, 30 installed: the tail is never used
    sched, _ = simulate_batch(w, policy, alloc=alloc, topology=t, penalty=("linear", 0.5))
    validate_batch(w, sched, 30, topology=t, forced=alloc)
    assert max(int(p.max()) for p in sched.procs) < 30
    m = batch_metrics(w, sched, 30, topology=t)
    if alloc in ("plat", "contiguous"):
        assert m["platform_level_factor"] == 1.0
        assert m["success_rate"] == 1.0  # R = 0: no penalty, estimates are 4x the run
    # the linear penalty: each job's run is T (1 + R F), capped at its estimate
    for j, ids in enumerate(sched.procs):
        r = t.level_of(ids) - t.min_level(int(w.size[j]))
        expect = min(w.run[j] * (1 + 0.5 * r), w.estimate[j])
        assert sched.end[j] - sched.start[j] == pytest.approx(expect)


def test_quadratic_penalty_kills_at_the_estimate():
    t = fat_tree(2, (2,))  # 4 processors in 2 clusters
    # J1 holds 0; J2 needs 2 processors but only 1, 2, 3 are free -> basic takes 1, 2 (R = 1)
    w = workload([0, 1, 1], [50, 10, 10], [1, 2, 1], est=[50, 15, 10], m=4)
    sched, _ = simulate_batch(w, "fcfs", alloc="basic", topology=t,
                              penalty=("quadratic", 2.0))
    assert sched.procs[1].tolist() == [1, 2]
    assert sched.end[1] - sched.start[1] == pytest.approx(15.0)  # 10·2^1 = 20 > 15: killed
    assert sched.failed.tolist() == [False, True, False]
    m = batch_metrics(w, sched, 4, topology=t)
    assert m["success_rate"] == pytest.approx(2 / 3) and m["failed_jobs"] == 1
    assert m["platform_level_factor"] == pytest.approx((1 + 2 + 1) / 3)
    assert m["locality_factor"] == pytest.approx((1 + 2 + 1) / 3)
    # the speed-up of seed 001: 10 % off every parallel job under contiguous allocation
    s, _ = simulate_batch(w, "fcfs", alloc="contiguous", topology=t, speedup=10)
    assert (s.end - s.start).tolist() == pytest.approx([50, 9, 10])


def test_forced_validation_catches_a_spread_job():
    t = kary_ntree(2, 2)
    w = workload([0], [5], [2], m=4)
    spread = BatchSchedule(np.zeros(1), np.full(1, 5.0), [np.array([1, 2])])
    validate_batch(w, spread, 4, topology=t)  # allowed unless forced
    with pytest.raises(InvalidScheduleError, match="minimal level"):
        validate_batch(w, spread, 4, topology=t, forced="plat")
    with pytest.raises(InvalidScheduleError, match="outside its block"):
        validate_batch(w, spread, 4, topology=t, forced="quasi-contiguous", qct=0)
    with pytest.raises(InvalidScheduleError, match="spans too many clusters"):
        validate_batch(w, spread, 4, topology=t, forced="loc")  # clusters from the tree
    gap = BatchSchedule(np.zeros(1), np.full(1, 5.0), [np.array([0, 2])])
    validate_batch(w, gap, 4, forced="becont")
    with pytest.raises(InvalidScheduleError, match="not contiguous"):
        validate_batch(w, gap, 4, forced="cont")


def test_bad_topology_options_are_clear():
    w = workload([0], [5], [2], m=4)
    with pytest.raises(InvalidInstanceError, match="tree topology"):
        simulate_batch(w, "easy", alloc="plat")
    with pytest.raises(InvalidInstanceError, match="penalty"):
        simulate_batch(w, "easy", topology=kary_ntree(2, 2), penalty=("cubic", 2))
    with pytest.raises(InvalidInstanceError, match="qct"):
        simulate_batch(w, "easy", topology=kary_ntree(2, 2), qct=120)


@needs_shared("UniLu-Gaia-2014-1.swf")
def test_cli_batch_with_a_fat_tree(capsys, tmp_path):
    out = tmp_path / "s.csv"
    code = main(["batch", str(shared_file("UniLu-Gaia-2014-1.swf")), "--limit", "400", "--policy",
                 "conservative", "--alloc", "beplat", "--topology", "fat-tree:16,4,4,8",
                 "--penalty", "quadratic:2", "--reassign", "--out", str(out), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["valid"] and data["jobs"] == 400
    assert data["compression"] == "reassign"
    assert data["topology"]["block_sizes"] == [16, 64, 256, 2048]
    assert 0 < data["success_rate"] <= 1 and data["platform_level_factor"] >= 1
    assert out.read_text().splitlines()[0] == ",".join(JOBS_COLUMNS)
    rows = list(csv.DictReader(out.open()))
    killed = sum(r["final_state"] == "COMPLETED_WALLTIME_REACHED" for r in rows)
    assert killed == data["failed_jobs"] > 0  # penalised jobs past their estimate are killed
    code = main(["batch", str(shared_file("UniLu-Gaia-2014-1.swf")), "--limit", "400",
                 "--alloc", "quasi-contiguous", "--topology", "kary-ntree:4,6", "--qct", "30",
                 "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["valid"]
    code = main(["batch", str(shared_file("UniLu-Gaia-2014-1.swf")), "--limit", "200", "--offline",
                 "--policy", "conservative", "--alloc", "cont-ff", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["contiguous_jobs"] == 1.0 and data["mean_wait"] > 0
    # forced local takes its clusters from the tree (no --cluster-size needed)
    code = main(["batch", str(shared_file("UniLu-Gaia-2014-1.swf")), "--limit", "300", "--alloc",
                 "loc", "--topology", "fat-tree:16,4,4,8", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["local_jobs"] == 1.0


# -- reduced reproductions ---------------------------------------------------------------------

@needs_shared("hpc2n-excerpt.swf")
def test_contiguity_reproduction_reduced(tmp_path):
    """Seed 000 ch. 4 facts on 6 offline instances of 300 HPC2N jobs (240 processors,
    clusters of 16): becont within 2 % of basic's makespan on most instances, forced
    contiguous 100 % contiguous, forced local 100 % local; the store resumes."""
    from lpsched.batch import reproduce as exp
    from lpsched.core import ResultStore, run_cells

    cells = exp.contiguity_cells(str(shared_file("hpc2n-excerpt.swf")), 6, processors=240)
    store = ResultStore(tmp_path / "c.sqlite")
    assert run_cells("contiguity", cells, exp.contiguity_cell, store, progress=False) == 36
    assert run_cells("contiguity", cells, exp.contiguity_cell, store, progress=False) == 0
    summary = exp.contiguity_summary(store.rows_of("contiguity", cells))
    assert summary["becont-ff"]["within_2pct"] >= 0.8
    assert summary["cont-ff"]["contiguous_jobs"] == 1.0
    assert summary["loc"]["local_jobs"] == 1.0
    assert summary["beloc"]["local_jobs"] > summary["basic"]["local_jobs"]
    assert summary["basic"]["mean_deviation"] == 0.0


@needs_shared("hpc2n-excerpt.swf")
def test_platform_level_reproduction_reduced(capsys, tmp_path):
    code = main(["reproduce", "platform-level", "--trace", str(shared_file("hpc2n-excerpt.swf")),
                 "--instances", "2", "--out", str(tmp_path), "--quiet"])
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert code == 0 and set(summary) == {"basic", "becont", "beloc", "beplat", "cont",
                                          "loc", "plat"}
    assert summary["basic"]["sum_flow"] == pytest.approx(1.0)  # normalised by basic
    assert summary["plat"]["platform_level_factor"] <= summary["basic"][
        "platform_level_factor"]
    assert (tmp_path / "platform-level.csv").exists()


@needs_shared("hpc2n-excerpt.swf")
def test_topology_aware_reproduction_reduced(capsys, tmp_path):
    code = main(["reproduce", "topology-aware", "--trace", str(shared_file("hpc2n-excerpt.swf")),
                 "--limit", "600", "--speedups", "0,50", "--out", str(tmp_path), "--quiet"])
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert code == 0 and len(summary) == 10  # 2 schedulers x (contiguous + 4 quasi)
    assert all(r["rel_wait_at_0"] is not None for r in summary)


def test_chapter_4_first_fit_contiguous_and_windows():
    from lpsched.core.swf import random_window

    free = np.array([0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1], bool)
    # Alg. 3: the first run long enough (ids 4-6), not the largest (8-11) as in ch. 5
    assert allocate("becont-ff", free, 3).tolist() == [4, 5, 6]
    assert allocate("becont", free, 3).tolist() == [8, 9, 10]
    assert allocate("cont-ff", free, 5) is None
    assert allocate("becont-ff", free, 5).tolist() == [1, 2, 4, 5, 6]  # basic fallback
    w = workload([0, 10, 20, 30, 40], [1] * 5, [1] * 5)
    win = random_window(w, 15.0, seed=3)
    assert 1 <= win.jobs <= 2 and win.submit[0] == 0.0
    assert (np.diff(w.submit[np.isin(w.job, win.job)]) <= 15).all()
    with pytest.raises(InvalidInstanceError, match="longer than 0"):
        random_window(w, 0.0, seed=0)
    sched, _ = simulate_batch(w, "conservative", alloc="cont-ff")
    validate_batch(w, sched, 16, forced="cont-ff")


def test_tree_sizes_are_bounded():
    """A tree past MAX_LEAVES is refused before any array is made, however large
    its parameters (no k^n of a billion digits either)."""
    import time

    from lpsched.batch.topology import MAX_LEAVES, fat_tree, kary_ntree, parse_topology

    assert kary_ntree(2, 27).leaves == MAX_LEAVES
    t0 = time.perf_counter()
    for make in (lambda: kary_ntree(2, 28), lambda: kary_ntree(10**9, 10**9),
                 lambda: fat_tree(16, [4] * 12), lambda: fat_tree(MAX_LEAVES + 1, []),
                 lambda: parse_topology("kary-ntree:4,1000000000")):
        with pytest.raises(InvalidInstanceError, match="leaves"):
            make()
    assert time.perf_counter() - t0 < 1.0
