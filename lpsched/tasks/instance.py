"""Instances of seed 000 ch. 3: independent sequential tasks ``(r_j, p_j)`` on ``m``
identical processors, and their construction from SWF traces (§3.5.1, methods A, B, C).

JSON file (extra keys are kept and written back)::

    {"processors": 12, "tasks": [{"release": 0.0, "p": 35.5}, ...]}

The readings of the seed's text (decision 74, amended by decisions 285 and 286):

* A3.1 a window is ``[t, t + s]`` with ``t`` uniform (seeded) in ``[0, last submission −
  s]`` (:func:`lpsched.core.swf.random_window`), so it never runs past the trace; sizes
  ``s`` in days as in Table 3.1 (Curie's trace size 6089 is not used).
* A3.2 method C: ``Q`` = mean requested processors of the window's jobs, ``p_j = q_j e_j /
  Q`` kept as floats (no rounding), ``m/Q`` rounded to the nearest whole number (at least
  1); releases shifted so the first is 0. ``m`` is ``--processors``, else Table 3.1's
  figure for the chapter's seven traces, else the header's ``MaxProcs``.
* Jobs with a run time of 0 stay (their stretch is bounded by ``B``) unless the job
  selection drops them: ``status`` and ``zero_run`` choose the trace's jobs
  (:func:`lpsched.core.swf.to_workload`); the chapter's selection, completed jobs with a
  positive run time (:data:`CHAPTER_STATUS`, :data:`CHAPTER_ZERO_RUN`), is the one whose
  counts are Table 3.1's "# tasks" [L1835-1841] (decision 285).
* Releases are rebased to the first one (its value kept in ``meta["release_origin"]``):
  every objective depends on differences of times only, and a time of 1e19 s has no
  room left for a duration (floats 2,048 s apart). Times are kept to
  :data:`TIME_RESOLUTION`: an instance whose releases and durations reach a time where
  floats are farther apart is refused (decision 286).

>>> inst = TaskInstance(2, [0.0, 1.0], [3.0, 1.0])
>>> inst.n, inst.total_work
(2, 4.0)
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from lpsched.core.swf import (
    MAX_PROCESSORS,
    Workload,
    random_window,
    read_swf,
    to_workload,
)
from lpsched.errors import InvalidInstanceError, LpschedError, ParseError

#: bounded stretch constant B (seed 000 L1405-1411, A3.3: trace seconds)
BOUND_B = 10.0
#: the largest number of tasks a method-A instance may create (one per processor of a job)
MAX_TASKS = 5_000_000
DAY = 86400.0
#: the coarsest spacing of floats allowed among an instance's and a schedule's times (s):
#: a microsecond (SWF times are whole seconds; a bounded stretch moves by at most 1e-7)
TIME_RESOLUTION = 1e-6
#: the largest time kept to :data:`TIME_RESOLUTION` (2^52 microseconds, ~142 years)
MAX_TIME = TIME_RESOLUTION * 2.0**52
#: the chapter's job selection (decision 285): completed jobs (SWF status 1) ...
CHAPTER_STATUS = "completed"
#: ... with a positive run time (``"drop"`` the jobs of run time 0)
CHAPTER_ZERO_RUN = "drop"
ZERO_RUN_CHOICES = ("keep", "drop")


@dataclass(frozen=True)
class TraceInfo:
    """One trace's row of seed 000 Tables 3.1 and 3.2.

    Trace file, short name, machine size, window (days), and the selected parameters
    ``(m_d, τ)`` of SPT-RD and GSPT-RD, ``(m_d, c)`` of SPT-RR and GSPT-RR.
    """

    name: str
    short: str
    file: str
    cpus: int
    days: float
    params: dict[str, tuple[int, float]]


def _info(name: str, short: str, file: str, cpus: int, days: float, sr: tuple[int, float],
          gr: tuple[int, float], srr: tuple[int, float], grr: tuple[int, float]) -> TraceInfo:
    return TraceInfo(name, short, file, cpus, days,
                     {"spt-rd": sr, "gspt-rd": gr, "spt-rr": srr, "gspt-rr": grr})


#: Table 3.1 (trace CPUs, instance size in days) and Table 3.2 (selected parameters)
TRACES: dict[str, TraceInfo] = {t.name: t for t in (
    _info("CEA-Curie-2011-2.1-cln", "Curie", "CEA-Curie-2011-2.1-cln.swf.gz", 80640, 60,
          (10, 10), (10, 4), (9, 0.8), (10, 0.8)),
    _info("HPC2N-2002-2.1-cln", "HPC2N", "HPC2N-2002-2.1-cln.swf.gz", 240, 30,
          (5, 2), (10, 1), (5, 1.0), (10, 1.0)),
    _info("KTH-SP2-1996-2.1-cln", "KTH-SP2", "KTH-SP2-1996-2.1-cln.swf.gz", 100, 15,
          (8, 1), (7, 1), (2, 0.8), (3, 0.8)),
    _info("LLNL-Thunder-2007-1.1-cln", "LLNL-Thunder", "LLNL-Thunder-2007-1.1-cln.swf.gz",
          4096, 7, (7, 2), (10, 5), (8, 1.0), (9, 1.0)),
    _info("METACENTRUM-2009-2", "Metacentrum", "METACENTRUM-2009-2.swf.gz", 806, 7,
          (4, 5), (3, 4), (3, 0.4), (2, 0.2)),
    _info("RICC-2010-2", "RICC", "RICC-2010-2.swf.gz", 8192, 7,
          (10, 5), (10, 10), (5, 0.2), (5, 0.2)),
    _info("SDSC-BLUE-2000-4.1-cln", "SDSC-Blue-4.1", "SDSC-BLUE-2000-4.1-cln.swf.gz", 1152,
          30, (5, 2), (10, 1), (10, 1.0), (8, 0.8)),
)}


def trace_info(path_or_name: str) -> TraceInfo | None:
    """Find the Table 3.1 row of a trace file or name (seed 000 [L1835-1841]).

    Parameters
    ----------
    path_or_name : str
        A path (its file name without ``.gz``/``.swf`` is matched), a trace name
        (``CEA-Curie-2011-2.1-cln``) or a short name (``Curie``), case-insensitive.

    Returns
    -------
    TraceInfo or None
        The row (CPUs, window days, Table 3.2's parameters), ``None`` for other traces.
    """
    stem = Path(path_or_name).name
    for suffix in (".gz", ".swf"):
        stem = stem.removesuffix(suffix)
    for info in TRACES.values():
        if stem.lower() in (info.name.lower(), info.short.lower()):
            return info
    return None


def _array(values: Any, what: str, n: int | None = None) -> np.ndarray:
    try:
        arr = np.array(values, dtype=float).ravel()
    except (TypeError, ValueError):
        raise InvalidInstanceError(what, values, "must be a list of numbers") from None
    if n is not None and arr.size != n:
        raise InvalidInstanceError(what, arr.size, f"expected {n} values")
    bad = ~np.isfinite(arr) | (arr < 0)
    if bad.any():
        i = int(np.argmax(bad))
        raise InvalidInstanceError(f"tasks[{i}].{what}", float(arr[i]),
                                   "must be a finite number >= 0")
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, init=False)
class TaskInstance:
    """Independent sequential tasks on identical processors, validated on construction.

    ``n`` tasks (``release``, ``p``: float arrays, seconds) on ``processors`` identical
    processors; ``meta`` keeps how it was built and any extra JSON keys. Releases are
    rebased to the first (module doc); :class:`~lpsched.errors.InvalidInstanceError` names
    a bad field.
    """

    processors: int
    release: np.ndarray
    p: np.ndarray
    meta: dict[str, Any] = field(default_factory=dict)

    def __init__(self, processors: Any, release: Any, p: Any,
                 meta: dict[str, Any] | None = None) -> None:
        if (isinstance(processors, bool) or not isinstance(processors, (int, np.integer))
                or not 1 <= processors <= MAX_PROCESSORS):
            raise InvalidInstanceError("processors", processors,
                                       f"must be a whole number from 1 to {MAX_PROCESSORS:,}")
        rel = _array(release, "release")
        if rel.size == 0:
            raise InvalidInstanceError("tasks", [], "an instance has at least one task")
        work = _array(p, "p", rel.size)
        info = dict(meta or {})
        rel = _rebase(rel, info)
        reach = float(rel.max()) + float(work.max())
        if not reach <= MAX_TIME:
            i = int(np.argmax(rel + work))
            raise InvalidInstanceError(
                f"tasks[{i}]", {"release": float(rel[i]) + info.get("release_origin", 0.0),
                                "p": float(work[i])},
                f"ends {reach:.4g} s after the first release, where floats are "
                f"{np.spacing(reach):.3g} s apart: times are kept to {TIME_RESOLUTION:g} s "
                f"(at most {MAX_TIME:.4g} s from the first release); shorten the window "
                "or rescale the times")
        object.__setattr__(self, "processors", int(processors))
        object.__setattr__(self, "release", rel)
        object.__setattr__(self, "p", work)
        object.__setattr__(self, "meta", info)

    @property
    def n(self) -> int:
        """Number of tasks."""
        return int(self.release.size)

    @property
    def total_work(self) -> float:
        """``Σ p_j``: the work of all tasks (processor-seconds)."""
        return float(self.p.sum())

    def weights(self, bound: float = BOUND_B) -> np.ndarray:
        """``max(p_j, B)``: the denominator of the bounded stretch (seed 000 [L1405-1411]).

        Parameters
        ----------
        bound : float
            The constant ``B`` in seconds (default :data:`BOUND_B`, 10 s).

        Returns
        -------
        numpy.ndarray
            Shape ``(n,)``, in seconds.
        """
        return np.maximum(self.p, bound)

    def to_dict(self) -> dict[str, Any]:
        """The JSON document, as :func:`save_instance` writes it; read back by
        :meth:`from_dict`.

        Returns
        -------
        dict
            ``{"processors": m, "tasks": [{"release", "p"}, ...]}`` (seconds) plus the keys of
            ``meta`` (source, window, seed, ``Q``, the trace's accounting).
        """
        tasks = [{"release": r, "p": q} for r, q in zip(self.release.tolist(),
                                                        self.p.tolist(), strict=True)]
        return {"processors": self.processors, "tasks": tasks, **self.meta}

    @classmethod
    def from_dict(cls, data: Any) -> TaskInstance:
        """Build an instance from its parsed JSON document (module doc); errors name the field.

        Parameters
        ----------
        data : object
            The parsed JSON: an object with ``processors`` and ``tasks`` (a list of objects with
            numeric ``release`` and ``p``, seconds); other keys go to ``meta``.

        Returns
        -------
        TaskInstance
            The validated instance (releases rebased to the first, decision 286).

        Raises
        ------
        InvalidInstanceError
            Naming the field and its value.
        """
        if not isinstance(data, dict):
            raise InvalidInstanceError("instance", type(data).__name__, "must be a JSON object")
        for key in ("processors", "tasks"):
            if key not in data:
                raise InvalidInstanceError(key, None, "missing required key")
        tasks = data["tasks"]
        if not isinstance(tasks, list):
            raise InvalidInstanceError("tasks", type(tasks).__name__, "must be a list")
        for i, t in enumerate(tasks):
            if not isinstance(t, dict) or "release" not in t or "p" not in t:
                raise InvalidInstanceError(f"tasks[{i}]", t,
                                           "must be an object with 'release' and 'p'")
            for key in ("release", "p"):
                if isinstance(t[key], bool) or not isinstance(t[key], (int, float)):
                    raise InvalidInstanceError(f"tasks[{i}].{key}", t[key], "must be a number")
        meta = {k: v for k, v in data.items() if k not in ("processors", "tasks")}
        return cls(data["processors"], [t["release"] for t in tasks],
                   [t["p"] for t in tasks], meta)


def _rebase(rel: np.ndarray, meta: dict[str, Any]) -> np.ndarray:
    """``rel`` shifted so that the first release is 0 (exact for releases within a factor 2
    of each other; an instance's times differ by far less than their magnitude when this
    matters), the shift added to ``meta["release_origin"]``."""
    origin = float(rel.min())
    if origin == 0.0:
        return rel
    before = meta.get("release_origin", 0.0)
    if isinstance(before, bool) or not isinstance(before, (int, float)) \
            or not math.isfinite(before):
        raise InvalidInstanceError("release_origin", before, "must be a finite number "
                                   "(the time of the first release, in seconds)")
    out = rel - origin
    out.setflags(write=False)
    meta["release_origin"] = float(before) + origin
    return out


def save_instance(inst: TaskInstance, path: str | Path) -> None:
    """Write a task instance as JSON (strict: no NaN or Infinity).

    Parameters
    ----------
    inst : TaskInstance
        The instance (its :meth:`TaskInstance.to_dict`).
    path : str or Path
        The file written (replaced).
    """
    Path(path).write_text(json.dumps(inst.to_dict(), allow_nan=False) + "\n")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def load_instance(path: str | Path) -> TaskInstance:
    """Read a task instance from a JSON file (the module doc's format).

    Parameters
    ----------
    path : str or Path
        The JSON file.

    Returns
    -------
    TaskInstance
        The validated instance.

    Raises
    ------
    ParseError
        For a file that cannot be read, is not UTF-8 or not JSON (with the line).
    InvalidInstanceError
        For a bad instance (the field named).
    """
    from lpsched.core.inputs import max_json_bytes, read_input

    p = Path(path)
    raw = read_input(p, max_json_bytes(), "JSON file")  # a file or a pipe, size-checked
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ParseError(str(p), "not UTF-8 text") from None
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise ParseError(str(p), f"not JSON: {exc.msg}", line=exc.lineno) from None
    except (ValueError, RecursionError) as exc:
        raise ParseError(str(p), str(exc) or "nested too deeply") from None
    return TaskInstance.from_dict(data)


# -- construction from traces (§3.5.1) -------------------------------------------------------

def parse_window(text: str) -> tuple[str, float]:
    """Parse a ``--window`` value (seed 000 §3.5.1's instance windows, A3.1).

    Parameters
    ----------
    text : str
        ``random:15d`` / ``random:36h`` / ``random:3600`` (seconds) / ``random:30m``,
        ``first:LENGTH`` (the trace's first ``LENGTH``) or ``all``.

    Returns
    -------
    tuple of (str, float)
        ``(kind, length in seconds)``; ``("all", inf)`` for ``all``.

    Examples
    --------
    >>> parse_window("random:15d")
    ('random', 1296000.0)
    """
    if text == "all":
        return "all", math.inf
    match = re.fullmatch(r"(random|first):([0-9]*\.?[0-9]+)([smhd]?)", text.strip())
    if not match:
        raise LpschedError(f"--window {text}: expected random:LENGTH (e.g. random:15d, "
                           "random:36h, random:3600) or all")
    unit = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": DAY}[match.group(3)]
    length = float(match.group(2)) * unit
    if not length > 0:
        raise LpschedError(f"--window {text}: the length must be > 0")
    return match.group(1), length


def machine_size(trace: Any, path: str, processors: int | None) -> int:
    """The trace's machine size ``m``: ``--processors``, Table 3.1's, else the header's (A3.2).

    Parameters
    ----------
    trace : SwfTrace
        The trace read (its header's ``max_procs``).
    path : str
        Its file, for Table 3.1's figure and the error message.
    processors : int, optional
        ``--processors``: used when given.

    Returns
    -------
    int
        ``processors`` if given, else Table 3.1's figure for the chapter's traces, else the
        header's ``MaxProcs``.
    """
    if processors is not None:
        return int(processors)
    info = trace_info(path)
    if info is not None:
        return info.cpus
    if trace.max_procs is None:
        raise ParseError(path, "the header gives no MaxProcs or MaxNodes: give the machine "
                         "size with --processors")
    return int(trace.max_procs)


def from_workload(work: Workload, machine: int, method: str = "C",
                  meta: dict[str, Any] | None = None) -> TaskInstance:
    """Turn rigid jobs into sequential tasks by method C, A or B (seed 000 §3.5.1).

    Real run times only.

    * ``"C"`` (the chapter's): ``Q`` = mean of ``q_j``; ``p_j = q_j e_j / Q`` on
      ``round(m/Q)`` processors;
    * ``"A"``: ``q_j`` tasks of length ``e_j`` each, on ``m`` processors;
    * ``"B"``: one task of length ``q_j e_j`` per job, on ``m`` processors.

    Parameters
    ----------
    work : Workload
        The window's jobs (requested processors ``q_j``, run times ``e_j`` in seconds).
    machine : int
        The trace's machine size ``m``.
    method : str
        ``"A"``, ``"B"`` or ``"C"`` (default).
    meta : dict, optional
        Kept in the instance's ``meta`` (source, window, seed, accounting).

    Returns
    -------
    TaskInstance
        With ``meta`` holding ``method``, ``jobs``, ``trace_processors`` and (method C)
        ``Q``.
    """
    if work.jobs == 0:
        raise InvalidInstanceError("jobs", 0, "no job to build tasks from (an empty window?): "
                                   "choose another seed or a longer window")
    q = work.size.astype(float)
    e = np.asarray(work.run, float)
    info: dict[str, Any] = {"method": method, "jobs": work.jobs, "trace_processors": machine}
    if method == "C":
        big_q = float(q.mean())
        m = max(1, math.floor(machine / big_q + 0.5))
        rel, p = work.submit, q * e / big_q
        info["Q"] = big_q
    elif method == "B":
        m, rel, p = machine, work.submit, q * e
    elif method == "A":
        count = int(q.sum())
        if count > MAX_TASKS:
            raise InvalidInstanceError("method", "A", f"{count:,} tasks (more than "
                                       f"{MAX_TASKS:,}): use method C")
        reps = q.astype(np.int64)
        m, rel, p = machine, np.repeat(work.submit, reps), np.repeat(e, reps)
    else:
        raise InvalidInstanceError("method", method, "must be 'A', 'B' or 'C'")
    return TaskInstance(m, rel, p, {**info, **(meta or {})})


def trace_workload(path: str, processors: int | None = None, lenient: bool = False,
                   status: str | None = None, zero_run: str = "keep",
                   ) -> tuple[Workload, int]:
    """Read a trace's jobs (requested processors, real run times) and its machine size.

    The jobs of seed 000 §3.5.1, under a job selection; the size is
    :func:`machine_size`'s.

    Parameters
    ----------
    path : str
        The SWF trace.
    processors : int, optional
        The machine size ``m`` (default: Table 3.1's figure, else ``MaxProcs``).
    lenient : bool
        Skip malformed job lines (counted) instead of stopping.
    status : str, optional
        The jobs kept by their SWF status (:func:`lpsched.core.swf.parse_status`;
        ``None`` or ``"all"``: every job; the chapter's is :data:`CHAPTER_STATUS`).
    zero_run : {"keep", "drop"}
        Whether the jobs of run time 0 stay (the chapter drops them: decision 285).

    Returns
    -------
    (Workload, int)
        The jobs kept (every other one counted in ``dropped`` with its reason) and ``m``.
    """
    if zero_run not in ZERO_RUN_CHOICES:
        raise InvalidInstanceError("zero_run", zero_run, "must be 'keep' or 'drop'")
    trace = read_swf(path, lenient=lenient)
    machine = machine_size(trace, path, processors)
    work = to_workload(trace, size="requested", estimate="runtime", processors=machine,
                       status=status, drop_zero_run=zero_run == "drop").require_jobs()
    return work, machine


def window_instance(work: Workload, machine: int, window: str = "random:15d", seed: int = 0,
                    method: str = "C", source: str = "",
                    selection: dict[str, Any] | None = None) -> TaskInstance:
    """Build one task instance from a window of a trace's jobs (seed 000 §3.5.1).

    When ``work`` comes from a trace, ``meta`` keeps its accounting: ``trace_records`` (job
    lines read), ``trace_dropped`` (jobs dropped, per reason, lenient skips included) and
    ``trace_skipped_lines``.

    Parameters
    ----------
    work : Workload
        The trace's jobs (:func:`trace_workload`).
    machine : int
        The machine size ``m``.
    window : str
        A :func:`parse_window` value (default ``random:15d``).
    seed : int
        Seed of the random window's start.
    method : str
        ``"C"`` (default), ``"A"`` or ``"B"`` (:func:`from_workload`).
    source : str
        The trace's file name, kept as ``meta["source"]``.
    selection : dict, optional
        The job selection the workload was read with (e.g. ``{"status": "completed",
        "zero_run": "drop"}``), kept as ``meta["jobs_selected"]``.

    Returns
    -------
    TaskInstance
        The window's tasks, releases rebased to the first.

    Notes
    -----
    Nothing is dropped silently (decisions 44, 64 and 236).
    """
    kind, length = parse_window(window)
    if kind == "random":
        work = random_window(work, length, seed)
    elif kind == "first":
        keep = np.flatnonzero(work.submit <= length)
        work = replace(work, job=work.job[keep], submit=work.submit[keep],
                       run=work.run[keep], size=work.size[keep],
                       estimate=work.estimate[keep])
    if work.jobs == 0:
        where = "" if kind == "all" else f" ({window} of the trace, seed {seed})"
        raise InvalidInstanceError("window", window, f"no job submitted in the window{where}: "
                                   "choose another seed or a longer window")
    meta: dict[str, Any] = {"source": source, "window": window, "seed": seed}
    if selection is not None:
        meta["jobs_selected"] = dict(selection)
    if work.records is not None:  # the trace's accounting (decisions 44, 64)
        meta["trace_records"] = work.records
        meta["trace_dropped"] = dict(work.dropped)
        meta["trace_skipped_lines"] = len(work.skipped_lines)
    return from_workload(work, machine, method, meta)


def instance_from_trace(path: str, window: str = "random:15d", seed: int = 0,
                        method: str = "C", processors: int | None = None,
                        lenient: bool = False, status: str | None = None,
                        zero_run: str = "keep") -> TaskInstance:
    """Read an SWF trace and build one instance from a window of it (module doc; seed 000
    §3.5.1).

    Parameters
    ----------
    path : str
        The SWF trace (``.swf`` or ``.swf.gz``).
    window : str
        A :func:`parse_window` value (default ``random:15d``).
    seed : int
        Seed of the random window's start.
    method : str
        ``"C"`` (default), ``"A"`` or ``"B"``.
    processors : int, optional
        The machine size (default: :func:`machine_size`).
    lenient : bool
        Skip malformed job lines (counted) instead of stopping.
    status : str, optional
        The jobs kept by their SWF status (:func:`trace_workload`; default every job).
    zero_run : str
        ``"keep"`` (default) or ``"drop"`` the jobs of run time 0.

    Returns
    -------
    TaskInstance
        The instance (``meta`` records the source, window, seed and job selection).
    """
    parse_window(window)
    work, machine = trace_workload(path, processors, lenient, status, zero_run)
    return window_instance(work, machine, window, seed, method, Path(path).name,
                           {"status": status or "all", "zero_run": zero_run})
