"""Types of the compiled BACKFILL ``_backfill_c.pyx`` (built only where Cython and a C
compiler are)."""

from typing import Any

def backfill(start: Any, end: Any, alloc: Any, order: Any, pptr: Any, pidx: Any,
             member: Any, eps: float) -> list[int]: ...
