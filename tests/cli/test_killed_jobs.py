"""Jobs killed at their estimate (decision 206): ``lpsched batch --kill-at-estimate`` reports
them (JSON ``killed_jobs``, a text line) and their number equals the
``COMPLETED_WALLTIME_REACHED`` rows of ``--out``; without the option nothing is stopped and
the field is absent."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from tests.cli.test_batsim_cli import SWF
from tests.cli.test_cli_subprocess import lpsched, one_json_object

HPC2N = "hpc2n-excerpt.swf"


def write(path: Path, doc: Any) -> Path:
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return path


def killed_in_csv(path: Path) -> int:
    with path.open(newline="") as fh:
        return sum(r["final_state"] == "COMPLETED_WALLTIME_REACHED"
                   for r in csv.DictReader(fh))


def test_killed_jobs_are_reported_and_equal_the_csv(tmp_path):
    trace = write(tmp_path / "t.swf", SWF)
    out = tmp_path / "jobs.csv"
    data = one_json_object(lpsched("batch", str(trace), "--kill-at-estimate", "--json",
                                   "--out", str(out)))
    assert data["killed_jobs"] == killed_in_csv(out) == 1  # job 1: 100 s over 80 s
    text = lpsched("batch", str(trace), "--kill-at-estimate")
    assert text.returncode == 0
    assert "1 jobs killed at their estimate (COMPLETED_WALLTIME_REACHED)" in text.stdout
    plain = one_json_object(lpsched("batch", str(trace), "--json"))
    assert "killed_jobs" not in plain  # nothing is ever stopped without the option


def test_killed_jobs_on_hpc2n_equal_the_csv(tmp_path, shared_data):
    out = tmp_path / "jobs.csv"
    data = one_json_object(lpsched("batch", str(shared_data(HPC2N)), "--kill-at-estimate",
                                   "--json", "--out", str(out)))
    assert data["killed_jobs"] == killed_in_csv(out) == 320
