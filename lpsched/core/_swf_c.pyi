"""Types of the compiled kernel ``_swf_c.pyx`` (built only where Cython and a C compiler
are)."""

from typing import Any

def parse_rows(data: list[str]) -> Any: ...
