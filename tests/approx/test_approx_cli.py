"""The ``lpsched approx`` commands as users meet them: the installed command run as a
subprocess, its stdout, stderr and exit status checked (time limits, the optimum's
interval, ``--schedule``, ``--processors``, ``--repair``)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from lpsched.approx import exact
from lpsched.approx.listsched import lpt
from tests.cli.test_cli_subprocess import lpsched, one_json_object


def error_line(proc: subprocess.CompletedProcess[str], code: int = 2) -> str:
    """Exit ``code``, nothing on stdout, one ``lpsched: error:`` line on stderr."""
    assert proc.returncode == code, (proc.stdout, proc.stderr)
    assert proc.stdout == "", proc.stdout
    assert proc.stderr.startswith("lpsched: error: ") and proc.stderr.count("\n") == 1, \
        proc.stderr
    return proc.stderr


def write(path: Path, data: object) -> str:
    path.write_text(json.dumps(data))
    return str(path)


@pytest.mark.parametrize("limit", ["0", "-1", "nan", "inf", "-inf"])
def test_identical_refuses_a_time_limit_that_means_no_limit(tmp_path: Path, limit: str,
                                                            ) -> None:
    """Each would run the MIP without a limit (decision 238): one error line, exit 2."""
    jobs = write(tmp_path / "j.json", {"times": [5, 4, 3, 3, 2, 2], "machines": 2})
    line = error_line(lpsched("approx", "identical", jobs, "--exact", f"--time-limit={limit}"))
    assert line.startswith(f"lpsched: error: --time-limit {limit}: must be a finite number "
                           "of seconds > 0")


def _stopped(makespan: float, bound: float) -> exact.ExactResult:
    return exact.ExactResult(makespan, bound, False, np.zeros(3, int), "time_limit")


def test_the_known_interval_never_ends_above_the_heuristic() -> None:
    """A MIP stopped by its limit may hold a worse schedule than LPT's (decision 240): the
    interval's upper end is the better of the two schedules, its lower end the better of
    the two bounds."""
    from lpsched.cli.approx import _known_optimum

    res = lpt([5.0, 4.0, 3.0, 3.0, 3.0], 2)  # LPT 10, certified bound 9
    worse = _known_optimum(res, _stopped(11.0, 8.5))
    assert worse["upper_bound"] == res.makespan == 10.0
    assert worse["lower_bound"] == res.lower_bound == 9.0
    assert worse["makespan"] == 11.0 and worse["bound"] == 8.5  # the MIP's own values
    better = _known_optimum(res, _stopped(9.5, 9.2))
    assert better["upper_bound"] == 9.5 and better["lower_bound"] == 9.2


def test_identical_interval_ends_at_the_better_schedule(tmp_path: Path) -> None:
    """With a short limit the interval's upper end is never above the LPT makespan printed
    on the same line, whatever incumbent the MIP holds."""
    rng_times = [round(10 + (37 * k % 101) * 0.731, 3) for k in range(30)]
    jobs = write(tmp_path / "h.json", {"times": rng_times, "machines": 4})
    data = one_json_object(lpsched("approx", "identical", jobs, "--exact", "--time-limit",
                                   "0.05", "--json"))
    known = data["exact"]
    assert known["upper_bound"] == min(known["makespan"], data["makespan"])
    assert known["lower_bound"] == max(known["bound"], data["lower_bound"])
    assert known["lower_bound"] <= known["upper_bound"] * (1 + 1e-9)
    text = lpsched("approx", "identical", jobs, "--exact", "--time-limit", "0.05")
    assert text.returncode == 0 and text.stderr == ""
    found = re.search(r"makespan (\S+),", text.stdout)
    assert found is not None, text.stdout
    lpt_makespan = float(found.group(1))
    interval = re.search(r"optimum in \[(\S+), (\S+)\]", text.stdout)
    if interval:  # not proven optimal within 0.05 s
        assert float(interval.group(2)) <= lpt_makespan


@pytest.mark.parametrize(("argv", "data"), [
    (["approx", "hybrid", "{f}", "--cpus", "1", "--gpus", "1"],
     {"cpu_times": [1, 2], "gpu_times": [2, 1]}),
    (["approx", "identical", "{f}"], {"times": [3, 2, 2], "machines": 2}),
    (["approx", "moldable", "{f}"], {"times": [[4, 2], [3, 2]]}),
])
def test_schedule_without_json_is_refused_not_ignored(tmp_path: Path, argv: list[str],
                                                      data: object) -> None:
    path = write(tmp_path / "in.json", data)
    argv = [a.format(f=path) for a in argv]
    line = error_line(lpsched(*argv, "--schedule"))
    assert "--schedule" in line and "--json" in line
    with_json = one_json_object(lpsched(*argv, "--schedule", "--json"))
    assert "schedule" in with_json


def test_processors_narrower_than_the_table_uses_its_first_columns(tmp_path: Path) -> None:
    wide = write(tmp_path / "w.json", {"times": [[4, 2, 1.5, 1.25], [3, 3, 3, 3],
                                                 [8, 4, 3, 2.25]]})
    narrow = write(tmp_path / "n.json", {"times": [[4, 2], [3, 3], [8, 4]]})
    for algorithm in ("mrt", "kshelf"):
        cut = one_json_object(lpsched("approx", "moldable", wide, "--processors", "2",
                                      "--algorithm", algorithm, "--json", "--schedule"))
        same = one_json_object(lpsched("approx", "moldable", narrow, "--algorithm",
                                       algorithm, "--json", "--schedule"))
        assert cut == same
        assert max(max(p) for p in cut["schedule"]["processors"]) <= 1


def test_processors_wider_than_the_table_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "m.json", {"times": [[4, 2], [3, 3]]})
    line = error_line(lpsched("approx", "moldable", path, "--processors", "3"))
    assert line.startswith("lpsched: error: --processors 3:") and "1 to 2" in line
    ragged = write(tmp_path / "r.json", {"times": [[4, 2, 1.5], [3, 3]]})
    line = error_line(lpsched("approx", "moldable", ragged, "--processors", "2"))
    assert "times[1]" in line


def test_processors_help_says_what_it_does() -> None:
    proc = lpsched("approx", "moldable", "--help")
    assert proc.returncode == 0
    text = " ".join(proc.stdout.split())
    assert "first P columns" in text and "--json (required)" in text


def test_kshelf_accepts_what_repair_promises(tmp_path: Path) -> None:
    path = write(tmp_path / "sl2.json", {"times": [[10, 1], [10, 1]]})
    data = json.loads(lpsched("approx", "moldable", path, "--repair", "--algorithm",
                              "kshelf", "--json").stdout)
    assert data["algorithm"] == "k-shelf" and data["makespan"] == 2.0
    assert data["lower_bound"] == 2.0 and data["certified"] is True


def test_mrt_repair_bound_is_below_its_makespan(tmp_path: Path) -> None:
    """``{"times": [[10, 1]]}`` repaired: bound 1 for a makespan of 1 (the monotone
    formula would say 5), certified, the lost guarantee a note on stderr."""
    path = write(tmp_path / "sl.json", {"times": [[10, 1]]})
    proc = lpsched("approx", "moldable", path, "--repair", "--json")
    assert proc.returncode == 0
    assert proc.stderr.startswith("lpsched: note: 1 warning")  # the guarantee is lost
    data = json.loads(proc.stdout)
    assert data["makespan"] == 1.0 and data["lower_bound"] == 1.0
    assert data["certified"] is True and data["guarantee"] is None


@pytest.mark.parametrize(("times", "words"), [
    ([[1, 2]], "monotonic"),
    ([[4, 1]], "non-decreasing"),
])
def test_monotony_errors_name_the_cli_option(tmp_path: Path, times: list[list[int]],
                                             words: str) -> None:
    path = write(tmp_path / "mm.json", {"times": times})
    for algorithm in ("mrt", "kshelf"):
        line = error_line(lpsched("approx", "moldable", path, "--algorithm", algorithm))
        assert words in line and "pass --repair" in line and "repair=True" not in line
