"""Batsim's file formats (issue 17): the ``jobs.csv`` schedule that evalys reads, and JSON
workloads of delay jobs, read, written and converted to and from SWF.

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
time, i.e. Batsim's **delay** profiles (``{"type": "delay", "delay": SECONDS}``; Batsim's newer
name ``DelayProfile`` is read too); a job whose profile has another type is an error naming
the job, its profile and the type. The mapping to an lpsched workload:

* job ids: a JSON integer ``>= 0`` or a string of digits (a ``workload!`` prefix, Batsim's
  long form, is dropped), at most 2^53, unique: lpsched numbers jobs as SWF does;
* ``subtime`` -> submission time (a finite number ``>= 0``); as for SWF, the submissions are
  shifted so the first is 0;
* ``res`` -> size (a whole number ``>= 1``); ``nb_res`` -> the machine (``--processors``
  overrides it); jobs wider than the machine are dropped and counted, as for SWF;
* the delay -> run time; ``walltime`` -> estimate (``estimate="requested"``; a missing
  walltime or ``-1``, Batsim's "none", falls back to the delay and is counted among the
  fallbacks, as an SWF requested time of ``-1`` does; ``estimate="runtime"`` uses the delay);
  Batsim kills a job at its walltime, lpsched does so under ``kill`` (``--kill-at-estimate``);
* ``lenient``: a malformed job (a missing or ill-typed field, an unknown profile, a repeated
  id) is skipped and counted instead of being an error, as a malformed SWF line is; the
  positions skipped are kept (``jobs[i]``, 0-based). A profile of another type (or with no
  ``type``) is an error even then. A fractional ``res`` is the one value repaired, as a
  fractional SWF processor count is: rounded *up* (``2.5`` -> 3) and counted
  (``rounded``).

**Conversion** (:func:`swf_to_batsim`, :func:`batsim_to_swf`): SWF -> Batsim writes the jobs
lpsched would simulate from the trace (:func:`~lpsched.core.swf.to_workload`'s conventions:
the size and estimate fields chosen, dropped jobs left out) with their submission times as in
the trace (not shifted), one delay profile per distinct run time named by it (``"3600"``, as
Batsim's own ``tools/swf_to_batsim_workload_delay.py`` names them), ``walltime`` = the
requested time (field 9) when known, else ``-1``; ``nb_res`` = the machine. Batsim -> SWF
writes every job read: field 1 the id, 2 ``subtime``, 4 the delay, 8 ``res``, 9 the
walltime (``-1`` when none), the others ``-1``, and ``; MaxProcs: nb_res``. Either way the
simulated start times do not change, and Batsim -> SWF -> Batsim gives back the same jobs
(ids, submission times, sizes, walltimes, delays; profiles are renamed by their delay).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from lpsched.batch.procsets import ProcSets, proc_runs
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

if TYPE_CHECKING:
    from lpsched.batch.simulator import BatchSchedule

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
#: the profile types lpsched simulates: Batsim's delay profile (old and new names)
DELAY_TYPES = ("delay", "DelayProfile")
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
    """Batsim's interval-set text of jobs ``first`` to ``stop - 1`` from their runs
    (``[lo, hi)`` of consecutive ids, increasing, none adjacent): inclusive ranges
    separated by spaces, ``0-3 7``; one string per run, then one join per job, O(runs).

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
    offsets = runs.offsets[first:stop + 1].tolist()
    lo = runs.lo[offsets[0]:offsets[-1]].tolist()
    hi = runs.hi[offsets[0]:offsets[-1]].tolist()
    parts = [str(a) if b - a == 1 else f"{a}-{b - 1}" for a, b in zip(lo, hi, strict=True)]
    return [" ".join(parts[a - offsets[0]:b - offsets[0]]) for a, b in pairwise(offsets)]


def _csv_text(text: str) -> str:
    """``text`` as one CSV field (quoted when it holds a comma, a quote or a line break)."""
    if any(c in text for c in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


def _column(values: np.ndarray) -> tuple[str, list[Any]]:
    """The ``%`` format and the Python values of one float column: ``%d.0`` on whole
    numbers when every value is one (the same text as ``repr``, formatted faster), else
    ``%r``."""
    whole = np.isfinite(values) & (values == np.trunc(values)) & (np.abs(values) < 1e16)
    if whole.all():
        return "%d.0", values.astype(np.int64).tolist()
    return "%r", values.tolist()


def write_jobs_csv(out: IO[str], work: Workload, sched: BatchSchedule,
                   profiles: Sequence[str] | None = None,
                   workload_name: str = WORKLOAD_NAME) -> None:
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
    names = [_csv_text(p) for p in profiles] if profiles is not None else \
        delay_names(work.run)
    if len(names) != n:
        raise InvalidInstanceError("profiles", len(names), f"expected one per job ({n})")
    runs = proc_runs(sched.procs)[0]
    out.write(",".join(JOBS_COLUMNS) + "\n")
    wl = _csv_text(workload_name).replace("%", "%%")
    for first in range(0, n, CHUNK):
        stop = min(first + CHUNK, n)
        part = slice(first, stop)
        submit, start, end = work.submit[part], sched.start[part], sched.end[part]
        execution = end - start
        with np.errstate(divide="ignore", invalid="ignore"):
            stretch = (end - submit) / execution
        floats = [_column(c) for c in (submit, work.estimate[part], start, execution, end,
                                       start - submit, end - submit)]
        dead = killed[part]
        state = ("%d,%s" if dead.any() else "1," + COMPLETED)
        fmt = (f"%d,{wl},%s,{floats[0][0]},%d,{floats[1][0]},{state},"
               + ",".join(f for f, _ in floats[2:]) + ",%r,%s,-1,\n")
        columns = [work.job[part].tolist(), names[first:stop], floats[0][1],
                   work.size[part].tolist(), floats[1][1]]
        if dead.any():
            columns += [(~dead).astype(int).tolist(),
                        [WALLTIME_REACHED if d else COMPLETED for d in dead.tolist()]]
        columns += [values for _, values in floats[2:]]
        columns += [stretch.tolist(), interval_sets(runs, first, stop)]
        out.write("".join([fmt % row for row in zip(*columns, strict=True)]))


@dataclass(frozen=True)
class BatsimWorkload:
    """The jobs of a Batsim workload, checked, in file order: ``job`` (ids, int64),
    ``subtime`` (s), ``res`` (resources), ``walltime`` (s, ``-1``: none), ``delay`` (s, the
    delay of the job's profile), ``profile`` (its name); ``nb_res`` (``None``: not given).
    From a file also ``path``, ``records`` (jobs in the file) and, when read leniently, the
    positions skipped (``skipped``, 0-based indices into ``jobs``) and the reasons
    (``skip_reasons``, counted), and the ``res`` rounded up (``rounded``, ``{"res": n}``:
    fractional ``res`` under ``lenient``)."""

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

    @property
    def jobs(self) -> int:
        """Number of jobs kept (the length of every per-job array)."""
        return int(self.job.size)


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def read_batsim(path: str | Path, lenient: bool = False) -> BatsimWorkload:
    """Read and check a Batsim JSON workload of delay jobs (module doc).

    Parameters
    ----------
    path : str or Path
        The ``.json`` file.
    lenient : bool
        Skip malformed jobs (counted, their positions kept) instead of stopping at the
        first.

    Returns
    -------
    BatsimWorkload
        The valid jobs, in file order.

    Raises
    ------
    ParseError
        The file cannot be read, is not JSON, is not a Batsim workload (``jobs``,
        ``profiles``, ``nb_res``), a job is malformed (unless ``lenient``), or a job's profile
        is not a delay profile (always): the message names the job (``jobs[i]`` and its id)
        and what is wrong.

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
    doc = _load_json(p)
    where = str(p)
    if not isinstance(doc, dict):
        raise ParseError(where, "not a Batsim workload: expected a JSON object with 'jobs', "
                         "'profiles' and 'nb_res'")
    for key, kind, shape in (("jobs", list, "a JSON array"), ("profiles", dict, "a JSON object")):
        if key not in doc:
            raise ParseError(where, f"not a Batsim workload: missing '{key}'")
        if not isinstance(doc[key], kind):
            raise ParseError(where, f"'{key}' must be {shape}")
    nb_res = _nb_res(doc.get("nb_res"), where)
    rows: list[tuple[int, float, int, float, float, str]] = []
    skipped: list[tuple[int, str]] = []
    seen: dict[int, int] = {}
    profiles: dict[str, Any] = doc["profiles"]
    rounded = 0
    for i, job in enumerate(doc["jobs"]):
        row, problem, reason = _check_job(i, job, profiles, seen, where, lenient)
        if row is None:
            if not lenient:
                raise ParseError(where, problem)
            skipped.append((i, reason))
            continue
        seen[row[0]] = i
        rounded += reason == ROUNDED
        rows.append(row)
    job_, sub, res, wall, delay, names = (list(c) for c in zip(*rows, strict=True)) if rows \
        else ([], [], [], [], [], [])
    return BatsimWorkload(np.array(job_, np.int64), np.array(sub, float),
                          np.array(res, np.int64), np.array(wall, float),
                          np.array(delay, float), tuple(names), nb_res, where,
                          len(doc["jobs"]), tuple(i for i, _ in skipped),
                          dict(Counter(reason for _, reason in skipped)),
                          {"res": rounded} if rounded else {})


def _load_json(p: Path) -> Any:
    """The JSON value of the file ``p`` (``NaN``/``Infinity`` refused); one clear error for
    an unreadable, empty or malformed file."""
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise ParseError(str(p), f"cannot read file: {exc.strerror or exc}") from None
    text = raw.decode("utf-8-sig")
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


def _job_id(value: Any) -> int | None:
    """A job id as lpsched's job number: a JSON integer ``>= 0`` or a string of digits,
    optionally ``workload!digits`` (Batsim's long form), at most 2^53."""
    if isinstance(value, str):
        text = value.rsplit("!", 1)[-1]
        value = int(text) if text.isascii() and text.isdigit() else None
    elif isinstance(value, bool) or not isinstance(value, int):
        value = None
    return value if value is not None and 0 <= value <= FIELD_LIMIT else None


def _check_job(i: int, job: Any, profiles: dict[str, Any], seen: dict[int, int],
               where: str, lenient: bool = False) -> tuple[Any, str, str]:
    """``jobs[i]`` as ``(id, subtime, res, walltime, delay, profile)``, or ``None`` with the
    problem (naming the job) and the reason counted when it is skipped; the reason of a
    kept job is :data:`ROUNDED` when its fractional ``res`` was rounded up (``lenient``).
    A profile of another type than delay (or with no ``type``) raises
    :class:`~lpsched.errors.ParseError` at once."""
    if not isinstance(job, dict):
        return None, f"jobs[{i}]: not a JSON object", "not an object"
    raw = job.get("id")
    name = f"jobs[{i}] (id {raw!r})" if "id" in job else f"jobs[{i}]"
    if "id" not in job:
        return None, f"{name}: missing 'id'", "missing field"
    ident = _job_id(raw)
    if ident is None:
        return None, (f"{name}: the id must be a whole number >= 0 (at most 2^53) or a "
                      "string of digits: lpsched numbers jobs as SWF does"), "bad id"
    if ident in seen:
        return None, f"{name}: id repeated (first at jobs[{seen[ident]}])", "repeated id"
    for key in ("subtime", "res", "profile"):
        if key not in job:
            return None, f"{name}: missing '{key}'", "missing field"
    sub = _number(job["subtime"])
    if sub is None or sub < 0:
        return None, (f"{name}: subtime = {job['subtime']!r}: must be a finite number "
                      ">= 0 (seconds)"), "bad subtime"
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
    if not isinstance(prof, str) or prof not in profiles:
        return None, (f"{name}: profile {prof!r} is not defined in 'profiles'"),\
            "unknown profile"
    spec = profiles[prof]
    delay_only = ("lpsched simulates delay profiles only ({\"type\": \"delay\", "
                  "\"delay\": SECONDS}, a fixed run time)")
    if not isinstance(spec, dict):
        raise ParseError(where, f"{name}: profile {prof!r} is not a JSON object: "
                         f"{delay_only}")
    if "type" not in spec:
        raise ParseError(where, f"{name}: profile {prof!r} is missing 'type': {delay_only}; "
                         "add \"type\": \"delay\" if it is one")
    kind = spec["type"]
    if kind not in DELAY_TYPES:
        raise ParseError(where, f"{name}: profile {prof!r} has type {kind!r}: {delay_only}; "
                         "give this job a delay profile or remove it")
    if "delay" not in spec:
        return None, (f"{name}: profile {prof!r} is missing 'delay' (the run time of a "
                      "delay profile, seconds)"), "bad delay profile"
    delay = _number(spec["delay"])
    if delay is None or delay < 0:
        return None, (f"{name}: profile {prof!r}: delay = {spec['delay']!r}: must be a "
                      "finite number >= 0 (seconds)"), "bad delay profile"
    return (ident, sub, res, wall, delay, prof), "", (ROUNDED if fraction is not None else "")


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
    reasons: Counter[str] = Counter({SKIPPED: len(bw.skipped)})
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
    bw = BatsimWorkload(work.job.copy(), work.submit.copy(), work.size.copy(), walltime,
                        work.run.copy(), tuple(delay_names(work.run)), work.processors,
                        trace.path, work.jobs)
    return bw, work


def batsim_to_swf(bw: BatsimWorkload, processors: int | None = None) -> SwfTrace:
    """The SWF trace of every job of ``bw``, in submission order (ties in file order):
    field 1 the id, 2 ``subtime``, 4 the delay, 8 ``res``, 9 the walltime (``-1``: none),
    every other field ``-1``; the header ``MaxProcs`` is ``processors`` or ``nb_res``.

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
    columns["job"] = bw.job[order].astype(float)
    columns["submit"] = bw.subtime[order]
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
    comments.append("; Note: delay profiles as run times (field 4), res as requested "
                    "processors (field 8), walltime as requested time (field 9, -1: none)")
    return SwfTrace(columns, header, comments, "")


def write_batsim(bw: BatsimWorkload, out: IO[str], description: str = "") -> None:
    """Write ``bw`` as a Batsim JSON workload to the text stream ``out``: ``nb_res`` (when
    known), ``description`` (when given), ``jobs`` one per line in ``bw``'s order (``id``,
    ``subtime``, ``res``, ``walltime`` with ``-1`` for none, ``profile``) and one
    ``{"type": "delay", "delay": D}`` profile per name; whole numbers written without a
    fraction.

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
    jobs = [f'    {{"id": {ident}, "subtime": {_json_number(sub)}, "res": {res}, '
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


def load_jobs(path: str | Path, size: str = "requested", estimate: str = "requested",
              processors: int | None = None, lenient: bool = False,
              ) -> tuple[Workload, list[str] | None]:
    """The jobs of an SWF trace or a Batsim workload (``.json``) under the conventions,
    and the profile name of each (``None`` for SWF: their delays name them).

    Parameters
    ----------
    path : str or Path
        ``.json`` (Batsim, :func:`read_batsim` then :func:`batsim_to_workload`), anything
        else SWF (:func:`~lpsched.core.swf.read_swf` then
        :func:`~lpsched.core.swf.to_workload`).
    size, estimate, processors, lenient
        The reading conventions (``size`` must be ``"requested"`` for Batsim).

    Returns
    -------
    (Workload, list of str or None)
        The jobs and their profile names.

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
    ...     work, names = load_jobs(name)
    >>> work.jobs, work.processors, names
    (1, 4, None)
    """
    from lpsched.core.swf import read_swf

    if is_batsim(path):
        if size != "requested":
            raise InvalidInstanceError("size", size, "a Batsim job has one size, the "
                                       "resources it requests (res): --size applies to SWF "
                                       "traces only")
        work, names = batsim_to_workload(read_batsim(path, lenient=lenient), estimate,
                                         processors)
        return work, names
    work = to_workload(read_swf(path, lenient=lenient), size=size, estimate=estimate,
                       processors=processors)
    return work, None


def is_batsim(path: str | Path) -> bool:
    """Whether ``path`` names a Batsim workload (``.json``) rather than an SWF trace.

    Parameters
    ----------
    path : str or Path
        A file name.

    Returns
    -------
    bool
        ``True`` when the name ends with ``.json`` (any case).

    Examples
    --------
    >>> is_batsim("w.json"), is_batsim("t.swf.gz")
    (True, False)
    """
    return str(path).lower().endswith(".json")
