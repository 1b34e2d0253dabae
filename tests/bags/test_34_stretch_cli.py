"""Issue 34, max-stretch row: ``lpsched solve --first-solve {simplex,ipm}`` (decision 452),
the installed command run as a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

#: the installed command, beside the interpreter running the tests
LPSCHED = Path(sys.executable).with_name("lpsched")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(LPSCHED), *args], capture_output=True, text=True, check=False)


@pytest.fixture(scope="module")
def instance(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("first_solve") / "b3.json"
    gen = _run("generate", "bags", "--profile", "balanced", "--apps", "20", "--workers", "10",
               "--seed", "3", "-o", str(path))
    assert gen.returncode == 0, gen.stderr
    return path


def _solve(instance: Path, *extra: str) -> dict[str, Any]:
    run = _run("solve", str(instance), "--json", "--plan", *extra)
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    out: dict[str, Any] = json.loads(run.stdout)
    return out


def test_simplex_is_the_default_plan(instance: Path) -> None:
    default = _solve(instance)
    simplex = _solve(instance, "--first-solve", "simplex")
    for key in ("stretch", "lower", "iterations", "plan", "probes"):
        if key == "probes":  # their seconds differ from run to run
            assert ([{k: v for k, v in p.items() if k != "seconds"} for p in default[key]]
                    == [{k: v for k, v in p.items() if k != "seconds"} for p in simplex[key]])
        else:
            assert default[key] == simplex[key]


def test_ipm_gives_the_optimum_and_a_checked_plan(instance: Path) -> None:
    default = _solve(instance)
    run = _run("solve", str(instance), "--json", "--plan", "--first-solve", "ipm")
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    ipm = json.loads(run.stdout)
    assert ipm["stretch"] == pytest.approx(default["stretch"], rel=1e-7)
    assert ipm["formulation"] == "paths"
    result = instance.with_name("ipm.json")
    result.write_text(run.stdout)
    check = _run("check", str(instance), str(result))
    assert check.returncode == 0, check.stdout + check.stderr


def test_an_unknown_first_solve_is_an_argument_error(instance: Path) -> None:
    run = _run("solve", str(instance), "--first-solve", "barrier")
    assert run.returncode == 2
    assert run.stdout == ""
    assert "--first-solve" in run.stderr and "invalid choice: 'barrier'" in run.stderr
