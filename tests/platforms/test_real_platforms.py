"""SimGrid's and Batsim's own platform files, through the reader and through every command.

The files are not in the repository. Point ``$LPSCHED_SIMGRID_EXAMPLES`` to SimGrid's
``examples/platforms`` folder and ``$LPSCHED_BATSIM_PLATFORMS`` to Batsim's ``platforms``
folder (``git clone https://framagit.org/simgrid/simgrid``, ``https://github.com/oar-team/
batsim``); each ``*.xml`` there (Batsim's subfolders too) becomes one test case, and the
tests skip when neither variable names a folder. Every file must read (they are SimGrid's
own), every projection must load it or refuse it with :class:`PlatformRefused`, and the
installed ``lpsched`` must answer ``batch TRACE --platform FILE``, ``ptg schedule G
--cluster FILE`` and ``generate bags --platform FILE`` with a result or one error line
(exit 2), never a traceback.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lpsched.bags.simgrid import star_from_platform
from lpsched.batch.batsim import machine_from_platform
from lpsched.platforms import PlatformRefused, read_platform
from lpsched.ptg.platforms import cluster_of
from tests.cli.test_cli_subprocess import lpsched

#: the variables naming the folders of SimGrid's and Batsim's platform files
FOLDERS = ("LPSCHED_SIMGRID_EXAMPLES", "LPSCHED_BATSIM_PLATFORMS")


def platform_files() -> list[Path]:
    """Every ``*.xml`` of the folders the variables name (none when unset)."""
    found: list[Path] = []
    for name in FOLDERS:
        folder = os.environ.get(name, "")
        if folder and Path(folder).is_dir():
            found += sorted(Path(folder).rglob("*.xml"))
    return found


FILES = platform_files()
CASES = [pytest.param(p, id=f"{p.parent.name}/{p.name}") for p in FILES] or [
    pytest.param(None, id="no-folder", marks=pytest.mark.skip(
        reason=f"set {' or '.join(FOLDERS)} to a folder of SimGrid platform files"))]

SWF = "; MaxProcs: 4\n1 0 -1 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n"
DOT = 'digraph g {\n 1 [size="2e9", alpha="0.1"];\n 2 [size="4e9", alpha="0"];\n 1 -> 2;\n}\n'


@pytest.mark.parametrize("path", CASES)
def test_every_file_reads_and_each_projection_loads_or_refuses(path: Path) -> None:
    plat = read_platform(path)
    assert plat.hosts, path
    for project in (lambda: star_from_platform(plat), lambda: machine_from_platform(plat),
                    lambda: cluster_of(plat, path.stem)):
        try:
            project()
        except PlatformRefused as exc:
            assert str(exc).startswith(f"{path}") and "not usable as" in str(exc)


@pytest.mark.parametrize("path", CASES)
def test_every_command_answers_or_refuses_in_one_line(path: Path, tmp_path: Path) -> None:
    (tmp_path / "t.swf").write_text(SWF)
    (tmp_path / "g.dot").write_text(DOT)
    for argv in (("batch", str(tmp_path / "t.swf"), "--platform", str(path), "--json"),
                 ("ptg", "schedule", str(tmp_path / "g.dot"), "--cluster", str(path),
                  "--algorithm", "selfish", "--json"),
                 ("ptg", "schedule", str(tmp_path / "g.dot"), "--platform", str(path),
                  "--algorithm", "selfish", "--json"),
                 ("generate", "bags", "--apps", "2", "--platform", str(path))):
        proc = lpsched(*argv)
        assert "Traceback" not in proc.stderr, (argv, proc.stderr[-2000:])
        assert proc.returncode in (0, 2), (argv, proc.stderr)
        if proc.returncode == 2:
            assert proc.stdout == "" and proc.stderr.startswith("lpsched: error: "), argv
            assert proc.stderr.count("\n") == 1, (argv, proc.stderr)
