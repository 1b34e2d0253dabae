"""Types of the compiled maximum flow ``_flow_c.pyx`` (built only where a C compiler is)."""

from typing import Any

def max_flow(nodes: int, rows: Any, cols: Any, caps: Any, source: int, sink: int) -> int: ...
