"""Users, campaigns and jobs (seed 002 §1, spec §1.1): a validated, immutable workload.

A :class:`~lpsched.campaigns.instance.Workload` stores its jobs in flat numpy arrays (``p``
lengths, ``q`` sizes) grouped by campaign through CSR offsets (campaign ``c`` owns jobs
``offsets[c]:offsets[c+1]``). A user's campaigns are sequential (``t_{i+1} >= C_i``,
[L784]) in the order they appear.

Submission modes (the workload JSON): a campaign with ``submit`` = a time is
*open-loop* (from a trace) and is released at ``max(submit, C_{i-1})`` (spec A13, decision
90); ``submit`` = ``None`` (``nan`` here) is *closed-loop*, released ``think`` after the
user's previous campaign completes, the first at time 0.

Dependencies (§5.6): ``dep_src``/``dep_dst`` are global job indices, both in the same
campaign; a job with predecessors is released when they have all completed.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from lpsched.campaigns.dag import INTERVAL_ORDER, dependency_edges
from lpsched.core.inputs import max_json_bytes, read_input
from lpsched.core.swf import FIELD_LIMIT, MAX_PROCESSORS
from lpsched.errors import InvalidInstanceError, ParseError

#: per-job keys kept as float arrays (original-log data from an extraction)
JOB_FLOATS = ("id", "submit0", "start0", "end0")
#: largest magnitude of a time or length (2^53, as an SWF field): beyond it the areas and
#: stretches computed from it overflow or lose every digit
MAX_TIME = FIELD_LIMIT
#: largest user id + 1 (the policies keep arrays per user; as many as processors)
MAX_USERS = MAX_PROCESSORS
_CAMPAIGN_KEYS = {"user", "submit", "think", "jobs", "deps", "piece"}
_JOB_KEYS = {"p", "q", *JOB_FLOATS}


@dataclass(frozen=True, eq=False)
class Workload:
    """A validated campaign workload (spec §1, §9.3).

    Attributes
    ----------
    processors : int
        ``m``, identical processors.
    p, q : ndarray
        Job lengths (> 0) and sizes (whole, ``1 <= q <= m``).
    offsets : ndarray
        CSR offsets, ``len = campaigns + 1``.
    user, submit, think, piece : ndarray
        Per campaign: owner (>= 0), open-loop submission time (``nan`` = closed loop),
        think time (>= 0), trace piece (downtime splitting, §5.7; 0 by default).
    dep_src, dep_dst : ndarray
        Dependency edges (global job indices, same campaign, acyclic).
    users : int
        ``k``: the configured number of users (FairCamp's ``k``; spec A4), at least
        ``max(user) + 1``.
    job_data : dict
        ``id``, ``submit0``, ``start0``, ``end0`` arrays when present (original log).
    extra : dict
        Unknown top-level keys, kept on save; ``extra_campaigns`` / ``extra_jobs`` map an
        index to its unknown keys.
    """

    processors: int
    p: np.ndarray
    q: np.ndarray
    offsets: np.ndarray
    user: np.ndarray
    submit: np.ndarray
    think: np.ndarray
    piece: np.ndarray
    dep_src: np.ndarray
    dep_dst: np.ndarray
    users: int
    job_data: dict[str, np.ndarray] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    extra_campaigns: dict[int, dict[str, Any]] = field(default_factory=dict)
    extra_jobs: dict[int, dict[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _validate(self)

    @property
    def campaigns(self) -> int:
        """Number of campaigns (all users, all trace pieces)."""
        return int(self.user.size)

    @property
    def jobs(self) -> int:
        """Number of jobs (all campaigns)."""
        return int(self.p.size)

    @property
    def camp(self) -> np.ndarray:
        """Campaign index of every job."""
        return np.repeat(np.arange(self.campaigns), np.diff(self.offsets))

    @property
    def work(self) -> np.ndarray:
        """``W_i^u = sum p q`` per campaign (area, spec A1)."""
        return np.add.reduceat(self.p * self.q, self.offsets[:-1])

    @property
    def pmax(self) -> np.ndarray:
        """Longest job of each campaign."""
        return np.maximum.reduceat(self.p, self.offsets[:-1])

    @property
    def lower_bound(self) -> np.ndarray:
        """``l_i^u = max(W/m, p_max)`` per campaign [L782], the stretch denominator (S1)."""
        return np.maximum(self.work / self.processors, self.pmax)

    @property
    def parallel(self) -> bool:
        """Whether some job needs more than one processor (``q > 1``): rigid parallel jobs, seed
        002 ch. 6."""
        return bool(np.any(self.q > 1))

    @property
    def has_deps(self) -> bool:
        """Whether the workload has precedence edges between jobs (``dep_src``/``dep_dst``)."""
        return bool(self.dep_src.size)


def _fail(fieldname: str, value: object, reason: str) -> NoReturn:
    raise InvalidInstanceError(fieldname, value, reason)


def _first(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _validate(w: Workload) -> None:
    m = w.processors
    if (isinstance(m, bool) or not isinstance(m, (int, np.integer))
            or not 1 <= m <= MAX_PROCESSORS):
        _fail("processors", m, f"must be a whole number from 1 to {MAX_PROCESSORS:,} (the "
              "largest machine lpsched simulates)")
    n_c = w.user.size
    if n_c == 0:
        _fail("campaigns", [], "a workload needs at least one campaign")
    if w.offsets.size != n_c + 1 or w.offsets[0] != 0 or w.offsets[-1] != w.p.size:
        _fail("offsets", w.offsets[:5].tolist(), "inconsistent with the jobs")
    sizes = np.diff(w.offsets)
    if np.any(sizes < 1):
        c = _first(sizes < 1)
        _fail(f"campaigns[{c}].jobs", [], "a campaign needs at least one job")
    camp = w.camp
    bad = ~np.isfinite(w.p) | (w.p <= 0)
    if bad.any():
        j = _first(bad)
        c = int(camp[j])
        _fail(f"campaigns[{c}].jobs[{j - w.offsets[c]}].p", float(w.p[j]),
              "a job length must be finite and > 0")
    bad = (w.q < 1) | (w.q > m)
    if bad.any():
        j = _first(bad)
        c = int(camp[j])
        _fail(f"campaigns[{c}].jobs[{j - w.offsets[c]}].q", int(w.q[j]),
              f"a job size must be a whole number in [1, processors = {m}]")
    for name, arr, lo in (("user", w.user, 0), ("think", w.think, 0.0), ("piece", w.piece, 0)):
        bad = ~np.isfinite(arr) | (arr < lo)
        if bad.any():
            c = _first(bad)
            _fail(f"campaigns[{c}].{name}", arr[c].item(), f"must be finite and >= {lo}")
    bad = ~np.isnan(w.submit) & (~np.isfinite(w.submit) | (w.submit < 0))
    if bad.any():
        c = _first(bad)
        _fail(f"campaigns[{c}].submit", float(w.submit[c]), "must be null or a time >= 0")
    if w.users < int(w.user.max()) + 1:
        _fail("users", w.users, f"fewer than the users named (max user id {w.user.max()})")
    _validate_deps(w, camp)


def _validate_deps(w: Workload, camp: np.ndarray) -> None:
    src, dst = w.dep_src, w.dep_dst
    if src.size == 0:
        return
    n = w.p.size
    bad = (src < 0) | (src >= n) | (dst < 0) | (dst >= n)
    if bad.any():
        _fail("deps", [int(src[_first(bad)]), int(dst[_first(bad)])], "job index out of range")
    bad = camp[src] != camp[dst]
    if bad.any():
        e = _first(bad)
        _fail(f"campaigns[{int(camp[dst[e]])}].deps", [int(src[e]), int(dst[e])],
              "an edge must join two jobs of the same campaign")
    if topological_order(n, src, dst) is None:
        _fail("deps", int(src.size), "the dependency graph has a cycle")


def topological_order(n: int, src: np.ndarray, dst: np.ndarray) -> np.ndarray | None:
    """Kahn's algorithm on ``n`` nodes; ``None`` when the graph has a cycle.

    O(n + e).

    Parameters
    ----------
    n : int
        The number of nodes, ``0..n-1``.
    src : numpy.ndarray
        int, the source of each edge, shape ``(e,)``.
    dst : numpy.ndarray
        int, the target of each edge, shape ``(e,)``.

    Returns
    -------
    numpy.ndarray or None
        int64, shape ``(n,)``: the nodes in a topological order; ``None`` on a cycle.
    """
    indeg = np.bincount(dst, minlength=n)
    order = np.argsort(src, kind="stable")
    starts = np.searchsorted(src[order], np.arange(n + 1))
    succ = dst[order]
    stack = list(np.flatnonzero(indeg == 0))
    out: list[int] = []
    indeg = indeg.tolist()
    while stack:
        v = int(stack.pop())
        out.append(v)
        for s in succ[starts[v]:starts[v + 1]].tolist():
            indeg[s] -= 1
            if indeg[s] == 0:
                stack.append(s)
    return np.asarray(out, dtype=np.int64) if len(out) == n else None


def make_workload(processors: int, campaigns: list[dict[str, Any]], users: int | None = None,
                  extra: dict[str, Any] | None = None) -> Workload:
    """Build a :class:`~lpsched.campaigns.instance.Workload` from campaign dicts in the JSON shape:
    ``{"user", "submit", "think", "jobs": [{"p", "q"}, ...], "deps": [[a, b], ...]}`` (``deps``
    local job indices).

    Every field is checked; the message names it. O(n).

    Parameters
    ----------
    processors : int
        m, the machine's processors (1 to ``MAX_PROCESSORS``).
    campaigns : list of dict
        The campaigns in order: ``user`` (an index), ``submit`` (s, or ``None``: the user's
        closed loop decides), ``think`` (s, default 0), optional ``piece``, ``jobs`` (each
        ``p`` in seconds and ``q`` processors) and ``deps``; other keys are kept.
    users : int or None
        The number of users; ``None`` (default): the largest user index + 1.
    extra : dict or None
        The workload's other top-level keys (kept; ``deps_rule`` recomputes the edges).

    Returns
    -------
    Workload
        The validated workload, jobs numbered campaign after campaign.

    Raises
    ------
    InvalidInstanceError
        Naming the first bad field and why.
    """
    if not isinstance(campaigns, list):
        _fail("campaigns", type(campaigns).__name__, "must be a list")
    n_c = len(campaigns)
    user = np.zeros(n_c, dtype=np.int64)
    submit = np.full(n_c, np.nan)
    think = np.zeros(n_c)
    piece = np.zeros(n_c, dtype=np.int64)
    sizes = np.zeros(n_c, dtype=np.int64)
    p_parts: list[list[float]] = []
    q_parts: list[list[int]] = []
    data: dict[str, list[float]] = {k: [] for k in JOB_FLOATS}
    seen: set[str] = set()
    srcs: list[np.ndarray] = [np.zeros(0, dtype=np.int64)]
    dsts: list[np.ndarray] = [np.zeros(0, dtype=np.int64)]
    extra_c: dict[int, dict[str, Any]] = {}
    extra_j: dict[int, dict[str, Any]] = {}
    base = 0
    for c, camp in enumerate(campaigns):
        where = f"campaigns[{c}]"
        if not isinstance(camp, dict):
            _fail(where, type(camp).__name__, "must be an object")
        user[c] = _whole(camp.get("user"), f"{where}.user", MAX_USERS - 1)
        s = camp.get("submit")
        submit[c] = np.nan if s is None else _number(s, f"{where}.submit")
        think[c] = _number(camp.get("think", 0.0), f"{where}.think")
        piece[c] = _whole(camp.get("piece", 0), f"{where}.piece")
        jobs = camp.get("jobs")
        if not isinstance(jobs, list):
            _fail(f"{where}.jobs", type(jobs).__name__, "must be a list of jobs")
        if not jobs:
            _fail(f"{where}.jobs", [], "a campaign needs at least one job")
        sizes[c] = len(jobs)
        pl, ql = _jobs(jobs, where, data, seen, extra_j, base)
        p_parts.append(pl)
        q_parts.append(ql)
        _deps(camp.get("deps", []), where, len(jobs), base, srcs, dsts)
        rest = {k: v for k, v in camp.items() if k not in _CAMPAIGN_KEYS}
        if rest:
            extra_c[c] = rest
        base += len(jobs)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    flat_p = np.fromiter((x for part in p_parts for x in part), float, count=base)
    flat_q = np.fromiter((x for part in q_parts for x in part), np.int64, count=base)
    job_data = {k: np.asarray(v, float) for k, v in data.items() if k in seen}
    k = int(user.max()) + 1 if n_c else 0
    if users is not None:
        k = _whole(users, "users", MAX_USERS)
    m = _whole(processors, "processors", MAX_PROCESSORS)
    src, dst = np.concatenate(srcs), np.concatenate(dsts)
    if (extra or {}).get("deps_rule") is not None:
        src, dst = _rule_edges(extra or {}, offsets, job_data, src.size)
    return Workload(m, flat_p, flat_q, offsets, user, submit, think, piece, src, dst, k,
                    job_data, dict(extra or {}), extra_c, extra_j)


def _rule_edges(extra: dict[str, Any], offsets: np.ndarray, job_data: dict[str, np.ndarray],
                explicit: int) -> tuple[np.ndarray, np.ndarray]:
    """The edges of ``"deps_rule": "interval-order"`` (:mod:`lpsched.campaigns.dag`)."""
    if extra["deps_rule"] != INTERVAL_ORDER:
        _fail("deps_rule", extra["deps_rule"], f"the only rule is {INTERVAL_ORDER!r}")
    if explicit:
        _fail("deps_rule", extra["deps_rule"], "give either explicit \"deps\" or the rule")
    for key in ("submit0", "end0"):
        if key not in job_data or np.isnan(job_data[key]).any():
            _fail(f"jobs.{key}", None, f"every job needs {key} under deps_rule")
    camp = np.repeat(np.arange(offsets.size - 1), np.diff(offsets))
    return dependency_edges(camp, job_data["submit0"], job_data["end0"])


def _jobs(jobs: list[Any], where: str, data: dict[str, list[float]], seen: set[str],
          extra_j: dict[int, dict[str, Any]], base: int) -> tuple[list[float], list[int]]:
    pl: list[float] = []
    ql: list[int] = []
    for j, job in enumerate(jobs):
        if not isinstance(job, dict):
            _fail(f"{where}.jobs[{j}]", type(job).__name__, "must be an object {\"p\", \"q\"}")
        pl.append(_number(job.get("p"), f"{where}.jobs[{j}].p"))
        ql.append(_whole(job.get("q", 1), f"{where}.jobs[{j}].q"))
        for key in JOB_FLOATS:
            v = job.get(key)
            if v is not None:
                seen.add(key)
            data[key].append(np.nan if v is None else _number(v, f"{where}.jobs[{j}].{key}"))
        if len(job) > 2:
            rest = {k: v for k, v in job.items() if k not in _JOB_KEYS}
            if rest:
                extra_j[base + j] = rest
    return pl, ql


def _deps(deps: Any, where: str, n: int, base: int, srcs: list[np.ndarray],
          dsts: list[np.ndarray]) -> None:
    """Check a campaign's ``[[a, b], ...]`` edges (vectorised; the first bad one named)."""
    if not isinstance(deps, list):
        _fail(f"{where}.deps", type(deps).__name__, "must be a list of [a, b] pairs")
    if not deps:
        return
    try:
        arr = np.asarray(deps, dtype=float)
    except (ValueError, TypeError):
        arr = np.zeros((0, 0))
    if arr.ndim != 2 or arr.shape[1] != 2:
        for e, pair in enumerate(deps):
            if not (isinstance(pair, list) and len(pair) == 2):
                _fail(f"{where}.deps[{e}]", pair, "must be a pair [a, b] of job indices")
            _whole(pair[0], f"{where}.deps[{e}][0]")
            _whole(pair[1], f"{where}.deps[{e}][1]")
        _fail(f"{where}.deps", deps[:3], "must be a list of [a, b] pairs")
    bad = (~np.isfinite(arr).all(axis=1) | (arr != np.floor(arr)).any(axis=1)
           | (arr < 0).any(axis=1) | (arr >= n).any(axis=1) | (arr[:, 0] == arr[:, 1]))
    if bad.any():
        e = int(np.flatnonzero(bad)[0])
        _fail(f"{where}.deps[{e}]", deps[e], f"must name two distinct jobs in [0, {n})")
    srcs.append(arr[:, 0].astype(np.int64) + base)
    dsts.append(arr[:, 1].astype(np.int64) + base)


def _number(v: Any, where: str, bounded: bool = True) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        _fail(where, v, "must be a number")
    try:
        x = float(v)
    except OverflowError:  # a Python int beyond the float range
        x = math.inf
    if not math.isfinite(x):
        _fail(where, v, "must be finite")
    if bounded and abs(x) > MAX_TIME:
        _fail(where, v, f"must be at most 2^53 = {MAX_TIME:.4g} in magnitude (larger "
              "values overflow the areas and stretches)")
    return x


def _whole(v: Any, where: str, hi: float = MAX_TIME) -> int:
    x = _number(v, where, bounded=False)
    if x != math.floor(x) or not 0 <= x <= hi:
        _fail(where, v, f"must be a whole number from 0 to {int(hi):,}")
    return int(x)


def to_dict(w: Workload) -> dict[str, Any]:
    """The workload JSON, extra keys kept; inverse of :func:`from_dict`.

    O(n).

    Parameters
    ----------
    w : Workload
        The workload.

    Returns
    -------
    dict
        JSON-ready: ``processors``, ``users``, ``campaigns`` (with their jobs, and deps
        unless the rule recomputes them) and the extra keys.
    """
    out: dict[str, Any] = dict(w.extra)
    out["processors"] = int(w.processors)
    out["users"] = int(w.users)
    p = w.p.tolist()
    q = w.q.tolist()
    data = {k: v.tolist() for k, v in w.job_data.items()}
    deps_of = {} if w.extra.get("deps_rule") == INTERVAL_ORDER else _deps_by_campaign(w)
    camps = []
    for c in range(w.campaigns):
        lo, hi = int(w.offsets[c]), int(w.offsets[c + 1])
        jobs = []
        for j in range(lo, hi):
            job: dict[str, Any] = dict(w.extra_jobs.get(j, {}))
            job["p"] = p[j]
            job["q"] = q[j]
            for key, arr in data.items():
                if not math.isnan(arr[j]):
                    job[key] = arr[j]
            jobs.append(job)
        entry: dict[str, Any] = dict(w.extra_campaigns.get(c, {}))
        entry.update(user=int(w.user[c]),
                     submit=None if math.isnan(w.submit[c]) else float(w.submit[c]),
                     think=float(w.think[c]), jobs=jobs)
        if w.piece[c]:
            entry["piece"] = int(w.piece[c])
        if c in deps_of:
            entry["deps"] = deps_of[c]
        camps.append(entry)
    out["campaigns"] = camps
    return out


def _deps_by_campaign(w: Workload) -> dict[int, list[list[int]]]:
    """Local ``[a, b]`` edge lists per campaign (vectorised)."""
    if not w.dep_src.size:
        return {}
    camp_of = w.camp[w.dep_src]
    order = np.argsort(camp_of, kind="stable")
    first = w.offsets[camp_of]
    local = np.stack((w.dep_src - first, w.dep_dst - first), axis=1)[order]
    bounds = np.searchsorted(camp_of[order], np.arange(w.campaigns + 1))
    return {c: local[bounds[c]:bounds[c + 1]].tolist()
            for c in np.flatnonzero(np.diff(bounds)).tolist()}


def from_dict(data: Any) -> Workload:
    """Parse and validate the workload JSON object.

    O(n).

    Parameters
    ----------
    data : object
        The decoded JSON: an object with ``processors``, ``campaigns`` and optionally
        ``users`` (other keys kept as extra).

    Returns
    -------
    Workload
        The validated workload.

    Raises
    ------
    InvalidInstanceError
        Not an object, a missing key, or a bad field (named).
    """
    if not isinstance(data, dict):
        _fail("workload", type(data).__name__, "must be a JSON object")
    if "processors" not in data:
        _fail("processors", None, "missing")
    if "campaigns" not in data:
        _fail("campaigns", None, "missing")
    extra = {k: v for k, v in data.items() if k not in ("processors", "campaigns", "users")}
    return make_workload(data["processors"], data["campaigns"], data.get("users"), extra)


def load_workload(path: str | Path) -> Workload:
    """Read a workload JSON file (plain :mod:`json`; the CLI uses the hardened reader),
    or a pipe; a file larger than :func:`lpsched.core.inputs.max_json_bytes` is refused
    before it is read.

    Parameters
    ----------
    path : str or Path
        The workload JSON file.

    Returns
    -------
    Workload
        The validated workload.

    Raises
    ------
    ParseError
        Cannot be read, too large, not UTF-8, or not JSON (with the line).
    InvalidInstanceError
        A bad field (named).
    """
    raw = read_input(path, max_json_bytes(), "JSON file")  # a pipe too; size-limited
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise ParseError(str(path), f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset "
                         f"{exc.start})") from None
    except json.JSONDecodeError as exc:
        raise ParseError(str(path), f"not JSON: {exc.msg}", exc.lineno) from exc
    return from_dict(data)


def save_workload(w: Workload, path: str | Path) -> None:
    """Write ``w`` as JSON (``to_dict``).

    Parameters
    ----------
    w : Workload
        The workload.
    path : str or Path
        The JSON file to write (replaced if it exists).
    """
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(to_dict(w), fh)


def replace_processors(w: Workload, processors: int) -> Workload:
    """The same workload on ``processors`` machines (validated again: sizes must fit).

    Parameters
    ----------
    w : Workload
        The workload.
    processors : int
        The new machine size m.

    Returns
    -------
    Workload
        The same campaigns and jobs with ``processors`` processors.

    Raises
    ------
    InvalidInstanceError
        A job wider than ``processors``, or a bad count.
    """
    return Workload(int(processors), w.p, w.q, w.offsets, w.user, w.submit, w.think, w.piece,
                    w.dep_src, w.dep_dst, w.users, w.job_data, w.extra, w.extra_campaigns,
                    w.extra_jobs)


def select_campaigns(w: Workload, idx: np.ndarray) -> Workload:
    """The sub-workload made of campaigns ``idx`` (in that order), e.g. one trace piece.

    Parameters
    ----------
    w : Workload
        The workload.
    idx : numpy.ndarray
        The indices of the campaigns to keep, in the order wanted.

    Returns
    -------
    Workload
        Those campaigns with their jobs (renumbered), the dependency edges inside them, the
        same users, machine and extra keys.
    """
    idx = np.asarray(idx, dtype=np.int64)
    sizes = np.diff(w.offsets)[idx]
    jobs = np.concatenate([np.arange(w.offsets[c], w.offsets[c + 1]) for c in idx.tolist()])
    remap = np.full(w.jobs, -1, dtype=np.int64)
    remap[jobs] = np.arange(jobs.size)
    keep = remap[w.dep_src] >= 0
    return Workload(w.processors, w.p[jobs], w.q[jobs],
                    np.concatenate(([0], np.cumsum(sizes))).astype(np.int64), w.user[idx],
                    w.submit[idx], w.think[idx], w.piece[idx], remap[w.dep_src[keep]],
                    remap[w.dep_dst[keep]], w.users,
                    {k: v[jobs] for k, v in w.job_data.items()}, w.extra)
