"""Options that would silently do nothing or the opposite of what they say (decision 237): a
quadratic penalty factor below 1, ``--speedup`` and ``--qct`` under an allocator they do
not apply to."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lpsched.batch.simulator import simulate_batch
from lpsched.batch.topology import parse_topology
from lpsched.core.swf import Workload
from lpsched.errors import InvalidInstanceError
from tests.cli.test_cli_subprocess import lpsched
from tests.tasks.conftest import swf_text


def _work() -> Workload:
    n = 3
    return Workload(job=np.arange(1, n + 1), submit=np.zeros(n), run=np.full(n, 100.0),
                    size=np.array([1, 2, 2]), estimate=np.full(n, 1000.0), processors=8)


@pytest.mark.parametrize("factor", [0.0, 0.5, 0.999])
def test_quadratic_penalty_below_one_is_refused(factor: float) -> None:
    topo = parse_topology("fat-tree:2,2,2")
    with pytest.raises(InvalidInstanceError, match="F >= 1"):
        simulate_batch(_work(), "fcfs", topology=topo, penalty=("quadratic", factor))


def test_linear_penalty_zero_and_quadratic_one_run() -> None:
    topo = parse_topology("fat-tree:2,2,2")
    for penalty in (("linear", 0.0), ("quadratic", 1.0)):
        sched, _ = simulate_batch(_work(), "fcfs", topology=topo, penalty=penalty)
        assert np.allclose(sched.end - sched.start, 100.0)  # no slowdown at all


def test_speedup_needs_a_contiguous_allocator() -> None:
    with pytest.raises(InvalidInstanceError, match="contiguous"):
        simulate_batch(_work(), "fcfs", speedup=10)


def test_cli_refuses_options_that_would_be_ignored(tmp_path: Path) -> None:
    trace = tmp_path / "t.swf"
    trace.write_text(swf_text([(0, 600, 4), (60, 300, 2)], 8))
    for argv, word in ((["--speedup", "50"], "speedup"), (["--qct", "50"], "--qct"),
                       (["--topology", "fat-tree:2,2,2", "--penalty", "quadratic:0.5"],
                        "F >= 1")):
        proc = lpsched("batch", str(trace), *argv, "--json")
        assert proc.returncode == 2 and proc.stdout == "", (argv, proc.stderr)
        assert proc.stderr.count("\n") == 1 and word in proc.stderr
    proc = lpsched("batch", str(trace), "--alloc", "quasi-contiguous", "--topology",
                   "kary-ntree:2,3", "--qct", "50", "--json")
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("bad", [np.inf, np.nan])
def test_conservative_refuses_an_estimate_that_is_not_finite(bad: float) -> None:
    work = _work()
    work.estimate[1] = bad
    with pytest.raises(InvalidInstanceError, match=r"job 2 .*estimate must be finite"):
        simulate_batch(work, "conservative")
    sched, _ = simulate_batch(work, "easy")  # EASY reads only the head's shadow time
    assert np.all(np.isfinite(sched.end))
