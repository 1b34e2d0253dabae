"""The per-process caches of parsed traces and built instances, and how a process lets them go.

The reproductions cache what their cells share (a trace parsed once, the instance of one
seed) with :func:`functools.lru_cache`, per process. A process that moves on to another
experiment no longer needs the first one's entries; :func:`release` empties every cache
registered here and hands the freed heap back to the system. ``lpsched reproduce all`` calls
it in the main process before its workers start (they are forked from it and would map its
caches) and the runner's workers call it when they pass from one experiment's cells to
another's; neither changes an answer (a cleared entry is computed again the same way).
"""

from __future__ import annotations

import gc
import sys
from typing import Protocol


class _Clearable(Protocol):
    def cache_clear(self) -> None: ...


_REGISTERED: list[_Clearable] = []


def register(*caches: _Clearable) -> None:
    """Add caches (``functools.lru_cache`` functions) to those :func:`release` empties.

    Parameters
    ----------
    *caches : object with ``cache_clear()``
        The cached functions.
    """
    for cache in caches:
        if cache not in _REGISTERED:
            _REGISTERED.append(cache)


def release() -> None:
    """Empty every registered cache, collect the garbage and return the freed heap to the
    system (``malloc_trim`` where the C library is glibc; elsewhere only the collection)."""
    for cache in _REGISTERED:
        cache.cache_clear()
    gc.collect()
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL("libc.so.6").malloc_trim(0)
        except (OSError, AttributeError):  # pragma: no cover - musl and other C libraries
            pass
