"""Types of the compiled row formatter ``_rows_c.pyx`` (built only where Cython and a C
compiler are)."""

from typing import Any

def format_rows(columns: list[Any], texts: list[str], rows: int,
                limit: float = ...) -> str: ...
