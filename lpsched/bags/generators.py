"""Seeded generators of synthetic workloads.

:func:`random_bags` follows seed 003 §4.2, Tables 1 and 2, with the sampling procedure of
shared/specs/seed003_spec.md §7.3 (decisions A23-A28 in docs/decisions.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lpsched.bags.instance import Application, Instance
from lpsched.bags.platform import StarPlatform
from lpsched.errors import InvalidInstanceError


@dataclass(frozen=True)
class BagsProfile:
    """Parameters of Tables 1-2 (seed 003 [L811-L833]); units: flop, bytes, seconds."""

    workers: int
    apps: int
    max_work_per_app: float
    min_work_per_task: float
    max_comm_per_app: float
    min_comm_per_task: float
    min_tasks: int = 10
    release_mean_log: float = 4.0
    release_sd_log: float = 1.2


PROFILES: dict[str, BagsProfile] = {
    # Table 1: the MPI experiments (8 workers, 12 applications).
    "mpi": BagsProfile(8, 12, 76.8e9, 3.1e9, 800e6, 40e6),
    # Table 2: the SimGrid experiments (10 workers, 20 applications).
    "simgrid": BagsProfile(10, 20, 409e9, 3.1e9, 6e9, 40e6),
}

#: Base link bandwidth (10 Mbit/s, decision A25) and base CPU speed (1 Gflop/s).
BASE_BANDWIDTH = 1.25e6
BASE_SPEED = 1e9


def _truncated_lognormal(rng: np.random.Generator, lo: float, hi: float, size: int) -> np.ndarray:
    """Log-normal with mu at the log-midpoint and sigma = log-range/4, rejected into [lo, hi]."""
    mu = (np.log(lo) + np.log(hi)) / 2
    sd = (np.log(hi) - np.log(lo)) / 4
    out = np.empty(size)
    todo = np.arange(size)
    while todo.size:
        draw = rng.lognormal(mu, sd, size=todo.size)
        ok = (draw >= lo) & (draw <= hi)
        out[todo[ok]] = draw[ok]
        todo = todo[~ok]
    return out


def random_bags(
    apps: int | None = None,
    workers: int | None = None,
    *,
    profile: str = "simgrid",
    seed: int | np.random.Generator = 0,
    arrivals: str = "absolute",
    base_bandwidth: float = BASE_BANDWIDTH,
    base_speed: float = BASE_SPEED,
    integer_slowdowns: bool = True,
    port: str = "one-port",
) -> Instance:
    """A random CBS3M-style instance (seed 003 §4.2, Tables 1-2).

    Each worker gets integer slowdowns ``a_u, c_u ~ U{1..10}`` on its link and CPU
    (``b_u = base_bandwidth/a_u``, ``s_u = base_speed/c_u``); release dates are
    ``exp(N(4, 1.2²))`` seconds, sorted (``arrivals="absolute"``) or accumulated
    (``"interarrival"``); total work and data per application are truncated log-normals
    between ``min_tasks`` times the per-task minimum and the per-application maximum;
    ``Π ~ U{min_tasks..Π_max}`` with ``Π_max`` the largest count keeping both per-task sizes
    above their minimum.

    The same ``seed`` gives the same instance on every machine (numpy's PCG64).

    >>> inst = random_bags(3, 2, seed=1)
    >>> (inst.n, inst.p, inst.platform.port)
    (3, 2, 'one-port')
    """
    if profile not in PROFILES:
        raise InvalidInstanceError("profile", profile, f"must be one of {sorted(PROFILES)}")
    prof = PROFILES[profile]
    n = prof.apps if apps is None else int(apps)
    p = prof.workers if workers is None else int(workers)
    if n < 1:
        raise InvalidInstanceError("apps", apps, "must be >= 1")
    if p < 1:
        raise InvalidInstanceError("workers", workers, "must be >= 1")
    if arrivals not in ("absolute", "interarrival"):
        raise InvalidInstanceError("arrivals", arrivals, "must be 'absolute' or 'interarrival'")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)

    if integer_slowdowns:
        link_slow = rng.integers(1, 11, size=p).astype(float)
        cpu_slow = rng.integers(1, 11, size=p).astype(float)
    else:
        link_slow = rng.uniform(1, 10, size=p)
        cpu_slow = rng.uniform(1, 10, size=p)
    platform = StarPlatform(
        speeds=base_speed / cpu_slow, bandwidths=base_bandwidth / link_slow, port=port
    )  # type: ignore[arg-type]

    draws = np.exp(rng.normal(prof.release_mean_log, prof.release_sd_log, size=n))
    release = np.sort(draws) if arrivals == "absolute" else np.cumsum(draws)
    w_lo, w_hi = prof.min_tasks * prof.min_work_per_task, prof.max_work_per_app
    c_lo, c_hi = prof.min_tasks * prof.min_comm_per_task, prof.max_comm_per_app
    total_work = _truncated_lognormal(rng, w_lo, w_hi, n)
    total_comm = _truncated_lognormal(rng, c_lo, c_hi, n)
    pi_max = np.minimum(
        np.floor(total_work / prof.min_work_per_task + 1e-9),
        np.floor(total_comm / prof.min_comm_per_task + 1e-9),
    ).astype(int)
    tasks = rng.integers(prof.min_tasks, pi_max + 1)
    applications = tuple(
        Application(float(release[k]), int(tasks[k]), total_work[k] / tasks[k],
                    total_comm[k] / tasks[k])
        for k in range(n)
    )
    meta = {"generator": {"name": "bags", "profile": profile, "seed": seed
                          if isinstance(seed, int) else None, "arrivals": arrivals}}
    return Instance(platform, applications, meta)
