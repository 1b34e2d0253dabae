"""Shared fixtures and instance factories for the test-suite."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

from lpsched.bags import Application, Instance, StarPlatform
from tests.shared_data import shared_file

settings.register_profile(
    "ci", max_examples=40, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("thorough", max_examples=300, deadline=None)
settings.load_profile(os.environ.get("LPSCHED_HYPOTHESIS", "ci"))


def small_instance(seed: int, n: int | None = None, p: int | None = None,
                   port: str = "one-port", bw: float | None = None,
                   same_release: bool = False) -> Instance:
    """A small random instance with O(1) numbers (fast LPs, well conditioned)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 6)) if n is None else n
    p = int(rng.integers(1, 4)) if p is None else p
    plat = StarPlatform(rng.uniform(0.5, 3.0, p), rng.uniform(0.5, 5.0, p), bw, port)
    release = np.zeros(n) if same_release else np.round(rng.uniform(0, 20, n), 3)
    apps = tuple(
        Application(float(release[k]), int(rng.integers(1, 25)), float(rng.uniform(0.5, 5)),
                    float(rng.uniform(0.5, 5)))
        for k in range(n)
    )
    return Instance(plat, apps)


@pytest.fixture
def stalled_mwma_ms(monkeypatch: pytest.MonkeyPatch) -> None:
    """``mwma-ms`` replaced by a policy that stops sending after its first task: a policy
    that cannot finish, to test how one is reported (since decision 73 no registered policy
    stops on a valid instance; links of 1e-2 B/s once made the real mwma-ms stop)."""
    from dataclasses import replace

    from lpsched.bags import policies
    from lpsched.bags.policies.mwma import MWMA

    class Stalled(MWMA):
        def next_send(self, sim):  # type: ignore[no-untyped-def]
            return None if sim.sent.sum() >= 1 else super().next_send(sim)

    entry = replace(policies.REGISTRY["mwma-ms"], factory=lambda: Stalled("ms"))
    monkeypatch.setitem(policies.REGISTRY, "mwma-ms", entry)


@pytest.fixture
def shared_data() -> Callable[[str], Path]:
    """``shared_data(name)``: the path of a shared trace (``../shared/data`` or
    ``$LPSCHED_DATA``), the test skipped, naming the file and the folder, when it is absent:
    :func:`tests.shared_data.shared_file`, the suite's one way to the shared traces."""
    return shared_file
