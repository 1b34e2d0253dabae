"""Types of the compiled kernel ``_line_c.c`` (built only where a C compiler is)."""

from collections.abc import Callable
from typing import Any

def simulate(subs: Any, order: Any, run: Any, size: Any, est: Any, n: int, m: int,
             easy: bool, progress: Callable[[int, int, float], None] | None,
             error: type[BaseException], start: Any, end: Any, first_resv: Any, off: Any,
             cnt: Any) -> tuple[bytearray, bytearray, int]: ...
