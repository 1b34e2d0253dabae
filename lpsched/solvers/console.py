"""Keep what compiled solvers print off the process's stdout and stderr.

HiGHS writes its log with C stdio straight to file descriptor 1, below Python's
``sys.stdout``; since highspy 1.16 the ``Highs()`` constructor prints a banner before any
option can be set, so ``output_flag=False`` comes too late. lpsched therefore points file
descriptors 1 and 2 elsewhere around the calls that can print (decision 59):

* construction of a ``Highs`` object: to the solver log if one was asked for, else to
  ``/dev/null``. The first two constructions of a process probe whether a construction
  prints at all (highspy 1.16 prints once per process, 1.7–1.15 never); once one is seen
  to be silent, later constructions run without redirection, so threads that print at the
  same moment (a Dask worker's logging, say) lose nothing;
* ``run()`` and ``writeModel()``: only when a solver log was asked for; the log then goes
  to that file (appended) or, for ``"-"``, to stderr. Without a log HiGHS runs with
  ``output_flag=False`` and prints nothing.

The solver log is chosen with :func:`set_solver_log` or the :func:`solver_log` context
manager (the CLI's ``--solver-log FILE`` and ``--verbose``). The choice is also written to
the environment variable ``LPSCHED_SOLVER_LOG`` so that worker processes started later
(``reproduce --jobs N``, a local Dask cluster) follow it; a process reads that variable when
it first imports this module.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

ENV_VAR = "LPSCHED_SOLVER_LOG"
STDERR = "-"

T = TypeVar("T")

_lock = threading.RLock()
_log: str | None = os.environ.get(ENV_VAR) or None
_construction_prints: bool | None = None  # None until probed in this process


def _libc_fflush() -> Callable[[], None]:
    try:
        libc = ctypes.CDLL(None)
        fflush = libc.fflush
    except (OSError, AttributeError):  # pragma: no cover - no C library to reach
        return lambda: None
    fflush.argtypes = [ctypes.c_void_p]

    def flush() -> None:
        fflush(None)  # every C stdio stream, so nothing buffered escapes after restoring

    return flush


_c_flush = _libc_fflush()


def solver_log_target() -> str | None:
    """Return where solver logs go: ``None`` (discarded), ``"-"`` (stderr) or a file path.

    Returns
    -------
    str or None
        The current target (a file path made absolute).
    """
    return _log


def set_solver_log(target: str | os.PathLike[str] | None) -> None:
    """Send solver logs to ``target``, in this process and the workers it starts later.

    A file path (appended to), ``"-"`` for stderr, or ``None`` to discard them (the
    default); the choice goes to ``$LPSCHED_SOLVER_LOG``, which worker processes inherit.

    Parameters
    ----------
    target : str, os.PathLike or None
        A file path (appended to), ``"-"`` for stderr, or ``None`` to discard the logs.
    """
    global _log
    _log = None if target is None else str(target)
    if _log is None:
        os.environ.pop(ENV_VAR, None)
    else:
        if _log != STDERR:
            _log = str(Path(_log).resolve())
        os.environ[ENV_VAR] = _log


@contextlib.contextmanager
def solver_log(target: str | os.PathLike[str] | None) -> Iterator[None]:
    """Send solver logs to ``target`` inside the block (:func:`set_solver_log`), then restore.

    Parameters
    ----------
    target : str, os.PathLike or None
        A file path (appended to), ``"-"`` for stderr, or ``None`` to discard the logs.

    Yields
    ------
    None
        The target holds inside the block.

    Examples
    --------
    >>> with solver_log(None):
    ...     pass
    """
    previous = _log
    set_solver_log(target)
    try:
        yield
    finally:
        set_solver_log(previous)


def logging_enabled() -> bool:
    """Tell whether the user asked for the solver log (solvers then turn their output on).

    Returns
    -------
    bool
        Whether a solver log target is set.
    """
    return _log is not None


@contextlib.contextmanager
def _redirect_fds(target_fd: int) -> Iterator[None]:
    """Point file descriptors 1 and 2 at ``target_fd`` for the duration (process-wide)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    _c_flush()
    saved = [os.dup(1), os.dup(2)]
    try:
        os.dup2(target_fd, 1)
        os.dup2(target_fd, 2)
        yield
    finally:
        _c_flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in saved:
            os.close(fd)


@contextlib.contextmanager
def _log_fd() -> Iterator[int]:
    """A file descriptor for the current log target (``/dev/null`` when there is none)."""
    if _log == STDERR:
        fd = os.dup(2)
    elif _log is None:
        fd = os.open(os.devnull, os.O_WRONLY)
    else:
        fd = os.open(_log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        yield fd
    finally:
        os.close(fd)


def quietly(fn: Callable[[], T]) -> T:
    """Call ``fn`` with fds 1 and 2 sent to the solver log (or discarded).

    Used around calls that print only when the user asked for the log (``run``,
    ``writeModel``); a no-op wrapper otherwise is the caller's choice.

    Parameters
    ----------
    fn : callable
        Called with no argument.

    Returns
    -------
    object
        What ``fn`` returns.
    """
    with _lock, _log_fd() as fd, _redirect_fds(fd):
        return fn()


def construct(factory: Callable[[], T]) -> T:
    """Build a solver object whose constructor may print (the HiGHS banner).

    The first construction of a process runs redirected; the second runs redirected into a
    temporary file that tells whether constructions print at all. When they do not (or
    printed only once per process, as highspy 1.16 does), later constructions skip the
    redirection unless a solver log is on, in which case nothing is lost by redirecting.

    Parameters
    ----------
    factory : callable
        Called with no argument, e.g. ``highspy.Highs``.

    Returns
    -------
    object
        The object ``factory`` made.
    """
    global _construction_prints
    if _construction_prints is False and _log is None:
        return factory()
    with _lock:
        obj = quietly(factory)
        if _construction_prints is None:
            _construction_prints = _prints(factory)
        return obj


def _prints(factory: Callable[[], object]) -> bool:
    """Construct once more with fds 1 and 2 captured in a temporary file: did it print?"""
    with tempfile.TemporaryFile() as fh:
        fd = fh.fileno()
        with _redirect_fds(fd):
            factory()
        return os.fstat(fd).st_size > 0
