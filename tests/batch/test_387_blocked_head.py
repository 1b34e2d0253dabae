"""Seed 001 §3's EASY rule [001 L51–L53] as decision 387 reads it: when the head's
reservation time comes and it cannot be placed, the advanced (backfilled) jobs are killed,
the latest started first, until it can; they rerun from the start."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lpsched.batch.reproduce import kary_for, topology_cell, topology_cells
from lpsched.batch.simulator import BLOCKED_HEAD, simulate_batch, validate_batch
from lpsched.cli.batch import BLOCKED_HEAD as CLI_BLOCKED_HEAD
from lpsched.core.swf import Workload
from lpsched.errors import InvalidInstanceError
from tests.shared_data import shared_file

LPSCHED = str(Path(sys.executable).with_name("lpsched"))


def _work(submit, run, size, est=None, m=4) -> Workload:
    n = len(submit)
    return Workload(job=np.arange(1, n + 1), submit=np.array(submit, float),
                    run=np.array(run, float), size=np.array(size),
                    estimate=np.array(est if est is not None else run, float), processors=m)


# Four processors on a line, contiguous allocation. Jobs 0-2 take one processor each at
# 0 (ids 0, 1, 2; job 1 runs 100 s). Job 3 (two processors) waits: by the estimates three
# are free at 10, so its reservation is 10 and one processor is spare then; job 4 (one
# processor, 50 s) is backfilled on id 3. At 10 ids 0 and 2 are free: no two adjacent.
FRAGMENTED = _work([0, 0, 0, 1, 2], [10, 100, 10, 10, 50], [1, 1, 1, 2, 1])


@pytest.mark.parametrize("alloc", ["cont", "cont-ff"])
def test_the_head_waits_under_wait_and_starts_on_time_under_kill(alloc: str) -> None:
    sched, stats = simulate_batch(FRAGMENTED, "easy", alloc=alloc)
    assert sched.start.tolist() == [0, 0, 0, 52, 2]  # the head waits for job 4's end
    assert "reservation_kills" not in stats
    sched, stats = simulate_batch(FRAGMENTED, "easy", alloc=alloc,
                                  blocked_head="kill-advanced")
    # job 4 is killed at 10 after 8 s, job 3 starts at its reservation on ids 2-3, and job
    # 4 starts again at once, from the start, on id 0
    assert sched.start.tolist() == [0, 0, 0, 10, 10]
    assert sched.end.tolist() == [10, 100, 10, 20, 60]
    assert sched.procs[3].tolist() == [2, 3] and sched.procs[4].tolist() == [0]
    assert stats["reservation_kills"] == 1 and stats["killed_work"] == 8.0
    validate_batch(FRAGMENTED, sched, 4, forced=alloc)


def test_nothing_is_killed_when_all_advanced_jobs_would_not_suffice() -> None:
    # the same, but job 1 holds ids 1 and 2 (a 2-wide job) and the head needs all four:
    # killing job 4 would free id 3 only, so job 4 runs on and the head waits
    work = _work([0, 0, 1, 2], [10, 100, 10, 50], [1, 2, 4, 1])
    sched, stats = simulate_batch(work, "easy", alloc="cont", blocked_head="kill-advanced")
    assert stats["reservation_kills"] == 0
    assert sched.start.tolist() == simulate_batch(work, "easy", alloc="cont")[0].start.tolist()


def test_the_latest_started_advanced_job_is_killed_first() -> None:
    # six processors, basic: job 0 (ids 0-1) ends at 10, job 1 (ids 2-3) at 100; the head
    # (job 2, three processors) is reserved at 10; jobs 3 and 4 (one processor each,
    # estimates 5 and 6) are backfilled at 2 and 3 as ending by 10, but overrun to 52 and
    # 53. At 10 two processors are free: one kill suffices, and it is job 4 (id 5), the
    # latest started; the head runs on ids 0, 1 and 5. Job 4, back in the queue, is now the
    # head: job 3 was submitted before it, so it was not advanced past job 4 and is not
    # killed for it (decision 388 (b)); job 4 reruns when the head ends, on id 0
    work = _work([0, 0, 1, 2, 3], [10, 100, 10, 50, 50], [2, 2, 3, 1, 1],
                 est=[10, 100, 10, 5, 6], m=6)
    sched, stats = simulate_batch(work, "easy", blocked_head="kill-advanced")
    assert stats["reservation_kills"] == 1 and stats["killed_work"] == 7.0
    assert sched.start.tolist() == [0, 0, 10, 2, 20]
    assert sched.procs[2].tolist() == [0, 1, 5] and sched.procs[4].tolist() == [0]
    # the rule in ``wait``: the head waits for job 3's end
    assert simulate_batch(work, "easy")[0].start.tolist() == [0, 0, 52, 2, 3]


def test_a_killed_job_goes_back_at_its_submission_position() -> None:
    # FRAGMENTED plus job 5 (one processor, submitted at 5, when none is free): at 10 job 4
    # (submitted at 2) is killed and comes back ahead of job 5, so it takes the one free
    # processor (id 0) and job 5 waits for the next end
    work = _work([0, 0, 0, 1, 2, 5], [10, 100, 10, 10, 50, 10], [1, 1, 1, 2, 1, 1])
    sched, stats = simulate_batch(work, "easy", alloc="cont", blocked_head="kill-advanced")
    assert stats["reservation_kills"] == 1
    validate_batch(work, sched, 4, forced="cont")
    assert sched.start.tolist() == [0, 0, 0, 10, 10, 20]
    assert sched.procs[4].tolist() == [0]


def test_basic_with_exact_estimates_never_kills_and_matches_the_line_kernel() -> None:
    rng = np.random.default_rng(387)
    for _ in range(20):
        n = 200
        work = _work(np.sort(rng.uniform(0, 2000, n)), rng.uniform(1, 300, n),
                     rng.integers(1, 17, n), m=32)
        base = simulate_batch(work, "easy")[0]
        sched, stats = simulate_batch(work, "easy", blocked_head="kill-advanced")
        assert stats["reservation_kills"] == 0
        assert np.array_equal(sched.start, base.start)


@pytest.mark.parametrize("alloc", ["basic", "contiguous", "quasi-contiguous"])
def test_random_workloads_on_a_tree_validate_and_end(alloc: str) -> None:
    rng = np.random.default_rng(1)
    topo = kary_for(64, 4)
    for _ in range(15):
        n = 300
        run = rng.uniform(1, 400, n)
        est = run * rng.choice([0.5, 1.0, 2.0, 5.0], n)  # some jobs overrun their estimate
        work = _work(np.sort(rng.uniform(0, 3000, n)), run, rng.integers(1, 40, n), est,
                     m=64)
        sched, stats = simulate_batch(work, "easy", alloc=alloc, topology=topo,
                                      blocked_head="kill-advanced")
        validate_batch(work, sched, 64, topology=topo, forced=alloc)
        assert np.isfinite(sched.start).all()
        assert stats["reservation_kills"] >= 0 and stats["killed_work"] >= 0


def test_options_are_checked() -> None:
    assert BLOCKED_HEAD == CLI_BLOCKED_HEAD
    with pytest.raises(InvalidInstanceError, match="EASY"):
        simulate_batch(FRAGMENTED, "fcfs", blocked_head="kill-advanced")
    with pytest.raises(InvalidInstanceError, match="must be one of"):
        simulate_batch(FRAGMENTED, "easy", blocked_head="kill")
    with pytest.raises(InvalidInstanceError, match="must be one of"):
        topology_cells(str(shared_file("hpc2n-excerpt.swf")), [0.0], blocked_head="kill")


def test_the_cells_keep_fcfs_keys_and_mark_easy(tmp_path: Path) -> None:
    swf = tmp_path / "t.swf"
    swf.write_text("; MaxProcs: 16\n" + "".join(
        f"{i} {i * 10} 0 {50 + i} {1 + i % 8} -1 -1 {1 + i % 8} {60 + i} -1 1 -1 -1 -1 -1 -1"
        " -1 -1\n" for i in range(1, 40)))
    cells = topology_cells(str(swf), [0.0, 10.0])
    assert {len(c) for c in cells if c[3] == "fcfs"} == {7}
    assert {tuple(c[7:]) for c in cells if c[3] == "easy"} == {(None, "kill-advanced")}
    assert {len(c) for c in topology_cells(str(swf), [0.0], blocked_head="wait")} == {7}
    row = topology_cell(next(c for c in cells if c[3] == "easy" and c[4] == "contiguous"))[0]
    assert row["kills"] >= 0 and row["jobs"] == 39


def test_cli_batch_reports_the_kills(tmp_path: Path) -> None:
    swf = tmp_path / "frag.swf"
    lines = ["; MaxProcs: 4"]
    for j, (sub, run, size) in enumerate(zip([0, 0, 0, 1, 2], [10, 100, 10, 10, 50],
                                             [1, 1, 1, 2, 1], strict=True), start=1):
        lines.append(f"{j} {sub} 0 {run} {size} -1 -1 {size} {run} -1 1 -1 -1 -1 -1 -1 -1 -1")
    swf.write_text("\n".join(lines) + "\n")
    done = subprocess.run([LPSCHED, "batch", str(swf), "--alloc", "cont", "--blocked-head",
                           "kill-advanced"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "1 kills of advanced jobs (1 jobs) for the head's reservation (8 " \
        "processor-seconds lost" in done.stdout
    done = subprocess.run([LPSCHED, "batch", str(swf), "--alloc", "cont", "--json",
                           "--blocked-head", "kill-advanced"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and '"reservation_kills": 1' in done.stdout
    done = subprocess.run([LPSCHED, "batch", str(swf), "--policy", "conservative",
                           "--blocked-head", "kill-advanced"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert "--blocked-head kill-advanced: killing advanced jobs is EASY" in done.stderr


def test_the_seed_table_names_the_wait_reading() -> None:
    from lpsched.batch.fidelity import topology_table

    rows = [{"policy": p, "alloc": "contiguous", "break_even_speedup": None,
             "rel_wait_at_0": 2.0} for p in ("fcfs", "easy")]
    table = topology_table({"sdsc_blue": rows}, {}, blocked_head="wait")
    easy = next(r for r in table.rows if r.figure == "sdsc_blue: break-even speed-up of "
                "contiguous, easy")
    assert easy.verdict == "differs: explained by decision 385"
    assert "--blocked-head wait" in easy.note
    fcfs = next(r for r in table.rows if r.figure == "sdsc_blue: break-even speed-up of "
                "contiguous, fcfs")
    assert fcfs.verdict == "differs" and "wait" not in fcfs.note
    seed = topology_table({"sdsc_blue": rows}, {})
    assert all("wait" not in r.note for r in seed.rows)
    assert next(r for r in seed.rows if r.figure == easy.figure).verdict == "differs"


def test_cli_reproduce_topology_aware_both_rules(tmp_path: Path) -> None:
    swf = tmp_path / "t.swf"
    rng = np.random.default_rng(5)
    lines = ["; MaxProcs: 64"]
    t = 0.0
    for j in range(1, 301):
        t += float(rng.exponential(30))
        size, run = int(rng.integers(1, 33)), int(rng.integers(10, 900))
        est = run * int(rng.choice([1, 2, 3]))
        lines.append(f"{j} {t:.0f} 0 {run} {size} -1 -1 {size} {est} -1 1 -1 -1 -1 -1 -1 -1"
                     " -1")
    swf.write_text("\n".join(lines) + "\n")
    for rule in ("kill-advanced", "wait"):
        out = tmp_path / rule
        done = subprocess.run([LPSCHED, "reproduce", "topology-aware", "--trace", str(swf),
                               "--speedups", "0,20", "--out", str(out), "--quiet",
                               "--blocked-head", rule],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert '"experiment": "topology-aware"' in done.stdout
        assert "seed value" in done.stderr or "verdict" in done.stderr
        header = (out / "topology-aware.csv").read_text().splitlines()[0].split(",")
        assert "kills" in header
        assert (out / "topology-aware_vs_seed.csv").exists()
    kills = [(out.parent / rule / "topology-aware.csv").read_text() for rule in
             ("kill-advanced", "wait")]
    assert kills[0] != kills[1]  # the rules differ on this workload (jobs overrun)


def test_above_min_level_is_the_job_by_job_reading() -> None:
    from lpsched.batch.validation import above_min_level

    rng = np.random.default_rng(3)
    topo = kary_for(64, 4)
    n = 300
    work = _work(np.sort(rng.uniform(0, 3000, n)), rng.uniform(1, 400, n),
                 rng.integers(1, 40, n), m=64)
    for alloc, qct in (("basic", 20), ("quasi-contiguous", 40)):
        sched, _ = simulate_batch(work, "easy", alloc=alloc, topology=topo, qct=qct)
        want = [topo.level_of(p) > topo.min_level(p.size) for p in sched.procs]
        got = above_min_level(sched, topo)
        assert got.tolist() == want
        assert got.any()  # the rules do spread some jobs here: the test reads both cases
