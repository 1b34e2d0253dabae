"""Shared helpers of the campaign tests: small random workloads, and the small workloads
the library and the command line must refuse alike."""

from __future__ import annotations

from typing import Any

import numpy as np

from lpsched.campaigns.instance import Workload, make_workload


def random_workload(seed: int, users: int = 3, campaigns: int = 8, m: int = 4,
                    max_jobs: int = 5, parallel: bool = False, open_loop: bool = False,
                    deps: bool = False) -> Workload:
    """A small random workload (closed loop with random think times, or open loop)."""
    rng = np.random.default_rng(seed)
    camps: list[dict[str, Any]] = []
    for _ in range(campaigns):
        n = int(rng.integers(1, max_jobs + 1))
        jobs = [{"p": float(rng.integers(1, 20)),
                 "q": int(rng.integers(1, m + 1)) if parallel else 1} for _ in range(n)]
        entry: dict[str, Any] = {"user": int(rng.integers(0, users)), "jobs": jobs,
                                 "submit": float(rng.integers(0, 60)) if open_loop else None,
                                 "think": float(rng.integers(0, 5))}
        if deps and n > 1:
            entry["deps"] = [[a, b] for a in range(n) for b in range(a + 1, n)
                             if rng.random() < 0.3]
        camps.append(entry)
    return make_workload(m, camps, users)


#: a rigid job of 2 processors beside a sequential one: FairCamp's packed mode must not
#: start it on the 1 processor left free (decision 245)
PAR3: dict[str, Any] = {"processors": 2, "campaigns": [
    {"user": 0, "jobs": [{"p": 1, "q": 1}]}, {"user": 1, "jobs": [{"p": 3, "q": 2}]}]}
#: a closed-loop workload with q = 2 jobs: FairCamp's deadlines come from an LPT that
#: ignores q (decision 245)
PAR: dict[str, Any] = {"processors": 2, "campaigns": [
    {"user": 0, "submit": None, "think": 0, "jobs": [{"p": 5, "q": 1}, {"p": 5, "q": 2}]},
    {"user": 1, "submit": None, "think": 0, "jobs": [{"p": 3, "q": 2}]}]}
#: one campaign whose second job depends on its first: the offline algorithms take
#: independent jobs only (decision 246)
DEP: dict[str, Any] = {"processors": 2, "campaigns": [
    {"user": 0, "jobs": [{"p": 1}, {"p": 2}], "deps": [[0, 1]]}]}
