"""Types of the compiled event loop ``_online_c.pyx`` (built only where a C compiler is)."""

from typing import Any

import numpy as np

class Sim:
    processed: int
    def __init__(self, r: Any, p: Any, rank: Any, nranks: int, m: int, md: int,
                 dispatch: bool, by_release: bool, preemptive: bool, redirect: int,
                 tau: float, b: float, c: float, rng: Any) -> None: ...
    def run(self) -> None: ...
    def result(self) -> tuple[np.ndarray, np.ndarray]: ...
