"""``lpsched solve --formulation`` as users run it (installed console script)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.test_cli_subprocess import lpsched, one_json_object


def test_paths_and_buffers_give_one_optimum(tmp_path: Path) -> None:
    """Both LPs behind the search give the same optimal stretch; ``auto`` takes paths
    offline, and the JSON says which one ran."""
    inst = tmp_path / "b.json"
    made = lpsched("generate", "bags", "--profile", "balanced", "--apps", "8", "--workers",
                   "4", "--seed", "5", "-o", str(inst))
    assert made.returncode == 0, made.stderr
    out = {f: one_json_object(lpsched("solve", str(inst), "--json", "--formulation", f))
           for f in ("auto", "paths", "buffers")}
    assert out["auto"]["formulation"] == "paths" and out["buffers"]["formulation"] == "buffers"
    assert out["paths"]["stretch"] == pytest.approx(out["buffers"]["stretch"], rel=1e-7)
    assert out["auto"]["stretch"] == out["paths"]["stretch"]


def test_paths_refuse_a_memory_bound(tmp_path: Path) -> None:
    inst = tmp_path / "b.json"
    assert lpsched("generate", "bags", "--apps", "4", "--workers", "2", "--seed", "1",
                   "-o", str(inst)).returncode == 0
    p = lpsched("solve", str(inst), "--formulation", "paths", "--memory", "1e9")
    assert p.returncode == 2 and p.stdout == "" and p.stderr.count("\n") == 1
    assert "--formulation buffers" in p.stderr
    ok = lpsched("solve", str(inst), "--memory", "1e9", "--json")  # auto: buffers
    assert one_json_object(ok)["formulation"] == "buffers"


def test_paths_refuse_an_instance_counted_per_application(tmp_path: Path) -> None:
    """An application of 10^9 tasks: ``--formulation paths`` is refused in one line (exit 2),
    ``auto`` solves it with the buffer model."""
    from lpsched.bags import random_bags, save_instance
    from tests.bags.test_hardening import replaced

    inst = tmp_path / "huge.json"
    save_instance(replaced(random_bags(5, 3, seed=3), 0, tasks=10**9), str(inst))
    p = lpsched("solve", str(inst), "--formulation", "paths")
    assert p.returncode == 2 and p.stdout == "" and p.stderr.count("\n") == 1
    assert "--formulation buffers" in p.stderr
    assert one_json_object(lpsched("solve", str(inst), "--json"))["formulation"] == "buffers"
