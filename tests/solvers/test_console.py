"""Solver output never reaches the terminal unless asked for (decision 59).

Run in fresh interpreters: the HiGHS banner is printed by C++ to file descriptor 1 once per
process, so only a new process shows whether it escapes.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from lpsched.models.program import LinearProgram
from lpsched.solvers import console
from lpsched.solvers.highs import HighsModel, write_model


def python(code: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if k != console.ENV_VAR}
    full.update(env or {})
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=300, env=full, check=False)


SOLVE = """
    import lpsched
    inst = lpsched.random_bags(4, 3, seed=5)
    res = lpsched.max_stretch(inst)
    print(f"S={res.stretch:.6f}")
"""


def test_python_api_prints_only_what_the_user_prints() -> None:
    proc = python(SOLVE)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("S=") and proc.stdout.count("\n") == 1
    assert proc.stderr == ""


def test_the_environment_variable_sends_the_log_to_a_file(tmp_path: Path) -> None:
    log = tmp_path / "solver.log"
    proc = python(SOLVE, env={console.ENV_VAR: str(log)})
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout.startswith("S=") and proc.stdout.count("\n") == 1
    assert "Optimal" in log.read_text()


def test_stderr_log_leaves_stdout_alone() -> None:
    proc = python(SOLVE, env={console.ENV_VAR: "-"})
    assert proc.returncode == 0
    assert proc.stdout.startswith("S=") and proc.stdout.count("\n") == 1
    assert "Optimal" in proc.stderr


def test_dask_workers_stay_quiet() -> None:
    pytest.importorskip("dask.distributed")
    proc = python("""
        from dask.distributed import Client, LocalCluster
        from lpsched.bags import reproduce as exp
        from lpsched.core.runner import run_cells
        from lpsched.core.store import ResultStore
        if __name__ == "__main__":
            cells = exp.cells(2, policies=["cbs3m-edf-offline"])
            with LocalCluster(n_workers=1, threads_per_worker=2, processes=True,
                              dashboard_address=None) as cluster, Client(cluster) as client:
                store = ResultStore(":memory:")
                run_cells(exp.EXPERIMENT, cells, exp.cell, store, executor=client,
                          progress=False)
            print(len(store.rows(exp.EXPERIMENT)))
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "2"
    assert "HiGHS" not in proc.stdout + proc.stderr


def tiny_lp() -> LinearProgram:
    lp = LinearProgram(sense="max")
    x = lp.add_variables("x", 2, upper=1.0)
    lp.add_constraints("cap", [0, 0], x, [1.0, 1.0], upper=[1.5])
    lp.set_objective(x, 1.0)
    return lp


def test_solver_log_context_restores_the_previous_target(tmp_path: Path) -> None:
    assert console.solver_log_target() is None
    log = tmp_path / "a.log"
    with console.solver_log(log):
        assert console.solver_log_target() == str(log.resolve())
        assert os.environ[console.ENV_VAR] == str(log.resolve())
        sol = HighsModel(tiny_lp()).solve()
    assert console.solver_log_target() is None and console.ENV_VAR not in os.environ
    assert sol.objective == pytest.approx(1.5)
    assert "Optimal" in log.read_text()
    size = log.stat().st_size
    HighsModel(tiny_lp()).solve()  # no log asked for: nothing appended
    assert log.stat().st_size == size


def test_writing_a_model_prints_nothing(tmp_path: Path, capfd: pytest.CaptureFixture) -> None:
    write_model(tiny_lp(), str(tmp_path / "m.lp"))
    out = capfd.readouterr()
    assert out.out == "" and out.err == ""
    assert "cap" in (tmp_path / "m.lp").read_text()
