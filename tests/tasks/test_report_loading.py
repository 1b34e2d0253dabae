"""What ``reproduce redirection`` loads of the report package through its report hook
(lpsched.tasks.report, decision 693): the parts module, not the report builder, which is
loaded when a report is built."""

from __future__ import annotations

import json
import subprocess
import sys

from lpsched.report.parts import ReportPart
from lpsched.tasks.report import report_part


def _loaded(code: str) -> set[str]:
    proc = subprocess.run([sys.executable, "-c", code + "\nimport json, sys\n"
                           "print(json.dumps(sorted(sys.modules)))"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return set(json.loads(proc.stdout.splitlines()[-1]))


def test_the_helpers_of_reproduce_leave_the_report_builder_unloaded():
    loaded = _loaded("from lpsched.tasks.report import TUNING, TUNING_STORE, of_selection, "
                     "sibling_rows\nimport lpsched.cli.tasks")
    assert "lpsched.tasks.report" in loaded
    report = {m for m in loaded if m == "lpsched.report" or m.startswith("lpsched.report.")}
    assert report == {"lpsched.report", "lpsched.report.parts"}


def test_the_report_package_loads_its_names_on_first_use():
    loaded = _loaded("from lpsched.report import build_report, manifest")
    assert {"lpsched.report.build", "lpsched.report.manifest"} <= loaded


def test_the_hook_still_builds_its_part(tmp_path):
    part = report_part(None, "redirection", tmp_path)
    assert isinstance(part, ReportPart) and part.experiment == "redirection"
    assert part.table.rows and not part.figures
