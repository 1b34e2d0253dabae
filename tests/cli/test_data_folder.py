"""One way to name the traces folder for every reproduction: ``--data``,
else ``$LPSCHED_DATA``, else ``../shared/data``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lpsched.cli.common import data_file, data_folder
from lpsched.errors import ParseError


def test_explicit_then_environment_then_fallback(tmp_path, monkeypatch) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "t.swf").write_text("")
    monkeypatch.setenv("LPSCHED_DATA", str(tmp_path / "b"))
    assert data_folder(str(tmp_path / "a")) == (tmp_path / "a").resolve()
    assert data_folder(None) == (tmp_path / "b").resolve()
    assert data_file(None, "t.swf") == str((tmp_path / "b" / "t.swf").resolve())
    with pytest.raises(ParseError, match="--data: not a folder"):
        data_folder(str(tmp_path / "missing"))  # never a silent fallback
    with pytest.raises(ParseError, match=r"trace not found in .*give --trace FILE or --data"):
        data_file(str(tmp_path / "a"), "t.swf")
    monkeypatch.delenv("LPSCHED_DATA")
    monkeypatch.chdir(tmp_path / "a")
    assert data_folder(None) is None


def test_reproduce_with_a_missing_data_folder_is_one_line(tmp_path: Path) -> None:
    lpsched = Path(sys.executable).with_name("lpsched")
    for argv in (["reproduce", "ostrich"], ["reproduce", "redirection"],
                 ["reproduce", "contiguity"], ["reproduce", "topology-aware"]):
        proc = subprocess.run([str(lpsched), *argv, "--data", str(tmp_path / "none"),
                               "--out", str(tmp_path / "o")],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2 and proc.stdout == "", proc.stderr
        assert proc.stderr.count("\n") == 1 and "--data: not a folder" in proc.stderr
