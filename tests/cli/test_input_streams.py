"""Inputs that are streams, too large, or named in bytes that are not UTF-8.

* Every command that reads an SWF trace or a JSON file reads it from a pipe (``<(cat
  t.swf)``: ``/dev/fd/N``), ``/dev/stdin`` or a FIFO (lpsched.core.inputs): no reader
  rewinds its input (a reader that does fails with "File or stream is not seekable.",
  naming no file).
* A JSON input larger than the limit (``LPSCHED_MAX_JSON_BYTES``, default 256 MiB) is
  refused from its size before a byte is read (read whole, a 2 GB sparse file takes
  16-34 s and 4.2 GB); a pipe is read up to the limit and one byte.
* ``--json`` output is strict UTF-8 even for a file name that is not (``t\\xff.swf``).
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_cli_subprocess import LPSCHED

SWF = """; Version: 2.2
; MaxProcs: 8
1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 1 -1 -1
2 5 -1 50 2 -1 -1 2 60 -1 1 1 1 -1 -1 1 -1 -1
3 6 -1 30 8 -1 -1 8 60 -1 1 1 1 -1 -1 1 -1 -1
"""
BATSIM = {"nb_res": 4, "jobs": [{"id": 1, "subtime": 0, "res": 2, "walltime": 30,
                                 "profile": "d"},
                                {"id": 2, "subtime": 3, "res": 4, "walltime": 30,
                                 "profile": "d"}],
          "profiles": {"d": {"type": "delay", "delay": 12.5}}}
GIB2 = 2 * 2**30


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PYTEST") and k != "LPSCHED_MAX_JSON_BYTES"}
    env["LPSCHED_DEBUG"] = ""
    return {**env, **extra}


def run(*argv: str | bytes, cwd: Path, stdin: Any = None, pass_fds: tuple[int, ...] = (),
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """The installed ``lpsched`` with ``argv`` (bytes out: strict decoding is the test's)."""
    return subprocess.run([LPSCHED, *argv], capture_output=True, cwd=cwd, stdin=stdin,
                          pass_fds=pass_fds, timeout=300, env=env or _env(), check=False)


def piped(data: bytes, *argv: str, cwd: Path, env: dict[str, str] | None = None,
          endless: bool = False) -> subprocess.CompletedProcess[bytes]:
    """``lpsched ARGV`` with ``{}`` in ``argv`` replaced by ``/dev/fd/N``, a pipe fed
    ``data`` by a thread: what the shell's ``<(cat file)`` does. ``endless``: ``data``
    then spaces without end (only a reader that stops early can finish)."""
    r, w = os.pipe()

    def feed() -> None:
        try:
            with os.fdopen(w, "wb") as fh:
                fh.write(data)
                while endless:
                    fh.write(b" " * 65536)
        except (BrokenPipeError, ValueError):  # the reader stopped early (a refused input)
            pass

    thread = threading.Thread(target=feed, daemon=True)
    thread.start()
    try:
        return run(*[a.replace("{}", f"/dev/fd/{r}") for a in argv], cwd=cwd,
                   pass_fds=(r,), env=env)
    finally:
        os.close(r)
        thread.join(30)


def ok_json(p: subprocess.CompletedProcess[bytes]) -> Any:
    assert p.returncode == 0, p.stderr.decode(errors="replace")
    assert b"Traceback" not in p.stderr
    return json.loads(p.stdout.decode("utf-8", "strict"))


def one_error(p: subprocess.CompletedProcess[bytes], *words: str) -> str:
    text = p.stderr.decode("utf-8", "replace")
    assert p.returncode == 2, (p.returncode, text)
    lines = text.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lpsched: error:"), text
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


# --- pipes, /dev/stdin, FIFOs -----------------------------------------------------------


def test_swf_info_reads_a_pipe_plain_or_gzipped(tmp_path: Path) -> None:
    """A pipe's name says nothing (``/dev/fd/63``): gzip is recognised by its magic."""
    for data in (SWF.encode(), gzip.compress(SWF.encode())):
        out = ok_json(piped(data, "swf-info", "{}", "--json", cwd=tmp_path))
        assert out["format"] == "swf" and out["jobs"] == 3 and out["max_procs"] == 8
        assert out["trace"].startswith("/dev/fd/")


def test_swf_readers_read_standard_input_and_fifos(tmp_path: Path) -> None:
    (tmp_path / "t.swf").write_text(SWF)
    with open(tmp_path / "t.swf", "rb") as fh:
        out = ok_json(run("batch", "/dev/stdin", "--json", cwd=tmp_path, stdin=fh))
    assert out["jobs"] == 3 and out["valid"] is True
    fifo = tmp_path / "trace.fifo"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "wb") as fh:
            fh.write(SWF.encode())

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    out = ok_json(run("swf-info", str(fifo), "--json", cwd=tmp_path))
    thread.join(30)
    assert out["jobs"] == 3


@pytest.mark.parametrize("argv, check", [
    (("tasks", "{}", "--json", "-o", "inst.json"), "inst.json"),
    (("campaigns", "extract", "{}", "-o", "camp.json"), "camp.json"),
    (("convert", "{}", "-o", "w.json"), "w.json"),
    (("batch", "{}", "--out", "jobs.csv"), "jobs.csv"),
], ids=lambda v: v[0] if isinstance(v, tuple) else "")
def test_every_swf_command_reads_a_pipe(tmp_path: Path, argv: tuple[str, ...],
                                        check: str) -> None:
    p = piped(SWF.encode(), *argv, cwd=tmp_path)
    assert p.returncode == 0, p.stderr.decode()
    assert b"not seekable" not in p.stderr and (tmp_path / check).stat().st_size > 0


def test_json_commands_read_a_pipe(tmp_path: Path) -> None:
    """Batsim workloads (recognised in a pipe by their ``{``), instances, job lists."""
    data = json.dumps(BATSIM).encode()
    for argv in (("swf-info", "{}", "--json"), ("batch", "{}", "--json")):
        out = ok_json(piped(data, *argv, cwd=tmp_path))
        assert out["format"] == "batsim" and out["jobs"] == 2
    p = piped(data, "convert", "{}", "-o", "back.swf", cwd=tmp_path)
    assert p.returncode == 0, p.stderr.decode()
    assert (tmp_path / "back.swf").read_text().count("\n") >= 2
    out = ok_json(piped(b'{"times": [3, 2, 1], "machines": 2}', "approx", "identical",
                        "{}", "--json", cwd=tmp_path))
    assert out["makespan"] == 3.0
    gen = run("generate", "bags", "--apps", "2", "--workers", "2", "-o", "i.json",
              cwd=tmp_path)
    assert gen.returncode == 0
    out = ok_json(piped((tmp_path / "i.json").read_bytes(), "solve", "{}", "--json",
                        cwd=tmp_path))
    assert out["stretch"] > 0
    gen = run("campaigns", "generate", "--users", "3", "--jobs", "20", "-o", "c.json",
              cwd=tmp_path)
    assert gen.returncode == 0, gen.stderr
    out = ok_json(piped((tmp_path / "c.json").read_bytes(), "campaigns", "run", "{}",
                        "--json", cwd=tmp_path))
    assert out["valid"] is True


def test_a_stream_error_names_the_stream(tmp_path: Path) -> None:
    one_error(piped(b"", "swf-info", "{}", cwd=tmp_path), "/dev/fd/", "empty file")
    one_error(piped(b"1 2 3\n", "swf-info", "{}", cwd=tmp_path), "/dev/fd/",
              "expected 18 fields")
    one_error(piped(b'{"a": 1}', "batch", "{}", cwd=tmp_path), "/dev/fd/",
              "not a Batsim workload")


# --- the size of a JSON input -----------------------------------------------------------


def _sparse(path: Path, size: int) -> Path:
    with open(path, "wb") as fh:
        fh.truncate(size)
    return path


@pytest.mark.parametrize("argv", [
    ("swf-info", "big.json"), ("batch", "big.json", "--json"),
    ("convert", "big.json", "-o", "x.swf"), ("approx", "identical", "big.json"),
    ("campaigns", "run", "big.json"), ("solve", "big.json"), ("simulate", "big.json"),
    ("online", "big.json"), ("ptg", "schedule", "big.json", "--cluster", "8"),
], ids=lambda a: " ".join(a[:2]))
def test_a_2_gb_json_file_is_refused_before_it_is_read(tmp_path: Path,
                                                       argv: tuple[str, ...]) -> None:
    _sparse(tmp_path / "big.json", GIB2)
    t0 = time.perf_counter()
    p = run(*argv, cwd=tmp_path)
    assert time.perf_counter() - t0 < 20  # was 16-34 s and 4.2 GB, reading it whole
    one_error(p, "big.json", f"{GIB2:,} bytes", "268,435,456 bytes", "LPSCHED_MAX_JSON_BYTES")


def test_the_json_limit_is_set_by_the_environment(tmp_path: Path) -> None:
    (tmp_path / "w.json").write_text(json.dumps(BATSIM))
    size = (tmp_path / "w.json").stat().st_size
    one_error(run("swf-info", "w.json", cwd=tmp_path,
                  env=_env(LPSCHED_MAX_JSON_BYTES=str(size - 1))),
              "w.json", f"{size:,} bytes", f"{size - 1:,} bytes")
    ok_json(run("swf-info", "w.json", "--json", cwd=tmp_path,
                env=_env(LPSCHED_MAX_JSON_BYTES=str(size))))
    one_error(run("swf-info", "w.json", cwd=tmp_path,
                  env=_env(LPSCHED_MAX_JSON_BYTES="lots")),
              "LPSCHED_MAX_JSON_BYTES", "whole number of bytes")


def test_a_pipe_is_read_up_to_the_limit_and_one_byte(tmp_path: Path) -> None:
    """The refusal comes after limit + 1 bytes of a pipe that never ends (read whole, it
    would never finish), and exactly the limit is accepted."""
    p = piped(json.dumps(BATSIM).encode(), "batch", "{}", cwd=tmp_path,
              env=_env(LPSCHED_MAX_JSON_BYTES="1000"), endless=True)
    one_error(p, "/dev/fd/", "more than 1,000 bytes", "LPSCHED_MAX_JSON_BYTES")
    exact = json.dumps(BATSIM).encode()
    ok_json(piped(exact, "batch", "{}", "--json", cwd=tmp_path,
                  env=_env(LPSCHED_MAX_JSON_BYTES=str(len(exact)))))


def test_the_limit_is_documented() -> None:
    p = run("--help", cwd=Path.cwd())
    text = " ".join(p.stdout.decode().split())
    assert "LPSCHED_MAX_JSON_BYTES" in text and "268,435,456" in text
    readme = Path(__file__).resolve().parents[2] / "README.md"
    if readme.exists():
        assert "LPSCHED_MAX_JSON_BYTES" in readme.read_text()


# --- names that are not UTF-8 in --json ------------------------------------------------


def _strict(stdout: bytes) -> Any:
    """The JSON value of ``stdout`` decoded as strict UTF-8, with no lone surrogate."""
    text = stdout.decode("utf-8", "strict")
    data = json.loads(text)

    def walk(v: Any) -> None:
        if isinstance(v, str):
            v.encode("utf-8", "strict")  # a lone surrogate raises
        elif isinstance(v, dict):
            for k, x in v.items():
                walk(k)
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(data)
    assert "\\ud" not in text.lower()  # no escaped surrogate either
    return data


def test_json_output_is_strict_utf8_for_a_name_that_is_not(tmp_path: Path) -> None:
    name = b"t\xff.swf"
    try:
        (tmp_path / os.fsdecode(name)).write_text(SWF)
    except (OSError, UnicodeError):
        pytest.skip("the file system refuses names that are not UTF-8")
    out = _strict(run("swf-info", name, "--json", cwd=tmp_path).stdout)
    assert out["trace"] == out["source"] == "t\\xff.swf"
    out = _strict(run("batch", name, "--json", cwd=tmp_path).stdout)
    assert out["trace"] == "t\\xff.swf"
    out = _strict(run("convert", name, "-o", b"o\xfe.json", "--json", cwd=tmp_path).stdout)
    assert (out["input"], out["output"]) == ("t\\xff.swf", "o\\xfe.json")
    assert "t\\xff.swf" in _strict((tmp_path / os.fsdecode(b"o\xfe.json")).read_bytes())[
        "description"]  # the workload written names its source, escaped too
    out = _strict(run("campaigns", "extract", name, "-o", "c.json", "--json",
                      cwd=tmp_path).stdout)
    assert out["trace"] == "t\\xff.swf"
    assert _strict((tmp_path / "c.json").read_bytes())["source"] == "t\\xff.swf"  # the file
