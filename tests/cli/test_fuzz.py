"""Fuzz the command line with malformed instances and SWF traces.

Each example takes a small valid input, applies one to three mutations (a number replaced by
0, -1, 1e-308, 1e308, 1e400, NaN, a boolean, a string, null; a key deleted or added; a list
element wrapped into a list; a list shortened or lengthened; for SWF: a field replaced by
garbage, odd processor counts and ids, absurd header values, truncated or fake gzip,
non-UTF-8 bytes, an empty file, a file in which no job is kept) and runs the commands on
it. Every run must end, within ``RUN_TIMEOUT`` seconds, in one of:

* exit 0, stdout one JSON value with finite numbers only (no ``NaN``/``Infinity``), and on
  stderr nothing or the CLI's one ``lpsched: note: ...`` line summing up warnings;
* exit 1 or 2, exactly one line on stderr starting with ``lpsched: error:``, no
  ``Traceback``, and stdout empty or one finite JSON value; never an invalid schedule (a
  schedule of an instance the loader accepted that fails the independent check).

Anything else fails: another exit status (e.g. the CLI's ``internal error`` status 3; the
report then shows the traceback of a second run with ``LPSCHED_DEBUG=1``), an exception
escaping :func:`lpsched.cli.main`, a time-out, a signal.

Where the runs happen:

* instance commands and ``swf-info`` call :func:`lpsched.cli.main` in this process (fast;
  ``capsys`` captures; ``SIGALRM`` bounds the run, the address space may grow by at most
  ``MEMORY_LIMIT`` meanwhile, and ``faulthandler`` ends the session, stacks on stderr, if a
  run is stuck in compiled code where SIGALRM cannot interrupt it);
* ``batch`` runs in a child forked from a warm helper process whose address space is capped
  at ``MEMORY_LIMIT`` (a trace header with an absurd machine size must not take the machine
  down); the child has real file descriptors and is killed at the time bound;
* a few examples run the installed ``lpsched`` console script, as users do.

The examples are deterministic: hypothesis is derandomised, with no example database and no
shrinking (the inputs are one to three mutations of a tiny file already; a failing example
is printed as a ``Case`` that can be pasted into an ``@example``). The module runs in
well under a minute on two cores when every run passes.
"""

from __future__ import annotations

import contextlib
import copy
import faulthandler
import gzip
import json
import math
import os
import resource
import selectors
import signal
import subprocess
import sys
import time
import traceback
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, example, given, note, settings
from hypothesis import strategies as st

from lpsched.bags import instance_to_dict, random_bags
from lpsched.cli import main

RUN_TIMEOUT = 20.0  # seconds per run
HARD_TIMEOUT = 60.0  # in-process run stuck in compiled code: dump the stacks and exit
MEMORY_LIMIT = 2 << 30  # bytes of address space for batch runs and subprocesses
_PROFILE_SCALE = max(1, settings.default.max_examples // 40)  # the 'thorough' profile: more

FUZZ = settings(
    derandomize=True, database=None, deadline=None, phases=(Phase.explicit, Phase.generate),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                           HealthCheck.filter_too_much],
)

# --------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------


def _bases() -> dict[str, dict[str, Any]]:
    one = instance_to_dict(random_bags(4, 3, seed=1))
    multi = instance_to_dict(random_bags(4, 3, seed=2, port="multiport"))
    rows = copy.deepcopy(one)  # per-application speeds: the list-of-lists form of the format
    rows["platform"]["speeds"] = [[s * (1 + k / 4) for s in one["platform"]["speeds"]]
                                  for k in range(4)]
    return {"one-port": one, "multiport": multi, "one-port-rows": rows}


BASES = _bases()

INSTANCE_COMMANDS = {
    "solve": ["solve", "{path}", "--json", "--time-limit", "5"],
    "throughput": ["throughput", "{path}", "--json"],
    "simulate": ["simulate", "{path}", "--policy", "spt-mct,cbs3m-edf-online", "--json"],
    "schedule": ["schedule", "{path}", "--json"],  # + --model bmp-ac on a multiport base
}

SWF_COMMANDS = {
    "swf-info": ["swf-info", "{path}", "--json"],
    "batch-easy": ["batch", "{path}", "--policy", "easy", "--json"],
    "batch-conservative": ["batch", "{path}", "--policy", "conservative", "--json"],
}

SWF_HEADER = ["; Version: 2.2", "; MaxProcs: 8"]
SWF_ROWS = [
    "1 0 0 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 1 -1 -1".split(),
    "2 5 0 50 2 -1 -1 2 60 -1 1 1 1 -1 -1 1 -1 -1".split(),
    "3 6 0 30 8 -1 -1 8 60 -1 1 1 1 -1 -1 1 -1 -1".split(),
    "4 9 0 20 1 -1 -1 1 60 -1 1 1 1 -1 -1 1 -1 -1".split(),
]
# SWF columns (0-based): 0 job id, 1 submit, 2 wait, 3 run, 4 allocated processors,
# 7 requested processors, 8 requested time.
SWF_COLUMNS = (0, 1, 2, 3, 4, 7, 8, 10)

# JSON literals written by hand: some are out of float range or not JSON at all (NaN).
HUGE_INT = "1" + "0" * 400  # a JSON integer no float can hold
JSON_LITERALS = [
    "0", "-1", "1e-308", "5e-324", "1e308", "1e400", "-1e400", HUGE_INT, "NaN",
    "Infinity", "-Infinity", "true", "false", '"abc"', '"1"', "null", "0.5", "2.5", "1e9",
    "-0.0", "1e30", "[]", "{}", '"one-port"', '"multiport"',
]
ADDED_KEYS = ["bogus", "speeds", "tasks", "port", "master_bandwidth", ""]
INSTANCE_FILE_EDITS = ["empty", "truncated", "nested", "nested-value", "non-utf8",
                       "latin1-string", "utf16", "bom", "trailing-garbage", "root-list",
                       "root-number"]

SWF_VALUES = [
    "abc", "", "1e400", "nan", "inf", "-inf", "0", "-1", "-5", "0.5", "2.5", "1e18", "1e30",
    "1e308", "-1e308", "1e-308", "9", "+3", "0x10", "1_0", "\u0663", "-0",
]
HEADER_KEYS = ["MaxProcs", "MaxNodes", "MaxJobs", "UnixStartTime", "Version"]
HEADER_VALUES = ["1e18", "1e9", "1e8", "nan", "inf", "-inf", "-1", "0", "0.5", "abc", "",
                 "1e400", "9", "1", "8 16", "1e308", "2.5"]
RAW_LINES = ["garbage", "\udcff\udcfe", "1 2 3", ";", "; : x", "\t", ";MaxProcs:4",
             " ".join(["1"] * 19), "\x00"]
SWF_FILE_EDITS = ["empty", "headers-only", "no-job-kept", "non-utf8", "crlf", "bom", "nul",
                  "no-trailing-newline"]
CONTAINERS = ["plain", "plain", "plain", "gz", "gz-truncated", "fake-gz", "gz-empty",
              "gz-trailing-garbage"]


@dataclass(frozen=True)
class Raw:
    """JSON text written verbatim into the document (e.g. ``1e400``, ``NaN``)."""

    text: str


@dataclass(frozen=True)
class InstanceCase:
    """A base instance and the edits applied to it, in order.

    Edits: ``("replace", path, literal)``, ``("delete", path)``, ``("add", path, key,
    literal)``, ``("wrap", path)``, ``("duplicate", path)`` (append a copy of a list's last
    element), ``("shorten", path)`` (drop a list's last element), ``("file", kind)``.
    A path is a tuple of keys and indices from the root.
    """

    base: str
    edits: tuple[tuple[Any, ...], ...]


@dataclass(frozen=True)
class SwfCase:
    """The inline SWF trace, edits in order, then the container (plain, gz, ...).

    Edits: ``("field", row, column, text)``, ``("header", key, value)``,
    ``("del-header", key)``, ``("drop-field", row)``, ``("extra-field", row)``,
    ``("delete-row", row)``, ``("duplicate-row", row)``, ``("line", position, text)``,
    ``("file", kind)``.
    """

    edits: tuple[tuple[Any, ...], ...]
    container: str = "plain"


def _emit(node: Any) -> str:
    if isinstance(node, Raw):
        return node.text
    if isinstance(node, dict):
        return "{" + ", ".join(f"{json.dumps(k)}: {_emit(v)}" for k, v in node.items()) + "}"
    if isinstance(node, list):
        return "[" + ", ".join(_emit(v) for v in node) + "]"
    return json.dumps(node, allow_nan=False)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every (path, node) below the root, depth first."""
    items: Any = ()
    if isinstance(node, dict):
        items = node.items()
    elif isinstance(node, list):
        items = enumerate(node)
    for key, child in items:
        yield (*prefix, key), child
        yield from _paths(child, (*prefix, key))


def _get(doc: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def _apply_instance_edit(doc: Any, edit: tuple[Any, ...]) -> Any:
    kind = edit[0]
    if kind == "file":
        return doc
    path = edit[1]
    parent = _get(doc, path[:-1]) if path else None
    if kind == "replace":
        parent[path[-1]] = Raw(edit[2])
    elif kind == "delete":
        del parent[path[-1]]
    elif kind == "add":
        _get(doc, path)[edit[2]] = Raw(edit[3])
    elif kind == "wrap":
        parent[path[-1]] = [parent[path[-1]]]
    elif kind == "duplicate":
        target = _get(doc, path)
        target.append(copy.deepcopy(target[-1]))
    elif kind == "shorten":
        _get(doc, path).pop()
    else:  # pragma: no cover - a typo in an @example
        raise ValueError(f"unknown edit {edit!r}")
    return doc


def _instance_file_edit(text: str, kind: str) -> bytes:
    data = text.encode()
    if kind == "empty":
        return b""
    if kind == "truncated":
        return data[: len(data) // 2]
    if kind == "nested":
        return b"[" * 100_000 + b"]" * 100_000
    if kind == "nested-value":
        return data[:-1] + b', "deep": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    if kind == "non-utf8":
        return b"\xff\xfe" + data
    if kind == "latin1-string":
        return data.replace(b'"port": "', b'"port": "\xe9', 1)
    if kind == "utf16":
        return text.encode("utf-16")
    if kind == "bom":
        return b"\xef\xbb\xbf" + data
    if kind == "trailing-garbage":
        return data + b" }"
    if kind == "root-list":
        return b"[" + data + b"]"
    if kind == "root-number":
        return b"1e400"
    raise ValueError(f"unknown file edit {kind!r}")  # pragma: no cover


def render_instance(case: InstanceCase) -> bytes:
    doc = copy.deepcopy(BASES[case.base])
    for edit in case.edits:
        doc = _apply_instance_edit(doc, edit)
    data = _emit(doc).encode()
    for edit in case.edits:
        if edit[0] == "file":
            data = _instance_file_edit(data.decode("utf-8", "surrogateescape"), edit[1])
    return data


def render_swf(case: SwfCase) -> tuple[bytes, str]:
    """The file's bytes and its suffix (``.swf`` or ``.swf.gz``)."""
    header = list(SWF_HEADER)
    rows: list[list[str] | str] = [list(r) for r in SWF_ROWS]  # str: a raw line
    tail: list[str] = []
    whole: list[str] = []
    for edit in case.edits:
        kind = edit[0]
        jobs = [r for r in rows if isinstance(r, list)]
        if kind == "field" and jobs:
            row = jobs[edit[1] % len(jobs)]
            row[edit[2] % len(row)] = edit[3]
        elif kind == "header":
            line = f"; {edit[1]}: {edit[2]}"
            at = [i for i, h in enumerate(header) if h.startswith(f"; {edit[1]}:")]
            if at:
                header[at[0]] = line
            else:
                header.append(line)
        elif kind == "del-header":
            header = [h for h in header if not h.startswith(f"; {edit[1]}:")]
        elif kind == "drop-field" and jobs:
            jobs[edit[1] % len(jobs)].pop()
        elif kind == "extra-field" and jobs:
            jobs[edit[1] % len(jobs)].append("1")
        elif kind == "delete-row" and rows:
            del rows[edit[1] % len(rows)]
        elif kind == "duplicate-row" and jobs:
            rows.append(list(jobs[edit[1] % len(jobs)]))
        elif kind == "line":
            rows.insert(edit[1] % (len(rows) + 1), edit[2])
        elif kind == "file":
            whole.append(edit[1])
    if "no-job-kept" in whole:
        for r in rows:
            if isinstance(r, list) and len(r) > 3:
                r[3] = "-1"  # no run time: every job is dropped
    if "headers-only" in whole:
        rows = []
    lines = header + [r if isinstance(r, str) else "   ".join(r) for r in rows] + tail
    text = "\n".join(lines) + "\n"
    data = text.encode("utf-8", "surrogateescape")
    for kind in whole:
        if kind == "empty":
            data = b""
        elif kind == "non-utf8":
            data = data.replace(b"Version", b"Ver\xe9sion").replace(b" 60 ", b" 6\xff0 ", 1)
        elif kind == "crlf":
            data = data.replace(b"\n", b"\r\n")
        elif kind == "bom":
            data = b"\xef\xbb\xbf" + data
        elif kind == "nul":
            data = data.replace(b" 50 ", b" 5\x000 ", 1)
        elif kind == "no-trailing-newline":
            data = data.rstrip(b"\n")
    if case.container == "plain":
        return data, ".swf"
    packed = gzip.compress(data, mtime=0)
    if case.container == "gz-truncated":
        packed = packed[: max(1, len(packed) // 2)]
    elif case.container == "fake-gz":
        packed = data
    elif case.container == "gz-empty":
        packed = b""
    elif case.container == "gz-trailing-garbage":
        packed = packed + b"garbage"
    return packed, ".swf.gz"


# --------------------------------------------------------------------------------------
# Strategies
# --------------------------------------------------------------------------------------


@st.composite
def instance_cases(draw: st.DrawFn) -> InstanceCase:
    base = draw(st.sampled_from(sorted(BASES)))
    doc = copy.deepcopy(BASES[base])
    edits: list[tuple[Any, ...]] = []
    for _ in range(draw(st.integers(1, 3))):
        nodes = [(p, n) for p, n in _paths(doc) if not isinstance(n, Raw)]
        kind = draw(st.sampled_from(["replace"] * 6 + ["delete", "add", "wrap", "resize",
                                                       "file"]))
        lists = [p for p, n in nodes if isinstance(n, list) and n]
        if not nodes or (kind == "resize" and not lists):
            kind = "file"
        if kind == "file":
            edits.append(("file", draw(st.sampled_from(INSTANCE_FILE_EDITS))))
            break  # a whole-file edit makes further edits moot
        if kind in ("replace", "delete", "wrap"):
            path, _ = draw(st.sampled_from(nodes))
            edit: tuple[Any, ...] = ((kind, path, draw(st.sampled_from(JSON_LITERALS)))
                                     if kind == "replace" else (kind, path))
        elif kind == "add":
            dicts = [()] + [p for p, n in nodes if isinstance(n, dict)]
            edit = ("add", draw(st.sampled_from(dicts)), draw(st.sampled_from(ADDED_KEYS)),
                    draw(st.sampled_from(JSON_LITERALS)))
        else:
            edit = (draw(st.sampled_from(["duplicate", "shorten"])),
                    draw(st.sampled_from(lists)))
        doc = _apply_instance_edit(doc, edit)
        edits.append(edit)
    return InstanceCase(base, tuple(edits))


@st.composite
def swf_cases(draw: st.DrawFn) -> SwfCase:
    edits: list[tuple[Any, ...]] = []
    row = st.integers(0, len(SWF_ROWS) - 1)
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["field"] * 4 + ["id"] + ["header"] * 2 + [
            "del-header", "drop-field", "extra-field", "delete-row", "duplicate-row", "line",
            "file"]))
        if kind == "field":
            edit: tuple[Any, ...] = ("field", draw(row), draw(st.sampled_from(SWF_COLUMNS)),
                                     draw(st.sampled_from(SWF_VALUES)))
        elif kind == "id":  # a duplicate id
            edit = ("field", draw(row), 0, str(draw(st.integers(1, len(SWF_ROWS)))))
        elif kind == "header":
            edit = ("header", draw(st.sampled_from(HEADER_KEYS)),
                    draw(st.sampled_from(HEADER_VALUES)))
        elif kind == "del-header":
            edit = ("del-header", "MaxProcs")
        elif kind == "line":
            edit = ("line", draw(st.integers(0, len(SWF_ROWS))), draw(st.sampled_from(RAW_LINES)))
        elif kind == "file":
            edit = ("file", draw(st.sampled_from(SWF_FILE_EDITS)))
        else:
            edit = (kind, draw(row))
        edits.append(edit)
    return SwfCase(tuple(edits), draw(st.sampled_from(CONTAINERS)))


# --------------------------------------------------------------------------------------
# Running a command and judging the outcome
# --------------------------------------------------------------------------------------


@dataclass
class Outcome:
    argv: list[str]
    code: int | None  # None: no exit status (time-out, killed by a signal)
    out: str
    err: str
    seconds: float
    where: str  # in-process, fork, subprocess
    escaped: str = ""  # in-process: the exception that escaped main(), with its traceback
    timed_out: bool = False
    signal: int | None = None
    detail: str = ""  # where a time-out struck; the traceback behind an internal error


class _RunTimeout(BaseException):
    """Raised by SIGALRM in an in-process run; a BaseException so ``except Exception``
    in the code under test cannot swallow it."""


def _on_alarm(signum: int, frame: Any) -> None:
    raise _RunTimeout


def _show_warning(message: Any, category: Any, filename: str, lineno: int,
                  file: Any = None, line: str | None = None) -> None:
    sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


@contextlib.contextmanager
def _as_a_fresh_process() -> Iterator[None]:
    """Warnings as a user sees them (printed on stderr, Python's default filters, every
    occurrence), not as pytest records them."""
    with warnings.catch_warnings():
        warnings.resetwarnings()
        warnings.simplefilter("always")
        for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning,
                         ResourceWarning):
            warnings.filterwarnings("ignore", category=category)
        warnings.showwarning = _show_warning
        yield


@contextlib.contextmanager
def _environ(extra: dict[str, str]) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in extra}
    os.environ.update(extra)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@contextlib.contextmanager
def _address_space_cap() -> Iterator[None]:
    """At most ``MEMORY_LIMIT`` more bytes of address space for this process while a run
    lasts (an allocation past it raises MemoryError instead of exhausting the machine)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    try:
        with open("/proc/self/status") as fh:
            size = next(int(ln.split()[1]) * 1024 for ln in fh if ln.startswith("VmSize:"))
    except (OSError, StopIteration, ValueError, IndexError):
        yield  # not Linux: no cap
        return
    cap = size + MEMORY_LIMIT
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def run_in_process(capsys: pytest.CaptureFixture[str], argv: list[str], stuck: Any,
                   env: dict[str, str] | None = None) -> Outcome:
    """``main(argv)`` here; ``stuck``: where faulthandler reports a run stuck in compiled
    code (which SIGALRM cannot interrupt) before it ends the session."""
    capsys.readouterr()
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    faulthandler.dump_traceback_later(HARD_TIMEOUT, exit=True, file=stuck)
    code: int | None = None
    escaped = detail = ""
    timed_out = False
    start = time.monotonic()
    try:
        signal.setitimer(signal.ITIMER_REAL, RUN_TIMEOUT)
        try:
            with _as_a_fresh_process(), _environ(env or {}), _address_space_cap():
                code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except _RunTimeout as exc:
            timed_out = True
            detail = "".join(traceback.format_tb(exc.__traceback__)[-6:])
        except Exception as exc:
            escaped = "".join(traceback.format_exception(exc))
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        faulthandler.cancel_dump_traceback_later()
    seconds = time.monotonic() - start
    captured = capsys.readouterr()
    return Outcome(argv, code, captured.out, captured.err, seconds, "in-process", escaped,
                   timed_out, detail=detail)


def _limit_memory() -> None:  # runs in the child, before exec
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"  # a single-threaded helper forks safely; also less memory
    return env


def lpsched_script() -> str:
    script = Path(sys.executable).with_name("lpsched")
    if not script.exists():
        pytest.fail(f"the 'lpsched' console script is not installed next to {sys.executable}")
    return str(script)


def run_subprocess(argv: list[str], env: dict[str, str] | None = None) -> Outcome:
    """The installed console script, memory-capped, killed (with its group) at the bound."""
    start = time.monotonic()
    proc = subprocess.Popen([lpsched_script(), *argv], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**_child_env(), **(env or {})}, preexec_fn=_limit_memory,
                            start_new_session=True)
    timed_out = False
    try:
        out, err = proc.communicate(timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        timed_out = True
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
    code = proc.returncode
    sig = -code if code is not None and code < 0 else None
    return Outcome(argv, None if timed_out or sig else code,
                   out.decode("utf-8", "backslashreplace"),
                   err.decode("utf-8", "backslashreplace"), time.monotonic() - start,
                   "subprocess", timed_out=timed_out, signal=sig)


# The helper process: imports lpsched once (single-threaded, address space capped), then
# forks one child per request. The child points file descriptors 1 and 2 at files, runs
# main() as the console script would (an uncaught exception prints its traceback, exit 1),
# and the helper kills it at the time bound.
_FORKSERVER = r"""
import json, os, signal, sys, time, traceback
import lpsched.cli
import lpsched.cli.batch, lpsched.batch.simulator, lpsched.core.swf

def child(argv, out, err, env):
    code = 1
    try:
        os.environ.update(env)
        for fd, name in ((1, out), (2, err)):
            f = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(f, fd)
            os.close(f)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        try:
            code = lpsched.cli.main(argv)
        except SystemExit as exc:
            if exc.code is None:
                code = 0
            elif isinstance(exc.code, int):
                code = exc.code
            else:
                print(exc.code, file=sys.stderr)
                code = 1
        except BaseException:
            traceback.print_exc()
            code = 1
        try:
            sys.stdout.flush()
        except BaseException:
            traceback.print_exc()
            code = 120
        sys.stderr.flush()
    finally:
        os._exit(code if isinstance(code, int) else 1)

proto_in = sys.stdin.buffer
proto_out = os.fdopen(os.dup(1), "wb")
for line in proto_in:
    req = json.loads(line)
    out, err = req["out"], req["err"]
    sys.stdout.flush(); sys.stderr.flush()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        child(req["argv"], out, err, req["env"])
    timed_out, delay = False, 0.001
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() - start > req["timeout"]:
            timed_out = True
            os.kill(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
            break
        time.sleep(delay)
        delay = min(delay * 2, 0.02)
    seconds = time.monotonic() - start
    res = {"seconds": seconds, "timed_out": timed_out,
           "code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
           "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None}
    for key, name in (("out", out), ("err", err)):
        with open(name, "rb") as fh:
            res[key] = fh.read(1 << 20).decode("utf-8", "backslashreplace")
    proto_out.write(json.dumps(res).encode() + b"\n")
    proto_out.flush()
"""


class ForkServer:
    """Runs ``lpsched`` commands in memory-capped children of one warm helper process."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.proc: subprocess.Popen[bytes] | None = None

    def _start(self) -> subprocess.Popen[bytes]:
        log = open(self.workdir / "forkserver.log", "ab")
        try:
            return subprocess.Popen([sys.executable, "-c", _FORKSERVER],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                                    env=_child_env(), preexec_fn=_limit_memory,
                                    start_new_session=True)
        finally:
            log.close()

    def run(self, argv: list[str], env: dict[str, str] | None = None) -> Outcome:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = self._start()
        assert self.proc.stdin is not None and self.proc.stdout is not None
        req = {"argv": argv, "env": env or {}, "timeout": RUN_TIMEOUT,
               "out": str(self.workdir / "stdout"), "err": str(self.workdir / "stderr")}
        start = time.monotonic()
        self.proc.stdin.write(json.dumps(req).encode() + b"\n")
        self.proc.stdin.flush()
        with selectors.DefaultSelector() as sel:
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            ready = sel.select(timeout=RUN_TIMEOUT + 30)
        line = self.proc.stdout.readline() if ready else b""
        if not line:  # the helper itself died or is stuck: start a new one next time
            self.close()
            return Outcome(argv, None, "", "", time.monotonic() - start, "fork",
                           escaped="the fork-server helper died or stopped answering")
        res = json.loads(line)
        return Outcome(argv, res["code"] if not res["timed_out"] else None, res["out"],
                       res["err"], res["seconds"], "fork", timed_out=res["timed_out"],
                       signal=None if res["timed_out"] else res["signal"])

    def close(self) -> None:
        if self.proc is None:
            return
        with contextlib.suppress(OSError):
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=RUN_TIMEOUT + 5)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self.proc = None


def _finite_json(text: str) -> str:
    """'' if ``text`` is one JSON value with finite numbers only, else what is wrong."""

    def constant(name: str) -> Any:
        raise ValueError(f"non-finite token {name}")

    def number(token: str) -> float:
        value = float(token)
        if not math.isfinite(value):
            raise ValueError(f"number {token} is out of the float range")
        return value

    try:
        json.loads(text, parse_constant=constant, parse_float=number)
    except RecursionError:
        return "nested too deep to parse"
    except ValueError as exc:
        return str(exc)
    return ""


class FuzzFailure(AssertionError):
    """A run ended outside the accepted outcomes. One subclass per kind, so that hypothesis
    reports each kind found among the explicit examples, not only the first."""


class Hang(FuzzFailure):
    """No answer within ``RUN_TIMEOUT``."""


class Crash(FuzzFailure):
    """A traceback (an exception escaping ``main``, or on stderr) or a fatal signal."""


class WrongExitStatus(FuzzFailure):
    """An exit status other than 0, 1, 2 (e.g. the CLI's internal-error status)."""


class InvalidSchedule(FuzzFailure):
    """A schedule of an instance the loader accepted failed the independent check."""


class BadStdout(FuzzFailure):
    """Stdout is not one JSON value with finite numbers only."""


class BadStderr(FuzzFailure):
    """Stderr is not what the exit status promises: one ``lpsched: error:`` line after a
    failure, nothing or one ``lpsched: note:`` line after a success."""


def _one_line_starting(text: str, prefix: str) -> bool:
    lines = text.split("\n")
    return text.endswith("\n") and len(lines) == 2 and lines[0].startswith(prefix)


def problems(o: Outcome) -> list[tuple[type[FuzzFailure], str]]:
    """What is wrong with a run (empty: it is one of the accepted outcomes)."""
    if o.timed_out:
        return [(Hang, f"no answer within {RUN_TIMEOUT:.0f} s (hang or runaway)")]
    if o.escaped:
        last = o.escaped.strip().splitlines()[-1]
        return [(Crash, f"exception escaped main(): {last}")]
    if o.signal is not None:
        return [(Crash, f"killed by signal {o.signal} ({signal.Signals(o.signal).name})")]
    if "Traceback" in o.err:
        lines = [ln for ln in o.err.strip().splitlines() if ln.strip()]
        return [(Crash, f"exit {o.code} with a traceback on stderr: "
                        f"{lines[-1] if lines else ''}")]
    found: list[tuple[type[FuzzFailure], str]] = []
    if o.code == 0:
        bad = _finite_json(o.out)
        if bad:
            found.append((BadStdout, f"exit 0 but stdout is not one finite JSON value: {bad}"))
        if o.err and not _one_line_starting(o.err, "lpsched: note:"):
            # the CLI's contract: nothing, or one line summing up the warnings
            found.append((BadStderr, "exit 0 but stderr is more than one 'lpsched: note:' "
                                     f"line: {o.err.strip()[:300]!r}"))
    elif o.code in (1, 2):
        if "invalid schedule" in o.err or "schedule is invalid" in o.err:
            # an instance the loader accepted must get valid schedules: a rejected one means
            # the producer or the independent check is wrong (the bounded-master bug class)
            found.append((InvalidSchedule, f"exit {o.code}, a schedule of an accepted "
                                           f"instance failed its check: {o.err.strip()[:300]!r}"))
        if not _one_line_starting(o.err, "lpsched: error:"):
            found.append((BadStderr, f"exit {o.code} but stderr is not one 'lpsched: error:' "
                                     f"line: {o.err.strip()[:300]!r}"))
        bad = _finite_json(o.out) if o.out.strip() else ""
        if bad:
            found.append((BadStdout, f"exit {o.code} with stdout that is not one finite JSON "
                                     f"value: {bad}"))
    else:
        found.append((WrongExitStatus, f"exit status {o.code} (expected 0, 1 or 2): "
                                       f"{o.err.strip()[:300]!r}"))
    return found


def _describe(o: Outcome, input_file: Path) -> str:
    shown = input_file.read_bytes()
    return (f"lpsched {' '.join(o.argv)}   [{o.where}, {o.seconds:.2f} s]\n"
            f"input {input_file.name} ({len(shown)} bytes): {shown[:600]!r}\n"
            f"exit: {o.code}\nstdout: {o.out[:1000]!r}\nstderr: {o.err[-3000:]!r}\n"
            + (f"escaped:\n{o.escaped}" if o.escaped else "")
            + (f"detail:\n{o.detail}" if o.detail else ""))


def explain(o: Outcome, rerun: Any) -> Outcome:
    """After an exit status other than 0, 1, 2 (e.g. the CLI's internal-error line), run
    again with ``LPSCHED_DEBUG=1`` to show the traceback in the report; the verdict stays
    the first run's."""
    if o.code not in (None, 0, 1, 2) and not o.escaped:
        again = rerun({"LPSCHED_DEBUG": "1"})
        o.detail = again.escaped or again.err[-3000:]
    return o


def check(o: Outcome, input_file: Path) -> None:
    found = problems(o)
    if found:
        raise found[0][0]("; ".join(text for _, text in found) + "\n" + _describe(o, input_file))


# --------------------------------------------------------------------------------------
# Fixtures
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@pytest.fixture(scope="module")
def stuck(request: pytest.FixtureRequest, workdir: Path) -> Iterator[Any]:
    """The terminal's stderr, for faulthandler's last-resort report (captured output is
    lost when it ends the session); a file in ``workdir`` if there is no such descriptor."""
    capman = request.config.pluginmanager.getplugin("capturemanager")
    try:
        with capman.global_and_fixture_disabled() if capman else contextlib.nullcontext():
            fh = os.fdopen(os.dup(2), "w")
    except OSError:
        fh = open(workdir / "stuck-run.txt", "w")
    yield fh
    fh.close()


@pytest.fixture(scope="module")
def forkserver(workdir: Path) -> Iterator[ForkServer]:
    server = ForkServer(workdir)
    yield server
    server.close()


def write_instance(workdir: Path, case: InstanceCase) -> Path:
    path = workdir / "instance.json"
    path.write_bytes(render_instance(case))
    return path


def write_swf(workdir: Path, case: SwfCase) -> Path:
    data, suffix = render_swf(case)
    path = workdir / f"trace{suffix}"
    path.write_bytes(data)
    return path


def instance_argv(command: str, case: InstanceCase, path: Path) -> list[str]:
    argv = [a.format(path=path) for a in INSTANCE_COMMANDS[command]]
    if command == "schedule" and BASES[case.base]["platform"]["port"] == "multiport":
        argv += ["--model", "bmp-ac"]
    return argv


# --------------------------------------------------------------------------------------
# The tests
# --------------------------------------------------------------------------------------

APPS = ("applications",)
PLAT = ("platform",)


@pytest.mark.parametrize("command", sorted(INSTANCE_COMMANDS))
@settings(FUZZ, max_examples=45 * _PROFILE_SCALE)
@given(case=instance_cases())
# the classes of bad input the hardening rules name (decisions 64-66), always run
@example(case=InstanceCase("one-port", ()))
@example(case=InstanceCase("multiport", ()))
@example(case=InstanceCase("one-port-rows", ()))
@example(case=InstanceCase("one-port", (("replace", (*APPS, 1, "work"), "1e-308"),)))
@example(case=InstanceCase("one-port", (("replace", (*PLAT, "bandwidths", 0), "1e-308"),)))
@example(case=InstanceCase("multiport", (("replace", (*PLAT, "speeds", 2), "1e-308"),)))
@example(case=InstanceCase("one-port", (("replace", (*APPS, 0, "size"), "1e400"),)))
@example(case=InstanceCase("one-port", (("replace", (*APPS, 0, "tasks"), HUGE_INT),)))
@example(case=InstanceCase("one-port", (("replace", (*APPS, 2, "release"), "NaN"),)))
@example(case=InstanceCase("one-port", (("replace", (*PLAT, "speeds", 1), "Infinity"),)))
@example(case=InstanceCase("one-port", (("replace", (*PLAT, "speeds", 0), "true"),)))
@example(case=InstanceCase("one-port", (("replace", (*PLAT, "bandwidths", 1), '"abc"'),)))
@example(case=InstanceCase("one-port", (("replace", (*APPS, 3, "tasks"), "0.5"),)))
@example(case=InstanceCase("one-port", (("replace", (*APPS, 3, "tasks"), "1e9"),)))
@example(case=InstanceCase("one-port", (("replace", (*APPS, 1, "work"), "1e308"),)))
@example(case=InstanceCase("multiport", (("replace", (*PLAT, "master_bandwidth"), "1e6"),)))
@example(case=InstanceCase("multiport", (("replace", (*PLAT, "master_bandwidth"), "1"),)))
@example(case=InstanceCase("multiport", (("replace", (*PLAT, "master_bandwidth"), "1e-1"),)))
@example(case=InstanceCase("multiport", (("replace", (*PLAT, "master_bandwidth"), "1e-3"),)))
@example(case=InstanceCase("multiport", (("replace", (*PLAT, "master_bandwidth"), "1e-300"),)))
@example(case=InstanceCase("one-port", (("delete", (*PLAT, "speeds")),)))
@example(case=InstanceCase("one-port", (("add", (*APPS, 0), "bogus", "null"),)))
@example(case=InstanceCase("one-port", (("wrap", (*PLAT, "speeds", 0)),)))
@example(case=InstanceCase("one-port", (("shorten", (*PLAT, "speeds")),)))
@example(case=InstanceCase("one-port-rows", (("shorten", (*PLAT, "speeds")),)))
@example(case=InstanceCase("one-port", (("file", "nested"),)))
@example(case=InstanceCase("one-port", (("file", "non-utf8"),)))
@example(case=InstanceCase("one-port", (("file", "empty"),)))
@example(case=InstanceCase("one-port", (("replace", (*PLAT, "speeds"), HUGE_INT),)))
@example(case=InstanceCase("one-port", (("replace", (*PLAT, "master_bandwidth"), HUGE_INT),)))
@example(case=InstanceCase("one-port", (("replace", (*APPS, 0, "size"), "1e-308"),)))
@example(case=InstanceCase("multiport", (("replace", (*PLAT, "bandwidths", 1), "1e-308"),)))
# found by this test: valid instances whose schedule fails its own check
@example(case=InstanceCase("multiport", (("replace", (*APPS, 0, "work"), "0.5"),)))
@example(case=InstanceCase("one-port", (("replace", (*PLAT, "bandwidths", 0), "1e30"),)))
def test_instance_commands_survive_mutations(
    command: str, case: InstanceCase, workdir: Path, stuck: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = write_instance(workdir, case)
    argv = instance_argv(command, case, path)
    note(f"case={case!r}")
    outcome = run_in_process(capsys, argv, stuck)
    check(explain(outcome, lambda env: run_in_process(capsys, argv, stuck, env)), path)


@pytest.mark.parametrize("command", sorted(SWF_COMMANDS))
@settings(FUZZ, max_examples=50 * _PROFILE_SCALE)
@given(case=swf_cases())
@example(case=SwfCase(()))
@example(case=SwfCase((), "gz"))
@example(case=SwfCase((("field", 0, 3, "abc"),)))
@example(case=SwfCase((("field", 1, 7, "0.5"),)))
@example(case=SwfCase((("field", 1, 7, "0.5"), ("field", 1, 4, "0.5"))))
@example(case=SwfCase((("field", 1, 7, "-3"), ("field", 1, 4, "-3"))))
@example(case=SwfCase((("field", 1, 7, "1e18"),)))
@example(case=SwfCase((("field", 1, 7, "1e18"), ("del-header", "MaxProcs"))))
@example(case=SwfCase((("field", 1, 0, "2.5"),)))
@example(case=SwfCase((("field", 0, 0, "1e30"),)))
@example(case=SwfCase((("field", 1, 0, "1"),)))
@example(case=SwfCase((("header", "MaxProcs", "1e18"),)))
@example(case=SwfCase((("header", "MaxProcs", "1e9"),)))  # gigabytes, not petabytes
@example(case=SwfCase((("header", "MaxProcs", "nan"),)))
@example(case=SwfCase((("header", "MaxProcs", "inf"),)))
@example(case=SwfCase((("header", "MaxProcs", "1e400"),)))
@example(case=SwfCase((), "gz-truncated"))
@example(case=SwfCase((), "fake-gz"))
@example(case=SwfCase((("file", "non-utf8"),)))
@example(case=SwfCase((("file", "empty"),)))
@example(case=SwfCase((("file", "no-job-kept"),)))
@example(case=SwfCase((("header", "MaxProcs", "0"),)))
@example(case=SwfCase((("header", "MaxProcs", "1e308"),)))
@example(case=SwfCase((("field", 0, 3, "1e308"),)))
@example(case=SwfCase((("field", 1, 7, "1e30"), ("del-header", "MaxProcs"))))
def test_swf_commands_survive_mutations(
    command: str, case: SwfCase, workdir: Path, forkserver: ForkServer, stuck: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = write_swf(workdir, case)
    argv = [a.format(path=path) for a in SWF_COMMANDS[command]]
    note(f"case={case!r}")
    # batch is the command that can grow without bound: memory-capped, in a child process
    if argv[0] == "batch":
        outcome = explain(forkserver.run(argv), lambda env: forkserver.run(argv, env))
    else:
        outcome = run_in_process(capsys, argv, stuck)
        outcome = explain(outcome, lambda env: run_in_process(capsys, argv, stuck, env))
    check(outcome, path)


SCRIPT_JOBS = st.one_of(
    st.tuples(instance_cases(), st.sampled_from(["solve", "simulate"])),
    st.tuples(swf_cases(), st.sampled_from(["swf-info", "batch-easy"])),
)


@settings(FUZZ, max_examples=1)
@given(job=SCRIPT_JOBS)
@example(job=(InstanceCase("one-port", (("replace", (*APPS, 0, "size"), "1e400"),)), "solve"))
@example(job=(SwfCase((("header", "MaxProcs", "1e18"),)), "batch-easy"))
@example(job=(SwfCase((), "gz-truncated"), "swf-info"))
def test_installed_script_survives_mutations(job: tuple[InstanceCase | SwfCase, str],
                                             workdir: Path) -> None:
    """The real console script: real file descriptors, a fresh interpreter, memory-capped."""
    case, command = job
    if isinstance(case, InstanceCase):
        path = write_instance(workdir, case)
        argv = instance_argv(command, case, path)
    else:
        path = write_swf(workdir, case)
        argv = [a.format(path=path) for a in SWF_COMMANDS[command]]
    note(f"case={case!r}")
    check(explain(run_subprocess(argv), lambda env: run_subprocess(argv, env)), path)


def test_the_bases_are_valid() -> None:
    """The unmutated inputs are accepted (otherwise the fuzz tests only the first check)."""
    for name, doc in BASES.items():
        assert json.loads(render_instance(InstanceCase(name, ()))) == doc
    data, suffix = render_swf(SwfCase(()))
    assert suffix == ".swf" and data.count(b"\n") == len(SWF_HEADER) + len(SWF_ROWS)
