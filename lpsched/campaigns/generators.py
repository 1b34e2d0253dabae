"""Synthetic campaign workloads of the thesis's simulations (seed 002 §4.6, §5.8).

* ``faircamp`` (ch. 4, [L1118-L1134], spec A4): ``m = 10``; ``n`` jobs of integer length
  ``U{1..100}``; each job opens a new campaign with probability 0.1 (the first always does),
  otherwise joins the current campaign; a new campaign's owner is drawn from a truncated Zipf
  law ``P(r) ∝ r^-1.4267`` over the ``k`` users. Closed loop, think time 0.
* ``profiles`` (ch. 5, [L1404-L1421], spec A16): ``m = 64``; users ``0 .. k/2-1`` are
  short-job users (``p ~ U[1, 3600]``), the others long-job users (``p ~ U[3600, 36000]``);
  new campaign with probability 0.02, owner uniform. Closed loop, think time 0.

Limits (:func:`check_sizes`): ``users`` from 1 to
:data:`lpsched.campaigns.instance.MAX_USERS` (10^7, what a workload file may hold),
``processors`` from 1 to :data:`lpsched.core.swf.MAX_PROCESSORS` (10^7), ``jobs`` from 1 to
:data:`MAX_JOBS` (10^6).
"""

from __future__ import annotations

import numpy as np

from lpsched.campaigns.instance import MAX_USERS, Workload
from lpsched.core.swf import MAX_PROCESSORS
from lpsched.errors import InvalidInstanceError

#: Zipf exponent of the FairCamp simulation [L1122]
ZIPF_EXPONENT = 1.4267
PROFILES = ("faircamp", "profiles")
#: most jobs a generated workload may have: 10^6 jobs make a 26 MB workload JSON written in
#: about 2 s (400 MB of memory), run by FCFS in about 7 s; ten times more needs gigabytes
MAX_JOBS = 10**6


def _campaign_layout(rng: np.random.Generator, jobs: int, p_new: float, owners: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Offsets of the campaigns (job 0 opens one) and the owner of each."""
    new = rng.random(jobs) < p_new
    new[0] = True
    starts = np.flatnonzero(new)
    offsets = np.concatenate((starts, [jobs])).astype(np.int64)
    return offsets, owners[: starts.size]


def _build(m: int, k: int, p: np.ndarray, offsets: np.ndarray, owner: np.ndarray,
           profile: str) -> Workload:
    n_c = owner.size
    nothing = np.zeros(0, dtype=np.int64)
    return Workload(m, p.astype(float), np.ones(p.size, dtype=np.int64), offsets,
                    owner.astype(np.int64), np.full(n_c, np.nan), np.zeros(n_c),
                    np.zeros(n_c, dtype=np.int64), nothing, nothing, k,
                    extra={"profile": profile})


def faircamp_workload(users: int, jobs: int = 10_000, seed: int = 0, processors: int = 10,
                      p_new: float = 0.1, exponent: float = ZIPF_EXPONENT) -> Workload:
    """The ch. 4 workload (module doc, B16).

    Deterministic by ``seed``; O(n + users). Sizes within the module's limits (:func:`check_sizes`).

    >>> w = faircamp_workload(3, jobs=50, seed=1)
    >>> (w.processors, w.jobs, w.users)
    (10, 50, 3)

    Parameters
    ----------
    users : int
        k, the number of users (1 to ``MAX_USERS``).
    jobs : int
        n, the number of jobs (1 to :data:`MAX_JOBS`); default 10,000.
    seed : int
        The random seed (numpy's ``default_rng``); default 0.
    processors : int
        m, the processors of the machine (default 10, the seed's).
    p_new : float
        The probability that a job opens a new campaign (default 0.1 [L1122]).
    exponent : float
        The exponent of the truncated Zipf law of campaign owners (default
        :data:`ZIPF_EXPONENT`, 1.4267).

    Returns
    -------
    Workload
        The jobs in campaigns, their lengths (s) and owners, on ``processors`` processors.

    Raises
    ------
    InvalidInstanceError
        A size out of range (:func:`check_sizes`).
    """
    check_sizes(users, jobs, processors)
    rng = np.random.default_rng(seed)
    weights = np.arange(1, users + 1, dtype=float) ** -exponent
    owners = rng.choice(users, size=jobs, p=weights / weights.sum())
    offsets, owner = _campaign_layout(rng, jobs, p_new, owners)
    p = rng.integers(1, 101, size=jobs)
    return _build(processors, users, p, offsets, owner, "faircamp")


def profiles_workload(users: int = 10, jobs: int = 10_000, seed: int = 0,
                      processors: int = 64, p_new: float = 0.02) -> Workload:
    """The ch. 5 two-profile workload (module doc, B27/B28).

    Job lengths are drawn by the owner's profile: users ``< users // 2`` are short-job users. O(n).
    Sizes within the module's limits (:func:`check_sizes`).

    >>> w = profiles_workload(4, jobs=100, seed=2)
    >>> bool(w.p.max() <= 36000)
    True

    Parameters
    ----------
    users : int
        k, the number of users (1 to ``MAX_USERS``; default 10); the first ``k // 2`` are
        short-job users.
    jobs : int
        n, the number of jobs (1 to :data:`MAX_JOBS`); default 10,000.
    seed : int
        The random seed (numpy's ``default_rng``); default 0.
    processors : int
        m, the processors of the machine (default 64, the seed's).
    p_new : float
        The probability that a job opens a new campaign (default 0.02).

    Returns
    -------
    Workload
        The jobs in campaigns, their lengths (s) and owners, on ``processors`` processors.

    Raises
    ------
    InvalidInstanceError
        A size out of range (:func:`check_sizes`).
    """
    check_sizes(users, jobs, processors)
    rng = np.random.default_rng(seed)
    owners = rng.integers(0, users, size=jobs)
    offsets, owner = _campaign_layout(rng, jobs, p_new, owners)
    job_owner = np.repeat(owner, np.diff(offsets))
    short = job_owner < users // 2
    p = np.where(short, rng.uniform(1, 3600, size=jobs), rng.uniform(3600, 36000, size=jobs))
    return _build(processors, users, p, offsets, owner, "profiles")


def short_users(w: Workload) -> np.ndarray:
    """Boolean per user: a short-job user of the ``profiles`` workload.

    Parameters
    ----------
    w : Workload
        A workload of the ``profiles`` generator.

    Returns
    -------
    numpy.ndarray
        bool, shape ``(users,)``: ``True`` for the users ``0 .. users//2 - 1``.
    """
    return np.arange(w.users) < w.users // 2


def generate(profile: str, users: int, jobs: int, seed: int,
             processors: int | None = None) -> Workload:
    """Dispatch by profile name (``faircamp`` or ``profiles``); ``processors`` ``None``:
    the profile's 10 or 64.

    Parameters
    ----------
    profile : str
        ``"faircamp"`` (:func:`faircamp_workload`) or ``"profiles"``
        (:func:`profiles_workload`).
    users : int
        k, the number of users.
    jobs : int
        n, the number of jobs.
    seed : int
        The random seed.
    processors : int or None
        m, the processors; ``None``: the profile's (10 or 64).

    Returns
    -------
    Workload
        The generated workload (the profile's other parameters at their defaults).

    Raises
    ------
    InvalidInstanceError
        An unknown profile or a size out of range.
    """
    if profile == "faircamp":
        return faircamp_workload(users, jobs, seed, 10 if processors is None else processors)
    if profile == "profiles":
        return profiles_workload(users, jobs, seed, 64 if processors is None else processors)
    raise InvalidInstanceError("profile", profile, f"unknown: one of {', '.join(PROFILES)}")


def check_sizes(users: int, jobs: int, processors: int) -> None:
    """Refuse generator sizes that a workload file cannot hold or that cannot be generated.

    Parameters
    ----------
    users, jobs, processors : int
        Whole numbers, ``1 <= users <= MAX_USERS`` (the largest ``"users"`` a workload JSON
        may give, :data:`lpsched.campaigns.instance.MAX_USERS`), ``1 <= jobs <=``
        :data:`MAX_JOBS` and ``1 <= processors <= MAX_PROCESSORS``
        (:data:`lpsched.core.swf.MAX_PROCESSORS`).

    Raises
    ------
    InvalidInstanceError
        Naming the first value out of range and its range.

    Examples
    --------
    >>> check_sizes(10, 10_000, 10)
    >>> try:
    ...     check_sizes(10, 10**9, 10)
    ... except InvalidInstanceError as exc:
    ...     print(exc.field, exc.value)
    jobs 1000000000
    """
    for name, v, hi in (("users", users, MAX_USERS), ("jobs", jobs, MAX_JOBS),
                        ("processors", processors, MAX_PROCESSORS)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 1 <= v <= hi:
            raise InvalidInstanceError(name, v, f"must be a whole number from 1 to {hi:,}")
