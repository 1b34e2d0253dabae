"""Map experiment cells over an executor and commit each finished cell to a store.

``executor``: ``"local"`` (``jobs`` processes, default), ``"dask://HOST:PORT"`` (a running
``dask.distributed`` scheduler; needs ``lpsched[dask]``), or any object with ``submit`` that
returns futures (a ``concurrent.futures`` executor or a ``dask.distributed.Client``). Cells
already in the store are skipped, so an interrupted run resumes where it stopped. The
function must be picklable (a module-level function) and deterministic.

The run holds the store's writer lock (:meth:`ResultStore.lock`) from before it reads which
cells are done until its last commit: a second run on the same store fails at once with
one :class:`~lpsched.errors.StoreError` line ("... is in use by another run (pid N)")
instead of recomputing every remaining cell beside the first. The kernel releases the lock
when the run ends, however it ends (``kill -9`` included).

Local worker processes exit when the process that started them dies, however it dies
(``kill -9`` included): on Linux the kernel sends them ``SIGKILL``
(``prctl(PR_SET_PDEATHSIG)``), and on every system a thread in each worker watches the
parent (a ``pidfd`` where the kernel has one, else its parent id, polled) and ends the worker
when it is gone.

A Dask address is checked before anything runs: ``dask://HOST:PORT`` with a host and a port
in 1..65535 (else :class:`~lpsched.errors.LpschedError`, the CLI's exit 2), and a scheduler
that does not accept a TCP connection within :data:`CONNECT_TIMEOUT` seconds is reported as
such rather than after Dask's own 30 s.

Warnings raised inside worker processes (numpy overflow, scipy, ...) are not printed by
the workers: each batch records them and the parent re-issues each distinct warning once
per batch, so they reach the caller's warning filters (the CLI's summary on stderr)
instead of flooding stderr.

A cell that took at least :data:`COLLECT_AFTER` CPU seconds is followed by a full garbage
collection, in the lead process and in the workers (decision 432).
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import gc
import math
import os
import select
import socket
import sys
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from lpsched.core import caches
from lpsched.core.store import ResultStore, RowSchema
from lpsched.errors import LpschedError

CellFn = Callable[[Any], list[dict[str, Any]]]


class Progress:
    """Report the progress of a run on stderr, with no dependency.

    On a terminal, one line redrawn in place (at most every :data:`REDRAW` seconds);
    otherwise (a log file, a pipe) a plain line every :data:`LOG_EVERY` seconds and one at
    the end, so a log holds a few lines, not hundreds of carriage returns.

    The estimate of the time left is shown once two cells are done. With ``work`` (the
    estimated cost of each cell, in any unit: jobs simulated, tasks, LP size), it is the
    time per unit of work done so far times the work left, and says "by work"; without
    it, the mean time of the cells done times the cells left, and says "by cells" (cells
    may differ in cost). Either is an estimate, never a promise: a cell far costlier than
    its work says still takes longer.

    Parameters
    ----------
    total : int
        How many cells this run computes.
    label : str
        The experiment's name, shown first on the line.
    enabled : bool
        ``False`` writes nothing (``--quiet``).
    stream : file-like, optional
        Where to write; standard error by default.
    work : sequence of float, optional
        The cost estimate of every cell (``total`` values, all >= 0, not all 0), in the
        order :meth:`step` will be told of them or given with each step.
    """

    def __init__(self, total: int, label: str, enabled: bool = True,
                 stream: Any = None, work: Sequence[float] | None = None) -> None:
        self.total, self.label, self.enabled = total, label, enabled
        self.done = 0
        self.work_total = float(sum(work)) if work is not None else 0.0
        if work is not None and (len(work) != total or self.work_total <= 0
                                 or not math.isfinite(self.work_total)
                                 or min(work, default=0.0) < 0):
            raise ValueError(f"work: {total} finite costs >= 0 with a positive sum needed")
        self.work_done = 0.0
        self.t0 = time.perf_counter()
        self.stream = stream if stream is not None else sys.stderr
        isatty = getattr(self.stream, "isatty", None)
        self.terminal = bool(isatty and isatty())
        self.last = -math.inf

    def _text(self, elapsed: float) -> str:
        frac = self.done / max(self.total, 1)
        left = ""
        if self.done >= 2 and self.done < self.total:
            if self.work_total > 0 and self.work_done > 0:
                rest = elapsed / self.work_done * (self.work_total - self.work_done)
                left = f", ~{rest:.0f}s left (by work)"
            else:
                left = f", ~{elapsed / self.done * (self.total - self.done):.0f}s left (by cells)"
        if self.terminal:
            bar = "#" * int(30 * frac)
            return (f"{self.label} [{bar:<30}] {self.done}/{self.total} "
                    f"{elapsed:6.0f}s elapsed{left}")
        return f"{self.label}: {self.done}/{self.total} cells, {elapsed:.0f}s elapsed{left}"

    def step(self, work: float = 0.0) -> None:
        """Count one more finished cell and report it (nothing is written when disabled).

        Parameters
        ----------
        work : float
            The finished cell's cost estimate, when the bar was given ``work``.
        """
        self.done += 1
        self.work_done += work
        if not self.enabled:
            return
        now = time.perf_counter()
        final = self.done == self.total
        if not final and now - self.last < (REDRAW if self.terminal else LOG_EVERY):
            return
        self.last = now
        text = self._text(now - self.t0)
        if self.terminal:
            self.stream.write(f"\r\x1b[K{text}" + ("\n" if final else ""))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()


#: seconds between two redraws of the progress line on a terminal
REDRAW = 0.2
#: seconds between two progress lines when stderr is not a terminal
LOG_EVERY = 30.0


#: seconds to wait for a Dask scheduler to accept a connection
CONNECT_TIMEOUT = 5.0

_EXECUTOR_FORMS = "'local' or 'dask://HOST:PORT'"


def parse_executor(text: str) -> tuple[str, int] | None:
    """Check an ``--executor`` value and return where it runs the cells.

    ``None`` for ``"local"``, ``(host, port)`` for ``dask://HOST:PORT`` (the scheduler of a
    running ``dask.distributed`` cluster).

    Parameters
    ----------
    text : str
        ``"local"`` or ``"dask://HOST:PORT"`` (an IPv6 host in brackets).

    Returns
    -------
    tuple of (str, int) or None
        The scheduler's host and port, or ``None`` for local processes.

    Raises
    ------
    LpschedError
        Another form, a missing host or port, or a port outside 1..65535.

    Examples
    --------
    >>> parse_executor("dask://10.0.0.5:8786")
    ('10.0.0.5', 8786)
    """
    if text == "local":
        return None
    if not text.startswith("dask://"):
        raise LpschedError(f"{text!r}: unknown executor, expected {_EXECUTOR_FORMS}")
    rest = text[len("dask://"):]
    host, sep, port = rest.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not sep or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise LpschedError(f"{text!r}: needs a scheduler host and port "
                           "(dask://HOST:PORT, e.g. dask://127.0.0.1:8786)")
    return host, int(port)


def _dask_client(text: str) -> Any:
    host, port = parse_executor(text) or ("", 0)
    try:  # a quick answer when nothing listens there, with or without dask installed
        socket.create_connection((host, port), timeout=CONNECT_TIMEOUT).close()
    except OSError as exc:
        why = "timed out" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc))
        raise LpschedError(f"executor {text!r}: cannot connect to a Dask scheduler at "
                           f"{host}:{port} within {CONNECT_TIMEOUT:g} s ({why})") from None
    try:
        from dask.distributed import Client
    except ImportError:  # pragma: no cover - depends on the extra
        raise LpschedError("the dask executor needs the extra: "
                           "pip install 'lpsched[dask]'") from None
    bracketed = f"[{host}]" if ":" in host else host
    try:
        return Client(f"tcp://{bracketed}:{port}", timeout=CONNECT_TIMEOUT)
    except OSError as exc:
        raise LpschedError(f"executor {text!r}: no Dask scheduler answered at {host}:{port} "
                           f"within {CONNECT_TIMEOUT:g} s ({exc})") from None


# --------------------------------------------------------------------------------------
# Workers that die with their parent
# --------------------------------------------------------------------------------------

#: seconds between two looks at the parent where the system has no pidfd
WATCH_PERIOD = 0.5
_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int) -> None:
    """``ProcessPoolExecutor`` initializer: end this worker when ``parent`` (the process
    that ran :func:`run_cells`) dies. Linux: ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` (the
    kernel kills the worker the moment its parent exits, even inside compiled code);
    everywhere: a daemon thread waiting on a pidfd of the parent, or polling its parent
    id, that calls ``os._exit`` once the parent is gone (a worker started through a fork
    server, whose parent is not ``parent``, is covered by the pidfd)."""
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - no prctl: the thread does it
            pass
    if not _alive(parent):  # died before the prctl call
        os._exit(1)
    threading.Thread(target=_watch, args=(parent, os.getppid()), daemon=True,
                     name="lpsched-parent-watch").start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - a pid reused by another user's process
        return False
    return True


def _watch(parent: int, ppid: int) -> None:
    fd = -1
    if hasattr(os, "pidfd_open"):
        try:
            fd = os.pidfd_open(parent)
        except OSError:  # pragma: no cover - old kernel
            fd = -1
    while True:
        if fd >= 0:
            readable, _, _ = select.select([fd], [], [], WATCH_PERIOD)
            if readable:  # the parent has exited (a zombie counts)
                os._exit(1)
        else:
            time.sleep(WATCH_PERIOD)
        if os.getppid() != ppid or not _alive(parent):
            os._exit(1)


Caught = tuple[type[Warning], str, str, int]


def _batch(fn: CellFn, cells: list[Any],
           ) -> tuple[list[tuple[Any, list[dict[str, Any]]]], list[Caught]]:
    """Run ``fn`` on each cell in a worker; the distinct warnings it raised come back
    (category, message, file, line) instead of being printed by the worker."""
    _release_on_switch(fn)
    seen: dict[Caught, None] = {}

    def keep(message: Any, category: type[Warning], filename: str, lineno: int,
             file: Any = None, line: Any = None) -> None:
        seen.setdefault((category, str(message), filename, lineno), None)

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = keep
        out = [(cell, _collected(fn, cell)) for cell in cells]
    return out, list(seen)


#: the module of the cell function this worker ran last (:func:`_release_on_switch`)
_LAST_MODULE: dict[str, str | None] = {"module": None}


def _release_on_switch(fn: CellFn) -> None:
    """In a worker: when ``fn`` comes from another module than the cells it ran before
    (another family's experiment), let the previous experiments' caches go
    (:func:`lpsched.core.caches.release`). A worker of ``reproduce all`` otherwise kept
    every trace and instance it had cached since its start (decision 700)."""
    module = getattr(getattr(fn, "func", fn), "__module__", None)
    if _LAST_MODULE["module"] is not None and module != _LAST_MODULE["module"]:
        caches.release()
    _LAST_MODULE["module"] = module


#: a cell that took this much CPU is followed by a full garbage collection (decision 432)
COLLECT_AFTER = 0.5


def _collected(fn: CellFn, cell: Any) -> list[dict[str, Any]]:
    """``fn(cell)``, then a full garbage collection when it took at least
    :data:`COLLECT_AFTER` CPU seconds. A simulation leaves reference cycles holding its large
    arrays; Python collects cycles by count of container objects, not by bytes, so without
    this a process running many large cells grew by each cell's arrays (ch. 5 on RICC:
    4.5 GB peak in one process, ~45 MB a cell; 124 MB with it). The collection costs
    milliseconds, nothing beside a cell of half a second."""
    t0 = time.process_time()  # CPU, not wall: a loaded machine does not make a cell large
    rows = fn(cell)
    if time.process_time() - t0 >= COLLECT_AFTER:
        gc.collect()
    return rows


def _reissue(caught: list[Caught]) -> None:
    for category, message, filename, lineno in caught:
        warnings.warn_explicit(message, category, filename, lineno)


@dataclass(frozen=True)
class Plan:
    """The cells of one experiment, the function computing them and the store they go to:
    what :func:`run_plans` runs (several plans share one pool and one progress line).

    ``weight`` puts the plans' costs on one scale for the progress line's time left: the
    plan's expected total work (e.g. CPU seconds at its size), shared among its cells in
    proportion to ``cost(cell)`` (equally without ``cost``).
    """

    experiment: str
    cells: Sequence[Any]
    fn: CellFn
    store: ResultStore
    group: Callable[[Any], Any] | None = None
    schema: RowSchema | None = None
    cost: Callable[[Any], float] | None = None
    weight: float = 1.0


def run_cells(experiment: str, cells: Sequence[Any], fn: CellFn, store: ResultStore,
              executor: Any = "local", jobs: int = 1, progress: bool = True,
              group: Callable[[Any], Any] | None = None,
              schema: RowSchema | None = None,
              cost: Callable[[Any], float] | None = None) -> int:
    """Compute ``fn(cell)`` for every cell not yet stored; returns how many were computed.

    ``group(cell)`` (optional) sends the cells with the same key to one worker together —
    e.g. every policy of one instance, so the instance and its LP bound are built once —
    while each cell is still committed on its own. ``schema`` (the experiment's row schema,
    optional) declares the types of the store's columns (:meth:`ResultStore.add`).
    ``cost(cell)`` (optional) estimates a cell's work (jobs simulated, tasks, ...): the
    progress line's time left is then estimated by work, not by cell count
    (:class:`Progress`).

    Parameters
    ----------
    experiment : str
        The experiment's name: the store's table and the progress label.
    cells : sequence
        The cells, each a JSON-able description the store keys rows by.
    fn : callable
        ``fn(cell)`` returns the cell's rows (a list of dicts).
    store : ResultStore
        Where rows are committed, cell by cell (a run resumes where it stopped).
    executor : str or executor
        ``"local"``, ``"dask://HOST:PORT"`` or an object with ``submit``.
    jobs : int
        Worker processes for ``"local"`` (1: in this process).
    progress : bool
        Show the progress line on standard error.
    group, schema, cost : optional
        As above.

    Returns
    -------
    int
        How many cells were computed now (the others were already stored).
    """
    plan = Plan(experiment, cells, fn, store, group, schema, cost)
    return run_plans([plan], executor, jobs, progress, label=experiment)[0]


def run_plans(plans: Sequence[Plan], executor: Any = "local", jobs: int = 1,
              progress: bool = True, label: str = "all",
              release_caches: bool = False) -> list[int]:
    """Run the cells of several experiments through one executor and one progress line.

    Each plan's cells already in its store are skipped; the others are computed (on one
    pool of ``jobs`` local processes, a Dask cluster, or in this process) and each is
    committed to its plan's store as it finishes, so an interrupted run resumes where it
    stopped. Every store's writer lock is held for the whole run. The progress line's time
    left is estimated by work: each plan's ``weight`` shared among its cells by ``cost``
    (:class:`Plan`); one plan without ``cost`` is estimated by cells, as :func:`run_cells`.

    Parameters
    ----------
    plans : sequence of Plan
        The experiments to run, each with its own store (several plans may not share one
        store and experiment).
    executor : str or executor
        ``"local"``, ``"dask://HOST:PORT"`` or an object with ``submit``.
    jobs : int
        Worker processes for ``"local"`` (1: in this process).
    progress : bool
        Show the progress line on standard error.
    label : str
        The progress line's label.
    release_caches : bool
        Let this process's cached traces and instances go
        (:func:`lpsched.core.caches.release`) once the cells are weighed, before a local
        pool forks its workers, which would otherwise map them (``reproduce all``, whose
        planning reads every experiment's traces; decision 700).

    Returns
    -------
    list of int
        How many cells of each plan were computed now.

    Raises
    ------
    LpschedError
        A bad executor or ``jobs``; a store in use by another run
        (:class:`~lpsched.errors.StoreError`).
    """
    if isinstance(executor, str):
        try:
            parse_executor(executor)
        except LpschedError as exc:
            raise LpschedError(f"executor {exc}") from None
    if not isinstance(jobs, int) or jobs < 1:
        raise LpschedError(f"jobs={jobs!r}: must be a whole number >= 1")
    with contextlib.ExitStack() as stack:
        for plan in plans:
            stack.enter_context(plan.store.lock())
        return _run_locked(plans, executor, jobs, progress, label, release_caches)


def _cell_weights(plans: Sequence[Plan]) -> tuple[list[list[Any]], list[list[float]], bool]:
    """Each plan's cells still to compute and their weights on the common scale; whether the
    progress line estimates by work (several plans, or one plan with ``cost``)."""
    todos, weights = [], []
    by_work = len(plans) > 1 or any(p.cost is not None for p in plans)
    for plan in plans:
        done = plan.store.done(plan.experiment)
        todo = [c for c in plan.cells if ResultStore.key(c) not in done]
        if plan.cost is None:
            unit = [1.0] * len(plan.cells)
        else:
            unit = [float(plan.cost(c)) for c in plan.cells]
        scale = plan.weight / sum(unit) if sum(unit) > 0 else 0.0
        keyed = {ResultStore.key(c): u * scale for c, u in zip(plan.cells, unit, strict=True)}
        if len(plans) == 1 and plan.cost is not None:  # one plan: its own unit, as before
            keyed = {ResultStore.key(c): float(plan.cost(c)) for c in todo}
        todos.append(todo)
        weights.append([keyed[ResultStore.key(c)] for c in todo] if by_work
                       else [0.0] * len(todo))
    return todos, weights, by_work


def _run_locked(plans: Sequence[Plan], executor: Any, jobs: int, progress: bool,
                label: str, release_caches: bool = False) -> list[int]:
    todos, weights, by_work = _cell_weights(plans)
    flat = [w for ws in weights for w in ws]
    bar = Progress(len(flat), label, progress,
                   work=flat if by_work and flat and sum(flat) > 0 else None)
    counts = [len(todo) for todo in todos]
    if not flat:
        return counts
    weight_of = [dict(zip(map(ResultStore.key, todo), ws, strict=True))
                 for todo, ws in zip(todos, weights, strict=True)]
    if executor == "local" and jobs <= 1:
        for k, plan in enumerate(plans):
            for cell in todos[k]:
                plan.store.add(plan.experiment, cell, _collected(plan.fn, cell), plan.schema)
                bar.step(weight_of[k][ResultStore.key(cell)])
        return counts
    own: Any = None
    if release_caches:
        caches.release()
    if executor == "local":
        own = pool = cf.ProcessPoolExecutor(max_workers=jobs, initializer=_die_with_parent,
                                            initargs=(os.getpid(),))
    elif isinstance(executor, str):
        own = pool = _dask_client(executor)
    else:
        pool = executor
    try:
        owner: dict[Any, int] = {}
        for k, plan in enumerate(plans):
            batches: dict[Any, list[Any]] = {}
            for i, cell in enumerate(todos[k]):
                batches.setdefault(plan.group(cell) if plan.group else i, []).append(cell)
            for batch in batches.values():
                owner[pool.submit(_batch, plan.fn, batch)] = k
        for fut in _as_completed(pool, list(owner)):
            done_cells, caught = fut.result()
            _reissue(caught)
            k = owner[fut]
            for cell, rows in done_cells:
                plans[k].store.add(plans[k].experiment, cell, rows, plans[k].schema)
                bar.step(weight_of[k][ResultStore.key(cell)])
    except BaseException as exc:
        if not isinstance(exc, Exception) and isinstance(own, cf.ProcessPoolExecutor):
            _stop_workers(own)  # Ctrl-C, SIGTERM: do not wait for the cells running
        raise
    finally:
        if own is not None:
            if isinstance(own, cf.Executor):
                own.shutdown(cancel_futures=True)
            else:
                own.close()
    return counts


def _stop_workers(pool: cf.ProcessPoolExecutor) -> None:
    """Terminate the worker processes of ``pool`` (``SIGTERM``), so that an interrupted
    run (Ctrl-C, ``SIGTERM``) ends at once instead of after the cells they are computing;
    the cells already committed stay in the store, the others are computed on resuming."""
    processes = getattr(pool, "_processes", None) or {}  # concurrent.futures' own table
    for process in list(processes.values()):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            process.terminate()


def _as_completed(pool: Any, futures: list[Any]) -> Any:
    if isinstance(pool, cf.Executor):
        return cf.as_completed(futures)
    from dask.distributed import as_completed

    return as_completed(futures)
