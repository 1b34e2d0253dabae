"""``lpsched batch`` imports nothing it does not use (decision 160): no scipy, highspy,
networkx or matplotlib, checked on the installed command with ``python -X importtime``;
``import lpsched`` stays light and every public name is still importable."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("scipy", "highspy", "networkx", "matplotlib", "pulp", "dask")

SWF = """; MaxProcs: 4
1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1
2 1 -1 5 4 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1
3 2 -1 3 1 -1 -1 1 5 -1 1 1 1 1 1 -1 -1 -1
"""


def imported_modules(argv: list[str]) -> set[str]:
    """The top-level modules the installed ``lpsched`` imports running ``argv``."""
    beside = Path(sys.executable).parent / "lpsched"  # this interpreter's venv first
    script = str(beside) if beside.exists() else shutil.which("lpsched")
    if script is None:
        pytest.skip("the lpsched command is not installed")
    proc = subprocess.run([sys.executable, "-X", "importtime", script, *argv],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = [line for line in proc.stderr.splitlines() if line.startswith("import time:")]
    assert lines, "no -X importtime output"
    return {line.rsplit("|", 1)[1].strip().split(".")[0] for line in lines}


@pytest.mark.parametrize("policy", ["easy", "fcfs", "conservative"])
def test_batch_imports_no_heavy_module(tmp_path, policy):
    trace = tmp_path / "t.swf"
    trace.write_text(SWF)
    found = imported_modules(["batch", str(trace), "--policy", policy, "--json", "--out",
                              str(tmp_path / "s.csv")])
    assert "numpy" in found and "lpsched" in found  # the check sees what is imported
    assert not found & set(HEAVY), sorted(found & set(HEAVY))


def test_the_check_sees_a_heavy_import(tmp_path):
    """The same check on a command that needs networkx (``ptg generate``) finds it."""
    found = imported_modules(["ptg", "generate", "--n", "5", "-o", str(tmp_path / "g.json")])
    assert "networkx" in found


def test_import_lpsched_is_light_and_complete():
    code = ("import sys, lpsched; heavy = [m for m in sys.modules if m.split('.')[0] in "
            f"{HEAVY!r}]; print(heavy); from lpsched import *; "
            "print(all(hasattr(lpsched, n) for n in lpsched.__all__)); "
            "print(sorted(set(lpsched.__all__) - set(dir(lpsched))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parents[2]).stdout
    assert out.split("\n")[:3] == ["[]", "True", "[]"]


def test_lazy_names_are_the_family_objects():
    import lpsched
    from lpsched.bags.maxstretch import max_stretch
    from lpsched.bags.schedule import validate

    assert lpsched.max_stretch is max_stretch and lpsched.validate is validate
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        lpsched.nope  # noqa: B018
