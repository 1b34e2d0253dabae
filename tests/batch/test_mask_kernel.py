"""The compiled mask ``lpsched.batch._mask_c`` gives the Python rules' answers.

:class:`~lpsched.batch._mask_c.Mask` keeps the simulator's free state (the mask, the bucket
and cluster counts) and chooses ids under every rule of
:func:`lpsched.batch.allocation.allocate`, the reference. Checked here: the ids (or the
refusal) of every rule on random masks, lines and trees (fat trees, k-ary n-trees, with an
uninstalled tail), the counts after a take and a give, whole simulations with the compiled
and the Python path (``LPSCHED_PURE_PYTHON=1``) on random workloads and on the shared
traces (skipped without ../shared/data), and the installed command. The comparisons skip,
saying why, when the extension is not built: the Python path is then the only one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lpsched.batch import simulator
from lpsched.batch.allocation import (
    ALLOCATORS,
    BLOCK,
    NEEDS_CLUSTERS,
    NEEDS_TOPOLOGY,
    allocate,
    block_counts,
    cluster_counts,
    free_blocks,
)
from lpsched.batch.line import PURE_PYTHON
from lpsched.batch.simulator import simulate_batch
from lpsched.batch.topology import Topology, fat_tree, kary_ntree
from lpsched.core.swf import Workload
from tests.shared_data import shared_file

LPSCHED = str(Path(sys.executable).parent / "lpsched")
BUILT = simulator._mask_c is not None
needs_c = pytest.mark.skipif(
    not BUILT, reason="the compiled mask lpsched.batch._mask_c is not built (no Cython or C "
    "compiler at install time): only the Python rules run, nothing to compare")
RUN_RULES = ("becont", "cont", "becont-ff", "cont-ff")


def _machine(rng: np.random.Generator, rule: str) -> tuple[Topology | None, int, int]:
    """A random tree (installed leaves at most its leaves) or line, and its cluster size."""
    if rule in NEEDS_TOPOLOGY or rng.random() < 0.3:
        if rng.random() < 0.5:
            topo = kary_ntree(int(rng.integers(2, 5)), int(rng.integers(2, 6)))
        else:
            arity = [int(a) for a in rng.integers(1, 5, int(rng.integers(1, 4)))]
            topo = fat_tree(int(rng.integers(1, 9)), arity)
        topo = replace(topo, installed=int(rng.integers(1, topo.leaves + 1)))
        return topo, topo.installed, topo.cluster_size
    return None, int(rng.integers(1, 3000)), int(rng.integers(1, 40))


def _mask(rng: np.random.Generator, topo: Topology | None, m: int) -> np.ndarray:
    """A random free mask: scattered ids, sometimes long runs, the uninstalled tail busy."""
    free = topo.free_mask() if topo is not None else np.ones(m, bool)
    free[:m] &= rng.random(m) < rng.random()
    if rng.random() < 0.5:
        for a in rng.integers(0, m, 5).tolist():
            free[a:min(m, a + int(rng.integers(1, 200)))] = a % 2 == 0
    return free


@needs_c
@pytest.mark.parametrize("rule", ALLOCATORS)
def test_rules_give_the_python_ids(rule: str) -> None:
    rng = np.random.default_rng(ALLOCATORS.index(rule))
    placed = refused = 0
    for _ in range(250):
        topo, m, cl = _machine(rng, rule)
        free = _mask(rng, topo, m)
        counts = block_counts(free)
        clusters = cluster_counts(free, cl) \
            if rule in (*NEEDS_TOPOLOGY, *NEEDS_CLUSTERS) or rng.random() < 0.5 else None
        alloc_free = free[:m] if rule in RUN_RULES else free
        qct = int(rng.integers(0, 60))
        kernel = simulator._mask_c.Mask(free, counts, clusters, rule, m, cl,
                                        topo.block_sizes if topo else (), qct, BLOCK)
        for _ in range(4):
            total = int(free.sum())
            size = int(rng.integers(0, total + 2))
            runs = free_blocks(alloc_free)
            want = allocate(rule, alloc_free, size, cl, topo, qct, counts, clusters,
                            total=total, blocks=runs)
            got = kernel.begin(size, total, *runs)
            assert (got is None) == (want is None), (rule, size)
            if want is None:
                refused += 1
                continue
            placed += 1
            assert got.dtype == np.int32 and got.tolist() == want.tolist()
            assert not free[got].any() and int(free.sum()) == total - size
            assert counts.tolist() == block_counts(free).tolist()
            if clusters is not None:
                assert clusters.tolist() == cluster_counts(free, cl).tolist()
        assert free.sum() == counts.sum()
    assert placed > 100 and refused > 10  # both answers were compared, many times


@needs_c
def test_give_restores_the_counts() -> None:
    topo = kary_ntree(4, 4)
    free = topo.free_mask()
    counts, clusters = block_counts(free), cluster_counts(free, 4)
    kernel = simulator._mask_c.Mask(free, counts, clusters, "quasi-contiguous", 256, 4,
                                    topo.block_sizes, 20, BLOCK)
    taken = [kernel.begin(s, int(free.sum())) for s in (5, 17, 64, 3)]
    assert int(free.sum()) == 256 - 89
    for ids in taken:
        kernel.give(ids)
    assert free.all() and counts.tolist() == [256] and clusters.tolist() == [4] * 64


def _random_work(rng: np.random.Generator, n: int, m: int) -> Workload:
    submit = np.sort(rng.integers(0, 4000, n)).astype(float)
    run = rng.integers(0, 900, n).astype(float)
    est = np.where(rng.random(n) < 0.8, run * rng.uniform(1, 3, n), run * 0.5)
    size = np.minimum(rng.geometric(0.08, n), m)
    return Workload(job=np.arange(n), submit=submit, run=run, size=size, estimate=est,
                    processors=m)


def _answer(pure: bool, *args: Any, **kwargs: Any) -> str:
    """One path's schedule and statistics (the timing left out), as text (NaN equal to
    NaN)."""
    old = os.environ.get(PURE_PYTHON)
    os.environ[PURE_PYTHON] = "1" if pure else "0"
    try:
        assert simulator.mask_kernel_in_use() == (f"python ({PURE_PYTHON} is set)" if pure
                                                  else "compiled")
        sched, stats = simulate_batch(*args, **kwargs)
    finally:
        if old is None:
            del os.environ[PURE_PYTHON]
        else:
            os.environ[PURE_PYTHON] = old
    stats.pop("seconds")
    return repr((sched.start.tolist(), sched.end.tolist(), [p.tolist() for p in sched.procs],
                 sched.failed.tolist(), sched.killed.tolist(),
                 {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in stats.items()}))


CASES = [(policy, rule) for policy in ("fcfs", "easy", "conservative") for rule in ALLOCATORS]


@needs_c
@pytest.mark.parametrize(("policy", "rule"), CASES)
def test_simulations_match_the_python_path(policy: str, rule: str) -> None:
    rng = np.random.default_rng(len(policy) * 100 + ALLOCATORS.index(rule))
    for trial in range(3):
        tree = rule in NEEDS_TOPOLOGY or trial == 1
        topo = kary_ntree(4, 3) if trial != 2 else fat_tree(4, [2, 4])
        m = int(rng.integers(20, topo.leaves + 1)) if tree else int(rng.integers(20, 300))
        work = _random_work(rng, 150, m)
        kwargs: dict[str, Any] = {"alloc": rule, "qct": int(rng.integers(5, 50)),
                                  "kill": bool(trial)}
        if tree:
            kwargs["topology"] = topo
            if trial == 2 and policy == "conservative":
                kwargs["penalty"] = ("quadratic", 2.0)
                kwargs["compression"] = "reassign"
        elif rule in NEEDS_CLUSTERS or trial:
            kwargs["cluster_size"] = int(rng.integers(2, 9))
        if policy == "easy" and trial != 2:
            kwargs["blocked_head"] = "kill-advanced"
        compiled = _answer(False, work, policy, **kwargs)
        assert compiled == _answer(True, work, policy, **kwargs), (trial, kwargs)


@needs_c
@pytest.mark.parametrize("trace", ["LLNL-Thunder-2007-1.1-cln.swf.gz",
                                   "KTH-SP2-1996-2.1-cln.swf.gz"])
def test_real_trace_matches_the_python_path(trace: str) -> None:
    from lpsched.batch.reproduce import kary_for, load_trace, subset

    work = subset(load_trace(str(shared_file(trace)), None), np.arange(1200))
    topo = kary_for(int(work.processors or work.size.max()), 4)
    for policy, rule, head in (("easy", "quasi-contiguous", "kill-advanced"),
                               ("fcfs", "contiguous", "wait"),
                               ("easy", "basic", "kill-advanced")):
        args = (work, policy)
        kwargs = {"alloc": rule, "topology": topo, "qct": 20, "blocked_head": head,
                  "speedup": 15.0 if rule != "basic" else 0.0}
        assert _answer(False, *args, **kwargs) == _answer(True, *args, **kwargs)


@needs_c
def test_installed_command_answers_alike() -> None:
    trace = shared_file("hpc2n-excerpt.swf")
    outs = []
    for pure in ("0", "1"):
        proc = subprocess.run(
            [LPSCHED, "batch", str(trace), "--policy", "easy", "--alloc",
             "quasi-contiguous", "--topology", "kary-ntree:4,4", "--limit", "600", "--json"],
            capture_output=True, text=True, env={**os.environ, PURE_PYTHON: pure})
        assert proc.returncode == 0, proc.stderr
        data = json.loads(proc.stdout)
        outs.append({k: v for k, v in data.items() if k not in ("seconds", "jobs_per_second")})
    assert outs[0] == outs[1] and outs[0]["jobs"] == 600
