"""Batsim's file formats: the ``jobs.csv`` evalys reads, JSON workloads, and Batsim's machine.

Batsim's ``jobs.csv`` schedule is written; JSON workloads (each profile mapped to a rigid
job) are read, written and converted to and from SWF; a platform file gives Batsim's
machine (its compute hosts and their speed, :func:`read_platform`, through the one
platform reader :mod:`lpsched.platforms`). Decisions 175-183 and 365-369 hold the readings.

**Sources.** The Batsim documentation, "Jobs" output (``docs/output-jobs.rst``: the columns,
their meaning and order, the final states) and "Workload" input (``docs/input-workload.rst``:
``nb_res``, jobs ``id``/``subtime``/``res``/``walltime``/``profile``, delay profiles), checked
against Batsim's ``JobsTracer::write_job`` (``src/export.cpp``: the value of each column) and
``Job::from_json`` (``src/jobs.cpp``: the rules on ids and walltimes); on the analysis side
``evalys.jobset.JobSet.from_csv`` (evalys 4.0.7), which reads ``allocated_resources`` with
``procset.ProcSet.from_str`` and recomputes start and finish times from ``submission_time``,
``waiting_time`` and ``execution_time``. The decisions these sources leave open are
docs/decisions.md, "Batsim and evalys".

**jobs.csv** (:func:`write_jobs_csv`): Batsim's 17 columns in Batsim's order,
:data:`JOBS_COLUMNS`, one row per job in workload order (submission order; Batsim writes them
in completion order, which no reader relies on). Times are on lpsched's clock (the first
submission at 0), written exactly (shortest round-trip decimals: ``35541.0``, ``0.1``);
``requested_time`` is the estimate the simulation used; ``final_state`` is
``COMPLETED_SUCCESSFULLY`` (``success`` 1), or ``COMPLETED_WALLTIME_REACHED`` (``success`` 0)
for a job stopped at its estimate (``--kill-at-estimate``, or a placement penalty past it);
``stretch`` is Batsim's ``turnaround_time / execution_time`` (``inf``, or ``nan`` for a job
of zero length that waited not at all, as Batsim's arithmetic gives); ``allocated_resources``
is Batsim's interval set ``0-3 7`` (inclusive ranges, separated by spaces);
``consumed_energy`` is ``-1`` (Batsim's value without an energy model); ``metadata`` is empty;
``workload_name`` is ``w0``, the name Batsim gives its first workload. The rows are formatted
column by column (integral columns as whole numbers, one ``%`` format per row, in chunks of
32,768 jobs), so writing costs about what the six-column CSV did.

**Workloads** (:func:`read_batsim`, :func:`batsim_to_workload`): a JSON object with ``jobs``
(a list), ``profiles`` (an object) and ``nb_res``. lpsched simulates rigid jobs of known run
time; each job's profile is mapped to its duration on the job's ``res`` hosts (decisions
365-369; the semantics are Batsim's documentation, "Workload" input,
``docs/input-workload.rst`` of Batsim 5, and ``doc/profiles.md`` of Batsim 1-3 for the old
type names, checked against ``Profile::from_json`` in ``src/profiles.cpp``):

* **delay** (``delay``, ``DelayProfile``): the ``delay``, "a fixed number of seconds", which
  "does not take the platform into account";
* **homogeneous parallel task** (``parallel_homogeneous``, ``ptask_homogeneous``,
  ``msg_par_hg``, ``ParallelTaskHomogeneousProfile``): ``cpu`` flops on each host, so
  ``cpu / speed`` seconds; with ``generation_strategy`` ``DefinedAmountsSpreadUniformly``
  (or the old ``msg_par_hg_tot``, ``parallel_homogeneous_total``) ``cpu`` is the total,
  ``cpu / res`` on each host;
* **parallel task** (``parallel``, ``ptask``, ``msg_par``, ``ParallelTaskProfile``): one
  ``cpu`` amount per host (the array's length must be ``res``), all progressing at the same
  rate, so ``max(cpu) / speed`` seconds;
* **sequence** (``composed``, ``sequence``, ``SequentialCompositionProfile``): the parts of
  ``seq`` one after the other on the same hosts, ``repeat`` times (default 1): ``repeat *
  sum(parts)``; a part may itself be any mapped type, a cycle is an error;
* the others (trace replay: SMPI and usage traces, ``smpi``, ``usage_trace``,
  ``TraceReplayProfile``; storage I/O and data staging; fork-join; unknown names) are not
  simulated: one error line naming the job, its profile and the type, or under ``lenient``
  the job is skipped and counted (``profile type not simulated``; jobs + dropped =
  records).

``speed`` is the compute hosts' speed from a Batsim platform file (:func:`read_platform`,
``batch --platform``; the slowest host when they differ, counted as ``slowest host speed``)
or :data:`DEFAULT_SPEED` (1 Gflop/s) without one. The ``com`` amounts of parallel tasks are
not simulated (lpsched models no network): a job with ``com > 0`` runs for its computation
time and is counted (``communication ignored``), a lower bound on Batsim's duration.

* job ids: a JSON string (any non-empty text, Batsim's ``"comp1-ok"``) or an integer
  ``>= 0``, unique, kept as given (:attr:`BatsimWorkload.ids`, the ``job_id`` column of
  ``jobs.csv``); lpsched's job numbers are the ids when every id is a whole number (a
  ``workload!`` prefix dropped), else 1, 2, ... in file order;
* ``subtime`` -> submission time (a finite number ``>= 0``, at most 2^53); as for SWF, the
  submissions are shifted so the first is 0;
* ``res`` -> size (a whole number ``>= 1``); the machine is ``--processors``, else the
  platform's compute hosts, else ``nb_res``; jobs wider than the machine are dropped and
  counted, as for SWF;
* the duration -> run time; ``walltime`` -> estimate (``estimate="requested"``; a missing
  walltime or ``-1``, Batsim's "none", falls back to the duration and is counted among the
  fallbacks, as an SWF requested time of ``-1`` does; ``estimate="runtime"`` uses the
  duration); Batsim kills a job at its walltime, lpsched does so under ``kill``
  (``--kill-at-estimate``);
* ``lenient``: a malformed job (a missing or ill-typed field, an unknown or malformed
  profile, a repeated id) or a job whose profile type is not simulated is skipped and
  counted instead of being an error, as a malformed SWF line is; the positions skipped are
  kept (``jobs[i]``, 0-based). A fractional ``res`` is the one value repaired, as a
  fractional SWF processor count is: rounded *up* (``2.5`` -> 3) and counted
  (``rounded``).

**Conversion** (:func:`swf_to_batsim`, :func:`batsim_to_swf`): SWF -> Batsim writes the jobs
lpsched would simulate from the trace (:func:`~lpsched.core.swf.to_workload`'s conventions:
the size and estimate fields chosen, dropped jobs left out) with their submission times as in
the trace (not shifted), one delay profile per distinct run time named by it (``"3600"``, as
Batsim's own ``tools/swf_to_batsim_workload_delay.py`` names them), ``walltime`` = the
requested time (field 9) when known, else ``-1``; ``nb_res`` = the machine; the ids of
``; BatsimId:`` comment lines are restored. Batsim -> SWF writes every job read: field 1 the
job number (from 1: the ids when they are whole numbers >= 1, else 1, 2, ... with each id in
a ``; BatsimId: N TEXT`` comment line), 2 ``subtime`` in whole seconds (rounded to the
nearest, halves up, when Batsim's have a fraction, counted and noted), 4 the duration, 8
``res``, 9 the walltime (``-1`` when none), the others ``-1``, and ``; MaxProcs: nb_res``.
Batsim -> SWF -> Batsim gives back the same jobs (ids as given, sizes, walltimes,
durations; submission times to the second; profiles are renamed by their duration).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import IO, Any, NamedTuple

import numpy as np

import lpsched.core.swf
from lpsched.batch.procsets import ProcSets, proc_runs
from lpsched.batch.schedule import BatchSchedule
from lpsched.core.inputs import is_stream, max_json_bytes, peek, read_input
from lpsched.core.kernels import compiled
from lpsched.core.swf import (
    FIELD_LIMIT,
    FIELDS,
    MAX_PROCESSORS,
    SwfTrace,
    Workload,
    check_processors,
    to_workload,
)
from lpsched.errors import InvalidInstanceError, ParseError
from lpsched.platforms.model import Platform
from lpsched.platforms.units import parse_speeds

try:  # the compiled row formatter (optional: setup.py builds it where Cython is)
    from lpsched.batch import _rows_c
except ImportError:  # pragma: no cover - exercised where the extension is not built
    _rows_c = None  # type: ignore[assignment]

#: Batsim's ``jobs.csv`` columns, in Batsim's order (docs/output-jobs.rst, src/export.cpp)
JOBS_COLUMNS = ("job_id", "workload_name", "profile", "submission_time",
                "requested_number_of_resources", "requested_time", "success", "final_state",
                "starting_time", "execution_time", "finish_time", "waiting_time",
                "turnaround_time", "stretch", "allocated_resources", "consumed_energy",
                "metadata")
#: Batsim's final state of a job that ran to its end (``success`` 1)
COMPLETED = "COMPLETED_SUCCESSFULLY"
#: Batsim's final state of a job stopped at its walltime (``success`` 0)
WALLTIME_REACHED = "COMPLETED_WALLTIME_REACHED"
#: the name Batsim gives the first workload of a simulation (``workload_name``)
WORKLOAD_NAME = "w0"
#: Batsim's delay profile (old and new names): a fixed run time
DELAY_TYPES = ("delay", "DelayProfile")
#: Batsim's homogeneous parallel task: ``cpu`` flops on each host (old and new names)
HOMOGENEOUS_TYPES = ("parallel_homogeneous", "ptask_homogeneous", "msg_par_hg",
                     "ParallelTaskHomogeneousProfile")
#: the homogeneous parallel task with a total amount spread over the hosts (old names; the
#: new name is the homogeneous type with ``DefinedAmountsSpreadUniformly``)
TOTAL_TYPES = ("parallel_homogeneous_total", "msg_par_hg_tot")
#: Batsim's parallel task: a ``cpu`` array, one amount per host (old and new names)
PTASK_TYPES = ("parallel", "ptask", "msg_par", "ParallelTaskProfile")
#: Batsim's sequence of profiles: ``seq`` run ``repeat`` times (old and new names)
SEQUENCE_TYPES = ("composed", "sequence", "SequentialCompositionProfile")
#: every profile type lpsched maps to a rigid job of known duration
MAPPED_TYPES = DELAY_TYPES + HOMOGENEOUS_TYPES + TOTAL_TYPES + PTASK_TYPES + SEQUENCE_TYPES
#: the host speed (flop/s) without a platform file: 1 Gflop/s, the speed of the hosts of
#: Batsim's ``platforms/cluster512.xml`` (decision 366)
DEFAULT_SPEED = 1e9
#: the reason counted for a job whose profile type lpsched does not simulate (--lenient)
UNSIMULATED = "profile type not simulated (--lenient)"
#: Batsim's walltime for "no walltime"
NO_WALLTIME = -1.0
SKIPPED = "malformed job skipped (--lenient)"
ROUNDED = "res rounded up (--lenient)"
CHUNK = 1 << 15  # jobs formatted at a time: bounded memory


def number_text(value: float) -> str:
    """``value`` as the shortest decimal that reads back exactly, whole numbers without a
    fraction (the name of a delay profile).

    Parameters
    ----------
    value : float
        A finite number.

    Returns
    -------
    str
        ``3600`` for 3600.0, ``0.25`` for 0.25.

    Examples
    --------
    >>> number_text(3600.0), number_text(0.25), number_text(-1.0)
    ('3600', '0.25', '-1')
    """
    v = float(value)
    return str(int(v)) if v == math.trunc(v) and abs(v) < FIELD_LIMIT else repr(v)


def delay_names(delays: np.ndarray) -> list[str]:
    """The name of each job's delay profile, its delay in seconds (:func:`number_text`):
    one name per distinct delay, formatted once.

    Parameters
    ----------
    delays : numpy.ndarray
        The jobs' run times (s).

    Returns
    -------
    list of str
        One name per job, in order.

    Examples
    --------
    >>> delay_names(np.array([10.0, 2.5, 10.0]))
    ['10', '2.5', '10']
    """
    values, inverse = np.unique(np.asarray(delays, float), return_inverse=True)
    names = [number_text(v) for v in values.tolist()]
    return [names[i] for i in inverse.reshape(-1).tolist()]


def interval_sets(runs: ProcSets, first: int, stop: int) -> list[str]:
    """Write Batsim's interval-set text (``0-3 7``) of jobs ``first`` to ``stop - 1``.

    The runs (``[lo, hi)`` of consecutive ids, increasing, none adjacent) become inclusive
    ranges separated by spaces. Every run is one row of a byte table (its first id, ``-``
    and its last id, a space), the digits of all runs written at once; the used cells read
    in order are the text, cut once per job: O(runs) numpy work and one slice per job.

    Parameters
    ----------
    runs : ProcSets
        Every job's processors as runs (:func:`~lpsched.batch.procsets.proc_runs`).
    first, stop : int
        The jobs to format, ``first <= j < stop``.

    Returns
    -------
    list of str
        One interval set per job (empty for a job without processors).

    Examples
    --------
    >>> runs = ProcSets.from_flat([[0, 4, 7, 8], [4, 7]])
    >>> interval_sets(runs, 0, 2)
    ['0-3 7', '4-6']
    """
    offsets = runs.offsets[first:stop + 1]
    lo = runs.lo[offsets[0]:offsets[-1]].astype(np.int64)
    last = runs.hi[offsets[0]:offsets[-1]].astype(np.int64) - 1
    if lo.size and min(lo.min(), last.min()) < 0:  # not a machine's ids: the plain way
        parts = [str(a) if b == a else f"{a}-{b}"
                 for a, b in zip(lo.tolist(), last.tolist(), strict=True)]
        bounds = (offsets - offsets[0]).tolist()
        return [" ".join(parts[a:b]) for a, b in pairwise(bounds)]
    rel = offsets - offsets[0]
    # each run's characters, one row of a table: its first id's digits right-aligned in
    # ``w`` columns, "-", its last id's digits (when it has more than one id), a space
    # (unless it is its job's last run); the used cells, read row by row, are the text
    width_lo, width_hi = _widths(lo), _widths(last)
    w = int(max(width_lo.max(), width_hi.max())) if last.size else 1
    ranged = last != lo
    sep = np.ones(lo.size, bool)
    sep[rel[1:][rel[1:] > rel[:-1]] - 1] = False  # the last run of each job
    table = np.empty((lo.size, 2 * w + 2), np.uint8)
    _digits(table[:, :w], lo)
    table[:, w] = ord("-")
    _digits(table[:, w + 1:2 * w + 1], last)
    table[:, -1] = ord(" ")
    used = np.empty(table.shape, bool)
    column = np.arange(w)
    np.greater_equal(column, (w - width_lo)[:, None], out=used[:, :w])
    used[:, w] = ranged
    np.greater_equal(column, (w - np.where(ranged, width_hi, 0))[:, None],
                     out=used[:, w + 1:2 * w + 1])
    used[:, -1] = sep
    text = table[used].tobytes().decode("ascii")
    end = np.cumsum(width_lo + ranged * (1 + width_hi) + sep)
    # job j: from its first run's first character to its last run's last (an empty job:
    # an empty slice)
    starts = np.append(0, end)[rel[:-1]].tolist()
    stops = np.append(0, end)[rel[1:]].tolist()
    return [text[a:b] if b > a else "" for a, b in zip(starts, stops, strict=True)]


def _widths(values: np.ndarray) -> np.ndarray:
    """The number of decimal digits of each value (int64, ``>= 0``)."""
    width = np.ones(values.size, np.int64)
    bound, top = 10, int(values.max()) if values.size else 0
    while bound <= top:
        width += values >= bound
        bound *= 10
    return width


def _digits(out: np.ndarray, values: np.ndarray) -> None:
    """Each value's decimal digits (ASCII), right-aligned in its row of ``out`` (``uint8``,
    one row per value, as many columns as the widest needs; zeros on the left); computed
    a column at a time in contiguous rows (uint32 when the values allow: faster division)."""
    small = not values.size or int(values.max()) < 2**32
    rest = values.astype(np.uint32 if small else np.uint64)
    digits = np.empty((out.shape[1], values.size), np.uint8)
    for k in range(out.shape[1] - 1, -1, -1):
        tenth = rest // 10
        digits[k] = rest - tenth * 10
        rest = tenth
    digits += ord("0")
    out[...] = digits.T


def _csv_text(text: str) -> str:
    """``text`` as one CSV field (quoted when it holds a comma, a quote or a line break)."""
    if any(c in text for c in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


def _column(values: np.ndarray) -> tuple[str, np.ndarray]:
    """The text after one float column's values and the values: ``.0`` after whole numbers
    written as integers when every value is one (the same text as ``repr``, formatted
    faster), else nothing after the floats themselves (written as ``repr``)."""
    whole = np.isfinite(values) & (values == np.trunc(values)) & (np.abs(values) < 1e16)
    if whole.all():
        return ".0", values.astype(np.int64)
    return "", np.ascontiguousarray(values, dtype=np.float64)


def format_rows(columns: list[Any], texts: list[str], rows: int) -> str:
    """The rows' text: ``texts[0]``, then each column's value followed by the next text.

    Column kinds: an ``int64`` array's values as ``%d``, a ``float64`` array's as ``%r``, a
    list of ``str`` as is, ``("number", float64 array)`` as :func:`number_text`,
    ``("runs", offsets, lo, hi, first)`` (a :class:`~lpsched.batch.procsets.ProcSets`'
    int64 arrays, rows from job ``first``) as :func:`interval_sets`. Compiled where
    ``lpsched.batch._rows_c`` is built (and ``LPSCHED_PURE_PYTHON`` is not set), else with
    Python's ``%`` formatting and the two functions, the reference; the same text either
    way (tests/batch/test_jobs_csv_rows.py).

    Parameters
    ----------
    columns : list
        ``k`` columns of at least ``rows`` values each.
    texts : list of str
        ``k + 1`` constant texts: before the first column, between columns, after the last.
    rows : int
        The rows to write.

    Returns
    -------
    str
        The rows, one after the other.
    """
    if compiled(_rows_c):
        try:
            return _rows_c.format_rows(columns, texts, rows, FIELD_LIMIT)
        except UnicodeEncodeError:  # a lone surrogate: no UTF-8, the % path writes it
            pass
    codes, values = [], []
    for c in columns:
        if isinstance(c, tuple) and c[0] == "runs":
            _, offsets, lo, hi, first = c
            codes.append("%s")
            values.append(interval_sets(ProcSets(offsets, lo, hi), first, first + rows))
        elif isinstance(c, tuple):  # ("number", values)
            codes.append("%s")
            values.append([number_text(v) for v in c[1][:rows].tolist()])
        else:
            codes.append("%s" if isinstance(c, list) else "%r" if c.dtype.kind == "f" else "%d")
            values.append(c[:rows] if isinstance(c, list) else c[:rows].tolist())
    fmt = texts[0].replace("%", "%%") + "".join(
        code + text.replace("%", "%%") for code, text in zip(codes, texts[1:], strict=True))
    return "".join([fmt % row for row in zip(*values, strict=True)])


def write_jobs_csv(out: IO[str], work: Workload, sched: BatchSchedule,
                   profiles: Sequence[str] | None = None,
                   workload_name: str = WORKLOAD_NAME,
                   ids: dict[int, str] | None = None) -> None:
    """Write ``sched`` (a schedule of ``work``) as Batsim's ``jobs.csv`` to the text stream
    ``out`` (module doc: the columns, their values and formats).

    Parameters
    ----------
    out : text stream
        Where the CSV goes (opened with ``newline=""`` or in text mode; lines end with
        ``\\n``).
    work : Workload
        The jobs simulated (ids, submissions, sizes, estimates).
    sched : BatchSchedule
        Their schedule; ``sched.killed`` (else ``sched.failed``) marks the jobs stopped at
        their estimate.
    profiles : sequence of str, optional
        Each job's profile name (a Batsim workload's own); by default the name of its delay
        (:func:`delay_names`), what :func:`swf_to_batsim` writes.
    workload_name : str
        The ``workload_name`` column (``w0``, Batsim's name of its first workload).
    ids : dict, optional
        Job number -> the id as the workload gives it (``"comp1-ok"``,
        :meth:`BatsimWorkload.id_map`), written as ``job_id``; by default the numbers.

    Examples
    --------
    >>> import io
    >>> from lpsched.batch.simulator import simulate_batch
    >>> work = Workload(job=np.array([1, 2]), submit=np.array([0.0, 1.0]),
    ...                 run=np.array([10.0, 5.0]), size=np.array([2, 1]),
    ...                 estimate=np.array([20.0, 5.0]), processors=2)
    >>> out = io.StringIO()
    >>> write_jobs_csv(out, work, simulate_batch(work, "easy")[0])
    >>> print(out.getvalue(), end="")  # doctest: +NORMALIZE_WHITESPACE
    job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources,consumed_energy,metadata
    1,w0,10,0.0,2,20.0,1,COMPLETED_SUCCESSFULLY,0.0,10.0,10.0,0.0,10.0,1.0,0-1,-1,
    2,w0,5,1.0,1,5.0,1,COMPLETED_SUCCESSFULLY,10.0,5.0,15.0,9.0,14.0,2.8,0,-1,
    """
    n = work.jobs
    killed = sched.killed if sched.killed is not None else sched.failed
    killed = np.zeros(n, bool) if killed is None else np.asarray(killed, bool)
    names: list[str] | None = None
    if profiles is not None:
        names = [_csv_text(p) for p in profiles]
        if len(names) != n:
            raise InvalidInstanceError("profiles", len(names), f"expected one per job ({n})")
    runs = proc_runs(sched.procs)[0]
    offsets, lo, hi = (a.astype(np.int64, copy=False) for a in (runs.offsets, runs.lo, runs.hi))
    delays = np.ascontiguousarray(work.run, dtype=np.float64)
    out.write(",".join(JOBS_COLUMNS) + "\n")
    wl = _csv_text(workload_name)
    for first in range(0, n, CHUNK):
        stop = min(first + CHUNK, n)
        part = slice(first, stop)
        submit, start, end = work.submit[part], sched.start[part], sched.end[part]
        execution = end - start
        with np.errstate(divide="ignore", invalid="ignore"):
            stretch = np.asarray((end - submit) / execution, np.float64)  # float32 exactly
        floats = [_column(c) for c in (submit, work.estimate[part], start, execution, end,
                                       start - submit, end - submit)]
        dead = killed[part]
        job = [_csv_text(ids.get(j, str(j))) for j in work.job[part].tolist()] if ids \
            else work.job[part].astype(np.int64)
        columns: list[Any] = [job, names[first:stop] if names is not None else
                              ("number", delays[part]), floats[0][1],
                              work.size[part].astype(np.int64), floats[1][1]]
        texts = ["", f",{wl},", ",", floats[0][0] + ",", ",", floats[1][0] + ","]
        if dead.any():
            columns += [(~dead).astype(np.int64),
                        [WALLTIME_REACHED if d else COMPLETED for d in dead.tolist()]]
            texts += [",", ","]
        else:
            texts[-1] += "1," + COMPLETED + ","
        for tail, values in floats[2:]:
            columns.append(values)
            texts.append(tail + ",")
        columns += [stretch, ("runs", offsets, lo, hi, first)]
        texts += [",", ",-1,\n"]
        out.write(format_rows(columns, texts, stop - first))


@dataclass(frozen=True)
class BatsimWorkload:
    """The jobs of a Batsim workload, checked, in file order.

    Attributes
    ----------
    job : numpy.ndarray
        lpsched's job numbers (int64): the ids themselves when every id is a whole number,
        else 1, 2, ... in file order.
    subtime : numpy.ndarray
        Submission times (s).
    res : numpy.ndarray
        Resources requested.
    walltime : numpy.ndarray
        Walltimes (s, ``-1``: none).
    delay : numpy.ndarray
        The duration of each job's profile (s, module doc).
    profile : tuple of str
        Each job's profile name.
    nb_res : int or None
        The workload's ``nb_res`` (``None``: not given).
    path : str
        The file read.
    records : int
        The jobs in the file.
    skipped : tuple of int
        Read leniently: the positions skipped (0-based indices into ``jobs``).
    skip_reasons : dict
        The reasons of the skipped jobs, counted.
    rounded : dict
        The ``res`` rounded up (``{"res": n}``: fractional ``res`` under ``lenient``).
    ids : tuple of str
        Each job's id as the file gives it (``"comp1-ok"``, ``"7"``); empty: the job
        numbers.
    approximated : dict
        The jobs whose duration leaves something out, counted: ``"communication
        ignored"`` (a parallel task with ``com`` amounts, decision 367), ``"slowest host
        speed"`` (a parallel task on a heterogeneous platform).
    unsimulated : int
        The jobs skipped because their profile type is not simulated.
    speed : float or None
        The host speed (flop/s) that turned profiles' flops into seconds (the platform's,
        else :data:`DEFAULT_SPEED`), ``None`` when no duration was computed from flops.
    """

    job: np.ndarray
    subtime: np.ndarray
    res: np.ndarray
    walltime: np.ndarray
    delay: np.ndarray
    profile: tuple[str, ...]
    nb_res: int | None
    path: str = ""
    records: int = 0
    skipped: tuple[int, ...] = ()
    skip_reasons: dict[str, int] = field(default_factory=dict)
    rounded: dict[str, int] = field(default_factory=dict)
    ids: tuple[str, ...] = ()
    approximated: dict[str, int] = field(default_factory=dict)
    unsimulated: int = 0
    speed: float | None = None

    @property
    def jobs(self) -> int:
        """Number of jobs kept (the length of every per-job array)."""
        return int(self.job.size)

    def id_text(self) -> list[str]:
        """Each job's id as given (the job number's decimal text when ``ids`` is empty).

        Returns
        -------
        list of str
            One per job, in ``bw``'s order.
        """
        return list(self.ids) if self.ids else [str(j) for j in self.job.tolist()]

    def id_map(self) -> dict[int, str] | None:
        """lpsched's job number -> the id as given, or ``None`` when every id is its
        number's decimal text (nothing to keep).

        Returns
        -------
        dict or None
            For :func:`write_jobs_csv`'s ``ids``.
        """
        text = self.id_text()
        numbers = self.job.tolist()
        if all(t == str(j) for t, j in zip(text, numbers, strict=True)):
            return None
        return dict(zip(numbers, text, strict=True))


@dataclass(frozen=True)
class BatsimPlatform:
    """The compute hosts of a Batsim platform file, with their speeds.

    Batsim's master host (``role`` ``master``, else the host named ``master_host``) and
    storage hosts (``role`` ``storage``) do not compute and are left out (Batsim's
    documentation, "Platform"; :func:`lpsched.platforms.compute_hosts`).

    Attributes
    ----------
    hosts : tuple of str
        The compute hosts, in the file's order.
    speeds : numpy.ndarray
        flop/s of each, in the pstate it starts in.
    path : str
        The file read.
    """

    hosts: tuple[str, ...]
    speeds: np.ndarray
    path: str = ""

    @property
    def processors(self) -> int:
        """The machine size: the number of compute hosts."""
        return len(self.hosts)

    @property
    def speed(self) -> float:
        """The speed durations are computed with: the slowest compute host (flop/s).

        On a homogeneous platform it is every host's speed; on a heterogeneous one no
        allocation runs a job longer (SimGrid's parallel task progresses at the rate of its
        slowest member).
        """
        return float(self.speeds.min())

    @property
    def homogeneous(self) -> bool:
        """Whether every compute host has the same speed."""
        return bool(self.speeds.max() == self.speeds.min())


#: What ``batch --platform`` takes from a platform file, in its refusals.
MACHINE = "Batsim's machine (its compute hosts)"


def parse_speed(text: str, pstate: int = 0) -> float:
    """Read a SimGrid host speed in flop/s: the ``pstate``-th of a comma-separated list.

    Parameters
    ----------
    text : str
        The ``speed`` attribute (``100Mf``, ``1Gf``, ``16.673E9flops``, ``42f`` or a bare
        number; SimGrid's units, :func:`lpsched.platforms.parse_speeds`).
    pstate : int
        The current pstate (the host's ``pstate`` attribute, 0 by default).

    Returns
    -------
    float
        flop/s.

    Raises
    ------
    ValueError
        Not a speed SimGrid reads, or no such pstate.

    Examples
    --------
    >>> parse_speed("100.0Mf, 50Mf"), parse_speed("100.0Mf, 50Mf", 1), parse_speed("1Gf")
    (100000000.0, 50000000.0, 1000000000.0)
    """
    speeds = parse_speeds(text)
    if not 0 <= pstate < len(speeds):
        raise ValueError(f"pstate {pstate} but the speed {text!r} lists {len(speeds)}")
    return speeds[pstate]


def machine_from_platform(plat: Platform) -> BatsimPlatform:
    """Project a platform onto Batsim's machine: its compute hosts and their speeds.

    Parameters
    ----------
    plat : Platform
        A platform read by :func:`lpsched.platforms.read_platform`.

    Returns
    -------
    BatsimPlatform
        The compute hosts (:func:`lpsched.platforms.compute_hosts`: the master and the
        storage hosts left out), in the file's order, each at its speed in the pstate it
        starts in.

    Raises
    ------
    PlatformRefused
        No compute host, or one of speed 0 in its pstate.
    """
    from lpsched.platforms import compute_hosts, refuse, zero_speed

    hosts = compute_hosts(plat)
    if not hosts:
        raise refuse(plat.path, MACHINE, "no compute host (every host is the master or a "
                     "storage, or there is none)")
    idle = zero_speed(hosts)
    if idle is not None:
        raise refuse(plat.path, MACHINE, idle[1], idle[0].line)
    return BatsimPlatform(tuple(h.name for h in hosts),
                          np.array([h.speed for h in hosts], float), plat.path)


def read_platform(path: str | Path) -> BatsimPlatform:
    """Read the compute hosts of a Batsim platform file (a SimGrid platform) with their speeds.

    Parameters
    ----------
    path : str or Path
        The ``.xml`` file (or a stream).

    Returns
    -------
    BatsimPlatform
        The compute hosts, the master and storage hosts left out
        (:func:`machine_from_platform` of :func:`lpsched.platforms.read_platform`).

    Raises
    ------
    ParseError
        The file cannot be read or is not a SimGrid platform (naming the line), or a
        :class:`~lpsched.platforms.PlatformRefused` when no host computes.

    Examples
    --------
    >>> import tempfile, os
    >>> xml = ('<platform version="4.1"><zone id="z" routing="Full">'
    ...        '<host id="master_host" speed="1Gf"/><host id="a" speed="2Gf"/>'
    ...        '<cluster id="c" prefix="n" suffix="" radical="0-1" speed="2Gf" bw="1GBps" '
    ...        'lat="0us"/></zone></platform>')
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     name = os.path.join(tmp, "p.xml")
    ...     with open(name, "w") as fh:
    ...         _ = fh.write(xml)
    ...     plat = read_platform(name)
    >>> plat.hosts, plat.speed
    (('a', 'n0', 'n1'), 2000000000.0)
    """
    from lpsched.platforms import read_platform as read_platform_file

    return machine_from_platform(read_platform_file(path))


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def read_batsim(path: str | Path, lenient: bool = False,
                platform: BatsimPlatform | None = None) -> BatsimWorkload:
    """Read and check a Batsim JSON workload, each job's profile mapped to its duration
    (module doc, "Profiles").

    Parameters
    ----------
    path : str or Path
        The ``.json`` file.
    lenient : bool
        Skip malformed jobs and jobs whose profile type is not simulated (trace replay,
        SMPI, storage, unknown types), counted with their positions, instead of stopping
        at the first.
    platform : BatsimPlatform, optional
        The hosts whose speed turns a parallel task's flops into seconds (default: every
        host at :data:`DEFAULT_SPEED`).

    Returns
    -------
    BatsimWorkload
        The valid jobs, in file order.

    Raises
    ------
    ParseError
        The file cannot be read, is not JSON, is not a Batsim workload (``jobs``,
        ``profiles``), or a job is malformed or has a profile type not simulated (unless
        ``lenient``): one line naming the job (``jobs[i]`` and its id) and what is wrong.

    Examples
    --------
    >>> import json, tempfile, os
    >>> doc = {"nb_res": 4, "jobs": [{"id": 1, "subtime": 0, "res": 2, "walltime": 30,
    ...        "profile": "p"}], "profiles": {"p": {"type": "delay", "delay": 12.5}}}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     name = os.path.join(tmp, "w.json")
    ...     with open(name, "w") as fh:
    ...         json.dump(doc, fh)
    ...     bw = read_batsim(name)
    >>> bw.job.tolist(), bw.delay.tolist(), bw.walltime.tolist(), bw.nb_res
    ([1], [12.5], [30.0], 4)
    """
    p = Path(path)
    where = str(p)
    doc = _workload_doc(_load_json(p), where)
    nb_res = _nb_res(doc.get("nb_res"), where)
    speed = platform.speed if platform is not None else DEFAULT_SPEED
    durations = _Durations(doc["profiles"], speed,
                           platform.homogeneous if platform is not None else True)
    rows: list[Any] = []
    skipped: list[tuple[int, str]] = []
    seen: dict[str, int] = {}
    rounded = 0
    approximated: Counter[str] = Counter()
    for i, job in enumerate(doc["jobs"]):
        row, problem, reason = _check_job(i, job, durations, seen, lenient)
        if row is None:
            if not lenient:
                raise ParseError(where, problem)
            skipped.append((i, reason))
            continue
        seen[row[0]] = i
        rounded += reason == ROUNDED
        approximated.update(row[7])
        rows.append(row)
    text, number, sub, res, wall, delay, names, _ = (list(c) for c in zip(*rows, strict=True)) \
        if rows else ([], [], [], [], [], [], [], [])
    numbered = all(n is not None for n in number) and len(set(number)) == len(number)
    job = np.array(number if numbered else range(1, len(rows) + 1), np.int64)
    return BatsimWorkload(job, np.array(sub, float), np.array(res, np.int64),
                          np.array(wall, float), np.array(delay, float), tuple(names),
                          nb_res, where, len(doc["jobs"]), tuple(i for i, _ in skipped),
                          dict(Counter(reason for _, reason in skipped)),
                          {"res": rounded} if rounded else {}, tuple(text),
                          dict(approximated),
                          sum(reason == UNSIMULATED for _, reason in skipped),
                          speed if durations.flops else None)


def _workload_doc(doc: Any, where: str) -> dict[str, Any]:
    """``doc`` when it has the shape of a Batsim workload (``jobs`` a list, ``profiles`` an
    object); a :class:`ParseError` saying what is missing otherwise."""
    if not isinstance(doc, dict):
        raise ParseError(where, "not a Batsim workload: expected a JSON object with 'jobs', "
                         "'profiles' and 'nb_res'")
    for key, kind, shape in (("jobs", list, "a JSON array"), ("profiles", dict, "a JSON object")):
        if key not in doc:
            raise ParseError(where, f"not a Batsim workload: missing '{key}'")
        if not isinstance(doc[key], kind):
            raise ParseError(where, f"'{key}' must be {shape}")
    return doc


def _load_json(p: Path) -> Any:
    """The JSON value of the file ``p`` (``NaN``/``Infinity`` refused); one clear error for
    an unreadable, empty or malformed file."""
    raw = read_input(p, max_json_bytes(), "JSON file")  # a pipe too; refused when too large
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ParseError(str(p), f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset "
                         f"{exc.start})", raw.count(b"\n", 0, exc.start) + 1) from None
    if not text.strip():
        raise ParseError(str(p), "empty file: a Batsim workload is a JSON object")
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise ParseError(str(p), f"not valid JSON: {exc.msg} (column {exc.colno})",
                         line=exc.lineno) from None
    except ValueError as exc:
        raise ParseError(str(p), f"not valid JSON: {exc}") from None


def _nb_res(value: Any, where: str) -> int | None:
    """``nb_res``: absent (``None``: give ``--processors``) or a whole number in
    ``[1, MAX_PROCESSORS]``."""
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    try:
        return check_processors(value, "nb_res")
    except InvalidInstanceError as exc:
        raise ParseError(where, f"nb_res = {value!r}: {exc.reason}") from None


def _whole(value: Any) -> int | None:
    """``value`` as a whole number (a JSON integer, or a float with no fraction), else
    ``None`` (booleans are not numbers here)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _number(value: Any) -> float | None:
    """``value`` as a finite float (a JSON number), else ``None``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    v = float(value)
    return v if math.isfinite(v) and abs(v) <= FIELD_LIMIT else None


def _job_id(value: Any) -> tuple[str, int | None] | None:
    """A job id: its text as given (a JSON string, or an integer's decimal text) and its
    number when it is one (a JSON integer ``>= 0`` or a string of digits, optionally
    ``workload!digits``, Batsim's long form, at most 2^53); ``None`` for anything else
    (a float, a boolean, an empty string)."""
    if isinstance(value, str):
        if not value:
            return None
        text = value.rsplit("!", 1)[-1]
        number = int(text) if text.isascii() and text.isdigit() else None
        return value, number if number is not None and number <= FIELD_LIMIT else None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0 or \
            value > FIELD_LIMIT:
        return None
    return str(value), value


class _Durations:
    """The duration of each profile on ``res`` hosts of speed ``speed`` (module doc),
    memoised by (profile, res); a problem (malformed) or an unsimulated type is returned
    as ``(None, message, reason)``."""

    def __init__(self, profiles: dict[str, Any], speed: float, homogeneous: bool) -> None:
        self.profiles = profiles
        self.speed = speed
        self.homogeneous = homogeneous
        self.flops = False  # a duration was computed from flops at ``speed``
        self.memo: dict[tuple[str, int], tuple[float | None, str, str, frozenset[str]]] = {}

    def get(self, name: str, res: int, stack: tuple[str, ...] = (),
            ) -> tuple[float | None, str, str, frozenset[str]]:
        key = (name, res)
        if key not in self.memo:
            self.memo[key] = self._compute(name, res, stack)
        return self.memo[key]

    def _compute(self, name: str, res: int, stack: tuple[str, ...],
                 ) -> tuple[float | None, str, str, frozenset[str]]:
        none: frozenset[str] = frozenset()
        spec = self.profiles.get(name)
        if spec is None and "!" in name:  # a sequence may name its parts workload!name
            spec = self.profiles.get(name.rsplit("!", 1)[-1])
        if spec is None:
            return None, f"profile {name!r} is not defined in 'profiles'", \
                "unknown profile", none
        if not isinstance(spec, dict):
            return None, f"profile {name!r} is not a JSON object", "bad profile", none
        if not isinstance(spec.get("type"), str):
            return None, (f"profile {name!r} is missing 'type' (a string: delay, "
                          "parallel_homogeneous, ptask, sequence, ...); add \"type\": "
                          "\"delay\" if it is a delay profile"), "bad profile", none
        kind = spec["type"]
        if kind in DELAY_TYPES:
            if "delay" not in spec:
                return None, (f"profile {name!r} is missing 'delay' (the run time of a "
                              "delay profile, seconds)"), "bad delay profile", none
            delay = _number(spec["delay"])
            if delay is None or delay < 0:
                return None, (f"profile {name!r}: delay = {spec.get('delay')!r}: must be a "
                              "finite number >= 0 (seconds)"), "bad delay profile", none
            return delay, "", "", none
        if kind in HOMOGENEOUS_TYPES or kind in TOTAL_TYPES:
            cpu, com = _number(spec.get("cpu")), _number(spec.get("com", 0))
            if cpu is None or cpu < 0 or com is None or com < 0:
                return None, (f"profile {name!r} ({kind}): cpu and com must be numbers "
                              ">= 0 (flops, bytes)"), "bad parallel profile", none
            if kind in TOTAL_TYPES or \
                    spec.get("generation_strategy") == "DefinedAmountsSpreadUniformly":
                cpu /= res
            self.flops = True
            return cpu / self.speed, "", "", self._notes(com > 0)
        if kind in PTASK_TYPES:
            return self._ptask(name, kind, spec, res)
        if kind in SEQUENCE_TYPES:
            return self._sequence(name, kind, spec, res, stack)
        return None, (f"profile {name!r} has type {kind!r}, which lpsched does not "
                      "simulate (it maps delay, parallel_homogeneous, ptask and sequence "
                      "profiles to rigid jobs); --lenient skips such jobs and counts them"), \
            UNSIMULATED, none

    def _notes(self, com: bool) -> frozenset[str]:
        notes = {"communication ignored"} if com else set()
        if not self.homogeneous:
            notes.add("slowest host speed")
        return frozenset(notes)

    def _ptask(self, name: str, kind: str, spec: dict[str, Any], res: int,
               ) -> tuple[float | None, str, str, frozenset[str]]:
        cpu, com = spec.get("cpu", []), spec.get("com", [])
        ok = isinstance(cpu, list) and isinstance(com, list) and (cpu or com) and all(
            (v := _number(x)) is not None and v >= 0 for x in [*cpu, *com])
        size = (len(cpu) if cpu else math.isqrt(len(com))) if ok else 0
        if not ok or (com and len(com) != size * size):
            return None, (f"profile {name!r} ({kind}): cpu must be an array of numbers >= 0 "
                          "(flops per host) and com an array of size*size numbers >= 0 "
                          "(bytes)"), "bad parallel profile", frozenset()
        if size != res:
            return None, (f"profile {name!r} ({kind}) describes {size} hosts but the job "
                          f"requests res = {res}"), "profile size is not res", frozenset()
        work = max((float(x) for x in cpu), default=0.0)
        self.flops = True
        return work / self.speed, "", "", self._notes(any(float(x) > 0 for x in com))

    def _sequence(self, name: str, kind: str, spec: dict[str, Any], res: int,
                  stack: tuple[str, ...]) -> tuple[float | None, str, str, frozenset[str]]:
        seq, repeat = spec.get("seq"), spec.get("repeat", 1)
        if not isinstance(seq, list) or not seq or not all(isinstance(x, str) for x in seq) \
                or isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
            return None, (f"profile {name!r} ({kind}): seq must be a non-empty array of "
                          "profile names and repeat a whole number >= 1"), \
                "bad sequence profile", frozenset()
        if name in stack:
            return None, (f"profile {name!r} ({kind}) contains itself: "
                          + " -> ".join([*stack, name])), "bad sequence profile", frozenset()
        total, notes = 0.0, frozenset[str]()
        for part in seq:
            value, problem, reason, more = self.get(part, res, (*stack, name))
            if value is None:
                return None, f"in the sequence {name!r}: {problem}", reason, frozenset()
            total += value
            notes |= more
        return total * repeat, "", "", notes


def _check_job(i: int, job: Any, durations: _Durations, seen: dict[str, int],
               lenient: bool = False) -> tuple[Any, str, str]:
    """``jobs[i]`` as ``(id text, number, subtime, res, walltime, duration, profile,
    notes)``, or ``None`` with the problem (naming the job) and the reason counted when it
    is skipped; the reason of a kept job is :data:`ROUNDED` when its fractional ``res``
    was rounded up (``lenient``)."""
    if not isinstance(job, dict):
        return None, f"jobs[{i}]: not a JSON object", "not an object"
    raw = job.get("id")
    name = f"jobs[{i}] (id {raw!r})" if "id" in job else f"jobs[{i}]"
    if "id" not in job:
        return None, f"{name}: missing 'id'", "missing field"
    parsed = _job_id(raw)
    if parsed is None:
        return None, (f"{name}: the id must be a non-empty string or a whole number >= 0 "
                      "(at most 2^53)"), "bad id"
    text, number = parsed
    if text in seen:
        return None, f"{name}: id repeated (first at jobs[{seen[text]}])", "repeated id"
    for key in ("subtime", "res", "profile"):
        if key not in job:
            return None, f"{name}: missing '{key}'", "missing field"
    sub = _number(job["subtime"])
    if sub is None or sub < 0:
        return None, (f"{name}: subtime = {job['subtime']!r}: must be a finite number "
                      ">= 0 (seconds), at most 2^53 (where whole seconds stop being exact)"), \
            "bad subtime"
    res = _whole(job["res"])
    fraction = _number(job["res"]) if res is None else None
    if lenient and fraction is not None and fraction > 0 and math.ceil(fraction) >= 1:
        res = math.ceil(fraction)  # as --lenient does for an SWF processor count
    if res is None or res < 1:
        hint = ("; --lenient rounds a fractional res up" if fraction is not None
                and fraction > 0 else "")
        return None, (f"{name}: res = {job['res']!r}: must be a whole number >= 1 "
                      f"(resources requested){hint}"), "bad res"
    wall = _number(job.get("walltime", NO_WALLTIME))
    if wall is None or not (wall == NO_WALLTIME or wall > 0):
        return None, (f"{name}: walltime = {job['walltime']!r}: must be -1 (no walltime) "
                      "or a number > 0 (seconds), as Batsim requires"), "bad walltime"
    prof = job["profile"]
    if not isinstance(prof, str):
        return None, f"{name}: profile {prof!r} is not a profile name", "unknown profile"
    duration, problem, reason, notes = durations.get(prof, res)
    if duration is None:
        return None, f"{name}: {problem}", reason
    return (text, number, sub, res, wall, duration, prof, notes), "", \
        (ROUNDED if fraction is not None else "")


def batsim_to_workload(bw: BatsimWorkload, estimate: str = "requested",
                       processors: int | None = None, shift: bool = True,
                       ) -> tuple[Workload, list[str]]:
    """The jobs of ``bw`` ready for simulation (module doc: ids, ``nb_res``, walltimes,
    dropped jobs), with each job's profile name.

    Parameters
    ----------
    bw : BatsimWorkload
        From :func:`read_batsim`.
    estimate : {"requested", "runtime"}
        The walltime as estimate (falling back to the delay when there is none), or the
        delay itself (a perfect estimate).
    processors : int, optional
        The machine size (default ``nb_res``).
    shift : bool
        Shift the submissions so that the first is 0 (as for SWF traces).

    Returns
    -------
    (Workload, list of str)
        The jobs in submission order (ties in file order), jobs wider than the machine
        dropped and counted; the profile name of each.

    Raises
    ------
    InvalidInstanceError
        ``estimate`` or ``processors`` is invalid.

    Examples
    --------
    >>> bw = BatsimWorkload(np.array([7, 3]), np.array([5.0, 2.0]), np.array([2, 9]),
    ...                     np.array([-1.0, 60.0]), np.array([10.0, 30.0]), ("a", "b"), 4)
    >>> work, names = batsim_to_workload(bw)
    >>> work.job.tolist(), work.submit.tolist(), work.estimate.tolist(), names
    ([7], [0.0], [10.0], ['a'])
    >>> work.dropped, work.fallbacks
    ({'wider than the machine (4 processors)': 1}, {'size': 0, 'estimate': 1})
    """
    if estimate not in ("requested", "runtime"):
        raise InvalidInstanceError("estimate", estimate, "must be 'requested' or 'runtime'")
    machine = check_processors(processors) if processors is not None else bw.nb_res
    if estimate == "requested":
        fallback = bw.walltime <= 0
        est = np.where(fallback, bw.delay, bw.walltime)
    else:
        fallback, est = np.zeros(bw.jobs, bool), bw.delay.copy()
    wide = bw.res > (machine if machine is not None else MAX_PROCESSORS)
    reasons: Counter[str] = Counter({SKIPPED: len(bw.skipped) - bw.unsimulated,
                                     UNSIMULATED: bw.unsimulated})
    reasons[f"wider than the machine ({machine} processors)" if machine is not None else
            f"wider than {MAX_PROCESSORS:,} processors, the largest machine simulated"] += \
        int(wide.sum())
    order = np.flatnonzero(~wide)
    order = order[np.lexsort((order, bw.subtime[order]))]
    submit = bw.subtime[order]
    if shift and submit.size:
        submit = submit - submit[0]
    work = Workload(job=bw.job[order], submit=submit, run=bw.delay[order],
                    size=bw.res[order], estimate=est[order], processors=machine,
                    dropped={k: v for k, v in reasons.items() if v},
                    fallbacks={"size": 0, "estimate": int(fallback[order].sum())},
                    source=bw.path, records=bw.records, skipped_lines=bw.skipped,
                    skip_reasons=dict(bw.skip_reasons), rounded=dict(bw.rounded))
    return work, [bw.profile[i] for i in order.tolist()]


def swf_to_batsim(trace: SwfTrace, size: str = "requested", estimate: str = "requested",
                  processors: int | None = None) -> tuple[BatsimWorkload, Workload]:
    """The Batsim workload of the jobs lpsched simulates from ``trace`` (module doc).

    Parameters
    ----------
    trace : SwfTrace
        From :func:`~lpsched.core.swf.read_swf`.
    size, estimate, processors
        The conventions of :func:`~lpsched.core.swf.to_workload`.

    Returns
    -------
    (BatsimWorkload, Workload)
        The workload to write (submission times as in the trace, walltimes, delay
        profiles named by their delay, ``nb_res`` the machine) and the jobs kept, with the
        accounting of those dropped.

    Raises
    ------
    ParseError
        No job is kept, or the machine size is unknown (no ``MaxProcs``/``MaxNodes``
        and no ``processors``): ``nb_res`` needs it.

    Examples
    --------
    >>> from lpsched.core.swf import FIELDS, SwfTrace
    >>> rows = np.array([[1, 0, -1, 50, 2, -1, -1, 2, 100, -1, 1, 1, 1, -1, -1, -1, -1, -1],
    ...                  [2, 5, -1, 20, 1, -1, -1, 1, -1, -1, 1, 1, 1, -1, -1, -1, -1, -1]],
    ...                 float)
    >>> trace = SwfTrace({f: rows[:, i] for i, f in enumerate(FIELDS)}, {"MaxProcs": "4"},
    ...                  ["; MaxProcs: 4"])
    >>> bw, work = swf_to_batsim(trace)
    >>> bw.walltime.tolist(), bw.profile, bw.nb_res
    ([100.0, -1.0], ('50', '20'), 4)
    """
    work = to_workload(trace, size=size, estimate=estimate, processors=processors,
                       shift=False).require_jobs()
    if work.processors is None:
        raise ParseError(trace.path or "trace", "the header gives no MaxProcs or MaxNodes: "
                         "give the machine size with --processors (a Batsim workload "
                         "needs nb_res)")
    if estimate == "requested":
        ids = trace.columns["job"]
        by_id = np.argsort(ids, kind="stable")
        rows = by_id[np.searchsorted(ids[by_id], work.job)]
        requested = trace.columns["requested_time"][rows]
        walltime = np.where(requested > 0, requested, NO_WALLTIME)
    else:
        walltime = np.where(work.run > 0, work.run, NO_WALLTIME)
    known = _swf_ids(trace)
    given = tuple(known.get(j, str(j)) for j in work.job.tolist()) if known else ()
    bw = BatsimWorkload(work.job.copy(), work.submit.copy(), work.size.copy(), walltime,
                        work.run.copy(), tuple(delay_names(work.run)), work.processors,
                        trace.path, work.jobs, ids=given)
    return bw, work


def batsim_to_swf(bw: BatsimWorkload, processors: int | None = None) -> SwfTrace:
    """Convert every job of ``bw`` to an SWF trace, in submission order (ties in file order).

    Field 1 is the job number, 2 ``subtime`` in whole seconds, 4 the duration, 8 ``res``, 9
    the walltime (``-1``: none), every other field ``-1``; the header ``MaxProcs`` is
    ``processors`` or ``nb_res``.

    Job numbers are the ids when every id is a whole number >= 1; otherwise (a string id,
    an id 0) the jobs are numbered 1, 2, ... in submission order and each id is kept in a
    comment line ``; BatsimId: N TEXT``, which :func:`swf_to_batsim` reads back. Submission
    times are written as they are when every one is a whole number of seconds, else each
    is rounded to the nearest second (halves up, :func:`fractional_submits` counts them,
    a comment line says so).

    Parameters
    ----------
    bw : BatsimWorkload
        From :func:`read_batsim` or :func:`swf_to_batsim`.
    processors : int, optional
        The machine written as ``MaxProcs`` (default ``nb_res``; none when both are unknown).

    Returns
    -------
    SwfTrace
        Ready for :func:`~lpsched.core.swf.write_swf`.

    Notes
    -----
    Whole seconds and job numbers are decisions 365 and 368.

    Examples
    --------
    >>> bw = BatsimWorkload(np.array([4]), np.array([3.0]), np.array([2]),
    ...                     np.array([-1.0]), np.array([8.0]), ("x",), 16)
    >>> trace = batsim_to_swf(bw)
    >>> trace.max_procs, trace.columns["run"].tolist(), trace.columns["requested_time"].tolist()
    (16, [8.0], [-1.0])
    """
    machine = check_processors(processors) if processors is not None else bw.nb_res
    order = np.lexsort((np.arange(bw.jobs), bw.subtime))
    columns = {name: np.full(bw.jobs, -1.0) for name in FIELDS}
    text = bw.id_text()
    own = bool(bw.jobs) and bool((bw.job >= 1).all()) and bw.id_map() is None
    columns["job"] = bw.job[order].astype(float) if own else \
        np.arange(1, bw.jobs + 1, dtype=float)
    columns["submit"] = np.floor(bw.subtime[order] + 0.5)
    columns["run"] = bw.delay[order]
    columns["requested_procs"] = bw.res[order].astype(float)
    columns["requested_time"] = np.where(bw.walltime[order] > 0, bw.walltime[order],
                                         NO_WALLTIME)
    source = Path(bw.path).name if bw.path else "a Batsim workload"
    comments = ["; Version: 2.2",
                f"; Computer: unknown (converted by lpsched from the Batsim workload "
                f"{source})",
                f"; MaxJobs: {bw.jobs}", f"; MaxRecords: {bw.jobs}"]
    header = {"MaxJobs": str(bw.jobs), "MaxRecords": str(bw.jobs)}
    if machine is not None:
        comments.append(f"; MaxProcs: {machine}")
        header["MaxProcs"] = str(machine)
    comments.append("; Note: profile durations as run times (field 4), res as requested "
                    "processors (field 8), walltime as requested time (field 9, -1: none)")
    rounded = fractional_submits(bw)
    if rounded:
        comments.append(f"; Note: {rounded} submit times rounded to the nearest second "
                        "(halves up)")
    if not own:
        comments.append("; Note: jobs numbered from 1 in submission order; BatsimId lines "
                        "give each job's Batsim id")
        comments.extend(f"; BatsimId: {k} {text[i]}"
                        for k, i in enumerate(order.tolist(), start=1))
    return SwfTrace(columns, header, comments, "")


def fractional_submits(bw: BatsimWorkload) -> int:
    """How many submission times of ``bw`` are not whole seconds (:func:`batsim_to_swf`
    rounds them).

    Parameters
    ----------
    bw : BatsimWorkload
        The jobs.

    Returns
    -------
    int
        The jobs whose ``subtime`` has a fraction.

    Examples
    --------
    >>> bw = BatsimWorkload(np.array([1, 2]), np.array([3.0, 4.5]), np.array([1, 1]),
    ...                     np.array([-1.0, -1.0]), np.array([1.0, 1.0]), ("a", "a"), 1)
    >>> fractional_submits(bw)
    1
    """
    return int(np.count_nonzero(bw.subtime != np.trunc(bw.subtime)))


def _swf_ids(trace: SwfTrace) -> dict[int, str]:
    """The ``; BatsimId: N TEXT`` comment lines of ``trace`` (:func:`batsim_to_swf`)."""
    ids: dict[int, str] = {}
    for line in trace.comments:
        if line.startswith("; BatsimId: "):
            number, _, text = line[len("; BatsimId: "):].partition(" ")
            if number.isdigit() and text:
                ids[int(number)] = text
    return ids


def write_batsim(bw: BatsimWorkload, out: IO[str], description: str = "") -> None:
    """Write ``bw`` as a Batsim JSON workload to the text stream ``out``.

    The document holds ``nb_res`` (when known), ``description`` (when given), ``jobs`` one
    per line in ``bw``'s order (``id``, ``subtime``, ``res``, ``walltime`` with ``-1`` for
    none, ``profile``) and one ``{"type": "delay", "delay": D}`` profile per name; whole
    numbers are written without a fraction.

    Parameters
    ----------
    bw : BatsimWorkload
        The jobs, written in their order.
    out : text stream
        Where the JSON goes.
    description : str
        Batsim ignores it; lpsched says there where the workload comes from.

    Raises
    ------
    InvalidInstanceError
        One profile name is given two different delays.

    Examples
    --------
    >>> import io
    >>> bw = BatsimWorkload(np.array([1]), np.array([0.0]), np.array([2]),
    ...                     np.array([60.0]), np.array([12.5]), ("12.5",), 4)
    >>> out = io.StringIO()
    >>> write_batsim(bw, out)
    >>> print(out.getvalue(), end="")
    {
      "nb_res": 4,
      "jobs": [
        {"id": 1, "subtime": 0, "res": 2, "walltime": 60, "profile": "12.5"}
      ],
      "profiles": {
        "12.5": {"type": "delay", "delay": 12.5}
      }
    }
    """
    profiles: dict[str, float] = {}
    for name, delay in zip(bw.profile, bw.delay.tolist(), strict=True):
        if profiles.setdefault(name, delay) != delay:
            raise InvalidInstanceError(f"profile {name!r}", delay, "one profile name with "
                                       "two delays")
    dumps = json.dumps
    head = ["{"]
    if bw.nb_res is not None:
        head.append(f'  "nb_res": {int(bw.nb_res)},')
    if description:
        head.append(f'  "description": {dumps(description)},')
    out.write("\n".join([*head, '  "jobs": [']) + "\n")
    idmap = bw.id_map() or {}
    jobs = [f'    {{"id": {dumps(idmap[ident]) if ident in idmap else ident}, '
            f'"subtime": {_json_number(sub)}, "res": {res}, '
            f'"walltime": {_json_number(wall)}, "profile": {dumps(name)}}}'
            for ident, sub, res, wall, name in zip(
                bw.job.tolist(), bw.subtime.tolist(), bw.res.tolist(),
                bw.walltime.tolist(), bw.profile, strict=True)]
    out.write(",\n".join(jobs) + ("\n" if jobs else ""))
    out.write('  ],\n  "profiles": {\n')
    out.write(",\n".join(f'    {dumps(name)}: {{"type": "delay", "delay": '
                         f'{_json_number(delay)}}}' for name, delay in profiles.items()))
    out.write(("\n" if profiles else "") + "  }\n}\n")


def _json_number(value: float) -> str:
    """A finite number as JSON: whole numbers without a fraction, others exactly."""
    return number_text(value)


class LoadedJobs(NamedTuple):
    """What :func:`load_jobs` returns: the jobs, each one's profile name (``None``: SWF),
    the ids as given when they are not the job numbers (``None``: they are), and the
    jobs whose duration is approximate (:attr:`BatsimWorkload.approximated`)."""

    # written out: Sphinx shows a NamedTuple field's annotation as text, and a bare
    # ``Workload`` names two classes (lpsched.core.swf, lpsched.campaigns.instance)
    work: lpsched.core.swf.Workload
    profiles: list[str] | None
    ids: dict[int, str] | None
    approximated: dict[str, int]


def load_jobs(path: str | Path, size: str = "requested", estimate: str = "requested",
              processors: int | None = None, lenient: bool = False,
              platform: str | Path | None = None) -> LoadedJobs:
    """The jobs of an SWF trace or a Batsim workload (``.json``) under the conventions,
    with the profile name and the id of each.

    Parameters
    ----------
    path : str or Path
        ``.json`` (Batsim, :func:`read_batsim` then :func:`batsim_to_workload`), anything
        else SWF (:func:`~lpsched.core.swf.read_swf` then
        :func:`~lpsched.core.swf.to_workload`).
    size, estimate, processors, lenient
        The reading conventions (``size`` must be ``"requested"`` for Batsim).
    platform : str or Path, optional
        A Batsim platform file (:func:`read_platform`): its compute hosts are the machine
        (unless ``processors`` is given) and their speed turns flops into seconds.

    Returns
    -------
    LoadedJobs
        The jobs, their profile names and ids, the approximations counted.

    Raises
    ------
    InvalidInstanceError
        ``size="allocated"`` for a Batsim workload, whose jobs have one size (``res``).

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     name = os.path.join(tmp, "t.swf")
    ...     with open(name, "w") as fh:
    ...         _ = fh.write("; MaxProcs: 4\\n1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\\n")
    ...     loaded = load_jobs(name)
    >>> loaded.work.jobs, loaded.work.processors, loaded.profiles
    (1, 4, None)
    """
    from lpsched.core.swf import read_swf

    plat = read_platform(platform) if platform is not None else None
    if is_batsim(path):
        if size != "requested":
            raise InvalidInstanceError("size", size, "a Batsim job has one size, the "
                                       "resources it requests (res): --size applies to SWF "
                                       "traces only")
        bw = read_batsim(path, lenient=lenient, platform=plat)
        machine = processors if processors is not None else \
            plat.processors if plat is not None else None
        work, names = batsim_to_workload(bw, estimate, machine)
        return LoadedJobs(work, names, bw.id_map(), dict(bw.approximated))
    if plat is not None and processors is None:
        processors = plat.processors
    work = to_workload(read_swf(path, lenient=lenient), size=size, estimate=estimate,
                       processors=processors)
    return LoadedJobs(work, None, None, {})


def is_batsim(path: str | Path) -> bool:
    """Whether ``path`` names a Batsim workload (``.json``) rather than an SWF trace; a
    pipe or FIFO, whose name says nothing, is one when its first byte after blanks (and a
    byte-order mark) is ``{`` (:func:`lpsched.core.inputs.peek`: the bytes stay for the
    reader).

    Parameters
    ----------
    path : str or Path
        A file name, or a pipe (``/dev/stdin``, ``/dev/fd/63``).

    Returns
    -------
    bool
        ``True`` when the name ends with ``.json`` (any case), or for a stream holding a
        JSON object.

    Examples
    --------
    >>> is_batsim("w.json"), is_batsim("t.swf.gz")
    (True, False)
    """
    if str(path).lower().endswith(".json"):
        return True
    if not is_stream(path):
        return False
    try:
        return peek(path).lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{")
    except ParseError:
        return False  # the reader reports it
