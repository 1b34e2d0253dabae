"""Types of the compiled literal-HCPA loop ``_hcpa_c.pyx`` (built only where Cython and a
C compiler are)."""

from typing import Any

import numpy as np

class LiteralGraph: ...

def prepare(real: list[bool], sources: list[int], t1: list[float], al: list[float],
            walk: list[list[int]], preds: list[list[int]]) -> LiteralGraph: ...
def literal_alloc(g: LiteralGraph, budget: int, limit: Any, stop_budget: int, grow: float,
                  monotone: float) -> np.ndarray: ...
def literal_allocs(g: LiteralGraph, first: int, last: int, one: Any, grow: float,
                   monotone: float) -> np.ndarray: ...
