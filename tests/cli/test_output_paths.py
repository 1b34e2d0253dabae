"""Every kind of output path, as the installed ``lpsched`` writes it (lpsched.cli.outputs).

A regular file, a symbolic link (to a file, dangling, looping), a special file (a device,
``/dev/full``, a FIFO): each write is checked, an output that cannot be written is one
``lpsched: error: cannot write PATH: ...`` line and exit 2 whichever command and writer met
it (HiGHS' ``writeModel`` included), the old file and the link are kept, and no temporary
file stays.
"""

from __future__ import annotations

import errno
import json
import os
import resource
import stat
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from lpsched.cli import main
from lpsched.cli.outputs import atomic_output, atomic_path
from lpsched.errors import LpschedError
from tests.cli.test_batsim_cli import SWF as BATCH_SWF
from tests.cli.test_batsim_cli import WORKLOAD
from tests.cli.test_batsim_cli import one_error as one_error_of
from tests.cli.test_cli_subprocess import LPSCHED, lpsched, one_json_object

SWF = """; MaxProcs: 8
1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 1 -1 -1
2 5 -1 50 2 -1 -1 2 60 -1 1 1 1 -1 -1 1 -1 -1
"""


def run(*argv: str, cwd: Path, preexec_fn: object = None,
        ) -> subprocess.CompletedProcess[str]:
    """The installed ``lpsched`` with ``argv``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env["LPSCHED_DEBUG"] = ""
    return subprocess.run([LPSCHED, *argv], capture_output=True, text=True, cwd=cwd,
                          timeout=300, env=env, check=False,
                          preexec_fn=preexec_fn)  # type: ignore[arg-type]


def one_error(p: subprocess.CompletedProcess[str], *words: str) -> str:
    """Exit 2, one ``lpsched: error:`` line on stderr containing ``words``; the line."""
    assert p.returncode == 2, (p.returncode, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lpsched: error:"), p.stderr
    assert "Traceback" not in p.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def no_temporary(folder: Path) -> None:
    left = [f.name for f in folder.iterdir() if f.name.endswith(".tmp") or
            f.name.startswith(".")]
    assert left == [], left


@pytest.fixture()
def work(tmp_path: Path) -> Path:
    """A folder with a bags instance (``inst.json``) and an SWF trace (``t.swf``)."""
    p = run("generate", "bags", "--apps", "3", "--workers", "2", "-o", "inst.json",
            cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    (tmp_path / "t.swf").write_text(SWF)
    return tmp_path


def _full_nodes(folder: Path) -> list[Path]:
    """Output paths that end on the full device: a symbolic link to ``/dev/full`` (any
    user), and a ``/dev/full`` node of our own made with ``mknod`` when permitted."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    link = folder / "full-link.lp"
    link.symlink_to("/dev/full")
    nodes = [link]
    node = folder / "full-node.lp"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    except (PermissionError, OSError):
        pass
    else:
        nodes.append(node)
    return nodes


def test_export_lp_onto_a_full_device_is_an_error(work: Path) -> None:
    """The write into a device is checked like any other: ENOSPC is one error line, exit 2,
    never exit 0 and "wrote the ... LP" with nothing written."""
    for node in _full_nodes(work):
        p = run("solve", "inst.json", "--export-lp", node.name, cwd=work)
        one_error(p, f"cannot write {node.name}", "No space left on device")
        assert "wrote the" not in p.stdout
        assert node.is_symlink() or stat.S_ISCHR(node.stat().st_mode)  # the node is kept
    no_temporary(work)


def test_batch_out_onto_a_full_device_is_an_error(work: Path) -> None:
    for node in _full_nodes(work):
        p = run("batch", "t.swf", "--out", node.name, cwd=work)
        one_error(p, f"cannot write {node.name}", "No space left on device")
        assert p.stdout == ""


def _reader(fifo: Path, got: list[bytes], limit: int | None = None) -> threading.Thread:
    def read() -> None:
        with open(fifo, "rb") as fh:
            got.append(fh.read(limit) if limit is not None else fh.read())

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def test_a_fifo_is_written_in_place_and_checked(work: Path) -> None:
    """A FIFO gets the whole output (the LP through HiGHS' temporary file, checked first);
    a FIFO whose reader leaves early is ``cannot write FIFO: Broken pipe``, exit 2."""
    fifo = work / "model.lp"
    os.mkfifo(fifo)
    got: list[bytes] = []
    thread = _reader(fifo, got)
    p = run("solve", "inst.json", "--export-lp", "model.lp", cwd=work)
    thread.join(60)
    assert p.returncode == 0, p.stderr
    assert "wrote the stretch-interval LP to model.lp" in p.stdout
    assert got and got[0].rstrip().endswith(b"end")
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    big = work / "big.swf"
    big.write_text("; MaxProcs: 8\n" + "".join(
        f"{j} {j * 200} -1 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 1 -1 -1\n" for j in range(1, 3001)))
    csv = work / "jobs.csv"
    os.mkfifo(csv)
    got = []
    thread = _reader(csv, got, limit=10)  # reads 10 bytes, then closes its end
    p = run("batch", "big.swf", "--out", "jobs.csv", cwd=work)
    thread.join(60)
    one_error(p, "cannot write jobs.csv", "Broken pipe")
    no_temporary(work)


LOOPING_COMMANDS = [
    ("solve", "inst.json", "--export-lp", "{out}.lp"),
    ("generate", "bags", "--apps", "2", "--workers", "2", "-o", "{out}.json"),
    ("batch", "t.swf", "--out", "{out}.csv"),
    ("convert", "t.swf", "-o", "{out}.json"),
    ("tasks", "t.swf", "-o", "{out}.json"),
    ("campaigns", "extract", "t.swf", "-o", "{out}.json"),
]


@pytest.mark.parametrize("argv", LOOPING_COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_a_symbolic_link_that_loops_is_refused_and_kept(work: Path,
                                                        argv: tuple[str, ...]) -> None:
    """``ln -s x x`` is never silently replaced by a regular file: one line naming the
    path, exit 2, the link as it was."""
    name = argv[-1].format(out="loop")
    (work / name).symlink_to(name)
    p = run(*[a.format(out="loop") for a in argv], cwd=work)
    one_error(p, name, "symbolic link that loops")
    assert (work / name).is_symlink() and os.readlink(work / name) == name
    no_temporary(work)


def test_a_loop_through_two_links_is_refused(work: Path) -> None:
    (work / "a.csv").symlink_to("b.csv")
    (work / "b.csv").symlink_to("a.csv")
    one_error(run("batch", "t.swf", "--out", "a.csv", cwd=work), "a.csv", "loops")
    assert os.readlink(work / "a.csv") == "b.csv" and os.readlink(work / "b.csv") == "a.csv"


def test_a_dangling_link_creates_its_target_and_stays(work: Path) -> None:
    """The README's rule: the link's target is written, the link kept; a dangling link
    whose target's folder exists creates the target; one whose folder is missing is an
    error naming the link and the folder, nothing created."""
    (work / "model.lp").symlink_to("made.lp")
    p = run("solve", "inst.json", "--export-lp", "model.lp", cwd=work)
    assert p.returncode == 0, p.stderr
    assert (work / "model.lp").is_symlink() and os.readlink(work / "model.lp") == "made.lp"
    assert (work / "made.lp").read_text().rstrip().endswith("end")
    (work / "jobs.csv").symlink_to("nowhere/jobs.csv")
    one_error(run("batch", "t.swf", "--out", "jobs.csv", cwd=work), "--out jobs.csv",
              "symbolic link to", "nowhere", "does not exist")
    assert not (work / "nowhere").exists() and (work / "jobs.csv").is_symlink()


def _file_size_limit(limit: int) -> object:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def test_every_output_that_cannot_be_written_exits_2(work: Path) -> None:
    """Past a file size limit (EFBIG, what a full disk does to a writer) every output exits
    2, ``--export-lp`` too (HiGHS reports it as an incomplete model, a solver error of exit
    1 were it not about the file), the old files kept."""
    (work / "model.lp").write_text("the old model\n")
    p = run("solve", "inst.json", "--export-lp", "model.lp", cwd=work,
            preexec_fn=_file_size_limit(1000))
    one_error(p, "model.lp", "incomplete")
    assert (work / "model.lp").read_text() == "the old model\n"
    big = work / "big.swf"
    big.write_text("; MaxProcs: 8\n" + "".join(
        f"{j} {j * 200} -1 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 1 -1 -1\n" for j in range(1, 201)))
    (work / "jobs.csv").write_text("old\n")
    p = run("batch", "big.swf", "--out", "jobs.csv", cwd=work,
            preexec_fn=_file_size_limit(4000))
    one_error(p, "cannot write jobs.csv", "too large")
    assert (work / "jobs.csv").read_text() == "old\n"
    no_temporary(work)


def test_atomic_path_checks_the_file_written_into_a_special_file(tmp_path: Path) -> None:
    """A library writer's file is checked whatever the output is: an incomplete PNG meant
    for ``/dev/null`` is refused; a complete one is copied into ``/dev/full``, whose
    ENOSPC is an error; no temporary stays in the system's temporary folder."""
    null = tmp_path / "null.png"
    null.symlink_to(os.devnull)
    with pytest.raises(LpschedError, match="incomplete"), atomic_path(null) as tmp:
        Path(tmp).write_bytes(b"\x89PNG\r\n\x1a\n" + b"x" * 100)
    assert not Path(tmp).exists()
    with atomic_path(null) as tmp:
        Path(tmp).write_bytes(b"\x89PNG...IEND\xaeB`\x82")
    assert not Path(tmp).exists() and null.is_symlink()
    if os.path.exists("/dev/full"):
        full = tmp_path / "full.png"
        full.symlink_to("/dev/full")
        with pytest.raises(LpschedError, match="No space left"), atomic_path(full) as tmp:
            Path(tmp).write_bytes(b"\x89PNG...IEND\xaeB`\x82")
        assert not Path(tmp).exists()


def test_atomic_output_refuses_a_loop_even_unchecked(tmp_path: Path) -> None:
    """The write itself refuses a looping link, for a command that did not call
    check_output first."""
    loop = tmp_path / "x.csv"
    loop.symlink_to("x.csv")
    with pytest.raises(LpschedError, match="loops"), atomic_output(loop) as fh:
        fh.write("never")
    assert loop.is_symlink() and sorted(f.name for f in tmp_path.iterdir()) == ["x.csv"]


def test_the_rules_are_written_in_the_module_doc() -> None:
    import lpsched.cli.outputs as outputs

    doc = " ".join((outputs.__doc__ or "").split())
    for rule in ("dangling", "loops", "Special files", "Every write is checked", "exit 2",
                 "Temporary files never stay"):
        assert rule in doc, rule
    assert sys.modules["lpsched.cli.outputs"] is outputs


# -- an output that is one of the command's inputs (decision 204) --------------------------

def write(path: Path, doc: Any) -> Path:
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return path


def run_in_process(capsys: pytest.CaptureFixture[str], *argv: Any) -> tuple[int, str, str]:
    """:func:`lpsched.cli.main` on ``argv`` in this process: (status, stdout, stderr)."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def in_process_error(capsys: pytest.CaptureFixture[str], *argv: Any) -> str:
    """Exit 2, nothing on stdout, one ``lpsched: error:`` line (returned)."""
    code, out, err = run_in_process(capsys, *argv)
    assert code == 2 and out == "", (code, out, err)
    assert err.startswith("lpsched: error: ") and err.count("\n") == 1, err
    return err


def test_convert_refuses_to_overwrite_its_input(tmp_path):
    trace = write(tmp_path / "h.swf", BATCH_SWF)
    one_error_of(lpsched("convert", str(trace), "-o", str(trace), "--to", "batsim"),
                 f"-o {trace}: the same file as the input {trace}")
    assert trace.read_text() == BATCH_SWF
    work = write(tmp_path / "w.json", WORKLOAD)
    before = work.read_text()
    one_error_of(lpsched("convert", str(work), "-o", str(work), "--to", "swf"),
                 "the same file as the input")
    assert work.read_text() == before


def test_batch_refuses_its_trace_as_out_through_a_link_or_another_spelling(tmp_path):
    trace = write(tmp_path / "h.swf", BATCH_SWF)
    link = tmp_path / "link.swf"
    link.symlink_to(trace)
    hard = tmp_path / "hard.swf"
    os.link(trace, hard)
    for out, given in ((trace, trace), (trace, link), (hard, trace),
                       (tmp_path / "." / "h.swf", trace)):
        one_error_of(lpsched("batch", str(given), "--out", str(out)),
                     f"--out {out}: the same file as the input {given}")
    assert trace.read_text() == BATCH_SWF
    one_json_object(lpsched("batch", str(trace), "--json", "--out",
                            str(tmp_path / "jobs.csv")))  # another file is fine


def test_every_command_with_an_input_and_an_output_refuses_the_same_file(tmp_path, capsys):
    trace = write(tmp_path / "t.swf", BATCH_SWF)
    named_json = write(tmp_path / "t.json", BATCH_SWF)
    xml = write(tmp_path / "p.xml", "<platform/>")
    inst = tmp_path / "inst.xml"
    for argv, option in (
            (["tasks", trace, "-o", trace], "-o"),
            (["campaigns", "extract", named_json, "-o", named_json], "-o"),
            (["generate", "bags", "--apps", "2", "--platform", xml, "-o", xml], "-o"),
            (["export", "simgrid", write(inst, "{}"), "-o", inst], "-o"),
            (["export", "simgrid", inst, "-o", tmp_path / "o.xml", "--deployment", inst],
             "--deployment")):
        err = in_process_error(capsys, *argv)
        assert f"{option} " in err and "the same file as the input" in err, err
    assert trace.read_text() == BATCH_SWF and xml.read_text() == "<platform/>"


# -- a failed write names the file and leaves nothing (decision 205) -----------------------

def full_disk(*_: Any, **__: Any) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_failed_write_names_the_file_and_leaves_nothing(tmp_path, capsys, monkeypatch):
    from lpsched.batch import batsim

    trace = write(tmp_path / "t.swf", BATCH_SWF)
    out = tmp_path / "jobs.csv"
    monkeypatch.setattr(batsim, "write_jobs_csv", full_disk)
    err = in_process_error(capsys, "batch", trace, "--out", out)
    assert err == f"lpsched: error: cannot write {out}: No space left on device\n"
    monkeypatch.setattr(batsim, "write_batsim", full_disk)
    err = in_process_error(capsys, "convert", trace, "-o", tmp_path / "w.json")
    assert f"cannot write {tmp_path / 'w.json'}: No space left on device" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.swf"]  # no temporary left


def test_a_failed_write_to_a_special_file_names_it(tmp_path, monkeypatch):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # so that opening it to write works
    try:
        with pytest.raises(LpschedError, match=f"cannot write {fifo}: No space left"), \
                atomic_output(fifo) as fh:
            assert fh.name == str(fifo)
            full_disk()
    finally:
        os.close(reader)
