"""Offline campaign scheduling (seed 002 ch. 2-3; spec §2): the ρ-approximation building
block (LPT, written here: the family may not import ``lpsched.approx``), an exact
``P||Cmax`` oracle for small sets, A-camp, MULTICAMP and MULTICMAX.

All schedules are job start times on identical machines for independent sequential jobs
(``q = 1``, no dependencies): a campaign is "a set of independent and non-preemptive jobs"
([L745]) and its schedule a ``P||Cmax`` one ([L848]); :func:`check_offline` refuses the
rest.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

import numpy as np

from lpsched.campaigns.instance import Workload
from lpsched.errors import InvalidInstanceError


def lpt_ratio(m: int) -> float:
    """Graham's LPT guarantee ``4/3 - 1/(3m)`` [L432-L456] (B2).

    Parameters
    ----------
    m : int
        The number of machines (>= 1).

    Returns
    -------
    float
        ``4/3 − 1/(3m)``.
    """
    return 4.0 / 3.0 - 1.0 / (3.0 * m)


def lpt(p: np.ndarray, m: int) -> tuple[np.ndarray, float]:
    """LPT list schedule of independent jobs ``p`` on ``m`` machines (spec §7.2).

    Guarantee: makespan ``<= (4/3 - 1/(3m)) C*``. O(n log n). Ties: longer first, then
    lower index; a job goes on the machine free earliest (lowest index on ties).

    Parameters
    ----------
    p : numpy.ndarray
        Each job's length (s), shape ``(n,)``.
    m : int
        The number of identical machines (>= 1).

    Returns
    -------
    start : ndarray
        Start of each job (in the input order).
    makespan : float
        The end of the last job (0 for no job).

    Examples
    --------
    >>> lpt(np.array([3.0, 3.0, 2.0, 2.0, 2.0]), 2)[1]
    7.0
    """
    p = np.asarray(p, dtype=float)
    if p.size <= m:  # one machine each, all at 0: what the list below gives
        return np.zeros(p.size), float(p.max(initial=0.0))
    order = np.lexsort((np.arange(p.size), -p))
    start = np.empty(p.size)
    machines = [(0.0, i) for i in range(min(m, p.size))]
    makespan = 0.0
    for j in order.tolist():
        t, i = heapq.heappop(machines)
        start[j] = t
        end = t + float(p[j])
        makespan = max(makespan, end)
        heapq.heappush(machines, (end, i))
    return start, makespan


def exact_cmax(p: np.ndarray, m: int) -> float:
    """Optimal ``P||Cmax`` by depth-first branch and bound (test oracle, n <= ~10).

    Exponential time; symmetric machine loads are pruned.

    >>> float(exact_cmax(np.array([3.0, 3.0, 2.0, 2.0, 2.0]), 2))
    6.0

    Parameters
    ----------
    p : numpy.ndarray
        Each job's length, shape ``(n,)``, at most 14 jobs.
    m : int
        The number of identical machines (>= 1).

    Returns
    -------
    float
        The optimal makespan.

    Raises
    ------
    InvalidInstanceError
        More than 14 jobs.
    """
    p = np.sort(np.asarray(p, dtype=float))[::-1]
    if p.size > 14:
        raise InvalidInstanceError("p", int(p.size), "the exact oracle takes at most 14 jobs")
    lb = max(float(p.sum()) / m, float(p.max(initial=0.0)))
    best = [lpt(p, m)[1]]
    loads = [0.0] * m

    def dfs(j: int, current: float) -> None:
        if current >= best[0] - 1e-12 or best[0] <= lb + 1e-12:
            return
        if j == p.size:
            best[0] = current
            return
        tried: set[float] = set()
        for i in range(m):
            if loads[i] in tried:
                continue
            tried.add(loads[i])
            loads[i] += p[j]
            dfs(j + 1, max(current, loads[i]))
            loads[i] -= p[j]

    dfs(0, 0.0)
    return best[0]


def check_offline(w: Workload, name: str) -> None:
    """Refuse what the offline algorithms do not schedule: parallel jobs and dependencies.

    A-camp, MULTICAMP and MULTICMAX place each campaign (or each user's jobs) as an LPT
    schedule of independent sequential jobs: a campaign is "a set of independent and
    non-preemptive jobs" ([L745]), sizes other than 1 only appear in ch. 6 ([L755]), and
    A-camp runs a ``P||Cmax`` algorithm on each campaign ([L848]).

    Parameters
    ----------
    w : Workload
        The workload to schedule.
    name : str
        The algorithm, named in the message (e.g. ``"MULTICAMP"``).

    Raises
    ------
    InvalidInstanceError
        If a job has ``q > 1`` (field ``q``) or the workload has dependency edges (field
        ``deps``, the number of edges).

    Examples
    --------
    >>> from lpsched.campaigns.instance import make_workload
    >>> w = make_workload(2, [{"user": 0, "jobs": [{"p": 1.0}, {"p": 2.0}],
    ...                        "deps": [[0, 1]]}])
    >>> try:
    ...     check_offline(w, "MULTICAMP")
    ... except InvalidInstanceError as exc:
    ...     print(exc.field, exc.value)
    deps 1
    """
    if w.parallel:
        raise InvalidInstanceError("q", int(w.q.max()), f"{name} takes sequential jobs")
    if w.has_deps:
        raise InvalidInstanceError("deps", int(w.dep_src.size), f"{name} takes independent "
                                   "jobs (its LPT schedules ignore precedence): drop the "
                                   "dependencies (extract without --deps)")


@dataclass(frozen=True)
class OfflineSchedule:
    """An offline schedule: ``start`` per job, ``total_flow`` per user (``ΣΔ^u``, the
    campaign-compact concatenation, Lemma 3.1), ``order`` of the users' blocks."""

    start: np.ndarray
    total_flow: np.ndarray
    order: np.ndarray
    makespan: float


def acamp(w: Workload, user: int) -> tuple[np.ndarray, float]:
    """A-camp (Prop 3.3 [L848-L850], B10): LPT on each campaign of ``user``, campaigns
    concatenated campaign-compactly.

    Guarantee ``ΣΔ <= ρ ΣΔ*`` with ``ρ = 4/3 - 1/(3m)``. Returns the starts of that
    user's jobs (offset 0) and ``ΣΔ``. O(n log n). Raises :class:`InvalidInstanceError`
    for parallel jobs or dependencies (:func:`check_offline`).

    Parameters
    ----------
    w : Workload
        Sequential jobs (``q = 1``) without dependencies.
    user : int
        The user whose campaigns are scheduled.

    Returns
    -------
    start : numpy.ndarray
        The start of each of the user's jobs (in workload order), from 0.
    total_flow : float
        ΣΔ^u, the end of the user's last campaign.

    Raises
    ------
    InvalidInstanceError
        Parallel jobs or dependencies.
    """
    check_offline(w, "A-camp")
    return _acamp(w, np.flatnonzero(w.user == user))


def _acamp(w: Workload, camps: np.ndarray) -> tuple[np.ndarray, float]:
    """A-camp on the campaigns ``camps`` (one user's, in order), unchecked."""
    starts = []
    t = 0.0
    for c in camps.tolist():
        s, length = lpt(w.p[w.offsets[c]:w.offsets[c + 1]], w.processors)
        starts.append(s + t)
        t += length
    return (np.concatenate(starts) if starts else np.zeros(0)), t


def multicamp(w: Workload) -> OfflineSchedule:
    """MULTICAMP (Prop 3.5 [L872-L878], B5): each user's A-camp block, users ordered by
    non-decreasing ``ΣΔ(ζ^u)``, blocks back to back.

    Offline: every campaign submitted when its predecessor completes (think 0).
    Guarantee: the ``r``-th user gets ``ΣΔ <= r ρ ΣΔ*`` (vector ratio ``(ρ, 2ρ, ...,
    kρ)``). O(n log n). Raises :class:`InvalidInstanceError` for parallel jobs or
    dependencies (:func:`check_offline`).

    Parameters
    ----------
    w : Workload
        Sequential jobs (``q = 1``) without dependencies.

    Returns
    -------
    OfflineSchedule
        Each job's start, each user's ΣΔ^u, the order of the users' blocks and the
        makespan.

    Raises
    ------
    InvalidInstanceError
        Parallel jobs or dependencies.
    """
    check_offline(w, "MULTICAMP")
    users = np.unique(w.user)
    camps_of = _indices_by_user(w.user, users)
    blocks = [_acamp(w, camps) for camps in camps_of]
    lengths = np.array([b[1] for b in blocks])
    order = users[np.argsort(lengths, kind="stable")]
    start = np.empty(w.jobs)
    flow = np.zeros(w.users)
    t = 0.0
    for u in order.tolist():
        i = int(np.searchsorted(users, u))
        s, length = blocks[i]
        jobs = np.concatenate([np.arange(w.offsets[c], w.offsets[c + 1])
                               for c in camps_of[i].tolist()])
        start[jobs] = s + t
        flow[u] = t + length  # campaign-compact from t_1 = 0: ΣΔ^u = C_last (Lemma 3.1)
        t += length
    return OfflineSchedule(start, flow, order, t)


def multicmax(w: Workload) -> OfflineSchedule:
    """MULTICMAX (Saule-Trystram [L519-L523], B5-B6): each user's jobs (campaign barriers ignored)
    as one LPT block on all machines; blocks by non-decreasing makespan.

    Guarantee ``(ρ, 2ρ, ..., kρ)`` for the users' makespans. O(n log n).

    Parameters
    ----------
    w : Workload
        Sequential jobs (``q = 1``) without dependencies.

    Returns
    -------
    OfflineSchedule
        Each job's start, each user's block end (its makespan), the order of the blocks and
        the makespan.

    Raises
    ------
    InvalidInstanceError
        If a job is parallel (``q > 1``) or the workload has dependencies: the LPT blocks
        are for independent sequential jobs (:func:`check_offline`).
    """
    check_offline(w, "MULTICMAX")
    users = np.unique(w.user)
    per = []
    for jobs in _indices_by_user(w.user[w.camp], users):
        s, length = lpt(w.p[jobs], w.processors)
        per.append((jobs, s, length))
    order_idx = np.argsort([x[2] for x in per], kind="stable")
    start = np.empty(w.jobs)
    flow = np.zeros(w.users)
    t = 0.0
    for i in order_idx.tolist():
        jobs, s, length = per[i]
        start[jobs] = s + t
        t += length
        flow[int(users[i])] = t
    return OfflineSchedule(start, flow, users[order_idx], t)


def _indices_by_user(owner: np.ndarray, users: np.ndarray) -> list[np.ndarray]:
    """For each of ``users`` (the sorted ids of ``owner``), the indices ``i`` with
    ``owner[i]`` that user, in increasing order (campaigns, or jobs). O(n log n)."""
    by_user = np.argsort(owner, kind="stable")
    bounds = np.searchsorted(owner[by_user], np.append(users, users[-1] + 1))
    return [by_user[bounds[i]:bounds[i + 1]] for i in range(users.size)]


def zenith(w: Workload, exact: bool = False) -> np.ndarray:
    """Per user, ``Σ_i Cmax(J_i^u)`` alone on the machine (the zenith of ΣΔ^u, §1.3): exact
    (small campaigns, :func:`exact_cmax`) or the lower bound ``Σ_i max(W/m, p_max)``.

    Parameters
    ----------
    w : Workload
        The workload.
    exact : bool
        Use the exact optimum per campaign (at most 14 jobs each); default ``False``: the
        lower bound.

    Returns
    -------
    numpy.ndarray
        Shape ``(users,)``, in seconds.

    Raises
    ------
    InvalidInstanceError
        ``exact`` with a campaign of more than 14 jobs.
    """
    out = np.zeros(w.users)
    for c in range(w.campaigns):
        p = w.p[w.offsets[c]:w.offsets[c + 1]]
        out[w.user[c]] += (exact_cmax(p, w.processors) if exact
                           else max(float(p.sum()) / w.processors, float(p.max())))
    return out


def round_robin_flows(k: int, n: int) -> list[int]:
    """ΣΔ^u of round-robin interleaving on the Prop 3.4 instance [L864-L870]: user ``u``
    (1-based) gets ``kn - k + u``.

    Parameters
    ----------
    k : int
        The number of users.
    n : int
        The number of campaigns per user.

    Returns
    -------
    list of int
        ΣΔ^u for u = 1..k.
    """
    return [k * n - k + u for u in range(1, k + 1)]


def fair_share_factor(usage: np.ndarray, share: float) -> np.ndarray:
    """Slurm's fair-share factor ``F = 2^(-U/S)`` [L645-L667] (B8), ``U`` the normalised usage of
    each user, ``S`` the normalised share.

    O(k).

    >>> fair_share_factor(np.array([1.0, 0.0, 0.0]), 1 / 3).tolist()
    [0.125, 1.0, 1.0]

    Parameters
    ----------
    usage : numpy.ndarray
        U, each user's normalised usage, shape ``(k,)``.
    share : float
        S, the normalised share (the same for every user).

    Returns
    -------
    numpy.ndarray
        F per user, in (0, 1]; NaN everywhere when ``share <= 0``.
    """
    return np.power(2.0, -np.asarray(usage, dtype=float) / share) if share > 0 else \
        np.full(len(usage), math.nan)
