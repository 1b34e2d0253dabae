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

Warnings raised inside worker processes (numpy overflow, scipy, ...) are not printed by
the workers: each batch records them and the parent re-issues each distinct warning once
per batch, so they reach the caller's warning filters (the CLI's one-line summary) instead
of flooding stderr.
"""

from __future__ import annotations

import concurrent.futures as cf
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from lpsched.core.store import ResultStore, RowSchema
from lpsched.errors import LpschedError

CellFn = Callable[[Any], list[dict[str, Any]]]


class Progress:
    """A one-line progress bar on stderr (no dependency)."""

    def __init__(self, total: int, label: str, enabled: bool = True) -> None:
        self.total, self.label, self.enabled = total, label, enabled
        self.done = 0
        self.t0 = time.perf_counter()

    def step(self) -> None:
        """Count one more finished cell and redraw the bar with the elapsed time and an estimate
        of the time left (nothing is written when disabled)."""
        self.done += 1
        if not self.enabled:
            return
        frac = self.done / max(self.total, 1)
        bar = "#" * int(30 * frac)
        elapsed = time.perf_counter() - self.t0
        eta = elapsed / frac - elapsed if frac > 0 else 0.0
        sys.stderr.write(f"\r{self.label} [{bar:<30}] {self.done}/{self.total} "
                         f"{elapsed:6.0f}s elapsed, ~{eta:5.0f}s left")
        if self.done == self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _dask_client(address: str) -> Any:
    try:
        from dask.distributed import Client
    except ImportError:  # pragma: no cover - depends on the extra
        raise LpschedError("the dask executor needs the extra: "
                           "pip install 'lpsched[dask]'") from None
    return Client(address)


Caught = tuple[type[Warning], str, str, int]


def _batch(fn: CellFn, cells: list[Any],
           ) -> tuple[list[tuple[Any, list[dict[str, Any]]]], list[Caught]]:
    """Run ``fn`` on each cell in a worker; the distinct warnings it raised come back
    (category, message, file, line) instead of being printed by the worker."""
    seen: dict[Caught, None] = {}

    def keep(message: Any, category: type[Warning], filename: str, lineno: int,
             file: Any = None, line: Any = None) -> None:
        seen.setdefault((category, str(message), filename, lineno), None)

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = keep
        out = [(cell, fn(cell)) for cell in cells]
    return out, list(seen)


def _reissue(caught: list[Caught]) -> None:
    for category, message, filename, lineno in caught:
        warnings.warn_explicit(message, category, filename, lineno)


def run_cells(experiment: str, cells: Sequence[Any], fn: CellFn, store: ResultStore,
              executor: Any = "local", jobs: int = 1, progress: bool = True,
              group: Callable[[Any], Any] | None = None,
              schema: RowSchema | None = None) -> int:
    """Compute ``fn(cell)`` for every cell not yet stored; returns how many were computed.

    ``group(cell)`` (optional) sends the cells with the same key to one worker together —
    e.g. every policy of one instance, so the instance and its LP bound are built once —
    while each cell is still committed on its own. ``schema`` (the experiment's row schema,
    optional) declares the types of the store's columns (:meth:`ResultStore.add`).
    """
    with store.lock():
        return _run_locked(experiment, cells, fn, store, executor, jobs, progress, group,
                           schema)


def _run_locked(experiment: str, cells: Sequence[Any], fn: CellFn, store: ResultStore,
                executor: Any, jobs: int, progress: bool,
                group: Callable[[Any], Any] | None, schema: RowSchema | None) -> int:
    done = store.done(experiment)
    todo = [c for c in cells if ResultStore.key(c) not in done]
    bar = Progress(len(todo), experiment, progress)
    if not todo:
        return 0
    if executor == "local" and jobs <= 1:
        for cell in todo:
            store.add(experiment, cell, fn(cell), schema)
            bar.step()
        return len(todo)
    own: Any = None
    if executor == "local":
        own = pool = cf.ProcessPoolExecutor(max_workers=jobs)
    elif isinstance(executor, str) and executor.startswith("dask://"):
        own = pool = _dask_client("tcp://" + executor[len("dask://"):])
    elif isinstance(executor, str):
        raise LpschedError(f"unknown executor {executor!r}: 'local' or 'dask://HOST:PORT'")
    else:
        pool = executor
    batches: dict[Any, list[Any]] = {}
    for i, cell in enumerate(todo):
        batches.setdefault(group(cell) if group else i, []).append(cell)
    try:
        futures = [pool.submit(_batch, fn, batch) for batch in batches.values()]
        for fut in _as_completed(pool, futures):
            done_cells, caught = fut.result()
            _reissue(caught)
            for cell, rows in done_cells:
                store.add(experiment, cell, rows, schema)
                bar.step()
    finally:
        if own is not None:
            if isinstance(own, cf.Executor):
                own.shutdown(cancel_futures=True)
            else:
                own.close()
    return len(todo)


def _as_completed(pool: Any, futures: list[Any]) -> Any:
    if isinstance(pool, cf.Executor):
        return cf.as_completed(futures)
    from dask.distributed import as_completed

    return as_completed(futures)
