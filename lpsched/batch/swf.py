"""Standard Workload Format (SWF) traces of the Parallel Workloads Archive (issue #5).

One job per line, 18 whitespace-separated fields, ``-1`` for unknown; header lines start
with ``;`` and ``Key: value`` ones (``MaxProcs``, ``MaxNodes``, ...) describe the machine.
:func:`read_swf` keeps every field of every job (``.swf`` or ``.swf.gz``); a malformed line
raises :class:`~lpsched.errors.SwfParseError` with file and line, or is skipped with a
warning when ``lenient=True``. :func:`to_workload` applies the documented conventions and
reports what it dropped and why; :func:`write_swf` writes a trace back.
"""

from __future__ import annotations

import gzip
import warnings
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from lpsched.errors import InvalidInstanceError, ParseError, SwfParseError

FIELDS = ("job", "submit", "wait", "run", "allocated", "cpu_time", "memory",
          "requested_procs", "requested_time", "requested_memory", "status", "user", "group",
          "executable", "queue", "partition", "preceding_job", "think_time")


@dataclass(frozen=True)
class SwfTrace:
    """All 18 fields (``columns[name]``, float arrays, ``-1`` = unknown), the ``Key: value``
    header entries, the raw comment lines, the source path and the lines skipped."""

    columns: dict[str, np.ndarray]
    header: dict[str, str]
    comments: list[str]
    path: str = ""
    skipped: int = 0

    @property
    def jobs(self) -> int:
        return int(self.columns["job"].size)

    def header_int(self, *keys: str) -> int | None:
        for key in keys:
            value = self.header.get(key)
            if value is not None:
                try:
                    return int(float(value.split()[0]))
                except (ValueError, IndexError):
                    continue
        return None

    @property
    def max_procs(self) -> int | None:
        """``MaxProcs`` (or ``MaxNodes``) from the header."""
        return self.header_int("MaxProcs", "MaxNodes")


def _open(path: Path) -> Any:
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")


def read_swf(path: str | Path, lenient: bool = False) -> SwfTrace:
    """Parse an SWF file (see module doc)."""
    p = Path(path)
    try:
        fh = _open(p)
    except OSError as exc:
        raise ParseError(str(p), f"cannot read file: {exc.strerror or exc}") from None
    header: dict[str, str] = {}
    comments: list[str] = []
    rows: list[list[float]] = []
    skipped = 0
    with fh:
        for number, line in enumerate(fh, start=1):
            text = line.strip()
            if not text:
                continue
            if text.startswith(";"):
                comments.append(text)
                body = text[1:].strip()
                if ":" in body:
                    key, _, value = body.partition(":")
                    if key.strip() and " " not in key.strip():
                        header.setdefault(key.strip(), value.strip())
                continue
            parts = text.split()
            problem = None
            if len(parts) != len(FIELDS):
                problem = f"expected {len(FIELDS)} fields, found {len(parts)}"
            else:
                try:
                    values = [float(x) for x in parts]
                except ValueError:
                    problem = "a field is not a number"
                else:
                    if not all(np.isfinite(values)):
                        problem = "a field is not finite"
            if problem is not None:
                if not lenient:
                    raise SwfParseError(str(p), problem, line=number)
                warnings.warn(f"{p}:{number}: {problem}; line skipped", stacklevel=2)
                skipped += 1
                continue
            rows.append(values)
    data = np.array(rows, dtype=float).reshape(-1, len(FIELDS))
    columns = {name: data[:, i].copy() for i, name in enumerate(FIELDS)}
    return SwfTrace(columns, header, comments, str(p), skipped)


def write_swf(trace: SwfTrace, path: str | Path) -> None:
    """Write ``trace`` (comments first, then one line per job; integral values as integers)."""
    p = Path(path)
    opener = gzip.open if p.suffix == ".gz" else open
    data = np.column_stack([trace.columns[name] for name in FIELDS])
    with opener(p, "wt", encoding="utf-8") as fh:
        for line in trace.comments:
            fh.write(line + "\n")
        for row in data:
            fh.write(" ".join(str(int(v)) if v == int(v) else repr(float(v)) for v in row)
                     + "\n")


@dataclass(frozen=True)
class Workload:
    """Rigid jobs ready for simulation: ``submit`` (s, shifted so the first is 0 unless
    ``shift=False``), ``run`` (actual run time, s), ``size`` (processors), ``estimate``
    (what backfilling believes, s), ``job`` (SWF job numbers); ``dropped`` counts removed
    jobs per reason, ``fallbacks`` the jobs whose value came from a fallback field."""

    job: np.ndarray
    submit: np.ndarray
    run: np.ndarray
    size: np.ndarray
    estimate: np.ndarray
    processors: int | None
    dropped: dict[str, int] = field(default_factory=dict)
    fallbacks: dict[str, int] = field(default_factory=dict)
    source: str = ""

    @property
    def jobs(self) -> int:
        return int(self.job.size)

    def report(self) -> dict[str, Any]:
        return {"jobs": self.jobs, "dropped": dict(self.dropped),
                "fallbacks": dict(self.fallbacks), "processors": self.processors,
                "source": self.source}


def random_window(work: Workload, length: float, seed: int) -> Workload:
    """Seed 000 ch. 3 §3.5.1 (A3.1): the jobs submitted in ``[t, t + length]``, ``t`` drawn
    uniformly (seeded) in ``[0, last submission − length]`` (from 0 if the trace is shorter),
    submissions shifted to start at 0."""
    if not length > 0:
        raise InvalidInstanceError("length", length, "the window must be longer than 0")
    last = float(work.submit.max()) if work.jobs else 0.0
    t = float(np.random.default_rng(seed).uniform(0.0, max(0.0, last - length)))
    keep = np.flatnonzero((work.submit >= t) & (work.submit <= t + length))
    sub = work.submit[keep]
    return replace(work, job=work.job[keep], submit=sub - (sub.min() if sub.size else 0.0),
                   run=work.run[keep], size=work.size[keep], estimate=work.estimate[keep])


def to_workload(trace: SwfTrace, size: str = "requested", estimate: str = "requested",
                processors: int | None = None, shift: bool = True) -> Workload:
    """Jobs from a trace, with the conventions of issue #5:

    * ``size="requested"``: field 8, falling back to field 5 (allocated) when unknown;
      ``"allocated"``: field 5, falling back to field 8;
    * ``estimate="requested"``: field 9, falling back to the run time when unknown;
      ``"runtime"``: the actual run time (a perfect estimate);
    * dropped (and counted): jobs with no run time (field 4 < 0), with no processors, and
      those wider than the machine (``processors``, default the header's ``MaxProcs``);
    * order: submission time, then file order; submission times shifted so the first is 0.
    """
    if size not in ("requested", "allocated"):
        raise InvalidInstanceError("size", size, "must be 'requested' or 'allocated'")
    if estimate not in ("requested", "runtime"):
        raise InvalidInstanceError("estimate", estimate, "must be 'requested' or 'runtime'")
    c = trace.columns
    first, second = (("requested_procs", "allocated") if size == "requested"
                     else ("allocated", "requested_procs"))
    procs = c[first].copy()
    fallback_size = procs <= 0
    procs[fallback_size] = c[second][fallback_size]
    run = c["run"]
    if estimate == "requested":
        est = c["requested_time"].copy()
        fallback_est = est <= 0
        est[fallback_est] = run[fallback_est]
    else:
        est = run.copy()
        fallback_est = np.zeros(run.size, bool)
    machine = processors if processors is not None else trace.max_procs
    reasons: Counter[str] = Counter()
    keep = np.ones(run.size, bool)
    for reason, bad in (("no run time (field 4 < 0)", run < 0),
                        ("no processors (fields 8 and 5 unknown)", procs <= 0),
                        ("no submit time (field 2 < 0)", c["submit"] < 0)):
        new = bad & keep
        reasons[reason] += int(new.sum())
        keep &= ~bad
    if machine is not None:
        wide = keep & (procs > machine)
        reasons[f"wider than the machine ({machine} processors)"] += int(wide.sum())
        keep &= ~wide
    order = np.flatnonzero(keep)
    order = order[np.lexsort((order, c["submit"][order]))]
    submit = c["submit"][order]
    if shift and submit.size:
        submit = submit - submit[0]
    return Workload(
        job=c["job"][order].astype(int), submit=submit, run=run[order],
        size=procs[order].astype(int), estimate=np.maximum(est[order], run[order] * 0),
        processors=machine, dropped={k: v for k, v in reasons.items() if v},
        fallbacks={"size": int((fallback_size & keep).sum()),
                   "estimate": int((fallback_est & keep).sum())},
        source=trace.path)
