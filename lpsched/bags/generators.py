"""Seeded generators of synthetic workloads.

:func:`random_bags` follows seed 003 §4.2, Tables 1 and 2, with the sampling procedure of
shared/specs/seed003_spec.md §7.3 (its assumptions A23-A28; decision 4) for the ``mpi``
and ``simgrid`` profiles. The ``balanced`` profile (not in the seed) keeps the seed's platform
shape, one-port model and log-normal releases, but draws per-task sizes directly so that
computation and communication are of the same order (see :data:`BALANCED`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np

from lpsched.bags.instance import Application, Instance
from lpsched.bags.platform import Port, StarPlatform
from lpsched.errors import InvalidInstanceError

#: Base link bandwidth (10 Mbit/s, the literal "10 Mbps" of seed 003 [L796], spec A25;
#: the ``mpi`` profile's) and base CPU speed (1 Gflop/s).
BASE_BANDWIDTH = 1.25e6
#: The ``simgrid`` profile's base link bandwidth: 100 Mbit/s, the "Fast Ethernet" of [L796]
#: (decision 36): the reading closest to the seed's Tables 4-8.
SIMGRID_BANDWIDTH = 12.5e6
BASE_SPEED = 1e9


@dataclass(frozen=True)
class TaskDraws:
    """Per-task draws of the ``balanced`` profile: ``Π ~ U{tasks}`` (inclusive),
    work per task ``~ U[work]`` flop and input size per task ``~ U[size]`` bytes, each
    application on its own."""

    tasks: tuple[int, int]
    work: tuple[float, float]
    size: tuple[float, float]


@dataclass(frozen=True)
class BagsProfile:
    """Parameters of Tables 1-2 (seed 003 [L811-L833]); units: flop, bytes, seconds.

    The first six fields and ``min_tasks`` are the tables' rows (per-application totals
    drawn log-normally, then split into tasks). ``per_task`` replaces that split by direct
    per-task draws (:class:`TaskDraws`); the per-application fields then state the ranges
    those draws imply. ``base_speed`` (flop/s) and ``base_bandwidth`` (bytes/s) are the
    profile's platform units, divided by slowdowns drawn in ``U{1..10}``
    (``integer_slowdowns``) or ``U[1, 10]``.
    """

    workers: int
    apps: int
    max_work_per_app: float
    min_work_per_task: float
    max_comm_per_app: float
    min_comm_per_task: float
    min_tasks: int = 10
    release_mean_log: float = 4.0
    release_sd_log: float = 1.2
    per_task: TaskDraws | None = None
    base_bandwidth: float = BASE_BANDWIDTH
    base_speed: float = BASE_SPEED
    integer_slowdowns: bool = True


#: The balanced family (not in the seed; decisions 147-148): 10-130 tasks of U[3, 10] Gflop
#: and U[4, 20] MB per application; speeds 1 Gflop/s / U[1, 10] and bandwidths 10 MB/s /
#: U[1, 10], so that one task takes 3-100 s to compute and 0.4-20 s to send: with 10 workers
#: sharing one port, the master's port and the CPUs carry loads of the same order (tested).
BALANCED = BagsProfile(
    10, 20, max_work_per_app=130 * 10e9, min_work_per_task=3e9,
    max_comm_per_app=130 * 20e6, min_comm_per_task=4e6, min_tasks=10,
    per_task=TaskDraws(tasks=(10, 130), work=(3e9, 10e9), size=(4e6, 20e6)),
    base_bandwidth=10e6, base_speed=1e9, integer_slowdowns=False)

PROFILES: dict[str, BagsProfile] = {
    # Table 1: the MPI experiments (8 workers, 12 applications).
    "mpi": BagsProfile(8, 12, 76.8e9, 3.1e9, 800e6, 40e6),
    # Table 2: the SimGrid experiments (10 workers, 20 applications), 100 Mbit/s links
    # before slowdowns (decision 36).
    "simgrid": BagsProfile(10, 20, 409e9, 3.1e9, 6e9, 40e6, base_bandwidth=SIMGRID_BANDWIDTH),
    # Not in the seed: computation and communication of the same order (decision 147).
    "balanced": BALANCED,
}


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


def _split_totals(rng: np.random.Generator, n: int,
                  prof: BagsProfile) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tables 1-2 (spec §7.3): log-normal totals per application, split into
    ``Π ~ U{min_tasks..Π_max}`` tasks; returns ``(tasks, work, size)`` per task."""
    w_lo, w_hi = prof.min_tasks * prof.min_work_per_task, prof.max_work_per_app
    c_lo, c_hi = prof.min_tasks * prof.min_comm_per_task, prof.max_comm_per_app
    total_work = _truncated_lognormal(rng, w_lo, w_hi, n)
    total_comm = _truncated_lognormal(rng, c_lo, c_hi, n)
    pi_max = np.minimum(
        np.floor(total_work / prof.min_work_per_task + 1e-9),
        np.floor(total_comm / prof.min_comm_per_task + 1e-9),
    ).astype(int)
    tasks = rng.integers(prof.min_tasks, pi_max + 1)
    return tasks, total_work / tasks, total_comm / tasks


def _per_task(rng: np.random.Generator, n: int,
              draws: TaskDraws) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The balanced family's draws: ``Π``, then work, then size, each a vector of ``n``."""
    tasks = rng.integers(draws.tasks[0], draws.tasks[1] + 1, size=n)
    work = rng.uniform(draws.work[0], draws.work[1], size=n)
    size = rng.uniform(draws.size[0], draws.size[1], size=n)
    return tasks, work, size


def random_bags(
    apps: int | None = None,
    workers: int | None = None,
    *,
    profile: str = "simgrid",
    seed: int | np.random.Generator = 0,
    arrivals: str = "absolute",
    base_bandwidth: float | None = None,
    base_speed: float | None = None,
    integer_slowdowns: bool | None = None,
    port: str = "one-port",
) -> Instance:
    """A random CBS3M-style instance (seed 003 §4.2, Tables 1-2, or the balanced family).

    Each worker gets slowdowns ``a_u, c_u`` on its link and CPU (``b_u = base_bandwidth/a_u``,
    ``s_u = base_speed/c_u``), integers ``U{1..10}`` for ``mpi``/``simgrid`` (seed 003
    [L798]) or reals ``U[1, 10]`` for ``balanced``; release dates are
    ``exp(N(4, 1.2²))`` seconds, sorted (``arrivals="absolute"``) or accumulated
    (``"interarrival"``). Profiles ``mpi`` and ``simgrid``: total work and data per
    application are truncated log-normals between ``min_tasks`` times the per-task minimum
    and the per-application maximum; ``Π ~ U{min_tasks..Π_max}`` with ``Π_max`` the largest
    count keeping both per-task sizes above their minimum. Profile ``balanced``
    (:data:`BALANCED`): ``Π ~ U{10..130}``, work per task ``U[3, 10]`` Gflop, size per task
    ``U[4, 20]`` MB, speeds 1 Gflop/s / ``U[1, 10]``, bandwidths 10 MB/s / ``U[1, 10]``
    (comparable computation and communication), 20 applications on 10 workers by default;
    any ``apps`` x ``workers`` is accepted.

    ``base_bandwidth``, ``base_speed`` and ``integer_slowdowns`` default to the profile's
    own (``None``): 12.5e6 B/s (100 Mbit/s) for ``simgrid``, 1.25e6 B/s (10 Mbit/s) for
    ``mpi``, 1e7 B/s for ``balanced``. The same ``seed`` gives the same instance on every
    machine (numpy's PCG64); the ``mpi`` and ``simgrid`` random draws are pinned by a test,
    and ``base_bandwidth=1.25e6`` gives ``simgrid`` the seed's literal 10 Mbit/s links.

    Parameters
    ----------
    apps : int or None
        n, the number of applications (bags); ``None`` takes the profile's default (12 for
        ``mpi``, 20 for ``simgrid`` and ``balanced``). Must be >= 1.
    workers : int or None
        p, the number of workers of the star; ``None`` takes the profile's default (8 for
        ``mpi``, 10 for ``simgrid`` and ``balanced``). Must be >= 1.
    profile : str
        The generator's profile: ``"simgrid"`` (default), ``"mpi"`` or ``"balanced"``
        (the keys of :data:`PROFILES`).
    seed : int or numpy.random.Generator
        The random seed, or a generator to draw from (then it advances); default 0.
    arrivals : str
        ``"absolute"`` (default): release dates are the sorted log-normal draws;
        ``"interarrival"``: the draws are gaps, accumulated.
    base_bandwidth : float or None
        The bandwidth of a worker of link slowdown 1, in bytes/s; ``None``: the profile's.
    base_speed : float or None
        The speed of a worker of CPU slowdown 1, in flop/s; ``None``: the profile's.
    integer_slowdowns : bool or None
        Draw the slowdowns ``a_u, c_u`` as integers ``U{1..10}`` (``True``) or reals
        ``U[1, 10]`` (``False``); ``None``: the profile's choice.
    port : str
        The communication model of the master: ``"one-port"`` (default) or ``"multiport"``.

    Returns
    -------
    Instance
        The star platform and the n applications, its ``meta`` naming the generator, the
        profile, the seed (when an int) and the arrivals.

    Raises
    ------
    InvalidInstanceError
        An unknown ``profile``, ``arrivals`` or ``port``, or ``apps``/``workers`` below 1.

    Notes
    -----
    The balanced family is decisions 147-148; ``simgrid``'s 100 Mbit/s links, decision 36;
    the generator's reading of Tables 1-2, decision 4.

    Examples
    --------
    >>> inst = random_bags(3, 2, seed=1)
    >>> (inst.n, inst.p, inst.platform.port)
    (3, 2, 'one-port')
    >>> bool(random_bags(profile="balanced", seed=0).tasks.min() >= 10)
    True
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

    if prof.integer_slowdowns if integer_slowdowns is None else integer_slowdowns:
        link_slow = rng.integers(1, 11, size=p).astype(float)
        cpu_slow = rng.integers(1, 11, size=p).astype(float)
    else:
        link_slow = rng.uniform(1, 10, size=p)
        cpu_slow = rng.uniform(1, 10, size=p)
    speed = prof.base_speed if base_speed is None else base_speed
    bandwidth = prof.base_bandwidth if base_bandwidth is None else base_bandwidth
    platform = StarPlatform(  # ``port`` is checked there (InvalidInstanceError)
        speeds=speed / cpu_slow, bandwidths=bandwidth / link_slow, port=cast(Port, port)
    )

    draws = np.exp(rng.normal(prof.release_mean_log, prof.release_sd_log, size=n))
    release = np.sort(draws) if arrivals == "absolute" else np.cumsum(draws)
    tasks, work, size = (_split_totals(rng, n, prof) if prof.per_task is None
                         else _per_task(rng, n, prof.per_task))
    applications = tuple(
        Application(float(release[k]), int(tasks[k]), work[k], size[k]) for k in range(n)
    )
    meta = {"generator": {"name": "bags", "profile": profile, "seed": seed
                          if isinstance(seed, int) else None, "arrivals": arrivals}}
    return Instance(platform, applications, meta)
