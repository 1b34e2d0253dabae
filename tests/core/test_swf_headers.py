"""Header keys of an SWF trace given on two lines (lpsched.core.swf, "the header").

Two ``MaxProcs`` lines that disagree are never resolved silently: each key lpsched reads
(``MaxProcs``, ``MaxNodes``, ``UnixStartTime``, ``TimeZoneString``) given again with another
value is a :class:`SwfHeaderWarning` naming the file, the lines, the values and the value
kept (the first); the same value again, and keys lpsched does not read (``Note``), stay
silent. The CLI prints the warning after the command, in a ``lpsched: note:`` line.
"""

from __future__ import annotations

import os
import subprocess
import warnings
from pathlib import Path

import pytest

from lpsched.core.swf import USED_KEYS, SwfHeaderWarning, read_swf
from tests.cli.test_cli_subprocess import LPSCHED

JOBS = ("1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 1 -1 -1\n"
        "2 5 -1 50 2 -1 -1 2 60 -1 1 1 1 -1 -1 1 -1 -1\n")


def _trace(tmp_path: Path, header: str, name: str = "t.swf") -> Path:
    path = tmp_path / name
    path.write_text(header + JOBS)
    return path


def _read(path: Path) -> tuple[object, list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trace = read_swf(path)
    return trace, [w for w in caught if issubclass(w.category, SwfHeaderWarning)]


def test_conflicting_maxprocs_is_warned_and_the_first_kept(tmp_path: Path) -> None:
    path = _trace(tmp_path, "; Version: 2.2\n; MaxProcs: 8\n; MaxProcs: 16\n")
    trace, caught = _read(path)
    assert trace.max_procs == 8  # type: ignore[attr-defined]
    assert len(caught) == 1
    text = str(caught[0].message)
    assert str(path) in text and "MaxProcs" in text
    assert "line 3: '16'" in text and "'8' at line 2, is kept" in text


@pytest.mark.parametrize("key, first, second", [
    ("MaxNodes", "4", "6"), ("UnixStartTime", "1000", "2000"),
    ("TimeZoneString", "Europe/Paris", "US/Pacific"),
])
def test_every_key_lpsched_reads_is_checked(tmp_path: Path, key: str, first: str,
                                            second: str) -> None:
    assert key in USED_KEYS
    path = _trace(tmp_path, f"; {key}: {first}\n; Note: a\n; {key}: {second}\n")
    _, caught = _read(path)
    assert len(caught) == 1
    assert key in str(caught[0].message) and f"line 3: {second!r}" in str(caught[0].message)


def test_the_same_value_again_and_other_keys_are_silent(tmp_path: Path) -> None:
    path = _trace(tmp_path, "; MaxProcs: 8\n; MaxProcs: 8.0\n; MaxProcs:  8 \n"
                            "; Note: first\n; Note: second\n; UnixStartTime: 5\n"
                            "; UnixStartTime: 5\n")
    trace, caught = _read(path)
    assert caught == [] and trace.max_procs == 8  # type: ignore[attr-defined]


def test_many_conflicts_are_one_warning_per_key(tmp_path: Path) -> None:
    header = "; MaxProcs: 8\n" + "".join(f"; MaxProcs: {n}\n" for n in range(9, 15))
    _, caught = _read(_trace(tmp_path, header))
    assert len(caught) == 1 and "and 3 more" in str(caught[0].message)


def test_the_cli_notes_the_warning_and_succeeds(tmp_path: Path) -> None:
    _trace(tmp_path, "; MaxProcs: 8\n; MaxProcs: 16\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    for extra in ([], ["--json"]):
        p = subprocess.run([LPSCHED, "swf-info", "t.swf", *extra], cwd=tmp_path,
                           capture_output=True, text=True, env=env, timeout=120,
                           check=False)
        assert p.returncode == 0, p.stderr
        assert p.stderr.startswith("lpsched: note: 1 warning (first: t.swf: header MaxProcs")
        assert "Traceback" not in p.stderr and p.stderr.count("\n") == 1
    assert "machine 8 processors" in subprocess.run(
        [LPSCHED, "swf-info", "t.swf"], cwd=tmp_path, capture_output=True, text=True,
        env=env, timeout=120, check=False).stdout
