"""Seed 001 §3's EASY kill rule [001 L51–L53], ``simulate_batch(...,
blocked_head="kill-advanced")``, as decisions 387 and 388 read it: when the head's
reservation time comes and it cannot be placed, the advanced (backfilled) jobs are killed,
the latest started first, until it can; they rerun from the start.

Hand-made cases of each reading and the CLI; then property and differential tests. The
kill rounds are watched by wrapping ``_BatchSim.kill_for_head`` and ``_BatchSim.kill_job``
(restored after each run), so the killed attempts, which the schedule does not keep, can
be checked too: no processor runs two attempts at once, the killed work is what the
victims had run, the head started by a round is never killed later. ``wait`` (the
default) gives the schedules of the package without the kill rule. The last three tests
hold decision 388's amendments: the head runs when its reservation time is reached, no
job is killed whose processors the head does not use, none for a head submitted after
it.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import subprocess
import sys
import tarfile
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lpsched.batch import simulator as sim_mod
from lpsched.batch.reproduce import kary_for, topology_cell, topology_cells
from lpsched.batch.simulator import BLOCKED_HEAD, simulate_batch, validate_batch
from lpsched.cli.batch import BLOCKED_HEAD as CLI_BLOCKED_HEAD
from lpsched.core.swf import Workload
from lpsched.errors import InvalidInstanceError
from tests.shared_data import shared_file

LPSCHED = str(Path(sys.executable).with_name("lpsched"))
REPO = Path(__file__).resolve().parents[2]


def _work(submit: list[float], run: list[float], size: list[int],
          est: list[float] | None = None, m: int = 4) -> Workload:
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
    """Under ``--blocked-head wait`` the measured rows say EASY's head waits (decision 265,
    not the seed's kill [001 L51–L53]) and the rule's row differs, citing decision 387;
    under the seed's kill, no row says so."""
    from lpsched.batch.fidelity import vs_seed
    from tests.batch.test_fidelity_rows import topo_cells, topo_rows

    rows = topo_rows("sdsc_blue", {})
    kill = topo_cells("SDSC-BLUE-2000-4.2-cln.swf.gz", 0)
    wait = [[*c[:8], "wait"] if c[3] == "easy" else c for c in kill]
    table = vs_seed("topology-aware", rows, wait)
    rule = next(r for r in table.rows if r.ref == "001-S-kill")
    assert rule.kind == "differs: cause measured" and rule.decision == 387
    named = [r for r in table.rows if "--blocked-head wait" in r.note]
    assert named and all("decision 265" in r.note for r in named)
    seed = vs_seed("topology-aware", rows, kill)
    assert next(r for r in seed.rows if r.ref == "001-S-kill").kind == "holds by construction"
    assert not any("--blocked-head wait" in r.note for r in seed.rows)


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


# ------------------------------------------------------------ properties, differentials
@dataclass
class Watch:
    """What the wrapped methods saw: one dict per kill round that started its head
    (``now``, ``head``, ``victims``: the kill records of the round) and one per kill
    (``job``, ``start``, ``end`` scheduled, ``now``, ``size``, ``ids``)."""

    rounds: list[dict[str, Any]] = field(default_factory=list)
    kills: list[dict[str, Any]] = field(default_factory=list)
    current: dict[str, Any] | None = None


def _ids(sim: Any, j: int) -> np.ndarray:
    """Job ``j``'s processor ids now (flat runs on the line, ids on the mask)."""
    p = sim.procs[j]
    if sim.line is not None:
        return np.concatenate([np.arange(p[i], p[i + 1]) for i in range(0, len(p), 2)]
                              + [np.zeros(0, np.int64)]).astype(np.int64)
    return np.asarray(p, np.int64)


@contextlib.contextmanager
def watching() -> Iterator[Watch]:
    """Wrap the kill methods of ``_BatchSim`` for the duration (class attributes; the
    object has ``__slots__``)."""
    cls = sim_mod._BatchSim
    kfh, kj = cls.kill_for_head, cls.kill_job
    watch = Watch()

    def kill_for_head(self: Any) -> bool:
        head = self.queue[0]
        watch.current = {"now": self.now, "head": head, "victims": [],
                         "shadow": self.shadow(self.sizes_l[head], self.now)[0]}
        try:
            ok = kfh(self)
        finally:
            cur, watch.current = watch.current, None
        if ok:
            cur["after"] = len(watch.kills)  # the kills that come after this round
            cur["head_ids"] = _ids(self, head)
            cur["head_start"] = self.start[head]
            watch.rounds.append(cur)
        else:
            assert not cur["victims"], "a round that started no head killed jobs"
        return ok

    def kill_job(self: Any, v: int) -> None:
        rec = {"job": v, "start": self.start[v], "end": self.end[v], "now": self.now,
               "size": self.sizes_l[v], "ids": _ids(self, v)}
        watch.kills.append(rec)
        if watch.current is not None:
            watch.current["victims"].append(rec)
        kj(self, v)

    cls.kill_for_head, cls.kill_job = kill_for_head, kill_job  # type: ignore[method-assign]
    try:
        yield watch
    finally:
        cls.kill_for_head, cls.kill_job = kfh, kj  # type: ignore[method-assign]


def _check_attempts(work: Workload, sched: Any, watch: Watch, m: int) -> None:
    """Every attempt (the schedule's runs and the killed ones) holds its processors alone:
    per processor the attempts' intervals do not overlap."""
    per: dict[int, list[tuple[float, float, str]]] = {}
    for j in range(work.jobs):
        for p in np.asarray(sched.procs[j]).tolist():
            per.setdefault(int(p), []).append((sched.start[j], sched.end[j], f"job {j}"))
    for k in watch.kills:
        for p in k["ids"].tolist():
            per.setdefault(int(p), []).append((k["start"], k["now"], f"killed {k['job']}"))
    for p, spans in per.items():
        assert 0 <= p < m
        spans.sort()
        for (s0, e0, a), (s1, _e1, b) in itertools.pairwise(spans):
            assert s1 >= e0 - 1e-9, f"processor {p}: {a} [{s0}, {e0}) and {b} from {s1}"


def _check_rounds(work: Workload, sched: Any, stats: dict[str, Any], watch: Watch) -> None:
    """The invariants of decision 387 (a)-(c) on one run."""
    assert stats["reservation_kills"] == len(watch.kills)
    assert sum(len(r["victims"]) for r in watch.rounds) == len(watch.kills)
    lost = sum((k["now"] - k["start"]) * k["size"] for k in watch.kills)
    assert stats["killed_work"] == pytest.approx(lost, rel=1e-12, abs=1e-9)
    killed_later: dict[int, list[float]] = {}
    for k in watch.kills:
        assert k["start"] <= k["now"] < k["end"]  # it was running, and had not ended
        killed_later.setdefault(k["job"], []).append(k["now"])
    for r in watch.rounds:
        now, head = r["now"], r["head"]
        assert r["shadow"] <= now  # (a): the head's reservation time had come
        assert r["head_start"] == now  # the round started its head at once
        # a head started by a round is never killed afterwards (it may have been before)
        assert all(k["job"] != head for k in watch.kills[r["after"]:])
        assert sched.start[head] == now  # ... and that start is the schedule's
        starts = [v["start"] for v in r["victims"]]
        assert starts == sorted(starts, reverse=True)  # (b): the latest started first
    for j, times in killed_later.items():  # (c): a killed job reruns later, from the start
        assert sched.start[j] >= max(times)


RULES = [("basic", False, None), ("basic", True, None), ("cont", False, None),
         ("cont-ff", False, None), ("loc", False, None), ("contiguous", True, None),
         ("quasi-contiguous", True, 10), ("quasi-contiguous", True, 40), ("plat", True, None),
         ("basic", True, ("linear", 0.5))]


@st.composite
def workloads(draw: Any) -> tuple[Workload, int]:
    m = draw(st.sampled_from([4, 8, 16]))
    n = draw(st.integers(1, 30))
    submit = sorted(draw(st.lists(st.integers(0, 15), min_size=n, max_size=n)))
    run = draw(st.lists(st.integers(0, 40), min_size=n, max_size=n))
    # estimates from none (0) to twice the run time: many jobs overrun theirs
    factor = draw(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0]), min_size=n,
                           max_size=n))
    size = draw(st.lists(st.integers(1, m), min_size=n, max_size=n))
    est = [float(round(r * f)) for r, f in zip(run, factor, strict=True)]
    return _work(submit, run, size, est, m), m


def _run(work: Workload, m: int, rule: tuple[str, bool, Any], kill: bool = False,
         blocked_head: str = "kill-advanced") -> tuple[Any, dict[str, Any], dict[str, Any]]:
    alloc, tree, extra = rule
    kw: dict[str, Any] = {}
    if tree:
        kw["topology"] = kary_for(m, 2)
    if alloc == "loc":
        kw["cluster_size"] = 4
    if alloc == "quasi-contiguous":
        kw["qct"] = extra
    elif extra is not None:
        kw["penalty"] = extra
    sched, stats = simulate_batch(work, "easy", alloc=alloc, kill=kill,
                                  blocked_head=blocked_head, **kw)
    return sched, stats, kw


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workloads(), st.sampled_from(RULES), st.booleans())
def test_every_schedule_validates_and_every_round_keeps_the_rules(
        case: tuple[Workload, int], rule: tuple[str, bool, Any], kill: bool) -> None:
    work, m = case
    with watching() as watch:
        sched, stats, kw = _run(work, m, rule, kill)
    validate_batch(work, sched, m, forced=rule[0], topology=kw.get("topology"),
                   cluster_size=kw.get("cluster_size"), qct=kw.get("qct", 20))
    assert np.isfinite(sched.start).all() and (sched.start >= work.submit).all()
    _check_rounds(work, sched, stats, watch)
    _check_attempts(work, sched, watch, m)
    if not watch.kills:  # no round: the same schedule as ``wait`` (the check is inert)
        base, _, _ = _run(work, m, rule, kill, blocked_head="wait")
        assert np.array_equal(sched.start, base.start)
        assert np.array_equal(sched.end, base.end)


@contextlib.contextmanager
def no_memos() -> Iterator[None]:
    """Every pass starts with the caches of decisions 462 and 464 and the shadow's memo
    emptied (the refused sizes, the queue array, the idle-pass scan state): a reference
    that cannot be misled by a cache a kill round failed to reset."""
    cls = sim_mod._BatchSim
    orig = cls.scheduling_pass

    def scheduling_pass(self: Any) -> None:
        self.refused_at, self.scan_state = -1, None
        self.qarr = sim_mod._NO_RANKS
        self.shadow_memo.clear()
        orig(self)

    cls.scheduling_pass = scheduling_pass  # type: ignore[method-assign]
    try:
        yield
    finally:
        cls.scheduling_pass = orig  # type: ignore[method-assign]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workloads(), st.sampled_from(RULES), st.booleans())
def test_the_caches_are_sound_after_kill_rounds(
        case: tuple[Workload, int], rule: tuple[str, bool, Any], kill: bool) -> None:
    work, m = case
    sched, stats, _ = _run(work, m, rule, kill)
    with no_memos():
        ref, ref_stats, _ = _run(work, m, rule, kill)
    assert np.array_equal(sched.start, ref.start) and np.array_equal(sched.end, ref.end)
    assert all(np.array_equal(np.asarray(a), np.asarray(b))
               for a, b in zip(sched.procs, ref.procs, strict=True))
    assert stats["reservation_kills"] == ref_stats["reservation_kills"]


@settings(max_examples=120, deadline=None)
@given(workloads(), st.booleans())
def test_basic_never_kills_when_estimates_bound_the_run_times(
        case: tuple[Workload, int], tree: bool) -> None:
    # kill=True: no job runs past its estimate, so at the shadow time the count the head
    # needs is free and ``basic`` places any count (decision 387 (a): only an overrun or a
    # forced shape can block the head)
    work, m = case
    sched, stats, _ = _run(work, m, ("basic", tree, None), kill=True)
    assert stats["reservation_kills"] == 0 and stats["killed_work"] == 0.0
    base, _, _ = _run(work, m, ("basic", tree, None), kill=True, blocked_head="wait")
    assert np.array_equal(sched.start, base.start)


def test_a_job_killed_twice_reruns_and_the_schedule_validates() -> None:
    # four processors, basic on the line: job 4 (two processors, estimate 10, runs 19) is
    # backfilled, killed at 14 for job 1's reservation, backfilled again and killed again
    # at 33; it finally runs from 43
    work = _work([2, 2, 2, 3, 4], [12, 4, 15, 10, 19], [2, 3, 2, 3, 2],
                 [14, 10, 18, 16, 10], m=4)
    with watching() as watch:
        sched, stats = simulate_batch(work, "easy", blocked_head="kill-advanced")
    assert [(k["job"], k["now"]) for k in watch.kills] == [(4, 14.0), (4, 33.0)]
    assert sched.start.tolist() == [2, 14, 18, 33, 43]
    assert stats["killed_work"] == (14 - 4) * 2 + (33 - 18) * 2
    validate_batch(work, sched, 4)
    _check_rounds(work, sched, stats, watch)
    _check_attempts(work, sched, watch, 4)


def test_zero_length_jobs_and_simultaneous_submissions_on_the_fragmented_line() -> None:
    # the FRAGMENTED case above with zero-length jobs submitted at the kill instant and
    # with the victim: they take no time and are never victims
    work = _work([0, 0, 0, 1, 2, 2, 10, 10], [10, 100, 10, 10, 50, 0, 0, 5],
                 [1, 1, 1, 2, 1, 1, 1, 1])
    with watching() as watch:
        sched, stats = simulate_batch(work, "easy", alloc="cont",
                                      blocked_head="kill-advanced")
    validate_batch(work, sched, 4, forced="cont")
    _check_rounds(work, sched, stats, watch)
    _check_attempts(work, sched, watch, 4)
    assert [k["job"] for k in watch.kills] == [4]
    assert sched.start[3] == 10.0  # the head at its reservation time


# ------------------------------------- ``wait`` is the package without the kill rule

_DIGEST = textwrap.dedent('''
    import hashlib, sys
    import numpy as np
    from lpsched.batch.simulator import simulate_batch
    from lpsched.batch.reproduce import kary_for, load_trace, subset
    from lpsched.core.swf import Workload

    def digest(s):
        h = hashlib.sha256()
        h.update(np.asarray(s.start, float).tobytes())
        h.update(np.asarray(s.end, float).tobytes())
        for p in s.procs:
            h.update(np.asarray(p, np.int64).tobytes() + b"|")
        return h.hexdigest()

    if sys.argv[1] == "random":
        rng = np.random.default_rng(387)
        for i in range(int(sys.argv[2])):
            n, m = 250, 64
            run = rng.uniform(0, 400, n)
            run[rng.random(n) < 0.05] = 0
            est = run * rng.choice([0.5, 1.0, 2.0, 5.0], n)
            sub = np.sort(rng.choice([0.0, 10.0], n) + rng.uniform(0, 3000, n).round())
            w = Workload(job=np.arange(1, n + 1), submit=sub, run=run,
                         size=rng.integers(1, 40, n), estimate=est, processors=m)
            topo = kary_for(m, 4)
            for alloc, kw in (("basic", {}), ("cont", {}), ("cont-ff", {}),
                              ("contiguous", {"topology": topo}),
                              ("quasi-contiguous", {"topology": topo, "qct": 10}),
                              ("basic", {"topology": topo, "penalty": ("linear", 0.5)})):
                for kill in (False, True):
                    s, _ = simulate_batch(w, "easy", alloc=alloc, kill=kill, **kw)
                    print(i, alloc, kill, digest(s))
    else:
        work = load_trace(sys.argv[2])
        work = subset(work, np.arange(min(int(sys.argv[3]), work.jobs)))
        topo = kary_for(int(work.processors or work.size.max()), 4)
        for alloc, qct in (("contiguous", 20), ("quasi-contiguous", 10)):
            s, _ = simulate_batch(work, "easy", alloc=alloc, topology=topo, qct=qct)
            print(alloc, qct, digest(s))
''')


@pytest.fixture(scope="module")
def before_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package without the kill rule (``git archive 78adb6c^``, the commit before it;
    read-only git)."""
    root = tmp_path_factory.mktemp("without_kill_rule")
    try:
        done = subprocess.run(["git", "-C", str(REPO), "archive", "78adb6c^", "lpsched"],
                              capture_output=True, timeout=60, check=True)
    except (OSError, subprocess.SubprocessError):
        pytest.skip("git or commit 78adb6c^ not available")
    (root / "tree.tar").write_bytes(done.stdout)
    with tarfile.open(root / "tree.tar") as tar:
        tar.extractall(root / "tree", filter="data")
    (root / "digest.py").write_text(_DIGEST)
    return root


def _digests(before: Path, tree: Path, *args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, str(before / "digest.py"), *args],
                          capture_output=True, text=True, timeout=900, env=env,
                          cwd=str(before))
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_wait_is_the_package_without_the_kill_rule_on_random_workloads(
        before_tree: Path) -> None:
    old = _digests(before_tree, before_tree / "tree", "random", "4")
    new = _digests(before_tree, REPO, "random", "4")
    assert old.count("\n") == 4 * 6 * 2 and old == new


@pytest.mark.slow
@pytest.mark.parametrize("trace", ["HPC2N-2002-2.1-cln.swf.gz", "SDSC-BLUE-2000-4.1-cln.swf.gz"])
def test_wait_is_the_package_without_the_kill_rule_on_a_trace(before_tree: Path,
                                                              trace: str) -> None:
    path = shared_file(trace)
    old = _digests(before_tree, before_tree / "tree", "trace", str(path), "20000")
    assert old == _digests(before_tree, REPO, "trace", str(path), "20000")


# ---------------------------------------------------------------- the CLI as a user


def _swf(path: Path, rows: list[tuple[float, float, int, float]], m: int) -> Path:
    lines = [f"; MaxProcs: {m}"]
    for j, (sub, run, size, est) in enumerate(rows, start=1):
        lines.append(f"{j} {sub:g} 0 {run:g} {size} -1 -1 {size} {est:g} -1 1 -1 -1 -1 -1 -1"
                     " -1 -1")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_cli_jobs_csv_has_one_row_per_job_with_its_last_start(tmp_path: Path) -> None:
    swf = _swf(tmp_path / "frag.swf", [(0, 10, 1, 10), (0, 100, 1, 100), (0, 10, 1, 10),
                                       (1, 10, 2, 10), (2, 50, 1, 50)], 4)
    out = tmp_path / "jobs.csv"
    done = subprocess.run([LPSCHED, "batch", str(swf), "--alloc", "cont", "--blocked-head",
                           "kill-advanced", "--out", str(out), "--json"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert '"reservation_kills": 1' in done.stdout and '"killed_work": 8.0' in done.stdout
    rows = out.read_text().splitlines()
    assert len(rows) == 1 + 5
    job5 = dict(zip(rows[0].split(","), rows[5].split(","), strict=True))
    # killed at 10 after 8 s on id 3, rerun from 10 on id 0 for its whole 50 s
    assert (job5["starting_time"], job5["execution_time"], job5["finish_time"],
            job5["allocated_resources"], job5["final_state"]) == \
        ("10.0", "50.0", "60.0", "0", "COMPLETED_SUCCESSFULLY")


def test_cli_rejects_the_rule_outside_easy_and_unknown_values(tmp_path: Path) -> None:
    swf = _swf(tmp_path / "t.swf", [(0, 10, 1, 10)], 4)
    done = subprocess.run([LPSCHED, "batch", str(swf), "--policy", "fcfs",
                           "--blocked-head", "kill-advanced"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert "--policy fcfs advances no job" in done.stderr
    done = subprocess.run([LPSCHED, "batch", str(swf), "--blocked-head", "kill"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert "invalid choice: 'kill'" in done.stderr
    done = subprocess.run([LPSCHED, "batch", "--help"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and "kill-advanced" in done.stdout


# ------------------------ the head at its reservation time, the victims (decision 388)


def test_the_head_runs_when_its_reservation_time_is_reached() -> None:
    # basic, four processors. Job 0 (two processors, estimate 10) ends at 5; job 1 (one)
    # runs to 100; the head, job 2 (three processors), is reserved at 10 (then 8); job 3
    # (one processor, estimate 6, runs 50) is backfilled at 2 as ending by then. At 8 (job
    # 3's estimated end) the head's reservation time is reached and killing job 3 frees
    # what it needs, but no event happens at 8: the head waits to 52 (job 3 is never
    # killed), or, when an unrelated one-processor job is submitted at 30, to 30
    work = _work([0, 0, 1, 2], [5, 100, 10, 50], [2, 1, 3, 1], [10, 100, 10, 6])
    alone = simulate_batch(work, "easy", blocked_head="kill-advanced")[0]
    other = _work([0, 0, 1, 2, 30], [5, 100, 10, 50, 1], [2, 1, 3, 1, 1],
                  [10, 100, 10, 6, 1])
    with_other = simulate_batch(other, "easy", blocked_head="kill-advanced")[0]
    assert alone.start[2] == 8.0 and with_other.start[2] == 8.0


def test_no_job_is_killed_whose_processors_the_head_does_not_use() -> None:
    # six processors, cont. Job 0 (ids 0-2) ends at 7; the head, job 1 (four contiguous),
    # is reserved at 14; jobs 3 (id 3) and 4 (id 4) are backfilled in the two spare
    # processors. At 7 ids 0-2 and 5 are free: killing job 4 (the latest) frees id 4, no
    # four in a row; killing job 3 too frees 0-5 and the head takes 0-3: job 4's kill
    # was of no use to it (killing job 3 alone gives 0-3)
    work = _work([0, 1, 2, 3, 4], [7, 3, 8, 17, 15], [3, 4, 6, 1, 1],
                 [14, 3, 16, 17, 15], m=6)
    with watching() as watch:
        sched, _ = simulate_batch(work, "easy", alloc="cont", blocked_head="kill-advanced")
    assert sched.start[1] == 7.0
    head_ids = set(watch.rounds[0]["head_ids"].tolist())
    assert all(head_ids & set(k["ids"].tolist()) for k in watch.kills)


def test_no_job_is_killed_for_a_head_submitted_after_it() -> None:
    # three processors, basic. Job 2 (submitted at 2) is backfilled past job 1, which
    # starts at 3; job 3 (submitted at 4) becomes the head and, at 12, job 2 is killed for
    # it although job 2 came first and never passed it
    work = _work([0, 0, 2, 4], [3, 9, 18, 9], [2, 2, 1, 3], [13, 6, 5, 11], m=3)
    with watching() as watch:
        simulate_batch(work, "easy", blocked_head="kill-advanced")
    rank = np.lexsort((np.arange(work.jobs), work.submit)).argsort()
    assert all(rank[v["job"]] > rank[r["head"]] for r in watch.rounds for v in r["victims"])
