"""Campaigns from an SWF log (seed 002 §5.6-5.7): downtime pieces, batch detection per
user (MAX, the thesis's choice; LAST; ARRIVAL; SESSION) and the dependency DAG of each
campaign.

Conventions (spec A11-A14, docs/decisions.md ("Campaign scheduling")):

* a job is kept when it ran: ``run > 0`` (cancelled and zero-length jobs are reported as
  not placed, with the reason); a job with an unknown user (``-1``) is not placed either;
  an unknown wait (``-1``) counts as 0; the original end is ``submit + wait + run``;
  ``status`` selects jobs by the SWF status field (default every status, decision 300,
  [L1354]); a log where no job can be placed is a :class:`~lpsched.errors.ParseError`
  naming each reason's count (decision 301);
* size: allocated processors, else requested, else 1; a job larger than the machine is
  not placed;
* a downtime is a gap of at least ``downtime`` seconds with nothing running and nothing
  submitted; the log is split there into pieces; a job submitted before a downtime and
  started after it belongs to the next piece, submitted at the piece's start (A14);
* campaigns are detected per user inside each piece (A11); MAX: a job opens a new campaign
  iff it is submitted at or after the largest original end of the user's current campaign;
* SESSION ([L1296], [ZF12]; spec A11): a user's session breaks when the think time, from
  the end of the user's previous job (submission order) to this submission, exceeds
  ``session_gap`` (default 20 min, [external]: ZF12's "more than, say, 20 minutes");
  inside a session, overlapping jobs form a batch (MAX, ``maxEnd`` reset at each session
  start), and a batch is a campaign. Every session break is a LAST break and every MAX
  break a session break: the campaigns refine MAX's and are unions of LAST's; SESSION
  equals MAX for an infinite gap and splits a MAX campaign only where a long "linker" job
  ([L1310-L1316]) still runs through a pause of more than ``session_gap``;
* dependency edge ``a -> b`` iff ``end_a <= submit_b`` (same campaign, A12), transitively
  reduced by a sweep (the non-overlap relation is an interval order: ``a -> b`` stays iff
  ``end_a > M(b)``, ``M(b)`` the latest submission among the jobs that ended by
  ``submit_b``); O(n log n + edges kept).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lpsched.campaigns.dag import INTERVAL_ORDER, dependency_edges
from lpsched.campaigns.instance import Workload
from lpsched.campaigns.schedule import previous_campaign
from lpsched.core.swf import SwfTrace, parse_status, status_mask
from lpsched.errors import InvalidInstanceError, ParseError

METHODS = ("max", "last", "arrival", "session")
#: default minimum downtime (spec A14)
DOWNTIME = 3600.0
#: default session break of the ``session`` method: a think time of more than 20 minutes
#: ([external]: ZF12's abstract; spec A11)
SESSION_GAP = 1200.0
#: default job selection by SWF status (field 11): every job (decision 300: "no jobs are
#: omitted during the replay", seed 002 [L1354]); ``"completed"`` keeps status 1 only
STATUS = "all"


@dataclass(frozen=True)
class Extraction:
    """The workload and the report of what could not be placed."""

    workload: Workload
    unplaced: dict[str, list[int]] = field(default_factory=dict)
    pieces: int = 1
    method: str = "max"

    def report(self, first: int = 20) -> dict[str, Any]:
        """JSON-ready counts (``session_gap`` too for the SESSION method).

        Parameters
        ----------
        first : int
            How many job ids to list per reason a job was not placed (default 20; the counts
            are always whole).

        Returns
        -------
        dict
            ``campaigns``, ``jobs``, ``users`` (distinct owners), ``pieces``, ``method``,
            ``edges`` (dependency edges), ``session_gap`` (SESSION only) and ``unplaced``: per
            reason, ``{"count": ..., "jobs": [the first ids]}``.
        """
        gap = self.workload.extra.get("session_gap")
        return {"campaigns": self.workload.campaigns, "jobs": self.workload.jobs,
                "users": int(np.unique(self.workload.user).size), "pieces": self.pieces,
                "method": self.method, "edges": int(self.workload.dep_src.size),
                **({"session_gap": gap} if gap is not None else {}),
                "unplaced": {r: {"count": len(ids), "jobs": ids[:first]}
                             for r, ids in self.unplaced.items()}}


def _keep(trace: SwfTrace, m: int, status: str | Iterable[int] | None = None
          ) -> tuple[np.ndarray, dict[str, list[int]]]:
    """The jobs that can be placed, and the others by reason (each job under exactly one
    reason, the first that applies: status not selected, did not run, unknown user,
    larger than the machine)."""
    c = trace.columns
    size = np.where(c["allocated"] > 0, c["allocated"],
                    np.where(c["requested_procs"] > 0, c["requested_procs"], 1))
    selected, _ = status_mask(trace, status)
    reasons: dict[str, np.ndarray] = {}
    for value in np.unique(c["status"][~selected]):
        reasons[f"status {int(value)} not selected"] = ~selected & (c["status"] == value)
    left = selected.copy()
    for reason, mask in (("did not run (run time <= 0 or unknown)", c["run"] <= 0),
                         ("unknown user (-1)", c["user"] < 0),
                         (f"larger than the machine ({m} processors)", size > m)):
        reasons[reason] = left & mask
        left &= ~mask
    unplaced = {r: c["job"][mask].astype(np.int64).tolist() for r, mask in reasons.items()
                if mask.any()}
    return left, unplaced


def _nothing_placed(trace: SwfTrace, unplaced: dict[str, list[int]]) -> ParseError:
    """The error of a log where no job can be placed (seed 002 §5.6 needs at least one
    job that ran), naming the count of each reason."""
    if not trace.jobs:
        return ParseError(trace.path, "no job in the trace (only header and comment "
                          "lines): nothing to extract campaigns from")
    why = "; ".join(f"{len(ids)} {reason}" for reason, ids in
                    sorted(unplaced.items(), key=lambda item: -len(item[1])))
    what = f"all {trace.jobs} jobs were" if trace.jobs != 1 else "its only job was"
    return ParseError(trace.path, f"no job can be placed in a campaign: {what} left out "
                      f"({why}); a job needs a run time > 0, a user "
                      "and at most the machine's processors (--machines), and a status "
                      "the selection keeps (--status)")


def split_pieces(submit: np.ndarray, start: np.ndarray, end: np.ndarray,
                 downtime: float) -> tuple[np.ndarray, np.ndarray]:
    """Piece of each job and the start time of each piece (spec A14).

    A gap counts when no job runs (``[start, end)``) and none is submitted for ``>= downtime``. O(n
    log n).

    Parameters
    ----------
    submit : numpy.ndarray
        Each job's submission time (s), shape ``(n,)``.
    start : numpy.ndarray
        Each job's start time in the log (s), shape ``(n,)``.
    end : numpy.ndarray
        Each job's end time in the log (s), shape ``(n,)``.
    downtime : float
        The least gap (s) without running or submitted jobs that splits the log into
        pieces (:data:`DOWNTIME`, one hour, by default in :func:`extract`).

    Returns
    -------
    piece : numpy.ndarray
        int, shape ``(n,)``: the piece of each job (0 for the first), by its start time.
    piece_start : numpy.ndarray
        The time each piece starts: its first activity (submission or start).
    """
    left = np.concatenate((start, submit))
    right = np.concatenate((end, submit))
    order = np.argsort(left, kind="stable")
    lo, hi = left[order], np.maximum.accumulate(right[order])
    gap = np.flatnonzero(lo[1:] - hi[:-1] >= downtime)
    bounds = lo[gap + 1]  # the first activity after each downtime
    piece = np.searchsorted(bounds, start, side="right")
    piece_start = np.concatenate(([lo[0] if lo.size else 0.0], bounds))
    return piece, piece_start


def detect(user: np.ndarray, submit: np.ndarray, end: np.ndarray, method: str = "max",
           threshold: float = 600.0, session_gap: float = SESSION_GAP) -> np.ndarray:
    """Campaign id of every job (ids ascend with (group, submit)); jobs are grouped by
    ``user`` (a combined user/piece key), in submission order (ties by index).

    ``max``: [L1306-L1310]; ``last``: new iff submitted at or after the previous job's
    end; ``arrival``: new iff more than ``threshold`` after the previous submission;
    ``session``: new iff the think time from the previous job's end exceeds
    ``session_gap`` (a session break) or, inside the session, submitted at or after the
    largest end so far (MAX). Vectorised, O(n log n).

    >>> user = np.zeros(4, dtype=np.int64)
    >>> submit, end = np.array([0.0, 1.0, 4000.0, 4100.0]), np.array([9000.0, 2.0,
    ...                                                             4050.0, 4200.0])
    >>> detect(user, submit, end, "max").tolist()       # job 0 links them all
    [0, 0, 0, 0]
    >>> detect(user, submit, end, "session").tolist()   # 3998 s of thinking after job 1
    [0, 0, 1, 2]

    Parameters
    ----------
    user : numpy.ndarray
        int, shape ``(n,)``: each job's group key (its user, or a combined user/piece key).
    submit : numpy.ndarray
        Each job's submission time (s), shape ``(n,)``.
    end : numpy.ndarray
        Each job's end time in the log (s), shape ``(n,)``.
    method : str
        One of :data:`METHODS`: ``"max"`` (default), ``"last"``, ``"arrival"`` or
        ``"session"``.
    threshold : float
        ARRIVAL's largest gap between submissions inside a campaign (s; default 600).
    session_gap : float
        SESSION's largest think time inside a session (s, finite, >= 0; default
        :data:`SESSION_GAP`, 1200).

    Returns
    -------
    numpy.ndarray
        int64, shape ``(n,)``: the campaign id of each job, ``0..C-1``.

    Raises
    ------
    InvalidInstanceError
        An unknown ``method``, or a bad ``session_gap`` for ``"session"``.
    """
    if method not in METHODS:
        raise InvalidInstanceError("method", method, f"one of {', '.join(METHODS)}")
    if method == "session" and not (np.isfinite(session_gap) and session_gap >= 0):
        raise InvalidInstanceError("session_gap", session_gap, "a finite number of seconds "
                                   f">= 0 (default {SESSION_GAP:g}: 20 minutes)")
    n = user.size
    order = np.lexsort((np.arange(n), submit, user))
    u, s, e = user[order], submit[order], end[order]
    first = np.ones(n, dtype=bool)
    first[1:] = u[1:] != u[:-1]
    prev_end = np.concatenate(([-np.inf], e[:-1]))
    if method in ("max", "session"):
        if method == "session":  # a session starts a new group of the running maximum
            first = first | (s - prev_end > session_gap)
        new = _max_breaks(first, s, e)
    elif method == "last":
        new = first | (s >= prev_end)
    else:
        new = first | (s - np.concatenate(([-np.inf], s[:-1])) > threshold)
    ids = np.empty(n, dtype=np.int64)
    ids[order] = np.cumsum(new) - 1
    return ids


def _max_breaks(first: np.ndarray, s: np.ndarray, e: np.ndarray) -> np.ndarray:
    """MAX inside groups (a group starts where ``first``): True where a job is submitted at
    or after the largest end of the earlier jobs of its group. The groups are laid on one
    shifted time scale so that they never mix in the running maximum. O(n)."""
    n = s.size
    span = float(e.max() - s.min()) + 1.0 if n else 1.0
    group = np.cumsum(first) - 1
    shifted = e + group * span  # groups never mix in the running maximum
    prev = np.concatenate(([-np.inf], np.maximum.accumulate(shifted)[:-1]))
    return first | (s + group * span >= prev)


def extract(trace: SwfTrace, processors: int | None = None, method: str = "max",
            deps: bool = False, downtime: float = DOWNTIME,
            threshold: float = 600.0, replay: str = "open",
            session_gap: float = SESSION_GAP,
            status: str | Iterable[int] | None = STATUS) -> Extraction:
    """The campaign workload of an SWF log (module doc): every job of the log is in exactly one
    campaign or reported in ``unplaced`` with its reason.

    ``method`` chooses the detection (:func:`detect`); ``replay="closed"`` (spec A13) keeps
    the submission time of a user's first campaign of each piece and submits the next ones
    their original think time after the previous one completes. The jobs of a status not
    selected are reported in ``unplaced`` as ``"status N not selected"``. O(n log n +
    edges).

    Parameters
    ----------
    trace : SwfTrace
        The parsed SWF log.
    processors : int or None
        m, the machine's processors; ``None`` (default): the header's ``MaxProcs``. Wider
        jobs are not placed.
    method : str
        The campaign detection, one of :data:`METHODS` (default ``"max"``).
    deps : bool
        Keep the dependency DAG of each campaign (``end_a <= submit_b``, module
        :mod:`lpsched.campaigns.dag`); default ``False``: no edges.
    downtime : float
        The least idle gap (s) that splits the log into pieces (default :data:`DOWNTIME`).
    threshold : float
        ARRIVAL's largest gap (s; default 600).
    replay : str
        ``"open"`` (default: campaigns keep their submission times) or ``"closed"``.
    session_gap : float
        SESSION's largest think time (s; default :data:`SESSION_GAP`).
    status : str or iterable of int or None
        The SWF statuses kept (:func:`lpsched.core.swf.parse_status`: ``"all"``, the default
        :data:`STATUS`; ``"completed"``; ``"completed,0"``).

    Returns
    -------
    Extraction
        The campaign workload (jobs in campaign order, original ids and times in
        ``job_data``), the jobs not placed by reason, the number of pieces and the method.

    Raises
    ------
    ParseError
        When no job of the log can be placed, naming the count of each reason (all run
        times 0 or unknown, all jobs wider than the machine, no status selected...).
    InvalidInstanceError
        For an unknown ``replay``, ``method`` or ``status``, or a machine size missing.

    Notes
    -----
    Every status is kept by default (decision 300); a log where no job can be placed is an
    input error (decision 301).
    """
    if replay not in ("open", "closed"):
        raise InvalidInstanceError("replay", replay, "'open' or 'closed'")
    m = processors or trace.max_procs
    if m is None:
        raise InvalidInstanceError("processors", None, "the trace has no MaxProcs header: "
                                   "give --machines")
    kept = parse_status(status)  # an unknown status name fails before any work
    keep, unplaced = _keep(trace, m, status)
    if not keep.any():
        raise _nothing_placed(trace, unplaced)
    c = {k: v[keep] for k, v in trace.columns.items()}
    wait = np.maximum(c["wait"], 0.0)
    submit0, run = c["submit"], c["run"]
    start0 = submit0 + wait
    end0 = start0 + run
    size = np.where(c["allocated"] > 0, c["allocated"],
                    np.where(c["requested_procs"] > 0, c["requested_procs"], 1))
    piece, piece_start = split_pieces(submit0, start0, end0, downtime)
    submit = np.maximum(submit0, piece_start[piece])
    user = c["user"].astype(np.int64)
    key = user * (int(piece.max(initial=0)) + 1) + piece
    camp = detect(key, submit, end0, method, threshold, session_gap)
    n_c = int(camp.max(initial=-1)) + 1
    t_c = np.full(n_c, np.inf)
    np.minimum.at(t_c, camp, submit)
    first_job = np.full(n_c, camp.size)
    np.minimum.at(first_job, camp, np.arange(camp.size))
    c_piece = piece[first_job]
    c_order = np.lexsort((first_job, t_c, c_piece))  # campaigns by piece, then submission
    rank = np.empty(n_c, dtype=np.int64)
    rank[c_order] = np.arange(n_c)
    camp = rank[camp]
    jobs = np.lexsort((np.arange(camp.size), submit, camp))
    camp_s = camp[jobs]
    offsets = np.searchsorted(camp_s, np.arange(n_c + 1)).astype(np.int64)
    src = dst = np.zeros(0, dtype=np.int64)
    if deps:
        src, dst = dependency_edges(camp_s, submit[jobs], end0[jobs])
    users = int(user.max(initial=-1)) + 1
    w = Workload(int(m), run[jobs].astype(float), size[jobs].astype(np.int64), offsets,
                 user[first_job[c_order]],
                 t_c[c_order], np.zeros(n_c), c_piece[c_order], src, dst, max(users, 1),
                 {"id": c["job"][jobs], "submit0": submit[jobs], "start0": start0[jobs],
                  "end0": end0[jobs]},
                 {"source": trace.path, "method": method, "downtime": downtime,
                  "status": "all" if kept is None else ",".join(map(str, sorted(kept))),
                  "unplaced": unplaced, **({"deps_rule": INTERVAL_ORDER} if deps else {}),
                  **({"session_gap": float(session_gap)} if method == "session" else {})})
    if replay == "closed":
        w = closed_loop(w)
    return Extraction(w, unplaced, int(np.unique(piece).size), method)


def closed_loop(w: Workload) -> Workload:
    """Closed-loop replay of an extracted workload (spec A13): think time = the original gap between
    the previous campaign's last end and this submission (>= 0).

    O(n).

    Parameters
    ----------
    w : Workload
        An extracted workload whose ``job_data`` holds ``end0``, the log's end times.

    Returns
    -------
    Workload
        The same jobs; each user's first campaign of a piece keeps its submission time, the
        others get ``submit`` NaN and a think time, and ``extra["replay"]`` is ``"closed"``.
    """
    prev = previous_campaign(w)
    end0 = np.maximum.reduceat(w.job_data["end0"], w.offsets[:-1])
    think = np.where(prev >= 0, np.maximum(w.submit - end0[np.maximum(prev, 0)], 0.0), 0.0)
    submit = np.where(prev >= 0, np.nan, w.submit)
    return Workload(w.processors, w.p, w.q, w.offsets, w.user, submit, think, w.piece,
                    w.dep_src, w.dep_dst, w.users, w.job_data, {**w.extra, "replay": "closed"})
